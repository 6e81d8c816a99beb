//! Issue 16's data-safety rules, end to end: no output overwrites an input under any
//! spelling, trace caps stop the run and keep what was written, signals leave no temporary
//! file, every write error is reported, a closed pipe ends quietly; and the conventions
//! that come with them (stdin, formats by extension, one number syntax).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// Run in `dir` with `stdin` as standard input.
fn warpkit_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpkit runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn no_temp_files(d: &Path) {
    for e in std::fs::read_dir(d).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.contains(".tmp"), "temporary file left: {name}");
    }
}

const SOURCE: &str = "umovi u1, 1\nendpgm\n";

#[test]
fn no_output_overwrites_an_input_under_any_spelling() {
    let d = dir("alias");
    let src = d.join("k.s");
    std::fs::write(&src, SOURCE).unwrap();
    let link = d.join("link.s");
    std::os::unix::fs::symlink(&src, &link).unwrap();
    let data = d.join("in.bin");
    std::fs::write(&data, [1u8; 16]).unwrap();
    let abs = s(&src).to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["asm", "k.s", "-o", "k.s"],
        vec!["asm", "k.s", "-o", "./k.s"],
        vec!["asm", "k.s", "-o", &abs],
        vec!["asm", "k.s", "-o", "link.s"],
        vec!["asm", "link.s", "-o", "k.s"],
        vec!["asm", "k.s", "-o", "out.bin", "-l", "./k.s"],
        vec![
            "asm",
            "k.s",
            "-o",
            "out.bin",
            "-l",
            "../warpkit-safety-{}/k.s",
        ],
        vec!["run", "k.s", "--trace", "k.s"],
        vec!["run", "k.s", "--trace", "./link.s"],
        vec!["run", "k.s", "--dump-state", "k.s"],
        vec!["run", "./k.s", "--dump-state", &abs],
        vec!["run", "k.s", "--arg", "b=@in.bin", "--out", "b=./in.bin"],
        vec!["run", "k.s", "--arg", "b=@in.bin", "--trace", "in.bin"],
        vec!["run", "k.s", "--arg", "b=buf:4", "--out", "b=k.s"],
    ];
    let parent_spelling = format!("../{}/k.s", d.file_name().unwrap().to_string_lossy());
    for mut args in cases {
        for a in args.iter_mut() {
            if a.contains("{}") {
                *a = &parent_spelling;
            }
        }
        let o = Command::new(env!("CARGO_BIN_EXE_warpkit"))
            .args(&args)
            .current_dir(&d)
            .output()
            .unwrap();
        expect(&o, 2, &["refusing to overwrite"]);
        assert_eq!(std::fs::read_to_string(&src).unwrap(), SOURCE, "{args:?}");
        assert_eq!(std::fs::read(&data).unwrap(), [1u8; 16], "{args:?}");
    }
    // Two outputs on one file, spelled differently, before it exists.
    let o = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .args(["run", "k.s", "--trace", "t.out", "--dump-state", "./t.out"])
        .current_dir(&d)
        .output()
        .unwrap();
    expect(&o, 2, &["the same file is given for two outputs"]);
    assert!(!d.join("t.out").exists());
    // Devices may be named for several outputs.
    let o = warpkit(&[
        "run",
        s(&src),
        "--trace",
        "/dev/null",
        "--dump-state",
        "/dev/null",
    ]);
    expect(&o, 0, &[]);
    no_temp_files(&d);
}

#[test]
fn a_trace_cap_stops_the_run_and_keeps_the_trace() {
    let d = dir("cap");
    let spin = d.join("spin.s");
    std::fs::write(&spin, "top:\njmp top\n").unwrap();
    let trace = d.join("t.jsonl");
    let start = Instant::now();
    // No step limit to speak of: only the cap can stop this run.
    let o = warpkit(&[
        "run",
        s(&spin),
        "--trace",
        s(&trace),
        "--max-steps",
        "1G",
        "--max-trace-bytes",
        "64K",
    ]);
    assert!(start.elapsed() < Duration::from_secs(60));
    expect(&o, 1, &["--max-trace-bytes", "65536 bytes", "stopped"]);
    assert!(!stderr(&o).contains("not written"));
    let t = std::fs::read_to_string(&trace).unwrap();
    assert!(t.len() <= 65536 && t.len() > 60000, "{}", t.len());
    assert!(t.ends_with('\n'));
    let lines: Vec<serde_json::Value> = t
        .lines()
        .map(|l| serde_json::from_str(l).expect("whole records"))
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(last["truncated"], true);
    assert_eq!(last["max_bytes"], 65536);
    // To stdout: what went out stays, and the message says what happened.
    let o = warpkit(&[
        "run",
        s(&spin),
        "--trace",
        "-",
        "--trace-format",
        "text",
        "--max-trace-bytes",
        "0x1000",
    ]);
    expect(&o, 1, &["4096 bytes"]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.len() <= 4096);
    assert!(out.lines().last().unwrap().starts_with("# trace truncated"));
    no_temp_files(&d);
}

