//! A generated kernel as a host C program: a prelude giving the OpenCL names their OpenCL
//! meaning, the kernel source unchanged, and a `main` that runs every work-item in order
//! and prints the final buffers.
//!
//! Where OpenCL C and C differ:
//! - address space qualifiers and `kernel` are macros for nothing (`__constant` for
//!   `const`); there is one address space;
//! - the work-item functions read globals the host loop sets;
//! - `min max clamp abs mad24 mul24 mul_hi rotate popcount clz` are C functions with the
//!   OpenCL definitions, chosen by `_Generic` on the first argument (the generator casts
//!   every argument to the overload's type); `fmin fmax fabs fma sqrt floor ceil` map to
//!   the `float` or `double` functions of libm (correctly rounded in glibc);
//! - the atomics are plain read-modify-write functions (one work-item runs at a time);
//! - shift counts: C leaves counts outside `0..width` undefined, so the cross-check uses
//!   [`Config::host_c`](warpkit_clsmith::Config::host_c), whose programs mask every count,
//!   and its interpreter run checks C's rule;
//! - `char` is signed (`-fsigned-char`), `long` 64 bits and `size_t` 64-bit unsigned (LP64,
//!   as OpenCL here); `bool` is `_Bool`; literal types and conversions follow C99 in both;
//! - no `__local` memory or barriers ([`Config::host_c`] has none): work-items run one
//!   after another.

use std::fmt::Write;

use warpkit_clsmith::{ArgValue, TestCase};

const PRELUDE: &str = r#"
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

#define __kernel
#define kernel
#define __global
#define global
#define __local
#define local
#define __private
#define private
#define __constant const
#define constant const
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

static size_t wk_gid[3], wk_lid[3], wk_grp[3], wk_lsz[3], wk_ngr[3];
static uint wk_dim;
static size_t get_global_id(uint d) { return d < 3 ? wk_gid[d] : 0; }
static size_t get_local_id(uint d) { return d < 3 ? wk_lid[d] : 0; }
static size_t get_group_id(uint d) { return d < 3 ? wk_grp[d] : 0; }
static size_t get_local_size(uint d) { return d < 3 ? wk_lsz[d] : 1; }
static size_t get_num_groups(uint d) { return d < 3 ? wk_ngr[d] : 1; }
static size_t get_global_size(uint d) { return d < 3 ? wk_lsz[d] * wk_ngr[d] : 1; }
static uint get_work_dim(void) { return wk_dim; }

#define CL_INT(T, U, S, N, W) \
static inline T min_##S(T a, T b) { return b < a ? b : a; } \
static inline T max_##S(T a, T b) { return a < b ? b : a; } \
static inline T clamp_##S(T x, T lo, T hi) { return min_##S(max_##S(x, lo), hi); } \
static inline U abs_##S(T x) { return x < 0 ? (U)((U)0 - (U)x) : (U)x; } \
static inline T popcount_##S(T x) { U u = (U)x; T n = 0; for (int i = 0; i < N; i++) n += (u >> i) & 1; return n; } \
static inline T clz_##S(T x) { U u = (U)x; T n = 0; for (int i = N - 1; i >= 0 && !((u >> i) & 1); i--) n++; return n; } \
static inline T rotate_##S(T v, T i) { U u = (U)v; unsigned c = (unsigned)((U)i % N); return c == 0 ? v : (T)(U)((U)(u << c) | (U)(u >> (N - c))); } \
static inline T mul_hi_##S(T a, T b) { return (T)(((W)a * (W)b) >> N); }

CL_INT(char, uchar, c, 8, int)
CL_INT(uchar, uchar, uc, 8, int)
CL_INT(short, ushort, s, 16, int)
CL_INT(ushort, ushort, us, 16, int)
CL_INT(int, uint, i, 32, long)
CL_INT(uint, uint, ui, 32, ulong)
CL_INT(long, ulong, l, 64, __int128)
CL_INT(ulong, ulong, ul, 64, unsigned __int128)

static inline int mul24_i(int a, int b) { return a * b; }
static inline uint mul24_ui(uint a, uint b) { return a * b; }
static inline int mad24_i(int a, int b, int c) { return a * b + c; }
static inline uint mad24_ui(uint a, uint b, uint c) { return a * b + c; }

