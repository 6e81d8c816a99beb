//! The measurement: one [`Step`] per executed instruction, in the commit trace's order,
//! fed to a [`Tracker`] that keeps what the steps imply (each warp's register values as
//! far as the run wrote them, its pending asynchronous operations, a branch waiting for
//! its outcome) and counts the bins each step hits. In-process runs and trace files both
//! become steps, so both measure the same coverage.

use super::classes::{
    float_class, register_class, BranchClass, ExecClass, FloatFormat, FLAG_NAMES,
};
use super::model::{Compiled, Feature, Model};
use super::operands::{
    branch_reads_lanes, csr_operand, is_conditional_branch, is_float, is_vector, shapes, Shape,
};
use super::Coverage;
use std::collections::{HashMap, VecDeque};
use warpkit_isa::{decode_word, Latency, Op, COUNTERS};
use warpkit_sim::NUM_COUNTERS;

/// A register write of a step: a vector register's lanes, or a uniform register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegWrite {
    /// Vector register `reg`: `(lane, value)` for each lane written.
    V(u32, Vec<(u32, u32)>),
    /// Uniform register `reg` and its value.
    U(u32, u32),
}

/// What one executed instruction did, as coverage needs it: the fields of a commit-trace
/// record (docs/trace.md) except the disassembly and the memory accesses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Step {
    /// The warp's workgroup.
    pub workgroup: [u32; 3],
    /// The warp's index in its workgroup.
    pub warp: u32,
    /// PC of the instruction.
    pub pc: u32,
    /// Its encoding, `len` bytes little-endian.
    pub encoding: u64,
    /// 4 or 8; 0 for a fetch outside the code.
    pub len: u8,
    /// EXEC when it executed.
    pub exec: u32,
    /// Registers it wrote.
    pub writes: Vec<RegWrite>,
    /// CSRs other than EXEC it wrote: `(number, value)`.
    pub csrs: Vec<(u32, u32)>,
    /// The trap it raised: cause, info, whether a handler took it.
    pub trap: Option<(u32, u32, bool)>,
    /// Whether it ended the warp.
    pub end: bool,
    /// Asynchronous write-backs it retired: the issuing PC and the registers written.
    pub retired: Vec<(u32, Vec<RegWrite>)>,
}

impl Step {
    /// The step of the instruction at `pc` that `warp` just executed, from what the
    /// interpreter recorded (call it from `Hooks::after`): what
    /// [`warpkit_sim::Commit::capture`] records, without the disassembly and the memory
    /// accesses coverage does not read.
    pub fn capture(
        warp: &warpkit_sim::Warp,
        prog: &warpkit_sim::Program,
        pc: u32,
        exec_before: u32,
    ) -> Step {
        let (encoding, len) = prog.encoding(pc);
        let mut s = Step {
            workgroup: warp.id.workgroup,
            warp: warp.id.warp,
            pc,
            encoding,
            len: len as u8,
            exec: exec_before,
            end: warp.status == warpkit_sim::WarpStatus::Ended,
            ..Step::default()
        };
        for op in warp.retired_ops() {
            s.retired.push((op.pc, writeback_writes(&op.writeback)));
        }
        if let Some(t) = warp.last_trap() {
            let handled = !matches!(warp.status, warpkit_sim::WarpStatus::Trapped(_));
            s.trap = Some((t.cause, t.info, handled));
            s.push_csrs(warp);
            return s;
        }
        // A vector write covers the lanes active when it happened: the current EXEC (no
        // instruction writes both a vector register and EXEC).
        let exec = warp.exec();
        let mut rows = warp.written_vregs();
        while rows != 0 {
            let r = rows.trailing_zeros();
            rows &= rows - 1;
            let row = &warp.v[r as usize];
            let lanes: Vec<(u32, u32)> = (0..32u32)
                .filter(|l| (exec >> l) & 1 != 0)
                .map(|l| (l, row[l as usize]))
                .collect();
            if !lanes.is_empty() {
                s.writes.push(RegWrite::V(r, lanes));
            }
        }
        let mut uregs = warp.written_uregs();
        while uregs != 0 {
            let r = uregs.trailing_zeros();
            uregs &= uregs - 1;
            s.writes.push(RegWrite::U(r, warp.u[r as usize]));
        }
        s.push_csrs(warp);
        s
    }

