//! The types of the static tables generated from `spec/` (see `build.rs`).

use std::fmt;

/// A bit field `name[msb:lsb]` of an instruction word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    /// The field's name in its format (`opcode`, `f4`, `rd`, `imm`, ...).
    pub name: &'static str,
    /// Its most significant bit, counted from bit 0 of the instruction word.
    pub msb: u8,
    /// Its least significant bit.
    pub lsb: u8,
}

impl FieldDef {
    /// The field's width in bits: `msb - lsb + 1`.
    pub const fn width(&self) -> u32 {
        (self.msb - self.lsb + 1) as u32
    }

    /// The field's bits, in place.
    pub const fn mask(&self) -> u64 {
        let ones = if self.width() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width()) - 1
        };
        ones << self.lsb
    }

    /// The field's value in `word`, shifted down to bit 0.
    #[inline(always)]
    pub const fn extract(&self, word: u64) -> u32 {
        ((word & self.mask()) >> self.lsb) as u32
    }

    /// `word` with the field replaced by `value`; bits of `value` above the field's width
    /// are dropped.
    #[inline(always)]
    pub const fn insert(&self, word: u64, value: u32) -> u64 {
        (word & !self.mask()) | (((value as u64) << self.lsb) & self.mask())
    }
}

/// One of the 28 formats of section 2.2.
#[derive(Debug)]
pub struct FormatDef {
    /// The format's name (`R`, `I8`, `X`, ...).
    pub name: &'static str,
    /// Width of its instructions in bits: 32 or 64.
    pub width: u8,
    /// What the format is for, in a few words.
    pub purpose: &'static str,
    /// Most significant first, as the seed lists them.
    pub fields: &'static [FieldDef],
}

impl FormatDef {
    /// The field called `name`, if the format has one.
    pub fn field(&self, name: &str) -> Option<&'static FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// The class of an operand type (section 2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandClass {
    /// A vector register number (or the first of a group, or a half).
    VReg,
    /// A uniform register number (or the first of a group).
    UReg,
    /// A signed immediate, sign-extended from its field and then scaled.
    SImm,
    /// An unsigned immediate, zero-extended from its field and then scaled.
    UImm,
    /// A raw 32-bit literal: integer or fp32 bit pattern.
    Imm,
    /// A value from a list of named values (`rm`, `cpol`, `dim`, `csr`).
    Enum,
}

impl OperandClass {
    /// The class as `spec/operands.yaml` spells it (`vreg`, `simm`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            OperandClass::VReg => "vreg",
            OperandClass::UReg => "ureg",
            OperandClass::SImm => "simm",
            OperandClass::UImm => "uimm",
            OperandClass::Imm => "imm",
            OperandClass::Enum => "enum",
        }
    }
}

/// An operand type of section 2.4.
#[derive(Debug)]
pub struct OperandTypeDef {
    /// The type's name (`vreg`, `simm8`, `br22`, `rm`, ...).
    pub name: &'static str,
    /// What the field holds: a register, an immediate or an enum value.
    pub class: OperandClass,
    /// Width of the encoded field in bits (1 to 32).
    pub bits: u8,
    /// The assembly value is the field value times `scale` (a power of two; 1 for most).
    pub scale: u8,
    /// Registers named by one operand of this type (pairs 2, descriptors 4 or 8).
    pub regs: u8,
    /// Required alignment of the first register (unaligned values trap at execution).
    pub align: u8,
    /// `raw[7:1]` is the register, `raw[0]` the half.
    pub half: bool,
    /// A byte offset from the instruction's own address (branch offsets of §2.4).
    pub pc_relative: bool,
    /// A one-line description from `spec/operands.yaml`.
    pub description: &'static str,
    /// The named values of an enum type, `(name, encoded value)`; empty for other classes.
    pub values: &'static [(&'static str, u32)],
    /// Inclusive range of encoded values that decode but are illegal at execution.
    pub reserved: Option<(u32, u32)>,
}

