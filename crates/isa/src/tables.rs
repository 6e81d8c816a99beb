//! The types of the static tables generated from `spec/` (see `build.rs`).

use std::fmt;

/// A bit field `name[msb:lsb]` of an instruction word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    pub name: &'static str,
    pub msb: u8,
    pub lsb: u8,
}

impl FieldDef {
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

    #[inline(always)]
    pub const fn extract(&self, word: u64) -> u32 {
        ((word & self.mask()) >> self.lsb) as u32
    }

    #[inline(always)]
    pub const fn insert(&self, word: u64, value: u32) -> u64 {
        (word & !self.mask()) | (((value as u64) << self.lsb) & self.mask())
    }
}

/// One of the 28 formats of section 2.2.
#[derive(Debug)]
pub struct FormatDef {
    pub name: &'static str,
    pub width: u8,
    pub purpose: &'static str,
    /// Most significant first, as the seed lists them.
    pub fields: &'static [FieldDef],
}

impl FormatDef {
    pub fn field(&self, name: &str) -> Option<&'static FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// The class of an operand type (section 2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandClass {
    VReg,
    UReg,
    SImm,
    UImm,
    /// A raw 32-bit literal: integer or fp32 bit pattern.
    Imm,
    Enum,
}

impl OperandClass {
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
    pub name: &'static str,
    pub class: OperandClass,
    pub bits: u8,
    pub scale: u8,
    /// Registers named by one operand of this type (pairs 2, descriptors 4 or 8).
    pub regs: u8,
    /// Required alignment of the first register (unaligned values trap at execution).
    pub align: u8,
    /// `raw[7:1]` is the register, `raw[0]` the half.
    pub half: bool,
    /// A byte offset from the instruction's own address (branch offsets of §2.4).
    pub pc_relative: bool,
    pub description: &'static str,
    pub values: &'static [(&'static str, u32)],
    /// Inclusive range of encoded values that decode but are illegal at execution.
    pub reserved: Option<(u32, u32)>,
}

impl OperandTypeDef {
    pub fn value_name(&self, value: u32) -> Option<&'static str> {
        self.values
            .iter()
            .find(|(_, v)| *v == value)
            .map(|(n, _)| *n)
    }

    pub fn value_of(&self, name: &str) -> Option<u32> {
        self.values
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }

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
    pub kind: &'static str,
    pub ty: &'static OperandTypeDef,
    pub regs: u8,
    pub access: Access,
    pub optional: bool,
    pub keyed: bool,
    pub default: Option<u32>,
    /// How the assembly syntax writes the field when it is not a plain operand.
    pub modifier: Modifier,
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
    Read,
    Write,
    ReadWrite,
}

/// A syntax operand of an instruction: its name (which is its field's name) and kind.
#[derive(Debug)]
pub struct OperandDef {
    pub name: &'static str,
    pub kind: &'static KindDef,
    pub field: FieldDef,
    pub role: Role,
}

impl OperandDef {
    pub fn ty(&self) -> &'static OperandTypeDef {
        self.kind.ty
    }
}

/// What a memory instruction does to memory (`memory` in `spec/provisional/memory.yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryDef {
    pub access: MemoryAccess,
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
    Load,
    Store,
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
    Whole,
    /// Bits [15:0]; the high half keeps its value.
    Low16,
    /// Bits [31:16]; the low half keeps its value.
    High16,
}

/// The read-modify-write of an atomic on a 32-bit word (`m` the word, `d` the data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Smin,
    Umin,
    Smax,
    Umax,
    And,
    Or,
    Xor,
    Swap,
    /// `m == d.lo ? d.hi : m`.
    Cmpswap,
}

/// The latency column of seed 002: `fixed:N`, or `async:<counter>` for the operations of
/// section 2.6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latency {
    Fixed(u8),
    /// Index into [`crate::COUNTERS`].
    Async(u8),
}

/// The flags of seed 002's legend (and the provisional ones), as a bit set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u16);

impl Flags {
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

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
    pub op: crate::Op,
    pub mnemonic: &'static str,
    pub family: &'static str,
    /// The operation it performs, one name for every form of it (`add` for `add`,
    /// `add.vu`, `add.vi`, `add.vl` and `uadd`): the key of the model's semantics
    /// (`for_each_op!`).
    pub operation: &'static str,
    /// What a memory instruction accesses.
    pub memory: Option<MemoryDef>,
    pub group: u16,
    /// Index into [`crate::SUBGROUPS`].
    pub subgroup: u16,
    pub format: &'static FormatDef,
    pub width: u8,
    /// Fixed fields in format order.
    pub fixed: &'static [(&'static str, u32)],
    /// Syntax operands in syntax order.
    pub operands: &'static [OperandDef],
    pub latency: Latency,
    pub latency_text: &'static str,
    pub semantics: &'static str,
    pub flags: Flags,
    /// The flags as the seed spells them, in its order.
    pub flag_names: &'static [&'static str],
    pub provisional: bool,
    /// Bits of the fixed fields.
    pub mask: u64,
    /// The fixed fields' values in place.
    pub match_bits: u64,
    /// Reserved-must-be-zero bits: neither fixed nor an operand.
    pub zero: u64,
}

impl InstrDef {
    pub fn operand(&self, name: &str) -> Option<&'static OperandDef> {
        self.operands.iter().find(|o| o.name == name)
    }

    pub fn fixed(&self, name: &str) -> Option<u32> {
        self.fixed.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    pub fn len(&self) -> usize {
        usize::from(self.width / 8)
    }

    /// Always false: every instruction has a width. Present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        false
    }
}

#[derive(Debug)]
pub struct CsrDef {
    pub number: u16,
    pub name: &'static str,
    pub writable: bool,
    pub meaning: &'static str,
    pub reset: u32,
    pub reset_note: Option<&'static str>,
}

#[derive(Debug)]
pub struct CounterDef {
    pub name: &'static str,
    pub bits: u8,
    pub max_outstanding: u8,
    pub in_order: bool,
    pub covers: &'static str,
}

impl CounterDef {
    /// The waitcnt field value meaning "do not wait".
    pub const fn no_wait(&self) -> u32 {
        (1 << self.bits) - 1
    }
}

#[derive(Debug)]
pub struct GroupDef {
    pub group: u16,
    pub title: &'static str,
    pub unit: &'static str,
    pub provisional: bool,
    pub source: &'static str,
}

#[derive(Debug)]
pub struct SubgroupDef {
    /// Index into [`crate::GROUPS`].
    pub group: u16,
    pub id: &'static str,
    pub title: &'static str,
    /// Range into [`crate::INSTRUCTIONS`].
    pub first: u16,
    pub len: u16,
}

/// The decode index of one 7-bit opcode: the slot of word `w` in [`crate::DECODE_INDEX`]
/// is `base + ((w & key_mask) * multiplier) >> shift`, a perfect hash of the function
/// fields of the variants sharing the opcode.
#[derive(Debug)]
pub struct DecodeKey {
    pub key_mask: u64,
    pub multiplier: u64,
    pub shift: u8,
    pub base: u16,
}

/// What decoding one variant touches: the section 2.3 test and where each operand sits.
#[derive(Debug)]
pub struct DecodeHot {
    pub op: crate::Op,
    /// `mask | zero`.
    pub check: u64,
    pub match_bits: u64,
    /// `(lsb, mask)` of each syntax operand's field; unused slots are `(0, 0)`.
    pub fields: [(u8, u32); crate::limits::MAX_OPERANDS],
}
