use super::common::*;
use super::fp;
use crate::{Case, Expected, Outputs, Size};

/// log2(e) rounded to f32, as the kernel loads it.
const LOG2E: u32 = 0x3fb8_aa3b;

pub(super) fn case(size: Size) -> Case {
    let (rows, cols): (u32, u32) = match size {
        Size::Small => (100, 24),
        Size::Full => (4096, 128),
    };
    let mut r = rng("softmax", size);
    // Logits in [-8, 8): unit() scaled by a power of two stays exact.
    let x: Vec<u32> = (0..rows * cols)
        .map(|_| fp::mul(fp::unit(&mut r), 0x4100_0000))
        .collect();
    let exps = exponents(&x, cols as usize)
        .into_iter()
        .map(|t| fp::nearest(fp::value(t).exp2()))
        .collect();
    let n = (rows * cols) as usize;
    one_case(
        format!("{rows}x{cols}"),
        vec![stage(
            [blocks(rows, 64), 1, 1],
            [64, 1, 1],
            0,
            vec![
                ("X", words(&x)),
                ("E", zeroed_words(n)),
                ("Y", zeroed_words(n)),
                ("rows", int(u64::from(rows))),
                ("cols", int(u64::from(cols))),
            ],
        )],
        // 2^t to within fexp2's bound: the exact value rounded to nearest (the host's
        // binary64 exp2 is far more accurate than the 1 ulp this allows).
        vec![expect_within(0, "E", exps, 1)],
    )
}

/// The fexp2 arguments `fmul(fsub(x_j, max), log2e)` of every element, row by row.
fn exponents(x: &[u32], cols: usize) -> Vec<u32> {
    x.chunks(cols)
        .flat_map(|row| {
            let m = row[1..].iter().fold(row[0], |m, &v| fp::max(m, v));
            row.iter().map(move |&v| fp::mul(fp::sub(v, m), LOG2E))
        })
        .collect()
}

/// Y from the exponentials E the kernel computed: the sum in element order from +0.0,
/// frcp (correctly rounded: a division), one multiply per element.
pub(super) fn derive(case: &Case, out: &Outputs) -> Vec<Expected> {
    let cols = input_int(case, 0, "cols") as usize;
    let e = out.words(0, "E");
    let y = e
        .chunks(cols.max(1))
        .flat_map(|row| {
            let s = row.iter().fold(fp::ZERO, |s, &v| fp::add(s, v));
            let rcp = fp::div(fp::ONE, s);
            row.iter().map(move |&v| fp::mul(v, rcp))
        })
        .collect();
    vec![expect(0, "Y", y)]
}
