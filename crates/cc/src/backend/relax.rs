//! Branch relaxation: conditional branches whose target is out of their offset's reach.
//!
//! `bz`/`bnz` (and `bany`/`bnone`) carry a 17-bit offset (±256 KiB), `jmp`, `bexecz` and
//! `bexecnz` a 22-bit one (±8 MiB). A kernel whose code between a conditional branch and its
//! target exceeds 256 KiB (a large kernel at `-O0`, long unrolled bodies) would not assemble,
//! so such a branch becomes the inverted branch over a `jmp`:
//!
//! ```asm
//!     bz   u13, .Lfar          →      bnz  u13, .Lnear
//!     ...                             jmp  .Lfar
//!                                 .Lnear:
//!                                     ...
//! ```
//!
//! The instructions after the branch in its block move to a new block `.Lnear` laid out right
//! after it, so nothing else changes: the inverted branch reads the same register at the same
//! point (the `waitcnt`s already placed stay right) and `jmp` touches no register. Offsets
//! only grow as branches are relaxed, so relaxing until none is out of reach terminates. A
//! `jmp` or EXEC branch beyond ±8 MiB cannot be relaxed this way and is reported.

use super::finalize::{PFunc, PInst, POp};
use super::isel::isa;
use super::mir::BlockId;
use warpkit_isa::Op;

/// A branch that is out of reach even after relaxation.
#[derive(Debug, Clone)]
pub struct TooFar {
    /// The branch's mnemonic.
    pub mnemonic: &'static str,
    /// Its byte offset to the target.
    pub offset: i64,
    /// The reach of its offset field.
    pub range: (i64, i64),
}

/// The inverse of a conditional branch on a uniform register.
fn inverse(op: Op) -> Option<Op> {
    let name = match op.mnemonic() {
        "bz" => "bnz",
        "bnz" => "bz",
        "bany" => "bnone",
        "bnone" => "bany",
        _ => return None,
    };
    Some(isa(name))
}

/// The reach of the offset operand of a branch (`jmp` for the pseudo-jump).
fn reach(inst: &PInst) -> (i64, i64) {
    let op = inst.op.unwrap_or_else(|| isa("jmp"));
    let def = op.def();
    def.operands
        .iter()
        .zip(&inst.ops)
        .find(|(_, o)| matches!(o, POp::Label(_)))
        .map_or((i64::MIN, i64::MAX), |(d, _)| d.ty().value_range())
}

/// Byte size of each instruction as laid out (a jump to the next block is not emitted).
fn size(inst: &PInst, next: Option<BlockId>) -> i64 {
    match inst.op {
        Some(op) => op.def().len() as i64,
        None if inst.target() == next => 0,
        None => isa("jmp").def().len() as i64,
    }
}

