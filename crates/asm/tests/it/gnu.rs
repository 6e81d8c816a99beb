//! GNU-assembler compatibility: compiler output (clang and GCC style), symbol types and
//! sizes in ELF, `.L` labels kept out of the symbol table, strings, sections, numeric local
//! labels, C operators, `.set` redefinition, two's-complement literals, and the expansion
//! directives (`.include`, `.macro`, `.rept`) with their diagnostics.

use std::path::{Path, PathBuf};
use warpkit_asm::{assemble, load_object, write_elf, Program, Section, SymbolKind};

fn gnu(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gnu")
        .join(name)
}

fn asm_file(name: &str) -> Program {
    let path = gnu(name);
    let text = std::fs::read_to_string(&path).unwrap();
    match assemble(&text, path.to_str().unwrap()) {
        Ok(p) => p,
        Err(e) => panic!("{}", e.render(&text)),
    }
}

fn asm(src: &str) -> Program {
    match assemble(src, "t.s") {
        Ok(p) => p,
        Err(e) => panic!("{}", e.render(src)),
    }
}

/// The rendered diagnostics of a source that must fail.
fn errors(src: &str) -> String {
    match assemble(src, "t.s") {
        Ok(_) => panic!("expected errors for:\n{src}"),
        Err(e) => e.render(src),
    }
}

#[test]
fn compiler_output_assembles_with_types_sizes_and_warnings() {
    for (file, data_len) in [("clang_style.s", 17), ("gcc_style.s", 6)] {
        let p = asm_file(file);
        assert_eq!(p.text.len(), 64, "{file}");
        assert_eq!(p.data.len(), data_len, "{file}");
        let scale = p.symbol("scale").unwrap();
        assert_eq!(
            (scale.kind, scale.size, scale.global),
            (SymbolKind::Function, 64, true),
            "{file}"
        );
        assert!(
            p.symbols.iter().all(|s| !s.name.starts_with(".L")),
            "{file}: {:?}",
            p.symbols
        );
        // Each ignored directive is reported once, located, and never stops assembly.
        let w: Vec<String> = p.warnings.iter().map(ToString::to_string).collect();
        assert!(w.iter().any(|w| w.contains(".cfi_startproc")), "{w:?}");
        // `.loc` is no longer ignored: it sets the source lines.
        assert!(!w.iter().any(|w| w.contains("`.loc`")), "{w:?}");
        assert!(w.iter().all(|w| w.contains(": warning: ")), "{w:?}");
        // The ELF symbol table has the types and sizes, and nothing assembler-local.
        let back = load_object(&write_elf(&p)).unwrap();
        let mut a = back.symbols.clone();
        let mut b = p.symbols.clone();
        a.sort_by(|x, y| x.name.cmp(&y.name));
        b.sort_by(|x, y| x.name.cmp(&y.name));
        assert_eq!(a, b, "{file}");
    }
    let clang = asm_file("clang_style.s");
    let coeffs = clang.symbol("coeffs").unwrap();
    assert_eq!(
        (coeffs.section, coeffs.offset, coeffs.kind, coeffs.size),
        (Section::Data, 0, SymbolKind::Object, 8)
    );
    assert_eq!(&clang.data[8..], b"scale\tv1\0");
    let gcc = asm_file("gcc_style.s");
    assert_eq!(gcc.data, b"scale\0");
    assert_eq!(gcc.symbol("name").unwrap().size, 6);
    // Both spellings of the same kernel are the same code.
    assert_eq!(clang.text, gcc.text);
    // clang's `.file 1 "/src" "scale.c"` and `.loc` lines: the C source's lines and columns.
    let at = |pc: u64| clang.lines.lookup(pc).map(|l| l.to_string());
    assert_eq!(at(0).as_deref(), Some("/src/scale.c:4"));
    assert_eq!(at(20).as_deref(), Some("/src/scale.c:5:7"));
    assert_eq!(at(36).as_deref(), Some("/src/scale.c:6:14"));
    assert_eq!(at(60).as_deref(), Some("/src/scale.c:7:1"));
    assert!(gcc.lines.lookup(0).unwrap().file.ends_with("gcc_style.s"));
}

