//! The integration tests of `warpkit-cc`, one test binary.

mod build;
mod ir_interp;
mod lower;
mod verify;
