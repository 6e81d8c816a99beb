//! The execution events (`docs/architecture.md`, "Execution events") of every example
//! kernel, checked against its commit trace: each instruction's events come in their
//! documented order and agree with its commit (step, PC, the write-backs it retired, the
//! operation it issued, a barrier, a trap), every asynchronous operation issued is retired
//! once, and every barrier arrival is released once.

use std::collections::BTreeMap;
use warpkit_examples::{all, Size};
use warpkit_isa::{Latency, Op};
use warpkit_sim::{Code, Commit, Control, Event, Hooks, Program, Warp, WarpId};

/// Each instruction's events, then its commit, in the order the hooks saw them.
#[derive(Default)]
struct Recorder {
    /// Events since the last commit.
    pending: Vec<Event>,
    /// Per instruction: its events and its commit.
    steps: Vec<(Vec<Event>, Commit)>,
    /// Barrier releases, by workgroup.
    releases: BTreeMap<[u32; 3], u32>,
}

impl Hooks for Recorder {
    const ENABLED: bool = true;
    const EVENTS: bool = true;

    fn event(&mut self, _: &Program, event: &Event) {
        match *event {
            Event::BarrierRelease { workgroup, warps } => {
                *self.releases.entry(workgroup).or_default() += warps;
            }
            e => self.pending.push(e),
        }
    }

    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        let events = std::mem::take(&mut self.pending);
        self.steps
            .push((events, Commit::capture(warp, prog, pc, exec_before)));
        Control::Continue
    }
}

fn warp_of(e: &Event) -> WarpId {
    match *e {
        Event::Issue { warp, .. }
        | Event::OperandsReady { warp, .. }
        | Event::AsyncIssue { warp, .. }
        | Event::AsyncRetire { warp, .. }
        | Event::BarrierArrive { warp, .. }
        | Event::Complete { warp, .. } => warp,
        Event::BarrierRelease { .. } => unreachable!("kept apart"),
    }
}

/// Check one instruction's events against its commit; returns the counters it issued on
/// and retired from.
fn check_step(name: &str, prog: &Program, events: &[Event], c: &Commit) -> (Vec<u8>, Vec<u8>) {
    let at = format!("{name}: pc {:#x} step {} (`{}`)", c.pc, c.step, c.asm);
    let id = WarpId {
        workgroup: c.workgroup,
        warp: c.warp,
    };
    assert!(events.iter().all(|e| warp_of(e) == id), "{at}: {events:?}");
    let [Event::Issue { pc, step, .. }, Event::OperandsReady { pending, .. }, rest @ .., Event::Complete { trapped, .. }] =
        events
    else {
        panic!("{at}: events out of order: {events:?}");
    };
    assert_eq!((*pc, *step), (c.pc, c.step), "{at}");
    assert_eq!(
        *pending, 0,
        "{at}: the example kernels wait for every result they read"
    );
    assert_eq!(*trapped, c.trap.is_some(), "{at}");
    let mut retired = Vec::new();
    let mut issued = Vec::new();
    let mut barrier = false;
    let mut retired_pcs = Vec::new();
    for e in rest {
        match *e {
            Event::AsyncRetire {
                pc,
                issued_at,
                counter,
                ..
            } => {
                assert_eq!(pc, c.pc, "{at}");
                assert!(
                    issued.is_empty() && !barrier,
                    "{at}: retirements come first"
                );
                retired.push(counter);
                retired_pcs.push(issued_at);
            }
            Event::AsyncIssue { pc, counter, .. } => {
                assert_eq!(pc, c.pc, "{at}");
                issued.push(counter);
            }
            Event::BarrierArrive { pc, .. } => {
                assert_eq!(pc, c.pc, "{at}");
                barrier = true;
            }
            ref other => panic!("{at}: unexpected {other:?}"),
        }
    }
    let committed_retired: Vec<u32> = c.retired.iter().map(|(pc, _)| *pc).collect();
    assert_eq!(
        retired_pcs, committed_retired,
        "{at}: the write-backs it retired"
    );
    let op = match prog.fetch(c.pc).map(|i| i.code) {
        Some(Code::Op(op)) => Some(op),
        _ => None,
    };
    let asynchronous = op.map(|op| op.def().latency);
    let expect_issue = match asynchronous {
        Some(Latency::Async(counter)) if c.trap.is_none() => vec![counter],
        _ => vec![],
    };
    assert_eq!(issued, expect_issue, "{at}: the operation it issued");
    assert_eq!(
        barrier,
        op == Some(Op::Barrier) && c.trap.is_none(),
        "{at}: barrier arrival"
    );
    (issued, retired)
}

#[test]
fn execution_events_agree_with_the_commit_trace() {
    let mut checked_async = 0;
    let mut checked_barriers = 0;
    for example in all() {
        let case = example.case(Size::Small);
        let code = example.code().expect("assembles");
        let program = &code.program;
        let mut rec = Recorder::default();
        let results = example
            .launch_stages_observed(&case, &code, &mut rec)
            .unwrap_or_else(|e| panic!("{}: {e}", example.name));
        assert!(
            results.iter().all(|r| r.ok()),
            "{} did not end",
            example.name
        );
        assert!(
            rec.pending.is_empty(),
            "{}: events after the last commit",
            example.name
        );
        let instructions: u64 = results.iter().map(|r| r.stats.instructions).sum();
        assert_eq!(rec.steps.len() as u64, instructions, "{}", example.name);
        // Stages launch one after the other: count per stage and workgroup.
        let mut issued: BTreeMap<u8, u64> = BTreeMap::new();
        let mut retired: BTreeMap<u8, u64> = BTreeMap::new();
        let mut arrivals: BTreeMap<[u32; 3], u32> = BTreeMap::new();
        for (events, commit) in &rec.steps {
            let (i, r) = check_step(example.name, program, events, commit);
            for c in i {
                *issued.entry(c).or_default() += 1;
            }
            for c in r {
                *retired.entry(c).or_default() += 1;
            }
            if events
                .iter()
                .any(|e| matches!(e, Event::BarrierArrive { .. }))
            {
                *arrivals.entry(commit.workgroup).or_default() += 1;
            }
        }
        // Every warp ends with `endpgm`, which retires what is still pending.
        assert_eq!(
            issued, retired,
            "{}: issued and retired per counter",
            example.name
        );
        assert_eq!(
            arrivals, rec.releases,
            "{}: barrier arrivals and releases per workgroup",
            example.name
        );
        checked_async += issued.values().sum::<u64>();
        checked_barriers += arrivals.values().map(|&n| u64::from(n)).sum::<u64>();
    }
    assert!(
        checked_async > 1000 && checked_barriers > 100,
        "{checked_async} {checked_barriers}"
    );
}
