//! Memory spaces: the sparse 64-bit global space shared by every workgroup of a launch, one
//! workgroup's shared memory, and one workgroup's per-lane scratch memory (`scratch.rs`: a
//! range of the global address space that exists only while its workgroup runs). Alignment rules (docs/abi.md): 16-bit accesses are
//! 2-byte aligned, 32-bit and wider 4-byte aligned, so every access lies in whole 32-bit
//! words or inside one word; memory is therefore stored as 32-bit words.

pub(crate) mod direct;
mod scratch;

pub use direct::DirectMemory;
pub(crate) use scratch::ScratchImage;
pub use scratch::{
    scratch_base, ScratchMemory, MAX_SCRATCH_BYTES, MAX_SCRATCH_WARPS, SCRATCH_BASE, SCRATCH_END,
    SCRATCH_WARP_STRIDE, SCRATCH_WORKGROUP_STRIDE,
};

use crate::state::trap::{CAUSE_ACCESS_FAULT, CAUSE_MISALIGNED};
use crate::state::Fault;
use std::sync::atomic::{AtomicU32, Ordering};

/// The read-modify-write of an atomic (its database entry's `memory.atomic`).
pub use warpkit_isa::AtomicOp;

/// The new memory value of atomic `op` from the old one, the data and (for `Cmpswap`) the
/// compare value.
pub fn apply_atomic(op: AtomicOp, old: u32, data: u32, compare: u32) -> u32 {
    match op {
        AtomicOp::Add => old.wrapping_add(data),
        AtomicOp::Sub => old.wrapping_sub(data),
        AtomicOp::Smin => (old as i32).min(data as i32) as u32,
        AtomicOp::Umin => old.min(data),
        AtomicOp::Smax => (old as i32).max(data as i32) as u32,
        AtomicOp::Umax => old.max(data),
        AtomicOp::And => old & data,
        AtomicOp::Or => old | data,
        AtomicOp::Xor => old ^ data,
        AtomicOp::Swap => data,
        AtomicOp::Cmpswap => {
            if old == compare {
                data
            } else {
                old
            }
        }
    }
}

fn misaligned(addr: u64) -> Fault {
    Fault {
        cause: CAUSE_MISALIGNED,
        info: addr as u32,
    }
}

fn unmapped(addr: u64) -> Fault {
    Fault {
        cause: CAUSE_ACCESS_FAULT,
        info: addr as u32,
    }
}

/// Check the alignment rule for an access of `size` bytes.
pub fn check_alignment(addr: u64, size: u32) -> Result<(), Fault> {
    let align = u64::from(size.min(4));
    if !addr.is_multiple_of(align) {
        return Err(misaligned(addr));
    }
    Ok(())
}

/// A word-addressed memory: global or shared.
pub trait Space {
    /// The word holding byte `addr` if bytes `addr..addr+size` are all accessible.
    fn word_index(&self, addr: u64, size: u32) -> Result<(usize, usize), Fault>;
    /// Word `index` of region `region`, as [`Space::word_index`] locates it.
    fn load_word(&self, region: usize, index: usize) -> u32;
    /// Store `value` in word `index` of region `region`, as [`Space::word_index`] locates
    /// it.
    fn store_word(&mut self, region: usize, index: usize, value: u32);

    /// Read `size` (1, 2, 4, 8, 16, 32) bytes at `addr` into `out` as little-endian words;
    /// sub-word reads return the bytes in the low bits of `out[0]`.
    fn read(&self, addr: u64, size: u32, out: &mut [u32]) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        let (region, index) = self.word_index(addr, size)?;
        if size < 4 {
            let w = self.load_word(region, index);
            let shift = 8 * (addr & 3) as u32;
            let mask = if size == 1 { 0xff } else { 0xffff };
            out[0] = (w >> shift) & mask;
        } else {
            for (k, o) in out.iter_mut().take(size as usize / 4).enumerate() {
                *o = self.load_word(region, index + k);
            }
        }
        Ok(())
    }

    /// Write `size` bytes at `addr` from `data` (sub-word writes take the low bits).
    fn write(&mut self, addr: u64, size: u32, data: &[u32]) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        let (region, index) = self.word_index(addr, size)?;
        if size < 4 {
            let shift = 8 * (addr & 3) as u32;
            let mask: u32 = if size == 1 { 0xff } else { 0xffff };
            let old = self.load_word(region, index);
            let new = (old & !(mask << shift)) | ((data[0] & mask) << shift);
            self.store_word(region, index, new);
        } else {
            for (k, &d) in data.iter().take(size as usize / 4).enumerate() {
                self.store_word(region, index + k, d);
            }
        }
        Ok(())
    }

    /// A 32-bit read-modify-write; returns the old value.
    fn atomic(&mut self, addr: u64, op: AtomicOp, data: u32, compare: u32) -> Result<u32, Fault>;
}