#define CL_GEN(name, x) _Generic((x), char: name##_c, signed char: name##_c, uchar: name##_uc, short: name##_s, \
    ushort: name##_us, int: name##_i, uint: name##_ui, long: name##_l, ulong: name##_ul)
#define min(a, b) CL_GEN(min, a)(a, b)
#define max(a, b) CL_GEN(max, a)(a, b)
#define clamp(x, a, b) CL_GEN(clamp, x)(x, a, b)
#define abs(x) CL_GEN(abs, x)(x)
#define popcount(x) CL_GEN(popcount, x)(x)
#define clz(x) CL_GEN(clz, x)(x)
#define rotate(x, y) CL_GEN(rotate, x)(x, y)
#define mul_hi(x, y) CL_GEN(mul_hi, x)(x, y)
#define mul24(x, y) _Generic((x), int: mul24_i, uint: mul24_ui)(x, y)
#define mad24(x, y, z) _Generic((x), int: mad24_i, uint: mad24_ui)(x, y, z)

#define fmin(a, b) _Generic((a), float: fminf, double: fmin)(a, b)
#define fmax(a, b) _Generic((a), float: fmaxf, double: fmax)(a, b)
#define fabs(a) _Generic((a), float: fabsf, double: fabs)(a)
#define fma(a, b, c) _Generic((a), float: fmaf, double: fma)(a, b, c)
#define sqrt(a) _Generic((a), float: sqrtf, double: sqrt)(a)
#define floor(a) _Generic((a), float: floorf, double: floor)(a)
#define ceil(a) _Generic((a), float: ceilf, double: ceil)(a)

#define CL_ATOMIC(name, T, S, expr) static inline T name##_##S(T *p, T v) { T o = *p; *p = (expr); return o; }
#define CL_ATOMICS(T, S) \
    CL_ATOMIC(atomic_add, T, S, o + v) CL_ATOMIC(atomic_sub, T, S, o - v) \
    CL_ATOMIC(atomic_min, T, S, v < o ? v : o) CL_ATOMIC(atomic_max, T, S, v > o ? v : o) \
    CL_ATOMIC(atomic_and, T, S, o & v) CL_ATOMIC(atomic_or, T, S, o | v) CL_ATOMIC(atomic_xor, T, S, o ^ v) \
    static inline T atomic_inc_##S(T *p) { T o = *p; *p = o + 1; return o; } \
    static inline T atomic_dec_##S(T *p) { T o = *p; *p = o - 1; return o; }
CL_ATOMICS(int, i)
CL_ATOMICS(uint, ui)
#define CL_AGEN(name, p) _Generic((p), int *: name##_i, uint *: name##_ui)
#define atomic_add(p, v) CL_AGEN(atomic_add, p)(p, v)
#define atomic_sub(p, v) CL_AGEN(atomic_sub, p)(p, v)
#define atomic_min(p, v) CL_AGEN(atomic_min, p)(p, v)
#define atomic_max(p, v) CL_AGEN(atomic_max, p)(p, v)
#define atomic_and(p, v) CL_AGEN(atomic_and, p)(p, v)
#define atomic_or(p, v) CL_AGEN(atomic_or, p)(p, v)
#define atomic_xor(p, v) CL_AGEN(atomic_xor, p)(p, v)
#define atomic_inc(p) CL_AGEN(atomic_inc, p)(p)
#define atomic_dec(p) CL_AGEN(atomic_dec, p)(p)
#define atom_add atomic_add
#define atom_sub atomic_sub
#define atom_min atomic_min
#define atom_max atomic_max
#define atom_and atomic_and
#define atom_or atomic_or
#define atom_xor atomic_xor
#define atom_inc atomic_inc
#define atom_dec atomic_dec

#line 1 "kernel.cl"
"#;

