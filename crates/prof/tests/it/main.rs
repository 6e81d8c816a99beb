//! The integration tests of `warpkit-prof`, one test binary: each file was a binary of its own,
//! and linking one instead of many saves most of the build time of `cargo test`.

mod profile;
mod timed;
