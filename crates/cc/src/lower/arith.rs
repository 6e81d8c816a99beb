//! Constant arithmetic with exactly the semantics the generated code has (two's complement
//! wrap, IEEE arithmetic rounded to nearest even), on the bits of values: what constant
//! expressions ([`super::consteval`]) and the folding of casts compute with.

use super::types::{FloatKind, IntKind, Type};
use crate::ast::IntSuffix;
use crate::ir::{CastOp, Ty};
use warpkit_float as wf;
use warpkit_float::Round;

/// A constant's bits: integers sign- or zero-extended to 64 bits per their type, floats in
/// their IEEE encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CV(pub u64);

/// The type of an integer literal by C99 6.4.4.1 (`long long` is `long`), and whether a
/// decimal literal had to become unsigned. `None` when no type holds it.
pub(crate) fn int_lit_type(
    value: u128,
    suffix: IntSuffix,
    decimal: bool,
) -> Option<(IntKind, bool)> {
    let candidates: &[IntKind] = match (suffix.unsigned, suffix.long > 0, decimal) {
        (false, false, true) => &[IntKind::Int, IntKind::Long],
        (false, false, false) => &[IntKind::Int, IntKind::UInt, IntKind::Long, IntKind::ULong],
        (true, false, _) => &[IntKind::UInt, IntKind::ULong],
        (false, true, true) => &[IntKind::Long],
        (false, true, false) => &[IntKind::Long, IntKind::ULong],
        (true, true, _) => &[IntKind::ULong],
    };
    if let Some(k) = candidates.iter().find(|k| k.fits(value as i128)) {
        return Some((*k, false));
    }
    if value <= u128::from(u64::MAX) {
        return Some((IntKind::ULong, true));
    }
    None
}

macro_rules! by_format {
    ($kind:expr, $F:ident, $t:ident, $body:expr) => {
        match $kind {
            FloatKind::Half => {
                type $F = wf::F16;
                type $t = u16;
                $body
            }
            FloatKind::Float => {
                type $F = wf::F32;
                type $t = u32;
                $body
            }
            FloatKind::Double => {
                type $F = wf::F64;
                type $t = u64;
                $body
            }
        }
    };
}

/// `a op b` in float format `kind` (`op` one of `+ - * /`).
pub(crate) fn float_arith(kind: FloatKind, op: char, a: u64, b: u64) -> u64 {
    by_format!(kind, F, T, {
        let (a, b) = (a as T, b as T);
        let r = match op {
            '+' => wf::add::<F>(a, b, Round::Rne).0,
            '-' => wf::sub::<F>(a, b, Round::Rne).0,
            '*' => wf::mul::<F>(a, b, Round::Rne).0,
            _ => wf::div::<F>(a, b, Round::Rne).0,
        };
        r as u64
    })
}

/// IEEE comparison: `op` is `<`, `<=`, `==`.
pub(crate) fn float_cmp(kind: FloatKind, op: &str, a: u64, b: u64) -> bool {
    by_format!(kind, F, T, {
        let (a, b) = (a as T, b as T);
        match op {
            "<" => wf::lt::<F>(a, b).0,
            "<=" => wf::le::<F>(a, b).0,
            _ => wf::eq::<F>(a, b).0,
        }
    })
}

pub(crate) fn float_neg(kind: FloatKind, a: u64) -> u64 {
    by_format!(kind, F, T, wf::neg::<F>(a as T) as u64)
}

/// Integer (sign-extended when `signed`) to float, rounded to nearest even.
pub(crate) fn int_to_float(kind: FloatKind, v: u64, signed: bool) -> u64 {
    by_format!(kind, F, T, {
        let r: T = if signed {
            wf::from_i64::<F>(v as i64, Round::Rne).0
        } else {
            wf::from_u64::<F>(v, Round::Rne).0
        };
        r as u64
    })
}

/// Float to integer rounding toward zero; `None` when the value is out of range or NaN.
pub(crate) fn float_to_int(kind: FloatKind, a: u64, to: IntKind) -> Option<u64> {
    by_format!(kind, F, T, {
        let int = wf::Int::new(to.signed(), to.bits());
        let (r, flags) = wf::to_int::<F>(a as T, int, Round::Rtz);
        if flags.contains(wf::Flags::NV) {
            None
        } else {
            Some(r)
        }
    })
}

/// Float to float.
pub(crate) fn float_to_float(from: FloatKind, to: FloatKind, a: u64) -> u64 {
    by_format!(from, F, T, {
        let a = a as T;
        by_format!(to, G, U, {
            let r: U = wf::convert::<F, G>(a, Round::Rne).0;
            r as u64
        })
    })
}

