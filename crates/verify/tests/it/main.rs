//! The integration tests of `warpkit-verify`, one test binary with a module per part.

mod cover;
