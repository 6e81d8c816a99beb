//! OpenCL C vector types: kernels run on the IR interpreter (as lowered and optimized) and
//! on the functional model, against values computed here; diagnostics; real-world kernels
//! that must compile.

use super::model::{buffer, run_cl_with};
use warpkit_cc::diag::Diagnostics;
use warpkit_cc::ir::interp::{self, Launch};
use warpkit_cc::ir::{self, Module};
use warpkit_cc::lower;
use warpkit_cc::source::SourceMap;
use warpkit_cc::{parse, pp};
use warpkit_sim::launch::{ArgValue, LaunchConfig};

/// An argument of a test kernel.
#[derive(Clone)]
enum A {
    /// A `__global` buffer's initial bytes.
    Buf(Vec<u8>),
    /// A scalar argument slot.
    Int(u64),
}

fn lower_src(src: &str, opts: &lower::Options) -> (Module, String, bool) {
    let mut sources = SourceMap::new();
    let main = sources.add_file("k.cl", src, false);
    let mut diags = Diagnostics::new();
    let tokens = pp::preprocess(&mut sources, main, &pp::Options::default(), &mut diags);
    let tu = parse::parse(&tokens, &mut diags);
    let module = lower::lower(&tu, &sources, opts, &mut diags);
    (module, diags.render(&sources), diags.has_errors())
}

fn compile_opts(src: &str, opts: &lower::Options) -> Module {
    let (m, text, errors) = lower_src(src, opts);
    assert!(!errors, "unexpected errors:\n{text}");
    if let Err(e) = ir::verify::verify_module(&m) {
        panic!(
            "IR does not verify: {e}\n{}",
            m.kernels.iter().map(|k| k.to_string()).collect::<String>()
        );
    }
    m
}

/// The rendered diagnostics of a program that must fail.
fn errors(src: &str) -> String {
    let (_, text, errors) = lower_src(src, &lower::Options::default());
    assert!(errors, "expected errors, got:\n{text}");
    text
}

/// The rendered diagnostics of a program that must compile.
fn warnings(src: &str) -> String {
    let (_, text, errors) = lower_src(src, &lower::Options::default());
    assert!(!errors, "unexpected errors:\n{text}");
    text
}

/// Run the kernel of `src` on `block` work-items (one workgroup) on the IR interpreter,
/// as lowered and optimized, and on the model; all must agree. The final bytes of every
/// argument in order (empty for scalars).
fn run(src: &str, block: u32, args: Vec<(&str, A)>) -> Vec<Vec<u8>> {
    run_with(src, false, block, args)
}

fn run_with(src: &str, contract: bool, block: u32, args: Vec<(&str, A)>) -> Vec<Vec<u8>> {
    let lopts = lower::Options {
        contract_fp: contract,
        ..lower::Options::default()
    };
    let m = compile_opts(src, &lopts);
    let iargs = args
        .iter()
        .map(|(_, a)| match a {
            A::Buf(b) => interp::Arg::Buffer(b.clone()),
            A::Int(v) => interp::Arg::Scalar(*v),
        })
        .collect();
    let launch = Launch::new([1, 1, 1], [block, 1, 1], iargs);
    let out = interp::run(&m, 0, &launch).unwrap_or_else(|e| panic!("{e}\n{}", m.kernels[0]));
    let mut optimized = m.clone();
    warpkit_cc::opt::optimize(&mut optimized, warpkit_cc::opt::OptLevel::O2);
    let opt_out = interp::run(&optimized, 0, &launch)
        .unwrap_or_else(|e| panic!("optimized: {e}\n{}", optimized.kernels[0]));
    assert_eq!(
        out.buffers, opt_out.buffers,
        "the optimized kernel computes something else"
    );
    let copts = warpkit_cc::Options {
        contract_fp: contract,
        ..warpkit_cc::Options::default()
    };
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [block, 1, 1],
        ..LaunchConfig::default()
    };
    let margs = args
        .iter()
        .map(|(n, a)| {
            let v = match a {
                A::Buf(b) => ArgValue::Buffer(b.clone()),
                A::Int(v) => ArgValue::Int(*v),
            };
            (*n, v)
        })
        .collect();
    let model = run_cl_with(src, &copts, cfg, margs);
    args.iter()
        .enumerate()
        .map(|(k, (name, a))| match a {
            A::Buf(_) => {
                let interp_bytes = out.buffer(k).expect("a buffer").to_vec();
                let model_bytes = buffer(&model, name);
                assert_eq!(
                    interp_bytes, model_bytes,
                    "the interpreter and the model disagree on '{name}'"
                );
                interp_bytes
            }
            A::Int(_) => Vec::new(),
        })
        .collect()
}

