//! Comparing two JSON Lines commit logs (`docs/trace.md`) record by record: the first record
//! where they disagree, the exact field, and a few records of context from each side. Both
//! inputs are streamed: memory stays bounded by the context kept and the longest line,
//! whatever the traces' lengths.
//!
//! The comparison is structural, not textual: key order and blanks do not matter, so traces
//! written by other implementations of the documented format compare equal to warpkit's.
//! Fields are compared recursively, so a difference is located down to one lane of one
//! register (`v[0].lanes[3][1]`, described as `v5 lane 3`).

use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::fmt;
use std::io::BufRead;

/// Longest accepted record line, in bytes: a full trace record is a few kilobytes.
pub const MAX_RECORD_BYTES: usize = 16 << 20;

/// The top-level fields of a commit record in the order `docs/trace.md` lists them: when
/// several differ, the first in this order is the one reported.
const FIELD_ORDER: &[&str] = &[
    "workgroup",
    "warp",
    "step",
    "pc",
    "encoding",
    "asm",
    "exec",
    "v",
    "u",
    "exec_write",
    "csr",
    "trap",
    "mem",
    "retired",
    "end",
];

/// Which input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The first trace given to [`diff_traces`].
    A,
    /// The second trace given to [`diff_traces`].
    B,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::A => "A",
            Side::B => "B",
        })
    }
}

/// Why the traces could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum TraceDiffError {
    /// Reading a trace failed.
    #[error("trace {side}: read error: {source}")]
    Io {
        /// The trace being read.
        side: Side,
        /// The read error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not valid JSON.
    #[error("trace {side}: line {line}, column {column}: not a JSON record: {message}")]
    Json {
        /// The trace it is in.
        side: Side,
        /// Its line number, from 1.
        line: u64,
        /// Column of the error in the line, from 1.
        column: usize,
        /// What the JSON parser said.
        message: String,
    },
    /// A line is JSON but not an object.
    #[error("trace {side}: line {line}: a record is a JSON object, found {found}")]
    NotObject {
        /// The trace it is in.
        side: Side,
        /// Its line number, from 1.
        line: u64,
        /// What the line holds instead (`a string`, `an array`, ...).
        found: &'static str,
    },
    /// A line is longer than [`MAX_RECORD_BYTES`].
    #[error("trace {side}: line {line} is longer than {MAX_RECORD_BYTES} bytes")]
    LineTooLong {
        /// The trace it is in.
        side: Side,
        /// Its line number, from 1.
        line: u64,
    },
    /// A line is not valid UTF-8.
    #[error("trace {side}: line {line} is not UTF-8")]
    NotUtf8 {
        /// The trace it is in.
        side: Side,
        /// Its line number, from 1.
        line: u64,
    },
}

/// How to compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffOptions {
    /// Records of context shown before and after the differing one, on each side.
    pub context: usize,
    /// Top-level fields left out of the comparison (e.g. `asm`, whose spelling another
    /// implementation may not share).
    pub ignore: Vec<String>,
}

impl Default for DiffOptions {
    fn default() -> DiffOptions {
        DiffOptions {
            context: 3,
            ignore: Vec::new(),
        }
    }
}

/// A record as read: its line number in its file and its text (without the line ending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordLine {
    /// Line number in its trace, from 1.
    pub line: u64,
    /// The line's text.
    pub text: String,
}

/// The schema header of a trace (`{"schema":"warpkit-trace","version":N}`), if it has one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    /// Its `schema` value (`warpkit-trace` for warpkit's traces), if it is a string.
    pub schema: Option<String>,
    /// Its `version` value (the schema version), if it is an unsigned integer.
    pub version: Option<u64>,
}

