//! The asynchronous operations of a translated block, followed at translation time.
//!
//! A block (of either variant) may issue loads, stores and atomics of global and shared
//! memory and uniform loads, and wait with `waitcnt`. The queue state the interpreter
//! would build is split in three (docs/architecture.md, "Memory in translated code"):
//! - operations pending when translated code was entered: the code enters only while no
//!   write-back is pending (no hazard is watched), so all of them write nothing and only
//!   their number per counter matters to it ([`super::Direct`]'s `pre`);
//! - operations that write nothing, left pending by earlier blocks: their PCs and issue
//!   order go to their counter's ring ([`super::Direct`]'s `rings`: the store counter's,
//!   and the shared counter's), so chained blocks may leave them pending;
//! - the block's own operations: its loads, whose rows wait in [`super::Direct`]'s `rows`,
//!   and its shared stores and atomics (on the shared loads' counter), known here,
//!   statically, so a `waitcnt` copies exactly the rows the interpreter would retire, and
//!   an instruction that would raise a hazard report ends the block before it. A block
//!   entered with loads pending (carried past a branch or an EXEC write) starts with them.
//!
//! The retirement order makes the split exact: a counter's queue is always its pending
//! operations from before, then its ring's, then the block's own, oldest first. So a
//! `waitcnt` with threshold `t` retires `max(0, k - t)` of a counter's `k` operations of
//! the block whatever was pending before, and its dynamic part only counts down.

use crate::memory::direct::{PENDING_ROWS, RINGS};
use crate::program::RegUse;
use crate::state::queue::NUM_COUNTERS;
use warpkit_isa::{Latency, Op, COUNTERS};

/// An operation of the block still pending: a load, whose data is row `row` of
/// [`super::Direct`], or a shared-memory store (which writes nothing, but shares its
/// counter with the shared loads, so it takes its place in their order; its row holds only
/// its issue number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PendingLoad {
    pub row: u8,
    pub rd: u8,
    pub counter: u8,
    /// 0 for a vector load (the row is `v[rd]`'s); else a uniform load of this many
    /// registers from `u[rd]` (the row's first words).
    pub uniform: u8,
    pub pc: u32,
    /// A store: nothing to write back.
    pub store: bool,
    /// Issued by a partial-EXEC block: a vector load writes the lanes of the block's EXEC
    /// only (translated code never changes EXEC with a load pending).
    pub masked: bool,
}

impl PendingLoad {
    /// A vector load into `v[rd]` (`uniform` 0) or a uniform load into `uniform`
    /// registers from `u[rd]`, on counter `c`, from a block of the `masked` variant.
    pub(crate) fn load(pc: u32, rd: u8, uniform: u8, c: usize, masked: bool) -> PendingLoad {
        PendingLoad {
            row: 0,
            rd,
            counter: c as u8,
            uniform,
            pc,
            store: false,
            masked,
        }
    }

    /// A store on counter `c` that the block keeps in its pending order.
    pub(crate) fn store(pc: u32, c: usize, masked: bool) -> PendingLoad {
        PendingLoad {
            store: true,
            ..PendingLoad::load(pc, 0, 0, c, masked)
        }
    }

    /// Whether it writes vector register rows when it retires.
    pub(crate) fn writes_rows(&self) -> bool {
        !self.store && self.uniform == 0
    }

    /// Whether its words may be read only when it retires: a full-EXEC vector load (a
    /// word run's are; `Direct::row_src` says where they are).
    pub(crate) fn deferred(&self) -> bool {
        self.writes_rows() && !self.masked
    }
}

/// What issuing an operation did: its entry, and the block's own oldest operation of the
/// counter, if the counter's in-flight limit retired it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Issued {
    pub op: PendingLoad,
    pub retired: Option<PendingLoad>,
}

/// The block's pending operations, oldest first.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pending {
    pub loads: Vec<PendingLoad>,
}

/// The counter of an asynchronous instruction (from the ISA tables).
pub(crate) fn counter_of(op: Op) -> usize {
    match op.def().latency {
        Latency::Async(c) => usize::from(c),
        _ => unreachable!("{op:?} is asynchronous"),
    }
}

/// The counter of `uload.b32` (`sm`).
pub(crate) fn uniform_counter() -> usize {
    counter_of(Op::UloadB32)
}

/// The counter of `gload.b32` (`vm`).
#[cfg(test)]
pub(crate) fn load_counter() -> usize {
    counter_of(Op::GloadB32)
}

/// The counter of `gstore.b32` (`vst`): translated stores are counted in
/// [`super::Direct`]'s ring, loads never use it.
pub(crate) fn store_counter() -> usize {
    counter_of(Op::GstoreB32)
}

/// The counter of `dsstore.b32` (`ls`), which the shared loads share.
pub(crate) fn shared_counter() -> usize {
    counter_of(Op::DsstoreB32)
}

/// The counter of each ring of [`super::Direct`], which keeps that counter's operations
/// that write nothing across blocks: the store counter's and the shared counter's.
pub(crate) fn ring_counters() -> [usize; RINGS] {
    [store_counter(), shared_counter()]
}

