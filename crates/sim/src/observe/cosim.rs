//! Co-simulation: the commit a design under test reports for an instruction, compared with
//! the model's ([`compare`]). Where [`crate::trace_diff`] compares two JSON traces as
//! documents, this compares two [`Commit`]s as records: the first difference, typed
//! ([`Mismatch`]), for the C API (`crates/capi`, docs/cosim.md) and the bindings to report
//! in their own terms.
//!
//! Register writes are matched by register and issuing instruction, not by position, so
//! a design may list them in any order; what the design reports beyond the model's record
//! is a mismatch too (an extra write, an extra memory access or lane).

use crate::observe::trace::{Commit, Written};
use crate::state::access::{LaneAccess, MemAccess, MemKind, MemSpace};
use crate::state::trap::Trap;
use std::fmt;
use warpkit_isa::csr_by_number;

/// A register as writes are matched: its kind and number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    /// A vector register, by number.
    V(u32),
    /// A uniform register, by number.
    U(u32),
    /// EXEC (CSR 0x000).
    Exec,
    /// A CSR other than EXEC, by number.
    Csr(u32),
}

impl Reg {
    /// The register `w` writes.
    pub fn of(w: &Written) -> Reg {
        match w {
            Written::V { reg, .. } => Reg::V(*reg),
            Written::U { reg, .. } => Reg::U(*reg),
            Written::Exec(_) => Reg::Exec,
            Written::Csr { number, .. } => Reg::Csr(*number),
        }
    }

    /// The register or CSR number (0 for EXEC).
    pub fn number(self) -> u32 {
        match self {
            Reg::V(r) | Reg::U(r) | Reg::Csr(r) => r,
            Reg::Exec => 0,
        }
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reg::V(r) => write!(f, "v{r}"),
            Reg::U(r) => write!(f, "u{r}"),
            Reg::Exec => f.write_str("exec"),
            Reg::Csr(n) => match csr_by_number(n) {
                Some(d) => write!(f, "csr {}", d.name),
                None => write!(f, "csr {n:#x}"),
            },
        }
    }
}

/// Which part of the commit differs. Unless said otherwise `expected` and `got` of the
/// [`Mismatch`] are the model's and the design's values of that part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The warp that retired the instruction (`expected`/`got`: the warp indices; the
    /// message names the workgroups).
    Warp,
    /// The instruction's PC (byte offset from CODE_BASE).
    Pc,
    /// The instruction's encoding (the low 32 bits for a 4-byte instruction).
    Encoding,
    /// EXEC when the instruction executed.
    Exec,
    /// Whether the instruction trapped, the cause and whether a handler took it
    /// (`expected`/`got`: 0 for none, else `1 << 40 | cause << 1 | handled`).
    Trap,
    /// One lane of a vector register write (`reg`, `lane`).
    VReg,
    /// The lanes written of a vector register (`expected`/`got`: lane masks; `lane` the
    /// first lane in one and not the other).
    VRegLanes,
    /// The value of a uniform register write (`reg`).
    UReg,
    /// The write of EXEC.
    ExecWrite,
    /// The value written to a CSR other than EXEC (`reg`).
    Csr,
    /// A register the model wrote and the design did not (`expected`: the model's value,
    /// of the lowest lane for a vector register; `got` 0).
    MissingWrite,
    /// A register the design wrote and the model did not (`got`: the design's value).
    ExtraWrite,
    /// The design retired an instruction after the model's launch finished
    /// ([`Mismatch::finished`]; `got` its PC).
    Finished,
    /// How many memory accesses the instruction made.
    MemCount,
    /// A memory access's kind (`expected`/`got`: [`mem_kind_code`]).
    MemKind,
    /// A memory access's address space (`expected`/`got`: [`mem_space_code`]).
    MemSpace,
    /// A memory access's bytes per lane.
    MemSize,
    /// The lanes of a memory access (`expected`/`got`: lane masks, lanes from 32 on left
    /// out; `lane` the first lane in one and not the other).
    MemLanes,
    /// A lane's address (`lane`).
    MemAddr,
    /// A lane's byte enables.
    MemMask,
    /// A word of a lane's data, its enabled bytes only (the message names the word).
    MemData,
    /// A lane's `old` word of an atomic (`expected`/`got`: 0 for none, else
    /// `1 << 32 | old`).
    MemOld,
}

