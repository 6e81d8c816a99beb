//! Interpreter throughput on four microkernels: integer VALU-bound, f32 `ffma`-bound,
//! SALU/branch-bound and memory-bound; the cost of tracing; parallel scaling.
//!
//! `cargo bench -p warpkit-sim` prints a summary before divan's timings (items =
//! warp-instructions): warp-instructions/s and lane-operations/s (a lane-operation is one
//! EXEC-active lane of one vector instruction) per microkernel; the memory microkernel's
//! simulated bytes/s; the VALU loop with the JSON tracer writing to a sink, as a ratio to
//! the untraced run; the memory-bound `vadd` kernel with 1 and 2 host threads and their
//! ratio. Each figure is the best of several runs.

#[path = "../tests/it/common/mod.rs"]
mod common;

use divan::counter::ItemsCount;
use divan::Bencher;
use std::time::Instant;
use warpkit_isa::Flags;
use warpkit_sim::*;

const ITERATIONS: u32 = 20_000;

fn valu_loop() -> String {
    valu_loop_n(ITERATIONS)
}

fn valu_loop_n(iterations: u32) -> String {
    format!(
        "umov.l u1, {iterations}
        laneid v0
        mov.vl v1, 0x9e3779b9
    top:
        mul v2, v0, v1
        add v3, v2, v0
        xor v4, v3, v1
        sll.vi v5, v4, 3
        mac v6, v4, v5
        min v7, v6, v3
        mad.u32 v8, v7, v2, v6
        add64 v[10:11], v[10:11], v[2:3]
        bfe.u32 v9, v8, v0, v5
        mulhu v12, v9, v1
        sra v13, v12, v0
        cndmask v14, v13, u1
        uaddi u1, u1, -1
        bnz u1, top
        endpgm"
    )
}

fn branch_loop() -> String {
    format!(
        "umov.l u1, {ITERATIONS}
        umovi u10, 7
    top:
        uaddi u2, u2, 3
        uxor u3, u3, u2
        usltiu u4, u2, 500
        bz u4, skip
        uaddi u5, u5, 1
    skip:
        uandi u6, u2, 1
        bnz u6, odd
        uaddi u7, u7, 1
        jmp join
    odd:
        uaddi u8, u8, 1
    join:
        jal u30, func
        uaddi u1, u1, -1
        bnz u1, top
        endpgm
    func:
        umul u9, u9, u10
        jr u30, 0"
    )
}

/// A memory-bound loop on one warp: each iteration loads 32 consecutive words, adds, and
/// stores them back (a[i] += 1 over a 64 KiB buffer, `PASSES` times).
const MEM_WORDS: u32 = 16384;
const PASSES: u32 = 8;

fn memory_loop() -> String {
    format!(
        "uload.b64 u[16:17], u[0:1], 0
        waitcnt sm=0
        umov.l u1, {PASSES}
    pass:
        sll.vi v1, v3, 2
        umov.l u2, {}
    top:
        gload.b32 v2, v1, u[16:17], 0
        waitcnt vm=0
        add.vi v2, v2, 1
        gstore.b32 v2, v1, u[16:17], 0
        add.vl v1, v1, 128
        uaddi u2, u2, -1
        bnz u2, top
        uaddi u1, u1, -1
        bnz u1, pass
        endpgm",
        MEM_WORDS / 32
    )
}

/// `bench/madd.s`'s loop, `a[i] = a[i]*b[i] + b[i]` with both arrays loaded on every
/// repetition, on 256 warps (as `bench/peers.sh` runs it): a chain through memory per warp (the store, the next
/// repetition's load, its wait, the multiply-add).
const MADD_REPS: u32 = 1_000;
/// Its workgroups of 1024 threads.
const MADD_GROUPS: u32 = 8;

