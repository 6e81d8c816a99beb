//! The hooks a debugger run goes under: what makes it pause (a step count, a breakpoint,
//! a watchpoint, a trap, a call returning) and why it paused.

use super::parse::{Cond, Reg};
use warpkit_sim::hooks::{wrote, WatchTarget};
use warpkit_sim::launch::TrapReport;
use warpkit_sim::trap::{CAUSE_ACCESS_FAULT, CAUSE_MISALIGNED};
use warpkit_sim::{Control, Hooks, Program, Warp, WarpId, WarpStatus};

/// A breakpoint: a PC and maybe a condition.
#[derive(Debug, Clone)]
pub struct Breakpoint {
    pub id: u32,
    pub pc: u32,
    pub cond: Option<Cond>,
    /// How the user named it (`loop`, `k.s:12`, `0x40`).
    pub spec: String,
}

/// A watchpoint.
#[derive(Debug, Clone)]
pub struct Watch {
    pub id: u32,
    pub target: WatchTarget,
    pub spec: String,
}

/// What the run is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Until something stops it.
    Continue,
    /// Until warp `warp` has executed `left` more instructions.
    Step { warp: WarpId, left: u64 },
    /// Until `warp` is back at `pc` (the instruction after a call) at the call depth it
    /// started from: `depth` counts the calls (`jal`, `jalr`) it has made and not yet
    /// returned from (`jr`), so a recursive call passing the same `pc` does not stop it.
    Return { warp: WarpId, pc: u32, depth: u64 },
    /// Until `warp` executes a `jr` at call depth 0 (the return of the current function).
    Finish { warp: WarpId, depth: u64 },
}

/// Why the run paused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The step, `next` or `finish` is done.
    Done(WarpId),
    Breakpoint(u32, WarpId),
    /// Watchpoint `id` was written by `warp` at `pc`.
    Watch {
        id: u32,
        warp: WarpId,
        pc: u32,
    },
    Trap(Box<TrapReport>),
    /// The warp being stepped stopped (ended or hit its step limit) before it was done.
    Ended(WarpId),
    /// A warp has executed its `--max-steps` instructions: it stops at the step limit
    /// before its next one (the debugger marks it so and reports it at once).
    Limit(WarpId),
}

/// Whether the condition holds for `warp`.
pub fn holds(c: &Cond, warp: &Warp) -> bool {
    let exec = warp.exec();
    let one = |v: u64| c.cmp.holds(v, c.value);
    match c.reg {
        Reg::V(r) => warp.vreg(r as usize).is_some_and(|row| {
            row.iter()
                .enumerate()
                .any(|(l, &x)| (exec >> l) & 1 != 0 && one(u64::from(x)))
        }),
        Reg::VLane(r, l) => warp
            .vreg(r as usize)
            .is_some_and(|row| one(u64::from(row[l as usize]))),
        Reg::U(r) => warp.ureg(r as usize).is_some_and(|x| one(u64::from(x))),
        Reg::URange(a, _) => one(warp.u64(a as usize)),
        Reg::Pc => one(u64::from(warp.pc)),
        Reg::Exec => one(u64::from(exec)),
        Reg::Csr(_, n) => warp.csr.get(n).is_some_and(|x| one(u64::from(x))),
    }
}

/// The report `warpkit run` gives for a warp stopped by a trap.
pub fn trap_report(warp: &Warp, prog: &Program) -> Option<TrapReport> {
    let WarpStatus::Trapped(t) = warp.status else {
        return None;
    };
    Some(TrapReport {
        workgroup: warp.id.workgroup,
        warp: warp.id.warp,
        trap: t,
        asm: prog.disassemble(t.pc),
        address: match t.cause {
            CAUSE_MISALIGNED | CAUSE_ACCESS_FAULT => warp.fault_address,
            _ => None,
        },
    })
}

