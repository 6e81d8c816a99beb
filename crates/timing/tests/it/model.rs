//! Small kernels whose cycles follow from the machine by hand.

use crate::common::{arg, program, time, time_config};
use warpkit_sim::launch::{ArgValue, LaunchConfig};
use warpkit_timing::{launch_timed, Machine, TimingError, TimingOptions};

/// `n` instructions, each reading the previous one's result.
fn chain(n: usize) -> String {
    "add v4, v4, v4\n".repeat(n) + "endpgm\n"
}

#[test]
fn a_dependent_chain_costs_its_latency_per_instruction() {
    let m = Machine::default();
    let n = 20;
    let a = time(&chain(n), 32, vec![], &m);
    let b = time(&chain(2 * n), 32, vec![], &m);
    // `add` is fixed:4 in the database.
    assert_eq!(b.cycles - a.cycles, 4 * n as u64);
    // Issues at 0, 4, ..., 4(n - 1); endpgm the cycle after the last; done a cycle later.
    assert_eq!(a.cycles, 4 * (n as u64 - 1) + 2);
    assert_eq!(a.instructions, n as u64 + 1);
    assert_eq!(a.stalls["dependency"], 3 * (n as u64 - 1));
    // The dependency stalls belong to the adds waiting for their operand.
    let waiting: u64 = a
        .pcs
        .iter()
        .filter_map(|p| p.stalls.get("dependency"))
        .sum();
    assert_eq!(waiting, a.stalls["dependency"]);

    // A mnemonic's latency wins over the database's.
    let mut m7 = Machine::default();
    m7.latency.insert("add".into(), 7);
    let a7 = time(&chain(n), 32, vec![], &m7);
    let b7 = time(&chain(2 * n), 32, vec![], &m7);
    assert_eq!(b7.cycles - a7.cycles, 7 * n as u64);
    // So does a class's.
    let mut c9 = Machine::default();
    c9.units.valu.latency = Some(9);
    let a9 = time(&chain(n), 32, vec![], &c9);
    let b9 = time(&chain(2 * n), 32, vec![], &c9);
    assert_eq!(b9.cycles - a9.cycles, 9 * n as u64);
}

#[test]
fn independent_instructions_issue_one_per_cycle() {
    let n = 60;
    let src: String = (0..n)
        .map(|i| format!("add v{}, v1, v2\n", 10 + i))
        .collect::<String>()
        + "endpgm\n";
    let r = time(&src, 32, vec![], &Machine::default());
    assert_eq!(r.cycles, n + 1);
    assert_eq!(r.stalls["issued"], n + 1);
    assert_eq!(r.stalls["dependency"], 0);
    // A VALU busy 3 cycles per instruction, one of it: one issue every 3 cycles.
    let mut slow = Machine::default();
    slow.units.valu.count = 1;
    slow.units.valu.interval = 3;
    let s = time(&src, 32, vec![], &slow);
    assert_eq!(s.cycles, 3 * (n - 1) + 2);
    assert_eq!(s.stalls["unit_busy"], 2 * (n - 1));
    assert_eq!(s.units[0].busy.valu, 3 * n);
}

/// Loads the argument block (a uniform load), stores to the buffer (an L2 write-allocate
/// from DRAM), loads it back (an L2 hit: stores do not allocate in the L1) and again (an
/// L1 hit), waiting for each.
const LEVELS: &str = "
    uload.b64  u[16:17], u[0:1], 0
    waitcnt    sm=0
    gstore.b32 v6, v4, u[16:17], 0
    waitcnt    vst=0
    gload.b32  v7, v4, u[16:17], 0
    waitcnt    vm=0
    gload.b32  v8, v4, u[16:17], 0
    waitcnt    vm=0
    endpgm
";

