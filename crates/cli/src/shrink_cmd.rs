//! `warpkit shrink PROGRAM.s --dut CMD`: reduce a program on which a DUT disagrees with the
//! model to a small one that still disagrees (docs/verification.md, "Shrinking").

use crate::failure::{Failure, Outcome};
use crate::output::{check_distinct, check_output_path, write_output};
use std::path::PathBuf;
use std::time::Duration;
use warpkit_verify::dut::Dut;
use warpkit_verify::shrink::{shrink_program, ShrinkError, ShrinkOptions};

#[derive(clap::Args)]
pub struct Args {
    /// The program (`.s`, with its `.launch` directives, e.g. from `warpkit gen`).
    pub program: PathBuf,
    /// The DUT: a shell command run as `CMD VECTOR.json` that prints the post-state JSON
    /// (docs/conformance.md, "DUT protocol").
    #[arg(long, value_name = "CMD")]
    pub dut: String,
    /// Write the shrunk program here (`-` = stdout, the default).
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Try at most this many candidates (each one a model run and a DUT run).
    #[arg(long, value_name = "N", default_value_t = ShrinkOptions::default().max_tests, value_parser = crate::numbers::usize_arg)]
    pub max_tests: usize,
    /// Seconds the DUT may take for one candidate.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub timeout: u64,
}

pub fn run(args: Args) -> Outcome {
    check_output_path("--output", &args.output)?;
    check_distinct(&[("--output", &args.output)], &[("PROGRAM", &args.program)])?;
    let name = args.program.display().to_string();
    let source = std::fs::read_to_string(&args.program)
        .map_err(|e| Failure::BadInput(format!("{name}: {e}")))?;
    let dut = Dut::new(&args.dut).with_timeout(Duration::from_secs(args.timeout));
    let options = ShrinkOptions {
        max_tests: args.max_tests,
    };
    let before = warpkit_verify::shrink::instructions(&source, &name)
        .map_err(|e| Failure::BadInput(e.to_string()))?;
    let shrunk = shrink_program(&source, &name, &dut, options).map_err(|e| match e {
        ShrinkError::NotFailing => Failure::Runtime(format!(
            "{name}: {e} (the model must end it cleanly and the DUT `{}` must disagree)",
            args.dut
        )),
        e => Failure::BadInput(e.to_string()),
    })?;
    write_output(&args.output, shrunk.source.as_bytes())?;
    if crate::verbosity::quiet() {
        return Ok(());
    }
    report!(
        "note: shrunk {name} from {before} to {} instruction{} in {} candidate{}",
        shrunk.instructions,
        if shrunk.instructions == 1 { "" } else { "s" },
        shrunk.tests,
        if shrunk.tests == 1 { "" } else { "s" }
    );
    for m in shrunk.mismatches.iter().take(5) {
        report!("note: the DUT disagrees: {m}");
    }
    if shrunk.mismatches.len() > 5 {
        report!(
            "note: ... and {} more differences",
            shrunk.mismatches.len() - 5
        );
    }
    Ok(())
}
