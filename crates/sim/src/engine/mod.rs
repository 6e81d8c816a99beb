//! The engines that run a warp through a pre-decoded program: the interpreter (the
//! reference) and the translation tier, both behind [`Executor`]. The run loop
//! (`interp.rs`) asks the translation tier first wherever it may run, and the interpreter
//! for the rest; both end what they retire with the one epilogue `Warp::retire`.

mod interp;

pub(crate) use interp::Limits;
pub mod jit;

use crate::env::Env;
use crate::program::Program;
use crate::state::{Core, Warp};

/// What an engine did when asked to run a warp from its PC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ran {
    /// It ran `steps` instructions; the warp is still running, at `next`.
    Next { next: u32, steps: u64 },
    /// It ran one instruction, which stopped the warp (end, trap, barrier).
    Stopped,
    /// It runs nothing at this PC (nothing was executed): another engine must.
    Declined,
}

/// An engine: executes a warp's instructions from `pc` (the warp's PC), at most `budget`
/// of them, updating the warp's PC and counts as the interpreter would.
pub(crate) trait Executor {
    fn run_from<E: Env>(
        &self,
        warp: &mut Warp,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        pc: u32,
        budget: u64,
    ) -> Ran;
}

/// The interpreter: one pre-decoded instruction at a time, every instruction.
pub(crate) struct Interpreter;

impl Executor for Interpreter {
    #[inline(always)]
    fn run_from<E: Env>(
        &self,
        warp: &mut Warp,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        pc: u32,
        _budget: u64,
    ) -> Ran {
        match warp.step_at(pc, prog, core, env) {
            Some(next) => Ran::Next { next, steps: 1 },
            None => Ran::Stopped,
        }
    }
}
