//! `warpkit linx run|check`: the exit codes, the state JSON, the trace and the error format
//! of the documented interface.

use std::path::PathBuf;

use crate::common::*;

fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpkit-linx-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const GOOD: &str = ".lanenum 4
.gpr a0, 0x8000
BSTART.VECT
B.DIM zero, 6, ->LB0
B.TEXT .body
BSTOP
.body:
    addi lc0.ud, 100, ->t.d          // t#1 = 100 + lane's iteration
    sd t#1.ud, [a0.ud, lc0.ud<<3]    // store one d-word per iteration
    rdmin t#1.ud, ->x1.d             // x1 = 100 at block end
    lbstop
";

#[test]
fn run_dumps_the_state_json() {
    let p = file("good.s", GOOD);
    let out = warpkit(&["linx", "run", p.to_str().unwrap(), "--dump-state", "-"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "vect");
    assert_eq!(v["lanes"], 4);
    assert_eq!(v["gpr"].as_array().unwrap().len(), 24);
    assert_eq!(v["gpr"][2], 0x8000);
    assert_eq!(v["gpr"][21], 100);
    assert_eq!(v["memory"][0]["addr"], 0x8000);
    let bytes = v["memory"][0]["bytes"].as_str().unwrap();
    assert_eq!(bytes.len(), 6 * 16);
    assert!(bytes.starts_with("6400000000000000650000"));
    assert_eq!(v["cstk_max_depth"], 0);
    assert_eq!(v["fflags"], 0);
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0);
    assert!(v["error"].is_null());
}

