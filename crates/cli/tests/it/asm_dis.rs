//! `warpkit asm` and `warpkit dis` end to end: outputs, round trip through --plain, and bad
//! input of every kind giving exit 2 with a located message.

use std::path::PathBuf;
use std::process::Output;

use crate::common::*;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpkit-asm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

const KERNEL: &str = "\
.global main
main:   mov.vl v1, 1.5          // fp32 literal
        add.vi v2, v1, -3
loop:   uaddi u1, u1, -1
        bnz u1, loop
        waitcnt vm=0
        endpgm
.data
table:  .word 1, 2, table
";

#[test]
fn assemble_disassemble_round_trip() {
    let src = tmp("k.s");
    std::fs::write(&src, KERNEL).unwrap();
    let bin = tmp("k.bin");
    let lst = tmp("k.lst");
    let out = warpkit(&["asm", s(&src), "-o", s(&bin), "-l", s(&lst)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listing = std::fs::read_to_string(&lst).unwrap();
    assert!(
        listing.contains("T:00000000  00000085 3fc00000"),
        "{listing}"
    );

    // Plain disassembly of the text reassembles to the very same bytes.
    let elf = tmp("k.o");
    assert!(warpkit(&["asm", s(&src), "-o", s(&elf), "--format", "elf"])
        .status
        .success());
    let plain = warpkit(&["dis", s(&elf), "--plain"]);
    assert!(plain.status.success());
    let text = tmp("k2.s");
    std::fs::write(&text, &plain.stdout).unwrap();
    let elf2 = tmp("k2.o");
    let out = warpkit(&["asm", s(&text), "-o", s(&elf2), "--format", "elf"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = warpkit_asm::load_object(&std::fs::read(&elf).unwrap()).unwrap();
    let b = warpkit_asm::load_object(&std::fs::read(&elf2).unwrap()).unwrap();
    assert_eq!((a.text, a.data), (b.text, b.data));
    assert!(a.symbols.iter().any(|s| s.name == "main" && s.global));

    // objdump style shows addresses, words and synthesized labels.
    let dump = String::from_utf8(warpkit(&["dis", s(&bin)]).stdout).unwrap();
    assert!(dump.contains("L_000c:"), "{dump}");
    assert!(dump.contains("bnz u1, L_000c"), "{dump}");

    let hex = tmp("k.hex");
    assert!(warpkit(&["asm", s(&src), "-o", s(&hex), "--format", "hex"])
        .status
        .success());
    let hex = std::fs::read_to_string(&hex).unwrap();
    assert!(hex.starts_with("// .text\n3fc0000000000085\n"), "{hex}");
}

fn expect_bad(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "expected `{needle}` in:\n{err}");
}

#[test]
fn bad_sources_exit_2_with_located_messages() {
    let o = tmp("o.bin");
    let cases: &[(&str, &[u8], &str)] = &[
        ("empty.s", b"", "empty.s:1:1: error: empty source"),
        (
            "utf8.s",
            b"nop\nadd v1, \xff\n",
            "utf8.s:2:9: error: invalid UTF-8 at byte offset 12",
        ),
        (
            "mn.s",
            b"ad v1, v2, v3\n",
            "mn.s:1:1: error: unknown mnemonic `ad`; did you mean `add`?",
        ),
        (
            "pair.s",
            b"mov64 v5, v[4:5]\n",
            "`vp^2` needs an even register pair like v[4:5], found v5",
        ),
        (
            "imm.s",
            b"add.vi v1, v2, 200\n",
            "`s8` immediate out of range: 200 is not in -128..127",
        ),
        (
            "lbl.s",
            b"x: nop\nx: nop\nbz u1, y\n",
            "undefined symbol `y`",
        ),
        ("dir.s", b".wrod 1\n", "did you mean `.word`?"),
    ];
    for (name, body, needle) in cases {
        let p = tmp(name);
        std::fs::write(&p, body).unwrap();
        expect_bad(&warpkit(&["asm", s(&p), "-o", s(&o)]), needle);
    }
    let long = tmp("long.s");
    std::fs::write(&long, "a".repeat(100_000)).unwrap();
    expect_bad(
        &warpkit(&["asm", s(&long), "-o", s(&o)]),
        "long.s:1:1: error: line is 100000 bytes long; the limit is 65536 bytes",
    );
    expect_bad(
        &warpkit(&["asm", s(&tmp("missing.s")), "-o", s(&o)]),
        "cannot read",
    );
}

#[test]
fn a_one_gigabyte_line_is_refused_quickly() {
    let p = tmp("huge.s");
    let f = std::fs::File::create(&p).unwrap();
    // Sparse: no disk space is used, and the reader stops at the size limit.
    f.set_len(1 << 30).unwrap();
    drop(f);
    let out = warpkit(&["asm", s(&p), "-o", s(&tmp("huge.bin"))]);
    expect_bad(
        &out,
        "huge.s: the file is 1073741824 bytes (1 GiB); inputs are limited to 268435456 bytes (256 MiB)",
    );
    std::fs::remove_file(&p).unwrap();
}

#[test]
fn dis_never_stops_at_bad_input() {
    let p = tmp("junk.bin");
    std::fs::write(
        &p,
        [
            0xffu8, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00,
        ],
    )
    .unwrap();
    let out = warpkit(&["dis", s(&p), "--plain"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(".word 0xffffffff // reserved length bits"),
        "{text}"
    );
    assert!(text.contains(".byte 0x02, 0x00 // truncated"), "{text}");
    let empty = tmp("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    expect_bad(&warpkit(&["dis", s(&empty)]), "empty input");
    expect_bad(
        &warpkit(&["dis", s(&p), "--format", "elf"]),
        "not an ELF file",
    );
    let bad_elf = tmp("bad.o");
    std::fs::write(&bad_elf, b"\x7fELF\x02\x01\x01\0\0\0").unwrap();
    expect_bad(&warpkit(&["dis", s(&bad_elf)]), "bad.o:");
}
