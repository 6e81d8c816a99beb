//! Dead code elimination by marking what is live and sweeping the rest.
//!
//! Live are the operations with effects (stores, atomics, barriers, fences), every
//! operation computing an operand of a live one, the `If`s and `Loop`s containing a live
//! operation (with their conditions and continue flags), and — per carried value — the
//! `If` results and `Loop` carried values that something live reads (with the yields and
//! next values feeding them). Everything else goes: unused pure operations, unused loads
//! and divisions, `If`s and `Loop`s without effects whose results are unused, and the
//! unused results of the rest (with their yield operands, or their loop operands, body
//! arguments and next values).
//!
//! A loop without effects whose results are unused is removed even if it would never
//! finish: the compiler assumes that such loops terminate.

use crate::ir::{Function, OpId, OpKind, ValueDef, ValueId};

use super::util::{renumber_args, renumber_results};

/// Run the pass; whether anything changed.
pub(crate) fn run(func: &mut Function) -> bool {
    let mut m = Marker {
        live_op: vec![false; func.ops.len()],
        live_value: vec![false; func.values.len()],
        work: Vec::new(),
    };
    for op in func.walk() {
        if matches!(
            func.op(op).kind,
            OpKind::Store(_) | OpKind::Atomic(_) | OpKind::Barrier { .. } | OpKind::Fence { .. }
        ) {
            m.op(func, op);
        }
    }
    m.drain(func);
    sweep(func, &m)
}

struct Marker {
    live_op: Vec<bool>,
    /// For values: whether needed. For `If`/`Loop` results and loop body arguments, this
    /// is also the liveness of their carried-value slot.
    live_value: Vec<bool>,
    work: Vec<ValueId>,
}

impl Marker {
    fn op(&mut self, func: &Function, op: OpId) {
        if std::mem::replace(&mut self.live_op[op.0 as usize], true) {
            return;
        }
        let o = func.op(op);
        match o.kind {
            OpKind::If => self.work.push(o.operands[0]),
            OpKind::Loop => {
                let end = *func.region(o.regions[0]).ops.last().unwrap();
                self.work.push(func.op(end).operands[0]);
            }
            OpKind::Yield | OpKind::LoopEnd => {}
            _ => self.work.extend(o.operands.iter().copied()),
        }
        // The structured operation around a live one runs it.
        if let Some(owner) = func.region(o.parent).parent {
            self.op(func, owner);
        }
    }

    fn drain(&mut self, func: &Function) {
        while let Some(v) = self.work.pop() {
            if std::mem::replace(&mut self.live_value[v.0 as usize], true) {
                continue;
            }
            match func.def(v) {
                ValueDef::Op(op, i) => {
                    self.op(func, op);
                    self.slot(func, op, i as usize);
                }
                ValueDef::Arg(r, i) => {
                    let owner = func
                        .region(r)
                        .parent
                        .expect("only loop bodies have arguments");
                    self.op(func, owner);
                    let result = func.op(owner).results[i as usize];
                    self.work.push(result);
                    self.slot(func, owner, i as usize);
                }
            }
        }
    }

    /// Carried value `i` of a structured operation is needed: so are its sources.
    fn slot(&mut self, func: &Function, op: OpId, i: usize) {
        let o = func.op(op);
        match o.kind {
            OpKind::If => {
                for &arm in &o.regions {
                    let y = *func.region(arm).ops.last().unwrap();
                    self.work.push(func.op(y).operands[i]);
                }
            }
            OpKind::Loop => {
                let body = o.regions[0];
                let end = *func.region(body).ops.last().unwrap();
                self.work.push(o.operands[i]);
                self.work.push(func.op(end).operands[i + 1]);
                self.work.push(func.region(body).args[i]);
            }
            _ => {}
        }
    }
}

fn sweep(func: &mut Function, m: &Marker) -> bool {
    let mut changed = false;
    let mut stack = vec![func.body];
    while let Some(r) = stack.pop() {
        let ops = std::mem::take(&mut func.region_mut(r).ops);
        let before = ops.len();
        let kept: Vec<OpId> = ops
            .into_iter()
            .filter(|&op| {
                m.live_op[op.0 as usize]
                    || matches!(func.op(op).kind, OpKind::Yield | OpKind::LoopEnd)
            })
            .collect();
        changed |= kept.len() != before;
        for &op in &kept {
            match func.op(op).kind {
                OpKind::If => changed |= trim_if(func, op, m),
                OpKind::Loop => changed |= trim_loop(func, op, m),
                _ => {}
            }
            stack.extend(func.op(op).regions.iter().copied());
        }
        func.region_mut(r).ops = kept;
    }
    changed
}

fn trim_if(func: &mut Function, op: OpId, m: &Marker) -> bool {
    let keep: Vec<bool> = func
        .op(op)
        .results
        .iter()
        .map(|r| m.live_value[r.0 as usize])
        .collect();
    if keep.iter().all(|&k| k) {
        return false;
    }
    let pick = |vals: &[ValueId]| -> Vec<ValueId> {
        vals.iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(&v, _)| v)
            .collect()
    };
    for arm in func.op(op).regions.clone() {
        let y = *func.region(arm).ops.last().unwrap();
        let kept = pick(&func.op(y).operands);
        func.op_mut(y).operands = kept;
    }
    let kept = pick(&func.op(op).results);
    func.op_mut(op).results = kept;
    renumber_results(func, op);
    true
}

fn trim_loop(func: &mut Function, op: OpId, m: &Marker) -> bool {
    // A slot is live when its result or its argument is (marking one marks the other).
    let body = func.op(op).regions[0];
    let keep: Vec<bool> = func
        .region(body)
        .args
        .iter()
        .map(|a| m.live_value[a.0 as usize])
        .zip(
            func.op(op)
                .results
                .iter()
                .map(|r| m.live_value[r.0 as usize]),
        )
        .map(|(a, r)| a || r)
        .collect();
    if keep.iter().all(|&k| k) {
        return false;
    }
    let pick = |vals: &[ValueId]| -> Vec<ValueId> {
        vals.iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(&v, _)| v)
            .collect()
    };
    let end = *func.region(body).ops.last().unwrap();
    let ops = func.op(end).operands.clone();
    let mut next = vec![ops[0]];
    next.extend(pick(&ops[1..]));
    func.op_mut(end).operands = next;
    let operands = pick(&func.op(op).operands);
    func.op_mut(op).operands = operands;
    let results = pick(&func.op(op).results);
    func.op_mut(op).results = results;
    renumber_results(func, op);
    let args = pick(&func.region(body).args);
    func.region_mut(body).args = args;
    renumber_args(func, body);
    true
}
