//! `#if` constant expressions (C99 §6.10.1): `intmax_t`/`uintmax_t` arithmetic in 64 bits
//! with the usual arithmetic conversions, on a line that has been macro-expanded and whose
//! `defined` operators are already `1` or `0`. Identifiers left are `0`.

use super::{PpKind, PpToken};
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::Span;
use crate::token::Punct;

/// Parentheses and unary operators may nest this deep.
const MAX_DEPTH: u32 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    Signed(i64),
    Unsigned(u64),
}

impl Value {
    fn bits(self) -> u64 {
        match self {
            Value::Signed(v) => v as u64,
            Value::Unsigned(v) => v,
        }
    }

    fn truthy(self) -> bool {
        self.bits() != 0
    }

    fn unsigned(self) -> bool {
        matches!(self, Value::Unsigned(_))
    }

    fn bool(b: bool) -> Value {
        Value::Signed(i64::from(b))
    }
}

/// The value of the expression `toks` of a `#if` or `#elif` at `at`; errors are reported
/// and make it false.
pub(crate) fn evaluate(toks: &[PpToken], at: Span, diags: &mut Diagnostics) -> bool {
    let mut e = Eval {
        toks,
        pos: 0,
        diags,
        depth: 0,
        at,
    };
    let Ok(v) = e.comma(true) else {
        return false;
    };
    if let Some(t) = toks.get(e.pos) {
        let t = t.clone();
        e.error(
            &t,
            "token is not a valid binary operator in a preprocessor subexpression",
        );
        return false;
    }
    v.truthy()
}

/// An error was reported.
struct Reported;

type Result<T> = std::result::Result<T, Reported>;

struct Eval<'a> {
    toks: &'a [PpToken],
    pos: usize,
    diags: &'a mut Diagnostics,
    depth: u32,
    /// The directive (for errors at the end of the line).
    at: Span,
}

