//! Byte-level scanning of one source line. Positions are byte offsets into the line; the
//! syntax is ASCII, so every position the scanner stops at is a character boundary.

/// Characters of identifiers: symbols, mnemonics (`add.vi`), directives (`.word`).
#[inline(always)]
pub fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'.' || b == b'$'
}

#[inline(always)]
pub fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$'
}

/// The statement part of a line: everything before its comment. `//` and `;` always start
/// a comment. `#` starts one unless it is an immediate marker (`#5`, `#-1`, `#(x)`) at the
/// start of an operand, i.e. right after the mnemonic or a comma. Inside a string literal
/// (`.asciz "a; b"`) none of them does.
pub fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    // Most lines have no comment character at all; jump to the first candidate.
    let Some(first) = memchr::memchr3(b';', b'/', b'#', b) else {
        return line;
    };
    if b[first] == b';' && !b[..first].contains(&b'"') {
        return &line[..first];
    }
    let mut i = 0;
    // Whether the text since the last `,` (or since the mnemonic) is still blank, so a `#`
    // here would begin an operand.
    let mut operand_start = false;
    let mut words = 0usize;
    let mut in_word = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                // A string literal, escapes included: its characters are text.
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if !in_word {
                    in_word = true;
                    words += 1;
                }
                operand_start = false;
            }
            b';' => return &line[..i],
            b'/' if b.get(i + 1) == Some(&b'/') => return &line[..i],
            b'#' => {
                let next = b.get(i + 1).copied().unwrap_or(b' ');
                let marker = operand_start
                    && (next.is_ascii_digit() || matches!(next, b'-' | b'+' | b'(' | b'~'));
                if !marker {
                    return &line[..i];
                }
                operand_start = false;
                in_word = true;
            }
            b',' | b'=' => {
                operand_start = true;
                in_word = false;
            }
            b':' if words == 1 && !operand_start => {
                // A label: the statement proper starts after it.
                words = 0;
                in_word = false;
            }
            b' ' | b'\t' => {
                if in_word {
                    in_word = false;
                    if words == 1 {
                        operand_start = true;
                    }
                }
            }
            _ => {
                if !in_word {
                    in_word = true;
                    words += 1;
                    if words > 1 {
                        operand_start = false;
                    }
                }
                if words > 1 {
                    operand_start = false;
                }
            }
        }
        i += 1;
    }
    line
}

/// FxHash-style multiply-rotate hashing: the keys are short, trusted-enough identifiers
/// (mnemonics, labels), and SipHash costs more than the rest of a line's work.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            let w = u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 59);
            h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        self.0 = h;
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FastHash = std::hash::BuildHasherDefault<FastHasher>;

/// The instruction called `word`, ASCII case ignored, through a table built once from
/// `INSTRUCTIONS`.
pub fn lookup_mnemonic(word: &str) -> Option<warpkit_isa::Op> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static MAP: OnceLock<HashMap<[u64; 4], warpkit_isa::Op, FastHash>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        warpkit_isa::INSTRUCTIONS
            .iter()
            .filter_map(|d| mnemonic_key(d.mnemonic).map(|k| (k, d.op)))
            .collect()
    });
    map.get(&mnemonic_key(word)?).copied()
}

/// A mnemonic folded to lower case and packed into fixed words: hashing and comparing it
/// costs a few instructions, without a call to `memcmp`.
#[inline]
fn mnemonic_key(word: &str) -> Option<[u64; 4]> {
    let b = word.as_bytes();
    if b.len() > 32 {
        return None;
    }
    let mut key = [0u64; 4];
    for (i, k) in key.iter_mut().enumerate() {
        // Whole 8-byte loads where possible: a variable-length copy would call memcpy.
        let chunk = b.get(i * 8..).unwrap_or(&[]);
        let w = match chunk.first_chunk::<8>() {
            Some(c) => u64::from_le_bytes(*c),
            None => chunk
                .iter()
                .rev()
                .fold(0u64, |acc, &byte| (acc << 8) | u64::from(byte)),
        };
        // Setting bit 5 of every present byte folds A-Z to a-z and leaves digits, `.` and
        // `$` alone; `_` becomes 0x7f on both sides of the comparison, which is no ident
        // character, so no two identifiers fold together.
        let n = b.len().saturating_sub(i * 8).min(8);
        let present = if n == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * n)) - 1
        };
        *k = w | (0x2020_2020_2020_2020 & present);
    }
    Some(key)
}

/// Skip blanks from `pos` (a `\r` can only be the end of a CRLF line).
#[inline(always)]
pub fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() && matches!(b[pos], b' ' | b'\t' | b'\r') {
        pos += 1;
    }
    pos
}

/// The end of the identifier starting at `pos` (which must satisfy [`is_ident_start`]).
#[inline(always)]
pub fn ident_end(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() && is_ident_char(b[pos]) {
        pos += 1;
    }
    pos
}

/// A register as written: `v5`, `u3`, `v5.l`, `v[4:5]`, `u[8:11]`. Numbers are kept wide so
/// `v999` can be reported rather than wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegTok {
    V(u32),
    U(u32),
    VHalf(u32, bool),
    UHalf(u32, bool),
    VGroup(u32, u32),
    UGroup(u32, u32),
}

impl RegTok {
    pub fn describe(self) -> String {
        match self {
            RegTok::V(n) => format!("v{n}"),
            RegTok::U(n) => format!("u{n}"),
            RegTok::VHalf(n, h) => format!("v{n}.{}", if h { 'h' } else { 'l' }),
            RegTok::UHalf(n, h) => format!("u{n}.{}", if h { 'h' } else { 'l' }),
            RegTok::VGroup(a, b) => format!("v[{a}:{b}]"),
            RegTok::UGroup(a, b) => format!("u[{a}:{b}]"),
        }
    }
}

