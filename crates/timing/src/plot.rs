//! A small SVG line plot: series of (x, y) points over shared axes, with ticks, axis labels,
//! a legend and a title, written as plain SVG text (no dependency). The output depends only
//! on the plot's contents: coordinates are printed with a fixed number of decimals and
//! nothing (time, random identifiers) varies between runs, so a committed plot can be
//! compared byte for byte with a fresh one. `warpkit timing sweep --svg` writes its
//! design-space sweep with it.

use std::fmt::Write as _;

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Equal distances for equal differences.
    Linear,
    /// Equal distances for equal ratios (each doubling is one step): for knobs swept over
    /// powers of two. Every value must be positive.
    Log2,
}

/// How tick labels print a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A number: integers below 10 000 in full, larger ones with a k, M or G suffix
    /// (`262k`, `1.5M`), fractions with up to three decimals.
    Number,
    /// A size in bytes: `512 B`, `256 KiB`, `1 MiB` (binary prefixes).
    Bytes,
}

/// One line of the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its name in the legend.
    pub label: String,
    /// The points, joined in this order.
    pub points: Vec<(f64, f64)>,
    /// Index into the plot's colour palette (it wraps around).
    pub colour: usize,
    /// Index into the plot's dash patterns (0: solid; it wraps around).
    pub dash: usize,
}

/// A line plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// The title above the plot.
    pub title: String,
    /// The x axis's label.
    pub x_label: String,
    /// The y axis's label.
    pub y_label: String,
    /// How x values map to positions.
    pub x_scale: Scale,
    /// How x tick labels print.
    pub x_format: Format,
    /// Names of the x values 0, 1, 2, ... for a categorical axis (`lrr`, `gto`): when not
    /// empty, ticks sit at those integers and print these names instead of numbers.
    pub x_names: Vec<String>,
    /// How y tick labels print.
    pub y_format: Format,
    /// Whether the y axis starts at 0 (otherwise at the smallest value, rounded down to a
    /// tick).
    pub y_from_zero: bool,
    /// The lines, drawn and listed in the legend in this order.
    pub series: Vec<Series>,
}

/// Why a plot cannot be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlotError {
    /// No series has a point.
    #[error("the plot has no points")]
    Empty,
    /// A coordinate is infinite or not a number.
    #[error("series `{series}`: point ({x}, {y}) is not finite")]
    NotFinite {
        /// The series' label.
        series: String,
        /// The point's x.
        x: f64,
        /// The point's y.
        y: f64,
    },
    /// A log-scale axis got a value that is not positive.
    #[error("series `{series}`: x = {x} on a log scale (it must be positive)")]
    NotPositive {
        /// The series' label.
        series: String,
        /// The offending x.
        x: f64,
    },
}

/// Colours of the series (colour-blind-safe: Okabe and Ito's palette, then two greys).
const PALETTE: [&str; 9] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#f0e442", "#000000",
    "#999999",
];

/// Dash patterns (`stroke-dasharray`); the first is a solid line.
const DASHES: [&str; 4] = ["", "6 3", "2 3", "8 3 2 3"];

/// The plot area's size and the margins around it, in SVG user units (pixels).
const PLOT_WIDTH: f64 = 560.0;
const PLOT_HEIGHT: f64 = 360.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 60.0;
/// Space between the plot area and the legend, and after the legend.
const GAP: f64 = 20.0;
/// Vertical distance between legend entries.
const LEGEND_LINE: f64 = 20.0;
/// A rough width of one character at the legend's font size: enough to size the picture
/// so labels are not cut off (SVG has no text metrics without a renderer).
const CHAR_WIDTH: f64 = 7.0;

impl Series {
    /// A solid series of the palette's colour `index`.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>, index: usize) -> Series {
        Series {
            label: label.into(),
            points,
            colour: index,
            dash: 0,
        }
    }
}

