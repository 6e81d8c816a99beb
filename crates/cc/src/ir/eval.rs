//! The scalar semantics of the IR's value operations on raw bits: one definition shared by
//! the interpreter ([`super::interp`]) and constant folding, so that a folded constant is
//! exactly what the operation would have computed.
//!
//! A value is a `u64` holding its type's bits zero-extended (`I1` as 0/1, floats as their
//! IEEE encoding, pointers as addresses).
//!
//! Choices (the machine's, where C leaves the result open):
//! - Integer arithmetic wraps; shift and rotate amounts are taken modulo the width.
//! - Integer division or remainder by zero, and signed `MIN / -1` and `MIN % -1`, are
//!   undefined: [`binary`] reports [`Undefined`] and neither the interpreter nor folding
//!   gives them a value.
//! - Floating point is IEEE 754 in round-to-nearest-even, computed exactly by
//!   `warpkit-float` (the machine's own soft-float): every NaN an arithmetic operation or
//!   conversion produces is the canonical NaN (`0x7e00`, `0x7fc00000`,
//!   `0x7ff8000000000000`), as on the machine; `FNeg`/`FAbs` only flip/clear the sign bit.
//!   `FMin`/`FMax` are minimumNumber/maximumNumber with −0 < +0.
//! - Float → integer conversions (C leaves out-of-range values undefined) saturate as the
//!   machine's RISC-V style `cvt` instructions do: NaN and values above the range give the
//!   largest integer, values below it the smallest (0 for unsigned); in range they round
//!   toward zero.
//! - `Math`: `Sqrt` and `Rcp` are correctly rounded. The approximate ones (`Rsqrt`,
//!   `Exp2`, `Log2`, `SinPi`, `CosPi`) are within 1 ulp on the machine; here they are the
//!   host's binary64 result rounded once to f32, with the machine's special cases (see
//!   `docs/provisional.md`, SFU). They may differ from the machine in the last bit, so tests
//!   must not compare them bit for bit, and folding never folds them.

use super::{BinOp, CastOp, CmpPred, MathOp, Ty, UnOp};
use warpkit_float::{self as wf, Bits, Format, Int, Round};

/// An operation whose result C leaves undefined (and the machine has no answer for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undefined {
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// Signed division or remainder of the smallest integer by -1.
    DivisionOverflow,
}

impl Undefined {
    /// A description for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Undefined::DivisionByZero => "integer division by zero",
            Undefined::DivisionOverflow => "signed division overflow (MIN / -1)",
        }
    }
}

const RNE: Round = Round::Rne;

