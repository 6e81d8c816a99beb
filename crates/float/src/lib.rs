//! Exact IEEE 754-2019 binary floating point in software, the one soft-float core of
//! warpkit: the GPU model's f32/f64/f16 instructions, its bf16 conversions and the LinxISA
//! model's `.fd .fs .fh .bf` operations all call these functions.
//!
//! # Shape of the API
//!
//! Every operation is a plain function generic over a [`Format`] ([`F16`], [`BF16`], [`F32`],
//! [`F64`]) that takes raw bit patterns and a [`Round`] mode and returns the result bits and
//! the exception [`Flags`] it raised — no global or thread-local state:
//!
//! ```
//! use warpkit_float::{add, Flags, Round, F32};
//! let (bits, flags) = add::<F32>(1.0f32.to_bits(), 1e-30f32.to_bits(), Round::Rup);
//! assert_eq!(bits, 1.0f32.to_bits() + 1);
//! assert_eq!(flags, Flags::NX);
//! ```
//!
//! Arithmetic: [`add`] [`sub`] [`mul`] [`fma`] [`div`] [`sqrt`]; [`min`] [`max`];
//! compares [`eq`] [`lt`] [`le`] [`unordered`]; conversions [`convert`] (format to format),
//! [`from_i64`] [`from_u64`] (any integer width, sign- or zero-extended by the caller),
//! [`from_scaled`] (a significand and a power of two, as a literal gives them),
//! [`parse_literal`] (decimal and hexadecimal text, rounded once),
//! [`to_int`] (signed or unsigned, any width 1..=64, saturating); helpers [`classify`],
//! [`neg`], [`abs`], [`is_subnormal`], [`flush_input`], [`flush_result`].
//!
//! # Semantics (IEEE 754-2019 with the RISC-V choices)
//!
//! - Every result is the exact result rounded once in the requested mode.
//! - Tininess is detected **after rounding**; underflow (UF) is raised when the result is
//!   tiny and inexact. Overflow (OF) is raised when the result rounded with an unbounded
//!   exponent exceeds the largest finite number; it always comes with NX.
//! - Every NaN produced by arithmetic or conversion is the format's canonical NaN
//!   ([`Format::CANONICAL_NAN`]: `0x7e00`, `0x7fc0`, `0x7fc00000`, `0x7ff8000000000000`).
//!   NV is raised by signaling NaN operands and by invalid operations (including
//!   `fma(inf, 0, qNaN)`, as RISC-V requires).
//! - [`min`]/[`max`] are IEEE 754-2019 minimumNumber/maximumNumber with −0 < +0 (RISC-V
//!   `fmin`/`fmax`).
//! - [`to_int`] saturates like RISC-V `fcvt.w.s`: NaN and too-large values give the largest
//!   integer, too-small values the smallest, raising NV and not NX.
//! - Subnormals are never flushed by the operations themselves; [`flush_input`] and
//!   [`flush_result`] implement a flush-to-zero mode on top.
//!
//! # Why bf16 is exact here
//!
//! There is no intermediate format: each format is described only by its exponent and
//! fraction widths, and one rounding routine (`round_pack`) rounds the exact (or sticky-bit
//! exact) result directly to the destination format's precision and exponent range. bf16 is
//! just `EXP_BITS = 8, FRAC_BITS = 7`; no double rounding happens anywhere.
//!
//! # How exactness is reached
//!
//! Finite operands are unpacked into an integer significand and a power-of-two exponent.
//! Products and quotients are formed in `u128` (53 × 53 bits fit), sums are formed after
//! both significands are normalised to bit 125 and the smaller one is shifted right with a
//! sticky ("jam") bit. A sticky bit lost below the rounding position cannot change the
//! rounding as long as at least two bits are dropped, which the 125-bit working width
//! guarantees for every format up to f64 (see the comments in `arith.rs`).

mod arith;
mod cmp;
mod convert;
mod format;
mod literal;
mod round;

pub use arith::{add, div, fma, mul, sqrt, sub};
pub use cmp::{classify, eq, le, lt, max, min, unordered};
pub use convert::{convert, from_i64, from_scaled, from_u64, to_int, Int};
pub use format::{abs, flush_input, flush_result, is_nan, is_signaling, is_subnormal, neg};
pub use format::{Bits, Format, BF16, F16, F32, F64};
pub use literal::{parse_literal, LiteralError};

/// A rounding-direction attribute of IEEE 754, numbered as RISC-V's `rm` field.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Round {
    /// roundTiesToEven.
    Rne = 0,
    /// roundTowardZero.
    Rtz = 1,
    /// roundTowardNegative.
    Rdn = 2,
    /// roundTowardPositive.
    Rup = 3,
    /// roundTiesToAway.
    Rmm = 4,
}

impl Round {
    /// Every rounding mode, in field order.
    pub const ALL: [Round; 5] = [Round::Rne, Round::Rtz, Round::Rdn, Round::Rup, Round::Rmm];

    /// The mode a 3-bit `rm` field value names; `None` for 5, 6 (reserved) and 7 (dynamic),
    /// which the caller resolves.
    pub fn from_field(field: u8) -> Option<Round> {
        Round::ALL.get(usize::from(field)).copied()
    }

    /// The assembly name (`rne`, `rtz`, `rdn`, `rup`, `rmm`).
    pub fn name(self) -> &'static str {
        ["rne", "rtz", "rdn", "rup", "rmm"][self as usize]
    }
}

