//! `warpkit run`: assemble or load a kernel, launch it on the functional model (docs/abi.md),
//! report how each warp stopped, hazards and a summary, and optionally dump the final state,
//! a commit trace and output buffers.

pub use crate::launch_args::MAX_THREADS;
use crate::launch_args::{setup_failure, LaunchArgs};
use crate::output::{check_distinct, check_output_path, write_error, write_output, OutputFile};
use crate::run_report::{hazards_json, report, summary, Shown};
use crate::signals::Interrupts;
use crate::{Failure, Outcome};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use warpkit_asm::LineTable;
use warpkit_host::ArgValue;
use warpkit_sim::{dump_states_json, Interrupt, TraceFormat, WriteTracer};

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceFormatArg {
    /// JSON Lines, one object per executed instruction (docs/trace.md).
    Json,
    /// Compact human-readable lines, like Spike's --log-commits.
    Text,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// After a successful run (exit 0), write buffer NAME to FILE; a failed run leaves FILE
    /// as it was.
    #[arg(long = "out", value_name = "NAME=FILE")]
    pub outs: Vec<String>,
    /// Exit 1 when the model reports a register hazard (§2.6).
    #[arg(long)]
    pub strict_hazards: bool,
    /// After the run, write the state of every warp as JSON to PATH (`-` = stdout); also
    /// after a trap, the step limit or a deadlock, never after bad input.
    #[arg(long, value_name = "PATH")]
    pub dump_state: Option<PathBuf>,
    /// Write the commit log to PATH (`-` = stdout) as the run goes (`tail -f` follows it);
    /// as --dump-state, also for a run that trapped or hit a limit.
    #[arg(long, value_name = "PATH")]
    pub trace: Option<PathBuf>,
    /// Print at most N groups of traps and of step limits (warps stopped at one pc, for
    /// one cause, make one group: one line with the count and the first warp).
    #[arg(long, value_name = "N", default_value_t = crate::run_report::DEFAULT_MAX_REPORTS, value_parser = crate::numbers::usize_arg)]
    pub max_reports: usize,
    /// Print at most N groups of hazards (grouped by pc, register and pending write).
    #[arg(long, value_name = "N", default_value_t = crate::run_report::DEFAULT_MAX_HAZARDS, value_parser = crate::numbers::usize_arg)]
    pub max_hazards: usize,
    /// Write every hazard the model kept (at most 256 per warp; `total` counts them all)
    /// as JSON to PATH (`-` = stdout), whatever the run's outcome.
    #[arg(long, value_name = "PATH")]
    pub hazards_json: Option<PathBuf>,
    /// Form of the commit log.
    #[arg(long, value_enum, default_value = "json")]
    pub trace_format: TraceFormatArg,
    /// Stop the run (exit 1) when the trace would grow past this many bytes: the trace
    /// keeps what was written, cut at a record boundary, with a last record saying so.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_TRACE_BYTES, value_parser = crate::numbers::u64_arg)]
    pub max_trace_bytes: u64,
    /// Write a profile (docs/profiling.md): FILE.json, FILE.html (self-contained page), or
    /// the text report (any other name; `-` = stdout).
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Write a timeline of the launch in the Trace Event Format (Perfetto,
    /// chrome://tracing); its clock counts instructions (docs/profiling.md).
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,
    /// Stop the run once the whole grid has attempted N instructions since the launch
    /// began, counted in the model's fixed order (workgroups in flat order, each to its
    /// end; a workgroup's warps in their schedule), so the cut never depends on --threads;
    /// save it to --save-checkpoint and exit 0 (docs/checkpoints.md).
    #[arg(long, value_name = "N", requires = "save_checkpoint", conflicts_with_all = ["profile", "timeline"], value_parser = crate::numbers::u64_arg)]
    pub stop_after_steps: Option<u64>,
    /// Write a checkpoint to FILE where --stop-after-steps stops the run (or at its end,
    /// if it ends first); `warpkit run --resume FILE` goes on from there.
    #[arg(long, value_name = "FILE", requires = "stop_after_steps")]
    pub save_checkpoint: Option<PathBuf>,
    /// Go on with the run saved in checkpoint FILE instead of launching a kernel. The
    /// checkpoint holds the program, the launch and its limits; give the outputs (--out,
    /// --dump-state, --trace, ...) and --threads again. The result is the one the run
    /// would have had without stopping.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "grid", "block", "args", "shared", "max_steps", "max_total_steps", "entry", "max_memory", "max_workgroups", "profile", "timeline"])]
    pub resume: Option<PathBuf>,
}

/// Default of `--max-trace-bytes`: 1 GiB.
pub const DEFAULT_MAX_TRACE_BYTES: u64 = 1 << 30;

/// Run `f`, showing a progress bar of finished workgroups on stderr once it has taken a
/// second, if stderr is a terminal; the bar is erased when `f` returns.
pub(crate) fn with_progress<R>(total: u64, f: impl FnOnce(&AtomicU64) -> R) -> R {
    let done = AtomicU64::new(0);
    if !std::io::stderr().is_terminal() || crate::quiet() {
        return f(&done);
    }
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let shower = scope.spawn(|| {
            let start = Instant::now();
            let mut bar: Option<ProgressBar> = None;
            while !finished.load(Ordering::Relaxed) {
                std::thread::park_timeout(Duration::from_millis(100));
                if finished.load(Ordering::Relaxed) || start.elapsed() < Duration::from_secs(1) {
                    continue;
                }
                let b = bar.get_or_insert_with(|| {
                    let b =
                        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
                        .with_elapsed(start.elapsed());
                    b.set_style(
                        ProgressStyle::with_template(
                            "running [{bar:40}] {pos}/{len} workgroups, {elapsed} elapsed, about {eta} left",
                        )
                        .map(|s| s.progress_chars("=> "))
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    b
                });
                b.set_position(done.load(Ordering::Relaxed));
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
        });
        let r = f(&done);
        finished.store(true, Ordering::Relaxed);
        shower.thread().unpark();
        r
    })
}

/// Whether a bare run faulted where a kernel written for the ABI would look for its
/// arguments: near address 0 (u[0:1] never set) or in the argument block.
fn bare_fault(r: &warpkit_host::LaunchResult) -> bool {
    use warpkit_sim::launch::ARGS_BASE;
    r.traps.iter().any(|t| {
        t.address
            .is_some_and(|(a, _)| a < 0x1_0000 || (ARGS_BASE..ARGS_BASE + 0x1_0000).contains(&a))
    })
}

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
    for text in &args.launch.args {
        if let Some((_, file)) = text.split_once("=@") {
            inputs.push(("--arg file", Path::new(file)));
        }
    }
    check_distinct(&outputs, &inputs)?;
    if let Some(path) = &args.resume {
        return crate::checkpoint_cmd::resume(&args, path, &outs);
    }
    let mut launch = args.launch.launch(args.dump_state.is_some())?;
    args.launch.add_args(&mut launch)?;
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
    let object = args.launch.load(&mut launch)?;
    let interrupts = Interrupts::install();
    launch.cancel(interrupts.cancel.clone());
    if args.stop_after_steps.is_some() {
        crate::checkpoint_cmd::keep_warps_for_resume(&mut launch);
    }
    let prepared = launch.prepare(&object).map_err(setup_failure)?;
    if let Some(steps) = args.stop_after_steps {
        let shown = Shown {
            max_reports: args.max_reports,
            max_hazards: args.max_hazards,
            max_steps: args.launch.max_steps,
            max_total_steps: args.launch.max_total_steps,
            quiet: crate::quiet(),
        };
        let session = prepared
            .session()
            .map_err(|e| Failure::BadInput(e.to_string()))?;
        let ran = crate::checkpoint_cmd::drive(&args, session, Some(steps), &object.lines)?;
        return conclude(
            &args,
            &outs,
            ran,
            &shown,
            !launch_options,
            &interrupts,
            &object.lines,
        );
    }
    let bad_launch = |e: warpkit_sim::launch::LaunchError| Failure::BadInput(e.to_string());
    let total = prepared.workgroups();
    let (result, trace_error) = match &args.trace {
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
    let shown = Shown {
        max_reports: args.max_reports,
        max_hazards: args.max_hazards,
        max_steps: args.launch.max_steps,
        max_total_steps: args.launch.max_total_steps,
        quiet: crate::quiet(),
    };
    conclude(
        &args,
        &outs,
        Ran::Finished(result, trace_error),
        &shown,
        !launch_options,
        &interrupts,
        &object.lines,
    )
}

pub fn trace_format(arg: TraceFormatArg) -> TraceFormat {
    match arg {
        TraceFormatArg::Json => TraceFormat::Json,
        TraceFormatArg::Text => TraceFormat::Text,
    }
}

/// How a run went: to its end (with the trace writer's failure, if any), or to a
/// checkpoint that was saved.
pub enum Ran {
    Finished(warpkit_host::LaunchResult, Option<Failure>),
    Saved {
        path: PathBuf,
        steps: u64,
        workgroups: (u64, u64),
        trace_error: Option<Failure>,
    },
}

/// Report the run and write its outputs; `bare` if it was launched without launch
/// options.
pub fn conclude(
    args: &Args,
    outs: &[(String, PathBuf)],
    ran: Ran,
    shown: &Shown,
    bare: bool,
    interrupts: &Interrupts,
    lines: &LineTable,
) -> Outcome {
    let (result, trace_error) = match ran {
        Ran::Finished(result, trace_error) => (result, trace_error),
        Ran::Saved {
            path,
            steps,
            workgroups: (done, total),
            trace_error,
        } => {
            if let Some(e) = trace_error {
                return Err(match e {
                    Failure::Runtime(m) => {
                        report!("error: {m}");
                        Failure::Exit(1)
                    }
                    other => other,
                });
            }
            if !shown.quiet {
                report!(
                    "checkpoint: saved {} after {steps} steps ({done} of {total} workgroups \
                     finished); go on with `warpkit run --resume {}`",
                    path.display(),
                    path.display()
                );
            }
            let unwritten: Vec<&str> = [
                ("--out", !outs.is_empty()),
                ("--dump-state", args.dump_state.is_some()),
                ("--hazards-json", args.hazards_json.is_some()),
            ]
            .iter()
            .filter(|(_, given)| *given)
            .map(|(name, _)| *name)
            .collect();
            if !unwritten.is_empty() {
                report!(
                    "note: the run stopped at the checkpoint, so {} {} not written; give {} to \
                     the resumed run",
                    unwritten.join(", "),
                    if unwritten.len() == 1 { "was" } else { "were" },
                    if unwritten.len() == 1 { "it" } else { "them" }
                );
            }
            return Ok(());
        }
    };
    report(&result, shown, lines);
    if bare && bare_fault(&result) {
        report!(
            "note: no launch options were given, so this was a bare run: every register \
             started at 0 and there is no argument block (u[0:1] = 0); give --grid, --block \
             and --arg NAME=VALUE to launch as docs/abi.md describes"
        );
    }
    if !shown.quiet {
        summary(&result);
    }
    if let Some(path) = &args.hazards_json {
        write_output(path, hazards_json(&result, lines).as_bytes())?;
    }
    match result.interrupted {
        Some(Interrupt::Cancelled) => {
            report!("error: interrupted; the run was stopped and no result was written");
            if let Some(path) = args.trace.as_deref().filter(|p| p.as_os_str() != "-") {
                report!(
                    "note: the trace {} holds the run up to there",
                    path.display()
                );
            }
            return Err(Failure::Exit(interrupts.exit_status()));
        }
        Some(Interrupt::TraceLimit { max_bytes }) => report!(
            "error: the trace reached its limit of {max_bytes} bytes (--max-trace-bytes); the \
             run was stopped there and the trace ends with a record saying so; lower \
             --max-steps or raise --max-trace-bytes BYTES"
        ),
        Some(Interrupt::TraceWriteFailed) | None => {}
    }
    // A trace that could not be written stopped the run: say so (quietly for a closed
    // pipe), and write nothing else.
    if let Some(e) = trace_error {
        return Err(match e {
            Failure::Runtime(m) => {
                report!("error: {m}; the run was stopped");
                Failure::Exit(1)
            }
            other => other,
        });
    }
    if let Some(path) = &args.dump_state {
        let text = dump_states_json(result.warps.iter().zip(&result.cores));
        write_output(path, text.as_bytes())?;
    }
    let hazard_failure = args.strict_hazards && result.stats.hazards > 0;
    let success = result.ok() && !hazard_failure;
    // Results only from a run that succeeded: a partial buffer must not pass for a result.
    if success {
        for (name, file) in outs {
            if let Some(bytes) = result.buffer(name) {
                write_output(file, &bytes)?;
            }
        }
        return Ok(());
    }
    if hazard_failure && result.ok() {
        report!(
            "error: {} hazard(s) reported and --strict-hazards is set",
            result.stats.hazards
        );
    }
    if !outs.is_empty() {
        report!("note: the run failed, so the --out files were not written");
    }
    Err(Failure::Exit(1))
}

#[cfg(test)]
mod tests_support {
    use super::*;
    use crate::launch_args::{DEFAULT_MAX_MEMORY, DEFAULT_MAX_WORKGROUPS};
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
                grid: None,
                block: None,
                args: Vec::new(),
                shared: None,
                threads: 0,
                max_steps: DEFAULT_MAX_STEPS,
                max_total_steps: None,
                entry: None,
                max_memory: DEFAULT_MAX_MEMORY,
                max_workgroups: DEFAULT_MAX_WORKGROUPS,
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
        a.launch.max_steps = 50;
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
        a_.launch.grid = Some("2".into());
        a_.launch.block = Some("32,1,1".into());
        a_.launch.args = vec![format!("in=@{}", a.display()), "out=buf:256".into()];
        a_.outs = vec![format!("out={}", out.display())];
        a_.launch.threads = 2;
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
        a.launch.entry = Some("start".into());
        a.dump_state = Some(dump.clone());
        assert_eq!(exit_code(run(a)), 0);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
        assert_eq!(
            (v["warps"][0]["u"][1].clone(), v["warps"][0]["u"][2].clone()),
            (0.into(), 2.into())
        );
        let mut a = args(src);
        a.launch.entry = Some("nowhere".into());
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
        a.launch.args = vec!["x=buf:8".into()];
        assert_eq!(exit_code(run(a)), 0, "hazards only warn by default");
        let mut a = args(src.clone());
        a.launch.args = vec!["x=buf:8".into()];
        a.strict_hazards = true;
        assert_eq!(exit_code(run(a)), 1);
        let mut a = args(src.clone());
        a.launch.grid = Some("0".into());
        assert_eq!(exit_code(run(a)), 2);
        let mut a = args(src.clone());
        a.launch.block = Some("64,32".into());
        assert_eq!(exit_code(run(a)), 2, "2048 threads");
        let mut a = args(src.clone());
        a.launch.args = vec!["x".into()];
        assert_eq!(exit_code(run(a)), 2);
        let mut a = args(src);
        a.outs = vec!["nothere=x.bin".into()];
        assert_eq!(exit_code(run(a)), 2);
    }
}
