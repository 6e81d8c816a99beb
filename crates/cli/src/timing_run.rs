//! `warpkit run --timing [--machine FILE] [--timing-json FILE]` (docs/timing.md): the launch
//! runs under the timing model (`warpkit_timing::launch_timed`), which gives the run's
//! functional results, exactly those of a plain run, and a timing report of the machine.
//! Also how `--profile` and `--timeline` take their cycles from that report.

use crate::failure::Failure;
use crate::output::write_output;
use std::path::{Path, PathBuf};
use warpkit_host::launch::Prepared;
use warpkit_host::LaunchResult;
use warpkit_timing::{launch_timed, Machine, MachineError, TimingError, TimingOptions};

/// The largest machine file read: a machine is a few dozen lines.
const MAX_MACHINE_BYTES: usize = 1 << 20;

/// The timing options of `warpkit run`.
#[derive(clap::Args, Clone, Default)]
pub struct TimingArgs {
    /// Also time the launch on a machine model: the results are those of a plain run, and a
    /// timing report (cycles, IPC, occupancy, stalls, unit utilisation, caches) follows the
    /// run's summary on stderr (docs/timing.md). With --profile, the profile gains a cycles
    /// column; with --timeline, the timeline's clock counts cycles.
    #[arg(long, conflicts_with_all = ["trace", "stop_after_steps", "resume"])]
    pub timing: bool,
    /// The machine to time the launch on, a TOML file (machines/default.toml documents every
    /// field; a file names only what it changes). Implies --timing.
    #[arg(long, value_name = "FILE.toml", conflicts_with_all = ["trace", "stop_after_steps", "resume"])]
    pub machine: Option<PathBuf>,
    /// Write the timing report as JSON to FILE (`-` = stdout); implies --timing. With it,
    /// --quiet leaves out the text report.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["trace", "stop_after_steps", "resume"])]
    pub timing_json: Option<PathBuf>,
}

impl TimingArgs {
    /// Whether the launch is timed: `--timing`, or an option that implies it.
    pub fn enabled(&self) -> bool {
        self.timing || self.machine.is_some() || self.timing_json.is_some()
    }

    /// The machine as messages name it.
    pub fn label(&self) -> String {
        match &self.machine {
            Some(path) => format!("--machine {}", crate::asm_cmd::shown(path)),
            None => "the default machine".into(),
        }
    }

    /// The machine to time on: `--machine FILE`, else the default machine.
    pub fn machine(&self) -> Result<Machine, Failure> {
        match &self.machine {
            Some(path) => load_machine(path),
            None => Ok(Machine::default()),
        }
    }
}

/// Read and check the machine file at `path`; a bad one is bad input (exit 2) whose
/// message starts with `FILE:LINE:COLUMN:`.
pub fn load_machine(path: &Path) -> Result<Machine, Failure> {
    let bytes = crate::asm_cmd::read_bounded(path, MAX_MACHINE_BYTES)?;
    let shown = crate::asm_cmd::shown(path);
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::BadInput(format!("{shown}: the machine file is not UTF-8")))?;
    Machine::from_toml(&text).map_err(|e| {
        Failure::BadInput(match &e {
            MachineError::Parse {
                line,
                column,
                message,
            } => format!(
                "{shown}:{line}:{column}: {}",
                message.trim_end().replace('\n', "; ")
            ),
            MachineError::Invalid { field, message } => {
                let (line, column) = locate_field(&text, field);
                format!("{shown}:{line}:{column}: {field}: {message}")
            }
        })
    })
}

/// Where the file sets `field` (`l1.line_bytes`, `compute_units`): line and column (from 1)
/// of its key, else of its table's header, else 1:1 (a value left at its default that
/// disagrees with another).
fn locate_field(text: &str, field: &str) -> (usize, usize) {
    let (table, key) = field.rsplit_once('.').unwrap_or(("", field));
    let header = |l: &str| {
        let l = l.trim();
        l.starts_with('[').then(|| {
            l.trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .replace([' ', '"'], "")
        })
    };
    let mut current = String::new();
    let mut table_at = None;
    for (n, l) in text.lines().enumerate() {
        if let Some(h) = header(l) {
            current = h;
            if current == table && table_at.is_none() {
                table_at = Some((n + 1, l.find('[').unwrap_or(0) + 1));
            }
            continue;
        }
        let body = l.split('#').next().unwrap_or("");
        let Some((k, _)) = body.split_once('=') else {
            continue;
        };
        let k = k.trim().replace([' ', '"'], "");
        // A key in its table, or a dotted key (`l1.line_bytes = 64`) at the top.
        let full = if current.is_empty() {
            k.clone()
        } else {
            format!("{current}.{k}")
        };
        if full == field || (current == table && k == key) {
            let column = l.find(|c: char| !c.is_whitespace()).unwrap_or(0) + 1;
            return (n + 1, column);
        }
    }
    table_at.unwrap_or((1, 1))
}

