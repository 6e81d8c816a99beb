//! [`Launch`]: everything a launch needs, checked against the model's and the caller's
//! limits before anything runs, then [`Prepared::run`] (or its progress / traced forms).

use crate::args::{parse_arg, ArgError, MemoryBudget, MemoryError};
use crate::params::{
    expect_param, parse_text, place_local, slot_value, ParamError, ParamValue, Slot,
};
use std::sync::atomic::AtomicU64;
use warpkit_asm::KernelInfo;
use warpkit_sim::launch::{
    launch_traced, launch_with_progress, scratch_bytes_per_workgroup, workgroup_count, Arg,
    ArgValue, LaunchConfig, LaunchError, LaunchResult, WordBuffer, MAX_BLOCK_THREADS,
    MAX_SCRATCH_BYTES, MAX_SHARED_BYTES,
};
use warpkit_sim::TraceFormat;

/// Default memory limit of a launch (`--max-memory`): 1 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 1 << 30;
/// Default workgroup limit (`--max-workgroups`): about 200 bytes of bookkeeping stay per
/// finished workgroup until the launch ends, so 2^20 keeps that near 200 MiB.
pub const DEFAULT_MAX_WORKGROUPS: u64 = 1 << 20;
/// The most host threads a launch accepts.
pub const MAX_THREADS: usize = 1024;
/// What one warp kept for a state dump costs: its registers and its JSON text.
pub const KEPT_BYTES_PER_WARP: u64 = 64 << 10;

/// The caller's limits, on top of the model's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of memory in all: buffers, argument block, code (decoded), kept warps and the
    /// scratch memory of the workgroups running at once (one per host thread).
    pub max_memory: u64,
    /// Workgroups in the grid.
    pub max_workgroups: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_memory: DEFAULT_MAX_MEMORY,
            max_workgroups: DEFAULT_MAX_WORKGROUPS,
        }
    }
}

