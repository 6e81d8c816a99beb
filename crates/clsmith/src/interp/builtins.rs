//! The integer and floating built-ins by their OpenCL C 1.2 definitions (§6.12.2, §6.12.3).

use crate::ast::{Builtin, Scalar};
use crate::interp::trap::Ub;
use crate::interp::value::{bits_of, fmax64, fmin64, wrap, Value};

/// A pure built-in on evaluated arguments, all of one type (the overload's).
pub fn call(b: Builtin, args: &[Value]) -> Result<Value, Ub> {
    let t = args[0].scalar().expect("arithmetic argument");
    if let Some(other) = args.iter().find(|a| a.scalar() != Some(t)) {
        return Err(Ub::Unsupported(format!(
            "{} with arguments of different types ({} and {})",
            b.name(),
            t.name(),
            other.show()
        )));
    }
    if t.is_float() {
        return float(b, t, args);
    }
    let v: Vec<i128> = args.iter().map(Value::int).collect();
    let bits = t.bits();
    let r = match b {
        Builtin::Min => v[0].min(v[1]),
        Builtin::Max => v[0].max(v[1]),
        Builtin::Clamp => {
            if v[1] > v[2] {
                return Err(Ub::BuiltinDomain(format!(
                    "clamp with minval {} > maxval {}",
                    v[1], v[2]
                )));
            }
            v[0].max(v[1]).min(v[2])
        }
        Builtin::Abs => return Ok(Value::Int(t.to_unsigned(), v[0].abs())),
        Builtin::Mul24 | Builtin::Mad24 => {
            if !matches!(t, Scalar::Int | Scalar::UInt) {
                return Err(Ub::Unsupported(format!("{} on {}", b.name(), t.name())));
            }
            let range = if t.is_signed() {
                -(1 << 23)..=(1 << 23) - 1
            } else {
                0..=(1 << 24) - 1
            };
            if !range.contains(&v[0]) || !range.contains(&v[1]) {
                return Err(Ub::BuiltinDomain(format!(
                    "{} of {} and {} beyond 24 bits",
                    b.name(),
                    v[0],
                    v[1]
                )));
            }
            // The 24-bit product's width beyond 32 bits is not specified exactly; the
            // generator keeps it within the result type.
            let prod = v[0] * v[1];
            let (lo, hi) = t.range();
            if prod < lo || prod > hi {
                return Err(Ub::BuiltinDomain(format!(
                    "{} product {prod} beyond 32 bits",
                    b.name()
                )));
            }
            if b == Builtin::Mul24 {
                prod
            } else {
                let sum = prod + v[2];
                if t.is_signed() && (sum < lo || sum > hi) {
                    return Err(Ub::SignedOverflow(format!("mad24 sum {prod} + {}", v[2])));
                }
                wrap(t, sum)
            }
        }
        Builtin::MulHi => {
            if t.is_signed() {
                (v[0] * v[1]) >> bits
            } else {
                ((v[0] as u128 * v[1] as u128) >> bits) as i128
            }
        }
        Builtin::Rotate => {
            // The count's low log2(N) bits, N the element width (no promotion).
            let n = bits_of(t, v[0]);
            let c = (bits_of(t, v[1]) % bits as u128) as u32;
            let mask = (1u128 << bits) - 1;
            let r = if c == 0 {
                n
            } else {
                ((n << c) | (n >> (bits - c))) & mask
            };
            wrap(t, r as i128)
        }
        Builtin::Popcount => bits_of(t, v[0]).count_ones() as i128,
        Builtin::Clz => (bits_of(t, v[0]).leading_zeros() - (128 - bits)) as i128,
        other => return Err(Ub::Unsupported(format!("{} on {}", other.name(), t.name()))),
    };
    Ok(Value::Int(t, r))
}

