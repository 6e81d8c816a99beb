//! The static type of an expression by C's rules, from the program text alone. The
//! interpreter needs it where an operand is not evaluated (the branch of `?:` not taken
//! still decides the result type) and the printer to name struct members.

use crate::ast::{BinOp, Builtin, Expr, Function, Program, Scalar, Space, Type, UnOp, WorkItem};
use crate::ctype::{literal_type, promote, usual};

/// `size_t` here: 64-bit unsigned (the address space is 64-bit).
pub const SIZE_T: Scalar = Scalar::ULong;

/// `ptrdiff_t` here: 64-bit signed.
pub const PTRDIFF_T: Scalar = Scalar::Long;

/// The type of `e` in function `f`, before array-to-pointer decay.
pub fn static_type(p: &Program, f: Option<&Function>, e: &Expr) -> Type {
    match e {
        Expr::Int(l) => Type::Scalar(literal_type(l).expect("literal in range")),
        Expr::Float(l) => Type::Scalar(if l.single {
            Scalar::Float
        } else {
            Scalar::Double
        }),
        Expr::Var(v) => f.expect("variable inside a function").vars[*v as usize]
            .ty
            .clone(),
        Expr::Const(c) => {
            let t = &p.constants[*c as usize];
            Type::Array(Box::new(Type::Scalar(t.elem)), t.values.len() as u32)
        }
        Expr::MacroParam(_) => panic!("static_type of a macro parameter outside an expansion"),
        Expr::Macro(m, args) => static_type(p, f, &expand(&p.macros[*m as usize].body, args)),
        Expr::Unary(op, x) => match op {
            UnOp::Neg | UnOp::Plus | UnOp::BitNot => Type::Scalar(promote(scalar_of(p, f, x))),
            UnOp::Not => Type::Scalar(Scalar::Int),
            UnOp::Deref => pointee(p, &decayed(p, f, x)),
            UnOp::AddrOf => Type::Ptr {
                space: lvalue_space(p, f, x),
                konst: false,
                pointee: Box::new(static_type(p, f, x)),
            },
        },
        Expr::IncDec(_, x) => static_type(p, f, x),
        Expr::Binary(op, a, b) => binary_type(p, f, *op, a, b),
        Expr::Assign(_, a, _) => static_type(p, f, a),
        Expr::Cond(_, a, b) => {
            let (ta, tb) = (decayed(p, f, a), decayed(p, f, b));
            match (p.scalar(&ta), p.scalar(&tb)) {
                (Some(x), Some(y)) => Type::Scalar(usual(x, y)),
                _ => ta,
            }
        }
        Expr::Comma(_, b) => decayed(p, f, b),
        Expr::Cast(t, _) => t.clone(),
        Expr::Index(a, _) => pointee(p, &decayed(p, f, a)),
        Expr::Member(s, i) => field_type(p, &static_type(p, f, s), *i),
        Expr::Arrow(s, i) => field_type(p, &pointee(p, &decayed(p, f, s)), *i),
        Expr::Call(g, _) => p.functions[*g as usize].ret.clone(),
        Expr::Builtin(b, args) => builtin_type(p, f, *b, args),
        Expr::SizeOf(_) => Type::Scalar(SIZE_T),
    }
}

/// The type of `e` as an operand: arrays become pointers to their first element.
pub fn decayed(p: &Program, f: Option<&Function>, e: &Expr) -> Type {
    let t = static_type(p, f, e);
    match p.resolve(&t) {
        Type::Array(elem, _) => Type::Ptr {
            space: lvalue_space(p, f, e),
            konst: false,
            pointee: elem.clone(),
        },
        _ => t,
    }
}

/// The address space of the object an lvalue designates.
pub fn lvalue_space(p: &Program, f: Option<&Function>, e: &Expr) -> Space {
    match e {
        Expr::Var(v) => f.expect("variable inside a function").vars[*v as usize].space,
        Expr::Const(_) => Space::Constant,
        Expr::Index(a, _) | Expr::Arrow(a, _) | Expr::Unary(UnOp::Deref, a) => {
            match p.resolve(&decayed(p, f, a)) {
                Type::Ptr { space, .. } => *space,
                t => panic!("indexing a non-pointer {t:?}"),
            }
        }
        Expr::Member(s, _) => lvalue_space(p, f, s),
        Expr::Macro(m, args) => lvalue_space(p, f, &expand(&p.macros[*m as usize].body, args)),
        // Struct rvalues (calls, `?:`, assignments) live in private memory.
        _ => Space::Private,
    }
}

