//! The emitter's state, the operands of an instruction and the row cache that keeps rows
//! in host registers across a run of lane-local instructions.

use super::layout::row;
use crate::engine::jit::kind::{Kind, VSrc};
use crate::engine::jit::pending::{Pending, PendingLoad};
use crate::exec::fp::Arith;
use crate::program::Inst;
use crate::program::Program;
use dynasmrt::{dynasm, x64::Assembler, DynamicLabel, DynasmApi};
use iced_x86::Encoder;

/// Instructions in one block at most: keeps the budget check of a block's prologue from
/// forcing a long run back to the interpreter near the step limit.
pub(super) const MAX_BLOCK: usize = 64;

pub(super) struct Emitter<'a> {
    pub(super) ops: Assembler,
    pub(super) prog: &'a Program,
    pub(super) slots: usize,
    pub(super) exit: DynamicLabel,
    pub(super) labels: [Vec<Option<DynamicLabel>>; 2],
    /// The run of lane-local instructions being emitted, if any.
    pub(super) run: Option<Run>,
    /// The loads the block being emitted has pending.
    pub(super) pending: Pending,
    pub(super) records: Vec<Vec<PendingLoad>>,
    /// Per instruction of the block being emitted, what a side exit before it gives back:
    /// its steps and vector instructions, each of EXEC's lanes a lane-operation (the
    /// block's head counted the whole block).
    pub(super) refunds: Vec<(i32, i32)>,
    /// Whether the block being emitted is of the masked variant.
    pub(super) masked: bool,
    /// Per slot, the kind of the instruction if translated (in both variants).
    pub(super) kinds: Vec<Option<Kind>>,
    /// Per slot, whether a block starts there.
    pub(super) leaders: Vec<bool>,
    /// Per slot: a leader only because it follows a wait or a global store or atomic, so
    /// a block may run on through it ([`super::leaders`]).
    pub(super) through: Vec<bool>,
    /// The address row of the block's last word-run check, not written since: a later
    /// word-run access through it reads the check's outcome from `Direct::not_run`.
    pub(super) word_run: Option<u8>,
    /// Blocks entered with loads pending (carried from the block that issued them past a
    /// branch or an EXEC write), by start slot, variant and pending operations: their
    /// labels.
    pub(super) carried: std::collections::HashMap<(usize, bool, Vec<PendingLoad>), DynamicLabel>,
    /// Carried blocks to emit: start slot, variant, pending operations, label.
    pub(super) worklist: Vec<(usize, bool, Vec<PendingLoad>, DynamicLabel)>,
    /// The instruction of the block being emitted.
    pub(super) at: usize,
    /// The exits from the middle of the block, emitted after it.
    pub(super) stubs: Vec<Stub>,
    /// Loads and stores translated so far: each takes the next region hint of its half.
    pub(super) accesses: [usize; 2],
    /// The region hint of each memory instruction translated, by PC.
    pub(super) hint_of: std::collections::HashMap<u32, usize>,
    /// Whether runs of lane-local instructions use AVX-512 (`avx512.rs`).
    pub(super) avx512: bool,
    /// The encoder of AVX-512 instructions.
    pub(super) evex: Evex,
    /// The paths of f32 results with a NaN lane, emitted after the block (`fp.rs`).
    pub(super) nan_fixes: Vec<NanFix>,
    /// The paths that raise NV for an `fmin`/`fmax` with a signaling NaN operand in an
    /// active lane (`fp.rs`): their labels and where they return to.
    pub(super) nv_raises: Vec<(DynamicLabel, DynamicLabel)>,
    /// Whether the program has translated f32 instructions: its translated code runs
    /// under its own MXCSR (`fp.rs`).
    pub(super) float: bool,
    /// Set by a 512-bit run for the store right after it: the row it stores and the
    /// `zmm` registers holding its two halves (untouched by the run's end), which the
    /// store writes out instead of reading the row back (a store-to-load step less).
    /// Cleared after every other instruction.
    pub(super) held: Option<(u8, [u8; 2])>,
    /// Set by a `waitcnt` of the full variant with AVX-512: the rows its loads wrote and
    /// the `zmm` registers each left both halves in (`zmm16 + i` and `zmm24 + i`, the
    /// i-th slot of each half's row cache), for a run right after it to start with them
    /// cached. Cleared before every other instruction.
    pub(super) retired_rows: Vec<(u8, [u8; 2])>,
    /// Whether the code being emitted is in 512-bit state: the run constants set
    /// ([`Emitter::constants_512`]) and the upper halves of `zmm0..zmm15` in use, since a
    /// run with only uniform operations after it ([`Emitter::cool`] leaves the state).
    pub(super) warm: bool,
    /// Per variant, the entry of each block that starts with a 512-bit run for code in
    /// 512-bit state: after the run's constants, which such a block sets before its step
    /// check (`avx512.rs`).
    pub(super) warm_entries: [Vec<Option<DynamicLabel>>; 2],
}

