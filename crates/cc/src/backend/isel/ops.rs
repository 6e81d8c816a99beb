//! Arithmetic, comparisons, selects, conversions and the other operations without memory
//! or control flow.

use super::bank::Bank;
use super::{AbiReg, Isel};
use crate::backend::mir::{MKind, MOp, RClass, VReg};
use crate::ir::{BinOp, CastOp, CmpPred, MathOp, OpId, OpKind, Space, Ty, UnOp, ValueId, WorkItem};

/// The encodings of a 32-bit integer operation: vector (`vv`), vector with a uniform second
/// operand (`vu`), with an 8-bit immediate (`vi`), with a 32-bit literal (`vl`); uniform
/// (`uu`), with a 10-bit immediate (`ui`), with a literal (`ul`); and the reversed vector
/// forms `op(u, v)` / `op(imm, v)` of non-commutative operations.
#[derive(Default)]
struct Forms {
    vv: &'static str,
    vu: Option<&'static str>,
    vi: Option<&'static str>,
    vl: Option<&'static str>,
    uu: Option<&'static str>,
    ui: Option<&'static str>,
    ul: Option<&'static str>,
    rvu: Option<&'static str>,
    rvi: Option<&'static str>,
    rvl: Option<&'static str>,
    /// The immediate forms read only the low five bits (shift amounts).
    shift: bool,
}

fn forms(op: BinOp) -> Option<Forms> {
    let f = |vv, vu, vi, vl, uu, ui, ul| Forms {
        vv,
        vu,
        vi,
        vl,
        uu,
        ui,
        ul,
        ..Forms::default()
    };
    Some(match op {
        BinOp::Add => f(
            "add",
            Some("add.vu"),
            Some("add.vi"),
            Some("add.vl"),
            Some("uadd"),
            Some("uaddi"),
            Some("uadd.l"),
        ),
        BinOp::Sub => Forms {
            rvu: Some("subr.vu"),
            rvi: Some("subr.vi"),
            rvl: Some("subr.vl"),
            ..f("sub", Some("sub.vu"), None, None, Some("usub"), None, None)
        },
        BinOp::Mul => f(
            "mul",
            Some("mul.vu"),
            Some("mul.vi"),
            Some("mul.vl"),
            Some("umul"),
            Some("umuli"),
            Some("umul.l"),
        ),
        BinOp::MulHiS => f(
            "mulh",
            Some("mulh.vu"),
            None,
            None,
            Some("umulh"),
            None,
            None,
        ),
        BinOp::MulHiU => f(
            "mulhu",
            Some("mulhu.vu"),
            None,
            None,
            Some("umulhu"),
            None,
            None,
        ),
        BinOp::And => f(
            "and",
            Some("and.vu"),
            Some("and.vi"),
            Some("and.vl"),
            Some("uand"),
            Some("uandi"),
            Some("uand.l"),
        ),
        BinOp::Or => f(
            "or",
            Some("or.vu"),
            Some("or.vi"),
            Some("or.vl"),
            Some("uor"),
            Some("uori"),
            Some("uor.l"),
        ),
        BinOp::Xor => f(
            "xor",
            Some("xor.vu"),
            Some("xor.vi"),
            Some("xor.vl"),
            Some("uxor"),
            Some("uxori"),
            Some("uxor.l"),
        ),
        BinOp::Shl => Forms {
            rvu: Some("sllr.vu"),
            shift: true,
            ..f(
                "sll",
                Some("sll.vu"),
                Some("sll.vi"),
                None,
                Some("usll"),
                Some("uslli"),
                None,
            )
        },
        BinOp::LShr => Forms {
            rvu: Some("srlr.vu"),
            shift: true,
            ..f(
                "srl",
                Some("srl.vu"),
                Some("srl.vi"),
                None,
                Some("usrl"),
                Some("usrli"),
                None,
            )
        },
        BinOp::AShr => Forms {
            rvu: Some("srar.vu"),
            shift: true,
            ..f(
                "sra",
                Some("sra.vu"),
                Some("sra.vi"),
                None,
                Some("usra"),
                Some("usrai"),
                None,
            )
        },
        BinOp::Rotl => f("rol", None, None, None, Some("urol"), None, None),
        BinOp::SMin => f(
            "min",
            Some("min.vu"),
            Some("min.vi"),
            None,
            Some("umin"),
            None,
            None,
        ),
        BinOp::SMax => f(
            "max",
            Some("max.vu"),
            Some("max.vi"),
            None,
            Some("umax"),
            None,
            None,
        ),
        BinOp::UMin => f(
            "minu",
            Some("minu.vu"),
            Some("minu.vi"),
            None,
            Some("uminu"),
            None,
            None,
        ),
        BinOp::UMax => f(
            "maxu",
            Some("maxu.vu"),
            Some("maxu.vi"),
            None,
            Some("umaxu"),
            None,
            None,
        ),
        _ => return None,
    })
}

fn fits_signed(value: u64, bits: u32) -> bool {
    let v = value as u32 as i32 as i64;
    let lo = -(1i64 << (bits - 1));
    let hi = (1i64 << (bits - 1)) - 1;
    (lo..=hi).contains(&v)
}

fn sext32(value: u64) -> i64 {
    value as u32 as i32 as i64
}

