use super::common::*;
use crate::{Case, Size};

pub(super) fn case(size: Size) -> Case {
    let n: u32 = match size {
        Size::Small => 700,
        Size::Full => 1 << 18,
    };
    let mut r = rng("collatz", size);
    // Below 100000 every trajectory stays under 2^32 (the peak is 1570824736, from 77671).
    let mut starts = r.words_in(n as usize, 1, 100_000);
    starts[0] = 1; // a lane with nothing to do
    let steps = reference(&starts);
    one_case(
        format!("n={n}"),
        vec![stage(
            [blocks(n, 256), 1, 1],
            [256, 1, 1],
            0,
            vec![
                ("starts", words(&starts)),
                ("steps", zeroed_words(n as usize)),
                ("n", int(u64::from(n))),
            ],
        )],
        vec![expect(0, "steps", steps)],
    )
}

pub(crate) fn reference(starts: &[u32]) -> Vec<u32> {
    starts
        .iter()
        .map(|&s| {
            let (mut v, mut steps) = (s, 0u32);
            while v != 1 {
                v = if v % 2 == 1 {
                    v.wrapping_mul(3).wrapping_add(1)
                } else {
                    v / 2
                };
                steps += 1;
            }
            steps
        })
        .collect()
}
