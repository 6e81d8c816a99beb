//! `warpkit timing sweep`: time kernels on every combination of machine knobs (fields of a
//! machine file set by their TOML path, `--set l2.size_bytes=262144,1048576`), print a table
//! of cycles, and write the results as CSV, JSON and an SVG plot (docs/timing.md, "A
//! design-space sweep").
//!
//! Each knob setting goes through the machine file's own reader and validation
//! (`warpkit_timing::sweep::set_knobs`), so a sweep can only build machines a file could
//! describe. Each point is a full timed launch: the example kernels' outputs are checked
//! against their references on every machine, so a sweep never plots a wrong run.

use crate::failure::{Failure, Outcome};
use crate::launch_args::{setup_failure, LaunchArgs, LaunchOptions};
use crate::output::{check_distinct, check_output_path, write_output};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use warpkit_examples::{Case, Code, Example, Size};
use warpkit_sim::launch::{Arg, LaunchConfig, LaunchResult};
use warpkit_timing::plot::{format_value, Format, Plot, Scale, Series};
use warpkit_timing::sweep::{combinations, set_knobs, Knob};
use warpkit_timing::{
    check_machine, launch_timed_many, Machine, TimingError, TimingOptions, TimingReport,
};

#[derive(clap::Args)]
pub struct Args {
    /// The kernels: names of example kernels (`warpkit examples --list`: sgemm, matmul,
    /// reduce, ...), each run with its own launches and checked against its reference, or
    /// kernel files (.s, .cl, ELF) launched with the launch options below.
    #[arg(value_name = "KERNEL", required = true)]
    pub kernels: Vec<String>,
    /// A knob and its values: a machine field by its path in a machine file and a
    /// comma-separated list (`compute_units=1,2,4,8`, `cu.policy=lrr,gto`). Repeat for more
    /// knobs: every combination runs. The first knob is the plot's x axis; each value of
    /// the others gives each kernel a line of its own.
    #[arg(long = "set", value_name = "PATH=V1,V2,...", required = true)]
    pub set: Vec<String>,
    /// The machine the knobs change (default: machines/default.toml's).
    #[arg(long, value_name = "FILE.toml")]
    pub machine: Option<PathBuf>,
    /// What the plot's y axis shows: `cycles`, or `speedup` (each kernel's cycles on the
    /// sweep's first machine divided by its cycles on this one).
    #[arg(long, value_enum, default_value = "cycles", value_name = "WHAT")]
    pub y: Measure,
    /// Write the plot as SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub svg: Option<PathBuf>,
    /// The plot's title (default: the kernels, the machine and the first knob).
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
    /// Write one row per kernel and machine as CSV (`-` = stdout).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the sweep as JSON (`-` = stdout): the base machine, the knobs, and per kernel
    /// and machine its figures and stall breakdown.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Run the example kernels at the small sizes of the test suite.
    #[arg(long)]
    pub small: bool,
    #[command(flatten)]
    pub launch: LaunchOptions,
    /// Execution engine of the functional runs: `jit` or `interp` (the timing is the same).
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<warpkit_sim::Engine>,
}

/// The y axis of the plot.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Measure {
    /// Cycles of the launch (summed over an example's launches).
    Cycles,
    /// The kernel's cycles on the sweep's first machine / its cycles on this one.
    Speedup,
}

/// A kernel to time on every machine.
enum Subject {
    /// An example kernel: its launches, run in order, and its reference.
    Example {
        example: &'static Example,
        case: Case,
        code: Code,
    },
    /// A kernel file with the command's launch options.
    File {
        name: String,
        program: warpkit_sim::Program,
        config: LaunchConfig,
        args: Vec<Arg>,
    },
}

impl Subject {
    fn name(&self) -> &str {
        match self {
            Subject::Example { example, .. } => example.name,
            Subject::File { name, .. } => name,
        }
    }
}

/// One kernel on one machine.
struct Point {
    subject: usize,
    /// One value index per knob.
    combination: Vec<usize>,
    report: TimingReport,
}

