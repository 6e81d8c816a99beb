//! `warpkit run --timing`, `--machine`, `--timing-json`, the profile's cycles column and the
//! cycle timeline, and `warpkit examples --timing`: the JSON report's keys and stall sum,
//! the same report for any thread count and engine, outputs unchanged by timing, bad
//! machine files refused with their location.

use std::path::{Path, PathBuf};

use crate::common::*;

const STALLS: [&str; 14] = [
    "issued",
    "dependency",
    "waitcnt_vm",
    "waitcnt_vst",
    "waitcnt_tex",
    "waitcnt_ls",
    "waitcnt_sm",
    "waitcnt_sfu",
    "barrier",
    "unit_busy",
    "memory_structural",
    "not_selected",
    "ended",
    "no_warp",
];

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{name}"))
}

/// `run` of reduce (barriers, shared memory, global loads and a store) over 3000 words
/// of `input`, grid 6 of 128 threads, with `extra` options.
fn reduce(d: &Path, extra: &[&str]) -> std::process::Output {
    let input = d.join("in.bin");
    if !input.exists() {
        let words: Vec<u8> = (0..3000u32).flat_map(|i| (i * 7).to_le_bytes()).collect();
        std::fs::write(&input, words).unwrap();
    }
    let kernel = example("reduce.s");
    let arg = format!("in=@{}", s(&input));
    let mut v = vec![
        "run",
        s(&kernel),
        "--grid",
        "6",
        "--block",
        "128",
        "--shared",
        "8192",
        "--arg",
        &arg,
        "--arg",
        "out=buf:24",
        "--arg",
        "n=3000",
    ];
    v.extend_from_slice(extra);
    warpkit(&v)
}

fn json(text: &[u8]) -> serde_json::Value {
    serde_json::from_slice(text)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(text)))
}

