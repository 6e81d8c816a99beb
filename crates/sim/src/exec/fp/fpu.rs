//! f32 `fadd`/`fsub`/`fmul`/`ffma` of a whole row (32 lanes) on the host's floating-point
//! unit: x86-64 with AVX2 and FMA, detected at run time, rounding in `rne`, `rtz`, `rdn` or
//! `rup` with the flags read from MXCSR.
//!
//! Why the result is warpkit-float's, bit for bit and flag for flag:
//! - the x86 operations are IEEE 754 operations (`vfmadd213ps` rounds once) in the
//!   rounding mode MXCSR.RC selects, with denormals neither flushed (FTZ = 0) nor treated
//!   as zero (DAZ = 0), so every non-NaN result is IEEE's;
//! - with every exception masked, MXCSR's sticky flags are IEEE's default-handling flags:
//!   PE = NX, OE = OF (raised with PE, as IEEE and RISC-V do), UE = UF raised when the
//!   result is tiny and inexact, tininess detected after rounding (x86 and RISC-V both),
//!   ZE = DZ, IE = NV; the denormal-operand flag DE has no IEEE counterpart and is ignored;
//! - NaN results are where x86 and RISC-V differ (x86 propagates a payload or gives the
//!   negative "default" NaN; RISC-V gives the canonical NaN, and `ffma(inf, 0, qNaN)`
//!   signals): a row with a NaN result in an active lane is declined and computed by the
//!   caller's other paths. A row without one raised no IE (an invalid operation or a
//!   signaling NaN operand always gives a NaN);
//! - inactive lanes are replaced by +0 before the operation, so they raise no flag;
//! - the FP control never escapes the `asm!` block: when MXCSR's control bits differ from
//!   the ones the row needs, the block saves MXCSR, loads the rounding mode with clear
//!   flags and every exception masked, computes, reads the flags and restores the saved
//!   control bits (with the sticky flags cleared), so no Rust code ever runs under a
//!   changed rounding mode, masks, FTZ or DAZ. The sticky flags are another matter: Rust
//!   assumes nothing about them (`core::arch`'s `_mm_getcsr` documents that any
//!   floating-point operation may or may not update them) and the x86-64 calling
//!   conventions make them volatile, so a row may leave them changed.
//!
//! Loading MXCSR is the expensive part of a row (it is most of an `ffma` row's time), and
//! in `rne` the control bits the row needs are Rust's own. So the block loads MXCSR only
//! when it must: when the control bits differ, or when the sticky flags it finds hold a
//! flag outside `accrued`, the flags the caller is about to OR the result's into anyway
//! (the warp's `fflags`, less the flags whose trap is enabled). Otherwise it computes under
//! the MXCSR it finds and reports the flags it finds afterwards: they are the row's flags
//! plus some of `accrued`, which ORed into `fflags` give exactly what the row's own flags
//! give, and they never include a flag that traps unless the row raised it.
//!
//! `rmm` has no x86 rounding control, and `mode`'s f32 flushing is not this unit's
//! (inputs flushed after reading, results flushed with UF and NX): both are declined.

use warpkit_float::{Flags, Round};

/// Which operation a row computes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Add,
    Sub,
    Mul,
    Fma,
}

/// The source modifiers of one instruction as bit masks: source k is `(x & and[k]) ^
/// xor[k]` (`abs` clears the sign, then `neg` flips it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mods {
    pub and: [u32; 3],
    pub xor: [u32; 3],
}

impl Mods {
    pub(crate) fn new(neg: u32, abs: u32) -> Mods {
        let sign = |bits: u32, k: u32| if bits & (1 << k) != 0 { 1u32 << 31 } else { 0 };
        Mods {
            and: [0, 1, 2].map(|k| !sign(abs, k)),
            xor: [0, 1, 2].map(|k| sign(neg, k)),
        }
    }
}

