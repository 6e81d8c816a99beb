//! The example kernels as a simulator benchmark: warp-instructions/s and lane-operations/s
//! per kernel at the full size of `warpkit examples`, with 1 and with 2 host threads, and
//! the 2-thread/1-thread ratio (per kernel and over the suite). Times are the launches'
//! own wall time (no assembly, input generation or checking), best of `RUNS`.
//! `cargo bench -p warpkit-examples --bench suite`; divan then times the small sizes.

use divan::counter::ItemsCount;
use divan::Bencher;
use std::time::Duration;
use warpkit_examples::{all, Size};

const RUNS: usize = 3;

/// The best wall time of `RUNS` runs of `ex` at `size` on `threads` host threads, with the
/// instructions and lane-operations of one run.
fn measure(ex: &warpkit_examples::Example, size: Size, threads: usize) -> (Duration, u64, u64) {
    let case = ex.case(size);
    let mut best = Duration::MAX;
    let (mut instructions, mut lane_ops) = (0, 0);
    for _ in 0..RUNS {
        let r = ex.run_case(&case, threads).expect("the kernel runs");
        assert!(r.passed(), "{} failed its check", ex.name);
        best = best.min(r.wall);
        instructions = r.instructions;
        lane_ops = r.lane_ops;
    }
    (best, instructions, lane_ops)
}

fn main() {
    println!(
        "{:<12} {:>10} {:>14} {:>14} {:>14} {:>7}",
        "kernel", "warp-instr", "1t instr/s", "1t lane-ops/s", "2t lane-ops/s", "2t/1t"
    );
    let (mut wall1, mut wall2) = (0.0, 0.0);
    let (mut all_instr, mut all_lanes) = (0u64, 0u64);
    for ex in all() {
        let (t1, instr, lanes) = measure(ex, Size::Full, 1);
        let (t2, _, _) = measure(ex, Size::Full, 2);
        let (s1, s2) = (t1.as_secs_f64(), t2.as_secs_f64());
        wall1 += s1;
        wall2 += s2;
        all_instr += instr;
        all_lanes += lanes;
        println!(
            "{:<12} {:>9.2}M {:>12.1} M {:>12.1} M {:>12.1} M {:>6.2}x",
            ex.name,
            instr as f64 / 1e6,
            instr as f64 / s1 / 1e6,
            lanes as f64 / s1 / 1e6,
            lanes as f64 / s2 / 1e6,
            s1 / s2
        );
    }
    println!(
        "{:<12} {:>9.2}M {:>12.1} M {:>12.1} M {:>12.1} M {:>6.2}x",
        "suite",
        all_instr as f64 / 1e6,
        all_instr as f64 / wall1 / 1e6,
        all_lanes as f64 / wall1 / 1e6,
        all_lanes as f64 / wall2 / 1e6,
        wall1 / wall2
    );
    divan::main();
}

/// Each kernel at its small size on one thread (items = warp-instructions).
#[divan::bench(args = all().iter().map(|e| e.name).collect::<Vec<_>>(), sample_count = 20)]
fn small(bencher: Bencher, name: &str) {
    let ex = warpkit_examples::find(name).expect("a kernel of the suite");
    let case = ex.case(Size::Small);
    let instructions = ex.run_case(&case, 1).expect("runs").instructions;
    bencher
        .counter(ItemsCount::new(instructions))
        .bench(|| ex.run_case(&case, 1).expect("runs").instructions);
}
