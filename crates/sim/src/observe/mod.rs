//! What observers make of a run: the commit trace (a [`crate::Hooks`] implementation),
//! state dumps, and the comparison of two traces.

pub(crate) mod dump;
pub(crate) mod trace;
pub mod trace_diff;
