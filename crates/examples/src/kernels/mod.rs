//! One module per kernel: its launch description, its inputs and its host reference.

mod atax;
mod bitonic;
mod collatz;
mod common;
mod crc32;
mod fp;
mod gesummv;
mod hgemm;
mod histogram;
mod jacobi2d;
mod layernorm;
mod mandelbrot;
mod matmul;
mod matmul_dp4a;
mod reduce;
mod saxpy;
mod scan;
mod sgemm;
mod softmax;
mod stencil;
mod vadd;

use crate::{Example, Language};

macro_rules! example {
    ($name:ident, $summary:expr $(, $key:ident = $value:expr)*) => {
        Example {
            name: stringify!($name),
            summary: $summary,
            language: Language::Assembly,
            source: include_str!(concat!("../../../../examples/", stringify!($name), ".s")),
            build: $name::case,
            $($key: Some($value),)*
            ..Example::PLAIN
        }
    };
}

/// An OpenCL C kernel with the case builder of module `$name`: the twin of the assembly
/// kernel `$name`, sharing its case and the same derived checks and image (the crate's
/// tests hold the two rows to that), or a kernel of its own (the PolyBench-style ones).
macro_rules! opencl {
    ($name:ident, $summary:expr $(, $key:ident = $value:expr)*) => {
        Example {
            name: concat!("opencl/", stringify!($name)),
            summary: $summary,
            language: Language::OpenCl,
            source: include_str!(concat!(
                "../../../../examples/opencl/",
                stringify!($name),
                ".cl"
            )),
            build: $name::case,
            $($key: Some($value),)*
            ..Example::PLAIN
        }
    };
}

pub(crate) static ALL: &[Example] = &[
    example!(vadd, "vector add"),
    example!(saxpy, "integer a*x + y, grid-stride loop"),
    example!(reduce, "sum: per-workgroup fold, then a second pass"),
    example!(scan, "inclusive prefix sum, one workgroup"),
    example!(
        histogram,
        "256-bin byte histogram, shared then global atomics"
    ),
    example!(matmul, "u32 matrix multiply, shared tiles, mad.u32"),
    example!(matmul_dp4a, "int8 matrix multiply with dp4a.i32"),
    example!(bitonic, "bitonic sort of each workgroup's keys"),
    example!(crc32, "CRC-32 of unaligned records: brev, alignbit, perm"),
    example!(stencil, "3x3 blur, 2-D grid, partial last warp"),
    example!(collatz, "Collatz steps: divergent per-lane loops"),
    example!(sgemm, "f32 matrix multiply, shared tiles, ffma.f32"),
    example!(hgemm, "f16 inputs, f32 accumulation via cvt.f32.f16"),
    example!(
        softmax,
        "softmax of rows: max, fexp2, frcp",
        derive = softmax::derive
    ),
    example!(
        layernorm,
        "layer normalisation of rows: mean, variance, frsq",
        derive = layernorm::derive
    ),
    example!(
        mandelbrot,
        "Mandelbrot escape counts in f32, drawn as an image",
        image = mandelbrot::image
    ),
    opencl!(vadd, "vadd in OpenCL C"),
    opencl!(saxpy, "saxpy in OpenCL C: a grid-stride for loop"),
    opencl!(
        reduce,
        "reduce in OpenCL C: a local-memory tree, barrier per step"
    ),
    opencl!(scan, "scan in OpenCL C: Hillis-Steele in local memory"),
    opencl!(
        histogram,
        "histogram in OpenCL C: atomic_inc on __local bins"
    ),
    opencl!(matmul, "matmul in OpenCL C: __local tiles"),
    opencl!(sgemm, "sgemm in OpenCL C: __local tiles, fma"),
    opencl!(
        softmax,
        "softmax in OpenCL C: fmax, native_exp2, native_recip",
        derive = softmax::derive
    ),
    opencl!(
        mandelbrot,
        "mandelbrot in OpenCL C: a for (;;) loop with two breaks",
        image = mandelbrot::image
    ),
    opencl!(
        stencil,
        "stencil in OpenCL C: a 2-D grid, clamped neighbours"
    ),
    // PolyBench-style kernels, OpenCL C only: loops that stride through memory.
    opencl!(
        gesummv,
        "PolyBench gesummv (u32): a row per work-item, gathers"
    ),
    opencl!(
        atax,
        "PolyBench atax (u32): A x by rows, then A^T by columns"
    ),
    opencl!(
        jacobi2d,
        "PolyBench jacobi-2d (u32): 5-point sweeps, one launch each"
    ),
];
