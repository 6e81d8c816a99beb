//! The OpenCL C math library of the prelude, run on the functional model: every function of
//! OpenCL C 1.2 §6.12.2 in float and double over edge cases and thousands of random and
//! structured inputs, checked against references on the host. Exact functions must match
//! bit for bit; the others are measured in ulps against the bound of OpenCL C 1.2 §7.4
//! (Tables 7.1 and 7.2). Float references are the host's binary64 functions; double
//! references are `mathlib_f64.txt`, values computed at 256 bits by
//! `tools/mathlib_vectors.py`. `WARPKIT_CC_MATH_SWEEP=1` runs far more float inputs and
//! prints the worst error of every function.

use super::model::Assembled;
use std::collections::HashMap;
use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig};

/// How a kernel calls the function under test.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sig {
    /// `out = f(a)`
    U,
    /// `out = f(a, b)`
    B,
    /// `out = f(a, b, c)`
    T,
    /// `out = f(a, ib)`
    FI,
    /// `iout = f(a)`
    IF,
    /// `out = f(a, &k); iout = k`
    PI,
    /// `out = f(a, &t); out2 = t`
    PT,
    /// `out = f(a, b, &k); iout = k`
    RQ,
    /// `out = f((uint or ulong)ib)`
    N,
}

fn body(name: &str, sig: Sig, t: &str) -> String {
    let uint = if t == "double" { "ulong" } else { "uint" };
    match sig {
        Sig::U => format!("out[i] = {name}(a[i]);"),
        Sig::B => format!("out[i] = {name}(a[i], b[i]);"),
        Sig::T => format!("out[i] = {name}(a[i], b[i], c[i]);"),
        Sig::FI => format!("out[i] = {name}(a[i], ib[i]);"),
        Sig::IF => format!("iout[i] = {name}(a[i]);"),
        Sig::PI => format!("int k = 0; out[i] = {name}(a[i], &k); iout[i] = k;"),
        Sig::PT => format!("{t} r = 0; out[i] = {name}(a[i], &r); out2[i] = r;"),
        Sig::RQ => format!("int k = 0; out[i] = {name}(a[i], b[i], &k); iout[i] = k;"),
        Sig::N => format!("out[i] = {name}(({uint})ib[i]);"),
    }
}

/// One kernel per function: `k_NAME`.
pub fn source(funcs: &[(&str, Sig)], t: &str) -> String {
    let mut s = String::new();
    if t == "double" {
        s.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    }
    for (name, sig) in funcs {
        s.push_str(&format!(
            "__kernel void k_{name}(__global const {t} *a, __global const {t} *b, \
             __global const {t} *c, __global const int *ib, __global {t} *out, \
             __global {t} *out2, __global int *iout, int n)\n{{\n    int i = get_global_id(0);\n    \
             if (i < n) {{ {} }}\n}}\n",
            body(name, *sig, t)
        ));
    }
    s
}

/// The values a kernel wrote.
#[derive(Debug, Default, Clone)]
pub struct Outputs {
    pub out: Vec<u64>,
    pub out2: Vec<u64>,
    pub iout: Vec<i32>,
}

/// Inputs of one kernel run (as bit patterns of the type).
#[derive(Debug, Default, Clone)]
pub struct Inputs {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: Vec<u64>,
    pub ib: Vec<i32>,
}

/// A compiled and assembled program of many kernels.
pub struct Program {
    asm: Assembled,
    prog: warpkit_sim::Program,
}

impl Program {
    pub fn new(src: &str) -> Program {
        let asm = Assembled::compile(src, &warpkit_cc::Options::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let prog = asm.sim_program();
        Program { asm, prog }
    }

    /// Run kernel `k_NAME` of element size `size` (4 or 8) over `inp`.
    pub fn run(&self, name: &str, size: usize, inp: &Inputs) -> Outputs {
        let n = inp.a.len().max(inp.ib.len());
        let bytes = |v: &[u64]| -> Vec<u8> {
            let mut out = Vec::with_capacity(n * size);
            for k in 0..n {
                let x = v.get(k).copied().unwrap_or(0);
                out.extend_from_slice(&x.to_le_bytes()[..size]);
            }
            out
        };
        let ints: Vec<u8> = (0..n)
            .flat_map(|k| inp.ib.get(k).copied().unwrap_or(0).to_le_bytes())
            .collect();
        let block = 64u32;
        let cfg = self.asm.config(
            Some(&format!("k_{name}")),
            LaunchConfig {
                grid: [(n as u32).div_ceil(block).max(1), 1, 1],
                block: [block, 1, 1],
                max_steps: 200_000_000,
                ..LaunchConfig::default()
            },
        );
        let args = vec![
            ("a", ArgValue::Buffer(bytes(&inp.a))),
            ("b", ArgValue::Buffer(bytes(&inp.b))),
            ("c", ArgValue::Buffer(bytes(&inp.c))),
            ("ib", ArgValue::Buffer(ints)),
            ("out", ArgValue::Buffer(vec![0; n * size])),
            ("out2", ArgValue::Buffer(vec![0; n * size])),
            ("iout", ArgValue::Buffer(vec![0; n * 4])),
            ("n", ArgValue::Int(n as u64)),
        ]
        .into_iter()
        .map(|(name, value)| Arg {
            name: name.into(),
            value,
        })
        .collect();
        let r = launch(&self.prog, &cfg, args).unwrap();
        assert!(r.ok(), "k_{name}: traps {:?}", r.traps);
        assert!(r.hazards.is_empty(), "k_{name}: hazards {:?}", r.hazards);
        let get =
            |name: &str| -> &[u8] { &r.buffers.iter().find(|b| b.name == name).unwrap().bytes };
        let words = |b: &[u8]| -> Vec<u64> {
            b.chunks(size)
                .map(|c| {
                    let mut w = [0u8; 8];
                    w[..size].copy_from_slice(c);
                    u64::from_le_bytes(w)
                })
                .collect()
        };
        Outputs {
            out: words(get("out")),
            out2: words(get("out2")),
            iout: get("iout")
                .chunks(4)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        }
    }
}

/// A seeded xorshift generator (tests are reproducible).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64))
    }
}

/// Interesting float inputs: specials, powers of two and their neighbours, near integers
/// and half-integers, subnormals, and random bit patterns and magnitudes.
pub fn f32_inputs(rng: &mut Rng, random: usize) -> Vec<f32> {
    let mut v: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        -f32::MAX,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        0.5,
        -0.5,
        1.0,
        -1.0,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999997,
        -0.49999997,
        0.50000006,
        8388607.5,
        -8388607.5,
        8388608.0,
        8388609.0,
        16777215.0,
        16777216.0,
        1e30,
        -1e30,
        std::f32::consts::PI,
        std::f32::consts::FRAC_PI_2,
    ];
    for e in -150..129 {
        let p = 2f32.powi(e);
        for x in [
            p,
            f32::from_bits(p.to_bits().wrapping_sub(1)),
            f32::from_bits(p.to_bits() + 1),
        ] {
            v.push(x);
            v.push(-x);
        }
    }
    for k in -40..40 {
        let x = k as f32 * 0.5;
        v.push(x);
        v.push(f32::from_bits(x.to_bits() + 1));
        v.push(f32::from_bits(x.to_bits().wrapping_sub(1)));
    }
    for _ in 0..random {
        v.push(f32::from_bits(rng.next() as u32));
        let m = rng.range(-1.0, 1.0) * 2f64.powf(rng.range(-30.0, 30.0));
        v.push(m as f32);
    }
    v
}

