//! Operands: registers and register groups, immediates and offsets, `k32` literals, enum
//! values, keyed operands; each checked against its kind in the database.

use super::line_err::{lerr, LineErr};
use super::state::Here;
use crate::error::ErrorKind;
use crate::expr::{eval, Val};
use crate::lex::{ident_end, is_ident_start, parse_f32_literal, parse_reg, skip_ws, RegTok};
use crate::Section;
use warpkit_isa::{KindDef, OperandClass};

/// PC-relative offsets (section 2.4: "relative to this instruction's address") are the
/// operand types the database marks `pc_relative`; a label there means "offset to it".
pub(super) fn pc_relative(kind: &KindDef) -> bool {
    kind.ty.pc_relative
}

pub(super) fn quote(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    format!("`{s}`")
}

/// `key=value`: the key's range and where the value starts; otherwise the operand start.
pub(super) fn key_of(b: &[u8], s: usize, e: usize) -> (usize, Option<(usize, usize)>) {
    if s < e && is_ident_start(b[s]) {
        let ke = ident_end(b, s).min(e);
        let eq = skip_ws(b, ke);
        if eq < e && b[eq] == b'=' {
            return (eq + 1, Some((s, ke)));
        }
    }
    (s, None)
}

/// The operand syntax of an instruction, for count errors: `rd:v, rs1:v, imm:s8`.
pub(super) fn syntax_of(def: &warpkit_isa::InstrDef) -> String {
    let mut parts = Vec::new();
    for o in def.operands {
        let k = o.kind;
        parts.push(if k.keyed {
            format!("[{}=<{}>]", o.name, k.kind)
        } else if k.optional {
            format!("[{}:{}]", o.name, k.kind)
        } else {
            format!("{}:{}", o.name, k.kind)
        });
    }
    if parts.is_empty() {
        "no operands".into()
    } else {
        parts.join(", ")
    }
}

pub(super) fn register_expectation(kind: &KindDef) -> String {
    let ty = kind.ty;
    let (p, what) = if ty.class == OperandClass::VReg {
        ('v', "vector")
    } else {
        ('u', "uniform")
    };
    let regs = u32::from(kind.regs);
    let align = u32::from(ty.align.max(1));
    if ty.half {
        format!("a 16-bit {what} register half like {p}5.l or {p}5.h")
    } else if regs == 1 {
        format!("a {what} register like {p}5")
    } else if regs == 2 && align == 2 {
        format!("an even register pair like {p}[4:5]")
    } else {
        let first = 4u32.next_multiple_of(align);
        let aligned = if align > 1 {
            format!("{align}-aligned ")
        } else {
            String::new()
        };
        format!(
            "a {aligned}group of {regs} {what} registers like {p}[{first}:{}]",
            first + regs - 1
        )
    }
}

