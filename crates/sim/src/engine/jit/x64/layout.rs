//! The layouts translated code knows: the context it is entered with, the direct state's
//! fields, the constant rows, and where a register's row or a uniform register sits.

use crate::memory::direct::{Direct, HINTS, PENDING_ROWS, RING, RINGS};

/// What translated code reads and writes of the warp; its layout is known to the code.
#[repr(C)]
pub(in crate::engine::jit) struct Ctx {
    pub mask: *const u32,
    pub consts: *const Consts,
    pub v: *mut u32,
    pub u: *mut u32,
    /// The table of the variant entered.
    pub table: *const usize,
    pub budget: u64,
    /// Lane-operations of the vector instructions executed (out).
    pub lane_ops: u64,
    /// EXEC (in and out: translated EXEC writers update it).
    pub exec: u32,
    /// What `mode` lets the translated f32 instructions do ([`FP_RNE`], [`FP_DYN`]): a
    /// block holding one runs only if its needs are here.
    ///
    /// [`FP_RNE`]: crate::engine::jit::kind::FP_RNE
    /// [`FP_DYN`]: crate::engine::jit::kind::FP_DYN
    pub fp: u32,
    /// The tables of the full and the masked variant, for a switch after an EXEC write.
    pub tables: [*const usize; 2],
    pub direct: *mut Direct,
    /// The caller's MXCSR, saved by the prologue of a program with f32 instructions and
    /// restored by its epilogue if the code changed it.
    pub mxcsr: u32,
    /// MXCSR at the exit (out): its sticky flags are the ones the f32 instructions raised.
    pub mxcsr_out: u32,
}

pub(super) const CTX_MASK: i32 = 0;
pub(super) const CTX_CONSTS: i32 = 8;
pub(super) const CTX_V: i32 = 16;
pub(super) const CTX_U: i32 = 24;
pub(super) const CTX_TABLE: i32 = 32;
pub(super) const CTX_BUDGET: i32 = 40;
pub(super) const CTX_LANE_OPS: i32 = 48;
pub(super) const CTX_EXEC: i32 = 56;
pub(super) const CTX_FP: i32 = 60;
pub(super) const CTX_TABLE_FULL: i32 = 64;
pub(super) const CTX_TABLE_MASKED: i32 = 72;
pub(super) const CTX_DIRECT: i32 = 80;
pub(super) const CTX_MXCSR: i32 = 88;
pub(super) const CTX_MXCSR_OUT: i32 = 92;

// The fields of `Direct` the code uses (`offsets_match_the_structures` checks them).
pub(super) const D_ROWS: i32 = 0;
pub(super) const D_HINTS: i32 = D_ROWS + 128 * PENDING_ROWS as i32;
pub(super) const HINT_SIZE: i32 = 32;
pub(super) const D_RINGS: i32 = D_HINTS + HINT_SIZE * HINTS as i32;
/// A ring's size; in it, its operations, then `head` and `len`.
pub(super) const RING_SIZE: i32 = 8 * RING as i32 + 8;
pub(super) const RING_HEAD: i32 = 8 * RING as i32;
pub(super) const RING_LEN: i32 = RING_HEAD + 4;
pub(super) const D_ROW_SEQ: i32 = D_RINGS + RING_SIZE * RINGS as i32;
pub(super) const D_ROW_EXEC: i32 = D_ROW_SEQ + 4 * PENDING_ROWS as i32;
pub(super) const D_PRE: i32 = D_ROW_EXEC + 4 * PENDING_ROWS as i32;
pub(super) const D_SEQ: i32 = D_PRE + 32;
pub(super) const D_RECORD: i32 = D_SEQ + 4;
pub(super) const D_MISS: i32 = D_RECORD + 4;
pub(super) const D_NOT_RUN: i32 = D_MISS + 4;
pub(super) const D_MISS_LO: i32 = D_MISS + 8;
pub(super) const D_SHARED_HOST: i32 = D_MISS_LO + 8;
pub(super) const D_SHARED_LEN: i32 = D_SHARED_HOST + 8;
pub(super) const D_ROW_SRC: i32 = D_SHARED_LEN + 8;
pub(super) const D_LANE_MASKS: i32 = D_ROW_SRC + 8 * PENDING_ROWS as i32;

/// Constant rows the code loads.
#[repr(C, align(64))]
pub(in crate::engine::jit) struct Consts {
    lanes: [u32; 32],
    bits: [u32; 32],
    c31: [u32; 8],
    sign: [u32; 8],
    c63: [u32; 8],
    /// `4 * l` in lane `l`: the byte offsets of a word run.
    step4: [u32; 32],
    /// The canonical f32 NaN.
    fnan: [u32; 8],
    /// All but the sign bit of an f32 (`abs`).
    fabs: [u32; 8],
    _align: [u32; 8],
    /// `vpermi2d`'s indices of the high dwords of sixteen products, eight 64-bit products
    /// in each of two registers: lane `2i` takes dword `2i + 1` of the first, lane
    /// `2i + 1` dword `2i + 1` of the second (AVX-512 `mulh`/`mulhu`; 64-byte aligned).
    high_dwords: [u32; 16],
}

pub(super) const K_LANES: i32 = 0;
pub(super) const K_BITS: i32 = 128;
pub(super) const K_C31: i32 = 256;
pub(super) const K_SIGN: i32 = 288;
pub(super) const K_C63: i32 = 320;
pub(super) const K_STEP4: i32 = 352;
pub(super) const K_FNAN: i32 = 480;
pub(super) const K_FABS: i32 = 512;
pub(super) const K_HIGH_DWORDS: i32 = 576;

