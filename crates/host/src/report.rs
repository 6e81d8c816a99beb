//! One-line descriptions of how warps stopped, as every front end shows them. The `_at`
//! forms append the source lines of the PCs they name (docs/cli.md, "Source lines in
//! reports") when the program has them.

use warpkit_asm::LineTable;
use warpkit_sim::launch::{
    DeadlockReport, LimitReport, TrapReport, SCRATCH_BASE, SCRATCH_END, SCRATCH_WARP_STRIDE,
    SCRATCH_WORKGROUP_STRIDE,
};
use warpkit_sim::trap::cause_name;
use warpkit_sim::{Hazard, WarpStatus};

/// "workgroup (x,y,z) warp N".
pub fn warp_name(workgroup: [u32; 3], warp: u32) -> String {
    let [x, y, z] = workgroup;
    format!("workgroup ({x},{y},{z}) warp {warp}")
}

/// "workgroup (0,0,0) warp 0 trapped: cause 5 (access fault) at pc 0x10: `gload.b32 ...`,
/// trapinfo 0x0 (address 0x0, lane 0)"; an address in the scratch range says whose region
/// it is in: "(address 0x4000000042000800, lane 0: scratch of workgroup 1 warp 1 + 0x800)".
pub fn trap_message(t: &TrapReport) -> String {
    let address = match t.address {
        Some((a, lane)) => format!(" (address {a:#x}, lane {lane}{})", scratch_place(a)),
        None => String::new(),
    };
    format!(
        "{} trapped: cause {} ({}) at pc {:#x}: `{}`, trapinfo {:#x}{address}",
        warp_name(t.workgroup, t.warp),
        t.trap.cause,
        cause_name(t.trap.cause),
        t.trap.pc,
        t.asm,
        t.trap.info
    )
}

/// For an address of the scratch range, ": scratch of workgroup W warp N + OFFSET" (W the
/// flat workgroup id, docs/abi.md, "Scratch memory"); else nothing.
fn scratch_place(a: u64) -> String {
    if !(SCRATCH_BASE..SCRATCH_END).contains(&a) {
        return String::new();
    }
    let rel = a - SCRATCH_BASE;
    let (wg, rest) = (
        rel / SCRATCH_WORKGROUP_STRIDE,
        rel % SCRATCH_WORKGROUP_STRIDE,
    );
    format!(
        ": scratch of workgroup {wg} warp {} + {:#x}",
        rest / SCRATCH_WARP_STRIDE,
        rest % SCRATCH_WARP_STRIDE
    )
}

/// "workgroup (0,0,0) warp 0 stopped at pc 0x8 after 100 instructions: the step limit
/// (100) was reached".
pub fn step_limit_message(l: &LimitReport, max_steps: u64) -> String {
    format!(
        "{} stopped at pc {:#x} after {} instructions: the step limit ({max_steps}) was reached",
        warp_name(l.workgroup, l.warp),
        l.pc,
        l.steps
    )
}

/// "deadlock in workgroup (0,0,0): warp 0 waits at the barrier at pc 0x8; ... warp 1
/// trapped at pc 0x10 (cause 5, access fault)".
pub fn deadlock_message(d: &DeadlockReport) -> String {
    let [x, y, z] = d.workgroup;
    let waiting: Vec<String> = d
        .deadlock
        .waiting
        .iter()
        .map(|(w, pc)| format!("warp {w} waits at the barrier at pc {pc:#x}"))
        .collect();
    let others: Vec<String> = d
        .deadlock
        .others
        .iter()
        .map(|&(w, status, pc)| match status {
            WarpStatus::Trapped(t) => format!(
                "warp {w} trapped at pc {pc:#x} (cause {}, {})",
                t.cause,
                cause_name(t.cause)
            ),
            WarpStatus::StepLimit => {
                format!("warp {w} stopped at pc {pc:#x} at the step limit (--max-steps)")
            }
            WarpStatus::Ended => format!("warp {w} ended (endpgm) at pc {pc:#x}"),
            _ => format!("warp {w} stopped at pc {pc:#x}"),
        })
        .collect();
    format!(
        "deadlock in workgroup ({x},{y},{z}): {}; the barrier can never be released \
         because a sibling was stopped: {}",
        waiting.join(", "),
        others.join(", ")
    )
}

