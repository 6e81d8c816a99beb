//! §2.6: a warp's pending asynchronous operations, their counters, retirement, `waitcnt`,
//! and the RAW/WAW hazard reports on registers with a pending write-back.

use crate::state::regs::{range_mask128, range_mask64};
use crate::state::regs::{URegs, VRegs, LANES, NUM_UREGS, NUM_VREGS};
use std::collections::VecDeque;
use warpkit_isa::COUNTERS;

/// Counters of §2.6, in `COUNTERS` order.
pub const NUM_COUNTERS: usize = 6;

/// What an operation writes when it retires. A multi-register result is written at once.
/// This is the description handed to tracers; the queue itself keeps vector data in a
/// pool of rows, so queuing a load moves a few bytes, not 512.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Writeback {
    /// Nothing to write back (a store, or cache control).
    None,
    /// `count` (1..=4) vector registers from `first`, lanes in `mask`.
    V {
        /// First register written.
        first: u8,
        /// Registers written, 1..=4.
        count: u8,
        /// Lanes written, bit l for lane l.
        mask: u32,
        /// The new values: `data[i]` holds the lanes of register `first + i`.
        data: [[u32; LANES]; 4],
    },
    /// `count` (1..=8) uniform registers from `first`.
    U {
        /// First register written.
        first: u8,
        /// Registers written, 1..=8.
        count: u8,
        /// The new values: `data[i]` for register `first + i`.
        data: [u32; 8],
    },
}

/// Which part of each 32-bit lane a vector write-back replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Part {
    Whole,
    /// Bits [15:0]; the high half keeps its value at retirement.
    Low16,
    /// Bits [31:16]; the low half keeps its value at retirement.
    High16,
}

/// One issued, not yet retired, operation, as tracers and [`AsyncQueue::ops`] see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingOp {
    /// Index into [`COUNTERS`].
    pub counter: u8,
    /// PC of the issuing instruction.
    pub pc: u32,
    /// What it writes when it retires.
    pub writeback: Writeback,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    None,
    /// Vector rows in the pool (`rows[..count]`), into registers `first..first+count`.
    V {
        first: u8,
        count: u8,
        part: Part,
        mask: u32,
        rows: [u16; 4],
    },
    U {
        first: u8,
        count: u8,
        data: [u32; 8],
    },
}

/// One queue entry: small and `Copy`, so issue and retirement move little.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    /// Issue order across the counters' queues (`AsyncQueue::next_seq` when queued).
    seq: u64,
    counter: u8,
    pc: u32,
    target: Target,
}

impl Entry {
    fn vmask(&self) -> u128 {
        match self.target {
            Target::V { first, count, .. } => range_mask128(first, count),
            _ => 0,
        }
    }
    fn umask(&self) -> u64 {
        match self.target {
            Target::U { first, count, .. } => range_mask64(first, count),
            _ => 0,
        }
    }
}

/// The pending operations of one warp. Each counter has its own queue, oldest first, so
/// retiring a counter's oldest operation (`waitcnt`, the in-flight limit) takes its queue's
/// front instead of searching past other counters' operations; `Entry::seq` keeps the
/// issue order across the queues, for `drain`, tracers and checkpoints.
#[derive(Debug, Clone)]
pub struct AsyncQueue {
    ops: [VecDeque<Entry>; NUM_COUNTERS],
    /// The `seq` of the next operation queued.
    next_seq: u64,
    /// Lane data of pending vector write-backs, one register row each; reused, never shrunk.
    rows: Vec<[u32; LANES]>,
    free: Vec<u16>,
    /// Pending writers per register, so the masks below update in O(registers written).
    vwriters: [u8; NUM_VREGS],
    uwriters: [u8; NUM_UREGS],
    /// Registers with a pending write-back, for hazard checks.
    pub(crate) vpending: u128,
    pub(crate) upending: u64,
    /// `vpending != 0 || upending != 0`: the one test the interpreter makes per instruction.
    pub(crate) watch: bool,
}

impl Default for AsyncQueue {
    fn default() -> AsyncQueue {
        AsyncQueue {
            ops: Default::default(),
            next_seq: 0,
            rows: Vec::new(),
            free: Vec::new(),
            vwriters: [0; NUM_VREGS],
            uwriters: [0; NUM_UREGS],
            vpending: 0,
            upending: 0,
            watch: false,
        }
    }
}

