//! A profile with a timing run's cycles column, and the timeline on the cycle clock: each
//! instruction's cycles are its issues and stalls, they sum to the warp-slot cycles that
//! are neither `ended` nor `no_warp`, and the timeline's spans tile every warp's life.

use warpkit_prof::{profile_launch, Profile, SourceMap, Timeline};
use warpkit_sim::launch::LaunchConfig;
use warpkit_sim::Program;
use warpkit_timing::{launch_timed, TimingOptions, TimingReport};

/// A dependent chain, a shared-memory round trip and a barrier, in two workgroups of 96
/// threads.
const KERNEL: &str = "\
    laneid v1
    add.vi v2, v1, 1
    mul v3, v2, v2
    sll.vi v4, v1, 2
    dsstore.b32 v3, v4, 0
    waitcnt ls=0
    barrier
    dsload.b32 v5, v4, 0
    waitcnt ls=0
    add v6, v5, v3
    endpgm
";

fn timed() -> (Profile, TimingReport, SourceMap) {
    let object = warpkit_asm::assemble(KERNEL, "k.s").unwrap();
    let program = Program::new(object.text.clone());
    let config = LaunchConfig {
        grid: [2, 1, 1],
        block: [96, 1, 1],
        ..LaunchConfig::default()
    };
    let (_, mut profile, _) = profile_launch(&program, &config, Vec::new(), false).unwrap();
    let texts = warpkit_asm::SourceTexts::load(&object.lines, &[("k.s", KERNEL)]);
    let sources = SourceMap::new(&object.lines, &texts);
    profile.attach_sources(&sources);
    let opts = TimingOptions {
        kernel: "k".into(),
        timeline: true,
        ..TimingOptions::default()
    };
    let (_, report) = launch_timed(&program, &config, Vec::new(), &opts).unwrap();
    profile.attach_timing(&report);
    (profile, report, sources)
}

#[test]
fn the_cycles_column_is_issues_and_stalls_per_instruction() {
    let (profile, report, sources) = timed();
    let timing = profile.timing.as_ref().unwrap();
    assert_eq!(timing.cycles, report.cycles);
    assert_eq!(timing.machine_hash, report.machine_hash);
    let mut sum = 0;
    for i in &profile.instructions {
        let cycles = i.cycles.unwrap();
        let stalls: u64 = i.stalls.as_ref().unwrap().values().sum();
        let issued = report
            .pcs
            .iter()
            .find(|p| p.pc == i.pc)
            .map_or(0, |p| p.issued);
        // Every warp issues every instruction of this straight-line kernel once.
        assert_eq!(issued, i.executed, "{}", i.asm);
        assert_eq!(cycles, issued + stalls, "{}", i.asm);
        sum += cycles;
    }
    assert_eq!(timing.warp_cycles, sum);
    let busy: u64 = report
        .stalls
        .iter()
        .filter(|(k, _)| *k != "ended" && *k != "no_warp")
        .map(|(_, v)| v)
        .sum();
    assert_eq!(sum, busy);
    assert!(report.cycles > 0);
    // Text: the timing line and the columns; HTML: the column and the line.
    let text = profile.to_text();
    assert!(
        text.contains("timing: ") && text.contains("cycles"),
        "{text}"
    );
    let html = warpkit_prof::html::render(&profile, Some(&sources), "k.s");
    assert!(html.contains("<th>cycles</th>") && html.contains("id=\"timing\""));
    let json: serde_json::Value = serde_json::from_str(&profile.to_json()).unwrap();
    assert_eq!(json["version"], 3);
    assert_eq!(json["timing"]["cycles"], report.cycles);
    assert!(json["instructions"][0]["cycles"].is_u64());
}

#[test]
fn the_cycle_timeline_tiles_each_warps_life() {
    let (_, report, _) = timed();
    let warps = report.timeline.as_ref().unwrap();
    // 2 workgroups of 3 warps.
    assert_eq!(warps.len(), 6);
    let timeline = Timeline::cycles(&report);
    let doc: serde_json::Value = serde_json::from_str(&timeline.to_json()).unwrap();
    assert!(doc["otherData"]["clock"]
        .as_str()
        .unwrap()
        .starts_with("cycles"));
    let events = doc["traceEvents"].as_array().unwrap();
    let mut issued = 0;
    for w in warps {
        let on_track: Vec<&serde_json::Value> = events
            .iter()
            .filter(|e| e["ph"] == "X" && e["pid"] == w.cu && e["tid"] == w.slot)
            .collect();
        let life = on_track
            .iter()
            .find(|e| e["cat"] == "warp" && e["args"]["workgroup"] == w.workgroup)
            .unwrap();
        let (start, end) = (w.spans[0].start, w.spans.last().unwrap().end);
        assert_eq!(life["ts"], start);
        assert_eq!(life["dur"], end - start);
        // The spans follow each other without a gap inside the warp's life.
        let mut at = start;
        for s in &w.spans {
            assert_eq!(s.start, at);
            at = s.end;
            if s.category == "issued" {
                issued += s.end - s.start;
            }
        }
        assert!(end <= report.cycles);
    }
    assert_eq!(issued, report.stalls["issued"]);
    let issue_spans: u64 = events
        .iter()
        .filter(|e| e["cat"] == "issue")
        .map(|e| e["dur"].as_u64().unwrap())
        .sum();
    assert_eq!(issue_spans, issued);
    assert!(events
        .iter()
        .any(|e| e["cat"] == "stall" && e["name"] == "barrier"));
    // A report without spans gives an empty timeline, not an error.
    let mut bare = report.clone();
    bare.timeline = None;
    assert!(Timeline::cycles(&bare).events().is_empty());
}
