//! Recording: hooks on the functional run that keep each warp's committed instruction
//! stream compactly, for the replay (`crate::engine`).
//!
//! A warp's stream is a list of 32-bit words in stretches: a stretch is a sequence of
//! instructions each at the PC after the one before (`pc + len`), written as its first PC
//! and its number of instructions, followed by a word for each of its memory instructions
//! in order: after a global memory instruction the number of distinct lines it touched (the
//! lines themselves, ascending, go to a side list), after a shared-memory instruction the
//! number of bank passes it took. A jump, taken or not, starts a new stretch only when
//! the next instruction is not the one after it, so most instructions cost no word. Which
//! PCs carry a word and each instruction's length are properties of the program
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
    /// Stretches: first PC, instructions, then the line count or bank passes of each of
    /// the stretch's memory instructions.
    pub words: Vec<u32>,
    /// The global memory instructions' lines (address / line size), in stream order, each
    /// instruction's ascending and distinct.
    pub lines: Vec<u64>,
}

impl WarpStream {
    /// The bytes its words and lines take.
    pub fn bytes(&self) -> u64 {
        (self.words.len() * std::mem::size_of::<u32>()
            + self.lines.len() * std::mem::size_of::<u64>()) as u64
    }

    /// The stretch whose header is at `at` in `words`: its first PC and its number of
    /// instructions; `None` past the stream's end.
    #[inline]
    pub fn stretch(&self, at: usize) -> Option<(u32, u32)> {
        match self.words.get(at..at + 2) {
            Some(&[pc, count]) if count > 0 => Some((pc, count)),
            _ => None,
        }
    }
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
    /// Per warp, its open stretch: the PC that continues it and where its count is
    /// ([`Stretch::CLOSED`] before the first instruction).
    open: Vec<Stretch>,
    /// Scratch space for one instruction's lines or bank words.
    scratch: Vec<u64>,
    /// Scratch space for the bank-pass count: per bank, the first of its distinct words
    /// in `scratch` (`NO_WORD` for none) ...
    bank_first: Vec<u32>,
    /// ... and per word of `scratch`, the next distinct word of its bank.
    bank_next: Vec<u32>,
}

/// The stretch a warp's stream ends in.
#[derive(Debug, Clone, Copy)]
struct Stretch {
    /// The PC after the stretch's last instruction (wider than a PC, so that the closed
    /// stretch's is none).
    next: u64,
    /// The index of the stretch's instruction count in the stream's words.
    count: usize,
}

impl Stretch {
    /// No stretch open: no PC continues it.
    const CLOSED: Stretch = Stretch {
        next: u64::MAX,
        count: 0,
    };
}

/// The end of a bank's chain of words.
const NO_WORD: u32 = u32::MAX;

impl<'a> Recorder<'a> {
    /// Hooks recording one workgroup of `warps` warps of the program `table` describes.
    pub(crate) fn new(table: &'a Table, machine: &Machine, warps: usize) -> Recorder<'a> {
        Recorder {
            table,
            line_shift: machine.l1.line_bytes.trailing_zeros(),
            bank_shift: machine.shared.bank_bytes.trailing_zeros(),
            banks: u64::from(machine.shared.banks),
            warps: vec![WarpStream::default(); warps],
            open: vec![Stretch::CLOSED; warps],
            scratch: Vec::with_capacity(64),
            bank_first: vec![NO_WORD; machine.shared.banks as usize],
            bank_next: Vec::with_capacity(64),
        }
    }

    /// The distinct units (`addr >> shift`) that the memory instruction at `pc` is about
    /// to touch, ascending, in `self.scratch`: its active lanes' addresses, from the
    /// execution core's own address computation (`warpkit_sim::memory_addresses`) on the
    /// registers it is about to read.
    fn units(&mut self, warp: &Warp, prog: &Program, pc: u32, shift: u32) {
        if !self.units_unsorted(warp, prog, pc, shift) {
            self.scratch.sort_unstable();
            self.scratch.dedup();
        }
    }

    /// The units [`Recorder::units`] finds, in lane order without repeats of the unit
    /// just before; whether they are ascending and distinct.
    fn units_unsorted(&mut self, warp: &Warp, prog: &Program, pc: u32, shift: u32) -> bool {
        self.scratch.clear();
        let Some((addrs, size)) = memory_addresses(warp, prog, pc) else {
            return true;
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
        sorted
    }

    /// The passes the shared-memory instruction at `pc` takes: the most distinct bank
    /// words any one bank serves (a word read by many lanes is a broadcast). Each bank's
    /// distinct words are chained through `bank_next`, so no sort is needed.
    fn bank_passes(&mut self, warp: &Warp, prog: &Program, pc: u32) -> u32 {
        self.units_unsorted(warp, prog, pc, self.bank_shift);
        self.bank_first.fill(NO_WORD);
        self.bank_next.clear();
        let mut passes = 0;
        for i in 0..self.scratch.len() {
            let word = self.scratch[i];
            let bank = (word % self.banks) as usize;
            let mut count = 1;
            let mut at = self.bank_first[bank];
            let mut last = NO_WORD;
            while at != NO_WORD && self.scratch[at as usize] != word {
                count += 1;
                last = at;
                at = self.bank_next[at as usize];
            }
            self.bank_next.push(NO_WORD);
            if at == NO_WORD {
                // A new word of the bank: the chain's last.
                match last {
                    NO_WORD => self.bank_first[bank] = i as u32,
                    _ => self.bank_next[last as usize] = i as u32,
                }
                passes = passes.max(count);
            }
        }
        passes
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
            self.open.resize(w + 1, Stretch::CLOSED);
        }
        let info = self.table.at(pc);
        let (kind, len) = (info.kind, info.len);
        let open = &mut self.open[w];
        let words = &mut self.warps[w].words;
        if u64::from(pc) != open.next {
            words.push(pc);
            open.count = words.len();
            words.push(0);
        }
        words[open.count] += 1;
        open.next = u64::from(pc.wrapping_add(u32::from(len)));
        if kind.has_word() {
            let word = if kind == Kind::Shared {
                self.bank_passes(warp, prog, pc)
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
