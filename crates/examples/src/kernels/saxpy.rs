use super::common::*;
use crate::{Case, Size};

pub(super) fn case(size: Size) -> Case {
    // Fewer threads than elements, so every lane loops; n is not a multiple of the grid,
    // so lanes leave the loop at different trips.
    let (n, grid): (u32, u32) = match size {
        Size::Small => (3001, 4),
        Size::Full => ((1 << 22) + 77, 512),
    };
    let mut r = rng("saxpy", size);
    let x = r.words(n as usize);
    let y = r.words(n as usize);
    let a = r.next_u32() | 1;
    let out = reference(a, &x, &y);
    one_case(
        format!("n={n}"),
        vec![stage(
            [grid, 1, 1],
            [256, 1, 1],
            0,
            vec![
                ("x", words(&x)),
                ("y", words(&y)),
                ("a", int(u64::from(a))),
                ("n", int(u64::from(n))),
            ],
        )],
        vec![expect(0, "y", out)],
    )
}

pub(crate) fn reference(a: u32, x: &[u32], y: &[u32]) -> Vec<u32> {
    x.iter()
        .zip(y)
        .map(|(x, y)| a.wrapping_mul(*x).wrapping_add(*y))
        .collect()
}