/// The kernels named on the command line, ready to launch.
fn subjects(args: &Args) -> Result<Vec<Subject>, Failure> {
    let size = if args.small { Size::Small } else { Size::Full };
    let mut out = Vec::new();
    for name in &args.kernels {
        let as_file = LaunchArgs {
            file: Some(PathBuf::from(name)),
            options: args.launch.clone(),
            engine: args.engine,
        };
        if let Some(example) = warpkit_examples::find(name) {
            if as_file.launch_options() {
                return Err(Failure::BadInput(format!(
                    "{name} is an example kernel, which runs its own launches: the launch \
                     options (--grid, --block, --arg, --shared, --scratch, --kernel) apply to \
                     kernel files only"
                )));
            }
            let code = example
                .code()
                .map_err(|e| Failure::Runtime(format!("{name}: {e}")))?;
            out.push(Subject::Example {
                example,
                case: example.case(size),
                code,
            });
            continue;
        }
        if !Path::new(name).is_file() {
            let known: Vec<&str> = warpkit_examples::all().iter().map(|e| e.name).collect();
            return Err(Failure::BadInput(format!(
                "{name}: neither an example kernel ({}) nor a file",
                known.join(", ")
            )));
        }
        let mut launch = as_file.launch(false)?;
        let object = as_file.load(&mut launch)?;
        as_file.add_args(&mut launch)?;
        as_file.file_launch(&mut launch)?;
        let prepared = launch.prepare(&object).map_err(setup_failure)?;
        let (program, config, args) = prepared.into_parts();
        out.push(Subject::File {
            name: crate::asm_cmd::shown(Path::new(name)),
            program,
            config,
            args,
        });
    }
    Ok(out)
}

/// A timing failure: a kernel that does not fit a swept machine is bad input (exit 2).
fn timing_failure(name: &str, settings: &str, e: TimingError) -> Failure {
    Failure::BadInput(format!("{name} with {settings}: {e}"))
}

/// A launch that did not complete (a trap, the step limit, a deadlock) gives no cycles
/// worth plotting.
fn check_completed(name: &str, settings: &str, r: &LaunchResult) -> Result<(), Failure> {
    if r.ok() {
        return Ok(());
    }
    Err(Failure::Runtime(format!(
        "{name} with {settings}: the launch did not complete ({} traps, {} step limits, {} deadlocks); \
         `warpkit run` shows why",
        r.traps.len(),
        r.step_limits.len(),
        r.deadlocks.len()
    )))
}

/// Time `subject` on every machine (`settings` names each): every launch of an example,
/// combined; one report per machine, in order. The machines share the functional runs
/// (`warpkit_timing::launch_timed_many`); each is checked first, so a kernel that does
/// not fit one is named with that machine's settings.
fn time(
    subject: &Subject,
    machines: &[Machine],
    settings: &[String],
    threads: usize,
) -> Result<Vec<TimingReport>, Failure> {
    let opts = TimingOptions {
        kernel: subject.name().to_string(),
        timeline: false,
        threads,
        ..TimingOptions::default()
    };
    let first_settings = settings.first().map_or("", String::as_str);
    let check = |name: &str, program: &warpkit_sim::Program, config: &LaunchConfig| {
        for (machine, settings) in machines.iter().zip(settings) {
            check_machine(program, config, machine)
                .map_err(|e| timing_failure(name, settings, e))?;
        }
        Ok::<(), Failure>(())
    };
    match subject {
        Subject::File {
            name,
            program,
            config,
            args,
        } => {
            check(name, program, config)?;
            let (result, reports) =
                launch_timed_many(program, config, args.clone(), &opts, machines)
                    .map_err(|e| timing_failure(name, first_settings, e))?;
            check_completed(name, first_settings, &result)?;
            Ok(reports)
        }
        Subject::Example {
            example,
            case,
            code,
        } => {
            let name = example.name;
            let mut results: Vec<LaunchResult> = Vec::new();
            // Per machine, the reports of its launches.
            let mut reports: Vec<Vec<TimingReport>> = vec![Vec::new(); machines.len()];
            for (index, stage) in case.stages.iter().enumerate() {
                let args = example
                    .stage_args(index, stage, &results)
                    .map_err(|e| Failure::Runtime(e.to_string()))?;
                let config = LaunchConfig {
                    threads,
                    ..code.config(stage)
                };
                check(name, &code.program, &config)?;
                let (result, stage_reports) =
                    launch_timed_many(&code.program, &config, args, &opts, machines)
                        .map_err(|e| timing_failure(name, first_settings, e))?;
                check_completed(name, first_settings, &result)?;
                results.push(result);
                for (all, report) in reports.iter_mut().zip(stage_reports) {
                    all.push(report);
                }
            }
            let check = warpkit_examples::compare(&case.expected, |stage, buffer| {
                results.get(stage).and_then(|r| r.buffer(buffer))
            });
            if !check.passed() {
                return Err(Failure::Runtime(format!(
                    "{name}: output mismatch: {check}"
                )));
            }
            Ok(reports.into_iter().map(TimingReport::combine).collect())
        }
    }
}

