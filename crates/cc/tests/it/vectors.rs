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
    run_with(src, false, 1, block, args)
}

/// [`run`] with contraction on or off and `groups` workgroups.
fn run_with(
    src: &str,
    contract: bool,
    groups: u32,
    block: u32,
    args: Vec<(&str, A)>,
) -> Vec<Vec<u8>> {
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
    let launch = Launch::new([groups, 1, 1], [block, 1, 1], iargs);
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
        grid: [groups, 1, 1],
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

/// Integer and common built-ins apply per lane; a scalar argument is replicated.
#[test]
fn elementwise_builtins() {
    let src = r#"
__kernel void k(__global int *out, __global float *fout, __global const float *in) {
    int4 a = (int4)(-5, 17, 300, -2147483647 - 1);
    int4 b = (int4)(3, -4, 100, 1);
    uint4 u = (uint4)(0xf0000000u, 1, 0x12345678u, 0);
    int4 mn = min(a, b), mx = max(a, 0), cl = clamp(a, -10, 20);
    uint4 ab = abs(a);
    int4 m24 = mul24(a, b), ma24 = mad24(a, b, (int4)(1));
    int4 mh = mul_hi(a, (int4)(0x40000000));
    uint4 rot = rotate(u, (uint4)(4, 31, 8, 1));
    uint4 pc = popcount(u);
    uint4 lz = clz(u);
    uchar4 sat = add_sat((uchar4)(250, 1, 128, 0), (uchar4)(10, 2, 128, 0));
    short2 ups = upsample((char2)(1, -1), (uchar2)(2, 255));
    int2 bs = bitselect((int2)(0x0f0f0f0f), (int2)(0x70707070), (int2)(0x00ff00ff, 0));
    float4 f = vload4(0, in);
    float4 fa = fabs(f), fmn = fmin(f, 1.0f), fmx = fmax(f, (float4)(0.0f, 0.0f, 10.0f, -1.0f));
    float4 fm = fma(f, f, 1.0f), md = mad(f, 2.0f, f);
    float4 sq = sqrt(fabs(f));
    float4 fl = floor(f), ce = ceil(f);
    float4 mi = mix(f, (float4)(10.0f), 0.5f);
    float4 st = step(0.0f, f);
    float4 cls = clamp(f, -1.0f, 1.0f);
    float4 sg = sign(f);
    float4 cs = copysign((float4)(1.0f), f);
    int k = 0;
    out[k++] = mn.x; out[k++] = mn.y; out[k++] = mx.x; out[k++] = mx.z;
    out[k++] = cl.x; out[k++] = cl.z; out[k++] = cl.w;
    out[k++] = (int)ab.x; out[k++] = (int)ab.w;
    out[k++] = m24.x; out[k++] = m24.z; out[k++] = ma24.y;
    out[k++] = mh.y; out[k++] = mh.w;
    out[k++] = (int)rot.x; out[k++] = (int)rot.y; out[k++] = (int)rot.z; out[k++] = (int)rot.w;
    out[k++] = (int)pc.x; out[k++] = (int)pc.z; out[k++] = (int)lz.y; out[k++] = (int)lz.w;
    out[k++] = sat.x; out[k++] = sat.y; out[k++] = sat.z;
    out[k++] = ups.x; out[k++] = ups.y;
    out[k++] = bs.x; out[k++] = bs.y;
    int j = 0;
    vstore4(fa, j++, fout); vstore4(fmn, j++, fout); vstore4(fmx, j++, fout);
    vstore4(fm, j++, fout); vstore4(md, j++, fout); vstore4(sq, j++, fout);
    vstore4(fl, j++, fout); vstore4(ce, j++, fout); vstore4(mi, j++, fout);
    vstore4(st, j++, fout); vstore4(cls, j++, fout); vstore4(sg, j++, fout);
    vstore4(cs, j++, fout);
}
"#;
    let f = [-2.5f32, 0.75, 9.0, -0.0];
    let got = run(
        src,
        1,
        vec![
            ("out", out(4 * 40)),
            ("fout", out(4 * 4 * 13)),
            ("in", f32_bytes(&f)),
        ],
    );
    let g = i32s(&got[0]);
    let a = [-5i32, 17, 300, i32::MIN];
    let b = [3i32, -4, 100, 1];
    let u = [0xf000_0000u32, 1, 0x1234_5678, 0];
    let m24 = |x: i32, y: i32| ((x << 8) >> 8).wrapping_mul((y << 8) >> 8);
    let want: Vec<i32> = vec![
        -5,
        -4,
        0,
        300,
        -5,
        20,
        -10,
        5,
        i32::MIN,
        m24(a[0], b[0]),
        m24(a[2], b[2]),
        m24(a[1], b[1]) + 1,
        ((i64::from(a[1]) * 0x4000_0000) >> 32) as i32,
        ((i64::from(a[3]) * 0x4000_0000) >> 32) as i32,
        u[0].rotate_left(4) as i32,
        u[1].rotate_left(31) as i32,
        u[2].rotate_left(8) as i32,
        u[3].rotate_left(1) as i32,
        4,
        13,
        31,
        32,
        255,
        3,
        255,
        (1i16 << 8 | 2) as i32,
        ((-1i16) << 8 | 255) as i32,
        (0x0f0f0f0f & !0x00ff00ff) | (0x70707070 & 0x00ff00ff),
        0x0f0f0f0f,
    ];
    assert_eq!(&g[..want.len()], &want[..]);
    let fo = f32s(&got[1]);
    let per = |h: &dyn Fn(f32, usize) -> f32| -> Vec<f32> { (0..4).map(|i| h(f[i], i)).collect() };
    let fmx_b = [0.0f32, 0.0, 10.0, -1.0];
    let sign = |x: f32| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            x
        }
    };
    let expect: Vec<Vec<f32>> = vec![
        per(&|x, _| x.abs()),
        per(&|x, _| x.min(1.0)),
        per(&|x, i| x.max(fmx_b[i])),
        per(&|x, _| x.mul_add(x, 1.0)),
        per(&|x, _| x.mul_add(2.0, x)),
        per(&|x, _| x.abs().sqrt()),
        per(&|x, _| x.floor()),
        per(&|x, _| x.ceil()),
        per(&|x, _| x + (10.0 - x) * 0.5),
        per(&|x, _| if x < 0.0 { 0.0 } else { 1.0 }),
        per(&|x, _| x.clamp(-1.0, 1.0)),
        per(&|x, _| sign(x)),
        per(&|x, _| 1.0f32.copysign(x)),
    ];
    for (j, e) in expect.iter().enumerate() {
        let g = &fo[4 * j..4 * j + 4];
        let same = g.iter().zip(e).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "function {j}: got {g:?}, want {e:?}");
    }
}

