//! Initializers (C99 6.7.8): brace elision, designators, string literals for character
//! arrays, zero-filling of what the list leaves out. One walk serves `__constant` objects
//! (bytes computed at compile time), private objects (stores) and the counting of the
//! elements of an array of unknown size.

use super::convert::Conv;
use super::types::{IntKind, Type};
use super::{Lowerer, RV};
use crate::ast::{Designator, Expr, ExprKind, Initializer};
use crate::ir::{MemTy, OpKind, Ty, ValueId};
use crate::source::Span;

/// Where initial values go.
pub(crate) enum Target<'t> {
    /// Compile-time bytes of a `__constant` object.
    Bytes(&'t mut [u8]),
    /// Stores relative to this address.
    Mem(ValueId),
    /// Nothing: only the number of array elements is wanted.
    Count,
}

fn is_char(t: &Type) -> bool {
    matches!(
        t,
        Type::Int(IntKind::Char | IntKind::SChar | IntKind::UChar)
    )
}

impl<'a> Lowerer<'a> {
    /// The length of an array of element type `elem` and unknown size from its initializer.
    pub(crate) fn init_array_len(&mut self, elem: &Type, init: &Initializer) -> u64 {
        match init {
            Initializer::Expr(Expr {
                kind: ExprKind::StrLit(s),
                ..
            }) if is_char(elem) => s.len() as u64 + 1,
            Initializer::List { items, .. } => {
                if let [(
                    d,
                    Initializer::Expr(Expr {
                        kind: ExprKind::StrLit(s),
                        ..
                    }),
                )] = items.as_slice()
                {
                    if d.is_empty() && is_char(elem) {
                        return s.len() as u64 + 1;
                    }
                }
                let ty = Type::Array(Box::new(super::types::QualType::plain(elem.clone())), None);
                let mut pos = 0;
                self.mute += 1;
                let n =
                    self.dead(|s| s.list_into(&ty, items, &mut pos, &mut Target::Count, 0, true));
                self.mute -= 1;
                n.max(1)
            }
            Initializer::Expr(_) => 1,
        }
    }

    /// The bytes of a `__constant` object of type `ty` initialized by `init`.
    pub(crate) fn const_init(&mut self, ty: &Type, init: &Initializer, bytes: &mut [u8], off: u64) {
        let mut t = Target::Bytes(bytes);
        self.init_into(ty, init, &mut t, off);
    }

    /// Initialize the private object at `base` (zero-filled first when the initializer
    /// may leave parts out).
    pub(crate) fn runtime_init(
        &mut self,
        ty: &Type,
        init: &Initializer,
        base: ValueId,
        span: Span,
    ) {
        let zero_first = match init {
            Initializer::List { .. } => true,
            Initializer::Expr(e) => matches!(e.kind, ExprKind::StrLit(_)),
        };
        if zero_first && (ty.is_aggregate() || ty.is_vector()) {
            let size = self.records.size(ty).unwrap_or(0);
            let align = self.records.align(ty);
            self.zero_mem(base, size, align, span);
        }
        let mut t = Target::Mem(base);
        self.init_into(ty, init, &mut t, 0);
    }

    fn init_into(&mut self, ty: &Type, init: &Initializer, t: &mut Target, off: u64) {
        match init {
            Initializer::List { items, span } => {
                if ty.is_vector() {
                    return self.vector_list_into(ty, init, t, off);
                }
                if !ty.is_aggregate() {
                    match items.first() {
                        Some((d, Initializer::Expr(e))) if d.is_empty() => {
                            if items.len() > 1 {
                                self.warning(
                                    items[1].1.span(),
                                    "excess elements in scalar initializer",
                                );
                            }
                            self.scalar_into(ty, e, t, off);
                        }
                        Some((_, i)) => {
                            let s = i.span();
                            self.error(
                                s,
                                "scalar initializer cannot be a nested list or designated",
                            );
                        }
                        None => {
                            // `{}`: zero, which a memory target already holds.
                            if let Target::Bytes(_) = t {
                            } else if ty.is_scalar() {
                                let z = self.konst(ty.ir().expect("scalar"), 0, *span);
                                self.put_scalar(ty, z, t, off, *span);
                            }
                        }
                    }
                    return;
                }
                let mut pos = 0;
                self.list_into(ty, items, &mut pos, t, off, true);
                if pos < items.len() {
                    let what = if ty.is_array() { "array" } else { "struct" };
                    self.warning(
                        items[pos].1.span(),
                        format!("excess elements in {what} initializer"),
                    );
                }
            }
            Initializer::Expr(e) => self.expr_into(ty, e, t, off),
        }
    }