/// One mapped range of global memory.
#[derive(Debug)]
struct Region {
    base: u64,
    len: u64,
    words: Box<[AtomicU32]>,
    /// False for code: stores and atomics fault (cause 5) as on an unmapped byte.
    writable: bool,
}

/// The global address space: mapped regions, everything else unmapped. Words are atomics
/// so workgroups running on several host threads share it without locks; plain loads and
/// stores are relaxed, as the ISA orders nothing across workgroups without atomics.
#[derive(Debug, Default)]
pub struct GlobalMemory {
    /// Sorted by base, non-overlapping. A launch maps a handful, so a binary search is a
    /// few compares; no shared "last region" hint, which would be a cache line written by
    /// every host thread.
    regions: Vec<Region>,
}

impl GlobalMemory {
    /// Map `bytes` at `base` (4-byte aligned). Returns false, mapping nothing, if the range
    /// is misaligned, wraps, overlaps a mapping, or reaches the scratch range (from
    /// [`SCRATCH_BASE`] on: workgroups' scratch memory, never global memory).
    pub fn map(&mut self, base: u64, bytes: &[u8]) -> bool {
        self.map_with(base, bytes, true)
    }

    /// As [`GlobalMemory::map`], read-only: loads see `bytes`, stores and atomics fault
    /// (the code, docs/abi.md).
    pub fn map_read_only(&mut self, base: u64, bytes: &[u8]) -> bool {
        self.map_with(base, bytes, false)
    }

