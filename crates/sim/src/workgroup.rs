//! A workgroup: several warps interleaved on one host thread, with `barrier`.

use crate::env::{Core, Env};
use crate::program::Program;
use crate::trace::Tracer;
use crate::warp::{Warp, WarpId, WarpStatus};

/// The warps of one workgroup.
#[derive(Debug, Clone)]
pub struct Workgroup {
    pub id: [u32; 3],
    pub warps: Vec<Warp>,
}

/// How a run ended, over every warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunSummary {
    pub ended: usize,
    pub trapped: usize,
    pub step_limited: usize,
    /// Instructions retired by all warps.
    pub retired: u64,
}

impl RunSummary {
    /// Whether every warp ended with `endpgm`.
    pub fn all_ended(&self) -> bool {
        self.trapped == 0 && self.step_limited == 0
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
        Workgroup { id, warps }
    }

    /// Run every warp to its end. Warps take turns, each running until it stops; a
    /// `barrier` holds a warp until every live warp (not ended, not stopped by a trap or the
    /// step limit) has reached a barrier. The order is fixed, so results are deterministic.
    pub fn run<E: Env, T: Tracer>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        tracer: &mut T,
        max_steps_per_warp: u64,
    ) -> RunSummary {
        loop {
            for w in self.warps.iter_mut() {
                w.run(prog, core, env, tracer, max_steps_per_warp);
            }
            let waiting = self
                .warps
                .iter()
                .filter(|w| w.status == WarpStatus::AtBarrier)
                .count();
            if waiting == 0 {
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

    pub fn summary(&self) -> RunSummary {
        let mut s = RunSummary::default();
        for w in &self.warps {
            match w.status {
                WarpStatus::Ended => s.ended += 1,
                WarpStatus::Trapped(_) => s.trapped += 1,
                _ => s.step_limited += 1,
            }
            s.retired += w.retired;
        }
        s
    }
}
