//! The provisional floating-point group (`spec/provisional/float.yaml`, docs/provisional.md
//! "Floating point"): source modifiers, the rounding mode (`rm`, `dyn` = `mode[2:0]`),
//! flushing (`mode[3]` f32, `mode[4]` f16), `fflags` accrued over the active lanes,
//! enabled-exception traps, and the SFU operations issued on the `sfu` counter.
//!
//! Every value is computed by `warpkit-float`, the project's exact soft-float, except
//! f32 `fadd`/`fsub`/`fmul`/`ffma` in `rne`, which take the host's binary64 arithmetic
//! where that provably gives the same bits and flags ([`host_f32`]); the SFU's
//! transcendentals are in `sfu.rs`.

pub(crate) mod fpu;

use crate::program::packed;

use crate::exec::sfu;
use crate::program::Inst;
use crate::state::csr::mode;
use crate::state::queue::Part;
use crate::state::regs::LANES;
use crate::state::trap::CAUSE_FP_EXCEPTION;
use crate::state::warp::Warp;
use warpkit_float::{self as wf, Flags, Int, Round, BF16, F16, F32, F64};
use warpkit_isa::Op;

/// How an operand sits in the register file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loc {
    /// One 32-bit register.
    R32,
    /// An even pair, low word first.
    R64,
    /// A 16-bit half: the raw field is `register << 1 | half`.
    H16,
}

/// What a value is, for modifiers, flushing and `sat`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    F16,
    Bf16,
    F32,
    F64,
    Int,
}

impl Ty {
    fn sign_bit(self) -> u64 {
        match self {
            Ty::F16 | Ty::Bf16 => 1 << 15,
            Ty::F32 => 1 << 31,
            Ty::F64 => 1 << 63,
            Ty::Int => 0,
        }
    }

    fn is_subnormal(self, x: u64) -> bool {
        match self {
            Ty::F16 => wf::is_subnormal::<F16>(x as u16),
            Ty::Bf16 => wf::is_subnormal::<BF16>(x as u16),
            Ty::F32 => wf::is_subnormal::<F32>(x as u32),
            Ty::F64 => wf::is_subnormal::<F64>(x),
            Ty::Int => false,
        }
    }

    /// Whether `mode` flushes this type's subnormals (f64 and bf16 never are).
    fn flushed(self, mode_value: u32) -> bool {
        match self {
            Ty::F32 => mode_value & mode::FTZ32 != 0,
            Ty::F16 => mode_value & mode::FTZ16 != 0,
            _ => false,
        }
    }

    fn is_nan(self, x: u64) -> bool {
        match self {
            Ty::F16 => wf::is_nan::<F16>(x as u16),
            Ty::Bf16 => wf::is_nan::<BF16>(x as u16),
            Ty::F32 => wf::is_nan::<F32>(x as u32),
            Ty::F64 => wf::is_nan::<F64>(x),
            Ty::Int => false,
        }
    }

    fn one(self) -> u64 {
        match self {
            Ty::F16 => 0x3c00,
            Ty::Bf16 => 0x3f80,
            Ty::F32 => 0x3f80_0000,
            Ty::F64 => 0x3ff0_0000_0000_0000,
            Ty::Int => 1,
        }
    }
}

/// A source operand: its register field, where it lives and what it holds.
#[derive(Clone, Copy)]
struct Src {
    reg: u8,
    loc: Loc,
    ty: Ty,
}

/// The result of one floating-point instruction over the active lanes.
struct Lanes {
    values: [u64; LANES],
    flags: Flags,
}

/// What [`Warp::exec_fp`] did.
pub(crate) enum FpOutcome {
    Done,
    /// Raise this trap (cause, trapinfo); nothing was written.
    Trap(u32, u32),
}

type Lane3 = [u64; 3];

impl Warp {
    fn fp_read(&self, loc: Loc, reg: u8, lane: usize) -> u64 {
        let r = usize::from(reg);
        match loc {
            Loc::R32 => u64::from(self.v[r][lane]),
            Loc::R64 => u64::from(self.v[r][lane]) | (u64::from(self.v[r + 1][lane]) << 32),
            Loc::H16 => u64::from((self.v[r >> 1][lane] >> (16 * (r & 1))) & 0xffff),
        }
    }

    /// Evaluate `f` on every active lane: sources read with flushing and modifiers applied,
    /// the result flushed and clamped (`sat`); flags ORed over the active lanes.
    fn fp_lanes(
        &self,
        inst: &Inst,
        srcs: &[Src],
        dst: Ty,
        f: impl Fn(Lane3, Round) -> (u64, Flags),
    ) -> Lanes {
        let mode_value = self.csr.mode();
        let neg = (inst.imm >> packed::NEG) & 7;
        let abs = (inst.imm >> packed::ABS) & 7;
        let sat = inst.imm & (1 << packed::SAT) != 0;
        let rm_field = (inst.imm >> packed::RM) & 7;
        // 5 and 6 never get here (reserved: IllegalInsn at pre-decode); 7 is `dyn`, and a
        // `mode` value always holds a valid rounding mode (§3.3 rejects the others).
        let rm_value = if rm_field == 7 {
            mode_value & mode::RM_MASK
        } else {
            rm_field
        };
        let rm = Round::from_field(rm_value as u8).unwrap_or(Round::Rne);
        let exec = self.exec();
        let mut out = Lanes {
            values: [0; LANES],
            flags: Flags::NONE,
        };
        let flush_dst = dst.flushed(mode_value);
        for lane in 0..LANES {
            if exec & (1 << lane) == 0 {
                continue;
            }
            let mut x: Lane3 = [0; 3];
            for (k, s) in srcs.iter().enumerate() {
                let mut v = self.fp_read(s.loc, s.reg, lane);
                if s.ty.flushed(mode_value) && s.ty.is_subnormal(v) {
                    v &= s.ty.sign_bit();
                }
                if abs & (1 << k) != 0 {
                    v &= !s.ty.sign_bit();
                }
                if neg & (1 << k) != 0 {
                    v ^= s.ty.sign_bit();
                }
                x[k] = v;
            }
            let (mut r, mut fl) = f(x, rm);
            if flush_dst && dst.is_subnormal(r) {
                r &= dst.sign_bit();
                fl |= Flags::UF | Flags::NX;
            }
            if sat {
                r = if dst.is_nan(r) || r & dst.sign_bit() != 0 {
                    0
                } else {
                    r.min(dst.one())
                };
            }
            out.values[lane] = r;
            out.flags |= fl;
        }
        out
    }

