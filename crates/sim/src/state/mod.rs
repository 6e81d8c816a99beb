//! The machine state: a warp's register files, EXEC, PC, CSRs and pending asynchronous
//! operations, as plain data with accessors. The lowest layer of the model: it knows
//! nothing of programs, memory or engines, and every write an instruction makes goes
//! through an accessor that marks it (`regs`, `csr`), so that every observer sees it.

pub mod access;
pub mod csr;
pub mod queue;
pub mod regs;
pub mod trap;
pub mod warp;

pub use queue::{AsyncQueue, Hazard, HazardKind, PendingOp, Writeback, NUM_COUNTERS};
pub use regs::{Row, URegs, VRegs, LANES, NUM_UREGS, NUM_VREGS};
pub use trap::{Fault, Trap};
pub use warp::{Core, Warp, WarpId, WarpStatus};
