//! Random expressions: leaves that depend on the work-item, on loaded data and on
//! computed values; every C operator; built-ins; calls; side effects where C's sequencing
//! allows them.

use crate::ast::{BinOp, Builtin, Expr, IncDec, Scalar, Space, Type, UnOp, VarId, WorkItem};
use crate::ctype::promote;
use crate::gen::range::{self, Range};
use crate::gen::state::{BufKind, Cons, Effects, GExpr, Gen, LocalMode, ParamKind, Root};

/// The kind of value wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// An integer (or `bool`).
    Int,
    /// A `float` or `double` (only when floats are enabled).
    Float,
    /// Either.
    Arith,
}

/// An assignable place and what computing its address reads.
#[derive(Clone, Debug)]
pub struct LValue {
    /// The lvalue expression.
    pub e: Expr,
    /// Its type (arithmetic, pointer or struct).
    pub ty: Type,
    /// The root it writes.
    pub root: Root,
    /// What its address computation reads.
    pub addr: Effects,
}

impl Gen<'_> {
    /// An arithmetic type for a new value of kind `want`.
    pub fn pick_scalar(&mut self, want: Want) -> Scalar {
        let float = match want {
            Want::Int => false,
            Want::Float => true,
            Want::Arith => self.cfg.floats && self.rng.chance(1, 5),
        };
        if float {
            if self.cfg.doubles && self.rng.chance(1, 3) {
                Scalar::Double
            } else {
                Scalar::Float
            }
        } else {
            let w = [1, 8, 7, 6, 5, 22, 16, 9, 8];
            let all = [
                Scalar::Bool,
                Scalar::Char,
                Scalar::UChar,
                Scalar::Short,
                Scalar::UShort,
                Scalar::Int,
                Scalar::UInt,
                Scalar::Long,
                Scalar::ULong,
            ];
            all[self.rng.weighted(&w)]
        }
    }

    /// A type name for a new variable of arithmetic type `s`: the OpenCL name, or a
    /// typedef or built-in name standing for it.
    pub fn spell(&mut self, s: Scalar) -> Type {
        let names: Vec<u32> = (0..self.p.aliases.len() as u32)
            .filter(|&a| self.p.aliases[a as usize].target == Type::Scalar(s))
            .collect();
        if !names.is_empty() && self.rng.chance(1, 3) {
            Type::Alias(*self.rng.pick(&names))
        } else {
            Type::Scalar(s)
        }
    }

    fn want_ok(&self, want: Want, s: Scalar) -> bool {
        match want {
            Want::Int => s.is_integer(),
            Want::Float => s.is_float(),
            Want::Arith => true,
        }
    }

    /// A random expression of kind `want`.
    pub fn expr(&mut self, want: Want, depth: u32, cons: &Cons) -> GExpr {
        let want = if !self.cfg.floats && want == Want::Float {
            Want::Int
        } else {
            want
        };
        if depth == 0 || self.rng.chance(1, 4) {
            return self.leaf(want, cons);
        }
        let d = depth - 1;
        for _ in 0..8 {
            let kind = self.rng.weighted(&[
                10, // binary arithmetic
                5,  // comparison
                3,  // logical
                4,  // unary
                4,  // ternary
                4,  // cast
                4,  // assignment / ++ / --
                1,  // comma
                5,  // built-in
                3,  // helper call
                2,  // macro
                2,  // own atomic with its result
            ]);
            let g = match kind {
                0 => self.arith_expr(want, d, cons),
                1 if want != Want::Float => Some(self.comparison(d, cons)),
                2 if want != Want::Float => Some(self.logical(d, cons)),
                3 => Some(self.unary_expr(want, d, cons)),
                4 => Some(self.ternary(want, d, cons)),
                5 => Some(self.cast_expr(want, d, cons)),
                6 if !cons.pure && !cons.uniform => self.side_effect_expr(want, d, cons),
                7 if !cons.uniform => Some(self.comma(want, d, cons)),
                8 => self.builtin_expr(want, d, cons),
                9 if !cons.uniform => self.call_expr(want, d, cons),
                10 => self.macro_expr(want, d, cons),
                11 if !cons.pure && !cons.uniform => self.own_atomic_expr(want, cons),
                _ => None,
            };
            if let Some(g) = g {
                if let Some(s) = self.scalar(&g.ty) {
                    if self.want_ok(want, s) {
                        return g;
                    }
                    if want == Want::Float {
                        let t = self.pick_scalar(Want::Float);
                        return self.cast(g, t);
                    }
                    if want == Want::Int && s.is_float() {
                        let t = self.pick_scalar(Want::Int);
                        return self.to_scalar(g, t);
                    }
                }
            }
        }
        self.leaf(want, cons)
    }

    /// An integer expression whose value is always in `0..len`.
    pub fn index(&mut self, len: u32, depth: u32, cons: &Cons) -> GExpr {
        debug_assert!(len.is_power_of_two());
        let max = len as i128 - 1;
        // A loop counter or other known value already in range.
        let known: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| {
                let i = &self.f.info[v as usize];
                i.range.is_some_and(|(lo, hi)| lo >= 0 && hi <= max)
                    && cons.can_read(Root::Var(v))
                    && (!cons.uniform || i.uniform)
            })
            .collect();
        if !known.is_empty() && self.rng.chance(1, 3) {
            let v = *self.rng.pick(&known);
            return self.var_read(v);
        }
        if self.rng.chance(1, 8) {
            let v = self.rng.range(0, max as i64) as i128;
            return self.int_const(Scalar::Int, v);
        }
        let e = self.expr(Want::Int, depth, cons);
        if self.rng.chance(1, 4) && len > 1 {
            // `(uint)e % len`.
            let u = *self
                .rng
                .pick(&[Scalar::UInt, Scalar::ULong, Scalar::UShort]);
            let ue = self.cast_forced(e, u);
            let n = self.int_const(Scalar::Int, len as i128);
            return self
                .try_binary(BinOp::Rem, &ue, &n)
                .expect("positive divisor");
        }
        let mask = self.int_const(Scalar::Int, max);
        let m = self.try_binary(BinOp::And, &e, &mask).expect("and");
        debug_assert!(matches!(m.range, Range::Int(lo, hi) if lo >= 0 && hi <= max));
        m
    }

    /// A variable read.
    pub fn var_read(&mut self, v: VarId) -> GExpr {
        let ty = self.f.ty(v).clone();
        let info = &self.f.info[v as usize];
        let range = match (info.range, self.scalar(&ty)) {
            (Some((lo, hi)), _) => Range::Int(lo, hi),
            (None, Some(s)) => Range::full(s),
            (None, None) => Range::Other,
        };
        let eff = if info.readonly {
            Effects::default()
        } else {
            Effects::read(Root::Var(v))
        };
        GExpr {
            e: Expr::Var(v),
            ty,
            range,
            eff,
            uniform: info.uniform,
        }
    }

    fn leaf(&mut self, want: Want, cons: &Cons) -> GExpr {
        for _ in 0..6 {
            let kind = self.rng.weighted(&[3, 10, 4, 3, 3, 2, 1]);
            let g = match kind {
                0 => None,
                1 => self.scalar_var(want, cons),
                2 if want != Want::Float => Some(self.work_item_expr(cons)),
                3 => self.memory_read(want, cons),
                4 => self.aggregate_read(want, cons),
                5 => self.pointer_read(want, cons),
                6 if self.rng.chance(1, 3) => self.size_of(want),
                6 => self.macro_const(want),
                _ => None,
            };
            if let Some(g) = g {
                return g;
            }
        }
        let t = self.pick_scalar(want);
        self.random_const(t)
    }

    fn scalar_var(&mut self, want: Want, cons: &Cons) -> Option<GExpr> {
        let cands: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| {
                let info = &self.f.info[v as usize];
                self.scalar(self.f.ty(v))
                    .is_some_and(|s| self.want_ok(want, s))
                    && (info.readonly || cons.can_read(Root::Var(v)))
                    && (!cons.uniform || info.uniform)
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let v = *self.rng.pick(&cands);
        Some(self.var_read(v))
    }

    /// `get_global_id(0)` and friends, and the kernel's linear ids.
    fn work_item_expr(&mut self, cons: &Cons) -> GExpr {
        let shape = self.shape;
        let mut kinds: Vec<WorkItem> = vec![
            WorkItem::GroupId,
            WorkItem::LocalSize,
            WorkItem::NumGroups,
            WorkItem::GlobalSize,
        ];
        if !cons.uniform {
            kinds.extend([
                WorkItem::GlobalId,
                WorkItem::GlobalId,
                WorkItem::LocalId,
                WorkItem::LocalId,
            ]);
            if let Some(v) = self.f.gid.filter(|_| self.rng.chance(1, 3)) {
                return self.var_read(v);
            }
            if let Some(v) = self.f.lid.filter(|_| self.rng.chance(1, 3)) {
                return self.var_read(v);
            }
        }
        if self.rng.chance(1, 12) {
            let wd = crate::interp::work_dim(shape.grid, shape.block) as i128;
            return GExpr {
                e: Expr::Builtin(Builtin::WorkItem(WorkItem::WorkDim), vec![]),
                ty: Type::Scalar(Scalar::UInt),
                range: Range::Int(wd, wd),
                eff: Effects::default(),
                uniform: true,
            };
        }
        let w = *self.rng.pick(&kinds);
        let d = self.rng.weighted(&[6, 2, 1]);
        let (g, b) = (shape.grid[d] as i128, shape.block[d] as i128);
        let range = match w {
            WorkItem::GlobalId => Range::Int(0, g * b - 1),
            WorkItem::LocalId => Range::Int(0, b - 1),
            WorkItem::GroupId => Range::Int(0, g - 1),
            WorkItem::LocalSize => Range::Int(b, b),
            WorkItem::NumGroups => Range::Int(g, g),
            _ => Range::Int(g * b, g * b),
        };
        let dim_type = if self.rng.chance(1, 2) {
            Scalar::Int
        } else {
            Scalar::UInt
        };
        let dim = self.int_const(dim_type, d as i128);
        GExpr {
            e: Expr::Builtin(Builtin::WorkItem(w), vec![dim.e]),
            ty: Type::Scalar(crate::ctype_of::SIZE_T),
            range,
            eff: Effects::default(),
            uniform: !matches!(w, WorkItem::GlobalId | WorkItem::LocalId),
        }
    }

    /// A read of a buffer, a `__local` array or a `__constant` table.
    fn memory_read(&mut self, want: Want, cons: &Cons) -> Option<GExpr> {
        let mut opts: Vec<(u8, u32)> = Vec::new();
        for (i, c) in self.p.constants.iter().enumerate() {
            if self.want_ok(want, c.elem) {
                opts.push((0, i as u32));
            }
        }
        if self.f.kernel && !cons.uniform {
            for (i, b) in self.bufs.iter().enumerate() {
                let readable = match b.kind {
                    BufKind::In => true,
                    BufKind::Own => cons.can_read(Root::Buf(i as u32)),
                    _ => false,
                };
                if readable && self.want_ok(want, b.elem) {
                    opts.push((1, i as u32));
                }
            }
            if self.f.local_mode != LocalMode::None {
                for (i, l) in self.locals.iter().enumerate() {
                    let readable = match self.f.local_mode {
                        LocalMode::Shared => true,
                        _ => l.atomic.is_none(),
                    };
                    if readable
                        && cons.can_read(Root::Local(i as u32))
                        && self.want_ok(want, l.elem)
                    {
                        opts.push((2, i as u32));
                    }
                }
            }
        }
        if opts.is_empty() {
            return None;
        }
        let (kind, i) = *self.rng.pick(&opts);
        let icons = Cons {
            pure: true,
            ..cons.clone()
        };
        Some(match kind {
            0 => {
                let t = &self.p.constants[i as usize];
                let (elem, len) = (t.elem, t.values.len() as u32);
                let idx = self.index(len, 1, &icons);
                GExpr {
                    e: Expr::Index(Box::new(Expr::Const(i)), Box::new(idx.e)),
                    ty: Type::Scalar(elem),
                    range: Range::full(elem),
                    eff: idx.eff,
                    uniform: idx.uniform,
                }
            }
            1 => {
                let b = self.bufs[i as usize].clone();
                let (idx, root) = if b.kind == BufKind::In {
                    (self.index(b.len, 1, &icons), None)
                } else {
                    (self.own_index(&icons), Some(Root::Buf(i)))
                };
                let mut eff = idx.eff;
                if let Some(r) = root {
                    eff.join(&Effects::read(r));
                }
                GExpr {
                    e: Expr::Index(Box::new(Expr::Var(b.var)), Box::new(idx.e)),
                    ty: Type::Scalar(b.elem),
                    range: Range::full(b.elem),
                    eff,
                    uniform: false,
                }
            }
            _ => {
                let l = self.locals[i as usize].clone();
                let idx = if self.f.local_mode == LocalMode::Shared {
                    self.index(l.len, 1, &icons)
                } else {
                    self.own_local_index(&icons)
                };
                let mut eff = idx.eff;
                eff.join(&Effects::read(Root::Local(i)));
                GExpr {
                    e: Expr::Index(Box::new(Expr::Var(l.var)), Box::new(idx.e)),
                    ty: Type::Scalar(l.elem),
                    range: Range::full(l.elem),
                    eff,
                    uniform: false,
                }
            }
        })
    }

    /// `gid * K + (e & (K - 1))`: one of the work-item's own slots of an `Own` buffer.
    pub fn own_index(&mut self, cons: &Cons) -> GExpr {
        let gid = self.f.gid.expect("kernel");
        self.slot_index(gid, cons)
    }

    /// `lid * K + (e & (K - 1))`: one of the work-item's own slots of a `__local` array.
    pub fn own_local_index(&mut self, cons: &Cons) -> GExpr {
        let lid = self.f.lid.expect("kernel");
        self.slot_index(lid, cons)
    }

    fn slot_index(&mut self, id: VarId, cons: &Cons) -> GExpr {
        let k = self.k_slots;
        let base = self.var_read(id);
        let kk = match self.k_macro.filter(|_| self.rng.chance(1, 2)) {
            Some(m) => GExpr {
                e: Expr::Macro(m, vec![]),
                ty: Type::Scalar(Scalar::Int),
                range: Range::Int(k as i128, k as i128),
                eff: Effects::default(),
                uniform: true,
            },
            None => self.int_const(Scalar::Int, k as i128),
        };
        let scaled = if self.rng.chance(1, 2) {
            self.binary(BinOp::Mul, base, kk)
        } else {
            self.binary(BinOp::Mul, kk, base)
        };
        let off = self.index(k, 1, cons);
        self.binary(BinOp::Add, scaled, off)
    }

    /// A struct member, a private array element, or an element of an array member.
    fn aggregate_read(&mut self, want: Want, cons: &Cons) -> Option<GExpr> {
        let mut opts = Vec::new();
        for &v in &self.f.scope {
            if !cons.can_read(Root::Var(v)) || cons.uniform {
                continue;
            }
            match self.p.resolve(self.f.ty(v)) {
                Type::Array(elem, _)
                    if self.scalar(elem).is_some_and(|s| self.want_ok(want, s)) =>
                {
                    opts.push(v)
                }
                Type::Struct(id) => {
                    let id = *id as usize;
                    if self.p.structs[id].fields.iter().any(|f| {
                        self.field_scalar(&f.ty)
                            .is_some_and(|s| self.want_ok(want, s))
                    }) {
                        opts.push(v);
                    }
                }
                _ => {}
            }
        }
        if opts.is_empty() {
            return None;
        }
        let v = *self.rng.pick(&opts);
        let icons = Cons {
            pure: true,
            ..cons.clone()
        };
        let ty = self.f.ty(v).clone();
        let (e, s, mut eff) = self.element_of(Expr::Var(v), &ty, want, &icons)?;
        eff.join(&Effects::read(Root::Var(v)));
        Some(GExpr {
            e,
            ty: Type::Scalar(s),
            range: Range::full(s),
            eff,
            uniform: false,
        })
    }

    /// The arithmetic element type of a struct field (itself or its array's).
    pub fn field_scalar(&self, ty: &Type) -> Option<Scalar> {
        match self.p.resolve(ty) {
            Type::Array(elem, _) => self.scalar(elem),
            t => self.scalar(t),
        }
    }

    /// An arithmetic element inside an object of type `ty` designated by `base`.
    pub fn element_of(
        &mut self,
        base: Expr,
        ty: &Type,
        want: Want,
        cons: &Cons,
    ) -> Option<(Expr, Scalar, Effects)> {
        match self.p.resolve(ty).clone() {
            Type::Array(elem, n) => {
                let s = self.scalar(&elem)?;
                if !self.want_ok(want, s) {
                    return None;
                }
                let idx = self.index(n, 1, cons);
                Some((Expr::Index(Box::new(base), Box::new(idx.e)), s, idx.eff))
            }
            Type::Struct(id) => {
                let fields: Vec<(u32, Type)> = self.p.structs[id as usize]
                    .fields
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| {
                        self.field_scalar(&f.ty)
                            .is_some_and(|s| self.want_ok(want, s))
                    })
                    .map(|(i, f)| (i as u32, f.ty.clone()))
                    .collect();
                if fields.is_empty() {
                    return None;
                }
                let (i, fty) = self.rng.pick(&fields).clone();
                let member = match base {
                    Expr::Unary(UnOp::Deref, p) => Expr::Arrow(p, i),
                    b => Expr::Member(Box::new(b), i),
                };
                match self.p.resolve(&fty).clone() {
                    Type::Array(..) => self.element_of(member, &fty, want, cons),
                    t => Some((member, self.scalar(&t)?, Effects::default())),
                }
            }
            t => {
                let s = self.scalar(&t)?;
                self.want_ok(want, s)
                    .then_some((base, s, Effects::default()))
            }
        }
    }

    /// `*p`, `p[i]` or `*(p + i)` through a pointer variable.
    fn pointer_read(&mut self, want: Want, cons: &Cons) -> Option<GExpr> {
        if cons.uniform {
            return None;
        }
        let mode = self.f.local_mode;
        let cands: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| {
                let Some(p) = &self.f.info[v as usize].ptr else {
                    return false;
                };
                let elem_ok = match self.p.resolve(&p.elem) {
                    Type::Struct(_) => true,
                    t => self.scalar(t).is_some_and(|s| self.want_ok(want, s)),
                };
                let local_ok = match p.root {
                    Some(Root::Local(_)) => {
                        mode == LocalMode::Shared || (mode == LocalMode::Owned && p.writable)
                    }
                    _ => true,
                };
                elem_ok
                    && local_ok
                    && p.root.is_none_or(|r| cons.can_read(r))
                    && cons.can_read(Root::Var(v))
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let v = *self.rng.pick(&cands);
        let p = self.f.info[v as usize].ptr.clone().expect("pointer");
        let icons = Cons {
            pure: true,
            ..cons.clone()
        };
        let (place, mut eff) = self.deref(v, &p, &icons);
        let (e, s, e2) = self.element_of(place, &p.elem, want, &icons)?;
        eff.join(&e2);
        eff.join(&Effects::read(Root::Var(v)));
        if let Some(r) = p.root {
            eff.join(&Effects::read(r));
        }
        self.note_param_use(v, true, false);
        Some(GExpr {
            e,
            ty: Type::Scalar(s),
            range: Range::full(s),
            eff,
            uniform: false,
        })
    }

    /// An lvalue designating one element through pointer variable `v`.
    pub fn deref(
        &mut self,
        v: VarId,
        p: &crate::gen::state::PtrInfo,
        cons: &Cons,
    ) -> (Expr, Effects) {
        let pv = Expr::Var(v);
        if p.extent == 1 || self.rng.chance(1, 5) {
            return (Expr::Unary(UnOp::Deref, Box::new(pv)), Effects::default());
        }
        let idx = self.index(p.extent, 1, cons);
        if self.rng.chance(1, 3) {
            let sum = Expr::Binary(BinOp::Add, Box::new(pv), Box::new(idx.e));
            (Expr::Unary(UnOp::Deref, Box::new(sum)), idx.eff)
        } else {
            (Expr::Index(Box::new(pv), Box::new(idx.e)), idx.eff)
        }
    }

    /// Records, in a helper, that a pointer parameter was read or written through.
    pub fn note_param_use(&mut self, v: VarId, read: bool, write: bool) {
        if let Some(i) = self.f.func.params.iter().position(|&p| p == v) {
            if let Some(u) = self.f.param_use.get_mut(i) {
                u.0 |= read;
                u.1 |= write;
            }
        }
    }

    /// `sizeof(T)` for a type of fixed size: an arithmetic type other than `bool` (by
    /// any name but `size_t`, whose width is the implementation's), an array of one, or a
    /// struct of such members (laid out with natural alignment).
    fn size_of(&mut self, want: Want) -> Option<GExpr> {
        if want == Want::Float {
            return None;
        }
        let mut opts: Vec<Type> = Scalar::ALL
            .iter()
            .filter(|s| {
                **s != Scalar::Bool
                    && (self.cfg.floats || !s.is_float())
                    && (self.cfg.doubles || **s != Scalar::Double)
            })
            .map(|s| Type::Scalar(*s))
            .collect();
        for (i, a) in self.p.aliases.iter().enumerate() {
            if a.name != "size_t" && a.target != Type::Scalar(Scalar::Bool) {
                opts.push(Type::Alias(i as u32));
            }
        }
        for (i, st) in self.p.structs.iter().enumerate() {
            if st
                .fields
                .iter()
                .all(|f| self.field_scalar(&f.ty).is_some_and(|s| s != Scalar::Bool))
            {
                opts.push(Type::Struct(i as u32));
            }
        }
        let mut t = self.rng.pick(&opts).clone();
        if self.rng.chance(1, 4) {
            t = Type::Array(Box::new(t), *self.rng.pick(&[2u32, 3, 4]));
        }
        let n = crate::ctype::layout(&self.p, &t).0 as i128;
        Some(GExpr {
            e: Expr::SizeOf(t),
            ty: Type::Scalar(crate::ctype_of::SIZE_T),
            range: Range::Int(n, n),
            eff: Effects::default(),
            uniform: true,
        })
    }

    fn macro_const(&mut self, want: Want) -> Option<GExpr> {
        let cands: Vec<(u32, i128, Scalar)> = self
            .macros
            .iter()
            .filter_map(|m| m.value.map(|(v, s)| (m.id, v, s)))
            .filter(|&(_, _, s)| self.want_ok(want, s))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let (id, v, s) = *self.rng.pick(&cands);
        Some(GExpr {
            e: Expr::Macro(id, vec![]),
            ty: Type::Scalar(s),
            range: Range::Int(v, v),
            eff: Effects::default(),
            uniform: true,
        })
    }

    fn arith_expr(&mut self, want: Want, d: u32, cons: &Cons) -> Option<GExpr> {
        let float = match want {
            Want::Float => true,
            Want::Int => false,
            Want::Arith => self.cfg.floats && self.rng.chance(1, 4),
        };
        let ops: &[BinOp] = if float {
            &[BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]
        } else {
            &[
                BinOp::Add,
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::Div,
                BinOp::Rem,
                BinOp::Shl,
                BinOp::Shr,
                BinOp::And,
                BinOp::Or,
                BinOp::Xor,
                BinOp::Xor,
            ]
        };
        let op = *self.rng.pick(ops);
        let (wa, wb) = if float {
            match self.rng.below(3) {
                0 => (Want::Float, Want::Int),
                1 => (Want::Int, Want::Float),
                _ => (Want::Float, Want::Float),
            }
        } else {
            (Want::Int, Want::Int)
        };
        let a = self.expr(wa, d, cons);
        let b = if matches!(op, BinOp::Shl | BinOp::Shr) && self.rng.chance(1, 2) {
            // Counts around the width, negative ones and large ones.
            let t = promote(self.scalar(&a.ty).unwrap_or(Scalar::Int));
            let n = t.bits() as i128;
            let c = *self.rng.pick(&[0, 1, n - 1, n, n + 1, 2 * n - 1, -1, 3, 5]);
            let ct = *self
                .rng
                .pick(&[Scalar::Int, Scalar::UInt, Scalar::Long, Scalar::UChar]);
            let c = if ct.is_signed() || c >= 0 { c } else { 1 };
            self.int_const(ct, c)
        } else {
            self.expr(wb, d, &cons.beside(&a.eff))
        };
        Some(self.binary(op, a, b))
    }

    fn comparison(&mut self, d: u32, cons: &Cons) -> GExpr {
        let op = *self.rng.pick(&[
            BinOp::Lt,
            BinOp::Gt,
            BinOp::Le,
            BinOp::Ge,
            BinOp::Eq,
            BinOp::Ne,
        ]);
        if self.rng.chance(1, 8) {
            if let Some(g) = self.pointer_compare(op, cons) {
                return g;
            }
        }
        let a = self.expr(Want::Arith, d, cons);
        let b = if self.rng.chance(1, 3) {
            let t = self.pick_scalar(Want::Arith);
            self.random_const(t)
        } else {
            self.expr(Want::Arith, d, &cons.beside(&a.eff))
        };
        self.try_binary(op, &a, &b)
            .expect("comparisons are defined")
    }

    /// `p + i < p + j`, `p + i != p` and `(p + i) - p` kinds on one pointer variable.
    fn pointer_compare(&mut self, op: BinOp, cons: &Cons) -> Option<GExpr> {
        let cands: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| {
                self.f.info[v as usize]
                    .ptr
                    .as_ref()
                    .is_some_and(|p| p.extent > 1)
                    && cons.can_read(Root::Var(v))
            })
            .collect();
        if cands.is_empty() || cons.uniform {
            return None;
        }
        let v = *self.rng.pick(&cands);
        let ext = self.f.info[v as usize]
            .ptr
            .as_ref()
            .expect("pointer")
            .extent;
        let icons = Cons {
            pure: true,
            ..cons.clone()
        };
        let i = self.index(ext, 1, &icons);
        let j = self.index(ext, 1, &icons);
        let pi = Expr::Binary(BinOp::Add, Box::new(Expr::Var(v)), Box::new(i.e));
        let pj = if self.rng.chance(1, 3) {
            Expr::Var(v)
        } else {
            Expr::Binary(BinOp::Add, Box::new(Expr::Var(v)), Box::new(j.e))
        };
        let mut eff = i.eff;
        eff.join(&j.eff);
        eff.join(&Effects::read(Root::Var(v)));
        if self.rng.chance(1, 3) {
            let e = Expr::Binary(BinOp::Sub, Box::new(pi), Box::new(pj));
            let n = ext as i128;
            return Some(GExpr {
                e,
                ty: Type::Scalar(crate::ctype_of::PTRDIFF_T),
                range: Range::Int(-n, n),
                eff,
                uniform: false,
            });
        }
        Some(GExpr {
            e: Expr::Binary(op, Box::new(pi), Box::new(pj)),
            ty: Type::Scalar(Scalar::Int),
            range: Range::Int(0, 1),
            eff,
            uniform: false,
        })
    }

    fn logical(&mut self, d: u32, cons: &Cons) -> GExpr {
        let op = *self.rng.pick(&[BinOp::LogAnd, BinOp::LogOr]);
        let a = self.expr(Want::Arith, d, cons);
        // The right operand runs after the left one (a sequence point): it may have side
        // effects on what the left one touched, and often does, so that skipping them
        // matters.
        let b = self.maybe_side_effect(Want::Arith, d, cons);
        self.try_binary(op, &a, &b)
            .expect("logical operators are defined")
    }

    /// An operand evaluated only sometimes (of `&&`, `||`, `?:`): a third of the time an
    /// assignment, `++`/`--` or a call of a helper, when the constraints allow.
    fn maybe_side_effect(&mut self, want: Want, d: u32, cons: &Cons) -> GExpr {
        if !cons.pure && !cons.uniform && self.rng.chance(1, 3) {
            let g = if self.rng.chance(1, 3) {
                self.call_expr(want, d, cons)
            } else {
                self.side_effect_expr(want, d, cons)
            };
            if let Some(g) = g.filter(|g| self.scalar(&g.ty).is_some_and(|s| self.want_ok(want, s)))
            {
                return g;
            }
        }
        self.expr(want, d, cons)
    }

    fn unary_expr(&mut self, want: Want, d: u32, cons: &Cons) -> GExpr {
        let x = self.expr(want, d, cons);
        let is_float = self.scalar(&x.ty).is_some_and(|s| s.is_float());
        let op = if is_float {
            *self.rng.pick(&[UnOp::Neg, UnOp::Neg, UnOp::Plus])
        } else {
            *self
                .rng
                .pick(&[UnOp::Neg, UnOp::BitNot, UnOp::BitNot, UnOp::Not, UnOp::Plus])
        };
        self.unary(op, x)
    }

    fn ternary(&mut self, want: Want, d: u32, cons: &Cons) -> GExpr {
        let c = self.expr(Want::Arith, d, cons);
        let a = self.maybe_side_effect(want, d, cons);
        let b = self.maybe_side_effect(want, d, cons);
        let (sa, sb) = (
            self.scalar(&a.ty).expect("arith"),
            self.scalar(&b.ty).expect("arith"),
        );
        let t = crate::ctype::usual(sa, sb);
        let ra = range::convert(a.range, sa, t).expect("usual conversion");
        let rb = range::convert(b.range, sb, t).expect("usual conversion");
        let range = match (ra, rb) {
            (Range::Int(l1, h1), Range::Int(l2, h2)) => Range::Int(l1.min(l2), h1.max(h2)),
            (Range::Float(Some((l1, h1))), Range::Float(Some((l2, h2)))) => {
                Range::Float(Some((l1.min(l2), h1.max(h2))))
            }
            _ => Range::full(t),
        };
        let mut eff = c.eff.clone();
        eff.join(&a.eff);
        eff.join(&b.eff);
        GExpr {
            e: Expr::Cond(Box::new(c.e), Box::new(a.e), Box::new(b.e)),
            ty: Type::Scalar(t),
            range,
            eff,
            uniform: c.uniform && a.uniform && b.uniform,
        }
    }

    fn cast_expr(&mut self, want: Want, d: u32, cons: &Cons) -> GExpr {
        let x = self.expr(Want::Arith, d, cons);
        let t = self.pick_scalar(want);
        let g = self.to_scalar(x, t);
        if matches!(g.e, Expr::Cast(..)) {
            g
        } else {
            self.cast_forced(g, t)
        }
    }

    fn comma(&mut self, want: Want, d: u32, cons: &Cons) -> GExpr {
        let a = if cons.pure {
            self.expr(Want::Arith, d, cons)
        } else {
            self.side_effect_expr(Want::Arith, d, cons)
                .unwrap_or_else(|| self.expr(Want::Arith, d, cons))
        };
        let b = self.expr(want, d, cons);
        let mut eff = a.eff.clone();
        eff.join(&b.eff);
        GExpr {
            e: Expr::Comma(Box::new(a.e), Box::new(b.e)),
            eff,
            uniform: a.uniform && b.uniform,
            ..b
        }
    }

    /// `lv = e`, `lv op= e`, `lv++`, `--lv` as an expression.
    pub fn side_effect_expr(&mut self, want: Want, d: u32, cons: &Cons) -> Option<GExpr> {
        let lv = self.lvalue(want, cons)?;
        let s = self.scalar(&lv.ty)?;
        let mut eff = lv.addr.clone();
        eff.join(&Effects {
            reads: vec![lv.root],
            writes: vec![lv.root],
        });
        if self.rng.chance(1, 4) && inc_dec_ok(s) {
            let op = *self.rng.pick(&[
                IncDec::PreInc,
                IncDec::PreDec,
                IncDec::PostInc,
                IncDec::PostDec,
            ]);
            return Some(GExpr {
                e: Expr::IncDec(op, Box::new(lv.e)),
                ty: lv.ty,
                range: Range::full(s),
                eff,
                uniform: false,
            });
        }
        let (op, rhs) = self.assign_rhs(&lv, s, d, cons);
        eff.join(&rhs.eff);
        Some(GExpr {
            e: Expr::Assign(op, Box::new(lv.e), Box::new(rhs.e)),
            ty: lv.ty,
            range: Range::full(s),
            eff,
            uniform: false,
        })
    }

    /// The operator and right operand of an assignment to `lv` (arithmetic type `s`),
    /// defined for any value `lv` may hold.
    pub fn assign_rhs(
        &mut self,
        lv: &LValue,
        s: Scalar,
        d: u32,
        cons: &Cons,
    ) -> (Option<BinOp>, GExpr) {
        let mut rcons = cons.clone();
        for r in std::iter::once(&lv.root).chain(&lv.addr.reads) {
            if !rcons.no_write.contains(r) {
                rcons.no_write.push(*r);
            }
        }
        let want = if s.is_float() || self.rng.chance(1, 6) {
            Want::Arith
        } else {
            Want::Int
        };
        let rhs = self.expr(want, d, &rcons);
        if self.rng.chance(1, 2) || s == Scalar::Bool {
            let rhs = if s.is_integer() && self.scalar(&rhs.ty).is_some_and(|r| r.is_float()) {
                self.to_scalar(rhs, s)
            } else {
                rhs
            };
            return (None, rhs);
        }
        let ops: &[BinOp] = if s.is_float() {
            &[BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]
        } else {
            &[
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::Div,
                BinOp::Rem,
                BinOp::Shl,
                BinOp::Shr,
                BinOp::And,
                BinOp::Or,
                BinOp::Xor,
            ]
        };
        let op = *self.rng.pick(ops);
        let rs = self.scalar(&rhs.ty).expect("arith");
        let rhs = if s.is_integer() && rs.is_float() {
            self.to_scalar(rhs, Scalar::Int)
        } else {
            rhs
        };
        let cur = GExpr {
            e: lv.e.clone(),
            ty: Type::Scalar(s),
            range: Range::full(s),
            eff: Effects::default(),
            uniform: false,
        };
        if let Some(r) = self.compound_ok(op, &cur, rhs.clone()) {
            return (Some(op), r);
        }
        // Make the right operand defined for every current value: unsigned arithmetic of
        // the target's width, a non-zero divisor, a masked count.
        let fixed = match op {
            BinOp::Div | BinOp::Rem => {
                let mask = self.int_const(Scalar::Int, 7);
                let m = self.try_binary(BinOp::And, &rhs, &mask).expect("mask");
                let one = self.int_const(Scalar::Int, 2);
                self.try_binary(BinOp::Add, &m, &one).expect("small")
            }
            BinOp::Shl | BinOp::Shr => {
                let mask = self.int_const(Scalar::Int, promote(s).bits() as i128 - 1);
                self.try_binary(BinOp::And, &rhs, &mask).expect("mask")
            }
            _ if promote(s) == s => {
                let rs = self.scalar(&rhs.ty).expect("arith");
                let u = crate::ctype::usual(s, rs).to_unsigned();
                self.cast_forced(rhs, u)
            }
            _ => {
                let mask = self.int_const(Scalar::Int, 0xffff);
                self.try_binary(BinOp::And, &rhs, &mask).expect("mask")
            }
        };
        match self.compound_ok(op, &cur, fixed.clone()) {
            Some(r) => (Some(op), r),
            None => (None, fixed),
        }
    }

    fn compound_ok(&self, op: BinOp, cur: &GExpr, rhs: GExpr) -> Option<GExpr> {
        let r = self.try_binary(op, cur, &rhs)?;
        // The result converts back to the target's type: defined unless it is floating
        // and the target an integer (never the case: the operand was made integer).
        let s = self.scalar(&cur.ty)?;
        range::convert(r.range, self.scalar(&r.ty)?, s)?;
        Some(rhs)
    }

    /// An assignable place of kind `want` the constraints allow writing.
    pub fn lvalue(&mut self, want: Want, cons: &Cons) -> Option<LValue> {
        if cons.pure {
            return None;
        }
        let icons = Cons {
            pure: true,
            ..cons.clone()
        };
        for _ in 0..4 {
            let kind = self.rng.weighted(&[10, 4, 3, 3, 2]);
            match kind {
                0 => {
                    let cands: Vec<VarId> = self
                        .f
                        .scope
                        .iter()
                        .copied()
                        .filter(|&v| {
                            !self.f.info[v as usize].readonly
                                && self
                                    .scalar(self.f.ty(v))
                                    .is_some_and(|s| self.want_ok(want, s))
                                && cons.can_write(Root::Var(v))
                        })
                        .collect();
                    if cands.is_empty() {
                        continue;
                    }
                    let v = *self.rng.pick(&cands);
                    let ty = self.f.ty(v).clone();
                    return Some(LValue {
                        e: Expr::Var(v),
                        ty,
                        root: Root::Var(v),
                        addr: Effects::default(),
                    });
                }
                1 => {
                    let cands: Vec<VarId> = self
                        .f
                        .scope
                        .iter()
                        .copied()
                        .filter(|&v| {
                            !self.f.info[v as usize].readonly
                                && matches!(
                                    self.p.resolve(self.f.ty(v)),
                                    Type::Array(..) | Type::Struct(_)
                                )
                                && cons.can_write(Root::Var(v))
                        })
                        .collect();
                    if cands.is_empty() {
                        continue;
                    }
                    let v = *self.rng.pick(&cands);
                    let ty = self.f.ty(v).clone();
                    let mut icons2 = icons.clone();
                    icons2.no_read.push(Root::Var(v));
                    if let Some((e, s, addr)) = self.element_of(Expr::Var(v), &ty, want, &icons2) {
                        return Some(LValue {
                            e,
                            ty: Type::Scalar(s),
                            root: Root::Var(v),
                            addr,
                        });
                    }
                }
                2 => {
                    let cands: Vec<VarId> = self
                        .f
                        .scope
                        .iter()
                        .copied()
                        .filter(|&v| {
                            let Some(p) = &self.f.info[v as usize].ptr else {
                                return false;
                            };
                            p.writable
                                && p.root.is_some_and(|r| cons.can_write(r))
                                && cons.can_read(Root::Var(v))
                                && match p.root {
                                    Some(Root::Local(_)) => self.f.local_mode == LocalMode::Owned,
                                    _ => true,
                                }
                        })
                        .collect();
                    if cands.is_empty() {
                        continue;
                    }
                    let v = *self.rng.pick(&cands);
                    let p = self.f.info[v as usize].ptr.clone().expect("pointer");
                    let mut icons2 = icons.clone();
                    icons2.no_read.push(p.root.expect("root"));
                    let (place, mut addr) = self.deref(v, &p, &icons2);
                    if let Some((e, s, a2)) = self.element_of(place, &p.elem, want, &icons2) {
                        addr.join(&a2);
                        addr.join(&Effects::read(Root::Var(v)));
                        self.note_param_use(v, false, true);
                        return Some(LValue {
                            e,
                            ty: Type::Scalar(s),
                            root: p.root.expect("root"),
                            addr,
                        });
                    }
                }
                3 if self.f.kernel => {
                    let cands: Vec<u32> = (0..self.bufs.len() as u32)
                        .filter(|&i| {
                            let b = &self.bufs[i as usize];
                            b.kind == BufKind::Own
                                && self.want_ok(want, b.elem)
                                && cons.can_write(Root::Buf(i))
                        })
                        .collect();
                    if cands.is_empty() {
                        continue;
                    }
                    let i = *self.rng.pick(&cands);
                    let b = self.bufs[i as usize].clone();
                    let idx = self.own_index(&icons);
                    return Some(LValue {
                        e: Expr::Index(Box::new(Expr::Var(b.var)), Box::new(idx.e)),
                        ty: Type::Scalar(b.elem),
                        root: Root::Buf(i),
                        addr: idx.eff,
                    });
                }
                4 if self.f.kernel && self.f.local_mode == LocalMode::Owned => {
                    let cands: Vec<u32> = (0..self.locals.len() as u32)
                        .filter(|&i| {
                            let l = &self.locals[i as usize];
                            l.atomic.is_none()
                                && self.want_ok(want, l.elem)
                                && cons.can_write(Root::Local(i))
                        })
                        .collect();
                    if cands.is_empty() {
                        continue;
                    }
                    let i = *self.rng.pick(&cands);
                    let l = self.locals[i as usize].clone();
                    let idx = self.own_local_index(&icons);
                    return Some(LValue {
                        e: Expr::Index(Box::new(Expr::Var(l.var)), Box::new(idx.e)),
                        ty: Type::Scalar(l.elem),
                        root: Root::Local(i),
                        addr: idx.eff,
                    });
                }
                _ => {}
            }
        }
        None
    }

    /// A call of an integer or floating built-in, arguments cast to the overload's type.
    fn builtin_expr(&mut self, want: Want, d: u32, cons: &Cons) -> Option<GExpr> {
        let float = match want {
            Want::Float => true,
            Want::Int => false,
            Want::Arith => self.cfg.floats && self.rng.chance(1, 3),
        };
        if float {
            return Some(self.float_builtin(d, cons));
        }
        let b = *self.rng.pick(&[
            Builtin::Min,
            Builtin::Max,
            Builtin::Clamp,
            Builtin::Abs,
            Builtin::Mad24,
            Builtin::Mul24,
            Builtin::MulHi,
            Builtin::Rotate,
            Builtin::Popcount,
            Builtin::Clz,
        ]);
        let t = match b {
            Builtin::Mad24 | Builtin::Mul24 => *self.rng.pick(&[Scalar::Int, Scalar::UInt]),
            _ => {
                let s = self.pick_scalar(Want::Int);
                if s == Scalar::Bool {
                    Scalar::Int
                } else {
                    s
                }
            }
        };
        let arity = match b {
            Builtin::Abs | Builtin::Popcount | Builtin::Clz => 1,
            Builtin::Clamp | Builtin::Mad24 => 3,
            _ => 2,
        };
        let mut args: Vec<GExpr> = Vec::new();
        let mut eff = Effects::default();
        for i in 0..arity {
            let c = cons.beside(&eff);
            let g = match (b, i) {
                (Builtin::Clamp, 1) => {
                    let (lo, hi) = t.range();
                    let v = self.rng.range(lo.max(-100) as i64, hi.min(100) as i64) as i128;
                    self.int_const(t, v)
                }
                (Builtin::Clamp, 2) => {
                    let lo = args[1].range.int(t).1;
                    let v = (lo + self.rng.range(0, 50) as i128).min(t.range().1);
                    self.int_const(t, v)
                }
                _ => {
                    let x = self.expr(Want::Int, d, &c);
                    match (b, t) {
                        // Operands of mul24/mad24 within 16 bits keep the 24-bit products
                        // (and mad24's sum) inside the result type.
                        (Builtin::Mul24 | Builtin::Mad24, Scalar::Int) => {
                            let n = self.cast_forced(x, Scalar::Short);
                            self.cast_forced(n, Scalar::Int)
                        }
                        (Builtin::Mul24 | Builtin::Mad24, _) => {
                            let n = self.cast_forced(x, Scalar::UShort);
                            self.cast_forced(n, Scalar::UInt)
                        }
                        _ => {
                            if self.scalar(&x.ty) == Some(t) && matches!(x.ty, Type::Scalar(_)) {
                                x
                            } else {
                                self.cast_forced(x, t)
                            }
                        }
                    }
                }
            };
            eff.join(&g.eff);
            args.push(g);
        }
        let uniform = args.iter().all(|a| a.uniform);
        let ranges: Vec<(i128, i128)> = args.iter().map(|a| a.range.int(t)).collect();
        let (ty, range) = match b {
            Builtin::Min => (
                t,
                Range::Int(ranges[0].0.min(ranges[1].0), ranges[0].1.min(ranges[1].1)),
            ),
            Builtin::Max => (
                t,
                Range::Int(ranges[0].0.max(ranges[1].0), ranges[0].1.max(ranges[1].1)),
            ),
            Builtin::Clamp => (t, Range::Int(ranges[1].0, ranges[2].1)),
            Builtin::Abs => {
                let m = ranges[0].0.abs().max(ranges[0].1.abs());
                (t.to_unsigned(), Range::Int(0, m))
            }
            Builtin::Popcount | Builtin::Clz => (t, Range::Int(0, t.bits() as i128)),
            Builtin::Mul24 => {
                let (lo, hi) = corners(ranges[0], ranges[1]);
                (t, Range::Int(lo, hi))
            }
            Builtin::Mad24 if t == Scalar::Int => {
                let (lo, hi) = corners(ranges[0], ranges[1]);
                (t, Range::Int(lo + ranges[2].0, hi + ranges[2].1))
            }
            _ => (t, Range::full(t)),
        };
        Some(GExpr {
            e: Expr::Builtin(b, args.into_iter().map(|a| a.e).collect()),
            ty: Type::Scalar(ty),
            range,
            eff,
            uniform,
        })
    }

    fn float_builtin(&mut self, d: u32, cons: &Cons) -> GExpr {
        let t = self.pick_scalar(Want::Float);
        let b = *self.rng.pick(&[
            Builtin::Fmin,
            Builtin::Fmax,
            Builtin::Fabs,
            Builtin::Fma,
            Builtin::Sqrt,
            Builtin::Floor,
            Builtin::Ceil,
        ]);
        let arity = match b {
            Builtin::Fmin | Builtin::Fmax => 2,
            Builtin::Fma => 3,
            _ => 1,
        };
        let mut args = Vec::new();
        let mut eff = Effects::default();
        for _ in 0..arity {
            let c = cons.beside(&eff);
            let x = self.expr(Want::Arith, d, &c);
            let x = if self.scalar(&x.ty) == Some(t) && matches!(x.ty, Type::Scalar(_)) {
                x
            } else {
                self.cast_forced(x, t)
            };
            eff.join(&x.eff);
            args.push(x);
        }
        let uniform = args.iter().all(|a| a.uniform);
        let ranges: Vec<Option<(f64, f64)>> = args
            .iter()
            .map(|a| match a.range {
                Range::Float(r) => r,
                _ => None,
            })
            .collect();
        let range = match (b, ranges.as_slice()) {
            (Builtin::Fabs, [Some((lo, hi))]) => {
                let m = lo.abs().max(hi.abs());
                Some((
                    if *lo <= 0.0 && *hi >= 0.0 {
                        0.0
                    } else {
                        lo.abs().min(hi.abs())
                    },
                    m,
                ))
            }
            (Builtin::Floor | Builtin::Ceil, [Some((lo, hi))]) => {
                range::widen(lo.floor(), hi.ceil())
            }
            (Builtin::Sqrt, [Some((lo, hi))]) if *lo >= 0.0 => range::widen(lo.sqrt(), hi.sqrt()),
            (Builtin::Fmin | Builtin::Fmax, [Some((l1, h1)), Some((l2, h2))]) => {
                Some((l1.min(*l2), h1.max(*h2)))
            }
            _ => None,
        };
        let zero_sign_matters = matches!(b, Builtin::Fmin | Builtin::Fmax)
            && args
                .iter()
                .all(|a| !matches!(a.range, Range::Float(Some((lo, hi))) if lo > 0.0 || hi < 0.0));
        let call = GExpr {
            e: Expr::Builtin(b, args.into_iter().map(|a| a.e).collect()),
            ty: Type::Scalar(t),
            range: Range::Float(range),
            eff,
            uniform,
        };
        if zero_sign_matters {
            // fmin(-0, +0) may return either zero: adding +0 makes the sign of a zero
            // result +0 under round-to-nearest.
            let zero = self.float_const(t, 0.0);
            return self
                .try_binary(BinOp::Add, &call, &zero)
                .expect("float add");
        }
        call
    }

    /// A call of a helper returning an arithmetic value.
    fn call_expr(&mut self, want: Want, d: u32, cons: &Cons) -> Option<GExpr> {
        let cands: Vec<usize> = (0..self.helpers.len())
            .filter(|&i| {
                let f = &self.p.functions[self.helpers[i].id as usize];
                self.scalar(&f.ret).is_some_and(|s| self.want_ok(want, s))
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let h = *self.rng.pick(&cands);
        self.call(h, d, cons)
    }

    /// A call of helper `h` with arguments for its parameters, `None` when the
    /// constraints or the scope cannot provide them.
    pub fn call(&mut self, h: usize, d: u32, cons: &Cons) -> Option<GExpr> {
        let sig = self.helpers[h].clone();
        let runs = self.f.loop_mult.saturating_mul(sig.cost);
        if runs > crate::gen::state::trip_cap(self.cfg.max_loop_trips) {
            return None;
        }
        let f_ret = self.p.functions[sig.id as usize].ret.clone();
        let mut args = Vec::new();
        let mut eff = Effects::default();
        let mut roots: Vec<Root> = Vec::new();
        let mut call_eff = Effects::default();
        for (k, pk) in sig.params.iter().enumerate() {
            let (read, write) = sig.uses[k];
            let c = cons.beside(&eff);
            let (e, root) = match pk {
                ParamKind::Scalar(s) => {
                    let want = if s.is_float() { Want::Arith } else { Want::Int };
                    let x = self.expr(want, d, &c);
                    let x = if s.is_integer() && self.scalar(&x.ty).is_some_and(|t| t.is_float()) {
                        self.to_scalar(x, *s)
                    } else {
                        x
                    };
                    let x = if self.rng.chance(1, 2) {
                        self.to_scalar(x, *s)
                    } else {
                        x
                    };
                    eff.join(&x.eff);
                    (x.e, None)
                }
                ParamKind::Struct(id) => {
                    let v = self.struct_value(*id, &c)?;
                    eff.join(&Effects::read(Root::Var(v)));
                    (Expr::Var(v), None)
                }
                ParamKind::Private(elem, extent) => {
                    let (e, root) = self.private_pointer_arg(*elem, *extent, write, &c)?;
                    (e, Some(root))
                }
                ParamKind::GlobalOwn(elem) => {
                    let (e, root) = self.global_pointer_arg(*elem, true, &c)?;
                    (e, root)
                }
                ParamKind::GlobalIn(elem) => self.global_pointer_arg(*elem, false, &c)?,
            };
            if let Some(r) = root {
                if roots.contains(&r)
                    || (write && !cons.can_write(r))
                    || (read && !cons.can_read(r))
                {
                    return None;
                }
                roots.push(r);
                if write {
                    call_eff.writes.push(r);
                }
                if read {
                    call_eff.reads.push(r);
                }
            }
            args.push(e);
        }
        eff.join(&call_eff);
        self.f.max_mult = self.f.max_mult.max(runs);
        let s = self.scalar(&f_ret);
        // Map helper parameter use of the caller's own pointer parameters.
        for (k, arg) in args.iter().enumerate() {
            if let Expr::Var(v) = arg {
                let (r, w) = sig.uses[k];
                self.note_param_use(*v, r, w);
            }
        }
        Some(GExpr {
            e: Expr::Call(sig.id, args),
            ty: f_ret,
            range: s.map(Range::full).unwrap_or(Range::Other),
            eff,
            uniform: false,
        })
    }

    /// Spelled `signed char`: a type distinct from `char` (pointers to the two do not
    /// mix), though of the same values.
    pub fn is_signed_char(&self, ty: &Type) -> bool {
        matches!(ty, Type::Alias(a) if self.p.aliases[*a as usize].name == "signed char")
    }

    /// A visible struct variable of type `id` the constraints let us read.
    pub fn struct_value(&mut self, id: u32, cons: &Cons) -> Option<VarId> {
        let cands: Vec<VarId> = self
            .f
            .scope
            .iter()
            .copied()
            .filter(|&v| {
                *self.p.resolve(self.f.ty(v)) == Type::Struct(id) && cons.can_read(Root::Var(v))
            })
            .collect();
        (!cands.is_empty()).then(|| *self.rng.pick(&cands))
    }

    fn private_pointer_arg(
        &mut self,
        elem: Scalar,
        extent: u32,
        write: bool,
        cons: &Cons,
    ) -> Option<(Expr, Root)> {
        let mut opts: Vec<(Expr, Root)> = Vec::new();
        for &v in &self.f.scope {
            let info = &self.f.info[v as usize];
            if write && info.readonly {
                continue;
            }
            let ty = self.p.resolve(self.f.ty(v)).clone();
            match ty {
                Type::Scalar(s)
                    if s == elem
                        && extent == 1
                        && self.f.func.vars[v as usize].space == Space::Private
                        && !self.is_signed_char(self.f.ty(v)) =>
                {
                    opts.push((
                        Expr::Unary(UnOp::AddrOf, Box::new(Expr::Var(v))),
                        Root::Var(v),
                    ))
                }
                Type::Array(e, n)
                    if *e == Type::Scalar(elem)
                        && n >= extent
                        && self.f.func.vars[v as usize].space == Space::Private =>
                {
                    let off = self.rng.range(0, (n - extent) as i64);
                    let e = if off == 0 && self.rng.chance(1, 2) {
                        Expr::Var(v)
                    } else {
                        let o = Expr::Int(crate::ast::IntLit {
                            value: off as u64,
                            radix: crate::ast::Radix::Dec,
                            suffix: crate::ast::Suffix::None,
                            upper: false,
                        });
                        Expr::Unary(
                            UnOp::AddrOf,
                            Box::new(Expr::Index(Box::new(Expr::Var(v)), Box::new(o))),
                        )
                    };
                    opts.push((e, Root::Var(v)))
                }
                Type::Ptr {
                    space: Space::Private,
                    ..
                } => {
                    let p = info.ptr.as_ref().expect("pointer info");
                    if p.elem == Type::Scalar(elem) && p.extent >= extent && (!write || p.writable)
                    {
                        if let Some(r) = p.root {
                            opts.push((Expr::Var(v), r));
                        }
                    }
                }
                _ => {}
            }
        }
        opts.retain(|(_, r)| cons.can_read(*r));
        if opts.is_empty() {
            return None;
        }
        Some(self.rng.pick(&opts).clone())
    }

    fn global_pointer_arg(
        &mut self,
        elem: Scalar,
        own: bool,
        cons: &Cons,
    ) -> Option<(Expr, Option<Root>)> {
        let mut opts: Vec<(Expr, Option<Root>)> = Vec::new();
        if self.f.kernel {
            for (i, b) in self.bufs.iter().enumerate() {
                if b.elem != elem || b.space != Space::Global {
                    continue;
                }
                match (&b.kind, own) {
                    (BufKind::In, false) => opts.push((Expr::Var(b.var), None)),
                    (BufKind::Own, true) if cons.can_read(Root::Buf(i as u32)) => {
                        let gid = self.f.gid.expect("kernel");
                        let k = Expr::Int(crate::ast::IntLit {
                            value: self.k_slots as u64,
                            radix: crate::ast::Radix::Dec,
                            suffix: crate::ast::Suffix::None,
                            upper: false,
                        });
                        let off = Expr::Binary(BinOp::Mul, Box::new(Expr::Var(gid)), Box::new(k));
                        opts.push((
                            Expr::Binary(BinOp::Add, Box::new(Expr::Var(b.var)), Box::new(off)),
                            Some(Root::Buf(i as u32)),
                        ));
                    }
                    _ => {}
                }
            }
        }
        for &v in &self.f.scope {
            let Some(p) = &self.f.info[v as usize].ptr else {
                continue;
            };
            let Type::Ptr {
                space: Space::Global,
                ..
            } = self.p.resolve(self.f.ty(v))
            else {
                continue;
            };
            if p.elem != Type::Scalar(elem) {
                continue;
            }
            let is_own = p.writable && p.extent == self.k_slots;
            let is_in = !p.writable && p.root.is_none() && p.extent == self.in_len;
            if (own && is_own) || (!own && is_in) {
                opts.push((Expr::Var(v), p.root));
            }
        }
        opts.retain(|(_, r)| r.is_none_or(|r| cons.can_read(r)));
        if opts.is_empty() {
            return None;
        }
        Some(self.rng.pick(&opts).clone())
    }

    /// A use of a function-like macro with arguments (pure ones where a parameter occurs
    /// more than once, since each occurrence evaluates the argument again).
    fn macro_expr(&mut self, want: Want, d: u32, cons: &Cons) -> Option<GExpr> {
        let cands: Vec<usize> = (0..self.macros.len())
            .filter(|&i| self.macros[i].value.is_none())
            .collect();
        if cands.is_empty() {
            return None;
        }
        let mi = self.macros[*self.rng.pick(&cands)].clone();
        let m = &self.p.macros[mi.id as usize];
        let body = m.body.clone();
        let mut args = Vec::new();
        let mut gargs = Vec::new();
        let mut eff = Effects::default();
        for &occ in &mi.occurrences {
            let c = Cons {
                pure: cons.pure || occ > 1,
                ..cons.beside(&eff)
            };
            let x = self.expr(Want::Int, d, &c);
            eff.join(&x.eff);
            args.push(x.e.clone());
            gargs.push(x);
        }
        let g = self.macro_body(&body, &gargs)?;
        let s = self.scalar(&g.ty)?;
        if !self.want_ok(want, s) {
            return None;
        }
        Some(GExpr {
            e: Expr::Macro(mi.id, args),
            eff,
            ..g
        })
    }

    /// The generator's view of a macro body with its arguments: rebuilt bottom-up with the
    /// operator checks, `None` when some operation would not be defined for them.
    fn macro_body(&mut self, body: &Expr, args: &[GExpr]) -> Option<GExpr> {
        Some(match body {
            Expr::MacroParam(i) => args[*i as usize].clone(),
            Expr::Int(_) => {
                let t = crate::ctype::literal_type(match body {
                    Expr::Int(l) => l,
                    _ => unreachable!(),
                })?;
                let v = match body {
                    Expr::Int(l) => l.value as i128,
                    _ => unreachable!(),
                };
                GExpr {
                    e: body.clone(),
                    ty: Type::Scalar(t),
                    range: Range::Int(v, v),
                    eff: Effects::default(),
                    uniform: true,
                }
            }
            Expr::Binary(op, a, b) => {
                let a = self.macro_body(a, args)?;
                let b = self.macro_body(b, args)?;
                self.try_binary(*op, &a, &b)?
            }
            Expr::Unary(op, a) => {
                let a = self.macro_body(a, args)?;
                if *op == UnOp::Neg {
                    let s = promote(self.scalar(&a.ty)?);
                    if s.is_signed() && a.range.int(s).0 == s.range().0 {
                        return None;
                    }
                }
                self.unary(*op, a)
            }
            Expr::Cond(c, a, b) => {
                let c = self.macro_body(c, args)?;
                let a = self.macro_body(a, args)?;
                let b = self.macro_body(b, args)?;
                let (sa, sb) = (self.scalar(&a.ty)?, self.scalar(&b.ty)?);
                let t = crate::ctype::usual(sa, sb);
                let (l1, h1) = range::convert(a.range, sa, t)?.int(t);
                let (l2, h2) = range::convert(b.range, sb, t)?.int(t);
                GExpr {
                    e: body.clone(),
                    ty: Type::Scalar(t),
                    range: Range::Int(l1.min(l2), h1.max(h2)),
                    eff: Effects::default(),
                    uniform: c.uniform && a.uniform && b.uniform,
                }
            }
            Expr::Cast(t, a) => {
                let a = self.macro_body(a, args)?;
                let s = self.scalar(t)?;
                let range = range::convert(a.range, self.scalar(&a.ty)?, s)?;
                GExpr {
                    e: body.clone(),
                    ty: t.clone(),
                    range,
                    ..a
                }
            }
            _ => return None,
        })
    }

    /// `atomic_add(&own[gid], v)` and friends on the work-item's own atomic word, whose
    /// result only this work-item sees.
    fn own_atomic_expr(&mut self, want: Want, cons: &Cons) -> Option<GExpr> {
        if !self.f.kernel || want == Want::Float || !self.cfg.atomics {
            return None;
        }
        let (i, b) = self.bufs.iter().enumerate().find(|(_, b)| {
            b.kind == BufKind::Own && matches!(b.elem, Scalar::Int | Scalar::UInt)
        })?;
        let (i, b) = (i as u32, b.clone());
        if !cons.can_write(Root::Buf(i)) {
            return None;
        }
        let icons = Cons {
            pure: true,
            ..cons.beside(&Effects {
                reads: vec![Root::Buf(i)],
                writes: vec![Root::Buf(i)],
            })
        };
        let idx = self.own_index(&Cons {
            pure: true,
            ..cons.clone()
        });
        use crate::ast::AtomicOp;
        // The word holds any value (plain stores write it too): adding to a signed word
        // could overflow.
        let ops: &[AtomicOp] = if b.elem == Scalar::Int {
            &[
                AtomicOp::Xor,
                AtomicOp::Or,
                AtomicOp::And,
                AtomicOp::Min,
                AtomicOp::Max,
            ]
        } else {
            &[
                AtomicOp::Add,
                AtomicOp::Sub,
                AtomicOp::Xor,
                AtomicOp::Or,
                AtomicOp::And,
                AtomicOp::Min,
                AtomicOp::Max,
                AtomicOp::Inc,
                AtomicOp::Dec,
            ]
        };
        let op = *self.rng.pick(ops);
        let ptr = Expr::Unary(
            UnOp::AddrOf,
            Box::new(Expr::Index(Box::new(Expr::Var(b.var)), Box::new(idx.e))),
        );
        let mut args = vec![ptr];
        let mut eff = idx.eff;
        if !matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
            // Small operands keep a signed word's sum far from overflow.
            let v = self.expr(Want::Int, 1, &icons);
            let m = self.int_const(Scalar::Int, 0xff);
            let v = self.try_binary(BinOp::And, &v, &m).expect("mask");
            let v = self.cast_forced(v, b.elem);
            eff.join(&v.eff);
            args.push(v.e);
        }
        eff.join(&Effects {
            reads: vec![Root::Buf(i)],
            writes: vec![Root::Buf(i)],
        });
        let short = self.rng.chance(1, 4);
        self.atom_used[if op.family() == 0 { 0 } else { 1 }] |= short;
        Some(GExpr {
            e: Expr::Builtin(Builtin::Atomic { op, short }, args),
            ty: Type::Scalar(b.elem),
            range: Range::full(b.elem),
            eff,
            uniform: false,
        })
    }
}

fn corners(a: (i128, i128), b: (i128, i128)) -> (i128, i128) {
    let v = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
    (
        *v.iter().min().expect("four"),
        *v.iter().max().expect("four"),
    )
}

/// `++`/`--` are defined for every value of these types (narrow signed types compute in
/// `int` and convert back).
pub fn inc_dec_ok(s: Scalar) -> bool {
    !matches!(s, Scalar::Int | Scalar::Long | Scalar::Bool)
}
