//! Expansion before assembly: `.include`, `.macro`/`.endm` and `.rept`/`.endr` turn the
//! source into the text that is assembled, with the origin of every line (file, line,
//! column map, and the chain of expansions it came through) so that diagnostics name the
//! text the user wrote. Sources that use none of them skip this step entirely.
//!
//! Bounded: includes nest at most [`MAX_INCLUDE_DEPTH`] deep, expansions of every kind at
//! most [`MAX_EXPANSION_DEPTH`], and the expanded text stays within
//! [`MAX_EXPANDED_BYTES`] and [`MAX_EXPANDED_LINES`]; past a bound, a located error.

use crate::error::{AsmError, ErrorKind};
use crate::expr::{eval, Lookup, Resolve, Val};
use crate::lex::{ident_end, is_ident_char, is_ident_start, skip_ws, strip_comment};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Deepest chain of `.include`s.
pub const MAX_INCLUDE_DEPTH: usize = 16;
/// Deepest nesting of macro expansions, `.rept`s and includes together.
pub const MAX_EXPANSION_DEPTH: usize = 64;
/// Largest expanded text, in bytes.
pub const MAX_EXPANDED_BYTES: usize = crate::MAX_SOURCE_BYTES;
/// Most lines of expanded text.
pub const MAX_EXPANDED_LINES: usize = 1 << 23;

const NONE: u32 = u32::MAX;

/// Where one expanded line came from.
#[derive(Clone, Copy)]
pub(super) struct Origin {
    /// Index into [`Expansion::files`].
    pub file: u32,
    /// 1-based line in that file.
    pub line: u32,
    /// Innermost expansion frame, or `NONE`.
    pub frame: u32,
    /// Column map (index into [`Expansion::colmaps`]), or `NONE` when the line is verbatim.
    pub cols: u32,
}

enum FrameKind {
    Include,
    Macro(String),
    Rept,
}

/// One expansion: what, where it was asked for (a real location), and the frame that
/// location itself was in.
struct Frame {
    kind: FrameKind,
    file: u32,
    line: u32,
    column: usize,
    parent: u32,
}

/// Segments of a substituted line: `(out_start, src_start, src_len)`, by `out_start`;
/// `src_len` is 0 for verbatim text, else the length of the `\name` whose value this is
/// (every offset in the value maps to that `\name`).
struct ColMap {
    segs: Vec<(u32, u32, u32)>,
    then: u32,
}

pub(super) struct SourceFile {
    pub name: String,
    pub text: Rc<str>,
    path: Option<PathBuf>,
    /// Line start offsets, built when a diagnostic needs them.
    starts: Option<Vec<usize>>,
}

struct Macro {
    params: Vec<Param>,
    body: Vec<(String, Origin)>,
}

struct Param {
    name: String,
    default: Option<String>,
    required: bool,
    vararg: bool,
}

pub(super) struct Expansion {
    pub text: String,
    /// Origin of each expanded line, and where it starts in `text`.
    pub lines: Vec<(Origin, usize)>,
    pub files: Vec<SourceFile>,
    frames: Vec<Frame>,
    colmaps: Vec<ColMap>,
    /// Errors found while expanding, with the expanded line they belong before.
    pub errors: Vec<(usize, AsmError)>,
    macros: HashMap<String, Rc<Macro>>,
    /// `.equ`/`.set` constants seen so far, for `.rept` counts.
    consts: HashMap<String, i128>,
    expansions: u64,
    /// A size bound was hit: stop expanding.
    stopped: bool,
    /// Macro calls and `.rept` iterations so far: bounded even when they emit no line.
    steps: usize,
}

/// Whether `src` may use `.include`, `.macro` or `.rept` (any case): otherwise it is
/// assembled as it is.
pub(super) fn needs_expansion(src: &str) -> bool {
    let b = src.as_bytes();
    memchr::memchr_iter(b'.', b).any(|i| {
        let rest = &b[i + 1..];
        // Most dots are in mnemonics (`add.vi`): one byte rules them out.
        if !matches!(
            rest.first(),
            Some(b'i' | b'I' | b'm' | b'M' | b'r' | b'R' | b'e' | b'E')
        ) {
            return false;
        }
        ["include", "macro", "rept", "endm", "endr"]
            .iter()
            .any(|w| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w.as_bytes()))
    })
}