impl Eval<'_> {
    fn peek(&self) -> Option<&PpToken> {
        self.toks.get(self.pos)
    }

    fn peek_punct(&self) -> Option<Punct> {
        match self.peek()?.kind {
            PpKind::Punct(p) => Some(p),
            _ => None,
        }
    }

    fn error(&mut self, t: &PpToken, message: &str) -> Reported {
        // A token whose error was already reported needs no second one.
        if t.kind != PpKind::Invalid {
            self.diags
                .push(Diagnostic::error(t.span, message).in_expansion(t.expansion));
        }
        Reported
    }

    fn error_here(&mut self, message: &str) -> Reported {
        match self.peek().cloned() {
            Some(t) => self.error(&t, message),
            None => {
                let end = self.toks.last().map_or(self.at, |t| t.span);
                let expansion = self.toks.last().and_then(|t| t.expansion);
                self.diags.push(
                    Diagnostic::error(Span::new(end.file, end.hi, end.hi), message)
                        .in_expansion(expansion),
                );
                Reported
            }
        }
    }

    fn warn(&mut self, t: &PpToken, message: &str) {
        self.diags
            .push(Diagnostic::warning(t.span, message).in_expansion(t.expansion));
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here("preprocessor expression nested too deeply"));
        }
        Ok(())
    }

    /// `a , b` (accepted, as clang and gcc do).
    fn comma(&mut self, live: bool) -> Result<Value> {
        let mut v = self.conditional(live)?;
        while self.peek_punct() == Some(Punct::Comma) {
            self.pos += 1;
            v = self.conditional(live)?;
        }
        Ok(v)
    }

    fn conditional(&mut self, live: bool) -> Result<Value> {
        let c = self.binary(1, live)?;
        if self.peek_punct() != Some(Punct::Question) {
            return Ok(c);
        }
        let q = self.pos;
        self.pos += 1;
        self.enter()?;
        let a = self.comma(live && c.truthy())?;
        if self.peek_punct() != Some(Punct::Colon) {
            let e = self.error_here("expected ':' in preprocessor expression");
            let question = self.toks[q].span;
            if let Some(d) = self.diags.list.last_mut() {
                d.notes.push(("to match this '?'".into(), Some(question)));
            }
            return Err(e);
        }
        self.pos += 1;
        let b = self.conditional(live && !c.truthy())?;
        self.depth -= 1;
        let (a, b) = convert(a, b);
        Ok(if c.truthy() { a } else { b })
    }

    /// Binary operators of precedence `min` and tighter, left to right.
    fn binary(&mut self, min: u8, live: bool) -> Result<Value> {
        let mut lhs = self.unary(live)?;
        loop {
            let Some(op) = self.peek_punct() else {
                return Ok(lhs);
            };
            let Some(prec) = precedence(op) else {
                return Ok(lhs);
            };
            if prec < min {
                return Ok(lhs);
            }
            let op_tok = self.toks[self.pos].clone();
            self.pos += 1;
            lhs = match op {
                Punct::PipePipe => {
                    let rhs = self.binary(prec + 1, live && !lhs.truthy())?;
                    Value::bool(lhs.truthy() || rhs.truthy())
                }
                Punct::AmpAmp => {
                    let rhs = self.binary(prec + 1, live && lhs.truthy())?;
                    Value::bool(lhs.truthy() && rhs.truthy())
                }
                _ => {
                    let rhs = self.binary(prec + 1, live)?;
                    self.apply(op, &op_tok, lhs, rhs, live)?
                }
            };
        }
    }

    fn apply(&mut self, op: Punct, t: &PpToken, l: Value, r: Value, live: bool) -> Result<Value> {
        use Punct::*;
        if matches!(op, Shl | Shr) {
            return Ok(self.shift(op, t, l, r, live));
        }
        let (l, r) = convert(l, r);
        let overflow = |e: &mut Self, o: bool| {
            if o && live {
                e.warn(t, "integer overflow in preprocessor expression");
            }
        };
        Ok(match (l, r) {
            (Value::Signed(a), Value::Signed(b)) => match op {
                Star => {
                    let (v, o) = a.overflowing_mul(b);
                    overflow(self, o);
                    Value::Signed(v)
                }
                Slash | Percent => {
                    if b == 0 {
                        if live {
                            return Err(
                                self.error(t, "division by zero in preprocessor expression")
                            );
                        }
                        Value::Signed(0)
                    } else {
                        let (v, o) = if op == Slash {
                            a.overflowing_div(b)
                        } else {
                            a.overflowing_rem(b)
                        };
                        overflow(self, o);
                        Value::Signed(v)
                    }
                }
                Plus => {
                    let (v, o) = a.overflowing_add(b);
                    overflow(self, o);
                    Value::Signed(v)
                }
                Minus => {
                    let (v, o) = a.overflowing_sub(b);
                    overflow(self, o);
                    Value::Signed(v)
                }
                Lt => Value::bool(a < b),
                Gt => Value::bool(a > b),
                Le => Value::bool(a <= b),
                Ge => Value::bool(a >= b),
                EqEq => Value::bool(a == b),
                Ne => Value::bool(a != b),
                Amp => Value::Signed(a & b),
                Caret => Value::Signed(a ^ b),
                Pipe => Value::Signed(a | b),
                _ => unreachable!("not a binary operator: {op:?}"),
            },
            (l, r) => {
                let (a, b) = (l.bits(), r.bits());
                match op {
                    Star => Value::Unsigned(a.wrapping_mul(b)),
                    Slash | Percent => {
                        if b == 0 {
                            if live {
                                return Err(
                                    self.error(t, "division by zero in preprocessor expression")
                                );
                            }
                            Value::Unsigned(0)
                        } else if op == Slash {
                            Value::Unsigned(a / b)
                        } else {
                            Value::Unsigned(a % b)
                        }
                    }
                    Plus => Value::Unsigned(a.wrapping_add(b)),
                    Minus => Value::Unsigned(a.wrapping_sub(b)),
                    Lt => Value::bool(a < b),
                    Gt => Value::bool(a > b),
                    Le => Value::bool(a <= b),
                    Ge => Value::bool(a >= b),
                    EqEq => Value::bool(a == b),
                    Ne => Value::bool(a != b),
                    Amp => Value::Unsigned(a & b),
                    Caret => Value::Unsigned(a ^ b),
                    Pipe => Value::Unsigned(a | b),
                    _ => unreachable!("not a binary operator: {op:?}"),
                }
            }
        })
    }

    /// `<<` and `>>`: the result has the left operand's type (no usual conversions). A
    /// count that is negative or not below 64 is undefined in C; as in gcc, a negative
    /// count shifts the other way and a large one shifts everything out (with a warning).
    fn shift(&mut self, op: Punct, t: &PpToken, l: Value, r: Value, live: bool) -> Value {
        let (left, count) = match r {
            Value::Signed(c) if c < 0 => (op == Punct::Shr, c.unsigned_abs()),
            v => (op == Punct::Shl, v.bits()),
        };
        if live && (count >= 64 || matches!(r, Value::Signed(c) if c < 0)) {
            self.warn(t, "shift count is negative or not less than 64");
        }
        let Ok(c @ 0..64) = u32::try_from(count) else {
            return match l {
                Value::Signed(a) if !left && a < 0 => Value::Signed(-1),
                Value::Signed(_) => Value::Signed(0),
                Value::Unsigned(_) => Value::Unsigned(0),
            };
        };
        match (left, l) {
            (true, Value::Signed(a)) => Value::Signed(((a as u64) << c) as i64),
            (true, Value::Unsigned(a)) => Value::Unsigned(a << c),
            (false, Value::Signed(a)) => Value::Signed(a >> c),
            (false, Value::Unsigned(a)) => Value::Unsigned(a >> c),
        }
    }

    fn unary(&mut self, live: bool) -> Result<Value> {
        let Some(t) = self.peek().cloned() else {
            return Err(self.error_here("expected value in expression"));
        };
        match t.kind {
            PpKind::Punct(op @ (Punct::Plus | Punct::Minus | Punct::Tilde | Punct::Bang)) => {
                self.pos += 1;
                self.enter()?;
                let v = self.unary(live)?;
                self.depth -= 1;
                Ok(match (op, v) {
                    (Punct::Plus, v) => v,
                    (Punct::Minus, Value::Signed(a)) => {
                        if a == i64::MIN && live {
                            self.warn(&t, "integer overflow in preprocessor expression");
                        }
                        Value::Signed(a.wrapping_neg())
                    }
                    (Punct::Minus, Value::Unsigned(a)) => Value::Unsigned(a.wrapping_neg()),
                    (Punct::Tilde, Value::Signed(a)) => Value::Signed(!a),
                    (Punct::Tilde, Value::Unsigned(a)) => Value::Unsigned(!a),
                    (_, v) => Value::bool(!v.truthy()),
                })
            }
            PpKind::Punct(Punct::LParen) => {
                self.pos += 1;
                self.enter()?;
                let v = self.comma(live)?;
                if self.peek_punct() != Some(Punct::RParen) {
                    let e = self.error_here("expected ')' in preprocessor expression");
                    if let Some(d) = self.diags.list.last_mut() {
                        d.notes.push(("to match this '('".into(), Some(t.span)));
                    }
                    return Err(e);
                }
                self.pos += 1;
                self.depth -= 1;
                Ok(v)
            }
            PpKind::Number => {
                self.pos += 1;
                match integer(&t.text) {
                    Ok(v) => Ok(v),
                    Err(message) => Err(self.error(&t, &message)),
                }
            }
            PpKind::Char => {
                self.pos += 1;
                let c = char_constant(&t.text);
                for w in &c.warnings {
                    self.warn(&t, w);
                }
                match c.value {
                    Ok(v) => Ok(Value::Signed(v)),
                    Err(message) => Err(self.error(&t, &message)),
                }
            }
            PpKind::Ident => {
                self.pos += 1;
                if self.peek_punct() == Some(Punct::LParen) {
                    return Err(self.error(
                        &t,
                        &format!("function-like macro '{}' is not defined", t.text),
                    ));
                }
                Ok(Value::Signed(0))
            }
            _ => Err(self.error(&t, "invalid token at start of a preprocessor expression")),
        }
    }
}

