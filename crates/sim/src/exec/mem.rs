//! The provisional memory instructions (`spec/provisional/memory.yaml`, docs/provisional.md,
//! docs/abi.md): addresses, alignment and mapping checks, the access itself at issue, and
//! the write-back queued for retirement (§2.6).

use crate::env::Env;
use crate::memory::{
    apply_atomic, check_alignment, GlobalMemory, ScratchMemory, SharedMemory, Space, SCRATCH_BASE,
};
use crate::program::{Code, Inst, Program};
use crate::state::access::{LaneAccess, MemAccess, MemKind, MemSpace};
use crate::state::queue::Part;
use crate::state::regs::LANES;
use crate::state::trap::CAUSE_UNSUPPORTED;
use crate::state::warp::Warp;
use crate::state::Fault;
use crate::Writeback;
use std::sync::atomic::{AtomicU32, Ordering};
use warpkit_isa::{Addressing as Addr, AtomicOp, Latency, MemoryAccess, MemoryPart, Op};

/// The environment of a workgroup: the launch's global memory, its shared memory and its
/// scratch memory.
pub struct MemEnv<'a> {
    /// The launch's global memory (code, argument block, buffers), shared by every
    /// workgroup.
    pub global: &'a GlobalMemory,
    /// This workgroup's shared memory, addressed from 0.
    pub shared: &'a mut SharedMemory,
    /// This workgroup's scratch memory: global addresses from [`SCRATCH_BASE`] on go here
    /// instead of to `global` (none unless [`MemEnv::with_scratch`] lends one).
    pub scratch: &'a ScratchMemory,
    /// The global region the last access from each slot of PCs hit (`hint_slot`): an
    /// instruction mostly stays in one region, while consecutive instructions often
    /// alternate between buffers (`a[i] = a[i] * b[i]`), so one hint for all would miss.
    hints: [usize; HINT_SLOTS],
    /// What translated code keeps beside global memory (its own region hints, pending
    /// rows and stores). The hints hold host addresses in `global`'s regions.
    direct: DirectSlot<'a>,
}

/// A [`MemEnv`]'s direct state: its own, or one a launch task keeps across its workgroups
/// (all on the same global memory), so region hints stay warm from one workgroup to the
/// next.
enum DirectSlot<'a> {
    Own(Box<crate::memory::direct::Direct>),
    Lent(&'a mut crate::memory::direct::Direct),
}

const HINT_SLOTS: usize = 16;

/// The scratch of an environment without any.
static NO_SCRATCH: ScratchMemory = ScratchMemory::none();

/// The hint of the instruction at `pc` (instructions are 4 or 8 bytes).
#[inline(always)]
fn hint_slot(pc: u32) -> usize {
    (pc as usize / 4) % HINT_SLOTS
}

/// The bytes of a word run: one word per lane.
const RUN_BYTES: u64 = 4 * LANES as u64;

