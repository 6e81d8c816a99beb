//! Constant expressions: integer constant expressions (array sizes, case labels,
//! enumerators, attribute arguments) and the arithmetic constants of `__constant`
//! initializers, evaluated with exactly the semantics the generated code would have
//! (two's complement wrap, IEEE arithmetic rounded to nearest even).

use super::arith::{
    float_arith, float_cmp, float_neg, float_to_float, float_to_int, int_lit_type, int_to_float,
    usual_arith, CV,
};
use super::types::{FloatKind, IntKind, Type};
use super::{floatlit, Lowerer, Storage, Sym, VarVal};
use crate::ast::{self, BinaryOp, Expr, ExprKind, UnaryOp};

impl<'a> Lowerer<'a> {
    /// `e`'s value if it is an integer constant expression.
    pub(crate) fn eval_int(&mut self, e: &Expr) -> Option<i128> {
        match self.eval(e)? {
            (CV(bits), Type::Int(k)) => Some(k.value(bits)),
            (CV(bits), Type::Bool) => Some(i128::from(bits & 1)),
            _ => None,
        }
    }

    /// `e`'s value, which must be an integer constant expression.
    pub(crate) fn ice(&mut self, e: &Expr) -> Option<i128> {
        let v = self.eval_int(e);
        if v.is_none() {
            self.error_in(
                e.span,
                e.expansion,
                "expression is not an integer constant expression",
            );
        }
        v
    }

    pub(crate) fn is_constant_expr(&mut self, e: &Expr) -> bool {
        self.eval(e).is_some()
    }

    /// The truth of `e` if it is a constant.
    pub(crate) fn const_truth(&mut self, e: &Expr) -> Option<bool> {
        let (v, ty) = self.eval(e)?;
        Some(match ty {
            Type::Float(k) => !float_cmp(k, "==", v.0, 0),
            _ => v.0 != 0,
        })
    }

    /// Evaluate a constant expression silently: `None` when it is not one.
    pub(crate) fn eval(&mut self, e: &Expr) -> Option<(CV, Type)> {
        self.mute += 1;
        let r = self.eval_inner(e);
        self.mute -= 1;
        r
    }

