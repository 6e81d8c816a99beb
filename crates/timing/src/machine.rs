//! The machine a timing run models: a TOML description (`machines/default.toml` holds the
//! defaults, `docs/timing.md` documents every field with its unit), read with a clear error
//! for a bad file, checked for consistency, and named by a hash printed into every report.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The text of `machines/default.toml`: the defaults of every field.
pub const DEFAULT_TOML: &str = include_str!("../../../machines/default.toml");

/// A machine: compute units, their warp slots, schedulers and functional units, the memory
/// hierarchy and the dispatcher. Every field has a default (the values of
/// `machines/default.toml`), so a machine file names only what it changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Machine {
    /// A name for reports.
    pub name: String,
    /// Compute units on the chip.
    pub compute_units: u32,
    /// One compute unit: warp slots, occupancy limits and issue.
    pub cu: ComputeUnit,
    /// The functional units of each instruction class, per compute unit.
    pub units: Units,
    /// Latency overrides by mnemonic (`"mul.vv" = 6`), in cycles; an instruction not named
    /// here takes its class's `latency` if set, else its ISA database latency.
    pub latency: BTreeMap<String, u32>,
    /// Shared memory (the `ds` instructions).
    pub shared: SharedMemory,
    /// The level-1 cache of each compute unit.
    #[serde(deserialize_with = "l1_cache")]
    pub l1: Cache,
    /// The level-2 cache, shared by every compute unit.
    #[serde(deserialize_with = "l2_cache")]
    pub l2: Cache,
    /// Off-chip memory.
    pub dram: Dram,
    /// How workgroups are assigned to compute units.
    pub dispatch: Dispatch,
}

/// One compute unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ComputeUnit {
    /// Warps resident at once (warp slots).
    pub warp_slots: u32,
    /// Vector registers (each 32 lanes of 32 bits) shared by the resident warps. A warp holds
    /// its program's highest vector register + 1, rounded up to `vreg_granule`.
    pub vregs: u32,
    /// The allocation granule of vector registers per warp.
    pub vreg_granule: u32,
    /// Bytes of shared memory shared by the resident workgroups (each holds the launch's
    /// `shared_bytes`).
    pub shared_bytes: u32,
    /// Workgroups resident at once.
    pub max_workgroups: u32,
    /// Warp schedulers; warp slot `s` belongs to scheduler `s % schedulers`.
    pub schedulers: u32,
    /// Instructions each scheduler issues per cycle, from distinct warps.
    pub issue_width: u32,
    /// How a scheduler picks among its ready warps.
    pub policy: Policy,
}

/// A warp scheduler's policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Policy {
    /// Loose round-robin: the ready warp after the one that issued last.
    #[serde(rename = "lrr")]
    LooseRoundRobin,
    /// Greedy-then-oldest: the warp that issued last while it stays ready, else the oldest
    /// ready warp.
    #[serde(rename = "gto")]
    GreedyThenOldest,
}

/// The functional units of one compute unit, by instruction class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Units {
    /// Vector ALU: integer, float, compare and conversion instructions on `v` registers.
    #[serde(deserialize_with = "valu_unit")]
    pub valu: Unit,
    /// Scalar (uniform) ALU, EXEC, CSR and system instructions.
    #[serde(deserialize_with = "salu_unit")]
    pub salu: Unit,
    /// Special function unit: the `async:sfu` instructions (division, square root,
    /// transcendentals).
    #[serde(deserialize_with = "sfu_unit")]
    pub sfu: Unit,
    /// Memory: global, shared and uniform loads, stores and atomics.
    #[serde(deserialize_with = "mem_unit")]
    pub mem: Unit,
    /// Branches and jumps.
    #[serde(deserialize_with = "branch_unit")]
    pub branch: Unit,
}

/// A class of functional units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    /// Units of this class per compute unit.
    pub count: u32,
    /// Cycles a unit is busy with one warp-instruction before it accepts the next (1: fully
    /// pipelined).
    pub interval: u32,
    /// Cycles from issue until the result can be used, for every instruction of the class;
    /// `None` keeps each instruction's ISA database latency. The `sfu` class has no
    /// database latency (its instructions are `async:sfu`) and uses this one.
    pub latency: Option<u32>,
}

/// Shared memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SharedMemory {
    /// Banks.
    pub banks: u32,
    /// Bytes per bank word: consecutive words go to consecutive banks.
    pub bank_bytes: u32,
    /// Cycles from issue to completion of a conflict-free access; each further pass a bank
    /// conflict forces adds one cycle.
    pub latency: u32,
}

