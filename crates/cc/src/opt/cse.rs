//! Common subexpression elimination over the region tree.
//!
//! A pure operation (see `util::is_pure`; divisions too: the earlier one already ran with
//! the same operands) is replaced by an identical one (same kind, operands — in either
//! order for commutative operations — and result type) that precedes it in the same region
//! or in an enclosing one: that one is visible and has been computed whenever this one is.
//!
//! A load is replaced by an identical earlier load of the same region only when no store,
//! atomic, barrier or fence (directly or inside an `If`/`Loop`) that may write the load's
//! address space lies between them. Loads are not reused across regions.

use super::util::{clobbers, is_value_op, Subst};
use crate::ir::{Function, OpId, OpKind, RegionId, Ty, ValueId};
use std::collections::HashMap;

type Key = (OpKind, Vec<ValueId>, Ty);

/// Run the pass; whether anything changed.
pub(crate) fn run(func: &mut Function) -> bool {
    let mut c = Cse {
        table: HashMap::new(),
        subst: Subst::default(),
        changed: false,
    };
    let body = func.body;
    c.region(func, body);
    c.subst.apply(func);
    c.changed
}

struct Cse {
    table: HashMap<Key, ValueId>,
    subst: Subst,
    changed: bool,
}

fn key(func: &Function, op: OpId) -> Key {
    let o = func.op(op);
    let mut operands = o.operands.clone();
    if let OpKind::Binary(b) = o.kind {
        if b.is_commutative() && operands[0] > operands[1] {
            operands.swap(0, 1);
        }
    }
    (o.kind.clone(), operands, func.ty(o.results[0]))
}

impl Cse {
    fn region(&mut self, func: &mut Function, r: RegionId) {
        let ops = std::mem::take(&mut func.region_mut(r).ops);
        let mut out = Vec::with_capacity(ops.len());
        // Entries this region added, removed when it ends (they are not visible outside).
        let mut added: Vec<Key> = Vec::new();
        let mut loads: HashMap<Key, ValueId> = HashMap::new();
        for op in ops {
            self.subst.resolve_operands(func, op);
            let kind = func.op(op).kind.clone();
            match kind {
                OpKind::Load(_) => {
                    let k = key(func, op);
                    let r = func.op(op).results[0];
                    if let Some(&prev) = loads.get(&k) {
                        self.subst.set(r, prev);
                        self.changed = true;
                        continue;
                    }
                    loads.insert(k, r);
                }
                ref k if is_value_op(k) => {
                    let k = key(func, op);
                    let r = func.op(op).results[0];
                    if let Some(&prev) = self.table.get(&k) {
                        self.subst.set(r, prev);
                        self.changed = true;
                        continue;
                    }
                    self.table.insert(k.clone(), r);
                    added.push(k);
                }
                _ => {
                    let regions = func.op(op).regions.clone();
                    for nested in regions {
                        self.region(func, nested);
                    }
                    let c = clobbers(func, op);
                    if c.any() {
                        loads.retain(|k, _| !c.affects(func.ty(k.1[0])));
                    }
                }
            }
            out.push(op);
        }
        for k in added {
            self.table.remove(&k);
        }
        func.region_mut(r).ops = out;
    }
}
