//! The barrier rule (docs/abi.md, "Barriers"): a sibling that ended no longer counts; a
//! sibling stopped by a trap or the step limit leaves the waiting warps deadlocked, and the
//! launch reports it instead of hanging or letting them continue alone.

use warpkit_sim::launch::*;
use warpkit_sim::*;

fn program(src: &str) -> Program {
    match warpkit_asm::assemble(src, "test.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

/// Three warps; warp 1 runs `sibling`, the others `barrier` then set u20 = 7 and end.
fn run(sibling: &str, max_steps: u64) -> LaunchResult {
    let src = format!(
        "        bnz u29, .Lcheck
        .Lwait:
        barrier
        umovi u20, 7
        endpgm
        .Lcheck:
        uaddi u21, u29, -1
        bnz u21, .Lwait
        {sibling}
        "
    );
    let cfg = LaunchConfig {
        block: [96, 1, 1],
        max_steps,
        keep_warps: true,
        threads: 1,
        ..LaunchConfig::default()
    };
    launch(&program(&src), &cfg, vec![]).unwrap()
}

#[test]
fn an_ended_sibling_no_longer_counts() {
    let r = run("endpgm", 1000);
    assert!(r.ok(), "{:?} {:?}", r.traps, r.deadlocks);
    assert_eq!(r.warps[0].u[20], 7);
    assert_eq!(r.warps[2].u[20], 7);
}

#[test]
fn a_trapped_sibling_deadlocks_the_waiters() {
    // `csrw` of a read-only CSR: cause 9.
    let r = run("csrw warpid, u1\nendpgm", 1000);
    assert_eq!(r.traps.len(), 1);
    assert_eq!(r.deadlocks.len(), 1);
    let d = &r.deadlocks[0];
    assert_eq!(d.workgroup, [0, 0, 0]);
    assert_eq!(d.deadlock.waiting, vec![(0, 4), (2, 4)]);
    assert_eq!(d.deadlock.others.len(), 1);
    let (w, status, pc) = d.deadlock.others[0];
    assert_eq!(w, 1);
    assert!(matches!(status, WarpStatus::Trapped(t) if t.cause == 9));
    assert_eq!(pc, 24);
    assert!(!r.ok());
    // The waiters never went past the barrier.
    assert_eq!(r.warps[0].u[20], 0);
    assert_eq!(r.warps[2].u[20], 0);
    assert_eq!(r.warps[0].status, WarpStatus::AtBarrier);
}

#[test]
fn a_spinning_sibling_hits_the_step_limit_and_the_waiters_are_reported() {
    let start = std::time::Instant::now();
    let r = run(".Lspin:\njmp .Lspin", 10_000);
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(r.step_limits.len(), 1);
    assert_eq!(r.step_limits[0].warp, 1);
    assert_eq!(r.step_limits[0].steps, 10_000);
    assert_eq!(r.deadlocks.len(), 1);
    let d = &r.deadlocks[0].deadlock;
    assert_eq!(d.waiting.iter().map(|w| w.0).collect::<Vec<_>>(), [0, 2]);
    assert_eq!(d.others[0].1, WarpStatus::StepLimit);
    assert_eq!(r.warps[0].u[20], 0);
}

#[test]
fn barriers_in_a_loop_release_every_round() {
    let src = "umovi u20, 0
        .Ltop:
        barrier
        uaddi u20, u20, 1
        uaddi u21, u20, -5
        bnz u21, .Ltop
        endpgm";
    let cfg = LaunchConfig {
        grid: [3, 1, 1],
        block: [100, 1, 1],
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let r = launch(&program(src), &cfg, vec![]).unwrap();
    assert!(r.ok());
    assert!(r.warps.iter().all(|w| w.u[20] == 5));
}

#[test]
fn the_workgroup_api_reports_the_deadlock_too() {
    let prog = program("bnz u29, .Lx\nbarrier\nendpgm\n.Lx:\n.word 0xffffffff");
    let mut wg = Workgroup::new([0, 0, 0], &[u32::MAX, u32::MAX]);
    wg.warps[1].u[29] = 1;
    let s = wg.run(
        &prog,
        &mut Core::default(),
        &mut NoMemory,
        &mut NoHooks,
        100,
    );
    assert_eq!((s.trapped, s.deadlocked, s.ended), (1, 1, 0));
    assert!(!s.all_ended());
    assert_eq!(wg.deadlock.unwrap().waiting, vec![(0, 4)]);
}
