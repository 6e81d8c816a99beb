//! Every switch of `Config` removes what it names (and programs stay free of undefined
//! behaviour without it); launch bounds are respected; bad configurations are refused.

use warpkit_clsmith::{Config, Error};

fn sources(config: &Config, seeds: std::ops::Range<u64>) -> Vec<String> {
    seeds
        .map(|s| match warpkit_clsmith::generate(s, config) {
            Ok(case) => case.source,
            Err(e) => panic!("{e}"),
        })
        .collect()
}

thread_local! {
    static DEFAULT_SOURCES: String = sources(&Config::default(), 0..40).join("\n");
}

fn assert_absent(config: Config, what: &str, forbidden: &[&str]) {
    let all = DEFAULT_SOURCES.with(|d| d.clone());
    assert!(
        forbidden.iter().any(|f| all.contains(f)),
        "{what}: the default configuration should emit one of {forbidden:?}"
    );
    for (seed, src) in sources(&config, 0..25).iter().enumerate() {
        for f in forbidden {
            assert!(!src.contains(f), "{what} off, seed {seed}: `{f}` in\n{src}");
        }
    }
}

#[test]
fn switches_remove_their_constructs() {
    let d = Config::default;
    assert_absent(
        Config {
            floats: false,
            doubles: false,
            ..d()
        },
        "floats",
        &["float", "double", "fout", "sqrt("],
    );
    assert_absent(
        Config {
            doubles: false,
            ..d()
        },
        "doubles",
        &["double", "cl_khr_fp64", "dout"],
    );
    assert_absent(
        Config {
            local_memory: false,
            ..d()
        },
        "local memory",
        &["__local", "local ", "barrier("],
    );
    assert_absent(
        Config {
            atomics: false,
            ..d()
        },
        "atomics",
        &["atomic_", "atom_"],
    );
    assert_absent(
        Config {
            structs: false,
            ..d()
        },
        "structs",
        &["struct", "->"],
    );
    assert_absent(
        Config {
            switches: false,
            ..d()
        },
        "switch",
        &["switch (", "case ", "default:"],
    );
    assert_absent(
        Config {
            macros: false,
            ..d()
        },
        "macros",
        &["#define", "#if"],
    );
    assert_absent(
        Config {
            constant_tables: false,
            ..d()
        },
        "constant tables",
        &["ctab"],
    );
    assert_absent(
        Config {
            extra_kernels: false,
            ..d()
        },
        "extra kernels",
        &["clsmith_aux"],
    );
    assert_absent(
        Config {
            max_helpers: 0,
            ..d()
        },
        "helpers",
        &[" h1(", " h2("],
    );
    assert_absent(
        Config {
            private_arrays: false,
            ..d()
        },
        "private arrays",
        &[
            " a1[", " a2[", " a3[", " a4[", " a5[", " a6[", " a7[", " a8[", " a9[",
        ],
    );
    assert_absent(
        Config {
            pointers: false,
            ..d()
        },
        "pointers",
        &[" *p", " *q", "&v"],
    );
}

#[test]
fn launches_stay_within_bounds() {
    let config = Config {
        max_grid: [3, 1, 1],
        max_block: [33, 2, 1],
        max_work_items: 40,
        ..Config::default()
    };
    let mut shapes = std::collections::BTreeSet::new();
    for seed in 0..80 {
        let case = warpkit_clsmith::generate(seed, &config).expect("case");
        let total: u32 = case.grid.iter().chain(&case.block).product();
        assert!(
            total <= 40,
            "seed {seed}: {:?} x {:?}",
            case.grid,
            case.block
        );
        assert!(
            case.grid[0] <= 3
                && case.grid[1] == 1
                && case.block[0] <= 33
                && case.block[1] <= 2
                && case.block[2] == 1
        );
        shapes.insert((case.grid, case.block));
        let out = &case
            .expected
            .iter()
            .find(|(n, _)| n == "out")
            .expect("out")
            .1;
        assert_eq!(
            out.len(),
            total as usize * 8,
            "seed {seed}: one checksum per work-item"
        );
    }
    assert!(shapes.len() > 10, "shapes vary: {shapes:?}");
}

#[test]
fn bad_configurations_are_refused() {
    for bad in [
        Config {
            max_stmts: 0,
            ..Config::default()
        },
        Config {
            max_block: [64, 64, 1],
            ..Config::default()
        },
        Config {
            max_grid: [1, 0, 1],
            ..Config::default()
        },
        Config {
            floats: false,
            ..Config::default()
        },
        Config {
            max_loop_trips: 1000,
            ..Config::default()
        },
    ] {
        assert!(
            matches!(warpkit_clsmith::generate(1, &bad), Err(Error::Config(_))),
            "{bad:?}"
        );
    }
}
