//! Hooks: stepping through the run loop, breakpoints, watchpoints, recorded writes,
//! memory records, pausing a launch session, and that observation changes nothing.

use warpkit_sim::hooks::*;
use warpkit_sim::launch::*;
use warpkit_sim::*;

fn program(src: &str) -> Program {
    match warpkit_asm::assemble(src, "test.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

fn buf(ws: &[u32]) -> ArgValue {
    ArgValue::Buffer(ws.iter().flat_map(|w| w.to_le_bytes()).collect())
}

fn arg(name: &str, value: ArgValue) -> Arg {
    Arg {
        name: name.into(),
        value,
    }
}

const VADD: &str = include_str!("../../../../examples/vadd.s");

fn vadd_args(n: u32) -> Vec<Arg> {
    let a: Vec<u32> = (0..n).map(|i| i * 3).collect();
    let b: Vec<u32> = (0..n).map(|i| 1000 + i).collect();
    vec![
        arg("a", buf(&a)),
        arg("b", buf(&b)),
        arg("out", ArgValue::Buffer(vec![0; n as usize * 4])),
        arg("n", ArgValue::Int(u64::from(n))),
    ]
}

fn vadd_config() -> LaunchConfig {
    LaunchConfig {
        grid: [3, 1, 1],
        block: [64, 1, 1],
        threads: 1,
        keep_warps: true,
        ..LaunchConfig::default()
    }
}

/// Everything a run produces that a user can see, as text.
fn fingerprint(r: &LaunchResult) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {} {:?} {}",
        r.buffers,
        r.traps,
        r.step_limits,
        r.deadlocks,
        r.hazards.len(),
        (r.stats.instructions, r.stats.lane_ops, r.stats.hazards),
        dump_states_json(r.warps.iter().zip(&r.cores)),
    )
}

#[test]
fn stepping_one_instruction_at_a_time_matches_a_plain_run() {
    let prog = program(VADD);
    let cfg = vadd_config();
    let plain = launch(&prog, &cfg, vadd_args(150)).unwrap();
    let mut session = Session::new(&prog, &cfg, vadd_args(150)).unwrap();
    let mut pauses = 0u64;
    while session.run(&mut StepBudget::new(1)) == Progress::Paused {
        pauses += 1;
    }
    let stepped = session.finish();
    assert_eq!(fingerprint(&plain), fingerprint(&stepped));
    // Paused after every instruction but the last, which finishes the launch.
    assert_eq!(pauses + 1, plain.stats.instructions);
    assert!(plain.ok());
}

#[test]
fn warp_step_goes_through_the_run_loop() {
    // A load used before its waitcnt: the hazard is reported by step as by run, and the
    // step count and the step limit behave alike.
    let src = "umovi u4, 0\numovi u5, 0\nmovi v1, 0\n\
               uload.b32 u6, u[4:5], 0\nuadd u7, u6, u6\nendpgm";
    let prog = program(src);
    let mut ran = Warp::new(WarpId::default(), u32::MAX);
    let mut stepped = ran.clone();
    let global = memory::GlobalMemory::default();
    let mut shared = memory::SharedMemory::new(0);
    let mut env = MemEnv::new(&global, &mut shared);
    ran.run(&prog, &mut Core::default(), &mut env, &mut NoHooks, 100);
    let mut env = MemEnv::new(&global, &mut shared);
    let mut core = Core::default();
    let mut n = 0;
    while stepped.step(&prog, &mut core, &mut env, &mut NoHooks, 100) {
        n += 1;
        assert_eq!(stepped.steps, n);
    }
    assert_eq!(stepped.status, ran.status);
    assert_eq!(stepped.steps, ran.steps);
    assert_eq!(stepped.hazard_count, ran.hazard_count);
    assert_eq!(stepped.pc, ran.pc);
    // At the step limit a step executes nothing.
    let mut w = Warp::new(WarpId::default(), u32::MAX);
    let prog = program("loop: jmp loop");
    assert!(w.step(&prog, &mut Core::default(), &mut NoMemory, &mut NoHooks, 2));
    assert!(!w.step(&prog, &mut Core::default(), &mut NoMemory, &mut NoHooks, 1));
    assert_eq!(w.status, WarpStatus::StepLimit);
}

