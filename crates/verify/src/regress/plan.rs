//! The regression plan (docs/regressions.md): configurations and suites read from YAML,
//! checked, with every path resolved against the plan's directory. Errors name
//! file:line:col.

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default of the plan's `timeout:` per case, in seconds.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 600;

/// A plan that could not be read or is invalid.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The plan (or a file it names) cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The plan is invalid at this place.
    #[error("{}:{line}:{column}: {message}", path.display())]
    At {
        /// The file (the plan, or a test list it names).
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// What is wrong.
        message: String,
    },
}

/// Which engine of warpkit runs a case (`warpkit run --engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The translation tier.
    Jit,
    /// The interpreter.
    Interp,
}

impl Engine {
    /// The name `--engine` takes.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Jit => "jit",
            Engine::Interp => "interp",
        }
    }
}

/// Launch options a configuration passes to `warpkit run` (and to a program DUT).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchOverrides {
    /// `--grid X[,Y,Z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<String>,
    /// `--block X[,Y,Z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// `--shared BYTES`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared: Option<u32>,
    /// `--scratch BYTES`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch: Option<u32>,
    /// `--max-steps N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u64>,
    /// `--arg NAME=VALUE`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
}

impl LaunchOverrides {
    /// The `warpkit run` options these overrides stand for.
    pub fn to_args(&self) -> Vec<String> {
        let mut a = Vec::new();
        let mut push = |flag: &str, value: String| {
            a.push(flag.to_string());
            a.push(value);
        };
        if let Some(g) = &self.grid {
            push("--grid", g.clone());
        }
        if let Some(b) = &self.block {
            push("--block", b.clone());
        }
        if let Some(s) = self.shared {
            push("--shared", s.to_string());
        }
        if let Some(s) = self.scratch {
            push("--scratch", s.to_string());
        }
        if let Some(m) = self.max_steps {
            push("--max-steps", m.to_string());
        }
        for arg in &self.args {
            push("--arg", arg.clone());
        }
        a
    }
}

/// Options a configuration passes to `warpkit gen`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenSettings {
    /// `--length L`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// `--weights FILE` (relative to the plan's directory in the YAML, absolute here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<PathBuf>,
    /// `--traps`: the programs may trap (then both sides of a comparison must agree on
    /// the trap instead of both ending cleanly).
    #[serde(default, skip_serializing_if = "is_false")]
    pub traps: bool,
    /// `--streams A,B,...`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl GenSettings {
    /// The `warpkit gen` options these settings stand for (after `--seed`).
    pub fn to_args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(l) = self.length {
            a.extend(["--length".to_string(), l.to_string()]);
        }
        if let Some(w) = &self.weights {
            a.extend(["--weights".to_string(), w.display().to_string()]);
        }
        if self.traps {
            a.push("--traps".to_string());
        }
        if !self.streams.is_empty() {
            a.extend(["--streams".to_string(), self.streams.join(",")]);
        }
        a
    }
}

/// One configuration: every case of a suite runs once per configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Config {
    /// Its name (part of case ids).
    #[serde(skip)]
    pub name: String,
    /// `--engine`; none = warpkit's default. Comparisons of the two engines ignore it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// `--threads`; none = warpkit's default (results do not depend on it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Launch overrides.
    pub launch: LaunchOverrides,
    /// Generator options (used by `gen` suites only).
    pub gen: GenSettings,
}

impl Config {
    /// The configuration hash: FNV-1a (64 bits, 16 hex digits) of the configuration's
    /// settings as canonical JSON, its name left out, so renaming a configuration keeps its
    /// hash and changing any setting changes it.
    pub fn hash(&self) -> String {
        let json = serde_json::to_string(self).expect("a configuration serialises");
        format!("{:016x}", fnv1a(json.as_bytes()))
    }

    /// The `warpkit run` options of this configuration except the engine: threads and
    /// launch overrides.
    pub fn run_args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(t) = self.threads {
            a.extend(["--threads".to_string(), t.to_string()]);
        }
        a.extend(self.launch.to_args());
        a
    }
}

