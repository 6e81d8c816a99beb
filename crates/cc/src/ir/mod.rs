//! The compiler's intermediate representation: **structured SSA**.
//!
//! A function body is a tree of [`Region`]s. A region is a list of operations executed in
//! order; control flow exists only as two structured operations that own regions:
//!
//! - [`OpKind::If`]: operands `[cond]` (an `i1`), regions `[then, else]`. Each arm ends with
//!   [`OpKind::Yield`] whose operands become the `If`'s results (both arms yield the same
//!   number and types of values; an `If` without results still has two regions, possibly
//!   holding only `yield`).
//! - [`OpKind::Loop`]: operands = the initial values of the loop-carried variables, region
//!   `[body]`. The body's region arguments receive the carried values; the body ends with
//!   [`OpKind::LoopEnd`] whose operands are `[cont, next...]`: when `cont` (an `i1`) is true
//!   the arguments take the `next` values and the body runs again; otherwise the loop's
//!   results are the `next` values and execution continues after the loop. (A do-while
//!   loop; a `for`/`while` is an `If` around a rotated loop.)
//!
//! There is no `goto`, no `return`, no `break`/`continue`: the front end turns early exits
//! into flags and guards (the structurization every SIMT back end needs, done once on the
//! syntax tree), so every region has exactly one entry and one exit. Values defined in a
//! region are visible in it after their definition and in the regions nested in it; a value
//! reaches an enclosing region only as a result of `If`/`Loop`. Helper functions are
//! inlined by the front end: a module holds kernels only.
//!
//! Semantics are those of one work-item (scalar SSA). Whether a value is the same in every
//! work-item of a warp (uniformity), which register file holds it, and how divergent `If`s
//! and `Loop`s become EXEC manipulation are the back end's business.

pub mod eval;
pub mod interp;
pub mod parse;
mod print;
pub mod verify;

use crate::source::Span;
use std::fmt;

/// Index of a value in [`Function::values`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// Index of an operation in [`Function::ops`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u32);

/// Index of a region in [`Function::regions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionId(pub u32);

/// Address spaces of pointers (OpenCL's, with `generic` absent in 1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// `__global`: device memory, 64-bit addresses.
    Global,
    /// `__constant`: read-only device memory (kernel arguments and program-scope constants),
    /// 64-bit addresses.
    Constant,
    /// `__local`: the workgroup's shared memory, 32-bit byte addresses from 0.
    Local,
    /// `__private`: the work-item's own memory (address-taken variables, private arrays),
    /// 32-bit offsets within the work-item's private frame.
    Private,
}

impl Space {
    /// Bits of a pointer into this space.
    pub const fn pointer_bits(self) -> u32 {
        match self {
            Space::Global | Space::Constant => 64,
            Space::Local | Space::Private => 32,
        }
    }

    /// The name used in IR text and messages.
    pub const fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Constant => "constant",
            Space::Local => "local",
            Space::Private => "private",
        }
    }
}

/// Types of IR values. Integer types carry no sign: operations say how they interpret bits.
/// C's `char`/`short` values live in `I32` (kept sign- or zero-extended by the front end);
/// memory operations give the width in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A truth value (comparison results, `bool`).
    I1,
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
    /// IEEE binary16.
    F16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// A pointer into an address space.
    Ptr(Space),
}

impl Ty {
    /// Bits of a value of this type (1 for `I1`).
    pub const fn bits(self) -> u32 {
        match self {
            Ty::I1 => 1,
            Ty::I32 | Ty::F32 => 32,
            Ty::I64 | Ty::F64 => 64,
            Ty::F16 => 16,
            Ty::Ptr(s) => s.pointer_bits(),
        }
    }

