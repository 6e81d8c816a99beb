//! The integer lane functions of group 1: plain functions of 32- and 64-bit values, shared
//! by the vector and the uniform forms of an operation.

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
