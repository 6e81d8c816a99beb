//! Decode throughput over a mixed stream of valid instructions of every variant.
//! `cargo bench -p warpkit-isa --bench decode`; divan prints instructions per second.

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use warpkit_isa::*;

/// A deterministic mixed stream: every variant in turn, operands from a small LCG.
fn stream(count: usize) -> Vec<u8> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut out = Vec::with_capacity(count * 6);
    for i in 0..count {
        let op = ALL_OPS[i % OP_COUNT];
        let raw: Vec<u32> = op
            .def()
            .operands
            .iter()
            .map(|o| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let w = o.field.width();
                let v = (seed >> 32) as u32;
                if w >= 32 {
                    v
                } else {
                    v & ((1 << w) - 1)
                }
            })
            .collect();
        Instr::from_raw(op, &raw).unwrap().write_bytes(&mut out);
    }
    out
}

const N: usize = 100_000;

/// Decode every instruction of `bytes` in order; the sum keeps the work observable.
fn decode_all(bytes: &[u8]) -> u32 {
    let mut at = 0;
    let mut acc = 0u32;
    while at < bytes.len() {
        match decode(&bytes[at..]) {
            Ok((ins, len)) => {
                acc = acc.wrapping_add(ins.raw(0)).wrapping_add(ins.op() as u32);
                at += len;
            }
            Err(_) => at += 4,
        }
    }
    acc
}

#[divan::bench]
fn decode_mixed_stream(bencher: Bencher) {
    let bytes = stream(N);
    bencher
        .counter(ItemsCount::new(N))
        .bench(|| decode_all(black_box(&bytes)));
}

/// The same instruction over and over: the upper bound, with every branch predicted.
#[divan::bench]
fn decode_same_instruction(bencher: Bencher) {
    let one = Instr::from_raw(Op::Add, &[1, 2, 3]).unwrap().to_bytes();
    let bytes: Vec<u8> = one.iter().copied().cycle().take(N * 4).collect();
    bencher
        .counter(ItemsCount::new(N))
        .bench(|| decode_all(black_box(&bytes)));
}

fn main() {
    divan::main();
}
