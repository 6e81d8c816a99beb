//! Mutated ELF code objects (seeded with files `warpkit asm --format elf` wrote, which carry
//! DWARF `.debug_line` and kernel metadata): the loader answers with a program or an error,
//! never a panic (bad debug information leaves an empty line table that says why), what it
//! loads writes and loads back with the same code and kernels, and what it loads
//! disassembles (with its source lines too) and runs (under a step limit) without a panic
//! either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_asm::{
    disassemble_program, disassemble_program_with_lines_to, load_object, write_elf, DisOptions,
};
use warpkit_sim::launch::{launch, LaunchConfig};
use warpkit_sim::Program;

fuzz_target!(|bytes: &[u8]| {
    let Ok(p) = load_object(bytes) else {
        return;
    };
    let _ = disassemble_program(&p, &DisOptions { plain: false });
    let _ = disassemble_program_with_lines_to(
        &p,
        &DisOptions { plain: false },
        None,
        &mut std::io::sink(),
    );
    for r in p.lines.rows() {
        assert!(r.address < p.text.len() as u64);
        assert!((r.file as usize) < p.lines.files().len());
    }
    // What loads must be writable again and load back to the same program text.
    let again = load_object(&write_elf(&p)).expect("a written ELF file loads");
    assert_eq!(again.text, p.text);
    assert_eq!(again.kernels, p.kernels);
    // Writing the line table loses no row (names made DWARF-safe may merge two files).
    assert!(again.lines.rows().len() <= p.lines.rows().len());
    assert!(again.lines.damaged().is_none());
    let cfg = LaunchConfig {
        block: [40, 1, 1],
        shared_bytes: 256,
        threads: 1,
        max_steps: 1000,
        ..LaunchConfig::default()
    };
    let _ = launch(&Program::new(p.text), &cfg, Vec::new());
});
