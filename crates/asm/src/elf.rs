//! ELF64 little-endian code objects (docs/elf.md): `.text`, `.data`, `.symtab` with the
//! labels (local) and `.global` symbols (global), the source lines as DWARF
//! (`.debug_line` and the sections it needs, see `dwarf.rs`) and the kernel metadata as
//! JSON (`.warpkit.kernels`, see `kernels.rs`). `object::write::Object` refuses unknown
//! architectures, so the file is built with `object::build::elf::Builder`, which takes any
//! `e_machine`.

use crate::{Program, Section, Symbol, SymbolKind};
use object::build::elf::{Builder, SectionData};
use object::elf;
use object::read::elf::ElfFile64;
use object::{Endianness, Object, ObjectSection, ObjectSymbol};

/// The `e_machine` value of warpkit code objects. PROVISIONAL: not assigned by the ELF
/// registry; chosen far above the assigned values (0x5750 = "PW" in file order).
pub const EM_WARPKIT: u16 = 0x5750;

/// Why bytes are not a warpkit code object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The ELF structures could not be parsed; the text is the ELF reader's message.
    #[error("malformed ELF file: {0}")]
    Malformed(String),
    /// An ELF file, but not ELFCLASS64 with little-endian data (ELFDATA2LSB).
    #[error("not a 64-bit little-endian ELF file")]
    WrongClass,
    /// An ELF file for another machine: its `e_machine` is not [`EM_WARPKIT`].
    #[error("ELF machine {found:#x} is not warpkit ({EM_WARPKIT:#x})")]
    WrongMachine {
        /// The file's `e_machine`.
        found: u16,
    },
    /// The contents of `.text` or `.data` could not be read.
    #[error("section {name}: {reason}")]
    BadSection {
        /// The section's name.
        name: String,
        /// The ELF reader's message.
        reason: String,
    },
    /// The kernel metadata (`.warpkit.kernels`, docs/elf.md) is unreadable, malformed, or
    /// names a kernel that is not a `.text` symbol of the object.
    #[error("section .warpkit.kernels: {reason}")]
    BadKernels {
        /// What is wrong with it.
        reason: String,
    },
}

/// The name of the section that holds the kernel metadata (provisional).
pub const KERNELS_SECTION: &str = ".warpkit.kernels";

impl From<object::read::Error> for LoadError {
    fn from(e: object::read::Error) -> LoadError {
        LoadError::Malformed(e.to_string())
    }
}

/// The ELF relocatable code object of `program`.
pub fn write_elf(program: &Program) -> Vec<u8> {
    let mut b = Builder::new(Endianness::Little, true);
    b.header.os_abi = elf::ELFOSABI_NONE;
    b.header.e_type = elf::ET_REL;
    b.header.e_machine = elf::Machine(EM_WARPKIT);

    let shstrtab = b.sections.add();
    shstrtab.name = b".shstrtab"[..].into();
    shstrtab.sh_type = elf::SHT_STRTAB;
    shstrtab.sh_addralign = 1;
    shstrtab.data = SectionData::SectionString;

    let text = b.sections.add();
    text.name = b".text"[..].into();
    text.sh_type = elf::SHT_PROGBITS;
    text.sh_flags = elf::SectionFlags(elf::SHF_ALLOC.0 | elf::SHF_EXECINSTR.0);
    text.sh_addralign = 4;
    text.data = SectionData::Data(program.text.clone().into());
    let text_id = text.id();

    let data = b.sections.add();
    data.name = b".data"[..].into();
    data.sh_type = elf::SHT_PROGBITS;
    data.sh_flags = elf::SectionFlags(elf::SHF_ALLOC.0 | elf::SHF_WRITE.0);
    data.sh_addralign = 8;
    data.data = SectionData::Data(program.data.clone().into());
    let data_id = data.id();

    for (name, contents) in crate::dwarf::write_sections(&program.lines, program.text.len() as u64)
    {
        let debug = b.sections.add();
        debug.name = name.as_bytes().to_vec().into();
        debug.sh_type = elf::SHT_PROGBITS;
        debug.sh_addralign = 1;
        debug.data = SectionData::Data(contents.into());
    }

    if !program.kernels.is_empty() {
        let meta = b.sections.add();
        meta.name = KERNELS_SECTION.as_bytes().to_vec().into();
        meta.sh_type = elf::SHT_PROGBITS;
        meta.sh_addralign = 1;
        meta.data = SectionData::Data(
            crate::kernels::to_json(&program.kernels)
                .into_bytes()
                .into(),
        );
    }

    let strtab = b.sections.add();
    strtab.name = b".strtab"[..].into();
    strtab.sh_type = elf::SHT_STRTAB;
    strtab.sh_addralign = 1;
    strtab.data = SectionData::String;

    let symtab = b.sections.add();
    symtab.name = b".symtab"[..].into();
    symtab.sh_type = elf::SHT_SYMTAB;
    symtab.sh_addralign = 8;
    symtab.data = SectionData::Symbol;

    // ELF wants every local symbol before the first global one.
    let locals = program.symbols.iter().filter(|s| !s.global);
    let globals = program.symbols.iter().filter(|s| s.global);
    // A NUL cannot be in an ELF string; assembled names never hold one.
    for s in locals.chain(globals).filter(|s| !s.name.contains('\0')) {
        let sym = b.symbols.add();
        sym.name = s.name.as_bytes().to_vec().into();
        sym.section = Some(match s.section {
            Section::Text => text_id,
            Section::Data => data_id,
        });
        let bind = if s.global {
            elf::STB_GLOBAL
        } else {
            elf::STB_LOCAL
        };
        let ty = match s.kind {
            SymbolKind::NoType => elf::STT_NOTYPE,
            SymbolKind::Function => elf::STT_FUNC,
            SymbolKind::Object => elf::STT_OBJECT,
        };
        sym.set_st_info(bind, ty);
        sym.st_value = s.offset;
        sym.st_size = s.size;
    }
    let mut out = Vec::new();
    // Writing to a Vec fails only on allocation failure, and the builder's own checks only
    // concern inputs we construct above (string tables, symbol order).
    if let Err(e) = b.write(&mut out) {
        unreachable_write(e);
    }
    out
}

