//! `warpkit cc`: compile OpenCL C to warpkit assembly or an ELF code object; and the
//! compiler options `run`, `debug` and `cc` share.

use crate::asm_cmd::{read_bounded, shown};
use crate::failure::{Failure, Outcome};
use crate::output::{check_distinct, check_output_path, write_output};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The compiler's options, for `.cl` kernels.
#[derive(clap::Args, Clone, Default)]
pub struct CompileArgs {
    /// OpenCL C: define a macro, NAME or NAME=VALUE (as `#define NAME VALUE`; `1` without a
    /// value).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// OpenCL C: undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefines: Vec<String>,
    /// OpenCL C: search DIR for `#include "..."` files (after the including file's directory).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// OpenCL C: optimisation level, -O0, -O1 or -O2 (the default).
    #[arg(short = 'O', value_name = "LEVEL", value_parser = ["0", "1", "2", "3"])]
    pub opt: Option<String>,
    /// OpenCL C: build options as clBuildProgram takes them ("-cl-mad-enable -DN=4");
    /// `-cl-*`, `-ffp-contract=...`, `-Werror` and `-w` may also be given alone.
    #[arg(
        long = "cl-options",
        value_name = "OPTIONS",
        allow_hyphen_values = true
    )]
    pub cl_options: Vec<String>,
}

impl CompileArgs {
    /// The compiler's options.
    pub fn options(&self) -> Result<warpkit_cc::Options, Failure> {
        let mut o = warpkit_cc::Options::default();
        for d in &self.defines {
            match d.split_once('=') {
                Some((n, v)) => o.defines.push((n.to_string(), Some(v.to_string()))),
                None => o.defines.push((d.clone(), None)),
            }
        }
        o.undefines = self.undefines.clone();
        o.include_dirs = self.include.clone();
        if let Some(level) = &self.opt {
            o.opt_level = match level.as_str() {
                "0" => warpkit_cc::OptLevel::O0,
                "1" => warpkit_cc::OptLevel::O1,
                _ => warpkit_cc::OptLevel::O2,
            };
        }
        for text in &self.cl_options {
            o.apply_flags(text)
                .map_err(|e| Failure::BadInput(format!("--cl-options {text}: {e}")))?;
        }
        Ok(o)
    }
}

/// Command-line words the compiler takes as build options though they look like bundles of
/// short flags (`-cl-mad-enable`): rewritten to `--cl-options=WORD` before parsing. The
/// value of a `--cl-options` given as the next word (`--cl-options "-cl-mad-enable -O0"`)
/// is left as it is.
pub fn rewrite_build_options(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    let mut after_option = false;
    args.map(|a| {
        let value = std::mem::replace(&mut after_option, a == "--cl-options");
        match a.to_str() {
            Some(s)
                if !value
                    && (s.starts_with("-cl-")
                        || s.starts_with("-ffp-contract=")
                        || s == "-Werror"
                        || s == "-w") =>
            {
                OsString::from(format!("--cl-options={s}"))
            }
            _ => a,
        }
    })
    .collect()
}

#[derive(clap::Args)]
pub struct Args {
    /// OpenCL C source file.
    pub file: PathBuf,
    /// Output: assembly text (`.s`, or `-`, standard output, the default), or an ELF code
    /// object (`.o`, `.elf`) holding every kernel, its metadata and the source lines.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Compile only kernel NAME (repeat for several; default: every kernel of the file).
    #[arg(long = "kernel", value_name = "NAME")]
    pub kernels: Vec<String>,
    /// Print the optimised IR instead of assembly.
    #[arg(long)]
    pub emit_ir: bool,
    #[command(flatten)]
    pub compile: CompileArgs,
}

pub fn run(args: Args) -> Outcome {
    let name = shown(&args.file);
    let path = args.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    check_output_path("-o", &path)?;
    check_distinct(
        &[("-o", path.as_path())],
        &[("source", args.file.as_path())],
    )?;
    let mut options = args.compile.options()?;
    if !args.kernels.is_empty() {
        options.kernels = Some(args.kernels.clone());
    }
    let bytes = read_bounded(&args.file, warpkit_cc::MAX_SOURCE_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Failure::BadInput(format!(
            "{name}: not UTF-8 text (byte offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let compiled = match warpkit_cc::compile_source(&name, &text, &options) {
        Ok(c) => c,
        Err(f) => {
            report_raw!("{}", f.render());
            return Err(Failure::Exit(2));
        }
    };
    if !compiled.warnings.is_empty() {
        report_raw!("{}", compiled.warnings.render(&compiled.sources));
    }
    let out: Vec<u8> = if args.emit_ir {
        // One kernel after another, each ending its last line, a blank line between them.
        compiled
            .module
            .kernels
            .iter()
            .map(|k| {
                let text = k.to_string();
                if text.ends_with('\n') {
                    text
                } else {
                    text + "\n"
                }
            })
            .collect::<Vec<String>>()
            .join("\n")
            .into_bytes()
    } else if is_object(&path) {
        let program =
            warpkit_asm::assemble(&compiled.assembly, &format!("{name}.s")).map_err(|e| {
                Failure::Runtime(format!(
                    "internal compiler error: the generated assembly does not assemble:\n{}",
                    e.render(&compiled.assembly)
                ))
            })?;
        warpkit_asm::write_elf(&program)
    } else {
        compiled.assembly.into_bytes()
    };
    write_output(&path, &out)
}

/// Whether `-o PATH` asks for an ELF object.
fn is_object(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("o" | "elf"))
}
