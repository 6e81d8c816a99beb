//! Every generated program is free of the undefined behaviour the interpreter detects
//! (it traps on signed overflow, division by zero, out-of-bounds accesses, uninitialized
//! reads, races, order-dependent atomics, barrier divergence, endless loops).
//! `CLSMITH_UB_SEEDS=N` runs more seeds (default 400).

use warpkit_clsmith::Config;

#[test]
fn generated_programs_have_no_undefined_behaviour() {
    let n = crate::env_u64("CLSMITH_UB_SEEDS", 400);
    let configs = [Config::default(), Config::host_c()];
    let mut failures = Vec::new();
    for seed in 0..n {
        let config = &configs[(seed % 2) as usize];
        if let Err(e) = warpkit_clsmith::generate(1_000_000 + seed, config) {
            failures.push(e.to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} seeds failed:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}
