//! Loads the ISA database (`spec/`), rejects it if it breaks a rule of the seeds, and writes
//! the static tables into `OUT_DIR/tables.rs`.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let spec = manifest.join("../../spec");
    match warpkit_specdb::source_files(&spec) {
        Ok(files) => {
            for f in files {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
        Err(e) => fail(&e.to_string()),
    }
    println!(
        "cargo:rerun-if-changed={}",
        spec.join("instructions").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        spec.join("provisional").display()
    );
    let db = match warpkit_specdb::load(&spec) {
        Ok(db) => db,
        Err(e) => fail(&e.to_string()),
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("tables.rs");
    std::fs::write(&out, warpkit_specdb::codegen::generate(&db)).expect("write tables.rs");
}

fn fail(message: &str) -> ! {
    for line in message.lines() {
        println!("cargo:warning={line}");
    }
    eprintln!("{message}");
    std::process::exit(1);
}
