//! OpenCL C source to results on the functional model.

use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig};

/// Compile `src`, assemble, launch with `args`; the buffers by name.
pub fn run_cl(src: &str, cfg: LaunchConfig, args: Vec<(&str, ArgValue)>) -> Vec<(String, Vec<u8>)> {
    let compiled = warpkit_cc::compile_source("k.cl", src, &warpkit_cc::Options::default())
        .unwrap_or_else(|f| panic!("{}", f.render()));
    let text = compiled.assembly;
    let scratch = text
        .lines()
        .find_map(|l| l.split("scratch=").nth(1))
        .map_or(0, |rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        });
    let cfg = LaunchConfig {
        scratch_bytes: scratch,
        ..cfg
    };
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(".kernel") && !l.trim_start().starts_with(".param"))
        .map(|l| format!("{l}\n"))
        .collect();
    let program = warpkit_asm::assemble(&stripped, "k.s")
        .unwrap_or_else(|e| panic!("{}\n{text}", e.render(&stripped)));
    let prog = warpkit_sim::Program::new(program.text);
    let args = args
        .into_iter()
        .map(|(n, v)| Arg {
            name: n.into(),
            value: v,
        })
        .collect();
    let r = launch(&prog, &cfg, args).unwrap();
    assert!(r.ok(), "traps: {:?}\n{text}", r.traps);
    assert!(r.hazards.is_empty(), "hazards: {:?}\n{text}", r.hazards);
    eprintln!("{text}");
    r.buffers
        .iter()
        .map(|b| (b.name.clone(), b.bytes.to_vec()))
        .collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn buffer<'a>(out: &'a [(String, Vec<u8>)], name: &str) -> &'a [u8] {
    &out.iter().find(|(n, _)| n == name).expect("buffer").1
}

fn f32s(v: &[f32]) -> Vec<u8> {
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
