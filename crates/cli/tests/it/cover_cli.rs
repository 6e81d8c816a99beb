//! `warpkit cover`: the model file, measuring programs and traces, databases, merging,
//! reports and bad input.

use crate::common::{dir, expect, s, stderr, warpkit};
use std::path::Path;

const PROGRAM: &str = "
    umov.l u1, 0xffff
    movi v1, 1
    saveexec.and u2, u1
    add v6, v1, v1
    bany u1, over
    nop
over:
    exec.set u2
    csrr u3, warpid
    endpgm
";

fn db(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn hits(v: &serde_json::Value, bin: &str) -> u64 {
    v["bins"][bin]["hits"]
        .as_u64()
        .unwrap_or_else(|| panic!("no bin {bin}"))
}

fn hit_count_of(v: &serde_json::Value) -> usize {
    v["bins"]
        .as_object()
        .unwrap()
        .values()
        .filter(|b| b["hits"].as_u64() > Some(0))
        .count()
}

#[test]
fn model_file_is_the_generated_model_and_reads_back() {
    let d = dir("cover-model");
    let m = d.join("model.yaml");
    let o = warpkit(&["cover", "model", "-o", s(&m)]);
    expect(&o, 0, &[]);
    let text = std::fs::read_to_string(&m).unwrap();
    assert!(text.contains("schema: warpkit-coverage-model"));
    assert!(text.contains("  - name: add.vu\n    op: add.vu\n"));
    let stdout = warpkit(&["cover", "model"]);
    assert_eq!(String::from_utf8_lossy(&stdout.stdout), text);
    // A model with one coverpoint measures only its bins.
    let p = d.join("p.s");
    std::fs::write(&p, PROGRAM).unwrap();
    let small = d.join("small.yaml");
    std::fs::write(
        &small,
        "schema: warpkit-coverage-model\nversion: 1\ncoverpoints:\n  - name: adds\n    op: \"add*\"\n    bins: [executed, exec.partial, exec.full]\n",
    )
    .unwrap();
    let out = d.join("db.json");
    let o = warpkit(&["cover", "--model", s(&small), s(&p), "-o", s(&out)]);
    expect(&o, 0, &[]);
    let v = db(&out);
    assert_eq!(v["bins"].as_object().unwrap().len(), 3);
    assert_eq!(hits(&v, "adds/exec.partial"), 1);
    assert_eq!(hits(&v, "adds/exec.full"), 0);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("coverage: 2 of 3 bins hit"), "{text}");
    assert!(
        text.contains("not hit:\nexec:\n  adds: exec.full"),
        "{text}"
    );
}

