use super::common::*;
use crate::{Case, Size, StageArg};

pub(super) fn case(size: Size) -> Case {
    let (nwords, grid): (u32, u32) = match size {
        Size::Small => (4099, 3),
        Size::Full => (1 << 22, 256),
    };
    let mut r = rng("histogram", size);
    // Skewed bytes (the AND of two uniform bytes favours small values and low popcounts),
    // so bins see very different counts and many lanes of one warp hit the same bin.
    let data: Vec<u8> = (0..4 * nwords as usize)
        .map(|_| (r.next_u32() & r.next_u32()) as u8)
        .collect();
    let hist = reference(&data);
    one_case(
        format!("{} bytes", data.len()),
        vec![stage(
            [grid, 1, 1],
            [256, 1, 1],
            1024,
            vec![
                ("data", StageArg::Bytes(data)),
                ("hist", zeroed_words(256)),
                ("nwords", int(u64::from(nwords))),
            ],
        )],
        vec![expect(0, "hist", hist)],
    )
}

pub(crate) fn reference(data: &[u8]) -> Vec<u32> {
    let mut h = vec![0u32; 256];
    for b in data {
        h[*b as usize] += 1;
    }
    h
}
