//! Expressions: C99's typing and conversions, lvalues, pointer arithmetic, short-circuit
//! operators and `?:` as `If`s with results, and floating-point contraction. Operands of
//! vector type are handed to `vector.rs` (component access, element-wise operators).

use super::arith::{int_lit_type, usual_arith};
use super::convert::Conv;
use super::types::{FloatKind, IntKind, QualType, Quals, Type};
use super::{floatlit, Lowerer, Place, Storage, Sym, LV, RV};
use crate::ast::{BinaryOp, Expr, ExprKind, FloatSuffix, UnaryOp};
use crate::ir::{BinOp, CastOp, CmpPred, OpKind, Space, Ty, UnOp, ValueId};
use crate::source::Span;

impl<'a> Lowerer<'a> {
    /// The value of `e` (lvalues read, arrays decayed to pointers).
    pub(crate) fn expr(&mut self, e: &Expr) -> RV {
        let span = e.span;
        match &e.kind {
            ExprKind::Ident(name) => match self.lookup(name) {
                Some(Sym::Global(g)) if self.globals[g].ty.ty.is_arith() => {
                    // `__constant` scalars never change: their value is a constant.
                    let ty = self.globals[g].ty.ty.clone();
                    match self.eval(e) {
                        Some((c, _)) => {
                            let v = self.konst(ty.ir().expect("scalar"), c.0, span);
                            RV::val(ty, v)
                        }
                        None => {
                            let lv = self.lvalue(e).expect("a variable is an lvalue");
                            self.read_lv(&lv, span)
                        }
                    }
                }
                Some(Sym::Var(_) | Sym::Global(_)) => {
                    let lv = self.lvalue(e).expect("a variable is an lvalue");
                    self.read_lv(&lv, span)
                }
                Some(Sym::EnumConst(v)) => {
                    let c = self.konst(Ty::I32, v as u64, span);
                    RV::val(Type::INT, c)
                }
                Some(Sym::Func(_)) => {
                    self.unsupported(
                        span,
                        format_args!("function pointer (use of function '{name}' as a value)"),
                    );
                    RV::error()
                }
                Some(Sym::Typedef(_)) => {
                    self.error_in(
                        span,
                        e.expansion,
                        format!("unexpected type name '{name}': expected expression"),
                    );
                    RV::error()
                }
                None => {
                    self.error_in(
                        span,
                        e.expansion,
                        format!("use of undeclared identifier '{name}'"),
                    );
                    RV::error()
                }
            },
            ExprKind::IntLit {
                value,
                suffix,
                decimal,
            } => match int_lit_type(*value, *suffix, *decimal) {
                Some((k, forced)) => {
                    if forced {
                        self.warning(
                            span,
                            "integer literal is too large to be represented in a signed integer type, interpreting as unsigned",
                        );
                    }
                    let ty = Type::Int(k);
                    let c = self.konst(ty.ir().expect("scalar"), k.wrap(*value as u64), span);
                    RV::val(ty, c)
                }
                None => {
                    self.error_in(
                        span,
                        e.expansion,
                        "integer literal is too large to be represented in any integer type",
                    );
                    RV::error()
                }
            },
            ExprKind::FloatLit { text, suffix } => {
                let kind = match suffix {
                    FloatSuffix::None => FloatKind::Double,
                    FloatSuffix::F => FloatKind::Float,
                    FloatSuffix::H => FloatKind::Half,
                    FloatSuffix::L => {
                        self.unsupported(span, "type 'long double'");
                        return RV::error();
                    }
                };
                match floatlit::parse(text, kind) {
                    Some((bits, overflow)) => {
                        if overflow {
                            let max = match kind {
                                FloatKind::Half => "6.5504E+4",
                                FloatKind::Float => "3.40282347E+38",
                                FloatKind::Double => "1.7976931348623157E+308",
                            };
                            self.warning(
                                span,
                                format!(
                                    "magnitude of floating-point constant too large for type '{}'; maximum is {max}",
                                    kind.name()
                                ),
                            );
                        }
                        let c = self.konst(kind.ty(), bits, span);
                        RV::val(Type::Float(kind), c)
                    }
                    None => {
                        self.error_in(
                            span,
                            e.expansion,
                            format!("invalid floating constant '{text}'"),
                        );
                        RV::error()
                    }
                }
            }
            ExprKind::CharLit(v) => {
                let c = self.konst(Ty::I32, IntKind::Int.wrap(*v as u64), span);
                RV::val(Type::INT, c)
            }
            ExprKind::StrLit(_)
            | ExprKind::Index(..)
            | ExprKind::Member { .. }
            | ExprKind::CompoundLiteral(..)
            | ExprKind::Unary(UnaryOp::Deref, _) => match self.lvalue(e) {
                Some(lv) => self.read_lv(&lv, span),
                None => RV::error(),
            },
            ExprKind::Unary(op, x) => self.unary(*op, x, e),
            ExprKind::Binary(op, l, r) => self.binary_expr(*op, l, r, e),
            ExprKind::Assign { op, lhs, rhs } => self.assign(*op, lhs, rhs, e),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => self.conditional(cond, then, otherwise, e),
            ExprKind::Comma(l, r) => {
                self.expr(l);
                self.expr(r)
            }
            ExprKind::Call { callee, args } => self.call(callee, args, e),
            ExprKind::Cast(tn, x) => {
                let to = self.type_name(tn);
                let rv = self.expr(x);
                self.cast_rv(rv, &to.ty, x, span)
            }
            ExprKind::SizeofExpr(x) => {
                let t = self.type_of_object(x);
                self.sizeof_value(&t, span, "sizeof")
            }
            ExprKind::SizeofType(tn) => {
                let t = self.type_name(tn).ty;
                self.sizeof_value(&t, span, "sizeof")
            }
            ExprKind::AlignofType(tn) => {
                let t = self.type_name(tn).ty;
                self.sizeof_value(&t, span, "alignof")
            }
            ExprKind::TypeArg(_) => {
                self.error_in(
                    span,
                    e.expansion,
                    "unexpected type name: expected expression",
                );
                RV::error()
            }
        }
    }

    fn sizeof_value(&mut self, t: &Type, span: Span, what: &str) -> RV {
        let v = if what == "alignof" {
            Some(self.records.align(t))
        } else {
            self.records.size(t)
        };
        match v {
            Some(n) if !matches!(t, Type::Void | Type::Function(_)) => {
                let c = self.konst(Ty::I64, n, span);
                RV::val(Type::ULONG, c)
            }
            _ => {
                let shown = self.show_ty(t);
                if !t.is_error() {
                    let msg = if matches!(t, Type::Function(_)) {
                        format!("invalid application of '{what}' to a function type")
                    } else {
                        format!("invalid application of '{what}' to an incomplete type '{shown}'")
                    };
                    self.error(span, msg);
                }
                let c = self.konst(Ty::I64, 1, span);
                RV::val(Type::ULONG, c)
            }
        }
    }

    /// The type of `e`'s value, without emitting anything or reporting.
    pub(crate) fn type_of(&mut self, e: &Expr) -> Type {
        self.mute += 1;
        self.typing += 1;
        let t = self.dead(|s| s.expr(e).ty);
        self.typing -= 1;
        self.mute -= 1;
        t
    }

