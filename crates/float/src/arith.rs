//! add, sub, mul, fma, div, sqrt.
//!
//! Exactness argument for the sums (add, sub, fma): both addends are normalised so that
//! their most significant bit is bit 125 of a `u128` (two bits of headroom for the carry),
//! and the one with the smaller exponent is shifted right by the exponent difference `d`,
//! OR-ing every bit shifted out into bit 0 ("jamming"). An addend holds at most 106
//! significant bits (an f64 product), so it has at least 19 trailing zeros after
//! normalisation and nothing is lost unless `d > 19`. When `d > 19`, the larger addend is
//! more than 2^18 times the smaller, so the sum or difference is at least 2^124 and rounding
//! to at most 53 bits drops at least 70 bits. A value whose bits above bit 1 are exact and
//! whose bit 0 says "something nonzero below" rounds exactly like the true value whenever
//! two or more bits are dropped (the jammed value and the true value lie strictly inside the
//! same interval between consecutive candidates and on the same side of its midpoint).

use crate::format::{nan, sign_bit, unpack, Bits, Class, Format, Layout};
use crate::round::round_pack;
use crate::{Flags, Round};

const TOP: i32 = 125;

fn nan_result<F: Format>(signaling: bool) -> (u64, Flags) {
    (nan::<F>(), if signaling { Flags::NV } else { Flags::NONE })
}

fn invalid<F: Format>() -> (u64, Flags) {
    (nan::<F>(), Flags::NV)
}

fn is_snan(c: Class) -> bool {
    matches!(c, Class::Nan { signaling: true })
}

fn pack_result<F: Format>(r: (u64, Flags)) -> (F::Bits, Flags) {
    (F::Bits::from_u64(r.0), r.1)
}

/// The signed zero an exact zero sum of operands of signs `a` and `b` gets.
fn zero_sum_sign(a: bool, b: bool, rm: Round) -> bool {
    if a == b {
        a
    } else {
        rm == Round::Rdn
    }
}

/// Shift `sig` (nonzero) so that its most significant bit is bit [`TOP`]; returns the
/// shifted significand and the adjusted exponent.
#[inline]
fn normalise(sig: u128, exp: i32) -> (u128, i32) {
    let shift = sig.leading_zeros() as i32 - (127 - TOP);
    if shift >= 0 {
        (sig << shift, exp - shift)
    } else {
        // Wider than TOP bits never happens: callers pass at most 106 bits.
        unreachable!("significand wider than the working width")
    }
}

#[inline]
fn shift_right_jam(sig: u128, d: u32) -> u128 {
    if d == 0 {
        sig
    } else if d >= 128 {
        (sig != 0) as u128
    } else {
        (sig >> d) | ((sig & ((1u128 << d) - 1)) != 0) as u128
    }
}

/// `(-1)^sa sa_sig 2^ea + (-1)^sb sb_sig 2^eb` rounded once, both finite and nonzero.
#[inline]
fn add_finite<F: Format>(
    sa: bool,
    sig_a: u128,
    ea: i32,
    sb: bool,
    sig_b: u128,
    eb: i32,
    rm: Round,
) -> (u64, Flags) {
    let (mut a, mut ea) = normalise(sig_a, ea);
    let (mut b, mut eb) = normalise(sig_b, eb);
    let (mut sa, mut sb) = (sa, sb);
    if ea < eb || (ea == eb && a < b) {
        std::mem::swap(&mut a, &mut b);
        std::mem::swap(&mut ea, &mut eb);
        std::mem::swap(&mut sa, &mut sb);
    }
    // Now |a| >= |b|.
    let b = shift_right_jam(b, (ea - eb) as u32);
    if sa == sb {
        round_pack::<F>(sa, ea, a + b, rm)
    } else {
        let diff = a - b;
        if diff == 0 {
            (sign_bit::<F>(rm == Round::Rdn), Flags::NONE)
        } else {
            round_pack::<F>(sa, ea, diff, rm)
        }
    }
}

