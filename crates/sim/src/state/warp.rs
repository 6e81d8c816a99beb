//! One warp's architectural state: its registers, EXEC, PC and CSRs, its pending
//! asynchronous operations, and what the hooks read of the last instruction. Plain data and
//! accessors; what instructions do to it is `crate::exec`, the loops that run it
//! `crate::engine`.

use crate::state::access::MemAccess;
use crate::state::csr::CsrFile;
use crate::state::queue::Part;
use crate::state::queue::{AsyncQueue, Hazard, PendingOp, RetireTo, Writeback, NUM_COUNTERS};
use crate::state::regs::{URegs, VRegs, LANES, NUM_UREGS, NUM_VREGS};
use crate::state::trap::Trap;

/// What the core running a set of warps counts: `time`/`timeh` read `committed`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Core {
    /// Instructions committed by every warp simulated on this core (one host thread).
    pub committed: u64,
}

/// Where a warp is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WarpStatus {
    /// Still executing: not stopped yet, or paused by a hook's `Stop` or an interrupt.
    Running,
    /// Stopped at a `barrier`, PC already past it, waiting for the rest of the workgroup.
    AtBarrier,
    /// Ended with `endpgm`.
    Ended,
    /// Stopped by a trap taken with `trapbase` = 0.
    Trapped(Trap),
    /// Stopped because it executed its step budget.
    StepLimit,
}

/// Identity of a warp within a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct WarpId {
    /// The workgroup's id in the grid (x, y, z).
    pub workgroup: [u32; 3],
    /// Index of the warp within its workgroup.
    pub warp: u32,
}

/// The architectural state of one warp.
#[derive(Clone)]
pub struct Warp {
    /// Which warp of the launch this is.
    pub id: WarpId,
    /// The vector registers `v0..v127`, 32 lanes each.
    pub v: VRegs,
    /// The uniform registers `u0..u63`.
    pub u: URegs,
    exec: u32,
    /// `exec` expanded to one all-ones / all-zeros word per lane, so masked writes are plain
    /// SIMD selects. Kept in step by `set_exec`, the only way EXEC changes.
    lane_mask: [u32; LANES],
    /// `exec.count_ones()`, kept with `exec`: the lane-operation count of every vector
    /// instruction, without a per-instruction popcount (no POPCNT in baseline x86-64).
    exec_lanes: u64,
    /// Byte offset of the next instruction from CODE_BASE.
    pub pc: u32,
    /// The CSRs the warp holds itself (all but `exec`, `clock*` and `time*`).
    pub csr: CsrFile,
    /// Whether the warp runs, waits at a barrier, or how it stopped.
    pub status: WarpStatus,
    /// Instructions retired by this warp (`clock`/`clockh`).
    pub retired: u64,
    /// Instructions this warp has attempted (retired or trapped), for the step limit.
    pub steps: u64,
    /// Vector registers allocated to the warp: `movrel` outside them reads 0, writes nothing.
    pub vgprs: u32,
    /// The trap the last step raised (taken or fatal), for tracers.
    pub(crate) last_trap: Option<Trap>,
    /// Active lanes summed over the retired vector instructions.
    pub lane_ops: u64,
    /// Pending asynchronous operations (§2.6).
    pub queue: AsyncQueue,
    /// Hazards seen (at most `MAX_HAZARDS_PER_WARP` kept) and their total count.
    pub hazards: Vec<Hazard>,
    /// Every hazard seen, those not kept in `hazards` included.
    pub hazard_count: u64,
    /// The full address and lane of the last memory fault (trapinfo has only 32 bits).
    pub fault_address: Option<(u64, u32)>,
    /// Write-backs retired by the last step, kept only while hooks observe the warp.
    pub(crate) retire_log: Option<Vec<PendingOp>>,
    /// Memory accesses of the last step, kept only while hooks observe the warp.
    pub(crate) mem_log: Option<Vec<MemAccess>>,
    /// Whether EXEC was written since the hooks last cleared the marks.
    written_exec: bool,
    /// Instructions of `steps` that translated code executed (not architectural state:
    /// engines differ only here).
    pub(crate) translated: u64,
    /// Memory instructions the interpreter executed while the program runs on the
    /// translation tier, by why (not architectural state either).
    pub(crate) fallbacks: crate::tier::MemoryFallbacks,
}

impl std::fmt::Debug for Warp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Warp")
            .field("id", &self.id)
            .field("pc", &self.pc)
            .field("exec", &self.exec)
            .field("status", &self.status)
            .field("retired", &self.retired)
            .finish_non_exhaustive()
    }
}