    /// Whether this is `I32` or `I64` (not `I1`, not a pointer).
    pub const fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64)
    }

    /// Whether this is a floating-point type.
    pub const fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }

    /// Whether this is a pointer.
    pub const fn is_ptr(self) -> bool {
        matches!(self, Ty::Ptr(_))
    }

    /// The integer type of the same width as a pointer or integer (`I32`/`I64`).
    pub const fn int_of_width(self) -> Ty {
        if self.bits() == 64 {
            Ty::I64
        } else {
            Ty::I32
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::I1 => f.write_str("i1"),
            Ty::I32 => f.write_str("i32"),
            Ty::I64 => f.write_str("i64"),
            Ty::F16 => f.write_str("f16"),
            Ty::F32 => f.write_str("f32"),
            Ty::F64 => f.write_str("f64"),
            Ty::Ptr(s) => write!(f, "ptr.{}", s.name()),
        }
    }
}

/// Unary operations. The operand and result have one type unless noted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Two's-complement negation (integers).
    Neg,
    /// Bitwise not (integers); logical not on `I1`.
    Not,
    /// Count of leading zeros (32 or 64 for zero).
    Clz,
    /// Count of trailing zeros (32 or 64 for zero).
    Ctz,
    /// Population count.
    Popcount,
    /// Bit reversal.
    Brev,
    /// Absolute value of a signed integer, wrapping (`abs(INT_MIN)` = `INT_MIN`, whose bits
    /// read as unsigned are OpenCL's `abs` result).
    Abs,
    /// Floating negation (flips the sign bit, NaN payload kept).
    FNeg,
    /// Floating absolute value (clears the sign bit).
    FAbs,
}

/// Binary operations on two operands of one type; the result has that type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// Wrapping addition.
    Add,
    /// Wrapping subtraction.
    Sub,
    /// Wrapping multiplication (low half).
    Mul,
    /// High half of the signed product.
    MulHiS,
    /// High half of the unsigned product.
    MulHiU,
    /// Signed division, truncating (undefined for a zero divisor and MIN / -1).
    SDiv,
    /// Unsigned division (undefined for a zero divisor).
    UDiv,
    /// Signed remainder, sign of the dividend (undefined as `SDiv`).
    SRem,
    /// Unsigned remainder (undefined for a zero divisor).
    URem,
    /// Bitwise and (logical on `I1`).
    And,
    /// Bitwise or (logical on `I1`).
    Or,
    /// Bitwise xor (logical on `I1`).
    Xor,
    /// Left shift; the amount is taken modulo the width (OpenCL C 1.2 §6.3 j).
    Shl,
    /// Logical right shift; amount modulo the width.
    LShr,
    /// Arithmetic right shift; amount modulo the width.
    AShr,
    /// Rotate left; amount modulo the width.
    Rotl,
    /// Signed minimum.
    SMin,
    /// Signed maximum.
    SMax,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
    /// IEEE addition, rounded to nearest even.
    FAdd,
    /// IEEE subtraction.
    FSub,
    /// IEEE multiplication.
    FMul,
    /// IEEE division, correctly rounded.
    FDiv,
    /// IEEE 754-2019 minimumNumber (OpenCL `fmin`: a NaN operand yields the other).
    FMin,
    /// IEEE 754-2019 maximumNumber (OpenCL `fmax`).
    FMax,
}

impl BinOp {
    /// Whether `a op b == b op a`.
    pub const fn is_commutative(self) -> bool {
        matches!(
            self,
            BinOp::Add
                | BinOp::Mul
                | BinOp::MulHiS
                | BinOp::MulHiU
                | BinOp::And
                | BinOp::Or
                | BinOp::Xor
                | BinOp::SMin
                | BinOp::SMax
                | BinOp::UMin
                | BinOp::UMax
                | BinOp::FAdd
                | BinOp::FMul
                | BinOp::FMin
                | BinOp::FMax
        )
    }

    /// Whether this is a floating-point operation.
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FMin | BinOp::FMax
        )
    }
}