    fn map_with(&mut self, base: u64, bytes: &[u8], writable: bool) -> bool {
        if !self.free(base, bytes.len() as u64) {
            return false;
        }
        let whole = bytes.chunks_exact(4);
        let tail = whole.remainder();
        let mut words: Vec<AtomicU32> = Vec::with_capacity(bytes.len().div_ceil(4));
        words.extend(whole.map(|c| AtomicU32::new(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))));
        if !tail.is_empty() {
            let mut b = [0u8; 4];
            b[..tail.len()].copy_from_slice(tail);
            words.push(AtomicU32::new(u32::from_le_bytes(b)));
        }
        self.insert(base, bytes.len() as u64, words.into_boxed_slice(), writable);
        true
    }

    /// Map `len` bytes at `base` (4-byte aligned, read-write) whose contents are `words`,
    /// each holding 4 bytes in little-endian order (`words.len()` must be `len` / 4 rounded
    /// up). The words become the region's memory: nothing is copied, so a large buffer
    /// costs no more than its allocation. Returns false, mapping nothing, where
    /// [`GlobalMemory::map`] does, or if `words` is not `len` bytes.
    pub fn map_words(&mut self, base: u64, words: Vec<u32>, len: u64) -> bool {
        if words.len() as u64 != len.div_ceil(4) || !self.free(base, len) {
            return false;
        }
        // Same size and alignment: collected in place, the allocation is kept.
        let words: Vec<AtomicU32> = words.into_iter().map(AtomicU32::new).collect();
        self.insert(base, len, words.into_boxed_slice(), true);
        true
    }

    /// Unmap the region mapped at `base` and return its words (little-endian, as
    /// [`GlobalMemory::map_words`] takes them) and its length in bytes: the memory itself,
    /// moved out, not copied.
    pub fn take_words(&mut self, base: u64) -> Option<(Vec<u32>, u64)> {
        let at = self.regions.iter().position(|r| r.base == base)?;
        let r = self.regions.remove(at);
        let words: Vec<u32> = r
            .words
            .into_vec()
            .into_iter()
            .map(AtomicU32::into_inner)
            .collect();
        Some((words, r.len))
    }

    /// `len` bytes at `base` can be mapped: aligned, not wrapping, below the scratch range,
    /// overlapping nothing.
    fn free(&self, base: u64, len: u64) -> bool {
        let Some(end) = base.checked_add(len) else {
            return false;
        };
        base.is_multiple_of(4)
            && end <= SCRATCH_BASE
            && !self
                .regions
                .iter()
                .any(|r| base < r.base + r.len && r.base < end.max(base + 1))
    }

    fn insert(&mut self, base: u64, len: u64, words: Box<[AtomicU32]>, writable: bool) {
        let at = self.regions.partition_point(|r| r.base < base);
        self.regions.insert(
            at,
            Region {
                base,
                len,
                words,
                writable,
            },
        );
    }

    /// The current bytes of the region mapped at `base`.
    pub fn bytes_at(&self, base: u64) -> Option<Vec<u8>> {
        let r = self.regions.iter().find(|r| r.base == base)?;
        let mut out = vec![0u8; r.words.len() * 4];
        for (o, w) in out.chunks_exact_mut(4).zip(r.words.iter()) {
            o.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        out.truncate(r.len as usize);
        Some(out)
    }

    fn find(&self, addr: u64, size: u32) -> Result<(usize, usize), Fault> {
        let i = self.regions.partition_point(|r| r.base <= addr);
        let Some(k) = i.checked_sub(1) else {
            return Err(unmapped(addr));
        };
        let r = &self.regions[k];
        let off = addr - r.base;
        match off.checked_add(u64::from(size)) {
            Some(end) if end <= r.len => Ok((k, (off / 4) as usize)),
            _ => Err(unmapped(addr)),
        }
    }

    /// As `find`, for a store or an atomic: a read-only region faults as unmapped memory
    /// does (cause 5).
    fn find_writable(&self, addr: u64, size: u32) -> Result<(usize, usize), Fault> {
        let (region, index) = self.find(addr, size)?;
        if !self.regions[region].writable {
            return Err(unmapped(addr));
        }
        Ok((region, index))
    }

    /// The base and words of the one region holding every byte of `lo..end`, if there is
    /// one: the per-instruction lookup of the fast paths. Region `*hint` is tried first and
    /// the region found is left there: the caller's own hint (one per workgroup), so no
    /// host thread writes a cache line another reads.
    #[inline(always)]
    pub(crate) fn span_hinted(
        &self,
        lo: u64,
        end: u64,
        write: bool,
        hint: &mut usize,
    ) -> Option<(u64, &[AtomicU32])> {
        if let Some(r) = self.regions.get(*hint) {
            if lo >= r.base && end - r.base <= r.len && (r.writable || !write) {
                return Some((r.base, &r.words[..]));
            }
        }
        let i = self.regions.partition_point(|r| r.base <= lo);
        let k = i.checked_sub(1)?;
        let r = &self.regions[k];
        *hint = k;
        (end - r.base <= r.len && (r.writable || !write)).then_some((r.base, &r.words[..]))
    }

    /// The base, length and host words of the one region holding the `size` bytes at
    /// `addr` (and writable, for a store): what translated code accesses directly, between
    /// bounds it checks itself.
    pub(crate) fn region_holding(
        &self,
        addr: u64,
        size: u32,
        write: bool,
    ) -> Option<(u64, u64, *const AtomicU32)> {
        let found = if write {
            self.find_writable(addr, size)
        } else {
            self.find(addr, size)
        };
        let r = &self.regions[found.ok()?.0];
        Some((r.base, r.len, r.words.as_ptr()))
    }

    /// Whether an access of `size` bytes at `addr` is aligned and mapped.
    pub fn check(&self, addr: u64, size: u32) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        self.find(addr, size).map(|_| ())
    }

    /// Whether a store or atomic of `size` bytes at `addr` is aligned, mapped and writable.
    pub fn check_write(&self, addr: u64, size: u32) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        self.find_writable(addr, size).map(|_| ())
    }

    /// Read through a shared reference (global memory is shared between host threads).
    pub fn read_shared(&self, addr: u64, size: u32, out: &mut [u32]) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        let (region, index) = self.find(addr, size)?;
        read_words(&self.regions[region].words, index, addr, size, out);
        Ok(())
    }

    /// Write through a shared reference; sub-word writes are compare-and-swap loops so
    /// neighbouring bytes written by other threads survive.
    pub fn write_shared(&self, addr: u64, size: u32, data: &[u32]) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        let (region, index) = self.find_writable(addr, size)?;
        write_words(&self.regions[region].words, index, addr, size, data);
        Ok(())
    }

    /// A 32-bit atomic read-modify-write through a shared reference; returns the old value.
    pub fn atomic_shared(
        &self,
        addr: u64,
        op: AtomicOp,
        data: u32,
        compare: u32,
    ) -> Result<u32, Fault> {
        check_alignment(addr, 4)?;
        let (region, index) = self.find_writable(addr, 4)?;
        Ok(rmw_word(
            &self.regions[region].words[index],
            op,
            data,
            compare,
        ))
    }
}

