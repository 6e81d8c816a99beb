//! The host side of a warpkit launch, as one library for every front end (the `warpkit`
//! CLI, the Python package, the C API): nothing here prints or exits.
//!
//! - [`kernel`]: read a kernel from assembly source, an ELF code object or raw bytes;
//! - [`args`]: kernel arguments in the `NAME=VALUE` text form (`--arg`) and the memory
//!   budget every buffer is charged to before it is allocated;
//! - [`launch`]: the [`Launch`] builder (grid, block, shared and scratch memory, arguments
//!   in slot order, entry symbol, limits) that checks everything before running the model;
//! - [`launch_file`]: the provisional `.launch`/`.launch_arg` directives, a launch
//!   written in the program's source;
//! - [`number`]: the number syntax of every numeric option and argument;
//! - [`params`]: kernel metadata applied to a launch: which kernel, and each argument
//!   checked against its parameter;
//! - [`report`]: the one-line descriptions of traps and deadlocks the front ends show;
//! - [`spec`]: the ISA database as JSON;
//! - [`stepper`]: a launch run instruction by instruction ([`Stepper`]), for the Python
//!   `Simulator`, the C co-simulation API and `warpkit debug`.

pub mod args;
pub mod kernel;
pub mod launch;
pub mod launch_file;
pub mod number;
pub mod params;
pub mod report;
pub mod spec;
pub mod stepper;

pub use args::{parse_arg, ArgError, MemoryBudget, MemoryError};
pub use kernel::{
    compile_opencl, load_kernel, load_kernel_bytes, load_kernel_bytes_with, load_kernel_with,
    read_kernel_file, CompileDiagnostic, KernelKind, LoadError,
};
pub use launch::{Launch, Limits, Prepared, SetupError};
pub use params::{select_kernel, ParamError, ParamValue};
pub use stepper::{StateError, StepState, Stepper, StopReason};
pub use warpkit_sim::launch::{
    Arg, ArgValue, BufferOut, DeadlockReport, LaunchConfig, LaunchResult, LaunchStats, LimitReport,
    TrapReport, WordBuffer,
};
