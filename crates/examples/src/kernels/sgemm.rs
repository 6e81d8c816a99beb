use super::*;

pub(super) fn case(size: Size) -> Case {
    let (m, n, k): (u32, u32, u32) = match size {
        Size::Small => (32, 48, 64),
        Size::Full => (192, 192, 192),
    };
    let mut r = rng("sgemm", size);
    let a: Vec<u32> = (0..m * k).map(|_| fp::unit(&mut r)).collect();
    let b: Vec<u32> = (0..k * n).map(|_| fp::unit(&mut r)).collect();
    let c = reference(&a, &b, m as usize, n as usize, k as usize);
    one_case(
        format!("{m}x{n}x{k}"),
        vec![stage(
            [n / 16, m / 16, 1],
            [16, 16, 1],
            2048,
            vec![
                ("A", words(&a)),
                ("B", words(&b)),
                ("C", zeroed_words((m * n) as usize)),
                ("M", int(u64::from(m))),
                ("N", int(u64::from(n))),
                ("K", int(u64::from(k))),
            ],
        )],
        vec![expect(0, "C", c)],
    )
}

/// `C[i][j]`: the ffma chain over k in order, from +0.0 (f32 bit patterns in and out).
pub(crate) fn reference(a: &[u32], b: &[u32], m: usize, n: usize, k: usize) -> Vec<u32> {
    let mut c = vec![fp::ZERO; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            for j in 0..n {
                c[i * n + j] = fp::fma(x, b[p * n + j], c[i * n + j]);
            }
        }
    }
    c
}