/// Interesting double inputs, as [`f32_inputs`].
pub fn f64_inputs(rng: &mut Rng, random: usize) -> Vec<f64> {
    let mut v: Vec<f64> = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        0.5,
        -0.5,
        1.5,
        -2.5,
        0.49999999999999994,
        -0.49999999999999994,
        4503599627370495.5,
        -4503599627370495.5,
        4503599627370496.0,
        9007199254740991.0,
        9007199254740993.0,
        1e300,
        -1e300,
    ];
    for e in (-1075..1024).step_by(7) {
        let p = 2f64.powi(e);
        for x in [
            p,
            f64::from_bits(p.to_bits().wrapping_sub(1)),
            f64::from_bits(p.to_bits() + 1),
        ] {
            v.push(x);
            v.push(-x);
        }
    }
    for k in -40..40 {
        let x = k as f64 * 0.5;
        v.push(x);
        v.push(f64::from_bits(x.to_bits() + 1));
        v.push(f64::from_bits(x.to_bits().wrapping_sub(1)));
    }
    for _ in 0..random {
        v.push(f64::from_bits(rng.next()));
        v.push(rng.range(-1.0, 1.0) * 2f64.powf(rng.range(-60.0, 60.0)));
    }
    v
}

fn sweep() -> bool {
    std::env::var("WARPKIT_CC_MATH_SWEEP").is_ok_and(|v| v != "0")
}

fn same32(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn same64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Exact functions of one and two arguments, checked bit for bit (NaNs as NaNs).
#[test]
fn exact_rounding_and_remainders() {
    type F1 = fn(f32) -> f32;
    type D1 = fn(f64) -> f64;
    let un32: &[(&str, F1)] = &[
        ("floor", f32::floor),
        ("ceil", f32::ceil),
        ("trunc", f32::trunc),
        ("round", f32::round),
        ("rint", f32::round_ties_even),
        ("fabs", f32::abs),
    ];
    let un64: &[(&str, D1)] = &[
        ("floor", f64::floor),
        ("ceil", f64::ceil),
        ("trunc", f64::trunc),
        ("round", f64::round),
        ("rint", f64::round_ties_even),
        ("fabs", f64::abs),
    ];
    let mut funcs: Vec<(&str, Sig)> = un32.iter().map(|(n, _)| (*n, Sig::U)).collect();
    funcs.push(("fmod", Sig::B));
    funcs.push(("copysign", Sig::B));
    let p32 = Program::new(&source(&funcs, "float"));
    let p64 = Program::new(&source(&funcs, "double"));
    let mut rng = Rng::new(1);
    let n = if sweep() { 20000 } else { 600 };
    let xs = f32_inputs(&mut rng, n);
    let inp = Inputs {
        a: xs.iter().map(|x| u64::from(x.to_bits())).collect(),
        ..Inputs::default()
    };
    for (name, f) in un32 {
        let o = p32.run(name, 4, &inp);
        for (k, x) in xs.iter().enumerate() {
            let got = f32::from_bits(o.out[k] as u32);
            assert!(
                same32(got, f(*x)),
                "{name}({x:e}) = {got:e}, want {:e}",
                f(*x)
            );
        }
    }
    let ys = f64_inputs(&mut rng, n);
    let inp = Inputs {
        a: ys.iter().map(|x| x.to_bits()).collect(),
        ..Inputs::default()
    };
    for (name, f) in un64 {
        let o = p64.run(name, 8, &inp);
        for (k, x) in ys.iter().enumerate() {
            let got = f64::from_bits(o.out[k]);
            assert!(
                same64(got, f(*x)),
                "{name}({x:e}) = {got:e}, want {:e}",
                f(*x)
            );
        }
    }
    // Two arguments: pairs of interesting values and random pairs of close exponents.
    let mut a32 = Vec::new();
    let mut b32 = Vec::new();
    let base = f32_inputs(&mut rng, 8);
    for (i, x) in base.iter().enumerate().step_by(3) {
        for y in base.iter().skip(i % 5).step_by(23) {
            a32.push(*x);
            b32.push(*y);
        }
    }
    for _ in 0..n * 4 {
        let x = f32::from_bits(rng.next() as u32);
        let y = f32::from_bits(
            rng.next() as u32 & 0x7fff_ffff
                | (x.to_bits() & 0x7f80_0000).saturating_sub(rng.next() as u32 % 0x0c00_0000),
        );
        a32.push(x);
        b32.push(y);
    }
    let inp = Inputs {
        a: a32.iter().map(|x| u64::from(x.to_bits())).collect(),
        b: b32.iter().map(|x| u64::from(x.to_bits())).collect(),
        ..Inputs::default()
    };
    let o = p32.run("fmod", 4, &inp);
    let c = p32.run("copysign", 4, &inp);
    for k in 0..a32.len() {
        let (x, y) = (a32[k], b32[k]);
        let got = f32::from_bits(o.out[k] as u32);
        assert!(
            same32(got, x % y),
            "fmod({x:e}, {y:e}) = {got:e}, want {:e}",
            x % y
        );
        assert_eq!(
            c.out[k] as u32,
            x.copysign(y).to_bits(),
            "copysign({x:e}, {y:e})"
        );
    }
    let mut a64 = Vec::new();
    let mut b64 = Vec::new();
    let base = f64_inputs(&mut rng, 8);
    for (i, x) in base.iter().enumerate().step_by(5) {
        for y in base.iter().skip(i % 7).step_by(31) {
            a64.push(*x);
            b64.push(*y);
        }
    }
    for _ in 0..n * 2 {
        let x = f64::from_bits(rng.next());
        let shift = (rng.next() % 300) << 52;
        let y = f64::from_bits(
            rng.next() & 0x000f_ffff_ffff_ffff
                | (x.to_bits() & 0x7ff0_0000_0000_0000).saturating_sub(shift),
        );
        a64.push(x);
        b64.push(y);
    }
    let inp = Inputs {
        a: a64.iter().map(|x| x.to_bits()).collect(),
        b: b64.iter().map(|x| x.to_bits()).collect(),
        ..Inputs::default()
    };
    let o = p64.run("fmod", 8, &inp);
    let c = p64.run("copysign", 8, &inp);
    for k in 0..a64.len() {
        let (x, y) = (a64[k], b64[k]);
        let got = f64::from_bits(o.out[k]);
        assert!(
            same64(got, x % y),
            "fmod({x:e}, {y:e}) = {got:e}, want {:e}",
            x % y
        );
        assert_eq!(c.out[k], x.copysign(y).to_bits(), "copysign({x:e}, {y:e})");
    }
}

// ---- references ----

mod libm {
    extern "C" {
        pub fn erf(x: f64) -> f64;
        pub fn erfc(x: f64) -> f64;
        pub fn tgamma(x: f64) -> f64;
        pub fn lgamma_r(x: f64, sign: *mut i32) -> f64;
        pub fn remquo(x: f64, y: f64, quo: *mut i32) -> f64;
        pub fn remainder(x: f64, y: f64) -> f64;
        pub fn ldexp(x: f64, n: i32) -> f64;
        pub fn acosh(x: f64) -> f64;
        pub fn asinh(x: f64) -> f64;
        pub fn atanh(x: f64) -> f64;
    }
}

/// acosh, asinh and atanh of the C library (Rust's are not as accurate at the extremes).
fn hyp_inverse(name: &str, x: f64) -> f64 {
    // SAFETY: pure C functions of a double.
    unsafe {
        match name {
            "acosh" => libm::acosh(x),
            "asinh" => libm::asinh(x),
            _ => libm::atanh(x),
        }
    }
}

fn erf(x: f64) -> f64 {
    // SAFETY: a pure C function of a double.
    unsafe { libm::erf(x) }
}

fn erfc(x: f64) -> f64 {
    // SAFETY: a pure C function of a double.
    unsafe { libm::erfc(x) }
}

fn tgamma(x: f64) -> f64 {
    // SAFETY: a pure C function of a double.
    unsafe { libm::tgamma(x) }
}

fn lgamma_r(x: f64) -> (f64, i32) {
    let mut s = 0;
    // SAFETY: `s` is a valid place for the sign.
    let r = unsafe { libm::lgamma_r(x, &mut s) };
    (r, s)
}

fn remquo(x: f64, y: f64) -> (f64, i32) {
    let mut q = 0;
    // SAFETY: `q` is a valid place for the quotient bits.
    let r = unsafe { libm::remquo(x, y, &mut q) };
    (r, q)
}

fn remainder(x: f64, y: f64) -> f64 {
    // SAFETY: a pure C function of two doubles.
    unsafe { libm::remainder(x, y) }
}

fn ldexp(x: f64, n: i32) -> f64 {
    // SAFETY: a pure C function.
    unsafe { libm::ldexp(x, n) }
}

/// sin(pi x) with exact reduction (x = 2k + r, |r| <= 1; then to |r| <= 1/2).
fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x.abs() >= 2f64.powi(52) {
        return 0f64.copysign(x);
    }
    let mut r = x - 2.0 * (x / 2.0).round();
    if r > 0.5 {
        r = 1.0 - r;
    } else if r < -0.5 {
        r = -1.0 - r;
    }
    if r == 0.0 {
        return 0f64.copysign(x);
    }
    (std::f64::consts::PI * r).sin()
}

fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x.abs() >= 2f64.powi(53) {
        return 1.0;
    }
    let a = (x - 2.0 * (x / 2.0).round()).abs();
    if a == 0.5 {
        0.0
    } else if a < 0.25 {
        (std::f64::consts::PI * a).cos()
    } else if a <= 0.75 {
        (std::f64::consts::PI * (0.5 - a)).sin()
    } else {
        -(std::f64::consts::PI * (1.0 - a)).cos()
    }
}

fn tanpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let (s, c) = (sinpi(x), cospi(x));
    if c == 0.0 {
        let k = x.floor();
        return if (k / 2.0).floor() * 2.0 == k {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if s == 0.0 {
        let odd = x.abs() < 2f64.powi(53) && (x / 2.0).floor() * 2.0 != x;
        return if odd {
            0f64.copysign(-x)
        } else {
            0f64.copysign(x)
        };
    }
    s / c
}

fn powr(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if (x == 0.0 || x.is_infinite()) && y == 0.0 {
        return f64::NAN;
    }
    if x == 1.0 && y.is_infinite() {
        return f64::NAN;
    }
    x.abs().powf(y)
}

fn rootn(x: f64, n: i32) -> f64 {
    if n == 0 || x.is_nan() || (x < 0.0 && n % 2 == 0) {
        return f64::NAN;
    }
    let odd = n % 2 != 0;
    let sign = if odd && x.is_sign_negative() {
        -1.0
    } else {
        1.0
    };
    if x == 0.0 || x.is_infinite() {
        let big = (x == 0.0) == (n < 0);
        return if big { f64::INFINITY } else { 0.0 } * sign;
    }
    sign * x.abs().powf(1.0 / f64::from(n))
}

/// The reference of a function (a value near enough to the exact one for float), by
/// name; `y` is the second argument, `n` the integer one.
fn reference(name: &str, x: f64, y: f64, n: i32) -> f64 {
    use std::f64::consts::PI;
    match name {
        "acos" => x.acos(),
        "acosh" | "asinh" | "atanh" => hyp_inverse(name, x),
        "acospi" => x.acos() / PI,
        "asin" => x.asin(),
        "asinpi" => x.asin() / PI,
        "atan" => x.atan(),
        "atan2" => x.atan2(y),
        "atanpi" => x.atan() / PI,
        "atan2pi" => x.atan2(y) / PI,
        "cbrt" => x.cbrt(),
        "cos" | "half_cos" | "native_cos" => x.cos(),
        "cosh" => x.cosh(),
        "cospi" => cospi(x),
        "erf" => erf(x),
        "erfc" => erfc(x),
        "exp" | "half_exp" | "native_exp" => x.exp(),
        "exp2" | "half_exp2" | "native_exp2" => x.exp2(),
        "exp10" | "half_exp10" | "native_exp10" => 10f64.powf(x),
        "expm1" => x.exp_m1(),
        "hypot" => x.hypot(y),
        "lgamma" => lgamma_r(x).0,
        "log" | "half_log" | "native_log" => x.ln(),
        "log2" | "half_log2" | "native_log2" => x.log2(),
        "log10" | "half_log10" | "native_log10" => x.log10(),
        "log1p" => x.ln_1p(),
        // x^0 is 1 even for a signaling NaN x (OpenCL C 1.2 §7.5; the C library says NaN).
        "pow" if y == 0.0 => 1.0,
        "pown" if n == 0 => 1.0,
        "pow" => x.powf(y),
        "pown" => x.powf(f64::from(n)),
        "powr" | "half_powr" | "native_powr" => powr(x, y),
        "rootn" => rootn(x, n),
        "rsqrt" | "half_rsqrt" | "native_rsqrt" => 1.0 / x.sqrt(),
        "sqrt" | "half_sqrt" | "native_sqrt" => x.sqrt(),
        "sin" | "half_sin" | "native_sin" => x.sin(),
        "sinh" => x.sinh(),
        "sinpi" => sinpi(x),
        "tan" | "half_tan" | "native_tan" => x.tan(),
        "tanh" => x.tanh(),
        "tanpi" => tanpi(x),
        "tgamma" => tgamma(x),
        "half_recip" | "native_recip" => 1.0 / x,
        "half_divide" | "native_divide" => x / y,
        _ => panic!("no reference for {name}"),
    }
}

/// The error of `got` in ulps of the float nearest `want` (OpenCL C 1.2 §7.4: an infinite
/// result counts as 2^128). NaN where both are NaN is 0; a NaN on one side only, or a wrong
/// infinity, is infinite.
fn ulps32(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    // A value beyond the float range rounds to infinity.
    let want = if want.abs() >= 2f64.powi(128) - 2f64.powi(103) {
        want * f64::INFINITY
    } else {
        want
    };
    if want.is_infinite() {
        return if f64::from(got) == want {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let g = if got.is_infinite() {
        2f64.powi(128).copysign(f64::from(got))
    } else {
        f64::from(got)
    };
    let e = if want == 0.0 {
        -126
    } else {
        (want.abs().log2().floor() as i32).clamp(-126, 127)
    };
    (g - want).abs() / 2f64.powi(e - 23)
}

/// 2^e for -1074 <= e <= 1023.
fn pow2(e: i32) -> f64 {
    if e < -1022 {
        f64::from_bits(1u64 << (e + 1074))
    } else {
        f64::from_bits(((e + 1023) as u64) << 52)
    }
}

/// The error of `got` in ulps of the double nearest `hi + lo`.
fn ulps64(got: f64, hi: f64, lo: f64) -> f64 {
    if got.is_nan() {
        return f64::INFINITY;
    }
    let g = if got.is_infinite() {
        2f64.powi(1023).copysign(got) * 2.0
    } else {
        got
    };
    let e = (hi.abs().log2().floor() as i32).clamp(-1022, 1023);
    ((g - hi) - lo).abs() / pow2(e - 52)
}

/// An accurate function: its signature, its ulp bounds for float and double (OpenCL C 1.2
/// Tables 7.1 and 7.2) and the inputs of its float test.
struct Accurate {
    name: &'static str,
    sig: Sig,
    f32_bound: f64,
    f64_bound: f64,
    /// Float inputs: random values in [lo, hi] (and their negatives when `neg`), besides the
    /// common interesting ones.
    lo: f64,
    hi: f64,
}

const fn acc(
    name: &'static str,
    sig: Sig,
    f32_bound: f64,
    f64_bound: f64,
    lo: f64,
    hi: f64,
) -> Accurate {
    Accurate {
        name,
        sig,
        f32_bound,
        f64_bound,
        lo,
        hi,
    }
}

/// lgamma's accuracy is implementation-defined (OpenCL C 1.2 Table 7.1): this is what the
/// test holds it to away from the zeros of lgamma on the negative axis.
const LGAMMA_BOUND: f64 = 16.0;

const ACCURATE: &[Accurate] = &[
    acc("acos", Sig::U, 4.0, 4.0, -1.0, 1.0),
    acc("acosh", Sig::U, 4.0, 4.0, 1.0, 1e30),
    acc("acospi", Sig::U, 5.0, 5.0, -1.0, 1.0),
    acc("asin", Sig::U, 4.0, 4.0, -1.0, 1.0),
    acc("asinh", Sig::U, 4.0, 4.0, -1e30, 1e30),
    acc("asinpi", Sig::U, 5.0, 5.0, -1.0, 1.0),
    acc("atan", Sig::U, 5.0, 5.0, -1e10, 1e10),
    acc("atan2", Sig::B, 6.0, 6.0, -1e10, 1e10),
    acc("atanh", Sig::U, 5.0, 5.0, -1.0, 1.0),
    acc("atanpi", Sig::U, 5.0, 5.0, -1e10, 1e10),
    acc("atan2pi", Sig::B, 6.0, 6.0, -1e10, 1e10),
    acc("cbrt", Sig::U, 2.0, 2.0, -1e30, 1e30),
    acc("cos", Sig::U, 4.0, 4.0, -1e6, 1e6),
    acc("cosh", Sig::U, 4.0, 4.0, -90.0, 90.0),
    acc("cospi", Sig::U, 4.0, 4.0, -1e4, 1e4),
    acc("erfc", Sig::U, 16.0, 16.0, -5.0, 11.0),
    acc("erf", Sig::U, 16.0, 16.0, -5.0, 5.0),
    acc("exp", Sig::U, 3.0, 3.0, -104.0, 89.0),
    acc("exp2", Sig::U, 3.0, 3.0, -150.0, 128.0),
    acc("exp10", Sig::U, 3.0, 3.0, -45.0, 38.6),
    acc("expm1", Sig::U, 3.0, 3.0, -20.0, 89.0),
    acc("hypot", Sig::B, 4.0, 4.0, -1e30, 1e30),
    acc("lgamma", Sig::U, LGAMMA_BOUND, LGAMMA_BOUND, -30.0, 1e30),
    acc("log", Sig::U, 3.0, 3.0, 0.0, 1e30),
    acc("log2", Sig::U, 3.0, 3.0, 0.0, 1e30),
    acc("log10", Sig::U, 3.0, 3.0, 0.0, 1e30),
    acc("log1p", Sig::U, 2.0, 2.0, -1.0, 1e30),
    acc("pow", Sig::B, 16.0, 16.0, -20.0, 20.0),
    acc("pown", Sig::FI, 16.0, 16.0, -20.0, 20.0),
    acc("powr", Sig::B, 16.0, 16.0, 0.0, 20.0),
    acc("rootn", Sig::FI, 16.0, 16.0, -1e30, 1e30),
    acc("rsqrt", Sig::U, 2.0, 2.0, 0.0, 1e30),
    acc("sqrt", Sig::U, 3.0, 0.0, 0.0, 1e30),
    acc("sin", Sig::U, 4.0, 4.0, -1e6, 1e6),
    acc("sinh", Sig::U, 4.0, 4.0, -90.0, 90.0),
    acc("sinpi", Sig::U, 4.0, 4.0, -1e4, 1e4),
    acc("tan", Sig::U, 5.0, 5.0, -1e6, 1e6),
    acc("tanh", Sig::U, 5.0, 5.0, -20.0, 20.0),
    acc("tanpi", Sig::U, 6.0, 6.0, -1e4, 1e4),
    acc("tgamma", Sig::U, 16.0, 16.0, -40.0, 36.0),
];

/// Float inputs for `f`: the common set plus random values in its range.
fn inputs_for(f: &Accurate, rng: &mut Rng, n: usize) -> (Vec<f32>, Vec<f32>, Vec<i32>) {
    let mut xs = f32_inputs(rng, n / 4);
    for _ in 0..n {
        let v = if f.hi / f.lo.abs().max(1e-30) > 1e6 && f.lo >= 0.0 {
            2f64.powf(rng.range((f.lo.max(1e-38)).log2(), f.hi.log2()))
        } else if f.hi - f.lo > 1e6 {
            let m = 2f64.powf(rng.range(-20.0, f.hi.abs().max(f.lo.abs()).log2()));
            if rng.next() & 1 == 0 {
                m
            } else {
                -m
            }
        } else {
            rng.range(f.lo, f.hi)
        };
        xs.push(v as f32);
    }
    let mut ys = Vec::with_capacity(xs.len());
    let mut ns = Vec::with_capacity(xs.len());
    let base = f32_inputs(rng, 0);
    for k in 0..xs.len() {
        let y = match k % 3 {
            0 => base[(rng.next() % base.len() as u64) as usize],
            1 => rng.range(-3.0, 3.0) as f32,
            _ => (rng.range(-1.0, 1.0) * 2f64.powf(rng.range(-10.0, 10.0))) as f32,
        };
        ys.push(y);
        ns.push(match k % 4 {
            0 => (rng.next() % 7) as i32 - 3,
            1 => (rng.next() % 41) as i32 - 20,
            2 => (rng.next() % 400) as i32 - 200,
            _ => rng.next() as i32,
        });
    }
    (xs, ys, ns)
}

fn bits32(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}

fn bits64(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Whether a special result must match exactly: the reference is a zero, an infinity or a
/// NaN (the sign of a zero counts).
fn special_ok32(got: f32, want: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    f64::from(got).to_bits() == want.to_bits()
}

/// Every accurate function in float against the host's binary64, within its bound, and
/// zeros, infinities and NaNs exactly.
#[test]
fn float_accuracy() {
    let funcs: Vec<(&str, Sig)> = ACCURATE.iter().map(|f| (f.name, f.sig)).collect();
    let p = Program::new(&source(&funcs, "float"));
    let mut rng = Rng::new(7);
    let n = if sweep() { 100_000 } else { 700 };
    let mut report = String::new();
    for f in ACCURATE {
        let (xs, ys, ns) = inputs_for(f, &mut rng, n);
        let inp = Inputs {
            a: bits32(&xs),
            b: bits32(&ys),
            c: Vec::new(),
            ib: ns.clone(),
        };
        let o = p.run(f.name, 4, &inp);
        let mut worst = (0.0f64, 0usize);
        for k in 0..xs.len() {
            let got = f32::from_bits(o.out[k] as u32);
            let (x, y) = (f64::from(xs[k]), f64::from(ys[k]));
            let want = reference(f.name, x, y, ns[k]);
            if f.name == "lgamma" && x < 0.0 && want.abs() < 1.0 {
                // Near its zeros on the negative axis lgamma loses relative accuracy.
                continue;
            }
            let err = ulps32(got, want);
            let special = want == 0.0 || !want.is_finite();
            assert!(
                !special || special_ok32(got, want),
                "{}({x:e}, {y:e}, {}) = {got:e}, want {want:e} exactly",
                f.name,
                ns[k]
            );
            if err > worst.0 {
                worst = (err, k);
            }
        }
        let k = worst.1;
        report.push_str(&format!(
            "float {:8} {:7.3} ulp at ({:e}, {:e}, {})\n",
            f.name, worst.0, xs[k], ys[k], ns[k]
        ));
        assert!(
            worst.0 <= f.f32_bound,
            "{}({:e}, {:e}, {}): {} ulp, bound {}\n{report}",
            f.name,
            xs[k],
            ys[k],
            ns[k],
            worst.0,
            f.f32_bound
        );
    }
    eprint!("{report}");
}

/// One reference value: x, y, n, and the exact result hi + lo.
type Vector = (f64, f64, i32, f64, f64);

/// The double reference values of `mathlib_f64.txt` by function.
fn f64_vectors() -> HashMap<String, Vec<Vector>> {
    let text = include_str!("mathlib_f64.txt");
    let hex = |s: &str| -> f64 {
        let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
        let s = s.strip_prefix("0x").expect("hex float");
        let (mant, exp) = s.split_once('p').expect("exponent");
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let mut m = u64::from_str_radix(int, 16).unwrap() as f64;
        let mut scale = 1.0 / 16.0;
        for c in frac.chars() {
            m += f64::from(c.to_digit(16).unwrap()) * scale;
            scale /= 16.0;
        }
        let e: i32 = exp.parse().unwrap();
        let v = if e < -1000 {
            m * pow2(e + 200) * pow2(-200)
        } else {
            m * pow2(e)
        };
        if neg {
            -v
        } else {
            v
        }
    };
    let mut map: HashMap<String, Vec<_>> = HashMap::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let x = hex(w[1]);
        let entry = match w.len() {
            4 => (x, 0.0, 0, hex(w[2]), hex(w[3])),
            _ if w[2].starts_with("0x") || w[2].starts_with("-0x") => {
                (x, hex(w[2]), 0, hex(w[3]), hex(w[4]))
            }
            _ => (x, 0.0, w[2].parse().unwrap(), hex(w[3]), hex(w[4])),
        };
        map.entry(w[0].to_string()).or_default().push(entry);
    }
    map
}

/// Every accurate function in double against values computed at 320 bits, within its bound;
/// and on the common interesting inputs, zeros, infinities and NaNs exactly as the host's
/// (or the reference implementation's) special cases.
#[test]
fn double_accuracy() {
    let funcs: Vec<(&str, Sig)> = ACCURATE.iter().map(|f| (f.name, f.sig)).collect();
    let p = Program::new(&source(&funcs, "double"));
    let vectors = f64_vectors();
    let mut rng = Rng::new(11);
    let mut report = String::new();
    for f in ACCURATE {
        let mut worst = (0.0f64, 0.0, 0.0, 0, 0.0);
        if let Some(v) = vectors.get(f.name) {
            let inp = Inputs {
                a: v.iter().map(|e| e.0.to_bits()).collect(),
                b: v.iter().map(|e| e.1.to_bits()).collect(),
                c: Vec::new(),
                ib: v.iter().map(|e| e.2).collect(),
            };
            let o = p.run(f.name, 8, &inp);
            for (k, &(x, y, n, hi, lo)) in v.iter().enumerate() {
                let got = f64::from_bits(o.out[k]);
                if f.name == "lgamma" && x < 0.0 && hi.abs() < 1.0 {
                    continue;
                }
                let err = ulps64(got, hi, lo);
                if err > worst.0 {
                    worst = (err, x, y, n, got);
                }
            }
        } else {
            assert_eq!(f.name, "sqrt", "no vectors for {}", f.name);
        }
        // Special values on the common inputs and random ones; where the host's function is
        // itself within an ulp or so (the C library's), the result must be within the
        // bound and two ulps of it (a coarse check over the whole domain; the vectors
        // measure).
        let xs = f64_inputs(&mut rng, if sweep() { 20_000 } else { 300 });
        let ys: Vec<f64> = xs.iter().rev().copied().collect();
        let ns: Vec<i32> = (0..xs.len()).map(|k| (k % 9) as i32 - 4).collect();
        let inp = Inputs {
            a: bits64(&xs),
            b: bits64(&ys),
            c: Vec::new(),
            ib: ns.clone(),
        };
        let o = p.run(f.name, 8, &inp);
        for k in 0..xs.len() {
            let got = f64::from_bits(o.out[k]);
            let want = reference(f.name, xs[k], ys[k], ns[k]);
            if f.name == "sqrt" {
                assert!(same64(got, want), "sqrt({:e}) = {got:e}", xs[k]);
            }
            if want == 0.0 || !want.is_finite() {
                assert!(
                    (want.is_nan() && got.is_nan()) || got.to_bits() == want.to_bits(),
                    "{}({:e}, {:e}, {}) = {got:e}, want {want:e} exactly",
                    f.name,
                    xs[k],
                    ys[k],
                    ns[k]
                );
            } else if !matches!(f.name, "tgamma" | "lgamma" | "rootn") {
                let err = ulps64(got, want, 0.0);
                assert!(
                    err <= f.f64_bound + 2.0,
                    "{}({:e}, {:e}, {}) = {got:e}, host {want:e}: {err} ulp",
                    f.name,
                    xs[k],
                    ys[k],
                    ns[k]
                );
            }
        }
        report.push_str(&format!(
            "double {:8} {:7.3} ulp at ({:e}, {:e}, {}): {:e}\n",
            f.name, worst.0, worst.1, worst.2, worst.3, worst.4
        ));
        assert!(
            worst.0 <= f.f64_bound.max(0.5),
            "{}: {} ulp at ({:e}, {:e}, {}), bound {}\n{report}",
            f.name,
            worst.0,
            worst.1,
            worst.2,
            worst.3,
            f.f64_bound
        );
    }
    eprint!("{report}");
}

fn frexp_ref(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let e = ilogb_ref(x) + 1;
    (ldexp(x, -e), e)
}

fn ilogb_ref(x: f64) -> i32 {
    if x == 0.0 {
        return i32::MIN;
    }
    if !x.is_finite() {
        return i32::MAX;
    }
    let b = x.abs().to_bits();
    let e = (b >> 52) as i32;
    if e == 0 {
        63 - b.leading_zeros() as i32 - 1074
    } else {
        e - 1023
    }
}

fn nextafter_ref(x: f64, y: f64, float: bool) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    let up = x < y;
    if float {
        let v = x as f32;
        f64::from(if up { v.next_up() } else { v.next_down() })
    } else if up {
        x.next_up()
    } else {
        x.next_down()
    }
}

/// The exact functions of both types (and `fma`, `mad`, `fmax`, `fmin`, `sincos`,
/// `lgamma_r`) against host references, bit for bit; remquo's quotient in its low 7 bits
/// and sign.
#[test]
fn exact_functions() {
    let funcs: &[(&str, Sig)] = &[
        ("frexp", Sig::PI),
        ("ldexp", Sig::FI),
        ("ilogb", Sig::IF),
        ("logb", Sig::U),
        ("modf", Sig::PT),
        ("fract", Sig::PT),
        ("nextafter", Sig::B),
        ("fdim", Sig::B),
        ("maxmag", Sig::B),
        ("minmag", Sig::B),
        ("fmax", Sig::B),
        ("fmin", Sig::B),
        ("remainder", Sig::B),
        ("remquo", Sig::RQ),
        ("fma", Sig::T),
        ("mad", Sig::T),
        ("nan", Sig::N),
        ("sincos", Sig::PT),
        ("sin", Sig::U),
        ("cos", Sig::U),
        ("lgamma_r", Sig::PI),
        ("lgamma", Sig::U),
    ];
    let mut rng = Rng::new(5);
    for float in [true, false] {
        let (t, size) = if float { ("float", 4) } else { ("double", 8) };
        let p = Program::new(&source(funcs, t));
        let xs: Vec<f64> = if float {
            f32_inputs(&mut rng, 300)
                .into_iter()
                .map(f64::from)
                .collect()
        } else {
            f64_inputs(&mut rng, 300)
        };
        let ys: Vec<f64> = (0..xs.len())
            .map(|k| match k % 3 {
                0 => xs[(rng.next() % xs.len() as u64) as usize],
                1 => xs[k] * rng.range(-4.0, 4.0),
                _ => rng.range(-1e3, 1e3),
            })
            .map(|y| if float { f64::from(y as f32) } else { y })
            .collect();
        let zs: Vec<f64> = ys.iter().rev().copied().collect();
        let ns: Vec<i32> = (0..xs.len())
            .map(|k| match k % 3 {
                0 => (rng.next() % 61) as i32 - 30,
                1 => (rng.next() % 4000) as i32 - 2000,
                _ => rng.next() as i32,
            })
            .collect();
        let enc = |v: &[f64]| -> Vec<u64> {
            if float {
                v.iter().map(|x| u64::from((*x as f32).to_bits())).collect()
            } else {
                bits64(v)
            }
        };
        let inp = Inputs {
            a: enc(&xs),
            b: enc(&ys),
            c: enc(&zs),
            ib: ns.clone(),
        };
        let dec = |w: u64| -> f64 {
            if float {
                f64::from(f32::from_bits(w as u32))
            } else {
                f64::from_bits(w)
            }
        };
        let round = |v: f64| -> f64 {
            if float {
                f64::from(v as f32)
            } else {
                v
            }
        };
        let results: HashMap<&str, Outputs> = funcs
            .iter()
            .map(|(name, _)| (*name, p.run(name, size, &inp)))
            .collect();
        let same = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
        let maxf = if float {
            f64::from(f32::from_bits(0x3f7f_ffff))
        } else {
            f64::from_bits(0x3fef_ffff_ffff_ffff)
        };
        for k in 0..xs.len() {
            let (x, y, z, n) = (xs[k], ys[k], zs[k], ns[k]);
            let out = |name: &str| dec(results[name].out[k]);
            let out2 = |name: &str| dec(results[name].out2[k]);
            let iout = |name: &str| results[name].iout[k];
            let ctx = format!("{t} x={x:e} y={y:e} z={z:e} n={n}");
            let (m, e) = frexp_ref(x);
            assert!(
                same(out("frexp"), m) && (iout("frexp") == e || !x.is_finite() || x == 0.0),
                "frexp {ctx}"
            );
            let want = if float {
                f64::from((x * pow2(n.clamp(-400, 400))) as f32)
            } else {
                ldexp(x, n)
            };
            assert!(
                same(out("ldexp"), want),
                "ldexp {ctx}: {:e} want {want:e}",
                out("ldexp")
            );
            assert_eq!(iout("ilogb"), ilogb_ref(x), "ilogb {ctx}");
            let lb = if x == 0.0 {
                f64::NEG_INFINITY
            } else if !x.is_finite() {
                x * x
            } else {
                f64::from(ilogb_ref(x))
            };
            assert!(same(out("logb"), lb), "logb {ctx}");
            let tr = x.trunc();
            assert!(same(out2("modf"), tr), "modf int {ctx}");
            assert!(
                same(
                    out("modf"),
                    if x.is_infinite() {
                        0f64.copysign(x)
                    } else {
                        (x - tr).copysign(x)
                    }
                ),
                "modf {ctx}"
            );
            let fl = x.floor();
            assert!(same(out2("fract"), fl), "fract int {ctx}");
            let fr = if x == 0.0 || x.is_nan() {
                x
            } else if x.is_infinite() {
                0f64.copysign(x)
            } else {
                round(x - fl).min(maxf)
            };
            assert!(
                same(out("fract"), fr),
                "fract {ctx}: {:e} want {fr:e}",
                out("fract")
            );
            assert!(
                same(out("nextafter"), nextafter_ref(x, y, float)),
                "nextafter {ctx}"
            );
            let fd = if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if x > y {
                round(x - y)
            } else {
                0.0
            };
            assert!(same(out("fdim"), fd), "fdim {ctx}");
            let mm = |big: bool| {
                let (ax, ay) = (x.abs(), y.abs());
                if (ax > ay) == big && ax != ay && !ax.is_nan() && !ay.is_nan() {
                    x
                } else if (ay > ax) == big && ax != ay && !ax.is_nan() && !ay.is_nan() {
                    y
                } else if big {
                    x.max(y)
                } else {
                    x.min(y)
                }
            };
            let zero_pair = x == 0.0 && y == 0.0;
            if !zero_pair {
                assert!(same(out("maxmag"), mm(true)), "maxmag {ctx}");
                assert!(same(out("minmag"), mm(false)), "minmag {ctx}");
                assert!(same(out("fmax"), x.max(y)), "fmax {ctx}");
                assert!(same(out("fmin"), x.min(y)), "fmin {ctx}");
            }
            let (r, q) = remquo(x, y);
            assert!(same(out("remainder"), remainder(x, y)), "remainder {ctx}");
            assert!(same(out("remquo"), r), "remquo {ctx}");
            let gq = iout("remquo");
            if r.is_nan() {
                assert_eq!(gq, 0, "remquo quotient {ctx}");
            } else {
                assert_eq!(
                    gq.signum() * (gq.abs() & 7),
                    q.signum() * (q.abs() & 7),
                    "remquo quotient {ctx}"
                );
                // The integral quotient (x - r) / y, where both steps are exact.
                let d = x - r;
                let v = d - x;
                let sub_exact = (x - (d - v)) + (-r - v) == 0.0;
                let exact = d / y;
                if sub_exact && exact.abs() < 2f64.powi(50) && exact.mul_add(y, -d) == 0.0 {
                    let want = (exact.abs() as i64 & 127) as i32;
                    assert_eq!(gq.abs(), want, "remquo 7 bits {ctx}");
                }
            }
            let fma = if float {
                f64::from((x as f32).mul_add(y as f32, z as f32))
            } else {
                x.mul_add(y, z)
            };
            assert!(same(out("fma"), fma), "fma {ctx}");
            assert!(same(out("mad"), fma), "mad {ctx}");
            let code = ns[k] as u32;
            let nan = out("nan");
            assert!(nan.is_nan(), "nan {ctx}");
            if float {
                assert_eq!(
                    results["nan"].out[k] as u32,
                    0x7fc0_0000 | (code & 0x3f_ffff),
                    "nan code {ctx}"
                );
            }
            assert!(
                same(out("sincos"), out("sin")) && same(out2("sincos"), out("cos")),
                "sincos {ctx}"
            );
            assert!(same(out("lgamma_r"), out("lgamma")), "lgamma_r {ctx}");
            let sign = if x.is_nan() {
                iout("lgamma_r")
            } else if x <= 0.0 && x.trunc() == x && x.is_finite() {
                0
            } else {
                lgamma_r(x).1
            };
            assert_eq!(iout("lgamma_r"), sign, "lgamma_r sign {ctx}");
        }
    }
}

/// Special values OpenCL C 1.2 §7.5 and C99 Annex F fix, one expression each.
#[test]
fn special_values() {
    let inf = f64::INFINITY;
    let nan = f64::NAN;
    let cases: &[(&str, f64)] = &[
        ("pow(NAN, 0)", 1.0),
        ("pow(1, NAN)", 1.0),
        ("pow(-1, INFINITY)", 1.0),
        ("pow(-0.0, -3)", -inf),
        ("pow(-0.0, 3)", -0.0),
        ("pow(-0.0, 0.5)", 0.0),
        ("pow(-INFINITY, -3)", -0.0),
        ("pow(-2, 0.5)", nan),
        ("pown(NAN, 0)", 1.0),
        ("pown(-0.0, -3)", -inf),
        ("pown(-0.0, -2)", inf),
        ("pown(-0.0, 2)", 0.0),
        ("powr(0, 0)", nan),
        ("powr(INFINITY, 0)", nan),
        ("powr(1, INFINITY)", nan),
        ("powr(-1, 2)", nan),
        ("powr(0, -1)", inf),
        ("powr(0, 2)", 0.0),
        ("rootn(-0.0, -3)", -inf),
        ("rootn(-0.0, -2)", inf),
        ("rootn(-0.0, 3)", -0.0),
        ("rootn(-1, 2)", nan),
        ("rootn(5, 0)", nan),
        ("rootn(-8, 3)", -2.0),
        ("atan2pi(0.0, -0.0)", 1.0),
        ("atan2pi(-0.0, -0.0)", -1.0),
        ("atan2pi(-0.0, 0.0)", -0.0),
        ("atan2pi(INFINITY, -INFINITY)", 0.75),
        ("atan2pi(-INFINITY, INFINITY)", -0.25),
        ("atan2pi(-1, 0)", -0.5),
        ("atan2pi(2, -INFINITY)", 1.0),
        ("atanpi(-INFINITY)", -0.5),
        ("atanpi(-0.0)", -0.0),
        ("acospi(1)", 0.0),
        ("asinpi(-0.0)", -0.0),
        ("cospi(0.5)", 0.0),
        ("cospi(-7.5)", 0.0),
        ("cospi(0)", 1.0),
        ("sinpi(-2)", -0.0),
        ("sinpi(3)", 0.0),
        ("sinpi(-0.0)", -0.0),
        ("tanpi(0.5)", inf),
        ("tanpi(1.5)", -inf),
        ("tanpi(-0.5)", -inf),
        ("tanpi(-2)", -0.0),
        ("tanpi(1)", -0.0),
        ("tanpi(-1)", 0.0),
        ("tanpi(-0.0)", -0.0),
        ("exp10(-INFINITY)", 0.0),
        ("exp10(0)", 1.0),
        ("exp2(-INFINITY)", 0.0),
        ("expm1(-0.0)", -0.0),
        ("log1p(-0.0)", -0.0),
        ("log(1)", 0.0),
        ("log(-0.0)", -inf),
        ("lgamma(1)", 0.0),
        ("lgamma(2)", 0.0),
        ("lgamma(-3)", inf),
        ("tgamma(-0.0)", -inf),
        ("tgamma(-3)", nan),
        ("tgamma(-INFINITY)", nan),
        ("fmod(-0.0, NAN)", nan),
        ("fmod(-0.0, 3)", -0.0),
        ("fmod(5, INFINITY)", 5.0),
        ("remainder(-4, 2)", -0.0),
        ("ceil(-0.5)", -0.0),
        ("round(-0.4)", -0.0),
        ("round(-0.5)", -1.0),
        ("rint(-0.5)", -0.0),
        ("rint(2.5)", 2.0),
        ("trunc(-0.7)", -0.0),
        ("floor(-0.0)", -0.0),
        ("nextafter(0.0, -1)", -1.0),
        ("fdim(NAN, 1)", nan),
        ("sinh(-0.0)", -0.0),
        ("tanh(-INFINITY)", -1.0),
        ("atanh(-1)", -inf),
        ("acosh(1)", 0.0),
        ("asinh(-0.0)", -0.0),
        ("cbrt(-0.0)", -0.0),
        ("cbrt(-27)", -3.0),
        ("erf(-INFINITY)", -1.0),
        ("erfc(-INFINITY)", 2.0),
        ("hypot(INFINITY, NAN)", inf),
        ("hypot(NAN, -INFINITY)", inf),
        ("sin(-0.0)", -0.0),
        ("tan(-0.0)", -0.0),
        ("cos(INFINITY)", nan),
        ("logb(0)", -inf),
        ("ldexp(1, 2000)", inf),
        ("exp(1000)", inf),
        ("exp(-1000)", 0.0),
    ];
    for t in ["float", "double"] {
        let mut src = String::new();
        if t == "double" {
            src.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
        }
        // Every literal argument is cast to the type under test.
        let cast = |e: &str| -> String {
            let (name, args) = e.split_once('(').unwrap();
            let args = args.trim_end_matches(')');
            let args: Vec<String> = args
                .split(", ")
                .enumerate()
                .map(|(i, a)| {
                    if (name == "pown" || name == "rootn" || name == "ldexp") && i == 1 {
                        a.to_string()
                    } else {
                        format!("({t})({a})")
                    }
                })
                .collect();
            format!("{name}({})", args.join(", "))
        };
        src.push_str(&format!(
            "__kernel void k_specials(__global {t} *out, __global float *unused)\n{{\n"
        ));
        for (k, (e, _)) in cases.iter().enumerate() {
            src.push_str(&format!("    out[{k}] = {};\n", cast(e)));
        }
        src.push_str("}\n");
        let p = Program::new(&src);
        let size = if t == "float" { 4 } else { 8 };
        let cfg = p.asm.config(
            Some("k_specials"),
            LaunchConfig {
                grid: [1, 1, 1],
                block: [1, 1, 1],
                ..LaunchConfig::default()
            },
        );
        let args = vec![
            Arg {
                name: "out".into(),
                value: ArgValue::Buffer(vec![0; cases.len() * size]),
            },
            Arg {
                name: "unused".into(),
                value: ArgValue::Buffer(vec![0; 4]),
            },
        ];
        let r = launch(&p.prog, &cfg, args).unwrap();
        assert!(r.ok());
        let out = &r.buffers.iter().find(|b| b.name == "out").unwrap().bytes;
        for (k, (e, want)) in cases.iter().enumerate() {
            let got = if size == 4 {
                f64::from(f32::from_le_bytes(
                    out[4 * k..4 * k + 4].try_into().unwrap(),
                ))
            } else {
                f64::from_le_bytes(out[8 * k..8 * k + 8].try_into().unwrap())
            };
            let want = if e.starts_with("nextafter") {
                -f64::from(f32::from_bits(1)).max(if size == 8 { f64::from_bits(1) } else { 0.0 })
            } else {
                *want
            };
            let want = if e.starts_with("nextafter") && size == 8 {
                -f64::from_bits(1)
            } else {
                want
            };
            let ok = (want.is_nan() && got.is_nan()) || got.to_bits() == want.to_bits();
            assert!(ok, "{t} {e} = {got:e}, want {want:e}");
        }
    }
}

/// Pointer outputs to `__global` and `__local` memory, not only `__private`.
#[test]
fn pointer_outputs_in_every_space() {
    let src = r#"
__kernel void k_ptr(__global float *out, __global int *e, __global float *ip)
{
    __local float l[2];
    __local int q[1];
    int i = get_global_id(0);
    float x = 3.25f + i;
    out[4 * i] = frexp(x, &e[2 * i]);
    out[4 * i + 1] = modf(x, &ip[i]);
    out[4 * i + 2] = sincos(x, &l[0]);
    out[4 * i + 3] = remquo(x, 1.5f, &q[0]);
    e[2 * i + 1] = q[0] + (l[0] == cos(x) ? 100 : 0);
}
"#;
    let p = Program::new(src);
    let cfg = p.asm.config(
        Some("k_ptr"),
        LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 64,
            ..LaunchConfig::default()
        },
    );
    let args = vec![
        Arg {
            name: "out".into(),
            value: ArgValue::Buffer(vec![0; 16]),
        },
        Arg {
            name: "e".into(),
            value: ArgValue::Buffer(vec![0; 8]),
        },
        Arg {
            name: "ip".into(),
            value: ArgValue::Buffer(vec![0; 4]),
        },
    ];
    let r = launch(&p.prog, &cfg, args).unwrap();
    assert!(r.ok());
    let buf = |n: &str| {
        r.buffers
            .iter()
            .find(|b| b.name == n)
            .unwrap()
            .bytes
            .to_vec()
    };
    let f = |b: &[u8], k: usize| f32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
    let i = |b: &[u8], k: usize| i32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
    let (out, e, ip) = (buf("out"), buf("e"), buf("ip"));
    assert_eq!(f(&out, 0), 0.8125);
    assert_eq!(i(&e, 0), 2);
    assert_eq!((f(&out, 1), f(&ip, 0)), (0.25, 3.0));
    assert_eq!(f(&out, 2), 3.25f32.sin());
    // remquo(3.25, 1.5) = 0.25 with quotient 2; the cosine reached __local memory.
    assert_eq!(f(&out, 3), 0.25);
    assert_eq!(i(&e, 1), 102);
}

/// half_* within 8192 ulp on their domains; native_* run and stay within a loose bound on
/// small arguments (their accuracy is implementation-defined).
#[test]
fn half_and_native() {
    let names = [
        "cos", "divide", "exp", "exp2", "exp10", "log", "log2", "log10", "powr", "recip", "rsqrt",
        "sin", "sqrt", "tan",
    ];
    let mut funcs = Vec::new();
    for n in names {
        let sig = if n == "divide" || n == "powr" {
            Sig::B
        } else {
            Sig::U
        };
        funcs.push((format!("half_{n}"), sig));
        funcs.push((format!("native_{n}"), sig));
    }
    let funcs_ref: Vec<(&str, Sig)> = funcs.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let p = Program::new(&source(&funcs_ref, "float"));
    let mut rng = Rng::new(3);
    let mut report = String::new();
    for (name, _) in &funcs {
        let op = name.split_once('_').unwrap().1;
        let half = name.starts_with("half_");
        let n = if sweep() { 50_000 } else { 400 };
        let (lo, hi): (f64, f64) = match op {
            "sin" | "cos" | "tan" if half => (-65536.0, 65536.0),
            "sin" | "cos" | "tan" => (-3.1, 3.1),
            "exp" => (-80.0, 80.0),
            "exp2" => (-120.0, 120.0),
            "exp10" => (-35.0, 35.0),
            "powr" => (0.0, 30.0),
            _ => (-60.0, 60.0),
        };
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for _ in 0..n {
            let x = match op {
                "log" | "log2" | "log10" | "sqrt" | "rsqrt" | "recip" | "divide" => {
                    let m = 2f64.powf(rng.range(lo, hi));
                    if op == "recip" || op == "divide" {
                        if rng.next() & 1 == 0 {
                            m
                        } else {
                            -m
                        }
                    } else {
                        m
                    }
                }
                _ => rng.range(lo, hi),
            };
            xs.push(x as f32);
            ys.push(match op {
                "divide" => (2f64.powf(rng.range(-60.0, 60.0))) as f32,
                _ => rng.range(-8.0, 8.0) as f32,
            });
        }
        let inp = Inputs {
            a: bits32(&xs),
            b: bits32(&ys),
            c: Vec::new(),
            ib: Vec::new(),
        };
        let o = p.run(name, 4, &inp);
        let mut worst: (f64, f32) = (0.0, 0.0);
        for k in 0..xs.len() {
            let got = f32::from_bits(o.out[k] as u32);
            let want = reference(name, f64::from(xs[k]), f64::from(ys[k]), 0);
            let err = ulps32(got, want);
            if err > worst.0 {
                worst = (err, xs[k]);
            }
        }
        report.push_str(&format!(
            "{name:14} {:10.3} ulp at {:e}\n",
            worst.0, worst.1
        ));
        let bound = if half { 8192.0 } else { 2.0f64.powi(20) };
        assert!(
            worst.0 <= bound,
            "{name}: {} ulp at {:e}\n{report}",
            worst.0,
            worst.1
        );
    }
    eprint!("{report}");
}

/// The prelude keeps only the library functions a program can reach.
#[test]
fn unreachable_library_functions_are_dropped() {
    use warpkit_cc::{diag::Diagnostics, pp, source::SourceMap, token::TokenKind};
    let defined = |src: &str| -> Vec<String> {
        let mut sources = SourceMap::new();
        let main = sources.add_file("k.cl", src, false);
        let mut diags = Diagnostics::new();
        let tokens = pp::preprocess(&mut sources, main, &pp::Options::default(), &mut diags);
        let tokens = pp::prune_prelude(tokens, &sources);
        // Names followed by `(` right after a type at the top level are enough here.
        tokens
            .windows(3)
            .filter(|w| w[0].text == "float" || w[0].text == "double" || w[0].text == "int")
            .filter(|w| {
                w[1].kind == TokenKind::Ident && w[1].text.starts_with("__") && w[2].text == "("
            })
            .map(|w| w[1].text.clone())
            .collect()
    };
    let none = defined("__kernel void k(__global float *p) { p[0] = 1.0f; }");
    assert!(none.is_empty(), "{none:?}");
    let sin = defined("__kernel void k(__global float *p) { p[0] = half_sin(p[1]); }");
    for f in [
        "__cl_sin_f32",
        "__cl_sin_f64",
        "__wk_rem_pio2_f64",
        "__wk_p_sin",
        "__cl_rint_f64",
    ] {
        assert!(sin.iter().any(|n| n == f), "{f} missing from {sin:?}");
    }
    assert!(!sin.iter().any(|n| n == "__cl_tgamma_f64"), "{sin:?}");
    let conv = defined("__kernel void k(__global int *p, float f) { p[0] = convert_int_rtp(f); }");
    assert!(conv.iter().any(|n| n == "__cl_ceil_f32"), "{conv:?}");
}

/// `-D` options are read after the prelude: macros named like the library's variables do
/// not change its code.
#[test]
fn command_line_macros_do_not_reach_the_library() {
    let mut opts = warpkit_cc::Options::default();
    for name in [
        "x", "y", "n", "e", "k", "q", "r", "s", "t", "h", "l", "lo", "hi", "a", "z", "m",
    ] {
        opts.defines
            .push((name.to_string(), Some("(+)".to_string())));
    }
    let src = "__kernel void kk(__global float *p, __global double *d, __global int *i) {
        p[0] = sin(p[1]) + pow(p[2], p[3]) + tgamma(p[4]) + erfc(p[5]) + frexp(p[6], &i[0]);
        d[0] = sin(d[1]) + pow(d[2], d[3]) + tgamma(d[4]) + erfc(d[5]) + atan2pi(d[6], d[7]);
    }";
    warpkit_cc::compile_source("k.cl", src, &opts).unwrap_or_else(|f| panic!("{}", f.render()));
}

/// A pointer output to `__constant` memory is an error, not a store to read-only memory.
#[test]
fn pointer_output_to_constant_is_rejected() {
    let src = "__kernel void k(__global float *p, __constant int *c) { p[0] = frexp(p[1], c); }";
    let err = warpkit_cc::compile_source("k.cl", src, &warpkit_cc::Options::default()).unwrap_err();
    assert!(
        err.render().contains("changes address space of pointer"),
        "{}",
        err.render()
    );
}
