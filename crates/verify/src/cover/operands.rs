//! How coverage reads an instruction's operands: which are registers (and how wide a value
//! they hold, and whether as floating point), which are immediates (and their range), and
//! which it does not classify (source modifiers, enums, branch offsets). Derived from the
//! database entry alone, so the model and the measurement agree on it.

use super::classes::FloatFormat;
use warpkit_isa::{Flags, InstrDef, OperandClass, Role, GROUPS, SUBGROUPS};

/// What an operand is, for classifying its values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Shape {
    /// Registers: `regs` of them from the field's register, each lane (or the one uniform
    /// value) `bits` wide (16: a half, 32: one register, 64: a pair; groups of 4 or 8
    /// give one 32-bit value per register).
    Register {
        /// A vector register (per lane) rather than a uniform one.
        vector: bool,
        /// Registers named.
        regs: u8,
        /// `raw[7:1]` is the register, `raw[0]` the half.
        half: bool,
        /// Width of one value.
        bits: u32,
        /// Whether the instruction reads it.
        read: bool,
        /// Whether the instruction writes it.
        write: bool,
        /// The floating-point format its values are in, for a floating-point instruction.
        float: Option<FloatFormat>,
    },
    /// An immediate accepting `lo..=hi` in steps of `scale`; `literal` for a raw 32-bit
    /// literal.
    Immediate {
        lo: i64,
        hi: i64,
        scale: i64,
        literal: bool,
    },
    /// Not classified.
    Ignored,
}

/// Whether `def` is one of the floating-point instructions (the file
/// `spec/provisional/float.yaml`).
pub(crate) fn is_float(def: &InstrDef) -> bool {
    SUBGROUPS
        .get(usize::from(def.subgroup))
        .and_then(|s| GROUPS.get(usize::from(s.group)))
        .is_some_and(|g| g.source.ends_with("float.yaml"))
}

/// The floating-point format a conversion's type suffix names (`f32`, `bf16`), if it is one.
fn format_named(name: &str) -> Option<FloatFormat> {
    match name {
        "f16" => Some(FloatFormat::F16),
        "bf16" => Some(FloatFormat::Bf16),
        "f32" => Some(FloatFormat::F32),
        "f64" => Some(FloatFormat::F64),
        _ => None,
    }
}

/// The shapes of `def`'s syntax operands, in order.
pub(crate) fn shapes(def: &InstrDef) -> Vec<Shape> {
    let float = is_float(def);
    // Conversions name their destination and source types: `cvt.<to>.<from>`.
    let mut parts = def.mnemonic.split('.');
    let cvt = (parts.next() == Some("cvt"))
        .then(|| (parts.next().unwrap_or(""), parts.next().unwrap_or("")));
    def.operands
        .iter()
        .map(|o| {
            let ty = o.ty();
            if o.kind.is_modifier() {
                return Shape::Ignored;
            }
            match ty.class {
                OperandClass::VReg | OperandClass::UReg => {
                    let vector = ty.class == OperandClass::VReg;
                    let regs = o.kind.regs.max(1);
                    let bits = if ty.half {
                        16
                    } else if regs == 2 {
                        64
                    } else {
                        32
                    };
                    let read = matches!(o.role, Role::Read | Role::ReadWrite);
                    let write = matches!(o.role, Role::Write | Role::ReadWrite);
                    let format = match cvt {
                        Some((to, from)) if vector => format_named(if write { to } else { from }),
                        _ if float && vector => Some(match bits {
                            16 => FloatFormat::F16,
                            64 => FloatFormat::F64,
                            _ => FloatFormat::F32,
                        }),
                        _ => None,
                    };
                    Shape::Register {
                        vector,
                        regs,
                        half: ty.half,
                        bits,
                        read,
                        write,
                        float: format,
                    }
                }
                OperandClass::SImm | OperandClass::UImm | OperandClass::Imm if !ty.pc_relative => {
                    let literal = ty.class == OperandClass::Imm;
                    let (lo, hi) = if literal {
                        (0, i64::from(u32::MAX))
                    } else {
                        ty.value_range()
                    };
                    Shape::Immediate {
                        lo,
                        hi,
                        scale: i64::from(ty.scale.max(1)),
                        literal,
                    }
                }
                _ => Shape::Ignored,
            }
        })
        .collect()
}

/// Whether `def` runs under EXEC (a vector instruction: not `ei`).
pub(crate) fn is_vector(def: &InstrDef) -> bool {
    !def.flags.contains(Flags::EI)
}

/// Whether `def` is a conditional branch.
pub(crate) fn is_conditional_branch(def: &InstrDef) -> bool {
    def.flags.contains(Flags::BR) && def.flags.contains(Flags::CD)
}

/// Whether a conditional branch decides per lane (it reads EXEC): `bexecz`, `bany`, ...
pub(crate) fn branch_reads_lanes(def: &InstrDef) -> bool {
    is_conditional_branch(def) && def.flags.contains(Flags::RE)
}

/// The index of the `csr` operand of a CSR access instruction.
pub(crate) fn csr_operand(def: &InstrDef) -> Option<usize> {
    def.operands.iter().position(|o| o.ty().name == "csr")
}

/// Whether an async instruction writes a register when it retires.
pub(crate) fn writes_register(def: &InstrDef) -> bool {
    shapes(def)
        .iter()
        .any(|s| matches!(s, Shape::Register { write: true, .. }))
}
