//! Arbitrary bytes as a raw binary and as an (often corrupt) ELF file: the disassembler and
//! the object loader never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_asm::{disassemble, load_object, DisOptions};

fuzz_target!(|bytes: &[u8]| {
    let _ = disassemble(bytes, 0, &DisOptions { plain: false });
    let _ = disassemble(bytes, 0, &DisOptions { plain: true });
    // Give the ELF reader a valid magic so it goes past the first check.
    let mut elf = b"\x7fELF".to_vec();
    elf.extend_from_slice(bytes);
    if let Ok(p) = load_object(&elf) {
        let _ = disassemble(&p.text, 0, &DisOptions { plain: false });
    }
});
