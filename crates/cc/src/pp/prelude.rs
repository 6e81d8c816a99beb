//! What the compiler defines before the program: the predefined macros (`<built-in>`),
//! the command line's `-D`/`-U` (`<command line>`) and the prelude (`<prelude>`).

use super::options::Options;

/// The prelude: OpenCL C text preprocessed and parsed before every program (limits, math
/// constants, `size_t` and friends). Parts are appended in order: the base definitions
/// first, later the OpenCL C library written in OpenCL C.
pub const PRELUDE: &str = concat!(include_str!("prelude.cl"), include_str!("mathlib.cl"));

/// The extensions the compiler supports: each is a predefined macro with value 1, and
/// `#pragma OPENCL EXTENSION` accepts them (any other name is warned about and ignored).
pub(crate) const EXTENSIONS: &[&str] = &[
    "cl_khr_fp64",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_byte_addressable_store",
];

/// The predefined macros other than `__LINE__` and `__FILE__` (which are computed).
/// `__DATE__` and `__TIME__` are fixed so that output is reproducible.
const PREDEFINED: &[(&str, &str)] = &[
    ("__OPENCL_VERSION__", "120"),
    ("__OPENCL_C_VERSION__", "120"),
    ("CL_VERSION_1_0", "100"),
    ("CL_VERSION_1_1", "110"),
    ("CL_VERSION_1_2", "120"),
    ("__ENDIAN_LITTLE__", "1"),
    ("__STDC__", "1"),
    ("__STDC_VERSION__", "199901L"),
    ("__DATE__", "\"Jan  1 1970\""),
    ("__TIME__", "\"00:00:00\""),
    ("__warpkit__", "1"),
    // The ISA has fused multiply-add in both precisions: fma() is fast.
    ("FP_FAST_FMAF", "1"),
    ("FP_FAST_FMA", "1"),
];

/// The text of `<built-in>`.
pub(crate) fn predefines(opts: &Options) -> String {
    let mut text = String::new();
    for (name, value) in PREDEFINED {
        text.push_str(&format!("#define {name} {value}\n"));
    }
    for name in EXTENSIONS {
        text.push_str(&format!("#define {name} 1\n"));
    }
    if opts.fast_relaxed_math {
        text.push_str("#define __FAST_RELAXED_MATH__ 1\n");
    }
    text
}

/// The text of `<command line>`: `-D` then `-U`, one directive a line. Line breaks in the
/// options become spaces (they would end the directive).
pub(crate) fn command_line(opts: &Options) -> String {
    let one_line = |s: &str| s.replace(['\n', '\r'], " ");
    let mut text = String::new();
    for (name, value) in &opts.defines {
        let value = value.as_deref().map_or("1".to_string(), one_line);
        // A trailing space keeps a final backslash from splicing the next line.
        text.push_str(&format!("#define {} {value} \n", one_line(name)));
    }
    for name in &opts.undefines {
        text.push_str(&format!("#undef {} \n", one_line(name)));
    }
    text
}