/// `readelf -s` (binutils), when installed, agrees: FUNC/OBJECT types and sizes, no `.L`.
#[test]
fn readelf_shows_types_and_sizes() {
    let p = asm_file("clang_style.s");
    let path = std::env::temp_dir().join(format!("warpkit-gnu-{}.o", std::process::id()));
    std::fs::write(&path, write_elf(&p)).unwrap();
    let out = std::process::Command::new("readelf")
        .arg("-sW")
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let Ok(out) = out else {
        eprintln!("readelf is not installed: the ELF symbols were checked with the object crate");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let row = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .unwrap_or_else(|| panic!("no `{name}` in:\n{text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    let scale = row("scale");
    assert_eq!(
        (scale[2], scale[3], scale[4]),
        ("64", "FUNC", "GLOBAL"),
        "{text}"
    );
    let coeffs = row("coeffs");
    assert_eq!((coeffs[2], coeffs[3]), ("8", "OBJECT"), "{text}");
    assert!(!text.contains(".L"), "{text}");
}

#[test]
fn strings_and_escapes() {
    let p = asm(".data\n.ascii \"a\\n\", \"\\x41\\102\\\\\\\"\"\n.asciz \"\"\n.string \"z\"\n");
    assert_eq!(p.data, b"a\nAB\\\"\0z\0");
    // Comment characters inside a string are text.
    let p = asm(".data\n.asciz \"%d; #x // y\" # comment\n.ascii \"\\\"\" ; comment\n");
    assert_eq!(p.data, b"%d; #x // y\0\"");
    let e = errors(".data\n.ascii \"open\n.ascii \"x\" \"y\"\n.asciz \"\\q\"\n.ascii 5\n");
    assert!(
        e.contains("t.s:2:8: error: string has no closing `\"`"),
        "{e}"
    );
    assert!(
        e.contains("t.s:3:12: error: expected `,` or the end of the line"),
        "{e}"
    );
    assert!(e.contains("t.s:4:9: error: unknown escape `\\q`"), "{e}");
    assert!(
        e.contains("t.s:5:8: error: expected a string in double quotes"),
        "{e}"
    );
}

#[test]
fn sections_map_to_text_and_data() {
    let p = asm(
        ".section .rodata\nr: .word 1\n.section .text.hot,\"ax\",@progbits\nf: nop\n\
                 .section .bss\nb: .zero 4\n.section .my_consts,\"a\"\nc: .byte 9\n\
                 .section \".note.GNU-stack\",\"\",@progbits\n.text\ng: nop\n\
                 .section .comment,\"MS\",@progbits,1\n.asciz \"ignored\"\n\
                 .section .debug_info\nx: .word 5\n.previous\n.data\nd: .byte 1\n",
    );
    assert_eq!(p.data, [1, 0, 0, 0, 0, 0, 0, 0, 9, 1]);
    assert_eq!(p.text.len(), 8);
    assert_eq!(p.symbol("g").unwrap().offset, 4);
    assert!(
        p.symbol("x").is_none(),
        "labels of unloaded sections are not symbols"
    );
    let w: Vec<String> = p.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with("t.s:12:10: warning: section `.comment` is not loaded"),
        "{w:?}"
    );
    assert!(w[1].contains("`.debug_info`"), "{w:?}");
    let e = errors(".section .txet\nnop\n");
    assert!(
        e.contains("t.s:1:10: error: unknown section `.txet`"),
        "{e}"
    );
}

#[test]
fn alignment_fill_and_max_skip() {
    let p = asm(
        ".data\n.byte 1\n.p2align 2, 0xee\n.byte 2\n.balign 8, 0x11, 2\n.byte 3\n\
                 .p2align 3,,7\n.byte 4\n.space 2, 0x55\n",
    );
    assert_eq!(p.data, [1, 0xee, 0xee, 0xee, 2, 3, 0, 0, 4, 0x55, 0x55]);
    let e = errors(".p2align 17\n.balign 3\n.align 1, 256\n.p2align 1, 2, 3, 4\n");
    assert!(
        e.contains("t.s:1:10: error: `.p2align` needs an exponent between 0 and 16"),
        "{e}"
    );
    assert!(
        !e.contains("`.align` needs a power of two between 1 and 65536, found 17"),
        "{e}"
    );
    assert!(
        e.contains("t.s:2:9: error: `.balign` needs a power of two"),
        "{e}"
    );
    assert!(e.contains("t.s:3:11: error: `fill byte` value 256"), "{e}");
    assert!(
        e.contains("t.s:4:10: error: `.p2align` takes at most 3 operands"),
        "{e}"
    );
}

#[test]
fn numeric_local_labels() {
    // 1b is the nearest `1:` above, 1f the nearest below; a label on the same line is above.
    let p =
        asm("1: nop\njmp 1f\n1: jmp 1b\njmp 1b\njmp 2f\n2:\n.data\n1: .word 1b, 1f\n1: .word 0\n");
    let q = asm("a: nop\njmp b\nb: jmp b\njmp b\njmp c\nc:\n.data\nd: .word d, e\ne: .word 0\n");
    assert_eq!(p.text, q.text);
    assert_eq!(p.data, q.data);
    assert!(p.symbols.is_empty(), "{:?}", p.symbols);
    let e = errors("jmp 1b\njmp 3f\n1:\n");
    assert!(
        e.contains("t.s:1:5: error: `1b` refers to the local label `1:` above, but there is none"),
        "{e}"
    );
    assert!(
        e.contains(
            "t.s:2:5: error: `3f` refers to the local label `3:` further down, but there is none"
        ),
        "{e}"
    );
}

#[test]
fn c_operators_with_c_precedence() {
    let p = asm(".data\n.word 7 / 2, -7 / 2, -7 % 3, 1 + 10 % 4 * 3, 1 << 2 + 1, 6 & 3 ^ 1 | 8, ~0 & 0xff\n");
    let words: Vec<i32> = p
        .data
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words, [3, -3, -1, 7, 8, 11, 255]);
    let e = errors(".equ z, 0\n.word 1 / z\n.word 5 % (2 - 2)\n");
    assert!(e.contains("t.s:2:9: error: division by zero in `/`"), "{e}");
    assert!(e.contains("t.s:3:9: error: division by zero in `%`"), "{e}");
}

#[test]
fn set_redefines_with_the_value_in_effect() {
    // Uses see the `.set` above them; a use above the first `.set` sees the first value.
    let p = asm(
        ".data\n.word x\n.set x, 1\n.word x\n.set x, x + 1\n.word x, y\n.set x, 10\n\
                 .word x\n.set y, 5\n",
    );
    let words: Vec<u32> = p
        .data
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words, [1, 1, 2, 5, 10]);
    // A later fixup of the same line (a forward reference elsewhere on it) keeps its value.
    let p = asm(".set k, 3\nadd.vi v1, v2, k\njmp end\n.set k, 4\nadd.vi v1, v2, k\nend:\n");
    let q = asm("add.vi v1, v2, 3\njmp end\nadd.vi v1, v2, 4\nend:\n");
    assert_eq!(p.text, q.text);
    let e = errors(".equ a, 1\n.equ a, 2\nl:\n.set l, 3\n.set b, 1\n.equ b, 2\n");
    assert!(
        e.contains("t.s:2:6: error: symbol `a` is already defined on line 1"),
        "{e}"
    );
    assert!(
        e.contains("t.s:4:6: error: symbol `l` is already defined on line 3"),
        "{e}"
    );
    assert!(
        e.contains("t.s:6:6: error: symbol `b` is already defined on line 5"),
        "{e}"
    );
}