/// Relational built-ins on vectors give -1/0 of the element's size; `select` and
/// `any`/`all` read most significant bits.
#[test]
fn relational_builtins() {
    let src = r#"
__kernel void k(__global int *out, __global long *lout, __global const float *in) {
    float4 f = vload4(0, in);
    float4 g = (float4)(1.0f, 1.0f, 1.0f, 1.0f);
    int4 nan = isnan(f), inf = isinf(f), fin = isfinite(f), sb = signbit(f);
    int4 eq = isequal(f, g), gt = isgreater(f, g), un = isunordered(f, g);
    int4 sc = select((int4)(1, 2, 3, 4), (int4)(10, 20, 30, 40), (int4)(-1, 0, 0x80000000, 1));
    float4 sf = select(f, g, (uint4)(0, 0xffffffffu, 0, 0x80000000u));
    double2 d = (double2)(-1.0, 2.0);
    long2 dsb = signbit(d);
    int k = 0;
    out[k++] = nan.x; out[k++] = nan.z; out[k++] = inf.y; out[k++] = inf.z;
    out[k++] = fin.x; out[k++] = fin.w; out[k++] = sb.w; out[k++] = sb.x;
    out[k++] = eq.x; out[k++] = eq.w; out[k++] = gt.y; out[k++] = un.z;
    out[k++] = sc.x; out[k++] = sc.y; out[k++] = sc.z; out[k++] = sc.w;
    out[k++] = (int)sf.x; out[k++] = (int)sf.y; out[k++] = (int)sf.w;
    out[k++] = any((int4)(0, 1, 2, 3)); out[k++] = any((int4)(0, 1, 2, -3));
    out[k++] = all((char2)(-1, -128)); out[k++] = all((char2)(-1, 127));
    out[k++] = any((uchar4)(0, 0, 0x80, 0)); out[k++] = any(-5);
    out[k++] = isnan(in[2]);
    lout[0] = dsb.x; lout[1] = dsb.y;
}
"#;
    let f = [1.0f32, f32::INFINITY, f32::NAN, -3.0];
    let got = run(
        src,
        1,
        vec![
            ("out", out(4 * 32)),
            ("lout", out(16)),
            ("in", f32_bytes(&f)),
        ],
    );
    let want = [
        0, -1, -1, 0, -1, -1, -1, 0, -1, 0, -1, -1, 10, 2, 30, 4, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1,
    ];
    let g = i32s(&got[0]);
    assert_eq!(&g[..want.len()], &want);
    assert_eq!(i64s(&got[1]), [-1, 0]);
}

/// Geometric functions: `dot` adds left to right with each product and sum rounded
/// (`fma` chains with contraction), `length` is `sqrt(dot(p, p))`.
#[test]
fn geometric_builtins() {
    let src = r#"
__kernel void k(__global float *out, __global const float *in) {
    float4 p = vload4(0, in);
    float4 q = vload4(1, in);
    float3 a = p.xyz, b = q.xyz;
    int k = 0;
    out[k++] = dot(p, q);
    out[k++] = dot(a, b);
    out[k++] = dot(p.xy, q.zw);
    out[k++] = dot(in[0], in[5]);
    out[k++] = length(p);
    out[k++] = length(b.xy);
    out[k++] = length(-3.0f);
    out[k++] = distance(p, q);
    float3 c = cross(a, b);
    out[k++] = c.x; out[k++] = c.y; out[k++] = c.z;
    float4 c4 = cross(p, q);
    out[k++] = c4.w;
    float4 n = normalize(p);
    out[k++] = n.x; out[k++] = n.y; out[k++] = n.z; out[k++] = n.w;
    float4 z = normalize((float4)(0.0f));
    out[k++] = z.y;
    out[k++] = normalize(-2.0f);
    out[k++] = fast_length(q);
    float4 fnrm = fast_normalize(q);
    out[k++] = fnrm.x; out[k++] = fnrm.y; out[k++] = fnrm.z; out[k++] = fnrm.w;
}
"#;
    let input = [1.5f32, -2.25, 3.0, 0.5, 0.1, 7.0, -1.0, 2.5];
    let run_it = |contract: bool| {
        f32s(
            &run_with(
                src,
                contract,
                1,
                1,
                vec![("out", out(4 * 32)), ("in", f32_bytes(&input))],
            )[0],
        )
    };
    let (p, q) = (&input[..4], &input[4..]);
    let dot = |x: &[f32], y: &[f32], fused: bool| {
        let mut acc = x[0] * y[0];
        for i in 1..x.len() {
            acc = if fused {
                x[i].mul_add(y[i], acc)
            } else {
                acc + x[i] * y[i]
            };
        }
        acc
    };
    for contract in [false, true] {
        let g = run_it(contract);
        let len = |x: &[f32]| dot(x, x, contract).sqrt();
        let d: Vec<f32> = (0..4).map(|i| p[i] - q[i]).collect();
        let cr = [
            p[1] * q[2] - p[2] * q[1],
            p[2] * q[0] - p[0] * q[2],
            p[0] * q[1] - p[1] * q[0],
        ];
        let lp = len(p);
        let want = [
            dot(p, q, contract),
            dot(&p[..3], &q[..3], contract),
            dot(&p[..2], &q[2..], contract),
            input[0] * input[5],
            lp,
            len(&q[..2]),
            3.0,
            len(&d),
            cr[0],
            cr[1],
            cr[2],
            0.0,
            p[0] / lp,
            p[1] / lp,
            p[2] / lp,
            p[3] / lp,
            0.0,
            -1.0,
            len(q),
        ];
        assert_eq!(&g[..want.len()], &want, "contraction {contract}");
        // fast_normalize uses the hardware's reciprocal square root (1 ulp).
        let lq = len(q);
        for i in 0..4 {
            let exact = q[i] / lq;
            let got = g[want.len() + i];
            assert!(
                (got - exact).abs() <= 2.0 * f32::EPSILON * exact.abs().max(f32::MIN_POSITIVE),
                "fast_normalize lane {i}: {got} vs {exact}"
            );
        }
    }
}

