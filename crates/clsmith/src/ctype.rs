//! C99's typing rules as OpenCL C uses them: sizes, integer promotions, the usual
//! arithmetic conversions, the types of literals, struct layout.

use crate::ast::{IntLit, Program, Radix, Scalar, Suffix, Type};

impl Scalar {
    /// Every arithmetic type.
    pub const ALL: [Scalar; 11] = [
        Scalar::Bool,
        Scalar::Char,
        Scalar::UChar,
        Scalar::Short,
        Scalar::UShort,
        Scalar::Int,
        Scalar::UInt,
        Scalar::Long,
        Scalar::ULong,
        Scalar::Float,
        Scalar::Double,
    ];

    /// The integer types (without `bool`).
    pub const INTS: [Scalar; 8] = [
        Scalar::Char,
        Scalar::UChar,
        Scalar::Short,
        Scalar::UShort,
        Scalar::Int,
        Scalar::UInt,
        Scalar::Long,
        Scalar::ULong,
    ];

    /// The OpenCL spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    /// `bool` or an integer type.
    pub fn is_integer(self) -> bool {
        !self.is_float()
    }

    /// `float` or `double`.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float | Scalar::Double)
    }

    /// A signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Char | Scalar::Short | Scalar::Int | Scalar::Long
        )
    }

    /// Width in bits of the value (`bool`: 1).
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool => 1,
            Scalar::Char | Scalar::UChar => 8,
            Scalar::Short | Scalar::UShort => 16,
            Scalar::Int | Scalar::UInt | Scalar::Float => 32,
            Scalar::Long | Scalar::ULong | Scalar::Double => 64,
        }
    }

    /// Size in bytes in memory (`bool` takes one byte; it never reaches a buffer).
    pub fn size(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// Integer conversion rank (C99 6.3.1.1).
    pub fn rank(self) -> u32 {
        match self {
            Scalar::Bool => 0,
            Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt => 3,
            Scalar::Long | Scalar::ULong => 4,
            Scalar::Float => 5,
            Scalar::Double => 6,
        }
    }

    /// The least and greatest values of an integer type.
    pub fn range(self) -> (i128, i128) {
        match self {
            Scalar::Bool => (0, 1),
            s if s.is_signed() => {
                let b = s.bits();
                (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
            }
            s => (0, (1i128 << s.bits()) - 1),
        }
    }

    /// The unsigned type of the same width (an unsigned type is its own).
    pub fn to_unsigned(self) -> Scalar {
        match self {
            Scalar::Char => Scalar::UChar,
            Scalar::Short => Scalar::UShort,
            Scalar::Int => Scalar::UInt,
            Scalar::Long => Scalar::ULong,
            s => s,
        }
    }

    /// The signed type of the same width.
    pub fn to_signed(self) -> Scalar {
        match self {
            Scalar::UChar => Scalar::Char,
            Scalar::UShort => Scalar::Short,
            Scalar::UInt => Scalar::Int,
            Scalar::ULong => Scalar::Long,
            s => s,
        }
    }
}

/// The integer promotions (C99 6.3.1.1): types of rank below `int` become `int`, every
/// value of them fitting.
pub fn promote(s: Scalar) -> Scalar {
    if s.is_integer() && s.rank() < Scalar::Int.rank() {
        Scalar::Int
    } else {
        s
    }
}

/// The usual arithmetic conversions (C99 6.3.1.8): the common type of two operands.
pub fn usual(a: Scalar, b: Scalar) -> Scalar {
    if a == Scalar::Double || b == Scalar::Double {
        return Scalar::Double;
    }
    if a == Scalar::Float || b == Scalar::Float {
        return Scalar::Float;
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    if a.is_signed() == b.is_signed() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    let (s, u) = if a.is_signed() { (a, b) } else { (b, a) };
    if u.rank() >= s.rank() {
        u
    } else if s.bits() > u.bits() {
        // The signed type represents every value of the unsigned one.
        s
    } else {
        s.to_unsigned()
    }
}

/// The type of an integer literal (C99 6.4.4.1 with OpenCL's 64-bit `long` and no
/// `long long`): the first of the candidate types that holds the value. `None` when none
/// does (the generator never writes such a literal).
pub fn literal_type(lit: &IntLit) -> Option<Scalar> {
    let decimal = lit.radix == Radix::Dec;
    let candidates: &[Scalar] = match (lit.suffix, decimal) {
        (Suffix::None, true) => &[Scalar::Int, Scalar::Long],
        (Suffix::None, false) => &[Scalar::Int, Scalar::UInt, Scalar::Long, Scalar::ULong],
        (Suffix::U, _) => &[Scalar::UInt, Scalar::ULong],
        (Suffix::L, true) => &[Scalar::Long],
        (Suffix::L, false) => &[Scalar::Long, Scalar::ULong],
        (Suffix::UL, _) => &[Scalar::ULong],
    };
    candidates
        .iter()
        .copied()
        .find(|s| (lit.value as i128) <= s.range().1)
}

/// Size and alignment of a complete object type in the private memory model. Structs are
/// laid out in declaration order with natural alignment (they never reach a buffer, so
/// the layout is not observable).
pub fn layout(p: &Program, ty: &Type) -> (u32, u32) {
    match p.resolve(ty) {
        Type::Void => (0, 1),
        Type::Scalar(s) => (s.size(), s.size()),
        Type::Alias(_) => unreachable!("resolved"),
        Type::Struct(id) => {
            let mut off = 0u32;
            let mut align = 1u32;
            for f in &p.structs[*id as usize].fields {
                let (sz, al) = layout(p, &f.ty);
                off = off.next_multiple_of(al);
                off += sz;
                align = align.max(al);
            }
            (off.next_multiple_of(align), align)
        }
        Type::Array(elem, n) => {
            let (sz, al) = layout(p, elem);
            (sz * n, al)
        }
        // Pointers live only in scalar slots of the private memory model.
        Type::Ptr { .. } => (8, 8),
    }
}

/// Byte offset of member `field` of struct `id`.
pub fn field_offset(p: &Program, id: u32, field: u32) -> u32 {
    let mut off = 0u32;
    for (i, f) in p.structs[id as usize].fields.iter().enumerate() {
        let (sz, al) = layout(p, &f.ty);
        off = off.next_multiple_of(al);
        if i as u32 == field {
            return off;
        }
        off += sz;
    }
    unreachable!("field index within the struct")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Radix, Suffix};

    fn lit(value: u64, radix: Radix, suffix: Suffix) -> Option<Scalar> {
        literal_type(&IntLit {
            value,
            radix,
            suffix,
            upper: false,
        })
    }

    #[test]
    fn usual_conversions_follow_c99() {
        use Scalar::*;
        assert_eq!(usual(Char, UChar), Int);
        assert_eq!(usual(Short, UShort), Int);
        assert_eq!(usual(Int, UInt), UInt);
        assert_eq!(usual(Long, UInt), Long);
        assert_eq!(usual(Int, ULong), ULong);
        assert_eq!(usual(Long, ULong), ULong);
        assert_eq!(usual(Bool, Bool), Int);
        assert_eq!(usual(ULong, Float), Float);
        assert_eq!(usual(Float, Double), Double);
        assert_eq!(promote(UShort), Int);
        assert_eq!(promote(UInt), UInt);
    }

    #[test]
    fn literal_types_follow_c99() {
        use Scalar::*;
        assert_eq!(lit(2147483647, Radix::Dec, Suffix::None), Some(Int));
        assert_eq!(lit(2147483648, Radix::Dec, Suffix::None), Some(Long));
        assert_eq!(lit(0x8000_0000, Radix::Hex, Suffix::None), Some(UInt));
        assert_eq!(lit(0x1_0000_0000, Radix::Oct, Suffix::None), Some(Long));
        assert_eq!(lit(u64::MAX, Radix::Hex, Suffix::None), Some(ULong));
        assert_eq!(lit(u64::MAX, Radix::Dec, Suffix::None), None);
        assert_eq!(lit(5, Radix::Dec, Suffix::U), Some(UInt));
        assert_eq!(lit(1 << 40, Radix::Dec, Suffix::U), Some(ULong));
        assert_eq!(lit(5, Radix::Dec, Suffix::L), Some(Long));
        assert_eq!(lit(1 << 63, Radix::Hex, Suffix::L), Some(ULong));
        assert_eq!(lit(5, Radix::Oct, Suffix::UL), Some(ULong));
    }
}