    /// The type of the object `e` designates (arrays not decayed), for `sizeof`.
    pub(crate) fn type_of_object(&mut self, e: &Expr) -> Type {
        self.mute += 1;
        self.typing += 1;
        let t = self.dead(|s| {
            let lvalue_kind = matches!(
                e.kind,
                ExprKind::Ident(_)
                    | ExprKind::StrLit(_)
                    | ExprKind::Index(..)
                    | ExprKind::Member { .. }
                    | ExprKind::CompoundLiteral(..)
                    | ExprKind::Unary(UnaryOp::Deref, _)
            );
            let is_var = match &e.kind {
                ExprKind::Ident(n) => matches!(s.lookup(n), Some(Sym::Var(_) | Sym::Global(_))),
                _ => true,
            };
            if lvalue_kind && is_var {
                if let Some(lv) = s.lvalue(e) {
                    return lv.ty.ty;
                }
            }
            s.expr(e).ty
        });
        self.typing -= 1;
        self.mute -= 1;
        t
    }

    // ---- lvalues ----

    /// The object `e` designates; `None` when `e` is not an lvalue (nothing reported).
    pub(crate) fn lvalue(&mut self, e: &Expr) -> Option<LV> {
        let span = e.span;
        let err = LV {
            place: Place::Error,
            ty: QualType::plain(Type::Error),
        };
        match &e.kind {
            ExprKind::Ident(name) => match self.lookup(name) {
                Some(Sym::Var(v)) => {
                    let var = self.var(v);
                    let ty = var.ty.clone();
                    match var.storage {
                        Storage::Ssa | Storage::Lanes => Some(LV {
                            place: Place::Var(v),
                            ty,
                        }),
                        _ => {
                            let p = self.var_addr(v, span)?;
                            Some(LV {
                                place: Place::Mem(p),
                                ty,
                            })
                        }
                    }
                }
                Some(Sym::Global(g)) => {
                    let ty = self.globals[g].ty.clone();
                    let p = self.global_addr(g, span);
                    Some(LV {
                        place: Place::Mem(p),
                        ty,
                    })
                }
                None => {
                    self.error_in(
                        span,
                        e.expansion,
                        format!("use of undeclared identifier '{name}'"),
                    );
                    Some(err)
                }
                _ => None,
            },
            ExprKind::Unary(UnaryOp::Deref, x) => {
                let rv = self.expr(x);
                match (&rv.ty, rv.v) {
                    (Type::Pointer(p), Some(v)) => {
                        if matches!(p.ty, Type::Function(_)) {
                            self.unsupported(span, "function pointer");
                            return Some(err);
                        }
                        Some(LV {
                            place: Place::Mem(v),
                            ty: (**p).clone(),
                        })
                    }
                    (Type::Error, _) => Some(err),
                    (t, _) => {
                        let t = self.show_ty(t);
                        self.error_in(
                            span,
                            e.expansion,
                            format!("indirection requires pointer operand ('{t}' invalid)"),
                        );
                        Some(err)
                    }
                }
            }
            ExprKind::Index(a, b) => {
                // The base as an lvalue first, so that a vector is subscripted in place.
                let base = self.lvalue(a);
                let ra = match base {
                    Some(lv) if lv.ty.ty.is_vector() => {
                        let rb = self.expr(b);
                        return Some(self.vector_subscript(lv, rb, b, e));
                    }
                    Some(lv) => self.read_lv(&lv, a.span),
                    None => self.expr(a),
                };
                if ra.ty.is_vector() {
                    let rb = self.expr(b);
                    return Some(self.vector_subscript(Self::rvalue_lanes(ra), rb, b, e));
                }
                let rb = self.expr(b);
                let (p, i) = match (&ra.ty, &rb.ty) {
                    (Type::Pointer(_), t) if t.is_integer() => (ra, rb),
                    (t, Type::Pointer(_)) if t.is_integer() => (rb, ra),
                    (Type::Error, _) | (_, Type::Error) => return Some(err),
                    (Type::Pointer(_), t) => {
                        let _ = t;
                        self.error_in(b.span, b.expansion, "array subscript is not an integer");
                        return Some(err);
                    }
                    _ => {
                        self.error_in(
                            a.span,
                            a.expansion,
                            "subscripted value is not an array, pointer, or vector",
                        );
                        return Some(err);
                    }
                };
                let Type::Pointer(elem) = p.ty.clone() else {
                    return Some(err);
                };
                let addr = self.ptr_add(p, i, false, span)?;
                Some(LV {
                    place: Place::Mem(addr),
                    ty: *elem,
                })
            }
            ExprKind::Member { base, field, arrow } => {
                let (addr, rec_ty) = if *arrow {
                    let rv = self.expr(base);
                    match (&rv.ty, rv.v) {
                        (Type::Pointer(p), Some(v)) if p.ty.is_vector() => {
                            // `p->x` on a pointer to a vector, as clang allows.
                            let lv = LV {
                                place: Place::Mem(v),
                                ty: (**p).clone(),
                            };
                            return Some(self.component_access(lv, field, e));
                        }
                        (Type::Pointer(p), Some(v)) => (v, (**p).clone()),
                        (Type::Error, _) => return Some(err),
                        (t, _) => {
                            let t = self.show_ty(t);
                            self.error_in(
                                base.span,
                                base.expansion,
                                format!("member reference type '{t}' is not a pointer"),
                            );
                            return Some(err);
                        }
                    }
                } else {
                    let base_lv = self.lvalue(base);
                    if let Some(lv) = &base_lv {
                        if lv.ty.ty.is_vector() {
                            let lv = lv.clone();
                            return Some(self.component_access(lv, field, e));
                        }
                    }
                    match base_lv {
                        Some(LV {
                            place: Place::Mem(p),
                            ty,
                        }) => (p, ty),
                        Some(LV {
                            place: Place::Error,
                            ..
                        }) => return Some(err),
                        Some(LV {
                            place: Place::Var(v),
                            ty,
                        }) => {
                            if !ty.ty.is_error() {
                                let t = self.show(&ty);
                                self.error_in(
                                    base.span,
                                    base.expansion,
                                    format!("member reference base type '{t}' is not a structure or union"),
                                );
                            }
                            let _ = v;
                            return Some(err);
                        }
                        Some(LV {
                            place: Place::Lanes(..) | Place::DynLane(..),
                            ty,
                        }) => {
                            let t = self.show(&ty);
                            self.error_in(
                                base.span,
                                base.expansion,
                                format!(
                                    "member reference base type '{t}' is not a structure or union"
                                ),
                            );
                            return Some(err);
                        }
                        None => {
                            let rv = self.expr(base);
                            if rv.ty.is_vector() {
                                let lv = Self::rvalue_lanes(rv);
                                return Some(self.component_access(lv, field, e));
                            }
                            match (&rv.ty, rv.v) {
                                (Type::Record(_), Some(v)) => {
                                    let space = self.space_of_value(v);
                                    (v, QualType::new(rv.ty.clone(), Quals::in_space(space)))
                                }
                                (Type::Error, _) => return Some(err),
                                (t, _) => {
                                    let t = self.show_ty(t);
                                    self.error_in(
                                        base.span,
                                        base.expansion,
                                        format!("member reference base type '{t}' is not a structure or union"),
                                    );
                                    return Some(err);
                                }
                            }
                        }
                    }
                };
                let Type::Record(id) = rec_ty.ty else {
                    if !rec_ty.ty.is_error() {
                        let t = self.show(&rec_ty);
                        self.error_in(
                            base.span,
                            base.expansion,
                            format!("member reference base type '{t}' is not a structure or union"),
                        );
                    }
                    return Some(err);
                };
                if !self.records.get(id).complete {
                    let t = self.show(&rec_ty);
                    self.error_in(
                        base.span,
                        base.expansion,
                        format!("incomplete definition of type '{t}'"),
                    );
                    return Some(err);
                }
                let Some((fty, off)) = self.records.field(id, field) else {
                    let t = self.show(&QualType::plain(rec_ty.ty.clone()));
                    self.error_in(
                        span,
                        e.expansion,
                        format!("no member named '{field}' in '{t}'"),
                    );
                    return Some(err);
                };
                let p = self.ptr_offset(addr, off, span);
                let q = Quals {
                    is_const: fty.q.is_const || rec_ty.q.is_const,
                    is_volatile: fty.q.is_volatile || rec_ty.q.is_volatile,
                    space: rec_ty.q.space.or(Some(self.space_of_value(addr))),
                };
                Some(LV {
                    place: Place::Mem(p),
                    ty: QualType::new(fty.ty, q),
                })
            }
            ExprKind::StrLit(bytes) => {
                let g = self.string_global(bytes);
                let ty = self.globals[g].ty.clone();
                let p = self.global_addr(g, span);
                Some(LV {
                    place: Place::Mem(p),
                    ty,
                })
            }
            ExprKind::CompoundLiteral(tn, init) => {
                let mut ty = self.type_name(tn);
                if ty.ty.is_vector() {
                    let lanes = self.vector_literal(&ty.ty, init, span);
                    return Some(Self::rvalue_lanes(RV::vector(ty.ty, lanes)));
                }
                if let Type::Array(elem, None) = &ty.ty {
                    let n = self.init_array_len(&elem.ty, init);
                    ty.ty = Type::Array(elem.clone(), Some(n));
                }
                if ty.ty.is_error() {
                    return Some(err);
                }
                let Some(size) = self.records.size(&ty.ty) else {
                    let t = self.show(&ty);
                    self.error(span, format!("variable has incomplete type '{t}'"));
                    return Some(err);
                };
                let align = self.records.align(&ty.ty);
                let i = self.new_private("compound literal", size, align, span);
                let p = self.emit(
                    OpKind::PrivateAddr(i),
                    vec![],
                    Ty::Ptr(Space::Private),
                    span,
                );
                if ty.ty.is_scalar() {
                    let v = match &**init {
                        crate::ast::Initializer::Expr(x) => {
                            let rv = self.expr(x);
                            self.implicit(rv, &ty.ty, x, Conv::Init)
                        }
                        crate::ast::Initializer::List { items, .. } => match items.first() {
                            Some((_, crate::ast::Initializer::Expr(x))) => {
                                let rv = self.expr(x);
                                self.implicit(rv, &ty.ty, x, Conv::Init)
                            }
                            _ => {
                                let ir = ty.ty.ir().unwrap_or(Ty::I32);
                                self.konst(ir, 0, span)
                            }
                        },
                    };
                    self.store(p, v, &ty.ty, span);
                } else {
                    self.runtime_init(&ty.ty, init, p, span);
                }
                ty.q.space = Some(Space::Private);
                Some(LV {
                    place: Place::Mem(p),
                    ty,
                })
            }
            _ => None,
        }
    }

