//! §2.6: a warp's pending asynchronous operations, their counters, retirement, `waitcnt`,
//! and the RAW/WAW hazard reports on registers with a pending write-back.

use crate::program::Program;
use crate::warp::{Warp, LANES};
use std::collections::VecDeque;
use warpkit_isa::COUNTERS;

/// Counters of §2.6, in `COUNTERS` order.
pub const NUM_COUNTERS: usize = 6;

/// What an operation writes when it retires. A multi-register result is written at once.
// Inline data on purpose: the queue's ring buffer then holds every pending load without an
// allocation per memory instruction.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Writeback {
    None,
    /// `count` (1..=4) vector registers from `first`, lanes in `mask`.
    V {
        first: u8,
        count: u8,
        mask: u32,
        data: [[u32; LANES]; 4],
    },
    /// `count` (1..=8) uniform registers from `first`.
    U {
        first: u8,
        count: u8,
        data: [u32; 8],
    },
}

impl Writeback {
    fn vmask(&self) -> u128 {
        match *self {
            Writeback::V { first, count, .. } => range_mask128(first, count),
            _ => 0,
        }
    }
    fn umask(&self) -> u64 {
        match *self {
            Writeback::U { first, count, .. } => range_mask64(first, count),
            _ => 0,
        }
    }
}

pub(crate) fn range_mask128(first: u8, count: u8) -> u128 {
    let ones = if count >= 128 {
        u128::MAX
    } else {
        (1u128 << count) - 1
    };
    ones.checked_shl(u32::from(first)).unwrap_or(0)
}

pub(crate) fn range_mask64(first: u8, count: u8) -> u64 {
    let ones = if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    };
    ones.checked_shl(u32::from(first)).unwrap_or(0)
}

/// One issued, not yet retired, operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingOp {
    /// Index into [`COUNTERS`].
    pub counter: u8,
    /// PC of the issuing instruction.
    pub pc: u32,
    pub writeback: Writeback,
}

/// The pending operations of one warp, oldest first.
#[derive(Debug, Clone, Default)]
pub struct AsyncQueue {
    ops: VecDeque<PendingOp>,
    counts: [u32; NUM_COUNTERS],
    /// Registers with a pending write-back, for hazard checks.
    pub(crate) vpending: u128,
    pub(crate) upending: u64,
}

impl AsyncQueue {
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Outstanding operations on counter `c`.
    pub fn count(&self, c: usize) -> u32 {
        self.counts[c]
    }

    pub fn ops(&self) -> impl Iterator<Item = &PendingOp> {
        self.ops.iter()
    }

    fn recompute(&mut self) {
        self.vpending = 0;
        self.upending = 0;
        for op in &self.ops {
            self.vpending |= op.writeback.vmask();
            self.upending |= op.writeback.umask();
        }
    }

    /// The youngest pending operation writing vector register `r` (or uniform if `!vector`).
    fn writer_of(&self, vector: bool, r: u32) -> Option<&PendingOp> {
        self.ops.iter().rev().find(|op| {
            if vector {
                op.writeback.vmask() >> r & 1 != 0
            } else {
                op.writeback.umask() >> r & 1 != 0
            }
        })
    }
}

/// A register hazard (§2.6): undefined for software, reported by the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    pub kind: HazardKind,
    pub workgroup: [u32; 3],
    pub warp: u32,
    /// PC of the instruction that read (RAW) or wrote (WAW) the register.
    pub pc: u32,
    /// `v5`, `u3`.
    pub register: String,
    /// PC of the pending operation that will write the register back.
    pub pending_pc: u32,
    /// Disassembly of the two instructions.
    pub asm: String,
    pub pending_asm: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

