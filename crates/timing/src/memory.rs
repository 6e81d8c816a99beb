//! The memory hierarchy of the model: an L1 per compute unit, a shared L2, one DRAM
//! channel, their MSHRs, and shared memory's bank passes. Every function takes the cycle
//! at which a line's request reaches the hierarchy and returns the cycle its data is
//! ready; requests are processed in the order the replay issues them (cycle, then compute
//! unit, then scheduler order), each instruction's lines one after another.
//!
//! Rules beyond the model's description (listed in `crate::engine` too):
//! - A load line already in flight on its compute unit (an L1 MSHR holds it) merges with
//!   it: ready when it is, counted as an L1 miss, no new MSHR.
//! - When every L1 MSHR is held, a missing line waits for the earliest to be released (as
//!   for the L2; of those released in the same cycle, the first allocated); the replay issues a load only when the free MSHRs cover its missing
//!   lines or all of them are free, so this happens only for an instruction with more
//!   missing lines than the L1 has MSHRs.
//! - An L2 lookup of a line an earlier miss is still filling merges with that miss: ready
//!   at the later of its fill and `r + l2.hit_latency`, counted as an L2 hit, no DRAM
//!   traffic.
//! - A dirty L2 line evicted by a fill is written back: its bytes count as DRAM write
//!   traffic and it occupies the channel for `line_bytes / bytes_per_cycle` after the
//!   fill's transfer (nobody waits for it). Lines still dirty at the end of the kernel
//!   count as write traffic but take no time.
//! - Stores and atomics use no L1 MSHR; an L2 miss of theirs takes an L2 MSHR and the
//!   channel like a load's.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::machine::{self, Machine};
use crate::report::MemoryTiming;

/// A set-associative cache with LRU replacement, of line numbers (address / line size).
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    /// `sets - 1` (sets is a power of two).
    set_mask: u64,
    ways: usize,
    /// Per set, `ways` tags from most to least recently used; `EMPTY` where unused.
    tags: Vec<u64>,
    /// Per tag slot: the line is dirty (written since it was filled).
    dirty: Vec<bool>,
}

const EMPTY: u64 = u64::MAX;

impl Cache {
    /// An empty cache of the given geometry.
    pub(crate) fn new(c: &machine::Cache) -> Cache {
        let ways = c.ways.max(1) as usize;
        let sets = (c.size_bytes / (c.line_bytes.max(1) * c.ways.max(1))).max(1) as u64;
        let sets = if sets.is_power_of_two() {
            sets
        } else {
            sets.next_power_of_two() >> 1
        };
        Cache {
            set_mask: sets - 1,
            ways,
            tags: vec![EMPTY; sets as usize * ways],
            dirty: vec![false; sets as usize * ways],
        }
    }

    fn set(&self, line: u64) -> usize {
        (line & self.set_mask) as usize * self.ways
    }

    fn find(&self, line: u64) -> Option<usize> {
        let s = self.set(line);
        self.tags[s..s + self.ways]
            .iter()
            .position(|&t| t == line)
            .map(|i| s + i)
    }

    /// Whether `line` is present, without touching the LRU order.
    pub(crate) fn probe(&self, line: u64) -> bool {
        self.find(line).is_some()
    }

    /// Move the tag at `at` to the front of its set (most recently used).
    fn touch(&mut self, at: usize) {
        // Sets start at multiples of `ways`.
        let start = at - at % self.ways;
        let (tag, dirty) = (self.tags[at], self.dirty[at]);
        self.tags.copy_within(start..at, start + 1);
        self.dirty.copy_within(start..at, start + 1);
        self.tags[start] = tag;
        self.dirty[start] = dirty;
    }

    /// Look `line` up: on a hit it becomes the most recently used (and dirty if `write`).
    pub(crate) fn access(&mut self, line: u64, write: bool) -> bool {
        match self.find(line) {
            Some(at) => {
                self.dirty[at] |= write;
                self.touch(at);
                true
            }
            None => false,
        }
    }

    /// Allocate `line` (absent) as the most recently used, dirty if `dirty`; returns the
    /// evicted line and whether it was dirty.
    pub(crate) fn insert(&mut self, line: u64, dirty: bool) -> Option<(u64, bool)> {
        let s = self.set(line);
        let last = s + self.ways - 1;
        let evicted = (self.tags[last] != EMPTY).then(|| (self.tags[last], self.dirty[last]));
        self.tags.copy_within(s..last, s + 1);
        self.dirty.copy_within(s..last, s + 1);
        self.tags[s] = line;
        self.dirty[s] = dirty;
        evicted
    }