/// `kind` over the 32 lanes of rows `a`, `b` (and `c` for `Fma`) with modifiers `mods`,
/// for the lanes in `exec`, rounded in `rm`: the result row (inactive lanes hold +0-based
/// garbage the caller does not write) and the flags of the active lanes, to which some of
/// `accrued` may be added (the caller ORs them into flags that already hold `accrued`).
/// `None` when this unit does not compute the row: no AVX2/FMA, `rmm`, or a NaN result in
/// an active lane.
#[allow(clippy::too_many_arguments)]
pub(crate) fn row(
    kind: Kind,
    rm: Round,
    a: &[u32; 32],
    b: &[u32; 32],
    c: &[u32; 32],
    mods: Mods,
    exec: u32,
    accrued: Flags,
) -> Option<([u32; 32], Flags)> {
    #[cfg(target_arch = "x86_64")]
    {
        if x86::available() {
            return x86::row(kind, rm, a, b, c, mods, exec, accrued);
        }
    }
    let _ = (kind, rm, a, b, c, mods, exec, accrued);
    None
}

/// `kind` over every lane of rows `s` of `regs` without modifiers, rounded in `rm`,
/// written to row `d` (which may be a source): the flags, as [`row`]'s (up to `accrued`).
/// `None`, with row `d` unchanged, when this unit does not compute the row: no AVX2/FMA,
/// `rmm`, or a NaN result. Panics when an index is out of range.
pub(crate) fn row_in_place(
    kind: Kind,
    rm: Round,
    regs: &mut [[u32; 32]],
    d: usize,
    s: [usize; 3],
    accrued: Flags,
) -> Option<Flags> {
    #[cfg(target_arch = "x86_64")]
    {
        if x86::available() {
            return x86::row_in_place(kind, rm, regs, d, s, accrued);
        }
    }
    let _ = (kind, rm, regs, d, s, accrued);
    None
}