fn madd_loop() -> String {
    format!(
        "uload.b64 u[16:17], u[0:1], 0
        uload.b64 u[18:19], u[0:1], 8
        waitcnt sm=0
        umov.l u20, {MADD_REPS}
        umul u21, u12, u8
        add.vu v4, v3, u21
        sll.vi v5, v4, 2
    rep:
        gload.b32 v6, v5, u[16:17], 0
        gload.b32 v7, v5, u[18:19], 0
        waitcnt vm=0
        mad.u32 v6, v6, v7, v7
        gstore.b32 v6, v5, u[16:17], 0
        uaddi u20, u20, -1
        bnz u20, rep
        endpgm"
    )
}

/// One launch of `src` (`grid` workgroups of `block` threads, on one host thread) over
/// zeroed buffers of `words` words named by `buffers`: the simulation time, the
/// warp-instructions and the lane-operations.
fn launch_once(
    src: &str,
    buffers: &[&str],
    words: u32,
    (grid, block): (u32, u32),
    engine: Engine,
    isa: Option<VectorIsa>,
) -> (f64, u64, u64) {
    use warpkit_sim::launch::*;
    let mut prog = Program::new(warpkit_asm::assemble(src, "micro.s").expect("micro.s").text);
    prog.set_engine(engine);
    if let Some(isa) = isa {
        prog.set_vector_isa(isa);
    }
    let args = buffers
        .iter()
        .map(|name| Arg {
            name: (*name).into(),
            value: ArgValue::Buffer(vec![0; 4 * words as usize]),
        })
        .collect();
    let cfg = LaunchConfig {
        threads: 1,
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        ..LaunchConfig::default()
    };
    let r = launch(&prog, &cfg, args).expect("launch");
    assert!(r.ok() && r.stats.hazards == 0);
    (
        r.stats.wall.as_secs_f64(),
        r.stats.instructions,
        r.stats.lane_ops,
    )
}

/// The memory loop and the `a = a*b + b` loop on the interpreter and on the translation
/// tier with each vector ISA the host runs.
fn memory_micro_summary() {
    let mut configs = vec![(Engine::Interp, None), (Engine::Jit, Some(VectorIsa::Avx2))];
    if VectorIsa::Avx512.supported() {
        configs.push((Engine::Jit, Some(VectorIsa::Avx512)));
    }
    // Simulated bytes: the memory loop loads and stores each word once per pass; the madd
    // loop loads two words and stores one per element and repetition.
    let loops = [
        (
            "memory loop (1 warp)",
            memory_loop(),
            &["a"][..],
            MEM_WORDS,
            (1, 32),
            8 * u64::from(MEM_WORDS) * u64::from(PASSES),
        ),
        (
            "madd loop (256 warps)",
            madd_loop(),
            &["a", "b"][..],
            1024 * MADD_GROUPS,
            (MADD_GROUPS, 1024),
            12 * 1024 * u64::from(MADD_GROUPS * MADD_REPS),
        ),
    ];
    for (name, src, buffers, words, block, bytes) in loops {
        for &(engine, isa) in &configs {
            let mut best = f64::MAX;
            let (mut instructions, mut lane_ops) = (0, 0);
            for _ in 0..5 {
                let (secs, i, l) = launch_once(&src, buffers, words, block, engine, isa);
                best = best.min(secs);
                (instructions, lane_ops) = (i, l);
            }
            let label = match isa {
                Some(isa) => format!("{engine} {}", isa.name()),
                None => engine.to_string(),
            };
            println!(
                "{:<31} {:>8.1} M warp-instructions/s  {:>9.1} M lane-operations/s  {:>8.1} MB/s simulated",
                format!("{name} [{label}]"),
                instructions as f64 / best / 1e6,
                lane_ops as f64 / best / 1e6,
                bytes as f64 / best / 1e6
            );
        }
    }
}

