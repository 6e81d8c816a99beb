//! The warpkit ISA database: loads `spec/*.yaml`, checks it, and generates the static
//! tables that every other part of warpkit reads.
//!
//! A database that breaks a rule of the seeds (fields that do not tile their format, a fixed
//! value that does not fit, an opcode whose low bits disagree with its width, an operand
//! without a field of the right width, two encodings that can match one word) is rejected
//! with one message per broken entry, naming the entry.

pub mod codegen;
pub mod linx;
pub mod model;
mod validate;

use model::*;
use std::path::{Path, PathBuf};

pub use validate::validate;

/// The instruction flags, in bit order: the legend of seed 002, then the provisional ones.
pub const FLAGS: &[(&str, &str, bool)] = &[
    ("ei", "exec_ignored: not gated by EXEC", false),
    ("re", "reads_exec: EXEC is a data input", false),
    ("we", "writes_exec: modifies EXEC", false),
    ("ur", "uniform result", false),
    ("p64", "64-bit register pairs", false),
    ("ir", "relative register indexing", false),
    ("eb", "ends a basic block", false),
    ("br", "branch", false),
    ("cd", "conditional", false),
    ("cal", "call: writes a link register", false),
    ("ix", "indirect target", false),
    (
        "sd",
        "store data: the rd field is read, not written (provisional)",
        true,
    ),
];

/// Why a database (or the LinxISA table) could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A file or folder of the database could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder that failed.
        path: PathBuf,
        /// The error the file system gave.
        source: std::io::Error,
    },
    /// A file is not valid YAML, or does not have the shape of [`model`] (unknown keys are
    /// errors too).
    #[error("{path}: {message}")]
    Parse {
        /// The file, as it was named to the loader.
        path: PathBuf,
        /// The YAML reader's message, with its position in the file.
        message: String,
    },
    /// The files parse but break rules of the seeds: one message per broken entry, each
    /// naming its file and entry.
    #[error("the ISA database is inconsistent:\n  {}", .0.join("\n  "))]
    Invalid(Vec<String>),
}

/// A syntax operand resolved against its format.
#[derive(Debug, Clone)]
pub struct Operand {
    /// The operand's name, which is also the name of its field in the format (`rd`, `rs1`,
    /// `imm`, ...).
    pub name: String,
    /// Index into [`Database::kinds`].
    pub kind: usize,
    /// The most significant bit of its field in the instruction word.
    pub msb: u32,
    /// The least significant bit of its field in the instruction word.
    pub lsb: u32,
}

/// An instruction variant resolved against its format, with its §2.3 decode bits.
#[derive(Debug, Clone)]
pub struct Instruction {
    /// The file that defines it, relative to the workspace (`spec/instructions/group1.yaml`).
    pub source: String,
    /// The assembly mnemonic (`add.vu`); unique in the database.
    pub mnemonic: String,
    /// The seed's family name, shared by the forms of one instruction (`ADD`).
    pub family: String,
    /// The operation (`InstructionEntry::op`).
    pub op: String,
    /// What a memory instruction accesses (`InstructionEntry::memory`).
    pub memory: Option<Memory>,
    /// The group number of its file (`group:`; 1 for seed 002's group, 100 and up for the
    /// provisional files).
    pub group: u32,
    /// Index into [`Database::subgroups`].
    pub subgroup: usize,
    /// Whether its file is provisional (defined by warpkit where the seeds are silent).
    pub provisional: bool,
    /// Index into [`Database::formats`].
    pub format: usize,
    /// The format's width in bits: 32 or 64.
    pub width: u32,
    /// Fixed fields in format order (most significant first).
    pub fixed: Vec<(String, u64)>,
    /// The syntax line as the entry writes it: `name:kind` operands separated by spaces.
    pub syntax: String,
    /// The syntax operands, in syntax order.
    pub operands: Vec<Operand>,
    /// The latency as written: `fixed:N` (cycles) or `async:<counter>` (section 2.6).
    pub latency: String,
    /// The flag names of the entry, as written (see [`FLAGS`]).
    pub flags: Vec<String>,
    /// The seed's formula or a one-line description of what the instruction does.
    pub semantics: String,
    /// Bits of the fixed fields.
    pub mask: u64,
    /// Values of the fixed fields in place.
    pub match_bits: u64,
    /// Bits that are neither fixed nor an operand: reserved, must be zero.
    pub zero: u64,
}

/// One instruction file (`spec/instructions/*.yaml` or `spec/provisional/*.yaml`).
#[derive(Debug, Clone)]
pub struct Group {
    /// The file, relative to the workspace.
    pub source: String,
    /// Its group number (`group:`).
    pub group: u32,
    /// Its title, as the reference prints it.
    pub title: String,
    /// The execution units its instructions use (`unit:`).
    pub unit: String,
    /// Whether the file is provisional (`provisional: true`).
    pub provisional: bool,
}