    /// An aggregate or scalar initialized by a single expression.
    fn expr_into(&mut self, ty: &Type, e: &Expr, t: &mut Target, off: u64) {
        if ty.is_vector() {
            return self.vector_expr_into(ty, e, t, off);
        }
        if ty.is_scalar() || ty.is_error() {
            return self.scalar_into(ty, e, t, off);
        }
        if let (Type::Array(elem, n), ExprKind::StrLit(s)) = (ty, &e.kind) {
            if is_char(&elem.ty) {
                return self.string_into(*n, s, t, off, e.span);
            }
        }
        if let Type::Record(_) = ty {
            let et = self.type_of(e);
            if super::types::same_type(&et, ty) {
                return self.copy_into(ty, e, t, off);
            }
            if !et.is_error() {
                let (to, from) = (self.show_ty(ty), self.show_ty(&et));
                self.error_in(e.span, e.expansion, Conv::init_incompatible(&to, &from));
            }
            return;
        }
        self.error_in(
            e.span,
            e.expansion,
            "array initializer must be an initializer list",
        );
    }

    /// Initialize the members of aggregate `ty` from `items[*pos..]`: all of them for a
    /// braced list, as many as `ty` has for an elided one. Returns the number of array
    /// elements initialized (the highest index + 1).
    pub(crate) fn list_into(
        &mut self,
        ty: &Type,
        items: &[(Vec<Designator>, Initializer)],
        pos: &mut usize,
        t: &mut Target,
        off: u64,
        braced: bool,
    ) -> u64 {
        let limit = self.member_count(ty);
        let mut idx: u64 = 0;
        let mut count: u64 = 0;
        while *pos < items.len() {
            let (des, item) = &items[*pos];
            if !des.is_empty() {
                if !braced {
                    return count;
                }
                let Some(i) = self.designator_index(ty, &des[0]) else {
                    *pos += 1;
                    continue;
                };
                idx = i;
                if des.len() > 1 {
                    if let Some((mty, moff)) = self.member(ty, idx) {
                        self.designate(&mty, &des[1..], item, t, off + moff);
                    }
                    *pos += 1;
                    idx += 1;
                    count = count.max(idx);
                    continue;
                }
            } else if limit.is_some_and(|n| idx >= n) {
                if braced {
                    return count;
                }
                return count;
            }
            let Some((mty, moff)) = self.member(ty, idx) else {
                *pos += 1;
                idx += 1;
                continue;
            };
            match item {
                Initializer::List { .. } => {
                    self.init_into(&mty, item, t, off + moff);
                    *pos += 1;
                }
                Initializer::Expr(e) => {
                    if !mty.is_aggregate() && !mty.is_vector() {
                        self.scalar_into(&mty, e, t, off + moff);
                        *pos += 1;
                    } else if mty.is_vector() && self.vector_type_of(e).is_some() {
                        self.vector_expr_into(&mty, e, t, off + moff);
                        *pos += 1;
                    } else if matches!((&mty, &e.kind), (Type::Array(el, _), ExprKind::StrLit(_)) if is_char(&el.ty))
                    {
                        self.expr_into(&mty, e, t, off + moff);
                        *pos += 1;
                    } else if mty.is_record() && super::types::same_type(&self.type_of(e), &mty) {
                        self.copy_into(&mty, e, t, off + moff);
                        *pos += 1;
                    } else {
                        // Brace elision: the member takes as many items as it has members.
                        let before = *pos;
                        self.list_into(&mty, items, pos, t, off + moff, false);
                        if *pos == before {
                            *pos += 1;
                        }
                    }
                }
            }
            idx += 1;
            count = count.max(idx);
            // A union takes one initializer.
            if let Type::Record(id) = ty {
                if self.records.get(*id).is_union && !braced {
                    return count;
                }
                if self.records.get(*id).is_union
                    && braced
                    && *pos < items.len()
                    && items[*pos].0.is_empty()
                {
                    return count;
                }
            }
        }
        count
    }

