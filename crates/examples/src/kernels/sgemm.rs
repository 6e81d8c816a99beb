use super::common::*;
use super::fp;
use crate::{Case, Size};
use rayon::prelude::*;

pub(super) fn case(size: Size) -> Case {
    let (m, n, k): (u32, u32, u32) = match size {
        Size::Small => (32, 48, 64),
        Size::Full => (192, 192, 192),
    };
    let mut r = rng("sgemm", size);
    let a: Vec<u32> = (0..m * k).map(|_| fp::unit(&mut r)).collect();
    let b: Vec<u32> = (0..k * n).map(|_| fp::unit(&mut r)).collect();
    let c = reference(&a, &b, m as usize, n as usize, k as usize);
    gemm_case(m, n, k, words(&a), words(&b), c)
}

/// `C[i][j]`: the ffma chain over k in order, from +0.0 (f32 bit patterns in and out).
pub(crate) fn reference(a: &[u32], b: &[u32], m: usize, n: usize, k: usize) -> Vec<u32> {
    let mut c = vec![fp::ZERO; m * n];
    // Rows are independent; on the suite's pool they share the cores with other kernels.
    c.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        for p in 0..k {
            let x = a[i * k + p];
            for (j, cij) in row.iter_mut().enumerate() {
                *cij = fp::fma(x, b[p * n + j], *cij);
            }
        }
    });
    c
}
