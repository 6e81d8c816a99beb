//! The LinxISA SIMT micro-instruction table (`spec/linx/*.yaml`): loaded, checked and turned
//! into the parser's tables of `warpkit-linx` and into `docs/linx-reference.md`, by the same
//! machinery (YAML reader, error type, generated Rust) as the GPU database.
//!
//! There is no encoding here: the seeds' encoding figures for the SIMT block are lost, so
//! the table describes assembly syntax, operand typing and semantics only.

use crate::codegen::{code, doc, prose};
use crate::{op_ident, parse, yaml_files, SpecError};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Instruction forms: the operand shape and the typing rule an entry follows.
/// `(name, syntax, description)`.
pub const FORMS: &[(&str, &str, &str)] = &[
    (
        "alu",
        "A.T, B.T, ->q.W",
        "two integer register inputs of one width w; W >= w (rule 3)",
    ),
    (
        "alu_imm",
        "A.T, IMM, ->q.W",
        "one integer register input and an immediate cut to w bits",
    ),
    (
        "cmp",
        "A.T, B.T, ->q.W",
        "integer compare: 1 or 0, any output width",
    ),
    (
        "cmp_imm",
        "A.T, IMM, ->q.W",
        "integer compare with an immediate: 1 or 0, any output width",
    ),
    (
        "csel",
        "P.T, L.T, R.T, ->q.W",
        "select: three integer register inputs of one width",
    ),
    (
        "cvt",
        "A.T, ->q.T2",
        "conversion: typed input and typed output, widths free",
    ),
    (
        "falu",
        "A.F, B.F, ->q.W",
        "float arithmetic at the input format; W equals its width",
    ),
    (
        "falu1",
        "A.F, ->q.W",
        "one-input float arithmetic; W equals its width",
    ),
    (
        "fcmp",
        "A.F, B.F, ->q.W",
        "float compare: 1 or 0, any output width",
    ),
    (
        "load",
        "[B.T, O.T<<k], ->q.W",
        "load; W equals the access size",
    ),
    (
        "store",
        "D.T, [B.T, O.T<<k]",
        "store; D's width equals the access size",
    ),
    (
        "amo_load",
        "[A.T], V.T, ->q.W",
        "atomic read-modify-write returning the old value (`.ne`: non-atomic)",
    ),
    (
        "amo_store",
        "[A.T], V.T",
        "atomic read-modify-write without result (`.rd`: store-reduce)",
    ),
    (
        "reduce",
        "S.T, ->Rg.d",
        "reduce over every active lane into a global register at block end",
    ),
    (
        "freduce",
        "S.F, ->Rg.d",
        "float reduce over every active lane, folded in iteration order at block end",
    ),
    ("j", "LABEL", "jump"),
    (
        "jr",
        "S.T, IMM",
        "indirect jump, uniform target, IMM a multiple of 8",
    ),
    (
        "addtpc",
        "IMM, ->q.d",
        "(tpc & ~0xfff) + (IMM << 12); IMM may be %hi(LABEL)",
    ),
    (
        "branch",
        "L.T, R.T, BR, RC",
        "per-lane compare; divergence through the ControlStack",
    ),
    (
        "bcond",
        "P.T, L.T, R.T",
        "branch on P != 0 to the uniform PC in L, reconverging at R",
    ),
    (
        "pc_pop",
        "",
        "reconvergence point: resumes the pending side or continues",
    ),
    ("lbstop", "", "ends the group"),
];

const IMMS: &[&str] = &["none", "uimm", "simm", "shamt"];
const ACCESS: &[&str] = &["b", "h", "w", "d"];
const SIGNED: &[&str] = &["opcode", "suffix", "none"];

/// One file of `spec/linx/`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinxFile {
    /// The file's title: the heading of its section in `docs/linx-reference.md`.
    pub title: String,
    /// Its micro-instructions, in reference order.
    pub instructions: Vec<LinxEntry>,
}

/// One micro-instruction as written in `spec/linx/*.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinxEntry {
    /// The body mnemonic: lower-case letters, digits and dots, unique in the table.
    pub mnemonic: String,
    /// One of [`FORMS`].
    pub form: String,
    /// The semantic operation the model implements (`add`, `cmp_lt`, `amo_smax`, ...).
    pub op: String,
    /// The immediate of `*_imm` forms: uimm (0..2^24-1), simm (-2^23..2^23-1), shamt.
    #[serde(default = "none")]
    pub imm: String,
    /// Access size of memory forms.
    #[serde(default)]
    pub access: Option<String>,
    /// Where signedness comes from: the opcode, the operand suffix, or nowhere.
    #[serde(default = "none")]
    pub signed: String,
    /// Output widths a queue destination may have (empty: no queue output).
    #[serde(default)]
    pub out_widths: Vec<String>,
    /// Whether the instruction may write a global register (reduces only, `[004]`).
    #[serde(default)]
    pub writes_globals: bool,
    /// Where the entry comes from: `[003]` or `[004]` (the seeds), `[pub ...]` (later public
    /// LinxISA text) or `[P]` (warpkit's provisional choice), as written.
    pub source: String,
    /// What the micro-instruction computes, in a line (`a + b mod 2^w`).
    pub semantics: String,
}

