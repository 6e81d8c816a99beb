use super::common::*;
use crate::{Case, Size};

const BLOCK: [u32; 3] = [24, 6, 1];

pub(super) fn case(size: Size) -> Case {
    // Neither dimension a multiple of the block: the right and bottom workgroups mask off.
    let (w, h): (u32, u32) = match size {
        Size::Small => (50, 29),
        Size::Full => (1920, 1080),
    };
    let mut r = rng("stencil", size);
    let img = r.words_in((w * h) as usize, 0, 256);
    let out = reference(&img, w as usize, h as usize);
    one_case(
        format!("{w}x{h}"),
        vec![stage(
            [blocks(w, BLOCK[0]), blocks(h, BLOCK[1]), 1],
            BLOCK,
            0,
            vec![
                ("in", words(&img)),
                ("out", zeroed_words((w * h) as usize)),
                ("W", int(u64::from(w))),
                ("H", int(u64::from(h))),
            ],
        )],
        vec![expect(0, "out", out)],
    )
}

pub(crate) fn reference(img: &[u32], w: usize, h: usize) -> Vec<u32> {
    const K: [[u32; 3]; 3] = [[1, 2, 1], [2, 4, 2], [1, 2, 1]];
    let mut out = vec![0u32; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut s = 0u32;
            for (dy, row) in K.iter().enumerate() {
                for (dx, k) in row.iter().enumerate() {
                    let yy = (y + dy).saturating_sub(1).min(h - 1);
                    let xx = (x + dx).saturating_sub(1).min(w - 1);
                    s = s.wrapping_add(k.wrapping_mul(img[yy * w + xx]));
                }
            }
            out[y * w + x] = s;
        }
    }
    out
}
