//! The example kernels timed: the stall categories add up, the functional results are a
//! plain launch's, and the report is the same for any thread count and either engine.

use crate::common::{check_sum, time_example};
use warpkit_examples::{all, Size};
use warpkit_sim::launch::LaunchResult;
use warpkit_sim::Engine;
use warpkit_timing::{launch_timed_deferred, TimingOptions, TimingReport};

fn opts(threads: usize) -> TimingOptions {
    TimingOptions {
        threads,
        ..TimingOptions::default()
    }
}

#[test]
fn every_example_adds_up_and_matches_a_plain_launch() {
    for example in all() {
        let case = example.case(Size::Small);
        let (timed, report) = time_example(example, &case, Engine::Interp, &opts(2));
        check_sum(&report);
        assert!(report.cycles > 0, "{}", example.name);
        assert_eq!(report.kernels.len(), case.stages.len());
        // The plain launch of the same stages.
        let plain = example
            .launch_stages(&case, example.code().unwrap(), 0, false)
            .unwrap();
        for (a, b) in timed.iter().zip(&plain) {
            assert_eq!(a.buffers, b.buffers, "{}", example.name);
            assert_eq!(
                a.stats.instructions, b.stats.instructions,
                "{}",
                example.name
            );
            assert!(a.ok(), "{}", example.name);
        }
        let issued: u64 = timed.iter().map(|r| r.stats.instructions).sum();
        assert_eq!(report.instructions, issued, "{}", example.name);
        assert_eq!(report.stalls["issued"], issued, "{}", example.name);
        let per_pc: u64 = report.pcs.iter().map(|p| p.issued).sum();
        assert_eq!(per_pc, issued, "{}", example.name);
    }
}

#[test]
fn reports_do_not_depend_on_threads_or_engine() {
    for example in all() {
        let case = example.case(Size::Small);
        let (_, one) = time_example(example, &case, Engine::Interp, &opts(1));
        let (_, two) = time_example(example, &case, Engine::Interp, &opts(2));
        let (_, jit) = time_example(example, &case, Engine::Jit, &opts(2));
        assert_eq!(one.to_json(), two.to_json(), "{}: threads", example.name);
        assert_eq!(one.to_json(), jit.to_json(), "{}: engines", example.name);
    }
}

#[test]
fn timelines_cover_each_warp_from_dispatch_to_its_end() {
    let example = warpkit_examples::find("reduce").unwrap_or(&all()[0]);
    let case = example.case(Size::Small);
    let o = TimingOptions {
        timeline: true,
        ..opts(2)
    };
    let (_, report) = time_example(example, &case, Engine::Interp, &o);
    let timeline = report.timeline.as_ref().expect("a timeline");
    assert!(!timeline.is_empty());
    let mut issued = 0;
    for w in timeline {
        for pair in w.spans.windows(2) {
            assert_eq!(pair[0].end, pair[1].start, "contiguous spans");
        }
        for s in &w.spans {
            assert!(s.start < s.end);
            if s.category == "issued" {
                issued += s.end - s.start;
            }
        }
    }
    assert_eq!(issued, report.instructions);
}

