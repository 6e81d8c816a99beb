//! `warpkit run`: assemble or load a kernel, launch it on the functional model (docs/abi.md),
//! report how each warp stopped, hazards and a summary, and optionally dump the final state,
//! a commit trace and output buffers.

use crate::failure::{Failure, Outcome};
use crate::launch_args::setup_failure;
use crate::output::{check_distinct, check_output_path, write_error, OutputFile};
pub use crate::run_args::Args;
use crate::run_driver::{conclude, shown, trace_format, with_progress, Ran};
use crate::signals::Interrupts;
use std::path::{Path, PathBuf};
use warpkit_host::ArgValue;
use warpkit_sim::WriteTracer;

/// The options that name files to write, with the flag naming each.
fn output_paths<'a>(
    args: &'a Args,
    outs: &'a [(String, PathBuf)],
) -> Vec<(&'static str, &'a Path)> {
    let mut outputs: Vec<(&str, &Path)> = Vec::new();
    if let Some(p) = &args.dump_state {
        outputs.push(("--dump-state", p));
    }
    if let Some(p) = &args.trace {
        outputs.push(("--trace", p));
    }
    if let Some(p) = &args.hazards_json {
        outputs.push(("--hazards-json", p));
    }
    if let Some(p) = &args.profile {
        outputs.push(("--profile", p));
    }
    if let Some(p) = &args.timeline {
        outputs.push(("--timeline", p));
    }
    if let Some(p) = &args.save_checkpoint {
        outputs.push(("--save-checkpoint", p));
    }
    if let Some(p) = &args.timing.timing_json {
        outputs.push(("--timing-json", p));
    }
    for (_, file) in outs {
        outputs.push(("--out", file));
    }
    outputs
}

/// The `--out NAME=FILE` pairs.
fn parse_outs(texts: &[String]) -> Result<Vec<(String, PathBuf)>, Failure> {
    let mut outs: Vec<(String, PathBuf)> = Vec::new();
    for o in texts {
        let (name, file) = o
            .split_once('=')
            .ok_or_else(|| Failure::BadInput(format!("--out {o}: expected NAME=FILE")))?;
        if name.is_empty() || file.is_empty() {
            return Err(Failure::BadInput(format!("--out {o}: expected NAME=FILE")));
        }
        if outs.iter().any(|(n, _)| n == name) {
            return Err(Failure::BadInput(format!(
                "--out {o}: buffer `{name}` is already written by another --out"
            )));
        }
        outs.push((name.to_string(), PathBuf::from(file)));
    }
    Ok(outs)
}

