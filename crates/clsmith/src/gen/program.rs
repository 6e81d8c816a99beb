//! A whole program: launch shape, type names, structs, macros, `__constant` tables, the
//! checksum mixer, helpers, the tested kernel (buffers, `__local` objects, prologue, body,
//! checksum) and an extra kernel; then the arguments.

use crate::args::{Arg, ArgValue};
use crate::ast::{
    Alias, BinOp, Block, ConstTable, Expr, Field, FnId, Init, Macro, MacroId, Scalar, Space, Stmt,
    StructDef, Type, UnOp, WorkItem,
};
use crate::gen::expr::Want;
use crate::gen::range::Range;
use crate::gen::state::{
    BufInfo, BufKind, FnCtx, Gen, HelperSig, LocalInfo, LocalMode, MacroInfo, ParamKind, PtrInfo,
    Root, Shape, VarInfo,
};

/// A generated program with its launch and arguments.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The program.
    pub program: crate::ast::Program,
    /// The tested kernel.
    pub kernel: FnId,
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub block: [u32; 3],
    /// Arguments in parameter order.
    pub args: Vec<Arg>,
}

const BLOCK_X: [u32; 15] = [1, 2, 3, 5, 7, 8, 13, 16, 31, 32, 33, 40, 48, 63, 64];

fn ro_info(range: Option<(i128, i128)>, uniform: bool) -> VarInfo {
    VarInfo {
        readonly: true,
        uniform,
        range,
        ptr: None,
        fold: false,
    }
}

fn wi(w: WorkItem, d: u32) -> Expr {
    Expr::Builtin(
        crate::ast::Builtin::WorkItem(w),
        vec![Expr::Int(crate::ast::IntLit {
            value: d as u64,
            radix: crate::ast::Radix::Dec,
            suffix: crate::ast::Suffix::None,
            upper: false,
        })],
    )
}

fn add(a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Add, Box::new(a), Box::new(b))
}

fn mul(a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Mul, Box::new(a), Box::new(b))
}