    fn push_csrs(&mut self, warp: &warpkit_sim::Warp) {
        let mut numbers = warp.written_csrs();
        while numbers != 0 {
            let number = numbers.trailing_zeros();
            numbers &= numbers - 1;
            if let Some(value) = warp.csr.get(number) {
                self.csrs.push((number, value));
            }
        }
    }

    /// The step of a commit (what the trace writes for it).
    pub fn from_commit(c: &warpkit_sim::Commit) -> Step {
        let writes = |w: &[warpkit_sim::Written]| -> Vec<RegWrite> {
            w.iter()
                .filter_map(|w| match w {
                    warpkit_sim::Written::V { reg, lanes } => {
                        Some(RegWrite::V(*reg, lanes.clone()))
                    }
                    warpkit_sim::Written::U { reg, value } => Some(RegWrite::U(*reg, *value)),
                    _ => None,
                })
                .collect()
        };
        Step {
            workgroup: c.workgroup,
            warp: c.warp,
            pc: c.pc,
            encoding: c.encoding,
            len: c.len as u8,
            exec: c.exec,
            writes: writes(&c.writes),
            csrs: c
                .writes
                .iter()
                .filter_map(|w| match w {
                    warpkit_sim::Written::Csr { number, value, .. } => Some((*number, *value)),
                    _ => None,
                })
                .collect(),
            trap: c.trap.map(|(t, handled)| (t.cause, t.info, handled)),
            end: c.ended,
            retired: c.retired.iter().map(|(pc, w)| (*pc, writes(w))).collect(),
        }
    }
}

/// The registers an asynchronous write-back writes, as the trace lists them.
fn writeback_writes(wb: &warpkit_sim::Writeback) -> Vec<RegWrite> {
    let mut out = Vec::new();
    match wb {
        warpkit_sim::Writeback::None => {}
        warpkit_sim::Writeback::V {
            first,
            count,
            mask,
            data,
        } => {
            for (k, lanes) in data.iter().enumerate().take(usize::from(*count)) {
                let lanes: Vec<(u32, u32)> = (0..32u32)
                    .filter(|l| (mask >> l) & 1 != 0)
                    .map(|l| (l, lanes[l as usize]))
                    .collect();
                if !lanes.is_empty() {
                    out.push(RegWrite::V(u32::from(*first) + k as u32, lanes));
                }
            }
        }
        warpkit_sim::Writeback::U { first, count, data } => {
            for (k, &value) in data.iter().enumerate().take(usize::from(*count)) {
                out.push(RegWrite::U(u32::from(*first) + k as u32, value));
            }
        }
    }
    out
}

/// An asynchronous operation in flight, as the steps show it.
#[derive(Debug, Clone)]
struct Pending {
    pc: u32,
    op: Op,
    counter: usize,
    vregs: u128,
    uregs: u64,
    /// Its destination operands: syntax index and raw field value.
    dests: Vec<(usize, u32)>,
}

/// A conditional branch whose outcome the warp's next step shows.
#[derive(Debug, Clone, Copy)]
struct Branch {
    op: Op,
    fallthrough: u32,
}

/// What the steps so far tell of one warp.
struct Shadow {
    v: Box<[[u32; 32]; 128]>,
    /// Per vector register, the lanes whose value is known.
    v_known: [u32; 128],
    u: [u32; 64],
    u_known: u64,
    fflags: u32,
    pending: VecDeque<Pending>,
    in_flight: [u32; NUM_COUNTERS],
    branch: Option<Branch>,
}

