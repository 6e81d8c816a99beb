//! The extension point between a warp and the rest of the machine: memory and the
//! asynchronous operations of §2.6.

use crate::memory::DirectMemory;
use crate::program::{Inst, Program};
use crate::state::{Fault, Warp};

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
    fn direct(&mut self) -> Option<DirectMemory<'_>> {
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
            cause: crate::state::trap::CAUSE_UNSUPPORTED,
            info: prog.encoding(pc).0 as u32,
        })
    }
}
