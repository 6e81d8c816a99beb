//! One warp: its registers, EXEC, PC and CSRs, and the interpreter that steps it through a
//! pre-decoded program.

use crate::asyncq::{AsyncQueue, Hazard};
use crate::control::CANCEL_CHECK_INTERVAL;
use crate::csr::{self, num, CsrFile, CsrWrite};
use crate::env::{Core, Env};
use crate::hooks::{Control, Hooks, MemAccess};
use crate::program::{Code, Program};
use crate::regs::{URegs, VRegs, LANES, NUM_UREGS, NUM_VREGS};
use crate::trap::*;
use std::sync::atomic::{AtomicBool, Ordering};
use warpkit_isa::Op;

/// Where a warp is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WarpStatus {
    Running,
    /// Stopped at a `barrier`, PC already past it, waiting for the rest of the workgroup.
    AtBarrier,
    /// Ended with `endpgm`.
    Ended,
    /// Stopped by a trap taken with `trapbase` = 0.
    Trapped(Trap),
    /// Stopped because it executed its step budget.
    StepLimit,
}

/// Identity of a warp within a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct WarpId {
    pub workgroup: [u32; 3],
    /// Index of the warp within its workgroup.
    pub warp: u32,
}

/// The architectural state of one warp.
#[derive(Clone)]
pub struct Warp {
    pub id: WarpId,
    pub v: VRegs,
    pub u: URegs,
    exec: u32,
    /// `exec` expanded to one all-ones / all-zeros word per lane, so masked writes are plain
    /// SIMD selects. Kept in step by `set_exec`, the only way EXEC changes.
    lane_mask: [u32; LANES],
    /// `exec.count_ones()`, kept with `exec`: the lane-operation count of every vector
    /// instruction, without a per-instruction popcount (no POPCNT in baseline x86-64).
    exec_lanes: u64,
    /// Byte offset of the next instruction from CODE_BASE.
    pub pc: u32,
    pub csr: CsrFile,
    pub status: WarpStatus,
    /// Instructions retired by this warp (`clock`/`clockh`).
    pub retired: u64,
    /// Instructions this warp has attempted (retired or trapped), for the step limit.
    pub steps: u64,
    /// Vector registers allocated to the warp: `movrel` outside them reads 0, writes nothing.
    pub vgprs: u32,
    /// The trap the last step raised (taken or fatal), for tracers.
    pub(crate) last_trap: Option<Trap>,
    /// Active lanes summed over the retired vector instructions.
    pub lane_ops: u64,
    /// Pending asynchronous operations (§2.6).
    pub queue: AsyncQueue,
    /// Hazards seen (at most `MAX_HAZARDS_PER_WARP` kept) and their total count.
    pub hazards: Vec<Hazard>,
    pub hazard_count: u64,
    /// The full address and lane of the last memory fault (trapinfo has only 32 bits).
    pub fault_address: Option<(u64, u32)>,
    /// Write-backs retired by the last step, kept only while hooks observe the warp.
    pub(crate) retire_log: Option<Vec<crate::PendingOp>>,
    /// Memory accesses of the last step, kept only while hooks observe the warp.
    pub(crate) mem_log: Option<Vec<MemAccess>>,
    /// Whether EXEC was written since the hooks last cleared the marks.
    written_exec: bool,
    /// Instructions of `steps` that translated code executed (not architectural state:
    /// engines differ only here).
    pub(crate) translated: u64,
}

impl std::fmt::Debug for Warp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Warp")
            .field("id", &self.id)
            .field("pc", &self.pc)
            .field("exec", &self.exec)
            .field("status", &self.status)
            .field("retired", &self.retired)
            .finish_non_exhaustive()
    }
}