/// `vloadN`/`vstoreN` at element offsets (not vector-aligned), `vload3`/`vstore3` packed,
/// and the `half` forms.
#[test]
fn vload_vstore_and_half() {
    let src = r#"
__kernel void k(__global float *f, __global half *h, __global int *ints) {
    int i = get_global_id(0);
    float3 a = vload3(i, f);
    vstore3(a.zyx + 1.0f, i, f + 12);
    int2 b = vload2(1, ints + i);
    vstore2(b * 2, 4 + i, ints);
    float4 hv = vload_half4(i, h);
    vstore_half4(hv * 2.0f, i + 8, h);
    float one = vload_half(i, h + 16);
    vstore_half_rte(one + 0.5f, i, h + 20);
    float3 h3 = vloada_half3(i, h);
    vstorea_half3(h3, i, h + 48);
    float8 e = vload8(0, f);
    vstore8(e.s76543210, 0, f + 24);
}
"#;
    let n = 4usize;
    let f: Vec<f32> = (0..32).map(|k| k as f32 * 0.5).collect();
    let hvals: Vec<f32> = (0..64).map(|k| k as f32 * 0.25 - 2.0).collect();
    let to_half = |x: f32| half_bits(x);
    let h: Vec<u8> = hvals
        .iter()
        .flat_map(|&x| to_half(x).to_le_bytes())
        .collect();
    let ints: Vec<i32> = (0..16).map(|k| k * 11 - 5).collect();
    let got = run(
        src,
        n as u32,
        vec![
            ("f", f32_bytes(&f)),
            ("h", A::Buf(h.clone())),
            ("ints", i32_bytes(&ints)),
        ],
    );
    let gf = f32s(&got[0]);
    let mut wf = f.clone();
    for i in 0..n {
        let a = &f[3 * i..3 * i + 3];
        wf[12 + 3 * i] = a[2] + 1.0;
        wf[12 + 3 * i + 1] = a[1] + 1.0;
        wf[12 + 3 * i + 2] = a[0] + 1.0;
    }
    for k in 0..8 {
        wf[24 + k] = f[7 - k];
    }
    assert_eq!(gf, wf);
    let mut wi = ints.clone();
    for i in 0..n {
        wi[8 + 2 * i] = ints[i + 2] * 2;
        wi[9 + 2 * i] = ints[i + 3] * 2;
    }
    assert_eq!(i32s(&got[2]), wi);
    let gh: Vec<u16> = got[1]
        .chunks(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut wh: Vec<u16> = hvals.iter().map(|&x| to_half(x)).collect();
    for i in 0..n {
        for c in 0..4 {
            wh[(i + 8) * 4 + c] = to_half(hvals[4 * i + c] * 2.0);
        }
        wh[20 + i] = to_half(hvals[16 + i] + 0.5);
        for c in 0..3 {
            wh[48 + 4 * i + c] = to_half(hvals[4 * i + c]);
        }
    }
    assert_eq!(gh, wh);
}

/// The IEEE binary16 encoding of `x` (exact halves only: the test values are).
fn half_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x == 0.0 {
        return sign;
    }
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&exp), "{x} is not a normal half");
    let mant = b & 0x7f_ffff;
    assert_eq!(mant & 0x1fff, 0, "{x} is not exact in half");
    sign | ((exp as u16) << 10) | (mant >> 13) as u16
}

