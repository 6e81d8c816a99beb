//! Arbitrary instruction streams launched like `warpkit run` does (memory mapped, shared
//! memory, several warps and workgroups, barriers, atomics), under small limits: every run
//! ends (endpgm, a trap, the step limit or a reported deadlock), never with a panic or a
//! hang. The first byte picks the launch shape and whether the run is traced.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_sim::launch::{launch, launch_traced, Arg, ArgValue, LaunchConfig};
use warpkit_sim::{dump_states_json, Program, TraceFormat};

fuzz_target!(|bytes: &[u8]| {
    let Some((&shape, code)) = bytes.split_first() else {
        return;
    };
    let cfg = LaunchConfig {
        grid: [1 + u32::from(shape & 1), 1, 1],
        // 1 to 3 warps, the last one partial for odd shapes.
        block: [[32, 40, 64, 96][usize::from(shape >> 1 & 3)], 1, 1],
        shared_bytes: 256,
        threads: 1,
        max_steps: 2000,
        keep_warps: shape & 0x20 != 0,
        bare: shape & 0x40 != 0,
        ..LaunchConfig::default()
    };
    let args = vec![
        Arg {
            name: "a".into(),
            value: ArgValue::Buffer(vec![0xa5; 256]),
        },
        Arg {
            name: "n".into(),
            value: ArgValue::Int(64),
        },
        Arg {
            name: "b".into(),
            value: ArgValue::Buffer(vec![0; 64]),
        },
    ];
    let prog = Program::new(code.to_vec());
    let result = if shape & 0x18 == 0x18 {
        let format = if shape & 0x80 != 0 {
            TraceFormat::Json
        } else {
            TraceFormat::Text
        };
        let (r, out) = launch_traced(&prog, &cfg, args, std::io::sink(), format)
            .expect("a valid launch configuration");
        assert!(out.is_ok());
        r
    } else {
        launch(&prog, &cfg, args).expect("a valid launch configuration")
    };
    let _ = dump_states_json(result.warps.iter().zip(&result.cores));
    for h in &result.hazards {
        let _ = h.to_string();
    }
});
