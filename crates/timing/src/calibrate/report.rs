//! What a calibration reports: each parameter measured beside its configured value, and
//! why a calibration could not run. A leaf below the benchmarks that fill it in.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::TimingError;

/// A parameter's value: an integer, a rate or a name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A count, size or number of cycles.
    Int(u64),
    /// A rate (bytes per cycle).
    Float(f64),
    /// A policy's name.
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:.3}"),
            Value::Text(v) => write!(f, "{v}"),
        }
    }
}

/// How far a parameter could be recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// The measured value is the parameter's value; ok when equal to the configured one.
    Exact,
    /// A rate measured to within 2%; ok when the configured value is that close.
    Within2Percent,
    /// Only the ratio count / interval is observable (a class whose units accept work at
    /// least as fast as one warp can issue it); ok when the configured ratio is equal.
    Ratio,
    /// Only a lower bound is observable (another limit is always reached first); ok when
    /// the configured value is at least the bound.
    AtLeast,
    /// The parameter has no effect the benchmarks can see on this machine; always ok.
    NotObservable,
}

/// One parameter: configured and measured values and how it was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    /// The field as a machine file spells it (`l1.hit_latency`).
    pub name: String,
    /// The machine's value.
    pub configured: Value,
    /// The value the benchmark recovered (for `at_least`, the bound); `None` when not
    /// observable.
    pub measured: Option<Value>,
    /// How far the benchmark can recover it.
    pub recovery: Recovery,
    /// The microbenchmark used.
    pub benchmark: String,
    /// Whether the measurement agrees with the configured value (see [`Recovery`]).
    pub ok: bool,
    /// Why a parameter is only bounded or not observable, or other detail.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// The result of [`calibrate`]: every parameter, configured against measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The machine's name.
    pub machine: String,
    /// The machine's hash ([`Machine::hash`]).
    pub machine_hash: String,
    /// Launches the benchmarks made.
    pub launches: u64,
    /// Every parameter, in machine-file order.
    pub parameters: Vec<Parameter>,
}

impl Calibration {
    /// Whether every parameter agrees with its configured value.
    pub fn ok(&self) -> bool {
        self.parameters.iter().all(|p| p.ok)
    }

    /// The parameters that do not agree.
    pub fn failures(&self) -> Vec<&Parameter> {
        self.parameters.iter().filter(|p| !p.ok).collect()
    }

    /// The report as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report as a text table: parameter, configured, measured, recovery, ok,
    /// benchmark.
    pub fn render_text(&self) -> String {
        let mut rows: Vec<[String; 6]> = vec![[
            "parameter".into(),
            "configured".into(),
            "measured".into(),
            "recovery".into(),
            "ok".into(),
            "benchmark".into(),
        ]];
        for p in &self.parameters {
            let recovery = match p.recovery {
                Recovery::Exact => "exact",
                Recovery::Within2Percent => "within 2%",
                Recovery::Ratio => "ratio",
                Recovery::AtLeast => "at least",
                Recovery::NotObservable => "not observable",
            };
            let measured = match (&p.measured, p.recovery) {
                (Some(v), Recovery::AtLeast) => format!(">= {v}"),
                (Some(v), _) => v.to_string(),
                (None, _) => "-".into(),
            };
            rows.push([
                p.name.clone(),
                p.configured.to_string(),
                measured,
                recovery.into(),
                if p.ok { "yes" } else { "NO" }.into(),
                p.benchmark.clone(),
            ]);
        }
        let mut widths = [0usize; 6];
        for r in &rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let mut out = format!(
            "calibration of {} ({}): {} parameters, {} not recovered, {} launches\n",
            self.machine,
            self.machine_hash,
            self.parameters.len(),
            self.failures().len(),
            self.launches
        );
        for r in &rows {
            let mut line = String::new();
            for (i, (c, w)) in r.iter().zip(widths).enumerate() {
                if i + 1 == r.len() {
                    line.push_str(c);
                } else {
                    line.push_str(&format!("{c:<w$}  "));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let notes: Vec<&Parameter> = self
            .parameters
            .iter()
            .filter(|p| !p.note.is_empty())
            .collect();
        if !notes.is_empty() {
            out.push_str("notes:\n");
            for p in notes {
                out.push_str(&format!("  {}: {}\n", p.name, p.note));
            }
        }
        out
    }
}

/// Why a calibration could not run.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// A launch failed.
    #[error(transparent)]
    Timing(#[from] TimingError),
    /// A generated microbenchmark did not assemble (a bug in the generator).
    #[error("a microbenchmark did not assemble: {0}")]
    Assemble(String),
    /// A microbenchmark trapped or did not finish.
    #[error("{0}")]
    Kernel(String),
    /// The machine cannot run the benchmarks (e.g. no workgroup of one warp fits).
    #[error("the machine cannot run the calibration: {0}")]
    Machine(String),
}
