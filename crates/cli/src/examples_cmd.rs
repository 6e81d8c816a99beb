//! `warpkit examples`: assemble (or compile, for the OpenCL C ones) and run the kernels of
//! `examples/` on the functional model, compare their outputs with host references, and print
//! what each run measured.

use crate::failure::{Failure, Outcome};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Instant;
use warpkit_examples::{Example, Image, Report, Size};
use warpkit_timing::{
    launch_timed_deferred, Machine, PendingTiming, TimingError, TimingOptions, TimingReport,
};

#[derive(clap::Args)]
pub struct Args {
    /// Kernels to run (default: all of them).
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Run the small problem sizes of the test suite.
    #[arg(long)]
    pub small: bool,
    /// Host threads, shared by the kernels (run side by side) and their workgroups (0 = every
    /// core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// List the kernels and what each computes, without running them.
    #[arg(long)]
    pub list: bool,
    /// Write the kernels that draw a picture (mandelbrot, opencl/mandelbrot) as DIR/NAME.png:
    /// 8-bit indexed colour, each pixel's index the value the kernel computed. DIR (and
    /// DIR/opencl) is created if needed.
    #[arg(long, value_name = "DIR")]
    pub save_images: Option<PathBuf>,
    /// Execution engine: `jit` (the default where the host supports it) or `interp`.
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<warpkit_sim::Engine>,
    /// Also time each kernel on a machine model (docs/timing.md): its cycles and IPC join
    /// the table, and a summary of all of them, run one after another, follows it.
    #[arg(long)]
    pub timing: bool,
    /// The machine to time on, a TOML file (machines/default.toml); implies --timing.
    #[arg(long, value_name = "FILE.toml")]
    pub machine: Option<PathBuf>,
    /// Write the timing report of all the kernels, run one after another, as JSON to FILE
    /// (`-` = stdout, after the table); implies --timing.
    #[arg(long, value_name = "FILE")]
    pub timing_json: Option<PathBuf>,
    /// Write what each kernel's run measured and found as JSON to FILE (`-` = stdout,
    /// after the table): one object per kernel with its simulation time in seconds.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write each kernel's launches as plain files, DIR/NAME/case.txt with its input
    /// buffers and the model's outputs of the buffers it checks, for another
    /// implementation to run the same work and compare (the format:
    /// docs/performance.md, "OpenCL peers"). Each case is run once more to capture them.
    #[arg(long, value_name = "DIR")]
    pub save_cases: Option<PathBuf>,
}

/// `image` as an indexed-colour PNG.
pub fn encode_png(image: &Image) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, image.width, image.height);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(image.palette.concat());
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&image.pixels)?;
    writer.finish()?;
    Ok(bytes)
}

/// Write `image` as DIR/NAME.png, atomically (`opencl/mandelbrot` in DIR/opencl/, which is
/// created if needed).
fn save_image(dir: &Path, name: &str, image: &Image) -> Result<PathBuf, Failure> {
    let path = dir.join(format!("{name}.png"));
    let bytes = encode_png(image)
        .map_err(|e| Failure::Runtime(format!("cannot encode {}: {e}", path.display())))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::Runtime(format!("cannot create {}: {e}", parent.display())))?;
    }
    crate::output::write_output(&path, &bytes)?;
    Ok(path)
}

/// `--save-images DIR`: refuse a path that is not a directory, create a missing one.
fn prepare_image_dir(dir: &Path) -> Result<(), Failure> {
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::BadInput(format!(
            "--save-images {}: not a directory",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        Failure::Runtime(format!(
            "--save-images {}: cannot create the directory: {e}",
            dir.display()
        ))
    })
}