/// The ring that keeps counter `c`'s operations, if one does.
pub(crate) fn ring_of(c: usize) -> Option<usize> {
    ring_counters().iter().position(|&r| r == c)
}

/// The in-flight limit of counter `c` (errata v0.1.2).
pub(crate) fn limit(c: usize) -> u32 {
    COUNTERS
        .get(c)
        .map_or(u32::MAX, |c| u32::from(c.max_outstanding))
}

impl Pending {
    /// The vector registers a pending load will write.
    fn vmask(&self) -> u128 {
        self.loads
            .iter()
            .filter(|l| l.writes_rows())
            .fold(0, |m, l| m | 1u128 << l.rd)
    }

    /// The uniform registers a pending load will write.
    fn umask(&self) -> u64 {
        self.loads
            .iter()
            .filter(|l| !l.store && l.uniform > 0)
            .fold(0, |m, l| {
                m | (u64::MAX >> (64 - u32::from(l.uniform))) << l.rd
            })
    }

    /// Whether an instruction using `uses` would be reported as a hazard (RAW or WAW on a
    /// pending row or uniform load): the interpreter must run it.
    pub(crate) fn hazard(&self, uses: &RegUse) -> bool {
        (uses.vread | uses.vwrite) & self.vmask() != 0
            || (uses.uread | uses.uwrite) & self.umask() != 0
    }

    /// Whether every pending operation is a store: then the block may end in a branch
    /// after moving them to their ring.
    pub(crate) fn only_stores(&self) -> bool {
        self.loads.iter().all(|l| l.store)
    }

    /// Pending loads of counter `c`.
    pub(crate) fn count(&self, c: usize) -> u32 {
        self.loads
            .iter()
            .filter(|l| usize::from(l.counter) == c)
            .count() as u32
    }

    /// Queue `op` (from [`PendingLoad::load`] or [`PendingLoad::store`]) in a free row;
    /// `None` if every row is taken. A counter holding as many of the block's operations
    /// as its in-flight limit first retires its oldest (errata v0.1.2: then nothing from
    /// before the block is pending on it, as the count never exceeds the limit); below
    /// that, the limit may retire an operation from before the block, which translated
    /// code counts down at run time.
    pub(crate) fn issue(&mut self, mut op: PendingLoad) -> Option<Issued> {
        let c = usize::from(op.counter);
        let retired = if self.count(c) >= limit(c) {
            let oldest = self
                .loads
                .iter()
                .position(|l| usize::from(l.counter) == c)?;
            Some(self.loads.remove(oldest))
        } else {
            None
        };
        // A retirement frees a row, so only an issue that retired nothing can find none
        // (and then it changed nothing).
        let row = (0..PENDING_ROWS as u8).find(|r| self.loads.iter().all(|l| l.row != *r))?;
        op.row = row;
        self.loads.push(op);
        Some(Issued { op, retired })
    }

    /// `waitcnt` with thresholds `t`: the loads it retires, oldest first.
    pub(crate) fn wait(&mut self, t: &[u32; NUM_COUNTERS]) -> Vec<PendingLoad> {
        let mut retired = Vec::new();
        for (c, &t) in t.iter().enumerate() {
            let k = self.count(c);
            let mut n = k.saturating_sub(t);
            self.loads.retain(|l| {
                if usize::from(l.counter) == c && n > 0 {
                    n -= 1;
                    retired.push(*l);
                    false
                } else {
                    true
                }
            });
        }
        retired
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_retires_the_oldest_loads_beyond_its_threshold() {
        let mut p = Pending::default();
        for (k, rd) in [4u8, 5, 6].into_iter().enumerate() {
            let load = PendingLoad::load(4 * k as u32, rd, 0, 0, false);
            assert_eq!(p.issue(load).map(|i| i.op.row), Some(k as u8));
        }
        let hazard = RegUse {
            vread: 1 << 5,
            ..RegUse::default()
        };
        assert!(p.hazard(&hazard));
        let mut t = [u32::MAX; NUM_COUNTERS];
        t[0] = 1;
        let retired: Vec<u8> = p.wait(&t).iter().map(|l| l.rd).collect();
        assert_eq!(retired, [4, 5]);
        assert!(!p.hazard(&hazard));
        // Row 0 is free again.
        let load = PendingLoad::load(12, 7, 0, 0, false);
        assert_eq!(p.issue(load).map(|i| i.op.row), Some(0));
    }

    #[test]
    fn a_pending_uniform_load_guards_exactly_its_registers() {
        let mut p = Pending::default();
        assert!(p.issue(PendingLoad::load(0, 24, 2, 3, false)).is_some());
        let reads = |u: u64| RegUse {
            uread: 1 << u,
            ..RegUse::default()
        };
        assert!(p.hazard(&reads(24)) && p.hazard(&reads(25)));
        assert!(!p.hazard(&reads(23)) && !p.hazard(&reads(26)));
        // Vector register 24 is not uniform register 24.
        let vector = RegUse {
            vread: 1 << 24,
            ..RegUse::default()
        };
        assert!(!p.hazard(&vector));
        let mut t = [u32::MAX; NUM_COUNTERS];
        t[3] = 0;
        assert_eq!(p.wait(&t).len(), 1);
        assert!(!p.hazard(&reads(25)));
    }
}
