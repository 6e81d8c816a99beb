//! `--dump-state`: the architectural state of every warp after a run, as JSON.

use crate::state::warp::{Warp, WarpStatus};
use crate::state::Core;
use std::fmt::Write as _;
use warpkit_isa::CSRS;

/// How a warp stands, as `--dump-state` names it: `"ended"`, `"trapped"`, `"step_limit"`,
/// `"barrier"` (waiting at a `barrier`) and `"running"` (a paused run). After a finished
/// launch (`run_over`), a warp still waiting at a barrier can never leave it: `"deadlocked"`.
pub fn status_name(status: WarpStatus, run_over: bool) -> &'static str {
    match status {
        WarpStatus::Running => "running",
        WarpStatus::AtBarrier if run_over => "deadlocked",
        WarpStatus::AtBarrier => "barrier",
        WarpStatus::Ended => "ended",
        WarpStatus::Trapped(_) => "trapped",
        WarpStatus::StepLimit => "step_limit",
    }
}

/// The JSON of seed-facing shape `{"warps":[{"workgroup":[x,y,z],"warp":N,"pc":N,"exec":N,
/// "u":[64],"v":[[32] x 128],"csr":{name:value,...},"trap":null|{"cause","pc","info"},
/// "status":S}]}` (documented in `docs/abi.md`, "State dumps"), for warps whose run is
/// over. `core` gives `time`/`timeh`.
pub fn dump_state_json<'a>(warps: impl IntoIterator<Item = &'a Warp>, core: &Core) -> String {
    dump_states_json(warps.into_iter().map(|w| (w, core)))
}

/// As [`dump_state_json`], each warp with the core it ran on (its workgroup's).
pub fn dump_states_json<'a>(warps: impl IntoIterator<Item = (&'a Warp, &'a Core)>) -> String {
    dump_states_json_at(warps, true)
}

/// As [`dump_states_json`]; `run_over` false for warps of a paused run (a warp at a
/// barrier is then `"barrier"`, not `"deadlocked"`).
pub fn dump_states_json_at<'a>(
    warps: impl IntoIterator<Item = (&'a Warp, &'a Core)>,
    run_over: bool,
) -> String {
    let mut s = String::with_capacity(64 * 1024);
    s.push_str("{\"warps\":[");
    for (i, (w, core)) in warps.into_iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let [x, y, z] = w.id.workgroup;
        let _ = write!(
            s,
            "{{\"workgroup\":[{x},{y},{z}],\"warp\":{},\"pc\":{},\"exec\":{},\"u\":[",
            w.id.warp,
            w.pc,
            w.exec()
        );
        join(&mut s, w.u.iter());
        s.push_str("],\"v\":[");
        for (r, row) in w.v.iter().enumerate() {
            if r > 0 {
                s.push(',');
            }
            s.push('[');
            join(&mut s, row.iter());
            s.push(']');
        }
        s.push_str("],\"csr\":{");
        for (k, def) in CSRS.iter().enumerate() {
            if k > 0 {
                s.push(',');
            }
            let value = w.csr_read(u32::from(def.number), core).unwrap_or(0);
            let _ = write!(s, "\"{}\":{value}", def.name);
        }
        s.push_str("},\"trap\":");
        match w.status {
            WarpStatus::Trapped(t) => {
                let _ = write!(
                    s,
                    "{{\"cause\":{},\"pc\":{},\"info\":{}}}",
                    t.cause, t.pc, t.info
                );
            }
            _ => s.push_str("null"),
        }
        let _ = write!(s, ",\"status\":\"{}\"", status_name(w.status, run_over));
        s.push('}');
    }
    s.push_str("]}\n");
    s
}

fn join<'a>(s: &mut String, it: impl Iterator<Item = &'a u32>) {
    for (i, x) in it.enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{x}");
    }
}
