use super::common::*;
use crate::{Case, Size, StageArg};
use rayon::prelude::*;

pub(super) fn case(size: Size) -> Case {
    let (m, n, k): (u32, u32, u32) = match size {
        Size::Small => (32, 32, 64),
        Size::Full => (512, 512, 1024),
    };
    let mut r = rng("matmul_dp4a", size);
    let a = r.bytes((m * k) as usize);
    let bt = r.bytes((n * k) as usize);
    let c = reference(&a, &bt, m as usize, n as usize, k as usize);
    one_case(
        format!("{m}x{n}x{k} i8"),
        vec![stage(
            [n / 16, m / 16, 1],
            [16, 16, 1],
            0,
            vec![
                ("A", StageArg::Bytes(a)),
                ("Bt", StageArg::Bytes(bt)),
                ("C", zeroed_words((m * n) as usize)),
                ("M", int(u64::from(m))),
                ("N", int(u64::from(n))),
                ("K", int(u64::from(k))),
            ],
        )],
        vec![expect(0, "C", c)],
    )
}

/// `c[i][j] = sum_p a[i][p] * bt[j][p]` over signed bytes, as i32 bit patterns.
pub(crate) fn reference(a: &[u8], bt: &[u8], m: usize, n: usize, k: usize) -> Vec<u32> {
    let mut c = vec![0u32; m * n];
    c.par_chunks_mut(n).enumerate().for_each(|(i, out)| {
        let row = &a[i * k..(i + 1) * k];
        for (j, cij) in out.iter_mut().enumerate() {
            let col = &bt[j * k..(j + 1) * k];
            let dot: i32 = row
                .iter()
                .zip(col)
                .map(|(x, y)| i32::from(*x as i8) * i32::from(*y as i8))
                .sum();
            *cij = dot as u32;
        }
    });
    c
}
