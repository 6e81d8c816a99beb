//! Constant expressions: integers (decimal, `0x`, `0b`, `0o`), symbols, `.` (the current
//! address), parentheses, unary `- ~ +`, and binary `* / % + - << >> & ^ |` with C
//! precedence (`/` and `%` truncate toward zero, as in C; a zero divisor is an error).
//! Values are `i128` so every 64-bit spelling, signed or unsigned, is exact; every operation
//! is checked and overflow is reported, never wrapped.

use crate::error::ErrorKind;
use crate::lex::{ident_end, is_ident_start};
use crate::Section;

/// A value and, for a label address (or a label plus a constant), the section it lies in;
/// `None` means an absolute constant (numbers, label differences).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Val {
    pub v: i128,
    pub sec: Option<Section>,
}

impl Val {
    pub const fn abs(v: i128) -> Val {
        Val { v, sec: None }
    }
}

pub enum Lookup {
    Found(Val),
    /// Defined, but its value is not known yet (a forward `.equ`).
    Pending,
    Undefined,
}

pub trait Resolve {
    fn symbol(&self, name: &str) -> Lookup;
    fn here(&self) -> Val;
    /// A similar defined name, for "did you mean".
    fn similar(&self, _name: &str) -> Option<String> {
        None
    }
    /// The numeric local label `number:` nearest behind (`1b`) or ahead (`1f`).
    fn local_label(&self, _number: u32, _forward: bool) -> Lookup {
        Lookup::Undefined
    }
}

/// An error inside an expression; `start..end` are byte offsets into the line.
#[derive(Debug)]
pub struct ExprError {
    pub start: usize,
    pub end: usize,
    pub kind: Box<ErrorKind>,
    /// The expression refers to a symbol whose value is not known yet.
    pub pending: bool,
}

const MAX_DEPTH: u32 = 64;

struct Parser<'a, R> {
    b: &'a [u8],
    line: &'a str,
    pos: usize,
    end: usize,
    depth: u32,
    r: &'a R,
}

/// Evaluate the expression that is exactly `line[start..end]` (surrounding blanks allowed).
pub fn eval<R: Resolve>(line: &str, start: usize, end: usize, r: &R) -> Result<Val, ExprError> {
    let mut p = Parser {
        b: line.as_bytes(),
        line,
        pos: start,
        end,
        depth: 0,
        r,
    };
    let v = p.binary(0)?;
    p.ws();
    if p.pos < p.end {
        return Err(p.err_here(format!(
            "unexpected `{}` after the expression; expected an operator or `,`",
            p.token_text()
        )));
    }
    Ok(v)
}