/// Read `size` bytes at `addr` from `words`, whose word `index` holds byte `addr` (the
/// access checked and inside them), into `out` as [`Space::read`] does.
fn read_words(words: &[AtomicU32], index: usize, addr: u64, size: u32, out: &mut [u32]) {
    if size < 4 {
        let w = words[index].load(Ordering::Relaxed);
        let shift = 8 * (addr & 3) as u32;
        let mask = if size == 1 { 0xff } else { 0xffff };
        out[0] = (w >> shift) & mask;
    } else {
        for (k, o) in out.iter_mut().take(size as usize / 4).enumerate() {
            *o = words[index + k].load(Ordering::Relaxed);
        }
    }
}

/// Write `size` bytes at `addr` to `words` as [`read_words`] locates them; sub-word writes
/// are compare-and-swap loops so neighbouring bytes written by other threads survive.
fn write_words(words: &[AtomicU32], index: usize, addr: u64, size: u32, data: &[u32]) {
    if size < 4 {
        let shift = 8 * (addr & 3) as u32;
        let mask: u32 = if size == 1 { 0xff } else { 0xffff };
        let _ = words[index].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
            Some((old & !(mask << shift)) | ((data[0] & mask) << shift))
        });
    } else {
        for (k, &d) in data.iter().take(size as usize / 4).enumerate() {
            words[index + k].store(d, Ordering::Relaxed);
        }
    }
}

/// Atomic `op` on `word`; returns the old value.
fn rmw_word(word: &AtomicU32, op: AtomicOp, data: u32, compare: u32) -> u32 {
    word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
        Some(apply_atomic(op, old, data, compare))
    })
    .unwrap_or_else(|x| x)
}

/// One workgroup's shared memory, addressed from 0, zero-filled. The words are allocated
/// on the first store, so workgroups that never use shared memory cost nothing.
#[derive(Debug, Clone, Default)]
pub struct SharedMemory {
    words: Vec<u32>,
    len: u64,
}

impl SharedMemory {
    /// A shared memory of `bytes` bytes, all zero; nothing is allocated until the first
    /// store.
    pub fn new(bytes: u32) -> SharedMemory {
        SharedMemory {
            words: Vec::new(),
            len: u64::from(bytes),
        }
    }

    fn materialise(&mut self) {
        if self.words.is_empty() && self.len > 0 {
            self.words = vec![0; (self.len as usize).div_ceil(4)];
        }
    }

    /// Its size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The words, empty until the first store (every word then reads 0).
    #[inline]
    pub(crate) fn words(&self) -> &[u32] {
        &self.words
    }

    /// The words, allocated if they were not.
    #[inline]
    pub(crate) fn words_mut(&mut self) -> &mut [u32] {
        self.materialise();
        &mut self.words
    }

    /// Whether it has no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Store `bytes` from byte offset `offset` (a test's or a conformance vector's initial
    /// contents); false, with nothing written, when they do not fit.
    pub fn write_bytes(&mut self, offset: u64, bytes: &[u8]) -> bool {
        let Some(end) = offset.checked_add(bytes.len() as u64) else {
            return false;
        };
        if end > self.len {
            return false;
        }
        if bytes.is_empty() {
            return true;
        }
        let words = self.words_mut();
        for (k, &b) in bytes.iter().enumerate() {
            let a = offset as usize + k;
            let shift = 8 * (a % 4);
            words[a / 4] = (words[a / 4] & !(0xff << shift)) | (u32::from(b) << shift);
        }
        true
    }

    /// The word at byte offset `4 * index`, if inside (debuggers, bindings).
    pub fn word(&self, index: u64) -> Option<u32> {
        if index.checked_mul(4)? >= self.len {
            return None;
        }
        Some(self.words.get(index as usize).copied().unwrap_or(0))
    }
}

