//! Decode throughput over a mixed stream of valid instructions of every variant.
//! `cargo bench -p warpkit-isa --bench decode`; divan prints instructions per second.

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use warpkit_isa::*;

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
    let bytes = mixed_stream(N);
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
