//! Helpers: assembling a test kernel, launching it timed, building example stages' arguments.
#![allow(dead_code)]

use warpkit_examples::Example;
use warpkit_sim::launch::{Arg, ArgValue, LaunchConfig, LaunchResult};
use warpkit_sim::Program;
use warpkit_timing::{launch_timed, Machine, TimingOptions, TimingReport};

/// Assemble `src`; panics with the rendered error.
pub fn program(src: &str) -> Program {
    match warpkit_asm::assemble(src, "test.s") {
        Ok(p) => Program::with_data(p.text, p.data),
        Err(e) => panic!("{}", e.render(src)),
    }
}

/// A named argument.
pub fn arg(name: &str, value: ArgValue) -> Arg {
    Arg {
        name: name.into(),
        value,
    }
}

/// Launch `src` as one workgroup of `threads` threads with `args` on `machine`, timed.
pub fn time(src: &str, threads: u32, args: Vec<Arg>, machine: &Machine) -> TimingReport {
    let config = LaunchConfig {
        block: [threads, 1, 1],
        threads: 1,
        ..LaunchConfig::default()
    };
    time_config(src, &config, args, machine)
}

/// Launch `src` with `config` and `args` on `machine`, timed; the run must end cleanly.
pub fn time_config(
    src: &str,
    config: &LaunchConfig,
    args: Vec<Arg>,
    machine: &Machine,
) -> TimingReport {
    let opts = TimingOptions {
        machine: machine.clone(),
        kernel: "test".into(),
        ..TimingOptions::default()
    };
    let (r, report) = launch_timed(&program(src), config, args, &opts).unwrap();
    assert!(r.ok(), "{:?} {:?}", r.traps, r.deadlocks);
    check_sum(&report);
    report
}

/// The stall categories sum to cycles x compute units x warp slots.
pub fn check_sum(report: &TimingReport) {
    let m = &report.machine;
    let total: u64 = report.stalls.values().sum();
    assert_eq!(
        total,
        report.cycles * u64::from(m.compute_units) * u64::from(m.cu.warp_slots),
        "stalls {:?} over {} cycles",
        report.stalls,
        report.cycles
    );
    assert_eq!(report.stalls.len(), 14);
}

/// Every stage of `example` at `case`, timed with `opts` (the program's engine set to
/// `engine`): the functional results and the combined report.
pub fn time_example(
    example: &Example,
    case: &warpkit_examples::Case,
    engine: warpkit_sim::Engine,
    opts: &TimingOptions,
) -> (Vec<LaunchResult>, TimingReport) {
    let mut code = example.code().expect("assembles");
    code.program.set_engine(engine);
    let mut results: Vec<LaunchResult> = Vec::new();
    let mut reports = Vec::new();
    for (index, stage) in case.stages.iter().enumerate() {
        let args = example.stage_args(index, stage, &results).unwrap();
        let config = code.config(stage);
        let (r, report) = launch_timed(&code.program, &config, args, opts)
            .unwrap_or_else(|e| panic!("{}: {e}", example.name));
        check_sum(&report);
        results.push(r);
        reports.push(report);
    }
    (results, TimingReport::combine(reports))
}