impl Gen<'_> {
    /// Generates everything.
    pub fn build(mut self) -> Generated {
        self.shape = self.choose_shape();
        self.k_slots = *self.rng.pick(&[1u32, 2, 4, 4, 8]);
        self.in_len = *self.rng.pick(&[16u32, 64, 64, 128]);
        self.type_names();
        if self.cfg.structs {
            for _ in 0..self.rng.range(1, 3) {
                self.struct_type();
            }
        }
        self.macros_and_tables();
        self.ck_mix();
        let mut kernel = self.kernel_params();
        let n_helpers = self.rng.range(0, self.cfg.max_helpers as i64);
        for _ in 0..n_helpers {
            self.helper();
        }
        std::mem::swap(&mut self.f, &mut kernel);
        self.kernel_body();
        let kernel_fn = self.finish_kernel();
        if self.cfg.extra_kernels && self.rng.chance(1, 3) {
            self.extra_kernel();
        }
        self.pragmas();
        let args = self.arguments(kernel_fn);
        Generated {
            program: self.p,
            kernel: kernel_fn,
            grid: self.shape.grid,
            block: self.shape.block,
            args,
        }
    }

    fn choose_shape(&mut self) -> Shape {
        let c = self.cfg;
        loop {
            let xs: Vec<u32> = BLOCK_X
                .iter()
                .copied()
                .filter(|&x| x <= c.max_block[0])
                .collect();
            let bx = if xs.is_empty() {
                c.max_block[0]
            } else {
                *self.rng.pick(&xs)
            };
            let by = if self.rng.chance(1, 4) {
                self.rng.range(1, c.max_block[1] as i64) as u32
            } else {
                1
            };
            let bz = if self.rng.chance(1, 10) {
                self.rng.range(1, c.max_block[2] as i64) as u32
            } else {
                1
            };
            let gx = self.rng.range(1, c.max_grid[0] as i64) as u32;
            let gy = if self.rng.chance(1, 3) {
                self.rng.range(1, c.max_grid[1] as i64) as u32
            } else {
                1
            };
            let gz = if self.rng.chance(1, 10) {
                self.rng.range(1, c.max_grid[2] as i64) as u32
            } else {
                1
            };
            let shape = Shape {
                grid: [gx, gy, gz],
                block: [bx, by, bz],
            };
            if shape.total() <= c.max_work_items {
                return shape;
            }
            if bx == 1 && by == 1 && bz == 1 {
                return Shape {
                    grid: [1, 1, 1],
                    block: [1, 1, 1],
                };
            }
        }
    }

    fn type_names(&mut self) {
        let builtin = [
            ("size_t", Scalar::ULong),
            ("unsigned int", Scalar::UInt),
            ("unsigned char", Scalar::UChar),
            ("signed char", Scalar::Char),
            ("unsigned long", Scalar::ULong),
            ("unsigned short", Scalar::UShort),
        ];
        for (name, s) in builtin {
            self.p.aliases.push(Alias {
                name: name.into(),
                target: Type::Scalar(s),
                builtin: true,
            });
        }
        for _ in 0..self.rng.range(0, 3) {
            let s = self.pick_scalar(Want::Arith);
            let name = format!("{}_t{}", s.name(), self.p.aliases.len());
            self.p.aliases.push(Alias {
                name,
                target: Type::Scalar(s),
                builtin: false,
            });
        }
    }

    fn struct_type(&mut self) {
        let n = self.rng.range(1, 4);
        let mut fields = Vec::new();
        for i in 0..n {
            let s = self.pick_scalar(Want::Arith);
            let s = if s == Scalar::Bool && self.rng.chance(1, 2) {
                Scalar::Int
            } else {
                s
            };
            let ty = if self.rng.chance(1, 4) && s != Scalar::Bool {
                Type::Array(Box::new(Type::Scalar(s)), *self.rng.pick(&[2u32, 4]))
            } else {
                self.spell(s)
            };
            fields.push(Field {
                name: format!("f{i}"),
                ty,
            });
        }
        let name = format!("S{}", self.p.structs.len());
        self.p.structs.push(StructDef { name, fields });
    }

    fn add_macro(&mut self, name: String, params: Option<Vec<String>>, body: Expr) -> MacroId {
        self.p.macros.push(Macro { name, params, body });
        self.p.macros.len() as MacroId - 1
    }

    fn macros_and_tables(&mut self) {
        if self.cfg.macros {
            let k = self.k_slots as i128;
            let body = self.int_const(Scalar::Int, k).e;
            let id = self.add_macro("K_SLOTS".into(), None, body);
            self.k_macro = Some(id);
            self.macros.push(MacroInfo {
                id,
                value: Some((k, Scalar::Int)),
                occurrences: vec![],
            });
            for i in 0..self.rng.range(0, 2) {
                let s = *self
                    .rng
                    .pick(&[Scalar::Int, Scalar::UInt, Scalar::Long, Scalar::ULong]);
                let g = self.random_const(s);
                let Range::Int(v, _) = g.range else {
                    unreachable!()
                };
                let id = self.add_macro(format!("C{i}"), None, g.e);
                self.macros.push(MacroInfo {
                    id,
                    value: Some((v, s)),
                    occurrences: vec![],
                });
            }
            for i in 0..self.rng.range(1, 3) {
                let (params, body, occ) = self.macro_template();
                let id = self.add_macro(format!("M{i}"), Some(params), body);
                self.macros.push(MacroInfo {
                    id,
                    value: None,
                    occurrences: occ,
                });
            }
        }
        if self.cfg.constant_tables {
            for i in 0..self.rng.range(0, 2) {
                let elem = *self.rng.pick(&[
                    Scalar::Int,
                    Scalar::UInt,
                    Scalar::Char,
                    Scalar::UShort,
                    Scalar::Long,
                ]);
                let n = *self.rng.pick(&[4usize, 8, 16]);
                let values = (0..n)
                    .map(|_| self.random_const(elem).e)
                    .map(strip_cast)
                    .collect();
                self.p.constants.push(ConstTable {
                    name: format!("ctab{i}"),
                    elem,
                    values,
                });
            }
        }
    }

    /// A parenthesized function-like macro body, and how often each parameter occurs.
    fn macro_template(&mut self) -> (Vec<String>, Expr, Vec<u32>) {
        let a = || Box::new(Expr::MacroParam(0));
        let b = || Box::new(Expr::MacroParam(1));
        let c = || Box::new(Expr::MacroParam(2));
        let lit = |v: u64| {
            Box::new(Expr::Int(crate::ast::IntLit {
                value: v,
                radix: crate::ast::Radix::Dec,
                suffix: crate::ast::Suffix::None,
                upper: false,
            }))
        };
        let ulit = |v: u64| {
            Box::new(Expr::Int(crate::ast::IntLit {
                value: v,
                radix: crate::ast::Radix::Hex,
                suffix: crate::ast::Suffix::U,
                upper: false,
            }))
        };
        let names = |n: usize| {
            ["x", "y", "z"][..n]
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        match self.rng.below(7) {
            0 => (names(2), Expr::Binary(BinOp::Xor, a(), b()), vec![1, 1]),
            1 => (names(1), Expr::Binary(BinOp::Shr, a(), lit(1)), vec![1]),
            2 => (
                names(2),
                Expr::Cond(Box::new(Expr::Binary(BinOp::Lt, a(), b())), a(), b()),
                vec![2, 2],
            ),
            3 => (
                names(2),
                Expr::Binary(
                    BinOp::Add,
                    Box::new(Expr::Binary(BinOp::And, a(), lit(255))),
                    Box::new(Expr::Binary(BinOp::And, b(), lit(255))),
                ),
                vec![1, 1],
            ),
            4 => (
                names(1),
                Expr::Binary(
                    BinOp::Mul,
                    Box::new(Expr::Cast(Type::Scalar(Scalar::UInt), a())),
                    ulit(3),
                ),
                vec![1],
            ),
            5 => (names(3), Expr::Cond(a(), b(), c()), vec![1, 1, 1]),
            _ => (
                names(1),
                Expr::Unary(
                    UnOp::Neg,
                    Box::new(Expr::Binary(BinOp::And, a(), lit(0xffff))),
                ),
                vec![1],
            ),
        }
    }

    /// `ulong ck_mix(ulong h, ulong v)`: the checksum step (FNV-style, with the high bits
    /// folded back so every input bit reaches every output bit).
    fn ck_mix(&mut self) {
        let mut f = FnCtx::new("ck_mix".into(), false, Type::Scalar(Scalar::ULong));
        let h = f.add_var(
            "h".into(),
            Type::Scalar(Scalar::ULong),
            Space::Private,
            ro_info(None, false),
        );
        let v = f.add_var(
            "v".into(),
            Type::Scalar(Scalar::ULong),
            Space::Private,
            ro_info(None, false),
        );
        f.func.params = vec![h, v];
        let prime = self.int_const(Scalar::ULong, 0x100_0000_01b3).e;
        let x = Expr::Binary(BinOp::Xor, Box::new(Expr::Var(h)), Box::new(Expr::Var(v)));
        let m = mul(x, prime);
        let hi = Expr::Binary(
            BinOp::Shr,
            Box::new(Expr::Var(h)),
            Box::new(self.int_const(Scalar::Int, 29).e),
        );
        f.func.body = Block {
            stmts: vec![Stmt::Return(Some(add(m, hi)))],
        };
        self.p.functions.push(f.func);
    }

    /// The kernel's parameters: buffers of each kind, `__local` objects, scalars.
    fn kernel_params(&mut self) -> FnCtx {
        let name = "clsmith_kernel".to_string();
        let mut f = FnCtx::new(name, true, Type::Void);
        f.func.short_kernel_keyword = self.rng.chance(1, 3);
        let total = self.shape.total();
        let k = self.k_slots;
        let add_buf = |g: &mut Gen,
                       f: &mut FnCtx,
                       name: String,
                       elem: Scalar,
                       kind: BufKind,
                       len: u32,
                       space: Space,
                       konst: bool| {
            let ty = Type::Ptr {
                space,
                konst,
                pointee: Box::new(Type::Scalar(elem)),
            };
            let v = f.add_var(name, ty, Space::Private, ro_info(None, false));
            f.func.params.push(v);
            g.bufs.push(BufInfo {
                var: v,
                elem,
                kind,
                len,
                space,
            });
        };
        add_buf(
            self,
            &mut f,
            "out".into(),
            Scalar::ULong,
            BufKind::Out,
            total,
            Space::Global,
            false,
        );
        let buf_elem = |g: &mut Gen| loop {
            let s = g.pick_scalar(Want::Arith);
            if s != Scalar::Bool {
                return s;
            }
        };
        for i in 0..self.rng.range(1, 3) {
            let elem = buf_elem(self);
            let constant = self.rng.chance(1, 4);
            let space = if constant {
                Space::Constant
            } else {
                Space::Global
            };
            let konst = !constant && self.rng.chance(1, 2);
            let len = self.in_len;
            add_buf(
                self,
                &mut f,
                format!("in{i}"),
                elem,
                BufKind::In,
                len,
                space,
                konst,
            );
        }
        for i in 0..self.rng.range(0, 2) {
            let elem = buf_elem(self);
            add_buf(
                self,
                &mut f,
                format!("io{i}"),
                elem,
                BufKind::Own,
                total * k,
                Space::Global,
                false,
            );
        }
        if self.cfg.atomics {
            let elem = *self.rng.pick(&[Scalar::Int, Scalar::UInt]);
            let fams = (0..4).flat_map(|_| {
                let fam = self.rng.below(6) as u8;
                [fam, fam]
            });
            let fams: Vec<u8> = fams.collect();
            add_buf(
                self,
                &mut f,
                "acc".into(),
                elem,
                BufKind::Atomic(fams),
                8,
                Space::Global,
                false,
            );
            if !self
                .bufs
                .iter()
                .any(|b| b.kind == BufKind::Own && matches!(b.elem, Scalar::Int | Scalar::UInt))
                && self.rng.chance(1, 2)
            {
                let elem = *self.rng.pick(&[Scalar::Int, Scalar::UInt]);
                add_buf(
                    self,
                    &mut f,
                    "own".into(),
                    elem,
                    BufKind::Own,
                    total * k,
                    Space::Global,
                    false,
                );
            }
        }
        for i in 0..self.rng.range(1, 4) {
            let s = loop {
                let s = self.pick_scalar(Want::Arith);
                if s != Scalar::Bool {
                    break s;
                }
            };
            let range = if s.is_integer() {
                let g = self.random_const(s);
                g.range.constant().map(|v| (v, v))
            } else {
                None
            };
            let v = f.add_var(
                format!("n{i}"),
                Type::Scalar(s),
                Space::Private,
                ro_info(range, true),
            );
            f.func.params.push(v);
            if let Some((value, _)) = range {
                self.param_values.push((v, value));
            }
        }
        if self.cfg.local_memory {
            let group = self.shape.group_size();
            let len = (group * k).next_power_of_two();
            for i in 0..self.rng.range(1, 2) {
                let elem = buf_elem(self);
                let v = f.add_var(
                    format!("tile{i}"),
                    Type::Array(Box::new(Type::Scalar(elem)), len),
                    Space::Local,
                    ro_info(None, false),
                );
                self.locals.push(LocalInfo {
                    var: v,
                    elem,
                    len,
                    atomic: None,
                });
            }
            if self.rng.chance(1, 2) {
                let elem = buf_elem(self);
                let ty = Type::Ptr {
                    space: Space::Local,
                    konst: false,
                    pointee: Box::new(Type::Scalar(elem)),
                };
                let v = f.add_var("lbuf".into(), ty, Space::Private, ro_info(None, false));
                f.func.params.push(v);
                self.locals.push(LocalInfo {
                    var: v,
                    elem,
                    len,
                    atomic: None,
                });
            }
            if self.cfg.atomics && self.rng.chance(1, 2) {
                let elem = *self.rng.pick(&[Scalar::Int, Scalar::UInt]);
                let fams: Vec<u8> = (0..4)
                    .flat_map(|_| {
                        let fam = self.rng.below(6) as u8;
                        [fam, fam]
                    })
                    .collect();
                let v = f.add_var(
                    "lacc".into(),
                    Type::Array(Box::new(Type::Scalar(elem)), 8),
                    Space::Local,
                    ro_info(None, false),
                );
                self.locals.push(LocalInfo {
                    var: v,
                    elem,
                    len: 8,
                    atomic: Some(fams),
                });
            }
        }
        f
    }

    /// Finds or makes the buffer receiving each work-item's `float` or `double` values.
    pub fn float_buf(&mut self, s: Scalar) -> crate::ast::VarId {
        if let Some(b) = self
            .bufs
            .iter()
            .find(|b| b.kind == BufKind::FloatOut && b.elem == s)
        {
            return b.var;
        }
        let name = if s == Scalar::Float { "fout" } else { "dout" };
        let ty = Type::Ptr {
            space: Space::Global,
            konst: false,
            pointee: Box::new(Type::Scalar(s)),
        };
        let v = self
            .f
            .add_var(name.into(), ty, Space::Private, ro_info(None, false));
        self.f.func.params.push(v);
        self.bufs.push(BufInfo {
            var: v,
            elem: s,
            kind: BufKind::FloatOut,
            len: 0,
            space: Space::Global,
        });
        v
    }

    /// The macro holding how many `float` (or `double`) slots each work-item has; its value
    /// is set when the kernel is finished.
    pub fn float_slots_macro(&mut self, s: Scalar) -> MacroId {
        let name = if s == Scalar::Float {
            "F_SLOTS"
        } else {
            "D_SLOTS"
        };
        if let Some(i) = self.p.macros.iter().position(|m| m.name == name) {
            return i as MacroId;
        }
        let body = Expr::Int(crate::ast::IntLit {
            value: 0,
            radix: crate::ast::Radix::Dec,
            suffix: crate::ast::Suffix::None,
            upper: false,
        });
        self.add_macro(name.into(), None, body)
    }

    fn helper(&mut self) {
        let ret_kind = self
            .rng
            .weighted(&[6, if self.p.structs.is_empty() { 0 } else { 2 }, 2]);
        let ret = match ret_kind {
            0 => {
                let s = self.pick_scalar(Want::Arith);
                self.spell(s)
            }
            1 => Type::Struct(self.rng.index(self.p.structs.len()) as u32),
            _ => Type::Void,
        };
        let name = self.fresh("h");
        let mut ctx = FnCtx::new(name, false, ret.clone());
        ctx.budget = (self.cfg.max_stmts / 4).max(1) as i64;
        ctx.func.short_kernel_keyword = self.rng.chance(1, 3);
        let mut kinds = Vec::new();
        for _ in 0..self.rng.range(0, 4) {
            let k = self.rng.weighted(&[
                8,
                if self.p.structs.is_empty() { 0 } else { 2 },
                if self.cfg.pointers { 3 } else { 0 },
                if self.cfg.pointers && self.bufs.iter().any(|b| b.kind == BufKind::Own) {
                    2
                } else {
                    0
                },
                if self.cfg.pointers
                    && self
                        .bufs
                        .iter()
                        .any(|b| b.kind == BufKind::In && b.space == Space::Global)
                {
                    2
                } else {
                    0
                },
            ]);
            let kind = match k {
                0 => ParamKind::Scalar(self.pick_scalar(Want::Arith)),
                1 => ParamKind::Struct(self.rng.index(self.p.structs.len()) as u32),
                2 => {
                    let mut s = self.pick_scalar(Want::Arith);
                    if s == Scalar::Bool {
                        s = Scalar::Int;
                    }
                    ParamKind::Private(s, *self.rng.pick(&[1u32, 2, 4]))
                }
                3 => {
                    let owns: Vec<Scalar> = self
                        .bufs
                        .iter()
                        .filter(|b| b.kind == BufKind::Own)
                        .map(|b| b.elem)
                        .collect();
                    ParamKind::GlobalOwn(*self.rng.pick(&owns))
                }
                _ => {
                    let ins: Vec<Scalar> = self
                        .bufs
                        .iter()
                        .filter(|b| b.kind == BufKind::In && b.space == Space::Global)
                        .map(|b| b.elem)
                        .collect();
                    ParamKind::GlobalIn(*self.rng.pick(&ins))
                }
            };
            kinds.push(kind);
        }
        for (i, k) in kinds.iter().enumerate() {
            let name = format!("x{i}");
            let (ty, info) = match k {
                ParamKind::Scalar(s) => (
                    self.spell(*s),
                    VarInfo {
                        readonly: false,
                        uniform: false,
                        range: None,
                        ptr: None,
                        fold: true,
                    },
                ),
                ParamKind::Struct(id) => (
                    Type::Struct(*id),
                    VarInfo {
                        readonly: false,
                        uniform: false,
                        range: None,
                        ptr: None,
                        fold: true,
                    },
                ),
                ParamKind::Private(s, ext) => {
                    let v = ctx.func.vars.len() as u32;
                    let ptr = PtrInfo {
                        root: Some(Root::Var(v)),
                        extent: *ext,
                        writable: true,
                        elem: Type::Scalar(*s),
                        base: None,
                    };
                    (
                        Type::Ptr {
                            space: Space::Private,
                            konst: false,
                            pointee: Box::new(Type::Scalar(*s)),
                        },
                        VarInfo {
                            readonly: true,
                            uniform: false,
                            range: None,
                            ptr: Some(ptr),
                            fold: false,
                        },
                    )
                }
                ParamKind::GlobalOwn(s) => {
                    let v = ctx.func.vars.len() as u32;
                    let ptr = PtrInfo {
                        root: Some(Root::Var(v)),
                        extent: self.k_slots,
                        writable: true,
                        elem: Type::Scalar(*s),
                        base: None,
                    };
                    (
                        Type::Ptr {
                            space: Space::Global,
                            konst: false,
                            pointee: Box::new(Type::Scalar(*s)),
                        },
                        VarInfo {
                            readonly: true,
                            uniform: false,
                            range: None,
                            ptr: Some(ptr),
                            fold: false,
                        },
                    )
                }
                ParamKind::GlobalIn(s) => {
                    let ptr = PtrInfo {
                        root: None,
                        extent: self.in_len,
                        writable: false,
                        elem: Type::Scalar(*s),
                        base: None,
                    };
                    (
                        Type::Ptr {
                            space: Space::Global,
                            konst: true,
                            pointee: Box::new(Type::Scalar(*s)),
                        },
                        VarInfo {
                            readonly: true,
                            uniform: false,
                            range: None,
                            ptr: Some(ptr),
                            fold: false,
                        },
                    )
                }
            };
            let v = ctx.add_var(name, ty, Space::Private, info);
            ctx.func.params.push(v);
            ctx.scope.push(v);
        }
        ctx.param_use = vec![(false, false); kinds.len()];
        let saved = std::mem::replace(&mut self.f, ctx);
        let mut stmts = Vec::new();
        if let Type::Struct(id) = ret {
            let init = self.struct_init_list(id);
            let r = self.f.add_var(
                "r".into(),
                Type::Struct(id),
                Space::Private,
                VarInfo {
                    readonly: false,
                    uniform: false,
                    range: None,
                    ptr: None,
                    fold: true,
                },
            );
            stmts.push(Stmt::Decl(r, Some(init)));
            self.f.scope.push(r);
        }
        while self.f.budget > 0 {
            self.stmt(&mut stmts);
        }
        if let Some(v) = self.return_value(&ret) {
            stmts.push(Stmt::Return(Some(v)));
        } else if self.rng.chance(1, 3) {
            stmts.push(Stmt::Return(None));
        }
        let ctx = std::mem::replace(&mut self.f, saved);
        let mut func = ctx.func;
        func.body = Block { stmts };
        let id = self.p.functions.len() as FnId;
        self.p.functions.push(func);
        self.helpers.push(HelperSig {
            id,
            params: kinds,
            uses: ctx.param_use,
            cost: ctx.max_mult.max(1),
        });
    }

    /// The kernel's body: ids, `__local` initialization, variables, random statements,
    /// checksum.
    fn kernel_body(&mut self) {
        self.f.budget = self.cfg.max_stmts as i64;
        let mut stmts = Vec::new();
        for l in self.locals.clone() {
            if self.f.func.vars[l.var as usize].space == Space::Local {
                stmts.push(Stmt::Decl(l.var, None));
            }
        }
        let total = self.shape.total() as i128;
        let group = self.shape.group_size() as i128;
        // The ids fit every one of these types: `size_t`, `uint`, `int`, `ulong`.
        let id_types = [
            Type::Alias(0),
            Type::Scalar(Scalar::UInt),
            Type::Scalar(Scalar::Int),
            Type::Scalar(Scalar::ULong),
        ];
        let gty = self.rng.pick(&id_types).clone();
        let gid_e = add(
            wi(WorkItem::GlobalId, 0),
            mul(
                wi(WorkItem::GlobalSize, 0),
                add(
                    wi(WorkItem::GlobalId, 1),
                    mul(wi(WorkItem::GlobalSize, 1), wi(WorkItem::GlobalId, 2)),
                ),
            ),
        );
        let gid = self.f.add_var(
            "gid".into(),
            gty,
            Space::Private,
            ro_info(Some((0, total - 1)), false),
        );
        stmts.push(Stmt::Decl(gid, Some(Init::Expr(gid_e))));
        self.f.gid = Some(gid);
        self.f.scope.push(gid);
        let lty = self.rng.pick(&id_types).clone();
        let lid_e = add(
            wi(WorkItem::LocalId, 0),
            mul(
                wi(WorkItem::LocalSize, 0),
                add(
                    wi(WorkItem::LocalId, 1),
                    mul(wi(WorkItem::LocalSize, 1), wi(WorkItem::LocalId, 2)),
                ),
            ),
        );
        let lid = self.f.add_var(
            "lid".into(),
            lty,
            Space::Private,
            ro_info(Some((0, group - 1)), false),
        );
        stmts.push(Stmt::Decl(lid, Some(Init::Expr(lid_e))));
        self.f.lid = Some(lid);
        self.f.scope.push(lid);
        for &p in &self.f.func.params.clone() {
            if self.f.info[p as usize].uniform
                || self.bufs.iter().any(|b| b.var == p)
                || self.locals.iter().any(|l| l.var == p)
            {
                self.f.scope.push(p);
            }
        }
        if !self.locals.is_empty() {
            self.local_prologue(&mut stmts);
        }
        for _ in 0..self.rng.range(2, 5) {
            self.scalar_decl(&mut stmts);
        }
        while self.f.budget > 0 {
            self.stmt(&mut stmts);
        }
        let ck = self.checksum();
        stmts.extend(ck);
        self.f.func.body = Block { stmts };
    }

    /// Every work-item initializes the `__local` slots `lid, lid + size, ...`; then a
    /// barrier.
    fn local_prologue(&mut self, stmts: &mut Vec<Stmt>) {
        let lid = self.f.lid.expect("kernel");
        let gid = self.f.gid.expect("kernel");
        for l in self.locals.clone() {
            let k_name = self.fresh("i");
            let k = self.f.add_var(
                k_name,
                Type::Scalar(Scalar::UInt),
                Space::Private,
                ro_info(Some((0, l.len as i128 - 1)), false),
            );
            let size = mul(
                wi(WorkItem::LocalSize, 0),
                mul(wi(WorkItem::LocalSize, 1), wi(WorkItem::LocalSize, 2)),
            );
            let value = match &l.atomic {
                Some(fams) => {
                    // Word w starts at a value of its family's liking: 0 for add/sub,
                    // extremes for min/max, patterns for the bitwise ones.
                    let mut e = self.int_const(l.elem, 0).e;
                    for (w, &fam) in fams.iter().enumerate().rev() {
                        let v = match (fam, l.elem) {
                            (1, Scalar::Int) => i32::MAX as i128,
                            (1, _) => u32::MAX as i128,
                            (2, Scalar::Int) => i32::MIN as i128,
                            (3, Scalar::Int) => -1,
                            (3, _) => u32::MAX as i128,
                            (4 | 5, _) => 0x5a5a,
                            _ => 0,
                        };
                        let wc = self.int_const(Scalar::UInt, w as i128);
                        let vc = self.int_const(l.elem, v);
                        let c = Expr::Binary(BinOp::Eq, Box::new(Expr::Var(k)), Box::new(wc.e));
                        e = Expr::Cond(Box::new(c), Box::new(vc.e), Box::new(e));
                    }
                    e
                }
                None => {
                    let x = Expr::Binary(
                        BinOp::Xor,
                        Box::new(mul(
                            Expr::Var(k),
                            Expr::Int(crate::ast::IntLit {
                                value: 2654435761,
                                radix: crate::ast::Radix::Dec,
                                suffix: crate::ast::Suffix::U,
                                upper: false,
                            }),
                        )),
                        Box::new(Expr::Cast(
                            Type::Scalar(Scalar::UInt),
                            Box::new(Expr::Var(gid)),
                        )),
                    );
                    Expr::Cast(Type::Scalar(l.elem), Box::new(x))
                }
            };
            let store = Stmt::Expr(Expr::Assign(
                None,
                Box::new(Expr::Index(
                    Box::new(Expr::Var(l.var)),
                    Box::new(Expr::Var(k)),
                )),
                Box::new(value),
            ));
            let len = self.int_const(Scalar::UInt, l.len as i128);
            stmts.push(Stmt::For(
                Some(Box::new(Stmt::Decl(k, Some(Init::Expr(Expr::Var(lid)))))),
                Some(Expr::Binary(
                    BinOp::Lt,
                    Box::new(Expr::Var(k)),
                    Box::new(len.e),
                )),
                Some(Expr::Assign(
                    Some(BinOp::Add),
                    Box::new(Expr::Var(k)),
                    Box::new(size),
                )),
                Block { stmts: vec![store] },
            ));
        }
        stmts.push(Stmt::Barrier(1));
        self.f.local_mode = LocalMode::Shared;
    }

    /// Adds the finished kernel to the program, sizes the float output buffers.
    fn finish_kernel(&mut self) -> FnId {
        let total = self.shape.total();
        let (nf, nd) = self.f.float_slots;
        for (s, n, name) in [
            (Scalar::Float, nf, "F_SLOTS"),
            (Scalar::Double, nd, "D_SLOTS"),
        ] {
            if let Some(i) = self.p.macros.iter().position(|m| m.name == name) {
                self.p.macros[i].body = self.int_const(Scalar::Int, n as i128).e;
            }
            for b in self.bufs.iter_mut() {
                if b.kind == BufKind::FloatOut && b.elem == s {
                    b.len = total * n;
                }
            }
        }
        let mut ctx = std::mem::replace(&mut self.f, FnCtx::new(String::new(), false, Type::Void));
        if !self.cfg.macros {
            // Without macros the slot counts are literals (the only macros were theirs).
            let p = std::mem::take(&mut self.p.macros);
            let mut body = std::mem::take(&mut ctx.func.body);
            for st in &mut body.stmts {
                crate::gen::program::inline_macros_stmt(st, &p);
            }
            ctx.func.body = body;
        }
        let id = self.p.functions.len() as FnId;
        self.p.functions.push(ctx.func);
        id
    }

    /// `kernel void aux(__global ulong *o, int n)`: a second kernel sharing the helpers,
    /// compiled but not run.
    fn extra_kernel(&mut self) {
        let mut f = FnCtx::new("clsmith_aux".into(), true, Type::Void);
        f.func.short_kernel_keyword = self.rng.chance(1, 2);
        let o = f.add_var(
            "o".into(),
            Type::Ptr {
                space: Space::Global,
                konst: false,
                pointee: Box::new(Type::Scalar(Scalar::ULong)),
            },
            Space::Private,
            ro_info(None, false),
        );
        let n = f.add_var(
            "n".into(),
            Type::Scalar(Scalar::Int),
            Space::Private,
            ro_info(None, false),
        );
        f.func.params = vec![o, n];
        let i = f.add_var(
            "i".into(),
            Type::Alias(0),
            Space::Private,
            ro_info(None, false),
        );
        let mut stmts = vec![Stmt::Decl(i, Some(Init::Expr(wi(WorkItem::GlobalId, 0))))];
        let mut value = mul(
            Expr::Var(i),
            Expr::Cast(Type::Scalar(Scalar::ULong), Box::new(Expr::Var(n))),
        );
        let scalar_only: Vec<&HelperSig> = self
            .helpers
            .iter()
            .filter(|h| h.params.iter().all(|p| matches!(p, ParamKind::Scalar(_))))
            .collect();
        if let Some(h) = scalar_only.first() {
            let ret = &self.p.functions[h.id as usize].ret;
            if self.p.scalar(ret).is_some_and(|s| s.is_integer()) {
                let args = h
                    .params
                    .iter()
                    .map(|_| add(Expr::Var(i), Expr::Var(n)))
                    .collect();
                let call = Expr::Cast(
                    Type::Scalar(Scalar::ULong),
                    Box::new(Expr::Call(h.id, args)),
                );
                value = Expr::Binary(BinOp::Xor, Box::new(value), Box::new(call));
            }
        }
        stmts.push(Stmt::Expr(Expr::Assign(
            None,
            Box::new(Expr::Index(Box::new(Expr::Var(o)), Box::new(Expr::Var(i)))),
            Box::new(value),
        )));
        f.func.body = Block { stmts };
        self.p.functions.push(f.func);
    }

    fn pragmas(&mut self) {
        if self.cfg.doubles {
            self.p
                .pragmas
                .push("OPENCL EXTENSION cl_khr_fp64 : enable".into());
        }
        let names = [
            "cl_khr_global_int32_base_atomics",
            "cl_khr_global_int32_extended_atomics",
            "cl_khr_local_int32_base_atomics",
            "cl_khr_local_int32_extended_atomics",
        ];
        for (used, name) in self.atom_used.iter().zip(names) {
            if *used {
                self.p
                    .pragmas
                    .push(format!("OPENCL EXTENSION {name} : enable"));
            }
        }
    }

    /// Random contents for the buffers, values for the scalars.
    fn arguments(&mut self, kernel: FnId) -> Vec<Arg> {
        let f = self.p.functions[kernel as usize].clone();
        let mut args = Vec::new();
        for &pv in &f.params {
            let d = &f.vars[pv as usize];
            let value = if let Some(b) = self.bufs.iter().find(|b| b.var == pv).cloned() {
                let bytes = match &b.kind {
                    BufKind::Out => vec![0xa5; (b.len * 8) as usize],
                    BufKind::FloatOut => vec![0; (b.len * b.elem.size()) as usize],
                    BufKind::Atomic(fams) => {
                        let mut bytes = Vec::new();
                        for &fam in fams {
                            let v: i128 = match (fam, b.elem) {
                                (0, Scalar::Int) => self.rng.range(-1000, 1000) as i128,
                                (_, Scalar::Int) => self.rng.next_u64() as i32 as i128,
                                _ => self.rng.next_u64() as u32 as i128,
                            };
                            bytes.extend(crate::interp::memory::encode(
                                &crate::interp::value::Value::Int(b.elem, v),
                            ));
                        }
                        bytes
                    }
                    BufKind::In | BufKind::Own => {
                        let mut bytes = Vec::new();
                        for _ in 0..b.len {
                            bytes.extend(self.random_element(b.elem));
                        }
                        bytes
                    }
                };
                ArgValue::Buffer(bytes)
            } else if let Some(l) = self.locals.iter().find(|l| l.var == pv) {
                ArgValue::Local(l.len * l.elem.size())
            } else {
                let s = self.p.scalar(&d.ty).expect("scalar parameter");
                match s {
                    Scalar::Float => ArgValue::F32(self.arg_float() as f32),
                    Scalar::Double => ArgValue::F64(self.arg_float()),
                    s => {
                        let value = self
                            .param_values
                            .iter()
                            .find(|(v, _)| *v == pv)
                            .expect("integer parameters have a chosen value")
                            .1;
                        ArgValue::Int {
                            bits: s.bits() as u8,
                            signed: s.is_signed(),
                            value,
                        }
                    }
                }
            };
            args.push(Arg {
                name: d.name.clone(),
                value,
            });
        }
        args
    }

    fn arg_float(&mut self) -> f64 {
        let v = self.random_float(Scalar::Float);
        if v.is_finite() {
            v
        } else {
            1.5
        }
    }

    /// One random element's bytes: integers biased to boundaries and small values, floats
    /// from every class (NaN and infinities included).
    fn random_element(&mut self, s: Scalar) -> Vec<u8> {
        use crate::interp::value::Value;
        let v = if s.is_float() {
            let x = match self.rng.below(20) {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => f64::NEG_INFINITY,
                3 => -0.0,
                _ => self.random_float(s),
            };
            if s == Scalar::Float {
                Value::F32(x as f32)
            } else {
                Value::F64(x)
            }
        } else {
            let (lo, hi) = s.range();
            let v = match self.rng.below(8) {
                0 => lo,
                1 => hi,
                2 => self.rng.range(-4, 4) as i128,
                3 => self.rng.range(0, 64) as i128,
                _ => crate::interp::value::wrap(s, self.rng.next_u64() as i128),
            };
            Value::Int(s, v.clamp(lo, hi))
        };
        crate::interp::memory::encode(&v)
    }
}

