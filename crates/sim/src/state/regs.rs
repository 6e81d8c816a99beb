//! The register files of a warp (seed 001 §3.1), each behind a type whose every write by an
//! instruction is marked: the commit trace, watchpoints, the Python commits and the C
//! co-simulation check read the marks after each instruction, so a write that did not mark
//! would be a write no observer sees. Reads go through `Deref` to the plain array; writes go
//! through `IndexMut` (or the few named methods below), which mark.
//!
//! Two writers do not mark, each for a reason its method names: the retirement of an
//! asynchronous operation (§2.6), which the retire log records with the operation that
//! issued it, and translated code, which runs only while nothing observes single
//! instructions.

/// Lanes per warp.
pub const LANES: usize = 32;
/// Vector registers per lane (v0..v127).
pub const NUM_VREGS: usize = 128;
/// Uniform registers per warp (u0..u63).
pub const NUM_UREGS: usize = 64;

/// One vector register: a value per lane.
pub type Row = [u32; LANES];

/// The bit set of `count` registers from `first` (empty past the end of 128).
pub(crate) fn range_mask128(first: u8, count: u8) -> u128 {
    let ones = if count >= 128 {
        u128::MAX
    } else {
        (1u128 << count) - 1
    };
    ones.checked_shl(u32::from(first)).unwrap_or(0)
}

/// The bit set of `count` registers from `first` (empty past the end of 64).
pub(crate) fn range_mask64(first: u8, count: u8) -> u64 {
    let ones = if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    };
    ones.checked_shl(u32::from(first)).unwrap_or(0)
}

/// The vector register file, register-major and lane-contiguous: `v[r]` is one SIMD row.
#[derive(Clone, PartialEq, Eq)]
pub struct VRegs {
    rows: Box<Rows>,
    written: u128,
}

/// The rows, on whole cache lines: no vector access to a row (32 or 64 bytes) splits a
/// line, so store-to-load forwarding between translated code's row writes and reads never
/// spans two lines. With the allocator's 16-byte alignment, `bench/madd.s`'s time varied
/// by a third with the size of allocations made before the register files.
#[repr(C, align(64))]
#[derive(Clone, PartialEq, Eq)]
struct Rows([Row; NUM_VREGS]);

impl std::ops::Deref for Rows {
    type Target = [Row; NUM_VREGS];
    fn deref(&self) -> &[Row; NUM_VREGS] {
        &self.0
    }
}

impl std::ops::DerefMut for Rows {
    fn deref_mut(&mut self) -> &mut [Row; NUM_VREGS] {
        &mut self.0
    }
}

impl VRegs {
    /// Registers written since the last [`VRegs::clear_written`], one bit each.
    #[inline(always)]
    pub fn written(&self) -> u128 {
        self.written
    }

    /// Drop the write marks of [`VRegs::written`] (done before each observed
    /// instruction).
    #[inline(always)]
    pub fn clear_written(&mut self) {
        self.written = 0;
    }

    /// Every register to 0 (not an instruction's write: nothing is marked).
    pub(crate) fn zero_all(&mut self) {
        self.rows.0 = [[0; LANES]; NUM_VREGS];
        self.written = 0;
    }

    /// Register `r` to 0 (not an instruction's write: nothing is marked).
    pub(crate) fn zero(&mut self, r: usize) {
        self.rows[r] = [0; LANES];
    }

    /// Register `r`, mutably, if it exists; marks it.
    #[inline(always)]
    pub fn get_mut(&mut self, r: usize) -> Option<&mut Row> {
        let row = self.rows.get_mut(r)?;
        self.written |= 1u128 << r;
        Some(row)
    }

    /// Every register, for an instruction that writes register `d` in place while reading
    /// others (the f32 row paths); marks `d`.
    #[inline(always)]
    pub(crate) fn writing(&mut self, d: usize) -> &mut [Row; NUM_VREGS] {
        self.written |= 1u128 << (d & 127);
        &mut self.rows
    }

    /// Register `r`, mutably, for the retirement of an asynchronous operation: the retire
    /// log, not the write marks, records it (as the issuing instruction's result).
    #[inline(always)]
    pub(crate) fn retiring(&mut self, r: usize) -> Option<&mut Row> {
        self.rows.get_mut(r)
    }

