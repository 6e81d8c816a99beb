//! The program text (SPEC §1) and every static rule of the typing and instruction sections
//! (§3, §4): source text in, a resolved [`Program`] or every diagnostic out.

use crate::diag::{Diagnostic, Diagnostics, Severity, MAX_DIAGNOSTICS};
use crate::tables::{self, Form, ImmKind, InsnDef, Op};
use crate::{gpr_number, Mode, BODY_BASE, DEFAULT_CSTK_DEPTH, MAX_BODY_INSNS, MAX_CSTK_DEPTH};
use std::collections::HashMap;
use std::ops::Range;
use warpkit_float::Round;

/// A float format of the typed operand suffixes [004].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// `.fd`
    F64,
    /// `.fs`
    F32,
    /// `.fh`
    F16,
    /// `.bf`
    Bf16,
}

/// What an operand suffix says about a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Unsigned,
    Signed,
    Float(FloatKind),
    /// fp8 / fp8.1: named by [004], formats unknown (E-UNSUP).
    Fp8,
    /// `.d .w .h .b`: width only.
    Bare,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Suffix {
    class: Class,
    bits: u32,
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

/// Where a register operand reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// `t#k` (q = 0), `u#k` (1), `m#k` (2), `n#k` (3); k in 1..=8.
    Queue { q: u8, k: u8 },
    /// A global register R0..R23.
    Gpr(u8),
    /// `lc0..lc2` (per lane).
    Lc(u8),
    /// `lb0..lb2` (uniform).
    Lb(u8),
}

/// A register input, resolved: read the low `bits` bits; `signed` says how it extends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub src: Src,
    pub bits: u32,
    pub signed: bool,
    pub float: Option<FloatKind>,
}

/// Where an instruction's result goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dest {
    None,
    Queue { q: u8, bits: u32 },
    Gpr(u8),
}

/// A memory offset: a register (extended by its suffix) or a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offset {
    None,
    Reg(Read),
    Imm(u64),
}

/// One body instruction, resolved against the table and its operand types.
#[derive(Debug, Clone)]
pub struct Insn {
    pub def: &'static InsnDef,
    /// Register inputs, in the order of the form's syntax (memory: base, then data/value).
    pub srcs: Vec<Read>,
    /// The immediate, cut to the input width (ALU forms), or the byte offset (`jr`,
    /// `addtpc`'s page count).
    pub imm: u64,
    pub offset: Offset,
    pub shift: u32,
    pub dest: Dest,
    /// Input width w.
    pub w: u32,
    /// Signedness of the inputs (rule 3's extension, div/rem, reduces, cvt).
    pub signed: bool,
    /// Output width W.
    pub out_bits: u32,
    /// cvt: output signedness / float format.
    pub out_signed: bool,
    pub out_float: Option<FloatKind>,
    /// `j`/branch target, `b.*` reconvergence point.
    pub target: u64,
    pub rc: u64,
    /// `.ne` on an atomic load, `.rd` on an atomic store.
    pub non_atomic: bool,
    pub store_reduce: bool,
    /// 1-based source line.
    pub line: usize,
    /// The instruction as written (for traces).
    pub text: String,
}

/// A parsed and checked program: initial state, block header and body.
#[derive(Debug, Clone)]
pub struct Program {
    pub file: String,
    pub mode: Mode,
    /// Group size G (`.lanenum`).
    pub lanes: u32,
    pub cstk_depth: u32,
    /// The rounding mode of float operations, CSTATE.FRM [pub CSTATE.md] (`.frm`, default
    /// rne [P]).
    pub frm: Round,
    /// Initial R0..R23.
    pub gpr: [u64; 24],
    /// `.mem` contents: (address, bytes).
    pub memory: Vec<(u64, Vec<u8>)>,
    /// `B.DIM reg, uimm, ->LBk` for k = 0..2: (register, addend); `None` means LBk = 1.
    pub dims: [Option<(u8, u64)>; 3],
    pub entry: u64,
    pub body: Vec<Insn>,
    /// Warnings found by the static checks (the program is still valid).
    pub warnings: Diagnostics,
}

impl Program {
    pub fn body_end(&self) -> u64 {
        BODY_BASE + 8 * self.body.len() as u64
    }

    /// The instruction at `pc`, if `pc` is an 8-aligned body address.
    pub fn insn_at(&self, pc: u64) -> Option<&Insn> {
        if pc < BODY_BASE || !(pc - BODY_BASE).is_multiple_of(8) {
            return None;
        }
        self.body.get(((pc - BODY_BASE) / 8) as usize)
    }
}

// ---------------------------------------------------------------------------------------
// Operand tokens

#[derive(Debug, Clone)]
enum Tok {
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
enum DestName {
    Queue(u8),
    Gpr(u8),
    Lb(u8),
}

impl Tok {
    fn span(&self) -> Range<usize> {
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

    fn what(&self) -> &'static str {
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

fn parse_int(text: &str) -> Option<i128> {
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

fn is_ident(t: &str) -> bool {
    let mut c = t.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_' || ch == '.')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.' || ch == '$')
}

/// Split at top-level commas (not inside brackets or parentheses), keeping byte offsets.
fn split_operands(text: &str, base: usize) -> Vec<(String, usize)> {
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

// ---------------------------------------------------------------------------------------
// The checker

struct Checker<'a> {
    file: String,
    src: &'a str,
    line_starts: Vec<usize>,
    diags: Vec<Diagnostic>,
}

impl Checker<'_> {
    fn locate(&self, at: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= at).max(1);
        let start = self.line_starts[line - 1];
        let col = self
            .src
            .get(start..at.min(self.src.len()))
            .map_or(1, |s| s.chars().count() + 1);
        (line, col)
    }

