//! The SFU's approximate operations on f32: `frcp`, `frsq`, `fexp2`, `flog2`, `fsin`,
//! `fcos`. Each is evaluated in binary64 with only `+ - × ÷` and `sqrt` (correctly rounded
//! IEEE operations, identical on every host; no host libm) and rounded once to f32 with
//! `warpkit-float` (round to nearest even, whatever `rm` says), which also supplies NX, UF
//! and OF. The binary64 evaluation is accurate to a few units in 2^-50 relative, so every
//! result is within 1 ulp of the exact value (the bounds in docs/provisional.md, checked
//! in `tests/it/sfu.rs` against the host's libm at test time only).
//!
//! Special cases (RISC-V conventions): a NaN operand gives the canonical NaN (NV if
//! signaling); domain errors give the canonical NaN with NV; poles give ±inf with DZ.

use warpkit_float::{self as wf, Flags, Round, F32, F64};

const NAN: u32 = 0x7fc0_0000;
const INF: u32 = 0x7f80_0000;

fn nan_in(x: u32) -> Option<(u32, Flags)> {
    wf::is_nan::<F32>(x).then(|| {
        let f = if wf::is_signaling::<F32>(x) {
            Flags::NV
        } else {
            Flags::NONE
        };
        (NAN, f)
    })
}

/// Round a binary64 value to f32 (rne), with its flags.
fn to_f32(y: f64) -> (u32, Flags) {
    wf::convert::<F64, F32>(y.to_bits(), Round::Rne)
}

fn f32_as_f64(x: u32) -> f64 {
    f64::from(f32::from_bits(x))
}

/// `1 / x`, correctly rounded (0.5 ulp): the quotient is computed exactly by warpkit-float.
pub fn rcp(x: u32) -> (u32, Flags) {
    wf::div::<F32>(0x3f80_0000, x, Round::Rne)
}

/// `1 / sqrt(x)` within 1 ulp: ±0 → ±inf with DZ, negative → NaN with NV, +inf → +0.
pub fn rsq(x: u32) -> (u32, Flags) {
    if let Some(r) = nan_in(x) {
        return r;
    }
    if x & 0x7fff_ffff == 0 {
        return ((x & 0x8000_0000) | INF, Flags::DZ);
    }
    if x & 0x8000_0000 != 0 {
        return (NAN, Flags::NV);
    }
    if x == INF {
        return (0, Flags::NONE);
    }
    // sqrt and the division are each correctly rounded in binary64: relative error below
    // 2^-52 before the final rounding to f32.
    let y = 1.0 / f32_as_f64(x).sqrt();
    to_f32(y)
}

/// `2^x` within 1 ulp: +inf → +inf, -inf → +0; overflow and underflow as the final
/// rounding reports them.
pub fn exp2(x: u32) -> (u32, Flags) {
    if let Some(r) = nan_in(x) {
        return r;
    }
    let v = f32_as_f64(x);
    if v == f64::INFINITY {
        return (INF, Flags::NONE);
    }
    if v == f64::NEG_INFINITY {
        return (0, Flags::NONE);
    }
    if v >= 129.0 {
        return to_f32(f64::MAX);
    }
    if v <= -160.0 {
        return to_f32(f64::MIN_POSITIVE);
    }
    // v = n + t, n an integer, |t| <= 1/2 (exact: v has at most 24 significant bits).
    let n = round_half_even(v);
    let t = v - n;
    // 2^t = e^(t ln 2): Taylor series to degree 14, |t ln 2| <= 0.35, truncation < 2^-60.
    let z = t * std::f64::consts::LN_2;
    let mut sum = 1.0;
    let mut term = 1.0;
    for k in 1..=14 {
        term = term * z / f64::from(k);
        sum += term;
    }
    // Scale by 2^n exactly (n in -160..129: within binary64's normal range).
    let scale = f64::from_bits(((n as i64 + 1023) as u64) << 52);
    to_f32(sum * scale)
}

