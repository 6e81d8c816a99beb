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
use std::sync::Arc;

use warpkit_sim::launch::{
    launch_batched, workgroup_count, Arg, LaunchConfig, LaunchError, LaunchResult,
};
use warpkit_sim::Program;

use crate::class::Table;
use crate::engine::{does_not_fit, replay, Shape, Source};
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
    let (result, mut reports) = launch_timed_many(
        program,
        config,
        args,
        opts,
        std::slice::from_ref(&opts.machine),
    )?;
    let report = reports.pop().expect("one report per machine");
    Ok((result, report))
}

/// Whether `program`, launched with `config`, can be timed on `machine`: the machine is
/// valid and a workgroup fits on one of its compute units.
pub fn check_machine(
    program: &Program,
    config: &LaunchConfig,
    machine: &Machine,
) -> Result<(), TimingError> {
    machine.validate()?;
    let shape = shape_of(config)?;
    let table = Table::new(program, machine);
    match does_not_fit(machine, &table, &shape) {
        Some((limit, need, have)) => Err(TimingError::DoesNotFit { limit, need, have }),
        None => Ok(()),
    }
}

/// [`launch_timed`] on several machines at once (`opts.machine` is not used): one report
/// per machine, in their order, each exactly what [`launch_timed`] gives on it.
///
/// Machines that record the same streams (equal line size and shared-memory banks) share
/// one functional run, whose batches their replays, each on its own thread, consume side
/// by side; so a sweep over other knobs runs the functional model once and its replays in
/// parallel. The functional result returned is the first run's (every run's is the same).
/// A machine that cannot be timed ([`check_machine`]) fails the call before anything runs.
pub fn launch_timed_many(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    opts: &TimingOptions,
    machines: &[Machine],
) -> Result<(LaunchResult, Vec<TimingReport>), TimingError> {
    for machine in machines {
        check_machine(program, config, machine)?;
    }
    let mut config = config.clone();
    if opts.threads != 0 {
        config.threads = opts.threads;
    }
    // Machines by the streams they record, in order of first appearance.
    let mut runs: Vec<(RecordingKey, Vec<usize>)> = Vec::new();
    for (i, machine) in machines.iter().enumerate() {
        let key = RecordingKey::of(machine);
        match runs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => runs.push((key, vec![i])),
        }
    }
    let mut reports: Vec<Option<TimingReport>> = vec![None; machines.len()];
    let mut first_result = None;
    let mut args = Some(args);
    let count = runs.len();
    for (n, (_, members)) in runs.into_iter().enumerate() {
        // The last run takes the arguments; earlier ones a copy.
        let run_args = if n + 1 == count {
            args.take().unwrap_or_default()
        } else {
            args.clone().unwrap_or_default()
        };
        let group: Vec<&Machine> = members.iter().map(|&i| &machines[i]).collect();
        let (result, group_reports) = record_and_replay(program, &config, run_args, opts, &group)?;
        for (i, report) in members.into_iter().zip(group_reports) {
            reports[i] = Some(report);
        }
        first_result.get_or_insert(result);
    }
    let result = match first_result {
        Some(r) => r,
        // No machine: a plain launch.
        None => warpkit_sim::launch::launch(program, &config, args.unwrap_or_default())?,
    };
    Ok((result, reports.into_iter().flatten().collect()))
}

/// What the recording depends on besides the program: machines equal in it record the
/// same streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RecordingKey {
    line_bytes: u32,
    bank_bytes: u32,
    banks: u32,
}

impl RecordingKey {
    fn of(machine: &Machine) -> RecordingKey {
        RecordingKey {
            line_bytes: machine.l1.line_bytes,
            bank_bytes: machine.shared.bank_bytes,
            banks: machine.shared.banks,
        }
    }
}

/// The launch's shape as the replay sees it.
fn shape_of(config: &LaunchConfig) -> Result<Shape, TimingError> {
    let groups = workgroup_count(config)?;
    let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
    Ok(Shape {
        groups,
        warps: threads.div_ceil(32) as u32,
        shared_bytes: config.shared_bytes,
    })
}

/// One functional run recording the streams `machines` (equal in [`RecordingKey`], each
/// checked) replay, each on its own thread.
fn record_and_replay(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    opts: &TimingOptions,
    machines: &[&Machine],
) -> Result<(LaunchResult, Vec<TimingReport>), TimingError> {
    let shape = shape_of(config)?;
    let warps = shape.warps;
    let tables: Vec<Table> = machines.iter().map(|m| Table::new(program, m)).collect();
    let host_threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    } as u64;
    let batch = BATCH_WARPS
        .div_ceil(u64::from(warps.max(1)))
        .max(4 * host_threads);
    std::thread::scope(|scope| {
        let mut senders = Vec::with_capacity(machines.len());
        let mut replays = Vec::with_capacity(machines.len());
        for (&machine, table) in machines.iter().zip(&tables) {
            let (tx, rx) = sync_channel::<(u64, Arc<Vec<GroupStreams>>)>(1);
            senders.push(tx);
            replays.push(scope.spawn(move || {
                let mut source = Channel {
                    rx,
                    buffer: VecDeque::new(),
                    first: 0,
                };
                replay(
                    machine,
                    table,
                    shape,
                    opts.timeline,
                    &mut source,
                    &opts.kernel,
                )
            }));
        }
        // The recording depends only on the key and on which instructions carry a word,
        // the same in every table.
        let (recording_table, recording_machine) = (&tables[0], machines[0]);
        let result = launch_batched(
            program,
            config,
            args,
            batch,
            |_| Recorder::new(recording_table, recording_machine, warps as usize),
            |first, hooks| {
                let batch: Arc<Vec<GroupStreams>> = Arc::new(
                    hooks
                        .into_iter()
                        .map(|h| h.warps.into_iter().map(Arc::new).collect())
                        .collect(),
                );
                for tx in &senders {
                    // A replay that has stopped (it cannot, short of a panic) drops batches.
                    let _ = tx.send((first, Arc::clone(&batch)));
                }
            },
        );
        drop(senders);
        let mut reports = Vec::with_capacity(replays.len());
        for replay in replays {
            match replay.join() {
                Ok(r) => reports.push(r),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        Ok((result?, reports))
    })
}

/// The recorded batches, as the replay takes them.
struct Channel {
    rx: Receiver<(u64, Arc<Vec<GroupStreams>>)>,
    /// Workgroups received and not yet taken, from `first` on.
    buffer: VecDeque<GroupStreams>,
    first: u64,
}

impl Source for Channel {
    fn take(&mut self, flat: u64) -> Option<GroupStreams> {
        while self.buffer.is_empty() {
            let (first, batch) = self.rx.recv().ok()?;
            self.first = first;
            // The only replay of the batch takes it; others share its streams.
            match Arc::try_unwrap(batch) {
                Ok(batch) => self.buffer.extend(batch),
                Err(shared) => self.buffer.extend(shared.iter().cloned()),
            }
        }
        debug_assert_eq!(self.first, flat);
        self.first += 1;
        self.buffer.pop_front()
    }
}
