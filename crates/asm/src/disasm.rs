//! Disassembly: objdump style (address, encoding words, instruction, branch targets as
//! absolute addresses and synthesized labels) or plain text that reassembles to the very
//! same bytes. Bad input never stops it: undecodable words become `.word`/`.dword` with a
//! comment saying why, a truncated tail becomes `.byte`s.

use crate::{LineTable, Program, Section, SourceTexts};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use warpkit_isa::{decode, DecodeError, Instr, KindDef, Operand};

/// How to print.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DisOptions {
    /// Only the instructions, one a line, in text `assemble` accepts and that reassembles to
    /// the same bytes; no addresses, encodings or labels.
    pub plain: bool,
}

enum Item {
    Instr(Instr),
    /// A 4- or 8-byte word that does not decode.
    Bad {
        word: u64,
        len: usize,
        why: DecodeError,
    },
    /// Bytes too few for the instruction their length bits announce.
    Tail {
        why: DecodeError,
    },
}

fn pc_relative(kind: &KindDef) -> bool {
    kind.ty.pc_relative
}

fn label(addr: u64) -> String {
    format!("L_{addr:04x}")
}

/// Disassemble `bytes`, the first of which is at address `base`.
pub fn disassemble(bytes: &[u8], base: u64, options: &DisOptions) -> String {
    let none = BTreeMap::new();
    let names = Names {
        all: &none,
        plain: &none,
    };
    disassemble_named(bytes, base, options, names, None)
}

/// The `.text` labels to show: every symbol in objdump mode; in plain mode only the kernel
/// entries, which the kernel metadata printed after the code names (so the text
/// reassembles to the same metadata).
#[derive(Clone, Copy)]
struct Names<'a> {
    all: &'a ByOffset<'a>,
    plain: &'a ByOffset<'a>,
}

/// Names by offset.
type ByOffset<'a> = BTreeMap<u64, Vec<&'a str>>;

/// The `.text` symbols by offset, and the kernel entries among them.
fn text_names(program: &Program) -> (ByOffset<'_>, ByOffset<'_>) {
    let mut all = ByOffset::new();
    let mut kernels = ByOffset::new();
    for s in program
        .symbols
        .iter()
        .filter(|s| s.section == Section::Text)
    {
        all.entry(s.offset).or_default().push(&s.name);
        if program.kernel(&s.name).is_some() {
            kernels.entry(s.offset).or_default().push(&s.name);
        }
    }
    (all, kernels)
}

/// The kernel metadata after the disassembly: the `.kernel` and `.param` directives that
/// declare it (under a heading in objdump mode).
fn kernel_metadata(program: &Program, options: &DisOptions) -> String {
    if program.kernels.is_empty() {
        return String::new();
    }
    let heading = if options.plain {
        ""
    } else {
        "\nKernel metadata (section .warpkit.kernels):\n"
    };
    format!("{heading}{}", crate::kernels::directives(&program.kernels))
}

/// What `dis -l` shows above the instructions: the line table, and the source texts when
/// they could be read.
#[derive(Clone, Copy)]
struct Lines<'a> {
    table: &'a LineTable,
    texts: Option<&'a SourceTexts>,
}

/// Disassemble a whole program: `.text` with its labels as names (objdump style) and, if
/// there is data, `.data` as `.byte` rows (in plain mode after a `.data` directive, so the
/// text reassembles to the same program).
pub fn disassemble_program(program: &Program, options: &DisOptions) -> String {
    disassemble_program_lines(program, options, None)
}

