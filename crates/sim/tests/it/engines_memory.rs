//! The translation tier's memory instructions against the interpreter: random programs of
//! `gload.b32`, `gstore.b32`, `dsload.b32`, `dsstore.b32`, uniform loads and `waitcnt`
//! (translated under any EXEC) among
//! loops, arithmetic, cache control and a few untranslated loads and stores, over a writable and a read-only region
//! and addresses that are mostly word runs but also gathers and scatters (translated where
//! they stay inside one region), misaligned, partly outside a region or wrapping. The writable region is global memory or, in a quarter of the cases,
//! a warp's scratch memory (at its scratch address). Both engines run from the same state;
//! the dumps, the memory, the pending operations, the hazard reports and the counts must
//! be identical.
//! `WARPKIT_ENGINE_CASES=N` runs N cases.

use crate::common::{jits, On};
use proptest::prelude::*;
use warpkit_sim::memory::{GlobalMemory, ScratchMemory, SharedMemory};
use warpkit_sim::*;

const RW: u64 = 0x1000;
const RW_BYTES: usize = 1024;
const RO: u64 = 0x2000;
const RO_BYTES: usize = 256;
/// The workgroup's shared memory: smaller than the lane offsets' range, so some shared
/// accesses fall outside it.
const SHARED_BYTES: u32 = 1152;

/// One random instruction's source line. Loads and stores address through `v0` (a word
/// run from `u[16:17]`'s region, usually) or `v1` (anything), the destination and data
/// registers are `v2..v7`, so loads and later instructions meet (hazards, waits).
fn line(pick: u32, x: u32) -> String {
    let d = 2 + x % 6;
    let addr = if x & 0x40 == 0 { 0 } else { 1 };
    let imm = [0i32, 4, 128, -128, 2, 896, 1024][(x >> 8) as usize % 7];
    match pick % 23 {
        // Atomics without a returned value (all but the minimum, maximum and compare-swap
        // translated).
        21 => {
            let op = ["add", "sub", "and", "or", "xor", "swap", "umax"][(x >> 20) as usize % 7];
            format!("gatomic.{op} v{d}, v{addr}, u[16:17], {imm}")
        }
        22 => {
            let op = ["add", "sub", "and", "or", "xor", "swap", "smin"][(x >> 20) as usize % 7];
            format!("dsatomic.{op} v{d}, v{addr}, {imm}")
        }
        0..=3 => format!("gload.b32 v{d}, v{addr}, u[16:17], {imm}"),
        // Shared memory: loads and stores on one counter, `ls`.
        18..=19 => format!("dsload.b32 v{d}, v{addr}, {imm}"),
        20 => format!("dsstore.b32 v{d}, v{addr}, {imm}"),
        4..=5 => format!("gstore.b32 v{d}, v{addr}, u[16:17], {imm}"),
        6..=7 => {
            let vm = [0, 1, 2, 63][(x >> 12) as usize % 4];
            let vst = [0, 1, 3, 31][(x >> 14) as usize % 4];
            let sm = [0, 1, 2, 3][(x >> 16) as usize % 4];
            let ls = [0, 1, 5, 15][(x >> 18) as usize % 4];
            format!("waitcnt vm={vm}, vst={vst}, sm={sm}, ls={ls}")
        }
        // Uniform loads into u[24..31] (translated), and a use of one of them.
        16 => {
            let size = [32, 64, 128, 256][(x >> 3) as usize % 4];
            format!("uload.b{size} {}, u[16:17], {imm}", uniform_dest(size))
        }
        17 => format!("add.vu v{d}, v{d}, u{}", 24 + (x >> 3) % 8),
        8 => format!("add v{d}, v{}, v{}", 2 + (x >> 3) % 6, 2 + (x >> 6) % 6),
        9 => format!(
            "mad.u32 v{d}, v{d}, v{}, v{}",
            2 + (x >> 3) % 6,
            2 + (x >> 6) % 6
        ),
        10 => "add.vi v0, v0, 4".into(),
        // The base walks, through and out of its region.
        11 => format!("uaddi u16, u16, {}", [128, -128, 4, 64, -4][x as usize % 5]),
        // Untranslated memory: a load of two words, a half-word store.
        12 => format!(
            "gload.b64 v[{}:{}], v{addr}, u[16:17], 0",
            d & !1,
            (d & !1) + 1
        ),
        13 => format!("gstore.b16 v{d}, v{addr}, u[16:17], 2"),
        // EXEC changes: the masked variant gathers and scatters the active lanes.
        14 => ["exec.set u20", "exec.set u21"][x as usize % 2].into(),
        // Pending on `vm` and `vst` with nothing to write back.
        _ => ["cache.inv", "cache.wb", "nop"][x as usize % 3].into(),
    }
}

