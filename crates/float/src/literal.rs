//! Floating-point literals, rounded once to nearest-even into any format: decimal (`1.5`,
//! `-2e-3`, `7`), hexadecimal with a binary exponent (`0x1.8p1`), `inf`/`infinity` and
//! `nan`. The exact decimal is never rounded through a wider or narrower format on the
//! way: binary64 and binary32 come from the standard library's correctly rounded parsers;
//! narrower formats from binary64, except where binary64 landed exactly halfway between
//! two values of the format, where the exact decimal decides (double rounding can only go
//! wrong there).

use crate::convert::{convert, from_scaled};
use crate::format::{Bits, Format, Layout, F64};
use crate::Round;
use std::cmp::Ordering;
use std::fmt;

/// Why text is not a literal of a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiteralError {
    /// Not a decimal or hexadecimal floating-point literal, `inf` or `nan`.
    Syntax,
    /// A finite literal too large for the format: it would round to infinity.
    Overflow,
}

impl fmt::Display for LiteralError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LiteralError::Syntax => {
                "not a floating-point literal (decimal like 1.5 or -2e-3, hexadecimal like \
                 0x1.8p1, inf or nan)"
            }
            LiteralError::Overflow => "out of range: it would round to infinity",
        })
    }
}

impl std::error::Error for LiteralError {}

/// The value of `text` in format `F`, rounded to nearest, ties to even: an optional sign,
/// then decimal digits with an optional `.` and `e` exponent (`1.5`, `.5`, `2.`, `-2e-3`,
/// `7`), or `0x` hexadecimal digits with an optional `.` and a required `p` exponent
/// (`0x1.8p1`, `-0x.8p-3`), or `inf`, `infinity`, `nan` (any case; a NaN is the format's
/// canonical quiet NaN, with the sign given). A finite literal that rounds to infinity is
/// [`LiteralError::Overflow`]; one that rounds to zero gives zero.
pub fn parse_literal<F: Format>(text: &str) -> Result<F::Bits, LiteralError> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let sign = if negative { Layout::<F>::SIGN } else { 0 };
    let lower = body.to_ascii_lowercase();
    let bits = match lower.as_str() {
        "inf" | "infinity" => return Ok(F::Bits::from_u64(sign | Layout::<F>::INF)),
        "nan" => return Ok(F::Bits::from_u64(sign | F::CANONICAL_NAN.to_u64())),
        _ => match lower.strip_prefix("0x") {
            Some(hex) => hexadecimal::<F>(hex)?,
            None => decimal::<F>(body)?,
        },
    };
    if bits & !Layout::<F>::SIGN == Layout::<F>::INF {
        return Err(LiteralError::Overflow);
    }
    Ok(F::Bits::from_u64(sign | bits))
}

/// The significant digits of a decimal literal and its exponent: the value is
/// `digits × 10^exp`, `digits` without leading or trailing zeros (empty for zero).
struct Decimal {
    digits: Vec<u8>,
    exp: i64,
}

/// The digits of `text` (`[digits][.digits][e[+-]digits]`, at least one mantissa digit).
fn parse_decimal(text: &str) -> Option<Decimal> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut digits = Vec::new();
    let mut exp: i64 = 0;
    let mut any = false;
    while i < b.len() && b[i].is_ascii_digit() {
        digits.push(b[i] - b'0');
        any = true;
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            digits.push(b[i] - b'0');
            exp -= 1;
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        let negative = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        let mut e: i64 = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            // Saturated: far past any format's range either way.
            e = (e * 10 + i64::from(b[i] - b'0')).min(1 << 40);
            i += 1;
        }
        if i == start {
            return None;
        }
        exp += if negative { -e } else { e };
    }
    if i != b.len() {
        return None;
    }
    let first = digits.iter().position(|&d| d != 0).unwrap_or(digits.len());
    digits.drain(..first);
    while digits.last() == Some(&0) {
        digits.pop();
        exp += 1;
    }
    Some(Decimal { digits, exp })
}

