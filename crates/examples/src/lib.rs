//! The example kernels of `examples/`, each with its launch description, deterministic
//! inputs and a host-side reference, so a run proves the toolkit computed the right thing.
//!
//! [`all`] lists the kernels; [`Example::case`] builds the launches and the expected output
//! for a [`Size`]; [`Example::run`] assembles the source, launches it on the functional
//! model (`warpkit_sim::launch`), and compares the output buffers with the reference.
//!
//! Most hand-written assembly kernels of `examples/*.s` have OpenCL C twins in
//! `examples/opencl/*.cl` that take the same arguments: they are examples of their own,
//! named `opencl/NAME` ([`Language::OpenCl`]), compiled with `warpkit-cc` on every run and
//! checked against their twin's launches and references ([`Example::twin`]). A few
//! PolyBench-style OpenCL C kernels (`gesummv`, `atax`, `jacobi2d`) have cases of their own.
//!
//! Most references are computed before the run. The float kernels that use an SFU
//! transcendental (`fexp2`, `frsq`: accurate to 1 ulp, not correctly rounded) check its
//! results against the exact value within that bound ([`Expected::ulps`]) and then derive
//! the rest of their reference from the values the kernel actually got
//! ([`Example::derive`]), so everything downstream is still checked bit for bit.

mod export;
mod gen;
mod kernels;
pub mod linx;

pub use export::{CaseFile, MANIFEST};
pub use gen::{to_bytes, to_words, Rng};

use std::time::Duration;
use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig, LaunchError, LaunchResult};
use warpkit_sim::trap::cause_name;
use warpkit_sim::Program;

/// How big a problem to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Size {
    /// Small enough for the test suite in the test profile.
    Small,
    /// Meaningful sizes: what `warpkit examples` runs by default.
    Full,
}

/// What an example's source is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// warpkit assembly, `examples/NAME.s`.
    Assembly,
    /// OpenCL C, `examples/opencl/KERNEL.cl` (the example `opencl/KERNEL`), compiled by
    /// `warpkit-cc` with its default options; the kernel launched is the one called
    /// KERNEL.
    OpenCl,
}

/// One kernel of `examples/`.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// The path in `examples/` without its extension (`vadd`, `opencl/vadd`): the name
    /// `warpkit examples NAME` takes.
    pub name: &'static str,
    /// What it computes, in a few words.
    pub summary: &'static str,
    /// What [`Example::source`] is written in.
    pub language: Language,
    /// The source text: assembly or OpenCL C ([`Example::language`]).
    pub source: &'static str,
    build: fn(Size) -> Case,
    /// More expectations computed from the run's outputs (see the crate documentation).
    derive: Option<fn(&Case, &Outputs) -> Vec<Expected>>,
    /// The output as a picture, for kernels that compute one.
    image: Option<fn(&Case, &Outputs) -> Image>,
}

impl Example {
    /// No derived check, no image: the fields the `example!` table fills in when a kernel
    /// does not need them.
    const PLAIN: Example = Example {
        name: "",
        summary: "",
        language: Language::Assembly,
        source: "",
        build: |_| Case {
            problem: String::new(),
            stages: Vec::new(),
            expected: Vec::new(),
        },
        derive: None,
        image: None,
    };
}

/// The output buffers of a finished run, as the derived checks and images read them.
pub struct Outputs<'a> {
    results: &'a [LaunchResult],
}

impl Outputs<'_> {
    /// Buffer `buffer` of launch `stage` as u32 words (empty if there is no such buffer).
    pub fn words(&self, stage: usize, buffer: &str) -> Vec<u32> {
        self.results
            .get(stage)
            .and_then(|r| r.buffer(buffer))
            .map(|b| to_words(&b))
            .unwrap_or_default()
    }
}

/// An 8-bit indexed-colour picture: what `warpkit examples --save-images` writes as PNG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// One palette index per pixel, row by row from the top.
    pub pixels: Vec<u8>,
    /// RGB colours; every pixel indexes into it.
    pub palette: Vec<[u8; 3]>,
}

