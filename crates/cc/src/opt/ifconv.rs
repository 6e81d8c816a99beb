//! If-conversion: an `If` with results whose arms are small and free of effects becomes
//! straight-line code and `Select`s.
//!
//! Both arms then run whatever the condition, so they may hold only operations that are
//! safe to execute when they would not have run: pure operations (no division) and loads
//! that cannot fault — a load whose address both arms load with the same size, or a load
//! at a constant offset inside a `__private` or `__local` object, in bounds and aligned.
//! The arms together may hold at most [`BUDGET`] operations other than constants; nested
//! `If`s are converted first (inner ones become straight-line code of the outer arm).
//! On a SIMT machine a divergent branch costs EXEC bookkeeping on both paths, which a
//! few selects beat.

use super::util::{adopt, is_pure, Subst};
use crate::ir::{Function, MemTy, OpId, OpKind, RegionId, Space, Ty, ValueId};

/// Most non-constant operations of both arms together.
pub const BUDGET: usize = 8;

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
        if func.op(op).kind == OpKind::If && convertible(func, op) {
            convert(func, op, r, subst, &mut out);
            *changed = true;
            continue;
        }
        out.push(op);
    }
    func.region_mut(r).ops = out;
}

fn convert(func: &mut Function, op: OpId, r: RegionId, subst: &mut Subst, out: &mut Vec<OpId>) {
    let cond = func.op(op).operands[0];
    let mut yields = Vec::new();
    for arm in func.op(op).regions.clone() {
        let mut arm_ops = std::mem::take(&mut func.region_mut(arm).ops);
        let y = arm_ops.pop().expect("an arm ends with yield");
        adopt(func, &arm_ops, r);
        out.extend(arm_ops);
        yields.push(func.op(y).operands.clone());
    }
    let span = func.op(op).span;
    let results = func.op(op).results.clone();
    for (i, res) in results.into_iter().enumerate() {
        let (t, e) = (yields[0][i], yields[1][i]);
        if t == e {
            subst.set(res, t);
            continue;
        }
        let ty = func.ty(res);
        let (sel, v) =
            super::util::new_value_op(func, r, OpKind::Select, vec![cond, t, e], ty, span);
        out.push(sel);
        subst.set(res, v);
    }
}

fn convertible(func: &Function, op: OpId) -> bool {
    let o = func.op(op);
    if o.results.is_empty() {
        return false;
    }
    let arms = [o.regions[0], o.regions[1]];
    let body = |r: RegionId| {
        let ops = &func.region(r).ops;
        &ops[..ops.len() - 1]
    };
    let loads_of = |r: RegionId| -> Vec<(ValueId, u8)> {
        body(r)
            .iter()
            .filter_map(|&o| match func.op(o).kind {
                OpKind::Load(m) => Some((func.op(o).operands[0], m.size)),
                _ => None,
            })
            .collect()
    };
    let mut count = 0;
    for (k, &arm) in arms.iter().enumerate() {
        let other = loads_of(arms[1 - k]);
        for &inner in body(arm) {
            let i = func.op(inner);
            if !i.regions.is_empty() {
                return false;
            }
            let ok = match i.kind {
                OpKind::Load(m) => {
                    other.contains(&(i.operands[0], m.size)) || safe_load(func, i.operands[0], m)
                }
                ref kind => is_pure(kind),
            };
            if !ok {
                return false;
            }
            if !matches!(i.kind, OpKind::Const(_)) {
                count += 1;
            }
        }
    }
    count <= BUDGET
}

/// Whether a load through `ptr` certainly stays inside a private or local object and is
/// aligned: `ptr` is the object's address plus constant offsets.
fn safe_load(func: &Function, mut ptr: ValueId, m: MemTy) -> bool {
    let mut offset: u64 = 0;
    loop {
        let Some(def) = func.def_op(ptr) else {
            return false;
        };
        let o = func.op(def);
        match o.kind {
            OpKind::PtrAdd => {
                let Some(k) = func.const_bits(o.operands[1]) else {
                    return false;
                };
                offset = offset.wrapping_add(k) & 0xffff_ffff;
                ptr = o.operands[0];
            }
            OpKind::PrivateAddr(i) | OpKind::LocalAddr(i) => {
                let obj = if func.ty(ptr) == Ty::Ptr(Space::Private) {
                    &func.privates[i as usize]
                } else {
                    &func.locals[i as usize]
                };
                let size = u64::from(m.size);
                let align = size.min(4);
                return offset + size <= u64::from(obj.size)
                    && offset.is_multiple_of(align)
                    && u64::from(obj.align) >= align;
            }
            _ => return false,
        }
    }
}
