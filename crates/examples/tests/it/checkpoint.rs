//! Checkpoints: a run saved after N instructions and resumed gives the same buffers, state
//! dump, reports and commit-log tail as a run that never stopped, at random cut points
//! over real kernels (shared memory and barriers, asynchronous loads and `waitcnt`,
//! shared and global atomics, SFU transcendentals, traps and a deadlock); and the reader
//! refuses damaged, truncated and foreign bytes with an error, never a panic.

use proptest::prelude::*;
use warpkit_examples::{find, Size, StageArg};
use warpkit_sim::launch::checkpoint::{frame, Checkpoint, CheckpointError, FORMAT_VERSION, MAGIC};
use warpkit_sim::launch::{Arg, ArgValue, LaunchConfig, LaunchResult, Progress, Session};
use warpkit_sim::{dump_states_json, Program, TraceFormat, WriteTracer};

/// A launch to cut: program, configuration and arguments.
struct Kernel {
    name: &'static str,
    program: Program,
    config: LaunchConfig,
    args: Vec<Arg>,
}

/// Stage 0 of example `name` at its small size, shrunk to `grid` workgroups.
fn example(name: &'static str, grid: u32) -> Kernel {
    let ex = find(name).expect("example exists");
    let case = ex.case(Size::Small);
    let stage = &case.stages[0];
    let args = stage
        .args
        .iter()
        .map(|(n, v)| Arg {
            name: n.clone(),
            value: match v {
                StageArg::Int(x) => ArgValue::Int(*x),
                StageArg::Bytes(b) => ArgValue::Buffer(b.clone()),
                StageArg::Zeroed(n) => ArgValue::Buffer(vec![0; *n]),
                StageArg::Output { .. } => panic!("{name}: stage 0 reads no earlier stage"),
            },
        })
        .collect();
    let code = ex.code().expect("assembles");
    Kernel {
        name,
        config: LaunchConfig {
            grid: [grid.min(stage.grid[0]), stage.grid[1], stage.grid[2]],
            threads: 1,
            keep_warps: true,
            ..code.config(stage)
        },
        program: code.program,
        args,
    }
}

/// A hand-written kernel on `grid` x 64 threads, with one buffer `out` of 1 KiB.
fn handwritten(name: &'static str, src: &str, grid: u32, max_steps: u64) -> Kernel {
    let object = warpkit_asm::assemble(src, "k.s").unwrap_or_else(|e| panic!("{}", e.render(src)));
    Kernel {
        name,
        program: Program::with_data(object.text, object.data),
        config: LaunchConfig {
            grid: [grid, 1, 1],
            block: [64, 1, 1],
            threads: 1,
            keep_warps: true,
            max_steps,
            ..LaunchConfig::default()
        },
        args: vec![Arg {
            name: "out".into(),
            value: ArgValue::Buffer(vec![0; 1024]),
        }],
    }
}

/// Warp 1 of each workgroup traps (a misaligned store) after filling its part of `out`;
/// warp 0 stores, then waits at a barrier warp 1 never reaches: a trap and a deadlock.
const TRAP_AND_DEADLOCK: &str = "
    uload.b64 u[16:17], u[0:1], 0
    waitcnt sm=0
    sll.vi v4, v3, 2
    umul u20, u2, u8
    uslli u20, u20, 2
    add.vu v4, v4, u20
    mul.vi v5, v3, 3
    gstore.b32 v5, v4, u[16:17], 0
    bnz u29, .Ltrap
    barrier
    endpgm
.Ltrap:
    gstore.b32 v5, v4, u[16:17], 2
    endpgm
";

/// A runaway loop that hits the per-warp step limit, with FP work in flight.
const RUNAWAY: &str = "
    cvt.f32.u32 v6, v3
.Ltop:
    fadd.f32 v6, v6, v6
    frsq.f32 v7, v6
    fexp2.f32 v8, v7
    jmp .Ltop
";

/// What a run produced that must not depend on where it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Results {
    buffers: Vec<(String, Vec<u8>)>,
    dump: String,
    traps: String,
    limits: String,
    deadlocks: String,
    hazards: String,
    counts: (u64, u64, u64, u64),
    /// The commit log without its header line.
    trace: Vec<String>,
}

