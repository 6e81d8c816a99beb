//! Helpers the kernels' modules share to describe their launches and expected outputs.
//! They live apart from `mod.rs`, which names every kernel's module to list them, so that
//! the kernels depend on the helpers and not on the list of themselves.

use crate::{gen, Case, Expected, Size, Stage, StageArg};

pub(super) fn int(v: u64) -> StageArg {
    StageArg::Int(v)
}

pub(super) fn words(w: &[u32]) -> StageArg {
    StageArg::Bytes(gen::to_bytes(w))
}

pub(super) fn zeroed_words(n: usize) -> StageArg {
    StageArg::Zeroed(4 * n)
}

pub(super) fn stage(
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    args: Vec<(&str, StageArg)>,
) -> Stage {
    Stage {
        grid,
        block,
        shared_bytes,
        args: args.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
    }
}

/// The one launch of the 16x16-tiled GEMM kernels (matmul, sgemm, hgemm): `C = A * B`,
/// A `m x k`, B `k x n`, grid `(n/16, m/16)`, block `(16, 16)`, 2048 bytes of shared
/// memory, C checked against `c`.
pub(super) fn gemm_case(m: u32, n: u32, k: u32, a: StageArg, b: StageArg, c: Vec<u32>) -> Case {
    one_case(
        format!("{m}x{n}x{k}"),
        vec![stage(
            [n / 16, m / 16, 1],
            [16, 16, 1],
            2048,
            vec![
                ("A", a),
                ("B", b),
                ("C", zeroed_words((m * n) as usize)),
                ("M", int(u64::from(m))),
                ("N", int(u64::from(n))),
                ("K", int(u64::from(k))),
            ],
        )],
        vec![expect(0, "C", c)],
    )
}

pub(super) fn expect(stage: usize, buffer: &str, words: Vec<u32>) -> Expected {
    Expected {
        stage,
        buffer: buffer.to_string(),
        words,
        ulps: 0,
    }
}

/// Each f32 word within `ulps` of `words` (an SFU transcendental's documented bound).
pub(super) fn expect_within(stage: usize, buffer: &str, words: Vec<u32>, ulps: u32) -> Expected {
    Expected {
        ulps,
        ..expect(stage, buffer, words)
    }
}

/// The bytes the case passes for argument `name` of launch `stage`, as u32 words.
pub(super) fn input_words(case: &Case, stage: usize, name: &str) -> Vec<u32> {
    case.stages[stage]
        .args
        .iter()
        .find_map(|(n, v)| match v {
            StageArg::Bytes(b) if n == name => Some(gen::to_words(b)),
            _ => None,
        })
        .unwrap_or_default()
}

/// The integer the case passes for argument `name` of launch `stage`.
pub(super) fn input_int(case: &Case, stage: usize, name: &str) -> u64 {
    case.stages[stage]
        .args
        .iter()
        .find_map(|(n, v)| match v {
            StageArg::Int(x) if n == name => Some(*x),
            _ => None,
        })
        .unwrap_or_default()
}

pub(super) fn blocks(n: u32, per: u32) -> u32 {
    n.div_ceil(per)
}

/// Seeds per example, so changing one example's inputs leaves the others alone.
pub(super) fn rng(name: &str, size: Size) -> gen::Rng {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a over the name
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    gen::Rng::new(h ^ if size == Size::Full { 0xf0 } else { 0x5a })
}

pub(super) fn one_case(problem: String, stages: Vec<Stage>, expected: Vec<Expected>) -> Case {
    Case {
        problem,
        stages,
        expected,
    }
}
