//! [`Stepper`]: a launch run instruction by instruction, for front ends that drive the
//! model from outside (the Python `Simulator`, the C co-simulation API, `warpkit debug`).
//! It is a [`Session`] of the model observed by its hooks ([`StepBudget`], [`Breakpoints`], the
//! commit capture of the trace), so every step is the instruction a plain or traced run
//! executes at that point, in the same order, and its [`Commit`] is the record
//! `warpkit run --trace` writes for it.

use crate::launch::Prepared;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use warpkit_sim::hooks::{Breakpoints, Control, Hooks, StepBudget};
use warpkit_sim::launch::{LaunchConfig, LaunchError, LaunchResult, Progress, Session};
use warpkit_sim::memory::{ScratchMemory, SharedMemory, Space, SCRATCH_BASE};
use warpkit_sim::{CancelFlag, Commit, Deadlock, Interrupt, Program, Warp, WarpId};

/// Where a [`Stepper`] stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepState {
    /// More instructions are to run (nothing has run yet, or a step or stop paused it).
    Paused,
    /// Every workgroup has run to its end (ended, trapped, stopped by the step limit or
    /// deadlocked): [`Stepper::finish`] gives the result.
    Finished,
}

/// Why a call to [`Stepper::step`] or [`Stepper::run_until`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The requested number of instructions ran.
    Steps,
    /// A warp is about to execute the instruction at a requested PC (not yet executed).
    Breakpoint {
        /// The warp that reached the breakpoint.
        warp: WarpId,
        /// The breakpoint's PC: byte offset in `.text`.
        pc: u32,
    },
    /// Every workgroup has run.
    Finished,
    /// [`Stepper::interrupter`] was set (e.g. Ctrl-C): the run stopped between two
    /// instructions within a few thousand of them, and may be resumed.
    Interrupted,
}

/// Why a register or memory access was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Every workgroup has run, so there are no warps or shared memory to access.
    #[error("no workgroup is running (the launch has finished)")]
    NoWorkgroup,
    /// The warp index is not below the running workgroup's warp count.
    #[error("warp {warp}: the running workgroup has {warps} warps")]
    NoSuchWarp {
        /// The index asked for.
        warp: u32,
        /// Warps in the running workgroup.
        warps: usize,
    },
    /// The warp belongs to a workgroup other than the running one.
    #[error("warp {warp:?} is not in the running workgroup {current:?}")]
    NotCurrent {
        /// The warp asked for.
        warp: WarpId,
        /// Coordinates of the running workgroup.
        current: [u32; 3],
    },
    /// A vector register number of 128 or more.
    #[error("v{0}: there are 128 vector registers")]
    NoSuchVreg(u32),
    /// A uniform register number of 64 or more.
    #[error("u{0}: there are 64 uniform registers")]
    NoSuchUreg(u32),
    /// A lane number of 32 or more.
    #[error("lane {0}: a warp has 32 lanes")]
    NoSuchLane(u32),
    /// The CSR number is not one a `csrr` can read.
    #[error("CSR {0:#x} cannot be read")]
    NoSuchCsr(u32),
    /// Some byte of the range is not mapped global memory (or the range wraps); nothing
    /// was read or written.
    #[error("{len} bytes at {addr:#x} are not all mapped global memory")]
    Unmapped {
        /// Start address of the range.
        addr: u64,
        /// Length of the range in bytes.
        len: u64,
    },
    /// The range reaches past the running workgroup's shared memory; nothing was read or
    /// written.
    #[error(
        "{len} bytes at offset {addr:#x} are outside the workgroup's {size} bytes of shared memory"
    )]
    OutsideShared {
        /// Start offset of the range in shared memory.
        addr: u64,
        /// Length of the range in bytes.
        len: u64,
        /// The workgroup's shared memory in bytes.
        size: u64,
    },
}

/// A launch run step by step on the calling thread.
pub struct Stepper {
    /// Borrows `*program` (declared first: dropped before it).
    session: Session<'static>,
    program: Arc<Program>,
    interrupt: Arc<AtomicBool>,
    /// The launch came with its own cancel flag (a front end's signal handler), which
    /// the session keeps; `interrupt` then stops the run through the hooks.
    launch_cancel: bool,
    state: StepState,
    /// Instructions executed so far, over every warp.
    executed: u64,
    /// The last breakpoint stop, so resuming there executes the instruction.
    bp_hit: Option<(WarpId, u64, u32)>,
}

