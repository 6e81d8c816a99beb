//! The merged profile: per instruction, branch, counter and workgroup, shaped from what
//! the profiler collected. The text and JSON writers (`report.rs`) and the HTML page
//! (`html.rs`) read it.

use crate::records::Collected;
use serde::Serialize;
use std::collections::BTreeMap;
use warpkit_asm::{LineTable, Location, SourceTexts};
use warpkit_isa::{Flags, COUNTERS, SUBGROUPS};
use warpkit_sim::{Code, Program, LANES};

/// The version of the JSON profile schema (docs/profiling.md).
pub const PROFILE_SCHEMA_VERSION: u32 = 3;

/// The source lines of a program and the text of its files, for annotating profiles.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// The program's line table (from the assembler or the ELF file's `.debug_line`).
    pub lines: LineTable,
    /// File name and contents, for the files whose text could be read.
    pub texts: Vec<(String, String)>,
}

impl SourceMap {
    /// `lines` with the texts `texts` holds for its files.
    pub fn new(lines: &LineTable, texts: &SourceTexts) -> SourceMap {
        let texts = (0u32..)
            .zip(lines.files())
            .filter_map(|(i, f)| Some((f.clone(), texts.text(i)?.to_string())))
            .collect();
        SourceMap {
            lines: lines.clone(),
            texts,
        }
    }

    /// The line the instruction at `pc` came from.
    pub fn lookup(&self, pc: u32) -> Option<Location<'_>> {
        self.lines.lookup(u64::from(pc))
    }

    /// Line `line` (1-based) of `file`, if its text is known.
    pub fn text(&self, file: &str, line: u32) -> Option<&str> {
        let (_, text) = self.texts.iter().find(|(f, _)| f == file)?;
        text.lines().nth(line.checked_sub(1)? as usize)
    }
}

/// The launch's totals over every instruction and warp (the JSON profile's `totals`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Totals {
    /// Instructions executed by every warp (retired or trapped).
    pub instructions: u64,
    /// Executions that completed (`instructions` less those that trapped).
    pub retired: u64,
    /// Retired vector instructions.
    pub vector_instructions: u64,
    /// Active lanes summed over retired vector instructions.
    pub lane_ops: u64,
    /// `lane_ops / (32 * vector_instructions)`; null without vector instructions.
    pub simd_efficiency: Option<f64>,
    /// RAW/WAW hazards reported over the launch, all of them (docs/semantics-notes.md).
    pub hazards: u64,
    /// Workgroups the launch ran.
    pub workgroups: u64,
    /// Warps over all workgroups.
    pub warps: u64,
}

/// The counts of one instruction of the code (an entry of the JSON profile's
/// `instructions`; zeros if it never executed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstructionProfile {
    /// Byte offset of the instruction from the code's start.
    pub pc: u32,
    /// The instruction disassembled.
    pub asm: String,
    /// The instruction's subgroup in the ISA database (`valu-int`, `mem-global`, ...).
    pub class: &'static str,
    /// The source file it came from; `None` until [`Profile::attach_sources`] names one.
    pub file: Option<String>,
    /// Its line (1-based) in `file`; `None` without source lines.
    pub line: Option<u32>,
    /// Its column (1-based) in `line`; `None` when unknown (only `.loc` gives one).
    pub column: Option<u32>,
    /// Times a warp executed it, trapping executions included.
    pub executed: u64,
    /// Executions that completed.
    pub retired: u64,
    /// A vector instruction (its lanes follow EXEC), as opposed to a uniform one.
    pub vector: bool,
    /// Active lanes (EXEC bits set) summed over its retired executions; 0 for a uniform
    /// instruction.
    pub lane_ops: u64,
    /// `lane_ops / (32 * retired)` of a vector instruction; null otherwise or if it never
    /// retired.
    pub simd_efficiency: Option<f64>,
    /// RAW/WAW hazards reported at it, all of them (docs/semantics-notes.md).
    pub hazards: u64,
    /// With a timing run (`--timing`): the cycles warps spent on this instruction in the
    /// timing model, the cycles they issued it in plus the stall cycles of warps whose next
    /// instruction it was (docs/timing.md); absent from a profile without timing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    /// With a timing run: those stall cycles by category (the non-zero ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stalls: Option<BTreeMap<String, u64>>,
}

/// What a timing run adds to a profile (the JSON profile's `timing`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileTiming {
    /// The machine's name.
    pub machine: String,
    /// Its hash ([`warpkit_timing::Machine::hash`]).
    pub machine_hash: String,
    /// Cycles of the launch.
    pub cycles: u64,
    /// Warp-instructions issued per cycle, whole chip.
    pub ipc: f64,
    /// The instructions' `cycles` summed: warp-slot cycles spent issuing or trying to
    /// issue (the slots' other cycles were `ended` or `no_warp`).
    pub warp_cycles: u64,
}

