//! Address lowering on the IR, before selection.
//!
//! A global or constant pointer that is a kernel argument (or a program constant's address)
//! plus byte offsets becomes `PtrAdd(root, ZExt(off32))`, with `off32` the offsets summed in
//! 32 bits. The memory instructions' uniform-base form `U64[base] + zext(v[off]) + imm`
//! then addresses it directly, as hand-written kernels do. This is exact for every access
//! C defines: an argument points at the start of its buffer, a valid access stays inside the
//! buffer, and buffers are smaller than 4 GiB (docs/opencl.md), so the true offset is below
//! 2^32 and equals its low 32 bits. The 64-bit index arithmetic C's `size_t` and pointer
//! rules produce is narrowed to 32 bits on the way (`trunc(sext(i) * 4)` is `i * 4`), and
//! what becomes dead is removed.

use crate::ir::{BinOp, CastOp, Function, OpId, OpKind, RegionId, Space, Ty, ValueDef, ValueId};
use std::collections::HashMap;

/// Rewrite the addresses of `f`'s global and constant memory operations.
pub fn rewrite(f: &mut Function) {
    let mut pass = Pass {
        narrowed: HashMap::new(),
        based: HashMap::new(),
    };
    for id in f.walk() {
        let kind = f.op(id).kind.clone();
        if !matches!(kind, OpKind::Load(_) | OpKind::Store(_) | OpKind::Atomic(_)) {
            continue;
        }
        let p = f.op(id).operands[0];
        if !matches!(f.ty(p), Ty::Ptr(Space::Global | Space::Constant)) {
            continue;
        }
        let Some((root, off)) = pass.based(f, p) else {
            continue;
        };
        let Some(off) = off else {
            f.op_mut(id).operands[0] = root;
            continue;
        };
        let span = f.op(id).span;
        let region = f.op(id).parent;
        let z = f.create_op(
            region,
            OpKind::Cast(CastOp::ZExt),
            vec![off],
            &[Ty::I64],
            vec![],
            span,
        );
        let zv = f.op(z).results[0];
        let ty = f.ty(p);
        let add = f.create_op(region, OpKind::PtrAdd, vec![root, zv], &[ty], vec![], span);
        let addv = f.op(add).results[0];
        insert_before(f, region, id, &[z, add]);
        f.op_mut(id).operands[0] = addv;
    }
    dce(f);
}

struct Pass {
    narrowed: HashMap<ValueId, ValueId>,
    based: HashMap<ValueId, Option<(ValueId, Option<ValueId>)>>,
}

impl Pass {
    /// `p` as `root + off32` with `root` a buffer start.
    fn based(&mut self, f: &mut Function, p: ValueId) -> Option<(ValueId, Option<ValueId>)> {
        if let Some(r) = self.based.get(&p) {
            return *r;
        }
        let result = match f.def(p) {
            ValueDef::Op(op, _) => match f.op(op).kind.clone() {
                OpKind::Param(_) | OpKind::ConstantAddr(_) => Some((p, None)),
                OpKind::PtrAdd => {
                    let (q, o) = (f.op(op).operands[0], f.op(op).operands[1]);
                    match self.based(f, q) {
                        Some((root, acc)) => {
                            let n = self.narrow(f, o);
                            let off = match acc {
                                None => n,
                                Some(a) => {
                                    let span = f.op(op).span;
                                    let region = f.op(op).parent;
                                    let add = f.create_op(
                                        region,
                                        OpKind::Binary(BinOp::Add),
                                        vec![a, n],
                                        &[Ty::I32],
                                        vec![],
                                        span,
                                    );
                                    insert_after(f, region, op, add);
                                    f.op(add).results[0]
                                }
                            };
                            Some((root, Some(off)))
                        }
                        None => None,
                    }
                }
                _ => None,
            },
            ValueDef::Arg(..) => None,
        };
        self.based.insert(p, result);
        result
    }

