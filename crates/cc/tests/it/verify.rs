//! The verifier accepts well-formed IR and names the op and the rule for each kind of
//! malformed IR.

use crate::build::*;
use warpkit_cc::ir::verify::{verify, verify_module, VerifyError};
use warpkit_cc::ir::{
    AtomicOp, BinOp, CastOp, CmpPred, Function, MemTy, Module, OpId, OpKind, ParamKind, RegionId,
    Space, Ty, UnOp, ValueId, WorkItem,
};

/// A kernel using every structure: params, if with results, a loop with carried values,
/// memory and atomics.
fn good() -> Function {
    let mut b = B::new("good");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let l = b.local_object("tile", 64, 4);
    let gid = b.gid();
    let zero = b.i32(0);
    let sum = b.for_(0, n, 1, &[zero], |b, i, c| {
        let x = b.add(c[0], i);
        vec![x]
    })[0];
    let odd = b.i32(1);
    let bit = b.bin(BinOp::And, gid, odd);
    let c = b.cmp(CmpPred::Eq, bit, odd);
    let v = b.if_(
        c,
        &[Ty::I32],
        |b| {
            let two = b.i32(2);
            vec![b.mul(sum, two)]
        },
        |_| vec![sum],
    )[0];
    let p = b.index(out, gid, 4);
    b.store(4, p, v);
    let lp = b.op(OpKind::LocalAddr(l), vec![], LOCAL);
    b.op(OpKind::Atomic(AtomicOp::Add), vec![lp, v], Ty::I32);
    b.barrier();
    b.finish()
}

fn err(f: &Function) -> VerifyError {
    verify(f).expect_err("the verifier accepted bad IR")
}

fn find(f: &Function, pred: impl Fn(&OpKind) -> bool) -> OpId {
    f.walk()
        .into_iter()
        .find(|&o| pred(&f.op(o).kind))
        .expect("op present")
}

fn expect(f: &Function, op: Option<OpId>, needle: &str) {
    let e = err(f);
    assert_eq!(e.op, op, "wrong op in {e}");
    let text = e.to_string();
    assert!(
        text.contains(needle),
        "`{text}` does not mention `{needle}`"
    );
    assert!(text.starts_with(&format!("kernel @{}: ", f.name)), "{text}");
}

#[test]
fn accepts_good_ir() {
    let f = good();
    verify(&f).unwrap();
    verify_module(&Module {
        kernels: vec![f],
        constants: vec![],
    })
    .unwrap();
}

#[test]
fn op_in_two_regions() {
    let mut f = good();
    let body = f.body;
    let op = find(&f, |k| matches!(k, OpKind::Const(1)));
    assert_ne!(f.op(op).parent, body);
    f.region_mut(body).ops.insert(0, op);
    expect(&f, Some(op), "parent is region");
    // Listed twice in one region: the second listing is the error.
    let mut f = good();
    let op = f.region(f.body).ops[0];
    let body = f.body;
    f.region_mut(body).ops.push(op);
    expect(&f, Some(op), "more than one place");
}

#[test]
fn region_parent_mismatch() {
    let mut f = good();
    let iff = find(&f, |k| *k == OpKind::If);
    let arm = f.op(iff).regions[0];
    f.region_mut(arm).parent = None;
    expect(&f, Some(iff), "parent is no operation, not its owner");
}

