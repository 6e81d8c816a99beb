//! What several passes need: value substitution, use counts, effects of operations,
//! region cloning, and adding or removing the carried values of `If`/`Loop`.

use crate::ir::{BinOp, Function, OpId, OpKind, RegionId, Space, Ty, ValueDef, ValueId};
use std::collections::HashMap;

/// A pending replacement of values by other values (`from` → `to`), applied to operands
/// with [`Subst::apply`]. Chains resolve to their end.
#[derive(Default)]
pub(crate) struct Subst {
    map: HashMap<ValueId, ValueId>,
}

impl Subst {
    pub(crate) fn set(&mut self, from: ValueId, to: ValueId) {
        let to = self.get(to);
        if from != to {
            self.map.insert(from, to);
        }
    }

    pub(crate) fn get(&self, mut v: ValueId) -> ValueId {
        while let Some(&n) = self.map.get(&v) {
            v = n;
        }
        v
    }

    /// Replace the operands of `op` by their substitutes.
    pub(crate) fn resolve_operands(&self, func: &mut Function, op: OpId) {
        if self.map.is_empty() {
            return;
        }
        let mut operands = std::mem::take(&mut func.op_mut(op).operands);
        for v in &mut operands {
            *v = self.get(*v);
        }
        func.op_mut(op).operands = operands;
    }

    /// Replace operands everywhere in the function.
    pub(crate) fn apply(&self, func: &mut Function) {
        if self.map.is_empty() {
            return;
        }
        for op in func.walk() {
            self.resolve_operands(func, op);
        }
    }
}

/// How many operands of reachable operations name each value (indexed by value).
pub(crate) fn use_counts(func: &Function) -> Vec<u32> {
    let mut uses = vec![0u32; func.values.len()];
    for op in func.walk() {
        for v in &func.op(op).operands {
            uses[v.0 as usize] += 1;
        }
    }
    uses
}

/// Whether an operation computes its results from its operands alone, without memory,
/// side effects or the possibility of a fault: it may be removed when unused, merged with
/// an identical one, or executed where it was not.
pub(crate) fn is_pure(kind: &OpKind) -> bool {
    match kind {
        OpKind::Binary(b) => !may_trap(*b),
        _ => is_value_op(kind),
    }
}

/// Whether a binary operation is undefined for some operands (and so faults in the
/// interpreter): integer division and remainder.
pub(crate) fn may_trap(b: BinOp) -> bool {
    matches!(b, BinOp::SDiv | BinOp::UDiv | BinOp::SRem | BinOp::URem)
}

/// Whether an operation only computes a value from its operands (it may fault, as a
/// division does, but reads no memory and has no effect).
pub(crate) fn is_value_op(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Const(_)
            | OpKind::Undef
            | OpKind::Param(_)
            | OpKind::LocalAddr(_)
            | OpKind::PrivateAddr(_)
            | OpKind::ConstantAddr(_)
            | OpKind::WorkItem(_)
            | OpKind::Unary(_)
            | OpKind::Binary(_)
            | OpKind::Fma
            | OpKind::Cmp(_)
            | OpKind::Select
            | OpKind::Cast(_)
            | OpKind::Math(_)
            | OpKind::PtrAdd
    )
}

/// The memory an operation (with everything nested in it) may write or make others'
/// writes visible to: a set of address spaces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Clobbers {
    pub global: bool,
    pub local: bool,
    pub private: bool,
}

impl Clobbers {
    pub(crate) fn any(self) -> bool {
        self.global || self.local || self.private
    }

    /// Whether a load through a pointer of type `ptr` may see a different value after
    /// these clobbers. `__constant` memory is never written.
    pub(crate) fn affects(self, ptr: Ty) -> bool {
        match ptr {
            Ty::Ptr(Space::Global) => self.global,
            Ty::Ptr(Space::Local) => self.local,
            Ty::Ptr(Space::Private) => self.private,
            _ => false,
        }
    }

    fn add_space(&mut self, ty: Ty) {
        match ty {
            Ty::Ptr(Space::Global) => self.global = true,
            Ty::Ptr(Space::Local) => self.local = true,
            Ty::Ptr(Space::Private) => self.private = true,
            _ => {}
        }
    }

    fn union(&mut self, o: Clobbers) {
        self.global |= o.global;
        self.local |= o.local;
        self.private |= o.private;
    }
}

/// The clobbers of one operation including its regions. Barriers and fences clobber
/// global and local memory (other work-items' stores become visible across them).
pub(crate) fn clobbers(func: &Function, op: OpId) -> Clobbers {
    let mut c = Clobbers::default();
    let o = func.op(op);
    match o.kind {
        OpKind::Store(_) | OpKind::Atomic(_) => c.add_space(func.ty(o.operands[0])),
        OpKind::Barrier { .. } | OpKind::Fence { .. } => {
            c.global = true;
            c.local = true;
        }
        _ => {}
    }
    for &r in &o.regions {
        for &inner in &func.region(r).ops {
            c.union(clobbers(func, inner));
        }
    }
    c
}

