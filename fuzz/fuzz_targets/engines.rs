//! Arbitrary instruction streams launched on both engines, the interpreter and the
//! translation tier (with each vector ISA the host runs): buffers, final warp states,
//! counts, traps, step limits and hazards must be identical. The first byte picks the
//! launch shape.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig};
use warpkit_sim::{dump_states_json, Engine, Program, VectorIsa};

fuzz_target!(|bytes: &[u8]| {
    let Some((&shape, code)) = bytes.split_first() else {
        return;
    };
    let cfg = LaunchConfig {
        grid: [1 + u32::from(shape & 1), 1, 1],
        block: [[32, 40, 64, 96][usize::from(shape >> 1 & 3)], 1, 1],
        shared_bytes: 256,
        // Scratch memory for half the shapes: the CSRs give programs its addresses.
        scratch_bytes: if shape & 0x80 != 0 { 64 } else { 0 },
        threads: 1,
        max_steps: u64::from(shape >> 3) * 97 + 1,
        keep_warps: true,
        bare: shape & 0x40 != 0,
        ..LaunchConfig::default()
    };
    let args = || {
        vec![
            Arg {
                name: "a".into(),
                value: ArgValue::Buffer(vec![0xa5; 256]),
            },
            Arg {
                name: "n".into(),
                value: ArgValue::Int(64),
            },
        ]
    };
    let mut outcomes = Vec::new();
    let jits = VectorIsa::ALL
        .into_iter()
        .filter(|isa| isa.supported())
        .map(|isa| (Engine::Jit, isa));
    for (engine, isa) in [(Engine::Interp, VectorIsa::Avx2)].into_iter().chain(jits) {
        let mut prog = Program::new(code.to_vec());
        prog.set_engine(engine);
        prog.set_vector_isa(isa);
        let r = launch(&prog, &cfg, args()).expect("a valid launch configuration");
        outcomes.push(format!(
            "{:?}\n{}\n{} {} {:?} {:?} {:?} {:?}",
            r.buffers,
            dump_states_json(r.warps.iter().zip(&r.cores)),
            r.stats.instructions,
            r.stats.lane_ops,
            r.traps,
            r.step_limits,
            r.hazards,
            r.deadlocks
        ));
    }
    for (k, outcome) in outcomes.iter().enumerate().skip(1) {
        assert_eq!(
            &outcomes[0], outcome,
            "the engines disagree (translation {k})"
        );
    }
});