#[test]
fn if_rules() {
    let mut f = good();
    let iff = find(&f, |k| *k == OpKind::If);
    let gid = f.region(f.body).ops[0];
    let v = f.op(gid).results[0];
    f.op_mut(iff).operands[0] = v;
    expect(&f, Some(iff), "if takes one i1 operand");

    // An arm whose yield is missing.
    let mut f = good();
    let iff = find(&f, |k| *k == OpKind::If);
    let arm = f.op(iff).regions[1];
    f.region_mut(arm).ops.pop();
    expect(&f, Some(iff), "does not end with yield");

    // A yield of the wrong type.
    let mut f = good();
    let iff = find(&f, |k| *k == OpKind::If);
    let arm = f.op(iff).regions[0];
    let y = *f.region(arm).ops.last().unwrap();
    let c = f.push_const(arm, Ty::I64, 1, warpkit_cc::source::Span::DUMMY);
    let ops = &mut f.region_mut(arm).ops;
    let n = ops.len();
    ops.swap(n - 2, n - 1);
    f.op_mut(y).operands = vec![c];
    expect(&f, Some(y), "yields [i64] but the if's results are [i32]");
}

#[test]
fn yield_and_loop_end_placement() {
    // A yield in the body region.
    let mut f = good();
    let body = f.body;
    let y = f.push_op(
        body,
        OpKind::Yield,
        vec![],
        &[],
        vec![],
        warpkit_cc::source::Span::DUMMY,
    );
    expect(
        &f,
        Some(y),
        "yield may appear only as the last operation of an if arm",
    );
    // A loop_end in an if arm (before its yield).
    let mut f = good();
    let iff = find(&f, |k| *k == OpKind::If);
    let arm = f.op(iff).regions[1];
    let t = f.push_const(arm, Ty::I1, 0, warpkit_cc::source::Span::DUMMY);
    let le = f.create_op(
        arm,
        OpKind::LoopEnd,
        vec![t],
        &[],
        vec![],
        warpkit_cc::source::Span::DUMMY,
    );
    let tdef = f.def_op(t).unwrap();
    let ops = &mut f.region_mut(arm).ops;
    let y = ops[0];
    *ops = vec![tdef, le, y];
    expect(
        &f,
        Some(le),
        "loop_end may appear only as the last operation of a loop body",
    );
}

#[test]
fn loop_rules() {
    let mut f = good();
    let lp = find(&f, |k| *k == OpKind::Loop);
    let body = f.op(lp).regions[0];
    let le = *f.region(body).ops.last().unwrap();
    // The continue flag replaced by an i32.
    let next = f.op(le).operands[1];
    f.op_mut(le).operands[0] = next;
    expect(&f, Some(le), "loop_end takes [i1, i32, i32]");

    let mut f = good();
    let lp = find(&f, |k| *k == OpKind::Loop);
    let body = f.op(lp).regions[0];
    let le = *f.region(body).ops.last().unwrap();
    f.op_mut(le).operands.pop();
    expect(&f, Some(le), "not [i1, i32]");

    let mut f = good();
    let lp = find(&f, |k| *k == OpKind::Loop);
    f.op_mut(lp).operands.pop();
    expect(
        &f,
        Some(lp),
        "operand types [i32], body argument types [i32, i32]",
    );

    let mut f = good();
    let lp = find(&f, |k| *k == OpKind::Loop);
    let body = f.op(lp).regions[0];
    f.region_mut(body).ops.pop();
    expect(&f, Some(lp), "does not end with loop_end");
}

fn fresh(b: &mut B, kind: OpKind, operands: Vec<ValueId>, ty: Ty) -> OpId {
    let v = b.op(kind, operands, ty);
    b.f.def_op(v).unwrap()
}

fn one_op(setup: impl FnOnce(&mut B) -> (OpKind, Vec<ValueId>, Vec<Ty>), needle: &str) {
    let mut b = B::new("k");
    let (kind, operands, tys) = setup(&mut b);
    let r = b.cur();
    let op = b.f.push_op(
        r,
        kind,
        operands,
        &tys,
        vec![],
        warpkit_cc::source::Span::DUMMY,
    );
    expect(&b.f, Some(op), needle);
}

