//! Observation and control of a running warp. A [`Hooks`] value is a type parameter of
//! the run loop ([`crate::Warp::run`]): `before` sees every instruction before it executes
//! and may stop the run there; `after` sees it after it committed, with every register,
//! EXEC, CSR and memory write it made (recorded by the interpreter where the writes
//! happen, read through [`crate::Warp::written_vregs`] and its siblings). With
//! `ENABLED = false` ([`NoHooks`]) the loop contains no hook code at all.
//!
//! The commit trace ([`crate::WriteTracer`]), breakpoints ([`Breakpoints`]), watchpoints
//! ([`Watchpoints`]) and step budgets ([`StepBudget`]) are all hooks; two hooks run
//! together as a pair `(A, B)`.

use crate::control::Interrupt;
use crate::program::Program;
pub use crate::state::access::{LaneAccess, MemAccess, MemKind, MemSpace};
use crate::state::{Warp, WarpId};

/// What the run loop does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Go on with the next instruction.
    Continue,
    /// Return from the run loop, the warp still `Running`: a later run goes on from here.
    Stop,
}

/// What happens in the machine beyond commits, for observers that model time (a timing
/// model chooses issue order and counts cycles from these) or want the asynchronous
/// operations as they go. Delivered to [`Hooks::event`] when [`Hooks::EVENTS`] is set, in
/// this order for each instruction: `Issue`, `OperandsReady`, then the retirements and
/// issue of asynchronous operations it causes, `BarrierArrive` for a `barrier`, and
/// `Complete`. `docs/architecture.md`, "Execution events", has the details.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The instruction at `pc` issues, as the warp's `step`-th (from 1). Its registers are
    /// `Program::uses(pc)`, its latency its database entry's.
    Issue {
        /// The issuing warp.
        warp: WarpId,
        /// Byte offset of the instruction from CODE_BASE.
        pc: u32,
        /// Its ordinal among the warp's steps, from 1.
        step: u64,
    },
    /// Its source registers are read; `pending` of them still wait for an asynchronous
    /// write-back (a RAW hazard of §2.6: 0 in code that waits correctly).
    OperandsReady {
        /// The warp executing the instruction.
        warp: WarpId,
        /// PC of the instruction.
        pc: u32,
        /// Source registers still waiting for an asynchronous write-back.
        pending: u32,
    },
    /// An asynchronous operation issued by the instruction at `pc` joined counter
    /// `counter` (an index into `warpkit_isa::COUNTERS`).
    AsyncIssue {
        /// The issuing warp.
        warp: WarpId,
        /// PC of the issuing instruction.
        pc: u32,
        /// The counter the operation joined: an index into `warpkit_isa::COUNTERS` (§2.6).
        counter: u8,
    },
    /// An asynchronous operation issued by the instruction at `issued_at` retired from
    /// counter `counter`, its write-back done, during the instruction at `pc` (`waitcnt`,
    /// `endpgm`, or an issue on a counter at its in-flight limit).
    AsyncRetire {
        /// The warp whose operation retired.
        warp: WarpId,
        /// PC of the instruction during which it retired.
        pc: u32,
        /// PC of the instruction that issued it.
        issued_at: u32,
        /// The counter it left: an index into `warpkit_isa::COUNTERS` (§2.6).
        counter: u8,
    },
    /// The warp reached the `barrier` at `pc` and waits.
    BarrierArrive {
        /// The arriving warp.
        warp: WarpId,
        /// PC of the `barrier`.
        pc: u32,
    },
    /// The warps of `workgroup` waiting at a barrier were released (`warps` of them).
    BarrierRelease {
        /// The workgroup's id in the grid (x, y, z).
        workgroup: [u32; 3],
        /// How many warps were released.
        warps: u32,
    },
    /// The instruction at `pc` completed: its synchronous results are written (or it
    /// trapped, `trapped`).
    Complete {
        /// The warp that executed the instruction.
        warp: WarpId,
        /// PC of the instruction.
        pc: u32,
        /// Whether it raised a trap (taken by a handler or stopping the warp).
        trapped: bool,
    },
}

/// Observes and controls a warp's run loop. `ENABLED = false` removes every call at
/// compile time.
pub trait Hooks {
    /// Whether the run loop calls these hooks at all; `false` compiles every call out (as
    /// in [`NoHooks`]).
    const ENABLED: bool;

    /// Whether [`Hooks::event`] wants the execution events; with `false` (the default)
    /// the run loop builds none.
    const EVENTS: bool = false;

    /// Whether the memory instructions log their accesses for [`Hooks::after`]
    /// ([`Warp::mem_accesses`]); hooks that never read them (or compute the addresses
    /// themselves in [`Hooks::before`]) set `false`, so the memory instructions keep
    /// their fast paths and allocate nothing.
    const MEMORY_LOG: bool = true;

    /// An execution event ([`Event`]); called only when `EVENTS` (and `ENABLED`) is set.
    #[inline(always)]
    fn event(&mut self, prog: &Program, event: &Event) {
        let _ = (prog, event);
    }

