//! Conversions between formats and to and from integers.

use crate::format::{nan, sign_bit, unpack, Bits, Class, Format, Layout};
use crate::round::{round_pack, round_shift};
use crate::{Flags, Round};

/// Format `F` to format `T`, rounding when `T` is narrower. NaN becomes `T`'s canonical NaN
/// (NV for a signaling NaN); infinities and zeros keep their sign.
pub fn convert<F: Format, T: Format>(a: F::Bits, rm: Round) -> (T::Bits, Flags) {
    let (sign, class) = unpack::<F>(a.to_u64());
    let (bits, flags) = match class {
        Class::Nan { signaling } => (nan::<T>(), if signaling { Flags::NV } else { Flags::NONE }),
        Class::Inf => (sign_bit::<T>(sign) | Layout::<T>::INF, Flags::NONE),
        Class::Zero => (sign_bit::<T>(sign), Flags::NONE),
        Class::Finite { sig, exp } => round_pack::<T>(sign, exp, sig as u128, rm),
    };
    (T::Bits::from_u64(bits), flags)
}

/// A signed 64-bit integer (any narrower signed integer sign-extended) to `F`.
pub fn from_i64<F: Format>(v: i64, rm: Round) -> (F::Bits, Flags) {
    if v == 0 {
        return (F::Bits::from_u64(0), Flags::NONE);
    }
    let (bits, flags) = round_pack::<F>(v < 0, 0, v.unsigned_abs() as u128, rm);
    (F::Bits::from_u64(bits), flags)
}

/// An unsigned 64-bit integer (any narrower unsigned integer zero-extended) to `F`.
pub fn from_u64<F: Format>(v: u64, rm: Round) -> (F::Bits, Flags) {
    if v == 0 {
        return (F::Bits::from_u64(0), Flags::NONE);
    }
    let (bits, flags) = round_pack::<F>(false, 0, v as u128, rm);
    (F::Bits::from_u64(bits), flags)
}

/// The value `(-1)^negative × sig × 2^exp` rounded once to `F` in `rm`, with the flags of
/// that rounding (NX, OF|NX, UF|NX as for every operation): a parsed literal (a hex float's
/// digits and exponent) becomes a value of any format without an intermediate one. `sig`
/// is exact, or, when it has more significant bits than `F` keeps, any nonzero bits below
/// its lowest are jammed into its least significant bit with at least two bits between
/// it and `F`'s precision (64 significant bits suffice for every format up to f64).
pub fn from_scaled<F: Format>(negative: bool, sig: u128, exp: i32, rm: Round) -> (F::Bits, Flags) {
    if sig == 0 {
        return (F::Bits::from_u64(sign_bit::<F>(negative)), Flags::NONE);
    }
    // Far beyond every format's range either way; keeps the exponent arithmetic in range.
    const LIMIT: i32 = 1 << 20;
    let (bits, flags) = round_pack::<F>(negative, exp.clamp(-LIMIT, LIMIT), sig, rm);
    (F::Bits::from_u64(bits), flags)
}

/// An integer format for [`to_int`]: signedness and width in bits (1..=64).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Int {
    /// Two's complement (true) or unsigned (false).
    pub signed: bool,
    /// Width in bits, 1..=64.
    pub bits: u32,
}

impl Int {
    /// `i8`.
    pub const I8: Int = Int::new(true, 8);
    /// `u8`.
    pub const U8: Int = Int::new(false, 8);
    /// `i16`.
    pub const I16: Int = Int::new(true, 16);
    /// `u16`.
    pub const U16: Int = Int::new(false, 16);
    /// `i32`.
    pub const I32: Int = Int::new(true, 32);
    /// `u32`.
    pub const U32: Int = Int::new(false, 32);
    /// `i64`.
    pub const I64: Int = Int::new(true, 64);
    /// `u64`.
    pub const U64: Int = Int::new(false, 64);

    /// An integer format; panics when `bits` is not in 1..=64.
    pub const fn new(signed: bool, bits: u32) -> Int {
        assert!(bits >= 1 && bits <= 64, "integer width must be 1..=64");
        Int { signed, bits }
    }

    fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
}

/// `a` rounded in `rm` to the integer format `to`, saturating as RISC-V `fcvt.w.s` does:
/// NaN and values above the range give the largest integer, values below it the smallest
/// (0 for unsigned), raising NV and not NX; an in-range inexact conversion raises NX.
///
/// The result is returned in 64 bits: sign-extended for a signed format, zero-extended for
/// an unsigned one.
pub fn to_int<F: Format>(a: F::Bits, to: Int, rm: Round) -> (u64, Flags) {
    let (sign, class) = unpack::<F>(a.to_u64());
    let encode = |v: i128| v as i64 as u64;
    let encode_unsigned = |v: i128| if to.signed { encode(v) } else { v as u64 };
    let saturate = |negative: bool| {
        let v = if negative { to.min() } else { to.max() };
        (encode_unsigned(v), Flags::NV)
    };
    match class {
        Class::Nan { .. } => saturate(false),
        Class::Inf => saturate(sign),
        Class::Zero => (0, Flags::NONE),
        Class::Finite { sig, exp } => {
            // Anything with 2^66 or more is out of every range; keep the shift bounded.
            let msb = 63 - sig.leading_zeros() as i32;
            if exp + msb >= 66 {
                return saturate(sign);
            }
            let (mag, inexact) = round_shift(sig as u128, -exp, sign, rm);
            let v = if sign { -(mag as i128) } else { mag as i128 };
            if v < to.min() || v > to.max() {
                saturate(sign)
            } else {
                (
                    encode_unsigned(v),
                    if inexact { Flags::NX } else { Flags::NONE },
                )
            }
        }
    }
}
