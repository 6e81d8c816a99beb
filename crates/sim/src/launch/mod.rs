//! Grid dispatch as `docs/abi.md` defines it: the memory map, the argument block, the
//! initial registers of every warp, and workgroups run in parallel (rayon) with the warps of
//! one workgroup interleaved on one thread. Results never depend on the thread count:
//! workgroups share only global memory, and outputs are gathered in workgroup order.

pub mod checkpoint;

use crate::control::{CancelFlag, Interrupt};
use crate::hooks::{Hooks, NoHooks, StepBudget};
use crate::memory::{scratch_base, GlobalMemory, ScratchMemory, SharedMemory};
use crate::observe::trace::{TraceFormat, WriteTracer};
use crate::program::Program;
use crate::state::regs::LANES;
use crate::state::trap::{Trap, CAUSE_ACCESS_FAULT, CAUSE_MISALIGNED};
use crate::state::warp::{Warp, WarpId, WarpStatus};
use crate::state::Core;
use crate::workgroup::{Deadlock, Workgroup};
use crate::{Hazard, MemEnv, DEFAULT_MAX_STEPS};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Where the code is mapped; PC is an offset from it (`code_lo`/`code_hi`).
pub const CODE_BASE: u64 = 0x1000_0000;
/// The kernel-argument block, 8 bytes per argument.
pub const ARGS_BASE: u64 = 0x2000_0000;
/// The first buffer.
pub const BUFFER_BASE: u64 = 0x1_0000_0000;
/// Buffers start on this boundary, with at least this much unmapped space after each.
pub const BUFFER_ALIGN: u64 = 0x1_0000;
/// Threads per workgroup at most.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Shared memory per workgroup at most (the model allocates it when first written).
pub const MAX_SHARED_BYTES: u32 = 16 << 20;
/// Shared memory per workgroup when a launch does not say ([`LaunchConfig::default`]);
/// front ends take their default from here so it cannot drift from the library's.
pub const DEFAULT_SHARED_BYTES: u32 = 65536;
/// Warps whose final state a launch may keep (`keep_warps`): 16 KiB of registers each.
pub const MAX_KEPT_WARPS: u64 = 1 << 16;

pub use crate::memory::{
    MAX_SCRATCH_BYTES, SCRATCH_BASE, SCRATCH_END, SCRATCH_WARP_STRIDE, SCRATCH_WORKGROUP_STRIDE,
};

// Every warp of the largest workgroup has a scratch region of its own.
const _: () = assert!(MAX_BLOCK_THREADS.div_ceil(32) <= crate::memory::MAX_SCRATCH_WARPS as u64);

/// Scratch memory one workgroup of `config` holds while it runs: 32 lanes of
/// `scratch_bytes` per warp.
pub fn scratch_bytes_per_workgroup(config: &LaunchConfig) -> u64 {
    let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
    threads.div_ceil(32) * LANES as u64 * u64::from(config.scratch_bytes)
}

/// How to launch a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Workgroups in x, y, z.
    pub grid: [u32; 3],
    /// Threads per workgroup in x, y, z.
    pub block: [u32; 3],
    /// Bytes of shared memory per workgroup.
    pub shared_bytes: u32,
    /// Bytes of scratch memory per lane (docs/abi.md, "Scratch memory"): a multiple of 4, at
    /// most [`MAX_SCRATCH_BYTES`]; 0, the default, maps none. Each workgroup's is allocated,
    /// zero-filled, when it starts and released when it ends, so a launch holds at most
    /// one workgroup's ([`scratch_bytes_per_workgroup`]) per host thread. A bare launch
    /// maps it too but leaves the `scratch_*` CSRs at 0.
    pub scratch_bytes: u32,
    /// Host threads; 0 = one per core.
    pub threads: usize,
    /// Per-warp step limit.
    pub max_steps: u64,
    /// Keep every warp's final state in the result (for dumps).
    pub keep_warps: bool,
    /// Start every register at 0 and CODE_BASE at 0 instead of the ABI's initial state
    /// (memory is still mapped): the bare launch of `warpkit run` without launch options.
    pub bare: bool,
    /// The PC every warp starts at (`--entry`).
    pub entry: u32,
    /// Set from anywhere to stop the launch: running warps stop within a few thousand
    /// instructions, workgroups not yet started never start, and the result says
    /// [`Interrupt::Cancelled`].
    pub cancel: Option<CancelFlag>,
    /// Instructions the whole grid may attempt (`--max-total-steps`), split before the run
    /// into one fixed share per workgroup ([`total_steps_share`]); `None`: no such budget.
    pub max_total_steps: Option<u64>,
}

/// Workgroup `flat`'s share of a grid budget of `total` steps over `groups` workgroups:
/// `total / groups`, plus one for the first `total % groups` workgroups. The shares are
/// fixed before the run, and within a workgroup the warps draw on its share in their fixed
/// schedule order, so where the budget stops a run never depends on the host threads.
pub fn total_steps_share(total: u64, groups: u64, flat: u64) -> u64 {
    let groups = groups.max(1);
    total / groups + u64::from(flat < total % groups)
}

impl Default for LaunchConfig {
    fn default() -> LaunchConfig {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: DEFAULT_SHARED_BYTES,
            scratch_bytes: 0,
            threads: 0,
            max_steps: DEFAULT_MAX_STEPS,
            keep_warps: false,
            bare: false,
            entry: 0,
            cancel: None,
            max_total_steps: None,
        }
    }
}

/// The value of one argument slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue {
    /// Stored as a 64-bit little-endian integer.
    Int(u64),
    /// A buffer mapped with these bytes; the slot holds its address.
    Buffer(Vec<u8>),
    /// A buffer whose memory is these words, taken over rather than copied (a large buffer
    /// a binding has already built); it comes back in [`BufferOut::words`].
    Words(WordBuffer),
}

/// A buffer's contents as little-endian 32-bit words, the form the model's memory has:
/// `len` bytes, in `words.len() == len.div_ceil(4)` words (the tail of the last one unused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordBuffer {
    /// The contents, `len.div_ceil(4)` little-endian words.
    pub words: Vec<u32>,
    /// The buffer's length in bytes.
    pub len: u64,
}

