//! Loads the SIMT micro-instruction table (`spec/linx/`), rejects it if it is inconsistent,
//! and writes the parser's tables and the reference text into `OUT_DIR`.
//!
//! The tables come from `warpkit_specdb::linx::generate`; [`document`] then gives every
//! variant and field that has no doc comment one: the `Op` variants from the table entries
//! that perform them (mnemonics, semantics, source tags), the fixed enums and fields from
//! [`FIXED_DOCS`]. Names, types and values are left exactly as generated.

use std::path::PathBuf;
use warpkit_specdb::linx::{LinxDatabase, LinxEntry};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let dir = manifest.join("../../spec/linx");
    println!("cargo:rerun-if-changed={}", dir.display());
    match warpkit_specdb::linx::source_files(&dir) {
        Ok(files) => {
            for f in files {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
        Err(e) => fail(&e.to_string()),
    }
    let db = match warpkit_specdb::linx::load(&dir) {
        Ok(db) => db,
        Err(e) => fail(&e.to_string()),
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let tables = document(&warpkit_specdb::linx::generate(&db), &db);
    std::fs::write(out.join("tables.rs"), tables).expect("write tables.rs");
    std::fs::write(
        out.join("linx-reference.md"),
        warpkit_specdb::linx::reference(&db),
    )
    .expect("write linx-reference.md");
}

/// Docs of the generated items that do not come from table entries: `(type, item, lines)`.
const FIXED_DOCS: &[(&str, &str, &[&str])] = &[
    (
        "ImmKind",
        "None",
        &["No immediate of the `*_imm` forms (`jr` and `addtpc` bound theirs by their form)."],
    ),
    (
        "ImmKind",
        "Uimm",
        &["Unsigned immediate 0..2^24-1, zero-extended, then cut to the input width w (SPEC §3 rule 8 [P])."],
    ),
    (
        "ImmKind",
        "Simm",
        &["Signed immediate -2^23..2^23-1, sign-extended, then cut to the input width w (SPEC §3 rule 8 [P])."],
    ),
    (
        "ImmKind",
        "Shamt",
        &["Shift amount 0..w-1 for input width w (SPEC §4, ALU)."],
    ),
    (
        "Signed",
        "Opcode",
        &["The mnemonic fixes the signedness (`cmp.lt` against `cmp.ltu`, `sra` against `srl`); the operand suffixes give the width only (SPEC §3 rule 6)."],
    ),
    (
        "Signed",
        "Suffix",
        &["The inputs' `.s*` or `.u*` suffix selects signed or unsigned (SPEC §3 rule 6)."],
    ),
    (
        "Signed",
        "None",
        &["The operation does not depend on signedness; the suffix still decides how a wider output is extended (SPEC §3 rule 3)."],
    ),
    (
        "InsnDef",
        "mnemonic",
        &["The body mnemonic as written in the source, lower case (`add`, `cmp.ltu`, `lw.add`)."],
    ),
    (
        "InsnDef",
        "form",
        &["Operand shape and typing rule the instruction follows."],
    ),
    (
        "InsnDef",
        "op",
        &["The operation performed; several mnemonics may share one (`add` and `addi`)."],
    ),
    (
        "InsnDef",
        "imm",
        &["Kind and range of the immediate of the `*_imm` forms; `ImmKind::None` for every other form."],
    ),
    (
        "InsnDef",
        "signed",
        &["Where the signedness of the inputs comes from (SPEC §3 rule 6)."],
    ),
    (
        "InsnDef",
        "writes_globals",
        &["Whether the destination is a global register: only reduces write globals [004], any other instruction naming one is E-GDST."],
    ),
    (
        "InsnDef",
        "source",
        &["Source tags of the entry's facts: [003], [004], [pub ...] or [P]."],
    ),
    (
        "InsnDef",
        "semantics",
        &["The result in one line of plain text, as `docs/linx-reference.md` lists it."],
    ),
];

/// Variants whose doc also lists the mnemonics of every entry that has them: `(type,
/// variant)`. The others are too common for a useful list.
const LIST_USERS: &[(&str, &str)] = &[
    ("ImmKind", "Uimm"),
    ("ImmKind", "Simm"),
    ("ImmKind", "Shamt"),
    ("Signed", "Suffix"),
];

/// `` `a`, `b`, `c` ``: the mnemonics of `entries`.
fn mnemonics<'a>(entries: impl Iterator<Item = &'a LinxEntry>) -> String {
    entries
        .map(|e| format!("`{}`", e.mnemonic))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The doc lines of variant or field `item` of the generated type `ty`, if there are any.
fn doc_of(db: &LinxDatabase, ty: &str, item: &str) -> Option<Vec<String>> {
    let entries = || db.instructions.iter().map(|(_, e)| e);
    if ty == "Op" {
        let performing: Vec<&LinxEntry> = entries()
            .filter(|e| warpkit_specdb::op_ident(&e.op) == item)
            .collect();
        let first = performing.first()?;
        let mut lines = vec![format!(
            "`{}`: {} {}",
            first.mnemonic, first.semantics, first.source
        )];
        if performing.len() > 1 {
            lines.push(String::new());
            lines.push(format!(
                "Performed by {}.",
                mnemonics(performing.iter().copied())
            ));
        }
        return Some(lines);
    }
    let (_, _, fixed) = FIXED_DOCS.iter().find(|(t, i, _)| *t == ty && *i == item)?;
    let mut lines: Vec<String> = fixed.iter().map(|l| l.to_string()).collect();
    if LIST_USERS.iter().any(|&(t, i)| t == ty && i == item) {
        let field = |e: &LinxEntry| match ty {
            "ImmKind" => warpkit_specdb::op_ident(&e.imm),
            _ => warpkit_specdb::op_ident(&e.signed),
        };
        let users = mnemonics(entries().filter(|e| field(e) == item));
        if !users.is_empty() {
            lines.push(String::new());
            lines.push(format!("Used by {users}."));
        }
    }
    Some(lines)
}

/// `text` with a `#[doc]` attribute before every variant and field of its enums and structs
/// that has no doc comment and for which [`doc_of`] knows one. A one-line enum
/// (`pub enum X { A, B }`) is written one variant per line. Every other line is kept as it is.
fn document(text: &str, db: &LinxDatabase) -> String {
    let mut out = String::new();
    // The type whose body is being read, and whether the next item has a doc already.
    let mut block: Option<String> = None;
    let mut documented = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if block.is_none() {
            let header = trimmed
                .strip_prefix("pub enum ")
                .map(|rest| ("pub enum", rest))
                .or_else(|| {
                    trimmed
                        .strip_prefix("pub struct ")
                        .map(|rest| ("pub struct", rest))
                });
            if let Some((keyword, (name, body))) =
                header.and_then(|(k, rest)| Some((k, rest.split_once('{')?)))
            {
                let name = name.trim();
                if let Some(items) = body.trim().strip_suffix('}') {
                    out.push_str(&format!("{keyword} {name} {{\n"));
                    for item in items.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                        push_doc(&mut out, db, name, item);
                        out.push_str(&format!("    {item},\n"));
                    }
                    out.push_str("}\n");
                    continue;
                }
                block = Some(name.to_string());
                documented = false;
            }
        } else if let Some(ty) = &block {
            if trimmed == "}" {
                block = None;
            } else if trimmed.starts_with("///") || trimmed.starts_with("#[doc") {
                documented = true;
            } else if !trimmed.starts_with("#[") && !trimmed.is_empty() {
                if !documented {
                    let item = trimmed.trim_end_matches(',');
                    let item = item.strip_prefix("pub ").unwrap_or(item);
                    let item = item.split(':').next().unwrap_or(item).trim();
                    push_doc(&mut out, db, ty, item);
                }
                documented = false;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Appends the `#[doc]` lines of `item` of `ty`, indented as a variant or field.
fn push_doc(out: &mut String, db: &LinxDatabase, ty: &str, item: &str) {
    for line in doc_of(db, ty, item).unwrap_or_default() {
        let line = escape_markdown(&line);
        out.push_str(&format!("    #[doc = {line:?}]\n"));
    }
}

/// `text` with `[`, `]` and `*` outside code spans escaped, so that the table's formulas
/// (`M[A]`, `.u*`) and source tags (`[P]`) render as written instead of as links or
/// emphasis.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut code = false;
    for c in text.chars() {
        if c == '`' {
            code = !code;
        } else if !code && matches!(c, '[' | ']' | '*') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn fail(message: &str) -> ! {
    for line in message.lines() {
        println!("cargo:warning={line}");
    }
    eprintln!("{message}");
    std::process::exit(1);
}
