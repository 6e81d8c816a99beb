//! The launch options `warpkit run` and `warpkit debug` share: the kernel file, grid,
//! block, arguments, limits and entry point, and how they become a host `Launch`.

use crate::asm_cmd::{is_stdin, read_bounded, shown};
use crate::failure::Failure;
use std::path::{Path, PathBuf};
pub use warpkit_host::launch::MAX_THREADS;
use warpkit_host::number::parse_u64;
use warpkit_host::{
    load_kernel_bytes, load_kernel_with, select_kernel, KernelKind, Launch, Limits, LoadError,
    ParamError, SetupError,
};
use warpkit_sim::launch::{MAX_SCRATCH_BYTES, MAX_SHARED_BYTES};
use warpkit_sim::DEFAULT_MAX_STEPS;

/// Default of `--max-memory`: 1 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = warpkit_host::launch::DEFAULT_MAX_MEMORY;
/// Default of `--max-workgroups` (`warpkit_host::launch::DEFAULT_MAX_WORKGROUPS`).
pub const DEFAULT_MAX_WORKGROUPS: u64 = warpkit_host::launch::DEFAULT_MAX_WORKGROUPS;

#[derive(clap::Args)]
pub struct LaunchArgs {
    /// The kernel: OpenCL C (.cl, compiled first; docs/opencl.md), assembly source (.s), an
    /// ELF code object, or a raw binary (its bytes are the code, PC 0 = the first byte); `-`
    /// reads assembly source (or ELF) from standard input.
    #[arg(required = true)]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub options: LaunchOptions,
    /// Execution engine: `jit`, the translation tier (the default where the host has
    /// x86-64 with AVX2), or `interp`, the interpreter. Results are the same on both; traces,
    /// profiles, breakpoints and watched hazards always run on the interpreter.
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<warpkit_sim::Engine>,
}

/// The launch options proper (everything but the kernel file and the engine), which
/// `warpkit cover` also takes for each of its programs.
#[derive(clap::Args, Clone)]
pub struct LaunchOptions {
    /// Workgroups in the grid: X[,Y[,Z]]. With any launch option, registers start as
    /// docs/abi.md says; without, every register starts at 0 (one warp, EXEC all ones).
    #[arg(long, value_name = "X[,Y,Z]")]
    pub grid: Option<String>,
    /// Threads per workgroup: X[,Y[,Z]] (at most 1024 in all).
    #[arg(long, value_name = "X[,Y,Z]")]
    pub block: Option<String>,
    /// A kernel argument, one 8-byte slot each in order: NAME=INT, NAME=buf:BYTES (a
    /// zero-filled buffer) or NAME=@FILE (a buffer holding the file). For a kernel with
    /// metadata, one per parameter in its order under its name, read by its kind (also
    /// NAME=local:BYTES and float literals; docs/abi.md).
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// Bytes of shared memory per workgroup.
    #[arg(long, value_name = "BYTES", value_parser = crate::numbers::u32_arg)]
    pub shared: Option<u32>,
    /// Bytes of scratch memory per lane, a multiple of 4 up to 1 MiB (docs/abi.md, "Scratch
    /// memory"); each running workgroup's is charged to --max-memory.
    #[arg(long, value_name = "BYTES", value_parser = crate::numbers::u32_arg)]
    pub scratch: Option<u32>,
    /// Host threads (default: one per core). Results do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = crate::numbers::usize_arg)]
    pub threads: usize,
    /// Stop a warp, with exit code 1, once it has executed this many instructions.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS, value_parser = crate::numbers::u64_arg)]
    pub max_steps: u64,
    /// Stop the run, with exit code 1, once the whole grid has attempted this many
    /// instructions: each workgroup gets an equal share, fixed before the run, that its
    /// warps use up in their schedule order, so where it stops never depends on --threads
    /// (docs/abi.md, "Step limits").
    #[arg(long, value_name = "N", value_parser = crate::numbers::u64_arg)]
    pub max_total_steps: Option<u64>,
    /// Start every warp at this symbol of `.text`, or at this byte offset (a number in
    /// the options' syntax, e.g. 0x40), instead of PC 0.
    #[arg(long, value_name = "SYMBOL|ADDRESS")]
    pub entry: Option<String>,
    /// Launch the kernel NAME of the program's metadata (.kernel/.param): it starts at its
    /// label, and its parameters govern the --arg values, shared memory and block. Without
    /// it, a program declaring one kernel launches that one.
    #[arg(long, value_name = "NAME", conflicts_with = "entry")]
    pub kernel: Option<String>,
    /// Refuse (exit 2) a launch whose buffers, argument block and code need more than this
    /// many bytes of memory in all.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MEMORY, value_parser = crate::numbers::u64_arg)]
    pub max_memory: u64,
    /// Refuse (exit 2) a grid of more workgroups than this.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_WORKGROUPS, value_parser = crate::numbers::u64_arg)]
    pub max_workgroups: u64,
    #[command(flatten)]
    pub compile: crate::cc_cmd::CompileArgs,
}

