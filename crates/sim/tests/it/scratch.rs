//! Per-lane scratch memory (docs/abi.md, "Scratch memory"): every warp's own region at a
//! fixed address, reached by the global-memory instructions, zero at the start of its
//! workgroup, isolated from other workgroups, the same on both engines and every host
//! thread count, kept by checkpoints and seen by the trace.

use crate::common::{jits, On};
use warpkit_sim::launch::checkpoint::Checkpoint;
use warpkit_sim::launch::*;
use warpkit_sim::trap::{CAUSE_ACCESS_FAULT, CAUSE_MISALIGNED};
use warpkit_sim::*;

fn program(src: &str) -> Program {
    match warpkit_asm::assemble(src, "scratch.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

fn words(bytes: impl AsRef<[u8]>) -> Vec<u32> {
    bytes
        .as_ref()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Each lane keeps 16 four-byte slots (64 bytes per lane), slot `s` at
/// `base + 128*s + 4*lane`, and writes what it read back to `out`, 8 words per thread:
/// slot 0 (value), slot 1 (3 * value, then + value by an atomic), slot 15 (3 * value,
/// through the 64-bit address form), slot 15 as it was before anything was written,
/// `scratch_lo`, `scratch_hi`, `scratch_size`, and lane 1's slot 0 through a uniform load.
/// `value` is the workgroup's flat id << 16 | the flat thread id. Launch: block (96,1,1)
/// (3 warps), `scratch_bytes` 64.
const SLOTS: &str = "
    uload.b64  u[16:17], u[0:1], 0      // out
    waitcnt    sm=0
    csrr       u20, scratch_lo
    csrr       u21, scratch_hi
    csrr       u22, scratch_size
    laneid     v4
    sll.vi     v4, v4, 2                // 4 * lane
    gload.b32  v10, v4, u[20:21], 1920  // slot 15, not written yet
    uslli      u23, u12, 16
    add.vu     v5, v3, u23              // value
    gstore.b32 v5, v4, u[20:21], 0      // slot 0
    mul.vi     v6, v5, 3
    gstore.b32 v6, v4, u[20:21], 128    // slot 1
    mov64.vu   v[12:13], u[20:21]
    addzx64    v[12:13], v[12:13], v4   // the address of this lane's slot 0
    gstore.b32.a64 v6, v[12:13], 1920   // slot 15
    gatomic.add v5, v4, u[20:21], 128   // slot 1 += value
    gload.b32  v7, v4, u[20:21], 0
    gload.b32  v8, v4, u[20:21], 128
    gload.b32.a64 v9, v[12:13], 1920
    uload.b32  u24, u[20:21], 4         // lane 1's slot 0
    waitcnt    vm=0, sm=0
    umul       u25, u12, u8
    add.vu     v14, v3, u25             // the thread's index in the grid
    sll.vi     v14, v14, 5              // 32 bytes per thread
    gstore.b32 v7, v14, u[16:17], 0
    gstore.b32 v8, v14, u[16:17], 4
    gstore.b32 v9, v14, u[16:17], 8
    gstore.b32 v10, v14, u[16:17], 12
    mov.vu     v15, u20
    gstore.b32 v15, v14, u[16:17], 16
    mov.vu     v15, u21
    gstore.b32 v15, v14, u[16:17], 20
    mov.vu     v15, u22
    gstore.b32 v15, v14, u[16:17], 24
    mov.vu     v15, u24
    gstore.b32 v15, v14, u[16:17], 28
    endpgm
";

const GROUPS: u32 = 5;
const BLOCK: u32 = 96;

fn slots_config(threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid: [GROUPS, 1, 1],
        block: [BLOCK, 1, 1],
        scratch_bytes: 64,
        threads,
        keep_warps: true,
        ..LaunchConfig::default()
    }
}

fn slots_args() -> Vec<Arg> {
    vec![Arg {
        name: "out".into(),
        value: ArgValue::Buffer(vec![0; (GROUPS * BLOCK * 32) as usize]),
    }]
}

/// What the SLOTS kernel must write for thread `t` of the grid.
fn expected(t: u32) -> [u32; 8] {
    let (wg, flat) = (t / BLOCK, t % BLOCK);
    let value = wg << 16 | flat;
    let base = SCRATCH_BASE
        + u64::from(wg) * SCRATCH_WORKGROUP_STRIDE
        + u64::from(flat / 32) * SCRATCH_WARP_STRIDE;
    let lane1 = wg << 16 | (flat & !31) | 1;
    [
        value,
        value.wrapping_mul(4),
        value.wrapping_mul(3),
        0,
        base as u32,
        (base >> 32) as u32,
        64,
        lane1,
    ]
}

#[test]
fn every_lane_writes_and_reads_back_its_own_slots() {
    let r = launch(&program(SLOTS), &slots_config(2), slots_args()).unwrap();
    assert!(r.ok(), "{:?}", r.traps);
    assert!(r.hazards.is_empty(), "{:?}", r.hazards);
    let out = words(r.buffer("out").unwrap());
    for t in 0..GROUPS * BLOCK {
        let at = 8 * t as usize;
        assert_eq!(out[at..at + 8], expected(t), "thread {t}");
    }
    // The CSRs as a dump shows them: warp 1 of workgroup 3.
    let w = &r.warps[3 * 3 + 1];
    let base = SCRATCH_BASE + 3 * (1 << 30) + (1 << 25);
    assert_eq!(w.csr.scratch_lo(), base as u32);
    assert_eq!(w.csr.scratch_hi(), (base >> 32) as u32);
    assert_eq!(w.csr.scratch_size(), 64);
    let dump = dump_states_json(r.warps.iter().zip(&r.cores));
    let one = dump.split("{\"workgroup\"").nth(3 * 3 + 2).unwrap();
    for (name, value) in [
        ("scratch_lo", base & 0xffff_ffff),
        ("scratch_hi", base >> 32),
        ("scratch_size", 64),
    ] {
        assert!(
            one.contains(&format!("\"{name}\":{value},")),
            "{name}: {one}"
        );
    }
}

#[test]
fn without_scratch_the_csrs_read_zero_and_nothing_is_mapped() {
    let r = launch(
        &program(SLOTS),
        &LaunchConfig {
            scratch_bytes: 0,
            ..slots_config(1)
        },
        slots_args(),
    )
    .unwrap();
    let t = &r.traps[0];
    // The first scratch access: `gload.b32 v10, v4, u[20:21], 1920` with u[20:21] = 0.
    assert_eq!(t.trap.cause, CAUSE_ACCESS_FAULT);
    assert_eq!(t.address, Some((1920, 0)));
    assert!(r
        .warps
        .iter()
        .all(|w| w.csr.scratch_lo() == 0 && w.csr.scratch_hi() == 0 && w.csr.scratch_size() == 0));
}

/// The final state of a launch as the engines and thread counts must agree on it.
fn outcome(r: &LaunchResult) -> String {
    format!(
        "{:?}\n{:?}\n{}\n{}",
        r.buffer("out"),
        r.traps,
        dump_states_json(r.warps.iter().zip(&r.cores)),
        r.stats.instructions
    )
}

#[test]
fn engines_and_host_threads_agree() {
    let p = program(SLOTS);
    let reference =
        outcome(&launch(&On::Interp.program(&p), &slots_config(1), slots_args()).unwrap());
    for on in [On::Interp].into_iter().chain(jits()) {
        for threads in [1, 2, 4] {
            let r = launch(&on.program(&p), &slots_config(threads), slots_args()).unwrap();
            assert!(r.ok());
            assert_eq!(outcome(&r), reference, "{on:?} threads {threads}");
        }
    }
}

/// Runs `src` as workgroups of `block` threads with 64 bytes of scratch per lane; the
/// reports of its traps.
fn traps(src: &str, grid: u32, block: u32, on: On) -> Vec<TrapReport> {
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        scratch_bytes: 64,
        threads: 1,
        ..LaunchConfig::default()
    };
    launch(&on.program(&program(src)), &cfg, vec![])
        .unwrap()
        .traps
}

const PROLOGUE: &str = "
    csrr       u20, scratch_lo
    csrr       u21, scratch_hi
    laneid     v4
    sll.vi     v4, v4, 2
";

#[test]
fn accesses_outside_the_region_or_misaligned_trap() {
    let base = SCRATCH_BASE;
    // (instruction, cause, the faulting address)
    let cases = [
        // The first byte past the region (32 lanes * 64 bytes): lane 0 of slot 16.
        (
            "gload.b32  v7, v4, u[20:21], 2048",
            CAUSE_ACCESS_FAULT,
            base + 2048,
        ),
        (
            "gstore.b32 v4, v4, u[20:21], 2048",
            CAUSE_ACCESS_FAULT,
            base + 2048,
        ),
        (
            "gatomic.add v4, v4, u[20:21], 2048",
            CAUSE_ACCESS_FAULT,
            base + 2048,
        ),
        // An 8-byte access over the region's last 4 bytes: reported at its start (lane 31).
        (
            "gload.b64  v[8:9], v4, u[20:21], 1920",
            CAUSE_ACCESS_FAULT,
            base + 1920 + 124,
        ),
        (
            "uload.b64  u[8:9], u[20:21], 2044",
            CAUSE_ACCESS_FAULT,
            base + 2044,
        ),
        // Before the region.
        (
            "gload.b32  v7, v4, u[20:21], -4",
            CAUSE_ACCESS_FAULT,
            base - 4,
        ),
        ("gload.b32  v7, v4, u[20:21], 2", CAUSE_MISALIGNED, base + 2),
        ("gstore.b16 v4, v4, u[20:21], 1", CAUSE_MISALIGNED, base + 1),
        ("uload.b32  u8, u[20:21], 2", CAUSE_MISALIGNED, base + 2),
        (
            "gatomic.add v4, v4, u[20:21], 2",
            CAUSE_MISALIGNED,
            base + 2,
        ),
    ];
    for on in [On::Interp].into_iter().chain(jits()) {
        for (insn, cause, addr) in cases {
            let t = traps(
                &format!("{PROLOGUE}{insn}\nwaitcnt vm=0, sm=0\nendpgm\n"),
                1,
                32,
                on,
            );
            assert_eq!(t.len(), 1, "{insn}");
            assert_eq!(
                (t[0].trap.cause, t[0].trap.info, t[0].address.map(|a| a.0)),
                (cause, addr as u32, Some(addr)),
                "{insn} {on:?}"
            );
        }
    }
}

#[test]
fn every_width_and_form_reaches_scratch() {
    let src = format!(
        "{PROLOGUE}
    uload.b64  u[16:17], u[0:1], 0
    waitcnt    sm=0
    laneid     v5
    add.vi     v6, v5, 100
    add.vi     v7, v5, 110
    add.vi     v8, v5, 120
    sll.vi     v10, v4, 2               // 16 * lane
    gstore.b128 v[5:8], v10, u[20:21], 0
    gstore.b8  v5, v5, u[20:21], 1536   // byte `lane` of bytes 1536..1568
    gstore.b16 v7, v4, u[20:21], 1794   // the high half of slot 14
    gload.b128 v[20:23], v10, u[20:21], 0
    gload.u8   v24, v5, u[20:21], 1536
    gload.i16  v25, v4, u[20:21], 1794
    mov64.vu   v[12:13], u[20:21]
    addzx64    v[12:13], v[12:13], v10
    gload.b64.a64 v[26:27], v[12:13], 8
    add.vi     v28, v5, 1
    gatomic.add.rtn v28, v4, u[20:21], 1920 // slot 15: 0 + lane + 1
    waitcnt    vm=0
    add.vi     v29, v5, 1
    gatomic.add.rtn v29, v4, u[20:21], 1920 // slot 15: 2 * (lane + 1)
    gload.b32  v30, v4, u[20:21], 1920
    waitcnt    vm=0, vst=0
    sll.vi     v14, v5, 6
    gstore.b128 v[20:23], v14, u[16:17], 0
    gstore.b32 v24, v14, u[16:17], 16
    gstore.b32 v25, v14, u[16:17], 20
    gstore.b64 v[26:27], v14, u[16:17], 24
    gstore.b64 v[28:29], v14, u[16:17], 32
    gstore.b32 v30, v14, u[16:17], 40
    endpgm
"
    );
    let p = program(&src);
    for on in [On::Interp].into_iter().chain(jits()) {
        let cfg = LaunchConfig {
            scratch_bytes: 64,
            ..LaunchConfig::default()
        };
        let out = Arg {
            name: "out".into(),
            value: ArgValue::Buffer(vec![0; 32 * 64]),
        };
        let r = launch(&on.program(&p), &cfg, vec![out]).unwrap();
        assert!(r.ok(), "{:?}", r.traps);
        let out = words(r.buffer("out").unwrap());
        for l in 0..32u32 {
            let o = &out[16 * l as usize..16 * l as usize + 11];
            assert_eq!(o[..4], [l, l + 100, l + 110, l + 120], "b128, lane {l}");
            assert_eq!(o[4], l, "u8, lane {l}");
            assert_eq!(o[5], l + 110, "i16, lane {l}");
            assert_eq!(o[6..8], [l + 110, l + 120], "b64.a64, lane {l}");
            assert_eq!(o[8..11], [0, l + 1, 2 * (l + 1)], "atomics, lane {l}");
        }
    }
}

/// Workgroup 0 reads its own scratch three times (warming translated code's region hint
/// for the load); every later workgroup runs the same load on its predecessor's region,
/// released when that workgroup ended: an access fault, on both engines, also when the
/// translated load's hint named that region (the workgroups of one host thread's task
/// share translated code's state).
const NEIGHBOUR: &str = "
    csrr       u20, scratch_lo
    csrr       u21, scratch_hi
    laneid     v4
    sll.vi     v4, v4, 2
    umov64     u[26:27], u[20:21]
    bz         u12, own
    umovi      u28, 1
    uslli      u28, u28, 30
    umovi      u29, 0
    usub64     u[26:27], u[26:27], u[28:29] // the previous workgroup's region
own:
    umovi      u19, 3
again:
    gload.b32  v7, v4, u[26:27], 0
    waitcnt    vm=0
    uaddi      u19, u19, -1
    bnz        u19, again
    endpgm
";

#[test]
fn a_workgroup_cannot_reach_another_ones_scratch() {
    for on in [On::Interp].into_iter().chain(jits()) {
        let t = traps(NEIGHBOUR, 64, 32, on);
        let faulted: Vec<u32> = t.iter().map(|t| t.workgroup[0]).collect();
        assert_eq!(faulted, (1..64).collect::<Vec<_>>(), "{on:?}");
        for (k, t) in (1..).zip(&t) {
            assert_eq!(t.workgroup, [k, 0, 0]);
            assert_eq!(t.trap.cause, CAUSE_ACCESS_FAULT);
            let prev = SCRATCH_BASE + u64::from(k - 1) * SCRATCH_WORKGROUP_STRIDE;
            assert_eq!(t.address, Some((prev, 0)), "{on:?}");
        }
    }
}

/// Warp 1 writes its slot 0, then after a barrier warp 0 reads it: a warp may reach its
/// siblings' regions, and the barrier orders them as it orders global memory.
#[test]
fn warps_of_one_workgroup_reach_each_others_regions() {
    let src = format!(
        "{PROLOGUE}
    uload.b64  u[16:17], u[0:1], 0
    waitcnt    sm=0
    bz         u29, reader
    add.vi     v5, v4, 7
    gstore.b32 v5, v4, u[20:21], 0
    waitcnt    vst=0
    barrier
    endpgm
reader:
    barrier
    umovi      u28, 512
    uslli      u28, u28, 16             // 2^25: the next warp's region
    uadd       u20, u20, u28
    gload.b32  v5, v4, u[20:21], 0
    waitcnt    vm=0
    gstore.b32 v5, v4, u[16:17], 0
    endpgm
"
    );
    for on in [On::Interp].into_iter().chain(jits()) {
        let cfg = LaunchConfig {
            block: [64, 1, 1],
            scratch_bytes: 4,
            ..LaunchConfig::default()
        };
        let out = Arg {
            name: "out".into(),
            value: ArgValue::Buffer(vec![0; 128]),
        };
        let r = launch(&on.program(&program(&src)), &cfg, vec![out]).unwrap();
        assert!(r.ok(), "{:?}", r.traps);
        let expect: Vec<u32> = (0..32).map(|l| 4 * l + 7).collect();
        assert_eq!(words(r.buffer("out").unwrap()), expect, "{on:?}");
    }
}

/// Stores to scratch are in the commit trace with their global addresses; `uload` and
/// the `.a64` form too.
#[test]
fn the_trace_records_scratch_accesses() {
    let mut tracer = VecTracer::default();
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        ..slots_config(1)
    };
    let r = launch_with_tracer(&program(SLOTS), &cfg, slots_args(), &mut tracer).unwrap();
    assert!(r.ok());
    let base = SCRATCH_BASE + SCRATCH_WORKGROUP_STRIDE; // workgroup 1, warp 0
    let commit = |asm: &str| {
        tracer
            .commits
            .iter()
            .find(|c| c.workgroup == [1, 0, 0] && c.warp == 0 && c.asm.starts_with(asm))
            .unwrap_or_else(|| panic!("no {asm}"))
    };
    let store = &commit("gstore.b32 v5, v4, u[20:21], 0").mem[0];
    assert_eq!(store.kind, hooks::MemKind::Store);
    assert_eq!(store.space, hooks::MemSpace::Global);
    let lanes: Vec<(u32, u64, u32)> = store
        .lanes
        .iter()
        .map(|l| (l.lane, l.addr, l.data[0]))
        .collect();
    let expect: Vec<(u32, u64, u32)> = (0..32)
        .map(|l| (l, base + 4 * u64::from(l), 1 << 16 | l))
        .collect();
    assert_eq!(lanes, expect);
    let a64 = &commit("gstore.b32.a64").mem[0];
    assert_eq!(a64.lanes[3].addr, base + 1920 + 12);
    let atomic = &commit("gatomic.add").mem[0];
    assert_eq!(
        (atomic.lanes[2].old, atomic.lanes[2].data[0]),
        (Some(3 * (1 << 16 | 2)), 4 * (1 << 16 | 2))
    );
    let uload = &commit("uload.b32 u24").mem[0];
    assert_eq!(
        (uload.lanes[0].addr, uload.lanes[0].data[0]),
        (base + 4, 1 << 16 | 1)
    );
    // A traced run gives what a plain one gives.
    let plain = launch(&program(SLOTS), &cfg, slots_args()).unwrap();
    assert_eq!(outcome(&r), outcome(&plain));
}

