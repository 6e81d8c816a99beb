//! What the translation tier knows how to translate: each database variant it handles,
//! reduced to a small operation kind, derived from the database's list of operations
//! (`for_each_op!`) by operation name and form. Everything else (most memory instructions, CSRs,
//! most of floating point, `barrier`, `endpgm`, the rarer bit operations) ends a block and is
//! interpreted, so this table is also the list of translated variants. The 32-bit loads
//! and stores of global and shared memory (`gload.b32`, `gstore.b32`, `dsload.b32`,
//! `dsstore.b32`: word runs, gathers and scatters), the atomics without a returned value
//! whose read-modify-write is one host instruction, the uniform loads `uload.b32` ..
//! `uload.b256` and `waitcnt` are translated in both variants. f32 `fadd fsub fmul ffma`
//! in `rne` or `dyn` and `fmin fmax`, without `sat`, and the f32 compares, run on the host's
//! floating-point unit where the host has AVX-512 (`x64/fp.rs`).

use crate::exec::fp::{Arith, Cond};
use crate::program::Inst;
use warpkit_isa::{AtomicOp, Op};

/// A lane-wise binary operation on two 32-bit operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VBin {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Andn,
    Orn,
    Xnor,
    Mul,
    Sll,
    Srl,
    Sra,
    Rol,
    Ror,
    Min,
    Max,
    Minu,
    Maxu,
    Slt,
    Sltu,
    CzeroEqz,
    CzeroNez,
    /// High half of the signed product.
    Mulh,
    /// High half of the unsigned product.
    Mulhu,
    /// `bfm`: `ones(x & 63) << (y & 31)`.
    Bfm,
}

impl VBin {
    /// The shifts, whose count is the second operand `& 31` (the vector rotates have no
    /// immediate form).
    pub(crate) fn is_shift(self) -> bool {
        matches!(self, VBin::Sll | VBin::Srl | VBin::Sra)
    }
}

/// Where the second operand of a vector operation comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VSrc {
    /// Vector register `rs2`.
    Row,
    /// Uniform register `rs2`, broadcast.
    Ureg,
    /// The immediate, broadcast.
    Imm,
}

/// A lane-wise unary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VUn {
    Mov,
    Not,
    Neg,
    Abs,
    SextB,
    SextH,
    ZextB,
    ZextH,
}

impl VUn {
    /// For the sign and zero extensions, the shift that moves their field to the top of
    /// the word (and back down).
    pub(crate) fn field_shift(self) -> i8 {
        if matches!(self, VUn::SextB | VUn::ZextB) {
            24
        } else {
            16
        }
    }
}

/// A vector compare into a uniform lane mask (`u[rd] = mask & EXEC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VCmp {
    Eq,
    Ne,
    LtS,
    GeS,
    LtU,
    GeU,
    GtS,
    GtU,
}

/// A binary uniform operation, `u[rd] = u[rs1] op (u[rs2] or imm)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SBin {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Andn,
    Orn,
    Xnor,
    Mul,
    Mulh,
    Mulhu,
    Mulhsu,
    Sll,
    Srl,
    Sra,
    Rol,
    Ror,
    Slt,
    Sltu,
    Seq,
    Sne,
    Sge,
    Sgeu,
    Min,
    Max,
    Minu,
    Maxu,
    CzeroEqz,
    CzeroNez,
}

/// A 64-bit uniform operation on the pair `u[rs1..]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum S64 {
    /// `+ u64(rs2)`.
    Add,
    /// `- u64(rs2)`.
    Sub,
    /// `+ sext(u[rs2])`.
    AddSx,
    /// `+ zext(u[rs2])`.
    AddZx,
    /// `+ sext(imm)`.
    AddImm,
    /// The pair itself.
    Mov,
}

/// An EXEC writer; every one ends its block (the next block may run in the other variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExecWrite {
    /// `exec.set`: EXEC = u[rs1].
    Set,
    /// `saveexec.*`: u[rd] = EXEC, then EXEC = f(old EXEC, u[rs1]).
    And,
    Or,
    Xor,
    /// `u[rs1] & !EXEC`.
    Andn1,
    /// `EXEC & !u[rs1]`.
    Andn2,
    Mov,
}