#[test]
fn hooks_change_nothing_in_the_result() {
    let prog = program(VADD);
    let cfg = vadd_config();
    let plain = launch(&prog, &cfg, vadd_args(170)).unwrap();
    let mut t = VecTracer::default();
    let hooked = launch_with_tracer(&prog, &cfg, vadd_args(170), &mut t).unwrap();
    assert_eq!(fingerprint(&plain), fingerprint(&hooked));
    assert_eq!(t.commits.len() as u64, plain.stats.instructions);
}

#[test]
fn breakpoints_stop_before_and_resume_past() {
    let src = "movi v1, 1\ntarget:\nadd.vi v1, v1, 1\nendpgm";
    let prog = program(src);
    let cfg = LaunchConfig {
        block: [64, 1, 1],
        threads: 1,
        ..LaunchConfig::default()
    };
    let mut session = Session::new(&prog, &cfg, Vec::new()).unwrap();
    let mut bp = Breakpoints::new(vec![4]);
    let mut stops = Vec::new();
    while session.run(&mut bp) == Progress::Paused {
        let (_, wg) = session.current().unwrap();
        let w = wg
            .warps
            .iter()
            .find(|w| w.status == WarpStatus::Running)
            .unwrap();
        // Stopped before the add: v1 is still 1.
        assert_eq!(w.pc, 4);
        assert_eq!(w.vreg(1).unwrap()[0], 1);
        stops.push(w.id.warp);
    }
    assert_eq!(stops, vec![0, 1], "once per warp");
    let r = session.finish();
    assert!(r.ok());
}

#[test]
fn watchpoints_stop_after_the_write() {
    let src = "movi v1, 1\nmovi v2, 2\numovi u3, 9\ncmp.eq.i32.vi u4, v3, 5\n\
               saveexec.and u5, u4\nmovi v2, 7\nexec.set u5\nendpgm";
    let prog = program(src);
    let cfg = LaunchConfig {
        threads: 1,
        ..LaunchConfig::default()
    };
    // Lane 5 of v2 is written twice (all lanes, then lane 5 alone); lane 6 once.
    let mut session = Session::new(&prog, &cfg, Vec::new()).unwrap();
    let mut wp = Watchpoints::new(vec![WatchTarget::VLane { reg: 2, lane: 5 }]);
    let mut pcs = Vec::new();
    while session.run(&mut wp) == Progress::Paused {
        let hit = wp.hit.take().unwrap();
        pcs.push(hit.pc);
        let (_, wg) = session.current().unwrap();
        assert_eq!(wg.warps[0].pc, hit.pc + 4, "stopped after the writer");
    }
    assert_eq!(pcs, vec![4, 20]);
    let mut session = Session::new(&prog, &cfg, Vec::new()).unwrap();
    let mut wp = Watchpoints::new(vec![WatchTarget::VLane { reg: 2, lane: 6 }]);
    assert_eq!(session.run(&mut wp), Progress::Paused);
    assert_eq!(wp.hit.unwrap().pc, 4);
    assert_eq!(session.run(&mut wp), Progress::Finished);
    let mut session = Session::new(&prog, &cfg, Vec::new()).unwrap();
    let mut wp = Watchpoints::new(vec![WatchTarget::UReg(3)]);
    assert_eq!(session.run(&mut wp), Progress::Paused);
    assert_eq!(wp.hit.unwrap().pc, 8);
}

#[test]
fn memory_watchpoints_and_records() {
    let src = "uload.b64 u[4:5], u[0:1], 0\nwaitcnt sm=0\nsll.vi v4, v3, 2\n\
               gstore.b32 v3, v4, u[4:5], 0\ngstore.b8 v3, v4, u[4:5], 129\nendpgm";
    let prog = program(src);
    let cfg = LaunchConfig {
        threads: 1,
        ..LaunchConfig::default()
    };
    let args = || vec![arg("out", ArgValue::Buffer(vec![0; 256]))];
    let mut session = Session::new(&prog, &cfg, args()).unwrap();
    let base = session.buffers()[0].1;
    let mut wp = Watchpoints::new(vec![WatchTarget::Memory {
        space: MemSpace::Global,
        addr: base + 129 + 4 * 7,
        len: 1,
    }]);
    assert_eq!(session.run(&mut wp), Progress::Paused);
    assert_eq!(wp.hit.unwrap().pc, 24, "the byte store, not the word store");
    // The records of each memory instruction.
    let mut t = VecTracer::default();
    launch_with_tracer(&prog, &cfg, args(), &mut t).unwrap();
    let uload = &t.commits[0].mem[0];
    assert_eq!(
        (uload.kind, uload.space, uload.size),
        (MemKind::Load, MemSpace::Global, 8)
    );
    assert_eq!(uload.lanes.len(), 1);
    assert_eq!(uload.lanes[0].addr, ARGS_BASE);
    assert_eq!(uload.lanes[0].data, vec![base as u32, (base >> 32) as u32]);
    assert_eq!(uload.lanes[0].mask, 0xff);
    let word = &t.commits[3].mem[0];
    assert_eq!((word.kind, word.size), (MemKind::Store, 4));
    assert_eq!(word.lanes.len(), 32);
    assert_eq!(word.lanes[7].lane, 7);
    assert_eq!(word.lanes[7].addr, base + 28);
    assert_eq!(word.lanes[7].data, vec![7]);
    assert_eq!(word.lanes[7].mask, 0xf);
    let byte = &t.commits[4].mem[0];
    // Lane 7 stores byte 7 at base + 129 + 28 = word base + 156, byte 1 of it.
    assert_eq!(byte.lanes[7].addr, base + 156);
    assert_eq!(byte.lanes[7].mask, 0b10);
    assert_eq!(byte.lanes[7].data, vec![7 << 8]);
}

