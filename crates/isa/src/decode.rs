//! Sections 2.1 and 2.3: the length from the low bits of `w0`, then the one instruction whose
//! `(w & (mask | zero)) == match`. O(1): index by the 7-bit opcode, then by the key made of
//! the instruction's other fixed fields.

use crate::{Instr, Op, DECODE_HOT, DECODE_INDEX, DECODE_KEYS, INSTRUCTIONS};
use std::fmt;

/// Why bytes do not decode to an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Fewer bytes than the instruction's length.
    #[error("truncated instruction: {needed} bytes needed, {available} available")]
    Truncated {
        /// The instruction's length in bytes (4 when not even `w0` is there).
        needed: usize,
        /// How many bytes there were.
        available: usize,
    },
    /// `w0[1:0] = 11`: reserved for longer instructions, illegal in v0.1.
    #[error("reserved length bits w0[1:0] = 11 in {word:#010x}")]
    ReservedLength {
        /// The word `w0`.
        word: u32,
    },
    /// No instruction has this opcode and function field.
    #[error("no instruction matches {}", Word(*.word, *.width))]
    NoMatch {
        /// The instruction word (the low 32 bits for a 32-bit instruction).
        word: u64,
        /// Its width in bits: 32 or 64.
        width: u8,
    },
    /// The opcode and function fields name `op`, but reserved-must-be-zero bits are set.
    #[error("{} would be `{}` but has non-zero reserved bits {:#x}", Word(*.word, *.width), .op.mnemonic(), .bits)]
    ReservedBits {
        /// The instruction word (the low 32 bits for a 32-bit instruction).
        word: u64,
        /// Its width in bits: 32 or 64.
        width: u8,
        /// The variant its opcode and function fields name.
        op: Op,
        /// The reserved-must-be-zero bits that are set, in place.
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
    // Fast path: with 8 bytes in hand the length is arithmetic, not a branch, which keeps
    // the load -> length -> next-address chain of a decode loop short.
    if let Some(b) = bytes.first_chunk::<8>() {
        let w = u64::from_le_bytes(*b);
        if w & 0x3 == 0x3 {
            return Err(DecodeError::ReservedLength { word: w as u32 });
        }
        let wide = w & 1 != 0;
        let len = 4 + 4 * (w & 1) as usize;
        let word = if wide { w } else { u64::from(w as u32) };
        return decode_word(word, (len * 8) as u8).map(|i| (i, len));
    }
    let Some(w0) = bytes.first_chunk::<4>() else {
        return Err(DecodeError::Truncated {
            needed: 4,
            available: bytes.len(),
        });
    };
    let w0 = u32::from_le_bytes(*w0);
    match instruction_len(w0)? {
        4 => decode_word(u64::from(w0), 32).map(|i| (i, 4)),
        _ => Err(DecodeError::Truncated {
            needed: 8,
            available: bytes.len(),
        }),
    }
}

/// Decode one instruction word of the given width (32 or 64); the width must be the one
/// [`instruction_len`] gives for its low bits.
#[inline]
pub fn decode_word(word: u64, width: u8) -> Result<Instr, DecodeError> {
    let k = &DECODE_KEYS[(word & 0x7f) as usize];
    let slot =
        usize::from(k.base) + ((word & k.key_mask).wrapping_mul(k.multiplier) >> k.shift) as usize;
    let candidate = DECODE_INDEX.get(slot).copied().unwrap_or(u16::MAX);
    let Some(hot) = DECODE_HOT.get(usize::from(candidate)) else {
        return Err(DecodeError::NoMatch { word, width });
    };
    if word & hot.check != hot.match_bits {
        return Err(mismatch(word, width, usize::from(candidate)));
    }
    Ok(Instr::from_word(hot.op, word))
}

/// Why `word` fails section 2.3's test for the candidate its opcode and function fields
/// hashed to: other function fields (no instruction), or reserved bits set.
#[cold]
fn mismatch(word: u64, width: u8, candidate: usize) -> DecodeError {
    let def = &INSTRUCTIONS[candidate];
    if word & def.mask != def.match_bits {
        DecodeError::NoMatch { word, width }
    } else {
        DecodeError::ReservedBits {
            word,
            width,
            op: def.op,
            bits: word & def.zero,
        }
    }
}