/// Stopped at every few steps of the grid, saved, decoded and resumed, the run ends as it
/// would have without stopping, and the running workgroup's scratch comes back.
#[test]
fn checkpoints_keep_the_running_workgroups_scratch() {
    let p = program(SLOTS);
    let cfg = slots_config(1);
    let whole = outcome(&launch(&p, &cfg, slots_args()).unwrap());
    let mut live = 0;
    for cut in (1..260).step_by(7) {
        let mut s = Session::new(&p, &cfg, slots_args()).unwrap();
        s.run_to_step(cut, &mut NoHooks);
        let before = s.scratch().map(|m| {
            let mut w = [0u32];
            m.read(m.base() + 4 * 5, 4, &mut w).map(|()| w[0])
        });
        let bytes = s.checkpoint();
        let c = Checkpoint::decode(&bytes).unwrap();
        assert_eq!(c.config().scratch_bytes, 64);
        let program = c.program();
        let mut resumed = Session::resume(&program, c).unwrap();
        let after = resumed.scratch().map(|m| {
            let mut w = [0u32];
            m.read(m.base() + 4 * 5, 4, &mut w).map(|()| w[0])
        });
        assert_eq!(before, after, "cut {cut}");
        if matches!(after, Some(Ok(x)) if x != 0) {
            live += 1;
        }
        resumed.set_threads(2);
        let r = resumed
            .finish_parallel(&std::sync::atomic::AtomicU64::new(0))
            .unwrap();
        assert_eq!(outcome(&r), whole, "cut {cut}");
    }
    assert!(live > 5, "only {live} cuts had scratch data to keep");
}

#[test]
fn the_scratch_size_is_checked() {
    for bytes in [MAX_SCRATCH_BYTES + 4, 6, u32::MAX] {
        let cfg = LaunchConfig {
            scratch_bytes: bytes,
            ..LaunchConfig::default()
        };
        assert_eq!(
            launch(&program("endpgm"), &cfg, vec![]).err(),
            Some(LaunchError::BadScratch(bytes))
        );
    }
    let cfg = LaunchConfig {
        scratch_bytes: MAX_SCRATCH_BYTES,
        block: [1024, 1, 1],
        ..LaunchConfig::default()
    };
    assert_eq!(scratch_bytes_per_workgroup(&cfg), 1 << 30);
    // The largest scratch: allocated as zeroed memory, so only what is touched is used.
    let src = format!("{PROLOGUE}gstore.b32 v4, v4, u[20:21], 0x7fff80\nendpgm\n");
    let r = launch(&program(&src), &cfg, vec![]).unwrap();
    assert!(r.ok(), "{:?}", r.traps);
}