    /// Drop `line` if present.
    pub(crate) fn invalidate(&mut self, line: u64) {
        if let Some(at) = self.find(line) {
            let s = self.set(line);
            let last = s + self.ways - 1;
            self.tags.copy_within(at + 1..=last, at);
            self.dirty.copy_within(at + 1..=last, at);
            self.tags[last] = EMPTY;
            self.dirty[last] = false;
        }
    }

    /// Dirty lines held.
    pub(crate) fn dirty_lines(&self) -> u64 {
        self.tags
            .iter()
            .zip(&self.dirty)
            .filter(|(&t, &d)| t != EMPTY && d)
            .count() as u64
    }
}

/// A multiset of lines that may answer "maybe" for a line not in it, never "no" for one
/// in it: a count of the lines per hash, so that lines come and go one at a time.
#[derive(Debug, Clone)]
struct Filter(Box<[u32; Filter::BUCKETS]>);

impl Filter {
    const BUCKETS: usize = 512;

    fn empty() -> Filter {
        Filter(Box::new([0; Filter::BUCKETS]))
    }

    fn bucket(line: u64) -> usize {
        (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55) as usize
    }

    fn add(&mut self, line: u64) {
        self.0[Filter::bucket(line)] += 1;
    }

    /// Take out one `line` that was added.
    fn remove(&mut self, line: u64) {
        self.0[Filter::bucket(line)] -= 1;
    }

    fn may_hold(&self, line: u64) -> bool {
        self.0[Filter::bucket(line)] != 0
    }
}

/// What a global memory write does to a line (loads go through [`MemorySystem::load`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// A store: write-through, no L1 allocate, write-allocate in the L2.
    Store,
    /// An atomic: performed at the L2, the L1 copy invalidated.
    Atomic,
}

/// The whole chip's memory hierarchy.
#[derive(Debug)]
pub(crate) struct MemorySystem {
    line_bytes: u64,
    l1: Vec<Cache>,
    /// Per compute unit: lines in flight (L1 MSHRs) as (ready, line), ascending by ready
    /// time (equal times in allocation order), so that the MSHRs held at a cycle and the
    /// order of their release need no search or sort.
    l1_flight: Vec<VecDeque<(u64, u64)>>,
    /// Per compute unit: a filter of the lines in `l1_flight` (a count per hash), so that
    /// most lines not in flight are known to be so without searching the list.
    l1_filter: Vec<Filter>,
    l1_mshrs: usize,
    l1_hit: u64,
    l2: Cache,
    /// Lines the L2 is filling and when each is ready (entries past their time are stale).
    /// Looked up on every L2 access: a fast hash of the line number (the order of its
    /// entries is never used).
    l2_flight: FxHashMap<u64, u64>,
    /// Ready times of the L2 misses in flight (L2 MSHRs), ascending: misses complete in
    /// the order they are made, the channel serving them in turn.
    l2_mshr: VecDeque<u64>,
    l2_mshrs: usize,
    l2_hit: u64,
    dram_latency: u64,
    /// When the channel is free, in (fractional) cycles.
    channel_free: f64,
    /// Cycles the channel needs per line.
    line_cycles: f64,
    /// Counts for the report.
    pub stats: MemoryTiming,
}

impl MemorySystem {
    /// The hierarchy of `machine`, every cache empty.
    pub(crate) fn new(machine: &Machine) -> MemorySystem {
        let cus = machine.compute_units as usize;
        MemorySystem {
            line_bytes: u64::from(machine.l1.line_bytes),
            l1: vec![Cache::new(&machine.l1); cus],
            l1_flight: vec![VecDeque::new(); cus],
            l1_filter: vec![Filter::empty(); cus],
            l1_mshrs: machine.l1.mshrs.max(1) as usize,
            l1_hit: u64::from(machine.l1.hit_latency),
            l2: Cache::new(&machine.l2),
            l2_flight: FxHashMap::default(),
            l2_mshr: VecDeque::new(),
            l2_mshrs: machine.l2.mshrs.max(1) as usize,
            l2_hit: u64::from(machine.l2.hit_latency),
            dram_latency: u64::from(machine.dram.latency),
            channel_free: 0.0,
            line_cycles: f64::from(machine.l1.line_bytes) / machine.dram.bytes_per_cycle,
            stats: MemoryTiming::default(),
        }
    }

