//! Machine IR: warpkit instructions over virtual registers, in basic blocks with block
//! parameters (the form `regalloc2` allocates), before registers are assigned.
//!
//! Register classes: a virtual register lives in one of four classes — one uniform
//! register (`U`), an even uniform pair (`UPair`), one vector register (`V`), an even
//! vector pair (`VPair`). Lane masks (compare results, saved EXEC values) are `U`.

use crate::source::Span;
use warpkit_isa::Op;

/// A virtual register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

/// Index of a block in [`MFunc::blocks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// The register class of a virtual register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RClass {
    /// One uniform register.
    U,
    /// An even-aligned uniform pair `u[2n:2n+1]` (64-bit uniform values, addresses).
    UPair,
    /// One vector register (per lane 32 bits; an `f16` in its low half).
    V,
    /// An even-aligned vector pair `v[2n:2n+1]`.
    VPair,
}

impl RClass {
    /// Whether the class is in the vector register file.
    pub fn is_vector(self) -> bool {
        matches!(self, RClass::V | RClass::VPair)
    }

    /// Whether values of the class are 64-bit pairs.
    pub fn is_pair(self) -> bool {
        matches!(self, RClass::UPair | RClass::VPair)
    }
}

/// One operand of a machine instruction.
#[derive(Debug, Clone, PartialEq)]
pub enum MOp {
    /// A register the instruction writes.
    Def(VReg),
    /// A register the instruction reads.
    Use(VReg),
    /// A register the instruction writes in place of `old`: it gets `old`'s physical
    /// register, and lanes (or bits) the instruction does not write keep `old`'s value.
    /// Used for read-modify-write operands (`mac`'s `v*`, `cndmask`, returning atomics)
    /// and for EXEC-masked writes that merge into an existing value (results of divergent
    /// regions).
    Tied {
        /// The new value.
        def: VReg,
        /// The value it is merged into.
        old: VReg,
    },
    /// One half of a pair the instruction reads (`v[64:65]`'s high half is `v65`).
    UseHalf {
        /// The pair.
        pair: VReg,
        /// The high (odd) register rather than the low one.
        high: bool,
    },
    /// The instruction writes one half of `old`'s register, giving the pair `def` (the
    /// other half keeps `old`'s value): a pair built half by half.
    TiedHalf {
        /// The new pair value.
        def: VReg,
        /// The pair it is written into.
        old: VReg,
        /// The high (odd) register rather than the low one.
        high: bool,
    },
    /// An immediate (signed or unsigned per the operand type; printed in decimal).
    Imm(i64),
    /// A 32-bit literal (`k32`), printed in hex.
    Lit(u32),
    /// A branch target.
    Label(BlockId),
    /// A `.data` label (for `upca`).
    Sym(String),
    /// A CSR by name.
    Csr(&'static str),
    /// A keyed operand (`waitcnt`'s `vm=0`), printed as `key=value`.
    Key(&'static str, u32),
    /// An enum operand written as `rm=rtz`.
    Rm(&'static str),
    /// An optional operand left at its default (omitted from the text).
    Omit,
}

/// What a machine instruction is.
#[derive(Debug, Clone, PartialEq)]
pub enum MKind {
    /// A warpkit instruction; `ops` follow the database's operand order (omitted optional
    /// operands and modifiers as [`MOp::Omit`]).
    Isa(Op),
    /// `ops = [Def(dst), Use(src)]`: a copy within one class (`mov`, `umov`, `mov64`,
    /// `umov64`; nothing when both get one register).
    Copy,
    /// `ops = [Tied{def, old}, Use(src)]`: an EXEC-masked copy of `src` into `old`'s
    /// register (`src` may be `U` when `def` is `V`: `mov.vu`).
    TiedCopy,
    /// `ops = [Def(dst)]`: `dst` holds no meaningful value yet (a value that a divergent
    /// region will define lane by lane); no code.
    ImplicitDef,
    /// The kernel's first instruction: `ops = [Def(..)...]`, each fixed to the register the
    /// dispatch ABI puts it in ([`MFunc::entry_regs`]); no code.
    Entry,
    /// `ops = [Def(pair), Use(lo), Use(hi)]`: two registers into a pair (two moves).
    MakePair,
    /// `ops = [Def(pair)]`: a 64-bit constant, each half written with an immediate.
    PairConst(u64),
    /// `ops = [Def(dst), Use(pair)]`: the low (`Lo`) or high (`Hi`) half of a pair (a move).
    Half(bool),
    /// Unconditional branch to `target` passing `args` to its parameters; nothing is
    /// emitted when the target follows in layout.
    Jump {
        /// The successor.
        target: BlockId,
        /// Values for its parameters.
        args: Vec<VReg>,
    },
    /// Conditional branch (`bz`, `bnz`, `bexecz`, `bexecnz`; `ops` = `[Use(cond)]` or
    /// empty) to `taken`, else to `fall`, which must follow in layout. Neither successor
    /// takes parameters.
    Branch {
        /// The instruction.
        op: Op,
        /// The target when the condition holds.
        taken: BlockId,
        /// The next block in layout.
        fall: BlockId,
    },
    /// `endpgm`: the end of the kernel.
    End,
}

/// One machine instruction.
#[derive(Debug, Clone)]
pub struct MInst {
    /// What it is.
    pub kind: MKind,
    /// Its operands.
    pub ops: Vec<MOp>,
    /// The source it implements (for `.loc`).
    pub span: Span,
    /// Whether EXEC is the launch mask when the instruction executes (outside every
    /// divergent region): register moves the allocator inserts here need no EXEC change.
    pub full_exec: bool,
}

impl MInst {
    /// Whether this instruction ends its block.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self.kind,
            MKind::Jump { .. } | MKind::Branch { .. } | MKind::End
        )
    }

    /// The successors named by a terminator.
    pub fn successors(&self) -> Vec<BlockId> {
        match &self.kind {
            MKind::Jump { target, .. } => vec![*target],
            MKind::Branch { taken, fall, .. } => vec![*taken, *fall],
            _ => Vec::new(),
        }
    }
}

/// A basic block.
#[derive(Debug, Clone, Default)]
pub struct MBlock {
    /// Parameters (phis), defined on entry by the predecessors' `Jump` arguments.
    pub params: Vec<VReg>,
    /// The instructions; the last is a terminator.
    pub insts: Vec<MInst>,
}

/// A kernel in machine IR.
#[derive(Debug, Clone)]
pub struct MFunc {
    /// The blocks; block 0 is the entry.
    pub blocks: Vec<MBlock>,
    /// The order blocks are laid out in (each block once; a conditional branch's
    /// fall-through successor follows it).
    pub layout: Vec<BlockId>,
    /// The class of every virtual register.
    pub classes: Vec<RClass>,
    /// For the [`MKind::Entry`] defs: the physical register each starts in (a pair by its
    /// first register).
    pub entry_regs: Vec<(VReg, u8)>,
}

impl MFunc {
    /// An empty function with one (entry) block.
    pub fn new() -> MFunc {
        MFunc {
            blocks: vec![MBlock::default()],
            layout: vec![BlockId(0)],
            classes: Vec::new(),
            entry_regs: Vec::new(),
        }
    }

    /// A new virtual register of class `class`.
    pub fn vreg(&mut self, class: RClass) -> VReg {
        self.classes.push(class);
        VReg(self.classes.len() as u32 - 1)
    }

    /// The class of `v`.
    pub fn class(&self, v: VReg) -> RClass {
        self.classes[v.0 as usize]
    }

    /// A new empty block, not yet placed in the layout.
    pub fn block(&mut self) -> BlockId {
        self.blocks.push(MBlock::default());
        BlockId(self.blocks.len() as u32 - 1)
    }

    /// Append `b` to the layout.
    pub fn place(&mut self, b: BlockId) {
        self.layout.push(b);
    }
}

impl Default for MFunc {
    fn default() -> Self {
        MFunc::new()
    }
}
