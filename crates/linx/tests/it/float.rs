//! Floating point in SIMT blocks: every float micro-instruction against warpkit-float (the
//! soft-float core the GPU model uses) in every format and rounding mode, the compare, NaN,
//! conversion and flag rules of docs/linx.md, and the iteration-order float reduces.

use warpkit_float::{self as wf, Bits, Flags, Format, Round, BF16, F16, F32, F64};
use warpkit_linx::{check, run, Mode, RunConfig, RunResult};

fn exec_with(src: &str, mode: Option<Mode>) -> RunResult {
    let p = check("f.s", src).unwrap_or_else(|d| panic!("{}", d.render(src)));
    let r = run(
        &p,
        RunConfig {
            mode,
            ..RunConfig::default()
        },
    );
    assert!(r.error.is_none(), "{:?}\n{src}", r.error);
    r
}

fn exec(src: &str) -> RunResult {
    exec_with(src, None)
}

fn static_codes(src: &str) -> Vec<&'static str> {
    match check("f.s", src) {
        Ok(p) => p.warnings.codes(),
        Err(d) => d.codes(),
    }
}

fn load(r: &RunResult, addr: u64, bytes: u32) -> u64 {
    (0..bytes as u64).fold(0, |v, i| {
        let a = addr + i;
        let b = r
            .memory
            .iter()
            .find(|(s, b)| a >= *s && a < s + b.len() as u64)
            .map_or(0, |(s, b)| b[(a - s) as usize]);
        v | (b as u64) << (8 * i)
    })
}

/// A block of `n` iterations over `body`, inputs A at 0x1000 and B at 0x2000 (a0, a1), outputs
/// from 0x10000 (a2).
fn block(frm: &str, n: usize, mem: &str, body: &str) -> String {
    format!(
        ".lanenum 8\n.frm {frm}\n.gpr a0, 0x1000\n.gpr a1, 0x2000\n.gpr a2, 0x10000\n{mem}BSTART.VECT\nB.DIM zero, {n}, ->LB0\nB.TEXT .body\nBSTOP\n.body:\n{body}    lbstop\n"
    )
}

/// `.mem` lines holding `values` as `bytes`-byte elements from `addr`.
fn mem_lines(addr: u64, bytes: u32, values: &[u64]) -> String {
    let w = ["", "b", "h", "", "w", "", "", "", "d"][bytes as usize];
    let mut o = String::new();
    for (i, chunk) in values.chunks(8).enumerate() {
        let items: Vec<String> = chunk.iter().map(|v| format!("{v:#x}")).collect();
        o += &format!(
            ".mem {:#x}, {w}, {}\n",
            addr + (i * 8) as u64 * bytes as u64,
            items.join(", ")
        );
    }
    o
}

/// Interesting bit patterns of format `F`: zeros, ones, infinities, NaNs (quiet, signaling,
/// with payload), the extremes, subnormals, values whose sums and products round, and a
/// few pseudo-random patterns.
fn patterns<F: Format>() -> Vec<u64> {
    let bits = 1 + F::EXP_BITS + F::FRAC_BITS;
    let exp_mask = ((1u64 << F::EXP_BITS) - 1) << F::FRAC_BITS;
    let sign = 1u64 << (bits - 1);
    let one = ((1u64 << (F::EXP_BITS - 1)) - 1) << F::FRAC_BITS;
    let quiet = 1u64 << (F::FRAC_BITS - 1);
    let mut v = vec![
        0,
        sign,
        one,
        one | sign,
        one + 1,
        one + (1 << F::FRAC_BITS) + 3, // 2 + a few ulps
        exp_mask,                      // +inf
        exp_mask | sign,               // -inf
        exp_mask | quiet,              // qNaN
        exp_mask | 1,                  // sNaN
        exp_mask | quiet | 5 | sign,   // qNaN with a payload
        exp_mask - 1,                  // largest finite
        1,                             // smallest subnormal
        (1 << F::FRAC_BITS) - 1,       // largest subnormal
        one - (3 << F::FRAC_BITS) + 7, // 1/8 and a bit
        sign | (one + (2 << F::FRAC_BITS) + 1),
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ bits as u64;
    for _ in 0..16 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Keep exponents near one's so operations are mostly finite and inexact.
        let e = one + (((x >> 40) % 9) << F::FRAC_BITS) - (4 << F::FRAC_BITS);
        v.push((e & exp_mask) | (x & ((1 << F::FRAC_BITS) - 1)) | ((x >> 63) * sign));
    }
    v
}

