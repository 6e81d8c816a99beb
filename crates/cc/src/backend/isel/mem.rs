//! Memory operations and their addressing modes (docs/provisional.md, "Memory
//! instructions"):
//!
//! - global and constant memory: `U64[base] + zext(v[off]) + imm` with a uniform base — a
//!   kernel argument or program constant, with the 32-bit offset the back end's address pass
//!   computed (`PtrAdd(root, ZExt(off))`) — or a 64-bit vector address (`.a64`) for pointers
//!   with no uniform base; uniform loads (`uload`) when the address is uniform;
//! - `__local` memory: `zext(v[addr]) + imm` in the workgroup's shared memory;
//! - private memory: the lane's frame in scratch memory, `scratch_base + lane*frame + off`.

use super::bank::Bank;
use super::Isel;
use crate::backend::mir::{MKind, MOp, RClass, VReg};
use crate::ir::{AtomicOp, CastOp, MemTy, OpId, OpKind, Space, Ty, ValueId};

/// A decomposed address.
enum Addr {
    /// `U64[base] + zext(off) + imm` (global, constant, private).
    Based {
        base: VReg,
        off: Option<ValueId>,
        /// An offset already in a vector register (private memory's lane frame).
        off_reg: Option<VReg>,
        imm: i64,
    },
    /// `V64[ptr] + imm`.
    A64 { ptr: VReg, imm: i64 },
    /// Shared memory `zext(addr) + imm`.
    Shared {
        addr: Option<ValueId>,
        addr_reg: Option<VReg>,
        imm: i64,
    },
}

const IMM_RANGE: std::ops::RangeInclusive<i64> = -(1 << 23)..=(1 << 23) - 1;