/// A cache level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    /// Capacity in bytes.
    pub size_bytes: u32,
    /// Line size in bytes (the L1's and the L2's must be equal); a warp's accesses are
    /// coalesced into lines of this size.
    pub line_bytes: u32,
    /// Associativity (ways per set); sets = size / (line * ways).
    pub ways: u32,
    /// Load-to-use cycles of an access that hits at this level (for the L2: an L1 miss that
    /// hits the L2).
    pub hit_latency: u32,
    /// Misses in flight at once (for the L1: per compute unit).
    pub mshrs: u32,
}

/// Off-chip memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Dram {
    /// Load-to-use cycles of an access that misses the L2, on an idle channel.
    pub latency: u32,
    /// Bytes transferred per cycle (lines are served one after another at this rate).
    pub bytes_per_cycle: f64,
}

/// The dispatcher.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Dispatch {
    /// How the next workgroup (in flat order) picks a compute unit.
    pub policy: DispatchPolicy,
}

/// How the dispatcher places workgroups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DispatchPolicy {
    /// The first compute unit with room after the one that got the previous workgroup.
    #[serde(rename = "round-robin")]
    RoundRobin,
    /// The lowest-numbered compute unit with room.
    #[serde(rename = "fill")]
    Fill,
}

impl Default for Machine {
    fn default() -> Machine {
        Machine {
            name: "default".into(),
            compute_units: 8,
            cu: ComputeUnit::default(),
            units: Units::default(),
            latency: BTreeMap::new(),
            shared: SharedMemory::default(),
            l1: Cache {
                size_bytes: 16 * 1024,
                line_bytes: 128,
                ways: 4,
                hit_latency: 28,
                mshrs: 32,
            },
            l2: Cache {
                size_bytes: 1024 * 1024,
                line_bytes: 128,
                ways: 16,
                hit_latency: 120,
                mshrs: 128,
            },
            dram: Dram::default(),
            dispatch: Dispatch::default(),
        }
    }
}

impl Default for ComputeUnit {
    fn default() -> ComputeUnit {
        ComputeUnit {
            warp_slots: 32,
            vregs: 2048,
            vreg_granule: 8,
            shared_bytes: 64 * 1024,
            max_workgroups: 16,
            schedulers: 4,
            issue_width: 1,
            policy: Policy::LooseRoundRobin,
        }
    }
}

impl Default for Units {
    fn default() -> Units {
        Units {
            valu: Unit {
                count: 4,
                interval: 1,
                latency: None,
            },
            salu: Unit {
                count: 1,
                interval: 1,
                latency: None,
            },
            sfu: Unit {
                count: 1,
                interval: 4,
                latency: Some(20),
            },
            mem: Unit {
                count: 1,
                interval: 1,
                latency: None,
            },
            branch: Unit {
                count: 1,
                interval: 1,
                latency: None,
            },
        }
    }
}

impl Default for SharedMemory {
    fn default() -> SharedMemory {
        SharedMemory {
            banks: 32,
            bank_bytes: 4,
            latency: 24,
        }
    }
}

impl Default for Dram {
    fn default() -> Dram {
        Dram {
            latency: 400,
            bytes_per_cycle: 32.0,
        }
    }
}

impl Default for Dispatch {
    fn default() -> Dispatch {
        Dispatch {
            policy: DispatchPolicy::RoundRobin,
        }
    }
}

// A table a file gives in part keeps the defaults of its own level or class for the rest
// (the L2's, the SFU's), which a derived `Default` of the shared type could not know.

/// The fields of a [`Unit`] table as a file gives them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitFields {
    count: Option<u32>,
    interval: Option<u32>,
    latency: Option<u32>,
}

/// The fields of a [`Cache`] table as a file gives them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CacheFields {
    size_bytes: Option<u32>,
    line_bytes: Option<u32>,
    ways: Option<u32>,
    hit_latency: Option<u32>,
    mshrs: Option<u32>,
}

fn unit_over<'de, D: serde::Deserializer<'de>>(d: D, base: Unit) -> Result<Unit, D::Error> {
    let f = UnitFields::deserialize(d)?;
    Ok(Unit {
        count: f.count.unwrap_or(base.count),
        interval: f.interval.unwrap_or(base.interval),
        latency: f.latency.or(base.latency),
    })
}