/// The machines of `machines/`, and the default with two compute units, with 64-byte
/// lines, with 16 banks and with 8-byte banks: six recordings, two of them shared by two
/// machines, and for each field of the recording a pair of machines that differ only in it.
fn machines() -> Vec<warpkit_timing::Machine> {
    let file = |name: &str| {
        let path = format!("{}/../../machines/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        warpkit_timing::Machine::from_toml(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let default = warpkit_timing::Machine::default;
    let mut two = default();
    two.compute_units = 2;
    let mut lines = default();
    lines.l1.line_bytes = 64;
    lines.l2.line_bytes = 64;
    let mut banks = default();
    banks.shared.banks = 16;
    let mut wide_banks = default();
    wide_banks.shared.bank_bytes = 8;
    vec![
        file("default.toml"),
        file("wide.toml"),
        file("small.toml"),
        file("mshr-bound.toml"),
        two,
        lines,
        banks,
        wide_banks,
    ]
}

#[test]
fn machines_sharing_a_functional_run_get_the_reports_each_gets_alone() {
    use warpkit_timing::{check_machine, launch_timed, launch_timed_many};
    let all_machines = machines();
    for example in all() {
        let case = example.case(Size::Small);
        let code = example.code().unwrap();
        // The machines every stage fits.
        let machines: Vec<_> = all_machines
            .iter()
            .filter(|m| {
                case.stages
                    .iter()
                    .all(|s| check_machine(&code.program, &code.config(s), m).is_ok())
            })
            .cloned()
            .collect();
        assert!(machines.len() >= 3, "{}", example.name);
        let opts = TimingOptions {
            timeline: true,
            threads: 2,
            ..TimingOptions::default()
        };
        let mut results: Vec<LaunchResult> = Vec::new();
        for (index, stage) in case.stages.iter().enumerate() {
            let args = example.stage_args(index, stage, &results).unwrap();
            let config = code.config(stage);
            let (result, reports) =
                launch_timed_many(&code.program, &config, args.clone(), &opts, &machines).unwrap();
            assert_eq!(reports.len(), machines.len());
            for (machine, many) in machines.iter().zip(&reports) {
                let alone = TimingOptions {
                    machine: machine.clone(),
                    ..opts.clone()
                };
                let (single, report) =
                    launch_timed(&code.program, &config, args.clone(), &alone).unwrap();
                assert_eq!(
                    many.to_json(),
                    report.to_json(),
                    "{} on {}",
                    example.name,
                    machine.name
                );
                assert_eq!(single.buffers, result.buffers, "{}", example.name);
            }
            results.push(result);
        }
    }
}

#[test]
fn a_machine_that_cannot_run_the_launch_fails_the_whole_call_before_it_runs() {
    use warpkit_timing::{launch_timed_many, TimingError};
    let example = warpkit_examples::find("vadd").unwrap();
    let case = example.case(Size::Small);
    let code = example.code().unwrap();
    let stage = &case.stages[0];
    let mut tiny = warpkit_timing::Machine::default();
    tiny.cu.warp_slots = 1;
    let machines = [warpkit_timing::Machine::default(), tiny];
    match launch_timed_many(
        &code.program,
        &code.config(stage),
        example.stage_args(0, stage, &[]).unwrap(),
        &TimingOptions::default(),
        &machines,
    ) {
        Err(TimingError::DoesNotFit { limit, .. }) => assert_eq!(limit, "warp slots"),
        other => panic!("{:?}", other.map(|(_, r)| r.len())),
    }
}

#[test]
fn no_machine_is_a_plain_launch() {
    let example = warpkit_examples::find("vadd").unwrap();
    let case = example.case(Size::Small);
    let code = example.code().unwrap();
    let stage = &case.stages[0];
    let args = example.stage_args(0, stage, &[]).unwrap();
    let plain =
        warpkit_sim::launch::launch(&code.program, &code.config(stage), args.clone()).unwrap();
    let (result, reports) = warpkit_timing::launch_timed_many(
        &code.program,
        &code.config(stage),
        args,
        &TimingOptions::default(),
        &[],
    )
    .unwrap();
    assert!(reports.is_empty());
    assert_eq!(result.buffers, plain.buffers);
}

#[test]
fn deferred_launches_give_what_launch_timed_gives() {
    for example in all() {
        let case = example.case(Size::Small);
        let code = example.code().unwrap();
        let opts = opts(2);
        let (timed, report) = time_example(example, &case, Engine::host_default(), &opts);
        // Every stage launched before any replay is waited for.
        let mut results: Vec<LaunchResult> = Vec::new();
        let mut pending = Vec::new();
        for (index, stage) in case.stages.iter().enumerate() {
            let args = example.stage_args(index, stage, &results).unwrap();
            let config = code.config(stage);
            let (r, t) = launch_timed_deferred(&code.program, &config, args, &opts).unwrap();
            results.push(r);
            pending.push(t);
        }
        let reports: Vec<TimingReport> = pending.into_iter().map(|t| t.wait()).collect();
        let deferred = TimingReport::combine(reports);
        assert_eq!(deferred.to_json(), report.to_json(), "{}", example.name);
        for (a, b) in results.iter().zip(&timed) {
            assert_eq!(a.buffers, b.buffers, "{}", example.name);
        }
    }
}