/// Comparison predicates; the result is `I1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpPred {
    /// Integer and pointer predicates.
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
    /// Floating, ordered: false when either operand is NaN (C's `== < <= > >=`).
    FOeq,
    FOlt,
    FOle,
    FOgt,
    FOge,
    /// Floating, unordered or not equal: C's `!=`.
    FUne,
    /// Neither operand is NaN.
    FOrd,
    /// Either operand is NaN.
    FUno,
}

/// Conversions; the result type is the op's result type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// Zero-extend (`I1`→`I32`/`I64`, `I32`→`I64`).
    ZExt,
    /// Sign-extend (`I1` gives 0 or -1).
    SExt,
    /// Keep the low bits (`I64`→`I32`, integer→`I1` keeps bit 0 — use `Cmp Ne 0` for C's
    /// truth test).
    Trunc,
    /// Sign-extend the low 8 bits of an `I32` in place (C conversion to `char`).
    SExt8,
    /// Sign-extend the low 16 bits in place (to `short`).
    SExt16,
    /// Zero-extend the low 8 bits in place (to `uchar`).
    ZExt8,
    /// Zero-extend the low 16 bits in place (to `ushort`).
    ZExt16,
    /// Float → signed integer, rounding toward zero (C); out of range is undefined in C and
    /// saturates here.
    FToSI,
    /// Float → unsigned integer, rounding toward zero.
    FToUI,
    /// Signed integer → float, rounded to nearest even.
    SIToF,
    /// Unsigned integer → float, rounded to nearest even.
    UIToF,
    /// Float → wider float (exact).
    FExt,
    /// Float → narrower float, rounded to nearest even.
    FTrunc,
    /// Reinterpret the bits (same width: `I32`↔`F32`, `I64`↔`F64`, pointers↔integers of
    /// their width).
    Bitcast,
}

/// Math operations the ISA performs in hardware (the rest of OpenCL's math library is
/// written in OpenCL C on top of these). All take and return `F32` unless noted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MathOp {
    /// Square root, correctly rounded (`F32` or `F64`).
    Sqrt,
    /// 1/x, correctly rounded.
    Rcp,
    /// 1/sqrt(x), within 1 ulp.
    Rsqrt,
    /// 2^x, within 1 ulp.
    Exp2,
    /// log2(x), within 1 ulp.
    Log2,
    /// sin(πx), within 1 ulp.
    SinPi,
    /// cos(πx), within 1 ulp.
    CosPi,
}

/// Work-item functions; every one is an `I32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkItem {
    /// `get_local_id(dim)`.
    LocalId(u8),
    /// `get_group_id(dim)`.
    GroupId(u8),
    /// `get_local_size(dim)`.
    LocalSize(u8),
    /// `get_num_groups(dim)`.
    NumGroups(u8),
    /// `get_work_dim()`.
    WorkDim,
}

/// Read-modify-write operations of atomics on 32-bit words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// Signed minimum.
    SMin,
    /// Unsigned minimum.
    UMin,
    /// Signed maximum.
    SMax,
    /// Unsigned maximum.
    UMax,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// Exchange.
    Xchg,
    /// Compare and exchange: operands `[ptr, compare, new]`.
    CmpXchg,
}

/// How many bytes a memory access moves and how a narrow load extends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemTy {
    /// 1, 2, 4 or 8.
    pub size: u8,
    /// For loads of 1 or 2 bytes into an `I32`: sign-extend (else zero-extend).
    pub signed: bool,
}