/// An exit before the instruction at `pc`, the `at`-th of its block: back to the
/// interpreter, which runs it.
pub(super) struct Stub {
    pub(super) label: DynamicLabel,
    /// Set where a region hint missed: the label that records the miss first, and the
    /// value of `Direct::miss`.
    pub(super) miss: Option<(DynamicLabel, u32)>,
    pub(super) pc: u32,
    pub(super) at: usize,
    pub(super) record: u32,
}

/// The path of an f32 result half with a NaN in an active lane (`fp.rs`), emitted after
/// the block: the half's registers, as the check left them.
pub(super) struct NanFix {
    pub(super) label: DynamicLabel,
    pub(super) back: DynamicLabel,
    pub(super) dst: u8,
    /// `ffma`'s multiplicands (unmodified: `neg` and `abs` keep zero and infinity what
    /// they are), for its NV check.
    pub(super) product: Option<(u8, u8)>,
    /// The EXEC opmask of the half in the masked variant.
    pub(super) exec: Option<u8>,
}

/// The row cache's registers with AVX2, four for each of the two quarters emitted side by
/// side: the load scratch registers (a run loads into the cache instead), `ymm11`, and
/// `ymm12..ymm15` (the masked variant's lane masks, set aside in memory for its runs).
/// Lane-local code writes only `ymm0` and `ymm4..ymm7`, so a cached row stays put; an
/// instruction reads at most four rows, so a slot is always free to load into. (Padded
/// to [`MAX_SLOTS`]; only the first [`CACHE_SLOTS`] are used.)
pub(super) const CACHE_REGS: [[u8; MAX_SLOTS]; 2] =
    [[1, 2, 3, 11, 0, 0, 0, 0], [12, 13, 14, 15, 0, 0, 0, 0]];
pub(super) const CACHE_SLOTS: usize = 4;
/// With AVX-512, eight for each half of a row: `zmm16..zmm31`, which nothing else uses.
pub(super) const CACHE_REGS_512: [[u8; MAX_SLOTS]; 2] = [
    [16, 17, 18, 19, 20, 21, 22, 23],
    [24, 25, 26, 27, 28, 29, 30, 31],
];
pub(super) const MAX_SLOTS: usize = 8;
/// With AVX2, runs shorter than this are emitted row by row: the cache has nothing to
/// reuse. (With AVX-512 the full variant makes a run of any length.)
pub(super) const MIN_RUN: usize = 2;

/// A run of lane-local instructions, emitted by pairs of quarters:
/// all of the run for lanes 0..16 (each instruction for lanes 0..8, then 8..16, so the
/// two independent chains sit side by side for the out-of-order core), then all of it
/// for lanes 16..32. Each instruction's quarter depends only on the same quarter of its
/// operands and on uniform registers the run does not write, so the order is the
/// interpreter's lane by lane. Rows that a later instruction reads stay in registers, four
/// per quarter of the pair; every result is still stored at once (the register file in
/// memory is always current), so a cached row is only a copy and dropping one is always
/// safe.
pub(super) struct Run {
    /// Per instruction `k` (and one past the end), per row: the first instruction from `k`
    /// on that reads the row before any writes it, [`NEVER`] if none does. Built once, so
    /// the cache's questions cost a lookup (translation time matters: it is paid on a
    /// program's first run).
    pub(super) next: Vec<[u8; 256]>,
    /// The instruction being emitted.
    pub(super) at: usize,
    /// The quarter of the pair (or the half of the row, with AVX-512) being emitted, 0 or
    /// 1: which cache is in use.
    pub(super) side: usize,
    /// Whether the run is emitted with 512-bit vectors (by halves of rows).
    pub(super) wide: bool,
    /// The cache's registers per side, of which the first `slots` are used.
    pub(super) regs: [[u8; MAX_SLOTS]; 2],
    pub(super) slots: usize,
    /// Per side, the row whose current quarter (or half) each cache register holds.
    pub(super) rows: [[Option<u8>; MAX_SLOTS]; 2],
    /// Per side, what the cache holds when the run starts.
    pub(super) initial: [[Option<u8>; MAX_SLOTS]; 2],
    /// Per side, the registers the instruction being emitted reads: not to be replaced
    /// under it.
    pub(super) pinned: [[bool; MAX_SLOTS]; 2],
}

