//! Small pieces of arithmetic the fits share.

/// Greatest common divisor.
pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `num / den` as a reduced fraction `(p, q)` with `q <= max_den`, when the division is
/// within `tolerance` (relative) of it; measured rates are exact rationals over a long run
/// but a start-up of a few cycles can shift them slightly.
pub(crate) fn ratio(num: u64, den: u64, max_den: u64, tolerance: f64) -> Option<(u64, u64)> {
    if den == 0 {
        return None;
    }
    let x = num as f64 / den as f64;
    let mut best: Option<(u64, u64, f64)> = None;
    for q in 1..=max_den {
        let p = (x * q as f64).round() as u64;
        if p == 0 {
            continue;
        }
        let err = ((p as f64 / q as f64) - x).abs() / x;
        if err <= tolerance && best.is_none_or(|b| err < b.2 - 1e-12) {
            best = Some((p, q, err));
        }
    }
    best.map(|(p, q, _)| {
        let g = gcd(p, q);
        (p / g, q / g)
    })
}

/// The smallest `x` in `lo..=hi` for which `pred` holds, given that it holds for `hi` and,
/// once it holds, for every larger value.
pub(crate) fn first_true<E>(
    mut lo: u64,
    mut hi: u64,
    mut pred: impl FnMut(u64) -> Result<bool, E>,
) -> Result<u64, E> {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid)? {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}

/// Shared-memory passes of one access of 32 lanes at byte addresses `lane * stride`
/// (`size` bytes each) with `banks` banks of `bank_bytes`: per bank, the distinct bank
/// words touched; the most of any bank.
pub(crate) fn passes(stride: u64, size: u64, banks: u64, bank_bytes: u64) -> u64 {
    let mut words: Vec<(u64, u64)> = Vec::with_capacity(64);
    for lane in 0..32u64 {
        let a = lane * stride;
        let first = a / bank_bytes;
        let last = (a + size - 1) / bank_bytes;
        for w in first..=last {
            words.push((w % banks, w));
        }
    }
    words.sort_unstable();
    words.dedup();
    let mut best = 0;
    let mut i = 0;
    while i < words.len() {
        let mut j = i;
        while j < words.len() && words[j].0 == words[i].0 {
            j += 1;
        }
        best = best.max((j - i) as u64);
        i = j;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios() {
        assert_eq!(ratio(840, 840, 16, 0.001), Some((1, 1)));
        assert_eq!(ratio(3360, 840, 16, 0.001), Some((4, 1)));
        assert_eq!(ratio(630, 840, 16, 0.001), Some((3, 4)));
    }

    #[test]
    fn bank_passes() {
        assert_eq!(passes(4, 4, 32, 4), 1);
        assert_eq!(passes(8, 4, 32, 4), 2);
        assert_eq!(passes(128, 4, 32, 4), 32);
        assert_eq!(passes(0, 4, 32, 4), 1);
        assert_eq!(passes(4, 4, 16, 8), 1);
        // Lane l at byte 129 l: word 32 l + l / 4 of 4-byte words (4 lanes a bank), or
        // byte 129 l in bank l of 128 one-byte banks.
        assert_eq!(passes(129, 1, 32, 4), 4);
        assert_eq!(passes(129, 1, 128, 1), 1);
    }
}
