//! The lane loops: a lane function applied to the EXEC-active lanes of a row, with the
//! operand forms of the vector instructions (vector, uniform and immediate sources, 64-bit
//! pairs, compares into uniform masks, `saveexec`).

use crate::exec::ops::{hi, lo};
use crate::state::{Warp, LANES};

impl Warp {
    #[inline(always)]
    pub(crate) fn vput64(&mut self, d: usize, r: &[u64; LANES]) {
        let mut l0 = [0u32; LANES];
        let mut h0 = [0u32; LANES];
        for l in 0..LANES {
            l0[l] = lo(r[l]);
            h0[l] = hi(r[l]);
        }
        self.vput(d, &l0);
        self.vput(d + 1, &h0);
    }

    /// The 64-bit lanes of the vector pair starting at `r`.
    #[inline(always)]
    pub fn vpair(&self, r: usize) -> [u64; LANES] {
        let (a, b) = (&self.v[r], &self.v[r + 1]);
        let mut out = [0u64; LANES];
        for l in 0..LANES {
            out[l] = u64::from(a[l]) | (u64::from(b[l]) << 32);
        }
        out
    }

    #[inline(always)]
    pub(crate) fn vv(&mut self, d: usize, a: usize, b: usize, f: impl Fn(u32, u32) -> u32) {
        let (x, y) = (&self.v[a], &self.v[b]);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(x[l], y[l]);
        }
        self.vput(d, &r);
    }

    #[inline(always)]
    pub(crate) fn vs(&mut self, d: usize, a: usize, s: u32, f: impl Fn(u32, u32) -> u32) {
        let x = &self.v[a];
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(x[l], s);
        }
        self.vput(d, &r);
    }

    #[inline(always)]
    pub(crate) fn v1(&mut self, d: usize, a: usize, f: impl Fn(u32) -> u32) {
        let x = &self.v[a];
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(x[l]);
        }
        self.vput(d, &r);
    }

    #[inline(always)]
    pub(crate) fn vvv(
        &mut self,
        d: usize,
        a: usize,
        b: usize,
        c: usize,
        f: impl Fn(u32, u32, u32) -> u32,
    ) {
        let (x, y, z) = (&self.v[a], &self.v[b], &self.v[c]);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(x[l], y[l], z[l]);
        }
        self.vput(d, &r);
    }

    /// A per-lane function of the lane number (and anything the closure captured).
    #[inline(always)]
    pub(crate) fn vlane(&mut self, d: usize, f: impl Fn(usize) -> u32) {
        let mut r = [0u32; LANES];
        for (l, x) in r.iter_mut().enumerate() {
            *x = f(l);
        }
        self.vput(d, &r);
    }

    #[inline(always)]
    pub(crate) fn v64(&mut self, d: usize, f: impl Fn(usize) -> u64) {
        let mut r = [0u64; LANES];
        for (l, x) in r.iter_mut().enumerate() {
            *x = f(l);
        }
        self.vput64(d, &r);
    }

    /// A compare: the mask of EXEC-active lanes where `f` holds, into `u[d]`.
    #[inline(always)]
    pub(crate) fn cmp(&mut self, d: usize, f: impl Fn(usize) -> bool) {
        let mut m = 0u32;
        for l in 0..LANES {
            m |= u32::from(f(l)) << l;
        }
        self.u[d] = m & self.exec();
    }

    #[inline(always)]
    pub(crate) fn cmp_vv(&mut self, d: usize, a: usize, b: usize, f: impl Fn(u32, u32) -> bool) {
        let (x, y) = (self.v[a], self.v[b]);
        self.cmp(d, |l| f(x[l], y[l]));
    }

    #[inline(always)]
    pub(crate) fn cmp_vs(&mut self, d: usize, a: usize, s: u32, f: impl Fn(u32, u32) -> bool) {
        let x = self.v[a];
        self.cmp(d, |l| f(x[l], s));
    }

    #[inline(always)]
    pub(crate) fn cmp64(&mut self, d: usize, a: usize, b: usize, f: impl Fn(u64, u64) -> bool) {
        let (x, y) = (self.vpair(a), self.vpair(b));
        self.cmp(d, |l| f(x[l], y[l]));
    }

    /// `saveexec.*`: the old EXEC to `u[d]`, then EXEC = f(old, u[a]); the source is read
    /// first, so `d` may equal `a`.
    #[inline(always)]
    pub(crate) fn saveexec(&mut self, d: usize, a: usize, f: impl Fn(u32, u32) -> u32) {
        let old = self.exec();
        let cond = self.u[a];
        self.u[d] = old;
        self.set_exec(f(old, cond));
    }
}
