//! The database as it is written in `spec/*.yaml`.

use serde::Deserialize;
use std::collections::BTreeMap;

/// `spec/formats.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormatsFile {
    /// The formats, in the order of section 2.2.
    pub formats: Vec<Format>,
}

/// One instruction format of section 2.2.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Format {
    /// The format's name (`R`, `I8`, `X`, ...); instructions name their format by it.
    pub name: String,
    /// Width of an instruction of this format in bits: 32 or 64.
    pub width: u32,
    /// What the format is for, in a few words (the seed's description).
    pub purpose: String,
    /// `[name, msb, lsb]`, most significant first.
    pub fields: Vec<(String, u32, u32)>,
}

impl Format {
    /// The `(msb, lsb)` bit range of the field called `name`, if the format has one.
    pub fn field(&self, name: &str) -> Option<(u32, u32)> {
        self.fields
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|&(_, msb, lsb)| (msb, lsb))
    }
}

/// `spec/operands.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperandsFile {
    /// The operand types of section 2.4.
    pub types: Vec<OperandType>,
    /// The syntax kinds, each naming one of `types`.
    pub kinds: Vec<Kind>,
}

/// One operand type of section 2.4.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperandType {
    /// The type's name (`vreg`, `simm8`, `br22`, `rm`, ...); kinds name their type by it.
    pub name: String,
    /// `vreg` or `ureg` (register numbers), `simm`, `uimm` or `imm` (immediates), or `enum`
    /// (named values).
    pub class: String,
    /// Width of the encoded field in bits (1 to 32).
    pub bits: u32,
    /// The assembly value is the field value times `scale`, a power of two (default 1).
    #[serde(default = "one")]
    pub scale: u32,
    /// Registers named by one operand of this type: 2 for pairs, 4 or 8 for descriptors
    /// (default 1).
    #[serde(default = "one")]
    pub regs: u32,
    /// Required alignment of the first register of a group (default 1); an unaligned value
    /// decodes and traps at execution.
    #[serde(default = "one")]
    pub align: u32,
    /// `raw[7:1]` is the register number and `raw[0]` selects the half (`.l` 0, `.h` 1).
    #[serde(default)]
    pub half: bool,
    /// The value is a byte offset from the instruction's own address.
    #[serde(default)]
    pub pc_relative: bool,
    /// A one-line description, as the reference prints it.
    pub description: String,
    /// The named values of an `enum` type: `[name, encoded value]`.
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
    /// The kind as a syntax line spells it after the colon (`rd:vp^2`).
    pub kind: String,
    /// The name of the operand type it names (`type:` in the file).
    #[serde(rename = "type")]
    pub ty: String,
    /// Overrides the type's register count (`v^4`).
    #[serde(default)]
    pub regs: Option<u32>,
    /// For register kinds: `write-or-read` (written when it is the `rd` field, read
    /// otherwise) or `read-write` (`v*`: the destination is also read). Absent for
    /// immediates and enums.
    #[serde(default)]
    pub access: Option<String>,
    /// A spelling warpkit defined for its provisional instructions; instructions of the
    /// seeds may not use it.
    #[serde(default)]
    pub provisional: bool,
    /// A trailing operand that may be omitted, meaning `default`.
    #[serde(default)]
    pub optional: bool,
    /// Written `name=value` and may be omitted, meaning `default`.
    #[serde(default)]
    pub keyed: bool,
    /// The raw value an omitted optional or keyed operand has.
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

/// `spec/csrs.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsrsFile {
    /// The CSRs of section 3.3.
    pub csrs: Vec<Csr>,
}

/// One control and status register of section 3.3.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Csr {
    /// Its 10-bit CSR number; must equal its value in the `csr` enum of
    /// `spec/operands.yaml`.
    pub number: u32,
    /// Its name, as assembly writes it (`exec`, `trapcause`).
    pub name: String,
    /// `r` (read-only) or `rw`.
    pub access: String,
    /// Its value at warp start (provisional: the seeds give none).
    pub reset: u32,
    /// Where the reset value really comes from, when it is not `reset` (`set by the
    /// dispatcher`).
    #[serde(default)]
    pub reset_note: Option<String>,
    /// What it holds, in a few words.
    pub meaning: String,
}

/// `spec/counters.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountersFile {
    /// The `waitcnt` counters of section 2.6.
    pub counters: Vec<Counter>,
}

/// One asynchronous-operation counter of section 2.6.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counter {
    /// Its name (`vm`, `vst`, `tex`, `ls`, `sm`, `sfu`); `async:<name>` latencies and the
    /// operand type `cnt_<name>` refer to it.
    pub name: String,
    /// Width of its `waitcnt` field in bits; all ones means "do not wait".
    pub bits: u32,
    /// How many of its operations may be in flight; issuing one more first completes the
    /// oldest.
    pub max_outstanding: u32,
    /// `in-order` or `out-of-order` completion.
    pub order: String,
    /// The operations it counts, in a few words.
    pub covers: String,
}

/// One instruction file: `spec/instructions/*.yaml` or `spec/provisional/*.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionsFile {
    /// The group number (1 for seed 002's group; 100 and up for provisional files).
    pub group: u32,
    /// The group's title.
    pub title: String,
    /// The execution units its instructions use.
    pub unit: String,
    /// Whether warpkit defined these instructions where the seeds are silent.
    #[serde(default)]
    pub provisional: bool,
    /// The subgroups, in reference order.
    pub subgroups: Vec<Subgroup>,
}

/// A subgroup of an instruction file: a titled list of instructions.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subgroup {
    /// Its short name (`valu-int`).
    pub id: String,
    /// Its title.
    pub title: String,
    /// How many instructions it lists; the validator checks the count.
    pub count: usize,
    /// The instruction variants, in reference order.
    pub instructions: Vec<InstructionEntry>,
}

/// One instruction variant as a spec file writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionEntry {
    /// The assembly mnemonic (`add.vu`); unique in the database.
    pub mnemonic: String,
    /// The seed's family name, shared by the forms of one instruction (`ADD`).
    pub family: String,
    /// The operation the variant performs (warpkit's, not the seed's): one name for every
    /// form of it (vector, uniform, immediate and literal sources; 32- and 64-bit), which
    /// the model's semantics and its translation tier are keyed by.
    pub op: String,
    /// The syntax operands, `name:kind` separated by spaces, as the seed spells them.
    pub operands: String,
    /// The name of its format in `spec/formats.yaml`.
    pub format: String,
    /// The values of its fixed fields (opcode and function fields), by field name.
    pub fixed: BTreeMap<String, u64>,
    /// What a memory instruction accesses (provisional, like the memory group itself).
    #[serde(default)]
    pub memory: Option<Memory>,
    /// `fixed:N` (N cycles) or `async:<counter>` (an asynchronous operation of section 2.6,
    /// counted by that counter).
    pub latency: String,
    /// Flag names from the legend of seed 002 (see [`crate::FLAGS`]).
    pub flags: Vec<String>,
    /// The seed's formula in English, or a one-line description.
    pub semantics: String,
}

/// What a memory instruction does to memory: the facts the model's memory semantics read.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// `load`, `store`, `atomic`, `invalidate` or `writeback` (cache control).
    pub access: String,
    /// `global` (`U64[rs2] + zext(v[rs1]) + imm`), `a64` (`V64[rs1] + imm`), `shared`
    /// (`zext(v[rs1]) + imm`) or `uniform` (`U64[rs1] + imm`); absent for cache control.
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
