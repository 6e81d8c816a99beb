//! What the model needs to know of each instruction of a program, computed once per
//! program and machine: its class (the functional units it uses), its latency, the
//! registers it waits for and writes, and what kind of memory access it makes.

use warpkit_isa::{Latency, MemoryAccess, COUNTERS};
use warpkit_sim::{Code, Program};

use crate::machine::{Machine, Unit};

/// A functional-unit class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Class {
    /// Vector ALU.
    Valu = 0,
    /// Scalar ALU (and everything else without a vector register).
    Salu = 1,
    /// Special function unit (`async:sfu`).
    Sfu = 2,
    /// Memory.
    Mem = 3,
    /// Branches.
    Branch = 4,
}

/// Classes, in report order.
pub(crate) const CLASSES: usize = 5;

/// The counters of §2.6.
pub(crate) const NUM_COUNTERS: usize = warpkit_sim::NUM_COUNTERS;

/// Index of the `sfu` counter in `warpkit_isa::COUNTERS`.
pub(crate) const SFU_COUNTER: u8 = 5;

/// What an instruction does beyond computing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Nothing special: a fixed-latency instruction, or an `async:sfu` one.
    Plain,
    /// `waitcnt`, with its index into [`Table::waits`].
    Waitcnt(u32),
    /// `barrier`.
    Barrier,
    /// `endpgm`.
    Endpgm,
    /// A global (or uniform) load: its lines are recorded.
    Load,
    /// A global store: its lines are recorded.
    Store,
    /// A global atomic: its lines are recorded.
    Atomic,
    /// A shared-memory access: its bank passes are recorded.
    Shared,
    /// Cache control: no lines.
    Cache,
}

impl Kind {
    /// Whether the recorder keeps one extra word (lines or passes) for the instruction.
    pub(crate) fn has_word(self) -> bool {
        matches!(self, Kind::Load | Kind::Store | Kind::Atomic | Kind::Shared)
    }
}

/// One instruction slot (4 bytes of code).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PcInfo {
    /// Its class.
    pub class: Class,
    /// What it does beyond computing.
    pub kind: Kind,
    /// The counter of an asynchronous instruction (an index into `COUNTERS`), else `NONE`.
    pub counter: u8,
    /// Cycles until its written registers are ready (fixed latency; for `async:sfu`, its
    /// completion).
    pub latency: u32,
    /// Registers it reads or writes, as a range of [`Table::regs`].
    pub regs: (u32, u8),
    /// Registers it writes, as a range of [`Table::regs`].
    pub writes: (u32, u8),
    /// Its encoded length in bytes (4 where there is no instruction): the PC after it when
    /// it does not jump.
    pub len: u8,
}

/// No counter: a fixed-latency instruction.
pub(crate) const NONE: u8 = u8::MAX;

/// A PC outside the code (a fetch that traps): one scalar cycle, no registers.
const OUTSIDE: PcInfo = PcInfo {
    class: Class::Salu,
    kind: Kind::Plain,
    counter: NONE,
    latency: 1,
    regs: (0, 0),
    writes: (0, 0),
    len: 4,
};

/// The per-instruction table of a program on a machine.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    /// By `pc / 4`.
    pub pcs: Vec<PcInfo>,
    /// Register numbers: `v<r>` is r, `u<r>` is 128 + r.
    pub regs: Vec<u8>,
    /// The thresholds of each `waitcnt` (`u32::MAX`: no wait).
    pub waits: Vec<[u32; NUM_COUNTERS]>,
    /// Vector registers a warp holds (before the granule is applied): the highest read or
    /// written by the program, plus one.
    pub vregs: u32,
}

/// Registers in a scoreboard: 128 vector then 64 uniform.
pub(crate) const NUM_REGS: usize = 192;

fn bits128(mut m: u128, add: u8, out: &mut Vec<u8>) {
    while m != 0 {
        out.push(m.trailing_zeros() as u8 + add);
        m &= m - 1;
    }
}

/// The unit of `class` on `machine`.
pub(crate) fn unit(machine: &Machine, class: Class) -> &Unit {
    let u = &machine.units;
    match class {
        Class::Valu => &u.valu,
        Class::Salu => &u.salu,
        Class::Sfu => &u.sfu,
        Class::Mem => &u.mem,
        Class::Branch => &u.branch,
    }
}