fn results(r: &LaunchResult, trace: Vec<String>) -> Results {
    Results {
        buffers: r
            .buffers
            .iter()
            .map(|b| (b.name.clone(), b.bytes.clone()))
            .collect(),
        dump: dump_states_json(r.warps.iter().zip(&r.cores)),
        traps: format!("{:?}", r.traps),
        limits: format!("{:?}", r.step_limits),
        deadlocks: format!("{:?}", r.deadlocks),
        hazards: format!("{:?}", r.hazards),
        counts: (
            r.stats.workgroups,
            r.stats.warps,
            r.stats.instructions,
            r.stats.lane_ops,
        ),
        trace,
    }
}

/// The first part of `got` that differs from `want`, briefly (the full values are
/// megabytes).
fn difference(got: &Results, want: &Results) -> Option<String> {
    if got.buffers != want.buffers {
        return Some("buffers".into());
    }
    let first_line = |a: &str, b: &str| {
        let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        let from = at.saturating_sub(80);
        format!(
            "at byte {at}: got …{}… want …{}…",
            &a[from..a.len().min(at + 80)],
            &b[from..b.len().min(at + 80)]
        )
    };
    for (name, a, b) in [
        ("dump", &got.dump, &want.dump),
        ("traps", &got.traps, &want.traps),
        ("step limits", &got.limits, &want.limits),
        ("deadlocks", &got.deadlocks, &want.deadlocks),
        ("hazards", &got.hazards, &want.hazards),
    ] {
        if a != b {
            return Some(format!("{name} {}", first_line(a, b)));
        }
    }
    if got.counts != want.counts {
        return Some(format!("counts {:?} != {:?}", got.counts, want.counts));
    }
    if got.trace != want.trace {
        let at = got
            .trace
            .iter()
            .zip(&want.trace)
            .take_while(|(a, b)| a == b)
            .count();
        return Some(format!(
            "trace record {at} of {}/{}: got {:?} want {:?}",
            got.trace.len(),
            want.trace.len(),
            got.trace.get(at),
            want.trace.get(at)
        ));
    }
    None
}

fn tracer() -> WriteTracer<Vec<u8>> {
    WriteTracer::new(Vec::new(), TraceFormat::Json)
}

/// The records of a commit log, without the header.
fn records(t: WriteTracer<Vec<u8>>) -> Vec<String> {
    let bytes = t.finish().expect("in memory");
    let text = String::from_utf8(bytes).expect("UTF-8");
    text.lines().skip(1).map(str::to_string).collect()
}

/// The run that never stops, and the instructions it attempts.
fn straight(k: &Kernel) -> (Results, u64) {
    let mut s = Session::new(&k.program, &k.config, k.args.clone()).expect("launches");
    let mut t = tracer();
    while s.run(&mut t) == Progress::Paused {}
    let steps = s.attempted();
    let r = s.finish();
    (results(&r, records(t)), steps)
}

/// Run `k` through checkpoints taken at each of `cuts` (ascending), each read back from
/// its bytes and resumed, then to the end.
fn through(k: &Kernel, cuts: &[u64]) -> Results {
    let mut trace = Vec::new();
    let mut bytes: Option<Vec<u8>> = None;
    for &n in cuts {
        let mut t = tracer();
        let saved = match bytes.take() {
            None => {
                let mut s = Session::new(&k.program, &k.config, k.args.clone()).expect("launches");
                s.run_to_step(n, &mut t);
                assert!(
                    s.finished() || s.attempted() == n,
                    "{}: paused at {n}",
                    k.name
                );
                s.checkpoint()
            }
            Some(b) => {
                let ck = Checkpoint::decode(&b).expect("reads back");
                let program = ck.program();
                let mut s = Session::resume(&program, ck).expect("resumes");
                s.run_to_step(n, &mut t);
                s.checkpoint()
            }
        };
        trace.extend(records(t));
        bytes = Some(saved);
    }
    let ck = Checkpoint::decode(&bytes.expect("at least one cut")).expect("reads back");
    let program = ck.program();
    let mut s = Session::resume(&program, ck).expect("resumes");
    let mut t = tracer();
    while s.run(&mut t) == Progress::Paused {}
    let r = s.finish();
    trace.extend(records(t));
    results(&r, trace)
}