/// A value for one argument slot of a stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StageArg {
    /// An integer slot.
    Int(u64),
    /// A buffer holding these bytes.
    Bytes(Vec<u8>),
    /// A zero-filled buffer of this many bytes.
    Zeroed(usize),
    /// A buffer holding the first `len` bytes (all of them if `None`) of buffer `buffer`
    /// as stage `stage` left it: how a second pass consumes the first one's output.
    Output {
        /// Index of an earlier stage of the same case.
        stage: usize,
        /// Name of that stage's buffer argument.
        buffer: String,
        /// Bytes to take from its start; `None` for the whole buffer.
        len: Option<usize>,
    },
}

/// One launch of the kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// Workgroups in x, y, z.
    pub grid: [u32; 3],
    /// Threads per workgroup in x, y, z.
    pub block: [u32; 3],
    /// Bytes of shared memory per workgroup.
    pub shared_bytes: u32,
    /// Argument slots in order: slot k is at byte 8*k of the argument block.
    pub args: Vec<(String, StageArg)>,
}

/// The reference contents of one output buffer, as u32 words from its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Index of the stage whose buffer is checked, in [`Case::stages`].
    pub stage: usize,
    /// Name of the buffer argument of that stage.
    pub buffer: String,
    /// The reference words; the buffer may be longer, the rest is not checked.
    pub words: Vec<u32>,
    /// 0: every word must equal `words`. Otherwise the words are f32 values, each within
    /// this many units in the last place of its reference (a NaN must match exactly): the
    /// documented accuracy of an SFU transcendental, whose reference is the exact value
    /// rounded to nearest.
    pub ulps: u32,
}

/// A problem instance: the launches to run, in order, and what they must produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The problem size, for people ("n=1048576", "256x256x256").
    pub problem: String,
    /// The launches, run in order on the same program; later ones may take earlier
    /// outputs ([`StageArg::Output`]).
    pub stages: Vec<Stage>,
    /// The buffers to check after the last stage, compared in order.
    pub expected: Vec<Expected>,
}

/// The first difference between the output and the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Every checked word equals its reference (or lies within its tolerance).
    Pass,
    /// A word differs from its exact reference.
    Mismatch {
        /// The buffer's name (for a LinxISA program: the memory address or register).
        buffer: String,
        /// Index of the first differing word (element) in the buffer.
        index: usize,
        /// The reference word.
        expected: u32,
        /// The word the run produced.
        got: u32,
    },
    /// An f32 word further than the tolerance from its reference.
    Beyond {
        /// The buffer's name.
        buffer: String,
        /// Index of the first word out of tolerance.
        index: usize,
        /// The reference value's bits.
        expected: u32,
        /// The bits the run produced.
        got: u32,
        /// The tolerance in units in the last place ([`Expected::ulps`]).
        ulps: u32,
    },
    /// The buffer is missing or shorter than the reference.
    Short {
        /// The buffer's name.
        buffer: String,
        /// Words the reference holds.
        expected_words: usize,
        /// Whole words the buffer holds (0 if it is missing).
        got_words: usize,
    },
}

impl Check {
    /// Whether this is [`Check::Pass`].
    pub fn passed(&self) -> bool {
        matches!(self, Check::Pass)
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Check::Pass => f.write_str("ok"),
            Check::Mismatch {
                buffer,
                index,
                expected,
                got,
            } => write!(
                f,
                "{buffer}[{index}]: expected {expected} ({expected:#010x}), got {got} ({got:#010x})"
            ),
            Check::Beyond {
                buffer,
                index,
                expected,
                got,
                ulps,
            } => write!(
                f,
                "{buffer}[{index}]: expected {} ({expected:#010x}) within {ulps} ulp, got {} ({got:#010x})",
                f32::from_bits(*expected),
                f32::from_bits(*got)
            ),
            Check::Short {
                buffer,
                expected_words,
                got_words,
            } => write!(
                f,
                "{buffer}: expected {expected_words} words, the buffer holds {got_words}"
            ),
        }
    }
}