/// The VALU loop untraced and with the JSON Lines tracer writing to a sink.
fn trace_summary() {
    let prog = Program::new(common::asm(&valu_loop_n(2000)));
    let time = |traced: bool| {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            if traced {
                let mut t = WriteTracer::new(std::io::sink(), TraceFormat::Json);
                run_once(&prog, u32::MAX, &mut t);
            } else {
                run_once(&prog, u32::MAX, &mut NoHooks);
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        best
    };
    let (plain, traced) = (time(false), time(true));
    let mut census = Census::default();
    run_once(&prog, u32::MAX, &mut census);
    println!(
        "{:<22} {:>8.1} M warp-instructions/s traced (JSON to a sink): {:.1}x the untraced time",
        "valu loop, traced",
        census.instructions as f64 / traced / 1e6,
        traced / plain
    );
}

/// Counts instructions and lane-operations of one run.
#[derive(Default)]
struct Census {
    instructions: u64,
    lane_ops: u64,
}

impl Hooks for Census {
    const ENABLED: bool = true;
    fn after(&mut self, _: &Warp, prog: &Program, pc: u32, exec: u32) -> Control {
        self.instructions += 1;
        if let Some(Code::Op(op)) = prog.fetch(pc).map(|i| i.code) {
            if !op.def().flags.contains(Flags::EI) {
                self.lane_ops += u64::from(exec.count_ones());
            }
        }
        Control::Continue
    }
}

fn run_once<T: Hooks>(prog: &Program, exec: u32, tracer: &mut T) -> u64 {
    let mut wg = Workgroup::new([0, 0, 0], &[exec]);
    let s = wg.run(prog, &mut Core::default(), &mut NoMemory, tracer, u64::MAX);
    assert!(s.all_ended());
    s.retired
}

/// `ffma.f32` on full EXEC with `rm=dyn` and `mode` = rne (its reset value): the f32 VALU
/// rate, compared with the integer VALU loop's in `main`.
fn ffma_loop() -> String {
    let mut body = String::new();
    for k in 0..12 {
        let (d, a, b, c) = (4 + k % 6, 1 + k % 3, 2, 3 + (k + 1) % 6);
        body.push_str(&format!("        ffma.f32 v{d}, v{a}, v{b}, v{c}\n"));
    }
    format!(
        "umov.l u1, {ITERATIONS}
        laneid v0
        cvt.f32.u32 v1, v0
        mov.vl v2, 0x3f7ffff0
        mov.vl v3, 0x3dcccccd
    top:
{body}        uaddi u1, u1, -1
        bnz u1, top
        endpgm"
    )
}

fn ffma_bytes() -> Vec<u8> {
    let src = ffma_loop();
    warpkit_asm::assemble(&src, "ffma.s")
        .expect("ffma loop")
        .text
}

fn summary(name: &str, src: &str, exec: u32) -> f64 {
    summary_bytes(name, common::asm(src), exec)
}

/// Prints, for the interpreter and the translation tier with each vector ISA the host runs,
/// and returns (for the host's default engine and ISA) the lane-operations per second of
/// one run of `bytes`; then the translation tier's speed-up.
fn summary_bytes(name: &str, bytes: Vec<u8>, exec: u32) -> f64 {
    let mut prog = Program::new(bytes);
    let mut census = Census::default();
    run_once(&prog, exec, &mut census);
    let mut configs = vec![(Engine::Interp, None), (Engine::Jit, Some(VectorIsa::Avx2))];
    if VectorIsa::Avx512.supported() {
        configs.push((Engine::Jit, Some(VectorIsa::Avx512)));
    }
    let mut rates = Vec::new();
    for &(engine, isa) in &configs {
        prog.set_engine(engine);
        let label = match isa {
            Some(isa) => {
                prog.set_vector_isa(isa);
                format!("{engine} {}", isa.name())
            }
            None => engine.to_string(),
        };
        // Translate (and warm up) outside the timed runs.
        run_once(&prog, exec, &mut NoHooks);
        let mut best = f64::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            divan::black_box(run_once(&prog, exec, &mut NoHooks));
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{:<31} {:>8.1} M warp-instructions/s  {:>9.1} M lane-operations/s",
            format!("{name} [{label}]"),
            census.instructions as f64 / best / 1e6,
            census.lane_ops as f64 / best / 1e6
        );
        rates.push(census.lane_ops.max(census.instructions) as f64 / best);
    }
    // The host's default: the widest vector ISA it runs.
    let jit = *rates.last().expect("the interpreter's rate at least");
    println!(
        "{:<31} {:>8.2}x",
        format!("{name} jit/interp"),
        jit / rates[0]
    );
    if configs.len() == 3 {
        println!(
            "{:<31} {:>8.2}x",
            format!("{name} avx512/avx2"),
            jit / rates[1]
        );
    }
    if Engine::host_default() == Engine::Jit {
        jit
    } else {
        rates[0]
    }
}

