//! Operand text: comments, operand lists, integers, type suffixes and the operand tokens
//! (registers, destinations, memory operands, immediates, labels).

use super::program::{FloatKind, Src};
use crate::diag::Sink;
use crate::gpr_number;
use std::ops::Range;

/// What an operand suffix says about a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Unsigned,
    Signed,
    Float(FloatKind),
    /// fp8 / fp8.1: named by [004], formats unknown (E-UNSUP).
    Fp8,
    /// `.d .w .h .b`: width only.
    Bare,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Suffix {
    pub(super) class: Class,
    pub(super) bits: u32,
}

fn suffix(text: &str) -> Option<Suffix> {
    let (class, bits) = match text {
        "ud" => (Class::Unsigned, 64),
        "uw" => (Class::Unsigned, 32),
        "uh" => (Class::Unsigned, 16),
        "ub" => (Class::Unsigned, 8),
        "sd" => (Class::Signed, 64),
        "sw" => (Class::Signed, 32),
        "sh" => (Class::Signed, 16),
        "sb" => (Class::Signed, 8),
        "fd" => (Class::Float(FloatKind::F64), 64),
        "fs" => (Class::Float(FloatKind::F32), 32),
        "fh" => (Class::Float(FloatKind::F16), 16),
        "bf" => (Class::Float(FloatKind::Bf16), 16),
        "fb" | "flb" => (Class::Fp8, 8),
        "d" => (Class::Bare, 64),
        "w" => (Class::Bare, 32),
        "h" => (Class::Bare, 16),
        "b" => (Class::Bare, 8),
        _ => return None,
    };
    Some(Suffix { class, bits })
}

// ---------------------------------------------------------------------------------------
// Operand tokens

#[derive(Debug, Clone)]
pub(super) enum Tok {
    Reg {
        src: Src,
        suffix: Option<Suffix>,
        span: Range<usize>,
    },
    Dest {
        dest: DestName,
        suffix: Option<Suffix>,
        span: Range<usize>,
    },
    Mem {
        base: Box<Tok>,
        offset: Option<Box<Tok>>,
        shift: u32,
        span: Range<usize>,
    },
    Int(i128, Range<usize>),
    Hi(String, Range<usize>),
    Lo(String, Range<usize>),
    Label(String, Range<usize>),
}

#[derive(Debug, Clone, Copy)]
pub(super) enum DestName {
    Queue(u8),
    Gpr(u8),
    Lb(u8),
}

impl Tok {
    pub(super) fn span(&self) -> Range<usize> {
        match self {
            Tok::Reg { span, .. }
            | Tok::Dest { span, .. }
            | Tok::Mem { span, .. }
            | Tok::Int(_, span)
            | Tok::Hi(_, span)
            | Tok::Lo(_, span)
            | Tok::Label(_, span) => span.clone(),
        }
    }

    pub(super) fn what(&self) -> &'static str {
        match self {
            Tok::Reg { .. } => "a register",
            Tok::Dest { .. } => "a destination",
            Tok::Mem { .. } => "a memory operand",
            Tok::Int(..) => "an integer",
            Tok::Hi(..) | Tok::Lo(..) => "a %hi/%lo expression",
            Tok::Label(..) => "a label",
        }
    }
}

pub(super) fn parse_int(text: &str) -> Option<i128> {
    let t = text.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let t = t.replace('_', "");
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i128::from_str_radix(b, 2).ok()?
    } else {
        if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse::<i128>().ok()?
    };
    if v > u64::MAX as i128 {
        return None;
    }
    Some(if neg { -v } else { v })
}

pub(super) fn is_ident(t: &str) -> bool {
    let mut c = t.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_' || ch == '.')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.' || ch == '$')
}

/// Split at top-level commas (not inside brackets or parentheses), keeping byte offsets.
pub(super) fn split_operands(text: &str, base: usize) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth <= 0 => {
                out.push((text[start..i].to_string(), base + start));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((text[start..].to_string(), base + start));
    out.into_iter()
        .map(|(s, off)| {
            let lead = s.len() - s.trim_start().len();
            (s.trim().to_string(), off + lead)
        })
        .collect()
}

