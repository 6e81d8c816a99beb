//! Functional coverage (docs/coverage.md).
//!
//! A [`Model`] is a list of coverpoints, each watching instructions, CSRs or traps, with
//! named bins: every instruction executed; per operand the value classes (zero, one,
//! all-ones, sign boundaries, field min/max, other; floating-point classes by sign for the
//! floating-point instructions); per vector instruction its EXEC class; per conditional
//! branch taken / not taken and, where it decides per lane, uniform / divergent; per
//! asynchronous instruction a read of its result before the wait and an issue at its
//! counter's in-flight limit; floating-point flags per floating-point instruction; CSR
//! reads and writes; trap causes. [`Model::generate`] derives it from the ISA database;
//! users edit its YAML ([`Model::to_yaml`], [`Model::parse`]).
//!
//! The measurement turns every executed instruction into a [`Step`] — in-process through
//! [`CoverHooks`] (the simulator's `Hooks`), or from a commit trace file
//! ([`measure_trace`]) — and a [`Tracker`] counts the bins; both paths see the same steps,
//! so they measure the same [`Coverage`]. Coverages combine with [`Coverage::merge`].

mod classes;
mod coverage;
mod measure;
mod model;
mod operands;
pub mod report;
mod run;
mod trace;

pub use classes::{
    float_class, register_class, BranchClass, ExecClass, FloatFormat, FloatKind, ValueClass,
    FLAG_NAMES, TRAP_CAUSES,
};
pub use coverage::{
    first_of, natural_cmp, BinStat, Coverage, DatabaseError, DATABASE_SCHEMA, DATABASE_VERSION,
};
pub use measure::{RegWrite, Step, Tracker};
pub use model::{
    BinInfo, Category, Coverpoint, Model, ModelError, Selector, MODEL_SCHEMA, MODEL_VERSION,
};
pub use run::{launch_covered, measure_launch, CoverHooks};
pub use trace::{measure_trace, TraceError, MAX_LINE_BYTES};