fn precedence(op: Punct) -> Option<u8> {
    use Punct::*;
    Some(match op {
        PipePipe => 1,
        AmpAmp => 2,
        Pipe => 3,
        Caret => 4,
        Amp => 5,
        EqEq | Ne => 6,
        Lt | Gt | Le | Ge => 7,
        Shl | Shr => 8,
        Plus | Minus => 9,
        Star | Slash | Percent => 10,
        _ => return None,
    })
}

/// The usual arithmetic conversions: unsigned if either is.
fn convert(a: Value, b: Value) -> (Value, Value) {
    if a.unsigned() || b.unsigned() {
        (Value::Unsigned(a.bits()), Value::Unsigned(b.bits()))
    } else {
        (a, b)
    }
}

/// An integer constant (C99 §6.4.4.1) as `intmax_t`, or `uintmax_t` when it has a `u`
/// suffix or does not fit `intmax_t`.
fn integer(text: &str) -> std::result::Result<Value, String> {
    if super::number_kind(text) == crate::token::TokenKind::Float {
        return Err("floating point literal in preprocessor expression".into());
    }
    let (radix, digits_from) = if text.starts_with("0x") || text.starts_with("0X") {
        (16, 2)
    } else if text.starts_with('0') {
        (8, 0)
    } else {
        (10, 0)
    };
    let body = &text[digits_from..];
    let digits_end = body
        .find(|c: char| !c.is_ascii_hexdigit() || (radix != 16 && !c.is_ascii_digit()))
        .unwrap_or(body.len());
    let (digits, suffix) = body.split_at(digits_end);
    if digits.is_empty() {
        return Err(format!("invalid integer constant '{text}'"));
    }
    let valid_suffix = matches!(
        suffix,
        "" | "u"
            | "U"
            | "l"
            | "L"
            | "ll"
            | "LL"
            | "ul"
            | "uL"
            | "Ul"
            | "UL"
            | "lu"
            | "lU"
            | "Lu"
            | "LU"
            | "ull"
            | "uLL"
            | "Ull"
            | "ULL"
            | "llu"
            | "llU"
            | "LLu"
            | "LLU"
    );
    if !valid_suffix {
        return Err(format!("invalid suffix '{suffix}' on integer constant"));
    }
    let mut value: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(16).unwrap_or(0);
        if d >= radix {
            return Err(format!("invalid digit '{c}' in octal constant"));
        }
        value = value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or("integer literal is too large to be represented in any integer type")?;
    }
    Ok(if suffix.contains(['u', 'U']) || value > i64::MAX as u64 {
        Value::Unsigned(value)
    } else {
        Value::Signed(value as i64)
    })
}

