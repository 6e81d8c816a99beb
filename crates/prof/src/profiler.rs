//! The observer: counts per instruction and per workgroup from the simulator's commit hook.

use crate::report::Profile;
use crate::timeline::Timeline;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use warpkit_isa::Flags;
use warpkit_sim::launch::{launch_observed, Arg, LaunchConfig, LaunchError, LaunchResult};
use warpkit_sim::{Code, Control, Hooks, Program, Warp, WarpStatus, LANES, NUM_COUNTERS};

/// Counts of one instruction (one 4-byte slot of the code).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Times a warp executed it (retired or trapped).
    pub executed: u64,
    pub retired: u64,
    /// Active lanes summed over its retired executions, for a vector instruction.
    pub lane_ops: u64,
    /// RAW/WAW hazards reported at it.
    pub hazards: u64,
    /// Branches: retired executions that went somewhere other than the next instruction.
    pub taken: u64,
    /// Branches: executions with EXEC neither empty nor the warp's launch mask.
    pub diverged: u64,
}

/// One stint of one warp on the workgroup's clock: from its first instruction after being
/// scheduled (the start or a barrier release) to the instruction that stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    pub warp: u32,
    /// Barrier interval: 0 before the first barrier, k after the k-th.
    pub interval: u32,
    pub start: u64,
    pub end: u64,
    /// How the stint ended: `barrier`, `ended`, `trapped`, `step limit`.
    pub how: &'static str,
}

/// What one workgroup did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorkgroupRecord {
    pub flat: u64,
    pub id: [u32; 3],
    pub warps: u32,
    /// Instructions executed by its warps (retired or trapped).
    pub instructions: u64,
    pub lane_ops: u64,
    /// The most barriers one of its warps reached.
    pub barriers: u32,
    /// `barrier` instructions executed, summed over its warps.
    pub barrier_instructions: u64,
    /// The host thread that ran it, and its start order among all workgroups.
    pub thread: usize,
    pub seq: u64,
    /// Kept only for a timeline.
    pub spans: Vec<Span>,
}

#[derive(Debug, Clone, Default)]
struct WarpState {
    launch_exec: Option<u32>,
    retired: u64,
    hazards: u64,
    stint_start: Option<u64>,
    interval: u32,
}

#[derive(Debug)]
struct Current {
    record: WorkgroupRecord,
    warps: Vec<WarpState>,
}

/// Observes the launch of one host-thread task; see [`profile_launch`].
#[derive(Debug)]
pub struct Profiler {
    timeline: bool,
    thread: usize,
    seq: Arc<AtomicU64>,
    pub(crate) insts: Vec<Counts>,
    /// Peak in-flight operations of each counter, over every warp.
    pub(crate) peaks: [u32; NUM_COUNTERS],
    /// Retired vector instruction executions by active lanes (0..=32).
    pub(crate) lanes: [u64; LANES + 1],
    pub(crate) workgroups: Vec<WorkgroupRecord>,
    current: Option<Current>,
}

impl Profiler {
    fn new(program: &Program, thread: usize, seq: Arc<AtomicU64>, timeline: bool) -> Profiler {
        Profiler {
            timeline,
            thread,
            seq,
            insts: vec![Counts::default(); program.text().len().div_ceil(4)],
            peaks: [0; NUM_COUNTERS],
            lanes: [0; LANES + 1],
            workgroups: Vec::new(),
            current: None,
        }
    }

    /// Add `other`'s counts to these (order does not matter: every count is a sum, a
    /// maximum, or a record sorted later).
    fn merge(mut self, other: Profiler) -> Profiler {
        for (a, b) in self.insts.iter_mut().zip(&other.insts) {
            a.executed += b.executed;
            a.retired += b.retired;
            a.lane_ops += b.lane_ops;
            a.hazards += b.hazards;
            a.taken += b.taken;
            a.diverged += b.diverged;
        }
        for (a, b) in self.peaks.iter_mut().zip(other.peaks) {
            *a = (*a).max(b);
        }
        for (a, b) in self.lanes.iter_mut().zip(other.lanes) {
            *a += b;
        }
        self.workgroups.extend(other.workgroups);
        self
    }
}

impl Hooks for Profiler {
    const ENABLED: bool = true;