fn none() -> String {
    "none".into()
}

/// The resolved table, in file order.
#[derive(Debug, Clone, Default)]
pub struct LinxDatabase {
    /// `(file name, title)` of each file, in the order read ([`load`] sorts them by name).
    pub files: Vec<(String, String)>,
    /// `(file index, entry)`.
    pub instructions: Vec<(usize, LinxEntry)>,
}

/// Every file of the table, for `cargo:rerun-if-changed`.
pub fn source_files(linx_dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    yaml_files(linx_dir)
}

/// Load and validate `spec/linx/`.
pub fn load(linx_dir: &Path) -> Result<LinxDatabase, SpecError> {
    let mut texts = Vec::new();
    for path in yaml_files(linx_dir)? {
        let text = std::fs::read_to_string(&path).map_err(|source| SpecError::Io {
            path: path.clone(),
            source,
        })?;
        let name = format!("spec/linx/{}", path.file_name().unwrap().to_string_lossy());
        texts.push((name, text));
    }
    let refs: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    load_from_texts(&refs)
}

/// Build the table from in-memory YAML texts (`(file name, text)`), and validate it.
pub fn load_from_texts(files: &[(&str, &str)]) -> Result<LinxDatabase, SpecError> {
    let mut db = LinxDatabase::default();
    for (name, text) in files {
        let file: LinxFile = parse(Path::new(name), text)?;
        let index = db.files.len();
        db.files.push((name.to_string(), file.title));
        db.instructions
            .extend(file.instructions.into_iter().map(|e| (index, e)));
    }
    let errors = validate(&db);
    if errors.is_empty() {
        Ok(db)
    } else {
        Err(SpecError::Invalid(errors))
    }
}

fn is_memory(form: &str) -> bool {
    matches!(form, "load" | "store" | "amo_load" | "amo_store")
}

fn has_queue_output(form: &str) -> bool {
    !matches!(
        form,
        "store"
            | "amo_store"
            | "reduce"
            | "freduce"
            | "j"
            | "jr"
            | "branch"
            | "bcond"
            | "pc_pop"
            | "lbstop"
    )
}

fn valid_source(tag: &str) -> bool {
    let Some(inner) = tag.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
        return false;
    };
    inner.split(';').all(|part| {
        let p = part.trim();
        p.starts_with("003")
            || p.starts_with("004")
            || p == "P"
            || p.starts_with("P,")
            || p.starts_with("P:")
            || p.starts_with("pub ")
    })
}

/// One message per broken entry, naming it.
pub fn validate(db: &LinxDatabase) -> Vec<String> {
    let mut errors = Vec::new();
    let mut seen = BTreeSet::new();
    for (file, e) in &db.instructions {
        let at = format!("{}: instruction `{}`", db.files[*file].0, e.mnemonic);
        if e.mnemonic.is_empty()
            || !e
                .mnemonic
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.')
        {
            errors.push(format!(
                "{at}: body mnemonics are lower case letters, digits and dots [003]"
            ));
        }
        if !seen.insert(e.mnemonic.clone()) {
            errors.push(format!("{at}: defined twice"));
        }
        if !FORMS.iter().any(|(f, _, _)| *f == e.form) {
            errors.push(format!("{at}: unknown form `{}`", e.form));
            continue;
        }
        if !e
            .op
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            || e.op.is_empty()
        {
            errors.push(format!(
                "{at}: op `{}` is not a lower-case identifier",
                e.op
            ));
        }
        if !IMMS.contains(&e.imm.as_str()) {
            errors.push(format!("{at}: unknown immediate kind `{}`", e.imm));
        }
        let wants_imm = matches!(e.form.as_str(), "alu_imm" | "cmp_imm");
        if wants_imm != (e.imm != "none") {
            errors.push(format!(
                "{at}: form `{}` {} an immediate kind",
                e.form,
                if wants_imm { "needs" } else { "takes no" }
            ));
        }
        match (&e.access, is_memory(&e.form)) {
            (Some(a), true) if ACCESS.contains(&a.as_str()) => {}
            (Some(a), true) => errors.push(format!("{at}: unknown access size `{a}`")),
            (None, true) => errors.push(format!("{at}: memory form needs an access size")),
            (Some(_), false) => errors.push(format!("{at}: only memory forms have an access size")),
            (None, false) => {}
        }
        if let (Some(a), "amo_load" | "amo_store") = (&e.access, e.form.as_str()) {
            if a != "w" && a != "d" {
                errors.push(format!("{at}: atomics exist at w and d only [003 adj.11]"));
            }
        }
        if !SIGNED.contains(&e.signed.as_str()) {
            errors.push(format!("{at}: unknown signedness source `{}`", e.signed));
        }
        for w in &e.out_widths {
            if !ACCESS.contains(&w.as_str()) {
                errors.push(format!("{at}: unknown output width `{w}`"));
            }
        }
        if has_queue_output(&e.form) == e.out_widths.is_empty() {
            errors.push(format!(
                "{at}: form `{}` {} output widths",
                e.form,
                if has_queue_output(&e.form) {
                    "needs"
                } else {
                    "takes no"
                }
            ));
        }
        if e.writes_globals != matches!(e.form.as_str(), "reduce" | "freduce") {
            errors.push(format!(
                "{at}: only reduces write global registers [004 usage rule]"
            ));
        }
        if !valid_source(&e.source) {
            errors.push(format!(
                "{at}: source `{}` is not [003], [004], [pub ...] or [P]",
                e.source
            ));
        }
        if e.semantics.trim().is_empty() {
            errors.push(format!("{at}: no semantics text"));
        }
    }
    errors
}