#[test]
fn signed_fields_take_twos_complement_literals() {
    assert_eq!(
        asm("add.vi v1, v2, 0xff\n").text,
        asm("add.vi v1, v2, -1\n").text
    );
    assert_eq!(
        asm("add.vi v1, v2, 0x80\n").text,
        asm("add.vi v1, v2, -128\n").text
    );
    assert_eq!(
        asm("add.vi v1, v2, 0b11111110\n").text,
        asm("add.vi v1, v2, -2\n").text
    );
    // Only as a literal of the field's width, and never for a decimal number.
    let e = errors("add.vi v1, v2, 0x100\nadd.vi v1, v2, 255\nadd.vi v1, v2, 0xff + 0\n");
    assert!(
        e.contains("t.s:1:16: error: `s8` immediate out of range: 256"),
        "{e}"
    );
    assert!(
        e.contains("t.s:2:16: error: `s8` immediate out of range: 255"),
        "{e}"
    );
    assert!(
        e.contains("t.s:3:16: error: `s8` immediate out of range: 255"),
        "{e}"
    );
}

#[test]
fn macros_with_named_arguments_defaults_and_counter() {
    let p = asm(
        ".macro addk dst, src, k=1\n  add.vi \\dst, \\src, \\k\n.endm\n\
                 .macro spin n:req\nloop\\@: jmp loop\\@\n  .rept \\n\n  nop\n  .endr\n.endm\n\
                 addk v1, v2\naddk v3, v4, 5\naddk k=7, src=v6, dst=v5\nspin 2\nspin n=1\n",
    );
    let q = asm("add.vi v1, v2, 1\nadd.vi v3, v4, 5\nadd.vi v5, v6, 7\n\
                 loop0: jmp loop0\nnop\nnop\nloop1: jmp loop1\nnop\n");
    assert_eq!(p.text, q.text);
    // The listing shows the macro call for the bytes it produced.
    assert_eq!(p.listing[0].line, 10);
    assert_eq!(p.listing[3].line, 13);
}

