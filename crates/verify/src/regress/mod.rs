//! Regressions at scale (docs/regressions.md): a YAML plan of suites × configurations is
//! expanded into an ordered list of cases; a shard (`--shard I/N`, a Slurm array task, a
//! Kubernetes Indexed Job completion) runs every N-th case and writes `junit-<I>.xml`,
//! `results-<I>.jsonl` and `shard-<I>.json`; [`merge`] combines the shards into the files a
//! one-shard run writes.
//!
//! Every step of a case is a `warpkit` subcommand run as a child process (`run`, `gen`,
//! `conformance`, `cover`), so this module depends on their command lines only.

mod exec;
pub mod expand;
pub mod plan;
pub mod report;
pub mod shard;

pub use exec::shell_quote;
pub use expand::{expand, Case, Item, Shard};
pub use plan::{load, parse, Plan, PlanError};
pub use report::{CaseResult, Status, Totals};
pub use shard::{resolve, ShardCounts, ShardError};

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// A regression that cannot run or merge.
#[derive(Debug, thiserror::Error)]
pub enum RegressError {
    /// The plan is invalid.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The shard cannot be determined.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// Other bad input: an unknown case id, shard files that do not fit together.
    #[error("{0}")]
    Input(String),
    /// An output could not be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A warpkit subcommand this step needs failed (`warpkit cover`).
    #[error("{0}")]
    Tool(String),
}

impl RegressError {
    /// Whether the error is the input's fault (exit 2) rather than the run's (exit 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            RegressError::Plan(_) | RegressError::Shard(_) | RegressError::Input(_)
        )
    }
}

/// How to run a shard.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The `warpkit` binary that runs the steps.
    pub warpkit: PathBuf,
    /// Where the shard's files go; `None` writes none (a run of chosen cases).
    pub out: Option<PathBuf>,
    /// This shard.
    pub shard: Shard,
    /// Record durations (`duration_ms`, JUnit `time`).
    pub timing: bool,
    /// Cases run at once.
    pub jobs: usize,
    /// Run only these case ids (all of the plan, not the shard's), in plan order.
    pub only: Vec<String>,
}

/// The file a shard writes beside its results, so a merge can tell that all shards of one
/// plan are there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// The plan's name.
    pub plan: String,
    /// This shard.
    pub shard: u32,
    /// The number of shards.
    pub shards: u32,
    /// Cases in this shard.
    pub cases: usize,
    /// Cases in the whole plan.
    pub total: usize,
    /// FNV-1a (16 hex digits) of the expanded plan's case ids and configuration hashes, one
    /// per line: shards of a plan edited between runs do not merge.
    pub plan_hash: String,
}

/// [`ShardManifest::plan_hash`] of these cases.
pub fn plan_hash(cases: &[Case]) -> String {
    let mut text = String::new();
    for c in cases {
        text.push_str(&c.id);
        text.push(' ');
        text.push_str(&c.config_hash);
        text.push('\n');
    }
    format!("{:016x}", plan::fnv1a(text.as_bytes()))
}

/// What a shard run did.
#[derive(Clone, Debug)]
pub struct ShardOutcome {
    /// Its results, sorted by case id.
    pub results: Vec<CaseResult>,
    /// Their totals.
    pub totals: Totals,
    /// The files written.
    pub files: Vec<PathBuf>,
}

/// A case's result and the program it ran (kept for coverage).
type Finished = (CaseResult, Option<PathBuf>);