/// Up to four vector registers (the most an instruction reads or writes).
pub(super) type Rows = ([u8; 4], usize);

/// In [`Run::next`]: not read again in the run. Runs are at most [`MAX_BLOCK`] long.
pub(super) const NEVER: u8 = u8::MAX;
const _: () = assert!(MAX_BLOCK < NEVER as usize);

impl Run {
    /// The run of `body`; `after`: a row the instruction after the run reads (kept in
    /// the cache to the end if the run writes it, for [`Emitter::emit_run`] to hand on).
    pub(super) fn new(
        body: &[(u32, Inst, Kind)],
        wide: bool,
        after: Option<u8>,
        cached: &[(u8, [u8; 2])],
    ) -> Run {
        let mut next = vec![[NEVER; 256]; body.len() + 1];
        if let Some(r) = after {
            next[body.len()][usize::from(r)] = body.len() as u8;
        }
        for (k, (_, inst, kind)) in body.iter().enumerate().rev() {
            next[k] = next[k + 1];
            let (rows, n) = rows_written(inst, *kind);
            for &r in &rows[..n] {
                next[k][usize::from(r)] = NEVER;
            }
            // An instruction that reads and writes a row reads it first.
            let (rows, n) = rows_read(inst, *kind);
            for &r in &rows[..n] {
                next[k][usize::from(r)] = k as u8;
            }
        }
        let regs = if wide { CACHE_REGS_512 } else { CACHE_REGS };
        let slots = if wide { MAX_SLOTS } else { CACHE_SLOTS };
        // Rows already in cache registers when the run starts (by each side's register).
        let mut initial = [[None; MAX_SLOTS]; 2];
        for &(row, halves) in cached {
            for side in 0..2 {
                if let Some(slot) = regs[side][..slots].iter().position(|&r| r == halves[side]) {
                    initial[side][slot] = Some(row);
                }
            }
        }
        Run {
            next,
            at: 0,
            side: 0,
            wide,
            regs,
            slots,
            rows: initial,
            initial,
            pinned: [[false; MAX_SLOTS]; 2],
        }
    }

    /// Start instruction `at` for quarter `side` of the pair; a pair starts with the
    /// caches the run started with (empty, but for rows a wait left in a 512-bit run's
    /// registers; the second pair's are of other quarters).
    pub(super) fn start(&mut self, at: usize, side: usize) {
        if at == 0 {
            self.rows[side] = self.initial[side];
        }
        self.at = at;
        self.side = side;
        self.pinned[side] = [false; MAX_SLOTS];
    }

    pub(super) fn slot_of(&self, r: u8) -> Option<usize> {
        self.rows[self.side][..self.slots]
            .iter()
            .position(|&held| held == Some(r))
    }

    /// The register of `slot` on the current side.
    pub(super) fn reg(&self, slot: usize) -> u8 {
        self.regs[self.side][slot]
    }

    /// The slot of cache register `reg` on the current side, if it is one.
    pub(super) fn slot_of_reg(&self, reg: u8) -> Option<usize> {
        self.regs[self.side][..self.slots]
            .iter()
            .position(|&r| r == reg)
    }

    /// The index of the first instruction from `from` on that reads row `r` before any
    /// writes it; `usize::MAX` if none does.
    pub(super) fn next_read(&self, r: u8, from: usize) -> usize {
        match self.next.get(from).map(|row| row[usize::from(r)]) {
            Some(k) if k != NEVER => usize::from(k),
            _ => usize::MAX,
        }
    }

