//! The integer operations of group 1 by their database names (`op` in `spec/`, the
//! `for_each_op!` list): plain functions of 32- and 64-bit values, written once and shared
//! by every form of an operation (vector, uniform, immediate, literal). The dispatch
//! (`exec/mod.rs`) applies them through the lane loops a form calls for; an operation the
//! database names without a function here does not compile.

#[inline(always)]
pub(crate) fn sext8(x: u32) -> u32 {
    x as u8 as i8 as i32 as u32
}
#[inline(always)]
pub(crate) fn sext16(x: u32) -> u32 {
    x as u16 as i16 as i32 as u32
}
#[inline(always)]
pub(crate) fn mulh(a: u32, b: u32) -> u32 {
    ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32
}
#[inline(always)]
pub(crate) fn mulhu(a: u32, b: u32) -> u32 {
    ((u64::from(a) * u64::from(b)) >> 32) as u32
}
#[inline(always)]
pub(crate) fn mulhsu(a: u32, b: u32) -> u32 {
    ((i64::from(a as i32) * i64::from(b)) >> 32) as u32
}
#[inline(always)]
pub(crate) fn min_s(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}
#[inline(always)]
pub(crate) fn max_s(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}
#[inline(always)]
pub(crate) fn lt_s(a: u32, b: u32) -> bool {
    (a as i32) < (b as i32)
}
#[inline(always)]
pub(crate) fn b2u(b: bool) -> u32 {
    u32::from(b)
}
#[inline(always)]
pub(crate) fn lo(x: u64) -> u32 {
    x as u32
}
#[inline(always)]
pub(crate) fn hi(x: u64) -> u32 {
    (x >> 32) as u32
}
#[inline(always)]
pub(crate) fn sext64(x: u32) -> u64 {
    x as i32 as i64 as u64
}

/// A field mask of `width` ones; widths of 32 and more give all ones.
#[inline(always)]
pub(crate) fn ones(width: u32) -> u32 {
    if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    }
}

/// `bfm`/`ubfm`: `width` ones (width 0..63, >= 32 meaning all 32) shifted left by `offset`
/// (0..31); bits shifted past bit 31 are lost.
#[inline(always)]
pub(crate) fn bitfield_mask(width: u32, offset: u32) -> u32 {
    ones(width & 63) << (offset & 31)
}

/// `bfe.u32`/`ubfe.u32`: `(x >>u offset) & ones(width)`.
#[inline(always)]
pub(crate) fn bfe_u(x: u32, offset: u32, width: u32) -> u32 {
    (x >> (offset & 31)) & ones(width & 63)
}

/// `bfe.i32`/`ubfe.i32`: the `width`-bit field at `offset`, bits above bit 31 of `x` read
/// as 0, sign-extended from the field's top bit (width capped at 32; width 0 gives 0).
#[inline(always)]
pub(crate) fn bfe_i(x: u32, offset: u32, width: u32) -> u32 {
    let w = (width & 63).min(32);
    if w == 0 {
        return 0;
    }
    let field = (x >> (offset & 31)) & ones(w);
    let sh = 32 - w;
    (((field << sh) as i32) >> sh) as u32
}

/// `perm.b32`: byte k of the result is chosen by selector byte k: 0..7 pick a byte of the
/// 64-bit value {s1, s2} (s1 high), 0x0c gives 0x00, 0x0d gives 0xff, anything else
/// (reserved) reads 0.
#[inline(always)]
pub(crate) fn perm(s1: u32, s2: u32, sel: u32) -> u32 {
    let both = (u64::from(s1) << 32) | u64::from(s2);
    let mut out = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) & 0xff;
        let byte = match s {
            0..=7 => ((both >> (8 * s)) & 0xff) as u32,
            0x0d => 0xff,
            _ => 0,
        };
        out |= byte << (8 * k);
    }
    out
}

#[inline(always)]
pub(crate) fn med3_s(a: u32, b: u32, c: u32) -> u32 {
    let (a, b, c) = (a as i32, b as i32, c as i32);
    a.min(b).max(a.max(b).min(c)) as u32
}

#[inline(always)]
pub(crate) fn med3_u(a: u32, b: u32, c: u32) -> u32 {
    a.min(b).max(a.max(b).min(c))
}

#[inline(always)]
pub(crate) fn dp4a_s(a: u32, b: u32, c: u32) -> u32 {
    let mut acc = c;
    for k in 0..4 {
        let x = i32::from((a >> (8 * k)) as u8 as i8);
        let y = i32::from((b >> (8 * k)) as u8 as i8);
        acc = acc.wrapping_add((x * y) as u32);
    }
    acc
}

#[inline(always)]
pub(crate) fn dp4a_u(a: u32, b: u32, c: u32) -> u32 {
    let mut acc = c;
    for k in 0..4 {
        let x = (a >> (8 * k)) & 0xff;
        let y = (b >> (8 * k)) & 0xff;
        acc = acc.wrapping_add(x * y);
    }
    acc
}

