//! The syntax tree of an OpenCL C translation unit, as the parser builds it: declarations
//! keep C's split into specifiers and declarators; nothing is typed yet (the semantic pass
//! does that while it lowers to IR). Every node carries the [`Span`] of its text.

use crate::source::{ExpnId, Span};

/// A whole preprocessed source file.
#[derive(Debug, Clone, Default)]
pub struct TranslationUnit {
    /// Top-level declarations and function definitions, in source order.
    pub items: Vec<ExternalDecl>,
}

/// A top-level item.
#[derive(Debug, Clone)]
pub enum ExternalDecl {
    /// A function with a body (`__kernel void k(...) { ... }` or a helper).
    Function(Box<FunctionDef>),
    /// Any other declaration: prototypes, typedefs, struct definitions, program-scope
    /// `__constant` variables.
    Declaration(Declaration),
}

/// A function definition.
#[derive(Debug, Clone)]
pub struct FunctionDef {
    /// Return type specifiers, `__kernel`, `inline`, `static`, attributes.
    pub specs: DeclSpecs,
    /// The name and parameter list (its outermost derivation is [`Derived::Function`]).
    pub declarator: Declarator,
    /// The body; always a [`StmtKind::Compound`].
    pub body: Stmt,
    /// From the first specifier to the closing brace.
    pub span: Span,
}

/// `specifiers declarator [= init], ...;`
#[derive(Debug, Clone)]
pub struct Declaration {
    /// The shared specifiers.
    pub specs: DeclSpecs,
    /// The declared names (empty for `struct s { ... };`).
    pub declarators: Vec<InitDeclarator>,
    /// Through the semicolon.
    pub span: Span,
}

/// One declarator of a declaration with its optional initializer.
#[derive(Debug, Clone)]
pub struct InitDeclarator {
    /// The declarator.
    pub declarator: Declarator,
    /// `= initializer`, if present.
    pub init: Option<Initializer>,
}

/// Storage-class specifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// `typedef`
    Typedef,
    /// `static`
    Static,
    /// `extern`
    Extern,
    /// `auto`
    Auto,
    /// `register`
    Register,
}

/// OpenCL address-space qualifiers (`__global` = `global`, and so on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddrSpaceQual {
    /// `__global` / `global`
    Global,
    /// `__local` / `local`
    Local,
    /// `__constant` / `constant`
    Constant,
    /// `__private` / `private`
    Private,
}

/// Type qualifiers, on a declaration's specifiers or on a pointer derivation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Qualifiers {
    /// `const`
    pub is_const: bool,
    /// `volatile`
    pub is_volatile: bool,
    /// `restrict` / `__restrict`
    pub is_restrict: bool,
    /// An address-space qualifier, if any.
    pub addr_space: Option<AddrSpaceQual>,
}

/// The base type named by the type specifiers, with the keyword combination already
/// resolved (`unsigned long int` → [`TypeSpec::ULong`]; OpenCL's `uint` → [`TypeSpec::UInt`]).
#[derive(Debug, Clone)]
pub enum TypeSpec {
    /// `void`
    Void,
    /// `bool` / `_Bool`
    Bool,
    /// `char` (signed in OpenCL)
    Char,
    /// `signed char`
    SChar,
    /// `unsigned char`, `uchar`
    UChar,
    /// `short`
    Short,
    /// `unsigned short`, `ushort`
    UShort,
    /// `int`, `signed`
    Int,
    /// `unsigned`, `unsigned int`, `uint`
    UInt,
    /// `long` (64 bits in OpenCL)
    Long,
    /// `unsigned long`, `ulong`
    ULong,
    /// `half`
    Half,
    /// `float`
    Float,
    /// `double`
    Double,
    /// An OpenCL vector type such as `float4` or `uint2`: element spelling and width. The
    /// parser accepts them so the compiler can say precisely that they are unsupported.
    Vector(Box<TypeSpec>, u8),
    /// `struct` or `union`.
    Record(RecordSpec),
    /// `enum`.
    Enum(EnumSpec),
    /// A name declared by `typedef` (including the prelude's `size_t`, `ptrdiff_t`, ...).
    TypedefName(String),
    /// A type keyword OpenCL has but this compiler does not implement (`image2d_t`,
    /// `sampler_t`, `event_t`, `long long`, `_Complex`, ...), by spelling.
    Unsupported(String),
}

/// `struct`/`union` specifier.
#[derive(Debug, Clone)]
pub struct RecordSpec {
    /// `union` rather than `struct`.
    pub is_union: bool,
    /// The tag, if any.
    pub tag: Option<(String, Span)>,
    /// The member declarations when this specifier defines the type (`{ ... }`).
    pub fields: Option<Vec<FieldDecl>>,
    /// Attributes (`__attribute__((packed))`, `aligned(N)`).
    pub attributes: Vec<Attribute>,
    /// From `struct` to the closing brace or tag.
    pub span: Span,
}