    /// The trap an instruction's flags raise, if `mode` enables one of them.
    fn fp_trap(&self, flags: Flags) -> Option<FpOutcome> {
        let enabled = (self.csr.mode() & mode::TRAP_ENABLES) >> 5;
        (u32::from(flags.bits()) & enabled != 0)
            .then(|| FpOutcome::Trap(CAUSE_FP_EXCEPTION, u32::from(flags.bits())))
    }

    fn fp_write(&mut self, loc: Loc, reg: u8, values: &[u64; LANES]) {
        let exec = self.exec();
        let r = usize::from(reg);
        let active = |lane: usize| exec & (1 << lane) != 0;
        match loc {
            Loc::R32 => {
                let row = &mut self.v[r];
                for (lane, &x) in values.iter().enumerate().filter(|&(l, _)| active(l)) {
                    row[lane] = x as u32;
                }
            }
            Loc::R64 => {
                for half in 0..2 {
                    let row = &mut self.v[r + half];
                    for (lane, &x) in values.iter().enumerate().filter(|&(l, _)| active(l)) {
                        row[lane] = (x >> (32 * half)) as u32;
                    }
                }
            }
            Loc::H16 => {
                let shift = 16 * (r & 1);
                let row = &mut self.v[r >> 1];
                for (lane, &x) in values.iter().enumerate().filter(|&(l, _)| active(l)) {
                    let w = &mut row[lane];
                    *w = (*w & !(0xffff << shift)) | (((x as u32) & 0xffff) << shift);
                }
            }
        }
    }

    /// Execute a synchronous floating-point instruction writing a vector destination.
    fn fp_valu(
        &mut self,
        inst: &Inst,
        dst: (Loc, Ty),
        srcs: &[Src],
        f: impl Fn(Lane3, Round) -> (u64, Flags),
    ) -> FpOutcome {
        let lanes = self.fp_lanes(inst, srcs, dst.1, f);
        if let Some(t) = self.fp_trap(lanes.flags) {
            return t;
        }
        self.csr.accrue_fflags(u32::from(lanes.flags.bits()));
        self.fp_write(dst.0, inst.rd, &lanes.values);
        FpOutcome::Done
    }

    /// Issue an SFU instruction: computed from the sources as they are now, written back
    /// when it retires from the `sfu` counter; `fflags` accrue (and traps are taken) at
    /// issue.
    fn fp_sfu(
        &mut self,
        inst: &Inst,
        pc: u32,
        dst: (Loc, Ty),
        srcs: &[Src],
        f: impl Fn(Lane3, Round) -> (u64, Flags),
    ) -> FpOutcome {
        let lanes = self.fp_lanes(inst, srcs, dst.1, f);
        if let Some(t) = self.fp_trap(lanes.flags) {
            return t;
        }
        self.csr.accrue_fflags(u32::from(lanes.flags.bits()));
        let counter = warpkit_isa::counter_by_name("sfu").map_or(0, |(c, _)| c);
        let mut rows = [[0u32; LANES]; 2];
        for (lane, &x) in lanes.values.iter().enumerate() {
            rows[0][lane] = x as u32;
            rows[1][lane] = (x >> 32) as u32;
        }
        let count = if dst.0 == Loc::R64 { 2 } else { 1 };
        let exec = self.exec();
        self.issue_v(counter, pc, inst.rd, exec, Part::Whole, &rows[..count]);
        FpOutcome::Done
    }

    /// A compare: a uniform mask of the active lanes whose condition holds.
    fn fp_cmp(
        &mut self,
        inst: &Inst,
        srcs: &[Src],
        f: impl Fn(Lane3) -> (bool, Flags),
    ) -> FpOutcome {
        let lanes = self.fp_lanes(inst, srcs, Ty::Int, |x, _| {
            let (b, fl) = f(x);
            (u64::from(b), fl)
        });
        if let Some(t) = self.fp_trap(lanes.flags) {
            return t;
        }
        self.csr.accrue_fflags(u32::from(lanes.flags.bits()));
        let exec = self.exec();
        let mask = (0..LANES)
            .filter(|&l| exec & (1 << l) != 0 && lanes.values[l] != 0)
            .fold(0u32, |m, l| m | (1 << l));
        self.u[usize::from(inst.rd)] = mask;
        FpOutcome::Done
    }

