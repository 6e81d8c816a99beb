//! Lane-steps per second of the LinxISA model (a lane-step is one active lane of one
//! executed group-step) on a SIMT-mode ALU loop, the same loop in VECT and LOOP order, a
//! divergent per-lane loop, and a memory loop.
//!
//! `cargo bench -p warpkit-linx --bench simt` prints a summary first, then divan's timings
//! (items = lane-steps). The summary gives, best of several runs, lane-steps per second of
//! wall time and per second of this thread's on-CPU time (`/proc/thread-self/schedstat`,
//! nanoseconds: on a machine shared with other work the wall figure understates the model,
//! the CPU figure does not), and each CPU figure as a ratio to a baseline measured in the
//! same run: the same ALU loop's arithmetic written as a native Rust loop over 64 lanes
//! (lane-operations per CPU-second), which sets the scale of one core. For the GPU model
//! beside it, the same run measures the ALU loop written for the GPU ISA (one 32-lane warp
//! under `warpkit-sim`, 32-bit lanes) in lane-operations per CPU-second.

use divan::counter::ItemsCount;
use divan::Bencher;
use std::time::Instant;
use warpkit_linx::{check, run, Mode, Program, RunConfig};

/// 1024 iterations (16 groups of 64 lanes), each looping `TRIPS` times over 8 ALU
/// micro-instructions, a compare and a uniform branch.
const TRIPS: u32 = 200;

fn alu_loop() -> String {
    format!(
        ".lanenum 64
.gpr a1, {TRIPS}
BSTART.SIMT
B.DIM zero, 1024, ->LB0
B.TEXT .body
BSTOP
.body:
    addi zero.ud, 0, ->u.d
    addi lc0.ud, 7, ->m.d
loop:
    mul m#1.ud, lc0.ud, ->t.d
    add t#1.ud, m#1.ud, ->t.d
    xor t#1.ud, t#2.ud, ->t.d
    slli t#1.ud, 3, ->t.d
    srli t#1.ud, 5, ->t.d
    maxu t#1.ud, t#3.ud, ->t.d
    andi t#1.ud, 0xffff, ->m.d
    addi u#1.ud, 1, ->u.d
    b.ltu u#1.ud, a1.ud, loop, done
done:
    pc.pop
    rdadd m#1.ud, ->x1.d
    lbstop
"
    )
}

/// Each lane loops lc0 % 64 times: the ControlStack grows and unwinds every group.
fn divergent_loop() -> String {
    ".lanenum 64
BSTART.SIMT
B.DIM zero, 1024, ->LB0
B.TEXT .body
BSTOP
.body:
    andi lc0.ud, 63, ->u.d
    addi zero.ud, 0, ->m.d
    b.eq u#1.ud, zero.ud, done, done
loop:
    addi m#1.ud, 3, ->m.d
    subi u#1.ud, 1, ->u.d
    b.ne u#1.ud, zero.ud, loop, done
done:
    pc.pop
    rdadd m#1.ud, ->x1.d
    lbstop
"
    .to_string()
}

/// Every lane loads, adds and stores its own d-word 100 times.
fn memory_loop() -> String {
    ".lanenum 64
.gpr a0, 0x100000
.gpr a1, 100
BSTART.SIMT
B.DIM zero, 1024, ->LB0
B.TEXT .body
BSTOP
.body:
    addi zero.ud, 0, ->u.d
loop:
    ld [a0.ud, lc0.ud<<3], ->t.d
    addi t#1.ud, 1, ->t.d
    sd t#1.ud, [a0.ud, lc0.ud<<3]
    addi u#1.ud, 1, ->u.d
    b.ltu u#1.ud, a1.ud, loop, done
done:
    pc.pop
    lbstop
"
    .to_string()
}

fn program(src: &str) -> Program {
    check("bench.s", src).unwrap_or_else(|d| panic!("{}", d.render(src)))
}

