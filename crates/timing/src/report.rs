//! What a timing run reports: cycles, IPC, occupancy, the stall breakdown, per-unit
//! utilisation, cache behaviour and per-instruction attribution, as JSON and as text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::machine::Machine;

/// Why a warp slot spent a cycle the way it did. Every warp slot of every compute unit is
/// in exactly one category each cycle, so the categories sum to cycles x compute units x
/// warp slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stall {
    /// The warp issued an instruction.
    Issued,
    /// A register the next instruction reads or writes is not ready (a fixed latency, or
    /// an asynchronous write-back not yet waited for).
    Dependency,
    /// Waiting at `waitcnt` for the `vm` counter (global loads).
    WaitcntVm,
    /// Waiting at `waitcnt` for the `vst` counter (global stores and atomics).
    WaitcntVst,
    /// Waiting at `waitcnt` for the `tex` counter.
    WaitcntTex,
    /// Waiting at `waitcnt` for the `ls` counter (shared memory).
    WaitcntLs,
    /// Waiting at `waitcnt` for the `sm` counter (uniform loads).
    WaitcntSm,
    /// Waiting at `waitcnt` for the `sfu` counter.
    WaitcntSfu,
    /// Waiting at a barrier for the rest of the workgroup.
    Barrier,
    /// Every functional unit of the instruction's class is busy.
    UnitBusy,
    /// The compute unit's L1 cannot take the instruction's misses (MSHRs full).
    MemoryStructural,
    /// Eligible, but the scheduler issued other warps.
    NotSelected,
    /// The warp has ended; its workgroup still runs.
    Ended,
    /// The slot holds no warp.
    NoWarp,
}

impl Stall {
    /// Every category, in report order.
    pub const ALL: [Stall; 14] = [
        Stall::Issued,
        Stall::Dependency,
        Stall::WaitcntVm,
        Stall::WaitcntVst,
        Stall::WaitcntTex,
        Stall::WaitcntLs,
        Stall::WaitcntSm,
        Stall::WaitcntSfu,
        Stall::Barrier,
        Stall::UnitBusy,
        Stall::MemoryStructural,
        Stall::NotSelected,
        Stall::Ended,
        Stall::NoWarp,
    ];

    /// The category's key in reports (`waitcnt_vm`, `no_warp`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Stall::Issued => "issued",
            Stall::Dependency => "dependency",
            Stall::WaitcntVm => "waitcnt_vm",
            Stall::WaitcntVst => "waitcnt_vst",
            Stall::WaitcntTex => "waitcnt_tex",
            Stall::WaitcntLs => "waitcnt_ls",
            Stall::WaitcntSm => "waitcnt_sm",
            Stall::WaitcntSfu => "waitcnt_sfu",
            Stall::Barrier => "barrier",
            Stall::UnitBusy => "unit_busy",
            Stall::MemoryStructural => "memory_structural",
            Stall::NotSelected => "not_selected",
            Stall::Ended => "ended",
            Stall::NoWarp => "no_warp",
        }
    }

    /// The waitcnt category of counter `c` (an index into `warpkit_isa::COUNTERS`).
    pub fn waitcnt(c: usize) -> Stall {
        match c {
            0 => Stall::WaitcntVm,
            1 => Stall::WaitcntVst,
            2 => Stall::WaitcntTex,
            3 => Stall::WaitcntLs,
            4 => Stall::WaitcntSm,
            _ => Stall::WaitcntSfu,
        }
    }

    /// The category with key `key`.
    pub fn from_key(key: &str) -> Option<Stall> {
        Stall::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// The stall categories' keys, in report order.
pub fn stall_keys() -> impl Iterator<Item = &'static str> {
    Stall::ALL.into_iter().map(Stall::key)
}

/// A value per functional unit class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PerClass<T> {
    /// Vector ALU.
    pub valu: T,
    /// Scalar ALU.
    pub salu: T,
    /// Special function unit.
    pub sfu: T,
    /// Memory unit.
    pub mem: T,
    /// Branch unit.
    pub branch: T,
}

impl<T: Copy> PerClass<T> {
    /// The values in class order (valu, salu, sfu, mem, branch).
    pub fn to_array(&self) -> [T; 5] {
        [self.valu, self.salu, self.sfu, self.mem, self.branch]
    }