    /// f32 `fadd`/`fsub`/`fmul`/`ffma` of a whole row on the host FPU ([`fp_fpu`]) in
    /// `rne`, `rtz`, `rdn` or `rup`, with any modifiers, `sat` and EXEC, when f32 flushing is
    /// off; `None` (nothing done) when the unit declines the row (no AVX2/FMA, `rmm`, a NaN
    /// result), leaving the instruction to the other paths. The outcome (trap, `fflags`,
    /// the write of the active lanes after `sat`) is the per-lane path's.
    ///
    /// [`fp_fpu`]: crate::exec::fp::fpu
    fn fp_f32_fpu(&mut self, op: Op, inst: &Inst) -> Option<FpOutcome> {
        use fpu::{Kind, Mods};
        let mode_value = self.csr.mode();
        if mode_value & mode::FTZ32 != 0 {
            return None;
        }
        let rm_field = (inst.imm >> packed::RM) & 7;
        let rm_value = if rm_field == 7 {
            mode_value & mode::RM_MASK
        } else {
            rm_field
        };
        let rm = Round::from_field(rm_value as u8)?;
        let kind = match op {
            Op::FaddF32 => Kind::Add,
            Op::FsubF32 => Kind::Sub,
            Op::FmulF32 => Kind::Mul,
            Op::FfmaF32 => Kind::Fma,
            _ => return None,
        };
        let (neg, abs) = ((inst.imm >> packed::NEG) & 7, (inst.imm >> packed::ABS) & 7);
        let sat = inst.imm & (1 << packed::SAT) != 0;
        let exec = self.exec();
        // Flags the row may report without raising them: ORed into `fflags`, which holds
        // them already, they change nothing, as long as none of them traps.
        let enabled = (mode_value & mode::TRAP_ENABLES) >> 5;
        let accrued = Flags::from_bits((self.csr.fflags() & !enabled) as u8);
        // The common case, written straight to the destination register: every lane
        // active, no modifier, no `sat`, and no trap enabled (a trapping instruction must
        // write nothing).
        if exec == u32::MAX && neg == 0 && abs == 0 && !sat && enabled == 0 {
            let sources = [inst.rs1, inst.rs2, inst.rs3].map(usize::from);
            let d = usize::from(inst.rd);
            let flags =
                fpu::row_in_place(kind, rm, &mut self.v.writing(d)[..], d, sources, accrued)?;
            self.csr.accrue_fflags(u32::from(flags.bits()));
            return Some(FpOutcome::Done);
        }
        let mods = Mods::new(neg, abs);
        let (values, flags) = fpu::row(
            kind,
            rm,
            &self.v[usize::from(inst.rs1)],
            &self.v[usize::from(inst.rs2)],
            &self.v[usize::from(inst.rs3)],
            mods,
            exec,
            accrued,
        )?;
        if let Some(t) = self.fp_trap(flags) {
            return Some(t);
        }
        self.csr.accrue_fflags(u32::from(flags.bits()));
        let dst = &mut self.v[usize::from(inst.rd)];
        if exec == u32::MAX && !sat {
            *dst = values;
        } else {
            for (lane, (d, r)) in dst.iter_mut().zip(values).enumerate() {
                // `sat`: no NaN reaches here; negatives (−0 included) give +0.
                let r = match sat {
                    true if r >> 31 != 0 => 0,
                    true => r.min(Ty::F32.one() as u32),
                    false => r,
                };
                let keep = 0u32.wrapping_sub((exec >> lane) & 1 ^ 1);
                *d = (*d & keep) | (r & !keep);
            }
        }
        Some(FpOutcome::Done)
    }

    /// f32 `fadd`/`fsub`/`fmul`/`ffma` of a whole row on the host path
    /// ([`host_f32::row`]) when the instruction rounds to nearest even and neither `sat`
    /// nor f32 flushing applies; `None` leaves the instruction to the per-lane path. The
    /// lanes the host path cannot decide are computed by warpkit-float; the outcome (trap,
    /// `fflags`, the write of the active lanes) is the per-lane path's.
    fn fp_f32_rows(&mut self, op: Op, inst: &Inst) -> Option<FpOutcome> {
        let mode_value = self.csr.mode();
        let rm_field = (inst.imm >> packed::RM) & 7;
        let rm_value = if rm_field == 7 {
            mode_value & mode::RM_MASK
        } else {
            rm_field
        };
        let sat = inst.imm & (1 << packed::SAT) != 0;
        if rm_value != Round::Rne as u32 || sat || mode_value & mode::FTZ32 != 0 {
            return None;
        }
        let kind = match op {
            Op::FaddF32 => host_f32::Kind::Add,
            Op::FsubF32 => host_f32::Kind::Sub,
            Op::FmulF32 => host_f32::Kind::Mul,
            Op::FfmaF32 => host_f32::Kind::Fma,
            _ => return None,
        };
        let neg = (inst.imm >> packed::NEG) & 7;
        let abs = (inst.imm >> packed::ABS) & 7;
        let source = |k: u32, reg: u8| -> [u32; LANES] {
            let (clear, flip) = (
                if abs & (1 << k) != 0 { 1 << 31 } else { 0 },
                if neg & (1 << k) != 0 { 1 << 31 } else { 0 },
            );
            self.v[usize::from(reg)].map(|x| (x & !clear) ^ flip)
        };
        let a = source(0, inst.rs1);
        let b = source(1, inst.rs2);
        let c = if kind == host_f32::Kind::Fma {
            source(2, inst.rs3)
        } else {
            [0; LANES]
        };
        let exec = self.exec();
        let (mut rows, inexact, soft) = host_f32::row(kind, &a, &b, &c);
        let mut flags = if inexact & exec & !soft != 0 {
            Flags::NX
        } else {
            Flags::NONE
        };
        let mut undecided = soft & exec;
        while undecided != 0 {
            let lane = undecided.trailing_zeros() as usize;
            undecided &= undecided - 1;
            let (x, y, z) = (a[lane], b[lane], c[lane]);
            let (r, f) = match kind {
                host_f32::Kind::Add => wf::add::<F32>(x, y, Round::Rne),
                host_f32::Kind::Sub => wf::sub::<F32>(x, y, Round::Rne),
                host_f32::Kind::Mul => wf::mul::<F32>(x, y, Round::Rne),
                host_f32::Kind::Fma => wf::fma::<F32>(x, y, z, Round::Rne),
            };
            rows[lane] = r;
            flags |= f;
        }
        if let Some(t) = self.fp_trap(flags) {
            return Some(t);
        }
        self.csr.accrue_fflags(u32::from(flags.bits()));
        let dst = &mut self.v[usize::from(inst.rd)];
        for (lane, (d, r)) in dst.iter_mut().zip(rows).enumerate() {
            // Branch-free select, so that the loop vectorises.
            let keep = 0u32.wrapping_sub((exec >> lane) & 1 ^ 1);
            *d = (*d & keep) | (r & !keep);
        }
        Some(FpOutcome::Done)
    }

