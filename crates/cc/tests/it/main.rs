//! The integration tests of `warpkit-cc`, one test binary with a module per part of the
//! compiler.

mod build;
mod ir_interp;
mod lower;
mod lower_clsmith;
mod opt;
mod parse;
mod pp;
mod pp_gcc;
mod random_ir;
mod verify;