    /// Where the L1 MSHRs of `cu` held at cycle `t` start in its (ascending) list.
    fn l1_released(&self, cu: usize, t: u64) -> usize {
        self.l1_flight[cu].partition_point(|&(r, _)| r <= t)
    }

    /// Whether a load of `lines` can issue on `cu` at `t`: the free L1 MSHRs cover its
    /// lines that miss and are not in flight (or every MSHR is free). Otherwise the
    /// earliest cycle at which it can, if nothing else is issued on `cu` meanwhile: the
    /// L1 and its MSHRs change only by the CU's own issues and as lines in flight are
    /// released, so the replay need not ask again before then.
    pub(crate) fn load_fits(&mut self, cu: usize, lines: &[u64], t: u64) -> Result<(), u64> {
        let released = self.l1_released(cu, t);
        let flight = &self.l1_flight[cu];
        let held = flight.len() - released;
        let free = self.l1_mshrs - held.min(self.l1_mshrs);
        if lines.len() <= free || held == 0 {
            return Ok(());
        }
        let mut missing = 0;
        // Lines of the load in flight but no longer in the L1: each becomes missing when
        // its MSHR is released.
        let mut pending = false;
        for &line in lines {
            // A line in flight was allocated in the L1 when it missed: the L1 (a few ways)
            // answers for most lines before the list of lines in flight is searched.
            if self.l1[cu].probe(line) {
                continue;
            }
            if self.l1_filter[cu].may_hold(line)
                && flight.range(released..).any(|&(_, l)| l == line)
            {
                pending = true;
                continue;
            }
            missing += 1;
        }
        if missing <= free {
            return Ok(());
        }
        let at = if pending {
            // Release the MSHRs in time order (those released together at once) until
            // the load fits.
            let mut held = held;
            let mut at = t + 1;
            let mut i = released;
            while i < flight.len() {
                at = flight[i].0;
                while i < flight.len() && flight[i].0 == at {
                    let line = flight[i].1;
                    held -= 1;
                    if !self.l1[cu].probe(line) {
                        missing += lines.iter().filter(|&&l| l == line).count();
                    }
                    i += 1;
                }
                if held == 0 || missing <= self.l1_mshrs - held.min(self.l1_mshrs) {
                    break;
                }
            }
            at
        } else {
            // The missing lines stay as they are: the load fits once enough MSHRs are
            // released for them (or all, if they are more than the L1 has).
            let target = self.l1_mshrs.saturating_sub(missing);
            let k = held - target - 1;
            flight[released + k].0
        };
        Err(at)
    }

    /// A load of `line` by compute unit `cu` reaching the L1 at `r`: when it is ready.
    pub(crate) fn load(&mut self, cu: usize, line: u64, r: u64) -> u64 {
        let flight = &mut self.l1_flight[cu];
        if self.l1_filter[cu].may_hold(line) {
            if let Some(&(ready, _)) = flight.iter().find(|&&(ready, l)| l == line && ready > r) {
                self.stats.l1_misses += 1;
                return ready;
            }
        }
        if self.l1[cu].access(line, false) {
            self.stats.l1_hits += 1;
            return r + self.l1_hit;
        }
        self.stats.l1_misses += 1;
        let filter = &mut self.l1_filter[cu];
        while let Some(&(ready, l)) = flight.front() {
            if ready > r {
                break;
            }
            flight.pop_front();
            filter.remove(l);
        }
        let mut r = r;
        if flight.len() >= self.l1_mshrs {
            // Every MSHR held: the earliest to be released (the first allocated of those
            // released together) takes this line.
            if let Some((first, l)) = flight.pop_front() {
                filter.remove(l);
                r = r.max(first);
            }
        }
        let ready = self.l2_access(line, r, false);
        self.l1[cu].insert(line, false);
        let flight = &mut self.l1_flight[cu];
        let at = flight.partition_point(|&(r, _)| r <= ready);
        flight.insert(at, (ready, line));
        self.l1_filter[cu].add(line);
        ready
    }