fn disassemble_program_lines(
    program: &Program,
    options: &DisOptions,
    lines: Option<Lines>,
) -> String {
    let (all, plain) = text_names(program);
    let names = Names {
        all: &all,
        plain: &plain,
    };
    let mut out = disassemble_named(&program.text, 0, options, names, lines);
    if !program.data.is_empty() {
        out.push_str(if options.plain {
            ".data\n"
        } else {
            "\nContents of section .data:\n"
        });
        let mut data_names: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
        for s in program
            .symbols
            .iter()
            .filter(|s| s.section == Section::Data)
        {
            data_names.entry(s.offset).or_default().push(&s.name);
        }
        // Rows of up to 16 bytes that start at 16-byte boundaries and at every label, so
        // each label stands right above the byte it names (in plain mode too: labels add
        // no bytes, and a name that is not an identifier becomes a comment).
        let data = &program.data;
        let mut start = 0usize;
        while start < data.len() {
            let mut end = (start / 16 + 1) * 16;
            if let Some((&next, _)) = data_names.range(start as u64 + 1..end as u64).next() {
                end = next as usize;
            }
            let end = end.min(data.len());
            if let Some(ns) = data_names.get(&(start as u64)) {
                for n in ns {
                    if !options.plain || is_symbol_name(n) {
                        let _ = writeln!(out, "{n}:");
                    } else {
                        let _ = writeln!(out, "// {n}: (not an assembler name)");
                    }
                }
            }
            if !options.plain {
                let _ = write!(out, "{start:8x}:  ");
            }
            let _ = writeln!(out, "{}", byte_list(&data[start..end]));
            start = end;
        }
        // Labels at the very end of the data (`end:` after the last byte).
        if let Some(ns) = data_names.get(&(data.len() as u64)) {
            for n in ns.iter().filter(|n| !options.plain || is_symbol_name(n)) {
                let _ = writeln!(out, "{n}:");
            }
        }
    }
    out.push_str(&kernel_metadata(program, options));
    out
}

/// Like [`disassemble_program`], written to `out` piece by piece, so a large input never
/// becomes one huge string. Text is cut into pieces of about 1 MiB at instruction
/// boundaries; a branch whose target lies in another piece shows the target's address
/// instead of a label.
pub fn disassemble_program_to(
    program: &Program,
    options: &DisOptions,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    program_to(program, options, None, out)
}

/// [`disassemble_program_to`] with source lines, as `objdump -dl` shows them (not in
/// plain mode): above an instruction whose source line differs from the previous
/// instruction's, a `FILE:LINE` row from the program's [`LineTable`] and, when `texts`
/// has that file, the line's text. A program without lines prints as without this.
pub fn disassemble_program_with_lines_to(
    program: &Program,
    options: &DisOptions,
    texts: Option<&SourceTexts>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let lines = Lines {
        table: &program.lines,
        texts,
    };
    program_to(program, options, Some(lines), out)
}

fn program_to(
    program: &Program,
    options: &DisOptions,
    lines: Option<Lines>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    const PIECE: usize = 1 << 20;
    if program.text.len() <= PIECE {
        return out.write_all(disassemble_program_lines(program, options, lines).as_bytes());
    }
    let (all, plain) = text_names(program);
    let names = Names {
        all: &all,
        plain: &plain,
    };
    let text = &program.text;
    let mut start = 0usize;
    while start < text.len() {
        // Walk instruction lengths (as the decoder will) to a boundary past PIECE bytes.
        let mut end = start;
        while end < text.len() && end - start < PIECE {
            let len = match text.get(end..end + 4) {
                Some(w) => {
                    let w0 = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    warpkit_isa::instruction_len(w0).unwrap_or(4)
                }
                None => text.len() - end,
            };
            end = (end + len).min(text.len());
        }
        let piece = disassemble_named(&text[start..end], start as u64, options, names, lines);
        out.write_all(piece.as_bytes())?;
        start = end;
    }
    let data_only = Program {
        data: program.data.clone(),
        symbols: program
            .symbols
            .iter()
            .filter(|s| s.section == Section::Data)
            .cloned()
            .collect(),
        kernels: program.kernels.clone(),
        ..Program::default()
    };
    out.write_all(disassemble_program(&data_only, options).as_bytes())
}