/// The number [`Field::MemKind`] mismatches carry for a kind.
pub const fn mem_kind_code(kind: MemKind) -> u64 {
    match kind {
        MemKind::Load => 0,
        MemKind::Store => 1,
        MemKind::Atomic => 2,
    }
}

/// The number [`Field::MemSpace`] mismatches carry for a space.
pub const fn mem_space_code(space: MemSpace) -> u64 {
    match space {
        MemSpace::Global => 0,
        MemSpace::Shared => 1,
    }
}

/// The first difference between the model's commit and the design's. `Display` gives it
/// as one line of text, without the model's position ([`Mismatch::at`] adds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Which part of the commit differs.
    pub field: Field,
    /// The register write concerned (register fields).
    pub reg: Option<Reg>,
    /// The PC of the instruction that issued the asynchronous write-back concerned; `None`
    /// for the instruction's own writes and for the other fields.
    pub issue_pc: Option<u32>,
    /// The memory access concerned, its index in [`Commit::mem`] (memory fields but
    /// [`Field::MemCount`]).
    pub access: Option<usize>,
    /// The lane concerned, else 0.
    pub lane: u32,
    /// The model's value of that part, encoded as [`Field`] says.
    pub expected: u64,
    /// The design's value of that part, encoded as `expected`.
    pub got: u64,
    /// What the message says beyond the numbers above.
    detail: Detail,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Detail {
    None,
    Warp {
        expected: [u32; 3],
        got: [u32; 3],
    },
    Trap {
        expected: Option<Trap>,
        got_cause: Option<u32>,
    },
    /// The model's access (how the message names it) and, for data, the word.
    Access {
        kind: MemKind,
        space: MemSpace,
        word: usize,
    },
}

impl Mismatch {
    fn new(field: Field, expected: u64, got: u64) -> Mismatch {
        Mismatch {
            field,
            reg: None,
            issue_pc: None,
            access: None,
            lane: 0,
            expected,
            got,
            detail: Detail::None,
        }
    }

    fn write(field: Field, reg: Reg, issue_pc: Option<u32>, lane: u32) -> Mismatch {
        Mismatch {
            reg: Some(reg),
            issue_pc,
            lane,
            ..Mismatch::new(field, 0, 0)
        }
    }

    fn access(field: Field, index: usize, m: &MemAccess, lane: u32) -> Mismatch {
        Mismatch {
            access: Some(index),
            lane,
            detail: Detail::Access {
                kind: m.kind,
                space: m.space,
                word: 0,
            },
            ..Mismatch::new(field, 0, 0)
        }
    }

    fn values(mut self, expected: u64, got: u64) -> Mismatch {
        self.expected = expected;
        self.got = got;
        self
    }

    /// The design retired the instruction at `pc` after the model's launch finished.
    pub fn finished(pc: u32) -> Mismatch {
        Mismatch::new(Field::Finished, 0, pc.into())
    }

    /// The message with where in the model's run it happened, `model` being the model's
    /// commit the design's was compared with.
    pub fn at(&self, model: &Commit) -> String {
        let [x, y, z] = model.workgroup;
        format!(
            "mismatch at pc {:#x} ({}) in workgroup ({x},{y},{z}) warp {} step {}: {self}",
            model.pc, model.asm, model.warp, model.step
        )
    }
}