impl LaunchArgs {
    /// The kernel file (empty only for `warpkit run --resume`, which reads no kernel).
    pub fn file(&self) -> &Path {
        self.file.as_deref().unwrap_or(Path::new(""))
    }

    /// Whether any option asks for the ABI's launch (otherwise the launch is bare).
    pub fn launch_options(&self) -> bool {
        self.options.grid.is_some()
            || self.options.block.is_some()
            || !self.options.args.is_empty()
            || self.options.shared.is_some()
            || self.options.kernel.is_some()
            || self.options.scratch.is_some()
    }

    /// The launch these options describe, without its arguments ([`LaunchArgs::add_args`])
    /// and entry point ([`LaunchArgs::load`]).
    pub fn launch(&self, keep_warps: bool) -> Result<Launch, Failure> {
        if let Some(engine) = self.engine {
            warpkit_sim::Engine::set_process_default(engine);
        }
        let mut launch = Launch::new(Limits {
            max_memory: self.options.max_memory,
            max_workgroups: self.options.max_workgroups,
        });
        launch
            .max_steps(self.options.max_steps)
            .and_then(|l| l.max_total_steps(self.options.max_total_steps))
            .and_then(|l| l.threads(self.options.threads))
            .map_err(setup_failure)?;
        launch.keep_warps(keep_warps).bare(!self.launch_options());
        let grid = self
            .options
            .grid
            .as_deref()
            .map(|g| dims("grid", g))
            .transpose()?;
        let block = self
            .options
            .block
            .as_deref()
            .map(|b| dims("block", b))
            .transpose()?;
        if let Some(b) = block {
            launch.block(b).map_err(setup_failure)?;
        }
        if let Some(g) = grid {
            launch.grid(g).map_err(setup_failure)?;
        }
        if let Some(s) = self.options.shared {
            launch.shared(s).map_err(setup_failure)?;
        }
        if let Some(s) = self.options.scratch {
            launch.scratch(s).map_err(setup_failure)?;
        }
        Ok(launch)
    }

    /// Add the `--arg` values; buffers are charged to the memory budget before they are
    /// allocated or read.
    pub fn add_args(&self, launch: &mut Launch) -> Result<(), Failure> {
        for text in &self.options.args {
            launch.arg_text(text).map_err(|e| match e {
                SetupError::DuplicateArg { name } => Failure::BadInput(format!(
                    "--arg {text}: the name `{name}` is already used by another --arg"
                )),
                e => setup_failure(e),
            })?;
        }
        Ok(())
    }

    /// Load the kernel and set the entry point (`--entry`) from it; when its metadata
    /// declares the kernel to run (`--kernel`, the entry's, or its only one), that kernel
    /// governs the launch. Before [`LaunchArgs::add_args`].
    pub fn load(&self, launch: &mut Launch) -> Result<warpkit_asm::Program, Failure> {
        let object = load(self.file(), &self.options.compile.options()?)?;
        let chosen = select_kernel(
            &object,
            self.options.kernel.as_deref(),
            self.options.entry.as_deref(),
        )
        .map_err(|e| {
            Failure::BadInput(match (&e, &self.options.kernel) {
                (ParamError::SeveralKernels { .. }, _) => format!("{e} with --kernel NAME"),
                (_, Some(k)) => format!("--kernel {k}: {e}"),
                _ => e.to_string(),
            })
        })?;
        if let Some(k) = chosen {
            launch.kernel(k).map_err(setup_failure)?;
            return Ok(object);
        }
        if let Some(pc) = self
            .options
            .entry
            .as_deref()
            .and_then(|e| parse_u64(e).ok())
        {
            let pc = u32::try_from(pc)
                .ok()
                .filter(|&pc| pc % 4 == 0 && (pc as usize) < object.text.len())
                .ok_or_else(|| {
                    Failure::BadInput(format!(
                        "--entry {pc:#x}: not a 4-byte aligned offset inside the code ({} bytes)",
                        object.text.len()
                    ))
                })?;
            launch.entry_offset(pc);
        } else if let Some(entry) = &self.options.entry {
            launch.entry(entry);
        }
        Ok(object)
    }
}

