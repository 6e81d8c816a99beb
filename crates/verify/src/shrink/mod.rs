//! Shrinking a program on which a design under test disagrees with the model to a small one
//! that still disagrees (the approach of TestRIG's shrinking: remove what can be removed
//! while the disagreement stays).
//!
//! What "disagrees" means is the caller's predicate: it assembles a candidate, runs it on
//! the model and on the design, and compares. A candidate that does not assemble, or that
//! the caller does not accept (it traps on the model, say), is simply one that does not
//! fail, so the shrinker never has to know the assembly's grammar beyond which source lines
//! hold instructions.

mod program;
mod reduce;

pub use program::{
    disagreement, shrink_program, source_vector, ShrunkProgram, CANDIDATE_MAX_STEPS,
};
pub use reduce::reduce;

use warpkit_asm::Section;

/// How far to shrink.
#[derive(Clone, Copy, Debug)]
pub struct ShrinkOptions {
    /// At most this many candidates are tried (each one is a run of the model and the
    /// design); when it runs out, the smallest failing program found so far is the result.
    pub max_tests: usize,
}

impl Default for ShrinkOptions {
    fn default() -> ShrinkOptions {
        ShrinkOptions { max_tests: 20_000 }
    }
}

/// The result of shrinking a program's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShrunkSource {
    /// The smallest failing source found, lines in their original order.
    pub source: String,
    /// The instructions (and data directives) in its `.text`.
    pub instructions: usize,
    /// Candidates tried, the original included.
    pub tests: usize,
}

/// Why a program cannot be shrunk.
#[derive(Debug, thiserror::Error)]
pub enum ShrinkError {
    /// The program does not assemble.
    #[error("{0}")]
    Assemble(#[from] warpkit_asm::AsmErrors),
    /// The program's launch directives are malformed, or it cannot be launched.
    #[error("{0}")]
    Launch(String),
    /// The program does not fail to begin with, so there is nothing to keep while shrinking.
    #[error("the program does not show the disagreement to begin with: nothing to shrink")]
    NotFailing,
}

/// Shrinks `source` (a `.s` program) while `fails` holds: first its instructions, in chunks
/// and then one at a time; then every other line (labels, comments, directives) that can go.
/// `fails` is called with candidate sources; it must be deterministic for the result to be.
pub fn shrink_source(
    source: &str,
    file_name: &str,
    options: ShrinkOptions,
    mut fails: impl FnMut(&str) -> bool,
) -> Result<ShrunkSource, ShrinkError> {
    let lines: Vec<&str> = source.lines().collect();
    let code_lines = text_lines(source, file_name)?;
    let mut budget = options.max_tests.saturating_sub(1);
    let mut tests = 1;
    if !fails(source) {
        return Err(ShrinkError::NotFailing);
    }
    let render = |keep: &[usize]| -> String {
        let mut out = String::new();
        for &i in keep {
            out.push_str(lines[i]);
            out.push('\n');
        }
        out
    };
    // Pass 1: instructions, every other line held in place.
    let fixed: Vec<usize> = (0..lines.len())
        .filter(|i| code_lines.binary_search(i).is_err())
        .collect();
    let start = budget;
    let kept_code = reduce(&code_lines, &mut budget, |code| {
        let mut keep: Vec<usize> = fixed.iter().chain(code).copied().collect();
        keep.sort_unstable();
        fails(&render(&keep))
    });
    tests += start - budget;
    // Pass 2: whatever else can go (labels no branch names any more, comments, blank lines).
    let mut keep: Vec<usize> = fixed.iter().chain(&kept_code).copied().collect();
    keep.sort_unstable();
    let start = budget;
    let keep = reduce(&keep, &mut budget, |keep| fails(&render(keep)));
    tests += start - budget;
    let source = render(&keep);
    let instructions = instructions(&source, file_name)?;
    Ok(ShrunkSource {
        source,
        instructions,
        tests,
    })
}

/// The instructions (and data directives) that put bytes into the `.text` of `source`: a
/// macro's line counts once per instruction it expands to.
pub fn instructions(source: &str, file_name: &str) -> Result<usize, ShrinkError> {
    Ok(warpkit_asm::assemble(source, file_name)?
        .listing
        .iter()
        .filter(|l| l.section == Section::Text && l.len > 0)
        .count())
}

/// The indices (from 0) of the source lines that put bytes into `.text`.
fn text_lines(source: &str, file_name: &str) -> Result<Vec<usize>, ShrinkError> {
    let program = warpkit_asm::assemble(source, file_name)?;
    let mut lines: Vec<usize> = program
        .listing
        .iter()
        .filter(|l| l.section == Section::Text && l.len > 0)
        .map(|l| l.line - 1)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    Ok(lines)
}
