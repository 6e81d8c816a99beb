//! Runs of lane-local instructions with AVX-512 (F and BW), where the host has it. A row is
//! two halves of sixteen lanes, one `zmm` register each, emitted side by side (two
//! independent chains for the out-of-order core), and the row cache ([`super::Run`]) keeps
//! eight rows per half in `zmm16..zmm31`. Against the AVX2 quarters this halves the vector
//! instructions and the stores, and the opmask registers replace the compare-and-blend
//! sequences (`cndmask`, `sel`, the carries of `add64`/`sub64`, `slt`). In the masked
//! variant (partial EXEC) runs are emitted the same way, each result merged with its
//! row's old value under EXEC's opmask before it is stored and kept
//! ([`Emitter::merge_exec_512`]), as the AVX2 masked variant does with its lane masks in
//! memory ([`Emitter::merge_exec`]).
//!
//! dynasmrt has no EVEX encodings, so these instructions are encoded with iced-x86's
//! encoder and appended to the same buffer (none is relative to its address).
//!
//! The conventions of `mod.rs` hold, widened. A run's constants are 31 and all ones in
//! all of `zmm8` and `zmm10` (their low halves are the AVX2 code's constants) and, in the
//! masked variant, EXEC's lanes 0..16 / 16..32 in `k3`/`k4` ([`Emitter::constants_512`]).
//! A run sets them and leaves the code in *512-bit state* ([`Emitter::warm`]): the
//! constants set, the upper halves of `zmm0..zmm15` in use. Uniform operations and direct
//! branches, which use no vector register, keep the state, so a run after them sets
//! nothing; anything else first leaves it ([`Emitter::cool`]): `vzeroupper`, then what
//! that clears of the AVX2 code's registers set again (the constants, and the lane masks
//! of the masked variant), because while the upper halves are in use the core runs
//! 256-bit instructions on two ports instead of three. A block that starts with a run
//! sets the constants before its step check, and a jump from code in 512-bit state enters
//! it after them (the block's warm entry): a loop whose body is runs and uniform
//! operations never leaves the state. Other jumps leave it first (the exit's
//! `vzeroupper` covers the exits). `zmm7` is the broadcast operand; `zmm0`, `zmm4..zmm6`,
//! `k1` and `k2` are scratch.

use super::emitter::Emitter;
use super::layout::{ureg, CTX_EXEC, K_C31, K_C63, K_HIGH_DWORDS};
use crate::engine::jit::kind::{Kind, VBin, VSrc, VUn};
use crate::program::Inst;
use dynasmrt::{dynasm, DynasmApi};
use iced_x86::{Code, IcedError, Instruction, MemoryOperand, Register};

pub(super) fn z(n: u8) -> Register {
    Register::ZMM0 + u32::from(n)
}

pub(super) fn k(n: u8) -> Register {
    Register::K0 + u32::from(n)
}

/// `[base + disp]`.
fn mem(base: Register, disp: i32) -> MemoryOperand {
    MemoryOperand::with_base_displ(base, i64::from(disp))
}

/// `[base + disp]{1to16}`: one dword, broadcast.
fn bcst(base: Register, disp: i32) -> MemoryOperand {
    MemoryOperand::with_base_displ_bcst_seg(base, i64::from(disp), true, Register::None)
}

/// The opmask of an instruction's destination.
#[derive(Clone, Copy)]
pub(super) enum Mask {
    All,
    /// Lanes outside `k[n]` keep the destination's value.
    Merge(u8),
    /// Lanes outside `k[n]` are zeroed.
    Zero(u8),
}

/// `vpcmpd`/`vpcmpud` predicates.
const LT: u32 = 1;