/// One subgroup of an instruction file, with where its instructions landed.
#[derive(Debug, Clone)]
pub struct SubgroupInfo {
    /// Index into [`Database::groups`].
    pub group: usize,
    /// Its short name (`valu-int`).
    pub id: String,
    /// Its title, as the reference prints it.
    pub title: String,
    /// How many instructions the file says it holds; the validator checks it against `len`.
    pub count: usize,
    /// Range into [`Database::instructions`].
    pub first: usize,
    /// How many instructions it holds: `first..first + len`.
    pub len: usize,
}

/// The whole database, resolved.
#[derive(Debug, Clone, Default)]
pub struct Database {
    /// The formats of `spec/formats.yaml`, in file order.
    pub formats: Vec<Format>,
    /// The operand types of `spec/operands.yaml`, in file order.
    pub types: Vec<OperandType>,
    /// The syntax kinds of `spec/operands.yaml`, in file order.
    pub kinds: Vec<Kind>,
    /// The CSRs of `spec/csrs.yaml`, in file order.
    pub csrs: Vec<Csr>,
    /// The `waitcnt` counters of `spec/counters.yaml`, in file order.
    pub counters: Vec<Counter>,
    /// One per instruction file: `spec/instructions/` first, then `spec/provisional/`, each
    /// sorted by file name.
    pub groups: Vec<Group>,
    /// Every subgroup of every file, in file order.
    pub subgroups: Vec<SubgroupInfo>,
    /// Every instruction variant, in file order; the order of the generated `Op`.
    pub instructions: Vec<Instruction>,
}

impl Database {
    /// The operand type that kind `kind` (an index into [`Database::kinds`]) names.
    pub fn type_of_kind(&self, kind: usize) -> &OperandType {
        let name = &self.kinds[kind].ty;
        self.types
            .iter()
            .find(|t| &t.name == name)
            .expect("kinds are validated to name a type")
    }
}

/// Every file the database is read from, for `cargo:rerun-if-changed`.
pub fn source_files(spec_dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    let mut files = vec![
        spec_dir.join("formats.yaml"),
        spec_dir.join("operands.yaml"),
        spec_dir.join("csrs.yaml"),
        spec_dir.join("counters.yaml"),
    ];
    for sub in ["instructions", "provisional"] {
        files.extend(yaml_files(&spec_dir.join(sub))?);
    }
    Ok(files)
}

fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    let rd = std::fs::read_dir(dir).map_err(|source| SpecError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    out.sort();
    Ok(out)
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse(path, &text)
}

