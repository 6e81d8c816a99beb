//! The parts together: coverage measured over generated programs, each launched by its own
//! `.launch` directives (docs/verification.md).

use warpkit_host::launch_file::parse_launch_directives;
use warpkit_host::{load_kernel_bytes, KernelKind, Launch, Limits};
use warpkit_verify::cover::{measure_launch, Category, Coverage, Model};
use warpkit_verify::gen::{generate, GenOptions};

/// The coverage of generated programs of seeds `0..count`, merged.
fn coverage_of_seeds(model: &Model, count: u64) -> Coverage {
    let mut total = Coverage::empty(model);
    for seed in 0..count {
        let p = generate(&GenOptions::default(), seed);
        let name = format!("gen-{seed}.s");
        let object = load_kernel_bytes(p.text.as_bytes(), &name, KernelKind::Source).unwrap();
        let mut launch = Launch::new(Limits::default());
        parse_launch_directives(&p.text, &name)
            .unwrap()
            .unwrap()
            .apply(&mut launch)
            .unwrap();
        let (program, config, args) = launch.prepare(&object).unwrap().into_parts();
        let (result, cov) = measure_launch(model, &name, &program, &config, args).unwrap();
        assert!(result.traps.is_empty(), "{name} trapped");
        total.merge(&cov);
    }
    total
}

/// Issue criterion: a coverage run over 1 000 generated programs reaches every instruction
/// bin (`executed` of every instruction of the database) and reports the rest.
#[test]
fn a_thousand_generated_programs_execute_every_instruction() {
    let model = Model::generate();
    let cov = coverage_of_seeds(&model, 1000);
    let missed: Vec<&str> = cov
        .bins
        .iter()
        .filter(|(_, b)| b.category == Category::Instructions.name() && b.hits == 0)
        .map(|(id, _)| id.as_str())
        .collect();
    assert!(missed.is_empty(), "instructions never executed: {missed:?}");
    assert_eq!(cov.programs.len(), 1000);
    // The rest is reported: bins of other categories that no program reached exist and are
    // listed by the report (the model asks for more than random programs reach).
    let report = warpkit_verify::cover::report::text(&cov);
    assert!(report.contains("\nnot hit:\n"), "{report}");
}
