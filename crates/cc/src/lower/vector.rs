//! OpenCL C 1.2 vector types (§6.1.2, §6.1.6, §6.1.7, §6.2, §6.3), scalarized: the IR has
//! no vector type, so a vector value is one SSA value per element (its *lanes*, in order,
//! each held as a scalar of the element type is held: `char` lanes sign-extended in an
//! `i32`, and so on).
//!
//! - A vector variable whose address is not taken is one SSA variable per element
//!   ([`Storage::Lanes`]): `if`s and loops merge and carry the elements like any scalar.
//! - A vector in memory (address-taken variables, struct members, array elements, what a
//!   pointer points to) is its elements one after the other; a 3-element vector occupies
//!   the size of 4 (the fourth element is padding: never read, never written). Whole
//!   vectors are loaded and stored element by element.
//! - Component access (`.x`, `.s3`, `.hi`, `.wzyx`) selects lanes; as an lvalue it is a
//!   [`Place::Lanes`] over a variable, memory, or (not assignable) an rvalue's lanes.
//! - Operators work lane by lane in the element type (no integer promotion: `uchar4`
//!   arithmetic wraps modulo 256); a scalar operand is converted to the element type and
//!   replicated (§6.2.6); comparisons and logical operators give -1/0 in the signed integer
//!   vector of the element's size; `?:` with a vector condition selects per lane on the
//!   condition's most significant bit.

use super::convert::Conv;
use super::place::{LaneBase, Swizzle};
use super::types::{storage_lanes, Elem, IntKind, QualType, Type};
use super::{Lowerer, Place, Storage, VarId, LV, RV};
use crate::ast::{BinaryOp, Designator, Expr, Initializer, UnaryOp};
use crate::ir::{BinOp, CastOp, CmpPred, Ty, UnOp, ValueId};
use crate::source::Span;

/// Why a component name is invalid (clang's diagnostics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SwizzleError {
    /// A character that is no component name here.
    Illegal(char),
    /// A component past the end of the vector.
    Exceeds,
    /// A number of components that is no vector width.
    Length(usize),
}

/// The element indices that component name `name` selects from an `n`-element vector
/// (OpenCL C 1.2 §6.1.7): `xyzw`, `s0`-`sF` (either case), `lo hi even odd` (a 3-element
/// vector counting as 4 for these, its fourth element undefined).
pub(crate) fn parse_swizzle(name: &str, n: u8) -> Result<Swizzle, SwizzleError> {
    let padded = storage_lanes(n) as u8;
    let half = padded / 2;
    let indices: Vec<u8> = match name {
        "lo" => (0..half).collect(),
        "hi" => (half..padded).collect(),
        "even" => (0..half).map(|k| 2 * k).collect(),
        "odd" => (0..half).map(|k| 2 * k + 1).collect(),
        _ => {
            let mut chars = name.chars();
            let numeric = matches!(chars.next(), Some('s' | 'S')) && name.len() > 1;
            let mut out = Vec::new();
            if numeric {
                for c in chars {
                    match c.to_digit(16) {
                        Some(d) => out.push(d as u8),
                        None => return Err(SwizzleError::Illegal(c)),
                    }
                }
            } else {
                for c in name.chars() {
                    let d = match c {
                        'x' => 0,
                        'y' => 1,
                        'z' => 2,
                        'w' => 3,
                        _ => return Err(SwizzleError::Illegal(c)),
                    };
                    out.push(d);
                }
            }
            if out.iter().any(|&i| i >= n) {
                return Err(SwizzleError::Exceeds);
            }
            out
        }
    };
    if !matches!(indices.len(), 1 | 2 | 3 | 4 | 8 | 16) {
        return Err(SwizzleError::Length(indices.len()));
    }
    Ok(Swizzle::new(&indices))
}

/// The type of `len` elements of `elem`: the scalar for one.
pub(crate) fn lanes_type(elem: Elem, len: usize) -> Type {
    if len == 1 {
        elem.ty()
    } else {
        Type::Vector(elem, len as u8)
    }
}

/// Whether scalar type `s` may be converted to vector element `e` implicitly in an
/// operator (OpenCL C 1.2 §6.2.6: no scalar of greater rank than the element; clang's
/// ordering: floats above integers, wider above narrower, unsigned above signed).
fn scalar_fits_element(s: &Type, e: Elem) -> bool {
    match (s, e) {
        (Type::Bool, _) => true,
        (Type::Int(_), Elem::Float(_)) => true,
        (Type::Float(a), Elem::Float(b)) => *a <= b,
        (Type::Float(_), Elem::Int(_)) => false,
        (Type::Int(a), Elem::Int(b)) => {
            if a.bits() != b.bits() {
                a.bits() < b.bits()
            } else {
                !a.signed() <= !b.signed()
            }
        }
        _ => false,
    }
}

impl<'a> Lowerer<'a> {
    // ---- variables ----

    /// A new SSA variable: a vector gets one SSA variable per element after it.
    pub(crate) fn new_ssa_var(&mut self, name: &str, ty: QualType) -> VarId {
        let Some((elem, n)) = ty.ty.vector() else {
            return self.new_var(name, ty, Storage::Ssa, false);
        };
        let v = self.new_var(name, ty.clone(), Storage::Lanes, false);
        for k in 0..n {
            let lane = QualType::new(elem.ty(), ty.q);
            self.new_var(&format!("{name}.s{k:x}"), lane, Storage::Ssa, false);
        }
        v
    }