    /// A store or atomic of `line` by `cu` reaching the memory system at `r`: when it
    /// completes (at the L2).
    pub(crate) fn write(&mut self, cu: usize, line: u64, r: u64, access: Access) -> u64 {
        if access == Access::Atomic {
            self.l1[cu].invalidate(line);
        }
        // A store updates an L1 copy in place: nothing to model.
        self.l2_access(line, r, true)
    }

    /// The L2 lookup of `line` at `r` (a write marks it dirty): when the data is ready.
    fn l2_access(&mut self, line: u64, r: u64, write: bool) -> u64 {
        if let Some(&fill) = self.l2_flight.get(&line) {
            if fill > r {
                self.stats.l2_hits += 1;
                if write {
                    self.l2.access(line, true);
                }
                return fill.max(r + self.l2_hit);
            }
        }
        if self.l2.access(line, write) {
            self.stats.l2_hits += 1;
            return r + self.l2_hit;
        }
        self.stats.l2_misses += 1;
        // An L2 MSHR: those released by `r` are free; if every one is still held, the
        // earliest to be released takes this miss.
        while self.l2_mshr.front().is_some_and(|&x| x <= r) {
            self.l2_mshr.pop_front();
        }
        let mut r = r;
        if self.l2_mshr.len() >= self.l2_mshrs {
            if let Some(x) = self.l2_mshr.pop_front() {
                r = r.max(x);
            }
        }
        let start = (r as f64).max(self.channel_free);
        self.channel_free = start + self.line_cycles;
        let ready = r + self.dram_latency + (start - r as f64).ceil() as u64;
        self.stats.dram_read_bytes += self.line_bytes;
        if let Some((_, true)) = self.l2.insert(line, write) {
            self.stats.dram_write_bytes += self.line_bytes;
            self.channel_free += self.line_cycles;
        }
        // The channel serves misses in turn (`start` never goes back), so their ready
        // times never decrease: the list stays in release order.
        debug_assert!(self.l2_mshr.back().is_none_or(|&x| x <= ready));
        self.l2_mshr.push_back(ready);
        if self.l2_flight.len() >= 4 * self.l2_mshrs {
            self.l2_flight.retain(|_, &mut fill| fill > r);
        }
        self.l2_flight.insert(line, ready);
        ready
    }

    /// A shared-memory access of `passes` passes (bank conflicts) counted.
    pub(crate) fn shared(&mut self, passes: u32) {
        self.stats.shared_accesses += 1;
        self.stats.shared_passes += u64::from(passes);
    }