impl<'a> MemEnv<'a> {
    /// The environment of a workgroup over `global` and `shared`, with translated code's
    /// state of its own (no region hints yet).
    pub fn new(global: &'a GlobalMemory, shared: &'a mut SharedMemory) -> MemEnv<'a> {
        MemEnv {
            global,
            shared,
            scratch: &NO_SCRATCH,
            hints: [0; HINT_SLOTS],
            direct: DirectSlot::Own(Box::new(crate::memory::direct::Direct::new())),
        }
    }

    /// The environment with `scratch` as the workgroup's scratch memory.
    pub fn with_scratch(mut self, scratch: &'a ScratchMemory) -> MemEnv<'a> {
        self.scratch = scratch;
        self
    }

    /// As [`MemEnv::new`], with translated code's state lent by the caller, which uses it
    /// with `global` only (a launch task, across its workgroups). Its region hints may come
    /// to name the scratch memory this environment is given: the caller empties those
    /// (`Direct::forget_scratch`) before that scratch is released.
    pub(crate) fn with_direct(
        global: &'a GlobalMemory,
        shared: &'a mut SharedMemory,
        direct: &'a mut crate::memory::direct::Direct,
    ) -> MemEnv<'a> {
        MemEnv {
            global,
            shared,
            scratch: &NO_SCRATCH,
            hints: [0; HINT_SLOTS],
            direct: DirectSlot::Lent(direct),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `part` says which bits of the destination a 16-bit `d16` load replaces.
    Load {
        size: u32,
        signed: bool,
        part: Part,
    },
    Store {
        size: u32,
    },
    Atomic {
        op: AtomicOp,
        rtn: bool,
    },
    ULoad {
        size: u32,
    },
    Cache,
}

/// What the memory instruction `op` does, from its database entry (`memory` in
/// `spec/provisional/memory.yaml`); `None` for any other instruction.
fn describe(op: Op) -> Option<(Kind, Addr)> {
    let m = op.def().memory?;
    let size = u32::from(m.size);
    let kind = match m.access {
        MemoryAccess::Load if m.address == Addr::Uniform => Kind::ULoad { size },
        MemoryAccess::Load => Kind::Load {
            size,
            signed: m.signed,
            part: match m.part {
                MemoryPart::Whole => Part::Whole,
                MemoryPart::Low16 => Part::Low16,
                MemoryPart::High16 => Part::High16,
            },
        },
        MemoryAccess::Store => Kind::Store { size },
        MemoryAccess::Atomic => Kind::Atomic {
            op: m.atomic?,
            rtn: m.returns,
        },
        MemoryAccess::Invalidate | MemoryAccess::Writeback => Kind::Cache,
    };
    Some((kind, m.address))
}

/// Each lane's byte address of an access in `space` (docs/isa, `spec/provisional/memory.yaml`):
/// global `U64[rs2] + zext(v[rs1][l]) + imm`, `A64` `V64[rs1][l] + imm`, shared
/// `zext(v[rs1][l]) + imm`, uniform `U64[rs1] + imm` (in every lane). The one definition the
/// execution and the observers that need addresses before an access ([`memory_addresses`]) share.
#[inline]
fn lane_addresses(space: Addr, warp: &Warp, rs1: usize, rs2: usize, offset: u64) -> [u64; LANES] {
    let mut addrs = [0u64; LANES];
    match space {
        Addr::Global => {
            let base = warp.u64(rs2).wrapping_add(offset);
            for (l, a) in addrs.iter_mut().enumerate() {
                *a = base.wrapping_add(u64::from(warp.v[rs1][l]));
            }
        }
        Addr::A64 => {
            for (a, p) in addrs.iter_mut().zip(warp.vpair(rs1)) {
                *a = p.wrapping_add(offset);
            }
        }
        Addr::Shared => {
            for (l, a) in addrs.iter_mut().enumerate() {
                *a = u64::from(warp.v[rs1][l]).wrapping_add(offset);
            }
        }
        Addr::Uniform => addrs = [warp.u64(rs1).wrapping_add(offset); LANES],
        Addr::None => {}
    }
    addrs
}

/// The byte addresses the memory instruction at `pc` would access if `warp` executed it now,
/// computed from its registers as the execution does: lane `l`'s in `[l]` (the lanes of
/// `warp.exec()` access; a uniform access is lane 0's, repeated), with the bytes per lane.
/// `None` for an instruction that accesses no memory by address (not a memory
/// instruction, cache control). For observers that model memory without the per-lane
/// log (a timing model's recorder, `Hooks::MEMORY_LOG = false`).
pub fn memory_addresses(warp: &Warp, prog: &Program, pc: u32) -> Option<([u64; LANES], u32)> {
    let inst = prog.fetch(pc)?;
    let Code::Op(op) = inst.code else {
        return None;
    };
    let (kind, space) = describe(op)?;
    if kind == Kind::Cache {
        return None;
    }
    let size = op.def().memory.map_or(4, |m| u32::from(m.size));
    let addrs = lane_addresses(
        space,
        warp,
        usize::from(inst.rs1),
        usize::from(inst.rs2),
        sext64(inst.imm),
    );
    Some((addrs, size))
}

#[inline]
fn sext64(x: u32) -> u64 {
    x as i32 as i64 as u64
}

impl MemEnv<'_> {
    /// Whether a store or atomic may access `size` bytes at `addr`.
    fn check_write(&self, space: Addr, addr: u64, size: u32) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        if space == Addr::Shared {
            self.shared.word_index(addr, size).map(|_| ())
        } else if addr >= SCRATCH_BASE {
            self.scratch.check(addr, size)
        } else {
            self.global.check_write(addr, size)
        }
    }

    /// Read `size` bytes at `addr` of shared memory, or else of the global address space
    /// (scratch included).
    fn read(&self, space: Addr, addr: u64, size: u32, out: &mut [u32]) -> Result<(), Fault> {
        if space == Addr::Shared {
            self.shared.read(addr, size, out)
        } else if addr >= SCRATCH_BASE {
            self.scratch.read(addr, size, out)
        } else {
            self.global.read_shared(addr, size, out)
        }
    }

    fn write(&mut self, space: Addr, addr: u64, size: u32, data: &[u32]) -> Result<(), Fault> {
        if space == Addr::Shared {
            self.shared.write(addr, size, data)
        } else if addr >= SCRATCH_BASE {
            self.scratch.write(addr, size, data)
        } else {
            self.global.write_shared(addr, size, data)
        }
    }

    fn rmw(
        &mut self,
        space: Addr,
        addr: u64,
        op: AtomicOp,
        data: u32,
        compare: u32,
    ) -> Result<u32, Fault> {
        if space == Addr::Shared {
            self.shared.atomic(addr, op, data, compare)
        } else if addr >= SCRATCH_BASE {
            self.scratch.atomic(addr, op, data, compare)
        } else {
            self.global.atomic_shared(addr, op, data, compare)
        }
    }
}