impl Emitter<'_> {
    pub(super) fn put(&mut self, made: Result<Instruction, IcedError>, mask: Mask) {
        let Ok(mut inst) = made else {
            self.evex.failed = true;
            return;
        };
        match mask {
            Mask::All => {}
            Mask::Merge(n) => inst.set_op_mask(k(n)),
            Mask::Zero(n) => {
                inst.set_op_mask(k(n));
                inst.set_zeroing_masking(true);
            }
        }
        if self.evex.encoder.encode(&inst, 0).is_err() {
            self.evex.failed = true;
            return;
        }
        let mut bytes = self.evex.encoder.take_buffer();
        self.ops.extend(bytes.iter().copied());
        bytes.clear();
        self.evex.encoder.set_buffer(bytes);
    }

    /// `code zmm[d], zmm[a], zmm[b]`.
    fn z3(&mut self, code: Code, d: u8, a: u8, b: u8) {
        self.put(Instruction::with3(code, z(d), z(a), z(b)), Mask::All);
    }

    pub(super) fn z3_masked(&mut self, code: Code, d: u8, a: u8, b: u8, mask: Mask) {
        self.put(Instruction::with3(code, z(d), z(a), z(b)), mask);
    }

    /// `code zmm[d], zmm[a], imm`.
    fn z2i(&mut self, code: Code, d: u8, a: u8, imm: u32) {
        self.put(Instruction::with3(code, z(d), z(a), imm), Mask::All);
    }

    /// `code zmm[d], zmm[a], [r11 + disp]{1to16}`: an operation with a constant.
    pub(super) fn z2c(&mut self, code: Code, d: u8, a: u8, disp: i32) {
        self.put(
            Instruction::with3(code, z(d), z(a), bcst(Register::R11, disp)),
            Mask::All,
        );
    }

    /// `code k[d], zmm[a], zmm[b]` (with `imm`, a compare's predicate).
    fn kz2(&mut self, code: Code, d: u8, a: u8, b: u8, imm: Option<u32>) {
        let made = match imm {
            Some(imm) => Instruction::with4(code, k(d), z(a), z(b), imm),
            None => Instruction::with3(code, k(d), z(a), z(b)),
        };
        self.put(made, Mask::All);
    }

    /// `zmm[d] = zmm[s]`.
    pub(super) fn move_half(&mut self, d: u8, s: u8) {
        self.put(
            Instruction::with2(Code::EVEX_Vmovdqa32_zmm_k1z_zmmm512, z(d), z(s)),
            Mask::All,
        );
    }

    /// Load the half at `[rsi + at]` into `zmm[reg]`.
    pub(super) fn load_half(&mut self, reg: u8, at: i32) {
        self.put(
            Instruction::with2(
                Code::EVEX_Vmovdqu32_zmm_k1z_zmmm512,
                z(reg),
                mem(Register::RSI, at),
            ),
            Mask::All,
        );
    }

    /// Store `zmm[src]` as the half at `[rsi + at]`.
    pub(super) fn store_half(&mut self, src: u8, at: i32) {
        self.put(
            Instruction::with2(
                Code::EVEX_Vmovdqu32_zmmm512_k1z_zmm,
                mem(Register::RSI, at),
                z(src),
            ),
            Mask::All,
        );
    }

    /// The 32-bit lane mask at `at`: lanes 0..16 into `k[lo]`, 16..32 into `k[lo + 1]`.
    fn mask_halves(&mut self, lo: u8, at: MemoryOperand) {
        self.put(
            Instruction::with2(Code::VEX_Kmovd_kr_km32, k(lo), at),
            Mask::All,
        );
        self.put(
            Instruction::with3(Code::VEX_Kshiftrd_kr_kr_imm8, k(lo + 1), k(lo), 16u32),
            Mask::All,
        );
    }

    /// The constants of a run: 31 and all ones in all sixteen lanes of `zmm8` and `zmm10`
    /// (the 512-bit code has no use for `zmm9`'s sign bits: it compares unsigned
    /// directly); in the masked variant, EXEC's lanes 0..16 in `k3` and 16..32
    /// in `k4`.
    pub(super) fn constants_512(&mut self, masked: bool) {
        if masked {
            self.mask_halves(3, mem(Register::RDI, CTX_EXEC));
        }
        self.put(
            Instruction::with2(
                Code::EVEX_Vpbroadcastd_zmm_k1z_xmmm32,
                z(8),
                mem(Register::R11, K_C31),
            ),
            Mask::All,
        );
        self.put(
            Instruction::with4(
                Code::EVEX_Vpternlogd_zmm_k1z_zmm_zmmm512b32_imm8,
                z(10),
                z(10),
                z(10),
                0xffu32,
            ),
            Mask::All,
        );
    }

    /// The per-instruction part of a lane-local instruction: its broadcast operand into
    /// `zmm7`; for `cndmask`, the lane mask into `k1` (lanes 0..16) and `k2` (16..32).
    pub(super) fn lane_setup_512(&mut self, inst: &Inst, kind: Kind) {
        let splat_ureg = |e: &mut Self, r: u8| {
            e.put(
                Instruction::with2(
                    Code::EVEX_Vpbroadcastd_zmm_k1z_xmmm32,
                    z(7),
                    mem(Register::RDX, ureg(r)),
                ),
                Mask::All,
            );
        };
        let splat_imm = |e: &mut Self, imm: u32| {
            dynasm!(e.ops ; .arch x64 ; mov eax, imm as i32);
            e.put(
                Instruction::with2(Code::EVEX_Vpbroadcastd_zmm_k1z_r32, z(7), Register::EAX),
                Mask::All,
            );
        };
        match kind {
            Kind::VBin(op, VSrc::Imm) if op.is_shift() => {}
            Kind::VBin(_, VSrc::Ureg) | Kind::VBinRev(_, VSrc::Ureg) | Kind::MacVu => {
                splat_ureg(self, inst.rs2)
            }
            Kind::VBin(_, VSrc::Imm) | Kind::VBinRev(_, VSrc::Imm) => splat_imm(self, inst.imm),
            Kind::VSplat { imm: true } => splat_imm(self, inst.imm),
            Kind::VSplat { imm: false } => splat_ureg(self, inst.rs1),
            Kind::Cndmask => self.mask_halves(1, mem(Register::RDX, ureg(inst.rs2))),
            _ => {}
        }
    }

    /// `zmm[dst] = op(zmm[x], imm)` for a shift by an immediate ([`VBin::is_shift`]).
    pub(super) fn shift_by_imm_512(&mut self, op: VBin, dst: u8, x: u8, imm: u32) {
        let code = match op {
            VBin::Sll => Code::EVEX_Vpslld_zmm_k1z_zmmm512b32_imm8,
            VBin::Srl => Code::EVEX_Vpsrld_zmm_k1z_zmmm512b32_imm8,
            _ => Code::EVEX_Vpsrad_zmm_k1z_zmmm512b32_imm8,
        };
        self.z2i(code, dst, x, imm & 31);
    }

    /// `zmm[dst] = op(zmm[x])` (a move is a copy: [`Emitter::copy_result`]).
    pub(super) fn vun_512(&mut self, op: VUn, dst: u8, x: u8) {
        match op {
            VUn::Mov => self.move_half(dst, x),
            VUn::Not => self.z3(Code::EVEX_Vpxord_zmm_k1z_zmm_zmmm512b32, dst, x, 10),
            VUn::Neg => {
                self.z3(Code::EVEX_Vpxord_zmm_k1z_zmm_zmmm512b32, 4, 4, 4);
                self.z3(Code::EVEX_Vpsubd_zmm_k1z_zmm_zmmm512b32, dst, 4, x);
            }
            VUn::Abs => self.put(
                Instruction::with2(Code::EVEX_Vpabsd_zmm_k1z_zmmm512b32, z(dst), z(x)),
                Mask::All,
            ),
            VUn::SextB | VUn::SextH | VUn::ZextB | VUn::ZextH => {
                let n = op.field_shift() as u32;
                self.z2i(Code::EVEX_Vpslld_zmm_k1z_zmmm512b32_imm8, dst, x, n);
                let down = if matches!(op, VUn::SextB | VUn::SextH) {
                    Code::EVEX_Vpsrad_zmm_k1z_zmmm512b32_imm8
                } else {
                    Code::EVEX_Vpsrld_zmm_k1z_zmmm512b32_imm8
                };
                self.z2i(down, dst, dst, n);
            }
        }
    }

    /// Move a 128-byte row from `[from + from_at]` to `[to + to_at]` outside a run, in two
    /// 512-bit halves through `zmm[halves[0]]` and `zmm[halves[1]]` (of `zmm16..31`, which
    /// the AVX2 code never uses, so its registers stay as they are): half the
    /// instructions of the 256-bit quarters, and moves take no vector ALU port.
    pub(super) fn move_row_512(
        &mut self,
        from: Register,
        from_at: i32,
        to: Register,
        to_at: i32,
        halves: [u8; 2],
    ) {
        for (k, &reg) in halves.iter().enumerate() {
            self.put(
                Instruction::with2(
                    Code::EVEX_Vmovdqu32_zmm_k1z_zmmm512,
                    z(reg),
                    mem(from, from_at + 64 * k as i32),
                ),
                Mask::All,
            );
        }
        self.store_halves_512(halves, to, to_at);
    }

    /// Store a row's halves, `zmm[halves[0]]` and `zmm[halves[1]]`, at `[to + to_at]`.
    pub(super) fn store_halves_512(&mut self, halves: [u8; 2], to: Register, to_at: i32) {
        for (k, &reg) in halves.iter().enumerate() {
            self.put(
                Instruction::with2(
                    Code::EVEX_Vmovdqu32_zmmm512_k1z_zmm,
                    mem(to, to_at + 64 * k as i32),
                    z(reg),
                ),
                Mask::All,
            );
        }
    }

    /// `zmm[dst]` = the 64 bytes at `[r11 + at]`, a constant row's half.
    pub(super) fn load_const_512(&mut self, dst: u8, at: i32) {
        self.put(
            Instruction::with2(
                Code::EVEX_Vmovdqu32_zmm_k1z_zmmm512,
                z(dst),
                mem(Register::R11, at),
            ),
            Mask::All,
        );
    }

    /// `zmm[dst] = zmm[x] * zmm[y] + zmm[z]`.
    pub(super) fn mul_add_512(&mut self, dst: u8, x: u8, y: u8, z_: u8) {
        self.z3(Code::EVEX_Vpmulld_zmm_k1z_zmm_zmmm512b32, 4, x, y);
        self.z3(Code::EVEX_Vpaddd_zmm_k1z_zmm_zmmm512b32, dst, 4, z_);
    }

    /// `zmm[dst]` from `zmm[x]`, `zmm[y]`, `zmm[z]` (`v[rs1]`, `v[rs2]`, `v[rs3]`) for
    /// `sel`, `bfi` and `bfe.u32`.
    pub(super) fn ternary_512(&mut self, kind: Kind, dst: u8, x: u8, y: u8, z_: u8) {
        match kind {
            // Where v[rs3] != 0 take v[rs1], else v[rs2].
            Kind::Sel => {
                self.kz2(Code::EVEX_Vptestmd_kr_k1_zmm_zmmm512b32, 1, z_, z_, None);
                self.z3_masked(
                    Code::EVEX_Vpblendmd_zmm_k1z_zmm_zmmm512b32,
                    dst,
                    y,
                    x,
                    Mask::Merge(1),
                );
            }
            // (x & y) | (!x & z): x selects bitwise between y and z.
            Kind::Bfi => {
                self.move_half(dst, x);
                self.put(
                    Instruction::with4(
                        Code::EVEX_Vpternlogd_zmm_k1z_zmm_zmmm512b32_imm8,
                        z(dst),
                        z(y),
                        z(z_),
                        0xcau32,
                    ),
                    Mask::All,
                );
            }
            // (x >> (y & 31)) & !(ones << (z & 63)).
            _ => {
                self.field_shifted_512(z_);
                self.z3(Code::EVEX_Vpandd_zmm_k1z_zmm_zmmm512b32, 5, y, 8);
                self.z3(Code::EVEX_Vpsrlvd_zmm_k1z_zmm_zmmm512b32, dst, x, 5);
                self.z3(Code::EVEX_Vpandnd_zmm_k1z_zmm_zmmm512b32, dst, 4, dst);
            }
        }
    }

    /// `zmm[dst]` = `zmm[new]` in the lanes of the half starting at quarter `q` that EXEC
    /// has on (`k3`, `k4`), `zmm[old]` in the others.
    pub(super) fn merge_exec_512(&mut self, dst: u8, old: u8, new: u8, q: usize) {
        let mask = if q < 2 { 3 } else { 4 };
        self.z3_masked(
            Code::EVEX_Vpblendmd_zmm_k1z_zmm_zmmm512b32,
            dst,
            old,
            new,
            Mask::Merge(mask),
        );
    }

    /// `cndmask` on the half starting at quarter `q`: `zmm[x]` where the lane's bit of the
    /// mask (`k1` or `k2`, [`Emitter::lane_setup_512`]) is set, else `zmm[old]`.
    pub(super) fn cndmask_512(&mut self, dst: u8, old: u8, x: u8, q: usize) {
        let mask = if q < 2 { 1 } else { 2 };
        self.z3_masked(
            Code::EVEX_Vpblendmd_zmm_k1z_zmm_zmmm512b32,
            dst,
            old,
            x,
            Mask::Merge(mask),
        );
    }

    /// The 64-bit add or subtract of the pairs `[lo_a, lo_b, hi_a, hi_b]` (registers) into
    /// `zmm4` (low words) and `zmm6` (high words).
    pub(super) fn pair64_512(&mut self, add: bool, [lo_a, lo_b, hi_a, hi_b]: [u8; 4]) {
        use Code as C;
        // The carry of an add is the low sum below an addend, the borrow of a subtract
        // a_lo below b_lo; the high words then take -(-1) or +(-1) where it is.
        let (op, fix, below) = if add {
            let op = C::EVEX_Vpaddd_zmm_k1z_zmm_zmmm512b32;
            (op, C::EVEX_Vpsubd_zmm_k1z_zmm_zmmm512b32, [4, lo_a])
        } else {
            let op = C::EVEX_Vpsubd_zmm_k1z_zmm_zmmm512b32;
            (op, C::EVEX_Vpaddd_zmm_k1z_zmm_zmmm512b32, [lo_a, lo_b])
        };
        self.z3(op, 4, lo_a, lo_b);
        let cmp = C::EVEX_Vpcmpud_kr_k1_zmm_zmmm512b32_imm8;
        self.kz2(cmp, 1, below[0], below[1], Some(LT));
        self.z3(op, 6, hi_a, hi_b);
        self.z3_masked(fix, 6, 6, 10, Mask::Merge(1));
    }

    /// `zmm4 = ones << (zmm[width] & 63)`, the complement of the field mask of
    /// `bfm`/`bfe.u32` (a count of 32 or more shifts everything out).
    fn field_shifted_512(&mut self, width: u8) {
        self.z2c(Code::EVEX_Vpandd_zmm_k1z_zmm_zmmm512b32, 4, width, K_C63);
        self.z3(Code::EVEX_Vpsllvd_zmm_k1z_zmm_zmmm512b32, 4, 10, 4);
    }

    /// `zmm[dst] = op(zmm[x], zmm[y])`; may use `zmm4..zmm6` and `k1`. `dst` is not `x`
    /// or `y` (in a run, sources are cache registers and the destination is not one of
    /// them).
    pub(super) fn vbin_512(&mut self, op: VBin, dst: u8, x: u8, y: u8) {
        use Code as C;
        let simple = match op {
            VBin::Add => Some(C::EVEX_Vpaddd_zmm_k1z_zmm_zmmm512b32),
            VBin::Sub => Some(C::EVEX_Vpsubd_zmm_k1z_zmm_zmmm512b32),
            VBin::And => Some(C::EVEX_Vpandd_zmm_k1z_zmm_zmmm512b32),
            VBin::Or => Some(C::EVEX_Vpord_zmm_k1z_zmm_zmmm512b32),
            VBin::Xor => Some(C::EVEX_Vpxord_zmm_k1z_zmm_zmmm512b32),
            VBin::Mul => Some(C::EVEX_Vpmulld_zmm_k1z_zmm_zmmm512b32),
            // The rotates take their count modulo 32, as the ISA does.
            VBin::Rol => Some(C::EVEX_Vprolvd_zmm_k1z_zmm_zmmm512b32),
            VBin::Ror => Some(C::EVEX_Vprorvd_zmm_k1z_zmm_zmmm512b32),
            VBin::Min => Some(C::EVEX_Vpminsd_zmm_k1z_zmm_zmmm512b32),
            VBin::Max => Some(C::EVEX_Vpmaxsd_zmm_k1z_zmm_zmmm512b32),
            VBin::Minu => Some(C::EVEX_Vpminud_zmm_k1z_zmm_zmmm512b32),
            VBin::Maxu => Some(C::EVEX_Vpmaxud_zmm_k1z_zmm_zmmm512b32),
            _ => None,
        };
        if let Some(code) = simple {
            self.z3(code, dst, x, y);
            return;
        }
        match op {
            VBin::Andn => self.z3(C::EVEX_Vpandnd_zmm_k1z_zmm_zmmm512b32, dst, y, x),
            VBin::Orn => {
                self.z3(C::EVEX_Vpxord_zmm_k1z_zmm_zmmm512b32, 4, y, 10);
                self.z3(C::EVEX_Vpord_zmm_k1z_zmm_zmmm512b32, dst, x, 4);
            }
            VBin::Xnor => {
                self.z3(C::EVEX_Vpxord_zmm_k1z_zmm_zmmm512b32, dst, x, y);
                self.z3(C::EVEX_Vpxord_zmm_k1z_zmm_zmmm512b32, dst, dst, 10);
            }
            VBin::Sll | VBin::Srl | VBin::Sra => {
                let code = match op {
                    VBin::Sll => C::EVEX_Vpsllvd_zmm_k1z_zmm_zmmm512b32,
                    VBin::Srl => C::EVEX_Vpsrlvd_zmm_k1z_zmm_zmmm512b32,
                    _ => C::EVEX_Vpsravd_zmm_k1z_zmm_zmmm512b32,
                };
                self.z3(C::EVEX_Vpandd_zmm_k1z_zmm_zmmm512b32, 4, y, 8);
                self.z3(code, dst, x, 4);
            }
            // 1 where x < y: all ones shifted down by 31, zeroed elsewhere.
            VBin::Slt | VBin::Sltu => {
                let cmp = if op == VBin::Slt {
                    C::EVEX_Vpcmpd_kr_k1_zmm_zmmm512b32_imm8
                } else {
                    C::EVEX_Vpcmpud_kr_k1_zmm_zmmm512b32_imm8
                };
                self.kz2(cmp, 1, x, y, Some(LT));
                self.put(
                    Instruction::with3(
                        C::EVEX_Vpsrld_zmm_k1z_zmmm512b32_imm8,
                        z(dst),
                        z(10),
                        31u32,
                    ),
                    Mask::Zero(1),
                );
            }
            // x where y != 0 (`czero.eqz`) or where y == 0 (`czero.nez`), else 0.
            VBin::CzeroEqz | VBin::CzeroNez => {
                let test = if op == VBin::CzeroEqz {
                    C::EVEX_Vptestmd_kr_k1_zmm_zmmm512b32
                } else {
                    C::EVEX_Vptestnmd_kr_k1_zmm_zmmm512b32
                };
                self.kz2(test, 1, y, y, None);
                self.put(
                    Instruction::with2(C::EVEX_Vmovdqa32_zmm_k1z_zmmm512, z(dst), z(x)),
                    Mask::Zero(1),
                );
            }
            VBin::Mulh | VBin::Mulhu => {
                // The even lanes' products, and the odd lanes' (their dwords moved to even
                // positions first); each product's high dword is in an odd position, and
                // one two-source permute gathers them (the even lanes' from the first,
                // the odd lanes' from the second). `dst` is written after the last read
                // of `x` and `y`.
                let mul = if op == VBin::Mulh {
                    C::EVEX_Vpmuldq_zmm_k1z_zmm_zmmm512b64
                } else {
                    C::EVEX_Vpmuludq_zmm_k1z_zmm_zmmm512b64
                };
                self.z2i(C::EVEX_Vpshufd_zmm_k1z_zmmm512b32_imm8, 5, x, 0xf5);
                self.z2i(C::EVEX_Vpshufd_zmm_k1z_zmmm512b32_imm8, 6, y, 0xf5);
                self.z3(mul, 4, x, y);
                self.z3(mul, 5, 5, 6);
                self.load_const_512(dst, K_HIGH_DWORDS);
                self.z3(C::EVEX_Vpermi2d_zmm_k1z_zmm_zmmm512b32, dst, 4, 5);
            }
            VBin::Bfm => {
                // !(ones << (x & 63)) << (y & 31).
                self.field_shifted_512(x);
                self.z3(C::EVEX_Vpandnd_zmm_k1z_zmm_zmmm512b32, 4, 4, 10);
                self.z3(C::EVEX_Vpandd_zmm_k1z_zmm_zmmm512b32, 5, y, 8);
                self.z3(C::EVEX_Vpsllvd_zmm_k1z_zmm_zmmm512b32, dst, 4, 5);
            }
            _ => unreachable!("the simple operations are handled above"),
        }
    }
}
