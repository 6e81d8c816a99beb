//! Golden diagnostics: each `tests/diagnostics/NAME.s` is assembled and its rendered errors
//! compared with `NAME.stderr`. Set `UPDATE_GOLDEN=1` to rewrite the expected files.

use std::path::Path;
use warpkit_asm::assemble_bytes;

#[test]
fn golden_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .collect();
    entries.sort();
    assert!(!entries.is_empty());
    let mut failures = Vec::new();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        // Named by their path from the crate, so `.include` finds its neighbours.
        let shown = format!("tests/diagnostics/{name}");
        let rendered = match assemble_bytes(&bytes, &shown) {
            Ok(_) => "(no errors)\n".to_string(),
            Err(e) => e.render(&String::from_utf8_lossy(&bytes)),
        };
        let expected_path = path.with_extension("stderr");
        if update {
            std::fs::write(&expected_path, &rendered).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != rendered {
            failures.push(format!(
                "--- {name}: expected\n{expected}--- got\n{rendered}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn non_utf8_and_limits() {
    let e = assemble_bytes(b"nop\nadd v1, v2, \xff\xfe\n", "bad.s").unwrap_err();
    assert_eq!(
        e.render("nop\nadd v1, v2, ??\n").lines().next().unwrap(),
        "bad.s:2:13: error: invalid UTF-8 at byte offset 16"
    );
    let long = format!(
        "nop\n{}\nnop\n",
        "x".repeat(warpkit_asm::MAX_LINE_BYTES + 1)
    );
    let e = assemble_bytes(long.as_bytes(), "long.s").unwrap_err();
    let text = e.render(&long);
    assert!(
        text.starts_with("long.s:2:1: error: line is 65537 bytes long; the limit is 65536 bytes"),
        "{text}"
    );
    assert!(text.len() < 1000, "the over-long line is not quoted");
}

#[test]
fn a_million_bad_lines_are_capped_and_quick() {
    let src = "ad v1, v2, v3\nbz u1, nowhere\n".repeat(500_000);
    // Suggestions stop once diagnostics are capped, so this stays linear.
    let e = warpkit_asm::assemble(&src, "many.s").unwrap_err();
    assert_eq!(e.errors.len(), warpkit_asm::MAX_ERRORS);
    assert_eq!(e.len(), 1_000_000);
    assert!(e.render(&src).ends_with("1000000 errors in many.s\n"));
}
