//! The integration tests of `warpkit-cc`, one test binary.

mod parse;
