//! What the translation tier knows how to translate: each database variant it handles,
//! reduced to a small operation kind. Everything else (most memory instructions, CSRs,
//! floating point, `barrier`, `endpgm`, the rarer bit operations) ends a block and is
//! interpreted, so this table is also the list of translated variants. `gload.b32`,
//! `gstore.b32` and `waitcnt` are translated in full-EXEC blocks only.

use crate::program::Inst;
use warpkit_isa::Op;

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
    /// `gload.b32`, full variant only: 32 consecutive aligned words of one mapped region
    /// read inline into a pending row ([`super::Direct`]); anything else leaves the block.
    LoadRow,
    /// `gstore.b32`, full variant only, on the same terms.
    StoreRow,
    /// `waitcnt`, full variant only: retires the block's own pending loads and counts down
    /// what was pending before.
    Waitcnt,
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
        )
    }

    /// Whether the instruction issues or waits for asynchronous operations: translated in
    /// the full variant only, where the block keeps its loads pending ([`super::Direct`]).
    pub(crate) fn asynchronous(self) -> bool {
        matches!(self, Kind::LoadRow | Kind::StoreRow | Kind::Waitcnt)
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
        crate::program::Code::Op(op) => {
            kind_of(op).filter(|k| !(inst.vector && matches!(k, Kind::ExecWrite(_))))
        }
        crate::program::Code::Illegal => None,
    }
}

/// Whether the translation tier translates `op` (the rest is interpreted).
pub fn translated(op: Op) -> bool {
    kind_of(op).is_some()
}

/// Whether `op` is lane-local: consecutive lane-local instructions of a full-EXEC block
/// run quarter by quarter, their operands kept in host registers.
pub fn lane_local(op: Op) -> bool {
    kind_of(op).is_some_and(Kind::lane_local)
}

