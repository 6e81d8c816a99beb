//! `warpkit-cc`: an OpenCL C 1.2 compiler for the warpkit GPU ISA.
//!
//! The pipeline, one module each:
//!
//! 1. [`pp`]: the preprocessor (`#define`, `#if`, `#include "..."`, `-D`, `-I`) turns the
//!    source into [`token::Token`]s that remember where they were spelled and which macro
//!    expansions produced them ([`source::SourceMap`]).
//! 2. [`parse`]: a recursive-descent parser builds the syntax tree ([`ast`]).
//! 3. [`lower`]: the semantic pass types the tree (C99's conversions, OpenCL's address
//!    spaces and built-ins), inlines helper functions, turns `break`/`continue`/`return`
//!    into flags, and produces structured SSA ([`ir`]).
//! 4. [`opt`]: optimisations on the IR.
//! 5. [`backend`]: uniformity analysis, EXEC lowering of divergent control flow,
//!    instruction selection from the ISA database's tables, register allocation with
//!    `regalloc2`, `waitcnt` insertion, and assembly text with `.loc` source lines and
//!    kernel metadata, which `warpkit-asm` assembles.
//!
//! Errors are [`diag::Diagnostics`], rendered as clang renders them.

pub mod ast;
pub mod backend;
pub mod diag;
pub mod ir;
pub mod lower;
pub mod opt;
pub mod parse;
pub mod pp;
pub mod source;
pub mod token;

use std::path::{Path, PathBuf};

pub use opt::OptLevel;

/// What to compile and how: the options of `warpkit cc` (and of OpenCL's `clBuildProgram`
/// string, [`Options::apply_flag`]).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `-D NAME[=VALUE]`, in order.
    pub defines: Vec<(String, Option<String>)>,
    /// `-U NAME`.
    pub undefines: Vec<String>,
    /// `-I DIR`, in order.
    pub include_dirs: Vec<PathBuf>,
    /// `-O0`/`-O1`/`-O2`.
    pub opt_level: OptLevel,
    /// Compile only these kernels (`--kernel`); `None`: all of them.
    pub kernels: Option<Vec<String>>,
    /// `-cl-mad-enable` / `-ffp-contract=fast`: contract `a*b+c` into `fma`.
    pub contract_fp: bool,
    /// `-cl-fast-relaxed-math`.
    pub fast_relaxed_math: bool,
    /// `-cl-denorms-are-zero`.
    pub denorms_are_zero: bool,
    /// `-w`: no warnings.
    pub no_warnings: bool,
    /// `-Werror`: warnings are errors.
    pub warnings_are_errors: bool,
}

/// An option the compiler does not know.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown compiler option `{0}`")]
pub struct UnknownOption(pub String);

impl Options {
    /// Apply one OpenCL build option or compiler flag (`-cl-mad-enable`, `-DN=4`, `-I dir`
    /// as `-Idir`, `-O2`, `-cl-std=CL1.2`, ...). Options OpenCL defines that change nothing
    /// here are accepted (`-cl-opt-disable` means `-O0`).
    pub fn apply_flag(&mut self, flag: &str) -> Result<(), UnknownOption> {
        match flag {
            "-cl-mad-enable" | "-ffp-contract=fast" => self.contract_fp = true,
            "-ffp-contract=off" | "-ffp-contract=on" => self.contract_fp = false,
            "-cl-fast-relaxed-math" => {
                self.fast_relaxed_math = true;
                self.contract_fp = true;
            }
            "-cl-denorms-are-zero" => self.denorms_are_zero = true,
            "-cl-opt-disable" | "-O0" => self.opt_level = OptLevel::O0,
            "-O1" => self.opt_level = OptLevel::O1,
            "-O" | "-O2" | "-O3" => self.opt_level = OptLevel::O2,
            "-w" => self.no_warnings = true,
            "-Werror" => self.warnings_are_errors = true,
            "-cl-single-precision-constant"
            | "-cl-no-signed-zeros"
            | "-cl-unsafe-math-optimizations"
            | "-cl-finite-math-only"
            | "-cl-uniform-work-group-size"
            | "-cl-kernel-arg-info"
            | "-cl-fp32-correctly-rounded-divide-sqrt"
            | "-cl-strict-aliasing" => {}
            f if f.starts_with("-cl-std=") => {}
            f if f.starts_with("-D") && f.len() > 2 => {
                let d = &f[2..];
                match d.split_once('=') {
                    Some((n, v)) => self.defines.push((n.to_string(), Some(v.to_string()))),
                    None => self.defines.push((d.to_string(), None)),
                }
            }
            f if f.starts_with("-U") && f.len() > 2 => self.undefines.push(f[2..].to_string()),
            f if f.starts_with("-I") && f.len() > 2 => {
                self.include_dirs.push(PathBuf::from(&f[2..]))
            }
            other => return Err(UnknownOption(other.to_string())),
        }
        Ok(())
    }

    /// Apply an OpenCL build-options string (`"-DN=4 -cl-mad-enable -I include"`).
    pub fn apply_flags(&mut self, flags: &str) -> Result<(), UnknownOption> {
        let mut words = flags.split_whitespace();
        while let Some(w) = words.next() {
            match w {
                "-D" | "-U" | "-I" => {
                    let arg = words
                        .next()
                        .ok_or_else(|| UnknownOption(format!("{w} without an argument")))?;
                    self.apply_flag(&format!("{w}{arg}"))?;
                }
                _ => self.apply_flag(w)?,
            }
        }
        Ok(())
    }
}