/// The bits a value of type `ty` occupies (all ones in its width).
pub const fn mask(ty: Ty) -> u64 {
    let bits = ty.bits();
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `v`'s low `bits` bits sign-extended to 64.
pub const fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

/// The result of `Unary(op)` on `a` of type `ty`.
pub fn unary(op: UnOp, ty: Ty, a: u64) -> u64 {
    let w = ty.bits();
    let m = mask(ty);
    let sign = 1u64 << (w - 1);
    match op {
        UnOp::Neg => a.wrapping_neg() & m,
        UnOp::Not => !a & m,
        UnOp::Clz => {
            if a == 0 {
                u64::from(w)
            } else {
                u64::from(a.leading_zeros() - (64 - w))
            }
        }
        UnOp::Ctz => {
            if a == 0 {
                u64::from(w)
            } else {
                u64::from(a.trailing_zeros())
            }
        }
        UnOp::Popcount => u64::from(a.count_ones()),
        UnOp::Brev => a.reverse_bits() >> (64 - w),
        UnOp::Abs => (sext(a, w).wrapping_abs() as u64) & m,
        UnOp::FNeg => a ^ sign,
        UnOp::FAbs => a & !sign,
    }
}

/// The result of `Binary(op)` on `a` and `b` of type `ty`.
pub fn binary(op: BinOp, ty: Ty, a: u64, b: u64) -> Result<u64, Undefined> {
    if op.is_float() {
        return Ok(match ty {
            Ty::F16 => float_binary::<wf::F16>(op, a, b),
            Ty::F32 => float_binary::<wf::F32>(op, a, b),
            _ => float_binary::<wf::F64>(op, a, b),
        });
    }
    let w = ty.bits();
    let m = mask(ty);
    let (sa, sb) = (sext(a, w), sext(b, w));
    let amount = if w == 1 { 0 } else { (b % u64::from(w)) as u32 };
    let r = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::MulHiS => ((i128::from(sa) * i128::from(sb)) >> w) as u64,
        BinOp::MulHiU => ((u128::from(a) * u128::from(b)) >> w) as u64,
        BinOp::SDiv | BinOp::SRem => {
            if b == 0 {
                return Err(Undefined::DivisionByZero);
            }
            if sb == -1 && sa == sext(1 << (w - 1), w) {
                return Err(Undefined::DivisionOverflow);
            }
            if op == BinOp::SDiv {
                (sa / sb) as u64
            } else {
                (sa % sb) as u64
            }
        }
        BinOp::UDiv | BinOp::URem => {
            if b == 0 {
                return Err(Undefined::DivisionByZero);
            }
            if op == BinOp::UDiv {
                a / b
            } else {
                a % b
            }
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << amount,
        BinOp::LShr => a >> amount,
        BinOp::AShr => (sa >> amount) as u64,
        BinOp::Rotl => {
            if amount == 0 {
                a
            } else {
                (a << amount) | (a >> (w - amount))
            }
        }
        BinOp::SMin => sa.min(sb) as u64,
        BinOp::SMax => sa.max(sb) as u64,
        BinOp::UMin => a.min(b),
        BinOp::UMax => a.max(b),
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FMin | BinOp::FMax => {
            unreachable!("float operations return above")
        }
    };
    Ok(r & m)
}

fn float_binary<F: Format>(op: BinOp, a: u64, b: u64) -> u64 {
    let (a, b) = (F::Bits::from_u64(a), F::Bits::from_u64(b));
    let r = match op {
        BinOp::FAdd => wf::add::<F>(a, b, RNE).0,
        BinOp::FSub => wf::sub::<F>(a, b, RNE).0,
        BinOp::FMul => wf::mul::<F>(a, b, RNE).0,
        BinOp::FDiv => wf::div::<F>(a, b, RNE).0,
        BinOp::FMin => wf::min::<F>(a, b).0,
        _ => wf::max::<F>(a, b).0,
    };
    r.to_u64()
}

/// `a*b + c` of type `ty`, rounded once.
pub fn fma(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    fn go<F: Format>(a: u64, b: u64, c: u64) -> u64 {
        let [a, b, c] = [a, b, c].map(F::Bits::from_u64);
        wf::fma::<F>(a, b, c, RNE).0.to_u64()
    }
    match ty {
        Ty::F16 => go::<wf::F16>(a, b, c),
        Ty::F32 => go::<wf::F32>(a, b, c),
        _ => go::<wf::F64>(a, b, c),
    }
}

/// `Cmp(pred)` of `a` and `b` of type `ty`.
pub fn cmp(pred: CmpPred, ty: Ty, a: u64, b: u64) -> bool {
    let w = ty.bits();
    let (sa, sb) = (sext(a, w), sext(b, w));
    match pred {
        CmpPred::Eq => a == b,
        CmpPred::Ne => a != b,
        CmpPred::Slt => sa < sb,
        CmpPred::Sle => sa <= sb,
        CmpPred::Sgt => sa > sb,
        CmpPred::Sge => sa >= sb,
        CmpPred::Ult => a < b,
        CmpPred::Ule => a <= b,
        CmpPred::Ugt => a > b,
        CmpPred::Uge => a >= b,
        _ => match ty {
            Ty::F16 => float_cmp::<wf::F16>(pred, a, b),
            Ty::F32 => float_cmp::<wf::F32>(pred, a, b),
            _ => float_cmp::<wf::F64>(pred, a, b),
        },
    }
}

fn float_cmp<F: Format>(pred: CmpPred, a: u64, b: u64) -> bool {
    let (a, b) = (F::Bits::from_u64(a), F::Bits::from_u64(b));
    match pred {
        CmpPred::FOeq => wf::eq::<F>(a, b).0,
        CmpPred::FOlt => wf::lt::<F>(a, b).0,
        CmpPred::FOle => wf::le::<F>(a, b).0,
        CmpPred::FOgt => wf::lt::<F>(b, a).0,
        CmpPred::FOge => wf::le::<F>(b, a).0,
        CmpPred::FUne => !wf::eq::<F>(a, b).0,
        CmpPred::FOrd => !wf::unordered::<F>(a, b).0,
        _ => wf::unordered::<F>(a, b).0,
    }
}

/// `Cast(op)` of `a` from type `from` to type `to`.
pub fn cast(op: CastOp, from: Ty, to: Ty, a: u64) -> u64 {
    let m = mask(to);
    match op {
        CastOp::ZExt | CastOp::Bitcast => a & m,
        CastOp::SExt => sext(a, from.bits()) as u64 & m,
        CastOp::Trunc => a & m,
        CastOp::SExt8 => sext(a, 8) as u64 & m,
        CastOp::SExt16 => sext(a, 16) as u64 & m,
        CastOp::ZExt8 => a & 0xff,
        CastOp::ZExt16 => a & 0xffff,
        CastOp::FToSI | CastOp::FToUI => {
            let int = Int {
                signed: op == CastOp::FToSI,
                bits: to.bits(),
            };
            let r = match from {
                Ty::F16 => wf::to_int::<wf::F16>(a as u16, int, Round::Rtz).0,
                Ty::F32 => wf::to_int::<wf::F32>(a as u32, int, Round::Rtz).0,
                _ => wf::to_int::<wf::F64>(a, int, Round::Rtz).0,
            };
            r & m
        }
        CastOp::SIToF | CastOp::UIToF => {
            fn go<F: Format>(signed: bool, v: u64) -> u64 {
                if signed {
                    wf::from_i64::<F>(v as i64, RNE).0.to_u64()
                } else {
                    wf::from_u64::<F>(v, RNE).0.to_u64()
                }
            }
            let signed = op == CastOp::SIToF;
            let v = if signed {
                sext(a, from.bits()) as u64
            } else {
                a
            };
            match to {
                Ty::F16 => go::<wf::F16>(signed, v),
                Ty::F32 => go::<wf::F32>(signed, v),
                _ => go::<wf::F64>(signed, v),
            }
        }
        CastOp::FExt | CastOp::FTrunc => convert(from, to, a),
    }
}

fn convert(from: Ty, to: Ty, a: u64) -> u64 {
    fn go<F: Format, T: Format>(a: u64) -> u64 {
        wf::convert::<F, T>(F::Bits::from_u64(a), RNE).0.to_u64()
    }
    match (from, to) {
        (Ty::F16, Ty::F32) => go::<wf::F16, wf::F32>(a),
        (Ty::F16, Ty::F64) => go::<wf::F16, wf::F64>(a),
        (Ty::F32, Ty::F16) => go::<wf::F32, wf::F16>(a),
        (Ty::F32, Ty::F64) => go::<wf::F32, wf::F64>(a),
        (Ty::F64, Ty::F16) => go::<wf::F64, wf::F16>(a),
        (Ty::F64, Ty::F32) => go::<wf::F64, wf::F32>(a),
        _ => a,
    }
}

/// Whether `Math(op)` is computed exactly as the machine computes it (correctly rounded),
/// so that folding it is safe.
pub const fn math_is_exact(op: MathOp) -> bool {
    matches!(op, MathOp::Sqrt | MathOp::Rcp)
}

/// `Math(op)` of `a` of type `ty`.
pub fn math(op: MathOp, ty: Ty, a: u64) -> u64 {
    match (op, ty) {
        (MathOp::Sqrt, Ty::F64) => wf::sqrt::<wf::F64>(a, RNE).0,
        (MathOp::Rcp, Ty::F64) => wf::div::<wf::F64>(1f64.to_bits(), a, RNE).0,
        (MathOp::Sqrt, _) => u64::from(wf::sqrt::<wf::F32>(a as u32, RNE).0),
        (MathOp::Rcp, _) => u64::from(wf::div::<wf::F32>(1f32.to_bits(), a as u32, RNE).0),
        (MathOp::Rsqrt, _) => u64::from(approx::rsqrt(a as u32)),
        (MathOp::Exp2, _) => u64::from(approx::exp2(a as u32)),
        (MathOp::Log2, _) => u64::from(approx::log2(a as u32)),
        (MathOp::SinPi, _) => u64::from(approx::trig(a as u32, false)),
        (MathOp::CosPi, _) => u64::from(approx::trig(a as u32, true)),
    }
}

/// The SFU approximations: the machine's special cases, and otherwise the host's binary64
/// value rounded once to f32.
mod approx {
    use warpkit_float::{self as wf, Round};

    const NAN: u32 = 0x7fc0_0000;
    const INF: u32 = 0x7f80_0000;
    const SIGN: u32 = 0x8000_0000;

    fn to_f32(y: f64) -> u32 {
        wf::convert::<wf::F64, wf::F32>(y.to_bits(), Round::Rne).0
    }

    fn is_nan(x: u32) -> bool {
        x & !SIGN > INF
    }

    pub fn rsqrt(x: u32) -> u32 {
        match x {
            _ if is_nan(x) => NAN,
            _ if x & !SIGN == 0 => (x & SIGN) | INF,
            _ if x & SIGN != 0 => NAN,
            INF => 0,
            _ => to_f32(1.0 / f64::from(f32::from_bits(x)).sqrt()),
        }
    }

    pub fn exp2(x: u32) -> u32 {
        match x {
            _ if is_nan(x) => NAN,
            INF => INF,
            0xff80_0000 => 0,
            _ => to_f32(f64::from(f32::from_bits(x)).exp2()),
        }
    }

    pub fn log2(x: u32) -> u32 {
        match x {
            _ if is_nan(x) => NAN,
            _ if x & !SIGN == 0 => SIGN | INF,
            _ if x & SIGN != 0 => NAN,
            INF => INF,
            0x3f80_0000 => 0,
            _ => to_f32(f64::from(f32::from_bits(x)).log2()),
        }
    }

    fn round_half_even(v: f64) -> f64 {
        let magic = 6_755_399_441_055_744.0;
        (v + magic) - magic
    }

    /// sin(πx) or cos(πx): the argument is reduced exactly to a quarter turn `t` and a
    /// quadrant, so that the zeros and the symmetries are exact.
    pub fn trig(x: u32, cosine: bool) -> u32 {
        if is_nan(x) || x & !SIGN == INF {
            return NAN;
        }
        let v = f64::from(f32::from_bits(x));
        let r = if v.abs() >= 16_777_216.0 {
            0.0
        } else {
            v - 2.0 * round_half_even(v / 2.0)
        };
        let q = round_half_even(2.0 * r);
        let t = r - q / 2.0;
        let quadrant = ((q as i64) + i64::from(cosine)).rem_euclid(4);
        let z = t * std::f64::consts::PI;
        let y = match quadrant {
            0 => z.sin(),
            1 => z.cos(),
            2 => -z.sin(),
            _ => -z.cos(),
        };
        if y == 0.0 {
            return if !cosine && q == 0.0 && r == 0.0 {
                x & SIGN
            } else {
                0
            };
        }
        to_f32(y)
    }
}