/// The reproduction command of case `id`.
pub fn reproduce(warpkit: &Path, plan: &Path, id: &str) -> String {
    format!(
        "{} regress {} --case {}",
        shell_quote(&warpkit.display().to_string()),
        shell_quote(&plan.display().to_string()),
        shell_quote(id)
    )
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RegressError> {
    let tmp = path.with_extension("tmp");
    let err = |source| RegressError::Write {
        path: path.to_owned(),
        source,
    };
    std::fs::write(&tmp, bytes).map_err(err)?;
    std::fs::rename(&tmp, path).map_err(err)
}

/// The cases `options` selects: the named ones, or the shard's.
pub fn select(plan: &Plan, options: &RunOptions) -> Result<Vec<Case>, RegressError> {
    let cases = expand(plan)?;
    if options.only.is_empty() {
        return Ok(options.shard.select(&cases));
    }
    for id in &options.only {
        if !cases.iter().any(|c| &c.id == id) {
            let near: Vec<&str> = cases
                .iter()
                .map(|c| c.id.as_str())
                .filter(|c| c.split('@').next() == id.split('@').next())
                .take(5)
                .collect();
            let hint = if near.is_empty() {
                String::new()
            } else {
                format!(" (the plan has {})", near.join(", "))
            };
            return Err(RegressError::Input(format!(
                "--case {id}: the plan {} has no such case{hint}",
                plan.path.display()
            )));
        }
    }
    Ok(cases
        .into_iter()
        .filter(|c| options.only.contains(&c.id))
        .collect())
}

/// Run the cases `options` selects from `plan`, calling `progress` after each, and write
/// the shard's files when `options.out` is set.
pub fn run(
    plan: &Plan,
    options: &RunOptions,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<ShardOutcome, RegressError> {
    let cases = select(plan, options)?;
    let whole = expand(plan)?;
    let (total, hash) = if options.only.is_empty() {
        (whole.len(), plan_hash(&whole))
    } else {
        (cases.len(), plan_hash(&cases))
    };
    let shard = if options.only.is_empty() {
        options.shard
    } else {
        Shard::ALL
    };
    let work = match &options.out {
        Some(out) => {
            std::fs::create_dir_all(out).map_err(|source| RegressError::Write {
                path: out.clone(),
                source,
            })?;
            out.join(format!(".work-{}", shard.index))
        }
        None => std::env::temp_dir().join(format!("warpkit-regress-{}", std::process::id())),
    };
    // Absolute, so the paths the cases report and keep do not depend on the directory
    // their commands run in.
    let work = std::path::absolute(&work).map_err(|source| RegressError::Write {
        path: work.clone(),
        source,
    })?;
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|source| RegressError::Write {
        path: work.clone(),
        source,
    })?;
    let programs_dir = work.join("programs");
    let keep_programs = plan.coverage && options.out.is_some();

    let slots: Mutex<Vec<Option<Finished>>> = Mutex::new(vec![None; cases.len()]);
    let next = AtomicUsize::new(0);
    let one = |i: usize| {
        let case = &cases[i];
        let dir = work.join(case.index.to_string());
        let start = Instant::now();
        let ran = exec::run_case(plan, case, &options.warpkit, &dir);
        let elapsed = start.elapsed().as_millis() as u64;
        let mut program = ran.program;
        if keep_programs {
            // Generated programs live in the case's scratch directory; coverage runs them
            // after the last case.
            if let Some(p) = program.as_ref().filter(|p| p.starts_with(&dir)) {
                let kept = programs_dir.join(format!("{}.s", case.id.replace(['/', '@'], "-")));
                program = std::fs::create_dir_all(&programs_dir)
                    .and_then(|_| std::fs::copy(p, &kept))
                    .ok()
                    .map(|_| kept);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        let (status, message) = match ran.verdict {
            exec::Verdict::Pass => (Status::Pass, String::new()),
            exec::Verdict::Fail(m) => (Status::Fail, m),
            exec::Verdict::Error(m) => (Status::Error, m),
        };
        let result = CaseResult {
            id: case.id.clone(),
            suite: plan.suites[case.suite].name.clone(),
            name: case.name.clone(),
            seed: case.seed,
            config: plan.configs[case.config].name.clone(),
            config_hash: case.config_hash.clone(),
            status,
            message,
            reproduce: reproduce(&options.warpkit, &plan.path, &case.id),
            duration_ms: options.timing.then_some(elapsed),
        };
        progress(&result);
        slots.lock().unwrap_or_else(|p| p.into_inner())[i] = Some((result, program));
    };
    let jobs = options.jobs.clamp(1, cases.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= cases.len() {
                    break;
                }
                one(i);
            });
        }
    });
    let done = slots.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut results = Vec::with_capacity(done.len());
    let mut programs: Vec<PathBuf> = Vec::new();
    for (r, p) in done.into_iter().flatten() {
        results.push(r);
        if let Some(p) = p {
            if !programs.contains(&p) {
                programs.push(p);
            }
        }
    }
    report::sort(&mut results);
    let totals = Totals::of(&results);
    let mut files = Vec::new();
    if let Some(out) = &options.out {
        let i = shard.index;
        let junit = out.join(format!("junit-{i}.xml"));
        write_atomic(&junit, report::junit(&plan.name, &results).as_bytes())?;
        let jsonl = out.join(format!("results-{i}.jsonl"));
        write_atomic(&jsonl, report::jsonl(&results).as_bytes())?;
        let manifest = ShardManifest {
            plan: plan.name.clone(),
            shard: shard.index,
            shards: shard.count,
            cases: results.len(),
            total,
            plan_hash: hash,
        };
        let m = out.join(format!("shard-{i}.json"));
        let text = serde_json::to_string_pretty(&manifest).expect("a manifest serialises") + "\n";
        write_atomic(&m, text.as_bytes())?;
        files.extend([junit, jsonl, m]);
        if keep_programs && !programs.is_empty() {
            let db = out.join(format!("coverage-{i}.json"));
            cover(&options.warpkit, &programs, &db)?;
            files.push(db);
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(ShardOutcome {
        results,
        totals,
        files,
    })
}

/// `warpkit cover PROGRAM... -o DB`.
fn cover(warpkit: &Path, programs: &[PathBuf], db: &Path) -> Result<(), RegressError> {
    let mut cmd = std::process::Command::new(warpkit);
    cmd.args(["--quiet", "cover"])
        .args(programs)
        .arg("-o")
        .arg(db);
    tool(&mut cmd, "warpkit cover")
}

fn tool(cmd: &mut std::process::Command, what: &str) -> Result<(), RegressError> {
    let o = cmd
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| RegressError::Tool(format!("cannot run {what}: {e}")))?;
    if o.status.success() {
        return Ok(());
    }
    Err(RegressError::Tool(format!(
        "{what} failed ({}): {}",
        o.status,
        String::from_utf8_lossy(&o.stderr).trim()
    )))
}

