//! `warpkit timing calibrate`: the table of a machine's parameters recovered by
//! microbenchmarks (exit 0), the JSON report, and a bad machine file (exit 2 at
//! FILE:LINE:COLUMN).

use crate::common::*;

fn small() -> String {
    format!("{}/../../machines/small.toml", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn calibrates_a_machine_file_with_a_json_report() {
    let d = dir("calibrate-json");
    let json = d.join("cal.json");
    let o = warpkit(&[
        "timing",
        "calibrate",
        "--machine",
        &small(),
        "--json",
        s(&json),
        "--threads",
        "1",
    ]);
    expect(&o, 0, &[]);
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(table.contains("calibration of small"), "{table}");
    assert!(table.contains("l1.hit_latency"), "{table}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["machine"], "small");
    let params = v["parameters"].as_array().unwrap();
    let hit = params
        .iter()
        .find(|p| p["name"] == "l1.hit_latency")
        .unwrap();
    assert_eq!(hit["configured"], 12);
    assert_eq!(hit["measured"], 12);
    assert_eq!(hit["ok"], true);
    assert!(params.iter().all(|p| p["ok"] == true));
}

#[test]
fn json_to_stdout() {
    let o = warpkit(&["timing", "calibrate", "--machine", &small(), "--json", "-"]);
    expect(&o, 0, &[]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["machine"], "small");
}

#[test]
fn a_bad_machine_file_is_bad_input_at_its_line() {
    let d = dir("calibrate-bad");
    let m = d.join("bad.toml");
    std::fs::write(&m, "name = \"x\"\n[l1]\nline_bytes = 96\n").unwrap();
    let o = warpkit(&["timing", "calibrate", "--machine", s(&m)]);
    expect(&o, 2, &["bad.toml:3:1", "l1.line_bytes"]);
    std::fs::write(&m, "[cu]\nwarp_slotz = 3\n").unwrap();
    let o = warpkit(&["timing", "calibrate", "--machine", s(&m)]);
    expect(&o, 2, &["bad.toml:2:1"]);
}
