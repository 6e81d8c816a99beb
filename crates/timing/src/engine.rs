//! The replay: a single-threaded, deterministic event loop that runs the recorded warp
//! streams on the machine and counts cycles, stalls, unit busy time and cache behaviour.
//!
//! The model is the one `docs/timing.md` describes. Where that description leaves a
//! choice open, the replay does this:
//!
//! - **Cycle order.** Within a cycle: first the workgroups whose resources return at it
//!   are removed, then new workgroups are dispatched (in flat order, as many as fit), then
//!   each compute unit in index order issues, its schedulers in index order. Memory
//!   requests are processed at issue in that order (an instruction's lines one after
//!   another, line k at cycle t + k), so a later-issued request never overtakes an
//!   earlier one in the caches or on the DRAM channel.
//! - **Warp slots.** A dispatched workgroup's warp i takes the i-th lowest free slot of its
//!   compute unit.
//! - **Vector registers.** A warp holds the program's highest vector register read or
//!   written, plus one, rounded up to `cu.vreg_granule` (every register if the program has
//!   `movrel.d`, whose target is computed).
//! - **End of a workgroup.** Its resources return at `max(e + 1, C)`, where e is the cycle
//!   its last warp issued `endpgm` and C the latest completion of any of its warps'
//!   asynchronous operations. A warp whose stream ends without `endpgm` (a trap, the step
//!   limit) ends after its last instruction; a stream that ends at a `barrier` (a
//!   workgroup the functional run found deadlocked) ends there without arriving.
//! - **Kernel cycles.** The cycle at which the last workgroup's resources return.
//! - **Latency.** `[latency]` by mnemonic, else the class's `latency`, else the database's
//!   fixed latency. For `async:sfu` instructions a mnemonic's entry replaces
//!   `units.sfu.latency` too; memory instructions take their time from the hierarchy.
//! - **Unit busy time.** Global memory: `max(1, lines) x interval`; shared memory:
//!   `passes x interval`; every other instruction: `interval`. The first unit of the class
//!   free at the issue cycle takes the instruction.
//! - **Instructions without lines** (every lane inactive, or cache control) complete at
//!   `t + l1.hit_latency`; they use the memory unit for `interval` cycles.
//! - **In-flight limit of a counter** (`max_outstanding` of §2.6: vm 62, vst 30, tex 30,
//!   ls 14, sm 15, sfu 6). An asynchronous instruction issues only while fewer of its
//!   counter's operations are in flight; otherwise the warp waits, counted as that
//!   counter's `waitcnt_*` stall.
//! - **Out-of-order counter.** `sm` operations (uniform loads) complete at their own
//!   completion times, not in issue order.
//! - **L1 MSHRs.** A load issues when the free MSHRs cover its lines that miss and are not
//!   already in flight on the compute unit, or when no MSHR is held (so an instruction
//!   with more missing lines than MSHRs still issues; its extra lines wait for the
//!   earliest MSHR to be released, of those released in the same cycle the first
//!   allocated). Stores and atomics use no L1 MSHR.
//! - **L2 merges.** A request for a line the L2 is still filling waits for that fill (at
//!   least `l2.hit_latency`), counted as an L2 hit.
//! - **Write-backs.** A dirty L2 line evicted by a fill occupies the DRAM channel for one
//!   line's transfer after the fill's (counted in `dram_write_bytes`; nothing waits for
//!   it); lines still dirty at the end count as written but take no time.
//! - **Cache state.** Each launch starts with empty caches and an idle channel.
//! - **Categories of warps that could issue but did not.** A warp whose own conditions
//!   hold (no barrier, `waitcnt`, counter limit or register in the way) and that its
//!   scheduler did not issue gets its category from the state after that scheduler's
//!   issues in the cycle: `unit_busy` when no unit of its class is free then (a unit taken
//!   this cycle by an earlier scheduler, or by its own, counts), `memory_structural` for a
//!   load the L1 MSHRs cannot take, else `not_selected`.
//! - **Barrier release.** Warps released by a barrier stay in the `barrier` category until
//!   the cycle after the last arrival, when they may issue.
//! - **Occupancy.** Resident warps are slots holding a warp, ended ones included:
//!   occupancy = 1 - no_warp / (cycles x compute units x warp slots).
//! - **Per-instruction stalls.** A warp's stall cycles go to the instruction it is trying
//!   to issue (a barrier's wait to the `barrier`); `ended` and `no_warp` belong to no
//!   instruction, and `issued` is each instruction's `issued` count.
//! - **Greedy-then-oldest.** The greedy warp is the one in the slot that issued last on the
//!   scheduler; age is the dispatch cycle, then the slot.
//! - **Shared memory per workgroup** is the launch's `shared_bytes`, whatever the kernel
//!   touches: a launch that leaves it at its default (64 KiB) fits one workgroup per
//!   compute unit of the default machine.
//! - **Timelines.** Each warp's spans run from its dispatch to its workgroup's end
//!   (`issued` runs merged; `no_warp` is not a warp's span).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use crate::class::{
    in_order, max_outstanding, unit, Class, Kind, Table, CLASSES, NONE, NUM_COUNTERS, NUM_REGS,
};
use crate::machine::{DispatchPolicy, Machine, Policy};
use crate::memory::{Access, MemorySystem};
use crate::record::{GroupStreams, WarpStream};
use crate::report::{
    zero_stalls, KernelTiming, PcTiming, PerClass, Span, Stall, TimingReport, UnitTiming, WarpSpans,
};

/// A cycle that never comes.
const NEVER: u64 = u64::MAX;

const CATEGORIES: usize = Stall::ALL.len();

/// What a warp in a slot is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Running,
    AtBarrier,
    Ended,
}

/// A warp being replayed.
#[derive(Debug)]
struct WarpRun {
    stream: Arc<WarpStream>,
    /// The next word of `stream.words`: the word of the next instruction if it has one,
    /// else (after a stretch's last instruction) the next stretch.
    pos: usize,
    /// Instructions left in the current stretch, the next one's included.
    left: u32,
    /// The next line of `stream.lines`.
    lpos: usize,
    /// PC of the next instruction (while at a barrier: of the `barrier`, whose wait it is).
    pc: u32,
    /// While at a barrier: PC of the instruction after it.
    resume: u32,
    status: Status,
    /// The workgroup's index in its compute unit's table.
    group: usize,
    /// The warp's index in its workgroup.
    index: u32,
    /// When it was dispatched (greedy-then-oldest's age).
    dispatched: u64,
    /// When each register is ready (`v<r>` at r, `u<r>` at 128 + r).
    ready: Box<[u64; NUM_REGS]>,
    /// Completion times of each counter's operations in flight, ascending.
    counters: [VecDeque<u64>; NUM_COUNTERS],
    /// The latest completion time of each counter (in-order counters complete in order).
    last: [u64; NUM_COUNTERS],
    /// Timeline spans (start, end, category), when asked for.
    spans: Vec<(u64, u64, u8)>,
}

