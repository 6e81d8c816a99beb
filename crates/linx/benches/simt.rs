//! Lane-steps per second of the LinxISA model (a lane-step is one active lane of one
//! executed group-step) on a SIMT-mode ALU loop, the same loop in VECT and LOOP order, a
//! divergent per-lane loop, and a memory loop.
//!
//! `cargo bench -p warpkit-linx --bench simt` prints a summary first (best of several
//! runs, lane-steps/s, and each figure as a ratio to the SIMT ALU loop measured in the same
//! run), then divan's timings (items = lane-steps).

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

fn best_rate(p: &Program, mode: Mode) -> f64 {
    let mut best = 0f64;
    for _ in 0..5 {
        let t = Instant::now();
        let n = lane_steps(p, mode);
        best = best.max(n as f64 / t.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    let cases = [
        ("SIMT ALU loop", alu_loop(), Mode::Simt),
        ("VECT ALU loop", alu_loop(), Mode::Vect),
        ("LOOP ALU loop", alu_loop(), Mode::Loop),
        ("SIMT divergent loop", divergent_loop(), Mode::Simt),
        ("SIMT memory loop", memory_loop(), Mode::Simt),
    ];
    println!("warpkit-linx lane-steps/s (best of 5; ratio to the SIMT ALU loop of this run):");
    let mut base = 0.0;
    for (name, src, mode) in &cases {
        let rate = best_rate(&program(src), *mode);
        if base == 0.0 {
            base = rate;
        }
        println!(
            "  {name:22} {:8.1} M lane-steps/s  {:5.2}x",
            rate / 1e6,
            rate / base
        );
    }
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