/// `wqm`: every 4-bit quad with any bit set becomes 0xf.
#[inline(always)]
pub(crate) fn wqm(m: u32) -> u32 {
    let mut out = 0;
    for q in 0..8 {
        if (m >> (4 * q)) & 0xf != 0 {
            out |= 0xf << (4 * q);
        }
    }
    out
}

#[inline(always)]
pub(crate) fn addsat_s(a: u32, b: u32) -> u32 {
    (a as i32).saturating_add(b as i32) as u32
}
#[inline(always)]
pub(crate) fn subsat_s(a: u32, b: u32) -> u32 {
    (a as i32).saturating_sub(b as i32) as u32
}

// ---- the operations, by database name -------------------------------------------------
// Each takes its sources in operand order (s1, then s2 or the uniform or the immediate).

macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident($x:ident, $y:ident) $body:expr;)*) => {
        $($(#[$doc])* #[inline(always)] pub(crate) fn $name($x: u32, $y: u32) -> u32 { $body })*
    };
}

binary! {
    add(x, y) x.wrapping_add(y);
    sub(x, y) x.wrapping_sub(y);
    /// `s2 - s1`: the reversed subtract (`subr.vu`, `subr.vi`, `subr.vl`).
    subr(x, s) s.wrapping_sub(x);
    mul(x, y) x.wrapping_mul(y);
    and(x, y) x & y;
    or(x, y) x | y;
    xor(x, y) x ^ y;
    andn(x, y) x & !y;
    orn(x, y) x | !y;
    xnor(x, y) !(x ^ y);
    sll(x, y) x << (y & 31);
    srl(x, y) x >> (y & 31);
    sra(x, y) ((x as i32) >> (y & 31)) as u32;
    /// `s2 << s1[4:0]`: the reversed shifts (`sllr.vu`, `srlr.vu`, `srar.vu`).
    sllr(x, s) s << (x & 31);
    srlr(x, s) s >> (x & 31);
    srar(x, s) ((s as i32) >> (x & 31)) as u32;
    rol(x, y) x.rotate_left(y & 31);
    ror(x, y) x.rotate_right(y & 31);
    slt(x, y) b2u(lt_s(x, y));
    sltu(x, y) b2u(x < y);
    seq(x, y) b2u(x == y);
    sne(x, y) b2u(x != y);
    sge(x, y) b2u(!lt_s(x, y));
    sgeu(x, y) b2u(x >= y);
    min(x, y) min_s(x, y);
    max(x, y) max_s(x, y);
    minu(x, y) x.min(y);
    maxu(x, y) x.max(y);
    czero_eqz(x, y) if y == 0 { 0 } else { x };
    czero_nez(x, y) if y != 0 { 0 } else { x };
    addsat_u(x, y) x.saturating_add(y);
    subsat_u(x, y) x.saturating_sub(y);
    /// `bfm`/`ubfm`: width `x`, offset `y`.
    bfm(x, y) bitfield_mask(x, y);
    /// `ubfe.u32`: the control word holds the offset in [4:0] and the width in [21:16].
    ubfe_u(x, ctl) bfe_u(x, ctl & 31, (ctl >> 16) & 63);
    ubfe_s(x, ctl) bfe_i(x, ctl & 31, (ctl >> 16) & 63);
}

/// `mac`: `acc + x * y` (the destination is the accumulator).
#[inline(always)]
pub(crate) fn mac(acc: u32, x: u32, y: u32) -> u32 {
    acc.wrapping_add(x.wrapping_mul(y))
}

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident($x:ident) $body:expr;)*) => {
        $($(#[$doc])* #[inline(always)] pub(crate) fn $name($x: u32) -> u32 { $body })*
    };
}

unary! {
    mov(x) x;
    not(x) !x;
    neg(x) 0u32.wrapping_sub(x);
    abs(x) (x as i32).wrapping_abs() as u32;
    clz(x) x.leading_zeros();
    /// Also the lowest set lane of a mask (`uctz`; 0 gives 32).
    ctz(x) x.trailing_zeros();
    cpop(x) x.count_ones();
    brev(x) x.reverse_bits();
    rev8(x) x.swap_bytes();
    sext_b(x) sext8(x);
    sext_h(x) sext16(x);
    zext_b(x) x & 0xff;
    zext_h(x) x & 0xffff;
}

macro_rules! ternary {
    ($($(#[$doc:meta])* $name:ident($x:ident, $y:ident, $z:ident) $body:expr;)*) => {
        $($(#[$doc])* #[inline(always)] pub(crate) fn $name($x: u32, $y: u32, $z: u32) -> u32 { $body })*
    };
}

ternary! {
    /// `s3 != 0 ? s1 : s2`.
    sel(x, y, z) if z != 0 { x } else { y };
    bfe_s(x, offset, width) bfe_i(x, offset, width);
    /// `(s1 & s2) | (!s1 & s3)`.
    bfi(m, x, y) (m & x) | (!m & y);
    mad(x, y, z) x.wrapping_mul(y).wrapping_add(z);
    /// `({s1, s2} >> s3[4:0])[31:0]`.
    alignbit(x, y, s) (((u64::from(x) << 32) | u64::from(y)) >> (s & 31)) as u32;
}

/// The compares into lane masks (`cmp.*`): whether the condition holds.
pub(crate) mod cmp {
    #[inline(always)]
    pub(crate) fn eq(x: u32, y: u32) -> bool {
        x == y
    }
    #[inline(always)]
    pub(crate) fn ne(x: u32, y: u32) -> bool {
        x != y
    }
    #[inline(always)]
    pub(crate) fn lt_s(x: u32, y: u32) -> bool {
        super::lt_s(x, y)
    }
    #[inline(always)]
    pub(crate) fn ge_s(x: u32, y: u32) -> bool {
        !lt_s(x, y)
    }
    #[inline(always)]
    pub(crate) fn gt_s(x: u32, y: u32) -> bool {
        lt_s(y, x)
    }
    #[inline(always)]
    pub(crate) fn lt_u(x: u32, y: u32) -> bool {
        x < y
    }
    #[inline(always)]
    pub(crate) fn ge_u(x: u32, y: u32) -> bool {
        x >= y
    }
    #[inline(always)]
    pub(crate) fn gt_u(x: u32, y: u32) -> bool {
        x > y
    }
}

/// The 64-bit operations, on register pairs: the vector and uniform forms alike.
pub(crate) mod wide {
    use super::sext64;

    #[inline(always)]
    pub(crate) fn add64(x: u64, y: u64) -> u64 {
        x.wrapping_add(y)
    }
    #[inline(always)]
    pub(crate) fn sub64(x: u64, y: u64) -> u64 {
        x.wrapping_sub(y)
    }
    /// `s1_64 + sext64(s2)` (a signed 32-bit offset, from a register or an immediate).
    #[inline(always)]
    pub(crate) fn addsx64(x: u64, y: u32) -> u64 {
        x.wrapping_add(sext64(y))
    }
    /// `s1_64 + zext64(s2)`.
    #[inline(always)]
    pub(crate) fn addzx64(x: u64, y: u32) -> u64 {
        x.wrapping_add(u64::from(y))
    }
    #[inline(always)]
    pub(crate) fn sll64(x: u64, y: u32) -> u64 {
        x << (y & 63)
    }
    #[inline(always)]
    pub(crate) fn srl64(x: u64, y: u32) -> u64 {
        x >> (y & 63)
    }
    #[inline(always)]
    pub(crate) fn sra64(x: u64, y: u32) -> u64 {
        ((x as i64) >> (y & 63)) as u64
    }
    #[inline(always)]
    pub(crate) fn mulw(x: u32, y: u32) -> u64 {
        sext64(x).wrapping_mul(sext64(y))
    }
    #[inline(always)]
    pub(crate) fn mulwu(x: u32, y: u32) -> u64 {
        u64::from(x) * u64::from(y)
    }
    #[inline(always)]
    pub(crate) fn mov64(x: u64) -> u64 {
        x
    }
    #[inline(always)]
    pub(crate) fn mad64_u(x: u32, y: u32, z: u64) -> u64 {
        (u64::from(x) * u64::from(y)).wrapping_add(z)
    }
    #[inline(always)]
    pub(crate) fn mad64_s(x: u32, y: u32, z: u64) -> u64 {
        sext64(x).wrapping_mul(sext64(y)).wrapping_add(z)
    }
    /// `s3 != 0 ? s1_64 : s2_64`.
    #[inline(always)]
    pub(crate) fn sel64(x: u64, y: u64, z: u32) -> u64 {
        if z != 0 {
            x
        } else {
            y
        }
    }

    /// The 64-bit compares into lane masks.
    pub(crate) mod cmp {
        #[inline(always)]
        pub(crate) fn eq(x: u64, y: u64) -> bool {
            x == y
        }
        #[inline(always)]
        pub(crate) fn ne(x: u64, y: u64) -> bool {
            x != y
        }
        #[inline(always)]
        pub(crate) fn lt_s(x: u64, y: u64) -> bool {
            (x as i64) < (y as i64)
        }
        #[inline(always)]
        pub(crate) fn ge_s(x: u64, y: u64) -> bool {
            (x as i64) >= (y as i64)
        }
        #[inline(always)]
        pub(crate) fn lt_u(x: u64, y: u64) -> bool {
            x < y
        }
        #[inline(always)]
        pub(crate) fn ge_u(x: u64, y: u64) -> bool {
            x >= y
        }
    }
}