/// 64-bit FNV-1a: a stable hash that needs no dependency.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// One directed test: a program and the outcome it must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectedTest {
    /// Its name in case ids (the file's stem unless the plan names it).
    pub name: String,
    /// The program (absolute).
    pub file: PathBuf,
    /// Expected exit code of `warpkit run` (0 = ran cleanly, 1 = trapped or hit a limit).
    pub exit: i32,
    /// Text that `warpkit run`'s stderr must contain.
    pub stderr: Option<String>,
    /// Buffers (`--out NAME=...`) that must equal these files byte for byte.
    pub outputs: BTreeMap<String, PathBuf>,
}

/// What a suite runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Directed tests: programs with expected outcomes.
    Directed(Vec<DirectedTest>),
    /// Programs `warpkit gen` generates from these seeds.
    Gen(Vec<u64>),
    /// The conformance vectors (`*.json` files with a `post` object) under this directory,
    /// found when the plan is expanded.
    Conformance(PathBuf),
}

/// What a suite's results are checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Against {
    /// Directed tests: their expected outcomes; conformance: the vectors' expected
    /// post-states, computed by warpkit's own DUT (`warpkit conformance dut`).
    Expected,
    /// warpkit's two engines against each other (state dumps and buffers equal).
    Engines,
    /// A device under test: a shell command (docs/regressions.md, "DUTs").
    Dut(String),
}

/// One suite of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suite {
    /// Its name (first part of case ids).
    pub name: String,
    /// What it runs.
    pub source: Source,
    /// What results are checked against.
    pub against: Against,
    /// The configurations it runs under, as indices into [`Plan::configs`].
    pub configs: Vec<usize>,
    /// Buffers compared between engines or with a DUT.
    pub outputs: Vec<String>,
}