    /// Read an lvalue: a scalar's value, an aggregate's address, an array decayed.
    pub(crate) fn read_lv(&mut self, lv: &LV, span: Span) -> RV {
        if lv.ty.ty.is_vector() || matches!(lv.place, Place::Lanes(..) | Place::DynLane(..)) {
            return self.read_vector_lv(lv, span);
        }
        match lv.place {
            Place::Error | Place::Lanes(..) | Place::DynLane(..) => RV::error(),
            Place::Var(v) => {
                if lv.ty.ty.is_error() {
                    return RV::error();
                }
                let x = self.read_var(v, span);
                RV::val(lv.ty.ty.clone(), x)
            }
            Place::Mem(p) => match &lv.ty.ty {
                Type::Array(elem, _) => {
                    let mut eq = (**elem).clone();
                    eq.q.space = Some(self.space_of_value(p));
                    RV::val(Type::pointer_to(eq), p)
                }
                Type::Record(_) => RV::val(lv.ty.ty.clone(), p),
                Type::Void => RV::void(),
                Type::Error => RV::error(),
                Type::Function(_) => {
                    self.unsupported(span, "function pointer");
                    RV::error()
                }
                t => {
                    let t = t.clone();
                    let x = self.load(p, &t, span);
                    RV::val(t, x)
                }
            },
        }
    }

    /// Store scalar `v` (already of the lvalue's type) into an lvalue.
    pub(crate) fn write_lv(&mut self, lv: &LV, v: ValueId, span: Span) {
        match &lv.place {
            Place::Error => {}
            Place::Lanes(base, swz) => {
                if let Some(elem) = super::types::Elem::of(&lv.ty.ty) {
                    self.write_lanes(base, *swz, elem, &[v], span);
                }
            }
            Place::DynLane(base, swz, idx) => {
                if let Some(elem) = super::types::Elem::of(&lv.ty.ty) {
                    self.write_dyn_lane(base, *swz, *idx, elem, v, span);
                }
            }
            Place::Var(var) => self.write_var(*var, v),
            Place::Mem(p) => {
                let t = lv.ty.ty.clone();
                self.store(*p, v, &t, span);
            }
        }
    }

    /// An lvalue that can be assigned, or a report why not.
    fn modifiable(&mut self, e: &Expr) -> Option<LV> {
        let Some(lv) = self.lvalue(e) else {
            let rv = self.expr(e);
            if !rv.ty.is_error() {
                self.error_in(e.span, e.expansion, "expression is not assignable");
            }
            return None;
        };
        if matches!(lv.place, Place::Error) {
            return None;
        }
        if let Some(msg) = Self::lanes_not_assignable(&lv.place) {
            self.error_in(e.span, e.expansion, msg);
            return None;
        }
        if lv.ty.ty.is_array() {
            let t = self.show(&lv.ty);
            self.error_in(
                e.span,
                e.expansion,
                format!("array type '{t}' is not assignable"),
            );
            return None;
        }
        if lv.ty.q.is_const || lv.ty.q.space == Some(Space::Constant) {
            let msg = match (&e.kind, &lv.place) {
                (ExprKind::Ident(name), Place::Var(_)) | (ExprKind::Ident(name), Place::Mem(_))
                    if matches!(self.lookup(name), Some(Sym::Var(_))) =>
                {
                    let t = self.show(&lv.ty);
                    format!("cannot assign to variable '{name}' with const-qualified type '{t}'")
                }
                _ => "read-only variable is not assignable".to_string(),
            };
            self.error_in(e.span, e.expansion, msg);
            return None;
        }
        Some(lv)
    }

    // ---- operators ----

