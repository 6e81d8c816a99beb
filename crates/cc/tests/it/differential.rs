//! The differential test of the whole compiler: random OpenCL C kernels from
//! `warpkit-clsmith`, whose expected results its own reference interpreter computes, are
//! compiled and run on the functional model with both engines; every buffer must match.
//! `WARPKIT_CC_DIFF_SEEDS=N` runs N seeds (default 60); `WARPKIT_CC_DIFF_START=S` starts
//! at seed S.

use super::model::{run_program, Assembled};
use warpkit_clsmith::{ArgValue as CArg, Config, TestCase};
use warpkit_sim::launch::{ArgValue, LaunchConfig};
use warpkit_sim::Engine;

/// Compile and run `case`; the buffers by parameter name, or why it failed.
fn run_case(
    case: &TestCase,
    engine: Engine,
    level: warpkit_cc::OptLevel,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let opts = warpkit_cc::Options {
        kernels: Some(vec![case.kernel.clone()]),
        opt_level: level,
        ..warpkit_cc::Options::default()
    };
    let asm = Assembled::compile(&case.source, &opts)?;
    let mut prog = asm.sim_program();
    prog.set_engine(engine);
    let kernel = Some(case.kernel.as_str());
    let mut locals = asm.locals(kernel);
    let args = case
        .args
        .iter()
        .map(|a| {
            let value = match &a.value {
                CArg::Buffer(b) => ArgValue::Buffer(b.clone()),
                CArg::Local(bytes) => ArgValue::Int(locals.place(*bytes)),
                CArg::Int { value, .. } => ArgValue::Int(*value as i64 as u64),
                CArg::F32(f) => ArgValue::Int(u64::from(f.to_bits())),
                CArg::F64(f) => ArgValue::Int(f.to_bits()),
            };
            (a.name.as_str(), value)
        })
        .collect();
    let cfg = asm.config(
        kernel,
        LaunchConfig {
            grid: case.grid,
            block: case.block,
            shared_bytes: locals.shared_bytes(),
            threads: 1,
            max_steps: 50_000_000,
            ..LaunchConfig::default()
        },
    );
    run_program(&prog, &cfg, args)
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_kernels_agree_with_the_reference() {
    let seeds = env("WARPKIT_CC_DIFF_SEEDS", 60);
    let start = env("WARPKIT_CC_DIFF_START", 1);
    let config = Config::default();
    let mut failures = Vec::new();
    for seed in start..start + seeds {
        let case = match warpkit_clsmith::generate(seed, &config) {
            Ok(c) => c,
            Err(e) => panic!("seed {seed}: the generator failed: {e}"),
        };
        for engine in [Engine::Interp, Engine::Jit] {
            let outcome = run_case(&case, engine, warpkit_cc::OptLevel::O2)
                .and_then(|got| case.check(&got).map_err(|m| m.to_string()));
            if let Err(e) = outcome {
                failures.push(format!(
                    "seed {seed} ({engine:?}): {}",
                    e.lines().take(12).collect::<Vec<_>>().join("\n")
                ));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {seeds} seeds failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Cases the `cc_differential` fuzz target found (`fuzz/fuzz_targets/cc_differential.rs`
/// builds the same configurations): the seed, the statement budget and the level.
#[test]
fn fuzz_regressions() {
    let cases = [
        // `#if C1 > 18446744073709551617`: the generator spelled a literal no type holds.
        (8718978774462365696u64, 12u32, warpkit_cc::OptLevel::O0),
    ];
    for (seed, max_stmts, level) in cases {
        let config = Config {
            max_stmts,
            max_work_items: 256,
            ..Config::default()
        };
        let case = warpkit_clsmith::generate(seed, &config)
            .unwrap_or_else(|e| panic!("seed {seed}: the generator failed: {e}"));
        for engine in [Engine::Interp, Engine::Jit] {
            if let Err(e) = run_case(&case, engine, level)
                .and_then(|got| case.check(&got).map_err(|m| m.to_string()))
            {
                panic!("seed {seed} ({engine:?}, {level:?}): {e}\n{}", case.source);
            }
        }
    }
}