/// One kernel argument; slot k of the block is the k-th argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The argument's name, as reports and [`LaunchResult::buffer`] use it.
    pub name: String,
    /// What the slot holds: an integer, or a buffer mapped for the launch.
    pub value: ArgValue,
}

/// Why a launch was refused before any warp ran: a configuration out of range, or a
/// memory map that does not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    /// A grid or block dimension is 0.
    #[error("every grid and block dimension must be at least 1 (grid {grid:?}, block {block:?})")]
    ZeroDimension {
        /// The grid as given.
        grid: [u32; 3],
        /// The block as given.
        block: [u32; 3],
    },
    /// A workgroup of more than [`MAX_BLOCK_THREADS`] threads (its thread count,
    /// saturated).
    #[error("a workgroup of {0} threads is more than {MAX_BLOCK_THREADS}")]
    BlockTooLarge(u64),
    /// A grid of 2^32 workgroups or more (its workgroup count, saturated).
    #[error("a grid of {0} workgroups is more than 2^32")]
    GridTooLarge(u64),
    /// A part of the memory map (the code, the `.data` section, a named buffer or the
    /// argument block) cannot be mapped where docs/abi.md puts it.
    #[error("{0} does not fit the address space")]
    Layout(String),
    /// The pool of host threads could not be built (the reason).
    #[error("cannot start the host threads: {0}")]
    Threads(String),
    /// More shared memory per workgroup than [`MAX_SHARED_BYTES`] (the bytes asked for).
    #[error("{0} bytes of shared memory per workgroup is more than {MAX_SHARED_BYTES}")]
    SharedTooLarge(u32),
    /// More scratch memory per lane than [`MAX_SCRATCH_BYTES`], or a size that is not a
    /// multiple of 4 (the bytes asked for).
    #[error("{0} bytes of scratch memory per lane: it must be a multiple of 4 and at most {MAX_SCRATCH_BYTES}")]
    BadScratch(u32),
    /// `keep_warps` with more than [`MAX_KEPT_WARPS`] warps in the grid (their count).
    #[error("keeping the state of {0} warps (for a dump) is more than {MAX_KEPT_WARPS}")]
    TooManyKeptWarps(u64),
}

/// A warp stopped by a trap.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TrapReport {
    /// The warp's workgroup (x, y, z).
    pub workgroup: [u32; 3],
    /// The warp's index within its workgroup.
    pub warp: u32,
    /// The trap: its cause, PC and `trapinfo`.
    pub trap: Trap,
    /// The trapping instruction, disassembled.
    pub asm: String,
    /// For a memory fault: the full address and the lane that faulted first.
    pub address: Option<(u64, u32)>,
}

/// A warp stopped by the step limit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LimitReport {
    /// The warp's workgroup (x, y, z).
    pub workgroup: [u32; 3],
    /// The warp's index within its workgroup.
    pub warp: u32,
    /// PC of the next instruction, the one not executed.
    pub pc: u32,
    /// Instructions the warp attempted (retired or trapped).
    pub steps: u64,
}

/// Warps of one workgroup left waiting at a `barrier` that a sibling stopped by a trap or
/// the step limit will never reach.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeadlockReport {
    /// The workgroup (x, y, z).
    pub workgroup: [u32; 3],
    /// Which warps wait at which `barrier`, and how the others stopped.
    pub deadlock: Deadlock,
}

/// Totals of a launch over the workgroups that ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchStats {
    /// Workgroups that ran (fewer than the grid's when the launch was cancelled).
    pub workgroups: u64,
    /// Warps of those workgroups.
    pub warps: u64,
    /// Warp-instructions retired.
    pub instructions: u64,
    /// Active lanes summed over retired vector instructions.
    pub lane_ops: u64,
    /// Hazards seen (the reports keep at most a few per warp).
    pub hazards: u64,
    /// Memory instructions the interpreter executed although the program runs on the
    /// translation tier (all zero on the interpreter), by why.
    pub memory_fallbacks: crate::tier::MemoryFallbacks,
    /// Wall-clock time spent running (for a session, summed over its runs).
    pub wall: Duration,
}

/// A buffer argument after the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferOut {
    /// The argument's name.
    pub name: String,
    /// Where the buffer is mapped in global memory (the value of its argument slot).
    pub address: u64,
    /// The final contents; empty for a buffer given as [`ArgValue::Words`].
    pub bytes: Vec<u8>,
    /// For a buffer given as [`ArgValue::Words`]: its final contents, the model's memory
    /// itself moved out (no copy); `None` otherwise.
    pub words: Option<WordBuffer>,
}

/// What a launch did: totals, every trap, step limit, deadlock and hazard, the buffers'
/// final contents and, if asked for, the warps' final states.
#[derive(Debug)]
pub struct LaunchResult {
    /// Totals: workgroups, warps, instructions, lane-operations, hazards, time.
    pub stats: LaunchStats,
    /// Warps stopped by a trap, in workgroup then warp order.
    pub traps: Vec<TrapReport>,
    /// Warps stopped by the step limit, in workgroup then warp order.
    pub step_limits: Vec<LimitReport>,
    /// Workgroups left deadlocked at a `barrier`, in workgroup order.
    pub deadlocks: Vec<DeadlockReport>,
    /// The hazard reports kept, a few per warp ([`LaunchStats::hazards`] counts them all).
    pub hazards: Vec<Hazard>,
    /// Every buffer argument after the run, in argument order.
    pub buffers: Vec<BufferOut>,
    /// Final warp states in workgroup then warp order, if `keep_warps` was set.
    pub warps: Vec<Warp>,
    /// `time` of each kept warp's core (its workgroup), in the order of `warps`.
    pub cores: Vec<Core>,
    /// Set when the launch was stopped before every warp finished: some warps are still
    /// `Running` or at a barrier, some workgroups may never have started, and buffers hold
    /// whatever was written until then.
    pub interrupted: Option<Interrupt>,
}