/// The debugger's hooks for one `continue`, `step`, `next` or `finish`.
pub struct DebugHooks<'a> {
    pub goal: Goal,
    pub breakpoints: &'a [Breakpoint],
    pub watches: &'a [Watch],
    /// Where the last pause left a warp before an instruction: no breakpoint stops there
    /// again.
    pub resume_from: Option<(WarpId, u64, u32)>,
    /// PCs of calls (`jal`, `jalr`) and returns (`jr`).
    pub calls: &'a [u32],
    pub returns: &'a [u32],
    pub stop: Option<Stop>,
    /// Set when the pause happened before an instruction: where.
    pub paused_before: Option<(WarpId, u64, u32)>,
    /// The per-warp step limit (`--max-steps`).
    pub max_steps: u64,
}

impl DebugHooks<'_> {
    fn pause(&mut self, warp: &Warp, pc: u32, why: Stop) -> Control {
        self.stop = Some(why);
        self.paused_before = Some((warp.id, warp.steps, pc));
        Control::Stop
    }
}

impl Hooks for DebugHooks<'_> {
    const ENABLED: bool = true;

    fn before(&mut self, warp: &Warp, _: &Program, pc: u32) -> Control {
        if self.stop.is_some() {
            // A trap or a stepped warp's end asked for a pause at the next instruction.
            self.paused_before = Some((warp.id, warp.steps, pc));
            return Control::Stop;
        }
        let here = (warp.id, warp.steps, pc);
        match self.goal {
            Goal::Step { warp: w, left: 0 } if w == warp.id => {
                return self.pause(warp, pc, Stop::Done(w));
            }
            Goal::Return {
                warp: w,
                pc: r,
                depth: 0,
            } if w == warp.id && r == pc => {
                return self.pause(warp, pc, Stop::Done(w));
            }
            _ => {}
        }
        if self.resume_from != Some(here) {
            for b in self.breakpoints {
                if b.pc == pc && b.cond.as_ref().is_none_or(|c| holds(c, warp)) {
                    let id = b.id;
                    return self.pause(warp, pc, Stop::Breakpoint(id, warp.id));
                }
            }
        }
        Control::Continue
    }

    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, _: u32) -> Control {
        if let Some(t) = trap_report(warp, prog) {
            self.stop = Some(Stop::Trap(Box::new(t)));
            return Control::Stop;
        }
        for w in self.watches {
            if wrote(warp, w.target) {
                self.stop = Some(Stop::Watch {
                    id: w.id,
                    warp: warp.id,
                    pc,
                });
                return Control::Stop;
            }
        }
        // The run loop stops the warp at its next instruction without a hook call; pause
        // now so the limit is reported when it is reached, not when the workgroup ends.
        if warp.status == WarpStatus::Running && warp.steps >= self.max_steps {
            self.stop = Some(Stop::Limit(warp.id));
            return Control::Stop;
        }
        match &mut self.goal {
            Goal::Step { warp: w, left } if *w == warp.id => {
                *left = left.saturating_sub(1);
                if matches!(warp.status, WarpStatus::Ended | WarpStatus::StepLimit) {
                    self.stop = Some(Stop::Ended(warp.id));
                    return Control::Stop;
                }
            }
            Goal::Finish { warp: w, depth } if *w == warp.id => {
                if self.calls.binary_search(&pc).is_ok() {
                    *depth += 1;
                } else if self.returns.binary_search(&pc).is_ok() {
                    if *depth == 0 {
                        self.stop = Some(Stop::Done(warp.id));
                        return Control::Stop;
                    }
                    *depth -= 1;
                }
                if warp.status == WarpStatus::Ended {
                    self.stop = Some(Stop::Ended(warp.id));
                    return Control::Stop;
                }
            }
            Goal::Return { warp: w, depth, .. } if *w == warp.id => {
                if self.calls.binary_search(&pc).is_ok() {
                    *depth += 1;
                } else if self.returns.binary_search(&pc).is_ok() {
                    *depth = depth.saturating_sub(1);
                }
                if warp.status == WarpStatus::Ended {
                    self.stop = Some(Stop::Ended(warp.id));
                    return Control::Stop;
                }
            }
            _ => {}
        }
        Control::Continue
    }
}