#[test]
fn atomics_record_old_and_new_words() {
    let src = "uload.b64 u[4:5], u[0:1], 0\nwaitcnt sm=0\nmovi v4, 0\nmovi v6, 2\n\
               gatomic.add.rtn v6, v4, u[4:5], 0\nwaitcnt vm=0\nendpgm";
    let prog = program(src);
    let cfg = LaunchConfig {
        block: [4, 1, 1],
        threads: 1,
        ..LaunchConfig::default()
    };
    let mut t = VecTracer::default();
    let r = launch_with_tracer(&prog, &cfg, vec![arg("x", buf(&[10]))], &mut t).unwrap();
    assert!(r.ok(), "{r:?}");
    let a = t
        .commits
        .iter()
        .find_map(|c| c.mem.first().filter(|m| m.kind == MemKind::Atomic))
        .unwrap();
    let seen: Vec<(u32, Option<u32>)> = a.lanes.iter().map(|l| (l.data[0], l.old)).collect();
    assert_eq!(
        seen,
        vec![
            (12, Some(10)),
            (14, Some(12)),
            (16, Some(14)),
            (18, Some(16))
        ]
    );
}

#[test]
fn recorded_writes_name_what_changed() {
    let src = "movi v1, 3\numovi u2, 4\nexec.set u2\nmovi v1, 5\ncsrw fflags, u2\nendpgm";
    let prog = program(src);
    let mut wg = Workgroup::new([0, 0, 0], &[u32::MAX]);
    let mut t = VecTracer::default();
    wg.run(&prog, &mut Core::default(), &mut NoMemory, &mut t, 100);
    let w = |i: usize| t.commits[i].writes.clone();
    assert!(matches!(&w(0)[..], [Written::V { reg: 1, lanes }] if lanes.len() == 32));
    assert_eq!(w(1), vec![Written::U { reg: 2, value: 4 }]);
    assert_eq!(w(2), vec![Written::Exec(4)]);
    assert_eq!(
        w(3),
        vec![Written::V {
            reg: 1,
            lanes: vec![(2, 5)]
        }]
    );
    assert!(matches!(
        &w(4)[..],
        [Written::Csr {
            name: "fflags",
            value: 4,
            ..
        }]
    ));
}

#[test]
fn state_accessors_read_and_write() {
    let mut w = Warp::new(WarpId::default(), u32::MAX);
    assert!(w.set_vreg_lane(5, 3, 7));
    assert!(!w.set_vreg_lane(128, 0, 1));
    assert!(!w.set_vreg_lane(5, 32, 1));
    assert_eq!(w.vreg(5).unwrap()[3], 7);
    assert!(w.set_ureg(63, 9));
    assert!(!w.set_ureg(64, 9));
    assert_eq!(w.ureg(63), Some(9));
    assert_eq!(w.ureg(64), None);
    // Pending operations per counter, with their destinations.
    let src = "uload.b64 u[4:5], u[0:1], 0\nuload.b32 u6, u[0:1], 0\nendpgm";
    let prog = program(src);
    let cfg = LaunchConfig {
        threads: 1,
        ..LaunchConfig::default()
    };
    let mut session = Session::new(&prog, &cfg, vec![arg("x", ArgValue::Int(5))]).unwrap();
    let mut bp = Breakpoints::new(vec![16]);
    assert_eq!(session.run(&mut bp), Progress::Paused);
    let (_, wg) = session.current().unwrap();
    let (sm, _) = warpkit_isa::counter_by_name("sm").unwrap();
    let pending = wg.warps[0].pending(sm);
    assert_eq!(pending.len(), 2);
    assert_eq!(pending[0].pc, 0);
    assert!(matches!(
        pending[1].writeback,
        Writeback::U { first: 6, .. }
    ));
}