    /// f32 `fadd fsub fmul ffma fmin fmax` (`op` their variant, for the host-FPU row paths).
    pub(crate) fn fp_f32(&mut self, op: Op, k: Arith, inst: &Inst) -> FpOutcome {
        if let Some(outcome) = self.fp_f32_fpu(op, inst) {
            return outcome;
        }
        if let Some(outcome) = self.fp_f32_rows(op, inst) {
            return outcome;
        }
        let (a, b, c) = (inst.rs1, inst.rs2, inst.rs3);
        let s = |reg: u8| Src {
            reg,
            loc: Loc::R32,
            ty: Ty::F32,
        };
        let (s2, s3) = ([s(a), s(b)], [s(a), s(b), s(c)]);
        let d = (Loc::R32, Ty::F32);
        let w = |r: (u32, Flags)| (u64::from(r.0), r.1);
        let x32 = |x: u64| x as u32;
        match k {
            Arith::Add => self.fp_valu(inst, d, &s2, |x, rm| {
                w(host_f32::add(x32(x[0]), x32(x[1]), rm))
            }),
            Arith::Sub => self.fp_valu(inst, d, &s2, |x, rm| {
                w(host_f32::sub(x32(x[0]), x32(x[1]), rm))
            }),
            Arith::Mul => self.fp_valu(inst, d, &s2, |x, rm| {
                w(host_f32::mul(x32(x[0]), x32(x[1]), rm))
            }),
            Arith::Fma => self.fp_valu(inst, d, &s3, |x, rm| {
                w(host_f32::fma(x32(x[0]), x32(x[1]), x32(x[2]), rm))
            }),
            Arith::Min => {
                self.fp_valu(inst, d, &s2, |x, _| w(wf::min::<F32>(x32(x[0]), x32(x[1]))))
            }
            Arith::Max => {
                self.fp_valu(inst, d, &s2, |x, _| w(wf::max::<F32>(x32(x[0]), x32(x[1]))))
            }
        }
    }

    /// f64 `fadd fsub fmul ffma fmin fmax` on register pairs.
    pub(crate) fn fp_f64(&mut self, k: Arith, inst: &Inst) -> FpOutcome {
        let (a, b, c) = (inst.rs1, inst.rs2, inst.rs3);
        let s = |reg: u8| Src {
            reg,
            loc: Loc::R64,
            ty: Ty::F64,
        };
        let (s2, s3) = ([s(a), s(b)], [s(a), s(b), s(c)]);
        let d = (Loc::R64, Ty::F64);
        match k {
            Arith::Add => self.fp_valu(inst, d, &s2, |x, rm| wf::add::<F64>(x[0], x[1], rm)),
            Arith::Sub => self.fp_valu(inst, d, &s2, |x, rm| wf::sub::<F64>(x[0], x[1], rm)),
            Arith::Mul => self.fp_valu(inst, d, &s2, |x, rm| wf::mul::<F64>(x[0], x[1], rm)),
            Arith::Fma => self.fp_valu(inst, d, &s3, |x, rm| wf::fma::<F64>(x[0], x[1], x[2], rm)),
            Arith::Min => self.fp_valu(inst, d, &s2, |x, _| wf::min::<F64>(x[0], x[1])),
            Arith::Max => self.fp_valu(inst, d, &s2, |x, _| wf::max::<F64>(x[0], x[1])),
        }
    }

    /// f16 `fadd fsub fmul ffma fmin fmax` on register halves.
    pub(crate) fn fp_f16(&mut self, k: Arith, inst: &Inst) -> FpOutcome {
        let (a, b, c) = (inst.rs1, inst.rs2, inst.rs3);
        let s = |reg: u8| Src {
            reg,
            loc: Loc::H16,
            ty: Ty::F16,
        };
        let (s2, s3) = ([s(a), s(b)], [s(a), s(b), s(c)]);
        let d = (Loc::H16, Ty::F16);
        let w = |r: (u16, Flags)| (u64::from(r.0), r.1);
        let h = |v: u64| v as u16;
        match k {
            Arith::Add => self.fp_valu(inst, d, &s2, |x, rm| {
                w(wf::add::<F16>(h(x[0]), h(x[1]), rm))
            }),
            Arith::Sub => self.fp_valu(inst, d, &s2, |x, rm| {
                w(wf::sub::<F16>(h(x[0]), h(x[1]), rm))
            }),
            Arith::Mul => self.fp_valu(inst, d, &s2, |x, rm| {
                w(wf::mul::<F16>(h(x[0]), h(x[1]), rm))
            }),
            Arith::Fma => self.fp_valu(inst, d, &s3, |x, rm| {
                w(wf::fma::<F16>(h(x[0]), h(x[1]), h(x[2]), rm))
            }),
            Arith::Min => self.fp_valu(inst, d, &s2, |x, _| w(wf::min::<F16>(h(x[0]), h(x[1])))),
            Arith::Max => self.fp_valu(inst, d, &s2, |x, _| w(wf::max::<F16>(h(x[0]), h(x[1])))),
        }
    }