impl Shadow {
    fn new() -> Box<Shadow> {
        Box::new(Shadow {
            v: Box::new([[0; 32]; 128]),
            v_known: [0; 128],
            u: [0; 64],
            u_known: 0,
            fflags: 0,
            pending: VecDeque::new(),
            in_flight: [0; NUM_COUNTERS],
            branch: None,
        })
    }

    fn apply(&mut self, writes: &[RegWrite]) {
        for w in writes {
            match w {
                RegWrite::V(r, lanes) => {
                    if let Some(row) = self.v.get_mut(*r as usize) {
                        for &(l, value) in lanes {
                            if l < 32 {
                                row[l as usize] = value;
                                self.v_known[*r as usize] |= 1 << l;
                            }
                        }
                    }
                }
                RegWrite::U(r, value) => {
                    if *r < 64 {
                        self.u[*r as usize] = *value;
                        self.u_known |= 1 << r;
                    }
                }
            }
        }
    }

    /// Vector register `r`'s lane `l`, if known.
    fn vlane(&self, r: u32, l: u32) -> Option<u32> {
        let known = self.v_known.get(r as usize)?;
        (known >> l & 1 != 0).then(|| self.v[r as usize][l as usize])
    }

    fn ureg(&self, r: u32) -> Option<u32> {
        (r < 64 && self.u_known >> r & 1 != 0).then(|| self.u[r as usize])
    }
}

/// The registers an operand of `shape` with raw field value `raw` names: first and count.
fn registers(shape: &Shape, raw: u32) -> (u32, u32) {
    match *shape {
        Shape::Register { half: true, .. } => (raw >> 1, 1),
        Shape::Register { regs, .. } => (raw, u32::from(regs)),
        _ => (0, 0),
    }
}

/// A warp: its workgroup and its index in it.
type WarpKey = ([u32; 3], u32);

/// The operand shapes of every instruction, by `Op` index.
fn all_shapes() -> &'static [Vec<Shape>] {
    static SHAPES: std::sync::OnceLock<Vec<Vec<Shape>>> = std::sync::OnceLock::new();
    SHAPES.get_or_init(|| {
        warpkit_isa::ALL_OPS
            .iter()
            .map(|o| shapes(o.def()))
            .collect()
    })
}

/// Counts bins over a sequence of steps.
pub struct Tracker<'m> {
    model: &'m Compiled,
    /// Hits per bin of the model.
    hits: Vec<u64>,
    warps: HashMap<WarpKey, Box<Shadow>>,
    /// The warp of the last step, kept out of `warps`: consecutive steps are mostly of
    /// one warp.
    current: Option<(WarpKey, Box<Shadow>)>,
    features: Vec<Feature>,
}