#[test]
fn kind_rules() {
    one_op(
        |b| {
            let x = b.i32(1);
            let y = b.i64(1);
            (OpKind::Binary(BinOp::Add), vec![x, y], vec![Ty::I32])
        },
        "both operands must have the result's type i32 (they are i32 and i64)",
    );
    one_op(
        |b| {
            let x = b.f32(1.0);
            (OpKind::Binary(BinOp::Add), vec![x, x], vec![Ty::F32])
        },
        "Add is not defined on f32",
    );
    one_op(
        |b| {
            let x = b.i32(1);
            (OpKind::Binary(BinOp::FAdd), vec![x, x], vec![Ty::I32])
        },
        "FAdd is not defined on i32",
    );
    one_op(
        |b| {
            let x = b.i1(true);
            (OpKind::Binary(BinOp::Add), vec![x, x], vec![Ty::I1])
        },
        "Add is not defined on i1",
    );
    one_op(
        |b| {
            let x = b.i32(1);
            (OpKind::Unary(UnOp::FNeg), vec![x], vec![Ty::I32])
        },
        "FNeg is not defined on i32",
    );
    one_op(
        |b| {
            let x = b.i32(1);
            let y = b.i64(1);
            (OpKind::Cmp(CmpPred::Eq), vec![x, y], vec![Ty::I1])
        },
        "different types",
    );
    one_op(
        |b| {
            let x = b.f32(1.0);
            (OpKind::Cmp(CmpPred::Slt), vec![x, x], vec![Ty::I1])
        },
        "predicate Slt is not defined on f32",
    );
    one_op(
        |b| {
            let p = b.param("p", ParamKind::PtrGlobal);
            let o = b.i32(4);
            (OpKind::PtrAdd, vec![p, o], vec![GLOBAL])
        },
        "the offset must be i64",
    );
    one_op(
        |b| {
            let p = b.param("p", ParamKind::PtrGlobal);
            (
                OpKind::Load(MemTy {
                    size: 4,
                    signed: false,
                }),
                vec![p],
                vec![Ty::I64],
            )
        },
        "a 4-byte load cannot produce i64",
    );
    one_op(
        |b| {
            let p = b.param("p", ParamKind::PtrGlobal);
            (
                OpKind::Load(MemTy {
                    size: 4,
                    signed: true,
                }),
                vec![p],
                vec![Ty::I32],
            )
        },
        "a signed 4-byte load cannot produce i32",
    );
    one_op(
        |b| {
            let p = b.param("p", ParamKind::PtrGlobal);
            let v = b.f32(1.0);
            (
                OpKind::Store(MemTy {
                    size: 8,
                    signed: false,
                }),
                vec![p, v],
                vec![],
            )
        },
        "a 8-byte store cannot write a f32",
    );
    one_op(
        |b| {
            let p = b.param("p", ParamKind::PtrConstant);
            let v = b.i32(1);
            (
                OpKind::Store(MemTy {
                    size: 4,
                    signed: false,
                }),
                vec![p, v],
                vec![],
            )
        },
        "cannot write through a constant pointer",
    );
    one_op(
        |b| {
            let o = b.private_object("x", 4, 4);
            let p = b.op(OpKind::PrivateAddr(o), vec![], PRIVATE);
            let v = b.i32(1);
            (OpKind::Atomic(AtomicOp::Add), vec![p, v], vec![Ty::I32])
        },
        "atomics work through global or local pointers",
    );
    one_op(
        |b| {
            let p = b.param("p", ParamKind::PtrGlobal);
            let v = b.i64(1);
            (OpKind::Atomic(AtomicOp::Add), vec![p, v], vec![Ty::I64])
        },
        "atomic Add works on 32-bit values",
    );
    one_op(
        |b| {
            b.param("n", ParamKind::I32);
            (OpKind::Param(0), vec![], vec![Ty::I64])
        },
        "the result type must be parameter 0's type i32",
    );
    one_op(
        |_| (OpKind::Param(3), vec![], vec![Ty::I32]),
        "parameter 3 does not exist",
    );
    one_op(
        |_| (OpKind::LocalAddr(0), vec![], vec![LOCAL]),
        "local object 0 does not exist",
    );
    one_op(
        |b| {
            b.private_object("x", 4, 4);
            (OpKind::PrivateAddr(0), vec![], vec![LOCAL])
        },
        "the result must be a ptr.private",
    );
    one_op(
        |b| {
            let x = b.i32(1);
            (OpKind::Cast(CastOp::ZExt), vec![x], vec![Ty::I32])
        },
        "ZExt cannot convert i32 to i32",
    );
    one_op(
        |b| {
            let x = b.f32(1.0);
            (OpKind::Cast(CastOp::Bitcast), vec![x], vec![Ty::I64])
        },
        "Bitcast cannot convert f32 to i64",
    );
    one_op(
        |b| {
            let x = b.f32(1.0);
            (OpKind::Cast(CastOp::Bitcast), vec![x], vec![LOCAL])
        },
        "Bitcast cannot convert f32 to ptr.local",
    );
    one_op(
        |_| (OpKind::Const(0x1_0000_0000), vec![], vec![Ty::I32]),
        "bits 0x100000000 do not fit in i32",
    );
    one_op(
        |_| (OpKind::Const(2), vec![], vec![Ty::I1]),
        "do not fit in i1",
    );
    one_op(
        |_| (OpKind::Const(0), vec![], vec![GLOBAL]),
        "a constant cannot be a pointer",
    );
    one_op(
        |_| {
            (
                OpKind::WorkItem(WorkItem::LocalId(3)),
                vec![],
                vec![Ty::I32],
            )
        },
        "dimension 3 is not 0, 1 or 2",
    );
    one_op(
        |b| {
            let x = b.i32(1);
            (OpKind::Select, vec![x, x, x], vec![Ty::I32])
        },
        "the condition must be i1",
    );
    one_op(
        |b| {
            let x = b.f64(1.0);
            (
                OpKind::Math(warpkit_cc::ir::MathOp::Exp2),
                vec![x],
                vec![Ty::F64],
            )
        },
        "Exp2 is not defined on f64",
    );
    one_op(
        |b| {
            let x = b.i32(1);
            (OpKind::Binary(BinOp::Add), vec![x], vec![Ty::I32])
        },
        "takes 2 operand(s) and defines 1 result(s), not 1 and 1",
    );
    one_op(
        |b| {
            let x = b.f32(1.0);
            (OpKind::Fma, vec![x, x, x], vec![Ty::F64])
        },
        "fma takes three floats",
    );
}

