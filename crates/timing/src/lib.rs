//! The warpkit timing model: how many cycles a launch takes on a configurable machine
//! ([`Machine`]), with stalls, occupancy, unit utilisation and cache behaviour.

pub mod machine;

pub use machine::{Machine, MachineError};