fn disassemble_named(
    bytes: &[u8],
    base: u64,
    options: &DisOptions,
    names: Names,
    lines: Option<Lines>,
) -> String {
    let mut items = Vec::new();
    let mut off = 0usize;
    while off < bytes.len() {
        let rest = &bytes[off..];
        let (item, len) = match decode(rest) {
            Ok((ins, len)) => (Item::Instr(ins), len),
            Err(e) => match e {
                DecodeError::Truncated { .. } => (Item::Tail { why: e }, rest.len()),
                DecodeError::ReservedLength { word } => (
                    Item::Bad {
                        word: u64::from(word),
                        len: 4,
                        why: e,
                    },
                    4,
                ),
                DecodeError::NoMatch { word, width }
                | DecodeError::ReservedBits { word, width, .. } => {
                    let len = usize::from(width / 8);
                    (Item::Bad { word, len, why: e }, len)
                }
            },
        };
        items.push((base.wrapping_add(off as u64), item));
        off += len.max(1);
    }
    let end = base.wrapping_add(bytes.len() as u64);
    let mut targets = BTreeSet::new();
    if !options.plain {
        let starts: BTreeSet<u64> = items.iter().map(|(a, _)| *a).collect();
        for (addr, item) in &items {
            if let Item::Instr(ins) = item {
                for (i, o) in ins.def().operands.iter().enumerate() {
                    if pc_relative(o.kind) {
                        if let Operand::Imm(v) = ins.operand(i) {
                            let t = addr.wrapping_add(v as u64);
                            if t >= base && t < end && starts.contains(&t) {
                                targets.insert(t);
                            }
                        }
                    }
                }
            }
        }
    }
    // A target gets its symbol's name when it has one, a synthesized label otherwise.
    let mut labels: BTreeMap<u64, String> = BTreeMap::new();
    for t in &targets {
        let name = names
            .all
            .get(t)
            .and_then(|n| n.first())
            .map_or_else(|| label(*t), |n| n.to_string());
        labels.insert(*t, name);
    }
    let mut out = String::with_capacity(items.len() * 40);
    let mut shown = Shown::default();
    for (addr, item) in &items {
        if options.plain {
            for n in names.plain.get(addr).into_iter().flatten() {
                let _ = writeln!(out, "{n}:");
            }
            plain_line(&mut out, item, *addr, bytes, base);
        } else {
            match names.all.get(addr) {
                Some(ns) => {
                    for n in ns {
                        let _ = writeln!(out, "{n}:");
                    }
                }
                None => {
                    if let Some(l) = labels.get(addr) {
                        let _ = writeln!(out, "{l}:");
                    }
                }
            }
            if let Some(lines) = lines {
                source_row(&mut out, lines, *addr, &mut shown);
            }
            dump_line(&mut out, item, *addr, bytes, base, &labels);
        }
    }
    out
}

/// What `dis -l` printed last above an instruction.
#[derive(Default)]
struct Shown {
    /// The (file, line, column) of the last location row.
    location: Option<(u32, u32, u32)>,
    /// The (file, line) whose text was printed last.
    text: Option<(u32, u32)>,
}

/// The `FILE:LINE[:COLUMN]` row above the instruction at `addr` when its location is not
/// the one shown last, and the line's text when the line is not the one shown last (code
/// of one line from several columns shows the text once).
fn source_row(out: &mut String, lines: Lines, addr: u64, shown: &mut Shown) {
    let Some(at) = lines.table.lookup(addr) else {
        *shown = Shown::default();
        return;
    };
    if shown.location == Some((at.file_index, at.line, at.column)) {
        return;
    }
    shown.location = Some((at.file_index, at.line, at.column));
    let _ = writeln!(out, "{at}");
    if shown.text == Some((at.file_index, at.line)) {
        return;
    }
    shown.text = Some((at.file_index, at.line));
    if let Some(text) = lines.texts.and_then(|t| t.line(at.file_index, at.line)) {
        let _ = writeln!(out, "{text}");
    }
}

/// A name the assembler reads back as a label.
fn is_symbol_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && crate::lex::is_ident_start(b[0])
        && crate::lex::ident_end(b, 0) == b.len()
        && name != "."
}

fn tail_bytes(bytes: &[u8], addr: u64, base: u64) -> &[u8] {
    let start = usize::try_from(addr.wrapping_sub(base)).unwrap_or(usize::MAX);
    bytes.get(start..).unwrap_or(&[])
}

fn byte_list(bytes: &[u8]) -> String {
    let mut s = String::from(".byte ");
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{b:#04x}");
    }
    s
}