impl Env for MemEnv<'_> {
    fn issue_async(
        &mut self,
        warp: &mut Warp,
        prog: &Program,
        inst: &Inst,
        pc: u32,
    ) -> Result<(), Fault> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `issue_avx2` only requires AVX2, which the processor was just found
            // to have. Same code, lane loops in 256-bit vectors (fewer host instructions
            // per memory instruction, measured with callgrind).
            return unsafe { self.issue_avx2(warp, prog, inst, pc) };
        }
        self.issue_baseline(warp, prog, inst, pc)
    }

    #[inline(always)]
    fn direct(&mut self) -> Option<crate::memory::DirectMemory<'_>> {
        Some(crate::memory::DirectMemory {
            state: match &mut self.direct {
                DirectSlot::Own(d) => d,
                DirectSlot::Lent(d) => d,
            },
            global: self.global,
            scratch: self.scratch,
            shared: self.shared,
        })
    }
}

impl MemEnv<'_> {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn issue_avx2(
        &mut self,
        warp: &mut Warp,
        prog: &Program,
        inst: &Inst,
        pc: u32,
    ) -> Result<(), Fault> {
        self.issue(warp, prog, inst, pc)
    }

    /// [`MemEnv::issue`] for hosts without AVX2, out of line: inlined into `issue_async`,
    /// its registers would cost every call a longer prologue on the AVX2 path too.
    #[inline(never)]
    fn issue_baseline(
        &mut self,
        warp: &mut Warp,
        prog: &Program,
        inst: &Inst,
        pc: u32,
    ) -> Result<(), Fault> {
        self.issue(warp, prog, inst, pc)
    }

    #[inline(always)]
    fn issue(
        &mut self,
        warp: &mut Warp,
        prog: &Program,
        inst: &Inst,
        pc: u32,
    ) -> Result<(), Fault> {
        let unsupported = || Fault {
            cause: CAUSE_UNSUPPORTED,
            info: prog.encoding(pc).0 as u32,
        };
        let Code::Op(op) = inst.code else {
            return Err(unsupported());
        };
        if self.word_run(warp, op, inst, pc) {
            return Ok(());
        }
        let Latency::Async(counter) = op.def().latency else {
            return Err(unsupported());
        };
        let counter = usize::from(counter);
        let Some((kind, space)) = describe(op) else {
            return Err(unsupported());
        };
        let (rd, rs1, rs2) = (
            usize::from(inst.rd),
            usize::from(inst.rs1),
            usize::from(inst.rs2),
        );
        let offset = sext64(inst.imm);
        match kind {
            Kind::Cache => {
                warp.issue(counter, pc, Writeback::None);
                return Ok(());
            }
            Kind::ULoad { size } => {
                let addr = lane_addresses(space, warp, rs1, rs2, offset)[0];
                let mut data = [0u32; 8];
                if let Err(f) = self.read(space, addr, size, &mut data) {
                    warp.fault_address = Some((addr, 0));
                    return Err(f);
                }
                if warp.logging_memory() {
                    let words = &data[..(size as usize).div_ceil(4)];
                    warp.log_memory(MemAccess {
                        kind: MemKind::Load,
                        space: MemSpace::Global,
                        size,
                        lanes: vec![LaneAccess::new(0, addr, size, words)],
                    });
                }
                warp.issue(
                    counter,
                    pc,
                    Writeback::U {
                        first: inst.rd,
                        count: (size / 4) as u8,
                        data,
                    },
                );
                return Ok(());
            }
            _ => {}
        }
        let exec = warp.exec();
        let size = match kind {
            Kind::Load { size, .. } | Kind::Store { size } => size,
            _ => 4,
        };
        // The fast path: every active lane aligned and inside one region (global) or inside
        // shared memory. Then no lane can fault, so one lookup serves the whole instruction
        // and the lanes run without per-lane checks; anything else takes the lane-by-lane
        // path below, which finds the faulting lane exactly as before. While hooks observe
        // the warp every access takes that path, which logs each lane's access.
        let logging = warp.logging_memory();
        if space != Addr::A64 && exec != 0 && !logging {
            // `base + zext(v[rs1]) + sext(imm)`: bounds from the 32-bit lane offsets, so the
            // span is a SIMD min/max over u32 lanes.
            let b = match space {
                Addr::Global => warp.u64(rs2).wrapping_add(offset),
                _ => offset,
            };
            let v = &warp.v[rs1];
            let (min, max, bits) = span32(exec, v);
            let align = u64::from(size.min(4));
            // (b | v) aligned implies b + v aligned; the converse case takes the slow path.
            if (b | u64::from(bits)) & (align - 1) == 0 {
                if let Some(end) = b.checked_add(u64::from(max) + u64::from(size)) {
                    let lo = b + u64::from(min);
                    let region = if space == Addr::Shared {
                        (end <= self.shared.len()).then_some((0, None))
                    } else {
                        self.span(pc, lo, end, writes(kind))
                            .map(|(base, words)| (base, Some(words)))
                    };
                    if let Some((rbase, words)) = region {
                        let bias = b.wrapping_sub(rbase);
                        let v = *v;
                        let rel = move |l: usize| bias.wrapping_add(u64::from(v[l]));
                        return self.fast_at(words, warp, kind, counter, pc, inst, rel);
                    }
                }
            }
        }
        if matches!(space, Addr::Uniform | Addr::None) {
            return Err(unsupported());
        }
        let addrs = lane_addresses(space, warp, rs1, rs2, offset);
        if space == Addr::A64 {
            if let Some((lo, end)) = active_span(exec, &addrs, size).filter(|_| !logging) {
                if let Some((rbase, words)) = self.span(pc, lo, end, writes(kind)) {
                    let mut rel = [0u64; LANES];
                    for (r, &a) in rel.iter_mut().zip(&addrs) {
                        *r = a.wrapping_sub(rbase);
                    }
                    let rel = move |l: usize| rel[l];
                    return self.fast_at(Some(words), warp, kind, counter, pc, inst, rel);
                }
            }
        }
        // Every active lane is checked before any store or atomic: a faulting instruction
        // changes nothing (docs/abi.md). The lowest faulting lane names the address. Loads
        // change nothing until their write-back is queued, so they check as they read.
        if !matches!(kind, Kind::Load { .. }) {
            for (l, &a) in addrs.iter().enumerate() {
                if (exec >> l) & 1 != 0 {
                    if let Err(f) = self.check_write(space, a, size) {
                        warp.fault_address = Some((a, l as u32));
                        return Err(f);
                    }
                }
            }
        }
        let regs = (size as usize).div_ceil(4);
        let mut log = logging.then(|| MemAccess {
            kind: match kind {
                Kind::Store { .. } => MemKind::Store,
                Kind::Atomic { .. } => MemKind::Atomic,
                _ => MemKind::Load,
            },
            space: if space == Addr::Shared {
                MemSpace::Shared
            } else {
                MemSpace::Global
            },
            size,
            lanes: Vec::new(),
        });
        match kind {
            Kind::Load { size, signed, part } => {
                let mut data = [[0u32; LANES]; 4];
                let mut buf = [0u32; 4];
                for (l, &a) in addrs.iter().enumerate() {
                    if (exec >> l) & 1 == 0 {
                        continue;
                    }
                    if let Err(f) = self.read(space, a, size, &mut buf) {
                        warp.fault_address = Some((a, l as u32));
                        return Err(f);
                    }
                    if let Some(log) = &mut log {
                        log.lanes
                            .push(LaneAccess::new(l as u32, a, size, &buf[..regs]));
                    }
                    for k in 0..regs {
                        data[k][l] = buf[k];
                    }
                    data[0][l] = extend(buf[0], size, signed, part);
                }
                warp.issue_v(counter, pc, inst.rd, exec, part, &data[..regs]);
            }
            Kind::Store { size } => {
                // Ascending lanes: where lanes collide, the highest active lane's value stays.
                let mut buf = [0u32; 4];
                for (l, &a) in addrs.iter().enumerate() {
                    if (exec >> l) & 1 == 0 {
                        continue;
                    }
                    for (k, b) in buf.iter_mut().enumerate().take(regs) {
                        *b = warp.v.get(rd + k).map_or(0, |r| r[l]);
                    }
                    self.write(space, a, size, &buf)?;
                    if let Some(log) = &mut log {
                        log.lanes
                            .push(LaneAccess::new(l as u32, a, size, &buf[..regs]));
                    }
                }
                warp.issue(counter, pc, Writeback::None);
            }
            Kind::Atomic { op: aop, rtn } => {
                let mut old = [0u32; LANES];
                for (l, &a) in addrs.iter().enumerate() {
                    if (exec >> l) & 1 == 0 {
                        continue;
                    }
                    let (data, compare) = atomic_operands(warp, aop, rd, l);
                    old[l] = self.rmw(space, a, aop, data, compare)?;
                    if let Some(log) = &mut log {
                        let mut new = [0u32];
                        self.read(space, a, 4, &mut new)?;
                        let mut access = LaneAccess::new(l as u32, a, 4, &new);
                        access.old = Some(old[l]);
                        log.lanes.push(access);
                    }
                }
                issue_atomic(warp, counter, pc, inst, exec, rtn, &old);
            }
            Kind::ULoad { .. } | Kind::Cache => {}
        }
        if let Some(log) = log {
            warp.log_memory(log);
        }
        Ok(())
    }
}