    /// The element variables of a vector variable held in SSA variables (else none).
    pub(crate) fn var_lanes(&self, v: VarId) -> Vec<VarId> {
        let var = self.var(v);
        match (var.storage, var.ty.ty.vector()) {
            (Storage::Lanes, Some((_, n))) => (1..=u32::from(n)).map(|k| VarId(v.0 + k)).collect(),
            _ => Vec::new(),
        }
    }

    // ---- memory ----

    /// Load the `n` elements of a vector at `ptr`.
    pub(crate) fn load_vector(
        &mut self,
        ptr: ValueId,
        elem: Elem,
        n: u8,
        span: Span,
    ) -> Vec<ValueId> {
        (0..u64::from(n))
            .map(|k| {
                let p = self.ptr_offset(ptr, k * elem.size(), span);
                self.load(p, &elem.ty(), span)
            })
            .collect()
    }

    /// Store `lanes` as consecutive elements at `ptr`.
    pub(crate) fn store_vector(&mut self, ptr: ValueId, elem: Elem, lanes: &[ValueId], span: Span) {
        for (k, &v) in lanes.iter().enumerate() {
            let p = self.ptr_offset(ptr, k as u64 * elem.size(), span);
            self.store(p, v, &elem.ty(), span);
        }
    }

    // ---- values ----

    pub(crate) fn undef_lanes(&mut self, elem: Elem, n: usize, span: Span) -> Vec<ValueId> {
        (0..n).map(|_| self.undef(elem.ir(), span)).collect()
    }

    /// Scalar `v` of type `from` converted to `elem` and replicated `n` times.
    pub(crate) fn splat(
        &mut self,
        v: ValueId,
        from: &Type,
        elem: Elem,
        n: usize,
        span: Span,
    ) -> Vec<ValueId> {
        let x = self.conv(v, from, &elem.ty(), span);
        vec![x; n]
    }

    /// `rv` as a value of vector type `to` by the rules of assignment (OpenCL C 1.2
    /// §6.2.1): a vector of the same type as is, an arithmetic scalar converted to the
    /// element type and replicated; anything else is an error.
    pub(crate) fn implicit_vector(
        &mut self,
        rv: RV,
        to: &Type,
        e: &Expr,
        ctx: Conv,
    ) -> Vec<ValueId> {
        let span = e.span;
        let (elem, n) = to.vector().expect("a vector type");
        if rv.ty.is_error() {
            return self.undef_lanes(elem, n.into(), span);
        }
        if rv.ty.is_vector() {
            if super::types::same_type(&rv.ty, to) {
                return rv.lanes;
            }
        } else if rv.ty.is_arith() {
            let v = self.implicit(rv, &elem.ty(), e, ctx);
            return vec![v; n.into()];
        }
        let (t, f) = (self.show_ty(to), self.show_ty(&rv.ty));
        self.error_in(span, e.expansion, ctx.incompatible(&t, &f));
        self.undef_lanes(elem, n.into(), span)
    }

    /// `rv` converted to `to` as by assignment, for any type: scalars by
    /// [`Lowerer::implicit`], vectors by [`Lowerer::implicit_vector`].
    pub(crate) fn implicit_rv(&mut self, rv: RV, to: &Type, e: &Expr, ctx: Conv) -> RV {
        if to.is_vector() {
            let lanes = self.implicit_vector(rv, to, e, ctx);
            return RV::vector(to.clone(), lanes);
        }
        let v = self.implicit(rv, to, e, ctx);
        RV::val(to.clone(), v)
    }

    /// A placeholder vector value.
    pub(crate) fn undef_vector(&mut self, ty: &Type, span: Span) -> RV {
        let (elem, n) = ty.vector().expect("a vector type");
        let lanes = self.undef_lanes(elem, n.into(), span);
        RV::vector(ty.clone(), lanes)
    }

    // ---- lvalues ----

    /// The lanes of a vector variable.
    fn read_var_lanes(&mut self, v: VarId, span: Span) -> Vec<ValueId> {
        self.var_lanes(v)
            .into_iter()
            .map(|l| self.read_var(l, span))
            .collect()
    }

    /// Read the lanes `swz` selects from `base` (elements of type `elem`). The fourth
    /// element of a 3-element vector (`.hi`, `.odd`) is undefined.
    pub(crate) fn read_lanes(
        &mut self,
        base: &LaneBase,
        swz: Swizzle,
        elem: Elem,
        span: Span,
    ) -> Vec<ValueId> {
        swz.indices()
            .iter()
            .map(|&i| match base {
                LaneBase::Var(v) => match self.var_lanes(*v).get(i as usize) {
                    Some(&l) => self.read_var(l, span),
                    None => self.undef(elem.ir(), span),
                },
                LaneBase::Mem(p, n) => {
                    if i >= *n {
                        return self.undef(elem.ir(), span);
                    }
                    let q = self.ptr_offset(*p, u64::from(i) * elem.size(), span);
                    self.load(q, &elem.ty(), span)
                }
                LaneBase::Value(vals) => match vals.get(i as usize) {
                    Some(&x) => x,
                    None => self.undef(elem.ir(), span),
                },
            })
            .collect()
    }

    /// Write `values` to the lanes `swz` selects (the padding element of a 3-element
    /// vector is not written).
    pub(crate) fn write_lanes(
        &mut self,
        base: &LaneBase,
        swz: Swizzle,
        elem: Elem,
        values: &[ValueId],
        span: Span,
    ) {
        for (&i, &x) in swz.indices().iter().zip(values) {
            match base {
                LaneBase::Var(v) => {
                    if let Some(&l) = self.var_lanes(*v).get(i as usize) {
                        self.write_var(l, x);
                    }
                }
                LaneBase::Mem(p, n) => {
                    if i < *n {
                        let q = self.ptr_offset(*p, u64::from(i) * elem.size(), span);
                        self.store(q, x, &elem.ty(), span);
                    }
                }
                LaneBase::Value(_) => {}
            }
        }
    }

