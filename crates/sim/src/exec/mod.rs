//! Execution semantics: what each instruction does to a warp, one module per family, and
//! [`Warp::execute`], which performs one pre-decoded instruction.

mod hazard;

use crate::env::Env;
use crate::program::{Code, Program};
use crate::state::csr::{num, CsrWrite};
use crate::state::regs::{LANES, NUM_VREGS};
use crate::state::trap::*;
use crate::state::{Core, Warp, WarpStatus};
use int::*;
use warpkit_isa::Op;

mod csr;
pub(crate) mod fp;
pub(crate) mod int;
mod lanes;
pub(crate) mod mem;
pub mod sfu;

impl Warp {
    /// Raise a trap at `pc`: enter the handler if `trapbase` is set, otherwise stop.
    /// A fetch fault at the handler's own address stops the warp too: re-entering a handler
    /// that cannot be fetched would only spin. Returns whether the warp keeps running.
    #[cold]
    #[inline(never)]
    pub fn raise(&mut self, pc: u32, cause: u32, info: u32) -> bool {
        let trap = Trap { cause, pc, info };
        self.last_trap = Some(trap);
        let trapbase = self.csr.trapbase();
        let unreachable_handler = cause == CAUSE_FETCH_FAULT && pc == trapbase;
        if trapbase != 0 && !unreachable_handler {
            self.csr.set(num::TRAPCAUSE, cause);
            self.csr.set(num::TRAPPC, pc);
            self.csr.set(num::TRAPINFO, info);
            self.pc = trapbase;
            true
        } else {
            self.status = WarpStatus::Trapped(trap);
            false
        }
    }

    // ---- one instruction ------------------------------------------------------------

    /// A trap raised by the instruction at `pc`: the handler's PC if the warp goes on.
    #[cold]
    #[inline(never)]
    pub(crate) fn trap_at(&mut self, pc: u32, cause: u32, info: u32) -> Option<u32> {
        self.raise(pc, cause, info).then_some(self.pc)
    }