/// An `old` of a [`Field::MemOld`] mismatch: the word, or `none`.
fn old_text(v: u64) -> String {
    if v == 0 {
        "none".to_string()
    } else {
        format!("{:#x}", v & 0xffff_ffff)
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (e, g) = (self.expected, self.got);
        let reg = || {
            let r = self.reg.map_or_else(String::new, |r| r.to_string());
            match self.issue_pc {
                Some(pc) => format!("{r} (write-back of the instruction at pc {pc:#x})"),
                None => r,
            }
        };
        let access = || match (&self.detail, self.access) {
            (Detail::Access { kind, space, .. }, Some(i)) => {
                let name = format!("{}.{}", kind.name(), space.name());
                if i == 0 {
                    name
                } else {
                    format!("{name} (access {i})")
                }
            }
            _ => "memory access".to_string(),
        };
        let lane = || format!("{} lane {}", access(), self.lane);
        match self.field {
            Field::Warp => match self.detail {
                Detail::Warp {
                    expected: [x, y, z],
                    got: [a, b, c],
                } => write!(
                    f,
                    "warp: expected workgroup ({x},{y},{z}) warp {e}, got workgroup ({a},{b},{c}) warp {g}"
                ),
                _ => write!(f, "warp: expected {e}, got {g}"),
            },
            Field::Pc => write!(f, "pc: expected {e:#x}, got {g:#x}"),
            Field::Encoding => write!(f, "instruction encoding: expected {e:#x}, got {g:#x}"),
            Field::Exec => write!(f, "exec: expected {e:#x}, got {g:#x}"),
            Field::Trap => {
                let (expected, got_cause) = match self.detail {
                    Detail::Trap {
                        expected,
                        got_cause,
                    } => (expected, got_cause),
                    _ => (None, None),
                };
                let got = got_cause.map_or_else(|| "none".to_string(), |c| format!("cause {c}"));
                match expected {
                    Some(t) => write!(
                        f,
                        "trap: expected cause {} (info {:#x}), the design reported {got}",
                        t.cause, t.info
                    ),
                    None => write!(f, "trap: expected none, the design reported {got}"),
                }
            }
            Field::VReg => write!(
                f,
                "{} lane {}: expected {e:#x}, got {g:#x}",
                reg(),
                self.lane
            ),
            Field::VRegLanes => write!(
                f,
                "{}: lanes written: expected {e:#010x}, got {g:#010x}",
                reg()
            ),
            Field::UReg | Field::ExecWrite | Field::Csr => {
                write!(f, "{}: expected {e:#x}, got {g:#x}", reg())
            }
            Field::MissingWrite => write!(
                f,
                "{}: written by the model ({e:#x}), not by the design",
                reg()
            ),
            Field::ExtraWrite => write!(
                f,
                "{}: written by the design ({g:#x}), not by the model",
                reg()
            ),
            Field::Finished => write!(
                f,
                "the design retired the instruction at pc {g:#x} after the model's launch finished"
            ),
            Field::MemCount => write!(f, "memory accesses: expected {e}, got {g}"),
            Field::MemKind => {
                let name = |c| match c {
                    0 => "load".to_string(),
                    1 => "store".to_string(),
                    2 => "atomic".to_string(),
                    c => c.to_string(),
                };
                write!(f, "{}: kind: expected {}, got {}", access(), name(e), name(g))
            }
            Field::MemSpace => {
                let name = |c| match c {
                    0 => "global".to_string(),
                    1 => "shared".to_string(),
                    c => c.to_string(),
                };
                write!(
                    f,
                    "{}: space: expected {}, got {}",
                    access(),
                    name(e),
                    name(g)
                )
            }
            Field::MemSize => write!(f, "{}: size: expected {e}, got {g}", access()),
            Field::MemLanes => write!(
                f,
                "{}: lanes: expected {e:#010x}, got {g:#010x}",
                access()
            ),
            Field::MemAddr => write!(f, "{}: address: expected {e:#x}, got {g:#x}", lane()),
            Field::MemMask => write!(f, "{}: byte mask: expected {e:#x}, got {g:#x}", lane()),
            Field::MemData => {
                let word = match self.detail {
                    Detail::Access { word, .. } => word,
                    _ => 0,
                };
                write!(
                    f,
                    "{} word {word}: data: expected {e:#x}, got {g:#x}",
                    lane()
                )
            }
            Field::MemOld => write!(
                f,
                "{}: old: expected {}, got {}",
                lane(),
                old_text(e),
                old_text(g)
            ),
        }
    }
}

/// Every register write of `c` with its issuing PC: its own (`None`), then the write-backs
/// it retired.
fn writes(c: &Commit) -> impl Iterator<Item = (Option<u32>, &Written)> {
    c.writes.iter().map(|w| (None, w)).chain(
        c.retired
            .iter()
            .flat_map(|(pc, ws)| ws.iter().map(move |w| (Some(*pc), w))),
    )
}

/// The lanes written, as a mask (lanes from 32 on cannot be written and are left out).
fn lane_mask(lanes: &[(u32, u32)]) -> u32 {
    lanes
        .iter()
        .fold(0, |m, &(l, _)| m | 1u32.checked_shl(l).unwrap_or(0))
}

fn lane_value(lanes: &[(u32, u32)], lane: u32) -> Option<u32> {
    lanes.iter().find(|&&(l, _)| l == lane).map(|&(_, x)| x)
}

/// The value a write reports in a missing or extra write: of its lowest lane for a vector
/// register (that lane, or 32 and 0 when it wrote none).
fn first_value(w: &Written) -> (u32, u32) {
    match w {
        Written::V { lanes, .. } => {
            let lane = lane_mask(lanes).trailing_zeros();
            (lane, lane_value(lanes, lane).unwrap_or(0))
        }
        Written::U { value, .. } | Written::Exec(value) | Written::Csr { value, .. } => (0, *value),
    }
}