fn wait_for(cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(120), "timed out");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn signals_during_a_traced_run_leave_no_temporary_file() {
    let d = dir("signals");
    let spin = d.join("spin.s");
    std::fs::write(&spin, "top:\nuaddi u1, u1, 1\njmp top\n").unwrap();
    let old = d.join("result.bin");
    std::fs::write(&old, "old").unwrap();
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        let trace = d.join("t.jsonl");
        let _ = std::fs::remove_file(&trace);
        let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
            .args([
                "run",
                s(&spin),
                "--trace",
                s(&trace),
                "--dump-state",
                s(&d.join("dump.json")),
                "--arg",
                "r=buf:16",
                "--out",
                &format!("r={}", s(&old)),
                "--max-steps",
                "0x1_0000_0000_0000",
                "--max-trace-bytes",
                "100G",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The trace is streamed: a reader sees it grow while the run goes on.
        wait_for(|| std::fs::metadata(&trace).is_ok_and(|m| m.len() > 1 << 20));
        assert!(child.try_wait().unwrap().is_none(), "still running");
        let killed = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let o = child.wait_with_output().unwrap();
        expect(&o, code, &["interrupted"]);
        no_temp_files(&d);
        assert_eq!(
            std::fs::read(&old).unwrap(),
            b"old",
            "results stay as they were"
        );
        assert!(!d.join("dump.json").exists());
        // What was traced is kept, in whole records.
        let t = std::fs::read_to_string(&trace).unwrap();
        for l in t.lines() {
            serde_json::from_str::<serde_json::Value>(l).expect("whole records");
        }
    }
}

#[test]
fn write_errors_are_reported_and_closed_pipes_end_quietly() {
    let d = dir("writes");
    let src = d.join("k.s");
    std::fs::write(&src, SOURCE).unwrap();
    let bin = d.join("k.bin");
    assert!(warpkit(&["asm", s(&src), "-o", s(&bin)]).status.success());
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    let commands: Vec<Vec<&str>> = vec![
        vec!["spec"],
        vec!["spec", "--json"],
        vec!["spec", "add"],
        vec!["examples", "--list"],
        vec!["doc"],
        vec!["dis", s(&bin)],
        vec!["run", s(&src), "--trace", "-"],
        vec!["run", s(&src), "--dump-state", "-"],
    ];
    if let Ok(full) = full {
        for args in &commands {
            let o = Command::new(env!("CARGO_BIN_EXE_warpkit"))
                .args(args)
                .stdout(full.try_clone().unwrap())
                .output()
                .unwrap();
            expect(&o, 1, &["cannot write", "No space left on device"]);
        }
        let o = warpkit(&["asm", s(&src), "-o", "/dev/full"]);
        expect(&o, 1, &["cannot write /dev/full"]);
    }
    for args in &commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        // A short output may be all written before the reader goes away.
        let large = args[..] == ["spec", "--json"] || args[..] == ["doc"];
        if large {
            assert_eq!(o.status.code(), Some(141), "{args:?}: {}", stderr(&o));
        } else {
            assert!(
                matches!(o.status.code(), Some(0 | 141)),
                "{args:?}: {}",
                stderr(&o)
            );
        }
        // `run` still reports how the run went; nothing about the pipe.
        if args[0] == "run" {
            assert!(!stderr(&o).contains("error"), "{args:?}: {}", stderr(&o));
        } else {
            assert_eq!(stderr(&o), "", "{args:?}");
        }
    }
}

#[test]
fn integers_out_of_range_and_huge_sources_are_refused_plainly() {
    let d = dir("range");
    let src = d.join("k.s");
    std::fs::write(&src, SOURCE).unwrap();
    for bad in ["-9223372036854775809", "18446744073709551616", "1.5", "0x"] {
        let o = warpkit(&["run", s(&src), "--arg", &format!("n={bad}")]);
        expect(&o, 2, &["--arg n="]);
    }
    for good in [
        "-9223372036854775808",
        "18446744073709551615",
        "0b1_0",
        "4K",
    ] {
        let o = warpkit(&["run", s(&src), "--arg", &format!("n={good}")]);
        expect(&o, 0, &[]);
    }
    let huge = d.join("huge.s");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    for verb in ["asm", "run", "dis"] {
        let o = warpkit(&[verb, s(&huge)]);
        expect(
            &o,
            2,
            &["1073741824 bytes (1 GiB)", "268435456 bytes (256 MiB)"],
        );
        assert!(!stderr(&o).contains("MAX_"), "{}", stderr(&o));
    }
}