/// The first disagreement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// 1-based index of the record (the header is not a record).
    pub record: u64,
    /// Path of the first differing value inside the record, e.g. `v[0].lanes[3][1]`; empty
    /// when one trace ended.
    pub path: String,
    /// The same place in the ISA's terms, e.g. `v5 lane 3 (v[0].lanes[3][1])`.
    pub what: String,
    /// The differing values as JSON text; `None` where a field is absent or a trace ended.
    pub a: Option<String>,
    /// Trace B's value at that place, as JSON text; `None` where it is absent or trace B
    /// ended.
    pub b: Option<String>,
    /// Every top-level field that differs in this record, in the documented order.
    pub fields: Vec<String>,
    /// Up to `context` records before the differing one, then it, then up to `context`
    /// after, from each side. The differing record is at index `before_a` / `before_b`
    /// (absent if that trace ended).
    pub context_a: Vec<RecordLine>,
    /// Trace B's records of context, laid out as `context_a`.
    pub context_b: Vec<RecordLine>,
    /// Index of the differing record in `context_a` (the records of context before it).
    pub before_a: usize,
    /// Index of the differing record in `context_b` (the records of context before it).
    pub before_b: usize,
}

/// The outcome of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffOutcome {
    /// The traces agree record for record.
    Equal {
        /// Records compared (the headers not counted).
        records: u64,
    },
    /// They disagree; the first difference.
    Different(Box<Difference>),
}

/// What the comparison learnt about the inputs besides the outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffReport {
    /// Equal, or the first difference.
    pub outcome: DiffOutcome,
    /// Trace A's schema header; `None` if its first record is not one.
    pub header_a: Option<Header>,
    /// Trace B's schema header; `None` if its first record is not one.
    pub header_b: Option<Header>,
    /// When the two traces declare different schema versions, fields present on one side
    /// only are not compared (a later version adds fields; docs/trace.md); this says so.
    pub note: Option<String>,
}

/// A record line and its parsed object.
type Record = (RecordLine, Map<String, Value>);

struct Reader<R> {
    input: R,
    side: Side,
    line: u64,
    buf: Vec<u8>,
    header: Option<Header>,
    started: bool,
}

impl<R: BufRead> Reader<R> {
    fn new(input: R, side: Side) -> Reader<R> {
        Reader {
            input,
            side,
            line: 0,
            buf: Vec::new(),
            header: None,
            started: false,
        }
    }

    /// The next non-blank line, bounded by [`MAX_RECORD_BYTES`].
    fn next_line(&mut self) -> Result<Option<String>, TraceDiffError> {
        loop {
            self.buf.clear();
            let side = self.side;
            let limit = MAX_RECORD_BYTES as u64 + 1;
            let n = <&mut R as std::io::Read>::take(&mut self.input, limit)
                .read_until(b'\n', &mut self.buf)
                .map_err(|source| TraceDiffError::Io { side, source })?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            if self.buf.last() == Some(&b'\n') {
                self.buf.pop();
            } else if n as u64 == limit {
                return Err(TraceDiffError::LineTooLong {
                    side,
                    line: self.line,
                });
            }
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let text = std::str::from_utf8(&self.buf).map_err(|_| TraceDiffError::NotUtf8 {
                side,
                line: self.line,
            })?;
            return Ok(Some(text.to_owned()));
        }
    }