/// One operand token.
pub(super) fn token(sink: &mut Sink, text: &str, at: usize) -> Option<Tok> {
    let span = at..at + text.len();
    if text.is_empty() {
        sink.err("E-SYNTAX", at..at + 1, "empty operand");
        return None;
    }
    if let Some(rest) = text.strip_prefix("->") {
        let rest = rest.trim_start();
        let (name, suf) = match rest.split_once('.') {
            Some((n, s)) => (n, Some(s)),
            None => (rest, None),
        };
        let suffix = operand_suffix(sink, suf, span.clone())?;
        let dest = match name {
            "t" => DestName::Queue(0),
            "u" => DestName::Queue(1),
            "m" => DestName::Queue(2),
            "n" => DestName::Queue(3),
            "LB0" | "lb0" => DestName::Lb(0),
            "LB1" | "lb1" => DestName::Lb(1),
            "LB2" | "lb2" => DestName::Lb(2),
            "tx2" | "tx4" | "TX2" | "TX4" => {
                sink.err(
                    "E-UNSUP",
                    span,
                    format!(
                        "`->{name}` (a paired T destination [003 adj.6]) is outside this model"
                    ),
                );
                return None;
            }
            _ => match gpr_number(name) {
                Some(r) => DestName::Gpr(r),
                None => {
                    sink.err(
                        "E-REG",
                        span,
                        format!("unknown destination `{name}`: expected t, u, m, n or a global register"),
                    );
                    return None;
                }
            },
        };
        return Some(Tok::Dest { dest, suffix, span });
    }
    if let Some(inner) = text.strip_prefix('[') {
        let Some(inner) = inner.strip_suffix(']') else {
            sink.err("E-SYNTAX", span, "memory operand needs a closing `]`");
            return None;
        };
        let parts = split_operands(inner, at + 1);
        if parts.len() > 2 || parts[0].0.is_empty() {
            sink.err(
                "E-OPERAND",
                span,
                "memory operand is `[BASE]` or `[BASE, OFFSET<<k]`",
            );
            return None;
        }
        let base = token(sink, &parts[0].0, parts[0].1)?;
        let mut offset = None;
        let mut shift = 0;
        if let Some((otext, oat)) = parts.get(1) {
            let (otext, stext) = match otext.split_once("<<") {
                Some((o, s)) => (o.trim_end(), Some(s.trim())),
                None => (otext.as_str(), None),
            };
            if let Some(s) = stext {
                match parse_int(s) {
                    Some(k @ 0..=3) => shift = k as u32,
                    _ => {
                        sink.err(
                            "E-IMM",
                            *oat..*oat + parts[1].0.len(),
                            format!("offset shift `{s}` is not in 0..3"),
                        );
                        return None;
                    }
                }
            }
            offset = Some(Box::new(token(sink, otext, *oat)?));
        }
        return Some(Tok::Mem {
            base: Box::new(base),
            offset,
            shift,
            span,
        });
    }
    for (prefix, hi) in [("%hi(", true), ("%lo(", false)] {
        if let Some(rest) = text.strip_prefix(prefix) {
            let Some(label) = rest.strip_suffix(')') else {
                sink.err("E-SYNTAX", span, format!("`{prefix}` needs a closing `)`"));
                return None;
            };
            let label = label.trim().to_string();
            return Some(if hi {
                Tok::Hi(label, span)
            } else {
                Tok::Lo(label, span)
            });
        }
    }
    if text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
        return match parse_int(text) {
            Some(v) => Some(Tok::Int(v, span)),
            None => {
                sink.err("E-SYNTAX", span, format!("`{text}` is not an integer"));
                None
            }
        };
    }
    // Register (with optional suffix) or label.
    let (name, suf) = match text.find('.') {
        Some(0) | None => (text, None),
        Some(i) => (&text[..i], Some(&text[i + 1..])),
    };
    let src = if let Some((q, k)) = name.split_once('#') {
        let q = match q {
            "t" => 0,
            "u" => 1,
            "m" => 2,
            "n" => 3,
            _ => {
                sink.err(
                    "E-REG",
                    span,
                    format!("unknown queue `{q}`: the queues are t, u, m and n"),
                );
                return None;
            }
        };
        match parse_int(k) {
            Some(k @ 1..=8) => Some(Src::Queue { q, k: k as u8 }),
            Some(k) => {
                sink.err(
                    "E-QIDX",
                    span,
                    format!("queue index {k} is not in 1..8 (the queues are 8 deep)"),
                );
                return None;
            }
            None => {
                sink.err("E-SYNTAX", span, format!("`{k}` is not a queue index"));
                return None;
            }
        }
    } else if let Some(r) = gpr_number(name) {
        Some(Src::Gpr(r))
    } else {
        match name {
            "lc0" | "lc1" | "lc2" => Some(Src::Lc(name.as_bytes()[2] - b'0')),
            "lb0" | "lb1" | "lb2" => Some(Src::Lb(name.as_bytes()[2] - b'0')),
            _ => None,
        }
    };
    match src {
        Some(src) => {
            let suffix = operand_suffix(sink, suf, span.clone())?;
            Some(Tok::Reg { src, suffix, span })
        }
        None if is_ident(text) => Some(Tok::Label(text.to_string(), span)),
        None => {
            sink.err("E-SYNTAX", span, format!("cannot read operand `{text}`"));
            None
        }
    }
}

/// An operand's optional type suffix; an unknown one is reported.
fn operand_suffix(
    sink: &mut Sink,
    text: Option<&str>,
    span: Range<usize>,
) -> Option<Option<Suffix>> {
    match text {
        None => Some(None),
        Some(t) => match suffix(t) {
            Some(s) => Some(Some(s)),
            None => {
                sink.err(
                    "E-SYNTAX",
                    span,
                    format!("unknown type suffix `.{t}`; expected .ud .uw .uh .ub .sd .sw .sh .sb .fd .fs .fh .bf .fb .flb or .d .w .h .b"),
                );
                None
            }
        },
    }
}

/// The source with comments replaced by spaces (newlines kept, so offsets stay valid).
pub(super) fn strip_comments(src: &str) -> (String, Option<usize>) {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut unterminated = None;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/')
            || b[i] == b'#' && (i == 0 || b[i - 1].is_ascii_whitespace())
        {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let start = i;
            let mut closed = false;
            while i < b.len() {
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                    closed = true;
                    break;
                }
                if b[i] != b'\n' {
                    out[i] = b' ';
                }
                i += 1;
            }
            if !closed {
                unterminated = Some(start);
            }
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes were replaced by spaces, but a comment may hold multi-byte
    // characters: replace each whole character's bytes, so the text stays UTF-8.
    let text = String::from_utf8(out).unwrap_or_else(|e| {
        e.into_bytes()
            .into_iter()
            .map(|c| if c >= 0x80 { b' ' } else { c })
            .map(char::from)
            .collect()
    });
    (text, unterminated)
}