#[inline(always)]
fn sext8(x: u32) -> u32 {
    x as u8 as i8 as i32 as u32
}
#[inline(always)]
fn sext16(x: u32) -> u32 {
    x as u16 as i16 as i32 as u32
}
#[inline(always)]
fn mulh(a: u32, b: u32) -> u32 {
    ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32
}
#[inline(always)]
fn mulhu(a: u32, b: u32) -> u32 {
    ((u64::from(a) * u64::from(b)) >> 32) as u32
}
#[inline(always)]
fn mulhsu(a: u32, b: u32) -> u32 {
    ((i64::from(a as i32) * i64::from(b)) >> 32) as u32
}
#[inline(always)]
fn min_s(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}
#[inline(always)]
fn max_s(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}
#[inline(always)]
fn lt_s(a: u32, b: u32) -> bool {
    (a as i32) < (b as i32)
}
#[inline(always)]
fn b2u(b: bool) -> u32 {
    u32::from(b)
}
#[inline(always)]
fn lo(x: u64) -> u32 {
    x as u32
}
#[inline(always)]
fn hi(x: u64) -> u32 {
    (x >> 32) as u32
}
#[inline(always)]
fn sext64(x: u32) -> u64 {
    x as i32 as i64 as u64
}

/// A field mask of `width` ones; widths of 32 and more give all ones.
#[inline(always)]
pub(crate) fn ones(width: u32) -> u32 {
    if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    }
}

/// `bfm`/`ubfm`: `width` ones (width 0..63, >= 32 meaning all 32) shifted left by `offset`
/// (0..31); bits shifted past bit 31 are lost.
#[inline(always)]
pub(crate) fn bitfield_mask(width: u32, offset: u32) -> u32 {
    ones(width & 63) << (offset & 31)
}

/// `bfe.u32`/`ubfe.u32`: `(x >>u offset) & ones(width)`.
#[inline(always)]
pub(crate) fn bfe_u(x: u32, offset: u32, width: u32) -> u32 {
    (x >> (offset & 31)) & ones(width & 63)
}

/// `bfe.i32`/`ubfe.i32`: the `width`-bit field at `offset`, bits above bit 31 of `x` read
/// as 0, sign-extended from the field's top bit (width capped at 32; width 0 gives 0).
#[inline(always)]
pub(crate) fn bfe_i(x: u32, offset: u32, width: u32) -> u32 {
    let w = (width & 63).min(32);
    if w == 0 {
        return 0;
    }
    let field = (x >> (offset & 31)) & ones(w);
    let sh = 32 - w;
    (((field << sh) as i32) >> sh) as u32
}

/// `perm.b32`: byte k of the result is chosen by selector byte k: 0..7 pick a byte of the
/// 64-bit value {s1, s2} (s1 high), 0x0c gives 0x00, 0x0d gives 0xff, anything else
/// (reserved) reads 0.
#[inline(always)]
pub(crate) fn perm(s1: u32, s2: u32, sel: u32) -> u32 {
    let both = (u64::from(s1) << 32) | u64::from(s2);
    let mut out = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) & 0xff;
        let byte = match s {
            0..=7 => ((both >> (8 * s)) & 0xff) as u32,
            0x0d => 0xff,
            _ => 0,
        };
        out |= byte << (8 * k);
    }
    out
}

#[inline(always)]
fn med3_s(a: u32, b: u32, c: u32) -> u32 {
    let (a, b, c) = (a as i32, b as i32, c as i32);
    a.min(b).max(a.max(b).min(c)) as u32
}

#[inline(always)]
fn med3_u(a: u32, b: u32, c: u32) -> u32 {
    a.min(b).max(a.max(b).min(c))
}

#[inline(always)]
fn dp4a_s(a: u32, b: u32, c: u32) -> u32 {
    let mut acc = c;
    for k in 0..4 {
        let x = i32::from((a >> (8 * k)) as u8 as i8);
        let y = i32::from((b >> (8 * k)) as u8 as i8);
        acc = acc.wrapping_add((x * y) as u32);
    }
    acc
}

#[inline(always)]
fn dp4a_u(a: u32, b: u32, c: u32) -> u32 {
    let mut acc = c;
    for k in 0..4 {
        let x = (a >> (8 * k)) & 0xff;
        let y = (b >> (8 * k)) & 0xff;
        acc = acc.wrapping_add(x * y);
    }
    acc
}

