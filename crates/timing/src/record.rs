//! Recording: hooks on the functional run that keep each warp's committed instruction
//! stream compactly, for the replay (`crate::engine`).
//!
//! A warp's stream is a list of 32-bit words: the PC of each committed instruction, and
//! after a global memory instruction the number of distinct lines it touched (the lines
//! themselves, ascending, go to a side list), after a shared-memory instruction the number
//! of bank passes it took. Which PCs carry a word is a property of the program
//! ([`Table`]), so the replay reads the stream back without tags.

use warpkit_isa::Addressing;
use warpkit_sim::hooks::{Control, Hooks};
use warpkit_sim::{memory_addresses, Code, Program, Warp};

use std::sync::Arc;

use crate::class::{Kind, Table};
use crate::machine::Machine;

/// One warp's recorded stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WarpStream {
    /// PCs, each memory instruction's followed by its line count or bank passes.
    pub words: Vec<u32>,
    /// The global memory instructions' lines (address / line size), in stream order, each
    /// instruction's ascending and distinct.
    pub lines: Vec<u64>,
}

/// The streams of one workgroup's warps, by warp index, shared by the replays that take
/// them (every machine of a `launch_timed_many` group reads the same streams).
pub(crate) type GroupStreams = Vec<Arc<WarpStream>>;

/// The recording hooks of one workgroup.
pub(crate) struct Recorder<'a> {
    table: &'a Table,
    /// log2 of the line size.
    line_shift: u32,
    /// log2 of the bank word size.
    bank_shift: u32,
    banks: u64,
    /// The warps' streams, by warp index.
    pub warps: Vec<WarpStream>,
    /// Scratch space for one instruction's lines or bank words.
    scratch: Vec<u64>,
    /// Scratch space for the per-bank counts.
    bank_counts: Vec<u32>,
}

impl<'a> Recorder<'a> {
    /// Hooks recording one workgroup of `warps` warps of the program `table` describes.
    pub(crate) fn new(table: &'a Table, machine: &Machine, warps: usize) -> Recorder<'a> {
        Recorder {
            table,
            line_shift: machine.l1.line_bytes.trailing_zeros(),
            bank_shift: machine.shared.bank_bytes.trailing_zeros(),
            banks: u64::from(machine.shared.banks),
            warps: vec![WarpStream::default(); warps],
            scratch: Vec::with_capacity(64),
            bank_counts: vec![0; machine.shared.banks as usize],
        }
    }

    /// The distinct units (`addr >> shift`) that the memory instruction at `pc` is about
    /// to touch, ascending, in `self.scratch`: its active lanes' addresses, from the
    /// execution core's own address computation (`warpkit_sim::memory_addresses`) on the
    /// registers it is about to read.
    fn units(&mut self, warp: &Warp, prog: &Program, pc: u32, shift: u32) {
        self.scratch.clear();
        let Some((addrs, size)) = memory_addresses(warp, prog, pc) else {
            return;
        };
        let size = u64::from(size.max(1));
        // A uniform access is one access (lane 0's), whatever EXEC holds.
        let uniform = matches!(
            prog.fetch(pc).map(|i| i.code),
            Some(Code::Op(op)) if op.def().memory.is_some_and(|m| m.address == Addressing::Uniform)
        );
        let exec = if uniform { 1 } else { warp.exec() };
        let mut sorted = true;
        for (l, &addr) in addrs.iter().enumerate() {
            if exec >> l & 1 == 0 {
                continue;
            }
            let hi = addr.saturating_add(size - 1);
            for u in addr >> shift..=hi >> shift {
                match self.scratch.last() {
                    Some(&last) if last == u => {}
                    Some(&last) => {
                        sorted &= last < u;
                        self.scratch.push(u);
                    }
                    None => self.scratch.push(u),
                }
            }
        }
        if !sorted {
            self.scratch.sort_unstable();
            self.scratch.dedup();
        }
    }
}

impl Hooks for Recorder<'_> {
    const ENABLED: bool = true;
    // The addresses are computed before each instruction: no per-lane log to build.
    const MEMORY_LOG: bool = false;

    #[inline]
    fn before(&mut self, warp: &Warp, prog: &Program, pc: u32) -> Control {
        let w = warp.id.warp as usize;
        if w >= self.warps.len() {
            self.warps.resize_with(w + 1, WarpStream::default);
        }
        self.warps[w].words.push(pc);
        let kind = self.table.at(pc).kind;
        if kind.has_word() {
            let word = if kind == Kind::Shared {
                self.units(warp, prog, pc, self.bank_shift);
                // Distinct bank words per bank: a word read by many lanes is a broadcast.
                self.bank_counts.iter_mut().for_each(|c| *c = 0);
                let mut passes = 0;
                for &word in &self.scratch {
                    let c = &mut self.bank_counts[(word % self.banks) as usize];
                    *c += 1;
                    passes = passes.max(*c);
                }
                passes
            } else {
                self.units(warp, prog, pc, self.line_shift);
                let s = &mut self.warps[w];
                s.lines.extend_from_slice(&self.scratch);
                self.scratch.len() as u32
            };
            self.warps[w].words.push(word);
        }
        Control::Continue
    }
}
