//! The lines of a file (SPEC §1): labels, directives, the block header and the body's
//! instructions as operand tokens, not yet checked against the table.

use super::lex::{is_ident, parse_int, split_operands, strip_comments, token, DestName, Tok};
use super::program::Src;
use crate::diag::Sink;
use crate::{gpr_number, Mode, BODY_BASE, MAX_BODY_INSNS, MAX_CSTK_DEPTH};
use std::collections::HashMap;
use std::ops::Range;
use warpkit_float::Round;

/// Body labels: the address each names and where it is defined.
pub(super) type Labels = HashMap<String, (u64, Range<usize>)>;

/// One body instruction as written: its mnemonic and operand tokens.
pub(super) struct RawInsn {
    pub(super) mnemonic: String,
    pub(super) mspan: Range<usize>,
    pub(super) operands: Vec<Tok>,
    /// 1-based source line.
    pub(super) line: usize,
    pub(super) text: String,
    /// Operands that failed to parse (already reported).
    pub(super) broken: bool,
}

/// What the text of a file says: the directives' values (`None` where a directive is
/// absent), the block header and the body, every line-level error already reported.
pub(super) struct Parsed {
    pub(super) mode: Option<Mode>,
    pub(super) lanes: Option<u32>,
    pub(super) cstk_depth: Option<u32>,
    pub(super) frm: Option<Round>,
    pub(super) gpr: [u64; 24],
    pub(super) memory: Vec<(u64, Vec<u8>)>,
    pub(super) dims: [Option<(u8, u64)>; 3],
    pub(super) entry: u64,
    pub(super) labels: Labels,
    /// Body instruction i is at `BODY_BASE + 8i`.
    pub(super) raws: Vec<RawInsn>,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Region {
    Before,
    Header,
    Body,
}

/// Read the lines of `source`. `None` when the file is too large to read at all.
pub(super) fn parse(sink: &mut Sink, source: &str) -> Option<Parsed> {
    if source.len() > crate::MAX_SOURCE_BYTES {
        sink.err(
            "E-LIMIT",
            0..0,
            format!(
                "source is {} bytes; the limit is {} bytes",
                source.len(),
                crate::MAX_SOURCE_BYTES
            ),
        );
        return None;
    }
    let (clean, unterminated) = strip_comments(source);
    if let Some(at) = unterminated {
        sink.err("E-SYNTAX", at..at + 2, "unterminated `/*` comment");
    }

    let mut mode = None;
    let mut lanes: Option<u32> = None;
    let mut cstk_depth: Option<u32> = None;
    let mut frm: Option<Round> = None;
    let mut gpr = [0u64; 24];
    let mut memory = Vec::new();
    let mut mem_bytes = 0u64;
    let mut dims: [Option<(u8, u64)>; 3] = [None; 3];
    let mut text_label: Option<(String, Range<usize>)> = None;
    let mut region = Region::Before;
    let mut labels: Labels = HashMap::new();
    let mut raws: Vec<RawInsn> = Vec::new();
    let mut saw_bstop = false;

    let mut offset = 0;
    for (lineno, line) in clean.split('\n').enumerate() {
        let line_at = offset;
        offset += line.len() + 1;
        let mut rest = line;
        let mut at = line_at;
        // Labels.
        loop {
            let trimmed = rest.trim_start();
            at += rest.len() - trimmed.len();
            rest = trimmed;
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'))
                .unwrap_or(rest.len());
            if end > 0 && rest[end..].starts_with(':') && is_ident(&rest[..end]) {
                let name = rest[..end].to_string();
                let span = at..at + end;
                if region != Region::Body {
                    sink.err(
                        "E-SYNTAX",
                        span,
                        format!("label `{name}` outside the body: labels follow BSTOP"),
                    );
                } else if let Some((_, first)) = labels.get(&name) {
                    let (l, _) = sink.locate(first.start);
                    sink.err(
                        "E-LABEL",
                        span,
                        format!("label `{name}` is already defined on line {l}"),
                    );
                } else {
                    labels.insert(name, (BODY_BASE + 8 * raws.len() as u64, span));
                }
                rest = &rest[end + 1..];
                at += end + 1;
                continue;
            }
            break;
        }
        let rest_trim = rest.trim_end();
        if rest_trim.is_empty() {
            continue;
        }
        let (word, args) = match rest_trim.find(char::is_whitespace) {
            Some(i) => (&rest_trim[..i], rest_trim[i..].trim_start()),
            None => (rest_trim, ""),
        };
        let wspan = at..at + word.len();
        let args_at = at + (rest_trim.len() - args.len());
        if word.starts_with('.') {
            directive(
                sink,
                word,
                wspan,
                args,
                args_at,
                &mut lanes,
                &mut cstk_depth,
                &mut frm,
                &mut gpr,
                &mut memory,
                &mut mem_bytes,
            );
            continue;
        }
        let upper = word.starts_with(|c: char| c.is_ascii_uppercase());
        if upper {
            let name = word.strip_prefix("C.").unwrap_or(word);
            if let Some(m) = name.strip_prefix("BSTART") {
                if region != Region::Before {
                    sink.err("E-HEADER", wspan, "a file holds one block: second BSTART");
                    continue;
                }
                region = Region::Header;
                let m = m.strip_prefix('.').unwrap_or("");
                match Mode::from_name(m).filter(|_| m.chars().all(|c| c.is_ascii_uppercase())) {
                    Some(md) => mode = Some(md),
                    None => sink.err(
                        "E-HEADER",
                        wspan,
                        "the block start is BSTART.LOOP, BSTART.VECT or BSTART.SIMT [003]",
                    ),
                }
                if !args.is_empty() && args != "FALL" {
                    sink.err(
                        "E-HEADER",
                        args_at..args_at + args.len(),
                        "a SIMT block is a FALL block [003]: the only operand BSTART takes is FALL",
                    );
                }
                continue;
            }
            if region != Region::Header {
                if region == Region::Body {
                    sink.err(
                        "E-MNEM",
                        wspan,
                        format!(
                            "`{word}`: body mnemonics are lower case, header ones upper case [003]"
                        ),
                    );
                } else {
                    sink.err("E-HEADER", wspan, format!("`{word}` before BSTART"));
                }
                continue;
            }
            match name {
                "B.DIM" => {
                    let ops: Vec<_> = split_operands(args, args_at);
                    let toks: Vec<Option<Tok>> =
                        ops.iter().map(|(t, a)| token(sink, t, *a)).collect();
                    if toks.iter().any(|t| t.is_none()) {
                        continue;
                    }
                    let toks: Vec<Tok> = toks.into_iter().flatten().collect();
                    match toks.as_slice() {
                        [Tok::Reg {
                            src: Src::Gpr(r), ..
                        }, Tok::Int(v, vspan), Tok::Dest {
                            dest: DestName::Lb(k),
                            ..
                        }] => {
                            if !(0..1 << 24).contains(v) {
                                sink.err("E-IMM", vspan.clone(), format!("B.DIM immediate {v} is not a uimm (0..2^24-1)"));
                            } else if dims[*k as usize].is_some() {
                                sink.err("E-HEADER", wspan, format!("LB{k} is set twice"));
                            } else {
                                dims[*k as usize] = Some((*r, *v as u64));
                            }
                        }
                        _ => sink.err(
                            "E-OPERAND",
                            wspan,
                            "B.DIM takes a global register, an unsigned immediate and ->LB0|LB1|LB2",
                        ),
                    }
                }
                "B.TEXT" => {
                    if text_label.is_some() {
                        sink.err("E-HEADER", wspan, "B.TEXT given twice");
                    } else if is_ident(args) {
                        text_label = Some((args.to_string(), args_at..args_at + args.len()));
                    } else {
                        sink.err("E-OPERAND", wspan, "B.TEXT takes the body's label");
                    }
                }
                "BSTOP" => {
                    if !args.is_empty() {
                        sink.err("E-OPERAND", wspan, "BSTOP takes no operands");
                    }
                    region = Region::Body;
                    saw_bstop = true;
                }
                _ => sink.err(
                    "E-MNEM",
                    wspan,
                    format!("unknown block header instruction `{word}`: expected B.DIM, B.TEXT or BSTOP"),
                ),
            }
            continue;
        }
        if region != Region::Body {
            sink.err(
                if region == Region::Before {
                    "E-HEADER"
                } else {
                    "E-MNEM"
                },
                wspan,
                format!("`{word}` outside the body (the body follows BSTOP)"),
            );
            continue;
        }
        if raws.len() >= MAX_BODY_INSNS {
            sink.err(
                "E-LIMIT",
                wspan,
                format!("more than {MAX_BODY_INSNS} body instructions"),
            );
            break;
        }
        let mut broken = false;
        let mut operands = Vec::new();
        if !args.is_empty() {
            for (t, a) in split_operands(args, args_at) {
                match token(sink, &t, a) {
                    Some(tok) => operands.push(tok),
                    None => broken = true,
                }
            }
        }
        raws.push(RawInsn {
            mnemonic: word.to_string(),
            mspan: wspan,
            operands,
            line: lineno + 1,
            text: source
                .get(at..at + rest_trim.len())
                .unwrap_or(rest_trim)
                .to_string(),
            broken,
        });
    }

    if mode.is_none() && region == Region::Before {
        sink.err(
            "E-HEADER",
            0..0,
            "no block: expected BSTART.<LOOP|VECT|SIMT>",
        );
    }
    if region == Region::Header && !saw_bstop {
        sink.err(
            "E-HEADER",
            source.len()..source.len(),
            "the block header has no BSTOP",
        );
    }
    let entry = match &text_label {
        None => {
            if region != Region::Before {
                sink.err(
                    "E-HEADER",
                    0..0,
                    "the block header has no B.TEXT naming the body",
                );
            }
            BODY_BASE
        }
        Some((name, span)) => match labels.get(name) {
            Some((addr, _)) => *addr,
            None => {
                sink.err(
                    "E-LABEL",
                    span.clone(),
                    format!("B.TEXT names `{name}`, which is not a body label"),
                );
                BODY_BASE
            }
        },
    };
    if saw_bstop && raws.is_empty() {
        sink.err("E-HEADER", source.len()..source.len(), "the body is empty");
    }
    Some(Parsed {
        mode,
        lanes,
        cstk_depth,
        frm,
        gpr,
        memory,
        dims,
        entry,
        labels,
        raws,
    })
}

#[allow(clippy::too_many_arguments)]
fn directive(
    sink: &mut Sink,
    word: &str,
    wspan: Range<usize>,
    args: &str,
    args_at: usize,
    lanes: &mut Option<u32>,
    cstk_depth: &mut Option<u32>,
    frm: &mut Option<Round>,
    gpr: &mut [u64; 24],
    memory: &mut Vec<(u64, Vec<u8>)>,
    mem_bytes: &mut u64,
) {
    let ops = split_operands(args, args_at);
    let int_at = |sink: &mut Sink, i: usize| -> Option<i128> {
        let (t, a) = ops.get(i)?;
        match parse_int(t) {
            Some(v) => Some(v),
            None => {
                sink.err(
                    "E-DIRECTIVE",
                    *a..*a + t.len().max(1),
                    format!("`{t}` is not an integer"),
                );
                None
            }
        }
    };
    match word {
        ".lanenum" | ".cstk_depth" => {
            if ops.len() != 1 {
                sink.err("E-DIRECTIVE", wspan, format!("{word} takes one number"));
                return;
            }
            let Some(v) = int_at(sink, 0) else { return };
            let (slot, max) = if word == ".lanenum" {
                (lanes, 64)
            } else {
                (cstk_depth, MAX_CSTK_DEPTH as i128)
            };
            if !(1..=max).contains(&v) {
                sink.err(
                    "E-DIRECTIVE",
                    ops[0].1..ops[0].1 + ops[0].0.len(),
                    format!("{word} {v} is not in 1..{max}"),
                );
            } else if slot.is_some() {
                sink.err("E-DIRECTIVE", wspan, format!("{word} given twice"));
            } else {
                *slot = Some(v as u32);
            }
        }
        ".frm" => {
            if ops.len() != 1 {
                sink.err(
                    "E-DIRECTIVE",
                    wspan,
                    ".frm takes one rounding mode: rne, rtz, rdn or rup",
                );
                return;
            }
            let (t, at) = &ops[0];
            // CSTATE.FRM has four modes [pub CSTATE.md]; there is no rmm.
            let Some(mode) = [Round::Rne, Round::Rtz, Round::Rdn, Round::Rup]
                .into_iter()
                .find(|m| m.name() == t.to_ascii_lowercase())
            else {
                sink.err(
                    "E-DIRECTIVE",
                    *at..*at + t.len().max(1),
                    format!(
                        "unknown rounding mode `{t}`: expected rne, rtz, rdn or rup (CSTATE.FRM)"
                    ),
                );
                return;
            };
            if frm.is_some() {
                sink.err("E-DIRECTIVE", wspan, ".frm given twice");
            } else {
                *frm = Some(mode);
            }
        }
        ".gpr" => {
            if ops.len() != 2 {
                sink.err("E-DIRECTIVE", wspan, ".gpr takes a register and a value");
                return;
            }
            let Some(r) = gpr_number(&ops[0].0) else {
                sink.err(
                    "E-REG",
                    ops[0].1..ops[0].1 + ops[0].0.len().max(1),
                    format!("unknown global register `{}`", ops[0].0),
                );
                return;
            };
            let Some(v) = int_at(sink, 1) else { return };
            if r == 0 {
                sink.err("E-DIRECTIVE", wspan, "zero (R0) always reads 0");
            } else if v < i64::MIN as i128 {
                sink.err(
                    "E-DIRECTIVE",
                    ops[1].1..ops[1].1 + ops[1].0.len(),
                    "value does not fit in 64 bits",
                );
            } else {
                gpr[r as usize] = v as u64;
            }
        }
        ".mem" => {
            if ops.len() < 3 {
                sink.err(
                    "E-DIRECTIVE",
                    wspan,
                    ".mem takes an address, a width (b|h|w|d|fs|fd) and at least one value",
                );
                return;
            }
            let Some(addr) = int_at(sink, 0) else { return };
            if !(0..=u64::MAX as i128).contains(&addr) {
                sink.err(
                    "E-DIRECTIVE",
                    ops[0].1..ops[0].1 + ops[0].0.len(),
                    "address is not in 0..2^64-1",
                );
                return;
            }
            let (bytes, float) = match ops[1].0.as_str() {
                "b" => (1, false),
                "h" => (2, false),
                "w" => (4, false),
                "d" => (8, false),
                "fs" => (4, true),
                "fd" => (8, true),
                other => {
                    sink.err(
                        "E-DIRECTIVE",
                        ops[1].1..ops[1].1 + other.len().max(1),
                        format!("unknown width `{other}`: expected b, h, w, d, fs or fd"),
                    );
                    return;
                }
            };
            let bits = 8 * bytes as u32;
            let mut data = Vec::new();
            for (i, (vtext, vat)) in ops.iter().enumerate().skip(2) {
                if float {
                    // Decimal literals, correctly rounded (rne) by the standard library's
                    // parser [P]; bit patterns go through `w`/`d`.
                    let clean = vtext.replace('_', "");
                    let v = if bytes == 4 {
                        clean.parse::<f32>().ok().map(|f| f.to_bits() as u64)
                    } else {
                        clean.parse::<f64>().ok().map(f64::to_bits)
                    };
                    match v {
                        Some(v) => data.extend_from_slice(&v.to_le_bytes()[..bytes]),
                        None => sink.err(
                            "E-DIRECTIVE",
                            *vat..*vat + vtext.len().max(1),
                            format!("`{vtext}` is not a decimal floating-point number"),
                        ),
                    }
                    continue;
                }
                let Some(v) = int_at(sink, i) else { continue };
                let lo = -(1i128 << (bits - 1));
                let hi = (1i128 << bits) - 1;
                if v < lo || v > hi {
                    sink.err(
                        "E-IMM",
                        *vat..*vat + vtext.len(),
                        format!("{v} does not fit in {bits} bits"),
                    );
                    continue;
                }
                data.extend_from_slice(&(v as u64).to_le_bytes()[..bytes]);
            }
            *mem_bytes += data.len() as u64;
            if *mem_bytes > crate::MAX_MEMORY_BYTES {
                sink.err(
                    "E-LIMIT",
                    wspan,
                    format!(
                        ".mem data exceeds the memory limit of {} bytes",
                        crate::MAX_MEMORY_BYTES
                    ),
                );
                return;
            }
            memory.push((addr as u64, data));
        }
        _ => sink.err(
            "E-DIRECTIVE",
            wspan,
            format!(
                "unknown directive `{word}`: expected .lanenum, .gpr, .mem, .cstk_depth or .frm"
            ),
        ),
    }
}