/// Binary operators by precedence level, loosest first.
const LEVELS: &[&[&str]] = &[
    &["|"],
    &["^"],
    &["&"],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl<R: Resolve> Parser<'_, R> {
    fn ws(&mut self) {
        while self.pos < self.end && matches!(self.b[self.pos], b' ' | b'\t') {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.b[self.pos])
    }

    fn token_text(&self) -> String {
        let rest = &self.line[self.pos..self.end];
        match rest.chars().next() {
            Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '.' => {
                let e = ident_end(self.b, self.pos).min(self.end).max(self.pos + 1);
                self.line[self.pos..e].to_string()
            }
            Some(c) => c.to_string(),
            None => "end of operand".into(),
        }
    }

    fn err(&self, start: usize, end: usize, msg: String) -> ExprError {
        ExprError {
            start,
            end: end.max(start + 1),
            kind: Box::new(ErrorKind::Syntax(msg)),
            pending: false,
        }
    }

    fn err_here(&self, msg: String) -> ExprError {
        let len = self.line[self.pos..self.end]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        self.err(self.pos, self.pos + len, msg)
    }

    fn binary(&mut self, level: usize) -> Result<Val, ExprError> {
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let mut lhs = self.binary(level + 1)?;
        loop {
            self.ws();
            let start = self.pos;
            let Some(op) = ops
                .iter()
                .find(|op| self.line[self.pos..self.end].starts_with(**op))
            else {
                return Ok(lhs);
            };
            self.pos += op.len();
            let rhs = self.binary(level + 1)?;
            lhs = apply(op, lhs, rhs).map_err(|kind| ExprError {
                start,
                end: start + op.len(),
                kind: Box::new(kind),
                pending: false,
            })?;
        }
    }

    fn unary(&mut self) -> Result<Val, ExprError> {
        self.ws();
        if !matches!(self.peek(), Some(b'-' | b'+' | b'~')) {
            return self.primary();
        }
        // Each prefix operator recurses: bound the depth like parentheses.
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err_here(format!(
                "expression nested more than {MAX_DEPTH} operators deep"
            )));
        }
        let v = self.prefixed();
        self.depth -= 1;
        v
    }

    fn prefixed(&mut self) -> Result<Val, ExprError> {
        let start = self.pos;
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                let v = self.unary()?;
                let n = v.v.checked_neg().ok_or(ExprError {
                    start,
                    end: start + 1,
                    kind: Box::new(ErrorKind::Overflow { op: "-" }),
                    pending: false,
                })?;
                Ok(Val::abs(n))
            }
            Some(b'+') => {
                self.pos += 1;
                self.unary()
            }
            Some(b'~') => {
                self.pos += 1;
                let v = self.unary()?;
                Ok(Val::abs(!v.v))
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Val, ExprError> {
        self.ws();
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Err(self.err(
                start.saturating_sub(1),
                start,
                "expected an expression (a number, a symbol or `(`)".into(),
            ));
        };
        if c == b'(' {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.err_here(format!(
                    "expression nested more than {MAX_DEPTH} parentheses deep"
                )));
            }
            self.pos += 1;
            let v = self.binary(0)?;
            self.ws();
            if self.peek() != Some(b')') {
                return Err(self.err_here(format!(
                    "expected `)` to close the `(` at column {}, found {}",
                    start + 1,
                    describe(&self.token_text())
                )));
            }
            self.pos += 1;
            self.depth -= 1;
            return Ok(v);
        }
        if c.is_ascii_digit() {
            return self.number();
        }
        if is_ident_start(c) {
            let e = ident_end(self.b, self.pos).min(self.end);
            let name = &self.line[self.pos..e];
            self.pos = e;
            if name == "." {
                return Ok(self.r.here());
            }
            return match self.r.symbol(name) {
                Lookup::Found(v) => Ok(v),
                Lookup::Pending => Err(ExprError {
                    start,
                    end: e,
                    kind: Box::new(ErrorKind::UndefinedSymbol {
                        name: name.into(),
                        suggestion: None,
                    }),
                    pending: true,
                }),
                Lookup::Undefined => Err(ExprError {
                    start,
                    end: e,
                    kind: Box::new(ErrorKind::UndefinedSymbol {
                        name: name.into(),
                        suggestion: self.r.similar(name),
                    }),
                    pending: false,
                }),
            };
        }
        Err(self.err_here(format!(
            "expected an expression (a number, a symbol or `(`), found {}",
            describe(&self.token_text())
        )))
    }

    fn number(&mut self) -> Result<Val, ExprError> {
        let start = self.pos;
        let e = ident_end(self.b, self.pos).min(self.end);
        let text = &self.line[start..e];
        self.pos = e;
        // `1b` / `1f`: the numeric local label `1:` behind or ahead.
        if let Some((&dir @ (b'b' | b'f'), digits)) = text.as_bytes().split_last() {
            if !digits.is_empty() && digits.len() <= 9 && digits.iter().all(u8::is_ascii_digit) {
                let n: u32 = text[..digits.len()].parse().unwrap_or(0);
                let forward = dir == b'f';
                return match self.r.local_label(n, forward) {
                    Lookup::Found(v) => Ok(v),
                    _ => Err(ExprError {
                        start,
                        end: e,
                        kind: Box::new(ErrorKind::NoLocalLabel {
                            reference: text.into(),
                            label: n,
                            forward,
                        }),
                        pending: false,
                    }),
                };
            }
        }
        let (digits, radix) = match text.get(..2) {
            Some("0x" | "0X") => (&text[2..], 16),
            Some("0b" | "0B") => (&text[2..], 2),
            Some("0o" | "0O") => (&text[2..], 8),
            _ => (text, 10),
        };
        if radix == 10 && digits.contains(['.', 'e', 'E']) {
            return Err(self.err(
                start,
                e,
                format!("`{text}` is not an integer (fp32 literals are only allowed as a whole `k32` operand)"),
            ));
        }
        let digits: String;
        let clean = if text.contains('_') {
            digits = text[if radix == 10 { 0 } else { 2 }..].replace('_', "");
            digits.as_str()
        } else {
            &text[if radix == 10 { 0 } else { 2 }..]
        };
        match u64::from_str_radix(clean, radix) {
            Ok(v) if !clean.starts_with('+') => Ok(Val::abs(i128::from(v))),
            _ => {
                let what = match radix {
                    16 => "hexadecimal",
                    2 => "binary",
                    8 => "octal",
                    _ => "decimal",
                };
                let msg = if !clean.is_empty() && clean.chars().all(|c| c.is_digit(radix)) {
                    format!("`{text}` does not fit in 64 bits")
                } else {
                    format!("`{text}` is not a valid {what} number")
                };
                Err(self.err(start, e, msg))
            }
        }
    }
}

