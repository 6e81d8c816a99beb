//! The coverage model: coverpoints of named bins, generated from the ISA database or read
//! from a user's YAML file (schema in docs/coverage.md), and compiled into the tables the
//! measurement looks features up in.

use super::classes::{
    immediate_classes, register_classes, trap_cause, BranchClass, ExecClass, ValueClass,
    FLAG_NAMES, TRAP_CAUSES,
};
use super::operands::{
    branch_reads_lanes, is_conditional_branch, is_float, is_vector, shapes, writes_register, Shape,
};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use warpkit_isa::{Latency, Op, ALL_OPS, CSRS, OP_COUNT};

/// The schema name of a model file.
pub const MODEL_SCHEMA: &str = "warpkit-coverage-model";
/// The version of the model file schema.
pub const MODEL_VERSION: u32 = 1;

/// A model file that cannot be used, with where in the file.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a model: YAML syntax, a missing or mistyped key, or a bin or
    /// selector that names nothing.
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// 1-based line (0 when unknown).
        line: u64,
        /// 1-based column (0 when unknown).
        column: u64,
        /// What is wrong.
        message: String,
    },
}

/// What a coverpoint watches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// Instructions whose mnemonic matches the pattern (`add.vu`, or with `*` wildcards:
    /// `gload.*`).
    Op(String),
    /// CSRs whose name matches the pattern (`exec`, `trap*`).
    Csr(String),
    /// Traps, whatever instruction raised them.
    Trap,
}

/// A coverpoint: what it watches and its bins (matchers, docs/coverage.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverpoint {
    /// Its name, unique in the model; a bin's id is `NAME/BIN`.
    pub name: String,
    /// What it watches.
    pub selector: Selector,
    /// Its bins, each a matcher.
    pub bins: Vec<String>,
}

/// The report category of a bin, decided by its matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// `executed`: the instruction ran (without trapping).
    Instructions,
    /// `exec.*`: EXEC class of a vector instruction.
    Exec,
    /// `OPERAND.CLASS` with an integer class.
    Values,
    /// `OPERAND.CLASS` with a floating-point class.
    FloatClasses,
    /// `flag.*`: floating-point flags raised.
    FloatFlags,
    /// `branch.*`.
    Branches,
    /// `hazard.raw`, `counter.full`.
    Async,
    /// CSR `read` / `write`.
    Csrs,
    /// Trap causes.
    Traps,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 9] = [
        Category::Instructions,
        Category::Exec,
        Category::Values,
        Category::FloatClasses,
        Category::FloatFlags,
        Category::Branches,
        Category::Async,
        Category::Csrs,
        Category::Traps,
    ];

    /// Its name in reports and coverage databases.
    pub fn name(self) -> &'static str {
        match self {
            Category::Instructions => "instructions",
            Category::Exec => "exec",
            Category::Values => "values",
            Category::FloatClasses => "float_classes",
            Category::FloatFlags => "float_flags",
            Category::Branches => "branches",
            Category::Async => "async",
            Category::Csrs => "csrs",
            Category::Traps => "traps",
        }
    }

    /// The category called `name`.
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// What one step showed about one instruction (the key bins are looked up by).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Feature {
    Executed,
    Exec(ExecClass),
    /// Syntax operand `.0` held a value of class `.1`.
    Value(u8, ValueClass),
    Branch(BranchClass),
    /// Flag bit (fflags layout) raised.
    Flag(u32),
    /// A later instruction read this instruction's pending result (read before wait).
    Hazard,
    /// Issued with its counter at the in-flight limit.
    CounterFull,
    /// Raised this trap cause.
    Trap(u32),
}

/// One bin of a compiled model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinInfo {
    /// `COVERPOINT/BIN`.
    pub id: String,
    /// Its report category.
    pub category: Category,
}

/// The operands of one instruction a model asks values of: `(operand, integer classes
/// wanted, float classes wanted)`.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpWants {
    pub features: HashMap<Feature, Vec<u32>>,
    /// Per syntax operand: integer classes wanted, float classes wanted.
    pub values: Vec<(bool, bool)>,
}

/// A model ready for measuring: bins and the lookup tables from features to bins.
#[derive(Debug, Clone, Default)]
pub(crate) struct Compiled {
    pub bins: Vec<BinInfo>,
    pub ops: Vec<OpWants>,
    /// `(csr number, write)` to bins.
    pub csrs: HashMap<(u32, bool), Vec<u32>>,
    pub traps: HashMap<u32, Vec<u32>>,
}

