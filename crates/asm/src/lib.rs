//! The warpkit assembler and disassembler, driven entirely by the ISA tables of
//! `warpkit-isa`: no code here knows a particular mnemonic.
//!
//! - [`assemble`] turns source text into a [`Program`] (`.text`, `.data`, symbols, listing),
//!   or every diagnostic of the file in [`AsmErrors`];
//! - [`write_elf`] / [`load_object`] write and read ELF64 code objects;
//! - [`disassemble`] prints bytes objdump-style or as plain, reassemblable text.

mod assemble;
mod disasm;
mod elf;
mod error;
mod expr;
mod lex;

pub use assemble::{assemble, assemble_bytes, MAX_LINE_BYTES, MAX_SOURCE_BYTES};
pub use disasm::{disassemble, DisOptions};
pub use elf::{load_object, write_elf, LoadError, EM_WARPKIT};
pub use error::{AsmError, AsmErrors, ErrorKind, MAX_ERRORS};

use std::fmt;

/// The two sections a program has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    Text,
    Data,
}

impl Section {
    pub fn name(self) -> &'static str {
        match self {
            Section::Text => ".text",
            Section::Data => ".data",
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A label (or `.global` symbol): its offset from the start of its section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub section: Section,
    pub offset: u64,
    pub global: bool,
}

/// One source line that emitted bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingLine {
    pub section: Section,
    /// Offset of the first byte in `section`.
    pub address: u64,
    /// The bytes this line emitted (alignment padding included).
    pub bytes: Vec<u8>,
    /// 1-based line number in the source.
    pub line: usize,
    /// The source line, without its line ending.
    pub source: String,
}

/// An assembled (or loaded) program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Program {
    pub text: Vec<u8>,
    pub data: Vec<u8>,
    /// Labels and `.equ`-free symbols in definition order.
    pub symbols: Vec<Symbol>,
    /// Empty for programs read by [`load_object`].
    pub listing: Vec<ListingLine>,
}

impl Program {
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }

    /// The bytes of `section`.
    pub fn section(&self, section: Section) -> &[u8] {
        match section {
            Section::Text => &self.text,
            Section::Data => &self.data,
        }
    }

    /// The listing as text: `line  section:address  encoding  source`, one row per line
    /// that emitted bytes (see docs/assembly.md).
    pub fn render_listing(&self) -> String {
        use fmt::Write;
        let mut out = String::new();
        for l in &self.listing {
            let mut enc = String::new();
            if l.section == Section::Text && (l.bytes.len() == 4 || l.bytes.len() == 8) {
                for w in l.bytes.chunks_exact(4) {
                    let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    let _ = write!(enc, "{word:08x} ");
                }
            } else {
                for (i, b) in l.bytes.iter().enumerate() {
                    if i == 8 {
                        enc.push_str("...");
                        break;
                    }
                    let _ = write!(enc, "{b:02x}");
                }
            }
            let _ = writeln!(
                out,
                "{:>6}  {}:{:08x}  {:<18} {}",
                l.line,
                if l.section == Section::Text { 'T' } else { 'D' },
                l.address,
                enc.trim_end(),
                l.source
            );
        }
        out
    }
}
