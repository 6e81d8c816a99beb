//! Per-lane scratch memory (docs/abi.md, "Scratch memory"): where compiled code spills
//! registers and keeps private arrays. Each warp of a launch with scratch has its own
//! region of the global address space, at an address fixed by its workgroup's flat id and
//! its index, so addresses never depend on the host threads. A workgroup's regions exist
//! only while it runs: [`ScratchMemory`] is created, zero-filled, when the workgroup starts
//! and dropped when it ends, so a grid never holds more scratch than its running
//! workgroups use. The global-memory instructions reach it (`exec::mem` sends addresses
//! at or above [`SCRATCH_BASE`] here); any other address of the scratch range is unmapped.

use super::{check_alignment, read_words, rmw_word, unmapped, write_words, AtomicOp};
use crate::state::regs::LANES;
use crate::state::Fault;
use std::sync::atomic::{AtomicU32, Ordering};

/// The start of the scratch range of the address space: above anything else the launcher
/// maps (code, `.data`, the argument block and buffers lie below 2^62).
pub const SCRATCH_BASE: u64 = 0x4000_0000_0000_0000;
/// Scratch bytes per lane at most (`LaunchConfig::scratch_bytes`): 1 MiB.
pub const MAX_SCRATCH_BYTES: u32 = 1 << 20;
/// Warps per workgroup at most (1024 threads).
pub const MAX_SCRATCH_WARPS: u32 = 32;
/// Between the regions of consecutive warps of a workgroup: the largest region (32 lanes
/// of [`MAX_SCRATCH_BYTES`]), so a region's place does not depend on its size.
pub const SCRATCH_WARP_STRIDE: u64 = LANES as u64 * MAX_SCRATCH_BYTES as u64;
/// Between the regions of consecutive workgroups (flat ids).
pub const SCRATCH_WORKGROUP_STRIDE: u64 = MAX_SCRATCH_WARPS as u64 * SCRATCH_WARP_STRIDE;
/// The end of the scratch range: room for 2^32 workgroups, the most a grid has.
pub const SCRATCH_END: u64 = SCRATCH_BASE + (1u64 << 32) * SCRATCH_WORKGROUP_STRIDE;

/// Where warp `warp` of workgroup `workgroup` (flat id) has its scratch region: the value
/// of its `scratch_hi:scratch_lo`.
pub const fn scratch_base(workgroup: u64, warp: u32) -> u64 {
    SCRATCH_BASE
        .wrapping_add(workgroup.wrapping_mul(SCRATCH_WORKGROUP_STRIDE))
        .wrapping_add(warp as u64 * SCRATCH_WARP_STRIDE)
}

/// Words per page of a checkpoint's image: pages of zeros are left out.
const PAGE_WORDS: usize = 1024;

/// The scratch regions of one workgroup's warps, zero-filled when created. Words are
/// atomics, as global memory's are, so translated code reaches them as it reaches global
/// memory (through the same host-address hints), and debuggers read them through a
/// shared reference.
#[derive(Debug, Default)]
pub struct ScratchMemory {
    /// The region of warp 0.
    base: u64,
    lane_bytes: u32,
    warps: u32,
    /// Warp `w`'s region is words `w * warp_words ..` (`warp_words` = 8 * `lane_bytes`).
    words: Vec<AtomicU32>,
}

/// Zero-filled words, allocated as zeroed memory: the host maps pages of a large region
/// only when they are written.
fn zeroed(n: usize) -> Vec<AtomicU32> {
    // SAFETY: an `AtomicU32` has the size and validity of a `u32`, so all-zero bytes are
    // a valid `AtomicU32` (0).
    unsafe { Box::<[AtomicU32]>::new_zeroed_slice(n).assume_init() }.into_vec()
}

impl ScratchMemory {
    /// No scratch: every address of the scratch range is unmapped.
    pub const fn none() -> ScratchMemory {
        ScratchMemory {
            base: SCRATCH_BASE,
            lane_bytes: 0,
            warps: 0,
            words: Vec::new(),
        }
    }

    /// The zero-filled scratch of workgroup `workgroup` (flat id; its low 32 bits) with
    /// `warps` warps (at most [`MAX_SCRATCH_WARPS`]) of `lane_bytes` bytes per lane (rounded
    /// down to a multiple of 4, at most [`MAX_SCRATCH_BYTES`]). The launcher checks these
    /// before; out-of-range values are clamped, never a larger allocation.
    pub fn new(workgroup: u64, warps: u32, lane_bytes: u32) -> ScratchMemory {
        let lane_bytes = lane_bytes.min(MAX_SCRATCH_BYTES) & !3;
        let warps = if lane_bytes == 0 {
            0
        } else {
            warps.min(MAX_SCRATCH_WARPS)
        };
        let n = warps as usize * LANES * lane_bytes as usize / 4;
        ScratchMemory {
            base: scratch_base(workgroup & u64::from(u32::MAX), 0),
            lane_bytes,
            warps,
            words: zeroed(n),
        }
    }