/// What an operation does. Operand and result conventions are given per kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// A constant: result of any non-pointer type; `bits` holds the value's bits
    /// (zero-extended; floats as their IEEE encoding; `I1` as 0/1).
    Const(u64),
    /// An unspecified value of the result type (an uninitialised variable).
    Undef,
    /// Kernel parameter `i` ([`Function::params`]): its value (a pointer's address, a
    /// scalar's value of the parameter's IR type).
    Param(u32),
    /// Address of the `__local` object `i` ([`Function::locals`]): `Ptr(Local)`.
    LocalAddr(u32),
    /// Address of the private object `i` ([`Function::privates`]): `Ptr(Private)`.
    PrivateAddr(u32),
    /// Address of program-scope `__constant` object `i` ([`Module::constants`]):
    /// `Ptr(Constant)`.
    ConstantAddr(u32),
    /// A work-item function: `I32`.
    WorkItem(WorkItem),
    /// `[a] → r`.
    Unary(UnOp),
    /// `[a, b] → r`.
    Binary(BinOp),
    /// `[a, b, c] → a*b + c` with one rounding (floats).
    Fma,
    /// `[a, b] → I1`.
    Cmp(CmpPred),
    /// `[cond: I1, a, b] → cond ? a : b`.
    Select,
    /// `[a] → r`.
    Cast(CastOp),
    /// `[a] → r`.
    Math(MathOp),
    /// `[ptr, offset] → ptr + offset` (bytes; the offset is an integer of the pointer's width).
    PtrAdd,
    /// `[ptr] → value`: load `mem` bytes; the result type says how to read them.
    Load(MemTy),
    /// `[ptr, value]`: store the low `mem.size` bytes of the value.
    Store(MemTy),
    /// `[ptr, value] → old` (32-bit; `CmpXchg`: `[ptr, compare, new] → old`).
    Atomic(AtomicOp),
    /// Work-group barrier (`barrier(flags)`): every work-item of the group arrives before
    /// any continues; memory of the flagged spaces is ordered across it.
    Barrier {
        /// `CLK_LOCAL_MEM_FENCE`
        local: bool,
        /// `CLK_GLOBAL_MEM_FENCE`
        global: bool,
    },
    /// `mem_fence(flags)` and its read/write variants: orders this work-item's accesses.
    Fence {
        /// `CLK_LOCAL_MEM_FENCE`
        local: bool,
        /// `CLK_GLOBAL_MEM_FENCE`
        global: bool,
    },
    /// Structured conditional, see the module documentation.
    If,
    /// Structured loop, see the module documentation.
    Loop,
    /// End of an `If` arm: `[values...]`.
    Yield,
    /// End of a loop body: `[cont: I1, next...]`.
    LoopEnd,
}

/// One operation.
#[derive(Debug, Clone)]
pub struct Op {
    /// What it does.
    pub kind: OpKind,
    /// Its operands.
    pub operands: Vec<ValueId>,
    /// The values it defines.
    pub results: Vec<ValueId>,
    /// The regions it owns (`If`: then, else; `Loop`: body).
    pub regions: Vec<RegionId>,
    /// The region it sits in.
    pub parent: RegionId,
    /// The source it was compiled from (line tables, diagnostics).
    pub span: Span,
}

/// Where a value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueDef {
    /// Result `index` of an operation.
    Op(OpId, u32),
    /// Argument `index` of a region (a loop body's carried value).
    Arg(RegionId, u32),
}

/// A value: its type and definition.
#[derive(Debug, Clone, Copy)]
pub struct ValueInfo {
    /// Its type.
    pub ty: Ty,
    /// Its definition.
    pub def: ValueDef,
}

/// A list of operations, optionally with arguments (loop bodies).
#[derive(Debug, Clone, Default)]
pub struct Region {
    /// The region's arguments.
    pub args: Vec<ValueId>,
    /// Its operations in execution order; an `If` arm ends with `Yield`, a loop body with
    /// `LoopEnd`, the function body with nothing special.
    pub ops: Vec<OpId>,
    /// The operation owning it (`None` for the function body).
    pub parent: Option<OpId>,
}

/// How a kernel parameter is passed (and how `--arg` spells it): the kinds of the
/// assembler's `.param` directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum ParamKind {
    PtrGlobal,
    PtrConstant,
    PtrLocal,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    F32,
    F64,
}

