//! The decoded form of an instruction, its encoding and its canonical assembly text.

use crate::limits::MAX_OPERANDS;
use crate::{InstrDef, Modifier, Op, Operand, OperandClass, DECODE_HOT};
use std::fmt;

/// A decoded instruction: the variant and its instruction word, from which each syntax
/// operand's raw field value is read on demand (decode stays a handful of operations).
/// Reserved operand values (errata v0.1.2) are carried as they were encoded.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instr {
    op: Op,
    word: u64,
}

/// Why operands do not make an instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The number of operands given is not the number of the variant's syntax operands.
    #[error("`{mnemonic}` takes {expected} operands, {found} given")]
    OperandCount {
        /// The variant's mnemonic.
        mnemonic: &'static str,
        /// How many syntax operands it has.
        expected: usize,
        /// How many were given.
        found: usize,
    },
    /// An operand does not fit its field or is not of its kind.
    #[error("`{mnemonic}` operand `{operand}`: {reason}")]
    Operand {
        /// The variant's mnemonic.
        mnemonic: &'static str,
        /// The operand's name (its field's name).
        operand: &'static str,
        /// Why it does not fit.
        reason: String,
    },
}

/// A reserved operand value: it decodes, but executing it raises IllegalInsn (errata v0.1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserved {
    /// A register group that is not aligned as its type requires (odd pair, misaligned
    /// descriptor).
    Misaligned {
        /// The operand's name (its field's name).
        operand: &'static str,
        /// The first register of the group, as encoded.
        first: u32,
        /// The alignment its type requires.
        align: u8,
    },
    /// A register group that runs past the last register.
    OutOfRange {
        /// The operand's name (its field's name).
        operand: &'static str,
        /// The first register of the group, as encoded.
        first: u32,
        /// How many registers the group names.
        count: u8,
    },
    /// An encoded value in the type's reserved range (`lane7` >= 32, `rm` 5/6, `cpol` 4..7).
    Value {
        /// The operand's name (its field's name).
        operand: &'static str,
        /// The encoded value.
        value: u32,
    },
}

impl fmt::Display for Reserved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reserved::Misaligned {
                operand,
                first,
                align,
            } => write!(
                f,
                "operand {operand}: register {first} is not aligned to {align}"
            ),
            Reserved::OutOfRange {
                operand,
                first,
                count,
            } => write!(
                f,
                "operand {operand}: {count} registers from {first} run past the register file"
            ),
            Reserved::Value { operand, value } => {
                write!(f, "operand {operand}: value {value} is reserved")
            }
        }
    }
}

impl Instr {
    /// Build an instruction from raw field values, one per syntax operand. Each must fit its
    /// field; reserved values are accepted (they trap at execution, not here).
    pub fn from_raw(op: Op, raw: &[u32]) -> Result<Instr, EncodeError> {
        let def = op.def();
        if raw.len() != def.operands.len() {
            return Err(EncodeError::OperandCount {
                mnemonic: def.mnemonic,
                expected: def.operands.len(),
                found: raw.len(),
            });
        }
        let mut word = def.match_bits;
        for (o, &v) in def.operands.iter().zip(raw) {
            let width = o.field.width();
            if width < 32 && v >> width != 0 {
                return Err(EncodeError::Operand {
                    mnemonic: def.mnemonic,
                    operand: o.name,
                    reason: format!("{v} does not fit the {width}-bit field"),
                });
            }
            word = o.field.insert(word, v);
        }
        Ok(Instr { op, word })
    }

    /// Build an instruction from typed operands in syntax order.
    pub fn new(op: Op, operands: &[Operand]) -> Result<Instr, EncodeError> {
        let def = op.def();
        if operands.len() != def.operands.len() {
            return Err(EncodeError::OperandCount {
                mnemonic: def.mnemonic,
                expected: def.operands.len(),
                found: operands.len(),
            });
        }
        let mut raw = [0u32; MAX_OPERANDS];
        for (i, (o, v)) in def.operands.iter().zip(operands).enumerate() {
            raw[i] = v.to_raw(o.kind).map_err(|reason| EncodeError::Operand {
                mnemonic: def.mnemonic,
                operand: o.name,
                reason,
            })?;
        }
        Instr::from_raw(op, &raw[..def.operands.len()])
    }

    /// Decode-side constructor: the caller guarantees `word` matches `op` under section 2.3.
    #[inline(always)]
    pub(crate) fn from_word(op: Op, word: u64) -> Instr {
        Instr { op, word }
    }

    /// The variant.
    #[inline(always)]
    pub fn op(&self) -> Op {
        self.op
    }