impl AsyncQueue {
    /// Whether no operation is pending on any counter.
    pub fn is_empty(&self) -> bool {
        self.ops.iter().all(VecDeque::is_empty)
    }

    /// Outstanding operations on counter `c`.
    pub fn count(&self, c: usize) -> u32 {
        self.ops[c].len() as u32
    }

    /// The pending operations, oldest first.
    pub fn ops(&self) -> impl Iterator<Item = PendingOp> + '_ {
        self.in_issue_order()
            .into_iter()
            .map(|e| self.describe(e, None))
    }

    /// Every pending entry, oldest first.
    fn in_issue_order(&self) -> Vec<&Entry> {
        let mut all: Vec<&Entry> = self.ops.iter().flatten().collect();
        all.sort_unstable_by_key(|e| e.seq);
        all
    }

    /// The counter whose oldest pending operation is the oldest of all.
    fn oldest_counter(&self) -> Option<usize> {
        (0..NUM_COUNTERS)
            .filter_map(|c| self.ops[c].front().map(|e| (e.seq, c)))
            .min()
            .map(|(_, c)| c)
    }

    /// Forget everything pending, keeping the allocations (a warp reused for another
    /// workgroup).
    pub(crate) fn clear(&mut self) {
        for q in &mut self.ops {
            q.clear();
        }
        self.next_seq = 0;
        self.free.clear();
        self.free.extend((0..self.rows.len() as u16).rev());
        self.vwriters = [0; NUM_VREGS];
        self.uwriters = [0; NUM_UREGS];
        self.vpending = 0;
        self.upending = 0;
        self.watch = false;
    }

    fn describe(&self, e: &Entry, written: Option<&[u32; LANES]>) -> PendingOp {
        let writeback = match e.target {
            Target::None => Writeback::None,
            Target::V {
                first,
                count,
                mask,
                rows,
                part,
            } => {
                let mut data = [[0u32; LANES]; 4];
                for k in 0..usize::from(count) {
                    data[k] = self.rows[usize::from(rows[k])];
                }
                if part != Part::Whole {
                    // The register's value after the merge, as a tracer reports writes.
                    if let Some(w) = written {
                        data[0] = *w;
                    }
                }
                Writeback::V {
                    first,
                    count,
                    mask,
                    data,
                }
            }
            Target::U { first, count, data } => Writeback::U { first, count, data },
        };
        PendingOp {
            counter: e.counter,
            pc: e.pc,
            writeback,
        }
    }

    fn alloc_row(&mut self) -> u16 {
        match self.free.pop() {
            Some(r) => r,
            None => {
                self.rows.push([0; LANES]);
                (self.rows.len() - 1) as u16
            }
        }
    }

    fn track(&mut self, e: &Entry) {
        match e.target {
            Target::V { first, count, .. } => {
                for r in usize::from(first)..usize::from(first) + usize::from(count) {
                    if let Some(n) = self.vwriters.get_mut(r) {
                        *n += 1;
                        self.vpending |= 1u128 << r;
                    }
                }
            }
            Target::U { first, count, .. } => {
                for r in usize::from(first)..usize::from(first) + usize::from(count) {
                    if let Some(n) = self.uwriters.get_mut(r) {
                        *n += 1;
                        self.upending |= 1u64 << r;
                    }
                }
            }
            Target::None => {}
        }
        self.watch = self.vpending != 0 || self.upending != 0;
    }

    fn untrack(&mut self, e: &Entry) {
        match e.target {
            Target::V { first, count, .. } => {
                for r in usize::from(first)..usize::from(first) + usize::from(count) {
                    if let Some(n) = self.vwriters.get_mut(r) {
                        *n -= 1;
                        if *n == 0 {
                            self.vpending &= !(1u128 << r);
                        }
                    }
                }
            }
            Target::U { first, count, .. } => {
                for r in usize::from(first)..usize::from(first) + usize::from(count) {
                    if let Some(n) = self.uwriters.get_mut(r) {
                        *n -= 1;
                        if *n == 0 {
                            self.upending &= !(1u64 << r);
                        }
                    }
                }
            }
            Target::None => {}
        }
        self.watch = self.vpending != 0 || self.upending != 0;
    }

    /// The PC of the youngest pending operation writing vector register `r` (or uniform if
    /// `!vector`).
    pub(crate) fn writer_pc(&self, vector: bool, r: u32) -> Option<u32> {
        self.writer_of(vector, r).map(|e| e.pc)
    }

    /// The youngest pending operation writing vector register `r` (or uniform if `!vector`).
    fn writer_of(&self, vector: bool, r: u32) -> Option<&Entry> {
        self.ops
            .iter()
            .flatten()
            .filter(|op| {
                if vector {
                    op.vmask() >> r & 1 != 0
                } else {
                    op.umask() >> r & 1 != 0
                }
            })
            .max_by_key(|op| op.seq)
    }

    /// Queue `e` on its counter, after every operation issued before it.
    fn push(&mut self, mut e: Entry) {
        e.seq = self.next_seq;
        self.next_seq += 1;
        self.track(&e);
        self.ops[usize::from(e.counter)].push_back(e);
    }
}
/// A register hazard (§2.6): undefined for software, reported by the model.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hazard {
    /// Whether the register was read (RAW) or written again (WAW).
    pub kind: HazardKind,
    /// The warp's workgroup (x, y, z).
    pub workgroup: [u32; 3],
    /// The warp's index within its workgroup.
    pub warp: u32,
    /// PC of the instruction that read (RAW) or wrote (WAW) the register.
    pub pc: u32,
    /// `v5`, `u3`.
    pub register: String,
    /// PC of the pending operation that will write the register back.
    pub pending_pc: u32,
    /// Disassembly of the two instructions.
    pub asm: String,
    /// Disassembly of the pending instruction, the one at `pending_pc`.
    pub pending_asm: String,
}

