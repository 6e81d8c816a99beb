//! `docs/linx-reference.md` is generated from `spec/linx/*.yaml`: the committed copy must be
//! current. `WARPKIT_BLESS=1 cargo test -p warpkit-linx --test reference` rewrites it.

#[test]
fn committed_reference_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/linx-reference.md");
    if std::env::var_os("WARPKIT_BLESS").is_some() {
        std::fs::write(path, warpkit_linx::REFERENCE_MARKDOWN).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == warpkit_linx::REFERENCE_MARKDOWN,
        "docs/linx-reference.md is stale: run `WARPKIT_BLESS=1 cargo test -p warpkit-linx --test reference` and commit it"
    );
}

#[test]
fn every_table_row_is_described_in_the_reference() {
    for d in warpkit_linx::tables::INSNS {
        assert!(
            warpkit_linx::REFERENCE_MARKDOWN.contains(&format!("| `{}` |", d.mnemonic)),
            "{} missing",
            d.mnemonic
        );
    }
}
