//! What a commit costs through the C API: `wk_sim_step` per commit against the plain
//! (unobserved, one host thread) run's time per instruction, same launch, same process.
//! `cargo run --release -p warpkit-capi --example step_cost [N]` (docs/cosim.md).

use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::time::Instant;
use warpkit_capi::*;

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 16);
    let src = include_str!("../../../examples/vadd.s");
    let kernel = warpkit_asm::assemble(src, "vadd.s").unwrap();
    let a: Vec<u8> = (0..n).flat_map(|i| i.to_le_bytes()).collect();
    let b = a.clone();
    let arg = |name: &'static CStr, kind, value, data: &[u8], len| wk_arg {
        name: name.as_ptr(),
        kind,
        value,
        data: data.as_ptr(),
        len,
    };
    let args = [
        arg(c"a", WK_ARG_BUFFER, 0, &a, a.len() as u64),
        arg(c"b", WK_ARG_BUFFER, 0, &b, b.len() as u64),
        arg(c"out", WK_ARG_ZEROED, 0, &[], 4 * u64::from(n)),
        arg(c"n", WK_ARG_INT, u64::from(n), &[], 0),
    ];
    let desc = wk_launch_desc {
        grid: [n.div_ceil(256), 1, 1],
        block: [256, 1, 1],
        shared_bytes: 0,
        scratch_bytes: 0,
        max_steps: 0,
        args: args.as_ptr(),
        n_args: args.len(),
    };
    for round in 0..3 {
        // The plain run: no hooks, one host thread.
        let mut l = warpkit_host::Launch::new(warpkit_host::Limits::default());
        l.grid(desc.grid).unwrap().block(desc.block).unwrap();
        l.threads(1).unwrap();
        l.arg("a", warpkit_host::ArgValue::Buffer(a.clone()))
            .unwrap();
        l.arg("b", warpkit_host::ArgValue::Buffer(b.clone()))
            .unwrap();
        l.zeroed_buffer("out", 4 * u64::from(n)).unwrap();
        l.arg("n", warpkit_host::ArgValue::Int(u64::from(n)))
            .unwrap();
        let r = l.prepare(&kernel).unwrap().run().unwrap();
        let plain = r.stats.wall.as_secs_f64() / r.stats.instructions as f64;

        // SAFETY: valid code, description and structures.
        let (step, run, commits) = unsafe {
            let sim = wk_sim_new(kernel.text.as_ptr(), kernel.text.len(), &desc);
            let mut c: Box<wk_commit> = Box::new(MaybeUninit::zeroed().assume_init());
            let t = Instant::now();
            let mut commits = 0u64;
            while wk_sim_step(sim, &mut *c) == WK_OK {
                commits += 1;
            }
            let step = t.elapsed().as_secs_f64() / commits as f64;
            wk_sim_free(sim);
            let sim = wk_sim_new(kernel.text.as_ptr(), kernel.text.len(), &desc);
            let t = Instant::now();
            let mut ran = 0;
            wk_sim_run(sim, 0, &mut ran);
            let run = t.elapsed().as_secs_f64() / ran as f64;
            wk_sim_free(sim);
            (step, run, commits)
        };
        assert_eq!(commits, r.stats.instructions);
        println!(
            "round {round}: {commits} instructions; plain run {:.1} ns/instr; wk_sim_step {:.1} ns/commit ({:.1}x); wk_sim_run {:.1} ns/instr ({:.1}x)",
            plain * 1e9,
            step * 1e9,
            step / plain,
            run * 1e9,
            run / plain
        );
    }
}