    /// The rows for translated code, which writes them directly and runs only when no
    /// hooks observe the warp (no marks are read).
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u32 {
        self.rows.as_mut_ptr().cast::<u32>()
    }
}

impl Default for VRegs {
    fn default() -> VRegs {
        VRegs {
            rows: Box::new(Rows([[0; LANES]; NUM_VREGS])),
            written: 0,
        }
    }
}

impl std::fmt::Debug for VRegs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.rows.iter()).finish()
    }
}

impl std::ops::Deref for VRegs {
    type Target = [Row; NUM_VREGS];
    #[inline(always)]
    fn deref(&self) -> &[Row; NUM_VREGS] {
        &self.rows
    }
}

impl std::ops::Index<usize> for VRegs {
    type Output = Row;
    #[inline(always)]
    fn index(&self, r: usize) -> &Row {
        &self.rows[r]
    }
}

impl std::ops::IndexMut<usize> for VRegs {
    #[inline(always)]
    fn index_mut(&mut self, r: usize) -> &mut Row {
        self.written |= 1u128 << (r & 127);
        &mut self.rows[r]
    }
}

/// The uniform register file, written through indexing, which marks.
#[derive(Clone, PartialEq, Eq)]
pub struct URegs {
    regs: [u32; NUM_UREGS],
    written: u64,
}

impl URegs {
    /// Registers written since the last [`URegs::clear_written`], one bit each.
    #[inline(always)]
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Drop the write marks of [`URegs::written`] (done before each observed
    /// instruction).
    #[inline(always)]
    pub fn clear_written(&mut self) {
        self.written = 0;
    }

    /// Register `r`, mutably, if it exists; marks it.
    #[inline(always)]
    pub fn get_mut(&mut self, r: usize) -> Option<&mut u32> {
        let x = self.regs.get_mut(r)?;
        self.written |= 1u64 << r;
        Some(x)
    }

    /// Register `r`, mutably, for the retirement of an asynchronous operation (see
    /// [`VRegs::retiring`]).
    #[inline(always)]
    pub(crate) fn retiring(&mut self, r: usize) -> Option<&mut u32> {
        self.regs.get_mut(r)
    }

    /// The registers for translated code (see [`VRegs::as_mut_ptr`]).
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u32 {
        self.regs.as_mut_ptr()
    }
}

impl Default for URegs {
    fn default() -> URegs {
        URegs {
            regs: [0; NUM_UREGS],
            written: 0,
        }
    }
}

impl std::fmt::Debug for URegs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.regs.fmt(f)
    }
}

impl std::ops::Deref for URegs {
    type Target = [u32; NUM_UREGS];
    #[inline(always)]
    fn deref(&self) -> &[u32; NUM_UREGS] {
        &self.regs
    }
}

impl std::ops::Index<usize> for URegs {
    type Output = u32;
    #[inline(always)]
    fn index(&self, r: usize) -> &u32 {
        &self.regs[r]
    }
}

impl std::ops::IndexMut<usize> for URegs {
    #[inline(always)]
    fn index_mut(&mut self, r: usize) -> &mut u32 {
        self.written |= 1u64 << (r & 63);
        &mut self.regs[r]
    }
}

impl std::ops::Index<std::ops::Range<usize>> for URegs {
    type Output = [u32];
    fn index(&self, r: std::ops::Range<usize>) -> &[u32] {
        &self.regs[r]
    }
}

/// A range of registers, mutably; marks them.
impl std::ops::IndexMut<std::ops::Range<usize>> for URegs {
    fn index_mut(&mut self, r: std::ops::Range<usize>) -> &mut [u32] {
        let slice = &mut self.regs[r.clone()];
        self.written |= range_mask64(r.start as u8, slice.len() as u8);
        slice
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_rows_start_on_cache_lines() {
        // Translated code reads and writes rows 32 and 64 bytes at a time: none may split
        // a line, in a fresh register file or a copy of one.
        let mut regs = VRegs::default();
        assert_eq!(regs.as_mut_ptr() as usize % 64, 0);
        let mut copy = regs.clone();
        assert_eq!(copy.as_mut_ptr() as usize % 64, 0);
        assert_eq!(std::mem::size_of::<Row>() % 64, 0);
    }
}
