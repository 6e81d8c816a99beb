//! The f32 operations of the float kernels' host references: warpkit-float's exact
//! soft-float (verified against Berkeley TestFloat) in round-to-nearest-even, the rounding
//! mode the kernels run in (`rm=dyn` with `mode` at its reset value). The exception flags
//! are dropped: the kernels enable no trap, so flags never change a result.

use warpkit_float::{self as wf, Round, F16, F32, F64};

pub(super) const ZERO: u32 = 0;
pub(super) const ONE: u32 = 0x3f80_0000;

pub(super) fn add(a: u32, b: u32) -> u32 {
    wf::add::<F32>(a, b, Round::Rne).0
}

pub(super) fn sub(a: u32, b: u32) -> u32 {
    wf::sub::<F32>(a, b, Round::Rne).0
}

pub(super) fn mul(a: u32, b: u32) -> u32 {
    wf::mul::<F32>(a, b, Round::Rne).0
}

/// `a * b + c` with one rounding (`ffma.f32`).
pub(super) fn fma(a: u32, b: u32, c: u32) -> u32 {
    wf::fma::<F32>(a, b, c, Round::Rne).0
}

pub(super) fn div(a: u32, b: u32) -> u32 {
    wf::div::<F32>(a, b, Round::Rne).0
}

/// `fmax.f32`: maximumNumber.
pub(super) fn max(a: u32, b: u32) -> u32 {
    wf::max::<F32>(a, b).0
}

/// `fcmp.gt.f32`.
pub(super) fn gt(a: u32, b: u32) -> bool {
    wf::lt::<F32>(b, a).0
}

/// `cvt.f32.u32`.
pub(super) fn from_u32(x: u32) -> u32 {
    wf::from_u64::<F32>(u64::from(x), Round::Rne).0
}

/// `cvt.f32.f16` (exact).
pub(super) fn from_f16(h: u16) -> u32 {
    wf::convert::<F16, F32>(h, Round::Rne).0
}

/// `x` rounded to the nearest f32 (ties to even): the reference an SFU result is
/// checked against within its ulp bound.
pub(super) fn nearest(x: f64) -> u32 {
    wf::convert::<F64, F32>(x.to_bits(), Round::Rne).0
}

pub(super) fn value(bits: u32) -> f64 {
    f64::from(f32::from_bits(bits))
}

/// A uniformly spread f32 in [-1, 1) with 24 significant bits (exact by construction).
pub(super) fn unit(r: &mut crate::gen::Rng) -> u32 {
    let k = r.range(0, 1 << 24) as i32 - (1 << 23);
    (k as f32 / (1 << 23) as f32).to_bits()
}
