//! The knobs of a design-space sweep (`warpkit timing sweep --set PATH=V1,V2,...`): a
//! machine field named by its TOML path, set on a base [`Machine`] through its TOML form so
//! the result is read and validated exactly like a machine file, and the grid of every
//! combination of the values swept.

use crate::machine::{Machine, MachineError};

/// One swept knob: a machine field by its TOML path and the values it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knob {
    /// The field's path in a machine file: `compute_units`, `l2.size_bytes`,
    /// `units.valu.count`, `latency.mul.vu` (everything after `latency.` is one mnemonic).
    pub path: String,
    /// The values, as TOML values (`4`, `16.0`) or bare words for the string fields
    /// (`gto`, `fill`), in the order given.
    pub values: Vec<String>,
}

/// Why a knob cannot be set.
#[derive(Debug, thiserror::Error)]
pub enum KnobError {
    /// The text is not `PATH=V1[,V2...]`.
    #[error("`{0}`: expected PATH=VALUE[,VALUE...], e.g. l2.size_bytes=262144,1048576")]
    Syntax(String),
    /// No machine field has this path.
    #[error("`{path}` is not a machine field; the fields are: {known}")]
    Unknown {
        /// The path given.
        path: String,
        /// Every path a knob can name, comma-separated.
        known: String,
    },
    /// `latency.NAME` names no instruction of the ISA database.
    #[error("`{path}`: `{mnemonic}` is not an instruction mnemonic")]
    Mnemonic {
        /// The path given.
        path: String,
        /// The mnemonic part.
        mnemonic: String,
    },
    /// The value is of the wrong type or makes the machine invalid.
    #[error("{path}={value}: {source}")]
    Value {
        /// The path given.
        path: String,
        /// The value given.
        value: String,
        /// What the machine's reader said.
        #[source]
        source: MachineError,
    },
    /// The values set make an inconsistent machine (a zero count, a cache size that is not
    /// a power of two, different line sizes).
    #[error("{settings}: {source}")]
    Invalid {
        /// The settings, `PATH=VALUE` separated by spaces.
        settings: String,
        /// What the machine's validation said.
        #[source]
        source: MachineError,
    },
}

impl Knob {
    /// Parse `PATH=V1,V2,...` (spaces around values are ignored; a value may not be empty).
    pub fn parse(text: &str) -> Result<Knob, KnobError> {
        let syntax = || KnobError::Syntax(text.to_string());
        let (path, values) = text.split_once('=').ok_or_else(syntax)?;
        let path = path.trim();
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if path.is_empty() || values.iter().any(String::is_empty) {
            return Err(syntax());
        }
        Ok(Knob {
            path: path.to_string(),
            values,
        })
    }

    /// The values as numbers, when every one is a number (to place them on a plot's axis).
    pub fn numbers(&self) -> Option<Vec<f64>> {
        self.values
            .iter()
            .map(|v| v.replace('_', "").parse::<f64>().ok())
            .collect()
    }
}

