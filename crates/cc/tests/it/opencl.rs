//! OpenCL C source to results on the functional model.

use super::model::{buffer, run_cl};
use warpkit_sim::launch::{ArgValue, LaunchConfig};

/// Little-endian 32-bit words.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Little-endian bytes of floats.
pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

#[test]
fn vadd() {
    let src = r#"
__kernel void vadd(__global const float *a, __global const float *b, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i < n)
        out[i] = a[i] + b[i];
}
"#;
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|k| k as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n).map(|k| 1.0 - k as f32).collect();
    let cfg = LaunchConfig {
        grid: [4, 1, 1],
        block: [256, 1, 1],
        ..LaunchConfig::default()
    };
    let out = run_cl(
        src,
        cfg,
        vec![
            ("a", ArgValue::Buffer(f32s(&a))),
            ("b", ArgValue::Buffer(f32s(&b))),
            ("out", ArgValue::Buffer(vec![0; 4 * n])),
            ("n", ArgValue::Int(n as u64)),
        ],
    );
    let got = words(buffer(&out, "out"));
    for k in 0..n {
        assert_eq!(f32::from_bits(got[k]), a[k] + b[k], "{k}");
    }
}

/// Little-endian bytes of words.
pub fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// A workgroup reduction through `__local` memory with barriers in a uniform loop.
#[test]
fn reduce_local() {
    let src = r#"
#define BLOCK 128
__kernel void reduce(__global const uint *in, __global uint *out, uint n)
{
    __local uint sdata[BLOCK];
    uint tid = get_local_id(0);
    uint i = get_group_id(0) * get_local_size(0) * 2 + tid;
    uint sum = 0;
    if (i < n) sum = in[i];
    if (i + get_local_size(0) < n) sum += in[i + get_local_size(0)];
    sdata[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}
"#;
    let n = 5000u32;
    let input: Vec<u32> = (0..n).map(|k| k.wrapping_mul(2654435761) >> 8).collect();
    let groups = n.div_ceil(256);
    let cfg = LaunchConfig {
        grid: [groups, 1, 1],
        block: [128, 1, 1],
        ..LaunchConfig::default()
    };
    let out = run_cl(
        src,
        cfg,
        vec![
            ("in", ArgValue::Buffer(u32s(&input))),
            ("out", ArgValue::Buffer(vec![0; 4 * groups as usize])),
            ("n", ArgValue::Int(u64::from(n))),
        ],
    );
    let got = words(buffer(&out, "out"));
    for g in 0..groups as usize {
        let want = input[g * 256..((g + 1) * 256).min(n as usize)]
            .iter()
            .fold(0u32, |a, &b| a.wrapping_add(b));
        assert_eq!(got[g], want, "group {g}");
    }
}

/// Tiled matrix multiply with `__local` tiles, 2-D ids, and an inner loop of constant trip
/// count.
#[test]
fn matmul_tiled() {
    let src = r#"
#define TILE 16
__kernel void matmul(__global const float *A, __global const float *B, __global float *C, int M, int N, int K)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * TILE + ty;
    int col = get_group_id(0) * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
"#;
    let (m, n, k) = (32usize, 48usize, 64usize);
    let a: Vec<f32> = (0..m * k)
        .map(|i| ((i * 7 % 13) as f32) * 0.5 - 3.0)
        .collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| ((i * 5 % 11) as f32) * 0.25 - 1.0)
        .collect();
    let cfg = LaunchConfig {
        grid: [(n / 16) as u32, (m / 16) as u32, 1],
        block: [16, 16, 1],
        ..LaunchConfig::default()
    };
    let out = run_cl(
        src,
        cfg,
        vec![
            ("A", ArgValue::Buffer(f32s(&a))),
            ("B", ArgValue::Buffer(f32s(&b))),
            ("C", ArgValue::Buffer(vec![0; 4 * m * n])),
            ("M", ArgValue::Int(m as u64)),
            ("N", ArgValue::Int(n as u64)),
            ("K", ArgValue::Int(k as u64)),
        ],
    );
    let got = words(buffer(&out, "C"));
    for r in 0..m {
        for c in 0..n {
            let mut acc = 0.0f32;
            for kk in 0..k {
                acc += a[r * k + kk] * b[kk * n + c];
            }
            assert_eq!(f32::from_bits(got[r * n + c]), acc, "C[{r}][{c}]");
        }
    }
}

/// Every OpenCL example kernel compiles.
#[test]
fn examples_compile() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/opencl");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "cl") {
            let c = warpkit_cc::compile_file(&path, &warpkit_cc::Options::default())
                .unwrap_or_else(|f| panic!("{}: {}", path.display(), f.render()));
            let text = c.assembly;
            let count = text
                .lines()
                .filter(|l| l.starts_with("    ") && !l.trim_start().starts_with('.'))
                .count();
            eprintln!("{}: {count} instructions", path.display());
            n += 1;
        }
    }
    assert!(n >= 9);
}

