//! The warpkit functional model (part 1): warps of 32 lanes executing the group-1
//! instructions of seed 002 and the provisional system and CSR instructions, with EXEC, the
//! CSRs of seed 001 §3.3, traps, a commit trace and state dumps.
//!
//! Flow: [`Program::new`] pre-decodes the code once; a [`Workgroup`] (or a lone [`Warp`])
//! runs it against an [`Env`] (memory and asynchronous operations; [`NoMemory`] for now),
//! counting committed instructions in a [`Core`], tracing through a [`Tracer`] chosen at
//! compile time ([`NoTrace`] costs nothing).

mod asyncq;
pub mod csr;
mod dump;
mod env;
pub mod launch;
mod mem_exec;
pub mod memory;
mod program;
mod trace;
pub mod trap;
mod warp;
mod workgroup;

pub use asyncq::{AsyncQueue, Hazard, HazardKind, PendingOp, Writeback, NUM_COUNTERS};
pub use csr::{CsrFile, CsrWrite};
pub use dump::{dump_state_json, dump_states_json};
pub use env::{Core, Env, Fault, NoMemory};
pub use mem_exec::MemEnv;
pub use program::{resolve, Code, Inst, Program, RegUse};
pub use trace::{
    Commit, NoTrace, TraceFormat, Tracer, VecTracer, WriteTracer, Written, TRACE_SCHEMA_VERSION,
};
pub use trap::Trap;
pub use warp::{VRegs, Warp, WarpId, WarpStatus, LANES, NUM_UREGS, NUM_VREGS};
pub use workgroup::{RunSummary, Workgroup};

/// The default per-warp step limit of `warpkit run`.
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;
