//! The single rounding step every operation ends in.

use crate::format::{sign_bit, Format, Layout};
use crate::{Flags, Round};

/// `sig >> shift` rounded in `rm` for a value of sign `sign`; returns the rounded integer and
/// whether any nonzero bit was dropped. A negative `shift` shifts left (exact; the caller
/// guarantees it fits).
#[inline]
pub(crate) fn round_shift(sig: u128, shift: i32, sign: bool, rm: Round) -> (u128, bool) {
    if shift <= 0 {
        return (sig << (-shift) as u32, false);
    }
    // q: the kept part; the dropped part compared with one half of the last kept unit.
    let (q, half_cmp, nonzero) = if shift > 128 {
        (0, std::cmp::Ordering::Less, sig != 0)
    } else {
        let q = if shift == 128 { 0 } else { sig >> shift };
        let rem = if shift == 128 {
            sig
        } else {
            sig & ((1u128 << shift) - 1)
        };
        (q, rem.cmp(&(1u128 << (shift - 1))), rem != 0)
    };
    use std::cmp::Ordering::*;
    let up = match rm {
        Round::Rne => half_cmp == Greater || (half_cmp == Equal && q & 1 == 1),
        Round::Rmm => half_cmp != Less,
        Round::Rtz => false,
        Round::Rdn => sign && nonzero,
        Round::Rup => !sign && nonzero,
    };
    (q + up as u128, nonzero)
}

/// The value `(-1)^sign × sig × 2^exp` (`sig` nonzero, possibly with a sticky bit in its
/// least significant position at least two bits below the rounding position) rounded to
/// format `F` in mode `rm`, with IEEE/RISC-V flags: NX when inexact, OF|NX on overflow,
/// UF when tiny after rounding and inexact.
pub(crate) fn round_pack<F: Format>(sign: bool, exp: i32, sig: u128, rm: Round) -> (u64, Flags) {
    debug_assert!(sig != 0);
    let prec = Layout::<F>::PREC as i32;
    let msb = 127 - sig.leading_zeros() as i32;
    // The value lies in [2^top, 2^(top+1)).
    let top = exp + msb;
    let sign_bits = sign_bit::<F>(sign);
    if top >= Layout::<F>::EMIN {
        // Normal range: keep `prec` bits.
        let lsb = top - (prec - 1);
        let (mut m, inexact) = round_shift(sig, lsb - exp, sign, rm);
        let mut e = top;
        if m >> prec != 0 {
            m >>= 1;
            e += 1;
        }
        if e > Layout::<F>::EMAX {
            return (overflow::<F>(sign, rm), Flags::OF | Flags::NX);
        }
        let biased = (e + Layout::<F>::BIAS) as u64;
        let bits = sign_bits | (biased << F::FRAC_BITS) | (m as u64 & Layout::<F>::FRAC_MASK);
        (bits, if inexact { Flags::NX } else { Flags::NONE })
    } else {
        // Below the normal range: the last kept unit is that of the subnormals. A carry into
        // bit FRAC_BITS gives the smallest normal number, which the plain bit pattern encodes.
        let lsb = Layout::<F>::EMIN - F::FRAC_BITS as i32;
        let (m, inexact) = round_shift(sig, lsb - exp, sign, rm);
        let mut flags = Flags::NONE;
        if inexact {
            flags |= Flags::NX;
            // Tininess after rounding: the value rounded to full precision with an unbounded
            // exponent is still below 2^EMIN unless it carried up to exactly 2^EMIN.
            let (full, _) = round_shift(sig, top - (prec - 1) - exp, sign, rm);
            let reaches_min_normal = full >> prec != 0 && top + 1 == Layout::<F>::EMIN;
            if !reaches_min_normal {
                flags |= Flags::UF;
            }
        }
        (sign_bits | m as u64, flags)
    }
}

/// The result of an overflow in `rm`: infinity, or the largest finite number when the
/// rounding direction points toward zero.
pub(crate) fn overflow<F: Format>(sign: bool, rm: Round) -> u64 {
    let to_inf = match rm {
        Round::Rne | Round::Rmm => true,
        Round::Rtz => false,
        Round::Rdn => sign,
        Round::Rup => !sign,
    };
    sign_bit::<F>(sign)
        | if to_inf {
            Layout::<F>::INF
        } else {
            Layout::<F>::MAX_FINITE
        }
}
