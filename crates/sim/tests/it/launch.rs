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

fn words(bytes: impl AsRef<[u8]>) -> Vec<u32> {
    bytes
        .as_ref()
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

const VADD: &str = include_str!("../../../../examples/vadd.s");

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
fn buffers_given_as_words_read_back_by_name_as_bytes() {
    let n = 64u32;
    let a: Vec<u32> = (0..n).map(|i| i * 7).collect();
    let b: Vec<u32> = (0..n).map(|i| 1000 + i).collect();
    let args = |as_words: bool| {
        let out = if as_words {
            ArgValue::Words(WordBuffer {
                words: vec![0; n as usize],
                len: 4 * u64::from(n),
            })
        } else {
            ArgValue::Buffer(vec![0; 4 * n as usize])
        };
        // Not a whole number of words: the last word's unused bytes must not come back.
        let tail = ArgValue::Words(WordBuffer {
            words: vec![0x0403_0201, 0x0807_0605],
            len: 6,
        });
        vec![
            arg("a", buf(&a)),
            arg("b", buf(&b)),
            arg("out", out),
            arg("n", ArgValue::Int(u64::from(n))),
            arg("tail", tail),
        ]
    };
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        ..LaunchConfig::default()
    };
    let prog = program(VADD);
    let plain = launch(&prog, &cfg, args(false)).unwrap();
    let moved = launch(&prog, &cfg, args(true)).unwrap();
    assert!(plain.ok() && moved.ok());
    assert!(moved.buffers[2].words.is_some() && moved.buffers[2].bytes.is_empty());
    let out = moved.buffer("out").unwrap();
    assert_eq!(out, plain.buffer("out").unwrap());
    assert_eq!(
        words(out),
        (0..n as usize).map(|i| a[i] + b[i]).collect::<Vec<_>>()
    );
    assert_eq!(moved.buffer("tail").unwrap(), &[1u8, 2, 3, 4, 5, 6][..]);
    assert_eq!(moved.buffer("missing"), None);
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
    assert_eq!(w.csr.code_lo(), CODE_BASE as u32);
    assert_eq!(w.csr.warpid(), 1);
    assert_eq!(w.csr.wgslot(), 1);
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

fn run_kept(src: &str, args: Vec<Arg>) -> LaunchResult {
    let cfg = LaunchConfig {
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let r = launch(&program(src), &cfg, args).unwrap();
    assert!(r.ok(), "{:?}", r.traps);
    r
}

#[test]
fn load_widths_and_extension() {
    let data = [
        0x8180_ff7fu32,
        0x1122_3344,
        0x5566_7788,
        0x99aa_bbcc,
        0xdead_beef,
    ];
    let src = "uload.b64 u[16:17], u[0:1], 0
        waitcnt sm=0
        movi v10, 0
        movi v11, 2
        gload.u8 v1, v10, u[16:17], 0
        gload.i8 v2, v10, u[16:17], 1
        gload.u16 v3, v11, u[16:17], 0
        gload.i16 v4, v11, u[16:17], 0
        gload.b32 v5, v10, u[16:17], 4
        gload.b64 v[6:7], v10, u[16:17], 4
        gload.b128 v[12:15], v10, u[16:17], 4
        mov64.vu v[20:21], u[16:17]
        gload.i8.a64 v22, v[20:21], 3
        gload.b32.a64 v23, v[20:21], 16
        uload.b128 u[20:23], u[16:17], 4
        uload.b256 u[24:31], u[16:17], 0
        waitcnt vm=0, sm=0
        endpgm";
    let mut padded = data.to_vec();
    padded.resize(16, 0);
    let r = run_kept(src, vec![arg("d", buf(&padded))]);
    let w = &r.warps[0];
    let lane = |r: usize| w.v[r][9];
    assert_eq!(lane(1), 0x7f);
    assert_eq!(lane(2), 0xffff_ffff, "sext(0xff)");
    assert_eq!(lane(3), 0x8180);
    assert_eq!(lane(4), 0xffff_8180);
    assert_eq!(lane(5), 0x1122_3344);
    assert_eq!((lane(6), lane(7)), (0x1122_3344, 0x5566_7788));
    assert_eq!(
        (lane(12), lane(13), lane(14), lane(15)),
        (0x1122_3344, 0x5566_7788, 0x99aa_bbcc, 0xdead_beef)
    );
    assert_eq!(lane(22), 0xffff_ff81);
    assert_eq!(lane(23), 0xdead_beef);
    assert_eq!(&w.u[20..24], &data[1..5]);
    assert_eq!(&w.u[24..29], &data[..]);
}

#[test]
fn store_widths() {
    let src = "uload.b64 u[16:17], u[0:1], 0
        waitcnt sm=0
        movi v10, 0
        mov.vl v1, 0xaabbccdd
        mov.vl v2, 0x11223344
        mov.vl v3, 0x55667788
        mov.vl v4, 0x99000099
        gstore.b8 v1, v10, u[16:17], 1
        gstore.b16 v1, v10, u[16:17], 6
        gstore.b64 v[2:3], v10, u[16:17], 8
        gstore.b128 v[1:4], v10, u[16:17], 16
        mov64.vu v[20:21], u[16:17]
        gstore.b32.a64 v4, v[20:21], 32
        waitcnt vst=0
        endpgm";
    let r = run_kept(src, vec![arg("m", ArgValue::Buffer(vec![0; 40]))]);
    assert_eq!(
        words(r.buffer("m").unwrap()),
        vec![
            0x0000_dd00,
            0xccdd_0000,
            0x1122_3344,
            0x5566_7788,
            0xaabb_ccdd,
            0x1122_3344,
            0x5566_7788,
            0x9900_0099,
            0x9900_0099,
            0
        ]
    );
}

#[test]
fn every_atomic() {
    // One active lane, so each atomic applies once; m[k] starts at 10, data 3 (cmpswap: 10 -> 99).
    let ops = [
        ("add", 13u32),
        ("sub", 7),
        ("smin", 3),
        ("umin", 3),
        ("smax", 10),
        ("umax", 10),
        ("and", 2),
        ("or", 11),
        ("xor", 9),
        ("swap", 3),
    ];
    for (op, expect) in ops {
        for rtn in [false, true] {
            let suffix = if rtn { ".rtn" } else { "" };
            let src = format!(
                "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nmovi v10, 0\nmovi v1, 3\ngatomic.{op}{suffix} v1, v10, u[16:17], 0\nmovi v5, 0\ndsstore.b32 v5, v10, 0\nmovi v6, 10\ndsstore.b32 v6, v10, 0\nmovi v2, 3\ndsatomic.{op}{suffix} v2, v10, 0\ndsload.b32 v3, v10, 0\nwaitcnt vm=0, vst=0, ls=0\nendpgm"
            );
            let cfg = LaunchConfig {
                block: [1, 1, 1],
                keep_warps: true,
                ..LaunchConfig::default()
            };
            let r = launch(&program(&src), &cfg, vec![arg("m", buf(&[10]))]).unwrap();
            assert!(r.ok(), "{op}{suffix}: {:?}", r.traps);
            assert_eq!(
                words(r.buffer("m").unwrap())[0],
                expect,
                "gatomic.{op}{suffix}"
            );
            let w = &r.warps[0];
            assert_eq!(w.v[3][0], expect, "dsatomic.{op}{suffix}");
            let old = if rtn { 10 } else { 3 };
            assert_eq!(
                (w.v[1][0], w.v[2][0]),
                (old, old),
                "{op}{suffix} return value"
            );
        }
    }
    // Signed versus unsigned min/max on a negative value.
    let src = "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nmovi v10, 0\nmovi v1, -1\ngatomic.smin v1, v10, u[16:17], 0\ngatomic.umax v1, v10, u[16:17], 4\ngatomic.umin v1, v10, u[16:17], 8\ngatomic.smax v1, v10, u[16:17], 12\nendpgm";
    let cfg = LaunchConfig {
        block: [1, 1, 1],
        ..LaunchConfig::default()
    };
    let r = launch(&program(src), &cfg, vec![arg("m", buf(&[5, 5, 5, 5]))]).unwrap();
    assert_eq!(
        words(r.buffer("m").unwrap()),
        vec![u32::MAX, u32::MAX, 5, 5]
    );
    // cmpswap: the pair's low register is the compare value, the high one the new value.
    let src = "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nmovi v10, 0\nmovi v2, 10\nmovi v3, 99\ngatomic.cmpswap.rtn v[2:3], v10, u[16:17], 0\ngatomic.cmpswap v[2:3], v10, u[16:17], 4\nwaitcnt vm=0\nendpgm";
    let cfg = LaunchConfig {
        block: [1, 1, 1],
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let r = launch(&program(src), &cfg, vec![arg("m", buf(&[10, 11]))]).unwrap();
    assert_eq!(words(r.buffer("m").unwrap()), vec![99, 11]);
    assert_eq!((r.warps[0].v[2][0], r.warps[0].v[3][0]), (10, 99));
}

#[test]
fn vm_saturates_at_62() {
    // 63 loads into v1..v63 with the data word k+1; the 63rd issue retires the first.
    let mut src = String::from("uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nmovi v100, 0\n");
    for k in 0..63 {
        src += &format!("gload.b32 v{}, v100, u[16:17], {}\n", k + 1, 4 * k);
    }
    src += "mov v101, v1\nmov v102, v2\nendpgm";
    let data: Vec<u32> = (1..=63).collect();
    let r = run_kept(&src, vec![arg("d", buf(&data))]);
    let w = &r.warps[0];
    assert_eq!(w.v[101][0], 1, "retired by saturation");
    assert_eq!(w.v[102][0], 0, "still pending");
    assert_eq!(w.v[63][0], 63, "drained by endpgm");
    assert!(r.hazards.iter().any(|h| h.register == "v2"));
    assert!(!r.hazards.iter().any(|h| h.register == "v1"));
}

#[test]
fn waw_between_two_pending_loads() {
    let src = "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nmovi v10, 0\ngload.b32 v1, v10, u[16:17], 0\ngload.b32 v1, v10, u[16:17], 4\nwaitcnt vm=0\nendpgm";
    let r = run_kept(src, vec![arg("d", buf(&[1, 2]))]);
    assert_eq!(r.hazards.len(), 1);
    assert_eq!(r.hazards[0].kind, HazardKind::Waw);
    assert_eq!(
        r.warps[0].v[1][0], 2,
        "retired in order: the younger write wins"
    );
    let src = "uload.b64 u[16:17], u[0:1], 0\nwaitcnt sm=0\nmovi v10, 0\ngload.b32 v1, v10, u[16:17], 0\nwaitcnt vm=0\ngload.b32 v1, v10, u[16:17], 4\nwaitcnt vm=0\nendpgm";
    let r = run_kept(src, vec![arg("d", buf(&[1, 2]))]);
    assert!(r.hazards.is_empty());
}

#[test]
fn results_do_not_depend_on_threads() {
    // Each workgroup adds its id to a shared counter and writes its own slot.
    let src = "uload.b128 u[16:19], u[0:1], 0
        waitcnt sm=0
        mov.vu v1, u12
        movi v10, 0
        gatomic.add v1, v10, u[16:17], 0
        sll.vi v11, v3, 2
        uslli u20, u12, 7
        add.vu v11, v11, u20
        mul.vi v12, v3, 3
        gstore.b32 v12, v11, u[18:19], 0
        endpgm";
    let run = |threads: usize| {
        let cfg = LaunchConfig {
            grid: [5, 3, 2],
            block: [16, 2, 1],
            threads,
            ..LaunchConfig::default()
        };
        let r = launch(
            &program(src),
            &cfg,
            vec![
                arg("sum", ArgValue::Buffer(vec![0; 4])),
                arg("out", ArgValue::Buffer(vec![0; 30 * 32 * 4])),
            ],
        )
        .unwrap();
        assert!(r.ok());
        (
            r.buffer("sum").unwrap().to_vec(),
            r.buffer("out").unwrap().to_vec(),
        )
    };
    let mut outs: Vec<_> = [1, 2, 3].into_iter().map(run).collect();
    // Launches started from the workers of a pool of their own size run on that pool
    // (`warpkit examples` runs its kernels side by side so): several at once, the same.
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        outs.extend(pool.install(|| {
            use rayon::prelude::*;
            (0..4)
                .into_par_iter()
                .map(|_| run(threads))
                .collect::<Vec<_>>()
        }));
    }
    assert_eq!(outs.len(), 11);
    assert!(outs.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(words(&outs[0].0)[0], 32 * (0..30).sum::<u32>());
    let out = words(&outs[0].1);
    assert!((0..30 * 32).all(|i| out[i] == 3 * (i as u32 % 32)));
}

#[test]
fn store_data_and_addresses_are_reads() {
    // The stored register and the address registers count as reads for hazards.
    let src = "uload.b64 u[16:17], u[0:1], 0
        waitcnt sm=0
        movi v10, 0
        gload.b32 v1, v10, u[16:17], 0
        gstore.b32 v1, v10, u[16:17], 4
        gload.b32 v2, v1, u[16:17], 0
        waitcnt vm=0, vst=0
        endpgm";
    let r = launch(
        &program(src),
        &LaunchConfig::default(),
        vec![arg("d", buf(&[0, 0]))],
    )
    .unwrap();
    let regs: Vec<(HazardKind, &str, u32)> = r
        .hazards
        .iter()
        .map(|h| (h.kind, h.register.as_str(), h.pc))
        .collect();
    assert_eq!(
        regs,
        vec![(HazardKind::Raw, "v1", 24), (HazardKind::Raw, "v1", 32)]
    );
}

#[test]
fn random_programs_with_memory_never_panic() {
    // Random words biased towards the memory opcodes, run with a mapped buffer and shared
    // memory: every outcome is a clean end, trap or step limit.
    let memory_opcodes = [0x31u64, 0x35, 0x39, 0x3d, 0x15, 0x70, 0x72];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..200 {
        let mut text = Vec::new();
        for _ in 0..48 {
            let r = next();
            let word = if r % 3 == 0 {
                (r & !0x7f) | memory_opcodes[(r >> 60) as usize % memory_opcodes.len()]
            } else {
                r
            };
            text.extend_from_slice(&word.to_le_bytes()[..if word & 1 == 1 { 8 } else { 4 }]);
        }
        let cfg = LaunchConfig {
            block: [40 + round % 30, 1, 1],
            shared_bytes: 256,
            max_steps: 2000,
            keep_warps: true,
            threads: 1,
            ..LaunchConfig::default()
        };
        let prog = Program::new(text);
        let args = vec![arg("b", ArgValue::Buffer(vec![0xa5; 4096]))];
        if round % 10 == 0 {
            let format = if round % 20 == 0 {
                TraceFormat::Json
            } else {
                TraceFormat::Text
            };
            let (_, out) = launch_traced(&prog, &cfg, args.clone(), Vec::new(), format).unwrap();
            assert!(out.is_ok());
        }
        let r = launch(&prog, &cfg, args).unwrap();
        let _ = dump_states_json(r.warps.iter().zip(&r.cores));
        for h in &r.hazards {
            let _ = h.to_string();
        }
    }
}

#[test]
fn launch_limits() {
    let p = program("endpgm");
    let bad = |cfg: LaunchConfig| launch(&p, &cfg, vec![]).unwrap_err();
    assert!(matches!(
        bad(LaunchConfig {
            grid: [0, 1, 1],
            ..LaunchConfig::default()
        }),
        LaunchError::ZeroDimension { .. }
    ));
    assert!(matches!(
        bad(LaunchConfig {
            block: [32, 32, 2],
            ..LaunchConfig::default()
        }),
        LaunchError::BlockTooLarge(2048)
    ));
    assert!(matches!(
        bad(LaunchConfig {
            shared_bytes: u32::MAX,
            ..LaunchConfig::default()
        }),
        LaunchError::SharedTooLarge(_)
    ));
    assert!(matches!(
        bad(LaunchConfig {
            grid: [1 << 17, 1, 1],
            keep_warps: true,
            ..LaunchConfig::default()
        }),
        LaunchError::TooManyKeptWarps(_)
    ));
}

#[test]
fn an_access_straddling_the_end_of_a_mapping_reports_its_start() {
    // An 8-byte load at the last 4 bytes of a 16-byte buffer: bytes 12..16 are mapped,
    // 16..20 are not; trapinfo and the reported address are the access's start.
    let src = "uload.b64 u[4:5], u[0:1], 0\nwaitcnt sm=0\nmovi v4, 12\n\
               gload.b64 v[6:7], v4, u[4:5], 0\nwaitcnt vm=0\nendpgm";
    let cfg = LaunchConfig {
        block: [1, 1, 1],
        threads: 1,
        ..LaunchConfig::default()
    };
    let r = launch(&program(src), &cfg, vec![arg("b", buf(&[1, 2, 3, 4]))]).unwrap();
    let t = &r.traps[0];
    assert_eq!(t.trap.cause, CAUSE_ACCESS_FAULT);
    assert_eq!(t.trap.info, (BUFFER_BASE + 12) as u32);
    assert_eq!(t.address, Some((BUFFER_BASE + 12, 0)));
}

#[test]
fn dumps_name_each_warps_status() {
    // Workgroup 0: warp 0 traps before the barrier, so warp 1 waits there forever
    // (deadlocked). Workgroup 1: warp 0 spins into the step limit, warp 1 ends.
    let src = "bnz u2, second\nbnz u29, wait\ncsrw clock, u0\nwait:\nbarrier\nendpgm\n\
               second:\nbnz u29, done\nspin:\njmp spin\ndone:\nendpgm";
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [64, 1, 1],
        threads: 1,
        max_steps: 50,
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let r = launch(&program(src), &cfg, Vec::new()).unwrap();
    let dump: serde_json::Value =
        serde_json::from_str(&dump_states_json(r.warps.iter().zip(&r.cores))).unwrap();
    let status: Vec<&str> = dump["warps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["status"].as_str().unwrap())
        .collect();
    assert_eq!(status, ["trapped", "deadlocked", "step_limit", "ended"]);
    // A deadlock is a finished run, not an interrupted one.
    assert_eq!(r.deadlocks.len(), 1);
    assert_eq!(r.interrupted, None);
    assert_eq!(status_name(WarpStatus::AtBarrier, false), "barrier");
    assert_eq!(status_name(WarpStatus::Running, false), "running");
    // Every earlier key is still there.
    let w = &dump["warps"][0];
    for k in [
        "workgroup",
        "warp",
        "pc",
        "exec",
        "u",
        "v",
        "csr",
        "trap",
        "status",
    ] {
        assert!(w.get(k).is_some(), "{k}");
    }
}

#[test]
fn the_total_step_budget_is_shared_out_per_workgroup() {
    assert_eq!(total_steps_share(1003, 5, 0), 201);
    assert_eq!(total_steps_share(1003, 5, 2), 201);
    assert_eq!(total_steps_share(1003, 5, 3), 200);
    let prog = program("spin:\njmp spin");
    let mut seen = Vec::new();
    for threads in [1, 2] {
        let cfg = LaunchConfig {
            grid: [5, 1, 1],
            block: [64, 1, 1],
            threads,
            max_total_steps: Some(1003),
            keep_warps: true,
            ..LaunchConfig::default()
        };
        let r = launch(&prog, &cfg, Vec::new()).unwrap();
        assert_eq!(r.step_limits.len(), 10);
        let steps: Vec<u64> = r.warps.iter().map(|w| w.steps).collect();
        assert_eq!(steps, [201, 0, 201, 0, 201, 0, 200, 0, 200, 0]);
        seen.push(dump_states_json(r.warps.iter().zip(&r.cores)));
    }
    assert_eq!(seen[0], seen[1]);
}

/// The fenced `asm` blocks of a document, in order (indented ones too).
pub fn asm_blocks(doc: &str) -> Vec<String> {
    doc.split("```asm\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().to_string())
        .collect()
}

fn run_one_warp(src: &str, args: Vec<Arg>) -> LaunchResult {
    let cfg = LaunchConfig {
        block: [32, 1, 1],
        threads: 1,
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let r = launch(&program(src), &cfg, args).unwrap();
    assert!(r.ok(), "{src}\n{r:?}");
    r
}

#[test]
fn the_worked_idioms_of_abi_md_run_as_documented() {
    let blocks: Vec<String> = asm_blocks(include_str!("../../../../docs/abi.md"))
        .into_iter()
        .filter(|b| !b.contains("scratch_lo"))
        .collect();
    assert_eq!(blocks.len(), 2);
    let r = run_one_warp(&format!("{}\nendpgm\n", blocks[0]), Vec::new());
    let w = &r.warps[0];
    for l in 0..32u32 {
        let want = if l < 8 { l * 2 } else { l + 100 };
        assert_eq!(w.v[5][l as usize], want, "if/else, lane {l}");
    }
    assert_eq!(w.exec(), u32::MAX);
    let r = run_one_warp(&format!("{}\nendpgm\n", blocks[1]), Vec::new());
    let w = &r.warps[0];
    for l in 0..32u32 {
        assert_eq!(w.v[6][l as usize], l * (l + 1) / 2, "loop, lane {l}");
    }
    assert_eq!(w.exec(), u32::MAX);
}

#[test]
fn the_trap_handler_of_provisional_md_resumes_after_the_instruction() {
    let blocks = asm_blocks(include_str!("../../../../docs/provisional.md"));
    let handler = blocks
        .iter()
        .find(|b| b.contains("handler:"))
        .expect("a handler block");
    // A 64-bit instruction faults (an unmapped load), then a 32-bit one (a read-only CSR
    // write); after each the handler resumes at the next instruction.
    let src = format!(
        "    upc       u1, handler\n    csrw      trapbase, u1\n    umovi     u2, 0\n\
         umovi     u3, 0\n    movi      v1, 0\n    gload.b64 v[4:5], v1, u[2:3], 0\n\
         movi      v6, 7\n    csrw      clock, u0\n    movi      v7, 9\n    endpgm\n{handler}"
    );
    let r = run_one_warp(&src, Vec::new());
    let w = &r.warps[0];
    assert_eq!(w.v[6][0], 7, "resumed after the 64-bit load");
    assert_eq!(w.v[7][31], 9, "resumed after the 32-bit csrw");
    assert_eq!(w.csr.trapcause(), 9);
    assert_eq!(w.v[4][0], 0, "the faulting load wrote nothing");
}

/// A program with its `.data`, as a launch of an assembled `.s` or ELF maps it.
fn program_with_data(src: &str) -> Program {
    match warpkit_asm::assemble(src, "test.s") {
        Ok(p) => Program::with_data(p.text, p.data),
        Err(e) => panic!("{}", e.render(src)),
    }
}

#[test]
fn code_is_read_only_on_every_store_path() {
    // u[2:3] = the code's own address. Loads read the code; every kind of write to it
    // faults with cause 5 and changes nothing: all lanes at one address (the fast path),
    // lanes at different words, a 64-bit-address store, an atomic.
    let cfg = LaunchConfig {
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let head = "upca u[2:3], 0\nsll.vi v4, v3, 2\nmovi v1, 7\nmovi v0, 0\n";
    let r = launch(
        &program(&format!(
            "{head}gload.b32 v5, v0, u[2:3], 0\nwaitcnt vm=0\nendpgm"
        )),
        &cfg,
        Vec::new(),
    )
    .unwrap();
    assert!(r.ok(), "{:?}", r.traps);
    let first = program(head).text()[..4].to_vec();
    assert_eq!(
        r.warps[0].v[5][0],
        u32::from_le_bytes(first.try_into().unwrap())
    );
    for write in [
        "gstore.b32 v1, v0, u[2:3], 0",
        "gstore.b32 v1, v4, u[2:3], 0\n// lanes past the code: the lowest faulting lane is 0",
        "and.vi v4, v4, 12\ngstore.b32 v1, v4, u[2:3], 0",
        "and.vi v8, v3, 7\ngstore.b8 v1, v8, u[2:3], 1",
        "mov.vu v20, u2\nmov.vu v21, u3\ngstore.b32.a64 v1, v[20:21], 4",
        "gatomic.add v1, v4, u[2:3], 0",
        "gatomic.add.rtn v1, v0, u[2:3], 0",
    ] {
        let prog = program(&format!("{head}{write}\nwaitcnt vm=0\nendpgm"));
        let r = launch(&prog, &cfg, Vec::new()).unwrap();
        assert_eq!(r.traps.len(), 1, "{write}");
        assert_eq!(r.traps[0].trap.cause, CAUSE_ACCESS_FAULT, "{write}");
        assert_eq!(
            r.warps[0].v[1][0], 7,
            "{write}: the trapping atomic wrote nothing"
        );
    }
}

#[test]
fn data_is_mapped_read_write_after_the_code() {
    // `.data` sits at CODE_BASE + the code size rounded up to 16; `upca` reaches it, a
    // store changes it, and every lane sees the word it stored.
    let src = "upca u[2:3], table\nsll.vi v4, v3, 2\ngload.b32 v5, v4, u[2:3], 0\nwaitcnt vm=0\n\
               add.vi v5, v5, 1\ngstore.b32 v5, v4, u[2:3], 0\ngload.b32 v6, v4, u[2:3], 0\n\
               waitcnt vm=0, vst=0\nendpgm\n\
               .data\n.word 0xdead\ntable:\n.rept 32\n.word 100\n.endr\n";
    let prog = program_with_data(src);
    assert_eq!(
        prog.data_offset(),
        prog.text().len().next_multiple_of(16) as u64
    );
    let cfg = LaunchConfig {
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let r = launch(&prog, &cfg, Vec::new()).unwrap();
    assert!(r.ok(), "{:?}", r.traps);
    assert_eq!(
        r.warps[0].u[2] as u64 | (r.warps[0].u[3] as u64) << 32,
        CODE_BASE + prog.data_offset() + 4
    );
    assert_eq!(r.warps[0].v[5], [101; 32]);
    assert_eq!(r.warps[0].v[6], [101; 32]);
    // Without its data, the same code faults there.
    let bare = program(src);
    let r = launch(&bare, &cfg, Vec::new()).unwrap();
    assert_eq!(r.traps[0].trap.cause, CAUSE_ACCESS_FAULT);
}
