//! Constant folding and algebraic simplification, in one walk in program order (an
//! operation's operands are simplified before it is).
//!
//! - Operations whose operands are all constants become constants, computed by
//!   [`crate::ir::eval`] (the interpreter's own semantics: IEEE round to nearest even with
//!   canonical NaNs). Integer divisions that are undefined (by zero, `MIN / -1`) and the
//!   approximate `Math` operations are never folded.
//! - Integer identities: `x+0 x-0 x*1 x/1 x&-1 x|0 x^0 x<<0` → `x`; `x*0 x&0 x-x x^x x%1
//!   x&~x` → 0; `x|~x x^~x` → -1; `x&x x|x min(x,x)` → `x`; `x-c` → `x+(-c)`;
//!   `(x+c1)+c2`, `(x*c1)*c2`, `(x&c1)&c2` and `ptradd(ptradd(p, c1), c2)` combine their
//!   constants; `x*2^k` → `x<<k`, unsigned `x/2^k` → `x>>k`, `x%2^k` → `x&(2^k-1)`;
//!   constant shift amounts are reduced modulo the width; constants move to the right of
//!   commutative operations. Constants move outward: `(x+c1)*c2` → `x*c2 + c1*c2`,
//!   `(x+c1)<<c2` likewise, `p + (x+c)` and `(p+c) + x` → `(p+x) + c` (when the inner sum
//!   has no other use), so that unrolled copies share `p+x` and keep `c` as an immediate
//!   offset.
//! - Comparisons: of a value with itself (integers only), constants to the right (the
//!   predicate swapped), `i1` against constants, `zext(i1)` against constants, and 64-bit
//!   comparisons of zero- or sign-extended 32-bit values (or constants that fit) become
//!   32-bit comparisons; `not(cmp)` inverts the predicate.
//! - `select` with a constant condition or equal choices, `i1` selects of constants become
//!   the condition, its negation, `and` or `or`; `select(not c, a, b)` → `select(c, b, a)`.
//! - Casts: `trunc(zext x)`, `trunc(sext x)` → `x` (or a narrower extension/truncation),
//!   extension chains, redundant in-place extensions (after a narrow load or a smaller
//!   extension or mask), `bitcast(bitcast x)` → `x`.
//! - **Narrowing**: `trunc64→32` of `add sub mul and or xor`, of `shl` by a constant below
//!   32 and of `select` is the same operation on the truncated operands (recursively,
//!   through operations with no other use): C's `size_t` index arithmetic becomes 32-bit
//!   arithmetic where only the low 32 bits are needed (local and private addresses).
//!   `trunc` of a logical right shift by a constant narrows too when the shifted value's
//!   high half is known to be zero, and 64-bit comparisons of such values become 32-bit
//!   comparisons. `I64` loop-carried values and `If` results that always fit in 32 bits
//!   (their initial and next values, or both yields, have a zero high half — zero
//!   extensions, constants, right shifts, masks, unsigned divisions of such) are carried
//!   as `I32` and zero-extended where used, so a `size_t` loop counter costs 32-bit
//!   arithmetic.
//! - Floats are folded only when every operand is constant, exactly as the machine rounds;
//!   no float identity is applied (`x*1`, `x+0` would change NaN payloads or signed
//!   zeros) and nothing is reassociated.
//! - Control flow: an `If` with a constant condition is replaced by the arm it runs; an
//!   `If` result yielded as the same value by both arms is that value, and an `i1` result
//!   yielded as `true`/`false` is the condition (or its negation); a `Loop` whose continue
//!   flag is the constant false runs once and is replaced by its body.

use super::util::{is_value_op, Subst};
use crate::ir::eval;
use crate::ir::{
    BinOp, CastOp, CmpPred, Function, OpId, OpKind, RegionId, Ty, UnOp, ValueDef, ValueId,
};
use crate::source::Span;

/// Run the pass; whether anything changed.
pub(crate) fn run(func: &mut Function) -> bool {
    let mut f = Folder {
        after_op: Vec::new(),
        uses: super::util::use_counts(func),
        subst: Subst::default(),
        changed: false,
    };
    let body = func.body;
    f.region(func, body);
    f.subst.apply(func);
    f.changed
}

struct Folder {
    /// Operations to place right after the `If` or `Loop` being processed.
    after_op: Vec<OpId>,
    uses: Vec<u32>,
    subst: Subst,
    changed: bool,
}

/// What to do with a value operation.
enum Simp {
    Keep,
    /// Its result is this existing value: drop the operation.
    Value(ValueId),
    /// It becomes this constant.
    Const(u64),
    /// It becomes this operation (same result type).
    Rewrite(OpKind, Vec<ValueId>),
}

impl Folder {
    fn region(&mut self, func: &mut Function, r: RegionId) {
        let ops = std::mem::take(&mut func.region_mut(r).ops);
        let mut out = Vec::with_capacity(ops.len());
        self.ops(func, ops, r, &mut out);
        func.region_mut(r).ops = out;
    }

    fn ops(&mut self, func: &mut Function, ops: Vec<OpId>, region: RegionId, out: &mut Vec<OpId>) {
        for op in ops {
            func.op_mut(op).parent = region;
            self.subst.resolve_operands(func, op);
            match func.op(op).kind {
                OpKind::If => self.if_op(func, op, region, out),
                OpKind::Loop => self.loop_op(func, op, region, out),
                ref k if is_value_op(k) => self.value_op(func, op, region, out),
                _ => out.push(op),
            }
        }
    }

    fn used(&self, v: ValueId) -> bool {
        self.count(v) > 0
    }

