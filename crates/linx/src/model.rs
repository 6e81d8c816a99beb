//! The SIMT block model (SPEC §2-§5): global registers, per-lane T/U/M/N queues with the
//! widths they were written at, LC/LB, groups with TPC, mask and ControlStack, sparse
//! little-endian memory, reduces committed at block end, W-RACE detection, and the three
//! execution orders.

use crate::syntax::{mask, Dest, FloatKind, Insn, Offset, Program, Read, Src};
use crate::tables::{Form, Op};
use crate::{
    Mode, BODY_BASE, MAX_FLOAT_CONTRIBUTIONS, MAX_ITERATIONS, MAX_MEMORY_BYTES,
    MAX_RUNTIME_DIAGNOSTICS, MAX_SIMT_LANES, QUEUE_DEPTH,
};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use warpkit_float::{self as wf, Bits, Flags, Format, Int, Round, BF16, F16, F32, F64};

/// A run-time error: the first one aborts the run (SPEC §5).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("error[{code}]: {message}{}", where_(.group, .lane, .pc))]
pub struct RunError {
    /// The `E-...` code (E-QUNDEF, E-WSTALE, E-DIVTGT, E-TIMEOUT, ...).
    pub code: &'static str,
    /// The group that failed; `None` for errors before any group ran (E-LIMIT,
    /// E-MEMLIMIT from `.mem`).
    pub group: Option<u64>,
    /// The lane at fault, or the lowest active lane for a group-wide error; its number
    /// within the group of `.lanenum` lanes, also in LOOP mode. `None` with `group`.
    pub lane: Option<u32>,
    /// The group's tpc: the failing instruction's address, or for E-PCRANGE the address
    /// outside the body it reached; `None` with `group`.
    pub pc: Option<u64>,
    /// What went wrong, without the code or location.
    pub message: String,
}

fn where_(group: &Option<u64>, lane: &Option<u32>, pc: &Option<u64>) -> String {
    let mut s = String::new();
    if let Some(g) = group {
        s += &format!(" (group {g}");
        if let Some(l) = lane {
            s += &format!(", lane {l}");
        }
        if let Some(pc) = pc {
            s += &format!(", pc {pc:#x}");
        }
        s += ")";
    }
    s
}

/// A run-time warning (`W-RACE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeDiagnostic {
    /// The `W-...` code; the run produces only W-RACE (SPEC §5).
    pub code: &'static str,
    /// The group whose access completed the race.
    pub group: Option<u64>,
    /// The lane of that access, numbered within its group.
    pub lane: Option<u32>,
    /// Address of the instruction that made the access.
    pub pc: Option<u64>,
    /// The two iterations and the byte they share.
    pub message: String,
}

/// Where a traced value was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteTarget {
    /// `'t' 'u' 'm' 'n'`.
    Queue(char),
    /// Global register R0..R23, by number: only the block-end commit of a reduce writes
    /// one (SPEC §2, §4).
    Gpr(u8),
}

/// One value written in a traced step: a queue push of one lane, or a reduce's global
/// register at block end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteEvent {
    /// The pushing lane, numbered within its group; `None` for a block-end register write.
    pub lane: Option<u32>,
    /// The queue or global register written.
    pub target: WriteTarget,
    /// The value, cut to `width` bits; for a register, its new 64-bit value.
    pub value: u64,
    /// Width in bits the entry was written at: 8, 16, 32 or 64; always 64 for a register.
    pub width: u32,
}

/// One memory access of one lane in a traced step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemEvent {
    /// The accessing lane, numbered within its group (for a store-reduce, the lowest
    /// active lane).
    pub lane: u32,
    /// `load`, `store`, `atomic`, `non-atomic` (`.ne`) or `store-reduce` (`.rd`).
    pub kind: &'static str,
    /// Effective byte address.
    pub addr: u64,
    /// Access size in bytes: 1, 2, 4 or 8.
    pub bytes: u32,
    /// The value loaded, stored, or (atomics) the old value.
    pub value: u64,
}

/// A ControlStack push or pop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CstkEvent {
    /// `true` for a push (a diverging branch), `false` for a pop (`pc.pop`).
    pub push: bool,
    /// `'R'` reconvergence entry, `'B'` pending-branch entry [P].
    pub kind: char,
    /// The entry's resume address: the reconvergence point for `'R'`, the pending side's
    /// branch target for `'B'` (SPEC §4, Divergence).
    pub pc: u64,
    /// The entry's lane mask, bit j for lane j of the group.
    pub mask: u64,
    /// The reconvergence point (address of the `pc.pop`) the entry belongs to.
    pub rpc: u64,
    /// Depth after the event.
    pub depth: usize,
}

/// One executed group-step (or, with `group: None`, the block-end commit of the reduces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRecord {
    /// The group that stepped; `None` for the block-end commit.
    pub group: Option<u64>,
    /// Address of the executed instruction; 0 for the block-end commit.
    pub pc: u64,
    /// The active lanes before the step, bit j for lane j of the group; 0 for the
    /// block-end commit.
    pub mask: u64,
    /// The instruction as written in the source.
    pub insn: String,
    /// Queue pushes of the step, or the block-end register writes.
    pub writes: Vec<WriteEvent>,
    /// Memory accesses, in the order they took effect (ascending lanes, SPEC §5).
    pub mem: Vec<MemEvent>,
    /// ControlStack pushes and pops of the step.
    pub cstk: Vec<CstkEvent>,
}

/// Receives the trace.
pub trait TraceSink {
    /// Called once per successfully executed group-step, in execution order, then once
    /// for the block-end commit if a reduce wrote a register. A step that fails is not
    /// recorded.
    fn record(&mut self, step: &StepRecord);
}

/// How to run a program.
pub struct RunConfig<'t> {
    /// Overrides the mode of `BSTART.<mode>`.
    pub mode: Option<Mode>,
    /// Overrides `.lanenum` (1..=64).
    pub lanes: Option<u32>,
    /// Group steps per group before E-TIMEOUT.
    pub max_steps: u64,
    /// Lane-steps of the whole run before E-TIMEOUT.
    pub max_lane_steps: u64,
    /// Float reduce contributions kept for the block-end fold before E-LIMIT.
    pub max_float_contributions: usize,
    /// Where to send one [`StepRecord`] per step; `None` runs untraced (faster).
    pub trace: Option<&'t mut dyn TraceSink>,
}

impl Default for RunConfig<'_> {
    fn default() -> Self {
        RunConfig {
            mode: None,
            lanes: None,
            max_steps: crate::DEFAULT_MAX_STEPS,
            max_lane_steps: crate::DEFAULT_MAX_LANE_STEPS,
            max_float_contributions: MAX_FLOAT_CONTRIBUTIONS,
            trace: None,
        }
    }
}

