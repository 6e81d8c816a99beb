//! Property tests (proptest) for two laws of the model:
//! - results (buffers and state dumps) do not depend on the host thread count;
//! - `waitcnt` with every field 0 after every asynchronous instruction makes every hazard
//!   report disappear.

use proptest::prelude::*;
use warpkit_sim::launch::*;
use warpkit_sim::*;

fn program(src: &str) -> Program {
    match warpkit_asm::assemble(src, "law.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

/// One instruction of a random straight-line program over data registers v1..v6,
/// u22..u25, global memory through u[16:17] (offset v20 = 4*lane + 2048*workgroup: each
/// workgroup has its own window, so workgroups do not race), uniform loads from the
/// read-only buffer u[18:19], and shared memory (offset v21 = 4*lane). Addresses stay in
/// bounds and aligned, so nothing traps.
#[derive(Debug, Clone)]
enum Op {
    GLoad(u8, u16),
    GStore(u8, u16),
    GAtomic(u8, u16, bool),
    DsLoad(u8, u16),
    DsStore(u8, u16),
    ULoad(u8, u16),
    Add(u8, u8, u8),
    MulI(u8, u8, i8),
    AddVU(u8, u8, u8),
    UAdd(u8, u8, u8),
}

impl Op {
    fn text(&self) -> String {
        let v = |r: &u8| format!("v{}", 1 + r % 6);
        let u = |r: &u8| format!("u{}", 22 + r % 4);
        // Offsets: multiples of 4 that keep 32 lanes inside a 2 KiB window.
        let off = |o: &u16| 4 * (o % 256);
        match self {
            Op::GLoad(d, o) => format!("gload.b32 {}, v20, u[16:17], {}", v(d), off(o)),
            Op::GStore(s, o) => format!("gstore.b32 {}, v20, u[16:17], {}", v(s), off(o)),
            Op::GAtomic(s, o, rtn) => format!(
                "gatomic.add{} {}, v20, u[16:17], {}",
                if *rtn { ".rtn" } else { "" },
                v(s),
                off(o)
            ),
            Op::DsLoad(d, o) => format!("dsload.b32 {}, v21, {}", v(d), off(o)),
            Op::DsStore(s, o) => format!("dsstore.b32 {}, v21, {}", v(s), off(o)),
            Op::ULoad(d, o) => format!("uload.b32 {}, u[18:19], {}", u(d), off(o)),
            Op::Add(d, a, b) => format!("add {}, {}, {}", v(d), v(a), v(b)),
            Op::MulI(d, a, k) => format!("mul.vi {}, {}, {k}", v(d), v(a)),
            Op::AddVU(d, a, b) => format!("add.vu {}, {}, {}", v(d), v(a), u(b)),
            Op::UAdd(d, a, b) => format!("uadd {}, {}, {}", u(d), u(a), u(b)),
        }
    }

    fn is_async(&self) -> bool {
        !matches!(
            self,
            Op::Add(..) | Op::MulI(..) | Op::AddVU(..) | Op::UAdd(..)
        )
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<u8>(), any::<u16>()).prop_map(|(d, o)| Op::GLoad(d, o)),
        (any::<u8>(), any::<u16>()).prop_map(|(s, o)| Op::GStore(s, o)),
        (any::<u8>(), any::<u16>(), any::<bool>()).prop_map(|(s, o, r)| Op::GAtomic(s, o, r)),
        (any::<u8>(), any::<u16>()).prop_map(|(d, o)| Op::DsLoad(d, o)),
        (any::<u8>(), any::<u16>()).prop_map(|(s, o)| Op::DsStore(s, o)),
        (any::<u8>(), any::<u16>()).prop_map(|(d, o)| Op::ULoad(d, o)),
        (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(d, a, b)| Op::Add(d, a, b)),
        (any::<u8>(), any::<u8>(), any::<i8>()).prop_map(|(d, a, k)| Op::MulI(d, a, k)),
        (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(d, a, b)| Op::AddVU(d, a, b)),
        (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(d, a, b)| Op::UAdd(d, a, b)),
    ]
}

const PROLOGUE: &str = "uload.b128 u[16:19], u[0:1], 0
    waitcnt sm=0
    sll.vi v20, v3, 2
    uslli u20, u12, 11
    add.vu v20, v20, u20
    sll.vi v21, v3, 2
    add.vi v1, v3, 1
    mul.vi v2, v3, 7
";
const FULL_WAIT: &str = "waitcnt vm=0, vst=0, tex=0, ls=0, sm=0, sfu=0";

fn source(ops: &[Op], wait_after_async: bool) -> String {
    let mut s = PROLOGUE.to_string();
    for o in ops {
        s += &o.text();
        s.push('\n');
        if wait_after_async && o.is_async() {
            s += FULL_WAIT;
            s.push('\n');
        }
    }
    s + "endpgm\n"
}

fn run(src: &str, grid: u32, block: u32, threads: usize) -> LaunchResult {
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 4096,
        threads,
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let buffer = |n: u32| ArgValue::Buffer((0..n).map(|i| (i * 7) as u8).collect());
    launch(
        &program(src),
        &cfg,
        vec![
            Arg {
                name: "m".into(),
                value: buffer(2048 * grid + 2048),
            },
            Arg {
                name: "r".into(),
                value: buffer(1024),
            },
        ],
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn full_waitcnt_after_every_async_instruction_removes_every_hazard(
        ops in proptest::collection::vec(op(), 1..40),
    ) {
        let plain = run(&source(&ops, false), 1, 32, 1);
        prop_assert!(plain.ok(), "{:?}", plain.traps);
        let waited = run(&source(&ops, true), 1, 32, 1);
        prop_assert!(waited.ok(), "{:?}", waited.traps);
        prop_assert_eq!(waited.stats.hazards, 0, "{:?}", waited.hazards);
        prop_assert!(waited.hazards.is_empty());
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count(
        ops in proptest::collection::vec(op(), 1..24),
        grid in 1u32..6,
        block in 1u32..100,
    ) {
        let src = source(&ops, true);
        let one = run(&src, grid, block, 1);
        let two = run(&src, grid, block, 2);
        prop_assert!(one.ok(), "{:?}", one.traps);
        prop_assert!(one.buffers == two.buffers, "buffers differ");
        prop_assert!(
            dump_states_json(one.warps.iter().zip(&one.cores))
                == dump_states_json(two.warps.iter().zip(&two.cores)),
            "dumps differ"
        );
        prop_assert_eq!(one.stats.instructions, two.stats.instructions);
        prop_assert_eq!(one.stats.hazards, two.stats.hazards);
    }
}

/// The law's premise holds: without the waits, such programs do report hazards.
#[test]
fn without_the_waits_hazards_are_reported() {
    let ops = [
        Op::GLoad(0, 0),
        Op::Add(1, 0, 0),
        Op::ULoad(0, 4),
        Op::UAdd(1, 0, 0),
    ];
    let plain = run(&source(&ops, false), 1, 32, 1);
    assert_eq!(plain.stats.hazards, 2, "{:?}", plain.hazards);
    assert_eq!(run(&source(&ops, true), 1, 32, 1).stats.hazards, 0);
}

/// The example kernel vadd at random launch shapes gives the same bytes on 1 and 2 threads.
#[test]
fn vadd_at_random_shapes_does_not_depend_on_threads() {
    let src = include_str!("../../../../examples/vadd.s");
    let mut x = 0x1234_5678_9abc_def1u64;
    for _ in 0..12 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = 1 + (x % 3000) as u32;
        let block = 1 + ((x >> 16) % 256) as u32;
        let grid = n.div_ceil(block);
        let mut outs = Vec::new();
        for threads in [1, 2] {
            let cfg = LaunchConfig {
                grid: [grid, 1, 1],
                block: [block, 1, 1],
                threads,
                ..LaunchConfig::default()
            };
            let a: Vec<u8> = (0..4 * n).map(|i| i as u8).collect();
            let r = launch(
                &program(src),
                &cfg,
                vec![
                    Arg {
                        name: "a".into(),
                        value: ArgValue::Buffer(a.clone()),
                    },
                    Arg {
                        name: "b".into(),
                        value: ArgValue::Buffer(a),
                    },
                    Arg {
                        name: "out".into(),
                        value: ArgValue::Buffer(vec![0; 4 * n as usize]),
                    },
                    Arg {
                        name: "n".into(),
                        value: ArgValue::Int(u64::from(n)),
                    },
                ],
            )
            .unwrap();
            assert!(r.ok(), "n {n} block {block}: {:?}", r.traps);
            outs.push(r.buffers);
        }
        assert_eq!(outs[0], outs[1], "n {n} block {block}");
    }
}