/// `value` as a TOML value: TOML syntax if it parses as such, else a string (so `gto`
/// needs no quotes on a command line).
fn toml_value(value: &str) -> toml::Value {
    format!("v = {value}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()))
}

/// The paths of every field of a machine file, sorted: what a knob can name
/// (`latency.MNEMONIC` stands for any instruction).
pub fn knob_paths() -> Vec<String> {
    fn walk(prefix: &str, table: &toml::Table, out: &mut Vec<String>) {
        for (key, value) in table {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            match value {
                toml::Value::Table(t) if key != "latency" => walk(&path, t, out),
                _ => out.push(path),
            }
        }
    }
    let mut table: toml::Table = crate::machine::DEFAULT_TOML.parse().unwrap_or_default();
    // The optional latency of every unit class, and the override table, which the default
    // machine leaves empty.
    if let Some(toml::Value::Table(units)) = table.get_mut("units") {
        for (_, unit) in units.iter_mut() {
            if let toml::Value::Table(u) = unit {
                u.entry("latency").or_insert(toml::Value::Integer(0));
            }
        }
    }
    let mut out = Vec::new();
    walk("", &table, &mut out);
    if let Some(p) = out.iter_mut().find(|p| *p == "latency") {
        *p = "latency.MNEMONIC".into();
    }
    out
}

/// `machine` with every `(path, value)` of `settings` set, read and validated as a machine
/// file is ([`Machine::from_toml`]): all at once, so knobs that must agree (the L1's and
/// the L2's `line_bytes`) can be changed together.
pub fn set_knobs(machine: &Machine, settings: &[(&str, &str)]) -> Result<Machine, KnobError> {
    let mut table: toml::Table = machine.to_toml().parse().unwrap_or_default();
    let unknown = |path: &str| KnobError::Unknown {
        path: path.to_string(),
        known: knob_paths().join(", "),
    };
    for &(path, value) in settings {
        // A mnemonic holds dots: everything after `latency.` is the key.
        let keys: Vec<&str> = match path.strip_prefix("latency.") {
            Some(mnemonic) => {
                if warpkit_isa::Op::from_mnemonic(mnemonic).is_none() {
                    return Err(KnobError::Mnemonic {
                        path: path.to_string(),
                        mnemonic: mnemonic.to_string(),
                    });
                }
                vec!["latency", mnemonic]
            }
            None => path.split('.').collect(),
        };
        let Some((last, parents)) = keys.split_last() else {
            return Err(unknown(path));
        };
        let mut at = &mut table;
        for key in parents {
            let entry = at
                .entry(key.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            at = match entry {
                toml::Value::Table(t) => t,
                _ => return Err(unknown(path)),
            };
        }
        if matches!(at.get(*last), Some(toml::Value::Table(_))) {
            return Err(unknown(path));
        }
        at.insert(last.to_string(), toml_value(value));
        // The reader rejects an unknown field (or a value of the wrong type); name the knob,
        // not a line of the generated text, by trying each setting as it is added.
        let text = table.to_string();
        if let Err(e) = Machine::from_toml(&text) {
            return Err(match e {
                MachineError::Parse { ref message, .. } if message.contains("unknown field") => {
                    unknown(path)
                }
                MachineError::Invalid { .. } => continue,
                source => KnobError::Value {
                    path: path.to_string(),
                    value: value.to_string(),
                    source,
                },
            });
        }
    }
    // A value that is invalid only in combination (or alone) shows here, after all are set.
    Machine::from_toml(&table.to_string()).map_err(|source| KnobError::Invalid {
        settings: settings
            .iter()
            .map(|(p, v)| format!("{p}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        source,
    })
}

/// Every combination of the knobs' values, as one value index per knob, the last knob
/// varying fastest (the order of nested loops over the knobs as given).
pub fn combinations(knobs: &[Knob]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for knob in knobs {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                (0..knob.values.len()).map(move |v| {
                    let mut c = prefix.clone();
                    c.push(v);
                    c
                })
            })
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_a_knob() {
        let k = Knob::parse("l2.size_bytes=262144, 1048576").unwrap();
        assert_eq!(k.path, "l2.size_bytes");
        assert_eq!(k.values, ["262144", "1048576"]);
        assert_eq!(k.numbers(), Some(vec![262144.0, 1048576.0]));
        assert_eq!(Knob::parse("cu.policy=lrr,gto").unwrap().numbers(), None);
        for bad in [
            "compute_units",
            "=1",
            "compute_units=",
            "compute_units=1,,2",
        ] {
            assert!(
                matches!(Knob::parse(bad), Err(KnobError::Syntax(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn set_fields_by_path() {
        let base = Machine::default();
        let m = set_knobs(
            &base,
            &[
                ("compute_units", "2"),
                ("l2.size_bytes", "262144"),
                ("cu.policy", "gto"),
                ("dispatch.policy", "fill"),
                ("dram.bytes_per_cycle", "16"),
                ("units.valu.latency", "6"),
                ("latency.mul.vu", "9"),
            ],
        )
        .unwrap();
        assert_eq!(m.compute_units, 2);
        assert_eq!(m.l2.size_bytes, 262144);
        assert_eq!(m.l2.ways, base.l2.ways);
        assert_eq!(m.cu.policy, crate::machine::Policy::GreedyThenOldest);
        assert_eq!(m.dispatch.policy, crate::machine::DispatchPolicy::Fill);
        assert_eq!(m.dram.bytes_per_cycle, 16.0);
        assert_eq!(m.units.valu.latency, Some(6));
        assert_eq!(m.latency.get("mul.vu"), Some(&9));
        assert_ne!(m.hash(), base.hash());
        // Nothing else moved.
        let back = set_knobs(
            &m,
            &[
                ("compute_units", "8"),
                ("l2.size_bytes", "1048576"),
                ("cu.policy", "lrr"),
                ("dispatch.policy", "round-robin"),
                ("dram.bytes_per_cycle", "32.0"),
            ],
        )
        .unwrap();
        assert_eq!(back.units.valu.latency, Some(6));
        assert_eq!(back.compute_units, base.compute_units);
        assert_eq!(back.l2, base.l2);
    }

    #[test]
    fn knobs_that_must_agree_change_together() {
        let m = set_knobs(
            &Machine::default(),
            &[("l1.line_bytes", "64"), ("l2.line_bytes", "64")],
        )
        .unwrap();
        assert_eq!((m.l1.line_bytes, m.l2.line_bytes), (64, 64));
        let e = set_knobs(&Machine::default(), &[("l1.line_bytes", "64")]).unwrap_err();
        assert!(e.to_string().contains("l2.line_bytes"), "{e}");
    }

    #[test]
    fn unknown_paths_and_bad_values_are_clear_errors() {
        let base = Machine::default();
        for path in [
            "cu.warp_slotz",
            "l3.size_bytes",
            "compute_units.x",
            "cu",
            "l2",
        ] {
            let e = set_knobs(&base, &[(path, "1")]).unwrap_err();
            assert!(matches!(e, KnobError::Unknown { .. }), "{path}: {e}");
            let text = e.to_string();
            assert!(
                text.contains("l2.size_bytes") && text.contains("cu.warp_slots"),
                "{text}"
            );
        }
        let e = set_knobs(&base, &[("latency.frobnicate", "3")]).unwrap_err();
        assert!(matches!(e, KnobError::Mnemonic { .. }), "{e}");
        let e = set_knobs(&base, &[("compute_units", "0")]).unwrap_err();
        assert!(matches!(e, KnobError::Invalid { .. }), "{e}");
        assert!(e.to_string().contains("compute_units"), "{e}");
        let e = set_knobs(&base, &[("compute_units", "many")]).unwrap_err();
        assert!(matches!(e, KnobError::Value { .. }), "{e}");
        let e = set_knobs(&base, &[("l2.size_bytes", "1000")]).unwrap_err();
        assert!(e.to_string().contains("l2.size_bytes"), "{e}");
    }

    #[test]
    fn every_listed_path_can_be_set() {
        for path in knob_paths() {
            let path = path.replace("MNEMONIC", "add.vu");
            let m = Machine::default();
            // Set each to its own value (or a valid one for the optional latencies).
            let value = match path.as_str() {
                "name" => "\"x\"".to_string(),
                p if p.starts_with("latency.")
                    || p.starts_with("units.") && p.ends_with(".latency") =>
                {
                    "30".into()
                }
                "cu.policy" => "gto".into(),
                "dispatch.policy" => "fill".into(),
                p => {
                    let t: toml::Table = m.to_toml().parse().unwrap();
                    let mut v = &toml::Value::Table(t);
                    for k in p.split('.') {
                        v = &v[k];
                    }
                    v.to_string()
                }
            };
            set_knobs(&m, &[(path.as_str(), value.as_str())])
                .unwrap_or_else(|e| panic!("{path}={value}: {e}"));
        }
    }

    #[test]
    fn combinations_in_order() {
        let knobs = [
            Knob::parse("compute_units=1,2,4").unwrap(),
            Knob::parse("l2.size_bytes=262144,1048576").unwrap(),
        ];
        let c = combinations(&knobs);
        assert_eq!(c.len(), 6);
        assert_eq!(c[0], [0, 0]);
        assert_eq!(c[1], [0, 1]);
        assert_eq!(c[5], [2, 1]);
        assert_eq!(combinations(&[]), vec![Vec::<usize>::new()]);
    }
}