fn add_bits<F: Format>(a: u64, b: u64, rm: Round) -> (u64, Flags) {
    let (sa, ca) = unpack::<F>(a);
    let (sb, cb) = unpack::<F>(b);
    match (ca, cb) {
        (Class::Nan { .. }, _) | (_, Class::Nan { .. }) => {
            nan_result::<F>(is_snan(ca) || is_snan(cb))
        }
        (Class::Inf, Class::Inf) => {
            if sa == sb {
                (a, Flags::NONE)
            } else {
                invalid::<F>()
            }
        }
        (Class::Inf, _) => (a, Flags::NONE),
        (_, Class::Inf) => (b, Flags::NONE),
        (Class::Zero, Class::Zero) => (sign_bit::<F>(zero_sum_sign(sa, sb, rm)), Flags::NONE),
        (Class::Zero, _) => (b, Flags::NONE),
        (_, Class::Zero) => (a, Flags::NONE),
        (Class::Finite { sig: ma, exp: ea }, Class::Finite { sig: mb, exp: eb }) => {
            add_finite::<F>(sa, ma as u128, ea, sb, mb as u128, eb, rm)
        }
    }
}

/// `a + b`.
pub fn add<F: Format>(a: F::Bits, b: F::Bits, rm: Round) -> (F::Bits, Flags) {
    pack_result::<F>(add_bits::<F>(a.to_u64(), b.to_u64(), rm))
}

/// `a - b` (exactly `a + (-b)`).
pub fn sub<F: Format>(a: F::Bits, b: F::Bits, rm: Round) -> (F::Bits, Flags) {
    pack_result::<F>(add_bits::<F>(
        a.to_u64(),
        b.to_u64() ^ Layout::<F>::SIGN,
        rm,
    ))
}