    fn if_op(&mut self, func: &mut Function, op: OpId, region: RegionId, out: &mut Vec<OpId>) {
        let cond = func.op(op).operands[0];
        let [then, els] = [func.op(op).regions[0], func.op(op).regions[1]];
        if let Some(c) = func.const_bits(cond) {
            let arm = if c != 0 { then } else { els };
            let mut arm_ops = std::mem::take(&mut func.region_mut(arm).ops);
            let y = arm_ops.pop().expect("an arm ends with yield");
            self.ops(func, arm_ops, region, out);
            self.subst.resolve_operands(func, y);
            let results = func.op(op).results.clone();
            for (r, v) in results.into_iter().zip(func.op(y).operands.clone()) {
                self.replace(r, v);
            }
            self.changed = true;
            return;
        }
        self.region(func, then);
        self.region(func, els);
        self.narrow_if_results(func, op, region);
        out.push(op);
        out.append(&mut self.after_op);
        let yield_of = |func: &Function, r: RegionId| *func.region(r).ops.last().unwrap();
        let (ty, ey) = (yield_of(func, then), yield_of(func, els));
        let results = func.op(op).results.clone();
        for (i, r) in results.into_iter().enumerate() {
            if !self.used(r) {
                continue;
            }
            let (t, e) = (func.op(ty).operands[i], func.op(ey).operands[i]);
            if t == e {
                self.replace(r, t);
                self.changed = true;
            } else if func.ty(r) == Ty::I1 {
                match (func.const_bits(t), func.const_bits(e)) {
                    (Some(1), Some(0)) => {
                        self.replace(r, cond);
                        self.changed = true;
                    }
                    (Some(0), Some(1)) => {
                        let span = func.op(op).span;
                        let not = self.emit(
                            func,
                            region,
                            out,
                            OpKind::Unary(UnOp::Not),
                            vec![cond],
                            Ty::I1,
                            span,
                        );
                        self.replace(r, not);
                        self.changed = true;
                    }
                    _ => {}
                }
            }
        }
    }

    fn loop_op(&mut self, func: &mut Function, op: OpId, region: RegionId, out: &mut Vec<OpId>) {
        let body = func.op(op).regions[0];
        self.region(func, body);
        let end = *func.region(body).ops.last().unwrap();
        if func.const_bits(func.op(end).operands[0]) != Some(0) {
            self.narrow_carried(func, op, region, out);
            out.push(op);
            out.append(&mut self.after_op);
            return;
        }
        // The body runs exactly once: it replaces the loop.
        let mut body_ops = std::mem::take(&mut func.region_mut(body).ops);
        body_ops.pop();
        let args = func.region(body).args.clone();
        for (a, init) in args.into_iter().zip(func.op(op).operands.clone()) {
            self.replace(a, init);
        }
        for &o in &body_ops {
            self.subst.resolve_operands(func, o);
            func.op_mut(o).parent = region;
        }
        out.extend(body_ops);
        let results = func.op(op).results.clone();
        for (r, v) in results.into_iter().zip(func.op(end).operands[1..].to_vec()) {
            self.replace(r, v);
        }
        self.changed = true;
    }

    /// Carry as `I32` the `I64` values of loop `op` that always fit in 32 bits (a
    /// `size_t` counter from a zero-extended `int`, halved each iteration, say): the body
    /// and the code after the loop see them zero-extended, which folding then narrows.
    fn narrow_carried(
        &mut self,
        func: &mut Function,
        op: OpId,
        region: RegionId,
        out: &mut Vec<OpId>,
    ) {
        let body = func.op(op).regions[0];
        let end = *func.region(body).ops.last().unwrap();
        let span = func.op(op).span;
        for i in 0..func.op(op).operands.len() {
            let arg = func.region(body).args[i];
            let (init, next) = (func.op(op).operands[i], func.op(end).operands[i + 1]);
            if func.ty(arg) != Ty::I64
                || !high_zero(func, init, None, 0)
                || !high_zero(func, next, Some(arg), 0)
            {
                continue;
            }
            // Before the loop: the initial value, truncated.
            let init32 = self.emit(
                func,
                region,
                out,
                OpKind::Cast(CastOp::Trunc),
                vec![init],
                Ty::I32,
                span,
            );
            self.unuse(init);
            func.op_mut(op).operands[i] = init32;
            // In the body: a new i32 argument; the old one becomes its zero extension.
            let arg32 = new_value(func, Ty::I32, ValueDef::Arg(body, i as u32));
            func.region_mut(body).args[i] = arg32;
            let ext = func.create_op(
                body,
                OpKind::Cast(CastOp::ZExt),
                vec![arg32],
                &[],
                vec![],
                span,
            );
            redefine(func, arg, ext);
            func.region_mut(body).ops.insert(0, ext);
            // At the end of the body: the next value, truncated.
            let (t, next32) = super::util::new_value_op(
                func,
                body,
                OpKind::Cast(CastOp::Trunc),
                vec![next],
                Ty::I32,
                span,
            );
            let ops = &mut func.region_mut(body).ops;
            let at = ops.len() - 1;
            ops.insert(at, t);
            func.op_mut(end).operands[i + 1] = next32;
            // After the loop: the result, zero-extended.
            let res = func.op(op).results[i];
            let res32 = new_value(func, Ty::I32, ValueDef::Op(op, i as u32));
            func.op_mut(op).results[i] = res32;
            let rext = func.create_op(
                region,
                OpKind::Cast(CastOp::ZExt),
                vec![res32],
                &[],
                vec![],
                span,
            );
            redefine(func, res, rext);
            self.after_op.push(rext);
            self.changed = true;
        }
    }

