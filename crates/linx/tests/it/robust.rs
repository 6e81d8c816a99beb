//! Grammar-built programs (the fuzz targets' generator) never panic or hang: each is
//! rejected with located diagnostics, or runs to lbstop or a run-time error, in every mode.

use warpkit_linx::{check, gen::program_from_bytes, run, Mode, RunConfig};

/// A small deterministic byte stream (xorshift), so the test needs no dependency.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn grammar_built_programs_never_panic() {
    let (mut ran, mut rejected) = (0, 0);
    for seed in 0..1500u64 {
        let src = program_from_bytes(&bytes(seed, 200));
        match check("gen.s", &src) {
            Ok(p) => {
                for mode in [Mode::Loop, Mode::Vect, Mode::Simt] {
                    let r = run(
                        &p,
                        RunConfig {
                            mode: Some(mode),
                            max_steps: 500,
                            ..RunConfig::default()
                        },
                    );
                    if let Some(e) = r.error {
                        assert!(e.code.starts_with("E-"));
                    }
                }
                ran += 1;
            }
            Err(d) => {
                assert!(d.has_errors());
                let text = d.render(&src);
                assert!(text.contains("gen.s:"), "{text}");
                rejected += 1;
            }
        }
    }
    // The generator is useful only if both outcomes are common.
    assert!(
        ran > 100 && rejected > 100,
        "ran {ran}, rejected {rejected}"
    );
}

#[test]
fn arbitrary_text_never_panics() {
    for seed in 0..3000u64 {
        let raw = bytes(seed, 120);
        let text = String::from_utf8_lossy(&raw);
        let _ = check("raw.s", &text);
        // Mutate a valid program byte by byte too.
        let mut src = program_from_bytes(&bytes(seed + 7, 64)).into_bytes();
        let at = (seed as usize * 31) % src.len();
        src[at] = raw[0] & 0x7f;
        let src = String::from_utf8_lossy(&src);
        if let Ok(p) = check("mut.s", &src) {
            let _ = run(
                &p,
                RunConfig {
                    max_steps: 200,
                    ..RunConfig::default()
                },
            );
        }
    }
}

/// A trace sink that keeps nothing: a traced run pushes to the queues lane by lane, an
/// untraced one a whole row at a time where it can (converged groups, uniform queue heads).
struct Discard(u64);

impl warpkit_linx::TraceSink for Discard {
    fn record(&mut self, _: &warpkit_linx::StepRecord) {
        self.0 += 1;
    }
}

/// The untraced model's row-at-a-time queue paths give exactly the traced model's
/// lane-by-lane results: registers, memory, diagnostics, errors, flags and step counts,
/// for grammar-built programs in every mode and lane count and for the examples.
#[test]
fn row_paths_equal_lane_by_lane_paths() {
    let mut sources: Vec<(String, String)> = (0..600u64)
        .map(|seed| {
            (
                format!("gen{seed}.s"),
                program_from_bytes(&bytes(seed, 240)),
            )
        })
        .collect();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/linx");
    for e in std::fs::read_dir(dir).expect("examples/linx") {
        let path = e.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("example");
        sources.push((path.display().to_string(), text));
    }
    let mut compared = 0;
    for (name, src) in &sources {
        let Ok(p) = check(name, src) else { continue };
        for mode in [Mode::Loop, Mode::Vect, Mode::Simt] {
            for lanes in [None, Some(1), Some(5), Some(64)] {
                let cfg = |trace| RunConfig {
                    mode: Some(mode),
                    lanes,
                    max_steps: 2000,
                    trace,
                    ..RunConfig::default()
                };
                let plain = run(&p, cfg(None));
                let mut sink = Discard(0);
                let traced = run(&p, cfg(Some(&mut sink)));
                assert_eq!(plain, traced, "{name} in {mode:?} with {lanes:?} lanes");
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "only {compared} runs compared");
}
