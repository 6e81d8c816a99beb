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
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

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

/// Bytes of recorded streams a deferred launch's recording may run ahead of its replay
/// ([`launch_timed_deferred`]): a launch whose streams are smaller returns its functional
/// result as soon as it has run, its replay going on alone.
pub const DEFERRED_AHEAD_BYTES: u64 = 64 << 20;

/// [`launch_timed`], returning the functional result as soon as the functional run is
/// done: the replay goes on on its own thread, and [`PendingTiming::wait`] gives its
/// report (exactly [`launch_timed`]'s). The recording may run up to
/// [`DEFERRED_AHEAD_BYTES`] of streams ahead of the replay, so the functional result of a
/// launch that records less than that does not wait for the replay.
///
/// Launches of a program whose next launch depends only on the functional results (a
/// kernel run in stages, iterations of a stencil) are timed side by side this way: the
/// next launch runs while the previous ones are replayed; the caller bounds how many it
/// keeps pending.
pub fn launch_timed_deferred(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    opts: &TimingOptions,
) -> Result<(LaunchResult, PendingTiming), TimingError> {
    check_machine(program, config, &opts.machine)?;
    let config = recording_config(config, opts);
    let machines = [&opts.machine];
    let (result, replays) = record_and_replay(
        program,
        &config,
        args,
        opts,
        &machines,
        DEFERRED_AHEAD_BYTES,
    )?;
    Ok((result, PendingTiming { replays }))
}

/// The timing of a launch whose replay may still be running ([`launch_timed_deferred`]).
#[derive(Debug)]
#[must_use = "the report comes from `wait`"]
pub struct PendingTiming {
    replays: Vec<JoinHandle<TimingReport>>,
}

impl PendingTiming {
    /// Wait for the replay to end: the launch's timing report. A panic of the replay
    /// resumes here.
    pub fn wait(self) -> TimingReport {
        self.wait_all()
            .pop()
            .expect("one replay per deferred launch")
    }