impl<'a> MemEnv<'a> {
    /// The word run: `gload.b32`, `gstore.b32`, `dsload.b32` or `dsstore.b32` with every
    /// lane active, lane `l` at `lo + 4l` for an aligned `lo`, and the 32 words inside one
    /// region (writable for a store) or inside shared memory. One bounds check and one
    /// copy of 32 words between the register row and memory (relaxed atomic words for
    /// global memory, as everywhere). Then no lane can fault and the words are distinct,
    /// so the result is the lane-by-lane path's. Returns false, having done nothing, for
    /// anything else, and while hooks observe the warp (that path logs each lane).
    #[inline(always)]
    fn word_run(&mut self, warp: &mut Warp, op: Op, inst: &Inst, pc: u32) -> bool {
        let (load, shared) = match op {
            Op::GloadB32 => (true, false),
            Op::GstoreB32 => (false, false),
            Op::DsloadB32 => (true, true),
            Op::DsstoreB32 => (false, true),
            _ => return false,
        };
        if warp.exec() != u32::MAX || warp.logging_memory() {
            return false;
        }
        let Some(v) = warp.v.get(usize::from(inst.rs1)) else {
            return false;
        };
        // Consecutive words: v[l] = v[0] + 4l, and v[0] + 4 * 31 does not wrap in 32 bits
        // (the lane offsets are zero-extended).
        let v0 = v[0];
        let mut diff = 0;
        for (l, &x) in v.iter().enumerate() {
            diff |= x ^ v0.wrapping_add(4 * l as u32);
        }
        if diff != 0 || v0.checked_add(4 * (LANES as u32 - 1)).is_none() {
            return false;
        }
        let offset = sext64(inst.imm);
        let base = if shared {
            offset
        } else {
            warp.u64(usize::from(inst.rs2)).wrapping_add(offset)
        };
        // Lane l's address is `base + zext(v[l])` = `lo + 4l`: nothing wraps below `end`.
        let lo = base.wrapping_add(u64::from(v0));
        let Some(end) = lo.checked_add(RUN_BYTES) else {
            return false;
        };
        if lo % 4 != 0 {
            return false;
        }
        let Latency::Async(counter) = op.def().latency else {
            return false;
        };
        let counter = usize::from(counter);
        let rd = usize::from(inst.rd);
        if shared {
            if end > self.shared.len() {
                return false;
            }
            let i = (lo / 4) as usize;
            if load {
                let words = self.shared.words();
                warp.issue_row(counter, pc, inst.rd, |row| match words.get(i..i + LANES) {
                    Some(w) => row.copy_from_slice(w),
                    // Never written: every word reads 0.
                    None => *row = [0; LANES],
                });
            } else {
                let Some(src) = warp.v.get(rd) else {
                    return false;
                };
                self.shared.words_mut()[i..i + LANES].copy_from_slice(src);
                warp.issue(counter, pc, Writeback::None);
            }
            return true;
        }
        let Some((rbase, words)) = self.span(pc, lo, end, !load) else {
            return false;
        };
        let i = ((lo - rbase) / 4) as usize;
        let words = &words[i..i + LANES];
        if load {
            warp.issue_row(counter, pc, inst.rd, |row| {
                for (o, w) in row.iter_mut().zip(words) {
                    *o = w.load(Ordering::Relaxed);
                }
            });
        } else {
            let Some(src) = warp.v.get(rd) else {
                return false;
            };
            for (w, &x) in words.iter().zip(src) {
                w.store(x, Ordering::Relaxed);
            }
            warp.issue(counter, pc, Writeback::None);
        }
        true
    }