/// The raw field value of one operand written as `line[s..e]` (trimmed).
pub(super) fn operand(
    kind: &'static KindDef,
    line: &str,
    s: usize,
    e: usize,
    r: &Here,
) -> Result<u32, LineErr> {
    let ty = kind.ty;
    let here = r.here;
    let text = &line[s..e];
    match ty.class {
        OperandClass::VReg | OperandClass::UReg => register(kind, text, s, e),
        OperandClass::Enum => {
            let (s, text) = strip_hash(line, s, e);
            let b = line.as_bytes();
            if let Some(v) = ty.value_of(text) {
                return Ok(v);
            }
            if s < e && is_ident_start(b[s]) && ident_end(b, s) == e {
                let names: Vec<_> = ty.values.iter().map(|(n, _)| *n).collect();
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::UnknownEnum {
                        kind: kind.kind,
                        found: text.into(),
                        names: names.join(", "),
                    },
                ));
            }
            let v = eval(line, s, e, r)?.v;
            let max = (1i128 << ty.bits) - 1;
            if !(0..=max).contains(&v) {
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::OutOfRange {
                        kind: kind.kind,
                        what: "value",
                        value: v,
                        lo: 0,
                        hi: max,
                    },
                ));
            }
            reserved(kind, v as u32, s, e)
        }
        OperandClass::Imm => {
            let (s, text) = strip_hash(line, s, e);
            if let Some(reg) = parse_reg(text) {
                return Err(not_a_register(kind, reg, s, e));
            }
            let v = match parse_f32_literal(text) {
                Some(f) if !f.is_finite() => {
                    return Err(lerr(
                        s,
                        e,
                        ErrorKind::FloatOverflow {
                            text: text.into(),
                            bits: 32,
                        },
                    ))
                }
                Some(f) => i128::from(f.to_bits()),
                None => match fast_int(text) {
                    Some(v) => v,
                    None => eval(line, s, e, r)?.v,
                },
            };
            let (lo, hi) = (i128::from(i32::MIN), i128::from(u32::MAX));
            if v < lo || v > hi {
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::OutOfRange {
                        kind: kind.kind,
                        what: "literal",
                        value: v,
                        lo,
                        hi,
                    },
                ));
            }
            Ok((v & 0xffff_ffff) as u32)
        }
        OperandClass::SImm | OperandClass::UImm => {
            let (s, text) = strip_hash(line, s, e);
            if let Some(reg) = parse_reg(text) {
                return Err(not_a_register(kind, reg, s, e));
            }
            let val = match fast_int(text) {
                Some(v) => Val::abs(v),
                None => eval(line, s, e, r)?,
            };
            let rel = pc_relative(kind);
            let v = match val.sec {
                Some(sec) if rel => {
                    if Some(sec) == here.sec {
                        val.v - here.v
                    } else if sec == Section::Data && here.sec == Some(Section::Text) && !r.branch {
                        // `.data` follows the code at a fixed offset in every form of the
                        // program (docs/abi.md, "Memory map"), known once pass 1 is done.
                        match r.data_offset() {
                            Some(d) => i128::from(d) + val.v - here.v,
                            None => {
                                let mut err = lerr(
                                    s,
                                    e,
                                    ErrorKind::CrossSection {
                                        what: kind.kind,
                                        name: text.into(),
                                        section: sec,
                                    },
                                );
                                err.forward = true;
                                return Err(err);
                            }
                        }
                    } else {
                        return Err(lerr(
                            s,
                            e,
                            ErrorKind::CrossSection {
                                what: kind.kind,
                                name: text.into(),
                                section: sec,
                            },
                        ));
                    }
                }
                _ => val.v,
            };
            let what = if rel || ty.scale > 1 {
                "offset"
            } else {
                "immediate"
            };
            let scale = i128::from(ty.scale.max(1));
            let (lo, hi) = ty.value_range();
            let (lo, hi) = (i128::from(lo), i128::from(hi));
            // A signed field also takes the two's-complement spelling of a negative value as
            // a hex, binary or octal literal of the field's width (`0xff` is -1 for an s8),
            // as GNU as does.
            let span = (1i128 << ty.bits) * scale;
            let v = if lo < 0 && v > hi && v < span && val.sec.is_none() && radix_literal(text) {
                v - span
            } else {
                v
            };
            if v < lo || v > hi {
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::OutOfRange {
                        kind: kind.kind,
                        what,
                        value: v,
                        lo,
                        hi,
                    },
                ));
            }
            if v % scale != 0 {
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::Misaligned {
                        kind: kind.kind,
                        what,
                        value: v,
                        scale: u32::from(ty.scale),
                    },
                ));
            }
            let mask = (1i128 << ty.bits) - 1;
            reserved(kind, ((v / scale) & mask) as u32, s, e)
        }
    }
}

