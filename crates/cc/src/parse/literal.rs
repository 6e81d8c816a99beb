//! What literal tokens mean: integer values and suffixes, floating literals' validated
//! spelling, character constants and string literals with their escapes resolved.

use crate::ast::{FloatSuffix, IntSuffix};

/// A numeric literal.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Number {
    Int {
        value: u128,
        suffix: IntSuffix,
        decimal: bool,
    },
    Float {
        text: String,
        suffix: FloatSuffix,
    },
}

/// Why a literal is rejected.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum LitError {
    /// Malformed: the message.
    Invalid(String),
    /// Well-formed but not implemented: what.
    Unsupported(&'static str),
}

fn invalid(message: impl Into<String>) -> LitError {
    LitError::Invalid(message.into())
}

/// Whether a preprocessing number is a floating constant. Decided from the spelling, not the
/// token kind, so that both agree by construction.
fn is_float(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() > 1 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        text.contains(['.', 'p', 'P'])
    } else if b.len() > 1 && b[0] == b'0' && (b[1] | 0x20) == b'b' {
        false
    } else {
        text.contains(['.', 'e', 'E'])
    }
}

/// Interprets a preprocessing number (an `Int` or `Float` token's spelling).
pub(super) fn number(text: &str) -> Result<Number, LitError> {
    if is_float(text) {
        float(text)
    } else {
        integer(text)
    }
}

fn int_suffix(s: &str) -> Option<IntSuffix> {
    let (u1, rest) = match s.strip_prefix(['u', 'U']) {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (long, rest) = if let Some(r) = rest.strip_prefix("ll").or(rest.strip_prefix("LL")) {
        (2, r)
    } else if let Some(r) = rest.strip_prefix(['l', 'L']) {
        (1, r)
    } else {
        (0, rest)
    };
    let (u2, rest) = match rest.strip_prefix(['u', 'U']) {
        Some(r) => (true, r),
        None => (false, rest),
    };
    (rest.is_empty() && !(u1 && u2)).then_some(IntSuffix {
        unsigned: u1 || u2,
        long,
    })
}

fn integer(text: &str) -> Result<Number, LitError> {
    let b = text.as_bytes();
    let (radix, start, name) = match b {
        [b'0', x, ..] if x | 0x20 == b'x' => (16, 2, "hexadecimal"),
        [b'0', x, ..] if x | 0x20 == b'b' => (2, 2, "binary"),
        [b'0', ..] => (8, 1, "octal"),
        _ => (10, 0, "decimal"),
    };
    let mut i = start;
    let mut value: Option<u128> = Some(0);
    while let Some(d) = b.get(i).and_then(|&c| (c as char).to_digit(radix)) {
        value = value
            .and_then(|v| v.checked_mul(radix as u128))
            .and_then(|v| v.checked_add(d as u128));
        i += 1;
    }
    if radix != 10 && radix != 8 && i == start {
        // `0x` alone: the `x` is no digit, so it reads as a suffix of `0`.
        return Err(invalid(format!(
            "invalid suffix '{}' on integer constant",
            &text[1..]
        )));
    }
    if radix < 10 {
        if let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            return Err(invalid(format!(
                "invalid digit '{}' in {name} constant",
                c as char
            )));
        }
    }
    let rest = text.get(i..).unwrap_or("");
    let Some(suffix) = int_suffix(rest) else {
        return Err(invalid(format!(
            "invalid suffix '{rest}' on integer constant"
        )));
    };
    match value {
        Some(value) if value <= u64::MAX as u128 => Ok(Number::Int {
            value,
            suffix,
            decimal: radix == 10,
        }),
        _ => Err(invalid("integer literal is too large")),
    }
}