impl LaunchResult {
    /// The final contents of the buffer argument `name`. A byte buffer is borrowed; one
    /// given as [`ArgValue::Words`] is converted here, on request only, so a binding that
    /// takes [`BufferOut::words`] as they are never pays for a copy.
    pub fn buffer(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        let b = self.buffers.iter().find(|b| b.name == name)?;
        Some(match &b.words {
            Some(w) => {
                let len = usize::try_from(w.len).unwrap_or(usize::MAX);
                Cow::Owned(
                    w.words
                        .iter()
                        .flat_map(|w| w.to_le_bytes())
                        .take(len)
                        .collect(),
                )
            }
            None => Cow::Borrowed(b.bytes.as_slice()),
        })
    }

    /// Every warp ended with `endpgm`.
    pub fn ok(&self) -> bool {
        self.traps.is_empty()
            && self.step_limits.is_empty()
            && self.deadlocks.is_empty()
            && self.interrupted.is_none()
    }
}

struct Layout {
    global: GlobalMemory,
    buffers: Vec<(String, u64)>,
    /// Which of `buffers` were given as words, and go back as words.
    as_words: Vec<bool>,
}

fn layout(program: &Program, args: Vec<Arg>) -> Result<Layout, LaunchError> {
    let mut global = GlobalMemory::default();
    // Code is read-only: a store or atomic to it faults (cause 5), so what a warp fetches
    // is always what it loads. `.data` follows it, read-write (docs/abi.md, "Memory map").
    if !global.map_read_only(CODE_BASE, program.text()) {
        return Err(LaunchError::Layout("the code".into()));
    }
    if !program.data().is_empty() && !global.map(CODE_BASE + program.data_offset(), program.data())
    {
        return Err(LaunchError::Layout("the .data section".into()));
    }
    let mut block = Vec::with_capacity(args.len() * 8);
    let mut buffers = Vec::new();
    let mut as_words = Vec::new();
    let mut next = BUFFER_BASE;
    for a in args {
        let base = next;
        let (len, mapped, words) = match a.value {
            ArgValue::Int(v) => {
                block.extend_from_slice(&v.to_le_bytes());
                continue;
            }
            ArgValue::Buffer(bytes) => (bytes.len() as u64, global.map(base, &bytes), false),
            ArgValue::Words(w) => (w.len, global.map_words(base, w.words, w.len), true),
        };
        let bad = || LaunchError::Layout(format!("buffer `{}`", a.name));
        // Refused too when it would reach the scratch range.
        if !mapped {
            return Err(bad());
        }
        next = base
            .checked_add(len)
            .and_then(|e| e.checked_add(BUFFER_ALIGN))
            .and_then(|e| e.checked_next_multiple_of(BUFFER_ALIGN))
            .ok_or_else(bad)?;
        buffers.push((a.name, base));
        as_words.push(words);
        block.extend_from_slice(&base.to_le_bytes());
    }
    if !block.is_empty() && !global.map(ARGS_BASE, &block) {
        return Err(LaunchError::Layout("the argument block".into()));
    }
    Ok(Layout {
        global,
        buffers,
        as_words,
    })
}

/// The initial state of warp `w` of workgroup `wg` (docs/abi.md, "Initial registers").
fn init_warp(warp: &mut Warp, cfg: &LaunchConfig, wg: [u32; 3], flat_wg: u32, warps: u32) {
    let [bx, by, _] = cfg.block;
    let w = warp.id.warp;
    warp.u[0] = ARGS_BASE as u32;
    warp.u[1] = (ARGS_BASE >> 32) as u32;
    warp.u[2..5].copy_from_slice(&wg);
    warp.u[5..8].copy_from_slice(&cfg.grid);
    warp.u[8..11].copy_from_slice(&cfg.block);
    warp.u[11] = warps;
    warp.u[12] = flat_wg;
    warp.u[13] = cfg.shared_bytes;
    warp.u[29] = w;
    // flat = 32w + l split into (x, y, z), stepping from lane to lane instead of dividing
    // in each: three divisions per lane cost more than a short kernel's warp.
    let first = 32 * w;
    let (mut x, mut y, mut z) = (first % bx, (first / bx) % by, first / (bx * by));
    // Built here and written as four whole rows: written lane by lane through the register
    // file, every store also marked its row written (a quarter of a short kernel's
    // workgroup start, measured on vadd).
    let mut rows = [[0u32; LANES]; 4];
    for l in 0..LANES {
        let lane = [x, y, z, first + l as u32];
        for (row, value) in rows.iter_mut().zip(lane) {
            row[l] = value;
        }
        x += 1;
        if x == bx {
            x = 0;
            y += 1;
            if y == by {
                y = 0;
                z += 1;
            }
        }
    }
    for (r, row) in rows.into_iter().enumerate() {
        warp.v[r] = row;
    }
    use crate::state::csr::num;
    warp.csr.set(num::WARPID, w);
    warp.csr.set(num::WGSLOT, flat_wg);
    warp.csr.set(num::CODE_LO, CODE_BASE as u32);
    warp.csr.set(num::CODE_HI, (CODE_BASE >> 32) as u32);
    if cfg.scratch_bytes > 0 {
        let base = scratch_base(u64::from(flat_wg), w);
        warp.csr.set(num::SCRATCH_LO, base as u32);
        warp.csr.set(num::SCRATCH_HI, (base >> 32) as u32);
        warp.csr.set(num::SCRATCH_SIZE, cfg.scratch_bytes);
    }
}

/// What one workgroup's run produced: its reports, and its warps only when kept.
struct Outcome {
    warps: u64,
    instructions: u64,
    /// Instructions attempted (retired or trapped), as the step limits count them.
    steps: u64,
    lane_ops: u64,
    hazard_count: u64,
    memory_fallbacks: crate::tier::MemoryFallbacks,
    traps: Vec<TrapReport>,
    step_limits: Vec<LimitReport>,
    deadlock: Option<DeadlockReport>,
    hazards: Vec<Hazard>,
    kept: Vec<Warp>,
    core: Core,
    /// Warps were left unfinished (cancelled, or the tracer stopped the run).
    interrupted: bool,
}

