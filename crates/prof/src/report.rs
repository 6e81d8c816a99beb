//! The profile's JSON and text forms.

use crate::profile::{InstructionProfile, Profile};
use std::fmt::Write as _;

impl Profile {
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
        if let Some(timing) = &self.timing {
            let _ = writeln!(
                s,
                "timing: {} cycles, IPC {:.3}, on machine {} ({}); `cycles` is the cycles \
                 warps spent issuing an instruction or stalled with it next ({} in all)",
                timing.cycles, timing.ipc, timing.machine, timing.machine_hash, timing.warp_cycles
            );
        }
        // With timing, two more columns lead: cycles and their share; the hottest
        // instruction is then the one that took the most cycles.
        let cycles_header = if self.timing.is_some() {
            format!("{:>12} {:>6} ", "cycles", "%")
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "\n{cycles_header}{:>10} {:>6} {:>11} {:>6} {:>7}  {:>10}  {:<20} instruction",
            "executed", "%", "lane-ops", "SIMD", "hazards", "pc", "source"
        );
        let cycles = |i: &InstructionProfile| i.cycles.unwrap_or(0);
        let mut hot: Vec<&InstructionProfile> = self
            .instructions
            .iter()
            .filter(|i| i.executed > 0 || cycles(i) > 0)
            .collect();
        hot.sort_by(|a, b| {
            cycles(b)
                .cmp(&cycles(a))
                .then(b.executed.cmp(&a.executed))
                .then(a.pc.cmp(&b.pc))
        });
        let warp_cycles = self.timing.as_ref().map_or(0, |t| t.warp_cycles);
        for i in &hot {
            let share = i.executed as f64 * 100.0 / t.instructions.max(1) as f64;
            if self.timing.is_some() {
                let _ = write!(
                    s,
                    "{:>12} {:>5.1}% ",
                    cycles(i),
                    cycles(i) as f64 * 100.0 / warp_cycles.max(1) as f64
                );
            }
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
                location(&i.file, i.line, i.column),
                i.asm
            );
        }
        let cold = self.instructions.iter().filter(|i| i.executed == 0).count();
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
                    location(&b.file, b.line, b.column),
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

fn location(file: &Option<String>, line: Option<u32>, column: Option<u32>) -> String {
    match (file, line) {
        (Some(f), Some(l)) => {
            let name = std::path::Path::new(f)
                .file_name()
                .map_or(f.clone(), |n| n.to_string_lossy().into_owned());
            match column {
                Some(c) => format!("{name}:{l}:{c}"),
                None => format!("{name}:{l}"),
            }
        }
        _ => "-".into(),
    }
}
