//! The translation tier: blocks of pre-decoded instructions compiled to native code
//! (x86-64 with AVX2, and AVX-512 for runs of lane-local instructions where the host has
//! it: [`VectorIsa`]), entered by the interpreter loop when no hooks observe the warp and
//! no asynchronous hazard is being watched. The interpreter stays the reference: the tier
//! translates only instructions that cannot trap or whose every trapping case leaves the
//! block before the instruction (32-bit loads, stores and simple atomics of global and
//! shared memory inside their bounds: word runs, gathers and scatters), so a
//! translated run is a sequence of blocks, or of block prefixes, whose effect is exactly
//! the interpreter's; everything else (and any block that would overrun the step budget)
//! is interpreted. `crates/sim/tests/it/engines.rs` runs both engines side by side.

mod kind;
mod pending;
#[cfg(all(target_arch = "x86_64", unix))]
mod x64;

pub use kind::{lane_local, translated, wide_only};

use crate::engine::{Executor, Ran};
use crate::memory::direct::Direct;
use crate::memory::{DirectMemory, GlobalMemory, ScratchMemory};
use crate::program::Program;
use crate::state::queue::NUM_COUNTERS;
use crate::state::warp::Warp;
use crate::state::Core;
use crate::tier::{Engine, MemoryFallbacks, TranslationStats, VectorIsa};
use pending::PendingLoad;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
    /// The direct state of entries whose environment has no direct memory.
    static SPARE: std::cell::RefCell<Box<Direct>> = std::cell::RefCell::new(Box::new(Direct::new()));
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
    /// `MemoryFallbacks`' three counts, summed over the launches that finished.
    fallbacks: [AtomicU64; 3],
}

impl std::fmt::Debug for Translation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translation")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// `prog`'s translated code, if it runs on the translation tier and could be translated;
/// the first call translates.
pub(crate) fn translation(prog: &Program) -> Option<&Translation> {
    if prog.engine() != Engine::Jit {
        return None;
    }
    prog.engine_code(Translation::new)
}

