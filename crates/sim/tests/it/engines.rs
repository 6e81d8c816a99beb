//! The translation tier against the interpreter: random programs over every database
//! variant (translated ones weighted up), with branches, jumps through registers, partial
//! and full EXEC and step limits, run by both engines from the same state; the end states
//! (dump, status, counts) must be identical. The translation tier runs with each vector
//! ISA the host has (AVX2, and AVX-512 where present). `WARPKIT_ENGINE_CASES=N` runs N
//! cases.

use crate::common::{jits, On};
use proptest::prelude::*;
use warpkit_isa::{Flags, Instr, Op, OperandClass, ALL_OPS};
use warpkit_sim::jit::{lane_local, translated, wide_only};
use warpkit_sim::*;

/// The variants the translation tier handles: the generator favours them.
fn translated_ops() -> Vec<usize> {
    (0..ALL_OPS.len())
        .filter(|&i| translated(ALL_OPS[i]))
        .collect()
}

/// One random instruction: a variant and raw operand values, fitted to the fields so that
/// registers come from a small set (instructions then feed each other) and branches land
/// near themselves.
fn instruction(op_index: usize, raw: [u32; 4]) -> Vec<u8> {
    instruction_over(op_index, raw, 8)
}

/// As [`instruction`], with registers from `0..regs`.
fn instruction_over(op_index: usize, raw: [u32; 4], regs: u32) -> Vec<u8> {
    let op = ALL_OPS[op_index % ALL_OPS.len()];
    let def = op.def();
    let is_branch = def.flags.contains(Flags::BR);
    let mut fields = Vec::new();
    for (k, o) in def.operands.iter().enumerate() {
        let r = raw[k % 4].rotate_left(7 * k as u32);
        let width = o.field.width();
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
        let v = match o.kind.ty.class {
            OperandClass::VReg => r % regs,
            OperandClass::UReg => r % regs,
            OperandClass::SImm if is_branch => ((r % 11) as i32 - 5) as u32,
            _ if o.name == "csr" => [0x000, 0x001, 0x002, 0x010, 0xc00, 0xc01, r][r as usize % 7],
            _ => r,
        };
        fields.push(v & mask);
    }
    match Instr::from_raw(op, &fields) {
        Ok(i) => i.to_bytes(),
        Err(_) => 0u32.to_le_bytes().to_vec(),
    }
}

fn run(program: &Program, init: &Init, on: On) -> (String, Warp, Core) {
    let p = on.program(program);
    let mut w = Warp::new(WarpId::default(), init.exec);
    for r in 0..8 {
        w.v[r] = init.v[r];
        w.u[r] = init.u[r];
    }
    let mut core = Core::default();
    w.run(&p, &mut core, &mut NoMemory, &mut NoHooks, init.max_steps);
    (dump_state_json([&w], &core), w, core)
}

/// `program` from `init` on each translation ends as on the interpreter (dump, steps,
/// status); the translations' warps.
fn engines_agree(program: &Program, init: &Init, what: &str) -> Vec<Warp> {
    let (interp, wi, _) = run(program, init, On::Interp);
    jits()
        .into_iter()
        .map(|on| {
            let (jit, wj, _) = run(program, init, on);
            assert_eq!(interp, jit, "{what}, {on:?}");
            assert_eq!(wi.steps, wj.steps, "{what}, {on:?}");
            assert_eq!(wi.status, wj.status, "{what}, {on:?}");
            wj
        })
        .collect()
}

#[derive(Debug, Clone)]
struct Init {
    exec: u32,
    v: [[u32; LANES]; 8],
    u: [u32; 8],
    max_steps: u64,
}

fn init(len: usize) -> impl Strategy<Value = Init> {
    let exec = prop_oneof![
        3 => Just(u32::MAX),
        1 => Just(0u32),
        3 => any::<u32>(),
    ];
    (exec, any::<u64>(), prop_oneof![1u64..50, 50u64..2000]).prop_map(
        move |(exec, seed, max_steps)| {
            // Register values from a generator seeded by the case: a mix of any word, small
            // values (shift counts, compares) and code offsets (`jr` targets).
            let mut x = seed | 1;
            let mut word = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let r = (x >> 16) as u32;
                match x % 3 {
                    0 => r,
                    1 => r % 64,
                    _ => (r % (len as u32 + 2)) * 4,
                }
            };
            let v = std::array::from_fn(|_| std::array::from_fn(|_| word()));
            let u = std::array::from_fn(|_| word());
            Init {
                exec,
                v,
                u,
                max_steps,
            }
        },
    )
}

