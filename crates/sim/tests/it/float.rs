//! The provisional floating-point group: modifiers, rounding modes, fflags over active
//! lanes, flushing, traps, halves, pairs, compares, conversions and the SFU on `sfu`.

use crate::common::{ended, run_bytes, trap};
use warpkit_isa::{Instr, Op};
use warpkit_sim::csr::num;
use warpkit_sim::sfu;
use warpkit_sim::Warp;

fn asm(src: &str) -> Vec<u8> {
    warpkit_asm::assemble(src, "t.s")
        .unwrap_or_else(|e| panic!("{}", e.render(src)))
        .to_flat_binary()
}

fn run(src: &str) -> Warp {
    run_bytes(asm(src), u32::MAX)
}

fn run_exec(src: &str, exec: u32) -> Warp {
    run_bytes(asm(src), exec)
}

const ONE: u32 = 0x3f80_0000;
const NX: u32 = 1;
const UF: u32 = 2;
const OF: u32 = 4;
const DZ: u32 = 8;
const NV: u32 = 16;

/// `op v3, v1, v2 [mods]` with v1 = a, v2 = b in every lane, `mode` = `mode_value`.
fn bin(op: &str, mods: &str, mode_value: u32, a: u32, b: u32) -> (u32, u32) {
    let w = run(&format!(
        "umov.l u1, {mode_value}\ncsrw mode, u1\nmov.vl v1, {a}\nmov.vl v2, {b}\n{op} v3, v1, v2 {mods}\nwaitcnt sfu=0\nendpgm"
    ));
    ended(&w);
    assert!(w.v[3].iter().all(|&x| x == w.v[3][0]));
    (w.v[3][0], w.csr.fflags())
}

#[test]
fn f32_arithmetic_rounds_in_the_static_or_dynamic_mode() {
    let tiny = 0x3380_0000; // 2^-24: 1 + 2^-24 is a tie between 1 and 1 + 2^-23
    assert_eq!(bin("fadd.f32", "", 0, ONE, tiny), (ONE, NX));
    assert_eq!(bin("fadd.f32", "rm=rup", 0, ONE, tiny), (ONE + 1, NX));
    assert_eq!(
        bin("fadd.f32", "", 3, ONE, tiny),
        (ONE + 1, NX),
        "dyn = mode rup"
    );
    assert_eq!(
        bin("fadd.f32", "rm=rne", 3, ONE, tiny),
        (ONE, NX),
        "static rm wins"
    );
    assert_eq!(bin("fsub.f32", "", 0, ONE, ONE), (0, 0));
    assert_eq!(
        bin("fsub.f32", "", 2, ONE, ONE),
        (0x8000_0000, 0),
        "rdn: x - x = -0"
    );
    assert_eq!(
        bin("fmul.f32", "", 0, 0x7f00_0000, 0x4000_0000),
        (0x7f80_0000, OF | NX)
    );
    assert_eq!(
        bin("fmul.f32", "rm=rtz", 0, 0x7f00_0000, 0x4000_0000),
        (0x7f7f_ffff, OF | NX)
    );
    assert_eq!(bin("fmul.f32", "", 0, 0x7f80_0000, 0), (0x7fc0_0000, NV));
    assert_eq!(bin("fmin.f32", "", 0, 0x7fc0_0000, ONE), (ONE, 0));
    assert_eq!(bin("fmin.f32", "", 0, 0x7f80_0001, ONE), (ONE, NV));
    assert_eq!(bin("fmax.f32", "", 0, 0x8000_0000, 0), (0, 0));
    assert_eq!(bin("fmin.f32", "", 0, 0x8000_0000, 0), (0x8000_0000, 0));
}