/// An example's code, ready for the model, with what its kernel metadata (`.kernel`, which
/// the OpenCL C compiler always writes) asks of a launch.
#[derive(Debug, Clone)]
pub struct Code {
    /// The assembled `.text` and `.data`.
    pub program: warpkit_sim::Program,
    /// The PC every warp starts at: the kernel's label (0 without metadata).
    pub entry: u32,
    /// The static shared memory the kernel declares: each launch gets at least this.
    pub shared_bytes: u32,
    /// The per-lane scratch memory the kernel declares.
    pub scratch_bytes: u32,
}

impl Code {
    /// The launch of `stage` with this code: its shape and arguments' memory, the kernel's
    /// entry, scratch memory, and shared memory as the stage asks or the kernel declares,
    /// whichever is more.
    pub fn config(&self, stage: &Stage) -> LaunchConfig {
        LaunchConfig {
            grid: stage.grid,
            block: stage.block,
            shared_bytes: stage.shared_bytes.max(self.shared_bytes),
            scratch_bytes: self.scratch_bytes,
            entry: self.entry,
            ..LaunchConfig::default()
        }
    }
}

/// What running an example measured and found.
#[derive(Debug, Clone)]
pub struct Report {
    /// The example's name ([`Example::name`] or [`linx::LinxExample::name`]).
    pub name: &'static str,
    /// The problem size ([`Case::problem`]; for a LinxISA program its mode and group size).
    pub problem: String,
    /// Launches run (1 for a LinxISA program).
    pub launches: usize,
    /// Workgroups summed over the launches (for a LinxISA program: its groups).
    pub workgroups: u64,
    /// Warps summed over the launches (for a LinxISA program: its groups).
    pub warps: u64,
    /// Warp-instructions retired.
    pub instructions: u64,
    /// Active lanes summed over vector instructions.
    pub lane_ops: u64,
    /// Simulation time summed over the launches.
    pub wall: Duration,
    /// The first difference from the reference, or [`Check::Pass`].
    pub check: Check,
    /// Every warp ended with `endpgm`.
    pub completed: bool,
    /// Warps stopped by a trap or the step limit, described.
    pub traps: Vec<String>,
    /// Register hazards the model counted (§2.6 RAW/WAW on pending write-backs).
    pub hazard_count: u64,
    /// A few of them, described.
    pub hazards: Vec<String>,
    /// Memory instructions interpreted although the program runs on the translation tier,
    /// summed over the launches (zero on the interpreter and for LinxISA programs).
    pub memory_fallbacks: warpkit_sim::MemoryFallbacks,
    /// The output as a picture, for the kernels that draw one.
    pub image: Option<Image>,
}

impl Report {
    /// The output matched, every warp finished, and the model saw no trap and no hazard.
    pub fn passed(&self) -> bool {
        self.check.passed()
            && self.completed
            && self.traps.is_empty()
            && self.hazard_count == 0
            && self.hazards.is_empty()
    }

    /// Lane-operations per second of simulation.
    pub fn lane_ops_per_sec(&self) -> f64 {
        let secs = self.wall.as_secs_f64();
        if secs > 0.0 {
            self.lane_ops as f64 / secs
        } else {
            0.0
        }
    }
}

