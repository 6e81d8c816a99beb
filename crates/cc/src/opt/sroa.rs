//! Scalar replacement of private objects (SROA / mem2reg).
//!
//! A private object qualifies when every use of its address (`PrivateAddr`, through
//! `PtrAdd`s of constant offsets) is the pointer of a `Load` or `Store`, every access lies
//! inside the object, is aligned as the machine requires, and two accesses either cover
//! the same bytes (same offset and size) or do not overlap, and the accesses of one
//! place agree on its type:
//!
//! - 8 bytes: one type (`I64`, `F64` or a 64-bit pointer);
//! - 4 bytes: `I32` (stores of the low half of an `I64` too), `F32` or one 32-bit pointer
//!   type;
//! - 2 bytes: `I32` (loaded sign- or zero-extended, stored from an `I32`/`I64`) or `F16`;
//! - 1 byte: `I32` likewise.
//!
//! Each such place becomes an SSA value threaded through the region tree as a front end
//! threads variables: a store sets it, a load reads it (re-extending a 1- or 2-byte place as
//! the load says), an `If` whose arms store to it yields it, and a `Loop` whose body stores
//! to it carries it. Before the first store a place is `Undef` (0, as fresh private memory
//! reads in the interpreter). The object then disappears from `Function::privates`.
//!
//! Objects indexed dynamically, whose address escapes (stored, compared, converted,
//! passed to an atomic) or that are accessed with overlapping or mistyped accesses stay in
//! memory (the back end puts them in scratch).

use super::util::{add_arg, add_result, Subst};
use crate::ir::{CastOp, Function, OpId, OpKind, RegionId, Space, Ty, ValueId};
use crate::source::Span;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Run the pass; whether anything changed.
pub(crate) fn run(func: &mut Function) -> bool {
    if func.privates.is_empty() {
        return false;
    }
    let walk = func.walk();
    let mut users: HashMap<ValueId, Vec<(OpId, usize)>> = HashMap::new();
    for &op in &walk {
        for (i, &v) in func.op(op).operands.iter().enumerate() {
            users.entry(v).or_default().push((op, i));
        }
    }
    let n = func.privates.len();
    let mut promotable = vec![true; n];
    let mut accesses: Vec<Vec<Access>> = vec![Vec::new(); n];
    let mut chains: Vec<Vec<OpId>> = vec![Vec::new(); n];
    for &op in &walk {
        if let OpKind::PrivateAddr(j) = func.op(op).kind {
            let j = j as usize;
            let addr = func.op(op).results[0];
            chains[j].push(op);
            let ok = follow(func, &users, addr, 0, j, &mut accesses[j], &mut chains[j]);
            promotable[j] &= ok;
        }
    }
    // Places of each promotable object, and their types.
    let mut ctx = Ctx::default();
    for j in 0..n {
        if !promotable[j] {
            continue;
        }
        match places(&accesses[j]) {
            Some(ps) => {
                let base = ctx.slot_ty.len();
                ctx.slot_ty.extend(ps.iter().map(|(_, ty)| *ty));
                for a in &accesses[j] {
                    let k = ps
                        .iter()
                        .position(|(key, _)| *key == (a.offset, a.size))
                        .unwrap();
                    if a.store {
                        ctx.store_slot.insert(a.op, base + k);
                    } else {
                        ctx.load_slot.insert(a.op, base + k);
                    }
                }
                ctx.drop.extend(chains[j].iter().copied());
            }
            None => promotable[j] = false,
        }
    }
    if !promotable.iter().any(|&p| p) {
        return false;
    }
    // What each structured operation writes.
    let body = func.body;
    writes_of_region(func, body, &ctx.store_slot, &mut ctx.writes);
    // Every place starts undefined, at the top of the body.
    let mut current = Vec::with_capacity(ctx.slot_ty.len());
    let mut undefs = Vec::new();
    for &ty in &ctx.slot_ty {
        let op = func.create_op(body, OpKind::Undef, vec![], &[ty], vec![], Span::DUMMY);
        undefs.push(op);
        current.push(func.op(op).results[0]);
    }
    ctx.rewrite(func, body, &mut current);
    let ops = &mut func.region_mut(body).ops;
    ops.splice(0..0, undefs);
    ctx.subst.apply(func);
    // Drop the promoted objects and renumber the others.
    let mut renumber = Vec::with_capacity(n);
    let mut kept = Vec::new();
    for (j, obj) in std::mem::take(&mut func.privates).into_iter().enumerate() {
        renumber.push(kept.len() as u32);
        if !promotable[j] {
            kept.push(obj);
        }
    }
    func.privates = kept;
    for op in func.walk() {
        if let OpKind::PrivateAddr(j) = &mut func.op_mut(op).kind {
            *j = renumber[*j as usize];
        }
    }
    true
}