const FLOAT_OPS: [&str; 7] = ["fadd", "fsub", "fmul", "fdiv", "fmin", "fmax", "fsqrt"];

fn expected_alu<F: Format>(op: &str, a: u64, b: u64, rm: Round) -> (u64, Flags) {
    let (a, b) = (F::Bits::from_u64(a), F::Bits::from_u64(b));
    let (r, f) = match op {
        "fadd" => wf::add::<F>(a, b, rm),
        "fsub" => wf::sub::<F>(a, b, rm),
        "fmul" => wf::mul::<F>(a, b, rm),
        "fdiv" => wf::div::<F>(a, b, rm),
        "fmin" => wf::min::<F>(a, b),
        "fmax" => wf::max::<F>(a, b),
        "fsqrt" => wf::sqrt::<F>(a, rm),
        _ => unreachable!(),
    };
    (r.to_u64(), f)
}

/// Every operand pair (a[i], b[j]) for i, j over the patterns, as two lane vectors.
fn pairs(p: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in p {
        for &y in p.iter().step_by(3) {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

fn cstate(f: Flags) -> u8 {
    warpkit_linx::cstate_fflags(f)
}

/// Output registers of the tests: s1..s8 (R12..R19).
const OUT_REGS: [&str; 8] = ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"];

fn check_alu_format<F: Format>(suffix: &str) {
    let bytes = (1 + F::EXP_BITS + F::FRAC_BITS) / 8;
    let (w, l, s) = match bytes {
        2 => ("h", "lh", "sh"),
        4 => ("w", "lw", "sw"),
        _ => ("d", "ld", "sd"),
    };
    let shift = bytes.trailing_zeros();
    let (a, b) = pairs(&patterns::<F>());
    let n = a.len();
    let mut body = format!(
        "    {l} [a0.ud, lc0.ud<<{shift}], ->t.{w}\n    {l} [a1.ud, lc0.ud<<{shift}], ->t.{w}\n"
    );
    // Each result is pushed, so after k operations a is t#(2+k) and b t#(1+k).
    for (k, op) in FLOAT_OPS.iter().enumerate() {
        let ops = if *op == "fsqrt" {
            format!("t#{}.{suffix}", 2 + k)
        } else {
            format!("t#{}.{suffix}, t#{}.{suffix}", 2 + k, 1 + k)
        };
        body += &format!("    {op} {ops}, ->t.{w}\n");
    }
    // Operation k's result is t#(7-k) now.
    for (k, reg) in OUT_REGS.iter().take(FLOAT_OPS.len()).enumerate() {
        body += &format!(
            "    {s} t#{}.{w}, [{reg}.ud, lc0.ud<<{shift}]\n",
            FLOAT_OPS.len() - k
        );
    }
    let mut mem = mem_lines(0x1000, bytes, &a) + &mem_lines(0x2000, bytes, &b);
    for (k, r) in OUT_REGS.iter().enumerate() {
        mem += &format!(".gpr {r}, {:#x}\n", 0x10000 + 0x1000 * k);
    }
    for rm in [Round::Rne, Round::Rtz, Round::Rdn, Round::Rup] {
        let r = exec(&block(rm.name(), n, &mem, &body));
        let mut flags = Flags::NONE;
        for (k, op) in FLOAT_OPS.iter().enumerate() {
            for i in 0..n {
                let at = 0x10000 + 0x1000 * k as u64 + (i as u64) * bytes as u64;
                let got = load(&r, at, bytes);
                let (want, f) = expected_alu::<F>(op, a[i], b[i], rm);
                flags |= f;
                assert_eq!(
                    got,
                    want,
                    "{op}.{suffix} {:#x}, {:#x} in {} gave {got:#x}",
                    a[i],
                    b[i],
                    rm.name()
                );
            }
        }
        assert_eq!(r.fflags, cstate(flags), "{suffix} {}", rm.name());
    }
}

#[test]
fn arithmetic_is_warpkit_float_in_every_format_and_rounding_mode() {
    check_alu_format::<F64>("fd");
    check_alu_format::<F32>("fs");
    check_alu_format::<F16>("fh");
    check_alu_format::<BF16>("bf");
}

#[test]
fn compares_give_zero_on_nan_and_raise_nv_by_kind() {
    let p = patterns::<F32>();
    let (a, b) = pairs(&p);
    let n = a.len();
    let cmps = ["feq", "fne", "flt", "fge", "feqs", "fnes", "flts", "fges"];
    let mut body =
        String::from("    lw [a0.ud, lc0.ud<<2], ->t.w\n    lw [a1.ud, lc0.ud<<2], ->t.w\n");
    for (k, c) in cmps.iter().enumerate() {
        // a and b were pushed before: after k compares, a is t#(2+k), b t#(1+k).
        body += &format!("    {c} t#{}.fs, t#{}.fs, ->u.b\n", 2, 1);
        body += &format!("    sb u#1.b, [{}.ud, lc0.ud]\n", OUT_REGS[k]);
    }
    let mut mem = mem_lines(0x1000, 4, &a) + &mem_lines(0x2000, 4, &b);
    for (k, r) in OUT_REGS.iter().enumerate() {
        mem += &format!(".gpr {r}, {:#x}\n", 0x10000 + 0x1000 * k);
    }
    let r = exec(&block("rne", n, &mem, &body));
    let mut flags = Flags::NONE;
    for i in 0..n {
        let (x, y) = (a[i] as u32, b[i] as u32);
        let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
        let any_nan = fx.is_nan() || fy.is_nan();
        let snan = wf::is_signaling::<F32>(x) || wf::is_signaling::<F32>(y);
        let want = [fx == fy, !any_nan && fx != fy, fx < fy, fx >= fy];
        for (k, c) in cmps.iter().enumerate() {
            let got = load(&r, 0x10000 + 0x1000 * k as u64 + i as u64, 1);
            assert_eq!(got, want[k % 4] as u64, "{c} {fx} {fy}");
            if k >= 4 && any_nan || snan {
                flags |= Flags::NV;
            }
        }
    }
    assert_eq!(r.fflags, cstate(flags));
    // Quiet compares with a quiet NaN raise nothing; the signaling ones raise NV.
    let q = |c: &str| {
        exec(&block(
            "rne",
            1,
            ".mem 0x1000, w, 0x7fc00000\n",
            &format!("    lw [a0.ud], ->t.w\n    {c} t#1.fs, t#1.fs, ->t.w\n"),
        ))
        .fflags
    };
    for c in ["feq", "fne", "flt", "fge"] {
        assert_eq!(q(c), 0, "{c}");
    }
    for c in ["feqs", "fnes", "flts", "fges"] {
        assert_eq!(q(c), 1, "{c}: NV is CSTATE.FFLAGS bit 0");
    }
}

#[test]
fn fflags_use_the_cstate_layout() {
    // 1/0: DZ (bit 1); 0/0: NV (bit 0); max*2: OF|NX (bits 2, 4); min_sub/2: UF|NX (3, 4).
    let one = |body: &str, mem: &str| exec(&block("rne", 1, mem, body)).fflags;
    let div = "    lw [a0.ud], ->t.w\n    lw [a1.ud], ->t.w\n    fdiv t#2.fs, t#1.fs, ->t.w\n";
    assert_eq!(
        one(div, ".mem 0x1000, fs, 1.0\n.mem 0x2000, fs, 0.0\n"),
        0b00010
    );
    assert_eq!(
        one(div, ".mem 0x1000, fs, 0.0\n.mem 0x2000, fs, 0.0\n"),
        0b00001
    );
    let mul = "    lw [a0.ud], ->t.w\n    lw [a1.ud], ->t.w\n    fmul t#2.fs, t#1.fs, ->t.w\n";
    assert_eq!(
        one(mul, ".mem 0x1000, w, 0x7f7fffff\n.mem 0x2000, fs, 2.0\n"),
        0b10100
    );
    assert_eq!(
        one(mul, ".mem 0x1000, w, 1\n.mem 0x2000, fs, 0.5\n"),
        0b11000
    );
    assert_eq!(one(mul, ".mem 0x1000, fs, 3.0\n.mem 0x2000, fs, 0.5\n"), 0);
    // Integer instructions never touch the flags.
    assert_eq!(one("    add lc0.ud, lc0.ud, ->t.d\n", ""), 0);
}

#[test]
fn rounding_mode_comes_from_frm_and_defaults_to_rne() {
    // 1 + 2^-24 + 2^-48 in f64 rounds to 1 + 2^-23 upward, to 1 otherwise (f32).
    let body = "    ld [a0.ud], ->t.d\n    fcvt t#1.fd, ->t.fs\n    sw t#1.w, [a2.ud]\n";
    let mem = ".mem 0x1000, d, 0x3ff0000010000010\n";
    let with = |frm: Option<&str>| {
        let src = block(frm.unwrap_or("rne"), 1, mem, body);
        let src = if frm.is_none() {
            src.replace(".frm rne\n", "")
        } else {
            src
        };
        mem_of(&exec(&src))
    };
    fn mem_of(r: &RunResult) -> u64 {
        load(r, 0x10000, 4)
    }
    assert_eq!(with(None), 0x3f80_0001, "default rne: above the tie");
    assert_eq!(with(Some("rne")), 0x3f80_0001);
    assert_eq!(with(Some("rup")), 0x3f80_0001);
    assert_eq!(with(Some("rtz")), 0x3f80_0000);
    assert_eq!(with(Some("rdn")), 0x3f80_0000);
    // CSTATE.FRM has four modes: no rmm; a bad or repeated .frm is a directive error.
    for bad in [".frm rmm\n", ".frm up\n", ".frm rne\n.frm rtz\n", ".frm\n"] {
        let src = format!("{bad}BSTART.SIMT\nB.TEXT .b\nBSTOP\n.b:\n    lbstop\n");
        assert!(static_codes(&src).contains(&"E-DIRECTIVE"), "{bad}");
    }
}

#[test]
fn conversions() {
    // fcvt between every pair of formats, against warpkit-float.
    let src_bits = [
        0x3ff0_0000_0000_0001u64,
        0x7ff0_0000_0000_0001,
        0xc7ef_ffff_e000_0000,
    ];
    for (i, v) in src_bits.iter().enumerate() {
        let body = "    ld [a0.ud], ->t.d\n    fcvt t#1.fd, ->t.fs\n    fcvt t#1.fs, ->t.fh\n    fcvt t#2.fs, ->t.bf\n    fcvt t#1.bf, ->t.fd\n    fcvt t#3.fh, ->t.fd\n    sd t#1.d, [a2.ud]\n    sd t#2.d, [a2.ud, 8]\n    sw t#5.w, [a2.ud, 16]\n";
        let r = exec(&block("rne", 1, &format!(".mem 0x1000, d, {v:#x}\n"), body));
        let rne = Round::Rne;
        let fs = wf::convert::<F64, F32>(*v, rne).0;
        let fh = wf::convert::<F32, F16>(fs, rne).0;
        let bf = wf::convert::<F32, BF16>(fs, rne).0;
        assert_eq!(load(&r, 0x10010, 4), fs as u64, "case {i}");
        assert_eq!(load(&r, 0x10000, 8), wf::convert::<F16, F64>(fh, rne).0);
        assert_eq!(load(&r, 0x10008, 8), wf::convert::<BF16, F64>(bf, rne).0);
    }
    // fcvti: toward zero, saturating, NaN -> 0 with NV [P].
    let to_int = |value: &str, out: &str, store: &str, bytes: u32| {
        let body = format!(
            "    ld [a0.ud], ->t.d\n    fcvti t#1.fd, ->t.{out}\n    {store} t#1.{}, [a2.ud]\n",
            &out[1..]
        );
        let r = exec(&block(
            "rne",
            1,
            &format!(".mem 0x1000, fd, {value}\n"),
            &body,
        ));
        (load(&r, 0x10000, bytes), r.fflags)
    };
    assert_eq!(to_int("-2.75", "sw", "sw", 4), (-2i32 as u32 as u64, 16));
    assert_eq!(to_int("2.75", "uw", "sw", 4), (2, 16));
    assert_eq!(to_int("-0.5", "uw", "sw", 4), (0, 16));
    assert_eq!(to_int("-1.5", "uw", "sw", 4), (0, 1));
    assert_eq!(to_int("300.0", "sb", "sb", 1), (127, 1));
    assert_eq!(to_int("-300.0", "sb", "sb", 1), (0x80, 1));
    assert_eq!(to_int("1e300", "ud", "sd", 8), (u64::MAX, 1));
    assert_eq!(to_int("nan", "sw", "sw", 4), (0, 1), "NaN gives 0 [P]");
    assert_eq!(to_int("inf", "sh", "sh", 2), (0x7fff, 1));
    // The float source is never rounded by .frm: rup still truncates.
    let body = "    ld [a0.ud], ->t.d\n    fcvti t#1.fd, ->t.sw\n    sw t#1.w, [a2.ud]\n";
    let r = exec(&block("rup", 1, ".mem 0x1000, fd, 2.5\n", body));
    assert_eq!(load(&r, 0x10000, 4), 2);
    // icvtf: the source extended by its suffix, rounded by .frm.
    let from_int = |value: u64, inp: &str, frm: &str| {
        let (l, w) = match &inp[1..] {
            "b" => ("lb", "b"),
            "w" => ("lw", "w"),
            _ => ("ld", "d"),
        };
        let body = format!(
            "    {l} [a0.ud], ->t.{w}\n    icvtf t#1.{inp}, ->t.fs\n    sw t#1.w, [a2.ud]\n"
        );
        let r = exec(&block(
            frm,
            1,
            &format!(".mem 0x1000, {w}, {value:#x}\n"),
            &body,
        ));
        (load(&r, 0x10000, 4) as u32, r.fflags)
    };
    let f = |x: f32| x.to_bits();
    assert_eq!(from_int(0xffff_ffff, "sw", "rne"), (f(-1.0), 0));
    assert_eq!(from_int(0xffff_ffff, "uw", "rne"), (f(4294967296.0), 16));
    assert_eq!(from_int(0xffff_ffff, "uw", "rtz"), (f(4294967040.0), 16));
    assert_eq!(from_int(0x80, "sb", "rne"), (f(-128.0), 0));
    assert_eq!(from_int(0x80, "ub", "rne"), (f(128.0), 0));
    assert_eq!(
        from_int(u64::MAX, "ud", "rne"),
        (wf::from_u64::<F32>(u64::MAX, Round::Rne).0, 16)
    );
    assert_eq!(
        from_int(0x0100_0001, "sd", "rdn"),
        (wf::from_i64::<F32>(0x0100_0001, Round::Rdn).0, 16)
    );
    assert_eq!(from_int(0x0100_0001, "sd", "rdn").0, f(16777216.0));
}

/// Iteration n contributes elements 2n and 2n+1 (a two-trip loop): in VECT and SIMT the
/// execution order interleaves the lanes, but the fold is in iteration order in every mode.
#[test]
fn float_reduces_fold_in_iteration_order_in_every_mode() {
    let vals: Vec<u32> = (0..12)
        .map(|i| match i % 4 {
            0 => 1.0e8f32,
            1 => 3.0,
            2 => -1.0e8,
            _ => 0.3 + i as f32,
        })
        .map(f32::to_bits)
        .collect();
    let bits: Vec<u64> = vals.iter().map(|&v| v as u64).collect();
    let body = "    addi zero.ud, 0, ->m.d
loop:
    add lc0.ud, lc0.ud, ->t.d
    add t#1.ud, m#1.ud, ->t.d
    lw [a0.ud, t#1.ud<<2], ->t.w
    rdfadd t#1.fs, ->x1.d
    rdfmax t#1.fs, ->x2.d
    rdfmin t#1.fs, ->x3.d
    addi m#1.ud, 1, ->m.d
    b.ltu m#1.ud, s1.ud, loop, out
out:
    pc.pop
";
    let src = block("rne", 6, &mem_lines(0x1000, 4, &bits), body)
        .replace(".lanenum 8", ".lanenum 4\n.gpr s1, 2");
    let fold = |order: &[u32]| {
        let add = order[1..]
            .iter()
            .fold(order[0], |a, &v| wf::add::<F32>(a, v, Round::Rne).0);
        let max = order[1..]
            .iter()
            .fold(order[0], |a, &v| wf::max::<F32>(a, v).0);
        let min = order[1..]
            .iter()
            .fold(order[0], |a, &v| wf::min::<F32>(a, v).0);
        (add, max, min)
    };
    let (add, max, min) = fold(&vals);
    for mode in [Mode::Loop, Mode::Vect, Mode::Simt] {
        let r = exec_with(&src, Some(mode));
        assert_eq!(
            r.gpr[21], add as u64,
            "{mode:?}: the f32 bits, zero-extended [P]"
        );
        assert_eq!(r.gpr[22], max as u64, "{mode:?}");
        assert_eq!(r.gpr[23], min as u64, "{mode:?}");
    }
    // VECT's execution order (group 0: iterations 0-3 trip 0, then trip 1; group 1:
    // iterations 4-5) folds to something else, so the test sees the order.
    let mut exec_order = Vec::new();
    for group in [0..4, 4..6] {
        for k in 0..2 {
            for n in group.clone() {
                exec_order.push(vals[2 * n + k]);
            }
        }
    }
    assert_ne!(
        fold(&exec_order).0,
        add,
        "the data must make the order visible"
    );
}

#[test]
fn float_reduce_without_contributions_leaves_the_register() {
    let src = block(
        "rne",
        4,
        "",
        "    b.eq lc0.ud, lc0.ud, skip, skip\n    rdfadd lc0.fd, ->x1.d\nskip:\n    pc.pop\n",
    )
    .replace(".gpr a0, 0x1000", ".gpr a0, 0x1000\n.gpr x1, 77");
    assert_eq!(exec(&src).gpr[21], 77);
}

#[test]
fn mem_directive_takes_decimal_floats() {
    let src = block(
        "rne",
        1,
        ".mem 0x1000, fs, 0.1, -2.5e3, inf\n.mem 0x2000, fd, 0.1, -0.0\n",
        "",
    );
    let p = check("f.s", &src).unwrap();
    let r = run(&p, RunConfig::default());
    assert_eq!(load(&r, 0x1000, 4), 0.1f32.to_bits() as u64);
    assert_eq!(load(&r, 0x1004, 4), (-2.5e3f32).to_bits() as u64);
    assert_eq!(load(&r, 0x1008, 4), f32::INFINITY.to_bits() as u64);
    assert_eq!(load(&r, 0x2000, 8), 0.1f64.to_bits());
    assert_eq!(load(&r, 0x2008, 8), (-0.0f64).to_bits());
    let bad = block("rne", 1, ".mem 0x1000, fs, 1.5x\n", "");
    assert!(static_codes(&bad).contains(&"E-DIRECTIVE"));
}

#[test]
fn float_static_rules() {
    let body = |b: &str| block("rne", 1, "", &format!("{b}\n"));
    let has = |b: &str, code: &str| {
        let codes = static_codes(&body(b));
        assert!(codes.contains(&code), "{b}: expected {code}, got {codes:?}");
    };
    has("    fadd lc0.fs, lc0.fs, ->t.d", "E-FWIDTH");
    has("    fsqrt lc0.fd, ->t.w", "E-FWIDTH");
    has("    fadd lc0.fs, lc0.fd, ->t.w", "E-WMIX");
    has("    fadd lc0.fh, lc0.bf, ->t.h", "E-WMIX");
    has("    fadd lc0.sw, lc0.sw, ->t.w", "E-CLASS");
    has("    feq lc0.uw, lc0.fs, ->t.w", "E-CLASS");
    has("    fadd lc0.fb, lc0.fb, ->t.b", "E-UNSUP");
    has("    fcvt lc0.fs, ->t.flb", "E-UNSUP");
    has("    fcvt lc0.fs, ->t.sw", "E-CLASS");
    has("    fcvti lc0.sw, ->t.sw", "E-CLASS");
    has("    icvtf lc0.fs, ->t.fs", "E-CLASS");
    has("    icvtf lc0.sw, ->t.uw", "E-CLASS");
    has("    rdfadd lc0.ud, ->x1.d", "E-CLASS");
    has("    rdfadd lc0.fs, ->t.d", "E-RDDST");
    has(
        "    rdfadd lc0.fs, ->x1.d\n    rdadd lc0.ud, ->x1.d",
        "E-GTWICE",
    );
    // A compare may write any width.
    assert!(check("f.s", &body("    flt lc0.fd, lc0.fd, ->t.b")).is_ok());
}

#[test]
fn float_reduce_contributions_are_limited() {
    let src = block("rne", 16, "", "    rdfadd lc0.fd, ->x1.d\n");
    let p = check("f.s", &src).unwrap();
    let run_with = |max| {
        run(
            &p,
            RunConfig {
                max_float_contributions: max,
                ..RunConfig::default()
            },
        )
    };
    assert!(run_with(16).error.is_none());
    let r = run_with(15);
    let e = r.error.expect("over the limit");
    assert_eq!((e.code, e.group, e.lane), ("E-LIMIT", Some(1), Some(0)));
    assert_eq!(r.gpr[21], 0, "nothing commits after an error");
    assert_eq!(
        RunConfig::default().max_float_contributions,
        warpkit_linx::MAX_FLOAT_CONTRIBUTIONS
    );
}