/// What a character constant means in `#if`.
struct CharConstant {
    value: std::result::Result<i64, String>,
    warnings: Vec<String>,
}

/// A character constant's value (C99 §6.4.4.4): an `int`; one character is a `char`
/// (signed, so `'\xff'` is -1); several pack into the `int` as clang and gcc do.
fn char_constant(text: &str) -> CharConstant {
    let mut warnings = Vec::new();
    let value = (|| {
        let Some(body) = text.strip_prefix('\'') else {
            return Err(format!(
                "unsupported: '{}' prefixed character constants",
                text.split('\'').next().unwrap_or("")
            ));
        };
        let body = body.strip_suffix('\'').unwrap_or(body);
        let bytes = body.as_bytes();
        let mut units: Vec<u8> = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] != b'\\' {
                units.push(bytes[i]);
                i += 1;
                continue;
            }
            i += 1;
            let Some(&e) = bytes.get(i) else {
                return Err("invalid escape sequence".into());
            };
            i += 1;
            let v = match e {
                b'\'' | b'"' | b'?' | b'\\' => e,
                b'a' => 7,
                b'b' => 8,
                b'f' => 12,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'v' => 11,
                b'0'..=b'7' => {
                    let mut v = u32::from(e - b'0');
                    let mut n = 1;
                    while n < 3 && matches!(bytes.get(i), Some(b'0'..=b'7')) {
                        v = v * 8 + u32::from(bytes[i] - b'0');
                        i += 1;
                        n += 1;
                    }
                    u8::try_from(v).map_err(|_| "octal escape sequence out of range")?
                }
                b'x' => {
                    let start = i;
                    let mut v: u32 = 0;
                    while let Some(d) = bytes.get(i).and_then(|&c| (c as char).to_digit(16)) {
                        v = v.saturating_mul(16).saturating_add(d);
                        i += 1;
                    }
                    if i == start {
                        return Err("\\x used with no following hex digits".into());
                    }
                    u8::try_from(v).map_err(|_| "hex escape sequence out of range")?
                }
                b'u' | b'U' => {
                    return Err("unsupported: universal character names".into());
                }
                other => {
                    warnings.push(format!(
                        "unknown escape sequence '\\{}'",
                        (other as char).escape_default()
                    ));
                    other
                }
            };
            units.push(v);
        }
        match units.len() {
            0 => Err("empty character constant".into()),
            1 => Ok(i64::from(units[0] as i8)),
            n => {
                warnings.push(if n > 4 {
                    "character constant too long for its type".into()
                } else {
                    "multi-character character constant".into()
                });
                let v = units[n.saturating_sub(4)..]
                    .iter()
                    .fold(0u32, |v, &b| (v << 8) | u32::from(b));
                Ok(i64::from(v as i32))
            }
        }
    })();
    CharConstant { value, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_constants() {
        assert_eq!(integer("42"), Ok(Value::Signed(42)));
        assert_eq!(integer("0x1fULL"), Ok(Value::Unsigned(31)));
        assert_eq!(integer("017"), Ok(Value::Signed(15)));
        assert_eq!(integer("0"), Ok(Value::Signed(0)));
        assert_eq!(
            integer("18446744073709551615"),
            Ok(Value::Unsigned(u64::MAX))
        );
        assert!(integer("18446744073709551616").is_err());
        assert_eq!(
            integer("09"),
            Err("invalid digit '9' in octal constant".into())
        );
        assert_eq!(
            integer("12lul"),
            Err("invalid suffix 'lul' on integer constant".into())
        );
        assert_eq!(
            integer("1.5"),
            Err("floating point literal in preprocessor expression".into())
        );
        assert!(integer("0x").is_err());
    }

    #[test]
    fn character_constants() {
        let v = |s: &str| char_constant(s).value;
        assert_eq!(v("'a'"), Ok(97));
        assert_eq!(v("'\\n'"), Ok(10));
        assert_eq!(v("'\\xff'"), Ok(-1));
        assert_eq!(v("'\\377'"), Ok(-1));
        assert_eq!(v("'\\0'"), Ok(0));
        assert_eq!(v("'\\''"), Ok(39));
        assert_eq!(v("'ab'"), Ok(0x6162));
        assert_eq!(char_constant("'ab'").warnings.len(), 1);
        assert!(v("''").is_err());
        assert!(v("'\\x100'").is_err());
        assert!(v("L'a'").is_err());
    }
}