impl Warp {
    fn apply(&mut self, wb: &Writeback) {
        match wb {
            Writeback::None => {}
            Writeback::V {
                first,
                count,
                mask,
                data,
            } => {
                for (k, lanes) in data.iter().enumerate().take(usize::from(*count)) {
                    let Some(row) = self.v.get_mut(usize::from(*first) + k) else {
                        continue;
                    };
                    for (l, x) in row.iter_mut().enumerate() {
                        if (mask >> l) & 1 != 0 {
                            *x = lanes[l];
                        }
                    }
                }
            }
            Writeback::U { first, count, data } => {
                for (k, &value) in data.iter().enumerate().take(usize::from(*count)) {
                    if let Some(u) = self.u.get_mut(usize::from(*first) + k) {
                        *u = value;
                    }
                }
            }
        }
    }

    fn retire_at(&mut self, index: usize) {
        if let Some(op) = self.queue.ops.remove(index) {
            self.queue.counts[usize::from(op.counter)] -= 1;
            self.apply(&op.writeback);
            self.queue.recompute();
            if let Some(log) = &mut self.retire_log {
                log.push(op);
            }
        }
    }

    /// Retire the oldest operation of counter `c`.
    fn retire_oldest(&mut self, c: usize) {
        if let Some(i) = self
            .queue
            .ops
            .iter()
            .position(|op| usize::from(op.counter) == c)
        {
            self.retire_at(i);
        }
    }

    /// Issue an asynchronous operation: a counter at its in-flight limit first retires its
    /// oldest operation (errata v0.1.2); then the counter is incremented.
    pub fn issue(&mut self, counter: usize, pc: u32, writeback: Writeback) {
        let limit = COUNTERS
            .get(counter)
            .map_or(u32::MAX, |c| u32::from(c.max_outstanding));
        while self.queue.counts[counter] >= limit {
            self.retire_oldest(counter);
        }
        self.queue.counts[counter] += 1;
        self.queue.vpending |= writeback.vmask();
        self.queue.upending |= writeback.umask();
        self.queue.ops.push_back(PendingOp {
            counter: counter as u8,
            pc,
            writeback,
        });
    }

    /// `waitcnt`: retire until every counter is at or below its threshold, oldest first.
    pub fn wait_counters(&mut self, thresholds: &[u32; NUM_COUNTERS]) {
        for (c, &t) in thresholds.iter().enumerate() {
            while self.queue.counts[c] > t {
                self.retire_oldest(c);
            }
        }
    }

    /// `endpgm`: retire everything in issue order.
    pub fn drain(&mut self) {
        while !self.queue.ops.is_empty() {
            self.retire_at(0);
        }
    }

    /// Report RAW and WAW hazards of the instruction at `pc` against the pending
    /// write-backs. Called only while some write-back is pending.
    #[cold]
    #[inline(never)]
    pub(crate) fn check_hazards(&mut self, prog: &Program, pc: u32) {
        let Some(uses) = prog.uses(pc) else {
            return;
        };
        let vq = self.queue.vpending;
        let uq = self.queue.upending;
        let checks = [
            (HazardKind::Raw, true, uses.vread & vq, 0u64),
            (HazardKind::Raw, false, 0, uses.uread & uq),
            (HazardKind::Waw, true, uses.vwrite & vq, 0),
            (HazardKind::Waw, false, 0, uses.uwrite & uq),
        ];
        for (kind, vector, vbits, ubits) in checks {
            let mut bits = if vector { vbits } else { u128::from(ubits) };
            while bits != 0 {
                let r = bits.trailing_zeros();
                bits &= bits - 1;
                self.hazard_count += 1;
                if self.hazards.len() >= MAX_HAZARDS_PER_WARP {
                    continue;
                }
                let pending_pc = self.queue.writer_of(vector, r).map_or(0, |op| op.pc);
                self.hazards.push(Hazard {
                    kind,
                    workgroup: self.id.workgroup,
                    warp: self.id.warp,
                    pc,
                    register: format!("{}{r}", if vector { 'v' } else { 'u' }),
                    pending_pc,
                    asm: prog.disassemble(pc),
                    pending_asm: prog.disassemble(pending_pc),
                });
            }
        }
    }
}
