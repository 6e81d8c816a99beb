//! warpkit's verification kit (docs/verification.md), driven by the ISA database:
//! constrained-random programs that end by storing a signature of their registers
//! (docs/gen.md), conformance vectors (pre-state, program, launch, post-state) that any
//! implementation can be checked against, the protocol of a design under test (DUT) as a shell command, the exported conformance suite,
//! and shrinking of a program a DUT disagrees on.

pub mod conformance;
pub mod dut;
pub mod gen;
pub mod shrink;
pub mod signature;
pub mod vector;
