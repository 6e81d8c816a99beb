//! Arbitrary instruction streams run on the functional model under a step limit: every run
//! ends (endpgm, a trap or the limit), never with a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_sim::{Core, NoMemory, NoTrace, Program, Workgroup};

fuzz_target!(|bytes: &[u8]| {
    let prog = Program::new(bytes.to_vec());
    // Two warps, the second partial, so barriers and EXEC edges are exercised.
    let mut wg = Workgroup::new([0, 0, 0], &[u32::MAX, 0x0000_ffff]);
    let mut core = Core::default();
    let _ = wg.run(&prog, &mut core, &mut NoMemory, &mut NoTrace, 10_000);
});
