//! A workgroup: several warps interleaved on one host thread, with `barrier`.

use crate::env::Env;
use crate::hooks::Hooks;
use crate::program::Program;
use crate::state::warp::{Warp, WarpId, WarpStatus};
use crate::state::Core;
use std::sync::atomic::{AtomicBool, Ordering};

/// The warps of one workgroup.
#[derive(Debug, Clone)]
pub struct Workgroup {
    pub id: [u32; 3],
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

/// How a run ended, over every warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunSummary {
    pub ended: usize,
    pub trapped: usize,
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
        let stop = |hooks: &H| cancel.load(Ordering::Relaxed) || hooks.interrupt().is_some();
        loop {
            for w in self.warps.iter_mut() {
                if stop(hooks) {
                    return self.summary();
                }
                match self.budget {
                    None => w.run_cancellable(prog, core, env, hooks, max_steps_per_warp, cancel),
                    Some(left) => {
                        let before = w.steps;
                        let cap = max_steps_per_warp.min(before.saturating_add(left));
                        w.run_cancellable(prog, core, env, hooks, cap, cancel);
                        self.budget = Some(left - (w.steps - before).min(left));
                    }
                }
                if w.status == WarpStatus::Running {
                    // Cancelled, or a hook stopped it (a pause): calling `run` again goes
                    // on exactly as if it had not stopped, since the warps before it in
                    // this round have already stopped.
                    return self.summary();
                }
            }
            if stop(hooks) {
                return self.summary();
            }
            let waiting = self
                .warps
                .iter()
                .filter(|w| w.status == WarpStatus::AtBarrier)
                .count();
            if waiting == 0 {
                break;
            }
            // Every warp has stopped: the others ended, trapped or hit the step limit.
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