    /// Yield as `I32` the `I64` results of `If` `op` that both arms compute as values that
    /// fit in 32 bits; the code after the `If` sees them zero-extended.
    fn narrow_if_results(&mut self, func: &mut Function, op: OpId, region: RegionId) {
        let arms = func.op(op).regions.clone();
        let span = func.op(op).span;
        for i in 0..func.op(op).results.len() {
            let res = func.op(op).results[i];
            let yields: Vec<OpId> = arms
                .iter()
                .map(|&a| *func.region(a).ops.last().unwrap())
                .collect();
            if func.ty(res) != Ty::I64
                || !yields
                    .iter()
                    .all(|&y| high_zero(func, func.op(y).operands[i], None, 0))
            {
                continue;
            }
            for (&arm, &y) in arms.iter().zip(&yields) {
                let v = func.op(y).operands[i];
                let (t, v32) = super::util::new_value_op(
                    func,
                    arm,
                    OpKind::Cast(CastOp::Trunc),
                    vec![v],
                    Ty::I32,
                    span,
                );
                let ops = &mut func.region_mut(arm).ops;
                let at = ops.len() - 1;
                ops.insert(at, t);
                func.op_mut(y).operands[i] = v32;
            }
            let res32 = new_value(func, Ty::I32, ValueDef::Op(op, i as u32));
            func.op_mut(op).results[i] = res32;
            let ext = func.create_op(
                region,
                OpKind::Cast(CastOp::ZExt),
                vec![res32],
                &[],
                vec![],
                span,
            );
            redefine(func, res, ext);
            self.after_op.push(ext);
            self.changed = true;
        }
    }

    fn value_op(&mut self, func: &mut Function, op: OpId, region: RegionId, out: &mut Vec<OpId>) {
        for _ in 0..8 {
            match self.simplify(func, op, region, out) {
                Simp::Keep => break,
                Simp::Value(v) => {
                    let r = func.op(op).results[0];
                    for x in func.op(op).operands.clone() {
                        self.unuse(x);
                    }
                    self.replace(r, v);
                    self.changed = true;
                    return;
                }
                Simp::Const(bits) => {
                    for x in std::mem::take(&mut func.op_mut(op).operands) {
                        self.unuse(x);
                    }
                    func.op_mut(op).kind = OpKind::Const(bits);
                    self.changed = true;
                    break;
                }
                Simp::Rewrite(kind, operands) => {
                    for &x in &operands {
                        *self.uses_mut(x) += 1;
                    }
                    let o = func.op_mut(op);
                    let old = std::mem::replace(&mut o.operands, operands);
                    o.kind = kind;
                    for x in old {
                        self.unuse(x);
                    }
                    self.changed = true;
                }
            }
        }
        out.push(op);
    }

    /// Replace `r` by `v` everywhere (later), moving `r`'s uses to `v`.
    fn replace(&mut self, r: ValueId, v: ValueId) {
        let v = self.subst.get(v);
        let moved = self.count(r);
        *self.uses_mut(v) += moved;
        self.subst.set(r, v);
    }

    /// Uses of `v` as counted so far (values made by this pass start at zero and count
    /// the operands the pass gives them).
    fn count(&self, v: ValueId) -> u32 {
        self.uses.get(v.0 as usize).copied().unwrap_or(0)
    }

    /// One use of `v` fewer. (The counts only steer narrowing and distribution; they
    /// follow every change this pass makes, and saturate rather than trust that.)
    fn unuse(&mut self, v: ValueId) {
        let n = self.uses_mut(v);
        *n = n.saturating_sub(1);
    }

    fn uses_mut(&mut self, v: ValueId) -> &mut u32 {
        let i = v.0 as usize;
        if i >= self.uses.len() {
            self.uses.resize(i + 1, 0);
        }
        &mut self.uses[i]
    }

