//! Compiled code run on the functional model: the end-to-end harness every test of generated
//! code shares. The compiler's text is assembled as it is (the assembler reads its
//! `.kernel`/`.param` metadata: entry, static shared memory, scratch), launched, and must
//! neither trap nor meet a hazard.

use warpkit_asm::KernelInfo;
use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig};

/// The compiler's assembly, assembled.
pub struct Assembled {
    /// The assembly text (for messages).
    pub text: String,
    /// The program with its kernels' metadata.
    pub program: warpkit_asm::Program,
}

impl Assembled {
    /// Assemble the compiler's output `text`.
    pub fn new(text: String) -> Result<Assembled, String> {
        let program = warpkit_asm::assemble(&text, "k.s")
            .map_err(|e| format!("{}\n{text}", e.render(&text)))?;
        Ok(Assembled { text, program })
    }

    /// Compile `src` with `opts` and assemble the result.
    pub fn compile(src: &str, opts: &warpkit_cc::Options) -> Result<Assembled, String> {
        let compiled = warpkit_cc::compile_source("k.cl", src, opts).map_err(|f| f.render())?;
        Assembled::new(compiled.assembly)
    }

    /// The metadata of kernel `name`, or of the program's first kernel.
    pub fn kernel(&self, name: Option<&str>) -> &KernelInfo {
        match name {
            Some(n) => self
                .program
                .kernel(n)
                .unwrap_or_else(|| panic!("no kernel {n}")),
            None => self.program.kernels.first().expect("a kernel"),
        }
    }

    /// `cfg` launching kernel `name` (or the first): its entry, its scratch memory, and at
    /// least its static shared memory.
    pub fn config(&self, name: Option<&str>, cfg: LaunchConfig) -> LaunchConfig {
        let k = self.kernel(name);
        let entry = self.program.symbol(&k.name).expect("kernel symbol").offset as u32;
        LaunchConfig {
            entry,
            scratch_bytes: k.scratch_bytes,
            shared_bytes: cfg.shared_bytes.max(k.shared_bytes),
            ..cfg
        }
    }

    /// Where `__local` pointer arguments of kernel `name` go, after its static shared memory.
    pub fn locals(&self, name: Option<&str>) -> Locals {
        Locals {
            end: self.kernel(name).shared_bytes,
        }
    }

    /// The program for the model.
    pub fn sim_program(&self) -> warpkit_sim::Program {
        warpkit_sim::Program::with_data(self.program.text.clone(), self.program.data.clone())
    }
}

/// The placement of `__local` pointer arguments, as the launcher places them: in parameter
/// order after the static shared memory, each on a 16-byte boundary (docs/abi.md).
pub struct Locals {
    end: u32,
}

impl Locals {
    /// The shared-memory offset of the next argument's `bytes`.
    pub fn place(&mut self, bytes: u32) -> u64 {
        let at = self.end.next_multiple_of(16);
        self.end = at + bytes;
        u64::from(at)
    }

    /// The shared memory the launch needs.
    pub fn shared_bytes(&self) -> u32 {
        self.end.max(16)
    }
}

/// Launch `prog` with `args`: the buffers by name, or why the run failed (an error, a trap,
/// a step limit, a hazard).
pub fn run_program(
    prog: &warpkit_sim::Program,
    cfg: &LaunchConfig,
    args: Vec<(&str, ArgValue)>,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let args = args
        .into_iter()
        .map(|(n, v)| Arg {
            name: n.into(),
            value: v,
        })
        .collect();
    let r = launch(prog, cfg, args).map_err(|e| e.to_string())?;
    if !r.ok() {
        return Err(format!(
            "traps {:?}, step limits {:?}, deadlocks {:?}",
            r.traps, r.step_limits, r.deadlocks
        ));
    }
    if !r.hazards.is_empty() {
        return Err(format!("hazards: {:?}", r.hazards));
    }
    Ok(r.buffers
        .iter()
        .map(|b| (b.name.clone(), b.bytes.to_vec()))
        .collect())
}

/// Launch the (only or first) kernel of `asm` with `args`, panicking with the assembly on
/// any failure.
pub fn run_assembled(
    asm: &Assembled,
    cfg: LaunchConfig,
    args: Vec<(&str, ArgValue)>,
) -> Vec<(String, Vec<u8>)> {
    let cfg = asm.config(None, cfg);
    run_program(&asm.sim_program(), &cfg, args).unwrap_or_else(|e| panic!("{e}\n{}", asm.text))
}

/// Compile `src`, assemble, launch with `args`; the buffers by name.
pub fn run_cl(src: &str, cfg: LaunchConfig, args: Vec<(&str, ArgValue)>) -> Vec<(String, Vec<u8>)> {
    run_cl_with(src, &warpkit_cc::Options::default(), cfg, args)
}

/// [`run_cl`] with compiler options.
pub fn run_cl_with(
    src: &str,
    opts: &warpkit_cc::Options,
    cfg: LaunchConfig,
    args: Vec<(&str, ArgValue)>,
) -> Vec<(String, Vec<u8>)> {
    let asm = Assembled::compile(src, opts).unwrap_or_else(|e| panic!("{e}"));
    run_assembled(&asm, cfg, args)
}

/// The final bytes of buffer `name` of a [`run_cl`] result.
pub fn buffer<'a>(out: &'a [(String, Vec<u8>)], name: &str) -> &'a [u8] {
    &out.iter().find(|(n, _)| n == name).expect("buffer").1
}