/// A compiled translation unit.
#[derive(Debug)]
pub struct Compiled {
    /// The warpkit assembly of every kernel (with `.file`/`.loc` lines and `.kernel`/`.param`
    /// metadata), ready for `warpkit_asm::assemble`.
    pub assembly: String,
    /// The kernels' IR after optimisation (what `--emit-ir` prints).
    pub module: ir::Module,
    /// Warnings.
    pub warnings: diag::Diagnostics,
    /// The files the diagnostics and line tables refer to.
    pub sources: source::SourceMap,
}

/// Why a compilation failed: every error of the source.
#[derive(Debug)]
pub struct Failure {
    /// Errors (and the warnings found before them).
    pub diagnostics: diag::Diagnostics,
    /// The files they refer to.
    pub sources: source::SourceMap,
}

impl Failure {
    /// The diagnostics as clang prints them.
    pub fn render(&self) -> String {
        self.diagnostics.render(&self.sources)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Failure {}

/// The most source bytes the compiler reads (the assembler's limit).
pub const MAX_SOURCE_BYTES: usize = 256 << 20;

/// Compile the OpenCL C source `text`, named `name` in diagnostics and line tables
/// (includes are searched relative to `name`'s directory, then `-I`).
pub fn compile_source(name: &str, text: &str, opts: &Options) -> Result<Compiled, Failure> {
    let FrontEnd {
        mut module,
        sources,
        mut warnings,
    } = front_end(name, text, opts)?;
    opt::optimize(&mut module, opts.opt_level);
    let assembly = match backend::generate(&module, &sources) {
        Ok(text) => text,
        Err(errors) => {
            warnings.extend(errors);
            return Err(Failure {
                diagnostics: warnings,
                sources,
            });
        }
    };
    if opts.no_warnings {
        warnings
            .list
            .retain(|d| d.severity == diag::Severity::Error);
    }
    Ok(Compiled {
        assembly,
        module,
        warnings,
        sources,
    })
}

/// What the front end made of a source: its kernels' IR before optimisation.
#[derive(Debug)]
pub struct FrontEnd {
    /// The kernels, lowered (not optimised).
    pub module: ir::Module,
    /// The files the IR's spans refer to.
    pub sources: source::SourceMap,
    /// Warnings.
    pub warnings: diag::Diagnostics,
}

/// Preprocess, parse and lower `text` (named `name`): the IR [`compile_source`] optimises
/// and generates code from.
pub fn front_end(name: &str, text: &str, opts: &Options) -> Result<FrontEnd, Failure> {
    let mut sources = source::SourceMap::new();
    let main = sources.add_file(name, text, false);
    let mut diags = diag::Diagnostics::new();
    let pp_opts = pp::Options {
        defines: opts.defines.clone(),
        undefines: opts.undefines.clone(),
        include_dirs: opts.include_dirs.clone(),
        fast_relaxed_math: opts.fast_relaxed_math,
    };
    let tokens = pp::preprocess(&mut sources, main, &pp_opts, &mut diags);
    let tokens = pp::prune_prelude(tokens, &sources);
    let tu = parse::parse(&tokens, &mut diags);
    if diags.has_errors() {
        return Err(Failure {
            diagnostics: diags,
            sources,
        });
    }
    let lower_opts = lower::Options {
        kernels: opts.kernels.clone(),
        contract_fp: opts.contract_fp || opts.fast_relaxed_math,
        fast_relaxed_math: opts.fast_relaxed_math,
        denorms_are_zero: opts.denorms_are_zero,
    };
    let module = lower::lower(&tu, &sources, &lower_opts, &mut diags);
    if opts.warnings_are_errors {
        for d in &mut diags.list {
            if d.severity == diag::Severity::Warning {
                d.severity = diag::Severity::Error;
            }
        }
    }
    if diags.has_errors() {
        return Err(Failure {
            diagnostics: diags,
            sources,
        });
    }
    Ok(FrontEnd {
        module,
        sources,
        warnings: diags,
    })
}

/// Compile the file at `path` (as [`compile_source`], named by the path as given).
pub fn compile_file(path: &Path, opts: &Options) -> Result<Compiled, Failure> {
    let name = path.display().to_string();
    let unreadable = |message: String| {
        let mut diagnostics = diag::Diagnostics::new();
        diagnostics.push(diag::Diagnostic {
            severity: diag::Severity::Error,
            message,
            span: None,
            expansion: None,
            notes: Vec::new(),
        });
        Failure {
            diagnostics,
            sources: source::SourceMap::new(),
        }
    };
    let bytes = std::fs::read(path).map_err(|e| unreadable(format!("cannot read {name}: {e}")))?;
    if bytes.len() > MAX_SOURCE_BYTES {
        return Err(unreadable(format!(
            "{name}: sources are limited to {MAX_SOURCE_BYTES} bytes"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        unreadable(format!(
            "{name}: not UTF-8 text (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    compile_source(&name, &text, opts)
}