    /// The base and words of the region of the global address space holding every byte
    /// of `lo..end` (writable, for a store), through the hint of the instruction at `pc`:
    /// a region of global memory or, only where global memory has none (its hits pay
    /// nothing for it), a warp's scratch region.
    #[inline(always)]
    fn span(&mut self, pc: u32, lo: u64, end: u64, write: bool) -> Option<(u64, &'a [AtomicU32])> {
        let global = self.global;
        let hint = &mut self.hints[hint_slot(pc)];
        if let Some(found) = global.span_hinted(lo, end, write, hint) {
            return Some(found);
        }
        self.scratch_span(lo, end)
    }

    /// The warp region of scratch memory holding `lo..end`: out of line, where global
    /// memory's lookup missed.
    #[cold]
    #[inline(never)]
    fn scratch_span(&self, lo: u64, end: u64) -> Option<(u64, &'a [AtomicU32])> {
        self.scratch.span(lo, end)
    }

    /// Run the fast path on `words`, the words of a region of the global address space,
    /// or (`None`) on shared memory; `rel` holds each lane's byte offset from the region's
    /// (4-byte aligned) base.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fast_at(
        &mut self,
        words: Option<&[AtomicU32]>,
        warp: &mut Warp,
        kind: Kind,
        counter: usize,
        pc: u32,
        inst: &Inst,
        rel: impl Fn(usize) -> u64 + Copy,
    ) -> Result<(), Fault> {
        if let Some(words) = words {
            return fast(GlobalWords(words), warp, kind, counter, pc, inst, rel);
        }
        if matches!(kind, Kind::Load { .. }) && self.shared.words().is_empty() {
            // Never written: every word reads 0, and nothing needs allocating.
            return fast(SharedWords(&mut []), warp, kind, counter, pc, inst, rel);
        }
        let words = SharedWords(self.shared.words_mut());
        fast(words, warp, kind, counter, pc, inst, rel)
    }
}