/// Why an example could not be run at all (as opposed to running and failing its check).
#[derive(Debug, thiserror::Error)]
pub enum ExampleError {
    /// The source has assembly errors.
    #[error("{file} does not assemble:\n{rendered}")]
    Assemble {
        /// The example's name.
        name: &'static str,
        /// The source's path ([`Example::path`]).
        file: String,
        /// The assembler's diagnostics with source excerpts.
        rendered: String,
    },
    /// The OpenCL C source does not compile.
    #[error("{file} does not compile:\n{rendered}")]
    Compile {
        /// The example's name.
        name: &'static str,
        /// The source's path ([`Example::path`]).
        file: String,
        /// The compiler's diagnostics, as clang renders them.
        rendered: String,
    },
    /// The compiler's assembly for an OpenCL C source does not assemble: a compiler bug.
    #[error("the assembly compiled from {file} does not assemble:\n{rendered}")]
    CompilerOutput {
        /// The example's name.
        name: &'static str,
        /// The OpenCL C source's path.
        file: String,
        /// The assembler's diagnostics with excerpts of the compiled assembly.
        rendered: String,
    },
    /// The compiled program has no kernel of the example's name.
    #[error("{file} defines no kernel `{kernel}`")]
    NoKernel {
        /// The example's name.
        name: &'static str,
        /// The source's path.
        file: String,
        /// The kernel looked for.
        kernel: String,
    },
    /// The model refused a stage's launch configuration.
    #[error("{name}: launch {stage} failed: {source}")]
    Launch {
        /// The example's name.
        name: &'static str,
        /// Index of the refused stage.
        stage: usize,
        /// The model's reason.
        #[source]
        source: LaunchError,
    },
    /// A [`StageArg::Output`] names a buffer an earlier stage does not have, or more bytes
    /// than it holds.
    #[error(
        "{name}: stage {stage} takes buffer `{buffer}` of stage {from}, which it does not have"
    )]
    MissingOutput {
        /// The example's name.
        name: &'static str,
        /// Index of the stage taking the buffer.
        stage: usize,
        /// Index of the stage it takes the buffer from.
        from: usize,
        /// The buffer's name.
        buffer: String,
    },
}

/// Every example, in the order the suite runs them.
pub fn all() -> &'static [Example] {
    kernels::ALL
}

/// The example called `name`.
pub fn find(name: &str) -> Option<&'static Example> {
    all().iter().find(|e| e.name == name)
}

/// What [`run_suite`] gives: each example's result, in the order given.
pub struct SuiteResults {
    /// One result per GPU example given.
    pub gpu: Vec<Result<Report, ExampleError>>,
    /// One result per LinxISA program given.
    pub linx: Vec<Result<Report, linx::LinxExampleError>>,
}

/// Run `gpu` examples at `size` and `linx` examples side by side on one pool of `threads`
/// host threads (0: every core), as `warpkit examples` does. The examples are independent,
/// and each example's launches run their workgroups on the same pool (work stealing), so a
/// kernel's single-workgroup phase leaves no core idle while other examples remain. Each
/// result is the one the example gives alone; only its `wall` (shared cores) differs.
pub fn run_suite(
    gpu: &[&Example],
    linx: &[&linx::LinxExample],
    size: Size,
    threads: usize,
) -> Result<SuiteResults, rayon::ThreadPoolBuildError> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let (gpu, linx) = pool.install(|| {
        rayon::join(
            || gpu.par_iter().map(|e| e.run(size, threads)).collect(),
            || linx.par_iter().map(|e| e.run()).collect(),
        )
    });
    Ok(SuiteResults { gpu, linx })
}

impl Example {
    /// The launches and the reference output for `size`.
    pub fn case(&self, size: Size) -> Case {
        (self.build)(size)
    }

    /// The source's path in the repository (`examples/vadd.s`, `examples/opencl/vadd.cl`),
    /// as diagnostics name it.
    pub fn path(&self) -> String {
        match self.language {
            Language::Assembly => format!("examples/{}.s", self.name),
            Language::OpenCl => format!("examples/{}.cl", self.name),
        }
    }

