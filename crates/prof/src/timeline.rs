//! The launch as a Trace Event Format timeline (the JSON object form that Perfetto and
//! `chrome://tracing` open). The model is functional and has no cycle times: the clock is
//! the number of instructions executed, shown as microseconds (1 instruction = 1 µs).
//!
//! - Process 1, "host threads": one track per host thread, one span per workgroup it ran,
//!   on that thread's own clock (the instructions it has executed so far). Which thread ran
//!   which workgroup depends on `--threads` and on scheduling.
//! - Process 2, "warps": one track per warp slot of a workgroup (warp 0, warp 1, ...), on the
//!   clock of a one-thread run in flat workgroup order (as `--trace` runs it), so this part
//!   does not depend on `--threads`: a span per workgroup covering the warp's life, and
//!   within it a span per barrier interval (from the warp's first instruction after the
//!   start or a barrier release to its `barrier`, `endpgm`, trap or step limit).
//!
//! With a timing run ([`Timeline::cycles`]) the timeline is the timing model's instead, and
//! its clock counts cycles: one process per compute unit, one track per warp slot, and on
//! it a span per warp resident there and within it the runs of cycles the warp issued
//! (`issue`) or spent in one stall category (`dependency`, `waitcnt_vm`, `barrier`, ...).

use crate::records::WorkgroupRecord;
use serde_json::{json, Value};

/// A timeline ready to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    events: Vec<Value>,
    /// What the clock counts, for the document's `otherData`.
    clock: &'static str,
}

const HOST: u32 = 1;
const INSTRUCTION_CLOCK: &str =
    "instructions executed (1 instruction = 1 us); the model is functional and has no cycle times";
const CYCLE_CLOCK: &str = "cycles of the timing model (1 cycle = 1 us), from the launch's start";
const WARPS: u32 = 2;

impl Timeline {
    pub(crate) fn new(workgroups: &[WorkgroupRecord]) -> Timeline {
        let mut events = vec![
            json!({"name":"process_name","ph":"M","pid":HOST,"tid":0,"args":{"name":"host threads"}}),
            json!({"name":"process_name","ph":"M","pid":WARPS,"tid":0,"args":{"name":"warps"}}),
        ];
        let name = |id: [u32; 3]| format!("workgroup ({},{},{})", id[0], id[1], id[2]);
        // Host threads, each on its own clock, in the order it started its workgroups.
        let mut by_thread: Vec<&WorkgroupRecord> = workgroups.iter().collect();
        by_thread.sort_by_key(|w| (w.thread, w.seq));
        let mut thread = usize::MAX;
        let mut clock = 0u64;
        for w in by_thread {
            if w.thread != thread {
                thread = w.thread;
                clock = 0;
                events.push(
                    json!({"name":"thread_name","ph":"M","pid":HOST,"tid":thread,
                    "args":{"name":format!("host thread {thread}")}}),
                );
            }
            events.push(
                json!({"name":name(w.id),"cat":"workgroup","ph":"X","pid":HOST,
                "tid":thread,"ts":clock,"dur":w.instructions,
                "args":{"instructions":w.instructions,"warps":w.warps,"barriers":w.barriers}}),
            );
            clock += w.instructions;
        }
        // Warps, on the clock of a one-thread run in flat order (`workgroups` is sorted).
        let slots = workgroups.iter().map(|w| w.warps).max().unwrap_or(0);
        for slot in 0..slots {
            events.push(json!({"name":"thread_name","ph":"M","pid":WARPS,"tid":slot,
                "args":{"name":format!("warp {slot}")}}));
        }
        let mut base = 0u64;
        for w in workgroups {
            for slot in 0..w.warps {
                let spans: Vec<_> = w.spans.iter().filter(|s| s.warp == slot).collect();
                let (Some(first), Some(last)) = (spans.first(), spans.last()) else {
                    continue;
                };
                events.push(
                    json!({"name":name(w.id),"cat":"workgroup","ph":"X","pid":WARPS,
                    "tid":slot,"ts":base + first.start,"dur":last.end - first.start,
                    "args":{"how":last.how}}),
                );
                for s in spans {
                    events.push(json!({"name":format!("barrier interval {}", s.interval),
                        "cat":"interval","ph":"X","pid":WARPS,"tid":slot,
                        "ts":base + s.start,"dur":s.end - s.start,
                        "args":{"instructions":s.end - s.start,"ends":s.how}}));
                }
            }
            base += w.instructions;
        }
        Timeline {
            events,
            clock: INSTRUCTION_CLOCK,
        }
    }

    /// The timeline of a timing run made with `TimingOptions::timeline` (empty without
    /// its spans), on the cycle clock (1 cycle = 1 µs): process `pid` = compute unit, track
    /// `tid` = warp slot.
    pub fn cycles(report: &warpkit_timing::TimingReport) -> Timeline {
        let warps = report.timeline.as_deref().unwrap_or(&[]);
        let mut events = Vec::new();
        let mut cus: Vec<u32> = warps.iter().map(|w| w.cu).collect();
        cus.sort_unstable();
        cus.dedup();
        for &cu in &cus {
            events.push(json!({"name":"process_name","ph":"M","pid":cu,"tid":0,
                "args":{"name":format!("CU {cu}")}}));
            events.push(
                json!({"name":"process_sort_index","ph":"M","pid":cu,"tid":0,
                "args":{"sort_index":cu}}),
            );
        }
        let mut slots: Vec<(u32, u32)> = warps.iter().map(|w| (w.cu, w.slot)).collect();
        slots.sort_unstable();
        slots.dedup();
        for &(cu, slot) in &slots {
            events.push(json!({"name":"thread_name","ph":"M","pid":cu,"tid":slot,
                "args":{"name":format!("slot {slot}")}}));
            events.push(
                json!({"name":"thread_sort_index","ph":"M","pid":cu,"tid":slot,
                "args":{"sort_index":slot}}),
            );
        }
        for w in warps {
            let (Some(first), Some(last)) = (w.spans.first(), w.spans.last()) else {
                continue;
            };
            let kernel = report.kernels.get(w.kernel).map_or("", |k| k.name.as_str());
            events.push(
                json!({"name":format!("workgroup {} warp {}", w.workgroup, w.warp),
                "cat":"warp","ph":"X","pid":w.cu,"tid":w.slot,"ts":first.start,
                "dur":last.end - first.start,
                "args":{"kernel":kernel,"workgroup":w.workgroup,"warp":w.warp}}),
            );
            for span in &w.spans {
                let (name, cat) = if span.category == "issued" {
                    ("issue", "issue")
                } else {
                    (span.category.as_str(), "stall")
                };
                events.push(
                    json!({"name":name,"cat":cat,"ph":"X","pid":w.cu,"tid":w.slot,
                    "ts":span.start,"dur":span.end - span.start,
                    "args":{"cycles":span.end - span.start}}),
                );
            }
        }
        Timeline {
            events,
            clock: CYCLE_CLOCK,
        }
    }

    /// The Trace Event Format document.
    pub fn to_json(&self) -> String {
        let doc = json!({
            "traceEvents": self.events,
            "displayTimeUnit": "ms",
            "otherData": {
                "generator": "warpkit run --timeline",
                "clock": self.clock
            }
        });
        serde_json::to_string(&doc).unwrap_or_default()
    }

    /// The events, for tests and tools.
    pub fn events(&self) -> &[Value] {
        &self.events
    }
}
