//! `warpkit cover`: functional coverage (docs/coverage.md). `cover model` writes the model
//! generated from the database; `cover RUN... [--trace T.jsonl]` measures a model over
//! programs run directly (with `warpkit run`'s launch options) and over commit traces;
//! `cover merge` combines coverage databases. Reports: text on stdout, `--json`, `--html`,
//! and the database (`-o`).

use crate::failure::{Failure, Outcome};
use crate::launch_args::{setup_failure, LaunchArgs, LaunchOptions};
use crate::output::write_output;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use warpkit_verify::cover::{measure_launch, measure_trace, report, Coverage, Model, Tracker};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub sub: Option<Sub>,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

#[derive(clap::Subcommand)]
pub enum Sub {
    /// Write the coverage model generated from the ISA database (YAML) to FILE or stdout.
    Model {
        /// Where to write it (default: stdout).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Combine coverage databases (from `cover -o` or `--json`) into one.
    Merge {
        /// The databases.
        #[arg(required = true, value_name = "DB.json")]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        reports: Reports,
    },
}

/// Where the results go besides the text report on stdout.
#[derive(clap::Args)]
pub struct Reports {
    /// Write the coverage database (JSON; `cover merge` combines them).
    #[arg(short, long, value_name = "DB.json")]
    pub output: Option<PathBuf>,
    /// Write the JSON report: the database plus the summary per category.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the HTML report.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print only the summary table (Markdown) instead of the text report, and, when
    /// several programs were measured, the bins each hit on its own.
    #[arg(long)]
    pub summary: bool,
}

#[derive(clap::Args)]
pub struct MeasureArgs {
    /// Programs to run and measure: OpenCL C (.cl), assembly (.s), ELF or raw binary, each
    /// launched as `warpkit run FILE [launch options]` would launch it.
    #[arg(value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// A commit trace (JSON Lines, `warpkit run --trace`) to measure; repeatable.
    #[arg(long = "trace", value_name = "T.jsonl")]
    pub traces: Vec<PathBuf>,
    /// The coverage model (YAML; default: the one `cover model` writes).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// Also measure the example kernels of `warpkit examples` (every launch of each).
    #[arg(long)]
    pub examples: bool,
    /// With --examples: the small problem sizes of the test suite.
    #[arg(long, requires = "examples")]
    pub small: bool,
    #[command(flatten)]
    pub reports: Reports,
    /// The launch options of `warpkit run`, for every RUN.
    #[command(flatten)]
    pub launch: LaunchOptions,
}

pub fn run(args: Args) -> Outcome {
    match args.sub {
        Some(Sub::Model { output }) => {
            let yaml = Model::generate().to_yaml();
            match output {
                Some(path) => write_output(&path, yaml.as_bytes()),
                None => {
                    out!("{yaml}");
                    Ok(())
                }
            }
        }
        Some(Sub::Merge { inputs, reports }) => {
            let named: Vec<(&str, &Path)> =
                inputs.iter().map(|p| ("database", p.as_path())).collect();
            check_outputs(&reports, &named)?;
            let mut total = Coverage::default();
            for path in &inputs {
                let c = Coverage::load(path).map_err(|e| Failure::BadInput(e.to_string()))?;
                total.merge(&c);
            }
            write_reports(&total, &reports, "merged")
        }
        None => measure(args.measure),
    }
}

fn measure(m: MeasureArgs) -> Outcome {
    if m.runs.is_empty() && m.traces.is_empty() && !m.examples {
        return Err(Failure::BadInput(
            "nothing to measure: give programs (RUN...), --trace files or --examples".into(),
        ));
    }
    let mut inputs: Vec<(&str, &Path)> = m.runs.iter().map(|p| ("program", p.as_path())).collect();
    inputs.extend(m.traces.iter().map(|p| ("trace", p.as_path())));
    inputs.extend(m.model.iter().map(|p| ("model", p.as_path())));
    inputs.extend(
        m.launch
            .args
            .iter()
            .filter_map(|a| a.split_once("=@"))
            .map(|(_, f)| ("--arg file", Path::new(f))),
    );
    check_outputs(&m.reports, &inputs)?;
    let model = match &m.model {
        Some(path) => Model::load(path).map_err(|e| Failure::BadInput(e.to_string()))?,
        None => Model::generate(),
    };
    let mut total = Coverage::empty(&model);
    // Bins each program hit on its own, for the summary.
    let mut each: Vec<(String, usize)> = Vec::new();
    let mut add = |total: &mut Coverage, c: Coverage| {
        if let Some(name) = c.programs.iter().next() {
            each.push((name.clone(), c.hit_count()));
        }
        total.merge(&c);
    };
    for path in &m.runs {
        add(&mut total, measure_run(&m, &model, path)?);
    }
    for path in &m.traces {
        let name = crate::asm_cmd::shown(path);
        let mut tracker = Tracker::new(&model);
        let result = if crate::asm_cmd::is_stdin(path) {
            measure_trace(&mut tracker, std::io::stdin().lock(), &name)
        } else {
            let file = std::fs::File::open(path)
                .map_err(|e| Failure::BadInput(format!("--trace {name}: {e}")))?;
            measure_trace(&mut tracker, BufReader::new(file), &name)
        };
        result.map_err(|e| Failure::BadInput(e.to_string()))?;
        add(&mut total, tracker.coverage(&model, &name));
    }
    if m.examples {
        let size = if m.small {
            warpkit_examples::Size::Small
        } else {
            warpkit_examples::Size::Full
        };
        for ex in warpkit_examples::all() {
            add(&mut total, measure_example(&model, ex, size)?);
        }
    }
    let title = match total.programs.len() {
        1 => total.programs.iter().next().cloned().unwrap_or_default(),
        n => format!("{n} programs"),
    };
    write_reports(&total, &m.reports, &title)?;
    if m.reports.summary && each.len() > 1 {
        out!("\n| program | bins hit |\n|---|---:|\n");
        for (name, hit) in &each {
            out!("| {name} | {hit} |\n");
        }
    }
    Ok(())
}

/// Run `path` as `warpkit run` would, under coverage.
fn measure_run(m: &MeasureArgs, model: &Model, path: &Path) -> Result<Coverage, Failure> {
    let launch_args = LaunchArgs {
        file: Some(path.to_path_buf()),
        options: m.launch.clone(),
        // Coverage runs on the interpreter, where the hooks that measure it run.
        engine: None,
    };
    let mut launch = launch_args.launch(false)?;
    let object = launch_args.load(&mut launch)?;
    launch_args.add_args(&mut launch)?;
    // A generated program's `.launch` directives, as `warpkit run` reads them.
    launch_args.file_launch(&mut launch)?;
    let prepared = launch.prepare(&object).map_err(setup_failure)?;
    let (program, config, args) = prepared.into_parts();
    let name = crate::asm_cmd::shown(path);
    let (result, cov) = measure_launch(model, &name, &program, &config, args)
        .map_err(|e| Failure::BadInput(format!("{name}: {e}")))?;
    note_problems(&name, &result);
    Ok(cov)
}

fn note_problems(name: &str, result: &warpkit_sim::launch::LaunchResult) {
    if crate::verbosity::quiet() {
        return;
    }
    if !result.traps.is_empty() {
        report!("note: {name}: {} warp(s) trapped", result.traps.len());
    }
    if !result.step_limits.is_empty() {
        report!(
            "note: {name}: {} warp(s) stopped at the step limit",
            result.step_limits.len()
        );
    }
}

/// Every launch of example `ex` under coverage, as `examples/NAME` (on one host thread:
/// later launches read earlier ones' outputs).
fn measure_example(
    model: &Model,
    ex: &warpkit_examples::Example,
    size: warpkit_examples::Size,
) -> Result<Coverage, Failure> {
    let name = format!("examples/{}", ex.name);
    let bad = |e: warpkit_examples::ExampleError| Failure::BadInput(format!("{name}: {e}"));
    let case = ex.case(size);
    let code = ex.code().map_err(bad)?;
    let mut hooks = warpkit_verify::cover::CoverHooks::new(model);
    let results = ex
        .launch_stages_observed(&case, &code, &mut hooks)
        .map_err(bad)?;
    for r in &results {
        note_problems(&name, r);
    }
    Ok(hooks.tracker.coverage(model, &name))
}

/// Refuse outputs that would overwrite an input or each other.
fn check_outputs(r: &Reports, inputs: &[(&str, &Path)]) -> Outcome {
    let outputs: Vec<(&str, &Path)> = [
        ("-o", r.output.as_deref()),
        ("--json", r.json.as_deref()),
        ("--html", r.html.as_deref()),
    ]
    .into_iter()
    .filter_map(|(o, p)| p.map(|p| (o, p)))
    .collect();
    crate::output::check_distinct(&outputs, inputs)
}

fn write_reports(cov: &Coverage, r: &Reports, title: &str) -> Outcome {
    if let Some(path) = &r.output {
        write_output(path, cov.to_json().as_bytes())?;
    }
    if let Some(path) = &r.json {
        write_output(path, report::json(cov).as_bytes())?;
    }
    if let Some(path) = &r.html {
        write_output(path, report::html(cov, title).as_bytes())?;
    }
    if r.summary {
        out!("{}", report::summary_table(cov));
    } else {
        out!("{}", report::text(cov));
    }
    Ok(())
}