fn lane_steps(p: &Program, mode: Mode) -> u64 {
    let r = run(
        p,
        RunConfig {
            mode: Some(mode),
            ..RunConfig::default()
        },
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    r.lane_steps
}

/// Nanoseconds this thread has run on a CPU (Linux); `None` elsewhere.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Best (wall, CPU) rates of `work`, which returns how many items it did, over 3 samples;
/// each sample repeats `work` until it has taken at least 50 ms of CPU time (the kernel
/// updates a running thread's counter only at scheduler ticks).
fn best_rates(mut work: impl FnMut() -> u64) -> (f64, f64) {
    let (mut wall, mut cpu) = (0f64, 0f64);
    for _ in 0..3 {
        let (t, c0) = (Instant::now(), cpu_ns());
        let mut n = 0u64;
        let spent = loop {
            n += work();
            let c = cpu_ns().zip(c0).map_or(0, |(c1, c0)| c1 - c0);
            if c >= 50_000_000 || (c0.is_none() && t.elapsed().as_millis() >= 200) {
                break c;
            }
        };
        wall = wall.max(n as f64 / t.elapsed().as_secs_f64());
        if spent > 0 {
            cpu = cpu.max(n as f64 / (spent as f64 * 1e-9));
        }
    }
    (wall, cpu)
}

/// The ALU loop's arithmetic as native code: 64 lanes, 8 operations per lane and trip.
fn native_alu_loop(trips: u32) -> u64 {
    let mut lanes = [0u64; 64];
    for (j, l) in lanes.iter_mut().enumerate() {
        *l = j as u64 + 7;
    }
    for _ in 0..trips {
        for (j, m) in lanes.iter_mut().enumerate() {
            let lc = j as u64;
            let t1 = m.wrapping_mul(lc);
            let t2 = t1.wrapping_add(*m);
            let t3 = t2 ^ t1;
            let t4 = t3 << 3;
            let t5 = t4 >> 5;
            let t6 = t5.max(t3);
            *m = std::hint::black_box(t6 & 0xffff);
        }
    }
    std::hint::black_box(lanes);
    64 * trips as u64 * 8
}

/// The ALU loop for the GPU ISA: the same 7 lane operations a trip (v7 is the loop's
/// `m`, v0 the lane number), then the uniform counter and branch.
fn gpu_alu_loop() -> String {
    format!(
        "umov.l u1, {TRIPS}
        laneid v0
        mov.vl v7, 7
    top:
        mul v2, v7, v0
        add v3, v2, v7
        xor v4, v3, v2
        sll.vi v5, v4, 3
        srl.vi v6, v5, 5
        maxu v8, v6, v4
        and.vl v7, v8, 0xffff
        uaddi u1, u1, -1
        bnz u1, top
        endpgm"
    )
}

/// One run of the GPU loop on one warp with full EXEC; returns its lane-operations
/// (7 vector operations x 32 lanes a trip; the uniform counter and branch are not counted).
fn gpu_lane_ops(prog: &warpkit_sim::Program) -> u64 {
    use warpkit_sim::{Core, NoHooks, NoMemory, Workgroup};
    let mut wg = Workgroup::new([0, 0, 0], &[u32::MAX]);
    let s = wg.run(
        prog,
        &mut Core::default(),
        &mut NoMemory,
        &mut NoHooks,
        u64::MAX,
    );
    assert!(s.all_ended());
    7 * 32 * u64::from(TRIPS)
}

fn main() {
    let cases = [
        ("SIMT ALU loop", alu_loop(), Mode::Simt),
        ("VECT ALU loop", alu_loop(), Mode::Vect),
        ("LOOP ALU loop", alu_loop(), Mode::Loop),
        ("SIMT divergent loop", divergent_loop(), Mode::Simt),
        ("SIMT memory loop", memory_loop(), Mode::Simt),
    ];
    let (_, native) = best_rates(|| native_alu_loop(TRIPS));
    println!(
        "warpkit-linx, best of 3: M lane-steps per wall second, per CPU second, and the CPU rate\n\
         as a ratio to native Rust doing the ALU loop's arithmetic ({:.0} M lane-ops per CPU second, this run)",
        native / 1e6
    );
    for (name, src, mode) in &cases {
        let p = program(src);
        let (wall, cpu) = best_rates(|| lane_steps(&p, *mode));
        println!(
            "  {name:22} {:8.1} wall {:8.1} CPU  {:6.4}x native",
            wall / 1e6,
            cpu / 1e6,
            cpu / native
        );
    }
    let gpu = warpkit_asm::assemble(&gpu_alu_loop(), "gpu_alu.s").expect("gpu_alu.s");
    let gpu = warpkit_sim::Program::new(gpu.text);
    let (wall, cpu) = best_rates(|| gpu_lane_ops(&gpu));
    println!(
        "  {:22} {:8.1} wall {:8.1} CPU  {:6.4}x native  (lane-operations, 32-bit lanes)",
        "GPU model, same loop",
        wall / 1e6,
        cpu / 1e6,
        cpu / native
    );
    divan::main();
}

fn bench(b: Bencher, src: String, mode: Mode) {
    let p = program(&src);
    let n = lane_steps(&p, mode);
    b.counter(ItemsCount::new(n)).bench(|| {
        run(
            &p,
            RunConfig {
                mode: Some(mode),
                ..RunConfig::default()
            },
        )
    });
}

#[divan::bench(sample_count = 5)]
fn simt_alu_loop(b: Bencher) {
    bench(b, alu_loop(), Mode::Simt);
}

#[divan::bench(sample_count = 5)]
fn vect_alu_loop(b: Bencher) {
    bench(b, alu_loop(), Mode::Vect);
}

#[divan::bench(sample_count = 5)]
fn loop_alu_loop(b: Bencher) {
    bench(b, alu_loop(), Mode::Loop);
}

#[divan::bench(sample_count = 5)]
fn simt_divergent_loop(b: Bencher) {
    bench(b, divergent_loop(), Mode::Simt);
}

#[divan::bench(sample_count = 5)]
fn simt_memory_loop(b: Bencher) {
    bench(b, memory_loop(), Mode::Simt);
}
