//! The differential test of the whole compiler: random OpenCL C kernels from
//! `warpkit-clsmith`, whose expected results its own reference interpreter computes, are
//! compiled and run on the functional model with both engines; every buffer must match.
//! `WARPKIT_CC_DIFF_SEEDS=N` runs N seeds (default 60); `WARPKIT_CC_DIFF_START=S` starts
//! at seed S.

use warpkit_clsmith::{ArgValue as CArg, Config, TestCase};
use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig};
use warpkit_sim::Engine;

/// Compile and run `case`; the buffers by parameter name, or why it failed.
pub fn run_case(
    case: &TestCase,
    engine: Engine,
    level: warpkit_cc::OptLevel,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let opts = warpkit_cc::Options {
        kernels: Some(vec![case.kernel.clone()]),
        opt_level: level,
        ..warpkit_cc::Options::default()
    };
    let compiled =
        warpkit_cc::compile_source("case.cl", &case.source, &opts).map_err(|f| f.render())?;
    let text = compiled.assembly;
    let field = |key: &str| -> u32 {
        text.lines()
            .find(|l| l.trim_start().starts_with(".kernel"))
            .and_then(|l| l.split(key).nth(1))
            .map_or(0, |rest| {
                rest.split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            })
    };
    let (static_shared, scratch) = (field("shared="), field("scratch="));
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(".kernel") && !l.trim_start().starts_with(".param"))
        .map(|l| format!("{l}\n"))
        .collect();
    let program = warpkit_asm::assemble(&stripped, "case.s").map_err(|e| e.render(&stripped))?;
    let mut prog = warpkit_sim::Program::with_data(program.text, program.data);
    prog.set_engine(engine);
    let mut shared = static_shared.next_multiple_of(16);
    let args = case
        .args
        .iter()
        .map(|a| {
            let value = match &a.value {
                CArg::Buffer(b) => ArgValue::Buffer(b.clone()),
                CArg::Local(bytes) => {
                    let at = shared;
                    shared = (shared + bytes).next_multiple_of(16);
                    ArgValue::Int(u64::from(at))
                }
                CArg::Int { value, .. } => ArgValue::Int(*value as i64 as u64),
                CArg::F32(f) => ArgValue::Int(u64::from(f.to_bits())),
                CArg::F64(f) => ArgValue::Int(f.to_bits()),
            };
            Arg {
                name: a.name.clone(),
                value,
            }
        })
        .collect();
    let cfg = LaunchConfig {
        grid: case.grid,
        block: case.block,
        shared_bytes: shared.max(16),
        scratch_bytes: scratch,
        threads: 1,
        max_steps: 50_000_000,
        ..LaunchConfig::default()
    };
    let r = launch(&prog, &cfg, args).map_err(|e| e.to_string())?;
    if !r.ok() {
        return Err(format!("traps: {:?}", r.traps));
    }
    if !r.hazards.is_empty() {
        return Err(format!("hazards: {:?}", r.hazards));
    }
    Ok(r.buffers
        .iter()
        .map(|b| (b.name.clone(), b.bytes.to_vec()))
        .collect())
}

/// The first difference between a run and the case's expectations.
pub fn check(case: &TestCase, got: &[(String, Vec<u8>)]) -> Result<(), String> {
    for (name, want) in &case.expected {
        let Some((_, have)) = got.iter().find(|(n, _)| n == name) else {
            return Err(format!("buffer `{name}` missing"));
        };
        if have.len() < want.len() {
            return Err(format!(
                "buffer `{name}` has {} bytes, expected {}",
                have.len(),
                want.len()
            ));
        }
        if let Some(i) = (0..want.len()).find(|&i| have[i] != want[i]) {
            let w = i / 4 * 4;
            let word = |b: &[u8]| u32::from_le_bytes(b[w..w + 4].try_into().unwrap_or([0; 4]));
            return Err(format!(
                "buffer `{name}` byte {i} (word {}): expected {:#010x}, got {:#010x}",
                i / 4,
                word(want),
                word(have)
            ));
        }
    }
    Ok(())
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
                .and_then(|got| check(&case, &got));
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
            if let Err(e) = run_case(&case, engine, level).and_then(|got| check(&case, &got)) {
                panic!("seed {seed} ({engine:?}, {level:?}): {e}\n{}", case.source);
            }
        }
    }
}