/// The body of the kernel's code: instructions only (no directives, labels or comments).
fn instructions(src: &str) -> Vec<String> {
    let text = warpkit_cc::compile_source("k.cl", src, &warpkit_cc::Options::default())
        .unwrap_or_else(|f| panic!("{}", f.render()))
        .assembly;
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.') && !l.ends_with(':'))
        .map(String::from)
        .collect()
}

/// `acc += x * y` on 32-bit vector values is one `mad.u32` (exact, so no option is needed);
/// with a uniform factor the `.vu` forms of `mul` and `add` are kept, and the results are
/// the same either way.
#[test]
fn integer_multiply_add_is_one_mad() {
    let src = r#"
__kernel void dot(__global const uint *a, __global const uint *b, __global uint *out, uint k)
{
    uint i = get_global_id(0);
    uint acc = a[i] * b[i] + out[i];
    out[i] = acc + a[i] * k;
}
"#;
    let code = instructions(src);
    let mads = code.iter().filter(|l| l.starts_with("mad.u32")).count();
    assert_eq!(mads, 1, "{code:#?}");
    assert!(code.iter().any(|l| l.starts_with("mul.vu")), "{code:#?}");
    let n = 64u32;
    let a: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let b: Vec<u32> = (0..n).map(|i| i.wrapping_mul(7) ^ 0xdead_beef).collect();
    let c: Vec<u32> = (0..n).map(|i| i << 20).collect();
    let out = run_cl(
        src,
        LaunchConfig {
            grid: [2, 1, 1],
            block: [32, 1, 1],
            ..LaunchConfig::default()
        },
        vec![
            ("a", ArgValue::Buffer(u32s(&a))),
            ("b", ArgValue::Buffer(u32s(&b))),
            ("out", ArgValue::Buffer(u32s(&c))),
            ("k", ArgValue::Int(12345)),
        ],
    );
    let got = words(buffer(&out, "out"));
    for i in 0..n as usize {
        let want = a[i]
            .wrapping_mul(b[i])
            .wrapping_add(c[i])
            .wrapping_add(a[i].wrapping_mul(12345));
        assert_eq!(got[i], want, "work-item {i}");
    }
}

/// A `__local` array at offset 0 costs no instruction to address: `&t[lid + 4]` is the
/// element offset with the constant in the load's immediate.
#[test]
fn local_object_addresses_are_constants() {
    let code = instructions(
        "__kernel void k(__global uint *out) {
            __local uint t[64];
            uint lid = get_local_id(0);
            t[lid] = lid;
            barrier(CLK_LOCAL_MEM_FENCE);
            __local uint *p = &t[lid];
            out[lid] = p[4 * (lid < 32)];
        }",
    );
    assert!(
        !code
            .iter()
            .any(|l| l.starts_with("umovi") && l.ends_with(", 0")),
        "{code:#?}"
    );
}

/// A struct passed by value (provisional: a constant buffer with its bytes, laid out as in
/// the kernel, padding included): members of every size read, the copy written to without
/// changing the caller's bytes, and the struct passed on to a helper.
#[test]
fn struct_parameters_by_value() {
    let src = r#"
typedef struct {
    char tag;        // offset 0
    float scale;     // 4
    long big;        // 8
    short small[3];  // 16
    int count;       // 24
} params_t;

static int weigh(params_t p, int i) { return p.small[i % 3] * p.tag; }

__kernel void use_params(params_t p, __global long *out, __global const params_t *echo)
{
    int i = get_global_id(0);
    p.count += i;
    out[i] = (long)(p.scale * i) + p.big + weigh(p, i) + p.count + echo->count;
}
"#;
    let mut bytes = vec![0u8; 32];
    bytes[0] = 3;
    bytes[4..8].copy_from_slice(&2.5f32.to_le_bytes());
    bytes[8..16].copy_from_slice(&(-(1i64 << 40)).to_le_bytes());
    for (k, v) in [7i16, -2, 100].iter().enumerate() {
        bytes[16 + 2 * k..18 + 2 * k].copy_from_slice(&v.to_le_bytes());
    }
    bytes[24..28].copy_from_slice(&1000i32.to_le_bytes());
    let n = 40usize;
    let out = run_cl(
        src,
        LaunchConfig {
            grid: [1, 1, 1],
            block: [n as u32, 1, 1],
            ..LaunchConfig::default()
        },
        vec![
            ("p", ArgValue::Buffer(bytes.clone())),
            ("out", ArgValue::Buffer(vec![0; n * 8])),
            ("echo", ArgValue::Buffer(bytes.clone())),
        ],
    );
    assert_eq!(
        buffer(&out, "p"),
        &bytes[..],
        "the argument's bytes are not written"
    );
    let got: Vec<i64> = buffer(&out, "out")
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (i, &g) in got.iter().enumerate() {
        let small = [7i64, -2, 100][i % 3];
        let want = (2.5f32 * i as f32) as i64 - (1i64 << 40) + small * 3 + (1000 + i as i64) + 1000;
        assert_eq!(g, want, "work-item {i}");
    }
}