/// Over the active lanes of `v`: the minimum, the maximum and the OR of the values.
#[inline(always)]
fn span32(exec: u32, v: &[u32; LANES]) -> (u32, u32, u32) {
    let (mut min, mut max, mut bits) = (u32::MAX, 0u32, 0u32);
    for (l, &x) in v.iter().enumerate() {
        let m = 0u32.wrapping_sub((exec >> l) & 1);
        min = min.min(x | !m);
        max = max.max(x & m);
        bits |= x & m;
    }
    (min, max, bits)
}

/// The lowest active address and the end of the highest active access, if every active
/// lane is aligned for `size` and nothing wraps; `None` also when no lane is active.
#[inline(always)]
fn active_span(exec: u32, addrs: &[u64; LANES], size: u32) -> Option<(u64, u64)> {
    let mut lo = u64::MAX;
    let mut hi = 0u64;
    let mut bits = 0u64;
    for (l, &a) in addrs.iter().enumerate() {
        let on = (exec >> l) & 1 != 0;
        lo = lo.min(if on { a } else { u64::MAX });
        hi = hi.max(if on { a } else { 0 });
        bits |= if on { a } else { 0 };
    }
    let align = u64::from(size.min(4));
    if exec == 0 || bits & (align - 1) != 0 {
        return None;
    }
    Some((lo, hi.checked_add(u64::from(size))?))
}

/// A loaded value as it goes into the destination: sign-extended, or moved into its half.
#[inline(always)]
fn extend(x: u32, size: u32, signed: bool, part: Part) -> u32 {
    match (signed, size, part) {
        (_, _, Part::High16) => x << 16,
        (true, 1, _) => x as u8 as i8 as i32 as u32,
        (true, 2, _) => x as u16 as i16 as i32 as u32,
        _ => x,
    }
}

/// The data and compare value of an atomic in lane `l` (`cmpswap`: low register compare,
/// high register new value).
#[inline(always)]
/// Whether an access of this kind writes memory (read-only code refuses it).
fn writes(kind: Kind) -> bool {
    matches!(kind, Kind::Store { .. } | Kind::Atomic { .. })
}

fn atomic_operands(warp: &Warp, aop: AtomicOp, rd: usize, l: usize) -> (u32, u32) {
    let lo = warp.v[rd][l];
    if aop == AtomicOp::Cmpswap {
        (warp.v.get(rd + 1).map_or(0, |r| r[l]), lo)
    } else {
        (lo, 0)
    }
}

fn issue_atomic(
    warp: &mut Warp,
    counter: usize,
    pc: u32,
    inst: &Inst,
    exec: u32,
    rtn: bool,
    old: &[u32; LANES],
) {
    if rtn {
        warp.issue_v(
            counter,
            pc,
            inst.rd,
            exec,
            Part::Whole,
            std::slice::from_ref(old),
        );
    } else {
        warp.issue(counter, pc, Writeback::None);
    }
}

/// Word access for the fast paths, where every index is known to be in bounds.
trait Words {
    /// Words `i..i + LANES`.
    fn get_run(&self, i: usize, out: &mut [u32; LANES]);
    fn set_run(&mut self, i: usize, src: &[u32; LANES]);
    fn get(&self, i: usize) -> u32;
    fn set(&mut self, i: usize, v: u32);
    /// Replace the bits of `mask` in word `i` with those of `v`.
    fn set_bits(&mut self, i: usize, mask: u32, v: u32);
    fn rmw(&mut self, i: usize, op: AtomicOp, data: u32, compare: u32) -> u32;
}

struct GlobalWords<'a>(&'a [AtomicU32]);

impl Words for GlobalWords<'_> {
    #[inline(always)]
    fn get_run(&self, i: usize, out: &mut [u32; LANES]) {
        for (o, w) in out.iter_mut().zip(&self.0[i..i + LANES]) {
            *o = w.load(Ordering::Relaxed);
        }
    }
    #[inline(always)]
    fn set_run(&mut self, i: usize, src: &[u32; LANES]) {
        for (w, &x) in self.0[i..i + LANES].iter().zip(src) {
            w.store(x, Ordering::Relaxed);
        }
    }
    #[inline(always)]
    fn get(&self, i: usize) -> u32 {
        self.0[i].load(Ordering::Relaxed)
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: u32) {
        self.0[i].store(v, Ordering::Relaxed);
    }
    #[inline(always)]
    fn set_bits(&mut self, i: usize, mask: u32, v: u32) {
        // A compare-and-swap loop, so neighbouring bytes written by other threads survive.
        let _ = self.0[i].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
            Some((old & !mask) | (v & mask))
        });
    }
    #[inline(always)]
    fn rmw(&mut self, i: usize, op: AtomicOp, data: u32, compare: u32) -> u32 {
        self.0[i]
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
                Some(apply_atomic(op, old, data, compare))
            })
            .unwrap_or_else(|x| x)
    }
}