impl ParamKind {
    /// The spelling in `.param` directives.
    pub const fn directive_name(self) -> &'static str {
        match self {
            ParamKind::PtrGlobal => "ptr.global",
            ParamKind::PtrConstant => "ptr.constant",
            ParamKind::PtrLocal => "ptr.local",
            ParamKind::I8 => "i8",
            ParamKind::U8 => "u8",
            ParamKind::I16 => "i16",
            ParamKind::U16 => "u16",
            ParamKind::I32 => "i32",
            ParamKind::U32 => "u32",
            ParamKind::I64 => "i64",
            ParamKind::U64 => "u64",
            ParamKind::F16 => "f16",
            ParamKind::F32 => "f32",
            ParamKind::F64 => "f64",
        }
    }
}

/// A kernel parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// Its name in the source (`--arg NAME=...`).
    pub name: String,
    /// How it is passed.
    pub kind: ParamKind,
    /// The IR type of its value (`Param` op result): pointers by space, `char`/`short` as
    /// `I32`, and so on.
    pub ty: Ty,
    /// Its C type as written, for metadata and messages (`__global const float *`).
    pub c_type: String,
    /// Where it is declared.
    pub span: Span,
}

/// A `__local` or private memory object of a function.
#[derive(Debug, Clone)]
pub struct MemObject {
    /// Its name in the source (for listings and messages).
    pub name: String,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes (a power of two).
    pub align: u32,
    /// Where it is declared.
    pub span: Span,
}

/// A program-scope `__constant` object: its initial (and only) bytes.
#[derive(Debug, Clone)]
pub struct ConstObject {
    /// Its name in the source.
    pub name: String,
    /// Its bytes, little-endian.
    pub bytes: Vec<u8>,
    /// Alignment in bytes.
    pub align: u32,
}

/// One kernel.
#[derive(Debug, Clone)]
pub struct Function {
    /// The kernel's name.
    pub name: String,
    /// Where it is defined.
    pub span: Span,
    /// Its parameters, in order (argument slot `k` holds parameter `k`).
    pub params: Vec<Param>,
    /// `__attribute__((reqd_work_group_size(X, Y, Z)))`.
    pub reqd_block: Option<[u32; 3]>,
    /// `__local` objects declared in the kernel (and in inlined helpers).
    pub locals: Vec<MemObject>,
    /// Private objects whose address is taken or that are indexed (arrays, structs).
    pub privates: Vec<MemObject>,
    /// Every value.
    pub values: Vec<ValueInfo>,
    /// Every operation (some may be detached after rewriting: only those reachable from
    /// [`Function::body`] count).
    pub ops: Vec<Op>,
    /// Every region.
    pub regions: Vec<Region>,
    /// The body.
    pub body: RegionId,
}

/// A compiled translation unit: its kernels and program-scope constants.
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// The kernels, in source order.
    pub kernels: Vec<Function>,
    /// Program-scope `__constant` objects (shared by every kernel).
    pub constants: Vec<ConstObject>,
}

impl Function {
    /// An empty kernel with an empty body region.
    pub fn new(name: impl Into<String>, span: Span) -> Function {
        Function {
            name: name.into(),
            span,
            params: Vec::new(),
            reqd_block: None,
            locals: Vec::new(),
            privates: Vec::new(),
            values: Vec::new(),
            ops: Vec::new(),
            regions: vec![Region::default()],
            body: RegionId(0),
        }
    }

    /// The type of value `v`.
    pub fn ty(&self, v: ValueId) -> Ty {
        self.values[v.0 as usize].ty
    }

    /// The definition of value `v`.
    pub fn def(&self, v: ValueId) -> ValueDef {
        self.values[v.0 as usize].def
    }

    /// The operation defining `v`, if it is an op result.
    pub fn def_op(&self, v: ValueId) -> Option<OpId> {
        match self.def(v) {
            ValueDef::Op(op, _) => Some(op),
            ValueDef::Arg(..) => None,
        }
    }

    /// Operation `id`.
    pub fn op(&self, id: OpId) -> &Op {
        &self.ops[id.0 as usize]
    }