    /// Read an lvalue of vector type or a component access.
    pub(crate) fn read_vector_lv(&mut self, lv: &LV, span: Span) -> RV {
        let ty = lv.ty.ty.clone();
        match &lv.place {
            Place::Var(v) => {
                let lanes = self.read_var_lanes(*v, span);
                RV::vector(ty, lanes)
            }
            Place::Mem(p) => {
                let (elem, n) = ty.vector().expect("a vector type");
                let lanes = self.load_vector(*p, elem, n, span);
                RV::vector(ty, lanes)
            }
            Place::Lanes(base, swz) => {
                let elem = Elem::of(&ty)
                    .or_else(|| ty.vector().map(|(e, _)| e))
                    .expect("an element type");
                let lanes = self.read_lanes(base, *swz, elem, span);
                if ty.is_vector() {
                    RV::vector(ty, lanes)
                } else {
                    RV::val(ty, lanes[0])
                }
            }
            Place::DynLane(base, swz, idx) => {
                let Some(elem) = Elem::of(&ty) else {
                    return RV::error();
                };
                let lanes = self.read_lanes(base, *swz, elem, span);
                let v = self.pick_lane(&lanes, *idx, span);
                RV::val(ty, v)
            }
            Place::Error => RV::error(),
        }
    }

    /// Lane `idx` (a run-time index) of `lanes`: a chain of selects (an index out of range
    /// gives lane 0).
    fn pick_lane(&mut self, lanes: &[ValueId], idx: ValueId, span: Span) -> ValueId {
        let w = self.vty(idx);
        let mut r = lanes[0];
        for (k, &x) in lanes.iter().enumerate().skip(1) {
            let kc = self.konst(w, k as u64, span);
            let is = self.cmp(CmpPred::Eq, idx, kc, span);
            r = self.select(is, x, r, span);
        }
        r
    }

    /// Write `v` to lane `idx` (a run-time index) of the lanes `swz` selects: every lane
    /// keeps its value unless it is the one.
    pub(crate) fn write_dyn_lane(
        &mut self,
        base: &LaneBase,
        swz: Swizzle,
        idx: ValueId,
        elem: Elem,
        v: ValueId,
        span: Span,
    ) {
        let old = self.read_lanes(base, swz, elem, span);
        let w = self.vty(idx);
        let new: Vec<ValueId> = old
            .iter()
            .enumerate()
            .map(|(k, &x)| {
                let kc = self.konst(w, k as u64, span);
                let is = self.cmp(CmpPred::Eq, idx, kc, span);
                self.select(is, v, x, span)
            })
            .collect();
        self.write_lanes(base, swz, elem, &new, span);
    }

    /// `v[i]` on a vector (clang accepts it in OpenCL C): a constant index selects a lane,
    /// a run-time one addresses the element in memory or selects among the lanes.
    pub(crate) fn vector_subscript(&mut self, base: LV, idx: RV, ie: &Expr, e: &Expr) -> LV {
        let span = e.span;
        let err = LV {
            place: Place::Error,
            ty: QualType::plain(Type::Error),
        };
        if idx.ty.is_error() || matches!(base.place, Place::Error) {
            return err;
        }
        if !idx.ty.is_integer() {
            self.error_in(ie.span, ie.expansion, "array subscript is not an integer");
            return err;
        }
        let (elem, n) = base.ty.ty.vector().expect("a vector type");
        let ty = QualType::new(elem.ty(), base.ty.q);
        let wide = if idx.ty.promoted().int_kind().is_some_and(|k| k.bits() == 64) {
            Type::ULONG
        } else {
            Type::UINT
        };
        let i = self.rv_to(idx, &wide, span);
        if let Some(c) = self.const_of(i) {
            if c >= u64::from(n) {
                let t = self.show_ty(&base.ty.ty);
                self.warning(
                    ie.span,
                    format!("vector index {c} is past the end of '{t}' ({n} elements)"),
                );
            }
            let k = c.min(15) as u8;
            let swz = Swizzle::new(&[k]);
            let place = match base.place {
                Place::Var(v) => Place::Lanes(LaneBase::Var(v), swz),
                Place::Mem(p) => Place::Lanes(LaneBase::Mem(p, n), swz),
                Place::Lanes(b, inner) if usize::from(k) < inner.indices().len() => {
                    Place::Lanes(b, swz.of(inner))
                }
                Place::Lanes(b, _) => Place::Lanes(b, Swizzle::new(&[15])),
                _ => return err,
            };
            return LV { place, ty };
        }
        let place = match base.place {
            Place::Mem(p) => {
                let ptr_ty = Type::pointer_to(QualType::new(
                    elem.ty(),
                    super::types::Quals::in_space(self.space_of_value(p)),
                ));
                match self.ptr_add(RV::val(ptr_ty, p), RV::val(wide, i), false, span) {
                    Some(q) => Place::Mem(q),
                    None => return err,
                }
            }
            Place::Var(v) => Place::DynLane(LaneBase::Var(v), Swizzle::identity(n.into()), i),
            Place::Lanes(b, swz) => Place::DynLane(b, swz, i),
            _ => return err,
        };
        LV { place, ty }
    }