impl<'m> Tracker<'m> {
    /// A tracker counting the bins of `model`, none hit yet.
    pub fn new(model: &'m Model) -> Tracker<'m> {
        Tracker {
            model: &model.compiled,
            hits: vec![0; model.compiled.bins.len()],
            warps: HashMap::new(),
            current: None,
            features: Vec::new(),
        }
    }

    /// Hits per bin of the model, in model order.
    pub fn hits(&self) -> &[u64] {
        &self.hits
    }

    /// Add another tracker's hits (of the same model) to these.
    pub fn absorb(&mut self, other: &Tracker<'_>) {
        for (a, b) in self.hits.iter_mut().zip(&other.hits) {
            *a += b;
        }
    }

    /// Forget every warp (a launch ended: the next one starts from fresh registers).
    pub fn end_launch(&mut self) {
        self.warps.clear();
        self.current = None;
    }

    /// Forget the warps of workgroup `id` (it ended).
    pub fn end_workgroup(&mut self, id: [u32; 3]) {
        self.warps.retain(|(w, _), _| *w != id);
        if self.current.as_ref().is_some_and(|((w, _), _)| *w == id) {
            self.current = None;
        }
    }

    /// The coverage counted so far, as the coverage of `program`.
    pub fn coverage(&self, model: &Model, program: &str) -> Coverage {
        Coverage::from_hits(model, &self.hits, program)
    }

    fn hit_op(&mut self, op: Op, feature: Feature) {
        if let Some(bins) = self.model.ops[op as usize].features.get(&feature) {
            for &b in bins {
                self.hits[b as usize] += 1;
            }
        }
    }

    fn hit_features(&mut self, op: Op) {
        let mut features = std::mem::take(&mut self.features);
        features.sort_unstable();
        features.dedup();
        for f in features.drain(..) {
            self.hit_op(op, f);
        }
        self.features = features;
    }

    /// Count the bins `step` hits.
    pub fn step(&mut self, step: &Step) {
        let key = (step.workgroup, step.warp);
        let mut shadow = match self.current.take() {
            Some((k, s)) if k == key => s,
            other => {
                if let Some((k, s)) = other {
                    self.warps.insert(k, s);
                }
                self.warps.remove(&key).unwrap_or_else(Shadow::new)
            }
        };
        self.step_warp(step, &mut shadow);
        let stopped = step.end || matches!(step.trap, Some((_, _, false)));
        if !stopped {
            self.current = Some((key, shadow));
        }
    }

    fn step_warp(&mut self, step: &Step, sh: &mut Shadow) {
        if let Some(b) = sh.branch.take() {
            let class = if step.pc == b.fallthrough {
                BranchClass::NotTaken
            } else {
                BranchClass::Taken
            };
            self.hit_op(b.op, Feature::Branch(class));
        }
        let instr = match step.len {
            4 | 8 => decode_word(step.encoding, step.len * 8).ok(),
            _ => None,
        };
        if let Some((cause, info, _)) = step.trap {
            if let Some(bins) = self.model.traps.get(&cause) {
                for &b in bins {
                    self.hits[b as usize] += 1;
                }
            }
            if let Some(i) = &instr {
                self.hit_op(i.op(), Feature::Trap(cause));
                if cause == warpkit_sim::trap::CAUSE_FP_EXCEPTION && is_float(i.def()) {
                    self.features.clear();
                    for (bit, _) in FLAG_NAMES {
                        if info >> bit & 1 != 0 {
                            self.features.push(Feature::Flag(bit));
                        }
                    }
                    self.hit_features(i.op());
                }
            }
            sh.apply(&step.writes);
            return;
        }
        let Some(instr) = instr else {
            sh.apply(&step.writes);
            return;
        };
        let op = instr.op();
        let def = op.def();
        let shapes = &all_shapes()[op as usize];
        let model = self.model;
        let wants = &model.ops[op as usize];
        let want_values = wants.values.iter().any(|&(i, f)| i || f);
        self.features.clear();
        self.features.push(Feature::Executed);
        if is_vector(def) {
            self.features.push(Feature::Exec(ExecClass::of(step.exec)));
        }
        // Read before wait: a source register with a pending write-back.
        let (mut vread, mut uread) = (0u128, 0u64);
        for (i, s) in shapes.iter().enumerate() {
            if let Shape::Register {
                vector, read: true, ..
            } = s
            {
                let (first, n) = registers(s, instr.raw(i));
                for r in first..first + n {
                    if *vector && r < 128 {
                        vread |= 1 << r;
                    } else if !*vector && r < 64 {
                        uread |= 1 << r;
                    }
                }
            }
        }
        if vread != 0 || uread != 0 {
            let hazards: Vec<Op> = sh
                .pending
                .iter()
                .filter(|p| p.vregs & vread != 0 || p.uregs & uread != 0)
                .map(|p| p.op)
                .collect();
            for o in hazards {
                self.hit_op(o, Feature::Hazard);
            }
        }
        // Values of the sources (as far as the run wrote them) and of the immediates.
        if want_values {
            for (i, s) in shapes.iter().enumerate() {
                let (int, float) = wants.values[i];
                if !int && !float {
                    continue;
                }
                match *s {
                    Shape::Register { read: true, .. } => {
                        classify(
                            &mut self.features,
                            sh,
                            s,
                            i,
                            instr.raw(i),
                            step.exec,
                            int,
                            float,
                        );
                    }
                    Shape::Immediate {
                        lo, hi, literal, ..
                    } => {
                        if let warpkit_isa::Operand::Imm(v) = instr.operand(i) {
                            let c = super::classes::immediate_class(v, lo, hi, literal);
                            self.features.push(Feature::Value(i as u8, c));
                        }
                    }
                    _ => {}
                }
            }
        }
        // Branch: its outcome shows at the warp's next step; its lanes' agreement now.
        if is_conditional_branch(def) {
            sh.branch = Some(Branch {
                op,
                fallthrough: step.pc.wrapping_add(u32::from(step.len)),
            });
            if branch_reads_lanes(def) {
                let cond = match shapes
                    .iter()
                    .position(|s| matches!(s, Shape::Register { vector: false, .. }))
                {
                    Some(i) => sh.ureg(instr.raw(i)).map(|u| (u & step.exec, step.exec)),
                    None => Some((step.exec, u32::MAX)),
                };
                if let Some((m, all)) = cond {
                    self.features.push(Feature::Branch(if m == 0 || m == all {
                        BranchClass::Uniform
                    } else {
                        BranchClass::Divergent
                    }));
                }
            }
        }
        if let Some(i) = csr_operand(def) {
            let number = instr.raw(i);
            let reads = shapes
                .iter()
                .any(|s| matches!(s, Shape::Register { write: true, .. }));
            if let Some(bins) = self.model.csrs.get(&(number, !reads)) {
                for &b in bins {
                    self.hits[b as usize] += 1;
                }
            }
        }
        // Asynchronous: at the limit it retires the oldest first (listed in `retired`).
        let counter = match def.latency {
            Latency::Async(c) => Some(usize::from(c)),
            Latency::Fixed(_) => None,
        };
        if let Some(c) = counter {
            let limit = COUNTERS
                .get(c)
                .map_or(u32::MAX, |d| u32::from(d.max_outstanding));
            if sh.in_flight[c] >= limit {
                self.features.push(Feature::CounterFull);
            }
        }
        self.hit_features(op);
        for (pc, writes) in &step.retired {
            sh.apply(writes);
            let Some(k) = sh.pending.iter().position(|p| p.pc == *pc) else {
                continue;
            };
            let Some(p) = sh.pending.remove(k) else {
                continue;
            };
            sh.in_flight[p.counter] = sh.in_flight[p.counter].saturating_sub(1);
            self.result_values(p.op, sh, &p.dests, writes);
        }
        let dests: Vec<(usize, u32)> = shapes
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Shape::Register { write: true, .. }))
            .map(|(i, _)| (i, instr.raw(i)))
            .collect();
        if let Some(c) = counter {
            let (mut vregs, mut uregs) = (0u128, 0u64);
            for (i, s) in shapes.iter().enumerate() {
                if let Shape::Register {
                    vector,
                    write: true,
                    ..
                } = s
                {
                    let (first, n) = registers(s, instr.raw(i));
                    for r in first..first + n {
                        if *vector && r < 128 {
                            vregs |= 1 << r;
                        } else if !*vector && r < 64 {
                            uregs |= 1 << r;
                        }
                    }
                }
            }
            sh.pending.push_back(Pending {
                pc: step.pc,
                op,
                counter: c,
                vregs,
                uregs,
                dests: dests.clone(),
            });
            sh.in_flight[c] += 1;
        }
        sh.apply(&step.writes);
        if want_values && !step.writes.is_empty() {
            self.result_values(op, sh, &dests, &step.writes);
        }
        for &(number, value) in &step.csrs {
            if number == warpkit_sim::csr::num::FFLAGS {
                if csr_operand(def).is_none() && is_float(def) {
                    let new = value & !sh.fflags;
                    // A flag raised again while already set shows no new bit: the
                    // instruction raised some of the flags set.
                    let raised = if new == 0 { value } else { new };
                    self.features.clear();
                    for (bit, _) in FLAG_NAMES {
                        if raised >> bit & 1 != 0 {
                            self.features.push(Feature::Flag(bit));
                        }
                    }
                    self.hit_features(op);
                }
                sh.fflags = value;
            }
        }
    }

    /// Classify the destinations `dests` (syntax index, raw field) of `op` from `writes`
    /// (already applied to `sh`), over the lanes written.
    fn result_values(&mut self, op: Op, sh: &Shadow, dests: &[(usize, u32)], writes: &[RegWrite]) {
        let model = self.model;
        let wants = &model.ops[op as usize];
        if dests.is_empty() || !wants.values.iter().any(|&(i, f)| i || f) {
            return;
        }
        let shapes = &all_shapes()[op as usize];
        self.features.clear();
        for &(i, raw) in dests {
            let s = &shapes[i];
            let Shape::Register { vector, .. } = *s else {
                continue;
            };
            let (int, float) = wants.values[i];
            if !int && !float {
                continue;
            }
            let (first, _) = registers(s, raw);
            let lanes = writes.iter().find_map(|w| match w {
                RegWrite::V(r, lanes) if vector && *r == first => Some(lanes_mask(lanes)),
                RegWrite::U(r, _) if !vector && *r == first => Some(0),
                _ => None,
            });
            if let Some(lanes) = lanes {
                classify(&mut self.features, sh, s, i, raw, lanes, int, float);
            }
        }
        self.hit_features(op);
    }
}