    /// Every replay's report, in order.
    fn wait_all(self) -> Vec<TimingReport> {
        self.replays
            .into_iter()
            .map(|replay| match replay.join() {
                Ok(report) => report,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    }
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
    let config = recording_config(config, opts);
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
    let mut pending = Vec::with_capacity(runs.len());
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
        let (result, replays) = record_and_replay(program, &config, run_args, opts, &group, 0)?;
        pending.push((members, PendingTiming { replays }));
        first_result.get_or_insert(result);
    }
    // The replays of every group run side by side until here.
    for (members, timing) in pending {
        for (i, report) in members.into_iter().zip(timing.wait_all()) {
            reports[i] = Some(report);
        }
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

/// `config` with the host threads `opts` asks for (0: the launch's own).
fn recording_config(config: &LaunchConfig, opts: &TimingOptions) -> LaunchConfig {
    let mut config = config.clone();
    if opts.threads != 0 {
        config.threads = opts.threads;
    }
    config
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
/// checked) replay, each on its own thread: the functional result once the recording is
/// done, and the replays, which go on until they have replayed every batch. Each replay
/// may have up to `ahead` bytes of streams sent and not yet taken (at least one batch),
/// so the recording runs at most that far ahead of it.
fn record_and_replay(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    opts: &TimingOptions,
    machines: &[&Machine],
    ahead: u64,
) -> Result<(LaunchResult, Vec<JoinHandle<TimingReport>>), TimingError> {
    let shape = shape_of(config)?;
    let warps = shape.warps;
    let tables: Vec<Arc<Table>> = machines
        .iter()
        .map(|m| Arc::new(Table::new(program, m)))
        .collect();
    let host_threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    } as u64;
    // Enough workgroups per batch to keep every host thread busy, and about
    // `BATCH_WARPS` warps.
    let batch = BATCH_WARPS
        .div_ceil(u64::from(warps.max(1)))
        .max(4 * host_threads);
    let mut senders = Vec::with_capacity(machines.len());
    let mut replays = Vec::with_capacity(machines.len());
    for (&machine, table) in machines.iter().zip(&tables) {
        let (tx, rx) = channel::<Batch>();
        let budget = Arc::new(Budget::new(ahead));
        senders.push((tx, Arc::clone(&budget)));
        let (machine, table) = (machine.clone(), Arc::clone(table));
        let (timeline, kernel) = (opts.timeline, opts.kernel.clone());
        replays.push(std::thread::spawn(move || {
            let mut source = Channel {
                rx,
                budget,
                buffer: VecDeque::new(),
                first: 0,
            };
            replay(&machine, &table, shape, timeline, &mut source, &kernel)
        }));
    }
    // The recording depends only on the key and on which instructions carry a word,
    // the same in every table.
    let (recording_table, recording_machine) = (&*tables[0], machines[0]);
    let result = launch_batched(
        program,
        config,
        args,
        batch,
        |_| Recorder::new(recording_table, recording_machine, warps as usize),
        |first, hooks| {
            let groups: Vec<GroupStreams> = hooks
                .into_iter()
                .map(|h| h.warps.into_iter().map(Arc::new).collect())
                .collect();
            let bytes = groups.iter().flatten().map(|w| w.bytes()).sum();
            let groups = Arc::new(groups);
            for (tx, budget) in &senders {
                budget.take(bytes);
                // A replay that has stopped (it cannot, short of a panic) drops batches.
                let _ = tx.send(Batch {
                    first,
                    bytes,
                    groups: Arc::clone(&groups),
                });
            }
        },
    );
    // The replays end once they have taken every batch.
    drop(senders);
    match result {
        Ok(result) => Ok((result, replays)),
        Err(e) => {
            for replay in replays {
                if let Err(panic) = replay.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            Err(e.into())
        }
    }
}

/// Workgroups `first..` of a launch, recorded, as a replay receives them.
struct Batch {
    first: u64,
    /// The bytes of their streams ([`WarpStream::bytes`]).
    bytes: u64,
    /// Their streams, shared by the replays of every machine recorded together.
    groups: Arc<Vec<GroupStreams>>,
}

/// How far the recording may run ahead of one replay: the bytes of the batches sent to it
/// and not yet taken. The recording waits before sending a batch that would go over the
/// limit, unless none is waiting (so a batch larger than the limit still goes) or the
/// replay has stopped.
#[derive(Debug)]
struct Budget {
    /// Bytes waiting, and whether the replay has stopped taking batches.
    state: Mutex<(u64, bool)>,
    taken: Condvar,
    limit: u64,
}

impl Budget {
    fn new(limit: u64) -> Budget {
        Budget {
            state: Mutex::new((0, false)),
            taken: Condvar::new(),
            limit,
        }
    }

    /// The recording is about to send `bytes`: wait until they fit.
    fn take(&self, bytes: u64) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while state.0 > 0 && state.0 + bytes > self.limit && !state.1 {
            state = self
                .taken
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        state.0 += bytes;
    }

    /// The replay took a batch of `bytes`.
    fn give(&self, bytes: u64) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0 -= bytes;
        self.taken.notify_all();
    }

    /// The replay takes no more batches: the recording must not wait for it.
    fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.1 = true;
        self.taken.notify_all();
    }
}

/// The recorded batches, as the replay takes them.
struct Channel {
    rx: Receiver<Batch>,
    budget: Arc<Budget>,
    /// Workgroups received and not yet taken, from `first` on.
    buffer: VecDeque<GroupStreams>,
    first: u64,
}

impl Source for Channel {
    fn take(&mut self, flat: u64) -> Option<GroupStreams> {
        while self.buffer.is_empty() {
            let Batch {
                first,
                bytes,
                groups,
            } = self.rx.recv().ok()?;
            self.budget.give(bytes);
            self.first = first;
            // The only replay of the batch takes it; others share its streams.
            match Arc::try_unwrap(groups) {
                Ok(batch) => self.buffer.extend(batch),
                Err(shared) => self.buffer.extend(shared.iter().cloned()),
            }
        }
        debug_assert_eq!(self.first, flat);
        self.first += 1;
        self.buffer.pop_front()
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        // Stopped, by the end of the launch or a panic: the recording must not wait.
        self.budget.close();
    }
}

#[cfg(test)]
mod tests {
    use super::Budget;
    use std::sync::mpsc::{channel, RecvTimeoutError};
    use std::sync::Arc;
    use std::time::Duration;

    /// Whether `take(bytes)` on another thread returns within a short wait (it cannot
    /// while the budget holds it back; a budget that does not hold back is caught as soon
    /// as the thread runs), and a receiver for when it does.
    fn take_elsewhere(budget: &Arc<Budget>, bytes: u64) -> (bool, std::sync::mpsc::Receiver<()>) {
        let (tx, rx) = channel();
        let b = Arc::clone(budget);
        std::thread::spawn(move || {
            b.take(bytes);
            let _ = tx.send(());
        });
        let returned = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(()) => true,
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => panic!("the taking thread failed"),
        };
        (returned, rx)
    }

    #[test]
    fn the_recording_waits_while_a_replay_has_its_limit_waiting() {
        let budget = Arc::new(Budget::new(10));
        // Nothing waiting: a batch over the limit goes.
        budget.take(100);
        let (returned, rx) = take_elsewhere(&budget, 5);
        assert!(!returned, "took 5 bytes with 100 of a limit of 10 waiting");
        budget.give(100);
        rx.recv().expect("taken once the replay took the batch");
        // 5 waiting: 5 more fit, 6 do not.
        assert!(take_elsewhere(&budget, 5).0);
        let (returned, rx) = take_elsewhere(&budget, 1);
        assert!(!returned, "took 1 byte with the limit of 10 waiting");
        budget.give(5);
        rx.recv().expect("fits once 5 were taken");
        // A replay that stopped never holds the recording back.
        let (returned, rx) = take_elsewhere(&budget, 100);
        assert!(!returned);
        budget.close();
        rx.recv().expect("the stopped replay lets it go");
        budget.take(1000);
    }
}
