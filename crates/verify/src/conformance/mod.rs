//! The conformance suite (docs/conformance.md): `export` writes one vector per instruction
//! variant of the database and a self-checking program per vector, with an index;
//! `run` checks every vector of a suite against the model or a DUT.

pub mod cases;
pub mod plant;
pub mod selfcheck;

use crate::dut::Dut;
use crate::vector::{self, compare, Vector, VectorError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use warpkit_sim::Engine;

/// The `schema` of a suite's `index.json`.
pub const INDEX_SCHEMA: &str = "warpkit-conformance-index";

/// A suite's `index.json`: its vectors and its self-checking programs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// Always [`INDEX_SCHEMA`].
    pub schema: String,
    /// Always [`vector::VERSION`].
    pub version: u32,
    /// Vectors per group.
    pub groups: BTreeMap<String, usize>,
    /// Every vector, in database order.
    pub vectors: Vec<IndexEntry>,
    /// Every self-checking program.
    pub programs: Vec<ProgramEntry>,
}

/// One vector of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    /// The vector's name.
    pub name: String,
    /// Its file, relative to the suite's directory.
    pub file: String,
    /// Its group.
    pub group: String,
    /// The variant it tests.
    pub variant: String,
}

/// One self-checking program of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramEntry {
    /// The vector it checks.
    pub name: String,
    /// The ELF object, relative to the suite's directory.
    pub elf: String,
    /// The raw code image (PC 0 is its first byte).
    pub bin: String,
    /// The same bytes as hex text, one 32-bit little-endian word a line.
    pub hex: String,
    /// Threads of its one workgroup (warps times 32).
    pub block: u32,
    /// Warps that store the pass word without checking: their case cannot be replayed at
    /// another address (a PC-dependent result, a step limit, an `endpgm` under test).
    pub skipped: Vec<u32>,
}

/// What went wrong exporting or reading a suite.
#[derive(Debug, thiserror::Error)]
pub enum ConformanceError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A vector is malformed.
    #[error(transparent)]
    Vector(#[from] VectorError),
    /// The index is malformed.
    #[error("{path}: {message}")]
    Index {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A variant's vector or program could not be built (a bug in the suite's generator).
    #[error("cannot build the case of `{variant}`: {message}")]
    Build {
        /// The variant.
        variant: String,
        /// Why.
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ConformanceError + '_ {
    move |source| ConformanceError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// What `export` wrote.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The index it wrote.
    pub index: Index,
}

/// Build every variant's vector, in database order.
pub fn vectors() -> Result<Vec<Vector>, ConformanceError> {
    cases::variants()
        .map(|op| {
            cases::vector_for(op).map_err(|message| ConformanceError::Build {
                variant: op.mnemonic().to_string(),
                message,
            })
        })
        .collect()
}

/// Write the suite to `dir`: `vectors/GROUP/NAME.json`, `selfcheck/GROUP/NAME.{elf,bin,hex}`
/// and `index.json`. The same bytes on every export.
pub fn export(dir: &Path) -> Result<Exported, ConformanceError> {
    let all = vectors()?;
    let mut index = Index {
        schema: INDEX_SCHEMA.into(),
        version: vector::VERSION,
        groups: BTreeMap::new(),
        vectors: Vec::new(),
        programs: Vec::new(),
    };
    for v in &all {
        let group = v.group.clone().unwrap_or_default();
        let variant = v.variant.clone().unwrap_or_default();
        let file = format!("vectors/{group}/{}.json", v.name);
        write(&dir.join(&file), v.to_json().as_bytes())?;
        *index.groups.entry(group.clone()).or_default() += 1;
        index.vectors.push(IndexEntry {
            name: v.name.clone(),
            file,
            group: group.clone(),
            variant,
        });
        let program = selfcheck::build(v).map_err(|message| ConformanceError::Build {
            variant: v.name.clone(),
            message,
        })?;
        let stem = format!("selfcheck/{group}/{}", v.name);
        let entry = ProgramEntry {
            name: v.name.clone(),
            elf: format!("{stem}.elf"),
            bin: format!("{stem}.bin"),
            hex: format!("{stem}.hex"),
            block: v.launch.block[0],
            skipped: program.skipped.clone(),
        };
        write(&dir.join(&entry.elf), &program.elf)?;
        write(&dir.join(&entry.bin), &program.code)?;
        write(
            &dir.join(&entry.hex),
            selfcheck::hex_text(&program.code).as_bytes(),
        )?;
        index.programs.push(entry);
    }
    let mut text = serde_json::to_string_pretty(&index).expect("an index always serialises");
    text.push('\n');
    write(&dir.join("index.json"), text.as_bytes())?;
    Ok(Exported { index })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), ConformanceError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    std::fs::write(path, bytes).map_err(io(path))
}

/// The vector files of a suite: those its `index.json` lists, or `path` itself when it is
/// a vector file.
pub fn suite_files(path: &Path) -> Result<Vec<PathBuf>, ConformanceError> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let index_path = path.join("index.json");
    let text = std::fs::read_to_string(&index_path).map_err(io(&index_path))?;
    let index: Index = serde_json::from_str(&text).map_err(|e| ConformanceError::Index {
        path: format!("{}:{}:{}", index_path.display(), e.line(), e.column()),
        message: crate::vector::json_message(&e),
    })?;
    if index.schema != INDEX_SCHEMA {
        return Err(ConformanceError::Index {
            path: index_path.display().to_string(),
            message: format!("schema `{}`, expected `{INDEX_SCHEMA}`", index.schema),
        });
    }
    Ok(index.vectors.iter().map(|e| path.join(&e.file)).collect())
}

/// Who computes the actual states.
#[derive(Debug, Clone)]
pub enum Implementation {
    /// warpkit's model on an engine.
    Model(Engine),
    /// A DUT command.
    Dut(Dut),
}

/// The outcome of one vector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The vector's name.
    pub name: String,
    /// No mismatch.
    pub pass: bool,
    /// Every mismatch, one line each (a DUT that gave no state: one line saying why).
    pub mismatches: Vec<String>,
}

/// Check one vector against `imp`; a DUT gets `file` (the vector's own file) when given,
/// else a temporary copy.
pub fn check(
    v: &Vector,
    imp: &Implementation,
    file: Option<&Path>,
) -> Result<Outcome, VectorError> {
    let actual = match (imp, file) {
        (Implementation::Model(engine), _) => Ok(vector::run(v, *engine)?),
        (Implementation::Dut(dut), Some(f)) => dut.run_file(f).map_err(|e| e.to_string()),
        (Implementation::Dut(dut), None) => dut.run(v).map_err(|e| e.to_string()),
    };
    let mismatches = match actual {
        Ok(state) => compare(&v.post, &state)
            .iter()
            .map(ToString::to_string)
            .collect(),
        Err(e) => vec![format!("no state: {e}")],
    };
    Ok(Outcome {
        name: v.name.clone(),
        pass: mismatches.is_empty(),
        mismatches,
    })
}

/// Load every vector of the suite at `path` (all are checked before any runs), then check
/// each against `imp`, calling `each` with every outcome in suite order.
pub fn run(
    path: &Path,
    imp: &Implementation,
    mut each: impl FnMut(&Outcome),
) -> Result<Vec<Outcome>, ConformanceError> {
    let files = suite_files(path)?;
    let vectors = files
        .iter()
        .map(|f| Vector::load(f))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(vectors.len());
    for (v, f) in vectors.iter().zip(&files) {
        let o = check(v, imp, Some(f)).map_err(|e| e.in_file(&f.display().to_string()))?;
        each(&o);
        out.push(o);
    }
    Ok(out)
}