/// Which of the two register hazards of §2.6 a [`Hazard`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HazardKind {
    /// Read of a register with a pending write-back.
    Raw,
    /// A second write to a register with a pending write-back.
    Waw,
}

impl std::fmt::Display for Hazard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [x, y, z] = self.workgroup;
        let what = match self.kind {
            HazardKind::Raw => "RAW: reads",
            HazardKind::Waw => "WAW: writes",
        };
        write!(
            f,
            "workgroup ({x},{y},{z}) warp {}: {what} {} at pc {:#x} (`{}`) while the write-back of pc {:#x} (`{}`) is pending",
            self.warp, self.register, self.pc, self.asm, self.pending_pc, self.pending_asm
        )
    }
}

/// At most this many hazards are kept per warp; the rest are only counted.
pub const MAX_HAZARDS_PER_WARP: usize = 256;

/// Where a retirement writes: the register files, and the retire log the hooks read (kept
/// only while hooks observe the warp). Retirements are not an instruction's own writes, so
/// they do not mark the registers (`crate::state::regs`); the log records them instead.
pub(crate) struct RetireTo<'a> {
    pub v: &'a mut VRegs,
    pub u: &'a mut URegs,
    pub log: &'a mut Option<Vec<PendingOp>>,
}

impl AsyncQueue {
    /// Write a retired operation's result into the registers; returns the merged value of a
    /// half-register write (for the retire log).
    fn apply(&self, e: &Entry, to: &mut RetireTo) -> Option<[u32; LANES]> {
        match e.target {
            Target::None => None,
            Target::V {
                first,
                count,
                part,
                mask,
                rows,
            } => {
                if mask == u32::MAX && part == Part::Whole {
                    for (k, &r) in rows.iter().enumerate().take(usize::from(count)) {
                        let src = self.rows[usize::from(r)];
                        if let Some(row) = to.v.retiring(usize::from(first) + k) {
                            *row = src;
                        }
                    }
                    return None;
                }
                let mut lane_mask = [0u32; LANES];
                for (l, m) in lane_mask.iter_mut().enumerate() {
                    *m = 0u32.wrapping_sub((mask >> l) & 1);
                }
                // A half write replaces only its half: the bits it keeps are the
                // register's bits at retirement.
                let keep: u32 = match part {
                    Part::Whole => 0,
                    Part::Low16 => 0xffff_0000,
                    Part::High16 => 0x0000_ffff,
                };
                let mut merged = None;
                for (k, &r) in rows.iter().enumerate().take(usize::from(count)) {
                    let src = &self.rows[usize::from(r)];
                    let Some(row) = to.v.retiring(usize::from(first) + k) else {
                        continue;
                    };
                    for l in 0..LANES {
                        let new = (src[l] & !keep) | (row[l] & keep);
                        row[l] = (new & lane_mask[l]) | (row[l] & !lane_mask[l]);
                    }
                    if part != Part::Whole {
                        merged = Some(*row);
                    }
                }
                merged
            }
            Target::U { first, count, data } => {
                for (k, &value) in data.iter().enumerate().take(usize::from(count)) {
                    if let Some(u) = to.u.retiring(usize::from(first) + k) {
                        *u = value;
                    }
                }
                None
            }
        }
    }

