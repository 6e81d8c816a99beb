//! warpkit-float against an independent implementation: `rustc_apfloat` (LLVM's APFloat in
//! Rust) for values and NaN/inexact/invalid/divide-by-zero, with the overflow and underflow
//! flags derived independently (see [`reference`]), an exact-squares checker for `sqrt`,
//! and the host FPU for round-to-nearest-even f32/f64 values.
//!
//! Every op × every rounding mode × every format gets `WARPKIT_FLOAT_CASES` operand sets
//! (default 20 000; the random mix always includes every special class: ±0, subnormals,
//! normal boundaries, ±inf, qNaN, sNaN, halfway cases, overflow and underflow boundaries).
//! `WARPKIT_FLOAT_CASES=1000000 cargo test -p warpkit-float --release` runs a long campaign.

use rustc_apfloat::ieee::{self, IeeeFloat, Semantics};
use rustc_apfloat::{Float, FloatConvert, Round as AR, Status, StatusAnd};
use warpkit_float::{self as wf, Bits, Flags, Format, Int, Round};

// ---- the reference formats -------------------------------------------------------------

/// The same precision with a 20-bit exponent: rounding there is rounding "with an unbounded
/// exponent range", which is what IEEE's overflow and (after-rounding) tininess tests use.
macro_rules! wide {
    ($name:ident, $frac:literal) => {
        struct $name;
        impl Semantics for $name {
            const BITS: usize = 1 + 20 + $frac;
            const EXP_BITS: usize = 20;
        }
    };
}
wide!(WideHalf, 10);
wide!(WideBf, 7);
wide!(WideSingle, 23);
wide!(WideDouble, 52);

trait Oracle: Format {
    type S: Semantics;
    type WS: Semantics;
}
impl Oracle for wf::F16 {
    type S = ieee::HalfS;
    type WS = WideHalf;
}
impl Oracle for wf::BF16 {
    type S = ieee::BFloatS;
    type WS = WideBf;
}
impl Oracle for wf::F32 {
    type S = ieee::SingleS;
    type WS = WideSingle;
}
impl Oracle for wf::F64 {
    type S = ieee::DoubleS;
    type WS = WideDouble;
}
type N<F> = IeeeFloat<<F as Oracle>::S>;
type W<F> = IeeeFloat<<F as Oracle>::WS>;

fn ar(rm: Round) -> AR {
    match rm {
        Round::Rne => AR::NearestTiesToEven,
        Round::Rtz => AR::TowardZero,
        Round::Rdn => AR::TowardNegative,
        Round::Rup => AR::TowardPositive,
        Round::Rmm => AR::NearestTiesToAway,
    }
}

fn n<F: Oracle>(b: u64) -> N<F> {
    N::<F>::from_bits(b as u128)
}

fn exact<A: Float + FloatConvert<B>, B: Float>(x: A) -> B {
    let mut lost = false;
    let r = x.convert_r(AR::NearestTiesToEven, &mut lost);
    assert!(!lost || x.is_nan(), "widening must be exact");
    r.value
}

fn w<F: Oracle>(b: u64) -> W<F> {
    exact(n::<F>(b))
}

fn is_snan<F: Oracle>(b: u64) -> bool {
    n::<F>(b).is_signaling()
}

