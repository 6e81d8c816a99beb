//! Shrinking a `.s` program against a DUT: each candidate becomes a conformance vector
//! (`Vector::from_program`, the ABI's initial state and the launch of the program's
//! `.launch` directives), the model computes the expected post-state, the DUT its own,
//! and the candidate still fails when the model ends it cleanly and the two differ.

use super::{shrink_source, ShrinkError, ShrinkOptions};
use crate::dut::Dut;
use crate::vector::{self, Mismatch, Status, Vector};
use warpkit_host::launch_file::{parse_launch_directives, LaunchDirectives};
use warpkit_host::{load_kernel_bytes, KernelKind, Launch, Limits};

/// The step limit per warp of a shrinking candidate: a removed loop counter update makes a
/// loop endless, and such a candidate must be rejected quickly.
pub const CANDIDATE_MAX_STEPS: u64 = 1_000_000;

/// A program shrunk against a DUT.
#[derive(Debug, Clone)]
pub struct ShrunkProgram {
    /// The source, its launch directives first.
    pub source: String,
    /// Instructions in its `.text`.
    pub instructions: usize,
    /// Its launch.
    pub launch: LaunchDirectives,
    /// Where the DUT and the model disagree on it.
    pub mismatches: Vec<Mismatch>,
    /// Candidates tried.
    pub tests: usize,
}

/// Shrinks `source` (named `name`) to a small program on which `dut` still disagrees with
/// the model: instructions first, then the launch (one workgroup, fewer threads — fewer
/// lanes and warps), then instructions again and every other line that can go.
pub fn shrink_program(
    source: &str,
    name: &str,
    dut: &Dut,
    options: ShrinkOptions,
) -> Result<ShrunkProgram, ShrinkError> {
    let launch = parse_launch_directives(source, name)
        .map_err(|e| ShrinkError::Launch(e.to_string()))?
        .unwrap_or_default();
    // The directives travel beside the body, so the launch can shrink on its own.
    let body: String = source
        .lines()
        .filter(|l| !is_launch_line(l))
        .map(|l| format!("{l}\n"))
        .collect();
    let render = |launch: &LaunchDirectives, body: &str| format!("{}{body}", launch.to_source());
    let original = render(&launch, &body);
    if disagreement(&original, name, dut).is_none() {
        return Err(ShrinkError::NotFailing);
    }
    let mut tests = 1;
    let mut left = options.max_tests.saturating_sub(1);
    let pass = |launch: &LaunchDirectives, body: &str, left: &mut usize, tests: &mut usize| {
        let shrunk = shrink_source(body, name, ShrinkOptions { max_tests: *left }, |b| {
            disagreement(&render(launch, b), name, dut).is_some()
        });
        match shrunk {
            Ok(s) => {
                *left = left.saturating_sub(s.tests);
                *tests += s.tests;
                s.source
            }
            // Unreachable in practice (the body failed just before); keep what we have.
            Err(_) => body.to_string(),
        }
    };
    let body = pass(&launch, &body, &mut left, &mut tests);
    let launch = shrink_launch(&launch, &body, name, dut, &mut left, &mut tests);
    let body = pass(&launch, &body, &mut left, &mut tests);
    let source = render(&launch, &body);
    let mismatches = disagreement(&source, name, dut).unwrap_or_default();
    let instructions = super::instructions(&source, name)?;
    Ok(ShrunkProgram {
        source,
        instructions,
        launch,
        mismatches,
        tests,
    })
}

/// The launch made as small as the disagreement allows: one workgroup, then the fewest
/// threads (tried from one upwards, so the first that fails is the smallest).
fn shrink_launch(
    launch: &LaunchDirectives,
    body: &str,
    name: &str,
    dut: &Dut,
    left: &mut usize,
    tests: &mut usize,
) -> LaunchDirectives {
    let mut best = launch.clone();
    let mut fails = |l: &LaunchDirectives, left: &mut usize| {
        if *left == 0 {
            return false;
        }
        *left -= 1;
        *tests += 1;
        disagreement(&format!("{}{body}", l.to_source()), name, dut).is_some()
    };
    if best.grid.is_some_and(|g| g != [1, 1, 1]) {
        let one = LaunchDirectives {
            grid: Some([1, 1, 1]),
            ..best.clone()
        };
        if fails(&one, left) {
            best = one;
        }
    }
    // Fewer threads, tried smallest first so the first that fails is kept: 1, 2, 4, ...
    // and whole warps. Failing need not be monotone in the thread count, so this is a
    // scan, not a bisection; it is short.
    let threads = best.block.map_or(32, |b| b.iter().product::<u32>());
    for n in (1..threads).filter(|&n| n.is_power_of_two() || n % 32 == 0) {
        let fewer = LaunchDirectives {
            block: Some([n, 1, 1]),
            ..best.clone()
        };
        if fails(&fewer, left) {
            return fewer;
        }
    }
    best
}

/// Where `dut` and the model disagree on `source`, or `None` when the candidate does not
/// assemble or launch, when the model does not end it cleanly (a trap, the step limit or a
/// deadlock: removing an instruction made the program meaningless), when the DUT fails to
/// run it, or when the two agree.
pub fn disagreement(source: &str, name: &str, dut: &Dut) -> Option<Vec<Mismatch>> {
    let vector = source_vector(source, name).ok()?;
    if vector
        .post
        .warps
        .iter()
        .any(|w| w.status != Some(Status::Ended) || w.trap.is_some())
    {
        return None;
    }
    let actual = dut.run(&vector).ok()?;
    let mismatches = vector::compare(&vector.post, &actual);
    (!mismatches.is_empty()).then_some(mismatches)
}

/// The vector of a `.s` program with its launch directives (the ABI's initial state, the
/// post-state the model computes): `warpkit shrink` hands its candidates to a DUT so, and
/// `warpkit conformance vector` writes any program so.
pub fn source_vector(source: &str, name: &str) -> Result<Vector, ShrinkError> {
    let launch_text = parse_launch_directives(source, name)
        .map_err(|e| ShrinkError::Launch(e.to_string()))?
        .unwrap_or_default();
    let program = load_kernel_bytes(source.as_bytes(), name, KernelKind::Source)
        .map_err(|e| ShrinkError::Launch(e.to_string()))?;
    let mut launch = Launch::new(Limits::default());
    let setup = |e: warpkit_host::SetupError| ShrinkError::Launch(e.to_string());
    launch.max_steps(CANDIDATE_MAX_STEPS).map_err(setup)?;
    launch_text.apply(&mut launch).map_err(setup)?;
    let (program, config, args) = launch.prepare(&program).map_err(setup)?.into_parts();
    let shape = vector::Launch {
        grid: config.grid,
        block: config.block,
        shared: config.shared_bytes,
        scratch: config.scratch_bytes,
        max_steps: CANDIDATE_MAX_STEPS,
    };
    Vector::from_program(name, &program, &shape, config.entry, args)
        .map_err(|e| ShrinkError::Launch(e.to_string()))
}

fn is_launch_line(line: &str) -> bool {
    let word = line.split_whitespace().next().unwrap_or("");
    word.eq_ignore_ascii_case(".launch") || word.eq_ignore_ascii_case(".launch_arg")
}
