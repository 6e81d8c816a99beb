//! Conversions between C types on IR values (C99 6.3), the implicit conversions of
//! assignment (6.5.16.1) with clang's diagnostics, and memory access of scalars and
//! aggregates.

use super::types::{FloatKind, IntKind, Type};
use super::{Lowerer, RV};
use crate::ast::Expr;
use crate::ir::{BinOp, CastOp, CmpPred, MemTy, OpKind, Space, Ty, ValueId};
use crate::source::Span;

/// Where an implicit conversion happens, for the wording of messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Conv {
    Assign,
    Init,
    Pass,
    Return,
}

impl Conv {
    /// clang's sentence for an incompatible conversion from `from` to `to`.
    pub(crate) fn incompatible(self, to: &str, from: &str) -> String {
        match self {
            Conv::Assign => format!("assigning to '{to}' from incompatible type '{from}'"),
            Conv::Init => {
                format!("initializing '{to}' with an expression of incompatible type '{from}'")
            }
            Conv::Pass => format!("passing '{from}' to parameter of incompatible type '{to}'"),
            Conv::Return => {
                format!("returning '{from}' from a function with incompatible result type '{to}'")
            }
        }
    }

    /// The middle of clang's "incompatible integer to pointer conversion ..." messages.
    fn phrase(self, to: &str, from: &str) -> String {
        match self {
            Conv::Assign => format!("assigning to '{to}' from '{from}'"),
            Conv::Init => format!("initializing '{to}' with an expression of type '{from}'"),
            Conv::Pass => format!("passing '{from}' to parameter of type '{to}'"),
            Conv::Return => format!("returning '{from}' from a function with result type '{to}'"),
        }
    }

    fn space_change(self, to: &str, from: &str) -> String {
        match self {
            Conv::Assign => format!("assigning '{from}' to '{to}' changes address space of pointer"),
            Conv::Init => format!(
                "initializing '{to}' with an expression of type '{from}' changes address space of pointer"
            ),
            Conv::Pass => {
                format!("passing '{from}' to parameter of type '{to}' changes address space of pointer")
            }
            Conv::Return => format!(
                "returning '{from}' from a function with result type '{to}' changes address space of pointer"
            ),
        }
    }
}

impl<'a> Lowerer<'a> {
    /// Convert scalar value `v` of C type `from` to C type `to` (an explicit cast's
    /// semantics; implicit conversions check legality first).
    pub(crate) fn conv(&mut self, v: ValueId, from: &Type, to: &Type, span: Span) -> ValueId {
        use Type as T;
        if super::types::same_type(from, to) {
            return v;
        }
        let Some(to_ir) = to.ir() else {
            return v;
        };
        match (from, to) {
            (_, T::Bool) => self.truth_of(v, from, span),
            (T::Bool, T::Int(_)) => self.cast(CastOp::ZExt, v, to_ir, span),
            (T::Bool, T::Float(_)) => {
                let i = self.cast(CastOp::ZExt, v, Ty::I32, span);
                self.cast(CastOp::UIToF, i, to_ir, span)
            }
            (T::Int(a), T::Int(b)) => self.int_to_int(v, *a, *b, span),
            (T::Int(a), T::Float(_)) => {
                let op = if a.signed() {
                    CastOp::SIToF
                } else {
                    CastOp::UIToF
                };
                self.cast(op, v, to_ir, span)
            }
            (T::Float(_), T::Int(b)) => {
                let wide = if b.bits() == 64 { Ty::I64 } else { Ty::I32 };
                let op = if b.signed() {
                    CastOp::FToSI
                } else {
                    CastOp::FToUI
                };
                let x = self.cast(op, v, wide, span);
                self.narrow(x, *b, span)
            }
            (T::Float(a), T::Float(b)) => {
                let op = if b > a { CastOp::FExt } else { CastOp::FTrunc };
                self.cast(op, v, to_ir, span)
            }
            (T::Pointer(_), T::Int(b)) => {
                let from_ir = self.vty(v);
                let int = from_ir.int_of_width();
                let x = self.cast(CastOp::Bitcast, v, int, span);
                let src = if int == Ty::I64 {
                    IntKind::ULong
                } else {
                    IntKind::UInt
                };
                self.int_to_int(x, src, *b, span)
            }
            (T::Int(_) | T::Bool, T::Pointer(p)) => {
                let space = p.q.space();
                let (int, kind) = if space.pointer_bits() == 64 {
                    (Ty::I64, IntKind::ULong)
                } else {
                    (Ty::I32, IntKind::UInt)
                };
                let x = self.conv(v, from, &Type::Int(kind), span);
                let _ = int;
                self.cast(CastOp::Bitcast, x, to_ir, span)
            }
            (T::Pointer(a), T::Pointer(b)) => {
                if a.q.space() == b.q.space() {
                    v
                } else {
                    self.undef(to_ir, span)
                }
            }
            _ => {
                if self.vty(v) == to_ir {
                    v
                } else {
                    self.undef(to_ir, span)
                }
            }
        }
    }