/// A control transfer; every one ends its block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Branch {
    Jmp,
    Jal,
    Bz,
    Bnz,
    Bexecz,
    Bexecnz,
    Bnone,
    Bany,
    Jr,
    Jalr,
}

/// What one translated instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Nop,
    VBin(VBin, VSrc),
    /// `s op x`: the uniform or immediate operand first (`subr`, `sllr`, ...).
    VBinRev(VBin, VSrc),
    VUn(VUn),
    /// The uniform register `rs1` (or, with `imm`, the immediate) in every lane.
    VSplat {
        imm: bool,
    },
    Laneid,
    /// `v[rd] += v[rs1] * v[rs2]`.
    Mac,
    /// `v[rd] += v[rs1] * u[rs2]`.
    MacVu,
    /// `v[rd] = v[rs1] * v[rs2] + v[rs3]`.
    Mad,
    /// `v[rd] = v[rs3] != 0 ? v[rs1] : v[rs2]`.
    Sel,
    /// `v[rd] = (v[rs1] & v[rs2]) | (!v[rs1] & v[rs3])`.
    Bfi,
    /// `v[rd] = bit l of u[rs2] ? v[rs1] : v[rd]`.
    Cndmask,
    /// `bfe.u32`: `(v[rs1] >> (v[rs2] & 31)) & ones(v[rs3] & 63)`.
    BfeU,
    /// 64-bit add (`true`) or subtract of the pairs `v[rs1..]`, `v[rs2..]` into `v[rd..]`.
    Pair64 {
        add: bool,
    },
    VCmp(VCmp, VSrc),
    SBin(SBin, SrcU),
    /// `u[rd] = u[rs1]`, `!u[rs1]`, a sign extension, or EXEC.
    SUn(SUn),
    S64(S64),
    /// `u[rd] = imm`.
    SImm,
    /// `u[rd] = pc + imm`.
    Upc,
    Branch(Branch),
    ExecWrite(ExecWrite),
    /// `gload.b32` (or, `shared`, `dsload.b32`): 32 consecutive aligned words of one
    /// mapped region (of shared memory) read inline into a pending row
    /// ([`super::Direct`]), or the active lanes' aligned words anywhere in one region
    /// gathered into it; anything else leaves the block.
    LoadRow {
        shared: bool,
    },
    /// `gstore.b32` (`dsstore.b32`), on the same terms (the active lanes scattered in lane
    /// order where not a full word run).
    StoreRow {
        shared: bool,
    },
    /// A 32-bit atomic without a returned value, global (`gatomic.add` ..) or `shared`
    /// (`dsatomic.add` ..), on the terms of a scatter: each active lane's read-modify-write
    /// in lane order (a locked host instruction on global memory, which other workgroups'
    /// threads share).
    Atomic {
        shared: bool,
        op: AtomicOp,
    },
    /// `waitcnt`: retires the block's own pending loads and counts down what was pending
    /// before.
    Waitcnt,
    /// `uload.b32` .. `uload.b256`: the 4 to 32 bytes at one aligned address inside one
    /// mapped region read inline into a pending row, written to the uniform registers when
    /// it retires; anything else leaves the block.
    ULoad,
    /// f32 `fadd`/`fsub`/`fmul`/`ffma` (and `fmin`/`fmax`, which do not round) with any
    /// `neg`/`abs`, rounding `rne` or `dyn`, no `sat`: computed under MXCSR in AVX-512 runs only (`x64/fp.rs`); the block it is in
    /// runs only while `mode` lets it ([`fp_needs`]).
    Fp(Arith),
    /// `fcmp.*.f32`: the mask of the active lanes where the compare holds, on the host's
    /// floating-point unit with AVX-512 only, while `mode` neither flushes f32 subnormals
    /// nor enables a trap.
    FCmp(Cond),
}

/// The second operand of a uniform operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SrcU {
    Reg,
    Imm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SUn {
    Mov,
    Not,
    SextB,
    SextH,
    ExecGet,
}