/// A timing failure in this command's words: a workgroup too big for the machine is bad
/// input (exit 2), as is a launch the model refuses.
fn timing_failure(e: TimingError, machine: &str) -> Failure {
    match e {
        TimingError::DoesNotFit { .. } => Failure::BadInput(format!(
            "{machine}: {e}; give --machine a machine with more room, or use smaller \
             workgroups"
        )),
        e => Failure::BadInput(e.to_string()),
    }
}

/// What a timed run writes besides its report.
pub struct TimedOutputs<'a> {
    /// `--profile FILE`: the profile, with its cycles column.
    pub profile: Option<&'a Path>,
    /// `--timeline FILE`: the timeline on the cycle clock.
    pub timeline: Option<&'a Path>,
    /// The source lines, for the profile.
    pub sources: &'a warpkit_prof::SourceMap,
    /// The profile page's title.
    pub title: &'a str,
    /// The machine as messages name it: `--machine FILE`, or the default machine.
    pub machine: &'a str,
}

/// Run `prepared` under the timing model on `machine` (as `kernel` in the report), and
/// write `--profile` and `--timeline` from it. The report keeps the warps' spans when
/// `--timeline` asked for them (`--timing-json` then has them too).
pub fn run_timed(
    prepared: Prepared,
    machine: Machine,
    kernel: &str,
    outputs: &TimedOutputs<'_>,
) -> Result<(LaunchResult, warpkit_timing::TimingReport), Failure> {
    let opts = TimingOptions {
        machine,
        kernel: kernel.to_string(),
        timeline: outputs.timeline.is_some(),
        threads: 0,
    };
    let (program, config, args) = prepared.into_parts();
    // The profile counts what the functional run executed, the timing model when it
    // issued: two observers of the same deterministic launch, so two runs.
    let profile = match outputs.profile {
        Some(_) => {
            let (_, mut prof, _) =
                warpkit_prof::profile_launch(&program, &config, args.clone(), false)
                    .map_err(|e| Failure::BadInput(e.to_string()))?;
            prof.attach_sources(outputs.sources);
            Some(prof)
        }
        None => None,
    };
    let (result, report) = launch_timed(&program, &config, args, &opts)
        .map_err(|e| timing_failure(e, outputs.machine))?;
    if let (Some(path), Some(mut prof)) = (outputs.profile, profile) {
        prof.attach_timing(&report);
        let text = crate::profile_cmd::render(&prof, path, outputs.sources, outputs.title);
        write_output(path, text.as_bytes())?;
    }
    if let Some(path) = outputs.timeline {
        let tl = warpkit_prof::Timeline::cycles(&report);
        write_output(path, tl.to_json().as_bytes())?;
    }
    Ok((result, report))
}

/// Print the text report on stderr (unless `--quiet` with `--timing-json`) and write
/// `--timing-json`.
pub fn emit(args: &TimingArgs, report: &warpkit_timing::TimingReport) -> Result<(), Failure> {
    if !(crate::verbosity::quiet() && args.timing_json.is_some()) {
        report_raw!("timing:\n{}", report.render_text());
    }
    if let Some(path) = &args.timing_json {
        let mut json = report.to_json();
        json.push('\n');
        write_output(path, json.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_located_in_their_table() {
        let text = "name = \"m\"\n[cu]\nwarp_slots = 3\n\n[l1]\n  line_bytes = 96 # bad\n";
        assert_eq!(locate_field(text, "l1.line_bytes"), (6, 3));
        assert_eq!(locate_field(text, "cu.warp_slots"), (3, 1));
        assert_eq!(locate_field(text, "name"), (1, 1));
        // Left at its default: the table's header, or the file's start.
        assert_eq!(locate_field(text, "l1.ways"), (5, 1));
        assert_eq!(locate_field(text, "l2.ways"), (1, 1));
        assert_eq!(locate_field("l2.ways = 3\n", "l2.ways"), (1, 1));
        assert_eq!(
            locate_field("\n[units.sfu]\ncount = 0\n", "units.sfu.count"),
            (3, 1)
        );
    }
}
