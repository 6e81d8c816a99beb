//! The typed representation of a generated program. The printer turns it into OpenCL C
//! source; the interpreter runs it directly (never by reparsing the text).
//!
//! Variables are numbered per function ([`VarId`] indexes [`Function::vars`]), so scoping
//! and shadowing are a matter of printing: two variables may share a name in nested scopes
//! and still be distinct.

/// Index of a variable in [`Function::vars`].
pub type VarId = u32;
/// Index of a function in [`Program::functions`].
pub type FnId = u32;
/// Index of a struct type in [`Program::structs`].
pub type StructId = u32;
/// Index of a type name in [`Program::aliases`].
pub type AliasId = u32;
/// Index of a macro in [`Program::macros`].
pub type MacroId = u32;
/// Index of a program-scope `__constant` array in [`Program::constants`].
pub type ConstId = u32;

/// The arithmetic types (OpenCL C sizes: `char` 8 bits and signed, `short` 16, `int` 32,
/// `long` 64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// `bool` (`_Bool`): 0 or 1, promoted to `int`.
    Bool,
    /// `char`, signed 8 bits.
    Char,
    /// `uchar`.
    UChar,
    /// `short`.
    Short,
    /// `ushort`.
    UShort,
    /// `int`.
    Int,
    /// `uint`.
    UInt,
    /// `long`, 64 bits.
    Long,
    /// `ulong`.
    ULong,
    /// `float`, IEEE binary32.
    Float,
    /// `double`, IEEE binary64.
    Double,
}

/// Address spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    /// `__private` (the default for variables and unqualified pointees).
    Private,
    /// `__global`.
    Global,
    /// `__local`.
    Local,
    /// `__constant`.
    Constant,
}

/// A type as written in the program.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void` (function results only).
    Void,
    /// An arithmetic type spelled by its OpenCL name.
    Scalar(Scalar),
    /// A type name: a `typedef` of the program or a built-in name such as `size_t` (64-bit
    /// `ulong` here) or `unsigned int`.
    Alias(AliasId),
    /// A struct type, spelled by its typedef name.
    Struct(StructId),
    /// An array of a fixed length.
    Array(Box<Type>, u32),
    /// A pointer into an address space; `konst` qualifies the pointee (`const T *`).
    Ptr {
        /// The pointee's address space.
        space: Space,
        /// `const` pointee.
        konst: bool,
        /// The pointee type.
        pointee: Box<Type>,
    },
}

/// A type name.
#[derive(Clone, Debug, PartialEq)]
pub struct Alias {
    /// The spelling.
    pub name: String,
    /// What it stands for.
    pub target: Type,
    /// A name the language or the printer provides (`size_t`, `unsigned int`): no
    /// `typedef` is printed for it.
    pub builtin: bool,
}

/// A struct type: `typedef struct NAME_s { ... } NAME;`.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// The typedef name.
    pub name: String,
    /// Members in declaration order.
    pub fields: Vec<Field>,
}

/// A struct member.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The member name.
    pub name: String,
    /// Its type (arithmetic or an array of an arithmetic type).
    pub ty: Type,
}

/// How an integer literal is spelled; with the value it decides the literal's type by
/// C99 6.4.4.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix {
    /// `123`.
    Dec,
    /// `0x7b`.
    Hex,
    /// `0173`.
    Oct,
}

/// Integer literal suffixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suffix {
    /// None.
    None,
    /// `u`.
    U,
    /// `l`.
    L,
    /// `ul`.
    UL,
}

/// A non-negative integer literal (negative constants are a unary minus applied to one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLit {
    /// The value.
    pub value: u64,
    /// The base it is written in.
    pub radix: Radix,
    /// The suffix.
    pub suffix: Suffix,
    /// Upper-case suffix and hex digits.
    pub upper: bool,
}

/// A floating literal whose spelling is exact (a short decimal or a hex float), so no
/// rounding happens when it is read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatLit {
    /// The value (exactly representable in the literal's type).
    pub value: f64,
    /// `f` suffix: a `float` literal; without it a `double` literal.
    pub single: bool,
    /// Written as a hex float (`0x1.8p+1`).
    pub hex: bool,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`.
    Neg,
    /// `+x`.
    Plus,
    /// `!x`.
    Not,
    /// `~x`.
    BitNot,
    /// `*p`.
    Deref,
    /// `&x`.
    AddrOf,
}

/// `++`/`--`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IncDec {
    /// `++x`.
    PreInc,
    /// `--x`.
    PreDec,
    /// `x++`.
    PostInc,
    /// `x--`.
    PostDec,
}

/// Binary operators (also the operator of a compound assignment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `<`.
    Lt,
    /// `>`.
    Gt,
    /// `<=`.
    Le,
    /// `>=`.
    Ge,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `&&`.
    LogAnd,
    /// `||`.
    LogOr,
}

impl BinOp {
    /// The operator's spelling.
    pub fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }

    /// A comparison (result `int` 0 or 1 after the usual arithmetic conversions).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}

/// The work-item functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkItem {
    /// `get_global_id(d)`.
    GlobalId,
    /// `get_local_id(d)`.
    LocalId,
    /// `get_group_id(d)`.
    GroupId,
    /// `get_local_size(d)`.
    LocalSize,
    /// `get_num_groups(d)`.
    NumGroups,
    /// `get_global_size(d)`.
    GlobalSize,
    /// `get_work_dim()`.
    WorkDim,
}

/// The 32-bit atomic functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic_add(p, v)`.
    Add,
    /// `atomic_sub(p, v)`.
    Sub,
    /// `atomic_min(p, v)`.
    Min,
    /// `atomic_max(p, v)`.
    Max,
    /// `atomic_and(p, v)`.
    And,
    /// `atomic_or(p, v)`.
    Or,
    /// `atomic_xor(p, v)`.
    Xor,
    /// `atomic_inc(p)`.
    Inc,
    /// `atomic_dec(p)`.
    Dec,
}

