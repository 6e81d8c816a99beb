use super::common::*;
use crate::{Case, Size};

const BLOCK: u32 = 256;
const RUN: usize = 2 * BLOCK as usize;

pub(super) fn case(size: Size) -> Case {
    let groups: u32 = match size {
        Size::Small => 3,
        Size::Full => 1024,
    };
    let mut r = rng("bitonic", size);
    let total = groups as usize * RUN;
    // Half the keys from a tiny range, so runs hold many equal keys.
    let keys: Vec<u32> = (0..total)
        .map(|i| {
            if i % 2 == 0 {
                r.next_u32()
            } else {
                r.range(0, 16)
            }
        })
        .collect();
    let out = reference(&keys);
    one_case(
        format!("{groups}x{RUN} keys"),
        vec![stage(
            [groups, 1, 1],
            [BLOCK, 1, 1],
            4 * RUN as u32,
            vec![("keys", words(&keys)), ("out", zeroed_words(total))],
        )],
        vec![expect(0, "out", out)],
    )
}

pub(crate) fn reference(keys: &[u32]) -> Vec<u32> {
    let mut out = keys.to_vec();
    for run in out.chunks_mut(RUN) {
        run.sort_unstable();
    }
    out
}
