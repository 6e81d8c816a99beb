//! The integration tests of `warpkit-cc`, one test binary with a module per part of the
//! compiler.

mod pp;
mod pp_gcc;