#[test]
fn rept_repeats_with_constants_from_above() {
    let p = asm(".equ N, 3\n.data\n.rept N * 2 - 1\n.byte 7\n.endr\n.rept 0\n.byte 1\n.endr\n");
    assert_eq!(p.data, [7; 5]);
}

#[test]
fn expansion_diagnostics_name_the_real_place_and_the_chain() {
    let src = ".macro bad x\n  add.vi v1, v2, \\x\n.endm\nnop\nbad 300\n";
    let e = errors(src);
    assert!(
        e.starts_with(
            "t.s:2:18: error: `s8` immediate out of range: 300 is not in -128..127\n  \
             note: in expansion of macro `bad` at t.s:5:1\n2 |   add.vi v1, v2, \\x\n  |                  ^^\n"
        ),
        "{e}"
    );
    let e = errors(".rept 2\nbogus\n.endr\n");
    assert!(
        e.contains("t.s:2:1: error: unknown mnemonic `bogus`\n  note: in `.rept` at t.s:1:1"),
        "{e}"
    );
    let e = errors("nop\n.rept 2\nnop\n");
    assert!(e.contains("t.s:2:1: error: `.rept` without `.endr`"), "{e}");
    let e = errors(".macro m\nnop\n.rept 2\nnop\n");
    assert!(
        e.starts_with("t.s:1:1: error: `.macro` without `.endm`\n"),
        "{e}"
    );
    assert!(e.ends_with("\n1 error in t.s\n"), "{e}");
    let e = errors(".endm\n.endr\n.rept x\n.endr\n.macro\n.endm\n.macro nop\n.endm\n");
    assert!(
        e.contains("t.s:1:1: error: `.endm` without a `.macro` before it"),
        "{e}"
    );
    assert!(
        e.contains("t.s:2:1: error: `.endr` without a `.rept` before it"),
        "{e}"
    );
    assert!(
        e.contains("t.s:3:7: error: the `.rept` count must be a constant"),
        "{e}"
    );
    assert!(e.contains("t.s:5:7: error: `.macro` needs a name"), "{e}");
    assert!(
        e.contains("t.s:7:8: error: `nop` cannot name a macro"),
        "{e}"
    );
    let e = errors(".macro two a, b:req\n.endm\ntwo 1, 2, 3\ntwo 1\n");
    assert!(
        e.contains("t.s:3:11: error: macro `two` takes 2 arguments, more given"),
        "{e}"
    );
    assert!(
        e.contains("t.s:4:1: error: macro `two` needs a value for `b`"),
        "{e}"
    );
}