/// Why a launch was refused before it ran (bad input: nothing was executed).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// [`Launch::block`]: more threads per workgroup than [`MAX_BLOCK_THREADS`].
    #[error("a workgroup of {threads} threads exceeds the model's limit of {MAX_BLOCK_THREADS} (32 warps)")]
    BlockTooLarge {
        /// Threads asked for: the product of the three dimensions.
        threads: u128,
    },
    /// [`Launch::grid`]: more workgroups than [`Limits::max_workgroups`].
    #[error("a grid of {groups} workgroups exceeds the limit of {limit}")]
    TooManyWorkgroups {
        /// Workgroups asked for: the product of the three dimensions.
        groups: u128,
        /// The limit in force.
        limit: u64,
    },
    /// [`Launch::shared`]: more shared memory than [`MAX_SHARED_BYTES`].
    #[error("{bytes} bytes of shared memory per workgroup: more than the model's limit of {MAX_SHARED_BYTES}")]
    SharedTooLarge {
        /// Bytes asked for.
        bytes: u32,
    },
    /// [`Launch::scratch`]: more scratch memory per lane than [`MAX_SCRATCH_BYTES`], or not a
    /// multiple of 4.
    #[error("{bytes} bytes of scratch memory per lane: it must be a multiple of 4 and at most the model's limit of {MAX_SCRATCH_BYTES}")]
    BadScratch {
        /// Bytes asked for.
        bytes: u32,
    },
    /// [`Launch::threads`]: more host threads than [`MAX_THREADS`].
    #[error("{threads} host threads: at most {MAX_THREADS}")]
    TooManyThreads {
        /// Threads asked for.
        threads: usize,
    },
    /// [`Launch::max_steps`] was given 0.
    #[error("the step limit must be at least 1")]
    ZeroMaxSteps,
    /// [`Launch::max_total_steps`] was given `Some(0)`.
    #[error("the total step budget must be at least 1")]
    ZeroMaxTotalSteps,
    /// An argument of this name was added before; names are unique within a launch.
    #[error("the argument name `{name}` is already used by another argument")]
    DuplicateArg {
        /// The repeated name.
        name: String,
    },
    /// An argument was given an empty name.
    #[error("the argument name is empty")]
    EmptyArgName,
    /// An [`ArgValue::Words`] buffer whose word count is not `len` bytes rounded up to
    /// whole 4-byte words.
    #[error("argument `{name}`: {words} words cannot hold exactly {bytes} bytes")]
    WordCount {
        /// The argument's name.
        name: String,
        /// Words given.
        words: usize,
        /// Byte length given.
        bytes: u64,
    },
    /// [`Launch::prepare`]: the entry symbol is not a `.text` symbol of the kernel.
    #[error("entry `{symbol}`: no such symbol in .text")]
    NoSuchEntry {
        /// The symbol asked for.
        symbol: String,
    },
    /// [`Launch::prepare`]: the entry symbol's offset does not fit the 32-bit PC.
    #[error("entry `{symbol}`: offset out of range")]
    EntryOutOfRange {
        /// The symbol asked for.
        symbol: String,
    },
    /// An argument in text form ([`Launch::arg_text`]) was refused.
    #[error(transparent)]
    Arg(#[from] ArgError),
    /// The kernel metadata refused an argument, the shared memory or the block
    /// ([`Launch::kernel`]).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// An argument, the code or the kept warps would pass [`Limits::max_memory`].
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The model refused the configuration (a zero dimension, a grid over 2^32
    /// workgroups, ...).
    #[error(transparent)]
    Launch(#[from] LaunchError),
}

/// A launch being described: configuration, arguments in slot order, limits.
#[derive(Debug, Clone)]
pub struct Launch {
    config: LaunchConfig,
    args: Vec<Arg>,
    limits: Limits,
    budget: MemoryBudget,
    entry: Option<String>,
    /// The kernel whose metadata governs the launch ([`Launch::kernel`]).
    kernel: Option<KernelInfo>,
    /// End of the shared memory placed so far: the kernel's static bytes, then its local
    /// arguments.
    local_end: u64,
    /// [`Launch::shared`] was called: the kernel's need is checked against it rather than
    /// taken as the size.
    shared_given: bool,
    /// Whether `scratch` was given (else a kernel's metadata sets it).
    scratch_given: bool,
    /// [`Launch::block`] was called: a kernel's required block is checked against it
    /// rather than taken as the size.
    block_given: bool,
}

impl Launch {
    /// One workgroup of 32 threads, 64 KiB of shared memory, the ABI's initial registers,
    /// under `limits`.
    pub fn new(limits: Limits) -> Launch {
        Launch {
            config: LaunchConfig::default(),
            args: Vec::new(),
            limits,
            budget: MemoryBudget::new(limits.max_memory),
            entry: None,
            kernel: None,
            local_end: 0,
            shared_given: false,
            scratch_given: false,
            block_given: false,
        }
    }

    /// Launch `kernel` (metadata of the program that will be prepared): every warp starts
    /// at its label, the launch is the ABI's (never bare), and from now on every argument
    /// is checked against its parameters in order ([`crate::params`]); [`Launch::prepare`]
    /// then checks that each parameter got one, gives the shared memory the kernel needs
    /// (or checks [`Launch::shared`] against it) and its required block (or checks
    /// [`Launch::block`] against it). Before any argument.
    pub fn kernel(&mut self, kernel: &KernelInfo) -> Result<&mut Launch, SetupError> {
        if !self.args.is_empty() {
            return Err(ParamError::KernelAfterArgs.into());
        }
        self.entry = Some(kernel.name.clone());
        self.config.bare = false;
        self.local_end = u64::from(kernel.shared_bytes);
        self.kernel = Some(kernel.clone());
        Ok(self)
    }

    /// The kernel whose metadata governs the launch, if one was given.
    pub fn kernel_info(&self) -> Option<&KernelInfo> {
        self.kernel.as_ref()
    }

    /// The parameter argument `name` must be, when a kernel governs the launch.
    fn expect(&self, name: &str, what: &str) -> Result<Option<warpkit_asm::ParamInfo>, SetupError> {
        match &self.kernel {
            None => Ok(None),
            Some(k) => Ok(Some(expect_param(k, self.args.len(), name, what)?.clone())),
        }
    }

    /// Append the argument for the next parameter of the kernel ([`Launch::kernel`]):
    /// `name` must be that parameter's and `value` fit its kind ([`crate::params`]).
    pub fn param(&mut self, name: &str, value: ParamValue) -> Result<&mut Launch, SetupError> {
        let what = format!("argument `{name}`");
        let Some(param) = self.expect(name, &what)? else {
            return Err(ParamError::NoKernel.into());
        };
        let slot = slot_value(&param, value).map_err(|why| self.value_error(&what, &param, why))?;
        self.bind(name, slot)
    }

    /// A [`ParamError::Value`] for `param` of the kernel.
    fn value_error(&self, what: &str, param: &warpkit_asm::ParamInfo, why: String) -> SetupError {
        ParamError::Value {
            what: what.to_string(),
            param: param.to_string(),
            kernel: self
                .kernel
                .as_ref()
                .map_or(String::new(), |k| k.name.clone()),
            kind: param.kind,
            why,
        }
        .into()
    }

    /// Append a checked slot: charge and push a value, allocate a zeroed buffer, or place
    /// local memory.
    fn bind(&mut self, name: &str, slot: Slot) -> Result<&mut Launch, SetupError> {
        match slot {
            Slot::Value(v) => self.push_arg(name, v),
            Slot::Zeroed(bytes) => self.push_zeroed_words(name, bytes),
            Slot::Local(bytes) => {
                let (offset, end) = place_local(self.local_end, bytes);
                self.local_end = end;
                self.push_arg(name, ArgValue::Int(offset))
            }
        }
    }

    /// The configuration described so far (entry offset not yet resolved from a symbol).
    pub fn config(&self) -> &LaunchConfig {
        &self.config
    }

    /// The limits the launch was created under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The arguments so far, in slot order.
    pub fn args(&self) -> &[Arg] {
        &self.args
    }

    /// Workgroups in x, y, z (each at least 1), at most `max_workgroups` in all.
    pub fn grid(&mut self, grid: [u32; 3]) -> Result<&mut Launch, SetupError> {
        // In 128 bits: three u32 dimensions overflow u64.
        let groups: u128 = grid.iter().map(|&d| u128::from(d)).product();
        if groups > u128::from(self.limits.max_workgroups) {
            return Err(SetupError::TooManyWorkgroups {
                groups,
                limit: self.limits.max_workgroups,
            });
        }
        self.config.grid = grid;
        Ok(self)
    }

    /// Threads per workgroup in x, y, z, at most [`MAX_BLOCK_THREADS`] in all.
    pub fn block(&mut self, block: [u32; 3]) -> Result<&mut Launch, SetupError> {
        let threads: u128 = block.iter().map(|&d| u128::from(d)).product();
        if threads > u128::from(MAX_BLOCK_THREADS) {
            return Err(SetupError::BlockTooLarge { threads });
        }
        self.config.block = block;
        self.block_given = true;
        Ok(self)
    }

    /// Bytes of shared memory per workgroup.
    pub fn shared(&mut self, bytes: u32) -> Result<&mut Launch, SetupError> {
        if bytes > MAX_SHARED_BYTES {
            return Err(SetupError::SharedTooLarge { bytes });
        }
        self.config.shared_bytes = bytes;
        self.shared_given = true;
        Ok(self)
    }

    /// Bytes of scratch memory per lane (docs/abi.md, "Scratch memory"): a multiple of 4, at
    /// most [`MAX_SCRATCH_BYTES`]; 0 (the default) maps none. The scratch of the workgroups
    /// that run at once is charged to the memory limit when prepared.
    pub fn scratch(&mut self, bytes: u32) -> Result<&mut Launch, SetupError> {
        if bytes > MAX_SCRATCH_BYTES || !bytes.is_multiple_of(4) {
            return Err(SetupError::BadScratch { bytes });
        }
        self.config.scratch_bytes = bytes;
        self.scratch_given = true;
        Ok(self)
    }

    /// Host threads, 0 = one per core; results do not depend on it.
    pub fn threads(&mut self, threads: usize) -> Result<&mut Launch, SetupError> {
        if threads > MAX_THREADS {
            return Err(SetupError::TooManyThreads { threads });
        }
        self.config.threads = threads;
        Ok(self)
    }

    /// Stop a warp once it has executed this many instructions.
    pub fn max_steps(&mut self, steps: u64) -> Result<&mut Launch, SetupError> {
        if steps == 0 {
            return Err(SetupError::ZeroMaxSteps);
        }
        self.config.max_steps = steps;
        Ok(self)
    }

    /// Stop the run once the whole grid has attempted this many instructions (each
    /// workgroup gets a fixed share, `warpkit_sim::launch::total_steps_share`).
    pub fn max_total_steps(&mut self, steps: Option<u64>) -> Result<&mut Launch, SetupError> {
        if steps == Some(0) {
            return Err(SetupError::ZeroMaxTotalSteps);
        }
        self.config.max_total_steps = steps;
        Ok(self)
    }

    /// Start every register at 0 instead of the ABI's initial state (`warpkit run` without
    /// launch options).
    pub fn bare(&mut self, bare: bool) -> &mut Launch {
        self.config.bare = bare;
        self
    }

    /// Keep every warp's final state in the result; charged [`KEPT_BYTES_PER_WARP`] per warp
    /// when prepared.
    pub fn keep_warps(&mut self, keep: bool) -> &mut Launch {
        self.config.keep_warps = keep;
        self
    }

    /// Start every warp at byte offset `pc` of `.text` (replaces an entry symbol).
    pub fn entry_offset(&mut self, pc: u32) -> &mut Launch {
        self.entry = None;
        self.config.entry = pc;
        self
    }

    /// Stop the launch when `flag` is set (a signal handler, a caller's thread): the result
    /// then says `Interrupt::Cancelled` ([`warpkit_sim::control`]).
    pub fn cancel(&mut self, flag: warpkit_sim::CancelFlag) -> &mut Launch {
        self.config.cancel = Some(flag);
        self
    }

    /// Start every warp at this symbol of `.text`, resolved when prepared.
    pub fn entry(&mut self, symbol: &str) -> &mut Launch {
        self.entry = Some(symbol.to_string());
        self
    }

    /// Append an argument (the next slot), charging its slot and buffer to the memory limit.
    /// Under a kernel's metadata ([`Launch::kernel`]) it must be the next parameter's: an
    /// [`ArgValue::Int`] is the 64-bit slot of an integer (two's complement), range-checked
    /// against an integer kind; buffers go to pointer parameters.
    pub fn arg(&mut self, name: &str, value: ArgValue) -> Result<&mut Launch, SetupError> {
        let what = format!("argument `{name}`");
        if let Some(param) = self.expect(name, &what)? {
            let value = match value {
                ArgValue::Int(v) if param.kind.int_range().is_some_and(|(lo, _)| lo < 0) => {
                    ParamValue::Int(i128::from(v as i64))
                }
                ArgValue::Int(v) if param.kind.int_range().is_some() => {
                    ParamValue::Int(i128::from(v))
                }
                ArgValue::Int(_) => ParamValue::Buffer(value),
                buffer => ParamValue::Buffer(buffer),
            };
            let slot =
                slot_value(&param, value).map_err(|why| self.value_error(&what, &param, why))?;
            return self.bind(name, slot);
        }
        self.push_arg(name, value)
    }

    /// Append an argument after any check of the kernel's metadata.
    fn push_arg(&mut self, name: &str, value: ArgValue) -> Result<&mut Launch, SetupError> {
        if name.is_empty() {
            return Err(SetupError::EmptyArgName);
        }
        self.check_unique(name)?;
        let what = format!("argument `{name}`");
        let bytes = match &value {
            ArgValue::Int(_) => 0,
            ArgValue::Buffer(b) => b.len() as u64,
            ArgValue::Words(w) => {
                if w.words.len() as u64 != w.len.div_ceil(4) {
                    return Err(SetupError::WordCount {
                        name: name.to_string(),
                        words: w.words.len(),
                        bytes: w.len,
                    });
                }
                w.len
            }
        };
        self.budget.charge(&what, 8 + bytes)?;
        self.args.push(Arg {
            name: name.to_string(),
            value,
        });
        Ok(self)
    }

    /// Append a zero-filled buffer argument of `bytes` bytes, charged before it is
    /// allocated (so a huge size is refused, not attempted).
    pub fn zeroed_buffer(&mut self, name: &str, bytes: u64) -> Result<&mut Launch, SetupError> {
        self.check_buffer_param(name)?;
        let n = self.charge_zeroed(name, bytes)?;
        self.args.push(Arg {
            name: name.to_string(),
            value: ArgValue::Buffer(vec![0; n]),
        });
        Ok(self)
    }

    /// As [`Launch::zeroed_buffer`], given to the model as words ([`ArgValue::Words`]):
    /// its pages are not touched until the kernel writes them, and it comes back in
    /// [`warpkit_sim::launch::BufferOut::words`], moved out of the model's memory.
    pub fn zeroed_words(&mut self, name: &str, bytes: u64) -> Result<&mut Launch, SetupError> {
        self.check_buffer_param(name)?;
        self.push_zeroed_words(name, bytes)
    }

    /// Under a kernel's metadata: `name` is the next parameter, and a buffer parameter.
    fn check_buffer_param(&self, name: &str) -> Result<(), SetupError> {
        let what = format!("argument `{name}`");
        if let Some(param) = self.expect(name, &what)? {
            slot_value(&param, ParamValue::Zeroed(0))
                .map_err(|why| self.value_error(&what, &param, why))?;
        }
        Ok(())
    }

    fn push_zeroed_words(&mut self, name: &str, bytes: u64) -> Result<&mut Launch, SetupError> {
        let n = self.charge_zeroed(name, bytes)?;
        self.args.push(Arg {
            name: name.to_string(),
            value: ArgValue::Words(WordBuffer {
                words: vec![0; n.div_ceil(4)],
                len: bytes,
            }),
        });
        Ok(self)
    }

    /// Check the name of a zero-filled buffer of `bytes` bytes and charge it; the size in
    /// bytes as a `usize`.
    fn charge_zeroed(&mut self, name: &str, bytes: u64) -> Result<usize, SetupError> {
        if name.is_empty() {
            return Err(SetupError::EmptyArgName);
        }
        self.check_unique(name)?;
        self.budget
            .charge(&format!("argument `{name}`"), bytes.saturating_add(8))?;
        usize::try_from(bytes).map_err(|_| {
            MemoryError::Exceeded {
                what: format!("argument `{name}`"),
                bytes,
                used: self.budget.used(),
                limit: self.budget.limit(),
            }
            .into()
        })
    }

    /// Bytes that arguments and code may still map under the memory limit.
    pub fn memory_left(&self) -> u64 {
        self.budget.left()
    }

    /// Append an argument given in its text form (`NAME=INT`, `NAME=buf:BYTES`,
    /// `NAME=@FILE`; [`crate::args`]). Under a kernel's metadata ([`Launch::kernel`]) NAME
    /// must be the next parameter's, checked before any file is read, and VALUE is read by
    /// its kind: `buf:BYTES` or `@FILE` for `ptr.global`/`ptr.constant`, `local:BYTES` for
    /// `ptr.local`, an integer in the kind's range, a float literal rounded once into the
    /// kind's format.
    pub fn arg_text(&mut self, text: &str) -> Result<&Arg, SetupError> {
        if self.kernel.is_some() {
            return self.kernel_arg_text(text);
        }
        let arg = parse_arg(text, &mut self.budget)?;
        self.check_unique(&arg.name)?;
        self.args.push(arg);
        Ok(&self.args[self.args.len() - 1])
    }

    fn kernel_arg_text(&mut self, text: &str) -> Result<&Arg, SetupError> {
        let what = format!("--arg {text}");
        let (name, value) = text.split_once('=').ok_or_else(|| ArgError::Syntax {
            text: text.to_string(),
            why: "expected NAME=VALUE",
        })?;
        let Some(param) = self.expect(name, &what)? else {
            unreachable!("a kernel governs the launch")
        };
        if param.kind.is_buffer() {
            if !(value.starts_with("buf:") || value.starts_with('@')) {
                let why = format!("give @FILE or buf:BYTES, not `{value}`");
                return Err(self.value_error(&what, &param, why));
            }
            let arg = parse_arg(text, &mut self.budget)?;
            self.args.push(arg);
        } else {
            let slot =
                parse_text(&param, value).map_err(|why| self.value_error(&what, &param, why))?;
            self.bind(name, slot)?;
        }
        Ok(&self.args[self.args.len() - 1])
    }

    /// Under a kernel's metadata: every parameter has its argument, the shared memory is
    /// what the kernel needs (or at least that, when given), the block is the required one.
    fn check_kernel(&mut self) -> Result<(), SetupError> {
        let Some(k) = &self.kernel else {
            return Ok(());
        };
        if let Some(p) = k.params.get(self.args.len()) {
            return Err(ParamError::Missing {
                kernel: k.name.clone(),
                count: k.params.len(),
                list: k.param_list(),
                given: self.args.len(),
                missing: p.to_string(),
            }
            .into());
        }
        let needed = self.local_end.max(u64::from(k.shared_bytes));
        if self.shared_given {
            if u64::from(self.config.shared_bytes) < needed {
                return Err(ParamError::SharedTooSmall {
                    kernel: k.name.clone(),
                    given: self.config.shared_bytes,
                    needed,
                    static_bytes: k.shared_bytes,
                }
                .into());
            }
        } else {
            self.config.shared_bytes = u32::try_from(needed)
                .ok()
                .filter(|&n| n <= MAX_SHARED_BYTES)
                .ok_or_else(|| ParamError::SharedTooLarge {
                    kernel: k.name.clone(),
                    needed,
                    static_bytes: k.shared_bytes,
                    limit: MAX_SHARED_BYTES,
                })?;
        }
        // Scratch memory: what the kernel's private memory and spills use, unless given
        // (then at least that).
        if self.scratch_given {
            if self.config.scratch_bytes < k.scratch_bytes {
                return Err(ParamError::ScratchTooSmall {
                    kernel: k.name.clone(),
                    given: self.config.scratch_bytes,
                    needed: k.scratch_bytes,
                }
                .into());
            }
        } else if k.scratch_bytes > 0 {
            if k.scratch_bytes > MAX_SCRATCH_BYTES || !k.scratch_bytes.is_multiple_of(4) {
                return Err(SetupError::BadScratch {
                    bytes: k.scratch_bytes,
                });
            }
            self.config.scratch_bytes = k.scratch_bytes;
        }
        if let Some(required) = k.block {
            if self.block_given {
                if self.config.block != required {
                    return Err(ParamError::BlockMismatch {
                        kernel: k.name.clone(),
                        required,
                        given: self.config.block,
                    }
                    .into());
                }
            } else {
                self.block(required)?;
            }
        }
        Ok(())
    }

    /// Charge the scratch memory resident at once: one workgroup's per host thread (no more
    /// than there are workgroups). With one host thread per core (`threads` 0) the launch
    /// takes no more threads than the memory left has room for, at least one.
    fn charge_scratch(&mut self, workgroups: u64) -> Result<(), SetupError> {
        let per_group = scratch_bytes_per_workgroup(&self.config);
        if per_group == 0 {
            return Ok(());
        }
        let threads = match self.config.threads {
            0 => {
                let cores = std::thread::available_parallelism().map_or(1, usize::from) as u64;
                let fit = self.budget.left() / per_group;
                let n = cores.min(workgroups).min(fit).max(1);
                self.config.threads = n as usize;
                n
            }
            n => (n as u64).min(workgroups),
        };
        let what = format!(
            "the scratch memory of {threads} workgroup(s) running at once (one per host \
             thread, {per_group} bytes each)"
        );
        self.budget
            .charge(&what, threads.saturating_mul(per_group))?;
        Ok(())
    }

    fn check_unique(&self, name: &str) -> Result<(), SetupError> {
        if self.args.iter().any(|a| a.name == name) {
            return Err(SetupError::DuplicateArg {
                name: name.to_string(),
            });
        }
        Ok(())
    }

    /// Resolve the entry symbol in `kernel`, charge its code (mapped once, pre-decoded into
    /// one slot per 4-byte word) and the kept warps, and pre-decode it.
    pub fn prepare(mut self, kernel: &warpkit_asm::Program) -> Result<Prepared, SetupError> {
        self.check_kernel()?;
        if let Some(symbol) = &self.entry {
            let s = kernel
                .symbol(symbol)
                .filter(|s| s.section == warpkit_asm::Section::Text)
                .ok_or_else(|| SetupError::NoSuchEntry {
                    symbol: symbol.clone(),
                })?;
            self.config.entry =
                u32::try_from(s.offset).map_err(|_| SetupError::EntryOutOfRange {
                    symbol: symbol.clone(),
                })?;
        }
        let code = kernel.text.len() as u64;
        let per_word = (std::mem::size_of::<warpkit_sim::Inst>()
            + std::mem::size_of::<warpkit_sim::RegUse>()) as u64;
        self.budget.charge(
            &format!("the code ({code} bytes, decoded)"),
            2 * code + code.div_ceil(4) * per_word,
        )?;
        if self.config.keep_warps {
            let groups: u128 = self.config.grid.iter().map(|&d| u128::from(d)).product();
            let threads: u128 = self.config.block.iter().map(|&d| u128::from(d)).product();
            let warps = u64::try_from(groups * threads.div_ceil(32)).unwrap_or(u64::MAX);
            self.budget.charge(
                &format!("--dump-state of {warps} warps"),
                warps.saturating_mul(KEPT_BYTES_PER_WARP),
            )?;
        }
        let workgroups = workgroup_count(&self.config)?;
        self.charge_scratch(workgroups)?;
        Ok(Prepared {
            program: warpkit_sim::Program::with_data(kernel.text.clone(), kernel.data.clone()),
            config: self.config,
            args: self.args,
            workgroups,
        })
    }
}

/// Host threads for the rest of a resumed launch (`Session::set_threads`): `requested` (0:
/// one per core), but, with scratch memory, no more than the launch that was saved ran on:
/// its memory limit admitted the scratch of that many workgroups at once.
pub fn resume_threads(config: &LaunchConfig, requested: usize) -> usize {
    match (config.scratch_bytes, config.threads, requested) {
        (0, _, _) | (_, 0, _) => requested,
        (_, saved, 0) => saved,
        (_, saved, n) => n.min(saved),
    }
}

/// A launch ready to run: checked, its code pre-decoded.
pub struct Prepared {
    program: warpkit_sim::Program,
    config: LaunchConfig,
    args: Vec<Arg>,
    workgroups: u64,
}

impl Prepared {
    /// The checked configuration the launch runs with, entry resolved.
    pub fn config(&self) -> &LaunchConfig {
        &self.config
    }

    /// How many workgroups the launch runs.
    pub fn workgroups(&self) -> u64 {
        self.workgroups
    }

    /// The pre-decoded program.
    pub fn program(&self) -> &warpkit_sim::Program {
        &self.program
    }

    /// Run on `engine` instead of the host's default (results are the same).
    pub fn engine(&mut self, engine: warpkit_sim::Engine) -> &mut Prepared {
        self.program.set_engine(engine);
        self
    }

    /// The program, configuration and arguments, for launches run by other clients of the
    /// simulator (profiles).
    pub fn into_parts(self) -> (warpkit_sim::Program, LaunchConfig, Vec<Arg>) {
        (self.program, self.config, self.args)
    }

    /// A session over the launch, run step by step under hooks on the calling thread (a
    /// debugger); nothing runs yet.
    pub fn session(&self) -> Result<warpkit_sim::launch::Session<'_>, LaunchError> {
        warpkit_sim::launch::Session::new(&self.program, &self.config, self.args.clone())
    }

    /// Run on the configured host threads.
    pub fn run(self) -> Result<LaunchResult, LaunchError> {
        self.run_with_progress(&AtomicU64::new(0))
    }

    /// As [`Prepared::run`], adding 1 to `done` as each workgroup finishes.
    pub fn run_with_progress(self, done: &AtomicU64) -> Result<LaunchResult, LaunchError> {
        launch_with_progress(&self.program, &self.config, self.args, done)
    }

    /// Run on the calling thread, workgroup after workgroup, showing every committed
    /// instruction to `tracer`, which may stop the run (a capped or failing trace writer).
    pub fn run_with_tracer<T: warpkit_sim::Hooks>(
        self,
        tracer: &mut T,
    ) -> Result<LaunchResult, LaunchError> {
        warpkit_sim::launch::launch_with_tracer(&self.program, &self.config, self.args, tracer)
    }

    /// Run on the calling thread, workgroup after workgroup, writing the commit log to
    /// `out`; also returns the writer's I/O outcome.
    pub fn run_traced<W: std::io::Write>(
        self,
        out: W,
        format: TraceFormat,
    ) -> Result<(LaunchResult, std::io::Result<W>), LaunchError> {
        launch_traced(&self.program, &self.config, self.args, out, format)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParamValue;

    fn kernel(src: &str) -> warpkit_asm::Program {
        warpkit_asm::assemble(src, "k.s").unwrap()
    }

    #[test]
    fn arguments_fill_slots_in_order_and_buffers_come_back() {
        let k = kernel(
            "uload.b128 u[16:19], u[0:1], 0\nwaitcnt sm=0\nsll.vi v5, v3, 2\n\
             gload.b32 v6, v5, u[16:17], 0\nwaitcnt vm=0\nadd v6, v6, v6\n\
             gstore.b32 v6, v5, u[18:19], 0\nendpgm\n",
        );
        let input: Vec<u8> = (0..32u32).flat_map(|i| i.to_le_bytes()).collect();
        let mut l = Launch::new(Limits::default());
        l.arg("in", ArgValue::Buffer(input)).unwrap();
        l.arg_text("out=buf:128").unwrap();
        let r = l.prepare(&k).unwrap().run().unwrap();
        assert!(r.ok());
        let out: Vec<u32> = r
            .buffer("out")
            .unwrap()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(out, (0..32u32).map(|i| 2 * i).collect::<Vec<_>>());
    }

    #[test]
    fn word_buffers_run_as_byte_buffers_do_and_come_back_moved() {
        let k = kernel(
            "uload.b128 u[16:19], u[0:1], 0\nwaitcnt sm=0\nsll.vi v5, v3, 2\n\
             gload.b32 v6, v5, u[16:17], 0\nwaitcnt vm=0\nadd v6, v6, v6\n\
             gstore.b32 v6, v5, u[18:19], 0\nendpgm\n",
        );
        let input: Vec<u32> = (0..32).collect();
        let bytes: Vec<u8> = input.iter().flat_map(|i| i.to_le_bytes()).collect();
        let mut plain = Launch::new(Limits::default());
        plain.arg("in", ArgValue::Buffer(bytes)).unwrap();
        plain.zeroed_buffer("out", 128).unwrap();
        let plain = plain.prepare(&k).unwrap().run().unwrap();

        let mut l = Launch::new(Limits::default());
        let words = WordBuffer {
            words: input.clone(),
            len: 128,
        };
        l.arg("in", ArgValue::Words(words)).unwrap();
        l.zeroed_words("out", 128).unwrap();
        let r = l.prepare(&k).unwrap().run().unwrap();
        assert!(r.ok());
        let back = |i: usize| r.buffers[i].words.clone().unwrap();
        assert_eq!(back(0).words, input);
        let doubled: Vec<u8> = back(1).words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(
            (doubled.as_slice(), back(1).len),
            (&*plain.buffer("out").unwrap(), 128)
        );
        assert!(r.buffers.iter().all(|b| b.bytes.is_empty()));
        assert_eq!(plain.buffers[1].words, None);

        let bad = WordBuffer {
            words: vec![0; 2],
            len: 9,
        };
        assert!(matches!(
            Launch::new(Limits::default()).arg("x", ArgValue::Words(bad)),
            Err(SetupError::WordCount { .. })
        ));
    }

    /// A kernel with metadata: `out[lane] = bits(x + x) + n` through local memory, then
    /// `out[32 + lane]` = the shared memory size (u13) and `out[64 + lane]` = the local
    /// argument's offset.
    const META: &str = "\
.kernel k, shared=20, block=32
.param k, out, ptr.global, \"float *\"
.param k, x, f32, \"float\"
.param k, tmp, ptr.local, \"local float *\"
.param k, n, i8, \"char\"
k:
    uload.b64 u[16:17], u[0:1], 0
    uload.b32 u18, u[0:1], 8
    uload.b32 u19, u[0:1], 16
    uload.b32 u20, u[0:1], 24
    waitcnt sm=0
    sll.vi v5, v3, 2
    mov.vu v6, u18
    fadd.f32 v8, v6, v6
    add.vu v9, v5, u19
    dsstore.b32 v8, v9, 0
    waitcnt ls=0
    dsload.b32 v10, v9, 0
    waitcnt ls=0
    mov.vu v11, u20
    add v10, v10, v11
    gstore.b32 v10, v5, u[16:17], 0
    mov.vu v12, u13
    gstore.b32 v12, v5, u[16:17], 128
    mov.vu v12, u19
    gstore.b32 v12, v5, u[16:17], 256
    endpgm
";

    fn words(b: &[u8]) -> Vec<u32> {
        b.chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn metadata_governs_arguments_shared_memory_and_block() {
        let p = kernel(META);
        let k = crate::select_kernel(&p, None, None).unwrap().unwrap();
        let mut l = Launch::new(Limits::default());
        l.kernel(k).unwrap();
        l.arg_text("out=buf:384").unwrap();
        l.arg_text("x=1.5").unwrap();
        l.arg_text("tmp=local:128").unwrap();
        l.arg_text("n=-3").unwrap();
        let prepared = l.prepare(&p).unwrap();
        // The static 20 bytes, then the local argument at the next 16-byte boundary.
        assert_eq!(prepared.config().shared_bytes, 32 + 128);
        assert_eq!(prepared.config().block, [32, 1, 1]);
        let r = prepared.run().unwrap();
        assert!(r.ok(), "{:?}", r.traps);
        let out = words(&r.buffer("out").unwrap());
        assert_eq!(out[0], 3.0f32.to_bits().wrapping_sub(3));
        assert_eq!(out[31], out[0]);
        assert_eq!(out[32], 160);
        assert_eq!(out[64], 32);

        // The same through typed values, in order, and `arg` for the integer.
        let mut l = Launch::new(Limits::default());
        l.kernel(k).unwrap();
        l.param("out", ParamValue::Zeroed(384)).unwrap();
        l.param("x", ParamValue::Float(1.5)).unwrap();
        l.param("tmp", ParamValue::Local(128)).unwrap();
        l.arg("n", ArgValue::Int(-3i64 as u64)).unwrap();
        l.shared(4096).unwrap();
        let prepared = l.prepare(&p).unwrap();
        assert_eq!(prepared.config().shared_bytes, 4096);
        let r = prepared.run().unwrap();
        // A zeroed buffer goes in and comes back as words.
        let out = &r.buffers[0].words.as_ref().unwrap().words;
        assert_eq!(out[0], 3.0f32.to_bits().wrapping_sub(3));
        assert_eq!(out[32], 4096);
    }

    fn refused(args: &[&str], shared: Option<u32>, block: Option<[u32; 3]>) -> String {
        let p = kernel(META);
        let mut l = Launch::new(Limits::default());
        l.kernel(&p.kernels[0]).unwrap();
        if let Some(s) = shared {
            l.shared(s).unwrap();
        }
        if let Some(b) = block {
            l.block(b).unwrap();
        }
        for a in args {
            if let Err(e) = l.arg_text(a) {
                return e.to_string();
            }
        }
        match l.prepare(&p) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{args:?} was accepted"),
        }
    }

    #[test]
    fn metadata_refusals_name_the_parameter_and_its_type() {
        let ok = ["out=buf:384", "x=1.5", "tmp=local:128", "n=-3"];
        assert_eq!(
            refused(&["x=1.5"], None, None),
            "--arg x=1.5: kernel `k` expects `out` (float *) here, its parameter 1 of 4 (out, \
             x, tmp, n), not `x`; `x` is parameter 2: give the arguments in the order of the \
             parameters"
        );
        assert_eq!(
            refused(&["out=buf:384", "y=1"], None, None),
            "--arg y=1: kernel `k` expects `x` (float) here, its parameter 2 of 4 (out, x, \
             tmp, n), not `y`; `y` is not one of its parameters"
        );
        assert_eq!(
            refused(&ok[..3], None, None),
            "kernel `k` takes 4 arguments (out, x, tmp, n), 3 given: `n` (char) is missing"
        );
        assert_eq!(
            refused(&[ok[0], ok[1], ok[2], ok[3], "m=1"], None, None),
            "--arg m=1: kernel `k` takes 4 arguments (out, x, tmp, n); this one is too many"
        );
        assert_eq!(
            refused(&[ok[0], ok[1], ok[2], "n=128"], None, None),
            "--arg n=128: parameter `n` (char) of kernel `k` is i8: 128 is not in -128..127"
        );
        assert!(refused(&[ok[0], "x=1.5.2"], None, None)
            .ends_with("is f32: `1.5.2` is not a float literal (1.5, -2e-3, 0x1.8p1, inf, nan)"));
        assert!(refused(&["out=5"], None, None)
            .ends_with("is ptr.global: give @FILE or buf:BYTES, not `5`"));
        assert!(
            refused(&[ok[0], ok[1], "tmp=@in.bin"], None, None).ends_with(
                "is ptr.local: give local:BYTES (bytes of workgroup shared memory), not `@in.bin`"
            )
        );
        assert_eq!(
            refused(&ok, Some(100), None),
            "100 bytes of shared memory per workgroup are fewer than kernel `k` needs: 160 (20 \
             static, the rest for its local arguments)"
        );
        assert_eq!(
            refused(&ok, None, Some([64, 1, 1])),
            "kernel `k` requires a workgroup of 32x1x1 threads (block=32x1x1), but the launch \
             asks for 64x1x1"
        );
        let p = kernel(META);
        let mut l = Launch::new(Limits::default());
        l.arg_text("out=buf:4").unwrap();
        assert!(matches!(
            l.kernel(&p.kernels[0]),
            Err(SetupError::Param(ParamError::KernelAfterArgs))
        ));
        let mut l = Launch::new(Limits::default());
        assert!(matches!(
            l.param("x", ParamValue::Int(1)),
            Err(SetupError::Param(ParamError::NoKernel))
        ));
        // By name, in any order.
        let order = crate::params::order_by_name(&p.kernels[0], &["n", "x", "out", "tmp"]);
        assert_eq!(order.unwrap(), [2, 1, 3, 0]);
        let e = crate::params::order_by_name(&p.kernels[0], &["n", "x", "out"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel `k` takes 4 arguments (out, x, tmp, n), 3 given: `tmp` (local float *) is \
             missing"
        );
        let e = crate::params::order_by_name(&p.kernels[0], &["q"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "argument `q`: kernel `k` has no parameter `q`; its parameters are out, x, tmp, n"
        );
    }

    #[test]
    fn scratch_is_charged_per_host_thread_and_threads_follow_the_budget() {
        let mib = 1u64 << 20;
        // 2 warps of 32 lanes of 4 KiB: 256 KiB per workgroup.
        let launch = |max_memory: u64, threads: usize| {
            let mut l = Launch::new(Limits {
                max_memory,
                max_workgroups: 100,
            });
            l.grid([10, 1, 1]).unwrap().block([64, 1, 1]).unwrap();
            l.scratch(4096).unwrap().threads(threads).unwrap();
            l
        };
        let k = kernel("endpgm\n");
        let p = launch(mib, 3).prepare(&k).unwrap();
        assert_eq!(p.config().threads, 3);
        let Err(SetupError::Memory(MemoryError::Exceeded { what, bytes, .. })) =
            launch(mib, 4).prepare(&k)
        else {
            panic!("4 threads of 256 KiB and the code fit 1 MiB");
        };
        assert_eq!(bytes, 4 << 18);
        assert!(what.contains("4 workgroup(s)"), "{what}");
        // More threads than workgroups hold no more scratch.
        let mut l = launch(mib, 64);
        l.grid([2, 1, 1]).unwrap();
        assert!(l.prepare(&k).is_ok());
        // One per core, as many as fit.
        let p = launch(mib, 0).prepare(&k).unwrap();
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(p.config().threads, cores.min(3));
        assert!(matches!(
            launch(200 << 10, 0).prepare(&k),
            Err(SetupError::Memory(_))
        ));
        for bytes in [6, MAX_SCRATCH_BYTES + 4] {
            assert!(matches!(
                Launch::new(Limits::default()).scratch(bytes),
                Err(SetupError::BadScratch { .. })
            ));
        }
        let r = launch(mib, 1).prepare(&k).unwrap().run().unwrap();
        assert!(r.ok());
    }

    #[test]
    fn a_resumed_launch_with_scratch_keeps_to_the_saved_threads() {
        let mut c = LaunchConfig {
            threads: 4,
            ..LaunchConfig::default()
        };
        assert_eq!(resume_threads(&c, 0), 0, "no scratch: as asked");
        assert_eq!(resume_threads(&c, 9), 9);
        c.scratch_bytes = 64;
        assert_eq!(resume_threads(&c, 0), 4);
        assert_eq!(resume_threads(&c, 9), 4);
        assert_eq!(resume_threads(&c, 2), 2);
    }

    #[test]
    fn refusals() {
        let mut l = Launch::new(Limits {
            max_memory: 64,
            max_workgroups: 4,
        });
        assert!(matches!(
            l.grid([5, 1, 1]),
            Err(SetupError::TooManyWorkgroups { .. })
        ));
        assert!(matches!(
            l.block([64, 32, 1]),
            Err(SetupError::BlockTooLarge { .. })
        ));
        assert!(matches!(
            l.shared(u32::MAX),
            Err(SetupError::SharedTooLarge { .. })
        ));
        assert!(matches!(l.max_steps(0), Err(SetupError::ZeroMaxSteps)));
        assert!(matches!(
            l.max_total_steps(Some(0)),
            Err(SetupError::ZeroMaxTotalSteps)
        ));
        l.arg("x", ArgValue::Int(1)).unwrap();
        assert!(matches!(
            l.arg("x", ArgValue::Int(2)),
            Err(SetupError::DuplicateArg { .. })
        ));
        assert!(matches!(
            l.arg("y", ArgValue::Buffer(vec![0; 100])),
            Err(SetupError::Memory(_))
        ));
        assert!(matches!(
            l.zeroed_buffer("z", 1 << 62),
            Err(SetupError::Memory(_))
        ));
        l.entry("nowhere");
        assert!(matches!(
            l.clone().prepare(&kernel("endpgm\n")),
            Err(SetupError::NoSuchEntry { .. })
        ));
    }
}
