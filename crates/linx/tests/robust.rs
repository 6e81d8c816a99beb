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
