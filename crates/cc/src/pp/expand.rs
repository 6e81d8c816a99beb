//! Macro expansion (C99 §6.10.3): invocations, argument substitution, `#`, `##`, and
//! rescanning.
//!
//! A macro's replacement goes on a stack of [`Context`]s and is read again from there; the
//! macro is disabled while its context is on the stack, and a name of a disabled macro read
//! from any context is painted blue for good (§6.10.3.4p2). A context is popped only when a
//! read finds it empty, so the arguments of a function-like macro whose name ends a
//! replacement may come from below it (the case §6.10.3.4p4 leaves open is resolved as gcc
//! and clang resolve it). Arguments are expanded on their own, as a context that reads stop
//! at ([`Floor::Isolated`]).

use super::macros::{stringify, Item, Macro, MacroKind};
use super::{Context, Floor, PpKind, PpToken, Preprocessor};
use crate::diag::Diagnostic;
use crate::source::{Expansion, ExpnId, Span};
use crate::token::Punct;
use std::rc::Rc;

impl Preprocessor<'_> {
    /// The next token from the contexts above `floor`, or from the files; `None` when an
    /// isolated expansion is over. Identifiers naming a disabled macro are painted.
    pub(super) fn next_raw(&mut self, floor: Floor) -> Option<PpToken> {
        let base = match floor {
            Floor::File => 0,
            Floor::Isolated(k) => k,
        };
        loop {
            if self.fatal {
                return match floor {
                    Floor::File => Some(self.eof_token()),
                    Floor::Isolated(_) => None,
                };
            }
            if self.contexts.len() > base {
                let ctx = self.contexts.last_mut().expect("a context above the floor");
                if let Some(tok) = ctx.tokens.get(ctx.pos) {
                    let mut tok = tok.clone();
                    ctx.pos += 1;
                    if tok.kind == PpKind::Ident
                        && !tok.no_expand
                        && self.active.contains_key(&tok.text)
                    {
                        tok.no_expand = true;
                    }
                    return Some(tok);
                }
                self.pop_context();
                continue;
            }
            return match floor {
                Floor::File => Some(self.file_token()),
                Floor::Isolated(_) => None,
            };
        }
    }

    fn pop_context(&mut self) {
        if let Some(ctx) = self.contexts.pop() {
            if let Some(name) = ctx.macro_name {
                if let Some(n) = self.active.get_mut(&name) {
                    *n -= 1;
                    if *n == 0 {
                        self.active.remove(&name);
                    }
                }
            }
        }
    }

    fn push_context(&mut self, tokens: Vec<PpToken>, macro_name: Option<Rc<str>>) {
        if let Some(name) = &macro_name {
            *self.active.entry(name.clone()).or_insert(0) += 1;
        }
        self.contexts.push(Context {
            tokens,
            pos: 0,
            macro_name,
        });
    }

    /// Give a token back, to be read next.
    pub(super) fn push_back(&mut self, tok: PpToken) {
        self.push_context(vec![tok], None);
    }

    /// The next fully macro-expanded token above `floor`.
    pub(super) fn next_expanded(&mut self, floor: Floor) -> Option<PpToken> {
        loop {
            let mut tok = self.next_raw(floor)?;
            if tok.kind != PpKind::Ident || tok.no_expand {
                return Some(tok);
            }
            if self.in_if && &*tok.text == "defined" {
                return Some(self.defined_operator(tok, floor));
            }
            if &*tok.text == "_Pragma" {
                self.pragma_operator(tok, floor);
                continue;
            }
            let Some(m) = self.macros.get(&tok.text).cloned() else {
                return Some(tok);
            };
            if self.active.contains_key(&m.name) {
                tok.no_expand = true;
                return Some(tok);
            }
            match m.kind {
                MacroKind::Object => {
                    let id = self.record_expansion(&m, &tok, tok.span);
                    let out = self.substitute(&m, &tok, &[], id, tok.span);
                    self.push_expansion(out, &m, &tok, tok.span);
                }
                MacroKind::Function { .. } => {
                    match self.next_raw(floor) {
                        Some(t) if t.is(Punct::LParen) => {}
                        Some(t) => {
                            self.push_back(t);
                            return Some(tok);
                        }
                        None => return Some(tok),
                    }
                    let Some((args, close)) = self.collect_args(&m, &tok, floor) else {
                        continue;
                    };
                    let call_site = tok.span.to(close);
                    let id = self.record_expansion(&m, &tok, call_site);
                    let out = self.substitute(&m, &tok, &args, id, call_site);
                    self.push_expansion(out, &m, &tok, call_site);
                }
                MacroKind::Line | MacroKind::File => return Some(self.builtin_macro(&m, tok)),
            }
        }
    }

    /// Count an expansion's tokens against the limits and put them up for rescanning.
    fn push_expansion(&mut self, out: Vec<PpToken>, m: &Macro, name: &PpToken, call_site: Span) {
        self.expanded_tokens += out.len() as u64;
        let limit = self.limits.expanded_tokens;
        if self.expanded_tokens > limit {
            self.fail(
                call_site,
                name.expansion,
                format!("macro expansion produced more than {limit} tokens"),
            );
            return;
        }
        self.push_context(out, Some(m.name.clone()));
    }

    /// A fatal error at `span` (in `expansion`): preprocessing stops.
    pub(super) fn fail(&mut self, span: Span, expansion: Option<ExpnId>, message: String) {
        if !self.fatal {
            self.diags
                .push(Diagnostic::error(span, message).in_expansion(expansion));
        }
        self.fatal = true;
    }

    fn record_expansion(&mut self, m: &Macro, name: &PpToken, call_site: Span) -> ExpnId {
        self.sources.add_expansion(Expansion {
            name: m.name.to_string(),
            call_site,
            parent: name.expansion,
            definition: (!m.predefined).then_some(m.name_span),
        })
    }

    /// `__LINE__` or `__FILE__` at `tok`.
    fn builtin_macro(&mut self, m: &Macro, tok: PpToken) -> PpToken {
        // The line of the outermost invocation (or the token itself, outside macros).
        let mut at = tok.span;
        let mut e = tok.expansion;
        while let Some(id) = e {
            let x = self.sources.expansion(id);
            at = x.call_site;
            e = x.parent;
        }
        let id = self.record_expansion(m, &tok, tok.span);
        let (kind, text) = if m.kind == MacroKind::Line {
            (PpKind::Number, self.presumed_line(at).to_string())
        } else {
            (PpKind::Str, string_literal(&self.presumed_name(at)))
        };
        let mut out = PpToken::synthesized(kind, text, tok.span);
        out.expansion = Some(id);
        out.space = tok.space;
        out
    }

    /// After `name (`: the arguments up to the matching `)` and that parenthesis's span, or
    /// `None` after an error (the invocation is dropped).
    fn collect_args(
        &mut self,
        m: &Macro,
        name: &PpToken,
        floor: Floor,
    ) -> Option<(Vec<Vec<PpToken>>, Span)> {
        let slots = m.slots();
        let variadic = matches!(m.kind, MacroKind::Function { variadic: true, .. });
        let mut args: Vec<Vec<PpToken>> = vec![Vec::new()];
        let mut depth = 0u32;
        let close = loop {
            let mut t = match self.next_raw(floor) {
                Some(t) if !matches!(t.kind, PpKind::FileEnd | PpKind::Eof) => t,
                end => {
                    // The file's end stays for the file layer to see.
                    if let Some(t) = end {
                        self.push_back(t);
                    }
                    if !self.fatal {
                        self.macro_error(m, name, "unterminated function-like macro invocation");
                    }
                    return None;
                }
            };
            if t.line_start {
                // A newline between arguments' tokens is whitespace.
                t.space = true;
                t.line_start = false;
            }
            match t.kind {
                PpKind::Punct(Punct::LParen) => depth += 1,
                PpKind::Punct(Punct::RParen) if depth == 0 => break t.span,
                PpKind::Punct(Punct::RParen) => depth -= 1,
                PpKind::Punct(Punct::Comma) if depth == 0 && !(variadic && args.len() == slots) => {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            args.last_mut().expect("one argument at least").push(t);
        };
        let params = slots - usize::from(variadic);
        if slots == 0 {
            if args.len() > 1 || !args[0].is_empty() {
                self.macro_error(
                    m,
                    name,
                    "too many arguments provided to function-like macro invocation",
                );
                return None;
            }
            args.clear();
        } else if args.len() > slots {
            self.macro_error(
                m,
                name,
                "too many arguments provided to function-like macro invocation",
            );
            return None;
        } else if args.len() < params || (!variadic && args.len() < slots) {
            self.macro_error(
                m,
                name,
                "too few arguments provided to function-like macro invocation",
            );
            return None;
        }
        // `F(a)` for `F(a, ...)`: the variable arguments are empty.
        args.resize_with(slots, Vec::new);
        Some((args, close))
    }

    fn macro_error(&mut self, m: &Macro, name: &PpToken, message: &str) {
        self.diags.push(
            Diagnostic::error(name.span, message)
                .in_expansion(name.expansion)
                .with_note(
                    format!("macro '{}' defined here", m.name),
                    Some(m.name_span),
                ),
        );
    }

    /// The replacement of an invocation of `m` (§6.10.3.1 to §6.10.3.3), before rescanning.
    fn substitute(
        &mut self,
        m: &Macro,
        name: &PpToken,
        args: &[Vec<PpToken>],
        id: ExpnId,
        call_site: Span,
    ) -> Vec<PpToken> {
        let va = args
            .len()
            .checked_sub(1)
            .filter(|_| matches!(m.kind, MacroKind::Function { variadic: true, .. }));
        let mut expanded: Vec<Option<Vec<PpToken>>> = vec![None; args.len()];
        let mut out: Vec<PpToken> = Vec::with_capacity(m.body.len());
        let mut paste: Option<&PpToken> = None;
        for (i, item) in m.body.iter().enumerate() {
            let before_paste = matches!(m.body.get(i + 1), Some(Item::Paste(_)));
            let mut piece: Vec<PpToken> = match item {
                Item::Paste(op) => {
                    paste = Some(op);
                    continue;
                }
                Item::Tok(t) => {
                    let mut t = t.clone();
                    t.expansion = Some(id);
                    vec![t]
                }
                Item::Param(p, at) => {
                    let p = *p;
                    if paste.is_some() {
                        // gcc's `, ## __VA_ARGS__`: no paste; the comma goes when the
                        // variable arguments are empty.
                        if Some(p) == va && out.last().is_some_and(|t| t.is(Punct::Comma)) {
                            paste = None;
                            if args[p].is_empty() {
                                out.pop();
                            }
                            out.extend(args[p].iter().cloned());
                            continue;
                        }
                    }
                    let mut toks = if paste.is_some() || before_paste {
                        args[p].clone()
                    } else {
                        if expanded[p].is_none() {
                            let e = self.expand_isolated(args[p].clone());
                            expanded[p] = Some(e);
                        }
                        expanded[p].clone().unwrap_or_default()
                    };
                    match toks.first_mut() {
                        Some(first) => first.space = at.space,
                        None if paste.is_some() || before_paste => {
                            toks.push(PpToken::synthesized(PpKind::Placemarker, "", at.span));
                        }
                        None => {}
                    }
                    toks
                }
                Item::Stringify(p, hash) => {
                    let mut text = stringify(&args[*p]);
                    self.synthesized_bytes += text.len() as u64;
                    // A stray `\` can leave the literal open (C99 §6.10.3.2p2: undefined).
                    if super::lex::Lexer::single_token(&text) != Some(PpKind::Str) {
                        self.diags.push(
                            Diagnostic::error(
                                hash.span,
                                format!("'#' formed {text}, an invalid string literal"),
                            )
                            .in_expansion(Some(id)),
                        );
                        text = "\"\"".to_string();
                    }
                    let mut t = PpToken::synthesized(PpKind::Str, text, call_site);
                    t.expansion = Some(id);
                    t.space = hash.space;
                    vec![t]
                }
            };
            if let Some(op) = paste.take() {
                if !piece.is_empty() {
                    if let Some(left) = out.pop() {
                        let right = piece.remove(0);
                        let joined = self.paste(left, right, op, id, call_site);
                        out.extend(joined);
                    }
                }
            }
            out.append(&mut piece);
            let limit = self.limits.synthesized_bytes;
            if self.synthesized_bytes > limit {
                self.fail(
                    call_site,
                    name.expansion,
                    format!("'#' and '##' produced more than {limit} bytes of tokens"),
                );
                return Vec::new();
            }
        }
        out.retain(|t| t.kind != PpKind::Placemarker);
        if let Some(first) = out.first_mut() {
            first.space = name.space;
        }
        out
    }

    /// `left ## right` (§6.10.3.3p3): one token, a placemarker, or (after an error) both.
    fn paste(
        &mut self,
        left: PpToken,
        right: PpToken,
        op: &PpToken,
        id: ExpnId,
        call_site: Span,
    ) -> Vec<PpToken> {
        if left.kind == PpKind::Placemarker {
            return vec![right];
        }
        if right.kind == PpKind::Placemarker {
            return vec![left];
        }
        let text = format!("{}{}", left.text, right.text);
        self.synthesized_bytes += text.len() as u64;
        match super::lex::Lexer::single_token(&text) {
            Some(kind) => {
                let mut t = PpToken::synthesized(kind, text, call_site);
                t.expansion = Some(id);
                t.space = left.space;
                vec![t]
            }
            None => {
                self.diags.push(
                    Diagnostic::error(
                        op.span,
                        format!("pasting formed '{text}', an invalid preprocessing token"),
                    )
                    .in_expansion(Some(id)),
                );
                vec![left, right]
            }
        }
    }

    /// `toks` fully macro-expanded on their own (an argument before substitution, a
    /// directive's line).
    pub(super) fn expand_isolated(&mut self, toks: Vec<PpToken>) -> Vec<PpToken> {
        if toks.is_empty() || self.fatal {
            return toks;
        }
        let limit = self.limits.argument_nesting;
        if self.nesting >= limit {
            let (at, expansion) = (toks[0].span, toks[0].expansion);
            self.fail(
                at,
                expansion,
                format!("macro invocations nested more than {limit} deep"),
            );
            return toks;
        }
        self.nesting += 1;
        let base = self.contexts.len();
        self.push_context(toks, None);
        let mut out = Vec::new();
        while let Some(t) = self.next_expanded(Floor::Isolated(base)) {
            out.push(t);
        }
        while self.contexts.len() > base {
            self.pop_context();
        }
        self.nesting -= 1;
        out
    }

    /// `defined X` or `defined ( X )` in a `#if` (§6.10.1p1): `1` or `0`, or an invalid
    /// token after an error.
    fn defined_operator(&mut self, tok: PpToken, floor: Floor) -> PpToken {
        let mut next = self.next_raw(floor);
        let paren = next.as_ref().is_some_and(|t| t.is(Punct::LParen));
        if paren {
            next = self.next_raw(floor);
        }
        let name = match next {
            Some(t) if t.kind == PpKind::Ident => t,
            other => {
                let at = other.as_ref().map_or(tok.span, |t| t.span);
                self.diags.push(
                    Diagnostic::error(at, "macro name missing after 'defined'")
                        .in_expansion(other.and_then(|t| t.expansion).or(tok.expansion)),
                );
                return PpToken::synthesized(PpKind::Invalid, "", tok.span);
            }
        };
        if paren {
            match self.next_raw(floor) {
                Some(t) if t.is(Punct::RParen) => {}
                other => {
                    let at = other.as_ref().map_or(name.span, |t| t.span);
                    self.diags.push(
                        Diagnostic::error(at, "missing ')' after 'defined'")
                            .with_note("to match this '('", Some(tok.span)),
                    );
                    return PpToken::synthesized(PpKind::Invalid, "", tok.span);
                }
            }
        }
        let value = if self.macros.contains_key(&name.text) {
            "1"
        } else {
            "0"
        };
        let mut t = PpToken::synthesized(PpKind::Number, value, tok.span);
        t.expansion = tok.expansion;
        t
    }

    /// `_Pragma ( string-literal )` (§6.10.9): the string, destringized, is a `#pragma`.
    fn pragma_operator(&mut self, tok: PpToken, floor: Floor) {
        let open = self.next_raw(floor);
        let lit = if open.as_ref().is_some_and(|t| t.is(Punct::LParen)) {
            self.next_raw(floor)
        } else {
            open
        };
        let lit = match lit {
            Some(t) if t.kind == PpKind::Str => t,
            other => {
                if let Some(t) = other {
                    self.push_back(t);
                }
                self.diags.push(
                    Diagnostic::error(tok.span, "_Pragma takes a parenthesized string literal")
                        .in_expansion(tok.expansion),
                );
                return;
            }
        };
        match self.next_raw(floor) {
            Some(t) if t.is(Punct::RParen) => {}
            other => {
                if let Some(t) = other {
                    self.push_back(t);
                }
                self.diags.push(
                    Diagnostic::error(lit.span, "_Pragma takes a parenthesized string literal")
                        .in_expansion(lit.expansion),
                );
                return;
            }
        }
        let inner = lit
            .text
            .strip_prefix('L')
            .unwrap_or(&lit.text)
            .trim_start_matches('"')
            .strip_suffix('"')
            .unwrap_or("");
        let text = inner.replace("\\\"", "\"").replace("\\\\", "\\");
        let toks = self.lex_string(&text, lit.span, lit.expansion);
        self.pragma(&toks);
    }

    /// The tokens of `text`, all placed at `span` (text that is not in any file).
    pub(super) fn lex_string(
        &mut self,
        text: &str,
        span: Span,
        expansion: Option<ExpnId>,
    ) -> Vec<PpToken> {
        // Offsets in `text` are not offsets in any file: lexical errors are not reported.
        let mut quiet = crate::diag::Diagnostics::new();
        let mut lexer = super::lex::Lexer::new(Rc::from(text), span.file);
        let mut out = Vec::new();
        loop {
            let mut t = lexer.next_token(false, &mut quiet);
            if t.kind == PpKind::FileEnd {
                return out;
            }
            t.span = span;
            t.expansion = expansion;
            out.push(t);
        }
    }
}

/// `s` as a string literal.
pub(super) fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
