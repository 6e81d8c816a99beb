//! A workgroup: several warps interleaved on one host thread, with `barrier`.

use crate::engine::Limits;
use crate::env::Env;
use crate::hooks::{Event, Hooks};
use crate::program::Program;
use crate::state::warp::{Warp, WarpId, WarpStatus};
use crate::state::Core;
use std::sync::atomic::{AtomicBool, Ordering};

/// The warps of one workgroup.
#[derive(Debug, Clone)]
pub struct Workgroup {
    /// The workgroup's id in the grid (x, y, z).
    pub id: [u32; 3],
    /// Its warps, by index within the workgroup.
    pub warps: Vec<Warp>,
    /// Set by [`Workgroup::run`] when warps wait at a `barrier` that a stopped sibling
    /// will never reach.
    pub deadlock: Option<Deadlock>,
    /// Steps all the warps together may still attempt (`--max-total-steps`); a warp that
    /// would go past it stops as at its own step limit. `None`: no such budget.
    pub budget: Option<u64>,
}

/// Warps stuck at a `barrier`: each sibling that has not reached it was stopped by a trap
/// or the step limit, so it never will. (A sibling that ended with `endpgm` no longer
/// counts, so it cannot cause a deadlock.)
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Deadlock {
    /// The waiting warps: index within the workgroup and the PC of the `barrier`.
    pub waiting: Vec<(u32, u32)>,
    /// Every other warp: index, how it stopped, and its PC (for a trap, the trap's PC).
    pub others: Vec<(u32, WarpStatus, u32)>,
}

/// The order in which a workgroup's warps issue.
pub trait Scheduler {
    /// The warp to run next (an index into `warps`; it must be `Running`) and the most
    /// instructions it may execute before the scheduler is asked again, or `None` when
    /// no warp is running (the workgroup then releases a barrier or ends).
    fn next(&mut self, warps: &[Warp]) -> Option<(usize, u64)>;
}

/// Each warp in turn, in index order, runs until it stops (ends, traps, reaches a barrier
/// or its step limit): the order of a functional run, and the fastest (a warp runs
/// without interruption, translated code included).
#[derive(Debug, Clone, Copy, Default)]
pub struct RunToStop;

impl Scheduler for RunToStop {
    #[inline]
    fn next(&mut self, warps: &[Warp]) -> Option<(usize, u64)> {
        let i = warps.iter().position(|w| w.status == WarpStatus::Running)?;
        Some((i, u64::MAX))
    }
}

/// One instruction at a time from each running warp in turn (loose round-robin issue).
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundRobin {
    last: Option<usize>,
}

impl Scheduler for RoundRobin {
    fn next(&mut self, warps: &[Warp]) -> Option<(usize, u64)> {
        let n = warps.len();
        let start = self.last.map_or(0, |l| l + 1);
        let i = (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| warps[i].status == WarpStatus::Running)?;
        self.last = Some(i);
        Some((i, 1))
    }
}

/// How a run ended, over every warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunSummary {
    /// Warps that ended with `endpgm`.
    pub ended: usize,
    /// Warps stopped by a trap.
    pub trapped: usize,
    /// Warps stopped by their step limit or the workgroup's step budget.
    pub step_limited: usize,
    /// Warps left waiting at a `barrier` (see [`Deadlock`]).
    pub deadlocked: usize,
    /// Warps stopped while still running by a cancellation or their tracer
    /// ([`crate::Interrupt`]).
    pub interrupted: usize,
    /// Instructions retired by all warps.
    pub retired: u64,
}

impl RunSummary {
    /// Whether every warp ended with `endpgm`.
    pub fn all_ended(&self) -> bool {
        self.trapped == 0 && self.step_limited == 0 && self.deadlocked == 0 && self.interrupted == 0
    }
}

impl Workgroup {
    /// A workgroup whose warp `i` starts at PC 0 with EXEC = `exec[i]`.
    pub fn new(id: [u32; 3], exec: &[u32]) -> Workgroup {
        let warps = exec
            .iter()
            .enumerate()
            .map(|(i, &e)| {
                Warp::new(
                    WarpId {
                        workgroup: id,
                        warp: i as u32,
                    },
                    e,
                )
            })
            .collect();
        Workgroup {
            id,
            warps,
            deadlock: None,
            budget: None,
        }
    }

