//! Source lines: the assembler's line table (through `.include`, macros and `.rept`), its
//! DWARF form in ELF read back by our loader and by binutils / LLVM when installed, and
//! loading objects whose debug information is absent or damaged.

use std::path::{Path, PathBuf};
use std::process::Command;
use warpkit_asm::{assemble, load_object, write_elf, LineTable, Program};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpkit-lines-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const MAIN: &str = "\
.macro twice a
  add \\a, \\a, \\a
  add \\a, \\a, \\a
.endm
start:
  add v1, v2, v3
.include \"inc.s\"
  twice v7
.rept 2
  add v9, v9, v9
.endr
  endpgm
.data
  .word 1
";

/// `k.s` including `inc.s`, assembled under the name DIR/k.s.
fn program_with_include(dir: &Path) -> (Program, String, String) {
    std::fs::write(dir.join("inc.s"), "add v1, v2, v3\nadd v4, v5, v6\n").unwrap();
    let main = dir.join("k.s");
    std::fs::write(&main, MAIN).unwrap();
    let name = main.display().to_string();
    let inc = dir.join("inc.s").display().to_string();
    (assemble(MAIN, &name).unwrap(), name, inc)
}

fn locations(t: &LineTable, text_len: usize) -> Vec<String> {
    (0..text_len as u64)
        .step_by(4)
        .map(|pc| t.lookup(pc).map_or("-".into(), |l| l.to_string()))
        .collect()
}

#[test]
fn every_instruction_has_its_line_through_includes_macros_and_repeats() {
    let d = temp_dir("table");
    let (p, main, inc) = program_with_include(&d);
    let want: Vec<String> = [
        (&main, 6),
        (&inc, 1),
        (&inc, 2),
        // Both instructions of the macro: the line that called it.
        (&main, 8),
        (&main, 8),
        // Each iteration of `.rept`: the line in the block.
        (&main, 10),
        (&main, 10),
        (&main, 12),
    ]
    .iter()
    .map(|(f, l)| format!("{f}:{l}"))
    .collect();
    assert_eq!(locations(&p.lines, p.text.len()), want);
    assert_eq!(p.lines.end(), p.text.len() as u64);
    assert_eq!(p.lines.lookup(p.text.len() as u64), None);
    // Without expansion the fast path gives the same kind of table.
    let q = assemble("nop\n\nadd v1, v2, v3\n.word 5\n", "plain.s").unwrap();
    assert_eq!(
        locations(&q.lines, q.text.len()),
        ["plain.s:1", "plain.s:3", "plain.s:4"]
    );
    assert_eq!(q.lines.address_of_line(Some("plain.s"), 2), Some(4));
}

#[test]
fn elf_line_table_round_trips() {
    let d = temp_dir("elf");
    let (p, _, _) = program_with_include(&d);
    let back = load_object(&write_elf(&p)).unwrap();
    assert_eq!(back.lines.files(), p.lines.files());
    assert_eq!(back.lines.rows(), p.lines.rows());
    assert_eq!(back.lines.damaged(), None);
    assert_eq!(
        locations(&back.lines, back.text.len()),
        locations(&p.lines, p.text.len())
    );
    // A program without lines writes no debug sections and loads with none.
    let raw = Program {
        text: p.text.clone(),
        ..Program::default()
    };
    let elf = write_elf(&raw);
    assert!(!elf.windows(11).any(|w| w == b".debug_line"));
    assert!(load_object(&elf).unwrap().lines.is_empty());
}