    /// The counts, with the lines still dirty at the end counted as written back.
    pub(crate) fn finish(mut self) -> MemoryTiming {
        self.stats.dram_write_bytes += self.l2.dirty_lines() * self.line_bytes;
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine() -> Machine {
        Machine::default()
    }

    #[test]
    fn lru_keeps_the_most_recent_lines_of_a_set() {
        // 2 sets of 2 ways.
        let mut c = Cache::new(&machine::Cache {
            size_bytes: 512,
            line_bytes: 128,
            ways: 2,
            hit_latency: 1,
            mshrs: 1,
        });
        assert!(!c.access(0, false));
        assert_eq!(c.insert(0, false), None);
        assert_eq!(c.insert(2, true), None);
        // Line 0 becomes the most recent; 4 then evicts 2 (dirty).
        assert!(c.access(0, false));
        assert_eq!(c.insert(4, false), Some((2, true)));
        assert!(c.probe(0) && c.probe(4) && !c.probe(2));
        // The other set is untouched.
        assert_eq!(c.insert(1, false), None);
        c.invalidate(0);
        assert!(!c.probe(0) && c.probe(4));
        assert_eq!(c.dirty_lines(), 0);
        c.access(4, true);
        assert_eq!(c.dirty_lines(), 1);
    }

    #[test]
    fn latencies_of_each_level() {
        let m = machine();
        let mut mem = MemorySystem::new(&m);
        // Cold: DRAM on an idle channel.
        assert_eq!(mem.load(0, 10, 100), 100 + 400);
        // In flight on this CU: merged.
        assert_eq!(mem.load(0, 10, 101), 500);
        // Filled: an L1 hit.
        assert_eq!(mem.load(0, 10, 600), 600 + 28);
        // Another CU: misses its L1, hits the L2.
        assert_eq!(mem.load(1, 10, 600), 600 + 120);
        assert_eq!(mem.stats.l1_hits, 1);
        assert_eq!(mem.stats.l1_misses, 3);
        assert_eq!(mem.stats.l2_hits, 1);
        assert_eq!(mem.stats.l2_misses, 1);
        assert_eq!(mem.stats.dram_read_bytes, 128);
    }

    #[test]
    fn the_channel_serves_lines_at_its_bandwidth() {
        let m = machine();
        let mut mem = MemorySystem::new(&m);
        // 128-byte lines at 32 bytes per cycle: one line every 4 cycles.
        let ready: Vec<u64> = (0..8).map(|k| mem.load(0, 100 + k, 0)).collect();
        assert_eq!(ready, vec![400, 404, 408, 412, 416, 420, 424, 428]);
    }

    #[test]
    fn fractional_bandwidth_is_exact_over_a_stream() {
        let mut m = machine();
        m.dram.bytes_per_cycle = 48.0;
        m.l2.mshrs = 1024;
        m.l1.mshrs = 1024;
        let mut mem = MemorySystem::new(&m);
        let last = (0..300).map(|k| mem.load(0, k, 0)).last().unwrap();
        // 299 lines after the first at 128/48 cycles each.
        assert_eq!(last, 400 + (299.0f64 * 128.0 / 48.0).ceil() as u64);
    }

    #[test]
    fn l2_mshrs_limit_misses_in_flight() {
        let mut m = machine();
        m.l2.mshrs = 2;
        m.dram.bytes_per_cycle = 1e9;
        let mut mem = MemorySystem::new(&m);
        assert_eq!(mem.load(0, 1, 0), 400);
        // The channel is (nearly) free: a fraction of a cycle rounds up.
        assert_eq!(mem.load(0, 2, 0), 401);
        // Both MSHRs held: the third waits for the first.
        assert_eq!(mem.load(0, 3, 0), 800);
    }

    #[test]
    fn the_bookkeeping_of_lines_in_flight_follows_every_load() {
        // Few MSHRs, lines that repeat and collide, requests out of time order: after each
        // load the filter counts exactly the L1's lines in flight (so it never answers
        // "no" for one of them) and the L2's MSHRs are in release order.
        let mut m = machine();
        m.l1.mshrs = 3;
        m.l2.mshrs = 64;
        let mut mem = MemorySystem::new(&m);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for k in 0..2000u64 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let (cu, line) = ((seed % 2) as usize, (seed >> 8) % 400);
            let r = k * 40 + (seed >> 40) % 100;
            mem.load(cu, line, r);
            for cu in 0..2 {
                let flight = &mem.l1_flight[cu];
                let filter = &mem.l1_filter[cu];
                assert!(flight.iter().all(|&(_, l)| filter.may_hold(l)));
                assert_eq!(filter.0.iter().sum::<u32>() as usize, flight.len());
            }
            assert!(mem
                .l2_mshr
                .iter()
                .zip(mem.l2_mshr.iter().skip(1))
                .all(|(a, b)| a <= b));
        }
    }

    #[test]
    fn l1_mshrs_gate_loads() {
        let mut m = machine();
        m.l1.mshrs = 2;
        let mut mem = MemorySystem::new(&m);
        mem.load(0, 1, 0);
        mem.load(0, 2, 0);
        // Both held until 400 (and 404): a new line does not fit, a line in flight does.
        assert_eq!(mem.load_fits(0, &[3], 10), Err(400));
        assert_eq!(mem.load_fits(0, &[1], 10), Ok(()));
        assert_eq!(mem.load_fits(0, &[3], 400), Ok(()));
    }

    #[test]
    fn stores_write_allocate_in_the_l2_and_write_back_dirty_lines() {
        let mut m = machine();
        // One L2 set of one way: every new line evicts the last.
        m.l2.size_bytes = 128;
        m.l2.ways = 1;
        m.l1.size_bytes = 128;
        m.l1.ways = 1;
        let mut mem = MemorySystem::new(&m);
        assert_eq!(mem.write(0, 5, 0, Access::Store), 400);
        assert_eq!(mem.write(0, 5, 1000, Access::Store), 1120);
        // A load of another line evicts the dirty one.
        mem.load(0, 6, 2000);
        assert_eq!(mem.stats.dram_write_bytes, 128);
        assert_eq!(mem.stats.dram_read_bytes, 256);
        // Store again and finish: the dirty line is written back at the end.
        mem.write(0, 6, 3000, Access::Atomic);
        let s = mem.finish();
        assert_eq!(s.dram_write_bytes, 256);
    }
}