/// How to merge.
#[derive(Clone, Debug)]
pub struct MergeOptions {
    /// The `warpkit` binary (for `warpkit cover merge`).
    pub warpkit: PathBuf,
    /// Keep durations; without, they are dropped from the merged files.
    pub timing: bool,
}

/// What a merge did.
#[derive(Clone, Debug)]
pub struct MergeOutcome {
    /// The merged results, sorted by case id.
    pub results: Vec<CaseResult>,
    /// Their totals.
    pub totals: Totals,
    /// The number of shards merged.
    pub shards: u32,
    /// The files written.
    pub files: Vec<PathBuf>,
}

/// Merge the shards found in `dirs` (their `shard-<I>.json`, `results-<I>.jsonl` and
/// `coverage-<I>.json`) into `out/junit.xml`, `out/results.jsonl` and, when shards measured
/// coverage, `out/coverage.json` (`warpkit cover merge`). Every shard of the plan must be
/// there exactly once; the merged files equal the ones a one-shard run writes.
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    options: &MergeOptions,
) -> Result<MergeOutcome, RegressError> {
    let bad = RegressError::Input;
    let mut manifests: Vec<(ShardManifest, PathBuf)> = Vec::new();
    for d in dirs {
        let entries = std::fs::read_dir(d).map_err(|e| bad(format!("{}: {e}", d.display())))?;
        let mut found = false;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !(name.starts_with("shard-") && name.ends_with(".json")) {
                continue;
            }
            let path = entry.path();
            let text = std::fs::read_to_string(&path)
                .map_err(|e| bad(format!("{}: {e}", path.display())))?;
            let m: ShardManifest = serde_json::from_str(&text).map_err(|e| {
                bad(format!(
                    "{}:{}:{}: not a shard manifest: {e}",
                    path.display(),
                    e.line(),
                    e.column()
                ))
            })?;
            found = true;
            manifests.push((m, d.clone()));
        }
        if !found {
            return Err(bad(format!(
                "{}: no shard-<I>.json: not the output of `warpkit regress --out`",
                d.display()
            )));
        }
    }
    let Some((first, _)) = manifests.first() else {
        return Err(bad("no shard directories to merge".into()));
    };
    let (plan, count, total) = (first.plan.clone(), first.shards, first.total);
    let hash = first.plan_hash.clone();
    let mut by_index: Vec<Option<PathBuf>> = vec![None; count as usize];
    for (m, d) in &manifests {
        if m.plan != plan || m.shards != count || m.total != total || m.plan_hash != hash {
            return Err(bad(format!(
                "{}: shard {}/{} of plan `{}` ({} cases, hash {}) does not belong with shard {}/{} of plan `{}` ({} cases, hash {})",
                d.display(), m.shard, m.shards, m.plan, m.total, m.plan_hash, first.shard, first.shards, plan, total, hash
            )));
        }
        let slot = by_index.get_mut(m.shard as usize).ok_or_else(|| {
            bad(format!(
                "{}: shard {}/{} is out of range",
                d.display(),
                m.shard,
                m.shards
            ))
        })?;
        if let Some(other) = slot {
            return Err(bad(format!(
                "shard {}/{count} is in both {} and {}",
                m.shard,
                other.display(),
                d.display()
            )));
        }
        *slot = Some(d.clone());
    }
    let missing: Vec<String> = by_index
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_none())
        .map(|(i, _)| i.to_string())
        .collect();
    if !missing.is_empty() {
        let which = if missing.len() == 1 {
            format!("shard {} of {count} is missing", missing[0])
        } else {
            format!("shards {} of {count} are missing", missing.join(", "))
        };
        return Err(bad(format!("{which} (a lost array task?): nothing merged")));
    }
    let mut results: Vec<CaseResult> = Vec::new();
    let mut coverage = Vec::new();
    for (i, d) in by_index.iter().enumerate() {
        let d = d.as_ref().expect("every shard was found");
        let path = d.join(format!("results-{i}.jsonl"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let mut n = 0;
        for (line_no, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let mut r: CaseResult = serde_json::from_str(line).map_err(|e| {
                bad(format!(
                    "{}:{}:{}: not a result: {e}",
                    path.display(),
                    line_no + 1,
                    e.column()
                ))
            })?;
            if !options.timing {
                r.duration_ms = None;
            }
            results.push(r);
            n += 1;
        }
        let m = &manifests
            .iter()
            .find(|(m, md)| m.shard as usize == i && md == d)
            .expect("the manifest of a found shard")
            .0;
        if n != m.cases {
            return Err(bad(format!(
                "{}: {n} results, but shard-{i}.json says {} (a shard cut short?)",
                path.display(),
                m.cases
            )));
        }
        let db = d.join(format!("coverage-{i}.json"));
        if db.is_file() {
            coverage.push(db);
        }
    }
    report::sort(&mut results);
    if let Some(w) = results.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(bad(format!("case {} is in two shards' results", w[0].id)));
    }
    if results.len() != total {
        return Err(bad(format!(
            "{} results for a plan of {total} cases",
            results.len()
        )));
    }
    std::fs::create_dir_all(out).map_err(|source| RegressError::Write {
        path: out.to_owned(),
        source,
    })?;
    let junit = out.join("junit.xml");
    write_atomic(&junit, report::junit(&plan, &results).as_bytes())?;
    let jsonl = out.join("results.jsonl");
    write_atomic(&jsonl, report::jsonl(&results).as_bytes())?;
    let mut files = vec![junit, jsonl];
    if !coverage.is_empty() {
        let db = out.join("coverage.json");
        let mut cmd = std::process::Command::new(&options.warpkit);
        cmd.args(["--quiet", "cover", "merge"])
            .args(&coverage)
            .arg("-o")
            .arg(&db);
        tool(&mut cmd, "warpkit cover merge")?;
        files.push(db);
    }
    let totals = Totals::of(&results);
    Ok(MergeOutcome {
        results,
        totals,
        shards: count,
        files,
    })
}