#[test]
fn float_flags_reach_the_state_json() {
    // 1/0 in f32: +inf with DZ, CSTATE.FFLAGS bit 1; the sum in x1 as zero-extended f32 bits.
    let p = file(
        "fdiv.s",
        ".mem 0x1000, fs, 1.0, 0.0\n.gpr a0, 0x1000\nBSTART.VECT\nB.TEXT .b\nBSTOP\n.b:\n    lw [a0.ud], ->t.w\n    lw [a0.ud, 4], ->t.w\n    fdiv t#2.fs, t#1.fs, ->t.w\n    rdfadd t#1.fs, ->x1.d\n    lbstop\n",
    );
    let out = warpkit(&["linx", "run", p.to_str().unwrap(), "--dump-state", "-"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["fflags"], 2);
    assert_eq!(v["gpr"][21], 0x7f80_0000u64);
}

#[test]
fn mode_and_lanes_override_the_program() {
    let p = file("over.s", GOOD);
    let out = warpkit(&[
        "linx",
        "run",
        p.to_str().unwrap(),
        "--mode",
        "loop",
        "--lanes",
        "2",
        "--dump-state",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "loop");
    assert_eq!(v["lanes"], 2);
    let bad = warpkit(&["linx", "run", p.to_str().unwrap(), "--lanes", "65"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn check_reports_every_static_error_with_a_caret_and_exits_2() {
    let src = GOOD
        .replace("addi lc0.ud, 100, ->t.d", "add lc0.uw, lc0.ud, ->t.d")
        .replace("rdmin t#1.ud, ->x1.d", "rdmin t#1.ud, ->t.d");
    let p = file("bad.s", &src);
    let out = warpkit(&["linx", "check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(":8:17: error[E-WMIX]: "), "{err}");
    assert!(err.contains(":10:19: error[E-RDDST]: "), "{err}");
    assert!(err.contains("^"), "{err}");
    let out = warpkit(&["linx", "run", p.to_str().unwrap(), "--dump-state", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let ok = warpkit(&["linx", "check", file("ok.s", GOOD).to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0));
}

#[test]
fn a_runtime_error_exits_1_with_the_state_dumped() {
    let src = GOOD.replace("sd t#1.ud", "sd t#2.ud");
    let p = file("rt.s", &src);
    let out = warpkit(&["linx", "run", p.to_str().unwrap(), "--dump-state", "-"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "E-QUNDEF");
    assert_eq!(v["error"]["group"], 0);
    assert_eq!(v["error"]["lane"], 0);
    assert_eq!(v["error"]["pc"], 0x10008);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rt.s:9: error[E-QUNDEF]"), "{err}");
}

#[test]
fn json_trace_shows_writes_memory_and_controlstack() {
    let src = ".lanenum 4
.gpr a0, 0x100
BSTART.SIMT
B.DIM zero, 4, ->LB0
B.TEXT .body
BSTOP
.body:
  cmp.ltui lc0.ud, 2, ->t.d
  b.ne t#1.ud, zero.ud, taken, join
  addi lc0.ud, 10, ->m.d
  j join
taken:
  addi lc0.ud, 20, ->m.d
join:
  pc.pop
  sd m#1.ud, [a0.ud, lc0.ud<<3]
  lbstop
";
    let p = file("div.s", src);
    let out = warpkit(&["linx", "run", p.to_str().unwrap(), "--trace", "-"]);
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["group"], 0);
    assert_eq!(lines[0]["pc"], 0x10000);
    assert_eq!(lines[0]["mask"], 15);
    assert_eq!(lines[0]["writes"][2]["lane"], 2);
    assert_eq!(lines[0]["writes"][2]["queue"], "t");
    assert_eq!(lines[0]["writes"][2]["value"], 0);
    assert_eq!(lines[0]["writes"][2]["width"], 64);
    let pushes = &lines[1]["cstk"];
    assert_eq!(pushes[0]["op"], "push");
    assert_eq!(pushes[0]["kind"], "R");
    assert_eq!(pushes[1]["kind"], "B");
    assert_eq!(pushes[1]["mask"], 3);
    assert!(lines.iter().any(|l| l["cstk"][0]["op"] == "pop"));
    let store = lines
        .iter()
        .find(|l| l["insn"].as_str().unwrap().starts_with("sd"))
        .unwrap();
    assert_eq!(store["mem"][0]["addr"], 0x100);
    assert_eq!(store["mem"][0]["value"], 20);
    let text = warpkit(&[
        "linx",
        "run",
        p.to_str().unwrap(),
        "--trace",
        "-",
        "--trace-format",
        "text",
    ]);
    let t = String::from_utf8(text.stdout).unwrap();
    assert!(t.contains("CSTK push R"), "{t}");
    assert!(t.contains("CSTK pop B"), "{t}");
    assert_eq!(t.lines().count(), lines.len());
}

#[test]
fn max_steps_limits_each_group() {
    let src = GOOD.replace("    lbstop\n", "l:\n    j l\n    lbstop\n");
    let p = file("spin.s", &src);
    let out = warpkit(&[
        "linx",
        "run",
        p.to_str().unwrap(),
        "--max-steps",
        "50",
        "--dump-state",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "E-TIMEOUT");
}

#[test]
fn unreadable_and_non_utf8_input_is_bad_input() {
    let out = warpkit(&["linx", "check", "/nonexistent/x.s"]);
    assert_eq!(out.status.code(), Some(2));
    let dir = std::env::temp_dir().join(format!("warpkit-linx-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bin.s");
    std::fs::write(&p, b"BSTART.SIMT\n\xff\xfe\n").unwrap();
    let out = warpkit(&["linx", "check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("byte offset 12"));
}

#[test]
fn the_example_table_holds_the_linx_programs() {
    let out = warpkit(&["examples", "linx/far_branch", "linx/grid2d"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("linx/far_branch"));
    assert!(text.contains("2 of 2 kernels checked ✓"), "{text}");
}

#[test]
fn an_output_never_overwrites_the_program() {
    let p = file("self.s", GOOD);
    let out = warpkit(&[
        "linx",
        "run",
        p.to_str().unwrap(),
        "--dump-state",
        p.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), GOOD);
}
