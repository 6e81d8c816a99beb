use super::common::*;
use crate::{Case, Size};

pub(super) fn case(size: Size) -> Case {
    // Small: not a multiple of the block.
    let n: u32 = match size {
        Size::Small => 70,
        Size::Full => 2048,
    };
    let mut r = rng("gesummv", size);
    let a = r.words((n * n) as usize);
    let b = r.words((n * n) as usize);
    let x = r.words(n as usize);
    let (alpha, beta) = (3, 7);
    let y = reference(&a, &b, &x, alpha, beta, n as usize);
    one_case(
        format!("{n}x{n}"),
        vec![stage(
            [blocks(n, 128), 1, 1],
            [128, 1, 1],
            0,
            vec![
                ("A", words(&a)),
                ("B", words(&b)),
                ("x", words(&x)),
                ("y", zeroed_words(n as usize)),
                ("alpha", int(u64::from(alpha))),
                ("beta", int(u64::from(beta))),
                ("N", int(u64::from(n))),
            ],
        )],
        vec![expect(0, "y", y)],
    )
}

pub(crate) fn reference(
    a: &[u32],
    b: &[u32],
    x: &[u32],
    alpha: u32,
    beta: u32,
    n: usize,
) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let dot = |m: &[u32]| {
                (0..n).fold(0u32, |s, j| s.wrapping_add(m[i * n + j].wrapping_mul(x[j])))
            };
            alpha
                .wrapping_mul(dot(a))
                .wrapping_add(beta.wrapping_mul(dot(b)))
        })
        .collect()
}