/// What translating `prog` cost and produced (translating it now if it runs on the
/// translation tier and was not translated yet); `None` if it is not translated.
pub fn translation_stats(prog: &Program) -> Option<TranslationStats> {
    translation(prog).map(Translation::stats)
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
                memory_fallbacks: MemoryFallbacks::default(),
            };
            Some(Translation {
                code,
                consts: Box::new(x64::Consts::new()),
                tables,
                enter,
                exit,
                stats,
                fallbacks: Default::default(),
            })
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            let _ = prog;
            None
        }
    }

    /// What translating the program cost and produced: instructions, blocks, code bytes
    /// and time; and the memory instructions its finished launches interpreted.
    pub fn stats(&self) -> TranslationStats {
        let [untranslated, exits, watched] =
            self.fallbacks.each_ref().map(|c| c.load(Ordering::Relaxed));
        TranslationStats {
            memory_fallbacks: MemoryFallbacks {
                untranslated,
                exits,
                watched,
            },
            ..self.stats
        }
    }

    /// Add a finished launch's fallbacks (once per launch: the workers count in their
    /// warps).
    pub(crate) fn note_fallbacks(&self, f: MemoryFallbacks) {
        for (counter, n) in self
            .fallbacks
            .iter()
            .zip([f.untranslated, f.exits, f.watched])
        {
            if n > 0 {
                counter.fetch_add(n, Ordering::Relaxed);
            }
        }
    }

    /// Run translated blocks from `pc` for at most `budget` instructions. Returns the next
    /// PC and the instructions executed, or `None` if there is no block at `pc` or it does
    /// not fit in the budget (the interpreter then takes the next step). Updates the PC,
    /// retired and lane-operation counts of `warp` and `core`'s committed count.
    ///
    /// The lookup is inlined into the interpreter loop, which asks at every instruction it
    /// interprets; only entering translated code is a call.
    #[inline(always)]
    fn run(
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

    /// Count the memory instruction at `pc` (if it is one) in `warp`'s fallbacks: the
    /// interpreter is about to run it.
    #[inline]
    pub(crate) fn count_fallback(&self, warp: &mut Warp, pc: u32) {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            let class = self.code.slot_class.get((pc >> 2) as usize).copied();
            let Some(class) = class.filter(|c| c & x64::MEMORY != 0 && pc & 3 == 0) else {
                return;
            };
            let f = &mut warp.fallbacks;
            if warp.queue.watch {
                f.watched += 1;
            } else if class & x64::TRANSLATED != 0 {
                f.exits += 1;
            } else {
                f.untranslated += 1;
            }
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        let _ = (warp, pc);
    }

    /// Whether the translated code accesses shared memory.
    fn shared(&self) -> bool {
        #[cfg(all(target_arch = "x86_64", unix))]
        return self.code.shared;
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        false
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
            Some(d) => {
                let memory = Some((d.global, d.scratch));
                // The workgroup's shared memory, allocated (as its first store would) where
                // the code accesses it; else none, and a shared access would leave.
                (d.state.shared_host, d.state.shared_len) = match self.shared() {
                    true if !d.shared.is_empty() => {
                        (d.shared.words_mut().as_mut_ptr() as u64, d.shared.len())
                    }
                    _ => (0, 0),
                };
                self.enter_with(warp, core, table, entry, budget, d.state, memory)
            }
            // Without direct memory every access misses its (empty) hint and leaves, or
            // finds no shared memory; the state is the thread's spare one, not one built
            // per entry.
            None => SPARE.with(|spare| {
                let mut spare = spare.borrow_mut();
                (spare.shared_host, spare.shared_len) = (0, 0);
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
        memory: Option<(&GlobalMemory, &ScratchMemory)>,
    ) -> Option<(u32, u64)> {
        let exec = warp.exec();
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            let mut pre = [0u32; NUM_COUNTERS];
            for (c, p) in pre.iter_mut().enumerate() {
                *p = warp.queue.count(c);
            }
            state.pre[..NUM_COUNTERS].copy_from_slice(&pre);
            for ring in &mut state.rings {
                ring.head = 0;
                ring.len = 0;
            }
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
                fp: if self.code.float {
                    fp_allowed(warp.csr.mode())
                } else {
                    0
                },
                tables: [self.tables[0].as_ptr(), self.tables[1].as_ptr()],
                direct: &mut *state,
                mxcsr: 0,
                mxcsr_out: 0,
            };
            // SAFETY: `enter` is the prologue this translation emitted, with the signature
            // of `EnterFn`; the code only touches the register files, constants and direct
            // state `ctx` points to (indices were checked at pre-decode), the tables (jump
            // targets checked against their length), and global memory inside the regions
            // its hints name (bounds checked before each access; the regions live as long
            // as `global`, which outlives this call, or are a warp's region of a scratch
            // memory, whose hints are emptied when the environment lending it ends). The
            // host has AVX2 and POPCNT (checked in `new`).
            let next = unsafe {
                let f: x64::EnterFn = std::mem::transmute(self.enter);
                f(&mut ctx, entry)
            };
            if self.code.float {
                // The flags the f32 instructions raised (`x64/fp.rs`).
                let flags = crate::exec::fp::fpu::mxcsr_flags(ctx.mxcsr_out);
                warp.csr.accrue_fflags(u32::from(flags.bits()));
            }
            if state.miss != 0 {
                if let Some((global, scratch)) = memory {
                    state.refill(global, scratch);
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
            warp.retire(core, used, ctx.lane_ops);
            warp.translated += used;
            if ctx.exec != exec {
                warp.set_exec(ctx.exec);
            }
            Some((next, used))
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            let _ = (warp, core, table, entry, budget, exec, state, memory);
            None
        }
    }
}

impl Executor for Translation {
    #[inline(always)]
    fn run_from<E: crate::env::Env>(
        &self,
        warp: &mut Warp,
        _prog: &Program,
        core: &mut Core,
        env: &mut E,
        pc: u32,
        budget: u64,
    ) -> Ran {
        match self.run(warp, core, pc, budget, env) {
            Some((next, steps)) => Ran::Next { next, steps },
            None => Ran::Declined,
        }
    }
}

/// What `mode` lets translated f32 instructions do (`kind::fp_needs`): [`kind::FP_RNE`]
/// where it neither flushes f32 subnormals nor enables a trap, with [`kind::FP_DYN`] where
/// it also rounds in `rne`.
#[cfg(all(target_arch = "x86_64", unix))]
fn fp_allowed(mode: u32) -> u32 {
    use crate::state::csr::mode;
    if mode & (mode::FTZ32 | mode::TRAP_ENABLES) != 0 {
        return 0;
    }
    let dyn_rne = mode & mode::RM_MASK == mode::RM_RNE;
    u32::from(kind::FP_RNE) | if dyn_rne { u32::from(kind::FP_DYN) } else { 0 }
}

/// Bring the warp's queue to what the interpreter would have after the operations
/// translated code issued and retired: drop the operations from before that its
/// `waitcnt`s retired (they write nothing), then queue the operations its rings keep and
/// the exit's pending operations (`record`) in issue order (a partial-EXEC load writes
/// the lanes of EXEC at its issue).
#[cfg(all(target_arch = "x86_64", unix))]
fn absorb(warp: &mut Warp, state: &Direct, pre: &[u32; NUM_COUNTERS], record: &[PendingLoad]) {
    if state.rings.iter().all(|r| r.len == 0)
        && record.is_empty()
        && state.pre[..NUM_COUNTERS] == pre[..]
    {
        return; // the common case: no memory instruction, or only waits on nothing
    }
    for (c, &before) in pre.iter().enumerate() {
        for _ in state.pre[c]..before {
            warp.retire_written_nothing(c);
        }
    }
    // Every operation still pending, by issue number: the rings' (which write nothing)
    // and the record's, each already in issue order.
    let counters = pending::ring_counters();
    let mut rings = state.rings.each_ref().map(|r| r.iter().peekable());
    let mut loads = record.iter().peekable();
    loop {
        let load = loads.peek().map(|l| state.row_seq[usize::from(l.row)]);
        let ring = (0..rings.len())
            .filter_map(|r| rings[r].peek().map(|&[_, seq]| (seq, r)))
            .min();
        let l = match (ring, load) {
            (None, None) => break,
            (Some((seq, r)), load) if load.is_none_or(|l| seq < l) => {
                let [pc, _] = rings[r].next().expect("peeked");
                warp.issue(counters[r], pc, crate::state::queue::Writeback::None);
                continue;
            }
            _ => loads.next().expect("peeked"),
        };
        let row = &state.rows[usize::from(l.row)];
        if l.store {
            let writeback = crate::state::queue::Writeback::None;
            warp.issue(usize::from(l.counter), l.pc, writeback);
        } else if l.uniform > 0 {
            // The words past the load's are zero, as the interpreter leaves them.
            let n = usize::from(l.uniform);
            let mut data = [0u32; 8];
            data[..n].copy_from_slice(&row[..n]);
            let writeback = crate::state::queue::Writeback::U {
                first: l.rd,
                count: l.uniform,
                data,
            };
            warp.issue(usize::from(l.counter), l.pc, writeback);
        } else if l.masked {
            let (c, part) = (usize::from(l.counter), crate::state::queue::Part::Whole);
            let exec = state.row_exec[usize::from(l.row)];
            warp.issue_v(c, l.pc, l.rd, exec, part, std::slice::from_ref(row));
        } else {
            // A full-EXEC load's words are where its row's source says: a word run's are
            // read only now.
            let src = state.row_src[usize::from(l.row)] as *const [u32; crate::state::LANES];
            // SAFETY: translated code set the source when it issued the load, in this
            // entry (it enters with no load pending): the host address of 128 bytes
            // inside a region its hint held or inside the workgroup's shared memory, both
            // in place while the warp runs, or the load's own row. Nothing wrote them
            // since (translated code reads the pending loads' words into their rows
            // before it writes memory).
            let words = unsafe { std::ptr::read_unaligned(src) };
            warp.issue_row(usize::from(l.counter), l.pc, l.rd, |r| *r = words);
        }
    }
}
