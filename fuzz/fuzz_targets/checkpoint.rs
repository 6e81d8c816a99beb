//! Arbitrary bytes read as a checkpoint, then whatever is accepted resumed as `warpkit run
//! --resume` does: the reader refuses or accepts, never panics, and an accepted state runs
//! (a few workgroups, a few thousand steps), finishes and reports without a panic.
//!
//! The first byte picks the input's form: even, the rest is a whole file as it is; odd, the
//! rest is a payload the target frames with a matching header and checksum, since almost
//! every mutation of a whole file fails the checksum and would never reach the decoder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_asm::{LineRow, LineTable};
use warpkit_host::report::{
    deadlock_message_at, hazard_message_at, step_limit_message, trap_message_at,
};
use warpkit_sim::hooks::{Control, Hooks};
use warpkit_sim::launch::checkpoint::{frame, Checkpoint};
use warpkit_sim::launch::Session;
use warpkit_sim::{dump_states_json, Interrupt, Program, Warp};

/// Stops the resumed run after `steps` instructions or once `workgroups` more have begun,
/// whichever comes first: a checkpoint may describe a grid of 2^32 workgroups, each
/// allowed 2^64 steps.
struct Bounded {
    steps: u64,
    workgroups: u32,
}

impl Hooks for Bounded {
    const ENABLED: bool = true;
    fn before(&mut self, _: &Warp, _: &Program, _: u32) -> Control {
        if self.steps == 0 {
            Control::Stop
        } else {
            Control::Continue
        }
    }
    fn after(&mut self, _: &Warp, _: &Program, _: u32, _: u32) -> Control {
        self.steps = self.steps.saturating_sub(1);
        Control::Continue
    }
    fn begin_workgroup(&mut self, _: u64, _: [u32; 3]) {
        self.workgroups = self.workgroups.saturating_sub(1);
    }
    fn interrupt(&self) -> Option<Interrupt> {
        (self.steps == 0 || self.workgroups == 0).then_some(Interrupt::Cancelled)
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&form, rest)) = bytes.split_first() else {
        return;
    };
    let framed;
    let file = if form & 1 == 1 {
        framed = frame(rest);
        &framed[..]
    } else {
        rest
    };
    let checkpoint = match Checkpoint::decode(file) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let _ = (
        checkpoint.steps(),
        checkpoint.workgroups(),
        checkpoint.writer(),
    );
    let _ = format!("{checkpoint:?}");
    let max_steps = checkpoint.config().max_steps;
    let names: Vec<String> = checkpoint
        .buffers()
        .iter()
        .map(|(n, _)| n.clone())
        .collect();
    // The line table the CLI rebuilds from the checkpoint to name source lines.
    let kept = checkpoint.lines();
    let rows = kept
        .rows
        .iter()
        .map(|&(address, file, line, column)| LineRow {
            address,
            file,
            line,
            column,
        })
        .collect();
    let lines = LineTable::new(kept.files.clone(), rows, kept.end);
    let program = checkpoint.program();
    let mut session = match Session::resume(&program, checkpoint) {
        Ok(s) => s,
        // Only a program other than the checkpoint's own is refused here.
        Err(e) => panic!("the checkpoint's own program was refused: {e}"),
    };
    session.set_threads(1);
    let mut hooks = Bounded {
        steps: 4000,
        workgroups: 4,
    };
    session.run(&mut hooks);
    let _ = session.attempted();
    let result = session.finish_with(hooks.interrupt());
    let _ = result.ok();
    for name in &names {
        let _ = result.buffer(name);
    }
    for t in &result.traps {
        let _ = trap_message_at(t, &lines);
    }
    for s in &result.step_limits {
        let _ = step_limit_message(s, max_steps);
    }
    for d in &result.deadlocks {
        let _ = deadlock_message_at(d, &lines);
    }
    for h in &result.hazards {
        let _ = hazard_message_at(h, &lines);
    }
    let _ = dump_states_json(result.warps.iter().zip(&result.cores));
});
