//! [`Launch`]: everything a launch needs, checked against the model's and the caller's
//! limits before anything runs, then [`Prepared::run`] (or its progress / traced forms).

use crate::args::{parse_arg, ArgError, MemoryBudget, MemoryError};
use std::sync::atomic::AtomicU64;
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
        Ok(self)
    }

    /// Bytes of shared memory per workgroup.
    pub fn shared(&mut self, bytes: u32) -> Result<&mut Launch, SetupError> {
        if bytes > MAX_SHARED_BYTES {
            return Err(SetupError::SharedTooLarge { bytes });
        }
        self.config.shared_bytes = bytes;
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
    pub fn arg(&mut self, name: &str, value: ArgValue) -> Result<&mut Launch, SetupError> {
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
    /// `NAME=@FILE`; [`crate::args`]).
    pub fn arg_text(&mut self, text: &str) -> Result<&Arg, SetupError> {
        let arg = parse_arg(text, &mut self.budget)?;
        self.check_unique(&arg.name)?;
        self.args.push(arg);
        Ok(&self.args[self.args.len() - 1])
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
