//! `warpkit linx run|check`: the LinxISA SIMT block model (`warpkit-linx`). Static errors
//! exit 2 with every diagnostic rendered; a run-time error exits 1 with the state still
//! dumped; the state JSON and the trace follow the documented contract (docs/linx.md).

use crate::failure::{Failure, Outcome};
use crate::output::{check_distinct, check_output_path, write_output, OutputFile};
use std::fmt::Write as _;
use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};
use warpkit_linx::{
    Mode, Program, RunConfig, RunError, RunResult, StepRecord, TraceSink, WriteTarget,
};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: LinxCommand,
}

#[derive(clap::Subcommand)]
enum LinxCommand {
    /// Run a SIMT block program and report its final state.
    Run(RunArgs),
    /// Parse a program and run every static check, without running it.
    Check(CheckArgs),
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ModeArg {
    Loop,
    Vect,
    Simt,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TraceFormat {
    Json,
    Text,
}

#[derive(clap::Args)]
struct RunArgs {
    /// The program (`.s`).
    file: PathBuf,
    /// Execution order, overriding BSTART.<mode>.
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// Group size G, overriding `.lanenum` (1..64).
    #[arg(long, value_name = "G", value_parser = clap::value_parser!(u32).range(1..=64))]
    lanes: Option<u32>,
    /// Write the final state as JSON to PATH (`-` = stdout), also after a run-time error.
    #[arg(long, value_name = "PATH")]
    dump_state: Option<PathBuf>,
    /// Write one record per group-step to PATH (`-` = stdout).
    #[arg(long, value_name = "PATH")]
    trace: Option<PathBuf>,
    /// Trace format: JSON Lines or one text line per step.
    #[arg(long, value_enum, default_value = "json")]
    trace_format: TraceFormat,
    /// Group steps per group before E-TIMEOUT.
    #[arg(long, value_name = "N", default_value_t = warpkit_linx::DEFAULT_MAX_STEPS,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_steps: u64,
    /// Lane-steps of the whole run (all groups) before E-TIMEOUT.
    #[arg(long, value_name = "N", default_value_t = warpkit_linx::DEFAULT_MAX_LANE_STEPS,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_lane_steps: u64,
    /// Stop writing the trace beyond this many bytes (the run fails with exit 1).
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 30)]
    max_trace_bytes: u64,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The program (`.s`).
    file: PathBuf,
}

pub fn run(args: Args) -> Outcome {
    match args.command {
        LinxCommand::Run(a) => run_program(a),
        LinxCommand::Check(a) => {
            let (source, prog) = load(&a.file)?;
            report_warnings(&prog, &source);
            report!(
                "{}: ok: {} body instructions, BSTART.{}",
                a.file.display(),
                prog.body.len(),
                prog.mode.name().to_uppercase()
            );
            Ok(())
        }
    }
}

/// Read and check `path`: bad input (unreadable, not UTF-8, static errors) is exit 2.
fn load(path: &Path) -> Result<(String, Program), Failure> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::BadInput(format!("cannot read {shown}: {e}")))?;
    let mut bytes = Vec::new();
    file.take(warpkit_linx::MAX_SOURCE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::BadInput(format!("cannot read {shown}: {e}")))?;
    if bytes.len() > warpkit_linx::MAX_SOURCE_BYTES {
        return Err(Failure::BadInput(format!(
            "{shown}: error[E-LIMIT]: the source is larger than {} bytes",
            warpkit_linx::MAX_SOURCE_BYTES
        )));
    }
    let source = String::from_utf8(bytes).map_err(|e| {
        Failure::BadInput(format!(
            "{shown}: error[E-SYNTAX]: invalid UTF-8 at byte offset {}",
            e.utf8_error().valid_up_to()
        ))
    })?;
    match warpkit_linx::check(&shown, &source) {
        Ok(prog) => Ok((source, prog)),
        Err(diags) => {
            report_raw!("{}", diags.render(&source));
            Err(Failure::Exit(2))
        }
    }
}

fn report_warnings(prog: &Program, source: &str) {
    if !prog.warnings.items.is_empty() {
        report_raw!("{}", prog.warnings.render(source));
    }
}

/// Streams trace records, stopping (and remembering why) at the byte cap or a write error.
struct Tracer<W: Write> {
    out: W,
    format: TraceFormat,
    left: u64,
    failed: Option<String>,
    line: String,
}

