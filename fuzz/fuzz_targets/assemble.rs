//! Arbitrary text: the assembler answers with a program or located errors, never a panic;
//! a program it accepts disassembles to text that reassembles to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_asm::{assemble, disassemble, DisOptions};

fuzz_target!(|bytes: &[u8]| {
    let Ok(source) = std::str::from_utf8(bytes) else {
        return;
    };
    match assemble(source, "fuzz.s") {
        // An empty file is an error of its own; nothing to round-trip without text.
        Ok(p) if p.text.is_empty() => {}
        Ok(p) => {
            let text = disassemble(&p.text, 0, &DisOptions { plain: true });
            let again = assemble(&text, "dis.s").expect("plain disassembly reassembles");
            assert_eq!(again.text, p.text);
        }
        Err(e) => {
            let _ = e.render(source);
        }
    }
});