/// The IEEE flags among MXCSR's sticky flags (`DE`, which has no counterpart, dropped).
#[cfg(target_arch = "x86_64")]
pub(crate) fn mxcsr_flags(mxcsr: u32) -> Flags {
    x86::flags_of(mxcsr)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Kind, Mods};
    use warpkit_float::{Flags, Round};

    /// Lane k of a chunk of 8 has bit k: expands an EXEC byte to a lane mask. A constant,
    /// not a field of [`Block`]: a 32-byte load of eight 4-byte stores just made would stall
    /// on store forwarding.
    #[repr(C, align(32))]
    struct LaneBits([u32; 8]);
    static LANE_BITS: LaneBits = LaneBits([1, 2, 4, 8, 16, 32, 64, 128]);

    /// What the `asm!` block reads and writes besides the rows.
    #[repr(C)]
    struct Block {
        /// `and[0] xor[0] and[1] xor[1] and[2] xor[2]`.
        mods: [u32; 6],
        /// The caller's MXCSR, saved and (when the block loaded `run`) restored by the block
        /// with its flags cleared.
        saved: u32,
        /// The MXCSR the operation runs under.
        run: u32,
        /// MXCSR after the operation: its flags.
        after: u32,
        /// The bits of the caller's MXCSR that may differ from `run` without loading it:
        /// the flags in `accrued` and DE.
        keep: u32,
    }

    /// `$run!(op)` with the instruction computing `kind` into `ymm0` from `ymm0`, `ymm1`
    /// (and `ymm2`): the one place the operations are spelled, for every block.
    macro_rules! for_kind {
        ($kind:expr, $run:ident) => {
            match $kind {
                Kind::Add => $run!("vaddps ymm0, ymm0, ymm1"),
                Kind::Sub => $run!("vsubps ymm0, ymm0, ymm1"),
                Kind::Mul => $run!("vmulps ymm0, ymm0, ymm1"),
                Kind::Fma => $run!("vfmadd213ps ymm0, ymm1, ymm2"),
            }
        };
    }

    /// MXCSR: every exception masked (bits 12:7), flags (5:0) clear, FTZ and DAZ off.
    const MASKED: u32 = 0x1f80;
    const IE: u32 = 1;
    /// The denormal-operand flag: no IEEE counterpart, never reported.
    const DE: u32 = 1 << 1;
    const ZE: u32 = 1 << 2;
    const OE: u32 = 1 << 3;
    const UE: u32 = 1 << 4;
    const PE: u32 = 1 << 5;

    /// The 8 lanes at byte offset `$off` of the rows (chunk `$off / 32`, EXEC bits from
    /// `$shift`): modifiers, inactive lanes to +0, the operation, the store, and the active
    /// lanes with a NaN result ORed into `edx` (`eax` is scratch).
    macro_rules! chunk {
        ($op:literal, $off:literal, $shift:literal) => {
            concat!(
                "vmovdqu ymm0, ymmword ptr [{a} + ",
                $off,
                "]\n",
                "vpand ymm0, ymm0, ymm10\n",
                "vpxor ymm0, ymm0, ymm11\n",
                "vmovdqu ymm1, ymmword ptr [{b} + ",
                $off,
                "]\n",
                "vpand ymm1, ymm1, ymm12\n",
                "vpxor ymm1, ymm1, ymm13\n",
                "vmovdqu ymm2, ymmword ptr [{c} + ",
                $off,
                "]\n",
                "vpand ymm2, ymm2, ymm14\n",
                "vpxor ymm2, ymm2, ymm15\n",
                "mov eax, {exec:e}\n",
                "shr eax, ",
                $shift,
                "\n",
                "vmovd xmm3, eax\n",
                "vpbroadcastd ymm3, xmm3\n",
                "vpand ymm3, ymm3, ymm9\n",
                "vpcmpeqd ymm3, ymm3, ymm9\n",
                "vpand ymm0, ymm0, ymm3\n",
                "vpand ymm1, ymm1, ymm3\n",
                "vpand ymm2, ymm2, ymm3\n",
                $op,
                "\n",
                "vmovdqu ymmword ptr [{out} + ",
                $off,
                "], ymm0\n",
                "vcmpunordps ymm4, ymm0, ymm0\n",
                "vpand ymm4, ymm4, ymm3\n",
                "vmovmskps eax, ymm4\n",
                "shl eax, ",
                $shift,
                "\n",
                "or edx, eax\n",
            )
        };
    }

    /// Read MXCSR into `saved`; unless its bits outside `keep` already equal `run`, load
    /// `run` and set `ecx` to 1 (0 otherwise).
    macro_rules! enter {
        () => {
            concat!(
                "vstmxcsr dword ptr [{k} + 24]\n",
                "mov eax, dword ptr [{k} + 36]\n",
                "not eax\n",
                "and eax, dword ptr [{k} + 24]\n",
                "xor ecx, ecx\n",
                "cmp eax, dword ptr [{k} + 28]\n",
                "je 2f\n",
                "vldmxcsr dword ptr [{k} + 28]\n",
                "mov ecx, 1\n",
                "2:\n",
            )
        };
    }

    /// Read the flags into `after`; if `enter!` loaded `run`, restore the saved control
    /// bits with the flags cleared.
    macro_rules! leave {
        () => {
            concat!(
                "vstmxcsr dword ptr [{k} + 32]\n",
                "test ecx, ecx\n",
                "je 3f\n",
                "and dword ptr [{k} + 24], -64\n",
                "vldmxcsr dword ptr [{k} + 24]\n",
                "3:\n",
            )
        };
    }

    /// The whole block for one operation with modifiers and EXEC: load the modifier masks
    /// and lane bits, `enter!`, four chunks, `leave!`.
    macro_rules! block {
        ($op:literal) => {
            concat!(
                "vmovdqa ymm9, ymmword ptr [{lanes}]\n",
                "vpbroadcastd ymm10, dword ptr [{k}]\n",
                "vpbroadcastd ymm11, dword ptr [{k} + 4]\n",
                "vpbroadcastd ymm12, dword ptr [{k} + 8]\n",
                "vpbroadcastd ymm13, dword ptr [{k} + 12]\n",
                "vpbroadcastd ymm14, dword ptr [{k} + 16]\n",
                "vpbroadcastd ymm15, dword ptr [{k} + 20]\n",
                enter!(),
                chunk!($op, "0", "0"),
                chunk!($op, "32", "8"),
                chunk!($op, "64", "16"),
                chunk!($op, "96", "24"),
                leave!(),
                "vzeroupper\n",
            )
        };
    }

    /// The 8 lanes at byte offset `$off` with every lane active and no modifier: the
    /// operation into `$r`, NaN results ORed into `ymm5`.
    macro_rules! plain_chunk {
        ($op:literal, $off:literal, $r:literal) => {
            concat!(
                "vmovdqu ymm0, ymmword ptr [{a} + ",
                $off,
                "]\n",
                "vmovdqu ymm1, ymmword ptr [{b} + ",
                $off,
                "]\n",
                "vmovdqu ymm2, ymmword ptr [{c} + ",
                $off,
                "]\n",
                $op,
                "\n",
                "vmovaps ",
                $r,
                ", ymm0\n",
                "vcmpunordps ymm4, ymm0, ymm0\n",
                "vpor ymm5, ymm5, ymm4\n",
            )
        };
    }

    /// The block for a row with every lane active and no modifier, written straight to
    /// `{out}` (which may be one of the sources: every source is read first) unless a result
    /// is NaN; `edx` is nonzero when one is, and then `{out}` is left as it was.
    macro_rules! plain_block {
        ($op:literal) => {
            concat!(
                "vpxor xmm5, xmm5, xmm5\n",
                enter!(),
                plain_chunk!($op, "0", "ymm6"),
                plain_chunk!($op, "32", "ymm7"),
                plain_chunk!($op, "64", "ymm8"),
                plain_chunk!($op, "96", "ymm9"),
                leave!(),
                "vmovmskps edx, ymm5\n",
                "test edx, edx\n",
                "jne 4f\n",
                "vmovdqu ymmword ptr [{out}], ymm6\n",
                "vmovdqu ymmword ptr [{out} + 32], ymm7\n",
                "vmovdqu ymmword ptr [{out} + 64], ymm8\n",
                "vmovdqu ymmword ptr [{out} + 96], ymm9\n",
                "4:\n",
                "vzeroupper\n",
            )
        };
    }

    pub(super) const FLAG_BITS: [(u32, Flags); 5] = [
        (PE, Flags::NX),
        (UE, Flags::UF),
        (OE, Flags::OF),
        (ZE, Flags::DZ),
        (IE, Flags::NV),
    ];

    #[allow(clippy::too_many_arguments)]
    pub(super) fn row(
        kind: Kind,
        rm: Round,
        a: &[u32; 32],
        b: &[u32; 32],
        c: &[u32; 32],
        mods: Mods,
        exec: u32,
        accrued: Flags,
    ) -> Option<([u32; 32], Flags)> {
        let mut block = Block {
            mods: [
                mods.and[0],
                mods.xor[0],
                mods.and[1],
                mods.xor[1],
                mods.and[2],
                mods.xor[2],
            ],
            saved: 0,
            run: run_mxcsr(rm)?,
            after: 0,
            keep: keep_bits(accrued),
        };
        let mut out = [0u32; 32];
        let mut nan = 0u32;
        let k: *mut Block = &mut block;
        let c = if kind == Kind::Fma { c } else { a };
        // SAFETY: the CPU has AVX2 and FMA (checked by the caller); the block reads the
        // three rows, `block` and `LANE_BITS`, writes `out` and `block`, all live and
        // aligned for their accesses (`vmovdqu` has no alignment requirement, `LANE_BITS`
        // is 32-byte aligned for `vmovdqa`); it leaves MXCSR's control bits as it found them
        // before any Rust code runs again and clobbers only the vector registers and flags
        // declared by `clobber_abi("C")`.
        unsafe {
            macro_rules! run {
                ($op:literal) => {
                    std::arch::asm!(
                        block!($op),
                        a = in(reg) a.as_ptr(),
                        b = in(reg) b.as_ptr(),
                        c = in(reg) c.as_ptr(),
                        out = in(reg) out.as_mut_ptr(),
                        k = in(reg) k,
                        lanes = in(reg) LANE_BITS.0.as_ptr(),
                        exec = in(reg) exec,
                        out("eax") _,
                        out("ecx") _,
                        inout("edx") nan,
                        clobber_abi("C"),
                        options(nostack),
                    )
                };
            }
            for_kind!(kind, run);
        }
        if nan != 0 {
            return None;
        }
        let flags = flags_of(block.after);
        Some((out, flags))
    }

    /// MXCSR for rounding in `rm` (`None` for `rmm`), every exception masked.
    fn run_mxcsr(rm: Round) -> Option<u32> {
        // MXCSR.RC: 00 nearest even, 01 down, 10 up, 11 toward zero.
        let rc = match rm {
            Round::Rne => 0,
            Round::Rdn => 1,
            Round::Rup => 2,
            Round::Rtz => 3,
            Round::Rmm => return None,
        };
        Some(MASKED | rc << 13)
    }

    /// MXCSR's bits that may differ from the run value without loading it.
    fn keep_bits(accrued: Flags) -> u32 {
        FLAG_BITS
            .iter()
            .filter(|(_, f)| accrued.contains(*f))
            .fold(DE, |m, (bit, _)| m | bit)
    }

    pub(super) fn flags_of(mxcsr: u32) -> Flags {
        FLAG_BITS
            .iter()
            .filter(|(bit, _)| mxcsr & bit != 0)
            .fold(Flags::NONE, |f, (_, flag)| f | *flag)
    }

    /// Whether the CPU has AVX2 and FMA, detected once.
    #[inline]
    pub(super) fn available() -> bool {
        static AVAILABLE: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        });
        *AVAILABLE
    }

    #[inline]
    pub(super) fn row_in_place(
        kind: Kind,
        rm: Round,
        regs: &mut [[u32; 32]],
        d: usize,
        [s1, s2, s3]: [usize; 3],
        accrued: Flags,
    ) -> Option<Flags> {
        let s3 = if kind == Kind::Fma { s3 } else { s1 };
        // Indices out of range are the caller's bug; they panic here, before any access.
        let _ = (&regs[d], &regs[s1], &regs[s2], &regs[s3]);
        let mut block = Block {
            mods: [0; 6],
            saved: 0,
            run: run_mxcsr(rm)?,
            after: 0,
            keep: keep_bits(accrued),
        };
        let base = regs.as_mut_ptr();
        let k: *mut Block = &mut block;
        let nan: u32;
        // SAFETY: as in `row`; the four row pointers are in bounds of `regs` (checked
        // above) and the block reads every source before it writes the destination, so
        // they may be the same row.
        unsafe {
            macro_rules! run {
                ($op:literal) => {
                    std::arch::asm!(
                        plain_block!($op),
                        a = in(reg) base.add(s1),
                        b = in(reg) base.add(s2),
                        c = in(reg) base.add(s3),
                        out = in(reg) base.add(d),
                        k = in(reg) k,
                        out("eax") _,
                        out("ecx") _,
                        out("edx") nan,
                        clobber_abi("C"),
                        options(nostack),
                    )
                };
            }
            for_kind!(kind, run);
        }
        (nan == 0).then(|| flags_of(block.after))
    }
}