/// One line being processed: its text and origin.
type Line = (String, Origin);

impl Expansion {
    pub(super) fn run(src: &str, file_name: &str) -> Expansion {
        let mut x = Expansion {
            text: String::with_capacity(src.len() + src.len() / 4),
            lines: Vec::new(),
            files: vec![SourceFile {
                name: file_name.into(),
                text: Rc::from(src),
                path: (file_name != "-" && !file_name.starts_with('<'))
                    .then(|| PathBuf::from(file_name)),
                starts: None,
            }],
            frames: Vec::new(),
            colmaps: Vec::new(),
            errors: Vec::new(),
            macros: HashMap::new(),
            consts: HashMap::new(),
            expansions: 0,
            stopped: false,
            steps: 0,
        };
        x.file_lines(0, NONE, 0);
        x
    }

    /// Process the lines of file `file`, expanded within `frame`.
    fn file_lines(&mut self, file: u32, frame: u32, depth: usize) {
        let text = Rc::clone(&self.files[file as usize].text);
        let mut lines = text.split('\n').enumerate().map(|(i, l)| {
            let l = if i == 0 {
                l.strip_prefix('\u{feff}').unwrap_or(l)
            } else {
                l
            };
            (
                l.to_string(),
                Origin {
                    file,
                    line: (i + 1) as u32,
                    frame,
                    cols: NONE,
                },
            )
        });
        // A final newline does not start another line.
        if text.ends_with('\n') {
            let n = text.split('\n').count() - 1;
            self.stream(&mut lines.by_ref().take(n), depth);
        } else {
            self.stream(&mut lines, depth);
        }
    }

    /// Process a stream of lines: collect macro and `.rept` bodies, expand, emit the rest.
    fn stream(&mut self, lines: &mut dyn Iterator<Item = Line>, depth: usize) {
        enum Collect {
            No,
            Macro {
                name: String,
                params: Vec<Param>,
                body: Vec<Line>,
                nest: usize,
                open: Origin,
                col: usize,
            },
            Rept {
                count: u64,
                body: Vec<Line>,
                nest: usize,
                open: Origin,
                col: usize,
            },
        }
        let mut collect = Collect::No;
        for (text, origin) in lines {
            if self.stopped {
                return;
            }
            let (word, ws, we) = first_word(&text);
            let lower = word.to_ascii_lowercase();
            match &mut collect {
                Collect::Macro { body, nest, .. } => {
                    if lower == ".macro" {
                        *nest += 1;
                    } else if lower == ".endm" {
                        if *nest == 0 {
                            let Collect::Macro {
                                name, params, body, ..
                            } = std::mem::replace(&mut collect, Collect::No)
                            else {
                                unreachable!()
                            };
                            self.macros
                                .insert(name.to_ascii_lowercase(), Rc::new(Macro { params, body }));
                            continue;
                        }
                        *nest -= 1;
                    }
                    body.push((text, origin));
                    continue;
                }
                Collect::Rept { body, nest, .. } => {
                    if lower == ".rept" {
                        *nest += 1;
                    } else if lower == ".endr" {
                        if *nest == 0 {
                            let Collect::Rept {
                                count,
                                body,
                                open,
                                col,
                                ..
                            } = std::mem::replace(&mut collect, Collect::No)
                            else {
                                unreachable!()
                            };
                            self.rept(count, &body, open, col, depth);
                            continue;
                        }
                        *nest -= 1;
                    }
                    body.push((text, origin));
                    continue;
                }
                Collect::No => {}
            }
            let code = strip_comment(&text);
            let os = skip_ws(code.as_bytes(), we);
            let operands = code[os.min(code.len())..].trim_end();
            match lower.as_str() {
                ".include" => self.include(origin, ws, os, operands, depth),
                ".macro" => {
                    if let Some((name, params)) = self.macro_header(origin, os, operands) {
                        collect = Collect::Macro {
                            name,
                            params,
                            body: Vec::new(),
                            nest: 0,
                            open: origin,
                            col: ws,
                        };
                    } else {
                        // Skip the body of a bad definition, so it is not assembled.
                        collect = Collect::Macro {
                            name: String::new(),
                            params: Vec::new(),
                            body: Vec::new(),
                            nest: 0,
                            open: origin,
                            col: ws,
                        };
                    }
                }
                ".rept" => {
                    let count = self.rept_count(&text, origin, os, code.len());
                    collect = Collect::Rept {
                        count: count.unwrap_or(0),
                        body: Vec::new(),
                        nest: 0,
                        open: origin,
                        col: ws,
                    };
                }
                ".endm" | ".endr" => {
                    let opener = if lower == ".endm" { ".macro" } else { ".rept" };
                    self.error(
                        origin,
                        ws..we,
                        format!("`{word}` without a `{opener}` before it"),
                    );
                }
                _ => {
                    if matches!(lower.as_str(), ".equ" | ".set" | ".equiv") {
                        self.note_const(code, os);
                    }
                    let mac = (!word.is_empty() && !lower.starts_with('.'))
                        .then(|| self.macros.get(&lower).cloned())
                        .flatten();
                    match mac {
                        Some(m) if !self.macros.is_empty() => {
                            self.expand_macro(&m, word, origin, ws, os, operands, depth)
                        }
                        _ => self.emit(text, origin),
                    }
                }
            }
        }
        match collect {
            Collect::No => {}
            Collect::Macro { open, col, .. } => {
                self.error(open, col..col + 6, "`.macro` without `.endm`".into())
            }
            Collect::Rept { open, col, .. } => {
                self.error(open, col..col + 5, "`.rept` without `.endr`".into())
            }
        }
    }