/// A coverage model: coverpoints of bins. Build it with [`Model::generate`] (from the
/// database) or [`Model::parse`] (a user's file); both check every bin.
#[derive(Debug, Clone)]
pub struct Model {
    coverpoints: Vec<Coverpoint>,
    pub(crate) compiled: Compiled,
}

/// A located string of a model file.
type Spanned = serde_saphyr::Spanned<String>;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileModel {
    schema: Spanned,
    version: serde_saphyr::Spanned<u32>,
    #[serde(default)]
    coverpoints: Vec<FileCoverpoint>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileCoverpoint {
    name: Spanned,
    #[serde(default)]
    op: Option<Spanned>,
    #[serde(default)]
    csr: Option<Spanned>,
    #[serde(default)]
    trap: Option<Spanned>,
    #[serde(default)]
    bins: Vec<Spanned>,
}

/// Builds a selector from its pattern.
type MakeSelector = fn(String) -> Selector;

/// The features a bin matches (on one instruction only, or on every one selected) and its
/// category.
type Matched = (Vec<(Feature, Option<Op>)>, Category);

/// Where a compile error points: `(line, column)`.
type At = (u64, u64);

fn at(s: &Spanned) -> At {
    (s.referenced.line(), s.referenced.column())
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let Some((head, rest)) = pattern.split_once('*') else {
        return pattern.eq_ignore_ascii_case(text);
    };
    let Some(text) = text
        .get(..head.len())
        .filter(|start| start.eq_ignore_ascii_case(head))
        .and_then(|_| text.get(head.len()..))
    else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    (0..=text.len()).any(|i| text.is_char_boundary(i) && glob(rest, &text[i..]))
}

impl Model {
    /// The model generated from the ISA database: one coverpoint per instruction, one per
    /// CSR and one for the trap causes (docs/coverage.md lists the bins).
    pub fn generate() -> Model {
        let mut cps = Vec::new();
        for &op in ALL_OPS.iter() {
            let def = op.def();
            let mut bins = vec!["executed".to_string()];
            if is_vector(def) {
                bins.extend(ExecClass::ALL.iter().map(|c| format!("exec.{}", c.name())));
            }
            for (o, shape) in def.operands.iter().zip(shapes(def)) {
                let classes = match shape {
                    Shape::Register { float: Some(_), .. } => ValueClass::all_float().collect(),
                    Shape::Register { bits, .. } => register_classes(bits),
                    Shape::Immediate {
                        lo,
                        hi,
                        scale,
                        literal,
                    } => immediate_classes(lo, hi, literal, scale),
                    Shape::Ignored => Vec::new(),
                };
                bins.extend(classes.iter().map(|c| format!("{}.{}", o.name, c.name())));
            }
            if is_conditional_branch(def) {
                bins.extend(["branch.taken".into(), "branch.not_taken".into()]);
                if branch_reads_lanes(def) {
                    bins.extend(["branch.uniform".into(), "branch.divergent".into()]);
                }
            }
            if is_float(def) {
                bins.extend(FLAG_NAMES.iter().map(|(_, n)| format!("flag.{n}")));
            }
            if let Latency::Async(_) = def.latency {
                if writes_register(def) {
                    bins.push("hazard.raw".into());
                }
                bins.push("counter.full".into());
            }
            cps.push(Coverpoint {
                name: def.mnemonic.to_string(),
                selector: Selector::Op(def.mnemonic.to_string()),
                bins,
            });
        }
        for c in CSRS.iter() {
            let mut bins = vec!["read".to_string()];
            if c.writable {
                bins.push("write".into());
            }
            cps.push(Coverpoint {
                name: format!("csr.{}", c.name),
                selector: Selector::Csr(c.name.to_string()),
                bins,
            });
        }
        cps.push(Coverpoint {
            name: "trap".into(),
            selector: Selector::Trap,
            bins: TRAP_CAUSES.iter().map(|(_, n)| n.to_string()).collect(),
        });
        // The database's own entries always compile; a failure here is a bug in this
        // module, which the tests catch.
        Model::new(cps).expect("the model generated from the database compiles")
    }

    /// A model of these coverpoints, every bin checked.
    pub fn new(coverpoints: Vec<Coverpoint>) -> Result<Model, ModelError> {
        let located: Vec<(Coverpoint, At, Vec<At>)> = coverpoints
            .into_iter()
            .map(|c| {
                let n = c.bins.len();
                (c, (0, 0), vec![(0, 0); n])
            })
            .collect();
        Model::compile(located, "<model>")
    }

    /// Read a model file's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Model, ModelError> {
        let parsed: FileModel = serde_saphyr::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            ModelError::Invalid {
                file: file.to_string(),
                line,
                column,
                message: e.to_string().lines().next().unwrap_or("").to_string(),
            }
        })?;
        let invalid = |(line, column): At, message: String| ModelError::Invalid {
            file: file.to_string(),
            line,
            column,
            message,
        };
        if parsed.schema.value != MODEL_SCHEMA {
            return Err(invalid(
                at(&parsed.schema),
                format!(
                    "schema `{}`: a coverage model's schema is `{MODEL_SCHEMA}`",
                    parsed.schema.value
                ),
            ));
        }
        if parsed.version.value != MODEL_VERSION {
            return Err(invalid(
                (
                    parsed.version.referenced.line(),
                    parsed.version.referenced.column(),
                ),
                format!(
                    "version {}: this warpkit reads version {MODEL_VERSION}",
                    parsed.version.value
                ),
            ));
        }
        let mut located = Vec::new();
        for c in parsed.coverpoints {
            let selectors: Vec<(&Spanned, MakeSelector)> = [
                (c.op.as_ref(), Selector::Op as MakeSelector),
                (c.csr.as_ref(), Selector::Csr),
                (c.trap.as_ref(), |_| Selector::Trap),
            ]
            .into_iter()
            .filter_map(|(s, f)| s.map(|s| (s, f)))
            .collect();
            let (selector, where_) = match selectors.as_slice() {
                [(s, f)] => (f(s.value.clone()), at(s)),
                [] => {
                    return Err(invalid(
                        at(&c.name),
                        format!(
                            "coverpoint `{}` watches nothing: give one of `op`, `csr`, `trap`",
                            c.name.value
                        ),
                    ))
                }
                [_, (s, _), ..] => {
                    return Err(invalid(
                        at(s),
                        format!(
                            "coverpoint `{}`: give only one of `op`, `csr`, `trap`",
                            c.name.value
                        ),
                    ))
                }
            };
            if let Selector::Trap = selector {
                let t = c.trap.as_ref().map(|t| t.value.as_str()).unwrap_or("");
                if t != "any" {
                    return Err(invalid(
                        where_,
                        format!("trap: `{t}`: the trap selector is `trap: any`"),
                    ));
                }
            }
            let bins_at = c.bins.iter().map(at).collect();
            located.push((
                Coverpoint {
                    name: c.name.value.clone(),
                    selector,
                    bins: c.bins.iter().map(|b| b.value.clone()).collect(),
                },
                at(&c.name),
                bins_at,
            ));
        }
        Model::compile(located, file)
    }

    /// Read the model file at `path`.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Model::parse(&text, &path.display().to_string())
    }

    /// Its coverpoints.
    pub fn coverpoints(&self) -> &[Coverpoint] {
        &self.coverpoints
    }

    /// Every bin, in model order.
    pub fn bins(&self) -> &[BinInfo] {
        &self.compiled.bins
    }

    fn compile(located: Vec<(Coverpoint, At, Vec<At>)>, file: &str) -> Result<Model, ModelError> {
        let invalid = |(line, column): At, message: String| ModelError::Invalid {
            file: file.to_string(),
            line,
            column,
            message,
        };
        let mut compiled = Compiled {
            ops: (0..OP_COUNT)
                .map(|i| OpWants {
                    features: HashMap::new(),
                    values: vec![
                        (false, false);
                        Op::from_index(i).map_or(0, |o| o.def().operands.len())
                    ],
                })
                .collect(),
            ..Compiled::default()
        };
        let mut names = HashMap::new();
        for (cp, cp_at, bins_at) in &located {
            if cp.name.is_empty() || cp.name.contains('/') {
                return Err(invalid(
                    *cp_at,
                    format!(
                        "coverpoint name `{}`: must be non-empty, without `/`",
                        cp.name
                    ),
                ));
            }
            if names.insert(cp.name.clone(), ()).is_some() {
                return Err(invalid(
                    *cp_at,
                    format!("coverpoint `{}` is defined twice", cp.name),
                ));
            }
            let mut seen = HashMap::new();
            for (bin, bin_at) in cp.bins.iter().zip(bins_at) {
                if seen.insert(bin.clone(), ()).is_some() {
                    return Err(invalid(
                        *bin_at,
                        format!("coverpoint `{}`: bin `{bin}` is listed twice", cp.name),
                    ));
                }
                let index = compiled.bins.len() as u32;
                let category = match &cp.selector {
                    Selector::Op(pattern) => compile_op_bin(&mut compiled, pattern, bin, index)
                        .map_err(|m| invalid(*bin_at, format!("coverpoint `{}`: {m}", cp.name)))?,
                    Selector::Csr(pattern) => {
                        let write = match bin.as_str() {
                            "read" => false,
                            "write" => true,
                            _ => {
                                return Err(invalid(
                                    *bin_at,
                                    format!(
                                        "coverpoint `{}`: bin `{bin}`: a CSR's bins are `read` and `write`",
                                        cp.name
                                    ),
                                ))
                            }
                        };
                        let matched: Vec<u32> = CSRS
                            .iter()
                            .filter(|c| glob(pattern, c.name))
                            .map(|c| u32::from(c.number))
                            .collect();
                        if matched.is_empty() {
                            return Err(invalid(
                                *cp_at,
                                format!("coverpoint `{}`: csr `{pattern}` names no CSR", cp.name),
                            ));
                        }
                        for n in matched {
                            compiled.csrs.entry((n, write)).or_default().push(index);
                        }
                        Category::Csrs
                    }
                    Selector::Trap => {
                        let cause = trap_cause(bin).ok_or_else(|| {
                            invalid(
                                *bin_at,
                                format!(
                                    "coverpoint `{}`: bin `{bin}` is no trap cause (one of {}, or cause.N)",
                                    cp.name,
                                    TRAP_CAUSES.map(|(_, n)| n).join(", ")
                                ),
                            )
                        })?;
                        compiled.traps.entry(cause).or_default().push(index);
                        Category::Traps
                    }
                };
                compiled.bins.push(BinInfo {
                    id: format!("{}/{bin}", cp.name),
                    category,
                });
            }
        }
        Ok(Model {
            coverpoints: located.into_iter().map(|(c, _, _)| c).collect(),
            compiled,
        })
    }

    /// The model as a YAML file: a commented header documenting the schema, then one
    /// coverpoint per block with its bins on one line.
    pub fn to_yaml(&self) -> String {
        let mut s = String::new();
        s.push_str(MODEL_HEADER);
        let _ = writeln!(
            s,
            "schema: {MODEL_SCHEMA}\nversion: {MODEL_VERSION}\ncoverpoints:"
        );
        for c in &self.coverpoints {
            let _ = writeln!(s, "  - name: {}", yaml_str(&c.name));
            match &c.selector {
                Selector::Op(p) => {
                    let _ = writeln!(s, "    op: {}", yaml_str(p));
                }
                Selector::Csr(p) => {
                    let _ = writeln!(s, "    csr: {}", yaml_str(p));
                }
                Selector::Trap => s.push_str("    trap: any\n"),
            }
            let bins: Vec<String> = c.bins.iter().map(|b| yaml_str(b)).collect();
            let _ = writeln!(s, "    bins: [{}]", bins.join(", "));
        }
        s
    }
}

