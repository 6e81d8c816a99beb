//! Expressions, by precedence climbing over C's binary operators.

use super::literal::{self, LitError, Number};
use super::{keyword, Fail, PResult, Parser};
use crate::ast::{BinaryOp, Expr, ExprKind, Initializer, UnaryOp};
use crate::diag::Diagnostic;
use crate::token::{Punct, Token, TokenKind};

/// A binary operator and its precedence (higher binds tighter).
fn binary_op(t: &Token) -> Option<(BinaryOp, u8)> {
    let TokenKind::Punct(p) = t.kind else {
        return None;
    };
    Some(match p {
        Punct::Star => (BinaryOp::Mul, 10),
        Punct::Slash => (BinaryOp::Div, 10),
        Punct::Percent => (BinaryOp::Rem, 10),
        Punct::Plus => (BinaryOp::Add, 9),
        Punct::Minus => (BinaryOp::Sub, 9),
        Punct::Shl => (BinaryOp::Shl, 8),
        Punct::Shr => (BinaryOp::Shr, 8),
        Punct::Lt => (BinaryOp::Lt, 7),
        Punct::Gt => (BinaryOp::Gt, 7),
        Punct::Le => (BinaryOp::Le, 7),
        Punct::Ge => (BinaryOp::Ge, 7),
        Punct::EqEq => (BinaryOp::Eq, 6),
        Punct::Ne => (BinaryOp::Ne, 6),
        Punct::Amp => (BinaryOp::BitAnd, 5),
        Punct::Caret => (BinaryOp::BitXor, 4),
        Punct::Pipe => (BinaryOp::BitOr, 3),
        Punct::AmpAmp => (BinaryOp::LogAnd, 2),
        Punct::PipePipe => (BinaryOp::LogOr, 1),
        _ => return None,
    })
}

/// An assignment operator: `Some(None)` for `=`, `Some(Some(op))` for `op=`.
fn assign_op(t: &Token) -> Option<Option<BinaryOp>> {
    let TokenKind::Punct(p) = t.kind else {
        return None;
    };
    Some(match p {
        Punct::Assign => None,
        Punct::StarAssign => Some(BinaryOp::Mul),
        Punct::SlashAssign => Some(BinaryOp::Div),
        Punct::PercentAssign => Some(BinaryOp::Rem),
        Punct::PlusAssign => Some(BinaryOp::Add),
        Punct::MinusAssign => Some(BinaryOp::Sub),
        Punct::ShlAssign => Some(BinaryOp::Shl),
        Punct::ShrAssign => Some(BinaryOp::Shr),
        Punct::AmpAssign => Some(BinaryOp::BitAnd),
        Punct::CaretAssign => Some(BinaryOp::BitXor),
        Punct::PipeAssign => Some(BinaryOp::BitOr),
        _ => return None,
    })
}

/// A prefix operator and whether its operand is a cast expression (rather than a unary one).
fn prefix_op(t: &Token) -> Option<(UnaryOp, bool)> {
    let TokenKind::Punct(p) = t.kind else {
        return None;
    };
    Some(match p {
        Punct::PlusPlus => (UnaryOp::PreInc, false),
        Punct::MinusMinus => (UnaryOp::PreDec, false),
        Punct::Amp => (UnaryOp::AddrOf, true),
        Punct::Star => (UnaryOp::Deref, true),
        Punct::Plus => (UnaryOp::Plus, true),
        Punct::Minus => (UnaryOp::Minus, true),
        Punct::Tilde => (UnaryOp::BitNot, true),
        Punct::Bang => (UnaryOp::Not, true),
        _ => return None,
    })
}

