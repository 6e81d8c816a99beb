//! Every example kernel on both engines: output buffers, final warp states (dumps), counts,
//! traps and hazards must be identical between the interpreter and the translation tier,
//! the latter with each vector ISA the host runs.

use warpkit_examples::{all, Size};
use warpkit_sim::{dump_states_json, Engine, VectorIsa};

#[test]
fn every_example_is_identical_on_both_engines() {
    let mut translated = 0;
    for example in all() {
        let case = example.case(Size::Small);
        let mut outcomes = Vec::new();
        let jits = VectorIsa::ALL
            .into_iter()
            .filter(|isa| isa.supported())
            .map(|isa| (Engine::Jit, isa));
        for (engine, isa) in [(Engine::Interp, VectorIsa::Avx2)].into_iter().chain(jits) {
            let mut code = example.code().expect("assembles");
            code.program.set_engine(engine);
            code.program.set_vector_isa(isa);
            let results = example
                .launch_stages(&case, code, 2, true)
                .unwrap_or_else(|e| panic!("{}: {e}", example.name));
            let mut summary = Vec::new();
            for r in &results {
                summary.push(format!("{:?}", r.buffers));
                summary.push(dump_states_json(r.warps.iter().zip(r.cores.iter())));
                summary.push(format!(
                    "{} {} {:?} {:?} {:?} {:?}",
                    r.stats.instructions,
                    r.stats.lane_ops,
                    r.traps,
                    r.step_limits,
                    r.hazards,
                    r.deadlocks
                ));
                if engine == Engine::Jit {
                    translated += r.warps.iter().map(|w| w.translated_steps()).sum::<u64>();
                }
            }
            outcomes.push(summary);
        }
        for (k, outcome) in outcomes.iter().enumerate().skip(1) {
            assert_eq!(
                &outcomes[0], outcome,
                "{} differs between engines (translation {k})",
                example.name
            );
        }
    }
    if Engine::jit_supported() {
        assert!(translated > 0, "no example ran translated code");
    }
}