/// The counts of one branch: an instruction with the `br` flag (an entry of the JSON
/// profile's `branches`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BranchProfile {
    /// Byte offset of the branch from the code's start.
    pub pc: u32,
    /// The branch disassembled.
    pub asm: String,
    /// The source file it came from; `None` until [`Profile::attach_sources`] names one.
    pub file: Option<String>,
    /// Its line (1-based) in `file`; `None` without source lines.
    pub line: Option<u32>,
    /// Its column (1-based) in `line`; `None` when unknown (only `.loc` gives one).
    pub column: Option<u32>,
    /// `bz`, `bnz`, `bexecz`, `bexecnz`... as opposed to `jmp`, `jal`.
    pub conditional: bool,
    /// Times a warp executed it, trapping executions included.
    pub executed: u64,
    /// Retired executions whose next PC was not the following instruction.
    pub taken: u64,
    /// Executions at which EXEC was neither empty nor the warp's launch mask: some of the
    /// warp's lanes were switched off, so the warp runs both sides of the source-level
    /// condition that split it (docs/profiling.md).
    pub diverged: u64,
}

/// The peak use of one waitcnt counter (an entry of the JSON profile's `counters`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CounterProfile {
    /// The counter's name in the ISA database (`vm`, `vst`, `tex`, `ls`, `sm`, `sfu`).
    pub name: &'static str,
    /// The counter's in-flight limit: issuing at it first retires the oldest operation.
    pub max_outstanding: u8,
    /// The most operations one warp had in flight on this counter at once.
    pub peak_in_flight: u32,
}

/// The executions of one instruction class (an entry of the JSON profile's `mix`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MixEntry {
    /// The class: a subgroup id of the ISA database (`valu-int`, ...) or `undecodable`.
    pub class: &'static str,
    /// The class's description, for reports.
    pub title: &'static str,
    /// Executions of the class's instructions, trapping ones included.
    pub executed: u64,
}

/// What one workgroup did (an entry of the JSON profile's `workgroups`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkgroupProfile {
    /// The workgroup's coordinates (x, y, z) in the grid.
    pub id: [u32; 3],
    /// Its warps.
    pub warps: u32,
    /// Instructions executed by its warps (retired or trapped).
    pub instructions: u64,
    /// Active lanes summed over its warps' retired vector instructions.
    pub lane_ops: u64,
    /// The most barriers one of its warps reached.
    pub barriers: u32,
    /// `barrier` instructions executed, summed over its warps.
    pub barrier_instructions: u64,
}

/// A whole launch's profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    /// Always `warpkit-profile`: names the JSON document's format.
    pub schema: &'static str,
    /// The schema's version, [`PROFILE_SCHEMA_VERSION`].
    pub version: u32,
    /// The launch's totals.
    pub totals: Totals,
    /// Every instruction of the code, in address order.
    pub instructions: Vec<InstructionProfile>,
    /// Every branch of the code, in address order.
    pub branches: Vec<BranchProfile>,
    /// Every waitcnt counter, in the ISA database's order.
    pub counters: Vec<CounterProfile>,
    /// Executions by instruction class, most executed first.
    pub mix: Vec<MixEntry>,
    /// Retired vector instructions by number of active lanes: entry k counts those with k
    /// lanes active (k = 0..=32).
    pub active_lanes: Vec<u64>,
    /// Every workgroup the launch ran, in flat order.
    pub workgroups: Vec<WorkgroupProfile>,
    /// With a timing run (`--timing`): its summary; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<ProfileTiming>,
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