/// The encoding of a trap in [`Field::Trap`] mismatches.
fn trap_code(trap: Option<(Trap, bool)>) -> u64 {
    trap.map_or(0, |(t, handled)| {
        1 << 40 | u64::from(t.cause) << 1 | u64::from(handled)
    })
}

/// The first difference between `model`, the model's commit of an instruction, and `dut`,
/// the design's, in this order: the warp, PC, encoding, EXEC, trap, each register write of
/// the model (the design's write of the same register from the same instruction: its
/// lanes, then each lane's value), a write only the design made, then the memory accesses
/// (their number, then each: kind, space, size, lanes, and per lane the address, byte
/// mask, data on the enabled bytes and `old`). The step, the disassembly and `ended` are
/// not compared, nor the design's `len`: the model's decides how much of the encoding is
/// the instruction's.
pub fn compare(model: &Commit, dut: &Commit) -> Option<Mismatch> {
    if (model.workgroup, model.warp) != (dut.workgroup, dut.warp) {
        return Some(Mismatch {
            detail: Detail::Warp {
                expected: model.workgroup,
                got: dut.workgroup,
            },
            ..Mismatch::new(Field::Warp, model.warp.into(), dut.warp.into())
        });
    }
    if model.pc != dut.pc {
        return Some(Mismatch::new(Field::Pc, model.pc.into(), dut.pc.into()));
    }
    let mask = if model.len == 8 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    if model.encoding & mask != dut.encoding & mask {
        return Some(Mismatch::new(
            Field::Encoding,
            model.encoding & mask,
            dut.encoding & mask,
        ));
    }
    if model.exec != dut.exec {
        return Some(Mismatch::new(
            Field::Exec,
            model.exec.into(),
            dut.exec.into(),
        ));
    }
    let (model_trap, dut_trap) = (trap_code(model.trap), trap_code(dut.trap));
    if model_trap != dut_trap {
        return Some(Mismatch {
            detail: Detail::Trap {
                expected: model.trap.map(|(t, _)| t),
                got_cause: dut.trap.map(|(t, _)| t.cause),
            },
            ..Mismatch::new(Field::Trap, model_trap, dut_trap)
        });
    }
    if let Some(m) = compare_writes(model, dut) {
        return Some(m);
    }
    compare_mem(&model.mem, &dut.mem)
}

fn compare_writes(model: &Commit, dut: &Commit) -> Option<Mismatch> {
    let key = |pc: Option<u32>, w: &Written| (Reg::of(w), pc);
    for (pc, m) in writes(model) {
        let reg = Reg::of(m);
        let Some((_, d)) = writes(dut).find(|&(p, d)| key(p, d) == (reg, pc)) else {
            let (lane, value) = first_value(m);
            return Some(
                Mismatch::write(Field::MissingWrite, reg, pc, lane).values(value.into(), 0),
            );
        };
        match (m, d) {
            (Written::V { lanes: ml, .. }, Written::V { lanes: dl, .. }) => {
                let (mm, dm) = (lane_mask(ml), lane_mask(dl));
                if mm != dm {
                    return Some(
                        Mismatch::write(Field::VRegLanes, reg, pc, (mm ^ dm).trailing_zeros())
                            .values(mm.into(), dm.into()),
                    );
                }
                for lane in (0..32).filter(|l| (mm >> l) & 1 != 0) {
                    let (e, g) = (lane_value(ml, lane), lane_value(dl, lane));
                    if e != g {
                        return Some(
                            Mismatch::write(Field::VReg, reg, pc, lane)
                                .values(e.unwrap_or(0).into(), g.unwrap_or(0).into()),
                        );
                    }
                }
            }
            _ => {
                let ((_, e), (_, g)) = (first_value(m), first_value(d));
                if e != g {
                    let field = match reg {
                        Reg::U(_) => Field::UReg,
                        Reg::Exec => Field::ExecWrite,
                        _ => Field::Csr,
                    };
                    return Some(Mismatch::write(field, reg, pc, 0).values(e.into(), g.into()));
                }
            }
        }
    }
    let (pc, d) =
        writes(dut).find(|&(p, d)| !writes(model).any(|(q, m)| key(q, m) == key(p, d)))?;
    let (lane, value) = first_value(d);
    Some(Mismatch::write(Field::ExtraWrite, Reg::of(d), pc, lane).values(0, value.into()))
}

