//! A small builder of IR functions for tests: values are appended to the innermost open
//! region; `if_` and `loop_` open regions for the closures that fill them.

#![allow(dead_code)]

use warpkit_cc::ir::{
    BinOp, CastOp, CmpPred, Function, MemObject, MemTy, Module, OpKind, Param, ParamKind, RegionId,
    Space, Ty, ValueId, WorkItem,
};
use warpkit_cc::source::Span;

pub const GLOBAL: Ty = Ty::Ptr(Space::Global);
pub const CONSTANT: Ty = Ty::Ptr(Space::Constant);
pub const LOCAL: Ty = Ty::Ptr(Space::Local);
pub const PRIVATE: Ty = Ty::Ptr(Space::Private);

pub struct B {
    pub f: Function,
    stack: Vec<RegionId>,
}

impl B {
    pub fn new(name: &str) -> B {
        let f = Function::new(name, Span::DUMMY);
        let body = f.body;
        B {
            f,
            stack: vec![body],
        }
    }

    /// Append to region `r` until [`B::close`].
    pub fn open(&mut self, r: RegionId) {
        self.stack.push(r);
    }

    pub fn close(&mut self) {
        self.stack.pop();
    }

    pub fn cur(&self) -> RegionId {
        *self.stack.last().unwrap()
    }

    /// Declare a parameter and read it at the current point.
    pub fn param(&mut self, name: &str, kind: ParamKind) -> ValueId {
        let ty = match kind {
            ParamKind::PtrGlobal => GLOBAL,
            ParamKind::PtrConstant => CONSTANT,
            ParamKind::PtrLocal => LOCAL,
            ParamKind::I64 | ParamKind::U64 => Ty::I64,
            ParamKind::F16 => Ty::F16,
            ParamKind::F32 => Ty::F32,
            ParamKind::F64 => Ty::F64,
            _ => Ty::I32,
        };
        let i = self.f.params.len() as u32;
        self.f.params.push(Param {
            name: name.into(),
            kind,
            ty,
            c_type: String::new(),
            span: Span::DUMMY,
        });
        self.op(OpKind::Param(i), vec![], ty)
    }

    pub fn local_object(&mut self, name: &str, size: u32, align: u32) -> u32 {
        self.f.locals.push(MemObject {
            name: name.into(),
            size,
            align,
            span: Span::DUMMY,
        });
        self.f.locals.len() as u32 - 1
    }

    pub fn private_object(&mut self, name: &str, size: u32, align: u32) -> u32 {
        self.f.privates.push(MemObject {
            name: name.into(),
            size,
            align,
            span: Span::DUMMY,
        });
        self.f.privates.len() as u32 - 1
    }

    pub fn op(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: Ty) -> ValueId {
        let r = self.cur();
        self.f.push_value(r, kind, operands, ty, Span::DUMMY)
    }

    pub fn op0(&mut self, kind: OpKind, operands: Vec<ValueId>) {
        let r = self.cur();
        self.f
            .push_op(r, kind, operands, &[], Vec::new(), Span::DUMMY);
    }

    pub fn konst(&mut self, ty: Ty, bits: u64) -> ValueId {
        self.op(OpKind::Const(bits), vec![], ty)
    }
    pub fn i1(&mut self, v: bool) -> ValueId {
        self.konst(Ty::I1, v as u64)
    }
    pub fn i32(&mut self, v: i32) -> ValueId {
        self.konst(Ty::I32, v as u32 as u64)
    }
    pub fn i64(&mut self, v: i64) -> ValueId {
        self.konst(Ty::I64, v as u64)
    }
    pub fn f32(&mut self, v: f32) -> ValueId {
        self.konst(Ty::F32, v.to_bits() as u64)
    }
    pub fn f64(&mut self, v: f64) -> ValueId {
        self.konst(Ty::F64, v.to_bits())
    }

    pub fn ty(&self, v: ValueId) -> Ty {
        self.f.ty(v)
    }

