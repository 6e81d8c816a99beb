//! What observers make of a run: the commit trace (a [`crate::Hooks`] implementation),
//! state dumps, the comparison of two traces, and of a design's commit with the model's
//! (co-simulation).

pub mod cosim;
pub(crate) mod dump;
pub(crate) mod trace;
pub mod trace_diff;