/// A plain scalar when it is safe as one, else a double-quoted string.
fn yaml_str(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'))
        && !s.starts_with(['-', '.'])
        && s.parse::<f64>().is_err()
        && !matches!(
            s,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "~"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::Value::String(s.to_string()).to_string()
    }
}

/// Compile bin `bin` of a coverpoint on instructions matching `pattern` (bin index
/// `index`), or say why it names nothing.
fn compile_op_bin(
    compiled: &mut Compiled,
    pattern: &str,
    bin: &str,
    index: u32,
) -> Result<Category, String> {
    let ops: Vec<Op> = ALL_OPS
        .iter()
        .copied()
        .filter(|o| glob(pattern, o.mnemonic()))
        .collect();
    if ops.is_empty() {
        return Err(format!("op `{pattern}` names no instruction"));
    }
    let (head, tail) = bin.split_once('.').unwrap_or((bin, ""));
    let simple = |feature: Feature, category: Category| Ok((vec![(feature, None)], category));
    let parsed: Result<Matched, String> = match (head, tail) {
        ("executed", "") => simple(Feature::Executed, Category::Instructions),
        ("exec", c) => match ExecClass::ALL.iter().find(|x| x.name() == c) {
            Some(&x) => simple(Feature::Exec(x), Category::Exec),
            None => Err(format!(
                "bin `{bin}`: EXEC classes are full, empty, single, partial"
            )),
        },
        ("branch", c) => match BranchClass::ALL.iter().find(|x| x.name() == c) {
            Some(&x) => simple(Feature::Branch(x), Category::Branches),
            None => Err(format!(
                "bin `{bin}`: branch classes are taken, not_taken, uniform, divergent"
            )),
        },
        ("flag", f) => match FLAG_NAMES.iter().find(|(_, n)| *n == f) {
            Some(&(b, _)) => simple(Feature::Flag(b), Category::FloatFlags),
            None => Err(format!("bin `{bin}`: flags are nv, dz, of, uf, nx")),
        },
        ("hazard", "raw") => simple(Feature::Hazard, Category::Async),
        ("counter", "full") => simple(Feature::CounterFull, Category::Async),
        ("trap", c) => match trap_cause(c) {
            Some(cause) => simple(Feature::Trap(cause), Category::Traps),
            None => Err(format!("bin `{bin}`: no such trap cause")),
        },
        (operand, class) => {
            let Some(class) = ValueClass::from_name(class) else {
                return Err(format!(
                    "bin `{bin}`: not a matcher (executed, exec.*, branch.*, flag.*, hazard.raw, \
                     counter.full, trap.*, or OPERAND.CLASS with a value class)"
                ));
            };
            let mut features = Vec::new();
            for &op in &ops {
                let def = op.def();
                let Some(i) = def.operands.iter().position(|o| o.name == operand) else {
                    continue;
                };
                if shapes(def)[i] == Shape::Ignored {
                    continue;
                }
                features.push((Feature::Value(i as u8, class), Some(op)));
            }
            if features.is_empty() {
                return Err(format!(
                    "bin `{bin}`: no instruction matching `{pattern}` has a classified operand `{operand}`"
                ));
            }
            let category = if class.is_float() {
                Category::FloatClasses
            } else {
                Category::Values
            };
            Ok((features, category))
        }
    };
    let (features, category) = parsed?;
    for (feature, only) in features {
        for &op in ops.iter().filter(|o| only.is_none_or(|x| x == **o)) {
            let wants = &mut compiled.ops[op as usize];
            if let Feature::Value(i, class) = feature {
                let slot = &mut wants.values[usize::from(i)];
                if class.is_float() {
                    slot.1 = true;
                } else {
                    slot.0 = true;
                }
            }
            wants.features.entry(feature).or_default().push(index);
        }
    }
    Ok(category)
}

