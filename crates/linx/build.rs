//! Loads the SIMT micro-instruction table (`spec/linx/`), rejects it if it is inconsistent,
//! and writes the parser's tables and the reference text into `OUT_DIR`.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let dir = manifest.join("../../spec/linx");
    println!("cargo:rerun-if-changed={}", dir.display());
    match warpkit_specdb::linx::source_files(&dir) {
        Ok(files) => {
            for f in files {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
        Err(e) => fail(&e.to_string()),
    }
    let db = match warpkit_specdb::linx::load(&dir) {
        Ok(db) => db,
        Err(e) => fail(&e.to_string()),
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out.join("tables.rs"), warpkit_specdb::linx::generate(&db))
        .expect("write tables.rs");
    std::fs::write(
        out.join("linx-reference.md"),
        warpkit_specdb::linx::reference(&db),
    )
    .expect("write linx-reference.md");
}

fn fail(message: &str) -> ! {
    for line in message.lines() {
        println!("cargo:warning={line}");
    }
    eprintln!("{message}");
    std::process::exit(1);
}