/// The lanes of an access, ascending, each once.
fn lane_set(m: &MemAccess) -> Vec<u32> {
    let mut lanes: Vec<u32> = m.lanes.iter().map(|l| l.lane).collect();
    lanes.sort_unstable();
    lanes.dedup();
    lanes
}

fn lanes_mask(lanes: &[u32]) -> u64 {
    lanes
        .iter()
        .fold(0, |m, &l| m | 1u32.checked_shl(l).map_or(0, u64::from))
}

/// The bits of data word `k` whose bytes `mask` enables.
fn enabled(mask: u32, k: usize) -> u32 {
    let nibble = if k < 8 { (mask >> (4 * k)) & 0xf } else { 0 };
    (0..4)
        .filter(|b| (nibble >> b) & 1 != 0)
        .fold(0, |m, b| m | 0xff << (8 * b))
}

fn compare_mem(model: &[MemAccess], dut: &[MemAccess]) -> Option<Mismatch> {
    if model.len() != dut.len() {
        return Some(Mismatch::new(
            Field::MemCount,
            model.len() as u64,
            dut.len() as u64,
        ));
    }
    for (i, (m, d)) in model.iter().zip(dut).enumerate() {
        let at = |field, lane| Mismatch::access(field, i, m, lane);
        if m.kind != d.kind {
            return Some(
                at(Field::MemKind, 0).values(mem_kind_code(m.kind), mem_kind_code(d.kind)),
            );
        }
        if m.space != d.space {
            return Some(
                at(Field::MemSpace, 0).values(mem_space_code(m.space), mem_space_code(d.space)),
            );
        }
        if m.size != d.size {
            return Some(at(Field::MemSize, 0).values(m.size.into(), d.size.into()));
        }
        let (ml, dl) = (lane_set(m), lane_set(d));
        if ml != dl {
            let first = ml
                .iter()
                .filter(|l| !dl.contains(l))
                .chain(dl.iter().filter(|l| !ml.contains(l)))
                .min()
                .copied()
                .unwrap_or(0);
            return Some(at(Field::MemLanes, first).values(lanes_mask(&ml), lanes_mask(&dl)));
        }
        for e in &m.lanes {
            let Some(g) = d.lanes.iter().find(|g| g.lane == e.lane) else {
                continue;
            };
            if let Some(x) = compare_lane(e, g, |field| at(field, e.lane)) {
                return Some(x);
            }
        }
    }
    None
}