    /// A new value operation placed at the current point, itself simplified.
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        func: &mut Function,
        region: RegionId,
        out: &mut Vec<OpId>,
        kind: OpKind,
        operands: Vec<ValueId>,
        ty: Ty,
        span: Span,
    ) -> ValueId {
        for &x in &operands {
            *self.uses_mut(x) += 1;
        }
        let (op, r) = super::util::new_value_op(func, region, kind, operands, ty, span);
        self.value_op(func, op, region, out);
        self.subst.get(r)
    }

    fn konst(
        &mut self,
        func: &mut Function,
        region: RegionId,
        out: &mut Vec<OpId>,
        ty: Ty,
        bits: u64,
    ) -> ValueId {
        let (op, r) = super::util::new_value_op(
            func,
            region,
            OpKind::Const(bits & eval::mask(ty)),
            vec![],
            ty,
            Span::DUMMY,
        );
        out.push(op);
        r
    }

    fn simplify(
        &mut self,
        func: &mut Function,
        op: OpId,
        region: RegionId,
        out: &mut Vec<OpId>,
    ) -> Simp {
        let o = func.op(op);
        let kind = o.kind.clone();
        let ops = o.operands.clone();
        let ty = func.ty(o.results[0]);
        let c = |v: ValueId| func.const_bits(v);
        match kind {
            OpKind::Unary(u) => {
                let a = ops[0];
                if let Some(x) = c(a) {
                    return Simp::Const(eval::unary(u, ty, x));
                }
                match def(func, a) {
                    Some((OpKind::Unary(u2), [x]))
                        if *u2 == u && matches!(u, UnOp::Not | UnOp::Neg | UnOp::FNeg) =>
                    {
                        Simp::Value(*x)
                    }
                    Some((OpKind::Cmp(p), [x, y])) if u == UnOp::Not => match inverse(*p) {
                        Some(q) => Simp::Rewrite(OpKind::Cmp(q), vec![*x, *y]),
                        None => Simp::Keep,
                    },
                    _ => Simp::Keep,
                }
            }
            OpKind::Binary(b) => self.binary(func, b, &ops, ty, region, out),
            OpKind::Fma => match (c(ops[0]), c(ops[1]), c(ops[2])) {
                (Some(a), Some(b), Some(d)) => Simp::Const(eval::fma(ty, a, b, d)),
                _ => Simp::Keep,
            },
            OpKind::Cmp(p) => self.cmp(func, p, &ops, region, out),
            OpKind::Select => {
                let [cond, a, b] = [ops[0], ops[1], ops[2]];
                if let Some(k) = c(cond) {
                    return Simp::Value(if k != 0 { a } else { b });
                }
                if a == b {
                    return Simp::Value(a);
                }
                if let Some((OpKind::Unary(UnOp::Not), [x])) = def(func, cond) {
                    return Simp::Rewrite(OpKind::Select, vec![*x, b, a]);
                }
                if ty == Ty::I1 {
                    return match (c(a), c(b)) {
                        (Some(1), Some(0)) => Simp::Value(cond),
                        (Some(0), Some(1)) => Simp::Rewrite(OpKind::Unary(UnOp::Not), vec![cond]),
                        (_, Some(0)) => Simp::Rewrite(OpKind::Binary(BinOp::And), vec![cond, a]),
                        (Some(1), _) => Simp::Rewrite(OpKind::Binary(BinOp::Or), vec![cond, b]),
                        _ => Simp::Keep,
                    };
                }
                Simp::Keep
            }
            OpKind::Cast(k) => self.cast(func, k, ops[0], ty, region, out),
            OpKind::Math(m) => match c(ops[0]) {
                Some(x) if eval::math_is_exact(m) => Simp::Const(eval::math(m, ty, x)),
                _ => Simp::Keep,
            },
            OpKind::PtrAdd if c(ops[1]).is_some() => {
                let (p, off) = (ops[0], ops[1]);
                let k = c(off).unwrap();
                if k == 0 {
                    return Simp::Value(p);
                }
                if let Some((OpKind::PtrAdd, [q, inner])) = def(func, p) {
                    if let Some(k1) = c(*inner) {
                        let q = *q;
                        let it = func.ty(off);
                        let sum = self.konst(func, region, out, it, k1.wrapping_add(k));
                        return Simp::Rewrite(OpKind::PtrAdd, vec![q, sum]);
                    }
                }
                Simp::Keep
            }
            OpKind::PtrAdd => {
                // Constant offsets move outward: `p + (x + c)` and `(p + c) + x` become
                // `(p + x) + c`, so that copies differing only in `c` share `p + x`.
                let (p, off) = (ops[0], ops[1]);
                let span = func.op(op).span;
                if let Some((OpKind::Binary(BinOp::Add), [x, k])) = def(func, off) {
                    if func.const_bits(*k).is_some() && self.single_use(off) {
                        let (x, k) = (*x, *k);
                        let pt = func.ty(p);
                        let inner =
                            self.emit(func, region, out, OpKind::PtrAdd, vec![p, x], pt, span);
                        return Simp::Rewrite(OpKind::PtrAdd, vec![inner, k]);
                    }
                }
                if let Some((OpKind::PtrAdd, [q, k])) = def(func, p) {
                    if func.const_bits(*k).is_some() && self.single_use(p) {
                        let (q, k) = (*q, *k);
                        let pt = func.ty(p);
                        let inner =
                            self.emit(func, region, out, OpKind::PtrAdd, vec![q, off], pt, span);
                        return Simp::Rewrite(OpKind::PtrAdd, vec![inner, k]);
                    }
                }
                Simp::Keep
            }
            _ => Simp::Keep,
        }
    }

    fn binary(
        &mut self,
        func: &mut Function,
        b: BinOp,
        ops: &[ValueId],
        ty: Ty,
        region: RegionId,
        out: &mut Vec<OpId>,
    ) -> Simp {
        let (a, bv) = (ops[0], ops[1]);
        let (ca, cb) = (func.const_bits(a), func.const_bits(bv));
        if let (Some(x), Some(y)) = (ca, cb) {
            return match eval::binary(b, ty, x, y) {
                Ok(v) => Simp::Const(v),
                Err(_) => Simp::Keep,
            };
        }
        if b.is_commutative() && ca.is_some() {
            return Simp::Rewrite(OpKind::Binary(b), vec![bv, a]);
        }
        if b.is_float() {
            return Simp::Keep;
        }
        let m = eval::mask(ty);
        let w = u64::from(ty.bits());
        let pow2 = cb
            .filter(|k| k.is_power_of_two())
            .map(|k| u64::from(k.trailing_zeros()));
        // (x op c1) op c2 → x op (c1 op c2), for associative operations.
        let combine = |func: &Function| -> Option<(ValueId, u64)> {
            let k2 = cb?;
            match def(func, a) {
                Some((OpKind::Binary(inner), [x, k1])) if *inner == b => {
                    let k1 = func.const_bits(*k1)?;
                    Some((*x, eval::binary(b, ty, k1, k2).ok()?))
                }
                _ => None,
            }
        };
        // x & ~x, x | ~x, x ^ ~x (also of comparisons with inverse predicates).
        let complement = |x: ValueId, y: ValueId| match (def(func, x), def(func, y)) {
            (Some((OpKind::Unary(UnOp::Not), [z])), _) => *z == y,
            (Some((OpKind::Cmp(p), [x1, x2])), Some((OpKind::Cmp(q), [y1, y2]))) => {
                x1 == y1 && x2 == y2 && inverse(*p) == Some(*q)
            }
            _ => false,
        };
        if matches!(b, BinOp::And | BinOp::Or | BinOp::Xor)
            && (complement(a, bv) || complement(bv, a))
        {
            return Simp::Const(if b == BinOp::And { 0 } else { m });
        }
        match b {
            BinOp::Add | BinOp::And | BinOp::Mul => {
                if b == BinOp::Add && cb == Some(0) {
                    return Simp::Value(a);
                }
                if b == BinOp::Mul {
                    match cb {
                        Some(0) => return Simp::Const(0),
                        Some(1) => return Simp::Value(a),
                        _ => {}
                    }
                }
                if b == BinOp::And {
                    if cb == Some(0) {
                        return Simp::Const(0);
                    }
                    if cb == Some(m) || a == bv {
                        return Simp::Value(a);
                    }
                }
                if let Some((x, k)) = combine(func) {
                    let kv = self.konst(func, region, out, ty, k);
                    return Simp::Rewrite(OpKind::Binary(b), vec![x, kv]);
                }
                if b == BinOp::Mul {
                    if let Some(d) = self.distribute(func, b, a, cb, ty, region, out) {
                        return d;
                    }
                }
                if b == BinOp::Mul && ty != Ty::I1 {
                    if let Some(k) = pow2 {
                        let kv = self.konst(func, region, out, ty, k);
                        return Simp::Rewrite(OpKind::Binary(BinOp::Shl), vec![a, kv]);
                    }
                }
                Simp::Keep
            }
            BinOp::Sub => {
                if cb == Some(0) {
                    return Simp::Value(a);
                }
                if a == bv {
                    return Simp::Const(0);
                }
                if let Some(k) = cb {
                    let kv = self.konst(func, region, out, ty, k.wrapping_neg());
                    return Simp::Rewrite(OpKind::Binary(BinOp::Add), vec![a, kv]);
                }
                if ca == Some(0) {
                    return Simp::Rewrite(OpKind::Unary(UnOp::Neg), vec![bv]);
                }
                Simp::Keep
            }
            BinOp::UDiv | BinOp::SDiv if cb == Some(1) => Simp::Value(a),
            BinOp::URem | BinOp::SRem if cb == Some(1) => Simp::Const(0),
            BinOp::UDiv => match pow2 {
                Some(k) => {
                    let kv = self.konst(func, region, out, ty, k);
                    Simp::Rewrite(OpKind::Binary(BinOp::LShr), vec![a, kv])
                }
                None => Simp::Keep,
            },
            BinOp::URem => match cb {
                Some(k) if k.is_power_of_two() => {
                    let kv = self.konst(func, region, out, ty, k - 1);
                    Simp::Rewrite(OpKind::Binary(BinOp::And), vec![a, kv])
                }
                _ => Simp::Keep,
            },
            BinOp::Or => {
                if cb == Some(0) || a == bv {
                    Simp::Value(a)
                } else if cb == Some(m) {
                    Simp::Const(m)
                } else {
                    Simp::Keep
                }
            }
            BinOp::Xor => {
                if cb == Some(0) {
                    Simp::Value(a)
                } else if a == bv {
                    Simp::Const(0)
                } else if ty == Ty::I1 && cb == Some(1) {
                    Simp::Rewrite(OpKind::Unary(UnOp::Not), vec![a])
                } else {
                    Simp::Keep
                }
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr | BinOp::Rotl => {
                if let Some(k) = cb {
                    if k % w == 0 {
                        return Simp::Value(a);
                    }
                    if k >= w {
                        let kv = self.konst(func, region, out, ty, k % w);
                        return Simp::Rewrite(OpKind::Binary(b), vec![a, kv]);
                    }
                }
                if ca == Some(0) {
                    return Simp::Const(0);
                }
                if b == BinOp::Shl {
                    if let Some(d) = self.distribute(func, b, a, cb, ty, region, out) {
                        return d;
                    }
                }
                Simp::Keep
            }
            BinOp::SMin | BinOp::SMax | BinOp::UMin | BinOp::UMax if a == bv => Simp::Value(a),
            BinOp::MulHiS | BinOp::MulHiU if cb == Some(0) => Simp::Const(0),
            _ => Simp::Keep,
        }
    }

    fn single_use(&self, v: ValueId) -> bool {
        self.count(v) == 1
    }

    /// `(x + c1) * c2` → `x*c2 + c1*c2` and `(x + c1) << c2` → `(x << c2) + (c1 << c2)`
    /// (wrapping arithmetic distributes), when the sum has no other use: the constant ends
    /// outermost, where it folds into an address offset.
    #[allow(clippy::too_many_arguments)]
    fn distribute(
        &mut self,
        func: &mut Function,
        b: BinOp,
        a: ValueId,
        cb: Option<u64>,
        ty: Ty,
        region: RegionId,
        out: &mut Vec<OpId>,
    ) -> Option<Simp> {
        let k2 = cb?;
        let Some((OpKind::Binary(BinOp::Add), [x, k1])) = def(func, a) else {
            return None;
        };
        let (x, k1) = (*x, func.const_bits(*k1)?);
        if !self.single_use(a) {
            return None;
        }
        let span = func.def_op(a).map_or(Span::DUMMY, |o| func.op(o).span);
        let k2v = self.konst(func, region, out, ty, k2);
        let scaled = self.emit(func, region, out, OpKind::Binary(b), vec![x, k2v], ty, span);
        let k = eval::binary(b, ty, k1, k2).ok()?;
        let kv = self.konst(func, region, out, ty, k);
        Some(Simp::Rewrite(OpKind::Binary(BinOp::Add), vec![scaled, kv]))
    }

    fn cmp(
        &mut self,
        func: &mut Function,
        p: CmpPred,
        ops: &[ValueId],
        region: RegionId,
        out: &mut Vec<OpId>,
    ) -> Simp {
        let (a, b) = (ops[0], ops[1]);
        let t = func.ty(a);
        let (ca, cb) = (func.const_bits(a), func.const_bits(b));
        if let (Some(x), Some(y)) = (ca, cb) {
            return Simp::Const(u64::from(eval::cmp(p, t, x, y)));
        }
        if ca.is_some() {
            return Simp::Rewrite(OpKind::Cmp(swap(p)), vec![b, a]);
        }
        if t.is_float() {
            return Simp::Keep;
        }
        if a == b {
            let holds = matches!(
                p,
                CmpPred::Eq | CmpPred::Sle | CmpPred::Sge | CmpPred::Ule | CmpPred::Uge
            );
            return Simp::Const(u64::from(holds));
        }
        let Some(k) = cb else {
            return self.narrow_cmp(func, p, a, b, None, region, out);
        };
        if t == Ty::I1 && matches!(p, CmpPred::Eq | CmpPred::Ne) {
            return if (p == CmpPred::Ne) == (k == 0) {
                Simp::Value(a)
            } else {
                Simp::Rewrite(OpKind::Unary(UnOp::Not), vec![a])
            };
        }
        if let Some((OpKind::Cast(CastOp::ZExt), [x])) = def(func, a) {
            let x = *x;
            if func.ty(x) == Ty::I1 && matches!(p, CmpPred::Eq | CmpPred::Ne) {
                return match (p, k) {
                    (CmpPred::Ne, 0) | (CmpPred::Eq, 1) => Simp::Value(x),
                    (CmpPred::Eq, 0) | (CmpPred::Ne, 1) => {
                        Simp::Rewrite(OpKind::Unary(UnOp::Not), vec![x])
                    }
                    (CmpPred::Eq, _) => Simp::Const(0),
                    _ => Simp::Const(1),
                };
            }
        }
        self.narrow_cmp(func, p, a, b, Some(k), region, out)
    }

    /// A 64-bit comparison of extended 32-bit values as a 32-bit comparison.
    #[allow(clippy::too_many_arguments)]
    fn narrow_cmp(
        &mut self,
        func: &mut Function,
        p: CmpPred,
        a: ValueId,
        b: ValueId,
        kb: Option<u64>,
        region: RegionId,
        out: &mut Vec<OpId>,
    ) -> Simp {
        if func.ty(a) != Ty::I64 {
            return Simp::Keep;
        }
        let ext = |v: ValueId| match def(func, v) {
            Some((OpKind::Cast(c @ (CastOp::ZExt | CastOp::SExt)), [x]))
                if func.ty(*x) == Ty::I32 =>
            {
                Some((*c, *x))
            }
            _ => None,
        };
        if ext(a).is_none() || ext(b).is_some_and(|(cb, _)| Some(cb) != ext(a).map(|e| e.0)) {
            // Values whose high halves are zero compare as their unsigned low halves.
            if high_zero(func, a, None, 0) && high_zero(func, b, None, 0) {
                let x = self.narrow_or_trunc(func, a, 0, region, out);
                let y = self.narrow_or_trunc(func, b, 0, region, out);
                return Simp::Rewrite(OpKind::Cmp(to_unsigned(p)), vec![x, y]);
            }
            return Simp::Keep;
        }
        let Some((ca, x)) = ext(a) else {
            return Simp::Keep;
        };
        // Zero-extended values compare as unsigned 32-bit values under every predicate;
        // sign-extended ones keep their predicate (both extensions preserve the order
        // their predicate's signedness sees).
        let pred = if ca == CastOp::ZExt {
            to_unsigned(p)
        } else {
            p
        };
        let y = match kb {
            Some(k) => {
                let fits = if ca == CastOp::ZExt {
                    k <= u64::from(u32::MAX)
                } else {
                    i32::try_from(k as i64).is_ok()
                };
                if !fits {
                    return Simp::Keep;
                }
                self.konst(func, region, out, Ty::I32, k)
            }
            None => match ext(b) {
                Some((cb, y)) if cb == ca => y,
                _ => return Simp::Keep,
            },
        };
        Simp::Rewrite(OpKind::Cmp(pred), vec![x, y])
    }

    fn cast(
        &mut self,
        func: &mut Function,
        k: CastOp,
        x: ValueId,
        to: Ty,
        region: RegionId,
        out: &mut Vec<OpId>,
    ) -> Simp {
        let from = func.ty(x);
        if let Some(bits) = func.const_bits(x) {
            return Simp::Const(eval::cast(k, from, to, bits));
        }
        let d = def(func, x).map(|(k, o)| (k.clone(), o.to_vec()));
        let inner_ty = |func: &Function, d: &Option<(OpKind, Vec<ValueId>)>| {
            d.as_ref().and_then(|(_, o)| o.first().map(|&v| func.ty(v)))
        };
        let src = d.as_ref().and_then(|(_, o)| o.first().copied());
        match (k, d.as_ref().map(|(k, _)| k)) {
            (CastOp::Trunc, Some(OpKind::Cast(e @ (CastOp::ZExt | CastOp::SExt)))) => {
                let y = src.unwrap();
                let yt = inner_ty(func, &d).unwrap();
                if yt == to {
                    Simp::Value(y)
                } else if yt.bits() < to.bits() {
                    Simp::Rewrite(OpKind::Cast(*e), vec![y])
                } else {
                    Simp::Rewrite(OpKind::Cast(CastOp::Trunc), vec![y])
                }
            }
            (CastOp::Trunc, Some(OpKind::Cast(CastOp::Trunc))) => {
                Simp::Rewrite(OpKind::Cast(CastOp::Trunc), vec![src.unwrap()])
            }
            (CastOp::Trunc, _) if from == Ty::I64 && to == Ty::I32 => {
                match self.narrow(func, x, 0, region, out) {
                    Some(v) => Simp::Value(v),
                    None => Simp::Keep,
                }
            }
            (CastOp::ZExt, Some(OpKind::Cast(CastOp::ZExt)))
            | (CastOp::SExt, Some(OpKind::Cast(CastOp::ZExt))) => {
                Simp::Rewrite(OpKind::Cast(CastOp::ZExt), vec![src.unwrap()])
            }
            (CastOp::SExt, Some(OpKind::Cast(CastOp::SExt))) => {
                Simp::Rewrite(OpKind::Cast(CastOp::SExt), vec![src.unwrap()])
            }
            (CastOp::SExt8 | CastOp::SExt16 | CastOp::ZExt8 | CastOp::ZExt16, Some(inner)) => {
                if in_place_redundant(func, k, inner, &d.as_ref().unwrap().1, x) {
                    Simp::Value(x)
                } else {
                    Simp::Keep
                }
            }
            (CastOp::Bitcast, Some(OpKind::Cast(CastOp::Bitcast)))
                if inner_ty(func, &d) == Some(to) =>
            {
                Simp::Value(src.unwrap())
            }
            _ => Simp::Keep,
        }
    }

    /// A 32-bit value equal to the low half of the 64-bit `v`, built from narrowed
    /// operations, if `v` is cheap to narrow (see the module documentation).
    fn narrow(
        &mut self,
        func: &mut Function,
        v: ValueId,
        depth: u32,
        region: RegionId,
        out: &mut Vec<OpId>,
    ) -> Option<ValueId> {
        if let Some(k) = func.const_bits(v) {
            return Some(self.konst(func, region, out, Ty::I32, k));
        }
        let (kind, ops) = def(func, v).map(|(k, o)| (k.clone(), o.to_vec()))?;
        let span = func.op(func.def_op(v).unwrap()).span;
        if let OpKind::Cast(e @ (CastOp::ZExt | CastOp::SExt)) = kind {
            return Some(match func.ty(ops[0]) {
                Ty::I32 => ops[0],
                _ => self.emit(
                    func,
                    region,
                    out,
                    OpKind::Cast(e),
                    vec![ops[0]],
                    Ty::I32,
                    span,
                ),
            });
        }
        // Narrowing an operation that is used elsewhere too would compute it twice, unless
        // it is one operation on operands that narrow for free (its other uses usually
        // narrow the same way, and CSE merges the copies).
        let free = |x: &ValueId| {
            func.const_bits(*x).is_some()
                || matches!(def(func, *x), Some((OpKind::Cast(CastOp::ZExt | CastOp::SExt), [y])) if func.ty(*y) == Ty::I32)
        };
        let operands_free = match kind {
            OpKind::Binary(BinOp::Shl | BinOp::LShr) => free(&ops[0]),
            OpKind::Binary(_) => ops.iter().all(free),
            _ => false,
        };
        if depth > 6 || (self.count(v) != 1 && !(depth == 0 && operands_free)) {
            return None;
        }
        match kind {
            OpKind::Binary(
                b @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor),
            ) => {
                let x = self.narrow_or_trunc(func, ops[0], depth, region, out);
                let y = self.narrow_or_trunc(func, ops[1], depth, region, out);
                Some(self.emit(
                    func,
                    region,
                    out,
                    OpKind::Binary(b),
                    vec![x, y],
                    Ty::I32,
                    span,
                ))
            }
            OpKind::Binary(BinOp::LShr) => {
                // The bits shifted into the low half are zero.
                let k = func.const_bits(ops[1]).filter(|&k| k < 32)?;
                if !high_zero(func, ops[0], None, 0) {
                    return None;
                }
                let x = self.narrow_or_trunc(func, ops[0], depth, region, out);
                let kv = self.konst(func, region, out, Ty::I32, k);
                Some(self.emit(
                    func,
                    region,
                    out,
                    OpKind::Binary(BinOp::LShr),
                    vec![x, kv],
                    Ty::I32,
                    span,
                ))
            }
            OpKind::Binary(BinOp::Shl) => {
                let k = func.const_bits(ops[1]).filter(|&k| k < 32)?;
                let x = self.narrow_or_trunc(func, ops[0], depth, region, out);
                let kv = self.konst(func, region, out, Ty::I32, k);
                Some(self.emit(
                    func,
                    region,
                    out,
                    OpKind::Binary(BinOp::Shl),
                    vec![x, kv],
                    Ty::I32,
                    span,
                ))
            }
            OpKind::Select => {
                let x = self.narrow_or_trunc(func, ops[1], depth, region, out);
                let y = self.narrow_or_trunc(func, ops[2], depth, region, out);
                Some(self.emit(
                    func,
                    region,
                    out,
                    OpKind::Select,
                    vec![ops[0], x, y],
                    Ty::I32,
                    span,
                ))
            }
            _ => None,
        }
    }

    fn narrow_or_trunc(
        &mut self,
        func: &mut Function,
        v: ValueId,
        depth: u32,
        region: RegionId,
        out: &mut Vec<OpId>,
    ) -> ValueId {
        if let Some(n) = self.narrow(func, v, depth + 1, region, out) {
            return n;
        }
        *self.uses_mut(v) += 1;
        // A plain truncation, not simplified (simplifying it would narrow `v` regardless
        // of its other uses).
        let span = func.def_op(v).map_or(Span::DUMMY, |o| func.op(o).span);
        let (op, r) = super::util::new_value_op(
            func,
            region,
            OpKind::Cast(CastOp::Trunc),
            vec![v],
            Ty::I32,
            span,
        );
        out.push(op);
        r
    }
}

