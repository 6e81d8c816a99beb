//! What a plain run and a checkpointed one share: the progress bar, the trace format, how
//! a run went ([`Ran`]) and how it is reported and its outputs written ([`conclude`]).
//! `run_cmd.rs` and `checkpoint_cmd.rs` both drive launches through it, so it sits below
//! them.

use crate::failure::{Failure, Outcome};
use crate::output::write_output;
use crate::run_args::{Args, TraceFormatArg};
use crate::run_report::{hazards_json, report, summary, Shown};
use crate::signals::Interrupts;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use warpkit_asm::LineTable;
use warpkit_sim::{dump_states_json, Interrupt, TraceFormat};

/// What the report of a run shows, from its options and the launch's step limits.
pub fn shown(args: &Args, max_steps: u64, max_total_steps: Option<u64>) -> Shown {
    Shown {
        max_reports: args.max_reports,
        max_hazards: args.max_hazards,
        max_steps,
        max_total_steps,
        quiet: crate::verbosity::quiet(),
    }
}

/// Run `f`, showing a progress bar of finished workgroups on stderr once it has taken a
/// second, if stderr is a terminal; the bar is erased when `f` returns.
pub(crate) fn with_progress<R>(total: u64, f: impl FnOnce(&AtomicU64) -> R) -> R {
    let done = AtomicU64::new(0);
    if !std::io::stderr().is_terminal() || crate::verbosity::quiet() {
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

pub fn trace_format(arg: TraceFormatArg) -> TraceFormat {
    match arg {
        TraceFormatArg::Json => TraceFormat::Json,
        TraceFormatArg::Text => TraceFormat::Text,
    }
}

/// How a run went: to its end (with the trace writer's failure, if any), or to a
/// checkpoint that was saved.
pub enum Ran {
    Finished(Box<warpkit_host::LaunchResult>, Option<Failure>),
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
        Ran::Finished(result, trace_error) => (*result, trace_error),
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