fn s(text: &str) -> String {
    format!("{text:?}")
}

fn width_bits(w: &str) -> u32 {
    match w {
        "b" => 8,
        "h" => 16,
        "w" => 32,
        _ => 64,
    }
}

/// The Rust source of the parser's tables; `include!`d by `warpkit-linx`.
pub fn generate(db: &LinxDatabase) -> String {
    let mut o = String::new();
    o.push_str("// @generated from spec/linx/*.yaml by warpkit-specdb; do not edit.\n\n");
    o.push_str("/// Operand shape and typing rule of a micro-instruction.\n");
    o.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Form {\n");
    for (f, syntax, d) in FORMS {
        let _ = writeln!(o, "    /// `{syntax}`: {d}\n    {},", op_ident(f));
    }
    o.push_str("}\n\n");
    let entries = || db.instructions.iter().map(|(_, e)| e);
    // Each operation: its first mnemonic, semantics and source, and every mnemonic that
    // performs it where there are several.
    let ops: BTreeSet<&str> = entries().map(|e| e.op.as_str()).collect();
    o.push_str("/// The operation the model performs.\n");
    o.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Op {\n");
    for op in &ops {
        let performing: Vec<&LinxEntry> = entries().filter(|e| e.op == *op).collect();
        let first = performing[0];
        let mut text = format!(
            "{}: {} {}",
            code(&first.mnemonic),
            prose(&first.semantics),
            prose(&first.source)
        );
        if performing.len() > 1 {
            let _ = write!(text, "\n\nPerformed by {}.", mnemonics(&performing));
        }
        doc(&mut o, "    ", &text);
        let _ = writeln!(o, "    {},", op_ident(op));
    }
    o.push_str("}\n\n");
    // The immediate kinds and signedness sources: SPEC.md section 3 rules 3, 6 and 8, and
    // section 4; the kinds rare enough to be worth it list the mnemonics that use them.
    let users = |field: fn(&LinxEntry) -> &str, value: &str| {
        let using: Vec<&LinxEntry> = entries().filter(|e| field(e) == value).collect();
        format!("\n\nUsed by {}.", mnemonics(&using))
    };
    fn imm(e: &LinxEntry) -> &str {
        &e.imm
    }
    fn signed(e: &LinxEntry) -> &str {
        &e.signed
    }
    let enums = [
        (
            "/// Immediate operand kind.\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum ImmKind {\n",
            vec![
                ("None", "No immediate of the `*_imm` forms (`jr` and `addtpc` bound theirs by their form).".to_string()),
                ("Uimm", format!("Unsigned immediate 0..2^24-1, zero-extended, then cut to the input width w (SPEC §3 rule 8 \\[P\\]).{}", users(imm, "uimm"))),
                ("Simm", format!("Signed immediate -2^23..2^23-1, sign-extended, then cut to the input width w (SPEC §3 rule 8 \\[P\\]).{}", users(imm, "simm"))),
                ("Shamt", format!("Shift amount 0..w-1 for input width w (SPEC §4, ALU).{}", users(imm, "shamt"))),
            ],
        ),
        (
            "/// Where an instruction's signedness comes from.\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum Signed {\n",
            vec![
                ("Opcode", "The mnemonic fixes the signedness (`cmp.lt` against `cmp.ltu`, `sra` against `srl`); the operand suffixes give the width only (SPEC §3 rule 6).".to_string()),
                ("Suffix", format!("The inputs' `.s*` or `.u*` suffix selects signed or unsigned (SPEC §3 rule 6).{}", users(signed, "suffix"))),
                ("None", "The operation does not depend on signedness; the suffix still decides how a wider output is extended (SPEC §3 rule 3).".to_string()),
            ],
        ),
    ];
    for (header, variants) in enums {
        o.push_str(header);
        for (variant, text) in variants {
            doc(&mut o, "    ", &text);
            let _ = writeln!(o, "    {variant},");
        }
        o.push_str("}\n\n");
    }
    o.push_str(
        "/// One row of the micro-instruction table.
#[derive(Debug, Clone, Copy)]
pub struct InsnDef {
    /// The body mnemonic as written in the source, lower case (`add`, `cmp.ltu`, `lw.add`).
    pub mnemonic: &'static str,
    /// Operand shape and typing rule the instruction follows.
    pub form: Form,
    /// The operation performed; several mnemonics may share one (`add` and `addi`).
    pub op: Op,
    /// Kind and range of the immediate of the `*_imm` forms; `ImmKind::None` for every other form.
    pub imm: ImmKind,
    /// Access size in bits (memory forms), else 0.
    pub access: u32,
    /// Where the signedness of the inputs comes from (SPEC §3 rule 6).
    pub signed: Signed,
    /// Allowed queue output widths as a bit set: bit k for 8<<k bits.
    pub out_widths: u8,
    /// Whether the destination is a global register: only reduces write globals \\[004\\], any other instruction naming one is E-GDST.
    pub writes_globals: bool,
    /// Source tags of the entry's facts: \\[003\\], \\[004\\], \\[pub ...\\] or \\[P\\].
    pub source: &'static str,
    /// The result in one line of plain text, as `docs/linx-reference.md` lists it.
    pub semantics: &'static str,
}

",
    );
    o.push_str("/// Every micro-instruction, in table order.\npub static INSNS: &[InsnDef] = &[\n");
    for (_, e) in &db.instructions {
        let mut widths = 0u8;
        for w in &e.out_widths {
            widths |= 1 << (width_bits(w) / 8).trailing_zeros();
        }
        let _ = writeln!(
            o,
            "    InsnDef {{ mnemonic: {}, form: Form::{}, op: Op::{}, imm: ImmKind::{}, access: {}, signed: Signed::{}, out_widths: {widths:#06b}, writes_globals: {}, source: {}, semantics: {} }},",
            s(&e.mnemonic),
            op_ident(&e.form),
            op_ident(&e.op),
            op_ident(&e.imm),
            e.access.as_deref().map_or(0, width_bits),
            op_ident(&e.signed),
            e.writes_globals,
            s(&e.source),
            s(&e.semantics),
        );
    }
    o.push_str("];\n");
    o
}

/// `` `a`, `b` ``: the mnemonics of `entries`, for a doc comment.
fn mnemonics(entries: &[&LinxEntry]) -> String {
    entries
        .iter()
        .map(|e| code(&e.mnemonic))
        .collect::<Vec<_>>()
        .join(", ")
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// `docs/linx-reference.md`.
pub fn reference(db: &LinxDatabase) -> String {
    let mut o = String::new();
    o.push_str("# LinxISA SIMT micro-instruction reference\n\n");
    o.push_str("Generated from `spec/linx/*.yaml` by `warpkit-specdb`; do not edit. Regenerate with\n`WARPKIT_BLESS=1 cargo test -p warpkit-linx --test reference`.\n\n");
    o.push_str("Source tags: [003]/[004] seed facts, [pub ...] later public LinxISA text used where the\nseeds are silent, [P] warpkit's own (provisional) choice. The model is described in\n[linx.md](linx.md).\n\n");
    o.push_str("## Forms\n\n| form | operands | rule |\n|---|---|---|\n");
    for (f, syntax, d) in FORMS {
        let _ = writeln!(o, "| {f} | `{}` | {} |", cell(syntax), cell(d));
    }
    for (index, (name, title)) in db.files.iter().enumerate() {
        let _ = writeln!(o, "\n## {title}\n\nFrom `{name}`.\n");
        o.push_str("| mnemonic | form | imm | access | signedness | out widths | globals | source | semantics |\n|---|---|---|---|---|---|---|---|---|\n");
        for (_, e) in db.instructions.iter().filter(|(f, _)| *f == index) {
            let _ = writeln!(
                o,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                e.mnemonic,
                e.form,
                if e.imm == "none" { "" } else { &e.imm },
                e.access.as_deref().unwrap_or(""),
                e.signed,
                e.out_widths.join(" "),
                if e.writes_globals { "yes" } else { "" },
                cell(&e.source),
                cell(&e.semantics)
            );
        }
    }
    o
}
