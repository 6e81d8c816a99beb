//! Grid dispatch, memory, the async counters and hazards (docs/abi.md, §2.6).

use warpkit_sim::launch::*;
use warpkit_sim::trap::*;
use warpkit_sim::*;

fn program(src: &str) -> Program {
    match warpkit_asm::assemble(src, "test.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
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

const VADD: &str = include_str!("../../../examples/vadd.s");

#[test]
fn vadd_over_a_grid() {
    let n = 1000u32;
    let a: Vec<u32> = (0..n).map(|i| i * 3).collect();
    let b: Vec<u32> = (0..n).map(|i| u32::MAX - i).collect();
    for threads in [1, 2] {
        let cfg = LaunchConfig {
            grid: [n.div_ceil(256), 1, 1],
            block: [256, 1, 1],
            threads,
            ..LaunchConfig::default()
        };
        let r = launch(
            &program(VADD),
            &cfg,
            vec![
                arg("a", buf(&a)),
                arg("b", buf(&b)),
                arg("out", ArgValue::Buffer(vec![0; 4 * n as usize])),
                arg("n", ArgValue::Int(u64::from(n))),
            ],
        )
        .unwrap();
        assert!(r.ok(), "{:?}", r.traps);
        assert!(r.hazards.is_empty(), "{:?}", r.hazards);
        let out = words(r.buffer("out").unwrap());
        for i in 0..n as usize {
            assert_eq!(out[i], a[i].wrapping_add(b[i]), "out[{i}]");
        }
        assert_eq!(r.stats.workgroups, 4);
        assert_eq!(r.stats.warps, 32);
    }
}

#[test]
fn initial_registers_follow_the_abi() {
    let cfg = LaunchConfig {
        grid: [2, 3, 1],
        block: [8, 5, 1],
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let r = launch(&program("endpgm"), &cfg, vec![arg("x", ArgValue::Int(7))]).unwrap();
    assert_eq!(r.warps.len(), 6 * 2);
    let w = &r.warps[3]; // workgroup 1 (x=1, y=0), warp 1
    assert_eq!(w.id.workgroup, [1, 0, 0]);
    assert_eq!(w.id.warp, 1);
    assert_eq!((w.u[0], w.u[1]), (ARGS_BASE as u32, 0));
    assert_eq!(&w.u[2..14], &[1, 0, 0, 2, 3, 1, 8, 5, 1, 2, 1, 65536]);
    assert_eq!(w.u[29], 1);
    assert_eq!(w.exec(), 0xff, "40 threads: the second warp holds 8");
    assert_eq!((w.v[0][0], w.v[1][0], w.v[3][0]), (0, 4, 32));
    // Lane 9 is thread 41, past the 40 of the block: it holds the ids it would have.
    assert_eq!((w.v[0][9], w.v[1][9], w.v[2][9], w.v[3][9]), (1, 0, 1, 41));
    assert_eq!(w.csr.code_lo, CODE_BASE as u32);
    assert_eq!(w.csr.warpid, 1);
    assert_eq!(w.csr.wgslot, 1);
}

#[test]
fn loads_write_back_at_waitcnt_and_hazards_are_reported() {
    let src = "uload.b64 u[16:17], u[0:1], 0
        waitcnt sm=0
        mov.vl v1, 5
        sll.vi v7, v3, 2
        gload.b32 v1, v7, u[16:17], 0
        mov v2, v1
        waitcnt vm=0
        mov v4, v1
        endpgm";
    let cfg = LaunchConfig {
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let data: Vec<u32> = (100..164).collect();
    let r = launch(&program(src), &cfg, vec![arg("in", buf(&data))]).unwrap();
    assert!(r.ok(), "{:?}", r.traps);
    let w = &r.warps[0];
    assert_eq!(
        w.v[2][0], 5,
        "RAW: the read before waitcnt sees the old value"
    );
    assert_eq!(w.v[4][0], 100);
    assert_eq!(w.v[4][5], 105);
    assert_eq!(r.hazards.len(), 1, "{:?}", r.hazards);
    assert_eq!(r.hazards[0].kind, HazardKind::Raw);
    assert_eq!(r.hazards[0].register, "v1");
    assert_eq!(r.hazards[0].pc, 32);
    assert_eq!(r.hazards[0].pending_pc, 24);
}

#[test]
fn misaligned_and_unmapped_accesses_trap() {
    let cfg = LaunchConfig::default();
    let src = "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\ngload.b32 v1, v3, u[16:17], 0\nendpgm";
    let r = launch(&program(src), &cfg, vec![arg("in", buf(&[0; 64]))]).unwrap();
    assert_eq!(r.traps.len(), 1);
    assert_eq!(r.traps[0].trap.cause, CAUSE_MISALIGNED);
    assert_eq!(
        r.traps[0].trap.info,
        BUFFER_BASE as u32 + 1,
        "lane 1 is the first misaligned"
    );
    let src = "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nsll.vi v4, v3, 2\ngload.b32 v1, v4, u[16:17], 256\nendpgm";
    let r = launch(&program(src), &cfg, vec![arg("in", buf(&[0; 64]))]).unwrap();
    assert_eq!(r.traps[0].trap.cause, CAUSE_ACCESS_FAULT);
    assert_eq!(r.traps[0].trap.info, BUFFER_BASE as u32 + 256);
    assert_eq!(r.traps[0].trap.pc, 16);
}

#[test]
fn stores_collide_highest_lane_wins_and_atomics_apply_in_lane_order() {
    let src = "uload.b64 u[16:17], u[0:1], 0
        waitcnt sm=0
        movi v5, 0
        gstore.b32 v3, v5, u[16:17], 0
        movi v6, 1
        gatomic.add v6, v5, u[16:17], 4
        gatomic.add.rtn v6, v5, u[16:17], 8
        waitcnt vm=0, vst=0
        exec.get u20
        endpgm";
    let cfg = LaunchConfig {
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let r = launch(&program(src), &cfg, vec![arg("m", buf(&[0, 10, 20]))]).unwrap();
    assert!(r.ok(), "{:?}", r.traps);
    assert_eq!(words(r.buffer("m").unwrap()), vec![31, 42, 52]);
    let old: Vec<u32> = r.warps[0].v[6].to_vec();
    assert_eq!(old, (20..52).collect::<Vec<u32>>());
}

#[test]
fn shared_memory_and_barrier_between_warps() {
    // Each warp writes its lane ids to shared memory, barrier, then warp 0 reads warp 1's.
    let src = "sll.vi v4, v3, 2
        dsstore.b32 v3, v4, 0
        waitcnt ls=0
        barrier
        add.vi v5, v4, 0
        dsload.b32 v6, v4, 128
        waitcnt ls=0
        uload.b64 u[16:17], u[0:1], 0
        waitcnt sm=0
        gstore.b32 v6, v4, u[16:17], 0
        endpgm";
    let cfg = LaunchConfig {
        block: [64, 1, 1],
        shared_bytes: 512,
        ..LaunchConfig::default()
    };
    let r = launch(
        &program(src),
        &cfg,
        vec![arg("out", ArgValue::Buffer(vec![0; 512]))],
    )
    .unwrap();
    // Warp 1 reads bytes 384..511: in range, never written, so zero.
    assert!(r.ok(), "{:?}", r.traps);
    let out = words(r.buffer("out").unwrap());
    let expect: Vec<u32> = (32..64).chain(std::iter::repeat_n(0, 32)).collect();
    assert_eq!(&out[..64], &expect[..]);
}

#[test]
fn saturation_retires_the_oldest() {
    // 15 uniform loads into distinct registers: sm holds 15, the 16th retires the oldest.
    let mut src = String::from("uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\n");
    for k in 0..16 {
        src += &format!("uload.b32 u{}, u[16:17], {}\n", 20 + k, 4 * k);
    }
    src += "umov u50, u20\numov u51, u21\nendpgm";
    let cfg = LaunchConfig {
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let data: Vec<u32> = (1..=16).collect();
    let r = launch(&program(&src), &cfg, vec![arg("d", buf(&data))]).unwrap();
    let w = &r.warps[0];
    assert_eq!(w.u[50], 1, "the oldest retired when the 16th issued");
    assert_eq!(w.u[51], 0, "the second is still pending: RAW, old value");
    assert!(r.hazards.iter().any(|h| h.register == "u21"));
    assert!(!r.hazards.iter().any(|h| h.register == "u20"));
    assert_eq!(w.u[35], 16, "endpgm drained everything");
}

#[test]
fn sm_fields_one_and_two_act_as_zero() {
    for field in [1, 2] {
        let src =
            format!("uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm={field}\numov u20, u16\nendpgm");
        let cfg = LaunchConfig {
            keep_warps: true,
            ..LaunchConfig::default()
        };
        let r = launch(&program(&src), &cfg, vec![arg("d", buf(&[1]))]).unwrap();
        assert_eq!(r.warps[0].u[20], BUFFER_BASE as u32);
        assert!(r.hazards.is_empty());
    }
}

#[test]
fn trace_reports_write_backs_when_they_retire() {
    let src = "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nendpgm";
    let (r, out) = launch_traced(
        &program(src),
        &LaunchConfig::default(),
        vec![arg("d", buf(&[7]))],
        Vec::new(),
        TraceFormat::Json,
    )
    .unwrap();
    assert!(r.ok());
    let text = String::from_utf8(out.unwrap()).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[1]["u"],
        serde_json::json!([]),
        "nothing written at issue"
    );
    assert_eq!(lines[2]["retired"][0]["pc"], 0);
    assert_eq!(
        lines[2]["retired"][0]["u"],
        serde_json::json!([{"reg": 16, "value": BUFFER_BASE as u32}, {"reg": 17, "value": 1}])
    );
}
