//! Instruction selection: structured SSA → machine IR.
//!
//! Each IR value gets a virtual register in the file its [`bank::Bank`] says; constants are
//! materialized where they are used, in immediate forms when the instruction has one.
//! Uniform `If`s and `Loop`s become branches; divergent ones become the EXEC idioms of seed
//! 001 §3.2 (`control.rs`). Every instruction is a warpkit `Op` from the ISA database,
//! found by mnemonic, with operands in the database's order.

pub mod bank;
mod control;
mod mem;
mod ops;

use super::layout::Layout;
use super::mir::{BlockId, MFunc, MInst, MKind, MOp, RClass, VReg};
use super::uniform::Uniformity;
use crate::diag::Diagnostic;
use crate::ir::{Function, OpId, OpKind, RegionId, Ty, ValueId, WorkItem};
use crate::source::Span;
use bank::Bank;
use std::collections::HashMap;
use warpkit_isa::Op;

/// The instruction called `mnemonic` in the ISA database.
pub(crate) fn isa(mnemonic: &str) -> Op {
    Op::from_mnemonic(mnemonic).unwrap_or_else(|| panic!("`{mnemonic}` is not in the ISA database"))
}

/// Registers the dispatch ABI initialises (docs/abi.md, "Initial registers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum AbiReg {
    /// `u[0:1]`: the argument block's address.
    ArgBase,
    /// `u2 + d`: workgroup id in dimension d.
    GroupId(u8),
    /// `u5 + d`: grid size in workgroups.
    NumGroups(u8),
    /// `u8 + d`: workgroup size in threads.
    LocalSize(u8),
    /// `v0 + d`: local thread id.
    LocalId(u8),
}

impl AbiReg {
    fn class_and_reg(self) -> (RClass, u8) {
        match self {
            AbiReg::ArgBase => (RClass::UPair, 0),
            AbiReg::GroupId(d) => (RClass::U, 2 + d),
            AbiReg::NumGroups(d) => (RClass::U, 5 + d),
            AbiReg::LocalSize(d) => (RClass::U, 8 + d),
            AbiReg::LocalId(d) => (RClass::V, d),
        }
    }
}

/// The selector's state for one kernel.
pub(crate) struct Isel<'a> {
    pub f: &'a Function,
    pub uni: &'a Uniformity,
    pub bank: Vec<Bank>,
    pub m: MFunc,
    pub layout: &'a Layout,
    /// The block instructions go to.
    pub cur: BlockId,
    /// The source of the operation being selected.
    pub span: Span,
    /// Whether EXEC is the launch mask here.
    pub full_exec: bool,
    /// The register holding each value computed so far (in its bank's class).
    regs: HashMap<ValueId, VReg>,
    /// Per block: constants and bank conversions already materialized there.
    local: HashMap<(BlockId, LocalKey), VReg>,
    /// ABI registers defined by the entry instruction.
    abi: HashMap<AbiReg, VReg>,
    /// Errors found (constructs the back end cannot select).
    pub errors: Vec<Diagnostic>,
    /// How many operands read each IR value.
    uses: Vec<u32>,
    /// Blocks that only pass values along an edge (placed after the kernel's end: they
    /// usually vanish after register allocation).
    deferred_blocks: Vec<BlockId>,
    /// `PtrAdd`s (and the `ZExt`s of their offsets) that only feed addresses the memory
    /// instructions' addressing modes absorb.
    addr_only: std::collections::HashSet<OpId>,
    /// The scratch base pair and this lane's private frame offset, once computed.
    scratch_regs: Option<(VReg, VReg)>,
    /// Uniform comparisons with zero that only decide uniform branches: the branch tests
    /// the compared register itself (`x`, and whether `x != 0` means true).
    branch_zero: HashMap<ValueId, (ValueId, bool)>,
    /// 64-bit shifts right by 32 whose every use truncates them to 32 bits: the
    /// truncations read the high word instead.
    pub(super) high_word_shifts: std::collections::HashSet<OpId>,
    /// 32-bit vector `add`s that become one `mad.u32` with the `mul` feeding them: the add
    /// to the mul, and the muls so absorbed (not selected on their own).
    pub(super) mads: HashMap<OpId, OpId>,
    /// The blocks that jump into the loops being selected, innermost last: constants used
    /// in a loop are materialized there, once, rather than in every iteration.
    pub(super) preheaders: Vec<BlockId>,
    pub(super) absorbed_muls: std::collections::HashSet<OpId>,
}

