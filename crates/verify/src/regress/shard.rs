//! Which shard this process runs: `--shard I/N`, a Slurm job array's task, or a Kubernetes
//! Indexed Job's completion index.

use super::expand::Shard;

/// A shard that cannot be determined.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShardError(pub String);

/// Where the shard count comes from when only an index is known: `--shards N`, else the
/// plan's `shards:`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShardCounts {
    /// `--shards N`.
    pub flag: Option<u32>,
    /// The plan's `shards:`.
    pub plan: Option<u32>,
}

/// The shard, from the first of: `--shard I/N` (`explicit`); Slurm's
/// `SLURM_ARRAY_TASK_ID` (index `(ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP`, count
/// `SLURM_ARRAY_TASK_COUNT`, else the counts); Kubernetes' `JOB_COMPLETION_INDEX` (count from
/// the counts); else the whole plan. `env` reads an environment variable.
pub fn resolve(
    explicit: Option<&str>,
    counts: ShardCounts,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Shard, ShardError> {
    if let Some(text) = explicit {
        return parse_spec(text);
    }
    let count_from = |what: &str| -> Result<u32, ShardError> {
        counts.flag.or(counts.plan).ok_or_else(|| {
            ShardError(format!(
                "{what} gives the shard index but not the shard count: give --shards N or the plan's `shards:`"
            ))
        })
    };
    let number = |name: &str| -> Result<Option<u64>, ShardError> {
        match env(name) {
            None => Ok(None),
            Some(v) if v.trim().is_empty() => Ok(None),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| ShardError(format!("{name}={v}: not a non-negative integer"))),
        }
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
        if id < min || (id - min) % step != 0 {
            return Err(ShardError(format!(
                "SLURM_ARRAY_TASK_ID={id} is not in the array {min}, {}, ... (SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP)",
                min + step
            )));
        }
        let count = match number("SLURM_ARRAY_TASK_COUNT")? {
            Some(c) => u32::try_from(c)
                .map_err(|_| ShardError(format!("SLURM_ARRAY_TASK_COUNT={c}: too large")))?,
            None => count_from("SLURM_ARRAY_TASK_ID")?,
        };
        return checked((id - min) / step, count, "SLURM_ARRAY_TASK_ID");
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let count = count_from("JOB_COMPLETION_INDEX")?;
        return checked(index, count, "JOB_COMPLETION_INDEX");
    }
    Ok(Shard::ALL)
}

fn checked(index: u64, count: u32, what: &str) -> Result<Shard, ShardError> {
    if count == 0 {
        return Err(ShardError(format!("{what}: the shard count is 0")));
    }
    if index >= u64::from(count) {
        return Err(ShardError(format!(
            "{what}: shard {index} of {count} does not exist (shards are 0..{})",
            count - 1
        )));
    }
    Ok(Shard {
        index: index as u32,
        count,
    })
}

/// `I/N`: shard I (0-based) of N.
pub fn parse_spec(text: &str) -> Result<Shard, ShardError> {
    let bad = || {
        ShardError(format!(
            "--shard {text}: expected I/N, shard I (from 0) of N, e.g. 0/4"
        ))
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let i: u64 = i.trim().parse().map_err(|_| bad())?;
    let n: u32 = n.trim().parse().map_err(|_| bad())?;
    checked(i, n, &format!("--shard {text}"))
}
