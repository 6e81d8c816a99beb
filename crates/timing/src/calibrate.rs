//! Calibration: microbenchmarks that recover a machine's parameters from the cycles the
//! timing model measures, and compare them with the machine's configured values.
//!
//! The machine is used only to run the kernels on and, at the end, to fill in the
//! configured column; every measured value comes from cycle counts (and, for the
//! occupancy limits, from whether a workgroup can be placed at all). Each benchmark
//! sizes itself from earlier measurements (a footprint sweep grows until it passes the
//! cache it looks for), so a machine with other sizes needs no other settings.

mod bench;
mod fit;
mod measure;
mod report;

use crate::Machine;

pub use measure::CLASSES;
pub use report::{CalibrateError, Calibration, Parameter, Recovery, Value};

/// Run the microbenchmarks on `machine` (the functional runs on `threads` host threads,
/// 0 = one per core) and recover every parameter from the measured cycles.
pub fn calibrate(machine: &Machine, threads: usize) -> Result<Calibration, CalibrateError> {
    let (parameters, launches) = measure::run(machine, threads)?;
    Ok(Calibration {
        machine: machine.name.clone(),
        machine_hash: machine.hash(),
        launches,
        parameters,
    })
}
