//! The binary interchange formats, their bit patterns and the unpacked form the operations
//! work on.

use crate::Flags;

/// The unsigned integer holding one value of a format (`u16`, `u32` or `u64`).
pub trait Bits: Copy + Eq + std::fmt::Debug + std::fmt::LowerHex + 'static {
    /// Zero-extend to 64 bits.
    fn to_u64(self) -> u64;
    /// Truncate from 64 bits.
    fn from_u64(v: u64) -> Self;
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
        }
    )*};
}
bits!(u16, u32, u64);

/// A binary floating-point format: a sign bit, `EXP_BITS` biased exponent bits and
/// `FRAC_BITS` stored fraction bits (precision `FRAC_BITS + 1`).
pub trait Format: Copy + 'static {
    /// The integer type holding one value.
    type Bits: Bits;
    /// The type's suffix in assembly (`f16`, `bf16`, `f32`, `f64`).
    const NAME: &'static str;
    /// Width of the biased exponent field.
    const EXP_BITS: u32;
    /// Width of the stored fraction (trailing significand) field.
    const FRAC_BITS: u32;
    /// The NaN every arithmetic operation and conversion returns: positive, quiet, with an
    /// all-zero payload (RISC-V).
    const CANONICAL_NAN: Self::Bits;
}

macro_rules! format {
    ($(#[$doc:meta])* $name:ident, $bits:ty, $asm:literal, $exp:literal, $frac:literal, $nan:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name;
        impl Format for $name {
            type Bits = $bits;
            const NAME: &'static str = $asm;
            const EXP_BITS: u32 = $exp;
            const FRAC_BITS: u32 = $frac;
            const CANONICAL_NAN: $bits = $nan;
        }
    };
}
format!(
    /// IEEE binary16 (half precision).
    F16, u16, "f16", 5, 10, 0x7e00
);
format!(
    /// bfloat16: binary32's exponent range with 8 bits of precision.
    BF16, u16, "bf16", 8, 7, 0x7fc0
);
format!(
    /// IEEE binary32 (single precision).
    F32, u32, "f32", 8, 23, 0x7fc0_0000
);
format!(
    /// IEEE binary64 (double precision).
    F64, u64, "f64", 11, 52, 0x7ff8_0000_0000_0000
);

/// Derived constants of a format, computed on raw `u64` patterns.
pub(crate) struct Layout<F>(std::marker::PhantomData<F>);

impl<F: Format> Layout<F> {
    pub const SIGN: u64 = 1 << (F::EXP_BITS + F::FRAC_BITS);
    pub const EXP_MASK: u64 = ((1 << F::EXP_BITS) - 1) << F::FRAC_BITS;
    pub const FRAC_MASK: u64 = (1 << F::FRAC_BITS) - 1;
    pub const QUIET: u64 = 1 << (F::FRAC_BITS - 1);
    pub const BIAS: i32 = (1 << (F::EXP_BITS - 1)) - 1;
    /// The exponent of the smallest normal number.
    pub const EMIN: i32 = 1 - Self::BIAS;
    /// The exponent of the largest finite number.
    pub const EMAX: i32 = Self::BIAS;
    /// The precision in bits.
    pub const PREC: u32 = F::FRAC_BITS + 1;
    pub const INF: u64 = Self::EXP_MASK;
    pub const MAX_FINITE: u64 = Self::EXP_MASK - 1;
}

/// An operand after unpacking.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Zero,
    /// A finite nonzero value `sig × 2^exp`, `sig > 0` (not necessarily normalised).
    Finite {
        sig: u64,
        exp: i32,
    },
    Inf,
    Nan {
        signaling: bool,
    },
}

#[inline]
pub(crate) fn unpack<F: Format>(bits: u64) -> (bool, Class) {
    let sign = bits & Layout::<F>::SIGN != 0;
    let e = ((bits & Layout::<F>::EXP_MASK) >> F::FRAC_BITS) as i32;
    let frac = bits & Layout::<F>::FRAC_MASK;
    let class = if e == (1 << F::EXP_BITS) - 1 {
        if frac == 0 {
            Class::Inf
        } else {
            Class::Nan {
                signaling: frac & Layout::<F>::QUIET == 0,
            }
        }
    } else if e == 0 {
        if frac == 0 {
            Class::Zero
        } else {
            Class::Finite {
                sig: frac,
                exp: Layout::<F>::EMIN - F::FRAC_BITS as i32,
            }
        }
    } else {
        Class::Finite {
            sig: frac | (1 << F::FRAC_BITS),
            exp: e - Layout::<F>::BIAS - F::FRAC_BITS as i32,
        }
    };
    (sign, class)
}

#[inline]
pub(crate) fn sign_bit<F: Format>(sign: bool) -> u64 {
    if sign {
        Layout::<F>::SIGN
    } else {
        0
    }
}

#[inline]
pub(crate) fn nan<F: Format>() -> u64 {
    F::CANONICAL_NAN.to_u64()
}

/// The bits with the sign flipped (assembly source modifier `-x`): no flag, NaNs untouched
/// otherwise.
pub fn neg<F: Format>(a: F::Bits) -> F::Bits {
    F::Bits::from_u64(a.to_u64() ^ Layout::<F>::SIGN)
}

/// The bits with the sign cleared (assembly source modifier `|x|`).
pub fn abs<F: Format>(a: F::Bits) -> F::Bits {
    F::Bits::from_u64(a.to_u64() & !Layout::<F>::SIGN)
}

/// Whether `a` is a NaN (quiet or signaling).
pub fn is_nan<F: Format>(a: F::Bits) -> bool {
    matches!(unpack::<F>(a.to_u64()).1, Class::Nan { .. })
}

/// Whether `a` is a signaling NaN.
pub fn is_signaling<F: Format>(a: F::Bits) -> bool {
    matches!(unpack::<F>(a.to_u64()).1, Class::Nan { signaling: true })
}

/// Whether `a` is subnormal (nonzero with a zero exponent field).
pub fn is_subnormal<F: Format>(a: F::Bits) -> bool {
    let a = a.to_u64();
    a & Layout::<F>::EXP_MASK == 0 && a & Layout::<F>::FRAC_MASK != 0
}

/// Flush-to-zero of an operand: a subnormal becomes the zero of its sign. Raises no flag
/// (`fflags` has no input-denormal flag).
pub fn flush_input<F: Format>(a: F::Bits) -> F::Bits {
    if is_subnormal::<F>(a) {
        F::Bits::from_u64(a.to_u64() & Layout::<F>::SIGN)
    } else {
        a
    }
}

/// Flush-to-zero of a result: a subnormal result (after rounding) becomes the zero of its
/// sign and UF and NX are added to its flags (the delivered zero differs from the rounded
/// tiny result, so it is both tiny and inexact). Normal results, zeros, infinities and NaNs
/// pass unchanged.
pub fn flush_result<F: Format>(r: F::Bits, flags: Flags) -> (F::Bits, Flags) {
    if is_subnormal::<F>(r) {
        (
            F::Bits::from_u64(r.to_u64() & Layout::<F>::SIGN),
            flags | Flags::UF | Flags::NX,
        )
    } else {
        (r, flags)
    }
}
