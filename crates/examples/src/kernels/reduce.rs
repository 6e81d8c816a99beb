use super::common::*;
use crate::{Case, Size, StageArg};

const BLOCK: u32 = 256;
const SHARED: u32 = 4096 + 128;

pub(super) fn case(size: Size) -> Case {
    let (n, groups): (u32, u32) = match size {
        Size::Small => (5000, 3),
        Size::Full => (1 << 23, 512),
    };
    let mut r = rng("reduce", size);
    let input = r.words(n as usize);
    let total = reference(&input);
    // Pass 1 leaves one partial sum per workgroup, pass 2 folds those in one workgroup.
    let partials: Vec<u32> = (0..groups)
        .map(|g| {
            let stride = (groups * BLOCK) as usize;
            let mut s = 0u32;
            for t in 0..BLOCK as usize {
                let mut i = g as usize * BLOCK as usize + t;
                while i < input.len() {
                    s = s.wrapping_add(input[i]);
                    i += stride;
                }
            }
            s
        })
        .collect();
    one_case(
        format!("n={n}"),
        vec![
            stage(
                [groups, 1, 1],
                [BLOCK, 1, 1],
                SHARED,
                vec![
                    ("in", words(&input)),
                    ("partial", zeroed_words(groups as usize)),
                    ("n", int(u64::from(n))),
                ],
            ),
            stage(
                [1, 1, 1],
                [BLOCK, 1, 1],
                SHARED,
                vec![
                    (
                        "in",
                        StageArg::Output {
                            stage: 0,
                            buffer: "partial".into(),
                            len: Some(4 * groups as usize),
                        },
                    ),
                    ("total", zeroed_words(1)),
                    ("n", int(u64::from(groups))),
                ],
            ),
        ],
        vec![
            expect(0, "partial", partials),
            expect(1, "total", vec![total]),
        ],
    )
}

pub(crate) fn reference(input: &[u32]) -> u32 {
    input.iter().fold(0u32, |s, x| s.wrapping_add(*x))
}
