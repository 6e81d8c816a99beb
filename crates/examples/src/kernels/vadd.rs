use super::common::*;
use crate::{Case, Size};

pub(super) fn case(size: Size) -> Case {
    // Small: not a multiple of the block, so the last workgroup masks lanes off.
    let n: u32 = match size {
        Size::Small => 1000,
        Size::Full => 1 << 22,
    };
    let mut r = rng("vadd", size);
    let a = r.words(n as usize);
    let b = r.words(n as usize);
    let out = reference(&a, &b);
    one_case(
        format!("n={n}"),
        vec![stage(
            [blocks(n, 256), 1, 1],
            [256, 1, 1],
            0,
            vec![
                ("a", words(&a)),
                ("b", words(&b)),
                ("out", zeroed_words(n as usize)),
                ("n", int(u64::from(n))),
            ],
        )],
        vec![expect(0, "out", out)],
    )
}

pub(crate) fn reference(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().zip(b).map(|(x, y)| x.wrapping_add(*y)).collect()
}