    /// From values in class order (valu, salu, sfu, mem, branch).
    pub fn from_array(a: [T; 5]) -> PerClass<T> {
        PerClass {
            valu: a[0],
            salu: a[1],
            sfu: a[2],
            mem: a[3],
            branch: a[4],
        }
    }
}

/// One kernel (launch) of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelTiming {
    /// The kernel's name.
    pub name: String,
    /// Cycles from its start to the end of its last workgroup.
    pub cycles: u64,
    /// Warp-instructions issued.
    pub instructions: u64,
    /// Instructions per cycle, whole chip.
    pub ipc: f64,
    /// Workgroups run.
    pub workgroups: u64,
    /// Achieved occupancy: mean resident warps / (compute units x warp slots).
    pub occupancy: f64,
}

/// One compute unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitTiming {
    /// The compute unit's index.
    pub cu: u32,
    /// Workgroups it ran.
    pub workgroups: u64,
    /// Warp-instructions it issued.
    pub instructions: u64,
    /// Cycles the units of each class were busy, summed over the units of the class.
    pub busy: PerClass<u64>,
    /// Busy cycles / (cycles x units of the class).
    pub utilisation: PerClass<f64>,
}

/// The memory hierarchy's counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryTiming {
    /// L1 lookups (global loads' lines) that hit.
    pub l1_hits: u64,
    /// L1 lookups that missed (merged with a line in flight included).
    pub l1_misses: u64,
    /// L2 lookups that hit (L1 load misses, stores and atomics).
    pub l2_hits: u64,
    /// L2 lookups that missed (a DRAM read each).
    pub l2_misses: u64,
    /// l1_hits / (l1_hits + l1_misses); 0 without lookups.
    pub l1_hit_rate: f64,
    /// l2_hits / (l2_hits + l2_misses); 0 without lookups.
    pub l2_hit_rate: f64,
    /// Bytes read from DRAM (line fills).
    pub dram_read_bytes: u64,
    /// Bytes written to DRAM (dirty L2 lines evicted, and those left at the kernel's end).
    pub dram_write_bytes: u64,
    /// Shared-memory instructions (`ds`).
    pub shared_accesses: u64,
    /// Passes they took (more than one each when banks conflict).
    pub shared_passes: u64,
}

/// One instruction (PC): how often it issued, and the stall cycles of warps trying to
/// issue it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PcTiming {
    /// Byte offset of the instruction from the code base.
    pub pc: u32,
    /// Warp-instructions issued at this PC.
    pub issued: u64,
    /// Cycles per stall category (non-zero ones) of warps whose next instruction this was.
    pub stalls: BTreeMap<String, u64>,
}

impl PcTiming {
    /// Every cycle a warp spent on this instruction: its issues plus its stalls.
    pub fn cycles(&self) -> u64 {
        self.issued + self.stalls.values().sum::<u64>()
    }
}

/// A run of cycles `[start, end)` one warp spent in one state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// First cycle.
    pub start: u64,
    /// One past the last cycle.
    pub end: u64,
    /// A stall category key (`issued` for a run of issues).
    pub category: String,
}

/// The timeline of one warp.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpSpans {
    /// The kernel's index in the report's `kernels`.
    pub kernel: usize,
    /// The compute unit it ran on.
    pub cu: u32,
    /// Its warp slot there.
    pub slot: u32,
    /// Its workgroup's flat index.
    pub workgroup: u64,
    /// The warp's index in its workgroup.
    pub warp: u32,
    /// Its spans in time order, from dispatch to end.
    pub spans: Vec<Span>,
}

/// A timing run's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingReport {
    /// The machine modelled.
    pub machine: Machine,
    /// [`Machine::hash`] of it.
    pub machine_hash: String,
    /// Cycles of the launch (kernels combined run one after another: their sum).
    pub cycles: u64,
    /// Warp-instructions issued.
    pub instructions: u64,
    /// Instructions per cycle, whole chip.
    pub ipc: f64,
    /// Achieved occupancy: mean resident warps / (compute units x warp slots).
    pub occupancy: f64,
    /// Cycles of warp slots per stall category; every key of [`Stall::ALL`] is present,
    /// and they sum to cycles x compute units x warp slots.
    pub stalls: BTreeMap<String, u64>,
    /// Each kernel.
    pub kernels: Vec<KernelTiming>,
    /// Each compute unit.
    pub units: Vec<UnitTiming>,
    /// Caches, DRAM and shared memory.
    pub memory: MemoryTiming,
    /// Per instruction, in PC order (those that issued or stalled).
    pub pcs: Vec<PcTiming>,
    /// Per-warp spans, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Vec<WarpSpans>>,
}