fn float(text: &str) -> Result<Number, LitError> {
    let b = text.as_bytes();
    let hex = b.len() > 1 && b[0] == b'0' && (b[1] | 0x20) == b'x';
    let is_digit = |c: u8| {
        if hex {
            c.is_ascii_hexdigit()
        } else {
            c.is_ascii_digit()
        }
    };
    let mut i = if hex { 2 } else { 0 };
    let mut digits = 0;
    while b.get(i).is_some_and(|&c| is_digit(c)) {
        i += 1;
        digits += 1;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|&c| is_digit(c)) {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return Err(invalid(format!(
            "invalid suffix '{}' on floating constant",
            text.get(i..).unwrap_or("")
        )));
    }
    let exponent = if hex { b'p' } else { b'e' };
    if b.get(i).is_some_and(|&c| c | 0x20 == exponent) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let first = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == first {
            return Err(invalid("exponent has no digits"));
        }
    } else if hex {
        return Err(invalid(
            "hexadecimal floating constant requires an exponent",
        ));
    }
    let suffix = match text.get(i..).unwrap_or("") {
        "" => FloatSuffix::None,
        "f" | "F" => FloatSuffix::F,
        "h" | "H" => FloatSuffix::H,
        "l" | "L" => FloatSuffix::L,
        rest => {
            return Err(invalid(format!(
                "invalid suffix '{rest}' on floating constant"
            )))
        }
    };
    Ok(Number::Float {
        text: text[..i].to_string(),
        suffix,
    })
}

/// Resolves the escapes of a character constant's or string literal's body into bytes
/// (characters outside ASCII as their UTF-8 bytes). `quote` is the delimiter, named in the
/// message for a body that ends in a lone backslash.
fn unescape(
    body: &str,
    quote: char,
    out: &mut Vec<u8>,
    warnings: &mut Vec<String>,
) -> Result<(), LitError> {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let Some(&c) = b.get(i) else {
            return Err(invalid(format!("missing terminating {quote} character")));
        };
        i += 1;
        let byte = match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'e' => 27,
            b'\\' | b'\'' | b'"' | b'?' => c,
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                for _ in 0..2 {
                    match b.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + (d - b'0') as u32;
                            i += 1;
                        }
                        _ => break,
                    }
                }
                if v > 255 {
                    return Err(invalid("octal escape sequence out of range"));
                }
                v as u8
            }
            b'x' => {
                let first = i;
                let mut v: u32 = 0;
                let mut overflow = false;
                while let Some(d) = b.get(i).and_then(|&d| (d as char).to_digit(16)) {
                    v = v.saturating_mul(16).saturating_add(d);
                    overflow |= v > 255;
                    i += 1;
                }
                if i == first {
                    return Err(invalid("\\x used with no following hex digits"));
                }
                if overflow {
                    return Err(invalid("hex escape sequence out of range"));
                }
                v as u8
            }
            b'u' | b'U' => {
                let n = if c == b'u' { 4 } else { 8 };
                let hex = body
                    .get(i..i + n)
                    .filter(|h| h.bytes().all(|d| d.is_ascii_hexdigit()));
                let ch = hex
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32);
                let Some(ch) = ch else {
                    return Err(invalid("incomplete universal character name"));
                };
                i += n;
                let mut buf = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            _ => {
                // An unknown escape is the character itself, as in C compilers (with a
                // warning); the character may be a multi-byte UTF-8 sequence.
                let start = i - 1;
                let len = body[start..].chars().next().map_or(1, char::len_utf8);
                warnings.push(format!(
                    "unknown escape sequence '\\{}'",
                    &body[start..start + len]
                ));
                out.extend_from_slice(&b[start..start + len]);
                i = start + len;
                continue;
            }
        };
        out.push(byte);
    }
    Ok(())
}

