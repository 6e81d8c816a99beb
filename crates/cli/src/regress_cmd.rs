//! `warpkit regress PLAN.yaml`: run a regression plan, or one shard of it, and write its
//! JUnit and JSON Lines results; `warpkit regress merge` combines shards (docs/regressions.md).

use crate::failure::{Failure, Outcome};
use std::path::PathBuf;
use warpkit_verify::regress::{self, CaseResult, RegressError, Status};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    pub merge: Option<Merge>,
    /// The plan (YAML; docs/regressions.md).
    #[arg(required = true, value_name = "PLAN.yaml")]
    pub plan: Option<PathBuf>,
    /// Run shard I (from 0) of N: the cases whose position in the plan is I modulo N.
    /// Without it, the shard comes from SLURM_ARRAY_TASK_ID (with SLURM_ARRAY_TASK_MIN,
    /// _STEP, _COUNT) or JOB_COMPLETION_INDEX, else the whole plan is one shard.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// The shard count when the environment gives only the index (JOB_COMPLETION_INDEX);
    /// overrides the plan's `shards:`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: Option<u32>,
    /// Write junit-<I>.xml, results-<I>.jsonl and shard-<I>.json here (default
    /// regress-out; with --case, nothing is written unless --out is given).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Leave durations out of the results, so that two runs give the same bytes.
    #[arg(long)]
    pub no_timing: bool,
    /// Cases run at once.
    #[arg(short, long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: u32,
    /// Run only case ID (`SUITE/ITEM@CONFIG`, any shard; repeatable): the reproduction
    /// command of a result. Its full message goes to stderr.
    #[arg(long = "case", value_name = "ID")]
    pub cases: Vec<String>,
    /// Print the shard's cases (position, id, seed, configuration hash) instead of
    /// running them.
    #[arg(long)]
    pub list: bool,
}

#[derive(clap::Subcommand)]
pub enum Merge {
    /// Combine the shards' results (and coverage databases) into OUT/junit.xml,
    /// OUT/results.jsonl (and OUT/coverage.json): the files a one-shard run writes.
    Merge {
        /// Directories holding shards' files (every shard of the plan, once).
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// The output directory.
        #[arg(short, long, value_name = "OUT")]
        out: PathBuf,
        /// Drop durations from the merged files.
        #[arg(long)]
        no_timing: bool,
    },
}

fn failure(e: RegressError) -> Failure {
    if e.is_bad_input() {
        Failure::BadInput(e.to_string())
    } else {
        Failure::Runtime(e.to_string())
    }
}

fn warpkit() -> Result<PathBuf, Failure> {
    std::env::current_exe()
        .map_err(|e| Failure::Runtime(format!("cannot find the warpkit binary itself: {e}")))
}

pub fn run(args: Args) -> Outcome {
    if let Some(Merge::Merge {
        dirs,
        out,
        no_timing,
    }) = args.merge
    {
        return merge(dirs, out, no_timing);
    }
    let plan_path = args.plan.expect("clap requires the plan");
    let plan = regress::load(&plan_path).map_err(|e| failure(e.into()))?;
    let shard = regress::resolve(
        args.shard.as_deref(),
        regress::ShardCounts {
            flag: args.shards,
            plan: plan.shards,
        },
        &|name| std::env::var(name).ok(),
    )
    .map_err(|e| failure(e.into()))?;
    let out = match (args.out, args.cases.is_empty()) {
        (Some(o), _) => Some(o),
        (None, true) => Some(PathBuf::from("regress-out")),
        (None, false) => None,
    };
    let options = regress::RunOptions {
        warpkit: warpkit()?,
        out,
        shard,
        timing: !args.no_timing,
        jobs: args.jobs as usize,
        only: args.cases,
    };
    if args.list {
        for c in regress::select(&plan, &options).map_err(failure)? {
            let seed = c.seed.map(|s| s.to_string()).unwrap_or_else(|| "-".into());
            outln!("{}\t{}\t{}\t{}", c.index, c.id, seed, c.config_hash);
        }
        return Ok(());
    }
    let verbose = !options.only.is_empty();
    let progress = |r: &CaseResult| {
        if r.status == Status::Pass {
            return;
        }
        let word = if r.status == Status::Fail {
            "FAIL"
        } else {
            "ERROR"
        };
        let message = if verbose {
            r.message.clone()
        } else {
            r.message.lines().next().unwrap_or("").to_string()
        };
        report!("{word} {}: {message}\n  reproduce: {}", r.id, r.reproduce);
    };
    let outcome = regress::run(&plan, &options, &progress).map_err(failure)?;
    let t = outcome.totals;
    if !crate::verbosity::quiet() {
        let files: Vec<String> = outcome
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        let written = if files.is_empty() {
            String::new()
        } else {
            format!("; wrote {}", files.join(", "))
        };
        let scope = if verbose {
            "chosen cases".to_string()
        } else {
            format!("shard {}", shard)
        };
        report!(
            "regress: plan `{}`, {scope}: {} cases, {} passed, {} failed, {} errors{written}",
            plan.name,
            t.tests,
            t.tests - t.failures - t.errors,
            t.failures,
            t.errors
        );
    }
    if t.all_passed() {
        Ok(())
    } else {
        Err(Failure::Exit(1))
    }
}

fn merge(dirs: Vec<PathBuf>, out: PathBuf, no_timing: bool) -> Outcome {
    let options = regress::MergeOptions {
        warpkit: warpkit()?,
        timing: !no_timing,
    };
    let m = regress::merge(&dirs, &out, &options).map_err(failure)?;
    let t = m.totals;
    if !crate::verbosity::quiet() {
        report!(
            "regress merge: {} shards, {} cases, {} passed, {} failed, {} errors; wrote {}",
            m.shards,
            t.tests,
            t.tests - t.failures - t.errors,
            t.failures,
            t.errors,
            m.files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if t.all_passed() {
        Ok(())
    } else {
        Err(Failure::Exit(1))
    }
}
