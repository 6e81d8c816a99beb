//! `warpkit run --stop-after-steps N --save-checkpoint FILE` and `warpkit run --resume
//! FILE` (docs/checkpoints.md): a run stopped at a deterministic point, saved, and gone
//! on with later, with the results of a run that never stopped.

use crate::failure::{Failure, Outcome};
use crate::launch_args::MAX_THREADS;
use crate::output::{write_error, write_output, OutputFile};
use crate::run_args::Args;
use crate::run_driver::{conclude, shown, trace_format, with_progress, Ran};
use crate::signals::Interrupts;
use std::path::{Path, PathBuf};
use warpkit_asm::{LineRow, LineTable};
use warpkit_host::launch::{resume_threads, KEPT_BYTES_PER_WARP};
use warpkit_host::Launch;
use warpkit_sim::launch::checkpoint::{Checkpoint, SourceLines};
use warpkit_sim::launch::{Progress, Session};
use warpkit_sim::{Hooks, NoHooks, WriteTracer};

/// A checkpoint keeps the final state of the warps of finished workgroups (so the resumed
/// run can write `--dump-state`) when the grid has at most this many warps and the memory
/// budget (`--max-memory`) has room for them twice over; always when the saving run is
/// given `--dump-state`.
pub const KEPT_WARPS: u64 = 4096;

/// Keep the warps' final states in a launch that will be checkpointed, if it is small
/// enough ([`KEPT_WARPS`]).
pub fn keep_warps_for_resume(launch: &mut Launch) {
    let c = launch.config();
    let volume = |d: &[u32; 3]| d.iter().map(|&x| u128::from(x)).product::<u128>();
    let warps = volume(&c.grid) * volume(&c.block).div_ceil(32);
    let bytes = warps * u128::from(KEPT_BYTES_PER_WARP);
    if warps <= u128::from(KEPT_WARPS) && 2 * bytes <= u128::from(launch.memory_left()) {
        launch.keep_warps(true);
    }
}

/// Run `session` on: to `stop` instructions and save the checkpoint there
/// (`--save-checkpoint`), or to its end. A run that ends before `stop` is saved too, at
/// its end.
pub fn drive(
    args: &Args,
    mut session: Session<'_>,
    stop: Option<u64>,
    lines: &LineTable,
) -> Result<Ran, Failure> {
    let mut tracer = match &args.trace {
        Some(path) => Some(
            WriteTracer::new(
                OutputFile::create_streamed(path)?,
                trace_format(args.trace_format),
            )
            .with_max_bytes(args.max_trace_bytes),
        ),
        None => None,
    };
    let progress = match (stop, tracer.as_mut()) {
        (Some(n), Some(t)) => session.run_to_step(n, t),
        (Some(n), None) => session.run_to_step(n, &mut NoHooks),
        (None, Some(t)) => loop {
            let p = session.run(t);
            if p != Progress::Paused {
                break p;
            }
        },
        (None, None) => {
            let total = session.workgroups();
            let r = with_progress(total, |done| session.finish_parallel(done))
                .map_err(|e| Failure::BadInput(e.to_string()))?;
            return Ok(Ran::Finished(Box::new(r), None));
        }
    };
    let interrupt = tracer.as_ref().and_then(|t| t.interrupt());
    let trace_error = match (tracer, &args.trace) {
        (Some(t), Some(path)) => match t.finish() {
            Ok(file) => file.commit().err(),
            Err(e) => Some(write_error(path, &e)),
        },
        _ => None,
    };
    if let (Some(n), Some(path)) = (stop, &args.save_checkpoint) {
        if progress != Progress::Interrupted {
            write_output(path, &session.checkpoint_with_lines(&source_lines(lines)))?;
        }
        if progress == Progress::Paused {
            return Ok(Ran::Saved {
                path: path.clone(),
                steps: session.attempted(),
                workgroups: (session.workgroups_done(), session.workgroups()),
                trace_error,
            });
        }
        if progress == Progress::Finished && !crate::verbosity::quiet() {
            report!(
                "note: the run ended after {} steps, before --stop-after-steps {n}; the \
                 checkpoint {} holds its end",
                session.attempted(),
                path.display()
            );
        }
    }
    Ok(Ran::Finished(
        Box::new(session.finish_with(interrupt)),
        trace_error,
    ))
}

/// A line table as a checkpoint keeps it.
pub fn source_lines(t: &LineTable) -> SourceLines {
    SourceLines {
        files: t.files().to_vec(),
        rows: t
            .rows()
            .iter()
            .map(|r| (r.address, r.file, r.line, r.column))
            .collect(),
        end: t.end(),
    }
}

/// The line table a checkpoint kept.
fn line_table(s: &SourceLines) -> LineTable {
    let rows = s
        .rows
        .iter()
        .map(|&(address, file, line, column)| LineRow {
            address,
            file,
            line,
            column,
        })
        .collect();
    LineTable::new(s.files.clone(), rows, s.end)
}

/// `warpkit run --resume FILE`: read the checkpoint, check the options against it, and
/// go on.
pub fn resume(args: &Args, path: &Path, outs: &[(String, PathBuf)]) -> Outcome {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::BadInput(format!("--resume {}: {e}", path.display())))?;
    let checkpoint = Checkpoint::decode(&bytes)
        .map_err(|e| Failure::BadInput(format!("{}: {e}", path.display())))?;
    for (name, _) in outs {
        if !checkpoint.buffers().iter().any(|(n, _)| n == name) {
            return Err(Failure::BadInput(format!(
                "--out {name}=...: the launch in {} has no buffer argument `{name}`",
                path.display()
            )));
        }
    }
    let config = checkpoint.config().clone();
    if args.dump_state.is_some() && !config.keep_warps {
        return Err(Failure::BadInput(format!(
            "--dump-state: {} was saved without the final state of finished warps (a grid of \
             more than {KEPT_WARPS} warps); give --dump-state to the run that saves it",
            path.display()
        )));
    }
    if let Some(n) = args.stop_after_steps {
        if n < checkpoint.steps() {
            return Err(Failure::BadInput(format!(
                "--stop-after-steps {n}: {} is already {} steps into the run (the count \
                 starts at the launch)",
                path.display(),
                checkpoint.steps()
            )));
        }
    }
    if args.launch.options.threads > MAX_THREADS {
        return Err(Failure::BadInput(format!(
            "--threads {}: at most {MAX_THREADS}",
            args.launch.options.threads
        )));
    }
    let program = checkpoint.program();
    let lines = line_table(checkpoint.lines());
    let mut session = Session::resume(&program, checkpoint)
        .map_err(|e| Failure::BadInput(format!("{}: {e}", path.display())))?;
    let interrupts = Interrupts::install();
    session.set_cancel(Some(interrupts.cancel.clone()));
    // With scratch memory, no more host threads than the saved launch's memory limit
    // admitted (--max-memory cannot be given again).
    session.set_threads(resume_threads(&config, args.launch.options.threads));
    let shown = shown(args, config.max_steps, config.max_total_steps);
    let ran = drive(args, session, args.stop_after_steps, &lines)?;
    conclude(args, outs, ran, &shown, config.bare, &interrupts, &lines)
}
