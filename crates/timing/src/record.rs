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
use warpkit_sim::{Code, Program, Warp};

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

/// The streams of one workgroup's warps, by warp index.
pub(crate) type GroupStreams = Vec<WarpStream>;

/// The recording hooks of one workgroup.
pub(crate) struct Recorder<'a> {
    table: &'a Table,
    /// log2 of the line size.
    line_shift: u32,
    /// log2 of the bank word size.
    bank_shift: u32,
    banks: u64,
    /// The warps' streams, by warp index.
    pub warps: GroupStreams,
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
    /// to touch, ascending, in `self.scratch`: its active lanes' addresses, computed from
    /// the registers it reads as the execution core does (docs/isa: `U64[rs2] +
    /// zext(v[rs1]) + imm`, `V64[rs1] + imm`, `zext(v[rs1]) + imm`, `U64[rs1] + imm`).
    fn units(&mut self, warp: &Warp, prog: &Program, pc: u32, shift: u32) {
        self.scratch.clear();
        let Some(inst) = prog.fetch(pc) else {
            return;
        };
        let Code::Op(op) = inst.code else {
            return;
        };
        let Some(m) = op.def().memory else {
            return;
        };
        let size = match m.size {
            0 => return,
            s => u64::from(s),
        };
        let offset = inst.imm as i32 as i64 as u64;
        let (rs1, rs2) = (usize::from(inst.rs1), usize::from(inst.rs2));
        let exec = warp.exec();
        let mut sorted = true;
        let mut add = |scratch: &mut Vec<u64>, addr: u64| {
            let hi = addr.saturating_add(size - 1);
            for u in addr >> shift..=hi >> shift {
                match scratch.last() {
                    Some(&last) if last == u => {}
                    Some(&last) => {
                        sorted &= last < u;
                        scratch.push(u);
                    }
                    None => scratch.push(u),
                }
            }
        };
        let lanes = |r: usize| warp.vreg(r).copied().unwrap_or([0; 32]);
        match m.address {
            Addressing::Global => {
                let base = warp.u64(rs2).wrapping_add(offset);
                let v = lanes(rs1);
                for (l, &x) in v.iter().enumerate() {
                    if exec >> l & 1 != 0 {
                        add(&mut self.scratch, base.wrapping_add(u64::from(x)));
                    }
                }
            }
            Addressing::A64 => {
                let (lo, hi) = (lanes(rs1), lanes(rs1 + 1));
                for l in 0..32 {
                    if exec >> l & 1 != 0 {
                        let a = u64::from(lo[l]) | u64::from(hi[l]) << 32;
                        add(&mut self.scratch, a.wrapping_add(offset));
                    }
                }
            }
            Addressing::Shared => {
                let v = lanes(rs1);
                for (l, &x) in v.iter().enumerate() {
                    if exec >> l & 1 != 0 {
                        add(&mut self.scratch, u64::from(x).wrapping_add(offset));
                    }
                }
            }
            Addressing::Uniform => add(&mut self.scratch, warp.u64(rs1).wrapping_add(offset)),
            Addressing::None => {}
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