pub fn run(args: Args) -> Outcome {
    let launch_options = args.launch.launch_options();
    let outs = parse_outs(&args.outs)?;
    let profiling = args.profile.is_some() || args.timeline.is_some();
    if profiling && args.trace.is_some() {
        return Err(Failure::BadInput(
            "--trace cannot be combined with --profile or --timeline: run twice".into(),
        ));
    }
    // Every output is checked before any work, so a bad path fails fast and cannot leave
    // some outputs written and others not.
    let outputs = output_paths(&args, &outs);
    for (option, path) in &outputs {
        check_output_path(option, path)?;
    }
    // No output may be an input, under any spelling: the kernel (or checkpoint) and every
    // --arg NAME=@FILE.
    let mut inputs: Vec<(&str, &Path)> = match &args.resume {
        Some(path) => vec![("--resume", path.as_path())],
        None => vec![("kernel", args.launch.file())],
    };
    for text in &args.launch.options.args {
        if let Some((_, file)) = text.split_once("=@") {
            inputs.push(("--arg file", Path::new(file)));
        }
    }
    if let Some(path) = &args.timing.machine {
        inputs.push(("--machine", path));
    }
    check_distinct(&outputs, &inputs)?;
    // A bad machine file fails before anything is loaded or run.
    let machine = args
        .timing
        .enabled()
        .then(|| args.timing.machine())
        .transpose()?;
    if let Some(path) = &args.resume {
        return crate::checkpoint_cmd::resume(&args, path, &outs);
    }
    let mut launch = args.launch.launch(args.dump_state.is_some())?;
    // The kernel first: its metadata says how to read the arguments.
    let object = args.launch.load(&mut launch)?;
    args.launch.add_args(&mut launch)?;
    let from_file = args.launch.file_launch(&mut launch)?;
    // A kernel launched by its metadata, or by its source's `.launch`, is never bare.
    let bare = !launch_options && !from_file && launch.kernel_info().is_none();
    for (name, _) in &outs {
        match launch.args().iter().find(|a| &a.name == name) {
            Some(a) if matches!(a.value, ArgValue::Buffer(_)) => {}
            Some(_) => {
                return Err(Failure::BadInput(format!(
                    "--out {name}=...: argument `{name}` is an integer, not a buffer"
                )))
            }
            None => {
                return Err(Failure::BadInput(format!(
                    "--out {name}=...: there is no buffer argument `{name}`"
                )))
            }
        }
    }
    let interrupts = Interrupts::install();
    launch.cancel(interrupts.cancel.clone());
    if args.stop_after_steps.is_some() {
        crate::checkpoint_cmd::keep_warps_for_resume(&mut launch);
    }
    // The kernel's name in the timing report: its metadata's, else the file's stem.
    let kernel = launch.kernel_info().map_or_else(
        || {
            args.launch
                .file()
                .file_stem()
                .map_or("kernel".into(), |s| s.to_string_lossy().into_owned())
        },
        |k| k.name.clone(),
    );
    let prepared = launch.prepare(&object).map_err(setup_failure)?;
    if let Some(steps) = args.stop_after_steps {
        let shown = shown(
            &args,
            args.launch.options.max_steps,
            args.launch.options.max_total_steps,
        );
        let session = prepared
            .session()
            .map_err(|e| Failure::BadInput(e.to_string()))?;
        let ran = crate::checkpoint_cmd::drive(&args, session, Some(steps), &object.lines)?;
        return conclude(&args, &outs, ran, &shown, bare, &interrupts, &object.lines);
    }
    let bad_launch = |e: warpkit_sim::launch::LaunchError| Failure::BadInput(e.to_string());
    let total = prepared.workgroups();
    let mut timing = None;
    let (result, trace_error) = match &args.trace {
        None if machine.is_some() => {
            let sources = crate::profile_cmd::source_map(&object, args.launch.file());
            let title = args.launch.file().display().to_string();
            let outputs = crate::timing_run::TimedOutputs {
                profile: args.profile.as_deref(),
                timeline: args.timeline.as_deref(),
                sources: &sources,
                title: &title,
                machine: &args.timing.label(),
            };
            let machine = machine.unwrap_or_default();
            let (r, report) = crate::timing_run::run_timed(prepared, machine, &kernel, &outputs)?;
            timing = Some(report);
            (r, None)
        }
        None if profiling => {
            let sources = crate::profile_cmd::source_map(&object, args.launch.file());
            let r = crate::profile_cmd::run_profiled(
                prepared,
                &sources,
                args.profile.as_deref(),
                args.timeline.as_deref(),
                &args.launch.file().display().to_string(),
            )?;
            (r, None)
        }
        None => {
            let r = with_progress(total, |done| prepared.run_with_progress(done))
                .map_err(bad_launch)?;
            (r, None)
        }
        Some(path) => {
            let format = trace_format(args.trace_format);
            let file = OutputFile::create_streamed(path)?;
            let mut tracer = WriteTracer::new(file, format).with_max_bytes(args.max_trace_bytes);
            let r = prepared.run_with_tracer(&mut tracer).map_err(bad_launch)?;
            let error = match tracer.finish() {
                Ok(file) => file.commit().err(),
                Err(e) => Some(write_error(path, &e)),
            };
            (r, error)
        }
    };
    let shown = shown(
        &args,
        args.launch.options.max_steps,
        args.launch.options.max_total_steps,
    );
    let cancelled = matches!(result.interrupted, Some(warpkit_sim::Interrupt::Cancelled));
    let outcome = conclude(
        &args,
        &outs,
        Ran::Finished(Box::new(result), trace_error),
        &shown,
        bare,
        &interrupts,
        &object.lines,
    );
    // The timing report follows the run's own report, whatever its outcome (a run that
    // trapped is timed up to its traps), unless the run was interrupted or its input bad.
    match (timing, &outcome) {
        (Some(report), Ok(()) | Err(Failure::Exit(1) | Failure::Runtime(_))) if !cancelled => {
            let emitted = crate::timing_run::emit(&args.timing, &report);
            outcome.and(emitted)
        }
        _ => outcome,
    }
}