fn describe(tok: &str) -> String {
    if tok == "end of operand" {
        tok.into()
    } else {
        format!("`{tok}`")
    }
}

fn apply(op: &str, a: Val, b: Val) -> Result<Val, ErrorKind> {
    let over = |op| ErrorKind::Overflow { op };
    Ok(match op {
        "+" => Val {
            v: a.v.checked_add(b.v).ok_or(over("+"))?,
            sec: match (a.sec, b.sec) {
                (Some(s), None) | (None, Some(s)) => Some(s),
                _ => None,
            },
        },
        "-" => Val {
            v: a.v.checked_sub(b.v).ok_or(over("-"))?,
            sec: match (a.sec, b.sec) {
                (Some(s), None) => Some(s),
                _ => None,
            },
        },
        "*" => Val::abs(a.v.checked_mul(b.v).ok_or(over("*"))?),
        "/" | "%" => {
            if b.v == 0 {
                return Err(ErrorKind::DivisionByZero {
                    op: if op == "/" { "/" } else { "%" },
                });
            }
            Val::abs(if op == "/" {
                a.v.checked_div(b.v).ok_or(over("/"))?
            } else {
                a.v.checked_rem(b.v).ok_or(over("%"))?
            })
        }
        "<<" | ">>" => {
            if !(0..128).contains(&b.v) {
                return Err(ErrorKind::BadShift { amount: b.v });
            }
            let n = b.v as u32;
            if op == "<<" {
                let r = a.v.checked_shl(n).ok_or(over("<<"))?;
                if r >> n != a.v {
                    return Err(over("<<"));
                }
                Val::abs(r)
            } else {
                Val::abs(a.v >> n)
            }
        }
        "&" => Val::abs(a.v & b.v),
        "^" => Val::abs(a.v ^ b.v),
        _ => Val::abs(a.v | b.v),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoSyms;
    impl Resolve for NoSyms {
        fn symbol(&self, name: &str) -> Lookup {
            if name == "four" {
                Lookup::Found(Val::abs(4))
            } else {
                Lookup::Undefined
            }
        }
        fn here(&self) -> Val {
            Val {
                v: 16,
                sec: Some(Section::Text),
            }
        }
    }

    fn ev(s: &str) -> Result<i128, String> {
        eval(s, 0, s.len(), &NoSyms)
            .map(|v| v.v)
            .map_err(|e| e.kind.to_string())
    }

    #[test]
    fn arithmetic() {
        assert_eq!(ev("1 + 2 * 3"), Ok(7));
        assert_eq!(ev("(1 + 2) * 3"), Ok(9));
        assert_eq!(ev("1 << 4 | 1"), Ok(17));
        assert_eq!(ev("0xff & ~0xf"), Ok(0xf0));
        assert_eq!(ev("-four"), Ok(-4));
        assert_eq!(ev("0b101 ^ 1"), Ok(4));
        assert_eq!(ev(". + 4"), Ok(20));
        assert_eq!(ev("0xffffffffffffffff"), Ok(0xffff_ffff_ffff_ffff));
        assert_eq!(ev("1_000"), Ok(1000));
        assert_eq!(ev("-8 >> 1"), Ok(-4));
        assert_eq!(ev("7 / 2"), Ok(3));
        assert_eq!(ev("-7 / 2"), Ok(-3));
        assert_eq!(ev("-7 % 2"), Ok(-1));
        assert_eq!(ev("1 + 10 % 4 * 3"), Ok(7));
        assert_eq!(ev("64 / 4 / 2"), Ok(8));
        assert_eq!(ev("1 | 6 & 3 ^ 1 << 2"), Ok(7));
        assert_eq!(ev("~0 & 0xff"), Ok(0xff));
    }

    #[test]
    fn errors() {
        assert!(ev("1 +").is_err());
        assert!(ev("(1").is_err());
        assert!(ev("1 2").is_err());
        assert!(ev("1 << 200").is_err());
        assert!(ev("0x").is_err());
        assert!(ev("99999999999999999999").is_err());
        assert!(ev(&"(".repeat(1000)).is_err());
        assert!(ev(&"-".repeat(100_000)).is_err());
        let many = vec!["-1"; 200].join(" + ");
        assert_eq!(ev(&many), Ok(-200));
        assert!(ev("(1 << 100) * (1 << 100)").is_err());
        assert!(ev("nope").unwrap_err().contains("undefined symbol `nope`"));
        assert_eq!(ev("1 / 0").unwrap_err(), "division by zero in `/`");
        assert_eq!(ev("1 % (2 - 2)").unwrap_err(), "division by zero in `%`");
        let e = eval("4 / 0", 0, 5, &NoSyms).unwrap_err();
        assert_eq!((e.start, e.end), (2, 3));
    }
}