/// Usual arithmetic conversions (C99 6.3.1.8) on two arithmetic types.
pub(crate) fn usual_arith(a: &Type, b: &Type) -> Type {
    if a.is_error() || b.is_error() {
        return Type::Error;
    }
    match (a, b) {
        (Type::Float(x), Type::Float(y)) => return Type::Float((*x).max(*y)),
        (Type::Float(x), _) | (_, Type::Float(x)) => return Type::Float(*x),
        _ => {}
    }
    let (Type::Int(x), Type::Int(y)) = (a.promoted(), b.promoted()) else {
        return Type::Error;
    };
    if x == y {
        return Type::Int(x);
    }
    if x.signed() == y.signed() {
        return Type::Int(if x.rank() >= y.rank() { x } else { y });
    }
    let (s, u) = if x.signed() { (x, y) } else { (y, x) };
    if u.rank() >= s.rank() {
        Type::Int(u)
    } else if s.bits() > u.bits() {
        Type::Int(s)
    } else {
        Type::Int(s.to_unsigned())
    }
}

/// The value of a cast of constant `bits` from `from` to `to`, when it is certain.
pub(crate) fn fold_cast(op: CastOp, bits: u64, from: Ty, to: Ty) -> Option<u64> {
    let fkind = |t: Ty| match t {
        Ty::F16 => Some(FloatKind::Half),
        Ty::F32 => Some(FloatKind::Float),
        Ty::F64 => Some(FloatKind::Double),
        _ => None,
    };
    let sext = |bits: u64, w: u32| -> u64 {
        if w >= 64 {
            bits
        } else {
            (((bits << (64 - w)) as i64) >> (64 - w)) as u64
        }
    };
    let mask = |w: u32| if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    Some(match op {
        CastOp::ZExt => bits & mask(from.bits()),
        CastOp::SExt => sext(bits, from.bits()) & mask(to.bits()),
        CastOp::Trunc => bits & mask(to.bits()),
        CastOp::SExt8 => sext(bits, 8) & mask(32),
        CastOp::SExt16 => sext(bits, 16) & mask(32),
        CastOp::ZExt8 => bits & 0xff,
        CastOp::ZExt16 => bits & 0xffff,
        CastOp::SIToF => int_to_float(fkind(to)?, sext(bits, from.bits()), true),
        CastOp::UIToF => int_to_float(fkind(to)?, bits & mask(from.bits()), false),
        CastOp::FExt | CastOp::FTrunc => float_to_float(fkind(from)?, fkind(to)?, bits),
        CastOp::FToSI => {
            let k = if to == Ty::I64 {
                IntKind::Long
            } else {
                IntKind::Int
            };
            float_to_int(fkind(from)?, bits, k)? & mask(to.bits())
        }
        CastOp::FToUI => {
            let k = if to == Ty::I64 {
                IntKind::ULong
            } else {
                IntKind::UInt
            };
            float_to_int(fkind(from)?, bits, k)?
        }
        CastOp::Bitcast => {
            if from.is_ptr() || to.is_ptr() {
                return None;
            }
            bits
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_types_follow_c99() {
        let none = IntSuffix::default();
        let u = IntSuffix {
            unsigned: true,
            long: 0,
        };
        let l = IntSuffix {
            unsigned: false,
            long: 1,
        };
        assert_eq!(int_lit_type(1, none, true), Some((IntKind::Int, false)));
        assert_eq!(
            int_lit_type(0x8000_0000, none, true),
            Some((IntKind::Long, false))
        );
        assert_eq!(
            int_lit_type(0x8000_0000, none, false),
            Some((IntKind::UInt, false))
        );
        assert_eq!(
            int_lit_type(0x1_0000_0000, none, false),
            Some((IntKind::Long, false))
        );
        assert_eq!(
            int_lit_type(1 << 63, none, false),
            Some((IntKind::ULong, false))
        );
        assert_eq!(
            int_lit_type(1 << 63, none, true),
            Some((IntKind::ULong, true))
        );
        assert_eq!(int_lit_type(5, u, true), Some((IntKind::UInt, false)));
        assert_eq!(
            int_lit_type(1 << 32, u, true),
            Some((IntKind::ULong, false))
        );
        assert_eq!(int_lit_type(5, l, true), Some((IntKind::Long, false)));
        assert_eq!(
            int_lit_type(1 << 63, l, false),
            Some((IntKind::ULong, false))
        );
        assert_eq!(int_lit_type(1 << 64, none, true), None);
    }

    #[test]
    fn usual_arithmetic_conversions() {
        let c = Type::Int(IntKind::Char);
        let uc = Type::Int(IntKind::UChar);
        assert_eq!(usual_arith(&c, &uc), Type::INT);
        assert_eq!(usual_arith(&Type::INT, &Type::UINT), Type::UINT);
        assert_eq!(usual_arith(&Type::LONG, &Type::UINT), Type::LONG);
        assert_eq!(usual_arith(&Type::ULONG, &Type::INT), Type::ULONG);
        assert_eq!(usual_arith(&Type::LONG, &Type::ULONG), Type::ULONG);
        assert_eq!(usual_arith(&Type::FLOAT, &Type::LONG), Type::FLOAT);
        assert_eq!(usual_arith(&Type::FLOAT, &Type::DOUBLE), Type::DOUBLE);
        assert_eq!(
            usual_arith(&Type::Float(FloatKind::Half), &Type::INT),
            Type::Float(FloatKind::Half)
        );
    }
}
