//! The interpreter: the run loop that steps a warp through a pre-decoded program, entering
//! translated code where it can, with the hooks chosen at compile time.

use crate::control::CANCEL_CHECK_INTERVAL;
use crate::engine::{Executor, Interpreter, Ran};
use crate::env::Env;
use crate::hooks::{Control, Event, Hooks};
use crate::program::{Code, Inst, Program};
use crate::state::{Core, Warp, WarpStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use warpkit_isa::Latency;

impl Warp {
    /// Run until the warp stops (end, trap, barrier), has attempted `max_steps`
    /// instructions in total (then the status is `StepLimit`), or a hook returns
    /// [`Control::Stop`] (then the status stays `Running`, and a later call goes on exactly
    /// where this one stopped). The hooks are chosen by the type `H`: with
    /// [`crate::NoHooks`] the loop has no hook code at all.
    pub fn run<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
    ) {
        self.run_cancellable(prog, core, env, hooks, max_steps, &crate::control::NEVER);
    }

    /// As [`Warp::run`], also returning, with the warp still `Running`, once `cancel` is
    /// set (looked at every [`crate::control::CANCEL_CHECK_INTERVAL`] instructions) or the
    /// hooks ask to stop the run ([`Hooks::interrupt`], after each instruction). Calling it
    /// again resumes.
    pub fn run_cancellable<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
        cancel: &AtomicBool,
    ) {
        let limits = Limits {
            max_steps,
            pause: u64::MAX,
        };
        self.run_within(prog, core, env, hooks, limits, cancel);
    }

    /// As [`Warp::run_cancellable`], returning with the warp `Running` once it has
    /// attempted `limits.pause` instructions in total (a scheduler's quantum).
    pub(crate) fn run_within<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        limits: Limits,
        cancel: &AtomicBool,
    ) {
        if self.status != WarpStatus::Running {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `run_avx2` only requires AVX2, which the processor was just found to
            // have. It is the same loop as below, its 32-lane rows compiled to 256-bit
            // vectors instead of baseline x86-64's 128-bit SSE2 (about twice as fast on
            // VALU-bound code, measured).
            unsafe { self.run_avx2(prog, core, env, hooks, limits, cancel) };
            return;
        }
        self.run_loop(prog, core, env, hooks, limits, cancel);
    }

    /// Execute one instruction through the same loop as [`Warp::run`] (step limit, hazard
    /// check, counts and hooks alike), then stop. Returns whether the warp is still
    /// `Running`. A step at the step limit executes nothing and sets `StepLimit`.
    pub fn step<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
    ) -> bool {
        let mut one = (crate::hooks::StepBudget::new(1), hooks);
        self.run(prog, core, env, &mut one, max_steps);
        self.status == WarpStatus::Running
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        limits: Limits,
        cancel: &AtomicBool,
    ) {
        self.run_loop(prog, core, env, hooks, limits, cancel);
    }

    #[inline(always)]
    fn run_loop<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        limits: Limits,
        cancel: &AtomicBool,
    ) {
        let Limits { max_steps, pause } = limits;
        // The step count lives in a register while the warp runs; `self.steps` is written
        // whenever something outside the loop may look at it.
        let mut steps = self.steps;
        // Always equal to `self.pc` here; kept in a register (see `step_at`).
        let mut pc = self.pc;
        // The loop compares the step count with one bound, the nearest of the step limit,
        // the pause and the next look at `cancel`, so neither cancellation nor a pause
        // adds anything per instruction.
        let next_bound = |steps: u64| {
            max_steps
                .min(pause)
                .min(steps.saturating_add(CANCEL_CHECK_INTERVAL))
        };
        let mut bound = next_bound(steps);
        // Translated code runs only where nothing observes single instructions.
        let translation = if H::ENABLED {
            None
        } else {
            crate::engine::jit::translation(prog)
        };
        loop {
            if steps >= bound {
                self.steps = steps;
                if steps >= max_steps {
                    self.status = WarpStatus::StepLimit;
                    return;
                }
                if steps >= pause || cancel.load(Ordering::Relaxed) {
                    return;
                }
                bound = next_bound(steps);
            }
            if let Some(t) = translation {
                // While stores are pending, every instruction is checked for hazards: that
                // is the interpreter's work.
                if !self.queue.watch {
                    if let Ran::Next { next, steps: used } =
                        t.run_from(self, prog, core, env, pc, bound - steps)
                    {
                        steps += used;
                        pc = next;
                        continue;
                    }
                }
                t.count_fallback(self, pc);
            }
            if H::ENABLED {
                self.steps = steps;
                if hooks.before(self, prog, pc) == Control::Stop {
                    return;
                }
            }
            steps += 1;
            if H::EVENTS {
                self.steps = steps;
                self.issue_events(prog, hooks, pc);
            }
            if self.queue.watch {
                self.check_hazards(prog, pc);
            }
            if H::ENABLED {
                self.steps = steps;
                let exec = self.exec();
                self.clear_marks();
                if !H::MEMORY_LOG {
                    // No log: the memory instructions take their fast paths.
                    self.mem_log = None;
                }
                let ran = Interpreter.run_from(self, prog, core, env, pc, 1);
                if H::EVENTS {
                    self.completion_events(prog, hooks, pc);
                }
                let control = hooks.after(self, prog, pc, exec);
                match ran {
                    Ran::Next { next, .. } if control == Control::Continue => pc = next,
                    _ => return,
                }
                if hooks.interrupt().is_some() {
                    return;
                }
            } else {
                match Interpreter.run_from(self, prog, core, env, pc, 1) {
                    Ran::Next { next, .. } => pc = next,
                    _ => {
                        self.steps = steps;
                        return;
                    }
                }
            }
        }
    }

    /// The events of an instruction's issue: `Issue`, then `OperandsReady` with the
    /// sources still waiting for a write-back.
    #[cold]
    fn issue_events<H: Hooks>(&self, prog: &Program, hooks: &mut H, pc: u32) {
        let warp = self.id;
        hooks.event(
            prog,
            &Event::Issue {
                warp,
                pc,
                step: self.steps,
            },
        );
        let pending = prog.uses(pc).map_or(0, |u| {
            (u.vread & self.queue.vpending).count_ones()
                + (u.uread & self.queue.upending).count_ones()
        });
        hooks.event(prog, &Event::OperandsReady { warp, pc, pending });
    }

    /// The events of an instruction's execution, in order: the asynchronous operations it
    /// retired (the retire log) and the one it issued, its arrival at a barrier, and its
    /// completion.
    #[cold]
    fn completion_events<H: Hooks>(&self, prog: &Program, hooks: &mut H, pc: u32) {
        let warp = self.id;
        for op in self.retired_ops() {
            hooks.event(
                prog,
                &Event::AsyncRetire {
                    warp,
                    pc,
                    issued_at: op.pc,
                    counter: op.counter,
                },
            );
        }
        let trapped = self.last_trap().is_some();
        if let Some(&Inst {
            code: Code::Op(op), ..
        }) = prog.fetch(pc)
        {
            if let (Latency::Async(counter), false) = (op.def().latency, trapped) {
                hooks.event(prog, &Event::AsyncIssue { warp, pc, counter });
            }
        }
        if self.status == WarpStatus::AtBarrier {
            hooks.event(prog, &Event::BarrierArrive { warp, pc });
        }
        hooks.event(prog, &Event::Complete { warp, pc, trapped });
    }
}

/// How far a run may go: the warp's step limit (reaching it sets `StepLimit`) and a pause
/// (reaching it returns with the warp `Running`, for a scheduler's quantum).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_steps: u64,
    pub pause: u64,
}