#[test]
fn expansion_is_bounded() {
    // A macro that expands itself stops at the depth limit, with a located error.
    let e = errors(".macro again\nagain\n.endm\nagain\n");
    assert!(
        e.contains("macro expansion nested more than 64 deep"),
        "{e}"
    );
    assert!(e.contains("t.s:2:1: error"), "{e}");
    // Repetition that multiplies past a bound stops: the size of the expanded text or the
    // number of `.rept` iterations, whichever is reached first.
    let e = errors(".rept 100000\n.rept 100000\n.rept 100000\nnop\n.endr\n.endr\n.endr\n");
    assert!(
        e.contains("the expanded source exceeds") || e.contains("`.rept` iterations"),
        "{e}"
    );
}

#[test]
fn include_is_relative_to_the_including_file_with_cycles_and_depth_caught() {
    let p = asm_file("includes.s");
    let q = asm("add.vi v1, v2, 3\nadd.vi v1, v2, 3\nnop\n");
    assert_eq!(p.text, q.text);
    let main = gnu("cycle_a.s");
    let text = std::fs::read_to_string(&main).unwrap();
    let e = assemble(&text, main.to_str().unwrap()).unwrap_err();
    let r = e.render(&text);
    assert!(r.contains("`.include` cycle: "), "{r}");
    assert!(r.contains("cycle_a.s includes "), "{r}");
    assert!(r.contains("note: included from "), "{r}");
    // An error inside an included file names that file and quotes its line.
    let main = gnu("include_error.s");
    let text = std::fs::read_to_string(&main).unwrap();
    let r = assemble(&text, main.to_str().unwrap())
        .unwrap_err()
        .render(&text);
    assert!(
        r.contains("inc/broken.s:2:1: error: unknown mnemonic `bogus`"),
        "{r}"
    );
    assert!(
        r.contains("include_error.s:2:1\n2 | bogus\n  | ^^^^^"),
        "{r}"
    );
    assert!(r.contains("cannot include"), "{r}");
}

#[test]
fn sources_without_expansion_take_the_direct_path() {
    // Same bytes, listing and symbols whether or not the expansion step runs.
    let plain = "start: add.vi v1, v2, 3\n.data\nx: .word start\n";
    let with = format!("{plain}.macro unused\n.endm\n");
    let (a, b) = (asm(plain), asm(&with));
    assert_eq!((a.text, a.data, a.symbols), (b.text, b.data, b.symbols));
    assert_eq!(a.listing, b.listing);
}

#[test]
fn dis_puts_data_labels_at_their_offsets_and_keeps_them_plain() {
    use warpkit_asm::{disassemble_program, DisOptions};
    let src =
        "nop\n.data\na: .byte 1, 2, 3, 4, 5\nb: .byte 6\n.zero 14\nc: .word 7\n.byte 8\nend:\n";
    let p = asm(src);
    let dump = disassemble_program(&p, &DisOptions::default());
    assert!(
        dump.contains(
            "a:\n       0:  .byte 0x01, 0x02, 0x03, 0x04, 0x05\nb:\n       5:  .byte 0x06,"
        ),
        "{dump}"
    );
    assert!(
        dump.contains("\nc:\n      14:  .byte 0x07, 0x00, 0x00, 0x00, 0x08\nend:\n"),
        "{dump}"
    );
    let plain = disassemble_program(&p, &DisOptions { plain: true });
    assert!(plain.contains("\na:\n.byte 0x01"), "{plain}");
    let back = asm(&plain);
    assert_eq!((&back.text, &back.data), (&p.text, &p.data));
    let offsets = |q: &Program| {
        let mut v: Vec<(String, u64)> = q
            .symbols
            .iter()
            .filter(|s| s.section == Section::Data)
            .map(|s| (s.name.clone(), s.offset))
            .collect();
        v.sort();
        v
    };
    assert_eq!(offsets(&back), offsets(&p));
}

#[test]
fn expansions_that_fail_everywhere_or_emit_nothing_stop() {
    // A macro calling itself twice fails at every leaf of a 2^64 tree: the error cap ends
    // the expansion instead of walking the tree.
    let e = errors(".macro m\nm\nm\n.endm\nm\n");
    assert!(e.contains("nested more than 64 deep"), "{e}");
    // A `.rept` of a macro that emits no line is bounded by the number of calls.
    let e = errors(".macro e\n.endm\n.rept 1000000000\ne\n.endr\n");
    assert!(e.contains("macro calls or `.rept` iterations"), "{e}");
}