impl OperandTypeDef {
    /// The name of encoded enum value `value`, if it has one.
    pub fn value_name(&self, value: u32) -> Option<&'static str> {
        self.values
            .iter()
            .find(|(_, v)| *v == value)
            .map(|(n, _)| *n)
    }

    /// The encoded value of the enum value called `name` (ASCII case ignored).
    pub fn value_of(&self, name: &str) -> Option<u32> {
        self.values
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }

    /// Whether encoded value `raw` lies in the type's reserved range: it decodes, but
    /// executing it raises IllegalInsn.
    pub fn is_reserved(&self, raw: u32) -> bool {
        self.reserved
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&raw))
    }

    /// The range of assembly values (already scaled) an immediate of this type accepts.
    pub fn value_range(&self) -> (i64, i64) {
        let bits = u32::from(self.bits);
        let scale = i64::from(self.scale);
        match self.class {
            OperandClass::SImm => (
                -(1i64 << (bits - 1)) * scale,
                ((1i64 << (bits - 1)) - 1) * scale,
            ),
            _ => (0, ((1i64 << bits) - 1) * scale),
        }
    }
}

/// How an instruction uses a register operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// An immediate or enum: not a register.
    None,
    /// Written when it is the `rd` field (unless the instruction stores it), read otherwise.
    WriteOrRead,
    /// Read and written (`v*`).
    ReadWrite,
}

/// A syntax kind (`v`, `vp^2`, `s8`, `o22`, ...): the operand type it names and how the
/// assembly syntax writes it.
#[derive(Debug)]
pub struct KindDef {
    /// The kind as a syntax line spells it after the colon (`rd:vp^2`).
    pub kind: &'static str,
    /// The operand type it names.
    pub ty: &'static OperandTypeDef,
    /// Registers one operand of this kind names: the type's count unless the kind
    /// overrides it (`v^4`).
    pub regs: u8,
    /// Whether a register operand of this kind is read, written or both.
    pub access: Access,
    /// A trailing operand that may be omitted, meaning `default`.
    pub optional: bool,
    /// Written `name=value` and may be omitted, meaning `default`.
    pub keyed: bool,
    /// The raw value of an omitted optional or keyed operand.
    pub default: Option<u32>,
    /// How the assembly syntax writes the field when it is not a plain operand.
    pub modifier: Modifier,
    /// A spelling defined for warpkit's provisional instructions, not by the seeds.
    pub provisional: bool,
}

/// Fields the assembly syntax writes as modifiers rather than as operands of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// A plain operand.
    None,
    /// Source negation: bit k is set by `-x` on the k-th register source.
    Neg,
    /// Source absolute value: bit k is set by `|x|` on the k-th register source.
    Abs,
    /// A 1-bit field set by writing its name after the operands (`sat`).
    Switch,
}

impl KindDef {
    /// Whether operands of this kind are written as modifiers (source modifiers and
    /// switches), not as operands of their own.
    pub const fn is_modifier(&self) -> bool {
        !matches!(self.modifier, Modifier::None)
    }
}

/// What an instruction does with an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Immediate, offset or enum.
    Value,
    /// A register the instruction reads (a source, or the store data of a store).
    Read,
    /// A register the instruction writes: its `rd` operand, unless that is store data.
    Write,
    /// A register that is read and then written (`v*` destinations).
    ReadWrite,
}

/// A syntax operand of an instruction: its name (which is its field's name) and kind.
#[derive(Debug)]
pub struct OperandDef {
    /// The operand's name, which is its field's name (`rd`, `rs1`, `imm`, ...).
    pub name: &'static str,
    /// Its syntax kind.
    pub kind: &'static KindDef,
    /// Where it sits in the instruction word.
    pub field: FieldDef,
    /// What the instruction does with it.
    pub role: Role,
}

impl OperandDef {
    /// Its operand type (the type its kind names).
    pub fn ty(&self) -> &'static OperandTypeDef {
        self.kind.ty
    }
}

/// What a memory instruction does to memory (`memory` in `spec/provisional/memory.yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryDef {
    /// What the instruction does: load, store, atomic or cache control.
    pub access: MemoryAccess,
    /// Where its per-lane address comes from.
    pub address: Addressing,
    /// Bytes per lane (0 for cache control).
    pub size: u8,
    /// A load sign-extends its value to 32 bits (else zero-extends).
    pub signed: bool,
    /// Which half of each destination lane a 16-bit load replaces.
    pub part: MemoryPart,
    /// The read-modify-write of an atomic.
    pub atomic: Option<AtomicOp>,
    /// An atomic writes the old value back to its destination.
    pub returns: bool,
}

/// What a memory instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryAccess {
    /// Reads memory into `rd`.
    Load,
    /// Writes the store data named by `rd` to memory.
    Store,
    /// A read-modify-write of one 32-bit word per lane (see [`MemoryDef::atomic`]).
    Atomic,
    /// Cache control: invalidate (retires on `vm`).
    Invalidate,
    /// Cache control: write back (retires on `vst`).
    Writeback,
}

