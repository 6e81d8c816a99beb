//! The integration tests of `warpkit-clsmith`, one test binary.

mod cli_args;
mod config;
mod determinism;
mod host_c;
mod host_c_check;
mod interp_rules;
mod order;
mod sequencing;
mod ub_free;

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("warpkit-clsmith-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch directory");
    d
}

/// A number from the environment, or the default.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