/// The outcome of a run: final state whether it finished or stopped at an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// The mode the block ran in (the override, else `BSTART.<mode>`).
    pub mode: Mode,
    /// The group size G used (the override, else `.lanenum`), 1..=64.
    pub lanes: u32,
    /// Final R0..R23; reduced registers hold their block-end value unless the run failed.
    pub gpr: [u64; 24],
    /// Every byte set by `.mem` or written by the run, as maximal contiguous runs.
    pub memory: Vec<(u64, Vec<u8>)>,
    /// The deepest any one group's ControlStack got.
    pub cstk_max_depth: usize,
    /// Run-time warnings (W-RACE), at most [`MAX_RUNTIME_DIAGNOSTICS`].
    pub diagnostics: Vec<RuntimeDiagnostic>,
    /// Diagnostics beyond [`MAX_RUNTIME_DIAGNOSTICS`], counted only.
    pub dropped_diagnostics: usize,
    /// The error that stopped the run, or `None` if every group reached `lbstop`.
    pub error: Option<RunError>,
    /// The accumulated IEEE exception flags of every float operation, in the layout of
    /// CSTATE.FFLAGS [pub CSTATE.md]: bit 0 NV, 1 DZ, 2 OF, 3 UF, 4 NX.
    pub fflags: u8,
    /// Group-steps executed (one instruction for one group, any number of lanes).
    pub group_steps: u64,
    /// Active lanes summed over group steps.
    pub lane_steps: u64,
    /// Number of groups NG = ceil(N / G) for N = LB0·LB1·LB2 iterations (SPEC §2); 0 if
    /// the run stopped before any group ran.
    pub groups: u64,
}

// ---------------------------------------------------------------------------------------
// Memory

const PAGE: u64 = 4096;

struct Page {
    data: [u8; PAGE as usize],
    set: [u64; (PAGE / 64) as usize],
}

#[derive(Default)]
struct Memory {
    pages: HashMap<u64, Box<Page>>,
}

impl Memory {
    fn read_byte(&self, addr: u64) -> u8 {
        self.pages
            .get(&(addr / PAGE))
            .map_or(0, |p| p.data[(addr % PAGE) as usize])
    }

    fn read(&self, addr: u64, bytes: u32) -> u64 {
        let mut v = 0u64;
        for i in 0..bytes as u64 {
            v |= (self.read_byte(addr.wrapping_add(i)) as u64) << (8 * i);
        }
        v
    }

