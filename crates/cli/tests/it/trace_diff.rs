//! `warpkit trace diff`: two real traces of saxpy whose inputs differ in one element differ
//! in one lane of one write-back; exit codes 0 / 1 / 2.

use std::path::{Path, PathBuf};

use crate::common::*;

fn saxpy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/saxpy.s")
}

/// Trace saxpy over 64 elements with x[i] = i, except x[odd] = 1000 when given.
fn trace(d: &Path, name: &str, odd: Option<usize>) -> PathBuf {
    let x: Vec<u8> = (0..64u32)
        .flat_map(|i| {
            let v = if Some(i as usize) == odd { 1000 } else { i };
            v.to_le_bytes()
        })
        .collect();
    let xf = d.join(format!("{name}.x"));
    std::fs::write(&xf, x).unwrap();
    let out = d.join(format!("{name}.jsonl"));
    let o = warpkit(&[
        "run",
        s(&saxpy()),
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        &format!("x=@{}", s(&xf)),
        "--arg",
        "y=buf:256",
        "--arg",
        "a=3",
        "--arg",
        "n=64",
        "--trace",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

#[test]
fn one_lane_of_one_write() {
    let d = dir("lane");
    let a = trace(&d, "a", None);
    let b = trace(&d, "b", Some(37));
    let same = warpkit(&["trace", "diff", s(&a), s(&a)]);
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).starts_with("traces are equal ("));

    let o = warpkit(&["trace", "diff", s(&a), s(&b)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    // x[37] is lane 5 of warp 1; saxpy loads x into v6: the first difference is in the
    // data the load read (its memory record), before the write-back at the `waitcnt`.
    assert!(
        out.contains("data of lane 5 of the global load (mem[0].lanes[5].data[0])"),
        "{out}"
    );
    assert!(out.contains("  A: 37\n  B: 1000\n"), "{out}");
    // Context: three records before, the differing one marked, three after, each side.
    let a_side = out.split("--- ").nth(1).unwrap();
    assert_eq!(a_side.lines().filter(|l| l.starts_with('>')).count(), 1);
    assert_eq!(a_side.lines().count(), 1 + 7, "{out}");
    assert_eq!(
        warpkit(&["trace", "diff", "--context", "0", s(&a), s(&b)])
            .stdout
            .split(|&c| c == b'\n')
            .filter(|l| l.starts_with(b" "))
            .count(),
        2,
        "only the two differing records besides the values"
    );
}

#[test]
fn bad_input_exits_2_naming_file_and_line() {
    let d = dir("bad");
    let a = trace(&d, "a", None);
    let text = d.join("t.txt");
    std::fs::write(
        &text,
        "{\"schema\":\"warpkit-trace\",\"version\":1}\nw0 0x0 add\n",
    )
    .unwrap();
    let o = warpkit(&["trace", "diff", s(&a), s(&text)]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!(
            "{}: line 2, column 1: not a JSON record",
            s(&text)
        )),
        "{e}"
    );
    let o = warpkit(&["trace", "diff", s(&a), s(&d.join("missing.jsonl"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    let o = warpkit(&["trace", "diff", "-", "-"]);
    assert_eq!(o.status.code(), Some(2));
}
