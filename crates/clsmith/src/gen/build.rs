//! Building blocks of expressions with their types, ranges and effects computed by C's
//! rules: literals, conversions, operators with their safe rewrites.

use crate::ast::{BinOp, Builtin, Expr, FloatLit, IntLit, Radix, Scalar, Suffix, Type, UnOp};
use crate::ctype::{literal_type, promote, usual};
use crate::gen::range::{self, Range};
use crate::gen::state::{Effects, GExpr, Gen};

impl Gen<'_> {
    /// An integer constant of type `t` and value `v` as C spells it: a literal with a
    /// suffix giving exactly `t`, a negated literal, or a cast for types without literals.
    pub fn int_const(&mut self, t: Scalar, v: i128) -> GExpr {
        let (lo, hi) = t.range();
        debug_assert!(v >= lo && v <= hi, "{v} out of {t:?}");
        let e = if matches!(t, Scalar::Int | Scalar::UInt | Scalar::Long | Scalar::ULong) {
            if v < 0 && v == lo {
                // -2147483648 would be `-(2147483648)`, a long: spell MIN as (-MAX - 1).
                let max = self.literal(t, -(v + 1));
                let one = self.literal(t, 1);
                Expr::Binary(
                    BinOp::Sub,
                    Box::new(Expr::Unary(UnOp::Neg, Box::new(max))),
                    Box::new(one),
                )
            } else if v < 0 {
                Expr::Unary(UnOp::Neg, Box::new(self.literal(t, -v)))
            } else {
                self.literal(t, v)
            }
        } else {
            let inner = self.int_const(Scalar::Int, v);
            Expr::Cast(Type::Scalar(t), Box::new(inner.e))
        };
        GExpr {
            e,
            ty: Type::Scalar(t),
            range: Range::Int(v, v),
            eff: Effects::default(),
            uniform: true,
        }
    }

    /// A non-negative literal whose C type is exactly `t` (`int`, `uint`, `long`, `ulong`).
    fn literal(&mut self, t: Scalar, v: i128) -> Expr {
        let radix = *self.rng.pick(&[
            Radix::Dec,
            Radix::Dec,
            Radix::Dec,
            Radix::Hex,
            Radix::Hex,
            Radix::Oct,
        ]);
        let upper = self.rng.chance(1, 3);
        let suffixes: &[Suffix] = match t {
            Scalar::Int => &[Suffix::None],
            Scalar::UInt => &[Suffix::U, Suffix::None],
            Scalar::Long => &[Suffix::L, Suffix::None],
            _ => &[Suffix::UL, Suffix::U, Suffix::None],
        };
        let start = self.rng.index(suffixes.len());
        for k in 0..suffixes.len() {
            for radix in [radix, Radix::Dec, Radix::Hex] {
                let lit = IntLit {
                    value: v as u64,
                    radix,
                    suffix: suffixes[(start + k) % suffixes.len()],
                    upper,
                };
                if literal_type(&lit) == Some(t) {
                    return Expr::Int(lit);
                }
            }
        }
        let suffix = match t {
            Scalar::Int => Suffix::None,
            Scalar::UInt => Suffix::U,
            Scalar::Long => Suffix::L,
            _ => Suffix::UL,
        };
        Expr::Int(IntLit {
            value: v as u64,
            radix: Radix::Dec,
            suffix,
            upper,
        })
    }

    /// A floating constant of type `t` (`float` literals carry `f`), exactly spelled.
    pub fn float_const(&mut self, t: Scalar, v: f64) -> GExpr {
        let single = t == Scalar::Float;
        let v = if single { v as f32 as f64 } else { v };
        let mag = v.abs();
        // A short exact decimal when the value is a small dyadic number, otherwise hex.
        // (Exact comparisons only: the choice reaches the source text, which must not depend
        // on the host's libm.)
        let dyadic_short = mag == 0.0 || (mag < 1048576.0 && (mag * 1024.0).fract() == 0.0);
        let hex = !dyadic_short || self.rng.chance(1, 5);
        let lit = Expr::Float(FloatLit {
            value: mag,
            single,
            hex,
        });
        let e = if v.is_sign_negative() {
            Expr::Unary(UnOp::Neg, Box::new(lit))
        } else {
            lit
        };
        GExpr {
            e,
            ty: Type::Scalar(t),
            range: Range::Float(Some((v, v))),
            eff: Effects::default(),
            uniform: true,
        }
    }

    /// A random interesting constant of type `t`.
    pub fn random_const(&mut self, t: Scalar) -> GExpr {
        if t.is_float() {
            let v = self.random_float(t);
            return self.float_const(t, v);
        }
        let (lo, hi) = t.range();
        let v = match self.rng.below(10) {
            0 => lo,
            1 => hi,
            2 => 0,
            3 if t.is_signed() => -1,
            4 => hi / 2 + self.rng.range(-2, 2) as i128,
            5 => 1i128 << self.rng.below(t.bits().max(2) as u64 - 1),
            _ => self.rng.range(-20, 100) as i128,
        };
        self.int_const(t, v.clamp(lo, hi))
    }

    /// A floating value worth testing: small dyadic numbers, powers of two near the ends of
    /// the range, subnormals (if enabled), values with long fractions.
    pub fn random_float(&mut self, t: Scalar) -> f64 {
        let single = t == Scalar::Float;
        let v: f64 = match self.rng.below(12) {
            0 => 0.0,
            1 => 1.0,
            2 => 0.5,
            3 => (self.rng.range(-64, 64) as f64) * 0.25,
            4 => (self.rng.range(-1000, 1000) as f64) / 8.0,
            5 => pow2(self.rng.range(-30, 30)),
            6 if single => f32::MAX as f64,
            6 => pow2(self.rng.range(100, 1000)),
            7 if self.cfg.subnormals && single => {
                f32::from_bits(self.rng.range(1, 0x7fffff) as u32) as f64
            }
            7 if self.cfg.subnormals => f64::from_bits(self.rng.range(1, 1 << 40) as u64),
            8 if single => {
                f32::from_bits(0x3f80_0000 | (self.rng.next_u64() as u32 & 0x7fffff)) as f64
            }
            8 => f64::from_bits(0x3ff0_0000_0000_0000 | (self.rng.next_u64() & ((1 << 52) - 1))),
            _ => self.rng.range(-100, 100) as f64,
        };
        let v = if self.rng.chance(1, 4) { -v } else { v };
        if single {
            v as f32 as f64
        } else {
            v
        }
    }

    /// `g` converted to `t` by a cast (or unchanged when it already has that type). The
    /// caller makes sure the conversion is defined (see [`Gen::to_scalar`]).
    pub fn cast(&mut self, g: GExpr, t: Scalar) -> GExpr {
        let from = self.scalar(&g.ty).expect("arithmetic");
        if from == t && matches!(g.ty, Type::Scalar(_)) && self.rng.chance(7, 8) {
            return g;
        }
        let range = range::convert(g.range, from, t).expect("defined conversion");
        GExpr {
            e: Expr::Cast(Type::Scalar(t), Box::new(g.e)),
            ty: Type::Scalar(t),
            range,
            ..g
        }
    }

    /// `g` converted to `t`, clamping floating values into a range the integer type holds
    /// first (`(int)fmin(fmax(x, lo), hi)`, which also turns NaN into `lo`).
    pub fn to_scalar(&mut self, g: GExpr, t: Scalar) -> GExpr {
        let from = self.scalar(&g.ty).expect("arithmetic");
        if range::convert(g.range, from, t).is_some() {
            return self.cast(g, t);
        }
        let (tlo, thi) = t.range();
        let lo = if t.is_signed() {
            (-1000i128).max(tlo)
        } else {
            0
        };
        let hi = *self.rng.pick(&[255i128, 1000, 100_000]);
        let hi = hi.min(thi);
        let lo_c = self.float_const(from, lo as f64);
        let hi_c = self.float_const(from, hi as f64);
        let inner = Expr::Builtin(Builtin::Fmax, vec![g.e, lo_c.e]);
        let clamped = Expr::Builtin(Builtin::Fmin, vec![inner, hi_c.e]);
        let g = GExpr {
            e: clamped,
            ty: Type::Scalar(from),
            range: Range::Float(Some((lo as f64, hi as f64))),
            ..g
        };
        GExpr {
            e: Expr::Cast(Type::Scalar(t), Box::new(g.e)),
            ty: Type::Scalar(t),
            range: Range::Int(lo, hi),
            ..g
        }
    }

    /// `a op b` for an arithmetic or bitwise operator when defined for the operands'
    /// ranges; `None` when it may not be.
    pub fn try_binary(&self, op: BinOp, a: &GExpr, b: &GExpr) -> Option<GExpr> {
        let (sa, sb) = (self.scalar(&a.ty)?, self.scalar(&b.ty)?);
        let mut eff = a.eff.clone();
        eff.join(&b.eff);
        let uniform = a.uniform && b.uniform;
        let mk = |t: Scalar, range: Range| GExpr {
            e: Expr::Binary(op, Box::new(a.e.clone()), Box::new(b.e.clone())),
            ty: Type::Scalar(t),
            range,
            eff: eff.clone(),
            uniform,
        };
        if op.is_comparison() || matches!(op, BinOp::LogAnd | BinOp::LogOr) {
            return Some(mk(Scalar::Int, Range::Int(0, 1)));
        }
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            if !sa.is_integer() || !sb.is_integer() {
                return None;
            }
            let t = promote(sa);
            let n = t.bits() as i128;
            let (clo, chi) = b.range.int(sb);
            if !self.cfg.opencl_shift_rule && (clo < 0 || chi >= n) {
                return None;
            }
            return Some(mk(t, range::shift(op, t, a.range, b.range, sb)));
        }
        let t = usual(sa, sb);
        if t.is_float() && matches!(op, BinOp::Rem | BinOp::And | BinOp::Or | BinOp::Xor) {
            return None;
        }
        let ra = range::convert(a.range, sa, t)?;
        let rb = range::convert(b.range, sb, t)?;
        let r = range::arith(op, t, ra, rb).ok()?;
        Some(mk(t, r))
    }

    /// `a op b`, rewritten until defined: operands masked or narrowed, the operation done
    /// in the unsigned type and converted back, or a divisor made non-zero.
    pub fn binary(&mut self, op: BinOp, a: GExpr, b: GExpr) -> GExpr {
        if let Some(g) = self.try_binary(op, &a, &b) {
            return g;
        }
        let (sa, sb) = (
            self.scalar(&a.ty).expect("arith"),
            self.scalar(&b.ty).expect("arith"),
        );
        match op {
            BinOp::Shl | BinOp::Shr => {
                // C's rule: mask the count to the promoted width.
                let n = promote(sa).bits() as i128;
                let mask = self.int_const(Scalar::Int, n - 1);
                let b = self.try_binary(BinOp::And, &b, &mask).expect("mask");
                self.try_binary(op, &a, &b).expect("masked shift")
            }
            BinOp::Div | BinOp::Rem => {
                // Divisor `(b & M) + 1` in [1, M + 1].
                let m = *self.rng.pick(&[3i128, 7, 15, 255]);
                let mask = self.int_const(Scalar::Int, m);
                let masked = self.try_binary(BinOp::And, &b, &mask).expect("mask");
                let one = self.int_const(Scalar::Int, 1);
                let d = self.try_binary(BinOp::Add, &masked, &one).expect("small");
                self.try_binary(op, &a, &d).expect("non-zero divisor")
            }
            _ => {
                let t = usual(sa, sb);
                let choice = self.rng.below(3);
                if choice == 0 && t.is_integer() {
                    // In the unsigned type, converted back.
                    let u = t.to_unsigned();
                    let ua = self.cast_forced(a, u);
                    let ub = self.cast_forced(b, u);
                    let r = self
                        .try_binary(op, &ua, &ub)
                        .expect("unsigned arithmetic is defined");
                    return self.cast_forced(r, t);
                }
                if choice == 1 && t == Scalar::Int {
                    // Narrowed operands: promoted to int they cannot overflow.
                    let n = if op == BinOp::Mul {
                        Scalar::Short
                    } else {
                        *self
                            .rng
                            .pick(&[Scalar::Short, Scalar::Char, Scalar::UShort])
                    };
                    let na = self.cast_forced(a, n);
                    let nb = self.cast_forced(b, n);
                    return self.try_binary(op, &na, &nb).expect("narrow operands");
                }
                let (ma, mb) = if op == BinOp::Mul {
                    (0xfffi128, 0xffi128)
                } else {
                    (0xffff, 0xfff)
                };
                let ca = self.int_const(Scalar::Int, ma);
                let cb = self.int_const(Scalar::Int, mb);
                let a2 = self.try_binary(BinOp::And, &a, &ca).expect("mask");
                let b2 = self.try_binary(BinOp::And, &b, &cb).expect("mask");
                self.try_binary(op, &a2, &b2).expect("masked operands")
            }
        }
    }

    /// A cast that is always written (even to the same type).
    pub fn cast_forced(&mut self, g: GExpr, t: Scalar) -> GExpr {
        let from = self.scalar(&g.ty).expect("arithmetic");
        let range = range::convert(g.range, from, t).expect("defined conversion");
        GExpr {
            e: Expr::Cast(Type::Scalar(t), Box::new(g.e)),
            ty: Type::Scalar(t),
            range,
            ..g
        }
    }

    /// `-x`, `~x`, `+x`, `!x`, made defined when `-x` could overflow.
    pub fn unary(&mut self, op: UnOp, x: GExpr) -> GExpr {
        let s = self.scalar(&x.ty).expect("arithmetic");
        if op == UnOp::Not {
            return GExpr {
                e: Expr::Unary(op, Box::new(x.e)),
                ty: Type::Scalar(Scalar::Int),
                range: Range::Int(0, 1),
                ..x
            };
        }
        if s.is_float() {
            let range = match (op, x.range) {
                (UnOp::Neg, Range::Float(Some((lo, hi)))) => Range::Float(Some((-hi, -lo))),
                (_, r) => r,
            };
            return GExpr {
                e: Expr::Unary(op, Box::new(x.e)),
                range,
                ..x
            };
        }
        let t = promote(s);
        let (lo, hi) = range::convert(x.range, s, t).expect("integer").int(t);
        let (tlo, thi) = t.range();
        match op {
            UnOp::Neg if t.is_signed() && lo == tlo => {
                let one = self.int_const(Scalar::Int, 1);
                let y = self.try_binary(BinOp::Or, &x, &one).expect("or");
                self.unary(op, y)
            }
            UnOp::Neg => {
                let range = if t.is_signed() {
                    Range::Int(-hi, -lo)
                } else if lo == 0 && hi == 0 {
                    Range::Int(0, 0)
                } else if lo > 0 {
                    Range::Int(thi + 1 - hi, thi + 1 - lo)
                } else {
                    Range::full(t)
                };
                GExpr {
                    e: Expr::Unary(op, Box::new(x.e)),
                    ty: Type::Scalar(t),
                    range,
                    ..x
                }
            }
            UnOp::BitNot => {
                let range = if t.is_signed() {
                    Range::Int(!hi, !lo)
                } else {
                    Range::Int(thi - hi, thi - lo)
                };
                GExpr {
                    e: Expr::Unary(op, Box::new(x.e)),
                    ty: Type::Scalar(t),
                    range,
                    ..x
                }
            }
            _ => GExpr {
                e: Expr::Unary(op, Box::new(x.e)),
                ty: Type::Scalar(t),
                range: Range::Int(lo, hi),
                ..x
            },
        }
    }
}

/// 2^k for a normal exponent, built from its bits (exact on every host).
fn pow2(k: i64) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}
