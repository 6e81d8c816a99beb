//! The compiler's differential test under the fuzzer: the input picks a `warpkit-clsmith`
//! seed and a few generator switches; the random kernel is compiled by `warpkit-cc` (at the
//! optimisation level the input picks), loaded and launched through the host library as
//! `warpkit run k.cl` does, on both engines, and every `__global` buffer must equal what
//! the generator's reference interpreter computed. A generated program with undefined
//! behaviour, a compile or assembly error, a trap, a hazard or a different byte is a failure.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_clsmith::{ArgValue as CaseArg, Config, TestCase};
use warpkit_host::{compile_opencl, Launch, Limits, ParamValue};
use warpkit_sim::launch::ArgValue;
use warpkit_sim::Engine;

/// The configuration the input's second byte selects: every feature by default, fewer
/// statements and smaller launches so one execution stays well under a second.
fn config(bits: u8) -> Config {
    let mut c = Config {
        max_stmts: 12 + u32::from(bits & 0x0f),
        max_work_items: 256,
        ..Config::default()
    };
    c.floats = bits & 0x10 == 0;
    c.doubles = c.floats && bits & 0x20 == 0;
    c.structs = bits & 0x40 == 0;
    c.local_memory = bits & 0x80 == 0;
    c
}

/// Compile, launch on `engine` and return the buffers by name, or why that failed.
fn run(case: &TestCase, level: warpkit_cc::OptLevel, engine: Engine) -> Result<Vec<(String, Vec<u8>)>, String> {
    let options = warpkit_cc::Options {
        kernels: Some(vec![case.kernel.clone()]),
        opt_level: level,
        ..warpkit_cc::Options::default()
    };
    let program = compile_opencl(case.source.as_bytes(), "case.cl", &options).map_err(|e| e.to_string())?;
    let info = program.kernel(&case.kernel).ok_or("the kernel has no metadata")?;
    let mut launch = Launch::new(Limits::default());
    launch.kernel(info).map_err(|e| e.to_string())?;
    launch.grid(case.grid).map_err(|e| e.to_string())?;
    launch.block(case.block).map_err(|e| e.to_string())?;
    launch.threads(1).map_err(|e| e.to_string())?;
    launch.max_steps(20_000_000).map_err(|e| e.to_string())?;
    for a in &case.args {
        let value = match &a.value {
            CaseArg::Buffer(bytes) => ParamValue::Buffer(ArgValue::Buffer(bytes.clone())),
            CaseArg::Local(bytes) => ParamValue::Local(u64::from(*bytes)),
            CaseArg::Int { value, .. } => ParamValue::Int(*value),
            CaseArg::F32(x) => ParamValue::Float(f64::from(*x)),
            CaseArg::F64(x) => ParamValue::Float(*x),
        };
        launch.param(&a.name, value).map_err(|e| e.to_string())?;
    }
    let mut prepared = launch.prepare(&program).map_err(|e| e.to_string())?;
    prepared.engine(engine);
    let r = prepared.run().map_err(|e| e.to_string())?;
    if !r.traps.is_empty() || !r.step_limits.is_empty() || !r.deadlocks.is_empty() {
        return Err(format!(
            "traps {:?}, step limits {:?}, deadlocks {:?}",
            r.traps, r.step_limits, r.deadlocks
        ));
    }
    if !r.hazards.is_empty() {
        return Err(format!("hazards: {:?}", r.hazards));
    }
    Ok(r.buffers.iter().map(|b| (b.name.clone(), b.bytes.to_vec())).collect())
}

fuzz_target!(|bytes: &[u8]| {
    if bytes.len() < 10 {
        return;
    }
    let seed = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    let level = match bytes[9] % 3 {
        0 => warpkit_cc::OptLevel::O0,
        1 => warpkit_cc::OptLevel::O1,
        _ => warpkit_cc::OptLevel::O2,
    };
    let case = match warpkit_clsmith::generate(seed, &config(bytes[8])) {
        Ok(case) => case,
        Err(e) => panic!("the generator failed: {e}"),
    };
    for engine in [Engine::Interp, Engine::Jit] {
        let outcome = run(&case, level, engine)
            .and_then(|got| case.check(&got).map_err(|m| m.to_string()));
        if let Err(why) = outcome {
            panic!(
                "seed {seed} at {level:?} on {engine:?}: {why}\n{}",
                case.source
            );
        }
    }
});
