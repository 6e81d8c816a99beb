//! The provisional memory instructions (`spec/provisional/memory.yaml`, docs/provisional.md,
//! docs/abi.md): addresses, alignment and mapping checks, the access itself at issue, and
//! the write-back queued for retirement (§2.6).

use crate::env::{Env, Fault};
use crate::memory::{check_alignment, AtomicOp, GlobalMemory, SharedMemory, Space};
use crate::program::{Code, Inst, Program};
use crate::trap::CAUSE_UNSUPPORTED;
use crate::warp::{Warp, LANES};
use crate::Writeback;
use warpkit_isa::{Latency, Op};

/// The environment of a workgroup: the launch's global memory and its shared memory.
pub struct MemEnv<'a> {
    pub global: &'a GlobalMemory,
    pub shared: &'a mut SharedMemory,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load { size: u32, signed: bool },
    Store { size: u32 },
    Atomic { op: AtomicOp, rtn: bool },
    ULoad { size: u32 },
    Cache,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Addr {
    /// `U64[rs2] + zext(v[rs1]) + sext(imm)`.
    Global,
    /// `V64[rs1] + sext(imm)`.
    A64,
    /// Shared: `zext(v[rs1]) + sext(imm)`.
    Shared,
    /// `U64[rs1] + sext(imm)`.
    Uniform,
}

fn atomic(op: Op) -> Option<(AtomicOp, bool)> {
    use AtomicOp::*;
    Some(match op {
        Op::GatomicAdd | Op::DsatomicAdd => (Add, false),
        Op::GatomicSub | Op::DsatomicSub => (Sub, false),
        Op::GatomicSmin | Op::DsatomicSmin => (Smin, false),
        Op::GatomicUmin | Op::DsatomicUmin => (Umin, false),
        Op::GatomicSmax | Op::DsatomicSmax => (Smax, false),
        Op::GatomicUmax | Op::DsatomicUmax => (Umax, false),
        Op::GatomicAnd | Op::DsatomicAnd => (And, false),
        Op::GatomicOr | Op::DsatomicOr => (Or, false),
        Op::GatomicXor | Op::DsatomicXor => (Xor, false),
        Op::GatomicSwap | Op::DsatomicSwap => (Swap, false),
        Op::GatomicCmpswap | Op::DsatomicCmpswap => (Cmpswap, false),
        Op::GatomicAddRtn | Op::DsatomicAddRtn => (Add, true),
        Op::GatomicSubRtn | Op::DsatomicSubRtn => (Sub, true),
        Op::GatomicSminRtn | Op::DsatomicSminRtn => (Smin, true),
        Op::GatomicUminRtn | Op::DsatomicUminRtn => (Umin, true),
        Op::GatomicSmaxRtn | Op::DsatomicSmaxRtn => (Smax, true),
        Op::GatomicUmaxRtn | Op::DsatomicUmaxRtn => (Umax, true),
        Op::GatomicAndRtn | Op::DsatomicAndRtn => (And, true),
        Op::GatomicOrRtn | Op::DsatomicOrRtn => (Or, true),
        Op::GatomicXorRtn | Op::DsatomicXorRtn => (Xor, true),
        Op::GatomicSwapRtn | Op::DsatomicSwapRtn => (Swap, true),
        Op::GatomicCmpswapRtn | Op::DsatomicCmpswapRtn => (Cmpswap, true),
        _ => return None,
    })
}

fn describe(op: Op) -> Option<(Kind, Addr)> {
    let load = |size, signed| Kind::Load { size, signed };
    let store = |size| Kind::Store { size };
    Some(match op {
        Op::GloadU8 => (load(1, false), Addr::Global),
        Op::GloadI8 => (load(1, true), Addr::Global),
        Op::GloadU16 => (load(2, false), Addr::Global),
        Op::GloadI16 => (load(2, true), Addr::Global),
        Op::GloadB32 => (load(4, false), Addr::Global),
        Op::GloadB64 => (load(8, false), Addr::Global),
        Op::GloadB128 => (load(16, false), Addr::Global),
        Op::GloadU8A64 => (load(1, false), Addr::A64),
        Op::GloadI8A64 => (load(1, true), Addr::A64),
        Op::GloadU16A64 => (load(2, false), Addr::A64),
        Op::GloadI16A64 => (load(2, true), Addr::A64),
        Op::GloadB32A64 => (load(4, false), Addr::A64),
        Op::GloadB64A64 => (load(8, false), Addr::A64),
        Op::GloadB128A64 => (load(16, false), Addr::A64),
        Op::GstoreB8 => (store(1), Addr::Global),
        Op::GstoreB16 => (store(2), Addr::Global),
        Op::GstoreB32 => (store(4), Addr::Global),
        Op::GstoreB64 => (store(8), Addr::Global),
        Op::GstoreB128 => (store(16), Addr::Global),
        Op::GstoreB8A64 => (store(1), Addr::A64),
        Op::GstoreB16A64 => (store(2), Addr::A64),
        Op::GstoreB32A64 => (store(4), Addr::A64),
        Op::GstoreB64A64 => (store(8), Addr::A64),
        Op::GstoreB128A64 => (store(16), Addr::A64),
        Op::DsloadU8 => (load(1, false), Addr::Shared),
        Op::DsloadI8 => (load(1, true), Addr::Shared),
        Op::DsloadU16 => (load(2, false), Addr::Shared),
        Op::DsloadI16 => (load(2, true), Addr::Shared),
        Op::DsloadB32 => (load(4, false), Addr::Shared),
        Op::DsloadB64 => (load(8, false), Addr::Shared),
        Op::DsloadB128 => (load(16, false), Addr::Shared),
        Op::DsstoreB8 => (store(1), Addr::Shared),
        Op::DsstoreB16 => (store(2), Addr::Shared),
        Op::DsstoreB32 => (store(4), Addr::Shared),
        Op::DsstoreB64 => (store(8), Addr::Shared),
        Op::DsstoreB128 => (store(16), Addr::Shared),
        Op::UloadB32 => (Kind::ULoad { size: 4 }, Addr::Uniform),
        Op::UloadB64 => (Kind::ULoad { size: 8 }, Addr::Uniform),
        Op::UloadB128 => (Kind::ULoad { size: 16 }, Addr::Uniform),
        Op::UloadB256 => (Kind::ULoad { size: 32 }, Addr::Uniform),
        Op::CacheInv | Op::CacheWb => (Kind::Cache, Addr::Uniform),
        _ => {
            let (a, rtn) = atomic(op)?;
            let space = if op.mnemonic().starts_with("ds") {
                Addr::Shared
            } else {
                Addr::Global
            };
            (Kind::Atomic { op: a, rtn }, space)
        }
    })
}

