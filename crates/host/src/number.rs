//! One number syntax for every numeric option and argument, the assembler's: decimal, `0x`
//! hex, `0b` binary, `0o` octal, `_` between digits; for sizes and counts also a `K`, `M` or
//! `G` suffix (binary: 1K = 1024). Integer arguments also take a sign.

/// A non-negative integer: `4096`, `0x1000`, `0b1_0000`, `4K`, `1G`.
pub fn parse_u64(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, scale) = match t.as_bytes().last() {
        Some(b'k' | b'K') => (&t[..t.len() - 1], 1u64 << 10),
        Some(b'm' | b'M') => (&t[..t.len() - 1], 1 << 20),
        Some(b'g' | b'G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = if let Some(h) = lower.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (2, b)
    } else if let Some(o) = lower.strip_prefix("0o") {
        (8, o)
    } else {
        (10, lower.as_str())
    };
    let bad = || {
        format!(
            "`{text}` is not a number (decimal, 0x hex, 0b binary, 0o octal, `_` between \
             digits, K/M/G suffix)"
        )
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || body.contains("__") {
        return Err(bad());
    }
    let clean: String = body.chars().filter(|&c| c != '_').collect();
    let v = u64::from_str_radix(&clean, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => format!("`{text}` does not fit in 64 bits"),
        _ => bad(),
    })?;
    v.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` does not fit in 64 bits"))
}

/// An integer for a 64-bit slot: from -2^63 to 2^64 - 1 (negative values in two's
/// complement); anything outside is refused, never wrapped.
pub fn parse_i64_or_u64(text: &str) -> Result<u64, String> {
    let t = text.trim();
    match t.strip_prefix('-') {
        Some(rest) => {
            let v = parse_u64(rest)?;
            if v > 1u64 << 63 {
                return Err(format!(
                    "`{text}` is below -9223372036854775808, the smallest 64-bit value"
                ));
            }
            Ok(v.wrapping_neg())
        }
        None => parse_u64(t.strip_prefix('+').unwrap_or(t)),
    }
}

/// An integer with an optional sign, in [`parse_u64`]'s syntax: from -(2^64 - 1) to
/// 2^64 - 1, for the caller to range-check.
pub fn parse_i128(text: &str) -> Result<i128, String> {
    let t = text.trim();
    match t.strip_prefix('-') {
        Some(rest) => parse_u64(rest).map(|v| -i128::from(v)),
        None => parse_u64(t.strip_prefix('+').unwrap_or(t)).map(i128::from),
    }
}

/// `268435456` as `256 MiB`, `1073741824` as `1 GiB`, `1500` as `1.46 KiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size {
            return if n.is_multiple_of(size) {
                format!("{} {unit}", n / size)
            } else {
                format!("{:.2} {unit}", n as f64 / size as f64)
            };
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling() {
        for (t, v) in [
            ("0", 0),
            ("4096", 4096),
            ("4_096", 4096),
            ("0x1000", 4096),
            ("0X1000", 4096),
            ("0b1_0000_0000_0000", 4096),
            ("0o10000", 4096),
            ("4K", 4096),
            ("4k", 4096),
            ("1M", 1 << 20),
            ("1G", 1 << 30),
            ("0x10K", 16 << 10),
            ("18446744073709551615", u64::MAX),
        ] {
            assert_eq!(parse_u64(t), Ok(v), "{t}");
        }
        for t in [
            "",
            "x",
            "0x",
            "_1",
            "1_",
            "1__0",
            "-1",
            "1T",
            "18446744073709551616",
            "16G0",
        ] {
            assert!(parse_u64(t).is_err(), "{t}");
        }
        assert!(parse_u64("17179869184G").is_err());
    }

    #[test]
    fn signed_slots_do_not_wrap() {
        assert_eq!(parse_i64_or_u64("-1"), Ok(u64::MAX));
        assert_eq!(parse_i64_or_u64("-9223372036854775808"), Ok(1u64 << 63));
        assert!(parse_i64_or_u64("-9223372036854775809").is_err());
        assert!(parse_i64_or_u64("18446744073709551616").is_err());
        assert_eq!(parse_i64_or_u64("0xff"), Ok(255));
    }
}