fn c_int(bits: u8, signed: bool, value: i128) -> String {
    let ty = match (bits, signed) {
        (8, true) => "char",
        (8, false) => "uchar",
        (16, true) => "short",
        (16, false) => "ushort",
        (32, true) => "int",
        (32, false) => "uint",
        (64, true) => "long",
        _ => "ulong",
    };
    if signed && value == -(1i128 << (bits - 1)) {
        format!("(({ty})(-{}L - 1))", (1i128 << (bits - 1)) - 1)
    } else if signed {
        format!("(({ty})({value}L))")
    } else {
        format!("(({ty}){value}UL)")
    }
}

/// The complete C program of a test case.
pub fn program(case: &TestCase) -> String {
    let mut s = String::from(PRELUDE);
    s.push_str(&case.source);
    s.push_str("\n#line 1 \"main.c\"\nint main(void) {\n");
    let mut call_args = Vec::new();
    for (i, a) in case.args.iter().enumerate() {
        match &a.value {
            ArgValue::Buffer(bytes) => {
                let _ = write!(
                    s,
                    "    static const unsigned char init{i}[{}] = {{",
                    bytes.len().max(1)
                );
                for (k, b) in bytes.iter().enumerate() {
                    if k % 32 == 0 {
                        s.push_str("\n        ");
                    }
                    let _ = write!(s, "{b},");
                }
                if bytes.is_empty() {
                    s.push('0');
                }
                let _ = writeln!(s, "\n    }};");
                let _ = writeln!(s, "    void *buf{i} = malloc({} + 16);", bytes.len());
                let _ = writeln!(s, "    memcpy(buf{i}, init{i}, {});", bytes.len());
                call_args.push(format!("buf{i}"));
            }
            ArgValue::Local(_) => panic!("the C cross-check has no __local memory"),
            ArgValue::Int {
                bits,
                signed,
                value,
            } => call_args.push(c_int(*bits, *signed, *value)),
            ArgValue::F32(x) => {
                call_args.push(format!("{}f", warpkit_clsmith::print::hex_float(*x as f64)))
            }
            ArgValue::F64(x) => call_args.push(warpkit_clsmith::print::hex_float(*x)),
        }
    }
    let (g, b) = (case.grid, case.block);
    let dim = warpkit_clsmith::interp::work_dim(g, b);
    let _ = writeln!(s, "    wk_dim = {dim};");
    for d in 0..3 {
        let _ = writeln!(s, "    wk_lsz[{d}] = {}; wk_ngr[{d}] = {};", b[d], g[d]);
    }
    s.push_str("    for (size_t gz = 0; gz < wk_ngr[2]; gz++) for (size_t gy = 0; gy < wk_ngr[1]; gy++) for (size_t gx = 0; gx < wk_ngr[0]; gx++)\n");
    s.push_str("    for (size_t lz = 0; lz < wk_lsz[2]; lz++) for (size_t ly = 0; ly < wk_lsz[1]; ly++) for (size_t lx = 0; lx < wk_lsz[0]; lx++) {\n");
    s.push_str("        wk_grp[0] = gx; wk_grp[1] = gy; wk_grp[2] = gz; wk_lid[0] = lx; wk_lid[1] = ly; wk_lid[2] = lz;\n");
    s.push_str(
        "        for (int d = 0; d < 3; d++) wk_gid[d] = wk_grp[d] * wk_lsz[d] + wk_lid[d];\n",
    );
    let _ = writeln!(s, "        {}({});", case.kernel, call_args.join(", "));
    s.push_str("    }\n");
    for (name, bytes) in &case.expected {
        let i = case
            .args
            .iter()
            .position(|a| &a.name == name)
            .expect("expected buffers are arguments");
        let _ = writeln!(s, "    printf(\"{name} \");");
        let _ = writeln!(
            s,
            "    for (size_t k = 0; k < {}; k++) printf(\"%02x\", ((unsigned char *)buf{i})[k]);",
            bytes.len()
        );
        s.push_str("    printf(\"\\n\");\n");
    }
    s.push_str("    return 0;\n}\n");
    s
}

/// Parses the program's output: one line per buffer, `NAME HEX`.
pub fn parse_output(text: &str) -> Vec<(String, Vec<u8>)> {
    text.lines()
        .filter_map(|l| {
            let (name, hex) = l.split_once(' ')?;
            let bytes = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex"))
                .collect();
            Some((name.to_string(), bytes))
        })
        .collect()
}
