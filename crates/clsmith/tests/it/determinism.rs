//! A seed and a configuration always give the same test case, byte for byte.

use warpkit_clsmith::Config;

#[test]
fn same_seed_same_case() {
    for seed in [0u64, 1, 7, 12345, u64::MAX] {
        for config in [Config::default(), Config::host_c()] {
            let a = warpkit_clsmith::generate(seed, &config).expect("case");
            let b = warpkit_clsmith::generate(seed, &config).expect("case");
            assert_eq!(a, b, "seed {seed}");
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "seed {seed}: bit patterns"
            );
        }
    }
}