/// Constant table initializers of narrow types drop the cast (`(char)5` → `5`); the
/// element type converts them.
fn strip_cast(e: Expr) -> Expr {
    match e {
        Expr::Cast(_, inner) => *inner,
        e => e,
    }
}

/// Replaces object-like macro uses by their bodies.
fn inline_macros_stmt(s: &mut Stmt, macros: &[Macro]) {
    let e = |x: &mut Expr| inline_macros(x, macros);
    match s {
        Stmt::Decl(_, Some(init)) => inline_init(init, macros),
        Stmt::Decl(_, None)
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Barrier(_)
        | Stmt::Return(None) => {}
        Stmt::Expr(x) | Stmt::Return(Some(x)) => e(x),
        Stmt::Block(b) => b
            .stmts
            .iter_mut()
            .for_each(|s| inline_macros_stmt(s, macros)),
        Stmt::If(c, t, el) => {
            e(c);
            t.stmts
                .iter_mut()
                .for_each(|s| inline_macros_stmt(s, macros));
            if let Some(el) = el {
                el.stmts
                    .iter_mut()
                    .for_each(|s| inline_macros_stmt(s, macros));
            }
        }
        Stmt::For(init, c, step, b) => {
            if let Some(i) = init {
                inline_macros_stmt(i, macros);
            }
            c.iter_mut().chain(step.iter_mut()).for_each(e);
            b.stmts
                .iter_mut()
                .for_each(|s| inline_macros_stmt(s, macros));
        }
        Stmt::While(c, b) | Stmt::DoWhile(b, c) => {
            e(c);
            b.stmts
                .iter_mut()
                .for_each(|s| inline_macros_stmt(s, macros));
        }
        Stmt::Switch(c, arms) => {
            e(c);
            arms.iter_mut()
                .flat_map(|a| a.body.iter_mut())
                .for_each(|s| inline_macros_stmt(s, macros));
        }
        Stmt::PpIf { then, els, .. } => {
            then.stmts
                .iter_mut()
                .chain(els.stmts.iter_mut())
                .for_each(|s| inline_macros_stmt(s, macros));
        }
    }
}

