//! The `clap` parsers of the numeric options: the syntax is `warpkit_host::number`'s (the
//! assembler's: `0x`, `0b`, `0o`, `_`, and `K/M/G` size suffixes).

use warpkit_host::number::parse_u64;

/// `parse_u64` for clap.
pub fn u64_arg(text: &str) -> Result<u64, String> {
    parse_u64(text)
}

/// A `u32` option (`--shared`).
pub fn u32_arg(text: &str) -> Result<u32, String> {
    let v = parse_u64(text)?;
    u32::try_from(v).map_err(|_| format!("`{text}` is more than {}", u32::MAX))
}

/// A `usize` option (`--threads`).
pub fn usize_arg(text: &str) -> Result<usize, String> {
    let v = parse_u64(text)?;
    usize::try_from(v).map_err(|_| format!("`{text}` is too large"))
}
