//! The file layer: reading files' tokens and carrying out directives (C99 §6.10):
//! conditional inclusion, `#define`/`#undef`, `#line`, `#error`, `#warning`, `#pragma`.
//! (`#include` is in `include.rs`.)

use super::macros::{check_macro_name, parse_define, Macro, MacroKind};
use super::{expr, prelude, Cond, PpKind, PpToken, Preprocessor};
use crate::diag::Diagnostic;
use crate::source::{FileId, Span};
use crate::token::Punct;
use std::rc::Rc;

impl Preprocessor<'_> {
    /// The next token of the live groups of the files, directives carried out. At the end of
    /// an included file it is [`PpKind::FileEnd`] (so macro invocations do not run across
    /// files); at the end of the main file [`PpKind::Eof`].
    pub(super) fn file_token(&mut self) -> PpToken {
        loop {
            if self.fatal {
                return self.eof_token();
            }
            let Some(frame) = self.frames.last_mut() else {
                return self.eof_token();
            };
            if frame.ended {
                if self.frames.len() == 1 {
                    return self.eof_token();
                }
                self.frames.pop();
                continue;
            }
            let tok = frame.lexer.next_token(true, self.diags);
            match tok.kind {
                PpKind::FileEnd => {
                    let frame = self.frames.last_mut().expect("the frame just read");
                    frame.ended = true;
                    for cond in std::mem::take(&mut frame.conds) {
                        self.diags.push(Diagnostic::error(
                            cond.span,
                            "unterminated conditional directive",
                        ));
                    }
                    if self.frames.len() == 1 {
                        return self.eof_token();
                    }
                    return tok;
                }
                PpKind::Punct(Punct::Hash) if tok.line_start => self.directive(),
                _ => return tok,
            }
        }
    }

    fn lex(&mut self, report: bool) -> PpToken {
        let frame = self.frames.last_mut().expect("a file is open");
        frame.lexer.next_token(report, self.diags)
    }

    pub(super) fn at_line_end(&mut self) -> bool {
        let frame = self.frames.last_mut().expect("a file is open");
        frame.lexer.at_line_end(self.diags)
    }

    /// The rest of the current line's tokens.
    pub(super) fn read_line(&mut self, report: bool) -> Vec<PpToken> {
        let mut out = Vec::new();
        while !self.at_line_end() {
            out.push(self.lex(report));
        }
        out
    }

    fn skip_line(&mut self) {
        while !self.at_line_end() {
            let frame = self.frames.last_mut().expect("a file is open");
            frame.lexer.skip_token(self.diags);
        }
    }

    /// A warning if the line has more tokens (then skipped).
    pub(super) fn extra_tokens(&mut self, directive: &str) {
        if self.at_line_end() {
            return;
        }
        let t = self.lex(true);
        self.diags.push(Diagnostic::warning(
            t.span,
            format!("extra tokens at end of #{directive} directive"),
        ));
        self.skip_line();
    }

    fn current_file(&self) -> FileId {
        self.frames.last().map_or(self.main, |f| f.file)
    }

    /// After `#` at the start of a line.
    fn directive(&mut self) {
        if self.at_line_end() {
            return; // The null directive.
        }
        let name = self.lex(true);
        match (name.kind, &*name.text) {
            (PpKind::Number, _) => {
                // A line marker `# 33 "file" flags`, as a C preprocessor writes them.
                let mut toks = vec![name.clone()];
                toks.extend(self.read_line(true));
                let end = toks.last().map_or(name.span, |t| t.span);
                self.set_line(&name, toks, end, true);
            }
            (PpKind::Ident, "define") => {
                let toks = self.read_line(true);
                let predefined = self.frames.last().is_some_and(|f| f.predefines);
                if let Some(m) = parse_define(toks, name.span, predefined, self.diags) {
                    self.define(m);
                }
            }
            (PpKind::Ident, "undef") => self.undef(&name),
            (PpKind::Ident, "include") => self.include(&name),
            (PpKind::Ident, "if") => {
                let toks = self.read_line(true);
                let value = self.condition(&name, toks);
                self.open_conditional(name.span, value);
            }
            (PpKind::Ident, "ifdef" | "ifndef") => {
                let toks = self.read_line(true);
                let value = match toks.first() {
                    None => {
                        self.diags
                            .push(Diagnostic::error(name.span, "macro name missing"));
                        false
                    }
                    Some(t) if t.kind != PpKind::Ident => {
                        self.diags.push(Diagnostic::error(
                            t.span,
                            "macro name must be an identifier",
                        ));
                        false
                    }
                    Some(t) => {
                        if let Some(extra) = toks.get(1) {
                            self.diags.push(Diagnostic::warning(
                                extra.span,
                                format!("extra tokens at end of #{} directive", name.text),
                            ));
                        }
                        self.macros.contains_key(&t.text) == (&*name.text == "ifdef")
                    }
                };
                self.open_conditional(name.span, value);
            }
            (PpKind::Ident, "elif") => {
                let Some(cond) = self.frames.last_mut().and_then(|f| f.conds.last_mut()) else {
                    self.diags
                        .push(Diagnostic::error(name.span, "#elif without #if"));
                    self.skip_line();
                    return;
                };
                let after_else = cond.else_seen;
                if after_else {
                    self.diags
                        .push(Diagnostic::error(name.span, "#elif after #else"));
                }
                // The group before was taken: this one is skipped unevaluated.
                self.skip_line();
                self.skip_group();
            }
            (PpKind::Ident, "else") => {
                let Some(cond) = self.frames.last_mut().and_then(|f| f.conds.last_mut()) else {
                    self.diags
                        .push(Diagnostic::error(name.span, "#else without #if"));
                    self.skip_line();
                    return;
                };
                let after_else = std::mem::replace(&mut cond.else_seen, true);
                if after_else {
                    self.diags
                        .push(Diagnostic::error(name.span, "#else after #else"));
                }
                self.extra_tokens("else");
                self.skip_group();
            }
            (PpKind::Ident, "endif") => {
                if self.frames.last_mut().and_then(|f| f.conds.pop()).is_none() {
                    self.diags
                        .push(Diagnostic::error(name.span, "#endif without #if"));
                    self.skip_line();
                    return;
                }
                self.extra_tokens("endif");
            }
            (PpKind::Ident, "line") => {
                let toks = self.read_line(true);
                let end = toks.last().map_or(name.span, |t| t.span);
                let toks = self.expand_isolated(toks);
                self.set_line(&name, toks, end, false);
            }
            (PpKind::Ident, "error" | "warning") => {
                let text = {
                    let frame = self.frames.last_mut().expect("a file is open");
                    frame.lexer.rest_of_line(self.diags)
                };
                let message = if text.is_empty() {
                    format!("#{}", name.text)
                } else {
                    text
                };
                self.diags.push(if &*name.text == "error" {
                    Diagnostic::error(name.span, message)
                } else {
                    Diagnostic::warning(name.span, message)
                });
            }
            (PpKind::Ident, "pragma") => {
                let toks = self.read_line(true);
                self.pragma(&toks);
            }
            _ => {
                self.diags.push(Diagnostic::error(
                    name.span,
                    "invalid preprocessing directive",
                ));
                self.skip_line();
            }
        }
    }

    /// `#line N ["name"]` (§6.10.4): the line after the directive (which ends at `end`) is
    /// presumed to be line `N`.
    fn set_line(&mut self, name: &PpToken, toks: Vec<PpToken>, end: Span, marker: bool) {
        let Some(num) = toks.first() else {
            self.diags.push(Diagnostic::error(
                name.span,
                "#line directive requires a positive integer argument",
            ));
            return;
        };
        if num.kind != PpKind::Number || !num.text.bytes().all(|b| b.is_ascii_digit()) {
            self.diags.push(
                Diagnostic::error(num.span, "#line directive requires a simple digit sequence")
                    .in_expansion(num.expansion),
            );
            return;
        }
        let value = match num.text.parse::<u32>() {
            Ok(v) if v <= i32::MAX as u32 => v,
            _ => {
                self.diags.push(
                    Diagnostic::error(num.span, "line number out of range in #line directive")
                        .in_expansion(num.expansion),
                );
                return;
            }
        };
        let mut presumed_name = None;
        if let Some(t) = toks.get(1) {
            if t.kind != PpKind::Str || !t.text.starts_with('"') {
                self.diags.push(
                    Diagnostic::error(t.span, "invalid filename for #line directive")
                        .in_expansion(t.expansion),
                );
                return;
            }
            let inner = &t.text[1..t.text.len() - 1];
            presumed_name = Some(Rc::from(unescape_simple(inner).as_str()));
            let extra = toks[2..]
                .iter()
                .find(|t| !marker || t.kind != PpKind::Number);
            if let Some(extra) = extra {
                self.diags.push(Diagnostic::warning(
                    extra.span,
                    "extra tokens at end of #line directive",
                ));
            }
        }
        let file = self.current_file();
        let end = if end.file == file {
            end.hi
        } else {
            name.span.hi
        };
        let (end_line, _) = self.sources.file(file).line_col(end);
        let frame = self.frames.last_mut().expect("a file is open");
        frame.line_base = Some((end_line + 1, value));
        if presumed_name.is_some() {
            frame.presumed_name = presumed_name;
        }
    }

    /// The presumed line (after `#line`) of the start of `span`.
    pub(super) fn presumed_line(&self, span: Span) -> u32 {
        if span.is_dummy() {
            return 0;
        }
        let (line, _) = self.sources.file(span.file).line_col(span.lo);
        let base = self
            .frames
            .iter()
            .rev()
            .find(|f| f.file == span.file)
            .and_then(|f| f.line_base);
        match base {
            Some((real, presumed)) if line >= real => presumed.saturating_add(line - real),
            _ => line,
        }
    }

    /// The presumed name (after `#line`) of the file of `span`.
    pub(super) fn presumed_name(&self, span: Span) -> String {
        let file = if span.is_dummy() {
            self.current_file()
        } else {
            span.file
        };
        let frame = self.frames.iter().rev().find(|f| f.file == file);
        match frame.and_then(|f| f.presumed_name.as_ref()) {
            Some(name) => name.to_string(),
            None => self.sources.file(file).name.clone(),
        }
    }

    fn define(&mut self, m: Macro) {
        if let Some(old) = self.macros.get(&m.name) {
            if matches!(old.kind, MacroKind::Line | MacroKind::File) {
                self.diags
                    .push(Diagnostic::warning(m.name_span, "redefining builtin macro"));
            } else if !old.same_as(&m) {
                self.diags.push(
                    Diagnostic::warning(m.name_span, format!("'{}' macro redefined", m.name))
                        .with_note("previous definition is here", Some(old.name_span)),
                );
            }
        }
        self.macros.insert(m.name.clone(), Rc::new(m));
    }

    fn undef(&mut self, directive: &PpToken) {
        let toks = self.read_line(true);
        let Some(name) = toks.first() else {
            self.diags
                .push(Diagnostic::error(directive.span, "macro name missing"));
            return;
        };
        if !check_macro_name(name, "undef", self.diags) {
            return;
        }
        if let Some(extra) = toks.get(1) {
            self.diags.push(Diagnostic::warning(
                extra.span,
                "extra tokens at end of #undef directive",
            ));
        }
        if let Some(old) = self.macros.remove(&name.text) {
            if matches!(old.kind, MacroKind::Line | MacroKind::File) {
                self.diags
                    .push(Diagnostic::warning(name.span, "undefining builtin macro"));
            }
        }
    }

    /// `__LINE__` and `__FILE__`, which no `#define` can spell.
    pub(super) fn define_builtins(&mut self) {
        for (name, kind) in [("__LINE__", MacroKind::Line), ("__FILE__", MacroKind::File)] {
            let name: Rc<str> = Rc::from(name);
            self.macros.insert(
                name.clone(),
                Rc::new(Macro {
                    name,
                    kind,
                    body: Vec::new(),
                    tokens: Vec::new(),
                    name_span: Span::DUMMY,
                    predefined: true,
                }),
            );
        }
    }

    /// The value of a `#if`/`#elif` line (false after an error).
    fn condition(&mut self, directive: &PpToken, toks: Vec<PpToken>) -> bool {
        if toks.is_empty() {
            self.diags.push(Diagnostic::error(
                directive.span,
                format!("#{} with no expression", directive.text),
            ));
            return false;
        }
        let saved = std::mem::replace(&mut self.in_if, true);
        let toks = self.expand_isolated(toks);
        self.in_if = saved;
        if self.fatal {
            return false;
        }
        expr::evaluate(&toks, directive.span, self.diags)
    }

    fn open_conditional(&mut self, span: Span, taken: bool) {
        let frame = self.frames.last_mut().expect("a file is open");
        frame.conds.push(Cond {
            span,
            taken,
            else_seen: false,
        });
        if !taken {
            self.skip_group();
        }
    }

    /// Skip lines up to the `#elif` that is true, the `#else` or the `#endif` of the
    /// innermost conditional (§6.10.1p6: only the directives' names are looked at; nested
    /// conditionals are skipped whole).
    fn skip_group(&mut self) {
        let mut depth = 0u32;
        loop {
            if self.fatal {
                return;
            }
            let tok = {
                let frame = self.frames.last_mut().expect("a file is open");
                frame.lexer.skip_token(self.diags)
            };
            match tok.kind {
                // The file layer sees the end and reports the open conditionals.
                PpKind::FileEnd => return,
                PpKind::Punct(Punct::Hash) if tok.line_start => {}
                _ => {
                    self.skip_line();
                    continue;
                }
            }
            if self.at_line_end() {
                continue;
            }
            let name = self.lex(false);
            if name.kind != PpKind::Ident {
                self.skip_line();
                continue;
            }
            match &*name.text {
                "if" | "ifdef" | "ifndef" => {
                    depth += 1;
                    self.skip_line();
                }
                "endif" if depth > 0 => {
                    depth -= 1;
                    self.skip_line();
                }
                "endif" => {
                    if let Some(f) = self.frames.last_mut() {
                        f.conds.pop();
                    }
                    self.extra_tokens("endif");
                    return;
                }
                "else" if depth == 0 => {
                    let Some(cond) = self.frames.last_mut().and_then(|f| f.conds.last_mut()) else {
                        return;
                    };
                    let after_else = std::mem::replace(&mut cond.else_seen, true);
                    let take = !cond.taken;
                    cond.taken = true;
                    if after_else {
                        self.diags
                            .push(Diagnostic::error(name.span, "#else after #else"));
                    }
                    if take {
                        self.extra_tokens("else");
                        return;
                    }
                    self.skip_line();
                }
                "elif" if depth == 0 => {
                    let Some(cond) = self.frames.last().and_then(|f| f.conds.last()) else {
                        return;
                    };
                    let (after_else, taken) = (cond.else_seen, cond.taken);
                    if after_else {
                        self.diags
                            .push(Diagnostic::error(name.span, "#elif after #else"));
                        self.skip_line();
                        continue;
                    }
                    if taken {
                        self.skip_line();
                        continue;
                    }
                    let toks = self.read_line(true);
                    if self.condition(&name, toks) {
                        if let Some(cond) = self.frames.last_mut().and_then(|f| f.conds.last_mut())
                        {
                            cond.taken = true;
                        }
                        return;
                    }
                }
                _ => self.skip_line(),
            }
        }
    }

    /// A `#pragma`'s tokens (also from `_Pragma`).
    pub(super) fn pragma(&mut self, toks: &[PpToken]) {
        let Some(first) = toks.first() else {
            return;
        };
        match &*first.text {
            "once" => {
                let file = self.current_file();
                self.pragma_once.insert(file);
                if let Some(extra) = toks.get(1) {
                    self.diags.push(
                        Diagnostic::warning(extra.span, "extra tokens at end of #pragma once")
                            .in_expansion(extra.expansion),
                    );
                }
            }
            "OPENCL" => self.opencl_pragma(toks),
            // Unknown pragmas are ignored (§6.10.6p1), `#pragma unroll` among them.
            _ => {}
        }
    }

    /// `#pragma OPENCL EXTENSION name : enable|disable` and `#pragma OPENCL FP_CONTRACT
    /// ON|OFF|DEFAULT` (OpenCL C 1.2 §9.1, §6.10): checked, then ignored (the supported
    /// extensions are always on, and contraction follows the compiler options).
    fn opencl_pragma(&mut self, toks: &[PpToken]) {
        let text = |i: usize| toks.get(i).map(|t| &*t.text);
        let warn = |pp: &mut Self, i: usize, message: &str| {
            let t = toks.get(i).or(toks.last()).expect("a pragma token");
            let span = if toks.get(i).is_some() {
                t.span
            } else {
                Span::new(t.span.file, t.span.hi, t.span.hi)
            };
            pp.diags
                .push(Diagnostic::warning(span, message).in_expansion(t.expansion));
        };
        match text(1) {
            Some("EXTENSION") => {
                let Some(name) = toks.get(2).filter(|t| t.kind == PpKind::Ident) else {
                    warn(
                        self,
                        2,
                        "expected an extension name in '#pragma OPENCL EXTENSION' - ignoring",
                    );
                    return;
                };
                if text(3) != Some(":") {
                    warn(
                        self,
                        3,
                        "expected ':' in '#pragma OPENCL EXTENSION' - ignoring",
                    );
                    return;
                }
                if !matches!(text(4), Some("enable" | "disable")) {
                    warn(self, 4, "expected 'enable' or 'disable' - ignoring");
                    return;
                }
                if toks.len() > 5 {
                    warn(
                        self,
                        5,
                        "extra tokens at end of '#pragma OPENCL EXTENSION' - ignoring",
                    );
                    return;
                }
                if &*name.text != "all" && !prelude::EXTENSIONS.contains(&&*name.text) {
                    self.diags.push(
                        Diagnostic::warning(
                            name.span,
                            format!("unsupported OpenCL extension '{}' - ignoring", name.text),
                        )
                        .in_expansion(name.expansion),
                    );
                }
            }
            Some("FP_CONTRACT") => {
                if !matches!(text(2), Some("ON" | "OFF" | "DEFAULT")) {
                    warn(self, 2, "expected 'ON' or 'OFF' or 'DEFAULT' in pragma");
                } else if toks.len() > 3 {
                    warn(
                        self,
                        3,
                        "extra tokens at end of '#pragma OPENCL FP_CONTRACT'",
                    );
                }
            }
            _ => {}
        }
    }
}

/// The contents of a string literal with `\\` and `\"` resolved (names in `#line`).
fn unescape_simple(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}
