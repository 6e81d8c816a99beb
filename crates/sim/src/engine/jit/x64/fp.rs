//! f32 `fadd`/`fsub`/`fmul`/`ffma` in AVX-512 runs, on the host's floating-point unit.
//!
//! Why the result is the interpreter's, bit for bit and flag for flag (the argument of
//! `exec/fp/fpu.rs`, whose rows are the interpreter's fast path, carried over):
//! - every translated instruction rounds in `rne` (statically, or `dyn` while `mode` says
//!   `rne`), with no f32 flushing and no floating-point trap enabled: a block holding one
//!   runs only while `mode` allows what its instructions need (the entry's `fp` bits,
//!   checked at the block's head; `mode` is written only by interpreted CSR
//!   instructions, so it cannot change while translated code runs);
//! - a program with f32 instructions runs its translated code under MXCSR = `0x1f80`
//!   (round to nearest even, every exception masked, no FTZ or DAZ) with clear flags: the
//!   prologue saves the caller's MXCSR and loads that one if it differs, the epilogue
//!   reads the flags raised and restores the caller's MXCSR if the code changed it.
//!   Translated code calls nothing, so the flags at the exit are exactly those of the
//!   f32 instructions it ran: PE = NX, OE = OF, UE = UF (tininess after rounding, as the
//!   interpreter), ZE = DZ, IE = NV; DE has no counterpart and is dropped. The entry ORs
//!   them into the warp's `fflags`, which no translated instruction reads;
//! - in the masked variant the operation is zero-masked by EXEC, and AVX-512 raises no
//!   flag for a masked-out element (inactive lanes are then merged back as for any
//!   lane-local instruction);
//! - NaN results are where x86 and the interpreter differ: x86 propagates a payload or
//!   gives its negative default NaN, the interpreter the canonical NaN `0x7fc0_0000`; and
//!   `ffma` of zero, infinity and a quiet NaN signals NV in the interpreter (as RISC-V)
//!   but not on x86. So each half's result is classified, and where an active lane is
//!   NaN (rare: off the straight path) the lanes are made canonical and, for `ffma`, NV is
//!   raised in MXCSR if an active lane multiplies a zero by an infinity (if its addend is
//!   not a quiet NaN, x86 has raised NV already).
//!
//! `fmin`/`fmax` do not round and raise only NV: they run with exceptions suppressed and
//! raise NV themselves (`min_max_512`).
//!
//! The compares (`fcmp.*.f32`) are `vcmpps` into opmasks with the predicate of the same
//! IEEE relation and exception behaviour: `eq`, `ne`, ordered and unordered quiet (NV for
//! a signaling NaN only), `lt le gt ge` signaling (NV for any NaN), as the interpreter's
//! (RISC-V's `feq`, `flt`, `fle`). Outside runs they load into `zmm16..zmm17`, which
//! nothing else holds there, and leave `zmm0..zmm15` as the AVX2 code has them.

use super::avx512::{k, z, Mask};
use super::emitter::{Emitter, NanFix};
use super::layout::{row, ureg, CTX_EXEC, CTX_MXCSR, CTX_MXCSR_OUT, K_FABS, K_FNAN, K_SIGN};
use crate::exec::fp::{Arith, Cond};
use crate::program::{packed, Inst};
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};
use iced_x86::{Code, Instruction, MemoryOperand, Register};

/// MXCSR while translated f32 code runs: round to nearest even, every exception masked,
/// no flushing, no flags.
pub(super) const MXCSR_RUN: i32 = 0x1f80;

/// `vfpclassps` categories: quiet and signaling NaN; signaling NaN; ±0; ±infinity.
const CLASS_NAN: u32 = 0x81;
const CLASS_SNAN: u32 = 0x80;
const CLASS_ZERO: u32 = 0x06;
const CLASS_INF: u32 = 0x18;

