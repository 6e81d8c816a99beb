use super::common::*;
use crate::{Case, Size};

pub(super) fn case(size: Size) -> Case {
    // Small: two and a half chunks of 1024, so the carry and the ragged end both matter.
    let n: u32 = match size {
        Size::Small => 2600,
        Size::Full => 1 << 20,
    };
    let mut r = rng("scan", size);
    let input = r.words(n as usize);
    let out = reference(&input);
    one_case(
        format!("n={n}"),
        vec![stage(
            [1, 1, 1],
            [1024, 1, 1],
            4480,
            vec![
                ("in", words(&input)),
                ("out", zeroed_words(n as usize)),
                ("n", int(u64::from(n))),
            ],
        )],
        vec![expect(0, "out", out)],
    )
}

pub(crate) fn reference(input: &[u32]) -> Vec<u32> {
    let mut acc = 0u32;
    input
        .iter()
        .map(|x| {
            acc = acc.wrapping_add(*x);
            acc
        })
        .collect()
}
