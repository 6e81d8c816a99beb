//! How much in-process coverage costs: each example kernel (small sizes) run plainly on
//! the interpreter, on the default engine, and under coverage, each on one host thread;
//! prints the times and the ratios. `cargo run --release -p warpkit-verify --example
//! cover_speed` (docs/coverage.md, "Speed").

use std::time::{Duration, Instant};
use warpkit_sim::hooks::NoHooks;
use warpkit_verify::cover::{CoverHooks, Model};

fn best(mut f: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let model = Model::generate();
    let (mut plain, mut jit, mut covered) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    println!(
        "{:<24} {:>10} {:>10} {:>10} {:>7}",
        "example", "interp", "default", "cover", "ratio"
    );
    for ex in warpkit_examples::all() {
        let case = ex.case(warpkit_examples::Size::Small);
        let Ok(mut code) = ex.code() else { continue };
        code.program.set_engine(warpkit_sim::Engine::Interp);
        let p = best(|| {
            let _ = ex.launch_stages_observed(&case, &code, &mut NoHooks);
        });
        let c = best(|| {
            let mut hooks = CoverHooks::new(&model);
            let _ = ex.launch_stages_observed(&case, &code, &mut hooks);
        });
        let mut fast = ex.code().expect("compiled above");
        fast.program.set_engine(warpkit_sim::Engine::host_default());
        let j = best(|| {
            let _ = ex.launch_stages(&case, fast.clone(), 1, false);
        });
        println!(
            "{:<24} {:>10.2?} {:>10.2?} {:>10.2?} {:>6.1}x",
            ex.name,
            p,
            j,
            c,
            c.as_secs_f64() / p.as_secs_f64()
        );
        plain += p;
        jit += j;
        covered += c;
    }
    println!(
        "total: interpreter {plain:.2?}, default engine {jit:.2?}, coverage {covered:.2?}: \
         {:.1}x the interpreter, {:.1}x the default engine",
        covered.as_secs_f64() / plain.as_secs_f64(),
        covered.as_secs_f64() / jit.as_secs_f64()
    );
}