impl Emitter<'_> {
    /// The prologue's part for a program with f32 instructions: the caller's MXCSR saved,
    /// [`MXCSR_RUN`] loaded if it differs.
    pub(super) fn mxcsr_enter(&mut self) {
        dynasm!(self.ops
            ; .arch x64
            ; vstmxcsr [rdi + CTX_MXCSR]
            ; cmp DWORD [rdi + CTX_MXCSR], MXCSR_RUN
            ; je >same
            ; mov DWORD [rdi + CTX_MXCSR_OUT], MXCSR_RUN
            ; vldmxcsr [rdi + CTX_MXCSR_OUT]
            ; same:
        );
    }

    /// The epilogue's part: MXCSR (its flags) out, the caller's back if it differs. Keeps
    /// `eax` (the next PC); uses `ecx`.
    pub(super) fn mxcsr_exit(&mut self) {
        dynasm!(self.ops
            ; .arch x64
            ; vstmxcsr [rdi + CTX_MXCSR_OUT]
            ; mov ecx, [rdi + CTX_MXCSR_OUT]
            ; cmp ecx, [rdi + CTX_MXCSR]
            ; je >same
            ; vldmxcsr [rdi + CTX_MXCSR]
            ; same:
        );
    }

    /// `zmm[dst]` = `op` over the half of the row starting at quarter `q` of the sources in
    /// `src` (`v[rs1]`, `v[rs2]`, and `v[rs3]` for `ffma`, in registers), with `inst`'s
    /// modifiers; zero in the lanes EXEC leaves off in the masked variant. `dst` is none
    /// of the sources. Uses `zmm4..zmm6`, `k1`, `k2`.
    pub(super) fn fp_512(&mut self, op: Arith, inst: &Inst, dst: u8, src: [u8; 3], q: usize) {
        let exec = self.masked.then_some(if q < 2 { 3 } else { 4 });
        let neg = (inst.imm >> packed::NEG) & 7;
        let abs = (inst.imm >> packed::ABS) & 7;
        let n = if op == Arith::Fma { 3 } else { 2 };
        let mut x = src;
        for (j, reg) in x.iter_mut().enumerate().take(n) {
            let (neg, abs) = (neg >> j & 1 != 0, abs >> j & 1 != 0);
            if !neg && !abs {
                continue;
            }
            // `abs` clears the sign, then `neg` flips it (`exec/fp`'s order).
            let scratch = 4 + j as u8;
            if abs {
                self.z2c(
                    Code::EVEX_Vpandd_zmm_k1z_zmm_zmmm512b32,
                    scratch,
                    *reg,
                    K_FABS,
                );
            }
            if neg {
                let from = if abs { scratch } else { *reg };
                self.z2c(
                    Code::EVEX_Vpxord_zmm_k1z_zmm_zmmm512b32,
                    scratch,
                    from,
                    K_SIGN,
                );
            }
            *reg = scratch;
        }
        let code = match op {
            Arith::Add => Code::EVEX_Vaddps_zmm_k1z_zmm_zmmm512b32_er,
            Arith::Sub => Code::EVEX_Vsubps_zmm_k1z_zmm_zmmm512b32_er,
            Arith::Mul => Code::EVEX_Vmulps_zmm_k1z_zmm_zmmm512b32_er,
            Arith::Fma => {
                self.move_half(dst, x[2]);
                Code::EVEX_Vfmadd231ps_zmm_k1z_zmm_zmmm512b32_er
            }
            Arith::Min | Arith::Max => {
                self.min_max_512(op, dst, [x[0], x[1]], exec);
                return self.nan_check(dst, None, exec);
            }
        };
        self.z3_masked(code, dst, x[0], x[1], exec.map_or(Mask::All, Mask::Zero));
        let product = (op == Arith::Fma).then_some((src[0], src[1]));
        self.nan_check(dst, product, exec);
    }

    /// minimumNumber or maximumNumber of `zmm[a]`, `zmm[b]` into `zmm[dst]` (zero where EXEC
    /// is off): `vminps`/`vmaxps` without exceptions (they signal for quiet NaNs too, and
    /// give the second operand for a NaN or two zeros), then the IEEE answer where they
    /// differ from it: equal operands (±0 and −0: min is their OR, max their AND), `b`
    /// NaN (then `a`; two NaNs are left for the NaN check to make canonical); NV where an
    /// active lane has a signaling NaN operand.
    fn min_max_512(&mut self, op: Arith, dst: u8, [a, b]: [u8; 2], exec: Option<u8>) {
        let (code, join) = if op == Arith::Min {
            (
                Code::EVEX_Vminps_zmm_k1z_zmm_zmmm512b32_sae,
                Code::EVEX_Vpord_zmm_k1z_zmm_zmmm512b32,
            )
        } else {
            (
                Code::EVEX_Vmaxps_zmm_k1z_zmm_zmmm512b32_sae,
                Code::EVEX_Vpandd_zmm_k1z_zmm_zmmm512b32,
            )
        };
        let quiet = |e: &mut Self, made: Result<Instruction, iced_x86::IcedError>, m: Mask| {
            e.put(
                made.map(|mut i| {
                    i.set_suppress_all_exceptions(true);
                    i
                }),
                m,
            )
        };
        let under = |m: Option<u8>| m.map_or(Mask::All, Mask::Merge);
        quiet(
            self,
            Instruction::with3(code, z(dst), z(a), z(b)),
            exec.map_or(Mask::All, Mask::Zero),
        );
        // Equal (ordered) operands: their OR or AND.
        quiet(
            self,
            Instruction::with4(
                Code::EVEX_Vcmpps_kr_k1_zmm_zmmm512b32_imm8_sae,
                k(1),
                z(a),
                z(b),
                0u32,
            ),
            under(exec),
        );
        self.z3_masked(join, dst, a, b, Mask::Merge(1));
        // `b` NaN: `a`.
        self.put(
            Instruction::with3(
                Code::EVEX_Vfpclassps_kr_k1_zmmm512b32_imm8,
                k(1),
                z(b),
                CLASS_NAN,
            ),
            under(exec),
        );
        self.put(
            Instruction::with2(Code::EVEX_Vmovdqa32_zmm_k1z_zmmm512, z(dst), z(a)),
            Mask::Merge(1),
        );
        // A signaling NaN operand in an active lane raises NV.
        for (kd, r) in [(1, a), (2, b)] {
            self.put(
                Instruction::with3(
                    Code::EVEX_Vfpclassps_kr_k1_zmmm512b32_imm8,
                    k(kd),
                    z(r),
                    CLASS_SNAN,
                ),
                under(exec),
            );
        }
        self.put(
            Instruction::with2(Code::VEX_Kortestw_kr_kr, k(1), k(2)),
            Mask::All,
        );
        let raise = self.ops.new_dynamic_label();
        let back = self.ops.new_dynamic_label();
        dynasm!(self.ops ; .arch x64 ; jnz =>raise ; =>back);
        self.nv_raises.push((raise, back));
    }

    /// The check of a result half for NaN lanes ([`NanFix`]), which only active lanes can
    /// be (the others are zero).
    fn nan_check(&mut self, dst: u8, product: Option<(u8, u8)>, exec: Option<u8>) {
        self.put(
            Instruction::with3(
                Code::EVEX_Vfpclassps_kr_k1_zmmm512b32_imm8,
                k(1),
                z(dst),
                CLASS_NAN,
            ),
            Mask::All,
        );
        let label = self.ops.new_dynamic_label();
        let back = self.ops.new_dynamic_label();
        self.put(
            Instruction::with2(Code::VEX_Kortestw_kr_kr, k(1), k(1)),
            Mask::All,
        );
        dynasm!(self.ops ; .arch x64 ; jnz =>label ; =>back);
        self.nan_fixes.push(NanFix {
            label,
            back,
            dst,
            product,
            exec,
        });
    }

    /// `fcmp.*.f32`: `u[rd]` = the lanes of EXEC where `cond(v[rs1], v[rs2])` holds. In the
    /// masked variant only EXEC's lanes are compared (no flag from the others). Uses
    /// `zmm16`, `zmm17`, `k1`, `k2`, `k5`, `k6`, `eax`.
    pub(super) fn fcmp_512(&mut self, inst: &Inst, cond: Cond, masked: bool) {
        // vcmpps predicates: EQ_OQ, NEQ_UQ, LT_OS, LE_OS, GT_OS, GE_OS, ORD_Q, UNORD_Q.
        let predicate: u32 = match cond {
            Cond::Eq => 0x00,
            Cond::Ne => 0x04,
            Cond::Lt => 0x01,
            Cond::Le => 0x02,
            Cond::Gt => 0x0e,
            Cond::Ge => 0x0d,
            Cond::Ordered => 0x07,
            Cond::Unordered => 0x03,
        };
        if masked {
            self.put(
                Instruction::with2(
                    Code::VEX_Kmovd_kr_km32,
                    k(5),
                    MemoryOperand::with_base_displ(Register::RDI, i64::from(CTX_EXEC)),
                ),
                Mask::All,
            );
            self.put(
                Instruction::with3(Code::VEX_Kshiftrd_kr_kr_imm8, k(6), k(5), 16u32),
                Mask::All,
            );
        }
        for (half, kd) in [(0usize, 1u8), (1, 2)] {
            let q = 2 * half;
            self.put(
                Instruction::with2(
                    Code::EVEX_Vmovdqu32_zmm_k1z_zmmm512,
                    z(16),
                    MemoryOperand::with_base_displ(Register::RSI, i64::from(row(inst.rs1, q))),
                ),
                Mask::All,
            );
            self.put(
                Instruction::with4(
                    Code::EVEX_Vcmpps_kr_k1_zmm_zmmm512b32_imm8_sae,
                    k(kd),
                    z(16),
                    MemoryOperand::with_base_displ(Register::RSI, i64::from(row(inst.rs2, q))),
                    predicate,
                ),
                if masked {
                    Mask::Merge(5 + half as u8)
                } else {
                    Mask::All
                },
            );
        }
        // Lanes 16..32 (k2) above lanes 0..16 (k1).
        self.put(
            Instruction::with3(Code::VEX_Kunpckwd_kr_kr_kr, k(1), k(2), k(1)),
            Mask::All,
        );
        self.put(
            Instruction::with2(Code::VEX_Kmovd_r32_kr, Register::EAX, k(1)),
            Mask::All,
        );
        let at = ureg(inst.rd);
        dynasm!(self.ops
            ; .arch x64
            ; and eax, [rdi + CTX_EXEC]
            ; mov [rdx + at], eax
        );
    }

    /// The block's [`NanFix`] paths and NV raises.
    pub(super) fn emit_nan_fixes(&mut self) {
        for (raise, back) in std::mem::take(&mut self.nv_raises) {
            dynasm!(self.ops
                ; .arch x64
                ; =>raise
                ; vstmxcsr [rdi + CTX_MXCSR_OUT]
                ; or DWORD [rdi + CTX_MXCSR_OUT], 1
                ; vldmxcsr [rdi + CTX_MXCSR_OUT]
                ; jmp =>back
            );
        }
        for fix in std::mem::take(&mut self.nan_fixes) {
            dynasm!(self.ops ; .arch x64 ; =>fix.label);
            // The NaN lanes (in `k1`) take the canonical NaN.
            self.put(
                Instruction::with2(
                    Code::EVEX_Vpbroadcastd_zmm_k1z_xmmm32,
                    z(fix.dst),
                    MemoryOperand::with_base_displ(Register::R11, i64::from(K_FNAN)),
                ),
                Mask::Merge(1),
            );
            if let Some((a, b)) = fix.product {
                // k1 = a zero times an infinity, k2 = an infinity times a zero, in active
                // lanes.
                let class = |e: &mut Self, kd: u8, r: u8, c: u32, m: Option<u8>| {
                    e.put(
                        Instruction::with3(
                            Code::EVEX_Vfpclassps_kr_k1_zmmm512b32_imm8,
                            k(kd),
                            z(r),
                            c,
                        ),
                        m.map_or(Mask::All, Mask::Merge),
                    );
                };
                class(self, 1, a, CLASS_ZERO, fix.exec);
                class(self, 1, b, CLASS_INF, Some(1));
                class(self, 2, a, CLASS_INF, fix.exec);
                class(self, 2, b, CLASS_ZERO, Some(2));
                self.put(
                    Instruction::with2(Code::VEX_Kortestw_kr_kr, k(1), k(2)),
                    Mask::All,
                );
                let back = fix.back;
                dynasm!(self.ops
                    ; .arch x64
                    ; jz =>back
                    ; vstmxcsr [rdi + CTX_MXCSR_OUT]
                    ; or DWORD [rdi + CTX_MXCSR_OUT], 1
                    ; vldmxcsr [rdi + CTX_MXCSR_OUT]
                );
            }
            let back = fix.back;
            dynasm!(self.ops ; .arch x64 ; jmp =>back);
        }
    }
}