fn word_directive(word: u64, len: usize) -> String {
    if len == 8 {
        format!(".dword {word:#018x}")
    } else {
        format!(".word {:#010x}", word as u32)
    }
}

fn plain_line(out: &mut String, item: &Item, addr: u64, bytes: &[u8], base: u64) {
    match item {
        Item::Instr(ins) => match ins.reserved_operand() {
            // The assembler rejects reserved operand values, so keep the exact bits.
            Some(r) => {
                let _ = writeln!(
                    out,
                    "{} // reserved operand ({r}): would be `{ins}`",
                    word_directive(ins.encode(), ins.len())
                );
            }
            None => {
                let _ = writeln!(out, "{ins}");
            }
        },
        Item::Bad { word, len, why } => {
            let _ = writeln!(out, "{} // {why}", word_directive(*word, *len));
        }
        Item::Tail { why } => {
            let _ = writeln!(out, "{} // {why}", byte_list(tail_bytes(bytes, addr, base)));
        }
    }
}

fn encoding(word: u64, len: usize) -> String {
    if len == 8 {
        format!("{:08x} {:08x}", word as u32, (word >> 32) as u32)
    } else {
        format!("{:08x}", word as u32)
    }
}

fn dump_line(
    out: &mut String,
    item: &Item,
    addr: u64,
    bytes: &[u8],
    base: u64,
    labels: &BTreeMap<u64, String>,
) {
    let _ = write!(out, "{addr:8x}:  ");
    match item {
        Item::Instr(ins) => {
            let _ = write!(out, "{:<19}  ", encoding(ins.encode(), ins.len()));
            instr_with_targets(out, ins, addr, labels);
            if let Some(r) = ins.reserved_operand() {
                let _ = write!(
                    out,
                    "  // reserved operand: {r} (IllegalInsn when executed)"
                );
            }
            out.push('\n');
        }
        Item::Bad { word, len, why } => {
            let _ = writeln!(
                out,
                "{:<19}  {}  // {why}",
                encoding(*word, *len),
                word_directive(*word, *len)
            );
        }
        Item::Tail { why } => {
            let tail = tail_bytes(bytes, addr, base);
            let mut enc = String::new();
            for b in tail {
                let _ = write!(enc, "{b:02x}");
            }
            let _ = writeln!(out, "{enc:<19}  {}  // {why}", byte_list(tail));
        }
    }
}

/// `Display for Instr`, except that PC-relative operands show their absolute target and,
/// where one was synthesized, its label.
fn instr_with_targets(out: &mut String, ins: &Instr, addr: u64, labels: &BTreeMap<u64, String>) {
    let def = ins.def();
    let has_branch = def.operands.iter().any(|o| pc_relative(o.kind));
    if !has_branch {
        let _ = write!(out, "{ins}");
        return;
    }
    out.push_str(def.mnemonic);
    let mut shown = def.operands.len();
    while shown > 0 {
        let o = &def.operands[shown - 1];
        if o.kind.optional && o.kind.default == Some(ins.raw(shown - 1)) {
            shown -= 1;
        } else {
            break;
        }
    }
    let mut first = true;
    for (i, o) in def.operands.iter().enumerate().take(shown) {
        if o.kind.keyed && o.kind.default == Some(ins.raw(i)) {
            continue;
        }
        out.push_str(if first { " " } else { ", " });
        first = false;
        if o.kind.keyed {
            let _ = write!(out, "{}=", o.name);
        }
        let op = ins.operand(i);
        match op {
            Operand::Imm(v) if pc_relative(o.kind) => {
                let t = addr.wrapping_add(v as u64);
                if let Some(l) = labels.get(&t) {
                    out.push_str(l);
                } else {
                    let _ = write!(out, "{t:#x}");
                }
            }
            _ => {
                let _ = op.fmt_with(o.kind, out);
            }
        }
    }
    // The relative offset is what the encoding holds; say it too.
    for (i, o) in def.operands.iter().enumerate() {
        if pc_relative(o.kind) {
            if let Operand::Imm(v) = ins.operand(i) {
                let t = addr.wrapping_add(v as u64);
                let _ = write!(out, "  // {t:#x} (pc{v:+})");
            }
        }
    }
}