/// A checked plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The plan file, absolute.
    pub path: PathBuf,
    /// The plan's name (JUnit's `testsuites` name): `name:` or the file's stem.
    pub name: String,
    /// `shards:`, the shard count used when only a shard index is given.
    pub shards: Option<u32>,
    /// Time limit of one case.
    pub timeout: Duration,
    /// Whether every shard measures coverage over its programs (`warpkit cover`).
    pub coverage: bool,
    /// The configurations, at least one (`default`, with no settings, when the plan has none).
    pub configs: Vec<Config>,
    /// The suites, in order.
    pub suites: Vec<Suite>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    name: Option<Spanned<String>>,
    shards: Option<Spanned<u32>>,
    timeout: Option<Spanned<u64>>,
    #[serde(default)]
    coverage: bool,
    #[serde(default)]
    configs: Vec<RawConfig>,
    suites: Option<Vec<RawSuite>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    name: Spanned<String>,
    engine: Option<Engine>,
    threads: Option<u32>,
    #[serde(default)]
    launch: LaunchOverrides,
    #[serde(default)]
    gen: Option<RawGen>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGen {
    length: Option<u64>,
    weights: Option<Spanned<String>>,
    #[serde(default)]
    traps: bool,
    #[serde(default)]
    streams: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    name: Spanned<String>,
    kind: Spanned<String>,
    #[serde(default)]
    tests: Vec<RawTest>,
    list: Option<Spanned<String>>,
    seeds: Option<Spanned<RawSeeds>>,
    dir: Option<Spanned<String>>,
    against: Option<Spanned<String>>,
    dut: Option<Spanned<String>>,
    configs: Option<Vec<Spanned<String>>>,
    outputs: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawSeeds {
    List(Vec<u64>),
    Range { first: u64, count: u64 },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTest {
    file: Spanned<String>,
    name: Option<Spanned<String>>,
    #[serde(default)]
    exit: i32,
    stderr: Option<String>,
    #[serde(default)]
    outputs: BTreeMap<String, String>,
}

/// At most this many cases per `gen` suite and seed range (a typo such as an extra digit
/// must not expand to billions of cases).
pub const MAX_SEEDS: u64 = 1_000_000;

/// Read and check the plan at `path`.
pub fn load(path: &Path) -> Result<Plan, PlanError> {
    let text = std::fs::read_to_string(path).map_err(|source| PlanError::Io {
        path: path.to_owned(),
        source,
    })?;
    let abs = std::path::absolute(path).map_err(|source| PlanError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse(&abs, &text)
}

/// Check the plan `text`, read from `path` (which locates errors and the relative paths
/// inside the plan).
pub fn parse(path: &Path, text: &str) -> Result<Plan, PlanError> {
    let at = |line: u64, column: u64, message: String| PlanError::At {
        path: path.to_owned(),
        line,
        column,
        message,
    };
    let raw: RawPlan = serde_saphyr::from_str(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((1, 1));
        at(line, column, first_line(&e.to_string()))
    })?;
    let base = path.parent().unwrap_or(Path::new("."));
    let located = |s: &Location, message: String| at(s.0, s.1, message);

    let name = match &raw.name {
        Some(n) => {
            check_name(&n.value).map_err(|m| located(&loc(n), format!("plan name: {m}")))?;
            n.value.clone()
        }
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "plan".into()),
    };
    if let Some(s) = &raw.shards {
        if s.value == 0 {
            return Err(located(&loc(s), "shards: must be at least 1".into()));
        }
    }
    if let Some(t) = &raw.timeout {
        if t.value == 0 {
            return Err(located(
                &loc(t),
                "timeout: must be at least 1 second".into(),
            ));
        }
    }

    let mut configs = Vec::new();
    for c in raw.configs {
        check_name(&c.name.value)
            .map_err(|m| located(&loc(&c.name), format!("config name: {m}")))?;
        if configs.iter().any(|k: &Config| k.name == c.name.value) {
            return Err(located(
                &loc(&c.name),
                format!("config `{}` is defined twice", c.name.value),
            ));
        }
        let gen = match c.gen {
            None => GenSettings::default(),
            Some(g) => GenSettings {
                length: g.length,
                weights: g.weights.map(|w| base.join(&w.value)),
                traps: g.traps,
                streams: g.streams,
            },
        };
        configs.push(Config {
            name: c.name.value,
            engine: c.engine,
            threads: c.threads,
            launch: c.launch,
            gen,
        });
    }
    if configs.is_empty() {
        configs.push(Config {
            name: "default".into(),
            engine: None,
            threads: None,
            launch: LaunchOverrides::default(),
            gen: GenSettings::default(),
        });
    }

    let raw_suites = raw
        .suites
        .ok_or_else(|| at(1, 1, "the plan has no `suites:`".into()))?;
    let mut suites: Vec<Suite> = Vec::new();
    for s in raw_suites {
        let l = loc(&s.name);
        check_name(&s.name.value).map_err(|m| located(&l, format!("suite name: {m}")))?;
        if suites.iter().any(|k| k.name == s.name.value) {
            return Err(located(
                &l,
                format!("suite `{}` is defined twice", s.name.value),
            ));
        }
        let kind = s.kind.value.as_str();
        let kind_loc = loc(&s.kind);
        // Fields that belong to other kinds are refused, so a misplaced key is not ignored.
        let misplaced = |field: &str, present: bool| -> Result<(), PlanError> {
            if present {
                Err(located(
                    &kind_loc,
                    format!("a `{kind}` suite takes no `{field}:`"),
                ))
            } else {
                Ok(())
            }
        };
        let source = match kind {
            "directed" => {
                misplaced("seeds", s.seeds.is_some())?;
                misplaced("dir", s.dir.is_some())?;
                let mut tests = Vec::new();
                for t in &s.tests {
                    tests.push(directed_test(base, t, &located)?);
                }
                if let Some(list) = &s.list {
                    tests.extend(read_list(base, list, &located)?);
                }
                if tests.is_empty() {
                    return Err(located(
                        &kind_loc,
                        "a `directed` suite needs `tests:` or `list:`".into(),
                    ));
                }
                let mut seen = BTreeSet::new();
                for t in &tests {
                    if !seen.insert(t.name.clone()) {
                        return Err(located(
                            &l,
                            format!(
                                "suite `{}` has two tests named `{}`: give one a `name:`",
                                s.name.value, t.name
                            ),
                        ));
                    }
                }
                Source::Directed(tests)
            }
            "gen" => {
                misplaced("tests", !s.tests.is_empty())?;
                misplaced("list", s.list.is_some())?;
                misplaced("dir", s.dir.is_some())?;
                let seeds = s
                    .seeds
                    .as_ref()
                    .ok_or_else(|| located(&kind_loc, "a `gen` suite needs `seeds:`".into()))?;
                let list = match &seeds.value {
                    RawSeeds::List(v) => v.clone(),
                    RawSeeds::Range { first, count } => {
                        if *count > MAX_SEEDS || first.checked_add(*count).is_none() {
                            return Err(located(
                                &loc(seeds),
                                format!("seeds: at most {MAX_SEEDS} seeds, ending below 2^64"),
                            ));
                        }
                        (*first..first + count).collect()
                    }
                };
                if list.is_empty() {
                    return Err(located(&loc(seeds), "seeds: no seeds".into()));
                }
                let mut seen = BTreeSet::new();
                if let Some(d) = list.iter().find(|x| !seen.insert(**x)) {
                    return Err(located(
                        &loc(seeds),
                        format!("seeds: seed {d} is listed twice"),
                    ));
                }
                Source::Gen(list)
            }
            "conformance" => {
                misplaced("tests", !s.tests.is_empty())?;
                misplaced("list", s.list.is_some())?;
                misplaced("seeds", s.seeds.is_some())?;
                let dir = s.dir.as_ref().ok_or_else(|| {
                    located(&kind_loc, "a `conformance` suite needs `dir:`".into())
                })?;
                let d = base.join(&dir.value);
                if !d.is_dir() {
                    return Err(located(
                        &loc(dir),
                        format!("dir: {} is not a directory", d.display()),
                    ));
                }
                Source::Conformance(d)
            }
            other => {
                return Err(located(
                    &kind_loc,
                    format!("unknown suite kind `{other}`: expected directed, gen or conformance"),
                ))
            }
        };
        let against = match (s.against.as_ref().map(|a| a.value.as_str()), &s.dut) {
            (None, Some(d)) | (Some("dut"), Some(d)) => {
                if d.value.trim().is_empty() {
                    return Err(located(&loc(d), "dut: empty command".into()));
                }
                Against::Dut(d.value.clone())
            }
            (Some("dut"), None) => {
                return Err(located(
                    &loc(s.against.as_ref().unwrap()),
                    "against: dut needs a `dut:` command".into(),
                ))
            }
            (Some(a), Some(_)) => {
                return Err(located(
                    &loc(s.against.as_ref().unwrap()),
                    format!("against: {a} takes no `dut:` command"),
                ))
            }
            (Some("engines"), None) => {
                if matches!(source, Source::Conformance(_)) {
                    return Err(located(
                        &loc(s.against.as_ref().unwrap()),
                        "a `conformance` suite checks the vectors' expected states: against: expected or dut".into(),
                    ));
                }
                Against::Engines
            }
            (Some("expected"), None) => {
                if matches!(source, Source::Gen(_)) {
                    return Err(located(
                        &loc(s.against.as_ref().unwrap()),
                        "generated programs have no expected outcome: against: engines or dut"
                            .into(),
                    ));
                }
                Against::Expected
            }
            (Some(a), None) => {
                return Err(located(
                    &loc(s.against.as_ref().unwrap()),
                    format!("unknown `against: {a}`: expected expected, engines or dut"),
                ))
            }
            (None, None) => match source {
                Source::Gen(_) => Against::Engines,
                _ => Against::Expected,
            },
        };
        let suite_configs = match &s.configs {
            None => (0..configs.len()).collect(),
            Some(names) => {
                let mut v = Vec::new();
                for n in names {
                    let i = configs
                        .iter()
                        .position(|c| c.name == n.value)
                        .ok_or_else(|| {
                            located(
                                &loc(n),
                                format!(
                                    "no config named `{}`; the plan's configs are {}",
                                    n.value,
                                    configs
                                        .iter()
                                        .map(|c| c.name.as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            )
                        })?;
                    if v.contains(&i) {
                        return Err(located(
                            &loc(n),
                            format!("config `{}` is listed twice", n.value),
                        ));
                    }
                    v.push(i);
                }
                if v.is_empty() {
                    return Err(located(&l, "configs: empty list".into()));
                }
                v
            }
        };
        let outputs = match (s.outputs, &source) {
            (Some(o), _) => o,
            (None, Source::Gen(_)) => vec!["sig".to_string()],
            (None, _) => Vec::new(),
        };
        for o in &outputs {
            check_name(o).map_err(|m| located(&l, format!("outputs: `{o}`: {m}")))?;
        }
        suites.push(Suite {
            name: s.name.value,
            source,
            against,
            configs: suite_configs,
            outputs,
        });
    }
    if suites.is_empty() {
        return Err(at(1, 1, "`suites:` is empty".into()));
    }
    Ok(Plan {
        path: path.to_owned(),
        name,
        shards: raw.shards.map(|s| s.value),
        timeout: Duration::from_secs(
            raw.timeout
                .map(|t| t.value)
                .unwrap_or(DEFAULT_TIMEOUT_SECONDS),
        ),
        coverage: raw.coverage,
        configs,
        suites,
    })
}

/// Line and column.
struct Location(u64, u64);

fn loc<T>(s: &Spanned<T>) -> Location {
    Location(s.referenced.line(), s.referenced.column())
}

/// The error's first line: serde-saphyr adds a source excerpt below it, and the
/// location is given in front instead.
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("invalid YAML");
    let line = line.strip_prefix("error: ").unwrap_or(line);
    // "line L column C: ..." repeats the location given in front.
    let line = match line.strip_prefix("line ").and_then(|r| r.split_once(": ")) {
        Some((place, rest)) if place.contains(" column ") => rest,
        _ => line,
    };
    if line.contains("untagged enum RawSeeds") {
        return "seeds: expected a list of seeds ([1, 5, 9]) or {first: S, count: N}".into();
    }
    line.to_string()
}

/// Names become parts of case ids and file names: letters, digits, `_`, `-`, `.`.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("empty name".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "`{name}` has `{c}`: names use letters, digits, `_`, `-` and `.`"
        ));
    }
    Ok(())
}

