//! Which engine runs a program's warps, with which host vector instructions, and what
//! translating it cost: the choices a program carries (`crate::program`), kept apart from
//! the engines themselves (`crate::engine`) so that the program sits below them.

use std::sync::atomic::{AtomicU8, Ordering};

/// Which engine runs a program's warps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The interpreter: the reference, and the only engine that runs under hooks
    /// (tracing, breakpoints, profiles) or while hazards are watched.
    Interp,
    /// The translation tier, falling back to the interpreter where it must.
    Jit,
}

/// `--engine` named something else.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown engine '{0}' (expected 'jit' or 'interp')")]
pub struct UnknownEngine(pub String);

impl std::str::FromStr for Engine {
    type Err = UnknownEngine;
    fn from_str(s: &str) -> Result<Engine, UnknownEngine> {
        match s {
            "jit" => Ok(Engine::Jit),
            "interp" => Ok(Engine::Interp),
            _ => Err(UnknownEngine(s.to_string())),
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

const DEFAULT_UNSET: u8 = 0;
const DEFAULT_INTERP: u8 = 1;
const DEFAULT_JIT: u8 = 2;
static PROCESS_DEFAULT: AtomicU8 = AtomicU8::new(DEFAULT_UNSET);

impl Engine {
    /// The engine's name as `--engine` takes it: `interp` or `jit`.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Interp => "interp",
            Engine::Jit => "jit",
        }
    }

    /// Whether this host can run translated code (x86-64 with AVX2 and POPCNT, on a Unix).
    pub fn jit_supported() -> bool {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            false
        }
    }

    /// The engine a program runs on unless told otherwise: the one set with
    /// [`Engine::set_process_default`], else `jit` where the host supports it.
    pub fn host_default() -> Engine {
        match PROCESS_DEFAULT.load(Ordering::Relaxed) {
            DEFAULT_INTERP => Engine::Interp,
            DEFAULT_JIT => Engine::Jit,
            _ if Engine::jit_supported() => Engine::Jit,
            _ => Engine::Interp,
        }
    }

    /// Make `engine` the default of every program of this process that was not given one.
    pub fn set_process_default(engine: Engine) {
        let v = match engine {
            Engine::Interp => DEFAULT_INTERP,
            Engine::Jit => DEFAULT_JIT,
        };
        PROCESS_DEFAULT.store(v, Ordering::Relaxed);
    }
}

/// The vector instructions translated code uses for runs of lane-local instructions
/// (everything else uses AVX2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorIsa {
    /// 256-bit AVX2: a row is four quarters.
    Avx2,
    /// 512-bit AVX-512 (F and BW): a row is two halves.
    Avx512,
}

impl VectorIsa {
    /// Every vector instruction set translated code can use, narrowest first.
    pub const ALL: [VectorIsa; 2] = [VectorIsa::Avx2, VectorIsa::Avx512];

    /// Its short name, for reports and benchmark labels: `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            VectorIsa::Avx2 => "avx2",
            VectorIsa::Avx512 => "avx512",
        }
    }

    /// Whether this host runs translated code with it.
    pub fn supported(self) -> bool {
        if !Engine::jit_supported() {
            return false;
        }
        match self {
            VectorIsa::Avx2 => true,
            VectorIsa::Avx512 => {
                #[cfg(target_arch = "x86_64")]
                {
                    std::is_x86_feature_detected!("avx512f")
                        && std::is_x86_feature_detected!("avx512bw")
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    false
                }
            }
        }
    }

    /// The widest this host runs.
    pub fn host_best() -> VectorIsa {
        if VectorIsa::Avx512.supported() {
            VectorIsa::Avx512
        } else {
            VectorIsa::Avx2
        }
    }
}

/// What translating a program produced, and how often its launches fell back to the
/// interpreter for a memory instruction since.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TranslationStats {
    /// Instructions emitted, summed over blocks and both variants.
    pub instructions: usize,
    /// Blocks, both variants.
    pub blocks: usize,
    /// Bytes of machine code.
    pub code_bytes: usize,
    /// Time spent translating.
    pub nanos: u64,
    /// Memory instructions the interpreter executed for the program's launches on the
    /// translation tier, summed over every launch that finished since it was translated.
    pub memory_fallbacks: MemoryFallbacks,
}

/// Memory instructions (loads, stores, atomics, cache control) of a program that runs on
/// the translation tier that the interpreter executed instead, by why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MemoryFallbacks {
    /// The translation has no code for the instruction in its EXEC variant (full or
    /// partial): its class, or its use under a partial EXEC, is not translated.
    pub untranslated: u64,
    /// The instruction has translated code, but the interpreter ran it: the code checked
    /// its operands at run time and left (not a word run, misaligned, outside the region
    /// its hint holds, faulting), or the interpreter reached it from interpreted code
    /// (it enters translated code only where a block starts, and never at a memory
    /// instruction).
    pub exits: u64,
    /// A register write-back was pending (of a load the interpreter ran), and only the
    /// interpreter checks instructions for hazards against pending write-backs: it runs
    /// every instruction until the write-backs retire.
    pub watched: u64,
}

impl MemoryFallbacks {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.untranslated + self.exits + self.watched
    }
}

impl std::ops::AddAssign for MemoryFallbacks {
    fn add_assign(&mut self, other: MemoryFallbacks) {
        self.untranslated += other.untranslated;
        self.exits += other.exits;
        self.watched += other.watched;
    }
}
