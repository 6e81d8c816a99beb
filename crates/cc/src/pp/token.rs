//! Preprocessing tokens.

use crate::source::{ExpnId, Span};
use crate::token::Punct;
use std::rc::Rc;

/// The kind of a preprocessing token (C99 §6.4) while it is being preprocessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PpKind {
    Ident,
    Number,
    Char,
    Str,
    Punct(Punct),
    /// A character that is no other token (`@`, `` ` ``, a NUL, non-ASCII): legal while
    /// preprocessing, an error if it reaches the parser.
    Stray,
    /// A token whose error was already reported (an unterminated literal); dropped.
    Invalid,
    /// The empty operand of `##` (C99 §6.10.3.3p2); never leaves the expander.
    Placemarker,
    /// The end of one file; never leaves the preprocessor.
    FileEnd,
    /// The end of everything.
    Eof,
}

/// A preprocessing token.
#[derive(Debug, Clone)]
pub(crate) struct PpToken {
    pub kind: PpKind,
    /// The spelling, splices removed (digraphs as written).
    pub text: Rc<str>,
    pub span: Span,
    pub expansion: Option<ExpnId>,
    /// Whitespace came before it (what `#` turns into one space).
    pub space: bool,
    /// It is the first token of a line (what makes `#` a directive).
    pub line_start: bool,
    /// "Painted blue" (C99 §6.10.3.4p2): the name of a macro met while that macro was being
    /// expanded, never to be expanded again.
    pub no_expand: bool,
}

impl PpToken {
    pub(crate) fn is(&self, p: Punct) -> bool {
        self.kind == PpKind::Punct(p)
    }

    /// A token made by the preprocessor (a result of `defined`, `__LINE__`, `#`, `##`).
    pub(crate) fn synthesized(kind: PpKind, text: impl Into<Rc<str>>, span: Span) -> PpToken {
        PpToken {
            kind,
            text: text.into(),
            span,
            expansion: None,
            space: false,
            line_start: false,
            no_expand: false,
        }
    }
}
