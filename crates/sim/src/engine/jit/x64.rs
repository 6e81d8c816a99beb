//! The x86-64 code generator of the translation tier: AVX2, with runs of lane-local
//! instructions in AVX-512 where the host has it (`avx512.rs`).
//!
//! Register conventions inside translated code (System V; nothing callee-saved is used, and
//! translated code calls nothing, so there is no frame):
//!
//! | register | holds |
//! |---|---|
//! | `rdi` | the [`Ctx`] |
//! | `rsi` | the vector register file (row `r`, lanes `8q..8q+8` at `r*128 + q*32`) |
//! | `rdx` | the uniform register file (`u[r]` at `r*4`) |
//! | `r8` | the step budget left |
//! | `r9` | the slot table of the running variant |
//! | `r10` | lane-operations executed |
//! | `rbx` | EXEC's lane count (saved and restored: callee-saved) |
//! | `r11` | the [`Consts`] |
//! | `r12` | the [`Direct`] state: pending rows, region hints, counts (saved and restored) |
//! | `ymm8` / `ymm9` / `ymm10` | 31 / 0x8000_0000 / all ones in every lane |
//! | `ymm12..ymm15` | the EXEC lane mask, one quarter each (masked variant) |
//! | `ymm1..ymm3`, `ymm11..ymm15` | rows kept across a run of lane-local instructions (full variant; [`Run`]) |
//! | `zmm16..zmm31`, `k1..k4`, `k7` | the same with AVX-512 (`avx512.rs`, both variants): rows kept, opmasks (`k3`/`k4`: EXEC) |
//!
//! `rax`, `rcx`, `ymm0..ymm7` are scratch (in a run, `ymm1..ymm3` hold cached rows). Two variants of every block are emitted: *full*
//! assumes EXEC is all ones and stores rows whole; *masked* merges each result quarter into
//! the old row with `vpblendvb`. An EXEC writer ends its block: it updates `ctx.exec`, the
//! lane masks, `rbx` and the table register, and continues in the variant the new EXEC
//! calls for.

use super::kind::{classify, Branch, ExecWrite, Kind, SBin, SUn, VBin, VCmp, VSrc, VUn, S64};
use super::pending::{limit, load_counter, store_counter, Pending, PendingLoad};
use crate::memory::direct::{Direct, HINTS, MISS_WRITE, RING};
use crate::program::{Inst, Program};
use crate::state::queue::NUM_COUNTERS;
use crate::state::regs::{NUM_UREGS, NUM_VREGS};
use dynasmrt::{dynasm, x64::Assembler, AssemblyOffset, DynamicLabel, DynasmApi, DynasmLabelApi};

mod avx512;

/// Instructions in one block at most: keeps the budget check of a block's prologue from
/// forcing a long run back to the interpreter near the step limit.
const MAX_BLOCK: usize = 64;
/// Programs with more 4-byte slots than this are not translated (translation is eager).
pub(super) const MAX_TRANSLATED_SLOTS: usize = 1 << 16;

/// What translated code reads and writes of the warp; its layout is known to the code.
#[repr(C)]
pub(super) struct Ctx {
    pub mask: *const u32,
    pub consts: *const Consts,
    pub v: *mut u32,
    pub u: *mut u32,
    /// The table of the variant entered.
    pub table: *const usize,
    pub budget: u64,
    /// Lane-operations of the vector instructions executed (out).
    pub lane_ops: u64,
    /// EXEC (in and out: translated EXEC writers update it).
    pub exec: u32,
    pub _pad: u32,
    /// The tables of the full and the masked variant, for a switch after an EXEC write.
    pub tables: [*const usize; 2],
    pub direct: *mut Direct,
}

const CTX_MASK: i32 = 0;
const CTX_CONSTS: i32 = 8;
const CTX_V: i32 = 16;
const CTX_U: i32 = 24;
const CTX_TABLE: i32 = 32;
const CTX_BUDGET: i32 = 40;
const CTX_LANE_OPS: i32 = 48;
const CTX_EXEC: i32 = 56;
const CTX_TABLE_FULL: i32 = 64;
const CTX_TABLE_MASKED: i32 = 72;
const CTX_DIRECT: i32 = 80;

// The fields of `Direct` the code uses.
const D_ROWS: i32 = 0;
const D_HINTS: i32 = 1024;
const HINT_SIZE: i32 = 24;
const D_RING: i32 = 1792;
const D_ROW_SEQ: i32 = 2048;
const D_PRE: i32 = 2080;
const D_RING_HEAD: i32 = 2112;
const D_RING_LEN: i32 = 2116;
const D_SEQ: i32 = 2120;
const D_RECORD: i32 = 2124;
const D_MISS: i32 = 2128;
const D_MISS_LO: i32 = 2136;

/// Constant rows the code loads.
#[repr(C, align(32))]
pub(super) struct Consts {
    lanes: [u32; 32],
    bits: [u32; 32],
    c31: [u32; 8],
    sign: [u32; 8],
    c63: [u32; 8],
    /// `4 * l` in lane `l`: the byte offsets of a word run.
    step4: [u32; 32],
}

const K_LANES: i32 = 0;
const K_BITS: i32 = 128;
const K_C31: i32 = 256;
const K_SIGN: i32 = 288;
const K_C63: i32 = 320;
const K_STEP4: i32 = 352;

impl Consts {
    pub(super) fn new() -> Consts {
        Consts {
            lanes: std::array::from_fn(|l| l as u32),
            bits: std::array::from_fn(|l| 1 << l),
            c31: [31; 8],
            sign: [0x8000_0000; 8],
            c63: [63; 8],
            step4: std::array::from_fn(|l| 4 * l as u32),
        }
    }
}

/// `enter(ctx, block address) -> next pc`.
pub(super) type EnterFn = unsafe extern "sysv64" fn(*mut Ctx, usize) -> u32;

/// The machine code of a program and, per variant, the address of the block at each slot
/// (the exit stub where there is none).
pub(super) struct Code {
    pub buf: dynasmrt::ExecutableBuffer,
    pub enter: AssemblyOffset,
    pub exit: AssemblyOffset,
    /// Per variant (0 full, 1 masked): the offset of the block starting at each slot,
    /// where the interpreter (and `jr`/`jalr`) may enter one.
    pub blocks: [Vec<Option<AssemblyOffset>>; 2],
    pub instructions: usize,
    pub blocks_count: usize,
    /// Exit records: the loads pending at an exit ([`Direct`]'s `record` indexes this;
    /// record 0 is empty).
    pub records: Vec<Vec<PendingLoad>>,
}

fn row(r: u8, q: usize) -> i32 {
    i32::from(r) * 128 + (q as i32) * 32
}

fn ureg(r: u8) -> i32 {
    i32::from(r) * 4
}

struct Emitter<'a> {
    ops: Assembler,
    prog: &'a Program,
    slots: usize,
    exit: DynamicLabel,
    labels: [Vec<Option<DynamicLabel>>; 2],
    /// The run of lane-local instructions being emitted, if any.
    run: Option<Run>,
    /// The loads the block being emitted has pending.
    pending: Pending,
    records: Vec<Vec<PendingLoad>>,
    /// Per instruction of the block being emitted, what a side exit before it gives back:
    /// its steps and lane-operations (the block's head counted the whole block).
    refunds: Vec<(i32, i32)>,
    /// The instruction of the block being emitted.
    at: usize,
    /// The exits from the middle of the block, emitted after it.
    stubs: Vec<Stub>,
    /// Loads and stores translated so far: each takes the next region hint of its half.
    accesses: [usize; 2],
    /// Whether runs of lane-local instructions use AVX-512 (`avx512.rs`).
    avx512: bool,
    /// The encoder of AVX-512 instructions.
    evex: avx512::Evex,
}

/// An exit before the instruction at `pc`, the `at`-th of its block: back to the
/// interpreter, which runs it.
struct Stub {
    label: DynamicLabel,
    /// Set where a region hint missed: the label that records the miss first, and the
    /// value of `Direct::miss`.
    miss: Option<(DynamicLabel, u32)>,
    pc: u32,
    at: usize,
    record: u32,
}

/// The row cache's registers with AVX2, four for each of the two quarters emitted side by
/// side: the load scratch registers (a run loads into the cache instead), `ymm11`, and
/// `ymm12..ymm15`, free in the full variant (it has no lane mask to keep). Lane-local code
/// writes only `ymm0` and `ymm4..ymm7`, so a cached row stays put; an instruction reads at
/// most four rows, so a slot is always free to load into. (Padded to [`MAX_SLOTS`]; only
/// the first [`CACHE_SLOTS`] are used.)
const CACHE_REGS: [[u8; MAX_SLOTS]; 2] = [[1, 2, 3, 11, 0, 0, 0, 0], [12, 13, 14, 15, 0, 0, 0, 0]];
const CACHE_SLOTS: usize = 4;
/// With AVX-512, eight for each half of a row: `zmm16..zmm31`, which nothing else uses.
const CACHE_REGS_512: [[u8; MAX_SLOTS]; 2] = [
    [16, 17, 18, 19, 20, 21, 22, 23],
    [24, 25, 26, 27, 28, 29, 30, 31],
];
const MAX_SLOTS: usize = 8;
/// Runs shorter than this are emitted row by row: the cache has nothing to reuse.
const MIN_RUN: usize = 2;