    fn emit(&mut self, text: String, origin: Origin) {
        if self.text.len() + text.len() + 1 > MAX_EXPANDED_BYTES
            || self.lines.len() >= MAX_EXPANDED_LINES
        {
            self.error(
                origin,
                0..0,
                format!(
                    "the expanded source exceeds {} MiB or {} lines (macros or `.rept` \
                     that multiply too much?)",
                    MAX_EXPANDED_BYTES >> 20,
                    MAX_EXPANDED_LINES
                ),
            );
            self.stopped = true;
            return;
        }
        self.lines.push((origin, self.text.len()));
        self.text.push_str(&text);
        self.text.push('\n');
    }

    /// A located error at byte range `range` of the line `origin` names (offsets in the
    /// expanded line, mapped back through its column map).
    fn error(&mut self, origin: Origin, range: std::ops::Range<usize>, message: String) {
        let e = self.locate(origin, range, ErrorKind::Syntax(message));
        self.errors.push((self.lines.len(), e));
        // Past the assembler's error cap nothing more would be shown: stop expanding, so a
        // macro that fans out into failing calls costs no more than that many errors.
        if self.errors.len() >= crate::error::MAX_ERRORS {
            self.stopped = true;
        }
    }

    /// Count one macro call or `.rept` iteration; false (with a located error, expansion
    /// stopped) past [`MAX_EXPANDED_LINES`] of them, so bodies that emit nothing are bounded.
    fn step(&mut self, origin: Origin, range: std::ops::Range<usize>) -> bool {
        self.steps += 1;
        if self.steps > MAX_EXPANDED_LINES {
            self.error(
                origin,
                range,
                format!(
                    "more than {MAX_EXPANDED_LINES} macro calls or `.rept` iterations \
                     (macros or `.rept` that multiply too much?)"
                ),
            );
            self.stopped = true;
            return false;
        }
        true
    }

    fn push_frame(&mut self, kind: FrameKind, site: Origin, col: usize) -> Option<u32> {
        let at = self.map_col(site.cols, col, false);
        let column = self.column_of(site.file, site.line, at);
        let i = u32::try_from(self.frames.len()).ok()?;
        self.frames.push(Frame {
            kind,
            file: site.file,
            line: site.line,
            column,
            parent: site.frame,
        });
        Some(i)
    }