fn float(b: Builtin, t: Scalar, args: &[Value]) -> Result<Value, Ub> {
    if t == Scalar::Float {
        let x: Vec<f32> = args
            .iter()
            .map(|a| match a {
                Value::F32(x) => *x,
                _ => unreachable!("checked"),
            })
            .collect();
        let r = match b {
            Builtin::Fmin => fmin64(x[0] as f64, x[1] as f64) as f32,
            Builtin::Fmax => fmax64(x[0] as f64, x[1] as f64) as f32,
            Builtin::Fabs => x[0].abs(),
            Builtin::Fma => x[0].mul_add(x[1], x[2]),
            Builtin::Sqrt => x[0].sqrt(),
            Builtin::Floor => x[0].floor(),
            Builtin::Ceil => x[0].ceil(),
            other => return Err(Ub::Unsupported(format!("{} on float", other.name()))),
        };
        return Ok(Value::F32(r));
    }
    let x: Vec<f64> = args
        .iter()
        .map(|a| match a {
            Value::F64(x) => *x,
            _ => unreachable!("checked"),
        })
        .collect();
    let r = match b {
        Builtin::Fmin => fmin64(x[0], x[1]),
        Builtin::Fmax => fmax64(x[0], x[1]),
        Builtin::Fabs => x[0].abs(),
        Builtin::Fma => x[0].mul_add(x[1], x[2]),
        Builtin::Sqrt => x[0].sqrt(),
        Builtin::Floor => x[0].floor(),
        Builtin::Ceil => x[0].ceil(),
        other => return Err(Ub::Unsupported(format!("{} on double", other.name()))),
    };
    Ok(Value::F64(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(b: Builtin, t: Scalar, args: &[i128]) -> Result<i128, Ub> {
        let vals: Vec<Value> = args.iter().map(|&v| Value::Int(t, v)).collect();
        call(b, &vals).map(|v| v.int())
    }

    #[test]
    fn integer_builtins_follow_opencl() {
        use Scalar::*;
        assert_eq!(int(Builtin::Abs, Int, &[i32::MIN as i128]), Ok(1 << 31));
        assert_eq!(
            call(Builtin::Abs, &[Value::Int(Char, -5)]),
            Ok(Value::Int(UChar, 5))
        );
        assert_eq!(int(Builtin::Clz, UChar, &[1]), Ok(7));
        assert_eq!(int(Builtin::Clz, Int, &[0]), Ok(32));
        assert_eq!(int(Builtin::Clz, Long, &[-1]), Ok(0));
        assert_eq!(int(Builtin::Popcount, Char, &[-1]), Ok(8));
        assert_eq!(int(Builtin::Rotate, UChar, &[0x81, 1]), Ok(0x03));
        assert_eq!(int(Builtin::Rotate, Char, &[-128, 9]), Ok(1));
        assert_eq!(int(Builtin::Rotate, Int, &[1, -1]), Ok(i32::MIN as i128));
        assert_eq!(
            int(Builtin::MulHi, UInt, &[0xffff_ffff, 0xffff_ffff]),
            Ok(0xffff_fffe)
        );
        assert_eq!(int(Builtin::MulHi, Int, &[-1, 1]), Ok(-1));
        assert_eq!(int(Builtin::MulHi, ULong, &[u64::MAX as i128, 2]), Ok(1));
        assert_eq!(
            int(Builtin::MulHi, Long, &[i64::MIN as i128, i64::MIN as i128]),
            Ok(1 << 62)
        );
        assert_eq!(
            int(Builtin::Mul24, Int, &[-(1 << 10), 1 << 12]),
            Ok(-(1 << 22))
        );
        assert!(matches!(
            int(Builtin::Mul24, Int, &[1 << 23, 1]),
            Err(Ub::BuiltinDomain(_))
        ));
        assert_eq!(
            int(Builtin::Mad24, UInt, &[1 << 20, 1 << 11, 5]),
            Ok(5 + (1 << 31))
        );
        assert_eq!(int(Builtin::Clamp, Short, &[-9, -3, 4]), Ok(-3));
        assert!(matches!(
            int(Builtin::Clamp, Short, &[0, 4, 3]),
            Err(Ub::BuiltinDomain(_))
        ));
        assert!(matches!(
            call(Builtin::Min, &[Value::Int(Int, 1), Value::Int(UInt, 2)]),
            Err(Ub::Unsupported(_))
        ));
    }

    #[test]
    fn fmin_fmax_ignore_nan() {
        assert_eq!(
            call(Builtin::Fmin, &[Value::F32(f32::NAN), Value::F32(2.0)]),
            Ok(Value::F32(2.0))
        );
        assert_eq!(
            call(Builtin::Fmax, &[Value::F64(1.0), Value::F64(f64::NAN)]),
            Ok(Value::F64(1.0))
        );
        assert_eq!(
            call(
                Builtin::Fma,
                &[Value::F32(0.1), Value::F32(10.0), Value::F32(-1.0)]
            ),
            Ok(Value::F32(0.1f32.mul_add(10.0, -1.0)))
        );
    }
}
