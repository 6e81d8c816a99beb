//! The RAW and WAW hazard reports of §2.6: an instruction that reads or writes a register
//! with a pending write-back.

use crate::program::Program;
use crate::state::queue::{Hazard, HazardKind, MAX_HAZARDS_PER_WARP};
use crate::state::Warp;

impl Warp {
    /// Report RAW and WAW hazards of the instruction at `pc` against the pending
    /// write-backs. Called only while some write-back is pending.
    #[cold]
    #[inline(never)]
    pub(crate) fn check_hazards(&mut self, prog: &Program, pc: u32) {
        let Some(uses) = prog.uses(pc) else {
            return;
        };
        let vq = self.queue.vpending;
        let uq = self.queue.upending;
        if (uses.vread | uses.vwrite) & vq == 0 && (uses.uread | uses.uwrite) & uq == 0 {
            return;
        }
        let checks = [
            (HazardKind::Raw, true, uses.vread & vq, 0u64),
            (HazardKind::Raw, false, 0, uses.uread & uq),
            (HazardKind::Waw, true, uses.vwrite & vq, 0),
            (HazardKind::Waw, false, 0, uses.uwrite & uq),
        ];
        for (kind, vector, vbits, ubits) in checks {
            let mut bits = if vector { vbits } else { u128::from(ubits) };
            while bits != 0 {
                let r = bits.trailing_zeros();
                bits &= bits - 1;
                self.hazard_count += 1;
                if self.hazards.len() >= MAX_HAZARDS_PER_WARP {
                    continue;
                }
                let pending_pc = self.queue.writer_pc(vector, r).unwrap_or(0);
                self.hazards.push(Hazard {
                    kind,
                    workgroup: self.id.workgroup,
                    warp: self.id.warp,
                    pc,
                    register: format!("{}{r}", if vector { 'v' } else { 'u' }),
                    pending_pc,
                    asm: prog.disassemble(pc),
                    pending_asm: prog.disassemble(pending_pc),
                });
            }
        }
    }
}
