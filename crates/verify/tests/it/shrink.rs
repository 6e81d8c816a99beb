//! `shrink`: a planted disagreement in a long generated program shrinks to a handful of
//! instructions that still show it.

use std::path::PathBuf;
use warpkit_verify::dut::Dut;
use warpkit_verify::gen::{generate, GenOptions};
use warpkit_verify::shrink::{disagreement, shrink_program, ShrinkError, ShrinkOptions};

/// The example DUT with a planted bug, built by `cargo test` beside this binary.
fn broken_dut(from: &str, to: &str) -> Dut {
    let exe = std::env::current_exe().unwrap();
    let dir: PathBuf = exe.parent().unwrap().parent().unwrap().join("examples");
    let p = dir.join(format!("broken_dut{}", std::env::consts::EXE_SUFFIX));
    assert!(
        p.exists(),
        "{} is missing: cargo test builds the examples",
        p.display()
    );
    Dut::new(&format!("{} {from} {to}", p.display()))
}

/// The first seed whose 1000-instruction program the planted bug (`xor` executed as `or`)
/// changes: a program whose every `xor` result is overwritten, or whose operands share no
/// bits, shows no disagreement to shrink.
fn long_program_with_xor() -> (u64, String) {
    let options = GenOptions {
        length: 1000,
        ..GenOptions::default()
    };
    let dut = broken_dut("xor", "or");
    (1..50)
        .map(|seed| (seed, generate(&options, seed).text))
        .filter(|(_, text)| text.lines().any(|l| l.trim_start().starts_with("xor ")))
        .find(|(seed, text)| disagreement(text, &format!("gen-{seed}.s"), &dut).is_some())
        .expect("a seed below 50 whose program the planted bug changes")
}

#[test]
fn a_planted_bug_in_a_thousand_instructions_shrinks_to_at_most_five() {
    let (seed, text) = long_program_with_xor();
    let name = format!("gen-{seed}.s");
    let before = warpkit_asm::assemble(&text, &name).unwrap().listing.len();
    assert!(before >= 1000, "{before} instructions");
    let dut = broken_dut("xor", "or");
    let shrunk = shrink_program(&text, &name, &dut, ShrinkOptions::default()).unwrap();
    assert!(
        shrunk.instructions <= 5,
        "{} instructions left:\n{}",
        shrunk.instructions,
        shrunk.source
    );
    assert!(shrunk.source.contains("xor"), "{}", shrunk.source);
    // What is left still disagrees, the way the result says.
    let again = disagreement(&shrunk.source, &name, &dut).unwrap();
    assert_eq!(again.len(), shrunk.mismatches.len());
    // One workgroup of the fewest threads that still show it.
    assert_eq!(shrunk.launch.grid.unwrap_or([1, 1, 1]), [1, 1, 1]);
    // Deterministic: shrinking the result again changes nothing.
    let twice = shrink_program(&shrunk.source, &name, &dut, ShrinkOptions::default()).unwrap();
    assert_eq!(twice.source, shrunk.source);
}

#[test]
fn a_program_the_dut_agrees_on_cannot_be_shrunk() {
    let text = generate(&GenOptions::default(), 7).text;
    let no_bug = broken_dut("add", "add");
    assert!(matches!(
        shrink_program(&text, "gen-7.s", &no_bug, ShrinkOptions::default()),
        Err(ShrinkError::NotFailing)
    ));
}

#[test]
fn the_budget_bounds_the_candidates_tried() {
    let (seed, text) = long_program_with_xor();
    let name = format!("gen-{seed}.s");
    let options = ShrinkOptions { max_tests: 20 };
    let shrunk = shrink_program(&text, &name, &broken_dut("xor", "or"), options).unwrap();
    assert!(shrunk.tests <= 21, "{} candidates", shrunk.tests);
    assert!(!shrunk.mismatches.is_empty());
}

/// A macro's line stays or goes as one line, and counts as the instructions it expands to.
#[test]
fn a_macro_line_counts_as_its_instructions() {
    let text = "\
.macro twice r
    movi v\\r, 3
    add v\\r, v\\r, v\\r
.endm
    twice 1
    twice 2
    endpgm
";
    let shrunk = shrink_program(
        text,
        "m.s",
        &broken_dut("add", "sub"),
        ShrinkOptions::default(),
    )
    .unwrap();
    assert_eq!(shrunk.instructions, 3, "{}", shrunk.source);
    assert!(shrunk.source.contains("twice"), "{}", shrunk.source);
}