    /// The conversions.
    pub(crate) fn fp_cvt(&mut self, k: Cvt, inst: &Inst) -> FpOutcome {
        use Loc::*;
        let s = |loc: Loc, ty: Ty| {
            [Src {
                reg: inst.rs1,
                loc,
                ty,
            }]
        };
        match k {
            Cvt::F32I32 => self.fp_valu(inst, (R32, Ty::F32), &s(R32, Ty::Int), |x, rm| {
                let r = wf::from_i64::<F32>(i64::from(x[0] as u32 as i32), rm);
                (u64::from(r.0), r.1)
            }),
            Cvt::F32U32 => self.fp_valu(inst, (R32, Ty::F32), &s(R32, Ty::Int), |x, rm| {
                let r = wf::from_u64::<F32>(x[0], rm);
                (u64::from(r.0), r.1)
            }),
            Cvt::I32F32 => self.fp_valu(inst, (R32, Ty::Int), &s(R32, Ty::F32), |x, rm| {
                let r = wf::to_int::<F32>(x[0] as u32, Int::I32, rm);
                (r.0 & 0xffff_ffff, r.1)
            }),
            Cvt::U32F32 => self.fp_valu(inst, (R32, Ty::Int), &s(R32, Ty::F32), |x, rm| {
                wf::to_int::<F32>(x[0] as u32, Int::U32, rm)
            }),
            Cvt::F64F32 => self.fp_valu(inst, (R64, Ty::F64), &s(R32, Ty::F32), |x, rm| {
                wf::convert::<F32, F64>(x[0] as u32, rm)
            }),
            Cvt::F32F64 => self.fp_valu(inst, (R32, Ty::F32), &s(R64, Ty::F64), |x, rm| {
                let r = wf::convert::<F64, F32>(x[0], rm);
                (u64::from(r.0), r.1)
            }),
            Cvt::F64I32 => self.fp_valu(inst, (R64, Ty::F64), &s(R32, Ty::Int), |x, rm| {
                wf::from_i64::<F64>(i64::from(x[0] as u32 as i32), rm)
            }),
            Cvt::I32F64 => self.fp_valu(inst, (R32, Ty::Int), &s(R64, Ty::F64), |x, rm| {
                let r = wf::to_int::<F64>(x[0], Int::I32, rm);
                (r.0 & 0xffff_ffff, r.1)
            }),
            Cvt::F16F32 => self.fp_valu(inst, (H16, Ty::F16), &s(R32, Ty::F32), |x, rm| {
                let r = wf::convert::<F32, F16>(x[0] as u32, rm);
                (u64::from(r.0), r.1)
            }),
            Cvt::F32F16 => self.fp_valu(inst, (R32, Ty::F32), &s(H16, Ty::F16), |x, rm| {
                let r = wf::convert::<F16, F32>(x[0] as u16, rm);
                (u64::from(r.0), r.1)
            }),
            Cvt::Bf16F32 => self.fp_valu(inst, (H16, Ty::Bf16), &s(R32, Ty::F32), |x, rm| {
                let r = wf::convert::<F32, BF16>(x[0] as u32, rm);
                (u64::from(r.0), r.1)
            }),
            Cvt::F32Bf16 => self.fp_valu(inst, (R32, Ty::F32), &s(H16, Ty::Bf16), |x, rm| {
                let r = wf::convert::<BF16, F32>(x[0] as u16, rm);
                (u64::from(r.0), r.1)
            }),
        }
    }

    /// The SFU operations: issued now, written back at retirement from `sfu`.
    pub(crate) fn fp_sfu_op(&mut self, k: Sfu, inst: &Inst, pc: u32) -> FpOutcome {
        use Loc::*;
        let s = |reg: u8, loc: Loc, ty: Ty| Src { reg, loc, ty };
        let (a, b) = (inst.rs1, inst.rs2);
        let f32_of = |f: fn(u32) -> (u32, Flags)| {
            move |x: Lane3, _: Round| {
                let r = f(x[0] as u32);
                (u64::from(r.0), r.1)
            }
        };
        let one = [s(a, R32, Ty::F32)];
        match k {
            Sfu::DivF32 => self.fp_sfu(
                inst,
                pc,
                (R32, Ty::F32),
                &[s(a, R32, Ty::F32), s(b, R32, Ty::F32)],
                |x, rm| {
                    let r = wf::div::<F32>(x[0] as u32, x[1] as u32, rm);
                    (u64::from(r.0), r.1)
                },
            ),
            Sfu::SqrtF32 => self.fp_sfu(inst, pc, (R32, Ty::F32), &one, |x, rm| {
                let r = wf::sqrt::<F32>(x[0] as u32, rm);
                (u64::from(r.0), r.1)
            }),
            Sfu::DivF64 => self.fp_sfu(
                inst,
                pc,
                (R64, Ty::F64),
                &[s(a, R64, Ty::F64), s(b, R64, Ty::F64)],
                |x, rm| wf::div::<F64>(x[0], x[1], rm),
            ),
            Sfu::SqrtF64 => {
                self.fp_sfu(inst, pc, (R64, Ty::F64), &[s(a, R64, Ty::F64)], |x, rm| {
                    wf::sqrt::<F64>(x[0], rm)
                })
            }
            Sfu::Rcp => self.fp_sfu(inst, pc, (R32, Ty::F32), &one, f32_of(sfu::rcp)),
            Sfu::Rsq => self.fp_sfu(inst, pc, (R32, Ty::F32), &one, f32_of(sfu::rsq)),
            Sfu::Exp2 => self.fp_sfu(inst, pc, (R32, Ty::F32), &one, f32_of(sfu::exp2)),
            Sfu::Log2 => self.fp_sfu(inst, pc, (R32, Ty::F32), &one, f32_of(sfu::log2)),
            Sfu::Sin => self.fp_sfu(inst, pc, (R32, Ty::F32), &one, f32_of(sfu::sin_pi)),
            Sfu::Cos => self.fp_sfu(inst, pc, (R32, Ty::F32), &one, f32_of(sfu::cos_pi)),
        }
    }

