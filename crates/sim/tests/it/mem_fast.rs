//! The fast paths of the memory instructions (the word run of `gload.b32`, `gstore.b32`,
//! `dsload.b32` and `dsstore.b32`, and the one-region path of the others) give exactly what
//! the lane-by-lane path gives. While hooks observe a warp every memory instruction takes
//! the lane-by-lane path (it logs each lane), so the same instruction is run on the same
//! state once without hooks and once under a hook that only observes, and everything is
//! compared: registers, pending write-backs, memory, traps (cause, PC, info, fault address),
//! hazard reports and the state dump. Addresses are drawn to hit both sides of every check
//! of the fast paths: consecutive, strided, repeated and scattered lanes, misaligned lanes,
//! runs straddling a buffer's end (into unmapped memory and into an adjacent buffer),
//! partially out of bounds, wrapping the address space, a read-only buffer, shared memory
//! never written, and partial EXEC.

use proptest::prelude::*;
use warpkit_sim::hooks::Hooks;
use warpkit_sim::memory::{GlobalMemory, SharedMemory};
use warpkit_sim::*;

/// Observes every instruction and changes nothing: the run loop then logs memory accesses,
/// which sends every memory instruction down the lane-by-lane path.
struct Observe;

impl Hooks for Observe {
    const ENABLED: bool = true;
}

