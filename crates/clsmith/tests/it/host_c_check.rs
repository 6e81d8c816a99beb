//! The interpreter against a host C compiler: kernels without `__local` memory, compiled
//! with the prelude of `host_c.rs` by `cc -O1 -fwrapv -ffp-contract=off`, run one
//! work-item after another; every final buffer must match the interpreter's bit for bit.
//! `CLSMITH_CC_SEEDS=N` runs more seeds (default 48), `CLSMITH_CC_BASE=S` starts elsewhere.

use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use warpkit_clsmith::interp::value::ShiftRule;
use warpkit_clsmith::{ArgValue, Config};

use crate::host_c;

fn have_cc() -> bool {
    Command::new("cc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Compiles and runs one case; `Err` describes the disagreement.
fn check_seed(seed: u64, dir: &std::path::Path) -> Result<(), String> {
    let config = Config::host_c();
    let case = warpkit_clsmith::generate(seed, &config).map_err(|e| format!("seed {seed}: {e}"))?;
    // C's shift rule: every count the program uses is in range, so C gives it a meaning.
    let g = warpkit_clsmith::generate_program(seed, &config).map_err(|e| e.to_string())?;
    let values: Vec<ArgValue> = g.args.iter().map(|a| a.value.clone()).collect();
    let opts = warpkit_clsmith::interp::Options {
        shift_rule: ShiftRule::C,
        ..Default::default()
    };
    warpkit_clsmith::interp::run(&g.program, g.kernel, g.grid, g.block, &values, &opts)
        .map_err(|t| format!("seed {seed}: shift count outside C's range: {t}"))?;

    let c = dir.join(format!("case{seed}.c"));
    let exe = dir.join(format!("case{seed}"));
    std::fs::write(&c, host_c::program(&case)).map_err(|e| e.to_string())?;
    let out = Command::new("cc")
        .args([
            "-std=c11",
            "-O1",
            "-fwrapv",
            "-ffp-contract=off",
            "-fno-strict-aliasing",
            "-fsigned-char",
            "-w",
            "-o",
        ])
        .arg(&exe)
        .arg(&c)
        .arg("-lm")
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "seed {seed}: cc failed on {}:\n{}",
            c.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let run = Command::new(&exe).output().map_err(|e| e.to_string())?;
    if !run.status.success() {
        return Err(format!(
            "seed {seed}: the C program failed: {:?}",
            run.status
        ));
    }
    let buffers = host_c::parse_output(&String::from_utf8_lossy(&run.stdout));
    case.check(&buffers).map_err(|m| {
        format!(
            "seed {seed}: C and the interpreter differ: {m} (program {})",
            c.display()
        )
    })?;
    let _ = std::fs::remove_file(&c);
    let _ = std::fs::remove_file(&exe);
    Ok(())
}

#[test]
fn interpreter_agrees_with_a_c_compiler() {
    if !have_cc() {
        eprintln!("skipped: no `cc` on PATH (.ci/run installs gcc)");
        return;
    }
    let n = crate::env_u64("CLSMITH_CC_SEEDS", 48);
    let base = crate::env_u64("CLSMITH_CC_BASE", 0);
    let dir = crate::scratch("cc");
    let next = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                if let Err(e) = check_seed(base + i, &dir) {
                    failures.lock().expect("lock").push(e);
                }
            });
        }
    });
    let failures = failures.into_inner().expect("lock");
    assert!(
        failures.is_empty(),
        "{} of {n} seeds disagree:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `CLSMITH_CC_TRACE=SEED[:LANE]`: prints the `ck_mix` calls of one work-item under C and
/// under the interpreter (the helper calls the interpreter records), to find the first
/// value on which they part.
#[test]
fn trace_one_seed() {
    let Ok(spec) = std::env::var("CLSMITH_CC_TRACE") else {
        return;
    };
    let (seed, lane) = match spec.split_once(':') {
        Some((s, l)) => (s.parse().expect("seed"), l.parse().expect("lane")),
        None => (spec.parse().expect("seed"), 0u32),
    };
    let config = Config::host_c();
    let case = warpkit_clsmith::generate(seed, &config).expect("case");
    let g = warpkit_clsmith::generate_program(seed, &config).expect("program");
    let values: Vec<ArgValue> = g.args.iter().map(|a| a.value.clone()).collect();
    let opts = warpkit_clsmith::interp::Options {
        trace_lane: Some(lane),
        ..Default::default()
    };
    let (_, trace) =
        warpkit_clsmith::interp::run_traced(&g.program, g.kernel, g.grid, g.block, &values, &opts);
    for t in &trace {
        println!("interp: {t}");
    }
    let dir = crate::scratch("trace");
    let mut prog = host_c::program(&case);
    let lin =
        "(wk_gid[0] + wk_lsz[0] * wk_ngr[0] * (wk_gid[1] + wk_lsz[1] * wk_ngr[1] * wk_gid[2]))";
    prog = prog.replacen(
        "ulong ck_mix(ulong h, ulong v)\n{\n",
        &format!("ulong ck_mix(ulong h, ulong v)\n{{\n    if ({lin} == {lane}) printf(\"ck_mix((ulong)%lu, (ulong)%lu)\\n\", h, v);\n"),
        1,
    );
    let c = dir.join("trace.c");
    std::fs::write(&c, prog).expect("write");
    let exe = dir.join("trace");
    let st = Command::new("cc")
        .args([
            "-std=c11",
            "-O1",
            "-fwrapv",
            "-ffp-contract=off",
            "-fno-strict-aliasing",
            "-fsigned-char",
            "-w",
            "-o",
        ])
        .arg(&exe)
        .arg(&c)
        .arg("-lm")
        .status()
        .expect("cc");
    assert!(st.success());
    let out = Command::new(&exe).output().expect("run");
    for l in String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("ck_mix"))
    {
        println!("c:      {l}");
    }
    println!("C program: {}", c.display());
}
