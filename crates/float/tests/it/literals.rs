//! `parse_literal` against `rustc_apfloat`'s correctly rounded string conversion, for every
//! format: random decimal and hexadecimal literals over each format's range, and, for f16,
//! literals exactly at, just above and just below the halfway points between neighbours
//! (where rounding through binary64 first would go wrong).

use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round as AR};
use warpkit_float::{parse_literal, Format, LiteralError, BF16, F16, F32, F64};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// apfloat's reading of `text` (nearest, ties to even) as bits, or `Overflow` for a finite
/// literal that became infinite.
fn oracle<T: Float>(text: &str) -> Result<u64, LiteralError> {
    let v = T::from_str_r(text, AR::NearestTiesToEven)
        .unwrap_or_else(|e| panic!("apfloat refuses {text:?}: {e:?}"))
        .value;
    if v.is_infinite() {
        return Err(LiteralError::Overflow);
    }
    Ok(v.to_bits() as u64)
}

fn check<F: Format, T: Float>(text: &str) {
    let got = parse_literal::<F>(text).map(warpkit_float::Bits::to_u64);
    assert_eq!(got, oracle::<T>(text), "{} {text}", F::NAME);
}

/// A random decimal literal: 1 to 40 digits, a point somewhere, an exponent that puts it
/// anywhere from underflow to overflow of a format with exponents up to about `e10`.
fn decimal(r: &mut Rng, e10: i64) -> String {
    let n = 1 + r.below(40) as usize;
    let digits: String = (0..n)
        .map(|_| char::from(b'0' + r.below(10) as u8))
        .collect();
    let point = r.below(n as u64 + 1) as usize;
    let exp = r.below(2 * e10 as u64 + 1) as i64 - e10;
    let sign = if r.below(2) == 0 { "" } else { "-" };
    format!("{sign}{}.{}e{exp}", &digits[..point], &digits[point..])
}

/// A random hexadecimal literal: 1 to 40 hex digits and a binary exponent.
fn hexadecimal(r: &mut Rng, e2: i64) -> String {
    let n = 1 + r.below(40) as usize;
    let digits: String = (0..n)
        .map(|_| char::from_digit(r.below(16) as u32, 16).unwrap())
        .collect();
    let point = r.below(n as u64 + 1) as usize;
    let exp = r.below(2 * e2 as u64 + 1) as i64 - e2;
    format!("0x{}.{}p{exp}", &digits[..point], &digits[point..])
}

#[test]
fn random_literals_round_as_apfloat_does() {
    let mut r = Rng(7);
    for _ in 0..4000 {
        check::<F16, Half>(&decimal(&mut r, 12));
        check::<BF16, BFloat>(&decimal(&mut r, 45));
        check::<F32, Single>(&decimal(&mut r, 45));
        check::<F64, Double>(&decimal(&mut r, 330));
        check::<F16, Half>(&hexadecimal(&mut r, 40));
        check::<BF16, BFloat>(&hexadecimal(&mut r, 300));
        check::<F32, Single>(&hexadecimal(&mut r, 300));
        check::<F64, Double>(&hexadecimal(&mut r, 2200));
    }
}

/// The exact decimal of `m × 2^-25` (every f16 value and halfway point is one).
fn exact_f16_scale(m: u64) -> String {
    let n = u128::from(m) * 5u128.pow(25);
    let s = format!("{n:026}");
    let (int, frac) = s.split_at(s.len() - 25);
    format!("{int}.{frac}")
}

#[test]
fn f16_halfway_points_and_their_neighbours() {
    let mut r = Rng(11);
    // Every f16 magnitude's upper halfway point (the last is the overflow threshold).
    for bits in 0u64..0x7c00 {
        let v = Half::from_bits(u128::from(bits));
        let up = Half::from_bits(u128::from(bits + 1));
        // v and its successor as multiples of 2^-25, then the halfway point between them.
        let scale = |x: Half| -> u64 {
            let d: Double = x.convert(&mut false).value;
            (f64::from_bits(d.to_bits() as u64) * 2f64.powi(25)) as u64
        };
        let halfway = if bits + 1 == 0x7c00 {
            // Between 65504 and 65536, the first power of two past the range.
            65520u64 << 25
        } else {
            (scale(v) + scale(up)) / 2
        };
        let exact = exact_f16_scale(halfway);
        check::<F16, Half>(&exact);
        let zeros = "0".repeat(r.below(30) as usize + 20);
        check::<F16, Half>(&format!("{exact}{zeros}1"));
        let below = exact_f16_scale(halfway - 1);
        check::<F16, Half>(&format!("{below}{}", "9".repeat(zeros.len())));
        check::<F16, Half>(&format!("-{exact}{zeros}1"));
    }
}
