//! warpkit's verification kit (docs/verification.md), driven by the ISA database:
//! constrained-random programs that end by storing a signature of their registers
//! ([`gen`], [`signature`]), conformance vectors (pre-state, program, launch, post-state)
//! that any implementation can be checked against and the protocol of a design under test
//! (DUT) as a shell command ([`vector`], [`dut`], [`conformance`]), functional coverage
//! generated from the database ([`cover`]), shrinking of a program a DUT disagrees on
//! ([`shrink`]), and regression plans sharded over Slurm job arrays or Kubernetes Indexed
//! Jobs ([`regress`]).

pub mod conformance;
pub mod cover;
pub mod dut;
pub mod gen;
pub mod regress;
pub mod shrink;
pub mod signature;
pub mod vector;