/// Run `tool args FILE`; `None` (with a note) when the tool is not installed.
fn tool(tool: &str, args: &[&str], file: &Path) -> Option<String> {
    match Command::new(tool).args(args).arg(file).output() {
        Ok(o) => {
            assert!(
                o.status.success(),
                "{tool} failed: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            Some(String::from_utf8_lossy(&o.stdout).into_owned())
        }
        Err(_) => {
            eprintln!("note: {tool} is not installed; its reading of .debug_line was not checked");
            None
        }
    }
}

/// The (file, line, address) rows of `objdump --dwarf=decodedline` / `readelf
/// --debug-dump=decodedline` output: `NAME LINE ADDRESS ...`, `-` lines ending a sequence
/// skipped.
fn decoded_rows(text: &str) -> Vec<(String, u32, u64)> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let [name, line, addr, ..] = f[..] else {
                return None;
            };
            let line: u32 = line.parse().ok()?;
            let addr = u64::from_str_radix(addr.trim_start_matches("0x"), 16).ok()?;
            // Long names may be shown with their directory: compare base names.
            let base = name.rsplit('/').next().unwrap_or(name);
            Some((base.to_string(), line, addr))
        })
        .collect()
}

#[test]
fn binutils_and_llvm_read_the_line_program() {
    let d = temp_dir("tools");
    let (p, _, _) = program_with_include(&d);
    let obj = d.join("k.o");
    std::fs::write(&obj, write_elf(&p)).unwrap();
    let want: Vec<(String, u32, u64)> = p
        .lines
        .rows()
        .iter()
        .map(|r| {
            let name = &p.lines.files()[r.file as usize];
            let base = Path::new(name).file_name().unwrap().to_string_lossy();
            (base.into_owned(), r.line, r.address)
        })
        .collect();
    assert_eq!(want.len(), 6, "{want:?}");
    for (t, args) in [
        ("objdump", &["--dwarf=decodedline"][..]),
        ("readelf", &["--debug-dump=decodedline"][..]),
    ] {
        if let Some(out) = tool(t, args, &obj) {
            assert_eq!(decoded_rows(&out), want, "{t}:\n{out}");
        }
    }
    if let Some(out) = tool("llvm-dwarfdump", &["--debug-line"], &obj) {
        // Address Line Column File ...: one row per table row plus the end of the sequence.
        let rows: Vec<(u64, u32)> = out
            .lines()
            .filter(|l| l.starts_with("0x"))
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                Some((
                    u64::from_str_radix(f.first()?.trim_start_matches("0x"), 16).ok()?,
                    f.get(1)?.parse().ok()?,
                ))
            })
            .collect();
        let mut expect: Vec<(u64, u32)> = want.iter().map(|(_, l, a)| (*a, *l)).collect();
        expect.push((p.text.len() as u64, want.last().unwrap().1));
        assert_eq!(rows, expect, "llvm-dwarfdump:\n{out}");
        assert!(out.contains("inc.s\""), "{out}");
    }
}

#[test]
fn damaged_or_missing_debug_information_never_fails_the_load() {
    let d = temp_dir("damage");
    let (p, _, _) = program_with_include(&d);
    let elf = write_elf(&p);
    // Find .debug_line's contents: every byte of it corrupted in turn, and cut short.
    let file = object::read::elf::ElfFile64::<object::Endianness>::parse(&*elf).unwrap();
    use object::{Object, ObjectSection};
    let mut spans = Vec::new();
    for name in [
        ".debug_line",
        ".debug_info",
        ".debug_abbrev",
        ".debug_line_str",
    ] {
        if let Some((off, len)) = file.section_by_name(name).and_then(|s| s.file_range()) {
            spans.push((off as usize, len as usize));
        }
    }
    assert!(spans.len() >= 3, "{spans:?}");
    let mut damaged = 0;
    for &(off, len) in &spans {
        for i in off..off + len {
            for v in [0u8, 0xff, 0x80, 0x7f, 1] {
                let mut c = elf.clone();
                c[i] = v;
                let back = load_object(&c).expect("debug information never fails the load");
                assert_eq!(back.text, p.text);
                for r in back.lines.rows() {
                    assert!(r.address < p.text.len() as u64);
                    assert!((r.file as usize) < back.lines.files().len());
                }
                damaged += usize::from(back.lines.damaged().is_some());
            }
        }
    }
    assert!(damaged > 0, "some corruption is reported as such");
}

