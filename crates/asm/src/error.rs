//! Diagnostics: every error is located (file, line, column, byte span) and says what was
//! expected. The library only builds them; rendering for humans is [`AsmErrors::render`].

use std::fmt;
use std::ops::Range;

/// What went wrong on one line. The `Display` text is the message after `error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// A statement's first word is no instruction mnemonic of the ISA.
    #[error("unknown mnemonic `{found}`{}", suggest(.suggestion))]
    UnknownMnemonic {
        /// The word as written.
        found: String,
        /// The closest mnemonic, when one is near enough to be a typo.
        suggestion: Option<&'static str>,
    },
    /// A word starting with `.` that is no directive the assembler knows.
    #[error("unknown directive `{found}`{}", suggest(.suggestion))]
    UnknownDirective {
        /// The directive as written, with its dot.
        found: String,
        /// The closest directive, when one is near enough to be a typo.
        suggestion: Option<&'static str>,
    },
    /// An instruction was given too few or too many positional operands.
    #[error("`{mnemonic}` takes {expected} operand{} ({syntax}), {found} given", plural(.expected))]
    OperandCount {
        /// The instruction's mnemonic.
        mnemonic: &'static str,
        /// How many positional operands it takes: `3`, or a range such as `2 to 3` when
        /// some are optional.
        expected: String,
        /// How many were given.
        found: usize,
        /// Its operand syntax, `name:kind` per operand (`rd:v, rs1:v, rs2:v`).
        syntax: String,
    },
    /// An operand of the wrong sort: a register where an immediate belongs, a single
    /// register for a pair, and so on.
    #[error("`{kind}` needs {expected}, found {found}")]
    WrongOperand {
        /// The operand's syntax kind (docs/isa-reference.md, "Syntax kinds": `v`, `s10`, ...).
        kind: &'static str,
        /// What the kind takes, in words (`a vector register like v5`).
        expected: String,
        /// What was written instead: the text quoted, or a register described (`register u3`).
        found: String,
    },
    /// A register number past the end of its register file.
    #[error("register {found} does not exist: {file} registers are {prefix}0..{prefix}{last}")]
    NoSuchRegister {
        /// The register as written, normalised (`v300`).
        found: String,
        /// The register file: `vector` or `uniform`.
        file: &'static str,
        /// The file's register prefix: `v` or `u`.
        prefix: char,
        /// The highest register number of the file.
        last: u32,
    },
    /// An operand value outside what its field can encode.
    #[error("`{kind}` {what} out of range: {value} is not in {lo}..{hi}")]
    OutOfRange {
        /// The operand's syntax kind (docs/isa-reference.md, "Syntax kinds").
        kind: &'static str,
        /// What the value is: `value` (an enumerated operand given as a number), `literal`
        /// (a 32-bit literal), `offset` or `immediate`.
        what: &'static str,
        /// The value given, after evaluation (PC-relative operands: the offset).
        value: i128,
        /// The smallest value allowed (inclusive).
        lo: i128,
        /// The largest value allowed (inclusive).
        hi: i128,
    },
    /// An operand value that is not a multiple of its field's scale.
    #[error("`{kind}` {what} {value} is not a multiple of {scale}")]
    Misaligned {
        /// The operand's syntax kind (docs/isa-reference.md, "Syntax kinds").
        kind: &'static str,
        /// What the value is: `offset` or `immediate`.
        what: &'static str,
        /// The value given, after evaluation.
        value: i128,
        /// The operand type's scale: the field encodes the value divided by it.
        scale: u32,
    },
    /// A field value that decodes but is reserved: it would trap as IllegalInsn when
    /// executed (errata v0.1.2).
    #[error(
        "`{kind}` value {value} is reserved ({ty} values {lo}..{hi} are reserved, errata v0.1.2)"
    )]
    ReservedValue {
        /// The operand's syntax kind (docs/isa-reference.md, "Syntax kinds").
        kind: &'static str,
        /// The operand type whose values are reserved (`lane7`, ...).
        ty: &'static str,
        /// The encoded field value.
        value: u32,
        /// The first reserved value (inclusive).
        lo: u32,
        /// The last reserved value (inclusive).
        hi: u32,
    },
    /// A name given to an enumerated operand that is none of its values.
    #[error("unknown `{kind}` value `{found}`; expected one of {names} or a number")]
    UnknownEnum {
        /// The operand's syntax kind (docs/isa-reference.md, "Syntax kinds").
        kind: &'static str,
        /// The name as written.
        found: String,
        /// The operand type's value names, comma-separated.
        names: String,
    },
    /// A `key=value` operand whose key is none of the instruction's keyed operands.
    #[error("`{mnemonic}` has no operand `{key}`; its keyed operands are {keys}")]
    UnknownKey {
        /// The instruction's mnemonic.
        mnemonic: &'static str,
        /// The key as written.
        key: String,
        /// The instruction's keyed operand names, comma-separated, or `none`.
        keys: String,
    },
    /// A keyed operand (`key=value`) or a modifier given twice in one instruction.
    #[error("operand `{key}` given twice")]
    DuplicateKey {
        /// The key or modifier name.
        key: String,
    },
    /// A symbol used in an expression that is defined nowhere in the file.
    #[error("undefined symbol `{name}`{}", suggest_str(.suggestion))]
    UndefinedSymbol {
        /// The symbol as written.
        name: String,
        /// The closest defined symbol, when one is near enough to be a typo.
        suggestion: Option<String>,
    },
    /// A label (or constant) defined a second time.
    #[error("symbol `{name}` is already defined on line {first_line}")]
    DuplicateSymbol {
        /// The symbol's name.
        name: String,
        /// The 1-based line of its first definition.
        first_line: usize,
    },
    /// `.global` names something that is not a label of this file.
    #[error("`.global {name}` names no label: it must be a label defined in this file")]
    UndefinedGlobal {
        /// The name `.global` gave.
        name: String,
    },
    /// A constant (`.equ`, `.equiv`, `.set`) whose value depends on itself.
    #[error("symbol `{name}` is defined in terms of itself")]
    CircularSymbol {
        /// The constant's name.
        name: String,
    },
    /// Any other malformed text; the message says what was expected and what was found.
    #[error("{0}")]
    Syntax(String),
    /// An expression whose value does not fit in the assembler's 128-bit arithmetic.
    #[error("arithmetic overflow in `{op}`")]
    Overflow {
        /// The operator that overflowed (`+`, `*`, `<<`, ...).
        op: &'static str,
    },
    /// A numeric local label reference (`1f`, `1b`) with no such label in its direction.
    #[error("`{reference}` refers to the local label `{label}:` {}, but there is none", if *.forward { "further down" } else { "above" })]
    NoLocalLabel {
        /// The reference as written (`1f`).
        reference: String,
        /// The label's number.
        label: u32,
        /// `true` for a forward reference (`f`, searched below), `false` for `b`.
        forward: bool,
    },
    /// A division or remainder by zero in an expression.
    #[error("division by zero in `{op}`")]
    DivisionByZero {
        /// `/` or `%`.
        op: &'static str,
    },
    /// A shift (`<<`, `>>`) by a negative amount or by 128 or more.
    #[error("shift amount {amount} is not in 0..127")]
    BadShift {
        /// The shift amount, the right operand.
        amount: i128,
    },
    /// A directive argument that uses a symbol not defined above it, where the value must
    /// be known in the first pass (an alignment, a size, a fill byte).
    #[error(
        "{what} must be a constant known at this point (symbols used here must be defined above)"
    )]
    NotConstant {
        /// The argument concerned (`the alignment`, `the size`, `the fill byte`, ...).
        what: &'static str,
    },
    /// A data directive's value (or a directive's fill byte or skip limit) outside what its
    /// width holds, signed or unsigned.
    #[error("`{directive}` value {value} does not fit in {bits} bits (allowed: {lo}..{hi})")]
    DataOutOfRange {
        /// The directive (`.byte`, `.half`, ...), or `fill byte` / `max skip` of an
        /// alignment directive.
        directive: &'static str,
        /// The value given, after evaluation.
        value: i128,
        /// The width in bits.
        bits: u32,
        /// The smallest value allowed (inclusive).
        lo: i128,
        /// The largest value allowed (inclusive).
        hi: i128,
    },
    /// `.align` or `.balign` given an alignment that is not a power of two, or too large.
    #[error("`{directive}` needs a power of two between 1 and {max}, found {value}")]
    BadAlign {
        /// `.align` or `.balign`.
        directive: &'static str,
        /// The alignment given, in bytes.
        value: i128,
        /// The largest alignment allowed, in bytes.
        max: u64,
    },
    /// `.p2align` given an exponent out of range.
    #[error("`.p2align` needs an exponent between 0 and {max} (an alignment of 1 to {max_align} bytes), found {value}")]
    BadP2Align {
        /// The exponent given.
        value: i128,
        /// The largest exponent allowed.
        max: u32,
        /// The largest alignment allowed, in bytes (`1 << max`).
        max_align: u64,
    },
    /// `.space` or `.skip` given a negative or too large size.
    #[error("`{directive}` size {value} is not in 0..{max}")]
    BadSize {
        /// `.space` or `.skip`.
        directive: &'static str,
        /// The size given, in bytes.
        value: i128,
        /// The largest size allowed, in bytes (inclusive).
        max: u64,
    },
    /// `.section` names a section that maps to neither `.text` nor `.data`
    /// (docs/assembly.md).
    #[error("unknown section `{found}`; expected .text, .data, .rodata or .bss (or a `.name.suffix` of one), or a name with flags like \"ax\" or \"a\"")]
    UnknownSection {
        /// The section name as written.
        found: String,
    },
    /// A PC-relative operand refers to a symbol of another section (only an address
    /// operand in `.text` may name a `.data` label).
    #[error("the `{what}` operand cannot refer to `{name}` in section {section}: a PC-relative offset needs a label in the same section (or, for an address, in .data), or a constant")]
    CrossSection {
        /// The operand's syntax kind (docs/isa-reference.md, "Syntax kinds").
        what: &'static str,
        /// The operand as written.
        name: String,
        /// The section the symbol is in.
        section: crate::Section,
    },
    /// A source line longer than [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES).
    #[error("line is {len} bytes long; the limit is {limit} bytes (MAX_LINE_BYTES)")]
    LineTooLong {
        /// The line's length in bytes.
        len: usize,
        /// [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES).
        limit: usize,
    },
    /// A source larger than [`MAX_SOURCE_BYTES`](crate::MAX_SOURCE_BYTES); nothing is
    /// assembled.
    #[error("source is {len} bytes; the limit is {limit} bytes (MAX_SOURCE_BYTES, 256 MiB)")]
    SourceTooLarge {
        /// The source's size in bytes.
        len: usize,
        /// [`MAX_SOURCE_BYTES`](crate::MAX_SOURCE_BYTES).
        limit: usize,
    },
    /// A floating-point literal too large for its format: it would round to infinity.
    #[error("floating-point literal `{text}` is out of range for fp{bits} (it would be infinite)")]
    FloatOverflow {
        /// The literal as written.
        text: String,
        /// The format's width: 32 (an fp32 immediate, a `.word` value) or 64 (a `.dword`
        /// value).
        bits: u32,
    },
    /// Source bytes that are not UTF-8 ([`assemble_bytes`](crate::assemble_bytes)).
    #[error("invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 {
        /// Byte offset of the first invalid byte in the source.
        offset: usize,
    },
    /// A source with no statements: empty, or only blanks and comments.
    #[error("empty source: no statements to assemble")]
    Empty,
    /// A section that would outgrow the assembler's limit (256 MiB), typically through
    /// repeating or filling directives.
    #[error("section {section} would grow past {limit} bytes")]
    SectionTooLarge {
        /// The section concerned.
        section: crate::Section,
        /// The largest section, in bytes.
        limit: u64,
    },
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
    /// What went wrong; its `Display` text is the message.
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
    /// The file the text warned about is in: the assembled file, or one it includes.
    pub file: String,
    /// 1-based line number in `file`.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// What is doubtful or ignored: the text after `warning: `.
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
    /// The name of the assembled file, as given to [`assemble`](fn@crate::assemble).
    pub file: String,
    /// The diagnostics kept, at most [`MAX_ERRORS`], in source order.
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
    /// How many diagnostics there were: those kept and those dropped.
    pub fn len(&self) -> usize {
        self.errors.len() + self.dropped
    }

    /// Whether there were no diagnostics at all (neither kept nor dropped).
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
