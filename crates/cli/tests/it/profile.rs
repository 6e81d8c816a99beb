//! `warpkit run --profile` and `--timeline` on a real kernel: per-instruction counts,
//! source lines, the three profile forms and the Trace Event timeline.

use std::path::{Path, PathBuf};

use crate::common::*;

fn saxpy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/saxpy.s")
}

#[test]
fn run_profile_and_timeline() {
    let d = dir("profile");
    let json = d.join("p.json");
    let html = d.join("p.html");
    let tl = d.join("t.json");
    let kernel = saxpy();
    let base = [
        "run",
        s(&kernel),
        "--block",
        "64",
        "--arg",
        "x=buf:256",
        "--arg",
        "y=buf:256",
        "--arg",
        "a=3",
        "--arg",
        "n=50",
    ];
    let with = |extra: &[&str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        warpkit(&v)
    };
    let o = with(&["--profile", s(&json), "--timeline", s(&tl)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(p["schema"], "warpkit-profile");
    // 50 of 64 lanes: the loop body runs once per warp, warp 1 with 18 lanes.
    let gload = p["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["asm"].as_str().unwrap().starts_with("gload.b32 v6"))
        .unwrap();
    assert_eq!(gload["executed"], 2);
    assert_eq!(gload["lane_ops"], 50);
    assert_eq!(gload["line"], 28);
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    assert!(t["traceEvents"].as_array().unwrap().len() > 4);
    let o = with(&["--profile", s(&html)]);
    assert!(o.status.success());
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.starts_with("<!DOCTYPE html>") && h.contains("Annotated source"));
    let o = with(&["--profile", "-"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("profile: "), "{out}");
    assert!(out.contains("saxpy.s:28"), "{out}");
    let o = with(&["--profile", "-", "--trace", s(&d.join("t.jsonl"))]);
    assert_eq!(o.status.code(), Some(2));
}