    fn write(&mut self, addr: u64, bytes: u32, value: u64) -> Result<(), ()> {
        for i in 0..bytes as u64 {
            let a = addr.wrapping_add(i);
            let n = self.pages.len() as u64;
            let page = match self.pages.entry(a / PAGE) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    if (n + 1) * PAGE > MAX_MEMORY_BYTES {
                        return Err(());
                    }
                    e.insert(Box::new(Page {
                        data: [0; PAGE as usize],
                        set: [0; (PAGE / 64) as usize],
                    }))
                }
            };
            let off = (a % PAGE) as usize;
            page.data[off] = (value >> (8 * i)) as u8;
            page.set[off / 64] |= 1 << (off % 64);
        }
        Ok(())
    }

    /// Maximal runs of set bytes, ascending.
    fn runs(&self) -> Vec<(u64, Vec<u8>)> {
        let mut keys: Vec<u64> = self.pages.keys().copied().collect();
        keys.sort_unstable();
        let mut out: Vec<(u64, Vec<u8>)> = Vec::new();
        for k in keys {
            let p = &self.pages[&k];
            for off in 0..PAGE as usize {
                if p.set[off / 64] >> (off % 64) & 1 == 0 {
                    continue;
                }
                let addr = k * PAGE + off as u64;
                match out.last_mut() {
                    Some((start, bytes)) if start.wrapping_add(bytes.len() as u64) == addr => {
                        bytes.push(p.data[off])
                    }
                    _ => out.push((addr, vec![p.data[off]])),
                }
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// Race detection (W-RACE [P])

#[derive(Default, Clone, Copy)]
struct ByteAccess {
    /// First two distinct lanes that touched the byte (iteration + 1; 0 = none).
    t1: u64,
    t2: u64,
    /// First lane that wrote it non-atomically (iteration + 1).
    w1: u64,
    reported: bool,
}

/// Byte records, kept per aligned 8-byte chunk (one map entry per d-word touched).
#[derive(Default)]
struct RaceTracker {
    chunks: HashMap<u64, [ByteAccess; 8], BuildHasherDefault<AddrHasher>>,
}

/// A multiplicative hash of one address: the tracker's keys are plain integers that need
/// no protection against chosen collisions, and SipHash cost a third of a memory step.
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        let h = (self.0 ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }
}

impl RaceTracker {
    /// Record an access; returns the other lane's iteration when this makes a race.
    fn access(&mut self, addr: u64, iter: u64, nonatomic_write: bool) -> Option<u64> {
        let id = iter + 1;
        let b = &mut self.chunks.entry(addr >> 3).or_default()[(addr & 7) as usize];
        if b.t1 == 0 {
            b.t1 = id;
        } else if b.t1 != id && b.t2 == 0 {
            b.t2 = id;
        }
        if nonatomic_write && b.w1 == 0 {
            b.w1 = id;
        }
        if b.reported || b.w1 == 0 {
            return None;
        }
        let other = if b.t1 != b.w1 {
            b.t1
        } else if b.t2 != 0 && b.t2 != b.w1 {
            b.t2
        } else {
            return None;
        };
        b.reported = true;
        let other = if other == id { b.w1 } else { other };
        Some(other - 1)
    }
}

// ---------------------------------------------------------------------------------------
// Groups

#[derive(Clone, Copy)]
struct CstkEntry {
    pending_branch: bool,
    pc: u64,
    mask: u64,
    rpc: u64,
}

struct Group {
    /// Group number as reported.
    id: u64,
    /// Reported lane number of lane 0 (its position in the VECT/SIMT group; LOOP mode).
    lane_base: u32,
    /// Iteration of lane 0.
    first_iter: u64,
    tpc: u64,
    mask: u64,
    cstk: Vec<CstkEntry>,
    steps: u64,
    done: bool,
    lc: [Vec<u64>; 3],
    /// Lanes of the group (the row length of the queue arrays).
    lanes: usize,
    /// Queue values at `(q * QUEUE_DEPTH + slot) * lanes + lane`: one slot of one queue
    /// is a contiguous row over the lanes.
    qval: Vec<u64>,
    /// Width in bits each entry was written at; 0 = never written.
    qwidth: Vec<u8>,
    /// Next slot to write, at `q * lanes + lane`.
    qhead: Vec<u8>,
    /// Per queue, the next slot when every lane's is the same (all lanes pushed equally
    /// often), else `MIXED_HEADS`: such a queue is read and written a whole row at a time.
    uhead: [u8; 4],
}

/// `Group::uhead` of a queue whose lanes are at different slots.
const MIXED_HEADS: u8 = u8::MAX;

impl Group {
    fn new(
        id: u64,
        lane_base: u32,
        first_iter: u64,
        lanes: u32,
        n: u64,
        lb: [u64; 3],
        entry: u64,
    ) -> Group {
        let mut mask = 0u64;
        let mut lc = [
            vec![0; lanes as usize],
            vec![0; lanes as usize],
            vec![0; lanes as usize],
        ];
        for j in 0..lanes {
            let it = first_iter + j as u64;
            if it < n {
                mask |= 1 << j;
                lc[0][j as usize] = it % lb[0];
                lc[1][j as usize] = (it / lb[0]) % lb[1];
                lc[2][j as usize] = it / (lb[0] * lb[1]);
            }
        }
        let slots = lanes as usize * 4;
        Group {
            id,
            lane_base,
            first_iter,
            tpc: entry,
            mask,
            cstk: Vec::new(),
            steps: 0,
            done: false,
            lc,
            lanes: lanes as usize,
            qval: vec![0; slots * QUEUE_DEPTH],
            qwidth: vec![0; slots * QUEUE_DEPTH],
            qhead: vec![0; slots],
            uhead: [0; 4],
        }
    }

    /// Index of `slot` of queue `q` for `lane` in `qval`/`qwidth`.
    #[inline]
    fn qindex(&self, q: u8, slot: usize, lane: usize) -> usize {
        (q as usize * QUEUE_DEPTH + slot) * self.lanes + lane
    }

    /// Whether every lane of the group is active (the mask is the row `0..lanes`).
    #[inline]
    fn all_lanes(&self) -> bool {
        self.mask == mask(self.lanes as u32)
    }

    /// The common next slot of queue `q`, rechecked when it was mixed (lanes that diverged
    /// and reconverged after pushing equally often are uniform again).
    #[inline]
    fn uniform_head(&mut self, q: u8) -> Option<usize> {
        let h = self.uhead[q as usize];
        if h != MIXED_HEADS {
            return Some(h as usize);
        }
        let heads = &self.qhead[q as usize * self.lanes..][..self.lanes];
        let first = heads[0];
        if heads.iter().all(|&x| x == first) {
            self.uhead[q as usize] = first;
            Some(first as usize)
        } else {
            None
        }
    }

    fn mask_reported(&self) -> u64 {
        self.mask << self.lane_base
    }
}

fn sext(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        let s = 64 - bits;
        (((v << s) as i64) >> s) as u64
    }
}

fn ext(v: u64, bits: u32, signed: bool) -> u64 {
    if signed {
        sext(v, bits)
    } else {
        v & mask(bits)
    }
}

const QUEUE_NAMES: [char; 4] = ['t', 'u', 'm', 'n'];

struct Machine<'p, 't> {
    prog: &'p Program,
    gpr: [u64; 24],
    lb: [u64; 3],
    mem: Memory,
    /// Reduce accumulators by destination register: (value, any contribution).
    reduces: [(u64, bool); 24],
    /// Float reduce contributions by destination register: (iteration, value), folded in
    /// iteration order at block end [P].
    freduces: [Vec<(u64, u64)>; 24],
    float_contributions: usize,
    max_float_contributions: usize,
    /// CSTATE.FRM: the rounding mode of every float operation but `fcvti`.
    frm: Round,
    /// CSTATE.FFLAGS, accumulated.
    fflags: Flags,
    /// Per-lane operand buffers of [`Machine::exec`], reused across steps.
    scratch: Option<Box<[[u64; 64]; 3]>>,
    race: Option<RaceTracker>,
    diags: Vec<RuntimeDiagnostic>,
    dropped: usize,
    trace: Option<&'t mut dyn TraceSink>,
    rec: StepRecord,
    cstk_max: usize,
    cstk_limit: usize,
    max_steps: u64,
    max_lane_steps: u64,
    group_steps: u64,
    lane_steps: u64,
}

type R<T> = Result<T, RunError>;

impl Machine<'_, '_> {
    fn fail(&self, g: &Group, lane: Option<u32>, code: &'static str, message: String) -> RunError {
        RunError {
            code,
            group: Some(g.id),
            lane: Some(lane.unwrap_or_else(|| g.mask.trailing_zeros().min(63)) + g.lane_base),
            pc: Some(g.tpc),
            message,
        }
    }

    #[inline]
    fn read(&self, g: &Group, lane: u32, r: &Read) -> R<u64> {
        Ok(match r.src {
            Src::Queue { q, k } => {
                let head = g.qhead[q as usize * g.lanes + lane as usize] as usize;
                let i = g.qindex(
                    q,
                    (head + QUEUE_DEPTH - k as usize) % QUEUE_DEPTH,
                    lane as usize,
                );
                let w = g.qwidth[i] as u32;
                if w == 0 {
                    return Err(self.fail(
                        g,
                        Some(lane),
                        "E-QUNDEF",
                        format!(
                            "{}#{k} is read but this lane has not written that entry [P]",
                            QUEUE_NAMES[q as usize]
                        ),
                    ));
                }
                if w != r.bits {
                    return Err(self.fail(
                        g,
                        Some(lane),
                        "E-WSTALE",
                        format!(
                            "{}#{k} was written at {w} bits and is read at {} bits: unpredictable [004 rule 3]",
                            QUEUE_NAMES[q as usize], r.bits
                        ),
                    ));
                }
                g.qval[i] & mask(r.bits)
            }
            Src::Gpr(n) => self.gpr[n as usize] & mask(r.bits),
            Src::Lc(i) => g.lc[i as usize][lane as usize] & mask(r.bits),
            Src::Lb(i) => self.lb[i as usize] & mask(r.bits),
        })
    }

    #[inline]
    fn push(&mut self, g: &mut Group, lane: u32, q: u8, value: u64, bits: u32) {
        let head = q as usize * g.lanes + lane as usize;
        let slot = g.qhead[head] as usize;
        let i = g.qindex(q, slot, lane as usize);
        g.qval[i] = value & mask(bits);
        g.qwidth[i] = bits as u8;
        g.qhead[head] = ((slot + 1) % QUEUE_DEPTH) as u8;
        g.uhead[q as usize] = MIXED_HEADS;
        if self.trace.is_some() {
            self.rec.writes.push(WriteEvent {
                lane: Some(lane + g.lane_base),
                target: WriteTarget::Queue(QUEUE_NAMES[q as usize]),
                value: value & mask(bits),
                width: bits,
            });
        }
    }

    /// `push` of every active lane's `vals[lane]` to queue `q`. Without a trace this is
    /// one tight loop over the lanes (the hot path of every ALU step).
    fn push_row(&mut self, g: &mut Group, q: u8, bits: u32, vals: &[u64; 64]) {
        let mut m = g.mask;
        if self.trace.is_some() {
            while m != 0 {
                let lane = m.trailing_zeros();
                m &= m - 1;
                self.push(g, lane, q, vals[lane as usize], bits);
            }
            return;
        }
        let keep = mask(bits);
        let n = g.lanes;
        if g.all_lanes() {
            if let Some(slot) = g.uniform_head(q) {
                let row = g.qindex(q, slot, 0);
                for (d, &v) in g.qval[row..row + n].iter_mut().zip(&vals[..n]) {
                    *d = v & keep;
                }
                g.qwidth[row..row + n].fill(bits as u8);
                let next = ((slot + 1) % QUEUE_DEPTH) as u8;
                g.qhead[q as usize * n..][..n].fill(next);
                g.uhead[q as usize] = next;
                return;
            }
        }
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let head = q as usize * n + lane;
            let slot = g.qhead[head] as usize;
            let i = g.qindex(q, slot, lane);
            g.qval[i] = vals[lane] & keep;
            g.qwidth[i] = bits as u8;
            g.qhead[head] = ((slot + 1) % QUEUE_DEPTH) as u8;
        }
        g.uhead[q as usize] = MIXED_HEADS;
    }

    /// Each active lane's value of input `k`, in lane order. The operand kind is matched
    /// once per step, not once per lane (this loop is the model's hot path).
    fn gather(&self, g: &mut Group, insn: &Insn, k: usize, out: &mut [u64; 64]) -> R<()> {
        let r = &insn.srcs[k];
        let bits = mask(r.bits);
        let mut m = g.mask;
        match r.src {
            Src::Queue { q, k } => {
                let back = QUEUE_DEPTH - k as usize;
                let n = g.lanes;
                if g.all_lanes() {
                    if let Some(head) = g.uniform_head(q) {
                        let row = g.qindex(q, (head + back) % QUEUE_DEPTH, 0);
                        if g.qwidth[row..row + n].iter().all(|&w| w as u32 == r.bits) {
                            for (o, &v) in out[..n].iter_mut().zip(&g.qval[row..row + n]) {
                                *o = v & bits;
                            }
                            return Ok(());
                        }
                    }
                }
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    let head = g.qhead[q as usize * n + lane as usize] as usize;
                    let i = g.qindex(q, (head + back) % QUEUE_DEPTH, lane as usize);
                    if g.qwidth[i] as u32 != r.bits {
                        // Never written, or written at another width: `read` names it.
                        return self.read(g, lane, r).map(|_| ());
                    }
                    out[lane as usize] = g.qval[i] & bits;
                }
            }
            Src::Gpr(_) | Src::Lb(_) => {
                let v = self.read(g, 0, r)?;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    out[lane as usize] = v;
                }
            }
            Src::Lc(i) => {
                let lc = &g.lc[i as usize];
                while m != 0 {
                    let lane = m.trailing_zeros() as usize;
                    m &= m - 1;
                    out[lane] = lc[lane] & bits;
                }
            }
        }
        Ok(())
    }

    fn effective_addresses(&self, g: &mut Group, insn: &Insn, out: &mut [u64; 64]) -> R<()> {
        let mut base = [0u64; 64];
        self.gather(g, insn, 0, &mut base)?;
        let mut m = g.mask;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let off = match insn.offset {
                Offset::None => 0,
                Offset::Imm(v) => v,
                Offset::Reg(r) => ext(self.read(g, lane as u32, &r)?, r.bits, r.signed),
            };
            out[lane] = base[lane].wrapping_add(off << insn.shift);
        }
        Ok(())
    }

    fn mem_write(&mut self, g: &Group, lane: u32, addr: u64, bytes: u32, value: u64) -> R<()> {
        self.mem.write(addr, bytes, value).map_err(|()| {
            self.fail(
                g,
                Some(lane),
                "E-MEMLIMIT",
                format!("the run touches more than {MAX_MEMORY_BYTES} bytes of memory [P]"),
            )
        })
    }

    fn note_access(&mut self, g: &Group, lane: u32, addr: u64, bytes: u32, nonatomic_write: bool) {
        let Some(race) = self.race.as_mut() else {
            return;
        };
        let iter = g.first_iter + lane as u64;
        for i in 0..bytes as u64 {
            let a = addr.wrapping_add(i);
            if let Some(other) = race.access(a, iter, nonatomic_write) {
                if self.diags.len() >= MAX_RUNTIME_DIAGNOSTICS {
                    self.dropped += 1;
                    continue;
                }
                self.diags.push(RuntimeDiagnostic {
                    code: "W-RACE",
                    group: Some(g.id),
                    lane: Some(lane + g.lane_base),
                    pc: Some(g.tpc),
                    message: format!(
                        "iterations {other} and {iter} access byte {a:#x} and one writes it non-atomically: the result is model-defined [P]"
                    ),
                });
            }
        }
    }

    fn mem_event(
        &mut self,
        g: &Group,
        lane: u32,
        kind: &'static str,
        addr: u64,
        bytes: u32,
        value: u64,
    ) {
        if self.trace.is_some() {
            self.rec.mem.push(MemEvent {
                lane: lane + g.lane_base,
                kind,
                addr,
                bytes,
                value,
            });
        }
    }

    fn cstk_push(&mut self, g: &mut Group, e: CstkEntry) {
        g.cstk.push(e);
        self.cstk_max = self.cstk_max.max(g.cstk.len());
        if self.trace.is_some() {
            self.rec.cstk.push(CstkEvent {
                push: true,
                kind: if e.pending_branch { 'B' } else { 'R' },
                pc: e.pc,
                mask: e.mask << g.lane_base,
                rpc: e.rpc,
                depth: g.cstk.len(),
            });
        }
    }

    fn check_target(&self, g: &Group, target: u64, what: &str) -> R<()> {
        if self.prog.insn_at(target).is_none() {
            return Err(self.fail(
                g,
                None,
                "E-PCRANGE",
                format!(
                    "{what} {target:#x} is not an 8-aligned body address ({BODY_BASE:#x}..{:#x})",
                    self.prog.body_end()
                ),
            ));
        }
        Ok(())
    }

    /// The divergence rule of SPEC §4 for both branch kinds.
    fn branch(&mut self, g: &mut Group, taken: u64, br_pc: u64, rpc: u64) -> R<()> {
        let cur = g.mask;
        let cal = cur & !taken;
        if cal == cur {
            g.tpc += 8;
        } else if cal == 0 {
            g.tpc = br_pc;
        } else {
            if self.prog.insn_at(rpc).map(|i| i.def.op) != Some(Op::PcPop) {
                return Err(self.fail(
                    g,
                    None,
                    "E-RCLABEL",
                    format!("the branch diverges but its reconvergence point {rpc:#x} does not hold pc.pop [004 rule 5]"),
                ));
            }
            if g.cstk.len() + 2 > self.cstk_limit {
                return Err(self.fail(
                    g,
                    None,
                    "E-CSTKOVF",
                    format!(
                        "ControlStack overflow: depth {} + 2 exceeds {} (.cstk_depth) [P]",
                        g.cstk.len(),
                        self.cstk_limit
                    ),
                ));
            }
            self.cstk_push(
                g,
                CstkEntry {
                    pending_branch: false,
                    pc: rpc,
                    mask: cur,
                    rpc,
                },
            );
            self.cstk_push(
                g,
                CstkEntry {
                    pending_branch: true,
                    pc: br_pc,
                    mask: cur & !cal,
                    rpc,
                },
            );
            g.mask = cal;
            g.tpc += 8;
        }
        Ok(())
    }

    fn pc_pop(&mut self, g: &mut Group) {
        let here = g.tpc;
        loop {
            match g.cstk.last() {
                Some(top) if top.rpc == here => {}
                _ => {
                    g.tpc = here + 8;
                    return;
                }
            }
            let e = g.cstk.pop().expect("checked above");
            if self.trace.is_some() {
                self.rec.cstk.push(CstkEvent {
                    push: false,
                    kind: if e.pending_branch { 'B' } else { 'R' },
                    pc: e.pc,
                    mask: e.mask << g.lane_base,
                    rpc: e.rpc,
                    depth: g.cstk.len(),
                });
            }
            g.mask = e.mask;
            if e.pending_branch {
                g.tpc = e.pc;
                return;
            }
        }
    }

    /// Run the instruction at `g.tpc` for every active lane of `g`.
    fn step(&mut self, g: &mut Group) -> R<()> {
        let prog = self.prog;
        let pc = g.tpc;
        let Some(insn) = prog.insn_at(pc) else {
            return Err(self.fail(
                g,
                None,
                "E-PCRANGE",
                format!(
                    "tpc {pc:#x} is outside the body ({BODY_BASE:#x}..{:#x}): ran past its end or branched out",
                    prog.body_end()
                ),
            ));
        };
        g.steps += 1;
        if g.steps > self.max_steps {
            return Err(self.fail(
                g,
                None,
                "E-TIMEOUT",
                format!(
                    "the group ran {} steps without reaching lbstop",
                    self.max_steps
                ),
            ));
        }
        self.group_steps += 1;
        self.lane_steps += g.mask.count_ones() as u64;
        if self.lane_steps > self.max_lane_steps {
            return Err(self.fail(
                g,
                None,
                "E-TIMEOUT",
                format!(
                    "the run took more than {} lane-steps in total [P]",
                    self.max_lane_steps
                ),
            ));
        }
        if self.trace.is_some() {
            self.rec.group = Some(g.id);
            self.rec.pc = pc;
            self.rec.mask = g.mask_reported();
            self.rec.writes.clear();
            self.rec.mem.clear();
            self.rec.cstk.clear();
        }
        let result = self.exec(g, insn);
        if let Some(t) = self.trace.as_mut() {
            if result.is_ok() {
                self.rec.insn.clear();
                self.rec.insn.push_str(&insn.text);
                t.record(&self.rec);
            }
        }
        result
    }

    /// Runs `insn` with three per-lane operand buffers kept across steps (zeroing three
    /// fresh 64-lane arrays every step cost a fifth of the run time).
    fn exec(&mut self, g: &mut Group, insn: &Insn) -> R<()> {
        let mut s = self
            .scratch
            .take()
            .unwrap_or_else(|| Box::new([[0; 64]; 3]));
        let [a, b, c] = &mut *s;
        let result = self.exec_with(g, insn, a, b, c);
        self.scratch = Some(s);
        result
    }

    fn exec_with(
        &mut self,
        g: &mut Group,
        insn: &Insn,
        a: &mut [u64; 64],
        b: &mut [u64; 64],
        c: &mut [u64; 64],
    ) -> R<()> {
        let def = insn.def;
        let w = insn.w;
        match def.form {
            Form::Alu | Form::AluImm => {
                self.gather(g, insn, 0, a)?;
                if insn.srcs.len() > 1 {
                    self.gather(g, insn, 1, b)?;
                } else {
                    b.fill(insn.imm);
                }
                let Dest::Queue { q, bits } = insn.dest else {
                    unreachable!("checked: these forms write a queue")
                };
                alu_row(def.op, w, insn.signed, g.mask, a, b);
                self.push_row(g, q, bits, a);
                g.tpc += 8;
            }
            Form::Cmp | Form::CmpImm | Form::Csel => {
                self.gather(g, insn, 0, a)?;
                if insn.srcs.len() > 1 {
                    self.gather(g, insn, 1, b)?;
                } else {
                    b.fill(insn.imm);
                }
                if insn.srcs.len() > 2 {
                    self.gather(g, insn, 2, c)?;
                }
                let Dest::Queue { q, bits } = insn.dest else {
                    unreachable!("checked: these forms write a queue")
                };
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    let (x, y) = (a[lane as usize], b[lane as usize]);
                    let v = if def.form == Form::Csel {
                        ext(if x != 0 { y } else { c[lane as usize] }, w, insn.signed)
                    } else {
                        compare(def.op, x, y, w) as u64
                    };
                    self.push(g, lane, q, v, bits);
                }
                g.tpc += 8;
            }
            Form::Cvt => {
                self.gather(g, insn, 0, a)?;
                let Dest::Queue { q, bits } = insn.dest else {
                    unreachable!("checked: conversions write a queue")
                };
                let rm = self.frm;
                let from = insn.srcs[0].float;
                let to_int = Int::new(insn.out_signed, bits);
                let convert: Box<dyn Fn(u64) -> (u64, Flags)> = match (def.op, from, insn.out_float)
                {
                    (Op::Icvt, _, _) => {
                        let signed = insn.signed;
                        Box::new(move |x| (ext(x, w, signed), Flags::NONE))
                    }
                    (Op::Fcvt, Some(from), Some(to)) => {
                        let f = with_format!(from, A, with_format!(to, B, fcvt::<A, B>));
                        Box::new(move |x| f(x, rm))
                    }
                    (Op::Fcvti, Some(from), _) => {
                        let f = with_format!(from, A, fcvti::<A>);
                        Box::new(move |x| f(x, to_int))
                    }
                    (Op::Icvtf, _, Some(to)) => {
                        let f = with_format!(to, B, icvtf::<B>);
                        let signed = insn.signed;
                        Box::new(move |x| f(ext(x, w, signed), signed, rm))
                    }
                    _ => unreachable!("checked: conversion operand classes"),
                };
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    let (v, flags) = convert(a[lane as usize]);
                    self.fflags |= flags;
                    self.push(g, lane, q, v, bits);
                }
                g.tpc += 8;
            }
            Form::Falu | Form::Falu1 | Form::Fcmp => {
                self.gather(g, insn, 0, a)?;
                if def.form != Form::Falu1 {
                    self.gather(g, insn, 1, b)?;
                }
                let Dest::Queue { q, bits } = insn.dest else {
                    unreachable!("checked: float operations write a queue")
                };
                let kind = insn.srcs[0].float.expect("checked: float operands");
                let (op, rm) = (def.op, self.frm);
                let f: fn(Op, u64, u64, Round) -> (u64, Flags) = if def.form == Form::Fcmp {
                    with_format!(kind, F, fcmp::<F>)
                } else {
                    with_format!(kind, F, falu::<F>)
                };
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let (v, flags) = f(op, a[lane], b[lane], rm);
                    self.fflags |= flags;
                    self.push(g, lane as u32, q, v, bits);
                }
                g.tpc += 8;
            }
            Form::Freduce => {
                self.gather(g, insn, 0, a)?;
                let Dest::Gpr(r) = insn.dest else {
                    unreachable!("checked: reduces write a global register")
                };
                let active = g.mask.count_ones() as usize;
                if self.float_contributions + active > self.max_float_contributions {
                    return Err(self.fail(
                        g,
                        None,
                        "E-LIMIT",
                        format!(
                            "more than {} float reduce contributions to keep for the block-end fold [P]",
                            self.max_float_contributions
                        ),
                    ));
                }
                self.float_contributions += active;
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros() as usize;
                    m &= m - 1;
                    self.freduces[r as usize].push((g.first_iter + lane as u64, a[lane]));
                }
                g.tpc += 8;
            }
            Form::Load => {
                self.effective_addresses(g, insn, a)?;
                let Dest::Queue { q, bits } = insn.dest else {
                    unreachable!("checked: loads write a queue")
                };
                let bytes = def.access / 8;
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    let addr = a[lane as usize];
                    let v = self.mem.read(addr, bytes);
                    self.note_access(g, lane, addr, bytes, false);
                    self.mem_event(g, lane, "load", addr, bytes, v);
                    self.push(g, lane, q, v, bits);
                }
                g.tpc += 8;
            }
            Form::Store => {
                self.gather(g, insn, 1, b)?;
                self.effective_addresses(g, insn, a)?;
                let bytes = def.access / 8;
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    let (addr, v) = (a[lane as usize], b[lane as usize]);
                    self.mem_write(g, lane, addr, bytes, v)?;
                    self.note_access(g, lane, addr, bytes, true);
                    self.mem_event(g, lane, "store", addr, bytes, v);
                }
                g.tpc += 8;
            }
            Form::AmoLoad | Form::AmoStore => {
                self.gather(g, insn, 0, a)?;
                self.gather(g, insn, 1, b)?;
                let bytes = def.access / 8;
                let bits = def.access;
                if insn.store_reduce {
                    let first = g.mask.trailing_zeros();
                    let addr = a[first as usize];
                    let mut acc = b[first as usize];
                    let mut m = g.mask & (g.mask - 1);
                    while m != 0 {
                        let lane = m.trailing_zeros();
                        m &= m - 1;
                        if a[lane as usize] != addr {
                            return Err(self.fail(
                                g,
                                Some(lane),
                                "E-RDADDR",
                                format!(
                                    "store-reduce lanes disagree on the address ({addr:#x} and {:#x}) [003 adj.11]",
                                    a[lane as usize]
                                ),
                            ));
                        }
                        acc = amo(def.op, acc, b[lane as usize], bits);
                    }
                    let old = self.mem.read(addr, bytes);
                    self.mem_write(g, first, addr, bytes, amo(def.op, old, acc, bits))?;
                    self.note_access(g, first, addr, bytes, false);
                    self.mem_event(g, first, "store-reduce", addr, bytes, acc);
                } else if insn.non_atomic {
                    let mut m = g.mask;
                    while m != 0 {
                        let lane = m.trailing_zeros() as usize;
                        m &= m - 1;
                        c[lane] = self.mem.read(a[lane], bytes);
                    }
                    let mut m = g.mask;
                    while m != 0 {
                        let lane = m.trailing_zeros();
                        m &= m - 1;
                        let l = lane as usize;
                        self.mem_write(g, lane, a[l], bytes, amo(def.op, c[l], b[l], bits))?;
                        self.note_access(g, lane, a[l], bytes, true);
                        self.mem_event(g, lane, "non-atomic", a[l], bytes, c[l]);
                    }
                } else {
                    let mut m = g.mask;
                    while m != 0 {
                        let lane = m.trailing_zeros();
                        m &= m - 1;
                        let l = lane as usize;
                        let old = self.mem.read(a[l], bytes);
                        c[l] = old;
                        self.mem_write(g, lane, a[l], bytes, amo(def.op, old, b[l], bits))?;
                        self.note_access(g, lane, a[l], bytes, false);
                        self.mem_event(g, lane, "atomic", a[l], bytes, old);
                    }
                }
                if let Dest::Queue { q, bits } = insn.dest {
                    let mut m = g.mask;
                    while m != 0 {
                        let lane = m.trailing_zeros();
                        m &= m - 1;
                        self.push(g, lane, q, c[lane as usize], bits);
                    }
                }
                g.tpc += 8;
            }
            Form::Reduce => {
                self.gather(g, insn, 0, a)?;
                let Dest::Gpr(r) = insn.dest else {
                    unreachable!("checked: reduces write a global register")
                };
                let (mut acc, mut any) = self.reduces[r as usize];
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros() as usize;
                    m &= m - 1;
                    acc = if any {
                        reduce(def.op, acc, a[lane], w, insn.signed)
                    } else {
                        a[lane]
                    };
                    any = true;
                }
                self.reduces[r as usize] = (acc, any);
                g.tpc += 8;
            }
            Form::J => g.tpc = insn.target,
            Form::Jr => {
                self.gather(g, insn, 0, a)?;
                let target = self.uniform(g, a, insn.srcs[0], "jr target")?;
                let target = target.wrapping_add(insn.imm);
                self.check_target(g, target, "jr target")?;
                g.tpc = target;
            }
            Form::Addtpc => {
                let v = (g.tpc & !0xfff).wrapping_add(insn.imm << 12);
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    if let Dest::Queue { q, bits } = insn.dest {
                        self.push(g, lane, q, v, bits);
                    }
                }
                g.tpc += 8;
            }
            Form::Branch => {
                self.gather(g, insn, 0, a)?;
                self.gather(g, insn, 1, b)?;
                let mut taken = 0u64;
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    if compare(def.op, a[lane as usize], b[lane as usize], w) {
                        taken |= 1 << lane;
                    }
                }
                self.branch(g, taken, insn.target, insn.rc)?;
            }
            Form::Bcond => {
                self.gather(g, insn, 0, a)?;
                self.gather(g, insn, 1, b)?;
                self.gather(g, insn, 2, c)?;
                let l = self.uniform(g, b, insn.srcs[1], "b.cond target")?;
                let r = self.uniform(g, c, insn.srcs[2], "b.cond reconvergence point")?;
                self.check_target(g, l, "b.cond target")?;
                self.check_target(g, r, "b.cond reconvergence point")?;
                let mut taken = 0u64;
                let mut m = g.mask;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    if a[lane as usize] != 0 {
                        taken |= 1 << lane;
                    }
                }
                self.branch(g, taken, l, r)?;
            }
            Form::PcPop => self.pc_pop(g),
            Form::Lbstop => {
                if !g.cstk.is_empty() {
                    return Err(self.fail(
                        g,
                        None,
                        "E-CSTKLIVE",
                        format!(
                            "lbstop with {} ControlStack entr{} left: a divergent region was not closed by pc.pop [P]",
                            g.cstk.len(),
                            if g.cstk.len() == 1 { "y" } else { "ies" }
                        ),
                    ));
                }
                g.done = true;
            }
        }
        Ok(())
    }

    /// The value every active lane holds, extended to 64 bits, or E-DIVTGT.
    fn uniform(&self, g: &Group, vals: &[u64; 64], r: Read, what: &str) -> R<u64> {
        let first = g.mask.trailing_zeros();
        let v = vals[first as usize];
        let mut m = g.mask;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            if vals[lane as usize] != v {
                return Err(self.fail(
                    g,
                    Some(lane),
                    "E-DIVTGT",
                    format!(
                        "the {what} differs between active lanes ({:#x} and {:#x})",
                        ext(v, r.bits, r.signed),
                        ext(vals[lane as usize], r.bits, r.signed)
                    ),
                ));
            }
        }
        Ok(ext(v, r.bits, r.signed))
    }

    fn run_group(&mut self, g: &mut Group) -> R<()> {
        while !g.done {
            self.step(g)?;
        }
        Ok(())
    }
}

