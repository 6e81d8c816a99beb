//! Assemble a generated 1,000,000-line file of mixed instructions (every variant, random
//! legal operands, labels, comments, some data) and report lines per second.

use divan::counter::ItemsCount;
use divan::Bencher;
use std::fmt::Write;
use warpkit_isa::{Instr, Op, OP_COUNT};

const LINES: usize = 1_000_000;

fn generate(lines: usize) -> String {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut src = String::with_capacity(lines * 28);
    let mut n = 0;
    while n < lines {
        if n % 64 == 0 {
            let _ = writeln!(src, "L{n}:");
            n += 1;
            continue;
        }
        if n % 97 == 0 {
            let _ = writeln!(
                src,
                "    bz u1, L{}    // back to the last label",
                n - n % 64
            );
            n += 1;
            continue;
        }
        let op = Op::from_index(next() as usize % OP_COUNT).unwrap();
        let raw: Vec<u32> = op
            .def()
            .operands
            .iter()
            .map(|o| {
                let w = o.field.width();
                let r = next() as u32;
                if w >= 32 {
                    r
                } else {
                    r & ((1 << w) - 1)
                }
            })
            .collect();
        let ins = Instr::from_raw(op, &raw).unwrap();
        if ins.reserved_operand().is_some() {
            continue;
        }
        let _ = writeln!(src, "    {ins}");
        n += 1;
    }
    src
}

fn main() {
    let src = generate(LINES);
    // One timed run outside divan, so the figure is printed plainly as lines/s.
    let start = std::time::Instant::now();
    let p = warpkit_asm::assemble(&src, "bench.s").expect("generated source assembles");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "assembled {LINES} lines ({} bytes of text) in {:.3} s: {:.2} M lines/s",
        p.text.len(),
        secs,
        LINES as f64 / secs / 1e6
    );
    divan::main();
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn assemble_1m_lines(bencher: Bencher) {
    let src = generate(LINES);
    bencher
        .counter(ItemsCount::new(LINES))
        .bench(|| warpkit_asm::assemble(divan::black_box(&src), "bench.s").is_ok());
}
