//! Coverage reports: text (summary per category, then what was not hit), JSON (the
//! database with the summary) and one self-contained HTML page in the style of the
//! profile report (docs/profiling.md).

use super::Coverage;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use warpkit_prof::html::{escape, BASE_STYLE};

fn percent(hit: usize, total: usize) -> f64 {
    if total == 0 {
        100.0
    } else {
        100.0 * hit as f64 / total as f64
    }
}

/// The summary table: one row per category and a total, as Markdown-compatible text.
pub fn summary_table(cov: &Coverage) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| category | bins | hit | coverage |");
    let _ = writeln!(s, "|---|---:|---:|---:|");
    for (cat, n, h) in cov.summary() {
        let _ = writeln!(s, "| {cat} | {n} | {h} | {:.1}% |", percent(h, n));
    }
    let (n, h) = (cov.bins.len(), cov.hit_count());
    let _ = writeln!(s, "| **total** | {n} | {h} | {:.1}% |", percent(h, n));
    s
}

/// The bins not hit, grouped by coverpoint: `(coverpoint, [bin, ...])` in id order.
pub fn missed(cov: &Coverage) -> Vec<(String, Vec<String>)> {
    let mut by: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (id, s) in &cov.bins {
        if s.hits == 0 {
            let (cp, bin) = id.rsplit_once('/').unwrap_or(("", id));
            by.entry(cp).or_default().push(bin.to_string());
        }
    }
    by.into_iter().map(|(c, b)| (c.to_string(), b)).collect()
}

/// The text report: totals, the summary per category, then every bin not hit (one line
/// per coverpoint, under its category).
pub fn text(cov: &Coverage) -> String {
    let mut s = String::new();
    let (n, h) = (cov.bins.len(), cov.hit_count());
    let _ = writeln!(
        s,
        "coverage: {h} of {n} bins hit ({:.1}%) by {} program{}",
        percent(h, n),
        cov.programs.len(),
        if cov.programs.len() == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "\n{:<16} {:>7} {:>7} {:>7}",
        "category", "bins", "hit", "%"
    );
    for (cat, n, h) in cov.summary() {
        let _ = writeln!(s, "{cat:<16} {n:>7} {h:>7} {:>6.1}%", percent(h, n));
    }
    let missed = missed(cov);
    if missed.is_empty() {
        s.push_str("\nevery bin was hit\n");
        return s;
    }
    s.push_str("\nnot hit:\n");
    for (cat, _, _) in cov.summary() {
        let lines: Vec<String> = missed
            .iter()
            .filter_map(|(cp, bins)| {
                let bins: Vec<&str> = bins
                    .iter()
                    .filter(|b| {
                        cov.bins
                            .get(&format!("{cp}/{b}"))
                            .is_some_and(|x| x.category == cat)
                    })
                    .map(String::as_str)
                    .collect();
                (!bins.is_empty()).then(|| format!("  {cp}: {}", bins.join(" ")))
            })
            .collect();
        if !lines.is_empty() {
            let _ = writeln!(s, "{cat}:");
            for l in lines {
                let _ = writeln!(s, "{l}");
            }
        }
    }
    s
}

/// The JSON report: the database's fields plus `summary` (per category: bins, hit) and
/// `total`. `warpkit cover merge` reads it as a database.
pub fn json(cov: &Coverage) -> String {
    let summary: Vec<serde_json::Value> = cov
        .summary()
        .into_iter()
        .map(|(c, n, h)| serde_json::json!({"category": c, "bins": n, "hit": h}))
        .collect();
    let mut v: serde_json::Value =
        serde_json::from_str(&cov.to_json()).unwrap_or(serde_json::Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.insert("summary".into(), serde_json::Value::Array(summary));
        o.insert(
            "total".into(),
            serde_json::json!({"bins": cov.bins.len(), "hit": cov.hit_count()}),
        );
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// The coverage report's own rules, after the profile report's shared ones.
const STYLE: &str = "tr.miss td{background:#fdd}\
.track{display:inline-block;width:200px;height:10px;background:#eee}";

/// The HTML report: totals, the summary per category with bars, then per category a
/// table of its bins (hits, first program), bins not hit shaded.
pub fn html(cov: &Coverage, title: &str) -> String {
    let mut h = String::new();
    let (n, hit) = (cov.bins.len(), cov.hit_count());
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>warpkit coverage: {t}</title><style>{BASE_STYLE}{STYLE}</style></head><body>\n\
         <h1>warpkit coverage: {t}</h1>\n",
        t = escape(title)
    );
    let _ = writeln!(
        h,
        "<p id=\"totals\"><b>{hit}</b> of {n} bins hit (<b id=\"percent\">{:.1}%</b>) by {} programs.</p>",
        percent(hit, n),
        cov.programs.len()
    );
    h.push_str("<h2>Summary</h2>\n<table id=\"summary\"><tr><th class=\"src\">category</th><th>bins</th><th>hit</th><th>coverage</th><th></th></tr>\n");
    for (cat, n, hh) in cov.summary() {
        let p = percent(hh, n);
        let _ = writeln!(
            h,
            "<tr><td class=\"src\"><a href=\"#{c}\">{c}</a></td><td>{n}</td><td>{hh}</td><td>{p:.1}%</td>\
             <td class=\"src\"><span class=\"track\"><span class=\"bar\" style=\"width:{w}px\"></span></span></td></tr>",
            c = escape(&cat),
            w = (p * 2.0).round() as u32
        );
    }
    h.push_str("</table>\n");
    for (cat, n, hh) in cov.summary() {
        let _ = writeln!(
            h,
            "<h2 id=\"{c}\">{c}: {hh} of {n}</h2>\n<table><tr><th class=\"src\">bin</th><th>hits</th><th class=\"src\">first hit by</th></tr>",
            c = escape(&cat)
        );
        for (id, s) in cov.bins.iter().filter(|(_, s)| s.category == cat) {
            let _ = writeln!(
                h,
                "<tr{}><td class=\"src\">{}</td><td>{}</td><td class=\"src\">{}</td></tr>",
                if s.hits == 0 { " class=\"miss\"" } else { "" },
                escape(id),
                s.hits,
                escape(s.first.as_deref().unwrap_or("-"))
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str("</body></html>\n");
    h
}