#[test]
fn formats_follow_the_output_extension_and_stdin_works() {
    let d = dir("formats");
    std::fs::write(d.join("k.s"), SOURCE).unwrap();
    let o = warpkit_in(&d, &["asm", "k.s", "-o", "k.o"], b"");
    expect(&o, 0, &[]);
    assert!(std::fs::read(d.join("k.o"))
        .unwrap()
        .starts_with(b"\x7fELF"));
    let o = warpkit_in(&d, &["asm", "k.s", "-o", "k.hex"], b"");
    expect(&o, 0, &[]);
    assert!(std::fs::read_to_string(d.join("k.hex"))
        .unwrap()
        .starts_with("// .text"));
    // --format still wins.
    let o = warpkit_in(&d, &["asm", "k.s", "-o", "raw.o", "--format", "bin"], b"");
    expect(&o, 0, &[]);
    assert!(!std::fs::read(d.join("raw.o"))
        .unwrap()
        .starts_with(b"\x7fELF"));
    // Standard input: the default output goes to the current directory.
    let o = warpkit_in(&d, &["asm", "-"], SOURCE.as_bytes());
    expect(&o, 0, &[]);
    assert!(d.join("a.bin").exists());
    let o = warpkit_in(&d, &["asm", "-", "-o", "-"], SOURCE.as_bytes());
    expect(&o, 0, &[]);
    assert_eq!(o.stdout, std::fs::read(d.join("a.bin")).unwrap());
    // A default output lands in the current directory, not beside the input.
    let sub = d.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let o = warpkit_in(&sub, &["asm", "../k.s"], b"");
    expect(&o, 0, &[]);
    assert!(sub.join("k.bin").exists());
    let o = warpkit_in(&d, &["run", "-", "--dump-state", "-"], SOURCE.as_bytes());
    expect(&o, 0, &[]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["warps"][0]["u"][1], 1);
    let o = warpkit_in(&d, &["dis", "-"], &std::fs::read(d.join("k.o")).unwrap());
    expect(&o, 0, &[]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("umovi u1, 1"));
}

#[test]
fn numeric_flags_share_one_syntax_and_entry_takes_an_address() {
    let d = dir("numbers");
    let src = d.join("k.s");
    std::fs::write(&src, "umovi u1, 1\nendpgm\numovi u2, 2\nendpgm\n").unwrap();
    let dump = d.join("d.json");
    let o = warpkit(&[
        "run",
        s(&src),
        "--entry",
        "0x8",
        "--max-steps",
        "1_000",
        "--max-memory",
        "1M",
        "--dump-state",
        s(&dump),
    ]);
    expect(&o, 0, &[]);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
    assert_eq!(
        (v["warps"][0]["u"][1].clone(), v["warps"][0]["u"][2].clone()),
        (0.into(), 2.into())
    );
    expect(
        &warpkit(&["run", s(&src), "--entry", "0x6"]),
        2,
        &["--entry"],
    );
    expect(
        &warpkit(&["run", s(&src), "--max-steps", "12Q"]),
        2,
        &["12Q"],
    );
}

#[test]
fn doc_goes_to_stdout_and_checks_a_file() {
    let d = dir("doc");
    let o = warpkit_in(&d, &["doc"], b"");
    expect(&o, 0, &[]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("instruction set reference"));
    assert!(!d.join("docs").exists(), "nothing is written into ./docs");
    let f = d.join("ref.md");
    expect(&warpkit(&["doc", "-o", s(&f)]), 0, &[]);
    assert_eq!(std::fs::read(&f).unwrap(), o.stdout);
    expect(&warpkit(&["doc", "--check", s(&f)]), 0, &[]);
    std::fs::write(&f, "old").unwrap();
    expect(
        &warpkit(&["doc", "--check", s(&f)]),
        1,
        &["not the current reference"],
    );
}

#[test]
fn spec_shows_one_instruction() {
    let o = warpkit(&["spec", "add", "bexecz"]);
    expect(&o, 0, &[]);
    let t = String::from_utf8(o.stdout).unwrap();
    for piece in [
        "add\n",
        "format R",
        "encoding:",
        "opcode",
        "operands:",
        "semantics:",
        "flags: ei eb br cd re",
    ] {
        assert!(t.contains(piece), "`{piece}` in {t}");
    }
    let o = warpkit(&["spec", "--json", "add"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["mnemonic"], "add");
    expect(&warpkit(&["spec", "addd"]), 2, &["no instruction `addd`"]);
}