/// A range of values and the axis positions they map to.
struct Axis {
    scale: Scale,
    lo: f64,
    hi: f64,
    /// Pixel positions of `lo` and `hi`.
    from: f64,
    to: f64,
    ticks: Vec<f64>,
}

impl Axis {
    fn position(&self, v: f64) -> f64 {
        let (v, lo, hi) = match self.scale {
            Scale::Linear => (v, self.lo, self.hi),
            Scale::Log2 => (v.log2(), self.lo.log2(), self.hi.log2()),
        };
        self.from + (v - lo) / (hi - lo) * (self.to - self.from)
    }
}

/// A step of 1, 2 or 5 times a power of ten giving about `count` intervals over `span`.
fn nice_step(span: f64, count: f64) -> f64 {
    let raw = span / count;
    let magnitude = 10f64.powf(raw.log10().floor());
    let fraction = raw / magnitude;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// Multiples of `step` from `lo` to `hi` (both multiples of it).
fn steps(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let n = ((hi - lo) / step).round() as i64;
    (0..=n).map(|k| lo + k as f64 * step).collect()
}

/// The sorted distinct values of `values`.
fn distinct(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// The x axis: the data's range (widened a little so no point sits on the frame), ticks
/// at the data's own x values when there are few of them (a sweep's knob values), else at
/// round numbers (powers of two on a log scale).
fn x_axis(xs: &[f64], scale: Scale) -> Axis {
    let (min, max) = (xs[0], xs[xs.len() - 1]);
    let (lo, hi) = match scale {
        Scale::Linear => {
            let span = if max > min { max - min } else { 1.0 };
            (min - span * 0.04, max + span * 0.04)
        }
        Scale::Log2 => {
            let ratio = if max > min { max / min } else { 2.0 };
            let pad = ratio.powf(0.04);
            (min / pad, max * pad)
        }
    };
    let ticks = if xs.len() <= 12 {
        xs.to_vec()
    } else {
        match scale {
            Scale::Linear => {
                let step = nice_step(max - min, 6.0);
                steps(
                    (min / step).ceil() * step,
                    (max / step).floor() * step,
                    step,
                )
            }
            Scale::Log2 => {
                let (a, b) = (min.log2().ceil() as i32, max.log2().floor() as i32);
                let every = ((b - a) / 8).max(1) as usize;
                (a..=b).step_by(every).map(|e| 2f64.powi(e)).collect()
            }
        }
    };
    Axis {
        scale,
        lo,
        hi,
        from: LEFT,
        to: LEFT + PLOT_WIDTH,
        ticks,
    }
}

/// The ticks of a categorical axis: the integers naming its `count` categories, among
/// the `values` plotted.
fn names_ticks(values: &[f64], count: usize) -> Vec<f64> {
    values
        .iter()
        .copied()
        .filter(|v| v.fract() == 0.0 && *v >= 0.0 && (*v as usize) < count)
        .collect()
}

/// The y axis: round numbers from 0 (or the data's minimum) to just above the maximum.
fn y_axis(ys: &[f64], from_zero: bool) -> Axis {
    let (mut min, mut max) = (ys[0], ys[ys.len() - 1]);
    if from_zero {
        min = min.min(0.0);
        max = max.max(0.0);
    }
    if max <= min {
        // One value: a unit-wide range around it.
        let half = if min == 0.0 { 1.0 } else { min.abs() * 0.5 };
        (min, max) = if from_zero && min >= 0.0 {
            (0.0, min + 2.0 * half)
        } else {
            (min - half, max + half)
        };
    }
    let step = nice_step(max - min, 6.0);
    let lo = (min / step).floor() * step;
    let hi = (max / step).ceil() * step;
    Axis {
        scale: Scale::Linear,
        lo,
        hi,
        from: TOP + PLOT_HEIGHT,
        to: TOP,
        ticks: steps(lo, hi, step),
    }
}

/// `v` with up to `decimals` decimals, trailing zeros removed.
fn trimmed(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A tick label.
pub fn format_value(v: f64, format: Format) -> String {
    // -0.0 would print as "-0".
    let v = if v == 0.0 { 0.0 } else { v };
    match format {
        Format::Number => {
            let a = v.abs();
            if a >= 1e9 {
                format!("{}G", trimmed(v / 1e9, 2))
            } else if a >= 1e6 {
                format!("{}M", trimmed(v / 1e6, 2))
            } else if a >= 1e4 {
                format!("{}k", trimmed(v / 1e3, 1))
            } else {
                trimmed(v, 3)
            }
        }
        Format::Bytes => {
            let a = v.abs();
            if a >= f64::from(1u32 << 30) {
                format!("{} GiB", trimmed(v / f64::from(1u32 << 30), 2))
            } else if a >= f64::from(1u32 << 20) {
                format!("{} MiB", trimmed(v / f64::from(1u32 << 20), 2))
            } else if a >= 1024.0 {
                format!("{} KiB", trimmed(v / 1024.0, 2))
            } else {
                format!("{} B", trimmed(v, 0))
            }
        }
    }
}

/// `text` with the characters XML reserves replaced by entities.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A pixel coordinate: one decimal is finer than any screen and keeps the text stable.
fn px(v: f64) -> String {
    trimmed(v, 1)
}

impl Plot {
    /// The plot as an SVG document.
    pub fn to_svg(&self) -> Result<String, PlotError> {
        for s in &self.series {
            for &(x, y) in &s.points {
                if !x.is_finite() || !y.is_finite() {
                    return Err(PlotError::NotFinite {
                        series: s.label.clone(),
                        x,
                        y,
                    });
                }
                if self.x_scale == Scale::Log2 && x <= 0.0 {
                    return Err(PlotError::NotPositive {
                        series: s.label.clone(),
                        x,
                    });
                }
            }
        }
        let points = || self.series.iter().flat_map(|s| s.points.iter());
        let xs = distinct(points().map(|p| p.0));
        let ys = distinct(points().map(|p| p.1));
        if xs.is_empty() {
            return Err(PlotError::Empty);
        }
        let x = if self.x_names.is_empty() {
            x_axis(&xs, self.x_scale)
        } else {
            let names: Vec<f64> = (0..self.x_names.len()).map(|k| k as f64).collect();
            let all = distinct(xs.iter().copied().chain(names));
            Axis {
                ticks: names_ticks(&all, self.x_names.len()),
                ..x_axis(&all, Scale::Linear)
            }
        };
        let x_tick = |t: f64| match self.x_names.get(t as usize) {
            Some(name) if !self.x_names.is_empty() && t >= 0.0 && t.fract() == 0.0 => name.clone(),
            _ => format_value(t, self.x_format),
        };
        let y = y_axis(&ys, self.y_from_zero);

        let longest = self
            .series
            .iter()
            .map(|s| s.label.chars().count())
            .max()
            .unwrap_or(0);
        let legend_x = LEFT + PLOT_WIDTH + GAP;
        let width = (legend_x + 36.0 + longest as f64 * CHAR_WIDTH + GAP).ceil();
        let legend_bottom = TOP + 10.0 + self.series.len() as f64 * LEGEND_LINE;
        let height = (TOP + PLOT_HEIGHT + BOTTOM).max(legend_bottom + GAP).ceil();

        let mut svg = String::new();
        let w = &mut svg;
        // Writing to a String cannot fail.
        let _ = writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
        let _ = writeln!(
            w,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="12">"#,
            px(width),
            px(height)
        );
        let _ = writeln!(w, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            w,
            r#"<text x="{}" y="{}" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
            px(LEFT + PLOT_WIDTH / 2.0),
            px(TOP / 2.0 + 5.0),
            escape(&self.title)
        );

        // Grid lines and ticks.
        let _ = writeln!(w, r##"<g stroke="#dddddd" stroke-width="1">"##);
        for &t in &y.ticks {
            let p = px(y.position(t));
            let _ = writeln!(
                w,
                r#"<line x1="{}" y1="{p}" x2="{}" y2="{p}"/>"#,
                px(LEFT),
                px(LEFT + PLOT_WIDTH)
            );
        }
        for &t in &x.ticks {
            let p = px(x.position(t));
            let _ = writeln!(
                w,
                r#"<line x1="{p}" y1="{}" x2="{p}" y2="{}"/>"#,
                px(TOP),
                px(TOP + PLOT_HEIGHT)
            );
        }
        let _ = writeln!(w, "</g>");
        let _ = writeln!(
            w,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="black"/>"#,
            px(LEFT),
            px(TOP),
            px(PLOT_WIDTH),
            px(PLOT_HEIGHT)
        );
        let _ = writeln!(w, r#"<g class="x-ticks" text-anchor="middle">"#);
        for &t in &x.ticks {
            let p = x.position(t);
            let bottom = TOP + PLOT_HEIGHT;
            let _ = writeln!(
                w,
                r#"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="black"/><text x="{0}" y="{3}">{4}</text>"#,
                px(p),
                px(bottom),
                px(bottom + 5.0),
                px(bottom + 19.0),
                escape(&x_tick(t))
            );
        }
        let _ = writeln!(w, "</g>");
        let _ = writeln!(w, r#"<g class="y-ticks" text-anchor="end">"#);
        for &t in &y.ticks {
            let p = y.position(t);
            let _ = writeln!(
                w,
                r#"<line x1="{0}" y1="{2}" x2="{1}" y2="{2}" stroke="black"/><text x="{3}" y="{4}">{5}</text>"#,
                px(LEFT - 5.0),
                px(LEFT),
                px(p),
                px(LEFT - 8.0),
                px(p + 4.0),
                escape(&format_value(t, self.y_format))
            );
        }
        let _ = writeln!(w, "</g>");
        let _ = writeln!(
            w,
            r#"<text class="x-label" x="{}" y="{}" text-anchor="middle">{}</text>"#,
            px(LEFT + PLOT_WIDTH / 2.0),
            px(TOP + PLOT_HEIGHT + 45.0),
            escape(&self.x_label)
        );
        let (lx, ly) = (18.0, TOP + PLOT_HEIGHT / 2.0);
        let _ = writeln!(
            w,
            r#"<text class="y-label" x="{0}" y="{1}" text-anchor="middle" transform="rotate(-90 {0} {1})">{2}</text>"#,
            px(lx),
            px(ly),
            escape(&self.y_label)
        );

        // The series, then the legend.
        for s in &self.series {
            let colour = PALETTE[s.colour % PALETTE.len()];
            let dash = DASHES[s.dash % DASHES.len()];
            let dash = if dash.is_empty() {
                String::new()
            } else {
                format!(r#" stroke-dasharray="{dash}""#)
            };
            let _ = writeln!(w, r#"<g class="series" fill="{colour}">"#);
            let _ = writeln!(w, "<title>{}</title>", escape(&s.label));
            let path: Vec<String> = s
                .points
                .iter()
                .map(|&(a, b)| format!("{},{}", px(x.position(a)), px(y.position(b))))
                .collect();
            let _ = writeln!(
                w,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>"#,
                path.join(" ")
            );
            for &(a, b) in &s.points {
                let _ = writeln!(
                    w,
                    r#"<circle cx="{}" cy="{}" r="3.5"><title>{}: {} = {}, {} = {}</title></circle>"#,
                    px(x.position(a)),
                    px(y.position(b)),
                    escape(&s.label),
                    escape(&self.x_label),
                    escape(&x_tick(a)),
                    escape(&self.y_label),
                    trimmed(b, 4)
                );
            }
            let _ = writeln!(w, "</g>");
        }
        let _ = writeln!(w, r#"<g class="legend">"#);
        for (k, s) in self.series.iter().enumerate() {
            let colour = PALETTE[s.colour % PALETTE.len()];
            let dash = DASHES[s.dash % DASHES.len()];
            let dash = if dash.is_empty() {
                String::new()
            } else {
                format!(r#" stroke-dasharray="{dash}""#)
            };
            let row = TOP + 10.0 + k as f64 * LEGEND_LINE;
            let _ = writeln!(
                w,
                r#"<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="{colour}" stroke-width="2"{dash}/><circle cx="{xm}" cy="{y}" r="3.5" fill="{colour}"/><text x="{xt}" y="{yt}">{label}</text>"#,
                x0 = px(legend_x),
                x1 = px(legend_x + 28.0),
                y = px(row),
                xm = px(legend_x + 14.0),
                xt = px(legend_x + 36.0),
                yt = px(row + 4.0),
                label = escape(&s.label)
            );
        }
        let _ = writeln!(w, "</g>");
        let _ = writeln!(w, "</svg>");
        Ok(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An element of a parsed document: its name, attributes and text content.
    #[derive(Debug)]
    struct Element {
        name: String,
        attrs: Vec<(String, String)>,
        text: String,
    }

    impl Element {
        fn attr(&self, name: &str) -> Option<&str> {
            self.attrs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        }
    }

    /// `text` with the five predefined entities decoded; an `&` that starts none of them is
    /// malformed XML.
    fn unescape(text: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('&') {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            let (c, len) = [
                ("&amp;", '&'),
                ("&lt;", '<'),
                ("&gt;", '>'),
                ("&quot;", '"'),
                ("&apos;", '\''),
            ]
            .iter()
            .find(|(e, _)| tail.starts_with(e))
            .map(|(e, c)| (*c, e.len()))
            .ok_or_else(|| format!("a bare & in {text:?}"))?;
            out.push(c);
            rest = &tail[len..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Parse `doc` as XML as far as these plots use it (a declaration, elements with
    /// double-quoted attributes, text, no comments or CDATA): every element in document
    /// order, or why it is not well formed (an unclosed or mismatched tag, a bad attribute,
    /// a raw `<` or `&` in text, more than one root).
    fn parse(doc: &str) -> Result<Vec<Element>, String> {
        let mut rest = doc.trim_start();
        if let Some(decl) = rest.strip_prefix("<?xml") {
            let end = decl.find("?>").ok_or("unterminated declaration")?;
            rest = &decl[end + 2..];
        }
        let mut elements: Vec<Element> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let mut roots = 0;
        loop {
            let lt = rest.find('<').unwrap_or(rest.len());
            let text = unescape(&rest[..lt])?;
            if let Some(&top) = open.last() {
                elements[top].text.push_str(&text);
            } else if !text.trim().is_empty() {
                return Err(format!("text outside the root: {text:?}"));
            }
            if lt == rest.len() {
                break;
            }
            rest = &rest[lt + 1..];
            let gt = rest.find('>').ok_or("unterminated tag")?;
            let tag = &rest[..gt];
            rest = &rest[gt + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                let top = open.pop().ok_or(format!("</{name}> closes nothing"))?;
                if elements[top].name != name {
                    return Err(format!("</{name}> closes <{}>", elements[top].name));
                }
                continue;
            }
            let (tag, empty) = match tag.strip_suffix('/') {
                Some(t) => (t, true),
                None => (tag, false),
            };
            let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
            let name = &tag[..name_end];
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(format!("bad element name in <{tag}>"));
            }
            let mut attrs = Vec::new();
            let mut a = tag[name_end..].trim_start();
            while !a.is_empty() {
                let eq = a.find("=\"").ok_or(format!("bad attribute in <{tag}>"))?;
                let key = &a[..eq];
                if key.is_empty() || key.contains(char::is_whitespace) {
                    return Err(format!("bad attribute name in <{tag}>"));
                }
                let value_end = a[eq + 2..]
                    .find('"')
                    .ok_or(format!("unterminated value in <{tag}>"))?;
                let value = &a[eq + 2..eq + 2 + value_end];
                if value.contains('<') {
                    return Err(format!("< in an attribute of <{tag}>"));
                }
                if attrs.iter().any(|(k, _)| k == key) {
                    return Err(format!("{key} twice in <{tag}>"));
                }
                attrs.push((key.to_string(), unescape(value)?));
                a = a[eq + 2 + value_end + 1..].trim_start();
            }
            if open.is_empty() {
                roots += 1;
            }
            elements.push(Element {
                name: name.to_string(),
                attrs,
                text: String::new(),
            });
            if !empty {
                open.push(elements.len() - 1);
            }
        }
        if let Some(&top) = open.last() {
            return Err(format!("<{}> is never closed", elements[top].name));
        }
        if roots != 1 {
            return Err(format!("{roots} root elements"));
        }
        Ok(elements)
    }

    fn sweep_like() -> Plot {
        Plot {
            title: "cycles by compute units".into(),
            x_label: "compute_units".into(),
            y_label: "cycles".into(),
            x_scale: Scale::Log2,
            x_format: Format::Number,
            x_names: Vec::new(),
            y_format: Format::Number,
            y_from_zero: true,
            series: vec![
                Series::new(
                    "sgemm, l2 <256 KiB> & co",
                    vec![
                        (1.0, 90000.0),
                        (2.0, 47000.0),
                        (4.0, 25000.0),
                        (8.0, 14000.0),
                    ],
                    0,
                ),
                Series {
                    dash: 1,
                    ..Series::new(
                        "reduce",
                        vec![(1.0, 30000.0), (2.0, 16000.0), (4.0, 9000.0), (8.0, 7000.0)],
                        1,
                    )
                },
            ],
        }
    }

    #[test]
    fn the_svg_is_well_formed_with_every_point_and_label() {
        let svg = sweep_like().to_svg().unwrap();
        let elements = parse(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
        assert_eq!(elements[0].name, "svg");
        assert_eq!(
            elements[0].attr("xmlns"),
            Some("http://www.w3.org/2000/svg")
        );
        // One marker per point in the plot, one per series in the legend.
        let circles = elements.iter().filter(|e| e.name == "circle").count();
        assert_eq!(circles, 8 + 2);
        let lines: Vec<&Element> = elements.iter().filter(|e| e.name == "polyline").collect();
        assert_eq!(lines.len(), 2);
        for l in &lines {
            assert_eq!(l.attr("points").unwrap().split(' ').count(), 4);
        }
        assert_eq!(lines[1].attr("stroke-dasharray"), Some("6 3"));
        let texts: Vec<&str> = elements
            .iter()
            .filter(|e| e.name == "text")
            .map(|e| e.text.as_str())
            .collect();
        for wanted in [
            "cycles by compute units",
            "compute_units",
            "cycles",
            "sgemm, l2 <256 KiB> & co",
            "reduce",
            "1",
            "2",
            "4",
            "8",
            "0",
            "100k",
        ] {
            assert!(texts.contains(&wanted), "no text {wanted:?} in {texts:?}");
        }
        let label = elements
            .iter()
            .find(|e| e.attr("class") == Some("y-label"))
            .unwrap();
        assert_eq!(label.text, "cycles");
        assert!(label.attr("transform").unwrap().starts_with("rotate(-90"));
    }

    #[test]
    fn points_land_inside_the_plot_area_in_order() {
        let svg = sweep_like().to_svg().unwrap();
        let elements = parse(&svg).unwrap();
        let first = elements.iter().find(|e| e.name == "polyline").unwrap();
        let pts: Vec<(f64, f64)> = first
            .attr("points")
            .unwrap()
            .split(' ')
            .map(|p| {
                let (a, b) = p.split_once(',').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        for &(x, y) in &pts {
            assert!((LEFT..=LEFT + PLOT_WIDTH).contains(&x), "{x}");
            assert!((TOP..=TOP + PLOT_HEIGHT).contains(&y), "{y}");
        }
        // x grows, cycles fall (y in SVG grows downwards), and doublings are equally spaced.
        for w in pts.windows(2) {
            assert!(w[1].0 > w[0].0 && w[1].1 > w[0].1);
        }
        let d1 = pts[1].0 - pts[0].0;
        let d2 = pts[3].0 - pts[2].0;
        assert!((d1 - d2).abs() < 0.2, "{d1} {d2}");
    }

    #[test]
    fn output_is_deterministic() {
        let a = sweep_like().to_svg().unwrap();
        let b = sweep_like().clone().to_svg().unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn many_x_values_get_round_ticks_and_bytes_print_with_binary_prefixes() {
        let xs: Vec<(f64, f64)> = (0..20)
            .map(|k| (f64::from(1u32 << k) * 1024.0, f64::from(k)))
            .collect();
        let plot = Plot {
            title: "t".into(),
            x_label: "l2.size_bytes".into(),
            y_label: "speedup".into(),
            x_scale: Scale::Log2,
            x_format: Format::Bytes,
            x_names: Vec::new(),
            y_format: Format::Number,
            y_from_zero: false,
            series: vec![Series::new("s", xs, 3)],
        };
        let svg = plot.to_svg().unwrap();
        let elements = parse(&svg).unwrap();
        let ticks = elements
            .iter()
            .filter(|e| e.name == "g" && e.attr("class") == Some("x-ticks"))
            .count();
        assert_eq!(ticks, 1);
        assert!(svg.contains(">1 KiB<") && svg.contains(">1 MiB<"), "{svg}");
        assert_eq!(format_value(262144.0, Format::Bytes), "256 KiB");
        assert_eq!(format_value(1536.0, Format::Bytes), "1.5 KiB");
        assert_eq!(format_value(1_500_000.0, Format::Number), "1.5M");
        assert_eq!(format_value(0.25, Format::Number), "0.25");
        assert_eq!(format_value(-0.0, Format::Number), "0");
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut p = sweep_like();
        p.series.iter_mut().for_each(|s| s.points.clear());
        assert_eq!(p.to_svg(), Err(PlotError::Empty));
        let mut p = sweep_like();
        p.series[0].points[1].1 = f64::NAN;
        assert!(matches!(p.to_svg(), Err(PlotError::NotFinite { .. })));
        let mut p = sweep_like();
        p.series[1].points[0].0 = 0.0;
        assert!(matches!(p.to_svg(), Err(PlotError::NotPositive { .. })));
        // A single point still draws (a one-value sweep).
        let mut p = sweep_like();
        p.series.truncate(1);
        p.series[0].points.truncate(1);
        assert!(parse(&p.to_svg().unwrap()).is_ok());
    }

    #[test]
    fn a_categorical_axis_prints_names() {
        let plot = Plot {
            x_scale: Scale::Linear,
            x_names: vec!["lrr".into(), "gto".into()],
            y_from_zero: false,
            series: vec![Series::new("sgemm", vec![(0.0, 1.0), (1.0, 1.25)], 0)],
            ..sweep_like()
        };
        let svg = plot.to_svg().unwrap();
        let elements = parse(&svg).unwrap();
        let texts: Vec<&str> = elements
            .iter()
            .filter(|e| e.name == "text")
            .map(|e| e.text.as_str())
            .collect();
        assert!(
            texts.contains(&"lrr") && texts.contains(&"gto"),
            "{texts:?}"
        );
        assert!(!texts.contains(&"0"), "{texts:?}");
    }

    #[test]
    fn the_checker_rejects_malformed_xml() {
        assert!(parse("<svg><g></svg>").is_err());
        assert!(parse("<svg>a & b</svg>").is_err());
        assert!(parse("<svg x=1/>").is_err());
        assert!(parse("<svg/><svg/>").is_err());
        assert!(parse("<svg><text>a &amp; b</text></svg>").is_ok());
    }
}