    /// The address of warp 0's region.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The address of warp `warp`'s region.
    pub fn warp_base(&self, warp: u32) -> u64 {
        self.base + u64::from(warp) * SCRATCH_WARP_STRIDE
    }

    /// Scratch bytes per lane (`scratch_size`).
    pub fn lane_bytes(&self) -> u32 {
        self.lane_bytes
    }

    /// The warps that have a region.
    pub fn warps(&self) -> u32 {
        self.warps
    }

    /// Bytes in one warp's region: 32 lanes' worth.
    pub fn warp_bytes(&self) -> u64 {
        LANES as u64 * u64::from(self.lane_bytes)
    }

    /// Whether there is no scratch at all.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The base and words of the warp region holding every byte of `lo..end` (`lo < end`),
    /// if one does.
    #[inline]
    pub(crate) fn span(&self, lo: u64, end: u64) -> Option<(u64, &[AtomicU32])> {
        let w = lo.checked_sub(self.base)? / SCRATCH_WARP_STRIDE;
        if w >= u64::from(self.warps) {
            return None;
        }
        let rbase = self.base + w * SCRATCH_WARP_STRIDE;
        let bytes = self.warp_bytes();
        if end.checked_sub(rbase)? > bytes {
            return None;
        }
        let first = (w * bytes / 4) as usize;
        self.words
            .get(first..first + (bytes / 4) as usize)
            .map(|words| (rbase, words))
    }

    /// The words of the region holding the `size` bytes at `addr`, and the index of the
    /// word holding `addr` (alignment not checked).
    fn find(&self, addr: u64, size: u32) -> Result<(&[AtomicU32], usize), Fault> {
        let end = addr.checked_add(u64::from(size)).ok_or(unmapped(addr))?;
        let (rbase, words) = self.span(addr, end).ok_or(unmapped(addr))?;
        Ok((words, ((addr - rbase) / 4) as usize))
    }

    /// The base, length and host words of the region holding the `size` bytes at `addr`:
    /// what translated code accesses directly (every region is writable).
    pub(crate) fn region_holding(
        &self,
        addr: u64,
        size: u32,
    ) -> Option<(u64, u64, *const AtomicU32)> {
        let (rbase, words) = self.span(addr, addr.checked_add(u64::from(size))?)?;
        Some((rbase, self.warp_bytes(), words.as_ptr()))
    }

    /// Whether an access (load, store or atomic) of `size` bytes at `addr` is aligned and
    /// inside a region.
    pub fn check(&self, addr: u64, size: u32) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        self.find(addr, size).map(|_| ())
    }

    /// Read `size` bytes at `addr`, as [`super::GlobalMemory::read_shared`] does.
    pub fn read(&self, addr: u64, size: u32, out: &mut [u32]) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        let (words, index) = self.find(addr, size)?;
        read_words(words, index, addr, size, out);
        Ok(())
    }

    /// Write `size` bytes at `addr`, as [`super::GlobalMemory::write_shared`] does.
    pub fn write(&self, addr: u64, size: u32, data: &[u32]) -> Result<(), Fault> {
        check_alignment(addr, size)?;
        let (words, index) = self.find(addr, size)?;
        write_words(words, index, addr, size, data);
        Ok(())
    }

    /// A 32-bit atomic read-modify-write; returns the old value.
    pub fn atomic(&self, addr: u64, op: AtomicOp, data: u32, compare: u32) -> Result<u32, Fault> {
        check_alignment(addr, 4)?;
        let (words, index) = self.find(addr, 4)?;
        Ok(rmw_word(&words[index], op, data, compare))
    }
}

/// A workgroup's scratch as a checkpoint stores it: its pages that are not all zero.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ScratchImage {
    lane_bytes: u32,
    warps: u32,
    /// `(page, words)`: page `k` holds words `k * PAGE_WORDS ..`, ascending.
    pages: Vec<(u64, Vec<u32>)>,
}

impl ScratchMemory {
    pub(crate) fn image(&self) -> ScratchImage {
        let pages = self
            .words
            .chunks(PAGE_WORDS)
            .enumerate()
            .filter(|(_, page)| page.iter().any(|w| w.load(Ordering::Relaxed) != 0))
            .map(|(k, page)| {
                let words = page.iter().map(|w| w.load(Ordering::Relaxed)).collect();
                (k as u64, words)
            })
            .collect();
        ScratchImage {
            lane_bytes: self.lane_bytes,
            warps: self.warps,
            pages,
        }
    }

