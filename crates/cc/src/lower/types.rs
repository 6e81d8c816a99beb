//! C types as OpenCL C 1.2 has them: qualifiers (`const`, `volatile`, an address space),
//! pointers, arrays, struct/union records with C's layout rules, OpenCL's vector types
//! (`float4`: N elements, 3-element vectors sized as 4, aligned to their size), and the
//! mapping of scalar types to IR types and memory widths.

use crate::ir::{MemTy, Space, Ty};
use crate::source::Span;
use std::rc::Rc;

/// The integer types (enums are `int`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum IntKind {
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
}

impl IntKind {
    pub(crate) fn bits(self) -> u32 {
        match self {
            IntKind::Char | IntKind::SChar | IntKind::UChar => 8,
            IntKind::Short | IntKind::UShort => 16,
            IntKind::Int | IntKind::UInt => 32,
            IntKind::Long | IntKind::ULong => 64,
        }
    }

    pub(crate) fn signed(self) -> bool {
        matches!(
            self,
            IntKind::Char | IntKind::SChar | IntKind::Short | IntKind::Int | IntKind::Long
        )
    }

    /// C99 6.3.1.1's integer conversion rank.
    pub(crate) fn rank(self) -> u32 {
        self.bits()
    }

    /// The unsigned type of the same width.
    pub(crate) fn to_unsigned(self) -> IntKind {
        match self {
            IntKind::Char | IntKind::SChar | IntKind::UChar => IntKind::UChar,
            IntKind::Short | IntKind::UShort => IntKind::UShort,
            IntKind::Int | IntKind::UInt => IntKind::UInt,
            IntKind::Long | IntKind::ULong => IntKind::ULong,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            IntKind::Char => "char",
            IntKind::SChar => "signed char",
            IntKind::UChar => "uchar",
            IntKind::Short => "short",
            IntKind::UShort => "ushort",
            IntKind::Int => "int",
            IntKind::UInt => "uint",
            IntKind::Long => "long",
            IntKind::ULong => "ulong",
        }
    }

    /// `v` reduced to this type's range (two's complement wrap), as a sign- or
    /// zero-extended 64-bit pattern.
    pub(crate) fn wrap(self, v: u64) -> u64 {
        let bits = self.bits();
        if bits == 64 {
            return v;
        }
        let mask = (1u64 << bits) - 1;
        let low = v & mask;
        if self.signed() && low >> (bits - 1) & 1 == 1 {
            low | !mask
        } else {
            low
        }
    }

    /// The value as a mathematical integer, from its 64-bit pattern.
    pub(crate) fn value(self, bits: u64) -> i128 {
        let w = self.wrap(bits);
        if self.signed() {
            w as i64 as i128
        } else {
            w as i128
        }
    }

    /// Whether mathematical integer `v` is representable.
    pub(crate) fn fits(self, v: i128) -> bool {
        let bits = self.bits();
        if self.signed() {
            v >= -(1i128 << (bits - 1)) && v < (1i128 << (bits - 1))
        } else {
            v >= 0 && v < (1i128 << bits)
        }
    }
}

/// The floating types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum FloatKind {
    Half,
    Float,
    Double,
}

impl FloatKind {
    pub(crate) fn ty(self) -> Ty {
        match self {
            FloatKind::Half => Ty::F16,
            FloatKind::Float => Ty::F32,
            FloatKind::Double => Ty::F64,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            FloatKind::Half => "half",
            FloatKind::Float => "float",
            FloatKind::Double => "double",
        }
    }

    pub(crate) fn size(self) -> u64 {
        match self {
            FloatKind::Half => 2,
            FloatKind::Float => 4,
            FloatKind::Double => 8,
        }
    }
}

/// The element type of a vector: an integer type other than `bool`, or a floating type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Elem {
    Int(IntKind),
    Float(FloatKind),
}

impl Elem {
    /// The scalar type of one element.
    pub(crate) fn ty(self) -> Type {
        match self {
            Elem::Int(k) => Type::Int(k),
            Elem::Float(k) => Type::Float(k),
        }
    }

