//! `warpkit timing`: verbs about the timing model itself. `calibrate` runs microbenchmarks
//! on a machine and recovers its parameters from the measured cycles.

use std::path::PathBuf;

use crate::failure::{Failure, Outcome};
use crate::output::write_output;
use crate::timing_run::load_machine;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub sub: Sub,
}

#[derive(clap::Subcommand)]
pub enum Sub {
    /// Run microbenchmarks on a machine and recover every parameter from the measured
    /// cycles: the table of configured vs measured values. Exit 0 when every parameter is
    /// recovered (or, where the machine hides it, consistent with its bound), 1 when one is
    /// not, 2 on a bad machine file.
    Calibrate(CalibrateArgs),
    /// Time kernels on every combination of machine knobs (`--set PATH=V1,V2,...`): a table
    /// of cycles, and CSV, JSON and an SVG plot (docs/timing.md, "A design-space sweep").
    Sweep(Box<crate::timing_sweep::Args>),
}

#[derive(clap::Args)]
pub struct CalibrateArgs {
    /// The machine (TOML, as `run --machine` takes it).
    #[arg(long, value_name = "FILE.toml")]
    pub machine: PathBuf,
    /// Also write the report as JSON to FILE (`-`: stdout, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Host threads of the functional runs (0: one per core).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub threads: usize,
}

pub fn run(args: Args) -> Outcome {
    match args.sub {
        Sub::Calibrate(a) => calibrate(a),
        Sub::Sweep(a) => crate::timing_sweep::run(*a),
    }
}

fn calibrate(a: CalibrateArgs) -> Outcome {
    let machine = load_machine(&a.machine)?;
    let cal = warpkit_timing::calibrate(&machine, a.threads)
        .map_err(|e| Failure::Runtime(format!("calibration of {}: {e}", a.machine.display())))?;
    match a.json.as_deref() {
        Some(p) if p.as_os_str() == "-" => out!("{}\n", cal.to_json()),
        Some(p) => {
            write_output(p, format!("{}\n", cal.to_json()).as_bytes())?;
            out!("{}", cal.render_text());
        }
        None => out!("{}", cal.render_text()),
    }
    if cal.ok() {
        Ok(())
    } else {
        let names: Vec<&str> = cal.failures().iter().map(|p| p.name.as_str()).collect();
        Err(Failure::Runtime(format!(
            "{}: not recovered: {}",
            a.machine.display(),
            names.join(", ")
        )))
    }
}