fn cache_over<'de, D: serde::Deserializer<'de>>(d: D, base: Cache) -> Result<Cache, D::Error> {
    let f = CacheFields::deserialize(d)?;
    Ok(Cache {
        size_bytes: f.size_bytes.unwrap_or(base.size_bytes),
        line_bytes: f.line_bytes.unwrap_or(base.line_bytes),
        ways: f.ways.unwrap_or(base.ways),
        hit_latency: f.hit_latency.unwrap_or(base.hit_latency),
        mshrs: f.mshrs.unwrap_or(base.mshrs),
    })
}

fn valu_unit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Unit, D::Error> {
    unit_over(d, Units::default().valu)
}
fn salu_unit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Unit, D::Error> {
    unit_over(d, Units::default().salu)
}
fn sfu_unit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Unit, D::Error> {
    unit_over(d, Units::default().sfu)
}
fn mem_unit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Unit, D::Error> {
    unit_over(d, Units::default().mem)
}
fn branch_unit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Unit, D::Error> {
    unit_over(d, Units::default().branch)
}
fn l1_cache<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Cache, D::Error> {
    cache_over(d, Machine::default().l1)
}
fn l2_cache<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Cache, D::Error> {
    cache_over(d, Machine::default().l2)
}

/// Why a machine file was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    /// The file is not valid TOML for a machine (a syntax error, an unknown field, a value
    /// of the wrong type); `line` and `column` count from 1.
    #[error("{line}:{column}: {message}")]
    Parse {
        /// Line of the error.
        line: usize,
        /// Column of the error.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The values are inconsistent (a zero count, a size that is not a power of two, ...).
    #[error("{field}: {message}")]
    Invalid {
        /// The field, as the file spells it (`l1.line_bytes`).
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
}

impl Machine {
    /// Read a machine from TOML text, then [`Machine::validate`] it.
    pub fn from_toml(text: &str) -> Result<Machine, MachineError> {
        let machine: Machine = toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| line_column(text, s.start))
                .unwrap_or((1, 1));
            MachineError::Parse {
                line,
                column,
                message: e.message().to_string(),
            }
        })?;
        machine.validate()?;
        Ok(machine)
    }

    /// The machine as TOML: every field, so the text names the machine completely.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// A stable name for this machine: 16 hex digits of the FNV-1a hash of its complete
    /// TOML form ([`Machine::to_toml`]), so two files that differ only in comments, order or
    /// defaults left out name the same machine.
    pub fn hash(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.to_toml().bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }

    /// Check that the values describe a machine the model can run.
    pub fn validate(&self) -> Result<(), MachineError> {
        fn positive(field: &'static str, v: u32) -> Result<(), MachineError> {
            if v == 0 {
                return Err(MachineError::Invalid {
                    field,
                    message: "must be at least 1".into(),
                });
            }
            Ok(())
        }
        fn power_of_two(field: &'static str, v: u32) -> Result<(), MachineError> {
            if !v.is_power_of_two() {
                return Err(MachineError::Invalid {
                    field,
                    message: format!("{v} is not a power of two"),
                });
            }
            Ok(())
        }
        positive("compute_units", self.compute_units)?;
        let cu = &self.cu;
        positive("cu.warp_slots", cu.warp_slots)?;
        positive("cu.vregs", cu.vregs)?;
        positive("cu.vreg_granule", cu.vreg_granule)?;
        positive("cu.max_workgroups", cu.max_workgroups)?;
        positive("cu.schedulers", cu.schedulers)?;
        positive("cu.issue_width", cu.issue_width)?;
        if cu.warp_slots.div_ceil(cu.schedulers) > 128 {
            return Err(MachineError::Invalid {
                field: "cu.warp_slots",
                message: "at most 128 warp slots per scheduler".into(),
            });
        }
        for (field, u) in [
            ("units.valu", &self.units.valu),
            ("units.salu", &self.units.salu),
            ("units.sfu", &self.units.sfu),
            ("units.mem", &self.units.mem),
            ("units.branch", &self.units.branch),
        ] {
            if u.count == 0 || u.interval == 0 {
                return Err(MachineError::Invalid {
                    field,
                    message: "count and interval must be at least 1".into(),
                });
            }
        }
        if self.units.sfu.latency.is_none() {
            return Err(MachineError::Invalid {
                field: "units.sfu.latency",
                message: "the sfu class needs a latency (its instructions are async:sfu)".into(),
            });
        }
        positive("shared.banks", self.shared.banks)?;
        power_of_two("shared.bank_bytes", self.shared.bank_bytes)?;
        for (name, c) in [("l1", &self.l1), ("l2", &self.l2)] {
            let f = |s: &'static str| -> &'static str {
                match (name, s) {
                    ("l1", "size") => "l1.size_bytes",
                    ("l1", "line") => "l1.line_bytes",
                    ("l1", "ways") => "l1.ways",
                    ("l1", _) => "l1.mshrs",
                    (_, "size") => "l2.size_bytes",
                    (_, "line") => "l2.line_bytes",
                    (_, "ways") => "l2.ways",
                    _ => "l2.mshrs",
                }
            };
            power_of_two(f("line"), c.line_bytes)?;
            if c.line_bytes < 4 {
                return Err(MachineError::Invalid {
                    field: f("line"),
                    message: "must be at least 4".into(),
                });
            }
            positive(f("ways"), c.ways)?;
            positive(f("mshrs"), c.mshrs)?;
            let set_bytes = u64::from(c.line_bytes) * u64::from(c.ways);
            if u64::from(c.size_bytes) < set_bytes || u64::from(c.size_bytes) % set_bytes != 0 {
                return Err(MachineError::Invalid {
                    field: f("size"),
                    message: format!(
                        "{} is not a positive multiple of line_bytes x ways ({set_bytes})",
                        c.size_bytes
                    ),
                });
            }
            power_of_two(f("size"), c.size_bytes / (c.line_bytes * c.ways))?;
        }
        if self.l1.line_bytes != self.l2.line_bytes {
            return Err(MachineError::Invalid {
                field: "l2.line_bytes",
                message: format!("must equal l1.line_bytes ({})", self.l1.line_bytes),
            });
        }
        if !(self.l1.hit_latency <= self.l2.hit_latency && self.l2.hit_latency <= self.dram.latency)
        {
            return Err(MachineError::Invalid {
                field: "l2.hit_latency",
                message: "latencies must not decrease from l1 to l2 to dram".into(),
            });
        }
        if !(self.dram.bytes_per_cycle.is_finite() && self.dram.bytes_per_cycle > 0.0) {
            return Err(MachineError::Invalid {
                field: "dram.bytes_per_cycle",
                message: "must be a positive number".into(),
            });
        }
        Ok(())
    }
}