    fn include(&mut self, origin: Origin, ws: usize, os: usize, operands: &str, depth: usize) {
        let Some(name) = operands
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .filter(|s| !s.is_empty() && !s.contains('"'))
        else {
            self.error(
                origin,
                os..os + operands.len().max(1),
                "`.include` needs a file name in double quotes".into(),
            );
            return;
        };
        let span = os..os + operands.len();
        let includes = self.include_chain(origin.frame);
        if includes >= MAX_INCLUDE_DEPTH || depth >= MAX_EXPANSION_DEPTH {
            self.error(
                origin,
                span,
                format!("`.include` nested more than {MAX_INCLUDE_DEPTH} files deep"),
            );
            return;
        }
        let base = self.files[origin.file as usize]
            .path
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let path = base.join(name);
        let shown = path.display().to_string();
        let canonical = std::fs::canonicalize(&path).ok();
        // A cycle: the file is one of those this line is included from.
        let mut f = Some(origin.file);
        let mut frame = origin.frame;
        let mut chain = Vec::new();
        while let Some(file) = f {
            let sf = &self.files[file as usize];
            chain.push(sf.name.clone());
            let same = match (&canonical, &sf.path) {
                (Some(c), Some(p)) => std::fs::canonicalize(p).ok().as_ref() == Some(c),
                _ => false,
            };
            if same {
                chain.reverse();
                chain.push(shown.clone());
                self.error(
                    origin,
                    span,
                    format!("`.include` cycle: {}", chain.join(" includes ")),
                );
                return;
            }
            f = None;
            while frame != NONE {
                let fr = &self.frames[frame as usize];
                frame = fr.parent;
                if matches!(fr.kind, FrameKind::Include) {
                    f = Some(fr.file);
                    break;
                }
            }
        }
        let text = match read_source(&path) {
            Ok(t) => t,
            Err(why) => {
                self.error(origin, span, format!("cannot include `{shown}`: {why}"));
                return;
            }
        };
        let Ok(file) = u32::try_from(self.files.len()) else {
            return;
        };
        self.files.push(SourceFile {
            name: shown,
            text: Rc::from(text),
            path: Some(path),
            starts: None,
        });
        if let Some(frame) = self.push_frame(FrameKind::Include, origin, ws) {
            self.file_lines(file, frame, depth + 1);
        }
    }

    /// How many includes the frame chain is inside.
    fn include_chain(&self, mut frame: u32) -> usize {
        let mut n = 0;
        while frame != NONE {
            let f = &self.frames[frame as usize];
            n += usize::from(matches!(f.kind, FrameKind::Include));
            frame = f.parent;
        }
        n
    }

    /// `.macro name [param[=default][:req|:vararg]][, …]`.
    fn macro_header(
        &mut self,
        origin: Origin,
        os: usize,
        operands: &str,
    ) -> Option<(String, Vec<Param>)> {
        let b = operands.as_bytes();
        if b.is_empty() || !is_ident_start(b[0]) {
            self.error(
                origin,
                os..os + operands.len().max(1),
                "`.macro` needs a name".into(),
            );
            return None;
        }
        let ne = ident_end(b, 0);
        let name = &operands[..ne];
        if name.starts_with('.') || crate::lex::lookup_mnemonic(name).is_some() {
            self.error(
                origin,
                os..os + ne,
                format!("`{name}` cannot name a macro: it is a directive or a mnemonic"),
            );
            return None;
        }
        if self.macros.contains_key(&name.to_ascii_lowercase()) {
            self.error(
                origin,
                os..os + ne,
                format!("macro `{name}` is already defined"),
            );
            return None;
        }
        let mut params: Vec<Param> = Vec::new();
        let rest = operands[ne..].trim_start_matches(',');
        let rest_at = os + ne + (operands.len() - ne - rest.len());
        for part in split_params(rest) {
            let at = rest_at + (part.as_ptr() as usize - rest.as_ptr() as usize);
            let p = part.trim();
            if p.is_empty() {
                continue;
            }
            let (head, default) = match p.split_once('=') {
                Some((h, d)) => (h.trim(), Some(d.trim().to_string())),
                None => (p, None),
            };
            let (pname, qual) = match head.split_once(':') {
                Some((n, q)) => (n.trim(), Some(q.trim())),
                None => (head, None),
            };
            let pb = pname.as_bytes();
            let valid = !pb.is_empty()
                && is_ident_start(pb[0])
                && pb[0] != b'.'
                && ident_end(pb, 0) == pb.len();
            if !valid || matches!(qual, Some(q) if q != "req" && q != "vararg") {
                self.error(
                    origin,
                    at..at + part.len().max(1),
                    format!(
                        "bad macro parameter `{p}`: expected `name`, `name=default`, \
                         `name:req` or `name:vararg`"
                    ),
                );
                return None;
            }
            if params.iter().any(|q| q.name == pname) {
                self.error(
                    origin,
                    at..at + part.len(),
                    format!("macro parameter `{pname}` given twice"),
                );
                return None;
            }
            if params.last().is_some_and(|q| q.vararg) {
                self.error(
                    origin,
                    at..at + part.len(),
                    "only the last macro parameter can be `:vararg`".into(),
                );
                return None;
            }
            params.push(Param {
                name: pname.into(),
                default,
                required: qual == Some("req"),
                vararg: qual == Some("vararg"),
            });
        }
        Some((name.into(), params))
    }