    fn int_to_int(&mut self, v: ValueId, a: IntKind, b: IntKind, span: Span) -> ValueId {
        if b.bits() == 64 {
            if a.bits() == 64 {
                return v;
            }
            let op = if a.signed() {
                CastOp::SExt
            } else {
                CastOp::ZExt
            };
            return self.cast(op, v, Ty::I64, span);
        }
        let x = if a.bits() == 64 {
            self.cast(CastOp::Trunc, v, Ty::I32, span)
        } else {
            v
        };
        // The 32-bit value already holds every value of `a` extended per its sign: only a
        // narrowing to `b` that can change the value needs an operation.
        let fits = if a.bits() == 64 {
            false
        } else if a.signed() == b.signed() {
            a.bits() <= b.bits()
        } else {
            !a.signed() && a.bits() < b.bits()
        };
        if fits || b.bits() == 32 {
            return x;
        }
        self.narrow(x, b, span)
    }

    /// Bring a 32-bit value into the range of an 8- or 16-bit type (wrapping).
    pub(crate) fn narrow(&mut self, x: ValueId, b: IntKind, span: Span) -> ValueId {
        let op = match (b.bits(), b.signed()) {
            (8, true) => CastOp::SExt8,
            (8, false) => CastOp::ZExt8,
            (16, true) => CastOp::SExt16,
            (16, false) => CastOp::ZExt16,
            _ => return x,
        };
        self.cast(op, x, Ty::I32, span)
    }

    /// C's truth value of a scalar (`!= 0`) as an `I1`.
    pub(crate) fn truth_of(&mut self, v: ValueId, from: &Type, span: Span) -> ValueId {
        let ty = self.vty(v);
        if ty == Ty::I1 {
            return v;
        }
        // `x != 0` of a zero-extended truth value is the truth value.
        if let Some(op) = self.f.def_op(v) {
            let op = self.f.op(op);
            if op.kind == OpKind::Cast(CastOp::ZExt) && self.vty(op.operands[0]) == Ty::I1 {
                return op.operands[0];
            }
        }
        match from {
            Type::Float(_) => {
                let zero = self.konst(ty, 0, span);
                self.cmp(CmpPred::FUne, v, zero, span)
            }
            Type::Pointer(_) => {
                let int = self.cast(CastOp::Bitcast, v, ty.int_of_width(), span);
                let zero = self.konst(ty.int_of_width(), 0, span);
                self.cmp(CmpPred::Ne, int, zero, span)
            }
            _ => {
                let zero = self.konst(ty, 0, span);
                self.cmp(CmpPred::Ne, v, zero, span)
            }
        }
    }

    /// The truth value of an rvalue, reporting a non-scalar.
    pub(crate) fn truth(&mut self, rv: RV, span: Span) -> ValueId {
        match (rv.v, &rv.ty) {
            (Some(v), t) if t.is_scalar() => self.truth_of(v, t, span),
            (_, Type::Error) => self.undef(Ty::I1, span),
            (_, t) => {
                let t = self.show_ty(t);
                self.error(
                    span,
                    format!("statement requires expression of scalar type ('{t}' invalid)"),
                );
                self.undef(Ty::I1, span)
            }
        }
    }

