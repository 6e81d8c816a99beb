//! `bench/opencl_peers.sh` end to end on a few kernels at the small size with this build's
//! binary: the exported cases (`warpkit examples --save-cases`) run on POCL through
//! `bench/opencl_host.c`, whose results must equal the model's, beside both engines' times
//! (`--json`). Skipped, saying so, where POCL, its headers or gcc are not installed
//! (`.ci/run` installs them).

use crate::common::*;
use std::path::Path;
use std::process::Command;

fn pocl_installed() -> bool {
    let clinfo = Command::new("clinfo").arg("-l").output();
    let has_pocl = clinfo
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("Portable Computing Language"));
    has_pocl
        && Path::new("/usr/include/CL/cl.h").exists()
        && Command::new("gcc").arg("--version").output().is_ok()
}

#[test]
fn the_peer_script_runs_the_cases_on_pocl_with_equal_results() {
    if !pocl_installed() {
        eprintln!("skipped: POCL (pocl-opencl-icd, ocl-icd-opencl-dev, opencl-headers, clinfo) or gcc is not installed");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let work = dir("opencl-peers");
    let kernels = [
        "opencl/vadd",
        "opencl/reduce",
        "opencl/atax",
        "opencl/softmax",
    ];
    let o = Command::new("bash")
        .arg(root.join("bench/opencl_peers.sh"))
        .arg("1")
        .env("WARPKIT", env!("CARGO_BIN_EXE_warpkit"))
        .env("KERNELS", kernels.join(" "))
        .env("SMALL", "1")
        .env("WORK", &work)
        .output()
        .expect("bash runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    for k in kernels {
        let row = out
            .lines()
            .find(|l| l.starts_with(&format!("| {k} |")))
            .unwrap_or_else(|| panic!("no row for {k}: {out}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // kernel, POCL ms, jit ms, interp ms, jit / POCL, interp / POCL, the check.
        for (k, cell) in cells[2..7].iter().enumerate() {
            let x: f64 = cell.parse().unwrap_or_else(|_| panic!("{cell} in {row}"));
            // Times in ms (a small case may round to 0.000 on POCL), then the ratios.
            assert!(if k < 3 { x >= 0.0 } else { x > 0.0 }, "{row}");
        }
        if k == "opencl/softmax" {
            // native_exp2's accuracy is the implementation's: POCL's exponentials are
            // checked within 1 ulp, the rows built from them may differ.
            assert!(cells[7].contains("E:ok("), "{row}");
        } else {
            assert!(!cells[7].contains("differ"), "{row}");
            assert!(cells[7].contains(":ok"), "{row}");
        }
    }
    assert!(out.contains("warpkit jit / POCL: geometric mean"), "{out}");
    assert!(
        out.contains("warpkit interp / POCL: geometric mean"),
        "{out}"
    );
    // A case whose model output is altered no longer checks out on POCL.
    let check = work.join("cases/opencl/vadd/check0-out.bin");
    let mut bytes = std::fs::read(&check).expect("the model's output");
    bytes[0] ^= 1;
    std::fs::write(&check, bytes).unwrap();
    let host = Command::new(work.join("opencl_host"))
        .arg(work.join("cases/opencl/vadd"))
        .arg(&root)
        .arg("1")
        .output()
        .expect("opencl_host runs");
    let line = String::from_utf8_lossy(&host.stdout);
    assert_eq!(host.status.code(), Some(1), "{line}");
    assert!(line.contains("out:1/1000-words-differ(first-0"), "{line}");
    std::fs::remove_dir_all(&work).unwrap();
}