/// Runs `$e` with `$F` the warpkit-float format of a [`FloatKind`].
macro_rules! with_format {
    ($k:expr, $F:ident, $e:expr) => {
        match $k {
            FloatKind::F64 => {
                type $F = F64;
                $e
            }
            FloatKind::F32 => {
                type $F = F32;
                $e
            }
            FloatKind::F16 => {
                type $F = F16;
                $e
            }
            FloatKind::Bf16 => {
                type $F = BF16;
                $e
            }
        }
    };
}
use with_format;

/// A two-input (or, `fsqrt`, one-input) float operation of format `F` on raw bits.
fn falu<F: Format>(op: Op, a: u64, b: u64, rm: Round) -> (u64, Flags) {
    let (a, b) = (F::Bits::from_u64(a), F::Bits::from_u64(b));
    let (r, flags) = match op {
        Op::Fadd => wf::add::<F>(a, b, rm),
        Op::Fsub => wf::sub::<F>(a, b, rm),
        Op::Fmul => wf::mul::<F>(a, b, rm),
        Op::Fdiv => wf::div::<F>(a, b, rm),
        Op::Fmin => wf::min::<F>(a, b),
        Op::Fmax => wf::max::<F>(a, b),
        Op::Fsqrt => wf::sqrt::<F>(a, rm),
        _ => unreachable!("not a float operation: {op:?}"),
    };
    (r.to_u64(), flags)
}

