//! The parser: preprocessed [`Token`]s to the syntax tree ([`crate::ast`]), by recursive
//! descent.
//!
//! C cannot be parsed without knowing which identifiers name types (`T * x;` declares `x`
//! when `T` is a typedef name and multiplies otherwise; `(T)(x)` is a cast or a call), so
//! the parser keeps the scopes of the names declared so far, typedef names and the ordinary
//! names that shadow them.
//!
//! Errors are worded and located as clang does (`expected ';' after expression` just after
//! the previous token, `expected ')'` at the offending token with a note at the matching
//! `(`), each carrying the token's macro expansion. After an error the parser skips to the
//! end of the statement or declaration and goes on, so one run reports every error of a
//! file; every loop consumes a token or ends, and nesting deeper than [`MAX_NESTING`] is an
//! error rather than a stack overflow.
//!
//! Conventions of the tree it builds (the semantic pass relies on them):
//!
//! - Every node's span runs from its first token to its last (parentheses around an
//!   expression belong to the enclosing node, not to the expression). When the first and
//!   last token come from different macro expansions or files, the span is the first
//!   token's alone. An expression's `expansion` is its first token's.
//! - `int a, *b;` is one [`Declaration`] whose [`DeclSpecs`] both declarators share.
//! - `f(void)` and `f()` both give [`Derived::Function`] with no parameters (OpenCL C has no
//!   unprototyped functions); `f(int, ...)` sets `variadic`.
//! - A function definition's declarator has the function as `derived[0]`.
//! - OpenCL's vector literal `(float4)(a, b)` is [`ExprKind::CompoundLiteral`] whose
//!   initializer is an [`Initializer::List`] of the parenthesized expressions (no
//!   designators) when the type is syntactically a vector type or a typedef name for one;
//!   `(T)(a, b)` for any other `T` is a cast of a comma expression.
//! - `vec_step(x)` and `vec_step(type)` are [`ExprKind::Call`]s of the identifier
//!   `vec_step`, the type as an [`ExprKind::TypeArg`].
//! - A label directly followed by a declaration in a block (`case 1: int x = 0;`) labels an
//!   empty statement, and the declaration follows as the next block item.
//! - Attributes among the specifiers (`__kernel __attribute__((...)) void k()`, also
//!   after the type) are in `DeclSpecs::attributes`; those after a declarator or its `*`
//!   (`void f(int) __attribute__((overloadable))`) in `Declarator::attributes`; those after
//!   `struct` or the closing brace of its body in `RecordSpec::attributes`. A kernel's
//!   `reqd_work_group_size` may be in the first two. Attributes of enums, enumerators,
//!   labels and statements have no place in the tree and are dropped with a warning.
//! - OpenCL access qualifiers (`read_only`, ...) are checked (only image types take them)
//!   and dropped.
//! - `true` and `false` are identifiers; adjacent string literals are one `StrLit`.
//! - A K&R-style parameter list is reported and gives a function without parameters; its
//!   declarations are dropped.
//! - An abstract declarator with nothing in it has an empty span just after the
//!   specifiers.
//! - Expression trees are at most [`MAX_EXPR_HEIGHT`] tall (plus the few levels of a type
//!   name inside them), statements nest at most [`MAX_NESTING`] deep: later passes may
//!   recurse over the tree on an ordinary stack. (The parser itself runs on a thread of
//!   its own, whose stack is sized for its deepest recursion.)
//! - After an error the tree may hold placeholders (an `IntLit` 0 for a broken
//!   expression, `int` for an unknown type name); it is well-formed, but only diagnostics
//!   should be drawn from it.
//!
//! [`Declaration`]: crate::ast::Declaration
//! [`DeclSpecs`]: crate::ast::DeclSpecs
//! [`Derived::Function`]: crate::ast::Derived::Function
//! [`ExprKind::CompoundLiteral`]: crate::ast::ExprKind::CompoundLiteral
//! [`ExprKind::Call`]: crate::ast::ExprKind::Call
//! [`ExprKind::TypeArg`]: crate::ast::ExprKind::TypeArg
//! [`Initializer::List`]: crate::ast::Initializer::List

mod decl;
mod expr;
mod keyword;
mod literal;
mod stmt;

use crate::ast::{Expr, ExprKind, IntSuffix, TranslationUnit};
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::Span;
use crate::token::{Punct, Token, TokenKind};
use std::collections::HashMap;

/// How deeply constructs may nest (parentheses, blocks, declarators, unary operators).
pub const MAX_NESTING: u32 = 256;

