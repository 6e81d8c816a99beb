//! Provisional 16-bit loads into a half register (`gload.d16.l/h`, `dsload.d16.l/h`), and
//! the memory fast path (one region lookup per instruction) agreeing with the lane path.

use warpkit_sim::launch::*;
use warpkit_sim::trap::*;
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

fn run(src: &str, args: Vec<Arg>) -> LaunchResult {
    let cfg = LaunchConfig {
        keep_warps: true,
        ..LaunchConfig::default()
    };
    launch(&program(src), &cfg, args).unwrap()
}

/// Halves 0x1000 + k at byte 2k: lane l reads half l with `sll.vi v7, v3, 1`.
fn halves() -> Vec<u32> {
    (0..64u32)
        .map(|k| (0x1000 + 2 * k) | ((0x1000 + 2 * k + 1) << 16))
        .collect()
}

const PRELUDE: &str = "uload.b64 u[16:17], u[0:1], 0
        waitcnt sm=0
        sll.vi v7, v3, 1
        mov.vl v5, 0xaaaabbbb
        mov.vl v6, 0xccccdddd
";

#[test]
fn d16_loads_replace_one_half_and_keep_the_other() {
    let src = format!(
        "{PRELUDE}
        gload.d16.l v5, v7, u[16:17], 0
        gload.d16.h v6, v7, u[16:17], 0
        waitcnt vm=0
        endpgm"
    );
    let r = run(&src, vec![arg("d", buf(&halves()))]);
    assert!(r.ok(), "{:?}", r.traps);
    assert!(r.hazards.is_empty(), "{:?}", r.hazards);
    let w = &r.warps[0];
    for l in 0..32u32 {
        assert_eq!(w.v[5][l as usize], 0xaaaa_0000 | (0x1000 + l), "lane {l}");
        assert_eq!(
            w.v[6][l as usize],
            ((0x1000 + l) << 16) | 0xdddd,
            "lane {l}"
        );
    }
}

#[test]
fn d16_lanes_outside_exec_keep_the_whole_register() {
    let src = format!(
        "{PRELUDE}
        umov.l u30, 0x0000ffff
        saveexec.and u31, u30
        gload.d16.h v5, v7, u[16:17], 2
        waitcnt vm=0
        exec.set u31
        endpgm"
    );
    let r = run(&src, vec![arg("d", buf(&halves()))]);
    assert!(r.ok(), "{:?}", r.traps);
    let w = &r.warps[0];
    for l in 0..32u32 {
        let want = if l < 16 {
            ((0x1000 + l + 1) << 16) | 0xbbbb
        } else {
            0xaaaa_bbbb
        };
        assert_eq!(w.v[5][l as usize], want, "lane {l}");
    }
}

#[test]
fn d16_merges_with_the_register_at_retirement() {
    // The write-back keeps the other half as the register holds it when the load retires,
    // not at issue: a write to the register in between (a WAW hazard) survives in the
    // kept half.
    let src = format!(
        "{PRELUDE}
        gload.d16.l v5, v7, u[16:17], 0
        mov.vl v5, 0x12345678
        waitcnt vm=0
        endpgm"
    );
    let r = run(&src, vec![arg("d", buf(&halves()))]);
    assert!(r.ok(), "{:?}", r.traps);
    assert_eq!(r.warps[0].v[5][3], 0x1234_0000 | 0x1003);
    assert_eq!(r.hazards.len(), 1, "{:?}", r.hazards);
    assert_eq!(r.hazards[0].kind, HazardKind::Waw);
    assert_eq!(r.hazards[0].register, "v5");
}

#[test]
fn d16_read_before_waitcnt_is_a_raw_hazard() {
    let body = |wait: &str| {
        format!(
            "{PRELUDE}
        gload.d16.h v5, v7, u[16:17], 0
        {wait}
        mov v8, v5
        waitcnt vm=0
        endpgm"
        )
    };
    let r = run(&body(""), vec![arg("d", buf(&halves()))]);
    assert!(r.ok(), "{:?}", r.traps);
    assert_eq!(
        r.warps[0].v[8][0], 0xaaaa_bbbb,
        "the RAW read sees the old value"
    );
    assert_eq!(r.warps[0].v[5][0], 0x1000_bbbb);
    assert_eq!(r.hazards.len(), 1, "{:?}", r.hazards);
    assert_eq!(r.hazards[0].kind, HazardKind::Raw);
    assert_eq!(r.hazards[0].register, "v5");

    let r = run(&body("waitcnt vm=0"), vec![arg("d", buf(&halves()))]);
    assert!(r.hazards.is_empty(), "{:?}", r.hazards);
    assert_eq!(r.warps[0].v[8][0], 0x1000_bbbb);
}