/// As [`through`] with one cut, resumed with the rest of the grid on `threads` host
/// threads and no trace.
fn resumed_parallel(k: &Kernel, cut: u64, threads: usize) -> Results {
    let mut s = Session::new(&k.program, &k.config, k.args.clone()).expect("launches");
    s.run_to_step(cut, &mut warpkit_sim::NoHooks);
    let ck = Checkpoint::decode(&s.checkpoint()).expect("reads back");
    let program = ck.program();
    let mut s = Session::resume(&program, ck).expect("resumes");
    s.set_threads(threads);
    let r = s
        .finish_parallel(&std::sync::atomic::AtomicU64::new(0))
        .expect("runs");
    results(&r, Vec::new())
}

fn kernels() -> Vec<Kernel> {
    vec![
        example("histogram", 2),
        example("reduce", 2),
        example("softmax", 2),
        example("bitonic", 1),
        handwritten("trap_and_deadlock", TRAP_AND_DEADLOCK, 3, 1000),
        handwritten("runaway", RUNAWAY, 2, 300),
    ]
}

/// The kernels with their uninterrupted results, computed once.
fn baselines() -> &'static [(Kernel, Results, u64)] {
    static B: std::sync::OnceLock<Vec<(Kernel, Results, u64)>> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        kernels()
            .into_iter()
            .map(|k| {
                let (r, steps) = straight(&k);
                (k, r, steps)
            })
            .collect()
    })
}

#[test]
fn kernels_exercise_what_they_claim() {
    for (k, r, steps) in baselines() {
        assert!(*steps >= 50, "{}: {steps} steps", k.name);
        match k.name {
            "trap_and_deadlock" => {
                assert!(r.traps.contains("cause: 4"), "{}", r.traps);
                assert!(r.deadlocks.contains("waiting"), "{}", r.deadlocks);
            }
            "runaway" => assert!(r.limits.contains("steps: 300"), "{}", r.limits),
            _ => assert_eq!(r.traps, "[]", "{}", k.name),
        }
    }
}

// Sessions compiled in the test profile run these kernels in milliseconds; a few dozen
// cases in all keep the suite fast.
proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn resume_equals_an_uninterrupted_run(which in 0usize..6, cut in 0.0f64..1.0) {
        let (k, want, steps) = &baselines()[which];
        let n = (cut * *steps as f64) as u64;
        let got = through(k, &[n]);
        let diff = difference(&got, want);
        prop_assert!(diff.is_none(), "{} cut at {} of {}: {:?}", k.name, n, steps, diff);
    }

    #[test]
    fn a_chain_of_two_checkpoints(which in 0usize..6, a in 0.0f64..1.0, b in 0.0f64..1.0) {
        let (k, want, steps) = &baselines()[which];
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        let cuts = [(lo * *steps as f64) as u64, (hi * *steps as f64) as u64];
        let got = through(k, &cuts);
        let diff = difference(&got, want);
        prop_assert!(diff.is_none(), "{} cut at {:?} of {}: {:?}", k.name, cuts, steps, diff);
    }

    #[test]
    fn resuming_on_several_host_threads(which in 0usize..6, cut in 0.0f64..1.0) {
        let (k, want, steps) = &baselines()[which];
        let n = (cut * *steps as f64) as u64;
        let got = resumed_parallel(k, n, 2);
        let diff = difference(&got, &Results { trace: Vec::new(), ..want.clone() });
        prop_assert!(diff.is_none(), "{} cut at {}: {:?}", k.name, n, diff);
    }

    /// Random payloads behind a valid header reach the decoder: it refuses or accepts,
    /// never panics; an accepted one resumes.
    #[test]
    fn random_payloads_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(ck) = Checkpoint::decode(&frame(&payload)) {
            let program = ck.program();
            let _ = Session::resume(&program, ck);
        }
    }

    /// A real payload with bytes changed (and the checksum made to match) is refused or
    /// read, never a panic.
    #[test]
    fn mutated_payloads_never_panic(
        which in 0usize..6,
        at in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in proptest::collection::vec(any::<prop::sample::Index>(), 0..2),
    ) {
        let (k, _, steps) = &baselines()[which];
        let mut s = Session::new(&k.program, &k.config, k.args.clone()).expect("launches");
        s.run_to_step(steps / 2, &mut warpkit_sim::NoHooks);
        let bytes = s.checkpoint();
        let mut payload = bytes[24..].to_vec();
        for (i, b) in &at {
            let i = i.index(payload.len());
            payload[i] = *b;
        }
        for c in &cut {
            let i = c.index(payload.len());
            payload.truncate(i);
        }
        if let Ok(ck) = Checkpoint::decode(&frame(&payload)) {
            let program = ck.program();
            let _ = Session::resume(&program, ck);
        }
    }

    /// Random bytes, and random bytes after the magic, are refused.
    #[test]
    fn random_files_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        prop_assert!(Checkpoint::decode(&bytes).is_err());
        let mut with_magic = MAGIC.to_vec();
        with_magic.extend(&bytes);
        prop_assert!(Checkpoint::decode(&with_magic).is_err());
    }
}