#[test]
fn legal_casts_accepted() {
    let mut b = B::new("casts");
    let x = b.i32(-5);
    let y = b.i64(7);
    let t = b.i1(true);
    let f = b.f32(2.5);
    let d = b.f64(2.5);
    let p = b.param("p", ParamKind::PtrGlobal);
    b.cast(CastOp::SExt, x, Ty::I64);
    b.cast(CastOp::ZExt, t, Ty::I32);
    b.cast(CastOp::Trunc, y, Ty::I32);
    b.cast(CastOp::Trunc, x, Ty::I1);
    b.cast(CastOp::SExt8, x, Ty::I32);
    b.cast(CastOp::FToSI, f, Ty::I64);
    b.cast(CastOp::UIToF, y, Ty::F16);
    b.cast(CastOp::FExt, f, Ty::F64);
    b.cast(CastOp::FTrunc, d, Ty::F16);
    b.cast(CastOp::Bitcast, f, Ty::I32);
    b.cast(CastOp::Bitcast, p, Ty::I64);
    b.cast(CastOp::Bitcast, y, GLOBAL);
    b.op(OpKind::Atomic(AtomicOp::Xchg), vec![p, f], Ty::F32);
    let c = b.i32(3);
    b.op(OpKind::Atomic(AtomicOp::CmpXchg), vec![p, c, x], Ty::I32);
    b.load_signed(1, p);
    b.load(Ty::F16, 2, p);
    b.load(Ty::Ptr(Space::Local), 4, p);
    b.store(1, p, y);
    verify(&b.finish()).unwrap();
}