#[test]
fn trace_records_memory_and_names_the_workgroup() {
    let src = "uload.b64 u[4:5], u[0:1], 0\nwaitcnt sm=0\nsll.vi v4, v3, 1\n\
               gstore.b16 v3, v4, u[4:5], 2\nendpgm";
    let prog = program(src);
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [2, 1, 1],
        threads: 1,
        ..LaunchConfig::default()
    };
    let args = || vec![arg("out", ArgValue::Buffer(vec![0; 64]))];
    let (r, out) = launch_traced(&prog, &cfg, args(), Vec::new(), TraceFormat::Json).unwrap();
    assert!(r.ok());
    let base = r.buffers[0].address;
    let text = String::from_utf8(out.unwrap()).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["version"], 2);
    let store = &lines[4];
    assert_eq!(store["asm"], "gstore.b16 v3, v4, u[4:5], 2");
    let expect = serde_json::json!([{"kind": "store", "space": "global", "size": 2, "lanes": [
        {"lane": 0, "addr": base, "data": [0], "mask": 0b1100},
        {"lane": 1, "addr": base + 4, "data": [1], "mask": 0b0011},
    ]}]);
    assert_eq!(store["mem"], expect);
    assert_eq!(lines[1]["mem"][0]["kind"], "load");
    assert_eq!(lines[2]["mem"], serde_json::json!([]));
    for l in &lines[1..] {
        assert!(l.get("mem").is_some() && l.get("retired").is_some(), "{l}");
    }
    let (_, out) = launch_traced(&prog, &cfg, args(), Vec::new(), TraceFormat::Text).unwrap();
    let text = String::from_utf8(out.unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("wg(0,0,0) w0 0x00000000"),
        "{}",
        lines[0]
    );
    assert!(
        lines[5].starts_with("wg(1,0,0) w0 0x00000000"),
        "{}",
        lines[5]
    );
    assert!(
        lines[3].ends_with(&format!(
            "store.global{{0@{:#x}:0x0/0xc 1@{:#x}:0x1/0x3}}",
            base,
            base + 4
        )),
        "{}",
        lines[3]
    );
}

#[test]
fn a_session_may_pause_at_each_workgroup_end() {
    let prog = program(VADD);
    let cfg = vadd_config();
    let plain = launch(&prog, &cfg, vadd_args(150)).unwrap();
    let mut session = Session::new(&prog, &cfg, vadd_args(150)).unwrap();
    session.set_pause_at_workgroup_end(true);
    let mut ends = Vec::new();
    while session.run(&mut NoHooks) == Progress::Paused {
        assert!(session.at_workgroup_end());
        let (flat, group) = session.current().unwrap();
        assert!(group.warps.iter().all(|w| w.status == WarpStatus::Ended));
        // The shared memory of the finished workgroup is still there to read.
        assert_eq!(session.shared().unwrap().word(0), Some(0));
        ends.push(flat);
    }
    assert_eq!(ends, vec![0, 1, 2]);
    assert!(!session.at_workgroup_end());
    assert_eq!(fingerprint(&plain), fingerprint(&session.finish()));
}

#[test]
fn a_deadlocked_workgroup_stays_inspectable_at_its_end() {
    let prog =
        program("bnz u29, .Lbad\nbarrier\nendpgm\n.Lbad:\numov.l u1, 0xffffffff\ncsrw mode, u1\n");
    let cfg = LaunchConfig {
        block: [64, 1, 1],
        ..LaunchConfig::default()
    };
    let mut session = Session::new(&prog, &cfg, vec![]).unwrap();
    session.set_pause_at_workgroup_end(true);
    assert_eq!(session.run(&mut NoHooks), Progress::Paused);
    let (_, group) = session.current().unwrap();
    assert!(group.deadlock.is_some());
    assert_eq!(group.warps[0].status, WarpStatus::AtBarrier);
    assert_eq!(session.run(&mut NoHooks), Progress::Finished);
    let r = session.finish();
    assert_eq!((r.deadlocks.len(), r.traps.len()), (1, 1));
    assert!(r.interrupted.is_none());
}