impl Kind {
    /// Whether each group of lanes of the result depends only on the same lanes of the
    /// vector operands (and on uniform registers, which the kind does not write): these
    /// may run quarter by quarter across several instructions.
    pub(crate) fn lane_local(self) -> bool {
        matches!(
            self,
            Kind::Nop
                | Kind::VBin(..)
                | Kind::VBinRev(..)
                | Kind::VUn(_)
                | Kind::VSplat { .. }
                | Kind::Laneid
                | Kind::Mac
                | Kind::MacVu
                | Kind::Mad
                | Kind::Sel
                | Kind::Bfi
                | Kind::Cndmask
                | Kind::BfeU
                | Kind::Pair64 { .. }
                | Kind::Fp(_)
        )
    }

    /// Whether the instruction issues or waits for asynchronous operations: the block
    /// keeps its loads pending ([`super::Direct`]).
    pub(crate) fn asynchronous(self) -> bool {
        matches!(
            self,
            Kind::LoadRow { .. }
                | Kind::StoreRow { .. }
                | Kind::Atomic { .. }
                | Kind::Waitcnt
                | Kind::ULoad
        )
    }

    /// Whether the instruction runs on the host's floating-point unit (translated with
    /// AVX-512 only, in blocks guarded by `mode`: [`fp_needs`]).
    pub(crate) fn float(self) -> bool {
        matches!(self, Kind::Fp(_) | Kind::FCmp(_))
    }

    /// Whether the instruction ends its block (it transfers control).
    pub(crate) fn ends_block(self) -> bool {
        matches!(self, Kind::Branch(_) | Kind::ExecWrite(_))
    }
}

/// The kind of `inst`, or `None` if the translation tier leaves it to the interpreter.
pub(crate) fn classify(inst: &Inst) -> Option<Kind> {
    match inst.code {
        // The lane-operation count of a block is fixed at its start: a vector instruction
        // that wrote EXEC would count the new EXEC's lanes.
        crate::program::Code::Op(op) => kind_of(op).filter(|k| match k {
            Kind::ExecWrite(_) => !inst.vector,
            Kind::Fp(_) | Kind::FCmp(_) => fp_needs(inst, *k).is_some(),
            _ => true,
        }),
        crate::program::Code::Illegal => None,
    }
}

/// What `mode` must allow for a translated f32 instruction of kind `kind`: [`FP_RNE`] (no
/// f32 flushing, no trap enabled), with [`FP_DYN`] too for `rm = dyn` (`mode` rounds in
/// `rne`); `None` where the instruction is interpreted (`sat`, or a static rounding mode
/// other than `rne`: MXCSR holds one rounding mode while translated code runs) and for
/// the kinds that are not floating point.
pub(crate) fn fp_needs(inst: &Inst, kind: Kind) -> Option<u8> {
    use crate::program::packed;
    match kind {
        Kind::Fp(_) => {
            let sat = inst.imm & (1 << packed::SAT) != 0;
            // The `rm` field's values (spec/operands.yaml): `rne` is `mode`'s own
            // encoding of it, 7 is `dyn` (as the interpreter reads it, exec::fp).
            match (inst.imm >> packed::RM) & 7 {
                _ if sat => None,
                rm if rm == crate::state::csr::mode::RM_RNE => Some(FP_RNE),
                7 => Some(FP_RNE | FP_DYN),
                _ => None,
            }
        }
        Kind::FCmp(_) => Some(FP_RNE),
        _ => None,
    }
}

/// In [`fp_needs`] and the entry's `fp` bits: `mode` neither flushes f32 subnormals nor
/// enables a floating-point trap.
pub(crate) const FP_RNE: u8 = 1;
/// In [`fp_needs`] and the entry's `fp` bits: `mode`'s rounding mode is `rne` too.
pub(crate) const FP_DYN: u8 = 2;

/// Whether the translation tier translates `op` (the rest is interpreted). The f32
/// operations ([`wide_only`]) are translated only with AVX-512, and only in the forms
/// [`fp_needs`] accepts.
pub fn translated(op: Op) -> bool {
    kind_of(op).is_some()
}

/// Whether the translation tier translates `op` only where runs use AVX-512 (the f32
/// operations on the host's floating-point unit).
pub fn wide_only(op: Op) -> bool {
    kind_of(op).is_some_and(Kind::float)
}

