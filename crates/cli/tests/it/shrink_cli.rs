//! `warpkit shrink`: a generated program with a planted disagreement (a DUT that executes
//! `xor` as `or`) shrinks to a few instructions that run alone and still disagree; a program
//! the DUT agrees on is a runtime failure (exit 1); a program that does not assemble is bad
//! input (exit 2).

use crate::common::*;
use std::path::PathBuf;

/// warpkit-verify's example DUT with a planted bug; `cargo test --workspace` builds it.
fn broken_dut(from: &str, to: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    let dir: PathBuf = exe.parent().unwrap().parent().unwrap().join("examples");
    let p = dir.join(format!("broken_dut{}", std::env::consts::EXE_SUFFIX));
    assert!(
        p.exists(),
        "{} is missing: `cargo test --workspace` builds warpkit-verify's examples",
        p.display()
    );
    format!("{} {from} {to}", p.display())
}

#[test]
fn a_planted_disagreement_shrinks_to_a_program_that_still_shows_it() {
    let d = dir("shrink");
    // The first seed whose 1000-instruction program the planted bug changes (a program
    // whose every `xor` result is overwritten shows nothing to shrink).
    let dut = broken_dut("xor", "or");
    let options = warpkit_verify::gen::GenOptions {
        length: 1000,
        ..Default::default()
    };
    let seed = (1..50)
        .find(|&seed| {
            let text = warpkit_verify::gen::generate(&options, seed).text;
            let dut = warpkit_verify::dut::Dut::new(&dut);
            warpkit_verify::shrink::disagreement(&text, "p.s", &dut).is_some()
        })
        .expect("a seed below 50 whose program the planted bug changes");
    let prog = d.join(format!("gen-{seed}.s"));
    let seed = seed.to_string();
    expect(
        &warpkit(&["gen", "--seed", &seed, "--length", "1000", "-o", s(&prog)]),
        0,
        &[],
    );
    let min = d.join("min.s");
    let o = warpkit(&["shrink", s(&prog), "--dut", &dut, "-o", s(&min)]);
    expect(&o, 0, &["note: shrunk ", "note: the DUT disagrees: "]);
    let text = std::fs::read_to_string(&min).unwrap();
    let instructions = text
        .lines()
        .filter(|l| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with('.') && !l.starts_with("//") && !l.ends_with(':')
        })
        .count();
    assert!(instructions <= 5, "{instructions} instructions:\n{text}");
    assert!(text.contains("xor"), "{text}");
    // It runs alone (its launch directives came along) and cleanly on the model.
    expect(&warpkit(&["run", s(&min)]), 0, &[" 0 hazards"]);
    // Shrinking is deterministic.
    let again = d.join("min2.s");
    let o = warpkit(&["shrink", s(&prog), "--dut", &dut, "-o", s(&again)]);
    expect(&o, 0, &[]);
    assert_eq!(std::fs::read(&again).unwrap(), text.as_bytes());
}

#[test]
fn no_disagreement_is_exit_1_and_bad_input_exit_2() {
    let d = dir("shrink-errors");
    let prog = d.join("gen-3.s");
    expect(&warpkit(&["gen", "--seed", "3", "-o", s(&prog)]), 0, &[]);
    let o = warpkit(&["shrink", s(&prog), "--dut", &broken_dut("add", "add")]);
    expect(&o, 1, &["does not show the disagreement"]);
    let bad = d.join("bad.s");
    std::fs::write(&bad, "    add v1, v2\n").unwrap();
    let o = warpkit(&["shrink", s(&bad), "--dut", &broken_dut("xor", "or")]);
    expect(&o, 2, &["bad.s:1:"]);
}