    /// The slot to keep a new row in, read next at `next`: the victim, if the row it holds
    /// is read later than that (or not at all); `None` if the new row is not read again or
    /// every row held is needed sooner.
    pub(super) fn claim(&self, next: usize) -> Option<usize> {
        if next == usize::MAX {
            return None;
        }
        let slot = self.victim();
        let displaced =
            self.rows[self.side][slot].map_or(usize::MAX, |r| self.next_read(r, self.at + 1));
        (displaced > next).then_some(slot)
    }

    /// The slot to load or keep a row in: a free one, else the one whose row is read
    /// latest or not at all (Belady's rule), never a pinned one. One is always free of
    /// pins: an instruction reads at most four rows.
    pub(super) fn victim(&self) -> usize {
        debug_assert!(
            self.pinned[self.side][..self.slots].contains(&false),
            "every cache slot pinned"
        );
        let mut best = (0, 0);
        for slot in (0..self.slots).filter(|&s| !self.pinned[self.side][s]) {
            let next = match self.rows[self.side][slot] {
                None => return slot,
                Some(r) => self.next_read(r, self.at + 1),
            };
            if next >= best.1 {
                best = (slot, next);
            }
        }
        best.0
    }
}

pub(super) fn rows_of(list: &[u8]) -> Rows {
    let mut rows = [0; 4];
    rows[..list.len()].copy_from_slice(list);
    (rows, list.len())
}

/// The vector registers a lane-local instruction reads (as [`Emitter::lane_part`]
/// loads them).
pub(super) fn rows_read(inst: &Inst, kind: Kind) -> Rows {
    let (d, a, b, c) = (inst.rd, inst.rs1, inst.rs2, inst.rs3);
    match kind {
        Kind::VBin(_, VSrc::Row) | Kind::VBinRev(_, VSrc::Row) => rows_of(&[a, b]),
        Kind::VBin(..) | Kind::VBinRev(..) | Kind::VUn(_) => rows_of(&[a]),
        Kind::Mac => rows_of(&[a, b, d]),
        Kind::MacVu | Kind::Cndmask => rows_of(&[a, d]),
        Kind::Mad | Kind::Sel | Kind::Bfi | Kind::BfeU => rows_of(&[a, b, c]),
        Kind::Pair64 { .. } => rows_of(&[a, b, a + 1, b + 1]),
        Kind::Fp(Arith::Fma) => rows_of(&[a, b, c]),
        Kind::Fp(_) => rows_of(&[a, b]),
        _ => rows_of(&[]),
    }
}

/// The vector registers a lane-local instruction writes.
pub(super) fn rows_written(inst: &Inst, kind: Kind) -> Rows {
    match kind {
        Kind::Nop => rows_of(&[]),
        Kind::Pair64 { .. } => rows_of(&[inst.rd, inst.rd + 1]),
        _ => rows_of(&[inst.rd]),
    }
}