    /// The element type a scalar type can be (not `bool`, pointers or aggregates).
    pub(crate) fn of(t: &Type) -> Option<Elem> {
        match t {
            Type::Int(IntKind::SChar) => Some(Elem::Int(IntKind::Char)),
            Type::Int(k) => Some(Elem::Int(*k)),
            Type::Float(k) => Some(Elem::Float(*k)),
            _ => None,
        }
    }

    /// Bytes of one element.
    pub(crate) fn size(self) -> u64 {
        match self {
            Elem::Int(k) => u64::from(k.bits() / 8),
            Elem::Float(k) => k.size(),
        }
    }

    /// Bits of one element.
    pub(crate) fn bits(self) -> u32 {
        self.size() as u32 * 8
    }

    /// The IR type of one element's value.
    pub(crate) fn ir(self) -> Ty {
        self.ty().ir().expect("scalar element")
    }

    pub(crate) fn is_float(self) -> bool {
        matches!(self, Elem::Float(_))
    }

    pub(crate) fn is_signed(self) -> bool {
        matches!(self, Elem::Int(k) if k.signed())
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Elem::Int(k) => k.name(),
            Elem::Float(k) => k.name(),
        }
    }

    /// The signed integer element of the same size: the element type of comparison
    /// results (OpenCL C 1.2 §6.3 e: `float4 < float4` is `int4`).
    pub(crate) fn signed_int(self) -> Elem {
        Elem::Int(match self.size() {
            1 => IntKind::Char,
            2 => IntKind::Short,
            4 => IntKind::Int,
            _ => IntKind::Long,
        })
    }
}

/// The number of elements a vector of `n` elements has in memory: 3-element vectors
/// occupy 4 (OpenCL C 1.2 §6.1.5).
pub(crate) fn storage_lanes(n: u8) -> u64 {
    if n == 3 {
        4
    } else {
        u64::from(n)
    }
}

/// Qualifiers of an object or a pointee.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct Quals {
    pub is_const: bool,
    pub is_volatile: bool,
    /// The address space; `None` where none is written (private, except where the context
    /// says otherwise).
    pub space: Option<Space>,
}

impl Quals {
    pub(crate) fn in_space(space: Space) -> Quals {
        Quals {
            space: Some(space),
            ..Quals::default()
        }
    }

    /// The address space, defaulting to private.
    pub(crate) fn space(self) -> Space {
        self.space.unwrap_or(Space::Private)
    }
}

/// Index of a struct/union in [`Records`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct RecordId(pub u32);

/// A function type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FnType {
    pub ret: Type,
    pub params: Vec<QualType>,
    pub variadic: bool,
}

/// An unqualified C type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Type {
    Void,
    Bool,
    Int(IntKind),
    Float(FloatKind),
    Pointer(Box<QualType>),
    /// Element type and length (`None`: `[]`, incomplete).
    Array(Box<QualType>, Option<u64>),
    Record(RecordId),
    /// An OpenCL vector: element type and number of elements (2, 3, 4, 8 or 16).
    Vector(Elem, u8),
    Function(Rc<FnType>),
    /// The type of an erroneous expression: converts silently to anything, so that one
    /// mistake gives one message.
    Error,
}

/// A type with its qualifiers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QualType {
    pub ty: Type,
    pub q: Quals,
}

impl QualType {
    pub(crate) fn new(ty: Type, q: Quals) -> QualType {
        QualType { ty, q }
    }

    pub(crate) fn plain(ty: Type) -> QualType {
        QualType {
            ty,
            q: Quals::default(),
        }
    }
}

impl Type {
    pub(crate) const INT: Type = Type::Int(IntKind::Int);
    pub(crate) const UINT: Type = Type::Int(IntKind::UInt);
    pub(crate) const LONG: Type = Type::Int(IntKind::Long);
    pub(crate) const ULONG: Type = Type::Int(IntKind::ULong);
    pub(crate) const FLOAT: Type = Type::Float(FloatKind::Float);
    pub(crate) const DOUBLE: Type = Type::Float(FloatKind::Double);

    pub(crate) fn pointer_to(pointee: QualType) -> Type {
        Type::Pointer(Box::new(pointee))
    }

