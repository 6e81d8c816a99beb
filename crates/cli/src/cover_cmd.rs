//! `warpkit cover`: functional coverage (docs/coverage.md). `cover model` writes the model
//! generated from the database; `cover RUN... [--trace T.jsonl]` measures a model over
//! programs run directly (with `warpkit run`'s launch options) and over commit traces;
//! `cover merge` combines coverage databases. Reports: text on stdout, `--json`, `--html`,
//! and the database (`-o`).

use crate::failure::{Failure, Outcome};
use crate::launch_args::{setup_failure, LaunchArgs, DEFAULT_MAX_MEMORY, DEFAULT_MAX_WORKGROUPS};
use crate::output::write_output;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use warpkit_sim::DEFAULT_MAX_STEPS;
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
    /// Workgroups in the grid: X[,Y[,Z]] (for every RUN).
    #[arg(long, value_name = "X[,Y,Z]")]
    pub grid: Option<String>,
    /// Threads per workgroup: X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y,Z]")]
    pub block: Option<String>,
    /// A kernel argument, as for `warpkit run` (for every RUN).
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// Bytes of shared memory per workgroup.
    #[arg(long, value_name = "BYTES", value_parser = crate::numbers::u32_arg)]
    pub shared: Option<u32>,
    /// Bytes of scratch memory per lane.
    #[arg(long, value_name = "BYTES", value_parser = crate::numbers::u32_arg)]
    pub scratch: Option<u32>,
    /// Host threads (default: one per core). Coverage does not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = crate::numbers::usize_arg)]
    pub threads: usize,
    /// Stop a warp once it has executed this many instructions.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS, value_parser = crate::numbers::u64_arg)]
    pub max_steps: u64,
    /// Start every warp at this symbol or byte offset.
    #[arg(long, value_name = "SYMBOL|ADDRESS")]
    pub entry: Option<String>,
    /// Launch the kernel NAME of the program's metadata.
    #[arg(long, value_name = "NAME", conflicts_with = "entry")]
    pub kernel: Option<String>,
    /// Refuse a launch needing more than this many bytes of memory.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MEMORY, value_parser = crate::numbers::u64_arg)]
    pub max_memory: u64,
    /// Refuse a grid of more workgroups than this.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_WORKGROUPS, value_parser = crate::numbers::u64_arg)]
    pub max_workgroups: u64,
    #[command(flatten)]
    pub compile: crate::cc_cmd::CompileArgs,
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
        m.args
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
        grid: m.grid.clone(),
        block: m.block.clone(),
        args: m.args.clone(),
        shared: m.shared,
        scratch: m.scratch,
        threads: m.threads,
        max_steps: m.max_steps,
        max_total_steps: None,
        entry: m.entry.clone(),
        kernel: m.kernel.clone(),
        max_memory: m.max_memory,
        max_workgroups: m.max_workgroups,
        engine: None,
        compile: m.compile.clone(),
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