    fn push(&mut self, severity: Severity, code: &'static str, span: Range<usize>, msg: String) {
        if self.diags.len() >= MAX_DIAGNOSTICS {
            return;
        }
        let (line, column) = self.locate(span.start);
        self.diags.push(Diagnostic {
            file: self.file.clone(),
            severity,
            code,
            line,
            column,
            span,
            message: msg,
        });
    }

    fn err(&mut self, code: &'static str, span: Range<usize>, msg: impl Into<String>) {
        self.push(Severity::Error, code, span, msg.into());
    }

    fn warn(&mut self, code: &'static str, span: Range<usize>, msg: impl Into<String>) {
        self.push(Severity::Warning, code, span, msg.into());
    }

    /// One operand token.
    fn token(&mut self, text: &str, at: usize) -> Option<Tok> {
        let span = at..at + text.len();
        if text.is_empty() {
            self.err("E-SYNTAX", at..at + 1, "empty operand");
            return None;
        }
        if let Some(rest) = text.strip_prefix("->") {
            let rest = rest.trim_start();
            let (name, suf) = match rest.split_once('.') {
                Some((n, s)) => (n, Some(s)),
                None => (rest, None),
            };
            let suffix = self.suffix(suf, span.clone())?;
            let dest = match name {
                "t" => DestName::Queue(0),
                "u" => DestName::Queue(1),
                "m" => DestName::Queue(2),
                "n" => DestName::Queue(3),
                "LB0" | "lb0" => DestName::Lb(0),
                "LB1" | "lb1" => DestName::Lb(1),
                "LB2" | "lb2" => DestName::Lb(2),
                "tx2" | "tx4" | "TX2" | "TX4" => {
                    self.err(
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
                        self.err(
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
                self.err("E-SYNTAX", span, "memory operand needs a closing `]`");
                return None;
            };
            let parts = split_operands(inner, at + 1);
            if parts.len() > 2 || parts[0].0.is_empty() {
                self.err(
                    "E-OPERAND",
                    span,
                    "memory operand is `[BASE]` or `[BASE, OFFSET<<k]`",
                );
                return None;
            }
            let base = self.token(&parts[0].0, parts[0].1)?;
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
                            self.err(
                                "E-IMM",
                                *oat..*oat + parts[1].0.len(),
                                format!("offset shift `{s}` is not in 0..3"),
                            );
                            return None;
                        }
                    }
                }
                offset = Some(Box::new(self.token(otext, *oat)?));
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
                    self.err("E-SYNTAX", span, format!("`{prefix}` needs a closing `)`"));
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
                    self.err("E-SYNTAX", span, format!("`{text}` is not an integer"));
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
                    self.err(
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
                    self.err(
                        "E-QIDX",
                        span,
                        format!("queue index {k} is not in 1..8 (the queues are 8 deep)"),
                    );
                    return None;
                }
                None => {
                    self.err("E-SYNTAX", span, format!("`{k}` is not a queue index"));
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
                let suffix = self.suffix(suf, span.clone())?;
                Some(Tok::Reg { src, suffix, span })
            }
            None if is_ident(text) => Some(Tok::Label(text.to_string(), span)),
            None => {
                self.err("E-SYNTAX", span, format!("cannot read operand `{text}`"));
                None
            }
        }
    }

