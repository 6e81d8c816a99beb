//! Memory of the functional model (provisional, `docs/abi.md`): a sparse 64-bit global
//! address space made of the regions the launcher maps, shared by every workgroup, and the
//! per-workgroup shared memory.
//!
//! Workgroups run in parallel on several host threads and touch global memory without
//! locks: it is held as relaxed atomic 32-bit words, so plain loads and stores are single
//! machine moves and the ISA's atomics are real atomic read-modify-writes. Accesses follow
//! the ABI's rules: naturally aligned up to 4 bytes (cause 4 otherwise), inside a mapped
//! region (cause 5 otherwise).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Provisional trap cause: a misaligned memory access (`docs/abi.md`).
pub const CAUSE_MISALIGNED: u32 = 4;
/// Provisional trap cause: an access to unmapped memory, or beyond shared memory.
pub const CAUSE_ACCESS_FAULT: u32 = 5;

/// Width of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    B8,
    B16,
    B32,
    B64,
    B128,
    B256,
}

impl Width {
    pub const fn bytes(self) -> u64 {
        match self {
            Width::B8 => 1,
            Width::B16 => 2,
            Width::B32 => 4,
            Width::B64 => 8,
            Width::B128 => 16,
            Width::B256 => 32,
        }
    }

    /// Required alignment: natural, up to 4 bytes.
    pub const fn align(self) -> u64 {
        let b = self.bytes();
        if b > 4 {
            4
        } else {
            b
        }
    }

    /// 32-bit words moved by an access of at least 32 bits.
    pub const fn words(self) -> usize {
        let b = self.bytes() as usize;
        if b < 4 {
            1
        } else {
            b / 4
        }
    }
}

/// Why an access failed; `addr` is the first byte at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MemFault {
    #[error("misaligned {bytes}-byte access at {addr:#x}")]
    Misaligned { addr: u64, bytes: u64 },
    #[error("access to unmapped memory at {addr:#x}")]
    Unmapped { addr: u64 },
}

impl MemFault {
    pub fn addr(self) -> u64 {
        match self {
            MemFault::Misaligned { addr, .. } | MemFault::Unmapped { addr } => addr,
        }
    }

    /// The provisional trap cause of this fault.
    pub fn cause(self) -> u32 {
        match self {
            MemFault::Misaligned { .. } => CAUSE_MISALIGNED,
            MemFault::Unmapped { .. } => CAUSE_ACCESS_FAULT,
        }
    }
}

/// Why a region cannot be mapped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("region `{name}` at {base:#x} is not 4-byte aligned")]
    Misaligned { name: String, base: u64 },
    #[error("region `{name}` ({base:#x}, {len} bytes) overlaps region `{other}`")]
    Overlap {
        name: String,
        base: u64,
        len: u64,
        other: String,
    },
    #[error("region `{name}` of {len} bytes runs past the end of the address space")]
    Wraps { name: String, len: u64 },
    #[error("mapping `{name}` would bring mapped memory to {total} bytes, over the limit of {limit} bytes (raise it with --max-memory)")]
    TooLarge {
        name: String,
        total: u64,
        limit: u64,
    },
}

/// The atomic read-modify-write operations (provisional `gatomic.*` / `dsatomic.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
    Swap,
    /// `mem = (mem == a) ? b : mem`.
    CmpSwap,
}

impl AtomicOp {
    /// The new memory value from the old one and the operands.
    #[inline]
    pub fn apply(self, old: u32, a: u32, b: u32) -> u32 {
        match self {
            AtomicOp::Add => old.wrapping_add(a),
            AtomicOp::Sub => old.wrapping_sub(a),
            AtomicOp::SMin => (old as i32).min(a as i32) as u32,
            AtomicOp::UMin => old.min(a),
            AtomicOp::SMax => (old as i32).max(a as i32) as u32,
            AtomicOp::UMax => old.max(a),
            AtomicOp::And => old & a,
            AtomicOp::Or => old | a,
            AtomicOp::Xor => old ^ a,
            AtomicOp::Swap => a,
            AtomicOp::CmpSwap => {
                if old == a {
                    b
                } else {
                    old
                }
            }
        }
    }
}

