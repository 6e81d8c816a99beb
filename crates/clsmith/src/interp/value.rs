//! Values and the arithmetic of C99/OpenCL C on them: conversions, the usual arithmetic
//! conversions, overflow and division checks, OpenCL's shift rule.

use crate::ast::{BinOp, Scalar, Space, StructId, Type};
use crate::ctype::{promote, usual};
use crate::interp::trap::Ub;

/// What a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjRef {
    /// Variable `var` of the call frame numbered `frame` of the current work-item.
    Private {
        /// The frame's serial number (unique over the work-item's run).
        frame: u64,
        /// The variable.
        var: u32,
    },
    /// A kernel buffer argument (`__global` or `__constant`), by parameter position.
    Buffer(u32),
    /// A `__local` object of the current workgroup (declared array or pointer argument).
    Local(u32),
    /// A program-scope `__constant` array.
    Table(u32),
}

/// A pointer: an object, a byte offset into it, and the bounds of the array it was
/// derived from (arithmetic may reach `hi`, one past the end; accesses must stay below).
#[derive(Clone, Debug, PartialEq)]
pub struct Ptr {
    /// The pointee's address space.
    pub space: Space,
    /// The object.
    pub obj: ObjRef,
    /// Byte offset into the object.
    pub offset: i64,
    /// Lowest valid offset.
    pub lo: i64,
    /// One past the highest valid offset.
    pub hi: i64,
    /// The pointee type.
    pub elem: Type,
    /// Its size in bytes.
    pub elem_size: u32,
}

/// A struct value: its bytes and which of them were ever written.
#[derive(Clone, Debug, PartialEq)]
pub struct Agg {
    /// The struct type.
    pub id: StructId,
    /// The bytes.
    pub data: Vec<u8>,
    /// Initialized bytes.
    pub init: Vec<bool>,
}

/// A value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `bool` or an integer: the mathematical value, always within the type's range.
    Int(Scalar, i128),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// A pointer (boxed: values stay small where most are integers).
    Ptr(Box<Ptr>),
    /// A struct.
    Agg(Box<Agg>),
    /// The result of a `void` function.
    Void,
}

impl Value {
    /// The arithmetic type of the value, if it has one.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Value::Int(s, _) => Some(*s),
            Value::F32(_) => Some(Scalar::Float),
            Value::F64(_) => Some(Scalar::Double),
            _ => None,
        }
    }

    /// The integer value (panics on anything else: a generator bug the caller names).
    pub fn int(&self) -> i128 {
        match self {
            Value::Int(_, v) => *v,
            other => panic!("integer expected, got {other:?}"),
        }
    }

    /// C's truth value: non-zero (NaN is true; pointers are never null here).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Int(_, v) => *v != 0,
            Value::F32(x) => *x != 0.0,
            Value::F64(x) => *x != 0.0,
            Value::Ptr(_) => true,
            Value::Agg(_) | Value::Void => panic!("truth value of a non-scalar"),
        }
    }

    /// A short description for diagnostics.
    pub fn show(&self) -> String {
        match self {
            Value::Int(s, v) => format!("({}){v}", s.name()),
            Value::F32(x) => format!("{x:?}f"),
            Value::F64(x) => format!("{x:?}"),
            Value::Ptr(p) => format!("&{:?}+{}", p.obj, p.offset),
            Value::Agg(a) => format!("struct#{}", a.id),
            Value::Void => "void".into(),
        }
    }
}