#[test]
fn programs_and_their_traces_measure_the_same_and_merge() {
    let d = dir("cover-run");
    let p = d.join("p.s");
    std::fs::write(&p, PROGRAM).unwrap();
    let trace = d.join("p.jsonl");
    let o = warpkit(&["run", s(&p), "--trace", s(&trace), "-q"]);
    expect(&o, 0, &[]);
    let (a, b) = (d.join("a.json"), d.join("b.json"));
    let (json, html) = (d.join("r.json"), d.join("r.html"));
    let o = warpkit(&[
        "cover",
        s(&p),
        "-o",
        s(&a),
        "--json",
        s(&json),
        "--html",
        s(&html),
    ]);
    expect(&o, 0, &[]);
    let o = warpkit(&["cover", "--trace", s(&trace), "-o", s(&b)]);
    expect(&o, 0, &[]);
    let (va, vb) = (db(&a), db(&b));
    let strip = |v: &serde_json::Value| -> Vec<(String, u64)> {
        v["bins"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, x)| (k.clone(), x["hits"].as_u64().unwrap()))
            .collect()
    };
    assert_eq!(strip(&va), strip(&vb));
    assert_eq!(hits(&va, "bany/branch.uniform"), 1);
    assert_eq!(hits(&va, "csr.warpid/read"), 1);
    assert_eq!(va["bins"]["add/exec.partial"]["first"], s(&p));
    assert_eq!(vb["bins"]["add/exec.partial"]["first"], s(&trace));
    let report = db(&json);
    assert!(report["summary"].as_array().unwrap().len() >= 8);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("warpkit coverage"));
    assert!(page.contains("bany/branch.uniform") && page.contains(s(&p)));
    // Merging the two: hits add, the first program is the earlier name.
    let m = d.join("m.json");
    let o = warpkit(&["cover", "merge", s(&a), s(&b), "-o", s(&m), "--summary"]);
    expect(&o, 0, &[]);
    let vm = db(&m);
    assert_eq!(hits(&vm, "add/exec.partial"), 2);
    assert_eq!(vm["programs"].as_array().unwrap().len(), 2);
    let first = vm["bins"]["add/exec.partial"]["first"].as_str().unwrap();
    assert_eq!(first, s(&p).min(s(&trace)));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("| category | bins | hit | coverage |"));
    // The summary lists the bins each program hit alone: the program and its trace agree.
    let o = warpkit(&["cover", s(&p), "--trace", s(&trace), "--summary"]);
    expect(&o, 0, &[]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let alone = text
        .split("| program | bins hit |")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let n = hit_count_of(&va);
    assert!(alone.contains(&format!("| {} | {n} |", s(&p))), "{text}");
    assert!(
        alone.contains(&format!("| {} | {n} |", s(&trace))),
        "{text}"
    );
    // The JSON report is a database too.
    let o = warpkit(&[
        "cover",
        "merge",
        s(&json),
        s(&m),
        "-o",
        s(&d.join("m3.json")),
    ]);
    expect(&o, 0, &[]);
    assert_eq!(hits(&db(&d.join("m3.json")), "add/exec.partial"), 3);
}

#[test]
fn bad_input_exits_2_with_a_location() {
    let d = dir("cover-bad");
    let o = warpkit(&["cover"]);
    expect(&o, 2, &["nothing to measure"]);
    let model = d.join("m.yaml");
    std::fs::write(
        &model,
        "schema: warpkit-coverage-model\nversion: 1\ncoverpoints:\n  - name: a\n    op: add\n    bins: [executed, exec.half]\n",
    )
    .unwrap();
    let p = d.join("p.s");
    std::fs::write(&p, PROGRAM).unwrap();
    let o = warpkit(&["cover", "--model", s(&model), s(&p)]);
    expect(&o, 2, &[&format!("{}:6:", s(&model)), "exec.half"]);
    let bad = d.join("bad.json");
    std::fs::write(&bad, "{\"schema\":\"warpkit-coverage\",\n \"version\": x}").unwrap();
    let o = warpkit(&["cover", "merge", s(&bad)]);
    expect(&o, 2, &[&format!("{}:2:", s(&bad))]);
    let trace = d.join("t.jsonl");
    std::fs::write(
        &trace,
        "{\"schema\":\"warpkit-trace\",\"version\":2}\n{\"pc\":1}\n",
    )
    .unwrap();
    let o = warpkit(&["cover", "--trace", s(&trace)]);
    expect(&o, 2, &[&format!("{}:2:", s(&trace))]);
    let o = warpkit(&["cover", "merge", s(&bad), "-o", s(&bad)]);
    expect(&o, 2, &["would overwrite"]);
    let o = warpkit(&["cover", s(&p), "--html", s(&p)]);
    expect(&o, 2, &["would overwrite"]);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), PROGRAM);
    let o = warpkit(&["cover", s(&d.join("missing.s"))]);
    expect(&o, 2, &["missing.s"]);
}

/// A generated program launches by its own `.launch` directives under `warpkit cover`, as
/// under `warpkit run` (as a bare warp it would fault on its first load).
#[test]
fn generated_programs_launch_by_their_directives() {
    let d = dir("cover-gen");
    let prog = d.join("gen-4.s");
    expect(&warpkit(&["gen", "--seed", "4", "-o", s(&prog)]), 0, &[]);
    let o = warpkit(&["cover", s(&prog)]);
    expect(&o, 0, &[]);
    let err = stderr(&o);
    assert!(!err.contains("trap"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("by 1 program"), "{out}");
}
