//! Helpers shared by the CLI's integration tests: run the binary, a scratch directory per
//! test, and checks of exit code and stderr.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `warpkit` binary built for these tests.
pub fn warpkit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .args(args)
        .output()
        .expect("warpkit runs")
}

/// An empty scratch directory for `test`, unique to this call: tests in different modules
/// may pick the same name and run at the same time, so a per-process sequence number keeps
/// one from deleting the other's files.
pub fn dir(test: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!(
        "warpkit-{}-{}-{n}-{test}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The exit code is `code` and stderr contains every piece of `says`.
pub fn expect(o: &Output, code: i32, says: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    for piece in says {
        assert!(e.contains(piece), "expected `{piece}` in: {e}");
    }
}