/// Shared memory words; an empty slice is memory never written (reads 0, loads only).
struct SharedWords<'a>(&'a mut [u32]);

impl Words for SharedWords<'_> {
    #[inline(always)]
    fn get_run(&self, i: usize, out: &mut [u32; LANES]) {
        match self.0.get(i..i + LANES) {
            Some(w) => out.copy_from_slice(w),
            None => *out = [0; LANES],
        }
    }
    #[inline(always)]
    fn set_run(&mut self, i: usize, src: &[u32; LANES]) {
        self.0[i..i + LANES].copy_from_slice(src);
    }
    #[inline(always)]
    fn get(&self, i: usize) -> u32 {
        self.0.get(i).copied().unwrap_or(0)
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: u32) {
        self.0[i] = v;
    }
    #[inline(always)]
    fn set_bits(&mut self, i: usize, mask: u32, v: u32) {
        let w = &mut self.0[i];
        *w = (*w & !mask) | (v & mask);
    }
    #[inline(always)]
    fn rmw(&mut self, i: usize, op: AtomicOp, data: u32, compare: u32) -> u32 {
        let old = self.0[i];
        self.0[i] = apply_atomic(op, old, data, compare);
        old
    }
}

/// The word holding byte offset `rel` of a region.
#[inline(always)]
fn word(rel: u64) -> usize {
    (rel / 4) as usize
}

/// With every lane active and lane `l` at byte `rel(0) + 4l`, the word of lane 0: the
/// 32 lanes are 32 consecutive words.
#[inline(always)]
fn contiguous(exec: u32, rel: &impl Fn(usize) -> u64) -> Option<usize> {
    if exec != u32::MAX {
        return None;
    }
    let r0 = rel(0);
    let mut ok = true;
    for l in 1..LANES {
        ok &= rel(l) == r0.wrapping_add(4 * l as u64);
    }
    ok.then_some(word(r0))
}

/// The active lanes in ascending order.
#[inline(always)]
fn lanes(exec: u32) -> impl Iterator<Item = usize> {
    let mut m = exec;
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(l)
    })
}

