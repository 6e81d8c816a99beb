//! The integration tests of `warpkit-cc`, one test binary.

mod backend;
mod build;
mod ir_interp;
mod opencl;
mod opt;
mod random_ir;
mod verify;
