//! Every example at `Size::Small` on the functional model: the output must match the host
//! reference, every warp must reach `endpgm`, and the hazard checker must stay silent.

use warpkit_examples::{all, find, Check, Language, Size};

fn run_and_check(name: &str) {
    let example = find(name).unwrap_or_else(|| panic!("no example {name}"));
    let report = example
        .run(Size::Small, 0)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(report.check.passed(), "{name}: {}", report.check);
    assert!(
        report.completed,
        "{name}: not every warp ended: {:?}",
        report.traps
    );
    assert!(report.traps.is_empty(), "{name}: traps: {:?}", report.traps);
    assert!(
        report.hazards.is_empty(),
        "{name}: hazards: {:?}",
        report.hazards
    );
    assert!(
        report.instructions > 0 && report.lane_ops > 0,
        "{name}: no work counted"
    );
    assert!(report.passed());
}

macro_rules! kernel_tests {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { run_and_check(stringify!($name)); })*

        #[test]
        fn every_example_has_a_test() {
            let tested = [$(stringify!($name)),*];
            // The OpenCL C examples have theirs in `opencl.rs`.
            for e in all().iter().filter(|e| e.language == Language::Assembly) {
                assert!(tested.contains(&e.name), "{} has no test", e.name);
            }
        }
    };
}

kernel_tests!(
    vadd,
    saxpy,
    reduce,
    scan,
    histogram,
    matmul,
    matmul_dp4a,
    bitonic,
    crc32,
    stencil,
    collatz,
    sgemm,
    hgemm,
    softmax,
    layernorm,
    mandelbrot,
);