    /// `.a.b[2] = item` below the first designator.
    fn designate(
        &mut self,
        ty: &Type,
        des: &[Designator],
        item: &Initializer,
        t: &mut Target,
        off: u64,
    ) {
        let Some((first, rest)) = des.split_first() else {
            return self.init_into(ty, item, t, off);
        };
        let Some(i) = self.designator_index(ty, first) else {
            return;
        };
        if let Some((mty, moff)) = self.member(ty, i) {
            self.designate(&mty, rest, item, t, off + moff);
        }
    }

    /// The member index a designator names in `ty`.
    fn designator_index(&mut self, ty: &Type, d: &Designator) -> Option<u64> {
        match (d, ty) {
            (Designator::Field(name, span), Type::Record(id)) => {
                let rec = self.records.get(*id);
                match rec
                    .fields
                    .iter()
                    .position(|f| f.name.as_deref() == Some(name))
                {
                    Some(i) => Some(i as u64),
                    None => {
                        let t = self.show_ty(ty);
                        self.error(*span, format!("field designator '{name}' does not refer to any field in type '{t}'"));
                        None
                    }
                }
            }
            (Designator::Index(e), Type::Array(_, n)) => {
                let v = self.ice(e)?;
                if v < 0 || n.is_some_and(|n| v as u64 >= n) {
                    self.error(e.span, "array designator index exceeds array bounds");
                    return None;
                }
                Some(v as u64)
            }
            (Designator::Field(_, span), _) => {
                let t = self.show_ty(ty);
                self.error(
                    *span,
                    format!(
                        "field designator cannot initialize a non-struct, non-union type '{t}'"
                    ),
                );
                None
            }
            (Designator::Index(e), _) => {
                let t = self.show_ty(ty);
                self.error(
                    e.span,
                    format!("array designator cannot initialize non-array type '{t}'"),
                );
                None
            }
        }
    }

    /// How many members an aggregate has (`None`: unbounded, an array of unknown size).
    fn member_count(&self, ty: &Type) -> Option<u64> {
        match ty {
            Type::Array(_, n) => *n,
            Type::Vector(_, n) => Some(u64::from(*n)),
            Type::Record(id) => {
                let r = self.records.get(*id);
                Some(if r.is_union {
                    r.fields.len().min(1) as u64
                } else {
                    r.fields.len() as u64
                })
            }
            _ => Some(1),
        }
    }

    /// Member `idx` of an aggregate: its type and offset.
    fn member(&self, ty: &Type, idx: u64) -> Option<(Type, u64)> {
        match ty {
            Type::Array(elem, n) => {
                if n.is_some_and(|n| idx >= n) {
                    return None;
                }
                let size = self.records.size(&elem.ty)?;
                Some((elem.ty.clone(), idx * size))
            }
            Type::Record(id) => {
                let f = self.records.get(*id).fields.get(idx as usize)?;
                Some((f.ty.ty.clone(), f.offset))
            }
            Type::Vector(elem, n) => (idx < u64::from(*n)).then(|| (elem.ty(), idx * elem.size())),
            _ => None,
        }
    }

    fn scalar_into(&mut self, ty: &Type, e: &Expr, t: &mut Target, off: u64) {
        match t {
            Target::Count => {}
            Target::Bytes(bytes) => {
                let Some((c, cty)) = self.eval(e) else {
                    let rv = self.expr(e);
                    if !rv.ty.is_error() {
                        self.error_in(
                            e.span,
                            e.expansion,
                            "initializer element is not a compile-time constant",
                        );
                    }
                    return;
                };
                if ty.is_pointer() {
                    if c.0 != 0 || !(cty.is_integer() || cty.is_pointer()) {
                        self.unsupported(e.span, "address constant in a '__constant' initializer");
                    }
                    return;
                }
                // Diagnose the conversion as for any initialization.
                self.dead(|s| {
                    let rv = s.expr(e);
                    s.implicit(rv, ty, e, Conv::Init);
                });
                let Some(v) = self.cv_convert(c, &cty, ty) else {
                    return;
                };
                let size = self.records.size(ty).unwrap_or(0) as usize;
                let start = off as usize;
                if let Some(dst) = bytes.get_mut(start..start + size) {
                    dst.copy_from_slice(&v.0.to_le_bytes()[..size]);
                }
            }
            Target::Mem(base) => {
                let base = *base;
                let rv = self.expr(e);
                let v = self.implicit(rv, ty, e, Conv::Init);
                let p = self.ptr_offset(base, off, e.span);
                self.store(p, v, ty, e.span);
            }
        }
    }