impl AtomicOp {
    /// The name without its `atomic_`/`atom_` prefix.
    pub fn stem(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Inc => "inc",
            AtomicOp::Dec => "dec",
        }
    }

    /// Operations on one word commute (the final value is independent of their order)
    /// exactly when they belong to the same family.
    pub fn family(self) -> u8 {
        match self {
            AtomicOp::Add | AtomicOp::Sub | AtomicOp::Inc | AtomicOp::Dec => 0,
            AtomicOp::Min => 1,
            AtomicOp::Max => 2,
            AtomicOp::And => 3,
            AtomicOp::Or => 4,
            AtomicOp::Xor => 5,
        }
    }
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// A work-item function; its argument (if any) is the dimension.
    WorkItem(WorkItem),
    /// `min(x, y)` on integers.
    Min,
    /// `max(x, y)` on integers.
    Max,
    /// `clamp(x, lo, hi)` on integers.
    Clamp,
    /// `abs(x)`, result of the unsigned type of the same width.
    Abs,
    /// `mad24(x, y, z)` (`int`/`uint`).
    Mad24,
    /// `mul24(x, y)` (`int`/`uint`).
    Mul24,
    /// `mul_hi(x, y)`.
    MulHi,
    /// `rotate(v, i)`.
    Rotate,
    /// `popcount(x)`.
    Popcount,
    /// `clz(x)`.
    Clz,
    /// `fmin(x, y)`.
    Fmin,
    /// `fmax(x, y)`.
    Fmax,
    /// `fabs(x)`.
    Fabs,
    /// `fma(a, b, c)`, one rounding.
    Fma,
    /// `sqrt(x)`, correctly rounded.
    Sqrt,
    /// `floor(x)`.
    Floor,
    /// `ceil(x)`.
    Ceil,
    /// An atomic function on a `__global` or `__local` `int`/`uint`; `short` spells it
    /// `atom_*`.
    Atomic {
        /// The operation.
        op: AtomicOp,
        /// `atom_` instead of `atomic_`.
        short: bool,
    },
}

impl Builtin {
    /// The function's name.
    pub fn name(self) -> String {
        match self {
            Builtin::WorkItem(w) => match w {
                WorkItem::GlobalId => "get_global_id",
                WorkItem::LocalId => "get_local_id",
                WorkItem::GroupId => "get_group_id",
                WorkItem::LocalSize => "get_local_size",
                WorkItem::NumGroups => "get_num_groups",
                WorkItem::GlobalSize => "get_global_size",
                WorkItem::WorkDim => "get_work_dim",
            }
            .into(),
            Builtin::Min => "min".into(),
            Builtin::Max => "max".into(),
            Builtin::Clamp => "clamp".into(),
            Builtin::Abs => "abs".into(),
            Builtin::Mad24 => "mad24".into(),
            Builtin::Mul24 => "mul24".into(),
            Builtin::MulHi => "mul_hi".into(),
            Builtin::Rotate => "rotate".into(),
            Builtin::Popcount => "popcount".into(),
            Builtin::Clz => "clz".into(),
            Builtin::Fmin => "fmin".into(),
            Builtin::Fmax => "fmax".into(),
            Builtin::Fabs => "fabs".into(),
            Builtin::Fma => "fma".into(),
            Builtin::Sqrt => "sqrt".into(),
            Builtin::Floor => "floor".into(),
            Builtin::Ceil => "ceil".into(),
            Builtin::Atomic { op, short } => {
                format!("{}_{}", if short { "atom" } else { "atomic" }, op.stem())
            }
        }
    }
}

/// Expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer literal.
    Int(IntLit),
    /// A floating literal.
    Float(FloatLit),
    /// A variable or parameter of the enclosing function.
    Var(VarId),
    /// A program-scope `__constant` array.
    Const(ConstId),
    /// The `i`-th parameter of the enclosing macro (only inside [`Macro::body`]).
    MacroParam(u32),
    /// A macro use: an object-like macro has no arguments.
    Macro(MacroId, Vec<Expr>),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// `++`/`--` of an lvalue.
    IncDec(IncDec, Box<Expr>),
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `lhs = rhs` or, with an operator, `lhs op= rhs`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a, b`.
    Comma(Box<Expr>, Box<Expr>),
    /// `(T)e`.
    Cast(Type, Box<Expr>),
    /// `a[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `s.f` (member index).
    Member(Box<Expr>, u32),
    /// `p->f` (member index).
    Arrow(Box<Expr>, u32),
    /// A call of a helper function.
    Call(FnId, Vec<Expr>),
    /// A call of a built-in function.
    Builtin(Builtin, Vec<Expr>),
    /// `sizeof(T)` (a `size_t`), for types whose size OpenCL C fixes.
    SizeOf(Type),
}

