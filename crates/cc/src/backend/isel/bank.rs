//! Which register file holds each value: the uniform file (`u`) for uniform values that the
//! scalar ALU can compute, the vector file (`v`) otherwise; truth values additionally come
//! as lane masks. As in AMDGPU's SGPR/VGPR selection, a uniform value is computed on the
//! scalar side only when every operand is there too: nothing ever moves from `v` to `u`.

use super::super::uniform::Uniformity;
use crate::ir::{BinOp, CastOp, Function, OpKind, Space, Ty, UnOp, ValueId, WorkItem};

/// Where a value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bank {
    /// In the uniform file: one value for the warp (`I1` as 0 or 1).
    U,
    /// `I1` only: a lane mask in a uniform register (bit `l` set when lane `l` is active
    /// and the value is true), as compares produce.
    Mask,
    /// In the vector file: one value per lane (`I1` as 0 or 1).
    V,
}

/// The bank of every value of `func`.
pub fn assign(func: &Function, uni: &Uniformity, prefer_vector: bool) -> Vec<Bank> {
    let mut bank = vec![Bank::U; func.values.len()];
    let order = func.walk();
    loop {
        let mut changed = false;
        for &id in &order {
            let op = func.op(id);
            match op.kind {
                OpKind::If => {
                    let divergent = uni.is_divergent_op(id);
                    for (i, &r) in op.results.iter().enumerate() {
                        let b = if divergent {
                            Bank::V
                        } else {
                            let arms = op.regions.iter().map(|&reg| {
                                let y = *func.region(reg).ops.last().expect("arm ends in yield");
                                bank[func.op(y).operands[i].0 as usize]
                            });
                            arms.fold(Bank::U, Ord::max)
                        };
                        changed |= raise(&mut bank, r, b);
                    }
                }
                OpKind::Loop => {
                    let body = func.region(op.regions[0]);
                    let end = func.op(*body.ops.last().expect("body ends in loop_end"));
                    let divergent = uni.is_divergent_op(id);
                    for (i, &arg) in body.args.iter().enumerate() {
                        let mut b = bank[op.operands[i].0 as usize]
                            .max(bank[end.operands[i + 1].0 as usize]);
                        if b == Bank::Mask || uni.is_divergent(arg) {
                            b = Bank::V;
                        }
                        changed |= raise(&mut bank, arg, b);
                    }
                    for (i, &r) in op.results.iter().enumerate() {
                        let b = if divergent {
                            Bank::V
                        } else {
                            bank[body.args[i].0 as usize]
                        };
                        changed |= raise(&mut bank, r, b);
                    }
                }
                OpKind::Yield | OpKind::LoopEnd => {}
                _ => {
                    for &r in &op.results {
                        let b = result_bank(func, uni, &bank, id, r, prefer_vector);
                        changed |= raise(&mut bank, r, b);
                    }
                }
            }
        }
        if !changed {
            return bank;
        }
    }
}

fn raise(bank: &mut [Bank], v: ValueId, b: Bank) -> bool {
    let slot = &mut bank[v.0 as usize];
    if b > *slot {
        *slot = b;
        true
    } else {
        false
    }
}

fn result_bank(
    func: &Function,
    uni: &Uniformity,
    bank: &[Bank],
    id: crate::ir::OpId,
    r: ValueId,
    prefer_vector: bool,
) -> Bank {
    let op = func.op(id);
    let ty = func.ty(r);
    let divergent = uni.is_divergent(r);
    let scalar_operands = op
        .operands
        .iter()
        .all(|&v| bank[v.0 as usize] == Bank::U || func.const_bits(v).is_some());
    let uniform_int = !divergent && scalar_operands;
    match &op.kind {
        OpKind::Const(_) | OpKind::Undef => {
            if ty.is_float() {
                Bank::V
            } else {
                Bank::U
            }
        }
        OpKind::Param(_)
        | OpKind::LocalAddr(_)
        | OpKind::PrivateAddr(_)
        | OpKind::ConstantAddr(_) => {
            if ty.is_float() {
                Bank::V
            } else {
                Bank::U
            }
        }
        OpKind::WorkItem(WorkItem::LocalId(_)) => Bank::V,
        OpKind::WorkItem(_) => Bank::U,
        OpKind::Cmp(_) => {
            let operand_ty = func.ty(op.operands[0]);
            if uniform_int && !operand_ty.is_float() && operand_ty.bits() == 32 && !prefer_vector {
                Bank::U
            } else {
                Bank::Mask
            }
        }
        OpKind::Binary(BinOp::And | BinOp::Or | BinOp::Xor)
        | OpKind::Unary(UnOp::Not)
        | OpKind::Select
            if ty == Ty::I1 =>
        {
            if op
                .operands
                .iter()
                .all(|&v| bank[v.0 as usize] == Bank::U || func.const_bits(v).is_some())
            {
                Bank::U
            } else {
                Bank::Mask
            }
        }
        OpKind::Load(m) => {
            let space = match func.ty(op.operands[0]) {
                Ty::Ptr(s) => s,
                _ => Space::Global,
            };
            let scalar_load = matches!(space, Space::Global | Space::Constant)
                && m.size >= 4
                && !ty.is_float()
                && !divergent
                && scalar_operands
                && !prefer_vector;
            if scalar_load {
                Bank::U
            } else {
                Bank::V
            }
        }
        kind => {
            if uniform_int && scalar_op(kind, ty) && (!prefer_vector || ty.is_ptr()) {
                Bank::U
            } else {
                Bank::V
            }
        }
    }
}

/// Whether the scalar ALU computes `kind` with a result of type `ty`.
fn scalar_op(kind: &OpKind, ty: Ty) -> bool {
    match ty {
        Ty::I1 => matches!(kind, OpKind::Select | OpKind::Cast(CastOp::Trunc)),
        Ty::I32 | Ty::Ptr(Space::Local | Space::Private) => matches!(
            kind,
            OpKind::Binary(
                BinOp::Add
                    | BinOp::Sub
                    | BinOp::Mul
                    | BinOp::MulHiS
                    | BinOp::MulHiU
                    | BinOp::And
                    | BinOp::Or
                    | BinOp::Xor
                    | BinOp::Shl
                    | BinOp::LShr
                    | BinOp::AShr
                    | BinOp::Rotl
                    | BinOp::SMin
                    | BinOp::SMax
                    | BinOp::UMin
                    | BinOp::UMax
            ) | OpKind::Unary(
                UnOp::Neg | UnOp::Not | UnOp::Clz | UnOp::Ctz | UnOp::Popcount | UnOp::Brev
            ) | OpKind::Cast(
                CastOp::SExt8
                    | CastOp::SExt16
                    | CastOp::ZExt8
                    | CastOp::ZExt16
                    | CastOp::Trunc
                    | CastOp::ZExt
                    | CastOp::SExt
                    | CastOp::Bitcast
            ) | OpKind::Select
                | OpKind::PtrAdd
        ),
        Ty::I64 | Ty::Ptr(Space::Global | Space::Constant) => matches!(
            kind,
            OpKind::Binary(BinOp::Add | BinOp::Sub)
                | OpKind::PtrAdd
                | OpKind::Cast(CastOp::ZExt | CastOp::SExt | CastOp::Bitcast)
        ),
        _ => false,
    }
}
