//! `warpkit`: the one binary. Each verb lives in its own module; this file parses the command
//! line and turns outcomes into exit codes ([`EXIT_CODES`]).

#[macro_use]
mod macros;

mod asm_cmd;
mod cc_cmd;
mod checkpoint_cmd;
mod color;
mod conformance_cmd;
mod cover_cmd;
mod debug;
mod debug_cmd;
mod dis_cmd;
mod doc_cmd;
mod examples_cmd;
mod failure;
mod gen_cmd;
mod launch_args;
mod linx_cmd;
mod numbers;
mod output;
mod profile_cmd;
mod regress_cmd;
mod run_args;
mod run_cmd;
mod run_driver;
mod run_report;
mod shrink_cmd;
mod signals;
mod spec_cmd;
mod stdout;
mod timing_cmd;
mod timing_run;
mod timing_sweep;
mod trace_cmd;
mod verbosity;

use clap::{Parser, Subcommand};
use failure::Failure;
use std::process::ExitCode;

/// The exit codes, as `--help` and the README list them.
const EXIT_CODES: &str = "\
Exit codes:
  0    success (also: a checkpoint saved by --stop-after-steps)
  1    the program trapped, deadlocked or hit a limit (--max-steps, --max-trace-bytes,
       --strict-hazards), or an output could not be written (disk full, /dev/full)
  2    bad input: unreadable or invalid file, assembly errors, bad options, a launch over
       a configured limit, an output that would overwrite an input
  130  interrupted by SIGINT (Ctrl-C), 143 by SIGTERM: no temporary file is left
  141  stdout was closed by its reader (`| head`): the output stops quietly";

#[derive(Parser)]
#[command(
    name = "warpkit",
    version,
    about = "Reference toolkit for the warpkit GPU ISA v0.1",
    after_long_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print errors only: no summary, hazard warnings, notes or progress bar.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Colour the diagnostics: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(
        long,
        value_enum,
        global = true,
        default_value = "auto",
        value_name = "WHEN"
    )]
    color: color::When,
}

#[derive(Subcommand)]
enum Command {
    /// Print the ISA database.
    Spec(spec_cmd::Args),
    /// Write the Markdown ISA reference generated from the database.
    Doc(doc_cmd::Args),
    /// Assemble a source file.
    Asm(asm_cmd::Args),
    /// Compile OpenCL C kernels to warpkit assembly or an ELF code object (docs/opencl.md).
    Cc(cc_cmd::Args),
    /// Disassemble a raw binary or ELF code object.
    Dis(dis_cmd::Args),
    /// Assemble (if needed) and run a kernel on the functional model.
    Run(Box<run_cmd::Args>),
    /// Debug a kernel interactively: breakpoints, stepping, registers, memory (docs/debugger.md).
    Debug(Box<debug_cmd::Args>),
    /// Run the example kernels and check their outputs against host references.
    Examples(examples_cmd::Args),
    /// LinxISA SIMT blocks: run or check an assembly-level program.
    Linx(linx_cmd::Args),
    /// Work with commit traces (`trace diff A.jsonl B.jsonl`).
    Trace(trace_cmd::Args),
    /// The conformance suite: export it, run it against a DUT, act as a DUT.
    Conformance(conformance_cmd::Args),
    /// Generate constrained-random programs from the ISA database (docs/gen.md).
    Gen(gen_cmd::Args),
    /// Shrink a program a DUT disagrees on to a small one that still disagrees.
    Shrink(shrink_cmd::Args),
    /// Run a regression plan, or one shard of it (Slurm arrays, Kubernetes Indexed Jobs), and merge shards (docs/regressions.md).
    Regress(regress_cmd::Args),
    /// Functional coverage: write the model, measure it, merge databases (docs/coverage.md).
    Cover(Box<cover_cmd::Args>),
    /// The timing model: calibrate a machine (recover its parameters from microbenchmarks), sweep a design space.
    Timing(timing_cmd::Args),
    /// Print a shell completion script: `warpkit completions bash > /etc/bash_completion.d/warpkit`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `warpkit man | man -l -`.
    Man,
}

/// The command line's grammar: the derived one, with `run`'s kernel optional when
/// `--resume` gives a checkpoint instead (the kernel argument is shared with `debug`,
/// where it is always required).
fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command().mut_subcommand("run", |run| {
        run.mut_arg("file", |a| {
            a.required(false).required_unless_present("resume")
        })
    })
}

fn main() -> ExitCode {
    let argv = cc_cmd::rewrite_build_options(std::env::args_os());
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&command().get_matches_from(argv))
        .unwrap_or_else(|e| e.exit());
    verbosity::set_quiet(cli.quiet);
    color::init(cli.color);
    let result = match cli.command {
        Command::Spec(a) => spec_cmd::run(a),
        Command::Doc(a) => doc_cmd::run(a),
        Command::Asm(a) => asm_cmd::run(a),
        Command::Cc(a) => cc_cmd::run(a),
        Command::Dis(a) => dis_cmd::run(a),
        Command::Run(a) => run_cmd::run(*a),
        Command::Debug(a) => debug_cmd::run(*a),
        Command::Examples(a) => examples_cmd::run(a),
        Command::Linx(a) => linx_cmd::run(a),
        Command::Trace(a) => trace_cmd::run(a),
        Command::Conformance(a) => conformance_cmd::run(a),
        Command::Gen(a) => gen_cmd::run(a),
        Command::Shrink(a) => shrink_cmd::run(a),
        Command::Regress(a) => regress_cmd::run(a),
        Command::Cover(a) => cover_cmd::run(*a),
        Command::Timing(a) => timing_cmd::run(a),
        Command::Completions { shell } => {
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut command(), "warpkit", &mut text);
            out!("{}", String::from_utf8_lossy(&text));
            Ok(())
        }
        Command::Man => {
            let mut text = Vec::new();
            match clap_mangen::Man::new(command()).render(&mut text) {
                Ok(()) => {
                    out!("{}", String::from_utf8_lossy(&text));
                    Ok(())
                }
                Err(e) => Err(Failure::Runtime(format!("cannot render the man page: {e}"))),
            }
        }
    };
    // A failed write to stdout decides the status, unless the input was already bad.
    let result = match (result, stdout::failure()) {
        (Err(Failure::BadInput(m)), _) => Err(Failure::BadInput(m)),
        (_, Some(f)) => Err(f),
        (r, None) => r,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::BadInput(m)) => {
            report!("error: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(m)) => {
            report!("error: {m}");
            ExitCode::from(1)
        }
        Err(Failure::Exit(code)) => ExitCode::from(code),
    }
}