    fn put_scalar(&mut self, ty: &Type, v: ValueId, t: &mut Target, off: u64, span: Span) {
        if let Target::Mem(base) = t {
            let base = *base;
            let p = self.ptr_offset(base, off, span);
            self.store(p, v, ty, span);
        }
    }

    fn string_into(&mut self, n: Option<u64>, s: &[u8], t: &mut Target, off: u64, span: Span) {
        let n = n.unwrap_or(s.len() as u64 + 1);
        if s.len() as u64 > n {
            self.warning(span, "initializer-string for char array is too long");
        }
        let take = (s.len() as u64 + 1).min(n) as usize;
        let mut data = s.to_vec();
        data.push(0);
        data.truncate(take);
        match t {
            Target::Count => {}
            Target::Bytes(bytes) => {
                let start = off as usize;
                if let Some(dst) = bytes.get_mut(start..start + take) {
                    dst.copy_from_slice(&data);
                }
            }
            Target::Mem(base) => {
                let base = *base;
                for (k, b) in data.iter().enumerate() {
                    if *b == 0 {
                        continue; // the object was zero-filled
                    }
                    let p = self.ptr_offset(base, off + k as u64, span);
                    let v = self.konst(Ty::I32, u64::from(*b), span);
                    self.emit0(
                        OpKind::Store(MemTy {
                            size: 1,
                            signed: false,
                        }),
                        vec![p, v],
                        span,
                    );
                }
            }
        }
    }

    fn copy_into(&mut self, ty: &Type, e: &Expr, t: &mut Target, off: u64) {
        match t {
            Target::Count => {}
            Target::Bytes(_) => {
                self.error_in(
                    e.span,
                    e.expansion,
                    "initializer element is not a compile-time constant",
                );
            }
            Target::Mem(base) => {
                let base = *base;
                let rv: RV = self.expr(e);
                if let Some(src) = rv.v {
                    let size = self.records.size(ty).unwrap_or(0);
                    let align = self.records.align(ty);
                    let dst = self.ptr_offset(base, off, e.span);
                    self.copy_mem(dst, src, size, align, e.span);
                }
            }
        }
    }
}

impl<'a> Lowerer<'a> {
    /// A vector member or object initialized by an expression: a vector of its type, or a
    /// scalar replicated.
    fn vector_expr_into(&mut self, ty: &Type, e: &Expr, t: &mut Target, off: u64) {
        match t {
            Target::Count => {}
            Target::Bytes(bytes) => {
                let Some(lanes) = self.const_vector(e, ty) else {
                    let rv = self.dead(|s| {
                        let rv = s.expr(e);
                        s.implicit_rv(rv, ty, e, Conv::Init)
                    });
                    if !rv.ty.is_error() && !self.has_error_in(e) {
                        self.error_in(
                            e.span,
                            e.expansion,
                            "initializer element is not a compile-time constant",
                        );
                    }
                    return;
                };
                write_lanes(bytes, ty, &lanes, off);
            }
            Target::Mem(base) => {
                let base = *base;
                let rv = self.expr(e);
                let lanes = self.implicit_vector(rv, ty, e, Conv::Init);
                let (elem, _) = ty.vector().expect("a vector type");
                let p = self.ptr_offset(base, off, e.span);
                self.store_vector(p, elem, &lanes, e.span);
            }
        }
    }

    /// A vector member or object initialized by a braced list.
    fn vector_list_into(&mut self, ty: &Type, init: &Initializer, t: &mut Target, off: u64) {
        let span = init.span();
        match t {
            Target::Count => {}
            Target::Bytes(bytes) => match self.const_vector_init(ty, init) {
                Some(lanes) => write_lanes(bytes, ty, &lanes, off),
                None => {
                    self.dead(|s| s.vector_literal(ty, init, span));
                    self.error(span, "initializer element is not a compile-time constant");
                }
            },
            Target::Mem(base) => {
                let base = *base;
                let lanes = self.vector_literal(ty, init, span);
                let (elem, _) = ty.vector().expect("a vector type");
                let p = self.ptr_offset(base, off, span);
                self.store_vector(p, elem, &lanes, span);
            }
        }
    }