impl Space for SharedMemory {
    fn word_index(&self, addr: u64, size: u32) -> Result<(usize, usize), Fault> {
        match addr.checked_add(u64::from(size)) {
            Some(end) if end <= self.len => Ok((0, (addr / 4) as usize)),
            _ => Err(unmapped(addr)),
        }
    }
    fn load_word(&self, _: usize, index: usize) -> u32 {
        self.words.get(index).copied().unwrap_or(0)
    }
    fn store_word(&mut self, _: usize, index: usize, value: u32) {
        self.materialise();
        self.words[index] = value;
    }
    fn atomic(&mut self, addr: u64, op: AtomicOp, data: u32, compare: u32) -> Result<u32, Fault> {
        check_alignment(addr, 4)?;
        let (_, index) = self.word_index(addr, 4)?;
        self.materialise();
        let old = self.words[index];
        self.words[index] = apply_atomic(op, old, data, compare);
        Ok(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_mapped_and_taken_back_without_a_copy() {
        let mut g = GlobalMemory::default();
        let words = vec![0x0403_0201, 0x0000_0605];
        let at = words.as_ptr();
        assert!(g.map_words(0x1000, words, 6));
        assert_eq!(g.bytes_at(0x1000).unwrap(), [1, 2, 3, 4, 5, 6]);
        let mut out = [0u32; 1];
        assert!(g.read_shared(0x1006, 1, &mut out).is_err(), "past len");
        g.write_shared(0x1004, 2, &[0xbeef]).unwrap();
        let (back, len) = g.take_words(0x1000).unwrap();
        assert_eq!(
            (back.as_slice(), len),
            ([0x0403_0201, 0xbeef][..].as_ref(), 6)
        );
        assert_eq!(back.as_ptr(), at, "the words were copied");
        assert!(g.check(0x1000, 1).is_err(), "still mapped after take_words");
    }

    #[test]
    fn map_words_refuses_what_map_refuses() {
        let mut g = GlobalMemory::default();
        assert!(
            !g.map(SCRATCH_BASE - 4, &[0; 8]),
            "reaches the scratch range"
        );
        assert!(
            !g.map_words(SCRATCH_BASE, vec![0; 1], 4),
            "in the scratch range"
        );
        assert!(g.map(SCRATCH_BASE - 4, &[0; 4]));
        assert!(!g.map_words(0x1000, vec![0; 2], 9), "9 bytes are 3 words");
        assert!(!g.map_words(0x1002, vec![0; 1], 4), "misaligned");
        assert!(g.map(0x1000, &[0; 8]));
        assert!(!g.map_words(0x1004, vec![0; 2], 8), "overlaps");
        assert!(g.take_words(0x2000).is_none());
    }
}

// ---- checkpoints ----------------------------------------------------------------------

/// One mapped range of global memory as a checkpoint stores it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct RegionImage {
    pub base: u64,
    pub writable: bool,
    /// The current contents (the region's length is theirs).
    pub bytes: Vec<u8>,
}

impl GlobalMemory {
    /// Every mapping with its permissions and current contents, by address.
    pub(crate) fn image(&self) -> Vec<RegionImage> {
        self.regions
            .iter()
            .map(|r| RegionImage {
                base: r.base,
                writable: r.writable,
                bytes: self.bytes_at(r.base).unwrap_or_default(),
            })
            .collect()
    }

    /// The memory `regions` describe, or why they cannot be mapped together.
    pub(crate) fn from_image(regions: Vec<RegionImage>) -> Result<GlobalMemory, String> {
        let mut g = GlobalMemory::default();
        for r in regions {
            if !g.map_with(r.base, &r.bytes, r.writable) {
                return Err(format!(
                    "a mapping of {} bytes at {:#x} is misaligned, wraps, overlaps another or \
                     reaches the scratch range",
                    r.bytes.len(),
                    r.base
                ));
            }
        }
        Ok(g)
    }

    /// Whether a mapping starts at `base`, and if it is writable.
    pub(crate) fn mapping_at(&self, base: u64) -> Option<bool> {
        self.regions
            .iter()
            .find(|r| r.base == base)
            .map(|r| r.writable)
    }
}

/// A workgroup's shared memory as a checkpoint stores it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SharedImage {
    len: u64,
    /// Empty until the first store, then one word per 4 bytes.
    words: Vec<u32>,
}

impl SharedMemory {
    pub(crate) fn image(&self) -> SharedImage {
        SharedImage {
            len: self.len,
            words: self.words.clone(),
        }
    }

    /// The shared memory of `bytes` bytes that `image` describes, or why it cannot be.
    pub(crate) fn from_image(image: SharedImage, bytes: u32) -> Result<SharedMemory, String> {
        if image.len != u64::from(bytes) {
            return Err(format!(
                "{} bytes of shared memory where the launch has {bytes}",
                image.len
            ));
        }
        if !image.words.is_empty() && image.words.len() as u64 != image.len.div_ceil(4) {
            return Err(format!(
                "{} words of shared memory for {} bytes",
                image.words.len(),
                image.len
            ));
        }
        Ok(SharedMemory {
            words: image.words,
            len: image.len,
        })
    }
}
