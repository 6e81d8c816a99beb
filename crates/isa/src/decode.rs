//! Sections 2.1 and 2.3: the length from the low bits of `w0`, then the one instruction whose
//! `(w & (mask | zero)) == match`. O(1): index by the 7-bit opcode, then by the key made of
//! the instruction's other fixed fields.

use crate::{Instr, Op, INSTRUCTIONS, MAX_OPERANDS, OPCODE_TABLE};
use std::fmt;

/// Why bytes do not decode to an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Fewer bytes than the instruction's length.
    #[error("truncated instruction: {needed} bytes needed, {available} available")]
    Truncated { needed: usize, available: usize },
    /// `w0[1:0] = 11`: reserved for longer instructions, illegal in v0.1.
    #[error("reserved length bits w0[1:0] = 11 in {word:#010x}")]
    ReservedLength { word: u32 },
    /// No instruction has this opcode and function field.
    #[error("no instruction matches {}", Word(*.word, *.width))]
    NoMatch { word: u64, width: u8 },
    /// The opcode and function fields name `op`, but reserved-must-be-zero bits are set.
    #[error("{} would be `{}` but has non-zero reserved bits {:#x}", Word(*.word, *.width), .op.mnemonic(), .bits)]
    ReservedBits {
        word: u64,
        width: u8,
        op: Op,
        bits: u64,
    },
}

impl DecodeError {
    /// The low 32 bits of the offending word (IllegalInsn's trapinfo), where there is one.
    pub fn low_word(&self) -> Option<u32> {
        match *self {
            DecodeError::Truncated { .. } => None,
            DecodeError::ReservedLength { word } => Some(word),
            DecodeError::NoMatch { word, .. } | DecodeError::ReservedBits { word, .. } => {
                Some(word as u32)
            }
        }
    }
}

struct Word(u64, u8);

impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 == 64 {
            write!(f, "{:#018x}", self.0)
        } else {
            write!(f, "{:#010x}", self.0)
        }
    }
}

/// The length in bytes that `w0`'s low bits give (section 2.1), or the reserved-length error.
#[inline(always)]
pub fn instruction_len(w0: u32) -> Result<usize, DecodeError> {
    if w0 & 0x1 == 0 {
        Ok(4)
    } else if w0 & 0x3 == 0x1 {
        Ok(8)
    } else {
        Err(DecodeError::ReservedLength { word: w0 })
    }
}

/// Decode the instruction at the start of `bytes`: the instruction and its length.
#[inline]
pub fn decode(bytes: &[u8]) -> Result<(Instr, usize), DecodeError> {
    let Some(w0) = bytes.first_chunk::<4>() else {
        return Err(DecodeError::Truncated {
            needed: 4,
            available: bytes.len(),
        });
    };
    let w0 = u32::from_le_bytes(*w0);
    let len = instruction_len(w0)?;
    let word = if len == 4 {
        u64::from(w0)
    } else {
        match bytes.first_chunk::<8>() {
            Some(b) => u64::from_le_bytes(*b),
            None => {
                return Err(DecodeError::Truncated {
                    needed: 8,
                    available: bytes.len(),
                })
            }
        }
    };
    decode_word(word, len as u8 * 8).map(|i| (i, len))
}

/// Decode one instruction word of the given width (32 or 64); the width must be the one
/// [`instruction_len`] gives for its low bits.
#[inline]
pub fn decode_word(word: u64, width: u8) -> Result<Instr, DecodeError> {
    let slot = &OPCODE_TABLE[(word & 0x7f) as usize];
    let mut key = 0usize;
    for f in slot.key {
        key = (key << f.width()) | f.extract(word) as usize;
    }
    let index = match slot.ops.get(key) {
        Some(&i) if i != u16::MAX => i as usize,
        _ => return Err(DecodeError::NoMatch { word, width }),
    };
    let def = &INSTRUCTIONS[index];
    if def.width != width {
        return Err(DecodeError::NoMatch { word, width });
    }
    // The fixed fields match by construction of the index; what is left of section 2.3's
    // test is the reserved-must-be-zero bits.
    let stray = word & def.zero;
    if stray != 0 || word & def.mask != def.match_bits {
        return Err(DecodeError::ReservedBits {
            word,
            width,
            op: def.op,
            bits: stray,
        });
    }
    let mut raw = [0u32; MAX_OPERANDS];
    for (r, o) in raw.iter_mut().zip(def.operands) {
        *r = o.field.extract(word);
    }
    Ok(Instr::from_fields(def.op, raw))
}