impl Parser<'_, '_> {
    /// An expression, commas included.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let mut chain = 0;
        let r = self.comma_chain(start, &mut chain);
        self.height -= chain;
        r
    }

    fn comma_chain(&mut self, start: usize, chain: &mut u32) -> PResult<Expr> {
        let mut e = self.assign_expr()?;
        while self.eat(Punct::Comma) {
            let rhs = self.assign_expr()?;
            self.grow(chain)?;
            e = self.expr_at(ExprKind::Comma(Box::new(e), Box::new(rhs)), start);
        }
        Ok(e)
    }

    /// An assignment expression (what a function argument or initializer is).
    pub(super) fn assign_expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.assign_inner())
    }

    fn assign_inner(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let lhs = self.conditional_expr()?;
        let Some(op) = assign_op(self.tok()) else {
            return Ok(lhs);
        };
        self.bump();
        let rhs = self.assign_expr()?;
        Ok(self.expr_at(
            ExprKind::Assign {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            start,
        ))
    }

    /// A conditional expression (what a constant expression is).
    pub(super) fn conditional_expr(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let cond = self.binary(1)?;
        if !self.at(Punct::Question) {
            return Ok(cond);
        }
        let q = self.bump();
        if self.at(Punct::Colon) {
            return Err(self.unsupported_at(q, "conditional operator with omitted middle operand"));
        }
        let then = self.expr()?;
        if !self.eat(Punct::Colon) {
            let d = self
                .diag_at(self.pos, |s| Diagnostic::error(s, "expected ':'"))
                .with_note("to match this '?'", Some(self.toks[q].span));
            self.report(d);
            return Err(Fail);
        }
        let otherwise = self.nested(|p| p.conditional_expr())?;
        Ok(self.expr_at(
            ExprKind::Conditional {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            start,
        ))
    }

    /// Binary operators of precedence `min` and higher, left-associative.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let start = self.pos;
        let mut chain = 0;
        let r = self.binary_chain(start, min, &mut chain);
        self.height -= chain;
        r
    }

    fn binary_chain(&mut self, start: usize, min: u8, chain: &mut u32) -> PResult<Expr> {
        let mut lhs = self.cast_expr()?;
        while let Some((op, prec)) = binary_op(self.tok()) {
            if prec < min {
                break;
            }
            self.bump();
            let rhs = self.binary(prec + 1)?;
            self.grow(chain)?;
            lhs = self.expr_at(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), start);
        }
        Ok(lhs)
    }

    /// A cast, compound literal or vector literal, or else a unary expression.
    fn cast_expr(&mut self) -> PResult<Expr> {
        if !(self.at(Punct::LParen) && self.starts_type_name_at(self.pos + 1)) {
            return self.unary_expr();
        }
        let start = self.bump();
        let ty = self.type_name()?;
        self.expect_closing(Punct::RParen, start)?;
        if self.at(Punct::LBrace) {
            let init = self.init_list()?;
            let e = self.expr_at(
                ExprKind::CompoundLiteral(Box::new(ty), Box::new(init)),
                start,
            );
            return self.postfix_tail(e, start);
        }
        if self.at(Punct::LParen) && self.is_vector_type(&ty) {
            let init = self.vector_literal()?;
            let e = self.expr_at(
                ExprKind::CompoundLiteral(Box::new(ty), Box::new(init)),
                start,
            );
            return self.postfix_tail(e, start);
        }
        let operand = self.nested(|p| p.cast_expr())?;
        Ok(self.expr_at(ExprKind::Cast(Box::new(ty), Box::new(operand)), start))
    }

    /// `( a, b, ... )` after a vector type in parentheses.
    fn vector_literal(&mut self) -> PResult<Initializer> {
        let open = self.bump();
        let mut items = Vec::new();
        loop {
            items.push((Vec::new(), Initializer::Expr(self.assign_expr()?)));
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect_closing(Punct::RParen, open)?;
        Ok(Initializer::List {
            items,
            span: self.span_from(open),
        })
    }

    fn unary_expr(&mut self) -> PResult<Expr> {
        let start = self.pos;
        if let Some((op, cast_operand)) = prefix_op(self.tok()) {
            self.bump();
            let operand = if cast_operand {
                self.nested(|p| p.cast_expr())?
            } else {
                self.nested(|p| p.unary_expr())?
            };
            return Ok(self.expr_at(ExprKind::Unary(op, Box::new(operand)), start));
        }
        match self.ident() {
            Some("sizeof") => self.sizeof_expr(),
            Some(n) if keyword::is_alignof(n) => self.alignof_expr(),
            Some("vec_step") => self.vec_step_expr(),
            Some("__extension__") => {
                self.bump();
                self.nested(|p| p.cast_expr())
            }
            _ => self.postfix_expr(),
        }
    }

    fn sizeof_expr(&mut self) -> PResult<Expr> {
        let start = self.bump();
        if self.at(Punct::LParen) && self.starts_type_name_at(self.pos + 1) {
            let open = self.bump();
            let ty = self.type_name()?;
            self.expect_closing(Punct::RParen, open)?;
            if !self.at(Punct::LBrace) {
                return Ok(self.expr_at(ExprKind::SizeofType(Box::new(ty)), start));
            }
            let init = self.init_list()?;
            let lit = self.expr_at(
                ExprKind::CompoundLiteral(Box::new(ty), Box::new(init)),
                open,
            );
            let lit = self.postfix_tail(lit, open)?;
            return Ok(self.expr_at(ExprKind::SizeofExpr(Box::new(lit)), start));
        }
        let operand = self.nested(|p| p.unary_expr())?;
        Ok(self.expr_at(ExprKind::SizeofExpr(Box::new(operand)), start))
    }

    fn alignof_expr(&mut self) -> PResult<Expr> {
        let start = self.bump();
        if self.at(Punct::LParen) && self.starts_type_name_at(self.pos + 1) {
            let open = self.bump();
            let ty = self.type_name()?;
            self.expect_closing(Punct::RParen, open)?;
            return Ok(self.expr_at(ExprKind::AlignofType(Box::new(ty)), start));
        }
        let what = format!("'{}' of an expression", self.toks[start].text);
        Err(self.unsupported_at(start, what))
    }

    /// `vec_step(expr)` or `vec_step(type)`, as a call of `vec_step`.
    fn vec_step_expr(&mut self) -> PResult<Expr> {
        let start = self.bump();
        let callee = self.expr_at(ExprKind::Ident("vec_step".into()), start);
        let arg = if self.at(Punct::LParen) && self.starts_type_name_at(self.pos + 1) {
            let open = self.bump();
            let ty_start = self.pos;
            let ty = self.type_name()?;
            let arg = self.expr_at(ExprKind::TypeArg(Box::new(ty)), ty_start);
            self.expect_closing(Punct::RParen, open)?;
            arg
        } else {
            self.nested(|p| p.unary_expr())?
        };
        Ok(self.expr_at(
            ExprKind::Call {
                callee: Box::new(callee),
                args: vec![arg],
            },
            start,
        ))
    }

    fn postfix_expr(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let e = self.primary()?;
        self.postfix_tail(e, start)
    }

    /// Postfix operators applied to `e`, which began at token `start`.
    fn postfix_tail(&mut self, e: Expr, start: usize) -> PResult<Expr> {
        let mut chain = 0;
        let r = self.postfix_chain(e, start, &mut chain);
        self.height -= chain;
        r
    }

    fn postfix_chain(&mut self, mut e: Expr, start: usize, chain: &mut u32) -> PResult<Expr> {
        loop {
            let kind = if self.at(Punct::LBracket) {
                let open = self.bump();
                let index = self.expr()?;
                self.expect_closing(Punct::RBracket, open)?;
                ExprKind::Index(Box::new(e), Box::new(index))
            } else if self.at(Punct::LParen) {
                let open = self.bump();
                let mut args = Vec::new();
                if !self.at(Punct::RParen) {
                    loop {
                        args.push(self.assign_expr()?);
                        if !self.eat(Punct::Comma) {
                            break;
                        }
                    }
                }
                self.expect_closing(Punct::RParen, open)?;
                ExprKind::Call {
                    callee: Box::new(e),
                    args,
                }
            } else if self.at(Punct::Dot) || self.at(Punct::Arrow) {
                let arrow = self.at(Punct::Arrow);
                self.bump();
                if !self.at_name() {
                    return Err(self.error("expected identifier"));
                }
                let field = self.tok().text.clone();
                self.bump();
                ExprKind::Member {
                    base: Box::new(e),
                    field,
                    arrow,
                }
            } else if self.at(Punct::PlusPlus) || self.at(Punct::MinusMinus) {
                let op = if self.at(Punct::PlusPlus) {
                    UnaryOp::PostInc
                } else {
                    UnaryOp::PostDec
                };
                self.bump();
                ExprKind::Unary(op, Box::new(e))
            } else {
                return Ok(e);
            };
            self.grow(chain)?;
            e = self.expr_at(kind, start);
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let t = self.tok();
        let kind = match &t.kind {
            TokenKind::Ident => {
                if keyword::is_reserved(&t.text) {
                    return Err(self.error("expected expression"));
                }
                self.bump();
                ExprKind::Ident(t.text.clone())
            }
            TokenKind::Int | TokenKind::Float => {
                self.bump();
                match literal::number(&t.text) {
                    Ok(Number::Int {
                        value,
                        suffix,
                        decimal,
                    }) => ExprKind::IntLit {
                        value,
                        suffix,
                        decimal,
                    },
                    Ok(Number::Float { text, suffix }) => ExprKind::FloatLit { text, suffix },
                    Err(e) => {
                        self.literal_error(start, e);
                        return Ok(self.placeholder(start));
                    }
                }
            }
            TokenKind::Char => {
                self.bump();
                match literal::char_const(&t.text) {
                    Ok((value, warnings)) => {
                        for w in warnings {
                            self.warning_at(start, w);
                        }
                        ExprKind::CharLit(value)
                    }
                    Err(e) => {
                        self.literal_error(start, e);
                        ExprKind::CharLit(0)
                    }
                }
            }
            TokenKind::Str => {
                let mut bytes = Vec::new();
                while self.tok().kind == TokenKind::Str {
                    let i = self.bump();
                    match literal::string_lit(&self.toks[i].text) {
                        Ok((b, warnings)) => {
                            bytes.extend(b);
                            for w in warnings {
                                self.warning_at(i, w);
                            }
                        }
                        Err(e) => self.literal_error(i, e),
                    }
                }
                ExprKind::StrLit(bytes)
            }
            TokenKind::Punct(Punct::LParen) => {
                if self.peek(1).is(Punct::LBrace) {
                    return Err(self.unsupported_at(start, "statement expressions"));
                }
                let open = self.bump();
                let e = self.expr()?;
                self.expect_closing(Punct::RParen, open)?;
                return Ok(e);
            }
            _ => return Err(self.error("expected expression")),
        };
        Ok(self.expr_at(kind, start))
    }

    fn literal_error(&mut self, at: usize, e: LitError) {
        match e {
            LitError::Invalid(message) => self.error_at(at, message),
            LitError::Unsupported(what) => self.unsupported_at(at, what),
        };
    }
}