fn kind_of(op: Op) -> Option<Kind> {
    use Kind as K;
    use VSrc::{Imm, Row, Ureg};
    Some(match op {
        Op::Nop => K::Nop,
        Op::GloadB32 => K::LoadRow,
        Op::GstoreB32 => K::StoreRow,
        Op::Waitcnt => K::Waitcnt,
        // ---- VALU binary ----
        Op::Add => K::VBin(VBin::Add, Row),
        Op::AddVu => K::VBin(VBin::Add, Ureg),
        Op::AddVi | Op::AddVl => K::VBin(VBin::Add, Imm),
        Op::Sub => K::VBin(VBin::Sub, Row),
        Op::SubVu => K::VBin(VBin::Sub, Ureg),
        Op::SubrVu => K::VBinRev(VBin::Sub, Ureg),
        Op::SubrVi | Op::SubrVl => K::VBinRev(VBin::Sub, Imm),
        Op::And => K::VBin(VBin::And, Row),
        Op::AndVu => K::VBin(VBin::And, Ureg),
        Op::AndVi | Op::AndVl => K::VBin(VBin::And, Imm),
        Op::Or => K::VBin(VBin::Or, Row),
        Op::OrVu => K::VBin(VBin::Or, Ureg),
        Op::OrVi | Op::OrVl => K::VBin(VBin::Or, Imm),
        Op::Xor => K::VBin(VBin::Xor, Row),
        Op::XorVu => K::VBin(VBin::Xor, Ureg),
        Op::XorVi | Op::XorVl => K::VBin(VBin::Xor, Imm),
        Op::Andn => K::VBin(VBin::Andn, Row),
        Op::AndnVu => K::VBin(VBin::Andn, Ureg),
        Op::Orn => K::VBin(VBin::Orn, Row),
        Op::OrnVu => K::VBin(VBin::Orn, Ureg),
        Op::Xnor => K::VBin(VBin::Xnor, Row),
        Op::Mul => K::VBin(VBin::Mul, Row),
        Op::MulVu => K::VBin(VBin::Mul, Ureg),
        Op::MulVi | Op::MulVl => K::VBin(VBin::Mul, Imm),
        Op::Sll => K::VBin(VBin::Sll, Row),
        Op::SllVu => K::VBin(VBin::Sll, Ureg),
        Op::SllVi => K::VBin(VBin::Sll, Imm),
        Op::SllrVu => K::VBinRev(VBin::Sll, Ureg),
        Op::Srl => K::VBin(VBin::Srl, Row),
        Op::SrlVu => K::VBin(VBin::Srl, Ureg),
        Op::SrlVi => K::VBin(VBin::Srl, Imm),
        Op::SrlrVu => K::VBinRev(VBin::Srl, Ureg),
        Op::Sra => K::VBin(VBin::Sra, Row),
        Op::SraVu => K::VBin(VBin::Sra, Ureg),
        Op::SraVi => K::VBin(VBin::Sra, Imm),
        Op::SrarVu => K::VBinRev(VBin::Sra, Ureg),
        Op::Rol => K::VBin(VBin::Rol, Row),
        Op::Ror => K::VBin(VBin::Ror, Row),
        Op::Min => K::VBin(VBin::Min, Row),
        Op::MinVu => K::VBin(VBin::Min, Ureg),
        Op::MinVi => K::VBin(VBin::Min, Imm),
        Op::Max => K::VBin(VBin::Max, Row),
        Op::MaxVu => K::VBin(VBin::Max, Ureg),
        Op::MaxVi => K::VBin(VBin::Max, Imm),
        Op::Minu => K::VBin(VBin::Minu, Row),
        Op::MinuVu => K::VBin(VBin::Minu, Ureg),
        Op::MinuVi => K::VBin(VBin::Minu, Imm),
        Op::Maxu => K::VBin(VBin::Maxu, Row),
        Op::MaxuVu => K::VBin(VBin::Maxu, Ureg),
        Op::MaxuVi => K::VBin(VBin::Maxu, Imm),
        Op::Slt => K::VBin(VBin::Slt, Row),
        Op::SltVu => K::VBin(VBin::Slt, Ureg),
        Op::SltVi => K::VBin(VBin::Slt, Imm),
        Op::Sltu => K::VBin(VBin::Sltu, Row),
        Op::SltuVu => K::VBin(VBin::Sltu, Ureg),
        Op::SltuVi => K::VBin(VBin::Sltu, Imm),
        Op::CzeroEqz => K::VBin(VBin::CzeroEqz, Row),
        Op::CzeroNez => K::VBin(VBin::CzeroNez, Row),
        Op::Mulh => K::VBin(VBin::Mulh, Row),
        Op::MulhVu => K::VBin(VBin::Mulh, Ureg),
        Op::Mulhu => K::VBin(VBin::Mulhu, Row),
        Op::MulhuVu => K::VBin(VBin::Mulhu, Ureg),
        Op::Bfm => K::VBin(VBin::Bfm, Row),
        Op::BfeU32 => K::BfeU,
        Op::Add64 => K::Pair64 { add: true },
        Op::Sub64 => K::Pair64 { add: false },
        // ---- VALU unary and moves ----
        Op::Mov => K::VUn(VUn::Mov),
        Op::Not => K::VUn(VUn::Not),
        Op::Neg => K::VUn(VUn::Neg),
        Op::Abs => K::VUn(VUn::Abs),
        Op::SextB => K::VUn(VUn::SextB),
        Op::SextH => K::VUn(VUn::SextH),
        Op::ZextB => K::VUn(VUn::ZextB),
        Op::ZextH => K::VUn(VUn::ZextH),
        Op::MovVu => K::VSplat { imm: false },
        Op::Movi | Op::MovVl => K::VSplat { imm: true },
        Op::Laneid => K::Laneid,
        Op::Mac => K::Mac,
        Op::MacVu => K::MacVu,
        Op::MadU32 => K::Mad,
        Op::Sel => K::Sel,
        Op::Bfi => K::Bfi,
        Op::Cndmask => K::Cndmask,
        // ---- compares ----
        Op::CmpEqI32 => K::VCmp(VCmp::Eq, Row),
        Op::CmpNeI32 => K::VCmp(VCmp::Ne, Row),
        Op::CmpLtI32 => K::VCmp(VCmp::LtS, Row),
        Op::CmpGeI32 => K::VCmp(VCmp::GeS, Row),
        Op::CmpLtU32 => K::VCmp(VCmp::LtU, Row),
        Op::CmpGeU32 => K::VCmp(VCmp::GeU, Row),
        Op::CmpEqI32Vu => K::VCmp(VCmp::Eq, Ureg),
        Op::CmpNeI32Vu => K::VCmp(VCmp::Ne, Ureg),
        Op::CmpLtI32Vu => K::VCmp(VCmp::LtS, Ureg),
        Op::CmpGeI32Vu => K::VCmp(VCmp::GeS, Ureg),
        Op::CmpLtU32Vu => K::VCmp(VCmp::LtU, Ureg),
        Op::CmpGeU32Vu => K::VCmp(VCmp::GeU, Ureg),
        Op::CmpEqI32Vi => K::VCmp(VCmp::Eq, Imm),
        Op::CmpNeI32Vi => K::VCmp(VCmp::Ne, Imm),
        Op::CmpLtI32Vi => K::VCmp(VCmp::LtS, Imm),
        Op::CmpGeI32Vi => K::VCmp(VCmp::GeS, Imm),
        Op::CmpLtU32Vi => K::VCmp(VCmp::LtU, Imm),
        Op::CmpGeU32Vi => K::VCmp(VCmp::GeU, Imm),
        Op::CmpGtI32Vi => K::VCmp(VCmp::GtS, Imm),
        Op::CmpGtU32Vi => K::VCmp(VCmp::GtU, Imm),
        // ---- SALU ----
        Op::Uadd => K::SBin(SBin::Add, SrcU::Reg),
        Op::Uaddi | Op::UaddL => K::SBin(SBin::Add, SrcU::Imm),
        Op::Usub => K::SBin(SBin::Sub, SrcU::Reg),
        Op::Uand => K::SBin(SBin::And, SrcU::Reg),
        Op::Uandi | Op::UandL => K::SBin(SBin::And, SrcU::Imm),
        Op::Uor => K::SBin(SBin::Or, SrcU::Reg),
        Op::Uori | Op::UorL => K::SBin(SBin::Or, SrcU::Imm),
        Op::Uxor => K::SBin(SBin::Xor, SrcU::Reg),
        Op::Uxori | Op::UxorL => K::SBin(SBin::Xor, SrcU::Imm),
        Op::Uandn => K::SBin(SBin::Andn, SrcU::Reg),
        Op::Uorn => K::SBin(SBin::Orn, SrcU::Reg),
        Op::Uxnor => K::SBin(SBin::Xnor, SrcU::Reg),
        Op::Umul => K::SBin(SBin::Mul, SrcU::Reg),
        Op::Umuli | Op::UmulL => K::SBin(SBin::Mul, SrcU::Imm),
        Op::Umulh => K::SBin(SBin::Mulh, SrcU::Reg),
        Op::Umulhu => K::SBin(SBin::Mulhu, SrcU::Reg),
        Op::Umulhsu => K::SBin(SBin::Mulhsu, SrcU::Reg),
        Op::Usll => K::SBin(SBin::Sll, SrcU::Reg),
        Op::Uslli => K::SBin(SBin::Sll, SrcU::Imm),
        Op::Usrl => K::SBin(SBin::Srl, SrcU::Reg),
        Op::Usrli => K::SBin(SBin::Srl, SrcU::Imm),
        Op::Usra => K::SBin(SBin::Sra, SrcU::Reg),
        Op::Usrai => K::SBin(SBin::Sra, SrcU::Imm),
        Op::Urol => K::SBin(SBin::Rol, SrcU::Reg),
        Op::Uror => K::SBin(SBin::Ror, SrcU::Reg),
        Op::Uslt => K::SBin(SBin::Slt, SrcU::Reg),
        Op::Uslti | Op::UsltL => K::SBin(SBin::Slt, SrcU::Imm),
        Op::Usltu => K::SBin(SBin::Sltu, SrcU::Reg),
        Op::Usltiu | Op::UsltuL => K::SBin(SBin::Sltu, SrcU::Imm),
        Op::Useq => K::SBin(SBin::Seq, SrcU::Reg),
        Op::Useqi | Op::UseqL => K::SBin(SBin::Seq, SrcU::Imm),
        Op::Usne => K::SBin(SBin::Sne, SrcU::Reg),
        Op::Usnei => K::SBin(SBin::Sne, SrcU::Imm),
        Op::Usge => K::SBin(SBin::Sge, SrcU::Reg),
        Op::Usgeu => K::SBin(SBin::Sgeu, SrcU::Reg),
        Op::Umin => K::SBin(SBin::Min, SrcU::Reg),
        Op::Umax => K::SBin(SBin::Max, SrcU::Reg),
        Op::Uminu => K::SBin(SBin::Minu, SrcU::Reg),
        Op::Umaxu => K::SBin(SBin::Maxu, SrcU::Reg),
        Op::UczeroEqz => K::SBin(SBin::CzeroEqz, SrcU::Reg),
        Op::UczeroNez => K::SBin(SBin::CzeroNez, SrcU::Reg),
        Op::Umov => K::SUn(SUn::Mov),
        Op::Unot => K::SUn(SUn::Not),
        Op::UsextB => K::SUn(SUn::SextB),
        Op::UsextH => K::SUn(SUn::SextH),
        Op::ExecGet => K::SUn(SUn::ExecGet),
        Op::Uadd64 => K::S64(S64::Add),
        Op::Usub64 => K::S64(S64::Sub),
        Op::Uaddsx64 => K::S64(S64::AddSx),
        Op::Uaddzx64 => K::S64(S64::AddZx),
        Op::Uadd64i | Op::Uadd64L => K::S64(S64::AddImm),
        Op::Umov64 => K::S64(S64::Mov),
        Op::Umovi | Op::UmovL => K::SImm,
        Op::Upc => K::Upc,
        // ---- control ----
        Op::Jmp => K::Branch(Branch::Jmp),
        Op::Jal => K::Branch(Branch::Jal),
        Op::Bz => K::Branch(Branch::Bz),
        Op::Bnz => K::Branch(Branch::Bnz),
        Op::Bexecz => K::Branch(Branch::Bexecz),
        Op::Bexecnz => K::Branch(Branch::Bexecnz),
        Op::Bnone => K::Branch(Branch::Bnone),
        Op::Bany => K::Branch(Branch::Bany),
        Op::ExecSet => K::ExecWrite(ExecWrite::Set),
        Op::SaveexecAnd => K::ExecWrite(ExecWrite::And),
        Op::SaveexecOr => K::ExecWrite(ExecWrite::Or),
        Op::SaveexecXor => K::ExecWrite(ExecWrite::Xor),
        Op::SaveexecAndn1 => K::ExecWrite(ExecWrite::Andn1),
        Op::SaveexecAndn2 => K::ExecWrite(ExecWrite::Andn2),
        Op::SaveexecMov => K::ExecWrite(ExecWrite::Mov),
        Op::Jr => K::Branch(Branch::Jr),
        Op::Jalr => K::Branch(Branch::Jalr),
        _ => return None,
    })
}
