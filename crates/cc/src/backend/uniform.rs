//! Uniformity analysis on structured SSA, following LLVM's "Convergence And Uniformity"
//! rules specialised to single-entry single-exit regions:
//!
//! - sources of divergence: the local id, atomics' results, loads from private memory (every
//!   work-item has its own), and loads whose address is divergent;
//! - data dependence: an operation with a divergent operand has divergent results;
//! - sync dependence: the results of an `If` whose condition is divergent are divergent
//!   (work-items take different arms and meet at the join);
//! - temporal divergence: a `Loop` whose continuation condition is divergent lets
//!   work-items leave in different iterations, so its results are divergent; inside the
//!   loop, a carried value is divergent only if its initial or next value is.
//!
//! Everything else is uniform: a value computed from uniform operands inside divergent
//! control flow is still the same in every work-item that computes it.

use crate::ir::{Function, OpId, OpKind, Space, Ty, ValueId, WorkItem};

/// The analysis' result.
#[derive(Debug, Clone)]
pub struct Uniformity {
    divergent: Vec<bool>,
    divergent_ops: Vec<bool>,
}

impl Uniformity {
    /// Whether value `v` may differ between the work-items of a warp.
    pub fn is_divergent(&self, v: ValueId) -> bool {
        self.divergent[v.0 as usize]
    }

    /// Whether structured op `op` (`If`, `Loop`) branches differently in different
    /// work-items: an `If` with a divergent condition, a `Loop` with a divergent
    /// continuation condition.
    pub fn is_divergent_op(&self, op: OpId) -> bool {
        self.divergent_ops[op.0 as usize]
    }
}

/// Analyse `func`.
pub fn analyze(func: &Function) -> Uniformity {
    let mut u = Uniformity {
        divergent: vec![false; func.values.len()],
        divergent_ops: vec![false; func.ops.len()],
    };
    let order = func.walk();
    // Loops carry values around, so iterate to a fixed point; every step only turns
    // values divergent, so it ends.
    loop {
        let mut changed = false;
        for &id in &order {
            changed |= step(func, &mut u, id);
        }
        if !changed {
            return u;
        }
    }
}

fn mark(u: &mut Uniformity, v: ValueId) -> bool {
    let slot = &mut u.divergent[v.0 as usize];
    let changed = !*slot;
    *slot = true;
    changed
}

fn step(func: &Function, u: &mut Uniformity, id: OpId) -> bool {
    let op = func.op(id);
    let any_operand = op.operands.iter().any(|&v| u.is_divergent(v));
    let mut changed = false;
    match &op.kind {
        OpKind::If => {
            let cond_divergent = u.is_divergent(op.operands[0]);
            if cond_divergent && !u.divergent_ops[id.0 as usize] {
                u.divergent_ops[id.0 as usize] = true;
                changed = true;
            }
            for (i, &r) in op.results.iter().enumerate() {
                let yielded = op.regions.iter().any(|&reg| {
                    let y = *func.region(reg).ops.last().expect("If arm ends in yield");
                    u.is_divergent(func.op(y).operands[i])
                });
                if cond_divergent || yielded {
                    changed |= mark(u, r);
                }
            }
        }
        OpKind::Loop => {
            let body = func.region(op.regions[0]);
            let end = func.op(*body.ops.last().expect("loop body ends in loop_end"));
            let loop_divergent = u.is_divergent(end.operands[0]);
            if loop_divergent && !u.divergent_ops[id.0 as usize] {
                u.divergent_ops[id.0 as usize] = true;
                changed = true;
            }
            for (i, &arg) in body.args.iter().enumerate() {
                if u.is_divergent(op.operands[i]) || u.is_divergent(end.operands[i + 1]) {
                    changed |= mark(u, arg);
                }
            }
            for (i, &r) in op.results.iter().enumerate() {
                if loop_divergent || u.is_divergent(end.operands[i + 1]) {
                    changed |= mark(u, r);
                }
            }
        }
        kind => {
            let source = match kind {
                OpKind::WorkItem(WorkItem::LocalId(_)) => true,
                OpKind::Atomic(_) => true,
                OpKind::Load(_) => {
                    matches!(func.ty(op.operands[0]), Ty::Ptr(Space::Private)) || any_operand
                }
                _ => any_operand,
            };
            if source {
                for &r in &op.results {
                    changed |= mark(u, r);
                }
            }
        }
    }
    changed
}