/// `wqm`: every 4-bit quad with any bit set becomes 0xf.
#[inline(always)]
pub(crate) fn wqm(m: u32) -> u32 {
    let mut out = 0;
    for q in 0..8 {
        if (m >> (4 * q)) & 0xf != 0 {
            out |= 0xf << (4 * q);
        }
    }
    out
}

#[inline(always)]
fn addsat_s(a: u32, b: u32) -> u32 {
    (a as i32).saturating_add(b as i32) as u32
}
#[inline(always)]
fn subsat_s(a: u32, b: u32) -> u32 {
    (a as i32).saturating_sub(b as i32) as u32
}

impl Warp {
    /// A warp at PC 0 with every register zero, EXEC = `exec` and every CSR at its reset
    /// value.
    pub fn new(id: WarpId, exec: u32) -> Warp {
        let mut w = Warp {
            id,
            v: VRegs::default(),
            u: URegs::default(),
            exec: 0,
            lane_mask: [0; LANES],
            exec_lanes: 0,
            pc: 0,
            csr: CsrFile::default(),
            status: WarpStatus::Running,
            retired: 0,
            steps: 0,
            vgprs: NUM_VREGS as u32,
            last_trap: None,
            lane_ops: 0,
            queue: AsyncQueue::default(),
            hazards: Vec::new(),
            hazard_count: 0,
            retire_log: None,
            mem_log: None,
            fault_address: None,
            written_exec: false,
            translated: 0,
        };
        w.set_exec(exec);
        w
    }

    /// Make this warp what [`Warp::new`] would return, keeping its allocations (register
    /// file, queue, hazard list): a launch reuses warps across workgroups.
    pub fn reset(&mut self, id: WarpId, exec: u32) {
        self.reset_rows(id, exec, u128::MAX);
    }

