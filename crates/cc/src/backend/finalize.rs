//! After register allocation: substitute physical registers, lower the pseudo-instructions,
//! insert the allocator's moves, spills and reloads, and drop blocks that only jump.
//!
//! Moves of vector registers inside divergent regions copy **every** lane: the allocator
//! reasons per warp as if EXEC were full, and the back end keeps that true — every value's
//! live range on the linearized control flow covers every lane that still needs it (results
//! of divergent regions are tied accumulators), so a register the allocator considers free
//! holds nothing any lane needs, and a whole-register copy is always right. EXEC is set to
//! all ones around such moves (`saveexec.mov u31, u30` … `exec.set u31`, with `u30` = all
//! ones); outside divergent regions EXEC is the launch mask and moves need nothing.

use super::isel::isa;
use super::mir::{BlockId, MFunc, MKind, MOp, RClass};
use super::regalloc::{Assignment, Loc, Phys};
use crate::source::Span;
use warpkit_isa::Op;

/// An operand after allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum POp {
    /// A register.
    Reg(Phys),
    /// An immediate.
    Imm(i64),
    /// A 32-bit literal.
    Lit(u32),
    /// A branch target.
    Label(BlockId),
    /// A data label.
    Sym(String),
    /// A CSR name.
    Csr(&'static str),
    /// `key=value`.
    Key(&'static str, u32),
    /// `rm=...`.
    Rm(&'static str),
    /// Left at its default.
    Omit,
}

/// A machine instruction with physical registers.
#[derive(Debug, Clone)]
pub struct PInst {
    /// The instruction (`None`: an unconditional jump, printed as `jmp` unless its target
    /// follows).
    pub op: Option<Op>,
    /// Operands in the database's order (for a jump: its label).
    pub ops: Vec<POp>,
    /// Source position.
    pub span: Span,
}

impl PInst {
    fn isa(name: &str, ops: Vec<POp>, span: Span) -> PInst {
        let op = isa(name);
        let mut ops = ops;
        ops.resize(op.def().operands.len(), POp::Omit);
        PInst {
            op: Some(op),
            ops,
            span,
        }
    }

    /// A jump to `target`.
    pub fn jump(target: BlockId, span: Span) -> PInst {
        PInst {
            op: None,
            ops: vec![POp::Label(target)],
            span,
        }
    }

    /// The branch target, if this is a jump or branch.
    pub fn target(&self) -> Option<BlockId> {
        self.ops.iter().find_map(|o| match o {
            POp::Label(b) => Some(*b),
            _ => None,
        })
    }
}

/// A kernel after allocation.
#[derive(Debug, Clone)]
pub struct PFunc {
    /// Blocks by id (some unused: see `layout`).
    pub blocks: Vec<Vec<PInst>>,
    /// The layout.
    pub layout: Vec<BlockId>,
    /// Per-lane scratch bytes the kernel needs.
    pub scratch_bytes: u32,
}

/// Registers the back end keeps for itself.
pub const ALL_ONES: u8 = 30;
/// Holds EXEC while a full-width move runs.
pub const SAVED_EXEC: u8 = 31;
/// `4 * lane` for spill addresses (reserved only when spilling).
pub const LANE4: u8 = 63;
/// The scratch base pair `u[62:63]` (reserved only when spilling).
pub const SCRATCH_BASE: u8 = 62;
/// Carries a uniform value to memory when it is spilled (reserved only then).
pub const UNIFORM_SPILL: u8 = 62;

fn u(n: u8) -> POp {
    POp::Reg(Phys {
        class: RClass::U,
        num: n,
    })
}

fn v(n: u8) -> POp {
    POp::Reg(Phys {
        class: RClass::V,
        num: n,
    })
}

fn lo_hi(p: Phys) -> (Phys, Phys) {
    let half = if p.class == RClass::UPair {
        RClass::U
    } else {
        RClass::V
    };
    (
        Phys {
            class: half,
            num: p.num,
        },
        Phys {
            class: half,
            num: p.num + 1,
        },
    )
}

fn mov(dst: Phys, src: Phys, span: Span) -> Option<PInst> {
    if dst == src {
        return None;
    }
    let name = match (dst.class, src.class) {
        (RClass::V, RClass::V) => "mov",
        (RClass::V, RClass::U) => "mov.vu",
        (RClass::U, RClass::U) => "umov",
        (RClass::VPair, RClass::VPair) => "mov64",
        (RClass::VPair, RClass::UPair) => "mov64.vu",
        (RClass::UPair, RClass::UPair) => "umov64",
        (d, s) => panic!("no move from {s:?} to {d:?}"),
    };
    Some(PInst::isa(name, vec![POp::Reg(dst), POp::Reg(src)], span))
}

/// Build the physical function.
pub fn finalize(m: &MFunc, a: &Assignment, private_frame: u32) -> PFunc {
    let slots = Slots {
        vector: 32 * i64::from(private_frame),
        uniform: 32 * i64::from(private_frame) + 128 * i64::from(a.vector_slots),
    };
    let spilling = a.vector_slots > 0 || a.uniform_slots > 0;
    let mut blocks: Vec<Vec<PInst>> = vec![Vec::new(); m.blocks.len()];
    let mut need_all_ones = spilling;
    // Moves by (block, inst, after).
    let mut moves: std::collections::HashMap<(u32, usize, bool), Vec<(Loc, Loc)>> =
        Default::default();
    for &(b, k, after, from, to) in &a.moves {
        moves.entry((b.0, k, after)).or_default().push((from, to));
    }
    for (bi, block) in m.blocks.iter().enumerate() {
        let out = &mut blocks[bi];
        for (k, inst) in block.insts.iter().enumerate() {
            let regs = &a.regs[bi][k];
            let reg = |j: usize| regs[j].expect("allocated register");
            let span = inst.span;
            if let Some(list) = moves.get(&(bi as u32, k, false)) {
                need_all_ones |= emit_moves(out, list, inst.full_exec, slots, span);
            }
            match &inst.kind {
                MKind::Isa(op) => {
                    let ops = inst
                        .ops
                        .iter()
                        .enumerate()
                        .map(|(j, o)| match o {
                            MOp::Def(_) | MOp::Use(_) | MOp::Tied { .. } => POp::Reg(reg(j)),
                            MOp::UseHalf { high, .. } | MOp::TiedHalf { high, .. } => {
                                let (lo, hi) = lo_hi(reg(j));
                                POp::Reg(if *high { hi } else { lo })
                            }
                            MOp::Imm(i) => POp::Imm(*i),
                            MOp::Lit(l) => POp::Lit(*l),
                            MOp::Label(b) => POp::Label(*b),
                            MOp::Sym(s) => POp::Sym(s.clone()),
                            MOp::Csr(c) => POp::Csr(c),
                            MOp::Key(k, v) => POp::Key(k, *v),
                            MOp::Rm(r) => POp::Rm(r),
                            MOp::Omit => POp::Omit,
                        })
                        .collect();
                    out.push(PInst {
                        op: Some(*op),
                        ops,
                        span,
                    });
                }
                MKind::Copy => out.extend(mov(reg(0), reg(1), span)),
                MKind::TiedCopy => out.extend(mov(reg(0), reg(1), span)),
                MKind::ImplicitDef | MKind::Entry => {}
                MKind::MakePair => {
                    let (lo, hi) = lo_hi(reg(0));
                    let half = |j: usize| match &inst.ops[j] {
                        MOp::UseHalf { high, .. } => {
                            let (l, h) = lo_hi(reg(j));
                            if *high {
                                h
                            } else {
                                l
                            }
                        }
                        _ => reg(j),
                    };
                    out.extend(mov(lo, half(1), span));
                    out.extend(mov(hi, half(2), span));
                }
                MKind::PairConst(bits) => {
                    let (lo, hi) = lo_hi(reg(0));
                    for (half, value) in [(lo, *bits as u32), (hi, (*bits >> 32) as u32)] {
                        out.push(materialize(half, value, span));
                    }
                }
                MKind::Half(high) => {
                    let (lo, hi) = lo_hi(reg(1));
                    out.extend(mov(reg(0), if *high { hi } else { lo }, span));
                }
                MKind::Jump { target, .. } => {
                    if let Some(list) = moves.get(&(bi as u32, k, true)) {
                        need_all_ones |= emit_moves(out, list, inst.full_exec, slots, span);
                    }
                    out.push(PInst::jump(*target, span));
                    continue;
                }
                MKind::Branch { op, taken, .. } => {
                    let mut ops: Vec<POp> = inst
                        .ops
                        .iter()
                        .enumerate()
                        .map(|(j, _)| POp::Reg(reg(j)))
                        .collect();
                    ops.push(POp::Label(*taken));
                    out.push(PInst {
                        op: Some(*op),
                        ops,
                        span,
                    });
                }
                MKind::End => out.push(PInst::isa("endpgm", vec![], span)),
            }
            if let Some(list) = moves.get(&(bi as u32, k, true)) {
                let full = block
                    .insts
                    .get(k + 1)
                    .map_or(inst.full_exec, |n| n.full_exec);
                need_all_ones |= emit_moves(out, list, full, slots, span);
            }
        }
    }
    // The back end's own registers, set before anything else runs.
    let mut prologue = Vec::new();
    let span = m.blocks[0].insts.first().map_or(Span::DUMMY, |i| i.span);
    if need_all_ones {
        prologue.push(PInst::isa("umovi", vec![u(ALL_ONES), POp::Imm(-1)], span));
    }
    if spilling {
        let base = Phys {
            class: RClass::U,
            num: SCRATCH_BASE,
        };
        prologue.push(PInst::isa(
            "csrr",
            vec![POp::Reg(base), POp::Csr("scratch_lo")],
            span,
        ));
        prologue.push(PInst::isa(
            "csrr",
            vec![u(SCRATCH_BASE + 1), POp::Csr("scratch_hi")],
            span,
        ));
        prologue.push(PInst::isa(
            "saveexec.mov",
            vec![u(SAVED_EXEC), u(ALL_ONES)],
            span,
        ));
        prologue.push(PInst::isa("laneid", vec![v(LANE4)], span));
        prologue.push(PInst::isa(
            "sll.vi",
            vec![v(LANE4), v(LANE4), POp::Imm(2)],
            span,
        ));
        prologue.push(PInst::isa("exec.set", vec![u(SAVED_EXEC)], span));
    }
    blocks[0].splice(0..0, prologue);
    let mut f = PFunc {
        blocks,
        layout: m.layout.clone(),
        scratch_bytes: private_frame + 4 * (a.vector_slots + a.uniform_slots),
    };
    remove_jump_blocks(&mut f);
    f
}

/// Where the spill areas start in a warp's scratch region: after the lanes' private frames
/// (32 × frame bytes), the vector slots (128 bytes each: 4 per lane), then the uniform slots
/// (128 bytes each, of which lane 0's word counts).
#[derive(Debug, Clone, Copy)]
struct Slots {
    vector: i64,
    uniform: i64,
}

/// `value` into the single register `r` by the shortest immediate form.
fn materialize(r: Phys, value: u32, span: Span) -> PInst {
    let s = value as i32;
    match r.class {
        RClass::U if (-(1 << 16)..(1 << 16)).contains(&s) => {
            PInst::isa("umovi", vec![POp::Reg(r), POp::Imm(i64::from(s))], span)
        }
        RClass::U => PInst::isa("umov.l", vec![POp::Reg(r), POp::Lit(value)], span),
        _ if (-(1 << 17)..(1 << 17)).contains(&s) => {
            PInst::isa("movi", vec![POp::Reg(r), POp::Imm(i64::from(s))], span)
        }
        _ => PInst::isa("mov.vl", vec![POp::Reg(r), POp::Lit(value)], span),
    }
}

/// Emit the allocator's moves; returns whether `u30` (all ones) is needed.
fn emit_moves(
    out: &mut Vec<PInst>,
    list: &[(Loc, Loc)],
    full_exec: bool,
    slots: Slots,
    span: Span,
) -> bool {
    // Vector moves run on every lane (see the module documentation); so does storing a
    // uniform value, which goes through a vector register.
    let vector = list.iter().any(|(f, t)| {
        is_vector(f) || is_vector(t) || matches!(t, Loc::Slot(c, _) if !c.is_vector())
    });
    let wrap = vector && !full_exec;
    if wrap {
        out.push(PInst::isa(
            "saveexec.mov",
            vec![u(SAVED_EXEC), u(ALL_ONES)],
            span,
        ));
    }
    for &(from, to) in list {
        match (from, to) {
            (Loc::Reg(s), Loc::Reg(d)) => out.extend(mov(d, s, span)),
            (Loc::Reg(s), Loc::Slot(_, slot)) if !s.class.is_vector() => {
                // A uniform value goes out through v62, every lane storing its copy; lane 0's
                // word is the one read back.
                for (i, r) in halves(s).into_iter().enumerate() {
                    let off = slots.uniform + 128 * (i64::from(slot) + i as i64);
                    out.push(PInst::isa(
                        "mov.vu",
                        vec![v(UNIFORM_SPILL), POp::Reg(r)],
                        span,
                    ));
                    out.push(PInst::isa(
                        "gstore.b32",
                        vec![
                            v(UNIFORM_SPILL),
                            v(LANE4),
                            POp::Reg(Phys {
                                class: RClass::UPair,
                                num: SCRATCH_BASE,
                            }),
                            POp::Imm(off),
                        ],
                        span,
                    ));
                }
            }
            (Loc::Slot(_, slot), Loc::Reg(d)) if !d.class.is_vector() => {
                for (i, r) in halves(d).into_iter().enumerate() {
                    let off = slots.uniform + 128 * (i64::from(slot) + i as i64);
                    out.push(PInst::isa(
                        "uload.b32",
                        vec![
                            POp::Reg(r),
                            POp::Reg(Phys {
                                class: RClass::UPair,
                                num: SCRATCH_BASE,
                            }),
                            POp::Imm(off),
                        ],
                        span,
                    ));
                }
            }
            (Loc::Reg(s), Loc::Slot(_, slot)) => {
                for (i, r) in halves(s).into_iter().enumerate() {
                    let off = slots.vector + 128 * (i64::from(slot) + i as i64);
                    out.push(PInst::isa(
                        "gstore.b32",
                        vec![
                            POp::Reg(r),
                            v(LANE4),
                            POp::Reg(Phys {
                                class: RClass::UPair,
                                num: SCRATCH_BASE,
                            }),
                            POp::Imm(off),
                        ],
                        span,
                    ));
                }
            }
            (Loc::Slot(_, slot), Loc::Reg(d)) => {
                for (i, r) in halves(d).into_iter().enumerate() {
                    let off = slots.vector + 128 * (i64::from(slot) + i as i64);
                    out.push(PInst::isa(
                        "gload.b32",
                        vec![
                            POp::Reg(r),
                            v(LANE4),
                            POp::Reg(Phys {
                                class: RClass::UPair,
                                num: SCRATCH_BASE,
                            }),
                            POp::Imm(off),
                        ],
                        span,
                    ));
                }
            }
            (Loc::Slot(..), Loc::Slot(..)) => unreachable!("regalloc2 never moves slot to slot"),
        }
    }
    if wrap {
        out.push(PInst::isa("exec.set", vec![u(SAVED_EXEC)], span));
    }
    wrap
}

fn is_vector(l: &Loc) -> bool {
    match l {
        Loc::Reg(p) => p.class.is_vector(),
        Loc::Slot(c, _) => c.is_vector(),
    }
}

fn halves(p: Phys) -> Vec<Phys> {
    if p.class.is_pair() {
        let (l, h) = lo_hi(p);
        vec![l, h]
    } else {
        vec![p]
    }
}

/// Remove blocks whose only instruction is a jump, retargeting branches to them.
fn remove_jump_blocks(f: &mut PFunc) {
    loop {
        // A block that the previous one falls into (after a conditional branch) stays: the
        // fall-through is its place in the layout.
        let victim = (1..f.layout.len())
            .map(|i| (f.layout[i - 1], f.layout[i]))
            .find_map(|(prev, b)| {
                let insts = &f.blocks[b.0 as usize];
                let falls_in = f.blocks[prev.0 as usize]
                    .last()
                    .is_some_and(|last| last.op.is_some() && last.target().is_some());
                let jump_only =
                    insts.len() == 1 && insts[0].op.is_none() && insts[0].target() != Some(b);
                (jump_only && !falls_in).then_some(b)
            });
        let Some(b) = victim else { return };
        let target = f.blocks[b.0 as usize][0].target().expect("jump target");
        for insts in &mut f.blocks {
            for inst in insts {
                for o in &mut inst.ops {
                    if *o == POp::Label(b) {
                        *o = POp::Label(target);
                    }
                }
            }
        }
        f.layout.retain(|&x| x != b);
    }
}