/// A workgroup being run: its warps, shared memory, scratch memory and core.
struct Active {
    flat: u64,
    group: Workgroup,
    shared: SharedMemory,
    /// Allocated when the workgroup starts; released with it.
    scratch: ScratchMemory,
    core: Core,
}

/// Set up workgroup `flat` with warps from `pool` (docs/abi.md, "Initial registers").
fn start_workgroup(
    program: &Program,
    cfg: &LaunchConfig,
    flat: u64,
    pool: &mut Vec<Warp>,
) -> Active {
    let [gx, gy, _] = cfg.grid;
    let flat32 = flat as u32;
    let wg = [flat32 % gx, (flat32 / gx) % gy, (flat32 / gx / gy)];
    let threads = cfg.block.iter().map(|&d| u64::from(d)).product::<u64>();
    let nwarps = threads.div_ceil(32) as u32;
    let exec: Vec<u32> = (0..nwarps)
        .map(|w| {
            let left = threads - 32 * u64::from(w);
            if left >= 32 {
                u32::MAX
            } else {
                (1u32 << left) - 1
            }
        })
        .collect();
    // Warps come from this host thread's pool and go back to it, so a workgroup allocates
    // no register files. They are reset where they lie: a warp is about a kilobyte
    // besides its register file, and moving each in and out of the pool cost more than
    // a short kernel's warp.
    let mut warps = std::mem::take(pool);
    warps.truncate(exec.len());
    // v0..v3: the ABI's thread ids (init_warp).
    let dirty = program.vregs_written() | 0xf;
    for (i, &e) in exec.iter().enumerate() {
        let id = WarpId {
            workgroup: wg,
            warp: i as u32,
        };
        match warps.get_mut(i) {
            Some(w) => w.reset_rows(id, e, dirty),
            None => warps.push(Warp::new(id, e)),
        }
    }
    let mut group = Workgroup::new(wg, &[]);
    group.warps = warps;
    for warp in group.warps.iter_mut() {
        warp.pc = cfg.entry;
    }
    if !cfg.bare {
        for warp in group.warps.iter_mut() {
            init_warp(warp, cfg, wg, flat32, nwarps);
        }
    }
    if let Some(total) = cfg.max_total_steps {
        let groups = check(cfg).unwrap_or(1);
        group.budget = Some(total_steps_share(total, groups, flat));
    }
    Active {
        flat,
        group,
        shared: SharedMemory::new(cfg.shared_bytes),
        scratch: ScratchMemory::new(flat, nwarps, cfg.scratch_bytes),
        core: Core::default(),
    }
}

impl Active {
    /// Run (or resume) the workgroup; false if it stopped early: a hook paused it,
    /// the hooks interrupted the run, or `cancel` was set.
    fn run<H: Hooks>(
        &mut self,
        program: &Program,
        cfg: &LaunchConfig,
        global: &GlobalMemory,
        hooks: &mut H,
        cancel: &AtomicBool,
        direct: Option<&mut crate::memory::direct::Direct>,
    ) -> bool {
        let mut direct = direct;
        let env = match direct.as_deref_mut() {
            Some(d) => MemEnv::with_direct(global, &mut self.shared, d),
            None => MemEnv::new(global, &mut self.shared),
        };
        let mut env = env.with_scratch(&self.scratch);
        let s = self.group.run_cancellable(
            program,
            &mut self.core,
            &mut env,
            hooks,
            cfg.max_steps,
            cancel,
        );
        drop(env);
        // The lender keeps the direct state across workgroups; this one's scratch goes away
        // with it, so translated code must not find it in a hint.
        if let Some(d) = direct {
            if !self.scratch.is_empty() {
                d.forget_scratch();
            }
        }
        s.interrupted == 0
    }

    /// The reports of the finished workgroup; its warps go back to `pool` unless kept.
    fn outcome(mut self, program: &Program, cfg: &LaunchConfig, pool: &mut Vec<Warp>) -> Outcome {
        let wg = self.group.id;
        let group = &mut self.group;
        // Before the deadlock is taken out: without it, warps at the barrier would count
        // as interrupted.
        let interrupted = group.summary().interrupted > 0;
        let mut o = Outcome {
            warps: group.warps.len() as u64,
            instructions: 0,
            steps: 0,
            lane_ops: 0,
            hazard_count: 0,
            memory_fallbacks: Default::default(),
            traps: Vec::new(),
            step_limits: Vec::new(),
            deadlock: group.deadlock.take().map(|deadlock| DeadlockReport {
                workgroup: wg,
                deadlock,
            }),
            hazards: Vec::new(),
            kept: Vec::new(),
            core: self.core,
            interrupted,
        };
        for w in group.warps.iter_mut() {
            o.instructions += w.retired;
            o.steps += w.steps;
            o.lane_ops += w.lane_ops;
            o.hazard_count += w.hazard_count;
            o.memory_fallbacks += w.fallbacks;
            match w.status {
                WarpStatus::Trapped(t) => o.traps.push(TrapReport {
                    workgroup: w.id.workgroup,
                    warp: w.id.warp,
                    trap: t,
                    asm: program.disassemble(t.pc),
                    address: match t.cause {
                        CAUSE_MISALIGNED | CAUSE_ACCESS_FAULT => w.fault_address,
                        _ => None,
                    },
                }),
                WarpStatus::StepLimit => o.step_limits.push(LimitReport {
                    workgroup: w.id.workgroup,
                    warp: w.id.warp,
                    pc: w.pc,
                    steps: w.steps,
                }),
                _ => {}
            }
            o.hazards.append(&mut w.hazards);
        }
        if cfg.keep_warps {
            o.kept = std::mem::take(&mut group.warps);
        } else {
            *pool = std::mem::take(&mut group.warps);
        }
        o
    }
}

