//! The warpkit timing model: how many cycles a launch takes on a configurable machine
//! ([`Machine`]), with stalls, occupancy, unit utilisation and cache behaviour.
//!
//! The model is trace driven. The functional run (the execution core, under hooks, on any
//! number of host threads) records each warp's committed instruction stream; a
//! single-threaded, deterministic event loop then replays the streams on the machine. The
//! functional results are those of the recording run, and the timing depends only on the
//! streams and the machine, so it is the same for any thread count and either engine.

pub mod calibrate;
mod class;
mod engine;
pub mod machine;
mod memory;
pub mod plot;
mod record;
pub mod report;
pub mod sweep;

pub use calibrate::{calibrate, CalibrateError, Calibration};
pub use machine::{Machine, MachineError};
pub use report::{
    KernelTiming, MemoryTiming, PcTiming, PerClass, Span, Stall, TimingReport, UnitTiming,
    WarpSpans,
};

use std::collections::VecDeque;
use std::sync::mpsc::{sync_channel, Receiver};

use warpkit_sim::launch::{
    launch_batched, workgroup_count, Arg, LaunchConfig, LaunchError, LaunchResult,
};
use warpkit_sim::Program;

use crate::class::Table;
use crate::engine::{does_not_fit, Replay, Shape, Source};
use crate::record::{GroupStreams, Recorder};

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
#[derive(Debug, thiserror::Error)]
pub enum TimingError {
    /// The functional launch was refused.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// The machine is not one the model can run ([`Machine::validate`]).
    #[error("machine: {0}")]
    Machine(#[from] MachineError),
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

/// Warps the replay is given at once, about: the recording runs this far ahead.
const BATCH_WARPS: u64 = 2048;

/// Launch `program` as [`warpkit_sim::launch::launch`] does and time it on
/// `opts.machine`: the functional result (exactly a plain launch's) and the timing report.
///
/// The functional run records each warp's instruction stream, in batches of workgroups in
/// flat order on the configured host threads, while another thread replays the batches
/// already recorded; so at most a few batches' streams are held at once.
pub fn launch_timed(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    opts: &TimingOptions,
) -> Result<(LaunchResult, TimingReport), TimingError> {
    opts.machine.validate()?;
    let mut config = config.clone();
    if opts.threads != 0 {
        config.threads = opts.threads;
    }
    let groups = workgroup_count(&config)?;
    let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
    let warps = threads.div_ceil(32) as u32;
    let shape = Shape {
        groups,
        warps,
        shared_bytes: config.shared_bytes,
    };
    let machine = &opts.machine;
    let table = Table::new(program, machine);
    if let Some((limit, need, have)) = does_not_fit(machine, &table, &shape) {
        return Err(TimingError::DoesNotFit { limit, need, have });
    }
    let host_threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    } as u64;
    let batch = BATCH_WARPS
        .div_ceil(u64::from(warps.max(1)))
        .max(4 * host_threads);
    let (tx, rx) = sync_channel::<(u64, Vec<GroupStreams>)>(1);
    std::thread::scope(|scope| {
        let table = &table;
        let replay = scope.spawn(move || {
            let mut source = Channel {
                rx,
                buffer: VecDeque::new(),
                first: 0,
            };
            Replay::new(machine, table, shape, opts.timeline).run(&mut source, &opts.kernel)
        });
        let result = launch_batched(
            program,
            &config,
            args,
            batch,
            |_| Recorder::new(table, machine, warps as usize),
            |first, hooks| {
                // A replay that has stopped (it cannot, short of a panic) drops batches.
                let _ = tx.send((first, hooks.into_iter().map(|h| h.warps).collect()));
            },
        );
        drop(tx);
        let report = match replay.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        Ok((result?, report))
    })
}

/// The recorded batches, as the replay takes them.
struct Channel {
    rx: Receiver<(u64, Vec<GroupStreams>)>,
    /// Workgroups received and not yet taken, from `first` on.
    buffer: VecDeque<GroupStreams>,
    first: u64,
}

impl Source for Channel {
    fn take(&mut self, flat: u64) -> Option<GroupStreams> {
        while self.buffer.is_empty() {
            let (first, batch) = self.rx.recv().ok()?;
            self.first = first;
            self.buffer.extend(batch);
        }
        debug_assert_eq!(self.first, flat);
        self.first += 1;
        self.buffer.pop_front()
    }
}
