//! Macro definitions (C99 §6.10.3): parsing `#define`, the redefinition rule, and `#`.

use super::token::{PpKind, PpToken};
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::Span;
use crate::token::Punct;
use std::rc::Rc;

/// What a macro is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MacroKind {
    Object,
    Function {
        params: Vec<Rc<str>>,
        /// The last parameter is `...` (`__VA_ARGS__`, index `params.len()`).
        variadic: bool,
    },
    /// `__LINE__`.
    Line,
    /// `__FILE__`.
    File,
}

/// One element of a replacement list, with parameters and operators resolved.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    Tok(PpToken),
    /// A parameter (its index; the token for its spacing).
    Param(usize, PpToken),
    /// `# param` (the `#` token).
    Stringify(usize, PpToken),
    /// `##`.
    Paste(PpToken),
}

/// A macro.
#[derive(Debug)]
pub(crate) struct Macro {
    pub name: Rc<str>,
    pub kind: MacroKind,
    pub body: Vec<Item>,
    /// The replacement list as written, for the redefinition rule (§6.10.3p2); the first
    /// token's leading space is cleared.
    pub tokens: Vec<PpToken>,
    /// The name in the `#define`.
    pub name_span: Span,
    /// Defined by the compiler or on the command line.
    pub predefined: bool,
}

impl Macro {
    /// The number of arguments an invocation has: named parameters plus `...`.
    pub(crate) fn slots(&self) -> usize {
        match &self.kind {
            MacroKind::Function { params, variadic } => params.len() + usize::from(*variadic),
            _ => 0,
        }
    }

    /// Whether `other` is the same definition (§6.10.3p2): the same kind, parameters
    /// spelled alike, and replacement lists of identical tokens with whitespace in the same
    /// places.
    pub(crate) fn same_as(&self, other: &Macro) -> bool {
        self.kind == other.kind
            && self.tokens.len() == other.tokens.len()
            && self
                .tokens
                .iter()
                .zip(&other.tokens)
                .all(|(a, b)| a.text == b.text && a.space == b.space)
    }
}

/// A `#define`'s tokens after the directive name: the macro, or `None` after reporting why
/// it is malformed. `at` is the directive, for a missing name.
pub(crate) fn parse_define(
    toks: Vec<PpToken>,
    at: Span,
    predefined: bool,
    diags: &mut Diagnostics,
) -> Option<Macro> {
    let mut it = toks.into_iter().peekable();
    let Some(name) = it.next() else {
        diags.push(Diagnostic::error(at, "macro name missing"));
        return None;
    };
    if !check_macro_name(&name, "define", diags) {
        return None;
    }
    let mut kind = MacroKind::Object;
    if let Some(open) = it.peek().filter(|t| t.is(Punct::LParen) && !t.space) {
        let open = open.span;
        it.next();
        let mut params: Vec<Rc<str>> = Vec::new();
        let mut variadic = false;
        let mut last = open;
        // `(`, then `)` at once, or names and `...` separated by commas.
        let mut expect_name = true;
        loop {
            let Some(t) = it.next() else {
                diags.push(Diagnostic::error(
                    last,
                    "missing ')' in macro parameter list",
                ));
                return None;
            };
            last = t.span;
            match t.kind {
                PpKind::Punct(Punct::RParen) if !expect_name || params.is_empty() && !variadic => {
                    break
                }
                PpKind::Punct(Punct::Comma) if !expect_name && !variadic => expect_name = true,
                PpKind::Punct(Punct::Ellipsis) if expect_name => {
                    variadic = true;
                    expect_name = false;
                    if !it.peek().is_some_and(|t| t.is(Punct::RParen)) {
                        let at = it.peek().map_or(t.span, |t| t.span);
                        diags.push(Diagnostic::error(
                            at,
                            "missing ')' after '...' in macro parameter list",
                        ));
                        return None;
                    }
                }
                PpKind::Ident if expect_name => {
                    if &*t.text == "__VA_ARGS__" {
                        diags.push(Diagnostic::error(
                            t.span,
                            "__VA_ARGS__ can only appear in the expansion of a C99 variadic macro",
                        ));
                        return None;
                    }
                    if params.contains(&t.text) {
                        diags.push(Diagnostic::error(
                            t.span,
                            format!("duplicate macro parameter name '{}'", t.text),
                        ));
                        return None;
                    }
                    if it.peek().is_some_and(|t| t.is(Punct::Ellipsis)) {
                        diags.push(Diagnostic::unsupported(
                            t.span,
                            "named variadic macro parameters (use '...' and __VA_ARGS__)",
                        ));
                        return None;
                    }
                    params.push(t.text.clone());
                    expect_name = false;
                }
                _ if expect_name => {
                    diags.push(Diagnostic::error(
                        t.span,
                        "invalid token in macro parameter list",
                    ));
                    return None;
                }
                _ => {
                    diags.push(Diagnostic::error(
                        t.span,
                        "expected comma in macro parameter list",
                    ));
                    return None;
                }
            }
        }
        kind = MacroKind::Function { params, variadic };
    } else if let Some(first) = it.peek().filter(|t| !t.space) {
        diags.push(Diagnostic::warning(
            first.span,
            "ISO C99 requires whitespace after the macro name",
        ));
    }
    let mut tokens: Vec<PpToken> = it.collect();
    if let Some(first) = tokens.first_mut() {
        first.space = false;
    }
    let body = resolve_body(&tokens, &kind, diags)?;
    Some(Macro {
        name: name.text.clone(),
        kind,
        body,
        tokens,
        name_span: name.span,
        predefined,
    })
}