    /// As [`Warp::reset`], zeroing only the vector registers in `dirty`: the caller knows
    /// the others are still zero (a warp reused within one launch, where only the
    /// program's written registers and the ABI's `v0..v3` can have changed). Zeroing the
    /// whole 16 KiB register file cost more than running a short kernel's warp.
    pub(crate) fn reset_rows(&mut self, id: WarpId, exec: u32, dirty: u128) {
        // Destructured so that a field added to `Warp` must be handled here too.
        let Warp {
            id: w_id,
            v,
            u,
            exec: _,
            lane_mask: _,
            exec_lanes: _,
            pc,
            csr,
            status,
            retired,
            steps,
            vgprs,
            last_trap,
            lane_ops,
            queue,
            hazards,
            hazard_count,
            fault_address,
            retire_log,
            mem_log,
            written_exec,
            translated,
        } = self;
        *w_id = id;
        if dirty == u128::MAX {
            v.zero_all();
        } else {
            let mut bits = dirty;
            while bits != 0 {
                v.zero(bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
            v.clear_written();
        }
        *u = URegs::default();
        *pc = 0;
        *csr = CsrFile::default();
        *status = WarpStatus::Running;
        *retired = 0;
        *steps = 0;
        *vgprs = NUM_VREGS as u32;
        *last_trap = None;
        *lane_ops = 0;
        queue.clear();
        hazards.clear();
        *hazard_count = 0;
        *fault_address = None;
        *retire_log = None;
        *mem_log = None;
        *written_exec = false;
        *translated = 0;
        self.set_exec(exec);
    }

    #[inline(always)]
    pub fn exec(&self) -> u32 {
        self.exec
    }

    #[inline(always)]
    pub fn set_exec(&mut self, exec: u32) {
        self.exec = exec;
        self.written_exec = true;
        self.exec_lanes = u64::from(exec.count_ones());
        for (l, m) in self.lane_mask.iter_mut().enumerate() {
            *m = 0u32.wrapping_sub((exec >> l) & 1);
        }
    }

    /// EXEC as one all-ones / all-zeros word per lane.
    #[inline(always)]
    pub(crate) fn lane_mask(&self) -> &[u32; LANES] {
        &self.lane_mask
    }

    /// The 64-bit value of the uniform pair starting at `r`.
    #[inline(always)]
    pub fn u64(&self, r: usize) -> u64 {
        u64::from(self.u[r]) | (u64::from(self.u[r + 1]) << 32)
    }

    #[inline(always)]
    fn set_u64(&mut self, r: usize, x: u64) {
        self.u[r] = lo(x);
        self.u[r + 1] = hi(x);
    }

    /// Read a CSR as `csrr` does: `None` for an unknown number. `clock`/`time` count the
    /// instructions retired / committed before the reading instruction.
    pub fn csr_read(&self, number: u32, core: &Core) -> Option<u32> {
        Some(match number {
            num::EXEC => self.exec,
            num::CLOCK => lo(self.retired),
            num::CLOCKH => hi(self.retired),
            num::TIME => lo(core.committed),
            num::TIMEH => hi(core.committed),
            n => self.csr.get(n)?,
        })
    }

    /// A CSR instruction's write, with the rules of seed 001 §3.3: unknown or read-only CSR
    /// -> cause 9 (even when `csrs`/`csrc` would not change the value), an illegal `mode`
    /// value -> cause 8 with `mode` unchanged; `fflags` keeps bits [4:0].
    pub fn csr_write(
        &mut self,
        number: u32,
        how: CsrWrite,
        value: u32,
        core: &Core,
    ) -> Result<(), (u32, u32)> {
        let writable = warpkit_isa::csr_by_number(number).is_some_and(|d| d.writable);
        let old = match self.csr_read(number, core) {
            Some(old) if writable => old,
            _ => return Err((CAUSE_ILLEGAL_CSR, number)),
        };
        let new = match how {
            CsrWrite::Write => value,
            CsrWrite::Set => old | value,
            CsrWrite::Clear => old & !value,
        };
        match number {
            num::EXEC => self.set_exec(new),
            num::MODE if !csr::mode::is_valid(new) => return Err((CAUSE_ILLEGAL_MODE, new)),
            n => {
                if !self.csr.set(n, new) {
                    return Err((CAUSE_ILLEGAL_CSR, number));
                }
            }
        }
        Ok(())
    }

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

    // ---- lane loops -------------------------------------------------------------------

    /// Write `r` to the EXEC-active lanes of `v[d]`.
    #[inline(always)]
    fn vput(&mut self, d: usize, r: &[u32; LANES]) {
        let dst = &mut self.v[d];
        if self.exec == u32::MAX {
            *dst = *r;
            return;
        }
        let m = &self.lane_mask;
        for l in 0..LANES {
            dst[l] = (r[l] & m[l]) | (dst[l] & !m[l]);
        }
    }

    #[inline(always)]
    fn vput64(&mut self, d: usize, r: &[u64; LANES]) {
        let mut l0 = [0u32; LANES];
        let mut h0 = [0u32; LANES];
        for l in 0..LANES {
            l0[l] = lo(r[l]);
            h0[l] = hi(r[l]);
        }
        self.vput(d, &l0);
        self.vput(d + 1, &h0);
    }

    /// The 64-bit lanes of the vector pair starting at `r`.
    #[inline(always)]
    pub fn vpair(&self, r: usize) -> [u64; LANES] {
        let (a, b) = (&self.v[r], &self.v[r + 1]);
        let mut out = [0u64; LANES];
        for l in 0..LANES {
            out[l] = u64::from(a[l]) | (u64::from(b[l]) << 32);
        }
        out
    }

    #[inline(always)]
    fn vv(&mut self, d: usize, a: usize, b: usize, f: impl Fn(u32, u32) -> u32) {
        let (x, y) = (&self.v[a], &self.v[b]);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(x[l], y[l]);
        }
        self.vput(d, &r);
    }

    #[inline(always)]
    fn vs(&mut self, d: usize, a: usize, s: u32, f: impl Fn(u32, u32) -> u32) {
        let x = &self.v[a];
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(x[l], s);
        }
        self.vput(d, &r);
    }

