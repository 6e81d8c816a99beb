//! docs/opencl.md's worked example is true: its `.cl` source is written to a directory and
//! every `$ warpkit ...` command of the section runs there, its output (standard output,
//! then standard error; a debugger session fed the commands after its prompts) compared
//! with the text the page shows, the run's time aside.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::*;

fn page() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/opencl.md");
    std::fs::read_to_string(path).unwrap()
}

/// The section under `## Worked example`, up to the next `## `.
fn section(page: &str) -> &str {
    let start = page
        .find("\n## Worked example")
        .expect("docs/opencl.md has a worked example");
    let rest = &page[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 4);
    &rest[..end]
}

/// The fenced blocks of `text`: (language, body).
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(lang) = line.strip_prefix("```") else {
            continue;
        };
        let mut body = String::new();
        for l in lines.by_ref() {
            if l == "```" {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        out.push((lang.to_string(), body));
    }
    out
}

/// The summary line's simulation time, which varies from run to run.
fn timeless(text: &str) -> String {
    text.lines()
        .map(|l| match l.find(" lane-operations, ") {
            Some(i) if l[i..].contains(" s, ") => {
                let head = &l[..i + " lane-operations, ".len()];
                let tail = &l[head.len()..];
                let after = &tail[tail.find(" s, ").unwrap()..];
                format!("{head}TIME{after}\n")
            }
            _ => format!("{l}\n"),
        })
        .collect()
}

/// One `$ warpkit ...` command and the output the page shows for it.
struct Step {
    args: Vec<String>,
    shown: String,
}

fn steps(body: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for line in body.lines() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut words = cmd.split_whitespace().map(str::to_string);
            assert_eq!(words.next().as_deref(), Some("warpkit"), "{line}");
            out.push(Step {
                args: words.collect(),
                shown: String::new(),
            });
        } else {
            let step = out.last_mut().expect("a command before its output");
            step.shown.push_str(line);
            step.shown.push('\n');
        }
    }
    out
}

fn run(dir: &Path, step: &Step) -> String {
    // A debugger session reads the commands typed after its prompts.
    let input: String = step
        .shown
        .lines()
        .filter_map(|l| l.strip_prefix("(warpkit) "))
        .map(|c| format!("{c}\n"))
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .current_dir(dir)
        .args(&step.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpkit runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "warpkit {}: {}",
        step.args.join(" "),
        stderr(&o)
    );
    format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o))
}

#[test]
fn the_worked_example_runs_as_shown() {
    let page = page();
    let section = section(&page);
    let d: PathBuf = dir("opencl-doc");
    let blocks = blocks(section);
    let (_, source) = blocks
        .iter()
        .find(|(lang, _)| lang == "c")
        .expect("the example's source");
    let name = source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("// "))
        .expect("the source's first line names its file: // NAME.cl");
    std::fs::write(d.join(name), source).unwrap();
    let mut commands = 0;
    let mut sessions = 0;
    for (_, body) in blocks.iter().filter(|(lang, _)| lang == "text") {
        for step in steps(body) {
            let got = run(&d, &step);
            assert_eq!(
                timeless(&got),
                timeless(&step.shown),
                "`warpkit {}` now prints (update docs/opencl.md):\n{got}",
                step.args.join(" ")
            );
            commands += 1;
            sessions += usize::from(step.args[0] == "debug");
        }
    }
    assert!(
        commands >= 4 && sessions == 1,
        "{commands} commands, {sessions} sessions"
    );
    // The session stops at a line of the source and steps, as the text explains.
    assert!(section.contains(&format!("(warpkit) break {name}:")));
    assert!(section.contains("(warpkit) step"));
}

#[test]
fn the_summary_time_is_all_that_is_ignored() {
    assert_eq!(
        timeless("1 workgroup, 1 warp, 7 instructions, 96 lane-operations, 0.003 s, 0 hazards\n"),
        "1 workgroup, 1 warp, 7 instructions, 96 lane-operations, TIME s, 0 hazards\n"
    );
    assert_ne!(
        timeless("1 workgroup, 1 warp, 7 instructions, 96 lane-operations, 0.003 s, 0 hazards\n"),
        timeless("1 workgroup, 1 warp, 8 instructions, 96 lane-operations, 0.003 s, 0 hazards\n"),
    );
}