/// Whether `name` may be the name of `#define` or `#undef` (reported if not).
pub(crate) fn check_macro_name(name: &PpToken, directive: &str, diags: &mut Diagnostics) -> bool {
    if name.kind != PpKind::Ident {
        diags.push(Diagnostic::error(
            name.span,
            "macro name must be an identifier",
        ));
        return false;
    }
    if &*name.text == "defined" {
        diags.push(Diagnostic::error(
            name.span,
            format!("'defined' cannot be used as a macro name (in #{directive})"),
        ));
        return false;
    }
    if &*name.text == "__VA_ARGS__" {
        diags.push(Diagnostic::error(
            name.span,
            "__VA_ARGS__ can only appear in the expansion of a C99 variadic macro",
        ));
        return false;
    }
    true
}

/// The replacement list with parameters, `#` and `##` resolved and checked (§6.10.3.2p1,
/// §6.10.3.3p1).
fn resolve_body(toks: &[PpToken], kind: &MacroKind, diags: &mut Diagnostics) -> Option<Vec<Item>> {
    let (params, variadic, function) = match kind {
        MacroKind::Function { params, variadic } => (params.as_slice(), *variadic, true),
        _ => (&[][..], false, false),
    };
    let param = |t: &PpToken| -> Option<usize> {
        if t.kind != PpKind::Ident {
            return None;
        }
        if variadic && &*t.text == "__VA_ARGS__" {
            return Some(params.len());
        }
        params.iter().position(|p| *p == t.text)
    };
    let mut body = Vec::with_capacity(toks.len());
    let mut ok = true;
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind == PpKind::Ident && &*t.text == "__VA_ARGS__" && param(t).is_none() {
            diags.push(Diagnostic::error(
                t.span,
                "__VA_ARGS__ can only appear in the expansion of a C99 variadic macro",
            ));
            ok = false;
        }
        if t.is(Punct::HashHash) {
            if i == 0 || i + 1 == toks.len() {
                diags.push(Diagnostic::error(
                    t.span,
                    "'##' cannot appear at either end of a macro expansion",
                ));
                ok = false;
            }
            body.push(Item::Paste(t.clone()));
        } else if function && t.is(Punct::Hash) {
            match toks.get(i + 1).and_then(param) {
                Some(p) => {
                    body.push(Item::Stringify(p, t.clone()));
                    i += 1;
                }
                None => {
                    diags.push(Diagnostic::error(
                        t.span,
                        "'#' is not followed by a macro parameter",
                    ));
                    ok = false;
                }
            }
        } else if let Some(p) = param(t) {
            body.push(Item::Param(p, t.clone()));
        } else {
            body.push(Item::Tok(t.clone()));
        }
        i += 1;
    }
    ok.then_some(body)
}

/// `#` applied to an argument's tokens (§6.10.3.2p2): their spellings, one space where
/// there was whitespace between them, with `"` and `\` escaped inside character constants
/// and string literals.
pub(crate) fn stringify(toks: &[PpToken]) -> String {
    let mut s = String::with_capacity(2 + toks.iter().map(|t| t.text.len() + 1).sum::<usize>());
    s.push('"');
    for (i, t) in toks.iter().enumerate() {
        if t.kind == PpKind::Placemarker {
            continue;
        }
        if i > 0 && t.space {
            s.push(' ');
        }
        let literal = matches!(t.kind, PpKind::Str | PpKind::Char)
            || t.kind == PpKind::Invalid && t.text.contains(['"', '\'']);
        if literal {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    s
}