fn program(src: &str) -> Program {
    match warpkit_asm::assemble(src, "mem_fast.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

/// Buffer A (writable, `a_len` bytes, not always whole words), buffer B mapped right after
/// A's last word, and read-only buffer C.
const A: u64 = 0x1_0000;
const C: u64 = 0x4_0000;
const B_LEN: u64 = 96;
const C_LEN: u64 = 256;

fn b_base(a_len: u64) -> u64 {
    A + a_len.div_ceil(4) * 4
}

#[derive(Debug, Clone)]
struct Case {
    /// The instruction, with v1 the lane offsets, v2 the store data, v8 the load target
    /// and u[4:5] the base.
    inst: &'static str,
    a_len: u64,
    shared_len: u32,
    /// Whether shared memory has been written before (else it reads 0 unallocated).
    shared_written: bool,
    base: u64,
    offsets: [u32; 32],
    exec: u32,
    /// Read v8 before the `waitcnt`: a RAW hazard while the load is pending.
    hazard: bool,
    seed: u32,
}

const INSTS: &[&str] = &[
    "gload.b32 v8, v1, u[4:5], IMM",
    "gstore.b32 v2, v1, u[4:5], IMM",
    "dsload.b32 v8, v1, IMM",
    "dsstore.b32 v2, v1, IMM",
    "gload.b32 v8, v1, u[4:5], IMM",
    "gstore.b32 v2, v1, u[4:5], IMM",
    "dsload.b32 v8, v1, IMM",
    "dsstore.b32 v2, v1, IMM",
    "gload.u8 v8, v1, u[4:5], IMM",
    "gload.i16 v8, v1, u[4:5], IMM",
    "gload.b64 v[8:9], v1, u[4:5], IMM",
    "gstore.b8 v2, v1, u[4:5], IMM",
    "gstore.b64 v[2:3], v1, u[4:5], IMM",
    "dsload.u16 v8, v1, IMM",
    "dsstore.b16 v2, v1, IMM",
    "gatomic.add.rtn v8, v1, u[4:5], IMM",
];

fn lanes(first: u32, pattern: u8, seed: u32) -> [u32; 32] {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut o = [0u32; 32];
    for (l, v) in o.iter_mut().enumerate() {
        let l = l as u32;
        *v = match pattern {
            // Consecutive words (the word run), most of the time.
            0..=5 => first.wrapping_add(4 * l),
            // Consecutive but one lane moved.
            6 => first.wrapping_add(4 * l) ^ if l == seed % 32 { 4 << (seed % 5) } else { 0 },
            // Strides: repeated, descending, sub-word, wider.
            7 => first,
            8 => first.wrapping_sub(4 * l),
            9 => first.wrapping_add(2 * l),
            10 => first.wrapping_add(l),
            11 => first.wrapping_add(8 * l),
            // Consecutive from a misaligned start.
            12 => first.wrapping_add(4 * l) | 1,
            13 => first.wrapping_add(4 * l) | 2,
            // Scattered inside 512 bytes.
            _ => first.wrapping_add((next() % 512) & !3),
        };
    }
    o
}

fn case() -> impl Strategy<Value = Case> {
    (
        (0..INSTS.len(), 0u64..700, 0u32..1100, any::<bool>(), 0u8..9),
        (
            0i64..1200,
            0u8..16,
            0u8..4,
            any::<u32>(),
            any::<bool>(),
            -8i32..8,
        ),
    )
        .prop_map(
            |(
                (inst, a_len, shared_len, shared_written, base_kind),
                (first, pattern, exec_kind, seed, hazard, imm),
            )| {
                let a_len = if a_len < 8 { 0 } else { a_len };
                let base = match base_kind {
                    0..=2 => A,
                    3 => b_base(a_len.max(4)),
                    4 => C,
                    5 => 0,
                    // Wraps: `base + offset` crosses 2^64.
                    6 => u64::MAX - 63,
                    // With offsets near 2^32 (below), lanes whose 32-bit offset wraps
                    // land 4 GiB below their neighbours.
                    7 => (A + 256).wrapping_sub(1 << 32),
                    _ => A + 64,
                };
                // Mostly near the end of A or of shared memory (to straddle it), otherwise anywhere
                // close.
                let first = if base_kind == 7 {
                    0u32.wrapping_sub(4 * (1 + first as u32 % 40))
                } else if first < 300 {
                    // A run ending within 16 bytes of the end of the space it addresses.
                    let space = if INSTS[inst].starts_with("ds") {
                        i64::from(shared_len)
                    } else {
                        a_len as i64
                    };
                    (space - 128 + 4 * (first % 9 - 4)).max(0) as u32
                } else if first < 600 {
                    (a_len as i64 - first / 4 * 4 + i64::from(imm) * 4).max(0) as u32
                } else if first < 1150 {
                    (first - 600) as u32
                } else {
                    // Just below 2^32: the 32-bit lane offsets wrap.
                    0u32.wrapping_sub(4 * (first - 1150) as u32)
                };
                let exec = match exec_kind {
                    0 | 1 => u32::MAX,
                    2 => !(1 << (seed % 32)),
                    _ => seed,
                };
                Case {
                    inst: INSTS[inst],
                    a_len,
                    shared_len,
                    shared_written,
                    base,
                    offsets: lanes(first, pattern, seed),
                    exec,
                    hazard,
                    seed,
                }
            },
        )
}

/// Everything a run leaves that can be observed.
#[derive(Debug, PartialEq)]
struct Outcome {
    v: Vec<[u32; 32]>,
    u: Vec<u32>,
    pending: Vec<PendingOp>,
    status: WarpStatus,
    pc: u32,
    fault_address: Option<(u64, u32)>,
    hazards: Vec<Hazard>,
    hazard_count: u64,
    lane_ops: u64,
    dump: String,
    a: Option<Vec<u8>>,
    b: Option<Vec<u8>>,
    c: Option<Vec<u8>>,
    shared: Vec<Option<u32>>,
}

fn run<H: Hooks>(case: &Case, imm: i32, steps: u64, hooks: &mut H) -> Outcome {
    let mut src = format!("{}\n", case.inst.replace("IMM", &imm.to_string()).as_str());
    if case.hazard {
        src.push_str("add v10, v8, v8\n");
    }
    src.push_str("waitcnt vm=0, vst=0, ls=0\nadd v11, v8, v1\nendpgm\n");
    let prog = program(&src);
    let mut global = GlobalMemory::default();
    let fill = |n: u64, k: u32| -> Vec<u8> {
        (0..n as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) ^ k) as u8)
            .collect()
    };
    if case.a_len > 0 {
        assert!(global.map(A, &fill(case.a_len, 1)));
    }
    assert!(global.map(b_base(case.a_len.max(4)), &fill(B_LEN, 2)));
    assert!(global.map_read_only(C, &fill(C_LEN, 3)));
    let mut shared = SharedMemory::new(case.shared_len);
    let mut core = Core::default();
    if case.shared_written && case.shared_len >= 4 {
        // Fill shared memory through a warp of its own (the only way in).
        let fill_src = "sll.vi v1, v0, 2\nmul.vi v2, v0, 73\nadd.vi v2, v2, 7\n\
                        dsstore.b32 v2, v1, 0\nwaitcnt ls=0\nendpgm\n";
        let p = program(fill_src);
        let words = case.shared_len / 4;
        let exec = if words >= 32 {
            u32::MAX
        } else {
            (1 << words) - 1
        };
        let mut w = Warp::new(WarpId::default(), exec);
        for l in 0..32 {
            w.v[0][l] = l as u32;
        }
        let mut env = MemEnv::new(&global, &mut shared);
        w.run(&p, &mut core, &mut env, &mut warpkit_sim::NoHooks, 100);
        assert_eq!(w.status, WarpStatus::Ended);
    }
    let mut w = Warp::new(WarpId::default(), case.exec);
    w.u[4] = case.base as u32;
    w.u[5] = (case.base >> 32) as u32;
    for l in 0..32 {
        w.v[1][l] = case.offsets[l];
        w.v[2][l] = case.seed.rotate_left(l as u32) ^ 0x5a5a_0000;
        w.v[3][l] = !w.v[2][l];
        w.v[8][l] = 0xdead_0000 | l as u32;
        w.v[9][l] = 0xbeef_0000 | l as u32;
    }
    let mut env = MemEnv::new(&global, &mut shared);
    w.run(&prog, &mut core, &mut env, hooks, steps);
    let shared_words = (0..u64::from(case.shared_len).div_ceil(4))
        .map(|i| shared.word(i))
        .collect();
    Outcome {
        v: w.v.iter().take(16).copied().collect(),
        u: w.u[0..8].to_vec(),
        pending: w.queue.ops().collect(),
        status: w.status,
        pc: w.pc,
        fault_address: w.fault_address,
        hazards: w.hazards.clone(),
        hazard_count: w.hazard_count,
        lane_ops: w.lane_ops,
        dump: dump_state_json([&w], &core),
        a: global.bytes_at(A),
        b: global.bytes_at(b_base(case.a_len.max(4))),
        c: global.bytes_at(C),
        shared: shared_words,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn fast_paths_equal_the_lane_by_lane_path(case in case(), imm in -8i32..8) {
        let imm = imm * 4 + if case.seed % 7 == 0 { 2 } else { 0 };
        // After the memory instruction alone (its write-back pending), and to the end.
        for steps in [1, 100] {
            let fast = run(&case, imm, steps, &mut warpkit_sim::NoHooks);
            let slow = run(&case, imm, steps, &mut Observe);
            prop_assert_eq!(fast, slow, "steps {}", steps);
        }
    }
}

/// A consecutive run in bounds, in each space, with and without a pending-load hazard:
/// completes without a trap and equals the lane-by-lane result (so the property above
/// does not pass only by trapping on both sides).
#[test]
fn consecutive_runs_in_every_space() {
    for inst in &INSTS[..4] {
        for base in [A, A + 64] {
            let case = Case {
                inst,
                a_len: 512,
                shared_len: 512,
                shared_written: true,
                base,
                offsets: lanes(128, 0, 1),
                exec: u32::MAX,
                hazard: true,
                seed: 1,
            };
            let fast = run(&case, 4, 100, &mut warpkit_sim::NoHooks);
            let slow = run(&case, 4, 100, &mut Observe);
            assert_eq!(fast.status, WarpStatus::Ended, "{inst}");
            assert_eq!(fast, slow, "{inst}");
        }
    }
}

/// Every start of a consecutive run around the end of each space (every byte alignment,
/// ending from 12 bytes inside to 12 bytes past the end), for each word-run instruction,
/// base buffer (A, the adjacent B, read-only C) and a few lengths, EXEC full or not.
#[test]
fn runs_around_the_end_of_each_space() {
    for inst in &INSTS[..4] {
        let shared = inst.starts_with("ds");
        for len in [128u64, 130, 256, 300] {
            for base_kind in 0..3 {
                let base = [A, b_base(len), C][base_kind];
                let space = match (shared, base_kind) {
                    (true, _) => len,
                    (false, 0) => len,
                    (false, 1) => B_LEN,
                    (false, _) => C_LEN,
                };
                for d in -12i64..=12 {
                    for exec in [u32::MAX, u32::MAX >> 1] {
                        let first = (space as i64 - 128 + d).max(0) as u32;
                        let case = Case {
                            inst,
                            a_len: len,
                            shared_len: len as u32,
                            shared_written: d % 2 == 0,
                            base,
                            offsets: lanes(first, 0, 1),
                            exec,
                            hazard: d % 3 == 0,
                            seed: 1,
                        };
                        for steps in [1, 100] {
                            let fast = run(&case, 0, steps, &mut warpkit_sim::NoHooks);
                            let slow = run(&case, 0, steps, &mut Observe);
                            assert_eq!(fast, slow, "{case:?} steps {steps}");
                        }
                    }
                }
            }
        }
    }
}