/// Expected bits and flags from apfloat's narrow result and the same operation rounded in
/// the wide (unbounded-exponent) format. apfloat's own OVERFLOW/UNDERFLOW are not used
/// (they differ from IEEE in directed modes): OF is "the wide result exceeds the largest
/// finite number", UF is "inexact and the wide result is below the smallest normal".
fn reference<F: Oracle>(narrow: StatusAnd<N<F>>, wide: Option<W<F>>, snan: bool) -> (u64, Flags) {
    let v = narrow.value;
    let bits = if v.is_nan() {
        F::CANONICAL_NAN.to_u64()
    } else {
        v.to_bits() as u64
    };
    let mut flags = Flags::NONE;
    let st = narrow.status;
    if st.contains(Status::INVALID_OP) || snan {
        flags |= Flags::NV;
    }
    if st.contains(Status::DIV_BY_ZERO) {
        flags |= Flags::DZ;
    }
    if st.contains(Status::INEXACT) {
        flags |= Flags::NX;
    }
    if let Some(wv) = wide {
        if wv.is_finite_non_zero() {
            let max: W<F> = exact(N::<F>::largest());
            let min_normal: W<F> = exact(N::<F>::smallest_normalized());
            if wv.abs() > max {
                flags |= Flags::OF | Flags::NX;
            }
            if flags.contains(Flags::NX) && wv.abs() < min_normal {
                flags |= Flags::UF;
            }
        }
    }
    (bits, flags)
}

// ---- operands ------------------------------------------------------------------------

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
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

