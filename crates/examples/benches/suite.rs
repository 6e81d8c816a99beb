//! The example kernels as a simulator benchmark: warp-instructions/s and lane-operations/s
//! per kernel at the full size of `warpkit examples`, with 1 and with 2 host threads, and
//! the 2-thread/1-thread ratio (per kernel and over the suite). Times are the launches'
//! own wall time (no assembly, input generation or checking), best of `RUNS`. The suite
//! line adds the process CPU time of all runs with 2 threads over that with 1: near 1.0
//! means the second thread costs no extra work (no contention), whatever else the machine
//! is running; the wall ratio then depends on whether a second core is free.
//! `cargo bench -p warpkit-examples --bench suite`; divan then times the small sizes.

use divan::counter::ItemsCount;
use divan::Bencher;
use std::time::Duration;
use warpkit_examples::{all, Report, Size};

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

/// CPU time of this process so far (utime + stime, clock ticks of 10 ms).
fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let Some(close) = stat.rfind(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
    let tick = |k: usize| {
        fields
            .get(k)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (tick(11) + tick(12)) / 100.0
}

fn main() {
    println!(
        "{:<12} {:>10} {:>14} {:>14} {:>14} {:>7}",
        "kernel", "warp-instr", "1t instr/s", "1t lane-ops/s", "2t lane-ops/s", "2t/1t"
    );
    let (mut wall1, mut wall2) = (0.0, 0.0);
    let (mut all_instr, mut all_lanes) = (0u64, 0u64);
    let (mut cpu1, mut cpu2) = (0.0, 0.0);
    for ex in all() {
        let c0 = process_cpu_seconds();
        let (t1, instr, lanes) = measure(ex, Size::Full, 1);
        let c1 = process_cpu_seconds();
        let (t2, _, _) = measure(ex, Size::Full, 2);
        cpu1 += c1 - c0;
        cpu2 += process_cpu_seconds() - c1;
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
    println!(
        "process CPU time, all runs: {cpu1:.2} s with 1 thread, {cpu2:.2} s with 2 ({:.2}x)",
        cpu2 / cpu1
    );
    suite_side_by_side();
    divan::main();
}

/// The whole suite as `warpkit examples` runs it: every example (GPU and Linx, inputs,
/// launches and checks) side by side on one pool ([`warpkit_examples::run_suite`]), wall
/// time of the whole, best of `RUNS`, with 1 and 2 host threads alternating.
fn suite_side_by_side() {
    let gpu: Vec<_> = all().iter().collect();
    let linx: Vec<_> = warpkit_examples::linx::ALL.iter().collect();
    let mut best = [f64::MAX; 2];
    for _ in 0..RUNS {
        for (k, threads) in [1, 2].into_iter().enumerate() {
            let start = std::time::Instant::now();
            let r = warpkit_examples::run_suite(&gpu, &linx, Size::Full, threads).expect("pool");
            best[k] = best[k].min(start.elapsed().as_secs_f64());
            let passed = |x: Option<&Report>| x.is_some_and(Report::passed);
            assert!(r.gpu.iter().all(|x| passed(x.as_ref().ok())));
            assert!(r.linx.iter().all(|x| passed(x.as_ref().ok())));
        }
    }
    println!(
        "whole suite side by side (warpkit examples): {:.2} s with 1 thread, {:.2} s with 2 ({:.2}x)",
        best[0],
        best[1],
        best[0] / best[1]
    );
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
