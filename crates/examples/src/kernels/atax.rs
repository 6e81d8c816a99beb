use super::common::*;
use crate::{Case, Size, StageArg};

pub(super) fn case(size: Size) -> Case {
    // Small: neither dimension a multiple of the block.
    let (m, n): (u32, u32) = match size {
        Size::Small => (45, 70),
        Size::Full => (1900, 2100),
    };
    let mut r = rng("atax", size);
    let a = r.words((m * n) as usize);
    let x = r.words(n as usize);
    let (tmp, y) = reference(&a, &x, m as usize, n as usize);
    one_case(
        format!("{m}x{n}"),
        vec![
            stage(
                [blocks(m, 128), 1, 1],
                [128, 1, 1],
                0,
                vec![
                    ("A", words(&a)),
                    ("in", words(&x)),
                    ("out", zeroed_words(m as usize)),
                    ("M", int(u64::from(m))),
                    ("N", int(u64::from(n))),
                    ("pass", int(0)),
                ],
            ),
            stage(
                [blocks(n, 128), 1, 1],
                [128, 1, 1],
                0,
                vec![
                    ("A", words(&a)),
                    (
                        "in",
                        StageArg::Output {
                            stage: 0,
                            buffer: "out".into(),
                            len: None,
                        },
                    ),
                    ("out", zeroed_words(n as usize)),
                    ("M", int(u64::from(m))),
                    ("N", int(u64::from(n))),
                    ("pass", int(1)),
                ],
            ),
        ],
        vec![expect(0, "out", tmp), expect(1, "out", y)],
    )
}

/// `(A x, A^T (A x))`.
pub(crate) fn reference(a: &[u32], x: &[u32], m: usize, n: usize) -> (Vec<u32>, Vec<u32>) {
    let tmp: Vec<u32> = (0..m)
        .map(|i| (0..n).fold(0u32, |s, j| s.wrapping_add(a[i * n + j].wrapping_mul(x[j]))))
        .collect();
    let y = (0..n)
        .map(|j| {
            (0..m).fold(0u32, |s, i| {
                s.wrapping_add(a[i * n + j].wrapping_mul(tmp[i]))
            })
        })
        .collect();
    (tmp, y)
}