#[test]
fn source_and_result_modifiers() {
    let two = 0x4000_0000;
    // -|v1| + v2 = -2 + 1
    assert_eq!(
        bin("fadd.f32", "", 0, 0x8000_0000 | two, ONE),
        (0xbf80_0000, 0)
    );
    let w = run(&format!(
        "mov.vl v1, {two}\nmov.vl v2, {ONE}\nfadd.f32 v3, -|v1|, v2\nfadd.f32 v4, |v1|, -v2 sat\nfsub.f32 v5, v2, v1 sat\nendpgm"
    ));
    ended(&w);
    assert_eq!(w.v[3][0], 0xbf80_0000);
    assert_eq!(w.v[4][0], ONE, "2 - 1 = 1, sat keeps it");
    assert_eq!(w.v[5][0], 0, "1 - 2 = -1, sat gives +0");
    // Modifiers touch only the sign bit: a signaling NaN stays signaling (NV).
    assert_eq!(bin("fadd.f32", "", 0, 0xff80_0001, ONE), (0x7fc0_0000, NV));
    // sat of a NaN is +0 and keeps the flags.
    assert_eq!(bin("fmul.f32", "sat", 0, 0x7f80_0000, 0), (0, NV));
}

#[test]
fn ffma_has_one_rounding() {
    // (1 + 2^-23) * (1 - 2^-23) - 1 = -2^-46 exactly; two roundings would give 0.
    let w = run(
        "mov.vl v1, 0x3f800001\nmov.vl v2, 0x3f7ffffe\nmov.vl v4, 0xbf800000\nffma.f32 v3, v1, v2, v4\nendpgm",
    );
    ended(&w);
    assert_eq!(w.v[3][0], 0xa880_0000);
    assert_eq!(w.csr.fflags(), 0);
}

#[test]
fn fflags_accrue_over_active_lanes_only() {
    let src = "mov.vl v1, 0x3f800000\nmov.vl v2, 0x33800000\nmov.vl v3, 7\nfadd.f32 v3, v1, v2 rm=rup\nendpgm";
    let w = run_exec(src, 0b10);
    ended(&w);
    assert_eq!(w.csr.fflags(), NX);
    assert_eq!(w.v[3][1], ONE + 1);
    assert_eq!(w.v[3][0], 0, "inactive lanes are not written");
    let w = run_exec(src, 0);
    ended(&w);
    assert_eq!(w.csr.fflags(), 0, "no active lane, no flag");
}

#[test]
fn f16_halves_keep_the_other_half() {
    // 1.0 + 2.0 in f16 (0x3c00 + 0x4000 = 0x4200) into v3.h, v3.l kept.
    let w = run(
        "mov.vl v1, 0x40003c00\nmov.vl v3, 0x1234abcd\nfadd.f16 v3.h, v1.l, v1.h\nfmul.f16 v4.l, v1.h, v1.h\nendpgm",
    );
    ended(&w);
    assert_eq!(w.v[3][0], 0x4200_abcd);
    assert_eq!(w.v[4][0] & 0xffff, 0x4400);
    // Conversions with a half side.
    let w = run("mov.vl v1, 0x3fc00000\ncvt.f16.f32 v2.h, v1\ncvt.f32.f16 v3, v2.h\ncvt.bf16.f32 v2.l, v1\ncvt.f32.bf16 v4, v2.l\nendpgm");
    ended(&w);
    assert_eq!(w.v[2][0], 0x3e00_3fc0);
    assert_eq!(w.v[3][0], 0x3fc0_0000);
    assert_eq!(w.v[4][0], 0x3fc0_0000);
}

#[test]
fn f64_on_even_pairs() {
    let w = run(
        "mov.vl v2, 0\nmov.vl v3, 0x3ff00000\nmov.vl v4, 0\nmov.vl v5, 0x40000000\nfadd.f64 v[6:7], v[2:3], v[4:5]\nfcmp.lt.f64 u1, v[2:3], v[4:5]\ncvt.f32.f64 v8, v[6:7]\nendpgm",
    );
    ended(&w);
    assert_eq!((w.v[6][0], w.v[7][0]), (0, 0x4008_0000));
    assert_eq!(w.u[1], u32::MAX);
    assert_eq!(w.v[8][0], 0x4040_0000);
    // An odd pair decodes and traps with IllegalInsn.
    let op = Op::from_mnemonic("fadd.f64").unwrap();
    let def = op.def();
    let raw: Vec<u32> = def
        .operands
        .iter()
        .map(|o| match o.name {
            "rd" => 6,
            "rs1" => 3,
            "rs2" => 4,
            "rm" => 7,
            _ => 0,
        })
        .collect();
    let word = Instr::from_raw(op, &raw).unwrap().encode();
    let w = run_bytes(word.to_le_bytes().to_vec(), u32::MAX);
    assert_eq!(trap(&w).cause, 1);
}