/// Run workgroup `flat` to its end, or until `cancel` is set (hook pauses are resumed at
/// once: plain launches have no one to inspect a pause).
fn run_workgroup<H: Hooks>(
    program: &Program,
    cfg: &LaunchConfig,
    global: &GlobalMemory,
    flat: u64,
    hooks: &mut H,
    task: &mut Task,
    cancel: &AtomicBool,
) -> Outcome {
    let mut active = start_workgroup(program, cfg, flat, &mut task.warps);
    hooks.begin_workgroup(flat, active.group.id);
    while !active.run(
        program,
        cfg,
        global,
        hooks,
        cancel,
        task.direct.as_deref_mut(),
    ) && !cancel.load(Ordering::Relaxed)
        && hooks.interrupt().is_none()
    {}
    hooks.end_workgroup(active.group.id, &active.group.warps);
    active.outcome(program, cfg, &mut task.warps)
}

/// What one host-thread task keeps across the workgroups it runs: a pool of warps, and
/// for unobserved runs translated code's state (its region hints are addresses in the
/// launch's global memory, so a task never outlives the launch).
#[derive(Default)]
struct Task {
    warps: Vec<Warp>,
    direct: Option<Box<crate::memory::direct::Direct>>,
}

fn check(cfg: &LaunchConfig) -> Result<u64, LaunchError> {
    if cfg.grid.contains(&0) || cfg.block.contains(&0) {
        return Err(LaunchError::ZeroDimension {
            grid: cfg.grid,
            block: cfg.block,
        });
    }
    // In 128 bits: three u32 dimensions overflow u64 (a panic in debug builds, a wrapped
    // and wrongly accepted size in release); reported saturated.
    let volume = |d: &[u32; 3]| {
        u64::try_from(d.iter().map(|&x| u128::from(x)).product::<u128>()).unwrap_or(u64::MAX)
    };
    let threads = volume(&cfg.block);
    if threads > MAX_BLOCK_THREADS {
        return Err(LaunchError::BlockTooLarge(threads));
    }
    let groups = volume(&cfg.grid);
    if groups > u64::from(u32::MAX) {
        return Err(LaunchError::GridTooLarge(groups));
    }
    if cfg.shared_bytes > MAX_SHARED_BYTES {
        return Err(LaunchError::SharedTooLarge(cfg.shared_bytes));
    }
    if cfg.scratch_bytes > MAX_SCRATCH_BYTES || !cfg.scratch_bytes.is_multiple_of(4) {
        return Err(LaunchError::BadScratch(cfg.scratch_bytes));
    }
    let warps = groups * threads.div_ceil(32);
    if cfg.keep_warps && warps > MAX_KEPT_WARPS {
        return Err(LaunchError::TooManyKeptWarps(warps));
    }
    Ok(groups)
}

/// `outcomes` holds the workgroups that ran; `None` for those skipped after a cancel.
/// Its fallbacks are added to the program's translation, if it has one.
fn finish(
    program: &Program,
    layout: Layout,
    outcomes: Vec<Option<Outcome>>,
    wall: Duration,
) -> LaunchResult {
    let skipped = outcomes.iter().any(Option::is_none);
    let outcomes: Vec<Outcome> = outcomes.into_iter().flatten().collect();
    let mut r = LaunchResult {
        stats: LaunchStats {
            workgroups: outcomes.len() as u64,
            wall,
            ..LaunchStats::default()
        },
        traps: Vec::new(),
        step_limits: Vec::new(),
        deadlocks: Vec::new(),
        hazards: Vec::new(),
        buffers: Vec::new(),
        warps: Vec::new(),
        cores: Vec::new(),
        interrupted: None,
    };
    for mut o in outcomes {
        r.stats.warps += o.warps;
        r.stats.instructions += o.instructions;
        r.stats.lane_ops += o.lane_ops;
        r.stats.hazards += o.hazard_count;
        r.stats.memory_fallbacks += o.memory_fallbacks;
        r.traps.append(&mut o.traps);
        r.step_limits.append(&mut o.step_limits);
        r.deadlocks.extend(o.deadlock);
        r.hazards.append(&mut o.hazards);
        if o.interrupted {
            r.interrupted = Some(Interrupt::Cancelled);
        }
        for w in o.kept {
            r.warps.push(w);
            r.cores.push(o.core.clone());
        }
    }
    if skipped {
        r.interrupted = Some(Interrupt::Cancelled);
    }
    // Only a translated program counts fallbacks, so this never translates one.
    if r.stats.memory_fallbacks.total() > 0 {
        if let Some(t) = crate::engine::jit::translation(program) {
            t.note_fallbacks(r.stats.memory_fallbacks);
        }
    }
    let Layout {
        mut global,
        buffers,
        as_words,
    } = layout;
    for ((name, base), as_words) in buffers.into_iter().zip(as_words) {
        let (bytes, words) = if as_words {
            let words = global
                .take_words(base)
                .map(|(words, len)| WordBuffer { words, len });
            (Vec::new(), words)
        } else {
            (global.bytes_at(base).unwrap_or_default(), None)
        };
        r.buffers.push(BufferOut {
            name,
            address: base,
            bytes,
            words,
        });
    }
    r
}

/// Run `program` as `config` says with `args`. Workgroups run on `config.threads` host
/// threads; the result does not depend on how many.
pub fn launch(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
) -> Result<LaunchResult, LaunchError> {
    launch_with_progress(program, config, args, &AtomicU64::new(0))
}

/// The number of workgroups `config` launches, or why it cannot.
pub fn workgroup_count(config: &LaunchConfig) -> Result<u64, LaunchError> {
    check(config)
}

/// As [`launch`], adding 1 to `done` as each workgroup finishes (for progress displays).
pub fn launch_with_progress(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    done: &AtomicU64,
) -> Result<LaunchResult, LaunchError> {
    let groups = check(config)?;
    let layout = layout(program, args)?;
    let cancel = cancel_flag(config);
    let start = Instant::now();
    let run = || run_parallel(program, config, &layout.global, 0..groups, done, cancel);
    let outcomes = if runs_on_ambient_pool(config.threads) {
        run()
    } else {
        rayon::ThreadPoolBuilder::new()
            .num_threads(config.threads)
            .build()
            .map_err(|e| LaunchError::Threads(e.to_string()))?
            .install(run)
    };
    let wall = start.elapsed();
    Ok(finish(program, layout, outcomes, wall))
}