/// `log2(x)` within 1 ulp: +0/-0 → -inf with DZ, negative → NaN with NV, +inf → +inf,
/// `log2(1) = +0`.
pub fn log2(x: u32) -> (u32, Flags) {
    if let Some(r) = nan_in(x) {
        return r;
    }
    if x & 0x7fff_ffff == 0 {
        return (0x8000_0000 | INF, Flags::DZ);
    }
    if x & 0x8000_0000 != 0 {
        return (NAN, Flags::NV);
    }
    if x == INF {
        return (INF, Flags::NONE);
    }
    // x = m × 2^e with m in [sqrt(1/2), sqrt(2)) (exact in binary64).
    let v = f32_as_f64(x);
    let bits = v.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    // log2(m) = 2 atanh(s) / ln 2 with s = (m - 1) / (m + 1), |s| <= 0.1716: odd series to
    // s^29, truncation below 2^-75.
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut sum = 0.0;
    let mut k = 29.0;
    while k >= 1.0 {
        sum = sum * s2 + 1.0 / k;
        k -= 2.0;
    }
    let ln_m = 2.0 * s * sum;
    let y = e as f64 + ln_m / std::f64::consts::LN_2;
    if y == 0.0 {
        return (0, Flags::NONE);
    }
    to_f32(y)
}

fn round_half_even(v: f64) -> f64 {
    // |v| < 2^52 here: adding and subtracting 1.5 × 2^52 rounds to an integer (rne).
    let magic = 6_755_399_441_055_744.0;
    (v + magic) - magic
}

/// `sin(π x)` (`x` in half-turns) within 1 ulp: ±inf → NaN with NV; integers give ±0.
pub fn sin_pi(x: u32) -> (u32, Flags) {
    trig(x, false)
}

/// `cos(π x)` (`x` in half-turns) within 1 ulp: ±inf → NaN with NV; `cos(π/2 + kπ)` = +0.
pub fn cos_pi(x: u32) -> (u32, Flags) {
    trig(x, true)
}

fn trig(x: u32, cosine: bool) -> (u32, Flags) {
    if let Some(r) = nan_in(x) {
        return r;
    }
    if x & 0x7fff_ffff == INF {
        return (NAN, Flags::NV);
    }
    let v = f32_as_f64(x);
    // Exact reduction: r = v - 2k in [-1, 1] (v has 24 significant bits; every f32 of
    // magnitude 2^24 or more is an even integer, r = 0).
    let r = if v.abs() >= 16_777_216.0 {
        0.0
    } else {
        v - 2.0 * round_half_even(v / 2.0)
    };
    // Quarter-turn q: r = q/2 + t, |t| <= 1/4 (exact).
    let q = round_half_even(2.0 * r);
    let t = r - q / 2.0;
    let quadrant = ((q as i64) + if cosine { 1 } else { 0 }).rem_euclid(4);
    let (s, c) = sin_cos_pi(t);
    let y = match quadrant {
        0 => s,
        1 => c,
        2 => -s,
        _ => -c,
    };
    if y == 0.0 {
        // Exact zeros: sin(kπ) keeps the sign of x for k = 0, else +0; cos zeros are +0.
        let sign = if !cosine && q == 0.0 && r == 0.0 {
            x & 0x8000_0000
        } else {
            0
        };
        return (sign, Flags::NONE);
    }
    to_f32(y)
}

/// `(sin(π t), cos(π t))` for |t| <= 1/4 by Taylor series (|π t| <= 0.786; degree 23/22,
/// truncation below 2^-70).
fn sin_cos_pi(t: f64) -> (f64, f64) {
    let z = t * std::f64::consts::PI;
    let z2 = z * z;
    let mut s = 0.0;
    let mut c = 0.0;
    // Horner from the highest term.
    let mut k = 23i32;
    while k >= 1 {
        // sin: z - z^3/3! + ...; term coefficient (-1)^((k-1)/2) / k!
        s = s * z2 + sign((k - 1) / 2) / factorial(k);
        k -= 2;
    }
    s *= z;
    let mut k = 22i32;
    while k >= 0 {
        c = c * z2 + sign(k / 2) / factorial(k);
        k -= 2;
    }
    (s, c)
}

fn sign(n: i32) -> f64 {
    if n % 2 == 0 {
        1.0
    } else {
        -1.0
    }
}

fn factorial(k: i32) -> f64 {
    (1..=k).fold(1.0, |p, i| p * f64::from(i))
}
