//! `warpkit debug KERNEL [launch options]`: the interactive debugger (docs/debugger.md)
//! over the launch `warpkit run` would make with the same options.

use crate::asm_cmd::is_stdin;
use crate::debug::{repl, Debugger};
use crate::failure::{Failure, Outcome};
use crate::launch_args::{setup_failure, LaunchArgs};
use crate::run_report::{Shown, DEFAULT_MAX_HAZARDS, DEFAULT_MAX_REPORTS};
use crate::signals::Interrupts;
use std::io::IsTerminal;
use std::path::PathBuf;
use warpkit_host::Stepper;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Read the commands from FILE instead of the terminal, echoing each after the prompt
    /// (commands are also read from standard input when it is not a terminal). Exit 2 if
    /// a command failed.
    #[arg(long, value_name = "FILE")]
    pub batch: Option<PathBuf>,
    /// Keep the command history of interactive sessions in FILE.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
}

pub fn run(args: Args) -> Outcome {
    if is_stdin(args.launch.file()) && args.batch.is_none() {
        return Err(Failure::BadInput(
            "the kernel must be a file: standard input carries the debugger's commands".into(),
        ));
    }
    let script = match &args.batch {
        Some(p) => Some(
            std::fs::read(p)
                .map_err(|e| Failure::BadInput(format!("cannot read {}: {e}", p.display())))?,
        ),
        None => None,
    };
    let mut launch = args.launch.launch(false)?;
    let object = args.launch.load(&mut launch)?;
    args.launch.add_args(&mut launch)?;
    let interrupts = Interrupts::install();
    launch.cancel(interrupts.cancel.clone());
    let prepared = launch.prepare(&object).map_err(setup_failure)?;
    let stepper = Stepper::new(prepared).map_err(|e| Failure::BadInput(e.to_string()))?;
    let source = if object.listing.is_empty() || is_stdin(args.launch.file()) {
        None
    } else {
        std::fs::read(args.launch.file()).ok().map(|b| {
            (
                crate::asm_cmd::shown(args.launch.file()),
                String::from_utf8_lossy(&b).into_owned(),
            )
        })
    };
    let shown = Shown {
        max_reports: DEFAULT_MAX_REPORTS,
        max_hazards: DEFAULT_MAX_HAZARDS,
        max_steps: args.launch.options.max_steps,
        max_total_steps: args.launch.options.max_total_steps,
        quiet: false,
    };
    let mut d = Debugger::new(stepper, &object, source, shown);
    let mut out = |s: &str| out!("{s}");
    let ended = match script {
        Some(bytes) => repl::run_script(&mut d, bytes.as_slice(), &mut out),
        None if !std::io::stdin().is_terminal() => {
            repl::run_script(&mut d, std::io::stdin().lock(), &mut out)
        }
        None => repl::run_terminal(&mut d, args.history.as_deref(), &mut out)
            .map_err(std::io::Error::other),
    }
    .map_err(|e| Failure::BadInput(format!("cannot read the commands: {e}")))?;
    if ended.errors {
        return Err(Failure::Exit(2));
    }
    Ok(())
}