impl Profile {
    pub(crate) fn new(program: &Program, p: &Collected) -> Profile {
        let mut instructions = Vec::new();
        let mut branches = Vec::new();
        let mut mix = vec![0u64; SUBGROUPS.len()];
        let mut other = 0u64;
        let mut pc = 0u32;
        while (pc as usize) < program.text().len() {
            let c = p.insts.get((pc / 4) as usize).copied().unwrap_or_default();
            let inst = program.fetch(pc);
            let (class, len, vector, op) = match inst.map(|i| i.code) {
                Some(Code::Op(op)) => {
                    let def = op.def();
                    mix[usize::from(def.subgroup)] += c.executed;
                    let len = inst.map_or(4, |i| u32::from(i.len).max(4));
                    (
                        SUBGROUPS[usize::from(def.subgroup)].id,
                        len,
                        inst.is_some_and(|i| i.vector),
                        Some(op),
                    )
                }
                _ => {
                    other += c.executed;
                    ("undecodable", 4, false, None)
                }
            };
            let asm = program.disassemble(pc);
            if let Some(op) = op {
                let flags = op.def().flags;
                if flags.contains(Flags::BR) {
                    branches.push(BranchProfile {
                        pc,
                        asm: asm.clone(),
                        file: None,
                        line: None,
                        column: None,
                        conditional: flags.contains(Flags::CD),
                        executed: c.executed,
                        taken: c.taken,
                        diverged: c.diverged,
                    });
                }
            }
            instructions.push(InstructionProfile {
                pc,
                asm,
                class,
                file: None,
                line: None,
                column: None,
                executed: c.executed,
                retired: c.retired,
                vector,
                lane_ops: c.lane_ops,
                simd_efficiency: if vector {
                    ratio(c.lane_ops, c.retired * LANES as u64)
                } else {
                    None
                },
                hazards: c.hazards,
                cycles: None,
                stalls: None,
            });
            pc += len;
        }
        let mut mix: Vec<MixEntry> = SUBGROUPS
            .iter()
            .zip(mix)
            .filter(|(_, n)| *n > 0)
            .map(|(s, executed)| MixEntry {
                class: s.id,
                title: s.title,
                executed,
            })
            .collect();
        if other > 0 {
            mix.push(MixEntry {
                class: "undecodable",
                title: "words that do not decode (they trap)",
                executed: other,
            });
        }
        mix.sort_by(|a, b| b.executed.cmp(&a.executed).then(a.class.cmp(b.class)));
        let sum = |f: fn(&InstructionProfile) -> u64| instructions.iter().map(f).sum::<u64>();
        let vector_instructions = instructions
            .iter()
            .filter(|i| i.vector)
            .map(|i| i.retired)
            .sum::<u64>();
        let lane_ops = sum(|i| i.lane_ops);
        let totals = Totals {
            instructions: sum(|i| i.executed),
            retired: sum(|i| i.retired),
            vector_instructions,
            lane_ops,
            simd_efficiency: ratio(lane_ops, vector_instructions * LANES as u64),
            hazards: sum(|i| i.hazards),
            workgroups: p.workgroups.len() as u64,
            warps: p.workgroups.iter().map(|w| u64::from(w.warps)).sum(),
        };
        Profile {
            schema: "warpkit-profile",
            version: PROFILE_SCHEMA_VERSION,
            totals,
            instructions,
            branches,
            counters: COUNTERS
                .iter()
                .zip(p.peaks)
                .map(|(c, peak)| CounterProfile {
                    name: c.name,
                    max_outstanding: c.max_outstanding,
                    peak_in_flight: peak,
                })
                .collect(),
            mix,
            active_lanes: p.lanes.to_vec(),
            workgroups: p
                .workgroups
                .iter()
                .map(|w| WorkgroupProfile {
                    id: w.id,
                    warps: w.warps,
                    instructions: w.instructions,
                    lane_ops: w.lane_ops,
                    barriers: w.barriers,
                    barrier_instructions: w.barrier_instructions,
                })
                .collect(),
            timing: None,
        }
    }

    /// Add the cycles column from a timing run of the same launch: each instruction's
    /// issue and stall cycles ([`warpkit_timing::PcTiming`]), and the run's summary.
    pub fn attach_timing(&mut self, report: &warpkit_timing::TimingReport) {
        let by_pc: BTreeMap<u32, &warpkit_timing::PcTiming> =
            report.pcs.iter().map(|p| (p.pc, p)).collect();
        let mut warp_cycles = 0;
        for i in &mut self.instructions {
            let (cycles, stalls) = match by_pc.get(&i.pc) {
                Some(p) => (
                    p.cycles(),
                    p.stalls
                        .iter()
                        .filter(|(_, &n)| n > 0)
                        .map(|(k, &n)| (k.clone(), n))
                        .collect(),
                ),
                None => (0, BTreeMap::new()),
            };
            warp_cycles += cycles;
            i.cycles = Some(cycles);
            i.stalls = Some(stalls);
        }
        self.timing = Some(ProfileTiming {
            machine: report.machine.name.clone(),
            machine_hash: report.machine_hash.clone(),
            cycles: report.cycles,
            ipc: report.ipc,
            warp_cycles,
        });
    }

    /// Name the source line of every instruction and branch.
    pub fn attach_sources(&mut self, sources: &SourceMap) {
        for i in &mut self.instructions {
            if let Some(l) = sources.lookup(i.pc) {
                i.file = Some(l.file.to_string());
                i.line = Some(l.line);
                i.column = (l.column != 0).then_some(l.column);
            }
        }
        for b in &mut self.branches {
            if let Some(l) = sources.lookup(b.pc) {
                b.file = Some(l.file.to_string());
                b.line = Some(l.line);
                b.column = (l.column != 0).then_some(l.column);
            }
        }
    }
}
