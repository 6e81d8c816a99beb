//! The record of one memory instruction's accesses, lane by lane: what the memory
//! instructions log (`crate::exec::mem`) and the observers read (trace schema 2, watchpoints,
//! co-simulation).

/// The address space of a memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemSpace {
    /// Global memory: a 64-bit address in the launch's memory map (docs/abi.md).
    Global,
    /// The workgroup's shared memory; addresses are offsets into it.
    Shared,
}

impl MemSpace {
    /// The space's name in traces and reports: `global` or `shared`.
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Global => "global",
            MemSpace::Shared => "shared",
        }
    }
}

/// What a memory access did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemKind {
    /// A load: memory read into registers.
    Load,
    /// A store: registers written to memory.
    Store,
    /// A read-modify-write; `data` is the value written, `old` the value read.
    Atomic,
}

impl MemKind {
    /// The kind's name in traces and reports: `load`, `store` or `atomic`.
    pub fn name(self) -> &'static str {
        match self {
            MemKind::Load => "load",
            MemKind::Store => "store",
            MemKind::Atomic => "atomic",
        }
    }
}

/// One lane's access, on a bus of 32-bit words: `addr` is the access's address rounded
/// down to 4 bytes, `data` the words from there (a sub-word access's bytes sit at their
/// byte positions, the rest are 0), `mask` one bit per byte from `addr` (bit i: byte
/// `addr + i` accessed). Loads give the bytes read before any extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneAccess {
    /// The lane; 0 for a uniform (`uload`) access.
    pub lane: u32,
    /// The access's byte address rounded down to a multiple of 4.
    pub addr: u64,
    /// The words from `addr`: a sub-word access's bytes at their byte positions, other
    /// bytes 0.
    pub data: Vec<u32>,
    /// Byte enables from `addr`: bit i is set when byte `addr + i` was accessed.
    pub mask: u32,
    /// For an atomic: the word before the operation.
    pub old: Option<u32>,
}

impl LaneAccess {
    /// The access of `size` bytes at byte address `addr` (aligned as the model requires)
    /// with the `size.div_ceil(4)` words of `value` (a sub-word value in the low bits).
    pub fn new(lane: u32, addr: u64, size: u32, value: &[u32]) -> LaneAccess {
        let shift = (addr & 3) as u32;
        let (data, mask) = if size < 4 {
            let ones: u32 = if size == 1 { 0xff } else { 0xffff };
            (
                vec![(value.first().copied().unwrap_or(0) & ones) << (8 * shift)],
                ((1u32 << size) - 1) << shift,
            )
        } else {
            let words = (size as usize).div_ceil(4);
            let mut d = value.to_vec();
            d.resize(words, 0);
            (
                d,
                if size >= 32 {
                    u32::MAX
                } else {
                    (1u32 << size) - 1
                },
            )
        };
        LaneAccess {
            lane,
            addr: addr & !3,
            data,
            mask,
            old: None,
        }
    }

    /// Whether a byte of `addr..addr + len` was accessed.
    pub fn overlaps(&self, addr: u64, len: u64) -> bool {
        (0..32u64).any(|i| {
            (self.mask >> i) & 1 != 0 && {
                let b = self.addr.wrapping_add(i);
                b >= addr && b - addr < len
            }
        })
    }
}

/// One memory instruction's accesses, active lanes in ascending order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemAccess {
    /// Whether the instruction loaded, stored or did a read-modify-write.
    pub kind: MemKind,
    /// The memory accessed: global or the workgroup's shared memory.
    pub space: MemSpace,
    /// Bytes per lane.
    pub size: u32,
    /// Each active lane's access, in ascending lane order (one entry for a uniform
    /// access).
    pub lanes: Vec<LaneAccess>,
}