#[test]
fn d16_issue_over_a_pending_d16_reads_the_destination() {
    // The destination is read and written (kind `v*`): a second half load into a register
    // with a pending write-back is a RAW and a WAW hazard, and both halves land in order.
    let src = format!(
        "{PRELUDE}
        gload.d16.l v5, v7, u[16:17], 0
        gload.d16.h v5, v7, u[16:17], 64
        waitcnt vm=0
        endpgm"
    );
    let r = run(&src, vec![arg("d", buf(&halves()))]);
    assert!(r.ok(), "{:?}", r.traps);
    assert_eq!(r.warps[0].v[5][2], ((0x1000 + 32 + 2) << 16) | (0x1000 + 2));
    let kinds: Vec<_> = r.hazards.iter().map(|h| h.kind).collect();
    assert_eq!(kinds, [HazardKind::Raw, HazardKind::Waw], "{:?}", r.hazards);
}

#[test]
fn dsload_d16_from_shared_memory() {
    let src = "sll.vi v7, v3, 2
        mov.vl v9, 0x87654321
        dsstore.b32 v9, v7, 0
        waitcnt ls=0
        mov.vl v5, 0xaaaabbbb
        mov.vl v6, 0xccccdddd
        dsload.d16.l v5, v7, 2
        dsload.d16.h v6, v7, 0
        dsload.d16.h v10, v7, 4096
        waitcnt ls=0
        endpgm";
    let r = run(src, vec![]);
    assert!(r.ok(), "{:?}", r.traps);
    assert!(r.hazards.is_empty(), "{:?}", r.hazards);
    let w = &r.warps[0];
    assert_eq!(w.v[5][7], 0xaaaa_8765);
    assert_eq!(w.v[6][7], 0x4321_dddd);
    assert_eq!(w.v[10][7], 0, "unwritten shared memory reads 0");
}

#[test]
fn d16_faults_write_nothing() {
    for (offset, cause) in [(1, CAUSE_MISALIGNED), (-2, CAUSE_ACCESS_FAULT)] {
        let src = format!(
            "{PRELUDE}
            gload.d16.l v5, v7, u[16:17], {offset}
            waitcnt vm=0
            endpgm"
        );
        let r = run(&src, vec![arg("d", buf(&halves()))]);
        assert_eq!(r.traps.len(), 1);
        assert_eq!(r.traps[0].trap.cause, cause);
        assert_eq!(r.traps[0].address.map(|(_, lane)| lane), Some(0));
        assert_eq!(r.warps[0].v[5][0], 0xaaaa_bbbb);
    }
}

#[test]
fn lanes_spanning_two_buffers_take_the_lane_path_with_the_same_results() {
    // Even lanes read buffer a, odd lanes buffer b: no single region holds the span, so the
    // lane-by-lane path runs; its results must be those of the one-lookup path.
    let src = "uload.b128 u[16:19], u[0:1], 0
        waitcnt sm=0
        sll.vi v7, v3, 2
        and.vi v8, v3, 1
        mov64.vu v[10:11], u[16:17]
        mov64.vu v[12:13], u[18:19]
        sel64 v[14:15], v[12:13], v[10:11], v8
        addzx64 v[14:15], v[14:15], v7
        gload.b32.a64 v20, v[14:15], 0
        gload.b32 v21, v7, u[16:17], 0
        gload.b32 v22, v7, u[18:19], 0
        waitcnt vm=0
        gstore.b32.a64 v3, v[14:15], 128
        waitcnt vst=0
        endpgm";
    let a: Vec<u32> = (0..64).map(|i| 1000 + i).collect();
    let b: Vec<u32> = (0..64).map(|i| 2000 + i).collect();
    let r = run(src, vec![arg("a", buf(&a)), arg("b", buf(&b))]);
    assert!(r.ok(), "{:?}", r.traps);
    let w = &r.warps[0];
    for l in 0..32usize {
        let want = if l % 2 == 1 { w.v[22][l] } else { w.v[21][l] };
        assert_eq!(w.v[20][l], want, "lane {l}");
        assert_eq!(w.v[21][l], 1000 + l as u32);
    }
    let out = |name: &str| -> Vec<u32> {
        r.buffer(name)
            .unwrap()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (oa, ob) = (out("a"), out("b"));
    for l in 0..32usize {
        let (hit, miss) = if l % 2 == 1 { (&ob, &oa) } else { (&oa, &ob) };
        assert_eq!(hit[32 + l], l as u32, "lane {l}");
        assert_eq!(
            miss[32 + l],
            if l % 2 == 1 { 1032 } else { 2032 } + l as u32
        );
    }
}