/// Number of operations in a region, nested ones included.
pub(crate) fn region_size(func: &Function, r: RegionId) -> usize {
    func.region(r)
        .ops
        .iter()
        .map(|&op| {
            1 + func
                .op(op)
                .regions
                .iter()
                .map(|&n| region_size(func, n))
                .sum::<usize>()
        })
        .sum()
}

/// The region a value is defined in.
pub(crate) fn def_region(func: &Function, v: ValueId) -> RegionId {
    match func.def(v) {
        ValueDef::Op(op, _) => func.op(op).parent,
        ValueDef::Arg(r, _) => r,
    }
}

/// Whether region `inner` is `outer` or nested in it.
pub(crate) fn region_within(func: &Function, mut inner: RegionId, outer: RegionId) -> bool {
    loop {
        if inner == outer {
            return true;
        }
        match func.region(inner).parent {
            Some(op) => inner = func.op(op).parent,
            None => return false,
        }
    }
}

/// Create a detached value operation in `region` (its parent) and return it and its
/// result; the caller inserts it into the region's list.
pub(crate) fn new_value_op(
    func: &mut Function,
    region: RegionId,
    kind: OpKind,
    operands: Vec<ValueId>,
    ty: Ty,
    span: crate::source::Span,
) -> (OpId, ValueId) {
    let op = func.create_op(region, kind, operands, &[ty], Vec::new(), span);
    (op, func.op(op).results[0])
}

/// Add a result of type `ty` to `op` and return it.
pub(crate) fn add_result(func: &mut Function, op: OpId, ty: Ty) -> ValueId {
    let index = func.op(op).results.len() as u32;
    func.values.push(crate::ir::ValueInfo {
        ty,
        def: ValueDef::Op(op, index),
    });
    let v = ValueId(func.values.len() as u32 - 1);
    func.op_mut(op).results.push(v);
    v
}

/// Add an argument of type `ty` to `region` and return it.
pub(crate) fn add_arg(func: &mut Function, region: RegionId, ty: Ty) -> ValueId {
    let index = func.region(region).args.len() as u32;
    func.values.push(crate::ir::ValueInfo {
        ty,
        def: ValueDef::Arg(region, index),
    });
    let v = ValueId(func.values.len() as u32 - 1);
    func.region_mut(region).args.push(v);
    v
}

/// Renumber the definitions of `op`'s results after some were removed.
pub(crate) fn renumber_results(func: &mut Function, op: OpId) {
    let results = func.op(op).results.clone();
    for (i, v) in results.into_iter().enumerate() {
        func.values[v.0 as usize].def = ValueDef::Op(op, i as u32);
    }
}

/// Renumber the definitions of `region`'s arguments after some were removed.
pub(crate) fn renumber_args(func: &mut Function, region: RegionId) {
    let args = func.region(region).args.clone();
    for (i, v) in args.into_iter().enumerate() {
        func.values[v.0 as usize].def = ValueDef::Arg(region, i as u32);
    }
}

/// Copy the operations `ops` into new operations of region `into` (appended to `out`),
/// with operands renamed through `map` (values not in it are kept: they are defined
/// outside what is copied); the copies' results are added to `map`. Regions are copied
/// deeply.
pub(crate) fn clone_ops(
    func: &mut Function,
    ops: &[OpId],
    into: RegionId,
    map: &mut HashMap<ValueId, ValueId>,
    out: &mut Vec<OpId>,
) {
    for &op in ops {
        let o = func.op(op).clone();
        let operands = o
            .operands
            .iter()
            .map(|v| *map.get(v).unwrap_or(v))
            .collect();
        let regions: Vec<RegionId> = o
            .regions
            .iter()
            .map(|&r| clone_region(func, r, map))
            .collect();
        let tys: Vec<Ty> = o.results.iter().map(|&v| func.ty(v)).collect();
        let new = func.create_op(into, o.kind.clone(), operands, &tys, regions, o.span);
        for (old, &newv) in o.results.iter().zip(&func.op(new).results.clone()) {
            map.insert(*old, newv);
        }
        out.push(new);
    }
}

/// A detached deep copy of region `r` (see [`clone_ops`]).
pub(crate) fn clone_region(
    func: &mut Function,
    r: RegionId,
    map: &mut HashMap<ValueId, ValueId>,
) -> RegionId {
    let args = func.region(r).args.clone();
    let tys: Vec<Ty> = args.iter().map(|&a| func.ty(a)).collect();
    let new = func.new_region(&tys);
    for (old, &newa) in args.iter().zip(&func.region(new).args.clone()) {
        map.insert(*old, newa);
    }
    let ops = func.region(r).ops.clone();
    let mut out = Vec::with_capacity(ops.len());
    clone_ops(func, &ops, new, map, &mut out);
    func.region_mut(new).ops = out;
    new
}

/// Make `ops` (taken out of another region) part of `region`: set their parents.
pub(crate) fn adopt(func: &mut Function, ops: &[OpId], region: RegionId) {
    for &op in ops {
        func.op_mut(op).parent = region;
    }
}