impl fmt::Display for Machine {
    /// One line: name, hash and the main figures.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {} CUs x {} warp slots, {} schedulers, L1 {} KiB, L2 {} KiB, DRAM {} B/cycle",
            self.name,
            self.hash(),
            self.compute_units,
            self.cu.warp_slots,
            self.cu.schedulers,
            self.l1.size_bytes / 1024,
            self.l2.size_bytes / 1024,
            self.dram.bytes_per_cycle
        )
    }
}

/// Line and column (from 1) of byte offset `at` in `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_file_is_the_default_machine() {
        assert_eq!(
            Machine::from_toml(DEFAULT_TOML).unwrap(),
            Machine::default()
        );
    }

    #[test]
    fn hash_ignores_layout_and_defaults() {
        let a = Machine::from_toml("compute_units = 8\n").unwrap();
        let b = Machine::from_toml("# same\n[cu]\nwarp_slots = 32\n").unwrap();
        assert_eq!(a.hash(), b.hash());
        let c = Machine::from_toml("compute_units = 4\n").unwrap();
        assert_ne!(a.hash(), c.hash());
    }

    #[test]
    fn a_partial_table_keeps_its_own_defaults() {
        let m = Machine::from_toml("[l2]\nways = 8\n[units.sfu]\ncount = 2\n").unwrap();
        assert_eq!(m.l2.size_bytes, Machine::default().l2.size_bytes);
        assert_eq!(m.l2.ways, 8);
        assert_eq!(m.units.sfu.latency, Some(20));
        assert_eq!(m.units.sfu.interval, 4);
        assert_eq!(m.units.sfu.count, 2);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = Machine::from_toml("name = \"x\"\n[cu]\nwarp_slotz = 3\n").unwrap_err();
        match e {
            MachineError::Parse { line, .. } => assert_eq!(line, 3),
            other => panic!("{other}"),
        }
        let e = Machine::from_toml("[l1]\nline_bytes = 96\n").unwrap_err();
        assert!(e.to_string().starts_with("l1.line_bytes"), "{e}");
    }
}