fn out(n: usize) -> A {
    A::Buf(vec![0; n])
}

fn f32_bytes(v: &[f32]) -> A {
    A::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn i32_bytes(v: &[i32]) -> A {
    A::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn float4_arithmetic_and_components() {
    let src = r#"
__kernel void k(__global float4 *out, __global const float4 *in) {
    int i = get_global_id(0);
    float4 a = in[i];
    float4 b = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    float4 c = a * b + 0.5f;
    c.x = a.w;
    c.yz += 1.0f;
    out[2 * i] = c;
    out[2 * i + 1] = a.wzyx - b.xxyy;
}
"#;
    let n = 8;
    let input: Vec<f32> = (0..4 * n).map(|k| k as f32 * 0.75 - 3.0).collect();
    let got = run(
        src,
        n as u32,
        vec![("out", out(32 * n)), ("in", f32_bytes(&input))],
    );
    let got = f32s(&got[0]);
    for i in 0..n {
        let a = &input[4 * i..4 * i + 4];
        let b = [1.0f32, 2.0, 3.0, 4.0];
        let mut c: Vec<f32> = (0..4).map(|k| a[k] * b[k] + 0.5).collect();
        c[0] = a[3];
        c[1] += 1.0;
        c[2] += 1.0;
        assert_eq!(&got[8 * i..8 * i + 4], &c[..], "item {i}");
        let d = [a[3] - b[0], a[2] - b[0], a[1] - b[1], a[0] - b[1]];
        assert_eq!(&got[8 * i + 4..8 * i + 8], &d[..], "item {i}");
    }
}

/// Integer vectors compute in their element type: no promotion, wrapping to the width,
/// shift counts modulo the element's width.
#[test]
fn integer_elements_wrap_and_shift_modulo_width() {
    let src = r#"
__kernel void k(__global int *out, __global const int *in) {
    uchar4 a = (uchar4)(250, 7, 128, 255);
    uchar4 b = (uchar4)(10, 9, 128, 2);
    char4 c = (char4)(-128, 100, -1, 5);
    short2 s = (short2)(30000, -30000);
    int t = in[0];
    uchar4 sum = a + b;
    uchar4 prod = a * b;
    char4 neg = -c;
    char4 q = c / (char4)(-1, 3, 2, -2);
    uchar4 sh = a << (uchar4)(1, 9, 3, 8);
    char4 sr = c >> 9;
    short2 s2 = s + s;
    uchar4 inv = ~a;
    int4 iv = (int4)(t, -t, t << 4, 7);
    int4 ish = iv << (int4)(33, 1, -1, 0);
    uint4 u = (uint4)(0x80000000u, 1, 2, 3) >> 31;
    long2 l = (long2)(1L << 62, -5) * 3;
    uchar4 inc = a;
    inc++;
    --inc;
    inc += (uchar)1;
    int k = 0;
    out[k++] = sum.x; out[k++] = sum.y; out[k++] = sum.z; out[k++] = sum.w;
    out[k++] = prod.x; out[k++] = prod.y; out[k++] = prod.z; out[k++] = prod.w;
    out[k++] = neg.x; out[k++] = neg.y; out[k++] = neg.z; out[k++] = neg.w;
    out[k++] = q.x; out[k++] = q.y; out[k++] = q.z; out[k++] = q.w;
    out[k++] = sh.x; out[k++] = sh.y; out[k++] = sh.z; out[k++] = sh.w;
    out[k++] = sr.x; out[k++] = sr.y; out[k++] = sr.z; out[k++] = sr.w;
    out[k++] = s2.x; out[k++] = s2.y;
    out[k++] = inv.x; out[k++] = inv.w;
    out[k++] = ish.x; out[k++] = ish.y; out[k++] = ish.z; out[k++] = ish.w;
    out[k++] = u.x; out[k++] = u.y;
    out[k++] = (int)l.x; out[k++] = (int)(l.x >> 32); out[k++] = (int)l.y; out[k++] = (int)(l.y >> 32);
    out[k++] = inc.x; out[k++] = inc.w;
    out[k++] = (a % (uchar4)(7)).x;
}
"#;
    let t = 0x1234_5678i32;
    let got = i32s(&run(src, 1, vec![("out", out(4 * 64)), ("in", i32_bytes(&[t]))])[0]);
    let a = [250u8, 7, 128, 255];
    let b = [10u8, 9, 128, 2];
    let c = [-128i8, 100, -1, 5];
    let s = [30000i16, -30000];
    let mut want: Vec<i32> = Vec::new();
    want.extend((0..4).map(|i| a[i].wrapping_add(b[i]) as i32));
    want.extend((0..4).map(|i| a[i].wrapping_mul(b[i]) as i32));
    want.extend((0..4).map(|i| c[i].wrapping_neg() as i32));
    let d = [-1i8, 3, 2, -2];
    want.extend((0..4).map(|i| c[i].wrapping_div(d[i]) as i32));
    let shc = [1u32, 9, 3, 8];
    want.extend((0..4).map(|i| a[i].wrapping_shl(shc[i] % 8) as i32));
    want.extend((0..4).map(|i| (c[i] >> (9 % 8)) as i32));
    want.extend((0..2).map(|i| s[i].wrapping_add(s[i]) as i32));
    want.push(!a[0] as i32);
    want.push(!a[3] as i32);
    let iv = [t, -t, t << 4, 7];
    let cnt = [33i32, 1, -1, 0];
    want.extend((0..4).map(|i| iv[i].wrapping_shl(cnt[i] as u32 % 32)));
    want.extend([1, 0]);
    let l = [(1i64 << 62).wrapping_mul(3), -15];
    for x in l {
        want.push(x as i32);
        want.push((x >> 32) as i32);
    }
    want.push(a[0].wrapping_add(1) as i32);
    want.push(a[3].wrapping_add(1) as i32);
    want.push((a[0] % 7) as i32);
    assert_eq!(&got[..want.len()], &want[..]);
}

/// 3-element vectors occupy 16 bytes in memory; their padding is neither read nor written.
#[test]
fn three_element_vectors_in_memory() {
    let src = r#"
typedef struct { float3 p; int id; } Item;
__kernel void k(__global float3 *v, __global int *out, __global Item *items) {
    int i = get_global_id(0);
    float3 a = v[i];
    v[i] = a.zxy * 2.0f;
    out[4 * i] = sizeof(float3);
    out[4 * i + 1] = __alignof__(int3);
    out[4 * i + 2] = sizeof(Item);
    out[4 * i + 3] = vec_step(a) + vec_step(float3) * 10 + vec_step(int) * 100;
    items[i].p.y += (float)items[i].id;
}
"#;
    let n = 4usize;
    let v: Vec<f32> = (0..4 * n)
        .map(|k| if k % 4 == 3 { -7.5 } else { k as f32 })
        .collect();
    let mut items: Vec<u8> = Vec::new();
    for i in 0..n {
        for c in 0..4 {
            items.extend((i as f32 + c as f32 * 0.5).to_le_bytes());
        }
        items.extend((i as i32 * 3).to_le_bytes());
        items.extend([0xAAu8; 12]);
    }
    let got = run(
        src,
        n as u32,
        vec![
            ("v", f32_bytes(&v)),
            ("out", out(16 * n)),
            ("items", A::Buf(items.clone())),
        ],
    );
    let gv = f32s(&got[0]);
    for i in 0..n {
        let a = &v[4 * i..4 * i + 4];
        assert_eq!(
            &gv[4 * i..4 * i + 4],
            &[a[2] * 2.0, a[0] * 2.0, a[1] * 2.0, -7.5]
        );
    }
    let go = i32s(&got[1]);
    for i in 0..n {
        assert_eq!(&go[4 * i..4 * i + 4], &[16, 16, 32, 4 + 40 + 100]);
    }
    let mut want = items;
    for i in 0..n {
        let off = 32 * i + 4;
        let y = f32::from_le_bytes(want[off..off + 4].try_into().unwrap()) + (i * 3) as f32;
        want[off..off + 4].copy_from_slice(&y.to_le_bytes());
    }
    assert_eq!(got[2], want);
}

/// Component names of every kind, as rvalues and as lvalues.
#[test]
fn component_access_forms() {
    let src = r#"
__kernel void k(__global int *out) {
    int16 v = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int8 lo = v.lo, hi = v.hi, ev = v.even, od = v.odd;
    int4 s = v.sFa05;
    int4 t = v.S3210;
    int2 h3 = ((int3)(30, 31, 32)).lo;
    int z3 = ((int3)(30, 31, 32)).hi.x;
    int4 w = (int4)(1, 2, 3, 4);
    w.wx = w.xw;
    w.yz += (int2)(10, 20);
    w.s2++;
    w.hi.lo = 99;
    int2 nested = v.s89ab.zy.yx;
    int8 e8 = lo.odd.xyzw.s0123.even.xyxy.s01230123;
    int k = 0;
    out[k++] = lo.s7; out[k++] = hi.s0; out[k++] = ev.s3; out[k++] = od.s3;
    out[k++] = s.x; out[k++] = s.y; out[k++] = s.z; out[k++] = s.w;
    out[k++] = t.x; out[k++] = t.w;
    out[k++] = h3.x; out[k++] = h3.y; out[k++] = z3;
    out[k++] = w.x; out[k++] = w.y; out[k++] = w.z; out[k++] = w.w;
    out[k++] = nested.x; out[k++] = nested.y;
    out[k++] = e8.s0; out[k++] = e8.s1; out[k++] = e8.s7;
}
"#;
    let got = i32s(&run(src, 1, vec![("out", out(4 * 32))])[0]);
    let want = [
        7, 8, 6, 7, 15, 10, 0, 5, 3, 0, 30, 31, 32, 4, 12, 99, 1, 9, 10, 1, 5, 5,
    ];
    assert_eq!(&got[..want.len()], &want);
}

/// Vector literals from scalars and smaller vectors, broadcasts, braces, constants.
#[test]
fn literals_and_initializers() {
    let src = r#"
__constant float4 table[2] = { (float4)(1.0f, 2.0f, 3.0f, 4.0f), (float4)(0.5f) };
__constant int4 braced[2] = { {1, 2}, 7, 8, 9, 10 };
__constant int2 splat = 5;
typedef struct { int2 a; float4 b; } S;
__kernel void k(__global float *out, float x) {
    float2 v2 = (float2)(x, -x);
    float4 a = (float4)(v2, 0.0f, 1.0f);
    float4 b = (float4)(x);
    float4 c = (float4)(1.0f, v2, 3.0f);
    float8 d = (float8)(a, (float2)(7.0f), v2.yx);
    float4 e = {1.0f, 2.0f};
    float4 f = 2;
    float3 g = (float3)(v2.y, v2);
    S s = { (int2)(3, 4), (float4)(9.0f) };
    S t = { 5, 6, 1.0f, 2.0f, 3.0f, 4.0f };
    float4 arr[3] = { a, b };
    int k = 0;
    out[k++] = a.x; out[k++] = a.y; out[k++] = a.z; out[k++] = a.w;
    out[k++] = b.w; out[k++] = c.y; out[k++] = c.z; out[k++] = c.w;
    out[k++] = d.s4; out[k++] = d.s6; out[k++] = d.s7;
    out[k++] = e.x; out[k++] = e.z; out[k++] = f.y;
    out[k++] = g.x; out[k++] = g.z;
    out[k++] = table[0].z; out[k++] = table[1].w;
    out[k++] = braced[0].y; out[k++] = braced[0].z; out[k++] = braced[1].w;
    out[k++] = splat.y;
    out[k++] = s.a.y; out[k++] = s.b.z; out[k++] = t.a.x; out[k++] = t.b.w;
    out[k++] = arr[1].y; out[k++] = arr[2].x;
}
"#;
    let x = 1.25f32;
    let got = f32s(
        &run(
            src,
            1,
            vec![("out", out(4 * 32)), ("x", A::Int(u64::from(x.to_bits())))],
        )[0],
    );
    let want = [
        x, -x, 0.0, 1.0, x, x, -x, 3.0, 7.0, -x, x, 1.0, 0.0, 2.0, -x, -x, 3.0, 0.5, 2.0, 0.0,
        10.0, 5.0, 4.0, 9.0, 5.0, 4.0, x, 0.0,
    ];
    assert_eq!(&got[..want.len()], &want);
}

/// Comparisons and logical operators give -1/0 per lane; `?:` with a vector condition
/// selects per lane by the condition's most significant bit, with a scalar condition it
/// chooses whole vectors.
#[test]
fn comparisons_logic_and_selection() {
    let src = r#"
__kernel void k(__global int *out, __global long *lout, __global const float *in) {
    float4 a = vload4(0, in);
    float4 b = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    int4 lt = a < b;
    int4 eq = a == b;
    int4 ne = a != 2.0f;
    int4 land = lt && (a > 0.0f);
    int4 lor = (int4)(0, 1, 0, 2) || (int4)(0, 0, 3, 0);
    int4 lnot = !(int4)(0, 1, -1, 0);
    int4 nf = !a;
    float4 pick = lt ? a : b;
    int4 msb = (int4)(1, -1, 0x7fffffff, (int)0x80000000) ? (int4)(10) : (int4)(20, 21, 22, 23);
    float4 whole = (in[0] > 0.0f) ? a : b;
    float4 sel2 = a > b ? 1.0f : -1.0f;
    double2 d = (double2)(1.0, (double)in[1]);
    long2 dl = d >= 1.5;
    uchar4 uc = (uchar4)(1, 200, 3, 255);
    char4 cmpc = uc > (uchar)100;
    int k = 0;
    out[k++] = lt.x; out[k++] = lt.y; out[k++] = lt.z; out[k++] = lt.w;
    out[k++] = eq.y; out[k++] = ne.y; out[k++] = ne.z;
    out[k++] = land.x; out[k++] = land.y; out[k++] = land.z; out[k++] = land.w;
    out[k++] = lor.x; out[k++] = lor.y; out[k++] = lor.z; out[k++] = lor.w;
    out[k++] = lnot.x; out[k++] = lnot.y; out[k++] = lnot.z; out[k++] = nf.w;
    out[k++] = (int)pick.x; out[k++] = (int)pick.y; out[k++] = (int)pick.z; out[k++] = (int)pick.w;
    out[k++] = msb.x; out[k++] = msb.y; out[k++] = msb.z; out[k++] = msb.w;
    out[k++] = (int)whole.z; out[k++] = (int)sel2.x; out[k++] = (int)sel2.w;
    out[k++] = cmpc.x; out[k++] = cmpc.y; out[k++] = cmpc.w;
    lout[0] = dl.x; lout[1] = dl.y;
}
"#;
    let input = [-3.0f32, 2.0, 5.0, 0.0];
    let got = run(
        src,
        1,
        vec![
            ("out", out(4 * 40)),
            ("lout", out(16)),
            ("in", f32_bytes(&input)),
        ],
    );
    let g = i32s(&got[0]);
    let want = [
        -1, 0, 0, -1, // lt
        -1, 0, -1, // eq.y ne.y ne.z
        0, 0, 0, 0, // lt && a > 0
        0, -1, -1, -1, // lor
        -1, 0, 0, -1, // lnot, !a.w
        -3, 2, 3, 0, // pick
        20, 10, 22, 10, // msb
        3, -1, -1, // whole (in[0] < 0 → b), sel2
        0, -1, -1, // cmpc
    ];
    assert_eq!(&g[..want.len()], &want);
    assert_eq!(i64s(&got[1]), [0, -1]);
}

/// `convert_TYPEN[_sat][_ROUNDING]` and `as_TYPEN`.
#[test]
fn conversions_and_reinterpretation() {
    let src = r#"
__kernel void k(__global int *out, __global const float *in) {
    float4 f = vload4(0, in);
    int4 t = convert_int4(f);
    int4 r = convert_int4_rte(f);
    int4 dn = convert_int4_rtn(f);
    uchar4 s = convert_uchar4_sat(f * 100.0f);
    char4 c = convert_char4_sat((int4)(-1000, 1000, 5, -5));
    float4 back = convert_float4((int4)(16777217, -3, 7, 0));
    double2 dd = convert_double2(f.xy);
    uint4 bits = as_uint4(f);
    float fb = as_float((uchar4)(0x00, 0x00, 0x80, 0x3f));
    int2 halves = as_int2(0x1122334455667788L);
    uchar4 bytes = as_uchar4(0xa1b2c3d4u);
    ushort2 us = as_ushort2(0xa1b2c3d4u);
    long l = as_long((int2)(-2, 0x12345678));
    char8 c8 = as_char8((long)0x80ff7f0102030405L);
    int3 i3 = as_int3(f);
    int k = 0;
    out[k++] = t.x; out[k++] = t.y; out[k++] = t.z; out[k++] = t.w;
    out[k++] = r.x; out[k++] = r.y; out[k++] = r.z; out[k++] = r.w;
    out[k++] = dn.x; out[k++] = dn.y;
    out[k++] = s.x; out[k++] = s.y; out[k++] = s.z; out[k++] = s.w;
    out[k++] = c.x; out[k++] = c.y; out[k++] = c.z; out[k++] = c.w;
    out[k++] = (int)back.x; out[k++] = (int)back.y;
    out[k++] = (int)(dd.y * 4.0);
    out[k++] = (int)bits.x; out[k++] = (int)bits.w;
    out[k++] = (int)(fb * 8.0f);
    out[k++] = halves.x; out[k++] = halves.y;
    out[k++] = bytes.x; out[k++] = bytes.w;
    out[k++] = us.x; out[k++] = us.y;
    out[k++] = (int)l; out[k++] = (int)(l >> 32);
    out[k++] = c8.s0; out[k++] = c8.s5; out[k++] = c8.s6; out[k++] = c8.s7;
    out[k++] = i3.z;
}
"#;
    let f = [2.5f32, -1.5, 3.7, 255.9];
    let g = i32s(&run(src, 1, vec![("out", out(4 * 48)), ("in", f32_bytes(&f))])[0]);
    let mut want: Vec<i32> = Vec::new();
    want.extend(f.iter().map(|x| x.trunc() as i32));
    want.extend([2, -2, 4, 256]);
    want.extend([2, -2]);
    want.extend(f.iter().map(|x| (x * 100.0).clamp(0.0, 255.0) as u8 as i32));
    want.extend([-128, 127, 5, -5]);
    want.extend([16777216, -3]);
    want.push(-6);
    want.push(f[0].to_bits() as i32);
    want.push(f[3].to_bits() as i32);
    want.push(8);
    want.extend([0x55667788, 0x11223344]);
    want.extend([0xd4, 0xa1]);
    want.extend([0xc3d4, 0xa1b2]);
    want.extend([-2, 0x12345678]);
    want.extend([5, 0x7f, -1, -128]);
    want.push(f[2].to_bits() as i32);
    assert_eq!(&g[..want.len()], &want[..]);
}
