//! Operations the ISA has no instruction for, rewritten in IR before selection:
//!
//! - 32-bit division and remainder: by a constant, with a multiply-high by a "magic"
//!   reciprocal (Granlund and Montgomery, "Division by invariant integers using
//!   multiplication", 1994) or shifts for powers of two; by a variable, with a binary32
//!   reciprocal estimate (`frcp.f32`), one Newton–Raphson step in integers and two
//!   corrections, exact for every operand pair (the method of LLVM's AMDGPU back end);
//! - 64-bit division and remainder: binary long division in a loop;
//! - conversions between 64-bit integers and floats, and binary64 → 32-bit unsigned, built
//!   from the 32-bit conversions, exactly (one rounding).
//!
//! Division by zero is undefined in C; these sequences then give some value and never trap.

use crate::ir::{BinOp, CastOp, CmpPred, Function, MathOp, OpId, OpKind, RegionId, Ty, ValueId};
use crate::source::Span;

/// Rewrite every operation of `f` that has no instruction.
pub fn legalize(f: &mut Function) {
    for id in f.walk() {
        let op = f.op(id).clone();
        let Some(&r) = op.results.first() else {
            continue;
        };
        let ty = f.ty(r);
        let replacement = {
            let mut e = E {
                f,
                region: op.parent,
                span: op.span,
                out: Vec::new(),
            };
            let v = match op.kind {
                OpKind::Binary(b @ (BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem)) => {
                    let (a, d) = (op.operands[0], op.operands[1]);
                    Some(if ty == Ty::I64 {
                        e.div64(b, a, d)
                    } else {
                        e.div32(b, a, d)
                    })
                }
                OpKind::Binary(b @ (BinOp::MulHiU | BinOp::MulHiS)) if ty == Ty::I64 => {
                    Some(e.mulhi64(b == BinOp::MulHiS, op.operands[0], op.operands[1]))
                }
                OpKind::Binary(BinOp::Rotl) if ty == Ty::I64 => {
                    let (a, n) = (op.operands[0], op.operands[1]);
                    let left = e.bin(BinOp::Shl, a, n, Ty::I64);
                    let zero = e.c(Ty::I64, 0);
                    let back = e.bin(BinOp::Sub, zero, n, Ty::I64);
                    let right = e.bin(BinOp::LShr, a, back, Ty::I64);
                    Some(e.bin(BinOp::Or, left, right, Ty::I64))
                }
                OpKind::Cast(c) => e.cast(c, op.operands[0], ty),
                OpKind::Unary(u) if ty == Ty::I64 => e.unary64(u, op.operands[0]),
                _ => None,
            };
            v.map(|v| (v, e.out))
        };
        if let Some((v, new_ops)) = replacement {
            let region = op.parent;
            let ops = &mut f.region_mut(region).ops;
            let i = ops.iter().position(|&o| o == id).expect("op in its region");
            ops.splice(i..=i, new_ops);
            replace_uses(f, r, v);
        }
    }
}

/// Make every operand `from` read `to`.
pub fn replace_uses(f: &mut Function, from: ValueId, to: ValueId) {
    for op in &mut f.ops {
        for o in &mut op.operands {
            if *o == from {
                *o = to;
            }
        }
    }
}

/// Builds a sequence of operations placed where the expanded one was.
struct E<'a> {
    f: &'a mut Function,
    region: RegionId,
    span: Span,
    out: Vec<OpId>,
}