/// IEEE 754 exception flags, in the bit layout of the RISC-V (and warpkit) `fflags` CSR.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Flags(u8);

impl Flags {
    /// No flag.
    pub const NONE: Flags = Flags(0);
    /// Inexact (bit 0).
    pub const NX: Flags = Flags(1);
    /// Underflow (bit 1): tiny after rounding and inexact.
    pub const UF: Flags = Flags(2);
    /// Overflow (bit 2).
    pub const OF: Flags = Flags(4);
    /// Division by zero (bit 3).
    pub const DZ: Flags = Flags(8);
    /// Invalid operation (bit 4).
    pub const NV: Flags = Flags(16);

    /// The flags as the low five bits of `fflags`.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Flags from the low five bits of `fflags` (higher bits are ignored).
    pub const fn from_bits(bits: u8) -> Flags {
        Flags(bits & 0x1f)
    }

    /// Whether every flag of `other` is set in `self`.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no flag is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Flags {
    fn bitor_assign(&mut self, rhs: Flags) {
        self.0 |= rhs.0;
    }
}

impl std::fmt::Debug for Flags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = ["NX", "UF", "OF", "DZ", "NV"];
        let set: Vec<&str> = (0..5)
            .filter(|k| self.0 & (1 << k) != 0)
            .map(|k| names[k])
            .collect();
        if set.is_empty() {
            write!(f, "Flags()")
        } else {
            write!(f, "Flags({})", set.join("|"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_is_rounded_directly_not_through_f32() {
        // 1 + 2^-9 is below bf16's half ulp (2^-8): rup gives the next bf16, with NX.
        let one = 0x3f80u16;
        let tiny = 0x3b00u16; // 2^-9
        assert_eq!(add::<BF16>(one, tiny, Round::Rup), (0x3f81, Flags::NX));
        assert_eq!(add::<BF16>(one, tiny, Round::Rne), (0x3f80, Flags::NX));
    }

    #[test]
    fn fma_inf_times_zero_is_invalid_even_with_a_quiet_nan_addend() {
        let inf = f32::INFINITY.to_bits();
        let qnan = 0x7fc0_0001;
        assert_eq!(
            fma::<F32>(inf, 0, qnan, Round::Rne),
            (F32::CANONICAL_NAN, Flags::NV)
        );
        assert_eq!(
            fma::<F32>(1.0f32.to_bits(), 0, qnan, Round::Rne),
            (F32::CANONICAL_NAN, Flags::NONE)
        );
    }

    #[test]
    fn tininess_is_detected_after_rounding() {
        // The largest subnormal plus 3/4 of its ulp is 2^-126 - 2^-151: rounded (rne) to 24
        // bits with an unbounded exponent it is the tie 2^-126 - 2^-151, which goes to the
        // even 2^-126, so the result is inexact but not tiny: no UF.
        let max_sub = 0x007f_ffffu32;
        let min_sub = 0x0000_0001u32;
        let (r, f) = fma::<F32>(min_sub, 0x3f40_0000, max_sub, Round::Rne);
        assert_eq!((r, f), (0x0080_0000, Flags::NX));
        // Rounded toward zero it stays subnormal: tiny and inexact.
        let (r, f) = fma::<F32>(min_sub, 0x3f40_0000, max_sub, Round::Rtz);
        assert_eq!((r, f), (max_sub, Flags::NX | Flags::UF));
    }

    #[test]
    fn flush_helpers() {
        assert_eq!(flush_input::<F32>(0x8000_0001), 0x8000_0000);
        assert_eq!(flush_input::<F32>(0x0080_0000), 0x0080_0000);
        assert_eq!(
            flush_result::<F16>(0x0001, Flags::NONE),
            (0, Flags::UF | Flags::NX)
        );
        assert_eq!(flush_result::<F16>(0x3c00, Flags::NX), (0x3c00, Flags::NX));
    }

    #[test]
    fn float_to_int_saturates_like_risc_v() {
        let nan = F32::CANONICAL_NAN;
        assert_eq!(
            to_int::<F32>(nan, Int::I32, Round::Rne),
            (0x7fff_ffff, Flags::NV)
        );
        assert_eq!(
            to_int::<F32>(nan, Int::U32, Round::Rne),
            (0xffff_ffff, Flags::NV)
        );
        assert_eq!(
            to_int::<F32>((-1.5f32).to_bits(), Int::U32, Round::Rtz),
            (0, Flags::NV)
        );
        assert_eq!(
            to_int::<F32>((-0.5f32).to_bits(), Int::U32, Round::Rtz),
            (0, Flags::NX)
        );
        assert_eq!(
            to_int::<F32>((-3.5f32).to_bits(), Int::I32, Round::Rne),
            (-4i64 as u64, Flags::NX)
        );
        assert_eq!(
            to_int::<F64>(1e300f64.to_bits(), Int::I64, Round::Rne),
            (i64::MAX as u64, Flags::NV)
        );
    }

    #[test]
    fn rm_fields() {
        assert_eq!(Round::from_field(1), Some(Round::Rtz));
        assert_eq!(Round::from_field(5), None);
        assert_eq!(Round::from_field(7), None);
        assert_eq!(format!("{:?}", Flags::NV | Flags::NX), "Flags(NX|NV)");
    }
}
