use super::common::*;
use super::{fp, sgemm};
use crate::{Case, Size, StageArg};

pub(super) fn case(size: Size) -> Case {
    let (m, n, k): (u32, u32, u32) = match size {
        Size::Small => (32, 32, 48),
        Size::Full => (192, 192, 256),
    };
    let mut r = rng("hgemm", size);
    let a: Vec<u16> = (0..m * k).map(|_| half(&mut r)).collect();
    let b: Vec<u16> = (0..k * n).map(|_| half(&mut r)).collect();
    let widen = |h: &[u16]| h.iter().map(|&x| fp::from_f16(x)).collect::<Vec<u32>>();
    let c = sgemm::reference(&widen(&a), &widen(&b), m as usize, n as usize, k as usize);
    let bytes = |h: &[u16]| StageArg::Bytes(h.iter().flat_map(|x| x.to_le_bytes()).collect());
    gemm_case(m, n, k, bytes(&a), bytes(&b), c)
}

/// A random f16 of either sign with magnitude in [2^-6, 2) — normal, every fraction bit
/// random — plus now and then a zero or a subnormal, which the widening keeps exact.
fn half(r: &mut crate::gen::Rng) -> u16 {
    let x = r.next_u32();
    let sign = (x >> 31) as u16;
    let frac = (x & 0x3ff) as u16;
    let exp = match (x >> 10) & 31 {
        0 => 0,                  // zero or subnormal
        e => 9 + (e % 7) as u16, // 2^-6 .. 2^0
    };
    (sign << 15) | (exp << 10) | frac
}
