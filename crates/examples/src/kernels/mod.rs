//! One module per kernel: its launch description, its inputs and its host reference.

mod bitonic;
mod collatz;
mod crc32;
mod fp;
mod hgemm;
mod histogram;
mod layernorm;
mod mandelbrot;
mod matmul;
mod matmul_dp4a;
mod reduce;
mod saxpy;
mod scan;
mod sgemm;
mod softmax;
mod stencil;
mod vadd;

use crate::{gen, Case, Example, Expected, Outputs, Size, Stage, StageArg};
use rayon::prelude::*;

macro_rules! example {
    ($name:ident, $summary:expr $(, $key:ident = $value:expr)*) => {
        Example {
            name: stringify!($name),
            summary: $summary,
            source: include_str!(concat!("../../../../examples/", stringify!($name), ".s")),
            build: $name::case,
            $($key: Some($value),)*
            ..Example::PLAIN
        }
    };
}

pub(crate) static ALL: &[Example] = &[
    example!(vadd, "vector add"),
    example!(saxpy, "integer a*x + y, grid-stride loop"),
    example!(reduce, "sum: per-workgroup fold, then a second pass"),
    example!(scan, "inclusive prefix sum, one workgroup"),
    example!(
        histogram,
        "256-bin byte histogram, shared then global atomics"
    ),
    example!(matmul, "u32 matrix multiply, shared tiles, mad.u32"),
    example!(matmul_dp4a, "int8 matrix multiply with dp4a.i32"),
    example!(bitonic, "bitonic sort of each workgroup's keys"),
    example!(crc32, "CRC-32 of unaligned records: brev, alignbit, perm"),
    example!(stencil, "3x3 blur, 2-D grid, partial last warp"),
    example!(collatz, "Collatz steps: divergent per-lane loops"),
    example!(sgemm, "f32 matrix multiply, shared tiles, ffma.f32"),
    example!(hgemm, "f16 inputs, f32 accumulation via cvt.f32.f16"),
    example!(
        softmax,
        "softmax of rows: max, fexp2, frcp",
        derive = softmax::derive
    ),
    example!(
        layernorm,
        "layer normalisation of rows: mean, variance, frsq",
        derive = layernorm::derive
    ),
    example!(
        mandelbrot,
        "Mandelbrot escape counts in f32, drawn as an image",
        image = mandelbrot::image
    ),
];

fn int(v: u64) -> StageArg {
    StageArg::Int(v)
}

fn words(w: &[u32]) -> StageArg {
    StageArg::Bytes(gen::to_bytes(w))
}

fn zeroed_words(n: usize) -> StageArg {
    StageArg::Zeroed(4 * n)
}

fn stage(grid: [u32; 3], block: [u32; 3], shared_bytes: u32, args: Vec<(&str, StageArg)>) -> Stage {
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
fn gemm_case(m: u32, n: u32, k: u32, a: StageArg, b: StageArg, c: Vec<u32>) -> Case {
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

fn expect(stage: usize, buffer: &str, words: Vec<u32>) -> Expected {
    Expected {
        stage,
        buffer: buffer.to_string(),
        words,
        ulps: 0,
    }
}

/// Each f32 word within `ulps` of `words` (an SFU transcendental's documented bound).
fn expect_within(stage: usize, buffer: &str, words: Vec<u32>, ulps: u32) -> Expected {
    Expected {
        ulps,
        ..expect(stage, buffer, words)
    }
}

/// The bytes the case passes for argument `name` of launch `stage`, as u32 words.
fn input_words(case: &Case, stage: usize, name: &str) -> Vec<u32> {
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
fn input_int(case: &Case, stage: usize, name: &str) -> u64 {
    case.stages[stage]
        .args
        .iter()
        .find_map(|(n, v)| match v {
            StageArg::Int(x) if n == name => Some(*x),
            _ => None,
        })
        .unwrap_or_default()
}

fn blocks(n: u32, per: u32) -> u32 {
    n.div_ceil(per)
}

/// Seeds per example, so changing one example's inputs leaves the others alone.
fn rng(name: &str, size: Size) -> gen::Rng {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a over the name
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    gen::Rng::new(h ^ if size == Size::Full { 0xf0 } else { 0x5a })
}

fn one_case(problem: String, stages: Vec<Stage>, expected: Vec<Expected>) -> Case {
    Case {
        problem,
        stages,
        expected,
    }
}
