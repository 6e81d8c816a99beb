//! warpkit's verification kit, driven by the ISA database (`spec/`): constrained-random
//! programs ([`gen`]) that run trap-free and hazard-free on every engine and end by storing
//! a signature of their registers ([`signature`]), so a device under test's result is one
//! comparison (docs/gen.md).

pub mod gen;
pub mod signature;
