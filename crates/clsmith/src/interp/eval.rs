//! Evaluation of expressions: C99 order-independent semantics (the generator never writes
//! an expression whose result depends on the order of unsequenced operands), short
//! circuits, pointer arithmetic within one array, calls and built-ins.

use crate::ast::{BinOp, Builtin, Expr, IncDec, Scalar, Space, Type, UnOp, WorkItem};
use crate::ctype::{field_offset, layout, literal_type, promote, usual};
use crate::ctype_of::{expand, PTRDIFF_T, SIZE_T};
use crate::interp::builtins;
use crate::interp::machine::{Machine, Place};
use crate::interp::memory::{atomic_access, decode, encode, read_scalar, Who};
use crate::interp::trap::Ub;
use crate::interp::value::{arith, convert, int_result, ObjRef, Ptr, Value};

impl Machine<'_> {
    /// The value of `e` (arrays decay to pointers).
    pub fn eval(&mut self, e: &Expr) -> Result<Value, Ub> {
        self.step()?;
        match e {
            Expr::Int(l) => Ok(Value::Int(
                literal_type(l).expect("literal in range"),
                l.value as i128,
            )),
            Expr::Float(l) if l.single => Ok(Value::F32(l.value as f32)),
            Expr::Float(l) => Ok(Value::F64(l.value)),
            Expr::Var(_)
            | Expr::Const(_)
            | Expr::Index(..)
            | Expr::Arrow(..)
            | Expr::Unary(UnOp::Deref, _) => {
                let pl = self.place(e)?;
                self.load(&pl)
            }
            Expr::Member(base, field) => {
                if is_lvalue(base) {
                    let pl = self.place(e)?;
                    return self.load(&pl);
                }
                let Value::Agg(a) = self.eval(base)? else {
                    return Err(Ub::Unsupported("member of a non-struct value".into()));
                };
                let ty = self.p.structs[a.id as usize].fields[*field as usize]
                    .ty
                    .clone();
                let off = field_offset(self.p, a.id, *field) as usize;
                let size = layout(self.p, &ty).0 as usize;
                let Some(s) = self.p.scalar(&ty) else {
                    return Err(Ub::Unsupported("array member of a struct rvalue".into()));
                };
                if a.init[off..off + size].iter().any(|i| !i) {
                    return Err(Ub::Uninit("member of a struct value".into()));
                }
                Ok(decode(s, &a.data[off..off + size]))
            }
            Expr::MacroParam(_) => Err(Ub::Unsupported("macro parameter outside its macro".into())),
            Expr::Macro(m, args) => {
                let body = &self.p.macros[*m as usize].body;
                if args.is_empty() {
                    self.eval(body)
                } else {
                    let expanded = expand(body, args);
                    self.eval(&expanded)
                }
            }
            Expr::Unary(op, x) => self.unary(*op, x),
            Expr::IncDec(op, x) => self.inc_dec(*op, x),
            Expr::Binary(BinOp::LogAnd, a, b) => {
                let r = self.eval(a)?.truthy() && self.eval(b)?.truthy();
                Ok(Value::Int(Scalar::Int, r as i128))
            }
            Expr::Binary(BinOp::LogOr, a, b) => {
                let r = self.eval(a)?.truthy() || self.eval(b)?.truthy();
                Ok(Value::Int(Scalar::Int, r as i128))
            }
            Expr::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binary(*op, &x, &y)
            }
            Expr::Assign(op, lhs, rhs) => self.assign(*op, lhs, rhs),
            Expr::Cond(c, a, b) => {
                let taken = self.eval(c)?.truthy();
                let v = self.eval(if taken { a } else { b })?;
                let f = &self.p.functions[self.frame().func as usize];
                let ta = crate::ctype_of::decayed(self.p, Some(f), a);
                let tb = crate::ctype_of::decayed(self.p, Some(f), b);
                match (self.p.scalar(&ta), self.p.scalar(&tb)) {
                    (Some(x), Some(y)) => convert(&v, usual(x, y)),
                    _ => Ok(v),
                }
            }
            Expr::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
            Expr::Cast(t, x) => {
                let v = self.eval(x)?;
                match self.p.resolve(t) {
                    Type::Void => Ok(Value::Void),
                    Type::Scalar(s) => convert(&v, *s),
                    _ => Ok(v),
                }
            }
            Expr::Call(g, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                self.call(*g, vals)
            }
            Expr::SizeOf(t) => Ok(Value::Int(SIZE_T, layout(self.p, t).0 as i128)),
            Expr::Builtin(b, args) => self.builtin(*b, args, true),
        }
    }

    /// The place `e` designates.
    pub fn place(&mut self, e: &Expr) -> Result<Place, Ub> {
        match e {
            Expr::Var(v) => Ok(self.var_place(*v)),
            Expr::Const(c) => {
                let t = &self.p.constants[*c as usize];
                let n = t.values.len() as u32;
                Ok(Place {
                    obj: ObjRef::Table(*c),
                    offset: 0,
                    lo: 0,
                    hi: (t.elem.size() * n) as i64,
                    ty: Type::Array(Box::new(Type::Scalar(t.elem)), n),
                    space: Space::Constant,
                })
            }
            Expr::Index(base, idx) => {
                let b = self.eval(base)?;
                let i = self.eval(idx)?;
                let Value::Ptr(p) = self.binary(BinOp::Add, &b, &i)? else {
                    return Err(Ub::Unsupported("index of a non-pointer".into()));
                };
                Ok(ptr_place(*p))
            }
            Expr::Unary(UnOp::Deref, x) => match self.eval(x)? {
                Value::Ptr(p) => Ok(ptr_place(*p)),
                v => Err(Ub::Unsupported(format!("dereference of {}", v.show()))),
            },
            Expr::Member(base, field) => {
                let mut pl = self.place(base)?;
                self.member(&mut pl, *field)?;
                Ok(pl)
            }
            Expr::Arrow(base, field) => {
                let Value::Ptr(p) = self.eval(base)? else {
                    return Err(Ub::Unsupported("-> on a non-pointer".into()));
                };
                let mut pl = ptr_place(*p);
                self.member(&mut pl, *field)?;
                Ok(pl)
            }
            Expr::Macro(m, args) => {
                let expanded = expand(&self.p.macros[*m as usize].body, args);
                self.place(&expanded)
            }
            other => Err(Ub::Unsupported(format!("not an lvalue: {other:?}"))),
        }
    }

    fn member(&self, pl: &mut Place, field: u32) -> Result<(), Ub> {
        let Type::Struct(id) = self.p.resolve(&pl.ty) else {
            return Err(Ub::Unsupported("member of a non-struct".into()));
        };
        let size = layout(self.p, &pl.ty).0 as i64;
        if pl.offset < pl.lo || pl.offset + size > pl.hi {
            return Err(Ub::OutOfBounds(
                "member of a struct outside its array".into(),
            ));
        }
        let f = &self.p.structs[*id as usize].fields[field as usize];
        let off = pl.offset + field_offset(self.p, *id, field) as i64;
        let fsize = layout(self.p, &f.ty).0 as i64;
        pl.ty = f.ty.clone();
        pl.offset = off;
        pl.lo = off;
        pl.hi = off + fsize;
        Ok(())
    }

    fn unary(&mut self, op: UnOp, x: &Expr) -> Result<Value, Ub> {
        if op == UnOp::AddrOf {
            let pl = self.place(x)?;
            let size = layout(self.p, &pl.ty).0;
            return Ok(Value::Ptr(Box::new(Ptr {
                space: pl.space,
                obj: pl.obj,
                offset: pl.offset,
                lo: pl.lo.min(pl.offset),
                hi: pl.hi.max(pl.offset + size as i64),
                elem: pl.ty,
                elem_size: size,
            })));
        }
        let v = self.eval(x)?;
        match op {
            UnOp::Not => Ok(Value::Int(Scalar::Int, !v.truthy() as i128)),
            UnOp::Neg | UnOp::Plus | UnOp::BitNot => {
                let t = promote(v.scalar().expect("arithmetic operand"));
                let v = convert(&v, t)?;
                match (op, v) {
                    (UnOp::Plus, v) => Ok(v),
                    (UnOp::Neg, Value::F32(f)) => Ok(Value::F32(-f)),
                    (UnOp::Neg, Value::F64(f)) => Ok(Value::F64(-f)),
                    (UnOp::Neg, Value::Int(t, i)) => {
                        int_result(t, -i, || format!("-({i}) in {}", t.name()))
                    }
                    (UnOp::BitNot, Value::Int(t, i)) => {
                        Ok(Value::Int(t, crate::interp::value::wrap(t, !i)))
                    }
                    (op, v) => Err(Ub::Unsupported(format!("{op:?} on {}", v.show()))),
                }
            }
            UnOp::Deref | UnOp::AddrOf => unreachable!("handled as places"),
        }
    }

    fn inc_dec(&mut self, op: IncDec, x: &Expr) -> Result<Value, Ub> {
        let pl = self.place(x)?;
        let old = self.load(&pl)?;
        let delta = if matches!(op, IncDec::PreInc | IncDec::PostInc) {
            BinOp::Add
        } else {
            BinOp::Sub
        };
        let one = Value::Int(Scalar::Int, 1);
        let new = match &old {
            Value::Ptr(_) => self.binary(delta, &old, &one)?,
            v => {
                let r = self.binary(delta, v, &one)?;
                convert(&r, v.scalar().expect("arithmetic"))?
            }
        };
        self.store(&pl, new.clone())?;
        Ok(if matches!(op, IncDec::PreInc | IncDec::PreDec) {
            new
        } else {
            old
        })
    }

    /// A binary operator on evaluated operands (not `&&`/`||`), pointer arithmetic
    /// included.
    pub fn binary(&mut self, op: BinOp, x: &Value, y: &Value) -> Result<Value, Ub> {
        match (x, y) {
            (Value::Ptr(p), Value::Ptr(q)) => {
                if p.obj != q.obj || p.lo != q.lo || p.hi != q.hi {
                    return Err(Ub::BadPointer(format!(
                        "{} of pointers into different arrays",
                        op.text()
                    )));
                }
                let r = match op {
                    BinOp::Sub => {
                        return Ok(Value::Int(
                            PTRDIFF_T,
                            ((p.offset - q.offset) / p.elem_size as i64) as i128,
                        ))
                    }
                    BinOp::Lt => p.offset < q.offset,
                    BinOp::Gt => p.offset > q.offset,
                    BinOp::Le => p.offset <= q.offset,
                    BinOp::Ge => p.offset >= q.offset,
                    BinOp::Eq => p.offset == q.offset,
                    BinOp::Ne => p.offset != q.offset,
                    _ => return Err(Ub::Unsupported(format!("{} on two pointers", op.text()))),
                };
                Ok(Value::Int(Scalar::Int, r as i128))
            }
            (Value::Ptr(p), n) | (n, Value::Ptr(p)) => {
                let n = n.int();
                let n = match (op, matches!(x, Value::Ptr(_))) {
                    (BinOp::Add, _) => n,
                    (BinOp::Sub, true) => -n,
                    _ => return Err(Ub::Unsupported(format!("{} with a pointer", op.text()))),
                };
                let offset = p.offset + n as i64 * p.elem_size as i64;
                if offset < p.lo || offset > p.hi {
                    return Err(Ub::OutOfBounds(format!(
                        "pointer arithmetic to offset {offset} outside [{}, {}]",
                        p.lo, p.hi
                    )));
                }
                Ok(Value::Ptr(Box::new(Ptr {
                    offset,
                    ..(**p).clone()
                })))
            }
            _ => arith(op, x, y, self.shift_rule),
        }
    }

    fn assign(&mut self, op: Option<BinOp>, lhs: &Expr, rhs: &Expr) -> Result<Value, Ub> {
        let pl = self.place(lhs)?;
        let r = self.eval(rhs)?;
        let v = match op {
            None => r,
            Some(op) => {
                let old = self.load(&pl)?;
                self.binary(op, &old, &r)?
            }
        };
        let v = match self.p.resolve(&pl.ty) {
            Type::Scalar(s) => convert(&v, *s)?,
            _ => v,
        };
        self.store(&pl, v.clone())?;
        Ok(v)
    }

    /// Evaluates a built-in; `used` says whether the result is used (an atomic's is not
    /// when the call is a statement of its own).
    pub fn builtin(&mut self, b: Builtin, args: &[Expr], used: bool) -> Result<Value, Ub> {
        match b {
            Builtin::WorkItem(w) => {
                let d = match args.first() {
                    Some(a) => self.eval(a)?.int(),
                    None => 0,
                };
                Ok(self.work_item(w, d))
            }
            Builtin::Atomic { op, .. } => {
                let Value::Ptr(p) = self.eval(&args[0])? else {
                    return Err(Ub::Unsupported("atomic on a non-pointer".into()));
                };
                let operand = match args.get(1) {
                    Some(a) => Some(self.eval(a)?),
                    None => None,
                };
                let pl = ptr_place(*p);
                let Some(t @ (Scalar::Int | Scalar::UInt)) = self.p.scalar(&pl.ty) else {
                    return Err(Ub::Unsupported(
                        "atomic on a word that is not int or uint".into(),
                    ));
                };
                if pl.offset < pl.lo || pl.offset + 4 > pl.hi {
                    return Err(Ub::OutOfBounds("atomic outside its array".into()));
                }
                let epoch = match pl.obj {
                    ObjRef::Buffer(_) => crate::interp::machine::GLOBAL_EPOCH,
                    ObjRef::Local(_) => self.epoch,
                    _ => {
                        return Err(Ub::Unsupported(
                            "atomic on private or constant memory".into(),
                        ))
                    }
                };
                let who = Who {
                    lane: self.lane.linear,
                    epoch,
                };
                let st = self.storage(pl.obj)?.expect("buffer storage");
                atomic_access(st, pl.offset, op.family(), used, who, "atomic")?;
                let old = read_scalar(st, pl.offset, t, None, "atomic")?.int();
                let val = match &operand {
                    Some(v) => convert(v, t)?.int(),
                    None => 1,
                };
                use crate::ast::AtomicOp::*;
                let new = match op {
                    Add | Inc => old + val,
                    Sub | Dec => old - val,
                    Min => old.min(val),
                    Max => old.max(val),
                    And => old & val,
                    Or => old | val,
                    Xor => old ^ val,
                };
                let new = int_result(t, new, || format!("atomic_{} {old} with {val}", op.stem()))?;
                let bytes = encode(&new);
                st.data[pl.offset as usize..pl.offset as usize + 4].copy_from_slice(&bytes);
                Ok(Value::Int(t, old))
            }
            _ => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                builtins::call(b, &vals)
            }
        }
    }

    fn work_item(&self, w: WorkItem, d: i128) -> Value {
        let g = &self.geo;
        let dim = |a: [u32; 3], default: u32| {
            if (0..3).contains(&d) {
                a[d as usize]
            } else {
                default
            }
        };
        let v = match w {
            WorkItem::WorkDim => return Value::Int(Scalar::UInt, g.work_dim as i128),
            WorkItem::GlobalId => {
                dim(g.group, 0) as i128 * dim(g.block, 1) as i128
                    + dim(self.lane.local_id, 0) as i128
            }
            WorkItem::LocalId => dim(self.lane.local_id, 0) as i128,
            WorkItem::GroupId => dim(g.group, 0) as i128,
            WorkItem::LocalSize => dim(g.block, 1) as i128,
            WorkItem::NumGroups => dim(g.grid, 1) as i128,
            WorkItem::GlobalSize => dim(g.grid, 1) as i128 * dim(g.block, 1) as i128,
        };
        Value::Int(SIZE_T, v)
    }
}

fn ptr_place(p: Ptr) -> Place {
    Place {
        obj: p.obj,
        offset: p.offset,
        lo: p.lo,
        hi: p.hi,
        ty: p.elem,
        space: p.space,
    }
}

fn is_lvalue(e: &Expr) -> bool {
    match e {
        Expr::Var(_)
        | Expr::Const(_)
        | Expr::Index(..)
        | Expr::Arrow(..)
        | Expr::Unary(UnOp::Deref, _) => true,
        Expr::Member(b, _) => is_lvalue(b),
        _ => false,
    }
}