/// The kind and operands of the operation defining `v`, if any.
fn def(func: &Function, v: ValueId) -> Option<(&OpKind, &[ValueId])> {
    let op = func.op(func.def_op(v)?);
    Some((&op.kind, &op.operands))
}

/// Whether the in-place extension `k` of `x` (defined by `inner` with `operands`) changes
/// nothing: `x` is already extended that way.
fn in_place_redundant(
    func: &Function,
    k: CastOp,
    inner: &OpKind,
    operands: &[ValueId],
    x: ValueId,
) -> bool {
    let mask_below = |limit: u64| matches!(operands.get(1).and_then(|&c| func.const_bits(c)), Some(c) if c <= limit);
    match (k, inner) {
        (CastOp::SExt8, OpKind::Cast(CastOp::SExt8)) => true,
        (CastOp::SExt16, OpKind::Cast(CastOp::SExt8 | CastOp::SExt16)) => true,
        (CastOp::ZExt8, OpKind::Cast(CastOp::ZExt8)) => true,
        (CastOp::ZExt16, OpKind::Cast(CastOp::ZExt8 | CastOp::ZExt16)) => true,
        (_, OpKind::Load(m)) if func.ty(x) == Ty::I32 => match k {
            CastOp::SExt8 => m.size == 1 && m.signed,
            CastOp::SExt16 => m.size <= 2 && m.signed,
            CastOp::ZExt8 => m.size == 1 && !m.signed,
            _ => m.size <= 2 && !m.signed,
        },
        (CastOp::ZExt8, OpKind::Binary(BinOp::And)) => mask_below(0xff),
        (CastOp::ZExt16, OpKind::Binary(BinOp::And)) => mask_below(0xffff),
        _ => false,
    }
}

