//! One instruction drawn from the database's tables: every operand filled by its type —
//! registers from the pools (aligned and sized as the kind says, recently used ones
//! preferred), immediates with their boundary values, enum values that are not reserved.

use super::{Gen, U_POOL, V_POOL};
use warpkit_isa::{Instr, Modifier, Op, OperandClass, Role};

/// Bit patterns worth meeting often: integer boundaries and fp32 special values.
pub(crate) const SPECIAL32: [u32; 24] = [
    0,
    1,
    2,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0x0000_ffff,
    0xffff_8000,
    0x0000_7fff,
    0x0000_0080,
    0x0000_001f,
    0x0000_0020,
    0x7fc0_0000, // quiet NaN
    0xffc0_0000, // negative quiet NaN
    0x7f80_0001, // signalling NaN
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x0000_0001, // smallest denormal
    0x807f_ffff, // largest negative denormal
    0x8000_0000, // -0
    0x7f7f_ffff, // largest finite
    0x0080_0000, // smallest normal
    0x3f80_0000, // 1.0
    0xbf80_0000, // -1.0
];

impl Gen<'_> {
    /// A 32-bit value: a special one or any.
    pub(crate) fn special32(&mut self) -> i64 {
        if self.rng.chance(500) {
            i64::from(*self.rng.pick(&SPECIAL32))
        } else {
            i64::from(self.rng.next_u32())
        }
    }

    /// A vector register group of `count` from the pool, its first a multiple of `align`.
    pub(crate) fn pick_v(&mut self, count: u32, align: u32) -> i64 {
        i64::from(self.pick_reg(V_POOL, count, align, true))
    }

    /// A uniform register group of `count` from the pool, its first a multiple of `align`.
    pub(crate) fn pick_u(&mut self, count: u32, align: u32) -> i64 {
        i64::from(self.pick_reg(U_POOL, count, align, false))
    }

    fn pick_reg(&mut self, pool: u32, count: u32, align: u32, vector: bool) -> u32 {
        let align = align.max(1);
        let slots = (pool - count) / align + 1;
        // Mostly a window of recently used registers, so results feed later instructions.
        let r = if self.rng.chance(650) {
            let hot = if vector { self.hot_v } else { self.hot_u };
            let base = hot + self.rng.below(12) as u32;
            (base.min(pool - count) / align) * align
        } else {
            self.rng.below(u64::from(slots)) as u32 * align
        };
        if self.rng.chance(30) {
            let h = self.rng.below(u64::from(pool - 12)) as u32;
            if vector {
                self.hot_v = h;
            } else {
                self.hot_u = h;
            }
        }
        r
    }
}

/// `op` with random operands, or `None` when no legal operands were found.
pub(crate) fn instruction(g: &mut Gen, op: Op) -> Option<Instr> {
    let def = op.def();
    let sources = def
        .operands
        .iter()
        .filter(|o| matches!(o.role, Role::Read) && matches!(o.kind.ty.class, OperandClass::VReg))
        .count() as u32;
    for _ in 0..8 {
        let mut raw = Vec::with_capacity(def.operands.len());
        for o in def.operands {
            let ty = o.kind.ty;
            let width = o.field.width();
            let mask = if width >= 32 {
                u32::MAX
            } else {
                (1u32 << width) - 1
            };
            let regs = u32::from(o.kind.regs.max(1));
            let align = u32::from(ty.align.max(1));
            let v = match o.kind.modifier {
                Modifier::Neg | Modifier::Abs => {
                    let m = (1u32 << sources.min(width)) - 1;
                    if g.rng.chance(700) {
                        0
                    } else {
                        g.rng.next_u32() & m
                    }
                }
                Modifier::Switch => u32::from(g.rng.chance(200)),
                Modifier::None => match ty.class {
                    OperandClass::VReg if ty.half => {
                        (g.pick_v(1, 1) as u32) << 1 | g.rng.below(2) as u32
                    }
                    OperandClass::VReg => g.pick_v(regs, align) as u32,
                    OperandClass::UReg => g.pick_u(regs, align) as u32,
                    OperandClass::Imm => g.special32() as u32,
                    OperandClass::SImm | OperandClass::UImm => immediate(g, ty.class, width),
                    OperandClass::Enum => {
                        let ok: Vec<u32> = ty
                            .values
                            .iter()
                            .map(|&(_, v)| v)
                            .filter(|&v| !ty.is_reserved(v))
                            .collect();
                        if ok.is_empty() {
                            0
                        } else {
                            *g.rng.pick(&ok)
                        }
                    }
                },
            };
            raw.push(v & mask);
        }
        let Ok(ins) = Instr::from_raw(op, &raw) else {
            continue;
        };
        if ins.reserved_operand().is_none() {
            return Some(ins);
        }
    }
    None
}

/// A raw immediate field of `width` bits: its boundaries, small values, or any.
fn immediate(g: &mut Gen, class: OperandClass, width: u32) -> u32 {
    let mask = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    let signed = class == OperandClass::SImm;
    match g.rng.below(8) {
        0 => 0,
        1 => 1,
        2 => mask,                // -1 signed, the maximum unsigned
        3 if signed => mask >> 1, // the largest positive
        3 => mask >> 1,
        4 if signed => (mask >> 1) + 1, // the most negative
        4 => 2,
        5 => g.rng.below(32) as u32, // shift counts, lane numbers, bit positions
        _ => g.rng.next_u32() & mask,
    }
}

impl Gen<'_> {
    /// One instruction drawn from the tables (none when it found no legal operands).
    pub(crate) fn random_from_table(&mut self) {
        let weights: Vec<u32> = self.table.iter().map(|(w, _, _)| *w).collect();
        let Some(g) = self.rng.weighted(&weights) else {
            // Every group weighs 0: the body is streams and no-ops.
            self.ins("nop", &[]);
            return;
        };
        let (_, ops, ws) = &self.table[g];
        let Some(i) = self.rng.weighted(ws) else {
            self.ins("nop", &[]);
            return;
        };
        let op = ops[i];
        if let Some(ins) = instruction(self, op) {
            self.emit(ins);
        }
    }
}
