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

//!
//! Layers, lowest first (each imports only those before it; `tests/it/layers.rs` checks it,
//! `docs/architecture.md` draws it): [`control`] and [`tier`] (run control, engine
//! choices); `state` (registers, CSRs, traps, the asynchronous queue, [`Warp`]);
//! `program` (pre-decode); [`memory`]; `env` (the [`Env`] boundary); [`hooks`]; `exec`
//! (semantics, one module per family); `engine` (the interpreter and the translation
//! tier); `workgroup`; `observe` (trace, dumps, trace comparison); [`launch`].

pub mod control;
mod engine;
mod env;
mod exec;
pub mod hooks;
pub mod launch;
pub mod memory;
mod observe;
mod program;
mod state;
pub mod tier;
mod workgroup;

// Module paths other crates use.
pub use engine::jit;
pub use exec::sfu;
pub use observe::{cosim, trace_diff};
pub use state::{csr, trap};

pub use control::{CancelFlag, Interrupt};
pub use csr::{CsrFile, CsrWrite};
pub use env::{Env, NoMemory};
pub use exec::mem::{memory_addresses, MemEnv};
pub use hooks::{Control, Event, Hooks, NoHooks};
pub use observe::dump::{dump_state_json, dump_states_json, dump_states_json_at, status_name};
pub use observe::trace::{
    Commit, TraceFormat, VecTracer, WriteTracer, Written, TRACE_SCHEMA_VERSION,
};
pub use program::{resolve, Code, Inst, Program, RegUse};
pub use state::{
    AsyncQueue, Core, Fault, Hazard, HazardKind, PendingOp, Row, Trap, URegs, VRegs, Warp, WarpId,
    WarpStatus, Writeback, LANES, NUM_COUNTERS, NUM_UREGS, NUM_VREGS,
};
pub use tier::{Engine, MemoryFallbacks, TranslationStats, UnknownEngine, VectorIsa};
pub use workgroup::{Deadlock, RoundRobin, RunSummary, RunToStop, Scheduler, Workgroup};

/// The default per-warp step limit of `warpkit run`.
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;
