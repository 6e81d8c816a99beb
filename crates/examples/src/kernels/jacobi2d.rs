use super::common::*;
use crate::{Case, Size, StageArg};

const BLOCK: [u32; 3] = [32, 8, 1];

pub(super) fn case(size: Size) -> Case {
    // Small: not a multiple of the block in either dimension.
    let (n, sweeps): (u32, usize) = match size {
        Size::Small => (45, 4),
        Size::Full => (1024, 20),
    };
    let mut r = rng("jacobi2d", size);
    let grid = r.words_in((n * n) as usize, 0, 1 << 20);
    let mut stages = Vec::with_capacity(sweeps);
    for sweep in 0..sweeps {
        let input = if sweep == 0 {
            words(&grid)
        } else {
            StageArg::Output {
                stage: sweep - 1,
                buffer: "out".into(),
                len: None,
            }
        };
        stages.push(stage(
            [blocks(n, BLOCK[0]), blocks(n, BLOCK[1]), 1],
            BLOCK,
            0,
            vec![
                ("in", input),
                ("out", zeroed_words((n * n) as usize)),
                ("N", int(u64::from(n))),
            ],
        ));
    }
    let out = reference(&grid, n as usize, sweeps);
    one_case(
        format!("{n}x{n}, {sweeps} sweeps"),
        stages,
        vec![expect(sweeps - 1, "out", out)],
    )
}

/// The grid after `sweeps` sweeps.
pub(crate) fn reference(grid: &[u32], n: usize, sweeps: usize) -> Vec<u32> {
    let mut cur = grid.to_vec();
    for _ in 0..sweeps {
        let mut next = cur.clone();
        for i in 1..n.saturating_sub(1) {
            for j in 1..n - 1 {
                let s = cur[i * n + j]
                    .wrapping_add(cur[i * n + j - 1])
                    .wrapping_add(cur[i * n + j + 1])
                    .wrapping_add(cur[(i - 1) * n + j])
                    .wrapping_add(cur[(i + 1) * n + j]);
                next[i * n + j] = s / 5;
            }
        }
        cur = next;
    }
    cur
}
