//! What `warpkit run` says about a finished launch, on stderr: traps, step limits and
//! hazards grouped by where they happened (`--max-reports`, `--max-hazards`), deadlocks,
//! and the summary line. The formats are documented in docs/cli.md; when the program has
//! source lines, each message ends with the lines of the PCs it names.

use std::collections::BTreeMap;
use warpkit_asm::LineTable;
use warpkit_host::report::{
    deadlock_message_at, hazard_message_at, location_suffix, trap_message_at, warp_name,
};
use warpkit_host::LaunchResult;
use warpkit_sim::launch::LimitReport;
use warpkit_sim::trap::cause_name;
use warpkit_sim::{Hazard, HazardKind};

/// Default of `--max-reports`: groups of traps (and of step limits) printed.
pub const DEFAULT_MAX_REPORTS: usize = 10;
/// Default of `--max-hazards`: groups of hazards printed.
pub const DEFAULT_MAX_HAZARDS: usize = 20;

/// How much to print.
pub struct Shown {
    pub max_reports: usize,
    pub max_hazards: usize,
    pub max_steps: u64,
    /// `--max-total-steps`, when given: a warp stopped short of `max_steps` used up its
    /// workgroup's share of this budget.
    pub max_total_steps: Option<u64>,
    /// `-q`: errors only (no hazard warnings, notes or summary).
    pub quiet: bool,
}

/// Items grouped by a key, in order of first appearance; each group keeps its first item
/// and its size.
fn group<T, K: Ord + Clone>(items: &[T], key: impl Fn(&T) -> K) -> Vec<(&T, usize)> {
    let mut index: BTreeMap<K, usize> = BTreeMap::new();
    let mut groups: Vec<(&T, usize)> = Vec::new();
    for it in items {
        let k = key(it);
        match index.get(&k) {
            Some(&i) => groups[i].1 += 1,
            None => {
                index.insert(k, groups.len());
                groups.push((it, 1));
            }
        }
    }
    groups
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Print what `r` says went wrong; `lines` locates PCs in the source.
pub fn report(r: &LaunchResult, shown: &Shown, lines: &LineTable) {
    let traps = group(&r.traps, |t| (t.trap.pc, t.trap.cause));
    for &(t, n) in traps.iter().take(shown.max_reports) {
        if n == 1 {
            report!("error: {}", trap_message_at(t, lines));
        } else {
            report!(
                "error: {} trapped at pc {:#x}, cause {} ({}); first: {}",
                plural(n, "warp"),
                t.trap.pc,
                t.trap.cause,
                cause_name(t.trap.cause),
                trap_message_at(t, lines)
            );
        }
    }
    hidden_groups(traps.len(), shown.max_reports, "trap");
    let limits = group(&r.step_limits, |l| l.pc);
    for &(l, n) in limits.iter().take(shown.max_reports) {
        let who = if n == 1 {
            warp_name(l.workgroup, l.warp)
        } else {
            format!(
                "{} (first: {})",
                plural(n, "warp"),
                warp_name(l.workgroup, l.warp)
            )
        };
        report!(
            "error: {}{}",
            step_limit_text(&who, l, shown),
            location_suffix(lines, l.pc)
        );
    }
    hidden_groups(limits.len(), shown.max_reports, "step-limit");
    for d in r.deadlocks.iter().take(shown.max_reports) {
        report!("error: {}", deadlock_message_at(d, lines));
    }
    if r.deadlocks.len() > shown.max_reports {
        report!(
            "error: {} more deadlocked workgroups not shown (--max-reports N)",
            r.deadlocks.len() - shown.max_reports
        );
    }
    if shown.quiet {
        return;
    }
    let hazards = group(&r.hazards, |h: &Hazard| {
        (
            h.pc,
            h.pending_pc,
            h.register.clone(),
            matches!(h.kind, HazardKind::Raw),
        )
    });
    for &(h, n) in hazards.iter().take(shown.max_hazards) {
        let h = hazard_message_at(h, lines);
        if n == 1 {
            report!("warning: hazard: {h}");
        } else {
            report!("warning: hazard in {}; first: {h}", plural(n, "warp"));
        }
    }
    let shown_count: u64 = hazards
        .iter()
        .take(shown.max_hazards)
        .map(|&(_, n)| n as u64)
        .sum();
    let hidden = r.stats.hazards.saturating_sub(shown_count);
    if hidden > 0 {
        report!(
            "warning: {hidden} more hazard(s) not shown (--max-hazards N, --hazards-json FILE)"
        );
    }
    if r.stats.hazards > 0 {
        report!(
            "note: a `waitcnt` on the pending operation's counter before the read or write \
             removes a hazard (§2.6)"
        );
    }
}

/// What `warpkit run` says of warps (`who`) stopped by a step limit, `l` the first.
pub fn step_limit_text(who: &str, l: &LimitReport, shown: &Shown) -> String {
    if let Some(total) = shown.max_total_steps.filter(|_| l.steps < shown.max_steps) {
        return format!(
            "{who} stopped at pc {:#x} after {} instructions: its workgroup's share \
             of the total step budget (--max-total-steps {total}) was used up; raise it if \
             the program is not stuck in a loop",
            l.pc, l.steps
        );
    }
    format!(
        "{who} stopped at pc {:#x} after {} instructions: the step limit \
         (--max-steps {}) was reached; raise it with --max-steps N if the program is not \
         stuck in a loop",
        l.pc, l.steps, shown.max_steps
    )
}

fn hidden_groups(groups: usize, max: usize, what: &str) {
    if groups > max {
        report!(
            "error: {} more {what} report groups not shown (--max-reports N)",
            groups - max
        );
    }
}

/// "1 workgroup, 2 warps, 10 instructions, 320 lane-operations, 0.001 s, 0 hazards".
pub fn summary(r: &LaunchResult) {
    let s = &r.stats;
    let n = |count: u64, what: &str| format!("{count} {what}{}", if count == 1 { "" } else { "s" });
    report!(
        "{}, {}, {}, {}, {:.3} s, {}",
        n(s.workgroups, "workgroup"),
        n(s.warps, "warp"),
        n(s.instructions, "instruction"),
        n(s.lane_ops, "lane-operation"),
        s.wall.as_secs_f64(),
        n(s.hazards, "hazard"),
    );
}

/// `--hazards-json`: every hazard the model kept, with the total it counted; `source` and
/// `pending_source` are `FILE:LINE` of the two PCs when known, else null.
pub fn hazards_json(r: &LaunchResult, lines: &LineTable) -> String {
    let at = |pc: u32| lines.lookup(u64::from(pc)).map(|l| l.to_string());
    let list: Vec<serde_json::Value> = r
        .hazards
        .iter()
        .map(|h| {
            serde_json::json!({
                "kind": match h.kind { HazardKind::Raw => "RAW", HazardKind::Waw => "WAW" },
                "workgroup": h.workgroup,
                "warp": h.warp,
                "pc": h.pc,
                "register": h.register,
                "asm": h.asm,
                "pending_pc": h.pending_pc,
                "pending_asm": h.pending_asm,
                "source": at(h.pc),
                "pending_source": at(h.pending_pc),
            })
        })
        .collect();
    let v = serde_json::json!({
        "total": r.stats.hazards,
        "kept": list.len(),
        "hazards": list,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}