fn directed_test(
    base: &Path,
    t: &RawTest,
    located: &dyn Fn(&Location, String) -> PlanError,
) -> Result<DirectedTest, PlanError> {
    let file = base.join(&t.file.value);
    if !file.is_file() {
        return Err(located(
            &loc(&t.file),
            format!("file: {} does not exist", file.display()),
        ));
    }
    let name = match &t.name {
        Some(n) => {
            check_name(&n.value).map_err(|m| located(&loc(n), format!("name: {m}")))?;
            n.value.clone()
        }
        None => stem_name(&file).map_err(|m| located(&loc(&t.file), m))?,
    };
    if !(0..=255).contains(&t.exit) {
        return Err(located(
            &loc(&t.file),
            format!("exit: {} is not an exit code (0..255)", t.exit),
        ));
    }
    let mut outputs = BTreeMap::new();
    for (buffer, golden) in &t.outputs {
        check_name(buffer).map_err(|m| located(&loc(&t.file), format!("outputs: {m}")))?;
        let g = base.join(golden);
        if !g.is_file() {
            return Err(located(
                &loc(&t.file),
                format!("outputs: {buffer}: {} does not exist", g.display()),
            ));
        }
        outputs.insert(buffer.clone(), g);
    }
    Ok(DirectedTest {
        name,
        file,
        exit: t.exit,
        stderr: t.stderr.clone(),
        outputs,
    })
}

