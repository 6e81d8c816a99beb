//! The weights file (`--weights W.yaml`, docs/gen.md "Weights"): how often each instruction
//! group and instruction is drawn, and how often each stream kind is inserted. A small
//! subset of YAML, read line by line so every error names its line and column.

use super::{eligible, StreamKind};
use std::collections::BTreeMap;
use std::path::Path;
use warpkit_isa::{Op, SUBGROUPS};

/// The largest weight or rate accepted.
pub const MAX_WEIGHT: u32 = 1_000_000;

/// Weights of instruction groups and instructions, and stream rates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Weights {
    /// Relative weight of each database subgroup (`valu-int`, `f32`, ...) by id; a group
    /// not named weighs [`DEFAULT_GROUP_WEIGHT`].
    pub groups: BTreeMap<String, u32>,
    /// Relative weight of an instruction within its group, by mnemonic; one not named
    /// weighs 1.
    pub instructions: BTreeMap<String, u32>,
    /// Insertions per 1000 instructions of each stream kind; a kind not named has its
    /// default rate ([`StreamKind::default_rate`]).
    pub streams: BTreeMap<StreamKind, u32>,
}

/// The weight of a group the weights do not name.
pub const DEFAULT_GROUP_WEIGHT: u32 = 10;
/// The default weight of the `sys` group, whose one randomly drawn instruction is `nop`.
pub const DEFAULT_SYS_WEIGHT: u32 = 1;

/// A weights file that cannot be used, located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// The file could not be read.
    #[error("cannot read {file}: {reason}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
    /// A line is wrong.
    #[error("{file}:{line}:{column}: {message}")]
    At {
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Groups,
    Instructions,
    Streams,
}

impl Weights {
    /// Read the weights file at `path`.
    pub fn load(path: &Path) -> Result<Weights, WeightsError> {
        let text = std::fs::read_to_string(path).map_err(|e| WeightsError::Read {
            file: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Weights::parse(&text, &path.display().to_string())
    }

    /// Read weights from `text` (named `file` in errors).
    pub fn parse(text: &str, file: &str) -> Result<Weights, WeightsError> {
        let mut w = Weights::default();
        let mut section = None;
        let mut seen: BTreeMap<(u8, String), usize> = BTreeMap::new();
        for (i, raw) in text.lines().enumerate() {
            let err = |col: usize, message: String| WeightsError::At {
                file: file.to_string(),
                line: i + 1,
                column: raw[..col.min(raw.len())].chars().count() + 1,
                message,
            };
            let line = raw.split('#').next().unwrap_or("").trim_end();
            if line.trim().is_empty() || line.trim() == "---" {
                continue;
            }
            if line.contains('\t') {
                return Err(err(
                    line.find('\t').unwrap_or(0),
                    "tabs are not allowed".into(),
                ));
            }
            let indent = line.len() - line.trim_start().len();
            let body = line.trim_start();
            let Some((key, value)) = body.split_once(':') else {
                return Err(err(
                    indent,
                    format!("expected `name: value`, found `{body}`"),
                ));
            };
            let key = key.trim();
            let value = value.trim();
            let value_col = indent + body.find(':').unwrap_or(0) + 1 + {
                let after = &body[body.find(':').unwrap_or(0) + 1..];
                after.len() - after.trim_start().len()
            };
            if indent == 0 {
                if !value.is_empty() {
                    return Err(err(
                        value_col,
                        "a section takes no value on its line".into(),
                    ));
                }
                section = Some(match key {
                    "groups" => Section::Groups,
                    "instructions" => Section::Instructions,
                    "streams" => Section::Streams,
                    _ => {
                        return Err(err(
                            0,
                            format!(
                                "unknown section `{key}` (expected groups, instructions or streams)"
                            ),
                        ))
                    }
                });
                continue;
            }
            let Some(section) = section else {
                return Err(err(
                    indent,
                    "an indented entry outside a section (groups, instructions, streams)".into(),
                ));
            };
            let n: u32 = value
                .parse()
                .ok()
                .filter(|&n| n <= MAX_WEIGHT)
                .ok_or_else(|| {
                    err(
                        value_col,
                        format!("`{value}` is not a weight (an integer from 0 to {MAX_WEIGHT})"),
                    )
                })?;
            let tag = section as u8;
            if let Some(first) = seen.insert((tag, key.to_string()), i + 1) {
                return Err(err(
                    indent,
                    format!("`{key}` is given twice (first on line {first})"),
                ));
            }
            match section {
                Section::Groups => {
                    let Some(g) = SUBGROUPS.iter().find(|g| g.id == key) else {
                        return Err(err(indent, format!("unknown instruction group `{key}`")));
                    };
                    let ops = &warpkit_isa::ALL_OPS
                        [usize::from(g.first)..usize::from(g.first) + usize::from(g.len)];
                    if !ops.iter().any(|&op| eligible(op)) {
                        return Err(err(
                            indent,
                            format!(
                                "group `{key}` is never drawn at random (its instructions come \
                                 from the streams: weight the stream instead)"
                            ),
                        ));
                    }
                    w.groups.insert(key.to_string(), n);
                }
                Section::Instructions => {
                    let Some(op) = Op::from_mnemonic(key) else {
                        return Err(err(indent, format!("unknown instruction `{key}`")));
                    };
                    if !eligible(op) {
                        return Err(err(
                            indent,
                            format!(
                                "`{key}` is never drawn at random (branches, EXEC writes, memory, \
                                 CSR and system instructions come from the streams: weight the \
                                 stream instead)"
                            ),
                        ));
                    }
                    w.instructions.insert(op.mnemonic().to_string(), n);
                }
                Section::Streams => {
                    let Some(kind) = StreamKind::from_name(key) else {
                        let names: Vec<&str> = StreamKind::ALL.iter().map(|k| k.name()).collect();
                        return Err(err(
                            indent,
                            format!(
                                "unknown stream kind `{key}` (expected one of {})",
                                names.join(", ")
                            ),
                        ));
                    };
                    w.streams.insert(kind, n);
                }
            }
        }
        Ok(w)
    }

    /// The weight of group `id`.
    pub fn group(&self, id: &str) -> u32 {
        let default = if id == "sys" {
            // The group's one random instruction is `nop`: drawn rarely unless asked for.
            DEFAULT_SYS_WEIGHT
        } else {
            DEFAULT_GROUP_WEIGHT
        };
        self.groups.get(id).copied().unwrap_or(default)
    }

    /// The weight of instruction `op` within its group.
    pub fn instruction(&self, op: Op) -> u32 {
        self.instructions.get(op.mnemonic()).copied().unwrap_or(1)
    }

    /// The rate of stream `kind` per 1000 instructions.
    pub fn stream(&self, kind: StreamKind) -> u32 {
        self.streams
            .get(&kind)
            .copied()
            .unwrap_or_else(|| kind.default_rate())
    }

    /// The weights as the file format writes them (the header comment of a program shows
    /// the options it was generated with).
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for (k, v) in &self.groups {
            parts.push(format!("{k}={v}"));
        }
        for (k, v) in &self.instructions {
            parts.push(format!("{k}={v}"));
        }
        for (k, v) in &self.streams {
            parts.push(format!("stream.{}={v}", k.name()));
        }
        parts.join(" ")
    }
}