    /// The next record, parsed; a schema header on the first line is taken aside.
    fn next_record(&mut self) -> Result<Option<Record>, TraceDiffError> {
        loop {
            let Some(text) = self.next_line()? else {
                return Ok(None);
            };
            let value: Value = serde_json::from_str(&text).map_err(|e| TraceDiffError::Json {
                side: self.side,
                line: self.line,
                column: e.column(),
                message: e.to_string(),
            })?;
            let Value::Object(map) = value else {
                return Err(TraceDiffError::NotObject {
                    side: self.side,
                    line: self.line,
                    found: kind_name(&value),
                });
            };
            let first = !self.started;
            self.started = true;
            if first && map.contains_key("schema") && !map.contains_key("pc") {
                self.header = Some(Header {
                    schema: map.get("schema").and_then(Value::as_str).map(String::from),
                    version: map.get("version").and_then(Value::as_u64),
                });
                continue;
            }
            return Ok(Some((
                RecordLine {
                    line: self.line,
                    text,
                },
                map,
            )));
        }
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Compare two JSON Lines traces.
pub fn diff_traces<A: BufRead, B: BufRead>(
    a: A,
    b: B,
    options: &DiffOptions,
) -> Result<DiffReport, TraceDiffError> {
    let mut ra = Reader::new(a, Side::A);
    let mut rb = Reader::new(b, Side::B);
    let mut recent_a: VecDeque<RecordLine> = VecDeque::with_capacity(options.context + 1);
    let mut recent_b: VecDeque<RecordLine> = VecDeque::with_capacity(options.context + 1);
    let mut records = 0u64;
    let mut lenient = None;
    loop {
        let na = ra.next_record()?;
        let nb = rb.next_record()?;
        if records == 0 {
            lenient = version_note(&ra.header, &rb.header);
        }
        records += 1;
        let found = match (&na, &nb) {
            (None, None) => {
                return Ok(DiffReport {
                    outcome: DiffOutcome::Equal {
                        records: records - 1,
                    },
                    header_a: ra.header,
                    header_b: rb.header,
                    note: lenient,
                });
            }
            (Some(_), None) | (None, Some(_)) => Some(Found {
                path: String::new(),
                what: format!(
                    "trace {} ended after {} records",
                    if na.is_none() { "A" } else { "B" },
                    records - 1
                ),
                a: None,
                b: None,
                fields: Vec::new(),
            }),
            (Some((_, ma)), Some((_, mb))) => compare_records(ma, mb, options, lenient.is_some()),
        };
        let Some(found) = found else {
            push_bounded(&mut recent_a, na.map(|r| r.0), options.context);
            push_bounded(&mut recent_b, nb.map(|r| r.0), options.context);
            continue;
        };
        let before_a = recent_a.len();
        let before_b = recent_b.len();
        let mut context_a: Vec<RecordLine> = recent_a.into_iter().collect();
        let mut context_b: Vec<RecordLine> = recent_b.into_iter().collect();
        let a_ended = na.is_none();
        let b_ended = nb.is_none();
        context_a.extend(na.map(|r| r.0));
        context_b.extend(nb.map(|r| r.0));
        if !a_ended {
            follow(&mut ra, &mut context_a, options.context)?;
        }
        if !b_ended {
            follow(&mut rb, &mut context_b, options.context)?;
        }
        return Ok(DiffReport {
            outcome: DiffOutcome::Different(Box::new(Difference {
                record: records,
                path: found.path,
                what: found.what,
                a: found.a,
                b: found.b,
                fields: found.fields,
                context_a,
                context_b,
                before_a,
                before_b,
            })),
            header_a: ra.header,
            header_b: rb.header,
            note: lenient,
        });
    }
}

/// Up to `n` records after the differing one; a malformed one ends the context quietly
/// (the difference is already found).
fn follow<R: BufRead>(
    r: &mut Reader<R>,
    out: &mut Vec<RecordLine>,
    n: usize,
) -> Result<(), TraceDiffError> {
    for _ in 0..n {
        match r.next_record() {
            Ok(Some((line, _))) => out.push(line),
            Ok(None) | Err(TraceDiffError::Json { .. } | TraceDiffError::NotObject { .. }) => break,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn push_bounded(q: &mut VecDeque<RecordLine>, r: Option<RecordLine>, n: usize) {
    let Some(r) = r else { return };
    if n == 0 {
        return;
    }
    if q.len() == n {
        q.pop_front();
    }
    q.push_back(r);
}

fn version_note(a: &Option<Header>, b: &Option<Header>) -> Option<String> {
    // A trace without a header (another implementation's) is taken to follow the other's
    // version.
    let va = a.as_ref().and_then(|h| h.version)?;
    let vb = b.as_ref().and_then(|h| h.version)?;
    if va == vb {
        return None;
    }
    Some(format!(
        "the traces declare different schema versions (A: version {va}, B: version {vb}): \
         fields present in only one of them are not compared"
    ))
}

struct Found {
    path: String,
    what: String,
    a: Option<String>,
    b: Option<String>,
    fields: Vec<String>,
}

/// The first difference between two records, in the documented field order (fields not
/// in [`FIELD_ORDER`] after those, by name).
fn compare_records(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
    options: &DiffOptions,
    lenient: bool,
) -> Option<Found> {
    let mut keys: Vec<&str> = a.keys().chain(b.keys()).map(String::as_str).collect();
    keys.sort_by_key(|k| {
        (
            FIELD_ORDER
                .iter()
                .position(|f| f == k)
                .unwrap_or(usize::MAX),
            *k,
        )
    });
    keys.dedup();
    let mut first: Option<Found> = None;
    let mut fields = Vec::new();
    for key in keys {
        if options.ignore.iter().any(|i| i == key) {
            continue;
        }
        let (va, vb) = (a.get(key), b.get(key));
        if lenient && (va.is_none() || vb.is_none()) {
            continue;
        }
        let mut path = key.to_string();
        let Some((path, da, db)) = first_difference(va, vb, &mut path) else {
            continue;
        };
        fields.push(key.to_string());
        if first.is_none() {
            let what = describe(a, &path);
            first = Some(Found {
                path,
                what,
                a: da.map(|v| v.to_string()),
                b: db.map(|v| v.to_string()),
                fields: Vec::new(),
            });
        }
    }
    first.map(|mut f| {
        f.fields = fields;
        f
    })
}

/// The first place where `a` and `b` differ, with its path appended to `path`.
fn first_difference<'v>(
    a: Option<&'v Value>,
    b: Option<&'v Value>,
    path: &mut String,
) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
    match (a, b) {
        (Some(Value::Array(xa)), Some(Value::Array(xb))) => {
            let n = xa.len().max(xb.len());
            for i in 0..n {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(d) = first_difference(xa.get(i), xb.get(i), path) {
                    return Some(d);
                }
                path.truncate(len);
            }
            None
        }
        (Some(Value::Object(ma)), Some(Value::Object(mb))) => {
            let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                if let Some(d) = first_difference(ma.get(k), mb.get(k), path) {
                    return Some(d);
                }
                path.truncate(len);
            }
            None
        }
        (x, y) if x == y => None,
        (x, y) => Some((path.clone(), x, y)),
    }
}

/// `path` in the ISA's terms where the record says what it indexes: `v[i].lanes[j]...`
/// names the register and lane, `u[i]...` the uniform register, `csr[i]...` the CSR,
/// `mem[i].lanes[j].F...` the lane and field of the memory access, `retired[i]...` the
/// write-back and the instruction that issued it.
fn describe(record: &Map<String, Value>, path: &str) -> String {
    match name_in(record, path) {
        Some(n) => format!("{n} ({path})"),
        None => path.to_string(),
    }
}

/// `[N]` at the start of `s`: N and the length of the brackets.
fn leading_index(s: &str) -> Option<(usize, usize)> {
    let rest = s.strip_prefix('[')?;
    let end = rest.find(']')?;
    Some((rest[..end].parse().ok()?, end + 2))
}

fn name_in(record: &Map<String, Value>, path: &str) -> Option<String> {
    let (head, rest) = path.split_at(path.find(['[', '.']).unwrap_or(path.len()));
    let (i, used) = leading_index(rest)?;
    let entry = record.get(head)?.get(i)?;
    let tail = &rest[used..];
    match head {
        "v" | "u" => {
            let reg = entry.get("reg")?.as_u64()?;
            if let Some((j, _)) = tail.strip_prefix(".lanes").and_then(leading_index) {
                let lane = entry.get("lanes")?.get(j)?.get(0)?.as_u64()?;
                return Some(format!("{head}{reg} lane {lane}"));
            }
            Some(format!("{head}{reg}"))
        }
        "csr" => Some(format!("CSR {}", entry.get("name")?.as_str()?)),
        "mem" => {
            let access = format!(
                "the {} {}",
                entry.get("space")?.as_str()?,
                entry.get("kind")?.as_str()?
            );
            let Some((j, used)) = tail.strip_prefix(".lanes").and_then(leading_index) else {
                return Some(access);
            };
            let lane_entry = entry.get("lanes")?.get(j)?;
            let lane = lane_entry.get("lane")?.as_u64()?;
            let rest = &tail[".lanes".len() + used..];
            let field = rest
                .strip_prefix('.')
                .map(|f| f.split(['[', '.']).next().unwrap_or(f));
            Some(match field {
                Some(field) => format!("{field} of lane {lane} of {access}"),
                None => format!("lane {lane} of {access}"),
            })
        }
        "retired" => {
            let pc = entry.get("pc")?.as_u64()?;
            let inner = tail
                .strip_prefix('.')
                .and_then(|t| name_in(entry.as_object()?, t));
            let by = format!("the write-back of the instruction at pc {pc:#x}");
            Some(match inner {
                Some(n) => format!("{n} in {by}"),
                None => by,
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "{\"schema\":\"warpkit-trace\",\"version\":1}\n";

    fn rec(step: u64, lane3: u32) -> String {
        format!(
            "{{\"workgroup\":[0,0,0],\"warp\":0,\"step\":{step},\"pc\":{},\"encoding\":\"0x00000001\",\"asm\":\"add v5, v1, v2\",\"exec\":15,\"v\":[{{\"reg\":5,\"lanes\":[[0,1],[1,2],[2,3],[3,{lane3}]]}}],\"u\":[],\"exec_write\":null,\"csr\":[],\"trap\":null,\"retired\":[],\"end\":false}}\n",
            step * 4
        )
    }

    fn run(a: &str, b: &str, o: &DiffOptions) -> DiffReport {
        diff_traces(a.as_bytes(), b.as_bytes(), o).unwrap()
    }

    #[test]
    fn equal_traces_with_and_without_header() {
        let body: String = (1..=10).map(|s| rec(s, 4)).collect();
        let r = run(&format!("{HEADER}{body}"), &body, &DiffOptions::default());
        assert_eq!(r.outcome, DiffOutcome::Equal { records: 10 });
        assert!(r.header_a.is_some() && r.header_b.is_none());
        // Key order and blanks do not matter.
        let reordered = "{\"pc\": 4, \"step\": 1}\n";
        let r = run(
            "{\"step\":1,\"pc\":4}\n",
            reordered,
            &DiffOptions::default(),
        );
        assert_eq!(r.outcome, DiffOutcome::Equal { records: 1 });
    }

    #[test]
    fn memory_records_name_the_lane_and_the_access() {
        let rec = |data: u32| {
            format!(
                "{{\"step\":1,\"pc\":8,\"mem\":[{{\"kind\":\"load\",\"space\":\"global\",\"size\":4,\"lanes\":[{{\"lane\":2,\"addr\":64,\"data\":[1],\"mask\":15}},{{\"lane\":7,\"addr\":68,\"data\":[{data}],\"mask\":15}}]}}]}}\n"
            )
        };
        let r = run(&rec(5), &rec(6), &DiffOptions::default());
        let DiffOutcome::Different(d) = r.outcome else {
            panic!("expected a difference")
        };
        assert_eq!(d.path, "mem[0].lanes[1].data[0]");
        assert_eq!(
            d.what,
            "data of lane 7 of the global load (mem[0].lanes[1].data[0])"
        );
    }

    #[test]
    fn one_lane_of_one_write() {
        let a: String = (1..=10).map(|s| rec(s, 4)).collect();
        let b: String = (1..=10)
            .map(|s| rec(s, if s == 6 { 9 } else { 4 }))
            .collect();
        let r = run(&a, &b, &DiffOptions::default());
        let DiffOutcome::Different(d) = r.outcome else {
            panic!("expected a difference")
        };
        assert_eq!(d.record, 6);
        assert_eq!(d.path, "v[0].lanes[3][1]");
        assert_eq!(d.what, "v5 lane 3 (v[0].lanes[3][1])");
        assert_eq!((d.a.as_deref(), d.b.as_deref()), (Some("4"), Some("9")));
        assert_eq!(d.fields, ["v"]);
        assert_eq!(d.before_a, 3);
        assert_eq!(d.context_a.len(), 7);
        assert_eq!(d.context_a[3].line, 6);
        assert_eq!(d.context_b[3].text, b.lines().nth(5).unwrap());
    }

    #[test]
    fn first_field_in_documented_order_and_ignore() {
        let a = rec(1, 4);
        let b = rec(1, 5)
            .replace("add v5", "add  v5")
            .replace("\"step\":1", "\"step\":2");
        let r = run(&a, &b, &DiffOptions::default());
        let DiffOutcome::Different(d) = r.outcome else {
            panic!()
        };
        assert_eq!(d.path, "step");
        assert_eq!(d.fields, ["step", "asm", "v"]);
        let o = DiffOptions {
            ignore: vec!["asm".into(), "step".into()],
            ..DiffOptions::default()
        };
        let DiffOutcome::Different(d) = run(&a, &b, &o).outcome else {
            panic!()
        };
        assert_eq!(d.fields, ["v"]);
    }

    #[test]
    fn a_shorter_trace_differs_at_its_end() {
        let a: String = (1..=5).map(|s| rec(s, 4)).collect();
        let b: String = (1..=3).map(|s| rec(s, 4)).collect();
        let DiffOutcome::Different(d) = run(&a, &b, &DiffOptions::default()).outcome else {
            panic!()
        };
        assert_eq!(d.record, 4);
        assert_eq!(d.what, "trace B ended after 3 records");
        assert_eq!(d.context_b.len(), 3);
        assert_eq!(d.context_a.len(), 5);
    }

    #[test]
    fn schema_versions_and_added_fields() {
        let v2 = "{\"schema\":\"warpkit-trace\",\"version\":2}\n";
        let a = format!("{HEADER}{}", rec(1, 4));
        let b = format!(
            "{v2}{}",
            rec(1, 4).replace("\"end\":false", "\"end\":false,\"mem\":[{\"addr\":16}]")
        );
        let r = run(&a, &b, &DiffOptions::default());
        assert_eq!(r.outcome, DiffOutcome::Equal { records: 1 });
        assert!(r.note.unwrap().contains("version 1, B: version 2"));
        // With the same version, a field on one side only is a difference.
        let b_same = b.replace("\"version\":2", "\"version\":1");
        let DiffOutcome::Different(d) = run(&a, &b_same, &DiffOptions::default()).outcome else {
            panic!()
        };
        assert_eq!(d.path, "mem");
        assert_eq!(d.a, None);
    }

    #[test]
    fn bad_input_names_side_and_line() {
        let a = rec(1, 4);
        let e = diff_traces(
            a.as_bytes(),
            "\n{\"pc\":1}\nw0 0x0 add\n".as_bytes(),
            &DiffOptions::default(),
        );
        // Record 1 agrees on nothing but is well-formed: the difference comes first.
        assert!(e.is_ok());
        let e = diff_traces(
            "w0 0x00000000 (0x1) add".as_bytes(),
            a.as_bytes(),
            &DiffOptions::default(),
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                TraceDiffError::Json {
                    side: Side::A,
                    line: 1,
                    ..
                }
            ),
            "{e}"
        );
        let e = diff_traces(a.as_bytes(), "[1]\n".as_bytes(), &DiffOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "trace B: line 1: a record is a JSON object, found an array"
        );
        let e = diff_traces(
            a.as_bytes(),
            &b"{\"pc\":\xff}\n"[..],
            &DiffOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(
            e,
            TraceDiffError::NotUtf8 {
                side: Side::B,
                line: 1
            }
        ));
    }
}
