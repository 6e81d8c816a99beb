//! `warpkit debug` from the command line: scripts (`--batch`, piped standard input), the
//! launch options it shares with `warpkit run`, and one real terminal session under tmux
//! when tmux is installed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

const KERNEL: &str = "\
    uload.b128 u[16:19], u[0:1], 0
    waitcnt sm=0
    sll.vi v5, v3, 2
    gload.b32 v6, v5, u[16:17], 0
    waitcnt vm=0
loop:
    add v6, v6, v6
    gstore.b32 v6, v5, u[18:19], 0
    endpgm
";

fn setup(test: &str) -> (PathBuf, PathBuf) {
    let d = dir(test);
    let k = d.join("k.s");
    std::fs::write(&k, KERNEL).unwrap();
    (d, k)
}

/// `warpkit debug ARGS` in `cwd`, `stdin` piped in.
fn debug(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .current_dir(cwd)
        .arg("debug")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpkit runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn batch_file_session() {
    let (d, _) = setup("batch");
    let script = d.join("cmds");
    std::fs::write(
        &script,
        "break loop\ncontinue\np v6[3]\nx/4xw out\nwatch out+4\ncontinue\nx/2dw out\nquit\n",
    )
    .unwrap();
    let o = debug(
        &d,
        &[
            "k.s",
            "--arg",
            "in=buf:128",
            "--arg",
            "out=buf:128",
            "--batch",
            s(&script),
        ],
        "",
    );
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.starts_with("(warpkit) break loop\nbreakpoint 1 at 0x1c (k.s:7)\n"),
        "{out}"
    );
    assert!(
        out.contains("(warpkit) p v6[3]\nv6[3] = 0x00000000 (0)\n"),
        "{out}"
    );
    assert!(
        out.contains("watchpoint 2: out+4 written by warp 0.0 at pc 0x20"),
        "{out}"
    );
    assert!(out.ends_with("(warpkit) quit\n"), "{out}");
}

#[test]
fn piped_commands_and_failures() {
    let (d, _) = setup("piped");
    // Ends at the end of input, without quit; a failed command makes the status 2.
    let o = debug(
        &d,
        &["k.s", "--arg", "in=buf:128", "--arg", "out=buf:128"],
        "step 3\nfrobnicate\n",
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("(warpkit) step 3\nk.s:4: gload.b32"), "{out}");
    assert!(out.contains("error: unknown command `frobnicate`"), "{out}");
    // A trap stops with `warpkit run`'s report, and the state is there to inspect.
    std::fs::write(
        d.join("t.s"),
        "nop\numov.l u1, 0xffffffff\ncsrw mode, u1\nendpgm\n",
    )
    .unwrap();
    let o = debug(&d, &["t.s"], "continue\np u1\n");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains(
            "error: workgroup (0,0,0) warp 0 trapped: cause 8 (illegal mode value) at pc 0xc: \
         `csrw mode, u1`, trapinfo 0xffffffff (t.s:3)\n(warpkit) p u1\nu1 = 0xffffffff"
        ),
        "{out}"
    );
}

#[test]
fn launch_options_are_those_of_run() {
    let (d, _) = setup("options");
    for (args, says) in [
        (vec!["--grid", "0"], "--grid 0: expected X[,Y[,Z]]"),
        (vec!["--block", "64,32"], "--block:"),
        (
            vec!["--entry", "nowhere"],
            "--entry nowhere: no such symbol",
        ),
        (vec!["--arg", "x"], "--arg x"),
    ] {
        let mut a = vec!["k.s"];
        a.extend(args);
        let o = debug(&d, &a, "");
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains(says), "expected `{says}` in {e}");
    }
    let o = debug(&d, &["-"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("standard input carries"));
    let o = debug(
        &d,
        &[
            "k.s",
            "--entry",
            "loop",
            "--arg",
            "in=buf:128",
            "--arg",
            "out=buf:128",
        ],
        "p pc\n",
    );
    assert!(stdout(&o).contains("pc = 0x1c (k.s:7)"), "{}", stdout(&o));
}

/// A real terminal session: line editing, completion and the prompt, under tmux.
#[test]
fn terminal_session_under_tmux() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let (d, _) = setup("tmux");
    let socket = format!("warpkit-debug-test-{}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket])
            .args(args)
            .output()
            .expect("tmux runs")
    };
    let cmd = format!(
        "{} debug k.s --arg in=buf:128 --arg out=buf:128 --history history",
        env!("CARGO_BIN_EXE_warpkit"),
    );
    let started = tmux(&[
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "50",
        "-c",
        s(&d),
        &cmd,
    ]);
    assert!(
        started.status.success(),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );
    let screen = || String::from_utf8_lossy(&tmux(&["capture-pane", "-p"]).stdout).into_owned();
    let wait_for = |what: &str| {
        let start = Instant::now();
        loop {
            let sc = screen();
            if sc.contains(what) {
                return sc;
            }
            if start.elapsed() > Duration::from_secs(20) {
                tmux(&["kill-server"]);
                panic!("`{what}` never appeared on the screen:\n{sc}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_for("(warpkit)");
    tmux(&["send-keys", "break lo", "Tab", "Enter"]);
    wait_for("breakpoint 1 at 0x1c (k.s:7)");
    tmux(&["send-keys", "continue", "Enter"]);
    wait_for("breakpoint 1, warp 0.0");
    tmux(&["send-keys", "info war", "Tab", "Enter"]);
    wait_for("workgroup 0 (0,0,0):");
    tmux(&["send-keys", "quit", "Enter"]);
    let start = Instant::now();
    while tmux(&["has-session"]).status.success() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    tmux(&["kill-server"]);
    let history = std::fs::read_to_string(d.join("history")).unwrap_or_default();
    assert!(history.contains("break loop"), "history: {history}");
}