/// Where a memory instruction's address comes from (`imm` is added to each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressing {
    /// `U64[rs2] + zext(v[rs1])`: a uniform base and a per-lane offset.
    Global,
    /// `V64[rs1]`: a 64-bit address per lane.
    A64,
    /// `zext(v[rs1])`: an offset into the workgroup's shared memory.
    Shared,
    /// `U64[rs1]`: one address for the warp (uniform loads).
    Uniform,
    /// No address (cache control).
    None,
}

/// Which part of each destination lane a load replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryPart {
    /// The whole destination: every access except the 16-bit half loads.
    Whole,
    /// Bits `[15:0]`; the high half keeps its value.
    Low16,
    /// Bits `[31:16]`; the low half keeps its value.
    High16,
}

/// The read-modify-write of an atomic on a 32-bit word (`m` the word, `d` the data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// `m + d`, wrapping.
    Add,
    /// `m - d`, wrapping.
    Sub,
    /// The signed minimum of `m` and `d`.
    Smin,
    /// The unsigned minimum of `m` and `d`.
    Umin,
    /// The signed maximum of `m` and `d`.
    Smax,
    /// The unsigned maximum of `m` and `d`.
    Umax,
    /// `m & d`.
    And,
    /// `m | d`.
    Or,
    /// `m ^ d`.
    Xor,
    /// `d`: the word is replaced.
    Swap,
    /// `m == d.lo ? d.hi : m`.
    Cmpswap,
}

/// The latency column of seed 002: `fixed:N`, or `async:<counter>` for the operations of
/// section 2.6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latency {
    /// The result is ready after this many cycles.
    Fixed(u8),
    /// Index into [`crate::COUNTERS`].
    Async(u8),
}

/// The flags of seed 002's legend (and the provisional ones), as a bit set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u16);

impl Flags {
    /// Whether every flag of `other` is set here.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The flags set in either.
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// The names of the flags set, in the legend's order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        crate::FLAG_NAMES
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, (n, _))| *n)
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// One instruction variant, with its section 2.3 decode bits.
#[derive(Debug)]
pub struct InstrDef {
    /// The variant this entry describes; `INSTRUCTIONS[op as usize]` is this entry.
    pub op: crate::Op,
    /// The assembly mnemonic (`add.vu`).
    pub mnemonic: &'static str,
    /// The seed's family name, shared by the forms of one instruction (`ADD`).
    pub family: &'static str,
    /// The operation it performs, one name for every form of it (`add` for `add`,
    /// `add.vu`, `add.vi`, `add.vl` and `uadd`): the key of the model's semantics
    /// (`for_each_op!`).
    pub operation: &'static str,
    /// What a memory instruction accesses.
    pub memory: Option<MemoryDef>,
    /// The group number of the file that defines it (1 for seed 002's group, 100 and up
    /// for the provisional files); not an index.
    pub group: u16,
    /// Index into [`crate::SUBGROUPS`].
    pub subgroup: u16,
    /// Its format.
    pub format: &'static FormatDef,
    /// Its width in bits: 32 or 64, the format's.
    pub width: u8,
    /// Fixed fields in format order.
    pub fixed: &'static [(&'static str, u32)],
    /// Syntax operands in syntax order.
    pub operands: &'static [OperandDef],
    /// When its result is ready.
    pub latency: Latency,
    /// The latency as the database writes it (`fixed:4`, `async:vm`).
    pub latency_text: &'static str,
    /// The seed's formula in English, or a one-line description.
    pub semantics: &'static str,
    /// Its flags, as a bit set.
    pub flags: Flags,
    /// The flags as the seed spells them, in its order.
    pub flag_names: &'static [&'static str],
    /// Defined by warpkit where the seeds are silent (`spec/provisional/`).
    pub provisional: bool,
    /// Bits of the fixed fields.
    pub mask: u64,
    /// The fixed fields' values in place.
    pub match_bits: u64,
    /// Reserved-must-be-zero bits: neither fixed nor an operand.
    pub zero: u64,
}

