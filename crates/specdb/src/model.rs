//! The database as it is written in `spec/*.yaml`.

use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormatsFile {
    pub formats: Vec<Format>,
}

/// One instruction format of section 2.2.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Format {
    pub name: String,
    pub width: u32,
    pub purpose: String,
    /// `[name, msb, lsb]`, most significant first.
    pub fields: Vec<(String, u32, u32)>,
}

impl Format {
    pub fn field(&self, name: &str) -> Option<(u32, u32)> {
        self.fields
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|&(_, msb, lsb)| (msb, lsb))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperandsFile {
    pub types: Vec<OperandType>,
    pub kinds: Vec<Kind>,
}

/// One operand type of section 2.4.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperandType {
    pub name: String,
    pub class: String,
    pub bits: u32,
    #[serde(default = "one")]
    pub scale: u32,
    #[serde(default = "one")]
    pub regs: u32,
    #[serde(default = "one")]
    pub align: u32,
    #[serde(default)]
    pub half: bool,
    #[serde(default)]
    pub pc_relative: bool,
    pub description: String,
    #[serde(default)]
    pub values: Vec<(String, u32)>,
    /// Inclusive range of encoded values that decode but are illegal at execution.
    #[serde(default)]
    pub reserved: Option<(u32, u32)>,
}

fn one() -> u32 {
    1
}

/// A syntax kind (`v`, `vp^2`, `s8`, `o22`, ...) and the operand type it names.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kind {
    pub kind: String,
    #[serde(rename = "type")]
    pub ty: String,
    /// Overrides the type's register count (`v^4`).
    #[serde(default)]
    pub regs: Option<u32>,
    #[serde(default)]
    pub access: Option<String>,
    #[serde(default)]
    pub provisional: bool,
    #[serde(default)]
    pub optional: bool,
    #[serde(default)]
    pub keyed: bool,
    #[serde(default)]
    pub default: Option<u32>,
    /// `neg` or `abs`: the field collects the source modifiers written on the register
    /// sources (bit k for the k-th source) instead of being an operand of its own.
    #[serde(default)]
    pub srcmod: Option<String>,
    /// A 1-bit field written as its bare name after the operands when set (`sat`).
    #[serde(default)]
    pub switch: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsrsFile {
    pub csrs: Vec<Csr>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Csr {
    pub number: u32,
    pub name: String,
    pub access: String,
    pub reset: u32,
    #[serde(default)]
    pub reset_note: Option<String>,
    pub meaning: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountersFile {
    pub counters: Vec<Counter>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counter {
    pub name: String,
    pub bits: u32,
    pub max_outstanding: u32,
    pub order: String,
    pub covers: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionsFile {
    pub group: u32,
    pub title: String,
    pub unit: String,
    #[serde(default)]
    pub provisional: bool,
    pub subgroups: Vec<Subgroup>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subgroup {
    pub id: String,
    pub title: String,
    pub count: usize,
    pub instructions: Vec<InstructionEntry>,
}

/// One instruction variant as a spec file writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionEntry {
    pub mnemonic: String,
    pub family: String,
    /// The operation the variant performs (warpkit's, not the seed's): one name for every
    /// form of it (vector, uniform, immediate and literal sources; 32- and 64-bit), which
    /// the model's semantics and its translation tier are keyed by.
    pub op: String,
    /// The syntax operands, `name:kind` separated by spaces, as the seed spells them.
    pub operands: String,
    pub format: String,
    pub fixed: BTreeMap<String, u64>,
    /// What a memory instruction accesses (provisional, like the memory group itself).
    #[serde(default)]
    pub memory: Option<Memory>,
    pub latency: String,
    pub flags: Vec<String>,
    pub semantics: String,
}

/// What a memory instruction does to memory: the facts the model's memory semantics read.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// `load`, `store`, `atomic`, `invalidate` or `writeback` (cache control).
    pub access: String,
    /// `global` (U64[rs2] + zext(v[rs1]) + imm), `a64` (V64[rs1] + imm), `shared`
    /// (zext(v[rs1]) + imm) or `uniform` (U64[rs1] + imm); absent for cache control.
    #[serde(default)]
    pub address: Option<String>,
    /// Bytes per lane.
    #[serde(default)]
    pub size: Option<u32>,
    /// A load sign-extends its value (else zero-extends).
    #[serde(default)]
    pub signed: bool,
    /// `low16` or `high16`: a 16-bit load into one half of the destination.
    #[serde(default)]
    pub part: Option<String>,
    /// The read-modify-write of an atomic.
    #[serde(default)]
    pub atomic: Option<String>,
    /// An atomic returns the old value.
    #[serde(default)]
    pub returns: bool,
}