/// An initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// `= e`.
    Expr(Expr),
    /// `= { ... }` for arrays and structs (every element given).
    List(Vec<Init>),
}

/// A `case` or `default` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// `case V:` (printed as a decimal constant, negative with a minus).
    Case(i64),
    /// `default:`.
    Default,
}

/// One group of labels of a `switch` and the statements after them.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// The labels.
    pub labels: Vec<Label>,
    /// The statements (execution falls through into the next arm unless they `break`).
    pub body: Vec<Stmt>,
}

/// A brace-enclosed statement list.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
}

/// Statements.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// A declaration of a variable of the enclosing function, with an optional initializer
    /// (`__local` arrays have none; every other variable has one).
    Decl(VarId, Option<Init>),
    /// An expression statement.
    Expr(Expr),
    /// A nested block.
    Block(Block),
    /// `if (c) { ... } else { ... }`.
    If(Expr, Block, Option<Block>),
    /// `for (init; cond; step) { ... }`; `init` is a declaration or an expression statement.
    For(Option<Box<Stmt>>, Option<Expr>, Option<Expr>, Block),
    /// `while (c) { ... }`.
    While(Expr, Block),
    /// `do { ... } while (c);`.
    DoWhile(Block, Expr),
    /// `switch (e) { ... }`.
    Switch(Expr, Vec<Arm>),
    /// `break;`.
    Break,
    /// `continue;`.
    Continue,
    /// `return;` or `return e;`.
    Return(Option<Expr>),
    /// `barrier(flags)` with `CLK_LOCAL_MEM_FENCE` (bit 0) and `CLK_GLOBAL_MEM_FENCE`
    /// (bit 1).
    Barrier(u8),
    /// `#if COND` / `#else` / `#endif` around two blocks; `taken` says which one the
    /// preprocessor keeps (the generator knows the macros' values).
    PpIf {
        /// The condition's text.
        cond: String,
        /// The first block is kept.
        taken: bool,
        /// Kept when `taken`.
        then: Block,
        /// Kept otherwise.
        els: Block,
    },
}

/// A variable or parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Type,
    /// `__private` (spelled or implicit) or `__local` (kernel-scope arrays).
    pub space: Space,
    /// Print the address space qualifier even where it is implicit.
    pub explicit_space: bool,
    /// Declared `const`.
    pub konst: bool,
}

/// A function: a kernel or a helper.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The name.
    pub name: String,
    /// `__kernel` (spelled `__kernel` or `kernel` by `kernel_spelling`).
    pub kernel: bool,
    /// Print `kernel` rather than `__kernel`.
    pub short_kernel_keyword: bool,
    /// The result type (`void` for kernels).
    pub ret: Type,
    /// The parameters, as indices into `vars`.
    pub params: Vec<VarId>,
    /// Every variable of the function, parameters included.
    pub vars: Vec<VarDecl>,
    /// The body.
    pub body: Block,
}

/// A macro definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Macro {
    /// The name.
    pub name: String,
    /// Parameter names; `None` for an object-like macro.
    pub params: Option<Vec<String>>,
    /// The replacement, fully parenthesized, with [`Expr::MacroParam`] for parameters.
    pub body: Expr,
}

/// A program-scope `__constant` array of arithmetic elements.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstTable {
    /// The name.
    pub name: String,
    /// The element type.
    pub elem: Scalar,
    /// The elements (each a literal, possibly negated or cast).
    pub values: Vec<Expr>,
}

/// A whole program.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    /// `#pragma OPENCL EXTENSION ...` lines.
    pub pragmas: Vec<String>,
    /// Macros, printed in order before everything else.
    pub macros: Vec<Macro>,
    /// Type names (built-in names are not printed).
    pub aliases: Vec<Alias>,
    /// Struct types.
    pub structs: Vec<StructDef>,
    /// `__constant` arrays.
    pub constants: Vec<ConstTable>,
    /// Functions in definition order: a function calls only functions before it.
    pub functions: Vec<Function>,
}

impl Program {
    /// Follows type names to the type they stand for.
    pub fn resolve<'a>(&'a self, mut ty: &'a Type) -> &'a Type {
        while let Type::Alias(a) = ty {
            ty = &self.aliases[*a as usize].target;
        }
        ty
    }

    /// The arithmetic type of `ty` after following names, if it is one.
    pub fn scalar(&self, ty: &Type) -> Option<Scalar> {
        match self.resolve(ty) {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The function named `name`.
    pub fn function(&self, name: &str) -> Option<FnId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| i as FnId)
    }
}