/// One mapped region of global memory.
#[derive(Debug)]
pub struct Region {
    pub name: String,
    pub base: u64,
    /// Length in bytes as mapped (the backing words round it up to 4).
    pub len: u64,
    words: Box<[AtomicU32]>,
}

impl Region {
    fn contains(&self, addr: u64, bytes: u64) -> bool {
        addr >= self.base && addr - self.base <= self.len && self.len - (addr - self.base) >= bytes
    }

    /// The region's bytes now.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.words.len() * 4);
        for w in self.words.iter() {
            out.extend_from_slice(&w.load(Relaxed).to_le_bytes());
        }
        out.truncate(self.len as usize);
        out
    }
}

/// The global address space: sparse, mapped region by region.
#[derive(Debug, Default)]
pub struct GlobalMemory {
    /// Sorted by base address.
    regions: Vec<Region>,
    mapped: u64,
    limit: u64,
}

/// The default limit on mapped global memory.
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

impl GlobalMemory {
    pub fn new() -> GlobalMemory {
        GlobalMemory::with_limit(DEFAULT_MEMORY_LIMIT)
    }

    /// An empty address space that refuses to map more than `limit` bytes in all.
    pub fn with_limit(limit: u64) -> GlobalMemory {
        GlobalMemory {
            regions: Vec::new(),
            mapped: 0,
            limit,
        }
    }

