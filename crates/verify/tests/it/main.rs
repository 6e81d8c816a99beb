//! Integration tests of warpkit-verify.

mod gen;