/// The value of a character constant (`'a'`, `'\n'`, `'\xff'` = -1 as char is signed) and its
/// warnings.
pub(super) fn char_const(text: &str) -> Result<(i64, Vec<String>), LitError> {
    if !text.starts_with('\'') {
        return Err(LitError::Unsupported("wide character literals"));
    }
    let body = text
        .get(1..text.len().saturating_sub(1))
        .filter(|_| text.len() >= 2 && text.ends_with('\''))
        .ok_or_else(|| invalid("missing terminating ' character"))?;
    let mut bytes = Vec::new();
    let mut warnings = Vec::new();
    unescape(body, '\'', &mut bytes, &mut warnings)?;
    match bytes.len() {
        0 => Err(invalid("empty character constant")),
        1 => Ok((bytes[0] as i8 as i64, warnings)),
        n => {
            warnings.push(if n > 4 {
                "character constant too long for its type".to_string()
            } else {
                "multi-character character constant".to_string()
            });
            let v = bytes.iter().fold(0u32, |v, &b| (v << 8) | b as u32);
            Ok((v as i32 as i64, warnings))
        }
    }
}

/// The bytes of one string literal (without a terminating NUL) and its warnings.
pub(super) fn string_lit(text: &str) -> Result<(Vec<u8>, Vec<String>), LitError> {
    if !text.starts_with('"') {
        return Err(LitError::Unsupported(
            "prefixed (wide or UTF) string literals",
        ));
    }
    let body = text
        .get(1..text.len().saturating_sub(1))
        .filter(|_| text.len() >= 2 && text.ends_with('"'))
        .ok_or_else(|| invalid("missing terminating '\"' character"))?;
    let mut bytes = Vec::new();
    let mut warnings = Vec::new();
    unescape(body, '"', &mut bytes, &mut warnings)?;
    Ok((bytes, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str) -> (u128, IntSuffix, bool) {
        match number(text) {
            Ok(Number::Int {
                value,
                suffix,
                decimal,
            }) => (value, suffix, decimal),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn err(text: &str) -> String {
        match number(text) {
            Err(LitError::Invalid(m)) => m,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn integers() {
        let s = |unsigned, long| IntSuffix { unsigned, long };
        assert_eq!(int("42"), (42, s(false, 0), true));
        assert_eq!(int("0x1fu"), (31, s(true, 0), false));
        assert_eq!(int("10UL"), (10, s(true, 1), true));
        assert_eq!(int("10lu"), (10, s(true, 1), true));
        assert_eq!(int("7ll"), (7, s(false, 2), true));
        assert_eq!(int("7ULL"), (7, s(true, 2), true));
        assert_eq!(int("7llU"), (7, s(true, 2), true));
        assert_eq!(int("017"), (15, s(false, 0), false));
        assert_eq!(int("0"), (0, s(false, 0), false));
        assert_eq!(int("0b1011"), (11, s(false, 0), false));
        assert_eq!(
            int("0XFFFFFFFFFFFFFFFF"),
            (u64::MAX as u128, s(false, 0), false)
        );
        assert_eq!(
            int("18446744073709551615"),
            (u64::MAX as u128, s(false, 0), true)
        );
    }

    #[test]
    fn bad_integers() {
        assert_eq!(err("18446744073709551616"), "integer literal is too large");
        assert_eq!(err("0x10000000000000000"), "integer literal is too large");
        assert_eq!(
            err("123456789012345678901234567890123456789012345678901234567890"),
            "integer literal is too large"
        );
        assert_eq!(err("08"), "invalid digit '8' in octal constant");
        assert_eq!(err("0b102"), "invalid digit '2' in binary constant");
        assert_eq!(err("0x"), "invalid suffix 'x' on integer constant");
        assert_eq!(err("0b"), "invalid suffix 'b' on integer constant");
        assert_eq!(err("12abc"), "invalid suffix 'abc' on integer constant");
        assert_eq!(err("1lL"), "invalid suffix 'lL' on integer constant");
        assert_eq!(err("1uu"), "invalid suffix 'uu' on integer constant");
        assert_eq!(err("1ulu"), "invalid suffix 'ulu' on integer constant");
        assert_eq!(err("0x1e+5"), "invalid suffix '+5' on integer constant");
    }

    fn fl(text: &str) -> (String, FloatSuffix) {
        match number(text) {
            Ok(Number::Float { text, suffix }) => (text, suffix),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn floats() {
        assert_eq!(fl("1.5f"), ("1.5".into(), FloatSuffix::F));
        assert_eq!(fl("2e-3"), ("2e-3".into(), FloatSuffix::None));
        assert_eq!(fl("0x1.8p3f"), ("0x1.8p3".into(), FloatSuffix::F));
        assert_eq!(fl("1.0h"), ("1.0".into(), FloatSuffix::H));
        assert_eq!(fl("1.L"), ("1.".into(), FloatSuffix::L));
        assert_eq!(fl(".5"), (".5".into(), FloatSuffix::None));
        assert_eq!(fl("09.5"), ("09.5".into(), FloatSuffix::None));
        assert_eq!(fl("1E+10F"), ("1E+10".into(), FloatSuffix::F));
        assert_eq!(fl("0x.fP-2"), ("0x.fP-2".into(), FloatSuffix::None));
        assert_eq!(err("1.5e"), "exponent has no digits");
        assert_eq!(err("1e+f"), "exponent has no digits");
        assert_eq!(
            err("0x1.8"),
            "hexadecimal floating constant requires an exponent"
        );
        assert_eq!(err("1.5ff"), "invalid suffix 'ff' on floating constant");
        assert_eq!(err("1.2.3"), "invalid suffix '.3' on floating constant");
        assert_eq!(err("0x.p1"), "invalid suffix 'p1' on floating constant");
    }

    fn ch(text: &str) -> i64 {
        char_const(text).unwrap().0
    }

    #[test]
    fn characters() {
        assert_eq!(ch("'a'"), 97);
        assert_eq!(ch(r"'\n'"), 10);
        assert_eq!(ch(r"'\x41'"), 65);
        assert_eq!(ch(r"'\101'"), 65);
        assert_eq!(ch(r"'\0'"), 0);
        assert_eq!(ch(r"'\xff'"), -1);
        assert_eq!(ch(r"'\377'"), -1);
        assert_eq!(ch(r"'\''"), 39);
        assert_eq!(ch(r"'\\'"), 92);
        assert_eq!(ch(r"'\?'"), 63);
        assert_eq!(ch(r"'\a'"), 7);
        assert_eq!(ch(r"'\v'"), 11);
        assert_eq!(ch(r"'ab'"), 0x6162);
        assert_eq!(
            char_const("'ab'").unwrap().1,
            ["multi-character character constant"]
        );
        assert_eq!(
            char_const(r"'\q'").unwrap(),
            (113, vec![r"unknown escape sequence '\q'".to_string()])
        );
        let bad = |t: &str| match char_const(t) {
            Err(LitError::Invalid(m)) => m,
            other => panic!("{t}: {other:?}"),
        };
        assert_eq!(bad("''"), "empty character constant");
        assert_eq!(bad(r"'\x'"), "\\x used with no following hex digits");
        assert_eq!(bad(r"'\x100'"), "hex escape sequence out of range");
        assert_eq!(bad(r"'\777'"), "octal escape sequence out of range");
        assert_eq!(bad(r"'\'"), "missing terminating ' character");
        assert_eq!(bad("'"), "missing terminating ' character");
        assert_eq!(
            char_const("L'a'"),
            Err(LitError::Unsupported("wide character literals"))
        );
    }

    #[test]
    fn strings() {
        assert_eq!(string_lit(r#""a\tb\x41\0""#).unwrap().0, b"a\tbA\0");
        assert_eq!(string_lit(r#""\u00e9""#).unwrap().0, "é".as_bytes());
        assert_eq!(string_lit("\"é\"").unwrap().0, "é".as_bytes());
        assert_eq!(string_lit(r#""""#).unwrap().0, b"");
        assert!(matches!(string_lit(r#""\u12""#), Err(LitError::Invalid(_))));
        assert!(matches!(
            string_lit(r#"L"x""#),
            Err(LitError::Unsupported(_))
        ));
    }
}