fn lanes_mask(lanes: &[(u32, u32)]) -> u32 {
    lanes
        .iter()
        .fold(0, |m, &(l, _)| m | 1u32.checked_shl(l).unwrap_or(0))
}

/// Push the classes of operand `i` (shape `s`, raw field `raw`) over the lanes in `exec`.
#[allow(clippy::too_many_arguments)]
fn classify(
    out: &mut Vec<Feature>,
    sh: &Shadow,
    s: &Shape,
    i: usize,
    raw: u32,
    exec: u32,
    int: bool,
    float: bool,
) {
    let Shape::Register {
        vector,
        regs,
        half,
        bits,
        float: format,
        ..
    } = *s
    else {
        return;
    };
    let format = format.unwrap_or(match bits {
        16 => FloatFormat::F16,
        64 => FloatFormat::F64,
        _ => FloatFormat::F32,
    });
    // Lanes mostly agree: push each class once.
    let mut seen = 0u32;
    let mut push = |value: u64, bits: u32| {
        let mut add = |c: super::classes::ValueClass| {
            if seen & 1 << c.index() == 0 {
                seen |= 1 << c.index();
                out.push(Feature::Value(i as u8, c));
            }
        };
        if int {
            add(register_class(value, bits));
        }
        if float && format.bits() == bits {
            add(float_class(value, format));
        }
    };
    let (first, _) = registers(s, raw);
    let high_half = half && raw & 1 != 0;
    let word = |l: Option<u32>, r: u32| -> Option<u32> {
        match l {
            Some(l) => sh.vlane(r, l),
            None => sh.ureg(r),
        }
    };
    let lanes = (0..32u32)
        .filter(|l| vector && exec >> l & 1 != 0)
        .map(Some)
        .chain((!vector).then_some(None));
    for lane in lanes {
        if half {
            if let Some(w) = word(lane, first) {
                let h = if high_half { w >> 16 } else { w & 0xffff };
                push(u64::from(h), 16);
            }
        } else if regs == 2 {
            if let (Some(lo), Some(hi)) = (word(lane, first), word(lane, first + 1)) {
                push(u64::from(lo) | u64::from(hi) << 32, 64);
            }
        } else {
            for r in first..first + u32::from(regs) {
                if let Some(w) = word(lane, r) {
                    push(u64::from(w), 32);
                }
            }
        }
    }
}
