//! Full unrolling of loops with a constant trip count.
//!
//! A loop qualifies when its continue flag is a comparison of a constant with a carried
//! induction variable (its body argument, or its next value) that starts at a constant and
//! whose next value is the argument plus or minus a constant. The trip count is found by
//! running the induction with the IR's own arithmetic ([`crate::ir::eval`]: wrapping, the
//! comparison's signedness), so any such loop of at most [`MAX_TRIP`] iterations is
//! recognised, whatever its predicate or direction. The loop is replaced by that many
//! copies of its body, each reading the previous copy's next values, when the copies hold
//! at most [`BUDGET`] operations. Inner loops are unrolled first.
//!
//! This is what turns `for (k = 0; k < 16; k++)` over a tile into straight-line code whose
//! constant indexes fold into addresses (and whose private arrays become registers).

use super::util::{clone_ops, region_size, Subst};
use crate::ir::eval;
use crate::ir::{BinOp, Function, OpId, OpKind, RegionId, ValueId};
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
            if let Some(n) = trip_count(func, op) {
                let size = region_size(func, func.op(op).regions[0]);
                if n as usize * size <= BUDGET {
                    unroll(func, op, n, r, subst, &mut out);
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
/// [`MAX_TRIP`].
pub(crate) fn trip_count(func: &Function, lp: OpId) -> Option<u32> {
    let l = func.op(lp);
    let body = func.region(l.regions[0]);
    let end = func.op(*body.ops.last()?);
    let cont = end.operands[0];
    let cmp = func.op(func.def_op(cont)?);
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
    let OpKind::Binary(b @ (BinOp::Add | BinOp::Sub)) = step_op.kind else {
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
            return Some(iteration);
        }
        v = nv;
    }
    None
}

fn unroll(
    func: &mut Function,
    lp: OpId,
    n: u32,
    into: RegionId,
    subst: &mut Subst,
    out: &mut Vec<OpId>,
) {
    let body = func.op(lp).regions[0];
    let args = func.region(body).args.clone();
    let ops = func.region(body).ops.clone();
    let (&end, inner) = ops.split_last().expect("a loop body ends with loop_end");
    let next: Vec<ValueId> = func.op(end).operands[1..].to_vec();
    let mut current = func.op(lp).operands.clone();
    for _ in 0..n {
        let mut map: HashMap<ValueId, ValueId> =
            args.iter().copied().zip(current.iter().copied()).collect();
        clone_ops(func, inner, into, &mut map, out);
        current = next.iter().map(|v| *map.get(v).unwrap_or(v)).collect();
    }
    let results = func.op(lp).results.clone();
    for (r, v) in results.into_iter().zip(current) {
        subst.set(r, v);
    }
}