/// Whether `op` is lane-local: consecutive lane-local instructions of a full-EXEC block
/// run quarter by quarter, their operands kept in host registers.
pub fn lane_local(op: Op) -> bool {
    kind_of(op).is_some_and(Kind::lane_local)
}

/// The kind of each variant, derived from the database's one list of operations
/// (`for_each_op!`): an operation's name says what it does (`vbin!` and its siblings map
/// the names this tier translates), its form where its operands come from.
fn kind_of(op: Op) -> Option<Kind> {
    macro_rules! kinds {
        ($($Op:ident $op:ident $f:tt;)*) => {
            match op {
                $(Op::$Op => kind!(Op::$Op, $op $f),)*
            }
        };
    }
    warpkit_isa::for_each_op!(kinds)
}

/// The translated kind of one form of an operation; `None` (interpreted) for the rest.
macro_rules! kind {
    // Named kinds.
    ($Op:expr, nop $f:tt) => {
        Some(Kind::Nop)
    };
    ($Op:expr, waitcnt $f:tt) => {
        Some(Kind::Waitcnt)
    };
    ($Op:expr, load [v v up _ s24]) => {
        word_run($Op, false).then_some(Kind::LoadRow { shared: false })
    };
    ($Op:expr, store [v v up _ s24]) => {
        word_run($Op, false).then_some(Kind::StoreRow { shared: false })
    };
    ($Op:expr, load [v v _ _ s24]) => {
        word_run($Op, true).then_some(Kind::LoadRow { shared: true })
    };
    ($Op:expr, store [v v _ _ s24]) => {
        word_run($Op, true).then_some(Kind::StoreRow { shared: true })
    };
    ($Op:expr, load $f:tt) => {
        uniform_load($Op).then_some(Kind::ULoad)
    };
    ($Op:expr, atomic [v v up _ s24]) => {
        atomic($Op, false)
    };
    ($Op:expr, atomic [v v _ _ s24]) => {
        atomic($Op, true)
    };
    ($Op:expr, laneid $f:tt) => {
        Some(Kind::Laneid)
    };
    ($Op:expr, fadd [v v v _ _]) => {
        Some(Kind::Fp(Arith::Add))
    };
    ($Op:expr, fsub [v v v _ _]) => {
        Some(Kind::Fp(Arith::Sub))
    };
    ($Op:expr, fmul [v v v _ _]) => {
        Some(Kind::Fp(Arith::Mul))
    };
    ($Op:expr, ffma [v v v v _]) => {
        Some(Kind::Fp(Arith::Fma))
    };
    ($Op:expr, fmin [v v v _ _]) => {
        Some(Kind::Fp(Arith::Min))
    };
    ($Op:expr, fmax [v v v _ _]) => {
        Some(Kind::Fp(Arith::Max))
    };
    ($Op:expr, feq [u v v _ _]) => {
        Some(Kind::FCmp(Cond::Eq))
    };
    ($Op:expr, fne [u v v _ _]) => {
        Some(Kind::FCmp(Cond::Ne))
    };
    ($Op:expr, flt [u v v _ _]) => {
        Some(Kind::FCmp(Cond::Lt))
    };
    ($Op:expr, fle [u v v _ _]) => {
        Some(Kind::FCmp(Cond::Le))
    };
    ($Op:expr, fgt [u v v _ _]) => {
        Some(Kind::FCmp(Cond::Gt))
    };
    ($Op:expr, fge [u v v _ _]) => {
        Some(Kind::FCmp(Cond::Ge))
    };
    ($Op:expr, fo [u v v _ _]) => {
        Some(Kind::FCmp(Cond::Ordered))
    };
    ($Op:expr, fu [u v v _ _]) => {
        Some(Kind::FCmp(Cond::Unordered))
    };
    ($Op:expr, mac [vx v v _ _]) => {
        Some(Kind::Mac)
    };
    ($Op:expr, mac [vx v u _ _]) => {
        Some(Kind::MacVu)
    };
    ($Op:expr, mad $f:tt) => {
        Some(Kind::Mad)
    };
    ($Op:expr, sel $f:tt) => {
        Some(Kind::Sel)
    };
    ($Op:expr, bfi $f:tt) => {
        Some(Kind::Bfi)
    };
    ($Op:expr, cndmask $f:tt) => {
        Some(Kind::Cndmask)
    };
    ($Op:expr, bfe_u $f:tt) => {
        Some(Kind::BfeU)
    };
    ($Op:expr, add64 [vp vp vp _ _]) => {
        Some(Kind::Pair64 { add: true })
    };
    ($Op:expr, sub64 [vp vp vp _ _]) => {
        Some(Kind::Pair64 { add: false })
    };
    ($Op:expr, mov [v u _ _ _]) => {
        Some(Kind::VSplat { imm: false })
    };
    ($Op:expr, mov [v _ _ _ $i:ident]) => {
        Some(Kind::VSplat { imm: true })
    };
    ($Op:expr, mov [u _ _ _ $i:ident]) => {
        Some(Kind::SImm)
    };
    ($Op:expr, upc $f:tt) => {
        Some(Kind::Upc)
    };
    ($Op:expr, exec_get $f:tt) => {
        Some(Kind::SUn(SUn::ExecGet))
    };
    ($Op:expr, add64 [up up up _ _]) => {
        Some(Kind::S64(S64::Add))
    };
    ($Op:expr, sub64 [up up up _ _]) => {
        Some(Kind::S64(S64::Sub))
    };
    ($Op:expr, addsx64 [up up u _ _]) => {
        Some(Kind::S64(S64::AddSx))
    };
    ($Op:expr, addzx64 [up up u _ _]) => {
        Some(Kind::S64(S64::AddZx))
    };
    ($Op:expr, addsx64 [up up _ _ $i:ident]) => {
        Some(Kind::S64(S64::AddImm))
    };
    ($Op:expr, mov64 [up up _ _ _]) => {
        Some(Kind::S64(S64::Mov))
    };
    // Vector binary operations, by where the second operand comes from.
    ($Op:expr, $op:ident [v v v _ _]) => {
        vbin!($op).map(|b| Kind::VBin(b, VSrc::Row))
    };
    ($Op:expr, $op:ident [v v u _ _]) => {
        vbin!($op)
            .map(|b| Kind::VBin(b, VSrc::Ureg))
            .or(vbin_rev!($op).map(|b| Kind::VBinRev(b, VSrc::Ureg)))
    };
    ($Op:expr, $op:ident [v v _ _ $i:ident]) => {
        vbin!($op)
            .map(|b| Kind::VBin(b, VSrc::Imm))
            .or(vbin_rev!($op).map(|b| Kind::VBinRev(b, VSrc::Imm)))
    };
    ($Op:expr, $op:ident [v v _ _ _]) => {
        vun!($op).map(Kind::VUn)
    };
    // Compares into uniform masks.
    ($Op:expr, $op:ident [u v v _ _]) => {
        vcmp!($op).map(|c| Kind::VCmp(c, VSrc::Row))
    };
    ($Op:expr, $op:ident [u v u _ _]) => {
        vcmp!($op).map(|c| Kind::VCmp(c, VSrc::Ureg))
    };
    ($Op:expr, $op:ident [u v _ _ $i:ident]) => {
        vcmp!($op).map(|c| Kind::VCmp(c, VSrc::Imm))
    };
    // Uniform operations.
    ($Op:expr, $op:ident [u u u _ _]) => {
        sbin!($op).map(|b| Kind::SBin(b, SrcU::Reg))
    };
    ($Op:expr, $op:ident [u u _ _ $i:ident]) => {
        sbin!($op)
            .map(|b| Kind::SBin(b, SrcU::Imm))
            .or(branch!($op).map(Kind::Branch))
    };
    ($Op:expr, $op:ident [u u _ _ _]) => {
        sun!($op)
            .map(Kind::SUn)
            .or(exec_write!($op).map(Kind::ExecWrite))
    };
    // Control flow and EXEC writers.
    ($Op:expr, $op:ident $f:tt) => {
        branch!($op)
            .map(Kind::Branch)
            .or(exec_write!($op).map(Kind::ExecWrite))
    };
}
use kind;

