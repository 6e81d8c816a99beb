//! The translation tier: blocks of pre-decoded instructions compiled to native code
//! (x86-64 with AVX2), entered by the interpreter loop when no hooks observe the warp and
//! no asynchronous hazard is being watched. The interpreter stays the reference: the tier
//! translates only instructions that cannot trap, touch memory, or change EXEC, so a
//! translated run is a sequence of whole blocks whose effect is exactly the interpreter's,
//! and everything else (and any block that would overrun the step budget) is interpreted.
//! `crates/sim/tests/engines.rs` runs both engines side by side.

mod kind;
#[cfg(all(target_arch = "x86_64", unix))]
mod x64;

pub use kind::{lane_local, translated};

use crate::env::Core;
use crate::program::Program;
use crate::warp::Warp;
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

/// What translating a program produced.
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
}

/// A program's translated code.
pub struct Translation {
    #[cfg(all(target_arch = "x86_64", unix))]
    code: x64::Code,
    #[cfg(all(target_arch = "x86_64", unix))]
    consts: Box<x64::Consts>,
    /// Per variant, the address to enter at each slot (`exit` where there is no block).
    tables: [Vec<usize>; 2],
    exit: usize,
    stats: TranslationStats,
}

impl std::fmt::Debug for Translation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translation")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Translation {
    /// Translate `prog`, or `None` where the host cannot run translated code or the program
    /// is too large to translate eagerly.
    pub(crate) fn new(prog: &Program) -> Option<Translation> {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            if !Engine::jit_supported() || prog.text().len() / 4 > x64::MAX_TRANSLATED_SLOTS {
                return None;
            }
            let started = std::time::Instant::now();
            let code = x64::translate(prog)?;
            let base = code.buf.ptr(dynasmrt::AssemblyOffset(0)) as usize;
            let exit = base + code.exit.0;
            let tables = [0, 1].map(|v| {
                code.blocks[v]
                    .iter()
                    .map(|o| o.map_or(exit, |o| base + o.0))
                    .collect::<Vec<usize>>()
            });
            let stats = TranslationStats {
                instructions: code.instructions,
                blocks: code.blocks_count,
                code_bytes: code.buf.len(),
                nanos: started.elapsed().as_nanos() as u64,
            };
            Some(Translation {
                code,
                consts: Box::new(x64::Consts::new()),
                tables,
                exit,
                stats,
            })
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            let _ = prog;
            None
        }
    }

    pub fn stats(&self) -> TranslationStats {
        self.stats
    }

    /// Run translated blocks from `pc` for at most `budget` instructions. Returns the next
    /// PC and the instructions executed, or `None` if there is no block at `pc` or it does
    /// not fit in the budget (the interpreter then takes the next step). Updates the PC,
    /// retired and lane-operation counts of `warp` and `core`'s committed count.
    ///
    /// The lookup is inlined into the interpreter loop, which asks at every instruction it
    /// interprets; only entering translated code is a call.
    #[inline(always)]
    pub(crate) fn run(
        &self,
        warp: &mut Warp,
        core: &mut Core,
        pc: u32,
        budget: u64,
    ) -> Option<(u32, u64)> {
        let exec = warp.exec();
        let table = &self.tables[usize::from(exec != u32::MAX)];
        if pc & 3 != 0 {
            return None;
        }
        let entry = *table.get((pc >> 2) as usize)?;
        if entry == self.exit {
            return None;
        }
        self.enter(warp, core, table, entry, budget)
    }

    #[inline(never)]
    fn enter(
        &self,
        warp: &mut Warp,
        core: &mut Core,
        table: &[usize],
        entry: usize,
        budget: u64,
    ) -> Option<(u32, u64)> {
        let exec = warp.exec();
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            let mut ctx = x64::Ctx {
                mask: warp.lane_mask().as_ptr(),
                consts: &*self.consts,
                v: warp.v.as_mut_ptr().cast::<u32>(),
                u: warp.u.as_mut_ptr(),
                table: table.as_ptr(),
                budget,
                lane_ops: 0,
                exec,
                _pad: 0,
                tables: [self.tables[0].as_ptr(), self.tables[1].as_ptr()],
            };
            let enter = self.code.buf.ptr(self.code.enter);
            // SAFETY: `enter` is the prologue this translation emitted, with the signature
            // of `EnterFn`; the code only touches the register files and constants `ctx`
            // points to (indices were checked at pre-decode), and the tables (jump targets
            // checked against their length). The host has AVX2 and POPCNT (checked in
            // `new`).
            let next = unsafe {
                let f: x64::EnterFn = std::mem::transmute(enter);
                f(&mut ctx, entry)
            };
            let used = budget - ctx.budget;
            if used == 0 {
                return None;
            }
            warp.pc = next;
            warp.retired += used;
            warp.translated += used;
            warp.lane_ops += ctx.lane_ops;
            if ctx.exec != exec {
                warp.set_exec(ctx.exec);
            }
            core.committed += used;
            Some((next, used))
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            let _ = (warp, core, table, entry, budget, exec);
            None
        }
    }
}
