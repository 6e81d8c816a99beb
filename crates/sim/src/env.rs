//! The extension point between a warp and the rest of the machine: memory, the asynchronous
//! operations of §2.6, and what a warp sees of the core that runs it.

use crate::program::{Inst, Program};
use crate::warp::Warp;

/// What the core running a set of warps counts: `time`/`timeh` read `committed`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Core {
    /// Instructions committed by every warp simulated on this core (one host thread).
    pub committed: u64,
}

/// A failed environment operation: the trap the warp must take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub cause: u32,
    pub info: u32,
}

/// The machine around a warp. The interpreter hands it every instruction with an
/// asynchronous latency (memory, cache control); it performs the access and queues the
/// write-back on the warp with [`Warp::issue`], to be applied when the operation retires.
pub trait Env {
    /// Issue the asynchronous instruction `inst` at `pc`. The warp's PC has not moved yet.
    /// `prog.instr(pc)` gives the fields `Inst` does not resolve (cpol, waitcnt fields).
    fn issue_async(
        &mut self,
        warp: &mut Warp,
        prog: &Program,
        inst: &Inst,
        pc: u32,
    ) -> Result<(), Fault>;

    /// The memory translated code may access directly, if any; without it translated
    /// code leaves its block at every memory access, for `issue_async`.
    #[inline(always)]
    fn direct(&mut self) -> Option<crate::jit::DirectMemory<'_>> {
        None
    }
}

/// An environment with no memory attached: every asynchronous instruction raises the
/// provisional cause 3 (unsupported), and nothing is ever pending.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoMemory;

impl Env for NoMemory {
    fn issue_async(
        &mut self,
        _warp: &mut Warp,
        prog: &Program,
        _inst: &Inst,
        pc: u32,
    ) -> Result<(), Fault> {
        Err(Fault {
            cause: crate::trap::CAUSE_UNSUPPORTED,
            info: prog.encoding(pc).0 as u32,
        })
    }
}
