//! The integration tests of `warpkit-cc`, one test binary.

mod build;
mod ir_interp;
mod lower;
mod opt;
mod parse;
mod random_ir;
mod verify;