    #[allow(clippy::too_many_arguments)]
    fn expand_macro(
        &mut self,
        mac: &Macro,
        name: &str,
        origin: Origin,
        ws: usize,
        os: usize,
        operands: &str,
        depth: usize,
    ) {
        if depth >= MAX_EXPANSION_DEPTH {
            self.error(
                origin,
                ws..ws + name.len(),
                format!(
                    "macro expansion nested more than {MAX_EXPANSION_DEPTH} deep \
                     (does `{name}` expand itself?)"
                ),
            );
            return;
        }
        if self.stopped || !self.step(origin, ws..ws + name.len()) {
            return;
        }
        // Arguments: positional, or `param=value`.
        let mut values: Vec<Option<String>> = vec![None; mac.params.len()];
        let args = split_args(operands);
        let mut next = 0usize;
        for arg in &args {
            let at = os + (arg.as_ptr() as usize - operands.as_ptr() as usize);
            let a = arg.trim();
            if let Some(i) = next_is_vararg(&mac.params, next) {
                // The rest of the line, commas included.
                let start = at + (arg.len() - arg.trim_start().len());
                let rest = operands[start - os..].trim_end();
                values[i] = Some(rest.to_string());
                break;
            }
            let keyed = a.split_once('=').and_then(|(k, v)| {
                mac.params
                    .iter()
                    .position(|p| p.name == k.trim())
                    .map(|i| (i, v.trim()))
            });
            if let Some((i, v)) = keyed {
                values[i] = Some(v.to_string());
                continue;
            }
            if next >= mac.params.len() {
                let lead = arg.len() - arg.trim_start().len();
                self.error(
                    origin,
                    at + lead..at + lead + a.len().max(1),
                    format!(
                        "macro `{name}` takes {} argument{}, more given",
                        mac.params.len(),
                        if mac.params.len() == 1 { "" } else { "s" }
                    ),
                );
                return;
            }
            if !a.is_empty() {
                values[next] = Some(a.to_string());
            }
            next += 1;
        }
        let mut bound = Vec::with_capacity(mac.params.len());
        for (p, v) in mac.params.iter().zip(values) {
            match v.or_else(|| p.default.clone()) {
                Some(v) => bound.push((p.name.as_str(), v)),
                None if p.required => {
                    self.error(
                        origin,
                        ws..ws + name.len(),
                        format!("macro `{name}` needs a value for `{}`", p.name),
                    );
                    return;
                }
                None => bound.push((p.name.as_str(), String::new())),
            }
        }
        let Some(frame) = self.push_frame(FrameKind::Macro(name.into()), origin, ws) else {
            return;
        };
        let counter = self.expansions;
        self.expansions += 1;
        let mut out = Vec::with_capacity(mac.body.len());
        for (line, o) in &mac.body {
            let (t, cols) = self.substitute(line, &bound, counter, o.cols);
            out.push((
                t,
                Origin {
                    file: o.file,
                    line: o.line,
                    frame,
                    cols,
                },
            ));
        }
        self.stream(&mut out.into_iter(), depth + 1);
    }

