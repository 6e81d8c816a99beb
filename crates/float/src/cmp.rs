//! Comparisons, minimumNumber/maximumNumber and classification.

use crate::format::{nan, unpack, Bits, Class, Format, Layout};
use crate::Flags;
use std::cmp::Ordering;

/// Order of two non-NaN values (−0 == +0).
fn order<F: Format>(a: u64, b: u64) -> Ordering {
    let key = |x: u64| -> i128 {
        let mag = (x & !Layout::<F>::SIGN) as i128;
        if x & Layout::<F>::SIGN != 0 {
            -mag
        } else {
            mag
        }
    };
    key(a).cmp(&key(b))
}

fn nan_flags(ca: Class, cb: Class, signaling_compare: bool) -> Option<Flags> {
    let a_nan = matches!(ca, Class::Nan { .. });
    let b_nan = matches!(cb, Class::Nan { .. });
    if !a_nan && !b_nan {
        return None;
    }
    let snan = matches!(ca, Class::Nan { signaling: true })
        || matches!(cb, Class::Nan { signaling: true });
    Some(if signaling_compare || snan {
        Flags::NV
    } else {
        Flags::NONE
    })
}

/// Quiet equality (`feq`): false when either is NaN; NV only for a signaling NaN.
pub fn eq<F: Format>(a: F::Bits, b: F::Bits) -> (bool, Flags) {
    let (a, b) = (a.to_u64(), b.to_u64());
    match nan_flags(unpack::<F>(a).1, unpack::<F>(b).1, false) {
        Some(f) => (false, f),
        None => (order::<F>(a, b) == Ordering::Equal, Flags::NONE),
    }
}

/// Signaling less-than (`flt`): false with NV when either is NaN.
pub fn lt<F: Format>(a: F::Bits, b: F::Bits) -> (bool, Flags) {
    let (a, b) = (a.to_u64(), b.to_u64());
    match nan_flags(unpack::<F>(a).1, unpack::<F>(b).1, true) {
        Some(f) => (false, f),
        None => (order::<F>(a, b) == Ordering::Less, Flags::NONE),
    }
}

/// Signaling less-or-equal (`fle`): false with NV when either is NaN.
pub fn le<F: Format>(a: F::Bits, b: F::Bits) -> (bool, Flags) {
    let (a, b) = (a.to_u64(), b.to_u64());
    match nan_flags(unpack::<F>(a).1, unpack::<F>(b).1, true) {
        Some(f) => (false, f),
        None => (order::<F>(a, b) != Ordering::Greater, Flags::NONE),
    }
}

/// Quiet unordered test: true when either is NaN; NV only for a signaling NaN.
pub fn unordered<F: Format>(a: F::Bits, b: F::Bits) -> (bool, Flags) {
    let (a, b) = (a.to_u64(), b.to_u64());
    match nan_flags(unpack::<F>(a).1, unpack::<F>(b).1, false) {
        Some(f) => (true, f),
        None => (false, Flags::NONE),
    }
}

fn min_max<F: Format>(a: F::Bits, b: F::Bits, want_max: bool) -> (F::Bits, Flags) {
    let (ab, bb) = (a.to_u64(), b.to_u64());
    let (_, ca) = unpack::<F>(ab);
    let (_, cb) = unpack::<F>(bb);
    let flags = if matches!(ca, Class::Nan { signaling: true })
        || matches!(cb, Class::Nan { signaling: true })
    {
        Flags::NV
    } else {
        Flags::NONE
    };
    let r = match (
        matches!(ca, Class::Nan { .. }),
        matches!(cb, Class::Nan { .. }),
    ) {
        (true, true) => nan::<F>(),
        (true, false) => bb,
        (false, true) => ab,
        (false, false) => {
            // −0 < +0 here: compare with the zero signs taken into account.
            let key = |x: u64| -> i128 {
                let mag = (x & !Layout::<F>::SIGN) as i128;
                if x & Layout::<F>::SIGN != 0 {
                    -mag - 1
                } else {
                    mag
                }
            };
            if (key(ab) < key(bb)) == want_max {
                bb
            } else {
                ab
            }
        }
    };
    (F::Bits::from_u64(r), flags)
}

/// IEEE 754-2019 minimumNumber (RISC-V `fmin`): a NaN operand is ignored in favour of the
/// other; two NaNs give the canonical NaN; −0 < +0; NV for a signaling NaN.
pub fn min<F: Format>(a: F::Bits, b: F::Bits) -> (F::Bits, Flags) {
    min_max::<F>(a, b, false)
}

/// IEEE 754-2019 maximumNumber (RISC-V `fmax`), the mirror of [`min`].
pub fn max<F: Format>(a: F::Bits, b: F::Bits) -> (F::Bits, Flags) {
    min_max::<F>(a, b, true)
}

/// RISC-V `fclass` mask: bit 0 −inf, 1 negative normal, 2 negative subnormal, 3 −0, 4 +0,
/// 5 positive subnormal, 6 positive normal, 7 +inf, 8 signaling NaN, 9 quiet NaN.
pub fn classify<F: Format>(a: F::Bits) -> u16 {
    let bits = a.to_u64();
    let (sign, class) = unpack::<F>(bits);
    let subnormal = bits & Layout::<F>::EXP_MASK == 0;
    let k = match class {
        Class::Nan { signaling: true } => 8,
        Class::Nan { signaling: false } => 9,
        Class::Inf => {
            if sign {
                0
            } else {
                7
            }
        }
        Class::Zero => {
            if sign {
                3
            } else {
                4
            }
        }
        Class::Finite { .. } => match (sign, subnormal) {
            (true, false) => 1,
            (true, true) => 2,
            (false, true) => 5,
            (false, false) => 6,
        },
    };
    1 << k
}
