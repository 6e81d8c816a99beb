//! The translation tier: blocks of pre-decoded instructions compiled to native code
//! (x86-64 with AVX2, and AVX-512 for runs of lane-local instructions where the host has
//! it: [`VectorIsa`]), entered by the interpreter loop when no hooks observe the warp and
//! no asynchronous hazard is being watched. The interpreter stays the reference: the tier
//! translates only instructions that cannot trap or whose every trapping case leaves the
//! block before the instruction (the word runs of `gload.b32`/`gstore.b32`), so a
//! translated run is a sequence of blocks, or of block prefixes, whose effect is exactly
//! the interpreter's; everything else (and any block that would overrun the step budget)
//! is interpreted. `crates/sim/tests/engines.rs` runs both engines side by side.

mod kind;
mod pending;
#[cfg(all(target_arch = "x86_64", unix))]
mod x64;

pub use kind::{lane_local, translated};

use crate::asyncq::NUM_COUNTERS;
use crate::env::Core;
use crate::memory::GlobalMemory;
use crate::program::Program;
use crate::regs::LANES;
use crate::warp::Warp;
use pending::PendingLoad;
use std::sync::atomic::{AtomicU8, Ordering};

/// Loads one block may keep pending at once.
pub(crate) const PENDING_ROWS: usize = 8;
/// Region hints: the first half for loads, the second for stores (filled only with
/// writable regions), one per translated load or store (by its number among the
/// program's loads or stores, modulo half of this), so a store never uses a read-only
/// region a load's hint holds.
pub(crate) const HINTS: usize = 32;
/// Stores translated code may leave pending: at least the store counter's in-flight limit.
pub(crate) const RING: usize = 32;

/// The region a memory instruction last hit: bytes `lo..end` of global memory are the
/// host words from `host`. Empty (`lo > end`) until the first miss fills it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hint {
    lo: u64,
    end: u64,
    host: u64,
}

/// What translated code keeps of the asynchronous operations and memory it touches,
/// besides the register files; one per [`crate::MemEnv`], or per launch task across its
/// workgroups (its layout is known to the code). `pending.rs` explains the split of the
/// queue.
#[repr(C, align(32))]
#[derive(Debug)]
pub(crate) struct Direct {
    /// The data of the block's pending loads.
    rows: [[u32; LANES]; PENDING_ROWS],
    hints: [Hint; HINTS],
    /// Stores issued by translated code and still pending: (pc, issue number).
    ring: [[u32; 2]; RING],
    /// The issue number of each pending load's row.
    row_seq: [u32; PENDING_ROWS],
    /// Per counter, the operations pending at entry that are still pending (all of them
    /// write nothing).
    pre: [u32; 8],
    ring_head: u32,
    ring_len: u32,
    /// The next issue number.
    seq: u32,
    /// The exit record: which loads were pending at the exit taken (0: none).
    record: u32,
    /// A hint that missed: its index + 1, with `MISS_WRITE` for a store (0: none).
    miss: u32,
    _pad: u32,
    /// The lowest address of the access that missed.
    miss_lo: u64,
}

/// In [`Direct::miss`]: the access that missed is a store.
pub(crate) const MISS_WRITE: u32 = 1 << 16;

impl Direct {
    pub(crate) fn new() -> Direct {
        Direct {
            rows: [[0; LANES]; PENDING_ROWS],
            hints: [Hint {
                lo: u64::MAX,
                end: 0,
                host: 0,
            }; HINTS],
            ring: [[0; 2]; RING],
            row_seq: [0; PENDING_ROWS],
            pre: [0; 8],
            ring_head: 0,
            ring_len: 0,
            seq: 0,
            record: 0,
            miss: 0,
            _pad: 0,
            miss_lo: 0,
        }
    }