const MODEL_HEADER: &str = "\
# warpkit coverage model (docs/coverage.md). Edit freely: remove bins, add coverpoints.
#
# Each coverpoint has a unique `name`, exactly one selector, and `bins` (matchers); a bin's
# id in reports and databases is NAME/BIN.
#   op: PATTERN    instructions by mnemonic (`*` matches any characters: `gload.*`)
#       executed                  ran without trapping
#       exec.full|empty|single|partial   EXEC class (32, 0, 1, other lane counts)
#       OPERAND.CLASS             an operand (rd, rs1, imm, ...) held a value of CLASS:
#                                 zero one all_ones sign_min sign_max min max other, or a
#                                 float class pos_|neg_ + zero subnormal normal inf qnan snan
#       branch.taken|not_taken|uniform|divergent   conditional branches
#       flag.nv|dz|of|uf|nx       floating-point flag raised
#       hazard.raw                its pending result was read before a waitcnt
#       counter.full              issued with its counter at the in-flight limit
#       trap.CAUSE                it raised trap CAUSE
#   csr: PATTERN   CSRs by name; bins: read, write
#   trap: any      traps; bins: illegal_insn fetch_fault unsupported misaligned
#                  access_fault fp_exception illegal_mode illegal_csr, or cause.N
";

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("add.vu", "add.vu"));
        assert!(!glob("add", "add.vu"));
        assert!(glob("gload.*", "gload.b32"));
        assert!(glob("*", "x"));
        assert!(glob("*.f32", "fadd.f32"));
        assert!(glob("f*.f*", "fadd.f32"));
        assert!(!glob("f*.f64", "fadd.f32"));
        assert!(!glob("é*", "ab"));
        assert!(!glob("ab*", "a"));
    }
}
