//! Dropping the prelude's functions that the program cannot reach: the math library is
//! mostly function definitions, and parsing and declaring all of them for every program
//! would cost more than the program itself. A prelude function is kept when its name is
//! an identifier of the program or of a kept function, or when such an identifier is a
//! built-in the lowering turns into a call of it (`sin` into `__cl_sin_f32` and
//! `__cl_sin_f64`, `half_exp` into `__cl_exp_*`, `convert_int_rte` into the rounding
//! functions). Declarations (typedefs, `__constant` tables) are always kept.

use crate::source::SourceMap;
use crate::token::{Punct, Token, TokenKind};
use std::collections::{HashMap, HashSet};

/// The prelude's library names that identifier `name` may lead to.
fn library_names(name: &str, out: &mut Vec<String>) {
    out.push(name.to_string());
    let base = name
        .strip_prefix("half_")
        .or_else(|| name.strip_prefix("native_"))
        .unwrap_or(name);
    for suffix in ["f32", "f64"] {
        out.push(format!("__cl_{base}_{suffix}"));
        if name.starts_with("convert_") {
            for r in ["rint", "ceil", "floor"] {
                out.push(format!("__cl_{r}_{suffix}"));
            }
        }
    }
}

/// Whether token `t` was written in a compiler-made file (the prelude), following macro
/// expansions out to the invocation that produced it.
fn from_prelude(t: &Token, sources: &SourceMap) -> bool {
    let mut span = t.span;
    let mut e = t.expansion;
    while let Some(id) = e {
        let x = sources.expansion(id);
        span = x.call_site;
        e = x.parent;
    }
    !span.is_dummy()
        && (span.file.0 as usize) < sources.files().len()
        && sources.file(span.file).builtin
}

/// Remove the definitions of unreachable prelude functions from `tokens` (the output of
/// [`super::preprocess`]: the prelude's tokens first).
pub fn prune_prelude(tokens: Vec<Token>, sources: &SourceMap) -> Vec<Token> {
    let end = tokens
        .iter()
        .position(|t| t.kind == TokenKind::Eof || !from_prelude(t, sources))
        .unwrap_or(tokens.len());
    // Top-level items of the prelude: (start, end, defined function name).
    let mut items: Vec<Item> = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    let mut name: Option<String> = None;
    let mut body = false;
    for i in 0..end {
        let t = &tokens[i];
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => {
                if depth == 0 && name.is_none() && i > start {
                    let prev = &tokens[i - 1];
                    if prev.kind == TokenKind::Ident {
                        name = Some(prev.text.clone());
                    }
                }
                depth += 1;
            }
            TokenKind::Punct(Punct::LBrace) => {
                if depth == 0 && i > start && tokens[i - 1].kind == TokenKind::Punct(Punct::RParen)
                {
                    body = true;
                }
                depth += 1;
            }
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::RBrace) => {
                depth = depth.saturating_sub(1);
                if depth == 0 && body {
                    items.push((start, i + 1, name.take()));
                    start = i + 1;
                    name = None;
                    body = false;
                }
            }
            TokenKind::Punct(Punct::Semi) if depth == 0 => {
                items.push((start, i + 1, None));
                start = i + 1;
                name = None;
                body = false;
            }
            _ => {}
        }
    }
    if start < end || depth != 0 {
        // Not the shape expected (an error in the prelude?): keep everything.
        return tokens;
    }
    let keep = reachable(&tokens, end, &items);
    if keep.iter().all(|&k| k) {
        return tokens;
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut it = tokens.into_iter().enumerate();
    let mut item = 0;
    for (i, t) in &mut it {
        while item < items.len() && items[item].1 <= i {
            item += 1;
        }
        if i >= end || item >= items.len() || keep[item] {
            out.push(t);
        }
    }
    out
}

/// A top-level item of the prelude: its token range and the function it defines.
type Item = (usize, usize, Option<String>);

/// Which `items` (of `tokens[..end]`) the program (`tokens[end..]`) reaches.
fn reachable(tokens: &[Token], end: usize, items: &[Item]) -> Vec<bool> {
    let by_name: HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .filter_map(|(k, it)| it.2.as_deref().map(|n| (n, k)))
        .collect();
    let mut keep = vec![false; items.len()];
    let mut work: Vec<usize> = Vec::new();
    for (k, it) in items.iter().enumerate() {
        if it.2.is_none() {
            keep[k] = true;
            work.push(k);
        }
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let mut names = Vec::new();
    let mut ranges = vec![(end, tokens.len())];
    while let Some((s, e)) = ranges
        .pop()
        .or_else(|| work.pop().map(|k| (items[k].0, items[k].1)))
    {
        for t in &tokens[s..e] {
            if t.kind != TokenKind::Ident || !seen.insert(t.text.as_str()) {
                continue;
            }
            names.clear();
            library_names(&t.text, &mut names);
            for n in &names {
                if let Some(&k) = by_name.get(n.as_str()) {
                    if !keep[k] {
                        keep[k] = true;
                        work.push(k);
                    }
                }
            }
        }
    }
    keep
}