#[cfg(test)]
mod tests {
    //! The FPU row against warpkit-float lane by lane, for every operation, the four
    //! rounding modes it takes, random modifiers and EXEC masks, on rows mixing every
    //! special class with values built to land on the subnormal boundary (where tininess
    //! before and after rounding differ), the overflow boundary and rounding ties.
    use super::*;
    use warpkit_float::{self as wf, F32};

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn value(rng: &mut Rng) -> u32 {
        let sign = (rng.next() as u32) & 0x8000_0000;
        let frac = (rng.next() as u32) & 0x007f_ffff;
        let short = frac & !((1 << rng.below(24)) - 1);
        sign | match rng.below(8) {
            0 => [
                0,
                1,
                0x007f_ffff,
                0x0080_0000,
                0x7f7f_ffff,
                0x7f80_0000,
                0x3f80_0000,
            ][rng.below(7) as usize],
            1 => frac,                                       // subnormal
            2 => (1 + rng.below(3) as u32) << 23 | short,    // just above them
            3 => (250 + rng.below(5) as u32) << 23 | short,  // near overflow
            4 => (rng.below(40) as u32) << 23 | short,       // small: tiny products
            5 => (200 + rng.below(54) as u32) << 23 | short, // large: overflowing ones
            6 => rng.next() as u32 & 0x7f7f_ffff,            // any finite
            _ => (124 + rng.below(6) as u32) << 23 | short,  // near 1: ties
        }
    }