    #[inline(always)]
    fn v1(&mut self, d: usize, a: usize, f: impl Fn(u32) -> u32) {
        let x = &self.v[a];
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(x[l]);
        }
        self.vput(d, &r);
    }

    #[inline(always)]
    fn vvv(&mut self, d: usize, a: usize, b: usize, c: usize, f: impl Fn(u32, u32, u32) -> u32) {
        let (x, y, z) = (&self.v[a], &self.v[b], &self.v[c]);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(x[l], y[l], z[l]);
        }
        self.vput(d, &r);
    }

    /// A per-lane function of the lane number (and anything the closure captured).
    #[inline(always)]
    fn vlane(&mut self, d: usize, f: impl Fn(usize) -> u32) {
        let mut r = [0u32; LANES];
        for (l, x) in r.iter_mut().enumerate() {
            *x = f(l);
        }
        self.vput(d, &r);
    }

    #[inline(always)]
    fn v64(&mut self, d: usize, f: impl Fn(usize) -> u64) {
        let mut r = [0u64; LANES];
        for (l, x) in r.iter_mut().enumerate() {
            *x = f(l);
        }
        self.vput64(d, &r);
    }

    /// A compare: the mask of EXEC-active lanes where `f` holds, into `u[d]`.
    #[inline(always)]
    fn cmp(&mut self, d: usize, f: impl Fn(usize) -> bool) {
        let mut m = 0u32;
        for l in 0..LANES {
            m |= u32::from(f(l)) << l;
        }
        self.u[d] = m & self.exec;
    }

    #[inline(always)]
    fn cmp_vv(&mut self, d: usize, a: usize, b: usize, f: impl Fn(u32, u32) -> bool) {
        let (x, y) = (self.v[a], self.v[b]);
        self.cmp(d, |l| f(x[l], y[l]));
    }

    #[inline(always)]
    fn cmp_vs(&mut self, d: usize, a: usize, s: u32, f: impl Fn(u32, u32) -> bool) {
        let x = self.v[a];
        self.cmp(d, |l| f(x[l], s));
    }

    #[inline(always)]
    fn cmp64(&mut self, d: usize, a: usize, b: usize, f: impl Fn(u64, u64) -> bool) {
        let (x, y) = (self.vpair(a), self.vpair(b));
        self.cmp(d, |l| f(x[l], y[l]));
    }

    /// `saveexec.*`: the old EXEC to `u[d]`, then EXEC = f(old, u[a]); the source is read
    /// first, so `d` may equal `a`.
    #[inline(always)]
    fn saveexec(&mut self, d: usize, a: usize, f: impl Fn(u32, u32) -> u32) {
        let old = self.exec;
        let cond = self.u[a];
        self.u[d] = old;
        self.set_exec(f(old, cond));
    }

    // ---- the interpreter --------------------------------------------------------------

    /// A trap raised by the instruction at `pc`: the handler's PC if the warp goes on.
    #[cold]
    #[inline(never)]
    fn trap_at(&mut self, pc: u32, cause: u32, info: u32) -> Option<u32> {
        self.raise(pc, cause, info).then_some(self.pc)
    }

    /// Execute the instruction at `pc` (which is `self.pc`). Returns the next PC (also
    /// stored in `self.pc`) while the warp is `Running`: the interpreter loop keeps the PC
    /// in a register instead of reloading what it just stored, which was the longest
    /// dependency chain of a branchy loop.
    #[inline(always)]
    fn step_at<E: Env>(
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
            Op::ExecGet => self.u[d] = self.exec,
            Op::ExecSet => self.set_exec(self.u[a]),
            Op::ExecWqm => {
                let old = self.exec;
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
                if self.exec == 0 {
                    next = imm;
                }
            }
            Op::Bexecnz => {
                if self.exec != 0 {
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
                if self.u[a] & self.exec == 0 {
                    next = imm;
                }
            }
            Op::Bany => {
                if self.u[a] & self.exec != 0 {
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
                self.retired += 1;
                core.committed += 1;
                self.status = WarpStatus::Ended;
                return None;
            }
            Op::Nop => {}
            Op::Barrier => {
                self.retired += 1;
                core.committed += 1;
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
            crate::mem_exec::memory_ops!() => {
                if let Err(f) = env.issue_async(self, prog, &inst, pc) {
                    return self.trap_at(pc, f.cause, f.info);
                }
            }
            // ---- floating point (crate::fp), then anything else asynchronous ----
            _ => match self.exec_fp(op, &inst, pc) {
                crate::fp::FpOutcome::Done => {}
                crate::fp::FpOutcome::Trap(cause, info) => return self.trap_at(pc, cause, info),
                crate::fp::FpOutcome::NotFp => {
                    if let Err(f) = env.issue_async(self, prog, &inst, pc) {
                        return self.trap_at(pc, f.cause, f.info);
                    }
                }
            },
        }
        self.pc = next;
        self.retired += 1;
        self.lane_ops += self.exec_lanes & 0u64.wrapping_sub(u64::from(inst.vector));
        core.committed += 1;
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

    /// Run until the warp stops (end, trap, barrier), has attempted `max_steps`
    /// instructions in total (then the status is `StepLimit`), or a hook returns
    /// [`Control::Stop`] (then the status stays `Running`, and a later call goes on exactly
    /// where this one stopped). The hooks are chosen by the type `H`: with
    /// [`crate::NoHooks`] the loop has no hook code at all.
    pub fn run<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
    ) {
        self.run_cancellable(prog, core, env, hooks, max_steps, &crate::control::NEVER);
    }

    /// As [`Warp::run`], also returning, with the warp still `Running`, once `cancel` is
    /// set (looked at every [`crate::control::CANCEL_CHECK_INTERVAL`] instructions) or the
    /// hooks ask to stop the run ([`Hooks::interrupt`], after each instruction). Calling it
    /// again resumes.
    pub fn run_cancellable<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
        cancel: &AtomicBool,
    ) {
        if self.status != WarpStatus::Running {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `run_avx2` only requires AVX2, which the processor was just found to
            // have. It is the same loop as below, its 32-lane rows compiled to 256-bit
            // vectors instead of baseline x86-64's 128-bit SSE2 (about twice as fast on
            // VALU-bound code, measured).
            unsafe { self.run_avx2(prog, core, env, hooks, max_steps, cancel) };
            return;
        }
        self.run_loop(prog, core, env, hooks, max_steps, cancel);
    }

    /// Execute one instruction through the same loop as [`Warp::run`] (step limit, hazard
    /// check, counts and hooks alike), then stop. Returns whether the warp is still
    /// `Running`. A step at the step limit executes nothing and sets `StepLimit`.
    pub fn step<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
    ) -> bool {
        let mut one = (crate::hooks::StepBudget::new(1), hooks);
        self.run(prog, core, env, &mut one, max_steps);
        self.status == WarpStatus::Running
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
        cancel: &AtomicBool,
    ) {
        self.run_loop(prog, core, env, hooks, max_steps, cancel);
    }

    /// Clear what the hooks read after an instruction: the write marks and the logs.
    #[inline(always)]
    fn clear_marks(&mut self) {
        self.last_trap = None;
        self.u.clear_written();
        self.v.clear_written();
        self.written_exec = false;
        self.csr.clear_written();
        self.retire_log.get_or_insert_with(Vec::new).clear();
        self.mem_log.get_or_insert_with(Vec::new).clear();
    }

    #[inline(always)]
    fn run_loop<E: Env, H: Hooks>(
        &mut self,
        prog: &Program,
        core: &mut Core,
        env: &mut E,
        hooks: &mut H,
        max_steps: u64,
        cancel: &AtomicBool,
    ) {
        // The step count lives in a register while the warp runs; `self.steps` is written
        // whenever something outside the loop may look at it.
        let mut steps = self.steps;
        // Always equal to `self.pc` here; kept in a register (see `step_at`).
        let mut pc = self.pc;
        // The loop compares the step count with one bound, the nearer of the step limit and
        // the next look at `cancel`, so cancellation adds nothing per instruction.
        let mut bound = max_steps.min(steps.saturating_add(CANCEL_CHECK_INTERVAL));
        // Translated code runs only where nothing observes single instructions.
        let translation = if H::ENABLED { None } else { prog.translation() };
        loop {
            if steps >= bound {
                self.steps = steps;
                if steps >= max_steps {
                    self.status = WarpStatus::StepLimit;
                    return;
                }
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                bound = max_steps.min(steps.saturating_add(CANCEL_CHECK_INTERVAL));
            }
            if let Some(t) = translation {
                // While stores are pending, every instruction is checked for hazards: that
                // is the interpreter's work.
                if !self.queue.watch {
                    if let Some((next, used)) = t.run(self, core, pc, bound - steps, env) {
                        steps += used;
                        pc = next;
                        continue;
                    }
                }
            }
            if H::ENABLED {
                self.steps = steps;
                if hooks.before(self, prog, pc) == Control::Stop {
                    return;
                }
            }
            steps += 1;
            if self.queue.watch {
                self.check_hazards(prog, pc);
            }
            if H::ENABLED {
                self.steps = steps;
                let exec = self.exec;
                self.clear_marks();
                let going = self.step_at(pc, prog, core, env);
                let control = hooks.after(self, prog, pc, exec);
                match going {
                    Some(next) if control == Control::Continue => pc = next,
                    _ => return,
                }
                if hooks.interrupt().is_some() {
                    return;
                }
            } else {
                match self.step_at(pc, prog, core, env) {
                    Some(next) => pc = next,
                    None => {
                        self.steps = steps;
                        return;
                    }
                }
            }
        }
    }

    // ---- what the hooks see of the last instruction ------------------------------------

    /// How many of this warp's steps translated code executed (the rest were interpreted).
    pub fn translated_steps(&self) -> u64 {
        self.translated
    }

    /// The vector registers the last instruction wrote synchronously (one bit each).
    /// Meaningful inside [`Hooks::after`]; asynchronous results are in
    /// [`Warp::retired_ops`].
    pub fn written_vregs(&self) -> u128 {
        self.v.written()
    }

    /// The uniform registers the last instruction wrote synchronously (one bit each).
    pub fn written_uregs(&self) -> u64 {
        self.u.written()
    }

    /// Whether the last instruction wrote EXEC.
    pub fn wrote_exec(&self) -> bool {
        self.written_exec
    }

    /// The CSRs other than EXEC the last instruction wrote (bit n for CSR number n), the
    /// trap CSRs of a trap its handler took included.
    pub fn written_csrs(&self) -> u128 {
        self.csr.written()
    }

    /// The trap the last instruction raised, taken by a handler or not.
    pub fn last_trap(&self) -> Option<Trap> {
        self.last_trap
    }

    /// The asynchronous operations the last instruction retired, oldest first.
    pub fn retired_ops(&self) -> &[crate::PendingOp] {
        self.retire_log.as_deref().unwrap_or_default()
    }

    /// The memory accesses the last instruction performed.
    pub fn mem_accesses(&self) -> &[MemAccess] {
        self.mem_log.as_deref().unwrap_or_default()
    }

    /// Whether hooks observe this warp (memory accesses are then logged).
    #[inline(always)]
    pub(crate) fn logging_memory(&self) -> bool {
        self.mem_log.is_some()
    }

    pub(crate) fn log_memory(&mut self, access: MemAccess) {
        if let Some(log) = &mut self.mem_log {
            log.push(access);
        }
    }

    // ---- state accessors (debuggers, bindings) -----------------------------------------

    /// Vector register `r`, one value per lane.
    pub fn vreg(&self, r: usize) -> Option<&[u32; LANES]> {
        self.v.get(r)
    }

    /// Set lane `lane` of vector register `r`; false if either is out of range.
    pub fn set_vreg_lane(&mut self, r: usize, lane: usize, value: u32) -> bool {
        match self.v.get_mut(r).and_then(|row| row.get_mut(lane)) {
            Some(x) => {
                *x = value;
                true
            }
            None => false,
        }
    }

    /// Uniform register `r`.
    pub fn ureg(&self, r: usize) -> Option<u32> {
        self.u.get(r).copied()
    }

    /// Set uniform register `r`; false if out of range.
    pub fn set_ureg(&mut self, r: usize, value: u32) -> bool {
        match self.u.get_mut(r) {
            Some(x) => {
                *x = value;
                true
            }
            None => false,
        }
    }

    /// The pending asynchronous operations of counter `c`, oldest first.
    pub fn pending(&self, c: usize) -> Vec<crate::PendingOp> {
        self.queue
            .ops()
            .filter(|op| usize::from(op.counter) == c)
            .collect()
    }
}

