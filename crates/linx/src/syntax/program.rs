//! A checked program as the model runs it: the initial state, the block header and the
//! body, each instruction resolved against the table and its operand types.

use crate::diag::Diagnostics;
use crate::tables::InsnDef;
use crate::{Mode, BODY_BASE};
use warpkit_float::Round;

/// A float format of the typed operand suffixes [004].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// `.fd`
    F64,
    /// `.fs`
    F32,
    /// `.fh`
    F16,
    /// `.bf`
    Bf16,
}

/// Where a register operand reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// `t#k` (q = 0), `u#k` (1), `m#k` (2), `n#k` (3); k in 1..=8.
    Queue { q: u8, k: u8 },
    /// A global register R0..R23.
    Gpr(u8),
    /// `lc0..lc2` (per lane).
    Lc(u8),
    /// `lb0..lb2` (uniform).
    Lb(u8),
}

/// A register input, resolved: read the low `bits` bits; `signed` says how it extends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub src: Src,
    pub bits: u32,
    pub signed: bool,
    pub float: Option<FloatKind>,
}

/// Where an instruction's result goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dest {
    None,
    Queue { q: u8, bits: u32 },
    Gpr(u8),
}

/// A memory offset: a register (extended by its suffix) or a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offset {
    None,
    Reg(Read),
    Imm(u64),
}

/// One body instruction, resolved against the table and its operand types.
#[derive(Debug, Clone)]
pub struct Insn {
    pub def: &'static InsnDef,
    /// Register inputs, in the order of the form's syntax (memory: base, then data/value).
    pub srcs: Vec<Read>,
    /// The immediate, cut to the input width (ALU forms), or the byte offset (`jr`,
    /// `addtpc`'s page count).
    pub imm: u64,
    pub offset: Offset,
    pub shift: u32,
    pub dest: Dest,
    /// Input width w.
    pub w: u32,
    /// Signedness of the inputs (rule 3's extension, div/rem, reduces, cvt).
    pub signed: bool,
    /// Output width W.
    pub out_bits: u32,
    /// cvt: output signedness / float format.
    pub out_signed: bool,
    pub out_float: Option<FloatKind>,
    /// `j`/branch target, `b.*` reconvergence point.
    pub target: u64,
    pub rc: u64,
    /// `.ne` on an atomic load, `.rd` on an atomic store.
    pub non_atomic: bool,
    pub store_reduce: bool,
    /// 1-based source line.
    pub line: usize,
    /// The instruction as written (for traces).
    pub text: String,
}

/// A parsed and checked program: initial state, block header and body.
#[derive(Debug, Clone)]
pub struct Program {
    /// The file name given to [`check`](crate::check), used in run-time error reports.
    pub file: String,
    /// The mode of `BSTART.<LOOP|VECT|SIMT>` [003 adj.5]; `--mode` may override it.
    pub mode: Mode,
    /// Group size G (`.lanenum`).
    pub lanes: u32,
    /// ControlStack entries allowed per group before E-CSTKOVF (`.cstk_depth`, default
    /// 256 \[P\]).
    pub cstk_depth: u32,
    /// The rounding mode of float operations, CSTATE.FRM [pub CSTATE.md] (`.frm`, default
    /// rne [P]).
    pub frm: Round,
    /// Initial R0..R23.
    pub gpr: [u64; 24],
    /// `.mem` contents: (address, bytes).
    pub memory: Vec<(u64, Vec<u8>)>,
    /// `B.DIM reg, uimm, ->LBk` for k = 0..2: (register, addend); `None` means LBk = 1.
    pub dims: [Option<(u8, u64)>; 3],
    /// Address where every group starts: the body label named by `B.TEXT`.
    pub entry: u64,
    /// The body instructions in order; instruction i is at `BODY_BASE + 8i` \[P\].
    pub body: Vec<Insn>,
    /// Warnings found by the static checks (the program is still valid).
    pub warnings: Diagnostics,
}

impl Program {
    /// The first address past the body: a `tpc` at or beyond it is E-PCRANGE.
    pub fn body_end(&self) -> u64 {
        BODY_BASE + 8 * self.body.len() as u64
    }

    /// The instruction at `pc`, if `pc` is an 8-aligned body address.
    pub fn insn_at(&self, pc: u64) -> Option<&Insn> {
        if pc < BODY_BASE || !(pc - BODY_BASE).is_multiple_of(8) {
            return None;
        }
        self.body.get(((pc - BODY_BASE) / 8) as usize)
    }
}

/// The low `bits` bits: reads and results at width w keep only these.
pub(crate) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}
