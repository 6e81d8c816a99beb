//! Compiler-style assembly (what an LLVM or GCC backend emits) assembles through the CLI,
//! with ignored directives reported as located warnings on stderr and exit 0, and runs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn gnu(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../asm/tests/gnu")
        .join(name)
}

#[test]
fn compiler_output_assembles_warns_and_runs() {
    let dir = std::env::temp_dir().join(format!("warpkit-compiler-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["clang_style.s", "gcc_style.s"] {
        let src = gnu(file);
        let obj = dir.join(file).with_extension("o");
        let out = Command::new(env!("CARGO_BIN_EXE_warpkit"))
            .args(["asm", src.to_str().unwrap(), "--format", "elf", "-o"])
            .arg(&obj)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!(
                "{file}:7:2: warning: `.cfi_startproc` has no meaning"
            )),
            "{err}"
        );
        assert!(!err.contains("error"), "{err}");
        // The source itself runs too: out[i] = 3 * i + 7 for i < n.
        let result = dir.join(file).with_extension("bin");
        for input in [&src, &obj] {
            let run = Command::new(env!("CARGO_BIN_EXE_warpkit"))
                .arg("run")
                .arg(input)
                .args(["--grid", "1", "--block", "64", "--arg", "out=buf:256"])
                .args(["--arg", "n=50", "--out"])
                .arg(format!("out={}", result.display()))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&run.stderr);
            assert_eq!(run.status.code(), Some(0), "{err}");
            let bytes = std::fs::read(&result).unwrap();
            let words: Vec<u32> = bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let want: Vec<u32> = (0..64)
                .map(|i| if i < 50 { 3 * i + 7 } else { 0 })
                .collect();
            assert_eq!(words, want, "{file} from {}", input.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
