//! Optimisations on the structured SSA IR ([`crate::ir`]).
//!
//! Each pass is a module; [`run_pass`] runs one on a kernel, [`optimize`] runs a level's
//! pipeline on every kernel of a module and then [`compact`]s it (drops what the passes
//! detached and renumbers values, operations and regions densely in program order). Every pass keeps the IR valid
//! ([`crate::ir::verify`]); in debug builds (and tests) the IR is verified after each pass
//! and a pass that breaks it panics, naming itself. Every pass preserves the interpreter's
//! results ([`crate::ir::interp`]) for programs without undefined behaviour.
//!
//! # Passes
//!
//! - [`Pass::Fold`] (`fold.rs`): constant folding, algebraic identities, 64→32-bit
//!   narrowing of index arithmetic, `If`s with constant conditions, loops that run once.
//! - [`Pass::Dce`] (`dce.rs`): removes what computes nothing that is stored or otherwise
//!   observed, including whole `If`s/`Loop`s and their unused results.
//! - [`Pass::Cse`] (`cse.rs`): reuses identical pure operations across the region tree and
//!   identical loads within a region with no write in between.
//! - [`Pass::Licm`] (`licm.rs`): moves invariant operations of loop bodies before the loop.
//! - [`Pass::IfConvert`] (`ifconv.rs`): small effect-free `If`s become `Select`s.
//! - [`Pass::Unroll`] (`unroll.rs`): fully unrolls loops with a small constant trip count.
//! - [`Pass::Sroa`] (`sroa.rs`): private objects accessed only at constant offsets become
//!   SSA values.
//!
//! # Levels
//!
//! - [`OptLevel::O0`] runs nothing: the IR the front end produced is correct as it is, and
//!   the back end needs no pass.
//! - [`OptLevel::O1`] runs the cheap cleanups, each once, linear in the size of the
//!   kernel: fold (removes what the front end's straightforward lowering leaves: constant
//!   guards, `x+0`, `trunc(zext x)`), DCE (what folding made unused), CSE (repeated index
//!   and address computations), DCE (what CSE made unused).
//! - [`OptLevel::O2`] runs everything, in three rounds:
//!   1. fold, DCE, SROA, fold, CSE, DCE — clean up, then promote private objects that are
//!      already accessed at constant offsets, and clean up what promotion exposes;
//!   2. unroll, fold, SROA, fold, CSE — unrolling constant-trip loops makes their
//!      induction variables constants, which folding propagates into offsets, so that
//!      private arrays indexed by those loops become registers in the second SROA;
//!   3. LICM, if-conversion, fold, CSE, LICM, DCE, fold, CSE, DCE — hoisting runs on
//!      the final loop structure (after unrolling, so the copies' invariants leave outer
//!      loops too), if-conversion on the final `If`s (the selects it makes fold further:
//!      `c ? true : x` is `c | x`), hoisting again what if-conversion and folding moved
//!      to loop bodies' top level, and a last cleanup twice, because each of fold and CSE
//!      exposes work for the other.

mod compact;
mod cse;
mod dce;
mod fold;
mod ifconv;
mod licm;
mod sroa;
mod unroll;
mod util;

pub use compact::compact;

use crate::ir::{Function, Module};

/// How much to optimise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum OptLevel {
    /// Nothing.
    O0,
    /// Cheap cleanups.
    O1,
    /// Everything.
    #[default]
    O2,
}

/// One pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Constant folding and algebraic simplification.
    Fold,
    /// Dead code elimination.
    Dce,
    /// Common subexpression elimination.
    Cse,
    /// Loop-invariant code motion.
    Licm,
    /// If-conversion to selects.
    IfConvert,
    /// Full unrolling of constant-trip loops.
    Unroll,
    /// Scalar replacement of private objects.
    Sroa,
}

impl Pass {
    /// Every pass.
    pub const ALL: [Pass; 7] = [
        Pass::Fold,
        Pass::Dce,
        Pass::Cse,
        Pass::Licm,
        Pass::IfConvert,
        Pass::Unroll,
        Pass::Sroa,
    ];

    /// The pass's name, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Pass::Fold => "fold",
            Pass::Dce => "dce",
            Pass::Cse => "cse",
            Pass::Licm => "licm",
            Pass::IfConvert => "if-convert",
            Pass::Unroll => "unroll",
            Pass::Sroa => "sroa",
        }
    }
}

/// The passes a level runs, in order.
pub fn pipeline(level: OptLevel) -> &'static [Pass] {
    use Pass::*;
    match level {
        OptLevel::O0 => &[],
        OptLevel::O1 => &[Fold, Dce, Cse, Dce],
        OptLevel::O2 => &[
            Fold, Dce, Sroa, Fold, Cse, Dce, //
            Unroll, Fold, Sroa, Fold, Cse, //
            Licm, IfConvert, Fold, Cse, Licm, Dce, Fold, Cse, Dce,
        ],
    }
}

/// Optimise every kernel of `module` at `level`. The module must verify.
pub fn optimize(module: &mut Module, level: OptLevel) {
    for func in &mut module.kernels {
        optimize_function(func, level);
    }
}

/// Optimise one kernel at `level`. It must verify. Unless the level is `O0`, the kernel is
/// then [`compact`]ed.
pub fn optimize_function(func: &mut Function, level: OptLevel) {
    for &pass in pipeline(level) {
        run_pass(func, pass);
    }
    if level != OptLevel::O0 {
        compact(func);
    }
}

/// Run one pass on a kernel (which must verify); whether it changed anything.
pub fn run_pass(func: &mut Function, pass: Pass) -> bool {
    let changed = match pass {
        Pass::Fold => fold::run(func),
        Pass::Dce => dce::run(func),
        Pass::Cse => cse::run(func),
        Pass::Licm => licm::run(func),
        Pass::IfConvert => ifconv::run(func),
        Pass::Unroll => unroll::run(func),
        Pass::Sroa => sroa::run(func),
    };
    if cfg!(debug_assertions) {
        if let Err(e) = crate::ir::verify::verify(func) {
            panic!(
                "the IR after pass {} does not verify: {e}\n{func}",
                pass.name()
            );
        }
    }
    changed
}
