//! `warpkit linx run` on programs built from the grammar, in the three modes, traced or not
//! (the first byte chooses), under a small step limit: every run ends at lbstop or with an
//! E-code, never with a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_linx::{Mode, RunConfig, StepRecord, TraceSink};

struct Count(usize);

impl TraceSink for Count {
    fn record(&mut self, step: &StepRecord) {
        self.0 += step.writes.len() + step.mem.len() + step.cstk.len() + 1;
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&shape, rest)) = bytes.split_first() else {
        return;
    };
    let src = warpkit_linx::gen::program_from_bytes(rest);
    let Ok(prog) = warpkit_linx::check("fuzz.s", &src) else {
        return;
    };
    let mode = [Mode::Loop, Mode::Vect, Mode::Simt][usize::from(shape % 3)];
    let mut count = Count(0);
    let r = warpkit_linx::run(
        &prog,
        RunConfig {
            mode: Some(mode),
            lanes: Some(1 + u32::from(shape >> 2 & 7)),
            max_steps: 400,
            trace: if shape & 0x80 != 0 { Some(&mut count) } else { None },
            ..RunConfig::default()
        },
    );
    if let Some(e) = &r.error {
        assert!(e.code.starts_with("E-"));
    }
    assert!(r.lanes >= 1 && r.lanes <= 64);
});