#[test]
fn a_load_chain_shows_each_level_s_latency() {
    let mut other = Machine::default();
    other.l1.hit_latency = 11;
    other.l2.hit_latency = 57;
    other.dram.latency = 301;
    for m in [Machine::default(), other] {
        let args = vec![arg("buf", ArgValue::Buffer(vec![0; 4096]))];
        let r = time(LEVELS, 32, args, &m);
        let (l1, l2, dram) = (
            u64::from(m.l1.hit_latency),
            u64::from(m.l2.hit_latency),
            u64::from(m.dram.latency),
        );
        // uload (DRAM), waitcnt; gstore at +1 (DRAM), waitcnt; gload at +1 (L2), waitcnt;
        // gload at +1 (L1), waitcnt; endpgm at +1, done a cycle later.
        assert_eq!(r.cycles, dram + 1 + dram + 1 + l2 + 1 + l1 + 1 + 1);
        let mem = &r.memory;
        assert_eq!((mem.l1_hits, mem.l1_misses), (1, 2));
        assert_eq!((mem.l2_hits, mem.l2_misses), (1, 2));
        assert_eq!(mem.dram_read_bytes, 256);
        // The stored line is dirty at the end.
        assert_eq!(mem.dram_write_bytes, 128);
        assert_eq!(r.stalls["waitcnt_sm"], dram - 1);
        assert_eq!(r.stalls["waitcnt_vst"], dram - 1);
        assert_eq!(r.stalls["waitcnt_vm"], l2 - 1 + l1 - 1);
    }
}

#[test]
fn a_stream_of_misses_is_served_at_the_channel_s_bandwidth() {
    // 32 lanes, 128 bytes apart: 32 lines of one instruction, all DRAM misses.
    let src = "
        uload.b64  u[16:17], u[0:1], 0
        waitcnt    sm=0
        sll.vi     v5, v3, 7
        gload.b32  v6, v5, u[16:17], 0
        waitcnt    vm=0
        endpgm
    ";
    for bpc in [32.0, 16.0, 128.0] {
        let mut m = Machine::default();
        m.dram.bytes_per_cycle = bpc;
        let args = vec![arg("buf", ArgValue::Buffer(vec![0; 8192]))];
        let r = time(src, 32, args, &m);
        let per_line = (128.0 / bpc) as u64;
        // uload ready at 400, waitcnt issues then; sll at 401 (v5 at 405); gload at 405,
        // line k requested at 405 + k and served on the channel from 405 + per_line x k
        // (per_line >= 1).
        let t = 405;
        let last = t + 31 + 400 + (per_line * 31).saturating_sub(31);
        assert_eq!(r.cycles, last + 2, "{bpc} bytes per cycle");
        assert_eq!(r.memory.dram_read_bytes, 33 * 128);
        assert_eq!(r.units[0].busy.mem, 1 + 32);
    }
}

#[test]
fn shared_bank_conflicts_add_passes() {
    let kernel = |shift: u32| {
        format!("sll.vi v5, v3, {shift}\n dsload.b32 v6, v5, 0\n waitcnt ls=0\n endpgm\n")
    };
    let m = Machine::default();
    // Consecutive words: 32 banks, one pass.
    let free = time(&kernel(2), 32, vec![], &m);
    // 128 bytes apart: every lane in bank 0, 32 passes.
    let conflicted = time(&kernel(7), 32, vec![], &m);
    // 8 bytes apart: two lanes per bank, 2 passes.
    let two = time(&kernel(3), 32, vec![], &m);
    assert_eq!(free.memory.shared_passes, 1);
    assert_eq!(two.memory.shared_passes, 2);
    assert_eq!(conflicted.memory.shared_passes, 32);
    // sll at 0 (ready at 4), dsload at 4, complete 4 + latency + passes - 1.
    let base = 4 + u64::from(m.shared.latency);
    assert_eq!(free.cycles, base + 2);
    assert_eq!(two.cycles, base + 1 + 2);
    assert_eq!(conflicted.cycles, base + 31 + 2);
    // The same word for every lane is a broadcast: one pass.
    let broadcast = time(
        &kernel(0).replace("sll.vi v5, v3, 0", "sll.vi v5, v4, 2"),
        32,
        vec![],
        &m,
    );
    assert_eq!(broadcast.memory.shared_passes, 1);
}

