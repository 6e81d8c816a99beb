//! The OpenCL C examples (`examples/opencl/*.cl`, compiled by `warpkit-cc`) at the small
//! size on both engines, held to their assembly twins' references (or, for the
//! PolyBench-style ones, their own); the compiler's code
//! quality target on the five kernels it is set for; and how a source the compiler refuses
//! is reported.

use warpkit_examples::{all, find, Check, Example, ExampleError, Language, Report, Size};
use warpkit_sim::Engine;

fn example(name: &str) -> &'static Example {
    find(name).unwrap_or_else(|| panic!("no example {name}"))
}

fn run_on(example: &Example, engine: Engine) -> Report {
    let mut code = example
        .code()
        .unwrap_or_else(|e| panic!("{}: {e}", example.name));
    code.program.set_engine(engine);
    example
        .run_code(&example.case(Size::Small), code, 0)
        .unwrap_or_else(|e| panic!("{}: {e}", example.name))
}

fn assert_passed(r: &Report) {
    let name = r.name;
    assert!(r.check.passed(), "{name}: {}", r.check);
    assert!(r.completed, "{name}: not every warp ended: {:?}", r.traps);
    assert!(r.traps.is_empty(), "{name}: traps: {:?}", r.traps);
    assert!(r.hazards.is_empty(), "{name}: hazards: {:?}", r.hazards);
    assert!(
        r.instructions > 0 && r.lane_ops > 0,
        "{name}: no work counted"
    );
    assert!(r.passed());
}

/// Example `name` on the interpreter and, where the host has one, the translation tier:
/// both pass, with the same counts, and every memory instruction the compiled kernel
/// executes is of a class the translation tier translates (under the EXEC it runs with):
/// none falls back to the interpreter for want of code.
fn run_and_check(name: &str) {
    let example = example(name);
    let interp = run_on(example, Engine::Interp);
    assert_passed(&interp);
    assert_eq!(interp.memory_fallbacks.total(), 0, "{name}");
    if Engine::jit_supported() {
        let jit = run_on(example, Engine::Jit);
        assert_passed(&jit);
        assert_eq!(
            (interp.instructions, interp.lane_ops),
            (jit.instructions, jit.lane_ops),
            "{name}"
        );
        assert_eq!(
            jit.memory_fallbacks.untranslated, 0,
            "{name}: memory instructions without translated code: {:?}",
            jit.memory_fallbacks
        );
    }
}

macro_rules! opencl_tests {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { run_and_check(concat!("opencl/", stringify!($name))); })*

        #[test]
        fn every_opencl_example_has_a_test() {
            let tested = [$(concat!("opencl/", stringify!($name))),*];
            for e in all().iter().filter(|e| e.language == Language::OpenCl) {
                assert!(tested.contains(&e.name), "{} has no test", e.name);
            }
            assert_eq!(
                all().iter().filter(|e| e.language == Language::OpenCl).count(),
                tested.len()
            );
        }
    };
}

opencl_tests!(
    vadd, saxpy, reduce, scan, histogram, matmul, sgemm, softmax, mandelbrot, stencil, gesummv,
    atax, jacobi2d
);

#[test]
fn opencl_examples_share_their_twins_launches() {
    // The PolyBench-style kernels are OpenCL C only, with cases of their own.
    let own = ["opencl/gesummv", "opencl/atax", "opencl/jacobi2d"];
    for e in all().iter().filter(|e| e.language == Language::OpenCl) {
        let Some(twin) = e.twin() else {
            assert!(own.contains(&e.name), "{} has no twin", e.name);
            continue;
        };
        assert_eq!(twin.language, Language::Assembly);
        assert_eq!(format!("opencl/{}", twin.name), e.name);
        assert_eq!(e.path(), format!("examples/opencl/{}.cl", twin.name));
        for size in [Size::Small, Size::Full] {
            assert_eq!(e.case(size), twin.case(size), "{}", e.name);
        }
    }
    assert!(example("vadd").twin().is_none());
}