    fn begin_workgroup(&mut self, flat: u64, id: [u32; 3]) {
        self.current = Some(Current {
            record: WorkgroupRecord {
                flat,
                id,
                warps: 0,
                instructions: 0,
                lane_ops: 0,
                barriers: 0,
                barrier_instructions: 0,
                thread: self.thread,
                seq: self.seq.fetch_add(1, Ordering::Relaxed),
                spans: Vec::new(),
            },
            warps: Vec::new(),
        });
    }

    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        self.observe(warp, prog, pc, exec_before);
        Control::Continue
    }

    fn end_workgroup(&mut self, _id: [u32; 3], warps: &[Warp]) {
        if let Some(mut cur) = self.current.take() {
            cur.record.warps = warps.len() as u32;
            self.workgroups.push(cur.record);
        }
    }
}

impl Profiler {
    /// Count the instruction at `pc` that `warp` just executed.
    fn observe(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let wi = warp.id.warp as usize;
        if cur.warps.len() <= wi {
            cur.warps.resize(wi + 1, WarpState::default());
        }
        let w = &mut cur.warps[wi];
        let clock = cur.record.instructions;
        cur.record.instructions += 1;
        // The first instruction of a warp sees the EXEC it was launched with.
        let launch_exec = *w.launch_exec.get_or_insert(exec_before);
        let retired = warp.retired > w.retired;
        w.retired = warp.retired;
        let hazards = warp.hazard_count.saturating_sub(w.hazards);
        w.hazards = warp.hazard_count;
        let inst = prog.fetch(pc);
        let Some(c) = self.insts.get_mut((pc / 4) as usize) else {
            return;
        };
        c.executed += 1;
        c.hazards += hazards;
        if retired {
            c.retired += 1;
            if inst.is_some_and(|i| i.vector) {
                let lanes = exec_before.count_ones();
                c.lane_ops += u64::from(lanes);
                cur.record.lane_ops += u64::from(lanes);
                self.lanes[lanes as usize] += 1;
            }
        }
        if let Some(Code::Op(op)) = inst.map(|i| i.code) {
            if op.def().flags.contains(Flags::BR) {
                let len = inst.map_or(4, |i| u32::from(i.len));
                if retired && warp.pc != pc.wrapping_add(len) {
                    c.taken += 1;
                }
                if exec_before != 0 && exec_before != launch_exec {
                    c.diverged += 1;
                }
            }
        }
        for (k, peak) in self.peaks.iter_mut().enumerate() {
            *peak = (*peak).max(warp.queue.count(k));
        }
        if self.timeline && w.stint_start.is_none() {
            w.stint_start = Some(clock);
        }
        let how = match warp.status {
            WarpStatus::Running => return,
            WarpStatus::AtBarrier => "barrier",
            WarpStatus::Ended => "ended",
            WarpStatus::Trapped(_) => "trapped",
            WarpStatus::StepLimit => "step limit",
        };
        if how == "barrier" {
            cur.record.barrier_instructions += 1;
            w.interval += 1;
            cur.record.barriers = cur.record.barriers.max(w.interval);
        }
        if let Some(start) = w.stint_start.take() {
            let interval = if how == "barrier" {
                w.interval - 1
            } else {
                w.interval
            };
            cur.record.spans.push(Span {
                warp: warp.id.warp,
                interval,
                start,
                end: clock + 1,
                how,
            });
        }
    }
}

/// Launch `program` as [`warpkit_sim::launch::launch`] does, observed by profilers (one per
/// host-thread task, merged). With `timeline`, the spans of every warp are kept for
/// [`Timeline`].
pub fn profile_launch(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    timeline: bool,
) -> Result<(LaunchResult, Profile, Option<Timeline>), LaunchError> {
    let seq = Arc::new(AtomicU64::new(0));
    let (result, profiler) = launch_observed(
        program,
        config,
        args,
        |thread| Profiler::new(program, thread, seq.clone(), timeline),
        Profiler::merge,
    )?;
    let mut profiler = profiler.unwrap_or_else(|| Profiler::new(program, 0, seq, timeline));
    profiler.workgroups.sort_by_key(|w| w.flat);
    let timeline = timeline.then(|| Timeline::new(&profiler.workgroups));
    let profile = Profile::new(program, &profiler);
    Ok((result, profile, timeline))
}
