//! Source locations from `.file`/`.loc` (a compiler's output) in every tool: `dis -l` with
//! the lines of the C source, trap reports naming `k.cl:LINE:COL` from source, from ELF and
//! from a resumed checkpoint, the debugger's `disas` and `break FILE:LINE:COL`, and
//! profiles.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;

fn warpkit_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("warpkit runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const CL: &str = "\
kernel void k(global int *out)
{
    int x = get_local_id(0);
    set_mode(-1);
}
";

/// What a compiler writes for `CL`: the instructions of line 3 and of line 4 (two columns).
const ASM: &str = "\
    .file 1 \"k.cl\"
    nop
    .loc 1 3 13 prologue_end
    laneid v1
    .loc 1 4 5
    umov.l u1, 0xffffffff
    .loc 1 4 14 is_stmt 0
    csrw mode, u1
    endpgm
";

fn kernel(d: &Path) {
    std::fs::write(d.join("k.cl"), CL).unwrap();
    std::fs::write(d.join("k.s"), ASM).unwrap();
    let o = warpkit_in(d, &["asm", "k.s", "-o", "k.o"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "no warning for .file/.loc");
}

#[test]
fn dis_l_shows_the_c_source_lines_and_columns() {
    let d = dir("loc-dis");
    kernel(&d);
    for input in ["k.o", "k.s"] {
        let o = warpkit_in(&d, &["dis", "-l", input]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        // Before the first `.loc`: the assembly line.
        assert!(
            out.contains("k.s:2\n    nop\n       0:  "),
            "{input}:\n{out}"
        );
        assert!(
            out.contains("k.cl:3:13\n    int x = get_local_id(0);\n       4:  "),
            "{input}:\n{out}"
        );
        // Two columns of one line: two location rows, the text once.
        assert!(
            out.contains("k.cl:4:5\n    set_mode(-1);\n       8:  "),
            "{input}:\n{out}"
        );
        assert!(out.contains("k.cl:4:14\n      10:  "), "{input}:\n{out}");
        assert_eq!(out.matches("set_mode(-1);").count(), 1, "{input}:\n{out}");
    }
}

#[test]
fn traps_name_the_c_line_and_column() {
    let d = dir("loc-trap");
    kernel(&d);
    let want = "`csrw mode, u1`, trapinfo 0xffffffff (k.cl:4:14)\n";
    for input in ["k.s", "k.o"] {
        expect(&warpkit_in(&d, &["run", input]), 1, &[want]);
    }
    // A run stopped at a checkpoint and resumed reports the same location.
    let o = warpkit_in(
        &d,
        &[
            "run",
            "k.o",
            "--grid",
            "1",
            "--stop-after-steps",
            "2",
            "--save-checkpoint",
            "k.wkc",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    expect(&warpkit_in(&d, &["run", "--resume", "k.wkc"]), 1, &[want]);
}

#[test]
fn the_debugger_shows_and_breaks_at_columns() {
    let d = dir("loc-debug");
    kernel(&d);
    std::fs::write(
        d.join("cmds"),
        "break k.cl:4:14\ncontinue\ndisas 0x4 4\ncontinue\n",
    )
    .unwrap();
    let o = warpkit_in(&d, &["debug", "k.o", "--batch", "cmds"]);
    let out = stdout(&o);
    assert!(out.contains("breakpoint 1 at 0x10 (k.cl:4:14)\n"), "{out}");
    assert!(
        out.contains("k.cl:3:13: int x = get_local_id(0);\n   0x0004:  laneid v1\n"),
        "{out}"
    );
    assert!(
        out.contains("k.cl:4:14: set_mode(-1);\n=>*0x0010:"),
        "{out}"
    );
    assert!(out.contains("trapinfo 0xffffffff (k.cl:4:14)\n"), "{out}");
}

#[test]
fn profiles_have_columns() {
    let d = dir("loc-profile");
    kernel(&d);
    let o = warpkit_in(&d, &["run", "k.o", "--profile", "p.json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("p.json")).unwrap()).unwrap();
    assert_eq!(v["version"], warpkit_prof::PROFILE_SCHEMA_VERSION);
    let at: Vec<String> = v["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| format!("{}:{}:{}", i["file"], i["line"], i["column"]))
        .collect();
    assert_eq!(
        at,
        [
            "\"k.s\":2:null",
            "\"k.cl\":3:13",
            "\"k.cl\":4:5",
            "\"k.cl\":4:14",
            "\"k.cl\":4:14"
        ]
    );
    let o = warpkit_in(&d, &["run", "k.o", "--profile", "p.txt"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("p.txt")).unwrap();
    assert!(text.contains("k.cl:4:14"), "{text}");
}