#[cold]
fn unreachable_write(e: object::build::Error) -> ! {
    panic!("building the ELF image failed: {e}")
}

/// Read a code object: an ELF file written by [`write_elf`] (detected by its magic), or
/// anything else as a raw `.text` image.
pub fn load_object(bytes: &[u8]) -> Result<Program, LoadError> {
    if !bytes.starts_with(b"\x7fELF") {
        return Ok(Program {
            text: bytes.to_vec(),
            ..Program::default()
        });
    }
    if bytes.get(4) != Some(&elf::ELFCLASS64.0) || bytes.get(5) != Some(&elf::ELFDATA2LSB.0) {
        return Err(LoadError::WrongClass);
    }
    let file = ElfFile64::<Endianness>::parse(bytes)?;
    let machine = file.elf_header().e_machine.get(file.endian()).0;
    if machine != EM_WARPKIT {
        return Err(LoadError::WrongMachine { found: machine });
    }
    let mut program = Program::default();
    let mut text_index = None;
    let mut data_index = None;
    for section in file.sections() {
        let name = section.name().unwrap_or("");
        let slot = match name {
            ".text" => &mut program.text,
            ".data" => &mut program.data,
            _ => continue,
        };
        let contents = section.data().map_err(|e| LoadError::BadSection {
            name: name.into(),
            reason: e.to_string(),
        })?;
        *slot = contents.to_vec();
        if name == ".text" {
            text_index = Some(section.index());
        } else {
            data_index = Some(section.index());
        }
    }
    for sym in file.symbols() {
        let Some(index) = sym.section_index() else {
            continue;
        };
        let section = if Some(index) == text_index {
            Section::Text
        } else if Some(index) == data_index {
            Section::Data
        } else {
            continue;
        };
        if sym.kind() == object::SymbolKind::Section {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        if name.is_empty() {
            continue;
        }
        program.symbols.push(Symbol {
            name: name.into(),
            section,
            offset: sym.address(),
            global: sym.is_global(),
            kind: match sym.kind() {
                object::SymbolKind::Text => SymbolKind::Function,
                object::SymbolKind::Data => SymbolKind::Object,
                _ => SymbolKind::NoType,
            },
            size: sym.size(),
        });
    }
    program.lines = read_lines(&file, program.text.len() as u64);
    program.kernels = read_kernels(&file, &program)?;
    Ok(program)
}

/// The kernel metadata of `file`, checked against the symbols of `program` (read from it):
/// every kernel must be a `.text` symbol.
fn read_kernels(
    file: &ElfFile64<Endianness>,
    program: &Program,
) -> Result<Vec<crate::KernelInfo>, LoadError> {
    let Some(section) = file.section_by_name(KERNELS_SECTION) else {
        return Ok(Vec::new());
    };
    let bad = |reason: String| LoadError::BadKernels { reason };
    let bytes = section.data().map_err(|e| bad(e.to_string()))?;
    let kernels = crate::kernels::from_json(bytes).map_err(bad)?;
    for k in &kernels {
        let is_text = |s: &Symbol| s.name == k.name && s.section == Section::Text;
        if !program.symbols.iter().any(is_text) {
            return Err(bad(format!(
                "kernel `{}` is not a .text symbol of the object",
                k.name
            )));
        }
    }
    Ok(kernels)
}

/// The source lines of `file`'s DWARF, if any. Malformed debug information never fails
/// the load: the table is then empty and says why ([`crate::LineTable::damaged`]).
fn read_lines(file: &ElfFile64<Endianness>, text_len: u64) -> crate::LineTable {
    let section = |name: &str| -> &[u8] {
        file.section_by_name(name)
            .and_then(|s| s.data().ok())
            .unwrap_or(&[])
    };
    crate::dwarf::read_table(section, text_len).unwrap_or_else(|e| {
        crate::LineTable::unreadable(format!("malformed DWARF line information: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let p = crate::assemble(
            ".global start\n.type start, @function\nstart: add v1, v2, v3\nloop: bz u1, loop\n\
             .size start, . - start\n.data\n.type x, %object\nx: .word 7\n.size x, 4\n",
            "t.s",
        )
        .unwrap();
        let bytes = write_elf(&p);
        let back = load_object(&bytes).unwrap();
        assert_eq!(back.text, p.text);
        assert_eq!(back.data, p.data);
        let mut a = back.symbols.clone();
        let mut b = p.symbols.clone();
        a.sort_by(|x, y| x.name.cmp(&y.name));
        b.sort_by(|x, y| x.name.cmp(&y.name));
        assert_eq!(a, b);
        // Every truncation and many single-byte corruptions: an error or a program, never a
        // panic.
        for n in 0..bytes.len() {
            let _ = load_object(&bytes[..n]);
        }
        for i in 0..bytes.len() {
            for v in [0u8, 0xff, 0x80, 1] {
                let mut c = bytes.clone();
                c[i] = v;
                let _ = load_object(&c);
            }
        }
    }
}
