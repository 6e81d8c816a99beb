//! The warpkit verification kit: conformance vectors (pre-state, program, launch,
//! post-state) that any implementation can be checked against, the protocol of a design
//! under test (DUT) as a shell command, and the exported conformance suite.

pub mod conformance;
pub mod dut;
pub mod vector;