impl Isel<'_> {
    /// Whether op `id` (a `PtrAdd` or the `ZExt` of its offset) only feeds memory operands
    /// that the addressing modes absorb, so it needs no code of its own.
    pub(super) fn address_only(&self, id: OpId) -> bool {
        self.addr_only.contains(&id)
    }

    /// The constant value of `LocalAddr`/`PrivateAddr`: the object's offset.
    pub(super) fn address_constant(&self, id: OpId) -> u64 {
        match self.f.op(id).kind {
            OpKind::LocalAddr(i) => u64::from(self.layout.locals[i as usize]),
            OpKind::PrivateAddr(i) => u64::from(self.layout.privates[i as usize]),
            _ => 0,
        }
    }

    fn split_offset(&self, off: ValueId) -> (Option<ValueId>, i64) {
        if let Some(c) = self.konst(off) {
            return (None, c as u32 as i32 as i64);
        }
        if let Some(op) = self.f.def_op(off) {
            let o = self.f.op(op);
            if matches!(o.kind, OpKind::Binary(crate::ir::BinOp::Add)) {
                if let Some(c) = self.konst(o.operands[1]) {
                    return (Some(o.operands[0]), c as u32 as i32 as i64);
                }
            }
        }
        (Some(off), 0)
    }

    /// The constant offset of a `LocalAddr`/`PrivateAddr` value, if `v` is one.
    fn object_base(&self, v: ValueId) -> Option<(Space, u64)> {
        let op = self.f.def_op(v)?;
        match self.f.op(op).kind {
            OpKind::LocalAddr(_) => Some((Space::Local, self.address_constant(op))),
            OpKind::PrivateAddr(_) => Some((Space::Private, self.address_constant(op))),
            _ => None,
        }
    }

    fn address(&mut self, p: ValueId) -> Addr {
        let space = match self.ty(p) {
            Ty::Ptr(s) => s,
            _ => Space::Global,
        };
        // root + offset
        let (root, off, mut imm) = match self.f.def_op(p).map(|o| self.f.op(o).clone()) {
            Some(op) if matches!(op.kind, OpKind::PtrAdd) => {
                let (q, o) = (op.operands[0], op.operands[1]);
                let o = if space.pointer_bits() == 64 {
                    match self.f.def_op(o).map(|d| self.f.op(d).clone()) {
                        Some(z)
                            if matches!(z.kind, OpKind::Cast(CastOp::ZExt))
                                && self.ty(z.operands[0]) == Ty::I32 =>
                        {
                            Some(z.operands[0])
                        }
                        _ if self
                            .konst(o)
                            .is_some_and(|c| IMM_RANGE.contains(&(c as i64))) =>
                        {
                            Some(o)
                        }
                        _ => None,
                    }
                } else {
                    Some(o)
                };
                match o {
                    Some(o) => {
                        let (x, c) = self.split_offset(o);
                        (q, x, c)
                    }
                    None => (p, None, 0),
                }
            }
            _ => (p, None, 0),
        };
        match space {
            Space::Local | Space::Private => {
                let mut root_reg = None;
                if let Some((_, k)) = self.object_base(root) {
                    imm += k as i64;
                } else {
                    root_reg = Some(root);
                }
                let mut addr_reg = None;
                let mut addr = match (root_reg, off) {
                    (Some(r), Some(o)) => {
                        let x = self.v(r);
                        let y = self.v(o);
                        addr_reg =
                            Some(self.def1("add", RClass::V, vec![MOp::Use(x), MOp::Use(y)]));
                        None
                    }
                    (Some(r), None) => Some(r),
                    (None, o) => o,
                };
                if !IMM_RANGE.contains(&imm) {
                    let base = match (addr_reg, addr) {
                        (Some(r), _) => r,
                        (None, Some(a)) => self.v(a),
                        (None, None) => self.const_reg(RClass::V, 0),
                    };
                    addr_reg = Some(self.def1(
                        "add.vl",
                        RClass::V,
                        vec![MOp::Use(base), MOp::Lit(imm as u32)],
                    ));
                    addr = None;
                    imm = 0;
                }
                if space == Space::Local {
                    Addr::Shared {
                        addr,
                        addr_reg,
                        imm,
                    }
                } else {
                    let (base, frame) = self.scratch();
                    let off_reg = match (addr_reg, addr) {
                        (Some(r), _) => {
                            self.def1("add", RClass::V, vec![MOp::Use(frame), MOp::Use(r)])
                        }
                        (None, Some(a)) => {
                            let x = self.v(a);
                            self.def1("add", RClass::V, vec![MOp::Use(frame), MOp::Use(x)])
                        }
                        (None, None) => frame,
                    };
                    Addr::Based {
                        base,
                        off: None,
                        off_reg: Some(off_reg),
                        imm,
                    }
                }
            }
            Space::Global | Space::Constant => {
                if self.bank_of(root) == Bank::V && self.konst(root).is_none() {
                    let ptr = self.v(root);
                    let ptr = match off {
                        Some(o) => {
                            let x = self.v(o);
                            self.def1("addzx64", RClass::VPair, vec![MOp::Use(ptr), MOp::Use(x)])
                        }
                        None => ptr,
                    };
                    Addr::A64 { ptr, imm }
                } else {
                    let base = self.u(root);
                    Addr::Based {
                        base,
                        off,
                        off_reg: None,
                        imm,
                    }
                }
            }
        }
    }

    /// The scratch base (a uniform pair) and this lane's private frame offset.
    fn scratch(&mut self) -> (VReg, VReg) {
        if let Some(s) = self.scratch_regs {
            return s;
        }
        // Computed once, in the entry block, so that it dominates every use.
        let here = self.cur;
        let was_full = self.full_exec;
        let entry = crate::backend::mir::BlockId(0);
        self.cur = entry;
        self.full_exec = true;
        // Insert after the entry instruction and the parameter loads: at the end of the
        // entry block's current instructions is wrong once it has a terminator, so build the
        // sequence and splice it right after `Entry`.
        let start = self.m.blocks[0].insts.len();
        let lo = self.def1("csrr", RClass::U, vec![MOp::Csr("scratch_lo")]);
        let hi = self.def1("csrr", RClass::U, vec![MOp::Csr("scratch_hi")]);
        let base = self.join(MOp::Use(lo), MOp::Use(hi));
        let lane = self.def1("laneid", RClass::V, vec![]);
        let frame_bytes = self.layout.private_frame;
        let frame = self.def1(
            "mul.vl",
            RClass::V,
            vec![MOp::Use(lane), MOp::Lit(frame_bytes)],
        );
        let seq: Vec<_> = self.m.blocks[0].insts.drain(start..).collect();
        self.m.blocks[0].insts.splice(1..1, seq);
        self.cur = here;
        self.full_exec = was_full;
        self.scratch_regs = Some((base, frame));
        (base, frame)
    }

    /// Select a memory operation, barrier or fence.
    pub(super) fn memory(&mut self, id: OpId) {
        let op = self.f.op(id).clone();
        match op.kind {
            OpKind::Load(m) => {
                let r = op.results[0];
                let reg = self.load(id, m, op.operands[0], r);
                self.set(r, reg);
            }
            OpKind::Store(m) => self.store(id, m, op.operands[0], op.operands[1]),
            OpKind::Atomic(a) => {
                let r = op.results[0];
                let used = self.uses_of(r) > 0;
                let reg = self.atomic(id, a, &op.operands, used);
                self.set(r, reg);
            }
            OpKind::Barrier { .. } => self.ins("barrier", vec![]),
            // Every access of a warp reaches memory in program order (docs/abi.md): a fence
            // within one work-item needs no instruction.
            OpKind::Fence { .. } => {}
            _ => unreachable!("not a memory op"),
        }
    }

    fn load(&mut self, id: OpId, m: MemTy, p: ValueId, r: ValueId) -> VReg {
        let ty = self.ty(r);
        let wide = m.size == 8;
        let suffix = match (m.size, m.signed) {
            (1, false) => "u8",
            (1, true) => "i8",
            (2, false) => "u16",
            (2, true) => "i16",
            (4, _) => "b32",
            (8, _) => "b64",
            _ => {
                self.unsupported(id, format!("{}-byte load", m.size));
                return self.reg(r);
            }
        };
        let addr = self.address(p);
        if self.bank_of(r) == Bank::U && matches!(addr, Addr::Based { off_reg: None, .. }) {
            let Addr::Based { base, off, imm, .. } = addr else {
                unreachable!()
            };
            let base = match off {
                Some(o) => {
                    let x = self.u(o);
                    self.def1("uaddzx64", RClass::UPair, vec![MOp::Use(base), MOp::Use(x)])
                }
                None => base,
            };
            let (name, class) = if wide {
                ("uload.b64", RClass::UPair)
            } else {
                ("uload.b32", RClass::U)
            };
            return self.def1(name, class, vec![MOp::Use(base), MOp::Imm(imm)]);
        }
        let class = if ty.bits() == 64 {
            RClass::VPair
        } else {
            RClass::V
        };
        let reg = match addr {
            Addr::Based {
                base,
                off,
                off_reg,
                imm,
            } => {
                let v = match (off_reg, off) {
                    (Some(r), _) => r,
                    (None, Some(o)) => self.v(o),
                    (None, None) => self.const_reg(RClass::V, 0),
                };
                self.def1(
                    &format!("gload.{suffix}"),
                    class,
                    vec![MOp::Use(v), MOp::Use(base), MOp::Imm(imm)],
                )
            }
            Addr::A64 { ptr, imm } => self.def1(
                &format!("gload.{suffix}.a64"),
                class,
                vec![MOp::Use(ptr), MOp::Imm(imm)],
            ),
            Addr::Shared {
                addr,
                addr_reg,
                imm,
            } => {
                let v = self.shared_addr(addr, addr_reg);
                self.def1(
                    &format!("dsload.{suffix}"),
                    class,
                    vec![MOp::Use(v), MOp::Imm(imm)],
                )
            }
        };
        if self.bank_of(r) == Bank::U {
            // A uniform value loaded through the vector path (private memory, sub-word):
            // the result lives in the vector file (bank assignment keeps such loads there).
            return reg;
        }
        reg
    }

    fn shared_addr(&mut self, addr: Option<ValueId>, addr_reg: Option<VReg>) -> VReg {
        match (addr_reg, addr) {
            (Some(r), _) => r,
            (None, Some(a)) => self.v(a),
            (None, None) => self.const_reg(RClass::V, 0),
        }
    }

    fn store(&mut self, id: OpId, m: MemTy, p: ValueId, value: ValueId) {
        let suffix = match m.size {
            1 => "b8",
            2 => "b16",
            4 => "b32",
            8 => "b64",
            n => {
                self.unsupported(id, format!("{n}-byte store"));
                return;
            }
        };
        let data = self.v(value);
        match self.address(p) {
            Addr::Based {
                base,
                off,
                off_reg,
                imm,
            } => {
                let v = match (off_reg, off) {
                    (Some(r), _) => r,
                    (None, Some(o)) => self.v(o),
                    (None, None) => self.const_reg(RClass::V, 0),
                };
                self.ins(
                    &format!("gstore.{suffix}"),
                    vec![MOp::Use(data), MOp::Use(v), MOp::Use(base), MOp::Imm(imm)],
                );
            }
            Addr::A64 { ptr, imm } => {
                self.ins(
                    &format!("gstore.{suffix}.a64"),
                    vec![MOp::Use(data), MOp::Use(ptr), MOp::Imm(imm)],
                );
            }
            Addr::Shared {
                addr,
                addr_reg,
                imm,
            } => {
                let v = self.shared_addr(addr, addr_reg);
                self.ins(
                    &format!("dsstore.{suffix}"),
                    vec![MOp::Use(data), MOp::Use(v), MOp::Imm(imm)],
                );
            }
        }
    }

    fn atomic(&mut self, id: OpId, a: AtomicOp, operands: &[ValueId], used: bool) -> VReg {
        let name = match a {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::SMin => "smin",
            AtomicOp::UMin => "umin",
            AtomicOp::SMax => "smax",
            AtomicOp::UMax => "umax",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Xchg => "swap",
            AtomicOp::CmpXchg => "cmpswap",
        };
        let rtn = if used { ".rtn" } else { "" };
        let data = if a == AtomicOp::CmpXchg {
            let cmp = self.v(operands[1]);
            let new = self.v(operands[2]);
            self.join(MOp::Use(cmp), MOp::Use(new))
        } else {
            self.v(operands[1])
        };
        let addr = self.address(operands[0]);
        let (prefix, mut tail): (&str, Vec<MOp>) = match addr {
            Addr::Based {
                base,
                off,
                off_reg,
                imm,
            } => {
                let v = match (off_reg, off) {
                    (Some(r), _) => r,
                    (None, Some(o)) => self.v(o),
                    (None, None) => self.const_reg(RClass::V, 0),
                };
                ("gatomic", vec![MOp::Use(v), MOp::Use(base), MOp::Imm(imm)])
            }
            Addr::Shared {
                addr,
                addr_reg,
                imm,
            } => {
                let v = self.shared_addr(addr, addr_reg);
                ("dsatomic", vec![MOp::Use(v), MOp::Imm(imm)])
            }
            Addr::A64 { .. } => {
                self.unsupported(id, "atomic operation through a pointer with no buffer base");
                return self.const_reg(RClass::V, 0);
            }
        };
        let mnemonic = format!("{prefix}.{name}{rtn}");
        if !used {
            let mut ops = vec![MOp::Use(data)];
            ops.append(&mut tail);
            self.ins(&mnemonic, ops);
            return self.const_reg(RClass::V, 0);
        }
        let class = self.m.class(data);
        let out = self.m.vreg(class);
        let mut ops = vec![MOp::Tied {
            def: out,
            old: data,
        }];
        ops.append(&mut tail);
        self.ins(&mnemonic, ops);
        if class == RClass::VPair {
            let lo = self.m.vreg(RClass::V);
            self.emit(MKind::Half(false), vec![MOp::Def(lo), MOp::Use(out)]);
            lo
        } else {
            out
        }
    }
}