    /// The compares: a uniform mask of the active lanes whose condition holds.
    pub(crate) fn fp_compare(&mut self, fmt: Cmp, cond: Cond, inst: &Inst) -> FpOutcome {
        use Loc::*;
        let s = |reg: u8, loc: Loc, ty: Ty| Src { reg, loc, ty };
        let (a, b) = (inst.rs1, inst.rs2);
        match fmt {
            Cmp::F32 => self.fp_cmp(inst, &[s(a, R32, Ty::F32), s(b, R32, Ty::F32)], |x| {
                cond.eval::<F32>(x[0] as u32, x[1] as u32)
            }),
            Cmp::F64 => self.fp_cmp(inst, &[s(a, R64, Ty::F64), s(b, R64, Ty::F64)], |x| {
                cond.eval::<F64>(x[0], x[1])
            }),
            Cmp::F16 => self.fp_cmp(inst, &[s(a, H16, Ty::F16), s(b, H16, Ty::F16)], |x| {
                cond.eval::<F16>(x[0] as u16, x[1] as u16)
            }),
        }
    }
}

/// An arithmetic operation, in each of the three formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Fma,
    Min,
    Max,
}

/// A conversion: destination, then source.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cvt {
    F32I32,
    F32U32,
    I32F32,
    U32F32,
    F64F32,
    F32F64,
    F64I32,
    I32F64,
    F16F32,
    F32F16,
    Bf16F32,
    F32Bf16,
}

/// An SFU operation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sfu {
    DivF32,
    SqrtF32,
    DivF64,
    SqrtF64,
    Rcp,
    Rsq,
    Exp2,
    Log2,
    Sin,
    Cos,
}

/// The format of a compare.
#[derive(Clone, Copy)]
pub(crate) enum Cmp {
    F16,
    F32,
    F64,
}

/// The eight compare conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cond {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Ordered,
    Unordered,
}

impl Cond {
    fn eval<F: wf::Format>(self, a: F::Bits, b: F::Bits) -> (bool, Flags) {
        match self {
            Cond::Eq => wf::eq::<F>(a, b),
            Cond::Ne => {
                let (r, f) = wf::eq::<F>(a, b);
                (!r, f)
            }
            Cond::Lt => wf::lt::<F>(a, b),
            Cond::Le => wf::le::<F>(a, b),
            Cond::Gt => wf::lt::<F>(b, a),
            Cond::Ge => wf::le::<F>(b, a),
            Cond::Ordered => {
                let (r, f) = wf::unordered::<F>(a, b);
                (!r, f)
            }
            Cond::Unordered => wf::unordered::<F>(a, b),
        }
    }
}

/// f32 `fadd`/`fsub`/`fmul`/`ffma` in round-to-nearest-even on the host's binary64
/// arithmetic, where that provably gives warpkit-float's result and flags; everything else
/// (another rounding mode, an infinite or NaN operand, a nonzero result that is subnormal,
/// ±2^-126 or rounds to zero, a result beyond the largest finite f32, a double-rounding
/// tie) goes to warpkit-float.
///
/// Why it is exact: an f32 product fits binary64 exactly (48 significant bits, exponents
/// far inside binary64's range), so `p = a × b` is exact, and Knuth's TwoSum gives
/// `s = fl64(p + c)` together with the exact remainder `err = (p + c) − s`. Every f32
/// number and every midpoint between two neighbouring f32 numbers is a binary64 number,
/// and rounding to binary64 is monotone, so the exact value `p + c` and `s` lie on the same
/// side of every such midpoint — unless `s` is itself a midpoint and `err ≠ 0`, which is
/// left to the soft path. Hence rounding `s` to f32 (the host's `as f32`: ties to even)
/// rounds `p + c` correctly, and the result is inexact exactly when `err ≠ 0` or the
/// rounding moved `s`. A normal result above 2^-126 in magnitude is not tiny and not an
/// overflow, so NX is the only flag that can be raised. The differential test in this
/// module checks it against warpkit-float over random and boundary operands.
mod host_f32 {
    use warpkit_float::{self as wf, Flags, Round, F32};

    const SIGN: u32 = 0x8000_0000;
    const INF: u32 = 0x7f80_0000;
    const MIN_NORMAL: u32 = 0x0080_0000;
    /// The 29 binary64 fraction bits below an f32's last place, and their midpoint value.
    const BELOW_F32: u64 = (1 << 29) - 1;
    const HALF_F32_ULP: u64 = 1 << 28;

    fn finite(x: u32) -> bool {
        x & INF != INF
    }

    /// `(s, err)` with `s = fl64(p + c)` and `p + c = s + err` exactly (TwoSum; no
    /// overflow is possible for f32-range operands).
    #[inline]
    fn two_sum(p: f64, c: f64) -> (f64, f64) {
        let s = p + c;
        let pp = s - c;
        let cc = s - pp;
        (s, (p - pp) + (c - cc))
    }

    /// The f32 rounding (rne) of the exact value `s + err`, if the fast path may give it.
    #[inline]
    fn round(s: f64, err: f64) -> Option<(u32, Flags)> {
        if err != 0.0 && s.to_bits() & BELOW_F32 == HALF_F32_ULP {
            return None;
        }
        let r = s as f32;
        let bits = r.to_bits();
        if s == 0.0 {
            // An exact zero (a nonzero exact sum of f32-range values is at least 2^-298 in
            // magnitude and cannot round to zero in binary64), signed by IEEE's rules,
            // which binary64 and f32 share.
            return Some((bits, Flags::NONE));
        }
        let magnitude = bits & !SIGN;
        if magnitude <= MIN_NORMAL || magnitude >= INF {
            return None;
        }
        let inexact = err != 0.0 || f64::from(r) != s;
        Some((bits, if inexact { Flags::NX } else { Flags::NONE }))
    }