/// The bits (sign clear) of the unsigned decimal literal `text` in `F`.
fn decimal<F: Format>(text: &str) -> Result<u64, LiteralError> {
    let d = parse_decimal(text).ok_or(LiteralError::Syntax)?;
    // The standard parsers are correctly rounded; `text` is validated, so they accept it.
    let wide: f64 = text.parse().map_err(|_| LiteralError::Syntax)?;
    if F::EXP_BITS == 11 && F::FRAC_BITS == 52 {
        return Ok(wide.to_bits());
    }
    if F::EXP_BITS == 8 && F::FRAC_BITS == 23 {
        let single: f32 = text.parse().map_err(|_| LiteralError::Syntax)?;
        return Ok(u64::from(single.to_bits()));
    }
    // A narrower format: binary64 is within half a binary64 unit of the exact value, so
    // rounding it again can differ from rounding the exact value only when it is exactly
    // halfway between two values of `F` (rounding is monotonic, and those halfway points
    // are binary64 numbers). There, the exact decimal decides.
    let (nearest, _) = convert::<F64, F>(wide.to_bits(), Round::Rne);
    let (below, _) = convert::<F64, F>(wide.to_bits(), Round::Rtz);
    let (above, _) = convert::<F64, F>(wide.to_bits(), Round::Rup);
    if below == above {
        return Ok(nearest.to_u64());
    }
    let value = |bits: F::Bits| -> f64 {
        if bits.to_u64() == Layout::<F>::INF {
            // The overflow threshold: halfway to the first power of two past the range.
            2f64.powi(Layout::<F>::EMAX + 1)
        } else {
            f64::from_bits(convert::<F, F64>(bits, Round::Rne).0)
        }
    };
    let halfway = (value(below) + value(above)) / 2.0;
    if wide != halfway {
        return Ok(nearest.to_u64());
    }
    Ok(match compare(&d, halfway) {
        Ordering::Less => below.to_u64(),
        Ordering::Greater => above.to_u64(),
        Ordering::Equal => nearest.to_u64(),
    })
}

/// The most significant digits a comparison needs: the exact decimal expansion of any
/// binary64 number has fewer (767 after the point for the smallest subnormal, plus 17).
const MAX_DIGITS: usize = 800;

/// The exact decimal `d` compared with the finite positive binary64 `v`.
fn compare(d: &Decimal, v: f64) -> Ordering {
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1 << 52) - 1);
    let (m, e2) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), biased - 1075)
    };
    if d.digits.is_empty() {
        return if m == 0 {
            Ordering::Equal
        } else {
            Ordering::Less
        };
    }
    // Digits past MAX_DIGITS only say "a little more" (the last one is nonzero).
    let kept = d.digits.len().min(MAX_DIGITS);
    let sticky = kept < d.digits.len();
    let e10 = d.exp + (d.digits.len() - kept) as i64;
    // digits × 10^e10 against m × 2^e2, both scaled to integers.
    let mut lhs = Big::from_digits(&d.digits[..kept]);
    let mut rhs = Big::from_u64(m);
    if e10 >= 0 {
        lhs.mul_pow10(e10 as u64);
    } else {
        rhs.mul_pow10(e10.unsigned_abs());
    }
    if e2 >= 0 {
        rhs.mul_pow2(e2 as u64);
    } else {
        lhs.mul_pow2(e2.unsigned_abs());
    }
    match lhs.cmp(&rhs) {
        Ordering::Equal if sticky => Ordering::Greater,
        o => o,
    }
}

/// A non-negative integer, 32-bit limbs, least significant first.
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        Big(vec![v as u32, (v >> 32) as u32])
    }

    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(vec![0]);
        for chunk in digits.chunks(9) {
            let mut add = 0u32;
            for &d in chunk {
                add = add * 10 + u32::from(d);
            }
            b.mul_add(10u32.pow(chunk.len() as u32), add);
        }
        b
    }

    fn mul_add(&mut self, m: u32, mut carry: u32) {
        for limb in &mut self.0 {
            let p = u64::from(*limb) * u64::from(m) + u64::from(carry);
            *limb = p as u32;
            carry = (p >> 32) as u32;
        }
        if carry != 0 {
            self.0.push(carry);
        }
    }

    fn mul_pow10(&mut self, mut n: u64) {
        while n >= 9 {
            self.mul_add(1_000_000_000, 0);
            n -= 9;
        }
        self.mul_add(10u32.pow(n as u32), 0);
    }

    fn mul_pow2(&mut self, n: u64) {
        let (limbs, bits) = ((n / 32) as usize, (n % 32) as u32);
        if bits != 0 {
            self.mul_add(1 << bits, 0);
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    fn trimmed(&self) -> &[u32] {
        let n = self.0.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1);
        &self.0[..n]
    }

    fn cmp(&self, other: &Big) -> Ordering {
        let (a, b) = (self.trimmed(), other.trimmed());
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }
}

