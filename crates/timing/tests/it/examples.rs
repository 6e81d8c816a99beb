//! The example kernels timed: the stall categories add up, the functional results are a
//! plain launch's, and the report is the same for any thread count and either engine.

use crate::common::{check_sum, stage_args, time_example};
use warpkit_examples::{all, Size};
use warpkit_sim::launch::{launch, LaunchResult};
use warpkit_sim::Engine;
use warpkit_timing::TimingOptions;

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
        let code = example.code().unwrap();
        let mut plain: Vec<LaunchResult> = Vec::new();
        for stage in &case.stages {
            let args = stage_args(stage, &plain);
            plain.push(launch(&code.program, &code.config(stage), args).unwrap());
        }
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
