//! Diagnostics as clang prints them: `k.cl:LINE:COL: error: message`, the source line and a
//! caret under the offending text, then notes. The compiler collects every error of a file
//! before it gives up, so one run shows them all.

use crate::source::{ExpnId, SourceMap, Span};
use std::fmt::Write;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Information attached to another diagnostic.
    Note,
    /// Compilation goes on and succeeds.
    Warning,
    /// Compilation fails.
    Error,
}

impl Severity {
    fn label(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One message about the source.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// The message, without location or severity (`use of undeclared identifier 'x'`).
    /// Constructs the compiler does not implement start with `unsupported: `.
    pub message: String,
    /// Where it applies (the spelling of the token or construct); `None` for a message
    /// about the whole compilation.
    pub span: Option<Span>,
    /// The macro expansion the offending tokens came from, if any: the message is then
    /// located at the outermost invocation, with a note per expansion.
    pub expansion: Option<ExpnId>,
    /// Further notes (`previous definition is here`), each with an optional location.
    pub notes: Vec<(String, Option<Span>)>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span: Some(span),
            expansion: None,
            notes: Vec::new(),
        }
    }

    /// An error for a construct the compiler does not implement: the message reads
    /// `unsupported: WHAT`.
    pub fn unsupported(span: Span, what: impl std::fmt::Display) -> Diagnostic {
        Diagnostic::error(span, format!("unsupported: {what}"))
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    /// The same diagnostic, noted as coming from macro expansion `expansion`.
    pub fn in_expansion(mut self, expansion: Option<ExpnId>) -> Diagnostic {
        self.expansion = expansion;
        self
    }

    /// The same diagnostic with a note.
    pub fn with_note(mut self, message: impl Into<String>, span: Option<Span>) -> Diagnostic {
        self.notes.push((message.into(), span));
        self
    }

    /// Where the message is printed: the outermost macro invocation for a message from an
    /// expansion (the user's line), else its own span; `None` for a message about the whole
    /// compilation.
    pub fn location(&self, sources: &SourceMap) -> Option<crate::source::Loc> {
        sources.loc(self.primary_span(sources)?)
    }

    fn primary_span(&self, sources: &SourceMap) -> Option<Span> {
        let mut outermost = None;
        let mut e = self.expansion;
        while let Some(id) = e {
            let expansion = sources.expansion(id);
            outermost = Some(expansion.call_site);
            e = expansion.parent;
        }
        outermost.or(self.span)
    }
}

/// The diagnostics of one compilation, in the order they were found.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    /// Every diagnostic.
    pub list: Vec<Diagnostic>,
}

/// Errors beyond this many are counted, not kept (one broken construct can cascade).
pub const MAX_ERRORS: usize = 1000;

impl Diagnostics {
    /// No diagnostics.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Add one.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        if diagnostic.severity == Severity::Error && self.error_count() >= MAX_ERRORS {
            return;
        }
        self.list.push(diagnostic);
    }

    /// Add every diagnostic of `other`.
    pub fn extend(&mut self, other: Diagnostics) {
        for d in other.list {
            self.push(d);
        }
    }

    /// The number of errors.
    pub fn error_count(&self) -> usize {
        self.list
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.list.iter().any(|d| d.severity == Severity::Error)
    }

    /// Whether there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Every diagnostic as clang prints it, then a summary line (`2 errors generated.`) when
    /// there are errors or warnings.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        for d in &self.list {
            render_one(&mut out, d, sources);
        }
        let errors = self.error_count();
        let warnings = self
            .list
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        match (warnings, errors) {
            (0, 0) => {}
            (w, 0) => writeln!(out, "{} generated.", plural(w, "warning")).unwrap(),
            (0, e) => writeln!(out, "{} generated.", plural(e, "error")).unwrap(),
            (w, e) => writeln!(
                out,
                "{} and {} generated.",
                plural(w, "warning"),
                plural(e, "error")
            )
            .unwrap(),
        }
        out
    }
}

fn render_one(out: &mut String, d: &Diagnostic, sources: &SourceMap) {
    // Inside macro expansions the message is located at the outermost invocation (the
    // user's line), then, as clang does, one note per expansion from the outermost in,
    // each pointing at where the next one happens inside that macro's definition, the last
    // at the offending token itself.
    let mut chain = Vec::new();
    let mut e = d.expansion;
    while let Some(id) = e {
        let expansion = sources.expansion(id);
        chain.push(expansion);
        e = expansion.parent;
    }
    let primary = chain.last().map(|x| x.call_site).or(d.span);
    located(out, d.severity, &d.message, primary, sources);
    for (i, expansion) in chain.iter().enumerate().rev() {
        let at = if i == 0 {
            d.span.filter(|s| !sources.file(s.file).builtin)
        } else {
            Some(chain[i - 1].call_site)
        };
        located(
            out,
            Severity::Note,
            &format!("expanded from macro '{}'", expansion.name),
            at.or(expansion.definition),
            sources,
        );
    }
    for (message, span) in &d.notes {
        located(out, Severity::Note, message, *span, sources);
    }
}

fn located(
    out: &mut String,
    severity: Severity,
    message: &str,
    span: Option<Span>,
    sources: &SourceMap,
) {
    let Some(span) = span.filter(|s| !s.is_dummy()) else {
        writeln!(out, "warpkit-cc: {}: {message}", severity.label()).unwrap();
        return;
    };
    let file = sources.file(span.file);
    let (line, col) = file.line_col(span.lo);
    writeln!(
        out,
        "{}:{line}:{col}: {}: {message}",
        file.name,
        severity.label()
    )
    .unwrap();
    let text = file.line_text(line);
    let (end_line, end_col) = file.line_col(span.hi.max(span.lo));
    let width = if end_line == line && end_col > col {
        (end_col - col) as usize
    } else {
        1
    };
    let gutter = line.to_string().len().max(5);
    writeln!(out, "{line:>gutter$} | {text}").unwrap();
    let pad: String = text
        .chars()
        .take(col as usize - 1)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    writeln!(
        out,
        "{:>gutter$} | {pad}^{}",
        "",
        "~".repeat(width.saturating_sub(1))
    )
    .unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_clang() {
        let mut sources = SourceMap::new();
        let f = sources.add_file("k.cl", "int main() {\n    x = 3;\n}\n", false);
        let mut d = Diagnostics::new();
        d.push(Diagnostic::error(
            Span::new(f, 17, 18),
            "use of undeclared identifier 'x'",
        ));
        assert_eq!(
            d.render(&sources),
            "k.cl:2:5: error: use of undeclared identifier 'x'\n    2 |     x = 3;\n      |     ^\n1 error generated.\n"
        );
    }
}