#[test]
fn reserved_rounding_modes_trap_at_execution() {
    let op = Op::from_mnemonic("fadd.f32").unwrap();
    for (rm, cause) in [(5, Some(1)), (6, Some(1)), (7, None), (4, None)] {
        let raw: Vec<u32> = op
            .def()
            .operands
            .iter()
            .map(|o| match o.name {
                "rd" => 3,
                "rs1" => 1,
                "rs2" => 2,
                "rm" => rm,
                _ => 0,
            })
            .collect();
        let ins = Instr::from_raw(op, &raw).unwrap();
        let mut bytes = ins.encode().to_le_bytes().to_vec();
        bytes.extend(asm("endpgm"));
        let w = run_bytes(bytes, u32::MAX);
        match cause {
            Some(c) => {
                let t = trap(&w);
                assert_eq!((t.cause, t.info), (c, ins.encode() as u32));
            }
            None => ended(&w),
        }
    }
}

#[test]
fn flush_to_zero_inputs_and_results() {
    let sub = 0x0000_0001; // smallest f32 subnormal
                           // No flushing: 2^-149 + 0 = 2^-149, exact.
    assert_eq!(bin("fadd.f32", "", 0, sub, 0), (sub, 0));
    // mode[3]: the input is flushed (no flag).
    assert_eq!(bin("fadd.f32", "", 1 << 3, sub, 0), (0, 0));
    // mode[3]: a subnormal result is flushed: UF | NX.
    assert_eq!(
        bin("fmul.f32", "", 1 << 3, 0x0080_0000, 0x3f00_0000),
        (0, UF | NX)
    );
    // mode[4] does not flush f32.
    assert_eq!(bin("fadd.f32", "", 1 << 4, sub, 0), (sub, 0));
    // f16: mode[4] flushes the half.
    let w = run(
        "umov.l u1, 16\ncsrw mode, u1\nmov.vl v1, 0x00000001\nfadd.f16 v2.l, v1.l, v1.h\nendpgm",
    );
    ended(&w);
    assert_eq!(w.v[2][0] & 0xffff, 0);
}

#[test]
fn enabled_flags_trap_and_write_nothing() {
    // mode[5] enables the NX trap.
    let src = "umov.l u1, 32\ncsrw mode, u1\nmov.vl v1, 0x3f800000\nmov.vl v2, 0x33800000\nmov.vl v3, 9\nfadd.f32 v3, v1, v2\nendpgm";
    let w = run(src);
    let t = trap(&w);
    assert_eq!((t.cause, t.info), (6, NX));
    assert_eq!(w.v[3][0], 9, "the destination is not written");
    assert_eq!(w.csr.fflags(), 0, "fflags is not written");
    // An exact operation does not trap.
    let w = run("umov.l u1, 32\ncsrw mode, u1\nmov.vl v1, 0x3f800000\nfadd.f32 v3, v1, v1\nendpgm");
    ended(&w);
    // DZ enabled (mode[8]), SFU division by zero: trap at issue, nothing queued.
    let w = run("umov.l u1, 256\ncsrw mode, u1\nmov.vl v1, 0x3f800000\nmov.vl v2, 0\nfdiv.f32 v3, v1, v2\nendpgm");
    let t = trap(&w);
    assert_eq!((t.cause, t.info), (6, DZ));
    assert!(w.queue.is_empty());
    assert_eq!(num::MODE, 1);
}

#[test]
fn compares_write_masks_of_active_lanes() {
    let w = run_exec(
        "mov.vl v1, 0x3f800000\nmov.vl v2, 0x7fc00000\nfcmp.eq.f32 u1, v1, v1\nfcmp.ne.f32 u2, v1, v2\nfcmp.lt.f32 u3, v1, v2\nfcmp.u.f32 u4, v1, v2\nfcmp.o.f32 u5, v1, v1\nendpgm",
        0x0000_00ff,
    );
    ended(&w);
    assert_eq!(w.u[1], 0xff);
    assert_eq!(w.u[2], 0xff, "ne is true for unordered");
    assert_eq!(w.u[3], 0, "lt with a NaN is false");
    assert_eq!(w.u[4], 0xff);
    assert_eq!(w.u[5], 0xff);
    assert_eq!(w.csr.fflags(), NV, "lt signals on a quiet NaN");
    let w = run(
        "mov.vl v1, 0x3c003c00\nfcmp.ge.f16 u1, v1.l, v1.h\nfcmp.gt.f16 u2, v1.l, v1.h\nendpgm",
    );
    ended(&w);
    assert_eq!((w.u[1], w.u[2]), (u32::MAX, 0));
}