/// Translation cost: time per translated instruction, and the break-even point (executed
/// instructions at which translating has paid for itself) of the VALU loop.
fn translation_summary() {
    let mut prog = Program::new(common::asm(&valu_loop()));
    prog.set_engine(Engine::Jit);
    let Some(stats) = warpkit_sim::jit::translation_stats(&prog) else {
        println!("translation: not supported on this host");
        return;
    };
    let per_instruction = stats.nanos as f64 / stats.instructions.max(1) as f64;
    let time = |engine| {
        let mut p = prog.clone();
        p.set_engine(engine);
        run_once(&p, u32::MAX, &mut NoHooks);
        let mut best = f64::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            let n = run_once(&p, u32::MAX, &mut NoHooks);
            best = best.min(start.elapsed().as_secs_f64() / n as f64);
        }
        best
    };
    let (interp, jit) = (time(Engine::Interp), time(Engine::Jit));
    // The marginal cost, with each vector ISA: translate a long and a short program of
    // every variant in turn (best of 5 each) and divide the difference in time by the
    // difference in translated instructions; the fixed cost (mapping the code buffer)
    // cancels.
    for isa in VectorIsa::ALL.into_iter().filter(|isa| isa.supported()) {
        let cost = |count: usize| {
            let mut best = (u64::MAX, 0);
            for _ in 0..5 {
                let mut p = Program::new(warpkit_isa::mixed_stream(count));
                p.set_engine(Engine::Jit);
                p.set_vector_isa(isa);
                let s = warpkit_sim::jit::translation_stats(&p).expect("translated");
                best = best.min((s.nanos, s.instructions));
            }
            best
        };
        let (short, long) = (cost(2_000), cost(20_000));
        println!(
            "translation, marginal [{}]: {:.0} ns per translated instruction ({} instructions \
             of a 20 000-instruction mixed stream in {:.2} ms; {} of 2000 in {:.2} ms)",
            isa.name(),
            (long.0 - short.0) as f64 / (long.1 - short.1).max(1) as f64,
            long.1,
            long.0 as f64 / 1e6,
            short.1,
            short.0 as f64 / 1e6
        );
    }
    println!(
        "translation: {} instructions in {} blocks ({} bytes) in {:.1} us: {:.0} ns per instruction; \
         break-even after {:.0} executed instructions of the VALU loop",
        stats.instructions,
        stats.blocks,
        stats.code_bytes,
        stats.nanos as f64 / 1e3,
        per_instruction,
        stats.nanos as f64 * 1e-9 / (interp - jit).max(1e-12)
    );
}

/// A memory-bound kernel: `out[i] = a[i] + b[i]` (examples/vadd.s) over `n` words.
fn vadd_launch(n: u32, threads: usize) -> (f64, u64) {
    use warpkit_sim::launch::*;
    let src = include_str!("../../../examples/vadd.s");
    let prog = Program::new(warpkit_asm::assemble(src, "vadd.s").expect("vadd.s").text);
    let words =
        |f: &dyn Fn(u32) -> u32| -> Vec<u8> { (0..n).flat_map(|i| f(i).to_le_bytes()).collect() };
    let args = vec![
        Arg {
            name: "a".into(),
            value: ArgValue::Buffer(words(&|i| i)),
        },
        Arg {
            name: "b".into(),
            value: ArgValue::Buffer(words(&|i| i * 3)),
        },
        Arg {
            name: "out".into(),
            value: ArgValue::Buffer(vec![0; 4 * n as usize]),
        },
        Arg {
            name: "n".into(),
            value: ArgValue::Int(u64::from(n)),
        },
    ];
    let cfg = LaunchConfig {
        grid: [n.div_ceil(256), 1, 1],
        block: [256, 1, 1],
        threads,
        ..LaunchConfig::default()
    };
    let r = launch(&prog, &cfg, args).expect("launch");
    assert!(r.ok());
    // Two loads and one store of 4 bytes per element.
    (r.stats.wall.as_secs_f64(), 12 * u64::from(n))
}

