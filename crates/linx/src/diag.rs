//! Static diagnostics: each has a code (`E-WMIX`, `W-UNTYPED`, ...), a location and a
//! message; [`Diagnostics::render`] prints them as `file:line:col: error[E-CODE]: message`
//! with the source line and a caret, through the assembler's renderer. [`Sink`] collects
//! them while a file is read, locating each byte span as a line and column.

use std::fmt;
use std::ops::Range;

/// Whether a diagnostic rejects the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// An `E-...` code: [`check`](crate::check) returns no program (exit 2, SPEC §6).
    Error,
    /// A `W-...` code, such as W-UNTYPED (SPEC §3 rule 7): the program is still valid.
    Warning,
}

/// One located diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {}[{code}]: {message}", match .severity { Severity::Error => "error", Severity::Warning => "warning" })]
pub struct Diagnostic {
    /// The file name given to [`check`](crate::check).
    pub file: String,
    /// Error or warning; agrees with the code's `E-`/`W-` prefix.
    pub severity: Severity,
    /// `E-...` or `W-...`.
    pub code: &'static str,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// Byte range in the source.
    pub span: Range<usize>,
    /// What is wrong, in one line, without the location or code (the `Display` form adds
    /// them).
    pub message: String,
}

/// Every diagnostic of one file, in source order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnostics {
    /// The file name given to [`check`](crate::check).
    pub file: String,
    /// Errors and warnings sorted by source position; at most 10 000 are kept.
    pub items: Vec<Diagnostic>,
}

/// At most this many diagnostics are kept for one file.
pub const MAX_DIAGNOSTICS: usize = 10_000;

impl std::error::Error for Diagnostics {}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.items {
            writeln!(f, "{d}")?;
        }
        writeln!(f, "{} error(s) in {}", self.error_count(), self.file)
    }
}

impl Diagnostics {
    /// How many of the items are errors (warnings not counted).
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Whether any item is an error, i.e. the file is rejected.
    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }

    /// The codes, in order (handy in tests).
    pub fn codes(&self) -> Vec<&'static str> {
        self.items.iter().map(|d| d.code).collect()
    }

    /// Compiler-style text with the source line and a caret under each diagnostic.
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&d.to_string());
            out.push('\n');
            warpkit_asm::render_excerpt(source, d.line, d.span.clone(), &mut out);
        }
        let errors = self.error_count();
        if errors > 0 {
            out.push_str(&format!(
                "{errors} error{} in {}\n",
                if errors == 1 { "" } else { "s" },
                self.file
            ));
        }
        out
    }
}

/// Collects the diagnostics of one file while it is read and checked.
pub(crate) struct Sink<'a> {
    file: String,
    src: &'a str,
    line_starts: Vec<usize>,
    diags: Vec<Diagnostic>,
}

impl<'a> Sink<'a> {
    pub(crate) fn new(file: &str, src: &'a str) -> Sink<'a> {
        Sink {
            file: file.to_string(),
            src,
            line_starts: std::iter::once(0)
                .chain(src.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
            diags: Vec::new(),
        }
    }

    /// The 1-based line and column (in characters) of byte `at`.
    pub(crate) fn locate(&self, at: usize) -> (usize, usize) {
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

    pub(crate) fn err(&mut self, code: &'static str, span: Range<usize>, msg: impl Into<String>) {
        self.push(Severity::Error, code, span, msg.into());
    }

    pub(crate) fn warn(&mut self, code: &'static str, span: Range<usize>, msg: impl Into<String>) {
        self.push(Severity::Warning, code, span, msg.into());
    }

    /// Every diagnostic, in source order.
    pub(crate) fn finish(self) -> Diagnostics {
        let mut items = self.diags;
        items.sort_by_key(|d| (d.span.start, d.line, d.column));
        Diagnostics {
            file: self.file,
            items,
        }
    }
}
