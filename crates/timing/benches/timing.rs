//! The timing model's speed on the example kernels, against the plain functional run in
//! the same process.
//!
//! `cargo bench -p warpkit-timing` first prints, per example kernel at its full size, the
//! warp-instructions it runs, the timed launch's warp-instructions per second (recording
//! and replay together) with one host thread for the recording and with every core (a
//! kernel's stages then overlap: earlier stages are replayed while later ones run), the
//! plain functional launch's with one thread, and the ratio of the two one-thread figures.
//! Each figure is the best of two runs. Then divan times both launches of every kernel
//! at its small size (items = warp-instructions).

use std::time::{Duration, Instant};

use divan::counter::ItemsCount;
use divan::Bencher;
use warpkit_examples::{all, Case, Code, Example, Size};
use warpkit_sim::launch::{launch, LaunchResult};
use warpkit_timing::{launch_timed_deferred, TimingOptions};

fn main() {
    figures();
    divan::main();
}

/// Run every stage, timed or plain, on `threads` host threads; the warp-instructions and
/// the time spent in the launches. Timed with more than one thread, the stages' replays go
/// on while the next stages run, at most `threads - 1` left pending, as `warpkit examples
/// --timing` does.
fn run(
    example: &Example,
    case: &Case,
    code: &Code,
    timed: bool,
    threads: usize,
) -> (u64, Duration) {
    let mut done: Vec<LaunchResult> = Vec::new();
    let mut wall = Duration::ZERO;
    let mut instructions = 0;
    let mut pending = std::collections::VecDeque::new();
    for (k, stage) in case.stages.iter().enumerate() {
        let args = example
            .stage_args(k, stage, &done)
            .expect("earlier outputs");
        let config = warpkit_sim::launch::LaunchConfig {
            threads,
            ..code.config(stage)
        };
        let start = Instant::now();
        let r = if timed {
            let opts = TimingOptions {
                kernel: "bench".into(),
                ..TimingOptions::default()
            };
            let (r, timing) =
                launch_timed_deferred(&code.program, &config, args, &opts).expect("times");
            pending.push_back(timing);
            while pending.len() >= threads {
                if let Some(oldest) = pending.pop_front() {
                    oldest.wait();
                }
            }
            r
        } else {
            launch(&code.program, &config, args).expect("launches")
        };
        wall += start.elapsed();
        instructions += r.stats.instructions;
        done.push(r);
    }
    let start = Instant::now();
    for timing in pending {
        timing.wait();
    }
    wall += start.elapsed();
    (instructions, wall)
}

/// Warp-instructions per second, the best of three runs.
fn rate(example: &Example, case: &Case, code: &Code, timed: bool, threads: usize) -> (u64, f64) {
    let mut best = 0.0f64;
    let mut n = 0;
    for _ in 0..2 {
        let (i, wall) = run(example, case, code, timed, threads);
        n = i;
        best = best.max(i as f64 / wall.as_secs_f64().max(1e-9));
    }
    (n, best)
}

fn figures() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "{:<22} {:>12} {:>14} {:>14} {:>14} {:>7}",
        "kernel (full size)",
        "warp-instr",
        "timed 1 thr/s",
        "timed all/s",
        "plain 1 thr/s",
        "ratio"
    );
    let (mut total, mut timed_s, mut timed_all_s, mut plain_s) = (0u64, 0.0, 0.0, 0.0);
    // `TIMING_FIGURES=vadd,reduce` restricts the table to those kernels.
    let only = std::env::var("TIMING_FIGURES").ok();
    let wanted = |name: &str| {
        only.as_ref()
            .is_none_or(|o| o.split(',').any(|n| n == name))
    };
    for example in all().iter().filter(|e| wanted(e.name)) {
        let case = example.case(Size::Full);
        let mut code = example.code().expect("assembles");
        // The plain run on the engine a user gets by default.
        code.program.set_engine(warpkit_sim::Engine::host_default());
        let (n, timed) = rate(example, &case, &code, true, 1);
        let (_, timed_all) = rate(example, &case, &code, true, cores);
        let (_, plain) = rate(example, &case, &code, false, 1);
        println!(
            "{:<22} {:>12} {:>13.1}M {:>13.1}M {:>13.1}M {:>7.3}",
            example.name,
            n,
            timed / 1e6,
            timed_all / 1e6,
            plain / 1e6,
            timed / plain
        );
        total += n;
        timed_s += n as f64 / timed;
        timed_all_s += n as f64 / timed_all;
        plain_s += n as f64 / plain;
    }
    let (t, a, p) = (
        total as f64 / timed_s,
        total as f64 / timed_all_s,
        total as f64 / plain_s,
    );
    println!(
        "{:<22} {:>12} {:>13.1}M {:>13.1}M {:>13.1}M {:>7.3}",
        "all",
        total,
        t / 1e6,
        a / 1e6,
        p / 1e6,
        t / p
    );
    println!("({cores} cores; ratio = timed / plain, one host thread each)\n");
}

fn examples() -> Vec<&'static str> {
    all().iter().map(|e| e.name).collect()
}

fn bench(bencher: Bencher, name: &str, timed: bool) {
    let example: &Example = warpkit_examples::find(name).expect("an example");
    let case = example.case(Size::Small);
    let code = example.code().expect("assembles");
    let (n, _) = run(example, &case, &code, timed, 1);
    bencher
        .counter(ItemsCount::new(n))
        .bench(|| run(example, &case, &code, timed, 1));
}

#[divan::bench(args = examples())]
fn timed(bencher: Bencher, name: &str) {
    bench(bencher, name, true);
}

#[divan::bench(args = examples())]
fn functional(bencher: Bencher, name: &str) {
    bench(bencher, name, false);
}