    /// The scratch of workgroup `workgroup` with `warps` warps of `lane_bytes` per lane
    /// that `image` describes, or why it cannot be.
    pub(crate) fn from_image(
        image: ScratchImage,
        workgroup: u64,
        warps: u32,
        lane_bytes: u32,
    ) -> Result<ScratchMemory, String> {
        let s = ScratchMemory::new(workgroup, warps, lane_bytes);
        if (image.lane_bytes, image.warps) != (s.lane_bytes, s.warps) {
            return Err(format!(
                "scratch of {} warps of {} bytes per lane where the launch has {} of {}",
                image.warps, image.lane_bytes, s.warps, s.lane_bytes
            ));
        }
        let mut next = 0;
        for (k, words) in image.pages {
            let start = usize::try_from(k)
                .ok()
                .and_then(|k| k.checked_mul(PAGE_WORDS))
                .filter(|&start| k >= next && start < s.words.len())
                .ok_or_else(|| format!("scratch page {k} is out of order or out of range"))?;
            let expected = PAGE_WORDS.min(s.words.len() - start);
            if words.len() != expected {
                return Err(format!(
                    "scratch page {k} holds {} words, not {expected}",
                    words.len()
                ));
            }
            for (w, x) in s.words[start..].iter().zip(words) {
                w.store(x, Ordering::Relaxed);
            }
            next = k + 1;
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_sit_at_fixed_places_and_nothing_between_them_is_mapped() {
        let s = ScratchMemory::new(3, 2, 8);
        assert_eq!(s.base(), SCRATCH_BASE + 3 * (1 << 30));
        assert_eq!(s.warp_base(1), s.base() + (1 << 25));
        assert_eq!(s.warp_bytes(), 256);
        let mut out = [0u32; 4];
        for (addr, size) in [
            (s.base(), 4),
            (s.base() + 252, 4),
            (s.warp_base(1) + 240, 16),
        ] {
            s.read(addr, size, &mut out).unwrap();
        }
        for (addr, size) in [
            (s.base() + 256, 4),
            (s.base() + 252, 8),
            (s.warp_base(2), 4),
            (s.base() - 4, 4),
            (u64::MAX - 1, 2),
        ] {
            let f = s.read(addr, size, &mut out).unwrap_err();
            assert_eq!((f.cause, f.info), (5, addr as u32), "{addr:#x}+{size}");
        }
        assert_eq!(s.check(s.base() + 2, 4).unwrap_err().cause, 4);
        s.write(s.warp_base(1) + 6, 2, &[0xbeef]).unwrap();
        s.read(s.warp_base(1) + 4, 4, &mut out).unwrap();
        assert_eq!(out[0], 0xbeef_0000);
        assert_eq!(
            s.atomic(s.warp_base(1) + 4, AtomicOp::Add, 1, 0),
            Ok(0xbeef_0000)
        );
        assert!(ScratchMemory::none().check(SCRATCH_BASE, 4).is_err());
        assert!(ScratchMemory::new(0, 32, 0).is_empty());
    }

    #[test]
    fn the_largest_grid_stays_inside_the_range() {
        let last = scratch_base(u64::from(u32::MAX), MAX_SCRATCH_WARPS - 1);
        assert!(last + SCRATCH_WARP_STRIDE <= SCRATCH_END);
        assert_eq!(SCRATCH_END, 1 << 63);
    }

    #[test]
    fn images_keep_the_pages_written_and_are_checked() {
        let s = ScratchMemory::new(1, 3, 1024);
        s.write(s.warp_base(2) + 4, 4, &[7]).unwrap();
        let image = s.image();
        assert_eq!(image.pages.len(), 1);
        let back = ScratchMemory::from_image(image.clone(), 1, 3, 1024).unwrap();
        let mut out = [0u32];
        back.read(s.warp_base(2) + 4, 4, &mut out).unwrap();
        assert_eq!(out[0], 7);
        assert!(ScratchMemory::from_image(image.clone(), 1, 2, 1024).is_err());
        let mut bad = image.clone();
        bad.pages[0].0 = 1 << 40;
        assert!(ScratchMemory::from_image(bad, 1, 3, 1024).is_err());
        let mut bad = image;
        bad.pages[0].1.pop();
        assert!(ScratchMemory::from_image(bad, 1, 3, 1024).is_err());
    }
}
