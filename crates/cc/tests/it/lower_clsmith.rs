//! The differential test of the front end: random kernels of `warpkit-clsmith`, lowered to
//! IR and run on the IR interpreter (as lowered, and again optimized), must leave every
//! `__global` buffer with the bytes the generator's reference interpreter computed.
//! `CLSMITH_SEEDS=N` runs more seeds (default 60); `CLSMITH_ONLY=SEED` one, printed.

use warpkit_cc::ir::interp::{run, Arg, Launch};
use warpkit_cc::opt;
use warpkit_clsmith::{ArgValue, Config, TestCase};

fn seeds() -> u64 {
    std::env::var("CLSMITH_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60)
}

/// Compile and run one case; a description of the first difference.
fn check(case: &TestCase, level: opt::OptLevel) -> Result<(), String> {
    let front = warpkit_cc::front_end("case.cl", &case.source, &warpkit_cc::Options::default())
        .map_err(|f| format!("does not compile:\n{}", f.render()))?;
    let mut module = front.module;
    opt::optimize(&mut module, level);
    let k = module
        .kernels
        .iter()
        .position(|f| f.name == case.kernel)
        .ok_or("kernel missing")?;
    let args = case
        .args
        .iter()
        .map(|a| match &a.value {
            ArgValue::Buffer(b) => Arg::Buffer(b.clone()),
            ArgValue::Local(n) => Arg::Local(*n),
            ArgValue::Int { value, .. } => Arg::Scalar(*value as i64 as u64),
            ArgValue::F32(f) => Arg::Scalar(u64::from(f.to_bits())),
            ArgValue::F64(f) => Arg::Scalar(f.to_bits()),
        })
        .collect();
    let out = run(&module, k, &Launch::new(case.grid, case.block, args))
        .map_err(|e| format!("does not run: {e}"))?;
    let params = &module.kernels[k].params;
    for (name, want) in &case.expected {
        let i = params
            .iter()
            .position(|p| &p.name == name)
            .ok_or("parameter missing")?;
        let got = out.buffer(i).ok_or("no buffer")?;
        if got != want.as_slice() {
            let at = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(0);
            return Err(format!(
                "buffer '{name}' differs from byte {at}: got {:02x?}, want {:02x?}",
                &got[at..(at + 8).min(got.len())],
                &want[at..(at + 8).min(want.len())]
            ));
        }
    }
    Ok(())
}

#[test]
fn random_kernels_agree_with_the_reference() {
    let n = seeds();
    let configs = [
        Config {
            // A work-item that returned takes no part in later barriers in the generator's
            // model; in the IR's (OpenCL's) a barrier must be reached by all or none.
            divergent_returns_before_barriers: false,
            ..Config::default()
        },
        Config::host_c(),
    ];
    let mut failures = Vec::new();
    // `CLSMITH_ONLY=SEED` runs one seed and prints its program.
    let only: Option<u64> = std::env::var("CLSMITH_ONLY")
        .ok()
        .and_then(|v| v.parse().ok());
    let range = match only {
        Some(s) => s..s + 1,
        None => 0..n,
    };
    for seed in range {
        let config = &configs[(seed % 2) as usize];
        let case = match warpkit_clsmith::generate(seed, config) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("seed {seed}: the generator failed: {e}"));
                continue;
            }
        };
        if only.is_some() {
            println!("{}", case.source);
        }
        for level in [opt::OptLevel::O0, opt::OptLevel::O2] {
            if let Err(e) = check(&case, level) {
                failures.push(format!("seed {seed} at {level:?}: {e}"));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} seeds failed:\n{}",
        failures.len(),
        failures[..failures.len().min(8)].join("\n")
    );
}
