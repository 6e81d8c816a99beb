//! The warpkit GPU ISA: static tables generated from the ISA database (`spec/`), the encoder,
//! the decoder of sections 2.1 and 2.3, typed operands, and canonical disassembly (`Display`).
//!
//! Byte order is little-endian; the first 32-bit word `w0`, which holds the opcode, is at the
//! lower address. A 64-bit instruction is the 64-bit little-endian value whose low half is
//! `w0`.

mod decode;
mod instr;
mod limits;
mod operand;
mod sample;
pub mod tables;

pub use decode::{decode, decode_word, instruction_len, DecodeError};
pub use instr::{source_bit, EncodeError, Instr, Reserved};
pub use limits::MAX_OPERANDS;
pub use operand::{Half, Operand, UReg, VReg};
pub use sample::mixed_stream;
pub use tables::*;

include!(concat!(env!("OUT_DIR"), "/tables.rs"));

/// Where a code object's `.data` starts, as a byte offset from the first byte of its
/// `.text`: the text size rounded up to 16 bytes (provisional; docs/abi.md, "Memory map").
/// The flat image (`--format bin`), the launcher's memory map (`.data` at `CODE_BASE` plus
/// this) and the assembler's PC-relative references from `.text` to `.data` labels all
/// use it, so a label means the same address in every form of a program.
pub const fn data_offset(text_len: u64) -> u64 {
    text_len.next_multiple_of(16)
}

impl Op {
    /// This variant's entry in the database.
    #[inline(always)]
    pub fn def(self) -> &'static InstrDef {
        &INSTRUCTIONS[self as usize]
    }

    /// The assembly mnemonic (`add.vu`).
    pub fn mnemonic(self) -> &'static str {
        self.def().mnemonic
    }

    /// Look an instruction up by mnemonic, ignoring ASCII case.
    pub fn from_mnemonic(mnemonic: &str) -> Option<Op> {
        use std::collections::HashMap;
        use std::sync::OnceLock;
        static MAP: OnceLock<HashMap<&'static str, Op>> = OnceLock::new();
        let map = MAP.get_or_init(|| INSTRUCTIONS.iter().map(|d| (d.mnemonic, d.op)).collect());
        if let Some(op) = map.get(mnemonic) {
            return Some(*op);
        }
        if mnemonic.bytes().any(|b| b.is_ascii_uppercase()) {
            return map.get(mnemonic.to_ascii_lowercase().as_str()).copied();
        }
        None
    }

    /// The variant whose index in [`INSTRUCTIONS`] is `index`.
    pub fn from_index(index: usize) -> Option<Op> {
        ALL_OPS.get(index).copied()
    }
}

/// The CSR with number `number`, if section 3.3 defines one.
pub fn csr_by_number(number: u32) -> Option<&'static CsrDef> {
    CSRS.iter().find(|c| u32::from(c.number) == number)
}

/// The CSR called `name` (ASCII case ignored).
pub fn csr_by_name(name: &str) -> Option<&'static CsrDef> {
    CSRS.iter().find(|c| c.name.eq_ignore_ascii_case(name))
}

/// The counter called `name` and its index into [`COUNTERS`].
pub fn counter_by_name(name: &str) -> Option<(usize, &'static CounterDef)> {
    COUNTERS.iter().enumerate().find(|(_, c)| c.name == name)
}

/// The operand type called `name`.
pub fn operand_type(name: &str) -> Option<&'static OperandTypeDef> {
    OPERAND_TYPES.iter().find(|t| t.name == name)
}
