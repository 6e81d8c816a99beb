//! The warpkit assembler and disassembler, driven entirely by the ISA tables of
//! `warpkit-isa`: no code here knows a particular mnemonic.
//!
//! - [`assemble`] turns source text into a [`Program`] (`.text`, `.data`, symbols, listing),
//!   or every diagnostic of the file in [`AsmErrors`];
//! - [`write_elf`] / [`load_object`] write and read ELF64 code objects;
//! - [`disassemble`] prints bytes objdump-style or as plain, reassemblable text;
//! - [`LineTable`] says which source file and line each instruction came from (filled by
//!   the assembler, written to and read from ELF as DWARF `.debug_line`);
//! - [`KernelInfo`] describes a kernel entry point and its parameters (`.kernel`/`.param`,
//!   the ELF section `.warpkit.kernels`; provisional).

mod assemble;
mod disasm;
mod dwarf;
mod elf;
mod error;
mod expr;
mod kernels;
mod lex;
mod limits;
mod lines;

pub use assemble::{
    assemble, assemble_bytes, MAX_EXPANDED_BYTES, MAX_EXPANDED_LINES, MAX_EXPANSION_DEPTH,
    MAX_INCLUDE_DEPTH,
};
pub use disasm::{
    disassemble, disassemble_program, disassemble_program_to, disassemble_program_with_lines_to,
    DisOptions,
};
pub use elf::{load_object, write_elf, LoadError, EM_WARPKIT, KERNELS_SECTION};
pub use error::{render_excerpt, AsmError, AsmErrors, AsmWarning, ErrorKind, MAX_ERRORS};
pub use kernels::{KernelInfo, ParamInfo, ParamKind, KERNELS_SCHEMA_VERSION};
pub use limits::{MAX_LINE_BYTES, MAX_SOURCE_BYTES};
pub use lines::{LineRow, LineTable, Location, SourceTexts};

use std::fmt;

/// The two sections a program has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// `.text`: the code (instructions, and data directives placed among them); PC 0 is
    /// its first byte.
    Text,
    /// `.data`: the program's data, `.rodata` and `.bss` included (docs/assembly.md); at run
    /// time it follows the code at a 16-byte boundary.
    Data,
}

impl Section {
    /// The section's name as assembly and ELF write it: `.text` or `.data`.
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

/// A label (or `.global` symbol): its offset from the start of its section. Labels whose
/// name starts with `.L` and numeric local labels (`1:`) are assembler-local: they are not
/// symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The label as written; the ELF symbol's name.
    pub name: String,
    /// The section the label is defined in.
    pub section: Section,
    /// Byte offset of the label from the start of `section`.
    pub offset: u64,
    /// Named by `.global` (`.globl`): an ELF `STB_GLOBAL` symbol; otherwise `STB_LOCAL`.
    pub global: bool,
    /// What `.type` said it is (ELF `STT_*`).
    pub kind: SymbolKind,
    /// What `.size` said (ELF `st_size`); 0 when not given.
    pub size: u64,
}

/// A symbol's type, as set by `.type sym, @function|@object|@notype`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// No `.type`, or `@notype`: ELF `STT_NOTYPE`.
    #[default]
    NoType,
    /// `@function`: ELF `STT_FUNC`.
    Function,
    /// `@object`: ELF `STT_OBJECT`.
    Object,
}

/// One source line that emitted bytes. Kept small (no copies of bytes or text) so a
/// million-line listing costs no allocation per line: [`Program::listing_bytes`] and
/// [`ListingLine::source_text`] give the bytes and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingLine {
    /// The section the line's bytes went to.
    pub section: Section,
    /// Offset of the first byte in `section`.
    pub address: u64,
    /// How many bytes this line emitted (alignment padding included).
    pub len: u64,
    /// 1-based line number in the source.
    pub line: usize,
    /// Byte range of the line (without its line ending) in the assembled source.
    pub source: std::ops::Range<usize>,
}

impl ListingLine {
    /// The source line, given the text that was assembled.
    pub fn source_text<'a>(&self, source: &'a str) -> &'a str {
        source
            .get(self.source.clone())
            .unwrap_or("")
            .trim_end_matches('\r')
    }
}