    fn suffix(&mut self, text: Option<&str>, span: Range<usize>) -> Option<Option<Suffix>> {
        match text {
            None => Some(None),
            Some(t) => match suffix(t) {
                Some(s) => Some(Some(s)),
                None => {
                    self.err(
                        "E-SYNTAX",
                        span,
                        format!("unknown type suffix `.{t}`; expected .ud .uw .uh .ub .sd .sw .sh .sb .fd .fs .fh .bf .fb .flb or .d .w .h .b"),
                    );
                    None
                }
            },
        }
    }
}

// ---------------------------------------------------------------------------------------
// Lines

/// The source with comments replaced by spaces (newlines kept, so offsets stay valid).
fn strip_comments(src: &str) -> (String, Option<usize>) {
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

struct RawInsn {
    mnemonic: String,
    mspan: Range<usize>,
    operands: Vec<Tok>,
    line: usize,
    text: String,
    /// Operands that failed to parse (already reported).
    broken: bool,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Region {
    Before,
    Header,
    Body,
}

/// Parse `source` and run every static check.
pub fn check(file: &str, source: &str) -> Result<Program, Diagnostics> {
    let mut ck = Checker {
        file: file.to_string(),
        src: source,
        line_starts: std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect(),
        diags: Vec::new(),
    };
    if source.len() > crate::MAX_SOURCE_BYTES {
        ck.err(
            "E-LIMIT",
            0..0,
            format!(
                "source is {} bytes; the limit is {} bytes",
                source.len(),
                crate::MAX_SOURCE_BYTES
            ),
        );
        return Err(finish(ck));
    }
    let (clean, unterminated) = strip_comments(source);
    if let Some(at) = unterminated {
        ck.err("E-SYNTAX", at..at + 2, "unterminated `/*` comment");
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
    let mut labels: HashMap<String, (u64, Range<usize>)> = HashMap::new();
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
                    ck.err(
                        "E-SYNTAX",
                        span,
                        format!("label `{name}` outside the body: labels follow BSTOP"),
                    );
                } else if let Some((_, first)) = labels.get(&name) {
                    let (l, _) = ck.locate(first.start);
                    ck.err(
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
                &mut ck,
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
                    ck.err("E-HEADER", wspan, "a file holds one block: second BSTART");
                    continue;
                }
                region = Region::Header;
                let m = m.strip_prefix('.').unwrap_or("");
                match Mode::from_name(m).filter(|_| m.chars().all(|c| c.is_ascii_uppercase())) {
                    Some(md) => mode = Some(md),
                    None => ck.err(
                        "E-HEADER",
                        wspan,
                        "the block start is BSTART.LOOP, BSTART.VECT or BSTART.SIMT [003]",
                    ),
                }
                if !args.is_empty() && args != "FALL" {
                    ck.err(
                        "E-HEADER",
                        args_at..args_at + args.len(),
                        "a SIMT block is a FALL block [003]: the only operand BSTART takes is FALL",
                    );
                }
                continue;
            }
            if region != Region::Header {
                if region == Region::Body {
                    ck.err(
                        "E-MNEM",
                        wspan,
                        format!(
                            "`{word}`: body mnemonics are lower case, header ones upper case [003]"
                        ),
                    );
                } else {
                    ck.err("E-HEADER", wspan, format!("`{word}` before BSTART"));
                }
                continue;
            }
            match name {
                "B.DIM" => {
                    let ops: Vec<_> = split_operands(args, args_at);
                    let toks: Vec<Option<Tok>> =
                        ops.iter().map(|(t, a)| ck.token(t, *a)).collect();
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
                                ck.err("E-IMM", vspan.clone(), format!("B.DIM immediate {v} is not a uimm (0..2^24-1)"));
                            } else if dims[*k as usize].is_some() {
                                ck.err("E-HEADER", wspan, format!("LB{k} is set twice"));
                            } else {
                                dims[*k as usize] = Some((*r, *v as u64));
                            }
                        }
                        _ => ck.err(
                            "E-OPERAND",
                            wspan,
                            "B.DIM takes a global register, an unsigned immediate and ->LB0|LB1|LB2",
                        ),
                    }
                }
                "B.TEXT" => {
                    if text_label.is_some() {
                        ck.err("E-HEADER", wspan, "B.TEXT given twice");
                    } else if is_ident(args) {
                        text_label = Some((args.to_string(), args_at..args_at + args.len()));
                    } else {
                        ck.err("E-OPERAND", wspan, "B.TEXT takes the body's label");
                    }
                }
                "BSTOP" => {
                    if !args.is_empty() {
                        ck.err("E-OPERAND", wspan, "BSTOP takes no operands");
                    }
                    region = Region::Body;
                    saw_bstop = true;
                }
                _ => ck.err(
                    "E-MNEM",
                    wspan,
                    format!("unknown block header instruction `{word}`: expected B.DIM, B.TEXT or BSTOP"),
                ),
            }
            continue;
        }
        if region != Region::Body {
            ck.err(
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
            ck.err(
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
                match ck.token(&t, a) {
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
        ck.err(
            "E-HEADER",
            0..0,
            "no block: expected BSTART.<LOOP|VECT|SIMT>",
        );
    }
    if region == Region::Header && !saw_bstop {
        ck.err(
            "E-HEADER",
            source.len()..source.len(),
            "the block header has no BSTOP",
        );
    }
    let entry = match &text_label {
        None => {
            if region != Region::Before {
                ck.err(
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
                ck.err(
                    "E-LABEL",
                    span.clone(),
                    format!("B.TEXT names `{name}`, which is not a body label"),
                );
                BODY_BASE
            }
        },
    };
    if saw_bstop && raws.is_empty() {
        ck.err("E-HEADER", source.len()..source.len(), "the body is empty");
    }

    let mut body = Vec::with_capacity(raws.len());
    for (i, raw) in raws.iter().enumerate() {
        let pc = BODY_BASE + 8 * i as u64;
        if let Some(insn) = resolve(&mut ck, raw, pc, &labels) {
            body.push(insn);
        }
    }

    // Whole-block rules of the reduces (only when every instruction resolved, so the
    // indices line up).
    if body.len() == raws.len() {
        let mut reduce_dst: HashMap<u8, usize> = HashMap::new();
        for (i, insn) in body.iter().enumerate() {
            if let Dest::Gpr(r) = insn.dest {
                if let Some(&first) = reduce_dst.get(&r) {
                    ck.err(
                        "E-GTWICE",
                        raws[i].mspan.clone(),
                        format!(
                            "{} is already written by the reduce on line {}: each global register is written at most once per block [003]",
                            crate::GPR_NAMES[r as usize], body[first].line
                        ),
                    );
                } else {
                    reduce_dst.insert(r, i);
                }
            }
        }
        for (i, insn) in body.iter().enumerate() {
            for read in &insn.srcs {
                if let Src::Gpr(r) = read.src {
                    if let Some(&at) = reduce_dst.get(&r) {
                        ck.err(
                            "E-RDREAD",
                            raws[i].mspan.clone(),
                            format!(
                                "reads {}, which the reduce on line {} writes at block end",
                                crate::GPR_NAMES[r as usize],
                                body[at].line
                            ),
                        );
                    }
                }
            }
            if insn.def.form == Form::Branch {
                let ok = (insn.rc - BODY_BASE) / 8 < body.len() as u64
                    && body[((insn.rc - BODY_BASE) / 8) as usize].def.op == Op::PcPop;
                if !ok {
                    ck.warn(
                        "W-RCLABEL",
                        raws[i].mspan.clone(),
                        "the reconvergence label does not hold pc.pop: a diverging run stops with E-RCLABEL",
                    );
                }
            }
        }
    }

    let lanes_v = lanes.unwrap_or(4);
    let cstk = cstk_depth.unwrap_or(DEFAULT_CSTK_DEPTH);
    let diags = finish(ck);
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(Program {
        file: file.to_string(),
        mode: mode.unwrap_or(Mode::Simt),
        lanes: lanes_v,
        cstk_depth: cstk,
        frm: frm.unwrap_or(Round::Rne),
        gpr,
        memory,
        dims,
        entry,
        body,
        warnings: diags,
    })
}

fn finish(ck: Checker) -> Diagnostics {
    let mut items = ck.diags;
    items.sort_by_key(|d| (d.span.start, d.line, d.column));
    Diagnostics {
        file: ck.file,
        items,
    }
}

#[allow(clippy::too_many_arguments)]
fn directive(
    ck: &mut Checker,
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
    let int_at = |ck: &mut Checker, i: usize| -> Option<i128> {
        let (t, a) = ops.get(i)?;
        match parse_int(t) {
            Some(v) => Some(v),
            None => {
                ck.err(
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
                ck.err("E-DIRECTIVE", wspan, format!("{word} takes one number"));
                return;
            }
            let Some(v) = int_at(ck, 0) else { return };
            let (slot, max) = if word == ".lanenum" {
                (lanes, 64)
            } else {
                (cstk_depth, MAX_CSTK_DEPTH as i128)
            };
            if !(1..=max).contains(&v) {
                ck.err(
                    "E-DIRECTIVE",
                    ops[0].1..ops[0].1 + ops[0].0.len(),
                    format!("{word} {v} is not in 1..{max}"),
                );
            } else if slot.is_some() {
                ck.err("E-DIRECTIVE", wspan, format!("{word} given twice"));
            } else {
                *slot = Some(v as u32);
            }
        }
        ".frm" => {
            if ops.len() != 1 {
                ck.err(
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
                ck.err(
                    "E-DIRECTIVE",
                    *at..*at + t.len().max(1),
                    format!(
                        "unknown rounding mode `{t}`: expected rne, rtz, rdn or rup (CSTATE.FRM)"
                    ),
                );
                return;
            };
            if frm.is_some() {
                ck.err("E-DIRECTIVE", wspan, ".frm given twice");
            } else {
                *frm = Some(mode);
            }
        }
        ".gpr" => {
            if ops.len() != 2 {
                ck.err("E-DIRECTIVE", wspan, ".gpr takes a register and a value");
                return;
            }
            let Some(r) = gpr_number(&ops[0].0) else {
                ck.err(
                    "E-REG",
                    ops[0].1..ops[0].1 + ops[0].0.len().max(1),
                    format!("unknown global register `{}`", ops[0].0),
                );
                return;
            };
            let Some(v) = int_at(ck, 1) else { return };
            if r == 0 {
                ck.err("E-DIRECTIVE", wspan, "zero (R0) always reads 0");
            } else if v < i64::MIN as i128 {
                ck.err(
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
                ck.err(
                    "E-DIRECTIVE",
                    wspan,
                    ".mem takes an address, a width (b|h|w|d|fs|fd) and at least one value",
                );
                return;
            }
            let Some(addr) = int_at(ck, 0) else { return };
            if !(0..=u64::MAX as i128).contains(&addr) {
                ck.err(
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
                    ck.err(
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
                        None => ck.err(
                            "E-DIRECTIVE",
                            *vat..*vat + vtext.len().max(1),
                            format!("`{vtext}` is not a decimal floating-point number"),
                        ),
                    }
                    continue;
                }
                let Some(v) = int_at(ck, i) else { continue };
                let lo = -(1i128 << (bits - 1));
                let hi = (1i128 << bits) - 1;
                if v < lo || v > hi {
                    ck.err(
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
                ck.err(
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
        _ => ck.err(
            "E-DIRECTIVE",
            wspan,
            format!(
                "unknown directive `{word}`: expected .lanenum, .gpr, .mem, .cstk_depth or .frm"
            ),
        ),
    }
}

// ---------------------------------------------------------------------------------------
// Instruction resolution and typing rules

/// Strip the atomic modifiers (`.ne .rd .aq .rl .f`) to find the table's mnemonic.
fn split_modifiers(m: &str) -> Option<(&'static InsnDef, bool, bool)> {
    if let Some(d) = tables::find(m) {
        return Some((d, false, false));
    }
    let mut base = m;
    let mut ne = false;
    let mut rd = false;
    loop {
        let (head, tail) = base.rsplit_once('.')?;
        match tail {
            "ne" if !ne => ne = true,
            "rd" if !rd => rd = true,
            "aq" | "rl" | "f" => {}
            _ => return None,
        }
        base = head;
        if let Some(d) = tables::find(base) {
            let ok = match d.form {
                Form::AmoLoad => !rd,
                Form::AmoStore => !ne,
                _ => false,
            };
            return ok.then_some((d, ne, rd));
        }
    }
}

fn bits_name(bits: u32) -> &'static str {
    match bits {
        8 => "b",
        16 => "h",
        32 => "w",
        _ => "d",
    }
}

struct Resolver<'c, 'a> {
    ck: &'c mut Checker<'a>,
    def: &'static InsnDef,
    ok: bool,
}

impl Resolver<'_, '_> {
    fn err(&mut self, code: &'static str, span: Range<usize>, msg: impl Into<String>) {
        self.ok = false;
        self.ck.err(code, span, msg);
    }

    /// A register input. `allow_bare`: `.w/.d` accepted as unsigned (memory operands [P]).
    /// `want`: the class the form needs (`Some(true)` float, `Some(false)` integer).
    fn read(&mut self, tok: &Tok, want: Option<bool>, allow_bare: bool) -> Option<Read> {
        let Tok::Reg { src, suffix, span } = tok else {
            self.err(
                "E-OPERAND",
                tok.span(),
                format!(
                    "`{}` needs a register operand here, found {}",
                    self.def.mnemonic,
                    tok.what()
                ),
            );
            return None;
        };
        let Some(s) = suffix else {
            self.ck.warn(
                "W-UNTYPED",
                span.clone(),
                "untyped register operand: read as .ud [P]",
            );
            if want == Some(true) {
                self.err(
                    "E-CLASS",
                    span.clone(),
                    "float operands need .fd, .fs, .fh or .bf [004 rule 1]",
                );
                return None;
            }
            return Some(Read {
                src: *src,
                bits: 64,
                signed: false,
                float: None,
            });
        };
        match s.class {
            Class::Fp8 => {
                self.err(
                    "E-UNSUP",
                    span.clone(),
                    "fp8 (.fb) and fp8.1 (.flb) formats are not defined by the sources [P]",
                );
                None
            }
            Class::Float(k) => {
                if want == Some(false) {
                    self.err(
                        "E-CLASS",
                        span.clone(),
                        format!(
                            "`{}` takes integer operands: use .u*/.s* suffixes [004 rule 1]",
                            self.def.mnemonic
                        ),
                    );
                    return None;
                }
                Some(Read {
                    src: *src,
                    bits: s.bits,
                    signed: true,
                    float: Some(k),
                })
            }
            Class::Bare if !allow_bare => {
                self.err(
                    "E-CLASS",
                    span.clone(),
                    format!(
                        "input operands carry a type: .u{0} or .s{0} (or a float type), not .{0} [004 rule 1]",
                        bits_name(s.bits)
                    ),
                );
                None
            }
            Class::Unsigned | Class::Signed | Class::Bare => {
                if want == Some(true) {
                    self.err(
                        "E-CLASS",
                        span.clone(),
                        format!(
                            "`{}` takes float operands: use .fd, .fs, .fh or .bf [004 rule 1]",
                            self.def.mnemonic
                        ),
                    );
                    return None;
                }
                Some(Read {
                    src: *src,
                    bits: s.bits,
                    signed: s.class == Class::Signed,
                    float: None,
                })
            }
        }
    }

    /// Rule 2: the register inputs of a non-memory integer instruction share one width
    /// (E-WMIX) and one letter (E-SMIX).
    fn same_type(&mut self, reads: &[(Read, Range<usize>, Option<Suffix>)]) -> (u32, bool) {
        let Some((first, _, fsuf)) = reads.first() else {
            return (64, false);
        };
        for (r, span, suf) in &reads[1..] {
            if r.bits != first.bits {
                self.err(
                    "E-WMIX",
                    span.clone(),
                    format!(
                        "input widths differ ({} and {} bits): unpredictable [004 rule 1]",
                        first.bits, r.bits
                    ),
                );
                return (first.bits, first.signed);
            }
            let letter = |s: &Option<Suffix>| s.map(|s| s.class);
            if r.float.is_none() && letter(suf) != letter(fsuf) && r.signed != first.signed {
                self.err(
                    "E-SMIX",
                    span.clone(),
                    "inputs mix .s* and .u* suffixes: if sw is used, all use sw [004 rule 1]",
                );
                return (first.bits, first.signed);
            }
        }
        (first.bits, first.signed)
    }

    /// The queue destination `->q.W`; `None` when there is none or it is not a queue.
    fn queue_dest(
        &mut self,
        tok: Option<&Tok>,
        span: Range<usize>,
    ) -> Option<(u8, Option<Suffix>, Range<usize>)> {
        match tok {
            Some(Tok::Dest {
                dest: DestName::Queue(q),
                suffix,
                span,
            }) => {
                if suffix.is_none() {
                    self.ck.warn(
                        "W-UNTYPED",
                        span.clone(),
                        "untyped destination: written as .d [P]",
                    );
                }
                Some((*q, *suffix, span.clone()))
            }
            Some(Tok::Dest {
                dest: DestName::Gpr(r),
                span,
                ..
            }) => {
                self.err(
                    "E-GDST",
                    span.clone(),
                    format!(
                        "`{}` cannot write global register {}: inside a block only reduces write globals [004]",
                        self.def.mnemonic,
                        crate::GPR_NAMES[*r as usize]
                    ),
                );
                None
            }
            Some(t) => {
                self.err(
                    "E-OPERAND",
                    t.span(),
                    format!(
                        "`{}` needs a destination `->t|u|m|n.W` last",
                        self.def.mnemonic
                    ),
                );
                None
            }
            None => {
                self.err(
                    "E-OPERAND",
                    span,
                    format!(
                        "`{}` needs a destination `->t|u|m|n.W` last",
                        self.def.mnemonic
                    ),
                );
                None
            }
        }
    }

    fn imm(&mut self, tok: &Tok, kind: ImmKind, w: u32, pc: u64, labels: &Labels) -> Option<u64> {
        let (v, span) = match tok {
            Tok::Int(v, s) => (*v, s.clone()),
            Tok::Lo(l, s) => (label(self, l, s, labels)? as i128 & 0xfff, s.clone()),
            Tok::Hi(l, s) => {
                let t = label(self, l, s, labels)?;
                (((t >> 12) as i128) - ((pc >> 12) as i128), s.clone())
            }
            t => {
                self.err(
                    "E-OPERAND",
                    t.span(),
                    format!(
                        "`{}` needs an immediate here, found {}",
                        self.def.mnemonic,
                        t.what()
                    ),
                );
                return None;
            }
        };
        let (lo, hi) = match kind {
            ImmKind::Uimm => (0, (1 << 24) - 1),
            ImmKind::Simm | ImmKind::None => (-(1 << 23), (1 << 23) - 1),
            ImmKind::Shamt => (0, w as i128 - 1),
        };
        if v < lo || v > hi {
            let what = match kind {
                ImmKind::Uimm => "uimm",
                ImmKind::Shamt => "shift amount",
                _ => "simm",
            };
            self.err("E-IMM", span, format!("{what} {v} is not in {lo}..{hi}"));
            return None;
        }
        Some(v as u64 & mask(w))
    }
}

type Labels = HashMap<String, (u64, Range<usize>)>;

fn label(r: &mut Resolver, name: &str, span: &Range<usize>, labels: &Labels) -> Option<u64> {
    match labels.get(name) {
        Some((a, _)) => Some(*a),
        None => {
            r.err("E-LABEL", span.clone(), format!("undefined label `{name}`"));
            None
        }
    }
}

pub(crate) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Micro-instructions the sources name that this model leaves out (E-UNSUP, SPEC §4): the
/// SSR accesses and the bit-manipulation class [pub bitmanip.md].
const OUT_OF_SCOPE: &[(&str, &str)] = &[
    ("ssrget", "an SSR access"),
    ("ssrset", "an SSR access"),
    ("ssrswap", "an SSR access"),
    ("bxu", "bit manipulation"),
    ("bxs", "bit manipulation"),
    ("bic", "bit manipulation"),
    ("bis", "bit manipulation"),
    ("ctz", "bit manipulation"),
    ("clz", "bit manipulation"),
    ("bcnt", "bit manipulation"),
    ("rev", "bit manipulation"),
];

fn resolve(ck: &mut Checker, raw: &RawInsn, pc: u64, labels: &Labels) -> Option<Insn> {
    if let Some((_, what)) = OUT_OF_SCOPE.iter().find(|(m, _)| *m == raw.mnemonic) {
        ck.err(
            "E-UNSUP",
            raw.mspan.clone(),
            format!("`{}` ({what}) is outside this model", raw.mnemonic),
        );
        return None;
    }
    let Some((def, ne, rd)) = split_modifiers(&raw.mnemonic) else {
        let near = tables::INSNS
            .iter()
            .map(|d| d.mnemonic)
            .find(|m| m.eq_ignore_ascii_case(&raw.mnemonic));
        ck.err(
            "E-MNEM",
            raw.mspan.clone(),
            match near {
                Some(m) => format!("unknown mnemonic `{}`; did you mean `{m}`? (body mnemonics are lower case [003])", raw.mnemonic),
                None => format!("unknown mnemonic `{}`", raw.mnemonic),
            },
        );
        return None;
    };
    if raw.broken {
        return None;
    }
    let mut r = Resolver { ck, def, ok: true };
    let ops = &raw.operands;
    let mut insn = Insn {
        def,
        srcs: Vec::new(),
        imm: 0,
        offset: Offset::None,
        shift: 0,
        dest: Dest::None,
        w: 64,
        signed: false,
        out_bits: 64,
        out_signed: false,
        out_float: None,
        target: 0,
        rc: 0,
        non_atomic: ne,
        store_reduce: rd,
        line: raw.line,
        text: raw.text.clone(),
    };
    let count = |r: &mut Resolver, n: usize, syntax: &str| -> bool {
        if ops.len() != n {
            r.err(
                "E-OPERAND",
                raw.mspan.clone(),
                format!(
                    "`{}` takes {n} operand{} ({syntax}), {} given",
                    def.mnemonic,
                    if n == 1 { "" } else { "s" },
                    ops.len()
                ),
            );
            return false;
        }
        true
    };
    let syntax = tables_syntax(def.form);
    let reg_suffix = |t: &Tok| match t {
        Tok::Reg { suffix, .. } => *suffix,
        _ => None,
    };
    match def.form {
        Form::Alu | Form::Cmp | Form::Csel | Form::AluImm | Form::CmpImm => {
            let nregs = match def.form {
                Form::Alu | Form::Cmp => 2,
                Form::Csel => 3,
                _ => 1,
            };
            let has_imm = matches!(def.form, Form::AluImm | Form::CmpImm);
            if !count(&mut r, nregs + usize::from(has_imm) + 1, syntax) {
                return None;
            }
            let mut reads = Vec::new();
            for t in &ops[..nregs] {
                if let Some(rd) = r.read(t, Some(false), false) {
                    reads.push((rd, t.span(), reg_suffix(t)));
                }
            }
            if reads.len() != nregs {
                return None;
            }
            let (w, signed) = r.same_type(&reads);
            insn.w = w;
            insn.signed = signed;
            insn.srcs = reads.iter().map(|x| x.0).collect();
            if has_imm {
                insn.imm = r.imm(&ops[nregs], def.imm, w, pc, labels)?;
            }
            let (q, suf, dspan) = r.queue_dest(ops.last(), raw.mspan.clone())?;
            let out = suf.map_or(64, |s| s.bits);
            if !matches!(def.form, Form::Cmp | Form::CmpImm) && out < w {
                r.err(
                    "E-ONARROW",
                    dspan,
                    format!(
                        "output width {out} is narrower than the input width {w} [P; 004 rule 1]"
                    ),
                );
            }
            insn.dest = Dest::Queue { q, bits: out };
            insn.out_bits = out;
        }
        Form::Cvt => {
            if !count(&mut r, 2, syntax) {
                return None;
            }
            let from_float = matches!(def.op, Op::Fcvt | Op::Fcvti);
            let to_float = matches!(def.op, Op::Fcvt | Op::Icvtf);
            let a = r.read(&ops[0], Some(from_float), false)?;
            if !from_float {
                if let Some(Suffix {
                    class: Class::Bare, ..
                }) = reg_suffix(&ops[0])
                {
                    return None;
                }
            }
            insn.srcs = vec![a];
            insn.w = a.bits;
            insn.signed = a.signed;
            let (q, suf, dspan) = r.queue_dest(ops.last(), raw.mspan.clone())?;
            let s = suf.unwrap_or(Suffix {
                class: Class::Unsigned,
                bits: 64,
            });
            match (s.class, to_float) {
                (Class::Fp8, _) => {
                    r.err(
                        "E-UNSUP",
                        dspan,
                        "fp8 (.fb) and fp8.1 (.flb) formats are not defined by the sources [P]",
                    );
                }
                (Class::Float(k), true) => insn.out_float = Some(k),
                (Class::Unsigned | Class::Signed | Class::Bare, false) => {
                    insn.out_signed = s.class == Class::Signed;
                }
                (_, true) => r.err(
                    "E-CLASS",
                    dspan,
                    format!(
                        "`{}` converts to a float type: .fd, .fs, .fh or .bf [004]",
                        def.mnemonic
                    ),
                ),
                (_, false) => r.err(
                    "E-CLASS",
                    dspan,
                    format!(
                        "`{}` converts to an integer type: .u*/.s* [004]",
                        def.mnemonic
                    ),
                ),
            }
            insn.dest = Dest::Queue { q, bits: s.bits };
            insn.out_bits = s.bits;
        }
        Form::Falu | Form::Falu1 | Form::Fcmp => {
            let nregs = if def.form == Form::Falu1 { 1 } else { 2 };
            if !count(&mut r, nregs + 1, syntax) {
                return None;
            }
            let mut reads = Vec::new();
            for t in &ops[..nregs] {
                if let Some(rd) = r.read(t, Some(true), false) {
                    reads.push((rd, t.span()));
                }
            }
            if reads.len() != nregs {
                return None;
            }
            let k = reads[0].0.float;
            for (rd, span) in &reads[1..] {
                if rd.float != k {
                    r.err(
                        "E-WMIX",
                        span.clone(),
                        "float inputs of different formats: unpredictable [004 rule 1]",
                    );
                }
            }
            insn.w = reads[0].0.bits;
            insn.srcs = reads.iter().map(|x| x.0).collect();
            let (q, suf, dspan) = r.queue_dest(ops.last(), raw.mspan.clone())?;
            let out = suf.map_or(64, |s| s.bits);
            if def.form != Form::Fcmp && out != insn.w {
                r.err(
                    "E-FWIDTH",
                    dspan,
                    format!(
                        "a float result is written at its format's width ({} bits), not {out} [004: input and output widths correspond]",
                        insn.w
                    ),
                );
            }
            insn.dest = Dest::Queue { q, bits: out };
            insn.out_bits = out;
        }
        Form::Load | Form::Store | Form::AmoLoad | Form::AmoStore => {
            let (n, mem_index) = match def.form {
                Form::Load => (2, 0),
                Form::Store => (2, 1),
                Form::AmoLoad => (3, 0),
                _ => (2, 0),
            };
            if !count(&mut r, n, syntax) {
                return None;
            }
            let Tok::Mem {
                base,
                offset,
                shift,
                span: mspan,
            } = &ops[mem_index]
            else {
                r.err(
                    "E-OPERAND",
                    ops[mem_index].span(),
                    format!("`{}` needs a memory operand `[...]` here", def.mnemonic),
                );
                return None;
            };
            let b = r.read(base, None, true)?;
            if b.bits != 64 || b.float.is_some() {
                r.err(
                    "E-BASEW",
                    base.span(),
                    "the address base is 64-bit: .ud, .sd or .d [004 rule 2]",
                );
            }
            insn.srcs.push(b);
            insn.shift = *shift;
            let amo = matches!(def.form, Form::AmoLoad | Form::AmoStore);
            match offset.as_deref() {
                None => {}
                Some(_) if amo => {
                    r.err(
                        "E-OPERAND",
                        mspan.clone(),
                        "atomics take a plain address `[A.T]` [003 adj.11]",
                    );
                }
                Some(Tok::Int(v, s)) => {
                    if *v < i64::MIN as i128 {
                        r.err("E-IMM", s.clone(), "offset does not fit in 64 bits");
                    }
                    insn.offset = Offset::Imm(*v as u64);
                }
                Some(t) => {
                    let o = r.read(t, Some(false), true)?;
                    insn.offset = Offset::Reg(o);
                }
            }
            let access = def.access;
            if matches!(def.form, Form::Store | Form::AmoLoad | Form::AmoStore) {
                let dt = if def.form == Form::Store {
                    &ops[0]
                } else {
                    &ops[1]
                };
                let d = r.read(dt, if amo { Some(false) } else { None }, true)?;
                if d.bits != access {
                    r.err(
                        "E-STW",
                        dt.span(),
                        format!(
                            "the data is {} bits but `{}` stores {access} [004 rule 2]",
                            d.bits, def.mnemonic
                        ),
                    );
                }
                insn.srcs.push(d);
            }
            insn.w = access;
            if matches!(def.form, Form::Load | Form::AmoLoad) {
                let (q, suf, dspan) = r.queue_dest(ops.last(), raw.mspan.clone())?;
                let out = suf.map_or(64, |s| s.bits);
                if out != access {
                    r.err(
                        "E-LDW",
                        dspan,
                        format!(
                            "the destination is {out} bits but `{}` loads {access} [004 rule 2]",
                            def.mnemonic
                        ),
                    );
                }
                insn.dest = Dest::Queue { q, bits: out };
                insn.out_bits = out;
            }
        }
        Form::Reduce | Form::Freduce => {
            if !count(&mut r, 2, syntax) {
                return None;
            }
            let s = r.read(&ops[0], Some(def.form == Form::Freduce), false)?;
            insn.srcs = vec![s];
            insn.w = s.bits;
            insn.signed = s.signed;
            match &ops[1] {
                Tok::Dest {
                    dest: DestName::Gpr(g),
                    suffix,
                    span,
                } => {
                    if *g == 0 {
                        r.err(
                            "E-RDDST",
                            span.clone(),
                            "zero (R0) cannot be a reduce destination",
                        );
                    }
                    match suffix {
                        None => r.ck.warn(
                            "W-UNTYPED",
                            span.clone(),
                            "untyped destination: written as .d [P]",
                        ),
                        Some(Suffix {
                            class: Class::Bare,
                            bits: 64,
                        }) => {}
                        Some(_) => r.err(
                            "E-RDDST",
                            span.clone(),
                            "a reduce writes its global register at .d [004]",
                        ),
                    }
                    insn.dest = Dest::Gpr(*g);
                }
                t => r.err(
                    "E-RDDST",
                    t.span(),
                    "a reduce's destination is a global register at .d (`->x1.d`) [003 adj.7]",
                ),
            }
        }
        Form::J => {
            if !count(&mut r, 1, syntax) {
                return None;
            }
            insn.target = jump_label(&mut r, &ops[0], labels)?;
        }
        Form::Jr => {
            if !count(&mut r, 2, syntax) {
                return None;
            }
            let s = r.read(&ops[0], Some(false), true)?;
            insn.srcs = vec![s];
            insn.w = s.bits;
            insn.signed = s.signed;
            let Tok::Int(v, span) = &ops[1] else {
                r.err("E-OPERAND", ops[1].span(), "`jr` takes a byte offset");
                return None;
            };
            if *v % 8 != 0 || !(-(1 << 17)..1 << 17).contains(v) {
                r.err(
                    "E-IMM",
                    span.clone(),
                    format!("jr offset {v} is not a multiple of 8 in -131072..131064 (simm15<<3) [003 adj.10]"),
                );
            }
            insn.imm = *v as u64;
        }
        Form::Addtpc => {
            if !count(&mut r, 2, syntax) {
                return None;
            }
            insn.imm = r.imm(&ops[0], ImmKind::Simm, 64, pc, labels)?;
            let (q, suf, dspan) = r.queue_dest(ops.last(), raw.mspan.clone())?;
            let out = suf.map_or(64, |s| s.bits);
            if out != 64 {
                r.err(
                    "E-ONARROW",
                    dspan,
                    "addtpc writes a 64-bit address: ->q.d [P]",
                );
            }
            insn.dest = Dest::Queue { q, bits: 64 };
        }
        Form::Branch => {
            if ops.len() == 3 {
                r.err(
                    "E-NORC",
                    raw.mspan.clone(),
                    format!(
                        "`{}` needs a reconvergence label after the target [004 rule 5]",
                        def.mnemonic
                    ),
                );
                return None;
            }
            if !count(&mut r, 4, syntax) {
                return None;
            }
            let mut reads = Vec::new();
            for t in &ops[..2] {
                if let Some(rd) = r.read(t, Some(false), false) {
                    reads.push((rd, t.span(), reg_suffix(t)));
                }
            }
            if reads.len() != 2 {
                return None;
            }
            let (w, signed) = r.same_type(&reads);
            insn.w = w;
            insn.signed = signed;
            insn.srcs = reads.iter().map(|x| x.0).collect();
            insn.target = jump_label(&mut r, &ops[2], labels)?;
            insn.rc = jump_label(&mut r, &ops[3], labels)?;
        }
        Form::Bcond => {
            if !count(&mut r, 3, syntax) {
                return None;
            }
            for t in ops {
                let rd = r.read(t, Some(false), true)?;
                insn.srcs.push(rd);
            }
        }
        Form::PcPop | Form::Lbstop => {
            if !count(&mut r, 0, syntax) {
                return None;
            }
        }
    }
    r.ok.then_some(insn)
}

fn jump_label(r: &mut Resolver, tok: &Tok, labels: &Labels) -> Option<u64> {
    match tok {
        Tok::Label(name, span) => label(r, name, span, labels),
        t => {
            r.err(
                "E-OPERAND",
                t.span(),
                format!(
                    "`{}` needs a label here, found {}",
                    r.def.mnemonic,
                    t.what()
                ),
            );
            None
        }
    }
}

fn tables_syntax(form: Form) -> &'static str {
    match form {
        Form::Alu | Form::Cmp => "A.T, B.T, ->q.W",
        Form::AluImm | Form::CmpImm => "A.T, IMM, ->q.W",
        Form::Csel => "P.T, L.T, R.T, ->q.W",
        Form::Cvt => "A.T, ->q.T",
        Form::Falu | Form::Fcmp => "A.F, B.F, ->q.W",
        Form::Falu1 => "A.F, ->q.W",
        Form::Load => "[B.T, O.T<<k], ->q.W",
        Form::Store => "D.T, [B.T, O.T<<k]",
        Form::AmoLoad => "[A.T], V.T, ->q.W",
        Form::AmoStore => "[A.T], V.T",
        Form::Reduce => "S.T, ->Rg.d",
        Form::Freduce => "S.F, ->Rg.d",
        Form::J => "LABEL",
        Form::Jr => "S.T, IMM",
        Form::Addtpc => "IMM, ->q.d",
        Form::Branch => "L.T, R.T, TARGET, RECONVERGENCE",
        Form::Bcond => "P.T, L.T, R.T",
        Form::PcPop | Form::Lbstop => "no operands",
    }
}