    /// Called before the instruction at `pc` executes (after the step-limit check, before
    /// the step is counted or its hazards checked). `Stop` leaves the warp at `pc`,
    /// untouched.
    #[inline(always)]
    fn before(&mut self, warp: &Warp, prog: &Program, pc: u32) -> Control {
        let _ = (warp, prog, pc);
        Control::Continue
    }

    /// Called after the instruction at `pc` executed or trapped, with the EXEC it saw.
    /// The warp's write marks and logs describe what it did. `Stop` returns from the run
    /// loop before the next instruction.
    #[inline(always)]
    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        let _ = (warp, prog, pc, exec_before);
        Control::Continue
    }

    /// Called by a launch before workgroup `id` (flat index `flat`) runs its first
    /// instruction.
    #[inline(always)]
    fn begin_workgroup(&mut self, flat: u64, id: [u32; 3]) {
        let _ = (flat, id);
    }

    /// Called by a launch once workgroup `id` has run to its end (every warp ended,
    /// trapped, stopped at its step limit or deadlocked), with its warps' final state.
    #[inline(always)]
    fn end_workgroup(&mut self, id: [u32; 3], warps: &[Warp]) {
        let _ = (id, warps);
    }

    /// Whether the hooks need the whole run to stop (a trace sink failed or is full), and
    /// why. Asked after every observed instruction; unlike `Stop` (a pause, e.g. at a
    /// breakpoint), it ends the launch, which then reports the [`Interrupt`].
    #[inline(always)]
    fn interrupt(&self) -> Option<Interrupt> {
        None
    }
}

/// No hooks: the run loop of a plain run.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHooks;

impl Hooks for NoHooks {
    const ENABLED: bool = false;
}

impl<H: Hooks> Hooks for &mut H {
    const ENABLED: bool = H::ENABLED;
    const EVENTS: bool = H::EVENTS;
    const MEMORY_LOG: bool = H::MEMORY_LOG;
    #[inline(always)]
    fn event(&mut self, prog: &Program, event: &Event) {
        (**self).event(prog, event)
    }
    #[inline(always)]
    fn before(&mut self, warp: &Warp, prog: &Program, pc: u32) -> Control {
        (**self).before(warp, prog, pc)
    }
    #[inline(always)]
    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        (**self).after(warp, prog, pc, exec_before)
    }
    #[inline(always)]
    fn begin_workgroup(&mut self, flat: u64, id: [u32; 3]) {
        (**self).begin_workgroup(flat, id)
    }
    #[inline(always)]
    fn end_workgroup(&mut self, id: [u32; 3], warps: &[Warp]) {
        (**self).end_workgroup(id, warps)
    }
    #[inline(always)]
    fn interrupt(&self) -> Option<Interrupt> {
        (**self).interrupt()
    }
}

/// Both hooks; the run stops when either says so (`before` of the second is not called
/// when the first stops).
impl<A: Hooks, B: Hooks> Hooks for (A, B) {
    const ENABLED: bool = A::ENABLED || B::ENABLED;
    const EVENTS: bool = A::EVENTS || B::EVENTS;
    const MEMORY_LOG: bool = A::MEMORY_LOG || B::MEMORY_LOG;
    #[inline(always)]
    fn event(&mut self, prog: &Program, event: &Event) {
        if A::EVENTS {
            self.0.event(prog, event);
        }
        if B::EVENTS {
            self.1.event(prog, event);
        }
    }
    #[inline(always)]
    fn before(&mut self, warp: &Warp, prog: &Program, pc: u32) -> Control {
        if self.0.before(warp, prog, pc) == Control::Stop {
            return Control::Stop;
        }
        self.1.before(warp, prog, pc)
    }
    #[inline(always)]
    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        let a = self.0.after(warp, prog, pc, exec_before);
        let b = self.1.after(warp, prog, pc, exec_before);
        if a == Control::Stop || b == Control::Stop {
            Control::Stop
        } else {
            Control::Continue
        }
    }
    #[inline(always)]
    fn begin_workgroup(&mut self, flat: u64, id: [u32; 3]) {
        self.0.begin_workgroup(flat, id);
        self.1.begin_workgroup(flat, id);
    }
    #[inline(always)]
    fn end_workgroup(&mut self, id: [u32; 3], warps: &[Warp]) {
        self.0.end_workgroup(id, warps);
        self.1.end_workgroup(id, warps);
    }
    #[inline(always)]
    fn interrupt(&self) -> Option<Interrupt> {
        self.0.interrupt().or_else(|| self.1.interrupt())
    }
}

/// Stops before the instruction after `n` more have executed (over every warp it sees).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepBudget {
    /// Instructions still allowed: one less after each instruction; at 0 the run stops
    /// before the next.
    pub left: u64,
}

impl StepBudget {
    /// A budget of `n` instructions.
    pub fn new(n: u64) -> StepBudget {
        StepBudget { left: n }
    }
}

impl Hooks for StepBudget {
    const ENABLED: bool = true;
    fn before(&mut self, _: &Warp, _: &Program, _: u32) -> Control {
        if self.left == 0 {
            Control::Stop
        } else {
            Control::Continue
        }
    }
    fn after(&mut self, _: &Warp, _: &Program, _: u32, _: u32) -> Control {
        self.left = self.left.saturating_sub(1);
        Control::Continue
    }
}