    /// Store an rvalue already of the lvalue's type into it (scalars, vectors and
    /// component accesses).
    pub(crate) fn write_rv(&mut self, lv: &LV, rv: &RV, span: Span) {
        if let Some(v) = rv.v.filter(|_| !lv.ty.ty.is_vector()) {
            return self.write_lv(lv, v, span);
        }
        if rv.lanes.is_empty() {
            return;
        }
        match &lv.place {
            Place::Var(v) => {
                for (l, &x) in self.var_lanes(*v).into_iter().zip(&rv.lanes) {
                    self.write_var(l, x);
                }
            }
            Place::Mem(p) => {
                if let Some((elem, _)) = lv.ty.ty.vector() {
                    self.store_vector(*p, elem, &rv.lanes, span);
                }
            }
            Place::Lanes(base, swz) => {
                if let Some((elem, _)) = lv.ty.ty.vector() {
                    self.write_lanes(base, *swz, elem, &rv.lanes, span);
                }
            }
            Place::DynLane(..) | Place::Error => {}
        }
    }

    /// `base.name` for a vector `base`: the lvalue of the components selected.
    pub(crate) fn component_access(&mut self, base: LV, name: &str, e: &Expr) -> LV {
        let err = LV {
            place: Place::Error,
            ty: QualType::plain(Type::Error),
        };
        let (elem, n) = base.ty.ty.vector().expect("a vector type");
        let swz = match parse_swizzle(name, n) {
            Ok(s) => s,
            Err(err_kind) => {
                let msg = match err_kind {
                    SwizzleError::Illegal(c) => format!("illegal vector component name '{c}'"),
                    SwizzleError::Exceeds => {
                        let t = self.show_ty(&base.ty.ty);
                        format!("vector component access exceeds type '{t}'")
                    }
                    SwizzleError::Length(len) => format!(
                        "vector component access has invalid length {len}.  Supported: 1,2,3,4,8,16."
                    ),
                };
                self.error_in(e.span, e.expansion, msg);
                return err;
            }
        };
        let ty = QualType::new(lanes_type(elem, swz.indices().len()), base.ty.q);
        let place = match base.place {
            Place::Var(v) => Place::Lanes(LaneBase::Var(v), swz),
            Place::Mem(p) => Place::Lanes(LaneBase::Mem(p, n), swz),
            Place::Lanes(b, inner) => Place::Lanes(b, swz.of(inner)),
            Place::DynLane(..) | Place::Error => return err,
        };
        LV { place, ty }
    }

    /// The lvalue of a vector rvalue's components (not assignable).
    pub(crate) fn rvalue_lanes(rv: RV) -> LV {
        let n = rv.lanes.len();
        LV {
            place: Place::Lanes(LaneBase::Value(rv.lanes.into()), Swizzle::identity(n)),
            ty: QualType::plain(rv.ty),
        }
    }