    pub fn bin(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        let t = self.ty(a);
        self.op(OpKind::Binary(op), vec![a, b], t)
    }
    pub fn add(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.bin(BinOp::Add, a, b)
    }
    pub fn mul(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.bin(BinOp::Mul, a, b)
    }
    pub fn cmp(&mut self, p: CmpPred, a: ValueId, b: ValueId) -> ValueId {
        self.op(OpKind::Cmp(p), vec![a, b], Ty::I1)
    }
    pub fn select(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let t = self.ty(a);
        self.op(OpKind::Select, vec![c, a, b], t)
    }
    pub fn cast(&mut self, c: CastOp, a: ValueId, to: Ty) -> ValueId {
        self.op(OpKind::Cast(c), vec![a], to)
    }
    pub fn wi(&mut self, w: WorkItem) -> ValueId {
        self.op(OpKind::WorkItem(w), vec![], Ty::I32)
    }
    /// `get_group_id(0) * get_local_size(0) + get_local_id(0)`.
    pub fn gid(&mut self) -> ValueId {
        let g = self.wi(WorkItem::GroupId(0));
        let s = self.wi(WorkItem::LocalSize(0));
        let l = self.wi(WorkItem::LocalId(0));
        let gs = self.mul(g, s);
        self.add(gs, l)
    }
    pub fn ptradd(&mut self, p: ValueId, off: ValueId) -> ValueId {
        let t = self.ty(p);
        self.op(OpKind::PtrAdd, vec![p, off], t)
    }
    /// `p + i * size` with `i` an `I32` index, widened as the pointer needs.
    pub fn index(&mut self, p: ValueId, i: ValueId, size: u32) -> ValueId {
        let pt = self.ty(p);
        let i = if pt.bits() == 64 && self.ty(i) == Ty::I32 {
            self.cast(CastOp::ZExt, i, Ty::I64)
        } else {
            i
        };
        let s = self.konst(pt.int_of_width(), size as u64);
        let off = self.mul(i, s);
        self.ptradd(p, off)
    }
    pub fn load(&mut self, ty: Ty, size: u8, p: ValueId) -> ValueId {
        self.op(
            OpKind::Load(MemTy {
                size,
                signed: false,
            }),
            vec![p],
            ty,
        )
    }
    pub fn load_signed(&mut self, size: u8, p: ValueId) -> ValueId {
        self.op(OpKind::Load(MemTy { size, signed: true }), vec![p], Ty::I32)
    }
    pub fn store(&mut self, size: u8, p: ValueId, v: ValueId) {
        self.op0(
            OpKind::Store(MemTy {
                size,
                signed: false,
            }),
            vec![p, v],
        );
    }
    pub fn barrier(&mut self) {
        self.op0(
            OpKind::Barrier {
                local: true,
                global: false,
            },
            vec![],
        );
    }

    /// A structured `if`: each closure fills its arm and returns the values it yields.
    pub fn if_(
        &mut self,
        cond: ValueId,
        tys: &[Ty],
        then: impl FnOnce(&mut B) -> Vec<ValueId>,
        els: impl FnOnce(&mut B) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        let t = self.f.new_region(&[]);
        let e = self.f.new_region(&[]);
        self.stack.push(t);
        let ty = then(self);
        self.op0(OpKind::Yield, ty);
        self.stack.pop();
        self.stack.push(e);
        let ey = els(self);
        self.op0(OpKind::Yield, ey);
        self.stack.pop();
        let r = self.cur();
        let op = self
            .f
            .push_op(r, OpKind::If, vec![cond], tys, vec![t, e], Span::DUMMY);
        self.f.op(op).results.clone()
    }

    /// A structured loop: the closure gets the body's arguments and returns
    /// `(continue, next values)`.
    pub fn loop_(
        &mut self,
        inits: &[ValueId],
        body: impl FnOnce(&mut B, &[ValueId]) -> (ValueId, Vec<ValueId>),
    ) -> Vec<ValueId> {
        let tys: Vec<Ty> = inits.iter().map(|&v| self.ty(v)).collect();
        let r = self.f.new_region(&tys);
        let args = self.f.region(r).args.clone();
        self.stack.push(r);
        let (cont, next) = body(self, &args);
        let mut ops = vec![cont];
        ops.extend(next);
        self.op0(OpKind::LoopEnd, ops);
        self.stack.pop();
        let cur = self.cur();
        let op = self.f.push_op(
            cur,
            OpKind::Loop,
            inits.to_vec(),
            &tys,
            vec![r],
            Span::DUMMY,
        );
        self.f.op(op).results.clone()
    }

    /// `for (i = start; i < end; i += step)` as a guarded do-while loop; the closure gets
    /// `i` and the carried values and returns the next carried values; returns the final
    /// carried values.
    pub fn for_(
        &mut self,
        start: i32,
        end: ValueId,
        step: i32,
        carried: &[ValueId],
        body: impl FnOnce(&mut B, ValueId, &[ValueId]) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        let s = self.i32(start);
        let guard = self.cmp(CmpPred::Slt, s, end);
        let tys: Vec<Ty> = carried.iter().map(|&v| self.ty(v)).collect();
        let carried = carried.to_vec();
        self.if_(
            guard,
            &tys,
            |b| {
                let mut inits = vec![s];
                inits.extend(&carried);
                let res = b.loop_(&inits, |b, args| {
                    let next = body(b, args[0], &args[1..]);
                    let st = b.i32(step);
                    let i2 = b.add(args[0], st);
                    let c = b.cmp(CmpPred::Slt, i2, end);
                    let mut n = vec![i2];
                    n.extend(next);
                    (c, n)
                });
                res[1..].to_vec()
            },
            |_| carried.clone(),
        )
    }

    pub fn finish(self) -> Function {
        self.f
    }

    pub fn module(self) -> Module {
        Module {
            kernels: vec![self.f],
            constants: Vec::new(),
        }
    }
}

/// Bytes of `f32`s.
pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
/// `f32`s of bytes.
pub fn bytes_f32(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
/// Bytes of `u32`s.
pub fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
/// `u32`s of bytes.
pub fn bytes_u32(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