#[test]
fn the_kernel_metadata_sets_the_launch() {
    // reduce.cl declares 1 KiB of __local memory, less than its twin's case asks for;
    // mandelbrot.cl declares none and its case asks for none.
    let reduce = example("opencl/reduce");
    let code = reduce.code().expect("compiles");
    assert_eq!(code.shared_bytes, 1024);
    let stage = &reduce.case(Size::Small).stages[0];
    assert_eq!(
        code.config(stage).shared_bytes,
        stage.shared_bytes.max(1024)
    );
    let mut stage = stage.clone();
    stage.shared_bytes = 0;
    assert_eq!(code.config(&stage).shared_bytes, 1024);
    // The hand-written kernels start at their first word.
    assert_eq!(example("reduce").code().expect("assembles").entry, 0);
}

#[test]
fn float_references_are_bit_exact_for_compiled_kernels() {
    // Two roundings instead of sgemm's one fma, or mandelbrot's x2 - y2 + cr in the other
    // order, must show: the OpenCL sources are held to the twin's operations and order.
    let cases = [
        (
            "sgemm",
            "acc = fma(As[ty][k], Bs[k][tx], acc);",
            "acc += As[ty][k] * Bs[k][tx];",
        ),
        ("mandelbrot", "x = (x2 - y2) + cr;", "x = x2 - (y2 - cr);"),
    ];
    for (name, from, to) in cases {
        let report = mutated(name, from, to);
        assert!(
            matches!(report.check, Check::Mismatch { .. }),
            "opencl/{name} with `{to}`: {}",
            report.check
        );
    }
}

/// `opencl/NAME` at the small size with `from` replaced by `to` in its source.
fn mutated(name: &str, from: &str, to: &str) -> Report {
    let mut example = *example(&format!("opencl/{name}"));
    let source = example.source.replacen(from, to, 1);
    assert_ne!(source, example.source, "{name}: `{from}` not found");
    example.source = Box::leak(source.into_boxed_str());
    example.run(Size::Small, 0).expect("runs")
}

#[test]
fn a_source_that_does_not_compile_is_reported_with_its_location() {
    let mut e = *example("opencl/vadd");
    e.source = "__kernel void vadd(__global uint *out)\n{\n    out[0] = missing;\n}\n";
    match e.run(Size::Small, 1) {
        Err(err @ ExampleError::Compile { .. }) => {
            let text = err.to_string();
            assert!(text.contains("examples/opencl/vadd.cl:3:"), "{text}");
            assert!(text.contains("missing"), "{text}");
        }
        other => panic!("expected a compile error, got {:?}", other.map(|r| r.check)),
    }
    e.source = "__kernel void other(__global uint *out) { out[0] = 1; }\n";
    match e.run(Size::Small, 1) {
        Err(err @ ExampleError::NoKernel { .. }) => {
            assert!(err.to_string().contains("no kernel `vadd`"), "{err}");
        }
        other => panic!(
            "expected a missing kernel, got {:?}",
            other.map(|r| r.check)
        ),
    }
}

/// The compiler's code quality target: on the same launches, a compiled kernel retires at
/// most 13/10 of the warp-instructions of its hand-written twin.
const TARGET: (u64, u64) = (13, 10);

/// The targeted kernels the back end does not bring under the target yet, each held to the
/// ratio it has now (thousandths) so that it does not drift further; docs/performance.md
/// ("OpenCL C kernels against the hand-written ones") says what the extra instructions are.
/// A kernel that meets the target leaves this list.
const OVER_TARGET: [(&str, u64); 0] = [];

#[test]
fn compiled_kernels_meet_the_instruction_count_target() {
    for name in ["vadd", "saxpy", "reduce", "matmul", "sgemm"] {
        let count = |e: &Example| {
            let r = e.run(Size::Small, 0).unwrap_or_else(|e| panic!("{e}"));
            assert!(r.passed(), "{}: {}", e.name, r.check);
            r.instructions
        };
        let s = count(example(name));
        let cl = count(example(&format!("opencl/{name}")));
        let ratio = format!("opencl/{name}: {cl} instructions, {s} for {name}.s");
        match OVER_TARGET.iter().find(|(n, _)| *n == name) {
            None => assert!(cl * TARGET.1 <= s * TARGET.0, "{ratio}: over the target"),
            Some((_, bound)) => {
                assert!(
                    cl * 1000 <= s * bound,
                    "{ratio}: over its bound {bound}/1000"
                );
                assert!(
                    cl * TARGET.1 > s * TARGET.0,
                    "{ratio}: meets the target now; take it off OVER_TARGET"
                );
            }
        }
    }
}
