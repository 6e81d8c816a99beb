//! examples/cosim/dut.c, compiled with the system `cc` against the static library: a
//! design under test that replays vadd with one injected fault must report the first
//! mismatch with its PC, register and lane, and without the fault agree throughout.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The static library cargo built for this test: `cargo test` leaves it beside the test
/// executable (target/<profile>/deps/); `cargo build` also copies it to target/<profile>/.
fn staticlib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let built = deps.join("libwarpkit_capi.a");
    if built.exists() {
        return built;
    }
    deps.parent().unwrap().join("libwarpkit_capi.a")
}

#[test]
fn the_c_design_under_test_reports_the_injected_fault() {
    if Command::new("cc").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no C compiler `cc` on PATH; examples/cosim is not compiled");
        return;
    }
    let lib = staticlib();
    assert!(lib.exists(), "no static library at {}", lib.display());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cosim");
    std::fs::create_dir_all(&dir).unwrap();
    let src = std::fs::read_to_string(root().join("examples/vadd.s")).unwrap();
    let kernel = warpkit_asm::assemble(&src, "vadd.s").unwrap();
    let bin = dir.join("vadd.bin");
    std::fs::write(&bin, &kernel.text).unwrap();
    let exe = dir.join("dut");
    let cc = Command::new("cc")
        .args(["-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("crates/capi/include"))
        .arg(root().join("examples/cosim/dut.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&cc.stderr)
    );

    let clean = Command::new(&exe).arg(&bin).arg("100").output().unwrap();
    let out = String::from_utf8_lossy(&clean.stdout);
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&clean.stderr)
    );
    assert!(out.contains("design and model agree on all"), "{out}");

    // `add v8, v6, v7` is at 0x48: lane 5 of warp 0 computes 5 + 10 = 0xf.
    let faulty = Command::new(&exe)
        .arg(&bin)
        .args(["100", "0x48", "5"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&faulty.stdout);
    assert_eq!(
        faulty.status.code(),
        Some(1),
        "{out}{}",
        String::from_utf8_lossy(&faulty.stderr)
    );
    assert!(out.contains("injected: pc 0x48 v8 lane 5"), "{out}");
    assert!(
        out.contains("pc 0x48 workgroup (0,0,0) warp 0 field 5 reg 8 lane 5 expected 0xf got 0xe"),
        "{out}"
    );
    assert!(
        out.contains("mismatch at pc 0x48 (add v8, v6, v7) in workgroup (0,0,0) warp 0 step 14: v8 lane 5: expected 0xf, got 0xe"),
        "{out}"
    );
}

/// examples/cosim/dut.c built in its own directory: the executable and vadd's code, or
/// `None` without a C compiler.
fn build_dut(name: &str) -> Option<(PathBuf, PathBuf)> {
    if Command::new("cc").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no C compiler `cc` on PATH; examples/cosim is not compiled");
        return None;
    }
    let lib = staticlib();
    assert!(lib.exists(), "no static library at {}", lib.display());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let src = std::fs::read_to_string(root().join("examples/vadd.s")).unwrap();
    let kernel = warpkit_asm::assemble(&src, "vadd.s").unwrap();
    let bin = dir.join("vadd.bin");
    std::fs::write(&bin, &kernel.text).unwrap();
    let exe = dir.join("dut");
    let cc = Command::new("cc")
        .args(["-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("crates/capi/include"))
        .arg(root().join("examples/cosim/dut.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    Some((exe, bin))
}

#[test]
fn the_c_design_under_test_reports_a_fault_in_the_data_it_stores() {
    let Some((exe, bin)) = build_dut("cosim_mem") else {
        return;
    };
    // `gstore.b32 v8, v5, u[20:21], 0` is at 0x4c: lane 5 of warp 0 stores 0xf.
    let faulty = Command::new(&exe)
        .arg(&bin)
        .args(["100", "0x4c", "5"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&faulty.stdout);
    assert_eq!(
        faulty.status.code(),
        Some(1),
        "{out}{}",
        String::from_utf8_lossy(&faulty.stderr)
    );
    assert!(
        out.contains("injected: pc 0x4c memory lane 5 byte 0"),
        "{out}"
    );
    assert!(
        out.contains("pc 0x4c workgroup (0,0,0) warp 0 field 21 reg 0 lane 5 expected 0xf got 0xe"),
        "{out}"
    );
    assert!(
        out.contains("mismatch at pc 0x4c (gstore.b32 v8, v5, u[20:21], 0) in workgroup (0,0,0) warp 0 step 15: store.global lane 5 word 0: data: expected 0xf, got 0xe"),
        "{out}"
    );
}
