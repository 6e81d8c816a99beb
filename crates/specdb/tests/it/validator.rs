//! The build-time checks reject broken databases, naming the entries at fault.

use warpkit_specdb::{load, load_from_texts, SpecError};

const FORMATS: &str = r#"
formats:
  - {name: R, width: 32, purpose: "three sources", fields: [[f4, 31, 28], [rs2, 27, 21], [rs1, 20, 14], [rd, 13, 7], [opcode, 6, 0]]}
  - {name: X, width: 64, purpose: "wide", fields: [[imm, 63, 32], [f11, 31, 21], [rs1, 20, 14], [rd, 13, 7], [opcode, 6, 0]]}
"#;
const OPERANDS: &str = r#"
types:
  - {name: vreg, class: vreg, bits: 7, description: "v"}
  - {name: imm32, class: imm, bits: 32, description: "literal"}
  - {name: cnt_vm, class: uimm, bits: 6, description: "vm"}
kinds:
  - {kind: v, type: vreg, access: write-or-read}
  - {kind: k32, type: imm32}
"#;
const CSRS: &str = "csrs: []\n";
const COUNTERS: &str = r#"
counters:
  - {name: vm, bits: 6, max_outstanding: 62, order: in-order, covers: "loads"}
"#;

fn group(entries: &str) -> String {
    format!(
        "group: 1\ntitle: t\nunit: u\nsubgroups:\n  - id: s\n    title: s\n    count: {}\n    instructions:\n{entries}",
        entries.lines().filter(|l| l.trim_start().starts_with("- ")).count()
    )
}

fn errors(entries: &str) -> Vec<String> {
    let g = group(entries);
    match load_from_texts(
        FORMATS,
        OPERANDS,
        CSRS,
        COUNTERS,
        &[("spec/instructions/bad.yaml", &g)],
    ) {
        Ok(_) => vec![],
        Err(SpecError::Invalid(e)) => e,
        Err(other) => panic!("unexpected: {other}"),
    }
}

const ADD: &str = r#"      - {mnemonic: add, family: ADD, op: x, operands: "rd:v rs1:v rs2:v", format: R, fixed: {opcode: 0x2, f4: 0x0}, latency: "fixed:4", flags: [], semantics: "d = s1 + s2"}
"#;

#[test]
fn a_sound_database_loads() {
    assert_eq!(errors(ADD), Vec::<String>::new());
}

#[test]
fn planted_overlap_is_rejected() {
    // `sub` has the same opcode and f4 as `add`: one word matches both.
    let e = errors(&format!(
        "{ADD}      - {{mnemonic: sub, family: SUB, op: x, operands: \"rd:v rs1:v rs2:v\", format: R, fixed: {{opcode: 0x2, f4: 0x0}}, latency: \"fixed:4\", flags: [], semantics: \"d = s1 - s2\"}}\n"
    ));
    assert!(
        e.iter().any(|m| m.contains("`sub` overlaps `add`")),
        "{e:?}"
    );
}

#[test]
fn overlap_through_unconstrained_bits_is_rejected() {
    // `neg` leaves rs2 unconstrained (not an operand => must be zero) but a different
    // opcode: no overlap. `mov` shares the opcode, fixes nothing else: it overlaps `add`.
    let e = errors(&format!(
        "{ADD}      - {{mnemonic: mov, family: MOV, op: x, operands: \"rd:v rs1:v rs2:v\", format: R, fixed: {{opcode: 0x2}}, latency: \"fixed:4\", flags: [], semantics: \"d = s1\"}}\n"
    ));
    assert!(e.iter().any(|m| m.contains("`mov`")), "{e:?}");
}

#[test]
fn fixed_value_must_fit_its_field() {
    let e = errors(
        r#"      - {mnemonic: add, family: ADD, op: x, operands: "rd:v rs1:v rs2:v", format: R, fixed: {opcode: 0x2, f4: 0x10}, latency: "fixed:4", flags: [], semantics: "x"}
"#,
    );
    assert!(
        e.iter()
            .any(|m| m.contains("`add`") && m.contains("does not fit")),
        "{e:?}"
    );
}

