//! `--scratch BYTES` on `warpkit run` and `warpkit debug`: per-lane scratch memory reached by
//! the global-memory instructions, the same on both engines and every `--threads`, in the
//! dump's CSRs, the trace and checkpoints; its limits exit 2.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Each lane spills `3 * id` and `id + 7` (id: the thread's index in the grid) to its
/// scratch slots 0 and 5 (`base + 128 * slot + 4 * lane`), reloads both and stores their sum
/// to `out[id]`.
const KERNEL: &str = "\
    uload.b64  u[16:17], u[0:1], 0
    csrr       u20, scratch_lo
    csrr       u21, scratch_hi
    laneid     v4
    sll.vi     v4, v4, 2
    umul       u22, u12, u8
    add.vu     v5, v3, u22
    mul.vi     v6, v5, 3
    add.vi     v7, v5, 7
    gstore.b32 v6, v4, u[20:21], 0
    gstore.b32 v7, v4, u[20:21], 640
    movi       v6, 0
    movi       v7, 0
    gload.b32  v6, v4, u[20:21], 0
    gload.b32  v7, v4, u[20:21], 640
    waitcnt    vm=0, sm=0
    add        v8, v6, v7
    sll.vi     v9, v5, 2
    gstore.b32 v8, v9, u[16:17], 0
    endpgm
";

const GRID: u32 = 4;
const BLOCK: u32 = 64;

fn setup(test: &str) -> (PathBuf, PathBuf) {
    let d = dir(test);
    let k = d.join("k.s");
    std::fs::write(&k, KERNEL).unwrap();
    (d, k)
}

fn launch(k: &Path) -> Vec<String> {
    [
        s(k),
        "--grid",
        &GRID.to_string(),
        "--block",
        &BLOCK.to_string(),
        "--scratch",
        "1K",
        "--arg",
        &format!("out=buf:{}", 4 * GRID * BLOCK),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

fn run(args: &[String]) -> Output {
    let refs: Vec<&str> = std::iter::once("run")
        .chain(args.iter().map(String::as_str))
        .collect();
    warpkit(&refs)
}

fn outputs(d: &Path, tag: &str) -> Vec<String> {
    vec![
        "--out".into(),
        format!("out={}", s(&d.join(format!("{tag}.out")))),
        "--dump-state".into(),
        s(&d.join(format!("{tag}.dump.json"))).into(),
    ]
}

fn read(d: &Path, name: &str) -> Vec<u8> {
    std::fs::read(d.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|a| a.to_string()).collect()
}

#[test]
fn spills_come_back_on_every_engine_and_thread_count() {
    let (d, k) = setup("spills");
    let whole = run(&[launch(&k), outputs(&d, "ref")].concat());
    expect(&whole, 0, &[]);
    let out = read(&d, "ref.out");
    for (id, w) in out.chunks(4).enumerate() {
        let id = id as u32;
        assert_eq!(
            u32::from_le_bytes(w.try_into().unwrap()),
            4 * id + 7,
            "{id}"
        );
    }
    // scratch_hi:lo of workgroup 3's warp 1, scratch_size 1024, in the dump.
    let dump = String::from_utf8(read(&d, "ref.dump.json")).unwrap();
    let warp = dump.split("{\"workgroup\"").nth(3 * 2 + 2).unwrap();
    let base = 0x4000_0000_0000_0000u64 + 3 * (1 << 30) + (1 << 25);
    for piece in [
        format!("\"scratch_lo\":{},", base as u32),
        format!("\"scratch_hi\":{},", base >> 32),
        "\"scratch_size\":1024,".to_string(),
    ] {
        assert!(warp.contains(&piece), "{piece} in {warp}");
    }
    for (engine, threads) in [("interp", "1"), ("interp", "3"), ("jit", "1"), ("jit", "2")] {
        let tag = format!("{engine}{threads}");
        let o = run(&[
            launch(&k),
            outputs(&d, &tag),
            strings(&["--engine", engine, "--threads", threads]),
        ]
        .concat());
        expect(&o, 0, &[]);
        for what in ["out", "dump.json"] {
            assert_eq!(
                read(&d, &format!("ref.{what}")),
                read(&d, &format!("{tag}.{what}")),
                "{what} {tag}"
            );
        }
    }
}

#[test]
fn the_trace_shows_scratch_stores() {
    let (d, k) = setup("trace");
    let t = d.join("t.jsonl");
    let o = run(&[launch(&k), strings(&["--trace", s(&t)])].concat());
    expect(&o, 0, &[]);
    let trace = std::fs::read_to_string(&t).unwrap();
    // Workgroup 1's first spill, lane 2: 3 * (64 + 2) at its slot 0.
    let line = trace
        .lines()
        .find(|l| {
            l.contains("\"workgroup\":[1,0,0],\"warp\":0,")
                && l.contains("\"asm\":\"gstore.b32 v6, v4, u[20:21], 0\"")
        })
        .unwrap_or_else(|| panic!("no spill in {trace}"));
    let addr = 0x4000_0000_0000_0000u64 + (1 << 30) + 8;
    assert!(
        line.contains(&format!(
            "{{\"lane\":2,\"addr\":{addr},\"data\":[{}],\"mask\":15}}",
            3 * 66
        )),
        "{line}"
    );
}

#[test]
fn scratch_faults_name_the_region() {
    let d = dir("faults");
    let k = d.join("f.s");
    std::fs::write(
        &k,
        "csrr u20, scratch_lo\ncsrr u21, scratch_hi\nlaneid v4\nsll.vi v4, v4, 2\n\
         gload.b32 v5, v4, u[20:21], 64\nwaitcnt vm=0\nendpgm\n",
    )
    .unwrap();
    // 4 bytes of 32 lanes: lanes 0..15 reach the region's second half, lane 16 is past it.
    let o = warpkit(&["run", s(&k), "--grid", "2", "--scratch", "4"]);
    expect(
        &o,
        1,
        &[
            "workgroup (0,0,0) warp 0 trapped: cause 5 (memory access fault (provisional))",
            "trapinfo 0x80",
            "(address 0x4000000000000080, lane 16: scratch of workgroup 0 warp 0 + 0x80)",
        ],
    );
    let o = warpkit(&["run", s(&k), "--grid", "1"]);
    expect(&o, 1, &["cause 5", "trapinfo 0x40 (address 0x40, lane 0)"]);
}

#[test]
fn limits_are_bad_input() {
    let (d, k) = setup("limits");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--scratch", "6"],
            &["--scratch 6: ", "multiple of 4", "1048576"],
        ),
        (&["--scratch", "1M4"], &["--scratch"]),
        (&["--scratch", "2M"], &["--scratch 2097152: ", "1048576"]),
        (
            &["--block", "1024", "--scratch", "1M"],
            &[
                "the scratch memory of 1 workgroup(s) running at once",
                "1073741824 bytes each",
                "--max-memory",
            ],
        ),
        (
            &[
                "--block",
                "1024",
                "--scratch",
                "64K",
                "--grid",
                "4",
                "--threads",
                "2",
                "--max-memory",
                "100M",
            ],
            &["2 workgroup(s)", "--max-memory"],
        ),
    ];
    for (flags, says) in cases {
        let o = warpkit(&[&["run", s(&k)][..], flags].concat());
        expect(&o, 2, says);
        let o = warpkit(&[&["debug", s(&k), "--batch", "/dev/null"][..], flags].concat());
        expect(&o, 2, says);
    }
    // One thread fits where two do not; one per core takes what fits.
    for threads in ["1", "0"] {
        let o = warpkit(&[
            "run",
            s(&k),
            "--block",
            "1024",
            "--scratch",
            "64K",
            "--grid",
            "4",
            "--threads",
            threads,
            "--max-memory",
            "100M",
            "--arg",
            "out=buf:16384",
        ]);
        expect(&o, 0, &[]);
    }
    let _ = d;
}

