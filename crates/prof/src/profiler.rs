//! The observer: counts per instruction and per workgroup from the simulator's commit hook.

use crate::profile::Profile;
use crate::records::{Collected, Span, WorkgroupRecord};
use crate::timeline::Timeline;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use warpkit_isa::Flags;
use warpkit_sim::launch::{launch_observed, Arg, LaunchConfig, LaunchError, LaunchResult};
use warpkit_sim::{Code, Control, Hooks, Program, Warp, WarpStatus};

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
    counted: Collected,
    current: Option<Current>,
}

impl Profiler {
    fn new(program: &Program, thread: usize, seq: Arc<AtomicU64>, timeline: bool) -> Profiler {
        Profiler {
            timeline,
            thread,
            seq,
            counted: Collected::new(program.text().len().div_ceil(4)),
            current: None,
        }
    }

    fn merge(mut self, other: Profiler) -> Profiler {
        self.counted.merge(other.counted);
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
            self.counted.workgroups.push(cur.record);
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
        let Some(c) = self.counted.insts.get_mut((pc / 4) as usize) else {
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
                self.counted.lanes[lanes as usize] += 1;
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
        for (k, peak) in self.counted.peaks.iter_mut().enumerate() {
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
    profiler.counted.workgroups.sort_by_key(|w| w.flat);
    let timeline = timeline.then(|| Timeline::new(&profiler.counted.workgroups));
    let profile = Profile::new(program, &profiler.counted);
    Ok((result, profile, timeline))
}
