//! Floating constants converted exactly once to their type: decimal `float`/`double`
//! literals through Rust's correctly rounded `str::parse`, hexadecimal ones and `half`
//! literals by an exact conversion of our own (rounding to nearest even, subnormals and
//! overflow to infinity included).

use super::types::FloatKind;
use warpkit_float::{convert, Round, F16, F64};

/// The bits of literal `text` (without its suffix) in type `kind`, and whether it overflowed
/// to infinity. `None` when the text is not a floating constant.
pub(crate) fn parse(text: &str, kind: FloatKind) -> Option<(u64, bool)> {
    let lower = text.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        let (mant, exp2, sticky) = parse_hex(hex)?;
        return Some(round_binary(mant, exp2, sticky, kind));
    }
    if !lower
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'+' | b'-'))
        || !lower.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    match kind {
        FloatKind::Float => {
            let v: f32 = lower.parse().ok()?;
            Some((u64::from(v.to_bits()), v.is_infinite()))
        }
        FloatKind::Double => {
            let v: f64 = lower.parse().ok()?;
            Some((v.to_bits(), v.is_infinite()))
        }
        FloatKind::Half => {
            let v: f64 = lower.parse().ok()?;
            let bits = decimal_to_half(&lower, v)?;
            Some((u64::from(bits), bits & 0x7fff == 0x7c00))
        }
    }
}