/// A directed test's default name: its file's stem, with characters names cannot hold
/// refused (the plan then names it).
fn stem_name(file: &Path) -> Result<String, String> {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    check_name(&stem).map_err(|m| format!("{m}; give the test a `name:`"))?;
    Ok(stem)
}

/// A test list: one program per line, relative to the list's directory; `#` starts a
/// comment; every test expects a clean run (exit 0).
fn read_list(
    base: &Path,
    list: &Spanned<String>,
    located: &dyn Fn(&Location, String) -> PlanError,
) -> Result<Vec<DirectedTest>, PlanError> {
    let path = base.join(&list.value);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| located(&loc(list), format!("list: {}: {e}", path.display())))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tests = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let entry = line.split('#').next().unwrap_or("").trim();
        if entry.is_empty() {
            continue;
        }
        let column = (line.find(entry).unwrap_or(0) + 1) as u64;
        let here = |message: String| PlanError::At {
            path: path.clone(),
            line: n as u64 + 1,
            column,
            message,
        };
        let file = dir.join(entry);
        if !file.is_file() {
            return Err(here(format!("{} does not exist", file.display())));
        }
        let name = stem_name(&file).map_err(here)?;
        tests.push(DirectedTest {
            name,
            file,
            exit: 0,
            stderr: None,
            outputs: BTreeMap::new(),
        });
    }
    Ok(tests)
}