/// A float compare [pub fp_compare.md]: 0 whenever an input is NaN; the quiet compares
/// raise NV for a signaling NaN only, the `…s` compares for any NaN.
fn fcmp<F: Format>(op: Op, a: u64, b: u64, _: Round) -> (u64, Flags) {
    let (a, b) = (F::Bits::from_u64(a), F::Bits::from_u64(b));
    let signaling = matches!(op, Op::FcmpEqs | Op::FcmpNes | Op::FcmpLts | Op::FcmpGes);
    let (unordered, quiet_flags) = wf::unordered::<F>(a, b);
    if unordered {
        return (0, if signaling { Flags::NV } else { quiet_flags });
    }
    let r = match op {
        Op::FcmpEq | Op::FcmpEqs => wf::eq::<F>(a, b).0,
        Op::FcmpNe | Op::FcmpNes => !wf::eq::<F>(a, b).0,
        Op::FcmpLt | Op::FcmpLts => wf::lt::<F>(a, b).0,
        Op::FcmpGe | Op::FcmpGes => wf::le::<F>(b, a).0,
        _ => unreachable!("not a float compare: {op:?}"),
    };
    (r as u64, Flags::NONE)
}

fn fcvt<A: Format, B: Format>(a: u64, rm: Round) -> (u64, Flags) {
    let (r, flags) = wf::convert::<A, B>(A::Bits::from_u64(a), rm);
    (r.to_u64(), flags)
}