/// Stops the run when the stepper's interrupter is set, for a session whose cancel flag
/// is the launch's own.
struct Interrupter<'a>(&'a AtomicBool);

impl Hooks for Interrupter<'_> {
    const ENABLED: bool = true;
    fn interrupt(&self) -> Option<Interrupt> {
        self.0
            .load(Ordering::Relaxed)
            .then_some(Interrupt::Cancelled)
    }
}

/// Collects the commit of every executed instruction.
struct Capture<'a>(&'a mut Vec<Commit>);

impl Hooks for Capture<'_> {
    const ENABLED: bool = true;
    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        self.0.push(Commit::capture(warp, prog, pc, exec_before));
        Control::Continue
    }
}

impl Stepper {
    /// A stepper at the start of `prepared`'s launch; nothing runs yet.
    pub fn new(prepared: Prepared) -> Result<Stepper, LaunchError> {
        let (program, mut config, args) = prepared.into_parts();
        let interrupt = Arc::new(AtomicBool::new(false));
        let launch_cancel = config.cancel.is_some();
        if !launch_cancel {
            config.cancel = Some(CancelFlag::from_arc(interrupt.clone()));
        }
        let program = Arc::new(program);
        // SAFETY: the session borrows the program behind the `Arc`, which this stepper
        // owns and never gives away or mutates; the heap value does not move when the
        // stepper does, and `session` is dropped before `program` (field order). The
        // `'static` reference never leaves this module.
        let prog: &'static Program = unsafe { &*Arc::as_ptr(&program) };
        let session = Session::new(prog, &config, args)?;
        Ok(Stepper {
            session,
            program,
            interrupt,
            launch_cancel,
            state: StepState::Paused,
            executed: 0,
            bp_hit: None,
        })
    }