/// Stops before an instruction at one of the PCs. A run resumed at the breakpoint it
/// stopped at executes that instruction instead of stopping again: the stop is keyed by
/// the warp and its step count, which only moves when an instruction executes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breakpoints {
    /// The PCs (byte offsets from CODE_BASE) to stop before.
    pub pcs: Vec<u32>,
    /// Restrict the breakpoints to one warp.
    pub warp: Option<WarpId>,
    /// Where the last stop happened: warp, its step count and the PC.
    pub hit: Option<(WarpId, u64, u32)>,
}

impl Breakpoints {
    /// Breakpoints at `pcs` for every warp, none hit yet.
    pub fn new(pcs: Vec<u32>) -> Breakpoints {
        Breakpoints {
            pcs,
            warp: None,
            hit: None,
        }
    }
}

impl Hooks for Breakpoints {
    const ENABLED: bool = true;
    fn before(&mut self, warp: &Warp, _: &Program, pc: u32) -> Control {
        if !self.pcs.contains(&pc) || self.warp.is_some_and(|w| w != warp.id) {
            return Control::Continue;
        }
        let here = (warp.id, warp.steps, pc);
        if self.hit == Some(here) {
            return Control::Continue;
        }
        self.hit = Some(here);
        Control::Stop
    }
}

/// What a watchpoint watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchTarget {
    /// One lane of a vector register.
    VLane {
        /// Vector register number (0..128).
        reg: u32,
        /// The lane (0..32).
        lane: u32,
    },
    /// Any lane of a vector register.
    VReg(u32),
    /// A uniform register, by number (0..64).
    UReg(u32),
    /// Bytes `addr..addr + len` of global or shared memory.
    Memory {
        /// Global or shared memory.
        space: MemSpace,
        /// First byte watched: a global address, or an offset into shared memory.
        addr: u64,
        /// Bytes watched from `addr`.
        len: u64,
    },
}

/// A watchpoint that fired: the target, the warp and the PC of the writing instruction
/// (for an asynchronous result, the instruction that retired it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchHit {
    /// The target that was written.
    pub target: WatchTarget,
    /// The warp whose instruction wrote it.
    pub warp: WarpId,
    /// PC of the writing instruction (for a retired asynchronous write-back, of the
    /// instruction that retired it).
    pub pc: u32,
}

/// Stops after an instruction that wrote a watched register lane or memory byte
/// (synchronous writes, retired asynchronous write-backs, stores and atomics).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Watchpoints {
    /// What to watch; when one instruction writes several, the first in this order fires.
    pub targets: Vec<WatchTarget>,
    /// The last watchpoint that fired, if any.
    pub hit: Option<WatchHit>,
}

impl Watchpoints {
    /// Watchpoints on `targets`, none fired yet.
    pub fn new(targets: Vec<WatchTarget>) -> Watchpoints {
        Watchpoints { targets, hit: None }
    }
}

/// Whether the last instruction of `warp` wrote `t`.
pub fn wrote(warp: &Warp, t: WatchTarget) -> bool {
    let exec = warp.exec();
    let retired_v = |reg: u32, lane: Option<u32>| {
        warp.retired_ops().iter().any(|op| match &op.writeback {
            crate::state::queue::Writeback::V {
                first, count, mask, ..
            } => {
                let r = u32::from(*first);
                (r..r + u32::from(*count)).contains(&reg)
                    && lane.map_or(*mask != 0, |l| (mask >> l) & 1 != 0)
            }
            _ => false,
        })
    };
    match t {
        WatchTarget::VLane { reg, lane } => {
            (reg < 128 && (warp.written_vregs() >> reg) & 1 != 0 && (exec >> lane) & 1 != 0)
                || retired_v(reg, Some(lane))
        }
        WatchTarget::VReg(reg) => {
            (reg < 128 && (warp.written_vregs() >> reg) & 1 != 0 && exec != 0)
                || retired_v(reg, None)
        }
        WatchTarget::UReg(reg) => {
            (reg < 64 && (warp.written_uregs() >> reg) & 1 != 0)
                || warp.retired_ops().iter().any(|op| match &op.writeback {
                    crate::state::queue::Writeback::U { first, count, .. } => {
                        let r = u32::from(*first);
                        (r..r + u32::from(*count)).contains(&reg)
                    }
                    _ => false,
                })
        }
        WatchTarget::Memory { space, addr, len } => warp.mem_accesses().iter().any(|m| {
            m.space == space
                && m.kind != MemKind::Load
                && m.lanes.iter().any(|l| l.overlaps(addr, len))
        }),
    }
}

impl Hooks for Watchpoints {
    const ENABLED: bool = true;
    fn after(&mut self, warp: &Warp, _: &Program, pc: u32, _: u32) -> Control {
        for &t in &self.targets {
            if wrote(warp, t) {
                self.hit = Some(WatchHit {
                    target: t,
                    warp: warp.id,
                    pc,
                });
                return Control::Stop;
            }
        }
        Control::Continue
    }
}