/// `hex` is `digits[.digits]p[+-]exp` (after `0x`): the significand's leading bits (up to
/// 120), the power of two to scale them by, and whether nonzero bits were dropped.
fn parse_hex(hex: &str) -> Option<(u128, i64, bool)> {
    let (digits, exp) = match hex.split_once('p') {
        // Exponents beyond any format's range all mean the same: keep the arithmetic small.
        Some((d, e)) => (d, e.parse::<i64>().ok()?.clamp(-100_000, 100_000)),
        None => (hex, 0),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut mant: u128 = 0;
    let mut exp2 = exp;
    let mut sticky = false;
    for (i, c) in int.chars().chain(frac.chars()).enumerate() {
        let d = c.to_digit(16)?;
        let is_frac = i >= int.len();
        if mant >> 116 == 0 {
            mant = mant << 4 | u128::from(d);
            if is_frac {
                exp2 -= 4;
            }
        } else {
            sticky |= d != 0;
            if !is_frac {
                exp2 += 4;
            }
        }
    }
    Some((mant, exp2, sticky))
}

/// `mant * 2^exp2` (plus a little more when `sticky`) rounded to nearest even in `kind`:
/// the bits and whether the result overflowed to infinity.
pub(crate) fn round_binary(mant: u128, exp2: i64, sticky: bool, kind: FloatKind) -> (u64, bool) {
    let (frac_bits, exp_bits) = match kind {
        FloatKind::Half => (10i64, 5i64),
        FloatKind::Float => (23, 8),
        FloatKind::Double => (52, 11),
    };
    if mant == 0 {
        return (0, false);
    }
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let emin = 1 - bias;
    let k = 127 - i64::from(mant.leading_zeros());
    let e = k + exp2;
    // Significant bits kept: the full precision for normal numbers, fewer for subnormals.
    let p = if e >= emin {
        frac_bits + 1
    } else {
        frac_bits + 1 - (emin - e)
    };
    let shift = k + 1 - p;
    let q: u128 = if shift <= 0 {
        mant << (-shift)
    } else if shift > k + 1 {
        0
    } else {
        let q = if shift >= 128 { 0 } else { mant >> shift };
        let rem = if shift >= 128 {
            mant
        } else {
            mant & ((1u128 << shift) - 1)
        };
        let half = 1u128 << (shift - 1);
        let up = rem > half || (rem == half && (sticky || q & 1 == 1));
        q + u128::from(up)
    };
    let inf = ((1u64 << exp_bits) - 1) << frac_bits;
    if e < emin {
        // Subnormal (or rounded up into the smallest normal: the encoding carries over).
        return (q as u64, false);
    }
    let (q, e) = if q >> (frac_bits + 1) != 0 {
        (q >> 1, e + 1)
    } else {
        (q, e)
    };
    if e > bias {
        return (inf, true);
    }
    let bits = ((e + bias) as u64) << frac_bits | (q as u64 & ((1u64 << frac_bits) - 1));
    (bits, false)
}

/// A decimal literal rounded once to `half`: `approx` is the literal correctly rounded to
/// double; rounding that again is exact unless it lies on a midpoint between two halves,
/// where the literal itself decides.
fn decimal_to_half(text: &str, approx: f64) -> Option<u16> {
    let (rne, _) = convert::<F64, F16>(approx.to_bits(), Round::Rne);
    let (down, _) = convert::<F64, F16>(approx.to_bits(), Round::Rdn);
    let (up, _) = convert::<F64, F16>(approx.to_bits(), Round::Rup);
    if down == up || !approx.is_finite() {
        return Some(rne);
    }
    let value = |h: u16| f64::from_bits(convert::<F16, F64>(h, Round::Rne).0);
    let mid = (value(down) + value(up)) / 2.0;
    if mid != approx {
        return Some(rne);
    }
    let (m, e) = dyadic(mid);
    match compare_decimal(text, &m, e)? {
        std::cmp::Ordering::Less => Some(down),
        std::cmp::Ordering::Greater => Some(up),
        std::cmp::Ordering::Equal => Some(rne),
    }
}

/// A finite positive double as exact decimal digits (most significant first, no leading
/// zeros) and the power of ten of the last digit.
fn dyadic(v: f64) -> (Vec<u8>, i64) {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (mut m, mut e2) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    };
    while m != 0 && m & 1 == 0 {
        m >>= 1;
        e2 += 1;
    }
    // Little-endian decimal digits of m.
    let mut digits: Vec<u8> = m.to_string().bytes().rev().map(|b| b - b'0').collect();
    let mut e10 = 0i64;
    let mul_small = |digits: &mut Vec<u8>, f: u32| {
        let mut carry = 0u32;
        for d in digits.iter_mut() {
            let x = u32::from(*d) * f + carry;
            *d = (x % 10) as u8;
            carry = x / 10;
        }
        while carry > 0 {
            digits.push((carry % 10) as u8);
            carry /= 10;
        }
    };
    while e2 > 0 {
        mul_small(&mut digits, 2);
        e2 -= 1;
    }
    while e2 < 0 {
        // m * 2^-1 = m * 5 / 10.
        mul_small(&mut digits, 5);
        e10 -= 1;
        e2 += 1;
    }
    digits.reverse();
    (digits, e10)
}

