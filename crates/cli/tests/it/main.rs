//! The integration tests of `warpkit`, one test binary: each file was a binary of its own,
//! and linking one instead of many saves most of the build time of `cargo test`.

mod common;

mod asm_dis;
mod calibrate_cli;
mod campaign;
mod cc_cli;
mod checkpoint_cli;
mod closed_stderr;
mod compiler_output;
mod conformance_cli;
mod cover_cli;
mod data_safety;
mod debug_cli;
mod engine_cli;
mod examples_images;
mod examples_opencl;
mod float_programs;
mod gen_cli;
mod kernel_meta;
mod lines;
mod linx_cli;
mod loc_cli;
mod opencl_doc;
mod opencl_peers;
mod profile;
mod regress_cli;
mod reports;
mod run_cli;
mod scratch_cli;
mod shrink_cli;
mod timing_cli;
mod timing_sweep;
mod trace_diff;