    /// Map `bytes` at `base` as region `name`.
    pub fn map(&mut self, name: &str, base: u64, bytes: &[u8]) -> Result<(), MapError> {
        let len = bytes.len() as u64;
        if !base.is_multiple_of(4) {
            return Err(MapError::Misaligned {
                name: name.into(),
                base,
            });
        }
        let Some(end) = base.checked_add(len.div_ceil(4) * 4) else {
            return Err(MapError::Wraps {
                name: name.into(),
                len,
            });
        };
        let total = self.mapped.saturating_add(len);
        if total > self.limit {
            return Err(MapError::TooLarge {
                name: name.into(),
                total,
                limit: self.limit,
            });
        }
        if let Some(r) = self
            .regions
            .iter()
            .find(|r| base < r.base + r.words.len() as u64 * 4 && r.base < end)
        {
            return Err(MapError::Overlap {
                name: name.into(),
                base,
                len,
                other: r.name.clone(),
            });
        }
        let words: Box<[AtomicU32]> = bytes
            .chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                AtomicU32::new(u32::from_le_bytes(w))
            })
            .collect();
        let at = self.regions.partition_point(|r| r.base < base);
        self.regions.insert(
            at,
            Region {
                name: name.into(),
                base,
                len,
                words,
            },
        );
        self.mapped = total;
        Ok(())
    }

    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    pub fn region(&self, name: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.name == name)
    }

    /// The region holding `[addr, addr + bytes)`, after checking alignment.
    #[inline]
    fn locate(&self, addr: u64, width: Width) -> Result<(&Region, usize), MemFault> {
        if !addr.is_multiple_of(width.align()) {
            return Err(MemFault::Misaligned {
                addr,
                bytes: width.bytes(),
            });
        }
        let at = self.regions.partition_point(|r| r.base <= addr);
        match at.checked_sub(1).map(|i| &self.regions[i]) {
            Some(r) if r.contains(addr, width.bytes()) => Ok((r, ((addr - r.base) / 4) as usize)),
            _ => Err(MemFault::Unmapped { addr }),
        }
    }

    /// Check that an access of `width` at `addr` would succeed, without doing it.
    pub fn check(&self, addr: u64, width: Width) -> Result<(), MemFault> {
        self.locate(addr, width).map(|_| ())
    }

    /// Load up to 8 words; narrower accesses are zero-extended into `out[0]`.
    #[inline]
    pub fn load(&self, addr: u64, width: Width, out: &mut [u32; 8]) -> Result<(), MemFault> {
        let (r, w) = self.locate(addr, width)?;
        match width {
            Width::B8 | Width::B16 => {
                let word = r.words[w].load(Relaxed);
                let shift = (addr % 4) * 8;
                let mask = if width == Width::B8 { 0xff } else { 0xffff };
                out[0] = (word >> shift) & mask;
            }
            _ => {
                for (i, o) in out.iter_mut().take(width.words()).enumerate() {
                    *o = r.words[w + i].load(Relaxed);
                }
            }
        }
        Ok(())
    }

    /// Store up to 8 words; narrower accesses store the low bits of `data[0]`.
    #[inline]
    pub fn store(&self, addr: u64, width: Width, data: &[u32]) -> Result<(), MemFault> {
        let (r, w) = self.locate(addr, width)?;
        match width {
            Width::B8 | Width::B16 => {
                let shift = (addr % 4) * 8;
                let mask: u32 = if width == Width::B8 { 0xff } else { 0xffff };
                let value = (data.first().copied().unwrap_or(0) & mask) << shift;
                // Another workgroup may write the rest of this word at the same time.
                let _ = r.words[w].fetch_update(Relaxed, Relaxed, |old| {
                    Some((old & !(mask << shift)) | value)
                });
            }
            _ => {
                for (i, d) in data.iter().take(width.words()).enumerate() {
                    r.words[w + i].store(*d, Relaxed);
                }
            }
        }
        Ok(())
    }

    /// A 32-bit atomic read-modify-write; returns the old value.
    #[inline]
    pub fn atomic(&self, addr: u64, op: AtomicOp, a: u32, b: u32) -> Result<u32, MemFault> {
        let (r, w) = self.locate(addr, Width::B32)?;
        let cell = &r.words[w];
        let old = match op {
            AtomicOp::Add => cell.fetch_add(a, Relaxed),
            AtomicOp::Sub => cell.fetch_sub(a, Relaxed),
            AtomicOp::And => cell.fetch_and(a, Relaxed),
            AtomicOp::Or => cell.fetch_or(a, Relaxed),
            AtomicOp::Xor => cell.fetch_xor(a, Relaxed),
            AtomicOp::UMin => cell.fetch_min(a, Relaxed),
            AtomicOp::UMax => cell.fetch_max(a, Relaxed),
            AtomicOp::Swap => cell.swap(a, Relaxed),
            _ => match cell.fetch_update(Relaxed, Relaxed, |old| Some(op.apply(old, a, b))) {
                Ok(v) | Err(v) => v,
            },
        };
        Ok(old)
    }

    /// A contiguous run of 32-bit words `[addr, addr + 4*n)` in one region, if aligned and
    /// mapped: the fast path of a warp whose active lanes touch consecutive words.
    #[inline]
    pub fn words(&self, addr: u64, n: usize) -> Option<&[AtomicU32]> {
        if !addr.is_multiple_of(4) {
            return None;
        }
        let at = self.regions.partition_point(|r| r.base <= addr);
        let r = &self.regions[at.checked_sub(1)?];
        if !r.contains(addr, 4 * n as u64) {
            return None;
        }
        let w = ((addr - r.base) / 4) as usize;
        r.words.get(w..w + n)
    }
}

/// One workgroup's shared memory: addressed from 0, owned by the workgroup's host thread.
#[derive(Debug, Clone)]
pub struct SharedMemory {
    words: Vec<u32>,
    len: u32,
}

