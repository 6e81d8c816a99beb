//! Deterministic instruction streams for benchmarks and seed corpora.

use crate::{Instr, ALL_OPS, OP_COUNT};

/// `count` valid instructions, every variant in turn, each operand field filled from a
/// fixed linear congruential sequence: the same bytes on every run and machine.
pub fn mixed_stream(count: usize) -> Vec<u8> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut out = Vec::with_capacity(count * 6);
    let mut raw = Vec::new();
    for i in 0..count {
        let op = ALL_OPS[i % OP_COUNT];
        raw.clear();
        for o in op.def().operands {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let width = o.field.width();
            let v = (seed >> 32) as u32;
            raw.push(if width >= 32 {
                v
            } else {
                v & ((1 << width) - 1)
            });
        }
        // Every value was masked to its field, so the instruction always builds.
        if let Ok(ins) = Instr::from_raw(op, &raw) {
            ins.write_bytes(&mut out);
        }
    }
    out
}