impl WarpRun {
    fn new(empty: &Arc<WarpStream>) -> WarpRun {
        WarpRun {
            stream: Arc::clone(empty),
            pos: 0,
            left: 0,
            lpos: 0,
            pc: 0,
            resume: 0,
            status: Status::Ended,
            group: 0,
            index: 0,
            dispatched: 0,
            ready: Box::new([0; NUM_REGS]),
            counters: Default::default(),
            last: [0; NUM_COUNTERS],
            spans: Vec::new(),
        }
    }
}

/// One warp slot of a compute unit.
#[derive(Debug)]
struct Slot {
    occupied: bool,
    warp: WarpRun,
    /// Since when the slot has been in its category (`Hot::cat`).
    since: u64,
}

/// What a scheduler looks at every cycle, per slot, packed apart from the rest.
#[derive(Debug, Clone, Copy)]
struct Hot {
    /// The slot's category since `Slot::since`.
    cat: Stall,
    /// The warp's own conditions (barrier, `waitcnt`, counters, registers) hold from its
    /// wake on: they stay true until it issues, so they are not looked at again. Set also
    /// while it waits for its registers alone (its wake is when they are ready, and
    /// nothing else of its own can change before it issues).
    own_ok: bool,
    /// The class of its next instruction.
    class: u8,
    /// Its next instruction is a global load (it needs L1 MSHRs).
    load: bool,
    /// That load was found blocked by the MSHRs until this cycle, at `Cu::mem_epoch`
    /// `blocked_epoch` (the MSHRs change only as time passes and as global memory
    /// instructions issue).
    blocked_until: u64,
    blocked_epoch: u64,
    /// That load was found to fit at this `Cu::mem_epoch`: it fits as long as no global
    /// memory instruction issues on the CU (time only releases MSHRs).
    fits_epoch: u64,
}

/// A workgroup resident on a compute unit.
#[derive(Debug, Default, Clone)]
struct Group {
    flat: u64,
    slots: Vec<usize>,
    /// Warps not ended.
    live: u32,
    /// Warps waiting at a barrier.
    arrived: u32,
    /// The latest completion of an asynchronous operation of its warps.
    latest: u64,
    in_use: bool,
}

/// One compute unit.
#[derive(Debug)]
struct Cu<M> {
    slots: Vec<Slot>,
    free_slots: u32,
    vregs_used: u64,
    shared_used: u64,
    resident: u32,
    groups: Vec<Group>,
    /// Per class, when each unit is free.
    units: [Vec<u64>; CLASSES],
    busy: [u64; CLASSES],
    /// The schedulers: scheduler s has the slots s, s + schedulers, s + 2 x schedulers...
    scheds: Vec<Sched<M>>,
    /// Per slot, what the schedulers look at.
    hot: Vec<Hot>,
    /// Per slot, by scheduler (the j-th slot of scheduler s at `s * per_scheduler + j`):
    /// the next cycle the warp must be looked at (`NEVER` without a warp that can issue,
    /// and for warps in the ready masks). Apart from `hot` so that a scheduler's scan
    /// reads one short run of memory.
    wakes: Vec<u64>,
    /// Slots per scheduler (the last schedulers' runs in `wakes` may end in padding).
    per_scheduler: usize,
    /// Per class, the earliest cycle one of its units is free.
    class_free: [u64; CLASSES],
    next_wake: u64,
    /// The earliest of the schedulers' `wake`.
    wake_min: u64,
    /// Lines of global memory instructions issued on the CU so far: the version of its
    /// L1 and MSHRs that cached MSHR checks were made against.
    mem_epoch: u64,
    workgroups: u64,
    instructions: u64,
}

/// One scheduler of a compute unit: what it looks at every cycle, together.
#[derive(Debug, Clone)]
struct Sched<M> {
    /// Its slots.
    slots: usize,
    /// The position among its slots of the warp that issued last.
    last: usize,
    /// Its occupied slots, oldest first (greedy-then-oldest).
    by_age: Vec<usize>,
    /// Its warps whose own conditions hold (bit j for its j-th slot), waiting only for a
    /// unit, MSHRs or the scheduler's choice. They are looked at every cycle from this
    /// mask rather than woken one by one.
    ready: M,
    /// Its ready warps by the class of their next instruction.
    class_ready: [M; CLASSES],
    /// Its ready warps whose next instruction is a global load.
    load_ready: M,
    /// Its ready warps now counted as `unit_busy`, `memory_structural` and
    /// `not_selected` (a warp that just became ready is in none of them).
    in_cat: [M; 3],
    /// The earliest of its slots' `wakes` (possibly earlier: a raised wake is found at
    /// the scheduler's next scan).
    wake: u64,
}

impl<M> Sched<M> {
    /// Take back what `select` kept in locals while it issued: the last issuer and the
    /// ready, class, load and category masks.
    #[inline(always)]
    fn keep(&mut self, last: usize, (ready, class_ready, load_ready, in_cat): SchedMasks<M>) {
        self.last = last;
        self.ready = ready;
        self.class_ready = class_ready;
        self.load_ready = load_ready;
        self.in_cat = in_cat;
    }
}

/// A scheduler's ready, class, load and category masks ([`Sched`]).
type SchedMasks<M> = (M, [M; CLASSES], M, [M; 3]);

impl<M> Cu<M> {
    /// The warp in `slot` must be looked at next at `wake`.
    #[inline]
    fn set_wake(&mut self, slot: usize, wake: u64) {
        let schedulers = self.scheds.len();
        let s = slot % schedulers;
        self.wakes[s * self.per_scheduler + slot / schedulers] = wake;
        let sched = &mut self.scheds[s];
        sched.wake = sched.wake.min(wake);
        self.wake_min = self.wake_min.min(wake);
    }
}

/// A set of one scheduler's slots, a bit each: `u64` for schedulers of at most 64 slots,
/// `u128` for more (the machine allows 128); the replay is generic over it because the
/// narrower masks make its inner loops measurably faster.
pub(crate) trait Mask:
    Copy
    + Eq
    + std::fmt::Debug
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitOrAssign
    + std::ops::BitAndAssign
    + std::ops::Not<Output = Self>
{
    /// No slot.
    const ZERO: Self;
    /// Slots a mask holds.
    const SLOTS: usize;
    /// Slot `j` alone.
    fn bit(j: usize) -> Self;
    /// Slot `j` alone if `set`, else none.
    fn bit_if(set: bool, j: usize) -> Self;
    /// Slots `j` and above.
    fn from_bit(j: usize) -> Self;
    /// The lowest slot of a non-empty mask.
    fn lowest(self) -> usize;
    /// The mask without its lowest slot.
    fn without_lowest(self) -> Self;
}