/// Compare decimal literal `text` with the number `digits × 10^e10`.
fn compare_decimal(text: &str, digits: &[u8], e10: i64) -> Option<std::cmp::Ordering> {
    let (mant, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let lit: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let lit_e10 = exp - frac.len() as i64;
    Some(compare_scaled(&lit, lit_e10, digits, e10))
}

/// Compare `a × 10^ea` with `b × 10^eb` (digit slices, most significant first).
fn compare_scaled(a: &[u8], ea: i64, b: &[u8], eb: i64) -> std::cmp::Ordering {
    let strip = |d: &[u8], e: i64| -> (Vec<u8>, i64) {
        let start = d.iter().position(|&x| x != 0).unwrap_or(d.len());
        let mut v = d[start..].to_vec();
        let mut e = e;
        while v.last() == Some(&0) {
            v.pop();
            e += 1;
        }
        (v, e)
    };
    let (a, ea) = strip(a, ea);
    let (b, eb) = strip(b, eb);
    // Magnitude: the power of ten of the leading digit.
    let (ma, mb) = (a.len() as i64 + ea, b.len() as i64 + eb);
    if a.is_empty() || b.is_empty() {
        return a.len().cmp(&b.len());
    }
    if ma != mb {
        return ma.cmp(&mb);
    }
    let n = a.len().max(b.len());
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        if x != y {
            return x.cmp(&y);
        }
    }
    std::cmp::Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_of(text: &str) -> f32 {
        f32::from_bits(parse(text, FloatKind::Float).unwrap().0 as u32)
    }

    fn f64_of(text: &str) -> f64 {
        f64::from_bits(parse(text, FloatKind::Double).unwrap().0)
    }

    #[test]
    fn decimal_literals() {
        assert_eq!(f32_of("1.5"), 1.5);
        assert_eq!(f32_of("0.1"), 0.1f32);
        assert_eq!(f64_of("0.1"), 0.1f64);
        assert_eq!(f64_of(".5"), 0.5);
        assert_eq!(f64_of("5."), 5.0);
        assert_eq!(f64_of("1e-3"), 1e-3);
        assert_eq!(f32_of("3.4028235e38"), f32::MAX);
        assert!(parse("1e39", FloatKind::Float).unwrap().1);
        assert_eq!(parse("abc", FloatKind::Float), None);
    }

    #[test]
    fn hex_literals() {
        assert_eq!(f64_of("0x1.8p3"), 12.0);
        assert_eq!(f64_of("0x.8p1"), 1.0);
        assert_eq!(f64_of("0X10P-4"), 1.0);
        assert_eq!(f32_of("0x1.fffffep127"), f32::MAX);
        assert!(parse("0x1p128", FloatKind::Float).unwrap().1);
        // Rounds up into infinity: the first bit dropped is 1 and there are more.
        assert!(parse("0x1.ffffffp127", FloatKind::Float).unwrap().1);
        assert_eq!(f32_of("0x1p-149"), f32::from_bits(1));
        assert_eq!(f32_of("0x1p-150"), 0.0); // a tie rounds to the even zero
        assert_eq!(f32_of("0x1.0000000001p-150"), f32::from_bits(1));
        assert_eq!(f32_of("0x1.8p-149"), f32::from_bits(2)); // tie to even
        assert_eq!(f32_of("0x1.fffffcp-127"), f32::from_bits(0x007fffff)); // largest subnormal
        assert_eq!(f32_of("0x1.fffffep-127"), f32::from_bits(0x00800000)); // tie carries into normal
        assert_eq!(f64_of("0x1p-1074"), f64::from_bits(1));
        assert_eq!(f64_of("0x1.fffffffffffff8p0"), 2.0); // tie, odd below: up
        assert_eq!(f64_of("0x1.fffffffffffff7ffffffffp0"), 1.9999999999999998);
        assert_eq!(
            f64_of("0x123456789abcdef0123456789p0"),
            0x123456789abcdef0123456789u128 as f64
        );
        assert_eq!(f32_of("0x1.000001p0"), 1.0); // tie, even below
        assert_eq!(f32_of("0x1.000003p0"), 1.0000002); // tie, odd below
    }

    #[test]
    fn half_literals_round_once() {
        let h = |t: &str| parse(t, FloatKind::Half).unwrap().0;
        assert_eq!(h("1.0"), 0x3c00);
        assert_eq!(h("65504"), 0x7bff);
        assert_eq!(h("65520"), 0x7c00); // the midpoint to infinity rounds to even: infinity
        assert_eq!(h("0x1p-24"), 0x0001);
        // 1 + 2^-11 is the midpoint between 1 and the next half: ties to even gives 1, but a
        // literal slightly above it (not representable in double) must round up.
        assert_eq!(h("1.00048828125"), 0x3c00);
        assert_eq!(h("1.000488281250000000000000000001"), 0x3c01);
        assert_eq!(h("1.000488281249999999999999999999"), 0x3c00);
        assert_eq!(h("1.00146484375"), 0x3c02); // midpoint, odd below: up
    }
}