fn inline_init(i: &mut Init, macros: &[Macro]) {
    match i {
        Init::Expr(x) => inline_macros(x, macros),
        Init::List(items) => items.iter_mut().for_each(|i| inline_init(i, macros)),
    }
}

fn inline_macros(e: &mut Expr, macros: &[Macro]) {
    if let Expr::Macro(m, args) = e {
        if args.is_empty() {
            *e = macros[*m as usize].body.clone();
            return;
        }
    }
    match e {
        Expr::Unary(_, a)
        | Expr::IncDec(_, a)
        | Expr::Cast(_, a)
        | Expr::Member(a, _)
        | Expr::Arrow(a, _) => inline_macros(a, macros),
        Expr::Binary(_, a, b) | Expr::Assign(_, a, b) | Expr::Comma(a, b) | Expr::Index(a, b) => {
            inline_macros(a, macros);
            inline_macros(b, macros);
        }
        Expr::Cond(a, b, c) => {
            inline_macros(a, macros);
            inline_macros(b, macros);
            inline_macros(c, macros);
        }
        Expr::Call(_, xs) | Expr::Builtin(_, xs) | Expr::Macro(_, xs) => {
            xs.iter_mut().for_each(|x| inline_macros(x, macros))
        }
        _ => {}
    }
}
