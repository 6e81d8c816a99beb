//! The integration tests of `warpkit-sim`, one test binary: each file was a binary of its own,
//! and linking one instead of many saves most of the build time of `cargo test`.

mod common;

mod commits;
mod control;
mod coverage;
mod d16;
mod deadlock;
mod engines;
mod engines_memory;
mod fallbacks;
mod float;
mod hooks;
mod launch;
mod laws;
mod layers;
mod limits;
mod mem_fast;
mod output;
mod run_control;
mod salu;
mod schedule;
mod scratch;
mod trace_diff_memory;
mod traps;
mod valu;