    /// Execute the instruction at `pc` (which is `self.pc`). Returns the next PC (also
    /// stored in `self.pc`) while the warp is `Running`: the interpreter loop keeps the PC
    /// in a register instead of reloading what it just stored, which was the longest
    /// dependency chain of a branchy loop.
    #[inline(always)]
    pub(crate) fn step_at<E: Env>(
        &mut self,
        pc: u32,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
    ) -> Option<u32> {
        let Some(&inst) = prog.fetch(pc) else {
            return self.trap_at(pc, CAUSE_FETCH_FAULT, pc);
        };
        let Code::Op(op) = inst.code else {
            return self.trap_at(pc, CAUSE_ILLEGAL_INSN, inst.imm);
        };
        let d = usize::from(inst.rd);
        let a = usize::from(inst.rs1);
        let b = usize::from(inst.rs2);
        let c = usize::from(inst.rs3);
        let imm = inst.imm;
        let mut next = pc.wrapping_add(u32::from(inst.len));
        match op {
            // ---- VALU integer, R / RU / I8 ----
            Op::Add => self.vv(d, a, b, u32::wrapping_add),
            Op::AddVu => self.vs(d, a, self.u[b], u32::wrapping_add),
            Op::AddVi => self.vs(d, a, imm, u32::wrapping_add),
            Op::Sub => self.vv(d, a, b, u32::wrapping_sub),
            Op::SubVu => self.vs(d, a, self.u[b], u32::wrapping_sub),
            Op::Sll => self.vv(d, a, b, |x, y| x << (y & 31)),
            Op::SllVu => self.vs(d, a, self.u[b], |x, y| x << (y & 31)),
            Op::SllVi => self.vs(d, a, imm, |x, y| x << (y & 31)),
            Op::Slt => self.vv(d, a, b, |x, y| b2u(lt_s(x, y))),
            Op::SltVu => self.vs(d, a, self.u[b], |x, y| b2u(lt_s(x, y))),
            Op::SltVi => self.vs(d, a, imm, |x, y| b2u(lt_s(x, y))),
            Op::Sltu => self.vv(d, a, b, |x, y| b2u(x < y)),
            Op::SltuVu => self.vs(d, a, self.u[b], |x, y| b2u(x < y)),
            Op::SltuVi => self.vs(d, a, imm, |x, y| b2u(x < y)),
            Op::Xor => self.vv(d, a, b, |x, y| x ^ y),
            Op::XorVu => self.vs(d, a, self.u[b], |x, y| x ^ y),
            Op::XorVi => self.vs(d, a, imm, |x, y| x ^ y),
            Op::Srl => self.vv(d, a, b, |x, y| x >> (y & 31)),
            Op::SrlVu => self.vs(d, a, self.u[b], |x, y| x >> (y & 31)),
            Op::SrlVi => self.vs(d, a, imm, |x, y| x >> (y & 31)),
            Op::Sra => self.vv(d, a, b, |x, y| ((x as i32) >> (y & 31)) as u32),
            Op::SraVu => self.vs(d, a, self.u[b], |x, y| ((x as i32) >> (y & 31)) as u32),
            Op::SraVi => self.vs(d, a, imm, |x, y| ((x as i32) >> (y & 31)) as u32),
            Op::Or => self.vv(d, a, b, |x, y| x | y),
            Op::OrVu => self.vs(d, a, self.u[b], |x, y| x | y),
            Op::OrVi => self.vs(d, a, imm, |x, y| x | y),
            Op::And => self.vv(d, a, b, |x, y| x & y),
            Op::AndVu => self.vs(d, a, self.u[b], |x, y| x & y),
            Op::AndVi => self.vs(d, a, imm, |x, y| x & y),
            Op::Min => self.vv(d, a, b, min_s),
            Op::MinVu => self.vs(d, a, self.u[b], min_s),
            Op::MinVi => self.vs(d, a, imm, min_s),
            Op::Max => self.vv(d, a, b, max_s),
            Op::MaxVu => self.vs(d, a, self.u[b], max_s),
            Op::MaxVi => self.vs(d, a, imm, max_s),
            Op::Minu => self.vv(d, a, b, u32::min),
            Op::MinuVu => self.vs(d, a, self.u[b], u32::min),
            Op::MinuVi => self.vs(d, a, imm, u32::min),
            Op::Maxu => self.vv(d, a, b, u32::max),
            Op::MaxuVu => self.vs(d, a, self.u[b], u32::max),
            Op::MaxuVi => self.vs(d, a, imm, u32::max),
            Op::Andn => self.vv(d, a, b, |x, y| x & !y),
            Op::AndnVu => self.vs(d, a, self.u[b], |x, y| x & !y),
            Op::Orn => self.vv(d, a, b, |x, y| x | !y),
            Op::OrnVu => self.vs(d, a, self.u[b], |x, y| x | !y),
            Op::Mul => self.vv(d, a, b, u32::wrapping_mul),
            Op::MulVu => self.vs(d, a, self.u[b], u32::wrapping_mul),
            Op::MulVi => self.vs(d, a, imm, u32::wrapping_mul),
            Op::Mulh => self.vv(d, a, b, mulh),
            Op::MulhVu => self.vs(d, a, self.u[b], mulh),
            Op::Mulhsu => self.vv(d, a, b, mulhsu),
            Op::Mulhu => self.vv(d, a, b, mulhu),
            Op::MulhuVu => self.vs(d, a, self.u[b], mulhu),
            Op::Mac => {
                let (x, y) = (self.v[a], self.v[b]);
                let acc = self.v[d];
                self.vlane(d, |l| acc[l].wrapping_add(x[l].wrapping_mul(y[l])));
            }
            Op::MacVu => {
                let s = self.u[b];
                self.vv(d, d, a, |acc, x| acc.wrapping_add(x.wrapping_mul(s)));
            }
            Op::Xnor => self.vv(d, a, b, |x, y| !(x ^ y)),
            Op::Rol => self.vv(d, a, b, |x, y| x.rotate_left(y & 31)),
            Op::Ror => self.vv(d, a, b, |x, y| x.rotate_right(y & 31)),
            Op::CzeroEqz => self.vv(d, a, b, |x, y| if y == 0 { 0 } else { x }),
            Op::CzeroNez => self.vv(d, a, b, |x, y| if y != 0 { 0 } else { x }),
            Op::AddsatI32 => self.vv(d, a, b, addsat_s),
            Op::AddsatU32 => self.vv(d, a, b, u32::saturating_add),
            Op::SubsatI32 => self.vv(d, a, b, subsat_s),
            Op::SubsatU32 => self.vv(d, a, b, u32::saturating_sub),
            Op::Bfm => self.vv(d, a, b, bitfield_mask),
            Op::Mulwu => {
                let (x, y) = (self.v[a], self.v[b]);
                self.v64(d, |l| u64::from(x[l]) * u64::from(y[l]));
            }
            Op::Add64 => {
                let (x, y) = (self.vpair(a), self.vpair(b));
                self.v64(d, |l| x[l].wrapping_add(y[l]));
            }
            Op::Sub64 => {
                let (x, y) = (self.vpair(a), self.vpair(b));
                self.v64(d, |l| x[l].wrapping_sub(y[l]));
            }
            Op::Addsx64 => {
                let (x, y) = (self.vpair(a), self.v[b]);
                self.v64(d, |l| x[l].wrapping_add(sext64(y[l])));
            }
            Op::Addzx64 => {
                let (x, y) = (self.vpair(a), self.v[b]);
                self.v64(d, |l| x[l].wrapping_add(u64::from(y[l])));
            }
            Op::Addzx64Vu => {
                let (x, s) = (self.vpair(a), u64::from(self.u[b]));
                self.v64(d, |l| x[l].wrapping_add(s));
            }
            Op::Sll64 => {
                let (x, y) = (self.vpair(a), self.v[b]);
                self.v64(d, |l| x[l] << (y[l] & 63));
            }
            Op::Srl64 => {
                let (x, y) = (self.vpair(a), self.v[b]);
                self.v64(d, |l| x[l] >> (y[l] & 63));
            }
            Op::Sra64 => {
                let (x, y) = (self.vpair(a), self.v[b]);
                self.v64(d, |l| ((x[l] as i64) >> (y[l] & 63)) as u64);
            }
            Op::Mulw => {
                let (x, y) = (self.v[a], self.v[b]);
                self.v64(d, |l| sext64(x[l]).wrapping_mul(sext64(y[l])));
            }
            Op::SubrVu => self.vs(d, a, self.u[b], |x, s| s.wrapping_sub(x)),
            Op::SubrVi => self.vs(d, a, imm, |x, s| s.wrapping_sub(x)),
            Op::SllrVu => self.vs(d, a, self.u[b], |x, s| s << (x & 31)),
            Op::SrlrVu => self.vs(d, a, self.u[b], |x, s| s >> (x & 31)),
            Op::SrarVu => self.vs(d, a, self.u[b], |x, s| ((s as i32) >> (x & 31)) as u32),
            Op::Mbcnt => {
                let (x, m) = (self.v[a], self.u[b]);
                // Running count of the mask bits below each lane: no popcount per lane.
                let mut below = [0u32; LANES];
                let mut n = 0;
                for (l, c) in below.iter_mut().enumerate() {
                    *c = n;
                    n += (m >> l) & 1;
                }
                self.vlane(d, |l| x[l].wrapping_add(below[l]));
            }
            Op::Cndmask => {
                let (x, m, old) = (self.v[a], self.u[b], self.v[d]);
                // A select by an all-ones/all-zeros lane mask vectorises; a branch does not.
                self.vlane(d, |l| {
                    let pick = 0u32.wrapping_sub((m >> l) & 1);
                    (x[l] & pick) | (old[l] & !pick)
                });
            }
            Op::MovrelS => {
                let index = u64::from(inst.rs1) + u64::from(self.u[b]);
                let src = if index < u64::from(self.vgprs.min(NUM_VREGS as u32)) {
                    self.v[index as usize]
                } else {
                    [0; LANES]
                };
                self.vput(d, &src);
            }
            Op::MovrelD => {
                let index = u64::from(inst.rd) + u64::from(self.u[b]);
                if index < u64::from(self.vgprs.min(NUM_VREGS as u32)) {
                    let src = self.v[a];
                    self.vput(index as usize, &src);
                }
            }
            // ---- VALU unary, R1 / R1U / LI ----
            Op::Mov => self.v1(d, a, |x| x),
            Op::MovVu => {
                let s = self.u[a];
                self.vput(d, &[s; LANES]);
            }
            Op::Not => self.v1(d, a, |x| !x),
            Op::Clz => self.v1(d, a, u32::leading_zeros),
            Op::Ctz => self.v1(d, a, u32::trailing_zeros),
            Op::Cpop => self.v1(d, a, u32::count_ones),
            Op::Brev => self.v1(d, a, u32::reverse_bits),
            Op::Rev8 => self.v1(d, a, u32::swap_bytes),
            Op::SextB => self.v1(d, a, sext8),
            Op::SextH => self.v1(d, a, sext16),
            Op::ZextB => self.v1(d, a, |x| x & 0xff),
            Op::ZextH => self.v1(d, a, |x| x & 0xffff),
            Op::Laneid => self.vlane(d, |l| l as u32),
            Op::Neg => self.v1(d, a, |x| 0u32.wrapping_sub(x)),
            Op::Abs => self.v1(d, a, |x| (x as i32).wrapping_abs() as u32),
            Op::Mov64 => {
                let x = self.vpair(a);
                self.vput64(d, &x);
            }
            Op::Mov64Vu => {
                let s = self.u64(a);
                self.vput64(d, &[s; LANES]);
            }
            Op::Movi => self.vput(d, &[imm; LANES]),
            // ---- compares to uniform masks ----
            Op::CmpEqI32 => self.cmp_vv(d, a, b, |x, y| x == y),
            Op::CmpNeI32 => self.cmp_vv(d, a, b, |x, y| x != y),
            Op::CmpLtI32 => self.cmp_vv(d, a, b, lt_s),
            Op::CmpGeI32 => self.cmp_vv(d, a, b, |x, y| !lt_s(x, y)),
            Op::CmpLtU32 => self.cmp_vv(d, a, b, |x, y| x < y),
            Op::CmpGeU32 => self.cmp_vv(d, a, b, |x, y| x >= y),
            Op::CmpEqI32Vu => self.cmp_vs(d, a, self.u[b], |x, y| x == y),
            Op::CmpNeI32Vu => self.cmp_vs(d, a, self.u[b], |x, y| x != y),
            Op::CmpLtI32Vu => self.cmp_vs(d, a, self.u[b], lt_s),
            Op::CmpGeI32Vu => self.cmp_vs(d, a, self.u[b], |x, y| !lt_s(x, y)),
            Op::CmpLtU32Vu => self.cmp_vs(d, a, self.u[b], |x, y| x < y),
            Op::CmpGeU32Vu => self.cmp_vs(d, a, self.u[b], |x, y| x >= y),
            Op::CmpEqI64 => self.cmp64(d, a, b, |x, y| x == y),
            Op::CmpNeI64 => self.cmp64(d, a, b, |x, y| x != y),
            Op::CmpLtI64 => self.cmp64(d, a, b, |x, y| (x as i64) < (y as i64)),
            Op::CmpGeI64 => self.cmp64(d, a, b, |x, y| (x as i64) >= (y as i64)),
            Op::CmpLtU64 => self.cmp64(d, a, b, |x, y| x < y),
            Op::CmpGeU64 => self.cmp64(d, a, b, |x, y| x >= y),
            Op::CmpEqI32Vi => self.cmp_vs(d, a, imm, |x, y| x == y),
            Op::CmpNeI32Vi => self.cmp_vs(d, a, imm, |x, y| x != y),
            Op::CmpLtI32Vi => self.cmp_vs(d, a, imm, lt_s),
            Op::CmpGeI32Vi => self.cmp_vs(d, a, imm, |x, y| !lt_s(x, y)),
            Op::CmpLtU32Vi => self.cmp_vs(d, a, imm, |x, y| x < y),
            Op::CmpGeU32Vi => self.cmp_vs(d, a, imm, |x, y| x >= y),
            Op::CmpGtI32Vi => self.cmp_vs(d, a, imm, |x, y| lt_s(y, x)),
            Op::CmpGtU32Vi => self.cmp_vs(d, a, imm, |x, y| x > y),
            // ---- X format ----
            Op::Sel => self.vvv(d, a, b, c, |x, y, z| if z != 0 { x } else { y }),
            Op::BfeU32 => self.vvv(d, a, b, c, bfe_u),
            Op::BfeI32 => self.vvv(d, a, b, c, bfe_i),
            Op::Bfi => self.vvv(d, a, b, c, |m, x, y| (m & x) | (!m & y)),
            Op::PermB32 => self.vvv(d, a, b, c, perm),
            Op::MadU32 => self.vvv(d, a, b, c, |x, y, z| x.wrapping_mul(y).wrapping_add(z)),
            Op::Mad64U32 => {
                let (x, y, z) = (self.v[a], self.v[b], self.vpair(c));
                self.v64(d, |l| {
                    (u64::from(x[l]) * u64::from(y[l])).wrapping_add(z[l])
                });
            }
            Op::Mad64I32 => {
                let (x, y, z) = (self.v[a], self.v[b], self.vpair(c));
                self.v64(d, |l| {
                    sext64(x[l]).wrapping_mul(sext64(y[l])).wrapping_add(z[l])
                });
            }
            Op::Alignbit => self.vvv(d, a, b, c, |x, y, s| {
                (((u64::from(x) << 32) | u64::from(y)) >> (s & 31)) as u32
            }),
            Op::Med3I32 => self.vvv(d, a, b, c, med3_s),
            Op::Med3U32 => self.vvv(d, a, b, c, med3_u),
            Op::Dp4aI32 => self.vvv(d, a, b, c, dp4a_s),
            Op::Dp4aU32 => self.vvv(d, a, b, c, dp4a_u),
            Op::Sel64 => {
                let (x, y, z) = (self.vpair(a), self.vpair(b), self.v[c]);
                self.v64(d, |l| if z[l] != 0 { x[l] } else { y[l] });
            }
            // ---- XL literal ----
            Op::MovVl => self.vput(d, &[imm; LANES]),
            Op::AddVl => self.vs(d, a, imm, u32::wrapping_add),
            Op::SubrVl => self.vs(d, a, imm, |x, s| s.wrapping_sub(x)),
            Op::AndVl => self.vs(d, a, imm, |x, s| x & s),
            Op::OrVl => self.vs(d, a, imm, |x, s| x | s),
            Op::XorVl => self.vs(d, a, imm, |x, s| x ^ s),
            Op::MulVl => self.vs(d, a, imm, u32::wrapping_mul),
            Op::Addsx64Vl => {
                let x = self.vpair(a);
                let s = sext64(imm);
                self.v64(d, |l| x[l].wrapping_add(s));
            }
            // ---- SALU, UR ----
            Op::Uadd => self.u[d] = self.u[a].wrapping_add(self.u[b]),
            Op::Usub => self.u[d] = self.u[a].wrapping_sub(self.u[b]),
            Op::Usll => self.u[d] = self.u[a] << (self.u[b] & 31),
            Op::Uslt => self.u[d] = b2u(lt_s(self.u[a], self.u[b])),
            Op::Usltu => self.u[d] = b2u(self.u[a] < self.u[b]),
            Op::Uxor => self.u[d] = self.u[a] ^ self.u[b],
            Op::Usrl => self.u[d] = self.u[a] >> (self.u[b] & 31),
            Op::Usra => self.u[d] = ((self.u[a] as i32) >> (self.u[b] & 31)) as u32,
            Op::Uor => self.u[d] = self.u[a] | self.u[b],
            Op::Uand => self.u[d] = self.u[a] & self.u[b],
            Op::Umin => self.u[d] = min_s(self.u[a], self.u[b]),
            Op::Umax => self.u[d] = max_s(self.u[a], self.u[b]),
            Op::Uminu => self.u[d] = self.u[a].min(self.u[b]),
            Op::Umaxu => self.u[d] = self.u[a].max(self.u[b]),
            Op::Uandn => self.u[d] = self.u[a] & !self.u[b],
            Op::Uorn => self.u[d] = self.u[a] | !self.u[b],
            Op::Uxnor => self.u[d] = !(self.u[a] ^ self.u[b]),
            Op::Umul => self.u[d] = self.u[a].wrapping_mul(self.u[b]),
            Op::Umulh => self.u[d] = mulh(self.u[a], self.u[b]),
            Op::Umulhu => self.u[d] = mulhu(self.u[a], self.u[b]),
            Op::Umulhsu => self.u[d] = mulhsu(self.u[a], self.u[b]),
            Op::UczeroEqz => self.u[d] = if self.u[b] == 0 { 0 } else { self.u[a] },
            Op::UczeroNez => self.u[d] = if self.u[b] != 0 { 0 } else { self.u[a] },
            Op::Useq => self.u[d] = b2u(self.u[a] == self.u[b]),
            Op::Usne => self.u[d] = b2u(self.u[a] != self.u[b]),
            Op::Usge => self.u[d] = b2u(!lt_s(self.u[a], self.u[b])),
            Op::Usgeu => self.u[d] = b2u(self.u[a] >= self.u[b]),
            Op::Ubfm => self.u[d] = bitfield_mask(self.u[a], self.u[b]),
            Op::UbfeU32 => {
                let ctl = self.u[b];
                self.u[d] = bfe_u(self.u[a], ctl & 31, (ctl >> 16) & 63);
            }
            Op::UbfeI32 => {
                let ctl = self.u[b];
                self.u[d] = bfe_i(self.u[a], ctl & 31, (ctl >> 16) & 63);
            }
            Op::Uadd64 => {
                let r = self.u64(a).wrapping_add(self.u64(b));
                self.set_u64(d, r);
            }
            Op::Usub64 => {
                let r = self.u64(a).wrapping_sub(self.u64(b));
                self.set_u64(d, r);
            }
            Op::Uaddsx64 => {
                let r = self.u64(a).wrapping_add(sext64(self.u[b]));
                self.set_u64(d, r);
            }
            Op::Uaddzx64 => {
                let r = self.u64(a).wrapping_add(u64::from(self.u[b]));
                self.set_u64(d, r);
            }
            Op::Urol => self.u[d] = self.u[a].rotate_left(self.u[b] & 31),
            Op::Uror => self.u[d] = self.u[a].rotate_right(self.u[b] & 31),
            // ---- SALU, UI ----
            Op::Uaddi => self.u[d] = self.u[a].wrapping_add(imm),
            Op::Uandi => self.u[d] = self.u[a] & imm,
            Op::Uori => self.u[d] = self.u[a] | imm,
            Op::Uxori => self.u[d] = self.u[a] ^ imm,
            Op::Uslli => self.u[d] = self.u[a] << (imm & 31),
            Op::Usrli => self.u[d] = self.u[a] >> (imm & 31),
            Op::Usrai => self.u[d] = ((self.u[a] as i32) >> (imm & 31)) as u32,
            Op::Uslti => self.u[d] = b2u(lt_s(self.u[a], imm)),
            Op::Usltiu => self.u[d] = b2u(self.u[a] < imm),
            Op::Useqi => self.u[d] = b2u(self.u[a] == imm),
            Op::Usnei => self.u[d] = b2u(self.u[a] != imm),
            Op::Umuli => self.u[d] = self.u[a].wrapping_mul(imm),
            Op::Uadd64i => {
                let r = self.u64(a).wrapping_add(sext64(imm));
                self.set_u64(d, r);
            }
            // ---- SALU unary and EXEC, U1 ----
            Op::Umov => self.u[d] = self.u[a],
            Op::Unot => self.u[d] = !self.u[a],
            Op::Uclz => self.u[d] = self.u[a].leading_zeros(),
            Op::Uctz => self.u[d] = self.u[a].trailing_zeros(),
            Op::Ucpop => self.u[d] = self.u[a].count_ones(),
            Op::Ubrev => self.u[d] = self.u[a].reverse_bits(),
            Op::UsextB => self.u[d] = sext8(self.u[a]),
            Op::UsextH => self.u[d] = sext16(self.u[a]),
            Op::Umov64 => {
                let r = self.u64(a);
                self.set_u64(d, r);
            }
            Op::Uwqm => self.u[d] = wqm(self.u[a]),
            Op::ExecGet => self.u[d] = self.exec(),
            Op::ExecSet => self.set_exec(self.u[a]),
            Op::ExecWqm => {
                let old = self.exec();
                self.u[d] = old;
                self.set_exec(wqm(old));
            }
            Op::SaveexecAnd => self.saveexec(d, a, |e, m| e & m),
            Op::SaveexecOr => self.saveexec(d, a, |e, m| e | m),
            Op::SaveexecXor => self.saveexec(d, a, |e, m| e ^ m),
            Op::SaveexecAndn1 => self.saveexec(d, a, |e, m| m & !e),
            Op::SaveexecAndn2 => self.saveexec(d, a, |e, m| e & !m),
            Op::SaveexecMov => self.saveexec(d, a, |_, m| m),
            // ---- uniform immediates / PC-relative, ULI ----
            Op::Umovi => self.u[d] = imm,
            Op::Upc => self.u[d] = pc.wrapping_add(imm),
            Op::Upca => {
                let target = (i64::from(pc) + i64::from(imm as i32)) as u64;
                let r = self.csr.code_base().wrapping_add(target);
                self.set_u64(d, r);
            }
            // ---- uniform + literal, UL ----
            Op::UmovL => self.u[d] = imm,
            Op::UaddL => self.u[d] = self.u[a].wrapping_add(imm),
            Op::UandL => self.u[d] = self.u[a] & imm,
            Op::UorL => self.u[d] = self.u[a] | imm,
            Op::UxorL => self.u[d] = self.u[a] ^ imm,
            Op::UmulL => self.u[d] = self.u[a].wrapping_mul(imm),
            Op::UseqL => self.u[d] = b2u(self.u[a] == imm),
            Op::UsltL => self.u[d] = b2u(lt_s(self.u[a], imm)),
            Op::UsltuL => self.u[d] = b2u(self.u[a] < imm),
            Op::Uadd64L => {
                let r = self.u64(a).wrapping_add(sext64(imm));
                self.set_u64(d, r);
            }
            // ---- branches and jumps: targets were resolved against this PC ----
            Op::Jmp => next = imm,
            Op::Bexecz => {
                if self.exec() == 0 {
                    next = imm;
                }
            }
            Op::Bexecnz => {
                if self.exec() != 0 {
                    next = imm;
                }
            }
            Op::Jal => {
                self.u[d] = next;
                next = imm;
            }
            Op::Bz => {
                if self.u[a] == 0 {
                    next = imm;
                }
            }
            Op::Bnz => {
                if self.u[a] != 0 {
                    next = imm;
                }
            }
            Op::Bnone => {
                if self.u[a] & self.exec() == 0 {
                    next = imm;
                }
            }
            Op::Bany => {
                if self.u[a] & self.exec() != 0 {
                    next = imm;
                }
            }
            Op::Jr => next = self.u[a].wrapping_add(imm) & !3,
            Op::Jalr => {
                let target = self.u[a].wrapping_add(imm) & !3;
                self.u[d] = next;
                next = target;
            }
            // ---- provisional system instructions ----
            Op::Endpgm => {
                self.drain();
                self.retire(core, 1, 0);
                self.status = WarpStatus::Ended;
                return None;
            }
            Op::Nop => {}
            Op::Barrier => {
                self.retire(core, 1, 0);
                self.pc = next;
                self.status = WarpStatus::AtBarrier;
                return None;
            }
            Op::Waitcnt => self.waitcnt(prog, imm),
            Op::Csrr => match self.csr_read(imm, core) {
                Some(x) => self.u[d] = x,
                None => return self.trap_at(pc, CAUSE_ILLEGAL_CSR, imm),
            },
            Op::Csrw | Op::Csrs | Op::Csrc => {
                let how = match op {
                    Op::Csrw => CsrWrite::Write,
                    Op::Csrs => CsrWrite::Set,
                    _ => CsrWrite::Clear,
                };
                if let Err((cause, info)) = self.csr_write(imm, how, self.u[a], core) {
                    return self.trap_at(pc, cause, info);
                }
            }
            // ---- memory and cache control: to the environment, without first asking
            // the floating-point dispatch ----
            crate::exec::mem::memory_ops!() => {
                if let Err(f) = env.issue_async(self, prog, &inst, pc) {
                    return self.trap_at(pc, f.cause, f.info);
                }
            }
            // ---- floating point (crate::fp), then anything else asynchronous ----
            _ => match self.exec_fp(op, &inst, pc) {
                crate::exec::fp::FpOutcome::Done => {}
                crate::exec::fp::FpOutcome::Trap(cause, info) => {
                    return self.trap_at(pc, cause, info)
                }
                crate::exec::fp::FpOutcome::NotFp => {
                    if let Err(f) = env.issue_async(self, prog, &inst, pc) {
                        return self.trap_at(pc, f.cause, f.info);
                    }
                }
            },
        }
        self.pc = next;
        let lane_ops = self.exec_lanes() & 0u64.wrapping_sub(u64::from(inst.vector));
        self.retire(core, 1, lane_ops);
        Some(next)
    }

    /// `waitcnt`, its thresholds resolved when the program was pre-decoded.
    #[inline]
    fn waitcnt(&mut self, prog: &Program, index: u32) {
        if self.queue.is_empty() {
            return;
        }
        if let Some(t) = prog.waits(index) {
            self.wait_counters(t);
        }
    }
}