    /// An rvalue as a value of scalar type `to` (an explicit conversion; errors give undef).
    pub(crate) fn rv_to(&mut self, rv: RV, to: &Type, span: Span) -> ValueId {
        let ir = to.ir().unwrap_or(Ty::I32);
        match rv.v {
            Some(v) if rv.ty.is_scalar() && to.is_scalar() => self.conv(v, &rv.ty, to, span),
            _ => self.undef(ir, span),
        }
    }

    /// Whether `e` is a null pointer constant (an integer constant 0, possibly cast to a
    /// pointer type).
    pub(crate) fn is_null_constant(&mut self, e: &Expr) -> bool {
        matches!(self.eval(e), Some((c, t)) if c.0 == 0 && (t.is_integer() || t.is_pointer()))
    }

    /// `rv` (the value of expression `e`) converted to `to` as by assignment, with clang's
    /// diagnostics for what C does not allow.
    pub(crate) fn implicit(&mut self, rv: RV, to: &Type, e: &Expr, ctx: Conv) -> ValueId {
        let span = e.span;
        let ir = to.ir().unwrap_or(Ty::I32);
        if rv.ty.is_error() || to.is_error() {
            return match rv.v {
                Some(v) if self.vty(v) == ir => v,
                _ => self.undef(ir, span),
            };
        }
        let Some(v) = rv.v.filter(|_| rv.ty.is_scalar()) else {
            let (t, f) = (self.show_ty(to), self.show_ty(&rv.ty));
            self.error_in(span, e.expansion, ctx.incompatible(&t, &f));
            return self.undef(ir, span);
        };
        let from = &rv.ty;
        match (from, to) {
            (f, t) if f.is_arith() && t.is_arith() => {
                self.warn_constant_change(e, from, to);
                self.conv(v, from, to, span)
            }
            (Type::Pointer(_), Type::Bool) => self.conv(v, from, to, span),
            (_, Type::Pointer(tp)) => {
                if from.is_integer() {
                    if self.is_null_constant(e) {
                        return self.konst(ir, 0, span);
                    }
                    let (t, f) = (self.show_ty(to), self.show_ty(from));
                    self.error_in(
                        span,
                        e.expansion,
                        format!(
                            "incompatible integer to pointer conversion {}",
                            ctx.phrase(&t, &f)
                        ),
                    );
                    return self.undef(ir, span);
                }
                let Type::Pointer(fp) = from else {
                    let (t, f) = (self.show_ty(to), self.show_ty(from));
                    self.error_in(span, e.expansion, ctx.incompatible(&t, &f));
                    return self.undef(ir, span);
                };
                if fp.q.space() != tp.q.space() {
                    if self.is_null_constant(e) {
                        return self.konst(ir, 0, span);
                    }
                    let (t, f) = (self.show_ty(to), self.show_ty(from));
                    self.error_in(span, e.expansion, ctx.space_change(&t, &f));
                    return self.undef(ir, span);
                }
                let compatible =
                    fp.ty.is_void() || tp.ty.is_void() || super::types::same_type(&fp.ty, &tp.ty);
                let (t, f) = (self.show_ty(to), self.show_ty(from));
                if !compatible {
                    self.report(
                        crate::diag::Diagnostic::warning(
                            span,
                            format!("incompatible pointer types {}", ctx.phrase(&t, &f)),
                        )
                        .in_expansion(e.expansion),
                    );
                } else if (fp.q.is_const && !tp.q.is_const)
                    || (fp.q.is_volatile && !tp.q.is_volatile)
                {
                    self.report(
                        crate::diag::Diagnostic::warning(
                            span,
                            format!("{} discards qualifiers", ctx.phrase(&t, &f)),
                        )
                        .in_expansion(e.expansion),
                    );
                }
                v
            }
            (Type::Pointer(_), Type::Int(_)) => {
                let (t, f) = (self.show_ty(to), self.show_ty(from));
                self.error_in(
                    span,
                    e.expansion,
                    format!(
                        "incompatible pointer to integer conversion {}",
                        ctx.phrase(&t, &f)
                    ),
                );
                self.undef(ir, span)
            }
            _ => {
                let (t, f) = (self.show_ty(to), self.show_ty(from));
                self.error_in(span, e.expansion, ctx.incompatible(&t, &f));
                self.undef(ir, span)
            }
        }
    }