    /// Why a component access cannot be assigned, if it cannot.
    pub(crate) fn lanes_not_assignable(place: &Place) -> Option<&'static str> {
        match place {
            Place::Lanes(LaneBase::Value(_), _) | Place::DynLane(LaneBase::Value(_), _, _) => {
                Some("expression is not assignable")
            }
            Place::Lanes(_, swz) if swz.has_duplicates() => {
                Some("vector is not assignable (contains duplicate components)")
            }
            _ => None,
        }
    }

    // ---- operands ----

    /// The vector type of an operation on operands of types `a` and `b`, at least one a
    /// vector (OpenCL C 1.2 §6.2.6, clang's diagnostics); `None` after an error.
    pub(crate) fn vector_operand_type(&mut self, a: &Type, b: &Type, e: &Expr) -> Option<Type> {
        if a.is_error() || b.is_error() {
            return None;
        }
        if super::types::same_type(a, b) {
            return Some(a.clone());
        }
        let (x, y) = (self.show_ty(a), self.show_ty(b));
        let msg = match (a.vector(), b.vector()) {
            (Some(_), Some(_)) => {
                format!(
                    "implicit conversions between vector types ('{x}' and '{y}') are not permitted"
                )
            }
            (Some((elem, _)), None) | (None, Some((elem, _))) => {
                let (vector, scalar) = if a.is_vector() { (a, b) } else { (b, a) };
                if !scalar.is_arith() {
                    format!("cannot convert between vector and non-scalar values ('{x}' and '{y}')")
                } else if scalar_fits_element(scalar, elem) {
                    return Some(vector.clone());
                } else {
                    format!("scalar operand type has greater rank than the type of the vector element. ('{x}' and '{y}')")
                }
            }
            (None, None) => return None,
        };
        self.error_in(e.span, e.expansion, msg);
        None
    }

    /// The lanes of operand `rv` in vector type `ty` (a scalar converted and replicated).
    pub(crate) fn operand_lanes(&mut self, rv: RV, ty: &Type, span: Span) -> Vec<ValueId> {
        let (elem, n) = ty.vector().expect("a vector type");
        if rv.ty.is_vector() {
            return rv.lanes;
        }
        match rv.v {
            Some(v) if rv.ty.is_arith() => self.splat(v, &rv.ty, elem, n.into(), span),
            _ => self.undef_lanes(elem, n.into(), span),
        }
    }

    // ---- operators ----

    /// One lane of an arithmetic, bitwise or shift operator in element type `elem`
    /// (integers wrap to the element's width).
    pub(crate) fn lane_binop(
        &mut self,
        op: BinaryOp,
        elem: Elem,
        a: ValueId,
        b: ValueId,
        span: Span,
    ) -> ValueId {
        let k = match elem {
            Elem::Float(_) => {
                let bop = match op {
                    BinaryOp::Add => BinOp::FAdd,
                    BinaryOp::Sub => BinOp::FSub,
                    BinaryOp::Mul => BinOp::FMul,
                    _ => BinOp::FDiv,
                };
                return self.bin(bop, a, b, span);
            }
            Elem::Int(k) => k,
        };
        let signed = k.signed();
        let narrow_after = |s: &mut Self, x: ValueId| {
            if k.bits() < 32 {
                s.narrow(x, k, span)
            } else {
                x
            }
        };
        match op {
            BinaryOp::Shl | BinaryOp::Shr => {
                // The count is taken modulo the element's width (§6.3 j).
                let w = elem.ir();
                let mut n = b;
                match (self.vty(n), w) {
                    (Ty::I64, Ty::I32) => n = self.cast(CastOp::Trunc, n, Ty::I32, span),
                    (Ty::I32, Ty::I64) => n = self.cast(CastOp::ZExt, n, Ty::I64, span),
                    _ => {}
                }
                if k.bits() < 32 {
                    let mask = self.konst(Ty::I32, u64::from(k.bits() - 1), span);
                    n = self.bin(BinOp::And, n, mask, span);
                }
                if op == BinaryOp::Shl {
                    let x = self.bin(BinOp::Shl, a, n, span);
                    narrow_after(self, x)
                } else if signed {
                    self.bin(BinOp::AShr, a, n, span)
                } else {
                    self.bin(BinOp::LShr, a, n, span)
                }
            }
            BinaryOp::BitAnd => self.bin(BinOp::And, a, b, span),
            BinaryOp::BitOr => self.bin(BinOp::Or, a, b, span),
            BinaryOp::BitXor => self.bin(BinOp::Xor, a, b, span),
            _ => {
                let bop = match (op, signed) {
                    (BinaryOp::Add, _) => BinOp::Add,
                    (BinaryOp::Sub, _) => BinOp::Sub,
                    (BinaryOp::Mul, _) => BinOp::Mul,
                    (BinaryOp::Div, true) => BinOp::SDiv,
                    (BinaryOp::Div, false) => BinOp::UDiv,
                    (_, true) => BinOp::SRem,
                    (_, false) => BinOp::URem,
                };
                let x = self.bin(bop, a, b, span);
                narrow_after(self, x)
            }
        }
    }

    /// Arithmetic, bitwise and shift operators with a vector operand.
    pub(crate) fn vector_arith(&mut self, op: BinaryOp, a: RV, b: RV, e: &Expr) -> RV {
        let span = e.span;
        let invalid = |s: &mut Self, a: &Type, b: &Type| {
            let (x, y) = (s.show_ty(a), s.show_ty(b));
            s.error_in(
                span,
                e.expansion,
                format!("invalid operands to binary expression ('{x}' and '{y}')"),
            );
            RV::error()
        };
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            return self.vector_shift(op, a, b, e);
        }
        let Some(ty) = self.vector_operand_type(&a.ty, &b.ty, e) else {
            return RV::error();
        };
        let (elem, _) = ty.vector().expect("a vector type");
        let ints_only = matches!(
            op,
            BinaryOp::Rem | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor
        );
        let valid = matches!(
            op,
            BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
        );
        if !valid || (ints_only && elem.is_float()) {
            return invalid(self, &a.ty, &b.ty);
        }
        let la = self.operand_lanes(a, &ty, span);
        let lb = self.operand_lanes(b, &ty, span);
        let lanes = la
            .iter()
            .zip(&lb)
            .map(|(&x, &y)| self.lane_binop(op, elem, x, y, span))
            .collect();
        RV::vector(ty, lanes)
    }

    /// `<<` and `>>` with a vector operand: the left operand must be a vector; the count
    /// may be a scalar (replicated) or a vector of as many integer elements of any type.
    fn vector_shift(&mut self, op: BinaryOp, a: RV, b: RV, e: &Expr) -> RV {
        let span = e.span;
        let (x, y) = (self.show_ty(&a.ty), self.show_ty(&b.ty));
        let Some((elem, n)) = a.ty.vector() else {
            self.error_in(
                span,
                e.expansion,
                format!("requested shift is a vector of type '{y}' but the first operand is not a vector ('{x}')"),
            );
            return RV::error();
        };
        let count_int = match (&b.ty, b.ty.vector()) {
            (_, Some((ce, _))) => !ce.is_float(),
            (t, None) => t.is_integer(),
        };
        if elem.is_float() || !count_int {
            self.error_in(
                span,
                e.expansion,
                format!("invalid operands to binary expression ('{x}' and '{y}')"),
            );
            return RV::error();
        }
        let counts = match b.ty.vector() {
            Some((_, m)) if m != n => {
                self.error_in(
                    span,
                    e.expansion,
                    format!(
                        "vector operands do not have the same number of elements ('{x}' and '{y}')"
                    ),
                );
                return RV::error();
            }
            Some(_) => b.lanes,
            None => {
                let c = self.rv_to(b.clone(), &b.ty.promoted(), span);
                vec![c; n.into()]
            }
        };
        let lanes = a
            .lanes
            .iter()
            .zip(&counts)
            .map(|(&x, &c)| self.lane_binop(op, elem, x, c, span))
            .collect();
        RV::vector(a.ty, lanes)
    }

    /// A truth value as a lane of a comparison's result: -1 (true) or 0 in `res`.
    pub(crate) fn mask_lane(&mut self, c: ValueId, res: Elem, span: Span) -> ValueId {
        self.cast(CastOp::SExt, c, res.ir(), span)
    }

    /// `==`, `<`, ... with a vector operand: -1/0 per lane in the signed integer vector of
    /// the element's size.
    pub(crate) fn vector_compare(&mut self, op: BinaryOp, a: RV, b: RV, e: &Expr) -> RV {
        let span = e.span;
        let Some(ty) = self.vector_operand_type(&a.ty, &b.ty, e) else {
            return RV::error();
        };
        let (elem, n) = ty.vector().expect("a vector type");
        let (ps, pu, pf) = match op {
            BinaryOp::Lt => (CmpPred::Slt, CmpPred::Ult, CmpPred::FOlt),
            BinaryOp::Gt => (CmpPred::Sgt, CmpPred::Ugt, CmpPred::FOgt),
            BinaryOp::Le => (CmpPred::Sle, CmpPred::Ule, CmpPred::FOle),
            BinaryOp::Ge => (CmpPred::Sge, CmpPred::Uge, CmpPred::FOge),
            BinaryOp::Eq => (CmpPred::Eq, CmpPred::Eq, CmpPred::FOeq),
            _ => (CmpPred::Ne, CmpPred::Ne, CmpPred::FUne),
        };
        let pred = if elem.is_float() {
            pf
        } else if elem.is_signed() {
            ps
        } else {
            pu
        };
        let res = elem.signed_int();
        let la = self.operand_lanes(a, &ty, span);
        let lb = self.operand_lanes(b, &ty, span);
        let lanes = la
            .iter()
            .zip(&lb)
            .map(|(&x, &y)| {
                let c = self.cmp(pred, x, y, span);
                self.mask_lane(c, res, span)
            })
            .collect();
        RV::vector(Type::Vector(res, n), lanes)
    }

    /// `&&` and `||` with a vector operand: both operands evaluated, -1/0 per lane.
    pub(crate) fn vector_logical(&mut self, and: bool, a: RV, b: RV, e: &Expr) -> RV {
        let span = e.span;
        let Some(ty) = self.vector_operand_type(&a.ty, &b.ty, e) else {
            return RV::error();
        };
        let (elem, n) = ty.vector().expect("a vector type");
        let res = elem.signed_int();
        let la = self.operand_lanes(a, &ty, span);
        let lb = self.operand_lanes(b, &ty, span);
        let lanes = la
            .iter()
            .zip(&lb)
            .map(|(&x, &y)| {
                let tx = self.truth_of(x, &elem.ty(), span);
                let ty = self.truth_of(y, &elem.ty(), span);
                let op = if and { BinOp::And } else { BinOp::Or };
                let c = self.bin(op, tx, ty, span);
                self.mask_lane(c, res, span)
            })
            .collect();
        RV::vector(Type::Vector(res, n), lanes)
    }

    /// `+v`, `-v`, `~v`, `!v` on a vector (no promotion; `!` gives -1/0 per lane).
    pub(crate) fn vector_unary(&mut self, op: UnaryOp, rv: RV, e: &Expr) -> RV {
        let span = e.span;
        let (elem, n) = rv.ty.vector().expect("a vector type");
        if op == UnaryOp::BitNot && elem.is_float() {
            let t = self.show_ty(&rv.ty);
            self.error_in(
                span,
                e.expansion,
                format!("invalid argument type '{t}' to unary expression"),
            );
            return RV::error();
        }
        let lanes: Vec<ValueId> = rv
            .lanes
            .iter()
            .map(|&x| match (op, elem) {
                (UnaryOp::Minus, Elem::Float(_)) => self.un(UnOp::FNeg, x, span),
                (UnaryOp::Minus, Elem::Int(k)) => {
                    let r = self.un(UnOp::Neg, x, span);
                    if k.bits() < 32 {
                        self.narrow(r, k, span)
                    } else {
                        r
                    }
                }
                (UnaryOp::BitNot, Elem::Int(k)) => {
                    let r = self.un(UnOp::Not, x, span);
                    if k.bits() < 32 && !k.signed() {
                        self.narrow(r, k, span)
                    } else {
                        r
                    }
                }
                (UnaryOp::Not, _) => {
                    let t = self.truth_of(x, &elem.ty(), span);
                    let c = self.not(t, span);
                    self.mask_lane(c, elem.signed_int(), span)
                }
                _ => x,
            })
            .collect();
        let ty = if op == UnaryOp::Not {
            Type::Vector(elem.signed_int(), n)
        } else {
            rv.ty
        };
        RV::vector(ty, lanes)
    }

    /// `v + 1` or `v - 1` for `++`/`--` on a vector.
    pub(crate) fn vector_step(&mut self, rv: &RV, inc: bool, span: Span) -> Vec<ValueId> {
        let (elem, _) = rv.ty.vector().expect("a vector type");
        let one_int = self.konst(Ty::I32, 1, span);
        let one = self.conv(one_int, &Type::INT, &elem.ty(), span);
        let op = if inc { BinaryOp::Add } else { BinaryOp::Sub };
        rv.lanes
            .iter()
            .map(|&x| self.lane_binop(op, elem, x, one, span))
            .collect()
    }

    /// Whether the most significant bit of a lane of `elem` is set (`select`, `any`,
    /// `all`, `?:` with a vector condition).
    pub(crate) fn lane_msb(&mut self, elem: Elem, x: ValueId, span: Span) -> ValueId {
        let x = match elem {
            Elem::Float(_) => {
                let it = if elem.size() == 8 { Ty::I64 } else { Ty::I32 };
                if elem.size() == 2 {
                    // No 16-bit integer register: the sign of a half is its sign bit.
                    let f = self.cast(CastOp::FExt, x, Ty::F32, span);
                    self.cast(CastOp::Bitcast, f, Ty::I32, span)
                } else {
                    self.cast(CastOp::Bitcast, x, it, span)
                }
            }
            Elem::Int(k) if k.bits() < 32 && !k.signed() => {
                let sign = self.konst(Ty::I32, 1 << (k.bits() - 1), span);
                let bit = self.bin(BinOp::And, x, sign, span);
                let zero = self.konst(Ty::I32, 0, span);
                return self.cmp(CmpPred::Ne, bit, zero, span);
            }
            Elem::Int(_) => x,
        };
        let ty = self.vty(x);
        let zero = self.konst(ty, 0, span);
        self.cmp(CmpPred::Slt, x, zero, span)
    }

    /// `c ? x : y` with a vector condition: both operands evaluated, each lane chosen by
    /// the condition lane's most significant bit (§6.3 i, like `select(y, x, c)`).
    pub(crate) fn vector_conditional(
        &mut self,
        c: RV,
        then: &Expr,
        otherwise: &Expr,
        e: &Expr,
    ) -> RV {
        let span = e.span;
        let (celem, cn) = c.ty.vector().expect("a vector condition");
        let a = self.expr(then);
        let b = self.expr(otherwise);
        if a.ty.is_error() || b.ty.is_error() {
            return RV::error();
        }
        if celem.is_float() {
            let t = self.show_ty(&c.ty);
            self.error_in(
                span,
                e.expansion,
                format!("used type '{t}' where floating point type is not allowed"),
            );
            return RV::error();
        }
        let ty = if a.ty.is_vector() || b.ty.is_vector() {
            match self.vector_operand_type(&a.ty, &b.ty, e) {
                Some(t) => t,
                None => return RV::error(),
            }
        } else {
            for t in [&a.ty, &b.ty] {
                if !t.is_arith() {
                    let t = self.show_ty(t);
                    self.error_in(
                        span,
                        e.expansion,
                        format!("used type '{t}' where integer or floating point type is required"),
                    );
                    return RV::error();
                }
            }
            let common = super::arith::usual_arith(&a.ty, &b.ty);
            let elem = Elem::of(&common).expect("arithmetic");
            Type::Vector(elem, cn)
        };
        let (elem, n) = ty.vector().expect("a vector type");
        let (ct, rt) = (self.show_ty(&c.ty), self.show_ty(&ty));
        if n != cn {
            self.error_in(
                span,
                e.expansion,
                format!("vector condition type '{ct}' and result type '{rt}' do not have the same number of elements"),
            );
            return RV::error();
        }
        if elem.size() != celem.size() {
            self.error_in(
                span,
                e.expansion,
                format!("vector condition type '{ct}' and result type '{rt}' do not have elements of the same size"),
            );
            return RV::error();
        }
        let la = self.operand_lanes(a, &ty, span);
        let lb = self.operand_lanes(b, &ty, span);
        let lanes = (0..usize::from(n))
            .map(|k| {
                let m = self.lane_msb(celem, c.lanes[k], span);
                self.select(m, la[k], lb[k], span)
            })
            .collect();
        RV::vector(ty, lanes)
    }

    /// An explicit cast to or from a vector type: a scalar is converted to the element
    /// type and replicated; a vector casts only to its own type (§6.2.2).
    pub(crate) fn vector_cast(&mut self, rv: RV, to: &Type, x: &Expr, span: Span) -> RV {
        if rv.ty.is_error() || to.is_error() {
            return RV::error();
        }
        let (t, f) = (self.show_ty(to), self.show_ty(&rv.ty));
        match (to.vector(), rv.ty.vector()) {
            (Some(_), Some(_)) => {
                if super::types::same_type(&rv.ty, to) {
                    return rv;
                }
                self.error_in(
                    span,
                    x.expansion,
                    format!("invalid conversion between ext-vector type '{t}' and '{f}'"),
                );
            }
            (Some((elem, n)), None) => {
                if let (Some(v), true) = (rv.v, rv.ty.is_arith()) {
                    let lanes = self.splat(v, &rv.ty, elem, n.into(), span);
                    return RV::vector(to.clone(), lanes);
                }
                self.error_in(
                    span,
                    x.expansion,
                    format!("invalid conversion between vector type '{t}' and scalar type '{f}'"),
                );
            }
            (None, _) => {
                self.error_in(
                    span,
                    x.expansion,
                    format!("invalid conversion between vector type '{f}' and scalar type '{t}'"),
                );
            }
        }
        RV::error()
    }

    // ---- literals ----

    /// A vector literal `(float4)(a, b, ...)` (§6.1.6): scalars converted to the element
    /// type, vectors of the same element type contributing their elements, exactly as
    /// many elements as the type has; a single scalar is replicated. With braces
    /// (`(float4){1, 2}`), C's initializer-list rules: missing elements are zero.
    pub(crate) fn vector_literal(
        &mut self,
        ty: &Type,
        init: &Initializer,
        span: Span,
    ) -> Vec<ValueId> {
        let (elem, n) = ty.vector().expect("a vector type");
        let n = usize::from(n);
        let (items, list_span) = match init {
            Initializer::List { items, span } => (items.as_slice(), *span),
            Initializer::Expr(x) => {
                let rv = self.expr(x);
                return self.implicit_vector(rv, ty, x, Conv::Init);
            }
        };
        let braced = self.sources.snippet(list_span).starts_with('{');
        let mut lanes = Vec::new();
        let mut scalars = 0;
        for (des, item) in items {
            let x = match (des.first(), item) {
                (None, Initializer::Expr(x)) => x,
                (Some(Designator::Field(_, s)), _) => {
                    let t = self.show_ty(ty);
                    self.error(
                        *s,
                        format!(
                            "field designator cannot initialize a non-struct, non-union type '{t}'"
                        ),
                    );
                    continue;
                }
                (Some(Designator::Index(x)), _) => {
                    self.unsupported(x.span, "designator in a vector initializer");
                    continue;
                }
                (None, Initializer::List { span, .. }) => {
                    self.error(*span, "vector initializer cannot be a nested list");
                    continue;
                }
            };
            let rv = self.expr(x);
            match rv.ty.vector() {
                Some((ie, m)) => {
                    if ie != elem {
                        let want = Type::Vector(elem, m);
                        let (t, f) = (self.show_ty(&want), self.show_ty(&rv.ty));
                        self.error_in(x.span, x.expansion, Conv::init_incompatible(&t, &f));
                        lanes.extend(self.undef_lanes(elem, m.into(), x.span));
                    } else {
                        lanes.extend(rv.lanes);
                    }
                }
                None => {
                    scalars += 1;
                    let v = self.implicit(rv, &elem.ty(), x, Conv::Init);
                    lanes.push(v);
                }
            }
        }
        if !braced && items.len() == 1 && scalars == 1 {
            return vec![lanes[0]; n];
        }
        if braced {
            if lanes.len() > n {
                self.warning(list_span, "excess elements in vector initializer");
                lanes.truncate(n);
            }
            while lanes.len() < n {
                let z = self.konst(elem.ir(), 0, span);
                lanes.push(z);
            }
            return lanes;
        }
        if lanes.len() != n {
            let which = if lanes.len() < n {
                "too few"
            } else {
                "too many"
            };
            self.error(
                list_span,
                format!(
                    "{which} elements in vector initialization (expected {n} elements, have {})",
                    lanes.len()
                ),
            );
            lanes.resize_with(n, || self.undef(elem.ir(), span));
            lanes.truncate(n);
        }
        lanes
    }
}

