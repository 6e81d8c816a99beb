//! Running a program and reading its signature: the `sig` buffer after the run
//! (docs/gen.md, "Signature"). Two runs agree iff their signatures are byte-equal.

use crate::gen::GeneratedProgram;
use warpkit_host::launch_file::{parse_launch_directives, LaunchDirectiveError};
use warpkit_host::{load_kernel_bytes, KernelKind, Launch, Limits, LoadError, SetupError};
use warpkit_sim::launch::{LaunchError, TrapReport};
use warpkit_sim::Engine;

/// The step limit per warp of a signature run: generated programs need far fewer.
pub const MAX_STEPS: u64 = 10_000_000;

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The final contents of the `sig` buffer.
    pub signature: Vec<u8>,
    /// Warps stopped by a trap (not those whose trap a handler took).
    pub traps: Vec<TrapReport>,
    /// Hazards seen (§2.6).
    pub hazards: u64,
    /// Warps stopped by the step limit.
    pub step_limits: usize,
    /// Workgroups left deadlocked at a barrier.
    pub deadlocks: usize,
}

impl Outcome {
    /// Every warp ended by `endpgm`, without a trap, a hazard or a limit.
    pub fn clean(&self) -> bool {
        self.traps.is_empty() && self.hazards == 0 && self.step_limits == 0 && self.deadlocks == 0
    }
}

/// Why a program could not be run.
#[derive(Debug, thiserror::Error)]
pub enum SignatureError {
    /// A malformed launch directive.
    #[error(transparent)]
    Directive(#[from] LaunchDirectiveError),
    /// The program declares no launch (`.launch`).
    #[error("{0}: no `.launch` directive: the program does not say how to run it")]
    NoLaunch(String),
    /// It does not assemble.
    #[error("{0}")]
    Load(String),
    /// The launch was refused.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The launch failed.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// No buffer argument `sig`.
    #[error("the program has no buffer argument `sig`")]
    NoSignature,
}

/// Run the assembly `source` (named `name`) with the launch its directives declare on
/// `engine`.
pub fn run_source(source: &str, name: &str, engine: Engine) -> Result<Outcome, SignatureError> {
    let directives = parse_launch_directives(source, name)?
        .ok_or_else(|| SignatureError::NoLaunch(name.into()))?;
    let program = load_kernel_bytes(source.as_bytes(), name, KernelKind::Source).map_err(
        |e: LoadError| {
            SignatureError::Load(match &e {
                LoadError::Assembly { .. } => e.render(),
                _ => e.to_string(),
            })
        },
    )?;
    let mut launch = Launch::new(Limits::default());
    launch.max_steps(MAX_STEPS)?.threads(1)?;
    directives.apply(&mut launch)?;
    let mut prepared = launch.prepare(&program)?;
    prepared.engine(engine);
    let result = prepared.run()?;
    let signature = result
        .buffer("sig")
        .ok_or(SignatureError::NoSignature)?
        .into_owned();
    Ok(Outcome {
        signature,
        traps: result.traps.clone(),
        hazards: result.stats.hazards,
        step_limits: result.step_limits.len(),
        deadlocks: result.deadlocks.len(),
    })
}

/// Run a generated program on `engine`.
pub fn run(program: &GeneratedProgram, engine: Engine) -> Result<Outcome, SignatureError> {
    run_source(&program.text, &format!("gen-{}.s", program.seed), engine)
}

/// The signature of a generated program on `engine`.
pub fn signature(program: &GeneratedProgram, engine: Engine) -> Result<Vec<u8>, SignatureError> {
    Ok(run(program, engine)?.signature)
}

/// Why a generated program failed its check.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// It could not be run on an engine.
    #[error("{engine}: {error}")]
    Run {
        /// The engine.
        engine: &'static str,
        /// Why.
        error: Box<SignatureError>,
    },
    /// It trapped, hazarded, hit the step limit or deadlocked on an engine.
    #[error("{engine}: not a clean run: {traps} trap(s), {hazards} hazard(s), {step_limits} step limit(s), {deadlocks} deadlock(s)")]
    NotClean {
        /// The engine.
        engine: &'static str,
        /// Warps trapped.
        traps: usize,
        /// Hazards seen.
        hazards: u64,
        /// Warps at the step limit.
        step_limits: usize,
        /// Workgroups deadlocked.
        deadlocks: usize,
    },
    /// The engines' signatures differ, first at this byte.
    #[error("the jit and interp signatures differ, first at byte {offset} (warp {warp}, {what})")]
    Differ {
        /// The first differing byte.
        offset: usize,
        /// The warp (grid order) whose signature holds it.
        warp: u64,
        /// What the word holds (`v12 lane 3`, `u7`, `exec`, a CSR).
        what: String,
    },
    /// Generating the same seed twice gave different text.
    #[error("regenerating the seed gave a different program")]
    NotReproducible,
}

/// Check a generated program: it regenerates byte for byte from its seed and options,
/// runs clean (no trap, hazard, step limit or deadlock) on the interpreter and the
/// translation tier, and both give the same signature, which is returned.
pub fn check(
    program: &GeneratedProgram,
    options: &crate::gen::GenOptions,
) -> Result<Vec<u8>, CheckError> {
    if crate::gen::generate(options, program.seed).text != program.text {
        return Err(CheckError::NotReproducible);
    }
    let mut signatures = Vec::new();
    for (engine, name) in [(Engine::Interp, "interp"), (Engine::Jit, "jit")] {
        let o = run(program, engine).map_err(|error| CheckError::Run {
            engine: name,
            error: Box::new(error),
        })?;
        if !o.clean() {
            return Err(CheckError::NotClean {
                engine: name,
                traps: o.traps.len(),
                hazards: o.hazards,
                step_limits: o.step_limits,
                deadlocks: o.deadlocks,
            });
        }
        signatures.push(o.signature);
    }
    let (a, b) = (&signatures[0], &signatures[1]);
    if let Some(offset) = a.iter().zip(b.iter()).position(|(x, y)| x != y) {
        return Err(CheckError::Differ {
            offset,
            warp: offset as u64 / crate::gen::SIG_WARP_BYTES,
            what: describe(offset as u64 % crate::gen::SIG_WARP_BYTES),
        });
    }
    Ok(signatures.swap_remove(0))
}

/// What the word at `offset` of a warp's signature holds.
pub fn describe(offset: u64) -> String {
    use crate::gen::{SIG_CSRS, SIG_U_OFFSET, SIG_V_OFFSET};
    let word = offset / 4;
    if offset < SIG_U_OFFSET {
        match word {
            0 => "exec".into(),
            k => SIG_CSRS
                .get(k as usize - 1)
                .unwrap_or(&"padding")
                .to_string(),
        }
    } else if offset < SIG_V_OFFSET {
        format!("u{}", (offset - SIG_U_OFFSET) / 4)
    } else {
        let o = offset - SIG_V_OFFSET;
        format!("v{} lane {}", o / 128, (o % 128) / 4)
    }
}