    /// Replace `\param`, `\@` (this expansion's number) and `\()` (nothing) in `line`.
    fn substitute(
        &mut self,
        line: &str,
        bound: &[(&str, String)],
        counter: u64,
        cols: u32,
    ) -> (String, u32) {
        if !line.contains('\\') {
            return (line.to_string(), cols);
        }
        let b = line.as_bytes();
        let mut out = String::with_capacity(line.len() + 16);
        let mut segs = Vec::new();
        let mut verbatim_from = 0usize;
        let mut i = 0usize;
        let mut changed = false;
        while i < b.len() {
            if b[i] != b'\\' {
                i += 1;
                continue;
            }
            let (replacement, len): (std::borrow::Cow<str>, usize) = if b.get(i + 1) == Some(&b'@')
            {
                (counter.to_string().into(), 2)
            } else if b[i + 1..].starts_with(b"()") {
                ("".into(), 3)
            } else if b
                .get(i + 1)
                .is_some_and(|&c| is_ident_start(c) && c != b'.')
            {
                let e = ident_end_no_dot(b, i + 1);
                match bound.iter().find(|(n, _)| *n == &line[i + 1..e]) {
                    Some((_, v)) => (v.as_str().into(), e - i),
                    None => {
                        i += 1;
                        continue;
                    }
                }
            } else {
                i += 1;
                continue;
            };
            changed = true;
            segs.push((out.len() as u32, verbatim_from as u32, 0));
            out.push_str(&line[verbatim_from..i]);
            segs.push((out.len() as u32, i as u32, len as u32));
            out.push_str(&replacement);
            i += len;
            verbatim_from = i;
        }
        if !changed {
            return (line.to_string(), cols);
        }
        segs.push((out.len() as u32, verbatim_from as u32, 0));
        out.push_str(&line[verbatim_from..]);
        let Ok(index) = u32::try_from(self.colmaps.len()) else {
            return (out, cols);
        };
        self.colmaps.push(ColMap { segs, then: cols });
        (out, index)
    }

    fn rept_count(&mut self, text: &str, origin: Origin, os: usize, end: usize) -> Option<u64> {
        let r = Consts(&self.consts);
        match eval(text, os.min(end), end, &r) {
            Ok(v) if (0..=i128::from(u32::MAX)).contains(&v.v) => Some(v.v as u64),
            Ok(v) => {
                self.error(
                    origin,
                    os..end,
                    format!("`.rept` count {} is not in 0..{}", v.v, u32::MAX),
                );
                None
            }
            Err(e) => {
                let msg = if e.pending || matches!(*e.kind, ErrorKind::UndefinedSymbol { .. }) {
                    "the `.rept` count must be a constant known at this point (numbers, and \
                     `.equ`/`.set` constants defined above)"
                        .to_string()
                } else {
                    e.kind.to_string()
                };
                self.error(origin, e.start..e.end, msg);
                None
            }
        }
    }

    fn rept(&mut self, count: u64, body: &[Line], open: Origin, col: usize, depth: usize) {
        if count == 0 || body.is_empty() {
            return;
        }
        if depth >= MAX_EXPANSION_DEPTH {
            self.error(
                open,
                col..col + 5,
                format!("`.rept` nested more than {MAX_EXPANSION_DEPTH} deep"),
            );
            return;
        }
        let Some(frame) = self.push_frame(FrameKind::Rept, open, col) else {
            return;
        };
        for _ in 0..count {
            if self.stopped || !self.step(open, col..col + 5) {
                return;
            }
            let mut lines = body
                .iter()
                .map(|(t, o)| (t.clone(), Origin { frame, ..*o }));
            self.stream(&mut lines, depth + 1);
        }
    }

    /// Remember `.equ name, value` when the value is a constant already known.
    fn note_const(&mut self, code: &str, os: usize) {
        let Some(comma) = code[os.min(code.len())..].find(',').map(|i| os + i) else {
            return;
        };
        let name = code[os..comma].trim();
        let r = Consts(&self.consts);
        if let Ok(v) = eval(code, comma + 1, code.len(), &r) {
            if v.sec.is_none() {
                self.consts.insert(name.to_string(), v.v);
                return;
            }
        }
        self.consts.remove(name);
    }

    // ------------------------------------------------------------ locating

