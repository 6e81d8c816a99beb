//! The interpreter on hand-written kernels: OpenCL C's rules where C's differ (shifts,
//! built-ins, barriers, `__local` memory, atomics) with results computed by hand, and every
//! kind of undefined behaviour it must trap on.

use warpkit_clsmith::ast::*;
use warpkit_clsmith::interp::trap::{Trap, Ub};
use warpkit_clsmith::interp::value::ShiftRule;
use warpkit_clsmith::interp::{run, Options};
use warpkit_clsmith::ArgValue;

fn int(v: u64) -> Expr {
    Expr::Int(IntLit {
        value: v,
        radix: Radix::Dec,
        suffix: Suffix::None,
        upper: false,
    })
}

fn lit(v: u64, radix: Radix, suffix: Suffix) -> Expr {
    Expr::Int(IntLit {
        value: v,
        radix,
        suffix,
        upper: false,
    })
}

fn var(v: VarId) -> Expr {
    Expr::Var(v)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn cast(s: Scalar, e: Expr) -> Expr {
    Expr::Cast(Type::Scalar(s), Box::new(e))
}

fn neg(e: Expr) -> Expr {
    Expr::Unary(UnOp::Neg, Box::new(e))
}

fn idx(a: Expr, i: Expr) -> Expr {
    Expr::Index(Box::new(a), Box::new(i))
}

fn set(a: Expr, b: Expr) -> Stmt {
    Stmt::Expr(Expr::Assign(None, Box::new(a), Box::new(b)))
}

fn wi(w: WorkItem) -> Expr {
    Expr::Builtin(Builtin::WorkItem(w), vec![int(0)])
}

fn call(b: Builtin, args: Vec<Expr>) -> Expr {
    Expr::Builtin(b, args)
}

/// A kernel `k(__global long *out, extra params...)` with the given variables and body.
struct K {
    vars: Vec<VarDecl>,
    params: Vec<VarId>,
    body: Vec<Stmt>,
}

const OUT: VarId = 0;

impl K {
    fn new() -> K {
        let mut k = K {
            vars: Vec::new(),
            params: Vec::new(),
            body: Vec::new(),
        };
        let out = k.var(
            "out",
            Type::Ptr {
                space: Space::Global,
                konst: false,
                pointee: Box::new(Type::Scalar(Scalar::Long)),
            },
        );
        k.params.push(out);
        k
    }

    fn var(&mut self, name: &str, ty: Type) -> VarId {
        self.vars.push(VarDecl {
            name: name.into(),
            ty,
            space: Space::Private,
            explicit_space: false,
            konst: false,
        });
        self.vars.len() as VarId - 1
    }

    fn local(&mut self, name: &str, ty: Type) -> VarId {
        let v = self.var(name, ty);
        self.vars[v as usize].space = Space::Local;
        self.body.push(Stmt::Decl(v, None));
        v
    }

    fn decl(&mut self, name: &str, s: Scalar, init: Expr) -> VarId {
        let v = self.var(name, Type::Scalar(s));
        self.body.push(Stmt::Decl(v, Some(Init::Expr(init))));
        v
    }

    fn program(self) -> Program {
        Program {
            aliases: vec![Alias {
                name: "size_t".into(),
                target: Type::Scalar(Scalar::ULong),
                builtin: true,
            }],
            functions: vec![Function {
                name: "k".into(),
                kernel: true,
                short_kernel_keyword: false,
                ret: Type::Void,
                params: self.params,
                vars: self.vars,
                body: Block { stmts: self.body },
            }],
            ..Default::default()
        }
    }
}

/// Runs a kernel over `n` work-items in workgroups of `group`, `out` holding one long each;
/// returns `out`.
fn exec(p: &Program, n: u32, group: u32, rule: ShiftRule) -> Result<Vec<i64>, Trap> {
    let opts = Options {
        shift_rule: rule,
        step_limit: 100_000,
        ..Default::default()
    };
    let args = vec![ArgValue::Buffer(vec![0; n as usize * 8])];
    let finals = run(p, 0, [n / group, 1, 1], [group, 1, 1], &args, &opts)?;
    let out = finals[0].clone().expect("out");
    Ok(out
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8")))
        .collect())
}

/// `out[gid] = e` for one work-item.
fn value_of(e: Expr) -> Result<i64, Trap> {
    let mut k = K::new();
    k.body.push(set(idx(var(OUT), int(0)), e));
    exec(&k.program(), 1, 1, ShiftRule::OpenCl).map(|v| v[0])
}

fn ub_of(e: Expr) -> Ub {
    match value_of(e) {
        Err(t) => t.ub,
        Ok(v) => panic!("expected a trap, got {v}"),
    }
}

#[test]
fn shifts_use_the_low_bits_of_the_count() {
    assert_eq!(value_of(bin(BinOp::Shl, int(1), int(33))), Ok(2));
    assert_eq!(
        value_of(bin(BinOp::Shl, lit(1, Radix::Dec, Suffix::L), int(33))),
        Ok(1 << 33)
    );
    // The promoted left operand decides the width: char shifts as int.
    assert_eq!(
        value_of(bin(BinOp::Shl, cast(Scalar::Char, int(1)), int(9))),
        Ok(512)
    );
    assert_eq!(value_of(bin(BinOp::Shr, neg(int(64)), neg(int(1)))), Ok(-1));
    assert_eq!(
        value_of(bin(BinOp::Shr, cast(Scalar::UInt, neg(int(64))), int(36))),
        Ok(0x0fff_fffc)
    );
    // Bits leave a signed value on the left; a negative value shifts in ones on the right.
    assert_eq!(
        value_of(bin(BinOp::Shl, int(0x4000_0001), int(1))),
        Ok(i32::MIN as i64 + 2)
    );
    let mut k = K::new();
    k.body
        .push(set(idx(var(OUT), int(0)), bin(BinOp::Shl, int(1), int(32))));
    assert!(matches!(
        exec(&k.program(), 1, 1, ShiftRule::C),
        Err(Trap {
            ub: Ub::ShiftCount(_),
            ..
        })
    ));
}

#[test]
fn integer_promotions_and_conversions() {
    let uc = |v| cast(Scalar::UChar, int(v));
    assert_eq!(value_of(bin(BinOp::Add, uc(200), uc(100))), Ok(300));
    // -1 < 0u compares as unsigned.
    assert_eq!(
        value_of(bin(BinOp::Lt, neg(int(1)), lit(0, Radix::Dec, Suffix::U))),
        Ok(0)
    );
    assert_eq!(
        value_of(bin(BinOp::Lt, neg(int(1)), lit(0, Radix::Dec, Suffix::L))),
        Ok(1)
    );
    // 2147483648 is a long; 0x80000000 a uint.
    assert_eq!(value_of(neg(int(2147483648))), Ok(-2147483648));
    assert_eq!(
        value_of(cast(
            Scalar::Long,
            neg(lit(0x8000_0000, Radix::Hex, Suffix::None))
        )),
        Ok(0x8000_0000)
    );
    // Conversions to signed types wrap (provisional), to unsigned ones reduce modulo.
    assert_eq!(value_of(cast(Scalar::Char, int(200))), Ok(-56));
    assert_eq!(value_of(cast(Scalar::UShort, neg(int(1)))), Ok(65535));
    assert_eq!(value_of(cast(Scalar::Bool, int(256))), Ok(1));
    // Float to integer truncates toward zero; `?:` has the usual arithmetic type.
    assert_eq!(
        value_of(cast(
            Scalar::Int,
            neg(Expr::Float(FloatLit {
                value: 2.75,
                single: true,
                hex: false
            }))
        )),
        Ok(-2)
    );
    let c = Expr::Cond(
        Box::new(int(1)),
        Box::new(cast(Scalar::Char, neg(int(1)))),
        Box::new(lit(0, Radix::Dec, Suffix::U)),
    );
    assert_eq!(value_of(c), Ok(0xffff_ffff));
}

#[test]
fn builtins_in_kernels() {
    let i = |v: i64| {
        if v < 0 {
            neg(int(-v as u64))
        } else {
            int(v as u64)
        }
    };
    assert_eq!(
        value_of(call(Builtin::Clz, vec![cast(Scalar::UShort, int(1))])),
        Ok(15)
    );
    assert_eq!(value_of(call(Builtin::Abs, vec![i(-7)])), Ok(7));
    assert_eq!(
        value_of(call(
            Builtin::Rotate,
            vec![cast(Scalar::UChar, int(0x81)), cast(Scalar::UChar, int(4))]
        )),
        Ok(0x18)
    );
    assert_eq!(value_of(call(Builtin::Min, vec![i(-3), i(2)])), Ok(-3));
    assert!(matches!(
        ub_of(call(Builtin::Mul24, vec![int(1 << 24), int(1)])),
        Ub::BuiltinDomain(_)
    ));
    assert!(matches!(
        ub_of(call(Builtin::Clamp, vec![i(0), i(3), i(2)])),
        Ub::BuiltinDomain(_)
    ));
    assert!(matches!(
        ub_of(call(
            Builtin::Min,
            vec![i(0), lit(1, Radix::Dec, Suffix::U)]
        )),
        Ub::Unsupported(_)
    ));
}

#[test]
fn undefined_arithmetic_traps() {
    let max = int(i32::MAX as u64);
    assert!(matches!(
        ub_of(bin(BinOp::Add, max.clone(), int(1))),
        Ub::SignedOverflow(_)
    ));
    assert_eq!(
        value_of(bin(
            BinOp::Add,
            cast(Scalar::UInt, max.clone()),
            int(1 << 31)
        )),
        Ok(u32::MAX as i64)
    );
    let us = |v| cast(Scalar::UShort, int(v));
    // ushort * ushort is an int product: 65535 * 65535 overflows.
    assert!(matches!(
        ub_of(bin(BinOp::Mul, us(65535), us(65535))),
        Ub::SignedOverflow(_)
    ));
    let min = bin(BinOp::Sub, neg(max.clone()), int(1));
    assert!(matches!(ub_of(neg(min.clone())), Ub::SignedOverflow(_)));
    assert!(matches!(
        ub_of(bin(BinOp::Div, min.clone(), neg(int(1)))),
        Ub::QuotientOverflow(_)
    ));
    assert!(matches!(
        ub_of(bin(BinOp::Rem, min, neg(int(1)))),
        Ub::QuotientOverflow(_)
    ));
    assert!(matches!(
        ub_of(bin(BinOp::Rem, int(5), int(0))),
        Ub::DivByZero(_)
    ));
    assert_eq!(value_of(bin(BinOp::Rem, neg(int(7)), int(3))), Ok(-1));
    let big = Expr::Float(FloatLit {
        value: 3e9,
        single: false,
        hex: true,
    });
    assert!(matches!(ub_of(cast(Scalar::Int, big)), Ub::FloatToInt(_)));
    let nan = bin(
        BinOp::Div,
        Expr::Float(FloatLit {
            value: 0.0,
            single: true,
            hex: false,
        }),
        Expr::Float(FloatLit {
            value: 0.0,
            single: true,
            hex: false,
        }),
    );
    assert!(matches!(
        ub_of(cast(Scalar::UChar, nan.clone())),
        Ub::FloatToInt(_)
    ));
    assert_eq!(value_of(cast(Scalar::Bool, nan)), Ok(1));
}

#[test]
fn memory_errors_trap() {
    // Uninitialized read.
    let mut k = K::new();
    let x = k.var("x", Type::Scalar(Scalar::Int));
    k.body.push(Stmt::Decl(x, None));
    k.body.push(set(idx(var(OUT), int(0)), var(x)));
    assert!(matches!(
        exec(&k.program(), 1, 1, ShiftRule::OpenCl),
        Err(Trap {
            ub: Ub::Uninit(_),
            ..
        })
    ));
    // Out of bounds, and pointer arithmetic past one-past-the-end.
    let mut k = K::new();
    let a = k.var("a", Type::Array(Box::new(Type::Scalar(Scalar::Int)), 4));
    k.body.push(Stmt::Decl(
        a,
        Some(Init::List((0..4).map(|i| Init::Expr(int(i))).collect())),
    ));
    k.body.push(set(idx(var(OUT), int(0)), idx(var(a), int(4))));
    assert!(matches!(
        exec(&k.program(), 1, 1, ShiftRule::OpenCl),
        Err(Trap {
            ub: Ub::OutOfBounds(_),
            ..
        })
    ));
    let mut k = K::new();
    let a = k.var("a", Type::Array(Box::new(Type::Scalar(Scalar::Int)), 4));
    k.body.push(Stmt::Decl(
        a,
        Some(Init::List((0..4).map(|i| Init::Expr(int(i))).collect())),
    ));
    let end = bin(BinOp::Sub, bin(BinOp::Add, var(a), int(4)), var(a));
    k.body.push(set(idx(var(OUT), int(0)), end));
    assert_eq!(exec(&k.program(), 1, 1, ShiftRule::OpenCl), Ok(vec![4]));
    let mut k = K::new();
    let a = k.var("a", Type::Array(Box::new(Type::Scalar(Scalar::Int)), 4));
    k.body.push(Stmt::Decl(
        a,
        Some(Init::List((0..4).map(|i| Init::Expr(int(i))).collect())),
    ));
    k.body.push(set(
        idx(var(OUT), int(0)),
        bin(BinOp::Sub, bin(BinOp::Add, var(a), int(5)), var(a)),
    ));
    assert!(matches!(
        exec(&k.program(), 1, 1, ShiftRule::OpenCl),
        Err(Trap {
            ub: Ub::OutOfBounds(_),
            ..
        })
    ));
    // Two work-items writing one word of a buffer race.
    let mut k = K::new();
    k.body.push(set(idx(var(OUT), int(0)), int(1)));
    assert!(matches!(
        exec(&k.program(), 2, 2, ShiftRule::OpenCl),
        Err(Trap {
            ub: Ub::Race(_),
            ..
        })
    ));
    // An endless loop meets the step limit.
    let mut k = K::new();
    k.body.push(Stmt::While(int(1), Block::default()));
    assert!(matches!(
        exec(&k.program(), 1, 1, ShiftRule::OpenCl),
        Err(Trap {
            ub: Ub::StepLimit(_),
            ..
        })
    ));
}

/// `t[lid] = 0; barrier; t[lid] = lid * 10; [barrier;] out[gid] = t[(lid + 1) % n]` over
/// one workgroup of `n`.
fn rotate_through_local(
    n: u32,
    barrier: bool,
    early_return: Option<u64>,
) -> Result<Vec<i64>, Trap> {
    let mut k = K::new();
    let t = k.local("t", Type::Array(Box::new(Type::Scalar(Scalar::Int)), 64));
    let lid = k.decl("lid", Scalar::UInt, wi(WorkItem::LocalId));
    k.body.push(set(idx(var(OUT), var(lid)), int(7)));
    k.body.push(set(idx(var(t), var(lid)), int(0)));
    k.body.push(Stmt::Barrier(1));
    k.body.push(set(
        idx(var(t), var(lid)),
        bin(BinOp::Mul, var(lid), int(10)),
    ));
    if let Some(r) = early_return {
        // Work-item r leaves before the barrier; the others still meet there.
        k.body.push(Stmt::If(
            bin(BinOp::Eq, var(lid), int(r)),
            Block {
                stmts: vec![Stmt::Return(None)],
            },
            None,
        ));
    }
    if barrier {
        k.body.push(Stmt::Barrier(1));
    }
    let next = bin(BinOp::Rem, bin(BinOp::Add, var(lid), int(1)), int(n as u64));
    k.body.push(set(idx(var(OUT), var(lid)), idx(var(t), next)));
    exec(&k.program(), n, n, ShiftRule::OpenCl)
}

#[test]
fn barriers_make_local_writes_visible() {
    let n = 37;
    let want: Vec<i64> = (0..n).map(|i| ((i + 1) % n) as i64 * 10).collect();
    assert_eq!(rotate_through_local(n as u32, true, None), Ok(want.clone()));
    // Without the barrier, reading a neighbour's slot races with its write.
    assert!(matches!(
        rotate_through_local(n as u32, false, None),
        Err(Trap {
            ub: Ub::Race(_),
            ..
        })
    ));
    // A work-item that returned no longer holds the others at the barrier.
    let mut want_ret = want;
    want_ret[5] = 7;
    assert_eq!(rotate_through_local(n as u32, true, Some(5)), Ok(want_ret));
}

#[test]
fn barrier_divergence_traps() {
    // if (lid < 3) barrier A; else barrier B;
    let mut k = K::new();
    let lid = k.decl("lid", Scalar::UInt, wi(WorkItem::LocalId));
    let a = Block {
        stmts: vec![Stmt::Barrier(1)],
    };
    let b = Block {
        stmts: vec![Stmt::Barrier(1)],
    };
    k.body
        .push(Stmt::If(bin(BinOp::Lt, var(lid), int(3)), a, Some(b)));
    k.body.push(set(idx(var(OUT), var(lid)), int(1)));
    assert!(matches!(
        exec(&k.program(), 8, 8, ShiftRule::OpenCl),
        Err(Trap {
            ub: Ub::Barrier(_),
            ..
        })
    ));
    // The same barrier in a loop whose trip count differs per work-item.
    let mut k = K::new();
    let lid = k.decl("lid", Scalar::UInt, wi(WorkItem::LocalId));
    let i = k.var("i", Type::Scalar(Scalar::UInt));
    k.body.push(Stmt::For(
        Some(Box::new(Stmt::Decl(i, Some(Init::Expr(int(0)))))),
        Some(bin(BinOp::Lt, var(i), bin(BinOp::And, var(lid), int(1)))),
        Some(Expr::IncDec(IncDec::PostInc, Box::new(var(i)))),
        Block {
            stmts: vec![Stmt::Barrier(1)],
        },
    ));
    k.body.push(Stmt::Barrier(1));
    k.body.push(set(idx(var(OUT), var(lid)), int(1)));
    assert!(matches!(
        exec(&k.program(), 4, 4, ShiftRule::OpenCl),
        Err(Trap {
            ub: Ub::Barrier(_),
            ..
        })
    ));
}

/// Every work-item of a workgroup of 8 applies `op` to `acc[0]` (starting at 100), then
/// after a barrier work-item 0 stores it; `use_result` stores the atomic's result too.
fn local_atomics(ops: &[AtomicOp], use_result: bool) -> Result<Vec<i64>, Trap> {
    let mut k = K::new();
    let acc = k.local("acc", Type::Array(Box::new(Type::Scalar(Scalar::Int)), 1));
    let lid = k.decl("lid", Scalar::UInt, wi(WorkItem::LocalId));
    k.body.push(Stmt::If(
        bin(BinOp::Eq, var(lid), int(0)),
        Block {
            stmts: vec![set(idx(var(acc), int(0)), int(100))],
        },
        None,
    ));
    k.body.push(Stmt::Barrier(1));
    let op = |o: AtomicOp| {
        let ptr = Expr::Unary(UnOp::AddrOf, Box::new(idx(var(acc), int(0))));
        let args = if matches!(o, AtomicOp::Inc | AtomicOp::Dec) {
            vec![ptr]
        } else {
            vec![ptr, cast(Scalar::Int, var(lid))]
        };
        Expr::Builtin(
            Builtin::Atomic {
                op: o,
                short: false,
            },
            args,
        )
    };
    // Even work-items use the first operation, odd ones the second.
    let even = bin(BinOp::Eq, bin(BinOp::And, var(lid), int(1)), int(0));
    let stmt = |o: AtomicOp| {
        if use_result {
            set(idx(var(OUT), var(lid)), op(o))
        } else {
            Stmt::Expr(op(o))
        }
    };
    k.body.push(Stmt::If(
        even,
        Block {
            stmts: vec![stmt(ops[0])],
        },
        Some(Block {
            stmts: vec![stmt(*ops.last().expect("op"))],
        }),
    ));
    k.body.push(Stmt::Barrier(1));
    k.body.push(Stmt::If(
        bin(BinOp::Eq, var(lid), int(0)),
        Block {
            stmts: vec![set(idx(var(OUT), int(0)), idx(var(acc), int(0)))],
        },
        None,
    ));
    exec(&k.program(), 8, 8, ShiftRule::OpenCl)
}

#[test]
fn atomics_must_not_depend_on_order() {
    // add and sub commute: 100 + (0 + 2 + 4 + 6) - (1 + 3 + 5 + 7) = 96.
    assert_eq!(
        local_atomics(&[AtomicOp::Add, AtomicOp::Sub], false).map(|v| v[0]),
        Ok(96)
    );
    assert_eq!(
        local_atomics(&[AtomicOp::Inc, AtomicOp::Dec], false).map(|v| v[0]),
        Ok(100)
    );
    assert_eq!(
        local_atomics(&[AtomicOp::Max], false).map(|v| v[0]),
        Ok(100)
    );
    // add and xor do not commute; an atomic's old value depends on the order.
    assert!(matches!(
        local_atomics(&[AtomicOp::Add, AtomicOp::Xor], false),
        Err(Trap {
            ub: Ub::AtomicOrder(_),
            ..
        })
    ));
    assert!(matches!(
        local_atomics(&[AtomicOp::Add], true),
        Err(Trap {
            ub: Ub::AtomicOrder(_),
            ..
        })
    ));
}

#[test]
fn structs_copy_by_value() {
    // struct S { int a; int b[2]; } s = {1, {2, 3}}; S t = s; t.b[1] = 9; out = s.b[1] * 10 + t.b[1]
    let mut k = K::new();
    let sty = Type::Struct(0);
    let s = k.var("s", sty.clone());
    let t = k.var("t", sty);
    k.body.push(Stmt::Decl(
        s,
        Some(Init::List(vec![
            Init::Expr(int(1)),
            Init::List(vec![Init::Expr(int(2)), Init::Expr(int(3))]),
        ])),
    ));
    k.body.push(Stmt::Decl(t, Some(Init::Expr(var(s)))));
    let tb1 = idx(Expr::Member(Box::new(var(t)), 1), int(1));
    k.body.push(set(tb1.clone(), int(9)));
    let sb1 = idx(Expr::Member(Box::new(var(s)), 1), int(1));
    k.body.push(set(
        idx(var(OUT), int(0)),
        bin(BinOp::Add, bin(BinOp::Mul, sb1, int(10)), tb1),
    ));
    let mut p = k.program();
    p.structs.push(StructDef {
        name: "S".into(),
        fields: vec![
            Field {
                name: "a".into(),
                ty: Type::Scalar(Scalar::Int),
            },
            Field {
                name: "b".into(),
                ty: Type::Array(Box::new(Type::Scalar(Scalar::Int)), 2),
            },
        ],
    });
    assert_eq!(exec(&p, 1, 1, ShiftRule::OpenCl), Ok(vec![39]));
    let text = warpkit_clsmith::print::program(&p);
    assert!(
        text.contains("t.b[1] = 9;") && text.contains("out[0] = s.b[1] * 10 + t.b[1];"),
        "{text}"
    );
}

#[test]
fn short_circuits_skip_side_effects() {
    // int x = 5; (0 && (x = 1)) || (x += 2); out = x  ->  7
    let mut k = K::new();
    let x = k.decl("x", Scalar::Int, int(5));
    let assign = |op, v| Expr::Assign(op, Box::new(var(x)), Box::new(int(v)));
    let e = bin(
        BinOp::LogOr,
        bin(BinOp::LogAnd, int(0), assign(None, 1)),
        assign(Some(BinOp::Add), 2),
    );
    k.body.push(Stmt::Expr(e));
    k.body.push(set(idx(var(OUT), int(0)), var(x)));
    assert_eq!(exec(&k.program(), 1, 1, ShiftRule::OpenCl), Ok(vec![7]));
}