    /// Shorthand for [`Lowerer::implicit`] from declarations.
    pub(crate) fn assign_convert(&mut self, rv: RV, to: &Type, e: &Expr, what: &str) -> ValueId {
        let ctx = match what {
            "initializing" => Conv::Init,
            "passing" => Conv::Pass,
            "returning" => Conv::Return,
            _ => Conv::Assign,
        };
        self.implicit(rv, to, e, ctx)
    }

    /// clang's -Wconstant-conversion: an implicit conversion that changes a constant.
    fn warn_constant_change(&mut self, e: &Expr, from: &Type, to: &Type) {
        if self.mute > 0 || from == to {
            return;
        }
        let (Type::Int(_) | Type::Float(_), Type::Int(k)) = (from, to) else {
            return;
        };
        let Some((c, cty)) = self.eval(e) else {
            return;
        };
        let before = match &cty {
            Type::Int(kf) => kf.value(c.0).to_string(),
            Type::Float(fk) => {
                let v = match fk {
                    FloatKind::Double => f64::from_bits(c.0),
                    _ => {
                        let d = super::arith::float_to_float(*fk, FloatKind::Double, c.0);
                        f64::from_bits(d)
                    }
                };
                if v.fract() == 0.0 {
                    return;
                }
                let after = v.trunc();
                let f = self.show_ty(from);
                self.warning(
                    e.span,
                    format!(
                        "implicit conversion from '{f}' to '{}' changes value from {v} to {after}",
                        self.show_ty(to)
                    ),
                );
                return;
            }
            _ => return,
        };
        let Some(after) = self.cv_convert(c, &cty, to) else {
            return;
        };
        let after = k.value(after.0).to_string();
        if before != after {
            let f = self.show_ty(from);
            self.warning(
                e.span,
                format!(
                    "implicit conversion from '{f}' to '{}' changes value from {before} to {after}",
                    self.show_ty(to)
                ),
            );
        }
    }

    // ---- memory ----

    /// `ptr + bytes`.
    pub(crate) fn ptr_offset(&mut self, ptr: ValueId, bytes: u64, span: Span) -> ValueId {
        if bytes == 0 {
            return ptr;
        }
        let ty = self.vty(ptr);
        let off = self.konst(ty.int_of_width(), bytes, span);
        self.emit(OpKind::PtrAdd, vec![ptr, off], ty, span)
    }

    /// Load a scalar of C type `ty`.
    pub(crate) fn load(&mut self, ptr: ValueId, ty: &Type, span: Span) -> ValueId {
        let Some(mem) = ty.mem() else {
            return self.undef(Ty::I32, span);
        };
        match ty {
            Type::Bool => {
                let x = self.emit(OpKind::Load(mem), vec![ptr], Ty::I32, span);
                let zero = self.konst(Ty::I32, 0, span);
                self.cmp(CmpPred::Ne, x, zero, span)
            }
            Type::Pointer(p) => {
                let ir = Ty::Ptr(p.q.space());
                let x = self.emit(OpKind::Load(mem), vec![ptr], ir.int_of_width(), span);
                self.emit(OpKind::Cast(CastOp::Bitcast), vec![x], ir, span)
            }
            _ => {
                let ir = ty.ir().unwrap_or(Ty::I32);
                self.emit(OpKind::Load(mem), vec![ptr], ir, span)
            }
        }
    }

    /// Store scalar `v` of C type `ty`.
    pub(crate) fn store(&mut self, ptr: ValueId, v: ValueId, ty: &Type, span: Span) {
        let Some(mut mem) = ty.mem() else {
            return;
        };
        mem.signed = false;
        let v = match self.vty(v) {
            Ty::I1 => self.cast(CastOp::ZExt, v, Ty::I32, span),
            Ty::Ptr(s) => self.cast(CastOp::Bitcast, v, Ty::Ptr(s).int_of_width(), span),
            _ => v,
        };
        self.emit0(OpKind::Store(mem), vec![ptr, v], span);
    }