/// One member declaration: `specifiers declarator [: width], ...;`
#[derive(Debug, Clone)]
pub struct FieldDecl {
    /// The shared specifiers.
    pub specs: DeclSpecs,
    /// Each declarator with its bit-field width (bit-fields are parsed so that they can be
    /// reported as unsupported).
    pub declarators: Vec<(Declarator, Option<Expr>)>,
    /// Through the semicolon.
    pub span: Span,
}

/// `enum` specifier.
#[derive(Debug, Clone)]
pub struct EnumSpec {
    /// The tag, if any.
    pub tag: Option<(String, Span)>,
    /// The enumerators when this specifier defines the type.
    pub variants: Option<Vec<Enumerator>>,
    /// From `enum` to the closing brace or tag.
    pub span: Span,
}

/// `NAME [= value]` in an enum.
#[derive(Debug, Clone)]
pub struct Enumerator {
    /// The constant's name.
    pub name: String,
    /// Its explicit value.
    pub value: Option<Expr>,
    /// The name's span.
    pub span: Span,
}

/// `__attribute__((name(args)))`, or OpenCL's spellings of the same.
#[derive(Debug, Clone)]
pub struct Attribute {
    /// The attribute's name with any surrounding underscores kept (`reqd_work_group_size`,
    /// `aligned`, `__aligned__`).
    pub name: String,
    /// Its arguments, parsed as expressions where they are expressions; a type argument
    /// (`vec_type_hint(float4)`) is kept as [`ExprKind::TypeArg`].
    pub args: Vec<Expr>,
    /// The attribute's span.
    pub span: Span,
}

/// The specifiers of a declaration.
#[derive(Debug, Clone)]
pub struct DeclSpecs {
    /// Storage class, if any.
    pub storage: Option<Storage>,
    /// `__kernel` / `kernel`.
    pub is_kernel: bool,
    /// `inline` / `__inline`.
    pub is_inline: bool,
    /// Qualifiers on the base type.
    pub qualifiers: Qualifiers,
    /// The base type.
    pub ty: TypeSpec,
    /// Attributes anywhere among the specifiers.
    pub attributes: Vec<Attribute>,
    /// The specifiers' span.
    pub span: Span,
}

/// One step from a declarator's name outward: `int *a[3]` declares `a` as
/// `[Array(3), Pointer]` — an array of 3 pointers to int.
#[derive(Debug, Clone)]
pub enum Derived {
    /// `* qualifiers`
    Pointer(Qualifiers),
    /// `[size]`; `None` for `[]`.
    Array(Option<Box<Expr>>),
    /// `(parameters)`: a function.
    Function {
        /// The parameters; `(void)` gives none.
        params: Vec<ParamDecl>,
        /// `...` at the end.
        variadic: bool,
    },
}

/// A declarator: an optional name and its derivations, innermost (closest to the name) first.
#[derive(Debug, Clone)]
pub struct Declarator {
    /// The declared name and its span; `None` in an abstract declarator (type names,
    /// unnamed parameters).
    pub name: Option<(String, Span)>,
    /// Derivations from the name outward.
    pub derived: Vec<Derived>,
    /// Attributes written inside the declarator.
    pub attributes: Vec<Attribute>,
    /// The declarator's span.
    pub span: Span,
}

/// A function parameter.
#[derive(Debug, Clone)]
pub struct ParamDecl {
    /// Its specifiers.
    pub specs: DeclSpecs,
    /// Its declarator (possibly abstract).
    pub declarator: Declarator,
    /// The parameter's span.
    pub span: Span,
}

/// A type as written in a cast, `sizeof`, or compound literal.
#[derive(Debug, Clone)]
pub struct TypeName {
    /// Specifiers.
    pub specs: DeclSpecs,
    /// An abstract declarator.
    pub declarator: Declarator,
    /// The type name's span.
    pub span: Span,
}

/// An initializer.
#[derive(Debug, Clone)]
pub enum Initializer {
    /// `= expr`
    Expr(Expr),
    /// `= { [designator =] init, ... }`
    List {
        /// The elements with their designators.
        items: Vec<(Vec<Designator>, Initializer)>,
        /// Braces included.
        span: Span,
    },
}

/// `.field` or `[index]` in a designated initializer.
#[derive(Debug, Clone)]
pub enum Designator {
    /// `.name`
    Field(String, Span),
    /// `[constant-expression]`
    Index(Expr),
}

/// A statement.
#[derive(Debug, Clone)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Its span (for compound statements, braces included).
    pub span: Span,
}

/// A block item: a declaration or a statement.
#[derive(Debug, Clone)]
pub enum BlockItem {
    /// A declaration.
    Decl(Declaration),
    /// A statement.
    Stmt(Stmt),
}

/// The first clause of a `for`.
#[derive(Debug, Clone)]
pub enum ForInit {
    /// `for (int i = 0; ...)`
    Decl(Declaration),
    /// `for (i = 0; ...)`
    Expr(Expr),
    /// `for (; ...)`
    None,
}