/// Whether a launch on `threads` host threads (0: every core) runs on the rayon pool its
/// caller is running on: when the caller is a worker of a pool of exactly that many
/// threads. A suite that runs independent launches side by side on one pool (`warpkit
/// examples`) then shares its workers with their workgroups, by work stealing, instead of
/// each launch starting threads of its own. The result does not depend on it.
fn runs_on_ambient_pool(threads: usize) -> bool {
    let wanted = match threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    rayon::current_thread_index().is_some() && rayon::current_num_threads() == wanted
}

/// Run workgroups `range` on the current rayon pool, unobserved, adding 1 to `done` as
/// each finishes; `None` for those skipped after a cancel.
fn run_parallel(
    program: &Program,
    config: &LaunchConfig,
    global: &GlobalMemory,
    range: std::ops::Range<u64>,
    done: &AtomicU64,
    cancel: &AtomicBool,
) -> Vec<Option<Outcome>> {
    let (first, groups) = (range.start, range.end.saturating_sub(range.start));
    {
        // Runs of workgroups per task, so a task outweighs rayon's splitting; each task
        // keeps a [`Task`] for its workgroups.
        let chunk = (groups / (rayon::current_num_threads() as u64 * 16)).clamp(1, 64);
        (0..groups.div_ceil(chunk))
            .into_par_iter()
            .flat_map_iter(|c| {
                let mut task = Task {
                    warps: Vec::new(),
                    direct: Some(Box::new(crate::memory::direct::Direct::new())),
                };
                (first + c * chunk..first + groups.min((c + 1) * chunk)).map(move |g| {
                    if cancel.load(Ordering::Relaxed) {
                        return None;
                    }
                    let o =
                        run_workgroup(program, config, global, g, &mut NoHooks, &mut task, cancel);
                    done.fetch_add(1, Ordering::Relaxed);
                    Some(o)
                })
            })
            .collect()
    }
}

/// As [`launch`], observed: each host-thread task gets hooks from `new` (given the host
/// thread's index) that see its workgroups, and the hooks are combined with `merge`, in
/// workgroup order. Profilers use it: their counts are sums, so they do not depend on the
/// thread count. Pauses (`Control::Stop`) are resumed at once; an interrupt from one
/// task's hooks stops that task only.
pub fn launch_observed<H, N, M>(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    new: N,
    merge: M,
) -> Result<(LaunchResult, Option<H>), LaunchError>
where
    H: Hooks + Send,
    N: Fn(usize) -> H + Sync,
    M: Fn(H, H) -> H + Sync,
{
    let groups = check(config)?;
    let layout = layout(program, args)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|e| LaunchError::Threads(e.to_string()))?;
    let cancel = cancel_flag(config);
    let start = Instant::now();
    let global = &layout.global;
    let combined = pool.install(|| {
        let chunk = (groups / (pool.current_num_threads() as u64 * 16)).clamp(1, 64);
        (0..groups.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut hooks = new(rayon::current_thread_index().unwrap_or(0));
                let mut task = Task::default();
                let outcomes: Vec<Option<Outcome>> = (c * chunk..groups.min((c + 1) * chunk))
                    .map(|g| {
                        if cancel.load(Ordering::Relaxed) || hooks.interrupt().is_some() {
                            return None;
                        }
                        Some(run_workgroup(
                            program, config, global, g, &mut hooks, &mut task, cancel,
                        ))
                    })
                    .collect();
                (outcomes, hooks)
            })
            .reduce_with(|(mut a, ha), (b, hb)| {
                a.extend(b);
                (a, merge(ha, hb))
            })
    });
    let wall = start.elapsed();
    let (outcomes, hooks) = match combined {
        Some((o, h)) => (o, Some(h)),
        None => (Vec::new(), None),
    };
    Ok((finish(program, layout, outcomes, wall), hooks))
}

/// As [`launch`], observed workgroup by workgroup in batches of `batch` workgroups in flat
/// order: the workgroups of a batch run in parallel on `config.threads` host threads, each
/// under hooks of its own from `new(flat)`, and then `take(first, hooks)` receives the
/// batch's hooks in flat order (`first` is the batch's first workgroup) on the calling
/// thread, before the next batch starts. A consumer (a timing model replaying what the
/// hooks recorded) thus sees every workgroup in flat order while the launch holds at
/// most one batch's hooks. Pauses (`Control::Stop`) are resumed at once; an interrupt
/// from a workgroup's hooks stops that workgroup only.
pub fn launch_batched<H, N, T>(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    batch: u64,
    new: N,
    mut take: T,
) -> Result<LaunchResult, LaunchError>
where
    H: Hooks + Send,
    N: Fn(u64) -> H + Sync,
    T: FnMut(u64, Vec<H>),
{
    let groups = check(config)?;
    let layout = layout(program, args)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|e| LaunchError::Threads(e.to_string()))?;
    let cancel = cancel_flag(config);
    let global = &layout.global;
    let batch = batch.max(1);
    let mut outcomes: Vec<Option<Outcome>> = Vec::new();
    let mut wall = Duration::ZERO;
    let mut first = 0;
    while first < groups {
        let end = groups.min(first + batch);
        let start = Instant::now();
        let ran: Vec<(Option<Outcome>, H)> = pool.install(|| {
            let n = end - first;
            let chunk = (n / (pool.current_num_threads() as u64 * 4)).clamp(1, 16);
            (0..n.div_ceil(chunk))
                .into_par_iter()
                .flat_map_iter(|c| {
                    let mut task = Task::default();
                    let new = &new;
                    (first + c * chunk..end.min(first + (c + 1) * chunk)).map(move |g| {
                        let mut hooks = new(g);
                        if cancel.load(Ordering::Relaxed) {
                            return (None, hooks);
                        }
                        let o = run_workgroup(
                            program, config, global, g, &mut hooks, &mut task, cancel,
                        );
                        (Some(o), hooks)
                    })
                })
                .collect()
        });
        wall += start.elapsed();
        let mut hooks = Vec::with_capacity(ran.len());
        for (o, h) in ran {
            outcomes.push(o);
            hooks.push(h);
        }
        take(first, hooks);
        first = end;
    }
    Ok(finish(program, layout, outcomes, wall))
}

