//! What `warpkit run` reports (docs/cli.md): traps and hazards grouped and bounded
//! (`--max-reports`, `--max-hazards`), every hazard as JSON (`--hazards-json`), `-q`; and
//! `--arg NAME=@FIFO`, which never waits for a writer that is not there.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::*;

#[test]
fn identical_traps_make_one_line() {
    let d = dir("traps");
    let k = d.join("k.s");
    std::fs::write(&k, "nop\n.word 0xffffffff\n").unwrap();
    let o = warpkit(&["run", s(&k), "--grid", "100", "--block", "64"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    let errors: Vec<&str> = e.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{e}");
    assert!(
        errors[0].starts_with(
            "error: 200 warps trapped at pc 0x4, cause 1 (illegal instruction); first: \
             workgroup (0,0,0) warp 0 trapped"
        ),
        "{e}"
    );
    // Different places make different groups, bounded by --max-reports.
    let k2 = d.join("k2.s");
    std::fs::write(
        &k2,
        "bnz u29, .L1\n.word 0xffffffff\n.L1:\nnop\n.word 0xffffffff\n",
    )
    .unwrap();
    let o = warpkit(&["run", s(&k2), "--block", "64"]);
    let e = stderr(&o);
    assert_eq!(
        e.lines().filter(|l| l.contains("trapped")).count(),
        2,
        "{e}"
    );
    let o = warpkit(&["run", s(&k2), "--block", "64", "--max-reports", "1"]);
    let e = stderr(&o);
    assert_eq!(
        e.lines().filter(|l| l.contains("trapped")).count(),
        1,
        "{e}"
    );
    assert!(
        e.contains("1 more trap report groups not shown (--max-reports N)"),
        "{e}"
    );
}

#[test]
fn hazards_are_grouped_bounded_and_written_as_json() {
    let d = dir("hazards");
    let k = d.join("k.s");
    // Two hazards at two places in every warp.
    std::fs::write(
        &k,
        "uload.b64 u[16:17], u[0:1], 0\numov u20, u16\numov u21, u17\nendpgm\n",
    )
    .unwrap();
    let json = d.join("h.json");
    let o = warpkit(&[
        "run",
        s(&k),
        "--arg",
        "x=buf:8",
        "--block",
        "128",
        "--max-hazards",
        "1",
        "--hazards-json",
        s(&json),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    let lines: Vec<&str> = e
        .lines()
        .filter(|l| l.starts_with("warning: hazard"))
        .collect();
    assert_eq!(lines.len(), 1, "{e}");
    assert!(
        lines[0].starts_with(
            "warning: hazard in 4 warps; first: workgroup (0,0,0) warp 0: RAW: reads u16"
        ),
        "{e}"
    );
    assert!(
        e.contains("4 more hazard(s) not shown (--max-hazards N, --hazards-json FILE)"),
        "{e}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["total"], 8);
    assert_eq!(v["hazards"].as_array().unwrap().len(), 8);
    assert_eq!(v["hazards"][0]["kind"], "RAW");
    assert_eq!(v["hazards"][0]["register"], "u16");
    assert_eq!(v["hazards"][0]["pending_pc"], 0);
    // -q: errors only.
    let o = warpkit(&["-q", "run", s(&k), "--arg", "x=buf:8"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "");
    let o = warpkit(&[
        "run",
        s(&k),
        "--arg",
        "x=buf:8",
        "--strict-hazards",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--strict-hazards"));
}

#[test]
fn dis_takes_bytes_on_the_command_line_or_stdin() {
    let o = warpkit(&["dis", "--hex", "0x85 0x00 0x00 0x00", "--plain"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let line = String::from_utf8(o.stdout).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .args(["dis", "--hex", "-", "--plain"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"85,00,00,00\n")
        .unwrap();
    let o2 = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8(o2.stdout).unwrap(), line);
    assert!(!line.trim().is_empty());
    let o = warpkit(&["dis", "--hex", "0x123"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not one byte"));
}

#[test]
fn asm_shows_each_instruction_with_its_bytes() {
    let d = dir("encoding");
    let k = d.join("k.s");
    std::fs::write(&k, "mov.vl v1, 0x6f\nendpgm\n").unwrap();
    let o = warpkit(&["asm", s(&k), "-o", s(&d.join("k.bin")), "--show-encoding"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 2, "{t}");
    assert!(lines[0].starts_with("mov.vl v1, 0x6f"), "{t}");
    assert!(
        lines[0].ends_with("// encoding: [0x85,0x00,0x00,0x00,0x6f,0x00,0x00,0x00]"),
        "{t}"
    );
    assert!(lines[1].starts_with("endpgm"), "{t}");
}

#[test]
fn hex_is_read_by_dis_and_run() {
    let d = dir("hex");
    let k = d.join("k.s");
    std::fs::write(&k, "umovi u1, 5\nendpgm\n").unwrap();
    let hex = d.join("k.hex");
    assert!(warpkit(&["asm", s(&k), "-o", s(&hex)]).status.success());
    let o = warpkit(&["dis", s(&hex), "--plain"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("umovi u1, 5"));
    // By content, whatever the name.
    let renamed = d.join("k.txt");
    std::fs::copy(&hex, &renamed).unwrap();
    let dump = d.join("d.json");
    let o = warpkit(&["run", s(&renamed), "--dump-state", s(&dump)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
    assert_eq!(v["warps"][0]["u"][1], 5);
    // Source (by its extension) is assembled, then disassembled.
    let o = warpkit(&["dis", s(&k), "--plain"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("umovi u1, 5"));
    // Other text that is not code is named as such.
    let prose = d.join("notes.txt");
    std::fs::write(&prose, "umovi u1, 5\nendpgm\n").unwrap();
    let o = warpkit(&["dis", s(&prose)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("this is text, not code"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn diagnostics_are_coloured_on_request_and_never_under_no_color() {
    let d = dir("color");
    let k = d.join("k.s");
    std::fs::write(&k, ".word 0xffffffff\n").unwrap();
    let o = warpkit(&["run", s(&k), "--color", "always"]);
    assert!(
        stderr(&o).contains("\x1b[1;31merror:\x1b[0m"),
        "{}",
        stderr(&o)
    );
    let o = warpkit(&["run", s(&k), "--color", "never"]);
    assert!(!stderr(&o).contains('\x1b'));
    let o = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .args(["run", s(&k)])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!stderr(&o).contains('\x1b'));
    assert!(stderr(&o).contains("error:"));
}

#[test]
fn completions_and_man_page() {
    for (shell, needle) in [
        ("bash", "_warpkit"),
        ("zsh", "#compdef warpkit"),
        ("fish", "complete -c warpkit"),
    ] {
        let o = warpkit(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0));
        let t = String::from_utf8(o.stdout).unwrap();
        assert!(t.contains(needle), "{shell}: {t}");
        assert!(t.contains("max-trace-bytes"), "{shell}");
    }
    let o = warpkit(&["man"]);
    assert_eq!(o.status.code(), Some(0));
    let t = String::from_utf8(o.stdout).unwrap();
    assert!(t.starts_with(".ie") || t.contains(".TH warpkit"), "{t}");
    assert!(
        t.contains("Exit codes"),
        "the exit codes are in the man page"
    );
}

#[test]
fn a_bare_run_that_faults_on_its_arguments_says_how_to_launch() {
    let d = dir("bare");
    let k = d.join("k.s");
    std::fs::write(&k, "uload.b32 u2, u[0:1], 0\nwaitcnt sm=0\nendpgm\n").unwrap();
    let o = warpkit(&["run", s(&k)]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("cause 5"), "{e}");
    assert!(e.contains("no launch options were given"), "{e}");
    assert!(e.contains("--grid, --block and --arg"), "{e}");
    // With launch options there is nothing to suggest.
    let o = warpkit(&["run", s(&k), "--grid", "1"]);
    assert!(!stderr(&o).contains("no launch options"), "{}", stderr(&o));
}

#[test]
fn a_fifo_without_a_writer_is_refused_at_once() {
    let d = dir("fifo");
    let k = d.join("k.s");
    std::fs::write(&k, "endpgm\n").unwrap();
    let fifo = d.join("in.fifo");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        return; // no mkfifo here
    }
    let start = Instant::now();
    let o = warpkit(&["run", s(&k), "--arg", &format!("a=@{}", s(&fifo))]);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no process is writing to the FIFO"),
        "{}",
        stderr(&o)
    );
    // A pipe with its writer (process substitution) is read as before.
    let out = d.join("a.bin");
    let script = format!(
        "exec \"$0\" run {} --arg a=@<(printf 'abc') --out a={}",
        s(&k),
        s(&out)
    );
    let o = Command::new("bash")
        .args(["-c", &script, env!("CARGO_BIN_EXE_warpkit")])
        .output();
    if let Ok(o) = o {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(std::fs::read(&out).unwrap(), b"abc");
    }
}