impl Table {
    /// Classify every instruction of `program` for `machine`.
    pub(crate) fn new(program: &Program, machine: &Machine) -> Table {
        let slots = program.text().len().div_ceil(4);
        let mut t = Table {
            pcs: Vec::with_capacity(slots),
            regs: Vec::new(),
            waits: Vec::new(),
            vregs: 0,
        };
        let mut vused: u128 = 0;
        for k in 0..slots {
            let pc = (k * 4) as u32;
            let uses = program.uses(pc).copied().unwrap_or_default();
            vused |= uses.vread | uses.vwrite;
            let start = t.regs.len() as u32;
            bits128(uses.vread | uses.vwrite, 0, &mut t.regs);
            bits128(u128::from(uses.uread | uses.uwrite), 128, &mut t.regs);
            let regs = (start, (t.regs.len() as u32 - start) as u8);
            let wstart = t.regs.len() as u32;
            bits128(uses.vwrite, 0, &mut t.regs);
            bits128(u128::from(uses.uwrite), 128, &mut t.regs);
            let writes = (wstart, (t.regs.len() as u32 - wstart) as u8);
            let inst = program.fetch(pc);
            let len = inst.map_or(4, |inst| inst.len);
            let op = match inst {
                Some(inst) => match inst.code {
                    Code::Op(op) => Some(op),
                    Code::Illegal => None,
                },
                None => None,
            };
            let Some(op) = op else {
                // Executed only to trap: one scalar cycle.
                t.pcs.push(PcInfo {
                    regs,
                    writes,
                    len,
                    ..OUTSIDE
                });
                continue;
            };
            let def = op.def();
            let subgroup = warpkit_isa::SUBGROUPS
                .get(usize::from(def.subgroup))
                .map_or("", |s| s.id);
            let counter = match def.latency {
                Latency::Async(c) => c,
                Latency::Fixed(_) => NONE,
            };
            let class = if counter == SFU_COUNTER {
                Class::Sfu
            } else if def.memory.is_some() {
                Class::Mem
            } else if subgroup == "branch" {
                Class::Branch
            } else if uses.vread | uses.vwrite != 0 {
                Class::Valu
            } else {
                Class::Salu
            };
            let kind = match (def.mnemonic, def.memory) {
                ("waitcnt", _) => {
                    t.waits.push(
                        program
                            .waitcnt_thresholds(pc)
                            .copied()
                            .unwrap_or([u32::MAX; NUM_COUNTERS]),
                    );
                    Kind::Waitcnt(t.waits.len() as u32 - 1)
                }
                ("barrier", _) => Kind::Barrier,
                ("endpgm", _) => Kind::Endpgm,
                (_, Some(m)) => match (m.access, m.address) {
                    (_, warpkit_isa::Addressing::Shared) => Kind::Shared,
                    (MemoryAccess::Load, _) => Kind::Load,
                    (MemoryAccess::Store, _) => Kind::Store,
                    (MemoryAccess::Atomic, _) => Kind::Atomic,
                    (MemoryAccess::Invalidate | MemoryAccess::Writeback, _) => Kind::Cache,
                },
                _ => Kind::Plain,
            };
            // A mnemonic's own latency wins over its class's, which wins over the
            // database's; only fixed-latency and SFU instructions have one.
            let class_latency = unit(machine, class).latency;
            let latency = match (machine.latency.get(def.mnemonic), def.latency) {
                (Some(&l), _) => l,
                (None, Latency::Fixed(n)) => class_latency.unwrap_or(u32::from(n)),
                (None, Latency::Async(_)) => class_latency.unwrap_or(1),
            };
            t.pcs.push(PcInfo {
                class,
                kind,
                counter,
                latency,
                regs,
                writes,
                len,
            });
        }
        t.vregs = if program.vregs_written() == u128::MAX {
            128
        } else {
            128 - vused.leading_zeros()
        };
        t
    }

    /// The entry of the instruction at `pc`.
    #[inline(always)]
    pub(crate) fn at(&self, pc: u32) -> &PcInfo {
        self.pcs.get((pc >> 2) as usize).unwrap_or(&OUTSIDE)
    }

    /// The register numbers of a range.
    #[inline(always)]
    pub(crate) fn list(&self, (start, len): (u32, u8)) -> &[u8] {
        &self.regs[start as usize..start as usize + usize::from(len)]
    }
}

/// The in-flight limit of each counter.
pub(crate) fn max_outstanding() -> [u32; NUM_COUNTERS] {
    std::array::from_fn(|c| {
        COUNTERS
            .get(c)
            .map_or(u32::MAX, |d| u32::from(d.max_outstanding))
    })
}

/// Whether each counter's operations complete in issue order.
pub(crate) fn in_order() -> [bool; NUM_COUNTERS] {
    std::array::from_fn(|c| COUNTERS.get(c).is_none_or(|d| d.in_order))
}