#[test]
fn opcode_low_bits_must_agree_with_width() {
    let e = errors(
        r#"      - {mnemonic: odd, family: ODD, op: x, operands: "rd:v rs1:v rs2:v", format: R, fixed: {opcode: 0x3, f4: 0x0}, latency: "fixed:4", flags: [], semantics: "x"}
      - {mnemonic: wide, family: W, op: x, operands: "rd:v rs1:v imm:k32", format: X, fixed: {opcode: 0x2, f11: 0x0}, latency: "fixed:4", flags: [], semantics: "x"}
"#,
    );
    assert!(
        e.iter()
            .any(|m| m.contains("`odd`") && m.contains("low bits")),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|m| m.contains("`wide`") && m.contains("low bits")),
        "{e:?}"
    );
}

#[test]
fn operand_needs_a_field_of_the_right_width() {
    let e = errors(
        r#"      - {mnemonic: bad, family: B, op: x, operands: "rd:v imm:k32", format: R, fixed: {opcode: 0x2, f4: 0x0}, latency: "fixed:4", flags: [], semantics: "x"}
      - {mnemonic: bad2, family: B, op: x, operands: "rd:v f4:v", format: R, fixed: {opcode: 0x4}, latency: "fixed:4", flags: [], semantics: "x"}
"#,
    );
    assert!(
        e.iter()
            .any(|m| m.contains("`bad`") && m.contains("no field")),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|m| m.contains("`bad2`") && m.contains("4-bit field")),
        "{e:?}"
    );
}

#[test]
fn unknown_flags_latency_and_counts_are_rejected() {
    let e = errors(
        r#"      - {mnemonic: add, family: ADD, op: x, operands: "rd:v rs1:v rs2:v", format: R, fixed: {opcode: 0x2, f4: 0x0}, latency: "slow", flags: [zz], semantics: "x"}
"#,
    );
    assert!(e.iter().any(|m| m.contains("unknown flag `zz`")), "{e:?}");
    assert!(e.iter().any(|m| m.contains("latency `slow`")), "{e:?}");
}

#[test]
fn formats_must_tile_their_width() {
    let bad = r#"
formats:
  - {name: G, width: 32, purpose: "gap", fields: [[a, 31, 20], [b, 18, 7], [opcode, 6, 0]]}
  - {name: O, width: 32, purpose: "overlap", fields: [[a, 31, 20], [b, 20, 7], [opcode, 6, 0]]}
"#;
    let Err(SpecError::Invalid(e)) = load_from_texts(bad, OPERANDS, CSRS, COUNTERS, &[]) else {
        panic!("accepted");
    };
    assert!(
        e.iter()
            .any(|m| m.contains("format G") && m.contains("gap at bits [19:19]")),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|m| m.contains("format O") && m.contains("overlaps")),
        "{e:?}"
    );
}

#[test]
fn the_real_database_is_sound() {
    let db = load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec")).unwrap();
    assert_eq!(db.formats.len(), 28);
    assert_eq!(db.instructions.iter().filter(|i| i.group == 1).count(), 241);
}

#[test]
fn execution_facts_are_checked() {
    // The operation a variant performs must be a name the model can be keyed by.
    let e = errors(&ADD.replace("op: x", "op: Add-2"));
    assert!(
        e.iter()
            .any(|m| m.contains("op `Add-2` is not a lowercase identifier")),
        "{e:?}"
    );
    // Memory facts belong to the provisional asynchronous memory instructions only.
    let e = errors(&ADD.replace(
        "op: x,",
        "op: x, memory: {access: load, address: global, size: 4},",
    ));
    assert!(
        e.iter()
            .any(|m| m.contains("`memory` on an instruction that is not a provisional")),
        "{e:?}"
    );
}