/// The macro body with its parameters replaced by the arguments.
pub fn expand(body: &Expr, args: &[Expr]) -> Expr {
    let sub = |e: &Expr| Box::new(expand(e, args));
    match body {
        Expr::MacroParam(i) => args[*i as usize].clone(),
        Expr::Int(_) | Expr::Float(_) | Expr::Var(_) | Expr::Const(_) | Expr::SizeOf(_) => {
            body.clone()
        }
        Expr::Macro(m, a) => Expr::Macro(*m, a.iter().map(|x| expand(x, args)).collect()),
        Expr::Unary(op, x) => Expr::Unary(*op, sub(x)),
        Expr::IncDec(op, x) => Expr::IncDec(*op, sub(x)),
        Expr::Binary(op, a, b) => Expr::Binary(*op, sub(a), sub(b)),
        Expr::Assign(op, a, b) => Expr::Assign(*op, sub(a), sub(b)),
        Expr::Cond(c, a, b) => Expr::Cond(sub(c), sub(a), sub(b)),
        Expr::Comma(a, b) => Expr::Comma(sub(a), sub(b)),
        Expr::Cast(t, x) => Expr::Cast(t.clone(), sub(x)),
        Expr::Index(a, b) => Expr::Index(sub(a), sub(b)),
        Expr::Member(a, i) => Expr::Member(sub(a), *i),
        Expr::Arrow(a, i) => Expr::Arrow(sub(a), *i),
        Expr::Call(g, a) => Expr::Call(*g, a.iter().map(|x| expand(x, args)).collect()),
        Expr::Builtin(b, a) => Expr::Builtin(*b, a.iter().map(|x| expand(x, args)).collect()),
    }
}

fn scalar_of(p: &Program, f: Option<&Function>, e: &Expr) -> Scalar {
    let t = decayed(p, f, e);
    p.scalar(&t)
        .unwrap_or_else(|| panic!("arithmetic operand expected, got {t:?}"))
}

fn pointee(p: &Program, t: &Type) -> Type {
    match p.resolve(t) {
        Type::Ptr { pointee, .. } => (**pointee).clone(),
        t => panic!("pointer expected, got {t:?}"),
    }
}

fn field_type(p: &Program, t: &Type, i: u32) -> Type {
    match p.resolve(t) {
        Type::Struct(s) => p.structs[*s as usize].fields[i as usize].ty.clone(),
        t => panic!("struct expected, got {t:?}"),
    }
}

fn binary_type(p: &Program, f: Option<&Function>, op: BinOp, a: &Expr, b: &Expr) -> Type {
    if op.is_comparison() || matches!(op, BinOp::LogAnd | BinOp::LogOr) {
        return Type::Scalar(Scalar::Int);
    }
    let (ta, tb) = (decayed(p, f, a), decayed(p, f, b));
    let pa = matches!(p.resolve(&ta), Type::Ptr { .. });
    let pb = matches!(p.resolve(&tb), Type::Ptr { .. });
    match (pa, pb) {
        (true, true) => Type::Scalar(PTRDIFF_T),
        (true, false) => ta,
        (false, true) => tb,
        (false, false) => {
            let (x, y) = (
                p.scalar(&ta).expect("arithmetic"),
                p.scalar(&tb).expect("arithmetic"),
            );
            match op {
                BinOp::Shl | BinOp::Shr => Type::Scalar(promote(x)),
                _ => Type::Scalar(usual(x, y)),
            }
        }
    }
}

fn builtin_type(p: &Program, f: Option<&Function>, b: Builtin, args: &[Expr]) -> Type {
    match b {
        Builtin::WorkItem(WorkItem::WorkDim) => Type::Scalar(Scalar::UInt),
        Builtin::WorkItem(_) => Type::Scalar(SIZE_T),
        Builtin::Abs => Type::Scalar(scalar_of(p, f, &args[0]).to_unsigned()),
        Builtin::Atomic { .. } => pointee(p, &decayed(p, f, &args[0])),
        // Every other built-in returns its (first) argument's type: the generator passes
        // arguments of exactly the overload's type.
        _ => Type::Scalar(scalar_of(p, f, &args[0])),
    }
}
