//! The verification kit of the warpkit ISA: tools an RTL team uses with the functional
//! model as its golden reference.
//!
//! - [`cover`]: functional coverage — a coverage model generated from the ISA database,
//!   measured in-process through the simulator's hooks or from commit traces, merged
//!   across runs and reported (docs/coverage.md).

pub mod cover;