#[test]
fn timing_json_on_stdout_has_the_keys_and_stalls_add_up() {
    let d = dir("timing-json");
    let o = reduce(&d, &["--timing-json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // stdout holds the JSON document alone; the text report went to stderr.
    let r = json(&o.stdout);
    for key in [
        "machine",
        "machine_hash",
        "cycles",
        "ipc",
        "stalls",
        "kernels",
        "units",
    ] {
        assert!(r.get(key).is_some(), "no `{key}`");
    }
    assert!(r.get("timeline").is_none());
    let stalls = r["stalls"].as_object().unwrap();
    let mut keys: Vec<&str> = stalls.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut want = STALLS.to_vec();
    want.sort_unstable();
    assert_eq!(keys, want);
    let m = &r["machine"];
    let slots = m["compute_units"].as_u64().unwrap() * m["cu"]["warp_slots"].as_u64().unwrap();
    let sum: u64 = stalls.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(sum, r["cycles"].as_u64().unwrap() * slots);
    assert_eq!(m["name"], "default");
    let hash = r["machine_hash"].as_str().unwrap();
    assert_eq!(hash.len(), 16);
    let e = stderr(&o);
    assert!(e.contains("timing:") && e.contains(hash), "{e}");
    // -q keeps stdout's JSON and drops the text report.
    let q = reduce(&d, &["-q", "--timing-json", "-"]);
    assert!(q.status.success());
    assert_eq!(json(&q.stdout), r);
    assert!(!stderr(&q).contains("timing:"), "{}", stderr(&q));
}

#[test]
fn the_report_is_the_same_for_any_threads_and_engine() {
    let d = dir("timing-same");
    let mut reports = Vec::new();
    for (threads, engine) in [("1", "interp"), ("2", "interp"), ("1", "jit"), ("2", "jit")] {
        let o = reduce(
            &d,
            &[
                "--threads",
                threads,
                "--engine",
                engine,
                "--timing-json",
                "-",
            ],
        );
        assert!(o.status.success(), "{threads} {engine}: {}", stderr(&o));
        reports.push(String::from_utf8(o.stdout).unwrap());
    }
    for r in &reports[1..] {
        assert!(*r == reports[0], "{r}\n----\n{}", reports[0]);
    }
}

#[test]
fn outputs_and_exit_codes_do_not_change_with_timing() {
    let d = dir("timing-out");
    let plain = d.join("plain.bin");
    let timed = d.join("timed.bin");
    let dump_plain = d.join("plain.json");
    let dump_timed = d.join("timed.json");
    let o = reduce(
        &d,
        &[
            "--out",
            &format!("out={}", s(&plain)),
            "--dump-state",
            s(&dump_plain),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let t = reduce(
        &d,
        &[
            "--timing",
            "--out",
            &format!("out={}", s(&timed)),
            "--dump-state",
            s(&dump_timed),
        ],
    );
    assert!(t.status.success(), "{}", stderr(&t));
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&timed).unwrap()
    );
    assert_eq!(
        std::fs::read(&dump_plain).unwrap(),
        std::fs::read(&dump_timed).unwrap()
    );
    // A kernel that traps exits 1 with or without timing, and is timed up to its traps.
    let k = d.join("trap.s");
    std::fs::write(&k, "nop\numov.l u1, 0xffffffff\ncsrw mode, u1\nendpgm\n").unwrap();
    let o = warpkit(&["run", s(&k)]);
    expect(&o, 1, &["trapped"]);
    let o = warpkit(&["run", s(&k), "--timing"]);
    expect(&o, 1, &["trapped", "timing:", "machine hash:"]);
}

#[test]
fn machine_files_name_the_machine_and_bad_ones_exit_2_with_their_location() {
    let d = dir("timing-machine");
    let small = d.join("small.toml");
    std::fs::write(
        &small,
        "name = \"two\"\ncompute_units = 2\n[cu]\nwarp_slots = 8\n",
    )
    .unwrap();
    // --machine implies --timing; the report names the machine and its hash.
    let o = reduce(&d, &["--machine", s(&small)]);
    expect(&o, 0, &["timing:", "machine: two (", "machine hash:"]);
    let j = reduce(&d, &["--machine", s(&small), "--timing-json", "-"]);
    let r = json(&j.stdout);
    assert_eq!(r["machine"]["compute_units"], 2);
    assert_eq!(r["machine"]["cu"]["warp_slots"], 8);
    let default = json(&reduce(&d, &["--timing-json", "-"]).stdout);
    assert_ne!(r["machine_hash"], default["machine_hash"]);
    let sum: u64 = r["stalls"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(sum, r["cycles"].as_u64().unwrap() * 2 * 8);
    // A syntax error, an unknown field, a bad value: exit 2 with FILE:LINE:COLUMN.
    for (text, at) in [
        ("name = \"x\"\n[cu]\nwarp_slotz = 3\n", ":3:1: "),
        ("compute_units = \n", ":1:"),
        (
            "name = \"x\"\n\n[l1]\n  line_bytes = 96\n",
            ":4:3: l1.line_bytes",
        ),
    ] {
        let bad = d.join("bad.toml");
        std::fs::write(&bad, text).unwrap();
        let o = reduce(&d, &["--machine", s(&bad)]);
        let shown = format!("{}{at}", s(&bad));
        expect(&o, 2, &[&shown]);
        assert!(o.stdout.is_empty());
    }
    let o = reduce(&d, &["--machine", s(&d.join("missing.toml"))]);
    expect(&o, 2, &["missing.toml"]);
    // A workgroup of 4 warps cannot fit on a compute unit of 2 warp slots.
    let tight = d.join("tight.toml");
    std::fs::write(&tight, "[cu]\nwarp_slots = 2\nschedulers = 2\n").unwrap();
    let o = reduce(&d, &["--machine", s(&tight)]);
    expect(&o, 2, &["does not fit", "warp slots"]);
    // Timing cannot be combined with a trace or a checkpoint.
    let o = reduce(&d, &["--timing", "--trace", s(&d.join("t.jsonl"))]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_profile_gains_a_cycles_column_and_the_timeline_counts_cycles() {
    let d = dir("timing-profile");
    let p = d.join("p.json");
    let tl = d.join("t.json");
    let o = reduce(
        &d,
        &[
            "--timing-json",
            "-",
            "--profile",
            s(&p),
            "--timeline",
            s(&tl),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o.stdout);
    let cycles = r["cycles"].as_u64().unwrap();
    // With --timeline the JSON report holds the warps' spans too.
    assert!(r["timeline"].is_array());
    let prof = json(&std::fs::read(&p).unwrap());
    let timing = &prof["timing"];
    assert_eq!(timing["cycles"], cycles);
    assert_eq!(timing["machine_hash"], r["machine_hash"]);
    // Every instruction has its cycles: those of the report's pcs, issues plus stalls.
    let mut sum = 0;
    for i in prof["instructions"].as_array().unwrap() {
        let c = i["cycles"].as_u64().expect("a cycles column");
        let stalls: u64 = i["stalls"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        let issued = r["pcs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pc"] == i["pc"])
            .map_or(0, |p| p["issued"].as_u64().unwrap());
        assert_eq!(c, issued + stalls, "{i}");
        sum += c;
    }
    assert_eq!(timing["warp_cycles"], sum);
    // Issue and stall cycles of all slots: everything but `ended` and `no_warp`.
    let stalls = r["stalls"].as_object().unwrap();
    let busy: u64 = stalls
        .iter()
        .filter(|(k, _)| *k != "ended" && *k != "no_warp")
        .map(|(_, v)| v.as_u64().unwrap())
        .sum();
    assert_eq!(sum, busy);
    // The timeline: Trace Event JSON on the cycle clock, a process per compute unit, a
    // track per warp slot, issue and stall spans within the launch's cycles.
    let t = json(&std::fs::read(&tl).unwrap());
    assert!(t["otherData"]["clock"].as_str().unwrap().contains("cycles"));
    let events = t["traceEvents"].as_array().unwrap();
    let spans: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    let cus = r["machine"]["compute_units"].as_u64().unwrap();
    let slots = r["machine"]["cu"]["warp_slots"].as_u64().unwrap();
    for e in &spans {
        let (ts, dur) = (e["ts"].as_u64().unwrap(), e["dur"].as_u64().unwrap());
        assert!(ts + dur <= cycles, "{e}");
        assert!(e["pid"].as_u64().unwrap() < cus && e["tid"].as_u64().unwrap() < slots);
    }
    let issue: u64 = spans
        .iter()
        .filter(|e| e["cat"] == "issue")
        .map(|e| e["dur"].as_u64().unwrap())
        .sum();
    assert_eq!(issue, stalls["issued"].as_u64().unwrap());
    if cycles > 0 {
        assert!(spans.iter().any(|e| e["cat"] == "stall"));
        assert!(events
            .iter()
            .any(|e| e["name"] == "process_name" && e["args"]["name"] == "CU 0"));
    }
    // The text and HTML profiles have the column too.
    let o = reduce(&d, &["--timing", "--profile", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("timing: ") && text.contains("cycles"),
        "{text}"
    );
    let html = d.join("p.html");
    let o = reduce(&d, &["--timing", "--profile", s(&html)]);
    assert!(o.status.success());
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.contains("<th>cycles</th>") && h.contains("id=\"timing\""));
    // Without --timing the profile has no cycles.
    let o = reduce(&d, &["--profile", s(&p)]);
    assert!(o.status.success());
    let prof = json(&std::fs::read(&p).unwrap());
    assert!(prof.get("timing").is_none() && prof["instructions"][0].get("cycles").is_none());
}

#[test]
fn examples_report_each_kernels_cycles_and_a_summary() {
    let d = dir("timing-examples");
    let out = d.join("all.json");
    let o = warpkit(&[
        "examples",
        "--small",
        "vadd",
        "reduce",
        "--timing-json",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let header = text.lines().next().unwrap();
    assert!(
        header.contains("cycles") && header.contains("IPC"),
        "{text}"
    );
    assert!(text.contains("timing: 2 kernels"), "{text}");
    let r = json(&std::fs::read(&out).unwrap());
    let m = &r["machine"];
    let slots = m["compute_units"].as_u64().unwrap() * m["cu"]["warp_slots"].as_u64().unwrap();
    let sum: u64 = r["stalls"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(sum, r["cycles"].as_u64().unwrap() * slots);
    // A bad machine is refused before anything runs.
    let bad = d.join("bad.toml");
    std::fs::write(&bad, "[cu]\nwarp_slots = \"x\"\n").unwrap();
    let o = warpkit(&["examples", "--small", "vadd", "--machine", s(&bad)]);
    expect(&o, 2, &["bad.toml:2:"]);
}

#[test]
fn examples_time_the_same_with_replays_left_pending() {
    let d = dir("timing-examples-pending");
    // With three threads up to two launches' replays go on while later launches run:
    // each kernel's launches must still be combined in order and kept apart.
    let names = ["softmax", "vadd", "scan", "reduce", "layernorm"];
    let mut reports = Vec::new();
    for threads in ["1", "3"] {
        let out = d.join(format!("t{threads}.json"));
        let mut a = vec!["examples", "--small", "-q", "--threads", threads];
        a.extend(names);
        a.extend(["--timing-json", s(&out)]);
        let o = warpkit(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        reports.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(reports[0], reports[1]);
    // The kernels in the order given, each one's launches in launch order: reduce's last
    // pass is one workgroup adding up the first pass's partial sums.
    let r = json(&reports[0]);
    let kernels: Vec<(&str, u64)> = r["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap(),
                k["workgroups"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut order: Vec<&str> = kernels.iter().map(|k| k.0).collect();
    order.dedup();
    assert_eq!(order, names, "{kernels:?}");
    let reduce: Vec<u64> = kernels
        .iter()
        .filter(|k| k.0 == "reduce")
        .map(|k| k.1)
        .collect();
    assert!(
        reduce.len() == 2 && reduce[0] > 1 && reduce[1] == 1,
        "{kernels:?}"
    );
}