impl E<'_> {
    fn op(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: Ty) -> ValueId {
        let id = self
            .f
            .create_op(self.region, kind, operands, &[ty], vec![], self.span);
        self.out.push(id);
        self.f.op(id).results[0]
    }
    fn c(&mut self, ty: Ty, bits: u64) -> ValueId {
        self.op(OpKind::Const(bits), vec![], ty)
    }
    fn bin(&mut self, op: BinOp, a: ValueId, b: ValueId, ty: Ty) -> ValueId {
        self.op(OpKind::Binary(op), vec![a, b], ty)
    }
    fn cmp(&mut self, p: CmpPred, a: ValueId, b: ValueId) -> ValueId {
        self.op(OpKind::Cmp(p), vec![a, b], Ty::I1)
    }
    fn sel(&mut self, c: ValueId, a: ValueId, b: ValueId, ty: Ty) -> ValueId {
        self.op(OpKind::Select, vec![c, a, b], ty)
    }
    fn cast(&mut self, c: CastOp, a: ValueId, to: Ty) -> Option<ValueId> {
        let from = self.f.ty(a);
        Some(match (c, from, to) {
            (CastOp::SIToF | CastOp::UIToF, Ty::I64, Ty::F64) => {
                self.i64_to_f64(a, c == CastOp::SIToF)
            }
            (CastOp::SIToF | CastOp::UIToF, Ty::I64, Ty::F32) => {
                self.i64_to_f32(a, c == CastOp::SIToF)
            }
            (CastOp::SIToF | CastOp::UIToF, Ty::I64, Ty::F16) => {
                let f = self.i64_to_f32(a, c == CastOp::SIToF);
                self.op(OpKind::Cast(CastOp::FTrunc), vec![f], Ty::F16)
            }
            (CastOp::FToSI | CastOp::FToUI, Ty::F32 | Ty::F16, Ty::I64) => {
                let d = self.op(OpKind::Cast(CastOp::FExt), vec![a], Ty::F64);
                self.f64_to_i64(d, c == CastOp::FToSI)
            }
            (CastOp::FToSI | CastOp::FToUI, Ty::F64, Ty::I64) => {
                self.f64_to_i64(a, c == CastOp::FToSI)
            }
            (CastOp::FToUI, Ty::F64, Ty::I32) => self.f64_to_u32(a),
            _ => return None,
        })
    }

    /// 64-bit bit counts, absolute value and bit reversal from the 32-bit halves.
    fn unary64(&mut self, u: crate::ir::UnOp, a: ValueId) -> Option<ValueId> {
        use crate::ir::UnOp;
        let t = Ty::I32;
        let widen = |s: &mut Self, v: ValueId| s.op(OpKind::Cast(CastOp::ZExt), vec![v], Ty::I64);
        Some(match u {
            UnOp::Popcount => {
                let (lo, hi) = self.halves(a);
                let pl = self.op(OpKind::Unary(UnOp::Popcount), vec![lo], t);
                let ph = self.op(OpKind::Unary(UnOp::Popcount), vec![hi], t);
                let sum = self.bin(BinOp::Add, pl, ph, t);
                widen(self, sum)
            }
            UnOp::Clz | UnOp::Ctz => {
                // clz: the high half's count unless it is zero; ctz: the low half's.
                let (lo, hi) = self.halves(a);
                let (first, second) = if u == UnOp::Clz { (hi, lo) } else { (lo, hi) };
                let c1 = self.op(OpKind::Unary(u), vec![first], t);
                let c2 = self.op(OpKind::Unary(u), vec![second], t);
                let k32 = self.i32c(32);
                let c2 = self.bin(BinOp::Add, c2, k32, t);
                let zero = self.i32c(0);
                let empty = self.cmp(CmpPred::Eq, first, zero);
                let n = self.sel(empty, c2, c1, t);
                widen(self, n)
            }
            UnOp::Brev => {
                let (lo, hi) = self.halves(a);
                let rl = self.op(OpKind::Unary(UnOp::Brev), vec![lo], t);
                let rh = self.op(OpKind::Unary(UnOp::Brev), vec![hi], t);
                let top = widen(self, rl);
                let k32 = self.c(Ty::I64, 32);
                let top = self.bin(BinOp::Shl, top, k32, Ty::I64);
                let bottom = widen(self, rh);
                self.bin(BinOp::Or, top, bottom, Ty::I64)
            }
            UnOp::Abs => {
                let zero = self.c(Ty::I64, 0);
                let neg = self.cmp(CmpPred::Slt, a, zero);
                let m = self.bin(BinOp::Sub, zero, a, Ty::I64);
                self.sel(neg, m, a, Ty::I64)
            }
            _ => return None,
        })
    }

    fn i32c(&mut self, v: u32) -> ValueId {
        self.c(Ty::I32, u64::from(v))
    }

    /// `a` converted to unsigned 32 bits, rounding toward zero (`a` in [0, 2^32)).
    fn f64_to_u32(&mut self, a: ValueId) -> ValueId {
        let two31 = self.c(Ty::F64, 2147483648f64.to_bits());
        let big = self.cmp(CmpPred::FOge, a, two31);
        let low = self.bin(BinOp::FSub, a, two31, Ty::F64);
        let src = self.sel(big, low, a, Ty::F64);
        let i = self.op(OpKind::Cast(CastOp::FToSI), vec![src], Ty::I32);
        let top = self.i32c(0x8000_0000);
        let plus = self.bin(BinOp::Or, i, top, Ty::I32);
        self.sel(big, plus, i, Ty::I32)
    }

    fn halves(&mut self, a: ValueId) -> (ValueId, ValueId) {
        let lo = self.op(OpKind::Cast(CastOp::Trunc), vec![a], Ty::I32);
        let k32 = self.c(Ty::I64, 32);
        let sh = self.bin(BinOp::LShr, a, k32, Ty::I64);
        let hi = self.op(OpKind::Cast(CastOp::Trunc), vec![sh], Ty::I32);
        (lo, hi)
    }

    /// hi·2^32 + lo, with hi signed or unsigned: both products exact, one rounding.
    fn i64_to_f64(&mut self, a: ValueId, signed: bool) -> ValueId {
        let (lo, hi) = self.halves(a);
        let fh = self.op(
            OpKind::Cast(if signed { CastOp::SIToF } else { CastOp::UIToF }),
            vec![hi],
            Ty::F64,
        );
        let two32 = self.c(Ty::F64, 4294967296f64.to_bits());
        let scaled = self.bin(BinOp::FMul, fh, two32, Ty::F64);
        let fl = self.op(OpKind::Cast(CastOp::UIToF), vec![lo], Ty::F64);
        self.bin(BinOp::FAdd, scaled, fl, Ty::F64)
    }

    /// Through binary64 without double rounding: bits of `|a|` below the 53 that binary64
    /// keeps are collapsed into one sticky bit first, so the binary64 value is exact or
    /// inexact exactly when the integer is, and rounding it to binary32 is rounding once.
    fn i64_to_f32(&mut self, a: ValueId, signed: bool) -> ValueId {
        let zero = self.c(Ty::I64, 0);
        let (mag, neg) = if signed {
            let neg = self.cmp(CmpPred::Slt, a, zero);
            let m = self.bin(BinOp::Sub, zero, a, Ty::I64);
            (self.sel(neg, m, a, Ty::I64), Some(neg))
        } else {
            (a, None)
        };
        // Keep the top 53 significant bits; OR the rest into bit 0 of the kept ones' tail:
        // for values under 2^53 nothing changes.
        let limit = self.c(Ty::I64, 1 << 53);
        let large = self.cmp(CmpPred::Uge, mag, limit);
        let eleven = self.c(Ty::I64, 11);
        let mask = self.c(Ty::I64, (1 << 11) - 1);
        let dropped = self.bin(BinOp::And, mag, mask, Ty::I64);
        let any = self.cmp(CmpPred::Ne, dropped, zero);
        let sticky = self.op(OpKind::Cast(CastOp::ZExt), vec![any], Ty::I64);
        let kept = self.bin(BinOp::LShr, mag, eleven, Ty::I64);
        let kept = self.bin(BinOp::Shl, kept, eleven, Ty::I64);
        let with = self.bin(BinOp::Or, kept, sticky, Ty::I64);
        let v = self.sel(large, with, mag, Ty::I64);
        let d = self.i64_to_f64(v, false);
        let f = self.op(OpKind::Cast(CastOp::FTrunc), vec![d], Ty::F32);
        match neg {
            Some(n) => {
                let nf = self.op(OpKind::Unary(crate::ir::UnOp::FNeg), vec![f], Ty::F32);
                self.sel(n, nf, f, Ty::F32)
            }
            None => f,
        }
    }

    /// Truncation toward zero of a binary64 value to 64 bits.
    fn f64_to_i64(&mut self, a: ValueId, signed: bool) -> ValueId {
        let mag = self.op(OpKind::Unary(crate::ir::UnOp::FAbs), vec![a], Ty::F64);
        let inv32 = self.c(Ty::F64, (1.0f64 / 4294967296.0).to_bits());
        let hf = self.bin(BinOp::FMul, mag, inv32, Ty::F64);
        let hi = self.f64_to_u32(hf);
        let hid = self.op(OpKind::Cast(CastOp::UIToF), vec![hi], Ty::F64);
        let two32 = self.c(Ty::F64, 4294967296f64.to_bits());
        let hs = self.bin(BinOp::FMul, hid, two32, Ty::F64);
        let rest = self.bin(BinOp::FSub, mag, hs, Ty::F64);
        let lo = self.f64_to_u32(rest);
        let h64 = self.op(OpKind::Cast(CastOp::ZExt), vec![hi], Ty::I64);
        let k32 = self.c(Ty::I64, 32);
        let hsh = self.bin(BinOp::Shl, h64, k32, Ty::I64);
        let l64 = self.op(OpKind::Cast(CastOp::ZExt), vec![lo], Ty::I64);
        let m = self.bin(BinOp::Or, hsh, l64, Ty::I64);
        if !signed {
            return m;
        }
        let fz = self.c(Ty::F64, 0);
        let neg = self.cmp(CmpPred::FOlt, a, fz);
        let zero = self.c(Ty::I64, 0);
        let nm = self.bin(BinOp::Sub, zero, m, Ty::I64);
        self.sel(neg, nm, m, Ty::I64)
    }

    fn mulhi64(&mut self, signed: bool, a: ValueId, b: ValueId) -> ValueId {
        // Schoolbook on 32-bit halves (unsigned), then the signed correction
        // hi(a*b) = hiu(a*b) - (a<0 ? b : 0) - (b<0 ? a : 0).
        let (al, ah) = self.halves(a);
        let (bl, bh) = self.halves(b);
        let z = |s: &mut Self, x: ValueId| s.op(OpKind::Cast(CastOp::ZExt), vec![x], Ty::I64);
        let k32 = self.c(Ty::I64, 32);
        let mask = self.c(Ty::I64, 0xffff_ffff);
        let (al, ah, bl, bh) = (z(self, al), z(self, ah), z(self, bl), z(self, bh));
        let ll = self.bin(BinOp::Mul, al, bl, Ty::I64);
        let lh = self.bin(BinOp::Mul, al, bh, Ty::I64);
        let hl = self.bin(BinOp::Mul, ah, bl, Ty::I64);
        let hh = self.bin(BinOp::Mul, ah, bh, Ty::I64);
        let llh = self.bin(BinOp::LShr, ll, k32, Ty::I64);
        let lhl = self.bin(BinOp::And, lh, mask, Ty::I64);
        let hll = self.bin(BinOp::And, hl, mask, Ty::I64);
        let mid = self.bin(BinOp::Add, llh, lhl, Ty::I64);
        let mid = self.bin(BinOp::Add, mid, hll, Ty::I64);
        let carry = self.bin(BinOp::LShr, mid, k32, Ty::I64);
        let lhh = self.bin(BinOp::LShr, lh, k32, Ty::I64);
        let hlh = self.bin(BinOp::LShr, hl, k32, Ty::I64);
        let r = self.bin(BinOp::Add, hh, lhh, Ty::I64);
        let r = self.bin(BinOp::Add, r, hlh, Ty::I64);
        let r = self.bin(BinOp::Add, r, carry, Ty::I64);
        if !signed {
            return r;
        }
        let zero = self.c(Ty::I64, 0);
        let an = self.cmp(CmpPred::Slt, a, zero);
        let bn = self.cmp(CmpPred::Slt, b, zero);
        let fa = self.sel(an, b, zero, Ty::I64);
        let fb = self.sel(bn, a, zero, Ty::I64);
        let r = self.bin(BinOp::Sub, r, fa, Ty::I64);
        self.bin(BinOp::Sub, r, fb, Ty::I64)
    }

    fn div32(&mut self, op: BinOp, a: ValueId, d: ValueId) -> ValueId {
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
        let rem = matches!(op, BinOp::URem | BinOp::SRem);
        let t = Ty::I32;
        if let Some(c) = self.f.const_bits(d).map(|c| c as u32) {
            if c != 0 {
                return self.div32_const(signed, rem, a, c);
            }
        }
        if !signed {
            let (q, r) = self.udivrem32(a, d);
            return if rem { r } else { q };
        }
        let k31 = self.i32c(31);
        let sa = self.bin(BinOp::AShr, a, k31, t);
        let sd = self.bin(BinOp::AShr, d, k31, t);
        let ua = self.bin(BinOp::Add, a, sa, t);
        let ua = self.bin(BinOp::Xor, ua, sa, t);
        let ud = self.bin(BinOp::Add, d, sd, t);
        let ud = self.bin(BinOp::Xor, ud, sd, t);
        let (q, r) = self.udivrem32(ua, ud);
        if rem {
            let x = self.bin(BinOp::Xor, r, sa, t);
            self.bin(BinOp::Sub, x, sa, t)
        } else {
            let s = self.bin(BinOp::Xor, sa, sd, t);
            let x = self.bin(BinOp::Xor, q, s, t);
            self.bin(BinOp::Sub, x, s, t)
        }
    }

    /// Unsigned quotient and remainder through a binary32 reciprocal.
    fn udivrem32(&mut self, n: ValueId, d: ValueId) -> (ValueId, ValueId) {
        let t = Ty::I32;
        let fd = self.op(OpKind::Cast(CastOp::UIToF), vec![d], Ty::F32);
        let rcp = self.op(OpKind::Math(MathOp::Rcp), vec![fd], Ty::F32);
        // 2^32 - 512: the estimate stays below 2^32 / d.
        let scale = self.c(Ty::F32, u64::from(0x4f7f_fffe_u32));
        let est = self.bin(BinOp::FMul, rcp, scale, Ty::F32);
        let q0 = self.op(OpKind::Cast(CastOp::FToUI), vec![est], t);
        let zero = self.i32c(0);
        let nd = self.bin(BinOp::Sub, zero, d, t);
        let e = self.bin(BinOp::Mul, nd, q0, t);
        let corr = self.bin(BinOp::MulHiU, q0, e, t);
        let q0 = self.bin(BinOp::Add, q0, corr, t);
        let mut q = self.bin(BinOp::MulHiU, n, q0, t);
        let qd = self.bin(BinOp::Mul, q, d, t);
        let mut r = self.bin(BinOp::Sub, n, qd, t);
        let one = self.i32c(1);
        for _ in 0..2 {
            let ge = self.cmp(CmpPred::Uge, r, d);
            let q1 = self.bin(BinOp::Add, q, one, t);
            let r1 = self.bin(BinOp::Sub, r, d, t);
            q = self.sel(ge, q1, q, t);
            r = self.sel(ge, r1, r, t);
        }
        (q, r)
    }

    fn div32_const(&mut self, signed: bool, rem: bool, a: ValueId, d: u32) -> ValueId {
        let t = Ty::I32;
        if !signed {
            let q = self.udiv32_const(a, d);
            if !rem {
                return q;
            }
            if d.is_power_of_two() {
                let m = self.i32c(d - 1);
                return self.bin(BinOp::And, a, m, t);
            }
            let dc = self.i32c(d);
            let qd = self.bin(BinOp::Mul, q, dc, t);
            return self.bin(BinOp::Sub, a, qd, t);
        }
        let ds = d as i32;
        let mag = ds.unsigned_abs();
        let q = if mag.is_power_of_two() && mag > 1 {
            // Round toward zero: add mag-1 to negative dividends before shifting.
            let k = mag.trailing_zeros();
            let k31 = self.i32c(31);
            let s = self.bin(BinOp::AShr, a, k31, t);
            let sh = self.i32c(32 - k);
            let bias = self.bin(BinOp::LShr, s, sh, t);
            let x = self.bin(BinOp::Add, a, bias, t);
            let kk = self.i32c(k);
            self.bin(BinOp::AShr, x, kk, t)
        } else if mag == 1 {
            a
        } else {
            let k31 = self.i32c(31);
            let s = self.bin(BinOp::AShr, a, k31, t);
            let ua = self.bin(BinOp::Add, a, s, t);
            let ua = self.bin(BinOp::Xor, ua, s, t);
            let uq = self.udiv32_const(ua, mag);
            let x = self.bin(BinOp::Xor, uq, s, t);
            self.bin(BinOp::Sub, x, s, t)
        };
        let q = if ds < 0 {
            let zero = self.i32c(0);
            self.bin(BinOp::Sub, zero, q, t)
        } else {
            q
        };
        if !rem {
            return q;
        }
        let dc = self.i32c(d);
        let qd = self.bin(BinOp::Mul, q, dc, t);
        self.bin(BinOp::Sub, a, qd, t)
    }

    fn udiv32_const(&mut self, n: ValueId, d: u32) -> ValueId {
        let t = Ty::I32;
        if d == 1 {
            return n;
        }
        if d.is_power_of_two() {
            let k = self.i32c(d.trailing_zeros());
            return self.bin(BinOp::LShr, n, k, t);
        }
        let (m, add, s) = magic_u32(d);
        let mc = self.i32c(m);
        let hi = self.bin(BinOp::MulHiU, n, mc, t);
        if !add {
            if s == 0 {
                return hi;
            }
            let sc = self.i32c(s);
            return self.bin(BinOp::LShr, hi, sc, t);
        }
        let diff = self.bin(BinOp::Sub, n, hi, t);
        let one = self.i32c(1);
        let half = self.bin(BinOp::LShr, diff, one, t);
        let sum = self.bin(BinOp::Add, half, hi, t);
        let sc = self.i32c(s - 1);
        self.bin(BinOp::LShr, sum, sc, t)
    }

    /// 64-bit division by binary long division: a loop of 64 steps (uniform: its trip count
    /// does not depend on the data).
    fn div64(&mut self, op: BinOp, a: ValueId, d: ValueId) -> ValueId {
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
        let rem = matches!(op, BinOp::URem | BinOp::SRem);
        let t = Ty::I64;
        let (n, dd, sa, sd) = if signed {
            let k63 = self.c(t, 63);
            let sa = self.bin(BinOp::AShr, a, k63, t);
            let sd = self.bin(BinOp::AShr, d, k63, t);
            let ua = self.bin(BinOp::Add, a, sa, t);
            let ua = self.bin(BinOp::Xor, ua, sa, t);
            let ud = self.bin(BinOp::Add, d, sd, t);
            let ud = self.bin(BinOp::Xor, ud, sd, t);
            (ua, ud, Some(sa), Some(sd))
        } else {
            (a, d, None, None)
        };
        let zero = self.c(t, 0);
        let start = self.c(Ty::I32, 63);
        let body = self.f.new_region(&[t, t, Ty::I32]);
        let args = self.f.region(body).args.clone();
        let (q, r, i) = (args[0], args[1], args[2]);
        {
            let mut b = E {
                f: self.f,
                region: body,
                span: self.span,
                out: Vec::new(),
            };
            let i64v = b.op(OpKind::Cast(CastOp::ZExt), vec![i], t);
            let shifted = b.bin(BinOp::LShr, n, i64v, t);
            let one = b.c(t, 1);
            let bit = b.bin(BinOp::And, shifted, one, t);
            let r2 = b.bin(BinOp::Shl, r, one, t);
            let r2 = b.bin(BinOp::Or, r2, bit, t);
            let ge = b.cmp(CmpPred::Uge, r2, dd);
            let sub = b.bin(BinOp::Sub, r2, dd, t);
            let r3 = b.sel(ge, sub, r2, t);
            let qbit = b.bin(BinOp::Shl, one, i64v, t);
            let z = b.c(t, 0);
            let add = b.sel(ge, qbit, z, t);
            let q2 = b.bin(BinOp::Or, q, add, t);
            let one32 = b.c(Ty::I32, 1);
            let i2 = b.bin(BinOp::Sub, i, one32, Ty::I32);
            let z32 = b.c(Ty::I32, 0);
            let cont = b.cmp(CmpPred::Sge, i2, z32);
            let ops = std::mem::take(&mut b.out);
            let end = b.f.create_op(
                body,
                OpKind::LoopEnd,
                vec![cont, q2, r3, i2],
                &[],
                vec![],
                b.span,
            );
            b.f.region_mut(body).ops = ops;
            b.f.region_mut(body).ops.push(end);
        }
        let lp = self.f.create_op(
            self.region,
            OpKind::Loop,
            vec![zero, zero, start],
            &[t, t, Ty::I32],
            vec![body],
            self.span,
        );
        self.out.push(lp);
        let res = self.f.op(lp).results.clone();
        let (uq, ur) = (res[0], res[1]);
        match (signed, rem) {
            (false, false) => uq,
            (false, true) => ur,
            (true, true) => {
                let sa = sa.expect("sign");
                let x = self.bin(BinOp::Xor, ur, sa, t);
                self.bin(BinOp::Sub, x, sa, t)
            }
            (true, false) => {
                let s = self.bin(BinOp::Xor, sa.expect("sign"), sd.expect("sign"), t);
                let x = self.bin(BinOp::Xor, uq, s, t);
                self.bin(BinOp::Sub, x, s, t)
            }
        }
    }
}