    /// The variant's entry in the database.
    #[inline(always)]
    pub fn def(&self) -> &'static InstrDef {
        self.op.def()
    }

    /// Encoded length in bytes (4 or 8).
    pub fn len(&self) -> usize {
        self.def().len()
    }

    /// Always false; see [`Instr::len`].
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The raw field value of syntax operand `i` (0 past the last operand).
    #[inline(always)]
    pub fn raw(&self, i: usize) -> u32 {
        let (lsb, mask) = DECODE_HOT[self.op as usize]
            .fields
            .get(i)
            .copied()
            .unwrap_or((0, 0));
        (self.word >> lsb) as u32 & mask
    }

    /// The raw field values of the syntax operands.
    pub fn raw_operands(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.def().operands.len()).map(|i| self.raw(i))
    }

    /// Syntax operand `i`, typed.
    pub fn operand(&self, i: usize) -> Operand {
        Operand::from_raw(self.def().operands[i].kind, self.raw(i))
    }

    /// The typed syntax operands, in order.
    pub fn operands(&self) -> impl Iterator<Item = Operand> + '_ {
        (0..self.def().operands.len()).map(|i| self.operand(i))
    }

    /// The operand called `name` (its field's name), typed.
    pub fn operand_named(&self, name: &str) -> Option<Operand> {
        let def = self.def();
        def.operands
            .iter()
            .position(|o| o.name == name)
            .map(|i| self.operand(i))
    }

    /// The instruction word (the low 32 bits for a 32-bit instruction).
    #[inline(always)]
    pub fn encode(&self) -> u64 {
        self.word
    }

    /// Append the little-endian bytes of this instruction to `out`.
    pub fn write_bytes(&self, out: &mut Vec<u8>) {
        let w = self.encode();
        out.extend_from_slice(&w.to_le_bytes()[..self.len()]);
    }

    /// The little-endian bytes of this instruction.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(8);
        self.write_bytes(&mut v);
        v
    }

    /// The first reserved operand value this instruction carries, if any (errata v0.1.2:
    /// such an instruction decodes but raises IllegalInsn when executed).
    pub fn reserved_operand(&self) -> Option<Reserved> {
        let def = self.def();
        for (i, o) in def.operands.iter().enumerate() {
            let raw = self.raw(i);
            let ty = o.kind.ty;
            if ty.is_reserved(raw) {
                return Some(Reserved::Value {
                    operand: o.name,
                    value: raw,
                });
            }
            let (file, first) = match ty.class {
                OperandClass::VReg if !ty.half => (128u32, raw),
                OperandClass::UReg => (64u32, raw),
                _ => continue,
            };
            let count = o.kind.regs;
            if count > 1 && first % u32::from(ty.align) != 0 {
                return Some(Reserved::Misaligned {
                    operand: o.name,
                    first,
                    align: ty.align,
                });
            }
            if first + u32::from(count) > file {
                return Some(Reserved::OutOfRange {
                    operand: o.name,
                    first,
                    count,
                });
            }
        }
        None
    }
}

impl fmt::Debug for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Instr({self})")
    }
}

/// Canonical assembly: `mnemonic op, op, ...`. Keyed operands (`waitcnt vm=0`) and trailing
/// optional operands are omitted when they hold their default. An instruction with
/// modifier fields writes its source modifiers on the sources (`-v2`, `|v2|`, `-|v2|`) and
/// its switches and keyed operands after the operands, separated by spaces (`sat rm=rtz`,
/// the keyed ones omitted at their default).
impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let def = self.def();
        if def.operands.iter().any(|o| o.kind.is_modifier()) {
            return self.fmt_with_modifiers(f);
        }
        f.write_str(def.mnemonic)?;
        let mut first = true;
        // Trailing optional operands at their default are left out.
        let mut shown = def.operands.len();
        while shown > 0 {
            let o = &def.operands[shown - 1];
            if o.kind.optional && o.kind.default == Some(self.raw(shown - 1)) {
                shown -= 1;
            } else {
                break;
            }
        }
        for (i, o) in def.operands.iter().enumerate().take(shown) {
            if o.kind.keyed && o.kind.default == Some(self.raw(i)) {
                continue;
            }
            f.write_str(if first { " " } else { ", " })?;
            first = false;
            if o.kind.keyed {
                write!(f, "{}=", o.name)?;
            }
            self.operand(i).fmt_with(o.kind, f)?;
        }
        Ok(())
    }
}

/// The source-modifier bit of a register source: `rs1` is bit 0, `rs2` bit 1, `rs3` bit 2
/// (seed 000, `mod3`).
pub fn source_bit(operand_name: &str) -> Option<u32> {
    match operand_name {
        "rs1" => Some(0),
        "rs2" => Some(1),
        "rs3" => Some(2),
        _ => None,
    }
}

impl Instr {
    /// The bits of the `neg` or `abs` field that no source of this instruction carries.
    fn stray_modifier_bits(&self, value: u32) -> u32 {
        let present = self
            .def()
            .operands
            .iter()
            .filter_map(|o| source_bit(o.name))
            .fold(0, |m, b| m | (1 << b));
        value & !present
    }

    fn modifier_value(&self, which: Modifier) -> u32 {
        let def = self.def();
        def.operands
            .iter()
            .position(|o| o.kind.modifier == which)
            .map_or(0, |i| self.raw(i))
    }

    fn fmt_with_modifiers(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let def = self.def();
        let neg = self.modifier_value(Modifier::Neg);
        let abs = self.modifier_value(Modifier::Abs);
        f.write_str(def.mnemonic)?;
        let mut first = true;
        for (i, o) in def.operands.iter().enumerate() {
            if o.kind.is_modifier() || o.kind.keyed {
                continue;
            }
            f.write_str(if first { " " } else { ", " })?;
            first = false;
            let bit = source_bit(o.name).map_or(0, |b| 1u32 << b);
            if neg & bit != 0 {
                f.write_str("-")?;
            }
            if abs & bit != 0 {
                f.write_str("|")?;
            }
            self.operand(i).fmt_with(o.kind, f)?;
            if abs & bit != 0 {
                f.write_str("|")?;
            }
        }
        for (i, o) in def.operands.iter().enumerate() {
            let raw = self.raw(i);
            match o.kind.modifier {
                Modifier::Switch if raw != 0 => write!(f, " {}", o.name)?,
                // Bits for sources the instruction does not have cannot be written on a
                // source; they are written as `neg=N` / `abs=N` so the text still assembles
                // to the same word.
                Modifier::Neg | Modifier::Abs if self.stray_modifier_bits(raw) != 0 => {
                    write!(f, " {}={raw}", o.name)?
                }
                Modifier::None if o.kind.keyed && o.kind.default != Some(raw) => {
                    write!(f, " {}=", o.name)?;
                    self.operand(i).fmt_with(o.kind, f)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}
