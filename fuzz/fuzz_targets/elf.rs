//! Mutated ELF code objects (seeded with files `warpkit asm --format elf` wrote): the loader
//! answers with a program or an error, never a panic, and what it loads disassembles and
//! runs (under a step limit) without a panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_asm::{disassemble_program, load_object, write_elf, DisOptions};
use warpkit_sim::launch::{launch, LaunchConfig};
use warpkit_sim::Program;

fuzz_target!(|bytes: &[u8]| {
    let Ok(p) = load_object(bytes) else {
        return;
    };
    let _ = disassemble_program(&p, &DisOptions { plain: false });
    // What loads must be writable again and load back to the same program text.
    let again = load_object(&write_elf(&p)).expect("a written ELF file loads");
    assert_eq!(again.text, p.text);
    let cfg = LaunchConfig {
        block: [40, 1, 1],
        shared_bytes: 256,
        threads: 1,
        max_steps: 1000,
        ..LaunchConfig::default()
    };
    let _ = launch(&Program::new(p.text), &cfg, Vec::new());
});
