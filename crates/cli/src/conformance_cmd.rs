//! `warpkit conformance export|run|dut` (docs/conformance.md): write the conformance suite,
//! check a suite against the model or a DUT command, and act as a DUT.

use crate::failure::{Failure, Outcome};
use std::io::Write;
use std::path::PathBuf;
use warpkit_sim::Engine;
use warpkit_verify::conformance::{self, ConformanceError, Implementation};
use warpkit_verify::dut::Dut;
use warpkit_verify::vector::{self, Vector};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: ConformanceCommand,
}

#[derive(clap::Subcommand)]
pub enum ConformanceCommand {
    /// Write the conformance suite to DIR: one JSON vector per instruction variant
    /// (vectors/GROUP/NAME.json), a self-checking program per vector
    /// (selfcheck/GROUP/NAME.{elf,bin,hex}) and index.json.
    Export {
        /// The directory (created if missing).
        dir: PathBuf,
    },
    /// Check every vector of a suite (a directory with index.json, or one vector file)
    /// against warpkit or a DUT; exit 0 when all match, 1 when any mismatches, 2 on bad
    /// input.
    Run(RunArgs),
    /// Act as a DUT: print the post-state warpkit computes for a vector.
    Dut {
        /// The vector file.
        vector: PathBuf,
        /// The engine: jit or interp.
        #[arg(long, default_value = "jit")]
        engine: Engine,
    },
    /// Write the vector of a `.s` program launched by its `.launch` directives (the ABI's
    /// initial state; the post-state warpkit computes), e.g. a generated program for a DUT.
    Vector {
        /// The program.
        program: PathBuf,
        /// The vector file (`-` = stdout, the default).
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        output: PathBuf,
    },
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// The suite directory, or one vector file.
    pub suite: PathBuf,
    /// The DUT: a shell command run as `CMD VECTOR.json`, printing the post-state JSON.
    #[arg(long, value_name = "CMD")]
    pub dut: Option<String>,
    /// The engine when no DUT is given: jit or interp.
    #[arg(long, default_value = "jit")]
    pub engine: Engine,
    /// Write one JSON line per vector: {"name", "pass", "mismatches"}.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Seconds a DUT may take for one vector.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub timeout: u64,
}

pub fn run(args: Args) -> Outcome {
    match args.command {
        ConformanceCommand::Export { dir } => export(dir),
        ConformanceCommand::Run(a) => run_suite(a),
        ConformanceCommand::Dut { vector, engine } => dut(vector, engine),
        ConformanceCommand::Vector { program, output } => program_vector(program, output),
    }
}

fn bad(e: impl std::fmt::Display) -> Failure {
    Failure::BadInput(e.to_string())
}

fn failure(e: ConformanceError) -> Failure {
    match e {
        ConformanceError::Build { .. } => Failure::Runtime(e.to_string()),
        ConformanceError::Io { ref source, .. }
            if source.kind() != std::io::ErrorKind::NotFound =>
        {
            Failure::Runtime(e.to_string())
        }
        e => bad(e),
    }
}

fn export(dir: PathBuf) -> Outcome {
    let done = conformance::export(&dir).map_err(|e| match e {
        ConformanceError::Io { .. } => Failure::Runtime(e.to_string()),
        e => failure(e),
    })?;
    let groups: Vec<String> = done
        .index
        .groups
        .iter()
        .map(|(g, n)| format!("{g} {n}"))
        .collect();
    outln!(
        "{} vectors ({}) and {} self-checking programs in {}",
        done.index.vectors.len(),
        groups.join(", "),
        done.index.programs.len(),
        dir.display()
    );
    Ok(())
}

fn run_suite(a: RunArgs) -> Outcome {
    let imp = match &a.dut {
        Some(cmd) => Implementation::Dut(
            Dut::new(cmd).with_timeout(std::time::Duration::from_secs(a.timeout)),
        ),
        None => Implementation::Model(a.engine),
    };
    let mut jsonl = match &a.jsonl {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p)
                .map_err(|e| Failure::Runtime(format!("{}: {e}", p.display())))?,
        )),
        None => None,
    };
    let mut write_error = None;
    let outcomes = conformance::run(&a.suite, &imp, |o| {
        for m in &o.mismatches {
            outln!("FAIL {}: {m}", o.name);
        }
        if let Some(w) = jsonl.as_mut() {
            let line = serde_json::to_string(o).expect("an outcome always serialises");
            if let Err(e) = writeln!(w, "{line}") {
                write_error.get_or_insert(e);
            }
        }
    })
    .map_err(failure)?;
    if let Some(mut w) = jsonl {
        if let Err(e) = w.flush() {
            write_error.get_or_insert(e);
        }
    }
    if let (Some(e), Some(p)) = (write_error, &a.jsonl) {
        return Err(Failure::Runtime(format!("{}: {e}", p.display())));
    }
    let failed = outcomes.iter().filter(|o| !o.pass).count();
    outln!(
        "{} vectors: {} passed, {failed} failed",
        outcomes.len(),
        outcomes.len() - failed
    );
    if failed > 0 {
        return Err(Failure::Exit(1));
    }
    Ok(())
}

fn dut(path: PathBuf, engine: Engine) -> Outcome {
    let v = Vector::load(&path).map_err(bad)?;
    let state = vector::run(&v, engine).map_err(bad)?;
    let text = serde_json::to_string(&state).expect("a state always serialises");
    outln!("{text}");
    Ok(())
}

fn program_vector(program: PathBuf, output: PathBuf) -> Outcome {
    crate::output::check_output_path("--output", &output)?;
    crate::output::check_distinct(&[("--output", &output)], &[("PROGRAM", &program)])?;
    let name = crate::asm_cmd::shown(&program);
    let source = std::fs::read_to_string(&program).map_err(|e| bad(format!("{name}: {e}")))?;
    let v = warpkit_verify::shrink::source_vector(&source, &name).map_err(bad)?;
    let mut text = v.to_json();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    crate::output::write_output(&output, text.as_bytes())
}