    /// Fill the hint that missed from the region holding the access, if one does (else the
    /// interpreter raises the fault, or takes its general path, and the hint stays).
    fn refill(&mut self, global: &GlobalMemory) {
        let index = (self.miss & 0xffff) as usize;
        let write = self.miss & MISS_WRITE != 0;
        self.miss = 0;
        let Some(hint) = index.checked_sub(1).and_then(|i| self.hints.get_mut(i)) else {
            return;
        };
        if let Some((base, len, host)) =
            global.region_holding(self.miss_lo, 4 * LANES as u32, write)
        {
            *hint = Hint {
                lo: base,
                end: base + len,
                host: host as u64,
            };
        }
    }
}

/// The memory a warp's environment lets translated code access directly: global memory,
/// and the state translated code keeps beside it. Obtained from
/// [`crate::env::Env::direct`]; environments without one run memory instructions
/// interpreted.
pub struct DirectMemory<'a> {
    pub(crate) state: &'a mut Direct,
    pub(crate) global: &'a GlobalMemory,
}

/// Which engine runs a program's warps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The interpreter: the reference, and the only engine that runs under hooks
    /// (tracing, breakpoints, profiles) or while hazards are watched.
    Interp,
    /// The translation tier, falling back to the interpreter where it must.
    Jit,
}

/// `--engine` named something else.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown engine '{0}' (expected 'jit' or 'interp')")]
pub struct UnknownEngine(pub String);

impl std::str::FromStr for Engine {
    type Err = UnknownEngine;
    fn from_str(s: &str) -> Result<Engine, UnknownEngine> {
        match s {
            "jit" => Ok(Engine::Jit),
            "interp" => Ok(Engine::Interp),
            _ => Err(UnknownEngine(s.to_string())),
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

const DEFAULT_UNSET: u8 = 0;
const DEFAULT_INTERP: u8 = 1;
const DEFAULT_JIT: u8 = 2;
static PROCESS_DEFAULT: AtomicU8 = AtomicU8::new(DEFAULT_UNSET);

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Interp => "interp",
            Engine::Jit => "jit",
        }
    }

    /// Whether this host can run translated code (x86-64 with AVX2 and POPCNT, on a Unix).
    pub fn jit_supported() -> bool {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            false
        }
    }

    /// The engine a program runs on unless told otherwise: the one set with
    /// [`Engine::set_process_default`], else `jit` where the host supports it.
    pub fn host_default() -> Engine {
        match PROCESS_DEFAULT.load(Ordering::Relaxed) {
            DEFAULT_INTERP => Engine::Interp,
            DEFAULT_JIT => Engine::Jit,
            _ if Engine::jit_supported() => Engine::Jit,
            _ => Engine::Interp,
        }
    }

    /// Make `engine` the default of every program of this process that was not given one.
    pub fn set_process_default(engine: Engine) {
        let v = match engine {
            Engine::Interp => DEFAULT_INTERP,
            Engine::Jit => DEFAULT_JIT,
        };
        PROCESS_DEFAULT.store(v, Ordering::Relaxed);
    }
}

/// The vector instructions translated code uses for runs of lane-local instructions
/// (everything else uses AVX2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorIsa {
    /// 256-bit AVX2: a row is four quarters.
    Avx2,
    /// 512-bit AVX-512 (F and BW): a row is two halves.
    Avx512,
}

impl VectorIsa {
    pub const ALL: [VectorIsa; 2] = [VectorIsa::Avx2, VectorIsa::Avx512];

    pub fn name(self) -> &'static str {
        match self {
            VectorIsa::Avx2 => "avx2",
            VectorIsa::Avx512 => "avx512",
        }
    }

    /// Whether this host runs translated code with it.
    pub fn supported(self) -> bool {
        if !Engine::jit_supported() {
            return false;
        }
        match self {
            VectorIsa::Avx2 => true,
            VectorIsa::Avx512 => {
                #[cfg(target_arch = "x86_64")]
                {
                    std::is_x86_feature_detected!("avx512f")
                        && std::is_x86_feature_detected!("avx512bw")
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    false
                }
            }
        }
    }

    /// The widest this host runs.
    pub fn host_best() -> VectorIsa {
        if VectorIsa::Avx512.supported() {
            VectorIsa::Avx512
        } else {
            VectorIsa::Avx2
        }
    }
}

