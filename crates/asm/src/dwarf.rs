//! A [`LineTable`] as DWARF 5 debug sections and back (docs/elf.md, "Source lines"): one
//! compilation unit whose line program has one sequence over `.text`, written with gimli's
//! writer and read with its reader. Addresses are `.text` offsets (the PC).

use crate::lines::{LineRow, LineTable};
use gimli::write::{Address, AttributeValue, DwarfUnit, EndianVec, LineProgram, LineString};
use gimli::{Encoding, Format, LineEncoding, LittleEndian};
use std::collections::HashMap;

/// `DW_AT_comp_dir`: file names are kept as the assembler was given them (relative to the
/// directory it ran in), so no absolute path of the build machine goes into the object.
const COMP_DIR: &[u8] = b".";

/// A name DWARF can hold: not empty, no NUL.
fn dwarf_name(name: &str) -> Vec<u8> {
    let bytes: Vec<u8> = name.bytes().filter(|&b| b != 0).collect();
    if bytes.is_empty() {
        b"<unnamed>".to_vec()
    } else {
        bytes
    }
}

/// The DWARF sections (name, contents) describing `lines` for a `.text` of `text_len`
/// bytes; none when the table is empty.
pub(crate) fn write_sections(lines: &LineTable, text_len: u64) -> Vec<(&'static str, Vec<u8>)> {
    if lines.is_empty() {
        return Vec::new();
    }
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    let mut dwarf = DwarfUnit::new(encoding);
    let primary = dwarf_name(&lines.files()[0]);
    let mut program = LineProgram::new(
        encoding,
        LineEncoding::default(),
        LineString::new(COMP_DIR, encoding, &mut dwarf.line_strings),
        None,
        LineString::new(primary.clone(), encoding, &mut dwarf.line_strings),
        None,
    );
    let dir = program.default_directory();
    let ids: Vec<_> = lines
        .files()
        .iter()
        .map(|f| {
            let name = LineString::new(dwarf_name(f), encoding, &mut dwarf.line_strings);
            program.add_file(name, dir, None)
        })
        .collect();
    program.begin_sequence(Some(Address::Constant(0)));
    for r in lines.rows() {
        let row = program.row();
        row.address_offset = r.address;
        row.file = ids[r.file as usize];
        row.line = u64::from(r.line);
        row.column = u64::from(r.column);
        row.is_statement = true;
        program.generate_row();
    }
    program.end_sequence(lines.end().max(text_len));
    dwarf.unit.line_program = program;
    let root = dwarf.unit.root();
    let cu = dwarf.unit.get_mut(root);
    cu.set(
        gimli::DW_AT_producer,
        AttributeValue::String(b"warpkit".to_vec()),
    );
    cu.set(gimli::DW_AT_name, AttributeValue::String(primary));
    cu.set(
        gimli::DW_AT_comp_dir,
        AttributeValue::String(COMP_DIR.to_vec()),
    );
    cu.set(
        gimli::DW_AT_language,
        AttributeValue::Language(gimli::DW_LANG_Mips_Assembler),
    );
    cu.set(
        gimli::DW_AT_low_pc,
        AttributeValue::Address(Address::Constant(0)),
    );
    cu.set(gimli::DW_AT_high_pc, AttributeValue::Udata(text_len));
    let mut sections = gimli::write::Sections::new(EndianVec::new(LittleEndian));
    // Writing into memory fails only on inputs gimli refuses; the line table is then left
    // out rather than failing the object.
    if dwarf.write(&mut sections).is_err() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let _ = sections.for_each(|id, data| {
        if !data.slice().is_empty() {
            out.push((id.name(), data.slice().to_vec()));
        }
        Ok::<(), ()>(())
    });
    out
}

/// The line table in the DWARF sections that `section` returns by name (empty when
/// absent), for a `.text` of `text_len` bytes. `Err` describes malformed DWARF; the rows
/// read before it are lost.
pub(crate) fn read_table<'a>(
    section: impl Fn(&str) -> &'a [u8],
    text_len: u64,
) -> Result<LineTable, gimli::Error> {
    if section(".debug_line").is_empty() {
        return Ok(LineTable::default());
    }
    let dwarf = gimli::read::Dwarf::load(|id| {
        Ok::<_, gimli::Error>(gimli::EndianSlice::new(section(id.name()), LittleEndian))
    })?;
    // No more rows than a program of 4-byte instructions with a row each could need, with
    // room for end-of-sequence rows: a table larger than that is not of this code.
    let max_rows = usize::try_from(text_len / 4)
        .unwrap_or(usize::MAX)
        .saturating_add(4096);
    let mut files: Vec<String> = Vec::new();
    let mut by_path: HashMap<String, u32> = HashMap::new();
    let mut rows: Vec<LineRow> = Vec::new();
    let mut units = dwarf.units();
    while let Some(header) = units.next()? {
        let unit = dwarf.unit(header)?;
        let Some(program) = unit.line_program.clone() else {
            continue;
        };
        // Per file index of this unit's header: our index, resolved on first use.
        let mut seen: HashMap<u64, u32> = HashMap::new();
        let mut program_rows = program.rows();
        while let Some((header, row)) = program_rows.next_row()? {
            if rows.len() >= max_rows {
                return Ok(LineTable::new(files, rows, text_len));
            }
            let address = row.address();
            if address >= text_len {
                continue;
            }
            let index = row.file_index();
            let file = match seen.get(&index) {
                Some(&f) => f,
                None => {
                    let Some(entry) = row.file(header) else {
                        continue;
                    };
                    let name = dwarf.attr_string(&unit, entry.path_name())?;
                    let name = String::from_utf8_lossy(name.slice()).into_owned();
                    let dir = match entry.directory(header) {
                        Some(d) => String::from_utf8_lossy(dwarf.attr_string(&unit, d)?.slice())
                            .into_owned(),
                        None => String::new(),
                    };
                    let path = if name.starts_with('/') || dir.is_empty() || dir == "." {
                        name
                    } else {
                        format!("{}/{name}", dir.trim_end_matches('/'))
                    };
                    let f = *by_path.entry(path).or_insert_with_key(|path| {
                        files.push(path.clone());
                        (files.len() - 1) as u32
                    });
                    seen.insert(index, f);
                    f
                }
            };
            let (line, column) = if row.end_sequence() {
                (0, 0)
            } else {
                let line = row
                    .line()
                    .map_or(0, |l| u32::try_from(l.get()).unwrap_or(0));
                let column = match row.column() {
                    gimli::ColumnType::LeftEdge => 0,
                    gimli::ColumnType::Column(c) => u32::try_from(c.get()).unwrap_or(0),
                };
                (line, column)
            };
            rows.push(LineRow {
                address,
                file,
                line,
                column,
            });
        }
    }
    Ok(LineTable::new(files, rows, text_len))
}
