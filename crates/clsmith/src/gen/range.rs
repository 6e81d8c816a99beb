//! Conservative value ranges of generated expressions: the generator writes an operator
//! in its plain form only when the ranges of its operands prove it defined (Csmith's safe
//! math, decided statically), and otherwise rewrites the operands.

use crate::ast::{BinOp, Scalar};

/// What is known of an expression's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// An integer (or `bool`) in `lo..=hi`.
    Int(i128, i128),
    /// A floating value: `Some((lo, hi))` when known finite within the bounds (never NaN),
    /// `None` when it may be anything, NaN and infinities included.
    Float(Option<(f64, f64)>),
    /// Not arithmetic (pointers, structs).
    Other,
}

impl Range {
    /// Every value of the type.
    pub fn full(s: Scalar) -> Range {
        if s.is_float() {
            Range::Float(None)
        } else {
            let (lo, hi) = s.range();
            Range::Int(lo, hi)
        }
    }

    /// The integer bounds (the type's own for a non-integer range).
    pub fn int(self, s: Scalar) -> (i128, i128) {
        match self {
            Range::Int(lo, hi) => (lo, hi),
            _ => s.range(),
        }
    }

    /// A single known value.
    pub fn constant(self) -> Option<i128> {
        match self {
            Range::Int(lo, hi) if lo == hi => Some(lo),
            _ => None,
        }
    }
}