    /// The low 32 bits of the 64-bit integer `v`, computed in 32 bits where possible.
    fn narrow(&mut self, f: &mut Function, v: ValueId) -> ValueId {
        if let Some(&n) = self.narrowed.get(&v) {
            return n;
        }
        let (region, after, span) = match f.def(v) {
            ValueDef::Op(op, _) => (f.op(op).parent, Some(op), f.op(op).span),
            ValueDef::Arg(r, _) => (r, None, crate::source::Span::DUMMY),
        };
        let kind = f.def_op(v).map(|op| f.op(op).kind.clone());
        let operands = f
            .def_op(v)
            .map(|op| f.op(op).operands.clone())
            .unwrap_or_default();
        let new_op = |f: &mut Function, kind: OpKind, operands: Vec<ValueId>| -> ValueId {
            let id = f.create_op(region, kind, operands, &[Ty::I32], vec![], span);
            match after {
                Some(op) => insert_after(f, region, op, id),
                None => f.region_mut(region).ops.insert(0, id),
            }
            f.op(id).results[0]
        };
        let result = match kind {
            _ if f.ty(v) == Ty::I32 => v,
            Some(OpKind::Const(bits)) => new_op(f, OpKind::Const(bits & 0xffff_ffff), vec![]),
            Some(OpKind::Cast(CastOp::SExt | CastOp::ZExt)) if f.ty(operands[0]) == Ty::I32 => {
                operands[0]
            }
            Some(OpKind::Binary(
                op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor),
            )) => {
                let a = self.narrow(f, operands[0]);
                let b = self.narrow(f, operands[1]);
                new_op(f, OpKind::Binary(op), vec![a, b])
            }
            Some(OpKind::Binary(BinOp::Shl))
                if f.const_bits(operands[1]).is_some_and(|c| c & 63 < 32) =>
            {
                let a = self.narrow(f, operands[0]);
                let c = f.const_bits(operands[1]).unwrap_or(0) & 63;
                let k = new_op(f, OpKind::Const(c), vec![]);
                new_op(f, OpKind::Binary(BinOp::Shl), vec![a, k])
            }
            _ => new_op(f, OpKind::Cast(CastOp::Trunc), vec![v]),
        };
        self.narrowed.insert(v, result);
        result
    }
}

fn position(f: &Function, region: RegionId, op: OpId) -> usize {
    f.region(region)
        .ops
        .iter()
        .position(|&o| o == op)
        .expect("op in its region")
}

fn insert_after(f: &mut Function, region: RegionId, op: OpId, new: OpId) {
    let i = position(f, region, op);
    f.region_mut(region).ops.insert(i + 1, new);
}

fn insert_before(f: &mut Function, region: RegionId, op: OpId, new: &[OpId]) {
    let i = position(f, region, op);
    let ops = &mut f.region_mut(region).ops;
    for (k, &n) in new.iter().enumerate() {
        ops.insert(i + k, n);
    }
}

/// Whether an op may be removed when its results are unused.
fn pure(kind: &OpKind) -> bool {
    !matches!(
        kind,
        OpKind::Store(_)
            | OpKind::Atomic(_)
            | OpKind::Barrier { .. }
            | OpKind::Fence { .. }
            | OpKind::If
            | OpKind::Loop
            | OpKind::Yield
            | OpKind::LoopEnd
    )
}

/// Remove pure operations whose results are unused.
pub fn dce(f: &mut Function) {
    loop {
        let mut uses = vec![0u32; f.values.len()];
        for id in f.walk() {
            for &v in &f.op(id).operands {
                uses[v.0 as usize] += 1;
            }
        }
        let mut removed = false;
        for r in 0..f.regions.len() {
            let ops = f.regions[r].ops.clone();
            let keep: Vec<OpId> = ops
                .iter()
                .copied()
                .filter(|&o| {
                    let op = f.op(o);
                    !(pure(&op.kind) && op.results.iter().all(|v| uses[v.0 as usize] == 0))
                })
                .collect();
            if keep.len() != ops.len() {
                removed = true;
                f.regions[r].ops = keep;
            }
        }
        if !removed {
            return;
        }
    }
}
