//! `warpkit conformance export|run|dut`: the exported suite passes on both engines and
//! through warpkit as its own DUT, a DUT that disagrees fails with exit 1 and names the
//! vector, bad input exits 2 with its location, and `--jsonl` writes one line per vector.

use crate::common::{dir, expect, s, warpkit};
use std::sync::OnceLock;

/// The suite, exported once by the command line.
fn suite() -> &'static std::path::PathBuf {
    static SUITE: OnceLock<std::path::PathBuf> = OnceLock::new();
    SUITE.get_or_init(|| {
        let d = dir("conformance-suite");
        let o = warpkit(&["conformance", "export", s(&d)]);
        expect(&o, 0, &[]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("group1 241"), "{out}");
        d
    })
}

#[test]
fn exported_suite_passes_on_both_engines() {
    let d = suite();
    for engine in ["interp", "jit"] {
        let o = warpkit(&["conformance", "run", s(d), "--engine", engine]);
        expect(&o, 0, &[]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(" 0 failed"), "{out}");
    }
}

#[test]
fn warpkit_is_a_dut() {
    let d = suite();
    let add = d.join("vectors/group1/add.json");
    let o = warpkit(&["conformance", "dut", s(&add), "--engine", "interp"]);
    expect(&o, 0, &[]);
    let state: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(state["warps"].as_array().unwrap().len(), 8);
    let dut = format!("{} conformance dut", env!("CARGO_BIN_EXE_warpkit"));
    let jsonl = d.join("one.jsonl");
    let o = warpkit(&[
        "conformance",
        "run",
        s(&add),
        "--dut",
        &dut,
        "--jsonl",
        s(&jsonl),
    ]);
    expect(&o, 0, &[]);
    let line = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(line, "{\"name\":\"add\",\"pass\":true,\"mismatches\":[]}\n");
}

#[test]
fn a_disagreeing_dut_fails_with_every_mismatch() {
    let d = suite();
    let add = d.join("vectors/group1/add.json");
    // A DUT that reports the pre-state: every written register differs.
    let pre = d.join("pre.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&add).unwrap()).unwrap();
    let mut state = v["post"].clone();
    state["warps"][0]["v"][8][3] = serde_json::json!(12345);
    std::fs::write(&pre, serde_json::to_string(&state).unwrap()).unwrap();
    let jsonl = d.join("fail.jsonl");
    let dut = format!("cat {} #", s(&pre));
    let o = warpkit(&[
        "conformance",
        "run",
        s(&add),
        "--dut",
        &dut,
        "--jsonl",
        s(&jsonl),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("FAIL add: warp 0 of workgroup (0,0,0): v8 lane 3: expected 0x"),
        "{out}"
    );
    assert!(out.contains("actual 0x3039"), "{out}");
    let line: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&jsonl).unwrap().trim()).unwrap();
    assert_eq!(line["pass"], false);
    assert_eq!(line["mismatches"].as_array().unwrap().len(), 1);
    let o = warpkit(&["conformance", "run", s(&add), "--dut", "exit 4"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("the DUT exited with status 4"));
}

#[test]
fn bad_input_exits_2_with_its_location() {
    let d = dir("conformance-bad");
    let bad = d.join("bad.json");
    std::fs::write(&bad, "{\"schema\":\n 7}").unwrap();
    let o = warpkit(&["conformance", "run", s(&bad)]);
    expect(&o, 2, &["bad.json:2:2: invalid type"]);
    let o = warpkit(&["conformance", "dut", s(&bad)]);
    expect(&o, 2, &["bad.json:2:2: invalid type"]);
    let o = warpkit(&["conformance", "run", s(&d)]);
    expect(&o, 2, &["index.json"]);
}

#[test]
fn a_self_checking_program_passes_under_warpkit_run() {
    let d = suite();
    let result = d.join("result.bin");
    for program in ["selfcheck/group1/add.bin", "selfcheck/memory/gload.b32.hex"] {
        let o = warpkit(&[
            "run",
            s(&d.join(program)),
            "--block",
            "256",
            "--shared",
            "16384",
            "--arg",
            "result=buf:64",
            "--arg",
            "mem=buf:9216",
            "--out",
            &format!("result={}", s(&result)),
        ]);
        expect(&o, 0, &[]);
        let words = std::fs::read(&result).unwrap();
        for w in words[..32].chunks_exact(4) {
            assert_eq!(w, 0x5041_5353u32.to_le_bytes(), "{program}");
        }
    }
}

/// `conformance vector`: a generated program becomes a vector (its launch, the ABI's initial
/// state, the model's post-state) that passes on both engines.
#[test]
fn a_program_becomes_a_vector_that_runs_on_both_engines() {
    let d = dir("conformance-vector");
    let prog = d.join("gen-3.s");
    expect(&warpkit(&["gen", "--seed", "3", "-o", s(&prog)]), 0, &[]);
    let v = d.join("gen-3.json");
    expect(
        &warpkit(&["conformance", "vector", s(&prog), "-o", s(&v)]),
        0,
        &[],
    );
    let vector = warpkit_verify::vector::Vector::load(&v).unwrap();
    assert!(vector.launch.grid.iter().all(|&g| g >= 1));
    assert!(!vector.post.warps.is_empty());
    for engine in ["jit", "interp"] {
        expect(
            &warpkit(&["conformance", "run", s(&v), "--engine", engine]),
            0,
            &[],
        );
    }
    // To stdout, the same bytes.
    let o = warpkit(&["conformance", "vector", s(&prog)]);
    expect(&o, 0, &[]);
    assert_eq!(o.stdout, std::fs::read(&v).unwrap());
    // A program that does not assemble is bad input, located.
    let bad = d.join("bad.s");
    std::fs::write(&bad, "    add v1, v2\n").unwrap();
    expect(
        &warpkit(&["conformance", "vector", s(&bad)]),
        2,
        &["bad.s:1:"],
    );
}