/// The magic multiplier of unsigned division by `d` (not a power of two): `(m, add, s)`
/// with `n / d == mulhi(n, m) >> s` when `add` is false, and
/// `((n - h) / 2 + h) >> (s - 1)` with `h = mulhi(n, m)` when it is true (the 33-bit case).
pub fn magic_u32(d: u32) -> (u32, bool, u32) {
    let d64 = u64::from(d);
    // Smallest s with 2^(32+s) / d rounded up fitting the error bound.
    for s in 0..=32u32 {
        let two = 1u128 << (32 + s);
        let m = two.div_ceil(u128::from(d64));
        let err = m * u128::from(d64) - two;
        if err <= (1u128 << s) {
            if m < (1u128 << 32) {
                return (m as u32, false, s);
            }
            return ((m - (1u128 << 32)) as u32, true, s);
        }
    }
    unreachable!("a shift up to 32 always works")
}

#[cfg(test)]
mod tests {
    use super::magic_u32;

    fn divide(n: u32, d: u32) -> u32 {
        let (m, add, s) = magic_u32(d);
        let h = ((u64::from(n) * u64::from(m)) >> 32) as u32;
        if add {
            (((n - h) >> 1) + h) >> (s - 1)
        } else {
            h >> s
        }
    }

    #[test]
    fn magic_numbers_divide_exactly() {
        let mut x = 0x1234_5678_u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for d in (3..2000u32).chain([
            7,
            10,
            641,
            65537,
            0x7fff_ffff,
            0xffff_fffe,
            0xffff_ffff,
            1_000_000_007,
        ]) {
            if d.is_power_of_two() {
                continue;
            }
            for n in [
                0,
                1,
                d - 1,
                d,
                d.wrapping_add(1),
                u32::MAX,
                u32::MAX - 1,
                0x8000_0000,
            ] {
                assert_eq!(divide(n, d), n / d, "{n} / {d}");
            }
            for _ in 0..200 {
                let n = next();
                assert_eq!(divide(n, d), n / d, "{n} / {d}");
            }
        }
    }
}