#[inline]
fn sext64(x: u32) -> u64 {
    x as i32 as i64 as u64
}

impl MemEnv<'_> {
    fn check(&self, space: Addr, addr: u64, size: u32) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        if space == Addr::Shared {
            self.shared.word_index(addr, size).map(|_| ())
        } else {
            self.global.check(addr, size)
        }
    }

    fn read(&self, space: Addr, addr: u64, size: u32, out: &mut [u32]) -> Result<(), Fault> {
        if space == Addr::Shared {
            self.shared.read(addr, size, out)
        } else {
            self.global.read_shared(addr, size, out)
        }
    }

    fn write(&mut self, space: Addr, addr: u64, size: u32, data: &[u32]) -> Result<(), Fault> {
        if space == Addr::Shared {
            self.shared.write(addr, size, data)
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
        let unsupported = || Fault {
            cause: CAUSE_UNSUPPORTED,
            info: prog.encoding(pc).0 as u32,
        };
        let Code::Op(op) = inst.code else {
            return Err(unsupported());
        };
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
                let addr = warp.u64(rs1).wrapping_add(offset);
                let mut data = [0u32; 8];
                if let Err(f) = self.global.read_shared(addr, size, &mut data) {
                    warp.fault_address = Some((addr, 0));
                    return Err(f);
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
        let mut addrs = [0u64; LANES];
        match space {
            Addr::Global => {
                let base = warp.u64(rs2).wrapping_add(offset);
                for (l, a) in addrs.iter_mut().enumerate() {
                    *a = base.wrapping_add(u64::from(warp.v[rs1][l]));
                }
            }
            Addr::A64 => {
                let pair = warp.vpair(rs1);
                for (a, p) in addrs.iter_mut().zip(pair) {
                    *a = p.wrapping_add(offset);
                }
            }
            Addr::Shared => {
                for (l, a) in addrs.iter_mut().enumerate() {
                    *a = u64::from(warp.v[rs1][l]).wrapping_add(offset);
                }
            }
            Addr::Uniform => return Err(unsupported()),
        }
        let size = match kind {
            Kind::Load { size, .. } | Kind::Store { size } => size,
            _ => 4,
        };
        // Every active lane is checked before any store or atomic: a faulting instruction
        // changes nothing (docs/abi.md). The lowest faulting lane names the address. Loads
        // change nothing until their write-back is queued, so they check as they read.
        if !matches!(kind, Kind::Load { .. }) {
            for (l, &a) in addrs.iter().enumerate() {
                if (exec >> l) & 1 != 0 {
                    if let Err(f) = self.check(space, a, size) {
                        warp.fault_address = Some((a, l as u32));
                        return Err(f);
                    }
                }
            }
        }
        let regs = (size as usize).div_ceil(4);
        match kind {
            Kind::Load { size, signed } => {
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
                    if signed {
                        buf[0] = match size {
                            1 => buf[0] as u8 as i8 as i32 as u32,
                            _ => buf[0] as u16 as i16 as i32 as u32,
                        };
                    }
                    for k in 0..regs {
                        data[k][l] = buf[k];
                    }
                }
                warp.issue(
                    counter,
                    pc,
                    Writeback::V {
                        first: inst.rd,
                        count: regs as u8,
                        mask: exec,
                        data,
                    },
                );
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
                }
                warp.issue(counter, pc, Writeback::None);
            }
            Kind::Atomic { op: aop, rtn } => {
                let mut old = [[0u32; LANES]; 4];
                for (l, &a) in addrs.iter().enumerate() {
                    if (exec >> l) & 1 == 0 {
                        continue;
                    }
                    let lo = warp.v[rd][l];
                    let (data, compare) = if aop == AtomicOp::Cmpswap {
                        (warp.v.get(rd + 1).map_or(0, |r| r[l]), lo)
                    } else {
                        (lo, 0)
                    };
                    old[0][l] = self.rmw(space, a, aop, data, compare)?;
                }
                let wb = if rtn {
                    Writeback::V {
                        first: inst.rd,
                        count: 1,
                        mask: exec,
                        data: old,
                    }
                } else {
                    Writeback::None
                };
                warp.issue(counter, pc, wb);
            }
            Kind::ULoad { .. } | Kind::Cache => {}
        }
        Ok(())
    }
}