    /// Whether lowering `e` reports an error (so that no second message is added).
    fn has_error_in(&mut self, e: &Expr) -> bool {
        self.type_of(e).is_error()
    }

    /// The element bits of a constant vector of type `ty` that `e` denotes (a vector
    /// literal of constants, or a constant scalar replicated), if it is one.
    pub(crate) fn const_vector(&mut self, e: &Expr, ty: &Type) -> Option<Vec<u64>> {
        let (elem, n) = ty.vector()?;
        match &e.kind {
            ExprKind::CompoundLiteral(tn, init) => {
                let lt = self.type_name(tn).ty;
                if !super::types::same_type(&lt, ty) {
                    return None;
                }
                let Initializer::List { items, span } = &**init else {
                    return None;
                };
                let braced = self.sources.snippet(*span).starts_with('{');
                if !braced && items.len() == 1 {
                    if let (d, Initializer::Expr(x)) = &items[0] {
                        let (c, ct) = self.eval(x).filter(|_| d.is_empty())?;
                        let v = self.cv_convert(c, &ct, &elem.ty())?;
                        return Some(vec![v.0; n.into()]);
                    }
                }
                let lanes = self.const_lanes(elem, items)?;
                if lanes.len() > usize::from(n) || (!braced && lanes.len() != usize::from(n)) {
                    return None;
                }
                let mut lanes = lanes;
                lanes.resize(n.into(), 0);
                Some(lanes)
            }
            ExprKind::Cast(tn, x) => {
                let ct = self.type_name(tn).ty;
                if !super::types::same_type(&ct, ty) {
                    return None;
                }
                let (c, st) = self.eval(x)?;
                let v = self.cv_convert(c, &st, &elem.ty())?;
                Some(vec![v.0; n.into()])
            }
            _ => {
                let (c, st) = self.eval(e)?;
                let v = self.cv_convert(c, &st, &elem.ty())?;
                Some(vec![v.0; n.into()])
            }
        }
    }

    /// The constant elements of a list of scalars and vectors of element type `elem`.
    fn const_lanes(
        &mut self,
        elem: super::types::Elem,
        items: &[(Vec<Designator>, Initializer)],
    ) -> Option<Vec<u64>> {
        let mut lanes = Vec::new();
        for (d, item) in items {
            let Initializer::Expr(x) = item else {
                return None;
            };
            if !d.is_empty() {
                return None;
            }
            if let Some(xt) = self.vector_type_of(x) {
                let (xe, _) = xt.vector()?;
                if xe != elem {
                    return None;
                }
                lanes.extend(self.const_vector(x, &xt)?);
            } else {
                let (c, ct) = self.eval(x)?;
                lanes.push(self.cv_convert(c, &ct, &elem.ty())?.0);
            }
        }
        Some(lanes)
    }

    /// The constant elements of a braced vector initializer.
    fn const_vector_init(&mut self, ty: &Type, init: &Initializer) -> Option<Vec<u64>> {
        let (elem, n) = ty.vector()?;
        match init {
            Initializer::Expr(e) => self.const_vector(e, ty),
            Initializer::List { items, .. } => {
                let mut lanes = self.const_lanes(elem, items)?;
                lanes.truncate(n.into());
                lanes.resize(n.into(), 0);
                Some(lanes)
            }
        }
    }
}

/// Store constant elements into the bytes of a `__constant` object.
fn write_lanes(bytes: &mut [u8], ty: &Type, lanes: &[u64], off: u64) {
    let Some((elem, _)) = ty.vector() else {
        return;
    };
    let size = elem.size() as usize;
    for (k, v) in lanes.iter().enumerate() {
        let start = off as usize + k * size;
        if let Some(dst) = bytes.get_mut(start..start + size) {
            dst.copy_from_slice(&v.to_le_bytes()[..size]);
        }
    }
}

impl Conv {
    pub(crate) fn init_incompatible(to: &str, from: &str) -> String {
        format!("initializing '{to}' with an expression of incompatible type '{from}'")
    }
}
