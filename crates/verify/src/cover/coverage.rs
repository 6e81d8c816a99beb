//! Measured coverage: per bin its hit count and the first program that hit it; merging
//! (commutative and associative) and the coverage database file (JSON).

use super::model::{Category, Model};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The schema name of a coverage database.
pub const DATABASE_SCHEMA: &str = "warpkit-coverage";
/// The version of the coverage database schema.
pub const DATABASE_VERSION: u32 = 1;

/// One bin's measurement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinStat {
    /// The bin's report category ([`Category::name`]).
    pub category: String,
    /// How many times it was hit: once per executed instruction (or trap, or CSR access)
    /// that showed it.
    pub hits: u64,
    /// The first program that hit it (see [`first_of`]); `None` while it is not hit.
    pub first: Option<String>,
}

/// Coverage of a set of programs: every bin of the model(s) it was measured with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Coverage {
    /// The programs (and traces) measured.
    pub programs: BTreeSet<String>,
    /// Per bin id (`COVERPOINT/BIN`), its measurement.
    pub bins: BTreeMap<String, BinStat>,
}

/// A coverage database that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a coverage database.
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

#[derive(Serialize, Deserialize)]
struct DatabaseFile {
    schema: String,
    version: u32,
    programs: BTreeSet<String>,
    bins: BTreeMap<String, BinStat>,
}

/// Compare program names in natural order: runs of digits compare as numbers, so
/// `gen-9.s` comes before `gen-10.s`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let n = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let m = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (dx, dy) = (&x[..n], &y[..m]);
                let tx = dx.iter().skip_while(|&&c| c == b'0').count();
                let ty = dy.iter().skip_while(|&&c| c == b'0').count();
                let o = tx.cmp(&ty).then_with(|| dx[n - tx..].cmp(&dy[m - ty..]));
                if o != Ordering::Equal {
                    return o;
                }
                x = &x[n..];
                y = &y[m..];
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

/// Which of two first-hitting programs is "first": the earlier in natural name order
/// ([`natural_cmp`]). Symmetric, so merging shards in any order gives one answer, and for
/// programs run in name order (`gen-<seed>.s`) it is the first that ran.
pub fn first_of(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if natural_cmp(&a, &b) == Ordering::Greater {
            b
        } else {
            a
        }),
        (a, b) => a.or(b),
    }
}

impl Coverage {
    /// Every bin of `model`, none hit, no program.
    pub fn empty(model: &Model) -> Coverage {
        Coverage {
            programs: BTreeSet::new(),
            bins: model
                .bins()
                .iter()
                .map(|b| {
                    (
                        b.id.clone(),
                        BinStat {
                            category: b.category.name().to_string(),
                            hits: 0,
                            first: None,
                        },
                    )
                })
                .collect(),
        }
    }

    /// The coverage of one program, `program`, whose hits per model bin are `hits`.
    pub(crate) fn from_hits(model: &Model, hits: &[u64], program: &str) -> Coverage {
        let mut c = Coverage::empty(model);
        c.programs.insert(program.to_string());
        for (bin, &n) in model.bins().iter().zip(hits) {
            if n > 0 {
                if let Some(s) = c.bins.get_mut(&bin.id) {
                    s.hits += n;
                    s.first = Some(program.to_string());
                }
            }
        }
        c
    }

    /// Add `other` to this coverage: hits add up, the first program of a bin is the
    /// earlier of the two ([`first_of`]), bins and programs are united. Commutative and
    /// associative.
    pub fn merge(&mut self, other: &Coverage) {
        self.programs.extend(other.programs.iter().cloned());
        for (id, s) in &other.bins {
            match self.bins.get_mut(id) {
                Some(mine) => {
                    mine.hits += s.hits;
                    mine.first = first_of(mine.first.take(), s.first.clone());
                    if s.category < mine.category {
                        mine.category = s.category.clone();
                    }
                }
                None => {
                    self.bins.insert(id.clone(), s.clone());
                }
            }
        }
    }

    /// Bins hit at least once.
    pub fn hit_count(&self) -> usize {
        self.bins.values().filter(|s| s.hits > 0).count()
    }

    /// Per category (in report order, then any other names): bins and bins hit.
    pub fn summary(&self) -> Vec<(String, usize, usize)> {
        let mut by: BTreeMap<(usize, String), (usize, usize)> = BTreeMap::new();
        for s in self.bins.values() {
            let order = Category::from_name(&s.category)
                .and_then(|c| Category::ALL.iter().position(|x| *x == c))
                .unwrap_or(Category::ALL.len());
            let e = by.entry((order, s.category.clone())).or_default();
            e.0 += 1;
            e.1 += usize::from(s.hits > 0);
        }
        by.into_iter().map(|((_, c), (n, h))| (c, n, h)).collect()
    }

    /// The coverage database (JSON, docs/coverage.md).
    pub fn to_json(&self) -> String {
        let file = DatabaseFile {
            schema: DATABASE_SCHEMA.into(),
            version: DATABASE_VERSION,
            programs: self.programs.clone(),
            bins: self.bins.clone(),
        };
        let mut s = serde_json::to_string_pretty(&file).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Read a coverage database; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<Coverage, DatabaseError> {
        let invalid = |line: usize, column: usize, message: String| DatabaseError::Invalid {
            file: file.to_string(),
            line,
            column,
            message,
        };
        let parsed: DatabaseFile =
            serde_json::from_str(text).map_err(|e| invalid(e.line(), e.column(), e.to_string()))?;
        if parsed.schema != DATABASE_SCHEMA || parsed.version != DATABASE_VERSION {
            return Err(invalid(
                1,
                1,
                format!(
                    "schema {} version {}: expected {DATABASE_SCHEMA} version {DATABASE_VERSION}",
                    parsed.schema, parsed.version
                ),
            ));
        }
        Ok(Coverage {
            programs: parsed.programs,
            bins: parsed.bins,
        })
    }

    /// Read the coverage database at `path`.
    pub fn load(path: &std::path::Path) -> Result<Coverage, DatabaseError> {
        let text = std::fs::read_to_string(path).map_err(|source| DatabaseError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Coverage::from_json(&text, &path.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        assert_eq!(natural_cmp("gen-9.s", "gen-10.s"), Ordering::Less);
        assert_eq!(natural_cmp("gen-010.s", "gen-9.s"), Ordering::Greater);
        assert_eq!(natural_cmp("a.s", "b.s"), Ordering::Less);
        assert_eq!(natural_cmp("a", "a.s"), Ordering::Less);
        assert_eq!(natural_cmp("x01", "x1"), "x01".cmp("x1"));
    }
}