/// `gload.b32`/`gstore.b32` (or, `shared`, `dsload.b32`/`dsstore.b32`), the word run's
/// instructions: a 4-byte global access with a uniform base and per-lane offsets (a shared
/// one with per-lane offsets).
fn word_run(op: Op, shared: bool) -> bool {
    let space = if shared {
        warpkit_isa::Addressing::Shared
    } else {
        warpkit_isa::Addressing::Global
    };
    op.def().memory.is_some_and(|m| {
        m.size == 4 && m.address == space && m.part == warpkit_isa::MemoryPart::Whole && !m.signed
    })
}

/// The atomics translated: 32-bit, no returned value, whose read-modify-write is one
/// host instruction (`lock add`, `lock and`, `xchg`, ...).
fn atomic(op: Op, shared: bool) -> Option<Kind> {
    let space = if shared {
        warpkit_isa::Addressing::Shared
    } else {
        warpkit_isa::Addressing::Global
    };
    let m = op.def().memory?;
    let aop = m.atomic?;
    let simple = matches!(
        aop,
        AtomicOp::Add
            | AtomicOp::Sub
            | AtomicOp::And
            | AtomicOp::Or
            | AtomicOp::Xor
            | AtomicOp::Swap
    );
    (m.size == 4 && m.address == space && !m.returns && simple)
        .then_some(Kind::Atomic { shared, op: aop })
}