#[derive(Debug, Clone, Copy)]
struct Access {
    op: OpId,
    offset: u64,
    size: u8,
    store: bool,
    /// The loaded or stored value's type.
    ty: Ty,
}

/// Follow the uses of an address `v` (object `j` plus `offset`); false if the object
/// escapes or an access is out of bounds or misaligned.
fn follow(
    func: &Function,
    users: &HashMap<ValueId, Vec<(OpId, usize)>>,
    v: ValueId,
    offset: u64,
    j: usize,
    accesses: &mut Vec<Access>,
    chain: &mut Vec<OpId>,
) -> bool {
    let obj = &func.privates[j];
    for &(user, pos) in users.get(&v).map_or(&[][..], |u| &u[..]) {
        let o = func.op(user);
        match o.kind {
            OpKind::PtrAdd if pos == 0 => {
                let Some(k) = func.const_bits(o.operands[1]) else {
                    return false;
                };
                chain.push(user);
                let off = offset.wrapping_add(k) & 0xffff_ffff;
                if !follow(func, users, o.results[0], off, j, accesses, chain) {
                    return false;
                }
            }
            OpKind::Load(m) | OpKind::Store(m) if pos == 0 => {
                let size = u64::from(m.size);
                let align = size.min(4);
                if offset + size > u64::from(obj.size)
                    || !offset.is_multiple_of(align)
                    || u64::from(obj.align) < align
                {
                    return false;
                }
                let store = matches!(o.kind, OpKind::Store(_));
                let ty = if store {
                    func.ty(o.operands[1])
                } else {
                    func.ty(o.results[0])
                };
                accesses.push(Access {
                    op: user,
                    offset,
                    size: m.size,
                    store,
                    ty,
                });
            }
            _ => return false,
        }
    }
    true
}

/// The type a place of `size` bytes holds for an access of type `ty`.
fn place_ty(size: u8, ty: Ty) -> Option<Ty> {
    Some(match (size, ty) {
        (8, t) => t,
        (4, Ty::I32 | Ty::I64) => Ty::I32,
        (4, t @ (Ty::F32 | Ty::Ptr(Space::Local | Space::Private))) => t,
        (2, Ty::F16) => Ty::F16,
        (1 | 2, Ty::I32 | Ty::I64) => Ty::I32,
        _ => return None,
    })
}

/// The distinct places `(offset, size)` and their types, if the accesses are compatible.
#[allow(clippy::type_complexity)]
fn places(accesses: &[Access]) -> Option<Vec<((u64, u8), Ty)>> {
    let mut ps: Vec<((u64, u8), Ty)> = Vec::new();
    for a in accesses {
        let ty = place_ty(a.size, a.ty)?;
        match ps.iter().find(|(k, _)| *k == (a.offset, a.size)) {
            Some((_, t)) if *t != ty => return None,
            Some(_) => {}
            None => ps.push(((a.offset, a.size), ty)),
        }
    }
    ps.sort_by_key(|(k, _)| *k);
    for w in ps.windows(2) {
        let ((o1, s1), _) = w[0];
        let ((o2, _), _) = w[1];
        if o1 + u64::from(s1) > o2 {
            return None;
        }
    }
    Some(ps)
}

