//! The merged profile and its JSON and text forms.

use crate::profiler::Profiler;
use serde::Serialize;
use std::fmt::Write as _;
use warpkit_asm::{LineTable, Location, SourceTexts};
use warpkit_isa::{Flags, COUNTERS, SUBGROUPS};
use warpkit_sim::{Code, Program, LANES};

/// The version of the JSON profile schema (docs/profiling.md).
pub const PROFILE_SCHEMA_VERSION: u32 = 1;

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

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Totals {
    /// Instructions executed by every warp (retired or trapped).
    pub instructions: u64,
    pub retired: u64,
    /// Retired vector instructions.
    pub vector_instructions: u64,
    /// Active lanes summed over retired vector instructions.
    pub lane_ops: u64,
    /// `lane_ops / (32 * vector_instructions)`; null without vector instructions.
    pub simd_efficiency: Option<f64>,
    pub hazards: u64,
    pub workgroups: u64,
    pub warps: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstructionProfile {
    pub pc: u32,
    pub asm: String,
    /// The instruction's subgroup in the ISA database (`valu-int`, `mem-global`, ...).
    pub class: &'static str,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub executed: u64,
    pub retired: u64,
    pub vector: bool,
    pub lane_ops: u64,
    /// `lane_ops / (32 * retired)` of a vector instruction; null otherwise or if it never
    /// retired.
    pub simd_efficiency: Option<f64>,
    pub hazards: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BranchProfile {
    pub pc: u32,
    pub asm: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// `bz`, `bnz`, `bexecz`, `bexecnz`... as opposed to `jmp`, `jal`.
    pub conditional: bool,
    pub executed: u64,
    pub taken: u64,
    /// Executions at which EXEC was neither empty nor the warp's launch mask: some of the
    /// warp's lanes were switched off, so the warp runs both sides of the source-level
    /// condition that split it (docs/profiling.md).
    pub diverged: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CounterProfile {
    pub name: &'static str,
    pub max_outstanding: u8,
    /// The most operations one warp had in flight on this counter at once.
    pub peak_in_flight: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MixEntry {
    pub class: &'static str,
    pub title: &'static str,
    pub executed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkgroupProfile {
    pub id: [u32; 3],
    pub warps: u32,
    pub instructions: u64,
    pub lane_ops: u64,
    /// The most barriers one of its warps reached.
    pub barriers: u32,
    /// `barrier` instructions executed, summed over its warps.
    pub barrier_instructions: u64,
}

/// A whole launch's profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    pub schema: &'static str,
    pub version: u32,
    pub totals: Totals,
    /// Every instruction of the code, in address order.
    pub instructions: Vec<InstructionProfile>,
    pub branches: Vec<BranchProfile>,
    pub counters: Vec<CounterProfile>,
    /// Executions by instruction class, most executed first.
    pub mix: Vec<MixEntry>,
    /// Retired vector instructions by number of active lanes: entry k counts those with k
    /// lanes active (k = 0..=32).
    pub active_lanes: Vec<u64>,
    pub workgroups: Vec<WorkgroupProfile>,
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

impl Profile {
    pub(crate) fn new(program: &Program, p: &Profiler) -> Profile {
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
        }
    }

    /// Name the source line of every instruction and branch.
    pub fn attach_sources(&mut self, sources: &SourceMap) {
        for i in &mut self.instructions {
            if let Some(l) = sources.lookup(i.pc) {
                i.file = Some(l.file.to_string());
                i.line = Some(l.line);
            }
        }
        for b in &mut self.branches {
            if let Some(l) = sources.lookup(b.pc) {
                b.file = Some(l.file.to_string());
                b.line = Some(l.line);
            }
        }
    }

    /// The profile as one JSON document (docs/profiling.md).
    pub fn to_json(&self) -> String {
        // Serialising plain structs of numbers and strings cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The text report: totals, then the annotated disassembly hottest first (like `perf
    /// annotate`), then branches, counters and workgroups.
    pub fn to_text(&self) -> String {
        let t = &self.totals;
        let mut s = String::new();
        let pct = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{:.1}%", x * 100.0));
        let _ = writeln!(
            s,
            "profile: {} instructions executed ({} retired) by {} warps in {} workgroups; \
             {} lane-operations, SIMD efficiency {} over {} vector instructions; {} hazards",
            t.instructions,
            t.retired,
            t.warps,
            t.workgroups,
            t.lane_ops,
            pct(t.simd_efficiency),
            t.vector_instructions,
            t.hazards
        );
        let _ = writeln!(
            s,
            "\n{:>10} {:>6} {:>11} {:>6} {:>7}  {:>10}  {:<20} instruction",
            "executed", "%", "lane-ops", "SIMD", "hazards", "pc", "source"
        );
        let mut hot: Vec<&InstructionProfile> = self
            .instructions
            .iter()
            .filter(|i| i.executed > 0)
            .collect();
        hot.sort_by(|a, b| b.executed.cmp(&a.executed).then(a.pc.cmp(&b.pc)));
        for i in &hot {
            let share = i.executed as f64 * 100.0 / t.instructions.max(1) as f64;
            let _ = writeln!(
                s,
                "{:>10} {:>5.1}% {:>11} {:>6} {:>7}  {:#010x}  {:<20} {}",
                i.executed,
                share,
                if i.vector {
                    i.lane_ops.to_string()
                } else {
                    "-".into()
                },
                pct(i.simd_efficiency),
                i.hazards,
                i.pc,
                location(&i.file, i.line),
                i.asm
            );
        }
        let cold = self.instructions.len() - hot.len();
        if cold > 0 {
            let _ = writeln!(s, "({cold} instructions never executed)");
        }
        if !self.branches.is_empty() {
            let _ = writeln!(
                s,
                "\nbranches (diverged: executed with EXEC neither empty nor the warp's launch mask)\n\
                 {:>10}  {:>10} {:>10} {:>10}  {:<20} instruction",
                "pc", "executed", "taken", "diverged", "source"
            );
            for b in &self.branches {
                let _ = writeln!(
                    s,
                    "{:#010x}  {:>10} {:>10} {:>10}  {:<20} {}",
                    b.pc,
                    b.executed,
                    b.taken,
                    b.diverged,
                    location(&b.file, b.line),
                    b.asm
                );
            }
        }
        let _ = writeln!(s, "\ncounters: peak in flight (per warp) / limit");
        for c in &self.counters {
            let _ = writeln!(
                s,
                "  {:<4} {:>3} / {}",
                c.name, c.peak_in_flight, c.max_outstanding
            );
        }
        let _ = writeln!(
            s,
            "\n{:<20} {:>6} {:>12} {:>12} {:>9} {:>17}",
            "workgroup", "warps", "instructions", "lane-ops", "barriers", "barrier instrs"
        );
        const SHOWN: usize = 32;
        for w in self.workgroups.iter().take(SHOWN) {
            let _ = writeln!(
                s,
                "{:<20} {:>6} {:>12} {:>12} {:>9} {:>17}",
                format!("({},{},{})", w.id[0], w.id[1], w.id[2]),
                w.warps,
                w.instructions,
                w.lane_ops,
                w.barriers,
                w.barrier_instructions
            );
        }
        if self.workgroups.len() > SHOWN {
            let _ = writeln!(
                s,
                "({} more workgroups in the JSON profile)",
                self.workgroups.len() - SHOWN
            );
        }
        s
    }
}

fn location(file: &Option<String>, line: Option<u32>) -> String {
    match (file, line) {
        (Some(f), Some(l)) => {
            let name = std::path::Path::new(f)
                .file_name()
                .map_or(f.clone(), |n| n.to_string_lossy().into_owned());
            format!("{name}:{l}")
        }
        _ => "-".into(),
    }
}