fn parse<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, SpecError> {
    serde_saphyr::from_str(text).map_err(|e| SpecError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

/// Load `spec_dir` (the folder holding `formats.yaml`, ...), resolve and validate it.
pub fn load(spec_dir: &Path) -> Result<Database, SpecError> {
    let formats: FormatsFile = read(&spec_dir.join("formats.yaml"))?;
    let operands: OperandsFile = read(&spec_dir.join("operands.yaml"))?;
    let csrs: CsrsFile = read(&spec_dir.join("csrs.yaml"))?;
    let counters: CountersFile = read(&spec_dir.join("counters.yaml"))?;
    let mut files = Vec::new();
    for sub in ["instructions", "provisional"] {
        for path in yaml_files(&spec_dir.join(sub))? {
            let file: InstructionsFile = read(&path)?;
            let rel = format!("spec/{sub}/{}", path.file_name().unwrap().to_string_lossy());
            files.push((rel, file));
        }
    }
    let db = resolve(
        formats.formats,
        operands,
        csrs.csrs,
        counters.counters,
        files,
    )?;
    Ok(db)
}

/// Build a database from in-memory YAML texts (used by tests of the validator).
pub fn load_from_texts(
    formats: &str,
    operands: &str,
    csrs: &str,
    counters: &str,
    instruction_files: &[(&str, &str)],
) -> Result<Database, SpecError> {
    let formats: FormatsFile = parse(Path::new("formats.yaml"), formats)?;
    let operands: OperandsFile = parse(Path::new("operands.yaml"), operands)?;
    let csrs: CsrsFile = parse(Path::new("csrs.yaml"), csrs)?;
    let counters: CountersFile = parse(Path::new("counters.yaml"), counters)?;
    let mut files = Vec::new();
    for (name, text) in instruction_files {
        files.push((name.to_string(), parse(Path::new(name), text)?));
    }
    resolve(
        formats.formats,
        operands,
        csrs.csrs,
        counters.counters,
        files,
    )
}

fn resolve(
    formats: Vec<Format>,
    operands: OperandsFile,
    csrs: Vec<Csr>,
    counters: Vec<Counter>,
    files: Vec<(String, InstructionsFile)>,
) -> Result<Database, SpecError> {
    let mut db = Database {
        formats,
        types: operands.types,
        kinds: operands.kinds,
        csrs,
        counters,
        ..Default::default()
    };
    let mut errors = Vec::new();
    for (source, file) in files {
        let group_index = db.groups.len();
        db.groups.push(Group {
            source: source.clone(),
            group: file.group,
            title: file.title.clone(),
            unit: file.unit.clone(),
            provisional: file.provisional,
        });
        for sg in &file.subgroups {
            let first = db.instructions.len();
            let sub_index = db.subgroups.len();
            for entry in &sg.instructions {
                match resolve_instruction(&db, &source, &file, sub_index, entry) {
                    Ok(ins) => db.instructions.push(ins),
                    Err(e) => errors.push(e),
                }
            }
            db.subgroups.push(SubgroupInfo {
                group: group_index,
                id: sg.id.clone(),
                title: sg.title.clone(),
                count: sg.count,
                first,
                len: db.instructions.len() - first,
            });
        }
    }
    errors.extend(validate(&db));
    if errors.is_empty() {
        Ok(db)
    } else {
        Err(SpecError::Invalid(errors))
    }
}

fn field_bits(msb: u32, lsb: u32) -> u64 {
    let width = msb - lsb + 1;
    let ones = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    ones << lsb
}

fn resolve_instruction(
    db: &Database,
    source: &str,
    file: &InstructionsFile,
    subgroup: usize,
    e: &InstructionEntry,
) -> Result<Instruction, String> {
    let at = format!("{source}: instruction `{}`", e.mnemonic);
    let format = db
        .formats
        .iter()
        .position(|f| f.name == e.format)
        .ok_or_else(|| format!("{at}: unknown format `{}`", e.format))?;
    let fmt = &db.formats[format];
    let mut mask = 0u64;
    let mut match_bits = 0u64;
    let mut fixed = Vec::new();
    for (name, &value) in &e.fixed {
        let (msb, lsb) = fmt.field(name).ok_or_else(|| {
            format!(
                "{at}: fixed field `{name}` is not a field of format {}",
                fmt.name
            )
        })?;
        let width = msb - lsb + 1;
        if width < 64 && value >> width != 0 {
            return Err(format!(
                "{at}: fixed value {name}={value:#x} does not fit the {width}-bit field {name}[{msb}:{lsb}]"
            ));
        }
        mask |= field_bits(msb, lsb);
        match_bits |= value << lsb;
    }
    for (name, _, _) in &fmt.fields {
        if let Some(&v) = e.fixed.get(name) {
            fixed.push((name.clone(), v));
        }
    }
    let mut operands = Vec::new();
    let mut used = mask;
    for tok in e.operands.split_whitespace() {
        let (name, kind) = tok
            .split_once(':')
            .ok_or_else(|| format!("{at}: syntax operand `{tok}` is not `name:kind`"))?;
        let k = db
            .kinds
            .iter()
            .position(|k| k.kind == kind)
            .ok_or_else(|| format!("{at}: operand `{name}` has unknown kind `{kind}`"))?;
        let (msb, lsb) = fmt.field(name).ok_or_else(|| {
            format!(
                "{at}: operand `{name}` has no field of that name in format {}",
                fmt.name
            )
        })?;
        if e.fixed.contains_key(name) {
            return Err(format!("{at}: operand `{name}` is also a fixed field"));
        }
        if operands.iter().any(|o: &Operand| o.name == name) {
            return Err(format!("{at}: operand `{name}` appears twice"));
        }
        used |= field_bits(msb, lsb);
        operands.push(Operand {
            name: name.to_string(),
            kind: k,
            msb,
            lsb,
        });
    }
    let all = field_bits(fmt.width - 1, 0);
    Ok(Instruction {
        source: source.to_string(),
        mnemonic: e.mnemonic.clone(),
        family: e.family.clone(),
        op: e.op.clone(),
        memory: e.memory.clone(),
        group: file.group,
        subgroup,
        provisional: file.provisional,
        format,
        width: fmt.width,
        fixed,
        syntax: e.operands.clone(),
        operands,
        latency: e.latency.clone(),
        flags: e.flags.clone(),
        semantics: e.semantics.clone(),
        mask,
        match_bits,
        zero: all & !used,
    })
}

/// The Rust identifier of an instruction's `Op` variant: `cmp.eq.i32.vu` -> `CmpEqI32Vu`.
pub fn op_ident(mnemonic: &str) -> String {
    mnemonic
        .split(['.', '_'])
        .map(|part| {
            let mut c = part.chars();
            match c.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}
