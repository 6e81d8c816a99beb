//! One-line descriptions of how warps stopped, as every front end shows them.

use warpkit_sim::launch::{DeadlockReport, LimitReport, TrapReport};
use warpkit_sim::trap::cause_name;
use warpkit_sim::WarpStatus;

/// "workgroup (x,y,z) warp N".
pub fn warp_name(workgroup: [u32; 3], warp: u32) -> String {
    let [x, y, z] = workgroup;
    format!("workgroup ({x},{y},{z}) warp {warp}")
}

/// "workgroup (0,0,0) warp 0 trapped: cause 5 (access fault) at pc 0x10: `gload.b32 ...`,
/// trapinfo 0x0 (address 0x0, lane 0)".
pub fn trap_message(t: &TrapReport) -> String {
    let address = match t.address {
        Some((a, lane)) => format!(" (address {a:#x}, lane {lane})"),
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
