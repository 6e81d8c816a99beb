//! `warpkit gen`: one program to stdout, reproducible; `-o DIR --count N` files that
//! `warpkit run FILE.s` runs alone (the `.launch` directives) with one signature on both
//! engines; `--check`; bad weights files and options are bad input (exit 2).

use crate::common::*;

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn one_program_to_stdout_is_the_library_s_and_reproducible() {
    let a = warpkit(&["gen", "--seed", "17", "--length", "80"]);
    expect(&a, 0, &[]);
    let b = warpkit(&["gen", "--seed", "17", "--length", "80"]);
    assert_eq!(a.stdout, b.stdout);
    let options = warpkit_verify::gen::GenOptions {
        length: 80,
        ..Default::default()
    };
    assert_eq!(stdout(&a), warpkit_verify::gen::generate(&options, 17).text);
    assert!(stdout(&a).starts_with("// warpkit gen --seed 17 --length 80\n"));
}

#[test]
fn files_run_alone_with_one_signature_on_both_engines() {
    let d = dir("gen-files");
    let out = d.join("progs");
    let o = warpkit(&["gen", "--seed", "5", "--count", "3", "-o", s(&out)]);
    expect(&o, 0, &[]);
    for seed in 5..8 {
        let file = out.join(format!("gen-{seed}.s"));
        assert!(file.is_file(), "{}", file.display());
        let mut sigs = Vec::new();
        for engine in ["jit", "interp"] {
            let sig = d.join(format!("sig-{seed}-{engine}.bin"));
            let o = warpkit(&[
                "run",
                s(&file),
                "--engine",
                engine,
                "--out",
                &format!("sig={}", s(&sig)),
            ]);
            expect(&o, 0, &[" 0 hazards"]);
            sigs.push(std::fs::read(&sig).unwrap());
        }
        assert_eq!(sigs[0], sigs[1], "seed {seed}");
        assert!(sigs[0].iter().any(|&b| b != 0));
    }
    assert!(!out.join("gen-8.s").exists());
    // One program to a file.
    let one = d.join("one.s");
    expect(&warpkit(&["gen", "--seed", "5", "-o", s(&one)]), 0, &[]);
    assert_eq!(
        std::fs::read(&one).unwrap(),
        std::fs::read(out.join("gen-5.s")).unwrap()
    );
}

#[test]
fn check_runs_seeds_on_both_engines() {
    let o = warpkit(&["gen", "--seed", "100", "--count", "5", "--check"]);
    expect(&o, 0, &[]);
    assert!(stdout(&o).contains("5 passed, 0 failed"), "{}", stdout(&o));
}

#[test]
fn bad_weights_and_options_are_bad_input() {
    let d = dir("gen-bad");
    let w = d.join("w.yaml");
    std::fs::write(&w, "groups:\n  salu: 2\n  nosuch: 1\n").unwrap();
    let o = warpkit(&["gen", "--seed", "1", "--weights", s(&w)]);
    expect(
        &o,
        2,
        &[&format!(
            "{}:3:3: unknown instruction group `nosuch`",
            s(&w)
        )],
    );
    expect(
        &warpkit(&["gen", "--seed", "1", "--count", "2"]),
        2,
        &["give -o DIR"],
    );
    expect(
        &warpkit(&["gen", "--seed", "1", "--streams", "exec,nope"]),
        2,
        &["unknown stream kind `nope`"],
    );
    let ok = d.join("ok.yaml");
    std::fs::write(&ok, "streams:\n  memory: 200\n").unwrap();
    let o = warpkit(&["gen", "--seed", "1", "--weights", s(&ok)]);
    expect(&o, 0, &[]);
    assert!(stdout(&o).contains("// weights: stream.memory=200"));
}

#[test]
fn launch_directives_are_checked_and_command_line_options_win() {
    let d = dir("gen-launch");
    let k = d.join("k.s");
    std::fs::write(&k, ".launch grid=2x1x1, block=64, shared=128\n.launch_arg out=buf:4096\nuload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nsll.vi v5, v3, 2\nmov.vu v6, u12\ngstore.b32 v6, v5, u[16:17], 0\nendpgm\n").unwrap();
    let out = d.join("out.bin");
    let o = warpkit(&["run", s(&k), "--out", &format!("out={}", s(&out))]);
    expect(&o, 0, &["2 workgroups, 4 warps"]);
    assert_eq!(std::fs::read(&out).unwrap().len(), 4096);
    // With launch options the directives are not used.
    let o = warpkit(&["run", s(&k), "--grid", "1", "--arg", "out=buf:256"]);
    expect(&o, 0, &["1 workgroup, 1 warp"]);
    std::fs::write(&k, "nop\n  .launch grid=1, wraps=2\nendpgm\n").unwrap();
    let o = warpkit(&["run", s(&k)]);
    expect(&o, 2, &["k.s:2:19: unknown `.launch` key `wraps`"]);
}