/// `a / b`, 0 when `b` is 0.
pub(crate) fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

/// Every stall key at 0.
pub(crate) fn zero_stalls() -> BTreeMap<String, u64> {
    stall_keys().map(|k| (k.to_string(), 0)).collect()
}

impl TimingReport {
    /// An empty report for `machine`: no cycles, every stall key at 0.
    pub fn empty(machine: &Machine) -> TimingReport {
        TimingReport {
            machine: machine.clone(),
            machine_hash: machine.hash(),
            cycles: 0,
            instructions: 0,
            ipc: 0.0,
            occupancy: 0.0,
            stalls: zero_stalls(),
            kernels: Vec::new(),
            units: (0..machine.compute_units)
                .map(|cu| UnitTiming {
                    cu,
                    workgroups: 0,
                    instructions: 0,
                    busy: PerClass::default(),
                    utilisation: PerClass::default(),
                })
                .collect(),
            memory: MemoryTiming::default(),
            pcs: Vec::new(),
            timeline: None,
        }
    }

    /// The report of kernels run one after another on the same machine (the first
    /// report's): cycles, instructions, stalls, unit and memory counts add; rates are
    /// recomputed; per-PC figures add by PC; timelines are shifted by the cycles before
    /// each kernel.
    pub fn combine(reports: Vec<TimingReport>) -> TimingReport {
        let mut it = reports.into_iter();
        let Some(mut out) = it.next() else {
            return TimingReport::empty(&Machine::default());
        };
        // Resident-warp cycles, to recompute the occupancy as a time-weighted mean.
        let slots = out.slot_count();
        let mut resident = out.occupancy * (out.cycles as f64) * slots;
        for r in it {
            let offset = out.cycles;
            let kernel_base = out.kernels.len();
            out.cycles += r.cycles;
            out.instructions += r.instructions;
            resident += r.occupancy * (r.cycles as f64) * slots;
            for (k, v) in r.stalls {
                *out.stalls.entry(k).or_default() += v;
            }
            out.kernels.extend(r.kernels);
            for u in r.units {
                match out.units.iter_mut().find(|o| o.cu == u.cu) {
                    Some(o) => {
                        o.workgroups += u.workgroups;
                        o.instructions += u.instructions;
                        let a = o.busy.to_array();
                        let b = u.busy.to_array();
                        o.busy = PerClass::from_array(std::array::from_fn(|i| a[i] + b[i]));
                    }
                    None => out.units.push(u),
                }
            }
            let m = &mut out.memory;
            m.l1_hits += r.memory.l1_hits;
            m.l1_misses += r.memory.l1_misses;
            m.l2_hits += r.memory.l2_hits;
            m.l2_misses += r.memory.l2_misses;
            m.dram_read_bytes += r.memory.dram_read_bytes;
            m.dram_write_bytes += r.memory.dram_write_bytes;
            m.shared_accesses += r.memory.shared_accesses;
            m.shared_passes += r.memory.shared_passes;
            let mut pcs: BTreeMap<u32, PcTiming> = std::mem::take(&mut out.pcs)
                .into_iter()
                .map(|p| (p.pc, p))
                .collect();
            for p in r.pcs {
                match pcs.get_mut(&p.pc) {
                    Some(o) => {
                        o.issued += p.issued;
                        for (k, v) in p.stalls {
                            *o.stalls.entry(k).or_default() += v;
                        }
                    }
                    None => {
                        pcs.insert(p.pc, p);
                    }
                }
            }
            out.pcs = pcs.into_values().collect();
            if let Some(t) = r.timeline {
                let mine = out.timeline.get_or_insert_with(Vec::new);
                mine.extend(t.into_iter().map(|mut w| {
                    w.kernel += kernel_base;
                    for s in &mut w.spans {
                        s.start += offset;
                        s.end += offset;
                    }
                    w
                }));
            }
        }
        out.occupancy = ratio(resident, out.cycles as f64 * slots);
        out.finish_rates();
        out
    }

