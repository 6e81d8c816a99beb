//! The options of `warpkit run`. Both the plain run and the checkpointed one
//! (`checkpoint_cmd.rs`) read them, so they sit below both and below the run driver.

use crate::launch_args::LaunchArgs;
use std::path::PathBuf;

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
    /// the text report (any other name; `-` = stdout). With --timing it has a cycles column.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Write a timeline of the launch in the Trace Event Format (Perfetto,
    /// chrome://tracing); its clock counts instructions, or with --timing cycles: a track
    /// per warp slot of each compute unit, with its issue and stall spans (docs/profiling.md).
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
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "grid", "block", "args", "shared", "scratch", "max_steps", "max_total_steps", "entry", "kernel", "max_memory", "max_workgroups", "profile", "timeline", "defines", "undefines", "include", "opt", "cl_options"])]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub timing: crate::timing_run::TimingArgs,
}

/// Default of `--max-trace-bytes`: 1 GiB.
pub const DEFAULT_MAX_TRACE_BYTES: u64 = 1 << 30;