/// Relax every conditional branch of `p` whose target is out of reach.
pub fn relax(p: &mut PFunc) -> Result<(), TooFar> {
    loop {
        let mut start = vec![0i64; p.blocks.len()];
        let mut at = 0i64;
        for (i, &b) in p.layout.iter().enumerate() {
            start[b.0 as usize] = at;
            let next = p.layout.get(i + 1).copied();
            at += p.blocks[b.0 as usize]
                .iter()
                .map(|inst| size(inst, next))
                .sum::<i64>();
        }
        let mut far = Vec::new();
        for (i, &b) in p.layout.iter().enumerate() {
            let next = p.layout.get(i + 1).copied();
            let mut pc = start[b.0 as usize];
            for (k, inst) in p.blocks[b.0 as usize].iter().enumerate() {
                if let Some(target) = inst.target() {
                    if size(inst, next) > 0 {
                        let offset = start[target.0 as usize] - pc;
                        let (lo, hi) = reach(inst);
                        if offset < lo || offset > hi {
                            match inst.op.and_then(inverse) {
                                Some(_) => far.push((i, k)),
                                None => {
                                    return Err(TooFar {
                                        mnemonic: inst.op.map_or("jmp", |o| o.mnemonic()),
                                        offset,
                                        range: (lo, hi),
                                    })
                                }
                            }
                        }
                    }
                }
                pc += size(inst, next);
            }
        }
        if far.is_empty() {
            return Ok(());
        }
        // Later positions first, so that the earlier indexes stay valid.
        for &(i, k) in far.iter().rev() {
            let b = p.layout[i];
            let near = BlockId(p.blocks.len() as u32);
            let block = &mut p.blocks[b.0 as usize];
            let rest = block.split_off(k + 1);
            let branch = block.pop().expect("the far branch");
            let far_target = branch.target().expect("a branch target");
            let op = branch.op.and_then(inverse).expect("an invertible branch");
            let ops = branch
                .ops
                .iter()
                .map(|o| match o {
                    POp::Label(_) => POp::Label(near),
                    o => o.clone(),
                })
                .collect();
            block.push(PInst {
                op: Some(op),
                ops,
                span: branch.span,
            });
            block.push(PInst::jump(far_target, branch.span));
            p.blocks.push(rest);
            p.layout.insert(i + 1, near);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::mir::RClass;
    use crate::backend::regalloc::Phys;
    use crate::source::Span;

    fn filler(n: usize) -> Vec<PInst> {
        let op = isa("mov.vl");
        assert_eq!(op.def().len(), 8);
        (0..n)
            .map(|_| PInst {
                op: Some(op),
                ops: vec![],
                span: Span::DUMMY,
            })
            .collect()
    }

    fn branch(name: &str, target: u32) -> PInst {
        let u = Phys {
            class: RClass::U,
            num: 13,
        };
        PInst {
            op: Some(isa(name)),
            ops: vec![POp::Reg(u), POp::Label(BlockId(target))],
            span: Span::DUMMY,
        }
    }

    fn endpgm() -> PInst {
        PInst {
            op: Some(isa("endpgm")),
            ops: vec![],
            span: Span::DUMMY,
        }
    }

    fn func(blocks: Vec<Vec<PInst>>) -> PFunc {
        PFunc {
            layout: (0..blocks.len() as u32).map(BlockId).collect(),
            blocks,
            scratch_bytes: 0,
        }
    }

    #[test]
    fn near_branches_stay() {
        let mut p = func(vec![vec![branch("bz", 2)], filler(32000), vec![endpgm()]]);
        relax(&mut p).unwrap();
        assert_eq!(p.layout.len(), 3);
        assert_eq!(p.blocks[0][0].op.unwrap().mnemonic(), "bz");
    }

    #[test]
    fn far_branches_jump_over_their_inverse() {
        // A forward `bz` over 320 KiB, a backward `bany` over the same, and a `bnz` whose block
        // goes on after it.
        let mut first = vec![branch("bz", 2)];
        first.extend(filler(3));
        let mut p = func(vec![
            first,
            filler(40000),
            vec![branch("bany", 1), endpgm()],
            vec![branch("bnz", 0)],
            filler(40000),
            vec![endpgm()],
        ]);
        relax(&mut p).unwrap();
        let names = |b: BlockId| -> Vec<&str> {
            p.blocks[b.0 as usize]
                .iter()
                .map(|i| i.op.map_or("jmp", |o| o.mnemonic()))
                .collect()
        };
        let b0 = p.layout[0];
        assert_eq!(names(b0), ["bnz", "jmp"]);
        let near = p.blocks[b0.0 as usize][0].target().unwrap();
        assert_eq!(
            p.layout[1], near,
            "the rest of the block follows the branch"
        );
        assert_eq!(names(near), ["mov.vl"; 3]);
        assert_eq!(p.blocks[b0.0 as usize][1].target(), Some(BlockId(2)));
        assert_eq!(names(BlockId(2)), ["bnone", "jmp"]);
        assert_eq!(p.blocks[2][1].target(), Some(BlockId(1)));
        let after2 = p.layout[p.layout.iter().position(|&b| b == BlockId(2)).unwrap() + 1];
        assert_eq!(names(after2), ["endpgm"]);
        assert_eq!(names(BlockId(3)), ["bz", "jmp"]);
        assert_eq!(p.blocks[3][1].target(), Some(BlockId(0)));
        // Every branch now reaches its target.
        relax(&mut p).unwrap();
        assert_eq!(p.layout.len(), 9);
    }

    #[test]
    fn a_jump_beyond_8_mib_is_reported() {
        let mut p = func(vec![
            vec![PInst::jump(BlockId(2), Span::DUMMY)],
            filler((8 << 20) / 8 + 16),
            vec![endpgm()],
        ]);
        let far = relax(&mut p).unwrap_err();
        assert_eq!(far.mnemonic, "jmp");
        assert_eq!(far.range, (-(8 << 20), (8 << 20) - 4));
        assert_eq!(far.offset, (8 << 20) + 128 + 4);
    }
}
