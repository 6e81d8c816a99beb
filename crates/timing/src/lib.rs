//! The warpkit timing model: how many cycles a launch takes on a configurable machine
//! ([`Machine`]), with stalls, occupancy, unit utilisation and cache behaviour.
//!
//! The model is trace driven. The functional run (the execution core, under hooks, on any
//! number of host threads) records each warp's committed instruction stream; a
//! single-threaded, deterministic event loop then replays the streams on the machine. The
//! functional results are those of the recording run, and the timing depends only on the
//! streams and the machine, so it is the same for any thread count and either engine.

pub mod machine;
pub mod plot;
pub mod report;
pub mod sweep;

pub use machine::{Machine, MachineError};
pub use report::{
    KernelTiming, MemoryTiming, PcTiming, PerClass, Span, Stall, TimingReport, UnitTiming,
    WarpSpans,
};

use warpkit_sim::launch::{launch, Arg, LaunchConfig, LaunchError, LaunchResult};
use warpkit_sim::Program;

/// How to time a launch.
#[derive(Debug, Clone, PartialEq)]
pub struct TimingOptions {
    /// The machine to model.
    pub machine: Machine,
    /// The kernel's name in reports.
    pub kernel: String,
    /// Keep each warp's issue and stall spans ([`TimingReport::timeline`]).
    pub timeline: bool,
    /// Host threads of the functional run; 0 = the launch configuration's `threads`.
    pub threads: usize,
}

impl Default for TimingOptions {
    fn default() -> TimingOptions {
        TimingOptions {
            machine: Machine::default(),
            kernel: "kernel".into(),
            timeline: false,
            threads: 0,
        }
    }
}

/// Why a launch could not be timed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TimingError {
    /// The functional launch was refused.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// A workgroup needs more of a compute unit's resources than an empty one has.
    #[error("a workgroup does not fit on a compute unit: it needs {need} {limit}, a compute unit has {have}")]
    DoesNotFit {
        /// The resource: `warp slots`, `vector registers` or `bytes of shared memory`.
        limit: &'static str,
        /// How much of it one workgroup needs.
        need: u64,
        /// How much an empty compute unit has.
        have: u64,
    },
}

/// Launch `program` as [`warpkit_sim::launch::launch`] does and time it on
/// `opts.machine`: the functional result (exactly a plain launch's) and the timing report.
pub fn launch_timed(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    opts: &TimingOptions,
) -> Result<(LaunchResult, TimingReport), TimingError> {
    let mut config = config.clone();
    if opts.threads != 0 {
        config.threads = opts.threads;
    }
    let result = launch(program, &config, args)?;
    let mut report = TimingReport::empty(&opts.machine);
    report.instructions = result.stats.instructions;
    Ok((result, report))
}
