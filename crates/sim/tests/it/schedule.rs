//! Issue order (`Scheduler`): a workgroup whose warps share data through shared memory and
//! barriers gives the same state under round-robin issue, one instruction per warp in turn,
//! as under the functional order (each warp runs until it stops), and the round-robin run
//! really interleaves the warps.

use std::sync::atomic::AtomicBool;
use warpkit_sim::memory::{GlobalMemory, SharedMemory};
use warpkit_sim::*;

/// Each warp stores its lanes' numbers (plus 1000 per warp) into shared memory, waits at a
/// barrier, reads the next warp's slice, and does it again with the values it read.
const SRC: &str = "
    laneid v1
    csrr u1, warpid
    umul.l u2, u1, 1000
    add.vu v2, v1, u2          // the value: lane + 1000 * warp
    umul.l u3, u1, 128
    sll.vi v3, v1, 2
    add.vu v3, v3, u3          // this warp's slot: 128 * warp + 4 * lane
    dsstore.b32 v2, v3, 0
    waitcnt ls=0
    barrier
    uaddi u4, u1, 1
    uandi u4, u4, 3
    umul.l u4, u4, 128
    sll.vi v4, v1, 2
    add.vu v4, v4, u4          // the next warp's slot
    dsload.b32 v5, v4, 0
    waitcnt ls=0
    barrier
    add v6, v5, v2
    dsstore.b32 v6, v3, 0
    waitcnt ls=0
    barrier
    dsload.b32 v7, v4, 0
    waitcnt ls=0
    endpgm
";

/// Records which warp each instruction came from.
#[derive(Default)]
struct Order(Vec<u32>);

impl Hooks for Order {
    const ENABLED: bool = true;
    fn after(&mut self, warp: &Warp, _: &Program, _: u32, _: u32) -> Control {
        self.0.push(warp.id.warp);
        Control::Continue
    }
}

fn run<S: Scheduler>(scheduler: &mut S) -> (String, Vec<u32>) {
    let text = match warpkit_asm::assemble(SRC, "schedule.s") {
        Ok(p) => p.text,
        Err(e) => panic!("{}", e.render(SRC)),
    };
    let mut prog = Program::new(text);
    prog.set_engine(Engine::Interp);
    let mut group = Workgroup::new([0, 0, 0], &[u32::MAX; 4]);
    for (i, w) in group.warps.iter_mut().enumerate() {
        w.csr.set(csr::num::WARPID, i as u32);
    }
    let global = GlobalMemory::default();
    let mut shared = SharedMemory::new(1024);
    let mut env = MemEnv::new(&global, &mut shared);
    let mut core = Core::default();
    let mut order = Order::default();
    let summary = group.run_scheduled(
        &prog,
        &mut core,
        &mut env,
        &mut order,
        10_000,
        &AtomicBool::new(false),
        scheduler,
    );
    assert!(summary.all_ended(), "{summary:?}");
    let cores = vec![core; group.warps.len()];
    (
        dump_states_json(group.warps.iter().zip(cores.iter())),
        order.0,
    )
}

#[test]
fn round_robin_issue_gives_the_functional_result() {
    let (functional, order) = run(&mut RunToStop);
    let (round_robin, interleaved) = run(&mut RoundRobin::default());
    assert_eq!(functional, round_robin);
    // The functional order runs a warp until its barrier: long stretches of one warp.
    assert!(order.windows(2).filter(|p| p[0] != p[1]).count() < 20);
    // Round-robin changes warp at nearly every instruction.
    let switches = interleaved.windows(2).filter(|p| p[0] != p[1]).count();
    assert!(
        switches > interleaved.len() * 3 / 4,
        "{switches} of {}",
        interleaved.len()
    );
    // The values crossed warps through shared memory: warp 0 read warp 1's lanes.
    assert!(round_robin.contains("1000"), "{round_robin}");
}
