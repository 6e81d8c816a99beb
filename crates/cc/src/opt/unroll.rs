//! Full unrolling of loops with a constant trip count.
//!
//! A loop qualifies when its continue flag is a comparison of a constant with a carried
//! induction variable (its body argument, or its next value) that starts at a constant and
//! whose next value is the argument plus, minus or times a constant, or shifted by one
//! (`for (s = 128; s > 0; s >>= 1)`, a tree reduction's steps). The trip count is found by
//! running the induction with the IR's own arithmetic ([`crate::ir::eval`]: wrapping, the
//! comparison's signedness), so any such loop of at most [`MAX_TRIP`] iterations is
//! recognised, whatever its predicate or direction. The loop is replaced by that many
//! copies of its body, each reading the previous copy's next values, when the copies hold
//! at most [`BUDGET`] operations. Inner loops are unrolled first.
//!
//! A loop whose continue flag is such a comparison and-ed with another condition (a
//! lowered `break`: `cmp & x`, `x ? false : cmp`) runs at most that many times; it is
//! unrolled the same way with every copy after the first inside an `If` on the previous
//! copy's flag (whose other arm yields the previous copy's values).
//!
//! This is what turns `for (k = 0; k < 16; k++)` over a tile into straight-line code whose
//! constant indexes fold into addresses (and whose private arrays become registers).

use super::util::{clone_ops, region_size, Subst};
use crate::ir::eval;
use crate::ir::{BinOp, Function, OpId, OpKind, RegionId, Ty, ValueId};
use std::collections::HashMap;

/// Most iterations of a fully unrolled loop.
pub const MAX_TRIP: u32 = 32;

/// Most operations (nested ones included) all copies of an unrolled body may hold.
pub const BUDGET: usize = 640;

/// Run the pass; whether anything changed.
pub(crate) fn run(func: &mut Function) -> bool {
    let mut subst = Subst::default();
    let mut changed = false;
    let body = func.body;
    region(func, body, &mut subst, &mut changed);
    subst.apply(func);
    changed
}

fn region(func: &mut Function, r: RegionId, subst: &mut Subst, changed: &mut bool) {
    let ops = std::mem::take(&mut func.region_mut(r).ops);
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        subst.resolve_operands(func, op);
        for nested in func.op(op).regions.clone() {
            region(func, nested, subst, changed);
        }
        if func.op(op).kind == OpKind::Loop {
            if let Some((n, exact)) = trip_count(func, op) {
                let size = region_size(func, func.op(op).regions[0]);
                if n as usize * size <= BUDGET {
                    let results = if exact {
                        unroll(func, op, n, r, &mut out)
                    } else {
                        unroll_guarded(func, op, n, r, &mut out)
                    };
                    for (res, v) in func.op(op).results.clone().into_iter().zip(results) {
                        subst.set(res, v);
                    }
                    *changed = true;
                    continue;
                }
            }
        }
        out.push(op);
    }
    func.region_mut(r).ops = out;
}

/// The number of times the body of `lp` runs, if it is a constant of at most
/// [`MAX_TRIP`], and whether that is exact: `false` when the continue flag is the counted
/// comparison and-ed with something else (a lowered `break`), so that the loop may stop
/// earlier.
pub(crate) fn trip_count(func: &Function, lp: OpId) -> Option<(u32, bool)> {
    let l = func.op(lp);
    let body = func.region(l.regions[0]);
    let end = func.op(*body.ops.last()?);
    let cont = end.operands[0];
    let mut exact = true;
    let mut cmp_value = cont;
    // The continue flag implies a comparison: cmp & x, x & cmp, x ? false : cmp,
    // x ? cmp : false.
    for _ in 0..8 {
        let d = func.op(func.def_op(cmp_value)?);
        let inner = match d.kind {
            OpKind::Cmp(_) => break,
            OpKind::Binary(BinOp::And) => {
                let is_cmp = |v: ValueId| {
                    func.def_op(v)
                        .is_some_and(|o| matches!(func.op(o).kind, OpKind::Cmp(_)))
                };
                if is_cmp(d.operands[0]) {
                    d.operands[0]
                } else {
                    d.operands[1]
                }
            }
            OpKind::Select => match (
                func.const_bits(d.operands[1]),
                func.const_bits(d.operands[2]),
            ) {
                (Some(0), _) => d.operands[2],
                (_, Some(0)) => d.operands[1],
                _ => return None,
            },
            _ => return None,
        };
        exact = false;
        cmp_value = inner;
    }
    let cmp = func.op(func.def_op(cmp_value)?);
    let OpKind::Cmp(pred) = cmp.kind else {
        return None;
    };
    let (x, bound) = (cmp.operands[0], cmp.operands[1]);
    let bound = func.const_bits(bound)?;
    let next = &end.operands[1..];
    let (i, uses_next) = if let Some(i) = body.args.iter().position(|&a| a == x) {
        (i, false)
    } else {
        (next.iter().position(|&n| n == x)?, true)
    };
    let ty = func.ty(x);
    if !ty.is_int() {
        return None;
    }
    let step_op = func.op(func.def_op(next[i])?);
    let OpKind::Binary(b @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::LShr)) =
        step_op.kind
    else {
        return None;
    };
    if step_op.operands[0] != body.args[i] {
        return None;
    }
    let step = func.const_bits(step_op.operands[1])?;
    let mut v = func.const_bits(l.operands[i])?;
    for iteration in 1..=MAX_TRIP {
        let nv = eval::binary(b, ty, v, step).ok()?;
        let tested = if uses_next { nv } else { v };
        if !eval::cmp(pred, ty, tested, bound) {
            return Some((iteration, exact));
        }
        v = nv;
    }
    None
}

