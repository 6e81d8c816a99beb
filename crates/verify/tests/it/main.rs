//! The integration tests of warpkit-verify, one test binary with one module per part.

mod conformance;
mod cover;
mod flow;
mod gen;
mod regress;
mod shrink;
