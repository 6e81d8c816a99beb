//! `warpkit run` (and `asm`) against hostile options and failing runs: every limit refused
//! with a message naming it and the flag that raises it, outputs written whole or not at
//! all, deadlocks reported, and the after-run summary and hazard diagnostics.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// Expect exit `code` and every piece of `says` in stderr.
fn kernel(d: &Path, name: &str, text: &str) -> PathBuf {
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// No temporary output file may be left behind.
fn no_temp_files(d: &Path) {
    for e in std::fs::read_dir(d).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.contains(".tmp"), "temporary file left: {name}");
    }
}

#[test]
fn limits_name_themselves_and_their_flag() {
    let d = dir("limits");
    let k = kernel(&d, "k.s", "endpgm\n");
    let k = s(&k);
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--grid", "4294967295,4294967295,4294967295"],
            &[
                "79228162458924105385300197375 workgroups",
                "--max-workgroups",
            ],
        ),
        (
            &["--grid", "65536,65536"],
            &[
                "4294967296 workgroups exceeds the limit of 1048576",
                "--max-workgroups",
            ],
        ),
        (
            &["--grid", "100", "--max-workgroups", "10"],
            &["limit of 10"],
        ),
        (&["--block", "4294967295,4294967295,4294967295"], &["1024"]),
        (&["--block", "64,32"], &["2048 threads"]),
        (
            &["--arg", "x=buf:1099511627776"],
            &["memory limit of 1073741824", "--max-memory"],
        ),
        (
            &["--arg", "x=buf:600000000", "--arg", "y=buf:600000000"],
            &["--arg y=buf:600000000", "--max-memory"],
        ),
        (
            &["--arg", "x=buf:64", "--max-memory", "32"],
            &["--max-memory"],
        ),
        (&["--shared", "4294967295"], &["--shared", "16777216"]),
        (
            &[
                "--grid",
                "1024",
                "--block",
                "1024",
                "--dump-state",
                "d.json",
            ],
            &["--dump-state of 32768 warps", "--max-memory"],
        ),
        (&["--shared", "-1"], &[]),
        (&["--threads", "1000000"], &["--threads", "1024"]),
        (&["--threads", "-3"], &[]),
        (&["--max-steps", "0"], &["--max-steps"]),
        (&["--max-steps", "-1"], &[]),
        (&["--grid", "0"], &["--grid"]),
        (&["--grid", ""], &["--grid"]),
        (&["--grid", "1,2,3,4"], &["--grid"]),
        (&["--grid", "1,,2"], &["--grid"]),
        (&["--grid", "x"], &["--grid"]),
        (&["--grid", "4294967296"], &["--grid"]),
        (&["--block", "-32"], &[]),
        (&["--arg", "x"], &["NAME=VALUE"]),
        (&["--arg", "=5"], &["name is empty"]),
        (&["--arg", "x=buf:-1"], &["byte count"]),
        (&["--arg", "x=buf:1q"], &["byte count"]),
        (&["--arg", "x=12ab"], &["integer"]),
        (&["--arg", "x=1", "--arg", "x=2"], &["already used"]),
        (
            &["--arg", "x=1", "--out", "x=o.bin"],
            &["integer, not a buffer"],
        ),
        (
            &["--out", "nothere=o.bin"],
            &["no buffer argument `nothere`"],
        ),
        (&["--arg", "x=buf:4", "--out", "x"], &["NAME=FILE"]),
        (&["--arg", "x=buf:4", "--out", "x="], &["NAME=FILE"]),
        (
            &["--arg", "x=buf:4", "--out", "x=a.bin", "--out", "x=b.bin"],
            &["already written"],
        ),
        (&["--entry", "nowhere"], &["--entry"]),
        (&["--trace-format", "xml"], &[]),
    ];
    for (flags, says) in cases {
        let mut args = vec!["run", k];
        args.extend_from_slice(flags);
        let o = warpkit(&args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error"), "{flags:?}: {}", stderr(&o));
        for piece in *says {
            assert!(
                stderr(&o).contains(piece),
                "{flags:?}: `{piece}` in {}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn argument_files_are_bounded_and_checked() {
    let d = dir("argfiles");
    let k = kernel(&d, "k.s", "endpgm\n");
    let data = d.join("data.bin");
    std::fs::write(&data, vec![7u8; 4096]).unwrap();
    let arg = format!("x=@{}", s(&data));
    expect(
        &warpkit(&["run", s(&k), "--arg", &arg, "--max-memory", "1000"]),
        2,
        &["--max-memory", "4096 bytes"],
    );
    expect(&warpkit(&["run", s(&k), "--arg", &arg]), 0, &[]);
    let missing = format!("x=@{}", s(&d.join("missing.bin")));
    expect(
        &warpkit(&["run", s(&k), "--arg", &missing]),
        2,
        &["cannot read"],
    );
    let dir_arg = format!("x=@{}", s(&d));
    expect(
        &warpkit(&["run", s(&k), "--arg", &dir_arg]),
        2,
        &["is a directory"],
    );
    if Path::new("/dev/zero").exists() {
        // An endless device is read only up to what the budget allows.
        expect(
            &warpkit(&[
                "run",
                s(&k),
                "--arg",
                "x=@/dev/zero",
                "--max-memory",
                "65536",
            ]),
            2,
            &["--max-memory"],
        );
    }
}

#[test]
fn outputs_in_missing_directories_fail_before_the_run() {
    let d = dir("missingdir");
    let k = kernel(&d, "k.s", "endpgm\n");
    let missing = d.join("no/such/dir/out.bin");
    for flag in ["--dump-state", "--trace"] {
        expect(
            &warpkit(&["run", s(&k), flag, s(&missing)]),
            2,
            &[flag, "does not exist"],
        );
    }
    let out = format!("x={}", s(&missing));
    expect(
        &warpkit(&["run", s(&k), "--arg", "x=buf:4", "--out", &out]),
        2,
        &["--out", "does not exist"],
    );
    expect(
        &warpkit(&["run", s(&k), "--dump-state", s(&d)]),
        2,
        &["is a directory"],
    );
    let same = d.join("same.json");
    expect(
        &warpkit(&["run", s(&k), "--dump-state", s(&same), "--trace", s(&same)]),
        2,
        &["two outputs"],
    );
    // asm checks both of its outputs before writing either.
    let bin = d.join("k.bin");
    std::fs::write(&bin, "old").unwrap();
    expect(
        &warpkit(&["asm", s(&k), "-o", s(&bin), "-l", s(&missing)]),
        2,
        &["-l", "does not exist"],
    );
    assert_eq!(std::fs::read(&bin).unwrap(), b"old");
    expect(
        &warpkit(&["asm", s(&k), "-o", s(&k)]),
        2,
        &["overwrite the source"],
    );
    assert_eq!(std::fs::read_to_string(&k).unwrap(), "endpgm\n");
    no_temp_files(&d);
}

#[test]
fn a_failed_run_leaves_existing_outputs_untouched() {
    let d = dir("untouched");
    let out = d.join("out.bin");
    let dump = d.join("dump.json");
    let trace = d.join("trace.jsonl");
    let listing = d.join("k.lst");
    let obj = d.join("k.o");
    for p in [&out, &dump, &trace, &listing, &obj] {
        std::fs::write(p, "good").unwrap();
    }
    let untouched = |what: &str| {
        for p in [&out, &dump, &trace, &listing, &obj] {
            assert_eq!(
                std::fs::read(p).unwrap(),
                b"good",
                "{what}: {}",
                p.display()
            );
        }
    };
    let outs = format!("x={}", s(&out));
    let all = |k: &Path| -> Vec<String> {
        [
            "run",
            s(k),
            "--arg",
            "x=buf:64",
            "--out",
            &outs,
            "--dump-state",
            s(&dump),
            "--trace",
            s(&trace),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    let run = |args: Vec<String>| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        warpkit(&a)
    };

    // Bad input: an assembly error, a corrupt ELF file, a bad option after the outputs.
    let bad = kernel(&d, "bad.s", "add v1, v2\n");
    expect(&run(all(&bad)), 2, &["error"]);
    expect(
        &warpkit(&["asm", s(&bad), "-o", s(&obj), "-l", s(&listing)]),
        2,
        &["error"],
    );
    let corrupt = d.join("corrupt.elf");
    std::fs::write(&corrupt, b"\x7fELF\x02\x01\x01 truncated").unwrap();
    expect(&run(all(&corrupt)), 2, &["error"]);
    let mut a = all(&bad);
    a.extend(["--grid".into(), "0".into()]);
    expect(&run(a), 2, &["--grid"]);
    untouched("bad input");

    // A trap: --out is a result and is not written; the dump and the trace describe the
    // failure and are written whole.
    let trap = kernel(&d, "trap.s", "umovi u1, 1\ncsrw warpid, u1\nendpgm\n");
    expect(
        &run(all(&trap)),
        1,
        &["trapped", "cause 9", "--out files were not written"],
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"good");
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&dump).unwrap()).expect("a whole JSON dump");
    assert_eq!(v["warps"][0]["trap"]["cause"], 9);
    let t = std::fs::read_to_string(&trace).unwrap();
    assert!(t.starts_with("{\"schema\":\"warpkit-trace\""), "{t}");

    // A trace over its limit stops the run and keeps what was written, cut at a record
    // boundary, with a closing record.
    std::fs::write(&trace, "good").unwrap();
    let spin = kernel(&d, "spin.s", "top:\njmp top\n");
    expect(
        &warpkit(&[
            "run",
            s(&spin),
            "--trace",
            s(&trace),
            "--max-steps",
            "100000",
            "--max-trace-bytes",
            "4096",
        ]),
        1,
        &["--max-trace-bytes", "stopped"],
    );
    let t = std::fs::read_to_string(&trace).unwrap();
    assert!(t.len() <= 4096);
    assert!(t.ends_with("{\"truncated\":true,\"reason\":\"max_bytes\",\"max_bytes\":4096}\n"));

    // A successful run replaces them all.
    let ok = kernel(&d, "ok.s", "endpgm\n");
    expect(&run(all(&ok)), 0, &[]);
    assert_eq!(std::fs::read(&out).unwrap(), vec![0u8; 64]);
    no_temp_files(&d);
}

#[test]
fn deadlocks_are_reported_within_the_step_limit() {
    let d = dir("deadlock");
    let k = kernel(
        &d,
        "k.s",
        "bnz u29, .Lspin\nbarrier\nendpgm\n.Lspin:\njmp .Lspin\n",
    );
    let start = std::time::Instant::now();
    let o = warpkit(&["run", s(&k), "--block", "64", "--max-steps", "100000"]);
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    expect(
        &o,
        1,
        &[
            "deadlock in workgroup (0,0,0)",
            "warp 0 waits at the barrier at pc 0x4",
            "warp 1 stopped at pc 0xc at the step limit",
            "--max-steps 100000",
        ],
    );
    let trapped = kernel(
        &d,
        "t.s",
        "bnz u29, .Lx\nbarrier\nendpgm\n.Lx:\ncsrw warpid, u1\n",
    );
    expect(
        &warpkit(&["run", s(&trapped), "--block", "64"]),
        1,
        &["deadlock", "warp 1 trapped at pc 0xc (cause 9"],
    );
    // A sibling that ended does not hold the barrier.
    let ended = kernel(&d, "e.s", "bnz u29, .Lx\nbarrier\n.Lx:\nendpgm\n");
    expect(&warpkit(&["run", s(&ended), "--block", "64"]), 0, &[]);
}

#[test]
fn summary_and_hazards_are_readable() {
    let d = dir("summary");
    let k = kernel(
        &d,
        "k.s",
        "uload.b64 u[16:17], u[0:1], 0\numov u20, u16\nendpgm\n",
    );
    let o = warpkit(&["run", s(&k), "--arg", "x=buf:8"]);
    expect(
        &o,
        0,
        &[
            "warning: hazard: workgroup (0,0,0) warp 0: RAW: reads u16 at pc 0x8",
            "`uload.b64 u[16:17], u[0:1], 0`",
            "1 workgroup, 1 warp, 3 instructions",
            "lane-operations",
            "1 hazard",
            "waitcnt",
        ],
    );
    expect(
        &warpkit(&["run", s(&k), "--arg", "x=buf:8", "--strict-hazards"]),
        1,
        &["--strict-hazards"],
    );
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    // Regression: `warpkit spec --json | head -c 10` panicked in println! (exit 101).
    for args in [&["spec", "--json"][..], &["spec"], &["examples", "--list"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        // Quietly, with the status a process killed by SIGPIPE has (or 0 when a short
        // output was all written before the reader went away).
        assert!(
            matches!(o.status.code(), Some(141 | 0)),
            "{args:?}: {}",
            stderr(&o)
        );
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

#[test]
fn max_total_steps_bounds_a_runaway_grid_whatever_the_threads() {
    let d = dir("total-steps");
    let k = kernel(&d, "spin.s", "spin:\n  jmp spin\n");
    let k = s(&k);
    let mut dumps = Vec::new();
    for threads in ["1", "2"] {
        let dump = d.join(format!("dump{threads}.json"));
        let o = warpkit(&[
            "run",
            k,
            "--grid",
            "5",
            "--block",
            "64",
            "--threads",
            threads,
            "--max-total-steps",
            "1003",
            "--dump-state",
            s(&dump),
        ]);
        expect(
            &o,
            1,
            &["share of the total step budget (--max-total-steps 1003)"],
        );
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
        let warps = v["warps"].as_array().unwrap();
        let clocks: u64 = warps
            .iter()
            .map(|w| w["csr"]["clock"].as_u64().unwrap())
            .sum();
        assert_eq!(clocks, 1003, "every step of the budget retired a jmp");
        assert!(warps.iter().all(|w| w["status"] == "step_limit"));
        dumps.push(std::fs::read(&dump).unwrap());
    }
    assert_eq!(dumps[0], dumps[1]);
    expect(
        &warpkit(&["run", k, "--max-total-steps", "0"]),
        2,
        &["--max-total-steps must be at least 1"],
    );
}

#[test]
fn data_is_reachable_from_every_input_form() {
    // The kernel reads a word of `.data` (PC-relative, `upca`), stores it plus one to the
    // `out` buffer and into `.data`, and reads that back: the same under .s, ELF and hex
    // input. A flat image has no section boundaries, so all of it is code: its data reads
    // the same, and a store to it faults.
    let d = dir("data");
    let src = kernel(
        &d,
        "k.s",
        "uload.b64 u[16:17], u[0:1], 0\nupca u[2:3], value\nwaitcnt sm=0\nmovi v0, 0\n\
         gload.b32 v1, v0, u[2:3], 0\nwaitcnt vm=0\nadd.vi v1, v1, 1\n\
         gstore.b32 v1, v0, u[16:17], 0\ngstore.b32 v1, v0, u[2:3], 0\n\
         gload.b32 v2, v0, u[2:3], 0\nwaitcnt vm=0, vst=0\ngstore.b32 v2, v0, u[16:17], 4\n\
         waitcnt vst=0\nendpgm\n.data\n.word 5\nvalue: .word 41\n",
    );
    let mut inputs = vec![src.clone()];
    for (ext, format) in [("elf", "elf"), ("hex", "hex"), ("bin", "bin")] {
        let out = d.join(format!("k.{ext}"));
        let o = warpkit(&["asm", s(&src), "-o", s(&out), "--format", format]);
        expect(&o, 0, &[]);
        inputs.push(out);
    }
    for input in &inputs {
        let out = d.join("out.bin");
        let o = warpkit(&[
            "run",
            s(input),
            "--block",
            "32",
            "--arg",
            "out=buf:8",
            "--out",
            &format!("out={}", s(&out)),
        ]);
        if input.extension().is_some_and(|e| e == "bin") {
            expect(&o, 1, &["cause 5", "gstore.b32 v1, v0, u[2:3], 0"]);
            continue;
        }
        expect(&o, 0, &[]);
        let got = std::fs::read(&out).unwrap();
        assert_eq!(got, [42, 0, 0, 0, 42, 0, 0, 0], "{}", input.display());
    }
}

#[test]
fn a_store_to_the_code_faults() {
    let d = dir("rocode");
    let k = kernel(
        &d,
        "k.s",
        "upca u[2:3], 0\nmovi v0, 0\ngstore.b32 v0, v0, u[2:3], 0\nwaitcnt vst=0\nendpgm\n",
    );
    let o = warpkit(&["run", s(&k), "--block", "32"]);
    expect(
        &o,
        1,
        &["cause 5", "at pc 0x8", "gstore.b32 v0, v0, u[2:3], 0"],
    );
}