/// The range after converting a value of type `from` with range `r` to type `to`:
/// integers keep their range when it fits and otherwise may become any value (the
/// conversion wraps); `None` when the conversion could be undefined (a floating value that
/// may not fit the integer type).
pub fn convert(r: Range, from: Scalar, to: Scalar) -> Option<Range> {
    if to == Scalar::Bool {
        return Some(match r {
            Range::Int(lo, hi) if lo > 0 || hi < 0 => Range::Int(1, 1),
            Range::Int(0, 0) => Range::Int(0, 0),
            _ => Range::Int(0, 1),
        });
    }
    if to.is_float() {
        return Some(match r {
            Range::Int(lo, hi) => Range::Float(widen(lo as f64, hi as f64)),
            Range::Float(f) => Range::Float(f.and_then(|(lo, hi)| widen(lo, hi))),
            Range::Other => Range::Float(None),
        });
    }
    let (tlo, thi) = to.range();
    match r {
        Range::Int(lo, hi) if lo >= tlo && hi <= thi => Some(Range::Int(lo, hi)),
        Range::Int(..) => Some(Range::full(to)),
        Range::Float(Some((lo, hi))) if from.is_float() => {
            // The truncation must lie within the type: lo > tlo - 1 and hi < thi + 1, with
            // a margin for the rounding of the bounds themselves.
            if lo > tlo as f64 - 0.5 && hi < thi as f64 + 0.5 {
                Some(Range::Int(lo.trunc() as i128, hi.trunc() as i128))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Bounds widened to cover the rounding of any operation that produced them; `None` when
/// they leave the magnitudes tracked.
pub fn widen(lo: f64, hi: f64) -> Option<(f64, f64)> {
    let lo = lo - lo.abs() * 1e-6 - 1e-30;
    let hi = hi + hi.abs() * 1e-6 + 1e-30;
    if lo.is_finite() && hi.is_finite() && lo.abs() < 1e30 && hi.abs() < 1e30 {
        Some((lo, hi))
    } else {
        None
    }
}

fn corners(a: (i128, i128), b: (i128, i128), f: impl Fn(i128, i128) -> i128) -> (i128, i128) {
    let v = [f(a.0, b.0), f(a.0, b.1), f(a.1, b.0), f(a.1, b.1)];
    (
        *v.iter().min().expect("four"),
        *v.iter().max().expect("four"),
    )
}

fn fcorners(a: (f64, f64), b: (f64, f64), f: impl Fn(f64, f64) -> f64) -> Option<(f64, f64)> {
    let v = [f(a.0, b.0), f(a.0, b.1), f(a.1, b.0), f(a.1, b.1)];
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    widen(lo, hi)
}

fn next_pow2_minus1(v: i128) -> i128 {
    let mut m = 0i128;
    while m < v {
        m = m * 2 + 1;
    }
    m
}

/// Result of an arithmetic operator in the common type `t` (operands already converted).
/// `Err(())` when the operation may be undefined (signed overflow, division by zero,
/// `MIN / -1`); `Ok(range)` otherwise (wrapped to the full type when unsigned arithmetic may
/// wrap).
#[allow(clippy::result_unit_err)]
pub fn arith(op: BinOp, t: Scalar, a: Range, b: Range) -> Result<Range, ()> {
    if t.is_float() {
        let (Range::Float(Some(x)), Range::Float(Some(y))) = (a, b) else {
            return Ok(Range::Float(None));
        };
        return Ok(Range::Float(match op {
            BinOp::Add => fcorners(x, y, |p, q| p + q),
            BinOp::Sub => fcorners(x, y, |p, q| p - q),
            BinOp::Mul => fcorners(x, y, |p, q| p * q),
            BinOp::Div if y.0 > 0.0 || y.1 < 0.0 => fcorners(x, y, |p, q| p / q),
            _ => None,
        }));
    }
    let (tlo, thi) = t.range();
    let x = a.int(t);
    let y = b.int(t);
    let exact = match op {
        BinOp::Add => (x.0 + y.0, x.1 + y.1),
        BinOp::Sub => (x.0 - y.1, x.1 - y.0),
        BinOp::Mul => corners(x, y, |p, q| p.saturating_mul(q)),
        BinOp::Div | BinOp::Rem => {
            if y.0 <= 0 && y.1 >= 0 {
                return Err(());
            }
            if t.is_signed() && x.0 == tlo && y.0 <= -1 && y.1 >= -1 {
                return Err(());
            }
            if op == BinOp::Div {
                corners(x, y, |p, q| p / q)
            } else {
                let m = y.0.abs().max(y.1.abs()) - 1;
                (
                    if x.0 < 0 { -m.min(-x.0) } else { 0 },
                    if x.1 > 0 { m.min(x.1) } else { 0 },
                )
            }
        }
        BinOp::And => {
            if x.0 >= 0 && y.0 >= 0 {
                (0, x.1.min(y.1))
            } else if x.0 >= 0 {
                (0, x.1)
            } else if y.0 >= 0 {
                (0, y.1)
            } else {
                (tlo, thi)
            }
        }
        BinOp::Or | BinOp::Xor => {
            if x.0 >= 0 && y.0 >= 0 {
                (
                    if op == BinOp::Or { x.0.max(y.0) } else { 0 },
                    next_pow2_minus1(x.1.max(y.1)),
                )
            } else if op == BinOp::Or && y.0 == y.1 && y.0 > 0 {
                // x | c with c > 0 only sets bits: never below x, never MIN.
                let lo = if x.0 < 0 {
                    x.0.max(tlo + 1)
                } else {
                    x.0.max(y.0)
                };
                let hi = if x.1 < 0 {
                    -1
                } else {
                    next_pow2_minus1(x.1.max(y.0))
                };
                (lo, hi)
            } else {
                (tlo, thi)
            }
        }
        _ => unreachable!("{op:?} is not an arithmetic operator of this function"),
    };
    if exact.0 >= tlo && exact.1 <= thi {
        Ok(Range::Int(exact.0, exact.1))
    } else if t.is_signed() {
        Err(())
    } else {
        Ok(Range::full(t))
    }
}

/// Range of a shift with the promoted left type `t`; the count's effective value is its
/// low log2(N) bits.
pub fn shift(op: BinOp, t: Scalar, a: Range, count: Range, count_type: Scalar) -> Range {
    let n = t.bits() as i128;
    let (clo, chi) = count.int(count_type);
    let (clo, chi) = if clo >= 0 && chi < n {
        (clo, chi)
    } else {
        (0, n - 1)
    };
    let (lo, hi) = a.int(t);
    match op {
        BinOp::Shl => {
            if lo >= 0 && hi <= t.range().1 >> chi {
                Range::Int(lo << clo, hi << chi)
            } else {
                Range::full(t)
            }
        }
        _ => {
            let v = [lo >> clo, lo >> chi, hi >> clo, hi >> chi];
            Range::Int(
                *v.iter().min().expect("four"),
                *v.iter().max().expect("four"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_overflow_is_refused() {
        let int = Range::full(Scalar::Int);
        assert!(arith(BinOp::Add, Scalar::Int, int, Range::Int(0, 1)).is_err());
        assert_eq!(
            arith(
                BinOp::Add,
                Scalar::Int,
                Range::Int(-128, 127),
                Range::Int(0, 255)
            ),
            Ok(Range::Int(-128, 382))
        );
        assert_eq!(
            arith(
                BinOp::Add,
                Scalar::UInt,
                Range::full(Scalar::UInt),
                Range::Int(1, 1)
            ),
            Ok(Range::full(Scalar::UInt))
        );
        assert!(arith(BinOp::Div, Scalar::Int, Range::Int(0, 5), Range::Int(-1, 3)).is_err());
        assert!(arith(BinOp::Div, Scalar::Int, int, Range::Int(-1, -1)).is_err());
        assert!(arith(
            BinOp::Div,
            Scalar::Int,
            Range::Int(-5, 5),
            Range::Int(-1, -1)
        )
        .is_ok());
        assert_eq!(
            arith(
                BinOp::Rem,
                Scalar::Int,
                Range::Int(-50, 50),
                Range::Int(1, 8)
            ),
            Ok(Range::Int(-7, 7))
        );
        assert_eq!(
            arith(BinOp::Or, Scalar::Int, int, Range::Int(1, 1)),
            Ok(Range::Int(i32::MIN as i128 + 1, i32::MAX as i128))
        );
        assert_eq!(
            arith(BinOp::And, Scalar::Int, int, Range::Int(0, 15)),
            Ok(Range::Int(0, 15))
        );
    }

    #[test]
    fn float_conversion_needs_a_known_range() {
        assert_eq!(
            convert(Range::Float(None), Scalar::Float, Scalar::Int),
            None
        );
        assert_eq!(
            convert(Range::Float(Some((-3.5, 7.9))), Scalar::Float, Scalar::Int),
            Some(Range::Int(-3, 7))
        );
        assert_eq!(
            convert(Range::Float(Some((-1.0, 7.9))), Scalar::Float, Scalar::UInt),
            None
        );
        assert_eq!(
            convert(Range::Int(-1, 300), Scalar::Int, Scalar::UChar),
            Some(Range::full(Scalar::UChar))
        );
    }

    #[test]
    fn shift_ranges() {
        assert_eq!(
            shift(
                BinOp::Shl,
                Scalar::Int,
                Range::Int(0, 3),
                Range::Int(0, 4),
                Scalar::Int
            ),
            Range::Int(0, 48)
        );
        assert_eq!(
            shift(
                BinOp::Shr,
                Scalar::Int,
                Range::Int(-16, 16),
                Range::Int(1, 2),
                Scalar::Int
            ),
            Range::Int(-8, 8)
        );
        assert_eq!(
            shift(
                BinOp::Shl,
                Scalar::Int,
                Range::Int(-1, 3),
                Range::Int(0, 4),
                Scalar::Int
            ),
            Range::full(Scalar::Int)
        );
    }
}