fn small_number(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 6 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Leading zeros (`v05`) are not register syntax; `v0` is.
    if s.len() > 1 && s[0] == b'0' {
        return None;
    }
    Some(s.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0')))
}

/// Parse `text` (already trimmed) as a register, or `None` if it is not register syntax.
pub fn parse_reg(text: &str) -> Option<RegTok> {
    let b = text.as_bytes();
    let (&first, rest) = b.split_first()?;
    let vector = match first {
        b'v' | b'V' => true,
        b'u' | b'U' => false,
        _ => return None,
    };
    if let Some(inner) = rest.strip_prefix(b"[") {
        let inner = inner.strip_suffix(b"]")?;
        // `v[4:7]` (seed 000 section 2.4); `u[4..7]` is how seed 001 writes descriptors.
        let (lo, hi) = match inner.iter().position(|&c| c == b':') {
            Some(colon) => (&inner[..colon], &inner[colon + 1..]),
            None => {
                let dots = inner.windows(2).position(|w| w == b"..")?;
                (&inner[..dots], &inner[dots + 2..])
            }
        };
        let lo = small_number(trim_bytes(lo))?;
        let hi = small_number(trim_bytes(hi))?;
        return Some(if vector {
            RegTok::VGroup(lo, hi)
        } else {
            RegTok::UGroup(lo, hi)
        });
    }
    let (num, half) = match rest {
        [n @ .., b'.', h] if matches!(h, b'l' | b'L' | b'h' | b'H') => {
            (n, Some(matches!(h, b'h' | b'H')))
        }
        n => (n, None),
    };
    let n = small_number(num)?;
    Some(match (vector, half) {
        (true, None) => RegTok::V(n),
        (false, None) => RegTok::U(n),
        (true, Some(h)) => RegTok::VHalf(n, h),
        (false, Some(h)) => RegTok::UHalf(n, h),
    })
}

pub fn trim_bytes(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &s[start..end]
}

/// Trim blanks from `line[s..e]`, returning the narrowed range.
pub fn trim_range(b: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && matches!(b[s], b' ' | b'\t' | b'\r') {
        s += 1;
    }
    while e > s && matches!(b[e - 1], b' ' | b'\t' | b'\r') {
        e -= 1;
    }
    (s, e)
}

/// Split `line[s..e]` at commas into at most `out.len()` trimmed ranges; returns how many
/// operands there are in total (possibly more than fit).
pub fn split_operands(b: &[u8], s: usize, e: usize, out: &mut [(usize, usize)]) -> usize {
    if s >= e {
        return 0;
    }
    let mut n = 0;
    let mut start = s;
    for i in s..=e {
        if i == e || b[i] == b',' {
            if n < out.len() {
                out[n] = trim_range(b, start, i);
            }
            n += 1;
            start = i + 1;
        }
    }
    n
}

/// An fp32 literal: `1.5`, `-2.0e-3`, `3e8`, `+0.5`. It needs a `.` or an exponent, so
/// plain integers stay integers; hex is never a float.
pub fn parse_f32_literal(text: &str) -> Option<f32> {
    let b = text.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == digits_start {
        return None;
    }
    let mut is_float = false;
    if b.get(i) == Some(&b'.') {
        is_float = true;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        is_float = true;
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return None;
        }
    }
    if !is_float || i != b.len() {
        return None;
    }
    text.parse::<f32>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments() {
        assert_eq!(strip_comment("add v1, v2, v3 # c"), "add v1, v2, v3 ");
        assert_eq!(strip_comment("add.vi v1, v2, #5"), "add.vi v1, v2, #5");
        assert_eq!(strip_comment("jal #-8 // x"), "jal #-8 ");
        assert_eq!(strip_comment("# 1 \"file\""), "");
        assert_eq!(strip_comment("nop # comment"), "nop ");
        assert_eq!(strip_comment("l: jal #8"), "l: jal #8");
        assert_eq!(strip_comment("x ; y"), "x ");
        assert_eq!(strip_comment("add v1, v2, v3#5"), "add v1, v2, v3");
        assert_eq!(
            strip_comment(".asciz \"a;b#c//d\\\"e\" # x"),
            ".asciz \"a;b#c//d\\\"e\" "
        );
        assert_eq!(strip_comment(".ascii \"x\" ; y"), ".ascii \"x\" ");
        assert_eq!(strip_comment(".ascii \"open;"), ".ascii \"open;");
    }

    #[test]
    fn registers() {
        assert_eq!(parse_reg("v5"), Some(RegTok::V(5)));
        assert_eq!(parse_reg("U63"), Some(RegTok::U(63)));
        assert_eq!(parse_reg("v5.h"), Some(RegTok::VHalf(5, true)));
        assert_eq!(parse_reg("v[4:5]"), Some(RegTok::VGroup(4, 5)));
        assert_eq!(parse_reg("u[ 8 : 11 ]"), Some(RegTok::UGroup(8, 11)));
        assert_eq!(parse_reg("u[8..11]"), Some(RegTok::UGroup(8, 11)));
        assert_eq!(parse_reg("u[8...11]"), None);
        assert_eq!(parse_reg("vm"), None);
        assert_eq!(parse_reg("v"), None);
        assert_eq!(parse_reg("v05"), None);
    }

    #[test]
    fn floats() {
        assert_eq!(parse_f32_literal("1.5"), Some(1.5));
        assert_eq!(parse_f32_literal("-2.0e-3"), Some(-2.0e-3));
        assert_eq!(parse_f32_literal("3e8"), Some(3e8));
        assert_eq!(parse_f32_literal("15"), None);
        assert_eq!(parse_f32_literal("0x1e5"), None);
        assert_eq!(parse_f32_literal("1.5x"), None);
    }
}
