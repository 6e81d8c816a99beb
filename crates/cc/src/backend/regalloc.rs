//! Register allocation with `regalloc2`, once per register file.
//!
//! The uniform and the vector files are independent, so each is allocated by its own run
//! over the same machine IR, seeing only its own operands. Within a file, singles and even
//! pairs are separate `regalloc2` classes over disjoint parts of the file (the allocator
//! knows no aliasing):
//!
//! | file | class | registers |
//! |---|---|---|
//! | `u` | singles (`Int`) | `u2`..`u29` (`u0`/`u1` are the argument pair, `u30`/`u31` the back end's own) |
//! | `u` | pairs (`Float`) | `u[0:1]`, `u[32:33]`..`u[62:63]` |
//! | `v` | singles (`Float`) | `v0`..`v63` |
//! | `v` | pairs (`Vector`) | `v[64:65]`..`v[126:127]` |
//!
//! When vector values are spilled, `v63` (4 × lane) and `u[62:63]` (the scratch base) are
//! taken out of allocation and the run is repeated.

use super::mir::{BlockId, MFunc, MKind, MOp, RClass, VReg};
use regalloc2::{
    Allocation, Block, Edit, Inst, InstRange, MachineEnv, Operand, PReg, PRegSet, ProgPoint,
    RegClass, RegallocOptions,
};

/// A physical register: its class and its (first) register number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Phys {
    /// Single or pair, uniform or vector.
    pub class: RClass,
    /// The register number (`v[64:65]` is 64).
    pub num: u8,
}

/// Where an allocator-inserted move reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    /// A register.
    Reg(Phys),
    /// Spill slot `n` of a vector class (4-byte units per lane).
    Slot(RClass, u32),
}

/// The register file a run allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum File {
    U,
    V,
}

impl File {
    fn of(class: RClass) -> File {
        if class.is_vector() {
            File::V
        } else {
            File::U
        }
    }
}

/// Registers the allocator must not use.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reserved {
    /// Keep `v63` and `u[62:63]` for spill addressing.
    pub spill: bool,
    /// Keep `v62` too: uniform spills pass through it.
    pub uniform_spill: bool,
}

fn ra_class(class: RClass) -> RegClass {
    match class {
        RClass::U => RegClass::Int,
        RClass::UPair => RegClass::Float,
        RClass::V => RegClass::Float,
        RClass::VPair => RegClass::Vector,
    }
}

fn class_of(file: File, rc: RegClass) -> RClass {
    match (file, rc) {
        (File::U, RegClass::Int) => RClass::U,
        (File::U, _) => RClass::UPair,
        (File::V, RegClass::Vector) => RClass::VPair,
        (File::V, _) => RClass::V,
    }
}

/// The physical register of `preg` in `file`.
fn phys(file: File, preg: PReg) -> Phys {
    let class = class_of(file, preg.class());
    let k = preg.hw_enc() as u8;
    let num = match class {
        RClass::U | RClass::V => k,
        RClass::UPair => {
            if k == 0 {
                0
            } else {
                30 + 2 * k
            }
        }
        RClass::VPair => 64 + 2 * k,
    };
    Phys { class, num }
}

/// The `PReg` of physical register `num` of `class`.
pub fn preg_of(class: RClass, num: u8) -> PReg {
    let (hw, rc) = match class {
        RClass::U => (num, RegClass::Int),
        RClass::UPair => (if num == 0 { 0 } else { (num - 30) / 2 }, RegClass::Float),
        RClass::V => (num, RegClass::Float),
        RClass::VPair => ((num - 64) / 2, RegClass::Vector),
    };
    PReg::new(usize::from(hw), rc)
}

fn env(file: File, reserved: Reserved) -> MachineEnv {
    let mut preferred = [PRegSet::empty(), PRegSet::empty(), PRegSet::empty()];
    match file {
        File::U => {
            for n in 2..=29u8 {
                preferred[0].add(preg_of(RClass::U, n));
            }
            let top = if reserved.spill { 60 } else { 62 };
            preferred[1].add(preg_of(RClass::UPair, 0));
            for n in (32..=top).step_by(2) {
                preferred[1].add(preg_of(RClass::UPair, n));
            }
        }
        File::V => {
            let top = if reserved.uniform_spill {
                61
            } else if reserved.spill {
                62
            } else {
                63
            };
            for n in 0..=top {
                preferred[1].add(preg_of(RClass::V, n));
            }
            for n in (64..=126u8).step_by(2) {
                preferred[2].add(preg_of(RClass::VPair, n));
            }
        }
    }
    MachineEnv {
        preferred_regs_by_class: preferred,
        non_preferred_regs_by_class: [PRegSet::empty(), PRegSet::empty(), PRegSet::empty()],
        scratch_by_class: [None, None, None],
        fixed_stack_slots: Vec::new(),
    }
}

