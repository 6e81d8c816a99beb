//! The CSRs of seed 001 §3.3 and their access rules, and the provisional `mode` layout.

/// CSR numbers (seed 000 §2.4, enum `csr`).
pub mod num {
    /// `exec` (read-write): the current 32-lane execution mask.
    pub const EXEC: u32 = 0x000;
    /// `mode` (read-write): rounding mode, flush-to-zero and floating-point trap enables
    /// (layout: [`super::mode`]).
    pub const MODE: u32 = 0x001;
    /// `fflags` (read-write): the accrued floating-point flags; a write keeps only
    /// `fflags[4:0]` (seed 001 §3.3). Their order, NV DZ OF UF NX from bit 4 down, is provisional
    /// (§4 is lost; `docs/provisional.md`).
    pub const FFLAGS: u32 = 0x002;
    /// `trapctl` (read-write): trap enables and stop policy, contents left to a later
    /// version of the seeds.
    pub const TRAPCTL: u32 = 0x003;
    /// `warpid` (read-only): the physical warp slot, set by the dispatcher.
    pub const WARPID: u32 = 0x010;
    /// `spid` (read-only): the SP (shader processor) number, set by the dispatcher.
    pub const SPID: u32 = 0x011;
    /// `coreid` (read-only): the core number, set by the dispatcher.
    pub const COREID: u32 = 0x012;
    /// `wgslot` (read-only): the workgroup slot, set by the dispatcher.
    pub const WGSLOT: u32 = 0x013;
    /// `clock` (read-only): low 32 bits of the instructions this warp retired.
    pub const CLOCK: u32 = 0x020;
    /// `clockh` (read-only): high 32 bits of `clock`.
    pub const CLOCKH: u32 = 0x021;
    /// `time` (read-only): low 32 bits of the instructions committed on this warp's core.
    pub const TIME: u32 = 0x022;
    /// `timeh` (read-only): high 32 bits of `time`.
    pub const TIMEH: u32 = 0x023;
    /// `scratch_lo` (read-only): the scratch base address, low 32 bits.
    pub const SCRATCH_LO: u32 = 0x030;
    /// `scratch_hi` (read-only): the scratch base address, high 32 bits.
    pub const SCRATCH_HI: u32 = 0x031;
    /// `scratch_size` (read-only): scratch bytes per lane.
    pub const SCRATCH_SIZE: u32 = 0x032;
    /// `code_lo` (read-only): CODE_BASE, the address of PC 0, low 32 bits.
    pub const CODE_LO: u32 = 0x033;
    /// `code_hi` (read-only): CODE_BASE, high 32 bits.
    pub const CODE_HI: u32 = 0x034;
    /// `trapbase` (read-write): the PC a trap jumps to; 0: no handler, a trap stops the
    /// warp.
    pub const TRAPBASE: u32 = 0x040;
    /// `trapcause` (read-write): the cause of the last trap taken (`CAUSE_*` in
    /// [`crate::trap`]).
    pub const TRAPCAUSE: u32 = 0x041;
    /// `trappc` (read-write): the PC of the instruction that trapped, relative to
    /// CODE_BASE.
    pub const TRAPPC: u32 = 0x042;
    /// `trapinfo` (read-write): more about the trap, as its cause defines.
    pub const TRAPINFO: u32 = 0x043;
}

/// Provisional `mode` layout (docs/provisional.md, section "mode").
pub mod mode {
    /// mode[2:0]: rounding mode; 5, 6 and 7 are reserved in MODE.
    pub const RM_MASK: u32 = 0x7;
    /// Round to nearest, ties to even.
    pub const RM_RNE: u32 = 0;
    /// Round toward zero.
    pub const RM_RTZ: u32 = 1;
    /// Round down, toward negative infinity.
    pub const RM_RDN: u32 = 2;
    /// Round up, toward positive infinity.
    pub const RM_RUP: u32 = 3;
    /// Round to nearest, ties away from zero (to maximum magnitude).
    pub const RM_RMM: u32 = 4;
    /// mode[3]: flush fp32 denormals to zero.
    pub const FTZ32: u32 = 1 << 3;
    /// mode[4]: flush fp16 denormals to zero.
    pub const FTZ16: u32 = 1 << 4;
    /// mode[9:5]: trap enables; mode[5+k] enables fflags bit k (NV DZ OF UF NX order of
    /// fflags[4:0]).
    pub const TRAP_ENABLES: u32 = 0x1f << 5;
    /// Every bit a valid mode value may set.
    pub const DEFINED: u32 = RM_MASK | FTZ32 | FTZ16 | TRAP_ENABLES;

    /// Whether `value` is a legal `mode` value.
    pub const fn is_valid(value: u32) -> bool {
        value & !DEFINED == 0 && (value & RM_MASK) <= RM_RMM
    }
}

/// `fflags` keeps only bits [4:0].
pub const FFLAGS_MASK: u32 = 0x1f;