#[test]
fn bank_passes_count_distinct_words_whatever_the_lane_order() {
    // v5 from the lane id in v3: `prep` then a shift to bytes.
    let kernel = |prep: &str, shift: u32| {
        format!("{prep}\n sll.vi v5, v6, {shift}\n dsload.b32 v7, v5, 0\n waitcnt ls=0\n endpgm\n")
    };
    let m = Machine::default();
    let passes = |prep: &str, shift: u32| {
        time(&kernel(prep, shift), 32, vec![], &m)
            .memory
            .shared_passes
    };
    // Consecutive words in descending lane order: one pass.
    assert_eq!(passes("xor.vi v6, v3, 31", 2), 1);
    // Lanes 16-31 read lanes 0-15's words (not next to each other): broadcasts, one pass.
    assert_eq!(passes("and.vi v6, v3, 15", 2), 1);
    // The same, 128 bytes apart: 16 distinct words in bank 0, each read twice: 16 passes.
    assert_eq!(passes("and.vi v6, v3, 15", 7), 16);
    // Descending and 64 bytes apart: banks 0 and 16, 16 distinct words each: 16 passes.
    assert_eq!(passes("xor.vi v6, v3, 31", 6), 16);
    // Lanes 16-31 repeat lanes 0-15, 32 bytes apart: banks 0, 8, 16 and 24, four
    // distinct words each: 4 passes.
    assert_eq!(passes("and.vi v6, v3, 15", 5), 4);
    // Two instructions, the second a broadcast of a word the first read: one pass each
    // (nothing of the first one's count is left for the second).
    let two = "sll.vi v5, v3, 2\n dsload.b32 v7, v5, 0\n sll.vi v8, v4, 2\n \
               dsload.b32 v9, v8, 0\n waitcnt ls=0\n endpgm\n";
    assert_eq!(time(two, 32, vec![], &m).memory.shared_passes, 2);
}

#[test]
fn a_barrier_waits_for_the_slowest_warp() {
    // Warp 1 runs a chain of 10 dependent adds before the barrier; warp 0 waits there.
    let src = "
        bz      u29, .Lwait
        add v4, v4, v4
        add v4, v4, v4
        add v4, v4, v4
        add v4, v4, v4
        add v4, v4, v4
        add v4, v4, v4
        add v4, v4, v4
        add v4, v4, v4
        add v4, v4, v4
        add v4, v4, v4
    .Lwait:
        barrier
        endpgm
    ";
    let r = time(src, 64, vec![], &Machine::default());
    assert!(r.stalls["barrier"] > 30, "{:?}", r.stalls);
    let one = time(src, 32, vec![], &Machine::default());
    assert_eq!(one.stalls["barrier"], 0);
}

#[test]
fn workgroups_spread_over_compute_units() {
    let src = chain(10);
    let config = |groups: u32| LaunchConfig {
        grid: [groups, 1, 1],
        block: [32, 1, 1],
        threads: 1,
        // Each workgroup holds what it asks for: the default (64 KiB) fills a CU.
        shared_bytes: 0,
        ..LaunchConfig::default()
    };
    let m = Machine::default();
    let one = time_config(&src, &config(1), vec![], &m);
    // Eight CUs: eight workgroups run side by side in the time of one.
    let eight = time_config(&src, &config(8), vec![], &m);
    assert_eq!(eight.cycles, one.cycles);
    assert!(eight.units.iter().all(|u| u.workgroups == 1));
    // With fill, they all go to CU 0 (room for 16), still side by side on four schedulers.
    let mut fill = m.clone();
    fill.dispatch.policy = warpkit_timing::machine::DispatchPolicy::Fill;
    let filled = time_config(&src, &config(8), vec![], &fill);
    assert_eq!(filled.units[0].workgroups, 8);
    // One workgroup at a time on one CU: they run one after another.
    let mut narrow = m.clone();
    narrow.compute_units = 1;
    narrow.cu.max_workgroups = 1;
    let serial = time_config(&src, &config(3), vec![], &narrow);
    assert_eq!(serial.cycles, 3 * one.cycles);
    assert!((serial.occupancy - 1.0 / 32.0).abs() < 1e-9);
}