/// The allocator's view of a machine function restricted to one register file.
struct View<'a> {
    file: File,
    m: &'a MFunc,
    /// Flattened instructions: (block, index in block).
    insts: Vec<(BlockId, usize)>,
    ranges: Vec<InstRange>,
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
    params: Vec<Vec<regalloc2::VReg>>,
    operands: Vec<Vec<Operand>>,
    /// For each flattened instruction and operand: the `MOp` index it came from.
    operand_mop: Vec<Vec<usize>>,
    branch_args: Vec<Vec<regalloc2::VReg>>,
}

fn rv(m: &MFunc, v: VReg) -> regalloc2::VReg {
    regalloc2::VReg::new(v.0 as usize, ra_class(m.class(v)))
}

impl<'a> View<'a> {
    fn new(m: &'a MFunc, file: File) -> View<'a> {
        let n = m.blocks.len();
        let mut insts = Vec::new();
        let mut ranges = Vec::new();
        let mut operands = Vec::new();
        let mut operand_mop = Vec::new();
        let mut branch_args = Vec::new();
        let mut succs = vec![Vec::new(); n];
        let mut preds = vec![Vec::new(); n];
        let in_file = |v: VReg| File::of(m.class(v)) == file;
        for (b, block) in m.blocks.iter().enumerate() {
            let start = insts.len();
            for (i, inst) in block.insts.iter().enumerate() {
                insts.push((BlockId(b as u32), i));
                let mut ops = Vec::new();
                let mut map = Vec::new();
                match &inst.kind {
                    MKind::Entry => {
                        for (j, op) in inst.ops.iter().enumerate() {
                            if let MOp::Def(v) = op {
                                if in_file(*v) {
                                    let num = m
                                        .entry_regs
                                        .iter()
                                        .find(|(r, _)| r == v)
                                        .map(|&(_, n)| n)
                                        .expect("entry register");
                                    ops.push(Operand::reg_fixed_def(
                                        rv(m, *v),
                                        preg_of(m.class(*v), num),
                                    ));
                                    map.push(j);
                                }
                            }
                        }
                    }
                    kind => {
                        let early_defs = matches!(kind, MKind::MakePair);
                        // Uses first, so that tied defs can name their input's index.
                        for (j, op) in inst.ops.iter().enumerate() {
                            match op {
                                MOp::Use(v) if in_file(*v) => {
                                    ops.push(Operand::reg_use(rv(m, *v)));
                                    map.push(j);
                                }
                                MOp::Tied { old, .. } | MOp::TiedHalf { old, .. }
                                    if in_file(*old) =>
                                {
                                    ops.push(Operand::reg_use(rv(m, *old)));
                                    map.push(j);
                                }
                                MOp::UseHalf { pair, .. } if in_file(*pair) => {
                                    ops.push(Operand::reg_use(rv(m, *pair)));
                                    map.push(j);
                                }
                                _ => {}
                            }
                        }
                        for (j, op) in inst.ops.iter().enumerate() {
                            match op {
                                MOp::Def(v) if in_file(*v) => {
                                    ops.push(if early_defs {
                                        Operand::reg_def_at_start(rv(m, *v))
                                    } else {
                                        Operand::reg_def(rv(m, *v))
                                    });
                                    map.push(j);
                                }
                                MOp::Tied { def, .. } | MOp::TiedHalf { def, .. }
                                    if in_file(*def) =>
                                {
                                    let k = map.iter().position(|&x| x == j).expect("tied input");
                                    ops.push(Operand::reg_reuse_def(rv(m, *def), k));
                                    map.push(j);
                                }
                                _ => {}
                            }
                        }
                    }
                }
                operands.push(ops);
                operand_mop.push(map);
                let args = match &inst.kind {
                    MKind::Jump { args, .. } => args
                        .iter()
                        .filter(|&&v| in_file(v))
                        .map(|&v| rv(m, v))
                        .collect(),
                    _ => Vec::new(),
                };
                branch_args.push(args);
                if inst.is_terminator() {
                    for s in inst.successors() {
                        succs[b].push(Block::new(s.0 as usize));
                        preds[s.0 as usize].push(Block::new(b));
                    }
                }
            }
            ranges.push(InstRange::new(Inst::new(start), Inst::new(insts.len())));
        }
        let params = m
            .blocks
            .iter()
            .map(|b| {
                b.params
                    .iter()
                    .filter(|&&v| in_file(v))
                    .map(|&v| rv(m, v))
                    .collect()
            })
            .collect();
        View {
            file,
            m,
            insts,
            ranges,
            succs,
            preds,
            params,
            operands,
            operand_mop,
            branch_args,
        }
    }

    fn inst(&self, i: Inst) -> &super::mir::MInst {
        let (b, k) = self.insts[i.index()];
        &self.m.blocks[b.0 as usize].insts[k]
    }
}

impl regalloc2::Function for View<'_> {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }
    fn num_blocks(&self) -> usize {
        self.m.blocks.len()
    }
    fn entry_block(&self) -> Block {
        Block::new(0)
    }
    fn block_insns(&self, block: Block) -> InstRange {
        self.ranges[block.index()]
    }
    fn block_succs(&self, block: Block) -> &[Block] {
        &self.succs[block.index()]
    }
    fn block_preds(&self, block: Block) -> &[Block] {
        &self.preds[block.index()]
    }
    fn block_params(&self, block: Block) -> &[regalloc2::VReg] {
        &self.params[block.index()]
    }
    fn is_ret(&self, insn: Inst) -> bool {
        matches!(self.inst(insn).kind, MKind::End)
    }
    fn is_branch(&self, insn: Inst) -> bool {
        matches!(
            self.inst(insn).kind,
            MKind::Jump { .. } | MKind::Branch { .. }
        )
    }
    fn branch_blockparams(
        &self,
        _block: Block,
        insn: Inst,
        _succ_idx: usize,
    ) -> &[regalloc2::VReg] {
        &self.branch_args[insn.index()]
    }
    fn inst_operands(&self, insn: Inst) -> &[Operand] {
        &self.operands[insn.index()]
    }
    fn inst_clobbers(&self, _insn: Inst) -> PRegSet {
        PRegSet::empty()
    }
    fn num_vregs(&self) -> usize {
        self.m.classes.len()
    }
    fn spillslot_size(&self, regclass: RegClass) -> usize {
        match class_of(self.file, regclass) {
            RClass::U | RClass::V => 1,
            RClass::UPair | RClass::VPair => 2,
        }
    }
}