/// Float to integer: toward zero [pub convert.md], saturating (NV) as the GPU side does;
/// NaN gives 0 with NV [P] (the GPU side's RISC-V rule gives the largest integer).
fn fcvti<A: Format>(a: u64, to: Int) -> (u64, Flags) {
    let a = A::Bits::from_u64(a);
    if wf::is_nan::<A>(a) {
        return (0, Flags::NV);
    }
    wf::to_int::<A>(a, to, Round::Rtz)
}

/// Integer (already extended to 64 bits by its suffix) to float.
fn icvtf<B: Format>(v: u64, signed: bool, rm: Round) -> (u64, Flags) {
    let (r, flags) = if signed {
        wf::from_i64::<B>(v as i64, rm)
    } else {
        wf::from_u64::<B>(v, rm)
    };
    (r.to_u64(), flags)
}

/// One float reduce step: `acc OP v` in format `F`.
fn freduce<F: Format>(op: Op, acc: u64, v: u64, rm: Round) -> (u64, Flags) {
    let fop = match op {
        Op::RdFadd => Op::Fadd,
        Op::RdFmax => Op::Fmax,
        Op::RdFmin => Op::Fmin,
        _ => unreachable!("not a float reduce: {op:?}"),
    };
    falu::<F>(fop, acc, v, rm)
}

