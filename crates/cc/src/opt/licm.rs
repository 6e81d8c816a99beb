//! Loop-invariant code motion.
//!
//! A loop body always runs at least once and its top level has no early exit, so every
//! operation at the body's top level runs, in the first iteration, with the same operands
//! as every later one when those operands are defined outside the loop. Such an operation
//! moves to just before the loop when it is
//!
//! - pure (constants, arithmetic, comparisons, casts, addresses, work-item functions), or
//! - an integer division (it ran in the first iteration anyway, so it cannot fault where
//!   it did not), or
//! - a load from an address space no store, atomic, barrier or fence in the loop may
//!   write (`__constant` memory never is).
//!
//! A pointer plus a constant stays in the loop unless something moved out uses it: the
//! memory access's immediate offset holds it for free there, and moved out it would hold
//! a register across the loop.
//!
//! Operations are moved in order, so chains of invariant operations move together, and
//! inner loops are processed first: what leaves an inner loop lands at the top level of
//! the outer body and can leave that loop too. Operations inside an `If` in the body are
//! not moved (they may not run).

use super::util::{clobbers, def_region, is_pure, may_trap, region_within};
use crate::ir::{Function, OpId, OpKind, RegionId, ValueId};
use std::collections::HashMap;

/// Run the pass; whether anything changed.
pub(crate) fn run(func: &mut Function) -> bool {
    let mut changed = false;
    let body = func.body;
    region(func, body, &mut changed);
    changed
}

fn region(func: &mut Function, r: RegionId, changed: &mut bool) {
    for op in func.region(r).ops.clone() {
        for nested in func.op(op).regions.clone() {
            region(func, nested, changed);
        }
    }
    let ops = std::mem::take(&mut func.region_mut(r).ops);
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        if func.op(op).kind == OpKind::Loop {
            let hoisted = hoist(func, op, r);
            *changed |= !hoisted.is_empty();
            out.extend(hoisted);
        }
        out.push(op);
    }
    func.region_mut(r).ops = out;
}

/// Move the invariant operations of loop `lp`'s body to region `into` (where `lp` is);
/// return them in order.
fn hoist(func: &mut Function, lp: OpId, into: RegionId) -> Vec<OpId> {
    let body = func.op(lp).regions[0];
    let clob = clobbers(func, lp);
    let ops = std::mem::take(&mut func.region_mut(body).ops);
    let mut kept = Vec::with_capacity(ops.len());
    let mut hoisted = Vec::new();
    for op in ops {
        let o = func.op(op);
        let movable = match o.kind {
            OpKind::Load(_) => !clob.affects(func.ty(o.operands[0])),
            OpKind::Binary(b) if may_trap(b) => true,
            ref k => is_pure(k),
        };
        let invariant = o
            .operands
            .iter()
            .all(|&v| !region_within(func, def_region(func, v), body));
        if movable && invariant {
            func.op_mut(op).parent = into;
            hoisted.push(op);
        } else {
            kept.push(op);
        }
    }
    // A pointer plus a constant is free in a memory access's immediate offset; hoisted for
    // accesses that stay in the loop it would only hold a register across the loop.
    let mut used_outside: HashMap<ValueId, usize> = HashMap::new();
    for &op in &hoisted {
        for &v in &func.op(op).operands {
            *used_outside.entry(v).or_default() += 1;
        }
    }
    let mut back = Vec::new();
    for i in (0..hoisted.len()).rev() {
        let op = hoisted[i];
        let o = func.op(op);
        let offset_only = o.kind == OpKind::PtrAdd && func.const_bits(o.operands[1]).is_some();
        if offset_only && used_outside.get(&o.results[0]).is_none_or(|&n| n == 0) {
            for &v in &o.operands {
                *used_outside.get_mut(&v).expect("counted") -= 1;
            }
            back.push(hoisted.remove(i));
        }
    }
    back.reverse();
    for &op in &back {
        func.op_mut(op).parent = body;
    }
    back.extend(kept);
    func.region_mut(body).ops = back;
    hoisted
}
