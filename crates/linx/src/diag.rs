//! Static diagnostics: each has a code (`E-WMIX`, `W-UNTYPED`, ...), a location and a
//! message; [`Diagnostics::render`] prints them as `file:line:col: error[E-CODE]: message`
//! with the source line and a caret, through the assembler's renderer.

use std::fmt;
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One located diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {}[{code}]: {message}", match .severity { Severity::Error => "error", Severity::Warning => "warning" })]
pub struct Diagnostic {
    pub file: String,
    pub severity: Severity,
    /// `E-...` or `W-...`.
    pub code: &'static str,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// Byte range in the source.
    pub span: Range<usize>,
    pub message: String,
}

/// Every diagnostic of one file, in source order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnostics {
    pub file: String,
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
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

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