    /// Retire the oldest operation of counter `c`.
    pub(crate) fn retire_oldest(&mut self, c: usize, to: &mut RetireTo) {
        let Some(e) = self.ops[c].pop_front() else {
            return;
        };
        let merged = self.apply(&e, to);
        self.untrack(&e);
        if let Some(log) = to.log {
            log.push(self.describe(&e, merged.as_ref()));
        }
        if let Target::V { count, rows, .. } = e.target {
            self.free.extend_from_slice(&rows[..usize::from(count)]);
        }
    }

    /// Retire the oldest operation of counter `c`, one that writes nothing: translated code
    /// retired it (`jit::absorb`).
    pub(crate) fn retire_written_nothing(&mut self, c: usize, to: &mut RetireTo) {
        debug_assert!(self.ops[c].front().is_none_or(|e| e.target == Target::None));
        self.retire_oldest(c, to);
    }

    /// A counter at its in-flight limit first retires its oldest operation (errata
    /// v0.1.2); then the counter is incremented and the entry queued.
    fn push_entry(&mut self, e: Entry, to: &mut RetireTo) {
        let counter = usize::from(e.counter);
        let limit = COUNTERS
            .get(counter)
            .map_or(u32::MAX, |c| u32::from(c.max_outstanding));
        while self.count(counter) >= limit {
            self.retire_oldest(counter, to);
        }
        self.push(e);
    }

    /// Issue an asynchronous operation: a counter at its in-flight limit first retires its
    /// oldest operation (errata v0.1.2); then the counter is incremented.
    pub(crate) fn issue(
        &mut self,
        counter: usize,
        pc: u32,
        writeback: Writeback,
        to: &mut RetireTo,
    ) {
        let entry = |target| Entry {
            seq: 0,
            counter: counter as u8,
            pc,
            target,
        };
        match writeback {
            Writeback::None => self.push_entry(entry(Target::None), to),
            Writeback::U { first, count, data } => {
                self.push_entry(entry(Target::U { first, count, data }), to)
            }
            Writeback::V {
                first,
                count,
                mask,
                data,
            } => self.issue_v(
                counter,
                pc,
                first,
                mask,
                Part::Whole,
                &data[..usize::from(count)],
                to,
            ),
        }
    }

    /// Issue an operation writing `data.len()` (1..=4) vector registers from `first`, lanes
    /// in `mask`, `part` of each lane.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn issue_v(
        &mut self,
        counter: usize,
        pc: u32,
        first: u8,
        mask: u32,
        part: Part,
        data: &[[u32; LANES]],
        to: &mut RetireTo,
    ) {
        let mut rows = [0u16; 4];
        for (slot, d) in rows.iter_mut().zip(data) {
            let r = self.alloc_row();
            self.rows[usize::from(r)] = *d;
            *slot = r;
        }
        self.push_entry(
            Entry {
                seq: 0,
                counter: counter as u8,
                pc,
                target: Target::V {
                    first,
                    count: data.len().min(4) as u8,
                    part,
                    mask,
                    rows,
                },
            },
            to,
        );
    }

    /// As [`AsyncQueue::issue_v`] for one whole register on every lane, its row filled in
    /// place by `fill`: the word run of `exec::mem` reads memory straight into the queued
    /// row.
    #[inline(always)]
    pub(crate) fn issue_row(
        &mut self,
        counter: usize,
        pc: u32,
        first: u8,
        fill: impl FnOnce(&mut [u32; LANES]),
        to: &mut RetireTo,
    ) {
        let r = self.alloc_row();
        fill(&mut self.rows[usize::from(r)]);
        self.push_entry(
            Entry {
                seq: 0,
                counter: counter as u8,
                pc,
                target: Target::V {
                    first,
                    count: 1,
                    part: Part::Whole,
                    mask: u32::MAX,
                    rows: [r, 0, 0, 0],
                },
            },
            to,
        );
    }

    /// `waitcnt`: retire until every counter is at or below its threshold, oldest first.
    pub(crate) fn wait_counters(&mut self, thresholds: &[u32; NUM_COUNTERS], to: &mut RetireTo) {
        for (c, &t) in thresholds.iter().enumerate() {
            while self.count(c) > t {
                self.retire_oldest(c, to);
            }
        }
    }

    /// `endpgm`: retire everything in issue order.
    pub(crate) fn drain(&mut self, to: &mut RetireTo) {
        while let Some(c) = self.oldest_counter() {
            self.retire_oldest(c, to);
        }
    }
}

