//! The generator's pseudo-random numbers: xoshiro256** seeded through SplitMix64 (the
//! `rand_xoshiro` crate), so a seed gives the same stream on every host; a test pins the
//! stream, so a dependency update cannot change it unnoticed.

use rand_core::{Rng as _, SeedableRng};
use rand_xoshiro::Xoshiro256StarStar;

/// A deterministic pseudo-random stream (xoshiro256**).
#[derive(Clone, Debug)]
pub struct Rng {
    inner: Xoshiro256StarStar,
}

impl Rng {
    /// The stream of `seed` (its state filled by SplitMix64 from the seed).
    pub fn new(seed: u64) -> Rng {
        Rng {
            inner: Xoshiro256StarStar::seed_from_u64(seed),
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A number in `0..n` (`n > 0`), without modulo bias worth caring about at these sizes
    /// (the 128-bit multiply-shift of Lemire without the rejection step).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// An index into a collection of `n > 0` elements.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        debug_assert!(lo <= hi);
        lo.wrapping_add(self.below((hi.wrapping_sub(lo) as u64).wrapping_add(1).max(1)) as i64)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// An index chosen with the given weights (at least one non-zero).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        debug_assert!(total > 0);
        let mut r = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if r < w as u64 {
                return i;
            }
            r -= w as u64;
        }
        weights.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn stream_is_fixed() {
        // The stream is part of the format of a test case: a seed must give the same
        // program forever, so its first outputs are pinned.
        let mut r = Rng::new(0);
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        let mut again = Rng::new(0);
        assert_eq!(first, (0..3).map(|_| again.next_u64()).collect::<Vec<_>>());
        assert_eq!(first[0], 0x99ec_5f36_cb75_f2b4);
        assert_ne!(Rng::new(1).next_u64(), first[0]);
    }

    #[test]
    fn below_and_weighted_stay_in_range() {
        let mut r = Rng::new(7);
        for n in 1..50u64 {
            for _ in 0..50 {
                assert!(r.below(n) < n);
            }
        }
        let mut seen = [0u32; 3];
        for _ in 0..3000 {
            seen[r.weighted(&[1, 0, 2])] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen[0] > 700 && seen[2] > 1500, "{seen:?}");
        for _ in 0..100 {
            let v = r.range(-3, 3);
            assert!((-3..=3).contains(&v));
        }
    }
}