fn compare_lane(
    e: &LaneAccess,
    g: &LaneAccess,
    at: impl Fn(Field) -> Mismatch,
) -> Option<Mismatch> {
    if e.addr != g.addr {
        return Some(at(Field::MemAddr).values(e.addr, g.addr));
    }
    if e.mask != g.mask {
        return Some(at(Field::MemMask).values(e.mask.into(), g.mask.into()));
    }
    for k in 0..e.data.len().max(g.data.len()) {
        let bits = enabled(e.mask, k);
        let word = |l: &LaneAccess| l.data.get(k).copied().unwrap_or(0) & bits;
        if word(e) != word(g) {
            let mut x = at(Field::MemData).values(word(e).into(), word(g).into());
            if let Detail::Access { word, .. } = &mut x.detail {
                *word = k;
            }
            return Some(x);
        }
    }
    if e.old != g.old {
        let code = |o: Option<u32>| o.map_or(0, |o| 1 << 32 | u64::from(o));
        return Some(at(Field::MemOld).values(code(e.old), code(g.old)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(base: u32) -> Vec<(u32, u32)> {
        (0..4).map(|l| (l, base + l)).collect()
    }

    fn store() -> MemAccess {
        MemAccess {
            kind: MemKind::Store,
            space: MemSpace::Global,
            size: 4,
            lanes: (0..4)
                .map(|l| LaneAccess::new(l, 0x1000 + 4 * u64::from(l), 4, &[20 + l]))
                .collect(),
        }
    }

    /// `add`-like: v8 and u23 written, v7 retired from the load at 0x3c, a store.
    fn model() -> Commit {
        Commit {
            workgroup: [1, 0, 0],
            warp: 2,
            step: 14,
            pc: 0x48,
            encoding: 0x1234_5678,
            len: 4,
            asm: "add v8, v6, v7".into(),
            exec: 0xf,
            writes: vec![
                Written::V {
                    reg: 8,
                    lanes: lanes(10),
                },
                Written::U { reg: 23, value: 5 },
            ],
            trap: None,
            ended: false,
            retired: vec![(
                0x3c,
                vec![Written::V {
                    reg: 7,
                    lanes: lanes(30),
                }],
            )],
            mem: vec![store()],
        }
    }

    fn check(change: impl FnOnce(&mut Commit)) -> Mismatch {
        let mut dut = model();
        change(&mut dut);
        compare(&model(), &dut).expect("a mismatch")
    }

    #[test]
    fn equal_commits_agree_whatever_the_order_of_writes() {
        let mut dut = model();
        assert_eq!(compare(&model(), &dut), None);
        dut.writes.reverse();
        dut.step = 99;
        dut.asm.clear();
        dut.ended = true;
        // A 4-byte instruction: the high word of the encoding is not the instruction's.
        dut.encoding |= 0xdead << 32;
        assert_eq!(compare(&model(), &dut), None);
    }

    #[test]
    fn position_warp_pc_encoding_and_exec() {
        let m = check(|c| c.workgroup = [0, 1, 0]);
        assert_eq!((m.field, m.expected, m.got), (Field::Warp, 2, 2));
        assert_eq!(
            m.to_string(),
            "warp: expected workgroup (1,0,0) warp 2, got workgroup (0,1,0) warp 2"
        );
        let m = check(|c| c.pc = 0x4c);
        assert_eq!((m.field, m.expected, m.got), (Field::Pc, 0x48, 0x4c));
        assert_eq!(m.to_string(), "pc: expected 0x48, got 0x4c");
        let m = check(|c| c.encoding ^= 2);
        assert_eq!(m.field, Field::Encoding);
        assert_eq!(
            m.to_string(),
            "instruction encoding: expected 0x12345678, got 0x1234567a"
        );
        let m = check(|c| c.exec = 7);
        assert_eq!((m.field, m.expected, m.got), (Field::Exec, 0xf, 7));
        assert_eq!(
            m.at(&model()),
            "mismatch at pc 0x48 (add v8, v6, v7) in workgroup (1,0,0) warp 2 step 14: \
             exec: expected 0xf, got 0x7"
        );
    }

    #[test]
    fn traps_by_cause_and_handling() {
        let trap = |cause| Trap {
            cause,
            pc: 0x48,
            info: 0x20,
        };
        let m = check(|c| c.trap = Some((trap(3), false)));
        assert_eq!((m.field, m.expected, m.got), (Field::Trap, 0, 1 << 40 | 6));
        assert_eq!(
            m.to_string(),
            "trap: expected none, the design reported cause 3"
        );
        let mut trapped = model();
        trapped.trap = Some((trap(9), true));
        let mut dut = trapped.clone();
        dut.trap = Some((trap(9), false));
        let m = compare(&trapped, &dut).unwrap();
        assert_eq!(
            (m.field, m.expected, m.got),
            (Field::Trap, 1 << 40 | 9 << 1 | 1, 1 << 40 | 9 << 1)
        );
        dut.trap = None;
        let m = compare(&trapped, &dut).unwrap();
        assert_eq!(
            m.to_string(),
            "trap: expected cause 9 (info 0x20), the design reported none"
        );
        // Only cause and handling: the trap's PC and info are the model's to say.
        dut.trap = Some((
            Trap {
                pc: 0,
                info: 0,
                ..trap(9)
            },
            true,
        ));
        assert_eq!(compare(&trapped, &dut), None);
    }

    #[test]
    fn register_values_and_lanes() {
        let m = check(|c| {
            c.writes[0] = Written::V {
                reg: 8,
                lanes: vec![(0, 10), (1, 11), (2, 99), (3, 13)],
            }
        });
        assert_eq!(
            (m.field, m.reg, m.lane, m.issue_pc, m.expected, m.got),
            (Field::VReg, Some(Reg::V(8)), 2, None, 12, 99)
        );
        assert_eq!(m.to_string(), "v8 lane 2: expected 0xc, got 0x63");
        let m = check(|c| {
            c.retired[0].1[0] = Written::V {
                reg: 7,
                lanes: vec![(0, 30), (1, 31), (3, 33)],
            }
        });
        assert_eq!(
            (m.field, m.reg, m.lane, m.issue_pc, m.expected, m.got),
            (Field::VRegLanes, Some(Reg::V(7)), 2, Some(0x3c), 0xf, 0xb)
        );
        assert_eq!(
            m.to_string(),
            "v7 (write-back of the instruction at pc 0x3c): lanes written: \
             expected 0x0000000f, got 0x0000000b"
        );
        let m = check(|c| c.writes[1] = Written::U { reg: 23, value: 6 });
        assert_eq!(
            (m.field, m.reg, m.expected, m.got),
            (Field::UReg, Some(Reg::U(23)), 5, 6)
        );
        assert_eq!(m.to_string(), "u23: expected 0x5, got 0x6");

        let mode = csr_by_name_number("mode");
        let mut csr = model();
        csr.writes = vec![
            Written::Exec(3),
            Written::Csr {
                number: mode,
                name: "mode",
                value: 1,
            },
        ];
        let mut dut = csr.clone();
        dut.writes[0] = Written::Exec(1);
        let m = compare(&csr, &dut).unwrap();
        assert_eq!(
            (m.field, m.reg, m.expected, m.got),
            (Field::ExecWrite, Some(Reg::Exec), 3, 1)
        );
        assert_eq!(m.to_string(), "exec: expected 0x3, got 0x1");
        dut = csr.clone();
        dut.writes[1] = Written::Csr {
            number: mode,
            name: "mode",
            value: 2,
        };
        let m = compare(&csr, &dut).unwrap();
        assert_eq!((m.field, m.reg), (Field::Csr, Some(Reg::Csr(mode))));
        assert_eq!(m.to_string(), "csr mode: expected 0x1, got 0x2");
    }

    fn csr_by_name_number(name: &str) -> u32 {
        u32::from(warpkit_isa::csr_by_name(name).unwrap().number)
    }

    #[test]
    fn missing_and_extra_writes() {
        // The write-back is matched by its issuing PC too.
        let m = check(|c| c.retired[0].0 = 0x34);
        assert_eq!(
            (m.field, m.reg, m.lane, m.issue_pc, m.expected, m.got),
            (Field::MissingWrite, Some(Reg::V(7)), 0, Some(0x3c), 30, 0)
        );
        assert_eq!(
            m.to_string(),
            "v7 (write-back of the instruction at pc 0x3c): written by the model (0x1e), \
             not by the design"
        );
        let m = check(|c| c.writes.push(Written::U { reg: 40, value: 9 }));
        assert_eq!(
            (m.field, m.reg, m.issue_pc, m.expected, m.got),
            (Field::ExtraWrite, Some(Reg::U(40)), None, 0, 9)
        );
        assert_eq!(
            m.to_string(),
            "u40: written by the design (0x9), not by the model"
        );
        let m = check(|c| {
            c.writes.push(Written::V {
                reg: 100,
                lanes: vec![(5, 1), (3, 2)],
            })
        });
        assert_eq!((m.field, m.lane, m.got), (Field::ExtraWrite, 3, 2));
    }

    #[test]
    fn a_design_past_the_end() {
        let m = Mismatch::finished(0x20);
        assert_eq!((m.field, m.got), (Field::Finished, 0x20));
        assert_eq!(
            m.to_string(),
            "the design retired the instruction at pc 0x20 after the model's launch finished"
        );
    }

    #[test]
    fn memory_accesses_kind_space_size_and_lanes() {
        let m = check(|c| c.mem.clear());
        assert_eq!((m.field, m.expected, m.got), (Field::MemCount, 1, 0));
        assert_eq!(m.to_string(), "memory accesses: expected 1, got 0");
        let m = check(|c| c.mem[0].kind = MemKind::Load);
        assert_eq!(
            (m.field, m.access, m.expected, m.got),
            (Field::MemKind, Some(0), 1, 0)
        );
        assert_eq!(
            m.to_string(),
            "store.global: kind: expected store, got load"
        );
        let m = check(|c| c.mem[0].space = MemSpace::Shared);
        assert_eq!((m.field, m.expected, m.got), (Field::MemSpace, 0, 1));
        assert_eq!(
            m.to_string(),
            "store.global: space: expected global, got shared"
        );
        let m = check(|c| c.mem[0].size = 2);
        assert_eq!((m.field, m.expected, m.got), (Field::MemSize, 4, 2));
        let m = check(|c| {
            c.mem[0].lanes.remove(1);
        });
        assert_eq!(
            (m.field, m.lane, m.expected, m.got),
            (Field::MemLanes, 1, 0xf, 0xd)
        );
        assert_eq!(
            m.to_string(),
            "store.global: lanes: expected 0x0000000f, got 0x0000000d"
        );
        let m = check(|c| c.mem[0].lanes[3].lane = 9);
        assert_eq!(
            (m.field, m.lane, m.expected, m.got),
            (Field::MemLanes, 3, 0xf, 0x207)
        );
        // The order of the design's lanes does not matter.
        let mut dut = model();
        dut.mem[0].lanes.reverse();
        assert_eq!(compare(&model(), &dut), None);
    }

    #[test]
    fn memory_lanes_address_mask_data_and_old() {
        let m = check(|c| c.mem[0].lanes[2].addr += 4);
        assert_eq!(
            (m.field, m.lane, m.expected, m.got),
            (Field::MemAddr, 2, 0x1008, 0x100c)
        );
        assert_eq!(
            m.to_string(),
            "store.global lane 2: address: expected 0x1008, got 0x100c"
        );
        let m = check(|c| c.mem[0].lanes[1].mask = 3);
        assert_eq!(
            (m.field, m.lane, m.expected, m.got),
            (Field::MemMask, 1, 0xf, 3)
        );
        assert_eq!(
            m.to_string(),
            "store.global lane 1: byte mask: expected 0xf, got 0x3"
        );
        let m = check(|c| c.mem[0].lanes[3].data[0] ^= 0x100);
        assert_eq!(
            (m.field, m.lane, m.expected, m.got),
            (Field::MemData, 3, 23, 0x117)
        );
        assert_eq!(
            m.to_string(),
            "store.global lane 3 word 0: data: expected 0x17, got 0x117"
        );

        // A 2-byte store at byte 2: only bytes 2 and 3 of its word are data; a longer
        // access names the word that differs.
        let mut half = model();
        half.mem[0].size = 2;
        half.mem[0].lanes = vec![LaneAccess::new(0, 0x1002, 2, &[0x2a])];
        let mut dut = half.clone();
        dut.mem[0].lanes[0].data[0] |= 0xffff;
        assert_eq!(compare(&half, &dut), None);
        dut.mem[0].lanes[0].data[0] ^= 1 << 16;
        assert_eq!(compare(&half, &dut).unwrap().field, Field::MemData);
        let mut wide = model();
        wide.mem[0].size = 16;
        wide.mem[0].lanes = vec![LaneAccess::new(0, 0x1000, 16, &[1, 2, 3, 4])];
        let mut dut = wide.clone();
        dut.mem[0].lanes[0].data[2] = 7;
        let m = compare(&wide, &dut).unwrap();
        assert_eq!((m.field, m.expected, m.got), (Field::MemData, 3, 7));
        assert!(m.to_string().contains("lane 0 word 2: data"), "{m}");
        dut.mem[0].lanes[0].data[2] = 3;
        dut.mem[0].lanes[0].data.truncate(3);
        let m = compare(&wide, &dut).unwrap();
        assert_eq!((m.field, m.expected, m.got), (Field::MemData, 4, 0));

        let mut atomic = model();
        atomic.mem[0].kind = MemKind::Atomic;
        atomic.mem[0].lanes[1].old = Some(0x44);
        let mut dut = atomic.clone();
        dut.mem[0].lanes[1].old = None;
        let m = compare(&atomic, &dut).unwrap();
        assert_eq!(
            (m.field, m.lane, m.expected, m.got),
            (Field::MemOld, 1, 1 << 32 | 0x44, 0)
        );
        assert_eq!(
            m.to_string(),
            "atomic.global lane 1: old: expected 0x44, got none"
        );
        dut.mem[0].lanes[1].old = Some(0x45);
        assert_eq!(
            compare(&atomic, &dut).unwrap().to_string(),
            "atomic.global lane 1: old: expected 0x44, got 0x45"
        );
        dut.mem[0].lanes[1].old = Some(0x44);
        dut.mem[0].lanes[0].old = Some(0);
        let m = compare(&atomic, &dut).unwrap();
        assert_eq!((m.lane, m.expected, m.got), (0, 0, 1 << 32));
        assert_eq!(
            m.to_string(),
            "atomic.global lane 0: old: expected none, got 0x0"
        );
    }

    #[test]
    fn register_writes_come_before_memory() {
        let m = check(|c| {
            c.mem.clear();
            c.writes.pop();
        });
        assert_eq!(m.field, Field::MissingWrite);
    }
}
