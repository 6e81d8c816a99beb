//! `warpkit gen`: constrained-random programs from the ISA database (docs/gen.md). One
//! program to stdout, `--count N -o DIR` files `DIR/gen-<seed>.s`, or `--check` to run
//! each on both engines and compare signatures. Exit 0 on success, 1 when a checked
//! program fails, 2 on bad input.

use crate::failure::{Failure, Outcome};
use crate::output::write_output;
use std::path::PathBuf;
use std::time::Instant;
use warpkit_verify::gen::{generate, GenOptions, StreamKind, Weights, MAX_LENGTH};

#[derive(clap::Args)]
pub struct Args {
    /// The first seed (decimal or 0x hex); programs are reproducible from it byte for byte.
    #[arg(long, value_parser = crate::numbers::u64_arg)]
    pub seed: u64,
    /// Generate seeds SEED..SEED+N-1 (more than one needs -o DIR or --check).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = crate::numbers::u64_arg)]
    pub count: u64,
    /// Write to this file (one program) or directory (files gen-<seed>.s) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Instructions in each program's body, about.
    #[arg(long, default_value_t = warpkit_verify::gen::DEFAULT_LENGTH, value_name = "L", value_parser = crate::numbers::usize_arg)]
    pub length: usize,
    /// Weights of instruction groups and instructions, and stream rates (YAML, docs/gen.md).
    #[arg(long, value_name = "W.yaml")]
    pub weights: Option<PathBuf>,
    /// Only these stream kinds, comma-separated (exec, operands, pairs, memory, barrier,
    /// waitcnt, csr, float, branch); `none` for none.
    #[arg(long, value_name = "KIND,...")]
    pub streams: Option<String>,
    /// End each program with a trapping operation (illegal or reserved encodings,
    /// misaligned or out-of-bounds accesses, illegal CSR accesses); docs/gen.md "Traps".
    #[arg(long)]
    pub traps: bool,
    /// Instead of writing the programs, run each on the interpreter and the translation
    /// tier and check that it regenerates, runs clean and gives one signature.
    #[arg(long, conflicts_with_all = ["output", "traps"])]
    pub check: bool,
}

pub fn run(args: Args) -> Outcome {
    let options = options(&args)?;
    if args.check {
        return check(&args, &options);
    }
    let last = args
        .seed
        .checked_add(args.count.saturating_sub(1))
        .ok_or_else(|| {
            Failure::BadInput(format!(
                "--seed {} --count {}: past the last seed",
                args.seed, args.count
            ))
        })?;
    if args.count == 0 {
        return Err(Failure::BadInput("--count must be at least 1".into()));
    }
    match &args.output {
        None if args.count > 1 => Err(Failure::BadInput(
            "--count N with N > 1 writes files: give -o DIR".into(),
        )),
        None => {
            out!("{}", generate(&options, args.seed).text);
            Ok(())
        }
        Some(path) if args.count == 1 && !path.is_dir() => {
            write_output(path, generate(&options, args.seed).text.as_bytes())
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                Failure::BadInput(format!("cannot create directory {}: {e}", dir.display()))
            })?;
            for seed in args.seed..=last {
                let p = generate(&options, seed);
                write_output(&dir.join(format!("gen-{seed}.s")), p.text.as_bytes())?;
            }
            Ok(())
        }
    }
}

fn options(args: &Args) -> Result<GenOptions, Failure> {
    if args.length > MAX_LENGTH {
        return Err(Failure::BadInput(format!(
            "--length {}: at most {MAX_LENGTH}",
            args.length
        )));
    }
    let weights = match &args.weights {
        Some(path) => Weights::load(path).map_err(|e| Failure::BadInput(e.to_string()))?,
        None => Weights::default(),
    };
    let streams = match args.streams.as_deref() {
        None => None,
        Some("none") => Some(Vec::new()),
        Some(list) => Some(
            list.split(',')
                .map(|name| {
                    StreamKind::from_name(name.trim()).ok_or_else(|| {
                        let names: Vec<&str> = StreamKind::ALL.iter().map(|k| k.name()).collect();
                        Failure::BadInput(format!(
                            "--streams: unknown stream kind `{name}` (expected {} or none)",
                            names.join(", ")
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    Ok(GenOptions {
        length: args.length,
        weights,
        streams,
        traps: args.traps,
    })
}

fn check(args: &Args, options: &GenOptions) -> Outcome {
    let start = Instant::now();
    let mut failed = 0u64;
    let mut instructions = 0u64;
    for k in 0..args.count {
        let Some(seed) = args.seed.checked_add(k) else {
            break;
        };
        let p = generate(options, seed);
        instructions += p.body_instructions as u64;
        if let Err(e) = warpkit_verify::signature::check(&p, options) {
            failed += 1;
            report!("error: seed {seed}: {e}");
        }
    }
    outln!(
        "{} program(s) from seed {}, {} body instructions: {} passed, {} failed, {:.1} s",
        args.count,
        args.seed,
        instructions,
        args.count - failed,
        failed,
        start.elapsed().as_secs_f64()
    );
    if failed > 0 {
        return Err(Failure::Exit(1));
    }
    Ok(())
}
