//! Which identifiers are keywords, and what they mean to the declaration-specifier parser.
//! The preprocessor hands keywords over as identifiers, so every spelling lives here.

use crate::ast::{AddrSpaceQual, Storage, TypeSpec};

/// A type-specifier keyword that combines with others (`unsigned long int`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TypeWord {
    Void,
    Bool,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    Half,
    Signed,
    Unsigned,
    Complex,
    Imaginary,
}

pub(super) fn type_word(name: &str) -> Option<TypeWord> {
    Some(match name {
        "void" => TypeWord::Void,
        "bool" | "_Bool" => TypeWord::Bool,
        "char" => TypeWord::Char,
        "short" => TypeWord::Short,
        "int" => TypeWord::Int,
        "long" => TypeWord::Long,
        "float" => TypeWord::Float,
        "double" => TypeWord::Double,
        "half" => TypeWord::Half,
        "signed" | "__signed" | "__signed__" => TypeWord::Signed,
        "unsigned" => TypeWord::Unsigned,
        "_Complex" | "__complex__" => TypeWord::Complex,
        "_Imaginary" => TypeWord::Imaginary,
        _ => return None,
    })
}

/// Types OpenCL names with one keyword that combines with no other type specifier.
const UNSUPPORTED_TYPES: [&str; 18] = [
    "image1d_t",
    "image1d_array_t",
    "image1d_buffer_t",
    "image2d_t",
    "image2d_array_t",
    "image2d_depth_t",
    "image2d_array_depth_t",
    "image2d_msaa_t",
    "image2d_array_msaa_t",
    "image2d_msaa_depth_t",
    "image2d_array_msaa_depth_t",
    "image3d_t",
    "sampler_t",
    "event_t",
    "queue_t",
    "clk_event_t",
    "reserve_id_t",
    "ndrange_t",
];

/// The element type a vector type name starts with (`uint` of `uint4`).
fn vector_element(name: &str) -> Option<TypeSpec> {
    Some(match name {
        "char" => TypeSpec::Char,
        "uchar" => TypeSpec::UChar,
        "short" => TypeSpec::Short,
        "ushort" => TypeSpec::UShort,
        "int" => TypeSpec::Int,
        "uint" => TypeSpec::UInt,
        "long" => TypeSpec::Long,
        "ulong" => TypeSpec::ULong,
        "half" => TypeSpec::Half,
        "float" => TypeSpec::Float,
        "double" => TypeSpec::Double,
        _ => return None,
    })
}

/// A vector type name's element type name and width (`("uint", 4)` for `uint4`).
fn vector_parts(name: &str) -> Option<(&str, u8)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (elem, width) = name.split_at(name.len() - digits);
    let width = match width {
        "2" => 2,
        "3" => 3,
        "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => return None,
    };
    Some((elem, width))
}

/// OpenCL's one-word type names: `uchar`, `uint`, ..., vector types (`float4`) and the
/// image, sampler and event types.
pub(super) fn builtin_type(name: &str) -> Option<TypeSpec> {
    match name {
        "uchar" => return Some(TypeSpec::UChar),
        "ushort" => return Some(TypeSpec::UShort),
        "uint" => return Some(TypeSpec::UInt),
        "ulong" => return Some(TypeSpec::ULong),
        _ => {}
    }
    if UNSUPPORTED_TYPES.contains(&name) {
        return Some(TypeSpec::Unsupported(name.to_string()));
    }
    let (elem, width) = vector_parts(name)?;
    Some(TypeSpec::Vector(Box::new(vector_element(elem)?), width))
}

pub(super) fn is_builtin_type(name: &str) -> bool {
    matches!(name, "uchar" | "ushort" | "uint" | "ulong")
        || UNSUPPORTED_TYPES.contains(&name)
        || vector_parts(name).is_some_and(|(elem, _)| vector_element(elem).is_some())
}

pub(super) fn addr_space(name: &str) -> Option<AddrSpaceQual> {
    Some(match name {
        "__global" | "global" => AddrSpaceQual::Global,
        "__local" | "local" => AddrSpaceQual::Local,
        "__constant" | "constant" => AddrSpaceQual::Constant,
        "__private" | "private" => AddrSpaceQual::Private,
        _ => return None,
    })
}

/// OpenCL's image access qualifiers.
pub(super) fn is_access_qual(name: &str) -> bool {
    matches!(
        name,
        "__read_only" | "read_only" | "__write_only" | "write_only" | "__read_write" | "read_write"
    )
}

pub(super) fn is_const(name: &str) -> bool {
    matches!(name, "const" | "__const" | "__const__")
}

pub(super) fn is_volatile(name: &str) -> bool {
    matches!(name, "volatile" | "__volatile" | "__volatile__")
}

pub(super) fn is_restrict(name: &str) -> bool {
    matches!(name, "restrict" | "__restrict" | "__restrict__")
}

/// Type qualifiers: C's, OpenCL's address spaces and access qualifiers.
pub(super) fn is_qualifier(name: &str) -> bool {
    is_const(name)
        || is_volatile(name)
        || is_restrict(name)
        || addr_space(name).is_some()
        || is_access_qual(name)
}

pub(super) fn storage(name: &str) -> Option<Storage> {
    Some(match name {
        "typedef" => Storage::Typedef,
        "static" => Storage::Static,
        "extern" => Storage::Extern,
        "auto" => Storage::Auto,
        "register" => Storage::Register,
        _ => return None,
    })
}

pub(super) fn is_kernel(name: &str) -> bool {
    matches!(name, "__kernel" | "kernel")
}

pub(super) fn is_inline(name: &str) -> bool {
    matches!(name, "inline" | "__inline" | "__inline__")
}

pub(super) fn is_attribute(name: &str) -> bool {
    matches!(name, "__attribute__" | "__attribute")
}

pub(super) fn is_typeof(name: &str) -> bool {
    matches!(name, "typeof" | "__typeof__" | "__typeof")
}

pub(super) fn is_alignof(name: &str) -> bool {
    matches!(name, "_Alignof" | "__alignof__" | "__alignof")
}

/// Keywords that can begin a type name (`(const int *)p`, `sizeof(float4)`).
pub(super) fn begins_type_name(name: &str) -> bool {
    type_word(name).is_some()
        || is_builtin_type(name)
        || is_qualifier(name)
        || matches!(name, "struct" | "union" | "enum")
        || is_typeof(name)
}

/// Keywords that can begin a declaration.
pub(super) fn begins_declaration(name: &str) -> bool {
    begins_type_name(name)
        || storage(name).is_some()
        || is_kernel(name)
        || is_inline(name)
        || is_attribute(name)
        || name == "__extension__"
}

/// Keywords that begin file-scope declarations and hardly occur inside one: where the
/// parser resumes after an error.
pub(super) fn begins_top_level(name: &str) -> bool {
    is_kernel(name) || is_inline(name) || matches!(name, "typedef" | "static" | "extern")
}

/// Identifiers that are keywords: never a variable, function or typedef name. (`true` and
/// `false` are not among them: they reach the semantic pass as identifiers.)
pub(super) fn is_reserved(name: &str) -> bool {
    begins_declaration(name)
        || matches!(
            name,
            "if" | "else"
                | "while"
                | "do"
                | "for"
                | "switch"
                | "case"
                | "default"
                | "goto"
                | "break"
                | "continue"
                | "return"
                | "sizeof"
                | "vec_step"
                | "asm"
                | "__asm"
                | "__asm__"
                | "_Static_assert"
        )
        || is_alignof(name)
}