/// The predicate with the operands exchanged.
pub(crate) fn swap(p: CmpPred) -> CmpPred {
    use CmpPred::*;
    match p {
        Slt => Sgt,
        Sgt => Slt,
        Sle => Sge,
        Sge => Sle,
        Ult => Ugt,
        Ugt => Ult,
        Ule => Uge,
        Uge => Ule,
        FOlt => FOgt,
        FOgt => FOlt,
        FOle => FOge,
        FOge => FOle,
        other => other,
    }
}

/// The predicate that holds exactly when `p` does not, if there is one.
fn inverse(p: CmpPred) -> Option<CmpPred> {
    use CmpPred::*;
    Some(match p {
        Eq => Ne,
        Ne => Eq,
        Slt => Sge,
        Sge => Slt,
        Sle => Sgt,
        Sgt => Sle,
        Ult => Uge,
        Uge => Ult,
        Ule => Ugt,
        Ugt => Ule,
        FOeq => FUne,
        FUne => FOeq,
        FOrd => FUno,
        FUno => FOrd,
        _ => return None,
    })
}

fn to_unsigned(p: CmpPred) -> CmpPred {
    use CmpPred::*;
    match p {
        Slt => Ult,
        Sle => Ule,
        Sgt => Ugt,
        Sge => Uge,
        other => other,
    }
}