    pub(crate) fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }

    pub(crate) fn is_void(&self) -> bool {
        matches!(self, Type::Void)
    }

    pub(crate) fn is_integer(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Bool)
    }

    pub(crate) fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }

    pub(crate) fn is_arith(&self) -> bool {
        self.is_integer() || self.is_float()
    }

    pub(crate) fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer(_))
    }

    pub(crate) fn is_scalar(&self) -> bool {
        self.is_arith() || self.is_pointer()
    }

    pub(crate) fn is_record(&self) -> bool {
        matches!(self, Type::Record(_))
    }

    pub(crate) fn is_array(&self) -> bool {
        matches!(self, Type::Array(..))
    }

    /// Whether a struct or union is part of this type (as a pointee, element, ...).
    pub(crate) fn names_record(&self) -> bool {
        match self {
            Type::Record(_) | Type::Function(_) => true,
            Type::Pointer(p) | Type::Array(p, _) => p.ty.names_record(),
            _ => false,
        }
    }

    pub(crate) fn is_vector(&self) -> bool {
        matches!(self, Type::Vector(..))
    }

    /// A vector's element type and number of elements.
    pub(crate) fn vector(&self) -> Option<(Elem, u8)> {
        match self {
            Type::Vector(e, n) => Some((*e, *n)),
            _ => None,
        }
    }

    /// Structs, unions and arrays: values that live in memory.
    pub(crate) fn is_aggregate(&self) -> bool {
        matches!(self, Type::Record(_) | Type::Array(..))
    }

    pub(crate) fn int_kind(&self) -> Option<IntKind> {
        match self {
            Type::Int(k) => Some(*k),
            _ => None,
        }
    }

    /// Whether values are interpreted as signed (integers; `bool` is unsigned).
    pub(crate) fn is_signed(&self) -> bool {
        matches!(self, Type::Int(k) if k.signed())
    }

    /// The IR type of a value of this type, for scalars.
    pub(crate) fn ir(&self) -> Option<Ty> {
        Some(match self {
            Type::Bool => Ty::I1,
            Type::Int(k) => {
                if k.bits() == 64 {
                    Ty::I64
                } else {
                    Ty::I32
                }
            }
            Type::Float(f) => f.ty(),
            Type::Pointer(p) => Ty::Ptr(p.q.space()),
            _ => return None,
        })
    }

    /// How a scalar of this type is held in memory: its width and whether a narrow load
    /// sign-extends.
    pub(crate) fn mem(&self) -> Option<MemTy> {
        let (size, signed) = match self {
            Type::Bool => (1, false),
            Type::Int(k) => ((k.bits() / 8) as u8, k.signed() && k.bits() < 32),
            Type::Float(f) => (f.size() as u8, false),
            Type::Pointer(p) => ((p.q.space().pointer_bits() / 8) as u8, false),
            _ => return None,
        };
        Some(MemTy { size, signed })
    }

    /// C99 6.3.1.1's integer promotion (`bool`, `char`, `short` → `int`).
    pub(crate) fn promoted(&self) -> Type {
        match self {
            Type::Bool => Type::INT,
            Type::Int(k) if k.bits() < 32 => Type::INT,
            t => t.clone(),
        }
    }
}

/// One member of a struct or union.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// `None` for an anonymous struct/union member, whose members are found through it.
    pub name: Option<String>,
    pub ty: QualType,
    pub offset: u64,
}

/// A struct or union.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub tag: Option<String>,
    pub is_union: bool,
    pub fields: Vec<Field>,
    pub size: u64,
    pub align: u64,
    /// Whether the member list has been seen.
    pub complete: bool,
    pub span: Span,
}

/// Every struct and union of the translation unit.
#[derive(Debug, Default)]
pub(crate) struct Records {
    pub list: Vec<Record>,
}

impl Records {
    pub(crate) fn get(&self, id: RecordId) -> &Record {
        &self.list[id.0 as usize]
    }

    pub(crate) fn add(&mut self, record: Record) -> RecordId {
        self.list.push(record);
        RecordId(self.list.len() as u32 - 1)
    }

