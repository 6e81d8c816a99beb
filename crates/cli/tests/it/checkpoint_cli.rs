//! `warpkit run --stop-after-steps N --save-checkpoint FILE` and `warpkit run --resume
//! FILE`: the resumed run writes the same buffers, state dump, hazard list, reports and
//! trace tail as the run that never stopped, through a chain of two checkpoints and on
//! several host threads; damaged checkpoints and misused options exit 2 naming the file.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::*;

/// The histogram example's launch: barriers, shared and global atomics, loads and
/// `waitcnt`, over 3 workgroups.
fn launch(d: &Path) -> Vec<String> {
    let data: Vec<u8> = (0..4 * 1000u32).map(|i| (i * 37 % 251) as u8).collect();
    let data_path = d.join("data.bin");
    std::fs::write(&data_path, data).unwrap();
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/histogram.s");
    [
        s(&kernel),
        "--grid",
        "3",
        "--block",
        "256",
        "--shared",
        "1024",
        "--arg",
        &format!("data=@{}", s(&data_path)),
        "--arg",
        "hist=buf:1024",
        "--arg",
        "nwords=1000",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

/// The outputs asked of a run, under `tag` in `d`.
fn outputs(d: &Path, tag: &str) -> Vec<String> {
    vec![
        "--out".into(),
        format!("hist={}", s(&d.join(format!("{tag}.hist")))),
        "--dump-state".into(),
        s(&d.join(format!("{tag}.dump.json"))).into(),
        "--hazards-json".into(),
        s(&d.join(format!("{tag}.hazards.json"))).into(),
        "--trace".into(),
        s(&d.join(format!("{tag}.trace"))).into(),
    ]
}

fn read(d: &Path, name: &str) -> Vec<u8> {
    std::fs::read(d.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A trace's records, without the header.
fn records(d: &Path, name: &str) -> Vec<String> {
    String::from_utf8(read(d, name))
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// `warpkit run ARGS`.
fn run(args: &[String]) -> Output {
    let refs: Vec<&str> = std::iter::once("run")
        .chain(args.iter().map(String::as_str))
        .collect();
    warpkit(&refs)
}

/// The summary line without its wall time.
fn summary(o: &Output) -> String {
    let e = stderr(o);
    let line = e
        .lines()
        .find(|l| l.contains(" workgroups, "))
        .unwrap_or_else(|| panic!("no summary in {e}"));
    line.split(", ")
        .filter(|p| !p.ends_with(" s"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn resumed_runs_match_the_uninterrupted_one() {
    let d = dir("match");
    let base = launch(&d);
    let whole = run(&[base.clone(), outputs(&d, "whole")].concat());
    expect(&whole, 0, &[]);

    // One cut, resumed on two host threads.
    let ck = d.join("one.wkc");
    let saved = run(&[
        base.clone(),
        outputs(&d, "first"),
        vec![
            "--stop-after-steps".into(),
            "700".into(),
            "--save-checkpoint".into(),
            s(&ck).into(),
        ],
    ]
    .concat());
    expect(
        &saved,
        0,
        &[
            "checkpoint: saved",
            "after 700 steps (1 of 3 workgroups finished)",
            "--out, --dump-state, --hazards-json were not written",
        ],
    );
    assert!(
        !d.join("first.hist").exists(),
        "a stopped run writes no result"
    );
    let resumed = run(&[
        vec![
            "--resume".into(),
            s(&ck).into(),
            "--threads".into(),
            "2".into(),
        ],
        outputs(&d, "second"),
    ]
    .concat());
    expect(&resumed, 0, &[]);
    for what in ["hist", "dump.json", "hazards.json"] {
        assert_eq!(
            read(&d, &format!("whole.{what}")),
            read(&d, &format!("second.{what}")),
            "{what}"
        );
    }
    assert_eq!(summary(&whole), summary(&resumed));
    let mut trace = records(&d, "first.trace");
    trace.extend(records(&d, "second.trace"));
    assert_eq!(trace, records(&d, "whole.trace"));

    // A chain: cut at 300, then at 1000 (counted from the launch), then the rest.
    let a = d.join("a.wkc");
    let b = d.join("b.wkc");
    let step1 = run(&[
        base.clone(),
        vec![
            "--stop-after-steps".into(),
            "300".into(),
            "--save-checkpoint".into(),
            s(&a).into(),
        ],
    ]
    .concat());
    expect(&step1, 0, &["after 300 steps (0 of 3"]);
    let step2 = run(&[
        vec!["--resume".into(), s(&a).into()],
        vec![
            "--stop-after-steps".into(),
            "1000".into(),
            "--save-checkpoint".into(),
            s(&b).into(),
        ],
    ]
    .concat());
    expect(
        &step2,
        0,
        &["after 1000 steps (2 of 3 workgroups finished)"],
    );
    let step3 = run(&[vec!["--resume".into(), s(&b).into()], outputs(&d, "third")].concat());
    expect(&step3, 0, &[]);
    for what in ["hist", "dump.json", "hazards.json"] {
        assert_eq!(
            read(&d, &format!("whole.{what}")),
            read(&d, &format!("third.{what}")),
            "{what}"
        );
    }

    // A cut past the end: the run ends normally, and the checkpoint holds its end.
    let end = d.join("end.wkc");
    let past = run(&[
        base.clone(),
        outputs(&d, "past"),
        vec![
            "--stop-after-steps".into(),
            "1000000".into(),
            "--save-checkpoint".into(),
            s(&end).into(),
        ],
    ]
    .concat());
    expect(&past, 0, &["before --stop-after-steps 1000000"]);
    assert_eq!(read(&d, "whole.hist"), read(&d, "past.hist"));
    let again = run(&[
        vec!["--resume".into(), s(&end).into()],
        outputs(&d, "again"),
    ]
    .concat());
    expect(&again, 0, &[]);
    assert_eq!(read(&d, "whole.dump.json"), read(&d, "again.dump.json"));
}

#[test]
fn a_trap_before_the_cut_is_reported_by_the_resumed_run() {
    let d = dir("trap");
    let k = d.join("k.s");
    // Warp 1 of every workgroup stores misaligned; the run goes on in the others.
    std::fs::write(
        &k,
        "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nsll.vi v4, v3, 2\nbnz u29, .Lbad\n\
         gstore.b32 v3, v4, u[16:17], 0\nendpgm\n.Lbad:\ngstore.b32 v3, v4, u[16:17], 2\nendpgm\n",
    )
    .unwrap();
    let base: Vec<String> = [
        s(&k),
        "--grid",
        "4",
        "--block",
        "64",
        "--arg",
        "out=buf:256",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let whole = run(&base);
    expect(&whole, 1, &["misaligned"]);
    let ck = d.join("t.wkc");
    let saved = run(&[
        base.clone(),
        vec![
            "--stop-after-steps".into(),
            "30".into(),
            "--save-checkpoint".into(),
            s(&ck).into(),
        ],
    ]
    .concat());
    expect(&saved, 0, &["after 30 steps"]);
    let resumed = run(&["--resume".to_string(), s(&ck).into()]);
    assert_eq!(resumed.status.code(), Some(1));
    assert_eq!(summary(&whole), summary(&resumed));
    let reports = |o: &Output| -> Vec<String> {
        stderr(o)
            .lines()
            .filter(|l| !l.contains(" s, "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(reports(&whole), reports(&resumed));
    // The checkpoint keeps the source lines: the resumed run names them too.
    assert!(stderr(&resumed).contains("k.s:8"), "{}", stderr(&resumed));
}

#[test]
fn damaged_checkpoints_and_misused_options_exit_2() {
    let d = dir("damaged");
    let base = launch(&d);
    let ck = d.join("c.wkc");
    let saved = run(&[
        base.clone(),
        vec![
            "--stop-after-steps".into(),
            "900".into(),
            "--save-checkpoint".into(),
            s(&ck).into(),
        ],
    ]
    .concat());
    expect(&saved, 0, &[]);
    let good = std::fs::read(&ck).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x01;
    let mut version = good.clone();
    version[8] = version[8].wrapping_add(1);
    let cases: Vec<(PathBuf, &str)> = vec![
        (write("flipped.wkc", &flipped), "corrupted checkpoint"),
        (
            write("short.wkc", &good[..good.len() - 100]),
            "truncated checkpoint",
        ),
        (write("header.wkc", &good[..10]), "truncated checkpoint"),
        (write("version.wkc", &version), "checkpoint format version"),
        (
            write("text.wkc", b"not a checkpoint at all"),
            "not a warpkit checkpoint",
        ),
        (write("empty.wkc", b""), "truncated checkpoint"),
    ];
    for (path, says) in &cases {
        let o = warpkit(&["run", "--resume", s(path)]);
        expect(&o, 2, &[s(path), says]);
    }
    let o = warpkit(&["run", "--resume", s(&d.join("missing.wkc"))]);
    expect(&o, 2, &["missing.wkc"]);

    let resume = |extra: &[&str]| {
        let mut a = vec!["run", "--resume", s(&ck)];
        a.extend_from_slice(extra);
        warpkit(&a)
    };
    expect(&resume(&["--grid", "2"]), 2, &["cannot be used with"]);
    expect(&resume(&["--max-steps", "5"]), 2, &["cannot be used with"]);
    expect(
        &resume(&["--out", "nothing=x.bin"]),
        2,
        &["no buffer argument `nothing`"],
    );
    let back = d.join("back.wkc");
    expect(
        &resume(&["--stop-after-steps", "10", "--save-checkpoint", s(&back)]),
        2,
        &["already 900 steps into the run"],
    );
    expect(
        &resume(&["--stop-after-steps", "1000", "--save-checkpoint", s(&ck)]),
        2,
        &["would overwrite"],
    );
    assert_eq!(
        std::fs::read(&ck).unwrap(),
        good,
        "the checkpoint is untouched"
    );
    let mut a: Vec<String> = base.clone();
    a.extend(["--stop-after-steps".into(), "5".into()]);
    expect(&run(&a), 2, &["--save-checkpoint"]);
    let mut a: Vec<String> = base;
    a.extend([
        "--stop-after-steps".into(),
        "5".into(),
        "--save-checkpoint".into(),
        s(&d.join("p.wkc")).into(),
        "--profile".into(),
        s(&d.join("p.json")).into(),
    ]);
    expect(&run(&a), 2, &["cannot be used with"]);
}