    fn eval_inner(&mut self, e: &Expr) -> Option<(CV, Type)> {
        Some(match &e.kind {
            ExprKind::IntLit {
                value,
                suffix,
                decimal,
            } => {
                let (k, _) = int_lit_type(*value, *suffix, *decimal)?;
                (CV(k.wrap(*value as u64)), Type::Int(k))
            }
            ExprKind::CharLit(v) => (CV(IntKind::Int.wrap(*v as u64)), Type::INT),
            ExprKind::FloatLit { text, suffix } => {
                let kind = match suffix {
                    ast::FloatSuffix::None => FloatKind::Double,
                    ast::FloatSuffix::F => FloatKind::Float,
                    ast::FloatSuffix::H => FloatKind::Half,
                    ast::FloatSuffix::L => return None,
                };
                let (bits, _) = floatlit::parse(text, kind)?;
                (CV(bits), Type::Float(kind))
            }
            ExprKind::Ident(name) => match self.lookup(name)? {
                Sym::EnumConst(v) => (CV(IntKind::Int.wrap(v as u64)), Type::INT),
                Sym::Var(v) => {
                    let var = self.var(v);
                    if !var.ty.q.is_const || var.storage != Storage::Ssa || !var.ty.ty.is_arith() {
                        return None;
                    }
                    let ty = var.ty.ty.clone();
                    let VarVal::Val(x) = self.cur[v.0 as usize] else {
                        return None;
                    };
                    let bits = self.const_of(x)?;
                    let bits = match &ty {
                        Type::Int(k) => k.wrap(bits),
                        _ => bits,
                    };
                    (CV(bits), ty)
                }
                Sym::Global(g) => {
                    let gv = &self.globals[g];
                    let ty = gv.ty.ty.clone();
                    if !ty.is_arith() {
                        return None;
                    }
                    let size = self.records.size(&ty)? as usize;
                    let mut raw = [0u8; 8];
                    raw[..size].copy_from_slice(gv.bytes.get(..size)?);
                    let bits = u64::from_le_bytes(raw);
                    let bits = match &ty {
                        Type::Int(k) => k.wrap(bits),
                        Type::Bool => u64::from(bits != 0),
                        _ => bits,
                    };
                    (CV(bits), ty)
                }
                _ => return None,
            },
            ExprKind::Unary(op, x) => {
                let (v, ty) = self.eval_inner(x)?;
                match op {
                    UnaryOp::Plus if ty.is_arith() => {
                        let to = ty.promoted();
                        (self.cv_convert(v, &ty, &to)?, to)
                    }
                    UnaryOp::Minus if ty.is_arith() => {
                        let to = ty.promoted();
                        let v = self.cv_convert(v, &ty, &to)?;
                        match &to {
                            Type::Int(k) => (CV(k.wrap(v.0.wrapping_neg())), to),
                            Type::Float(k) => (CV(float_neg(*k, v.0)), to),
                            _ => return None,
                        }
                    }
                    UnaryOp::BitNot if ty.is_integer() => {
                        let to = ty.promoted();
                        let v = self.cv_convert(v, &ty, &to)?;
                        let k = to.int_kind()?;
                        (CV(k.wrap(!v.0)), to)
                    }
                    UnaryOp::Not if ty.is_scalar() => {
                        let t = self.cv_truth(v, &ty);
                        (CV(u64::from(!t)), Type::INT)
                    }
                    _ => return None,
                }
            }
            ExprKind::Binary(op, l, r) => self.eval_binary(*op, l, r)?,
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                let (c, cty) = self.eval_inner(cond)?;
                let (a, at) = self.eval_inner(then)?;
                let (b, bt) = self.eval_inner(otherwise)?;
                if !at.is_arith() || !bt.is_arith() {
                    return None;
                }
                let ty = usual_arith(&at, &bt);
                if self.cv_truth(c, &cty) {
                    (self.cv_convert(a, &at, &ty)?, ty)
                } else {
                    (self.cv_convert(b, &bt, &ty)?, ty)
                }
            }
            ExprKind::Cast(tn, x) => {
                let to = self.type_name(tn).ty;
                let (v, from) = self.eval_inner(x)?;
                if to.is_pointer() && from.is_integer() && v.0 == 0 {
                    return Some((CV(0), to));
                }
                if !to.is_arith() || !from.is_arith() {
                    return None;
                }
                (self.cv_convert(v, &from, &to)?, to)
            }
            ExprKind::SizeofType(tn) => {
                let t = self.type_name(tn);
                (CV(self.records.size(&t.ty)?), Type::ULONG)
            }
            ExprKind::AlignofType(tn) => {
                let t = self.type_name(tn);
                (CV(self.records.align(&t.ty)), Type::ULONG)
            }
            ExprKind::SizeofExpr(x) => {
                let t = self.type_of_object(x);
                (CV(self.records.size(&t)?), Type::ULONG)
            }
            ExprKind::Call { callee, args } => {
                // `vec_step` is a constant (as `sizeof` is), unless a user function shadows it.
                match (&callee.kind, args.as_slice()) {
                    (ExprKind::Ident(name), [arg])
                        if name == "vec_step"
                            && !matches!(self.lookup(name), Some(Sym::Func(_))) =>
                    {
                        let t = match &arg.kind {
                            ExprKind::TypeArg(tn) => self.type_name(tn).ty,
                            _ => self.type_of(arg),
                        };
                        let n = match t {
                            Type::Vector(_, n) => super::types::storage_lanes(n),
                            t if t.is_arith() => 1,
                            _ => return None,
                        };
                        (CV(n), Type::INT)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    fn eval_binary(&mut self, op: BinaryOp, l: &Expr, r: &Expr) -> Option<(CV, Type)> {
        let (a, at) = self.eval_inner(l)?;
        if matches!(op, BinaryOp::LogAnd | BinaryOp::LogOr) {
            let ta = self.cv_truth(a, &at);
            if ta == (op == BinaryOp::LogOr) {
                return Some((CV(u64::from(ta)), Type::INT));
            }
            let (b, bt) = self.eval_inner(r)?;
            return Some((CV(u64::from(self.cv_truth(b, &bt))), Type::INT));
        }
        let (b, bt) = self.eval_inner(r)?;
        if !at.is_arith() || !bt.is_arith() {
            return None;
        }
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let lt = at.promoted();
            let k = lt.int_kind()?;
            bt.int_kind()
                .or(matches!(bt, Type::Bool).then_some(IntKind::Int))?;
            let a = self.cv_convert(a, &at, &lt)?.0;
            let n = (b.0 % u64::from(k.bits())) as u32;
            let v = match op {
                BinaryOp::Shl => a << n,
                _ if k.signed() => ((a as i64) >> n) as u64,
                _ => {
                    (a & if k.bits() == 64 {
                        u64::MAX
                    } else {
                        (1u64 << k.bits()) - 1
                    }) >> n
                }
            };
            return Some((CV(k.wrap(v)), lt));
        }
        let ty = usual_arith(&at, &bt);
        let a = self.cv_convert(a, &at, &ty)?.0;
        let b = self.cv_convert(b, &bt, &ty)?.0;
        let cmp_result = |c: bool| Some((CV(u64::from(c)), Type::INT));
        match &ty {
            Type::Float(k) => {
                let k = *k;
                match op {
                    BinaryOp::Add => Some((CV(float_arith(k, '+', a, b)), ty)),
                    BinaryOp::Sub => Some((CV(float_arith(k, '-', a, b)), ty)),
                    BinaryOp::Mul => Some((CV(float_arith(k, '*', a, b)), ty)),
                    BinaryOp::Div => Some((CV(float_arith(k, '/', a, b)), ty)),
                    BinaryOp::Lt => cmp_result(float_cmp(k, "<", a, b)),
                    BinaryOp::Gt => cmp_result(float_cmp(k, "<", b, a)),
                    BinaryOp::Le => cmp_result(float_cmp(k, "<=", a, b)),
                    BinaryOp::Ge => cmp_result(float_cmp(k, "<=", b, a)),
                    BinaryOp::Eq => cmp_result(float_cmp(k, "==", a, b)),
                    BinaryOp::Ne => cmp_result(!float_cmp(k, "==", a, b)),
                    _ => None,
                }
            }
            Type::Int(k) => {
                let k = *k;
                let (sa, sb) = (k.value(a), k.value(b));
                let v: i128 = match op {
                    BinaryOp::Add => sa + sb,
                    BinaryOp::Sub => sa - sb,
                    BinaryOp::Mul => sa.wrapping_mul(sb),
                    BinaryOp::Div | BinaryOp::Rem => {
                        if sb == 0 {
                            return None;
                        }
                        let q = sa / sb;
                        if !k.fits(q) && op == BinaryOp::Div {
                            return None;
                        }
                        if op == BinaryOp::Div {
                            q
                        } else {
                            sa % sb
                        }
                    }
                    BinaryOp::BitAnd => (a & b) as i128,
                    BinaryOp::BitOr => (a | b) as i128,
                    BinaryOp::BitXor => (a ^ b) as i128,
                    BinaryOp::Lt => return cmp_result(sa < sb),
                    BinaryOp::Gt => return cmp_result(sa > sb),
                    BinaryOp::Le => return cmp_result(sa <= sb),
                    BinaryOp::Ge => return cmp_result(sa >= sb),
                    BinaryOp::Eq => return cmp_result(sa == sb),
                    BinaryOp::Ne => return cmp_result(sa != sb),
                    _ => return None,
                };
                Some((CV(k.wrap(v as u64)), ty))
            }
            _ => None,
        }
    }

    pub(crate) fn cv_truth(&self, v: CV, ty: &Type) -> bool {
        match ty {
            Type::Float(k) => !float_cmp(*k, "==", v.0, 0),
            _ => v.0 != 0,
        }
    }

    /// Convert a constant between arithmetic types; `None` when the result is undefined
    /// (a float out of an integer type's range).
    pub(crate) fn cv_convert(&self, v: CV, from: &Type, to: &Type) -> Option<CV> {
        Some(CV(match (from, to) {
            (_, Type::Bool) => u64::from(self.cv_truth(v, from)),
            (Type::Bool, Type::Int(_)) => v.0 & 1,
            (Type::Int(_), Type::Int(k)) => k.wrap(v.0),
            (Type::Bool, Type::Float(k)) => int_to_float(*k, v.0 & 1, false),
            (Type::Int(s), Type::Float(k)) => int_to_float(*k, v.0, s.signed()),
            (Type::Float(f), Type::Int(k)) => float_to_int(*f, v.0, *k)?,
            (Type::Float(f), Type::Float(g)) => float_to_float(*f, *g, v.0),
            (Type::Pointer(_), Type::Pointer(_)) => v.0,
            _ => return None,
        }))
    }
}