thread_local! {
    /// The direct state of entries whose environment has no direct memory.
    static SPARE: std::cell::RefCell<Box<Direct>> = std::cell::RefCell::new(Box::new(Direct::new()));
}

/// What translating a program produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TranslationStats {
    /// Instructions emitted, summed over blocks and both variants.
    pub instructions: usize,
    /// Blocks, both variants.
    pub blocks: usize,
    /// Bytes of machine code.
    pub code_bytes: usize,
    /// Time spent translating.
    pub nanos: u64,
}

/// A program's translated code.
pub struct Translation {
    #[cfg(all(target_arch = "x86_64", unix))]
    code: x64::Code,
    #[cfg(all(target_arch = "x86_64", unix))]
    consts: Box<x64::Consts>,
    /// Per variant, the address to enter at each slot (`exit` where there is no block).
    tables: [Vec<usize>; 2],
    /// The address of the prologue (`x64::EnterFn`).
    enter: usize,
    exit: usize,
    stats: TranslationStats,
}

impl std::fmt::Debug for Translation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translation")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Translation {
    /// Translate `prog`, or `None` where the host cannot run translated code or the program
    /// is too large to translate eagerly.
    pub(crate) fn new(prog: &Program) -> Option<Translation> {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            if !Engine::jit_supported() || prog.text().len() / 4 > x64::MAX_TRANSLATED_SLOTS {
                return None;
            }
            let started = std::time::Instant::now();
            let code = x64::translate(prog, prog.vector_isa() == VectorIsa::Avx512)?;
            let base = code.buf.ptr(dynasmrt::AssemblyOffset(0)) as usize;
            let exit = base + code.exit.0;
            let enter = base + code.enter.0;
            let tables = [0, 1].map(|v| {
                code.blocks[v]
                    .iter()
                    .map(|o| o.map_or(exit, |o| base + o.0))
                    .collect::<Vec<usize>>()
            });
            let stats = TranslationStats {
                instructions: code.instructions,
                blocks: code.blocks_count,
                code_bytes: code.buf.len(),
                nanos: started.elapsed().as_nanos() as u64,
            };
            Some(Translation {
                code,
                consts: Box::new(x64::Consts::new()),
                tables,
                enter,
                exit,
                stats,
            })
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            let _ = prog;
            None
        }
    }

    pub fn stats(&self) -> TranslationStats {
        self.stats
    }

    /// Run translated blocks from `pc` for at most `budget` instructions. Returns the next
    /// PC and the instructions executed, or `None` if there is no block at `pc` or it does
    /// not fit in the budget (the interpreter then takes the next step). Updates the PC,
    /// retired and lane-operation counts of `warp` and `core`'s committed count.
    ///
    /// The lookup is inlined into the interpreter loop, which asks at every instruction it
    /// interprets; only entering translated code is a call.
    #[inline(always)]
    pub(crate) fn run(
        &self,
        warp: &mut Warp,
        core: &mut Core,
        pc: u32,
        budget: u64,
        env: &mut impl crate::env::Env,
    ) -> Option<(u32, u64)> {
        let exec = warp.exec();
        let table = &self.tables[usize::from(exec != u32::MAX)];
        if pc & 3 != 0 {
            return None;
        }
        let entry = *table.get((pc >> 2) as usize)?;
        if entry == self.exit {
            return None;
        }
        // The environment is asked for its direct memory only on entry.
        self.enter(warp, core, table, entry, budget, env.direct())
    }

    #[inline(never)]
    fn enter(
        &self,
        warp: &mut Warp,
        core: &mut Core,
        table: &[usize],
        entry: usize,
        budget: u64,
        direct: Option<DirectMemory<'_>>,
    ) -> Option<(u32, u64)> {
        match direct {
            Some(d) => self.enter_with(warp, core, table, entry, budget, d.state, Some(d.global)),
            // Without direct memory every access misses its (empty) hint and leaves; the
            // state is the thread's spare one, not one built per entry.
            None => SPARE.with(|spare| {
                let mut spare = spare.borrow_mut();
                self.enter_with(warp, core, table, entry, budget, &mut spare, None)
            }),
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn enter_with(
        &self,
        warp: &mut Warp,
        core: &mut Core,
        table: &[usize],
        entry: usize,
        budget: u64,
        state: &mut Direct,
        global: Option<&GlobalMemory>,
    ) -> Option<(u32, u64)> {
        let exec = warp.exec();
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            let mut pre = [0u32; NUM_COUNTERS];
            for (c, p) in pre.iter_mut().enumerate() {
                *p = warp.queue.count(c);
            }
            state.pre[..NUM_COUNTERS].copy_from_slice(&pre);
            state.ring_head = 0;
            state.ring_len = 0;
            state.seq = 0;
            state.record = 0;
            let mut ctx = x64::Ctx {
                mask: warp.lane_mask().as_ptr(),
                consts: &*self.consts,
                v: warp.v.as_mut_ptr(),
                u: warp.u.as_mut_ptr(),
                table: table.as_ptr(),
                budget,
                lane_ops: 0,
                exec,
                _pad: 0,
                tables: [self.tables[0].as_ptr(), self.tables[1].as_ptr()],
                direct: &mut *state,
            };
            // SAFETY: `enter` is the prologue this translation emitted, with the signature
            // of `EnterFn`; the code only touches the register files, constants and direct
            // state `ctx` points to (indices were checked at pre-decode), the tables (jump
            // targets checked against their length), and global memory inside the regions
            // its hints name (bounds checked before each access; the regions live as long
            // as `global`, which outlives this call). The host has AVX2 and POPCNT
            // (checked in `new`).
            let next = unsafe {
                let f: x64::EnterFn = std::mem::transmute(self.enter);
                f(&mut ctx, entry)
            };
            if state.miss != 0 {
                if let Some(g) = global {
                    state.refill(g);
                }
                state.miss = 0;
            }
            let record = self.code.records.get(state.record as usize);
            absorb(warp, state, &pre, record.map_or(&[], Vec::as_slice));
            let used = budget - ctx.budget;
            if used == 0 {
                return None;
            }
            warp.pc = next;
            warp.retired += used;
            warp.translated += used;
            warp.lane_ops += ctx.lane_ops;
            if ctx.exec != exec {
                warp.set_exec(ctx.exec);
            }
            core.committed += used;
            Some((next, used))
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            let _ = (warp, core, table, entry, budget, exec, state, global);
            None
        }
    }
}