#[test]
fn checkpoints_resume_with_the_scratch_in_flight() {
    let (d, k) = setup("checkpoint");
    let whole = run(&[launch(&k), outputs(&d, "whole")].concat());
    expect(&whole, 0, &[]);
    // Two warps of 20 instructions per workgroup: step 52 is in workgroup 1's warp 0,
    // between its spills and its reloads.
    let ck = d.join("s.wkc");
    let saved = run(&[
        launch(&k),
        strings(&["--stop-after-steps", "52", "--save-checkpoint", s(&ck)]),
    ]
    .concat());
    expect(
        &saved,
        0,
        &["checkpoint: saved", "(1 of 4 workgroups finished)"],
    );
    let resumed = run(&[
        strings(&["--resume", s(&ck), "--threads", "2"]),
        outputs(&d, "resumed"),
    ]
    .concat());
    expect(&resumed, 0, &[]);
    for what in ["out", "dump.json"] {
        assert_eq!(
            read(&d, &format!("whole.{what}")),
            read(&d, &format!("resumed.{what}")),
            "{what}"
        );
    }
    let o = warpkit(&["run", "--resume", s(&ck), "--scratch", "64"]);
    expect(&o, 2, &["cannot be used with"]);
}

#[test]
fn the_debugger_examines_and_watches_scratch() {
    let (d, k) = setup("debug");
    let script = d.join("cmds");
    // Lane 2's slot 5 of workgroup 0's warp 0, written by the second spill.
    std::fs::write(
        &script,
        "watch 0x4000000000000288\ncontinue\nx/2dw 0x4000000000000000\nx/1dw 0x4000000000000288\n\
         x/1xw 0x4000000000010000\nquit\n",
    )
    .unwrap();
    let mut args = vec!["debug".to_string()];
    args.extend(launch(&k));
    args.extend(strings(&["--batch", s(&script)]));
    let o = warpkit(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    // The last `x` fails: exit 2.
    assert_eq!(o.status.code(), Some(2), "{out}{}", stderr(&o));
    assert!(
        out.contains("watchpoint 1: 0x4000000000000288 written by warp 0.0 at pc 0x30"),
        "{out}"
    );
    assert!(out.contains("0x4000000000000000: 0 3\n"), "{out}");
    assert!(out.contains("0x4000000000000288: 9\n"), "{out}");
    assert!(
        out.contains("cannot read global memory at 0x4000000000010000: not mapped"),
        "{out}"
    );
}