/// The flag the run loops check: the configured one, or one nobody sets.
fn cancel_flag(config: &LaunchConfig) -> &AtomicBool {
    config
        .cancel
        .as_ref()
        .map_or(&crate::control::NEVER, CancelFlag::as_atomic)
}

/// As [`launch`], on the calling thread, workgroup after workgroup, every warp observed
/// by `hooks` in that order (a tracer, a profiler). A hook's pause (`Control::Stop`) is
/// resumed at once; use a [`Session`] to stop and inspect. When the hooks ask to stop the
/// run ([`Hooks::interrupt`]) or the launch is cancelled, it stops there and the result
/// says why.
pub fn launch_with_tracer<H: Hooks>(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    hooks: &mut H,
) -> Result<LaunchResult, LaunchError> {
    let mut session = Session::new(program, config, args)?;
    while session.run(hooks) == Progress::Paused {}
    Ok(session.finish_with(hooks.interrupt()))
}

/// As [`launch`], on the calling thread, workgroup after workgroup, writing the commit
/// log to `out` in that order (a [`WriteTracer`]; see [`launch_with_tracer`] to cap it).
/// Returns the result and the trace writer's I/O outcome.
pub fn launch_traced<W: std::io::Write>(
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
    out: W,
    format: TraceFormat,
) -> Result<(LaunchResult, std::io::Result<W>), LaunchError> {
    let mut tracer = WriteTracer::new(out, format);
    let r = launch_with_tracer(program, config, args, &mut tracer)?;
    Ok((r, tracer.finish()))
}

/// Where a [`Session`] is after [`Session::run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A hook stopped a warp; [`Session::current`] holds it, still running.
    Paused,
    /// Every workgroup has run.
    Finished,
    /// The launch was cancelled or the hooks interrupted it ([`Hooks::interrupt`]):
    /// nothing more runs.
    Interrupted,
}

/// A launch run step by step on the calling thread: workgroups in order, each to its end,
/// under hooks that may pause it. Running a session to its end with no pauses gives the
/// same result as [`launch`] (the grid is the same; workgroups share only global memory).
/// This is what debuggers and bindings drive.
pub struct Session<'p> {
    program: &'p Program,
    config: LaunchConfig,
    layout: Layout,
    groups: u64,
    /// The next workgroup to start.
    next: u64,
    active: Option<Active>,
    outcomes: Vec<Outcome>,
    pool: Vec<Warp>,
    wall: Duration,
    /// Pause when a workgroup has run to its end, before it is put away.
    pause_at_end: bool,
    /// The current workgroup has run to its end and the session paused there.
    held: bool,
}