    #[inline]
    fn value(x: u32) -> f64 {
        f64::from(f32::from_bits(x))
    }

    #[inline]
    fn sum(a: u32, b: u32) -> Option<(u32, Flags)> {
        if !(finite(a) && finite(b)) {
            return None;
        }
        let (s, err) = two_sum(value(a), value(b));
        round(s, err)
    }

    pub(super) fn add(a: u32, b: u32, rm: Round) -> (u32, Flags) {
        match rm {
            Round::Rne => sum(a, b).unwrap_or_else(|| wf::add::<F32>(a, b, rm)),
            _ => wf::add::<F32>(a, b, rm),
        }
    }

    pub(super) fn sub(a: u32, b: u32, rm: Round) -> (u32, Flags) {
        match rm {
            Round::Rne => sum(a, b ^ SIGN).unwrap_or_else(|| wf::sub::<F32>(a, b, rm)),
            _ => wf::sub::<F32>(a, b, rm),
        }
    }

    #[inline]
    fn product(a: u32, b: u32) -> Option<(u32, Flags)> {
        if !(finite(a) && finite(b)) {
            return None;
        }
        round(value(a) * value(b), 0.0)
    }

    #[inline]
    fn fused(a: u32, b: u32, c: u32) -> Option<(u32, Flags)> {
        if !(finite(a) && finite(b) && finite(c)) {
            return None;
        }
        let (s, err) = two_sum(value(a) * value(b), value(c));
        round(s, err)
    }

    pub(super) fn mul(a: u32, b: u32, rm: Round) -> (u32, Flags) {
        match rm {
            Round::Rne => product(a, b).unwrap_or_else(|| wf::mul::<F32>(a, b, rm)),
            _ => wf::mul::<F32>(a, b, rm),
        }
    }

    pub(super) fn fma(a: u32, b: u32, c: u32, rm: Round) -> (u32, Flags) {
        match rm {
            Round::Rne => fused(a, b, c).unwrap_or_else(|| wf::fma::<F32>(a, b, c, rm)),
            _ => wf::fma::<F32>(a, b, c, rm),
        }
    }

