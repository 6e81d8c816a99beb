//! The program text (SPEC §1) and every static rule of the typing and instruction sections
//! (§3, §4): source text in, a resolved [`Program`] or every diagnostic out.
//!
//! The layers only look downwards: [`check`](check::check) runs the static rules over what
//! `parse` read from the lines, `parse` reads operands through `lex`, and all three build
//! the types of `program`, which is what the model runs.

mod check;
mod lex;
mod parse;
mod program;

pub use check::check;
pub(crate) use program::{mask, Dest, Insn, Offset, Read, Src};
pub use program::{FloatKind, Program};
