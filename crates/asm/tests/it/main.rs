//! The integration tests of `warpkit-asm`, one test binary: each file was a binary of its own,
//! and linking one instead of many saves most of the build time of `cargo test`.

mod diagnostics;
mod gnu;
mod kernels;
mod lines;
mod no_panic;
mod roundtrip;
mod smoke;
mod spellings;