#[test]
fn ssa_visibility() {
    // Use of a value defined in an if arm after the if.
    let mut b = B::new("vis");
    let c = b.i1(true);
    let mut inner = None;
    b.if_(
        c,
        &[],
        |b| {
            inner = Some(b.i32(1));
            vec![]
        },
        |_| vec![],
    );
    let inner = inner.unwrap();
    let use_op = fresh(
        &mut b,
        OpKind::Binary(BinOp::Add),
        vec![inner, inner],
        Ty::I32,
    );
    expect(
        &b.f,
        Some(use_op),
        &format!("operand %{} is not visible here", inner.0),
    );

    // Use before definition in one region.
    let mut b = B::new("order");
    let x = b.i32(1);
    let y = b.add(x, x);
    let yop = b.f.def_op(y).unwrap();
    let xop = b.f.def_op(x).unwrap();
    let body = b.f.body;
    b.f.region_mut(body).ops = vec![yop, xop];
    expect(&b.f, Some(yop), "is not visible here");

    // A loop body's argument used after the loop.
    let mut b = B::new("arg");
    let z = b.i32(0);
    let mut arg = None;
    b.loop_(&[z], |b, a| {
        arg = Some(a[0]);
        let f = b.i1(false);
        (f, vec![a[0]])
    });
    let arg = arg.unwrap();
    let use_op = fresh(&mut b, OpKind::Unary(UnOp::Neg), vec![arg], Ty::I32);
    expect(&b.f, Some(use_op), "is not visible here");

    // A value from the enclosing region is visible inside nested regions.
    let mut b = B::new("nested");
    let x = b.i32(1);
    let c = b.i1(true);
    b.if_(
        c,
        &[Ty::I32],
        |b| {
            b.loop_(&[x], |b, a| {
                let s = b.add(a[0], x);
                let f = b.i1(false);
                (f, vec![s])
            })
        },
        |_| vec![x],
    );
    verify(&b.finish()).unwrap();
}

#[test]
fn value_definitions_must_match() {
    let mut f = good();
    let op = find(&f, |k| matches!(k, OpKind::Binary(BinOp::Mul)));
    let r = f.op(op).results[0];
    f.values[r.0 as usize].def = warpkit_cc::ir::ValueDef::Arg(RegionId(0), 0);
    expect(&f, Some(op), "result 0 is");
}

#[test]
fn malformed_indices_do_not_panic() {
    let mut f = good();
    let op = find(&f, |k| matches!(k, OpKind::Binary(BinOp::Mul)));
    f.op_mut(op).operands[0] = ValueId(99_999);
    expect(&f, Some(op), "index does not exist");
    let mut f = good();
    let body = f.body;
    f.region_mut(body).ops.push(OpId(99_999));
    expect(&f, None, "lists op 99999, which does not exist");
    let mut f = good();
    f.body = RegionId(12_345);
    expect(&f, None, "body region 12345 does not exist");
}

#[test]
fn parameter_kinds_match_types() {
    let mut b = B::new("p");
    b.param("x", ParamKind::I8);
    b.f.params[0].ty = Ty::I64;
    let e = err(&b.f);
    assert!(
        e.to_string()
            .contains("parameter 0 (x) of kind i8 cannot have IR type i64"),
        "{e}"
    );
}

#[test]
fn module_constants_checked() {
    let mut b = B::new("c");
    b.op(OpKind::ConstantAddr(0), vec![], CONSTANT);
    let f = b.finish();
    verify(&f).unwrap();
    let m = Module {
        kernels: vec![f],
        constants: vec![],
    };
    let e = verify_module(&m).unwrap_err();
    assert!(
        e.to_string()
            .contains("module constant object 0 does not exist"),
        "{e}"
    );
}
