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