    /// `sizeof`: `None` for incomplete types, `void` and functions.
    pub(crate) fn size(&self, ty: &Type) -> Option<u64> {
        Some(match ty {
            Type::Bool => 1,
            Type::Int(k) => u64::from(k.bits() / 8),
            Type::Float(f) => f.size(),
            Type::Pointer(_) => 8,
            Type::Array(elem, Some(n)) => self.size(&elem.ty)?.checked_mul(*n)?,
            Type::Vector(e, n) => e.size() * storage_lanes(*n),
            Type::Record(id) => {
                let r = self.get(*id);
                if !r.complete {
                    return None;
                }
                r.size
            }
            Type::Error => 1,
            Type::Void | Type::Array(_, None) | Type::Function(_) => return None,
        })
    }

    /// `_Alignof`.
    pub(crate) fn align(&self, ty: &Type) -> u64 {
        match ty {
            Type::Array(elem, _) => self.align(&elem.ty),
            Type::Record(id) => self.get(*id).align.max(1),
            t => self.size(t).unwrap_or(1).max(1),
        }
    }

    /// Lay out `fields` with C's rules: each member at the next multiple of its alignment
    /// (1 when packed), a union's members all at 0; the size rounded up to the alignment,
    /// which is the largest member alignment or `min_align`.
    pub(crate) fn layout(
        &self,
        fields: &mut [Field],
        is_union: bool,
        packed: bool,
        min_align: u64,
    ) -> (u64, u64) {
        let mut size = 0u64;
        let mut align = min_align.max(1);
        for f in fields.iter_mut() {
            let fa = if packed { 1 } else { self.align(&f.ty.ty) };
            let fs = self.size(&f.ty.ty).unwrap_or(0);
            align = align.max(fa);
            if is_union {
                f.offset = 0;
                size = size.max(fs);
            } else {
                f.offset = size.div_ceil(fa).saturating_mul(fa);
                size = f.offset.saturating_add(fs);
            }
        }
        (size.div_ceil(align).saturating_mul(align), align)
    }