/// The bits (sign clear) of a hexadecimal literal after its `0x`: `[h][.h]p[+-]d`.
fn hexadecimal<F: Format>(text: &str) -> Result<u64, LiteralError> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut sig: u128 = 0;
    let mut exp: i64 = 0;
    let mut sticky = false;
    let mut any = false;
    let mut fraction = false;
    while let Some(&c) = b.get(i) {
        if c == b'.' && !fraction {
            fraction = true;
            i += 1;
            continue;
        }
        let Some(d) = (c as char).to_digit(16) else {
            break;
        };
        any = true;
        // Up to 124 bits are kept; later digits only say whether anything is left.
        if sig >> 120 == 0 {
            sig = sig << 4 | u128::from(d);
            if fraction {
                exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !fraction {
                exp += 4;
            }
        }
        i += 1;
    }
    if !any || b.get(i) != Some(&b'p') {
        return Err(LiteralError::Syntax);
    }
    i += 1;
    let negative = match b.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let start = i;
    let mut e: i64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        e = (e * 10 + i64::from(b[i] - b'0')).min(1 << 40);
        i += 1;
    }
    if i == start || i != b.len() {
        return Err(LiteralError::Syntax);
    }
    exp += if negative { -e } else { e };
    let exp = exp.clamp(-(1 << 30), 1 << 30) as i32;
    let (bits, _) = from_scaled::<F>(false, sig | u128::from(sticky), exp, Round::Rne);
    Ok(bits.to_u64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BF16, F16, F32};

    #[test]
    fn spellings() {
        assert_eq!(parse_literal::<F32>("1.5"), Ok(1.5f32.to_bits()));
        assert_eq!(parse_literal::<F32>("-2e-3"), Ok((-2e-3f32).to_bits()));
        assert_eq!(parse_literal::<F32>("0x1.8p1"), Ok(3.0f32.to_bits()));
        assert_eq!(parse_literal::<F32>("-0x.8p-3"), Ok((-0.0625f32).to_bits()));
        assert_eq!(parse_literal::<F32>(".5"), Ok(0.5f32.to_bits()));
        assert_eq!(parse_literal::<F32>("7"), Ok(7.0f32.to_bits()));
        assert_eq!(parse_literal::<F32>("-0"), Ok(0x8000_0000));
        assert_eq!(parse_literal::<F32>("inf"), Ok(0x7f80_0000));
        assert_eq!(parse_literal::<F32>("-Infinity"), Ok(0xff80_0000));
        assert_eq!(parse_literal::<F32>("nan"), Ok(0x7fc0_0000));
        assert_eq!(parse_literal::<F16>("1.5"), Ok(0x3e00));
        assert_eq!(parse_literal::<F16>("65504"), Ok(0x7bff));
        assert_eq!(parse_literal::<F16>("65519.99"), Ok(0x7bff));
        assert_eq!(parse_literal::<F16>("65520"), Err(LiteralError::Overflow));
        assert_eq!(parse_literal::<F32>("1e39"), Err(LiteralError::Overflow));
        assert_eq!(parse_literal::<F64>("1e309"), Err(LiteralError::Overflow));
        assert_eq!(parse_literal::<F16>("1e-9"), Ok(0));
        for bad in [
            "", "-", "1.5f", "0x1.8", "0x", "0xp1", "1e", "e5", "1_0", ".", "0x1p", "1..2", " 1",
        ] {
            assert_eq!(
                parse_literal::<F32>(bad),
                Err(LiteralError::Syntax),
                "{bad}"
            );
        }
    }

    #[test]
    fn halfway_binary64_values_are_decided_by_the_exact_decimal() {
        // 1 + 2^-11 is halfway between the f16 values 1 and 1 + 2^-10: ties to even (1).
        assert_eq!(parse_literal::<F16>("1.00048828125"), Ok(0x3c00));
        // A hair above, closer to binary64's halfway point than binary64 can tell: up.
        assert_eq!(
            parse_literal::<F16>("1.000488281250000000000000000000001"),
            Ok(0x3c01)
        );
        assert_eq!(
            parse_literal::<F16>("1.000488281249999999999999999999999"),
            Ok(0x3c00)
        );
        // Through binary32 the hair is lost too: binary32 rounds it to the halfway point.
        assert_eq!(
            parse_literal::<BF16>("1.00390625000000000000000000001"),
            Ok(0x3f81)
        );
        // Past the last halfway point below overflow by a hair: infinity.
        assert_eq!(
            parse_literal::<F16>("65520.000000000000000000001"),
            Err(LiteralError::Overflow)
        );
        assert_eq!(
            parse_literal::<F16>("65519.999999999999999999999"),
            Ok(0x7bff)
        );
        // Many digits: the ones past what any comparison needs still count.
        let long = format!("1.00048828125{}1", "0".repeat(5000));
        assert_eq!(parse_literal::<F16>(&long), Ok(0x3c01));
    }
}
