use warpkit_asm::*;

#[test]
fn smoke() {
    let src = "start: add v1, v2, v3\n  add.vi v1, v2, -5 # c\nloop: bz u1, loop\n bz u1, end\n waitcnt vm=0, sm=0\nend: endpgm\n.data\nx: .word 1, 2, x\n";
    match assemble(src, "t.s") {
        Ok(p) => {
            println!("{:x?}\n{}", p.text, p.render_listing(src));
            println!("{:?}", p.symbols);
        }
        Err(e) => panic!("{}", e.render(src)),
    }
    let bad =
        "ad v1, v2, v3\nadd.vi v1, v2, 200\nadd v1, v2\nbz u1, nowhere\n.foo\nadd.vi v1, v2, v3\n";
    let e = assemble(bad, "b.s").unwrap_err();
    println!("{}", e.render(bad));
}

#[test]
fn program_disassembly_uses_symbol_names() {
    let src =
        ".global main\nmain: nop\nloop: bz u1, loop\n bz u1, 8\n nop\n endpgm\n.data\nt: .word 5\n";
    let p = assemble(src, "t.s").unwrap();
    let dump = disassemble_program(&p, &DisOptions::default());
    assert!(dump.contains("main:\n"), "{dump}");
    assert!(dump.contains("bz u1, loop"), "{dump}");
    assert!(dump.contains("L_0010:"), "{dump}");
    assert!(dump.contains("t:\n"), "{dump}");
    let plain = disassemble_program(&p, &DisOptions { plain: true });
    let again = assemble(&plain, "p.s").unwrap();
    assert_eq!((again.text, again.data), (p.text, p.data));
}

#[test]
fn streamed_disassembly_matches_for_large_inputs() {
    // 3 MiB of instructions and junk: pieces cut at instruction boundaries give the same
    // plain text as one piece.
    let mut text = Vec::new();
    let mut x = 0x1234_5678u32;
    while text.len() < 3 << 20 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        text.extend_from_slice(&x.to_le_bytes());
    }
    text.extend_from_slice(&[0x01, 0, 0]);
    let p = Program {
        text,
        ..Program::default()
    };
    let opts = DisOptions { plain: true };
    let mut streamed = Vec::new();
    disassemble_program_to(&p, &opts, &mut streamed).unwrap();
    assert_eq!(
        String::from_utf8(streamed).unwrap(),
        disassemble_program(&p, &opts)
    );
}