    /// Copy `size` bytes (alignment `align`) from `src` to `dst`, in the widest aligned
    /// pieces; long copies are a loop.
    pub(crate) fn copy_mem(
        &mut self,
        dst: ValueId,
        src: ValueId,
        size: u64,
        align: u64,
        span: Span,
    ) {
        let chunk = align.clamp(1, 8);
        let n = size / chunk;
        let ty = if chunk == 8 { Ty::I64 } else { Ty::I32 };
        let mem = MemTy {
            size: chunk as u8,
            signed: false,
        };
        if n <= 16 {
            for k in 0..n {
                let s = self.ptr_offset(src, k * chunk, span);
                let d = self.ptr_offset(dst, k * chunk, span);
                let v = self.emit(OpKind::Load(mem), vec![s], ty, span);
                self.emit0(OpKind::Store(mem), vec![d, v], span);
            }
            return;
        }
        self.counted_loop(n, span, |s, i| {
            let sp = s.scaled_offset(src, i, chunk, span);
            let dp = s.scaled_offset(dst, i, chunk, span);
            let v = s.emit(OpKind::Load(mem), vec![sp], ty, span);
            s.emit0(OpKind::Store(mem), vec![dp, v], span);
        });
    }

    /// Zero `size` bytes at `dst`.
    pub(crate) fn zero_mem(&mut self, dst: ValueId, size: u64, align: u64, span: Span) {
        let chunk = align.clamp(1, 8);
        let n = size / chunk;
        let ty = if chunk == 8 { Ty::I64 } else { Ty::I32 };
        let mem = MemTy {
            size: chunk as u8,
            signed: false,
        };
        if n <= 16 {
            let zero = self.konst(ty, 0, span);
            for k in 0..n {
                let d = self.ptr_offset(dst, k * chunk, span);
                self.emit0(OpKind::Store(mem), vec![d, zero], span);
            }
            return;
        }
        self.counted_loop(n, span, |s, i| {
            let zero = s.konst(ty, 0, span);
            let dp = s.scaled_offset(dst, i, chunk, span);
            s.emit0(OpKind::Store(mem), vec![dp, zero], span);
        });
    }

    /// `ptr + i * scale` for an `I32` counter `i`.
    fn scaled_offset(&mut self, ptr: ValueId, i: ValueId, scale: u64, span: Span) -> ValueId {
        let pty = self.vty(ptr);
        let i = if pty.int_of_width() == Ty::I64 {
            self.cast(CastOp::ZExt, i, Ty::I64, span)
        } else {
            i
        };
        let k = self.konst(pty.int_of_width(), scale, span);
        let off = self.bin(BinOp::Mul, i, k, span);
        self.emit(OpKind::PtrAdd, vec![ptr, off], pty, span)
    }

    /// A loop running `body(i)` for `i` in `0..n` (`n` ≥ 1), outside the variable tracking.
    fn counted_loop(&mut self, n: u64, span: Span, body: impl FnOnce(&mut Self, ValueId)) {
        let init = self.konst(Ty::I32, 0, span);
        let region = self.f.new_region(&[Ty::I32]);
        let i = self.f.region(region).args[0];
        self.in_region(region, |s| {
            body(s, i);
            let one = s.konst(Ty::I32, 1, span);
            let next = s.bin(BinOp::Add, i, one, span);
            let limit = s.konst(Ty::I32, n, span);
            let more = s.cmp(CmpPred::Ult, next, limit, span);
            s.emit0(OpKind::LoopEnd, vec![more, next], span);
        });
        let span = self.sp(span);
        self.f.push_op(
            self.region,
            OpKind::Loop,
            vec![init],
            &[Ty::I32],
            vec![region],
            span,
        );
    }

    /// The address space the pointer value `v` points into.
    pub(crate) fn space_of_value(&self, v: ValueId) -> Space {
        match self.vty(v) {
            Ty::Ptr(s) => s,
            _ => Space::Private,
        }
    }
}