/// A vector memory instruction whose active lanes are all aligned and in bounds.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn fast<W: Words>(
    mut words: W,
    warp: &mut Warp,
    kind: Kind,
    counter: usize,
    pc: u32,
    inst: &Inst,
    rel: impl Fn(usize) -> u64,
) -> Result<(), Fault> {
    let rd = usize::from(inst.rd);
    let exec = warp.exec();
    match kind {
        Kind::Load { size, signed, part } => match size {
            4 => {
                let mut data = [0u32; LANES];
                if let Some(first) = contiguous(exec, &rel) {
                    words.get_run(first, &mut data);
                } else {
                    for l in lanes(exec) {
                        data[l] = words.get(word(rel(l)));
                    }
                }
                warp.issue_v(
                    counter,
                    pc,
                    inst.rd,
                    exec,
                    part,
                    std::slice::from_ref(&data),
                );
            }
            8 | 16 => {
                let regs = size as usize / 4;
                let mut data = [[0u32; LANES]; 4];
                for l in lanes(exec) {
                    let i = word(rel(l));
                    for (k, row) in data.iter_mut().enumerate().take(regs) {
                        row[l] = words.get(i + k);
                    }
                }
                warp.issue_v(counter, pc, inst.rd, exec, part, &data[..regs]);
            }
            _ => {
                let mut data = [0u32; LANES];
                for l in lanes(exec) {
                    let a = rel(l);
                    let w = words.get(word(a));
                    let x = (w >> (8 * (a & 3))) & if size == 1 { 0xff } else { 0xffff };
                    data[l] = extend(x, size, signed, part);
                }
                warp.issue_v(
                    counter,
                    pc,
                    inst.rd,
                    exec,
                    part,
                    std::slice::from_ref(&data),
                );
            }
        },
        Kind::Store { size } => {
            // Ascending lanes: where lanes collide, the highest active lane's value stays.
            let v = &warp.v;
            match size {
                4 => {
                    let src = &v[rd];
                    if let Some(first) = contiguous(exec, &rel) {
                        // Distinct words, so the order of the lanes does not matter.
                        words.set_run(first, src);
                    } else {
                        for l in lanes(exec) {
                            let i = word(rel(l));
                            words.set(i, src[l]);
                        }
                    }
                }
                8 | 16 => {
                    let regs = size as usize / 4;
                    for l in lanes(exec) {
                        let i = word(rel(l));
                        for k in 0..regs {
                            words.set(i + k, v.get(rd + k).map_or(0, |r| r[l]));
                        }
                    }
                }
                _ => {
                    let src = &v[rd];
                    let ones: u32 = if size == 1 { 0xff } else { 0xffff };
                    for l in lanes(exec) {
                        let a = rel(l);
                        let shift = 8 * (a & 3) as u32;
                        let i = word(a);
                        words.set_bits(i, ones << shift, src[l] << shift);
                    }
                }
            }
            warp.issue(counter, pc, Writeback::None);
        }
        Kind::Atomic { op: aop, rtn } => {
            let mut old = [0u32; LANES];
            for l in lanes(exec) {
                let (data, compare) = atomic_operands(warp, aop, rd, l);
                let i = word(rel(l));
                old[l] = words.rmw(i, aop, data, compare);
            }
            issue_atomic(warp, counter, pc, inst, exec, rtn, &old);
        }
        Kind::ULoad { .. } | Kind::Cache => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{GlobalMemory, SharedMemory};
    use crate::state::warp::WarpId;

    #[test]
    fn the_dispatched_memory_operations_are_the_ones_described() {
        for op in warpkit_isa::ALL_OPS {
            let memory = matches!(
                op.def().operation,
                "load" | "store" | "atomic" | "cache_inv" | "cache_wb"
            );
            assert_eq!(memory, describe(op).is_some(), "{}", op.mnemonic());
        }
    }

    /// Whether the instruction takes the word run, on a warp with lane offsets `v1` (EXEC
    /// `exec`) and base u[4:5] = 0x1000, over 256 bytes at 0x1000, 256 read-only bytes at
    /// 0x2000 and 256 bytes of shared memory.
    fn runs(src: &str, v1: impl Fn(u32) -> u32, exec: u32, base: u64) -> bool {
        let text = match warpkit_asm::assemble(src, "t.s") {
            Ok(p) => p.text,
            Err(e) => panic!("{}", e.render(src)),
        };
        let prog = Program::new(text);
        let inst = *prog.fetch(0).unwrap();
        let Code::Op(op) = inst.code else {
            panic!("{src}")
        };
        let mut global = GlobalMemory::default();
        assert!(global.map(0x1000, &[7; 256]));
        assert!(global.map_read_only(0x2000, &[9; 256]));
        let mut shared = SharedMemory::new(256);
        let mut env = MemEnv::new(&global, &mut shared);
        let mut warp = Warp::new(WarpId::default(), exec);
        warp.u[4] = base as u32;
        warp.u[5] = (base >> 32) as u32;
        for l in 0..LANES {
            warp.v[1][l] = v1(l as u32);
        }
        let ran = env.word_run(&mut warp, op, &inst, 0);
        assert_eq!(
            warp.queue.is_empty(),
            !ran,
            "{src}: queued without the word run"
        );
        ran
    }

    #[test]
    fn the_word_run_takes_consecutive_aligned_runs_in_one_region_only() {
        let full = u32::MAX;
        let step = |s: u32, from: u32| move |l: u32| from + s * l;
        for src in [
            "gload.b32 v8, v1, u[4:5], 0",
            "gstore.b32 v2, v1, u[4:5], 0",
        ] {
            assert!(runs(src, step(4, 0), full, 0x1000), "{src}");
            assert!(
                runs(src, step(4, 128), full, 0x1000),
                "{src}: last 32 words"
            );
            assert!(
                !runs(src, step(4, 132), full, 0x1000),
                "{src}: past the end"
            );
            assert!(
                !runs(src, step(4, 0), full, 0xf80),
                "{src}: before the start"
            );
            assert!(!runs(src, step(4, 2), full, 0x1000), "{src}: misaligned");
            assert!(
                !runs(src, step(4, 0), full, 0x1002),
                "{src}: misaligned base"
            );
            assert!(!runs(src, step(8, 0), full, 0x1000), "{src}: strided");
            assert!(!runs(src, step(0, 0), full, 0x1000), "{src}: one word");
            assert!(
                !runs(src, step(4, 0), full >> 1, 0x1000),
                "{src}: partial EXEC"
            );
            assert!(
                !runs(src, |l| l.wrapping_sub(1).wrapping_mul(4), full, 0x1000),
                "{src}: lane offsets wrap"
            );
            assert!(
                !runs(src, step(4, 0), full, u64::MAX - 63),
                "{src}: addresses wrap"
            );
        }
        assert!(runs(
            "gload.b32 v8, v1, u[4:5], 0",
            step(4, 0),
            full,
            0x2000
        ));
        assert!(!runs(
            "gstore.b32 v2, v1, u[4:5], 0",
            step(4, 0),
            full,
            0x2000
        ));
        for src in ["dsload.b32 v8, v1, 0", "dsstore.b32 v2, v1, 0"] {
            assert!(runs(src, step(4, 128), full, 0), "{src}");
            assert!(!runs(src, step(4, 132), full, 0), "{src}: past the end");
            assert!(!runs(src, step(4, 1), full, 0), "{src}: misaligned");
        }
        for src in [
            "gload.u8 v8, v1, u[4:5], 0",
            "gload.b64 v[8:9], v1, u[4:5], 0",
            "gstore.b16 v2, v1, u[4:5], 0",
            "gload.b32.a64 v8, v[0:1], 0",
            "gatomic.add v2, v1, u[4:5], 0",
        ] {
            assert!(!runs(src, step(4, 0), full, 0x1000), "{src}");
        }
    }
}