    /// The member `name` of record `id`, looking through anonymous members: its type and
    /// offset from the record's start.
    pub(crate) fn field(&self, id: RecordId, name: &str) -> Option<(QualType, u64)> {
        for f in &self.get(id).fields {
            match &f.name {
                Some(n) if n == name => return Some((f.ty.clone(), f.offset)),
                None => {
                    if let Type::Record(inner) = &f.ty.ty {
                        if let Some((ty, off)) = self.field(*inner, name) {
                            return Some((ty, f.offset + off));
                        }
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The type as clang spells it in messages (`__global const float *`, `struct S`,
    /// `int[4]`).
    pub(crate) fn show(&self, q: &QualType) -> String {
        let mut out = String::new();
        self.show_into(q, &mut out, "");
        out
    }

    pub(crate) fn show_ty(&self, ty: &Type) -> String {
        self.show(&QualType::plain(ty.clone()))
    }

    fn quals_prefix(q: Quals) -> String {
        let mut s = String::new();
        if let Some(space) = q.space {
            if space != Space::Private {
                s.push_str("__");
                s.push_str(space.name());
                s.push(' ');
            }
        }
        if q.is_const {
            s.push_str("const ");
        }
        if q.is_volatile {
            s.push_str("volatile ");
        }
        s
    }

    fn show_into(&self, q: &QualType, out: &mut String, suffix: &str) {
        match &q.ty {
            Type::Pointer(p) => {
                let mut s = String::from("*");
                if q.q.is_const {
                    s.push_str(" const");
                }
                s.push_str(suffix);
                if matches!(p.ty, Type::Array(..) | Type::Function(_)) {
                    s = format!("({s})");
                }
                self.show_into(p, out, &s);
            }
            Type::Array(elem, n) => {
                let len = n.map_or(String::new(), |n| n.to_string());
                let s = format!("{suffix}[{len}]");
                self.show_into(elem, out, &s);
            }
            Type::Function(f) => {
                let params: Vec<String> = f.params.iter().map(|p| self.show(p)).collect();
                let s = format!("{suffix}({})", params.join(", "));
                self.show_into(&QualType::plain(f.ret.clone()), out, &s);
            }
            base => {
                out.push_str(&Self::quals_prefix(q.q));
                out.push_str(&self.base_name(base));
                if !suffix.is_empty() {
                    if !suffix.starts_with('[') {
                        out.push(' ');
                    }
                    out.push_str(suffix);
                }
            }
        }
    }

    fn base_name(&self, ty: &Type) -> String {
        match ty {
            Type::Void => "void".into(),
            Type::Bool => "bool".into(),
            Type::Int(k) => k.name().into(),
            Type::Float(f) => f.name().into(),
            Type::Vector(e, n) => format!("{}{n}", e.name()),
            Type::Record(id) => {
                let r = self.get(*id);
                let kw = if r.is_union { "union" } else { "struct" };
                match &r.tag {
                    Some(t) => format!("{kw} {t}"),
                    None => format!("{kw} (anonymous)"),
                }
            }
            Type::Error => "<error>".into(),
            _ => unreachable!("derived types are shown by show_into"),
        }
    }
}

/// Whether two types are the same type, ignoring the qualifiers of the outermost level
/// (C's compatibility, simplified: no function prototypes merging).
pub(crate) fn same_type(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Pointer(x), Type::Pointer(y)) => {
            same_type(&x.ty, &y.ty)
                && x.q.is_const == y.q.is_const
                && x.q.is_volatile == y.q.is_volatile
                && x.q.space() == y.q.space()
        }
        (Type::Array(x, n), Type::Array(y, m)) => {
            same_type(&x.ty, &y.ty) && (n == m || n.is_none() || m.is_none())
        }
        (Type::Function(f), Type::Function(g)) => {
            same_type(&f.ret, &g.ret)
                && f.variadic == g.variadic
                && f.params.len() == g.params.len()
                && f.params
                    .iter()
                    .zip(&g.params)
                    .all(|(p, q)| same_type(&p.ty, &q.ty))
        }
        (Type::Int(x), Type::Int(y)) => {
            // `char` and `signed char` are distinct types but alike in every way here.
            x == y || (x.signed() == y.signed() && x.bits() == y.bits())
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str, ty: Type) -> Field {
        Field {
            name: Some(name.into()),
            ty: QualType::plain(ty),
            offset: 0,
        }
    }

    #[test]
    fn struct_layout_follows_c() {
        let records = Records::default();
        let mut fields = vec![
            field("c", Type::Int(IntKind::Char)),
            field("d", Type::DOUBLE),
            field("s", Type::Int(IntKind::Short)),
        ];
        let (size, align) = records.layout(&mut fields, false, false, 1);
        assert_eq!(
            fields.iter().map(|f| f.offset).collect::<Vec<_>>(),
            [0, 8, 16]
        );
        assert_eq!((size, align), (24, 8));
        let (size, align) = records.layout(&mut fields, false, true, 1);
        assert_eq!((size, align), (11, 1));
        let (size, align) = records.layout(&mut fields, true, false, 1);
        assert_eq!((size, align), (8, 8));
    }

    #[test]
    fn types_print_as_clang_does() {
        let records = Records::default();
        let p = Type::pointer_to(QualType::new(
            Type::FLOAT,
            Quals {
                is_const: true,
                space: Some(Space::Global),
                ..Quals::default()
            },
        ));
        assert_eq!(records.show_ty(&p), "__global const float *");
        let a = Type::Array(Box::new(QualType::plain(Type::INT)), Some(4));
        assert_eq!(records.show_ty(&a), "int[4]");
        let pa = Type::pointer_to(QualType::plain(a));
        assert_eq!(records.show_ty(&pa), "int (*)[4]");
    }

    #[test]
    fn wrap_and_fits() {
        assert_eq!(IntKind::Char.wrap(200), (-56i64) as u64);
        assert_eq!(IntKind::UChar.wrap(300), 44);
        assert!(IntKind::UInt.fits(u32::MAX as i128));
        assert!(!IntKind::Int.fits(1 << 31));
    }
}