impl Emitter<'_> {
    /// The register holding quarter `q` of row `r`: outside a run, `scratch`, loaded; in a
    /// run, its register in the row cache, loaded there first if it is not cached
    /// ([`Run::victim`]). The register is pinned until the instruction is emitted.
    pub(super) fn src(&mut self, r: u8, q: usize, scratch: u8) -> u8 {
        let Some(run) = &mut self.run else {
            self.load(scratch, r, q);
            return scratch;
        };
        let (slot, cached) = match run.slot_of(r) {
            Some(slot) => (slot, true),
            None => (run.victim(), false),
        };
        run.rows[run.side][slot] = Some(r);
        run.pinned[run.side][slot] = true;
        let reg = run.reg(slot);
        if !cached {
            self.load(reg, r, q);
        }
        reg
    }

    /// The register an instruction's result is computed into: outside a run, or when no
    /// later instruction of the run reads it, `ymm0`; else a cache register (not one of
    /// the instruction's sources, which are pinned) that [`Emitter::store`] then
    /// records as holding the row, with no copy.
    pub(super) fn dest(&mut self, d: u8) -> u8 {
        let Some(run) = &mut self.run else {
            return 0;
        };
        let Some(slot) = run.claim(run.next_read(d, run.at + 1)) else {
            return 0;
        };
        let side = run.side;
        run.rows[side][slot] = None;
        run.pinned[side][slot] = true;
        run.reg(slot)
    }

    /// Whether a 512-bit run is being emitted.
    pub(super) fn wide_run(&self) -> bool {
        self.run.as_ref().is_some_and(|run| run.wide)
    }

    /// Load quarter `q` of row `r` into `ymm[reg]` (in a 512-bit run, the half starting at
    /// quarter `q` into `zmm[reg]`).
    pub(super) fn load(&mut self, reg: u8, r: u8, q: usize) {
        let at = row(r, q);
        if self.wide_run() {
            self.load_half(reg, at);
        } else {
            dynasm!(self.ops ; .arch x64 ; vmovdqu Ry(reg), [rsi + at]);
        }
    }

    /// Store `ymm[src]` as quarter `q` of row `d` (merged under the lane mask in the masked
    /// variant outside a run, through `ymm0` and `ymm1`; a run's results come merged). In
    /// a run, the row cache follows: a register holding the row's old quarter is dropped,
    /// and the new one is kept when a later instruction of the run reads it before the
    /// rows the cache would give up for it.
    pub(super) fn store(&mut self, src: u8, d: u8, q: usize, masked: bool) {
        debug_assert!(
            !masked || self.run.is_some() || src != 1,
            "the masked store outside a run uses ymm1 for the old quarter"
        );
        let at = row(d, q);
        let wide = self.wide_run();
        if wide {
            self.store_half(src, at);
        } else if masked && self.run.is_none() {
            // (A run's results are merged already.)
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm1, [rsi + at]
                ; vpblendvb ymm0, ymm1, Ry(src), Ry(12 + q as u8)
                ; vmovdqu [rsi + at], ymm0
            );
        } else {
            dynasm!(self.ops ; .arch x64 ; vmovdqu [rsi + at], Ry(src));
        }
        let Some(run) = &mut self.run else {
            return;
        };
        let side = run.side;
        if let Some(slot) = run.slot_of(d) {
            run.rows[side][slot] = None;
        }
        let next = run.next_read(d, run.at + 1);
        if let Some(slot) = run.slot_of_reg(src) {
            // Computed into a cache register (or a move of a cached row): it holds the row
            // now, if a later instruction reads it (else it keeps the moved row, if any).
            if next != usize::MAX {
                run.rows[side][slot] = Some(d);
            }
            return;
        }
        // The instruction has read all its operands: any slot may take the result.
        run.pinned[side] = [false; MAX_SLOTS];
        if let Some(slot) = run.claim(next) {
            run.rows[side][slot] = Some(d);
            let reg = run.reg(slot);
            if wide {
                self.move_half(reg, src);
            } else {
                dynasm!(self.ops ; .arch x64 ; vmovdqa Ry(reg), Ry(src));
            }
        }
    }

    /// Store the part of row `d` computed into `dst`, a register the instruction owns. In
    /// a masked 512-bit run the lanes EXEC leaves off first get the row's old values back
    /// (the AVX2 masked store merges instead, [`Emitter::store`]).
    pub(super) fn result(&mut self, dst: u8, d: u8, q: usize, masked: bool) {
        if masked && self.wide_run() {
            let old = self.src(d, q, 0);
            self.merge_exec_512(dst, old, dst, q);
        } else if masked && self.run.is_some() {
            self.merge_exec(dst, dst, d, q);
        }
        self.store(dst, d, q, masked);
    }

    /// As [`Emitter::result`], for a part that is a copy of `new` (a source's register or
    /// the broadcast operand), which must stay as it is.
    pub(super) fn copy_result(&mut self, new: u8, d: u8, q: usize, masked: bool) {
        if masked && self.wide_run() {
            let dst = self.dest(d);
            let old = self.src(d, q, 0);
            self.merge_exec_512(dst, old, new, q);
            self.store(dst, d, q, masked);
        } else if masked && self.run.is_some() {
            let dst = self.dest(d);
            self.merge_exec(dst, new, d, q);
            self.store(dst, d, q, masked);
        } else {
            self.store(new, d, q, masked);
        }
    }
}

/// The encoder of the AVX-512 instructions, and whether one could not be encoded (the
/// program is then not translated: a guard, as every operand here is chosen by the
/// emitter).
pub(super) struct Evex {
    pub(super) encoder: Encoder,
    pub(super) failed: bool,
}

impl Evex {
    pub(super) fn new() -> Evex {
        Evex {
            encoder: Encoder::new(64),
            failed: false,
        }
    }

    pub(super) fn failed(&self) -> bool {
        self.failed
    }
}