/// Vectors through helper functions, loops, `if`s, private arrays, address-taken variables,
/// `__local` memory and pointer arithmetic in units of the vector.
#[test]
fn vectors_in_functions_control_flow_and_memory() {
    let src = r#"
typedef struct { float4 pos; float4 vel; } Body;

float4 step_pos(float4 p, float4 v, float dt) {
    return p + v * (float4)(dt, dt, dt, 0.0f);
}

int2 swap2(int2 v) {
    if (v.x > v.y)
        return v.yx;
    return v;
}

void bump(float4 *p) { p->x += 1.0f; (*p).w = 8.0f; }

Body advance(Body b) { b.pos = step_pos(b.pos, b.vel, 0.5f); return b; }

__kernel void k(__global float4 *out, __global int2 *pairs, __global const float4 *in, int n) {
    __local float4 tile[8];
    int i = get_local_id(0);
    tile[i] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 acc = (float4)(0.0f);
    for (int j = 0; j < n; j++) {
        float4 o = tile[(i + j) % 8];
        if (o.x > 2.0f)
            acc += o;
        else
            acc.xy -= o.zw;
    }
    float4 arr[4];
    for (int j = 0; j < 4; j++)
        arr[j] = (float4)((float)j, (float)(j * i), 1.0f, 2.0f);
    float4 mine = arr[i % 4];
    bump(&mine);
    Body b = { in[i], (float4)(2.0f) };
    b = advance(b);
    __global float4 *p = out + 3 * i;
    *p++ = acc;
    *p++ = mine;
    p[0] = b.pos;
    pairs[i] = swap2(pairs[i]);
    __global float4 *q = out + 3 * i;
    int dist = (int)(p - q);
    out[3 * 8 + i] = (float4)((float)dist, (float)sizeof(*p), 0.0f, 0.0f);
}
"#;
    let nb = 8usize;
    let input: Vec<f32> = (0..4 * nb).map(|k| ((k * 7) % 11) as f32 * 0.5).collect();
    let pairs: Vec<i32> = (0..2 * nb as i32).map(|k| (k * 5) % 7).collect();
    let n = 5;
    let got = run(
        src,
        nb as u32,
        vec![
            ("out", out(16 * 4 * nb)),
            ("pairs", i32_bytes(&pairs)),
            ("in", f32_bytes(&input)),
            ("n", A::Int(n as u64)),
        ],
    );
    let g = f32s(&got[0]);
    let v = |k: usize| &input[4 * k..4 * k + 4];
    for i in 0..nb {
        let mut acc = [0.0f32; 4];
        for j in 0..n {
            let o = v((i + j) % 8);
            if o[0] > 2.0 {
                for c in 0..4 {
                    acc[c] += o[c];
                }
            } else {
                acc[0] -= o[2];
                acc[1] -= o[3];
            }
        }
        assert_eq!(&g[12 * i..12 * i + 4], &acc, "acc {i}");
        let j = i % 4;
        let mine = [j as f32 + 1.0, (j * i) as f32, 1.0, 8.0];
        assert_eq!(&g[12 * i + 4..12 * i + 8], &mine, "mine {i}");
        let pos: Vec<f32> = (0..4)
            .map(|c| v(i)[c] + 2.0 * if c < 3 { 0.5 } else { 0.0 })
            .collect();
        assert_eq!(&g[12 * i + 8..12 * i + 12], &pos[..], "pos {i}");
        assert_eq!(&g[96 + 4 * i..96 + 4 * i + 2], &[2.0, 16.0]);
    }
    let gp = i32s(&got[1]);
    for i in 0..nb {
        let (x, y) = (pairs[2 * i], pairs[2 * i + 1]);
        assert_eq!(&gp[2 * i..2 * i + 2], &[x.min(y), x.max(y)]);
    }
}

/// With contraction, `a*b + c` on float vectors is one `fma` per lane.
#[test]
fn contraction_on_vectors() {
    let src = r#"
__kernel void k(__global float4 *out, __global const float4 *in) {
    float4 a = in[0], b = in[1], c = in[2];
    out[0] = a * b + c;
    out[1] = c - a * b;
    float4 d = c;
    d += a * b;
    out[2] = d;
    out[3] = a * b - 1.0f;
}
"#;
    let input = [
        1.0f32 + f32::EPSILON,
        3.0,
        -0.1,
        1e8,
        1.0 - f32::EPSILON,
        1.0 / 3.0,
        7.0,
        1e-8,
        -1.0,
        -1.0,
        0.7,
        -1.0,
    ];
    let (a, b, c) = (&input[..4], &input[4..8], &input[8..]);
    for contract in [false, true] {
        let g = f32s(
            &run_with(
                src,
                contract,
                1,
                1,
                vec![("out", out(64)), ("in", f32_bytes(&input))],
            )[0],
        );
        for l in 0..4 {
            let (x, y, z) = (a[l], b[l], c[l]);
            let want = if contract {
                [
                    x.mul_add(y, z),
                    (-x).mul_add(y, z),
                    x.mul_add(y, z),
                    x.mul_add(y, -1.0),
                ]
            } else {
                [x * y + z, z - x * y, z + x * y, x * y - 1.0]
            };
            for (r, w) in want.iter().enumerate() {
                assert_eq!(
                    g[4 * r + l].to_bits(),
                    w.to_bits(),
                    "contract {contract}, row {r}, lane {l}"
                );
            }
        }
    }
}