/// How tall an expression tree may grow: later passes recurse over it, and a flat
/// left-associative chain (`a + b + c ...`, `a[i][j]...`) is as tall as it is long.
pub const MAX_EXPR_HEIGHT: u32 = 1024;

/// Parses a preprocessed token stream (ending with [`TokenKind::Eof`]; one is assumed if it
/// is missing) into a translation unit, reporting syntax errors to `diags`.
pub fn parse(tokens: &[Token], diags: &mut Diagnostics) -> TranslationUnit {
    // Nesting recurses: the parser runs on a thread of its own whose stack holds
    // MAX_NESTING levels of the worst construct in any build, whatever the caller's stack
    // (a test thread has 2 MiB). Where no thread can be started it runs here.
    let mut result = None;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("warpkit-cc-parse".into())
            .stack_size(PARSER_STACK)
            .spawn_scoped(scope, || parse_here(tokens, diags));
        if let Ok(worker) = worker {
            result = Some(
                worker
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
        }
    });
    result.unwrap_or_else(|| parse_here(tokens, diags))
}

/// The parser thread's stack size: the worst nesting needs about 4 MiB unoptimized.
const PARSER_STACK: usize = 64 << 20;

fn parse_here(tokens: &[Token], diags: &mut Diagnostics) -> TranslationUnit {
    let owned;
    let toks = if tokens.last().is_some_and(|t| t.kind == TokenKind::Eof) {
        tokens
    } else {
        let span = tokens.last().map_or(Span::DUMMY, |t| {
            Span::new(t.span.file, t.span.hi, t.span.hi)
        });
        let mut v = tokens.to_vec();
        v.push(Token {
            kind: TokenKind::Eof,
            text: String::new(),
            span,
            expansion: None,
        });
        owned = v;
        &owned
    };
    let mut parser = Parser {
        toks,
        pos: 0,
        diags,
        scopes: vec![HashMap::new()],
        nest: 0,
        last_height: 0,
        peak_height: 0,
        fatal: false,
        knr_lists: 0,
        implicit_semi: false,
    };
    parser.translation_unit()
}

/// An error that has been reported; the caller recovers.
#[derive(Debug)]
struct Fail;

type PResult<T> = Result<T, Fail>;

/// What an identifier means in a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// A typedef name; `vector` when it names an OpenCL vector type (for vector literals).
    Typedef { vector: bool },
    /// A variable, function, parameter or enumerator.
    Ordinary,
}

struct Parser<'t, 'd> {
    toks: &'t [Token],
    pos: usize,
    diags: &'d mut Diagnostics,
    /// Innermost last; the first is file scope.
    scopes: Vec<HashMap<String, Binding>>,
    /// Current nesting depth (see [`MAX_NESTING`]).
    nest: u32,
    /// The height of the expression tree most recently built (see [`MAX_EXPR_HEIGHT`]).
    last_height: u32,
    /// The greatest height of the expression trees built since it was last reset (for the
    /// expressions inside a type name or initializer list that is part of an expression).
    peak_height: u32,
    /// Set when nesting overflowed: the rest of the input is abandoned and nothing more is
    /// reported.
    fatal: bool,
    /// How many K&R identifier lists were parsed (a function definition then has
    /// declarations between its `)` and `{`).
    knr_lists: u32,
    /// Set when a struct, union or enum definition was evidently missing its `;`: the
    /// declaration ends there.
    implicit_semi: bool,
}