#[cfg(test)]
mod tests_support {
    use super::*;
    use crate::launch_args::{
        LaunchArgs, LaunchOptions, DEFAULT_MAX_MEMORY, DEFAULT_MAX_WORKGROUPS,
    };
    use crate::run_args::{TraceFormatArg, DEFAULT_MAX_TRACE_BYTES};
    use warpkit_sim::DEFAULT_MAX_STEPS;

    pub fn tmp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("warpkit-run-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    pub fn args(file: PathBuf) -> Args {
        Args {
            launch: LaunchArgs {
                file: Some(file),
                options: LaunchOptions {
                    grid: None,
                    block: None,
                    args: Vec::new(),
                    shared: None,
                    scratch: None,
                    threads: 0,
                    max_steps: DEFAULT_MAX_STEPS,
                    max_total_steps: None,
                    entry: None,
                    kernel: None,
                    max_memory: DEFAULT_MAX_MEMORY,
                    max_workgroups: DEFAULT_MAX_WORKGROUPS,
                    compile: Default::default(),
                },
                engine: None,
            },
            outs: Vec::new(),
            strict_hazards: false,
            dump_state: None,
            trace: None,
            trace_format: TraceFormatArg::Json,
            max_trace_bytes: DEFAULT_MAX_TRACE_BYTES,
            max_reports: crate::run_report::DEFAULT_MAX_REPORTS,
            max_hazards: crate::run_report::DEFAULT_MAX_HAZARDS,
            hazards_json: None,
            profile: None,
            timeline: None,
            stop_after_steps: None,
            save_checkpoint: None,
            resume: None,
            timing: Default::default(),
        }
    }

    pub fn exit_code(o: Outcome) -> u8 {
        match o {
            Ok(()) => 0,
            Err(Failure::Exit(c)) => c,
            Err(Failure::Runtime(_)) => 1,
            Err(Failure::BadInput(_)) => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::*;
    use super::*;

    #[test]
    fn runs_source_and_dumps_state() {
        let src = tmp("ok.s");
        std::fs::write(&src, "laneid v1\numovi u2, 5\nendpgm\n").unwrap();
        let dump = tmp("ok.json");
        let trace = tmp("ok.jsonl");
        let mut a = args(src);
        a.dump_state = Some(dump.clone());
        a.trace = Some(trace.clone());
        assert_eq!(exit_code(run(a)), 0);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
        let w = &v["warps"][0];
        assert_eq!(w["pc"], 8);
        assert_eq!(w["u"][2], 5);
        assert_eq!(w["v"][1][31], 31);
        assert_eq!(w["trap"], serde_json::Value::Null);
        let t = std::fs::read_to_string(&trace).unwrap();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].contains("\"version\":2"));
    }

    #[test]
    fn trap_exits_1_and_is_dumped() {
        let src = tmp("trap.s");
        std::fs::write(&src, "nop\numov.l u1, 0xffffffff\ncsrw mode, u1\nendpgm\n").unwrap();
        let dump = tmp("trap.json");
        let mut a = args(src);
        a.dump_state = Some(dump.clone());
        assert_eq!(exit_code(run(a)), 1);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
        assert_eq!(
            v["warps"][0]["trap"],
            serde_json::json!({"cause": 8, "pc": 12, "info": 4294967295u32})
        );
    }

    #[test]
    fn step_limit_exits_1() {
        let src = tmp("loop.s");
        std::fs::write(&src, "top:\n  jmp top\n").unwrap();
        let mut a = args(src);
        a.launch.options.max_steps = 50;
        assert_eq!(exit_code(run(a)), 1);
    }

    #[test]
    fn bad_input_exits_2() {
        let src = tmp("bad.s");
        std::fs::write(&src, "add v1, v2\n").unwrap();
        assert_eq!(exit_code(run(args(src))), 2);
        assert_eq!(exit_code(run(args(tmp("missing.s")))), 2);
        let elf = tmp("bad.elf");
        std::fs::write(&elf, b"\x7fELF garbage").unwrap();
        assert_eq!(exit_code(run(args(elf))), 2);
    }