macro_rules! mask {
    ($t:ty) => {
        impl Mask for $t {
            const ZERO: $t = 0;
            const SLOTS: usize = <$t>::BITS as usize;
            #[inline(always)]
            fn bit(j: usize) -> $t {
                1 << j
            }
            #[inline(always)]
            fn bit_if(set: bool, j: usize) -> $t {
                <$t>::from(set) << j
            }
            #[inline(always)]
            fn from_bit(j: usize) -> $t {
                <$t>::MAX << j
            }
            #[inline(always)]
            fn lowest(self) -> usize {
                self.trailing_zeros() as usize
            }
            #[inline(always)]
            fn without_lowest(self) -> $t {
                self & (self - 1)
            }
        }
    };
}
mask!(u64);
mask!(u128);

/// Per instruction (PC / 4): issues and stall cycles.
#[derive(Debug, Clone, Copy, Default)]
struct PcStat {
    issued: u64,
    stalls: [u64; CATEGORIES],
}

/// Where the replay gets each workgroup's streams, in flat order.
pub(crate) trait Source {
    /// The streams of workgroup `flat` (the next one in flat order); `None` when the
    /// functional run stopped before it (the launch was refused).
    fn take(&mut self, flat: u64) -> Option<GroupStreams>;
}

/// What the replay needs of the launch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// Workgroups in the grid.
    pub groups: u64,
    /// Warps per workgroup.
    pub warps: u32,
    /// Shared memory per workgroup, in bytes.
    pub shared_bytes: u32,
}

/// Why a workgroup cannot run on an empty compute unit: the limit, the need, the size.
pub(crate) fn does_not_fit(
    machine: &Machine,
    table: &Table,
    shape: &Shape,
) -> Option<(&'static str, u64, u64)> {
    let cu = &machine.cu;
    let vregs = vregs_per_warp(machine, table) * u64::from(shape.warps);
    if shape.warps > cu.warp_slots {
        Some((
            "warp slots",
            u64::from(shape.warps),
            u64::from(cu.warp_slots),
        ))
    } else if vregs > u64::from(cu.vregs) {
        Some(("vector registers", vregs, u64::from(cu.vregs)))
    } else if shape.shared_bytes > cu.shared_bytes {
        Some((
            "bytes of shared memory",
            u64::from(shape.shared_bytes),
            u64::from(cu.shared_bytes),
        ))
    } else {
        None
    }
}

fn vregs_per_warp(machine: &Machine, table: &Table) -> u64 {
    u64::from(table.vregs.next_multiple_of(machine.cu.vreg_granule.max(1)))
}

/// Replay a launch of `shape` of the program `table` describes on `machine`, taking the
/// workgroups' streams from `source` in flat order, with the narrowest slot masks the
/// machine's schedulers allow.
pub(crate) fn replay(
    machine: &Machine,
    table: &Table,
    shape: Shape,
    timeline: bool,
    source: &mut dyn Source,
    kernel: &str,
) -> TimingReport {
    let per_scheduler = machine.cu.warp_slots.div_ceil(machine.cu.schedulers.max(1)) as usize;
    if per_scheduler <= <u64 as Mask>::SLOTS {
        Replay::<u64>::new(machine, table, shape, timeline).run(source, kernel)
    } else {
        Replay::<u128>::new(machine, table, shape, timeline).run(source, kernel)
    }
}

/// The replay of one launch.
pub(crate) struct Replay<'a, M> {
    machine: &'a Machine,
    table: &'a Table,
    shape: Shape,
    vregs_per_warp: u64,
    cus: Vec<Cu<M>>,
    mem: MemorySystem,
    stalls: [u64; CATEGORIES],
    pcs: Vec<PcStat>,
    timeline: Option<Vec<WarpSpans>>,
    instructions: u64,
    next_group: u64,
    /// No compute unit had room for the next workgroup, and none has freed any since.
    dispatch_blocked: bool,
    last_cu: usize,
    /// Workgroups whose resources return: (cycle, compute unit, group index).
    done: BinaryHeap<Reverse<(u64, usize, usize)>>,
    end: u64,
    max_out: [u32; NUM_COUNTERS],
    in_order: [bool; NUM_COUNTERS],
    interval: [u64; CLASSES],
    shared_latency: u64,
    cache_latency: u64,
    /// The stream of a slot without a warp.
    empty: Arc<WarpStream>,
}

