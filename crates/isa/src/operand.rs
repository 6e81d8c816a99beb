//! Typed operands: registers, register groups, halves, immediates and enum values.

use crate::{KindDef, OperandClass};
use std::fmt;

/// A vector register number (v0..v127 are architectural; the encoding holds 7 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u8);

/// A uniform register number (u0..u63).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UReg(pub u8);

/// Which 16-bit half of a vector register a `vreg16` operand names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Half {
    /// Bits `[15:0]`, `.l`.
    Low,
    /// Bits `[31:16]`, `.h`.
    High,
}

/// A decoded operand, as the assembly syntax sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// One vector register, `v3`.
    V(VReg),
    /// `count` consecutive vector registers from `first`: a pair `v[4:5]` or a group `v[8:11]`.
    VGroup {
        /// The first register.
        first: VReg,
        /// How many registers: 2 for a pair, 4 for a group.
        count: u8,
    },
    /// A 16-bit half of a vector register, `v3.l` or `v3.h`.
    VHalf(VReg, Half),
    /// One uniform register, `u3`.
    U(UReg),
    /// `count` consecutive uniform registers: a pair `u[2:3]`, a descriptor `u[4:7]`.
    UGroup {
        /// The first register.
        first: UReg,
        /// How many registers: 2 for a pair, 4 or 8 for a descriptor.
        count: u8,
    },
    /// An immediate or offset as assembly writes it: already scaled, sign-extended for
    /// signed types; a `k32` literal is its unsigned 32-bit pattern.
    Imm(i64),
    /// An enum value (rm, cpol, dim, csr, ...), by encoded value.
    Enum(u32),
}

impl Operand {
    /// The operand held by the raw field value `raw` of an operand of kind `kind`.
    pub fn from_raw(kind: &KindDef, raw: u32) -> Operand {
        let ty = kind.ty;
        match ty.class {
            OperandClass::VReg if ty.half => vhalf_from_raw(raw),
            OperandClass::VReg if kind.regs > 1 => Operand::VGroup {
                first: VReg(raw as u8),
                count: kind.regs,
            },
            OperandClass::VReg => Operand::V(VReg(raw as u8)),
            OperandClass::UReg if kind.regs > 1 => Operand::UGroup {
                first: UReg(raw as u8),
                count: kind.regs,
            },
            OperandClass::UReg => Operand::U(UReg(raw as u8)),
            OperandClass::SImm => {
                let bits = u32::from(ty.bits);
                let v = (i64::from(raw) << (64 - bits)) >> (64 - bits);
                Operand::Imm(v * i64::from(ty.scale))
            }
            OperandClass::UImm | OperandClass::Imm => {
                Operand::Imm(i64::from(raw) * i64::from(ty.scale))
            }
            OperandClass::Enum => Operand::Enum(raw),
        }
    }

    /// The raw field value of this operand for kind `kind`, or why it does not fit.
    pub fn to_raw(self, kind: &KindDef) -> Result<u32, String> {
        let ty = kind.ty;
        let bits = u32::from(ty.bits);
        let limit = if bits >= 32 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let fits = |raw: u64| -> Result<u32, String> {
            if raw <= limit {
                Ok(raw as u32)
            } else {
                Err(format!(
                    "{raw} does not fit the {bits}-bit {} field",
                    ty.name
                ))
            }
        };
        match (ty.class, self) {
            (OperandClass::VReg, Operand::VHalf(r, h)) if ty.half => {
                fits((u64::from(r.0) << 1) | u64::from(h == Half::High))
            }
            (OperandClass::VReg, Operand::V(r)) if kind.regs == 1 && !ty.half => {
                fits(u64::from(r.0))
            }
            (OperandClass::VReg, Operand::VGroup { first, count }) if count == kind.regs => {
                fits(u64::from(first.0))
            }
            (OperandClass::UReg, Operand::U(r)) if kind.regs == 1 => fits(u64::from(r.0)),
            (OperandClass::UReg, Operand::UGroup { first, count }) if count == kind.regs => {
                fits(u64::from(first.0))
            }
            (OperandClass::SImm | OperandClass::UImm | OperandClass::Imm, Operand::Imm(v)) => {
                let scale = i64::from(ty.scale);
                if v % scale != 0 {
                    return Err(format!("{v} is not a multiple of {scale}"));
                }
                let (lo, hi) = if ty.class == OperandClass::Imm {
                    (i64::from(i32::MIN), i64::from(u32::MAX))
                } else {
                    ty.value_range()
                };
                if v < lo || v > hi {
                    return Err(format!("{v} is not in {lo}..{hi}"));
                }
                let raw = (v / scale) as u64 & limit;
                Ok(raw as u32)
            }
            (OperandClass::Enum, Operand::Enum(v)) => fits(u64::from(v)),
            (_, other) => Err(format!("{other:?} is not a {} operand", kind.kind)),
        }
    }

    /// Write this operand as assembly, for an operand of kind `kind`.
    pub fn fmt_with(self, kind: &KindDef, f: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Operand::V(r) => write!(f, "v{}", r.0),
            Operand::VGroup { first, count } => {
                write!(
                    f,
                    "v[{}:{}]",
                    first.0,
                    u32::from(first.0) + u32::from(count) - 1
                )
            }
            Operand::VHalf(r, Half::Low) => write!(f, "v{}.l", r.0),
            Operand::VHalf(r, Half::High) => write!(f, "v{}.h", r.0),
            Operand::U(r) => write!(f, "u{}", r.0),
            Operand::UGroup { first, count } => {
                write!(
                    f,
                    "u[{}:{}]",
                    first.0,
                    u32::from(first.0) + u32::from(count) - 1
                )
            }
            Operand::Imm(v) if kind.ty.class == OperandClass::Imm => write!(f, "{v:#x}"),
            Operand::Imm(v) => write!(f, "{v}"),
            Operand::Enum(v) => match kind.ty.value_name(v) {
                Some(name) => f.write_str(name),
                None => write!(f, "{v}"),
            },
        }
    }
}

fn vhalf_from_raw(raw: u32) -> Operand {
    let half = if raw & 1 == 0 { Half::Low } else { Half::High };
    Operand::VHalf(VReg((raw >> 1) as u8), half)
}
