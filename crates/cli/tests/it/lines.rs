//! Source lines from the command line: `dis -l` on ELF and on source, `file:line` in trap,
//! step-limit, hazard and deadlock reports for kernels from source and from ELF, the
//! debugger's `disas` and stops on an ELF kernel, and profiles of an ELF kernel.

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

/// Expect exit `code` and every piece of `says` in stderr.
/// `k.s` (which includes `inc.s` and calls a macro) written into `d`, and its ELF `k.o`
/// assembled there.
fn sources(d: &Path, main: &str) {
    std::fs::write(d.join("inc.s"), "    umovi u2, 2\n    umovi u3, 3\n").unwrap();
    std::fs::write(d.join("k.s"), main).unwrap();
    let o = warpkit_in(d, &["asm", "k.s", "-o", "k.o"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

const TRAPS: &str = "\
.macro setmode r
    csrw mode, \\r
.endm
    umovi u1, 1
.include \"inc.s\"
    umov.l u1, 0xffffffff
    setmode u1
    endpgm
";

#[test]
fn dis_l_shows_lines_and_text_for_elf_and_source() {
    let d = dir("dis");
    sources(&d, TRAPS);
    for input in ["k.o", "k.s"] {
        let o = warpkit_in(&d, &["dis", "-l", input]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let want = "k.s:4\n    umovi u1, 1\n       0:  ";
        assert!(out.contains(want), "{input}: expected {want:?} in:\n{out}");
        assert!(
            out.contains("inc.s:2\n    umovi u3, 3\n"),
            "{input}:\n{out}"
        );
        // The macro's instruction is under the line that called it.
        assert!(out.contains("k.s:7\n    setmode u1\n"), "{input}:\n{out}");
        // One header per change of line: the 64-bit umov.l has one row.
        assert_eq!(out.matches("k.s:6\n").count(), 1, "{input}:\n{out}");
    }
    // Without the source files the locations are still shown, without text.
    let elsewhere = dir("dis-elsewhere");
    std::fs::copy(d.join("k.o"), elsewhere.join("k.o")).unwrap();
    let out = stdout(&warpkit_in(&elsewhere, &["dis", "-l", "k.o"]));
    assert!(out.contains("k.s:4\n       0:  "), "{out}");
    // Without -l, nothing changes; -l with --plain is refused.
    let out = stdout(&warpkit_in(&d, &["dis", "k.o"]));
    assert!(!out.contains("k.s:"), "{out}");
    let o = warpkit_in(&d, &["dis", "-l", "--plain", "k.o"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn traps_name_the_source_line_from_source_and_from_elf() {
    let d = dir("trap");
    sources(&d, TRAPS);
    for input in ["k.s", "k.o"] {
        let o = warpkit_in(&d, &["run", input]);
        expect(
            &o,
            1,
            &["error: workgroup (0,0,0) warp 0 trapped: cause 8 (illegal mode value) at pc 0x14: \
               `csrw mode, u1`, trapinfo 0xffffffff (k.s:7)\n"],
        );
    }
    // Raw code has no lines: the message is as before.
    let o = warpkit_in(&d, &["asm", "k.s", "-o", "k.bin"]);
    assert!(o.status.success());
    let o = warpkit_in(&d, &["run", "k.bin"]);
    expect(&o, 1, &["trapinfo 0xffffffff\n"]);
    // Step limits too.
    std::fs::write(d.join("loop.s"), "    nop\ntop:\n    jmp top\n").unwrap();
    let o = warpkit_in(&d, &["run", "loop.s", "--max-steps", "50"]);
    expect(&o, 1, &["not stuck in a loop (loop.s:3)\n"]);
}

#[test]
fn hazards_and_deadlocks_name_their_lines() {
    let d = dir("hazard");
    sources(
        &d,
        "    uload.b64 u[16:17], u[0:1], 0\n    umov u20, u16\n    endpgm\n",
    );
    for input in ["k.s", "k.o"] {
        let o = warpkit_in(&d, &["run", input, "--arg", "x=buf:8"]);
        expect(&o, 0, &["is pending (k.s:2; pending: k.s:1)\n"]);
    }
    let o = warpkit_in(
        &d,
        &["run", "k.s", "--arg", "x=buf:8", "--hazards-json", "h.json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("h.json")).unwrap()).unwrap();
    assert_eq!(v["hazards"][0]["source"], "k.s:2");
    assert_eq!(v["hazards"][0]["pending_source"], "k.s:1");

    let d = dir("deadlock");
    sources(
        &d,
        "    bnz u29, .Lx\n    barrier\n    endpgm\n.Lx:\n    csrw warpid, u1\n",
    );
    for input in ["k.s", "k.o"] {
        let o = warpkit_in(&d, &["run", input, "--block", "64"]);
        expect(
            &o,
            1,
            &["warp 1 trapped at pc 0xc (cause 9, illegal CSR access) (warp 0 at k.s:2, warp 1 at k.s:5)\n"],
        );
    }
}

#[test]
fn the_debugger_shows_lines_of_an_elf_kernel() {
    let d = dir("debug");
    sources(&d, TRAPS);
    std::fs::write(d.join("cmds"), "break inc.s:2\ncontinue\ndisas\ncontinue\n").unwrap();
    let o = warpkit_in(&d, &["debug", "k.o", "--batch", "cmds"]);
    let out = stdout(&o);
    assert!(out.contains("breakpoint 1 at 0x8 (inc.s:2)\n"), "{out}");
    assert!(
        out.contains("inc.s:2: umovi u3, 3\n=>*0x0008:  umovi u3, 3\n"),
        "{out}"
    );
    assert!(out.contains("k.s:7: setmode u1\n"), "{out}");
    assert!(out.contains("trapinfo 0xffffffff (k.s:7)\n"), "{out}");
}

#[test]
fn profiles_of_an_elf_kernel_have_lines() {
    let d = dir("profile");
    sources(&d, "    umovi u1, 1\n.include \"inc.s\"\n    endpgm\n");
    let o = warpkit_in(&d, &["run", "k.o", "--profile", "p.json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("p.json")).unwrap()).unwrap();
    let at: Vec<(String, u64)> = v["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["file"].as_str().unwrap_or("-").to_string(),
                i["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = [("k.s", 1), ("inc.s", 1), ("inc.s", 2), ("k.s", 3)]
        .iter()
        .map(|(f, l)| (f.to_string(), *l))
        .collect();
    assert_eq!(at, want);
    let o = warpkit_in(&d, &["run", "k.o", "--profile", "p.txt"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("p.txt")).unwrap();
    assert!(text.contains("inc.s:2"), "{text}");
}
