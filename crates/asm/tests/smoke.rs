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