/// IEEE flags (RISC-V/warpkit-float layout: NX UF OF DZ NV from bit 0) in the CSTATE.FFLAGS
/// layout (NV DZ OF UF NX from bit 0) [pub CSTATE.md]: the five bits reversed.
pub fn cstate_fflags(flags: Flags) -> u8 {
    (flags.bits().reverse_bits() >> 3) & 0x1f
}

fn compare(op: Op, a: u64, b: u64, w: u32) -> bool {
    let (sa, sb) = (sext(a, w) as i64, sext(b, w) as i64);
    match op {
        Op::CmpEq | Op::BrEq => a == b,
        Op::CmpNe | Op::BrNe => a != b,
        Op::CmpLt | Op::BrLt => sa < sb,
        Op::CmpGe | Op::BrGe => sa >= sb,
        Op::CmpLtu | Op::BrLtu => a < b,
        Op::CmpGeu | Op::BrGeu => a >= b,
        Op::CmpAnd => a & b != 0,
        Op::CmpOr => a | b != 0,
        _ => unreachable!("not a compare: {op:?}"),
    }
}

/// `a[lane] = ext(alu(op, a[lane], b[lane]))` for every lane of `active`, with the
/// operation chosen once per row rather than once per lane. A row whose active lanes are
/// 0..n (every lane of a converged group) runs as a plain loop the compiler vectorises.
fn alu_row(op: Op, w: u32, signed: bool, active: u64, a: &mut [u64; 64], b: &[u64; 64]) {
    #[inline(always)]
    fn lanes(active: u64, a: &mut [u64; 64], b: &[u64; 64], f: impl Fn(u64, u64) -> u64) {
        if active & active.wrapping_add(1) == 0 {
            let n = active.count_ones() as usize;
            for (x, &y) in a[..n].iter_mut().zip(&b[..n]) {
                *x = f(*x, y);
            }
        } else {
            let mut m = active;
            while m != 0 {
                let lane = m.trailing_zeros() as usize;
                m &= m - 1;
                a[lane] = f(a[lane], b[lane]);
            }
        }
    }
    macro_rules! by_op {
        ($($op:ident),*) => {
            match op {
                $(Op::$op => lanes(active, a, b, |x, y| ext(alu(Op::$op, x, y, w, signed), w, signed)),)*
                _ => lanes(active, a, b, |x, y| ext(alu(op, x, y, w, signed), w, signed)),
            }
        };
    }
    by_op!(Add, Sub, And, Or, Xor, Sll, Srl, Sra, Mul, Max, Min, Maxu, Minu)
}

/// An integer ALU operation at width w on w-bit operands; the result is cut to w bits.
#[inline]
fn alu(op: Op, a: u64, b: u64, w: u32, signed: bool) -> u64 {
    let m = mask(w);
    let (sa, sb) = (sext(a, w) as i64, sext(b, w) as i64);
    let r = match op {
        Op::Add => a.wrapping_add(b),
        Op::Sub => a.wrapping_sub(b),
        Op::And => a & b,
        Op::Or => a | b,
        Op::Xor => a ^ b,
        Op::Sll => a << (b % w as u64),
        Op::Srl => a >> (b % w as u64),
        Op::Sra => (sa >> (b % w as u64)) as u64,
        Op::Mul => a.wrapping_mul(b),
        Op::Div => {
            if b == 0 {
                0
            } else if signed {
                // MIN / -1 = MIN: wrapping_div gives exactly that at 64 bits, and at
                // narrower widths the quotient 2^(w-1) cut to w bits is MIN again.
                sa.wrapping_div(sb) as u64
            } else {
                a / b
            }
        }
        Op::Rem => {
            if b == 0 {
                a
            } else if signed {
                sa.wrapping_rem(sb) as u64
            } else {
                a % b
            }
        }
        Op::Max => sa.max(sb) as u64,
        Op::Min => sa.min(sb) as u64,
        Op::Maxu => a.max(b),
        Op::Minu => a.min(b),
        _ => unreachable!("not an ALU operation: {op:?}"),
    };
    r & m
}

/// An atomic read-modify-write operation at `bits`.
fn amo(op: Op, old: u64, v: u64, bits: u32) -> u64 {
    let m = mask(bits);
    let (so, sv) = (sext(old, bits) as i64, sext(v, bits) as i64);
    (match op {
        Op::AmoAdd => old.wrapping_add(v),
        Op::AmoAnd => old & v,
        Op::AmoOr => old | v,
        Op::AmoXor => old ^ v,
        Op::AmoSmax => so.max(sv) as u64,
        Op::AmoSmin => so.min(sv) as u64,
        Op::AmoUmax => (old & m).max(v & m),
        Op::AmoUmin => (old & m).min(v & m),
        _ => unreachable!("not an atomic operation: {op:?}"),
    }) & m
}

