//! The warpkit functional model: warps of 32 lanes executing the group-1 instructions of
//! seed 002 and the provisional system, CSR and memory instructions, with EXEC, the CSRs of
//! seed 001 §3.3, traps, the asynchronous operations and counters of §2.6 with hazard
//! reports, a commit trace, state dumps, and grid launches as docs/abi.md defines them.
//!
//! Flow: [`Program::new`] pre-decodes the code once. [`launch::launch`] maps memory, builds
//! every workgroup ([`Workgroup`], whose warps are interleaved on one host thread) and runs
//! the workgroups in parallel. Underneath, [`Warp::run`] interprets the pre-decoded program
//! against an [`Env`] (memory: [`MemEnv`]; none: [`NoMemory`]), counting committed
//! instructions in a [`Core`], observed and controlled by [`Hooks`] chosen at compile time
//! ([`NoHooks`] costs nothing; the commit trace, breakpoints and watchpoints are hooks).

mod asyncq;
pub mod control;
pub mod csr;
mod dump;
mod env;
mod fp;
mod fp_fpu;
pub mod hooks;
pub mod jit;
pub mod launch;
mod mem_exec;
pub mod memory;
mod program;
mod regs;
pub mod sfu;
mod trace;
pub mod trace_diff;
pub mod trap;
mod warp;
mod workgroup;

pub use asyncq::{AsyncQueue, Hazard, HazardKind, PendingOp, Writeback, NUM_COUNTERS};
pub use control::{CancelFlag, Interrupt};
pub use csr::{CsrFile, CsrWrite};
pub use dump::{dump_state_json, dump_states_json, dump_states_json_at, status_name};
pub use env::{Core, Env, Fault, NoMemory};
pub use hooks::{Control, Hooks, NoHooks};
pub use jit::{Engine, TranslationStats, UnknownEngine, VectorIsa};
pub use mem_exec::MemEnv;
pub use program::{resolve, Code, Inst, Program, RegUse};
pub use regs::{Row, URegs, VRegs, LANES, NUM_UREGS, NUM_VREGS};
pub use trace::{Commit, TraceFormat, VecTracer, WriteTracer, Written, TRACE_SCHEMA_VERSION};
pub use trap::Trap;
pub use warp::{Warp, WarpId, WarpStatus};
pub use workgroup::{Deadlock, RunSummary, Workgroup};

/// The default per-warp step limit of `warpkit run`.
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;