    /// The kernel the example launches: the last component of its name.
    pub fn kernel(&self) -> &'static str {
        self.name.rsplit('/').next().unwrap_or(self.name)
    }

    /// For an OpenCL C example, the hand-written assembly kernel it reimplements (the
    /// example called [`Example::kernel`]), whose launches and references it shares.
    pub fn twin(&self) -> Option<&'static Example> {
        match self.language {
            Language::Assembly => None,
            Language::OpenCl => all()
                .iter()
                .find(|e| e.language == Language::Assembly && e.name == self.kernel()),
        }
    }

    /// The assembled program: the source assembled, or for OpenCL C compiled with
    /// `warpkit-cc` (default options) and then assembled.
    pub fn object(&self) -> Result<warpkit_asm::Program, ExampleError> {
        let file = self.path();
        let assembly = match self.language {
            Language::Assembly => std::borrow::Cow::Borrowed(self.source),
            Language::OpenCl => {
                let compiled =
                    warpkit_cc::compile_source(&file, self.source, &warpkit_cc::Options::default())
                        .map_err(|failure| ExampleError::Compile {
                            name: self.name,
                            file: file.clone(),
                            rendered: failure.render(),
                        })?;
                std::borrow::Cow::Owned(compiled.assembly)
            }
        };
        warpkit_asm::assemble(&assembly, &file).map_err(|errors| {
            let rendered = errors.render(&assembly);
            match self.language {
                Language::Assembly => ExampleError::Assemble {
                    name: self.name,
                    file,
                    rendered,
                },
                Language::OpenCl => ExampleError::CompilerOutput {
                    name: self.name,
                    file,
                    rendered,
                },
            }
        })
    }

    /// The code, ready for the model, with what its kernel metadata asks of a launch.
    pub fn code(&self) -> Result<Code, ExampleError> {
        let object = self.object()?;
        let (entry, shared_bytes, scratch_bytes) = match object.kernel(self.kernel()) {
            Some(k) => {
                let entry = object
                    .symbol(&k.name)
                    .filter(|s| s.section == warpkit_asm::Section::Text)
                    .and_then(|s| u32::try_from(s.offset).ok());
                let Some(entry) = entry else {
                    return Err(self.no_kernel());
                };
                (entry, k.shared_bytes, k.scratch_bytes)
            }
            // The hand-written kernels carry no metadata: they start at the first word.
            None if self.language == Language::Assembly => (0, 0, 0),
            None => return Err(self.no_kernel()),
        };
        Ok(Code {
            program: warpkit_sim::Program::with_data(object.text, object.data),
            entry,
            shared_bytes,
            scratch_bytes,
        })
    }

    fn no_kernel(&self) -> ExampleError {
        ExampleError::NoKernel {
            name: self.name,
            file: self.path(),
            kernel: self.kernel().to_string(),
        }
    }

    /// Run at `size` with `threads` host threads (0 = every core).
    pub fn run(&self, size: Size, threads: usize) -> Result<Report, ExampleError> {
        self.run_case(&self.case(size), threads)
    }

    /// Run `case` (usually [`Example::case`], possibly altered) and check it.
    pub fn run_case(&self, case: &Case, threads: usize) -> Result<Report, ExampleError> {
        self.run_code(case, self.code()?, threads)
    }

    /// Run `case` with `code` (usually [`Example::code`], whose program's engine the caller
    /// may have set) and check it.
    pub fn run_code(
        &self,
        case: &Case,
        code: Code,
        threads: usize,
    ) -> Result<Report, ExampleError> {
        self.run_code_with(case, code, threads, launch)
    }

    /// As [`Example::run_code`], each launch made by `launch` instead of
    /// [`warpkit_sim::launch::launch`]: another client of the model that returns the same
    /// result and observes something more (a timing run).
    pub fn run_code_with(
        &self,
        case: &Case,
        code: Code,
        threads: usize,
        launch: impl FnMut(&Program, &LaunchConfig, Vec<Arg>) -> Result<LaunchResult, LaunchError>,
    ) -> Result<Report, ExampleError> {
        let results = self.launch_stages_with(case, code, threads, false, launch)?;
        let lookup = |stage: usize, name: &str| results.get(stage).and_then(|r| r.buffer(name));
        let outputs = Outputs { results: &results };
        let mut check = compare(&case.expected, lookup);
        if let (Check::Pass, Some(derive)) = (&check, self.derive) {
            check = compare(&derive(case, &outputs), lookup);
        }
        let image = self.image.map(|draw| draw(case, &outputs));
        let mut report = Report {
            name: self.name,
            problem: case.problem.clone(),
            launches: results.len(),
            workgroups: 0,
            warps: 0,
            instructions: 0,
            lane_ops: 0,
            wall: Duration::ZERO,
            check,
            completed: true,
            traps: Vec::new(),
            hazard_count: 0,
            hazards: Vec::new(),
            memory_fallbacks: Default::default(),
            image,
        };
        for (stage, r) in results.iter().enumerate() {
            report.workgroups += r.stats.workgroups;
            report.warps += r.stats.warps;
            report.instructions += r.stats.instructions;
            report.lane_ops += r.stats.lane_ops;
            report.wall += r.stats.wall;
            report.memory_fallbacks += r.stats.memory_fallbacks;
            report.completed &= r.ok();
            let tag = |s: String| {
                if results.len() > 1 {
                    format!("launch {stage}: {s}")
                } else {
                    s
                }
            };
            report.hazard_count += r.stats.hazards.max(r.hazards.len() as u64);
            report.traps.extend(r.traps.iter().map(|t| {
                let [x, y, z] = t.workgroup;
                let at = match t.address {
                    Some((address, lane)) => format!(", address {address:#x} (lane {lane})"),
                    None => String::new(),
                };
                tag(format!(
                    "workgroup ({x},{y},{z}) warp {}: {} (cause {}) at pc {:#x}, info {:#x}{at}: `{}`",
                    t.warp,
                    cause_name(t.trap.cause),
                    t.trap.cause,
                    t.trap.pc,
                    t.trap.info,
                    t.asm
                ))
            }));
            report.traps.extend(r.step_limits.iter().map(|l| {
                let [x, y, z] = l.workgroup;
                tag(format!(
                    "workgroup ({x},{y},{z}) warp {}: stopped by the step limit after {} steps at pc {:#x}",
                    l.warp, l.steps, l.pc
                ))
            }));
            report.traps.extend(r.deadlocks.iter().map(|d| {
                let [x, y, z] = d.workgroup;
                let waiting: Vec<String> = d
                    .deadlock
                    .waiting
                    .iter()
                    .map(|(w, pc)| format!("warp {w} at pc {pc:#x}"))
                    .collect();
                tag(format!(
                    "workgroup ({x},{y},{z}): deadlock: {} wait at a barrier that a trapped or \
                     step-limited sibling never reaches",
                    waiting.join(", ")
                ))
            }));
            report
                .hazards
                .extend(r.hazards.iter().map(|h| tag(h.to_string())));
        }
        Ok(report)
    }

    /// Launch every stage of `case` with `code` (whose program's engine the caller may have
    /// set), keeping the warps' final state if `keep_warps`, without checking the results.
    pub fn launch_stages(
        &self,
        case: &Case,
        code: Code,
        threads: usize,
        keep_warps: bool,
    ) -> Result<Vec<LaunchResult>, ExampleError> {
        self.launch_stages_with(case, code, threads, keep_warps, launch)
    }

    /// As [`Example::launch_stages`], each launch made by `launch`.
    fn launch_stages_with(
        &self,
        case: &Case,
        code: Code,
        threads: usize,
        keep_warps: bool,
        mut launch: impl FnMut(&Program, &LaunchConfig, Vec<Arg>) -> Result<LaunchResult, LaunchError>,
    ) -> Result<Vec<LaunchResult>, ExampleError> {
        let mut results: Vec<LaunchResult> = Vec::with_capacity(case.stages.len());
        for (index, stage) in case.stages.iter().enumerate() {
            let args = self.stage_args(index, stage, &results)?;
            let config = LaunchConfig {
                threads,
                keep_warps,
                ..code.config(stage)
            };
            let result =
                launch(&code.program, &config, args).map_err(|source| ExampleError::Launch {
                    name: self.name,
                    stage: index,
                    source,
                })?;
            results.push(result);
        }
        Ok(results)
    }

    /// As [`Example::launch_stages`], on one host thread under `hooks` (which see every
    /// instruction: the interpreter runs them all).
    pub fn launch_stages_observed<H: warpkit_sim::Hooks>(
        &self,
        case: &Case,
        code: &Code,
        hooks: &mut H,
    ) -> Result<Vec<LaunchResult>, ExampleError> {
        let mut results: Vec<LaunchResult> = Vec::with_capacity(case.stages.len());
        for (index, stage) in case.stages.iter().enumerate() {
            let args = self.stage_args(index, stage, &results)?;
            let config = LaunchConfig {
                threads: 1,
                ..code.config(stage)
            };
            let result =
                warpkit_sim::launch::launch_with_tracer(&code.program, &config, args, hooks)
                    .map_err(|source| ExampleError::Launch {
                        name: self.name,
                        stage: index,
                        source,
                    })?;
            results.push(result);
        }
        Ok(results)
    }

    /// The launch arguments of `stage` (the `index`-th of its case), earlier stages'
    /// outputs taken from `done`.
    pub fn stage_args(
        &self,
        index: usize,
        stage: &Stage,
        done: &[LaunchResult],
    ) -> Result<Vec<Arg>, ExampleError> {
        let mut args = Vec::with_capacity(stage.args.len());
        for (name, value) in &stage.args {
            let value = match value {
                StageArg::Int(v) => ArgValue::Int(*v),
                StageArg::Bytes(b) => ArgValue::Buffer(b.clone()),
                StageArg::Zeroed(n) => ArgValue::Buffer(vec![0; *n]),
                StageArg::Output { stage, buffer, len } => {
                    let missing = || ExampleError::MissingOutput {
                        name: self.name,
                        stage: index,
                        from: *stage,
                        buffer: buffer.clone(),
                    };
                    let bytes = done
                        .get(*stage)
                        .and_then(|r| r.buffer(buffer))
                        .ok_or_else(missing)?;
                    let take = len.unwrap_or(bytes.len());
                    ArgValue::Buffer(bytes.get(..take).ok_or_else(missing)?.to_vec())
                }
            };
            args.push(Arg {
                name: name.clone(),
                value,
            });
        }
        Ok(args)
    }
}