impl InstrDef {
    /// The syntax operand called `name` (its field's name).
    pub fn operand(&self, name: &str) -> Option<&'static OperandDef> {
        self.operands.iter().find(|o| o.name == name)
    }

    /// The value of the fixed field called `name`, if the variant fixes it.
    pub fn fixed(&self, name: &str) -> Option<u32> {
        self.fixed.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// Its length in bytes: 4 or 8.
    pub fn len(&self) -> usize {
        usize::from(self.width / 8)
    }

    /// Always false: every instruction has a width. Present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// A control and status register of section 3.3 (`spec/csrs.yaml`).
#[derive(Debug)]
pub struct CsrDef {
    /// Its 10-bit CSR number, as the `csr` field of the CSR instructions holds it.
    pub number: u16,
    /// Its name, as assembly writes it (`exec`, `trapcause`).
    pub name: &'static str,
    /// Whether it can be written (`rw`); writing a read-only CSR traps.
    pub writable: bool,
    /// What it holds, in a few words.
    pub meaning: &'static str,
    /// Its value at warp start (provisional: the seeds give none).
    pub reset: u32,
    /// Where the value at warp start comes from when it is not `reset` (`set by the
    /// dispatcher`).
    pub reset_note: Option<&'static str>,
}

/// An asynchronous-operation counter of section 2.6 (`spec/counters.yaml`), waited on by
/// `waitcnt`.
#[derive(Debug)]
pub struct CounterDef {
    /// Its name (`vm`, `vst`, `tex`, `ls`, `sm`, `sfu`): its `waitcnt` operand's name.
    pub name: &'static str,
    /// Width of its `waitcnt` field in bits.
    pub bits: u8,
    /// How many of its operations may be in flight; issuing one more first completes the
    /// oldest.
    pub max_outstanding: u8,
    /// Its operations complete in issue order (all but `sm`).
    pub in_order: bool,
    /// The operations it counts, in a few words.
    pub covers: &'static str,
}

impl CounterDef {
    /// The waitcnt field value meaning "do not wait".
    pub const fn no_wait(&self) -> u32 {
        (1 << self.bits) - 1
    }
}

/// One instruction file of the database (`spec/instructions/*.yaml`,
/// `spec/provisional/*.yaml`).
#[derive(Debug)]
pub struct GroupDef {
    /// Its group number (1 for seed 002's group, 100 and up for the provisional files).
    pub group: u16,
    /// Its title, as the reference prints it.
    pub title: &'static str,
    /// The execution units its instructions use.
    pub unit: &'static str,
    /// Whether warpkit defined these instructions where the seeds are silent.
    pub provisional: bool,
    /// The file, relative to the workspace.
    pub source: &'static str,
}

/// A subgroup of an instruction file: a titled run of [`crate::INSTRUCTIONS`].
#[derive(Debug)]
pub struct SubgroupDef {
    /// Index into [`crate::GROUPS`].
    pub group: u16,
    /// Its short name (`valu-int`).
    pub id: &'static str,
    /// Its title, as the reference prints it.
    pub title: &'static str,
    /// Range into [`crate::INSTRUCTIONS`].
    pub first: u16,
    /// How many instructions it holds: `first..first + len`.
    pub len: u16,
}

/// The decode index of one 7-bit opcode: the slot of word `w` in [`crate::DECODE_INDEX`]
/// is `base + ((w & key_mask) * multiplier) >> shift`, a perfect hash of the function
/// fields of the variants sharing the opcode.
#[derive(Debug)]
pub struct DecodeKey {
    /// The function fields of the opcode's variants (their fixed fields other than the
    /// opcode); 0 for an opcode no variant uses.
    pub key_mask: u64,
    /// The hash multiplier (0 when one variant owns the opcode).
    pub multiplier: u64,
    /// `64 - log2` of the opcode's slot count in [`crate::DECODE_INDEX`].
    pub shift: u8,
    /// The opcode's first slot in [`crate::DECODE_INDEX`]; 0, the shared empty slot, for an
    /// unused opcode.
    pub base: u16,
}

/// What decoding one variant touches: the section 2.3 test and where each operand sits.
#[derive(Debug)]
pub struct DecodeHot {
    /// The variant.
    pub op: crate::Op,
    /// `mask | zero`.
    pub check: u64,
    /// The value `word & check` must have: the variant's fixed fields in place, zeros
    /// elsewhere.
    pub match_bits: u64,
    /// `(lsb, mask)` of each syntax operand's field; unused slots are `(0, 0)`.
    pub fields: [(u8, u32); crate::limits::MAX_OPERANDS],
}
