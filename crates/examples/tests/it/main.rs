//! The integration tests of `warpkit-examples`, one test binary: each file was a binary of its own,
//! and linking one instead of many saves most of the build time of `cargo test`.

mod checkpoint;
mod engines;
mod events;
mod opencl;
mod suite;