fn select(names: &[String]) -> Result<Vec<&'static Example>, Failure> {
    if names.is_empty() {
        return Ok(warpkit_examples::all().iter().collect());
    }
    names
        .iter()
        .filter(|n| warpkit_examples::linx::find(n).is_none())
        .map(|n| {
            warpkit_examples::find(n).ok_or_else(|| {
                let known: Vec<&str> = warpkit_examples::all()
                    .iter()
                    .map(|e| e.name)
                    .chain(warpkit_examples::linx::ALL.iter().map(|e| e.name))
                    .collect();
                Failure::BadInput(format!(
                    "no example `{n}`; the examples are: {}",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

/// `1234567` as `1.23M`: the table's columns stay narrow whatever the problem size.
fn si(x: f64) -> String {
    let (v, unit) = if x >= 1e9 {
        (x / 1e9, "G")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e3 {
        (x / 1e3, "k")
    } else {
        return format!("{x:.0}");
    };
    format!("{v:.2}{unit}")
}

fn row(r: &Report) -> Vec<String> {
    vec![
        r.name.to_string(),
        r.problem.clone(),
        r.workgroups.to_string(),
        r.warps.to_string(),
        si(r.instructions as f64),
        si(r.lane_ops as f64),
        format!("{:.1} ms", r.wall.as_secs_f64() * 1e3),
        si(r.lane_ops_per_sec()),
        if r.passed() { "✓" } else { "✗" }.to_string(),
    ]
}

/// The timing columns of a kernel's row: cycles and IPC, or dashes when it was not timed.
fn timing_cells(t: Option<&TimingReport>) -> [String; 2] {
    match t {
        Some(t) => [si(t.cycles as f64), format!("{:.2}", t.ipc)],
        None => ["-".into(), "-".into()],
    }
}

const TIMING_HEADER: [&str; 2] = ["cycles", "IPC"];

const HEADER: [&str; 9] = [
    "kernel",
    "problem",
    "workgroups",
    "warps",
    "instructions",
    "lane-ops",
    "wall",
    "lane-ops/s",
    "check",
];

/// The table rows, the failure messages and the count of failed programs, whichever model
/// (GPU kernel or LinxISA program) produced each report.
#[derive(Default)]
struct Tally {
    rows: Vec<Vec<String>>,
    problems: Vec<String>,
    failed: usize,
}

impl Tally {
    fn record(&mut self, name: &str, result: Result<Report, impl std::fmt::Display>) {
        match result {
            Ok(report) => {
                if !report.passed() {
                    self.failed += 1;
                    self.problems.extend(failures(&report));
                }
                self.rows.push(row(&report));
            }
            Err(err) => {
                self.failed += 1;
                self.problems.push(err.to_string());
                let mut r = vec![String::new(); HEADER.len()];
                r[0] = name.to_string();
                r[1] = "-".into();
                r[8] = "✗".into();
                self.rows.push(r);
            }
        }
    }
}

fn print_table(header: &[&str], rows: &[Vec<String>]) {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, cell) in width.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (k, (cell, &w)) in cells.iter().zip(&width).enumerate() {
            let pad = w - cell.chars().count();
            // Names left-aligned, numbers right-aligned.
            if k <= 1 {
                out.push_str(cell);
                out.push_str(&" ".repeat(pad));
            } else {
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            }
            out.push_str("  ");
        }
        outln!("{}", out.trim_end());
    };
    line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    for r in rows {
        line(r);
    }
}

/// The timed launches of `warpkit examples --timing`, whose replays go on while the next
/// launches run (`warpkit_timing::launch_timed_deferred`): at most `limit` are left
/// pending, the oldest waited for first, so the replays use the host threads the run was
/// given.
struct Timings {
    limit: usize,
    /// The pending ones, oldest first: example, launch, timing.
    pending: VecDeque<(usize, usize, PendingTiming)>,
    /// Per example, its launches' reports in launch order, once waited for.
    reports: Vec<Vec<Option<TimingReport>>>,
}

impl Timings {
    fn new(examples: usize, threads: usize) -> Timings {
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        };
        Timings {
            // Each launch's own replay runs beside its recording; `threads - 1` earlier
            // ones may run beside them.
            limit: threads - 1,
            pending: VecDeque::new(),
            reports: vec![Vec::new(); examples],
        }
    }

    /// Keep launch timing `t` of example `e`, waiting for the oldest pending ones while
    /// there are more than the limit.
    fn push(&mut self, e: usize, t: PendingTiming) {
        self.pending.push_back((e, self.reports[e].len(), t));
        self.reports[e].push(None);
        while self.pending.len() > self.limit {
            let Some((e, k, t)) = self.pending.pop_front() else {
                break;
            };
            self.reports[e][k] = Some(t.wait());
        }
    }

    /// Example `e`'s launches, waited for and combined in launch order (`None` if none
    /// was timed).
    fn example(&mut self, e: usize) -> Option<TimingReport> {
        let (mine, others) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|p| p.0 == e);
        self.pending = others;
        for (_, k, t) in mine {
            self.reports[e][k] = Some(t.wait());
        }
        let reports: Vec<TimingReport> = std::mem::take(&mut self.reports[e])
            .into_iter()
            .flatten()
            .collect();
        (!reports.is_empty()).then(|| TimingReport::combine(reports))
    }
}

/// Run example `e` (the `index`-th) at `size` as `run_suite` does, each of its launches
/// timed on `machine` and kept in `timings`: its report, and whether every launch could
/// be timed (an error if it ran but could not be).
fn timed_example(
    e: &Example,
    index: usize,
    size: Size,
    threads: usize,
    machine: &Machine,
    timings: &mut Timings,
) -> (
    Result<Report, warpkit_examples::ExampleError>,
    Result<(), TimingError>,
) {
    let opts = TimingOptions {
        machine: machine.clone(),
        kernel: e.name.to_string(),
        timeline: false,
        // The launch's own threads.
        threads: 0,
    };
    let mut error = None;
    let result = e.code().and_then(|code| {
        e.run_code_with(&e.case(size), code, threads, |program, config, args| {
            if error.is_some() {
                return warpkit_sim::launch::launch(program, config, args);
            }
            // A copy of the arguments, in case the machine refuses the launch and it runs
            // untimed: the check of its results must not depend on the machine.
            match launch_timed_deferred(program, config, args.clone(), &opts) {
                Ok((r, t)) => {
                    timings.push(index, t);
                    Ok(r)
                }
                Err(TimingError::Launch(l)) => Err(l),
                Err(other) => {
                    error = Some(other);
                    warpkit_sim::launch::launch(program, config, args)
                }
            }
        })
    });
    (result, error.map_or(Ok(()), Err))
}

/// Why a report failed, one line each.
fn failures(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if !r.check.passed() {
        out.push(format!("{}: output mismatch: {}", r.name, r.check));
    }
    if !r.completed && r.traps.is_empty() {
        out.push(format!("{}: not every warp reached endpgm", r.name));
    }
    for t in r.traps.iter().take(3) {
        out.push(format!("{}: trap: {t}", r.name));
    }
    if r.traps.len() > 3 {
        out.push(format!("{}: ... {} traps in all", r.name, r.traps.len()));
    }
    for h in r.hazards.iter().take(3) {
        out.push(format!("{}: hazard: {h}", r.name));
    }
    if r.hazard_count > 3 {
        out.push(format!("{}: ... {} hazards in all", r.name, r.hazard_count));
    }
    out
}

pub fn run(args: Args) -> Outcome {
    if args.threads > crate::launch_args::MAX_THREADS {
        return Err(Failure::BadInput(format!(
            "--threads {}: at most {}",
            args.threads,
            crate::launch_args::MAX_THREADS
        )));
    }
    if let Some(engine) = args.engine {
        warpkit_sim::Engine::set_process_default(engine);
    }
    let examples = select(&args.names)?;
    let linx = crate::linx_cmd::select_examples(&args.names);
    if args.list {
        let width = examples
            .iter()
            .map(|e| e.name.len())
            .chain(linx.iter().map(|e| e.name.len()))
            .max()
            .unwrap_or(0);
        for e in examples {
            outln!("{:width$}  {}", e.name, e.summary);
        }
        for e in &linx {
            outln!("{:width$}  {}", e.name, e.summary);
        }
        return Ok(());
    }
    if let Some(dir) = &args.save_images {
        prepare_image_dir(dir)?;
    }
    let timing = args.timing || args.machine.is_some() || args.timing_json.is_some();
    if let Some(path) = &args.timing_json {
        crate::output::check_output_path("--timing-json", path)?;
    }
    if let Some(path) = &args.json {
        crate::output::check_output_path("--json", path)?;
    }
    if let Some(dir) = &args.save_cases {
        if dir.exists() && !dir.is_dir() {
            return Err(Failure::BadInput(format!(
                "--save-cases {}: not a directory",
                dir.display()
            )));
        }
    }
    let machine = match &args.machine {
        Some(path) => Some(crate::timing_run::load_machine(path)?),
        None => timing.then(Machine::default),
    };
    let size = if args.small { Size::Small } else { Size::Full };
    let start = Instant::now();
    let mut timings = Timings::new(examples.len(), args.threads);
    let mut timing_errors = Vec::new();
    let results = match &machine {
        // Side by side on one pool of `--threads` workers (warpkit_examples::run_suite).
        None => warpkit_examples::run_suite(&examples, &linx, size, args.threads),
        // One kernel after another, each recorded on `--threads` workers; the LinxISA
        // programs, which have no timing model, as usual.
        Some(m) => warpkit_examples::run_suite(&[], &linx, size, args.threads).map(|mut r| {
            r.gpu = examples
                .iter()
                .enumerate()
                .map(|(k, e)| {
                    let (result, timed) = timed_example(e, k, size, args.threads, m, &mut timings);
                    timing_errors.push(timed);
                    result
                })
                .collect();
            r
        }),
    }
    .map_err(|e| Failure::Runtime(format!("cannot start {} threads: {e}", args.threads)))?;
    let mut tally = Tally::default();
    let mut json = Vec::new();
    let mut saved = Vec::new();
    let mut timed = Vec::new();
    for (k, (e, result)) in examples.iter().zip(results.gpu).enumerate() {
        if let (
            Some(dir),
            Ok(Report {
                image: Some(image), ..
            }),
        ) = (&args.save_images, &result)
        {
            saved.push(save_image(dir, e.name, image)?);
        }
        let ran = result.is_ok();
        let failed_before = tally.failed;
        json.push(report_json(e.name, &result));
        tally.record(e.name, result);
        // Its launches' replays, waited for even when one launch could not be timed.
        let report = timings.example(k);
        let timing = match timing_errors
            .get_mut(k)
            .map(|t| std::mem::replace(t, Ok(())))
        {
            Some(Ok(())) => Ok(report),
            Some(Err(err)) => Err(err),
            None => Ok(None),
        };
        match timing {
            Ok(Some(t)) if ran => {
                let row = tally.rows.last_mut().expect("a row was recorded");
                row.splice(8..8, timing_cells(Some(&t)));
                timed.push(t);
            }
            Err(err) => {
                // A kernel that could not be timed fails, once.
                if tally.failed == failed_before {
                    tally.failed += 1;
                }
                tally.problems.push(format!(
                    "{name}: cannot be timed: {err}",
                    name = e.name,
                    err = err
                ));
            }
            _ => {}
        }
    }
    for (e, result) in linx.iter().zip(results.linx) {
        json.push(report_json(e.name, &result));
        tally.record(e.name, result);
    }
    let Tally {
        mut rows,
        problems,
        failed,
    } = tally;
    let mut header: Vec<&str> = HEADER.to_vec();
    if machine.is_some() {
        header.splice(8..8, TIMING_HEADER);
        for r in &mut rows {
            if r.len() < header.len() {
                r.splice(8..8, timing_cells(None));
            }
        }
    }
    print_table(&header, &rows);
    for p in &problems {
        report!("error: {p}");
    }
    if !crate::verbosity::quiet() {
        for path in &saved {
            report!("wrote {}", path.display());
        }
    }
    outln!(
        "{} of {} kernels checked ✓ in {:.2} s",
        rows.len() - failed,
        rows.len(),
        start.elapsed().as_secs_f64()
    );
    if let Some(m) = &machine {
        let count = timed.len();
        let all = if timed.is_empty() {
            TimingReport::empty(m)
        } else {
            TimingReport::combine(timed)
        };
        outln!(
            "timing: {} kernels one after another on machine {} ({}): {} cycles, IPC {:.3}",
            count,
            all.machine.name,
            all.machine_hash,
            all.cycles,
            all.ipc
        );
        if !crate::verbosity::quiet() {
            for l in all.render_text().lines() {
                outln!("  {l}");
            }
        }
        if let Some(path) = &args.timing_json {
            let mut json = all.to_json();
            json.push('\n');
            crate::output::write_output(path, json.as_bytes())?;
        }
    }
    if let Some(path) = &args.json {
        let mut text = serde_json::to_string_pretty(&serde_json::Value::Array(json))
            .expect("JSON values serialise");
        text.push('\n');
        crate::output::write_output(path, text.as_bytes())?;
    }
    if let Some(dir) = &args.save_cases {
        for e in &examples {
            save_case(dir, e, size, args.threads)?;
        }
    }
    if failed > 0 {
        return Err(Failure::Exit(1));
    }
    Ok(())
}

/// One kernel's line of `--json`: what its run measured and found, or why it did not run.
fn report_json(name: &str, result: &Result<Report, impl std::fmt::Display>) -> serde_json::Value {
    match result {
        Ok(r) => serde_json::json!({
            "name": name,
            "problem": r.problem,
            "launches": r.launches,
            "workgroups": r.workgroups,
            "warps": r.warps,
            "instructions": r.instructions,
            "lane_ops": r.lane_ops,
            "wall_seconds": r.wall.as_secs_f64(),
            "passed": r.passed(),
            "check": r.check.to_string(),
            "memory_fallbacks": {
                "untranslated": r.memory_fallbacks.untranslated,
                "exits": r.memory_fallbacks.exits,
                "watched": r.memory_fallbacks.watched,
            },
        }),
        Err(err) => serde_json::json!({
            "name": name,
            "passed": false,
            "error": err.to_string(),
        }),
    }
}

/// `--save-cases DIR`: run `e`'s case once more and write its files to DIR/NAME/.
fn save_case(dir: &Path, e: &Example, size: Size, threads: usize) -> Result<(), Failure> {
    let case = e.case(size);
    let results = e
        .code()
        .and_then(|code| e.launch_stages(&case, code, threads, false))
        .map_err(|err| Failure::Runtime(format!("--save-cases: {err}")))?;
    let out = dir.join(e.name);
    std::fs::create_dir_all(&out).map_err(|err| {
        Failure::Runtime(format!(
            "--save-cases: cannot create {}: {err}",
            out.display()
        ))
    })?;
    for file in e.case_files(&case, &results) {
        crate::output::write_output(&out.join(&file.name), &file.bytes)?;
    }
    if !crate::verbosity::quiet() {
        report!("wrote {}", out.join(warpkit_examples::MANIFEST).display());
    }
    Ok(())
}