/// Compare every expected buffer with what `lookup(stage, buffer)` returns; the first
/// difference wins.
pub fn compare<B: AsRef<[u8]>>(
    expected: &[Expected],
    lookup: impl Fn(usize, &str) -> Option<B>,
) -> Check {
    for e in expected {
        let got = lookup(e.stage, &e.buffer);
        let got = got.as_ref().map_or(&[][..], AsRef::as_ref);
        let got_words = got.len() / 4;
        if got_words < e.words.len() {
            return Check::Short {
                buffer: e.buffer.clone(),
                expected_words: e.words.len(),
                got_words,
            };
        }
        for (index, (want, chunk)) in e.words.iter().zip(got.chunks_exact(4)).enumerate() {
            let have = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if e.ulps == 0 && have != *want {
                return Check::Mismatch {
                    buffer: e.buffer.clone(),
                    index,
                    expected: *want,
                    got: have,
                };
            }
            if e.ulps > 0 && f32_ulps_apart(have, *want) > u64::from(e.ulps) {
                return Check::Beyond {
                    buffer: e.buffer.clone(),
                    index,
                    expected: *want,
                    got: have,
                    ulps: e.ulps,
                };
            }
        }
    }
    Check::Pass
}

/// How many f32 values lie between `a` and `b` counted along the number line (+0 and -0
/// are one apart); `u64::MAX` if either is a NaN and the bits differ.
pub fn f32_ulps_apart(a: u32, b: u32) -> u64 {
    let nan = |x: u32| x & 0x7fff_ffff > 0x7f80_0000;
    if a == b {
        return 0;
    }
    if nan(a) || nan(b) {
        return u64::MAX;
    }
    // Sign-magnitude to a monotonic integer: -0 → -1, +0 → 0.
    let line = |x: u32| {
        let m = i64::from(x & 0x7fff_ffff);
        if x >> 31 == 1 {
            -m - 1
        } else {
            m
        }
    };
    line(a).abs_diff(line(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected(words: Vec<u32>) -> Vec<Expected> {
        vec![Expected {
            stage: 0,
            buffer: "out".into(),
            words,
            ulps: 0,
        }]
    }

    #[test]
    fn compare_finds_the_first_mismatch() {
        let bytes = to_bytes(&[1, 2, 3, 4]);
        let look = |_: usize, name: &str| (name == "out").then_some(&bytes[..]);
        assert_eq!(compare(&expected(vec![1, 2, 3, 4]), look), Check::Pass);
        assert_eq!(
            compare(&expected(vec![1, 2, 9, 8]), look),
            Check::Mismatch {
                buffer: "out".into(),
                index: 2,
                expected: 9,
                got: 3
            }
        );
    }

    #[test]
    fn compare_reports_missing_and_short_buffers() {
        let bytes = to_bytes(&[1]);
        let look = |_: usize, name: &str| (name == "out").then_some(&bytes[..]);
        assert!(matches!(
            compare(&expected(vec![1, 2]), look),
            Check::Short { got_words: 1, .. }
        ));
        assert!(matches!(
            compare(&expected(vec![1]), |_, _| None::<&[u8]>),
            Check::Short { got_words: 0, .. }
        ));
    }

    #[test]
    fn ulp_tolerance_counts_along_the_number_line() {
        assert_eq!(f32_ulps_apart(0x3f80_0000, 0x3f80_0001), 1);
        assert_eq!(f32_ulps_apart(0x3f80_0000, 0x3f7f_ffff), 1);
        assert_eq!(f32_ulps_apart(0x0000_0000, 0x8000_0000), 1);
        assert_eq!(f32_ulps_apart(0x0000_0001, 0x8000_0001), 3);
        assert_eq!(f32_ulps_apart(0x7fc0_0000, 0x7fc0_0000), 0);
        assert_eq!(f32_ulps_apart(0x7fc0_0000, 0x7f80_0000), u64::MAX);
        let bytes = to_bytes(&[0x3f80_0001, 0x3f80_0003]);
        let look = |_: usize, name: &str| (name == "out").then_some(&bytes[..]);
        let mut want = expected(vec![0x3f80_0000, 0x3f80_0002]);
        want[0].ulps = 1;
        assert_eq!(compare(&want, look), Check::Pass);
        want[0].words[1] = 0x3f80_0001;
        assert!(matches!(
            compare(&want, look),
            Check::Beyond {
                index: 1,
                ulps: 1,
                ..
            }
        ));
    }

    #[test]
    fn every_example_assembles_and_has_a_consistent_case() {
        for e in all() {
            e.code().unwrap_or_else(|err| panic!("{err}"));
            for size in [Size::Small, Size::Full] {
                let case = e.case(size);
                assert!(!case.stages.is_empty(), "{}", e.name);
                assert!(!case.expected.is_empty(), "{}", e.name);
                for x in &case.expected {
                    assert!(x.stage < case.stages.len(), "{}", e.name);
                }
            }
        }
    }

    #[test]
    fn opencl_examples_have_their_twins_derived_checks_and_images() {
        let opencl: Vec<_> = all()
            .iter()
            .filter(|e| e.language == Language::OpenCl)
            .collect();
        assert!(!opencl.is_empty());
        let mut own = Vec::new();
        for e in opencl {
            let Some(twin) = e.twin() else {
                own.push(e.name);
                continue;
            };
            assert_eq!(e.derive.is_some(), twin.derive.is_some(), "{}", e.name);
            assert_eq!(e.image.is_some(), twin.image.is_some(), "{}", e.name);
        }
        // Only the PolyBench-style kernels have cases of their own.
        assert_eq!(own, ["opencl/gesummv", "opencl/atax", "opencl/jacobi2d"]);
    }

    #[test]
    fn names_are_unique_and_findable() {
        for e in all() {
            assert_eq!(find(e.name).map(|f| f.name), Some(e.name));
        }
        assert!(find("no-such-kernel").is_none());
    }
}