    fn unary(&mut self, op: UnaryOp, x: &Expr, e: &Expr) -> RV {
        let span = e.span;
        match op {
            UnaryOp::Plus | UnaryOp::Minus | UnaryOp::BitNot => {
                let rv = self.expr(x);
                if rv.ty.is_vector() {
                    return self.vector_unary(op, rv, e);
                }
                let ok = match op {
                    UnaryOp::BitNot => rv.ty.is_integer(),
                    _ => rv.ty.is_arith(),
                };
                if !ok {
                    if !rv.ty.is_error() {
                        let t = self.show_ty(&rv.ty);
                        self.error_in(
                            span,
                            e.expansion,
                            format!("invalid argument type '{t}' to unary expression"),
                        );
                    }
                    return RV::error();
                }
                let ty = rv.ty.promoted();
                let v = self.rv_to(rv, &ty, span);
                let r = match (op, &ty) {
                    (UnaryOp::Plus, _) => v,
                    (UnaryOp::Minus, Type::Float(_)) => self.un(UnOp::FNeg, v, span),
                    (UnaryOp::Minus, _) => self.un(UnOp::Neg, v, span),
                    _ => self.un(UnOp::Not, v, span),
                };
                RV::val(ty, r)
            }
            UnaryOp::Not => {
                let c = match self.cond_or_vector(x, true) {
                    Ok(c) => c,
                    Err(rv) if rv.ty.is_vector() => return self.vector_unary(op, rv, e),
                    Err(_) => return RV::error(),
                };
                let n = self.not(c, span);
                let r = self.cast(CastOp::ZExt, n, Ty::I32, span);
                RV::val(Type::INT, r)
            }
            UnaryOp::AddrOf => {
                if let ExprKind::Ident(name) = &x.kind {
                    if let Some(Sym::Func(_)) = self.lookup(name) {
                        self.unsupported(span, "function pointer");
                        return RV::error();
                    }
                }
                match self.lvalue(x) {
                    Some(LV {
                        place: Place::Mem(p),
                        ty,
                    }) => {
                        let mut q = ty;
                        q.q.space = Some(self.space_of_value(p));
                        RV::val(Type::pointer_to(q), p)
                    }
                    Some(LV {
                        place: Place::Error,
                        ..
                    }) => RV::error(),
                    Some(LV {
                        place: Place::Lanes(base, _) | Place::DynLane(base, _, _),
                        ty,
                    }) => {
                        let msg = match base {
                            super::place::LaneBase::Value(_) => {
                                let t = self.show(&ty);
                                format!("cannot take the address of an rvalue of type '{t}'")
                            }
                            _ => "address of vector element requested".to_string(),
                        };
                        self.error_in(span, e.expansion, msg);
                        RV::error()
                    }
                    Some(LV {
                        place: Place::Var(v),
                        ty,
                    }) => {
                        // The address-taken scan keeps every variable whose address is taken
                        // in memory: only an erroneous variable gets here.
                        if !ty.ty.is_error() {
                            let name = self.var(v).name.clone();
                            self.error_in(
                                span,
                                e.expansion,
                                format!("cannot take the address of variable '{name}'"),
                            );
                        }
                        RV::error()
                    }
                    None => {
                        let rv = self.expr(x);
                        if !rv.ty.is_error() {
                            let t = self.show_ty(&rv.ty);
                            self.error_in(
                                span,
                                e.expansion,
                                format!("cannot take the address of an rvalue of type '{t}'"),
                            );
                        }
                        RV::error()
                    }
                }
            }
            UnaryOp::Deref => unreachable!("handled as an lvalue"),
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                let Some(lv) = self.modifiable(x) else {
                    return RV::error();
                };
                let old = self.read_lv(&lv, span);
                let ty = lv.ty.ty.clone();
                let inc = matches!(op, UnaryOp::PreInc | UnaryOp::PostInc);
                if ty.is_vector() && old.ty.is_vector() {
                    let lanes = self.vector_step(&old, inc, span);
                    let new = RV::vector(ty, lanes);
                    self.write_rv(&lv, &new, span);
                    return if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) {
                        new
                    } else {
                        old
                    };
                }
                let (Some(ov), true) = (old.v, ty.is_scalar()) else {
                    if !ty.is_error() {
                        let t = self.show_ty(&ty);
                        self.error_in(
                            span,
                            e.expansion,
                            format!("cannot increment value of type '{t}'"),
                        );
                    }
                    return RV::error();
                };
                let new = if ty.is_pointer() {
                    let one = self.konst(Ty::I32, 1, span);
                    match self.ptr_add(old.clone(), RV::val(Type::INT, one), !inc, span) {
                        Some(p) => p,
                        None => return RV::error(),
                    }
                } else {
                    let pt = ty.promoted();
                    let a = self.conv(ov, &ty, &pt, span);
                    let one = match &pt {
                        Type::Float(k) => {
                            let bits = super::arith::int_to_float(*k, 1, true);
                            self.konst(k.ty(), bits, span)
                        }
                        t => self.konst(t.ir().expect("scalar"), 1, span),
                    };
                    let bop = match (&pt, inc) {
                        (Type::Float(_), true) => BinOp::FAdd,
                        (Type::Float(_), false) => BinOp::FSub,
                        (_, true) => BinOp::Add,
                        (_, false) => BinOp::Sub,
                    };
                    let s = self.bin(bop, a, one, span);
                    self.conv(s, &pt, &ty, span)
                };
                self.write_lv(&lv, new, span);
                if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) {
                    RV::val(ty, new)
                } else {
                    RV::val(ty, ov)
                }
            }
        }
    }

    /// `p + i` (or `p - i`) scaled by the pointee's size: the new address.
    pub(crate) fn ptr_add(&mut self, p: RV, i: RV, negate: bool, span: Span) -> Option<ValueId> {
        let (Type::Pointer(pointee), Some(pv)) = (&p.ty, p.v) else {
            return None;
        };
        let size = match &pointee.ty {
            Type::Void => 1,
            t => match self.records.size(t) {
                Some(s) => s,
                None => {
                    let t = self.show(pointee);
                    self.error(
                        span,
                        format!("arithmetic on a pointer to an incomplete type '{t}'"),
                    );
                    return None;
                }
            },
        };
        let pty = self.vty(pv);
        let (int_ty, ity) = if pty.int_of_width() == Ty::I64 {
            (Type::LONG, Ty::I64)
        } else {
            (Type::INT, Ty::I32)
        };
        let mut off = self.rv_to(i, &int_ty, span);
        if negate {
            off = self.un(UnOp::Neg, off, span);
            if let Some(c) = self.const_of(off) {
                let _ = c;
            }
        }
        if size != 1 {
            let k = self.konst(ity, size, span);
            off = self.bin(BinOp::Mul, off, k, span);
        }
        Some(self.emit(OpKind::PtrAdd, vec![pv, off], pty, span))
    }

    fn binary_expr(&mut self, op: BinaryOp, l: &Expr, r: &Expr, e: &Expr) -> RV {
        let span = e.span;
        match op {
            BinaryOp::LogAnd | BinaryOp::LogOr => {
                let and = op == BinaryOp::LogAnd;
                if self.vector_type_of(l).is_some() || self.vector_type_of(r).is_some() {
                    let a = self.expr(l);
                    let b = self.expr(r);
                    return self.vector_logical(and, a, b, e);
                }
                let c = self.logical(and, l, r, span);
                let v = self.cast(CastOp::ZExt, c, Ty::I32, span);
                RV::val(Type::INT, v)
            }
            BinaryOp::Lt
            | BinaryOp::Gt
            | BinaryOp::Le
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne => {
                let a = self.expr(l);
                let b = self.expr(r);
                if a.ty.is_vector() || b.ty.is_vector() {
                    return self.vector_compare(op, a, b, e);
                }
                match self.compare_values(op, a, b, l, r, e) {
                    Some(c) => {
                        let v = self.cast(CastOp::ZExt, c, Ty::I32, span);
                        RV::val(Type::INT, v)
                    }
                    None => RV::error(),
                }
            }
            BinaryOp::Add | BinaryOp::Sub if self.contracting() => {
                if let Some(rv) = self.try_fma(op, l, r, None, span) {
                    return rv;
                }
                let a = self.expr(l);
                let b = self.expr(r);
                self.arith(op, a, b, e)
            }
            _ => {
                let a = self.expr(l);
                let b = self.expr(r);
                self.arith(op, a, b, e)
            }
        }
    }

    pub(crate) fn contracting(&self) -> bool {
        self.opts.contract_fp || self.opts.fast_relaxed_math
    }

    /// `a*b + c`, `c + a*b`, `a*b - c`, `c - a*b` as one fused multiply-add when the
    /// product and the sum have the same floating type. `lhs_value` is the already read
    /// left operand of a compound assignment.
    pub(crate) fn try_fma(
        &mut self,
        op: BinaryOp,
        l: &Expr,
        r: &Expr,
        lhs_value: Option<RV>,
        span: Span,
    ) -> Option<RV> {
        let product = |e: &Expr| match &e.kind {
            ExprKind::Binary(BinaryOp::Mul, a, b) => Some((a.clone(), b.clone())),
            _ => None,
        };
        let lt = match &lhs_value {
            Some(rv) => rv.ty.clone(),
            None => self.cached_type_of(l),
        };
        let rt = self.cached_type_of(r);
        if lt.is_vector() || rt.is_vector() {
            return self.try_fma_vector(op, l, r, lhs_value, lt, rt, span);
        }
        let sum = usual_arith(&lt, &rt);
        let Type::Float(_) = sum else {
            return None;
        };
        if lhs_value.is_none() {
            if let Some((a, b)) = product(l) {
                if lt == sum {
                    let av = self.expr(&a);
                    let bv = self.expr(&b);
                    let av = self.rv_to(av, &sum, a.span);
                    let bv = self.rv_to(bv, &sum, b.span);
                    let c = self.expr(r);
                    let mut cv = self.rv_to(c, &sum, r.span);
                    if op == BinaryOp::Sub {
                        cv = self.un(UnOp::FNeg, cv, span);
                    }
                    let ty = sum.ir().expect("float");
                    let v = self.emit(OpKind::Fma, vec![av, bv, cv], ty, span);
                    return Some(RV::val(sum, v));
                }
            }
        }
        let (a, b) = product(r)?;
        if rt != sum {
            return None;
        }
        let c = match lhs_value {
            Some(rv) => rv,
            None => self.expr(l),
        };
        let cv = self.rv_to(c, &sum, l.span);
        let av = self.expr(&a);
        let bv = self.expr(&b);
        let mut av = self.rv_to(av, &sum, a.span);
        let bv = self.rv_to(bv, &sum, b.span);
        if op == BinaryOp::Sub {
            av = self.un(UnOp::FNeg, av, span);
        }
        let ty = sum.ir().expect("float");
        let v = self.emit(OpKind::Fma, vec![av, bv, cv], ty, span);
        Some(RV::val(sum, v))
    }

    /// [`Lowerer::try_fma`] on vectors: one `fma` per lane when the product has the sum's
    /// floating vector type (the addend may be a scalar, replicated).
    #[allow(clippy::too_many_arguments)]
    fn try_fma_vector(
        &mut self,
        op: BinaryOp,
        l: &Expr,
        r: &Expr,
        lhs_value: Option<RV>,
        lt: Type,
        rt: Type,
        span: Span,
    ) -> Option<RV> {
        let product = |e: &Expr| match &e.kind {
            ExprKind::Binary(BinaryOp::Mul, a, b) => Some((a.clone(), b.clone())),
            _ => None,
        };
        self.mute += 1;
        let sum = self.vector_operand_type(&lt, &rt, l);
        self.mute -= 1;
        let sum = sum?;
        let (elem, _) = sum.vector()?;
        if !elem.is_float() {
            return None;
        }
        let (prod_first, (a, b)) = match (lhs_value.is_none(), product(l), product(r)) {
            (true, Some(ab), _) if super::types::same_type(&lt, &sum) => (true, ab),
            (_, _, Some(ab)) if super::types::same_type(&rt, &sum) => (false, ab),
            _ => return None,
        };
        // The operands in the order the source evaluates them.
        let mut c_first = None;
        if !prod_first {
            c_first = Some(match lhs_value {
                Some(rv) => rv,
                None => self.expr(l),
            });
        }
        let av = self.expr(&a);
        let bv = self.expr(&b);
        let c = match c_first {
            Some(c) => c,
            None => self.expr(r),
        };
        let ok = match self.vector_operand_type(&av.ty, &bv.ty, if prod_first { l } else { r }) {
            Some(t) => super::types::same_type(&t, &sum),
            None => false,
        };
        if !ok {
            return Some(RV::error());
        }
        let la = self.operand_lanes(av, &sum, span);
        let lb = self.operand_lanes(bv, &sum, span);
        let lc = self.operand_lanes(c, &sum, span);
        let ir = elem.ir();
        let lanes = (0..la.len())
            .map(|k| {
                let (mut x, mut z) = (la[k], lc[k]);
                if op == BinaryOp::Sub {
                    if prod_first {
                        z = self.un(UnOp::FNeg, z, span);
                    } else {
                        x = self.un(UnOp::FNeg, x, span);
                    }
                }
                self.emit(OpKind::Fma, vec![x, lb[k], z], ir, span)
            })
            .collect();
        Some(RV::vector(sum, lanes))
    }

    /// Arithmetic, bitwise and shift operators on two rvalues.
    pub(crate) fn arith(&mut self, op: BinaryOp, a: RV, b: RV, e: &Expr) -> RV {
        let span = e.span;
        if a.ty.is_error() || b.ty.is_error() {
            return RV::error();
        }
        if a.ty.is_vector() || b.ty.is_vector() {
            return self.vector_arith(op, a, b, e);
        }
        let invalid = |s: &mut Self, a: &RV, b: &RV| {
            let (x, y) = (s.show_ty(&a.ty), s.show_ty(&b.ty));
            s.error_in(
                span,
                e.expansion,
                format!("invalid operands to binary expression ('{x}' and '{y}')"),
            );
            RV::error()
        };
        match op {
            BinaryOp::Add | BinaryOp::Sub if a.ty.is_pointer() || b.ty.is_pointer() => {
                if a.ty.is_pointer() && b.ty.is_integer() {
                    let ty = a.ty.clone();
                    return match self.ptr_add(a, b, op == BinaryOp::Sub, span) {
                        Some(p) => RV::val(ty, p),
                        None => RV::error(),
                    };
                }
                if op == BinaryOp::Add && a.ty.is_integer() && b.ty.is_pointer() {
                    let ty = b.ty.clone();
                    return match self.ptr_add(b, a, false, span) {
                        Some(p) => RV::val(ty, p),
                        None => RV::error(),
                    };
                }
                if op == BinaryOp::Sub && a.ty.is_pointer() && b.ty.is_pointer() {
                    return self.ptr_diff(a, b, e);
                }
                invalid(self, &a, &b)
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                if !a.ty.is_integer() || !b.ty.is_integer() {
                    return invalid(self, &a, &b);
                }
                let lt = a.ty.promoted();
                let rt = b.ty.promoted();
                let va = self.rv_to(a, &lt, span);
                let mut vb = self.rv_to(b, &rt, span);
                let (wa, wb) = (self.vty(va), self.vty(vb));
                if wa == Ty::I32 && wb == Ty::I64 {
                    vb = self.cast(CastOp::Trunc, vb, Ty::I32, span);
                } else if wa == Ty::I64 && wb == Ty::I32 {
                    vb = self.cast(CastOp::ZExt, vb, Ty::I64, span);
                }
                let bop = match op {
                    BinaryOp::Shl => BinOp::Shl,
                    _ if lt.is_signed() => BinOp::AShr,
                    _ => BinOp::LShr,
                };
                let v = self.bin(bop, va, vb, span);
                RV::val(lt, v)
            }
            _ => {
                let ints_only = matches!(
                    op,
                    BinaryOp::Rem | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor
                );
                let ok = if ints_only {
                    a.ty.is_integer() && b.ty.is_integer()
                } else {
                    a.ty.is_arith() && b.ty.is_arith()
                };
                if !ok {
                    return invalid(self, &a, &b);
                }
                let ty = usual_arith(&a.ty, &b.ty);
                let va = self.rv_to(a, &ty, span);
                let vb = self.rv_to(b, &ty, span);
                let float = ty.is_float();
                let signed = ty.is_signed();
                if matches!(op, BinaryOp::Div | BinaryOp::Rem)
                    && !float
                    && self.const_of(vb) == Some(0)
                {
                    let what = if op == BinaryOp::Div {
                        "division"
                    } else {
                        "remainder"
                    };
                    self.warning(span, format!("{what} by zero is undefined"));
                }
                let bop = match (op, float, signed) {
                    (BinaryOp::Add, true, _) => BinOp::FAdd,
                    (BinaryOp::Sub, true, _) => BinOp::FSub,
                    (BinaryOp::Mul, true, _) => BinOp::FMul,
                    (BinaryOp::Div, true, _) => BinOp::FDiv,
                    (BinaryOp::Add, false, _) => BinOp::Add,
                    (BinaryOp::Sub, false, _) => BinOp::Sub,
                    (BinaryOp::Mul, false, _) => BinOp::Mul,
                    (BinaryOp::Div, false, true) => BinOp::SDiv,
                    (BinaryOp::Div, false, false) => BinOp::UDiv,
                    (BinaryOp::Rem, _, true) => BinOp::SRem,
                    (BinaryOp::Rem, _, false) => BinOp::URem,
                    (BinaryOp::BitAnd, ..) => BinOp::And,
                    (BinaryOp::BitOr, ..) => BinOp::Or,
                    (BinaryOp::BitXor, ..) => BinOp::Xor,
                    _ => return invalid(self, &RV::val(ty.clone(), va), &RV::val(ty, vb)),
                };
                let v = self.bin(bop, va, vb, span);
                RV::val(ty, v)
            }
        }
    }

    fn ptr_diff(&mut self, a: RV, b: RV, e: &Expr) -> RV {
        let span = e.span;
        let (Type::Pointer(pa), Type::Pointer(pb)) = (&a.ty, &b.ty) else {
            return RV::error();
        };
        if pa.q.space() != pb.q.space() || !super::types::same_type(&pa.ty, &pb.ty) {
            let (x, y) = (self.show_ty(&a.ty), self.show_ty(&b.ty));
            self.error_in(
                span,
                e.expansion,
                format!("'{x}' and '{y}' are not pointers to compatible types"),
            );
            return RV::error();
        }
        let size = match &pa.ty {
            Type::Void => 1,
            t => self.records.size(t).unwrap_or(1),
        };
        let (Some(va), Some(vb)) = (a.v, b.v) else {
            return RV::error();
        };
        let int = self.vty(va).int_of_width();
        let ia = self.cast(CastOp::Bitcast, va, int, span);
        let ib = self.cast(CastOp::Bitcast, vb, int, span);
        let mut d = self.bin(BinOp::Sub, ia, ib, span);
        if int == Ty::I32 {
            d = self.cast(CastOp::SExt, d, Ty::I64, span);
        }
        if size > 1 {
            let k = self.konst(Ty::I64, size, span);
            d = self.bin(BinOp::SDiv, d, k, span);
        }
        RV::val(Type::LONG, d)
    }

    /// A comparison of scalars `a` and `b` (the values of `l` and `r`) as an `I1`; `None`
    /// after an error.
    fn compare_values(
        &mut self,
        op: BinaryOp,
        a: RV,
        b: RV,
        l: &Expr,
        r: &Expr,
        e: &Expr,
    ) -> Option<ValueId> {
        let span = e.span;
        if a.ty.is_error() || b.ty.is_error() {
            return None;
        }
        let (pred_s, pred_u, pred_f) = match op {
            BinaryOp::Lt => (CmpPred::Slt, CmpPred::Ult, CmpPred::FOlt),
            BinaryOp::Gt => (CmpPred::Sgt, CmpPred::Ugt, CmpPred::FOgt),
            BinaryOp::Le => (CmpPred::Sle, CmpPred::Ule, CmpPred::FOle),
            BinaryOp::Ge => (CmpPred::Sge, CmpPred::Uge, CmpPred::FOge),
            BinaryOp::Eq => (CmpPred::Eq, CmpPred::Eq, CmpPred::FOeq),
            _ => (CmpPred::Ne, CmpPred::Ne, CmpPred::FUne),
        };
        if a.ty.is_arith() && b.ty.is_arith() {
            let ty = usual_arith(&a.ty, &b.ty);
            let va = self.rv_to(a, &ty, span);
            let vb = self.rv_to(b, &ty, span);
            let pred = if ty.is_float() {
                pred_f
            } else if ty.is_signed() {
                pred_s
            } else {
                pred_u
            };
            return Some(self.cmp(pred, va, vb, span));
        }
        let (va, vb) = match (&a.ty, &b.ty) {
            (Type::Pointer(pa), Type::Pointer(pb)) => {
                if pa.q.space() != pb.q.space() {
                    let (x, y) = (self.show_ty(&a.ty), self.show_ty(&b.ty));
                    self.error_in(
                        span,
                        e.expansion,
                        format!("comparison between  ('{x}' and '{y}') which are pointers to non-overlapping address spaces"),
                    );
                    return None;
                }
                if !pa.ty.is_void() && !pb.ty.is_void() && !super::types::same_type(&pa.ty, &pb.ty)
                {
                    let (x, y) = (self.show_ty(&a.ty), self.show_ty(&b.ty));
                    self.warning(
                        span,
                        format!("comparison of distinct pointer types ('{x}' and '{y}')"),
                    );
                }
                (a.v?, b.v?)
            }
            (Type::Pointer(_), t) | (t, Type::Pointer(_)) if t.is_integer() => {
                let (p, i, ie) = if a.ty.is_pointer() {
                    (&a, &b, r)
                } else {
                    (&b, &a, l)
                };
                if !self.is_null_constant(ie) {
                    let (x, y) = (self.show_ty(&a.ty), self.show_ty(&b.ty));
                    self.warning(
                        span,
                        format!("comparison between pointer and integer ('{x}' and '{y}')"),
                    );
                }
                let pv = p.v?;
                let iv = self.rv_to(i.clone(), &p.ty, span);
                if a.ty.is_pointer() {
                    (pv, iv)
                } else {
                    (iv, pv)
                }
            }
            _ => {
                let (x, y) = (self.show_ty(&a.ty), self.show_ty(&b.ty));
                self.error_in(
                    span,
                    e.expansion,
                    format!("invalid operands to binary expression ('{x}' and '{y}')"),
                );
                return None;
            }
        };
        Some(self.cmp(pred_u, va, vb, span))
    }

    /// The truth value of `e` as an `I1` (comparisons and logical operators directly).
    pub(crate) fn cond(&mut self, e: &Expr) -> ValueId {
        match self.cond_or_vector(e, false) {
            Ok(c) => c,
            Err(rv) => self.truth(rv, e.span),
        }
    }

    /// The truth value of `e` as an `I1`, or its value when it is a vector (the condition
    /// of `?:` may be one; `&&` and `||` of vectors are looked for only with
    /// `vector_logical`, as their operands' types must be known before lowering them).
    pub(crate) fn cond_or_vector(&mut self, e: &Expr, vector_logical: bool) -> Result<ValueId, RV> {
        let span = e.span;
        match &e.kind {
            ExprKind::Binary(
                op @ (BinaryOp::Lt
                | BinaryOp::Gt
                | BinaryOp::Le
                | BinaryOp::Ge
                | BinaryOp::Eq
                | BinaryOp::Ne),
                l,
                r,
            ) => {
                let a = self.expr(l);
                let b = self.expr(r);
                if a.ty.is_vector() || b.ty.is_vector() {
                    return Err(self.vector_compare(*op, a, b, e));
                }
                Ok(match self.compare_values(*op, a, b, l, r, e) {
                    Some(c) => c,
                    None => self.undef(Ty::I1, span),
                })
            }
            ExprKind::Binary(op @ (BinaryOp::LogAnd | BinaryOp::LogOr), l, r) => {
                let and = *op == BinaryOp::LogAnd;
                if vector_logical
                    && (self.vector_type_of(l).is_some() || self.vector_type_of(r).is_some())
                {
                    let a = self.expr(l);
                    let b = self.expr(r);
                    return Err(self.vector_logical(and, a, b, e));
                }
                Ok(self.logical(and, l, r, span))
            }
            ExprKind::Unary(UnaryOp::Not, x) => match self.cond_or_vector(x, vector_logical) {
                Ok(c) => Ok(self.not(c, span)),
                Err(rv) if rv.ty.is_vector() => Err(self.vector_unary(UnaryOp::Not, rv, e)),
                Err(rv) => Err(rv),
            },
            ExprKind::Comma(l, r) => {
                self.expr(l);
                self.cond_or_vector(r, vector_logical)
            }
            _ => {
                let rv = self.expr(e);
                if rv.ty.is_vector() {
                    return Err(rv);
                }
                Ok(self.truth(rv, span))
            }
        }
    }

    /// The type of `e`'s value, as [`Lowerer::type_of`] finds it, remembered per
    /// expression: a node has one type wherever it is lowered, so that typing an operand
    /// before lowering it (`?:` arms, `&&` operands that may be vectors) stays linear in
    /// nested expressions. Types naming a struct are not remembered (a struct defined in
    /// an inlined function is a new type at each call).
    pub(crate) fn cached_type_of(&mut self, e: &Expr) -> Type {
        let key = e as *const Expr;
        if let Some(t) = self.type_cache.get(&key) {
            return t.clone();
        }
        let t = self.type_of(e);
        if !t.names_record() {
            self.type_cache.insert(key, t.clone());
        }
        t
    }

    /// The vector type of `e`'s value, if it is one.
    pub(crate) fn vector_type_of(&mut self, e: &Expr) -> Option<Type> {
        Some(self.cached_type_of(e)).filter(Type::is_vector)
    }

    /// `l && r` / `l || r`: the right operand runs only when it decides.
    fn logical(&mut self, and: bool, l: &Expr, r: &Expr, span: Span) -> ValueId {
        let a = self.cond(l);
        if let Some(c) = self.const_of(a) {
            let decided = (c == 1) != and;
            if decided {
                self.dead(|s| s.cond(r));
                return self.konst(Ty::I1, u64::from(!and), span);
            }
            return self.cond(r);
        }
        let res = self.build_if(
            a,
            span,
            |s| {
                if and {
                    vec![s.cond(r)]
                } else {
                    vec![s.konst(Ty::I1, 1, span)]
                }
            },
            |s| {
                if and {
                    vec![s.konst(Ty::I1, 0, span)]
                } else {
                    vec![s.cond(r)]
                }
            },
            &[Ty::I1],
        );
        res[0]
    }

    /// The result type of `?:` (C99 6.5.15) from its operands' types.
    fn conditional_type(
        &mut self,
        t: &Type,
        o: &Type,
        then: &Expr,
        otherwise: &Expr,
        e: &Expr,
    ) -> Option<Type> {
        if t.is_error() || o.is_error() {
            return Some(Type::Error);
        }
        if t.is_arith() && o.is_arith() {
            return Some(usual_arith(t, o));
        }
        if t.is_vector() || o.is_vector() {
            return self.vector_operand_type(t, o, e);
        }
        if t.is_void() || o.is_void() {
            return Some(Type::Void);
        }
        if let (Type::Record(a), Type::Record(b)) = (t, o) {
            if a == b {
                return Some(t.clone());
            }
        }
        match (t, o) {
            (Type::Pointer(pa), Type::Pointer(pb)) => {
                if pa.q.space() != pb.q.space() {
                    if self.is_null_constant(otherwise) {
                        return Some(t.clone());
                    }
                    if self.is_null_constant(then) {
                        return Some(o.clone());
                    }
                } else {
                    let q = Quals {
                        is_const: pa.q.is_const || pb.q.is_const,
                        is_volatile: pa.q.is_volatile || pb.q.is_volatile,
                        space: pa.q.space.or(pb.q.space),
                    };
                    if pa.ty.is_void() || pb.ty.is_void() {
                        return Some(Type::pointer_to(QualType::new(Type::Void, q)));
                    }
                    if !super::types::same_type(&pa.ty, &pb.ty) {
                        let (x, y) = (self.show_ty(t), self.show_ty(o));
                        self.warning(e.span, format!("pointer type mismatch ('{x}' and '{y}')"));
                    }
                    return Some(Type::pointer_to(QualType::new(pa.ty.clone(), q)));
                }
            }
            (Type::Pointer(_), i) if i.is_integer() && self.is_null_constant(otherwise) => {
                return Some(t.clone())
            }
            (i, Type::Pointer(_)) if i.is_integer() && self.is_null_constant(then) => {
                return Some(o.clone())
            }
            _ => {}
        }
        let (x, y) = (self.show_ty(t), self.show_ty(o));
        self.error_in(
            e.span,
            e.expansion,
            format!("incompatible operand types ('{x}' and '{y}')"),
        );
        None
    }

    fn conditional(&mut self, cond: &Expr, then: &Expr, otherwise: &Expr, e: &Expr) -> RV {
        let span = e.span;
        let c = match self.cond_or_vector(cond, true) {
            Ok(c) => c,
            Err(rv) if rv.ty.is_vector() => return self.vector_conditional(rv, then, otherwise, e),
            Err(rv) => self.truth(rv, cond.span),
        };
        let t = self.cached_type_of(then);
        let o = self.cached_type_of(otherwise);
        let Some(ty) = self.conditional_type(&t, &o, then, otherwise, e) else {
            self.expr(then);
            self.expr(otherwise);
            return RV::error();
        };
        if ty.is_error() {
            self.expr(then);
            self.expr(otherwise);
            return RV::error();
        }
        if ty.is_void() {
            self.build_if(
                c,
                span,
                |s| {
                    s.expr(then);
                    Vec::new()
                },
                |s| {
                    s.expr(otherwise);
                    Vec::new()
                },
                &[],
            );
            return RV::void();
        }
        if let Type::Record(_) = ty {
            let size = self.records.size(&ty).unwrap_or(0);
            let align = self.records.align(&ty);
            let i = self.new_private("?: result", size, align, span);
            let arm = |s: &mut Self, x: &Expr| {
                let rv = s.expr(x);
                if let Some(src) = rv.v {
                    let dst = s.emit(
                        OpKind::PrivateAddr(i),
                        vec![],
                        Ty::Ptr(Space::Private),
                        span,
                    );
                    s.copy_mem(dst, src, size, align, span);
                }
                Vec::new()
            };
            self.build_if(c, span, |s| arm(s, then), |s| arm(s, otherwise), &[]);
            let p = self.emit(
                OpKind::PrivateAddr(i),
                vec![],
                Ty::Ptr(Space::Private),
                span,
            );
            return RV::val(ty, p);
        }
        if let Some((elem, n)) = ty.vector() {
            let arm = |s: &mut Self, x: &Expr| {
                let rv = s.expr(x);
                s.operand_lanes(rv, &ty, x.span)
            };
            let tys = vec![elem.ir(); n.into()];
            let r = self.build_if(c, span, |s| arm(s, then), |s| arm(s, otherwise), &tys);
            return RV::vector(ty, r);
        }
        let ir = ty.ir().expect("scalar");
        let arm = |s: &mut Self, x: &Expr| {
            let rv = s.expr(x);
            vec![s.rv_to(rv, &ty, x.span)]
        };
        let r = self.build_if(c, span, |s| arm(s, then), |s| arm(s, otherwise), &[ir]);
        RV::val(ty, r[0])
    }

    fn assign(&mut self, op: Option<BinaryOp>, lhs: &Expr, rhs: &Expr, e: &Expr) -> RV {
        let span = e.span;
        let Some(op) = op else {
            let target = self.type_of_object(lhs);
            if let Type::Record(_) = target {
                let Some(lv) = self.modifiable(lhs) else {
                    self.expr(rhs);
                    return RV::error();
                };
                let rv = self.expr(rhs);
                let Place::Mem(dst) = lv.place else {
                    return RV::error();
                };
                if rv.ty.is_error() {
                    return RV::error();
                }
                if !super::types::same_type(&rv.ty, &lv.ty.ty) {
                    let (t, f) = (self.show_ty(&lv.ty.ty), self.show_ty(&rv.ty));
                    self.error_in(
                        rhs.span,
                        rhs.expansion,
                        format!("assigning to '{t}' from incompatible type '{f}'"),
                    );
                    return RV::error();
                }
                let size = self.records.size(&lv.ty.ty).unwrap_or(0);
                let align = self.records.align(&lv.ty.ty);
                if let Some(src) = rv.v {
                    self.copy_mem(dst, src, size, align, span);
                }
                return RV::val(lv.ty.ty, dst);
            }
            let rv = self.expr(rhs);
            let Some(lv) = self.modifiable(lhs) else {
                return RV::error();
            };
            let val = self.implicit_rv(rv, &lv.ty.ty, rhs, Conv::Assign);
            self.write_rv(&lv, &val, span);
            return val;
        };
        let Some(lv) = self.modifiable(lhs) else {
            self.expr(rhs);
            return RV::error();
        };
        let old = self.read_lv(&lv, lhs.span);
        let res = if matches!(op, BinaryOp::Add | BinaryOp::Sub)
            && self.contracting()
            && (old.ty.is_float() || old.ty.vector().is_some_and(|(el, _)| el.is_float()))
        {
            match self.try_fma(op, lhs, rhs, Some(old.clone()), span) {
                Some(rv) => rv,
                None => {
                    let b = self.expr(rhs);
                    self.arith(op, old, b, e)
                }
            }
        } else {
            let b = self.expr(rhs);
            self.arith(op, old, b, e)
        };
        if res.ty.is_error() || lv.ty.ty.is_error() {
            return RV::error();
        }
        if res.ty.is_vector() || lv.ty.ty.is_vector() {
            if !super::types::same_type(&res.ty, &lv.ty.ty) {
                let (t, f) = (self.show_ty(&lv.ty.ty), self.show_ty(&res.ty));
                self.error_in(
                    span,
                    e.expansion,
                    format!("assigning to '{t}' from incompatible type '{f}'"),
                );
                return RV::error();
            }
            self.write_rv(&lv, &res, span);
            return res;
        }
        let v = if res.ty.is_pointer() {
            match res.v {
                Some(v) => v,
                None => return RV::error(),
            }
        } else if lv.ty.ty.is_pointer() {
            let (t, f) = (self.show_ty(&lv.ty.ty), self.show_ty(&res.ty));
            self.error_in(
                span,
                e.expansion,
                format!("assigning to '{t}' from incompatible type '{f}'"),
            );
            return RV::error();
        } else {
            self.rv_to(res, &lv.ty.ty, span)
        };
        self.write_lv(&lv, v, span);
        RV::val(lv.ty.ty, v)
    }

    /// An explicit cast of `rv` (the value of `x`) to `to`.
    fn cast_rv(&mut self, rv: RV, to: &Type, x: &Expr, span: Span) -> RV {
        if to.is_void() {
            return RV::void();
        }
        if rv.ty.is_error() || to.is_error() {
            return RV::error();
        }
        if to.is_vector() || rv.ty.is_vector() {
            return self.vector_cast(rv, to, x, span);
        }
        if !to.is_scalar() {
            if super::types::same_type(&rv.ty, to) {
                return rv;
            }
            let t = self.show_ty(to);
            self.error_in(
                span,
                x.expansion,
                format!("used type '{t}' where arithmetic or pointer type is required"),
            );
            return RV::error();
        }
        let Some(v) = rv.v.filter(|_| rv.ty.is_scalar()) else {
            let f = self.show_ty(&rv.ty);
            self.error_in(
                span,
                x.expansion,
                format!("operand of type '{f}' where arithmetic or pointer type is required"),
            );
            return RV::error();
        };
        if let (Type::Pointer(a), Type::Pointer(b)) = (&rv.ty, to) {
            if a.q.space() != b.q.space() {
                if self.is_null_constant(x) {
                    let c = self.konst(to.ir().expect("pointer"), 0, span);
                    return RV::val(to.clone(), c);
                }
                let (f, t) = (self.show_ty(&rv.ty), self.show_ty(to));
                self.error_in(
                    span,
                    x.expansion,
                    format!("casting '{f}' to type '{t}' changes address space of pointer"),
                );
                return RV::error();
            }
        }
        if rv.ty.is_float() && to.is_pointer() || rv.ty.is_pointer() && to.is_float() {
            let (f, t) = (self.show_ty(&rv.ty), self.show_ty(to));
            self.error_in(
                span,
                x.expansion,
                format!("operand of type '{f}' cannot be cast to a pointer type"),
            );
            let _ = t;
            return RV::error();
        }
        let r = self.conv(v, &rv.ty, to, span);
        RV::val(to.clone(), r)
    }

    /// An rvalue of an lvalue-converted array type `elem` in `space` (for `__constant`
    /// string literals and the like).
    #[allow(dead_code)]
    pub(crate) fn decayed(elem: &QualType, space: Space) -> Type {
        let mut q = elem.clone();
        q.q.space = Some(space);
        Type::pointer_to(q)
    }
}
