//! Diagnostics: every error is located (file, line, column, byte span) and says what was
//! expected. The library only builds them; rendering for humans is [`AsmErrors::render`].

use std::fmt;
use std::ops::Range;

/// What went wrong on one line. The `Display` text is the message after `error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    #[error("unknown mnemonic `{found}`{}", suggest(.suggestion))]
    UnknownMnemonic {
        found: String,
        suggestion: Option<&'static str>,
    },
    #[error("unknown directive `{found}`{}", suggest(.suggestion))]
    UnknownDirective {
        found: String,
        suggestion: Option<&'static str>,
    },
    #[error("`{mnemonic}` takes {expected} operand{} ({syntax}), {found} given", plural(.expected))]
    OperandCount {
        mnemonic: &'static str,
        expected: String,
        found: usize,
        syntax: String,
    },
    #[error("`{kind}` needs {expected}, found {found}")]
    WrongOperand {
        kind: &'static str,
        expected: String,
        found: String,
    },
    #[error("register {found} does not exist: {file} registers are {prefix}0..{prefix}{last}")]
    NoSuchRegister {
        found: String,
        file: &'static str,
        prefix: char,
        last: u32,
    },
    #[error("`{kind}` {what} out of range: {value} is not in {lo}..{hi}")]
    OutOfRange {
        kind: &'static str,
        what: &'static str,
        value: i128,
        lo: i128,
        hi: i128,
    },
    #[error("`{kind}` {what} {value} is not a multiple of {scale}")]
    Misaligned {
        kind: &'static str,
        what: &'static str,
        value: i128,
        scale: u32,
    },
    #[error(
        "`{kind}` value {value} is reserved ({ty} values {lo}..{hi} are reserved, errata v0.1.2)"
    )]
    ReservedValue {
        kind: &'static str,
        ty: &'static str,
        value: u32,
        lo: u32,
        hi: u32,
    },
    #[error("unknown `{kind}` value `{found}`; expected one of {names} or a number")]
    UnknownEnum {
        kind: &'static str,
        found: String,
        names: String,
    },
    #[error("`{mnemonic}` has no operand `{key}`; its keyed operands are {keys}")]
    UnknownKey {
        mnemonic: &'static str,
        key: String,
        keys: String,
    },
    #[error("operand `{key}` given twice")]
    DuplicateKey { key: String },
    #[error("undefined symbol `{name}`{}", suggest_str(.suggestion))]
    UndefinedSymbol {
        name: String,
        suggestion: Option<String>,
    },
    #[error("symbol `{name}` is already defined on line {first_line}")]
    DuplicateSymbol { name: String, first_line: usize },
    #[error("`.global {name}` names no label: it must be a label defined in this file")]
    UndefinedGlobal { name: String },
    #[error("symbol `{name}` is defined in terms of itself")]
    CircularSymbol { name: String },
    #[error("{0}")]
    Syntax(String),
    #[error("arithmetic overflow in `{op}`")]
    Overflow { op: &'static str },
    #[error("`{reference}` refers to the local label `{label}:` {}, but there is none", if *.forward { "further down" } else { "above" })]
    NoLocalLabel {
        reference: String,
        label: u32,
        forward: bool,
    },
    #[error("division by zero in `{op}`")]
    DivisionByZero { op: &'static str },
    #[error("shift amount {amount} is not in 0..127")]
    BadShift { amount: i128 },
    #[error(
        "{what} must be a constant known at this point (symbols used here must be defined above)"
    )]
    NotConstant { what: &'static str },
    #[error("`{directive}` value {value} does not fit in {bits} bits (allowed: {lo}..{hi})")]
    DataOutOfRange {
        directive: &'static str,
        value: i128,
        bits: u32,
        lo: i128,
        hi: i128,
    },
    #[error("`{directive}` needs a power of two between 1 and {max}, found {value}")]
    BadAlign {
        directive: &'static str,
        value: i128,
        max: u64,
    },
    #[error("`.p2align` needs an exponent between 0 and {max} (an alignment of 1 to {max_align} bytes), found {value}")]
    BadP2Align {
        value: i128,
        max: u32,
        max_align: u64,
    },
    #[error("`{directive}` size {value} is not in 0..{max}")]
    BadSize {
        directive: &'static str,
        value: i128,
        max: u64,
    },
    #[error("unknown section `{found}`; expected .text, .data, .rodata or .bss (or a `.name.suffix` of one), or a name with flags like \"ax\" or \"a\"")]
    UnknownSection { found: String },
    #[error("the `{what}` operand cannot refer to `{name}` in section {section}: a PC-relative offset needs a label in the same section (or, for an address, in .data), or a constant")]
    CrossSection {
        what: &'static str,
        name: String,
        section: crate::Section,
    },
    #[error("line is {len} bytes long; the limit is {limit} bytes (MAX_LINE_BYTES)")]
    LineTooLong { len: usize, limit: usize },
    #[error("source is {len} bytes; the limit is {limit} bytes (MAX_SOURCE_BYTES, 256 MiB)")]
    SourceTooLarge { len: usize, limit: usize },
    #[error("floating-point literal `{text}` is out of range for fp{bits} (it would be infinite)")]
    FloatOverflow { text: String, bits: u32 },
    #[error("invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 { offset: usize },
    #[error("empty source: no statements to assemble")]
    Empty,
    #[error("section {section} would grow past {limit} bytes")]
    SectionTooLarge { section: crate::Section, limit: u64 },
}