/// A plain decimal or `0x` literal, optionally negative: the common case, parsed without
/// the expression machinery. Anything else (or anything odd) returns `None`.
#[inline]
pub(super) fn fast_int(text: &str) -> Option<i128> {
    let b = text.as_bytes();
    let (neg, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i128 = 0;
    if let Some(hex) = digits.strip_prefix(b"0x") {
        if hex.is_empty() || hex.len() > 15 {
            return None;
        }
        for &c in hex {
            let d = (c as char).to_digit(16)?;
            v = v * 16 + i128::from(d);
        }
    } else {
        for &c in digits {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + i128::from(c - b'0');
        }
    }
    Some(if neg { -v } else { v })
}

/// `0x…`, `0b…` or `0o…`: an integer written bit by bit rather than as a signed number.
fn radix_literal(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() > 2
        && b[0] == b'0'
        && matches!(b[1], b'x' | b'X' | b'b' | b'B' | b'o' | b'O')
        && b[2..].iter().all(|c| c.is_ascii_hexdigit() || *c == b'_')
}

pub(super) fn strip_hash(line: &str, s: usize, e: usize) -> (usize, &str) {
    if line.as_bytes().get(s) == Some(&b'#') {
        (s + 1, &line[s + 1..e])
    } else {
        (s, &line[s..e])
    }
}

pub(super) fn not_a_register(kind: &KindDef, reg: RegTok, s: usize, e: usize) -> LineErr {
    let expected = match kind.ty.class {
        OperandClass::Imm => "a 32-bit integer or fp32 literal",
        _ if pc_relative(kind) => "a label or a byte offset",
        _ => "an immediate",
    };
    lerr(
        s,
        e,
        ErrorKind::WrongOperand {
            kind: kind.kind,
            expected: expected.into(),
            found: format!("register {}", reg.describe()),
        },
    )
}

pub(super) fn reserved(kind: &KindDef, raw: u32, s: usize, e: usize) -> Result<u32, LineErr> {
    match kind.ty.reserved {
        Some((lo, hi)) if (lo..=hi).contains(&raw) => Err(lerr(
            s,
            e,
            ErrorKind::ReservedValue {
                kind: kind.kind,
                ty: kind.ty.name,
                value: raw,
                lo,
                hi,
            },
        )),
        _ => Ok(raw),
    }
}

pub(super) fn register(kind: &KindDef, text: &str, s: usize, e: usize) -> Result<u32, LineErr> {
    let ty = kind.ty;
    let vector = ty.class == OperandClass::VReg;
    let (prefix, file_name) = if vector {
        ('v', "vector")
    } else {
        ('u', "uniform")
    };
    let file = if ty.half {
        1u32 << (ty.bits - 1)
    } else {
        1u32 << ty.bits
    };
    let wrong = |found: String| {
        lerr(
            s,
            e,
            ErrorKind::WrongOperand {
                kind: kind.kind,
                expected: register_expectation(kind),
                found,
            },
        )
    };
    let missing = |n: u32| {
        lerr(
            s,
            e,
            ErrorKind::NoSuchRegister {
                found: format!("{prefix}{n}"),
                file: file_name,
                prefix,
                last: file - 1,
            },
        )
    };
    let Some(tok) = parse_reg(text) else {
        if let Some(gap) = text.find([' ', '\t']) {
            if parse_reg(&text[..gap]).is_some() {
                let rest = text[gap..].trim_start();
                let mut err = lerr(
                    e - rest.len(),
                    e,
                    ErrorKind::Syntax(format!(
                        "expected `,` between operands, found {}",
                        quote(rest)
                    )),
                );
                err.split = true;
                return Err(err);
            }
        }
        return Err(wrong(quote(text)));
    };
    let regs = u32::from(kind.regs);
    let align = u32::from(ty.align.max(1));
    match (tok, vector) {
        (RegTok::VHalf(n, h), true) if ty.half => {
            if n >= file {
                return Err(missing(n));
            }
            Ok((n << 1) | u32::from(h))
        }
        (RegTok::V(n), true) | (RegTok::U(n), false) if regs == 1 && !ty.half => {
            if n >= file {
                return Err(missing(n));
            }
            Ok(n)
        }
        (RegTok::VGroup(a, b), true) | (RegTok::UGroup(a, b), false) if regs > 1 => {
            if b < a || b - a + 1 != regs || a % align != 0 {
                return Err(wrong(tok.describe()));
            }
            if b >= file {
                return Err(missing(b));
            }
            Ok(a)
        }
        _ => Err(wrong(tok.describe())),
    }
}

/// Strip the source modifiers `-x`, `|x|`, `-|x|` from the operand `line[s..e]` of the
/// operand named `name`: returns the inner range and the `neg`/`abs` bit of that source
/// (`rs1` bit 0, `rs2` bit 1, `rs3` bit 2).
pub(super) fn source_modifiers(
    b: &[u8],
    mut s: usize,
    mut e: usize,
    name: &str,
) -> Result<(usize, usize, u32, u32), LineErr> {
    let start = s;
    let neg = s < e && b[s] == b'-';
    if neg {
        s += 1;
    }
    let open = s < e && b[s] == b'|';
    let close = e > s + usize::from(open) && b[e - 1] == b'|';
    if open != close {
        let at = if open { s } else { e - 1 };
        return Err(lerr(
            at,
            at + 1,
            ErrorKind::Syntax("unbalanced `|`: write an absolute value as `|v2|`".into()),
        ));
    }
    if open {
        s += 1;
        e -= 1;
    }
    if !neg && !open {
        return Ok((s, e, 0, 0));
    }
    let Some(bit) = warpkit_isa::source_bit(name) else {
        return Err(lerr(
            start,
            e + usize::from(open),
            ErrorKind::Syntax(format!(
                "source modifiers (`-x`, `|x|`) apply only to sources, not to `{name}`"
            )),
        ));
    };
    let (s, e) = {
        let mut s = s;
        let mut e = e;
        while s < e && b[s] == b' ' {
            s += 1;
        }
        while e > s && b[e - 1] == b' ' {
            e -= 1;
        }
        (s, e)
    };
    Ok((s, e, u32::from(neg) << bit, u32::from(open) << bit))
}