impl<W: Write> TraceSink for Tracer<W> {
    fn record(&mut self, step: &StepRecord) {
        if self.failed.is_some() {
            return;
        }
        self.line.clear();
        match self.format {
            TraceFormat::Json => json_step(step, &mut self.line),
            TraceFormat::Text => text_step(step, &mut self.line),
        }
        self.line.push('\n');
        let n = self.line.len() as u64;
        if n > self.left {
            self.failed = Some("the trace reached --max-trace-bytes".into());
            return;
        }
        self.left -= n;
        if let Err(e) = self.out.write_all(self.line.as_bytes()) {
            self.failed = Some(format!("cannot write the trace: {e}"));
        }
    }
}

fn js(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("null".into(), |v| v.to_string())
}

fn json_step(s: &StepRecord, o: &mut String) {
    let _ = write!(
        o,
        "{{\"group\":{},\"pc\":{},\"mask\":{},\"insn\":{},\"writes\":[",
        opt(s.group),
        s.pc,
        s.mask,
        js(&s.insn)
    );
    for (i, w) in s.writes.iter().enumerate() {
        let target = match w.target {
            WriteTarget::Queue(q) => format!("\"queue\":\"{q}\""),
            WriteTarget::Gpr(r) => format!("\"gpr\":{r}"),
        };
        let _ = write!(
            o,
            "{}{{\"lane\":{},{target},\"value\":{},\"width\":{}}}",
            if i > 0 { "," } else { "" },
            opt(w.lane),
            w.value,
            w.width
        );
    }
    o.push_str("],\"mem\":[");
    for (i, m) in s.mem.iter().enumerate() {
        let _ = write!(
            o,
            "{}{{\"lane\":{},\"kind\":\"{}\",\"addr\":{},\"bytes\":{},\"value\":{}}}",
            if i > 0 { "," } else { "" },
            m.lane,
            m.kind,
            m.addr,
            m.bytes,
            m.value
        );
    }
    o.push_str("],\"cstk\":[");
    for (i, c) in s.cstk.iter().enumerate() {
        let _ = write!(
            o,
            "{}{{\"op\":\"{}\",\"kind\":\"{}\",\"pc\":{},\"mask\":{},\"rpc\":{},\"depth\":{}}}",
            if i > 0 { "," } else { "" },
            if c.push { "push" } else { "pop" },
            c.kind,
            c.pc,
            c.mask,
            c.rpc,
            c.depth
        );
    }
    o.push_str("]}");
}

fn text_step(s: &StepRecord, o: &mut String) {
    match s.group {
        Some(g) => {
            let _ = write!(o, "g{g} pc={:#x} mask={:#x} {}", s.pc, s.mask, s.insn);
        }
        None => o.push_str(&s.insn),
    }
    for w in &s.writes {
        let target = match w.target {
            WriteTarget::Queue(q) => q.to_string(),
            WriteTarget::Gpr(r) => warpkit_linx::GPR_NAMES[r as usize].to_string(),
        };
        let _ = match w.lane {
            Some(l) => write!(o, " | l{l} ->{target}.{}={:#x}", w.width, w.value),
            None => write!(o, " | ->{target}={:#x}", w.value),
        };
    }
    for m in &s.mem {
        let _ = write!(
            o,
            " | l{} {} [{:#x}]x{}={:#x}",
            m.lane, m.kind, m.addr, m.bytes, m.value
        );
    }
    for c in &s.cstk {
        let _ = write!(
            o,
            " | CSTK {} {} pc={:#x} mask={:#x} rpc={:#x} depth={}",
            if c.push { "push" } else { "pop" },
            c.kind,
            c.pc,
            c.mask,
            c.rpc,
            c.depth
        );
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn json_error(e: &RunError) -> String {
    format!(
        "{{\"code\": \"{}\", \"group\": {}, \"lane\": {}, \"pc\": {}, \"message\": {}}}",
        e.code,
        opt(e.group),
        opt(e.lane),
        opt(e.pc),
        js(&e.message)
    )
}

/// The `--dump-state` JSON of SPEC §6.
pub fn state_json(prog: &Program, r: &RunResult) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "{{\"mode\": \"{}\", \"lanes\": {},\n \"gpr\": [",
        r.mode.name(),
        r.lanes
    );
    for (i, v) in r.gpr.iter().enumerate() {
        let _ = write!(o, "{}{v}", if i > 0 { ", " } else { "" });
    }
    o.push_str("],\n \"memory\": [");
    for (i, (addr, bytes)) in r.memory.iter().enumerate() {
        let _ = write!(
            o,
            "{}{{\"addr\": {addr}, \"bytes\": \"{}\"}}",
            if i > 0 { ",\n   " } else { "" },
            hex(bytes)
        );
    }
    let _ = write!(
        o,
        "],\n \"cstk_max_depth\": {},\n \"fflags\": {},\n \"diagnostics\": [",
        r.cstk_max_depth, r.fflags
    );
    let mut first = true;
    let mut item = |o: &mut String,
                    code: &str,
                    group: String,
                    lane: String,
                    pc: String,
                    msg: &str| {
        let _ = write!(
            o,
            "{}{{\"code\": \"{code}\", \"group\": {group}, \"lane\": {lane}, \"pc\": {pc}, \"message\": {}}}",
            if first { "" } else { ",\n   " },
            js(msg)
        );
        first = false;
    };
    for w in &prog.warnings.items {
        let pc = prog
            .body
            .iter()
            .position(|i| i.line == w.line)
            .map(|i| (warpkit_linx::BODY_BASE + 8 * i as u64).to_string())
            .unwrap_or_else(|| "null".into());
        item(
            &mut o,
            w.code,
            "null".into(),
            "null".into(),
            pc,
            &format!("line {}: {}", w.line, w.message),
        );
    }
    for d in &r.diagnostics {
        item(
            &mut o,
            d.code,
            opt(d.group),
            opt(d.lane),
            opt(d.pc),
            &d.message,
        );
    }
    o.push_str("],\n \"error\": ");
    match &r.error {
        Some(e) => o.push_str(&json_error(e)),
        None => o.push_str("null"),
    }
    o.push_str("}\n");
    o
}