    /// The flag that stops a running [`Stepper::step`] or [`Stepper::run_until`] from
    /// another thread; it is cleared when the call returns. A cancel flag given to the
    /// launch ([`crate::Launch::cancel`]) stops a call too, and is left as it is.
    pub fn interrupter(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Whether instructions remain to run.
    pub fn state(&self) -> StepState {
        self.state
    }

    /// The pre-decoded program the launch runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Instructions executed so far (every warp, trapping ones included).
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Workgroups in the grid.
    pub fn workgroups(&self) -> u64 {
        self.session.workgroups()
    }

    /// The launch's configuration (grid, block, step limits).
    pub fn config(&self) -> &LaunchConfig {
        self.session.config()
    }

    /// Pause when a workgroup has run to its end, before the next one starts, so a
    /// debugger can show its final state and reports; see
    /// `Session::set_pause_at_workgroup_end`. [`Stepper::step`] may then stop short of
    /// its count at a workgroup's end.
    pub fn pause_at_workgroup_end(&mut self, on: bool) {
        self.session.set_pause_at_workgroup_end(on);
    }

    /// Whether the run is paused at the end of the running workgroup
    /// ([`Stepper::pause_at_workgroup_end`]).
    pub fn at_workgroup_end(&self) -> bool {
        self.session.at_workgroup_end()
    }

    /// Run under `hooks` (a front end's own breakpoints, watchpoints or step goals) until
    /// one of them pauses the run, every workgroup has run, or the interrupter is set.
    /// The instructions it runs count in [`Stepper::executed`].
    pub fn run_observed<H: Hooks>(&mut self, hooks: &mut H) -> Progress {
        if self.state == StepState::Finished {
            return Progress::Finished;
        }
        // A budget that never runs out, only to count what executed.
        let mut counted = (StepBudget::new(u64::MAX), hooks);
        let p = self.run(&mut counted);
        self.executed += u64::MAX - counted.0.left;
        p
    }

    fn run<H: Hooks>(&mut self, hooks: &mut H) -> Progress {
        let p = if self.launch_cancel {
            self.session.run(&mut (Interrupter(&self.interrupt), hooks))
        } else {
            self.session.run(hooks)
        };
        self.interrupt.store(false, Ordering::Relaxed);
        if p == Progress::Finished {
            self.state = StepState::Finished;
        }
        p
    }

    /// Execute up to `n` instructions, appending their commits to `out` in execution
    /// order (the order of `warpkit run --trace`).
    pub fn step(&mut self, n: u64, out: &mut Vec<Commit>) -> StopReason {
        if self.state == StepState::Finished {
            return StopReason::Finished;
        }
        let before = out.len();
        let mut hooks = (StepBudget::new(n), Capture(out));
        let p = self.run(&mut hooks);
        self.executed += (out.len() - before) as u64;
        match p {
            Progress::Finished => StopReason::Finished,
            Progress::Interrupted => StopReason::Interrupted,
            Progress::Paused => StopReason::Steps,
        }
    }

    /// Execute the next instruction; `None` once every workgroup has run (or if
    /// interrupted before it).
    pub fn next_commit(&mut self) -> Option<Commit> {
        let mut out = Vec::with_capacity(1);
        self.step(1, &mut out);
        out.pop()
    }

    /// Run until a warp (`warp`, or any) is about to execute an instruction at one of
    /// `pcs`, at most `max_steps` instructions (`None`: no limit) have run, or every
    /// workgroup has. Returns why it stopped and how many instructions ran. A call that
    /// starts at the breakpoint it last stopped at executes that instruction first.
    pub fn run_until(
        &mut self,
        pcs: &[u32],
        warp: Option<WarpId>,
        max_steps: Option<u64>,
    ) -> (StopReason, u64) {
        if self.state == StepState::Finished {
            return (StopReason::Finished, 0);
        }
        let budget = max_steps.unwrap_or(u64::MAX);
        let mut bp = Breakpoints::new(pcs.to_vec());
        bp.warp = warp;
        bp.hit = self.bp_hit;
        let mut hooks = (bp, StepBudget::new(budget));
        let p = self.run(&mut hooks);
        let ran = budget - hooks.1.left;
        self.executed += ran;
        let reason = match p {
            Progress::Finished => StopReason::Finished,
            Progress::Interrupted => StopReason::Interrupted,
            Progress::Paused if hooks.0.hit != self.bp_hit => {
                let (warp, _, pc) = hooks.0.hit.expect("a new breakpoint hit");
                StopReason::Breakpoint { warp, pc }
            }
            Progress::Paused => StopReason::Steps,
        };
        self.bp_hit = hooks.0.hit;
        (reason, ran)
    }

    /// The running workgroup: its coordinates and warps (`None` once finished).
    pub fn current(&self) -> Option<([u32; 3], &[Warp])> {
        self.session
            .current()
            .map(|(_, wg)| (wg.id, wg.warps.as_slice()))
    }

    /// The flat index of the running workgroup.
    pub fn current_flat(&self) -> Option<u64> {
        self.session.current().map(|(flat, _)| flat)
    }

    /// Start the next workgroup if none is running, so its warps can be read and written
    /// before its first instruction; false when every one has run.
    pub fn ensure_started(&mut self) -> bool {
        self.state != StepState::Finished && self.session.ensure_started()
    }

    /// Warp `index` of the running workgroup.
    pub fn warp(&mut self, index: u32) -> Result<&Warp, StateError> {
        self.warp_mut(index).map(|w| &*w)
    }

    /// Warp `index` of the running workgroup, to change its registers.
    pub fn warp_mut(&mut self, index: u32) -> Result<&mut Warp, StateError> {
        if !self.ensure_started() {
            return Err(StateError::NoWorkgroup);
        }
        let wg = self.session.current_mut().ok_or(StateError::NoWorkgroup)?;
        let warps = wg.warps.len();
        wg.warps
            .get_mut(index as usize)
            .ok_or(StateError::NoSuchWarp { warp: index, warps })
    }

    /// The index of `id` in the running workgroup.
    pub fn warp_index(&mut self, id: WarpId) -> Result<u32, StateError> {
        if !self.ensure_started() {
            return Err(StateError::NoWorkgroup);
        }
        let (current, _) = self.current().ok_or(StateError::NoWorkgroup)?;
        if current != id.workgroup {
            return Err(StateError::NotCurrent { warp: id, current });
        }
        Ok(id.warp)
    }

    /// Warp `id`, if its workgroup is the running one. Unlike [`Stepper::warp`] this
    /// starts no workgroup, so it needs only `&self`.
    pub fn warp_by_id(&self, id: WarpId) -> Result<&Warp, StateError> {
        let (current, warps) = self.current().ok_or(StateError::NoWorkgroup)?;
        if current != id.workgroup {
            return Err(StateError::NotCurrent { warp: id, current });
        }
        warps.get(id.warp as usize).ok_or(StateError::NoSuchWarp {
            warp: id.warp,
            warps: warps.len(),
        })
    }

    /// The running workgroup's deadlock, once its warps wait at a barrier that a stopped
    /// sibling will never reach.
    pub fn deadlock(&self) -> Option<&Deadlock> {
        self.session
            .current()
            .and_then(|(_, wg)| wg.deadlock.as_ref())
    }

    /// Vector register `reg` of warp `index`, 32 lanes.
    pub fn vreg(&mut self, index: u32, reg: u32) -> Result<[u32; 32], StateError> {
        let w = self.warp(index)?;
        w.vreg(reg as usize)
            .copied()
            .ok_or(StateError::NoSuchVreg(reg))
    }

    /// Set lane `lane` of vector register `reg` of warp `index`.
    pub fn set_vreg_lane(
        &mut self,
        index: u32,
        reg: u32,
        lane: u32,
        value: u32,
    ) -> Result<(), StateError> {
        if reg >= warpkit_sim::NUM_VREGS as u32 {
            return Err(StateError::NoSuchVreg(reg));
        }
        if lane >= warpkit_sim::LANES as u32 {
            return Err(StateError::NoSuchLane(lane));
        }
        self.warp_mut(index)?
            .set_vreg_lane(reg as usize, lane as usize, value);
        Ok(())
    }

    /// Uniform register `reg` of warp `index`.
    pub fn ureg(&mut self, index: u32, reg: u32) -> Result<u32, StateError> {
        self.warp(index)?
            .ureg(reg as usize)
            .ok_or(StateError::NoSuchUreg(reg))
    }

    /// Set uniform register `reg` of warp `index` to `value`.
    pub fn set_ureg(&mut self, index: u32, reg: u32, value: u32) -> Result<(), StateError> {
        if !self.warp_mut(index)?.set_ureg(reg as usize, value) {
            return Err(StateError::NoSuchUreg(reg));
        }
        Ok(())
    }

    /// CSR `number` of warp `index`, as a `csrr` would read it there.
    pub fn read_csr(&mut self, index: u32, number: u32) -> Result<u32, StateError> {
        self.warp(index)?;
        let core = self.session.core().ok_or(StateError::NoWorkgroup)?;
        let warp = self
            .session
            .current()
            .and_then(|(_, wg)| wg.warps.get(index as usize))
            .ok_or(StateError::NoWorkgroup)?;
        warp.csr_read(number, core)
            .ok_or(StateError::NoSuchCsr(number))
    }

    /// Read `size` bytes at `addr` of the global address space: global memory, or the
    /// running workgroup's scratch.
    fn read_global(&self, addr: u64, size: u32, out: &mut [u32]) -> Result<(), ()> {
        if addr >= SCRATCH_BASE {
            let none = ScratchMemory::none();
            let scratch = self.session.scratch().unwrap_or(&none);
            scratch.read(addr, size, out).map_err(|_| ())
        } else {
            self.session
                .global()
                .read_shared(addr, size, out)
                .map_err(|_| ())
        }
    }

    /// `len` bytes of global memory at `addr` (code, argument block, buffers, and the
    /// running workgroup's scratch memory).
    pub fn read_memory(&self, addr: u64, len: u64) -> Result<Vec<u8>, StateError> {
        let bad = StateError::Unmapped { addr, len };
        let end = addr.checked_add(len).ok_or(bad.clone())?;
        let mut out = Vec::with_capacity(len.min(1 << 24) as usize);
        let mut word = [0u32; 1];
        let mut a = addr;
        while a < end {
            // Whole words where aligned, bytes at the edges.
            if a.is_multiple_of(4) && end - a >= 4 {
                self.read_global(a, 4, &mut word).map_err(|_| bad.clone())?;
                out.extend_from_slice(&word[0].to_le_bytes());
                a += 4;
            } else {
                self.read_global(a, 1, &mut word).map_err(|_| bad.clone())?;
                out.push(word[0] as u8);
                a += 1;
            }
        }
        Ok(out)
    }

    /// Write `bytes` to global memory at `addr` (the running workgroup's scratch memory
    /// included); nothing is written unless every byte is mapped.
    pub fn write_memory(&mut self, addr: u64, bytes: &[u8]) -> Result<(), StateError> {
        let len = bytes.len() as u64;
        self.read_memory(addr, len)?;
        let none = ScratchMemory::none();
        let scratch = self.session.scratch().unwrap_or(&none);
        for (i, &b) in bytes.iter().enumerate() {
            let a = addr + i as u64;
            let written = if a >= SCRATCH_BASE {
                scratch.write(a, 1, &[u32::from(b)])
            } else {
                self.session.global().write_shared(a, 1, &[u32::from(b)])
            };
            written.map_err(|_| StateError::Unmapped { addr, len })?;
        }
        Ok(())
    }

    fn shared_memory(&mut self) -> Result<&mut SharedMemory, StateError> {
        if !self.ensure_started() {
            return Err(StateError::NoWorkgroup);
        }
        self.session.shared_mut().ok_or(StateError::NoWorkgroup)
    }

    /// `len` bytes of the running workgroup's shared memory at byte offset `addr`.
    pub fn read_shared(&mut self, addr: u64, len: u64) -> Result<Vec<u8>, StateError> {
        let shared = self.shared_memory()?;
        let size = shared.len();
        if addr.checked_add(len).is_none_or(|end| end > size) {
            return Err(StateError::OutsideShared { addr, len, size });
        }
        let mut word = [0u32; 1];
        (addr..addr + len)
            .map(|a| {
                shared
                    .read(a, 1, &mut word)
                    .map(|()| word[0] as u8)
                    .map_err(|_| StateError::OutsideShared { addr, len, size })
            })
            .collect()
    }

    /// Write `bytes` to the running workgroup's shared memory at byte offset `addr`.
    pub fn write_shared(&mut self, addr: u64, bytes: &[u8]) -> Result<(), StateError> {
        let shared = self.shared_memory()?;
        let size = shared.len();
        let len = bytes.len() as u64;
        if addr.checked_add(len).is_none_or(|end| end > size) {
            return Err(StateError::OutsideShared { addr, len, size });
        }
        for (i, &b) in bytes.iter().enumerate() {
            shared
                .write(addr + i as u64, 1, &[u32::from(b)])
                .map_err(|_| StateError::OutsideShared { addr, len, size })?;
        }
        Ok(())
    }

    /// The buffer arguments: name and address.
    pub fn buffers(&self) -> &[(String, u64)] {
        self.session.buffers()
    }

    /// Run nothing more: the result of the workgroups that ran, as [`Prepared::run`]
    /// reports a launch (marked interrupted when workgroups are left).
    pub fn finish(self) -> LaunchResult {
        self.session.finish()
    }

    /// Run every remaining instruction (unobserved but for the interrupter), then
    /// finish.
    pub fn run_to_end(&mut self) -> StopReason {
        self.run_until(&[], None, None).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ArgValue, Launch, Limits};
    use warpkit_sim::VecTracer;

    const VADD: &str = include_str!("../../../examples/vadd.s");

    fn vadd_launch(n: u32) -> Launch {
        let mut l = Launch::new(Limits::default());
        l.grid([n.div_ceil(64), 1, 1])
            .unwrap()
            .block([64, 1, 1])
            .unwrap();
        let words = |f: &dyn Fn(u32) -> u32| -> Vec<u8> {
            (0..n).flat_map(|i| f(i).to_le_bytes()).collect()
        };
        l.arg("a", ArgValue::Buffer(words(&|i| i))).unwrap();
        l.arg("b", ArgValue::Buffer(words(&|i| 3 * i))).unwrap();
        l.zeroed_buffer("out", 4 * u64::from(n)).unwrap();
        l.arg("n", ArgValue::Int(u64::from(n))).unwrap();
        l
    }

    fn kernel() -> warpkit_asm::Program {
        warpkit_asm::assemble(VADD, "vadd.s").unwrap()
    }

    #[test]
    fn stepping_gives_the_traced_commits_and_result() {
        let k = kernel();
        let mut traced = VecTracer::default();
        let plain = vadd_launch(100)
            .prepare(&k)
            .unwrap()
            .run_with_tracer(&mut traced)
            .unwrap();
        let mut s = Stepper::new(vadd_launch(100).prepare(&k).unwrap()).unwrap();
        let mut commits = Vec::new();
        let mut n = 1;
        while s.step(n, &mut commits) == StopReason::Steps {
            n = n % 7 + 1;
        }
        assert_eq!(s.state(), StepState::Finished);
        assert_eq!(commits, traced.commits);
        assert_eq!(s.executed(), commits.len() as u64);
        let r = s.finish();
        assert!(r.ok());
        assert_eq!(r.buffer("out"), plain.buffer("out"));
        assert_eq!(r.stats.instructions, plain.stats.instructions);
    }

    #[test]
    fn breakpoints_stop_before_and_resume_past() {
        let k = kernel();
        let mut s = Stepper::new(vadd_launch(128).prepare(&k).unwrap()).unwrap();
        // The final `endpgm`.
        let pc = k.text.len() as u32 - 4;
        let (why, ran) = s.run_until(&[pc], None, None);
        let StopReason::Breakpoint { warp, pc: at } = why else {
            panic!("{why:?}");
        };
        assert_eq!((warp.warp, at), (0, pc));
        assert!(ran > 0);
        assert_eq!(s.current().unwrap().1[0].pc, pc);
        // Resuming executes the instruction at the breakpoint, then reaches warp 1's.
        let (why, _) = s.run_until(&[pc], None, None);
        assert!(matches!(why, StopReason::Breakpoint { warp, .. } if warp.warp == 1));
        assert_eq!(s.run_until(&[], None, Some(3)), (StopReason::Steps, 3));
        assert_eq!(s.run_to_end(), StopReason::Finished);
        assert!(s.finish().ok());
    }

    #[test]
    fn registers_and_memory_are_read_and_written() {
        let k = kernel();
        let mut s = Stepper::new(vadd_launch(32).prepare(&k).unwrap()).unwrap();
        let [a, b, out] = [0, 1, 2].map(|i| s.buffers()[i].1);
        assert_eq!(s.read_memory(b + 4, 4).unwrap(), 3u32.to_le_bytes());
        // b[1] = 100 before the kernel reads it; v3 holds the thread ids.
        s.write_memory(b + 4, &100u32.to_le_bytes()).unwrap();
        assert_eq!(s.vreg(0, 3).unwrap()[5], 5);
        s.set_vreg_lane(0, 200, 0, 1).unwrap_err();
        assert_eq!(s.run_to_end(), StopReason::Finished);
        let r = s.finish();
        let o = r.buffer("out").unwrap();
        assert_eq!(&o[4..8], &101u32.to_le_bytes());
        assert!(matches!(
            Stepper::new(vadd_launch(32).prepare(&k).unwrap())
                .unwrap()
                .read_memory(a - 4, 8),
            Err(StateError::Unmapped { .. })
        ));
        let _ = out;
    }

    #[test]
    fn the_running_workgroups_scratch_is_read_and_written() {
        // Each lane adds 1 to its slot 0 and stores it to `out`.
        let k = warpkit_asm::assemble(
            "csrr u20, scratch_lo\ncsrr u21, scratch_hi\nlaneid v4\nsll.vi v4, v4, 2\n\
             gload.b32 v5, v4, u[20:21], 0\nuload.b64 u[16:17], u[0:1], 0\n\
             waitcnt vm=0, sm=0\nadd.vi v5, v5, 1\ngstore.b32 v5, v4, u[16:17], 0\nendpgm\n",
            "k.s",
        )
        .unwrap();
        let mut l = Launch::new(Limits::default());
        l.grid([2, 1, 1]).unwrap().scratch(4).unwrap();
        l.zeroed_buffer("out", 128).unwrap();
        let mut s = Stepper::new(l.prepare(&k).unwrap()).unwrap();
        assert!(s.ensure_started());
        let base = warpkit_sim::memory::scratch_base(0, 0);
        assert_eq!(s.read_memory(base, 8).unwrap(), [0; 8]);
        s.write_memory(base + 4, &41u32.to_le_bytes()).unwrap();
        assert!(matches!(
            s.read_memory(base + 124, 8),
            Err(StateError::Unmapped { .. })
        ));
        assert!(matches!(
            s.write_memory(warpkit_sim::memory::scratch_base(1, 0), &[1]),
            Err(StateError::Unmapped { .. })
        ));
        let mut commits = Vec::new();
        while s.step(1, &mut commits) == StopReason::Steps && s.current_flat() == Some(0) {}
        // Workgroup 1 runs now: its scratch is mapped, workgroup 0's is gone.
        assert!(s.read_memory(base, 4).is_err());
        assert_eq!(
            s.read_memory(warpkit_sim::memory::scratch_base(1, 0), 4)
                .unwrap(),
            [0; 4]
        );
        assert_eq!(s.run_to_end(), StopReason::Finished);
        let r = s.finish();
        // Workgroup 1 wrote last: lane 1 of it read 0.
        assert_eq!(&r.buffer("out").unwrap()[4..8], &1u32.to_le_bytes());
        // Workgroup 0's lane 1 read 41: the store of its commit says so.
        let store = commits
            .iter()
            .find(|c| c.workgroup == [0, 0, 0] && c.asm.starts_with("gstore"))
            .unwrap();
        assert_eq!(store.mem[0].lanes[1].data[0], 42);
    }

    #[test]
    fn observed_runs_count_and_pause_at_workgroup_ends() {
        let k = kernel();
        let mut s = Stepper::new(vadd_launch(128).prepare(&k).unwrap()).unwrap();
        s.pause_at_workgroup_end(true);
        assert!(s.ensure_started());
        let first = WarpId {
            workgroup: [0, 0, 0],
            warp: 1,
        };
        assert_eq!(s.warp_by_id(first).unwrap().id, first);
        assert!(matches!(
            s.warp_by_id(WarpId { warp: 2, ..first }),
            Err(StateError::NoSuchWarp { warp: 2, warps: 2 })
        ));
        // EXEC of a full warp, as `csrr` reads it.
        assert_eq!(s.read_csr(0, 0x000).map_err(|e| e.to_string()), Ok(!0));
        assert_eq!(s.run_observed(&mut warpkit_sim::NoHooks), Progress::Paused);
        assert!(s.at_workgroup_end());
        let one_group = s.executed();
        assert!(one_group > 0);
        assert!(matches!(
            s.warp_by_id(WarpId {
                workgroup: [1, 0, 0],
                warp: 0
            }),
            Err(StateError::NotCurrent { .. })
        ));
        assert_eq!(s.run_observed(&mut warpkit_sim::NoHooks), Progress::Paused);
        assert_eq!(s.executed(), 2 * one_group);
        while s.run_observed(&mut warpkit_sim::NoHooks) != Progress::Finished {}
        assert_eq!(s.state(), StepState::Finished);
        assert!(s.finish().ok());
    }

    #[test]
    fn the_launch_cancel_flag_and_the_interrupter_both_stop_a_run() {
        let k = kernel();
        let cancel = CancelFlag::new();
        let mut l = vadd_launch(64);
        l.cancel(cancel.clone());
        let mut s = Stepper::new(l.prepare(&k).unwrap()).unwrap();
        cancel.cancel();
        assert_eq!(s.run_until(&[], None, None).0, StopReason::Interrupted);
        // The launch's flag is its owner's to clear.
        assert!(cancel.is_cancelled());
        cancel.as_atomic().store(false, Ordering::Relaxed);
        s.interrupter().store(true, Ordering::Relaxed);
        assert_eq!(s.run_until(&[], None, None).0, StopReason::Interrupted);
        assert_eq!(s.run_to_end(), StopReason::Finished);
        assert!(s.finish().ok());
    }

    #[test]
    fn an_interrupt_pauses_and_the_run_resumes() {
        let k = kernel();
        let mut s = Stepper::new(vadd_launch(64).prepare(&k).unwrap()).unwrap();
        s.interrupter().store(true, Ordering::Relaxed);
        let (why, _) = s.run_until(&[], None, None);
        assert_eq!(why, StopReason::Interrupted);
        assert_eq!(s.state(), StepState::Paused);
        assert_eq!(s.run_to_end(), StopReason::Finished);
        assert!(s.finish().ok());
    }
}
