//! The profile as one self-contained HTML page: no script, no style sheet, font or image
//! from the network; charts are inline SVG. It shows the totals, the annotated source (or,
//! without source, the disassembly) with a heat column, and charts of the instruction mix
//! and of SIMD efficiency (vector instructions by active lanes).

use crate::profile::{InstructionProfile, Profile, SourceMap};
use std::fmt::Write as _;

/// Escape text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A heat colour from white (0) to red (1).
fn heat(x: f64) -> String {
    let x = x.clamp(0.0, 1.0);
    let g = (255.0 * (1.0 - 0.85 * x)) as u8;
    format!("rgb(255,{g},{g})")
}

/// The style sheet warpkit's HTML reports share (the profile's, the coverage report's):
/// page, tables, source columns, headings and bars.
pub const BASE_STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;font-size:13px}\
td,th{padding:1px 6px;text-align:right;white-space:nowrap}\
td.src,th.src{text-align:left;font-family:monospace;white-space:pre}\
.bar{display:inline-block;height:10px;background:#c33}\
h2{margin-top:1.5em}";

/// The profile's own rules, after the shared ones.
const STYLE: &str = "tr.file td{background:#eee;text-align:left;font-weight:bold}\
svg text{font-size:11px;font-family:sans-serif}";

/// Render `profile`; `sources` gives the annotated source when the program has lines.
pub fn render(profile: &Profile, sources: Option<&SourceMap>, title: &str) -> String {
    let t = &profile.totals;
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>warpkit profile: {}</title><style>{BASE_STYLE}{STYLE}</style></head><body>\n\
         <h1>warpkit profile: {}</h1>\n",
        escape(title),
        escape(title)
    );
    let eff = t
        .simd_efficiency
        .map_or("-".to_string(), |e| format!("{:.1}%", e * 100.0));
    let _ = writeln!(
        h,
        "<p id=\"totals\">{} instructions executed ({} retired) by {} warps in {} workgroups; \
         {} lane-operations; SIMD efficiency <b id=\"simd\">{eff}</b> over {} vector \
         instructions; {} hazards.</p>",
        t.instructions,
        t.retired,
        t.warps,
        t.workgroups,
        t.lane_ops,
        t.vector_instructions,
        t.hazards
    );
    if let Some(timing) = &profile.timing {
        let _ = writeln!(
            h,
            "<p id=\"timing\">Timing: <b id=\"cycles\">{}</b> cycles, IPC {:.3}, on machine \
             {} ({}). The <i>cycles</i> column counts the cycles warps spent issuing an \
             instruction or stalled with it next ({} in all).</p>",
            timing.cycles,
            timing.ipc,
            escape(&timing.machine),
            escape(&timing.machine_hash),
            timing.warp_cycles
        );
    }
    h.push_str("<h2>Instruction mix</h2>\n");
    let mix: Vec<(String, u64)> = profile
        .mix
        .iter()
        .map(|m| (m.class.to_string(), m.executed))
        .collect();
    h.push_str(&bar_chart("mix", &mix, "instructions executed"));
    h.push_str("<h2>SIMD efficiency</h2>\n<p>Retired vector instructions by active lanes.</p>\n");
    let lanes: Vec<(String, u64)> = profile
        .active_lanes
        .iter()
        .enumerate()
        .map(|(k, &n)| (k.to_string(), n))
        .collect();
    h.push_str(&column_chart("simd-efficiency", &lanes));
    match sources.filter(|s| !s.texts.is_empty()) {
        Some(s) => annotated_source(&mut h, profile, s),
        None => annotated_disassembly(&mut h, profile),
    }
    if !profile.branches.is_empty() {
        h.push_str(
            "<h2>Branches</h2>\n<p>Diverged: executed with EXEC neither empty nor the warp's \
             launch mask.</p>\n<table id=\"branches\"><tr><th>pc</th><th>line</th>\
             <th>executed</th><th>taken</th><th>diverged</th><th class=\"src\">instruction</th></tr>\n",
        );
        for b in &profile.branches {
            let _ = writeln!(
                h,
                "<tr><td>{:#x}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"src\">{}</td></tr>",
                b.pc,
                b.line.map_or(String::new(), |l| l.to_string()),
                b.executed,
                b.taken,
                b.diverged,
                escape(&b.asm)
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str("<h2>Counters</h2>\n<table id=\"counters\"><tr><th class=\"src\">counter</th><th>peak in flight</th><th>limit</th></tr>\n");
    for c in &profile.counters {
        let _ = writeln!(
            h,
            "<tr><td class=\"src\">{}</td><td>{}</td><td>{}</td></tr>",
            c.name, c.peak_in_flight, c.max_outstanding
        );
    }
    h.push_str("</table>\n<h2>Workgroups</h2>\n<table id=\"workgroups\"><tr><th>workgroup</th><th>warps</th><th>instructions</th><th>lane-ops</th><th>barriers</th><th>barrier instructions</th></tr>\n");
    const SHOWN: usize = 1000;
    for w in profile.workgroups.iter().take(SHOWN) {
        let _ = writeln!(
            h,
            "<tr><td>({},{},{})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            w.id[0],
            w.id[1],
            w.id[2],
            w.warps,
            w.instructions,
            w.lane_ops,
            w.barriers,
            w.barrier_instructions
        );
    }
    h.push_str("</table>\n");
    if profile.workgroups.len() > SHOWN {
        let _ = writeln!(
            h,
            "<p>{} more workgroups in the JSON profile.</p>",
            profile.workgroups.len() - SHOWN
        );
    }
    h.push_str("</body></html>\n");
    h
}

/// The cycles cell of a timed profile, heated by its share of the most cycles of a row;
/// nothing without timing.
fn cycles_cell(h: &mut String, cycles: Option<u64>, max: u64) {
    if let Some(c) = cycles {
        let _ = write!(
            h,
            "<td style=\"background:{}\">{c}</td>",
            heat(c as f64 / max.max(1) as f64)
        );
    }
}

/// The cycles header cell of a timed profile; nothing without timing.
fn cycles_header(profile: &Profile) -> &'static str {
    if profile.timing.is_some() {
        "<th>cycles</th>"
    } else {
        ""
    }
}

fn instruction_cells(h: &mut String, i: &InstructionProfile, max: u64, max_cycles: u64) {
    cycles_cell(h, i.cycles, max_cycles);
    let share = i.executed as f64 / max.max(1) as f64;
    let _ = write!(
        h,
        "<td style=\"background:{}\">{}</td><td>{}</td><td>{}</td>",
        heat(share),
        i.executed,
        i.simd_efficiency
            .map_or(String::new(), |e| format!("{:.1}%", e * 100.0)),
        if i.hazards > 0 {
            i.hazards.to_string()
        } else {
            String::new()
        }
    );
}

fn annotated_disassembly(h: &mut String, profile: &Profile) {
    let max = profile
        .instructions
        .iter()
        .map(|i| i.executed)
        .max()
        .unwrap_or(0);
    let max_cycles = profile
        .instructions
        .iter()
        .filter_map(|i| i.cycles)
        .max()
        .unwrap_or(0);
    let _ = writeln!(
        h,
        "<h2>Annotated disassembly</h2>\n<table id=\"annotated\"><tr>{}<th>executed</th>\
         <th>SIMD</th><th>hazards</th><th>pc</th><th class=\"src\">instruction</th></tr>",
        cycles_header(profile)
    );
    for i in &profile.instructions {
        h.push_str("<tr>");
        instruction_cells(h, i, max, max_cycles);
        let _ = writeln!(
            h,
            "<td>{:#x}</td><td class=\"src\">{}</td></tr>",
            i.pc,
            escape(&i.asm)
        );
    }
    h.push_str("</table>\n");
}

/// Every line of every source file, with the summed counts of the instructions it produced
/// and, under it, those instructions.
fn annotated_source(h: &mut String, profile: &Profile, sources: &SourceMap) {
    let timed = profile.timing.is_some();
    let _ = writeln!(
        h,
        "<h2>Annotated source</h2>\n<table id=\"annotated\"><tr>{}<th>executed</th><th>SIMD</th>\
         <th>hazards</th><th>line</th><th class=\"src\">source</th></tr>",
        cycles_header(profile)
    );
    let on_line = |file: &str, line: u32, f: fn(&InstructionProfile) -> u64| -> u64 {
        profile
            .instructions
            .iter()
            .filter(|i| i.file.as_deref() == Some(file) && i.line == Some(line))
            .map(f)
            .sum()
    };
    let max_line = |file: &str, line: u32| on_line(file, line, |i| i.executed);
    let cycles_of = |i: &InstructionProfile| i.cycles.unwrap_or(0);
    for (file, text) in &sources.texts {
        let _ = writeln!(
            h,
            "<tr class=\"file\"><td colspan=\"{}\">{}</td></tr>",
            if timed { 6 } else { 5 },
            escape(file)
        );
        let mut by_line: std::collections::BTreeMap<u32, Vec<&InstructionProfile>> =
            Default::default();
        for i in &profile.instructions {
            if i.file.as_deref() == Some(file.as_str()) {
                if let Some(l) = i.line {
                    by_line.entry(l).or_default().push(i);
                }
            }
        }
        let max = by_line
            .keys()
            .map(|&l| max_line(file, l))
            .max()
            .unwrap_or(0);
        let max_cycles = by_line
            .keys()
            .map(|&l| on_line(file, l, cycles_of))
            .max()
            .unwrap_or(0);
        for (n, line) in (1u32..).zip(text.lines()) {
            let insts = by_line.get(&n);
            match insts {
                Some(insts) => {
                    let executed: u64 = insts.iter().map(|i| i.executed).sum();
                    let retired: u64 = insts.iter().filter(|i| i.vector).map(|i| i.retired).sum();
                    let lane_ops: u64 = insts.iter().map(|i| i.lane_ops).sum();
                    let hazards: u64 = insts.iter().map(|i| i.hazards).sum();
                    let eff = if retired > 0 {
                        format!("{:.1}%", lane_ops as f64 * 100.0 / (retired * 32) as f64)
                    } else {
                        String::new()
                    };
                    h.push_str("<tr>");
                    if timed {
                        let cycles = insts.iter().map(|i| cycles_of(i)).sum();
                        cycles_cell(h, Some(cycles), max_cycles);
                    }
                    let _ = writeln!(
                        h,
                        "<td style=\"background:{}\">{executed}</td><td>{eff}</td><td>{}</td><td>{n}</td><td class=\"src\">{}</td></tr>",
                        heat(executed as f64 / max.max(1) as f64),
                        if hazards > 0 { hazards.to_string() } else { String::new() },
                        escape(line)
                    );
                }
                None => {
                    let _ = writeln!(
                        h,
                        "<tr>{}<td></td><td></td><td></td><td>{n}</td><td class=\"src\">{}</td></tr>",
                        if timed { "<td></td>" } else { "" },
                        escape(line)
                    );
                }
            }
        }
    }
    h.push_str("</table>\n");
}

/// Horizontal bars, one per entry.
fn bar_chart(id: &str, rows: &[(String, u64)], unit: &str) -> String {
    let max = rows.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    let (label_w, bar_w, row_h) = (130.0, 420.0, 18.0);
    let height = row_h * rows.len() as f64 + 24.0;
    let mut s = format!(
        "<svg id=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" role=\"img\"><title>{}</title>\n",
        label_w + bar_w + 90.0,
        escape(unit)
    );
    for (k, (label, n)) in rows.iter().enumerate() {
        let y = row_h * k as f64;
        let w = bar_w * *n as f64 / max as f64;
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{label_w}\" y=\"{}\" width=\"{w:.1}\" height=\"{}\" fill=\"#c33\"/><text x=\"{}\" y=\"{}\">{n}</text>",
            label_w - 6.0,
            y + 13.0,
            escape(label),
            y + 3.0,
            row_h - 5.0,
            label_w + w + 4.0,
            y + 13.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{label_w}\" y=\"{}\">{}</text></svg>",
        height - 6.0,
        escape(unit)
    );
    s
}

/// Vertical columns over 0..=32 active lanes.
fn column_chart(id: &str, cols: &[(String, u64)]) -> String {
    let max = cols.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    let (col_w, plot_h) = (16.0, 160.0);
    let width = col_w * cols.len() as f64 + 40.0;
    let mut s = format!(
        "<svg id=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" role=\"img\"><title>vector instructions by active lanes</title>\n",
        plot_h + 40.0
    );
    for (k, (label, n)) in cols.iter().enumerate() {
        let x = 20.0 + col_w * k as f64;
        let hgt = plot_h * *n as f64 / max as f64;
        let _ = writeln!(
            s,
            "<rect x=\"{x}\" y=\"{:.1}\" width=\"{}\" height=\"{hgt:.1}\" fill=\"#c33\"><title>{label} lanes: {n}</title></rect>",
            plot_h - hgt + 4.0,
            col_w - 2.0
        );
        if k % 4 == 0 {
            let _ = writeln!(s, "<text x=\"{x}\" y=\"{}\">{label}</text>", plot_h + 18.0);
        }
    }
    let _ = writeln!(
        s,
        "<text x=\"20\" y=\"{}\">active lanes (max {max} instructions)</text></svg>",
        plot_h + 34.0
    );
    s
}