    /// Run every warp to its end. Warps take turns, each running until it stops; a
    /// `barrier` holds a warp until every warp that has not ended (`endpgm`) has reached a
    /// barrier. When a sibling was stopped by a trap or the step limit instead, the waiting
    /// warps can never go on: they stay at the barrier and [`Workgroup::deadlock`] says
    /// why. The order is fixed, so results are deterministic.
    pub fn run<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps_per_warp: u64,
    ) -> RunSummary {
        self.run_cancellable(
            prog,
            core,
            env,
            hooks,
            max_steps_per_warp,
            &crate::control::NEVER,
        )
    }

    /// As [`Workgroup::run`], returning early, with the warps not yet stopped left
    /// `Running` (counted in [`RunSummary::interrupted`]), once `cancel` is set or the
    /// hooks ask to stop (see [`Warp::run_cancellable`]). A hook's [`crate::Control::Stop`]
    /// pauses the workgroup the same way: it returns with that warp `Running`, and a later
    /// call resumes as if nothing had stopped.
    pub fn run_cancellable<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps_per_warp: u64,
        cancel: &AtomicBool,
    ) -> RunSummary {
        self.run_scheduled(
            prog,
            core,
            env,
            hooks,
            max_steps_per_warp,
            cancel,
            &mut RunToStop,
        )
    }

    /// As [`Workgroup::run_cancellable`], the warps issuing in the order `scheduler`
    /// chooses. Whatever the order, a `barrier` holds a warp until every warp that has not
    /// ended has reached one; with [`RunToStop`] (the order of [`Workgroup::run`]) each
    /// warp in turn runs until it stops.
    #[allow(clippy::too_many_arguments)]
    pub fn run_scheduled<E: Env, H: Hooks, S: Scheduler>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps_per_warp: u64,
        cancel: &AtomicBool,
        scheduler: &mut S,
    ) -> RunSummary {
        let stop = |hooks: &H| cancel.load(Ordering::Relaxed) || hooks.interrupt().is_some();
        loop {
            if stop(hooks) {
                return self.summary();
            }
            if let Some((i, quantum)) = scheduler.next(&self.warps) {
                let Some(w) = self.warps.get_mut(i) else {
                    return self.summary();
                };
                if w.status != WarpStatus::Running {
                    return self.summary();
                }
                let before = w.steps;
                let mut max_steps = max_steps_per_warp;
                if let Some(left) = self.budget {
                    max_steps = max_steps.min(before.saturating_add(left));
                }
                let pause = before.saturating_add(quantum.max(1));
                w.run_within(prog, core, env, hooks, Limits { max_steps, pause }, cancel);
                if let Some(left) = self.budget {
                    self.budget = Some(left - (w.steps - before).min(left));
                }
                if w.status == WarpStatus::Running && w.steps < pause {
                    // Cancelled, or a hook stopped it (a pause): calling `run` again goes
                    // on exactly as if it had not stopped.
                    return self.summary();
                }
                continue;
            }
            // No warp is running: the others ended, trapped or hit the step limit.
            let waiting = self
                .warps
                .iter()
                .filter(|w| w.status == WarpStatus::AtBarrier)
                .count();
            if waiting == 0 {
                break;
            }
            // Releasing the waiters past a barrier a trapped or runaway sibling never
            // reached would let them read shared data it never wrote.
            let blocked = self
                .warps
                .iter()
                .any(|w| matches!(w.status, WarpStatus::Trapped(_) | WarpStatus::StepLimit));
            if blocked {
                self.deadlock = Some(self.deadlock_report());
                break;
            }
            for w in self.warps.iter_mut() {
                if w.status == WarpStatus::AtBarrier {
                    w.status = WarpStatus::Running;
                }
            }
            if H::EVENTS {
                let release = Event::BarrierRelease {
                    workgroup: self.id,
                    warps: waiting as u32,
                };
                hooks.event(prog, &release);
            }
        }
        self.summary()
    }

    fn deadlock_report(&self) -> Deadlock {
        let mut d = Deadlock {
            waiting: Vec::new(),
            others: Vec::new(),
        };
        for (i, w) in self.warps.iter().enumerate() {
            let i = i as u32;
            match w.status {
                // The PC is already past the 4-byte `barrier`.
                WarpStatus::AtBarrier => d.waiting.push((i, w.pc.wrapping_sub(4))),
                WarpStatus::Trapped(t) => d.others.push((i, w.status, t.pc)),
                status => d.others.push((i, status, w.pc)),
            }
        }
        d
    }

    /// How the warps stand now, counted by status, with the instructions they retired.
    pub fn summary(&self) -> RunSummary {
        let mut s = RunSummary::default();
        for w in &self.warps {
            match w.status {
                WarpStatus::Ended => s.ended += 1,
                WarpStatus::Trapped(_) => s.trapped += 1,
                // Without a deadlock, warps wait at a barrier only in an interrupted run.
                WarpStatus::AtBarrier if self.deadlock.is_some() => s.deadlocked += 1,
                WarpStatus::AtBarrier => s.interrupted += 1,
                WarpStatus::StepLimit => s.step_limited += 1,
                WarpStatus::Running => s.interrupted += 1,
            }
            s.retired += w.retired;
        }
        s
    }
}
