//! Deterministic input generation: a xorshift64* stream per example and seed, so every run
//! (and every machine) launches the same data.

/// xorshift64* (Vigna): tiny, fast, and good enough for test data.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// The stream of `seed`; different seeds, even adjacent ones, give unrelated streams.
    pub fn new(seed: u64) -> Rng {
        // A zero state would stay zero; splitmix-style scrambling also separates close seeds.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng(if z == 0 { 1 } else { z })
    }

    /// The next 64 bits of the stream.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The high 32 bits of the next [`Rng::next_u64`].
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in `lo..hi` (`hi > lo`); the modulo bias is irrelevant for test data.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next_u64() % u64::from(hi - lo)) as u32
    }

    /// `n` words from [`Rng::next_u32`].
    pub fn words(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.next_u32()).collect()
    }

    /// `n` words from [`Rng::range`]`(lo, hi)`.
    pub fn words_in(&mut self, n: usize, lo: u32, hi: u32) -> Vec<u32> {
        (0..n).map(|_| self.range(lo, hi)).collect()
    }

    /// `n` bytes, each the top byte of one [`Rng::next_u64`].
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next_u64() >> 56) as u8).collect()
    }
}

/// Little-endian bytes of `words`, the layout of a u32 buffer in device memory.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The u32 words of a little-endian buffer; a short tail is dropped.
pub fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_seed_dependent() {
        assert_eq!(Rng::new(7).words(4), Rng::new(7).words(4));
        assert_ne!(Rng::new(7).words(4), Rng::new(8).words(4));
        assert_ne!(Rng::new(0).next_u64(), 0);
    }

    #[test]
    fn byte_round_trip() {
        let w = vec![1, 0xdead_beef, u32::MAX];
        assert_eq!(to_words(&to_bytes(&w)), w);
        assert_eq!(to_bytes(&[0x0403_0201]), vec![1, 2, 3, 4]);
    }

    #[test]
    fn range_stays_in_bounds() {
        let mut r = Rng::new(3);
        assert!((0..1000).all(|_| (5..9).contains(&r.range(5, 9))));
    }
}