/// Where every register operand of every instruction went, and the moves to insert.
#[derive(Debug, Default)]
pub struct Assignment {
    /// Per block, per instruction, per operand index: the register of a register operand.
    pub regs: Vec<Vec<Vec<Option<Phys>>>>,
    /// Moves to insert: `(block, index of the instruction, after it?)` → moves in order.
    pub moves: Vec<(BlockId, usize, bool, Loc, Loc)>,
    /// Vector spill slots used (4-byte units per lane).
    pub vector_slots: u32,
    /// Uniform spill slots used (4-byte units).
    pub uniform_slots: u32,
}

/// Why allocation failed (a back-end bug: the input was not what regalloc2 accepts).
#[derive(Debug, thiserror::Error)]
#[error("register allocation failed: {0}")]
pub struct AllocError(String);

/// Allocate both files of `m`.
pub fn allocate(m: &MFunc, reserved: Reserved) -> Result<Assignment, AllocError> {
    let mut out = Assignment {
        regs: m
            .blocks
            .iter()
            .map(|b| b.insts.iter().map(|i| vec![None; i.ops.len()]).collect())
            .collect(),
        ..Assignment::default()
    };
    let options = RegallocOptions {
        verbose_log: false,
        validate_ssa: cfg!(debug_assertions),
        algorithm: regalloc2::Algorithm::Ion,
    };
    for file in [File::U, File::V] {
        let view = View::new(m, file);
        let result = regalloc2::run(&view, &env(file, reserved), &options)
            .map_err(|e| AllocError(format!("{e:?}")))?;
        for i in 0..view.insts.len() {
            let (b, k) = view.insts[i];
            let allocs = result.inst_allocs(Inst::new(i));
            for (n, alloc) in allocs.iter().enumerate() {
                let j = view.operand_mop[i][n];
                if let Some(preg) = alloc.as_reg() {
                    out.regs[b.0 as usize][k][j] = Some(phys(file, preg));
                } else if alloc.is_stack() {
                    return Err(AllocError("an operand was left in a spill slot".into()));
                }
            }
        }
        match file {
            File::U => out.uniform_slots = result.num_spillslots as u32,
            File::V => out.vector_slots = result.num_spillslots as u32,
        }
        for (point, edit) in &result.edits {
            let Edit::Move { from, to } = edit;
            let (from, to) = (loc(file, *from), loc(file, *to));
            let (b, k) = view.insts[point.inst().index()];
            let after = point.pos() == regalloc2::InstPosition::After;
            out.moves.push((b, k, after, from, to));
        }
        let _ = ProgPoint::before(Inst::new(0));
    }
    Ok(out)
}

fn loc(file: File, a: Allocation) -> Loc {
    if let Some(preg) = a.as_reg() {
        Loc::Reg(phys(file, preg))
    } else {
        let slot = a.as_stack().expect("register or stack");
        // Slot classes are only known through the moves' other side; vector slots are the
        // only kind the back end supports (uniform spills retry instead).
        Loc::Slot(
            if file == File::V {
                RClass::V
            } else {
                RClass::U
            },
            slot.index() as u32,
        )
    }
}