#[test]
fn conversions_saturate_like_risc_v() {
    let cvt = |op: &str, x: u32, mods: &str| {
        let w = run(&format!("mov.vl v1, {x}\n{op} v2, v1 {mods}\nendpgm"));
        ended(&w);
        (w.v[2][0], w.csr.fflags())
    };
    assert_eq!(cvt("cvt.i32.f32", 0x7fc0_0000, ""), (0x7fff_ffff, NV));
    assert_eq!(cvt("cvt.u32.f32", 0xbf80_0000, ""), (0, NV));
    assert_eq!(
        cvt("cvt.i32.f32", 0x3fc0_0000, ""),
        (2, NX),
        "1.5 -> 2 (rne)"
    );
    assert_eq!(cvt("cvt.i32.f32", 0x3fc0_0000, "rm=rtz"), (1, NX));
    assert_eq!(cvt("cvt.i32.f32", 0xcf00_0001, ""), (0x8000_0000, NV));
    assert_eq!(cvt("cvt.f32.i32", 0xffff_ffff, ""), (0xbf80_0000, 0));
    assert_eq!(cvt("cvt.f32.u32", 0xffff_ffff, ""), (0x4f80_0000, NX));
    assert_eq!(cvt("cvt.f32.u32", 0xffff_ffff, "rm=rtz"), (0x4f7f_ffff, NX));
}

#[test]
fn sfu_results_arrive_at_retirement() {
    let w = run(
        "mov.vl v1, 0x40400000\nmov.vl v2, 0x40000000\nmov.vl v3, 5\nfdiv.f32 v3, v1, v2\nmov v4, v3\nwaitcnt sfu=0\nmov v5, v3\nfsqrt.f32 v6, v2 rm=rup\nendpgm",
    );
    ended(&w);
    assert_eq!(w.v[4][0], 5, "read before the write-back: the old value");
    assert_eq!(w.v[5][0], 0x3fc0_0000, "3 / 2 after waitcnt");
    assert_eq!(
        w.v[6][0], 0x3fb5_04f4,
        "sqrt(2) rounded up, written by endpgm's drain"
    );
    assert!(w.hazard_count >= 1, "mov.v v4, v3 read a pending register");
    assert_eq!(w.csr.fflags(), NX);
}

#[test]
fn sfu_special_cases() {
    let inf = 0x7f80_0000;
    assert_eq!(sfu::rcp(0), (inf, warpkit_float::Flags::DZ));
    assert_eq!(sfu::rcp(0x4000_0000).0, 0x3f00_0000);
    assert_eq!(sfu::rsq(0x8000_0000).0, 0xff80_0000);
    assert_eq!(
        sfu::rsq(0xbf80_0000),
        (0x7fc0_0000, warpkit_float::Flags::NV)
    );
    assert_eq!(
        sfu::rsq(0x4080_0000),
        (0x3f00_0000, warpkit_float::Flags::NONE)
    );
    assert_eq!(sfu::exp2(0xff80_0000).0, 0);
    assert_eq!(
        sfu::exp2(0x4120_0000),
        (0x4480_0000, warpkit_float::Flags::NONE),
        "2^10"
    );
    assert_eq!(sfu::exp2(0x4300_0000).0, inf, "2^128 overflows");
    assert_eq!(sfu::log2(0), (0xff80_0000, warpkit_float::Flags::DZ));
    assert_eq!(sfu::log2(ONE), (0, warpkit_float::Flags::NONE));
    assert_eq!(sfu::log2(0x4480_0000).0, 0x4120_0000, "log2(1024) = 10");
    assert_eq!(sfu::log2(0xbf80_0000).1, warpkit_float::Flags::NV);
    assert_eq!(sfu::sin_pi(0x3f00_0000).0, ONE, "sin(pi/2)");
    assert_eq!(sfu::sin_pi(0x8000_0000).0, 0x8000_0000);
    assert_eq!(sfu::sin_pi(ONE).0, 0);
    assert_eq!(sfu::cos_pi(0).0, ONE);
    assert_eq!(sfu::cos_pi(0x3f00_0000).0, 0);
    assert_eq!(sfu::cos_pi(inf), (0x7fc0_0000, warpkit_float::Flags::NV));
    assert_eq!(
        sfu::sin_pi(0x7f80_0001),
        (0x7fc0_0000, warpkit_float::Flags::NV)
    );
}

