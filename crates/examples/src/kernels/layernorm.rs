use super::common::*;
use super::fp;
use crate::{Case, Expected, Outputs, Size};

pub(super) fn case(size: Size) -> Case {
    let (rows, cols): (u32, u32) = match size {
        Size::Small => (100, 24),
        Size::Full => (4096, 96),
    };
    let mut r = rng("layernorm", size);
    // Rows with an offset and a spread of their own, so that mean and variance matter.
    let mut x = Vec::with_capacity((rows * cols) as usize);
    for _ in 0..rows {
        let offset = fp::mul(fp::unit(&mut r), 0x4080_0000); // [-4, 4)
        let scale = fp::from_u32(r.range(1, 9));
        x.extend((0..cols).map(|_| fp::fma(fp::unit(&mut r), scale, offset)));
    }
    let gamma: Vec<u32> = (0..cols)
        .map(|_| fp::add(fp::ONE, fp::mul(fp::unit(&mut r), 0x3e80_0000)))
        .collect();
    let beta: Vec<u32> = (0..cols)
        .map(|_| fp::mul(fp::unit(&mut r), 0x3e80_0000))
        .collect();
    let inv_cols = fp::div(fp::ONE, fp::from_u32(cols));
    let rstd = x
        .chunks(cols as usize)
        .map(|row| {
            let (_, var_eps) = moments(row, inv_cols, EPS);
            // 1/sqrt in binary64 (sqrt and division correctly rounded: no libm involved),
            // far inside the 1 ulp allowed.
            fp::nearest(1.0 / fp::value(var_eps).sqrt())
        })
        .collect();
    one_case(
        format!("{rows}x{cols}"),
        vec![stage(
            [blocks(rows, 64), 1, 1],
            [64, 1, 1],
            0,
            vec![
                ("X", words(&x)),
                ("gamma", words(&gamma)),
                ("beta", words(&beta)),
                ("Y", zeroed_words((rows * cols) as usize)),
                ("R", zeroed_words(rows as usize)),
                ("rows", int(u64::from(rows))),
                ("cols", int(u64::from(cols))),
                ("inv_cols", int(u64::from(inv_cols))),
                ("eps", int(u64::from(EPS))),
            ],
        )],
        vec![expect_within(0, "R", rstd, 1)],
    )
}

/// 1e-5 rounded to f32.
const EPS: u32 = 0x3727_c5ac;

/// `(mean, var + eps)` of a row, as the kernel computes them.
fn moments(row: &[u32], inv_cols: u32, eps: u32) -> (u32, u32) {
    let s = row.iter().fold(fp::ZERO, |s, &v| fp::add(s, v));
    let mean = fp::mul(s, inv_cols);
    let q = row.iter().fold(fp::ZERO, |q, &v| {
        let d = fp::sub(v, mean);
        fp::fma(d, d, q)
    });
    (mean, fp::add(fp::mul(q, inv_cols), eps))
}

/// Y from the frsq results R the kernel computed.
pub(super) fn derive(case: &Case, out: &Outputs) -> Vec<Expected> {
    let cols = (input_int(case, 0, "cols") as usize).max(1);
    let inv_cols = input_int(case, 0, "inv_cols") as u32;
    let eps = input_int(case, 0, "eps") as u32;
    let x = input_words(case, 0, "X");
    let gamma = input_words(case, 0, "gamma");
    let beta = input_words(case, 0, "beta");
    let rstd = out.words(0, "R");
    let mut y = Vec::with_capacity(x.len());
    for (row, &r) in x.chunks(cols).zip(&rstd) {
        let (mean, _) = moments(row, inv_cols, eps);
        for (j, &v) in row.iter().enumerate() {
            y.push(fp::fma(fp::mul(fp::sub(v, mean), r), gamma[j], beta[j]));
        }
    }
    vec![expect(0, "Y", y)]
}