/// OpenCL's errors about vectors, in clang's words.
#[test]
fn diagnostics() {
    let cases: &[(&str, &str)] = &[
        (
            "__kernel void k(__global float *o) { float2 v = (float2)(1.0f); o[0] = v.z; }",
            "k.cl:1:72: error: vector component access exceeds type 'float2'",
        ),
        (
            "__kernel void k(__global float *o) { float4 v = 1.0f; o[0] = v.xq; }",
            "error: illegal vector component name 'q'",
        ),
        (
            "__kernel void k(__global float *o) { float4 v = 1.0f; o[0] = v.xs0; }",
            "error: illegal vector component name 's'",
        ),
        (
            "__kernel void k(__global float *o) { float3 v = 1.0f; o[0] = v.w; }",
            "error: vector component access exceeds type 'float3'",
        ),
        (
            "__kernel void k(__global float *o) { float8 v = 1.0f; o[0] = v.s01234.x; }",
            "error: vector component access has invalid length 5.  Supported: 1,2,3,4,8,16.",
        ),
        (
            "__kernel void k(__global float *o) { float4 v = 1.0f; v.xx = (float2)(1.0f, 2.0f); }",
            "error: vector is not assignable (contains duplicate components)",
        ),
        (
            "__kernel void k(__global float *o) { float4 v = 1.0f; (v + v).x = 1.0f; }",
            "error: expression is not assignable",
        ),
        (
            "__kernel void k(__global float *o) { float4 v = 1.0f; float *p = &v.x; }",
            "error: address of vector element requested",
        ),
        (
            "__kernel void k(__global float4 *o, __global int4 *i) { o[0] = o[0] + i[0]; }",
            "error: implicit conversions between vector types ('float4' and 'int4') are not permitted",
        ),
        (
            "__kernel void k(__global float4 *o) { o[0] = o[0] * 2.0; }",
            "error: scalar operand type has greater rank than the type of the vector element. ('float4' and 'double')",
        ),
        (
            "__kernel void k(__global uchar4 *o, int x) { o[0] = o[0] + x; }",
            "error: scalar operand type has greater rank than the type of the vector element. ('uchar4' and 'int')",
        ),
        (
            "__kernel void k(__global int4 *o) { o[0] = o[0] + 1u; }",
            "error: scalar operand type has greater rank than the type of the vector element. ('int4' and 'uint')",
        ),
        (
            "__kernel void k(__global float4 *o, __global float *p) { o[0] = o[0] + p; }",
            "error: cannot convert between vector and non-scalar values ('float4' and '__global float *')",
        ),
        (
            "__kernel void k(__global float4 *o, __global int4 *i) { o[0] = i[0]; }",
            "error: assigning to 'float4' from incompatible type 'int4'",
        ),
        (
            "__kernel void k(__global float *o, float4 v) { }",
            "error: unsupported: vector kernel parameter 'v'",
        ),
        (
            "__kernel void k(__global float4 *o, __global int4 *i) { o[0] = (float4)i[0]; }",
            "error: invalid conversion between ext-vector type 'float4' and 'int4'",
        ),
        (
            "__kernel void k(__global float *o, __global float4 *i) { o[0] = (float)i[0]; }",
            "error: invalid conversion between vector type 'float4' and scalar type 'float'",
        ),
        (
            "__kernel void k(__global float4 *o) { o[0] = (float4)(1.0f, 2.0f); }",
            "error: too few elements in vector initialization (expected 4 elements, have 2)",
        ),
        (
            "__kernel void k(__global float2 *o) { o[0] = (float2)(1.0f, 2.0f, 3.0f); }",
            "error: too many elements in vector initialization (expected 2 elements, have 3)",
        ),
        (
            "__kernel void k(__global float4 *o, __global int2 *i) { o[0] = (float4)(i[0], 1.0f, 2.0f); }",
            "error: initializing 'float2' with an expression of incompatible type 'int2'",
        ),
        (
            "__kernel void k(__global int *o, __global int4 *i) { o[0] = 1 << i[0]; }",
            "error: requested shift is a vector of type 'int4' but the first operand is not a vector ('int')",
        ),
        (
            "__kernel void k(__global int4 *o, __global int2 *i) { o[0] = o[0] << i[0]; }",
            "error: vector operands do not have the same number of elements ('int4' and 'int2')",
        ),
        (
            "__kernel void k(__global float4 *o) { o[0] = o[0] % 2.0f; }",
            "error: invalid operands to binary expression ('float4' and 'float')",
        ),
        (
            "__kernel void k(__global float4 *o) { o[0] = ~o[0]; }",
            "error: invalid argument type 'float4' to unary expression",
        ),
        (
            "__kernel void k(__global int2 *o, __global char2 *c) { o[0] = c[0] ? o[0] : o[1]; }",
            "error: vector condition type 'char2' and result type 'int2' do not have elements of the same size",
        ),
        (
            "__kernel void k(__global int2 *o, __global int4 *c) { o[0] = c[0] ? o[0] : o[1]; }",
            "error: vector condition type 'int4' and result type 'int2' do not have the same number of elements",
        ),
        (
            "__kernel void k(__global float2 *o) { o[0] = o[0] ? o[0] : o[1]; }",
            "error: used type 'float2' where floating point type is not allowed",
        ),
        (
            "__kernel void k(__global float4 *o) { if (o[0] > 0.0f) o[0] = 1.0f; }",
            "error: statement requires expression of scalar type ('int4' invalid)",
        ),
        (
            "__kernel void k(__global float *o, __global float4 *i) { o[0] = as_float(i[0]); }",
            "error: invalid reinterpretation: sizes of 'float' and 'float4' must match",
        ),
        (
            "__kernel void k(__global int4 *o, __global float2 *i) { o[0] = convert_int4(i[0]); }",
            "error: no matching function for call to 'convert_int4'",
        ),
        (
            "__kernel void k(__global float *o, __global int4 *i) { o[0] = dot(i[0], i[0]); }",
            "error: no matching function for call to 'dot'",
        ),
        (
            "__kernel void k(__global float *o, __global float4 *i) { o[0] = i[0].x.y; }",
            "error: member reference base type '__global float' is not a structure or union",
        ),
    ];
    for (src, want) in cases {
        let got = errors(src);
        assert!(got.contains(want), "for {src}\nwant: {want}\ngot:\n{got}");
    }
}

/// Conversions OpenCL allows implicitly: a scalar to a vector by assignment (any
/// arithmetic scalar), a scalar of lower rank in an operator.
#[test]
fn implicit_scalar_to_vector_is_silent() {
    let text = warnings(
        "__kernel void k(__global float4 *o, __global uchar4 *u, __global long2 *l) {
            float4 v = 1;
            v = 2.5;
            v = v * 2 + (char)1;
            u[0] = 3;
            u[0] = u[0] + (uchar)1;
            l[0] = l[0] * 5 + 1u;
            o[0] = v;
        }",
    );
    assert!(text.is_empty(), "{text}");
}