/// Distance in ulps between an f32 result and a binary64 reference.
fn ulps(got: u32, want: f64) -> f64 {
    let g = f64::from(f32::from_bits(got));
    let w32 = want as f32;
    let ulp = if w32 == 0.0 || !w32.is_finite() {
        f64::from(f32::from_bits(1))
    } else {
        let b = w32.abs().to_bits();
        f64::from(f32::from_bits(b + 1)) - f64::from(f32::from_bits(b))
    };
    (g - want).abs() / ulp.max(f64::from(f32::from_bits(1)))
}

/// The documented bound (1 ulp) against the host's libm in binary64, at test time only.
#[test]
fn sfu_accuracy_within_one_ulp() {
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut worst = [0f64; 5];
    for _ in 0..200_000 {
        let r = next();
        // Mostly moderate magnitudes, some anywhere.
        let x = if r & 3 == 0 {
            (r >> 32) as u32
        } else {
            let e = 100 + ((r >> 8) % 60) as u32;
            (e << 23) | ((r >> 32) as u32 & 0x807f_ffff)
        };
        let v = f64::from(f32::from_bits(x));
        if !v.is_finite() {
            continue;
        }
        let checks = [
            (sfu::exp2(x).0, v.exp2(), v.abs() < 125.0),
            (sfu::log2(x).0, v.log2(), v > 0.0),
            (
                sfu::sin_pi(x).0,
                (v * std::f64::consts::PI).sin(),
                v.abs() < 1.0e3,
            ),
            (
                sfu::cos_pi(x).0,
                (v * std::f64::consts::PI).cos(),
                v.abs() < 1.0e3,
            ),
            (sfu::rsq(x).0, 1.0 / v.sqrt(), v > 0.0),
        ];
        for (k, (got, want, ok)) in checks.into_iter().enumerate() {
            if !ok || want.abs() < 1e-30 {
                continue;
            }
            let d = ulps(got, want);
            worst[k] = worst[k].max(d);
            assert!(d <= 1.0, "op {k} x = {x:#x}: {d} ulp");
        }
    }
    assert!(
        worst.iter().all(|&w| w > 0.0),
        "every function was checked: {worst:?}"
    );
}

#[test]
fn rne_rows_accrue_flags_over_active_lanes_only() {
    // f32 arithmetic in rne takes the whole-row host path: lane l computes l × f32(1/3),
    // exact for l = 0, 1, 2 (and 0 goes to the soft path: a zero result), inexact for 3.
    let src = "laneid v0\ncvt.f32.u32 v1, v0\nmov.vl v2, 0x3eaaaaab\nfmul.f32 v3, v1, v2\nfmul.f32 v4, -|v1|, v2\nendpgm";
    let w = run_exec(src, 0b111);
    ended(&w);
    assert_eq!(w.csr.fflags(), 0, "the inexact lane 3 is not active");
    // Lane 3 is inactive throughout: its registers stay 0 (it would compute 1.0).
    assert_eq!(&w.v[3][..4], &[0, 0x3eaa_aaab, 0x3f2a_aaab, 0]);
    assert_eq!(&w.v[4][..3], &[0x8000_0000, 0xbeaa_aaab, 0xbf2a_aaab]);
    let w = run_exec(src, 0b1000);
    ended(&w);
    assert_eq!(w.csr.fflags(), NX);
    assert_eq!(w.v[3][3], 0x3f80_0000, "3 × 0x3eaaaaab rounds to 1.0");
    assert_eq!(w.v[3][2], 0, "inactive lanes are not written");
}