#[test]
fn a_wrong_reference_is_reported() {
    let example = find("vadd").expect("vadd exists");
    let mut case = example.case(Size::Small);
    let want = &mut case.expected[0].words;
    let index = want.len() - 1; // the last element, computed by the partial workgroup
    want[index] ^= 0x8000_0000;
    let report = example.run_case(&case, 1).expect("the launch itself works");
    match &report.check {
        Check::Mismatch {
            buffer,
            index: at,
            expected,
            got,
        } => {
            assert_eq!(buffer, "out");
            assert_eq!(*at, index);
            assert_eq!(*expected ^ 0x8000_0000, *got);
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    assert!(!report.passed());
}

#[test]
fn a_corrupted_input_is_reported() {
    // The reference stays the same but the kernel sees different data: the check must
    // catch outputs that are wrong because of what the kernel was given.
    let example = find("reduce").expect("reduce exists");
    let mut case = example.case(Size::Small);
    if let Some((_, warpkit_examples::StageArg::Bytes(bytes))) = case.stages[0].args.first_mut() {
        bytes[0] ^= 1;
    } else {
        panic!("reduce's first argument is its input buffer");
    }
    let report = example.run_case(&case, 0).expect("the launch itself works");
    assert!(
        matches!(report.check, Check::Mismatch { .. }),
        "{}",
        report.check
    );
    assert!(!report.passed());
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let example = find("histogram").expect("histogram exists");
    let one = example.run(Size::Small, 1).expect("runs");
    let two = example.run(Size::Small, 2).expect("runs");
    assert!(one.passed() && two.passed());
    assert_eq!(one.instructions, two.instructions);
    assert_eq!(one.lane_ops, two.lane_ops);
}

/// The suite side by side on two threads (`warpkit examples`) gives every example what it
/// gives alone on one.
#[test]
fn side_by_side_results_equal_those_run_alone() {
    let gpu: Vec<_> = all().iter().collect();
    let linx: Vec<_> = warpkit_examples::linx::ALL.iter().collect();
    let suite = warpkit_examples::run_suite(&gpu, &linx, Size::Small, 2).expect("a pool");
    assert_eq!((suite.gpu.len(), suite.linx.len()), (gpu.len(), linx.len()));
    for (e, got) in gpu.iter().zip(&suite.gpu) {
        let got = got.as_ref().expect("runs");
        let alone = e.run(Size::Small, 1).expect("runs");
        assert!(got.passed(), "{}: {}", e.name, got.check);
        assert_eq!(got.name, e.name);
        assert_eq!(
            (got.instructions, got.lane_ops, &got.traps, &got.hazards),
            (
                alone.instructions,
                alone.lane_ops,
                &alone.traps,
                &alone.hazards
            ),
            "{}",
            e.name
        );
    }
    for (e, got) in linx.iter().zip(&suite.linx) {
        let got = got.as_ref().expect("runs");
        let alone = e.run().expect("runs");
        assert!(got.passed(), "{}", e.name);
        assert_eq!(
            (got.name, got.instructions),
            (alone.name, alone.instructions)
        );
    }
}

#[test]
fn a_missing_waitcnt_is_reported_as_a_hazard() {
    // Without its `waitcnt vm=0` vadd adds registers whose loads are still in flight: the
    // zero-hazard assertion above only means something if this is caught.
    let mut example = *find("vadd").expect("vadd exists");
    let source = example.source.replace("    waitcnt    vm=0", "");
    assert_ne!(source, example.source);
    example.source = Box::leak(source.into_boxed_str());
    let report = example.run(Size::Small, 1).expect("runs");
    assert!(report.hazard_count > 0, "no hazard reported");
    assert!(!report.hazards.is_empty());
    assert!(!report.passed());
}

/// Run `name` at the small size with another launch shape: the outputs do not depend on
/// the shape, so the same reference must match.
fn reshaped(name: &str, grid: [u32; 3], block: [u32; 3]) {
    let example = find(name).expect("example exists");
    let mut case = example.case(Size::Small);
    case.stages[0].grid = grid;
    case.stages[0].block = block;
    let report = example.run_case(&case, 0).expect("runs");
    assert!(
        report.passed(),
        "{name} {grid:?}x{block:?}: {} {:?} {:?}",
        report.check,
        report.traps,
        report.hazards
    );
}

#[test]
fn kernels_follow_the_abi_for_other_launch_shapes() {
    // Partial last warps (block sizes that are not multiples of 32) and grids smaller or
    // larger than the kernels' usual ones.
    reshaped("vadd", [11, 1, 1], [100, 1, 1]);
    reshaped("saxpy", [1, 1, 1], [33, 1, 1]);
    reshaped("saxpy", [50, 1, 1], [1024, 1, 1]);
    reshaped("histogram", [1, 1, 1], [256, 1, 1]);
    reshaped("scan", [1, 1, 1], [64, 1, 1]);
    reshaped("scan", [1, 1, 1], [32, 1, 1]);
    reshaped("stencil", [4, 8, 1], [13, 4, 1]);
    reshaped("stencil", [1, 2, 1], [50, 20, 1]);
    reshaped("collatz", [8, 1, 1], [90, 1, 1]);
    reshaped("crc32", [10, 1, 1], [31, 1, 1]);
}

#[test]
fn a_trap_is_reported_with_its_address() {
    // n larger than the buffers: the lanes past the end fault instead of being masked off.
    let example = find("vadd").expect("vadd exists");
    let mut case = example.case(Size::Small);
    case.stages[0].args[3].1 = warpkit_examples::StageArg::Int(1 << 20);
    case.stages[0].grid = [8, 1, 1];
    let report = example.run_case(&case, 0).expect("runs");
    assert!(!report.completed);
    assert!(!report.passed());
    assert!(
        report
            .traps
            .iter()
            .any(|t| t.contains("cause 5") && t.contains("address 0x")),
        "{:?}",
        report.traps
    );
}

/// Run `name` at the small size with `from` replaced by `to` in its source.
fn mutated(name: &str, from: &str, to: &str) -> warpkit_examples::Report {
    let mut example = *find(name).expect("example exists");
    let source = example.source.replacen(from, to, 1);
    assert_ne!(source, example.source, "{name}: `{from}` not found");
    example.source = Box::leak(source.into_boxed_str());
    example.run(Size::Small, 0).expect("runs")
}

#[test]
fn float_references_are_bit_exact() {
    // One rounding done in another mode must show: the references are the same IEEE
    // operations in the same order, not approximations.
    let cases = [
        ("sgemm", "ffma.f32   v11, v20, v21, v11", " rm=rtz"),
        ("hgemm", "ffma.f32   v11, v20, v21, v11", " rm=rup"),
        ("softmax", "fmul.f32   v8, v8, v12", " rm=rdn"),
        ("layernorm", "ffma.f32   v8, v8, v17, v18", " rm=rtz"),
        ("mandelbrot", "fadd.f32   v14, v20, v12", " rm=rtz"),
    ];
    for (name, line, modifier) in cases {
        let report = mutated(name, line, &format!("{line}{modifier}"));
        assert!(
            matches!(report.check, Check::Mismatch { .. }),
            "{name} with{modifier}: {}",
            report.check
        );
    }
}

#[test]
fn sfu_results_are_held_to_their_ulp_bound() {
    // Feeding fexp2 twice the argument (and frsq the variance plus its double) moves the
    // results far beyond 1 ulp: the tolerance is not a blanket pass.
    let report = mutated(
        "softmax",
        "fexp2.f32  v11, v8",
        "fadd.f32 v8, v8, v8\n    fexp2.f32  v11, v8",
    );
    assert!(
        matches!(report.check, Check::Beyond { ulps: 1, .. }),
        "{}",
        report.check
    );
    let report = mutated("layernorm", "frsq.f32   v14, v13", "frsq.f32   v14, v12");
    assert!(
        matches!(report.check, Check::Beyond { ulps: 1, .. }),
        "{}",
        report.check
    );
}

#[test]
fn derived_references_follow_the_sfu_results() {
    // With frcp replaced by a division by 2s, E is still right but Y is not: the derived
    // reference for Y is checked too.
    let report = mutated(
        "softmax",
        "frcp.f32   v12, v10",
        "fadd.f32   v10, v10, v10\n    frcp.f32   v12, v10",
    );
    match &report.check {
        Check::Mismatch { buffer, .. } => assert_eq!(buffer, "Y"),
        other => panic!("expected a mismatch in Y, got {other}"),
    }
}

#[test]
fn mandelbrot_draws_its_counts() {
    let example = find("mandelbrot").expect("exists");
    let report = example.run(Size::Small, 0).expect("runs");
    assert!(report.passed());
    let image = report.image.expect("mandelbrot draws an image");
    let counts = &example.case(Size::Small).expected[0].words;
    assert_eq!(image.pixels.len() as u32, image.width * image.height);
    assert!(image
        .pixels
        .iter()
        .zip(counts)
        .all(|(&p, &c)| u32::from(p) == c));
    // Both escaped pixels and pixels inside the set (the limit, black) are present.
    assert!(counts.contains(&255) && counts.contains(&1));
    assert_eq!(image.palette[255], [0, 0, 0]);
    assert!(find("sgemm")
        .expect("exists")
        .run(Size::Small, 0)
        .expect("runs")
        .image
        .is_none());
}
