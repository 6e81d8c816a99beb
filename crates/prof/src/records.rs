//! What the profiler collects: raw counts per instruction and per workgroup, as the
//! commit hook sees them. The profile and the timeline are both shaped from these, so they
//! live below the collector and the writers alike.

use warpkit_sim::{LANES, NUM_COUNTERS};

/// Counts of one instruction (one 4-byte slot of the code).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Times a warp executed it (retired or trapped).
    pub executed: u64,
    pub retired: u64,
    /// Active lanes summed over its retired executions, for a vector instruction.
    pub lane_ops: u64,
    /// RAW/WAW hazards reported at it.
    pub hazards: u64,
    /// Branches: retired executions that went somewhere other than the next instruction.
    pub taken: u64,
    /// Branches: executions with EXEC neither empty nor the warp's launch mask.
    pub diverged: u64,
}

/// One stint of one warp on the workgroup's clock: from its first instruction after being
/// scheduled (the start or a barrier release) to the instruction that stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    pub warp: u32,
    /// Barrier interval: 0 before the first barrier, k after the k-th.
    pub interval: u32,
    pub start: u64,
    pub end: u64,
    /// How the stint ended: `barrier`, `ended`, `trapped`, `step limit`.
    pub how: &'static str,
}

/// What one workgroup did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorkgroupRecord {
    pub flat: u64,
    pub id: [u32; 3],
    pub warps: u32,
    /// Instructions executed by its warps (retired or trapped).
    pub instructions: u64,
    pub lane_ops: u64,
    /// The most barriers one of its warps reached.
    pub barriers: u32,
    /// `barrier` instructions executed, summed over its warps.
    pub barrier_instructions: u64,
    /// The host thread that ran it, and its start order among all workgroups.
    pub thread: usize,
    pub seq: u64,
    /// Kept only for a timeline.
    pub spans: Vec<Span>,
}

/// Everything one profiler has counted; the counts of several host-thread tasks merge into
/// one.
#[derive(Debug, Clone)]
pub(crate) struct Collected {
    pub insts: Vec<Counts>,
    /// Peak in-flight operations of each counter, over every warp.
    pub peaks: [u32; NUM_COUNTERS],
    /// Retired vector instruction executions by active lanes (0..=32).
    pub lanes: [u64; LANES + 1],
    pub workgroups: Vec<WorkgroupRecord>,
}

impl Collected {
    /// Nothing counted yet, for a code of `slots` 4-byte instruction slots.
    pub fn new(slots: usize) -> Collected {
        Collected {
            insts: vec![Counts::default(); slots],
            peaks: [0; NUM_COUNTERS],
            lanes: [0; LANES + 1],
            workgroups: Vec::new(),
        }
    }

    /// Add `other`'s counts to these (order does not matter: every count is a sum, a
    /// maximum, or a record sorted later).
    pub fn merge(&mut self, other: Collected) {
        for (a, b) in self.insts.iter_mut().zip(&other.insts) {
            a.executed += b.executed;
            a.retired += b.retired;
            a.lane_ops += b.lane_ops;
            a.hazards += b.hazards;
            a.taken += b.taken;
            a.diverged += b.diverged;
        }
        for (a, b) in self.peaks.iter_mut().zip(other.peaks) {
            *a = (*a).max(b);
        }
        for (a, b) in self.lanes.iter_mut().zip(other.lanes) {
            *a += b;
        }
        self.workgroups.extend(other.workgroups);
    }
}