/// One reduce contribution folded into the accumulator, at width w.
fn reduce(op: Op, acc: u64, v: u64, w: u32, signed: bool) -> u64 {
    let m = mask(w);
    (match op {
        Op::RdAdd => acc.wrapping_add(v),
        Op::RdAnd => acc & v,
        Op::RdOr => acc | v,
        Op::RdXor => acc ^ v,
        Op::RdMax if signed => (sext(acc, w) as i64).max(sext(v, w) as i64) as u64,
        Op::RdMin if signed => (sext(acc, w) as i64).min(sext(v, w) as i64) as u64,
        Op::RdMax => acc.max(v),
        Op::RdMin => acc.min(v),
        _ => unreachable!("not a reduce: {op:?}"),
    }) & m
}

/// Run `prog`. The result holds the final state even when the run stopped at an error.
pub fn run(prog: &Program, cfg: RunConfig) -> RunResult {
    let mode = cfg.mode.unwrap_or(prog.mode);
    let lanes = cfg.lanes.unwrap_or(prog.lanes).clamp(1, 64);
    let mut m = Machine {
        prog,
        gpr: prog.gpr,
        lb: [1; 3],
        mem: Memory::default(),
        reduces: [(0, false); 24],
        freduces: std::array::from_fn(|_| Vec::new()),
        float_contributions: 0,
        max_float_contributions: cfg.max_float_contributions,
        frm: prog.frm,
        fflags: Flags::NONE,
        scratch: None,
        race: None,
        diags: Vec::new(),
        dropped: 0,
        trace: cfg.trace,
        rec: StepRecord {
            group: None,
            pc: 0,
            mask: 0,
            insn: String::new(),
            writes: Vec::new(),
            mem: Vec::new(),
            cstk: Vec::new(),
        },
        cstk_max: 0,
        cstk_limit: prog.cstk_depth as usize,
        max_steps: cfg.max_steps,
        max_lane_steps: cfg.max_lane_steps,
        group_steps: 0,
        lane_steps: 0,
    };
    let mut error = None;
    for (addr, bytes) in &prog.memory {
        for (i, b) in bytes.iter().enumerate() {
            if m.mem
                .write(addr.wrapping_add(i as u64), 1, *b as u64)
                .is_err()
            {
                error.get_or_insert(RunError {
                    code: "E-MEMLIMIT",
                    group: None,
                    lane: None,
                    pc: None,
                    message: format!(".mem data touches more than {MAX_MEMORY_BYTES} bytes [P]"),
                });
            }
        }
    }
    for (k, dim) in prog.dims.iter().enumerate() {
        if let Some((r, add)) = dim {
            m.lb[k] = prog.gpr[*r as usize].wrapping_add(*add);
        }
    }
    let n = m.lb[0]
        .checked_mul(m.lb[1])
        .and_then(|x| x.checked_mul(m.lb[2]));
    let mut groups = 0;
    match n {
        Some(n) if n <= MAX_ITERATIONS && (mode != Mode::Simt || n <= MAX_SIMT_LANES) => {
            if error.is_none() {
                let (res, g) = run_mode(&mut m, mode, lanes, n);
                groups = g;
                error = res.err();
            }
        }
        _ => {
            error = Some(RunError {
                code: "E-LIMIT",
                group: None,
                lane: None,
                pc: None,
                message: format!(
                    "LB0*LB1*LB2 = {}*{}*{} iterations exceeds the model's limit of {} ({} in SIMT mode) [P]",
                    m.lb[0], m.lb[1], m.lb[2], MAX_ITERATIONS, MAX_SIMT_LANES
                ),
            })
        }
    }
    if error.is_none() {
        // Reduces commit at block end [P].
        let mut writes = Vec::new();
        for insn in &prog.body {
            if let (Dest::Gpr(r), Form::Freduce) = (insn.dest, insn.def.form) {
                // Iteration order; an iteration's own contributions stay in execution order
                // (the sort is stable) [P].
                let contributions = &mut m.freduces[r as usize];
                contributions.sort_by_key(|c| c.0);
                if let Some((&(_, first), rest)) = contributions.split_first() {
                    let kind = insn.srcs[0].float.expect("checked: float operand");
                    let f: fn(Op, u64, u64, Round) -> (u64, Flags) =
                        with_format!(kind, F, freduce::<F>);
                    let mut acc = first;
                    for &(_, v) in rest {
                        let (r, flags) = f(insn.def.op, acc, v, m.frm);
                        acc = r;
                        m.fflags |= flags;
                    }
                    // The format's bits, zero-extended [P].
                    m.gpr[r as usize] = acc;
                    writes.push(WriteEvent {
                        lane: None,
                        target: WriteTarget::Gpr(r),
                        value: acc,
                        width: 64,
                    });
                }
            } else if let Dest::Gpr(r) = insn.dest {
                let (acc, any) = m.reduces[r as usize];
                if any {
                    m.gpr[r as usize] = ext(acc, insn.w, insn.signed);
                    writes.push(WriteEvent {
                        lane: None,
                        target: WriteTarget::Gpr(r),
                        value: m.gpr[r as usize],
                        width: 64,
                    });
                }
            }
        }
        if let Some(t) = m.trace.as_mut() {
            if !writes.is_empty() {
                t.record(&StepRecord {
                    group: None,
                    pc: 0,
                    mask: 0,
                    insn: "block end: reduces commit".into(),
                    writes,
                    mem: Vec::new(),
                    cstk: Vec::new(),
                });
            }
        }
    }
    RunResult {
        mode,
        lanes,
        gpr: m.gpr,
        memory: m.mem.runs(),
        cstk_max_depth: m.cstk_max,
        diagnostics: m.diags,
        dropped_diagnostics: m.dropped,
        error,
        fflags: cstate_fflags(m.fflags),
        group_steps: m.group_steps,
        lane_steps: m.lane_steps,
        groups,
    }
}

fn run_mode(m: &mut Machine, mode: Mode, lanes: u32, n: u64) -> (R<()>, u64) {
    let lb = m.lb;
    let entry = m.prog.entry;
    let ng = n.div_ceil(lanes as u64);
    match mode {
        Mode::Loop => {
            for it in 0..n {
                let mut g = Group::new(
                    it / lanes as u64,
                    (it % lanes as u64) as u32,
                    it,
                    1,
                    n,
                    lb,
                    entry,
                );
                if let Err(e) = m.run_group(&mut g) {
                    return (Err(e), ng);
                }
            }
        }
        Mode::Vect => {
            for gi in 0..ng {
                m.race = Some(RaceTracker::default());
                let mut g = Group::new(gi, 0, gi * lanes as u64, lanes, n, lb, entry);
                if let Err(e) = m.run_group(&mut g) {
                    return (Err(e), ng);
                }
            }
        }
        Mode::Simt => {
            m.race = Some(RaceTracker::default());
            let mut groups: Vec<Group> = (0..ng)
                .map(|gi| Group::new(gi, 0, gi * lanes as u64, lanes, n, lb, entry))
                .collect();
            let mut live: Vec<usize> = (0..groups.len()).collect();
            while !live.is_empty() {
                for &gi in &live {
                    if let Err(e) = m.step(&mut groups[gi]) {
                        return (Err(e), ng);
                    }
                }
                live.retain(|&gi| !groups[gi].done);
            }
        }
    }
    (Ok(()), ng)
}