/// Bring the warp's queue to what the interpreter would have after the operations
/// translated code issued and retired: drop the operations from before that its
/// `waitcnt`s retired (they write nothing), then queue its pending stores and the exit's
/// pending loads (`record`) in issue order.
#[cfg(all(target_arch = "x86_64", unix))]
fn absorb(warp: &mut Warp, state: &Direct, pre: &[u32; NUM_COUNTERS], record: &[PendingLoad]) {
    if state.ring_len == 0 && record.is_empty() && state.pre[..NUM_COUNTERS] == pre[..] {
        return; // the common case: no memory instruction, or only waits on nothing
    }
    for (c, &before) in pre.iter().enumerate() {
        for _ in state.pre[c]..before {
            warp.retire_written_nothing(c);
        }
    }
    let store_counter = pending::store_counter();
    let mut stores = (0..state.ring_len).map(|k| state.ring[(state.ring_head + k) as usize % RING]);
    let mut loads = record.iter();
    let (mut store, mut load) = (stores.next(), loads.next());
    loop {
        let load_first = match (store, load) {
            (None, None) => break,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some([_, s]), Some(l)) => state.row_seq[usize::from(l.row)] < s,
        };
        if load_first {
            let l = load.expect("a load");
            let row = &state.rows[usize::from(l.row)];
            warp.issue_row(usize::from(l.counter), l.pc, l.rd, |r| *r = *row);
            load = loads.next();
        } else {
            let [pc, _] = store.expect("a store");
            warp.issue(store_counter, pc, crate::asyncq::Writeback::None);
            store = stores.next();
        }
    }
}