// ---- checkpoints --------------------------------------------------------------------

/// One pending operation as a checkpoint stores it (docs/checkpoints.md): its counter,
/// the issuing PC and what it will write, with the data.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct OpImage {
    counter: u8,
    pc: u32,
    target: TargetImage,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum TargetImage {
    None,
    V {
        first: u8,
        part: Part,
        mask: u32,
        /// One row per register written, `first` upwards (1..=4 rows).
        rows: Vec<[u32; LANES]>,
    },
    U {
        first: u8,
        count: u8,
        data: [u32; 8],
    },
}

impl AsyncQueue {
    /// The pending operations, oldest first, with their data.
    pub(crate) fn image(&self) -> Vec<OpImage> {
        self.in_issue_order()
            .into_iter()
            .map(|e| OpImage {
                counter: e.counter,
                pc: e.pc,
                target: match e.target {
                    Target::None => TargetImage::None,
                    Target::V {
                        first,
                        count,
                        part,
                        mask,
                        rows,
                    } => TargetImage::V {
                        first,
                        part,
                        mask,
                        rows: rows[..usize::from(count)]
                            .iter()
                            .map(|&r| self.rows[usize::from(r)])
                            .collect(),
                    },
                    Target::U { first, count, data } => TargetImage::U { first, count, data },
                },
            })
            .collect()
    }

    /// The queue holding `ops` (oldest first), or why they cannot be pending: a counter
    /// that does not exist or is over its in-flight limit, a register range outside the
    /// register file.
    pub(crate) fn from_image(ops: Vec<OpImage>) -> Result<AsyncQueue, String> {
        let mut q = AsyncQueue::default();
        let mut vwriters = [0u32; NUM_VREGS];
        let mut uwriters = [0u32; NUM_UREGS];
        for op in ops {
            let c = usize::from(op.counter);
            let Some(info) = COUNTERS.get(c).filter(|_| c < NUM_COUNTERS) else {
                return Err(format!(
                    "pending operation on counter {c}, which does not exist"
                ));
            };
            if q.count(c) >= u32::from(info.max_outstanding) {
                return Err(format!(
                    "more pending operations on counter {} than its limit of {}",
                    info.name, info.max_outstanding
                ));
            }
            let target = match op.target {
                TargetImage::None => Target::None,
                TargetImage::V {
                    first,
                    part,
                    mask,
                    rows,
                } => {
                    let count = rows.len();
                    if !(1..=4).contains(&count) || usize::from(first) + count > NUM_VREGS {
                        return Err(format!(
                            "pending write-back of {count} vector registers from v{first}"
                        ));
                    }
                    let mut slots = [0u16; 4];
                    for (slot, row) in slots.iter_mut().zip(rows) {
                        *slot = q.alloc_row();
                        q.rows[usize::from(*slot)] = row;
                    }
                    for w in &mut vwriters[usize::from(first)..usize::from(first) + count] {
                        *w += 1;
                    }
                    Target::V {
                        first,
                        count: count as u8,
                        part,
                        mask,
                        rows: slots,
                    }
                }
                TargetImage::U { first, count, data } => {
                    if !(1..=8).contains(&count)
                        || usize::from(first) + usize::from(count) > NUM_UREGS
                    {
                        return Err(format!(
                            "pending write-back of {count} uniform registers from u{first}"
                        ));
                    }
                    for w in &mut uwriters[usize::from(first)..usize::from(first + count)] {
                        *w += 1;
                    }
                    Target::U { first, count, data }
                }
            };
            if vwriters
                .iter()
                .chain(&uwriters)
                .any(|&n| n > u32::from(u8::MAX))
            {
                return Err("too many pending writers of one register".into());
            }
            q.push(Entry {
                seq: 0,
                counter: op.counter,
                pc: op.pc,
                target,
            });
        }
        Ok(q)
    }
}
