//! Random statements, weighted towards divergence: branches and loop bounds that depend on
//! the work-item and on loaded data, exits taken by some work-items only, values live
//! across those regions, and barriers only where the whole workgroup arrives together.

use crate::ast::{
    AtomicOp, BinOp, Block, Builtin, Expr, Init, Label, Scalar, Space, Stmt, Type, UnOp, VarId,
};
use crate::gen::expr::{inc_dec_ok, Want};
use crate::gen::range::Range;
use crate::gen::state::{
    trip_cap, Breakable, BufKind, Cons, Effects, Gen, LocalMode, LoopCtx, PtrInfo, Root, VarInfo,
};

impl Gen<'_> {
    /// A block of up to `max` statements in a new scope.
    pub fn block(&mut self, max: u32) -> Block {
        let saved = self.f.scope.clone();
        let mut stmts = Vec::new();
        let n = self.rng.range(1, max.max(1) as i64);
        for _ in 0..n {
            if self.f.budget <= 0 {
                break;
            }
            self.stmt(&mut stmts);
        }
        self.f.scope = saved;
        Block { stmts }
    }

    /// Runs `f` one statement level deeper.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.f.depth += 1;
        let r = f(self);
        self.f.depth -= 1;
        r
    }

    /// Appends one random statement (or a few that belong together).
    pub fn stmt(&mut self, out: &mut Vec<Stmt>) {
        self.f.budget -= 1;
        let nest = self.f.depth < self.cfg.max_depth;
        let kernel = self.f.kernel;
        let in_loop = !self.f.loops.is_empty();
        let has_locals = kernel && !self.locals.is_empty();
        let w = [
            22,                                            // 0 assignment
            8,                                             // 1 declaration
            if nest { 14 } else { 0 },                     // 2 if
            if nest { 11 } else { 0 },                     // 3 loop
            if nest && self.cfg.switches { 3 } else { 0 }, // 4 switch
            if in_loop || !self.f.breakables.is_empty() {
                6
            } else {
                0
            }, // 5 break / continue
            if self.return_ok() { 3 } else { 0 },          // 6 return
            if self.helpers.is_empty() { 0 } else { 4 },   // 7 call
            if kernel && self.cfg.atomics { 4 } else { 0 }, // 8 atomic
            if has_locals && self.f.uniform_flow && self.f.local_mode == LocalMode::Shared && nest {
                5
            } else {
                0
            }, // 9 phase
            if kernel
                && self.cfg.local_memory
                && self.f.uniform_flow
                && self.f.local_mode != LocalMode::Owned
            {
                1
            } else {
                0
            }, // 10 barrier
            if nest && self.cfg.pointers { 2 } else { 0 }, // 11 pointer walk
            if self.cfg.macros && nest { 1 } else { 0 },   // 12 #if
            if nest { 2 } else { 0 },                      // 13 block
            3,                                             // 14 expression statement
        ];
        match self.rng.weighted(&w) {
            0 => self.assignment(out),
            1 => self.declaration(out),
            2 => self.if_stmt(out),
            3 => self.loop_stmt(out),
            4 => self.switch_stmt(out),
            5 => self.jump(out),
            6 => self.early_return(out),
            7 => self.call_stmt(out),
            8 => self.atomic_stmt(out),
            9 => self.local_phase(out),
            10 => out.push(Stmt::Barrier(*self.rng.pick(&[1, 1, 2, 3]))),
            11 => self.pointer_walk(out),
            12 => self.pp_if(out),
            13 => self.shadow_block(out),
            _ => self.expression_stmt(out),
        }
    }

    fn return_ok(&self) -> bool {
        if !self.f.kernel {
            return true;
        }
        self.f.uniform_flow || self.cfg.divergent_returns_before_barriers || self.locals.is_empty()
    }

    fn assignment(&mut self, out: &mut Vec<Stmt>) {
        if self.cfg.structs && self.rng.chance(1, 8) {
            if let Some(s) = self.struct_assignment() {
                out.push(s);
                return;
            }
        }
        let cons = Cons::default();
        let Some(lv) = self.lvalue(Want::Arith, &cons) else {
            return self.declaration(out);
        };
        let s = self.scalar(&lv.ty).expect("arithmetic lvalue");
        let d = self.cfg.max_expr_depth;
        if self.rng.chance(1, 6) && inc_dec_ok(s) {
            let op = *self.rng.pick(&[
                crate::ast::IncDec::PostInc,
                crate::ast::IncDec::PreDec,
                crate::ast::IncDec::PreInc,
            ]);
            out.push(Stmt::Expr(Expr::IncDec(op, Box::new(lv.e))));
            return;
        }
        let (op, rhs) = self.assign_rhs(&lv, s, d, &cons);
        out.push(Stmt::Expr(Expr::Assign(
            op,
            Box::new(lv.e),
            Box::new(rhs.e),
        )));
    }

    /// `s = t;`, `s = h(...);`, `s = c ? t : u;` on struct variables.
    fn struct_assignment(&mut self) -> Option<Stmt> {
        let targets: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| {
                matches!(self.p.resolve(self.f.ty(v)), Type::Struct(_))
                    && !self.f.info[v as usize].readonly
            })
            .collect();
        if targets.is_empty() {
            return None;
        }
        let v = *self.rng.pick(&targets);
        let Type::Struct(id) = self.p.resolve(self.f.ty(v)).clone() else {
            unreachable!()
        };
        let mut cons = Cons::default();
        cons.no_write.push(Root::Var(v));
        let rhs = self.struct_rvalue(id, &cons)?;
        Some(Stmt::Expr(Expr::Assign(
            None,
            Box::new(Expr::Var(v)),
            Box::new(rhs),
        )))
    }

    /// A struct-typed expression: a variable, a helper's result, or a choice of two.
    fn struct_rvalue(&mut self, id: u32, cons: &Cons) -> Option<Expr> {
        let calls: Vec<usize> = (0..self.helpers.len())
            .filter(|&h| self.p.functions[self.helpers[h].id as usize].ret == Type::Struct(id))
            .collect();
        if !calls.is_empty() && self.rng.chance(1, 3) {
            let h = *self.rng.pick(&calls);
            if let Some(g) = self.call(h, 1, cons) {
                return Some(g.e);
            }
        }
        let a = self.struct_value(id, cons)?;
        if self.rng.chance(1, 3) {
            let b = self.struct_value(id, cons)?;
            let c = self.cond_expr(cons);
            return Some(Expr::Cond(
                Box::new(c.e),
                Box::new(Expr::Var(a)),
                Box::new(Expr::Var(b)),
            ));
        }
        Some(Expr::Var(a))
    }

    fn expression_stmt(&mut self, out: &mut Vec<Stmt>) {
        let cons = Cons::default();
        let d = self.cfg.max_expr_depth;
        let g = match self.side_effect_expr(Want::Arith, d, &cons) {
            Some(a) if self.rng.chance(1, 2) => {
                let b = self
                    .side_effect_expr(Want::Arith, 1, &Cons::default())
                    .unwrap_or_else(|| self.expr(Want::Arith, 1, &cons));
                Expr::Comma(Box::new(a.e), Box::new(b.e))
            }
            Some(a) => a.e,
            None => self.expr(Want::Arith, d, &cons).e,
        };
        let g = if self.rng.chance(1, 3) {
            Expr::Cast(Type::Void, Box::new(g))
        } else {
            g
        };
        out.push(Stmt::Expr(g));
    }

    /// A new variable with an initializer (arithmetic, array, struct or pointer).
    fn declaration(&mut self, out: &mut Vec<Stmt>) {
        let kind = self.rng.weighted(&[
            14,
            if self.cfg.private_arrays { 3 } else { 0 },
            if self.cfg.structs && !self.p.structs.is_empty() {
                3
            } else {
                0
            },
            if self.cfg.pointers { 3 } else { 0 },
        ]);
        match kind {
            1 => self.array_decl(out),
            2 => self.struct_decl(out),
            3 => {
                if !self.pointer_decl(out) {
                    self.scalar_decl(out);
                }
            }
            _ => {
                self.scalar_decl(out);
            }
        }
    }

    /// `T v = e;`, sometimes `const` (its value range is then known) or `__private`.
    pub fn scalar_decl(&mut self, out: &mut Vec<Stmt>) -> VarId {
        let s = self.pick_scalar(Want::Arith);
        let d = self.cfg.max_expr_depth;
        let want = if s.is_float() { Want::Arith } else { Want::Int };
        let init = self.expr(want, d, &Cons::default());
        let init = if s.is_integer() && self.scalar(&init.ty).is_some_and(|t| t.is_float()) {
            self.to_scalar(init, s)
        } else {
            init
        };
        let konst = self.rng.chance(1, 8) && init.pure();
        let range = if konst {
            crate::gen::range::convert(init.range, self.scalar(&init.ty).expect("arith"), s)
                .and_then(|r| match r {
                    Range::Int(lo, hi) => Some((lo, hi)),
                    _ => None,
                })
        } else {
            None
        };
        let ty = self.spell(s);
        let name = self.fresh("v");
        let v = self.f.add_var(
            name,
            ty,
            Space::Private,
            VarInfo {
                readonly: konst,
                uniform: false,
                range,
                ptr: None,
                fold: true,
            },
        );
        let decl = &mut self.f.func.vars[v as usize];
        decl.konst = konst;
        decl.explicit_space = self.rng.chance(1, 10);
        out.push(Stmt::Decl(v, Some(Init::Expr(init.e))));
        self.f.scope.push(v);
        v
    }

    fn array_decl(&mut self, out: &mut Vec<Stmt>) {
        let mut s = self.pick_scalar(Want::Arith);
        if s == Scalar::Bool {
            s = Scalar::Int;
        }
        let n = *self.rng.pick(&[2u32, 4, 4, 8, 8, 16]);
        let name = self.fresh("a");
        let elem = self.spell(s);
        let v = self.f.add_var(
            name,
            Type::Array(Box::new(elem), n),
            Space::Private,
            plain_info(),
        );
        let d = self.cfg.max_expr_depth.min(2);
        if n <= 8 && self.rng.chance(2, 3) {
            let mut items = Vec::new();
            for _ in 0..n {
                let g = self.expr(
                    if s.is_float() { Want::Arith } else { Want::Int },
                    d,
                    &Cons::default(),
                );
                let g = if s.is_integer() && self.scalar(&g.ty).is_some_and(|t| t.is_float()) {
                    self.to_scalar(g, s)
                } else {
                    g
                };
                items.push(Init::Expr(g.e));
            }
            out.push(Stmt::Decl(v, Some(Init::List(items))));
            self.f.scope.push(v);
        } else {
            // Declared without an initializer, then filled by a loop: every element is
            // written before anything reads it.
            out.push(Stmt::Decl(v, None));
            let k = self.counter_var(Scalar::Int, 0, n as i128 - 1, false);
            self.f.scope.push(k);
            let kv = self.var_read(k);
            let outer = self.enter_loop(n);
            let rhs = self.expr(
                if s.is_float() { Want::Arith } else { Want::Int },
                d,
                &Cons {
                    no_write: vec![Root::Var(v)],
                    ..Cons::default()
                },
            );
            let rhs = if s.is_integer() && self.scalar(&rhs.ty).is_some_and(|t| t.is_float()) {
                self.to_scalar(rhs, s)
            } else {
                rhs
            };
            let mixed = if s.is_integer() {
                let r = self.binary(BinOp::Xor, rhs, kv);
                self.to_scalar(r, s)
            } else {
                rhs
            };
            self.f.scope.pop();
            self.f.loop_mult = outer;
            let body = Block {
                stmts: vec![Stmt::Expr(Expr::Assign(
                    None,
                    Box::new(Expr::Index(Box::new(Expr::Var(v)), Box::new(Expr::Var(k)))),
                    Box::new(mixed.e),
                ))],
            };
            out.push(self.counted_for(k, 0, n as i128, body));
            self.f.scope.push(v);
        }
    }

    /// `for (T k = lo; k < hi; k++) body` over an already declared counter.
    fn counted_for(&mut self, k: VarId, lo: i128, hi: i128, body: Block) -> Stmt {
        let t = self.scalar(self.f.ty(k)).expect("integer counter");
        let init = self.int_const(t, lo);
        let bound = self.int_const(
            if t.is_signed() {
                Scalar::Int
            } else {
                Scalar::UInt
            },
            hi,
        );
        Stmt::For(
            Some(Box::new(Stmt::Decl(k, Some(Init::Expr(init.e))))),
            Some(Expr::Binary(
                BinOp::Lt,
                Box::new(Expr::Var(k)),
                Box::new(bound.e),
            )),
            Some(Expr::IncDec(
                crate::ast::IncDec::PostInc,
                Box::new(Expr::Var(k)),
            )),
            body,
        )
    }

    /// A read-only loop counter in `lo..=hi` (not yet in scope).
    fn counter_var(&mut self, s: Scalar, lo: i128, hi: i128, uniform: bool) -> VarId {
        let name = self.fresh("i");
        let ty = self.spell(s);
        self.f.add_var(
            name,
            ty,
            Space::Private,
            VarInfo {
                readonly: true,
                uniform,
                range: Some((lo, hi)),
                ptr: None,
                fold: true,
            },
        )
    }

    fn struct_decl(&mut self, out: &mut Vec<Stmt>) {
        let id = self.rng.index(self.p.structs.len()) as u32;
        let name = self.fresh("s");
        let existing = self.struct_value(id, &Cons::default());
        let init = match existing {
            Some(src) if self.rng.chance(1, 3) => Init::Expr(Expr::Var(src)),
            _ => {
                let calls: Vec<usize> = (0..self.helpers.len())
                    .filter(|&h| {
                        self.p.functions[self.helpers[h].id as usize].ret == Type::Struct(id)
                    })
                    .collect();
                let call = if !calls.is_empty() && self.rng.chance(1, 3) {
                    let h = *self.rng.pick(&calls);
                    self.call(h, 2, &Cons::default()).map(|g| Init::Expr(g.e))
                } else {
                    None
                };
                match call {
                    Some(c) => c,
                    None => self.struct_init_list(id),
                }
            }
        };
        let v = self
            .f
            .add_var(name, Type::Struct(id), Space::Private, plain_info());
        out.push(Stmt::Decl(v, Some(init)));
        self.f.scope.push(v);
    }

    /// `{e, {e, e}, e}` for every member of struct `id`.
    pub fn struct_init_list(&mut self, id: u32) -> Init {
        let fields = self.p.structs[id as usize].fields.clone();
        let mut items = Vec::new();
        for f in fields {
            let item = match self.p.resolve(&f.ty).clone() {
                Type::Array(elem, n) => {
                    let s = self.scalar(&elem).expect("arithmetic elements");
                    Init::List((0..n).map(|_| Init::Expr(self.scalar_init(s).e)).collect())
                }
                t => {
                    let s = self.scalar(&t).expect("arithmetic member");
                    Init::Expr(self.scalar_init(s).e)
                }
            };
            items.push(item);
        }
        Init::List(items)
    }

    fn scalar_init(&mut self, s: Scalar) -> crate::gen::state::GExpr {
        let g = self.expr(
            if s.is_float() { Want::Arith } else { Want::Int },
            2,
            &Cons::default(),
        );
        if s.is_integer() && self.scalar(&g.ty).is_some_and(|t| t.is_float()) {
            self.to_scalar(g, s)
        } else {
            g
        }
    }

    /// A pointer variable into a buffer, a private array or variable, or a `__local`
    /// array; false when nothing suitable is visible.
    fn pointer_decl(&mut self, out: &mut Vec<Stmt>) -> bool {
        let mut opts: Vec<(Expr, PtrInfo, Space, bool)> = Vec::new();
        if self.f.kernel {
            let gid = self.f.gid.expect("kernel");
            for (i, b) in self.bufs.iter().enumerate() {
                let elem = Type::Scalar(b.elem);
                match b.kind {
                    BufKind::Own => {
                        let k = Expr::Int(crate::ast::IntLit {
                            value: self.k_slots as u64,
                            radix: crate::ast::Radix::Dec,
                            suffix: crate::ast::Suffix::None,
                            upper: false,
                        });
                        let e = Expr::Binary(
                            BinOp::Add,
                            Box::new(Expr::Var(b.var)),
                            Box::new(Expr::Binary(
                                BinOp::Mul,
                                Box::new(Expr::Var(gid)),
                                Box::new(k),
                            )),
                        );
                        let info = PtrInfo {
                            root: Some(Root::Buf(i as u32)),
                            extent: self.k_slots,
                            writable: true,
                            elem,
                            base: Some(e.clone()),
                        };
                        opts.push((e, info, Space::Global, false));
                    }
                    BufKind::In => {
                        let info = PtrInfo {
                            root: None,
                            extent: b.len,
                            writable: false,
                            elem,
                            base: Some(Expr::Var(b.var)),
                        };
                        opts.push((Expr::Var(b.var), info, b.space, true));
                    }
                    _ => {}
                }
            }
            if self.f.local_mode != LocalMode::None {
                let lid = self.f.lid.expect("kernel");
                for (i, l) in self.locals.iter().enumerate() {
                    if l.atomic.is_some() {
                        continue;
                    }
                    let elem = Type::Scalar(l.elem);
                    // A read-only pointer to the whole array, or one to the work-item's
                    // own slots (written only inside write phases).
                    let whole = PtrInfo {
                        root: Some(Root::Local(i as u32)),
                        extent: l.len,
                        writable: false,
                        elem: elem.clone(),
                        base: Some(Expr::Var(l.var)),
                    };
                    opts.push((Expr::Var(l.var), whole, Space::Local, false));
                    let k = Expr::Int(crate::ast::IntLit {
                        value: self.k_slots as u64,
                        radix: crate::ast::Radix::Dec,
                        suffix: crate::ast::Suffix::None,
                        upper: false,
                    });
                    let e = Expr::Binary(
                        BinOp::Add,
                        Box::new(Expr::Var(l.var)),
                        Box::new(Expr::Binary(
                            BinOp::Mul,
                            Box::new(Expr::Var(lid)),
                            Box::new(k),
                        )),
                    );
                    let own = PtrInfo {
                        root: Some(Root::Local(i as u32)),
                        extent: self.k_slots,
                        writable: true,
                        elem,
                        base: Some(e.clone()),
                    };
                    opts.push((e, own, Space::Local, false));
                }
            }
        }
        for &v in &self.f.scope {
            if self.f.func.vars[v as usize].space != Space::Private
                || self.f.info[v as usize].readonly
            {
                continue;
            }
            match self.p.resolve(self.f.ty(v)).clone() {
                Type::Array(elem, n) => {
                    let info = PtrInfo {
                        root: Some(Root::Var(v)),
                        extent: n,
                        writable: true,
                        elem: (*elem).clone(),
                        base: Some(Expr::Var(v)),
                    };
                    opts.push((Expr::Var(v), info, Space::Private, false));
                }
                Type::Scalar(_) | Type::Struct(_) => {
                    // The pointee as declared: `signed char` and `char` are distinct types.
                    let t = self.f.ty(v).clone();
                    let addr = Expr::Unary(UnOp::AddrOf, Box::new(Expr::Var(v)));
                    let info = PtrInfo {
                        root: Some(Root::Var(v)),
                        extent: 1,
                        writable: true,
                        elem: t,
                        base: Some(addr.clone()),
                    };
                    opts.push((addr, info, Space::Private, false));
                }
                _ => {}
            }
        }
        if opts.is_empty() {
            return false;
        }
        let (init, info, space, konst) = self.rng.pick(&opts).clone();
        let name = self.fresh("p");
        let ty = Type::Ptr {
            space,
            konst,
            pointee: Box::new(info.elem.clone()),
        };
        let v = self.f.add_var(
            name,
            ty,
            Space::Private,
            VarInfo {
                readonly: true,
                uniform: false,
                range: None,
                ptr: Some(info),
                fold: true,
            },
        );
        out.push(Stmt::Decl(v, Some(Init::Expr(init))));
        self.f.scope.push(v);
        true
    }

    /// A condition: usually one that differs between work-items (ids, loaded data,
    /// computed values), sometimes a uniform one.
    pub fn cond_expr(&mut self, cons: &Cons) -> crate::gen::state::GExpr {
        let d = self.cfg.max_expr_depth.min(3);
        match self.rng.below(5) {
            0 | 1 if !cons.uniform => {
                // `(x & m) op c`: both outcomes common.
                let x = self.expr(Want::Int, d.min(2), cons);
                let m = *self.rng.pick(&[1i128, 3, 7, 15]);
                let mask = self.int_const(Scalar::Int, m);
                let xm = self.try_binary(BinOp::And, &x, &mask).expect("mask");
                let c = self.rng.range(0, m as i64) as i128;
                let cc = self.int_const(Scalar::Int, c);
                let op = *self
                    .rng
                    .pick(&[BinOp::Lt, BinOp::Eq, BinOp::Ne, BinOp::Gt, BinOp::Le]);
                self.try_binary(op, &xm, &cc).expect("comparison")
            }
            _ => self.expr(Want::Arith, d, cons),
        }
    }

    fn if_stmt(&mut self, out: &mut Vec<Stmt>) {
        let uniform = self.rng.chance(1, 5)
            || (self.f.uniform_flow
                && self.f.kernel
                && !self.locals.is_empty()
                && self.rng.chance(1, 3));
        let cons = Cons {
            uniform,
            pure: uniform,
            ..Cons::default()
        };
        let c = self.cond_expr(&cons);
        let saved_flow = self.f.uniform_flow;
        if !c.uniform {
            self.f.uniform_flow = false;
        }
        let then = self.nested(|g| g.block(4));
        let els = if self.rng.chance(1, 2) {
            Some(self.nested(|g| g.block(3)))
        } else {
            None
        };
        self.f.uniform_flow = saved_flow;
        out.push(Stmt::If(c.e, then, els));
    }

    /// A loop bound in `0..=max`: constant, masked, or remaindered; uniform on request.
    fn bound(&mut self, max: u32, uniform: bool) -> crate::gen::state::GExpr {
        let cons = Cons {
            uniform,
            pure: uniform,
            ..Cons::default()
        };
        if self.rng.chance(1, 5) {
            let v = self.rng.range(0, max as i64) as i128;
            return self.int_const(Scalar::Int, v);
        }
        let x = self.expr(Want::Int, 2, &cons);
        let m = (max + 1).next_power_of_two() / 2;
        let mask = self.int_const(Scalar::Int, m as i128 - 1);
        let xm = self.try_binary(BinOp::And, &x, &mask).expect("mask");
        if self.rng.chance(1, 2) && m as i128 - 1 < max as i128 {
            let one = self.int_const(Scalar::Int, 1);
            return self.try_binary(BinOp::Add, &xm, &one).expect("small");
        }
        xm
    }

    fn loop_stmt(&mut self, out: &mut Vec<Stmt>) {
        let cap = trip_cap(self.cfg.max_loop_trips);
        let max = self.cfg.max_loop_trips.min(cap / self.f.loop_mult);
        if max < 1 {
            return self.assignment(out);
        }
        let wants_barriers = self.f.kernel
            && self.f.uniform_flow
            && !self.locals.is_empty()
            && self.rng.chance(1, 3);
        let uniform = wants_barriers || self.rng.chance(1, 5);
        // The bound is evaluated on every iteration: calls in it count as inside the loop.
        let outer = self.enter_loop(max + 1);
        let bound = self.bound(max, uniform);
        self.f.loop_mult = outer;
        // A loop whose work-items all run the same iterations and leave together may
        // hold barriers; any other loop's body is divergent.
        let barrier_loop = wants_barriers && bound.uniform;
        let bhi = bound.range.int(Scalar::Long).1.clamp(0, max as i128);
        let s = *self.rng.pick(&[
            Scalar::Int,
            Scalar::Int,
            Scalar::UInt,
            Scalar::UChar,
            Scalar::Short,
            Scalar::Long,
            Scalar::ULong,
        ]);
        let form = self.rng.below(6);
        let saved = (self.f.uniform_flow, self.f.loop_mult, self.f.scope.clone());
        self.enter_loop(bhi as u32);
        if !barrier_loop {
            self.f.uniform_flow = false;
        }
        self.f.loops.push(LoopCtx {
            divergent_exit: !barrier_loop,
        });
        self.f
            .breakables
            .push(Breakable::Loop(self.f.loops.len() - 1));
        let mut after: Option<VarId> = None;
        let stmt = match form {
            // for (T i = 0; i < B; i++) with ++i, i += 2, B > i variants.
            0..=2 => {
                let k = self.counter_var(s, 0, (bhi - 1).max(0), bound.uniform);
                self.f.scope.push(k);
                let body = self.nested(|g| g.block(4));
                let init = self.int_const(s, 0);
                let step = match form {
                    2 => {
                        let two = self.int_const(Scalar::Int, 2);
                        Expr::Assign(Some(BinOp::Add), Box::new(Expr::Var(k)), Box::new(two.e))
                    }
                    1 => Expr::IncDec(crate::ast::IncDec::PreInc, Box::new(Expr::Var(k))),
                    _ => Expr::IncDec(crate::ast::IncDec::PostInc, Box::new(Expr::Var(k))),
                };
                let cond = if self.rng.chance(1, 4) {
                    Expr::Binary(BinOp::Gt, Box::new(bound.e.clone()), Box::new(Expr::Var(k)))
                } else {
                    Expr::Binary(BinOp::Lt, Box::new(Expr::Var(k)), Box::new(bound.e.clone()))
                };
                Stmt::For(
                    Some(Box::new(Stmt::Decl(k, Some(Init::Expr(init.e))))),
                    Some(cond),
                    Some(step),
                    body,
                )
            }
            // for (T i = B; i > 0; i--): the bound is evaluated once.
            3 => {
                let k = self.counter_var(s, 1, bhi.max(1), bound.uniform);
                self.f.scope.push(k);
                let body = self.nested(|g| g.block(4));
                let zero = self.int_const(Scalar::Int, 0);
                let init = if self.scalar(&bound.ty) == Some(s) {
                    bound.e.clone()
                } else {
                    Expr::Cast(Type::Scalar(s), Box::new(bound.e.clone()))
                };
                Stmt::For(
                    Some(Box::new(Stmt::Decl(k, Some(Init::Expr(init))))),
                    Some(Expr::Binary(
                        BinOp::Gt,
                        Box::new(Expr::Var(k)),
                        Box::new(zero.e),
                    )),
                    Some(Expr::IncDec(
                        crate::ast::IncDec::PostDec,
                        Box::new(Expr::Var(k)),
                    )),
                    body,
                )
            }
            // T w = 0; then   while (w < B) { w++; ... }   or   do { w++; ... } while (w < B);
            // or   for (;;) { if (!(w < B)) break; w++; ... }   (also `while (1)`).
            _ => {
                let k = self.counter_var(s, 1, bhi.max(1), bound.uniform);
                let init = self.int_const(s, 0);
                out.push(Stmt::Decl(k, Some(Init::Expr(init.e))));
                self.f.scope.push(k);
                after = Some(k);
                let inc = Stmt::Expr(Expr::IncDec(
                    crate::ast::IncDec::PostInc,
                    Box::new(Expr::Var(k)),
                ));
                let mut body = self.nested(|g| g.block(4));
                let cond =
                    Expr::Binary(BinOp::Lt, Box::new(Expr::Var(k)), Box::new(bound.e.clone()));
                body.stmts.insert(0, inc);
                match form {
                    4 => Stmt::While(cond, body),
                    5 if self.rng.chance(1, 2) => Stmt::DoWhile(body, cond),
                    _ => {
                        let exit = Expr::Unary(UnOp::Not, Box::new(cond));
                        body.stmts.insert(
                            0,
                            Stmt::If(
                                exit,
                                Block {
                                    stmts: vec![Stmt::Break],
                                },
                                None,
                            ),
                        );
                        if self.rng.chance(1, 2) {
                            let one = self.int_const(Scalar::Int, 1);
                            Stmt::While(one.e, body)
                        } else {
                            Stmt::For(None, None, None, body)
                        }
                    }
                }
            }
        };
        self.f.loops.pop();
        self.f.breakables.pop();
        let (flow, mult, mut scope) = saved;
        if let Some(k) = after {
            // The counter stays visible after the loop with its final value, which differs
            // between work-items unless they all left the loop together.
            scope.push(k);
            let info = &mut self.f.info[k as usize];
            info.range = Some((0, bhi.max(1)));
            info.uniform = barrier_loop;
        }
        self.f.uniform_flow = flow;
        self.f.loop_mult = mult;
        self.f.scope = scope;
        out.push(stmt);
    }

    fn switch_stmt(&mut self, out: &mut Vec<Stmt>) {
        let x = self.expr(Want::Int, 2, &Cons::default());
        let small = self.rng.chance(3, 4);
        let scrut = if small {
            let mv = *self.rng.pick(&[3i128, 7]);
            let m = self.int_const(Scalar::Int, mv);
            self.try_binary(BinOp::And, &x, &m).expect("mask")
        } else {
            x
        };
        let t = crate::ctype::promote(self.scalar(&scrut.ty).expect("integer"));
        let mut used: Vec<i128> = Vec::new();
        let n_arms = self.rng.range(2, 5);
        let has_default = self.rng.chance(2, 3);
        let default_at = self.rng.range(0, n_arms - 1);
        let saved = (self.f.uniform_flow, self.f.scope.clone());
        self.f.uniform_flow = false;
        self.f.breakables.push(Breakable::Switch);
        let mut arms = Vec::new();
        for a in 0..n_arms {
            let mut labels = Vec::new();
            for _ in 0..self.rng.range(1, 2) {
                let v: i64 = if small {
                    self.rng.range(0, 8)
                } else {
                    self.rng.range(-3, 20)
                };
                let w = crate::interp::value::wrap(t, v as i128);
                if !used.contains(&w) {
                    used.push(w);
                    labels.push(Label::Case(v));
                }
            }
            if has_default && a == default_at {
                labels.push(Label::Default);
            }
            if labels.is_empty() {
                continue;
            }
            let mut body = self.nested(|g| g.block(3)).stmts;
            if self.rng.chance(3, 4) {
                body.push(Stmt::Break);
            }
            arms.push(crate::ast::Arm { labels, body });
        }
        self.f.breakables.pop();
        self.f.uniform_flow = saved.0;
        self.f.scope = saved.1;
        out.push(Stmt::Switch(scrut.e, arms));
    }

    fn jump(&mut self, out: &mut Vec<Stmt>) {
        let Some(&target) = self.f.breakables.last() else {
            return;
        };
        let loop_ctx = self.f.loops.last().copied();
        let is_break = self.rng.chance(1, 2) || loop_ctx.is_none();
        let target_loop = match (is_break, target) {
            (true, Breakable::Loop(i)) => Some(i),
            (true, Breakable::Switch) => None,
            (false, _) => Some(self.f.loops.len() - 1),
        };
        if let (Some(phase), Some(t)) = (self.f.phase_loops, target_loop) {
            if t < phase {
                return;
            }
        }
        // Which statement the jump leaves: break leaves the innermost breakable, continue
        // the innermost loop.
        let divergent_ok = match (is_break, target) {
            (true, Breakable::Switch) => true,
            _ => loop_ctx.is_some_and(|l| l.divergent_exit),
        };
        if !divergent_ok && !self.f.uniform_flow {
            return;
        }
        let cons = Cons {
            uniform: !divergent_ok,
            pure: !divergent_ok,
            ..Cons::default()
        };
        let c = self.cond_expr(&cons);
        let j = if is_break {
            Stmt::Break
        } else {
            Stmt::Continue
        };
        out.push(Stmt::If(c.e, Block { stmts: vec![j] }, None));
    }

    fn early_return(&mut self, out: &mut Vec<Stmt>) {
        let divergent_ok =
            !self.f.kernel || self.cfg.divergent_returns_before_barriers || self.locals.is_empty();
        let uniform = !divergent_ok || self.rng.chance(1, 6);
        let cons = Cons {
            uniform,
            pure: uniform,
            ..Cons::default()
        };
        let c = self.cond_expr(&cons);
        // Often made rarer (`c && (x & 3) == 0`), so that most work-items go on.
        let c = if !uniform && self.rng.chance(1, 2) {
            let m = self.int_const(Scalar::Int, 3);
            let x = self.expr(Want::Int, 1, &Cons::default());
            let xm = self.try_binary(BinOp::And, &x, &m).expect("mask");
            let zero = self.int_const(Scalar::Int, 0);
            let eq = self.try_binary(BinOp::Eq, &xm, &zero).expect("cmp");
            self.try_binary(BinOp::LogAnd, &c, &eq).expect("and")
        } else {
            c
        };
        let saved = self.f.uniform_flow;
        if !c.uniform {
            self.f.uniform_flow = false;
        }
        let mut stmts = Vec::new();
        if self.f.kernel {
            stmts.extend(self.checksum());
            stmts.push(Stmt::Return(None));
        } else {
            let ret = self.f.func.ret.clone();
            let value = self.return_value(&ret);
            stmts.push(Stmt::Return(value));
        }
        self.f.uniform_flow = saved;
        out.push(Stmt::If(c.e, Block { stmts }, None));
    }

    /// A value for `return` in a helper of result type `ret`.
    pub fn return_value(&mut self, ret: &Type) -> Option<Expr> {
        match self.p.resolve(ret).clone() {
            Type::Void => None,
            Type::Struct(id) => {
                let v = self
                    .struct_value(id, &Cons::default())
                    .expect("helpers returning a struct declare one first");
                Some(Expr::Var(v))
            }
            t => {
                let s = self.scalar(&t).expect("arithmetic result");
                let g = self.expr(
                    if s.is_float() { Want::Arith } else { Want::Int },
                    self.cfg.max_expr_depth,
                    &Cons::default(),
                );
                let g = if s.is_integer() && self.scalar(&g.ty).is_some_and(|x| x.is_float()) {
                    self.to_scalar(g, s)
                } else {
                    g
                };
                Some(g.e)
            }
        }
    }

    fn call_stmt(&mut self, out: &mut Vec<Stmt>) {
        let h = self.rng.index(self.helpers.len());
        if let Some(g) = self.call(h, 2, &Cons::default()) {
            let e = if self.p.functions[self.helpers[h].id as usize].ret != Type::Void
                && self.rng.chance(1, 3)
            {
                Expr::Cast(Type::Void, Box::new(g.e))
            } else {
                g.e
            };
            out.push(Stmt::Expr(e));
        }
    }

    /// An atomic on a shared word of the atomic buffer (or, in a write phase, of a
    /// `__local` atomic array), its result unused: the words' final values do not depend
    /// on the order of the work-items.
    fn atomic_stmt(&mut self, out: &mut Vec<Stmt>) {
        let mut targets: Vec<(Expr, Vec<u8>, Scalar, bool)> = Vec::new();
        for b in &self.bufs {
            if let BufKind::Atomic(fam) = &b.kind {
                targets.push((Expr::Var(b.var), fam.clone(), b.elem, false));
            }
        }
        if self.f.local_mode == LocalMode::Owned {
            for l in &self.locals {
                if let Some(fam) = &l.atomic {
                    targets.push((Expr::Var(l.var), fam.clone(), l.elem, true));
                }
            }
        }
        if targets.is_empty() {
            return self.assignment(out);
        }
        let (base, fams, elem, local) = self.rng.pick(&targets).clone();
        // Words come in pairs of one family.
        let pair = self.rng.index(fams.len() / 2);
        let fam = fams[pair * 2];
        let ops: &[AtomicOp] = match fam {
            0 => &[AtomicOp::Add, AtomicOp::Sub, AtomicOp::Inc, AtomicOp::Dec],
            1 => &[AtomicOp::Min],
            2 => &[AtomicOp::Max],
            3 => &[AtomicOp::And],
            4 => &[AtomicOp::Or],
            _ => &[AtomicOp::Xor],
        };
        let op = *self.rng.pick(ops);
        let x = self.expr(
            Want::Int,
            1,
            &Cons {
                pure: true,
                ..Cons::default()
            },
        );
        let one = self.int_const(Scalar::Int, 1);
        let sel = self.try_binary(BinOp::And, &x, &one).expect("mask");
        let basei = self.int_const(Scalar::Int, pair as i128 * 2);
        let idx = self.try_binary(BinOp::Add, &basei, &sel).expect("index");
        let ptr = if self.rng.chance(1, 2) {
            Expr::Unary(
                UnOp::AddrOf,
                Box::new(Expr::Index(Box::new(base), Box::new(idx.e))),
            )
        } else {
            Expr::Binary(BinOp::Add, Box::new(base), Box::new(idx.e))
        };
        let mut args = vec![ptr];
        if !matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
            let v = self.expr(
                Want::Int,
                2,
                &Cons {
                    pure: true,
                    ..Cons::default()
                },
            );
            let v = if fam == 0 {
                let m = self.int_const(Scalar::Int, 0xff);
                self.try_binary(BinOp::And, &v, &m).expect("mask")
            } else {
                v
            };
            let v = self.cast_forced(v, elem);
            args.push(v.e);
        }
        let short = self.rng.chance(1, 4);
        let slot = if local { 2 } else { 0 } + if fam == 0 { 0 } else { 1 };
        self.atom_used[slot] |= short;
        out.push(Stmt::Expr(Expr::Builtin(
            Builtin::Atomic { op, short },
            args,
        )));
    }

    /// `barrier; writes of own __local slots (and local atomics); barrier` — after it every
    /// work-item may read every slot.
    fn local_phase(&mut self, out: &mut Vec<Stmt>) {
        out.push(Stmt::Barrier(*self.rng.pick(&[1, 1, 3])));
        self.f.local_mode = LocalMode::Owned;
        self.f.phase_loops = Some(self.f.loops.len());
        let saved = self.f.scope.clone();
        // At least one write of an own slot of each array.
        for i in 0..self.locals.len() {
            let l = self.locals[i].clone();
            if l.atomic.is_some() {
                continue;
            }
            let idx = self.own_local_index(&Cons {
                pure: true,
                ..Cons::default()
            });
            let v = self.expr(
                if l.elem.is_float() {
                    Want::Arith
                } else {
                    Want::Int
                },
                2,
                // Unsequenced with the index: it may not write what the index reads.
                &Cons {
                    no_write: vec![Root::Local(i as u32)],
                    ..Cons::default()
                }
                .beside(&idx.eff),
            );
            let v = if l.elem.is_integer() && self.scalar(&v.ty).is_some_and(|t| t.is_float()) {
                self.to_scalar(v, l.elem)
            } else {
                v
            };
            out.push(Stmt::Expr(Expr::Assign(
                None,
                Box::new(Expr::Index(Box::new(Expr::Var(l.var)), Box::new(idx.e))),
                Box::new(v.e),
            )));
        }
        let n = self.rng.range(1, 3);
        for _ in 0..n {
            if self.f.budget <= 0 {
                break;
            }
            self.stmt(out);
        }
        self.f.scope = saved;
        self.f.local_mode = LocalMode::Shared;
        self.f.phase_loops = None;
        out.push(Stmt::Barrier(*self.rng.pick(&[1, 1, 3])));
    }

    /// `for (T *q = p; q < p + n; q++) *q = ...;` and friends.
    fn pointer_walk(&mut self, out: &mut Vec<Stmt>) {
        let cands: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| {
                self.f.info[v as usize].ptr.as_ref().is_some_and(|p| {
                    p.extent > 1
                        && p.extent <= 16
                        && self.scalar(&p.elem).is_some()
                        && match p.root {
                            Some(Root::Local(_)) => {
                                if p.writable {
                                    self.f.local_mode == LocalMode::Owned
                                } else {
                                    self.f.local_mode == LocalMode::Shared
                                }
                            }
                            _ => true,
                        }
                })
            })
            .collect();
        let cap = trip_cap(self.cfg.max_loop_trips);
        if cands.is_empty() {
            return self.assignment(out);
        }
        let p = *self.rng.pick(&cands);
        let info = self.f.info[p as usize].ptr.clone().expect("pointer");
        if self.f.loop_mult * info.extent > cap {
            return self.assignment(out);
        }
        let s = self.scalar(&info.elem).expect("arithmetic");
        let pty = self.f.ty(p).clone();
        let name = self.fresh("q");
        let qinfo = PtrInfo {
            root: info.root,
            extent: 1,
            writable: info.writable && info.root.is_some(),
            elem: info.elem.clone(),
            base: info.base.clone(),
        };
        let q = self.f.add_var(
            name,
            pty,
            Space::Private,
            VarInfo {
                readonly: true,
                uniform: false,
                range: None,
                ptr: Some(qinfo),
                fold: true,
            },
        );
        let n = self.int_const(Scalar::Int, info.extent as i128);
        let end = Expr::Binary(BinOp::Add, Box::new(Expr::Var(p)), Box::new(n.e));
        let saved = (self.f.scope.clone(), self.f.loop_mult, self.f.uniform_flow);
        self.f.scope.push(q);
        self.enter_loop(info.extent);
        self.f.uniform_flow = false;
        self.f.loops.push(LoopCtx {
            divergent_exit: true,
        });
        self.f
            .breakables
            .push(Breakable::Loop(self.f.loops.len() - 1));
        let mut body = Vec::new();
        let root = info.root;
        if info.writable && root.is_some() && self.rng.chance(2, 3) {
            let cur = Expr::Unary(UnOp::Deref, Box::new(Expr::Var(q)));
            let x = self.expr(
                Want::Int,
                2,
                &Cons {
                    no_write: root.into_iter().collect(),
                    ..Cons::default()
                },
            );
            let rhs = if s.is_float() {
                self.cast_forced(x, s).e
            } else {
                let cur_g = crate::gen::state::GExpr {
                    e: cur.clone(),
                    ty: Type::Scalar(s),
                    range: Range::full(s),
                    eff: Effects::default(),
                    uniform: false,
                };
                let mixed = self.binary(BinOp::Xor, cur_g, x);
                self.to_scalar(mixed, s).e
            };
            body.push(Stmt::Expr(Expr::Assign(None, Box::new(cur), Box::new(rhs))));
        }
        let more = self.nested(|g| g.block(2));
        body.extend(more.stmts);
        self.f.loops.pop();
        self.f.breakables.pop();
        self.f.scope = saved.0;
        self.f.loop_mult = saved.1;
        self.f.uniform_flow = saved.2;
        let cond = if self.rng.chance(1, 2) {
            BinOp::Lt
        } else {
            BinOp::Ne
        };
        out.push(Stmt::For(
            Some(Box::new(Stmt::Decl(q, Some(Init::Expr(Expr::Var(p)))))),
            Some(Expr::Binary(cond, Box::new(Expr::Var(q)), Box::new(end))),
            Some(Expr::IncDec(
                crate::ast::IncDec::PostInc,
                Box::new(Expr::Var(q)),
            )),
            Block { stmts: body },
        ));
    }

    /// `#if COND` / `#else` / `#endif` on a macro's value; both branches are valid code.
    fn pp_if(&mut self, out: &mut Vec<Stmt>) {
        let consts: Vec<(String, i128, bool)> = self
            .macros
            .iter()
            .filter_map(|m| {
                m.value
                    .map(|(v, t)| (self.p.macros[m.id as usize].name.clone(), v, !t.is_signed()))
            })
            .collect();
        // Only the program's own macros: predefined ones (`__OPENCL_VERSION__`) differ
        // between preprocessors.
        if consts.is_empty() {
            return self.assignment(out);
        }
        let (name, v, unsigned) = self.rng.pick(&consts).clone();
        // Within what `#if` can spell: up to intmax_t's maximum for a signed macro, uintmax_t's
        // for an unsigned one, and down to -INTMAX_MAX (`-9223372036854775808` would negate
        // an unsigned literal). Beyond, clang refuses the literal.
        let hi = if unsigned {
            i128::from(u64::MAX)
        } else {
            i128::from(i64::MAX)
        };
        let c = (v + self.rng.range(-2, 2) as i128).clamp(-i128::from(i64::MAX), hi);
        // `#if` computes in intmax_t, or in uintmax_t when an operand is unsigned: then
        // `0u > -2` is false.
        let (pv, pc) = if unsigned {
            (v as u64 as i128, c as i64 as u64 as i128)
        } else {
            (v, c)
        };
        let (cond, taken) = match self.rng.below(5) {
            0 => (format!("{name} > {c}"), pv > pc),
            1 => (format!("{name} == {c}"), pv == pc),
            2 => (format!("defined({name}) && {name} < {c}"), pv < pc),
            3 => (format!("!defined({name})"), false),
            _ => ("defined(CLSMITH_NEVER_DEFINED)".to_string(), false),
        };
        let then = self.nested(|g| g.block(3));
        let els = self.nested(|g| g.block(2));
        out.push(Stmt::PpIf {
            cond,
            taken,
            then,
            els,
        });
    }

    /// `{ T x = ...; ... }` where `x` reuses the name of an outer variable, hiding it.
    fn shadow_block(&mut self, out: &mut Vec<Stmt>) {
        let saved = self.f.scope.clone();
        let mut stmts = Vec::new();
        let outer: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| {
                self.scalar(self.f.ty(v)).is_some()
                    && !self.is_pointer_base(v)
                    && self.f.gid != Some(v)
                    && self.f.lid != Some(v)
            })
            .collect();
        let v = self.scalar_decl(&mut stmts);
        let init_mentions = |o: VarId| matches!(stmts.first(), Some(Stmt::Decl(_, Some(Init::Expr(e)))) if mentions(e, o));
        if let Some(&o) = outer.get(self.rng.index(outer.len().max(1))) {
            // The new name is in scope inside its own initializer: the initializer must not
            // name the variable it hides.
            if self.rng.chance(1, 2) && !init_mentions(o) {
                let name = self.f.func.vars[o as usize].name.clone();
                self.f.scope.retain(|&x| x != o);
                self.f.func.vars[v as usize].name = name;
            }
        }
        let inner = self.nested(|g| g.block(3));
        stmts.extend(inner.stmts);
        self.f.scope = saved;
        out.push(Stmt::Block(Block { stmts }));
    }

    fn is_pointer_base(&self, v: VarId) -> bool {
        self.f.info.iter().any(|i| {
            i.ptr
                .as_ref()
                .and_then(|p| p.base.as_ref())
                .is_some_and(|b| mentions(b, v))
        })
    }

    /// The statements that fold every visible variable into the work-item's checksum and
    /// write it (and its floating values) out, with the work-item's own floating buffer
    /// slots made free of NaN bit patterns.
    pub fn checksum(&mut self) -> Vec<Stmt> {
        let mut out = Vec::new();
        let gid = self.f.gid.expect("kernel");
        let ck_name = self.fresh("ck");
        let ck = self.f.add_var(
            ck_name,
            Type::Scalar(Scalar::ULong),
            Space::Private,
            VarInfo {
                readonly: true,
                uniform: false,
                range: None,
                ptr: None,
                fold: false,
            },
        );
        let seed = self.int_const(Scalar::ULong, 0xcbf2_9ce4_8422_2325);
        out.push(Stmt::Decl(ck, Some(Init::Expr(seed.e))));
        let mix = self.p.function("ck_mix").expect("ck_mix is defined first");
        let mut fslots = (0u32, 0u32);
        let vars: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| self.f.info[v as usize].fold)
            .collect();
        for v in vars {
            let ty = self.f.ty(v).clone();
            self.fold_object(Expr::Var(v), &ty, ck, mix, &mut fslots, &mut out);
        }
        // Own floating slots of buffers: NaN bit patterns differ between machines.
        let bufs = self.bufs.clone();
        for b in &bufs {
            if b.kind == BufKind::Own && b.elem.is_float() {
                let k = self.counter_var(Scalar::UInt, 0, self.k_slots as i128 - 1, false);
                let kk = self.int_const(Scalar::UInt, self.k_slots as i128);
                let base = Expr::Binary(BinOp::Mul, Box::new(Expr::Var(gid)), Box::new(kk.e));
                let slot = Expr::Index(
                    Box::new(Expr::Var(b.var)),
                    Box::new(Expr::Binary(
                        BinOp::Add,
                        Box::new(base),
                        Box::new(Expr::Var(k)),
                    )),
                );
                let canon = self.canonical(slot.clone(), b.elem);
                let body = Block {
                    stmts: vec![Stmt::Expr(Expr::Assign(
                        None,
                        Box::new(slot),
                        Box::new(canon),
                    ))],
                };
                out.push(self.counted_for(k, 0, self.k_slots as i128, body));
            }
        }
        self.f.float_slots.0 = self.f.float_slots.0.max(fslots.0);
        self.f.float_slots.1 = self.f.float_slots.1.max(fslots.1);
        let outb = self
            .bufs
            .iter()
            .find(|b| b.kind == BufKind::Out)
            .expect("out")
            .var;
        out.push(Stmt::Expr(Expr::Assign(
            None,
            Box::new(Expr::Index(
                Box::new(Expr::Var(outb)),
                Box::new(Expr::Var(gid)),
            )),
            Box::new(Expr::Var(ck)),
        )));
        out
    }

    fn fold_object(
        &mut self,
        obj: Expr,
        ty: &Type,
        ck: VarId,
        mix: u32,
        fslots: &mut (u32, u32),
        out: &mut Vec<Stmt>,
    ) {
        match self.p.resolve(ty).clone() {
            Type::Scalar(s) if s.is_float() => {
                let (buf, slot) = if s == Scalar::Float {
                    fslots.0 += 1;
                    (self.float_buf(Scalar::Float), fslots.0 - 1)
                } else {
                    fslots.1 += 1;
                    (self.float_buf(Scalar::Double), fslots.1 - 1)
                };
                let idx = self.float_slot_index(s, slot);
                let canon = self.canonical(obj, s);
                out.push(Stmt::Expr(Expr::Assign(
                    None,
                    Box::new(Expr::Index(Box::new(Expr::Var(buf)), Box::new(idx))),
                    Box::new(canon),
                )));
            }
            Type::Scalar(_) => {
                let v = Expr::Cast(Type::Scalar(Scalar::ULong), Box::new(obj));
                out.push(Stmt::Expr(Expr::Assign(
                    None,
                    Box::new(Expr::Var(ck)),
                    Box::new(Expr::Call(mix, vec![Expr::Var(ck), v])),
                )));
            }
            Type::Ptr { .. } => {
                let Expr::Var(v) = obj else { return };
                let Some(base) = self.f.info[v as usize]
                    .ptr
                    .as_ref()
                    .and_then(|p| p.base.clone())
                else {
                    return;
                };
                let diff = Expr::Binary(BinOp::Sub, Box::new(Expr::Var(v)), Box::new(base));
                let v = Expr::Cast(Type::Scalar(Scalar::ULong), Box::new(diff));
                out.push(Stmt::Expr(Expr::Assign(
                    None,
                    Box::new(Expr::Var(ck)),
                    Box::new(Expr::Call(mix, vec![Expr::Var(ck), v])),
                )));
            }
            Type::Struct(id) => {
                let fields = self.p.structs[id as usize].fields.clone();
                for (i, f) in fields.iter().enumerate() {
                    self.fold_object(
                        Expr::Member(Box::new(obj.clone()), i as u32),
                        &f.ty,
                        ck,
                        mix,
                        fslots,
                        out,
                    );
                }
            }
            Type::Array(elem, n) => {
                // Unrolled for short arrays, a loop otherwise.
                if n <= 4 || self.scalar(&elem).is_some_and(|s| s.is_float()) {
                    for i in 0..n {
                        let idx = self.int_const(Scalar::Int, i as i128);
                        self.fold_object(
                            Expr::Index(Box::new(obj.clone()), Box::new(idx.e)),
                            &elem,
                            ck,
                            mix,
                            fslots,
                            out,
                        );
                    }
                } else {
                    let k = self.counter_var(Scalar::Int, 0, n as i128 - 1, false);
                    self.f.info[k as usize].fold = false;
                    let mut body = Vec::new();
                    self.fold_object(
                        Expr::Index(Box::new(obj), Box::new(Expr::Var(k))),
                        &elem,
                        ck,
                        mix,
                        fslots,
                        &mut body,
                    );
                    out.push(self.counted_for(k, 0, n as i128, Block { stmts: body }));
                }
            }
            _ => {}
        }
    }

    /// `(x == x) ? x : -1.5`: NaN replaced by a fixed value.
    fn canonical(&mut self, x: Expr, s: Scalar) -> Expr {
        let c = self.float_const(s, -1.5);
        Expr::Cond(
            Box::new(Expr::Binary(
                BinOp::Eq,
                Box::new(x.clone()),
                Box::new(x.clone()),
            )),
            Box::new(x),
            Box::new(c.e),
        )
    }

    fn float_slot_index(&mut self, s: Scalar, slot: u32) -> Expr {
        let gid = self.f.gid.expect("kernel");
        let m = self.float_slots_macro(s);
        let n = self.int_const(Scalar::Int, slot as i128);
        Expr::Binary(
            BinOp::Add,
            Box::new(Expr::Binary(
                BinOp::Mul,
                Box::new(Expr::Var(gid)),
                Box::new(Expr::Macro(m, vec![])),
            )),
            Box::new(n.e),
        )
    }
}

fn plain_info() -> VarInfo {
    VarInfo {
        readonly: false,
        uniform: false,
        range: None,
        ptr: None,
        fold: true,
    }
}

/// `e` mentions variable `v`.
fn mentions(e: &Expr, v: VarId) -> bool {
    match e {
        Expr::Var(x) => *x == v,
        Expr::Unary(_, a)
        | Expr::Cast(_, a)
        | Expr::Member(a, _)
        | Expr::Arrow(a, _)
        | Expr::IncDec(_, a) => mentions(a, v),
        Expr::Binary(_, a, b) | Expr::Index(a, b) | Expr::Assign(_, a, b) | Expr::Comma(a, b) => {
            mentions(a, v) || mentions(b, v)
        }
        Expr::Cond(a, b, c) => mentions(a, v) || mentions(b, v) || mentions(c, v),
        Expr::Call(_, xs) | Expr::Builtin(_, xs) | Expr::Macro(_, xs) => {
            xs.iter().any(|x| mentions(x, v))
        }
        _ => false,
    }
}