/// `v` reduced modulo 2^bits of `s` into its range (two's complement for signed types:
/// the provisional rule for out-of-range conversions to signed types, which C leaves to
/// the implementation).
pub fn wrap(s: Scalar, v: i128) -> i128 {
    if s == Scalar::Bool {
        return (v != 0) as i128;
    }
    let bits = s.bits();
    let m = v & ((1i128 << bits) - 1);
    if s.is_signed() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// The bit pattern of an integer value in its type's width.
pub fn bits_of(s: Scalar, v: i128) -> u128 {
    (v as u128) & ((1u128 << s.bits()) - 1)
}

/// Conversion of an arithmetic value to an arithmetic type (C99 6.3.1).
pub fn convert(v: &Value, to: Scalar) -> Result<Value, Ub> {
    Ok(match (v, to) {
        (Value::Int(_, x), t) if t.is_integer() => Value::Int(t, wrap(t, *x)),
        (Value::Int(_, x), Scalar::Float) => Value::F32(*x as f32),
        (Value::Int(_, x), Scalar::Double) => Value::F64(*x as f64),
        (Value::F32(x), Scalar::Float) => Value::F32(*x),
        (Value::F32(x), Scalar::Double) => Value::F64(*x as f64),
        (Value::F64(x), Scalar::Float) => Value::F32(*x as f32),
        (Value::F64(x), Scalar::Double) => Value::F64(*x),
        (Value::F32(x), t) => float_to_int(*x as f64, t)?,
        (Value::F64(x), t) => float_to_int(*x, t)?,
        (other, t) => panic!("conversion of {other:?} to {t:?}"),
    })
}

fn float_to_int(x: f64, t: Scalar) -> Result<Value, Ub> {
    if t == Scalar::Bool {
        return Ok(Value::Int(t, (x != 0.0) as i128));
    }
    let (lo, hi) = t.range();
    let tr = x.trunc();
    // Every integer bound is exact in f64 except 2^63 - 1 and 2^64 - 1, which round up to
    // 2^63 and 2^64: comparing with `<` against the rounded-up bound + 1 is exact.
    if x.is_nan() || tr < lo as f64 || tr >= (hi as f64) + if t.bits() == 64 { 0.0 } else { 1.0 } {
        return Err(Ub::FloatToInt(format!("{x:?} to {}", t.name())));
    }
    Ok(Value::Int(t, tr as i128))
}

fn f32_of(v: &Value) -> f32 {
    match v {
        Value::F32(x) => *x,
        _ => unreachable!("converted"),
    }
}

fn f64_of(v: &Value) -> f64 {
    match v {
        Value::F64(x) => *x,
        _ => unreachable!("converted"),
    }
}

/// `min` with NaN operands ignored and `-0 < +0`.
pub fn fmin64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// `max` with NaN operands ignored and `-0 < +0`.
pub fn fmax64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a > b || (a == b && b.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// A checked signed result or a wrapped unsigned one.
pub fn int_result(t: Scalar, v: i128, what: impl FnOnce() -> String) -> Result<Value, Ub> {
    let (lo, hi) = t.range();
    if t.is_signed() && (v < lo || v > hi) {
        return Err(Ub::SignedOverflow(what()));
    }
    Ok(Value::Int(t, wrap(t, v)))
}

/// How shift counts are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftRule {
    /// OpenCL C: only the low log2(N) bits of the count are used.
    OpenCl,
    /// C: a count outside `0..N` is undefined (the cross-check with a C compiler).
    C,
}

/// A binary arithmetic, bitwise or comparison operator on two arithmetic values
/// (`&&`/`||` and pointer operands are the caller's).
pub fn arith(op: BinOp, a: &Value, b: &Value, rule: ShiftRule) -> Result<Value, Ub> {
    let (sa, sb) = (
        a.scalar().expect("arithmetic"),
        b.scalar().expect("arithmetic"),
    );
    if matches!(op, BinOp::Shl | BinOp::Shr) {
        return shift(op, a, b, rule);
    }
    let t = usual(sa, sb);
    let (x, y) = (convert(a, t)?, convert(b, t)?);
    let describe = || format!("{} {} {} in {}", a.show(), op.text(), b.show(), t.name());
    if op.is_comparison() {
        let r = match t {
            Scalar::Float => cmp(op, f32_of(&x) as f64, f32_of(&y) as f64),
            Scalar::Double => cmp(op, f64_of(&x), f64_of(&y)),
            _ => {
                let (x, y) = (x.int(), y.int());
                match op {
                    BinOp::Lt => x < y,
                    BinOp::Gt => x > y,
                    BinOp::Le => x <= y,
                    BinOp::Ge => x >= y,
                    BinOp::Eq => x == y,
                    _ => x != y,
                }
            }
        };
        return Ok(Value::Int(Scalar::Int, r as i128));
    }
    match t {
        Scalar::Float => {
            let (x, y) = (f32_of(&x), f32_of(&y));
            Ok(Value::F32(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                _ => panic!("{} on float", op.text()),
            }))
        }
        Scalar::Double => {
            let (x, y) = (f64_of(&x), f64_of(&y));
            Ok(Value::F64(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                _ => panic!("{} on double", op.text()),
            }))
        }
        _ => {
            let (x, y) = (x.int(), y.int());
            let exact = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                // Unsigned 64-bit products may exceed i128; they wrap anyway.
                BinOp::Mul if !t.is_signed() => (x as u128).wrapping_mul(y as u128) as i128,
                BinOp::Mul => x * y,
                BinOp::Div | BinOp::Rem => {
                    if y == 0 {
                        return Err(Ub::DivByZero(describe()));
                    }
                    if t.is_signed() && x == t.range().0 && y == -1 {
                        return Err(Ub::QuotientOverflow(describe()));
                    }
                    if op == BinOp::Div {
                        x / y
                    } else {
                        x % y
                    }
                }
                BinOp::And => x & y,
                BinOp::Or => x | y,
                BinOp::Xor => x ^ y,
                _ => unreachable!("{op:?} handled above"),
            };
            int_result(t, exact, describe)
        }
    }
}

fn cmp(op: BinOp, x: f64, y: f64) -> bool {
    match op {
        BinOp::Lt => x < y,
        BinOp::Gt => x > y,
        BinOp::Le => x <= y,
        BinOp::Ge => x >= y,
        BinOp::Eq => x == y,
        _ => x != y,
    }
}

/// `<<` and `>>`: the result has the promoted left operand's type; the count's low
/// log2(N) bits, read as unsigned, are the shift (OpenCL C 1.2 §6.3.j). Left shifts move
/// bits out of signed values too (filling with zeros), right shifts of negative values
/// fill with ones.
fn shift(op: BinOp, a: &Value, b: &Value, rule: ShiftRule) -> Result<Value, Ub> {
    let t = promote(a.scalar().expect("integer"));
    let ct = promote(b.scalar().expect("integer"));
    let x = convert(a, t)?.int();
    let c = convert(b, ct)?.int();
    let n = t.bits() as i128;
    if rule == ShiftRule::C && !(0..n).contains(&c) {
        return Err(Ub::ShiftCount(format!(
            "{} {} {}",
            a.show(),
            op.text(),
            b.show()
        )));
    }
    let count = (bits_of(ct, c) & (n as u128 - 1)) as u32;
    let r = if op == BinOp::Shl {
        wrap(t, (bits_of(t, x) << count) as i128)
    } else {
        x >> count
    };
    Ok(Value::Int(t, r))
}
