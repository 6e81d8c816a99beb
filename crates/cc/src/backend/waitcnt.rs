//! `waitcnt` insertion (§2.6): an asynchronous instruction writes its registers when it
//! retires; reading or writing such a register before then is a hazard the model reports
//! (`--strict-hazards`). Before every instruction that touches a register with a pending
//! write-back, wait just long enough: in-order counters retire oldest first, so waiting
//! until at most `n` operations are outstanding retires everything older than the `n`
//! newest; the out-of-order `sm` counter can only be waited to 0. Before a `barrier`, stores
//! (`vst`, `ls`) complete so that other warps see them (docs/abi.md, "Barriers").
//!
//! The pending state flows forward through the control flow graph and merges
//! conservatively at joins; loops iterate to a fixed point.

use super::finalize::{PFunc, PInst, POp};
use super::isel::isa;
use super::mir::BlockId;
use super::regalloc::Phys;
use std::collections::{BTreeSet, HashMap};
use warpkit_isa::{Latency, Role, COUNTERS};

/// A register as a bit index: `u0..u63` are 0..63, `v0..v127` are 64..191.
type Reg = u16;

fn regs_of(p: Phys) -> impl Iterator<Item = Reg> {
    let base: Reg = if p.class.is_vector() { 64 } else { 0 };
    let n: Reg = if p.class.is_pair() { 2 } else { 1 };
    (0..n).map(move |i| base + Reg::from(p.num) + i)
}

/// Outstanding operations per counter, newest first, each with the registers it will write.
#[derive(Debug, Clone, PartialEq, Default)]
struct Pending {
    counters: Vec<Vec<BTreeSet<Reg>>>,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            counters: vec![Vec::new(); COUNTERS.len()],
        }
    }

    fn merge(&mut self, other: &Pending) -> bool {
        let mut changed = false;
        for (mine, theirs) in self.counters.iter_mut().zip(&other.counters) {
            if theirs.len() > mine.len() {
                mine.resize(theirs.len(), BTreeSet::new());
                changed = true;
            }
            for (a, b) in mine.iter_mut().zip(theirs) {
                for r in b {
                    changed |= a.insert(*r);
                }
            }
        }
        changed
    }

    /// Retire all but the `keep` newest operations of counter `c`.
    fn retire_to(&mut self, c: usize, keep: usize) {
        self.counters[c].truncate(keep);
    }

    fn issue(&mut self, c: usize, writes: BTreeSet<Reg>) {
        let list = &mut self.counters[c];
        list.insert(0, writes);
        // Saturation retires the oldest (§2.6, errata v0.1.2).
        list.truncate(usize::from(COUNTERS[c].max_outstanding));
    }

    /// The waits `inst` needs, per counter: the number of operations that may stay. A
    /// needed wait drains its counter: the loads issued together ahead of their uses are
    /// then all available after one `waitcnt`, which is what keeps the instruction count
    /// of a batch of loads at one wait.
    fn needs(&self, touched: &BTreeSet<Reg>) -> Vec<Option<usize>> {
        self.counters
            .iter()
            .map(|list| {
                list.iter()
                    .any(|slot| !slot.is_disjoint(touched))
                    .then_some(0)
            })
            .collect()
    }
}

fn touched(inst: &PInst) -> (BTreeSet<Reg>, BTreeSet<Reg>) {
    let mut reads = BTreeSet::new();
    let mut writes = BTreeSet::new();
    let Some(op) = inst.op else {
        return (reads, writes);
    };
    for (o, def) in inst.ops.iter().zip(op.def().operands) {
        if let POp::Reg(p) = o {
            let (r, w) = match def.role {
                Role::Read => (true, false),
                Role::Write => (false, true),
                Role::ReadWrite => (true, true),
                Role::Value => (false, false),
            };
            for reg in regs_of(*p) {
                if r {
                    reads.insert(reg);
                }
                if w {
                    writes.insert(reg);
                }
            }
        }
    }
    // Branches read their condition register (their label is not a register).
    (reads, writes)
}

fn waitcnt(waits: &[Option<usize>], span: crate::source::Span) -> PInst {
    let op = isa("waitcnt");
    let ops = op
        .def()
        .operands
        .iter()
        .map(|d| {
            let c = COUNTERS.iter().position(|c| c.name == d.name);
            match c.and_then(|c| waits[c]) {
                Some(n) => POp::Key(COUNTERS[c.unwrap()].name, n as u32),
                None => POp::Omit,
            }
        })
        .collect();
    PInst {
        op: Some(op),
        ops,
        span,
    }
}

fn transfer(insts: &mut Vec<PInst>, state: &mut Pending, rewrite: bool) {
    let mut out = Vec::with_capacity(insts.len());
    for inst in insts.drain(..) {
        let (reads, writes) = touched(&inst);
        let all: BTreeSet<Reg> = reads.union(&writes).copied().collect();
        let mut waits = state.needs(&all);
        let is = |name: &str| inst.op == Some(isa(name));
        if is("barrier") {
            for name in ["vst", "ls"] {
                let c = COUNTERS
                    .iter()
                    .position(|c| c.name == name)
                    .expect("counter");
                if !state.counters[c].is_empty() {
                    waits[c] = Some(0);
                }
            }
        }
        if is("endpgm") {
            // endpgm completes everything in issue order.
            waits = vec![None; COUNTERS.len()];
            *state = Pending::new();
        }
        if waits.iter().any(Option::is_some) {
            for (c, w) in waits.iter().enumerate() {
                if let Some(keep) = w {
                    state.retire_to(c, *keep);
                }
            }
            if rewrite {
                out.push(waitcnt(&waits, inst.span));
            }
        }
        if let Some(Latency::Async(c)) = inst.op.map(|o| o.def().latency) {
            state.issue(usize::from(c), writes);
        }
        out.push(inst);
    }
    *insts = out;
}

/// Insert every `waitcnt` the kernel needs.
pub fn insert(f: &mut PFunc) {
    let mut entry_state: HashMap<BlockId, Pending> = HashMap::new();
    entry_state.insert(BlockId(0), Pending::new());
    // Successors by layout: a block falls into the next one unless it ends with a jump or
    // endpgm.
    let succs = |f: &PFunc, i: usize| -> Vec<BlockId> {
        let b = f.layout[i];
        let insts = &f.blocks[b.0 as usize];
        let mut out = Vec::new();
        if let Some(last) = insts.last() {
            if let Some(t) = last.target() {
                out.push(t);
            }
            let ends = last.op.is_none() || last.op == Some(isa("endpgm"));
            if !ends {
                if let Some(&next) = f.layout.get(i + 1) {
                    out.push(next);
                }
            }
        } else if let Some(&next) = f.layout.get(i + 1) {
            out.push(next);
        }
        out
    };
    // Fixed point of block entry states.
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 100_000 {
        changed = false;
        rounds += 1;
        for i in 0..f.layout.len() {
            let b = f.layout[i];
            let Some(mut state) = entry_state.get(&b).cloned() else {
                continue;
            };
            let mut insts = f.blocks[b.0 as usize].clone();
            transfer(&mut insts, &mut state, false);
            for s in succs(f, i) {
                match entry_state.get_mut(&s) {
                    Some(existing) => changed |= existing.merge(&state),
                    None => {
                        entry_state.insert(s, state.clone());
                        changed = true;
                    }
                }
            }
        }
    }
    for &b in &f.layout.clone() {
        let mut state = entry_state.get(&b).cloned().unwrap_or_else(Pending::new);
        transfer(&mut f.blocks[b.0 as usize], &mut state, true);
    }
}