/// " (k.s:12)", or " (k.cl:12:5)" when the column is known: where the code at `pc` came
/// from, to append to a message about `pc`; empty when `lines` does not know.
pub fn location_suffix(lines: &LineTable, pc: u32) -> String {
    lines
        .lookup(u64::from(pc))
        .map_or_else(String::new, |l| format!(" ({l})"))
}

/// [`trap_message`] followed by the trapping instruction's source line, when known:
/// "... trapinfo 0x0 (address 0x0, lane 0) (k.s:12)".
pub fn trap_message_at(t: &TrapReport, lines: &LineTable) -> String {
    trap_message(t) + &location_suffix(lines, t.trap.pc)
}

/// [`deadlock_message`] followed by the source line of every warp it names, when known:
/// "... (warp 0 at k.s:9, warp 1 at k.s:14)".
pub fn deadlock_message_at(d: &DeadlockReport, lines: &LineTable) -> String {
    let pcs = d
        .deadlock
        .waiting
        .iter()
        .copied()
        .chain(d.deadlock.others.iter().map(|&(w, _, pc)| (w, pc)));
    let at: Vec<String> = pcs
        .filter_map(|(w, pc)| Some(format!("warp {w} at {}", lines.lookup(u64::from(pc))?)))
        .collect();
    let mut m = deadlock_message(d);
    if !at.is_empty() {
        m += &format!(" ({})", at.join(", "));
    }
    m
}

/// A hazard's description followed by the source lines of the instruction that met it
/// and of the one whose write-back was pending, when known: "... is pending (k.s:12;
/// pending: k.s:10)".
pub fn hazard_message_at(h: &Hazard, lines: &LineTable) -> String {
    let at = |pc: u32| lines.lookup(u64::from(pc)).map(|l| l.to_string());
    let suffix = match (at(h.pc), at(h.pending_pc)) {
        (Some(a), Some(p)) => format!(" ({a}; pending: {p})"),
        (Some(a), None) => format!(" ({a})"),
        (None, Some(p)) => format!(" (pending: {p})"),
        (None, None) => String::new(),
    };
    format!("{h}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpkit_asm::LineRow;

    #[test]
    fn locations_are_appended_only_when_known() {
        let lines = LineTable::new(
            vec!["k.s".into()],
            vec![
                LineRow {
                    address: 0,
                    file: 0,
                    line: 3,
                    column: 0,
                },
                LineRow {
                    address: 8,
                    file: 0,
                    line: 5,
                    column: 0,
                },
                LineRow {
                    address: 12,
                    file: 0,
                    line: 5,
                    column: 9,
                },
            ],
            16,
        );
        assert_eq!(location_suffix(&lines, 4), " (k.s:3)");
        assert_eq!(location_suffix(&lines, 8), " (k.s:5)");
        assert_eq!(location_suffix(&lines, 12), " (k.s:5:9)");
        assert_eq!(location_suffix(&lines, 16), "");
        assert_eq!(location_suffix(&LineTable::default(), 0), "");
    }

    #[test]
    fn scratch_addresses_name_their_region() {
        let report = |address: u64| TrapReport {
            workgroup: [1, 0, 0],
            warp: 0,
            trap: warpkit_sim::Trap {
                cause: 5,
                pc: 16,
                info: address as u32,
            },
            asm: "gload.b32 v7, v4, u[20:21], 0".into(),
            address: Some((address, 3)),
        };
        let a = warpkit_sim::memory::scratch_base(1, 1) + 0x800;
        assert!(
            trap_message(&report(a)).ends_with(&format!(
                "(address {a:#x}, lane 3: scratch of workgroup 1 warp 1 + 0x800)"
            )),
            "{}",
            trap_message(&report(a))
        );
        assert!(trap_message(&report(0x1000)).ends_with("(address 0x1000, lane 3)"));
    }
}