impl Isel<'_> {
    /// Select an operation without regions.
    pub(super) fn simple(&mut self, id: OpId) {
        let op = self.f.op(id).clone();
        if !op.results.is_empty()
            && (self.address_only(id)
                || self.branch_only(id)
                || self.exit_negation(id)
                || self.high_word_shifts.contains(&id)
                || self.absorbed_muls.contains(&id))
        {
            return;
        }
        let r = op.results.first().copied();
        let a = op.operands.first().copied();
        let b = op.operands.get(1).copied();
        let value = match &op.kind {
            OpKind::Const(_) => return,
            OpKind::Undef => {
                let r = r.expect("undef has a result");
                let class = Self::class_for(self.ty(r), self.bank_of(r));
                let reg = self.m.vreg(class);
                self.emit(MKind::ImplicitDef, vec![MOp::Def(reg)]);
                Some(reg)
            }
            OpKind::Param(i) => Some(self.param(*i as usize, r.expect("param value"))),
            OpKind::WorkItem(w) => Some(self.work_item(*w)),
            // Constants, materialized where they are read (`Isel::konst`).
            OpKind::LocalAddr(_) | OpKind::PrivateAddr(_) => return,
            OpKind::ConstantAddr(i) => {
                let label = crate::backend::layout::constant_label(*i as usize);
                Some(self.def1("upca", RClass::UPair, vec![MOp::Sym(label)]))
            }
            OpKind::Unary(u) => Some(self.unary(id, *u, a.unwrap(), r.unwrap())),
            OpKind::Binary(_) if self.mads.contains_key(&id) => Some(self.mad(id)),
            OpKind::Binary(bop) => Some(self.binary(id, *bop, a.unwrap(), b.unwrap(), r.unwrap())),
            OpKind::Fma => {
                let r = r.unwrap();
                let m = match self.ty(r) {
                    Ty::F32 => "ffma.f32",
                    Ty::F64 => "ffma.f64",
                    _ => "ffma.f16",
                };
                let (x, y, z) = (
                    self.v(op.operands[0]),
                    self.v(op.operands[1]),
                    self.v(op.operands[2]),
                );
                let class = Self::class_for(self.ty(r), Bank::V);
                Some(self.def1(m, class, vec![MOp::Use(x), MOp::Use(y), MOp::Use(z)]))
            }
            OpKind::Cmp(p) => Some(self.compare(id, *p, a.unwrap(), b.unwrap(), r.unwrap())),
            OpKind::Select => {
                Some(self.select(op.operands[0], op.operands[1], op.operands[2], r.unwrap()))
            }
            OpKind::Cast(c) => Some(self.cast(id, *c, a.unwrap(), r.unwrap())),
            OpKind::Math(m) => Some(self.math(id, *m, a.unwrap(), r.unwrap())),
            OpKind::PtrAdd => Some(self.ptr_add(id, a.unwrap(), b.unwrap(), r.unwrap())),
            OpKind::Load(_)
            | OpKind::Store(_)
            | OpKind::Atomic(_)
            | OpKind::Barrier { .. }
            | OpKind::Fence { .. } => {
                self.memory(id);
                return;
            }
            OpKind::If | OpKind::Loop | OpKind::Yield | OpKind::LoopEnd => {
                unreachable!("structured op")
            }
        };
        if let (Some(r), Some(reg)) = (r, value) {
            self.set(r, reg);
        }
    }

    fn broadcast(&mut self, u: VReg) -> VReg {
        let class = if self.m.class(u) == RClass::UPair {
            RClass::VPair
        } else {
            RClass::V
        };
        let m = if class == RClass::VPair {
            "mov64.vu"
        } else {
            "mov.vu"
        };
        self.def1(m, class, vec![MOp::Use(u)])
    }

    /// The value of a uniform-bank result in its bank's class (moving it to the vector file
    /// when the result lives there).
    fn finish(&mut self, r: ValueId, reg: VReg) -> VReg {
        if self.bank_of(r) == Bank::V && !self.m.class(reg).is_vector() {
            self.broadcast(reg)
        } else {
            reg
        }
    }

    fn param(&mut self, i: usize, r: ValueId) -> VReg {
        let base = self.abi(AbiReg::ArgBase);
        let ty = self.ty(r);
        let offset = MOp::Imm(8 * i as i64);
        let reg = if ty.bits() == 64 {
            self.def1("uload.b64", RClass::UPair, vec![MOp::Use(base), offset])
        } else {
            self.def1("uload.b32", RClass::U, vec![MOp::Use(base), offset])
        };
        self.finish(r, reg)
    }

    fn work_item(&mut self, w: WorkItem) -> VReg {
        match w {
            WorkItem::LocalId(d) if d < 3 => self.abi(AbiReg::LocalId(d)),
            WorkItem::GroupId(d) if d < 3 => self.abi(AbiReg::GroupId(d)),
            WorkItem::LocalSize(d) if d < 3 => self.abi(AbiReg::LocalSize(d)),
            WorkItem::NumGroups(d) if d < 3 => self.abi(AbiReg::NumGroups(d)),
            WorkItem::LocalId(_) | WorkItem::GroupId(_) => self.const_reg(RClass::U, 0),
            WorkItem::LocalSize(_) | WorkItem::NumGroups(_) => self.const_reg(RClass::U, 1),
            WorkItem::WorkDim => {
                // 3 when anything spans z, else 2 when anything spans y, else 1
                // (docs/opencl.md): dims = 1 + (y or z used) + (z used).
                let used = |s: &mut Self, d: u8| {
                    let n = s.abi(AbiReg::NumGroups(d));
                    let l = s.abi(AbiReg::LocalSize(d));
                    let t = s.def1("umul", RClass::U, vec![MOp::Use(n), MOp::Use(l)]);
                    s.def1("usnei", RClass::U, vec![MOp::Use(t), MOp::Imm(1)])
                };
                let z = used(self, 2);
                let y = used(self, 1);
                let yz = self.def1("uor", RClass::U, vec![MOp::Use(y), MOp::Use(z)]);
                let s = self.def1("uadd", RClass::U, vec![MOp::Use(yz), MOp::Use(z)]);
                self.def1("uaddi", RClass::U, vec![MOp::Use(s), MOp::Imm(1)])
            }
        }
    }

    /// Whether `v` is a vector-bank (not constant) value.
    fn is_vec(&self, v: ValueId) -> bool {
        self.bank_of(v) == Bank::V && self.konst(v).is_none()
    }

    fn unary(&mut self, id: OpId, u: UnOp, a: ValueId, r: ValueId) -> VReg {
        let ty = self.ty(r);
        let bank = self.bank_of(r);
        if ty == Ty::I1 {
            // Logical not.
            return match bank {
                Bank::U => {
                    let x = self.ubool(a);
                    self.def1("uxori", RClass::U, vec![MOp::Use(x), MOp::Imm(1)])
                }
                Bank::Mask => {
                    let m = self.mask(a);
                    let e = self.exec();
                    self.def1("uandn", RClass::U, vec![MOp::Use(e), MOp::Use(m)])
                }
                Bank::V => {
                    let x = self.vbool(a);
                    self.def1("xor.vi", RClass::V, vec![MOp::Use(x), MOp::Imm(1)])
                }
            };
        }
        if ty.bits() == 64 && matches!(ty, Ty::I64) {
            return match u {
                UnOp::Neg => {
                    let x = self.v(a);
                    let zero = self.const_reg(RClass::VPair, 0);
                    self.def1("sub64", RClass::VPair, vec![MOp::Use(zero), MOp::Use(x)])
                }
                UnOp::Not => {
                    let (lo, hi) = self.split(a);
                    self.pair_by_halves(("not", vec![lo]), ("not", vec![hi]))
                }
                _ => {
                    self.unsupported(id, format!("64-bit {u:?}"));
                    self.reg(r)
                }
            };
        }
        match u {
            UnOp::FNeg | UnOp::FAbs => {
                let (mask_op, bits) = match (u, ty) {
                    (UnOp::FNeg, Ty::F16) => ("xor.vl", 0x8000u32),
                    (UnOp::FAbs, Ty::F16) => ("and.vl", 0x7fff),
                    (UnOp::FNeg, _) => ("xor.vl", 0x8000_0000),
                    _ => ("and.vl", 0x7fff_ffff),
                };
                if ty == Ty::F64 {
                    // Only the high word holds the sign.
                    let x = self.v(a);
                    let (_, hi) = Self::halves_of(x);
                    return self.write_half(x, true, mask_op, vec![hi, MOp::Lit(bits)]);
                }
                let x = self.v(a);
                self.def1(mask_op, RClass::V, vec![MOp::Use(x), MOp::Lit(bits)])
            }
            _ if bank == Bank::U => {
                let x = self.u(a);
                match u {
                    UnOp::Neg => {
                        let zero = self.const_reg(RClass::U, 0);
                        self.def1("usub", RClass::U, vec![MOp::Use(zero), MOp::Use(x)])
                    }
                    UnOp::Not => self.def1("unot", RClass::U, vec![MOp::Use(x)]),
                    UnOp::Clz => self.def1("uclz", RClass::U, vec![MOp::Use(x)]),
                    UnOp::Ctz => self.def1("uctz", RClass::U, vec![MOp::Use(x)]),
                    UnOp::Popcount => self.def1("ucpop", RClass::U, vec![MOp::Use(x)]),
                    UnOp::Brev => self.def1("ubrev", RClass::U, vec![MOp::Use(x)]),
                    _ => unreachable!("bank U for {u:?}"),
                }
            }
            _ => {
                let x = self.v(a);
                let m = match u {
                    UnOp::Neg => "neg",
                    UnOp::Not => "not",
                    UnOp::Clz => "clz",
                    UnOp::Ctz => "ctz",
                    UnOp::Popcount => "cpop",
                    UnOp::Brev => "brev",
                    UnOp::Abs => "abs",
                    UnOp::FNeg | UnOp::FAbs => unreachable!(),
                };
                self.def1(m, RClass::V, vec![MOp::Use(x)])
            }
        }
    }

    /// The two halves of a 64-bit value, as operands that read them in place.
    pub(super) fn split(&mut self, v: ValueId) -> (MOp, MOp) {
        let p = self.v(v);
        Self::halves_of(p)
    }

    /// The halves of pair register `p` as operands.
    pub(super) fn halves_of(p: VReg) -> (MOp, MOp) {
        (
            MOp::UseHalf {
                pair: p,
                high: false,
            },
            MOp::UseHalf {
                pair: p,
                high: true,
            },
        )
    }

    /// A pair from two halves (registers or halves of pairs): two moves.
    pub(super) fn join(&mut self, lo: MOp, hi: MOp) -> VReg {
        let vector = match (&lo, &hi) {
            (MOp::Use(v), _) | (MOp::UseHalf { pair: v, .. }, _) => self.m.class(*v).is_vector(),
            _ => true,
        };
        let p = self
            .m
            .vreg(if vector { RClass::VPair } else { RClass::UPair });
        self.emit(MKind::MakePair, vec![MOp::Def(p), lo, hi]);
        p
    }

    /// A vector pair computed half by half: `lo` and `hi` are the instructions (mnemonic
    /// and source operands) writing each half in place, no moves.
    pub(super) fn pair_by_halves(&mut self, lo: (&str, Vec<MOp>), hi: (&str, Vec<MOp>)) -> VReg {
        let p0 = self.m.vreg(RClass::VPair);
        self.emit(MKind::ImplicitDef, vec![MOp::Def(p0)]);
        let p1 = self.write_half(p0, false, lo.0, lo.1);
        self.write_half(p1, true, hi.0, hi.1)
    }

    /// `old` with one half replaced by instruction `name`'s result.
    pub(super) fn write_half(&mut self, old: VReg, high: bool, name: &str, uses: Vec<MOp>) -> VReg {
        let def = self.m.vreg(self.m.class(old));
        let mut ops = vec![MOp::TiedHalf { def, old, high }];
        ops.extend(uses);
        self.ins(name, ops);
        def
    }

    /// `mad.u32` for an `add` and the `mul` it absorbs ([`Isel::mads`]).
    fn mad(&mut self, add: OpId) -> VReg {
        let mul = self.f.op(self.mads[&add]);
        let (x, y) = (mul.operands[0], mul.operands[1]);
        let product = mul.results[0];
        let operands = &self.f.op(add).operands;
        let other = if operands[0] == product {
            operands[1]
        } else {
            operands[0]
        };
        let (x, y, z) = (self.v(x), self.v(y), self.v(other));
        self.def1(
            "mad.u32",
            RClass::V,
            vec![MOp::Use(x), MOp::Use(y), MOp::Use(z)],
        )
    }

    fn binary(&mut self, id: OpId, op: BinOp, a: ValueId, b: ValueId, r: ValueId) -> VReg {
        let ty = self.ty(r);
        if ty == Ty::I1 {
            return self.logic(op, a, b, r);
        }
        if ty.is_float() {
            return self.float_binary(id, op, a, b, r);
        }
        if ty.bits() == 64 {
            return self.binary64(id, op, a, b, r);
        }
        let Some(forms) = forms(op) else {
            self.unsupported(id, format!("integer {op:?} (needs legalization)"));
            return self.reg(r);
        };
        if self.bank_of(r) == Bank::U {
            self.binary_u(op, &forms, a, b)
        } else {
            self.binary_v(op, &forms, a, b)
        }
    }

    fn binary_u(&mut self, op: BinOp, f: &Forms, mut a: ValueId, mut b: ValueId) -> VReg {
        if self.konst(a).is_some() && self.konst(b).is_none() && op.is_commutative() {
            std::mem::swap(&mut a, &mut b);
        }
        let x = self.u(a);
        if let Some(c) = self.konst(b) {
            let c = c as u32 as u64;
            let (c, ui, ul) = if op == BinOp::Sub {
                (
                    (c as u32).wrapping_neg() as u64,
                    Some("uaddi"),
                    Some("uadd.l"),
                )
            } else {
                (c, f.ui, f.ul)
            };
            let c = if f.shift { c & 31 } else { c };
            if let Some(ui) = ui.filter(|_| fits_signed(c, 10)) {
                return self.def1(ui, RClass::U, vec![MOp::Use(x), MOp::Imm(sext32(c))]);
            }
            if let Some(ul) = ul {
                return self.def1(ul, RClass::U, vec![MOp::Use(x), MOp::Lit(c as u32)]);
            }
        }
        let y = self.u(b);
        self.def1(
            f.uu.expect("uniform form"),
            RClass::U,
            vec![MOp::Use(x), MOp::Use(y)],
        )
    }

    fn binary_v(&mut self, op: BinOp, f: &Forms, mut a: ValueId, mut b: ValueId) -> VReg {
        if !self.is_vec(a) && self.is_vec(b) {
            if op.is_commutative() {
                std::mem::swap(&mut a, &mut b);
            } else if let Some(c) = self.konst(a) {
                // imm - v, imm << v, ...
                let x = self.v(b);
                if let Some(rvi) = f.rvi.filter(|_| fits_signed(c, 8)) {
                    return self.def1(rvi, RClass::V, vec![MOp::Use(x), MOp::Imm(sext32(c))]);
                }
                if let Some(rvl) = f.rvl {
                    return self.def1(rvl, RClass::V, vec![MOp::Use(x), MOp::Lit(c as u32)]);
                }
                if let Some(rvu) = f.rvu {
                    let y = self.const_reg(RClass::U, c);
                    return self.def1(rvu, RClass::V, vec![MOp::Use(x), MOp::Use(y)]);
                }
            } else if let Some(rvu) = f.rvu {
                let x = self.v(b);
                let y = self.u(a);
                return self.def1(rvu, RClass::V, vec![MOp::Use(x), MOp::Use(y)]);
            }
        }
        let x = self.v(a);
        if let Some(c) = self.konst(b) {
            let c = c as u32 as u64;
            let (c, vi, vl) = if op == BinOp::Sub {
                (
                    (c as u32).wrapping_neg() as u64,
                    Some("add.vi"),
                    Some("add.vl"),
                )
            } else {
                (c, f.vi, f.vl)
            };
            let c = if f.shift { c & 31 } else { c };
            if let Some(vi) = vi.filter(|_| fits_signed(c, 8)) {
                return self.def1(vi, RClass::V, vec![MOp::Use(x), MOp::Imm(sext32(c))]);
            }
            if let Some(vl) = vl {
                return self.def1(vl, RClass::V, vec![MOp::Use(x), MOp::Lit(c as u32)]);
            }
            if let Some(vu) = f.vu {
                let y = self.const_reg(RClass::U, c);
                return self.def1(vu, RClass::V, vec![MOp::Use(x), MOp::Use(y)]);
            }
        } else if self.bank_of(b) == Bank::U {
            if let Some(vu) = f.vu {
                let y = self.u(b);
                return self.def1(vu, RClass::V, vec![MOp::Use(x), MOp::Use(y)]);
            }
        }
        let y = self.v(b);
        self.def1(f.vv, RClass::V, vec![MOp::Use(x), MOp::Use(y)])
    }

    fn binary64(&mut self, id: OpId, op: BinOp, a: ValueId, b: ValueId, r: ValueId) -> VReg {
        if self.bank_of(r) == Bank::U {
            let x = self.u(a);
            if let Some(c) = self.konst(b) {
                let c = if op == BinOp::Sub {
                    c.wrapping_neg()
                } else {
                    c
                };
                if fits_signed(c, 10) && (c as i64) == sext32(c) {
                    return self.def1(
                        "uadd64i",
                        RClass::UPair,
                        vec![MOp::Use(x), MOp::Imm(c as i64)],
                    );
                }
                if (c as i64) == sext32(c) {
                    return self.def1(
                        "uadd64.l",
                        RClass::UPair,
                        vec![MOp::Use(x), MOp::Lit(c as u32)],
                    );
                }
            }
            let y = self.u(b);
            let m = if op == BinOp::Sub { "usub64" } else { "uadd64" };
            return self.def1(m, RClass::UPair, vec![MOp::Use(x), MOp::Use(y)]);
        }
        match op {
            BinOp::Add | BinOp::Sub => {
                let x = self.v(a);
                if let Some(c) = self.konst(b) {
                    let c = if op == BinOp::Sub {
                        c.wrapping_neg()
                    } else {
                        c
                    };
                    if (c as i64) == sext32(c) {
                        return self.def1(
                            "addsx64.vl",
                            RClass::VPair,
                            vec![MOp::Use(x), MOp::Lit(c as u32)],
                        );
                    }
                }
                let y = self.v(b);
                let m = if op == BinOp::Sub { "sub64" } else { "add64" };
                self.def1(m, RClass::VPair, vec![MOp::Use(x), MOp::Use(y)])
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let x = self.v(a);
                let amount = if let Some(c) = self.konst(b) {
                    MOp::Use(self.const_reg(RClass::V, c & 63))
                } else {
                    self.split(b).0
                };
                let m = match op {
                    BinOp::Shl => "sll64",
                    BinOp::LShr => "srl64",
                    _ => "sra64",
                };
                self.def1(m, RClass::VPair, vec![MOp::Use(x), amount])
            }
            BinOp::And | BinOp::Or | BinOp::Xor => {
                let m = match op {
                    BinOp::And => "and",
                    BinOp::Or => "or",
                    _ => "xor",
                };
                let (al, ah) = self.split(a);
                let (bl, bh) = self.split(b);
                self.pair_by_halves((m, vec![al, bl]), (m, vec![ah, bh]))
            }
            BinOp::Mul => {
                // (ah*2^32 + al)(bh*2^32 + bl) mod 2^64 = al*bl + ((al*bh + ah*bl) << 32)
                let (al, ah) = self.split(a);
                let (bl, bh) = self.split(b);
                let low = self.def1("mulwu", RClass::VPair, vec![al.clone(), bl.clone()]);
                let c1 = self.def1("mul", RClass::V, vec![al, bh]);
                let c2 = self.def1("mad.u32", RClass::V, vec![ah, bl, MOp::Use(c1)]);
                let (_, lh) = Self::halves_of(low);
                self.write_half(low, true, "add", vec![lh, MOp::Use(c2)])
            }
            BinOp::SMin | BinOp::SMax | BinOp::UMin | BinOp::UMax => {
                let (pred, first) = match op {
                    BinOp::SMin => ("cmp.lt.i64", a),
                    BinOp::SMax => ("cmp.lt.i64", b),
                    BinOp::UMin => ("cmp.lt.u64", a),
                    _ => ("cmp.lt.u64", b),
                };
                let x = self.v(a);
                let y = self.v(b);
                let m = self.def1(pred, RClass::U, vec![MOp::Use(x), MOp::Use(y)]);
                // a < b: min is a, max is b.
                let (on_true, on_false) = if first == a { (x, y) } else { (y, x) };
                self.select_pair_by_mask(m, on_true, on_false)
            }
            _ => {
                self.unsupported(id, format!("64-bit {op:?}"));
                self.reg(r)
            }
        }
    }

    /// `m ? t : f` for vector pairs under a lane mask.
    fn select_pair_by_mask(&mut self, m: VReg, t: VReg, f: VReg) -> VReg {
        let zero = self.m.vreg(RClass::V);
        self.ins("movi", vec![MOp::Def(zero), MOp::Imm(0)]);
        let one = self.const_reg(RClass::V, 1);
        let c = self.m.vreg(RClass::V);
        self.ins(
            "cndmask",
            vec![MOp::Tied { def: c, old: zero }, MOp::Use(one), MOp::Use(m)],
        );
        self.def1(
            "sel64",
            RClass::VPair,
            vec![MOp::Use(t), MOp::Use(f), MOp::Use(c)],
        )
    }

    fn logic(&mut self, op: BinOp, a: ValueId, b: ValueId, r: ValueId) -> VReg {
        let m = match op {
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            _ => unreachable!("logic on I1: {op:?}"),
        };
        match self.bank_of(r) {
            Bank::U => {
                let x = self.ubool(a);
                let y = self.ubool(b);
                self.def1(&format!("u{m}"), RClass::U, vec![MOp::Use(x), MOp::Use(y)])
            }
            Bank::Mask => {
                let x = self.mask(a);
                let y = self.mask(b);
                self.def1(&format!("u{m}"), RClass::U, vec![MOp::Use(x), MOp::Use(y)])
            }
            Bank::V => {
                let x = self.vbool(a);
                let y = self.vbool(b);
                self.def1(m, RClass::V, vec![MOp::Use(x), MOp::Use(y)])
            }
        }
    }

    fn float_binary(&mut self, id: OpId, op: BinOp, a: ValueId, b: ValueId, r: ValueId) -> VReg {
        let ty = self.ty(r);
        let suffix = match ty {
            Ty::F16 => "f16",
            Ty::F32 => "f32",
            _ => "f64",
        };
        let name = match op {
            BinOp::FAdd => "fadd",
            BinOp::FSub => "fsub",
            BinOp::FMul => "fmul",
            BinOp::FMin => "fmin",
            BinOp::FMax => "fmax",
            BinOp::FDiv => "fdiv",
            _ => {
                self.unsupported(id, format!("{op:?} on {ty}"));
                return self.reg(r);
            }
        };
        let x = self.v(a);
        let y = self.v(b);
        if op == BinOp::FDiv && ty == Ty::F16 {
            // In binary32 and rounded once more: exact, since 24 >= 2*11 + 2 bits.
            let xf = self.def1("cvt.f32.f16", RClass::V, vec![MOp::Use(x)]);
            let yf = self.def1("cvt.f32.f16", RClass::V, vec![MOp::Use(y)]);
            let q = self.def1("fdiv.f32", RClass::V, vec![MOp::Use(xf), MOp::Use(yf)]);
            return self.def1("cvt.f16.f32", RClass::V, vec![MOp::Use(q)]);
        }
        let class = Self::class_for(ty, Bank::V);
        self.def1(
            &format!("{name}.{suffix}"),
            class,
            vec![MOp::Use(x), MOp::Use(y)],
        )
    }

    fn compare(&mut self, id: OpId, p: CmpPred, a: ValueId, b: ValueId, r: ValueId) -> VReg {
        let ty = self.ty(a);
        if ty.is_float() {
            let suffix = match ty {
                Ty::F16 => "f16",
                Ty::F32 => "f32",
                _ => "f64",
            };
            let name = match p {
                CmpPred::FOeq => "eq",
                CmpPred::FUne => "ne",
                CmpPred::FOlt => "lt",
                CmpPred::FOle => "le",
                CmpPred::FOgt => "gt",
                CmpPred::FOge => "ge",
                CmpPred::FOrd => "o",
                CmpPred::FUno => "u",
                _ => {
                    self.unsupported(id, format!("integer predicate {p:?} on floats"));
                    return self.reg(r);
                }
            };
            let x = self.v(a);
            let y = self.v(b);
            return self.def1(
                &format!("fcmp.{name}.{suffix}"),
                RClass::U,
                vec![MOp::Use(x), MOp::Use(y)],
            );
        }
        if ty == Ty::I1 {
            // Equality of truth values.
            let x = self.mask(a);
            let y = self.mask(b);
            let ne = self.def1("uxor", RClass::U, vec![MOp::Use(x), MOp::Use(y)]);
            let out = if p == CmpPred::Eq {
                let e = self.exec();
                self.def1("uandn", RClass::U, vec![MOp::Use(e), MOp::Use(ne)])
            } else {
                ne
            };
            return if self.bank_of(r) == Bank::U {
                self.def1("usnei", RClass::U, vec![MOp::Use(out), MOp::Imm(0)])
            } else {
                out
            };
        }
        if self.bank_of(r) == Bank::U {
            return self.compare_u(p, a, b);
        }
        if ty.bits() == 64 {
            let (p, x, y) = normalize_swap(p, a, b);
            let (name, signed) = pred_name(p);
            let width = if signed { "i64" } else { "u64" };
            let xv = self.v(x);
            let yv = self.v(y);
            return self.def1(
                &format!("cmp.{name}.{width}"),
                RClass::U,
                vec![MOp::Use(xv), MOp::Use(yv)],
            );
        }
        self.compare_v32(p, a, b)
    }

    fn compare_u(&mut self, p: CmpPred, a: ValueId, b: ValueId) -> VReg {
        // useq/usne/uslt/usltu/usge/usgeu, with s10 and literal forms for eq/ne/lt/ltu.
        let (p, x, y) = if self.konst(a).is_some() && self.konst(b).is_none() {
            (swap(p), b, a)
        } else {
            (p, a, b)
        };
        let xr = self.u(x);
        if let Some(c) = self.konst(y) {
            let imm = match p {
                CmpPred::Eq => Some(("useqi", Some("useq.l"))),
                CmpPred::Ne => Some(("usnei", None)),
                CmpPred::Slt => Some(("uslti", Some("uslt.l"))),
                CmpPred::Ult => Some(("usltiu", Some("usltu.l"))),
                _ => None,
            };
            if let Some((i, l)) = imm {
                if fits_signed(c, 10) {
                    return self.def1(i, RClass::U, vec![MOp::Use(xr), MOp::Imm(sext32(c))]);
                }
                if let Some(l) = l {
                    return self.def1(l, RClass::U, vec![MOp::Use(xr), MOp::Lit(c as u32)]);
                }
            }
        }
        let (p, x, y) = normalize_swap(p, x, y);
        let xr = self.u(x);
        let yr = self.u(y);
        let m = match p {
            CmpPred::Eq => "useq",
            CmpPred::Ne => "usne",
            CmpPred::Slt => "uslt",
            CmpPred::Sge => "usge",
            CmpPred::Ult => "usltu",
            CmpPred::Uge => "usgeu",
            _ => unreachable!("normalized"),
        };
        self.def1(m, RClass::U, vec![MOp::Use(xr), MOp::Use(yr)])
    }

    fn compare_v32(&mut self, p: CmpPred, a: ValueId, b: ValueId) -> VReg {
        // Put the vector operand first.
        let (p, x, y) = if !self.is_vec(a) && self.is_vec(b) {
            (swap(p), b, a)
        } else {
            (p, a, b)
        };
        if let Some(c) = self.konst(y) {
            let c32 = c as u32;
            let signed = matches!(p, CmpPred::Slt | CmpPred::Sle | CmpPred::Sgt | CmpPred::Sge);
            // x <= c is x < c+1, x > c stays `gt` (which has only the immediate form).
            let (name, c2) = match p {
                CmpPred::Eq => (Some("eq"), Some(c32)),
                CmpPred::Ne => (Some("ne"), Some(c32)),
                CmpPred::Slt | CmpPred::Ult => (Some("lt"), Some(c32)),
                CmpPred::Sge | CmpPred::Uge => (Some("ge"), Some(c32)),
                CmpPred::Sgt | CmpPred::Ugt => (Some("gt"), Some(c32)),
                CmpPred::Sle if c32 as i32 != i32::MAX => (Some("lt"), Some(c32.wrapping_add(1))),
                CmpPred::Ule if c32 != u32::MAX => (Some("lt"), Some(c32 + 1)),
                _ => (None, None),
            };
            if let (Some(name), Some(c2)) = (name, c2) {
                if fits_signed(u64::from(c2), 8) {
                    let width = if signed || matches!(p, CmpPred::Eq | CmpPred::Ne) {
                        "i32"
                    } else {
                        "u32"
                    };
                    let xr = self.v(x);
                    return self.def1(
                        &format!("cmp.{name}.{width}.vi"),
                        RClass::U,
                        vec![MOp::Use(xr), MOp::Imm(i64::from(c2 as i32))],
                    );
                }
            }
        }
        let y_uniform = !self.is_vec(y);
        let (p, x, y) = if matches!(p, CmpPred::Sgt | CmpPred::Sle | CmpPred::Ugt | CmpPred::Ule) {
            if y_uniform {
                // x > u: no `gt.vu`; use !(x <= u) = !(u >= x)... keep simple: swap into vv.
                (swap(p), y, x)
            } else {
                (swap(p), y, x)
            }
        } else {
            (p, x, y)
        };
        let (name, signed) = pred_name(p);
        let width = if signed { "i32" } else { "u32" };
        let xr = self.v(x);
        if !self.is_vec(y) {
            let yr = self.u(y);
            return self.def1(
                &format!("cmp.{name}.{width}.vu"),
                RClass::U,
                vec![MOp::Use(xr), MOp::Use(yr)],
            );
        }
        let yr = self.v(y);
        self.def1(
            &format!("cmp.{name}.{width}"),
            RClass::U,
            vec![MOp::Use(xr), MOp::Use(yr)],
        )
    }

    fn select(&mut self, c: ValueId, a: ValueId, b: ValueId, r: ValueId) -> VReg {
        let ty = self.ty(r);
        if let Some(bits) = self.konst(c) {
            let v = if bits & 1 != 0 { a } else { b };
            return match self.bank_of(r) {
                Bank::V => self.v(v),
                Bank::Mask => self.mask(v),
                Bank::U if ty == Ty::I1 => self.ubool(v),
                Bank::U => self.u(v),
            };
        }
        match self.bank_of(r) {
            Bank::U => {
                let cond = self.ubool(c);
                let x = self.u(a);
                let y = self.u(b);
                let t = self.def1("uczero.eqz", RClass::U, vec![MOp::Use(x), MOp::Use(cond)]);
                let f = self.def1("uczero.nez", RClass::U, vec![MOp::Use(y), MOp::Use(cond)]);
                self.def1("uor", RClass::U, vec![MOp::Use(t), MOp::Use(f)])
            }
            Bank::Mask => {
                // Identities first: c ? true : b = c | b, c ? a : false = c & a (also with the
                // condition itself as an operand).
                let is_true =
                    |s: &Self, v: ValueId| v == c || s.konst(v).is_some_and(|k| k & 1 == 1);
                let is_false = |s: &Self, v: ValueId| s.konst(v).is_some_and(|k| k & 1 == 0);
                if is_true(self, a) {
                    let m = self.mask(c);
                    let y = self.mask(b);
                    return self.def1("uor", RClass::U, vec![MOp::Use(m), MOp::Use(y)]);
                }
                if is_false(self, b) || b == c {
                    let m = self.mask(c);
                    let x = self.mask(a);
                    return self.def1("uand", RClass::U, vec![MOp::Use(m), MOp::Use(x)]);
                }
                // (m & a) | (~m & b) on masks.
                let m = self.mask(c);
                let x = self.mask(a);
                let y = self.mask(b);
                let t = self.def1("uand", RClass::U, vec![MOp::Use(m), MOp::Use(x)]);
                let f = self.def1("uandn", RClass::U, vec![MOp::Use(y), MOp::Use(m)]);
                self.def1("uor", RClass::U, vec![MOp::Use(t), MOp::Use(f)])
            }
            Bank::V => {
                if ty.bits() == 64 {
                    let x = self.v(a);
                    let y = self.v(b);
                    let cv = self.vbool(c);
                    return self.def1(
                        "sel64",
                        RClass::VPair,
                        vec![MOp::Use(x), MOp::Use(y), MOp::Use(cv)],
                    );
                }
                if self.bank_of(c) == Bank::Mask {
                    let old = self.v(b);
                    let x = self.v(a);
                    let m = self.mask(c);
                    let d = self.m.vreg(RClass::V);
                    self.ins(
                        "cndmask",
                        vec![MOp::Tied { def: d, old }, MOp::Use(x), MOp::Use(m)],
                    );
                    return d;
                }
                let x = self.v(a);
                let y = self.v(b);
                let cv = self.vbool(c);
                self.def1(
                    "sel",
                    RClass::V,
                    vec![MOp::Use(x), MOp::Use(y), MOp::Use(cv)],
                )
            }
        }
    }

    fn cast(&mut self, id: OpId, c: CastOp, a: ValueId, r: ValueId) -> VReg {
        let from = self.ty(a);
        let to = self.ty(r);
        let bank = self.bank_of(r);
        match c {
            CastOp::Bitcast => {
                if bank == Bank::V {
                    self.v(a)
                } else {
                    self.u(a)
                }
            }
            CastOp::ZExt | CastOp::SExt => {
                let signed = c == CastOp::SExt;
                if from == Ty::I1 {
                    let bit = if bank == Bank::U {
                        self.ubool(a)
                    } else {
                        self.vbool(a)
                    };
                    let word = if !signed {
                        bit
                    } else if bank == Bank::U {
                        let zero = self.const_reg(RClass::U, 0);
                        self.def1("usub", RClass::U, vec![MOp::Use(zero), MOp::Use(bit)])
                    } else {
                        self.def1("neg", RClass::V, vec![MOp::Use(bit)])
                    };
                    if to.bits() == 64 {
                        let hi = if signed {
                            word
                        } else {
                            let class = if bank == Bank::U {
                                RClass::U
                            } else {
                                RClass::V
                            };
                            self.const_reg(class, 0)
                        };
                        return self.join(MOp::Use(word), MOp::Use(hi));
                    }
                    return word;
                }
                // I32 → I64
                if bank == Bank::U {
                    let x = self.u(a);
                    let hi = if signed {
                        self.def1("usrai", RClass::U, vec![MOp::Use(x), MOp::Imm(31)])
                    } else {
                        self.const_reg(RClass::U, 0)
                    };
                    self.join(MOp::Use(x), MOp::Use(hi))
                } else {
                    let x = self.v(a);
                    let hi = if signed {
                        self.def1("sra.vi", RClass::V, vec![MOp::Use(x), MOp::Imm(31)])
                    } else {
                        self.const_reg(RClass::V, 0)
                    };
                    self.join(MOp::Use(x), MOp::Use(hi))
                }
            }
            CastOp::Trunc => {
                let word = if from.bits() == 64 {
                    // trunc(x >> 32) is x's high word.
                    let (source, high) = match self.high_word_of(a) {
                        Some(x) => (x, true),
                        None => (a, false),
                    };
                    let p = if bank == Bank::U {
                        self.u(source)
                    } else {
                        self.v(source)
                    };
                    let class = if bank == Bank::U {
                        RClass::U
                    } else {
                        RClass::V
                    };
                    let lo = self.m.vreg(class);
                    self.emit(MKind::Half(high), vec![MOp::Def(lo), MOp::Use(p)]);
                    lo
                } else if bank == Bank::U {
                    self.u(a)
                } else {
                    self.v(a)
                };
                if to == Ty::I1 {
                    if bank == Bank::U {
                        self.def1("uandi", RClass::U, vec![MOp::Use(word), MOp::Imm(1)])
                    } else {
                        self.def1("and.vi", RClass::V, vec![MOp::Use(word), MOp::Imm(1)])
                    }
                } else {
                    word
                }
            }
            CastOp::SExt8 | CastOp::SExt16 | CastOp::ZExt8 | CastOp::ZExt16 => {
                if bank == Bank::U {
                    let x = self.u(a);
                    match c {
                        CastOp::SExt8 => self.def1("usext.b", RClass::U, vec![MOp::Use(x)]),
                        CastOp::SExt16 => self.def1("usext.h", RClass::U, vec![MOp::Use(x)]),
                        CastOp::ZExt8 => {
                            self.def1("uandi", RClass::U, vec![MOp::Use(x), MOp::Imm(255)])
                        }
                        _ => self.def1("uand.l", RClass::U, vec![MOp::Use(x), MOp::Lit(0xffff)]),
                    }
                } else {
                    let x = self.v(a);
                    let m = match c {
                        CastOp::SExt8 => "sext.b",
                        CastOp::SExt16 => "sext.h",
                        CastOp::ZExt8 => "zext.b",
                        _ => "zext.h",
                    };
                    self.def1(m, RClass::V, vec![MOp::Use(x)])
                }
            }
            _ => self.float_cast(id, c, a, r),
        }
    }

    fn float_cast(&mut self, id: OpId, c: CastOp, a: ValueId, r: ValueId) -> VReg {
        let from = self.ty(a);
        let to = self.ty(r);
        let x = self.v(a);
        let rtz = MOp::Rm("rtz");
        let one = |s: &mut Self, m: &str, class: RClass, extra: Option<MOp>| {
            let d = s.m.vreg(class);
            let mut ops = vec![MOp::Def(d), MOp::Use(x)];
            let op = super::isa(m);
            ops.resize(op.def().operands.len(), MOp::Omit);
            if let Some(e) = extra {
                let last = ops.len() - 1;
                ops[last] = e;
            }
            s.emit(MKind::Isa(op), ops);
            d
        };
        match (c, from, to) {
            (CastOp::FToSI, Ty::F32, Ty::I32) => one(self, "cvt.i32.f32", RClass::V, Some(rtz)),
            (CastOp::FToUI, Ty::F32, Ty::I32) => one(self, "cvt.u32.f32", RClass::V, Some(rtz)),
            (CastOp::FToSI, Ty::F64, Ty::I32) => one(self, "cvt.i32.f64", RClass::V, Some(rtz)),
            (CastOp::FToSI | CastOp::FToUI, Ty::F16, Ty::I32) => {
                let f = one(self, "cvt.f32.f16", RClass::V, None);
                let m = if c == CastOp::FToSI {
                    "cvt.i32.f32"
                } else {
                    "cvt.u32.f32"
                };
                let d = self.m.vreg(RClass::V);
                let op = super::isa(m);
                let mut ops = vec![MOp::Def(d), MOp::Use(f)];
                ops.resize(op.def().operands.len(), MOp::Omit);
                let last = ops.len() - 1;
                ops[last] = MOp::Rm("rtz");
                self.emit(MKind::Isa(op), ops);
                d
            }
            (CastOp::SIToF, Ty::I32, Ty::F32) => one(self, "cvt.f32.i32", RClass::V, None),
            (CastOp::UIToF, Ty::I32, Ty::F32) => one(self, "cvt.f32.u32", RClass::V, None),
            (CastOp::SIToF, Ty::I32, Ty::F64) => one(self, "cvt.f64.i32", RClass::VPair, None),
            (CastOp::UIToF, Ty::I32, Ty::F64) => {
                // (x - 2^31 as signed) + 2^31, both exact in binary64.
                let flipped = self.def1(
                    "xor.vl",
                    RClass::V,
                    vec![MOp::Use(x), MOp::Lit(0x8000_0000)],
                );
                let f = self.def1("cvt.f64.i32", RClass::VPair, vec![MOp::Use(flipped)]);
                let k = self.const_reg(RClass::VPair, 2147483648f64.to_bits());
                self.def1("fadd.f64", RClass::VPair, vec![MOp::Use(f), MOp::Use(k)])
            }
            (CastOp::FExt, Ty::F32, Ty::F64) => one(self, "cvt.f64.f32", RClass::VPair, None),
            (CastOp::FExt, Ty::F16, Ty::F32) => one(self, "cvt.f32.f16", RClass::V, None),
            (CastOp::FExt, Ty::F16, Ty::F64) => {
                let f = one(self, "cvt.f32.f16", RClass::V, None);
                self.def1("cvt.f64.f32", RClass::VPair, vec![MOp::Use(f)])
            }
            (CastOp::FTrunc, Ty::F64, Ty::F32) => one(self, "cvt.f32.f64", RClass::V, None),
            (CastOp::FTrunc, Ty::F32, Ty::F16) => one(self, "cvt.f16.f32", RClass::V, None),
            _ => {
                self.unsupported(id, format!("conversion {c:?} from {from} to {to}"));
                self.reg(r)
            }
        }
    }

    fn math(&mut self, id: OpId, m: MathOp, a: ValueId, r: ValueId) -> VReg {
        let ty = self.ty(r);
        let x = self.v(a);
        let name = match (m, ty) {
            (MathOp::Sqrt, Ty::F32) => "fsqrt.f32",
            (MathOp::Sqrt, Ty::F64) => "fsqrt.f64",
            (MathOp::Rcp, Ty::F32) => "frcp.f32",
            (MathOp::Rsqrt, Ty::F32) => "frsq.f32",
            (MathOp::Exp2, Ty::F32) => "fexp2.f32",
            (MathOp::Log2, Ty::F32) => "flog2.f32",
            (MathOp::SinPi, Ty::F32) => "fsin.f32",
            (MathOp::CosPi, Ty::F32) => "fcos.f32",
            _ => {
                self.unsupported(id, format!("{m:?} on {ty}"));
                return self.reg(r);
            }
        };
        let class = Self::class_for(ty, Bank::V);
        self.def1(name, class, vec![MOp::Use(x)])
    }

    fn ptr_add(&mut self, id: OpId, p: ValueId, o: ValueId, r: ValueId) -> VReg {
        match self.ty(r) {
            Ty::Ptr(Space::Local | Space::Private) => {
                // The object at offset 0 adds nothing; another constant base (an object's
                // own address, `Isel::konst`) becomes the add's immediate below.
                if self.konst(p) == Some(0) {
                    return if self.bank_of(r) == Bank::U {
                        self.u(o)
                    } else {
                        self.v(o)
                    };
                }
                let forms = forms(BinOp::Add).expect("add");
                if self.bank_of(r) == Bank::U {
                    self.binary_u(BinOp::Add, &forms, p, o)
                } else {
                    self.binary_v(BinOp::Add, &forms, p, o)
                }
            }
            _ => self.binary64(id, BinOp::Add, p, o, r),
        }
    }
}