fn cases() -> usize {
    std::env::var("WARPKIT_FLOAT_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000)
}

struct Gen<F> {
    rng: Rng,
    specials: Vec<u64>,
    _f: std::marker::PhantomData<F>,
}

impl<F: Format> Gen<F> {
    const FRAC: u32 = F::FRAC_BITS;
    const EXP_MAX: u64 = (1 << F::EXP_BITS) - 1;
    const SIGN: u64 = 1 << (F::EXP_BITS + F::FRAC_BITS);
    const FRAC_MASK: u64 = (1 << F::FRAC_BITS) - 1;
    const BIAS: i64 = (1 << (F::EXP_BITS - 1)) - 1;

    fn new(seed: u64) -> Self {
        let frac = Self::FRAC_MASK;
        let one = (Self::BIAS as u64) << Self::FRAC;
        let inf = Self::EXP_MAX << Self::FRAC;
        let mut specials = vec![
            0,
            1,
            2,
            3,
            frac,
            frac - 1,
            1 << Self::FRAC,
            (1 << Self::FRAC) + 1,
            (2 << Self::FRAC) - 1,
            one,
            one + 1,
            one - 1,
            one | (1 << (Self::FRAC - 1)),
            one + (1 << Self::FRAC),
            one - (1 << Self::FRAC),
            inf - 1,
            inf - 2,
            inf - (1 << Self::FRAC),
            inf,
            inf | (1 << (Self::FRAC - 1)),
            inf | (1 << (Self::FRAC - 1)) | 1,
            inf | 1,
            inf | (frac >> 1),
        ];
        let neg: Vec<u64> = specials.iter().map(|s| s | Self::SIGN).collect();
        specials.extend(neg);
        Gen {
            rng: Rng(seed),
            specials,
            _f: std::marker::PhantomData,
        }
    }

    fn frac_with_zeros(&mut self) -> u64 {
        let k = self.rng.below(u64::from(Self::FRAC) + 1);
        self.rng.next() & Self::FRAC_MASK & !((1u64 << k) - 1)
    }

    fn sign(&mut self) -> u64 {
        if self.rng.below(2) == 0 {
            0
        } else {
            Self::SIGN
        }
    }

    fn pack(&mut self, biased: i64, frac: u64) -> u64 {
        let e = biased.clamp(0, Self::EXP_MAX as i64 - 1) as u64;
        self.sign() | (e << Self::FRAC) | frac
    }

    /// One operand, optionally related to a previous one (`near`) so that cancellation,
    /// carries, ties and boundary crossings happen often.
    fn operand(&mut self, near: Option<u64>) -> u64 {
        let width_mask = Self::SIGN | (Self::SIGN - 1);
        let ne = near.map(|x| ((x >> Self::FRAC) & Self::EXP_MAX) as i64);
        match self.rng.below(100) {
            0..=19 => self.specials[self.rng.below(self.specials.len() as u64) as usize],
            20..=44 => self.rng.next() & width_mask,
            45..=69 if ne.is_some() => {
                let spread = if self.rng.below(2) == 0 {
                    4
                } else {
                    i64::from(Self::FRAC) + 4
                };
                let d = self.rng.below(2 * spread as u64 + 1) as i64 - spread;
                let frac = if self.rng.below(3) == 0 {
                    // The same fraction nudged: near-cancellation and ties.
                    (near.unwrap() & Self::FRAC_MASK) ^ (1 << self.rng.below(u64::from(Self::FRAC)))
                } else {
                    self.frac_with_zeros()
                };
                self.pack(ne.unwrap() + d, frac)
            }
            70..=84 if ne.is_some() => {
                // Exponent that brings a product or quotient to the underflow or overflow
                // boundary.
                let target = if self.rng.below(2) == 0 {
                    1 - Self::BIAS
                } else {
                    Self::BIAS
                };
                let d = self.rng.below(7) as i64 - 3;
                let biased = target - (ne.unwrap() - Self::BIAS) + d + Self::BIAS;
                let f = self.frac_with_zeros();
                self.pack(biased, f)
            }
            _ => {
                let biased = self.rng.below(Self::EXP_MAX) as i64;
                let f = self.frac_with_zeros();
                self.pack(biased, f)
            }
        }
    }
}

// ---- checking --------------------------------------------------------------------------

#[derive(Default)]
struct Report {
    checked: usize,
    failed: usize,
    failures: Vec<String>,
}

impl Report {
    fn check(&mut self, what: impl FnOnce() -> String, got: (u64, Flags), want: (u64, Flags)) {
        self.checked += 1;
        self.failed += (got != want) as usize;
        if got != want && self.failures.len() < 20 {
            self.failures.push(format!(
                "{}: got {:#x} {:?}, want {:#x} {:?}",
                what(),
                got.0,
                got.1,
                want.0,
                want.1
            ));
        }
    }
    fn finish(self, name: &str) {
        assert!(
            self.failures.is_empty(),
            "{name}: {} mismatches among {} cases, the first ones:\n{}",
            self.failed,
            self.checked,
            self.failures.join("\n")
        );
        assert!(self.checked > 0);
    }
}

fn u<B: Bits>(r: (B, Flags)) -> (u64, Flags) {
    (r.0.to_u64(), r.1)
}

fn binary_ops<F: Oracle>(seed: u64) {
    type Op<F> =
        fn(<F as Format>::Bits, <F as Format>::Bits, Round) -> (<F as Format>::Bits, Flags);
    type Ref<X> = fn(X, X, AR) -> StatusAnd<X>;
    #[allow(clippy::type_complexity)]
    let ops: [(&str, Op<F>, Ref<N<F>>, Ref<W<F>>); 4] = [
        (
            "add",
            wf::add::<F>,
            |a, b, r| a.add_r(b, r),
            |a, b, r| a.add_r(b, r),
        ),
        (
            "sub",
            wf::sub::<F>,
            |a, b, r| a.sub_r(b, r),
            |a, b, r| a.sub_r(b, r),
        ),
        (
            "mul",
            wf::mul::<F>,
            |a, b, r| a.mul_r(b, r),
            |a, b, r| a.mul_r(b, r),
        ),
        (
            "div",
            wf::div::<F>,
            |a, b, r| a.div_r(b, r),
            |a, b, r| a.div_r(b, r),
        ),
    ];
    for (name, op, rn, rw) in ops {
        let mut report = Report::default();
        let mut g = Gen::<F>::new(seed ^ name.len() as u64 ^ (name.as_bytes()[0] as u64) << 8);
        for rm in Round::ALL {
            for _ in 0..cases() {
                let a = g.operand(None);
                let b = g.operand(Some(a));
                let got = u(op(F::Bits::from_u64(a), F::Bits::from_u64(b), rm));
                let narrow = rn(n::<F>(a), n::<F>(b), ar(rm));
                let wide = rw(w::<F>(a), w::<F>(b), ar(rm)).value;
                let want = reference::<F>(narrow, Some(wide), is_snan::<F>(a) || is_snan::<F>(b));
                report.check(
                    || format!("{name}.{} {a:#x} {b:#x} {rm:?}", F::NAME),
                    got,
                    want,
                );
            }
        }
        report.finish(name);
    }
}

fn fma_op<F: Oracle>(seed: u64) {
    let mut report = Report::default();
    let mut g = Gen::<F>::new(seed);
    for rm in Round::ALL {
        for _ in 0..cases() {
            let a = g.operand(None);
            let b = g.operand(Some(a));
            // The addend near the product's magnitude half of the time.
            let c = if g.rng.below(2) == 0 {
                let (p, _) = wf::mul::<F>(F::Bits::from_u64(a), F::Bits::from_u64(b), Round::Rtz);
                g.operand(Some(p.to_u64()))
            } else {
                g.operand(None)
            };
            let got = u(wf::fma::<F>(
                F::Bits::from_u64(a),
                F::Bits::from_u64(b),
                F::Bits::from_u64(c),
                rm,
            ));
            let narrow = n::<F>(a).mul_add_r(n::<F>(b), n::<F>(c), ar(rm));
            let wide = w::<F>(a).mul_add_r(w::<F>(b), w::<F>(c), ar(rm)).value;
            // RISC-V: inf × 0 is invalid even when the addend is a quiet NaN.
            let (na, nb) = (n::<F>(a), n::<F>(b));
            let inf_zero = (na.is_infinite() && nb.is_zero()) || (na.is_zero() && nb.is_infinite());
            let snan = is_snan::<F>(a) || is_snan::<F>(b) || is_snan::<F>(c) || inf_zero;
            let want = reference::<F>(narrow, Some(wide), snan);
            report.check(
                || format!("fma.{} {a:#x} {b:#x} {c:#x} {rm:?}", F::NAME),
                got,
                want,
            );
        }
    }
    report.finish("fma");
}

/// sqrt has no apfloat counterpart: check the result from its defining inequalities with
/// exact squares in binary128 (a square of a 54-bit number is exact there).
fn sqrt_op<F: Oracle>(seed: u64)
where
    N<F>: FloatConvert<ieee::Quad>,
{
    let mut report = Report::default();
    let mut g = Gen::<F>::new(seed);
    let q = |x: N<F>| -> ieee::Quad { exact(x) };
    let sq = |x: ieee::Quad| {
        let r = x.mul_r(x, AR::NearestTiesToEven);
        assert_eq!(r.status, Status::OK, "square must be exact");
        r.value
    };
    let half = |a: ieee::Quad, b: ieee::Quad| {
        let r = (a + b).value;
        (r / ieee::Quad::from_u128(2).value).value
    };
    for rm in Round::ALL {
        for _ in 0..cases() {
            let a = g.operand(None);
            let (r, flags) = u(wf::sqrt::<F>(F::Bits::from_u64(a), rm));
            let x = n::<F>(a);
            let what = || format!("sqrt.{} {a:#x} {rm:?}", F::NAME);
            if x.is_nan() || (x.is_negative() && !x.is_zero()) {
                let nv = x.is_signaling() || !x.is_nan();
                let want = (
                    F::CANONICAL_NAN.to_u64(),
                    if nv { Flags::NV } else { Flags::NONE },
                );
                report.check(what, (r, flags), want);
                continue;
            }
            if x.is_zero() || x.is_infinite() {
                report.check(what, (r, flags), (a, Flags::NONE));
                continue;
            }
            let rv = n::<F>(r);
            let ok = rv.is_finite_non_zero() && !rv.is_negative() && {
                let xq = q(x);
                let r2 = sq(q(rv));
                let up = q(rv.next_up().value);
                let down = q(rv.next_down().value);
                match rm {
                    Round::Rne | Round::Rmm => {
                        sq(half(down, q(rv))) < xq && xq < sq(half(q(rv), up))
                    }
                    Round::Rtz | Round::Rdn => r2 <= xq && xq < sq(up),
                    Round::Rup => sq(down) < xq && xq <= r2,
                }
            };
            let inexact = ok && sq(q(rv)) != q(x);
            let want_flags = if inexact { Flags::NX } else { Flags::NONE };
            if !ok {
                report.check(what, (r, flags), (u64::MAX, want_flags));
            } else {
                report.check(what, (r, flags), (r, want_flags));
            }
        }
    }
    report.finish("sqrt");
}

fn compare_ops<F: Oracle>(seed: u64) {
    use std::cmp::Ordering;
    let mut report = Report::default();
    let mut g = Gen::<F>::new(seed);
    for _ in 0..cases() * 5 {
        let a = g.operand(None);
        let b = g.operand(Some(a));
        let (na, nb) = (n::<F>(a), n::<F>(b));
        let ord = na.partial_cmp(&nb);
        let snan = na.is_signaling() || nb.is_signaling();
        let nan = na.is_nan() || nb.is_nan();
        let quiet_flags = if snan { Flags::NV } else { Flags::NONE };
        let signaling_flags = if nan { Flags::NV } else { Flags::NONE };
        let (fa, fb) = (F::Bits::from_u64(a), F::Bits::from_u64(b));
        let bool_flags = |r: (bool, Flags)| (r.0 as u64, r.1);
        let cases: [(&str, (bool, Flags), bool, Flags); 4] = [
            (
                "eq",
                wf::eq::<F>(fa, fb),
                ord == Some(Ordering::Equal),
                quiet_flags,
            ),
            (
                "lt",
                wf::lt::<F>(fa, fb),
                ord == Some(Ordering::Less),
                signaling_flags,
            ),
            (
                "le",
                wf::le::<F>(fa, fb),
                matches!(ord, Some(Ordering::Less | Ordering::Equal)),
                signaling_flags,
            ),
            (
                "unordered",
                wf::unordered::<F>(fa, fb),
                ord.is_none(),
                quiet_flags,
            ),
        ];
        for (name, got, want, flags) in cases {
            report.check(
                || format!("{name}.{} {a:#x} {b:#x}", F::NAME),
                bool_flags(got),
                (want as u64, flags),
            );
        }
        // minimumNumber / maximumNumber with −0 < +0.
        let pick = |want_max: bool| -> u64 {
            match (na.is_nan(), nb.is_nan()) {
                (true, true) => F::CANONICAL_NAN.to_u64(),
                (true, false) => b,
                (false, true) => a,
                (false, false) => match ord.unwrap() {
                    Ordering::Less => {
                        if want_max {
                            b
                        } else {
                            a
                        }
                    }
                    Ordering::Greater => {
                        if want_max {
                            a
                        } else {
                            b
                        }
                    }
                    Ordering::Equal => {
                        // Equal values differ only for zeros of opposite signs.
                        let a_neg = na.is_negative();
                        if a_neg == want_max {
                            b
                        } else {
                            a
                        }
                    }
                },
            }
        };
        report.check(
            || format!("min.{} {a:#x} {b:#x}", F::NAME),
            u(wf::min::<F>(fa, fb)),
            (pick(false), quiet_flags),
        );
        report.check(
            || format!("max.{} {a:#x} {b:#x}", F::NAME),
            u(wf::max::<F>(fa, fb)),
            (pick(true), quiet_flags),
        );
    }
    report.finish("compares");
}

fn convert_to<F: Oracle, T: Oracle>(seed: u64) {
    let mut report = Report::default();
    let mut g = Gen::<F>::new(seed);
    for rm in Round::ALL {
        for _ in 0..cases() {
            let a = g.operand(None);
            let got = u(wf::convert::<F, T>(F::Bits::from_u64(a), rm));
            let mut lost = false;
            let narrow: StatusAnd<N<T>> = n::<F>(a).convert_r(ar(rm), &mut lost);
            let wide: StatusAnd<W<T>> = n::<F>(a).convert_r(ar(rm), &mut lost);
            let want = reference::<T>(narrow, Some(wide.value), is_snan::<F>(a));
            report.check(
                || format!("convert {}->{} {a:#x} {rm:?}", F::NAME, T::NAME),
                got,
                want,
            );
        }
    }
    report.finish("convert");
}

fn int_conversions<F: Oracle>(seed: u64) {
    let mut report = Report::default();
    let mut g = Gen::<F>::new(seed);
    let ints = [
        Int::I8,
        Int::U8,
        Int::I16,
        Int::U16,
        Int::I32,
        Int::U32,
        Int::I64,
        Int::U64,
    ];
    for rm in Round::ALL {
        for _ in 0..cases() {
            // float -> int: apfloat rounds to an integral value; range and saturation by the
            // RISC-V rules.
            let a = g.operand(None);
            let x = n::<F>(a);
            let int = ints[g.rng.below(ints.len() as u64) as usize];
            let got = wf::to_int::<F>(F::Bits::from_u64(a), int, rm);
            let (lo, hi) = if int.signed {
                (-(1i128 << (int.bits - 1)), (1i128 << (int.bits - 1)) - 1)
            } else {
                (0, (1i128 << int.bits) - 1)
            };
            let enc = |v: i128| {
                if int.signed {
                    v as i64 as u64
                } else {
                    v as u64
                }
            };
            let want = if x.is_nan() {
                (enc(hi), Flags::NV)
            } else if x.is_infinite() {
                (enc(if x.is_negative() { lo } else { hi }), Flags::NV)
            } else {
                let r = x.round_to_integral(ar(rm));
                let mut is_exact = false;
                let v = r.value.to_i128_r(128, AR::TowardZero, &mut is_exact).value;
                if v < lo || v > hi {
                    (enc(if v < 0 { lo } else { hi }), Flags::NV)
                } else {
                    let nx = r.status.contains(Status::INEXACT);
                    (enc(v), if nx { Flags::NX } else { Flags::NONE })
                }
            };
            report.check(
                || format!("to_int.{} {a:#x} {int:?} {rm:?}", F::NAME),
                got,
                want,
            );

            // int -> float.
            let v = match g.rng.below(4) {
                0 => g.rng.next() as i64,
                1 => (g.rng.next() >> g.rng.below(64)) as i64,
                2 => -((g.rng.next() >> g.rng.below(64)) as i64),
                _ => (g.rng.next() as i64) & !((1i64 << g.rng.below(63)) - 1),
            };
            let got = u(wf::from_i64::<F>(v, rm));
            let narrow = N::<F>::from_i128_r(i128::from(v), ar(rm));
            let wide = W::<F>::from_i128_r(i128::from(v), ar(rm)).value;
            report.check(
                || format!("from_i64.{} {v} {rm:?}", F::NAME),
                got,
                reference::<F>(narrow, Some(wide), false),
            );
            let got = u(wf::from_u64::<F>(v as u64, rm));
            let narrow = N::<F>::from_u128_r(u128::from(v as u64), ar(rm));
            let wide = W::<F>::from_u128_r(u128::from(v as u64), ar(rm)).value;
            report.check(
                || format!("from_u64.{} {v} {rm:?}", F::NAME),
                got,
                reference::<F>(narrow, Some(wide), false),
            );
        }
    }
    report.finish("int conversions");
}

macro_rules! format_tests {
    ($module:ident, $f:ty, $seed:literal) => {
        mod $module {
            use super::*;
            #[test]
            fn add_sub_mul_div() {
                binary_ops::<$f>($seed);
            }
            #[test]
            fn fma() {
                fma_op::<$f>($seed + 1);
            }
            #[test]
            fn sqrt() {
                sqrt_op::<$f>($seed + 2);
            }
            #[test]
            fn compares_min_max() {
                compare_ops::<$f>($seed + 3);
            }
            #[test]
            fn integers() {
                int_conversions::<$f>($seed + 4);
            }
            #[test]
            fn to_other_formats() {
                convert_to::<$f, wf::F16>($seed + 5);
                convert_to::<$f, wf::BF16>($seed + 6);
                convert_to::<$f, wf::F32>($seed + 7);
                convert_to::<$f, wf::F64>($seed + 8);
            }
        }
    };
}
format_tests!(f16, wf::F16, 0x1600);
format_tests!(bf16, wf::BF16, 0xbf16);
format_tests!(f32, wf::F32, 0x3200);
format_tests!(f64, wf::F64, 0x6400);

/// Round-to-nearest-even f32/f64 values against the host FPU (an IEEE implementation).
#[test]
fn host_fpu_round_to_nearest_even() {
    let mut g32 = Gen::<wf::F32>::new(77);
    let mut g64 = Gen::<wf::F64>::new(78);
    // NaN tested on the bits: the host's NaN signs and payloads are not IEEE-specified.
    let canon32 = |x: f32| {
        let b = x.to_bits();
        if b & 0x7fff_ffff > 0x7f80_0000 {
            0x7fc0_0000
        } else {
            b
        }
    };
    let canon64 = |x: f64| {
        let b = x.to_bits();
        if b & !(1 << 63) > 0x7ff0_0000_0000_0000 {
            0x7ff8_0000_0000_0000
        } else {
            b
        }
    };
    let rne = Round::Rne;
    for _ in 0..cases() * 5 {
        let (a, b, c) = (g32.operand(None) as u32, 0, 0);
        let b = if b == 0 {
            g32.operand(Some(a as u64)) as u32
        } else {
            b
        };
        let c = if c == 0 { g32.operand(None) as u32 } else { c };
        let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        assert_eq!(
            wf::add::<wf::F32>(a, b, rne).0,
            canon32(x + y),
            "{a:#x} + {b:#x}"
        );
        assert_eq!(
            wf::mul::<wf::F32>(a, b, rne).0,
            canon32(x * y),
            "{a:#x} * {b:#x}"
        );
        assert_eq!(
            wf::div::<wf::F32>(a, b, rne).0,
            canon32(x / y),
            "{a:#x} / {b:#x}"
        );
        assert_eq!(
            wf::fma::<wf::F32>(a, b, c, rne).0,
            canon32(x.mul_add(y, z)),
            "fma {a:#x} {b:#x} {c:#x}"
        );
        assert_eq!(
            wf::sqrt::<wf::F32>(a, rne).0,
            canon32(x.sqrt()),
            "sqrt {a:#x}"
        );
        let (a, c) = (g64.operand(None), g64.operand(None));
        let b = g64.operand(Some(a));
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        assert_eq!(
            wf::add::<wf::F64>(a, b, rne).0,
            canon64(x + y),
            "{a:#x} + {b:#x}"
        );
        assert_eq!(
            wf::mul::<wf::F64>(a, b, rne).0,
            canon64(x * y),
            "{a:#x} * {b:#x}"
        );
        assert_eq!(
            wf::div::<wf::F64>(a, b, rne).0,
            canon64(x / y),
            "{a:#x} / {b:#x}"
        );
        assert_eq!(
            wf::fma::<wf::F64>(a, b, c, rne).0,
            canon64(x.mul_add(y, z)),
            "fma {a:#x} {b:#x} {c:#x}"
        );
        assert_eq!(
            wf::sqrt::<wf::F64>(a, rne).0,
            canon64(x.sqrt()),
            "sqrt {a:#x}"
        );
    }
}