    /// A pair whose product lies within a few ulps of ±2^-126: the cases where tininess
    /// before and after rounding disagree.
    fn near_min_normal(rng: &mut Rng) -> (u32, u32) {
        let a = 0x3f80_0000 | (rng.next() as u32 & 0x007f_ffff);
        let target = 2f64.powi(-126) / f64::from(f32::from_bits(a));
        let b = (target as f32).to_bits() as i64 + rng.below(5) as i64 - 2;
        (a, b as u32)
    }

    fn soft(kind: Kind, rm: Round, x: u32, y: u32, z: u32) -> (u32, Flags) {
        match kind {
            Kind::Add => wf::add::<F32>(x, y, rm),
            Kind::Sub => wf::sub::<F32>(x, y, rm),
            Kind::Mul => wf::mul::<F32>(x, y, rm),
            Kind::Fma => wf::fma::<F32>(x, y, z, rm),
        }
    }

    #[test]
    fn fpu_rows_equal_warpkit_float() {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma"))
        {
            return;
        }
        let mut rng = Rng(11);
        let rows = std::env::var("WARPKIT_FPU_ROWS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(6000);
        let mut computed = 0;
        let mut declined = 0;
        for i in 0..rows {
            let kind = [Kind::Add, Kind::Sub, Kind::Mul, Kind::Fma][i % 4];
            let rm = [Round::Rne, Round::Rtz, Round::Rdn, Round::Rup][(i / 4) % 4];
            let mut a = [0u32; 32];
            let mut b = [0u32; 32];
            let mut c = [0u32; 32];
            for l in 0..32 {
                if rng.below(4) == 0 {
                    (a[l], b[l]) = near_min_normal(&mut rng);
                    c[l] = if rng.below(2) == 0 {
                        0
                    } else {
                        value(&mut rng)
                    };
                } else {
                    (a[l], b[l], c[l]) = (value(&mut rng), value(&mut rng), value(&mut rng));
                }
                // Now and then a NaN (quiet or signaling, with a payload) or an infinity.
                if rng.below(200) == 0 {
                    a[l] = [0x7fc0_0001, 0xff80_0001, 0x7f80_0000][rng.below(3) as usize];
                }
            }
            let exec = match rng.below(4) {
                0 => u32::MAX,
                1 => rng.next() as u32,
                2 => 1 << rng.below(32),
                _ => !(1 << rng.below(32)),
            };
            // Half the rows without modifiers: with full EXEC, the plain block computes them.
            let mods = match rng.below(2) {
                0 => Mods::new(0, 0),
                _ => Mods::new(rng.below(8) as u32, rng.below(8) as u32),
            };
            let got = row(kind, rm, &a, &b, &c, mods, exec, Flags::NONE);
            let mut want_flags = Flags::NONE;
            let mut want = [0u32; 32];
            let mut any_nan = false;
            for l in 0..32 {
                if exec & (1 << l) == 0 {
                    continue;
                }
                let m = |k: usize, x: u32| (x & mods.and[k]) ^ mods.xor[k];
                let (r, f) = soft(kind, rm, m(0, a[l]), m(1, b[l]), m(2, c[l]));
                any_nan |= r & 0x7fff_ffff > 0x7f80_0000;
                want[l] = r;
                want_flags |= f;
            }
            match got {
                None => {
                    assert!(any_nan, "declined a row without NaN ({kind:?} {rm:?})");
                    declined += 1;
                }
                Some((values, flags)) => {
                    assert!(!any_nan, "computed a row with a NaN result");
                    for l in (0..32).filter(|l| exec & (1 << l) != 0) {
                        assert_eq!(
                            values[l], want[l],
                            "{kind:?} {rm:?} lane {l}: {:#x} {:#x} {:#x} {mods:?}",
                            a[l], b[l], c[l]
                        );
                    }
                    assert_eq!(flags, want_flags, "{kind:?} {rm:?} flags, exec {exec:#x}");
                    computed += 1;
                }
            }
        }
        assert!(computed > rows / 2 && declined > 0, "{computed} {declined}");
    }

    #[test]
    fn tininess_is_detected_after_rounding() {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma"))
        {
            return;
        }
        // (1 + 2^-23) × (2^-126 - 2^-149) = 2^-126 - 2^-172: below 2^-126 before rounding,
        // exactly 2^-126 after rounding to 24 bits with an unbounded exponent, so not tiny:
        // NX without UF (tininess before rounding would raise UF).
        let (a, b) = (0x3f80_0001, 0x007f_ffff);
        let (r, f) = wf::mul::<F32>(a, b, Round::Rne);
        assert_eq!((r, f), (0x0080_0000, Flags::NX));
        let mods = Mods::new(0, 0);
        let got = row(
            Kind::Mul,
            Round::Rne,
            &[a; 32],
            &[b; 32],
            &[0; 32],
            mods,
            u32::MAX,
            Flags::NONE,
        );
        assert_eq!(got.map(|(v, fl)| (v[0], fl)), Some((r, f)));
    }

    /// MXCSR as the code around the rows sees it.
    fn mxcsr() -> u32 {
        let mut v = 0u32;
        // SAFETY: stores MXCSR into a live local.
        unsafe { std::arch::asm!("stmxcsr dword ptr [{p}]", p = in(reg) &mut v, options(nostack)) };
        v
    }

    /// Sets MXCSR's sticky flags (bits 5:0) to `flags`, keeping its control bits.
    fn set_mxcsr_flags(flags: u32) {
        let v = (mxcsr() & !0x3f) | (flags & 0x3f);
        // SAFETY: loads MXCSR with the control bits it has: only the sticky flags change,
        // which no Rust code reads.
        unsafe { std::arch::asm!("ldmxcsr dword ptr [{p}]", p = in(reg) &v, options(nostack)) };
    }

    /// Whatever sticky flags the row finds, the flags it reports are the row's own plus
    /// some of `accrued`: ORed into flags holding `accrued` they give the exact result, and
    /// a flag outside `accrued` is reported only when the row raised it.
    #[test]
    fn rows_under_found_flags_report_exact_flags_up_to_accrued() {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma"))
        {
            return;
        }
        let control = mxcsr() & !0x3f;
        let mut rng = Rng(29);
        let mut lazy_checked = 0;
        for i in 0..4000 {
            let kind = [Kind::Add, Kind::Sub, Kind::Mul, Kind::Fma][i % 4];
            let rm = [Round::Rne, Round::Rtz, Round::Rdn, Round::Rup][(i / 4) % 4];
            let mut rows = [[0u32; 32]; 3];
            for row in &mut rows {
                for x in row.iter_mut() {
                    *x = value(&mut rng);
                }
            }
            let exec = if rng.below(2) == 0 {
                u32::MAX
            } else {
                rng.next() as u32
            };
            let mods = match rng.below(2) {
                0 => Mods::new(0, 0),
                _ => Mods::new(rng.below(8) as u32, rng.below(8) as u32),
            };
            let accrued = Flags::from_bits(rng.below(32) as u8);
            // Found flags: usually within `accrued` (the row computes without loading
            // MXCSR), sometimes not (it must load a clean MXCSR first).
            let inside = super::x86::FLAG_BITS
                .iter()
                .filter(|(_, f)| accrued.contains(*f) && rng.below(2) == 0)
                .fold(0, |m, (bit, _)| m | bit);
            let found = match rng.below(4) {
                0 => rng.next() as u32 & 0x3f,
                _ => inside | (rng.below(2) as u32) << 1,
            };
            set_mxcsr_flags(found);
            let got = row(kind, rm, &rows[0], &rows[1], &rows[2], mods, exec, accrued);
            assert_eq!(mxcsr() & !0x3f, control, "control bits after a row");
            let Some((values, flags)) = got else { continue };
            let mut want = Flags::NONE;
            for l in (0..32).filter(|l| exec & (1 << l) != 0) {
                let m = |k: usize, x: u32| (x & mods.and[k]) ^ mods.xor[k];
                let (r, f) = soft(
                    kind,
                    rm,
                    m(0, rows[0][l]),
                    m(1, rows[1][l]),
                    m(2, rows[2][l]),
                );
                assert_eq!(values[l], r, "{kind:?} {rm:?} lane {l}");
                want |= f;
            }
            assert_eq!(
                flags | accrued,
                want | accrued,
                "{kind:?} {rm:?} found {found:#x}"
            );
            assert!(
                want.contains(Flags::from_bits(flags.bits() & !accrued.bits())),
                "{kind:?} {rm:?}: reported {flags:?}, raised {want:?}, accrued {accrued:?}"
            );
            lazy_checked += usize::from(rm == Round::Rne && found & !0x2 == inside);
        }
        set_mxcsr_flags(0);
        assert!(lazy_checked > 100, "{lazy_checked}");
    }

    /// The in-place row on a small register file, the destination often one of the
    /// sources: every lane as warpkit-float computes it, flags exact up to `accrued`, and
    /// a declined row (a NaN result) leaves every register as it was.
    #[test]
    fn in_place_rows_equal_warpkit_float_and_decline_without_writing() {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma"))
        {
            return;
        }
        let mut rng = Rng(47);
        let (mut computed, mut declined) = (0, 0);
        for i in 0..4000 {
            let kind = [Kind::Add, Kind::Sub, Kind::Mul, Kind::Fma][i % 4];
            let rm = [Round::Rne, Round::Rtz, Round::Rdn, Round::Rup][(i / 4) % 4];
            let mut regs = [[0u32; 32]; 4];
            for x in regs.iter_mut().flatten() {
                *x = value(&mut rng);
                if rng.below(400) == 0 {
                    *x = [0x7fc0_0001, 0xff80_0001, 0x7f80_0000][rng.below(3) as usize];
                }
            }
            let s = [0, 1, 2].map(|_| rng.below(4) as usize);
            let d = rng.below(4) as usize;
            let accrued = Flags::from_bits(rng.below(32) as u8);
            set_mxcsr_flags(rng.next() as u32 & 0x3f);
            let before = regs;
            let got = row_in_place(kind, rm, &mut regs, d, s, accrued);
            let mut want = [0u32; 32];
            let mut want_flags = Flags::NONE;
            for l in 0..32 {
                let (r, f) = soft(kind, rm, before[s[0]][l], before[s[1]][l], before[s[2]][l]);
                want[l] = r;
                want_flags |= f;
            }
            let any_nan = want.iter().any(|&r| r & 0x7fff_ffff > 0x7f80_0000);
            match got {
                None => {
                    assert!(any_nan, "declined a row without NaN ({kind:?} {rm:?})");
                    assert_eq!(regs, before, "a declined row wrote");
                    declined += 1;
                }
                Some(flags) => {
                    assert!(!any_nan, "computed a row with a NaN result");
                    for (r, row) in regs.iter().enumerate() {
                        let expected = if r == d { &want } else { &before[r] };
                        assert_eq!(row, expected, "{kind:?} {rm:?} register {r}, d {d} s {s:?}");
                    }
                    assert_eq!(flags | accrued, want_flags | accrued, "{kind:?} {rm:?}");
                    assert!(want_flags.contains(Flags::from_bits(flags.bits() & !accrued.bits())));
                    computed += 1;
                }
            }
        }
        set_mxcsr_flags(0);
        assert!(computed > 1000 && declined > 0, "{computed} {declined}");
    }

    #[test]
    fn rows_leave_the_callers_rounding_mode_and_masks() {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma"))
        {
            return;
        }
        let control = mxcsr() & !0x3f;
        let (a, b) = (0x3f80_0001, 0x3f80_0003);
        for rm in [Round::Rne, Round::Rtz, Round::Rdn, Round::Rup] {
            let got = row(
                Kind::Mul,
                rm,
                &[a; 32],
                &[b; 32],
                &[0; 32],
                Mods::new(0, 0),
                u32::MAX,
                Flags::NONE,
            );
            assert!(got.is_some());
            assert_eq!(mxcsr() & !0x3f, control, "after a row in {rm:?}");
            // And Rust's own arithmetic still rounds to nearest: 1 + 2^-24 is a tie that
            // goes to 1 in rne and to 1 + 2^-23 in rup.
            let one = std::hint::black_box(1.0f32);
            assert_eq!(
                one + std::hint::black_box(2f32.powi(-24)),
                1.0,
                "after {rm:?}"
            );
        }
    }
}
