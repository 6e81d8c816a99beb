//! Disassembly throughput over a mixed stream of valid instructions of every variant, in
//! both output modes. `cargo bench -p warpkit-asm --bench disassemble` prints
//! instructions per second before divan's own table (items = instructions).

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use warpkit_asm::{disassemble, DisOptions};
use warpkit_isa::*;

const N: usize = 200_000;

fn main() {
    let bytes = mixed_stream(N);
    for (name, plain) in [("listing", false), ("plain", true)] {
        let options = DisOptions { plain };
        let runs = 5;
        let start = std::time::Instant::now();
        let mut chars = 0;
        for _ in 0..runs {
            chars = black_box(disassemble(black_box(&bytes), 0, &options)).len();
        }
        let secs = start.elapsed().as_secs_f64() / f64::from(runs);
        println!(
            "disassemble ({name:<7}) {N} instructions, {chars} chars: {:.2} M instructions/s",
            N as f64 / secs / 1e6
        );
    }
    divan::main();
}

#[divan::bench(args = [false, true], sample_count = 20)]
fn disassemble_mixed(bencher: Bencher, plain: bool) {
    let bytes = mixed_stream(N);
    let options = DisOptions { plain };
    bencher
        .counter(ItemsCount::new(N))
        .bench(|| disassemble(black_box(&bytes), 0, &options).len());
}