fn memory_summary() {
    let n = 1 << 20;
    let mut best = [f64::MAX; 2];
    let mut bytes = 0;
    for _ in 0..3 {
        for (k, threads) in [1, 2].into_iter().enumerate() {
            let (secs, b) = vadd_launch(n, threads);
            best[k] = best[k].min(secs);
            bytes = b;
        }
    }
    println!(
        "vadd n=2^20, 1 thread  {:>8.1} MB/s simulated memory traffic",
        bytes as f64 / best[0] / 1e6
    );
    println!(
        "vadd n=2^20, 2 threads {:>8.1} MB/s ({:.2}x the 1-thread rate)",
        bytes as f64 / best[1] / 1e6,
        best[0] / best[1]
    );
}

fn main() {
    let integer = summary("valu loop, exec full", &valu_loop(), u32::MAX);
    let float = summary_bytes("ffma.f32 loop, full", ffma_bytes(), u32::MAX);
    println!(
        "ffma.f32 / integer VALU lane-operations: {:.3}",
        float / integer
    );
    summary("valu loop, exec half", &valu_loop(), 0x5555_5555);
    summary("branch/salu loop", &branch_loop(), u32::MAX);
    memory_micro_summary();
    translation_summary();
    trace_summary();
    memory_summary();
    divan::main();
}

fn bench(bencher: Bencher, src: &str, exec: u32) {
    let prog = Program::new(common::asm(src));
    let mut census = Census::default();
    run_once(&prog, exec, &mut census);
    bencher
        .counter(ItemsCount::new(census.instructions))
        .bench(|| run_once(&prog, exec, &mut NoHooks));
}

#[divan::bench]
fn valu_full_exec(bencher: Bencher) {
    bench(bencher, &valu_loop(), u32::MAX);
}

#[divan::bench]
fn valu_half_exec(bencher: Bencher) {
    bench(bencher, &valu_loop(), 0x5555_5555);
}

#[divan::bench]
fn ffma_f32_full_exec(bencher: Bencher) {
    let prog = Program::new(ffma_bytes());
    let mut census = Census::default();
    run_once(&prog, u32::MAX, &mut census);
    bencher
        .counter(ItemsCount::new(census.instructions))
        .bench(|| run_once(&prog, u32::MAX, &mut NoHooks));
}

#[divan::bench]
fn branch_salu(bencher: Bencher) {
    bench(bencher, &branch_loop(), u32::MAX);
}

#[divan::bench(sample_count = 20)]
fn memory_one_warp(bencher: Bencher) {
    let src = memory_loop();
    let launch = || {
        launch_once(
            &src,
            &["a"],
            MEM_WORDS,
            (1, 32),
            Engine::host_default(),
            None,
        )
    };
    let (_, instructions, _) = launch();
    bencher.counter(ItemsCount::new(instructions)).bench(launch);
}

#[divan::bench(sample_count = 20)]
fn valu_traced_json(bencher: Bencher) {
    let prog = Program::new(common::asm(&valu_loop_n(2000)));
    let mut census = Census::default();
    run_once(&prog, u32::MAX, &mut census);
    bencher
        .counter(ItemsCount::new(census.instructions))
        .bench(|| {
            let mut t = WriteTracer::new(std::io::sink(), TraceFormat::Json);
            run_once(&prog, u32::MAX, &mut t)
        });
}