/// A run of lane-local instructions in a full-EXEC block, emitted by pairs of quarters:
/// all of the run for lanes 0..16 (each instruction for lanes 0..8, then 8..16, so the
/// two independent chains sit side by side for the out-of-order core), then all of it
/// for lanes 16..32. Each instruction's quarter depends only on the same quarter of its
/// operands and on uniform registers the run does not write, so the order is the
/// interpreter's lane by lane. Rows that a later instruction reads stay in registers, four
/// per quarter of the pair; every result is still stored at once (the register file in
/// memory is always current), so a cached row is only a copy and dropping one is always
/// safe.
struct Run {
    /// Per instruction `k` (and one past the end), per row: the first instruction from `k`
    /// on that reads the row before any writes it, [`NEVER`] if none does. Built once, so
    /// the cache's questions cost a lookup (translation time matters: it is paid on a
    /// program's first run).
    next: Vec<[u8; 256]>,
    /// The instruction being emitted.
    at: usize,
    /// The quarter of the pair (or the half of the row, with AVX-512) being emitted, 0 or
    /// 1: which cache is in use.
    side: usize,
    /// Whether the run is emitted with 512-bit vectors (by halves of rows).
    wide: bool,
    /// The cache's registers per side, of which the first `slots` are used.
    regs: [[u8; MAX_SLOTS]; 2],
    slots: usize,
    /// Per side, the row whose current quarter (or half) each cache register holds.
    rows: [[Option<u8>; MAX_SLOTS]; 2],
    /// Per side, the registers the instruction being emitted reads: not to be replaced
    /// under it.
    pinned: [[bool; MAX_SLOTS]; 2],
}

/// Up to four vector registers (the most an instruction reads or writes).
type Rows = ([u8; 4], usize);

/// In [`Run::next`]: not read again in the run. Runs are at most [`MAX_BLOCK`] long.
const NEVER: u8 = u8::MAX;
const _: () = assert!(MAX_BLOCK < NEVER as usize);

impl Run {
    fn new(body: &[(u32, Inst, Kind)], wide: bool) -> Run {
        let mut next = vec![[NEVER; 256]; body.len() + 1];
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
        Run {
            next,
            at: 0,
            side: 0,
            wide,
            regs: if wide { CACHE_REGS_512 } else { CACHE_REGS },
            slots: if wide { MAX_SLOTS } else { CACHE_SLOTS },
            rows: [[None; MAX_SLOTS]; 2],
            pinned: [[false; MAX_SLOTS]; 2],
        }
    }

    /// Start instruction `at` for quarter `side` of the pair; a pair starts with empty
    /// caches (they hold the rows of other quarters).
    fn start(&mut self, at: usize, side: usize) {
        if at == 0 {
            self.rows[side] = [None; MAX_SLOTS];
        }
        self.at = at;
        self.side = side;
        self.pinned[side] = [false; MAX_SLOTS];
    }

    fn slot_of(&self, r: u8) -> Option<usize> {
        self.rows[self.side][..self.slots]
            .iter()
            .position(|&held| held == Some(r))
    }

    /// The register of `slot` on the current side.
    fn reg(&self, slot: usize) -> u8 {
        self.regs[self.side][slot]
    }

    /// The slot of cache register `reg` on the current side, if it is one.
    fn slot_of_reg(&self, reg: u8) -> Option<usize> {
        self.regs[self.side][..self.slots]
            .iter()
            .position(|&r| r == reg)
    }

    /// The index of the first instruction from `from` on that reads row `r` before any
    /// writes it; `usize::MAX` if none does.
    fn next_read(&self, r: u8, from: usize) -> usize {
        match self.next.get(from).map(|row| row[usize::from(r)]) {
            Some(k) if k != NEVER => usize::from(k),
            _ => usize::MAX,
        }
    }