/// A kernel in the style of SHOC's radix sort: digit counts of `uint4` keys per block,
/// reduced in `__local` memory.
const SHOC_SORT_REDUCE: &str = r#"
#define RADIX 4
#define BUCKETS (1 << RADIX)
__kernel void reduce(__global const uint4 *in, __global uint *isums, const int n,
                     __local uint *lmem, const int shift)
{
    const int region_size = ((n / 4) / get_num_groups(0)) * 4;
    const int block_start = get_group_id(0) * region_size;
    const int block_stop = (get_group_id(0) == get_num_groups(0) - 1) ? n : block_start + region_size;
    int tid = get_local_id(0);
    int i = block_start / 4 + tid;
    int end = block_stop / 4;
    int digit_counts[BUCKETS] = { 0 };
    while (i < end) {
        uint4 lval = in[i];
        uint4 digits = (lval >> (uint4)shift) & (uint4)(BUCKETS - 1);
        digit_counts[digits.x]++;
        digit_counts[digits.y]++;
        digit_counts[digits.z]++;
        digit_counts[digits.w]++;
        i += get_local_size(0);
    }
    for (int d = 0; d < BUCKETS; d++) {
        lmem[tid] = digit_counts[d];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (unsigned int s = get_local_size(0) / 2; s > 0; s >>= 1) {
            if (tid < s)
                lmem[tid] += lmem[tid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (tid == 0)
            isums[(d * get_num_groups(0)) + get_group_id(0)] = lmem[0];
    }
}
"#;

/// A kernel in the style of SHOC's scan: each work-item scans a `uint4` of its own, the
/// block scans the totals in `__local` memory.
const SHOC_SCAN: &str = r#"
inline uint4 scan4(uint4 v) {
    uint4 r = v;
    r.y += r.x;
    r.z += r.y;
    r.w += r.z;
    return r;
}

inline uint scan_local(uint val, __local uint *s_data, int idx) {
    s_data[idx] = 0;
    idx += get_local_size(0);
    s_data[idx] = val;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 1; i < get_local_size(0); i *= 2) {
        uint t = s_data[idx - i];
        barrier(CLK_LOCAL_MEM_FENCE);
        s_data[idx] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return s_data[idx - 1];
}

__kernel void bottom_scan(__global const float4 *in, __global float4 *out, __global const float *isums,
                          const int n, __local uint *lmem)
{
    __local float s_seed;
    int tid = get_local_id(0);
    uint4 v = convert_uint4(in[get_group_id(0) * get_local_size(0) + tid]);
    uint4 sums = scan4(v);
    uint prefix = scan_local(sums.w, lmem, tid);
    if (tid == 0)
        s_seed = isums[get_group_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 res = convert_float4(sums + (uint4)prefix) + (float4)(s_seed);
    vstore4(res, get_group_id(0) * get_local_size(0) + tid, (__global float *)out);
}
"#;

/// An N-body step in the style of the vendor SDK samples: `float4` positions with the mass
/// in `w`, tiles of bodies in `__local` memory.
const NBODY: &str = r#"
#define TILE 8
__kernel void nbody_sim(__global const float4 *pos, __global const float4 *vel, int numBodies,
                        float deltaTime, float epsSqr,
                        __global float4 *newPosition, __global float4 *newVelocity)
{
    __local float4 localPos[TILE];
    unsigned int tid = get_local_id(0);
    unsigned int gid = get_global_id(0);
    unsigned int numTiles = numBodies / TILE;
    float4 myPos = pos[gid];
    float4 acc = (float4)0.0f;
    for (int i = 0; i < numTiles; ++i) {
        localPos[tid] = pos[i * TILE + tid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < TILE; ++j) {
            float4 r = localPos[j] - myPos;
            float distSqr = r.x * r.x + r.y * r.y + r.z * r.z;
            float invDist = 1.0f / sqrt(distSqr + epsSqr);
            float invDistCube = invDist * invDist * invDist;
            float s = localPos[j].w * invDistCube;
            acc += s * r;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float4 oldVel = vel[gid];
    float4 newPos = myPos + oldVel * deltaTime + acc * 0.5f * deltaTime * deltaTime;
    newPos.w = myPos.w;
    float4 newVel = oldVel + acc * deltaTime;
    newPosition[gid] = newPos;
    newVelocity[gid] = newVel;
}
"#;

/// Fragments in the style of Rodinia's mergesort: sorting networks on `float4`, and the
/// bitonic merge of two sorted `float4`s.
const MERGESORT: &str = r#"
float4 sortElem(float4 r) {
    float4 nr;
    nr.xz = min(r.xz, r.yw);
    nr.yw = max(r.xz, r.yw);
    r.xy = min(nr.xy, nr.wz);
    r.wz = max(nr.xy, nr.wz);
    nr.xz = min(r.xz, r.yw);
    nr.yw = max(r.xz, r.yw);
    return nr;
}

float4 getLowest(float4 a, float4 b) {
    a.x = (a.x < b.w) ? a.x : b.w;
    a.y = (a.y < b.z) ? a.y : b.z;
    a.z = (a.z < b.y) ? a.z : b.y;
    a.w = (a.w < b.x) ? a.w : b.x;
    return a;
}

float4 getHighest(float4 a, float4 b) {
    b.x = (a.w >= b.x) ? a.w : b.x;
    b.y = (a.z >= b.y) ? a.z : b.y;
    b.z = (a.y >= b.z) ? a.y : b.z;
    b.w = (a.x >= b.w) ? a.x : b.w;
    return b;
}

float4 bitonic4(float4 r) {
    float4 nr;
    nr.xy = min(r.xy, r.zw);
    nr.zw = max(r.xy, r.zw);
    r.xz = min(nr.xz, nr.yw);
    r.yw = max(nr.xz, nr.yw);
    return r;
}

__kernel void mergeSortPass(__global const float4 *input, __global float4 *result, const int nrElems)
{
    int gid = get_global_id(0);
    if (gid * 2 + 1 >= nrElems)
        return;
    float4 A = sortElem(input[2 * gid]);
    float4 B = sortElem(input[2 * gid + 1]);
    float4 lo = getLowest(A, B);
    float4 hi = getHighest(A, B);
    result[2 * gid] = bitonic4(lo);
    result[2 * gid + 1] = bitonic4(hi);
}
"#;

/// Idioms of the vendor SDK samples: macros and typedefs for vector types, `__constant`
/// vector tables, vector helpers, geometric and relational built-ins, `__local` vector
/// pointers, saturating conversions with rounding, component writes through pointers.
const SDK_IDIOMS: &str = r#"
#define F4(x) ((float4)(x))
typedef float4 vec4;
__constant float4 weights[3] = { (float4)(0.25f), (float4)(0.5f, 0.5f, 0.5f, 0.0f), 1.0f };

float4 shade(float4 c, float3 n, float3 l) {
    float d = max(dot(n, l), 0.0f);
    float3 rgb = c.xyz * d;
    return (float4)(rgb, c.w);
}

__kernel void idioms(__global float4 *img, __global const uchar4 *src, __global uint4 *keys,
                     __global float *flat, __local float4 *scratch, int w, float k)
{
    size_t gid = get_global_id(0);
    int2 pos = (int2)(get_global_id(0), get_global_id(1));
    uint4 gid4 = (uint4)(gid);
    float4 px = convert_float4(src[gid]) * (1.0f / 255.0f);
    vec4 a = F4(0), b = F4(1.0f);
    a.s0123 = b.s3210;
    px = clamp(px, (float4)0.0f, (float4)1.0f);
    px = select(px, a, isgreater(px, (float4)(0.5f)));
    float3 n = normalize(px.xyz - (float3)(0.5f));
    px.xyz = cross(n, (float3)(0.0f, 0.0f, 1.0f));
    px = shade(px, n, (float3)(0.0f, 1.0f, 0.0f));
    px = mad(px, weights[gid % 3], (float4)(k));
    px = native_divide(px, (float4)(2.0f)) + native_sqrt(fabs(px));
    int4 m = px > 0.5f;
    if (any(m))
        px.w = 1.0f;
    scratch[get_local_id(0)] = px;
    barrier(CLK_LOCAL_MEM_FENCE);
    px += scratch[(get_local_id(0) + 1) % get_local_size(0)];
    img[pos.y * w + pos.x] = px;
    vstore4(px, gid, flat);
    ushort4 q = convert_ushort4_sat_rte(px * 65535.0f);
    keys[gid] = convert_uint4(q) ^ gid4 ^ (keys[gid] >> 4u) + (uint4)(1, 2, 3, 4) * (uint)w;
    uint4 k4 = keys[gid];
    uint sum = k4.x + k4.y + k4.z + k4.w;
    keys[gid].s2 = sum;
    float4 *pp = &a;
    pp->y = 3.0f;
    float accum = 0.0f;
    for (int i = 0; i < 4; ++i)
        accum += a[i];
    flat[gid] = accum + vec_step(a);
}
"#;

/// Kernels in the style of public suites compile to assembly.
#[test]
fn suite_style_kernels_compile() {
    for (name, src) in [
        ("sort reduce", SHOC_SORT_REDUCE),
        ("scan", SHOC_SCAN),
        ("nbody", NBODY),
        ("mergesort", MERGESORT),
        ("sdk idioms", SDK_IDIOMS),
    ] {
        let c = warpkit_cc::compile_source("k.cl", src, &warpkit_cc::Options::default())
            .unwrap_or_else(|f| panic!("{name}: {}", f.render()));
        assert!(c.assembly.contains(".kernel"), "{name}");
    }
}

#[test]
fn nbody_step_runs() {
    let n = 16usize;
    let pos: Vec<f32> = (0..4 * n)
        .map(|k| {
            if k % 4 == 3 {
                1.0 + (k / 4) as f32 * 0.125
            } else {
                ((k * 37) % 17) as f32 * 0.25 - 2.0
            }
        })
        .collect();
    let vel: Vec<f32> = (0..4 * n).map(|k| ((k * 11) % 7) as f32 * 0.1).collect();
    let (dt, eps) = (0.01f32, 0.5f32);
    // Two workgroups of 8: the tile size.
    let got = run_with(
        NBODY,
        false,
        2,
        8,
        vec![
            ("pos", f32_bytes(&pos)),
            ("vel", f32_bytes(&vel)),
            ("numBodies", A::Int(n as u64)),
            ("deltaTime", A::Int(u64::from(dt.to_bits()))),
            ("epsSqr", A::Int(u64::from(eps.to_bits()))),
            ("newPosition", out(16 * n)),
            ("newVelocity", out(16 * n)),
        ],
    );
    let (gp, gv) = (f32s(&got[5]), f32s(&got[6]));
    for g in 0..n {
        let my = &pos[4 * g..4 * g + 4];
        let mut acc = [0.0f32; 4];
        for j in 0..n {
            let o = &pos[4 * j..4 * j + 4];
            let r: Vec<f32> = (0..4).map(|c| o[c] - my[c]).collect();
            let dist_sqr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            let inv = 1.0 / (dist_sqr + eps).sqrt();
            let cube = inv * inv * inv;
            let s = o[3] * cube;
            for c in 0..4 {
                acc[c] += s * r[c];
            }
        }
        let v = &vel[4 * g..4 * g + 4];
        let mut np: Vec<f32> = (0..4)
            .map(|c| my[c] + v[c] * dt + acc[c] * 0.5 * dt * dt)
            .collect();
        np[3] = my[3];
        let nv: Vec<f32> = (0..4).map(|c| v[c] + acc[c] * dt).collect();
        assert_eq!(&gp[4 * g..4 * g + 4], &np[..], "position {g}");
        assert_eq!(&gv[4 * g..4 * g + 4], &nv[..], "velocity {g}");
    }
}

#[test]
fn mergesort_fragments_sort() {
    let groups = 8usize;
    let input: Vec<f32> = (0..8 * groups)
        .map(|k| ((k * 29 + 3) % 23) as f32 - 11.5)
        .collect();
    let got = run(
        MERGESORT,
        groups as u32,
        vec![
            ("input", f32_bytes(&input)),
            ("result", out(32 * groups)),
            ("nrElems", A::Int(2 * groups as u64)),
        ],
    );
    let g = f32s(&got[1]);
    for k in 0..groups {
        let mut want = input[8 * k..8 * k + 8].to_vec();
        want.sort_by(f32::total_cmp);
        assert_eq!(&g[8 * k..8 * k + 8], &want[..], "group {k}");
    }
}

/// Operands typed before they are lowered (`?:` arms, `&&` operands that may be vectors,
/// sums that may contract) are typed once per expression: deep nesting creates a number of
/// operations quadratic in the depth (the count includes the code lowered only for types;
/// typing every operand afresh made it exponential).
#[test]
fn typing_operands_stays_polynomial_in_nesting() {
    let depth = 20;
    let decls: String = (0..depth).map(|i| format!("int x{i} = p[{i}]; ")).collect();
    let mut cond = "0".to_string();
    let mut and = "x0".to_string();
    let mut sum = "f[0]".to_string();
    let mut vec = "(v < 0.5f)".to_string();
    for i in 0..depth {
        cond = format!("(x{i} > {i}) ? {i} : ({cond})");
        and = format!("x{i} && ({and})");
        sum = format!("f[{}] * f[{}] + ({sum})", i + 1, i + 2);
        vec = format!("(v > {i}.0f) && ({vec})");
    }
    let src = format!(
        "__kernel void k(__global int *p, __global float *f, __global float4 *q) {{
            {decls}
            float4 v = q[0];
            p[0] = {cond};
            p[1] = {and};
            f[0] = {sum};
            q[1] = convert_float4({vec});
        }}"
    );
    let opts = lower::Options {
        contract_fp: true,
        ..lower::Options::default()
    };
    let m = compile_opts(&src, &opts);
    let ops = m.kernels[0].ops.len();
    assert!(
        ops < 30 * depth * depth,
        "{ops} operations for depth {depth}"
    );
}

/// `v[i]` on vectors (an extension clang accepts): constant and run-time indices, on
/// variables, memory and rvalues, read and written; `shuffle` and `shuffle2`.
#[test]
fn subscripts_and_shuffles() {
    let src = r#"
__kernel void k(__global int *out, __global int4 *mem, int i) {
    int4 v = (int4)(10, 20, 30, 40);
    v[1] = 21;
    v[i] += 100;
    mem[0][i] = 7;
    mem[1].wzyx[i] = 8;
    int8 w = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    uint4 m = (uint4)(7, 0, 5, 9);
    int4 s = shuffle(w, m);
    int4 s2 = shuffle2(v, (int4)(-1, -2, -3, -4), (uint4)(4, 3, 6, i));
    int8 s3 = shuffle(v, (uint8)(0, 0, 1, 1, 2, 2, 3, 3));
    int k = 0;
    out[k++] = v[0]; out[k++] = v[1]; out[k++] = v[2]; out[k++] = v[3];
    out[k++] = v[i + 1];
    out[k++] = ((int4)(5, 6, 7, 8))[i];
    out[k++] = w.odd[i];
    out[k++] = s.x; out[k++] = s.y; out[k++] = s.z; out[k++] = s.w;
    out[k++] = s2.x; out[k++] = s2.y; out[k++] = s2.z; out[k++] = s2.w;
    out[k++] = s3.s3; out[k++] = s3.s6;
}
"#;
    let i = 2i32;
    let mem: Vec<i32> = (0..8).collect();
    let got = run(
        src,
        1,
        vec![
            ("out", out(4 * 24)),
            ("mem", i32_bytes(&mem)),
            ("i", A::Int(i as u64)),
        ],
    );
    let want = [
        10, 21, 130, 40, 40, 7, 5, 7, 0, 5, 1, -1, 40, -3, 130, 21, 40,
    ];
    assert_eq!(&i32s(&got[0])[..want.len()], &want);
    assert_eq!(i32s(&got[1]), [0, 1, 7, 3, 4, 8, 6, 7]);
}

/// `halfN` as storage: loads, stores, conversions to and from float vectors.
#[test]
fn half_vectors_as_storage() {
    let src = r#"
__kernel void k(__global half4 *h, __global float4 *f) {
    int i = get_global_id(0);
    half4 v = h[i];
    f[i] = convert_float4(v) * 2.0f;
    h[i + 4] = convert_half4(f[i]);
    half2 lo = v.lo;
    h[i + 8] = (half4)(lo, v.wz);
}
"#;
    let n = 4usize;
    let vals: Vec<f32> = (0..4 * n).map(|k| k as f32 * 0.5 - 3.0).collect();
    let mut h: Vec<u8> = vals
        .iter()
        .flat_map(|&x| half_bits(x).to_le_bytes())
        .collect();
    h.extend(vec![0u8; 2 * 8 * n]);
    let got = run(src, n as u32, vec![("h", A::Buf(h)), ("f", out(16 * n))]);
    let twice: Vec<f32> = vals.iter().map(|x| x * 2.0).collect();
    assert_eq!(f32s(&got[1]), twice);
    let gh: Vec<u16> = got[0]
        .chunks(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for i in 0..n {
        for c in 0..4 {
            assert_eq!(gh[16 + 4 * i + c], half_bits(twice[4 * i + c]));
        }
        let v = &vals[4 * i..4 * i + 4];
        let want = [v[0], v[1], v[3], v[2]].map(half_bits);
        assert_eq!(&gh[32 + 4 * i..36 + 4 * i], &want);
    }
}

/// Library functions with pointer results take a pointer to each lane's element.
#[test]
fn library_functions_per_lane_with_pointer_results() {
    let src = r#"
__kernel void k(__global float4 *out, __global const float4 *in) {
    float4 whole;
    float4 part = fract(in[0], &whole);
    out[0] = part;
    out[1] = whole;
    __private float2 w2;
    out[2].xy = fract(in[1].xy, &w2);
    out[2].zw = w2;
}
"#;
    let input = [1.25f32, -2.5, 3.0, 7.75, 0.5, -0.25, 0.0, 0.0];
    let got = f32s(&run(src, 1, vec![("out", out(48)), ("in", f32_bytes(&input))])[0]);
    let want = [
        0.25f32, 0.5, 0.0, 0.75, 1.0, -3.0, 3.0, 7.0, 0.5, 0.75, 0.0, -1.0,
    ];
    assert_eq!(got, want);
}

/// Pointer-to-vector kernel parameters keep their C type in the metadata.
#[test]
fn vector_pointer_parameters() {
    let m = compile_opts(
        "__kernel void k(__global const float4 *a, __local int2 *b, __constant uchar16 *c) { }",
        &lower::Options::default(),
    );
    let params: Vec<_> = m.kernels[0]
        .params
        .iter()
        .map(|p| (p.kind, p.c_type.as_str()))
        .collect();
    assert_eq!(
        params,
        [
            (ir::ParamKind::PtrGlobal, "__global const float4 *"),
            (ir::ParamKind::PtrLocal, "__local int2 *"),
            (ir::ParamKind::PtrConstant, "__constant uchar16 *"),
        ]
    );
}