/// The kinds of statements.
#[derive(Debug, Clone)]
pub enum StmtKind {
    /// `{ ... }`
    Compound(Vec<BlockItem>),
    /// `expr;` or `;`
    Expr(Option<Expr>),
    /// `if (cond) then [else other]`
    If {
        /// The condition.
        cond: Expr,
        /// The then-branch.
        then: Box<Stmt>,
        /// The else-branch.
        otherwise: Option<Box<Stmt>>,
    },
    /// `while (cond) body`
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Box<Stmt>,
    },
    /// `do body while (cond);`
    DoWhile {
        /// The body.
        body: Box<Stmt>,
        /// The condition.
        cond: Expr,
    },
    /// `for (init; cond; step) body`
    For {
        /// The first clause.
        init: ForInit,
        /// The condition (absent: always true).
        cond: Option<Expr>,
        /// The step.
        step: Option<Expr>,
        /// The body.
        body: Box<Stmt>,
    },
    /// `switch (expr) body`
    Switch {
        /// The controlling expression.
        expr: Expr,
        /// The body, usually a compound statement with `case` labels.
        body: Box<Stmt>,
    },
    /// `case value: stmt` (also GNU `case lo ... hi:`, with `high`).
    Case {
        /// The value.
        value: Expr,
        /// The upper end of a GNU case range.
        high: Option<Expr>,
        /// The labelled statement.
        body: Box<Stmt>,
    },
    /// `default: stmt`
    Default(Box<Stmt>),
    /// `label: stmt`
    Labeled {
        /// The label.
        label: String,
        /// The labelled statement.
        body: Box<Stmt>,
    },
    /// `goto label;`
    Goto(String),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return [expr];`
    Return(Option<Expr>),
}

/// An expression.
#[derive(Debug, Clone)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Its span.
    pub span: Span,
    /// The macro expansion its first token came from, for diagnostics.
    pub expansion: Option<ExpnId>,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `+x`
    Plus,
    /// `-x`
    Minus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `*p`
    Deref,
    /// `&x`
    AddrOf,
    /// `++x`
    PreInc,
    /// `--x`
    PreDec,
    /// `x++`
    PostInc,
    /// `x--`
    PostDec,
}

/// Binary operators (also the operation of a compound assignment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogOr,
}

/// Integer literal suffixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IntSuffix {
    /// `u`/`U`
    pub unsigned: bool,
    /// `l`/`L` (1) or `ll`/`LL` (2).
    pub long: u8,
}

/// The floating literal suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatSuffix {
    /// No suffix: `double`.
    None,
    /// `f`/`F`: `float`.
    F,
    /// `h`/`H`: `half`.
    H,
    /// `l`/`L`: `long double` (unsupported).
    L,
}

/// The kinds of expressions.
#[derive(Debug, Clone)]
pub enum ExprKind {
    /// A name: variable, function, enumerator.
    Ident(String),
    /// An integer constant.
    IntLit {
        /// Its value (it may not fit any type: the semantic pass reports that).
        value: u128,
        /// Its suffix.
        suffix: IntSuffix,
        /// Written in decimal (C's type rules differ for octal and hex).
        decimal: bool,
    },
    /// A floating constant, kept as written so that it is converted exactly once to its type.
    FloatLit {
        /// The literal without its suffix (`1.5`, `0x1.8p3`, `1e-3`).
        text: String,
        /// Its suffix.
        suffix: FloatSuffix,
    },
    /// A character constant's value (`'a'` = 97; multi-character constants as C).
    CharLit(i64),
    /// A string literal's bytes (concatenated adjacent literals, escapes resolved), without
    /// the terminating NUL.
    StrLit(Vec<u8>),
    /// A unary operation.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operation.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `lhs = rhs` (`op` = `None`) or `lhs op= rhs`.
    Assign {
        /// The compound operation, if any.
        op: Option<BinaryOp>,
        /// The assigned object.
        lhs: Box<Expr>,
        /// The value.
        rhs: Box<Expr>,
    },
    /// `cond ? then : otherwise`
    Conditional {
        /// The condition.
        cond: Box<Expr>,
        /// Its value when true.
        then: Box<Expr>,
        /// Its value when false.
        otherwise: Box<Expr>,
    },
    /// `lhs, rhs`
    Comma(Box<Expr>, Box<Expr>),
    /// `callee(args)`
    Call {
        /// The called expression (usually an [`ExprKind::Ident`]).
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `base[index]`
    Index(Box<Expr>, Box<Expr>),
    /// `base.field` (`arrow` false) or `base->field` (`arrow` true).
    Member {
        /// The struct or pointer.
        base: Box<Expr>,
        /// The member's name.
        field: String,
        /// `->` rather than `.`.
        arrow: bool,
    },
    /// `(type) expr`
    Cast(Box<TypeName>, Box<Expr>),
    /// `(type){ initializers }` (also OpenCL's vector literal `(float4)(1, 2, 3, 4)`,
    /// whose parenthesized list is kept as the initializer list).
    CompoundLiteral(Box<TypeName>, Box<Initializer>),
    /// `sizeof expr`
    SizeofExpr(Box<Expr>),
    /// `sizeof(type)`
    SizeofType(Box<TypeName>),
    /// `_Alignof(type)` / `__alignof__(type)`
    AlignofType(Box<TypeName>),
    /// `vec_step(...)` and other type-taking built-ins: a type where an argument is expected.
    TypeArg(Box<TypeName>),
}