    /// The slot to keep a new row in, read next at `next`: the victim, if the row it holds
    /// is read later than that (or not at all); `None` if the new row is not read again or
    /// every row held is needed sooner.
    fn claim(&self, next: usize) -> Option<usize> {
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
    fn victim(&self) -> usize {
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

fn rows_of(list: &[u8]) -> Rows {
    let mut rows = [0; 4];
    rows[..list.len()].copy_from_slice(list);
    (rows, list.len())
}

/// The vector registers a lane-local instruction reads (as [`Emitter::lane_part`]
/// loads them).
fn rows_read(inst: &Inst, kind: Kind) -> Rows {
    let (d, a, b, c) = (inst.rd, inst.rs1, inst.rs2, inst.rs3);
    match kind {
        Kind::VBin(_, VSrc::Row) | Kind::VBinRev(_, VSrc::Row) => rows_of(&[a, b]),
        Kind::VBin(..) | Kind::VBinRev(..) | Kind::VUn(_) => rows_of(&[a]),
        Kind::Mac => rows_of(&[a, b, d]),
        Kind::MacVu | Kind::Cndmask => rows_of(&[a, d]),
        Kind::Mad | Kind::Sel | Kind::Bfi | Kind::BfeU => rows_of(&[a, b, c]),
        Kind::Pair64 { .. } => rows_of(&[a, b, a + 1, b + 1]),
        _ => rows_of(&[]),
    }
}

/// The vector registers a lane-local instruction writes.
fn rows_written(inst: &Inst, kind: Kind) -> Rows {
    match kind {
        Kind::Nop => rows_of(&[]),
        Kind::Pair64 { .. } => rows_of(&[inst.rd, inst.rd + 1]),
        _ => rows_of(&[inst.rd]),
    }
}

/// Translate every block of `prog`, with AVX-512 runs if `avx512` (the host must have
/// AVX-512F and AVX-512BW). `None` if the code buffer cannot be mapped.
pub(super) fn translate(prog: &Program, avx512: bool) -> Option<Code> {
    let slots = (prog.text().len() / 4).min(MAX_TRANSLATED_SLOTS);
    // The full variant also translates the word runs and `waitcnt`, the masked one not.
    let full: Vec<Option<Kind>> = (0..slots)
        .map(|k| {
            let inst = prog.fetch((k * 4) as u32)?;
            classify(inst).filter(|kind| !kind.asynchronous() || registers_fit(inst, *kind))
        })
        .collect();
    let masked: Vec<Option<Kind>> = full
        .iter()
        .map(|k| k.filter(|k| !k.asynchronous()))
        .collect();
    let kinds = [full, masked];
    let leaders = kinds.each_ref().map(|kinds| leaders(prog, kinds));
    let mut ops = Assembler::new().ok()?;
    let exit = ops.new_dynamic_label();
    let mut labels: [Vec<Option<DynamicLabel>>; 2] = [vec![None; slots], vec![None; slots]];
    for (v, variant) in labels.iter_mut().enumerate() {
        for (k, label) in variant.iter_mut().enumerate() {
            if leaders[v][k] && kinds[v][k].is_some() {
                *label = Some(ops.new_dynamic_label());
            }
        }
    }
    let mut e = Emitter {
        ops,
        prog,
        slots,
        exit,
        labels,
        run: None,
        pending: Pending::default(),
        records: vec![Vec::new()],
        refunds: Vec::new(),
        at: 0,
        stubs: Vec::new(),
        accesses: [0, 0],
        avx512,
        evex: avx512::Evex::new(),
    };
    let enter = e.prologue();
    let exit_at = e.ops.offset();
    e.epilogue();
    let mut offsets: [Vec<Option<AssemblyOffset>>; 2] = [vec![None; slots], vec![None; slots]];
    let mut instructions = 0;
    let mut blocks_count = 0;
    for (variant, offsets) in offsets.iter_mut().enumerate() {
        for (k, offset) in offsets.iter_mut().enumerate() {
            let Some(label) = e.labels[variant][k] else {
                continue;
            };
            // A block that starts with a load, a store or a wait is reached by chaining
            // only: entered from the interpreter, it would often leave at once (an access
            // that is not a word run) or run one wait before an interpreted instruction
            // (`waitcnt` then `barrier`), and the interpreter runs such an instruction
            // about as fast as entering costs.
            let memory_first = kinds[variant][k].is_some_and(Kind::asynchronous);
            if !memory_first {
                *offset = Some(e.ops.offset());
            }
            dynasm!(e.ops ; .arch x64 ; =>label);
            instructions += e.block(k, &kinds[variant], &leaders[variant], variant == 1);
            blocks_count += 1;
        }
    }
    if e.evex.failed() {
        return None;
    }
    let buf = e.ops.finalize().ok()?;
    Some(Code {
        buf,
        enter,
        exit: exit_at,
        blocks: offsets,
        instructions,
        blocks_count,
        records: e.records,
    })
}

/// Whether the registers of a word run or `waitcnt` are inside the register files (the
/// uniform pair `rs2`, `rs2 + 1` included): the code indexes them unchecked.
fn registers_fit(inst: &Inst, kind: Kind) -> bool {
    match kind {
        Kind::LoadRow | Kind::StoreRow => {
            usize::from(inst.rd) < NUM_VREGS
                && usize::from(inst.rs1) < NUM_VREGS
                && usize::from(inst.rs2) + 1 < NUM_UREGS
        }
        _ => true,
    }
}

/// Slots where a block starts: 0, every direct branch target, and every slot after an
/// instruction that ends a block, is interpreted, waits or stores, found by walking the
/// code from 0.
fn leaders(prog: &Program, kinds: &[Option<Kind>]) -> Vec<bool> {
    let n = kinds.len();
    let mut leader = vec![false; n];
    if n > 0 {
        leader[0] = true;
    }
    let mut k = 0;
    while k < n {
        let Some(inst) = prog.fetch((k * 4) as u32) else {
            break;
        };
        let next = k + usize::from(inst.len).max(4) / 4;
        match kinds[k] {
            Some(Kind::Branch(b)) => {
                if !matches!(b, Branch::Jr | Branch::Jalr) {
                    let t = inst.imm;
                    if t & 3 == 0 && ((t >> 2) as usize) < n {
                        leader[(t >> 2) as usize] = true;
                    }
                }
                if next < n {
                    leader[next] = true;
                }
            }
            // After a `waitcnt` or a store the interpreter may be the one running (it ran
            // the loads, or the store was not a word run): a block starts there, so it
            // does not interpret on to the next branch. Where none of the block's loads
            // is pending (the common case) the two blocks chain; else the first exits.
            Some(Kind::Waitcnt | Kind::StoreRow) => {
                if next < n {
                    leader[next] = true;
                }
            }
            Some(kind) if !kind.ends_block() => {}
            _ => {
                if next < n {
                    leader[next] = true;
                }
            }
        }
        k = next;
    }
    leader
}

impl Emitter<'_> {
    /// `enter(ctx: rdi, block: rsi)`: load the conventions' registers, jump to the block.
    fn prologue(&mut self) -> AssemblyOffset {
        let at = self.ops.offset();
        dynasm!(self.ops
            ; .arch x64
            ; push rbx
            ; push r12
            ; mov r12, [rdi + CTX_DIRECT]
            ; mov ebx, [rdi + CTX_EXEC]
            ; popcnt ebx, ebx
            ; mov rax, rsi
            ; mov rcx, [rdi + CTX_MASK]
            ; vmovdqu ymm12, [rcx]
            ; vmovdqu ymm13, [rcx + 32]
            ; vmovdqu ymm14, [rcx + 64]
            ; vmovdqu ymm15, [rcx + 96]
            ; mov r11, [rdi + CTX_CONSTS]
            ; vmovdqu ymm8, [r11 + K_C31]
            ; vmovdqu ymm9, [r11 + K_SIGN]
            ; vpcmpeqd ymm10, ymm10, ymm10
            ; mov rsi, [rdi + CTX_V]
            ; mov rdx, [rdi + CTX_U]
            ; mov r9, [rdi + CTX_TABLE]
            ; mov r8, [rdi + CTX_BUDGET]
            ; xor r10, r10
            ; jmp rax
        );
        at
    }

    /// The exit: `eax` holds the next PC.
    fn epilogue(&mut self) {
        let exit = self.exit;
        dynasm!(self.ops
            ; .arch x64
            ; =>exit
            ; mov [rdi + CTX_BUDGET], r8
            ; mov [rdi + CTX_LANE_OPS], r10
            ; pop r12
            ; pop rbx
            ; vzeroupper
            ; ret
        );
    }

    /// Continue at `pc`: the block there (same variant), or the interpreter.
    fn goto(&mut self, pc: u32, masked: bool) {
        let exit = self.exit;
        match self.block_label(pc, masked) {
            Some(label) => dynasm!(self.ops ; .arch x64 ; jmp =>label),
            None => dynasm!(self.ops ; .arch x64 ; mov eax, pc as i32 ; jmp =>exit),
        }
    }

    fn block_label(&self, pc: u32, masked: bool) -> Option<DynamicLabel> {
        if pc & 3 != 0 {
            return None;
        }
        *self.labels[usize::from(masked)].get((pc >> 2) as usize)?
    }

    /// Emit the block starting at slot `k`; returns its instruction count.
    fn block(&mut self, k: usize, kinds: &[Option<Kind>], leaders: &[bool], masked: bool) -> usize {
        let mut body: Vec<(u32, Inst, Kind)> = Vec::new();
        // The loads pending as the block grows: an instruction that would be reported as
        // a hazard, or a transfer of control with loads pending, is left to the
        // interpreter.
        let mut pending = Pending::default();
        let mut s = k;
        while s < self.slots && body.len() < MAX_BLOCK {
            if s != k && leaders[s] {
                break;
            }
            let (Some(kind), Some(&inst)) = (kinds[s], self.prog.fetch((s * 4) as u32)) else {
                break;
            };
            let pc = (s * 4) as u32;
            if !self.admit(pc, &inst, kind, &mut pending) {
                break;
            }
            body.push((pc, inst, kind));
            s += usize::from(inst.len) / 4;
            if kind.ends_block() {
                break;
            }
        }
        let n = body.len() as i32;
        let vector = body.iter().filter(|(_, i, _)| i.vector).count() as i32;
        let start = (k * 4) as u32;
        let exit = self.exit;
        dynasm!(self.ops
            ; .arch x64
            ; cmp r8, n
            ; jae >run
            ; mov eax, start as i32
            ; jmp =>exit
            ; run:
            ; sub r8, n
        );
        if vector > 0 {
            if masked {
                dynasm!(self.ops ; .arch x64 ; imul rcx, rbx, vector ; add r10, rcx);
            } else {
                let lanes = vector * 32;
                dynasm!(self.ops ; .arch x64 ; add r10, lanes);
            }
        }
        // What an exit before each instruction gives back (only the full variant has such
        // exits, so every lane counts).
        self.refunds.clear();
        let mut after = (0, 0);
        for (_, inst, _) in body.iter().rev() {
            after = (after.0 + 1, after.1 + if inst.vector { 32 } else { 0 });
            self.refunds.push(after);
        }
        self.refunds.reverse();
        self.pending = Pending::default();
        let mut k = 0;
        while k < body.len() {
            let len = body[k..]
                .iter()
                .take_while(|(_, _, kind)| kind.lane_local())
                .count();
            if (!masked || self.avx512) && len >= MIN_RUN {
                self.emit_run(&body[k..k + len], masked);
                k += len;
            } else {
                let (pc, inst, kind) = body[k];
                self.at = k;
                self.inst(pc, &inst, kind, masked);
                k += 1;
            }
        }
        let (last_pc, last, last_kind) = body[body.len() - 1];
        if !last_kind.ends_block() {
            let next = last_pc.wrapping_add(u32::from(last.len));
            if self.pending.loads.is_empty() {
                self.goto(next, masked);
            } else {
                // Loads still pending: the interpreter takes over, watching for hazards.
                let record = self.record();
                dynasm!(self.ops
                    ; .arch x64
                    ; mov DWORD [r12 + D_RECORD], record as i32
                    ; mov eax, next as i32
                    ; jmp =>exit
                );
            }
        }
        self.emit_stubs();
        body.len()
    }

    /// Whether the instruction at `pc` may join the block, given the loads pending
    /// before it (updated for it).
    fn admit(&self, pc: u32, inst: &Inst, kind: Kind, pending: &mut Pending) -> bool {
        if !pending.loads.is_empty() {
            let uses = self.prog.uses(pc).copied().unwrap_or_default();
            if pending.hazard(&uses) || kind.ends_block() {
                return false;
            }
        }
        match kind {
            Kind::LoadRow => pending.issue(pc, inst.rd, load_counter()).is_some(),
            Kind::Waitcnt => {
                if let Some(t) = self.prog.waits(inst.imm) {
                    pending.wait(t);
                }
                true
            }
            _ => true,
        }
    }

    /// The exit record of the loads pending now.
    fn record(&mut self) -> u32 {
        if self.pending.loads.is_empty() {
            return 0;
        }
        self.records.push(self.pending.loads.clone());
        (self.records.len() - 1) as u32
    }

    /// A new exit before the instruction being emitted; its label.
    fn side_exit(&mut self, pc: u32, miss: Option<u32>) -> (DynamicLabel, Option<DynamicLabel>) {
        let label = self.ops.new_dynamic_label();
        let miss = miss.map(|m| (self.ops.new_dynamic_label(), m));
        let record = self.record();
        self.stubs.push(Stub {
            label,
            miss,
            pc,
            at: self.at,
            record,
        });
        (label, miss.map(|(l, _)| l))
    }

    /// The block's exits from its middle: give back the steps and lane-operations not
    /// executed, leave the record (and a missed hint with the address in `rcx`), and
    /// return the instruction's PC.
    fn emit_stubs(&mut self) {
        let exit = self.exit;
        for stub in std::mem::take(&mut self.stubs) {
            let (steps, lanes) = self.refunds[stub.at];
            if let Some((miss, value)) = stub.miss {
                dynasm!(self.ops
                    ; .arch x64
                    ; =>miss
                    ; mov DWORD [r12 + D_MISS], value as i32
                    ; mov [r12 + D_MISS_LO], rcx
                );
            }
            dynasm!(self.ops
                ; .arch x64
                ; =>stub.label
                ; add r8, steps
                ; sub r10, lanes
                ; mov DWORD [r12 + D_RECORD], stub.record as i32
                ; mov eax, stub.pc as i32
                ; jmp =>exit
            );
        }
    }

    /// A word run's address, checked as `mem_exec`'s word run checks it: lane `l` of
    /// `v[rs1]` is `v0 + 4l` (no wrap), `lo = U64[rs2] + v0 + sext(imm)` is aligned,
    /// `lo + 128` does not wrap, and the instruction's region hint holds `lo..lo + 128`.
    /// Leaves the host address of `lo` in `rcx`; anything else leaves the block before the
    /// instruction (a hint miss records itself, for the region to be looked up).
    fn word_run_address(&mut self, pc: u32, inst: &Inst, store: bool) {
        let half = HINTS / 2;
        let index = half * usize::from(store) + self.accesses[usize::from(store)] % half;
        self.accesses[usize::from(store)] += 1;
        let miss_value = (index as u32 + 1) | if store { MISS_WRITE } else { 0 };
        let (side, miss) = self.side_exit(pc, Some(miss_value));
        let miss = miss.expect("a miss label");
        let hint = D_HINTS + index as i32 * HINT_SIZE;
        let (a, b) = (inst.rs1, inst.rs2);
        let v0 = row(a, 0);
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [rsi + v0]
            ; vmovd xmm0, eax
            ; vpbroadcastd ymm0, xmm0
        );
        for q in 0..4 {
            let (step, at) = (K_STEP4 + 32 * q as i32, row(a, q));
            dynasm!(self.ops
                ; .arch x64
                ; vpaddd ymm1, ymm0, [r11 + step]
                ; vpxor ymm1, ymm1, [rsi + at]
            );
            if q == 0 {
                dynasm!(self.ops ; .arch x64 ; vmovdqa ymm2, ymm1);
            } else {
                dynasm!(self.ops ; .arch x64 ; vpor ymm2, ymm2, ymm1);
            }
        }
        let imm = i64::from(inst.imm as i32);
        let ub = ureg(b);
        dynasm!(self.ops
            ; .arch x64
            // vptest ymm2, ymm2, spelled out (VEX.256.66.0F38 17 /r): ZF if every lane
            // matched.
            ; .bytes [0xc4u8, 0xe2, 0x7d, 0x17, 0xd2]
            ; jnz =>side
            ; cmp eax, 0xffff_ff83u32 as i32
            ; ja =>side
            ; mov rcx, [rdx + ub]
            ; add rcx, rax
            ; mov rax, QWORD imm
            ; add rcx, rax
            ; test cl, 3
            ; jnz =>side
            ; mov rax, rcx
            ; add rax, 128
            ; jc =>side
            ; cmp rcx, [r12 + hint]
            ; jb =>miss
            ; cmp rax, [r12 + hint + 8]
            ; ja =>miss
            ; sub rcx, [r12 + hint]
            ; add rcx, [r12 + hint + 16]
        );
    }

    /// `gload.b32` as a word run: the 32 words into a pending row, counted on the load
    /// counter (whose in-flight limit retires an operation from before the block, if any
    /// is at the limit: `Pending::issue` keeps the block's own below it).
    fn load_row(&mut self, pc: u32, inst: &Inst) {
        self.word_run_address(pc, inst, false);
        let c = load_counter();
        let k = self.pending.count(c) as i32;
        let load = self
            .pending
            .issue(pc, inst.rd, c)
            .expect("admitted with a free row");
        let data = D_ROWS + i32::from(load.row) * 128;
        for q in 0..4 {
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm0, [rcx + 32 * q]
                ; vmovdqu [r12 + data + 32 * q], ymm0
            );
        }
        let seq = D_ROW_SEQ + 4 * i32::from(load.row);
        let pre = D_PRE + 4 * c as i32;
        let room = limit(c) as i32 - k;
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [r12 + D_SEQ]
            ; mov [r12 + seq], eax
            ; inc eax
            ; mov [r12 + D_SEQ], eax
            ; cmp DWORD [r12 + pre], room
            ; jb >below
            ; dec DWORD [r12 + pre]
            ; below:
        );
    }

    /// `gstore.b32` as a word run: the row to memory, the store to the ring (an operation
    /// at the store counter's limit retires first: one from before, else the oldest
    /// store).
    fn store_row(&mut self, pc: u32, inst: &Inst) {
        self.word_run_address(pc, inst, true);
        for q in 0..4 {
            let at = row(inst.rd, q);
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm0, [rsi + at]
                ; vmovdqu [rcx + 32 * q as i32], ymm0
            );
        }
        let c = store_counter();
        debug_assert_eq!(
            self.pending.count(c),
            0,
            "loads never use the store counter"
        );
        let pre = D_PRE + 4 * c as i32;
        let lim = limit(c) as i32;
        let wrap = RING as i32 - 1;
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [r12 + pre]
            ; add eax, [r12 + D_RING_LEN]
            ; cmp eax, lim
            ; jb >push
            ; cmp DWORD [r12 + pre], 0
            ; je >oldest
            ; dec DWORD [r12 + pre]
            ; jmp >push
            ; oldest:
            ; mov eax, [r12 + D_RING_HEAD]
            ; inc eax
            ; and eax, wrap
            ; mov [r12 + D_RING_HEAD], eax
            ; dec DWORD [r12 + D_RING_LEN]
            ; push:
            ; mov eax, [r12 + D_RING_HEAD]
            ; add eax, [r12 + D_RING_LEN]
            ; and eax, wrap
            ; mov DWORD [r12 + rax * 8 + D_RING], pc as i32
            ; mov ecx, [r12 + D_SEQ]
            ; mov [r12 + rax * 8 + D_RING + 4], ecx
            ; inc ecx
            ; mov [r12 + D_SEQ], ecx
            ; inc DWORD [r12 + D_RING_LEN]
        );
    }

    /// `waitcnt`: the block's loads it retires go to their registers; the operations from
    /// before and the ring's stores count down (they write nothing).
    fn waitcnt(&mut self, inst: &Inst) {
        let Some(&t) = self.prog.waits(inst.imm) else {
            return;
        };
        let before: [u32; NUM_COUNTERS] = std::array::from_fn(|c| self.pending.count(c));
        for load in self.pending.wait(&t) {
            let data = D_ROWS + i32::from(load.row) * 128;
            for q in 0..4 {
                let at = row(load.rd, q);
                dynasm!(self.ops
                    ; .arch x64
                    ; vmovdqu ymm0, [r12 + data + 32 * q as i32]
                    ; vmovdqu [rsi + at], ymm0
                );
            }
        }
        let stores = store_counter();
        let wrap = RING as i32 - 1;
        for (c, &t) in t.iter().enumerate() {
            if t >= limit(c) {
                continue; // a count never exceeds its limit
            }
            // What may stay of the operations from before (and the stores).
            let keep = t.saturating_sub(before[c]) as i32;
            let pre = D_PRE + 4 * c as i32;
            if c != stores {
                dynasm!(self.ops
                    ; .arch x64
                    ; cmp DWORD [r12 + pre], keep
                    ; jbe >kept
                    ; mov DWORD [r12 + pre], keep
                    ; kept:
                );
                continue;
            }
            // Retire `pre + len - keep` (if positive): from before first, then the ring.
            dynasm!(self.ops
                ; .arch x64
                ; mov eax, [r12 + pre]
                ; mov ecx, [r12 + D_RING_LEN]
                ; add ecx, eax
                ; sub ecx, keep
                ; jbe >kept
                ; cmp eax, ecx
                ; jbe >all
                ; sub eax, ecx
                ; mov [r12 + pre], eax
                ; jmp >kept
                ; all:
                ; sub ecx, eax
                ; mov DWORD [r12 + pre], 0
                ; add [r12 + D_RING_HEAD], ecx
                ; and DWORD [r12 + D_RING_HEAD], wrap
                ; sub [r12 + D_RING_LEN], ecx
                ; kept:
            );
        }
    }

    /// A run of lane-local instructions ([`Run`]): with AVX2, in a full-EXEC block, by
    /// pairs of quarters; with AVX-512, in either variant, by the two halves of each row
    /// side by side (`avx512.rs`).
    fn emit_run(&mut self, run: &[(u32, Inst, Kind)], masked: bool) {
        if self.avx512 {
            // With AVX-512 a row is two 512-bit halves, emitted side by side. The run sets
            // its constants (and, in the masked variant, EXEC's halves in `k3`/`k4`), and
            // clears the upper halves of `zmm0..zmm15` after it: while they are in use, the
            // core runs 256-bit code on two ports instead of three (`avx512.rs`).
            self.constants_512(masked);
            self.run = Some(Run::new(run, true));
            for (at, (_, inst, kind)) in run.iter().enumerate() {
                self.lane_setup_512(inst, *kind);
                for side in 0..2 {
                    if let Some(r) = &mut self.run {
                        r.start(at, side);
                    }
                    self.lane_part(inst, *kind, 2 * side, masked);
                }
            }
            self.run = None;
            // `vzeroupper` clears bits 128.. of every register up to 15: the AVX2 constants
            // (and the lane masks of the masked variant) are set again.
            dynasm!(self.ops
                ; .arch x64
                ; vzeroupper
                ; vmovdqu ymm8, [r11 + K_C31]
                ; vmovdqu ymm9, [r11 + K_SIGN]
                ; vpcmpeqd ymm10, ymm10, ymm10
            );
            if masked {
                self.lane_masks();
            }
            return;
        }
        debug_assert!(!masked, "AVX2 runs are emitted in the full variant only");
        self.run = Some(Run::new(run, false));
        for pair in [0, 2] {
            for (at, (_, inst, kind)) in run.iter().enumerate() {
                // The broadcast operand serves both quarters.
                self.lane_setup(inst, *kind);
                for side in 0..2 {
                    if let Some(r) = &mut self.run {
                        r.start(at, side);
                    }
                    self.lane_part(inst, *kind, pair + side, false);
                }
            }
        }
        self.run = None;
    }

    /// Store `ymm[src]` as quarter `q` of row `d` (merged under the lane mask in the masked
    /// variant, through `ymm0` and `ymm1`). In a run, the row cache follows: a register
    /// holding the row's old quarter is dropped, and the new one is kept when a later
    /// instruction of the run reads it before the rows the cache would give up for it.
    fn store(&mut self, src: u8, d: u8, q: usize, masked: bool) {
        debug_assert!(
            !masked || src != 1,
            "the masked store uses ymm1 for the old quarter"
        );
        let at = row(d, q);
        let wide = self.wide_run();
        if wide {
            self.store_half(src, at);
        } else if masked {
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

    /// Broadcast the second operand (`u[rs2]` or the immediate) into `ymm7`.
    fn splat_src(&mut self, src: VSrc, inst: &Inst) {
        match src {
            VSrc::Row => {}
            VSrc::Ureg => {
                let at = ureg(inst.rs2);
                dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm7, [rdx + at]);
            }
            VSrc::Imm => self.splat_imm(inst.imm),
        }
    }

    fn splat_imm(&mut self, imm: u32) {
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, imm as i32
            ; vmovd xmm7, eax
            ; vpbroadcastd ymm7, xmm7
        );
    }

    /// `ymm[dst] = op(ymm[x], ymm[y])`; may use `ymm4..ymm6`. `dst` is written only after
    /// every read of `x` and `y` (the two may be `ymm0` outside a run, which `dst` is then).
    fn vbin(&mut self, op: VBin, dst: u8, x: u8, y: u8) {
        match op {
            VBin::Add => dynasm!(self.ops ; .arch x64 ; vpaddd Ry(dst), Ry(x), Ry(y)),
            VBin::Sub => dynasm!(self.ops ; .arch x64 ; vpsubd Ry(dst), Ry(x), Ry(y)),
            VBin::And => dynasm!(self.ops ; .arch x64 ; vpand Ry(dst), Ry(x), Ry(y)),
            VBin::Or => dynasm!(self.ops ; .arch x64 ; vpor Ry(dst), Ry(x), Ry(y)),
            VBin::Xor => dynasm!(self.ops ; .arch x64 ; vpxor Ry(dst), Ry(x), Ry(y)),
            VBin::Andn => dynasm!(self.ops ; .arch x64 ; vpandn Ry(dst), Ry(y), Ry(x)),
            VBin::Orn => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, Ry(y), ymm10
                ; vpor Ry(dst), Ry(x), ymm4
            ),
            VBin::Xnor => dynasm!(self.ops
                ; .arch x64
                ; vpxor Ry(dst), Ry(x), Ry(y)
                ; vpxor Ry(dst), Ry(dst), ymm10
            ),
            VBin::Mul => dynasm!(self.ops ; .arch x64 ; vpmulld Ry(dst), Ry(x), Ry(y)),
            VBin::Sll => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsllvd Ry(dst), Ry(x), ymm4
            ),
            VBin::Srl => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsrlvd Ry(dst), Ry(x), ymm4
            ),
            VBin::Sra => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsravd Ry(dst), Ry(x), ymm4
            ),
            VBin::Rol | VBin::Ror => {
                // The left and right counts s & 31 and (-s) & 31; a count of 0 shifts one
                // way by 0 and the other by 0 too, giving x | x = x.
                let (l, r) = if op == VBin::Rol { (4, 5) } else { (5, 4) };
                dynasm!(self.ops
                    ; .arch x64
                    ; vpand ymm4, Ry(y), ymm8
                    ; vpxor ymm5, ymm5, ymm5
                    ; vpsubd ymm5, ymm5, ymm4
                    ; vpand ymm5, ymm5, ymm8
                    ; vpsllvd ymm6, Ry(x), Ry(l)
                    ; vpsrlvd Ry(dst), Ry(x), Ry(r)
                    ; vpor Ry(dst), Ry(dst), ymm6
                );
            }
            VBin::Min => dynasm!(self.ops ; .arch x64 ; vpminsd Ry(dst), Ry(x), Ry(y)),
            VBin::Max => dynasm!(self.ops ; .arch x64 ; vpmaxsd Ry(dst), Ry(x), Ry(y)),
            VBin::Minu => dynasm!(self.ops ; .arch x64 ; vpminud Ry(dst), Ry(x), Ry(y)),
            VBin::Maxu => dynasm!(self.ops ; .arch x64 ; vpmaxud Ry(dst), Ry(x), Ry(y)),
            VBin::Slt => dynasm!(self.ops
                ; .arch x64
                ; vpcmpgtd Ry(dst), Ry(y), Ry(x)
                ; vpsrld Ry(dst), Ry(dst), 31
            ),
            VBin::Sltu => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, Ry(x), ymm9
                ; vpxor ymm5, Ry(y), ymm9
                ; vpcmpgtd Ry(dst), ymm5, ymm4
                ; vpsrld Ry(dst), Ry(dst), 31
            ),
            VBin::CzeroEqz => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqd ymm4, ymm4, Ry(y)
                ; vpandn Ry(dst), ymm4, Ry(x)
            ),
            VBin::CzeroNez => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqd ymm4, ymm4, Ry(y)
                ; vpand Ry(dst), ymm4, Ry(x)
            ),
            VBin::Mulh | VBin::Mulhu => {
                // Products of the even lanes, then of the odd lanes moved to even positions
                // (`vpshufd` 0xf5 copies each odd dword over its even neighbour; the
                // multiplies read the low dword of each qword); the even products' high
                // dwords are moved down the same way, and the odd products' high dwords are
                // already in odd positions, so a dword blend joins them.
                dynasm!(self.ops
                    ; .arch x64
                    ; vpshufd ymm5, Ry(x), 0xf5u8 as i8
                    ; vpshufd ymm6, Ry(y), 0xf5u8 as i8
                );
                if op == VBin::Mulh {
                    dynasm!(self.ops
                        ; .arch x64
                        ; vpmuldq ymm4, Ry(x), Ry(y)
                        ; vpmuldq ymm5, ymm5, ymm6
                    );
                } else {
                    dynasm!(self.ops
                        ; .arch x64
                        ; vpmuludq ymm4, Ry(x), Ry(y)
                        ; vpmuludq ymm5, ymm5, ymm6
                    );
                }
                // vpshufd ymm4, ymm4, 0xf5; vpblendd ymm[dst], ymm4, ymm5, 0xaa, the blend
                // spelled out (VEX.256.66.0F3A.W0 02 /r ib; VEX.R is the inverted bit 3 of
                // the destination): the assembler swaps the blend's two sources.
                let r_bit = if dst < 8 { 0x80 } else { 0 };
                let modrm = 0xc0 | ((dst & 7) << 3) | 5;
                dynasm!(self.ops
                    ; .arch x64
                    ; vpshufd ymm4, ymm4, 0xf5u8 as i8
                    ; .bytes [0xc4u8, 0x63 | r_bit, 0x5d, 0x02, modrm, 0xaa]
                );
            }
            VBin::Bfm => {
                self.field_ones(x);
                dynasm!(self.ops
                    ; .arch x64
                    ; vpand ymm5, Ry(y), ymm8
                    ; vpsllvd Ry(dst), ymm4, ymm5
                );
            }
        }
    }

    /// `ymm[dst] = op(ymm[x], imm)` for a shift ([`VBin::is_shift`]) by an immediate, whose
    /// count (`imm & 31`) is known here: a shift by an immediate instead of by a broadcast
    /// count.
    fn shift_by_imm(&mut self, op: VBin, dst: u8, x: u8, imm: u32) {
        let n = (imm & 31) as i8;
        match op {
            VBin::Sll => dynasm!(self.ops ; .arch x64 ; vpslld Ry(dst), Ry(x), n),
            VBin::Srl => dynasm!(self.ops ; .arch x64 ; vpsrld Ry(dst), Ry(x), n),
            VBin::Sra => dynasm!(self.ops ; .arch x64 ; vpsrad Ry(dst), Ry(x), n),
            _ => unreachable!("shift_by_imm is only given shifts"),
        }
    }

    /// `ymm0` = all ones in the lanes where `cond(ymm[x], ymm[y])` holds, for the conditions
    /// that are computed directly (the others are their complements).
    fn vcond(&mut self, c: VCmp, x: u8, y: u8) {
        match c {
            VCmp::Eq | VCmp::Ne => dynasm!(self.ops ; .arch x64 ; vpcmpeqd ymm0, Ry(x), Ry(y)),
            VCmp::LtS | VCmp::GeS => dynasm!(self.ops ; .arch x64 ; vpcmpgtd ymm0, Ry(y), Ry(x)),
            VCmp::GtS => dynasm!(self.ops ; .arch x64 ; vpcmpgtd ymm0, Ry(x), Ry(y)),
            VCmp::LtU | VCmp::GeU | VCmp::GtU => {
                dynasm!(self.ops
                    ; .arch x64
                    ; vpxor ymm4, Ry(x), ymm9
                    ; vpxor ymm5, Ry(y), ymm9
                );
                if c == VCmp::GtU {
                    dynasm!(self.ops ; .arch x64 ; vpcmpgtd ymm0, ymm4, ymm5);
                } else {
                    dynasm!(self.ops ; .arch x64 ; vpcmpgtd ymm0, ymm5, ymm4);
                }
            }
        }
    }

    /// `ymm4 = ones(ymm[width] & 63)`, the field mask of `bfm`/`bfe.u32`: all ones shifted
    /// left by the width and inverted (a count of 32 or more shifts everything out).
    fn field_ones(&mut self, width: u8) {
        dynasm!(self.ops
            ; .arch x64
            ; vmovdqu ymm4, [r11 + K_C63]
            ; vpand ymm4, Ry(width), ymm4
            ; vpsllvd ymm4, ymm10, ymm4
            ; vpxor ymm4, ymm4, ymm10
        );
    }

    /// The register holding quarter `q` of row `r`: outside a run, `scratch`, loaded; in a
    /// run, its register in the row cache, loaded there first if it is not cached
    /// ([`Run::victim`]). The register is pinned until the instruction is emitted.
    fn src(&mut self, r: u8, q: usize, scratch: u8) -> u8 {
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
    fn dest(&mut self, d: u8) -> u8 {
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
    fn wide_run(&self) -> bool {
        self.run.as_ref().is_some_and(|run| run.wide)
    }

    /// Load quarter `q` of row `r` into `ymm[reg]` (in a 512-bit run, the half starting at
    /// quarter `q` into `zmm[reg]`).
    fn load(&mut self, reg: u8, r: u8, q: usize) {
        let at = row(r, q);
        if self.wide_run() {
            self.load_half(reg, at);
        } else {
            dynasm!(self.ops ; .arch x64 ; vmovdqu Ry(reg), [rsi + at]);
        }
    }

    /// The per-instruction part of a lane-local instruction: its broadcast operand into
    /// `ymm7`.
    fn lane_setup(&mut self, inst: &Inst, kind: Kind) {
        match kind {
            Kind::VBin(op, VSrc::Imm) if op.is_shift() => {}
            Kind::VBin(_, src) | Kind::VBinRev(_, src) => self.splat_src(src, inst),
            Kind::MacVu | Kind::Cndmask => self.splat_src(VSrc::Ureg, inst),
            Kind::VSplat { imm: true } => self.splat_imm(inst.imm),
            Kind::VSplat { imm: false } => {
                let at = ureg(inst.rs1);
                dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm7, [rdx + at]);
            }
            _ => {}
        }
    }

    /// The part of a lane-local instruction ([`Kind::lane_local`]) starting at quarter `q`:
    /// lanes `8q..8q+8`, or in a 512-bit run the half `8q..8q+16` (`avx512.rs`). Its
    /// operands' parts in, its result's part out, nothing else read or written but the
    /// uniform registers, which no lane-local instruction writes. Sources come from
    /// [`Emitter::src`] (the run's row cache or a scratch register); results go out through
    /// [`Emitter::store`]; the operation itself is emitted by the AVX2 methods below or
    /// their 512-bit counterparts.
    fn lane_part(&mut self, inst: &Inst, kind: Kind, q: usize, masked: bool) {
        let (d, a, b, c) = (inst.rd, inst.rs1, inst.rs2, inst.rs3);
        let wide = self.wide_run();
        match kind {
            Kind::Nop => {}
            Kind::VBin(op, VSrc::Imm) if op.is_shift() => {
                let x = self.src(a, q, 0);
                let dst = self.dest(d);
                if wide {
                    self.shift_by_imm_512(op, dst, x, inst.imm);
                } else {
                    self.shift_by_imm(op, dst, x, inst.imm);
                }
                self.result(dst, d, q, masked);
            }
            Kind::VBin(op, src) | Kind::VBinRev(op, src) => {
                let x = self.src(a, q, 0);
                let y = if src == VSrc::Row {
                    self.src(b, q, 1)
                } else {
                    7
                };
                let dst = self.dest(d);
                let (x, y) = if matches!(kind, Kind::VBinRev(..)) {
                    (y, x)
                } else {
                    (x, y)
                };
                if wide {
                    self.vbin_512(op, dst, x, y);
                } else {
                    self.vbin(op, dst, x, y);
                }
                self.result(dst, d, q, masked);
            }
            Kind::VUn(VUn::Mov) => {
                let x = self.src(a, q, 0);
                self.copy_result(x, d, q, masked);
            }
            Kind::VUn(op) => {
                let x = self.src(a, q, 0);
                let dst = self.dest(d);
                if wide {
                    self.vun_512(op, dst, x);
                } else {
                    self.vun(op, dst, x);
                }
                self.result(dst, d, q, masked);
            }
            Kind::VSplat { .. } => self.copy_result(7, d, q, masked),
            Kind::Laneid => {
                let dst = self.dest(d);
                let at = K_LANES + row(0, q);
                if wide {
                    self.load_const_512(dst, at);
                } else {
                    dynasm!(self.ops ; .arch x64 ; vmovdqu Ry(dst), [r11 + at]);
                }
                self.result(dst, d, q, masked);
            }
            Kind::Mac | Kind::MacVu | Kind::Mad => {
                let x = self.src(a, q, 0);
                let y = if kind == Kind::MacVu {
                    7
                } else {
                    self.src(b, q, 1)
                };
                let z = self.src(if kind == Kind::Mad { c } else { d }, q, 2);
                let dst = self.dest(d);
                if wide {
                    self.mul_add_512(dst, x, y, z);
                } else {
                    dynasm!(self.ops
                        ; .arch x64
                        ; vpmulld ymm4, Ry(x), Ry(y)
                        ; vpaddd Ry(dst), ymm4, Ry(z)
                    );
                }
                self.result(dst, d, q, masked);
            }
            Kind::Sel | Kind::Bfi | Kind::BfeU => {
                let x = self.src(a, q, 1);
                let y = self.src(b, q, 2);
                let z = self.src(c, q, 3);
                let dst = self.dest(d);
                if wide {
                    self.ternary_512(kind, dst, x, y, z);
                } else {
                    self.ternary(kind, dst, x, y, z);
                }
                self.result(dst, d, q, masked);
            }
            Kind::Cndmask => {
                let x = self.src(a, q, 1);
                let old = self.src(d, q, 2);
                let dst = self.dest(d);
                // Lane l picks v[rs1] where bit l of the mask is set.
                if wide {
                    self.cndmask_512(dst, old, x, q);
                } else {
                    let at = K_BITS + (q as i32) * 32;
                    dynasm!(self.ops
                        ; .arch x64
                        ; vmovdqu ymm5, [r11 + at]
                        ; vpand ymm4, ymm7, ymm5
                        ; vpcmpeqd ymm4, ymm4, ymm5
                        ; vpblendvb Ry(dst), Ry(old), Ry(x), ymm4
                    );
                }
                self.result(dst, d, q, masked);
            }
            Kind::Pair64 { add } => {
                let (lo_a, lo_b) = (self.src(a, q, 0), self.src(b, q, 1));
                let (hi_a, hi_b) = (self.src(a + 1, q, 2), self.src(b + 1, q, 3));
                // The low words into `4`, the high words into `6`.
                if wide {
                    self.pair64_512(add, [lo_a, lo_b, hi_a, hi_b]);
                } else {
                    self.pair64(add, [lo_a, lo_b, hi_a, hi_b]);
                }
                self.result(4, d, q, masked);
                self.result(6, d + 1, q, masked);
            }
            _ => unreachable!("lane_part is only given lane-local kinds"),
        }
    }

    /// Store the part of row `d` computed into `dst`, a register the instruction owns. In
    /// a masked 512-bit run the lanes EXEC leaves off first get the row's old values back
    /// (the AVX2 masked store merges instead, [`Emitter::store`]).
    fn result(&mut self, dst: u8, d: u8, q: usize, masked: bool) {
        if masked && self.wide_run() {
            let old = self.src(d, q, 0);
            self.merge_exec_512(dst, old, dst, q);
        }
        self.store(dst, d, q, masked);
    }

    /// As [`Emitter::result`], for a part that is a copy of `new` (a source's register or
    /// the broadcast operand), which must stay as it is.
    fn copy_result(&mut self, new: u8, d: u8, q: usize, masked: bool) {
        if masked && self.wide_run() {
            let dst = self.dest(d);
            let old = self.src(d, q, 0);
            self.merge_exec_512(dst, old, new, q);
            self.store(dst, d, q, masked);
        } else {
            self.store(new, d, q, masked);
        }
    }

    /// `ymm[dst] = op(ymm[x])` (a move is a copy: [`Emitter::copy_result`]).
    fn vun(&mut self, op: VUn, dst: u8, x: u8) {
        match op {
            VUn::Mov => dynasm!(self.ops ; .arch x64 ; vmovdqa Ry(dst), Ry(x)),
            VUn::Not => dynasm!(self.ops ; .arch x64 ; vpxor Ry(dst), Ry(x), ymm10),
            VUn::Neg => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpsubd Ry(dst), ymm4, Ry(x)
            ),
            VUn::Abs => dynasm!(self.ops ; .arch x64 ; vpabsd Ry(dst), Ry(x)),
            VUn::SextB | VUn::SextH | VUn::ZextB | VUn::ZextH => {
                let n = op.field_shift();
                dynasm!(self.ops ; .arch x64 ; vpslld Ry(dst), Ry(x), n);
                if matches!(op, VUn::SextB | VUn::SextH) {
                    dynasm!(self.ops ; .arch x64 ; vpsrad Ry(dst), Ry(dst), n);
                } else {
                    dynasm!(self.ops ; .arch x64 ; vpsrld Ry(dst), Ry(dst), n);
                }
            }
        }
    }

    /// `ymm[dst]` from `ymm[x]`, `ymm[y]`, `ymm[z]` (`v[rs1]`, `v[rs2]`, `v[rs3]`) for
    /// `sel`, `bfi` and `bfe.u32`.
    fn ternary(&mut self, kind: Kind, dst: u8, x: u8, y: u8, z: u8) {
        match kind {
            // Where v[rs3] == 0 take v[rs2], else v[rs1].
            Kind::Sel => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqd ymm4, ymm4, Ry(z)
                ; vpblendvb Ry(dst), Ry(x), Ry(y), ymm4
            ),
            Kind::Bfi => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(x), Ry(y)
                ; vpandn ymm5, Ry(x), Ry(z)
                ; vpor Ry(dst), ymm4, ymm5
            ),
            _ => {
                self.field_ones(z);
                dynasm!(self.ops
                    ; .arch x64
                    ; vpand ymm5, Ry(y), ymm8
                    ; vpsrlvd Ry(dst), Ry(x), ymm5
                    ; vpand Ry(dst), Ry(dst), ymm4
                );
            }
        }
    }

    /// The 64-bit add or subtract of the pairs `[lo_a, lo_b, hi_a, hi_b]` (registers) into
    /// `ymm4` (low words) and `ymm6` (high words).
    fn pair64(&mut self, add: bool, [lo_a, lo_b, hi_a, hi_b]: [u8; 4]) {
        if add {
            // carry = a_lo >u lo
            dynasm!(self.ops
                ; .arch x64
                ; vpaddd ymm4, Ry(lo_a), Ry(lo_b)
                ; vpxor ymm5, Ry(lo_a), ymm9
                ; vpxor ymm6, ymm4, ymm9
                ; vpcmpgtd ymm5, ymm5, ymm6
                ; vpaddd ymm6, Ry(hi_a), Ry(hi_b)
                ; vpsubd ymm6, ymm6, ymm5
            );
        } else {
            // borrow = b_lo >u a_lo
            dynasm!(self.ops
                ; .arch x64
                ; vpsubd ymm4, Ry(lo_a), Ry(lo_b)
                ; vpxor ymm5, Ry(lo_b), ymm9
                ; vpxor ymm6, Ry(lo_a), ymm9
                ; vpcmpgtd ymm5, ymm5, ymm6
                ; vpsubd ymm6, Ry(hi_a), Ry(hi_b)
                ; vpaddd ymm6, ymm6, ymm5
            );
        }
    }

    fn inst(&mut self, pc: u32, inst: &Inst, kind: Kind, masked: bool) {
        let (d, a, b) = (inst.rd, inst.rs1, inst.rs2);
        if kind.lane_local() {
            self.lane_setup(inst, kind);
            for q in 0..4 {
                self.lane_part(inst, kind, q, masked);
            }
            return;
        }
        match kind {
            Kind::VCmp(cond, src) => {
                self.splat_src(src, inst);
                dynasm!(self.ops ; .arch x64 ; xor ecx, ecx);
                for q in 0..4 {
                    self.load(0, a, q);
                    let y = if src == VSrc::Row {
                        self.load(1, b, q);
                        1
                    } else {
                        7
                    };
                    self.vcond(cond, 0, y);
                    // vmovmskps eax, ymm0, spelled out: the assembler's encoding of the
                    // 256-bit form is not the instruction's.
                    dynasm!(self.ops ; .arch x64 ; .bytes [0xc5u8, 0xfc, 0x50, 0xc0]);
                    if q > 0 {
                        let shift = (8 * q) as i8;
                        dynasm!(self.ops ; .arch x64 ; shl eax, shift);
                    }
                    dynasm!(self.ops ; .arch x64 ; or ecx, eax);
                }
                if matches!(cond, VCmp::Ne | VCmp::GeS | VCmp::GeU) {
                    dynasm!(self.ops ; .arch x64 ; not ecx);
                }
                let at = ureg(d);
                dynasm!(self.ops
                    ; .arch x64
                    ; and ecx, [rdi + CTX_EXEC]
                    ; mov [rdx + at], ecx
                );
            }
            Kind::SBin(op, src) => {
                let (ua, ud) = (ureg(a), ureg(d));
                dynasm!(self.ops ; .arch x64 ; mov eax, [rdx + ua]);
                match src {
                    super::kind::SrcU::Reg => {
                        let ub = ureg(b);
                        dynasm!(self.ops ; .arch x64 ; mov ecx, [rdx + ub]);
                    }
                    super::kind::SrcU::Imm => {
                        let imm = inst.imm as i32;
                        dynasm!(self.ops ; .arch x64 ; mov ecx, imm);
                    }
                }
                self.sbin(op);
                dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], eax);
            }
            Kind::SUn(op) => {
                let (ua, ud) = (ureg(a), ureg(d));
                match op {
                    SUn::Mov => dynasm!(self.ops ; .arch x64 ; mov eax, [rdx + ua]),
                    SUn::Not => dynasm!(self.ops ; .arch x64 ; mov eax, [rdx + ua] ; not eax),
                    SUn::SextB => dynasm!(self.ops ; .arch x64 ; movsx eax, BYTE [rdx + ua]),
                    SUn::SextH => dynasm!(self.ops ; .arch x64 ; movsx eax, WORD [rdx + ua]),
                    SUn::ExecGet => dynasm!(self.ops ; .arch x64 ; mov eax, [rdi + CTX_EXEC]),
                }
                dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], eax);
            }
            Kind::S64(op) => {
                let (ua, ub, ud) = (ureg(a), ureg(b), ureg(d));
                dynasm!(self.ops ; .arch x64 ; mov rax, [rdx + ua]);
                match op {
                    S64::Add => dynasm!(self.ops ; .arch x64 ; add rax, [rdx + ub]),
                    S64::Sub => dynasm!(self.ops ; .arch x64 ; sub rax, [rdx + ub]),
                    S64::AddSx => dynasm!(self.ops
                        ; .arch x64
                        ; movsxd rcx, DWORD [rdx + ub]
                        ; add rax, rcx
                    ),
                    S64::AddZx => dynasm!(self.ops
                        ; .arch x64
                        ; mov ecx, [rdx + ub]
                        ; add rax, rcx
                    ),
                    S64::AddImm => {
                        let imm = i64::from(inst.imm as i32);
                        dynasm!(self.ops ; .arch x64 ; mov rcx, QWORD imm ; add rax, rcx);
                    }
                    S64::Mov => {}
                }
                dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], rax);
            }
            Kind::SImm => {
                let (ud, imm) = (ureg(d), inst.imm as i32);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], imm);
            }
            Kind::Upc => {
                let (ud, v) = (ureg(d), pc.wrapping_add(inst.imm) as i32);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], v);
            }
            Kind::Branch(br) => self.branch(pc, inst, br, masked),
            Kind::ExecWrite(w) => self.exec_write(pc, inst, w),
            Kind::LoadRow => self.load_row(pc, inst),
            Kind::StoreRow => self.store_row(pc, inst),
            Kind::Waitcnt => self.waitcnt(inst),
            _ => unreachable!("lane-local kinds are emitted above"),
        }
    }

    /// `ymm12..ymm15` = the lane masks of `ctx.exec`, one quarter each (uses `ymm4`,
    /// `ymm5`, `ymm7`).
    fn lane_masks(&mut self) {
        dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm7, [rdi + CTX_EXEC]);
        for q in 0..4u8 {
            let at = K_BITS + i32::from(q) * 32;
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm5, [r11 + at]
                ; vpand ymm4, ymm7, ymm5
                ; vpcmpeqd Ry(12 + q), ymm4, ymm5
            );
        }
    }

    /// An EXEC writer at `pc`, the last instruction of its block: the new EXEC to `ctx`,
    /// the lane masks and lane count, then on to the next block in the variant it needs.
    fn exec_write(&mut self, pc: u32, inst: &Inst, w: ExecWrite) {
        let next = pc.wrapping_add(u32::from(inst.len));
        let (ua, ud) = (ureg(inst.rs1), ureg(inst.rd));
        // The source is read before the old EXEC is saved: rd may equal rs1.
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [rdi + CTX_EXEC]
            ; mov ecx, [rdx + ua]
        );
        if w != ExecWrite::Set {
            dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], eax);
        }
        match w {
            ExecWrite::Set | ExecWrite::Mov => {}
            ExecWrite::And => dynasm!(self.ops ; .arch x64 ; and ecx, eax),
            ExecWrite::Or => dynasm!(self.ops ; .arch x64 ; or ecx, eax),
            ExecWrite::Xor => dynasm!(self.ops ; .arch x64 ; xor ecx, eax),
            ExecWrite::Andn1 => dynasm!(self.ops ; .arch x64 ; not eax ; and ecx, eax),
            ExecWrite::Andn2 => dynasm!(self.ops ; .arch x64 ; not ecx ; and ecx, eax),
        }
        dynasm!(self.ops
            ; .arch x64
            ; mov [rdi + CTX_EXEC], ecx
            ; popcnt ebx, ecx
        );
        self.lane_masks();
        dynasm!(self.ops
            ; .arch x64
            ; cmp ecx, -1
            ; jne >masked
            ; mov r9, [rdi + CTX_TABLE_FULL]
        );
        self.goto(next, false);
        dynasm!(self.ops
            ; .arch x64
            ; masked:
            ; mov r9, [rdi + CTX_TABLE_MASKED]
        );
        self.goto(next, true);
    }

    /// `eax = eax op ecx`.
    fn sbin(&mut self, op: SBin) {
        match op {
            SBin::Add => dynasm!(self.ops ; .arch x64 ; add eax, ecx),
            SBin::Sub => dynasm!(self.ops ; .arch x64 ; sub eax, ecx),
            SBin::And => dynasm!(self.ops ; .arch x64 ; and eax, ecx),
            SBin::Or => dynasm!(self.ops ; .arch x64 ; or eax, ecx),
            SBin::Xor => dynasm!(self.ops ; .arch x64 ; xor eax, ecx),
            SBin::Andn => dynasm!(self.ops ; .arch x64 ; not ecx ; and eax, ecx),
            SBin::Orn => dynasm!(self.ops ; .arch x64 ; not ecx ; or eax, ecx),
            SBin::Xnor => dynasm!(self.ops ; .arch x64 ; xor eax, ecx ; not eax),
            SBin::Mul => dynasm!(self.ops ; .arch x64 ; imul eax, ecx),
            SBin::Mulh => dynasm!(self.ops
                ; .arch x64
                ; movsxd rax, eax
                ; movsxd rcx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            // 32-bit moves zero the upper halves, so both operands are already unsigned.
            SBin::Mulhu => dynasm!(self.ops
                ; .arch x64
                ; mov eax, eax
                ; mov ecx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            SBin::Mulhsu => dynasm!(self.ops
                ; .arch x64
                ; movsxd rax, eax
                ; mov ecx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            // x86 masks 32-bit shift and rotate counts to 5 bits, as the ISA does.
            SBin::Sll => dynasm!(self.ops ; .arch x64 ; shl eax, cl),
            SBin::Srl => dynasm!(self.ops ; .arch x64 ; shr eax, cl),
            SBin::Sra => dynasm!(self.ops ; .arch x64 ; sar eax, cl),
            SBin::Rol => dynasm!(self.ops ; .arch x64 ; rol eax, cl),
            SBin::Ror => dynasm!(self.ops ; .arch x64 ; ror eax, cl),
            SBin::Slt => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setl al ; movzx eax, al),
            SBin::Sltu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setb al ; movzx eax, al),
            SBin::Seq => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; sete al ; movzx eax, al),
            SBin::Sne => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setne al ; movzx eax, al),
            SBin::Sge => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setge al ; movzx eax, al),
            SBin::Sgeu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setae al ; movzx eax, al),
            SBin::Min => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovg eax, ecx),
            SBin::Max => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovl eax, ecx),
            SBin::Minu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmova eax, ecx),
            SBin::Maxu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovb eax, ecx),
            SBin::CzeroEqz => dynasm!(self.ops ; .arch x64 ; test ecx, ecx ; cmovz eax, ecx),
            SBin::CzeroNez => dynasm!(self.ops
                ; .arch x64
                ; test ecx, ecx
                ; mov ecx, 0
                ; cmovnz eax, ecx
            ),
        }
    }

    /// A control transfer at `pc`, the last instruction of its block.
    fn branch(&mut self, pc: u32, inst: &Inst, br: Branch, masked: bool) {
        let next = pc.wrapping_add(u32::from(inst.len));
        let target = inst.imm;
        let (ua, ud) = (ureg(inst.rs1), ureg(inst.rd));
        match br {
            Branch::Jmp => self.goto(target, masked),
            Branch::Jal => {
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], next as i32);
                self.goto(target, masked);
            }
            Branch::Bexecz | Branch::Bexecnz if !masked => {
                // Full EXEC is never zero.
                self.goto(if br == Branch::Bexecnz { target } else { next }, masked);
            }
            Branch::Bz
            | Branch::Bnz
            | Branch::Bexecz
            | Branch::Bexecnz
            | Branch::Bnone
            | Branch::Bany => {
                match br {
                    Branch::Bz | Branch::Bnz => {
                        dynasm!(self.ops ; .arch x64 ; cmp DWORD [rdx + ua], 0)
                    }
                    Branch::Bexecz | Branch::Bexecnz => {
                        dynasm!(self.ops ; .arch x64 ; cmp DWORD [rdi + CTX_EXEC], 0)
                    }
                    _ => dynasm!(self.ops
                        ; .arch x64
                        ; mov eax, [rdx + ua]
                        ; test eax, [rdi + CTX_EXEC]
                    ),
                }
                let taken_if_zero = matches!(br, Branch::Bz | Branch::Bexecz | Branch::Bnone);
                if taken_if_zero {
                    dynasm!(self.ops ; .arch x64 ; jnz >fall);
                } else {
                    dynasm!(self.ops ; .arch x64 ; jz >fall);
                }
                self.goto(target, masked);
                dynasm!(self.ops ; .arch x64 ; fall:);
                self.goto(next, masked);
            }
            Branch::Jr | Branch::Jalr => {
                let imm = inst.imm as i32;
                let slots = self.slots as i32;
                let exit = self.exit;
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, [rdx + ua]
                    ; add eax, imm
                    ; and eax, -4
                );
                if br == Branch::Jalr {
                    dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], next as i32);
                }
                // Through the slot table: the block there, or the exit with the PC in eax.
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, eax
                    ; shr ecx, 2
                    ; cmp ecx, slots
                    ; jae =>exit
                    ; jmp QWORD [r9 + rcx * 8]
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::direct::Hint;
    use std::mem::offset_of;

    /// The offsets the generated code uses are the structures' own.
    #[test]
    fn offsets_match_the_structures() {
        assert_eq!(offset_of!(Ctx, mask) as i32, CTX_MASK);
        assert_eq!(offset_of!(Ctx, consts) as i32, CTX_CONSTS);
        assert_eq!(offset_of!(Ctx, v) as i32, CTX_V);
        assert_eq!(offset_of!(Ctx, u) as i32, CTX_U);
        assert_eq!(offset_of!(Ctx, table) as i32, CTX_TABLE);
        assert_eq!(offset_of!(Ctx, budget) as i32, CTX_BUDGET);
        assert_eq!(offset_of!(Ctx, lane_ops) as i32, CTX_LANE_OPS);
        assert_eq!(offset_of!(Ctx, exec) as i32, CTX_EXEC);
        assert_eq!(offset_of!(Ctx, tables) as i32, CTX_TABLE_FULL);
        assert_eq!(offset_of!(Ctx, tables) as i32 + 8, CTX_TABLE_MASKED);
        assert_eq!(offset_of!(Consts, lanes) as i32, K_LANES);
        assert_eq!(offset_of!(Consts, bits) as i32, K_BITS);
        assert_eq!(offset_of!(Consts, c31) as i32, K_C31);
        assert_eq!(offset_of!(Consts, sign) as i32, K_SIGN);
        assert_eq!(offset_of!(Consts, c63) as i32, K_C63);
        assert_eq!(offset_of!(Consts, step4) as i32, K_STEP4);
        assert_eq!(offset_of!(Ctx, direct) as i32, CTX_DIRECT);
        assert_eq!(offset_of!(Direct, rows) as i32, D_ROWS);
        assert_eq!(offset_of!(Direct, hints) as i32, D_HINTS);
        assert_eq!(std::mem::size_of::<Hint>() as i32, HINT_SIZE);
        assert_eq!(offset_of!(Hint, lo), 0);
        assert_eq!(offset_of!(Hint, end), 8);
        assert_eq!(offset_of!(Hint, host), 16);
        assert_eq!(offset_of!(Direct, ring) as i32, D_RING);
        assert_eq!(offset_of!(Direct, row_seq) as i32, D_ROW_SEQ);
        assert_eq!(offset_of!(Direct, pre) as i32, D_PRE);
        assert_eq!(offset_of!(Direct, ring_head) as i32, D_RING_HEAD);
        assert_eq!(offset_of!(Direct, ring_len) as i32, D_RING_LEN);
        assert_eq!(offset_of!(Direct, seq) as i32, D_SEQ);
        assert_eq!(offset_of!(Direct, record) as i32, D_RECORD);
        assert_eq!(offset_of!(Direct, miss) as i32, D_MISS);
        assert_eq!(offset_of!(Direct, miss_lo) as i32, D_MISS_LO);
        assert!(RING.is_power_of_two() && limit(store_counter()) as usize <= RING);
        assert_ne!(load_counter(), store_counter());
    }
}