    /// Which operation a row computes.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) enum Kind {
        Add,
        Sub,
        Mul,
        Fma,
    }

    /// One operation over every lane at once, written without branches so that the
    /// compiler vectorises it: `a + b`, `a − b`, `a × b` or `a × b + c` in rne. Returns the
    /// result bits, the mask of lanes that are inexact, and the mask of lanes the host path
    /// cannot decide (the caller computes those with warpkit-float; their result bits and
    /// inexact bits here are meaningless). The conditions are [`round`]'s.
    pub(super) fn row(
        kind: Kind,
        a: &[u32; 32],
        b: &[u32; 32],
        c: &[u32; 32],
    ) -> ([u32; 32], u32, u32) {
        // One monomorphised, branch-free loop per operation: the `match` stays outside.
        match kind {
            Kind::Add => row_of::<ADD>(a, b, c),
            Kind::Sub => row_of::<SUB>(a, b, c),
            Kind::Mul => row_of::<MUL>(a, b, c),
            Kind::Fma => row_of::<FMA>(a, b, c),
        }
    }

    const ADD: u8 = 0;
    const SUB: u8 = 1;
    const MUL: u8 = 2;
    const FMA: u8 = 3;

    #[inline(always)]
    fn row_of<const K: u8>(a: &[u32; 32], b: &[u32; 32], c: &[u32; 32]) -> ([u32; 32], u32, u32) {
        let mut bits = [0u32; 32];
        let mut inexact = [0u32; 32];
        let mut soft = [0u32; 32];
        for l in 0..32 {
            let (x, y, z) = (value(a[l]), value(b[l]), value(c[l]));
            // Operands: an exponent field of all ones (inf, NaN) in any input.
            let special = match K {
                FMA => (a[l] & INF == INF) | (b[l] & INF == INF) | (c[l] & INF == INF),
                _ => (a[l] & INF == INF) | (b[l] & INF == INF),
            };
            let (p, q) = match K {
                ADD => (x, y),
                SUB => (x, -y),
                MUL => (x * y, -0.0),
                _ => (x * y, z),
            };
            // TwoSum (for MUL, q = −0 and the sum is p itself, sign of zero included:
            // err = 0).
            let s = p + q;
            let pp = s - q;
            let qq = s - pp;
            let err = (p - pp) + (q - qq);
            let tie = (err != 0.0) & (s.to_bits() & BELOW_F32 == HALF_F32_ULP);
            let r = s as f32;
            let magnitude = r.to_bits() & !SIGN;
            bits[l] = r.to_bits();
            inexact[l] = u32::from((err != 0.0) | (f64::from(r) != s));
            // An exact zero is decided here (see `round`); any other result at or below
            // 2^-126 in magnitude may be tiny.
            let small = (magnitude <= MIN_NORMAL) & (s != 0.0);
            soft[l] = u32::from(special | tie | small | (magnitude >= INF));
        }
        let mask = |v: &[u32; 32]| {
            let mut m = 0u32;
            for (l, &x) in v.iter().enumerate() {
                m |= x << l;
            }
            m
        };
        (bits, mask(&inexact), mask(&soft))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// xorshift64*: deterministic operands.
        struct Rng(u64);
        impl Rng {
            fn next(&mut self) -> u32 {
                self.0 ^= self.0 >> 12;
                self.0 ^= self.0 << 25;
                self.0 ^= self.0 >> 27;
                (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
            }
        }

        /// Operands that reach every branch: random bits, random values near 1 (the
        /// common case, including cancellations), values near the overflow and
        /// underflow thresholds, subnormals, zeros, infinities, NaNs and ties.
        fn operand(r: &mut Rng) -> u32 {
            let x = r.next();
            let sign = x & SIGN;
            let frac = r.next() & 0x7f_ffff;
            match x % 8 {
                0 => r.next(),
                1 | 2 => sign | ((120 + x % 16) << 23) | frac,
                3 => sign | ((x >> 3) % 3 + 253) << 23 | frac, // near the largest
                4 => sign | ((x >> 3) % 4 + 1) << 23 | frac,   // near the smallest normal
                5 => sign | (frac >> ((x >> 3) % 24)),         // subnormal or zero
                6 => sign | ((127 + x % 4) << 23) | (frac & !0xfff), // short significands: ties
                _ => {
                    [
                        0,
                        SIGN,
                        INF,
                        INF | SIGN,
                        0x7fc0_0000,
                        0x7f80_0001,
                        MIN_NORMAL,
                        1,
                    ][(x >> 3) as usize % 8]
                        ^ sign
                }
            }
        }

        #[test]
        fn the_host_path_equals_the_soft_path() {
            let mut r = Rng(0x0123_4567_89ab_cdef);
            let rne = Round::Rne;
            // How often each op took the host path: both paths must be exercised.
            let mut fast = [0u32; 4];
            let cases = 300_000;
            for _ in 0..cases {
                let (a, mut b, mut c) = (operand(&mut r), operand(&mut r), operand(&mut r));
                // Exact cancellations: zero results of either sign.
                match r.next() % 16 {
                    0 => b = a ^ SIGN,
                    1 => c = wf::mul::<F32>(a, b, Round::Rne).0 ^ SIGN,
                    _ => {}
                }
                let tried = [sum(a, b), sum(a, b ^ SIGN), product(a, b), fused(a, b, c)];
                for (n, t) in fast.iter_mut().zip(&tried) {
                    *n += u32::from(t.is_some());
                }
                assert_eq!(
                    add(a, b, rne),
                    wf::add::<F32>(a, b, rne),
                    "add {a:#x} {b:#x}"
                );
                assert_eq!(
                    sub(a, b, rne),
                    wf::sub::<F32>(a, b, rne),
                    "sub {a:#x} {b:#x}"
                );
                assert_eq!(
                    mul(a, b, rne),
                    wf::mul::<F32>(a, b, rne),
                    "mul {a:#x} {b:#x}"
                );
                assert_eq!(
                    fma(a, b, c, rne),
                    wf::fma::<F32>(a, b, c, rne),
                    "fma {a:#x} {b:#x} {c:#x}"
                );
            }
            for (op, n) in ["add", "sub", "mul", "fma"].iter().zip(fast) {
                assert!(
                    n > cases / 5 && n < cases * 9 / 10,
                    "{op}: {n} of {cases} on the host path"
                );
            }
        }

        #[test]
        fn a_row_equals_the_soft_path_lane_by_lane() {
            let mut r = Rng(0xfeed_f00d_1234_5678);
            let mut decided = 0;
            for round_no in 0..4000 {
                let kind = [Kind::Add, Kind::Sub, Kind::Mul, Kind::Fma][round_no % 4];
                let mut rows = [[0u32; 32]; 3];
                for row in rows.iter_mut() {
                    row.iter_mut().for_each(|x| *x = operand(&mut r));
                }
                let [a, mut b, mut c] = rows;
                for l in 0..32 {
                    match r.next() % 16 {
                        0 => b[l] = a[l] ^ SIGN,
                        1 => c[l] = wf::mul::<F32>(a[l], b[l], Round::Rne).0 ^ SIGN,
                        _ => {}
                    }
                }
                let (bits, inexact, soft) = row(kind, &a, &b, &c);
                for l in 0..32 {
                    let rne = Round::Rne;
                    let want = match kind {
                        Kind::Add => wf::add::<F32>(a[l], b[l], rne),
                        Kind::Sub => wf::sub::<F32>(a[l], b[l], rne),
                        Kind::Mul => wf::mul::<F32>(a[l], b[l], rne),
                        Kind::Fma => wf::fma::<F32>(a[l], b[l], c[l], rne),
                    };
                    if soft >> l & 1 == 0 {
                        decided += 1;
                        let nx = if inexact >> l & 1 != 0 {
                            Flags::NX
                        } else {
                            Flags::NONE
                        };
                        assert_eq!(
                            (bits[l], nx),
                            want,
                            "lane {l}: {:#x} {:#x} {:#x}",
                            a[l],
                            b[l],
                            c[l]
                        );
                    }
                }
            }
            assert!(decided > 4000 * 32 / 5, "{decided} lanes on the host path");
        }

        #[test]
        fn a_first_rounding_onto_a_tie_goes_to_the_soft_path() {
            // (1 + 2^-23)(1 - 2^-24) = 1 + 2^-24 - 2^-47, plus c = 2^-47 (1 + 2^-23): the
            // exact sum 1 + 2^-24 + 2^-70 lies just above the midpoint between 1 and its
            // successor, but binary64 rounds it onto the midpoint, whose tie would go to
            // even (1.0). The correct f32 result is the successor.
            let (a, b, c) = (0x3f80_0001, 0x3f7f_ffff, 0x2800_0001);
            let (s, err) = two_sum(value(a) * value(b), value(c));
            assert_eq!(s, 1.0 + 2f64.powi(-24));
            assert!(err > 0.0);
            assert_eq!(round(s, err), None);
            assert_eq!(fma(a, b, c, Round::Rne), (0x3f80_0001, Flags::NX));
            assert_eq!(
                fma(a, b, c, Round::Rne),
                wf::fma::<F32>(a, b, c, Round::Rne)
            );
        }
    }
}