/// Keys of per-block materializations.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum LocalKey {
    Const(RClass, u64),
    ToVector(ValueId),
    Mask(ValueId),
    VBool(ValueId),
    UBool(ValueId),
    Exec,
}

impl<'a> Isel<'a> {
    pub fn new(
        f: &'a Function,
        uni: &'a Uniformity,
        bank: Vec<Bank>,
        layout: &'a Layout,
    ) -> Isel<'a> {
        let mut uses = vec![0u32; f.values.len()];
        for id in f.walk() {
            for &v in &f.op(id).operands {
                uses[v.0 as usize] += 1;
            }
        }
        let addr_only = address_only_ops(f);
        let branch_zero = branch_zero_compares(f, uni, &bank);
        let high_word_shifts = high_word_shifts(f);
        let mads = integer_mads(f, &bank, &uses);
        let absorbed_muls = mads.values().copied().collect();
        Isel {
            high_word_shifts,
            mads,
            absorbed_muls,
            preheaders: Vec::new(),
            branch_zero,
            uses,
            addr_only,
            scratch_regs: None,
            deferred_blocks: Vec::new(),
            f,
            uni,
            bank,
            m: MFunc::new(),
            layout,
            cur: BlockId(0),
            span: f.span,
            full_exec: true,
            regs: HashMap::new(),
            local: HashMap::new(),
            abi: HashMap::new(),
            errors: Vec::new(),
        }
    }

    /// Select the whole kernel.
    pub fn run(mut self) -> (MFunc, Vec<Diagnostic>) {
        self.entry();
        self.region(self.f.body);
        self.emit(MKind::End, vec![]);
        for b in std::mem::take(&mut self.deferred_blocks) {
            self.m.place(b);
        }
        fold_tied_copies(&mut self.m);
        schedule_loads(&mut self.m);
        (self.m, self.errors)
    }

    /// The entry instruction, defining every ABI register the kernel reads.
    fn entry(&mut self) {
        let mut needed = Vec::new();
        for id in self.f.walk() {
            match self.f.op(id).kind {
                OpKind::Param(_) => needed.push(AbiReg::ArgBase),
                OpKind::WorkItem(w) => match w {
                    WorkItem::LocalId(d) if d < 3 => needed.push(AbiReg::LocalId(d)),
                    WorkItem::GroupId(d) if d < 3 => needed.push(AbiReg::GroupId(d)),
                    WorkItem::LocalSize(d) if d < 3 => needed.push(AbiReg::LocalSize(d)),
                    WorkItem::NumGroups(d) if d < 3 => needed.push(AbiReg::NumGroups(d)),
                    WorkItem::WorkDim => {
                        for d in 1..3 {
                            needed.push(AbiReg::LocalSize(d));
                            needed.push(AbiReg::NumGroups(d));
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        needed.sort_by_key(|r| {
            let (class, reg) = r.class_and_reg();
            (class.is_vector(), class.is_pair(), reg)
        });
        needed.dedup();
        let mut ops = Vec::new();
        for r in needed {
            let (class, reg) = r.class_and_reg();
            let v = self.m.vreg(class);
            self.m.entry_regs.push((v, reg));
            self.abi.insert(r, v);
            ops.push(MOp::Def(v));
        }
        self.emit(MKind::Entry, ops);
    }

    /// How many operands read IR value `v`.
    pub fn uses_of(&self, v: ValueId) -> u32 {
        self.uses.get(v.0 as usize).copied().unwrap_or(0)
    }

    pub fn abi(&self, r: AbiReg) -> VReg {
        self.abi[&r]
    }

    // ---- emission ----

    /// Append an instruction to the current block.
    pub fn emit(&mut self, kind: MKind, ops: Vec<MOp>) {
        let inst = MInst {
            kind,
            ops,
            span: self.span,
            full_exec: self.full_exec,
        };
        self.m.blocks[self.cur.0 as usize].insts.push(inst);
    }

    /// Append warpkit instruction `mnemonic` with the leading operands `ops`; the remaining
    /// operands of its database entry (optional ones, modifiers) are left at their defaults.
    pub fn ins(&mut self, mnemonic: &str, mut ops: Vec<MOp>) {
        let op = isa(mnemonic);
        let n = op.def().operands.len();
        debug_assert!(ops.len() <= n, "{mnemonic}: {} operands given", ops.len());
        ops.resize(n, MOp::Omit);
        self.emit(MKind::Isa(op), ops);
    }

    /// `mnemonic d, a...` with a new destination of class `class`.
    pub fn def1(&mut self, mnemonic: &str, class: RClass, uses: Vec<MOp>) -> VReg {
        let d = self.m.vreg(class);
        let mut ops = vec![MOp::Def(d)];
        ops.extend(uses);
        self.ins(mnemonic, ops);
        d
    }

    /// Continue selecting into block `b` (placing it in the layout).
    pub fn switch_to(&mut self, b: BlockId) {
        self.m.place(b);
        self.cur = b;
    }

    // ---- values ----

    pub fn ty(&self, v: ValueId) -> Ty {
        self.f.ty(v)
    }

    pub fn bank_of(&self, v: ValueId) -> Bank {
        self.bank[v.0 as usize]
    }

    /// The constant bits of `v`, if it is a constant.
    pub fn konst(&self, v: ValueId) -> Option<u64> {
        self.f.const_bits(v).or_else(|| {
            // A `__local` or private object's address is its constant offset.
            let d = self.f.def_op(v)?;
            matches!(
                self.f.op(d).kind,
                OpKind::LocalAddr(_) | OpKind::PrivateAddr(_)
            )
            .then(|| self.address_constant(d))
        })
    }

    /// The class a value of type `ty` takes in bank `bank`.
    pub fn class_for(ty: Ty, bank: Bank) -> RClass {
        let pair = ty.bits() == 64;
        match (bank, pair) {
            (Bank::V, false) => RClass::V,
            (Bank::V, true) => RClass::VPair,
            (_, false) => RClass::U,
            (_, true) => RClass::UPair,
        }
    }

    /// Record that `v` lives in `r`.
    pub fn set(&mut self, v: ValueId, r: VReg) {
        self.regs.insert(v, r);
    }

    /// The register of `v` in its own bank (constants and undefs materialized here).
    pub fn reg(&mut self, v: ValueId) -> VReg {
        if let Some(&r) = self.regs.get(&v) {
            return r;
        }
        let class = Self::class_for(self.ty(v), self.bank_of(v));
        if let Some(bits) = self.konst(v) {
            return self.const_reg(class, bits);
        }
        // An undefined value, or one whose definition failed to select: any register will do.
        let r = self.m.vreg(class);
        self.emit(MKind::ImplicitDef, vec![MOp::Def(r)]);
        self.regs.insert(v, r);
        r
    }

    /// A register of class `class` holding `bits`: materialized once per block, or, inside
    /// a loop, once in the block that enters the innermost loop (just before its jump into
    /// the loop; EXEC there holds every lane the loop runs).
    pub fn const_reg(&mut self, class: RClass, bits: u64) -> VReg {
        let home = self.preheaders.last().copied().unwrap_or(self.cur);
        let key = (home, LocalKey::Const(class, bits));
        if let Some(&r) = self.local.get(&key) {
            return r;
        }
        let r = self.m.vreg(class);
        let (cur, full_exec) = (self.cur, self.full_exec);
        if home != cur {
            self.cur = home;
            self.full_exec = self.m.blocks[home.0 as usize]
                .insts
                .last()
                .is_some_and(|jump| jump.full_exec);
        }
        let lo = bits as u32;
        match class {
            RClass::U => self.materialize_u(r, lo),
            RClass::V => self.materialize_v(r, lo),
            RClass::UPair | RClass::VPair => {
                self.emit(MKind::PairConst(bits), vec![MOp::Def(r)]);
            }
        }
        if home != cur {
            let insts = &mut self.m.blocks[home.0 as usize].insts;
            let constant = insts.pop().expect("just materialized");
            insts.insert(insts.len() - 1, constant);
            self.cur = cur;
            self.full_exec = full_exec;
        }
        self.local.insert(key, r);
        r
    }

    fn materialize_u(&mut self, r: VReg, value: u32) {
        let s = value as i32;
        if (-(1 << 16)..(1 << 16)).contains(&s) {
            self.ins("umovi", vec![MOp::Def(r), MOp::Imm(i64::from(s))]);
        } else {
            self.ins("umov.l", vec![MOp::Def(r), MOp::Lit(value)]);
        }
    }

    fn materialize_v(&mut self, r: VReg, value: u32) {
        let s = value as i32;
        if (-(1 << 17)..(1 << 17)).contains(&s) {
            self.ins("movi", vec![MOp::Def(r), MOp::Imm(i64::from(s))]);
        } else {
            self.ins("mov.vl", vec![MOp::Def(r), MOp::Lit(value)]);
        }
    }

    /// `v` as a uniform register (single or pair by its type). `v` must be uniform-bank or
    /// a constant.
    pub fn u(&mut self, v: ValueId) -> VReg {
        if let Some(bits) = self.konst(v) {
            let class = Self::class_for(self.ty(v), Bank::U);
            return self.const_reg(class, bits);
        }
        debug_assert!(self.bank_of(v) != Bank::V, "vector value {v:?} wanted in u");
        self.reg(v)
    }

    /// `v` in the vector file (single or pair by its type), broadcasting a uniform value.
    pub fn v(&mut self, v: ValueId) -> VReg {
        let ty = self.ty(v);
        if let Some(bits) = self.konst(v) {
            return self.const_reg(Self::class_for(ty, Bank::V), bits);
        }
        if ty == Ty::I1 {
            return self.vbool(v);
        }
        if self.bank_of(v) == Bank::V {
            return self.reg(v);
        }
        let key = (self.cur, LocalKey::ToVector(v));
        if let Some(&r) = self.local.get(&key) {
            return r;
        }
        let src = self.reg(v);
        let r = if ty.bits() == 64 {
            self.def1("mov64.vu", RClass::VPair, vec![MOp::Use(src)])
        } else {
            self.def1("mov.vu", RClass::V, vec![MOp::Use(src)])
        };
        self.local.insert(key, r);
        r
    }

    /// The current EXEC as a uniform register.
    pub fn exec(&mut self) -> VReg {
        let key = (self.cur, LocalKey::Exec);
        if let Some(&r) = self.local.get(&key) {
            return r;
        }
        let r = self.def1("exec.get", RClass::U, vec![]);
        self.local.insert(key, r);
        r
    }

    /// Forget per-block materializations that read EXEC (after EXEC changes).
    pub fn exec_changed(&mut self) {
        let cur = self.cur;
        self.local.retain(|(b, k), _| {
            *b != cur || !matches!(k, LocalKey::Exec | LocalKey::Mask(_) | LocalKey::VBool(_))
        });
        // Constants in v registers were written under the old EXEC only.
        self.local.retain(|(b, k), _| {
            *b != cur
                || !matches!(
                    k,
                    LocalKey::Const(RClass::V | RClass::VPair, _) | LocalKey::ToVector(_)
                )
        });
    }

    /// The truth value `v` as a lane mask: bit l set when lane l is active and `v` holds.
    pub fn mask(&mut self, v: ValueId) -> VReg {
        if let Some(bits) = self.konst(v) {
            return if bits & 1 != 0 {
                self.exec()
            } else {
                self.const_reg(RClass::U, 0)
            };
        }
        match self.bank_of(v) {
            Bank::Mask => self.reg(v),
            bank => {
                let key = (self.cur, LocalKey::Mask(v));
                if let Some(&r) = self.local.get(&key) {
                    return r;
                }
                let src = self.reg(v);
                let r = if bank == Bank::U {
                    // exec if v else 0
                    let e = self.exec();
                    self.def1("uczero.eqz", RClass::U, vec![MOp::Use(e), MOp::Use(src)])
                } else {
                    self.def1("cmp.ne.i32.vi", RClass::U, vec![MOp::Use(src), MOp::Imm(0)])
                };
                self.local.insert(key, r);
                r
            }
        }
    }

    /// The truth value `v` as 0 or 1 in each lane of a vector register.
    pub fn vbool(&mut self, v: ValueId) -> VReg {
        if let Some(bits) = self.konst(v) {
            return self.const_reg(RClass::V, bits & 1);
        }
        match self.bank_of(v) {
            Bank::V => self.reg(v),
            bank => {
                let key = (self.cur, LocalKey::VBool(v));
                if let Some(&r) = self.local.get(&key) {
                    return r;
                }
                let src = self.reg(v);
                let r = if bank == Bank::U {
                    self.def1("mov.vu", RClass::V, vec![MOp::Use(src)])
                } else {
                    let zero = self.m.vreg(RClass::V);
                    self.ins("movi", vec![MOp::Def(zero), MOp::Imm(0)]);
                    let one = self.const_reg(RClass::V, 1);
                    let r = self.m.vreg(RClass::V);
                    self.ins(
                        "cndmask",
                        vec![
                            MOp::Tied { def: r, old: zero },
                            MOp::Use(one),
                            MOp::Use(src),
                        ],
                    );
                    r
                };
                self.local.insert(key, r);
                r
            }
        }
    }

    /// A uniform truth value as 0 or 1 in a uniform register (a uniform mask is nonzero
    /// exactly when the value holds in the active lanes).
    pub fn ubool(&mut self, v: ValueId) -> VReg {
        if let Some(bits) = self.konst(v) {
            return self.const_reg(RClass::U, bits & 1);
        }
        match self.bank_of(v) {
            Bank::U => self.reg(v),
            _ => {
                let key = (self.cur, LocalKey::UBool(v));
                if let Some(&r) = self.local.get(&key) {
                    return r;
                }
                let m = self.mask(v);
                let r = self.def1("usnei", RClass::U, vec![MOp::Use(m), MOp::Imm(0)]);
                self.local.insert(key, r);
                r
            }
        }
    }

    /// A uniform register and whether the uniform truth value `v` holds exactly when it is
    /// nonzero (`true`) or exactly when it is zero (`false`), for `bz`/`bnz`.
    pub fn branch_cond(&mut self, v: ValueId) -> (VReg, bool) {
        if let Some(&(x, nonzero)) = self.branch_zero.get(&v) {
            return (self.u(x), nonzero);
        }
        let r = match self.bank_of(v) {
            Bank::U | Bank::Mask if self.konst(v).is_none() => self.reg(v),
            _ => self.mask(v),
        };
        (r, true)
    }

    /// Whether op `id` is a comparison that [`Isel::branch_cond`] absorbs.
    pub(super) fn branch_only(&self, id: OpId) -> bool {
        self.f
            .op(id)
            .results
            .first()
            .is_some_and(|r| self.branch_zero.contains_key(r))
    }

    // ---- regions ----

    pub fn region(&mut self, r: RegionId) {
        let ops = self.f.region(r).ops.clone();
        for op in ops {
            self.op(op);
        }
    }

    fn op(&mut self, id: OpId) {
        let op = self.f.op(id);
        if !op.span.is_dummy() {
            self.span = op.span;
        }
        match op.kind {
            OpKind::If => self.select_if(id),
            OpKind::Loop => self.select_loop(id),
            OpKind::Yield | OpKind::LoopEnd => {}
            _ => self.simple(id),
        }
    }

    /// An error for an operation the back end cannot select; its results get undefined
    /// registers so selection goes on.
    pub fn unsupported(&mut self, id: OpId, what: impl std::fmt::Display) {
        let span = self.f.op(id).span;
        self.errors.push(Diagnostic::unsupported(span, what));
        for &r in &self.f.op(id).results.clone() {
            let class = Self::class_for(self.ty(r), self.bank_of(r));
            let reg = self.m.vreg(class);
            self.emit(MKind::ImplicitDef, vec![MOp::Def(reg)]);
            self.set(r, reg);
        }
    }
}

/// `PtrAdd` ops whose every use is the address of a load, store or atomic, and the `ZExt`s
/// whose every use is the offset of such a 64-bit `PtrAdd`: the addressing modes absorb
/// them (`mem.rs`), so they need no code.
fn address_only_ops(f: &Function) -> std::collections::HashSet<OpId> {
    let mut users: HashMap<ValueId, Vec<(OpId, usize)>> = HashMap::new();
    for id in f.walk() {
        for (i, &v) in f.op(id).operands.iter().enumerate() {
            users.entry(v).or_default().push((id, i));
        }
    }
    let mut out = std::collections::HashSet::new();
    for id in f.walk() {
        let op = f.op(id);
        if !matches!(op.kind, OpKind::PtrAdd) {
            continue;
        }
        let r = op.results[0];
        // The 64-bit forms the addressing modes absorb: a 32-bit offset or a small constant.
        let absorbable = f.ty(r).bits() == 32 || {
            let o = op.operands[1];
            f.const_bits(o)
                .is_some_and(|c| (-(1i64 << 23)..(1i64 << 23)).contains(&(c as i64)))
                || f.def_op(o).is_some_and(|d| {
                    let z = f.op(d);
                    matches!(z.kind, OpKind::Cast(crate::ir::CastOp::ZExt))
                        && f.ty(z.operands[0]) == Ty::I32
                })
        };
        let memory_only = absorbable
            && users.get(&r).is_some_and(|us| {
                us.iter().all(|&(u, i)| {
                    i == 0
                        && matches!(
                            f.op(u).kind,
                            OpKind::Load(_) | OpKind::Store(_) | OpKind::Atomic(_)
                        )
                })
            });
        if memory_only {
            out.insert(id);
        }
    }
    for id in f.walk() {
        let op = f.op(id);
        if !matches!(op.kind, OpKind::Cast(crate::ir::CastOp::ZExt))
            || f.ty(op.operands[0]) != Ty::I32
        {
            continue;
        }
        let r = op.results[0];
        let offset_only = users.get(&r).is_some_and(|us| {
            us.iter()
                .all(|&(u, i)| i == 1 && out.contains(&u) && f.ty(f.op(u).results[0]).bits() == 64)
        });
        if offset_only {
            out.insert(id);
        }
    }
    out
}

/// Fold a merge (`TiedCopy`) into the instruction that computes the merged value, when that
/// instruction is a vector ALU operation earlier in the same block, under the same EXEC, and
/// the value has no other use: the instruction then writes the merged register directly
/// (its write is EXEC-masked, which is what the merge does). This is what keeps a divergent
/// loop's carried value in one register, as a hand-written loop does.
fn fold_tied_copies(m: &mut MFunc) {
    use crate::backend::mir::{MKind, MOp};
    use warpkit_isa::{Flags, Latency};
    for b in 0..m.blocks.len() {
        let mut t = 0;
        while t < m.blocks[b].insts.len() {
            let inst = &m.blocks[b].insts[t];
            let (MKind::TiedCopy, [MOp::Tied { def, old }, MOp::Use(src)]) =
                (&inst.kind, inst.ops.as_slice())
            else {
                t += 1;
                continue;
            };
            let (def, old, src) = (*def, *old, *src);
            let same_class = m.class(src) == m.class(def);
            let mut folded = false;
            if same_class {
                for i in (0..t).rev() {
                    let cand = &m.blocks[b].insts[i];
                    let MKind::Isa(op) = cand.kind else { break };
                    let d = op.def();
                    if d.flags.contains(Flags::WE) {
                        break;
                    }
                    let Some(j) = cand.ops.iter().position(|o| *o == MOp::Def(src)) else {
                        continue;
                    };
                    let valu = matches!(d.latency, Latency::Fixed(_))
                        && !d.flags.contains(Flags::EI)
                        && m.class(src).is_vector();
                    if valu {
                        m.blocks[b].insts[i].ops[j] = MOp::Tied { def, old };
                        m.blocks[b].insts.remove(t);
                        // `def` equals `src` in every lane that computed `src`.
                        replace_uses(m, src, def);
                        folded = true;
                    }
                    break;
                }
            }
            if !folded {
                t += 1;
            }
        }
    }
}

/// Make every reader of `from` read `to`.
fn replace_uses(m: &mut MFunc, from: VReg, to: VReg) {
    use crate::backend::mir::{MKind, MOp};
    for b in &mut m.blocks {
        for i in &mut b.insts {
            for o in &mut i.ops {
                match o {
                    MOp::Use(v) if *v == from => *v = to,
                    MOp::Tied { old, .. } | MOp::TiedHalf { old, .. } if *old == from => *old = to,
                    MOp::UseHalf { pair, .. } if *pair == from => *pair = to,
                    _ => {}
                }
            }
            if let MKind::Jump { args, .. } = &mut i.kind {
                for v in args {
                    if *v == from {
                        *v = to;
                    }
                }
            }
        }
    }
}

/// Issue loads early: within a block, each asynchronous load moves up past the instructions
/// that neither produce its operands nor touch memory or EXEC, so that loads cluster and
/// one `waitcnt` covers several of them (as a hand-written kernel batches its loads). Loads
/// keep their order among themselves.
fn schedule_loads(m: &mut MFunc) {
    use crate::backend::mir::{MInst, MKind, MOp};
    use warpkit_isa::{Flags, Latency, MemoryAccess};
    fn is_load(i: &MInst) -> bool {
        let MKind::Isa(op) = i.kind else { return false };
        let d = op.def();
        matches!(d.latency, Latency::Async(_))
            && d.memory.is_some_and(|mem| mem.access == MemoryAccess::Load)
            && i.ops.iter().all(|o| !matches!(o, MOp::Tied { .. }))
    }
    fn barrier(i: &MInst) -> bool {
        match i.kind {
            MKind::Isa(op) => {
                let d = op.def();
                d.memory.is_some()
                    || d.flags.contains(Flags::WE)
                    || d.flags.contains(Flags::EB)
                    || d.mnemonic == "barrier"
            }
            MKind::Entry => true,
            _ => i.is_terminator(),
        }
    }
    fn defs(i: &MInst) -> Vec<VReg> {
        i.ops
            .iter()
            .filter_map(|o| match o {
                MOp::Def(v) | MOp::Tied { def: v, .. } | MOp::TiedHalf { def: v, .. } => Some(*v),
                _ => None,
            })
            .collect()
    }
    fn uses(i: &MInst) -> Vec<VReg> {
        i.ops
            .iter()
            .filter_map(|o| match o {
                MOp::Use(v)
                | MOp::Tied { old: v, .. }
                | MOp::TiedHalf { old: v, .. }
                | MOp::UseHalf { pair: v, .. } => Some(*v),
                _ => None,
            })
            .collect()
    }
    for block in &mut m.blocks {
        let insts = std::mem::take(&mut block.insts);
        let mut out: Vec<MInst> = Vec::with_capacity(insts.len());
        for inst in insts {
            if is_load(&inst) {
                let needs = uses(&inst);
                let mut pos = out.len();
                while pos > 0 {
                    let prev = &out[pos - 1];
                    if is_load(prev)
                        || barrier(prev)
                        || defs(prev).iter().any(|d| needs.contains(d))
                    {
                        break;
                    }
                    pos -= 1;
                }
                out.insert(pos, inst);
            } else {
                out.push(inst);
            }
        }
        block.insts = out;
    }
}

/// Uniform `x == 0`, `x != 0`, `x > 0` (unsigned) and `x <= 0` (unsigned) comparisons
/// whose only uses are conditions of uniform `If`s and loops: the branch tests `x`.
fn branch_zero_compares(
    f: &Function,
    uni: &Uniformity,
    bank: &[Bank],
) -> HashMap<ValueId, (ValueId, bool)> {
    use crate::ir::CmpPred;
    let mut uses: HashMap<ValueId, Vec<(OpId, usize)>> = HashMap::new();
    for id in f.walk() {
        for (i, &v) in f.op(id).operands.iter().enumerate() {
            uses.entry(v).or_default().push((id, i));
        }
    }
    let mut out = HashMap::new();
    for id in f.walk() {
        let op = f.op(id);
        let OpKind::Cmp(p) = op.kind else { continue };
        let r = op.results[0];
        if bank[r.0 as usize] != Bank::U || f.ty(op.operands[0]) != Ty::I32 {
            continue;
        }
        let (x, zero_second) = match (f.const_bits(op.operands[0]), f.const_bits(op.operands[1])) {
            (_, Some(0)) => (op.operands[0], true),
            (Some(0), None) => (op.operands[1], false),
            _ => continue,
        };
        if bank[x.0 as usize] != Bank::U {
            continue;
        }
        let nonzero = match (p, zero_second) {
            (CmpPred::Ne, _) | (CmpPred::Ugt, true) | (CmpPred::Ult, false) => true,
            (CmpPred::Eq, _) | (CmpPred::Ule, true) | (CmpPred::Uge, false) => false,
            _ => continue,
        };
        let only_branches = uses.get(&r).is_some_and(|us| {
            us.iter().all(|&(u, i)| {
                let user = f.op(u);
                match user.kind {
                    OpKind::If => i == 0 && !uni.is_divergent_op(u),
                    OpKind::LoopEnd => {
                        i == 0 && user.parent.0 as usize > 0 && {
                            let lp = f.region(user.parent).parent;
                            lp.is_some_and(|l| !uni.is_divergent_op(l))
                        }
                    }
                    _ => false,
                }
            })
        });
        if only_branches {
            out.insert(r, (x, nonzero));
        }
    }
    out
}

/// `x >> 32` (64-bit) ops whose every use is a truncation to 32 bits.
fn high_word_shifts(f: &Function) -> std::collections::HashSet<OpId> {
    use crate::ir::{BinOp, CastOp};
    let mut uses: HashMap<ValueId, Vec<OpId>> = HashMap::new();
    for id in f.walk() {
        for &v in &f.op(id).operands {
            uses.entry(v).or_default().push(id);
        }
    }
    f.walk()
        .into_iter()
        .filter(|&id| {
            let op = f.op(id);
            matches!(op.kind, OpKind::Binary(BinOp::LShr | BinOp::AShr))
                && f.ty(op.results[0]) == Ty::I64
                && f.const_bits(op.operands[1]) == Some(32)
                && uses.get(&op.results[0]).is_some_and(|us| {
                    us.iter().all(|&u| {
                        matches!(f.op(u).kind, OpKind::Cast(CastOp::Trunc))
                            && f.ty(f.op(u).results[0]) == Ty::I32
                    })
                })
        })
        .collect()
}

/// Integer multiply-adds: a 32-bit vector `add` one of whose operands is a `mul` of two
/// vector values that nothing else reads, in the same region, is one `mad.u32` (exact, so
/// always allowed, unlike the contraction of float operations). Constant or uniform
/// operands are left to the immediate and `.vu` forms of `mul` and `add`, which need no
/// extra register. The add to the mul it absorbs.
fn integer_mads(f: &Function, bank: &[Bank], uses: &[u32]) -> HashMap<OpId, OpId> {
    use crate::ir::{BinOp, ValueDef};
    let vector = |v: ValueId| bank[v.0 as usize] == Bank::V && f.const_bits(v).is_none();
    let mut out = HashMap::new();
    for id in f.walk() {
        let op = f.op(id);
        if !matches!(op.kind, OpKind::Binary(BinOp::Add))
            || f.ty(op.results[0]) != Ty::I32
            || !vector(op.results[0])
        {
            continue;
        }
        let absorbed = (0..2).find_map(|i| {
            let (x, other) = (op.operands[i], op.operands[1 - i]);
            let ValueDef::Op(m, 0) = f.def(x) else {
                return None;
            };
            let mul = f.op(m);
            (matches!(mul.kind, OpKind::Binary(BinOp::Mul))
                && mul.parent == op.parent
                && uses[x.0 as usize] == 1
                && vector(x)
                && vector(other)
                && mul.operands.iter().all(|&v| vector(v)))
            .then_some(m)
        });
        if let Some(m) = absorbed {
            out.insert(id, m);
        }
    }
    out
}