impl Consts {
    pub(in crate::engine::jit) fn new() -> Consts {
        Consts {
            lanes: std::array::from_fn(|l| l as u32),
            bits: std::array::from_fn(|l| 1 << l),
            c31: [31; 8],
            sign: [0x8000_0000; 8],
            c63: [63; 8],
            step4: std::array::from_fn(|l| 4 * l as u32),
            fnan: [<warpkit_float::F32 as warpkit_float::Format>::CANONICAL_NAN; 8],
            fabs: [0x7fff_ffff; 8],
            _align: [0; 8],
            high_dwords: std::array::from_fn(|l| (l as u32 & !1) + 1 + 16 * (l as u32 & 1)),
        }
    }
}

pub(super) fn row(r: u8, q: usize) -> i32 {
    i32::from(r) * 128 + (q as i32) * 32
}

pub(super) fn ureg(r: u8) -> i32 {
    i32::from(r) * 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::jit::pending::{
        limit, load_counter, ring_of, shared_counter, store_counter,
    };
    use crate::memory::direct::{Hint, Ring};
    use std::mem::offset_of;

    /// The offsets the generated code uses are the structures' own.
    #[test]
    fn offsets_match_the_structures() {
        assert_eq!(offset_of!(Ctx, mask) as i32, CTX_MASK);
        assert_eq!(offset_of!(Ctx, consts) as i32, CTX_CONSTS);
        assert_eq!(offset_of!(Ctx, v) as i32, CTX_V);
        assert_eq!(offset_of!(Ctx, u) as i32, CTX_U);
        assert_eq!(offset_of!(Ctx, table) as i32, CTX_TABLE);
        assert_eq!(offset_of!(Ctx, budget) as i32, CTX_BUDGET);
        assert_eq!(offset_of!(Ctx, lane_ops) as i32, CTX_LANE_OPS);
        assert_eq!(offset_of!(Ctx, exec) as i32, CTX_EXEC);
        assert_eq!(offset_of!(Ctx, tables) as i32, CTX_TABLE_FULL);
        assert_eq!(offset_of!(Ctx, tables) as i32 + 8, CTX_TABLE_MASKED);
        assert_eq!(offset_of!(Consts, lanes) as i32, K_LANES);
        assert_eq!(offset_of!(Consts, bits) as i32, K_BITS);
        assert_eq!(offset_of!(Consts, c31) as i32, K_C31);
        assert_eq!(offset_of!(Consts, sign) as i32, K_SIGN);
        assert_eq!(offset_of!(Consts, c63) as i32, K_C63);
        assert_eq!(offset_of!(Consts, step4) as i32, K_STEP4);
        assert_eq!(offset_of!(Consts, fnan) as i32, K_FNAN);
        assert_eq!(offset_of!(Consts, fabs) as i32, K_FABS);
        assert_eq!(offset_of!(Consts, high_dwords) as i32, K_HIGH_DWORDS);
        assert_eq!(offset_of!(Ctx, fp) as i32, CTX_FP);
        assert_eq!(offset_of!(Ctx, mxcsr) as i32, CTX_MXCSR);
        assert_eq!(offset_of!(Ctx, mxcsr_out) as i32, CTX_MXCSR_OUT);
        assert_eq!(offset_of!(Ctx, direct) as i32, CTX_DIRECT);
        assert_eq!(offset_of!(Direct, rows) as i32, D_ROWS);
        assert_eq!(offset_of!(Direct, row_src) as i32, D_ROW_SRC);
        assert_eq!(offset_of!(Direct, lane_masks) as i32, D_LANE_MASKS);
        assert_eq!(offset_of!(Direct, hints) as i32, D_HINTS);
        assert_eq!(std::mem::size_of::<Hint>() as i32, HINT_SIZE);
        assert_eq!(offset_of!(Hint, lo), 0);
        assert_eq!(offset_of!(Hint, end), 8);
        assert_eq!(offset_of!(Hint, host), 16);
        assert_eq!(offset_of!(Hint, row_limit), 24);
        assert_eq!(offset_of!(Direct, rings) as i32, D_RINGS);
        assert_eq!(std::mem::size_of::<Ring>() as i32, RING_SIZE);
        assert_eq!(offset_of!(Ring, head) as i32, RING_HEAD);
        assert_eq!(offset_of!(Ring, len) as i32, RING_LEN);
        assert_eq!(offset_of!(Direct, row_seq) as i32, D_ROW_SEQ);
        assert_eq!(offset_of!(Direct, row_exec) as i32, D_ROW_EXEC);
        assert_eq!(offset_of!(Direct, pre) as i32, D_PRE);
        assert_eq!(offset_of!(Direct, seq) as i32, D_SEQ);
        assert_eq!(offset_of!(Direct, record) as i32, D_RECORD);
        assert_eq!(offset_of!(Direct, miss) as i32, D_MISS);
        assert_eq!(offset_of!(Direct, not_run) as i32, D_NOT_RUN);
        assert_eq!(offset_of!(Direct, miss_lo) as i32, D_MISS_LO);
        assert_eq!(offset_of!(Direct, shared_host) as i32, D_SHARED_HOST);
        assert_eq!(offset_of!(Direct, shared_len) as i32, D_SHARED_LEN);
        assert!(RING.is_power_of_two());
        for c in 0..crate::state::queue::NUM_COUNTERS {
            if ring_of(c).is_some() {
                assert!(limit(c) as usize <= RING);
            }
        }
        assert_eq!(ring_of(store_counter()), Some(0));
        assert_eq!(ring_of(shared_counter()), Some(1));
        assert_ne!(load_counter(), store_counter());
    }
}
