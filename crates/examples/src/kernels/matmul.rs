use super::common::*;
use crate::{Case, Size};
use rayon::prelude::*;

pub(super) fn case(size: Size) -> Case {
    let (m, n, k): (u32, u32, u32) = match size {
        Size::Small => (32, 48, 64),
        Size::Full => (384, 384, 384),
    };
    let mut r = rng("matmul", size);
    let a = r.words((m * k) as usize);
    let b = r.words((k * n) as usize);
    let c = reference(&a, &b, m as usize, n as usize, k as usize);
    gemm_case(m, n, k, words(&a), words(&b), c)
}

pub(crate) fn reference(a: &[u32], b: &[u32], m: usize, n: usize, k: usize) -> Vec<u32> {
    let mut c = vec![0u32; m * n];
    c.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        for p in 0..k {
            let x = a[i * k + p];
            for (j, cij) in row.iter_mut().enumerate() {
                *cij = cij.wrapping_add(x.wrapping_mul(b[p * n + j]));
            }
        }
    });
    c
}