/// The places stored to inside each `If`/`Loop` (nested ones included).
fn writes_of_region(
    func: &Function,
    r: RegionId,
    stores: &HashMap<OpId, usize>,
    writes: &mut HashMap<OpId, Vec<usize>>,
) -> BTreeSet<usize> {
    let mut all = BTreeSet::new();
    for &op in &func.region(r).ops {
        if let Some(&s) = stores.get(&op) {
            all.insert(s);
        }
        let regions = &func.op(op).regions;
        if !regions.is_empty() {
            let mut mine = BTreeSet::new();
            for &nested in regions {
                mine.extend(writes_of_region(func, nested, stores, writes));
            }
            writes.insert(op, mine.iter().copied().collect());
            all.extend(mine);
        }
    }
    all
}

#[derive(Default)]
struct Ctx {
    slot_ty: Vec<Ty>,
    load_slot: HashMap<OpId, usize>,
    store_slot: HashMap<OpId, usize>,
    writes: HashMap<OpId, Vec<usize>>,
    /// The address computations of promoted objects.
    drop: HashSet<OpId>,
    subst: Subst,
}

impl Ctx {
    fn rewrite(&mut self, func: &mut Function, r: RegionId, current: &mut [ValueId]) {
        let ops = std::mem::take(&mut func.region_mut(r).ops);
        let mut out = Vec::with_capacity(ops.len());
        for op in ops {
            if self.drop.contains(&op) {
                continue;
            }
            if let Some(&s) = self.load_slot.get(&op) {
                let o = func.op(op);
                let (res, span) = (o.results[0], o.span);
                let OpKind::Load(m) = o.kind else {
                    unreachable!("a load slot belongs to a load")
                };
                let mut v = current[s];
                if m.size < 4 && func.ty(res) == Ty::I32 {
                    let ext = match (m.size, m.signed) {
                        (1, true) => CastOp::SExt8,
                        (1, false) => CastOp::ZExt8,
                        (_, true) => CastOp::SExt16,
                        (_, false) => CastOp::ZExt16,
                    };
                    let (e, ev) = super::util::new_value_op(
                        func,
                        r,
                        OpKind::Cast(ext),
                        vec![v],
                        Ty::I32,
                        span,
                    );
                    out.push(e);
                    v = ev;
                }
                self.subst.set(res, v);
                continue;
            }
            if let Some(&s) = self.store_slot.get(&op) {
                let o = func.op(op);
                let span = o.span;
                let mut v = self.subst.get(o.operands[1]);
                if self.slot_ty[s] == Ty::I32 && func.ty(v) == Ty::I64 {
                    let (t, tv) = super::util::new_value_op(
                        func,
                        r,
                        OpKind::Cast(CastOp::Trunc),
                        vec![v],
                        Ty::I32,
                        span,
                    );
                    out.push(t);
                    v = tv;
                }
                current[s] = v;
                continue;
            }
            match func.op(op).kind {
                OpKind::If => {
                    let w = self.writes.get(&op).cloned().unwrap_or_default();
                    let results: Vec<ValueId> = w
                        .iter()
                        .map(|&s| add_result(func, op, self.slot_ty[s]))
                        .collect();
                    for arm in func.op(op).regions.clone() {
                        let mut c = current.to_vec();
                        self.rewrite(func, arm, &mut c);
                        let y = *func.region(arm).ops.last().unwrap();
                        let extra: Vec<ValueId> = w.iter().map(|&s| c[s]).collect();
                        func.op_mut(y).operands.extend(extra);
                    }
                    for (&s, r) in w.iter().zip(results) {
                        current[s] = r;
                    }
                }
                OpKind::Loop => {
                    let w = self.writes.get(&op).cloned().unwrap_or_default();
                    let body = func.op(op).regions[0];
                    let mut c = current.to_vec();
                    let mut results = Vec::new();
                    for &s in &w {
                        let ty = self.slot_ty[s];
                        func.op_mut(op).operands.push(current[s]);
                        c[s] = add_arg(func, body, ty);
                        results.push(add_result(func, op, ty));
                    }
                    self.rewrite(func, body, &mut c);
                    let end = *func.region(body).ops.last().unwrap();
                    let extra: Vec<ValueId> = w.iter().map(|&s| c[s]).collect();
                    func.op_mut(end).operands.extend(extra);
                    for (&s, r) in w.iter().zip(results) {
                        current[s] = r;
                    }
                }
                _ => {}
            }
            out.push(op);
        }
        func.region_mut(r).ops = out;
    }
}