impl<'p> Session<'p> {
    /// Map memory and check the configuration; nothing runs yet.
    pub fn new(
        program: &'p Program,
        config: &LaunchConfig,
        args: Vec<Arg>,
    ) -> Result<Session<'p>, LaunchError> {
        let groups = check(config)?;
        let layout = layout(program, args)?;
        Ok(Session {
            program,
            config: config.clone(),
            layout,
            groups,
            next: 0,
            active: None,
            outcomes: Vec::new(),
            pool: Vec::new(),
            wall: Duration::ZERO,
            pause_at_end: false,
            held: false,
        })
    }

    /// Pause ([`Progress::Paused`]) when a workgroup has run to its end (every warp ended,
    /// trapped, hit the step limit or is deadlocked at a barrier), before its reports are
    /// taken and the next one starts, so a debugger can inspect its final state; the next
    /// [`Session::run`] goes on with the next workgroup.
    pub fn set_pause_at_workgroup_end(&mut self, on: bool) {
        self.pause_at_end = on;
    }

    /// Whether the session is paused at the end of the current workgroup
    /// ([`Session::set_pause_at_workgroup_end`]).
    pub fn at_workgroup_end(&self) -> bool {
        self.held
    }

    /// The program the session runs.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The launch configuration the session runs with.
    pub fn config(&self) -> &LaunchConfig {
        &self.config
    }

    /// Workgroups in the grid.
    pub fn workgroups(&self) -> u64 {
        self.groups
    }

    /// Start the next workgroup if none is running; false when every one has run.
    pub fn ensure_started(&mut self) -> bool {
        if self.active.is_none() && self.next < self.groups {
            self.active = Some(start_workgroup(
                self.program,
                &self.config,
                self.next,
                &mut self.pool,
            ));
            self.next += 1;
        }
        self.active.is_some()
    }

    /// Run until a hook stops a warp, every workgroup has run, or the run is cancelled
    /// or interrupted.
    pub fn run<H: Hooks>(&mut self, hooks: &mut H) -> Progress {
        let start = Instant::now();
        // A clone of the shared flag, so the loop may borrow `self` mutably.
        let flag = self.config.cancel.clone();
        let cancel = flag
            .as_ref()
            .map_or(&crate::control::NEVER, CancelFlag::as_atomic);
        let progress = loop {
            if cancel.load(Ordering::Relaxed) || hooks.interrupt().is_some() {
                break Progress::Interrupted;
            }
            let starting = self.active.is_none();
            if !self.ensure_started() {
                break Progress::Finished;
            }
            let Some(active) = self.active.as_mut() else {
                break Progress::Finished;
            };
            if starting {
                hooks.begin_workgroup(active.flat, active.group.id);
            }
            if !active.run(
                self.program,
                &self.config,
                &self.layout.global,
                hooks,
                cancel,
                None,
            ) {
                if cancel.load(Ordering::Relaxed) || hooks.interrupt().is_some() {
                    break Progress::Interrupted;
                }
                break Progress::Paused;
            }
            // Running a finished workgroup again does nothing, so the pause costs nothing.
            if self.pause_at_end && !self.held {
                self.held = true;
                break Progress::Paused;
            }
            self.held = false;
            if let Some(done) = self.active.take() {
                hooks.end_workgroup(done.group.id, &done.group.warps);
                self.outcomes
                    .push(done.outcome(self.program, &self.config, &mut self.pool));
            }
        };
        self.wall += start.elapsed();
        progress
    }

    /// Instructions attempted so far (retired or trapped) by every warp of the grid: the
    /// step count of `--stop-after-steps`.
    pub fn attempted(&self) -> u64 {
        let warps = self.active.iter().flat_map(|a| &a.group.warps);
        self.outcomes
            .iter()
            .map(|o| o.steps)
            .chain(warps.map(|w| w.steps))
            .fold(0, u64::saturating_add)
    }

    /// Whether every workgroup has run to its end.
    pub fn finished(&self) -> bool {
        self.active.is_none() && self.next >= self.groups
    }

    /// Workgroups that have run to their end.
    pub fn workgroups_done(&self) -> u64 {
        self.outcomes.len() as u64
    }

    /// Run, observed by `hooks`, until the grid has attempted `steps` instructions
    /// ([`Session::attempted`]), and pause there, before the next instruction; or until
    /// every workgroup has run, or the run is cancelled or interrupted. The grid's
    /// instructions are counted in the session's fixed order (workgroups in flat order,
    /// the warps of one in their schedule), so the pause point never depends on anything
    /// but `steps`. Pauses the hooks ask for are resumed at once.
    pub fn run_to_step<H: Hooks>(&mut self, steps: u64, hooks: &mut H) -> Progress {
        loop {
            let left = steps.saturating_sub(self.attempted());
            let mut budget = (StepBudget::new(left), &mut *hooks);
            match self.run(&mut budget) {
                Progress::Paused if self.attempted() < steps => continue,
                progress => return progress,
            }
        }
    }

    /// Host threads for [`Session::finish_parallel`] (0 = one per core).
    pub fn set_threads(&mut self, threads: usize) {
        self.config.threads = threads;
    }

    /// Stop the run when `flag` is set (see [`LaunchConfig::cancel`]).
    pub fn set_cancel(&mut self, flag: Option<CancelFlag>) {
        self.config.cancel = flag;
    }

    /// Run the rest of the launch unobserved and finish: the current workgroup to its end
    /// on the calling thread, then the workgroups not yet started on the configured host
    /// threads, as [`launch`] runs them (the result does not depend on how many). Adds 1
    /// to `done` as each workgroup finishes.
    pub fn finish_parallel(mut self, done: &AtomicU64) -> Result<LaunchResult, LaunchError> {
        let start = Instant::now();
        let flag = self.config.cancel.clone();
        let cancel = flag
            .as_ref()
            .map_or(&crate::control::NEVER, CancelFlag::as_atomic);
        if let Some(mut active) = self.active.take() {
            while !active.run(
                self.program,
                &self.config,
                &self.layout.global,
                &mut NoHooks,
                cancel,
                None,
            ) && !cancel.load(Ordering::Relaxed)
            {}
            self.outcomes
                .push(active.outcome(self.program, &self.config, &mut self.pool));
            done.fetch_add(1, Ordering::Relaxed);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.config.threads)
            .build()
            .map_err(|e| LaunchError::Threads(e.to_string()))?;
        let rest = pool.install(|| {
            run_parallel(
                self.program,
                &self.config,
                &self.layout.global,
                self.next..self.groups,
                done,
                cancel,
            )
        });
        self.next = self.groups;
        let mut outcomes: Vec<Option<Outcome>> = self.outcomes.drain(..).map(Some).collect();
        outcomes.extend(rest);
        self.wall += start.elapsed();
        Ok(finish(self.program, self.layout, outcomes, self.wall))
    }

    /// The workgroup being run (flat index and state), if one is.
    pub fn current(&self) -> Option<(u64, &Workgroup)> {
        self.active.as_ref().map(|a| (a.flat, &a.group))
    }

    /// The workgroup being run, to change its warps' registers.
    pub fn current_mut(&mut self) -> Option<&mut Workgroup> {
        self.active.as_mut().map(|a| &mut a.group)
    }

    /// The current workgroup's shared memory.
    pub fn shared(&self) -> Option<&SharedMemory> {
        self.active.as_ref().map(|a| &a.shared)
    }

    /// The current workgroup's shared memory, to change it.
    pub fn shared_mut(&mut self) -> Option<&mut SharedMemory> {
        self.active.as_mut().map(|a| &mut a.shared)
    }

    /// The current workgroup's scratch memory (empty without `scratch_bytes`).
    pub fn scratch(&self) -> Option<&ScratchMemory> {
        self.active.as_ref().map(|a| &a.scratch)
    }

    /// The current workgroup's core (`time`).
    pub fn core(&self) -> Option<&Core> {
        self.active.as_ref().map(|a| &a.core)
    }

    /// Global memory (code, argument block, buffers).
    pub fn global(&self) -> &GlobalMemory {
        &self.layout.global
    }

    /// The buffer arguments: name and address.
    pub fn buffers(&self) -> &[(String, u64)] {
        &self.layout.buffers
    }

    /// Finish: run nothing more; the result covers the workgroups that ran (a current,
    /// paused workgroup is reported as it stands, and the result is then marked
    /// interrupted, as it is when workgroups never started).
    pub fn finish(self) -> LaunchResult {
        self.finish_with(None)
    }

    /// As [`Session::finish`], the result marked with `why` if the run was interrupted
    /// (the hooks' [`Hooks::interrupt`]).
    pub fn finish_with(mut self, why: Option<Interrupt>) -> LaunchResult {
        let mut outcomes: Vec<Option<Outcome>> = self.outcomes.drain(..).map(Some).collect();
        if let Some(active) = self.active.take() {
            outcomes.push(Some(active.outcome(
                self.program,
                &self.config,
                &mut self.pool,
            )));
        }
        if self.next < self.groups {
            outcomes.push(None);
        }
        let mut r = finish(self.program, self.layout, outcomes, self.wall);
        // Hooks that stopped the run have lost records even if the last warp then ended.
        if let Some(why) = why {
            r.interrupted = Some(why);
        }
        r
    }
}