    #[test]
    fn raw_binary_is_code() {
        let bin = tmp("prog.bin");
        // nop; endpgm
        let mut bytes = Vec::new();
        for op in [warpkit_isa::Op::Nop, warpkit_isa::Op::Endpgm] {
            bytes.extend(warpkit_isa::Instr::from_raw(op, &[]).unwrap().to_bytes());
        }
        std::fs::write(&bin, bytes).unwrap();
        assert_eq!(exit_code(run(args(bin.clone()))), 0);
        std::fs::write(&bin, [0xff, 0xff, 0xff, 0xff]).unwrap();
        assert_eq!(exit_code(run(args(bin))), 1);
    }
}

#[cfg(test)]
mod launch_tests {
    use super::tests_support::*;
    use super::*;

    #[test]
    fn grid_args_and_outputs() {
        let a = tmp("a.bin");
        std::fs::write(
            &a,
            (0..64u32)
                .flat_map(|i| i.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
        .unwrap();
        let src = tmp("double.s");
        std::fs::write(
            &src,
            "uload.b128 u[16:19], u[0:1], 0\nwaitcnt sm=0\nsll.vi v5, v3, 2\numul u23, u2, u8\nuslli u23, u23, 2\nadd.vu v5, v5, u23\ngload.b32 v6, v5, u[16:17], 0\nwaitcnt vm=0\nadd v6, v6, v6\ngstore.b32 v6, v5, u[18:19], 0\nendpgm\n",
        )
        .unwrap();
        let out = tmp("out.bin");
        let mut a_ = args(src);
        a_.launch.options.grid = Some("2".into());
        a_.launch.options.block = Some("32,1,1".into());
        a_.launch.options.args = vec![format!("in=@{}", a.display()), "out=buf:256".into()];
        a_.outs = vec![format!("out={}", out.display())];
        a_.launch.options.threads = 2;
        assert_eq!(exit_code(run(a_)), 0);
        let got = std::fs::read(&out).unwrap();
        let words: Vec<u32> = got
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words, (0..64u32).map(|i| 2 * i).collect::<Vec<_>>());
    }

    #[test]
    fn entry_symbol() {
        let src = tmp("entry.s");
        std::fs::write(&src, "umovi u1, 1\nendpgm\nstart:\numovi u2, 2\nendpgm\n").unwrap();
        let dump = tmp("entry.json");
        let mut a = args(src.clone());
        a.launch.options.entry = Some("start".into());
        a.dump_state = Some(dump.clone());
        assert_eq!(exit_code(run(a)), 0);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
        assert_eq!(
            (v["warps"][0]["u"][1].clone(), v["warps"][0]["u"][2].clone()),
            (0.into(), 2.into())
        );
        let mut a = args(src);
        a.launch.options.entry = Some("nowhere".into());
        assert_eq!(exit_code(run(a)), 2);
    }

    #[test]
    fn strict_hazards_and_bad_options() {
        let src = tmp("hazard.s");
        std::fs::write(
            &src,
            "uload.b64 u[16:17], u[0:1], 0\numov u20, u16\nendpgm\n",
        )
        .unwrap();
        let mut a = args(src.clone());
        a.launch.options.args = vec!["x=buf:8".into()];
        assert_eq!(exit_code(run(a)), 0, "hazards only warn by default");
        let mut a = args(src.clone());
        a.launch.options.args = vec!["x=buf:8".into()];
        a.strict_hazards = true;
        assert_eq!(exit_code(run(a)), 1);
        let mut a = args(src.clone());
        a.launch.options.grid = Some("0".into());
        assert_eq!(exit_code(run(a)), 2);
        let mut a = args(src.clone());
        a.launch.options.block = Some("64,32".into());
        assert_eq!(exit_code(run(a)), 2, "2048 threads");
        let mut a = args(src.clone());
        a.launch.options.args = vec!["x".into()];
        assert_eq!(exit_code(run(a)), 2);
        let mut a = args(src);
        a.outs = vec!["nothere=x.bin".into()];
        assert_eq!(exit_code(run(a)), 2);
    }
}