/// A knob's value as people read it: sizes in bytes with binary prefixes.
fn shown_value(path: &str, value: &str) -> String {
    match value.replace('_', "").parse::<f64>() {
        Ok(v) if path.ends_with("bytes") => format_value(v, Format::Bytes).replace(' ', ""),
        _ => value.to_string(),
    }
}

/// `path=value` for each knob of `combination`.
fn settings_text(knobs: &[Knob], combination: &[usize]) -> String {
    knobs
        .iter()
        .zip(combination)
        .map(|(knob, &v)| format!("{}={}", knob.path, knob.values[v]))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The kernel's cycles on the sweep's first machine over its cycles on this one.
fn speedup(points: &[Point], p: &Point) -> f64 {
    let first = points
        .iter()
        .find(|q| q.subject == p.subject)
        .map_or(p.report.cycles, |q| q.report.cycles);
    if p.report.cycles == 0 {
        0.0
    } else {
        first as f64 / p.report.cycles as f64
    }
}

const COLUMNS: [&str; 7] = [
    "cycles",
    "speedup",
    "IPC",
    "occupancy",
    "L1 hits",
    "L2 hits",
    "DRAM read",
];

fn table(subjects: &[Subject], knobs: &[Knob], points: &[Point]) -> String {
    let mut header: Vec<String> = vec!["kernel".into()];
    header.extend(knobs.iter().map(|k| k.path.clone()));
    header.extend(COLUMNS.iter().map(|c| c.to_string()));
    let mut rows = vec![header];
    for p in points {
        let r = &p.report;
        let mut row = vec![subjects[p.subject].name().to_string()];
        row.extend(
            knobs
                .iter()
                .zip(&p.combination)
                .map(|(k, &v)| shown_value(&k.path, &k.values[v])),
        );
        row.extend([
            r.cycles.to_string(),
            format!("{:.3}", speedup(points, p)),
            format!("{:.3}", r.ipc),
            format!("{:.3}", r.occupancy),
            format!("{:.1}%", 100.0 * r.memory.l1_hit_rate),
            format!("{:.1}%", 100.0 * r.memory.l2_hit_rate),
            format_value(r.memory.dram_read_bytes as f64, Format::Bytes),
        ]);
        rows.push(row);
    }
    let columns = rows[0].len();
    let width: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = " ".repeat(width[c] - cell.chars().count());
            // The kernel's name left-aligned, values right-aligned.
            if c == 0 {
                line.push_str(cell);
                line.push_str(&pad);
            } else {
                line.push_str(&pad);
                line.push_str(cell);
            }
            line.push_str("  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it must be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(subjects: &[Subject], knobs: &[Knob], points: &[Point]) -> String {
    let mut header: Vec<String> = vec!["kernel".into()];
    header.extend(knobs.iter().map(|k| k.path.clone()));
    header.extend(
        [
            "cycles",
            "speedup",
            "instructions",
            "ipc",
            "occupancy",
            "l1_hit_rate",
            "l2_hit_rate",
            "dram_read_bytes",
            "dram_write_bytes",
            "machine_hash",
        ]
        .map(String::from),
    );
    let mut out = String::new();
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .map(|c| csv_field(c))
            .collect::<Vec<_>>()
            .join(",")
    };
    let _ = writeln!(out, "{}", line(header));
    for p in points {
        let r = &p.report;
        let mut row = vec![subjects[p.subject].name().to_string()];
        row.extend(
            knobs
                .iter()
                .zip(&p.combination)
                .map(|(k, &v)| k.values[v].clone()),
        );
        row.extend([
            r.cycles.to_string(),
            format!("{:.6}", speedup(points, p)),
            r.instructions.to_string(),
            format!("{:.6}", r.ipc),
            format!("{:.6}", r.occupancy),
            format!("{:.6}", r.memory.l1_hit_rate),
            format!("{:.6}", r.memory.l2_hit_rate),
            r.memory.dram_read_bytes.to_string(),
            r.memory.dram_write_bytes.to_string(),
            r.machine_hash.clone(),
        ]);
        let _ = writeln!(out, "{}", line(row));
    }
    out
}

fn json(
    base: &Machine,
    subjects: &[Subject],
    knobs: &[Knob],
    points: &[Point],
) -> serde_json::Value {
    use serde_json::json;
    let runs: Vec<serde_json::Value> = points
        .iter()
        .map(|p| {
            let r = &p.report;
            let settings: serde_json::Map<String, serde_json::Value> = knobs
                .iter()
                .zip(&p.combination)
                .map(|(k, &v)| (k.path.clone(), json!(k.values[v])))
                .collect();
            json!({
                "kernel": subjects[p.subject].name(),
                "settings": settings,
                "machine_hash": r.machine_hash,
                "cycles": r.cycles,
                "speedup": speedup(points, p),
                "instructions": r.instructions,
                "ipc": r.ipc,
                "occupancy": r.occupancy,
                "memory": r.memory,
                "stalls": r.stalls,
            })
        })
        .collect();
    json!({
        "schema": "warpkit-timing-sweep",
        "version": 1,
        "machine": base,
        "machine_hash": base.hash(),
        "knobs": knobs.iter().map(|k| json!({"path": k.path, "values": k.values})).collect::<Vec<_>>(),
        "runs": runs,
    })
}

/// The plot: x = the first knob, one line per kernel and combination of the other knobs
/// (colour by kernel, dash pattern by the other knobs' values).
fn plot(
    args: &Args,
    base: &Machine,
    subjects: &[Subject],
    knobs: &[Knob],
    points: &[Point],
) -> Plot {
    let first = &knobs[0];
    let (xs, x_names): (Vec<f64>, Vec<String>) = match first.numbers() {
        Some(xs) => (xs, Vec::new()),
        None => (
            (0..first.values.len()).map(|k| k as f64).collect(),
            first.values.clone(),
        ),
    };
    let (min, max) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    // Knobs are usually swept over powers of two: equal steps per doubling.
    let x_scale = if x_names.is_empty() && min > 0.0 && max / min >= 4.0 {
        Scale::Log2
    } else {
        Scale::Linear
    };
    let x_format = if x_names.is_empty() && first.path.ends_with("bytes") {
        Format::Bytes
    } else {
        Format::Number
    };
    let rest = combinations(&knobs[1..]);
    let mut series = Vec::new();
    for (s, subject) in subjects.iter().enumerate() {
        for (dash, others) in rest.iter().enumerate() {
            let mut pts = Vec::new();
            for (v, &x) in xs.iter().enumerate() {
                let found = points.iter().find(|p| {
                    p.subject == s && p.combination[0] == v && p.combination[1..] == others[..]
                });
                if let Some(p) = found {
                    let y = match args.y {
                        Measure::Cycles => p.report.cycles as f64,
                        Measure::Speedup => speedup(points, p),
                    };
                    pts.push((x, y));
                }
            }
            let mut label = subject.name().to_string();
            for (knob, &v) in knobs[1..].iter().zip(others) {
                let _ = write!(
                    label,
                    ", {}={}",
                    knob.path,
                    shown_value(&knob.path, &knob.values[v])
                );
            }
            series.push(Series {
                label,
                points: pts,
                colour: s,
                dash,
            });
        }
    }
    let names: Vec<&str> = subjects.iter().map(Subject::name).collect();
    let what = match args.y {
        Measure::Cycles => "cycles",
        Measure::Speedup => "speedup",
    };
    Plot {
        title: args.title.clone().unwrap_or_else(|| {
            format!(
                "{} on {}: {what} by {}",
                names.join(", "),
                base.name,
                first.path
            )
        }),
        x_label: first.path.clone(),
        y_label: match args.y {
            Measure::Cycles => "cycles".into(),
            Measure::Speedup => {
                let first: Vec<String> = knobs
                    .iter()
                    .map(|k| format!("{}={}", k.path, shown_value(&k.path, &k.values[0])))
                    .collect();
                format!("speedup over {}", first.join(", "))
            }
        },
        x_scale,
        x_format,
        x_names,
        y_format: Format::Number,
        y_from_zero: true,
        series,
    }
}

pub fn run(args: Args) -> Outcome {
    let knobs: Vec<Knob> = args
        .set
        .iter()
        .map(|s| Knob::parse(s).map_err(|e| Failure::BadInput(format!("--set {e}"))))
        .collect::<Result<_, _>>()?;
    for (k, knob) in knobs.iter().enumerate() {
        if knobs[..k].iter().any(|o| o.path == knob.path) {
            return Err(Failure::BadInput(format!(
                "--set {}: the knob is set twice",
                knob.path
            )));
        }
    }
    let base = match &args.machine {
        Some(path) => crate::timing_run::load_machine(path)?,
        None => Machine::default(),
    };
    // Every machine of the sweep, checked before anything runs.
    let grid = combinations(&knobs);
    let machines: Vec<Machine> = grid
        .iter()
        .map(|c| {
            let settings: Vec<(&str, &str)> = knobs
                .iter()
                .zip(c)
                .map(|(k, &v)| (k.path.as_str(), k.values[v].as_str()))
                .collect();
            set_knobs(&base, &settings).map_err(|e| Failure::BadInput(format!("--set {e}")))
        })
        .collect::<Result<_, _>>()?;
    let outputs: Vec<(&str, &Path)> = [
        ("--svg", &args.svg),
        ("--csv", &args.csv),
        ("--json", &args.json),
    ]
    .into_iter()
    .filter_map(|(o, p)| p.as_deref().map(|p| (o, p)))
    .collect();
    for (option, path) in &outputs {
        check_output_path(option, path)?;
    }
    let mut inputs: Vec<(&str, &Path)> = args
        .kernels
        .iter()
        .map(|k| ("KERNEL", Path::new(k.as_str())))
        .collect();
    if let Some(m) = &args.machine {
        inputs.push(("--machine", m));
    }
    check_distinct(&outputs, &inputs)?;
    let stdout_outputs = outputs.iter().filter(|(_, p)| p.as_os_str() == "-").count();
    if stdout_outputs > 1 {
        return Err(Failure::BadInput(
            "only one of --svg, --csv and --json can be `-` (stdout)".into(),
        ));
    }
    if args.launch.threads > crate::launch_args::MAX_THREADS {
        return Err(Failure::BadInput(format!(
            "--threads {}: at most {}",
            args.launch.threads,
            crate::launch_args::MAX_THREADS
        )));
    }
    if let Some(engine) = args.engine {
        warpkit_sim::Engine::set_process_default(engine);
    }
    let subjects = subjects(&args)?;

    let total = subjects.len() * grid.len();
    let mut points = Vec::with_capacity(total);
    let settings: Vec<String> = grid.iter().map(|c| settings_text(&knobs, c)).collect();
    for (s, subject) in subjects.iter().enumerate() {
        let reports = time(subject, &machines, &settings, args.launch.threads)?;
        for ((combination, settings), report) in grid.iter().zip(&settings).zip(reports) {
            if !crate::verbosity::quiet() {
                report!(
                    "[{}/{total}] {} with {settings}: {} cycles",
                    points.len() + 1,
                    subject.name(),
                    report.cycles
                );
            }
            points.push(Point {
                subject: s,
                combination: combination.clone(),
                report,
            });
        }
    }

    // With the table on stdout, a `-` output would mix with it: the table then goes to
    // stderr.
    let text = table(&subjects, &knobs, &points);
    if stdout_outputs == 0 {
        out!("{text}");
    } else if !crate::verbosity::quiet() {
        report_raw!("{text}");
    }
    if let Some(path) = &args.csv {
        write_output(path, csv(&subjects, &knobs, &points).as_bytes())?;
    }
    if let Some(path) = &args.json {
        let mut text = serde_json::to_string_pretty(&json(&base, &subjects, &knobs, &points))
            .unwrap_or_default();
        text.push('\n');
        write_output(path, text.as_bytes())?;
    }
    if let Some(path) = &args.svg {
        let svg = plot(&args, &base, &subjects, &knobs, &points)
            .to_svg()
            .map_err(|e| Failure::Runtime(format!("--svg: {e}")))?;
        write_output(path, svg.as_bytes())?;
        if !crate::verbosity::quiet() && path.as_os_str() != "-" {
            report!("wrote {}", path.display());
        }
    }
    Ok(())
}