// ---- checkpoints ----------------------------------------------------------------------

/// A warp as a checkpoint stores it (docs/checkpoints.md): everything that outlives an
/// instruction. What the hooks read of the last instruction (write marks, logs) does not:
/// a checkpoint is taken between instructions, and the next one clears it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct WarpImage {
    id: WarpId,
    /// The vector registers that are not all zero: register number and its lanes.
    v: Vec<(u8, [u32; LANES])>,
    /// u0..u63.
    u: Vec<u32>,
    exec: u32,
    pc: u32,
    csr: CsrFile,
    status: WarpStatus,
    retired: u64,
    steps: u64,
    vgprs: u32,
    lane_ops: u64,
    queue: Vec<crate::asyncq::OpImage>,
    hazards: Vec<Hazard>,
    hazard_count: u64,
    fault_address: Option<(u64, u32)>,
}

impl Warp {
    pub(crate) fn image(&self) -> WarpImage {
        // Destructured so that a field added to `Warp` must be considered here too.
        let Warp {
            id,
            v,
            u,
            exec,
            lane_mask: _,
            exec_lanes: _,
            pc,
            csr,
            status,
            retired,
            steps,
            vgprs,
            last_trap: _,
            lane_ops,
            queue,
            hazards,
            hazard_count,
            fault_address,
            retire_log: _,
            mem_log: _,
            written_exec: _,
            translated: _,
        } = self;
        WarpImage {
            id: *id,
            v: v.iter()
                .enumerate()
                .filter(|(_, row)| row.iter().any(|&x| x != 0))
                .map(|(r, row)| (r as u8, *row))
                .collect(),
            u: u.to_vec(),
            exec: *exec,
            pc: *pc,
            csr: csr.clone(),
            status: *status,
            retired: *retired,
            steps: *steps,
            vgprs: *vgprs,
            lane_ops: *lane_ops,
            queue: queue.image(),
            hazards: hazards.clone(),
            hazard_count: *hazard_count,
            fault_address: *fault_address,
        }
    }

    /// The warp `image` describes, or why it cannot exist.
    pub(crate) fn from_image(image: WarpImage) -> Result<Warp, String> {
        let mut w = Warp::new(image.id, image.exec);
        for (r, row) in image.v {
            match w.v.get_mut(usize::from(r)) {
                Some(dst) => *dst = row,
                None => return Err(format!("vector register v{r} does not exist")),
            }
        }
        if image.u.len() != NUM_UREGS {
            return Err(format!(
                "{} uniform registers instead of {NUM_UREGS}",
                image.u.len()
            ));
        }
        w.u[0..NUM_UREGS].copy_from_slice(&image.u);
        if image.vgprs > NUM_VREGS as u32 {
            return Err(format!("{} vector registers allocated", image.vgprs));
        }
        w.pc = image.pc;
        w.csr = image.csr;
        w.status = image.status;
        w.retired = image.retired;
        w.steps = image.steps;
        w.vgprs = image.vgprs;
        w.lane_ops = image.lane_ops;
        w.queue = AsyncQueue::from_image(image.queue)?;
        w.hazards = image.hazards;
        w.hazard_count = image.hazard_count;
        w.fault_address = image.fault_address;
        w.written_exec = false;
        Ok(w)
    }
}