/// Replace loop `lp` (which runs exactly `n` times) by `n` copies of its body placed in
/// `out` (region `into`); the values of its results.
fn unroll(
    func: &mut Function,
    lp: OpId,
    n: u32,
    into: RegionId,
    out: &mut Vec<OpId>,
) -> Vec<ValueId> {
    let mut current = func.op(lp).operands.clone();
    for _ in 0..n {
        current = copy_body(func, lp, &current, into, out).1;
    }
    current
}

/// Replace loop `lp` (which runs at most `n` times, maybe fewer) by `n` copies of its body,
/// each after the first inside an `If` on the previous copy's continue flag whose other arm
/// yields the previous copy's next values.
fn unroll_guarded(
    func: &mut Function,
    lp: OpId,
    n: u32,
    into: RegionId,
    out: &mut Vec<OpId>,
) -> Vec<ValueId> {
    let current = func.op(lp).operands.clone();
    guarded_from(func, lp, n, &current, into, out)
}

fn guarded_from(
    func: &mut Function,
    lp: OpId,
    n: u32,
    current: &[ValueId],
    into: RegionId,
    out: &mut Vec<OpId>,
) -> Vec<ValueId> {
    let (cont, next) = copy_body(func, lp, current, into, out);
    if n == 1 {
        // The counted comparison is false after the last iteration: so is the flag.
        return next;
    }
    let tys: Vec<Ty> = next.iter().map(|&v| func.ty(v)).collect();
    let then = func.new_region(&[]);
    let els = func.new_region(&[]);
    let mut then_ops = Vec::new();
    let deeper = guarded_from(func, lp, n - 1, &next, then, &mut then_ops);
    let span = func.op(lp).span;
    let y = func.create_op(then, OpKind::Yield, deeper, &[], vec![], span);
    then_ops.push(y);
    func.region_mut(then).ops = then_ops;
    let y = func.create_op(els, OpKind::Yield, next, &[], vec![], span);
    func.region_mut(els).ops = vec![y];
    let iff = func.create_op(into, OpKind::If, vec![cont], &tys, vec![then, els], span);
    out.push(iff);
    func.op(iff).results.clone()
}

/// One copy of `lp`'s body reading `current` as its arguments, placed in `out`: its
/// continue flag and next values.
fn copy_body(
    func: &mut Function,
    lp: OpId,
    current: &[ValueId],
    into: RegionId,
    out: &mut Vec<OpId>,
) -> (ValueId, Vec<ValueId>) {
    let body = func.op(lp).regions[0];
    let args = func.region(body).args.clone();
    let ops = func.region(body).ops.clone();
    let (&end, inner) = ops.split_last().expect("a loop body ends with loop_end");
    let mut map: HashMap<ValueId, ValueId> =
        args.iter().copied().zip(current.iter().copied()).collect();
    clone_ops(func, inner, into, &mut map, out);
    let renamed = |v: &ValueId| *map.get(v).unwrap_or(v);
    let end_ops = &func.op(end).operands;
    (
        renamed(&end_ops[0]),
        end_ops[1..].iter().map(renamed).collect(),
    )
}