fn run_program(a: RunArgs) -> Outcome {
    if let Some(p) = &a.dump_state {
        check_output_path("--dump-state", p)?;
    }
    if let Some(p) = &a.trace {
        check_output_path("--trace", p)?;
    }
    let outputs: Vec<(&str, &Path)> = [("--dump-state", &a.dump_state), ("--trace", &a.trace)]
        .into_iter()
        .filter_map(|(o, p)| p.as_deref().map(|p| (o, p)))
        .collect();
    check_distinct(&outputs, &[("program", a.file.as_path())])?;
    let (source, prog) = load(&a.file)?;
    report_warnings(&prog, &source);
    let mode = a.mode.map(|m| match m {
        ModeArg::Loop => Mode::Loop,
        ModeArg::Vect => Mode::Vect,
        ModeArg::Simt => Mode::Simt,
    });
    let mut trace_failed = None;
    let result = match &a.trace {
        None => warpkit_linx::run(
            &prog,
            RunConfig {
                mode,
                lanes: a.lanes,
                max_steps: a.max_steps,
                max_lane_steps: a.max_lane_steps,
                trace: None,
                ..RunConfig::default()
            },
        ),
        Some(path) => {
            let mut tracer = Tracer {
                out: OutputFile::create(path)?,
                format: a.trace_format,
                left: a.max_trace_bytes,
                failed: None,
                line: String::new(),
            };
            let r = warpkit_linx::run(
                &prog,
                RunConfig {
                    mode,
                    lanes: a.lanes,
                    max_steps: a.max_steps,
                    max_lane_steps: a.max_lane_steps,
                    trace: Some(&mut tracer),
                    ..RunConfig::default()
                },
            );
            match tracer.failed {
                Some(why) => trace_failed = Some(why),
                None => tracer.out.commit()?,
            }
            r
        }
    };
    let shown = a.file.display();
    for d in &result.diagnostics {
        report!(
            "{shown}: warning[{}]: {} (group {}, lane {}, pc {:#x})",
            d.code,
            d.message,
            opt(d.group),
            opt(d.lane),
            d.pc.unwrap_or(0)
        );
    }
    if result.dropped_diagnostics > 0 {
        report!(
            "{shown}: ... and {} more run-time diagnostics",
            result.dropped_diagnostics
        );
    }
    if let Some(path) = &a.dump_state {
        write_output(path, state_json(&prog, &result).as_bytes())?;
    }
    if let Some(e) = &result.error {
        let line =
            e.pc.and_then(|pc| prog.insn_at(pc))
                .map(|i| format!(":{}", i.line))
                .unwrap_or_default();
        report!("{shown}{line}: {e}");
        return Err(Failure::Exit(1));
    }
    if let Some(why) = trace_failed {
        return Err(Failure::Runtime(why));
    }
    report!(
        "{shown}: {} mode, {} lanes per group, {} groups, {} group-steps, {} lane-steps",
        result.mode.name(),
        result.lanes,
        result.groups,
        result.group_steps,
        result.lane_steps
    );
    Ok(())
}

/// The LinxISA programs `warpkit examples NAMES` selects: all of them with no names (and
/// GPU kernel names select none of them).
pub fn select_examples(names: &[String]) -> Vec<&'static warpkit_examples::linx::LinxExample> {
    if names.is_empty() {
        return warpkit_examples::linx::ALL.iter().collect();
    }
    names
        .iter()
        .filter_map(|n| warpkit_examples::linx::find(n))
        .collect()
}