/// The per-warp CSRs stored as plain values. `exec`, `clock*` and `time*` live elsewhere
/// (the warp's EXEC and retired count, the core's committed count). Every write marks the
/// CSR (see `crate::regs` for why), so the fields are private: reads through the getters
/// or [`CsrFile::get`], writes through [`CsrFile::set`] and [`CsrFile::accrue_fflags`].
/// Access rights are not checked here but by the CSR instructions (`Warp::csr_write`).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct CsrFile {
    mode: u32,
    fflags: u32,
    trapctl: u32,
    warpid: u32,
    spid: u32,
    coreid: u32,
    wgslot: u32,
    scratch_lo: u32,
    scratch_hi: u32,
    scratch_size: u32,
    code_lo: u32,
    code_hi: u32,
    trapbase: u32,
    trapcause: u32,
    trappc: u32,
    trapinfo: u32,
    /// The CSRs written since the last [`CsrFile::clear_written`], bit n for CSR number n.
    #[serde(skip)]
    written: u128,
}

// Every CSR number fits a bit of `CsrFile::written`.
const _: () = {
    let mut k = 0;
    while k < warpkit_isa::CSRS.len() {
        assert!(warpkit_isa::CSRS[k].number < 128);
        k += 1;
    }
};

/// The marks say what an instruction did, not what the file holds.
impl PartialEq for CsrFile {
    fn eq(&self, other: &CsrFile) -> bool {
        self.values() == other.values()
    }
}

impl Eq for CsrFile {}

macro_rules! getters {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("The value of `", stringify!($name), "`.")]
            #[inline(always)]
            pub fn $name(&self) -> u32 {
                self.$name
            }
        )*
    };
}

impl CsrFile {
    getters!(
        mode,
        fflags,
        trapctl,
        warpid,
        spid,
        coreid,
        wgslot,
        scratch_lo,
        scratch_hi,
        scratch_size,
        code_lo,
        code_hi,
        trapbase,
        trapcause,
        trappc,
        trapinfo
    );

    fn values(&self) -> [u32; 16] {
        [
            self.mode,
            self.fflags,
            self.trapctl,
            self.warpid,
            self.spid,
            self.coreid,
            self.wgslot,
            self.scratch_lo,
            self.scratch_hi,
            self.scratch_size,
            self.code_lo,
            self.code_hi,
            self.trapbase,
            self.trapcause,
            self.trappc,
            self.trapinfo,
        ]
    }

    /// CODE_BASE, the 64-bit address of PC 0.
    pub fn code_base(&self) -> u64 {
        u64::from(self.code_lo) | (u64::from(self.code_hi) << 32)
    }

    /// The value of a CSR this file holds.
    pub fn get(&self, number: u32) -> Option<u32> {
        Some(match number {
            num::MODE => self.mode,
            num::FFLAGS => self.fflags,
            num::TRAPCTL => self.trapctl,
            num::WARPID => self.warpid,
            num::SPID => self.spid,
            num::COREID => self.coreid,
            num::WGSLOT => self.wgslot,
            num::SCRATCH_LO => self.scratch_lo,
            num::SCRATCH_HI => self.scratch_hi,
            num::SCRATCH_SIZE => self.scratch_size,
            num::CODE_LO => self.code_lo,
            num::CODE_HI => self.code_hi,
            num::TRAPBASE => self.trapbase,
            num::TRAPCAUSE => self.trapcause,
            num::TRAPPC => self.trappc,
            num::TRAPINFO => self.trapinfo,
            _ => return None,
        })
    }

    /// Store `value` in a CSR this file holds, marking it; false (nothing written) for any
    /// other number. `fflags` keeps bits [4:0].
    pub fn set(&mut self, number: u32, value: u32) -> bool {
        let slot = match number {
            num::MODE => &mut self.mode,
            num::FFLAGS => &mut self.fflags,
            num::TRAPCTL => &mut self.trapctl,
            num::WARPID => &mut self.warpid,
            num::SPID => &mut self.spid,
            num::COREID => &mut self.coreid,
            num::WGSLOT => &mut self.wgslot,
            num::SCRATCH_LO => &mut self.scratch_lo,
            num::SCRATCH_HI => &mut self.scratch_hi,
            num::SCRATCH_SIZE => &mut self.scratch_size,
            num::CODE_LO => &mut self.code_lo,
            num::CODE_HI => &mut self.code_hi,
            num::TRAPBASE => &mut self.trapbase,
            num::TRAPCAUSE => &mut self.trapcause,
            num::TRAPPC => &mut self.trappc,
            num::TRAPINFO => &mut self.trapinfo,
            _ => return false,
        };
        *slot = if number == num::FFLAGS {
            value & FFLAGS_MASK
        } else {
            value
        };
        self.written |= 1u128 << number;
        true
    }

    /// A floating-point instruction's exception flags (fflags layout), ORed into `fflags`;
    /// raising any flag writes `fflags`, even one already set, as it would in hardware.
    #[inline(always)]
    pub fn accrue_fflags(&mut self, flags: u32) {
        if flags & FFLAGS_MASK != 0 {
            self.fflags |= flags & FFLAGS_MASK;
            self.written |= 1u128 << num::FFLAGS;
        }
    }

    /// The CSRs written since the last [`CsrFile::clear_written`], bit n for CSR number n.
    #[inline(always)]
    pub fn written(&self) -> u128 {
        self.written
    }

    /// Drop the write marks of [`CsrFile::written`] (the hooks' bookkeeping, done before
    /// each observed instruction).
    #[inline(always)]
    pub fn clear_written(&mut self) {
        self.written = 0;
    }
}

/// How a CSR instruction changes its CSR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsrWrite {
    /// Replace the CSR with the value (`csrw`).
    Write,
    /// Set the bits that are 1 in the value (`csrs`).
    Set,
    /// Clear the bits that are 1 in the value (`csrc`).
    Clear,
}
