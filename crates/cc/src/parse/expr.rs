//! Expressions, by precedence climbing over C's binary operators.

use super::literal::{self, LitError, Number};
use super::{keyword, Fail, PResult, Parser};
use crate::ast::{BinaryOp, Expr, ExprKind, Initializer, TypeName, UnaryOp};
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
    /// A node of height `height` (one more than its tallest child) spanning the tokens
    /// from `start`. Every function that returns an expression leaves its height in
    /// `last_height`.
    fn node(&mut self, kind: ExprKind, start: usize, height: u32) -> PResult<Expr> {
        self.set_height(height)?;
        Ok(self.expr_at(kind, start))
    }

    /// An expression, commas included.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let mut e = self.assign_expr()?;
        let mut h = self.last_height;
        while self.eat(Punct::Comma) {
            let rhs = self.assign_expr()?;
            h = h.max(self.last_height) + 1;
            e = self.node(ExprKind::Comma(Box::new(e), Box::new(rhs)), start, h)?;
        }
        self.last_height = h;
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
        let lh = self.last_height;
        self.bump();
        let rhs = self.assign_expr()?;
        let h = lh.max(self.last_height) + 1;
        self.node(
            ExprKind::Assign {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            start,
            h,
        )
    }

    /// A conditional expression (what a constant expression is).
    pub(super) fn conditional_expr(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let cond = self.binary_expr()?;
        if !self.at(Punct::Question) {
            return Ok(cond);
        }
        let mut h = self.last_height;
        let q = self.bump();
        if self.at(Punct::Colon) {
            return Err(self.unsupported_at(q, "conditional operator with omitted middle operand"));
        }
        let then = self.expr()?;
        h = h.max(self.last_height);
        if !self.eat(Punct::Colon) {
            let d = self
                .diag_at(self.pos, |s| Diagnostic::error(s, "expected ':'"))
                .with_note("to match this '?'", Some(self.toks[q].span));
            self.report(d);
            return Err(Fail);
        }
        let otherwise = self.nested(|p| p.conditional_expr())?;
        h = h.max(self.last_height) + 1;
        self.node(
            ExprKind::Conditional {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            start,
            h,
        )
    }

    /// Binary operators, left-associative, by precedence. An explicit operator stack
    /// rather than a recursion per precedence level keeps the parser's stack shallow.
    fn binary_expr(&mut self) -> PResult<Expr> {
        // Each operand with the token it began at and its height.
        let mut operands = vec![(self.pos, self.cast_expr()?, self.last_height)];
        let mut ops: Vec<(BinaryOp, u8)> = Vec::new();
        loop {
            let next = binary_op(self.tok());
            while let Some(&(op, prec)) = ops.last() {
                if next.is_some_and(|(_, p)| p > prec) {
                    break;
                }
                ops.pop();
                let (Some((_, rhs, rh)), Some((start, lhs, lh))) = (operands.pop(), operands.pop())
                else {
                    break;
                };
                let h = lh.max(rh) + 1;
                let e = self.node(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), start, h)?;
                operands.push((start, e, h));
            }
            let Some((op, prec)) = next else { break };
            self.bump();
            ops.push((op, prec));
            let start = self.pos;
            let e = self.cast_expr()?;
            operands.push((start, e, self.last_height));
        }
        match operands.pop() {
            Some((_, e, h)) => {
                self.last_height = h;
                Ok(e)
            }
            None => Err(Fail),
        }
    }

    /// A type name inside an expression, with the height it adds to the expression (that
    /// of the expressions in it, such as array sizes).
    fn inner_type_name(&mut self) -> PResult<(TypeName, u32)> {
        self.with_peak_height(|p| p.type_name())
    }

    /// A cast, compound literal or vector literal, or else a unary expression.
    fn cast_expr(&mut self) -> PResult<Expr> {
        if !(self.at(Punct::LParen) && self.starts_type_name_at(self.pos + 1)) {
            return self.unary_expr();
        }
        let start = self.bump();
        let (ty, th) = self.inner_type_name()?;
        self.expect_closing(Punct::RParen, start)?;
        let literal = if self.at(Punct::LBrace) {
            Some(self.with_peak_height(|p| p.init_list())?)
        } else if self.at(Punct::LParen) && self.is_vector_type(&ty) {
            Some(self.with_peak_height(|p| p.vector_literal())?)
        } else {
            None
        };
        if let Some((init, ih)) = literal {
            let h = th.max(ih) + 2;
            let e = self.node(
                ExprKind::CompoundLiteral(Box::new(ty), Box::new(init)),
                start,
                h,
            )?;
            return self.postfix_tail(e, start);
        }
        let operand = self.nested(|p| p.cast_expr())?;
        let h = th.max(self.last_height) + 1;
        self.node(ExprKind::Cast(Box::new(ty), Box::new(operand)), start, h)
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
            let h = self.last_height + 1;
            return self.node(ExprKind::Unary(op, Box::new(operand)), start, h);
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
            let (ty, th) = self.inner_type_name()?;
            self.expect_closing(Punct::RParen, open)?;
            if !self.at(Punct::LBrace) {
                return self.node(ExprKind::SizeofType(Box::new(ty)), start, th + 2);
            }
            let (init, ih) = self.with_peak_height(|p| p.init_list())?;
            let lit = self.node(
                ExprKind::CompoundLiteral(Box::new(ty), Box::new(init)),
                open,
                th.max(ih) + 2,
            )?;
            let lit = self.postfix_tail(lit, open)?;
            let h = self.last_height + 1;
            return self.node(ExprKind::SizeofExpr(Box::new(lit)), start, h);
        }
        let operand = self.nested(|p| p.unary_expr())?;
        let h = self.last_height + 1;
        self.node(ExprKind::SizeofExpr(Box::new(operand)), start, h)
    }

    fn alignof_expr(&mut self) -> PResult<Expr> {
        let start = self.bump();
        if self.at(Punct::LParen) && self.starts_type_name_at(self.pos + 1) {
            let open = self.bump();
            let (ty, th) = self.inner_type_name()?;
            self.expect_closing(Punct::RParen, open)?;
            return self.node(ExprKind::AlignofType(Box::new(ty)), start, th + 2);
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
            let (ty, th) = self.inner_type_name()?;
            let arg = self.node(ExprKind::TypeArg(Box::new(ty)), ty_start, th + 2)?;
            self.expect_closing(Punct::RParen, open)?;
            arg
        } else {
            self.nested(|p| p.unary_expr())?
        };
        let h = self.last_height + 1;
        self.node(
            ExprKind::Call {
                callee: Box::new(callee),
                args: vec![arg],
            },
            start,
            h,
        )
    }

    fn postfix_expr(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let e = self.primary()?;
        self.postfix_tail(e, start)
    }

    /// Postfix operators applied to `e` (whose height is in `last_height`), which began at
    /// token `start`.
    fn postfix_tail(&mut self, mut e: Expr, start: usize) -> PResult<Expr> {
        let mut h = self.last_height;
        loop {
            let kind = if self.at(Punct::LBracket) {
                let open = self.bump();
                let index = self.expr()?;
                h = h.max(self.last_height);
                self.expect_closing(Punct::RBracket, open)?;
                ExprKind::Index(Box::new(e), Box::new(index))
            } else if self.at(Punct::LParen) {
                let open = self.bump();
                let mut args = Vec::new();
                if !self.at(Punct::RParen) {
                    loop {
                        args.push(self.assign_expr()?);
                        h = h.max(self.last_height);
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
                self.last_height = h;
                return Ok(e);
            };
            h += 1;
            e = self.node(kind, start, h)?;
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
                        self.set_height(1)?;
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
                // The parenthesized expression itself, with its height.
                let e = self.expr()?;
                self.expect_closing(Punct::RParen, open)?;
                return Ok(e);
            }
            _ => return Err(self.error("expected expression")),
        };
        self.node(kind, start, 1)
    }

    fn literal_error(&mut self, at: usize, e: LitError) {
        match e {
            LitError::Invalid(message) => self.error_at(at, message),
            LitError::Unsupported(what) => self.unsupported_at(at, what),
        };
    }
}