/// The element type and width a vector type name spells (`uchar4` → `uchar`, 4), for the
/// names of `convert_`, `as_` and `vload` built-ins.
pub(crate) fn vector_type_named(name: &str) -> Option<(Elem, u8)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (elem, width) = name.split_at(name.len() - digits);
    let n = match width {
        "2" => 2,
        "3" => 3,
        "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => return None,
    };
    let elem = match elem {
        "char" => Elem::Int(IntKind::Char),
        "uchar" => Elem::Int(IntKind::UChar),
        "short" => Elem::Int(IntKind::Short),
        "ushort" => Elem::Int(IntKind::UShort),
        "int" => Elem::Int(IntKind::Int),
        "uint" => Elem::Int(IntKind::UInt),
        "long" => Elem::Int(IntKind::Long),
        "ulong" => Elem::Int(IntKind::ULong),
        "half" => Elem::Float(super::types::FloatKind::Half),
        "float" => Elem::Float(super::types::FloatKind::Float),
        "double" => Elem::Float(super::types::FloatKind::Double),
        _ => return None,
    };
    Some((elem, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_names() {
        let ix = |s: &str, n| parse_swizzle(s, n).map(|s| s.indices().to_vec());
        assert_eq!(ix("x", 2), Ok(vec![0]));
        assert_eq!(ix("wzyx", 4), Ok(vec![3, 2, 1, 0]));
        assert_eq!(ix("s01Fab", 16), Err(SwizzleError::Length(5)));
        assert_eq!(ix("s01Fa", 16), Ok(vec![0, 1, 15, 10]));
        assert_eq!(ix("S0aF", 16), Ok(vec![0, 10, 15]));
        assert_eq!(ix("sf", 16), Ok(vec![15]));
        assert_eq!(ix("z", 2), Err(SwizzleError::Exceeds));
        assert_eq!(ix("s3", 3), Err(SwizzleError::Exceeds));
        assert_eq!(ix("hi", 3), Ok(vec![2, 3]));
        assert_eq!(ix("odd", 8), Ok(vec![1, 3, 5, 7]));
        assert_eq!(ix("lo", 2), Ok(vec![0]));
        assert_eq!(ix("xq", 4), Err(SwizzleError::Illegal('q')));
        assert_eq!(ix("xs0", 4), Err(SwizzleError::Illegal('s')));
        assert_eq!(ix("s0x", 4), Err(SwizzleError::Illegal('x')));
        let inner = Swizzle::new(&[3, 1, 2]);
        assert_eq!(Swizzle::new(&[2, 0]).of(inner).indices(), [2, 3]);
        assert!(Swizzle::new(&[0, 1, 0]).has_duplicates());
    }

    #[test]
    fn scalar_rank_against_elements() {
        use super::super::types::FloatKind;
        let f = Elem::Float(FloatKind::Float);
        assert!(scalar_fits_element(&Type::FLOAT, f));
        assert!(scalar_fits_element(&Type::INT, f));
        assert!(!scalar_fits_element(&Type::DOUBLE, f));
        assert!(scalar_fits_element(&Type::INT, Elem::Int(IntKind::UInt)));
        assert!(!scalar_fits_element(&Type::UINT, Elem::Int(IntKind::Int)));
        assert!(!scalar_fits_element(&Type::INT, Elem::Int(IntKind::UChar)));
        assert!(!scalar_fits_element(&Type::FLOAT, Elem::Int(IntKind::Long)));
    }
}