fn cases() -> u32 {
    std::env::var("WARPKIT_ENGINE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400)
}

fn program_and_init() -> impl Strategy<Value = (Vec<u8>, Init)> {
    let tops = translated_ops();
    let op = prop_oneof![
        6 => proptest::sample::select(tops),
        1 => 0..ALL_OPS.len(),
    ];
    proptest::collection::vec((op, any::<[u32; 4]>()), 1..40).prop_flat_map(|insts| {
        let text: Vec<u8> = insts
            .iter()
            .flat_map(|&(op, raw)| instruction(op, raw))
            .collect();
        let len = text.len() / 4;
        (Just(text), init(len))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn engines_agree_on_random_programs((text, init) in program_and_init()) {
        let program = Program::new(text);
        let (interp, wi, ci) = run(&program, &init, On::Interp);
        prop_assert_eq!(wi.translated_steps(), 0);
        for on in jits() {
            let (jit, wj, cj) = run(&program, &init, on);
            prop_assert_eq!(&interp, &jit, "{:?}", on);
            prop_assert_eq!(wi.status, wj.status);
            prop_assert_eq!(wi.steps, wj.steps);
            prop_assert_eq!(wi.retired, wj.retired);
            prop_assert_eq!(wi.lane_ops, wj.lane_ops);
            prop_assert_eq!(ci.committed, cj.committed);
        }
    }
}

/// Straight runs of lane-local variants over ten or twenty registers: the translated code
/// keeps rows in host registers across such a run (four per quarter with AVX2, eight per
/// half with AVX-512, where partial EXEC merges each result with the old row), and with
/// this few registers the cache fills, evicts and reuses often.
fn lane_run_and_init() -> impl Strategy<Value = (Vec<u8>, Init)> {
    let ops: Vec<usize> = (0..ALL_OPS.len())
        .filter(|&i| lane_local(ALL_OPS[i]))
        .collect();
    let op = proptest::sample::select(ops);
    let insts = proptest::collection::vec((op, any::<[u32; 4]>()), 2..48);
    (insts, prop_oneof![Just(10u32), Just(20u32)]).prop_flat_map(|(insts, regs)| {
        let text: Vec<u8> = insts
            .iter()
            .flat_map(|&(op, raw)| instruction_over(op, raw, regs))
            .collect();
        let len = text.len() / 4;
        // Mostly full EXEC; partial EXEC runs the masked variant, which keeps rows in
        // registers across runs too where the host has AVX-512.
        let exec = prop_oneof![2 => Just(u32::MAX), 1 => any::<u32>()];
        let init = (init(len), exec).prop_map(|(init, exec)| Init {
            exec,
            max_steps: 1000,
            ..init
        });
        (Just(text), init)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn engines_agree_on_lane_local_runs((text, init) in lane_run_and_init()) {
        let program = Program::new(text);
        let (interp, _, _) = run(&program, &init, On::Interp);
        for on in jits() {
            let (jit, _, _) = run(&program, &init, on);
            prop_assert_eq!(&interp, &jit, "{:?}", on);
        }
    }
}

fn assemble(src: &str) -> Program {
    match warpkit_asm::assemble(src, "engines.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

/// Every translated variant, each in a block of its own between two loads of fresh
/// values, under full and partial EXEC: a check that does not depend on random programs
/// reaching every variant.
#[test]
fn every_translated_variant_agrees() {
    let mut checked = 0;
    for (i, &op) in ALL_OPS.iter().enumerate() {
        if !translated(op) || op.def().flags.contains(Flags::BR) {
            continue;
        }
        let mut text = Vec::new();
        for k in 0u32..6 {
            text.extend(instruction(
                i,
                [k.wrapping_mul(0x9e37_79b9), 3 + k, 5 * k + 1, 7 + k],
            ));
        }
        let program = Program::new(text);
        for exec in [u32::MAX, 0x5a5a_0ff0, 0] {
            let init = Init {
                exec,
                v: std::array::from_fn(|r| {
                    std::array::from_fn(|l| {
                        (r as u32 * 0x0101_0101)
                            ^ (l as u32).wrapping_mul(0x9e37_79b9)
                            ^ [0, 31, 32, 0x8000_0000][l % 4]
                    })
                }),
                u: [0, 1, 31, 0xffff_ffff, 0x8000_0000, 7, 0x1234_5678, 33],
                max_steps: 100,
            };
            let (interp, _, _) = run(&program, &init, On::Interp);
            for on in jits() {
                let (jit, wj, _) = run(&program, &init, on);
                assert_eq!(interp, jit, "{} with EXEC {exec:#x}, {on:?}", op.mnemonic());
                // With no memory attached the loads and stores always leave their block,
                // and a block starting with `waitcnt` is reached by chaining only (not
                // entered from the interpreter, as here): tests/it/engines_memory.rs runs
                // them.
                let asynchronous = op.def().memory.is_some() || op == Op::Waitcnt;
                if Engine::jit_supported() && !asynchronous && !wide_only(op) {
                    assert!(
                        wj.translated_steps() > 0,
                        "{} was not translated",
                        op.mnemonic()
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked > 150, "only {checked} variants checked");
}

/// An instruction's own cached sources are not replaced while it loads another: the
/// first four instructions fill the seven cache registers with rows read later, then the
/// fifth finds `v0` cached and loads `v7`, and `v0` is the cached row read latest.
#[test]
fn a_cached_source_is_kept_while_its_instruction_loads_another() {
    let program = assemble(
        "add v8, v0, v1\n\
         add v9, v2, v3\n\
         add v10, v4, v5\n\
         add v11, v6, v6\n\
         add v12, v0, v7\n\
         add v13, v7, v7\n\
         add v14, v1, v1\n\
         add v15, v2, v2\n\
         add v16, v3, v3\n\
         add v17, v4, v4\n\
         add v18, v5, v5\n\
         add v19, v6, v6\n\
         add v20, v0, v0\n\
         endpgm\n",
    );
    let init = Init {
        exec: u32::MAX,
        v: std::array::from_fn(|r| std::array::from_fn(|l| (r * 100 + l) as u32)),
        u: [0; 8],
        max_steps: 100,
    };
    let (interp, _, _) = run(&program, &init, On::Interp);
    for on in jits() {
        let (jit, wj, _) = run(&program, &init, on);
        assert_eq!(interp, jit, "{on:?}");
        if Engine::jit_supported() {
            assert_eq!(wj.translated_steps(), 13);
        }
    }
}

/// A SALU loop runs translated (almost) entirely, and stops exactly at the step limit.
#[test]
fn loops_run_translated_and_stop_at_the_step_limit() {
    let program = assemble(
        "    umovi u1, 1000\n\
         loop:\n\
         \x20   uaddi u2, u2, 3\n\
         \x20   add v1, v1, v2\n\
         \x20   uaddi u1, u1, -1\n\
         \x20   bnz u1, loop\n\
         \x20   endpgm\n",
    );
    for max_steps in [1, 2, 3, 4, 5, 7, 100, 3999, 4000, 4001, 4002, 10_000] {
        let init = Init {
            exec: u32::MAX,
            v: [[3; LANES]; 8],
            u: [0; 8],
            max_steps,
        };
        for wj in engines_agree(&program, &init, &format!("max_steps {max_steps}")) {
            if Engine::jit_supported() && max_steps >= 10_000 {
                assert_eq!(wj.status, WarpStatus::Ended);
                assert!(wj.translated_steps() >= 4000, "{}", wj.translated_steps());
            }
        }
    }
}

/// Loops of 512-bit runs and uniform operations: a back edge from a run to a block that
/// starts with one keeps the run constants (and EXEC's opmasks) set, a path through AVX2
/// code (a vector compare) or an EXEC write leaves that state, and a block entered either
/// way sets what it needs. Shift counts and `bfe` widths past 31 (`v0`, `v4`) need the
/// constants in all sixteen lanes of a half; EXEC alternates between full and partial.
/// Every step limit up to past the end, full and partial EXEC at entry.
#[test]
fn loops_of_runs_keep_their_constants_only_where_they_hold() {
    let program = assemble(
        "    umovi u1, 7\n\
         \x20   umov.l u6, 0x0ff0f00f\n\
         \x20   umov.l u7, 0xffffffff\n\
         top:\n\
         \x20   sll v2, v1, v0\n\
         \x20   bfe.u32 v3, v2, v0, v4\n\
         \x20   xnor v5, v3, v1\n\
         \x20   mulhu v6, v5, v1\n\
         \x20   uaddi u1, u1, -1\n\
         \x20   uandi u2, u1, 1\n\
         \x20   bnz u2, odd\n\
         \x20   add v7, v7, v6\n\
         \x20   sra v1, v1, v4\n\
         \x20   bnz u1, top\n\
         \x20   jmp done\n\
         odd:\n\
         \x20   cmp.lt.u32.vu u3, v6, u7\n\
         \x20   uxor u8, u8, u3\n\
         \x20   bnz u1, flip\n\
         \x20   jmp done\n\
         flip:\n\
         \x20   umov u9, u6\n\
         \x20   umov u6, u7\n\
         \x20   umov u7, u9\n\
         \x20   exec.set u7\n\
         \x20   bnz u1, top\n\
         done:\n\
         \x20   endpgm\n",
    );
    let v = std::array::from_fn(|r| {
        std::array::from_fn(|l| {
            (r as u32 * 0x0101_0101)
                ^ (l as u32).wrapping_mul(0x9e37_79b9)
                ^ [0, 31, 32, 0x8000_0000][l % 4]
        })
    });
    let mut translated = 0;
    for exec in [u32::MAX, 0x7fff_fffe] {
        for max_steps in (1..=90).chain([10_000]) {
            let init = Init {
                exec,
                v,
                u: [0; 8],
                max_steps,
            };
            let what = format!("EXEC {exec:#x}, max_steps {max_steps}");
            for wj in engines_agree(&program, &init, &what) {
                if max_steps == 10_000 {
                    assert_eq!(wj.status, WarpStatus::Ended);
                    translated = translated.max(wj.translated_steps());
                }
            }
        }
    }
    if Engine::jit_supported() {
        assert!(translated >= 60, "{translated} steps translated");
    }
}

/// A planted difference is caught: the test above is not vacuous.
#[test]
fn a_different_result_is_noticed() {
    let program = assemble("add v1, v1, v2\nendpgm\n");
    let init = Init {
        exec: u32::MAX,
        v: [[3; LANES]; 8],
        u: [0; 8],
        max_steps: 10,
    };
    let (a, _, _) = run(&program, &init, On::Jit(VectorIsa::host_best()));
    let mut other = init.clone();
    other.v[2][5] = 4;
    let (b, _, _) = run(&program, &other, On::Interp);
    assert_ne!(a, b);
}

/// f32 values that take every path of the host's floating-point unit: zeros,
/// infinities, quiet and signaling NaNs with payloads and signs, subnormals, the normal
/// range's ends, ties, and values whose products and sums overflow or underflow.
const F32_SPECIALS: [u32; 32] = [
    0x0000_0000,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7fc1_2345,
    0xffc0_0001,
    0x7f80_0001,
    0xff80_0123,
    0x0000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x3380_0000,
    0x3dcc_cccd,
    0x4040_0000,
    0x1e3c_e508,
    0x60ad_78ec,
    0x3f7f_ffff,
    0x0000_0003,
    0x8000_0001,
    0x00c0_0000,
    0x5f80_0000,
    0x1f80_0000,
    0x7f00_0000,
    0x4b80_0000,
    0x3400_0000,
    0xc2f6_e979,
];

/// f32 `fadd fsub fmul ffma fmin fmax` (with modifiers, static and dynamic rounding,
/// destinations that are sources) and every f32 compare over rows of special values, under each `mode` that matters to the
/// translation (`rne`, another rounding mode, f32 flushing, a trap enabled) and full,
/// partial and empty EXEC: results, `fflags`, traps and counts are the interpreter's, and
/// the instructions `mode` allows are translated where the host has AVX-512.
#[test]
fn f32_operations_agree_on_special_values() {
    let bodies = [
        "fadd.f32 v5, v1, v2\nfsub.f32 v6, v2, v3\nfmul.f32 v7, v3, v4\nffma.f32 v1, v1, v2, v3",
        "ffma.f32 v5, v1, v2, v3\nffma.f32 v6, v2, v3, v4\nffma.f32 v3, v4, v1, v5",
        "fcmp.eq.f32 u2, v1, v2\nfcmp.ne.f32 u3, v2, v3\nfcmp.lt.f32 u4, v3, v4\nfcmp.le.f32 u5, v4, v1\nfadd.f32 v5, v1, v2",
        "fcmp.gt.f32 u2, v1, v3\nfcmp.ge.f32 u3, v2, v4\nfcmp.o.f32 u4, v1, v4\nfcmp.u.f32 u5, v3, v2\nfmul.f32 v5, v1, v2\nfcmp.gt.f32 u6, v5, v1",
        "fadd.f32 v5, -v1, |v2|\nfmul.f32 v6, -|v3|, v4\nffma.f32 v7, -v1, v2, -|v4|\nfsub.f32 v2, |v2|, -v5",
        "fmul.f32 v5, v1, v2 rm=rne\nadd v6, v5, v1\nfadd.f32 v7, v6, v3 rm=rne\nffma.f32 v4, v7, v2, v1",
        "ffma.f32 v5, v1, v2, v3 rm=rtz\nfadd.f32 v6, v1, v2",
        "fmin.f32 v5, v1, v2\nfmax.f32 v6, v2, v3\nfmin.f32 v7, -v3, |v4|\nfmax.f32 v1, v1, -v1\nfadd.f32 v2, v5, v6",
        "fmax.f32 v5, v1, v2\nfmin.f32 v6, v2, v1\nfmax.f32 v7, v3, v3\nfmin.f32 v4, v4, v1\nfmul.f32 v3, v5, v6",
        "ffma.f32 v5, v1, v2, v3",
    ];
    // rne; rtz; rne with f32 flushing; rne with NV's trap; rne with NX's trap.
    let modes = [0u32, 1, 8, 1 << 9, 1 << 5];
    let mut translated = 0;
    for body in bodies {
        for mode in modes {
            let src = format!("umov.l u1, {mode}\ncsrw mode, u1\n{body}\nendpgm");
            let program = assemble(&src);
            for round in 0..6u32 {
                for exec in [u32::MAX, 0x5a5a_0ff0, 0] {
                    let init = Init {
                        exec,
                        v: std::array::from_fn(|r| {
                            std::array::from_fn(|l| {
                                let k = (l as u32) * (2 * r as u32 + 1) + round * (3 + r as u32);
                                F32_SPECIALS[(k % 32) as usize]
                            })
                        }),
                        u: [0; 8],
                        max_steps: 100,
                    };
                    let (interp, wi, _) = run(&program, &init, On::Interp);
                    for on in jits() {
                        let (jit, wj, _) = run(&program, &init, on);
                        assert_eq!(
                            interp, jit,
                            "{body:?} in mode {mode:#x}, EXEC {exec:#x}, {on:?}"
                        );
                        assert_eq!(wi.retired, wj.retired);
                        assert_eq!(wi.lane_ops, wj.lane_ops);
                        translated += wj.translated_steps();
                        if on == On::Jit(VectorIsa::Avx512) && mode == 0 && exec != 0 {
                            assert!(wj.translated_steps() > 0, "{body:?} was not translated");
                        }
                        if mode != 0 && !body.contains("add v6") {
                            // Blocks of f32 instructions run only while `mode` allows
                            // (the `umov.l` before the `csrw` may be translated).
                            let steps = wj.translated_steps();
                            assert!(steps <= 1, "{body:?} in mode {mode:#x}: {steps}");
                        }
                    }
                }
            }
        }
    }
    if VectorIsa::Avx512.supported() {
        assert!(translated > 0);
    }
}

/// Rows `v` under `exec`, the uniform registers zero, 100 steps: the directed f32 cases.
fn rows(exec: u32, v: [[u32; LANES]; 8]) -> Init {
    Init {
        exec,
        v,
        u: [0; 8],
        max_steps: 100,
    }
}

/// The warp `program` leaves from `init` on the interpreter and on each translation; a
/// translation with AVX-512 must have run translated steps (the directed f32 cases would
/// otherwise check the interpreter twice).
fn on_each_engine(program: &Program, init: &Init) -> Vec<(On, Warp)> {
    std::iter::once(On::Interp)
        .chain(jits())
        .map(|on| {
            let (_, w, _) = run(program, init, on);
            if on == On::Jit(VectorIsa::Avx512) {
                assert!(w.translated_steps() > 0, "not translated");
            }
            (on, w)
        })
        .collect()
}

/// `ffma` of zero, infinity and a quiet NaN gives the canonical NaN and raises NV (x86
/// raises nothing there), and a NaN result is canonical whatever x86 propagates.
#[test]
fn f32_nan_results_are_canonical_and_ffma_of_zero_and_infinity_signals() {
    let src = "ffma.f32 v5, v1, v2, v3\nfadd.f32 v6, v3, v4\nendpgm";
    let program = assemble(src);
    for (exec, lane_of_interest) in [(u32::MAX, 0usize), (0x8000_0000, 31)] {
        let mut v = [[0x3f80_0000u32; LANES]; 8];
        v[1][lane_of_interest] = 0; // 0 * inf + qNaN
        v[2] = [0x7f80_0000; LANES];
        v[3] = [0x7fc1_2345; LANES]; // a quiet NaN with a payload
        v[4] = [0x3f80_0000; LANES];
        if lane_of_interest == 31 {
            v[1][0] = 0; // an inactive lane that would signal
        }
        let init = rows(exec, v);
        for (on, w) in on_each_engine(&program, &init) {
            assert_eq!(w.v[5][lane_of_interest], 0x7fc0_0000, "{on:?}");
            assert_eq!(w.v[6][lane_of_interest], 0x7fc0_0000, "{on:?}");
            assert_eq!(w.csr.fflags(), 16, "NV alone, {on:?} EXEC {exec:#x}");
        }
    }
}

/// Translated f32 code runs under its own MXCSR and gives the caller's back: a caller
/// rounding toward zero with flags set still rounds so afterwards, and the warp's
/// results and `fflags` are those of `rne` from clear flags.
#[cfg(target_arch = "x86_64")]
#[test]
#[allow(deprecated)] // `_mm_getcsr`/`_mm_setcsr`: the test needs MXCSR itself
fn translated_f32_code_keeps_the_callers_mxcsr() {
    use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
    let src = "fadd.f32 v5, v1, v2\nfadd.f32 v6, v1, v2\nendpgm";
    let program = assemble(src);
    let mut v = [[0u32; LANES]; 8];
    v[1] = [0x3f80_0000; LANES];
    v[2] = [0x3380_0001; LANES]; // 1 + (2^-24 + a bit) rounds up in rne, down in rtz
    let init = rows(u32::MAX, v);
    for on in jits() {
        // Round toward zero, every exception masked, PE and OE set.
        let caller = 0x7f80 | 0x20 | 0x08;
        // SAFETY: only the rounding mode and flags change; every exception stays masked.
        unsafe { _mm_setcsr(caller) };
        let (_, w, _) = run(&program, &init, on);
        let after = unsafe { _mm_getcsr() };
        unsafe { _mm_setcsr(0x1f80) };
        assert_eq!(after & !0x3f, caller & !0x3f, "control bits kept, {on:?}");
        assert_eq!(w.v[5][0], 0x3f80_0001, "rounded in rne, {on:?}");
        assert_eq!(w.csr.fflags(), 1, "NX only, {on:?}");
        if on == On::Jit(VectorIsa::Avx512) {
            assert!(w.translated_steps() > 0, "not translated");
        }
    }
}

/// Each f32 compare alone on a row with a quiet NaN: the ordering compares signal NV, the
/// others (`eq`, `ne`, ordered, unordered) do not, and a signaling NaN makes every one
/// signal; the masks are the interpreter's (and are checked here on their own too).
#[test]
fn f32_compares_signal_only_where_the_interpreter_does() {
    let one = 0x3f80_0000;
    for (cond, signals, qnan_mask) in [
        ("eq", false, 0u32),
        ("ne", false, 1),
        ("lt", true, 0),
        ("le", true, 0),
        ("gt", true, 0),
        ("ge", true, 0),
        ("o", false, 0),
        ("u", false, 1),
    ] {
        let program = assemble(&format!("fcmp.{cond}.f32 u2, v1, v2\nendpgm"));
        for (nan, nan_signals) in [(0x7fc0_0000u32, signals), (0x7f80_0001, true)] {
            let mut v = [[one; LANES]; 8];
            v[1][0] = nan;
            let init = rows(u32::MAX, v);
            for (on, w) in on_each_engine(&program, &init) {
                let equal = matches!(cond, "eq" | "le" | "ge" | "o");
                let rest = if equal { !1u32 } else { 0 };
                assert_eq!(w.u[2], rest | qnan_mask, "fcmp.{cond} {nan:#x} {on:?}");
                let nv = if nan_signals { 16 } else { 0 };
                assert_eq!(w.csr.fflags(), nv, "fcmp.{cond} {nan:#x} {on:?}");
            }
        }
    }
}

/// `fmin`/`fmax` (IEEE minimumNumber, maximumNumber): a NaN operand gives the other, two
/// NaNs the canonical NaN, −0 < +0, and only a signaling NaN raises NV (the host's
/// `vminps`/`vmaxps` signal for quiet NaNs and answer differently for each of these).
#[test]
fn f32_min_and_max_follow_ieee_minimum_and_maximum_number() {
    let (qnan, snan, one) = (0x7fc1_2345u32, 0x7f80_0001u32, 0x3f80_0000u32);
    // (a, b, min, max)
    let cases = [
        (qnan, one, one, one),
        (one, qnan, one, one),
        (qnan, 0xffc0_0001, 0x7fc0_0000, 0x7fc0_0000),
        (0x8000_0000, 0, 0x8000_0000, 0),
        (0, 0x8000_0000, 0x8000_0000, 0),
        (one, 0xbf80_0000, 0xbf80_0000, one),
        (0x0000_0001, 0x8000_0001, 0x8000_0001, 1),
    ];
    let program = assemble("fmin.f32 v3, v1, v2\nfmax.f32 v4, v1, v2\nendpgm");
    for (a, b, min, max) in cases {
        for (quiet_flags, signal) in [(0u32, false), (16, true)] {
            let mut v = [[one; LANES]; 8];
            v[1] = [a; LANES];
            v[2] = [b; LANES];
            if signal {
                v[1][7] = snan; // another lane's signaling NaN raises NV
            }
            let init = rows(u32::MAX, v);
            for (on, w) in on_each_engine(&program, &init) {
                assert_eq!((w.v[3][0], w.v[4][0]), (min, max), "{a:#x}, {b:#x}, {on:?}");
                assert_eq!(w.csr.fflags(), quiet_flags, "{a:#x}, {b:#x}, {on:?}");
            }
        }
    }
}

/// Runs of the masked variant (the AVX2 one keeps its lane masks in memory meanwhile):
/// a row moved onto itself, a 64-bit add onto one of its sources, a
/// `cndmask` and multiply-adds reading rows the run keeps, under a partial EXEC, and a
/// masked instruction on its own after the run (which needs the lane masks back).
#[test]
fn masked_runs_merge_each_result_under_exec() {
    let program = assemble(
        "mov v3, v3\n\
         mad.u32 v2, v2, v0, v1\n\
         mad.u32 v2, v2, v0, v1\n\
         add64 v[4:5], v[4:5], v[2:3]\n\
         cndmask v6, v2, u1\n\
         xor v7, v6, v4\n\
         mov v1, v7\n\
         cmp.lt.u32.vu u2, v7, u3\n\
         sub v0, v1, v2\n\
         endpgm\n",
    );
    let v = std::array::from_fn(|r| {
        std::array::from_fn(|l| (r as u32 * 0x0101_0101) ^ (l as u32).wrapping_mul(0x9e37_79b9))
    });
    for exec in [u32::MAX, 0x5a5a_0ff0, 0x8000_0001] {
        let init = Init {
            exec,
            v,
            u: [0, 0x0f0f_3355, 0, 0x8000_0000, 0, 0, 0, 0],
            max_steps: 100,
        };
        for wj in engines_agree(&program, &init, &format!("EXEC {exec:#x}")) {
            if Engine::jit_supported() {
                assert_eq!(wj.translated_steps(), 9, "EXEC {exec:#x}");
            }
        }
    }
}
