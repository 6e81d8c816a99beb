//! Failures located within one line, which the assembler turns into diagnostics once it
//! knows the line. The passes and the operand parser all produce them, so they sit below
//! each of those.

use crate::error::ErrorKind;
use crate::expr::ExprError;

/// A located failure inside one line.
pub(super) struct LineErr {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: Box<ErrorKind>,
    /// Already reported elsewhere (a poisoned symbol): stay silent.
    pub(super) silent: bool,
    /// Refers to a symbol that may be defined further down: retry after pass 1.
    pub(super) forward: bool,
    /// The text looks like two operands with the `,` between them missing.
    pub(super) split: bool,
}

impl From<ExprError> for LineErr {
    fn from(e: ExprError) -> LineErr {
        LineErr {
            start: e.start,
            end: e.end,
            forward: e.pending
                || matches!(
                    *e.kind,
                    ErrorKind::UndefinedSymbol { .. }
                        | ErrorKind::NoLocalLabel { forward: true, .. }
                ),
            split: false,
            kind: e.kind,
            silent: e.pending,
        }
    }
}

pub(super) fn lerr(start: usize, end: usize, kind: ErrorKind) -> LineErr {
    LineErr {
        start,
        end,
        kind: Box::new(kind),
        silent: false,
        forward: false,
        split: false,
    }
}