impl LaunchArgs {
    /// Without launch options, the launch an assembly source declares with the provisional
    /// `.launch`/`.launch_arg` directives (docs/assembly.md, "Launch directives"); whether
    /// it declared one. After [`LaunchArgs::load`], instead of [`LaunchArgs::add_args`].
    pub fn file_launch(&self, launch: &mut Launch) -> Result<bool, Failure> {
        let path = self.file();
        if self.launch_options() || is_stdin(path) || launch.kernel_info().is_some() {
            return Ok(false);
        }
        let bytes = read_bounded(path, warpkit_asm::MAX_SOURCE_BYTES)?;
        if KernelKind::detect(path, &bytes) != KernelKind::Source {
            return Ok(false);
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return Ok(false);
        };
        match warpkit_host::launch_file::parse_launch_directives(text, &shown(path)) {
            Ok(Some(d)) => {
                d.apply(launch).map_err(setup_failure)?;
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(e) => Err(Failure::BadInput(e.to_string())),
        }
    }
}

/// The kernel at `path`: its code and symbols. Assembly diagnostics are printed here with
/// their source excerpts.
fn load(path: &Path, cl: &warpkit_cc::Options) -> Result<warpkit_asm::Program, Failure> {
    let loaded = if is_stdin(path) {
        // Standard input holds source unless it is an ELF object.
        let bytes = read_bounded(path, warpkit_asm::MAX_SOURCE_BYTES)?;
        let kind = if bytes.starts_with(b"\x7fELF") {
            KernelKind::Elf
        } else if warpkit_host::kernel::parse_hex(&bytes).is_some() {
            KernelKind::Hex
        } else {
            KernelKind::Source
        };
        load_kernel_bytes(&bytes, &shown(path), kind)
    } else {
        load_kernel_with(path, cl)
    };
    let program = loaded.map_err(|e| match e {
        LoadError::Assembly { .. } | LoadError::Compile { .. } => {
            report_raw!("{}", e.render());
            Failure::Exit(2)
        }
        e => Failure::BadInput(e.to_string()),
    })?;
    for w in &program.warnings {
        report_raw!("{w}\n");
    }
    if let Some(why) = program.lines.damaged() {
        report!(
            "warning: {}: its source lines are ignored: {why}",
            shown(path)
        );
    }
    Ok(program)
}

fn dims(option: &str, text: &str) -> Result<[u32; 3], Failure> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let bad = || {
        Failure::BadInput(format!(
            "--{option} {text}: expected X[,Y[,Z]] with each an integer from 1 to {}",
            u32::MAX
        ))
    };
    if parts.is_empty() || parts.len() > 3 {
        return Err(bad());
    }
    let mut out = [1u32; 3];
    for (o, p) in out.iter_mut().zip(&parts) {
        *o = p.parse().map_err(|_| bad())?;
        if *o == 0 {
            return Err(bad());
        }
    }
    Ok(out)
}

/// A launch refused before it ran, in the words of this command's options.
pub fn setup_failure(e: SetupError) -> Failure {
    let hint = " (raise it with --max-memory BYTES)";
    Failure::BadInput(match e {
        SetupError::BlockTooLarge { .. } => format!("--block: {e}"),
        SetupError::TooManyWorkgroups { .. } => {
            format!("{e} (raise it with --max-workgroups N)")
        }
        SetupError::SharedTooLarge { bytes } => format!(
            "--shared {bytes}: more than the model's limit of \
             {MAX_SHARED_BYTES} bytes of shared memory per workgroup"
        ),
        SetupError::BadScratch { bytes } => format!(
            "--scratch {bytes}: scratch memory per lane must be a multiple of 4 and at most \
             the model's limit of {MAX_SCRATCH_BYTES} bytes"
        ),
        SetupError::TooManyThreads { threads } => {
            format!("--threads {threads}: at most {MAX_THREADS}")
        }
        SetupError::ZeroMaxSteps => "--max-steps must be at least 1".into(),
        SetupError::ZeroMaxTotalSteps => "--max-total-steps must be at least 1".into(),
        SetupError::NoSuchEntry { symbol } => format!("--entry {symbol}: no such symbol in .text"),
        SetupError::EntryOutOfRange { symbol } => format!("--entry {symbol}: offset out of range"),
        SetupError::Param(ParamError::SharedTooSmall { given, .. }) => {
            format!("--shared {given}: {e}")
        }
        SetupError::Param(ParamError::BlockMismatch { given, .. }) => {
            format!("--block {}: {e}", warpkit_host::params::dims(&given))
        }
        SetupError::Memory(m) => format!("{m}{hint}"),
        SetupError::Arg(warpkit_host::ArgError::Memory(m)) => format!("{m}{hint}"),
        e => e.to_string(),
    })
}