/// `a × b`.
pub fn mul<F: Format>(a: F::Bits, b: F::Bits, rm: Round) -> (F::Bits, Flags) {
    let (sa, ca) = unpack::<F>(a.to_u64());
    let (sb, cb) = unpack::<F>(b.to_u64());
    let sign = sa != sb;
    let r = match (ca, cb) {
        (Class::Nan { .. }, _) | (_, Class::Nan { .. }) => {
            nan_result::<F>(is_snan(ca) || is_snan(cb))
        }
        (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => invalid::<F>(),
        (Class::Inf, _) | (_, Class::Inf) => (sign_bit::<F>(sign) | Layout::<F>::INF, Flags::NONE),
        (Class::Zero, _) | (_, Class::Zero) => (sign_bit::<F>(sign), Flags::NONE),
        (Class::Finite { sig: ma, exp: ea }, Class::Finite { sig: mb, exp: eb }) => {
            round_pack::<F>(sign, ea + eb, ma as u128 * mb as u128, rm)
        }
    };
    pack_result::<F>(r)
}

/// `a × b + c` with a single rounding. `fma(±inf, ±0, c)` raises NV even when `c` is a
/// quiet NaN (RISC-V).
pub fn fma<F: Format>(a: F::Bits, b: F::Bits, c: F::Bits, rm: Round) -> (F::Bits, Flags) {
    let (sa, ca) = unpack::<F>(a.to_u64());
    let (sb, cb) = unpack::<F>(b.to_u64());
    let (sc, cc) = unpack::<F>(c.to_u64());
    let sp = sa != sb;
    let any_nan = [ca, cb, cc].iter().any(|c| matches!(c, Class::Nan { .. }));
    let inf_times_zero = matches!(
        (ca, cb),
        (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf)
    );
    let r = if inf_times_zero {
        invalid::<F>()
    } else if any_nan {
        nan_result::<F>(is_snan(ca) || is_snan(cb) || is_snan(cc))
    } else {
        match (ca, cb, cc) {
            (Class::Inf, _, _) | (_, Class::Inf, _) => {
                if cc == Class::Inf && sc != sp {
                    invalid::<F>()
                } else {
                    (sign_bit::<F>(sp) | Layout::<F>::INF, Flags::NONE)
                }
            }
            (_, _, Class::Inf) => (c.to_u64(), Flags::NONE),
            (Class::Zero, _, Class::Zero) | (_, Class::Zero, Class::Zero) => {
                (sign_bit::<F>(zero_sum_sign(sp, sc, rm)), Flags::NONE)
            }
            (Class::Zero, _, _) | (_, Class::Zero, _) => (c.to_u64(), Flags::NONE),
            (
                Class::Finite { sig: ma, exp: ea },
                Class::Finite { sig: mb, exp: eb },
                Class::Zero,
            ) => round_pack::<F>(sp, ea + eb, ma as u128 * mb as u128, rm),
            (
                Class::Finite { sig: ma, exp: ea },
                Class::Finite { sig: mb, exp: eb },
                Class::Finite { sig: mc, exp: ec },
            ) => add_finite::<F>(sp, ma as u128 * mb as u128, ea + eb, sc, mc as u128, ec, rm),
            (Class::Nan { .. }, _, _) | (_, Class::Nan { .. }, _) | (_, _, Class::Nan { .. }) => {
                unreachable!("NaN operands are handled above")
            }
        }
    };
    pack_result::<F>(r)
}

/// `a ÷ b`. A finite nonzero dividend over zero raises DZ.
pub fn div<F: Format>(a: F::Bits, b: F::Bits, rm: Round) -> (F::Bits, Flags) {
    let (sa, ca) = unpack::<F>(a.to_u64());
    let (sb, cb) = unpack::<F>(b.to_u64());
    let sign = sa != sb;
    let r = match (ca, cb) {
        (Class::Nan { .. }, _) | (_, Class::Nan { .. }) => {
            nan_result::<F>(is_snan(ca) || is_snan(cb))
        }
        (Class::Inf, Class::Inf) | (Class::Zero, Class::Zero) => invalid::<F>(),
        (Class::Inf, _) => (sign_bit::<F>(sign) | Layout::<F>::INF, Flags::NONE),
        (_, Class::Inf) | (Class::Zero, _) => (sign_bit::<F>(sign), Flags::NONE),
        (_, Class::Zero) => (sign_bit::<F>(sign) | Layout::<F>::INF, Flags::DZ),
        (Class::Finite { sig: ma, exp: ea }, Class::Finite { sig: mb, exp: eb }) => {
            // Dividend at bit 125, divisor below bit 53: the quotient has at least 72 bits,
            // and a nonzero remainder is jammed into its bit 0.
            let (num, en) = normalise(ma as u128, ea);
            let q = num / mb as u128;
            let rem = num % mb as u128;
            round_pack::<F>(sign, en - eb, q | (rem != 0) as u128, rm)
        }
    };
    pack_result::<F>(r)
}

/// Integer square root: `(floor(sqrt(n)), n is a perfect square)`.
fn isqrt(n: u128) -> (u128, bool) {
    let mut x = n;
    let mut root = 0u128;
    let mut bit = 1u128 << 126;
    while bit > n {
        bit >>= 2;
    }
    while bit != 0 {
        if x >= root + bit {
            x -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    (root, x == 0)
}

/// `sqrt(a)`. `sqrt(-0) = -0`; any other negative operand raises NV.
pub fn sqrt<F: Format>(a: F::Bits, rm: Round) -> (F::Bits, Flags) {
    let (sa, ca) = unpack::<F>(a.to_u64());
    let r = match ca {
        Class::Nan { signaling } => nan_result::<F>(signaling),
        Class::Zero => (a.to_u64(), Flags::NONE),
        _ if sa => invalid::<F>(),
        Class::Inf => (a.to_u64(), Flags::NONE),
        Class::Finite { sig, exp } => {
            // Bring the significand to bit 124 or 125 with an even exponent: the root then
            // has 63 bits, far more than the 53 + 2 rounding needs; an inexact root gets a
            // sticky bit.
            let (mut s, mut e) = normalise(sig as u128, exp);
            if e & 1 != 0 {
                s >>= 1;
                e += 1;
            }
            let (root, exact) = isqrt(s);
            round_pack::<F>(false, e / 2, root | (!exact) as u128, rm)
        }
    };
    pack_result::<F>(r)
}