fn saved() -> Vec<u8> {
    let (k, _, steps) = &baselines()[0];
    let mut s = Session::new(&k.program, &k.config, k.args.clone()).expect("launches");
    s.run_to_step(steps / 3, &mut warpkit_sim::NoHooks);
    s.checkpoint()
}

#[test]
fn damaged_checkpoints_get_clear_errors() {
    let good = saved();
    assert!(Checkpoint::decode(&good).is_ok());

    let mut magic = good.clone();
    magic[1] = b'X';
    assert_eq!(
        Checkpoint::decode(&magic).unwrap_err(),
        CheckpointError::BadMagic
    );
    assert_eq!(
        Checkpoint::decode(b"{\"not\": \"a checkpoint\"}").unwrap_err(),
        CheckpointError::BadMagic
    );

    let mut version = good.clone();
    version[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let e = Checkpoint::decode(&version).unwrap_err();
    assert_eq!(
        e,
        CheckpointError::Version {
            found: FORMAT_VERSION + 1
        }
    );
    assert!(
        e.to_string()
            .contains(&format!("reads only version {FORMAT_VERSION}")),
        "{e}"
    );

    for len in [0, 5, 8, 23, 24, good.len() / 2, good.len() - 1] {
        match Checkpoint::decode(&good[..len]) {
            Err(CheckpointError::Truncated(_)) => {}
            other => panic!("{len} bytes: {other:?}"),
        }
    }

    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last / 2 + 12] ^= 0x10;
    assert!(matches!(
        Checkpoint::decode(&flipped),
        Err(CheckpointError::Checksum { .. })
    ));

    let mut longer = good.clone();
    longer.push(0);
    assert!(matches!(
        Checkpoint::decode(&longer),
        Err(CheckpointError::Corrupted(_))
    ));

    // A framed payload that is not a state.
    assert!(matches!(
        Checkpoint::decode(&frame(b"hello")),
        Err(CheckpointError::Corrupted(_))
    ));
}

#[test]
fn a_program_other_than_the_checkpoints_is_refused() {
    let ck = Checkpoint::decode(&saved()).expect("reads");
    let other = Program::new(vec![0; 8]);
    assert!(matches!(
        Session::resume(&other, ck),
        Err(CheckpointError::Invalid(_))
    ));
}

#[test]
fn a_finished_run_checkpoints_as_finished() {
    let (k, want, steps) = &baselines()[1];
    let got = through(k, &[steps + 10]);
    assert_eq!(difference(&got, want), None);
    let mut s = Session::new(&k.program, &k.config, k.args.clone()).expect("launches");
    assert_eq!(
        s.run_to_step(steps + 10, &mut warpkit_sim::NoHooks),
        Progress::Finished
    );
    let ck = Checkpoint::decode(&s.checkpoint()).expect("reads");
    assert_eq!(ck.steps(), *steps);
    assert_eq!(ck.workgroups(), (2, 2));
}