/// A compiler's output: `.file` names the C source, `.loc` gives line and column.
const WITH_LOC: &str = "\
    .file \"k.cl\"
    .file 1 \"k.cl\"
    .file 2 \"src\" \"inc.h\"
    nop
    .loc 1 4 7 prologue_end
    add v1, v2, v3
    add v4, v5, v6
    .loc 2 9 0 is_stmt 0 discriminator 3
    .word 7
    .loc 1 0 0
    nop
    .loc 1 12 3 epilogue_begin basic_block isa 1 view .LVU4
.data
    .word 1
.text
    endpgm
";

#[test]
fn loc_gives_the_file_line_and_column_of_what_follows() {
    let p = assemble(WITH_LOC, "k.s").unwrap();
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let rows: Vec<(u64, &str, u32, u32)> = p
        .lines
        .rows()
        .iter()
        .map(|r| {
            let f = p.lines.files()[r.file as usize].as_str();
            (r.address, f, r.line, r.column)
        })
        .collect();
    assert_eq!(
        rows,
        [
            // Before the first `.loc`: the assembly line.
            (0, "k.s", 4, 0),
            (4, "k.cl", 4, 7),
            (12, "src/inc.h", 9, 0),
            // Line 0: code with no source line.
            (16, "k.cl", 0, 0),
            (20, "k.cl", 12, 3),
        ]
    );
    assert_eq!(p.lines.files(), ["k.s", "k.cl", "src/inc.h"]);
    assert_eq!(p.lines.lookup(8).unwrap().to_string(), "k.cl:4:7");
    assert_eq!(p.lines.lookup(12).unwrap().to_string(), "src/inc.h:9");
    assert_eq!(p.lines.lookup(16), None);
    assert_eq!(p.lines.lookup(0).unwrap().to_string(), "k.s:4");
    let l = p.lines.lookup(20).unwrap();
    assert_eq!((l.file, l.line, l.column), ("k.cl", 12, 3));
    // The ELF object keeps the columns.
    let back = load_object(&write_elf(&p)).unwrap();
    assert_eq!(back.lines.files(), p.lines.files());
    assert_eq!(back.lines.rows(), p.lines.rows());
}

#[test]
fn loc_works_through_includes_and_macros() {
    let d = temp_dir("loc-expanded");
    std::fs::write(d.join("inc.s"), ".loc 1 30 2\nadd v1, v2, v3\n").unwrap();
    let main = "\
.file 1 \"k.cl\"
.macro two
  nop
  nop
.endm
.loc 1 20 5
  two
.include \"inc.s\"
  nop
";
    let name = d.join("k.s").display().to_string();
    std::fs::write(&name, main).unwrap();
    let p = assemble(main, &name).unwrap();
    assert_eq!(
        locations(&p.lines, p.text.len()),
        ["k.cl:20:5", "k.cl:20:5", "k.cl:30:2", "k.cl:30:2"]
    );
}

#[test]
fn readelf_and_llvm_dwarfdump_read_the_columns() {
    let d = temp_dir("loc-tools");
    let p = assemble(WITH_LOC, "k.s").unwrap();
    let obj = d.join("k.o");
    std::fs::write(&obj, write_elf(&p)).unwrap();
    if let Some(out) = tool("readelf", &["--debug-dump=decodedline"], &obj) {
        let rows = decoded_rows(&out);
        assert!(rows.contains(&("k.cl".into(), 4, 4)), "{out}");
        assert!(rows.contains(&("inc.h".into(), 9, 12)), "{out}");
        assert!(rows.contains(&("k.cl".into(), 12, 20)), "{out}");
    }
    if let Some(out) = tool("llvm-dwarfdump", &["--debug-line"], &obj) {
        // Address Line Column File ...
        let rows: Vec<(u64, u32, u32)> = out
            .lines()
            .filter(|l| l.starts_with("0x"))
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                Some((
                    u64::from_str_radix(f.first()?.trim_start_matches("0x"), 16).ok()?,
                    f.get(1)?.parse().ok()?,
                    f.get(2)?.parse().ok()?,
                ))
            })
            .collect();
        assert!(rows.contains(&(4, 4, 7)), "{out}");
        assert!(rows.contains(&(20, 12, 3)), "{out}");
    }
}
