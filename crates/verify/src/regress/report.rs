//! Case results and the files they are written to: JSON Lines (`results-<I>.jsonl`, one
//! object per case) and JUnit XML in the xunit2 schema (`junit-<I>.xml`). Both are
//! functions of the results sorted by case id alone, with no timestamps, so merged shards
//! give the bytes of a one-shard run; durations are the only varying field and are left
//! out with `--no-timing`.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// How a case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The check held.
    Pass,
    /// The check failed: a wrong outcome or a disagreement.
    Fail,
    /// The case could not be run (a missing tool, bad input to warpkit, a DUT that did not
    /// answer).
    Error,
}

/// One case's result: one line of `results-<I>.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case id, `SUITE/ITEM@CONFIG`.
    pub id: String,
    /// The suite's name.
    pub suite: String,
    /// `ITEM@CONFIG`.
    pub name: String,
    /// The generator seed, for generated programs.
    pub seed: Option<u64>,
    /// The configuration's name.
    pub config: String,
    /// The configuration hash.
    pub config_hash: String,
    /// How it ended.
    pub status: Status,
    /// Why it failed (empty when it passed).
    pub message: String,
    /// A shell command that runs this case alone.
    pub reproduce: String,
    /// Wall-clock milliseconds; absent with `--no-timing`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// Totals over results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Cases.
    pub tests: usize,
    /// Failed cases.
    pub failures: usize,
    /// Cases that could not be run.
    pub errors: usize,
}

impl Totals {
    /// The totals of `results`.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a CaseResult>) -> Totals {
        let mut t = Totals::default();
        for r in results {
            t.tests += 1;
            match r.status {
                Status::Pass => {}
                Status::Fail => t.failures += 1,
                Status::Error => t.errors += 1,
            }
        }
        t
    }

    /// Whether every case passed.
    pub fn all_passed(self) -> bool {
        self.failures == 0 && self.errors == 0
    }
}

/// Sort results by case id, the order of every results file.
pub fn sort(results: &mut [CaseResult]) {
    results.sort_by(|a, b| a.id.cmp(&b.id));
}

/// The JSON Lines text of `results` (already sorted).
pub fn jsonl(results: &[CaseResult]) -> String {
    let mut out = String::new();
    for r in results {
        out.push_str(&serde_json::to_string(r).expect("a result serialises"));
        out.push('\n');
    }
    out
}

/// The JUnit XML (xunit2: `testsuites` > `testsuite` per suite > `testcase`, with `failure`
/// or `error` children and the seed, configuration and reproduction command in
/// `system-out`) of `results` (already sorted), for the plan named `plan`.
pub fn junit(plan: &str, results: &[CaseResult]) -> String {
    let timed = results.iter().any(|r| r.duration_ms.is_some());
    let seconds = |ms: u64| format!("{}.{:03}", ms / 1000, ms % 1000);
    let mut suites: Vec<(&str, Vec<&CaseResult>)> = Vec::new();
    for r in results {
        match suites.iter_mut().find(|(s, _)| *s == r.suite) {
            Some((_, v)) => v.push(r),
            None => suites.push((&r.suite, vec![r])),
        }
    }
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total = Totals::of(results);
    let _ = write!(
        x,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\"",
        attr(plan),
        total.tests,
        total.failures,
        total.errors
    );
    if timed {
        let ms: u64 = results.iter().filter_map(|r| r.duration_ms).sum();
        let _ = write!(x, " time=\"{}\"", seconds(ms));
    }
    x.push_str(">\n");
    for (suite, cases) in &suites {
        let t = Totals::of(cases.iter().copied());
        let _ = write!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\"",
            attr(suite),
            t.tests,
            t.failures,
            t.errors
        );
        if timed {
            let ms: u64 = cases.iter().filter_map(|r| r.duration_ms).sum();
            let _ = write!(x, " time=\"{}\"", seconds(ms));
        }
        x.push_str(">\n");
        for r in cases {
            let _ = write!(
                x,
                "    <testcase name=\"{}\" classname=\"{}\"",
                attr(&r.name),
                attr(&format!("{plan}.{suite}"))
            );
            if let Some(ms) = r.duration_ms {
                let _ = write!(x, " time=\"{}\"", seconds(ms));
            }
            x.push_str(">\n");
            let tag = match r.status {
                Status::Pass => None,
                Status::Fail => Some("failure"),
                Status::Error => Some("error"),
            };
            if let Some(tag) = tag {
                let summary = r.message.lines().next().unwrap_or("");
                let _ = writeln!(
                    x,
                    "      <{tag} message=\"{}\" type=\"{}\">{}\nreproduce: {}</{tag}>",
                    attr(summary),
                    tag,
                    text(&r.message),
                    text(&r.reproduce)
                );
            }
            let seed = r.seed.map(|s| s.to_string()).unwrap_or_else(|| "-".into());
            let _ = writeln!(
                x,
                "      <system-out>id: {}\nseed: {}\nconfig: {} ({})\nreproduce: {}</system-out>",
                text(&r.id),
                seed,
                text(&r.config),
                text(&r.config_hash),
                text(&r.reproduce)
            );
            x.push_str("    </testcase>\n");
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

/// `s` as XML character data: markup characters escaped, and characters XML 1.0 cannot
/// hold at all (control characters other than tab, newline and carriage return, e.g. a
/// terminal escape in a tool's stderr) replaced by U+FFFD.
pub fn text(s: &str) -> String {
    escape(s, false)
}

/// `s` as an XML attribute value in double quotes: as [`text`], with quotes escaped and
/// tab, newline and carriage return as character references (attribute normalisation
/// would turn them into spaces).
pub fn attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' | '\n' => out.push(c),
            c if allowed_in_xml(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// XML 1.0's `Char` production.
fn allowed_in_xml(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}