/// `uload.b32` .. `uload.b256`: a load of 4 to 32 bytes at one uniform address.
fn uniform_load(op: Op) -> bool {
    op.def().memory.is_some_and(|m| {
        m.access == warpkit_isa::MemoryAccess::Load
            && m.address == warpkit_isa::Addressing::Uniform
            && matches!(m.size, 4 | 8 | 16 | 32)
    })
}

/// Maps the names of the operations this tier translates to its own operation types; any
/// other name maps to `None`.
macro_rules! names {
    ($mac:ident: $ty:ident { $($op:ident => $v:ident),* $(,)? }) => {
        macro_rules! $mac {
            $(($op) => { Some($ty::$v) };)*
            ($other:ident) => { None };
        }
        use $mac;
    };
}

names!(vbin: VBin {
    add => Add, sub => Sub, and => And, or => Or, xor => Xor, andn => Andn, orn => Orn,
    xnor => Xnor, mul => Mul, sll => Sll, srl => Srl, sra => Sra, rol => Rol, ror => Ror,
    min => Min, max => Max, minu => Minu, maxu => Maxu, slt => Slt, sltu => Sltu,
    czero_eqz => CzeroEqz, czero_nez => CzeroNez, mulh => Mulh, mulhu => Mulhu, bfm => Bfm,
});
names!(vbin_rev: VBin { subr => Sub, sllr => Sll, srlr => Srl, srar => Sra });
names!(vun: VUn {
    mov => Mov, not => Not, neg => Neg, abs => Abs, sext_b => SextB, sext_h => SextH,
    zext_b => ZextB, zext_h => ZextH,
});
names!(vcmp: VCmp {
    eq => Eq, ne => Ne, lt_s => LtS, ge_s => GeS, lt_u => LtU, ge_u => GeU, gt_s => GtS,
    gt_u => GtU,
});
names!(sbin: SBin {
    add => Add, sub => Sub, and => And, or => Or, xor => Xor, andn => Andn, orn => Orn,
    xnor => Xnor, mul => Mul, mulh => Mulh, mulhu => Mulhu, mulhsu => Mulhsu, sll => Sll,
    srl => Srl, sra => Sra, rol => Rol, ror => Ror, slt => Slt, sltu => Sltu, seq => Seq,
    sne => Sne, sge => Sge, sgeu => Sgeu, min => Min, max => Max, minu => Minu, maxu => Maxu,
    czero_eqz => CzeroEqz, czero_nez => CzeroNez,
});
names!(sun: SUn { mov => Mov, not => Not, sext_b => SextB, sext_h => SextH });
names!(branch: Branch {
    jmp => Jmp, jal => Jal, bz => Bz, bnz => Bnz, bexecz => Bexecz, bexecnz => Bexecnz,
    bnone => Bnone, bany => Bany, jr => Jr, jalr => Jalr,
});
names!(exec_write: ExecWrite {
    exec_set => Set, saveexec_and => And, saveexec_or => Or, saveexec_xor => Xor,
    saveexec_andn1 => Andn1, saveexec_andn2 => Andn2, saveexec_mov => Mov,
});