/// The predicate with its operands swapped (`a < b` is `b > a`).
fn swap(p: CmpPred) -> CmpPred {
    match p {
        CmpPred::Slt => CmpPred::Sgt,
        CmpPred::Sgt => CmpPred::Slt,
        CmpPred::Sle => CmpPred::Sge,
        CmpPred::Sge => CmpPred::Sle,
        CmpPred::Ult => CmpPred::Ugt,
        CmpPred::Ugt => CmpPred::Ult,
        CmpPred::Ule => CmpPred::Uge,
        CmpPred::Uge => CmpPred::Ule,
        other => other,
    }
}

/// Rewrite `gt`/`le` (which have no register forms) by swapping the operands.
fn normalize_swap(p: CmpPred, a: ValueId, b: ValueId) -> (CmpPred, ValueId, ValueId) {
    match p {
        CmpPred::Sgt | CmpPred::Sle | CmpPred::Ugt | CmpPred::Ule => (swap(p), b, a),
        _ => (p, a, b),
    }
}

/// The ISA's name of an integer predicate among eq/ne/lt/ge and whether it is signed.
fn pred_name(p: CmpPred) -> (&'static str, bool) {
    match p {
        CmpPred::Eq => ("eq", true),
        CmpPred::Ne => ("ne", true),
        CmpPred::Slt => ("lt", true),
        CmpPred::Sge => ("ge", true),
        CmpPred::Ult => ("lt", false),
        CmpPred::Uge => ("ge", false),
        other => unreachable!("predicate {other:?} is normalized first"),
    }
}

impl Isel<'_> {
    /// If `v` is `x >> 32` (64-bit, logical or arithmetic) consumed only by truncations:
    /// `x` (the truncation reads `x`'s high word).
    pub(super) fn high_word_of(&self, v: ValueId) -> Option<ValueId> {
        let op = self.f.def_op(v)?;
        self.high_word_shifts
            .contains(&op)
            .then(|| self.f.op(op).operands[0])
    }
}
