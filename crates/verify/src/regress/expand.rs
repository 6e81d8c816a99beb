//! A plan expanded into its ordered list of test cases, and the choice of a shard's cases.

use super::plan::{Plan, PlanError, Source};
use std::path::{Path, PathBuf};

/// What one case runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// Directed test number `.0` of its suite.
    Directed(usize),
    /// The program `warpkit gen` generates from this seed.
    Gen(u64),
    /// This conformance vector (absolute path).
    Vector(PathBuf),
}

/// One test case: an item of a suite under one configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// Its position in the expanded plan (shards pick cases by it).
    pub index: usize,
    /// `SUITE/ITEM@CONFIG`, unique in the plan and stable while the plan keeps the item.
    pub id: String,
    /// The suite's index in [`Plan::suites`].
    pub suite: usize,
    /// The configuration's index in [`Plan::configs`].
    pub config: usize,
    /// `ITEM@CONFIG` (JUnit's testcase name).
    pub name: String,
    /// The generator seed (`gen` suites).
    pub seed: Option<u64>,
    /// [`super::plan::Config::hash`] of its configuration.
    pub config_hash: String,
    /// What it runs.
    pub item: Item,
}

/// Expand the plan: suites in order; in a suite, items in order (directed tests as listed,
/// seeds as listed, vectors sorted by path), each under the suite's configurations in
/// order. The result depends on the plan (and the vector files present) only.
pub fn expand(plan: &Plan) -> Result<Vec<Case>, PlanError> {
    let mut cases = Vec::new();
    for (si, suite) in plan.suites.iter().enumerate() {
        let items: Vec<(String, Item, Option<u64>)> = match &suite.source {
            Source::Directed(tests) => tests
                .iter()
                .enumerate()
                .map(|(i, t)| (t.name.clone(), Item::Directed(i), None))
                .collect(),
            Source::Gen(seeds) => seeds
                .iter()
                .map(|&s| (format!("seed-{s}"), Item::Gen(s), Some(s)))
                .collect(),
            Source::Conformance(dir) => vectors(dir)?
                .into_iter()
                .map(|(name, path)| (name, Item::Vector(path), None))
                .collect(),
        };
        for (item_name, item, seed) in items {
            for &ci in &suite.configs {
                let config = &plan.configs[ci];
                let name = format!("{item_name}@{}", config.name);
                cases.push(Case {
                    index: cases.len(),
                    id: format!("{}/{name}", suite.name),
                    suite: si,
                    config: ci,
                    name,
                    seed,
                    config_hash: config.hash(),
                    item: item.clone(),
                });
            }
        }
    }
    Ok(cases)
}

/// The conformance vectors under `dir`, recursively: `*.json` files holding an object
/// with a `post` member (other JSON files, such as an index, are not vectors), named by
/// their path relative to `dir` without `.json`, sorted by that name.
fn vectors(dir: &Path) -> Result<Vec<(String, PathBuf)>, PlanError> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let entries = std::fs::read_dir(&d).map_err(|source| PlanError::Io {
            path: d.clone(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| PlanError::Io {
                path: d.clone(),
                source,
            })?;
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "json") && is_vector(&path) {
                let rel = path.strip_prefix(dir).unwrap_or(&path);
                let name = rel.with_extension("").to_string_lossy().replace('\\', "/");
                found.push((name, path));
            }
        }
    }
    found.sort();
    Ok(found)
}

fn is_vector(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    matches!(
        serde_json::from_str::<serde_json::Value>(&text),
        Ok(serde_json::Value::Object(m)) if m.contains_key("post")
    )
}

/// Which cases a shard runs: case `i` of the plan belongs to shard `i mod N` (round
/// robin, so every shard gets a share of every suite and of the slow configurations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// The number of shards.
    pub count: u32,
}

impl Shard {
    /// The whole plan in one shard.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether the case at plan position `index` belongs to this shard.
    pub fn owns(self, index: usize) -> bool {
        (index as u64) % u64::from(self.count) == u64::from(self.index)
    }

    /// This shard's cases, in plan order.
    pub fn select(self, cases: &[Case]) -> Vec<Case> {
        cases
            .iter()
            .filter(|c| self.owns(c.index))
            .cloned()
            .collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