    /// Offset `at` of an expanded line in the text it was written as; an offset inside a
    /// substituted value maps to the start of its `\name`. With `end`, `at` is the last
    /// byte of a range and the result the exclusive end of its image (the whole `\name`).
    fn map_col(&self, mut cols: u32, mut at: usize, end: bool) -> usize {
        let mut exclusive = at + 1;
        while cols != NONE {
            let m = &self.colmaps[cols as usize];
            let k = m.segs.partition_point(|s| s.0 as usize <= at);
            if k > 0 {
                let (out, src, len) = m.segs[k - 1];
                if len == 0 {
                    at = src as usize + (at - out as usize);
                    exclusive = at + 1;
                } else {
                    at = src as usize;
                    exclusive = (src + len) as usize;
                    if end {
                        at = exclusive - 1;
                    }
                }
            }
            cols = m.then;
        }
        if end {
            exclusive
        } else {
            at
        }
    }

    fn line_text(&mut self, file: u32, line: u32) -> (usize, &str) {
        let f = &mut self.files[file as usize];
        let text = &f.text;
        let starts = f.starts.get_or_insert_with(|| {
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
                .collect()
        });
        let i = (line as usize).saturating_sub(1);
        let start = starts.get(i).copied().unwrap_or(text.len());
        let end = starts.get(i + 1).map_or(text.len(), |e| e - 1);
        let t = &text[start..end.max(start)];
        (start, t.trim_end_matches('\r'))
    }

    fn column_of(&mut self, file: u32, line: u32, at: usize) -> usize {
        let (_, t) = self.line_text(file, line);
        let mut at = at.min(t.len());
        while !t.is_char_boundary(at) {
            at -= 1;
        }
        t[..at].chars().count() + 1
    }

    /// An error at `range` (offsets in the expanded line of `origin`), located in the
    /// text the user wrote.
    pub(super) fn locate(
        &mut self,
        origin: Origin,
        range: std::ops::Range<usize>,
        kind: ErrorKind,
    ) -> AsmError {
        let start = self.map_col(origin.cols, range.start, false);
        let end = if origin.cols == NONE {
            start + range.len()
        } else if range.end > range.start {
            self.map_col(origin.cols, range.end - 1, true)
                .max(start + 1)
        } else {
            start
        };
        let column = self.column_of(origin.file, origin.line, start);
        let name = self.files[origin.file as usize].name.clone();
        let (line_start, text) = self.line_text(origin.file, origin.line);
        let text = text.to_string();
        let quote = (origin.file != 0).then_some((text, start..end));
        AsmError {
            file: name,
            line: origin.line as usize,
            column,
            span: line_start + start..line_start + end,
            kind,
            quote,
            notes: self.notes(origin.frame),
        }
    }

    fn notes(&self, mut frame: u32) -> Vec<String> {
        let mut notes: Vec<String> = Vec::new();
        let mut repeats = 0usize;
        let flush = |notes: &mut Vec<String>, repeats: &mut usize| {
            if *repeats > 0 {
                if let Some(last) = notes.last_mut() {
                    last.push_str(&format!(" ({} times)", *repeats + 1));
                }
                *repeats = 0;
            }
        };
        while frame != NONE && notes.len() < 16 {
            let f = &self.frames[frame as usize];
            let at = format!(
                "{}:{}:{}",
                self.files[f.file as usize].name, f.line, f.column
            );
            let note = match &f.kind {
                FrameKind::Include => format!("included from {at}"),
                FrameKind::Macro(m) => format!("in expansion of macro `{m}` at {at}"),
                FrameKind::Rept => format!("in `.rept` at {at}"),
            };
            frame = f.parent;
            // A recursive macro: one note with a count rather than 64 identical ones.
            if notes.last().is_some_and(|l| *l == note) {
                repeats += 1;
                continue;
            }
            flush(&mut notes, &mut repeats);
            notes.push(note);
        }
        flush(&mut notes, &mut repeats);
        if frame != NONE {
            notes.push("... (more expansions)".into());
        }
        notes
    }
}

