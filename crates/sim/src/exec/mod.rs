//! Execution semantics: what each instruction does to a warp, one module per family, and
//! [`Warp::execute`], which performs one pre-decoded instruction.

mod hazard;

use crate::env::Env;
use crate::program::{Code, Program};
use crate::state::csr::{num, CsrWrite};
use crate::state::regs::{LANES, NUM_VREGS};
use crate::state::trap::*;
use crate::state::{Core, Warp, WarpStatus};
use ops::{wide, wqm};
use warpkit_isa::Op;

mod csr;
pub(crate) mod fp;
mod lanes;
pub(crate) mod mem;
pub(crate) mod ops;
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
        // Read the instruction where the program holds it: a copy on the stack, whose
        // fields are loaded back right after the store, put a store-to-load round trip on
        // the dispatch's critical path and made branchy uniform loops up to 1.9x slower.
        let Some(inst) = prog.fetch(pc) else {
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
        // The semantics of one form of an operation (`for_each_op!`: the variant, its
        // operation and the kinds of its rd, rs1, rs2, rs3 and immediate). Operations
        // with semantics of their own come first; then the forms, each applying the
        // operation's function of `ops` through a lane loop. A variant whose operation
        // has no function, or whose form has no rule, does not compile.
        macro_rules! form {
            // ---- system ----
            ($w:ident, $Op:ident, endpgm $f:tt) => {{
                $w.drain();
                $w.retire(core, 1, 0);
                $w.status = WarpStatus::Ended;
                return None;
            }};
            ($w:ident, $Op:ident, nop $f:tt) => { () };
            ($w:ident, $Op:ident, barrier $f:tt) => {{
                $w.retire(core, 1, 0);
                $w.pc = next;
                $w.status = WarpStatus::AtBarrier;
                return None;
            }};
            ($w:ident, $Op:ident, waitcnt $f:tt) => { $w.waitcnt(prog, imm) };
            ($w:ident, $Op:ident, csrr $f:tt) => {
                match $w.csr_read(imm, core) {
                    Some(x) => $w.u[d] = x,
                    None => return $w.trap_at(pc, CAUSE_ILLEGAL_CSR, imm),
                }
            };
            ($w:ident, $Op:ident, csrw $f:tt) => { form!(@csr $w, CsrWrite::Write) };
            ($w:ident, $Op:ident, csrs $f:tt) => { form!(@csr $w, CsrWrite::Set) };
            ($w:ident, $Op:ident, csrc $f:tt) => { form!(@csr $w, CsrWrite::Clear) };
            (@csr $w:ident, $how:expr) => {
                if let Err((cause, info)) = $w.csr_write(imm, $how, $w.u[a], core) {
                    return $w.trap_at(pc, cause, info);
                }
            };
            // ---- memory and cache control: the environment performs them ----
            ($w:ident, $Op:ident, load $f:tt) => { form!(@env $w) };
            ($w:ident, $Op:ident, store $f:tt) => { form!(@env $w) };
            ($w:ident, $Op:ident, atomic $f:tt) => { form!(@env $w) };
            ($w:ident, $Op:ident, cache_inv $f:tt) => { form!(@env $w) };
            ($w:ident, $Op:ident, cache_wb $f:tt) => { form!(@env $w) };
            (@env $w:ident) => {
                if let Err(f) = env.issue_async($w, prog, inst, pc) {
                    return $w.trap_at(pc, f.cause, f.info);
                }
            };
            // ---- branches and jumps: targets were resolved against this PC ----
            ($w:ident, $Op:ident, jmp $f:tt) => { next = imm };
            ($w:ident, $Op:ident, bexecz $f:tt) => { if $w.exec() == 0 { next = imm } };
            ($w:ident, $Op:ident, bexecnz $f:tt) => { if $w.exec() != 0 { next = imm } };
            ($w:ident, $Op:ident, jal $f:tt) => {{
                $w.u[d] = next;
                next = imm;
            }};
            ($w:ident, $Op:ident, bz $f:tt) => { if $w.u[a] == 0 { next = imm } };
            ($w:ident, $Op:ident, bnz $f:tt) => { if $w.u[a] != 0 { next = imm } };
            ($w:ident, $Op:ident, bnone $f:tt) => { if $w.u[a] & $w.exec() == 0 { next = imm } };
            ($w:ident, $Op:ident, bany $f:tt) => { if $w.u[a] & $w.exec() != 0 { next = imm } };
            ($w:ident, $Op:ident, jr $f:tt) => { next = $w.u[a].wrapping_add(imm) & !3 };
            ($w:ident, $Op:ident, jalr $f:tt) => {{
                let target = $w.u[a].wrapping_add(imm) & !3;
                $w.u[d] = next;
                next = target;
            }};
            ($w:ident, $Op:ident, upc $f:tt) => { $w.u[d] = pc.wrapping_add(imm) };
            ($w:ident, $Op:ident, upca $f:tt) => {{
                let target = (i64::from(pc) + i64::from(imm as i32)) as u64;
                let r = $w.csr.code_base().wrapping_add(target);
                $w.set_u64(d, r);
            }};
            // ---- EXEC ----
            ($w:ident, $Op:ident, exec_get $f:tt) => { $w.u[d] = $w.exec() };
            ($w:ident, $Op:ident, exec_set $f:tt) => { $w.set_exec($w.u[a]) };
            ($w:ident, $Op:ident, exec_wqm $f:tt) => {{
                let old = $w.exec();
                $w.u[d] = old;
                $w.set_exec(wqm(old));
            }};
            ($w:ident, $Op:ident, saveexec_and $f:tt) => { $w.saveexec(d, a, |e, m| e & m) };
            ($w:ident, $Op:ident, saveexec_or $f:tt) => { $w.saveexec(d, a, |e, m| e | m) };
            ($w:ident, $Op:ident, saveexec_xor $f:tt) => { $w.saveexec(d, a, |e, m| e ^ m) };
            ($w:ident, $Op:ident, saveexec_andn1 $f:tt) => { $w.saveexec(d, a, |e, m| m & !e) };
            ($w:ident, $Op:ident, saveexec_andn2 $f:tt) => { $w.saveexec(d, a, |e, m| e & !m) };
            ($w:ident, $Op:ident, saveexec_mov $f:tt) => { $w.saveexec(d, a, |_, m| m) };
            // ---- lane-dependent vector operations ----
            ($w:ident, $Op:ident, laneid [v _ _ _ _]) => { $w.vlane(d, |l| l as u32) };
            ($w:ident, $Op:ident, mbcnt [v v u _ _]) => {{
                let (x, m) = ($w.v[a], $w.u[b]);
                // Running count of the mask bits below each lane: no popcount per lane.
                let mut below = [0u32; LANES];
                let mut n = 0;
                for (l, c) in below.iter_mut().enumerate() {
                    *c = n;
                    n += (m >> l) & 1;
                }
                $w.vlane(d, |l| x[l].wrapping_add(below[l]));
            }};
            ($w:ident, $Op:ident, cndmask [vx v u _ _]) => {{
                let (x, m, old) = ($w.v[a], $w.u[b], $w.v[d]);
                // A select by an all-ones/all-zeros lane mask vectorises; a branch does not.
                $w.vlane(d, |l| {
                    let pick = 0u32.wrapping_sub((m >> l) & 1);
                    (x[l] & pick) | (old[l] & !pick)
                });
            }};
            ($w:ident, $Op:ident, movrel_s [v v u _ _]) => {{
                let index = u64::from(inst.rs1) + u64::from($w.u[b]);
                let src = if index < u64::from($w.vgprs.min(NUM_VREGS as u32)) {
                    $w.v[index as usize]
                } else {
                    [0; LANES]
                };
                $w.vput(d, &src);
            }};
            ($w:ident, $Op:ident, movrel_d [v v u _ _]) => {{
                let index = u64::from(inst.rd) + u64::from($w.u[b]);
                if index < u64::from($w.vgprs.min(NUM_VREGS as u32)) {
                    let src = $w.v[a];
                    $w.vput(index as usize, &src);
                }
            }};
            // ---- floating point (exec/fp) ----
            ($w:ident, $Op:ident, fadd $f:tt) => { form!(@arith $w, $Op, Add, $f) };
            ($w:ident, $Op:ident, fsub $f:tt) => { form!(@arith $w, $Op, Sub, $f) };
            ($w:ident, $Op:ident, fmul $f:tt) => { form!(@arith $w, $Op, Mul, $f) };
            ($w:ident, $Op:ident, ffma $f:tt) => { form!(@arith $w, $Op, Fma, $f) };
            ($w:ident, $Op:ident, fmin $f:tt) => { form!(@arith $w, $Op, Min, $f) };
            ($w:ident, $Op:ident, fmax $f:tt) => { form!(@arith $w, $Op, Max, $f) };
            (@arith $w:ident, $Op:ident, $k:ident, [v $($r:tt)*]) => {
                form!(@fp $w, $w.fp_f32(Op::$Op, fp::Arith::$k, inst))
            };
            (@arith $w:ident, $Op:ident, $k:ident, [vp $($r:tt)*]) => {
                form!(@fp $w, $w.fp_f64(fp::Arith::$k, inst))
            };
            (@arith $w:ident, $Op:ident, $k:ident, [vh $($r:tt)*]) => {
                form!(@fp $w, $w.fp_f16(fp::Arith::$k, inst))
            };
            ($w:ident, $Op:ident, fdiv [v v v _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::DivF32, inst, pc)) };
            ($w:ident, $Op:ident, fdiv [vp vp vp _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::DivF64, inst, pc)) };
            ($w:ident, $Op:ident, fsqrt [v v _ _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::SqrtF32, inst, pc)) };
            ($w:ident, $Op:ident, fsqrt [vp vp _ _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::SqrtF64, inst, pc)) };
            ($w:ident, $Op:ident, frcp [v v _ _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::Rcp, inst, pc)) };
            ($w:ident, $Op:ident, frsq [v v _ _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::Rsq, inst, pc)) };
            ($w:ident, $Op:ident, fexp2 [v v _ _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::Exp2, inst, pc)) };
            ($w:ident, $Op:ident, flog2 [v v _ _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::Log2, inst, pc)) };
            ($w:ident, $Op:ident, fsin [v v _ _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::Sin, inst, pc)) };
            ($w:ident, $Op:ident, fcos [v v _ _ _]) => { form!(@fp $w, $w.fp_sfu_op(fp::Sfu::Cos, inst, pc)) };
            ($w:ident, $Op:ident, cvt_f32_i32 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::F32I32, inst)) };
            ($w:ident, $Op:ident, cvt_f32_u32 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::F32U32, inst)) };
            ($w:ident, $Op:ident, cvt_i32_f32 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::I32F32, inst)) };
            ($w:ident, $Op:ident, cvt_u32_f32 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::U32F32, inst)) };
            ($w:ident, $Op:ident, cvt_f64_f32 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::F64F32, inst)) };
            ($w:ident, $Op:ident, cvt_f32_f64 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::F32F64, inst)) };
            ($w:ident, $Op:ident, cvt_f64_i32 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::F64I32, inst)) };
            ($w:ident, $Op:ident, cvt_i32_f64 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::I32F64, inst)) };
            ($w:ident, $Op:ident, cvt_f16_f32 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::F16F32, inst)) };
            ($w:ident, $Op:ident, cvt_f32_f16 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::F32F16, inst)) };
            ($w:ident, $Op:ident, cvt_bf16_f32 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::Bf16F32, inst)) };
            ($w:ident, $Op:ident, cvt_f32_bf16 $f:tt) => { form!(@fp $w, $w.fp_cvt(fp::Cvt::F32Bf16, inst)) };
            ($w:ident, $Op:ident, feq $f:tt) => { form!(@fcmp $w, Eq, $f) };
            ($w:ident, $Op:ident, fne $f:tt) => { form!(@fcmp $w, Ne, $f) };
            ($w:ident, $Op:ident, flt $f:tt) => { form!(@fcmp $w, Lt, $f) };
            ($w:ident, $Op:ident, fle $f:tt) => { form!(@fcmp $w, Le, $f) };
            ($w:ident, $Op:ident, fgt $f:tt) => { form!(@fcmp $w, Gt, $f) };
            ($w:ident, $Op:ident, fge $f:tt) => { form!(@fcmp $w, Ge, $f) };
            ($w:ident, $Op:ident, fo $f:tt) => { form!(@fcmp $w, Ordered, $f) };
            ($w:ident, $Op:ident, fu $f:tt) => { form!(@fcmp $w, Unordered, $f) };
            (@fcmp $w:ident, $c:ident, [u v v _ _]) => {
                form!(@fp $w, $w.fp_compare(fp::Cmp::F32, fp::Cond::$c, inst))
            };
            (@fcmp $w:ident, $c:ident, [u vp vp _ _]) => {
                form!(@fp $w, $w.fp_compare(fp::Cmp::F64, fp::Cond::$c, inst))
            };
            (@fcmp $w:ident, $c:ident, [u vh vh _ _]) => {
                form!(@fp $w, $w.fp_compare(fp::Cmp::F16, fp::Cond::$c, inst))
            };
            (@fp $w:ident, $e:expr) => {
                if let fp::FpOutcome::Trap(cause, info) = $e {
                    return $w.trap_at(pc, cause, info);
                }
            };
            // ---- the forms of the integer operations ----
            // Vector destination: d = op(s1, s2 | u2 | imm), op(s1), op(u1 | imm).
            ($w:ident, $Op:ident, $op:ident [v v v _ _]) => { $w.vv(d, a, b, ops::$op) };
            ($w:ident, $Op:ident, $op:ident [v v u _ _]) => { $w.vs(d, a, $w.u[b], ops::$op) };
            ($w:ident, $Op:ident, $op:ident [v v _ _ $i:ident]) => { $w.vs(d, a, imm, ops::$op) };
            ($w:ident, $Op:ident, $op:ident [v v _ _ _]) => { $w.v1(d, a, ops::$op) };
            ($w:ident, $Op:ident, $op:ident [v u _ _ _]) => {{
                let s = ops::$op($w.u[a]);
                $w.vput(d, &[s; LANES]);
            }};
            ($w:ident, $Op:ident, $op:ident [v _ _ _ $i:ident]) => { $w.vput(d, &[ops::$op(imm); LANES]) };
            ($w:ident, $Op:ident, $op:ident [v v v v _]) => { $w.vvv(d, a, b, c, ops::$op) };
            // Accumulating: d = op(d, s1, s2 | u2).
            ($w:ident, $Op:ident, $op:ident [vx v v _ _]) => { $w.vvv(d, d, a, b, ops::$op) };
            ($w:ident, $Op:ident, $op:ident [vx v u _ _]) => {{
                let s = $w.u[b];
                $w.vv(d, d, a, |acc, x| ops::$op(acc, x, s));
            }};
            // 64-bit pairs.
            ($w:ident, $Op:ident, $op:ident [vp vp vp _ _]) => {{
                let (x, y) = ($w.vpair(a), $w.vpair(b));
                $w.v64(d, |l| wide::$op(x[l], y[l]));
            }};
            ($w:ident, $Op:ident, $op:ident [vp vp v _ _]) => {{
                let (x, y) = ($w.vpair(a), $w.v[b]);
                $w.v64(d, |l| wide::$op(x[l], y[l]));
            }};
            ($w:ident, $Op:ident, $op:ident [vp vp u _ _]) => {{
                let (x, s) = ($w.vpair(a), $w.u[b]);
                $w.v64(d, |l| wide::$op(x[l], s));
            }};
            ($w:ident, $Op:ident, $op:ident [vp vp _ _ $i:ident]) => {{
                let x = $w.vpair(a);
                $w.v64(d, |l| wide::$op(x[l], imm));
            }};
            ($w:ident, $Op:ident, $op:ident [vp v v _ _]) => {{
                let (x, y) = ($w.v[a], $w.v[b]);
                $w.v64(d, |l| wide::$op(x[l], y[l]));
            }};
            ($w:ident, $Op:ident, $op:ident [vp vp _ _ _]) => {{
                let x = $w.vpair(a);
                $w.v64(d, |l| wide::$op(x[l]));
            }};
            ($w:ident, $Op:ident, $op:ident [vp up _ _ _]) => {{
                let s = wide::$op($w.u64(a));
                $w.vput64(d, &[s; LANES]);
            }};
            ($w:ident, $Op:ident, $op:ident [vp v v vp _]) => {{
                let (x, y, z) = ($w.v[a], $w.v[b], $w.vpair(c));
                $w.v64(d, |l| wide::$op(x[l], y[l], z[l]));
            }};
            ($w:ident, $Op:ident, $op:ident [vp vp vp v _]) => {{
                let (x, y, z) = ($w.vpair(a), $w.vpair(b), $w.v[c]);
                $w.v64(d, |l| wide::$op(x[l], y[l], z[l]));
            }};
            // Compares into a uniform lane mask.
            ($w:ident, $Op:ident, $op:ident [u v v _ _]) => { $w.cmp_vv(d, a, b, ops::cmp::$op) };
            ($w:ident, $Op:ident, $op:ident [u v u _ _]) => { $w.cmp_vs(d, a, $w.u[b], ops::cmp::$op) };
            ($w:ident, $Op:ident, $op:ident [u v _ _ $i:ident]) => { $w.cmp_vs(d, a, imm, ops::cmp::$op) };
            ($w:ident, $Op:ident, $op:ident [u vp vp _ _]) => { $w.cmp64(d, a, b, wide::cmp::$op) };
            // Uniform destination.
            ($w:ident, $Op:ident, $op:ident [u u u _ _]) => { $w.u[d] = ops::$op($w.u[a], $w.u[b]) };
            ($w:ident, $Op:ident, $op:ident [u u _ _ $i:ident]) => { $w.u[d] = ops::$op($w.u[a], imm) };
            ($w:ident, $Op:ident, $op:ident [u u _ _ _]) => { $w.u[d] = ops::$op($w.u[a]) };
            ($w:ident, $Op:ident, $op:ident [u _ _ _ $i:ident]) => { $w.u[d] = ops::$op(imm) };
            ($w:ident, $Op:ident, $op:ident [up up up _ _]) => {{
                let r = wide::$op($w.u64(a), $w.u64(b));
                $w.set_u64(d, r);
            }};
            ($w:ident, $Op:ident, $op:ident [up up u _ _]) => {{
                let r = wide::$op($w.u64(a), $w.u[b]);
                $w.set_u64(d, r);
            }};
            ($w:ident, $Op:ident, $op:ident [up up _ _ $i:ident]) => {{
                let r = wide::$op($w.u64(a), imm);
                $w.set_u64(d, r);
            }};
            ($w:ident, $Op:ident, $op:ident [up up _ _ _]) => {{
                let r = wide::$op($w.u64(a));
                $w.set_u64(d, r);
            }};
        }
        macro_rules! dispatch {
            ($($Op:ident $op:ident $f:tt;)*) => {
                match op {
                    $(Op::$Op => form!(self, $Op, $op $f),)*
                }
            };
        }
        warpkit_isa::for_each_op!(dispatch);
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
