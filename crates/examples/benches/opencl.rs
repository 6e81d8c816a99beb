//! The OpenCL C compiler's code quality and speed on the example kernels: for every
//! `examples/opencl/NAME.cl` at both sizes, the warp-instructions its compiled kernel
//! retires next to those of the hand-written `examples/NAME.s` on the same launches, their
//! ratio, and the time to compile the `.cl` (`warpkit_cc::compile_source`, then the
//! assembler: [`Example::object`]), the median and the fastest of `COMPILES` runs, beside
//! the time to assemble the hand-written twin measured in the same run (the baseline: what
//! the compiler adds to the assembler).
//! Instruction counts are exact and the same on every machine; compile times are this
//! machine's (the fastest run is the one least disturbed by other processes).
//! `cargo bench -p warpkit-examples --bench opencl`; divan then times each compilation.

use divan::Bencher;
use std::time::{Duration, Instant};
use warpkit_examples::{all, Example, Language, Size};

/// Compilations per kernel whose median the table shows.
const COMPILES: usize = 31;

/// The kernels the compiler's quality target (at most 1.3 times the hand-written
/// kernel's instructions) is set for.
const TARGETED: [&str; 5] = ["vadd", "saxpy", "reduce", "matmul", "sgemm"];

fn opencl() -> impl Iterator<Item = &'static Example> {
    all().iter().filter(|e| e.language == Language::OpenCl)
}

/// Warp-instructions of `ex` at `size`, after checking its output.
fn instructions(ex: &Example, size: Size) -> u64 {
    let r = ex.run(size, 0).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.passed(), "{} failed its check: {}", ex.name, r.check);
    r.instructions
}

/// The median and the fastest wall time of `COMPILES` compilations (and assemblies) of `ex`
/// (for an assembly example, of its assembly alone).
fn compile_times(ex: &Example) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..COMPILES)
        .map(|_| {
            let start = Instant::now();
            divan::black_box(ex.object().unwrap_or_else(|e| panic!("{e}")));
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[COMPILES / 2], times[0])
}

fn main() {
    println!(
        "{:<10} {:<6} {:>12} {:>12} {:>7} {:>15} {:>9} {:>12} {:>8}",
        "kernel",
        "size",
        ".s instr",
        ".cl instr",
        "ratio",
        "compile median",
        "fastest",
        "asm .s median",
        "cl/asm"
    );
    for ex in opencl() {
        let twin = ex.twin().expect("every OpenCL example has a twin");
        let (median, fastest) = compile_times(ex);
        let (asm_median, _) = compile_times(twin);
        for (size, label) in [(Size::Small, "small"), (Size::Full, "full")] {
            let (s, cl) = (instructions(twin, size), instructions(ex, size));
            let mark = if TARGETED.contains(&twin.name) && cl * 10 > s * 13 {
                "  above 1.3"
            } else {
                ""
            };
            println!(
                "{:<10} {:<6} {:>12} {:>12} {:>6.3}x {:>12.1} ms {:>6.1} ms {:>10.2} ms {:>7.1}x{mark}",
                twin.name,
                label,
                s,
                cl,
                cl as f64 / s as f64,
                median.as_secs_f64() * 1e3,
                fastest.as_secs_f64() * 1e3,
                asm_median.as_secs_f64() * 1e3,
                median.as_secs_f64() / asm_median.as_secs_f64()
            );
        }
    }
    divan::main();
}

/// Compiling and assembling each OpenCL C example.
#[divan::bench(args = opencl().map(|e| e.name).collect::<Vec<_>>(), sample_count = 20)]
fn compile(bencher: Bencher, name: &str) {
    let ex = warpkit_examples::find(name).expect("an OpenCL C example");
    bencher.bench(|| ex.object().expect("compiles"));
}