/// Read an included file: a regular file (never a FIFO or device that could block or never
/// end), within the source size limit, valid UTF-8.
fn read_source(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(crate::MAX_SOURCE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() > crate::MAX_SOURCE_BYTES {
        return Err(format!("larger than {} MiB", crate::MAX_SOURCE_BYTES >> 20));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "invalid UTF-8 at byte offset {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The first word of a line after any labels (`name:`), with its byte range.
fn first_word(text: &str) -> (&str, usize, usize) {
    let code = strip_comment(text);
    let b = code.as_bytes();
    let mut pos = skip_ws(b, 0);
    loop {
        if pos >= b.len() || !(is_ident_start(b[pos]) || b[pos].is_ascii_digit()) {
            return ("", pos, pos);
        }
        let e = ident_end(b, pos);
        let after = skip_ws(b, e);
        if b.get(after) == Some(&b':') {
            pos = skip_ws(b, after + 1);
            continue;
        }
        return (&code[pos..e], pos, e);
    }
}

/// An identifier for `\name`: stops at `.` so that `\size.w` substitutes `size`.
fn ident_end_no_dot(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ident_char(b[i]) && b[i] != b'.' {
        i += 1;
    }
    i
}

/// Macro parameters: separated by commas or blanks (`a, b=1` or `a b=1`).
fn split_params(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for part in s.split(',') {
        // `a b=1`: blank-separated, unless the blank is around a `=`.
        let mut start = 0;
        let b = part.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if matches!(b[i], b' ' | b'\t') {
                let prev = part[..i].trim_end();
                let next = part[i..].trim_start();
                if !prev.is_empty()
                    && !next.is_empty()
                    && !prev.ends_with('=')
                    && !next.starts_with('=')
                    && !part[start..i].trim().is_empty()
                {
                    out.push(&part[start..i]);
                    start = i;
                }
            }
            i += 1;
        }
        out.push(&part[start..]);
    }
    out
}

/// Macro arguments: split at commas outside quotes and brackets.
fn split_args(s: &str) -> Vec<&str> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let b = s.as_bytes();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0usize);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if quoted => i += 1,
            b'"' => quoted = !quoted,
            b'(' | b'[' if !quoted => depth += 1,
            b')' | b']' if !quoted => depth -= 1,
            b',' if !quoted && depth <= 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

fn next_is_vararg(params: &[Param], next: usize) -> Option<usize> {
    params.get(next).filter(|p| p.vararg).map(|_| next)
}

/// `.rept` counts may use constants defined above.
struct Consts<'a>(&'a HashMap<String, i128>);

impl Resolve for Consts<'_> {
    fn symbol(&self, name: &str) -> Lookup {
        match self.0.get(name) {
            Some(&v) => Lookup::Found(Val::abs(v)),
            None => Lookup::Undefined,
        }
    }

    fn here(&self) -> Val {
        Val::abs(0)
    }
}

impl Expansion {
    /// The file (index into [`Expansion::files`]) and line an expanded line is attributed
    /// to in the line table (docs/assembly.md, "Source lines"): a line of a macro body goes
    /// to the line that called the macro (the outermost call when macros call macros);
    /// lines of included files and of `.rept` blocks are their own.
    pub(super) fn line_site(&self, origin: Origin) -> (u32, u32) {
        let mut site = (origin.file, origin.line);
        let mut frame = origin.frame;
        while frame != NONE {
            let f = &self.frames[frame as usize];
            if matches!(f.kind, FrameKind::Macro(_)) {
                site = (f.file, f.line);
            }
            frame = f.parent;
        }
        site
    }

    /// The line of the assembled file a listing row shows for an expanded line: the line
    /// itself when it is a line of that file, else the `.include` line or macro call it
    /// came from. Returns the line number and its byte range in the file.
    pub(super) fn listing_site(&mut self, mut origin: Origin) -> (usize, std::ops::Range<usize>) {
        loop {
            let inside_macro = origin.frame != NONE
                && matches!(self.frames[origin.frame as usize].kind, FrameKind::Macro(_));
            if (origin.file == 0 && origin.cols == NONE && !inside_macro) || origin.frame == NONE {
                break;
            }
            let f = &self.frames[origin.frame as usize];
            origin = Origin {
                file: f.file,
                line: f.line,
                frame: f.parent,
                cols: NONE,
            };
        }
        let (start, text) = self.line_text(origin.file, origin.line);
        (origin.line as usize, start..start + text.len())
    }
}
