//! The integration tests of `warpkit-cc`, one test binary with a module per part of the
//! compiler.

mod backend;
mod build;
mod differential;
mod ir_interp;
mod lower;
mod lower_clsmith;
mod mathlib;
mod model;
mod opencl;
mod opt;
mod parse;
mod pp;
mod pp_gcc;
mod random_ir;
mod suites;
mod vectors;
mod verify;
