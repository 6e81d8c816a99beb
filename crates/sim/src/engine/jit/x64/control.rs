//! Control flow and EXEC writers, and the uniform operations that feed them.

use super::emitter::*;
use super::layout::*;
use crate::engine::jit::kind::*;
use crate::program::Inst;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};

impl Emitter<'_> {
    /// `ymm12..ymm15` = the lane masks of `ctx.exec`, one quarter each (uses `ymm4`,
    /// `ymm5`, `ymm7`).
    pub(super) fn lane_masks(&mut self) {
        dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm7, [rdi + CTX_EXEC]);
        for q in 0..4u8 {
            let at = K_BITS + i32::from(q) * 32;
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm5, [r11 + at]
                ; vpand ymm4, ymm7, ymm5
                ; vpcmpeqd Ry(12 + q), ymm4, ymm5
            );
        }
    }

    /// An EXEC writer at `pc`, the last instruction of its block: the new EXEC to `ctx`,
    /// the lane masks and lane count, then on to the next block in the variant it needs.
    pub(super) fn exec_write(&mut self, pc: u32, inst: &Inst, w: ExecWrite) {
        let next = pc.wrapping_add(u32::from(inst.len));
        let (ua, ud) = (ureg(inst.rs1), ureg(inst.rd));
        // The source is read before the old EXEC is saved: rd may equal rs1.
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [rdi + CTX_EXEC]
            ; mov ecx, [rdx + ua]
        );
        if w != ExecWrite::Set {
            dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], eax);
        }
        match w {
            ExecWrite::Set | ExecWrite::Mov => {}
            ExecWrite::And => dynasm!(self.ops ; .arch x64 ; and ecx, eax),
            ExecWrite::Or => dynasm!(self.ops ; .arch x64 ; or ecx, eax),
            ExecWrite::Xor => dynasm!(self.ops ; .arch x64 ; xor ecx, eax),
            ExecWrite::Andn1 => dynasm!(self.ops ; .arch x64 ; not eax ; and ecx, eax),
            ExecWrite::Andn2 => dynasm!(self.ops ; .arch x64 ; not ecx ; and ecx, eax),
        }
        dynasm!(self.ops
            ; .arch x64
            ; mov [rdi + CTX_EXEC], ecx
            ; popcnt ebx, ecx
        );
        self.lane_masks();
        dynasm!(self.ops
            ; .arch x64
            ; cmp ecx, -1
            ; jne >masked
            ; mov r9, [rdi + CTX_TABLE_FULL]
        );
        self.goto(next, false);
        dynasm!(self.ops
            ; .arch x64
            ; masked:
            ; mov r9, [rdi + CTX_TABLE_MASKED]
        );
        self.goto(next, true);
    }

    /// `eax = eax op imm`: x86's own immediate forms where it has them, else through
    /// `ecx` ([`Emitter::sbin`]).
    pub(super) fn sbin_imm(&mut self, op: SBin, imm: i32) {
        match op {
            SBin::Add => dynasm!(self.ops ; .arch x64 ; add eax, imm),
            SBin::Sub => dynasm!(self.ops ; .arch x64 ; sub eax, imm),
            SBin::And => dynasm!(self.ops ; .arch x64 ; and eax, imm),
            SBin::Or => dynasm!(self.ops ; .arch x64 ; or eax, imm),
            SBin::Xor => dynasm!(self.ops ; .arch x64 ; xor eax, imm),
            _ => {
                dynasm!(self.ops ; .arch x64 ; mov ecx, imm);
                self.sbin(op);
            }
        }
    }

    /// `eax = eax op ecx`.
    pub(super) fn sbin(&mut self, op: SBin) {
        match op {
            SBin::Add => dynasm!(self.ops ; .arch x64 ; add eax, ecx),
            SBin::Sub => dynasm!(self.ops ; .arch x64 ; sub eax, ecx),
            SBin::And => dynasm!(self.ops ; .arch x64 ; and eax, ecx),
            SBin::Or => dynasm!(self.ops ; .arch x64 ; or eax, ecx),
            SBin::Xor => dynasm!(self.ops ; .arch x64 ; xor eax, ecx),
            SBin::Andn => dynasm!(self.ops ; .arch x64 ; not ecx ; and eax, ecx),
            SBin::Orn => dynasm!(self.ops ; .arch x64 ; not ecx ; or eax, ecx),
            SBin::Xnor => dynasm!(self.ops ; .arch x64 ; xor eax, ecx ; not eax),
            SBin::Mul => dynasm!(self.ops ; .arch x64 ; imul eax, ecx),
            SBin::Mulh => dynasm!(self.ops
                ; .arch x64
                ; movsxd rax, eax
                ; movsxd rcx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            // 32-bit moves zero the upper halves, so both operands are already unsigned.
            SBin::Mulhu => dynasm!(self.ops
                ; .arch x64
                ; mov eax, eax
                ; mov ecx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            SBin::Mulhsu => dynasm!(self.ops
                ; .arch x64
                ; movsxd rax, eax
                ; mov ecx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            // x86 masks 32-bit shift and rotate counts to 5 bits, as the ISA does.
            SBin::Sll => dynasm!(self.ops ; .arch x64 ; shl eax, cl),
            SBin::Srl => dynasm!(self.ops ; .arch x64 ; shr eax, cl),
            SBin::Sra => dynasm!(self.ops ; .arch x64 ; sar eax, cl),
            SBin::Rol => dynasm!(self.ops ; .arch x64 ; rol eax, cl),
            SBin::Ror => dynasm!(self.ops ; .arch x64 ; ror eax, cl),
            SBin::Slt => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setl al ; movzx eax, al),
            SBin::Sltu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setb al ; movzx eax, al),
            SBin::Seq => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; sete al ; movzx eax, al),
            SBin::Sne => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setne al ; movzx eax, al),
            SBin::Sge => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setge al ; movzx eax, al),
            SBin::Sgeu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setae al ; movzx eax, al),
            SBin::Min => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovg eax, ecx),
            SBin::Max => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovl eax, ecx),
            SBin::Minu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmova eax, ecx),
            SBin::Maxu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovb eax, ecx),
            SBin::CzeroEqz => dynasm!(self.ops ; .arch x64 ; test ecx, ecx ; cmovz eax, ecx),
            SBin::CzeroNez => dynasm!(self.ops
                ; .arch x64
                ; test ecx, ecx
                ; mov ecx, 0
                ; cmovnz eax, ecx
            ),
        }
    }

    /// A control transfer at `pc`, the last instruction of its block.
    pub(super) fn branch(&mut self, pc: u32, inst: &Inst, br: Branch, masked: bool) {
        let next = pc.wrapping_add(u32::from(inst.len));
        let target = inst.imm;
        let (ua, ud) = (ureg(inst.rs1), ureg(inst.rd));
        match br {
            Branch::Jmp => self.goto(target, masked),
            Branch::Jal => {
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], next as i32);
                self.goto(target, masked);
            }
            Branch::Bexecz | Branch::Bexecnz if !masked => {
                // Full EXEC is never zero.
                self.goto(if br == Branch::Bexecnz { target } else { next }, masked);
            }
            Branch::Bz
            | Branch::Bnz
            | Branch::Bexecz
            | Branch::Bexecnz
            | Branch::Bnone
            | Branch::Bany => {
                match br {
                    Branch::Bz | Branch::Bnz => {
                        dynasm!(self.ops ; .arch x64 ; cmp DWORD [rdx + ua], 0)
                    }
                    Branch::Bexecz | Branch::Bexecnz => {
                        dynasm!(self.ops ; .arch x64 ; cmp DWORD [rdi + CTX_EXEC], 0)
                    }
                    _ => dynasm!(self.ops
                        ; .arch x64
                        ; mov eax, [rdx + ua]
                        ; test eax, [rdi + CTX_EXEC]
                    ),
                }
                let taken_if_zero = matches!(br, Branch::Bz | Branch::Bexecz | Branch::Bnone);
                if let Some(label) = self.direct_target(target, masked) {
                    // Straight to the target's block (a loop's back edge).
                    if taken_if_zero {
                        dynasm!(self.ops ; .arch x64 ; jz =>label);
                    } else {
                        dynasm!(self.ops ; .arch x64 ; jnz =>label);
                    }
                    self.goto(next, masked);
                    return;
                }
                if taken_if_zero {
                    dynasm!(self.ops ; .arch x64 ; jnz >fall);
                } else {
                    dynasm!(self.ops ; .arch x64 ; jz >fall);
                }
                self.goto(target, masked);
                dynasm!(self.ops ; .arch x64 ; fall:);
                self.goto(next, masked);
            }
            Branch::Jr | Branch::Jalr => {
                let imm = inst.imm as i32;
                let slots = self.slots as i32;
                let exit = self.exit;
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, [rdx + ua]
                    ; add eax, imm
                    ; and eax, -4
                );
                if br == Branch::Jalr {
                    dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], next as i32);
                }
                // Through the slot table: the block there, or the exit with the PC in eax.
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, eax
                    ; shr ecx, 2
                    ; cmp ecx, slots
                    ; jae =>exit
                    ; jmp QWORD [r9 + rcx * 8]
                );
            }
        }
    }
}