/// An assembled (or loaded) program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Program {
    /// The bytes of `.text`: the code, PC 0 at its first byte.
    pub text: Vec<u8>,
    /// The bytes of `.data`; empty when the program has no data.
    pub data: Vec<u8>,
    /// Every label, in definition order (`.equ` constants are not symbols).
    pub symbols: Vec<Symbol>,
    /// Empty for programs read by [`load_object`].
    pub listing: Vec<ListingLine>,
    /// The source file and line of every instruction (and `.text` data directive): from
    /// the assembler, or from an ELF file's `.debug_line`; empty when unknown.
    pub lines: LineTable,
    /// What the assembler accepted but ignored or doubted (ignored directives, for one),
    /// in source order. Empty for programs read by [`load_object`].
    pub warnings: Vec<AsmWarning>,
    /// The kernel entry points the program declares (`.kernel`/`.param`, or an ELF file's
    /// `.warpkit.kernels`), in declaration order; empty without metadata (raw and hex
    /// images never have any). PROVISIONAL.
    pub kernels: Vec<KernelInfo>,
}

impl Program {
    /// The symbol called `name`, if the program has one.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }

    /// The kernel called `name`, if the program's metadata declares one.
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The bytes of `section`.
    pub fn section(&self, section: Section) -> &[u8] {
        match section {
            Section::Text => &self.text,
            Section::Data => &self.data,
        }
    }

    /// The raw image (`--format bin`): `.text`, then, if there is data, zero padding to a
    /// 16-byte boundary ([`warpkit_isa::data_offset`]) and `.data`.
    pub fn to_flat_binary(&self) -> Vec<u8> {
        let mut out = self.text.clone();
        if !self.data.is_empty() {
            out.resize(warpkit_isa::data_offset(self.text.len() as u64) as usize, 0);
            out.extend_from_slice(&self.data);
        }
        out
    }

    /// The hex text form (`--format hex`, docs/assembly.md): `// .text` then one line per
    /// instruction, its word in hex (8 digits, or 16 for a 64-bit instruction, most
    /// significant first); bytes the decoder does not accept as an instruction go out as
    /// 32-bit words. Then `// .data` and one line per 32-bit little-endian word (a short last
    /// word is zero-padded).
    pub fn to_hex(&self) -> String {
        use fmt::Write;
        let mut out = String::from("// .text\n");
        let mut off = 0;
        while off < self.text.len() {
            let rest = &self.text[off..];
            let len = match warpkit_isa::decode(rest) {
                Ok((_, len)) => len,
                Err(_) => 4.min(rest.len()),
            };
            let mut word = [0u8; 8];
            word[..len].copy_from_slice(&rest[..len]);
            let w = u64::from_le_bytes(word);
            if len == 8 {
                let _ = writeln!(out, "{w:016x}");
            } else {
                let _ = writeln!(out, "{:08x}", w as u32);
            }
            off += len;
        }
        if !self.data.is_empty() {
            out.push_str("// .data\n");
            for chunk in self.data.chunks(4) {
                let mut word = [0u8; 4];
                word[..chunk.len()].copy_from_slice(chunk);
                let _ = writeln!(out, "{:08x}", u32::from_le_bytes(word));
            }
        }
        out
    }

    /// The bytes a listing row emitted.
    pub fn listing_bytes(&self, l: &ListingLine) -> &[u8] {
        let start = usize::try_from(l.address).unwrap_or(usize::MAX);
        let end = start.saturating_add(usize::try_from(l.len).unwrap_or(usize::MAX));
        self.section(l.section).get(start..end).unwrap_or(&[])
    }

    /// The listing as text (docs/assembly.md): `line  S:address  encoding  source`, one row
    /// per line that emitted bytes; `S` is `T` for .text, `D` for .data. `source` is the text
    /// that was assembled.
    pub fn render_listing(&self, source: &str) -> String {
        use fmt::Write;
        let mut out = String::new();
        for l in &self.listing {
            let bytes = self.listing_bytes(l);
            let mut enc = String::new();
            if l.section == Section::Text && (bytes.len() == 4 || bytes.len() == 8) {
                for w in bytes.chunks_exact(4) {
                    let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    let _ = write!(enc, "{word:08x} ");
                }
            } else {
                for (i, b) in bytes.iter().enumerate() {
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
                l.source_text(source)
            );
        }
        out
    }
}
