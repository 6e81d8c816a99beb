//! `warpkit trace diff A.jsonl B.jsonl`: where two commit logs first disagree
//! (`warpkit_sim::trace_diff`). Exit 0 when equal, 1 when they differ, 2 on bad input.

use crate::failure::{Failure, Outcome};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use warpkit_sim::trace_diff::{diff_traces, DiffOptions, DiffOutcome, Difference, RecordLine};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: TraceCommand,
}

#[derive(clap::Subcommand)]
pub enum TraceCommand {
    /// Show the first record where two JSON Lines commit logs disagree, the field that
    /// differs and a few records of context; exit 0 if equal, 1 if not, 2 on bad input.
    Diff(DiffArgs),
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// First trace (`-` = stdin).
    pub a: PathBuf,
    /// Second trace (`-` = stdin).
    pub b: PathBuf,
    /// Records of context to show before and after the first difference.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub context: usize,
    /// Leave a top-level field out of the comparison (repeatable), e.g. `--ignore asm`.
    #[arg(long, value_name = "FIELD")]
    pub ignore: Vec<String>,
}

pub fn run(args: Args) -> Outcome {
    match args.command {
        TraceCommand::Diff(d) => diff(d),
    }
}

fn open(path: &Path) -> Result<Box<dyn BufRead>, Failure> {
    if path == Path::new("-") {
        return Ok(Box::new(BufReader::new(std::io::stdin())));
    }
    let f = File::open(path)
        .map_err(|e| Failure::BadInput(format!("cannot read {}: {e}", path.display())))?;
    Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
}

fn diff(args: DiffArgs) -> Outcome {
    if args.a == Path::new("-") && args.b == Path::new("-") {
        return Err(Failure::BadInput(
            "only one of the two traces can be read from stdin".into(),
        ));
    }
    let options = DiffOptions {
        context: args.context.min(1000),
        ignore: args.ignore.clone(),
    };
    let name = |p: &Path| p.display().to_string();
    let (na, nb) = (name(&args.a), name(&args.b));
    let report = diff_traces(open(&args.a)?, open(&args.b)?, &options).map_err(|e| {
        // The error names the side; name the file too.
        let s = e.to_string();
        let s =
            s.replacen("trace A:", &format!("{na}:"), 1)
                .replacen("trace B:", &format!("{nb}:"), 1);
        Failure::BadInput(s)
    })?;
    if let Some(note) = &report.note {
        report!("note: {note}");
    }
    match report.outcome {
        DiffOutcome::Equal { records } => {
            outln!("traces are equal ({records} records)");
            Ok(())
        }
        DiffOutcome::Different(d) => {
            let mut out = std::io::stdout().lock();
            let _ = write_difference(&mut out, &d, &na, &nb);
            Err(Failure::Exit(1))
        }
    }
}

fn write_difference(
    out: &mut impl Write,
    d: &Difference,
    na: &str,
    nb: &str,
) -> std::io::Result<()> {
    let line = |ctx: &[RecordLine], at: usize| ctx.get(at).map(|r| r.line);
    match (
        line(&d.context_a, d.before_a),
        line(&d.context_b, d.before_b),
    ) {
        (Some(la), Some(lb)) => writeln!(
            out,
            "traces differ at record {} ({na}:{la}, {nb}:{lb}): {}",
            d.record, d.what
        )?,
        _ => writeln!(out, "traces differ at record {}: {}", d.record, d.what)?,
    }
    if !d.path.is_empty() {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".into());
        writeln!(out, "  A: {}", show(&d.a))?;
        writeln!(out, "  B: {}", show(&d.b))?;
        if d.fields.len() > 1 {
            writeln!(out, "  fields that differ: {}", d.fields.join(", "))?;
        }
    }
    for (name, ctx, at) in [
        (na, &d.context_a, d.before_a),
        (nb, &d.context_b, d.before_b),
    ] {
        writeln!(out, "--- {name}")?;
        for (i, r) in ctx.iter().enumerate() {
            let mark = if i == at { '>' } else { ' ' };
            writeln!(out, "{mark}{:>8}: {}", r.line, r.text)?;
        }
        if ctx.len() <= at {
            writeln!(out, ">  (end of trace)")?;
        }
    }
    Ok(())
}
