//! What translated code keeps of the asynchronous operations and memory it touches beside
//! the register files (its layout is known to the code, `crate::engine::jit`), and the
//! view of global memory an environment lends it ([`DirectMemory`]). Plain data: it sits
//! with memory, below the environments that own it and the engine that uses it.

use crate::memory::{GlobalMemory, ScratchMemory, SharedMemory, SCRATCH_BASE};
use crate::state::LANES;

/// Loads one block may keep pending at once.
pub(crate) const PENDING_ROWS: usize = 16;
/// Region hints: the first half for loads, the second for stores (filled only with
/// writable regions), one per translated load or store (by its number among the
/// program's loads or stores, modulo half of this), so a store never uses a read-only
/// region a load's hint holds.
pub(crate) const HINTS: usize = 64;
/// Stores translated code may leave pending, per ring: at least the in-flight limit of the
/// ring's counter.
pub(crate) const RING: usize = 32;
/// The rings: the store counter's (global stores and atomics), then the shared counter's
/// (shared stores and atomics a block left pending at its end).
pub(crate) const RINGS: usize = 2;

/// Operations issued by translated code that write nothing and are still pending, oldest
/// first from `head`: (pc, issue number).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ring {
    pub(crate) ops: [[u32; 2]; RING],
    pub(crate) head: u32,
    pub(crate) len: u32,
}

impl Ring {
    /// Its operations, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = [u32; 2]> + '_ {
        (0..self.len).map(|k| self.ops[(self.head + k) as usize % RING])
    }
}

/// The region a memory instruction last hit: bytes `lo..end` of global memory are the
/// host words from `host`. Empty (`lo > end`) until the first miss fills it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hint {
    pub(crate) lo: u64,
    pub(crate) end: u64,
    pub(crate) host: u64,
    /// A row's 128 bytes from `a` are inside exactly when `a - lo < row_limit` (wrapping
    /// subtraction): `end - lo - 127`, or 0 when no row fits (so one compare checks a
    /// word run's whole row).
    pub(crate) row_limit: u64,
}

impl Hint {
    /// No region: every access misses.
    pub(crate) const EMPTY: Hint = Hint {
        lo: u64::MAX,
        end: 0,
        host: 0,
        row_limit: 0,
    };

    /// The region of `len` bytes at `lo`, whose host words start at `host`.
    fn new(lo: u64, len: u64, host: u64) -> Hint {
        Hint {
            lo,
            end: lo + len,
            host,
            row_limit: len.saturating_sub(4 * LANES as u64 - 1),
        }
    }
}

/// What translated code keeps of the asynchronous operations and memory it touches,
/// besides the register files; one per [`crate::MemEnv`], or per launch task across its
/// workgroups (its layout is known to the code). `pending.rs` explains the split of the
/// queue.
#[repr(C, align(64))]
#[derive(Debug)]
pub(crate) struct Direct {
    /// The data of the block's pending loads.
    pub(crate) rows: [[u32; LANES]; PENDING_ROWS],
    pub(crate) hints: [Hint; HINTS],
    /// Operations issued by translated code that write nothing, still pending, per ring.
    pub(crate) rings: [Ring; RINGS],
    /// The issue number of each pending load's row.
    pub(crate) row_seq: [u32; PENDING_ROWS],
    /// EXEC when each pending load of a partial-EXEC block issued: the lanes it writes
    /// (EXEC may change before it retires, in a later block).
    pub(crate) row_exec: [u32; PENDING_ROWS],
    /// Per counter, the operations pending at entry that are still pending (all of them
    /// write nothing).
    pub(crate) pre: [u32; 8],
    /// The next issue number.
    pub(crate) seq: u32,
    /// The exit record: which loads were pending at the exit taken (0: none).
    pub(crate) record: u32,
    /// A hint that missed: its index + 1, with `MISS_WRITE` for a store (0: none).
    pub(crate) miss: u32,
    /// Translated code's own: non-zero if the last word-run check of the block running
    /// found its address row not a word run (a later access through the same row, not
    /// written since, reads the answer here instead of checking again).
    pub(crate) not_run: u32,
    /// The lowest address of the access that missed.
    pub(crate) miss_lo: u64,
    /// The host address of the workgroup's shared memory and its size in bytes (0: none,
    /// and every shared access leaves translated code), set at each entry.
    pub(crate) shared_host: u64,
    pub(crate) shared_len: u64,
    /// Where the words of each pending full-EXEC load are: a word run's host address
    /// (they are read when the load retires, or before the block writes memory or
    /// leaves), or its row's, where a gather read them at issue.
    pub(crate) row_src: [u64; PENDING_ROWS],
    /// Translated code's own: the lane masks of EXEC, one quarter each, set aside by a run
    /// of the masked variant with AVX2 while it keeps rows in their registers.
    pub(crate) lane_masks: [[u32; 8]; 4],
}

/// In [`Direct::miss`]: the access that missed is a store.
pub(crate) const MISS_WRITE: u32 = 1 << 16;
/// In [`Direct::miss`], from this bit up: the bytes the access reads (0: a row's 128).
pub(crate) const MISS_BYTES_SHIFT: u32 = 20;

impl Direct {
    pub(crate) fn new() -> Direct {
        Direct {
            rows: [[0; LANES]; PENDING_ROWS],
            hints: [Hint::EMPTY; HINTS],
            rings: [Ring {
                ops: [[0; 2]; RING],
                head: 0,
                len: 0,
            }; RINGS],
            row_seq: [0; PENDING_ROWS],
            row_exec: [0; PENDING_ROWS],
            pre: [0; 8],
            seq: 0,
            record: 0,
            miss: 0,
            not_run: 0,
            miss_lo: 0,
            shared_host: 0,
            shared_len: 0,
            row_src: [0; PENDING_ROWS],
            lane_masks: [[0; 8]; 4],
        }
    }

    /// Fill the hint that missed from the region holding the access, if one does (else the
    /// interpreter raises the fault, or takes its general path, and the hint stays): a
    /// region of global memory, or a warp's region of `scratch`.
    pub(crate) fn refill(&mut self, global: &GlobalMemory, scratch: &ScratchMemory) {
        let index = (self.miss & 0xffff) as usize;
        let write = self.miss & MISS_WRITE != 0;
        let bytes = match self.miss >> MISS_BYTES_SHIFT {
            0 => 4 * LANES as u32,
            n => n,
        };
        self.miss = 0;
        let Some(hint) = index.checked_sub(1).and_then(|i| self.hints.get_mut(i)) else {
            return;
        };
        if let Some((base, len, host)) = global
            .region_holding(self.miss_lo, bytes, write)
            .or_else(|| scratch.region_holding(self.miss_lo, bytes))
        {
            *hint = Hint::new(base, len, host as u64);
        }
    }
}

impl Direct {
    /// Empty every hint that names scratch memory, which does not outlive its workgroup.
    pub(crate) fn forget_scratch(&mut self) {
        for h in &mut self.hints {
            if h.lo >= SCRATCH_BASE {
                *h = Hint::EMPTY;
            }
        }
    }
}

/// The memory a warp's environment lets translated code access directly: global memory,
/// the workgroup's scratch, and the state translated code keeps beside them. Obtained from
/// [`crate::env::Env::direct`]; environments without one run memory instructions
/// interpreted.
pub struct DirectMemory<'a> {
    pub(crate) state: &'a mut Direct,
    pub(crate) global: &'a GlobalMemory,
    pub(crate) scratch: &'a ScratchMemory,
    /// The workgroup's shared memory.
    pub(crate) shared: &'a mut SharedMemory,
}