impl SharedMemory {
    /// `len` zero bytes (rounded up to whole words).
    pub fn new(len: u32) -> SharedMemory {
        SharedMemory {
            words: vec![0; (len as usize).div_ceil(4)],
            len,
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn locate(&self, addr: u64, width: Width) -> Result<usize, MemFault> {
        if !addr.is_multiple_of(width.align()) {
            return Err(MemFault::Misaligned {
                addr,
                bytes: width.bytes(),
            });
        }
        if addr
            .checked_add(width.bytes())
            .is_none_or(|end| end > u64::from(self.len))
        {
            return Err(MemFault::Unmapped { addr });
        }
        Ok((addr / 4) as usize)
    }

    pub fn check(&self, addr: u64, width: Width) -> Result<(), MemFault> {
        self.locate(addr, width).map(|_| ())
    }

    #[inline]
    pub fn load(&self, addr: u64, width: Width, out: &mut [u32; 8]) -> Result<(), MemFault> {
        let w = self.locate(addr, width)?;
        match width {
            Width::B8 | Width::B16 => {
                let shift = (addr % 4) * 8;
                let mask = if width == Width::B8 { 0xff } else { 0xffff };
                out[0] = (self.words[w] >> shift) & mask;
            }
            _ => out[..width.words()].copy_from_slice(&self.words[w..w + width.words()]),
        }
        Ok(())
    }

    #[inline]
    pub fn store(&mut self, addr: u64, width: Width, data: &[u32]) -> Result<(), MemFault> {
        let w = self.locate(addr, width)?;
        match width {
            Width::B8 | Width::B16 => {
                let shift = (addr % 4) * 8;
                let mask: u32 = if width == Width::B8 { 0xff } else { 0xffff };
                let value = (data.first().copied().unwrap_or(0) & mask) << shift;
                self.words[w] = (self.words[w] & !(mask << shift)) | value;
            }
            _ => {
                for (i, d) in data.iter().take(width.words()).enumerate() {
                    self.words[w + i] = *d;
                }
            }
        }
        Ok(())
    }

    #[inline]
    pub fn atomic(&mut self, addr: u64, op: AtomicOp, a: u32, b: u32) -> Result<u32, MemFault> {
        let w = self.locate(addr, Width::B32)?;
        let old = self.words[w];
        self.words[w] = op.apply(old, a, b);
        Ok(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_map_load_store_and_fault() {
        let mut m = GlobalMemory::new();
        m.map("a", 0x1_0000_0000, &[1, 2, 3, 4, 5, 6]).unwrap();
        m.map("b", 0x1_0001_0000, &[0; 16]).unwrap();
        let mut out = [0u32; 8];
        m.load(0x1_0000_0000, Width::B32, &mut out).unwrap();
        assert_eq!(out[0], 0x0403_0201);
        m.load(0x1_0000_0005, Width::B8, &mut out).unwrap();
        assert_eq!(out[0], 6);
        m.load(0x1_0000_0004, Width::B16, &mut out).unwrap();
        assert_eq!(out[0], 0x0605);
        // The 6-byte region ends at byte 6: a 32-bit load at 4 runs past it.
        assert_eq!(
            m.load(0x1_0000_0004, Width::B32, &mut out),
            Err(MemFault::Unmapped {
                addr: 0x1_0000_0004
            })
        );
        assert_eq!(
            m.load(0x1_0000_0002, Width::B32, &mut out),
            Err(MemFault::Misaligned {
                addr: 0x1_0000_0002,
                bytes: 4
            })
        );
        assert_eq!(
            m.load(0x0, Width::B8, &mut out),
            Err(MemFault::Unmapped { addr: 0 })
        );
        m.store(0x1_0001_0001, Width::B8, &[0xabcd]).unwrap();
        m.store(0x1_0001_0004, Width::B64, &[7, 8]).unwrap();
        assert_eq!(
            m.region("b").unwrap().bytes(),
            [0, 0xcd, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0]
        );
        m.load(0x1_0001_0000, Width::B128, &mut out).unwrap();
        assert_eq!(&out[..4], &[0xcd00, 7, 8, 0]);
        assert!(m.load(0x1_0001_0004, Width::B128, &mut out).is_err());
    }

    #[test]
    fn mapping_rules() {
        let mut m = GlobalMemory::with_limit(64);
        m.map("a", 0x1000, &[0; 32]).unwrap();
        assert!(matches!(
            m.map("b", 0x101c, &[0; 8]),
            Err(MapError::Overlap { .. })
        ));
        assert!(matches!(
            m.map("c", 0x2002, &[0; 4]),
            Err(MapError::Misaligned { .. })
        ));
        assert!(matches!(
            m.map("d", 0x3000, &[0; 40]),
            Err(MapError::TooLarge { .. })
        ));
        assert!(matches!(
            m.map("e", u64::MAX - 3, &[0; 8]),
            Err(MapError::Wraps { .. })
        ));
    }

    #[test]
    fn atomics_return_the_old_value() {
        let mut m = GlobalMemory::new();
        m.map("a", 0x1000, &[0; 8]).unwrap();
        assert_eq!(m.atomic(0x1000, AtomicOp::Add, 5, 0), Ok(0));
        assert_eq!(m.atomic(0x1000, AtomicOp::SMin, (-3i32) as u32, 0), Ok(5));
        assert_eq!(m.atomic(0x1000, AtomicOp::UMax, 1, 0), Ok((-3i32) as u32));
        assert_eq!(
            m.atomic(0x1000, AtomicOp::CmpSwap, 1, 9),
            Ok((-3i32) as u32)
        );
        assert_eq!(
            m.atomic(0x1000, AtomicOp::CmpSwap, (-3i32) as u32, 9),
            Ok((-3i32) as u32)
        );
        assert_eq!(m.atomic(0x1000, AtomicOp::Swap, 4, 0), Ok(9));
        assert_eq!(
            m.atomic(0x1002, AtomicOp::Add, 1, 0),
            Err(MemFault::Misaligned {
                addr: 0x1002,
                bytes: 4
            })
        );
        for (op, old, a, new) in [
            (AtomicOp::Sub, 5, 7, (-2i32) as u32),
            (AtomicOp::SMax, (-5i32) as u32, 3, 3),
            (AtomicOp::UMin, 5, 3, 3),
            (AtomicOp::And, 0b1100, 0b1010, 0b1000),
            (AtomicOp::Or, 0b1100, 0b1010, 0b1110),
            (AtomicOp::Xor, 0b1100, 0b1010, 0b0110),
        ] {
            assert_eq!(op.apply(old, a, 0), new, "{op:?}");
        }
    }

    #[test]
    fn shared_memory_bounds() {
        let mut s = SharedMemory::new(8);
        s.store(4, Width::B32, &[42]).unwrap();
        s.store(1, Width::B8, &[0x1ff]).unwrap();
        let mut out = [0; 8];
        s.load(0, Width::B64, &mut out).unwrap();
        assert_eq!(&out[..2], &[0xff00, 42]);
        assert_eq!(
            s.load(8, Width::B8, &mut out),
            Err(MemFault::Unmapped { addr: 8 })
        );
        assert_eq!(
            s.load(6, Width::B32, &mut out),
            Err(MemFault::Misaligned { addr: 6, bytes: 4 })
        );
        assert_eq!(s.atomic(4, AtomicOp::Add, 1, 0), Ok(42));
        assert_eq!(
            s.atomic(u64::MAX - 3, AtomicOp::Add, 1, 0),
            Err(MemFault::Unmapped { addr: u64::MAX - 3 })
        );
    }

    #[test]
    fn contiguous_fast_path() {
        let mut m = GlobalMemory::new();
        m.map("a", 0x1000, &[0; 128]).unwrap();
        assert_eq!(m.words(0x1000, 32).map(|w| w.len()), Some(32));
        assert!(m.words(0x1004, 32).is_none());
        assert!(m.words(0x1002, 1).is_none());
        assert!(m.words(0x0, 1).is_none());
    }
}