    /// Warp slots on the chip.
    fn slot_count(&self) -> f64 {
        f64::from(self.machine.compute_units) * f64::from(self.machine.cu.warp_slots)
    }

    /// Recompute IPC, hit rates and utilisations from the counts.
    pub(crate) fn finish_rates(&mut self) {
        self.ipc = ratio(self.instructions as f64, self.cycles as f64);
        let m = &mut self.memory;
        m.l1_hit_rate = ratio(m.l1_hits as f64, (m.l1_hits + m.l1_misses) as f64);
        m.l2_hit_rate = ratio(m.l2_hits as f64, (m.l2_hits + m.l2_misses) as f64);
        let u = &self.machine.units;
        let counts = [
            u.valu.count,
            u.salu.count,
            u.sfu.count,
            u.mem.count,
            u.branch.count,
        ];
        let cycles = self.cycles as f64;
        for unit in &mut self.units {
            let busy = unit.busy.to_array();
            unit.utilisation = PerClass::from_array(std::array::from_fn(|i| {
                ratio(busy[i] as f64, cycles * f64::from(counts[i]))
            }));
        }
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report for people: the machine and its hash, cycles, IPC, occupancy, the stall
    /// table with shares, per-unit utilisation, cache hit rates and DRAM traffic.
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "machine: {}", self.machine);
        let _ = writeln!(s, "machine hash: {}", self.machine_hash);
        let _ = writeln!(s, "cycles: {}", self.cycles);
        let _ = writeln!(s, "instructions: {}", self.instructions);
        let _ = writeln!(s, "IPC: {:.3}", self.ipc);
        let _ = writeln!(s, "occupancy: {:.1}%", 100.0 * self.occupancy);
        if self.kernels.len() > 1 {
            let _ = writeln!(s, "kernels:");
            for k in &self.kernels {
                let _ = writeln!(
                    s,
                    "  {:<20} {:>12} cycles {:>12} instr  IPC {:>7.3}  occupancy {:>5.1}%",
                    k.name,
                    k.cycles,
                    k.instructions,
                    k.ipc,
                    100.0 * k.occupancy
                );
            }
        }
        let total: u64 = self.stalls.values().sum();
        let _ = writeln!(s, "warp-slot cycles: {total}");
        for key in stall_keys() {
            let v = self.stalls.get(key).copied().unwrap_or(0);
            let _ = writeln!(
                s,
                "  {key:<18} {v:>14} {:>6.1}%",
                100.0 * ratio(v as f64, total as f64)
            );
        }
        let _ = writeln!(
            s,
            "unit utilisation:  {:>6} {:>6} {:>6} {:>6} {:>6}",
            "valu", "salu", "sfu", "mem", "branch"
        );
        for u in &self.units {
            let [a, b, c, d, e] = u.utilisation.to_array();
            let _ = writeln!(
                s,
                "  cu {:<3} {:>5} wg {:>5.1}% {:>5.1}% {:>5.1}% {:>5.1}% {:>5.1}%",
                u.cu,
                u.workgroups,
                100.0 * a,
                100.0 * b,
                100.0 * c,
                100.0 * d,
                100.0 * e
            );
        }
        let m = &self.memory;
        let _ = writeln!(
            s,
            "L1: {} hits, {} misses ({:.1}% hit rate)",
            m.l1_hits,
            m.l1_misses,
            100.0 * m.l1_hit_rate
        );
        let _ = writeln!(
            s,
            "L2: {} hits, {} misses ({:.1}% hit rate)",
            m.l2_hits,
            m.l2_misses,
            100.0 * m.l2_hit_rate
        );
        let _ = writeln!(
            s,
            "DRAM: {} bytes read, {} bytes written",
            m.dram_read_bytes, m.dram_write_bytes
        );
        let _ = writeln!(
            s,
            "shared memory: {} accesses, {} passes",
            m.shared_accesses, m.shared_passes
        );
        s
    }
}