impl<'a, M: Mask> Replay<'a, M> {
    /// A replay of a launch of `shape` of the program `table` describes on `machine`.
    fn new(machine: &'a Machine, table: &'a Table, shape: Shape, timeline: bool) -> Replay<'a, M> {
        let slots = machine.cu.warp_slots as usize;
        let schedulers = machine.cu.schedulers.max(1) as usize;
        let class_units = |c: Class| vec![0u64; unit(machine, c).count.max(1) as usize];
        let empty = Arc::new(WarpStream::default());
        let cus = (0..machine.compute_units)
            .map(|_| Cu {
                slots: (0..slots)
                    .map(|_| Slot {
                        occupied: false,
                        warp: WarpRun::new(&empty),
                        since: 0,
                    })
                    .collect(),
                wakes: vec![NEVER; slots.div_ceil(schedulers) * schedulers],
                per_scheduler: slots.div_ceil(schedulers),
                hot: vec![
                    Hot {
                        cat: Stall::NoWarp,
                        own_ok: false,
                        class: 0,
                        load: false,
                        blocked_until: 0,
                        blocked_epoch: u64::MAX,
                        fits_epoch: u64::MAX,
                    };
                    slots
                ],
                class_free: [0; CLASSES],
                free_slots: slots as u32,
                vregs_used: 0,
                shared_used: 0,
                resident: 0,
                groups: Vec::new(),
                units: [
                    class_units(Class::Valu),
                    class_units(Class::Salu),
                    class_units(Class::Sfu),
                    class_units(Class::Mem),
                    class_units(Class::Branch),
                ],
                busy: [0; CLASSES],
                scheds: (0..schedulers)
                    .map(|s| Sched {
                        slots: (s..slots).step_by(schedulers).count(),
                        last: usize::MAX,
                        by_age: Vec::new(),
                        ready: M::ZERO,
                        class_ready: [M::ZERO; CLASSES],
                        load_ready: M::ZERO,
                        in_cat: [M::ZERO; 3],
                        wake: NEVER,
                    })
                    .collect(),
                next_wake: NEVER,
                wake_min: NEVER,
                mem_epoch: 0,
                workgroups: 0,
                instructions: 0,
            })
            .collect();
        let interval = [
            Class::Valu,
            Class::Salu,
            Class::Sfu,
            Class::Mem,
            Class::Branch,
        ]
        .map(|c| u64::from(unit(machine, c).interval.max(1)));
        Replay {
            machine,
            table,
            shape,
            vregs_per_warp: vregs_per_warp(machine, table),
            cus,
            mem: MemorySystem::new(machine),
            stalls: [0; CATEGORIES],
            // One more for PCs outside the code.
            pcs: vec![PcStat::default(); table.pcs.len() + 1],
            timeline: timeline.then(Vec::new),
            instructions: 0,
            next_group: 0,
            dispatch_blocked: false,
            last_cu: machine.compute_units as usize - 1,
            done: BinaryHeap::new(),
            end: 0,
            max_out: max_outstanding(),
            in_order: in_order(),
            interval,
            shared_latency: u64::from(machine.shared.latency),
            cache_latency: u64::from(machine.l1.hit_latency),
            empty,
        }
    }

    /// Replay every workgroup, taking their streams from `source` in flat order.
    fn run(mut self, source: &mut dyn Source, kernel: &str) -> TimingReport {
        let mut t = 0;
        loop {
            while let Some(&Reverse((d, c, g))) = self.done.peek() {
                if d > t {
                    break;
                }
                self.done.pop();
                self.free(c, g, d);
            }
            self.dispatch(t, source);
            for c in 0..self.cus.len() {
                if self.cus[c].next_wake <= t {
                    self.cycle(c, t);
                }
            }
            let mut next = self.done.peek().map_or(NEVER, |&Reverse((d, _, _))| d);
            for cu in &self.cus {
                next = next.min(cu.next_wake);
            }
            if next == NEVER {
                break;
            }
            t = next.max(t + 1);
        }
        self.report(kernel)
    }

    /// Put the slot in category `cat` from cycle `t`.
    #[inline]
    fn set(&mut self, c: usize, s: usize, t: u64, cat: Stall) {
        if self.cus[c].hot[s].cat != cat {
            self.flush(c, s, t);
            self.cus[c].hot[s].cat = cat;
        }
    }

    /// Account the slot's cycles in its category up to `t`.
    #[inline]
    fn flush(&mut self, c: usize, s: usize, t: u64) {
        let cat = self.cus[c].hot[s].cat;
        let slot = &mut self.cus[c].slots[s];
        let was = cat as usize;
        let d = t - slot.since;
        if d > 0 {
            self.stalls[was] += d;
            if !matches!(cat, Stall::Issued | Stall::Ended | Stall::NoWarp) {
                let i = ((slot.warp.pc >> 2) as usize).min(self.pcs.len() - 1);
                self.pcs[i].stalls[was] += d;
            }
            if self.timeline.is_some() && cat != Stall::NoWarp {
                let spans = &mut slot.warp.spans;
                match spans.last_mut() {
                    Some(last) if last.1 == slot.since && last.2 == was as u8 => last.1 = t,
                    _ => spans.push((slot.since, t, was as u8)),
                }
            }
        }
        slot.since = t;
    }

    /// Whether a compute unit has room for one more workgroup.
    fn fits(&self, c: usize) -> bool {
        let cu = &self.cus[c];
        let m = &self.machine.cu;
        cu.free_slots >= self.shape.warps
            && cu.vregs_used + self.vregs_per_warp * u64::from(self.shape.warps)
                <= u64::from(m.vregs)
            && cu.shared_used + u64::from(self.shape.shared_bytes) <= u64::from(m.shared_bytes)
            && cu.resident < m.max_workgroups
    }

    /// Dispatch the next workgroups, in flat order, while one fits somewhere.
    fn dispatch(&mut self, t: u64, source: &mut dyn Source) {
        let n = self.cus.len();
        while self.next_group < self.shape.groups && !self.dispatch_blocked {
            let found = match self.machine.dispatch.policy {
                DispatchPolicy::RoundRobin => (1..=n)
                    .map(|i| (self.last_cu + i) % n)
                    .find(|&c| self.fits(c)),
                DispatchPolicy::Fill => (0..n).find(|&c| self.fits(c)),
            };
            let Some(c) = found else {
                self.dispatch_blocked = true;
                break;
            };
            let flat = self.next_group;
            let Some(streams) = source.take(flat) else {
                self.shape.groups = flat;
                break;
            };
            self.place(c, t, flat, streams);
            self.last_cu = c;
            self.next_group += 1;
        }
    }

    /// Start workgroup `flat` on compute unit `c` at cycle `t`.
    fn place(&mut self, c: usize, t: u64, flat: u64, streams: GroupStreams) {
        let mut streams = streams.into_iter();
        let empty = Arc::clone(&self.empty);
        let warps = self.shape.warps as usize;
        let shared = u64::from(self.shape.shared_bytes);
        let vregs = self.vregs_per_warp * warps as u64;
        let cu = &mut self.cus[c];
        cu.free_slots -= warps as u32;
        cu.vregs_used += vregs;
        cu.shared_used += shared;
        cu.resident += 1;
        cu.workgroups += 1;
        let g = match cu.groups.iter().position(|g| !g.in_use) {
            Some(g) => g,
            None => {
                cu.groups.push(Group::default());
                cu.groups.len() - 1
            }
        };
        let mut slots = Vec::with_capacity(warps);
        for s in 0..cu.slots.len() {
            if slots.len() == warps {
                break;
            }
            if !cu.slots[s].occupied {
                slots.push(s);
            }
        }
        cu.groups[g] = Group {
            flat,
            slots: slots.clone(),
            live: warps as u32,
            arrived: 0,
            latest: 0,
            in_use: true,
        };
        let schedulers = cu.scheds.len();
        for (i, &s) in slots.iter().enumerate() {
            let stream = streams.next().unwrap_or_else(|| Arc::clone(&empty));
            cu.hot[s].own_ok = false;
            cu.set_wake(s, t);
            let slot = &mut cu.slots[s];
            slot.occupied = true;
            let w = &mut slot.warp;
            (w.pc, w.left, w.status) = match stream.stretch(0) {
                Some((pc, left)) => (pc, left, Status::Running),
                None => (0, 0, Status::Ended),
            };
            w.stream = stream;
            w.pos = 2;
            w.lpos = 0;
            w.group = g;
            w.index = i as u32;
            w.dispatched = t;
            w.ready.fill(0);
            for q in &mut w.counters {
                q.clear();
            }
            w.last = [0; NUM_COUNTERS];
            w.spans.clear();
            let age = &mut cu.scheds[s % schedulers].by_age;
            age.push(s);
            // Oldest first; warps dispatched in the same cycle by slot.
            let mut k = age.len() - 1;
            while k > 0 {
                let (a, b) = (age[k - 1], age[k]);
                let (wa, wb) = (&cu.slots[a].warp, &cu.slots[b].warp);
                if (wa.dispatched, a) > (wb.dispatched, b) {
                    age.swap(k - 1, k);
                    k -= 1;
                } else {
                    break;
                }
            }
        }
        cu.next_wake = cu.next_wake.min(t);
        cu.wake_min = cu.wake_min.min(t);
        for &s in &slots {
            self.set(c, s, t, Stall::NotSelected);
            if self.cus[c].slots[s].warp.status == Status::Ended {
                self.end_warp(c, s, t, t);
            }
        }
    }

    /// Workgroup `g` of compute unit `c` returns its resources at cycle `d`.
    fn free(&mut self, c: usize, g: usize, d: u64) {
        let slots = std::mem::take(&mut self.cus[c].groups[g].slots);
        let flat = self.cus[c].groups[g].flat;
        for &s in &slots {
            self.set(c, s, d, Stall::NoWarp);
            self.cus[c].set_wake(s, NEVER);
            let slot = &mut self.cus[c].slots[s];
            slot.occupied = false;
            // The stream's memory goes now (once no other replay holds it).
            slot.warp.stream = Arc::clone(&self.empty);
            if let Some(tl) = &mut self.timeline {
                let spans = std::mem::take(&mut slot.warp.spans);
                tl.push(WarpSpans {
                    kernel: 0,
                    cu: c as u32,
                    slot: s as u32,
                    workgroup: flat,
                    warp: slot.warp.index,
                    spans: spans
                        .into_iter()
                        .map(|(start, end, cat)| Span {
                            start,
                            end,
                            category: Stall::ALL[usize::from(cat)].key().to_string(),
                        })
                        .collect(),
                });
            }
        }
        let warps = slots.len() as u64;
        let cu = &mut self.cus[c];
        for sched in &mut cu.scheds {
            sched.by_age.retain(|s| !slots.contains(s));
        }
        cu.free_slots += warps as u32;
        cu.vregs_used -= self.vregs_per_warp * warps;
        cu.shared_used -= u64::from(self.shape.shared_bytes);
        cu.resident -= 1;
        cu.groups[g].in_use = false;
        self.dispatch_blocked = false;
        self.end = self.end.max(d);
    }

    /// One cycle of compute unit `c`: each scheduler issues up to `issue_width` of its
    /// eligible warps, by policy; every warp looked at gets its category.
    fn cycle(&mut self, c: usize, t: u64) {
        let width = self.machine.cu.issue_width;
        let schedulers = self.cus[c].scheds.len();
        let per = self.cus[c].per_scheduler;
        // The earliest cycle a ready warp's situation can change.
        let mut ready_wake = NEVER;
        for s in 0..schedulers {
            let sched = &self.cus[c].scheds[s];
            let n = if sched.wake <= t { sched.slots } else { 0 };
            // The warps due to be looked at, and the earliest wake of the others.
            let mut due = M::ZERO;
            let mut wake_min = NEVER;
            for (j, &w) in self.cus[c].wakes[s * per..s * per + n].iter().enumerate() {
                let is_due = w <= t;
                due |= M::bit_if(is_due, j);
                wake_min = wake_min.min(if is_due { NEVER } else { w });
            }
            // Those whose own conditions now hold join the ready mask (a warp's own
            // conditions do not depend on other warps' issues, so looking at them first
            // changes nothing).
            while due != M::ZERO {
                let j = due.lowest();
                due = due.without_lowest();
                let slot = s + j * schedulers;
                let own = if self.cus[c].hot[slot].own_ok {
                    Ok(())
                } else {
                    self.own_state(c, slot, t)
                };
                match own {
                    Ok(()) => {
                        let cu = &mut self.cus[c];
                        cu.wakes[s * per + j] = NEVER;
                        let hot = cu.hot[slot];
                        let bit = M::bit(j);
                        let sched = &mut cu.scheds[s];
                        sched.ready |= bit;
                        sched.class_ready[usize::from(hot.class)] |= bit;
                        sched.load_ready |= M::bit_if(hot.load, j);
                    }
                    Err((cat, wake)) => {
                        self.set(c, slot, t, cat);
                        self.cus[c].wakes[s * per + j] = wake;
                        wake_min = wake_min.min(wake);
                    }
                }
            }
            let sched = &mut self.cus[c].scheds[s];
            if n > 0 {
                sched.wake = wake_min;
            }
            if sched.ready != M::ZERO {
                ready_wake = ready_wake.min(self.select(c, s, t, width));
            }
        }
        let cu = &mut self.cus[c];
        cu.wake_min = cu
            .scheds
            .iter()
            .map(|sched| sched.wake)
            .min()
            .unwrap_or(NEVER);
        cu.next_wake = ready_wake.min(cu.wake_min);
    }

    /// Scheduler `s` issues up to `width` of its ready warps at `t`, by policy: those
    /// with a free unit of their class and, for a load, room in the L1 MSHRs. The others
    /// get their category from the state after these issues: `unit_busy` when no unit of
    /// their class is free, `memory_structural` for a load the MSHRs cannot take, else
    /// `not_selected`.
    ///
    /// Returns the earliest cycle at which the situation of a warp left waiting can
    /// change: the next cycle if one was not selected, else when a unit of a busy class is
    /// free or enough MSHRs are released for a blocked load (a load issued on the CU
    /// before then is in a cycle the replay looks at anyway).
    fn select(&mut self, c: usize, s: usize, t: u64, width: u32) -> u64 {
        let schedulers = self.cus[c].scheds.len();
        // The scheduler's masks, kept here while it issues (an issue changes the CU's
        // units and MSHRs and the issuing warp's wake, not these).
        let Sched {
            slots: n,
            mut last,
            mut ready,
            mut class_ready,
            mut load_ready,
            mut in_cat,
            ..
        } = self.cus[c].scheds[s];
        let mut issued = 0;
        // Loads found blocked by the MSHRs this cycle (they stay so: MSHRs only fill up
        // within a cycle).
        let mut blocked = M::ZERO;
        while issued < width {
            // Ready warps of the classes with a free unit (an issue can take a unit).
            let class_free = self.cus[c].class_free;
            let mut eligible = M::ZERO;
            for k in 0..CLASSES {
                eligible |= if class_free[k] <= t {
                    class_ready[k]
                } else {
                    M::ZERO
                };
            }
            eligible &= !blocked;
            if eligible == M::ZERO {
                break;
            }
            let mut chosen = None;
            match self.machine.cu.policy {
                Policy::LooseRoundRobin => {
                    let start = last.wrapping_add(1);
                    let start = if start >= n { 0 } else { start };
                    // From the slot after the last issuer round to it.
                    let mut bits = eligible & M::from_bit(start);
                    let mut wrapped = false;
                    loop {
                        if bits == M::ZERO {
                            if wrapped {
                                break;
                            }
                            wrapped = true;
                            bits = eligible & !M::from_bit(start);
                            continue;
                        }
                        let j = bits.lowest();
                        bits = bits.without_lowest();
                        if self.takes(c, s, j, load_ready, &mut blocked, t) {
                            chosen = Some(j);
                            break;
                        }
                    }
                }
                Policy::GreedyThenOldest => {
                    // The greedy warp, then the others oldest first (nothing issued here
                    // changes the order).
                    let ages = self.cus[c].scheds[s].by_age.len();
                    for k in 0..=ages {
                        let j = if k == 0 {
                            last
                        } else {
                            let j = self.cus[c].scheds[s].by_age[k - 1] / schedulers;
                            if j == last {
                                continue;
                            }
                            j
                        };
                        if j >= n {
                            continue;
                        }
                        if eligible & M::bit(j) != M::ZERO
                            && self.takes(c, s, j, load_ready, &mut blocked, t)
                        {
                            chosen = Some(j);
                            break;
                        }
                    }
                }
            }
            let Some(j) = chosen else {
                break;
            };
            issued += 1;
            let keep = !M::bit(j);
            ready &= keep;
            for m in &mut class_ready {
                *m &= keep;
            }
            load_ready &= keep;
            for m in &mut in_cat {
                *m &= keep;
            }
            last = j;
            self.issue(c, s + j * schedulers, t);
        }
        if ready == M::ZERO {
            // Every ready warp issued: none is left waiting.
            let masks = (ready, class_ready, load_ready, [M::ZERO; 3]);
            self.cus[c].scheds[s].keep(last, masks);
            return NEVER;
        }
        // The categories of the warps left waiting, and the earliest a busy class of one
        // of them has a free unit.
        let class_free = self.cus[c].class_free;
        let mut busy = M::ZERO;
        let mut next = NEVER;
        for k in 0..CLASSES {
            if class_free[k] > t && class_ready[k] != M::ZERO {
                busy |= class_ready[k];
                next = next.min(class_free[k]);
            }
        }
        let mut mshr = blocked & !busy & ready;
        let mut unchecked = load_ready & !busy & !blocked & ready;
        while unchecked != M::ZERO {
            let j = unchecked.lowest();
            unchecked = unchecked.without_lowest();
            if self.load_blocked(c, s + j * schedulers, t) {
                mshr |= M::bit(j);
            }
        }
        let wanted = [busy & ready, mshr, ready & !busy & !mshr];
        if wanted[2] != M::ZERO {
            next = next.min(t + 1);
        }
        let mut bits = mshr;
        while bits != M::ZERO {
            let j = bits.lowest();
            bits = bits.without_lowest();
            let hot = &self.cus[c].hot[s + j * schedulers];
            // Found blocked this cycle, so its record is current.
            next = next.min(hot.blocked_until.max(t + 1));
        }
        const CATS: [Stall; 3] = [Stall::UnitBusy, Stall::MemoryStructural, Stall::NotSelected];
        for i in 0..CATS.len() {
            let mut change = wanted[i] & !in_cat[i];
            while change != M::ZERO {
                let j = change.lowest();
                change = change.without_lowest();
                self.set(c, s + j * schedulers, t, CATS[i]);
            }
        }
        let masks = (ready, class_ready, load_ready, wanted);
        self.cus[c].scheds[s].keep(last, masks);
        next
    }

    /// Whether scheduler `s` can issue its eligible `j`-th warp at `t`: not a load
    /// (`load_ready`), or a load the MSHRs take; a load they do not is added to `blocked`.
    #[inline(always)]
    fn takes(
        &mut self,
        c: usize,
        s: usize,
        j: usize,
        load_ready: M,
        blocked: &mut M,
        t: u64,
    ) -> bool {
        let slot = s + j * self.cus[c].scheds.len();
        if load_ready & M::bit(j) != M::ZERO && self.load_blocked(c, slot, t) {
            *blocked |= M::bit(j);
            return false;
        }
        true
    }

    /// Whether the CU's L1 MSHRs cannot take the next load of the warp in `slot` at `t`.
    fn load_blocked(&mut self, c: usize, slot: usize, t: u64) -> bool {
        let cu = &self.cus[c];
        let hot = cu.hot[slot];
        if hot.blocked_epoch == cu.mem_epoch && hot.blocked_until > t {
            return true;
        }
        if hot.fits_epoch == cu.mem_epoch {
            return false;
        }
        let w = &cu.slots[slot].warp;
        let n = w.stream.words.get(w.pos).copied().unwrap_or(0) as usize;
        let lines = &w.stream.lines[w.lpos..(w.lpos + n).min(w.stream.lines.len())];
        match self.mem.load_fits(c, lines, t) {
            Ok(()) => {
                let epoch = cu.mem_epoch;
                self.cus[c].hot[slot].fits_epoch = epoch;
                false
            }
            Err(until) => {
                let epoch = cu.mem_epoch;
                let hot = &mut self.cus[c].hot[slot];
                hot.blocked_until = until;
                hot.blocked_epoch = epoch;
                true
            }
        }
    }

    /// What keeps the warp of slot `s` from issuing at `t` that depends on the warp alone
    /// (a barrier, `waitcnt`, a counter's in-flight limit, registers), and until when.
    #[inline]
    fn own_state(&mut self, c: usize, s: usize, t: u64) -> Result<(), (Stall, u64)> {
        let w = &mut self.cus[c].slots[s].warp;
        match w.status {
            Status::Running => {}
            Status::AtBarrier => return Err((Stall::Barrier, NEVER)),
            Status::Ended => return Err((Stall::Ended, NEVER)),
        }
        let info = self.table.at(w.pc);
        if let Kind::Waitcnt(i) = info.kind {
            let th = &self.table.waits[i as usize];
            for (k, &limit) in th.iter().enumerate() {
                if limit == u32::MAX {
                    continue;
                }
                let q = &mut w.counters[k];
                while q.front().is_some_and(|&x| x <= t) {
                    q.pop_front();
                }
                if q.len() > limit as usize {
                    return Err((Stall::waitcnt(k), q[q.len() - limit as usize - 1]));
                }
            }
        }
        if info.counter != NONE {
            let k = usize::from(info.counter);
            let q = &mut w.counters[k];
            while q.front().is_some_and(|&x| x <= t) {
                q.pop_front();
            }
            let limit = self.max_out[k] as usize;
            if q.len() >= limit {
                return Err((Stall::waitcnt(k), q[q.len() - limit]));
            }
        }
        let mut ready = 0;
        for &r in self.table.list(info.regs) {
            ready = ready.max(w.ready[usize::from(r)]);
        }
        let hot = &mut self.cus[c].hot[s];
        hot.own_ok = true;
        hot.class = info.class as u8;
        hot.load = info.kind == Kind::Load;
        if ready > t {
            return Err((Stall::Dependency, ready));
        }
        Ok(())
    }

    /// Record an asynchronous operation on counter `k` of the warp in slot `s` completing
    /// at `done`; returns its completion (in-order counters complete in issue order).
    fn push_counter(&mut self, c: usize, s: usize, k: u8, done: u64) -> u64 {
        if k == NONE {
            return done;
        }
        let k = usize::from(k);
        let w = &mut self.cus[c].slots[s].warp;
        let done = if self.in_order[k] {
            done.max(w.last[k])
        } else {
            done
        };
        w.last[k] = w.last[k].max(done);
        let q = &mut w.counters[k];
        if q.back().is_none_or(|&b| b <= done) {
            q.push_back(done);
        } else {
            let at = q.partition_point(|&x| x <= done);
            q.insert(at, done);
        }
        let g = w.group;
        let group = &mut self.cus[c].groups[g];
        group.latest = group.latest.max(done);
        done
    }

    /// Issue the next instruction of the warp in slot `s` at cycle `t`.
    fn issue(&mut self, c: usize, s: usize, t: u64) {
        self.set(c, s, t, Stall::Issued);
        self.cus[c].hot[s].own_ok = false;
        let table = self.table;
        let w = &self.cus[c].slots[s].warp;
        let (pc, lpos) = (w.pc, w.lpos);
        let info = *table.at(pc);
        // Only memory instructions have a word: the others need not reach the stream.
        let word = if info.kind.has_word() {
            w.stream.words.get(w.pos).copied().unwrap_or(0)
        } else {
            0
        };
        let i = ((pc >> 2) as usize).min(self.pcs.len() - 1);
        self.pcs[i].issued += 1;
        self.instructions += 1;
        let class = info.class as usize;
        let busy = self.interval[class]
            * match info.kind {
                Kind::Load | Kind::Store | Kind::Atomic | Kind::Shared => u64::from(word.max(1)),
                _ => 1,
            };
        {
            let cu = &mut self.cus[c];
            cu.instructions += 1;
            cu.busy[class] += busy;
            if let Some(u) = cu.units[class].iter_mut().find(|u| **u <= t) {
                *u = t + busy;
            }
            cu.class_free[class] = cu.units[class].iter().copied().min().unwrap_or(0);
        }
        // When the written registers are ready.
        let ready = match info.kind {
            Kind::Load | Kind::Store | Kind::Atomic => {
                let n = word as usize;
                let mut done = t + self.cache_latency;
                if n > 0 {
                    done = 0;
                    for k in 0..n {
                        let line = self.cus[c].slots[s].warp.stream.lines[lpos + k];
                        let r = t + k as u64;
                        // Any line changes what the L1 holds or has in flight.
                        self.cus[c].mem_epoch += 1;
                        let ready = match info.kind {
                            Kind::Load => self.mem.load(c, line, r),
                            Kind::Store => self.mem.write(c, line, r, Access::Store),
                            _ => self.mem.write(c, line, r, Access::Atomic),
                        };
                        done = done.max(ready);
                    }
                    self.cus[c].slots[s].warp.lpos += n;
                }
                self.push_counter(c, s, info.counter, done)
            }
            Kind::Shared => {
                self.mem.shared(word);
                let done = t + self.shared_latency + u64::from(word.max(1)) - 1;
                self.push_counter(c, s, info.counter, done)
            }
            Kind::Cache => {
                let done = t + self.cache_latency;
                self.push_counter(c, s, info.counter, done)
            }
            _ if info.counter != NONE => {
                self.push_counter(c, s, info.counter, t + u64::from(info.latency))
            }
            _ => t + u64::from(info.latency),
        };
        let next = {
            let w = &mut self.cus[c].slots[s].warp;
            for &r in table.list(info.writes) {
                w.ready[usize::from(r)] = ready;
            }
            w.pos += usize::from(info.kind.has_word());
            w.left -= 1;
            if w.left > 0 {
                Some(pc.wrapping_add(u32::from(info.len)))
            } else {
                // The next stretch, if any.
                let next = w.stream.stretch(w.pos);
                if let Some((_, left)) = next {
                    w.pos += 2;
                    w.left = left;
                }
                next.map(|(pc, _)| pc)
            }
        };
        let Some(next_pc) = next else {
            // The stream ends: `endpgm`, or a trap or the step limit stopped the warp.
            self.end_warp(c, s, t, t + 1);
            return;
        };
        if info.kind == Kind::Endpgm {
            self.end_warp(c, s, t, t + 1);
            return;
        }
        if info.kind == Kind::Barrier {
            let g = self.cus[c].slots[s].warp.group;
            self.cus[c].slots[s].warp.resume = next_pc;
            self.cus[c].slots[s].warp.status = Status::AtBarrier;
            self.cus[c].groups[g].arrived += 1;
            self.set(c, s, t + 1, Stall::Barrier);
            self.cus[c].set_wake(s, NEVER);
            self.release_if_all_arrived(c, g, t);
            return;
        }
        self.cus[c].slots[s].warp.pc = next_pc;
        self.after_issue(c, s, t + 1);
    }

    /// The warp of slot `s` may issue again from `t`: its category until it is looked at.
    #[inline]
    fn after_issue(&mut self, c: usize, s: usize, t: u64) {
        match self.own_state(c, s, t) {
            Ok(()) => self.cus[c].set_wake(s, t),
            Err((cat, wake)) => {
                self.set(c, s, t, cat);
                self.cus[c].set_wake(s, wake);
            }
        }
    }

    /// The warp of slot `s` ends at `from` (it issued its last instruction at `t`).
    fn end_warp(&mut self, c: usize, s: usize, t: u64, from: u64) {
        self.set(c, s, from, Stall::Ended);
        let slot = &mut self.cus[c].slots[s];
        slot.warp.status = Status::Ended;
        self.cus[c].set_wake(s, NEVER);
        let slot = &self.cus[c].slots[s];
        let g = slot.warp.group;
        let group = &mut self.cus[c].groups[g];
        group.live -= 1;
        if group.live == 0 {
            let d = (t + 1).max(group.latest);
            self.done.push(Reverse((d, c, g)));
        } else {
            self.release_if_all_arrived(c, g, t);
        }
    }

    /// If every live warp of group `g` waits at a barrier (the last arrived or ended at
    /// `t`), release them all: they may issue from `t + 1`.
    fn release_if_all_arrived(&mut self, c: usize, g: usize, t: u64) {
        let group = &self.cus[c].groups[g];
        if group.arrived == 0 || group.arrived < group.live {
            return;
        }
        let slots = group.slots.clone();
        self.cus[c].groups[g].arrived = 0;
        for s in slots {
            if self.cus[c].slots[s].warp.status == Status::AtBarrier {
                // The barrier's wait ends at t + 1: its cycles go to the barrier.
                self.flush(c, s, t + 1);
                let w = &mut self.cus[c].slots[s].warp;
                w.status = Status::Running;
                w.pc = w.resume;
                self.after_issue(c, s, t + 1);
            }
        }
        let cu = &mut self.cus[c];
        cu.next_wake = cu.next_wake.min(t + 1);
        cu.wake_min = cu.wake_min.min(t + 1);
    }

    /// The report of the finished replay.
    fn report(mut self, kernel: &str) -> TimingReport {
        let end = self.end;
        for c in 0..self.cus.len() {
            for s in 0..self.cus[c].slots.len() {
                self.set(c, s, end, Stall::Issued);
            }
        }
        let m = self.machine;
        let mut stalls = zero_stalls();
        for (k, &v) in Stall::ALL.iter().zip(&self.stalls) {
            stalls.insert(k.key().to_string(), v);
        }
        let slots = u64::from(m.compute_units) * u64::from(m.cu.warp_slots);
        let total = end * slots;
        let no_warp = self.stalls[Stall::NoWarp as usize];
        let occupancy = if total == 0 {
            0.0
        } else {
            (total - no_warp) as f64 / total as f64
        };
        let units = self
            .cus
            .iter()
            .enumerate()
            .map(|(c, cu)| UnitTiming {
                cu: c as u32,
                workgroups: cu.workgroups,
                instructions: cu.instructions,
                busy: PerClass::from_array(cu.busy),
                utilisation: PerClass::default(),
            })
            .collect();
        let pcs = self
            .pcs
            .iter()
            .take(self.table.pcs.len())
            .enumerate()
            .filter(|(_, p)| p.issued > 0 || p.stalls.iter().any(|&v| v > 0))
            .map(|(i, p)| PcTiming {
                pc: (i * 4) as u32,
                issued: p.issued,
                stalls: Stall::ALL
                    .iter()
                    .zip(&p.stalls)
                    .filter(|(_, &v)| v > 0)
                    .map(|(k, &v)| (k.key().to_string(), v))
                    .collect(),
            })
            .collect();
        let mut timeline = self.timeline.take();
        if let Some(t) = &mut timeline {
            t.sort_by_key(|w| (w.workgroup, w.warp));
        }
        let ipc = if end == 0 {
            0.0
        } else {
            self.instructions as f64 / end as f64
        };
        let mut report = TimingReport {
            machine: m.clone(),
            machine_hash: m.hash(),
            cycles: end,
            instructions: self.instructions,
            ipc,
            occupancy,
            stalls,
            kernels: vec![KernelTiming {
                name: kernel.to_string(),
                cycles: end,
                instructions: self.instructions,
                ipc,
                workgroups: self.shape.groups,
                occupancy,
            }],
            units,
            memory: self.mem.finish(),
            pcs,
            timeline,
        };
        report.finish_rates();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Recorder;
    use warpkit_examples::Size;
    use warpkit_sim::launch::launch_batched;

    /// Every workgroup's streams, recorded up front.
    struct Recorded(VecDeque<GroupStreams>);

    impl Source for Recorded {
        fn take(&mut self, _flat: u64) -> Option<GroupStreams> {
            self.0.pop_front()
        }
    }

    /// The first launch of `example` (small size), recorded for `machine`.
    fn record(example: &str, machine: &Machine) -> (Table, Shape, Vec<GroupStreams>) {
        let example = warpkit_examples::find(example).expect("an example");
        let case = example.case(Size::Small);
        let code = example.code().expect("assembles");
        let stage = &case.stages[0];
        let args = example.stage_args(0, stage, &[]).expect("a first launch");
        let config = code.config(stage);
        let table = Table::new(&code.program, machine);
        let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
        let warps = threads.div_ceil(32) as usize;
        let mut groups = Vec::new();
        launch_batched(
            &code.program,
            &config,
            args,
            64,
            |_| Recorder::new(&table, machine, warps),
            |_, hooks| {
                groups.extend(
                    hooks
                        .into_iter()
                        .map(|h| h.warps.into_iter().map(Arc::new).collect()),
                )
            },
        )
        .expect("launches");
        let shape = Shape {
            groups: groups.len() as u64,
            warps: warps as u32,
            shared_bytes: config.shared_bytes,
        };
        (table, shape, groups)
    }

    #[test]
    fn narrow_and_wide_slot_masks_give_the_same_report() {
        // 48 slots on one scheduler: both widths can hold them; policies and units that
        // leave warps waiting in every category.
        let mut machine = Machine::default();
        machine.cu.warp_slots = 48;
        machine.cu.schedulers = 1;
        machine.cu.issue_width = 2;
        for policy in [Policy::LooseRoundRobin, Policy::GreedyThenOldest] {
            machine.cu.policy = policy;
            for example in ["matmul", "histogram", "reduce", "collatz"] {
                let (table, shape, groups) = record(example, &machine);
                let run = |wide: bool| {
                    let mut source = Recorded(groups.iter().cloned().collect());
                    let report = if wide {
                        Replay::<u128>::new(&machine, &table, shape, true).run(&mut source, "k")
                    } else {
                        Replay::<u64>::new(&machine, &table, shape, true).run(&mut source, "k")
                    };
                    report.to_json()
                };
                assert_eq!(run(false), run(true), "{example}, {policy:?}");
            }
        }
    }
}
