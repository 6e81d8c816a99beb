//! The translation tier's fallback counters (`MemoryFallbacks`): every memory instruction
//! the interpreter executes for a translated program is counted once, under why — no code
//! for it in its EXEC variant, its code's run-time checks sent it back, or hazards were
//! being watched — in the launch's stats and, summed over launches, in the program's
//! `TranslationStats`. On the interpreter every count is zero.

use warpkit_sim::launch::*;
use warpkit_sim::*;

/// One warp: a uniform load (translated), a loop of a word-run load and a gather
/// (both translated), a store and a load, a 64-bit
/// load (no code) with a word-run load behind it (interpreted while the 64-bit load's
/// write-back is pending), and a load under a partial EXEC (gathered in the partial
/// variant).
const SOURCE: &str = "uload.b64 u[16:17], u[0:1], 0
    waitcnt sm=0
    sll.vi v4, v3, 2
    sll.vi v5, v3, 3
    umovi u19, 10
loop:
    gload.b32 v1, v4, u[16:17], 0
    waitcnt vm=0
    gload.b32 v2, v5, u[16:17], 0
    waitcnt vm=0
    uaddi u19, u19, -1
    bnz u19, loop
    gstore.b32 v1, v4, u[16:17], 512
    gload.b32 v6, v4, u[16:17], 0
    waitcnt vm=0, vst=0
    gload.b64 v[8:9], v5, u[16:17], 0
    gload.b32 v10, v4, u[16:17], 0
    waitcnt vm=0
    umovi u20, 0xffff
    exec.set u20
    gload.b32 v7, v4, u[16:17], 0
    waitcnt vm=0
    endpgm";

fn run(engine: Engine) -> (Program, Vec<LaunchResult>) {
    let object = warpkit_asm::assemble(SOURCE, "fallbacks.s").expect("assembles");
    let mut program = Program::new(object.text);
    program.set_engine(engine);
    let cfg = LaunchConfig {
        keep_warps: true,
        ..LaunchConfig::default()
    };
    let data: Vec<u8> = (0..1024u32).flat_map(|w| w.to_le_bytes()).collect();
    let results = (0..2)
        .map(|_| {
            let args = vec![Arg {
                name: "m".into(),
                value: ArgValue::Buffer(data.clone()),
            }];
            let r = launch(&program, &cfg, args).expect("launches");
            assert!(r.ok(), "{:?}", r.traps);
            r
        })
        .collect();
    (program, results)
}

#[test]
fn each_interpreted_memory_instruction_is_counted_once_under_its_reason() {
    let (_, interp) = run(Engine::Interp);
    for r in &interp {
        assert_eq!(r.stats.memory_fallbacks, MemoryFallbacks::default());
    }
    if !Engine::jit_supported() {
        return;
    }
    let (program, jit) = run(Engine::Jit);
    let want = MemoryFallbacks {
        // gload.b64.
        untranslated: 1,
        // The uniform load, whose first visit misses its (empty) region hint at the very
        // start of the block entered, so the interpreter runs it. The other accesses miss
        // their hints at their first visits too, but after translated code made progress:
        // the exit returns to the interpreter loop at the access, which starts a block
        // (after a `waitcnt`, a store or a branch target), entered again with the hint
        // filled.
        exits: 1,
        // The load behind gload.b64, whose write-back is pending.
        watched: 1,
    };
    for (r, i) in jit.iter().zip(&interp) {
        assert_eq!(r.stats.memory_fallbacks, want);
        assert_eq!(r.warps[0].memory_fallbacks(), want);
        // The engines agree on everything architectural.
        assert_eq!(r.buffers[0].bytes, i.buffers[0].bytes);
        assert_eq!(r.warps[0].v[7], i.warps[0].v[7]);
        assert_eq!(r.stats.instructions, i.stats.instructions);
    }
    assert!(jit[0].warps[0].translated_steps() > 0);
    // The program's translation sums its launches.
    let stats = jit::translation_stats(&program).expect("translated");
    let mut twice = want;
    twice += want;
    assert_eq!(stats.memory_fallbacks, twice);
    assert_eq!(twice.total(), 2 * (1 + 1 + 1));
}