#[test]
fn a_workgroup_that_cannot_fit_is_an_error() {
    let p = program("endpgm\n");
    let mut m = Machine::default();
    m.cu.warp_slots = 16;
    let opts = TimingOptions {
        machine: m,
        ..TimingOptions::default()
    };
    let config = LaunchConfig {
        block: [1024, 1, 1],
        ..LaunchConfig::default()
    };
    match launch_timed(&p, &config, vec![], &opts) {
        Err(TimingError::DoesNotFit { limit, need, have }) => {
            assert_eq!((limit, need, have), ("warp slots", 32, 16));
        }
        other => panic!("{:?}", other.map(|(_, r)| r.cycles)),
    }
    let config = LaunchConfig {
        shared_bytes: 128 * 1024,
        ..LaunchConfig::default()
    };
    let opts = TimingOptions::default();
    match launch_timed(&p, &config, vec![], &opts) {
        Err(TimingError::DoesNotFit { limit, .. }) => assert_eq!(limit, "bytes of shared memory"),
        other => panic!("{:?}", other.map(|(_, r)| r.cycles)),
    }
    // Registers: v100 written by 32 warps of 104 registers is more than 2048.
    let p = program("add v100, v1, v2\nendpgm\n");
    let config = LaunchConfig {
        block: [1024, 1, 1],
        ..LaunchConfig::default()
    };
    match launch_timed(&p, &config, vec![], &opts) {
        Err(TimingError::DoesNotFit { limit, need, have }) => {
            assert_eq!((limit, need, have), ("vector registers", 32 * 104, 2048));
        }
        other => panic!("{:?}", other.map(|(_, r)| r.cycles)),
    }
}

/// A loop whose last pass takes a branch to the instruction after it, an 8-byte
/// instruction, and a load inside the loop: the stream keeps only where the PC does not
/// follow on, and the replay issues exactly what the functional run executed.
const RUNS: &str = "
    uload.b64  u[16:17], u[0:1], 0
    umovi      u1, 3
    mov.vl     v1, 0x12345678
    waitcnt    sm=0
top:
    gload.b32  v7, v4, u[16:17], 0
    add        v2, v2, v1
    uaddi      u1, u1, -1
    bz         u1, next
next:
    bnz        u1, top
    endpgm
";

#[test]
fn the_replay_issues_each_instruction_the_run_executed() {
    let m = Machine::default();
    let buf = || vec![arg("buf", ArgValue::Buffer(vec![0; 4096]))];
    let r = time(RUNS, 32, buf(), &m);
    let issued: Vec<(u32, u64)> = r
        .pcs
        .iter()
        .filter(|p| p.issued > 0)
        .map(|p| (p.pc, p.issued))
        .collect();
    let counts: Vec<u64> = issued.iter().map(|&(_, n)| n).collect();
    assert_eq!(counts, [1, 1, 1, 1, 3, 3, 3, 3, 3, 1], "{issued:?}");
    // `mov.vl` with its literal is 8 bytes: the PC after it is 8 on.
    assert_eq!(issued[3].0 - issued[2].0, 8, "{issued:?}");
    // One line loaded each pass, after the first an L1 hit.
    assert_eq!((r.memory.l1_hits, r.memory.l1_misses), (2, 2));

    // The step limit stops the warp inside a stretch of instructions: the replay ends it
    // there (the loop's first pass up to its `add`).
    let config = LaunchConfig {
        block: [32, 1, 1],
        threads: 1,
        max_steps: 6,
        ..LaunchConfig::default()
    };
    let opts = TimingOptions {
        machine: m,
        kernel: "test".into(),
        ..TimingOptions::default()
    };
    let (result, stopped) = launch_timed(&program(RUNS), &config, buf(), &opts).unwrap();
    assert_eq!(result.stats.instructions, 6);
    assert_eq!(stopped.instructions, 6);
    let pcs: Vec<u32> = stopped
        .pcs
        .iter()
        .filter(|p| p.issued > 0)
        .map(|p| p.pc)
        .collect();
    assert_eq!(
        pcs,
        issued[..6].iter().map(|&(pc, _)| pc).collect::<Vec<_>>()
    );
}
