//! Run control: a cancellation flag stops a launch, and a trace sink that fails or fills up
//! stops the run instead of letting it go on unrecorded (docs/architecture.md).

use std::io::{self, Write};
use std::time::{Duration, Instant};
use warpkit_sim::launch::*;
use warpkit_sim::*;

fn program(src: &str) -> Program {
    match warpkit_asm::assemble(src, "test.s") {
        Ok(p) => Program::new(p.text),
        Err(e) => panic!("{}", e.render(src)),
    }
}

/// A warp that never ends on its own.
const RUNAWAY: &str = "top:\n  uaddi u5, u5, 1\n  jmp top\n";

fn unlimited() -> LaunchConfig {
    LaunchConfig {
        max_steps: u64::MAX,
        threads: 2,
        ..LaunchConfig::default()
    }
}

#[test]
fn a_flag_set_before_the_launch_runs_nothing() {
    let flag = CancelFlag::new();
    flag.cancel();
    let cfg = LaunchConfig {
        grid: [8, 1, 1],
        cancel: Some(flag),
        ..unlimited()
    };
    let r = launch(&program(RUNAWAY), &cfg, vec![]).unwrap();
    assert_eq!(r.interrupted, Some(Interrupt::Cancelled));
    assert!(!r.ok());
    assert_eq!(r.stats.instructions, 0);
}

#[test]
fn a_flag_set_during_the_run_stops_runaway_warps() {
    let flag = CancelFlag::new();
    let cfg = LaunchConfig {
        grid: [4, 1, 1],
        block: [64, 1, 1],
        keep_warps: true,
        cancel: Some(flag.clone()),
        ..unlimited()
    };
    let prog = program(RUNAWAY);
    let start = Instant::now();
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            flag.cancel();
        });
        launch(&prog, &cfg, vec![]).unwrap()
    });
    // Without the flag the launch would run for ever (no step limit).
    assert!(start.elapsed() < Duration::from_secs(60));
    assert_eq!(r.interrupted, Some(Interrupt::Cancelled));
    assert!(r.step_limits.is_empty() && r.traps.is_empty());
    assert!(r.stats.instructions > 0);
    // Stopped warps keep their state and stay runnable; none claims to have ended.
    assert!(r.warps.iter().all(|w| w.status != WarpStatus::Ended));
    assert!(r.warps.iter().any(|w| w.status == WarpStatus::Running));
}

#[test]
fn the_step_limit_still_applies_exactly() {
    // The cancellation check shares the step-limit comparison: limits below, at and
    // above the check interval stop after exactly that many instructions.
    for max_steps in [1, 7, 4095, 4096, 4097, 10_000] {
        let cfg = LaunchConfig {
            max_steps,
            keep_warps: true,
            cancel: Some(CancelFlag::new()),
            ..LaunchConfig::default()
        };
        let r = launch(&program(RUNAWAY), &cfg, vec![]).unwrap();
        assert_eq!(r.interrupted, None);
        assert_eq!(r.step_limits.len(), 1);
        assert_eq!(r.step_limits[0].steps, max_steps);
        assert_eq!(r.warps[0].steps, max_steps);
    }
}

#[test]
fn a_cancelled_warp_resumes_where_it_stopped() {
    let prog = program(
        "umovi u1, 0\nloop:\nuaddi u1, u1, 1\nuslt.l u2, u1, 100000\nbnz u2, loop\nendpgm\n",
    );
    let mut wg = Workgroup::new([0, 0, 0], &[u32::MAX]);
    let flag = CancelFlag::new();
    flag.cancel();
    let s = wg.warps[0].steps;
    wg.run_cancellable(
        &prog,
        &mut Core::default(),
        &mut NoMemory,
        &mut NoHooks,
        u64::MAX,
        flag.as_atomic(),
    );
    // Cancelled before its first look at the flag: nothing ran.
    assert_eq!(wg.warps[0].steps, s);
    assert_eq!(wg.summary().interrupted, 1);
    let mut w = wg.warps[0].clone();
    let stopped = CancelFlag::new();
    let mut core = Core::default();
    std::thread::scope(|sc| {
        sc.spawn(|| stopped.cancel());
        w.run_cancellable(
            &prog,
            &mut core,
            &mut NoMemory,
            &mut NoHooks,
            u64::MAX,
            stopped.as_atomic(),
        );
    });
    // Whether or not the flag was seen, running on without it finishes the same program.
    w.run(&prog, &mut core, &mut NoMemory, &mut NoHooks, u64::MAX);
    assert_eq!(w.status, WarpStatus::Ended);
    assert_eq!(w.u[1], 100000);
}

#[test]
fn a_capped_trace_stops_the_run_at_a_record_boundary() {
    for format in [TraceFormat::Json, TraceFormat::Text] {
        for cap in [200u64, 5_000, 100_000] {
            let mut tracer = WriteTracer::new(Vec::new(), format).with_max_bytes(cap);
            let r =
                launch_with_tracer(&program(RUNAWAY), &unlimited(), vec![], &mut tracer).unwrap();
            assert_eq!(
                r.interrupted,
                Some(Interrupt::TraceLimit { max_bytes: cap })
            );
            assert!(r.step_limits.is_empty());
            let out = tracer.finish().unwrap();
            assert!(out.len() as u64 <= cap, "{} > {cap}", out.len());
            let text = String::from_utf8(out).unwrap();
            assert!(text.ends_with('\n'));
            let last = text.lines().last().unwrap();
            match format {
                TraceFormat::Json => {
                    for l in text.lines() {
                        serde_json::from_str::<serde_json::Value>(l).unwrap();
                    }
                    let v: serde_json::Value = serde_json::from_str(last).unwrap();
                    assert_eq!(v["truncated"], true);
                    assert_eq!(v["max_bytes"], cap);
                }
                TraceFormat::Text => assert!(last.starts_with("# trace truncated"), "{last}"),
            }
            // One record per retired instruction, all but the closing one (and the header).
            let records = text
                .lines()
                .filter(|l| l.contains("\"pc\"") || l.starts_with('w'));
            assert_eq!(records.count() as u64, r.stats.instructions - 1);
        }
    }
}

#[test]
fn a_trace_that_fits_is_complete() {
    let mut tracer = WriteTracer::new(Vec::new(), TraceFormat::Json).with_max_bytes(1 << 20);
    let r =
        launch_with_tracer(&program("nop\nendpgm\n"), &unlimited(), vec![], &mut tracer).unwrap();
    assert!(r.ok());
    let text = String::from_utf8(tracer.finish().unwrap()).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(!text.contains("truncated"));
}

/// Accepts `left` bytes, then fails every write.
#[derive(Debug)]
struct FailingSink {
    left: usize,
}

impl Write for FailingSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("disk full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_trace_sink_stops_the_run() {
    let cfg = LaunchConfig {
        grid: [3, 1, 1],
        ..unlimited()
    };
    let (r, io) = launch_traced(
        &program(RUNAWAY),
        &cfg,
        vec![],
        FailingSink { left: 4000 },
        TraceFormat::Text,
    )
    .unwrap();
    assert_eq!(r.interrupted, Some(Interrupt::TraceWriteFailed));
    assert!(r.stats.instructions < 1000, "{}", r.stats.instructions);
    assert_eq!(r.stats.workgroups, 1, "later workgroups never start");
    assert_eq!(io.unwrap_err().to_string(), "disk full");
}
