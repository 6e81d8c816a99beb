//! An assembly-level functional model of LinxISA 0.42 SIMT blocks (seeds 003 and 004).
//!
//! - [`check`] parses a program (directives, block header, body) and runs every static rule
//!   of the operand typing and instruction sections, returning a [`Program`] or every
//!   diagnostic of the file at once ([`Diagnostics`], rendered like the assembler's);
//! - [`run`] executes a [`Program`] in LOOP, VECT or SIMT order and returns the final global
//!   registers, memory, ControlStack depth, run-time diagnostics and the first error.
//!
//! The micro-instruction table comes from `spec/linx/*.yaml` through `warpkit-specdb`
//! ([`tables`]); the model in `docs/linx.md` names every provisional choice.

mod diag;
pub mod gen;
mod model;
mod syntax;

pub mod tables {
    //! The micro-instruction table generated from `spec/linx/*.yaml`.
    include!(concat!(env!("OUT_DIR"), "/tables.rs"));

    /// Look a body mnemonic up.
    pub fn find(mnemonic: &str) -> Option<&'static InsnDef> {
        INSNS.iter().find(|d| d.mnemonic == mnemonic)
    }
}

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use model::{
    cstate_fflags, run, CstkEvent, MemEvent, RunConfig, RunError, RunResult, RuntimeDiagnostic,
    StepRecord, TraceSink, WriteEvent, WriteTarget,
};
pub use syntax::{check, FloatKind, Program};
pub use warpkit_float::Round;

/// The reference text generated from the table (`docs/linx-reference.md`).
pub const REFERENCE_MARKDOWN: &str = include_str!(concat!(env!("OUT_DIR"), "/linx-reference.md"));

/// Address of the first body instruction [P]. Each instruction is 8 bytes [003].
pub const BODY_BASE: u64 = 0x10000;
/// Queue depth (entries per T/U/M/N queue and lane) [pub update_v0.41].
pub const QUEUE_DEPTH: usize = 8;
/// Group steps a group may take before E-TIMEOUT, unless `--max-steps` says otherwise.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;
/// Lane-steps a whole run may take before E-TIMEOUT, unless `--max-lane-steps` says
/// otherwise [P]: bounds the run time of a block whose many groups each stay under the
/// per-group step limit.
pub const DEFAULT_MAX_LANE_STEPS: u64 = 1 << 31;
/// ControlStack depth per group unless `.cstk_depth` says otherwise [P].
pub const DEFAULT_CSTK_DEPTH: u32 = 256;
/// Largest `.cstk_depth` [P].
pub const MAX_CSTK_DEPTH: u32 = 65_536;
/// Largest source file [P].
pub const MAX_SOURCE_BYTES: usize = 16 << 20;
/// Most body instructions [P].
pub const MAX_BODY_INSNS: usize = 1 << 20;
/// Most iterations (LB0*LB1*LB2) a block may have [P].
pub const MAX_ITERATIONS: u64 = 1 << 22;
/// Most iterations whose lane state is live at once in SIMT mode [P].
pub const MAX_SIMT_LANES: u64 = 1 << 20;
/// Most bytes of simulated memory that may be touched [P] (64 MiB).
pub const MAX_MEMORY_BYTES: u64 = 64 << 20;
/// Most float reduce contributions kept for the block-end fold in iteration order [P].
pub const MAX_FLOAT_CONTRIBUTIONS: usize = 1 << 22;
/// Most run-time diagnostics kept (later ones are counted) [P].
pub const MAX_RUNTIME_DIAGNOSTICS: usize = 100;

/// The three execution modes of `BSTART.<LOOP|VECT|SIMT>` [003 adj.5].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `BSTART.LOOP`: every iteration runs alone, as a one-lane group, to `lbstop`
    /// (SPEC §5).
    Loop,
    /// `BSTART.VECT`: the lanes of a group run in lockstep; groups run one after another
    /// (SPEC §5).
    Vect,
    /// `BSTART.SIMT`: groups also interleave, one step each in ascending order, round-robin
    /// \[P\] (SPEC §5).
    Simt,
}

impl Mode {
    /// The lower-case name, as `--mode` and the dumped state spell it (`loop`, `vect`,
    /// `simt`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Loop => "loop",
            Mode::Vect => "vect",
            Mode::Simt => "simt",
        }
    }

    /// The mode named `loop`, `vect` or `simt`, in any case; `None` for any other name.
    pub fn from_name(name: &str) -> Option<Mode> {
        match name.to_ascii_lowercase().as_str() {
            "loop" => Some(Mode::Loop),
            "vect" => Some(Mode::Vect),
            "simt" => Some(Mode::Simt),
            _ => None,
        }
    }
}

/// Names of the global registers R0..R23 [pub ggpr.md], by number.
pub const GPR_NAMES: [&str; 24] = [
    "zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "s0", "s1", "s2", "s3",
    "s4", "s5", "s6", "s7", "s8", "x0", "x1", "x2", "x3",
];

/// A global register by name: `zero sp a0..a7 ra s0/fp s1..s8 x0..x3 r0..r23`.
pub fn gpr_number(name: &str) -> Option<u8> {
    if name == "fp" {
        return Some(11);
    }
    if let Some(i) = GPR_NAMES.iter().position(|n| *n == name) {
        return Some(i as u8);
    }
    let digits = name.strip_prefix('r')?;
    if digits.is_empty() || digits.len() > 2 || (digits.len() == 2 && digits.starts_with('0')) {
        return None;
    }
    let n: u8 = digits.parse().ok()?;
    (n < 24).then_some(n)
}