    /// Operation `id`, mutably.
    pub fn op_mut(&mut self, id: OpId) -> &mut Op {
        &mut self.ops[id.0 as usize]
    }

    /// Region `id`.
    pub fn region(&self, id: RegionId) -> &Region {
        &self.regions[id.0 as usize]
    }

    /// Region `id`, mutably.
    pub fn region_mut(&mut self, id: RegionId) -> &mut Region {
        &mut self.regions[id.0 as usize]
    }

    /// A new, empty, detached region with arguments of types `args`.
    pub fn new_region(&mut self, args: &[Ty]) -> RegionId {
        let id = RegionId(self.regions.len() as u32);
        self.regions.push(Region::default());
        let values = args
            .iter()
            .enumerate()
            .map(|(i, &ty)| self.new_value(ty, ValueDef::Arg(id, i as u32)))
            .collect();
        self.regions[id.0 as usize].args = values;
        id
    }

    fn new_value(&mut self, ty: Ty, def: ValueDef) -> ValueId {
        self.values.push(ValueInfo { ty, def });
        ValueId(self.values.len() as u32 - 1)
    }

    /// Create an operation with results of types `results` and owning `regions` (which must
    /// be detached: their parent becomes the new op), and append it to `region`.
    pub fn push_op(
        &mut self,
        region: RegionId,
        kind: OpKind,
        operands: Vec<ValueId>,
        results: &[Ty],
        regions: Vec<RegionId>,
        span: Span,
    ) -> OpId {
        let id = self.create_op(region, kind, operands, results, regions, span);
        self.regions[region.0 as usize].ops.push(id);
        id
    }

    /// Create an operation as [`Function::push_op`] does, but without placing it in any
    /// region's list (insert it yourself, e.g. in the middle of a region).
    pub fn create_op(
        &mut self,
        region: RegionId,
        kind: OpKind,
        operands: Vec<ValueId>,
        results: &[Ty],
        regions: Vec<RegionId>,
        span: Span,
    ) -> OpId {
        let id = OpId(self.ops.len() as u32);
        let results = results
            .iter()
            .enumerate()
            .map(|(i, &ty)| self.new_value(ty, ValueDef::Op(id, i as u32)))
            .collect();
        for &r in &regions {
            self.regions[r.0 as usize].parent = Some(id);
        }
        self.ops.push(Op {
            kind,
            operands,
            results,
            regions,
            parent: region,
            span,
        });
        id
    }

    /// Append an operation with one result of type `ty` to `region` and return the result.
    pub fn push_value(
        &mut self,
        region: RegionId,
        kind: OpKind,
        operands: Vec<ValueId>,
        ty: Ty,
        span: Span,
    ) -> ValueId {
        let op = self.push_op(region, kind, operands, &[ty], Vec::new(), span);
        self.ops[op.0 as usize].results[0]
    }

    /// Append a constant of type `ty` with bits `bits` to `region`.
    pub fn push_const(&mut self, region: RegionId, ty: Ty, bits: u64, span: Span) -> ValueId {
        self.push_value(region, OpKind::Const(bits), Vec::new(), ty, span)
    }

    /// The constant bits of `v` if it is defined by `Const`.
    pub fn const_bits(&self, v: ValueId) -> Option<u64> {
        match self.def(v) {
            ValueDef::Op(op, _) => match self.op(op).kind {
                OpKind::Const(bits) => Some(bits),
                _ => None,
            },
            ValueDef::Arg(..) => None,
        }
    }

    /// Every operation reachable from the body, in pre-order (an `If`/`Loop` before the
    /// operations of its regions).
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::new();
        self.walk_region(self.body, &mut out);
        out
    }

    fn walk_region(&self, region: RegionId, out: &mut Vec<OpId>) {
        for &op in &self.region(region).ops {
            out.push(op);
            for &r in &self.op(op).regions {
                self.walk_region(r, out);
            }
        }
    }
}