/// A new value of type `ty` defined by `def`.
fn new_value(func: &mut Function, ty: Ty, def: ValueDef) -> ValueId {
    func.values.push(crate::ir::ValueInfo { ty, def });
    ValueId(func.values.len() as u32 - 1)
}

/// Make `v` the (only) result of the result-less operation `op`.
fn redefine(func: &mut Function, v: ValueId, op: OpId) {
    func.values[v.0 as usize].def = ValueDef::Op(op, 0);
    func.op_mut(op).results = vec![v];
}

/// Whether the high 32 bits of the `I64` value `v` are certainly zero (assuming so of
/// `assumed`, a loop's carried value in the induction step).
fn high_zero(func: &Function, v: ValueId, assumed: Option<ValueId>, depth: u32) -> bool {
    if Some(v) == assumed {
        return true;
    }
    if let Some(k) = func.const_bits(v) {
        return k <= u64::from(u32::MAX);
    }
    if depth > 8 {
        return false;
    }
    let hz = |x: ValueId| high_zero(func, x, assumed, depth + 1);
    match def(func, v) {
        Some((OpKind::Cast(CastOp::ZExt), _)) => true,
        Some((OpKind::Binary(BinOp::LShr), [x, k])) => {
            func.const_bits(*k).is_some_and(|k| k % 64 >= 32) || hz(*x)
        }
        Some((OpKind::Binary(BinOp::And | BinOp::UMin), [x, y])) => hz(*x) || hz(*y),
        Some((OpKind::Binary(BinOp::Or | BinOp::Xor | BinOp::UMax), [x, y])) => hz(*x) && hz(*y),
        Some((OpKind::Binary(BinOp::UDiv), [x, _])) => hz(*x),
        Some((OpKind::Binary(BinOp::URem), [x, y])) => hz(*x) || hz(*y),
        Some((OpKind::Select, [_, x, y])) => hz(*x) && hz(*y),
        _ => false,
    }
}
