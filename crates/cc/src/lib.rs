//! `warpkit-cc`: an OpenCL C 1.2 compiler for the warpkit GPU ISA.
//!
//! The pipeline, one module each:
//!
//! 1. [`pp`]: the preprocessor (`#define`, `#if`, `#include "..."`, `-D`, `-I`) turns the
//!    source into [`token::Token`]s that remember where they were spelled and which macro
//!    expansions produced them ([`source::SourceMap`]).
//! 2. [`parse`]: a recursive-descent parser builds the syntax tree ([`ast`]).
//! 3. [`lower`]: the semantic pass types the tree (C99's conversions, OpenCL's address
//!    spaces and built-ins), inlines helper functions, turns `break`/`continue`/`return`
//!    into flags, and produces structured SSA ([`ir`]).
//! 4. [`opt`]: optimisations on the IR.
//! 5. [`backend`]: uniformity analysis, EXEC lowering of divergent control flow,
//!    instruction selection from the ISA database's tables, register allocation with
//!    `regalloc2`, `waitcnt` insertion, and assembly text with `.loc` source lines and
//!    kernel metadata, which `warpkit-asm` assembles.
//!
//! Errors are [`diag::Diagnostics`], rendered as clang renders them.

pub mod ast;
pub mod diag;
pub mod ir;
pub mod lower;
pub mod opt;
pub mod parse;
pub mod pp;
pub mod source;
pub mod token;