impl Warp {
    /// A warp at PC 0 with every register zero, EXEC = `exec` and every CSR at its reset
    /// value.
    pub fn new(id: WarpId, exec: u32) -> Warp {
        let mut w = Warp {
            id,
            v: VRegs::default(),
            u: URegs::default(),
            exec: 0,
            lane_mask: [0; LANES],
            exec_lanes: 0,
            pc: 0,
            csr: CsrFile::default(),
            status: WarpStatus::Running,
            retired: 0,
            steps: 0,
            vgprs: NUM_VREGS as u32,
            last_trap: None,
            lane_ops: 0,
            queue: AsyncQueue::default(),
            hazards: Vec::new(),
            hazard_count: 0,
            retire_log: None,
            mem_log: None,
            fault_address: None,
            written_exec: false,
            translated: 0,
            fallbacks: Default::default(),
        };
        w.set_exec(exec);
        w
    }

    /// Make this warp what [`Warp::new`] would return, keeping its allocations (register
    /// file, queue, hazard list): a launch reuses warps across workgroups.
    pub fn reset(&mut self, id: WarpId, exec: u32) {
        self.reset_rows(id, exec, u128::MAX);
    }

    /// As [`Warp::reset`], zeroing only the vector registers in `dirty`: the caller knows
    /// the others are still zero (a warp reused within one launch, where only the
    /// program's written registers and the ABI's `v0..v3` can have changed). Zeroing the
    /// whole 16 KiB register file cost more than running a short kernel's warp.
    pub(crate) fn reset_rows(&mut self, id: WarpId, exec: u32, dirty: u128) {
        // Destructured so that a field added to `Warp` must be handled here too.
        let Warp {
            id: w_id,
            v,
            u,
            exec: _,
            lane_mask: _,
            exec_lanes: _,
            pc,
            csr,
            status,
            retired,
            steps,
            vgprs,
            last_trap,
            lane_ops,
            queue,
            hazards,
            hazard_count,
            fault_address,
            retire_log,
            mem_log,
            written_exec,
            translated,
            fallbacks,
        } = self;
        *w_id = id;
        if dirty == u128::MAX {
            v.zero_all();
        } else {
            let mut bits = dirty;
            while bits != 0 {
                v.zero(bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
            v.clear_written();
        }
        *u = URegs::default();
        *pc = 0;
        *csr = CsrFile::default();
        *status = WarpStatus::Running;
        *retired = 0;
        *steps = 0;
        *vgprs = NUM_VREGS as u32;
        *last_trap = None;
        *lane_ops = 0;
        queue.clear();
        hazards.clear();
        *hazard_count = 0;
        *fault_address = None;
        *retire_log = None;
        *mem_log = None;
        *written_exec = false;
        *translated = 0;
        *fallbacks = Default::default();
        self.set_exec(exec);
    }

    /// EXEC, the 32-lane execution mask: bit l for lane l.
    #[inline(always)]
    pub fn exec(&self) -> u32 {
        self.exec
    }

    /// Write EXEC (the only way it changes), marking it written for the hooks.
    #[inline(always)]
    pub fn set_exec(&mut self, exec: u32) {
        self.exec = exec;
        self.written_exec = true;
        self.exec_lanes = u64::from(exec.count_ones());
        for (l, m) in self.lane_mask.iter_mut().enumerate() {
            *m = 0u32.wrapping_sub((exec >> l) & 1);
        }
    }

    /// The one retire epilogue of every engine: `count` instructions retired by this warp
    /// (`clock`) and committed on `core` (`time`), with `lane_ops` lane-operations.
    #[inline(always)]
    pub(crate) fn retire(&mut self, core: &mut Core, count: u64, lane_ops: u64) {
        self.retired += count;
        self.lane_ops += lane_ops;
        core.committed += count;
    }

    /// The number of lanes active in EXEC: the lane-operation count of a vector
    /// instruction.
    #[inline(always)]
    pub(crate) fn exec_lanes(&self) -> u64 {
        self.exec_lanes
    }

    /// Clear what the hooks read after an instruction: the write marks and the logs.
    #[inline(always)]
    pub(crate) fn clear_marks(&mut self) {
        self.last_trap = None;
        self.u.clear_written();
        self.v.clear_written();
        self.written_exec = false;
        self.csr.clear_written();
        self.retire_log.get_or_insert_with(Vec::new).clear();
        self.mem_log.get_or_insert_with(Vec::new).clear();
    }

    /// Write `r` to the EXEC-active lanes of `v[d]`: the write of every vector
    /// instruction gated by EXEC.
    #[inline(always)]
    pub(crate) fn vput(&mut self, d: usize, r: &[u32; LANES]) {
        let dst = &mut self.v[d];
        if self.exec == u32::MAX {
            *dst = *r;
            return;
        }
        let m = &self.lane_mask;
        for l in 0..LANES {
            dst[l] = (r[l] & m[l]) | (dst[l] & !m[l]);
        }
    }

    /// EXEC as one all-ones / all-zeros word per lane.
    #[inline(always)]
    pub(crate) fn lane_mask(&self) -> &[u32; LANES] {
        &self.lane_mask
    }

    /// The 64-bit value of the uniform pair starting at `r`.
    #[inline(always)]
    pub fn u64(&self, r: usize) -> u64 {
        u64::from(self.u[r]) | (u64::from(self.u[r + 1]) << 32)
    }

    #[inline(always)]
    pub(crate) fn set_u64(&mut self, r: usize, x: u64) {
        self.u[r] = x as u32;
        self.u[r + 1] = (x >> 32) as u32;
    }

    // ---- what the hooks see of the last instruction ------------------------------------

    /// How many of this warp's steps translated code executed (the rest were interpreted).
    pub fn translated_steps(&self) -> u64 {
        self.translated
    }

    /// The memory instructions of this warp that the interpreter executed although its
    /// program runs on the translation tier, by why.
    pub fn memory_fallbacks(&self) -> crate::tier::MemoryFallbacks {
        self.fallbacks
    }

    /// The vector registers the last instruction wrote synchronously (one bit each).
    /// Meaningful inside [`Hooks::after`]; asynchronous results are in
    /// [`Warp::retired_ops`].
    pub fn written_vregs(&self) -> u128 {
        self.v.written()
    }

    /// The uniform registers the last instruction wrote synchronously (one bit each).
    pub fn written_uregs(&self) -> u64 {
        self.u.written()
    }

    /// Whether the last instruction wrote EXEC.
    pub fn wrote_exec(&self) -> bool {
        self.written_exec
    }

    /// The CSRs other than EXEC the last instruction wrote (bit n for CSR number n), the
    /// trap CSRs of a trap its handler took included.
    pub fn written_csrs(&self) -> u128 {
        self.csr.written()
    }

    /// The trap the last instruction raised, taken by a handler or not.
    pub fn last_trap(&self) -> Option<Trap> {
        self.last_trap
    }

    /// The asynchronous operations the last instruction retired, oldest first.
    pub fn retired_ops(&self) -> &[PendingOp] {
        self.retire_log.as_deref().unwrap_or_default()
    }

    /// The memory accesses the last instruction performed.
    pub fn mem_accesses(&self) -> &[MemAccess] {
        self.mem_log.as_deref().unwrap_or_default()
    }

    /// Whether hooks observe this warp (memory accesses are then logged).
    #[inline(always)]
    pub(crate) fn logging_memory(&self) -> bool {
        self.mem_log.is_some()
    }

    pub(crate) fn log_memory(&mut self, access: MemAccess) {
        if let Some(log) = &mut self.mem_log {
            log.push(access);
        }
    }

    // ---- state accessors (debuggers, bindings) -----------------------------------------

    /// Vector register `r`, one value per lane.
    pub fn vreg(&self, r: usize) -> Option<&[u32; LANES]> {
        self.v.get(r)
    }

    /// Set lane `lane` of vector register `r`; false if either is out of range.
    pub fn set_vreg_lane(&mut self, r: usize, lane: usize, value: u32) -> bool {
        match self.v.get_mut(r).and_then(|row| row.get_mut(lane)) {
            Some(x) => {
                *x = value;
                true
            }
            None => false,
        }
    }

    /// Uniform register `r`.
    pub fn ureg(&self, r: usize) -> Option<u32> {
        self.u.get(r).copied()
    }

    /// Set uniform register `r`; false if out of range.
    pub fn set_ureg(&mut self, r: usize, value: u32) -> bool {
        match self.u.get_mut(r) {
            Some(x) => {
                *x = value;
                true
            }
            None => false,
        }
    }

    /// The pending asynchronous operations of counter `c`, oldest first.
    pub fn pending(&self, c: usize) -> Vec<PendingOp> {
        self.queue
            .ops()
            .filter(|op| usize::from(op.counter) == c)
            .collect()
    }
}

// ---- the asynchronous queue, on this warp's register files ---------------------------

impl Warp {
    /// The queue and where its retirements write.
    #[inline(always)]
    fn queue_and_files(&mut self) -> (&mut AsyncQueue, RetireTo<'_>) {
        let Warp {
            queue,
            v,
            u,
            retire_log,
            ..
        } = self;
        (
            queue,
            RetireTo {
                v,
                u,
                log: retire_log,
            },
        )
    }

    /// Issue an asynchronous operation: a counter at its in-flight limit first retires its
    /// oldest operation (errata v0.1.2); then the counter is incremented.
    pub fn issue(&mut self, counter: usize, pc: u32, writeback: Writeback) {
        let (q, mut to) = self.queue_and_files();
        q.issue(counter, pc, writeback, &mut to);
    }

    /// Issue an operation writing `data.len()` (1..=4) vector registers from `first`, lanes
    /// in `mask`, `part` of each lane.
    pub(crate) fn issue_v(
        &mut self,
        counter: usize,
        pc: u32,
        first: u8,
        mask: u32,
        part: Part,
        data: &[[u32; LANES]],
    ) {
        let (q, mut to) = self.queue_and_files();
        q.issue_v(counter, pc, first, mask, part, data, &mut to);
    }

    /// As [`Warp::issue_v`] for one whole register on every lane, its row filled in place.
    #[inline(always)]
    pub(crate) fn issue_row(
        &mut self,
        counter: usize,
        pc: u32,
        first: u8,
        fill: impl FnOnce(&mut [u32; LANES]),
    ) {
        let (q, mut to) = self.queue_and_files();
        q.issue_row(counter, pc, first, fill, &mut to);
    }

    /// Retire the oldest operation of counter `c`, one that writes nothing (translated code
    /// retired it).
    pub(crate) fn retire_written_nothing(&mut self, c: usize) {
        let (q, mut to) = self.queue_and_files();
        q.retire_written_nothing(c, &mut to);
    }

    /// `waitcnt`: retire until every counter is at or below its threshold, oldest first.
    pub fn wait_counters(&mut self, thresholds: &[u32; NUM_COUNTERS]) {
        let (q, mut to) = self.queue_and_files();
        q.wait_counters(thresholds, &mut to);
    }

    /// `endpgm`: retire everything in issue order.
    pub fn drain(&mut self) {
        let (q, mut to) = self.queue_and_files();
        q.drain(&mut to);
    }
}

// ---- checkpoints ----------------------------------------------------------------------

/// A warp as a checkpoint stores it (docs/checkpoints.md): everything that outlives an
/// instruction. What the hooks read of the last instruction (write marks, logs) does not:
/// a checkpoint is taken between instructions, and the next one clears it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct WarpImage {
    id: WarpId,
    /// The vector registers that are not all zero: register number and its lanes.
    v: Vec<(u8, [u32; LANES])>,
    /// u0..u63.
    u: Vec<u32>,
    exec: u32,
    pc: u32,
    csr: CsrFile,
    status: WarpStatus,
    retired: u64,
    steps: u64,
    vgprs: u32,
    lane_ops: u64,
    queue: Vec<crate::state::queue::OpImage>,
    hazards: Vec<Hazard>,
    hazard_count: u64,
    fault_address: Option<(u64, u32)>,
}

impl Warp {
    pub(crate) fn image(&self) -> WarpImage {
        // Destructured so that a field added to `Warp` must be considered here too.
        let Warp {
            id,
            v,
            u,
            exec,
            lane_mask: _,
            exec_lanes: _,
            pc,
            csr,
            status,
            retired,
            steps,
            vgprs,
            last_trap: _,
            lane_ops,
            queue,
            hazards,
            hazard_count,
            fault_address,
            retire_log: _,
            mem_log: _,
            written_exec: _,
            translated: _,
            fallbacks: _,
        } = self;
        WarpImage {
            id: *id,
            v: v.iter()
                .enumerate()
                .filter(|(_, row)| row.iter().any(|&x| x != 0))
                .map(|(r, row)| (r as u8, *row))
                .collect(),
            u: u.to_vec(),
            exec: *exec,
            pc: *pc,
            csr: csr.clone(),
            status: *status,
            retired: *retired,
            steps: *steps,
            vgprs: *vgprs,
            lane_ops: *lane_ops,
            queue: queue.image(),
            hazards: hazards.clone(),
            hazard_count: *hazard_count,
            fault_address: *fault_address,
        }
    }

    /// The warp `image` describes, or why it cannot exist.
    pub(crate) fn from_image(image: WarpImage) -> Result<Warp, String> {
        let mut w = Warp::new(image.id, image.exec);
        for (r, row) in image.v {
            match w.v.get_mut(usize::from(r)) {
                Some(dst) => *dst = row,
                None => return Err(format!("vector register v{r} does not exist")),
            }
        }
        if image.u.len() != NUM_UREGS {
            return Err(format!(
                "{} uniform registers instead of {NUM_UREGS}",
                image.u.len()
            ));
        }
        w.u[0..NUM_UREGS].copy_from_slice(&image.u);
        if image.vgprs > NUM_VREGS as u32 {
            return Err(format!("{} vector registers allocated", image.vgprs));
        }
        w.pc = image.pc;
        w.csr = image.csr;
        w.status = image.status;
        w.retired = image.retired;
        w.steps = image.steps;
        w.vgprs = image.vgprs;
        w.lane_ops = image.lane_ops;
        w.queue = AsyncQueue::from_image(image.queue)?;
        w.hazards = image.hazards;
        w.hazard_count = image.hazard_count;
        w.fault_address = image.fault_address;
        w.written_exec = false;
        Ok(w)
    }
}
