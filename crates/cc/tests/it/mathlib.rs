//! The OpenCL C math library of the prelude, run on the functional model: every function of
//! OpenCL C 1.2 §6.12.2 in float and double over edge cases and thousands of random and
//! structured inputs, checked against references on the host. Exact functions must match
//! bit for bit; the others are measured in ulps against the bound of OpenCL C 1.2 §7.4
//! (Tables 7.1 and 7.2). Float references are the host's binary64 functions; double
//! references are `mathlib_f64.txt`, values computed at 256 bits by
//! `tools/mathlib_vectors.py`. `WARPKIT_CC_MATH_SWEEP=1` runs far more float inputs and
//! prints the worst error of every function.

// The signatures and outputs not yet used by a test are kept for the functions to come.
#![allow(dead_code)]

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
    text: String,
    prog: warpkit_sim::Program,
    entries: HashMap<String, (u32, u32)>,
}

impl Program {
    pub fn new(src: &str) -> Program {
        let compiled = warpkit_cc::compile_source("math.cl", src, &warpkit_cc::Options::default())
            .unwrap_or_else(|f| panic!("{}", f.render()));
        let text = compiled.assembly;
        let mut scratch = HashMap::new();
        for l in text.lines() {
            if let Some(rest) = l.trim_start().strip_prefix(".kernel ") {
                let name = rest.split(',').next().unwrap().trim().to_string();
                let s: u32 = rest.split("scratch=").nth(1).map_or(0, |r| {
                    r.split(|c: char| !c.is_ascii_digit())
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap()
                });
                scratch.insert(name, s);
            }
        }
        let stripped: String = text
            .lines()
            .filter(|l| {
                !l.trim_start().starts_with(".kernel") && !l.trim_start().starts_with(".param")
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let program = warpkit_asm::assemble(&stripped, "math.s")
            .unwrap_or_else(|e| panic!("{}", e.render(&stripped)));
        let entries = scratch
            .into_iter()
            .map(|(name, s)| {
                let at = program.symbol(&name).expect("kernel symbol").offset as u32;
                (name, (at, s))
            })
            .collect();
        let prog = warpkit_sim::Program::with_data(program.text, program.data);
        Program {
            text,
            prog,
            entries,
        }
    }

    /// Run kernel `k_NAME` of element size `size` (4 or 8) over `inp`.
    pub fn run(&self, name: &str, size: usize, inp: &Inputs) -> Outputs {
        let n = inp.a.len().max(inp.ib.len());
        let (entry, scratch) = *self
            .entries
            .get(&format!("k_{name}"))
            .unwrap_or_else(|| panic!("no kernel k_{name}"));
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
        let cfg = LaunchConfig {
            grid: [(n as u32).div_ceil(block).max(1), 1, 1],
            block: [block, 1, 1],
            scratch_bytes: scratch,
            entry,
            max_steps: 200_000_000,
            ..LaunchConfig::default()
        };
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

    /// The assembly (for failure messages).
    pub fn text(&self) -> &str {
        &self.text
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
