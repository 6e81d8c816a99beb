//! The interpreter: the run loop that steps a warp through a pre-decoded program, entering
//! translated code where it can, with the hooks chosen at compile time.

use crate::control::CANCEL_CHECK_INTERVAL;
use crate::env::Env;
use crate::hooks::{Control, Hooks};
use crate::program::Program;
use crate::state::{Core, Warp, WarpStatus};
use std::sync::atomic::{AtomicBool, Ordering};

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
        if self.status != WarpStatus::Running {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `run_avx2` only requires AVX2, which the processor was just found to
            // have. It is the same loop as below, its 32-lane rows compiled to 256-bit
            // vectors instead of baseline x86-64's 128-bit SSE2 (about twice as fast on
            // VALU-bound code, measured).
            unsafe { self.run_avx2(prog, core, env, hooks, max_steps, cancel) };
            return;
        }
        self.run_loop(prog, core, env, hooks, max_steps, cancel);
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
        max_steps: u64,
        cancel: &AtomicBool,
    ) {
        self.run_loop(prog, core, env, hooks, max_steps, cancel);
    }

    #[inline(always)]
    fn run_loop<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
        cancel: &AtomicBool,
    ) {
        // The step count lives in a register while the warp runs; `self.steps` is written
        // whenever something outside the loop may look at it.
        let mut steps = self.steps;
        // Always equal to `self.pc` here; kept in a register (see `step_at`).
        let mut pc = self.pc;
        // The loop compares the step count with one bound, the nearer of the step limit and
        // the next look at `cancel`, so cancellation adds nothing per instruction.
        let mut bound = max_steps.min(steps.saturating_add(CANCEL_CHECK_INTERVAL));
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
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                bound = max_steps.min(steps.saturating_add(CANCEL_CHECK_INTERVAL));
            }
            if let Some(t) = translation {
                // While stores are pending, every instruction is checked for hazards: that
                // is the interpreter's work.
                if !self.queue.watch {
                    if let Some((next, used)) = t.run(self, core, pc, bound - steps, env) {
                        steps += used;
                        pc = next;
                        continue;
                    }
                }
            }
            if H::ENABLED {
                self.steps = steps;
                if hooks.before(self, prog, pc) == Control::Stop {
                    return;
                }
            }
            steps += 1;
            if self.queue.watch {
                self.check_hazards(prog, pc);
            }
            if H::ENABLED {
                self.steps = steps;
                let exec = self.exec();
                self.clear_marks();
                let going = self.step_at(pc, prog, core, env);
                let control = hooks.after(self, prog, pc, exec);
                match going {
                    Some(next) if control == Control::Continue => pc = next,
                    _ => return,
                }
                if hooks.interrupt().is_some() {
                    return;
                }
            } else {
                match self.step_at(pc, prog, core, env) {
                    Some(next) => pc = next,
                    None => {
                        self.steps = steps;
                        return;
                    }
                }
            }
        }
    }
}
