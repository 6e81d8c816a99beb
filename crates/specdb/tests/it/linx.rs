//! The LinxISA micro-instruction table is validated at build time like the GPU database:
//! broken entries are rejected with one message each, naming the entry.

use warpkit_specdb::linx::{load, load_from_texts};
use warpkit_specdb::SpecError;

fn errors(yaml: &str) -> Vec<String> {
    match load_from_texts(&[("t.yaml", yaml)]) {
        Err(SpecError::Invalid(e)) => e,
        Err(e) => vec![e.to_string()],
        Ok(_) => Vec::new(),
    }
}

const GOOD: &str = r#"
title: t
instructions:
  - {mnemonic: add, form: alu, op: add, out_widths: [b, h, w, d], source: "[pub x]", semantics: "a + b"}
"#;

#[test]
fn the_project_table_loads() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec/linx");
    let db = load(&dir).unwrap();
    assert!(db.instructions.len() > 90);
    let code = warpkit_specdb::linx::generate(&db);
    assert!(code.contains("pub static INSNS"));
    assert!(warpkit_specdb::linx::reference(&db).contains("| `rdadd` |"));
}

#[test]
fn a_good_entry_passes() {
    assert!(errors(GOOD).is_empty(), "{:?}", errors(GOOD));
}

#[test]
fn broken_entries_are_named() {
    let cases = [
        (GOOD.replace("form: alu", "form: nope"), "unknown form"),
        (GOOD.replace("[pub x]", "[guess]"), "source"),
        (GOOD.replace("mnemonic: add", "mnemonic: ADD"), "lower case"),
        (
            GOOD.replace("out_widths: [b, h, w, d], ", ""),
            "needs output widths",
        ),
        (
            GOOD.replace("out_widths: [b, h, w, d]", "out_widths: [q]"),
            "unknown output width",
        ),
        (
            GOOD.replace("op: add,", "op: add, writes_globals: true,"),
            "only reduces",
        ),
        (
            GOOD.replace("op: add,", "op: add, access: w,"),
            "only memory forms",
        ),
        (
            GOOD.replace("form: alu,", "form: alu_imm,"),
            "needs an immediate",
        ),
        (
            GOOD.replace("semantics: \"a + b\"", "semantics: \" \""),
            "no semantics",
        ),
        (
            GOOD.replace(
                "form: alu, op: add, out_widths: [b, h, w, d]",
                "form: amo_store, op: amo_add, access: b",
            ),
            "w and d only",
        ),
        (
            format!("{GOOD}{}", GOOD.lines().last().unwrap()),
            "defined twice",
        ),
    ];
    for (yaml, want) in cases {
        let e = errors(&yaml);
        assert!(
            e.iter()
                .any(|m| m.contains(want) && m.contains("t.yaml: instruction")),
            "expected `{want}` in {e:?}"
        );
    }
}