/// The destination of a `uload.b{bits}` in the tests' programs: u24 (as a single
/// register, a pair, a quad or eight).
fn uniform_dest(bits: u32) -> String {
    match bits {
        32 => "u24".into(),
        n => format!("u[24:{}]", 24 + n / 32 - 1),
    }
}

#[derive(Debug, Clone)]
struct Case {
    source: String,
    exec: u32,
    v1: [u32; LANES],
    /// `v7`'s lanes (0 in random cases).
    v7: [u32; LANES],
    base: u64,
    seed: u64,
    max_steps: u64,
    /// The writable region is scratch memory instead of global memory.
    scratch: bool,
    /// Shared memory starts written (else never written: every word reads 0).
    shared_init: bool,
}

impl Case {
    /// A directed case: full EXEC, `v1` zero, the program given separately.
    fn directed(base: u64, seed: u64, max_steps: u64) -> Case {
        Case {
            source: String::new(),
            exec: u32::MAX,
            v1: [0; LANES],
            v7: [0; LANES],
            base,
            seed,
            max_steps,
            scratch: false,
            shared_init: true,
        }
    }
}

/// `v1`: anything, or gathers that mostly stay inside a region — aligned offsets below the
/// writable region's size in any order (with the immediates, some run past its end), the
/// same with one lane misaligned, or offsets near the top of the 32-bit range.
fn lane_offsets() -> impl Strategy<Value = [u32; LANES]> {
    let aligned = any::<[u32; LANES]>().prop_map(|v| v.map(|x| (x % RW_BYTES as u32) & !3));
    let one_misaligned = (aligned.clone(), 0..LANES, 1u32..4).prop_map(|(mut v, l, d)| {
        v[l] += d;
        v
    });
    let high = any::<[u32; LANES]>().prop_map(|v| v.map(|x| (u32::MAX - x % 256) & !3));
    prop_oneof![
        1 => any::<[u32; LANES]>(),
        3 => aligned,
        1 => one_misaligned,
        1 => high,
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let body = proptest::collection::vec((any::<u32>(), any::<u32>()), 1..28);
    let base = prop_oneof![
        4 => Just(RW),
        1 => Just(RW + 896),
        1 => Just(RO),
        1 => Just(RW - 64),
        1 => Just(u64::MAX - 64),
    ];
    (
        body,
        prop_oneof![1 => 0u32..4, 1 => 4u32..80],
        prop_oneof![3 => Just(u32::MAX), 1 => any::<u32>()],
        lane_offsets(),
        base,
        any::<u64>(),
        prop_oneof![3 => Just(5000u64), 1 => 1u64..300],
        prop_oneof![3 => Just(false), 1 => Just(true)],
        any::<bool>(),
    )
        .prop_map(
            |(body, reps, exec, v1, base, seed, max_steps, scratch, shared_init)| {
                // A loop around the body, so chained blocks meet stores and loads left pending
                // by the previous iteration.
                let mut source = format!("umovi u19, {}\nrep:\n", reps + 1);
                for (pick, x) in body {
                    source.push_str(&line(pick, x));
                    source.push('\n');
                }
                source.push_str("uaddi u19, u19, -1\nbnz u19, rep\nendpgm\n");
                Case {
                    source,
                    exec,
                    v1,
                    v7: [0; LANES],
                    base,
                    seed,
                    max_steps,
                    scratch,
                    shared_init,
                }
            },
        )
}

fn assemble(src: &str) -> Program {
    match warpkit_asm::assemble(src, "engines_memory.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Everything a run leaves that the engines must agree on.
fn run(program: &Program, case: &Case, on: On) -> String {
    run_counted(program, case, on).0
}

/// As [`run`], with the steps translated code ran.
fn run_counted(program: &Program, case: &Case, on: On) -> (String, u64) {
    let p = on.program(program);
    let mut global = GlobalMemory::default();
    // One warp's region of RW_BYTES.
    let scratch = ScratchMemory::new(0, 1, (RW_BYTES / LANES) as u32);
    let mut base = case.base;
    let init = bytes(case.seed, RW_BYTES);
    if case.scratch {
        for (k, w) in init.chunks(4).enumerate() {
            let word = u32::from_le_bytes(w.try_into().unwrap());
            scratch
                .write(scratch.base() + 4 * k as u64, 4, &[word])
                .unwrap();
        }
        // The same places relative to the region (before, in, past it).
        if base.wrapping_sub(RW - 64) <= 64 + RW_BYTES as u64 {
            base = scratch.base().wrapping_add(base.wrapping_sub(RW));
        }
    } else {
        assert!(global.map(RW, &init));
    }
    assert!(global.map_read_only(RO, &bytes(!case.seed, RO_BYTES)));
    let mut shared = SharedMemory::new(SHARED_BYTES);
    if case.shared_init {
        assert!(shared.write_bytes(0, &bytes(case.seed ^ 0x5a5a, SHARED_BYTES as usize)));
    }
    let mut w = Warp::new(WarpId::default(), case.exec);
    w.v[0] = std::array::from_fn(|l| 4 * l as u32);
    w.v[1] = case.v1;
    w.v[7] = case.v7;
    w.u[16] = base as u32;
    w.u[17] = (base >> 32) as u32;
    w.u[20] = u32::MAX;
    w.u[21] = case.exec;
    let mut core = Core::default();
    let mut env = MemEnv::new(&global, &mut shared).with_scratch(&scratch);
    w.run(&p, &mut core, &mut env, &mut NoHooks, case.max_steps);
    drop(env);
    let rw = if case.scratch {
        let mut out = Vec::with_capacity(RW_BYTES);
        for k in 0..RW_BYTES as u64 / 4 {
            let mut word = [0u32];
            scratch.read(scratch.base() + 4 * k, 4, &mut word).unwrap();
            out.extend_from_slice(&word[0].to_le_bytes());
        }
        Some(out)
    } else {
        global.bytes_at(RW)
    };
    let shared: Vec<Option<u32>> = (0..u64::from(SHARED_BYTES) / 4)
        .map(|k| shared.word(k))
        .collect();
    let pending: Vec<PendingOp> = w.queue.ops().collect();
    let counts: Vec<u32> = (0..6).map(|c| w.queue.count(c)).collect();
    let state = format!(
        "{}\n{:?}\nsteps {} retired {} lanes {} committed {}\npending {counts:?} {pending:?}\nhazards {} {:?}\nrw {:?}\nshared {:?}",
        dump_state_json([&w], &core),
        w.status,
        w.steps,
        w.retired,
        w.lane_ops,
        core.committed,
        w.hazard_count,
        w.hazards,
        rw,
        shared,
    );
    (state, w.translated_steps())
}

/// `program` on `case` ends alike on the interpreter and on every jit variant (byte for
/// byte: dumps, memory, queue, hazards), and where the host runs translated code, at
/// least `translated` steps of each jit run ran translated.
fn engines_agree_translated(program: &Program, case: &Case, translated: u64, what: &str) {
    let (interp, _) = run_counted(program, case, On::Interp);
    assert!(interp.contains("Ended"), "{what}: {interp}");
    for on in jits() {
        let (jit, steps) = run_counted(program, case, on);
        assert_eq!(interp, jit, "{what} {on:?}");
        if Engine::jit_supported() {
            assert!(
                steps >= translated,
                "{what} {on:?}: {steps} steps translated"
            );
        }
    }
}

/// `program` ends alike on the interpreter and on each translation at every step limit
/// in `limits` (the memory case of `seed`).
fn engines_agree_at_each_limit(
    program: &Program,
    seed: u64,
    limits: std::ops::Range<u64>,
    what: &str,
) {
    for max_steps in limits {
        let case = Case::directed(RW, seed, max_steps);
        let (interp, _) = run_counted(program, &case, On::Interp);
        for on in jits() {
            let (jit, _) = run_counted(program, &case, on);
            assert_eq!(interp, jit, "{what} max_steps {max_steps} {on:?}");
        }
    }
}

fn cases() -> u32 {
    std::env::var("WARPKIT_ENGINE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn engines_agree_on_memory_programs(case in case()) {
        let program = assemble(&case.source);
        let interp = run(&program, &case, On::Interp);
        for on in jits() {
            let jit = run(&program, &case, on);
            prop_assert_eq!(&interp, &jit, "{} {:?}", case.source, on);
        }
    }
}

/// The loop of `bench/madd.s` runs translated: loads, their wait, the multiply-add and
/// the store stay in one chained block, and the stores it leaves pending (the store
/// counter at its limit) are the interpreter's.
#[test]
fn the_madd_loop_runs_translated() {
    let program = assemble(
        "    umovi u19, 200\n\
         rep:\n\
         \x20   gload.b32 v6, v0, u[16:17], 0\n\
         \x20   gload.b32 v7, v0, u[16:17], 128\n\
         \x20   waitcnt vm=0\n\
         \x20   mad.u32 v6, v6, v7, v7\n\
         \x20   gstore.b32 v6, v0, u[16:17], 0\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   endpgm\n",
    );
    for max_steps in [3, 40, 1000, 5000, 10_000] {
        let case = Case::directed(RW, 7, max_steps);
        let (interp, _) = run_counted(&program, &case, On::Interp);
        for on in jits() {
            let (jit, translated) = run_counted(&program, &case, on);
            assert_eq!(interp, jit, "max_steps {max_steps}, {on:?}");
            if max_steps == 10_000 {
                assert!(interp.contains("Ended"), "{interp}");
                // All but the first visit of each access (a hint miss) and `endpgm`.
                assert!(translated >= 1390, "{translated}");
            }
        }
    }
}

/// `source`, a loop over `v1`, with `v1` a word run, in reverse order, at a stride of two
/// words, all at one word, and at a stride with one lane outside the region: both engines
/// agree, the last case faults (in the interpreter, as alone: before a store stores
/// anything), and the others run translated for at least `translated` steps.
fn offsets_run_translated(source: &str, seed: u64, translated: u64) {
    let program = assemble(source);
    let reverse: [u32; LANES] = std::array::from_fn(|l| 4 * (31 - l as u32));
    let strided: [u32; LANES] = std::array::from_fn(|l| 8 * l as u32);
    let same = [12; LANES];
    let mut outside = strided;
    outside[17] = RW_BYTES as u32;
    let run: [u32; LANES] = std::array::from_fn(|l| 4 * l as u32);
    for (v1, inside) in [
        (run, true),
        (reverse, true),
        (strided, true),
        (same, true),
        (outside, false),
    ] {
        let case = Case {
            v1,
            ..Case::directed(RW, seed, 10_000)
        };
        let (interp, _) = run_counted(&program, &case, On::Interp);
        assert_eq!(interp.contains("Ended"), inside, "{interp}");
        for on in jits() {
            let (jit, steps) = run_counted(&program, &case, on);
            assert_eq!(interp, jit, "{v1:?} {on:?}");
            if inside {
                assert!(steps >= translated, "{steps}");
            }
        }
    }
}

/// A block's word-run accesses through one address row check it once, while the row is
/// not written: a later access reads the first check's answer (not a run: gathered or
/// scattered too), and a write to the row in between (a lane-local instruction, a load
/// retiring into it) makes the next access check again. Each program runs with every
/// `v1` of [`offsets_run_translated`].
#[test]
fn accesses_through_one_row_check_it_again_only_after_it_is_written() {
    let programs = [
        // Three accesses through v1, unwritten between them.
        "    umovi u19, 100\n\
         rep:\n\
         \x20   gload.b32 v6, v1, u[16:17], 0\n\
         \x20   gload.b32 v2, v1, u[16:17], 4\n\
         \x20   waitcnt vm=0\n\
         \x20   add v6, v6, v2\n\
         \x20   gstore.b32 v6, v1, u[16:17], 8\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   waitcnt vst=0\n\
         \x20   endpgm\n",
        // v1 switches between its value and v0 (a word run) between two accesses.
        "    umovi u19, 100\n\
         \x20   xor v4, v0, v1\n\
         rep:\n\
         \x20   gload.b32 v6, v1, u[16:17], 0\n\
         \x20   xor v1, v1, v4\n\
         \x20   waitcnt vm=0\n\
         \x20   gstore.b32 v6, v1, u[16:17], 8\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   waitcnt vst=0\n\
         \x20   endpgm\n",
        // v1 is loaded: v0's offsets (a word run) from 512, then, through itself, its own
        // from 640.
        "    gstore.b32 v0, v0, u[16:17], 512\n\
         \x20   gstore.b32 v1, v0, u[16:17], 640\n\
         \x20   waitcnt vst=0\n\
         \x20   umovi u19, 100\n\
         rep:\n\
         \x20   gload.b32 v1, v0, u[16:17], 512\n\
         \x20   waitcnt vm=0\n\
         \x20   gload.b32 v6, v1, u[16:17], 0\n\
         \x20   gload.b32 v1, v1, u[16:17], 640\n\
         \x20   waitcnt vm=0\n\
         \x20   gstore.b32 v6, v1, u[16:17], 8\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   waitcnt vst=0\n\
         \x20   endpgm\n",
    ];
    for (k, source) in programs.iter().enumerate() {
        offsets_run_translated(source, 17 + k as u64, 500);
    }
}

/// Gathers inside their region run translated: all but the first visits (a hint miss,
/// then the gather reached from interpreted code) and `endpgm`.
#[test]
fn gathers_inside_their_region_run_translated() {
    let source = "    umovi u19, 200\n\
         rep:\n\
         \x20   gload.b32 v6, v1, u[16:17], 0\n\
         \x20   waitcnt vm=0\n\
         \x20   add v7, v7, v6\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   endpgm\n";
    offsets_run_translated(source, 11, 900);
}

/// Scatters inside their region run translated, lanes stored in order (all lanes to one
/// word: the highest lane's value stays): all but the first visit (a hint miss) and the
/// end.
#[test]
fn scatters_inside_their_region_run_translated() {
    let source = "    umovi u19, 200\n\
         rep:\n\
         \x20   add.vi v7, v7, 3\n\
         \x20   gstore.b32 v7, v1, u[16:17], 0\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   waitcnt vst=0\n\
         \x20   endpgm\n";
    offsets_run_translated(source, 13, 790);
}

/// Uniform loads run translated, their values reaching the uniform registers at the
/// `waitcnt` (and a use of them before it ends the block: the interpreter reports the
/// hazard); a misaligned one or one past its region faults in the interpreter.
#[test]
fn uniform_loads_run_translated() {
    for (offset, hazard, ends) in [
        (0, false, true),
        (24, true, true),
        (2, false, false),
        (RW_BYTES as i32 - 4, false, false),
    ] {
        let early = if hazard { "add.vu v6, v6, u26\n" } else { "" };
        let source = format!(
            "    umovi u19, 200\n\
             rep:\n\
             \x20   uload.b64 u[24:25], u[16:17], {offset}\n\
             \x20   uload.b32 u26, u[16:17], 8\n\
             {early}\
             \x20   waitcnt sm=0\n\
             \x20   add.vu v7, v7, u24\n\
             \x20   add.vu v7, v7, u26\n\
             \x20   uaddi u19, u19, -1\n\
             \x20   bnz u19, rep\n\
             \x20   endpgm\n"
        );
        let program = assemble(&source);
        let case = Case::directed(RW, 17, 10_000);
        let (interp, _) = run_counted(&program, &case, On::Interp);
        assert_eq!(interp.contains("Ended"), ends, "{interp}");
        for on in jits() {
            let (jit, translated) = run_counted(&program, &case, on);
            assert_eq!(interp, jit, "{source} {on:?}");
            if ends && !hazard {
                // All but the first visit (a miss of each load's hint) and `endpgm`.
                assert!(translated >= 1390, "{translated}");
            }
        }
    }
}

/// The same loop over a warp's scratch memory: translated code reaches scratch through its
/// region hints as it reaches global memory.
#[test]
fn a_loop_over_scratch_runs_translated() {
    let program = assemble(
        "    umovi u19, 200\n\
         rep:\n\
         \x20   gload.b32 v6, v0, u[16:17], 0\n\
         \x20   gload.b32 v7, v0, u[16:17], 896\n\
         \x20   waitcnt vm=0\n\
         \x20   mad.u32 v6, v6, v7, v7\n\
         \x20   gstore.b32 v6, v0, u[16:17], 0\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   endpgm\n",
    );
    let case = Case {
        scratch: true,
        ..Case::directed(RW, 9, 10_000)
    };
    let (interp, _) = run_counted(&program, &case, On::Interp);
    assert!(interp.contains("Ended"), "{interp}");
    for on in jits() {
        let (jit, translated) = run_counted(&program, &case, on);
        assert_eq!(interp, jit, "{on:?}");
        assert!(translated >= 1390, "{translated}");
    }
}

/// Word runs walking out of their region, four bytes at a time, after earlier ones filled
/// the instruction's region hint: the run that crosses the region's end faults in both
/// engines (translated code checks the whole run against the hint, not its start).
#[test]
fn a_run_crossing_the_end_of_its_region_faults() {
    for (store, start) in [(false, RW), (true, RW), (false, RO), (true, RO)] {
        let op = if store { "gstore.b32" } else { "gload.b32" };
        let program = assemble(&format!(
            "    umovi u19, 40\n\
             rep:\n\
             \x20   {op} v2, v0, u[16:17], 0\n\
             \x20   waitcnt vm=0\n\
             \x20   uaddi u16, u16, 4\n\
             \x20   uaddi u19, u19, -1\n\
             \x20   bnz u19, rep\n\
             \x20   endpgm\n"
        ));
        let bytes = if start == RW { RW_BYTES } else { RO_BYTES };
        let case = Case::directed(start + bytes as u64 - 128 - 16, 3, 1000);
        let interp = run(&program, &case, On::Interp);
        assert!(interp.contains("Trapped"), "{interp}");
        assert_eq!(
            interp,
            run(&program, &case, On::Jit(VectorIsa::host_best())),
            "{op} at {start:#x}"
        );
    }
}

/// A store never reuses the region hint of a load: with more loads than hints, a load of
/// a read-only region and a later store to it would otherwise share one, and the store,
/// reached in translated code after the loads' hints are warm, would write read-only
/// memory instead of faulting.
#[test]
fn a_store_to_read_only_memory_faults_after_many_loads_from_it() {
    // Each pass runs translated up to the first load whose hint is still empty, so 50
    // passes warm every hint; then the store follows in translated code.
    let mut source = String::from("    umovi u19, 50\nwarm:\n");
    for _ in 0..40 {
        source.push_str("    gload.b32 v2, v0, u[16:17], 0\n    waitcnt vm=0\n");
    }
    source.push_str(
        "    uaddi u19, u19, -1\n    bnz u19, warm\n    gstore.b32 v2, v0, u[16:17], 0\n    endpgm\n",
    );
    let program = assemble(&source);
    let case = Case::directed(RO, 5, 10_000);
    let interp = run(&program, &case, On::Interp);
    assert!(interp.contains("Trapped"), "{interp}");
    assert_eq!(
        interp,
        run(&program, &case, On::Jit(VectorIsa::host_best()))
    );
}

/// Shared memory runs translated under full and partial EXEC: a word-run store, its wait,
/// then twenty loads (word runs and, through `v1`, gathers) — more than the shared
/// counter's in-flight limit, so the limit retires the block's own oldest loads — and
/// their sum. All but the first visits run translated; both engines agree on every
/// register, count and word of shared memory.
#[test]
fn shared_memory_runs_translated() {
    let mut source = String::from(
        "    umovi u19, 100\n\
         rep:\n\
         \x20   add.vi v7, v7, 5\n\
         \x20   dsstore.b32 v7, v0, 128\n\
         \x20   waitcnt ls=0\n",
    );
    for k in 0..20 {
        let (addr, imm) = if k % 3 == 0 { (1, 0) } else { (0, 4 * k) };
        source.push_str(&format!("    dsload.b32 v{}, v{addr}, {imm}\n", 8 + k));
    }
    source.push_str("    waitcnt ls=0\n");
    for k in 0..20 {
        source.push_str(&format!("    add v6, v6, v{}\n", 8 + k));
    }
    source.push_str(
        "    uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   endpgm\n",
    );
    let program = assemble(&source);
    let reverse: [u32; LANES] = std::array::from_fn(|l| 4 * (31 - l as u32));
    for exec in [u32::MAX, 0x0f0f_1ff8] {
        let case = Case {
            exec,
            v1: reverse,
            ..Case::directed(RW, 19, 100_000)
        };
        let (interp, _) = run_counted(&program, &case, On::Interp);
        assert!(interp.contains("Ended"), "{interp}");
        for on in jits() {
            let (jit, translated) = run_counted(&program, &case, on);
            assert_eq!(interp, jit, "EXEC {exec:#x} {on:?}");
            if Engine::jit_supported() {
                // 100 iterations of 46 instructions, all but the first few steps.
                assert!(translated >= 4590, "EXEC {exec:#x}: {translated}");
            }
        }
    }
}

/// More uniform loads in one block than their counter's in-flight limit: the limit
/// retires the block's own oldest, whose registers then hold their values.
#[test]
fn uniform_loads_past_their_limit_retire_in_order() {
    let mut source = String::from("    umovi u19, 50\nrep:\n");
    for k in 0..18 {
        source.push_str(&format!("    uload.b32 u{}, u[16:17], {}\n", 32 + k, 4 * k));
    }
    source.push_str("    add.vu v6, v6, u32\n    waitcnt sm=0\n");
    for k in 0..18 {
        source.push_str(&format!("    add.vu v6, v6, u{}\n", 32 + k));
    }
    source.push_str("    uaddi u19, u19, -1\n    bnz u19, rep\n    endpgm\n");
    let program = assemble(&source);
    let case = Case::directed(RW, 23, 100_000);
    // 50 iterations of 40 instructions. Each load's first visit misses its region hint,
    // and the interpreter runs the rest of that iteration's loads.
    engines_agree_translated(&program, &case, 1800, "uniform loads");
}

/// Atomics without a returned value run translated, global and shared, under full and
/// partial EXEC, with every lane on its own word (`v0`) and with lanes colliding (`v1`:
/// all lanes on one word, so the lanes' order decides `swap`).
#[test]
fn atomics_run_translated() {
    for op in ["add", "sub", "and", "or", "xor", "swap"] {
        let source = format!(
            "    umovi u19, 100\n\
             rep:\n\
             \x20   add.vi v7, v7, 77\n\
             \x20   gatomic.{op} v7, v0, u[16:17], 0\n\
             \x20   gatomic.{op} v7, v1, u[16:17], 256\n\
             \x20   dsatomic.{op} v7, v0, 0\n\
             \x20   dsatomic.{op} v7, v1, 512\n\
             \x20   uaddi u19, u19, -1\n\
             \x20   bnz u19, rep\n\
             \x20   waitcnt vst=0, ls=0\n\
             \x20   endpgm\n"
        );
        let program = assemble(&source);
        for exec in [u32::MAX, 0xf0f0_1ff8] {
            let case = Case {
                exec,
                v1: [12; LANES],
                v7: std::array::from_fn(|l| (l as u32).wrapping_mul(0x9e37_79b9)),
                ..Case::directed(RW, 29, 100_000)
            };
            let (interp, _) = run_counted(&program, &case, On::Interp);
            assert!(interp.contains("Ended"), "{interp}");
            for on in jits() {
                let (jit, translated) = run_counted(&program, &case, on);
                assert_eq!(interp, jit, "{op} EXEC {exec:#x} {on:?}");
                if Engine::jit_supported() {
                    // 100 iterations of 7 instructions, but for the first visits.
                    assert!(translated >= 690, "{op} EXEC {exec:#x}: {translated}");
                }
            }
        }
    }
}

/// Loads stay pending across branches and EXEC writes in translated code (blocks entered
/// with them pending): each writes the lanes of EXEC at its issue when it retires, whatever
/// EXEC is then — a full-EXEC load retired under a partial EXEC writes every lane, a
/// partial-EXEC load retired under the full EXEC only its own.
#[test]
fn loads_stay_pending_across_branches_and_exec_writes() {
    let program = assemble(
        "    umovi u19, 100\n\
         rep:\n\
         \x20   exec.set u20\n\
         \x20   add.vi v4, v4, 7\n\
         \x20   gload.b32 v2, v0, u[16:17], 0\n\
         \x20   dsload.b32 v3, v0, 0\n\
         \x20   exec.set u21\n\
         \x20   gload.b32 v4, v1, u[16:17], 0\n\
         \x20   bexecz skip\n\
         \x20   add.vi v6, v6, 1\n\
         skip:\n\
         \x20   waitcnt vm=1, ls=0\n\
         \x20   exec.set u20\n\
         \x20   waitcnt vm=0\n\
         \x20   add v7, v7, v2\n\
         \x20   add v7, v7, v3\n\
         \x20   add v7, v7, v4\n\
         \x20   uaddi u16, u16, 4\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   endpgm\n",
    );
    let reverse: [u32; LANES] = std::array::from_fn(|l| 4 * (31 - l as u32));
    for exec in [0x00ff_f00f, 0] {
        let case = Case {
            exec,
            v1: reverse,
            ..Case::directed(RW, 31, 100_000)
        };
        let (interp, _) = run_counted(&program, &case, On::Interp);
        assert!(interp.contains("Ended"), "{interp}");
        for on in jits() {
            let (jit, translated) = run_counted(&program, &case, on);
            assert_eq!(interp, jit, "EXEC {exec:#x} {on:?}");
            if Engine::jit_supported() && exec != 0 {
                // 100 iterations of 17 instructions, all but the first visits.
                assert!(translated >= 1650, "EXEC {exec:#x}: {translated}");
            }
        }
    }
}

/// Stores and loads pending together at a translated block's exit reach the queue in
/// their issue order: every step limit through two iterations (the second with the region
/// hints filled) stops with a different interleaving pending.
#[test]
fn pending_stores_and_loads_reach_the_queue_in_issue_order() {
    let program = assemble(
        "    umovi u19, 3\n\
         rep:\n\
         \x20   gstore.b32 v5, v0, u[16:17], 512\n\
         \x20   gload.b32 v2, v0, u[16:17], 0\n\
         \x20   dsstore.b32 v5, v0, 0\n\
         \x20   gstore.b32 v5, v0, u[16:17], 640\n\
         \x20   dsload.b32 v6, v0, 128\n\
         \x20   gload.b32 v3, v0, u[16:17], 128\n\
         \x20   add v4, v2, v3\n\
         \x20   waitcnt vm=0, vst=0, ls=0\n\
         \x20   uaddi u19, u19, -1\n\
         \x20   bnz u19, rep\n\
         \x20   endpgm\n",
    );
    engines_agree_at_each_limit(&program, 37, 1..32, "");
}

/// A load's words are those in memory at its issue, whatever the warp writes there before
/// it retires: stores, a shared store and an atomic to the words pending loads read, in
/// the block that issued them, in the block a branch carries them to, and (the second
/// program) in an untranslated store the block leaves for with them pending. Every step
/// limit through the first iterations stops somewhere else.
#[test]
fn a_load_reads_the_words_there_at_its_issue() {
    let program = |between: &str| {
        assemble(&format!(
            "    umovi u19, 50\n\
             rep:\n\
             \x20   gload.b32 v2, v0, u[16:17], 0\n\
             \x20   dsload.b32 v3, v0, 0\n\
             \x20   add.vi v5, v5, 3\n\
             {between}\
             \x20   gstore.b32 v5, v0, u[16:17], 0\n\
             \x20   bnz u19, on\n\
             on:\n\
             \x20   dsstore.b32 v5, v0, 0\n\
             \x20   gload.b32 v4, v0, u[16:17], 128\n\
             \x20   gatomic.add v5, v0, u[16:17], 128\n\
             \x20   waitcnt vm=0, vst=0, ls=0\n\
             \x20   add v6, v6, v2\n\
             \x20   add v6, v6, v3\n\
             \x20   add v6, v6, v4\n\
             \x20   uaddi u19, u19, -1\n\
             \x20   bnz u19, rep\n\
             \x20   endpgm\n"
        ))
    };
    let untranslated = "\x20   gstore.b16 v5, v0, u[16:17], 2\n";
    // 50 iterations of 14 instructions, all but the first visits; with the untranslated
    // store, the loads before it and the block after it (8 of 15), all but the first.
    for (between, translated) in [("", 600), (untranslated, 49 * 7)] {
        let program = program(between);
        engines_agree_at_each_limit(&program, 41, 1..48, &format!("{between:?}"));
        let case = Case::directed(RW, 41, 100_000);
        engines_agree_translated(&program, &case, translated, &format!("{between:?}"));
    }
}

/// Rows a wait retires stay in registers only for the instructions right after it: a
/// store in between (which moves its row through registers too) or a second wait leaves
/// the next arithmetic reading the rows themselves. A wait retiring more rows than a
/// half's row cache has registers (ten) keeps the first eight.
#[test]
fn rows_a_wait_retires_are_reused_only_right_after_it() {
    let mut ten = String::from("    umovi u19, 20\nrep:\n");
    for k in 0..10 {
        ten.push_str(&format!(
            "    gload.b32 v{}, v0, u[16:17], {}\n",
            8 + k,
            64 * k
        ));
    }
    ten.push_str("    waitcnt vm=0\n");
    for k in 0..10 {
        ten.push_str(&format!("    add v6, v6, v{}\n", 8 + k));
    }
    ten.push_str("    gstore.b32 v6, v0, u[16:17], 640\n    uaddi u19, u19, -1\n    bnz u19, rep\n    endpgm\n");
    let program = assemble(&ten);
    // Most iterations (the first ones run where the accesses' hints miss).
    engines_agree_translated(
        &program,
        &Case::directed(RW, 47, 10_000),
        15 * 24,
        "ten loads",
    );

    for between in [
        "\x20   gstore.b32 v5, v0, u[16:17], 256\n",
        "\x20   gload.b32 v4, v0, u[16:17], 512\n\x20   waitcnt vm=0\n",
        "",
    ] {
        let program = assemble(&format!(
            "    umovi u19, 20\n\
             \x20   add.vi v5, v0, 77\n\
             rep:\n\
             \x20   gload.b32 v2, v0, u[16:17], 0\n\
             \x20   gload.b32 v3, v0, u[16:17], 128\n\
             \x20   waitcnt vm=0\n\
             {between}\
             \x20   add v6, v2, v3\n\
             \x20   sub v6, v6, v4\n\
             \x20   gstore.b32 v6, v0, u[16:17], 384\n\
             \x20   uaddi u19, u19, -1\n\
             \x20   bnz u19, rep\n\
             \x20   endpgm\n"
        ));
        // All but the first iteration (its accesses' hints miss).
        let case = Case::directed(RW, 43, 10_000);
        engines_agree_translated(&program, &case, 19 * 8, &format!("{between:?}"));
    }
}
