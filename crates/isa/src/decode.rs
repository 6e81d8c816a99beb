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

/// For each 8-word block: given whether word 0 continues a 64-bit instruction from the
/// block before (`carry`), and which words have §2.1's 64-bit length bits (`wide`, bit i =
/// word i), the words that start an instruction and whether the last one spills into the
/// next block. Precomputed, this turns the length chain of a stream into one table load
/// per eight words, so the instructions of a block decode independently.
const STARTS: [[(u8, bool); 256]; 2] = {
    let mut table = [[(0u8, false); 256]; 2];
    let mut carry = 0;
    while carry < 2 {
        let mut wide = 0;
        while wide < 256 {
            let mut starts = 0u8;
            let mut i = carry;
            while i < 8 {
                starts |= 1 << i;
                i += if wide & (1 << i) != 0 { 2 } else { 1 };
            }
            table[carry][wide] = (starts, i == 9);
            wide += 1;
        }
        carry += 1;
    }
    table
};

/// Decode a whole instruction stream in order, calling `f(offset, result)` for each
/// instruction. Boundaries come from the length bits alone (§2.1; a word with reserved
/// length bits `11` counts as 4 bytes), so a word that does not decode still advances by
/// its length; a last instruction cut off by the end of `bytes` is reported as
/// [`DecodeError::Truncated`]. Equivalent to calling [`decode`] at each boundary, only
/// faster on long streams.
pub fn decode_stream(bytes: &[u8], mut f: impl FnMut(usize, Result<Instr, DecodeError>)) {
    let mut block = 0usize;
    let mut carry = false;
    // A block is taken whole while a 64-bit instruction starting at its last word still
    // has both words in `bytes`.
    while let Some(chunk) = bytes.get(block..).and_then(|b| b.first_chunk::<36>()) {
        let mut wide = 0usize;
        for i in 0..8 {
            wide |= usize::from(chunk[4 * i] & 0x3 == 0x1) << i;
        }
        let (mut starts, spill) = STARTS[usize::from(carry)][wide];
        while starts != 0 {
            let i = (starts.trailing_zeros() & 7) as usize;
            starts &= starts - 1;
            let at = block + 4 * i;
            let mut b = [0u8; 8];
            b.copy_from_slice(&chunk[4 * i..4 * i + 8]);
            let w = u64::from_le_bytes(b);
            let result = if w & 0x3 == 0x3 {
                Err(DecodeError::ReservedLength { word: w as u32 })
            } else if w & 1 != 0 {
                decode_word(w, 64)
            } else {
                decode_word(u64::from(w as u32), 32)
            };
            f(at, result);
        }
        carry = spill;
        block += 32;
    }
    let mut at = block + if carry { 4 } else { 0 };
    while at < bytes.len() {
        match decode(&bytes[at..]) {
            Ok((ins, len)) => {
                f(at, Ok(ins));
                at += len;
            }
            Err(e @ DecodeError::Truncated { .. }) => {
                f(at, Err(e));
                break;
            }
            Err(e) => {
                let len = match e {
                    DecodeError::NoMatch { width: 64, .. }
                    | DecodeError::ReservedBits { width: 64, .. } => 8,
                    _ => 4,
                };
                f(at, Err(e));
                at += len;
            }
        }
    }
}
