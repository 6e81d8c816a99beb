//! Statements and blocks.

use super::decl::Ctx;
use super::{keyword, Fail, PResult, Parser};
use crate::ast::{BlockItem, Expr, ForInit, Stmt, StmtKind};
use crate::token::Punct;

impl Parser<'_, '_> {
    /// `{ block items }`, at the `{`, in a scope of its own. Recovers from every error.
    pub(super) fn compound(&mut self) -> Stmt {
        let open = self.bump();
        self.push_scope();
        let mut items = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            let before = self.pos;
            if self.starts_decl() {
                if let Some(d) = self.local_declaration(Ctx::Block) {
                    items.push(BlockItem::Decl(d));
                }
            } else {
                items.push(BlockItem::Stmt(self.statement(true)));
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.pop_scope();
        let _ = self.expect_closing(Punct::RBrace, open);
        Stmt {
            kind: StmtKind::Compound(items),
            span: self.span_from(open),
        }
    }

    /// A statement; `in_block` when it is an item of a block, where a label may precede a
    /// declaration. Recovers from every error (a broken statement becomes `;`).
    pub(super) fn statement(&mut self, in_block: bool) -> Stmt {
        let start = self.pos;
        match self.nested(|p| p.statement_inner(in_block)) {
            Ok(s) => s,
            Err(Fail) => {
                self.skip_statement();
                self.stmt(StmtKind::Expr(None), start)
            }
        }
    }

    fn stmt(&self, kind: StmtKind, start: usize) -> Stmt {
        Stmt {
            kind,
            span: self.span_from(start),
        }
    }

    fn statement_inner(&mut self, in_block: bool) -> PResult<Stmt> {
        let start = self.pos;
        if self.at(Punct::LBrace) {
            return Ok(self.compound());
        }
        if self.eat(Punct::Semi) {
            return Ok(self.stmt(StmtKind::Expr(None), start));
        }
        if let Some(name) = self.ident() {
            match name {
                "if" => return self.if_statement(),
                "while" => return self.while_statement(),
                "do" => return self.do_statement(),
                "for" => return self.for_statement(),
                "switch" => return self.switch_statement(),
                "case" => return self.case_statement(in_block),
                "default" => {
                    self.bump();
                    self.label_colon("default");
                    let body = self.label_body(in_block);
                    return Ok(self.stmt(StmtKind::Default(body), start));
                }
                "goto" => {
                    self.bump();
                    if self.at(Punct::Star) {
                        return Err(self.unsupported_at(self.pos, "computed goto"));
                    }
                    if !self.at_name() {
                        return Err(self.error("expected identifier"));
                    }
                    let label = self.tok().text.clone();
                    self.bump();
                    self.expect_semi("expected ';' after goto statement")?;
                    return Ok(self.stmt(StmtKind::Goto(label), start));
                }
                "break" | "continue" => {
                    self.bump();
                    self.expect_semi(&format!("expected ';' after {name} statement"))?;
                    let kind = if name == "break" {
                        StmtKind::Break
                    } else {
                        StmtKind::Continue
                    };
                    return Ok(self.stmt(kind, start));
                }
                "return" => {
                    self.bump();
                    let value = if self.at(Punct::Semi) {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.expect_semi("expected ';' after return statement")?;
                    return Ok(self.stmt(StmtKind::Return(value), start));
                }
                _ => {}
            }
            if self.at_name() && self.peek(1).is(Punct::Colon) {
                let label = name.to_string();
                self.bump();
                self.bump();
                self.ignored_attributes()?;
                let body = self.label_body(in_block);
                return Ok(self.stmt(StmtKind::Labeled { label, body }, start));
            }
            if keyword::is_attribute(name) && !self.starts_decl() {
                self.ignored_attributes()?;
                if self.eat(Punct::Semi) {
                    return Ok(self.stmt(StmtKind::Expr(None), start));
                }
                return Ok(self.statement(in_block));
            }
            if self.starts_decl() {
                // C99 allows no declaration as the body of `if`, a loop or a label.
                self.error("expected expression");
                self.local_declaration(Ctx::Block);
                return Ok(self.stmt(StmtKind::Expr(None), start));
            }
        }
        let e = self.expr()?;
        self.expect_semi("expected ';' after expression")?;
        Ok(self.stmt(StmtKind::Expr(Some(e)), start))
    }

    /// The `:` after `case ...` or `default`. A missing one is reported and assumed (a `;`
    /// in its place is taken for it), as clang does.
    fn label_colon(&mut self, keyword: &str) {
        if self.eat(Punct::Colon) {
            return;
        }
        let message = format!("expected ':' after '{keyword}'");
        if self.at(Punct::Semi) {
            self.error(message);
            self.bump();
        } else {
            self.error_after_prev(message);
        }
    }

    /// The statement after a label. Directly in a block, a label may end the block or
    /// precede a declaration (C23, which compilers accept in C99 too): it then labels an
    /// empty statement and the declaration is the block's next item.
    fn label_body(&mut self, in_block: bool) -> Box<Stmt> {
        if in_block && (self.at(Punct::RBrace) || self.starts_decl()) {
            let span = self.empty_span();
            return Box::new(Stmt {
                kind: StmtKind::Expr(None),
                span,
            });
        }
        Box::new(self.statement(in_block))
    }

    /// `( expression )` after `if`, `while`, `switch`. A broken expression is skipped up to
    /// its `)` so that the statement's body is still parsed.
    fn paren_condition(&mut self, keyword: &str) -> PResult<Expr> {
        let open = self.pos;
        self.expect(Punct::LParen, &format!("expected '(' after '{keyword}'"))?;
        let start = self.pos;
        let cond = self.expr();
        let closed = cond.is_ok() && self.expect_closing(Punct::RParen, open).is_ok();
        if !closed {
            self.skip(&[Punct::RParen, Punct::LBrace, Punct::Semi]);
            self.eat(Punct::RParen);
        }
        Ok(cond.unwrap_or_else(|Fail| self.placeholder(start)))
    }

    fn if_statement(&mut self) -> PResult<Stmt> {
        let start = self.bump();
        let cond = self.paren_condition("if")?;
        let then = Box::new(self.statement(false));
        let otherwise = if self.at_kw("else") {
            self.bump();
            Some(Box::new(self.statement(false)))
        } else {
            None
        };
        Ok(self.stmt(
            StmtKind::If {
                cond,
                then,
                otherwise,
            },
            start,
        ))
    }

    fn while_statement(&mut self) -> PResult<Stmt> {
        let start = self.bump();
        let cond = self.paren_condition("while")?;
        let body = Box::new(self.statement(false));
        Ok(self.stmt(StmtKind::While { cond, body }, start))
    }

    fn do_statement(&mut self) -> PResult<Stmt> {
        let start = self.bump();
        let body = Box::new(self.statement(false));
        if !self.at_kw("while") {
            return Err(self.error("expected 'while' in do/while loop"));
        }
        self.bump();
        let cond = self.paren_condition("while")?;
        self.expect_semi("expected ';' after do/while statement")?;
        Ok(self.stmt(StmtKind::DoWhile { body, cond }, start))
    }

    fn switch_statement(&mut self) -> PResult<Stmt> {
        let start = self.bump();
        let expr = self.paren_condition("switch")?;
        let body = Box::new(self.statement(false));
        Ok(self.stmt(StmtKind::Switch { expr, body }, start))
    }

    fn case_statement(&mut self, in_block: bool) -> PResult<Stmt> {
        let start = self.bump();
        let value = self.conditional_expr()?;
        let high = if self.eat(Punct::Ellipsis) {
            Some(self.conditional_expr()?)
        } else {
            None
        };
        self.label_colon("case");
        let body = self.label_body(in_block);
        Ok(self.stmt(StmtKind::Case { value, high, body }, start))
    }

    fn for_statement(&mut self) -> PResult<Stmt> {
        let start = self.bump();
        let open = self.pos;
        self.expect(Punct::LParen, "expected '(' after 'for'")?;
        self.push_scope();
        let r = self.for_rest(start, open);
        self.pop_scope();
        r
    }

    /// One expression clause of a `for` header; a broken one marks the header `broken`.
    fn for_clause(&mut self, broken: &mut bool) -> Option<Expr> {
        match self.expr() {
            Ok(e) => Some(e),
            Err(Fail) => {
                *broken = true;
                None
            }
        }
    }

    /// The `;` after a `for` clause.
    fn for_semi(&mut self, broken: &mut bool) {
        if !*broken && !self.eat(Punct::Semi) {
            self.error_after_prev("expected ';' in 'for' statement specifier");
            *broken = true;
        }
    }

    /// After `for (`: the clauses, `)` and the body. Once the header is broken the rest of it
    /// is skipped, and the body is still parsed.
    fn for_rest(&mut self, start: usize, open: usize) -> PResult<Stmt> {
        let mut broken = false;
        let init = if self.eat(Punct::Semi) {
            ForInit::None
        } else if self.starts_decl() {
            match self.local_declaration(Ctx::ForInit) {
                Some(d) => ForInit::Decl(d),
                None => ForInit::None,
            }
        } else {
            let e = self.for_clause(&mut broken);
            self.for_semi(&mut broken);
            e.map_or(ForInit::None, ForInit::Expr)
        };
        let cond = if broken || self.at(Punct::Semi) {
            None
        } else {
            self.for_clause(&mut broken)
        };
        self.for_semi(&mut broken);
        let step = if broken || self.at(Punct::RParen) {
            None
        } else {
            self.for_clause(&mut broken)
        };
        if broken {
            self.skip(&[Punct::RParen, Punct::LBrace]);
            self.eat(Punct::RParen);
        } else if self.expect_closing(Punct::RParen, open).is_err() {
            self.skip(&[Punct::RParen, Punct::LBrace, Punct::Semi]);
            self.eat(Punct::RParen);
        }
        let body = Box::new(self.statement(false));
        Ok(self.stmt(
            StmtKind::For {
                init,
                cond,
                step,
                body,
            },
            start,
        ))
    }
}