fn suggest(s: &Option<&'static str>) -> String {
    s.map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default()
}

fn suggest_str(s: &Option<String>) -> String {
    s.as_ref()
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default()
}

fn plural(expected: &str) -> &'static str {
    if expected == "1" {
        ""
    } else {
        "s"
    }
}

/// One located diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    /// The file the offending text is in: the assembled file, or one it includes.
    pub file: String,
    /// 1-based line number in `file`.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// Byte range of the offending text in the whole source (of `file` when `quote` is
    /// `None`).
    pub span: Range<usize>,
    pub kind: ErrorKind,
    /// For text that is not a line of the assembled file itself (an included file, a macro
    /// body): the line as written, and the offending byte range in it.
    pub quote: Option<(String, Range<usize>)>,
    /// Where the text came from, innermost first: "in expansion of macro `m` at f.s:3:5",
    /// "included from f.s:1:1".
    pub notes: Vec<String>,
}

impl std::error::Error for AsmError {}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.column, self.kind
        )?;
        for n in &self.notes {
            write!(f, "\n  note: {n}")?;
        }
        Ok(())
    }
}

/// Something accepted but probably not what the author meant, or ignored on purpose (a
/// directive with no meaning for this target). Never stops assembly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmWarning {
    pub file: String,
    /// 1-based line number in `file`.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    pub message: String,
    /// As [`AsmError::notes`].
    pub notes: Vec<String>,
}

impl fmt::Display for AsmWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: warning: {}",
            self.file, self.line, self.column, self.message
        )?;
        for n in &self.notes {
            write!(f, "\n  note: {n}")?;
        }
        Ok(())
    }
}

/// Every diagnostic of one source file, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmErrors {
    pub file: String,
    pub errors: Vec<AsmError>,
    /// Diagnostics beyond [`MAX_ERRORS`] that were counted but not kept.
    pub dropped: usize,
}

/// At most this many diagnostics are kept, so a huge broken file cannot exhaust memory.
pub const MAX_ERRORS: usize = 10_000;

impl std::error::Error for AsmErrors {}

impl fmt::Display for AsmErrors {
    /// The diagnostics without source excerpts; [`AsmErrors::render`] adds them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.errors {
            writeln!(f, "{e}")?;
        }
        self.summary(f)
    }
}

/// Longest source line that is quoted in full under a diagnostic.
const MAX_QUOTED_LINE: usize = 512;

impl AsmErrors {
    pub fn len(&self) -> usize {
        self.errors.len() + self.dropped
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn summary(&self, f: &mut impl fmt::Write) -> fmt::Result {
        if self.dropped > 0 {
            writeln!(f, "... and {} more errors not shown", self.dropped)?;
        }
        let n = self.len();
        writeln!(
            f,
            "{n} error{} in {}",
            if n == 1 { "" } else { "s" },
            self.file
        )
    }

    /// Compiler-style text: `file:line:col: error: message`, the source line, and a caret
    /// line under the offending text. `source` must be the text that was assembled.
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        for e in &self.errors {
            render_one(e, source, &mut out);
        }
        let _ = self.summary(&mut out);
        out
    }
}

fn render_one(e: &AsmError, source: &str, out: &mut String) {
    use fmt::Write;
    let _ = writeln!(out, "{e}");
    if let Some((text, range)) = &e.quote {
        let _ = write_excerpt(out, e.line, text, range.clone());
        return;
    }
    render_excerpt(source, e.line, e.span.clone(), out);
}

/// The source line holding `span` (its 1-based number is `line`) and a caret line under
/// the offending text, as under every assembler diagnostic. Shared by other front ends
/// (the LinxISA model) so every warpkit diagnostic looks the same.
pub fn render_excerpt(source: &str, line: usize, span: Range<usize>, out: &mut String) {
    let start = span.start.min(source.len());
    let Some(prefix) = source.get(..start) else {
        return;
    };
    let line_start = prefix.rfind('\n').map_or(0, |i| i + 1);
    let rest = source.get(line_start..).unwrap_or("");
    let line_end = rest.find('\n').map_or(rest.len(), |i| i);
    let text = rest[..line_end].trim_end_matches('\r');
    let _ = write_excerpt(
        out,
        line,
        text,
        start - line_start..span.end.saturating_sub(line_start),
    );
}

/// The quoted line and a caret line under `range` (byte offsets into `text`).
fn write_excerpt(out: &mut String, line: usize, text: &str, range: Range<usize>) -> fmt::Result {
    use fmt::Write;
    if text.len() > MAX_QUOTED_LINE {
        return Ok(());
    }
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    writeln!(out, "{gutter} | {text}")?;
    let mut caret = String::new();
    let mut col_start = range.start.min(text.len());
    while !text.is_char_boundary(col_start) {
        col_start -= 1;
    }
    let mut span_end = range.end.min(text.len()).max(col_start);
    while !text.is_char_boundary(span_end) {
        span_end += 1;
    }
    for c in text[..col_start].chars() {
        caret.push(if c == '\t' { '\t' } else { ' ' });
    }
    let width = text[col_start..span_end].chars().count().max(1);
    caret.push_str(&"^".repeat(width));
    writeln!(out, "{pad} | {caret}")
}

/// Levenshtein distance, bounded work: only called on the error path.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(!ca.eq_ignore_ascii_case(&cb));
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The closest candidate within a distance that still looks like a typo.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    if word.len() > 64 {
        return None;
    }
    let limit = (word.chars().count().div_ceil(3)).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(word, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}