impl<'t> Parser<'t, '_> {
    // ---- tokens -------------------------------------------------------------------------

    fn tok(&self) -> &'t Token {
        &self.toks[self.pos]
    }

    fn peek(&self, n: usize) -> &'t Token {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }

    fn at_eof(&self) -> bool {
        self.tok().kind == TokenKind::Eof
    }

    fn at(&self, p: Punct) -> bool {
        self.tok().is(p)
    }

    fn at_kw(&self, name: &str) -> bool {
        self.tok().is_ident(name)
    }

    /// The current token's text if it is an identifier.
    fn ident(&self) -> Option<&'t str> {
        let t = self.tok();
        (t.kind == TokenKind::Ident).then_some(t.text.as_str())
    }

    /// Consumes the current token (never the final `Eof`) and returns its index.
    fn bump(&mut self) -> usize {
        let i = self.pos;
        if !self.at_eof() {
            self.pos += 1;
        }
        i
    }

    fn eat(&mut self, p: Punct) -> bool {
        let yes = self.at(p);
        if yes {
            self.bump();
        }
        yes
    }

    /// Whether the current token is an identifier usable as a name (not a keyword).
    fn at_name(&self) -> bool {
        self.ident().is_some_and(|s| !keyword::is_reserved(s))
    }

    // ---- spans --------------------------------------------------------------------------

    /// The span from token `a` through token `b`.
    fn cover(&self, a: usize, b: usize) -> Span {
        let (first, last) = (&self.toks[a], &self.toks[b]);
        if first.span.file == last.span.file
            && first.expansion == last.expansion
            && last.span.hi >= first.span.lo
        {
            Span::new(first.span.file, first.span.lo, last.span.hi)
        } else {
            first.span
        }
    }

    /// The span of the tokens consumed since token `start`.
    fn span_from(&self, start: usize) -> Span {
        if self.pos > start {
            self.cover(start, self.pos - 1)
        } else {
            self.empty_span()
        }
    }

    /// An empty span just after the previous token (before the current one at the start).
    fn empty_span(&self) -> Span {
        match self.pos.checked_sub(1) {
            Some(p) => {
                let s = self.toks[p].span;
                Span::new(s.file, s.hi, s.hi)
            }
            None => {
                let s = self.tok().span;
                Span::new(s.file, s.lo, s.lo)
            }
        }
    }

    fn expr_at(&self, kind: ExprKind, start: usize) -> Expr {
        Expr {
            kind,
            span: self.span_from(start),
            expansion: self.toks[start.min(self.toks.len() - 1)].expansion,
        }
    }

    /// The expression that stands for one that failed to parse.
    fn placeholder(&self, start: usize) -> Expr {
        self.expr_at(
            ExprKind::IntLit {
                value: 0,
                suffix: IntSuffix::default(),
                decimal: true,
            },
            start,
        )
    }

    // ---- diagnostics ----------------------------------------------------------------------

    fn report(&mut self, d: Diagnostic) {
        if !self.fatal {
            self.diags.push(d);
        }
    }

    fn diag_at(&self, i: usize, d: impl FnOnce(Span) -> Diagnostic) -> Diagnostic {
        let t = &self.toks[i];
        d(t.span).in_expansion(t.expansion)
    }

    /// An error at token `i`.
    fn error_at(&mut self, i: usize, message: impl Into<String>) -> Fail {
        let d = self.diag_at(i, |s| Diagnostic::error(s, message));
        self.report(d);
        Fail
    }

    /// An error at the current token.
    fn error(&mut self, message: impl Into<String>) -> Fail {
        self.error_at(self.pos, message)
    }

    fn warning_at(&mut self, i: usize, message: impl Into<String>) {
        let d = self.diag_at(i, |s| Diagnostic::warning(s, message));
        self.report(d);
    }

    fn unsupported_at(&mut self, i: usize, what: impl std::fmt::Display) -> Fail {
        let d = self.diag_at(i, |s| Diagnostic::unsupported(s, what));
        self.report(d);
        Fail
    }

    /// An error just after the previous token, where something (a `;`) is missing.
    fn error_after_prev(&mut self, message: impl Into<String>) -> Fail {
        self.after_prev(|s| Diagnostic::error(s, message));
        Fail
    }

    /// A warning just after the previous token.
    fn warning_after_prev(&mut self, message: impl Into<String>) {
        self.after_prev(|s| Diagnostic::warning(s, message));
    }

    fn after_prev(&mut self, d: impl FnOnce(Span) -> Diagnostic) {
        let d = match self.pos.checked_sub(1) {
            Some(p) => {
                let t = &self.toks[p];
                d(Span::new(t.span.file, t.span.hi, t.span.hi)).in_expansion(t.expansion)
            }
            None => self.diag_at(self.pos, d),
        };
        self.report(d);
    }

    /// Consumes `p` or reports `message` at the current token.
    fn expect(&mut self, p: Punct, message: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.error(message))
        }
    }

    /// Consumes `;` or reports `message` just after the previous token.
    fn expect_semi(&mut self, message: &str) -> PResult<()> {
        if self.eat(Punct::Semi) {
            Ok(())
        } else {
            Err(self.error_after_prev(message))
        }
    }

    /// Consumes the bracket `close` that matches the one at token `open`, or reports
    /// `expected ')'` with a note at the opening one.
    fn expect_closing(&mut self, close: Punct, open: usize) -> PResult<()> {
        if self.eat(close) {
            return Ok(());
        }
        let o = &self.toks[open];
        let d = self
            .diag_at(self.pos, |s| {
                Diagnostic::error(s, format!("expected '{}'", close.text()))
            })
            .with_note(format!("to match this '{}'", o.text), Some(o.span));
        self.report(d);
        Err(Fail)
    }

    // ---- nesting --------------------------------------------------------------------------

    /// Runs `f` one nesting level deeper.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.nest >= MAX_NESTING {
            if !self.fatal {
                self.error(format!("nesting level exceeded maximum of {MAX_NESTING}"));
                self.fatal = true;
            }
            // Unwinding from this depth would report at every level: give up on the file.
            self.pos = self.toks.len() - 1;
            return Err(Fail);
        }
        self.nest += 1;
        let r = f(self);
        self.nest -= 1;
        r
    }

    /// Records the height of the expression tree just built; a tree taller than
    /// [`MAX_EXPR_HEIGHT`] is an error.
    fn set_height(&mut self, height: u32) -> PResult<()> {
        if height > MAX_EXPR_HEIGHT {
            return Err(self.error(format!(
                "expression is too complex (more than {MAX_EXPR_HEIGHT} nested operations)"
            )));
        }
        self.last_height = height;
        self.peak_height = self.peak_height.max(height);
        Ok(())
    }

    /// Runs `f`, and returns with its result the greatest height of the expressions it
    /// built.
    fn with_peak_height<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<(T, u32)> {
        let saved = self.peak_height;
        self.peak_height = 0;
        let r = f(self);
        let peak = self.peak_height;
        self.peak_height = saved.max(peak);
        r.map(|v| (v, peak))
    }

    // ---- scopes ---------------------------------------------------------------------------

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    fn declare(&mut self, name: &str, binding: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), binding);
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn is_typedef(&self, name: &str) -> bool {
        matches!(self.lookup(name), Some(Binding::Typedef { .. }))
    }

    // ---- recovery -------------------------------------------------------------------------

    /// Skips tokens, keeping brackets balanced, up to (not including) one of `stops` outside
    /// brackets, an unmatched `}`, or the end.
    fn skip(&mut self, stops: &[Punct]) {
        let mut open: Vec<Punct> = Vec::new();
        loop {
            let t = self.tok();
            let TokenKind::Punct(p) = t.kind else {
                if self.at_eof() {
                    return;
                }
                self.bump();
                continue;
            };
            if open.is_empty() && stops.contains(&p) {
                return;
            }
            match p {
                Punct::LParen | Punct::LBracket | Punct::LBrace => open.push(p),
                Punct::RParen | Punct::RBracket | Punct::RBrace => {
                    let opener = match p {
                        Punct::RParen => Punct::LParen,
                        Punct::RBracket => Punct::LBracket,
                        _ => Punct::LBrace,
                    };
                    if let Some(i) = open.iter().rposition(|&o| o == opener) {
                        open.truncate(i);
                    } else if p == Punct::RBrace {
                        // It closes a block we are inside of.
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips the rest of a broken statement: through its `;`, or up to the `}` that ends
    /// the enclosing block.
    fn skip_statement(&mut self) {
        self.skip(&[Punct::Semi]);
        self.eat(Punct::Semi);
    }

    /// Skips the rest of a broken file-scope declaration: through its `;`, through a
    /// braced group `{...}`, or up to a keyword that begins a file-scope declaration
    /// (`__kernel`, `typedef`, ...) outside parentheses.
    fn skip_external(&mut self) {
        let start = self.pos;
        let mut parens = 0usize;
        loop {
            if self.at_eof() || self.at(Punct::RBrace) || self.eat(Punct::Semi) {
                return;
            }
            if self.at(Punct::LBrace) {
                self.bump();
                self.skip(&[]);
                self.eat(Punct::RBrace);
                return;
            }
            if parens == 0
                && self.pos > start
                && self.ident().is_some_and(keyword::begins_top_level)
            {
                return;
            }
            if self.at(Punct::LParen) || self.at(Punct::LBracket) {
                parens += 1;
            } else if self.at(Punct::RParen) || self.at(Punct::RBracket) {
                parens = parens.saturating_sub(1);
            }
            self.bump();
        }
    }

    // ---- translation unit -------------------------------------------------------------------

    fn translation_unit(&mut self) -> TranslationUnit {
        let mut items = Vec::new();
        while !self.at_eof() {
            let before = self.pos;
            if self.eat(Punct::Semi) {
                continue;
            }
            if self.at(Punct::RBrace) {
                self.error("extraneous closing brace ('}')");
                self.bump();
                continue;
            }
            if let Some(item) = self.external_decl() {
                items.push(item);
            }
            if self.pos == before {
                self.bump();
            }
        }
        TranslationUnit { items }
    }
}
