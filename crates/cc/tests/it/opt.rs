//! The passes: targeted before/after IR text, and differential tests on random kernels
//! (the interpreter's buffers before and after each pass, each pipeline and random pass
//! sequences must be identical).

use crate::build::*;
use crate::random_ir::{self, Rng};
use warpkit_cc::ir::interp::{run, Arg, Launch};
use warpkit_cc::ir::verify::verify;
use warpkit_cc::ir::{BinOp, CastOp, CmpPred, Function, Module, OpKind, ParamKind, Ty};
use warpkit_cc::opt::{optimize, pipeline, run_pass, OptLevel, Pass};

fn outputs(m: &Module, launch: &Launch) -> Vec<Option<Vec<u8>>> {
    run(m, 0, launch)
        .unwrap_or_else(|e| panic!("{e}\n{}", m.kernels[0]))
        .buffers
}

fn with_kernel(m: &Module, f: Function) -> Module {
    Module {
        kernels: vec![f],
        constants: m.constants.clone(),
    }
}

#[test]
fn random_kernels_keep_their_results() {
    let seeds = std::env::var("WARPKIT_CC_RANDOM_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400u64);
    let mut changed = [0usize; 7];
    for seed in 0..seeds {
        let (m, launch) = random_ir::kernel(seed);
        verify(&m.kernels[0])
            .unwrap_or_else(|e| panic!("seed {seed}: generator: {e}\n{}", m.kernels[0]));
        let want = outputs(&m, &launch);
        for (k, &pass) in Pass::ALL.iter().enumerate() {
            let mut f = m.kernels[0].clone();
            if run_pass(&mut f, pass) {
                changed[k] += 1;
            }
            let got = outputs(&with_kernel(&m, f.clone()), &launch);
            assert!(
                got == want,
                "seed {seed}: pass {} changed the results\nbefore:\n{}\nafter:\n{f}",
                pass.name(),
                m.kernels[0]
            );
        }
        for level in [OptLevel::O1, OptLevel::O2] {
            let mut mm = m.clone();
            optimize(&mut mm, level);
            assert_compact(&mm.kernels[0]);
            let got = outputs(&mm, &launch);
            assert!(
                got == want,
                "seed {seed}: {level:?} changed the results\nbefore:\n{}\nafter:\n{}",
                m.kernels[0],
                mm.kernels[0]
            );
        }
        // A random sequence of passes, checked after each.
        let mut r = Rng::new(seed ^ 0x5555);
        let mut f = m.kernels[0].clone();
        let mut done = Vec::new();
        for _ in 0..10 {
            let pass = r.pick(&Pass::ALL);
            run_pass(&mut f, pass);
            done.push(pass.name());
            let got = outputs(&with_kernel(&m, f.clone()), &launch);
            assert!(
                got == want,
                "seed {seed}: passes {done:?} changed the results\nbefore:\n{}\nafter:\n{f}",
                m.kernels[0]
            );
        }
    }
    // Every pass had work to do on some kernels (the generator exercises them all).
    for (k, &n) in changed.iter().enumerate() {
        assert!(
            n > seeds as usize / 20,
            "pass {} changed only {n} kernels",
            Pass::ALL[k].name()
        );
    }
}

#[test]
fn o2_shrinks_random_kernels() {
    let (mut before, mut after) = (0, 0);
    for seed in 1000..1100 {
        let (m, launch) = random_ir::kernel(seed);
        let mut mm = m.clone();
        optimize(&mut mm, OptLevel::O2);
        before += outputs_steps(&m, &launch);
        after += outputs_steps(&mm, &launch);
    }
    assert!(
        after * 10 < before * 7,
        "O2 executed {after} operations of {before}"
    );
}

/// Every op, value and region of the function is reachable, numbered in program order.
fn assert_compact(f: &Function) {
    let walk = f.walk();
    assert_eq!(walk.len(), f.ops.len());
    assert!(walk.iter().enumerate().all(|(i, o)| o.0 as usize == i));
    let args: usize = f.regions.iter().map(|r| r.args.len()).sum();
    let results: usize = walk.iter().map(|&o| f.op(o).results.len()).sum();
    assert_eq!(args + results, f.values.len());
    verify(f).unwrap();
}

fn outputs_steps(m: &Module, launch: &Launch) -> u64 {
    run(m, 0, launch).unwrap().steps
}

#[test]
fn o0_changes_nothing() {
    let (m, _) = random_ir::kernel(7);
    let mut mm = m.clone();
    optimize(&mut mm, OptLevel::O0);
    assert_eq!(mm.kernels[0].to_string(), m.kernels[0].to_string());
    assert!(pipeline(OptLevel::O0).is_empty());
    assert!(pipeline(OptLevel::O2).len() > pipeline(OptLevel::O1).len());
}

/// The kernel text after running `passes`, with a check that it verifies.
fn after(mut f: Function, passes: &[Pass]) -> String {
    for &p in passes {
        run_pass(&mut f, p);
    }
    verify(&f).unwrap();
    f.to_string()
}

fn assert_text(got: &str, want: &str) {
    let strip = |s: &str| s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(got).trim(), strip(want).trim(), "\n--- got:\n{got}");
}

#[test]
fn fold_constants_and_identities() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let two = b.i32(2);
    let three = b.i32(3);
    let six = b.mul(two, three); // 6
    let x = b.add(n, six); // n + 6
    let zero = b.i32(0);
    let y = b.add(x, zero); // x
    let eight = b.i32(8);
    let z = b.mul(y, eight); // (n << 3) + 48
    let w = b.bin(BinOp::UDiv, z, eight); // z >> 3 (unsigned)
    let s = b.bin(BinOp::Sub, w, w); // 0
    let r = b.add(w, s); // w
    b.store(4, out, r);
    let f = b.finish();
    assert_text(
        &after(f, &[Pass::Fold, Pass::Dce]),
        "
kernel @k(out: ptr.global, n: i32) {
  %0 = param 0 : ptr.global
  %1 = param 1 : i32
  %15 = const 0x3 : i32
  %14 = shl %1, %15 : i32
  %16 = const 0x30 : i32
  %9 = add %14, %16 : i32
  %17 = const 0x3 : i32
  %10 = lshr %9, %17 : i32
  store.4 %0, %10
}",
    );
}

#[test]
fn fold_complements() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let zero = b.i32(0);
    let c = b.cmp(CmpPred::Slt, n, zero);
    let nc = b.op(OpKind::Unary(warpkit_cc::ir::UnOp::Not), vec![c], Ty::I1);
    let t = b.bin(BinOp::Or, nc, c); // true
    let nn = b.op(OpKind::Unary(warpkit_cc::ir::UnOp::Not), vec![n], Ty::I32);
    let z = b.bin(BinOp::And, n, nn); // 0
    let v = b.select(t, z, n);
    b.store(4, out, v);
    let text = after(b.finish(), &[Pass::Fold, Pass::Dce]);
    assert!(
        text.contains("store.4 %0, %") && !text.contains("select") && !text.contains("and"),
        "{text}"
    );
    assert!(text.contains("const 0x0 : i32"), "{text}");
}

#[test]
fn fold_never_folds_undefined_division_or_approximate_math() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let one = b.i32(1);
    let zero = b.i32(0);
    let q = b.bin(BinOp::SDiv, one, zero);
    b.store(4, out, q);
    let x = b.f32(2.0);
    let e = b.op(OpKind::Math(warpkit_cc::ir::MathOp::Exp2), vec![x], Ty::F32);
    b.store(4, out, e);
    let s = b.op(OpKind::Math(warpkit_cc::ir::MathOp::Sqrt), vec![x], Ty::F32);
    b.store(4, out, s);
    let f = b.finish();
    let text = after(f, &[Pass::Fold]);
    assert!(text.contains("sdiv %1, %2"), "{text}");
    assert!(text.contains("math.exp2"), "{text}");
    assert!(!text.contains("math.sqrt"), "{text}");
    assert!(
        text.contains(&format!("const {:#x} : f32", 2f32.sqrt().to_bits())),
        "{text}"
    );
}

#[test]
fn fold_floats_exactly_and_without_identities() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let x = b.param("x", ParamKind::F32);
    let one = b.f32(1.0);
    let y = b.bin(BinOp::FMul, x, one); // kept: x*1 would keep a NaN's payload
    b.store(4, out, y);
    let a = b.f32(0.1);
    let c = b.f32(0.2);
    let s = b.bin(BinOp::FAdd, a, c);
    b.store(4, out, s);
    let inf = b.f32(f32::INFINITY);
    let nan = b.bin(BinOp::FSub, inf, inf);
    b.store(4, out, nan);
    // binary16: 1 + 2^-11 is a tie, rounded to even (1.0); 1 + 3*2^-11 is a tie too,
    // rounded to even (1 + 2^-9).
    let one = b.konst(Ty::F16, 0x3c00);
    let tie = b.konst(Ty::F16, 0x1000); // 2^-11
    let h = b.bin(BinOp::FAdd, one, tie);
    b.store(2, out, h);
    let three = b.konst(Ty::F16, 0x1600); // 3 * 2^-11: 1.5 ulp, a tie to even
    let h = b.bin(BinOp::FAdd, one, three);
    b.store(2, out, h);
    let text = after(b.finish(), &[Pass::Fold, Pass::Dce]);
    assert!(
        text.contains("const 0x3c00 : f16") && text.contains("const 0x3c02 : f16"),
        "{text}"
    );
    assert!(text.contains("fmul %1, %2"), "{text}");
    assert!(
        text.contains(&format!("const {:#x} : f32", (0.1f32 + 0.2f32).to_bits())),
        "{text}"
    );
    assert!(text.contains("const 0x7fc00000 : f32"), "{text}");
}

#[test]
fn fold_narrows_index_arithmetic() {
    // A local pointer indexed with size_t arithmetic: trunc((zext(lid) + 1) * 4) becomes
    // 32-bit, with the constant outermost: (tile + (lid << 2)) + 4.
    let mut b = B::new("k");
    let l = b.local_object("tile", 256, 4);
    let tile = b.op(OpKind::LocalAddr(l), vec![], LOCAL);
    let lid = b.wi(warpkit_cc::ir::WorkItem::LocalId(0));
    let w = b.cast(CastOp::ZExt, lid, Ty::I64);
    let one = b.i64(1);
    let s = b.add(w, one);
    let four = b.i64(4);
    let m = b.mul(s, four);
    let off = b.cast(CastOp::Trunc, m, Ty::I32);
    let p = b.ptradd(tile, off);
    b.store(4, p, lid);
    let text = after(b.finish(), &[Pass::Fold, Pass::Dce]);
    assert_text(
        &text,
        "
kernel @k() {
  local 0 tile: 256 bytes, align 4
  %0 = local_addr 0 : ptr.local
  %1 = localid(0) : i32
  %13 = const 0x2 : i32
  %14 = shl %1, %13 : i32
  %15 = const 0x4 : i32
  %17 = ptradd %0, %14 : ptr.local
  %8 = ptradd %17, %15 : ptr.local
  store.4 %8, %1
}",
    );
}

#[test]
fn fold_narrows_comparisons_and_casts() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let g = b.gid();
    let wg = b.cast(CastOp::ZExt, g, Ty::I64);
    let wn = b.cast(CastOp::ZExt, n, Ty::I64);
    let c = b.cmp(CmpPred::Slt, wg, wn); // size_t compare: unsigned 32-bit
    let t = b.cast(CastOp::Trunc, wg, Ty::I32);
    let z = b.cast(CastOp::ZExt, c, Ty::I32);
    let zero = b.i32(0);
    let truth = b.cmp(CmpPred::Ne, z, zero); // the C truth test of a comparison
    let v = b.select(truth, t, zero);
    b.store(4, out, v);
    let text = after(b.finish(), &[Pass::Fold, Pass::Dce]);
    assert!(text.contains("cmp.ult %6, %1 : i1"), "{text}");
    assert!(
        text.contains("select %10, %6, %13 : i32") || text.contains("select"),
        "{text}"
    );
    assert!(!text.contains("zext"), "{text}");
    assert!(!text.contains("trunc"), "{text}");
}

#[test]
fn fold_inlines_constant_ifs_and_single_trip_loops() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let t = b.i1(true);
    let x = b.if_(t, &[Ty::I32], |b| vec![b.i32(5)], |b| vec![b.i32(6)])[0];
    let r = b.loop_(&[x], |b, a| {
        let one = b.i32(1);
        let y = b.add(a[0], one);
        let f = b.i1(false);
        (f, vec![y])
    })[0];
    b.store(4, out, r);
    let text = after(b.finish(), &[Pass::Fold, Pass::Fold, Pass::Dce]);
    assert!(!text.contains("if") && !text.contains("loop"), "{text}");
    assert!(text.contains("const 0x6 : i32"), "{text}");
}

#[test]
fn dce_removes_dead_values_control_flow_and_carried_values() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let dead = b.mul(n, n);
    let _ = dead;
    let c = b.cmp(CmpPred::Slt, n, n);
    // An if without effects, its result unused.
    b.if_(c, &[Ty::I32], |b| vec![b.add(n, n)], |_| vec![n]);
    // A loop storing in its body: its counter lives, the other carried value does not.
    let z = b.i32(0);
    let res = b.loop_(&[z, n], |b, a| {
        b.store(4, out, a[0]);
        let one = b.i32(1);
        let i = b.add(a[0], one);
        let junk = b.mul(a[1], a[1]);
        let ten = b.i32(10);
        let c = b.cmp(CmpPred::Slt, i, ten);
        (c, vec![i, junk])
    });
    let _ = res;
    let text = after(b.finish(), &[Pass::Dce]);
    assert_text(
        &text,
        "
kernel @k(out: ptr.global, n: i32) {
  %0 = param 0 : ptr.global
  %6 = const 0x0 : i32
  %14 = loop %6 : i32 {
  ^(%7: i32):
    store.4 %0, %7
    %9 = const 0x1 : i32
    %10 = add %7, %9 : i32
    %12 = const 0xa : i32
    %13 = cmp.slt %10, %12 : i1
    loop_end %13, %10
  }
}",
    );
}

#[test]
fn cse_reuses_pure_ops_across_regions_and_loads_within_one() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let a = b.mul(n, n);
    let c = b.cmp(CmpPred::Slt, a, n);
    let l1 = b.load(Ty::I32, 4, out);
    let l2 = b.load(Ty::I32, 4, out); // same as l1
    let s = b.add(l1, l2);
    b.if_(
        c,
        &[],
        |b| {
            let a2 = b.mul(n, n); // reuses a
            let l3 = b.load(Ty::I32, 4, out); // another region: kept
            let x = b.add(a2, l3);
            b.store(4, out, x);
            vec![]
        },
        |_| vec![],
    );
    let l4 = b.load(Ty::I32, 4, out); // after a store inside the if: kept
    let y = b.add(s, l4);
    let y2 = b.add(l4, s); // commutative: same as y
    let z = b.mul(y, y2);
    b.store(4, out, z);
    let text = after(b.finish(), &[Pass::Cse]);
    assert_text(
        &text,
        "
kernel @k(out: ptr.global, n: i32) {
  %0 = param 0 : ptr.global
  %1 = param 1 : i32
  %2 = mul %1, %1 : i32
  %3 = cmp.slt %2, %1 : i1
  %4 = load.4 %0 : i32
  %6 = add %4, %4 : i32
  if %3 {
    %8 = load.4 %0 : i32
    %9 = add %2, %8 : i32
    store.4 %0, %9
    yield
  } else {
    yield
  }
  %10 = load.4 %0 : i32
  %11 = add %6, %10 : i32
  %13 = mul %11, %11 : i32
  store.4 %0, %13
}",
    );
}

#[test]
fn licm_hoists_invariants_and_safe_loads() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let table = b.param("table", ParamKind::PtrConstant);
    let n = b.param("n", ParamKind::I32);
    let z = b.i32(0);
    b.loop_(&[z], |b, a| {
        let sq = b.mul(n, n); // invariant
        let t = b.load(Ty::I32, 4, table); // constant memory: invariant
        let g = b.load(Ty::I32, 4, out); // global memory, stored in the loop: stays
        let q = b.bin(BinOp::UDiv, t, sq); // top-level division: hoisted
        let x = b.add(a[0], q);
        let x = b.add(x, g);
        b.store(4, out, x);
        let one = b.i32(1);
        let i = b.add(a[0], one);
        let c = b.cmp(CmpPred::Slt, i, n);
        (c, vec![i])
    });
    let text = after(b.finish(), &[Pass::Licm]);
    assert_text(
        &text,
        "
kernel @k(out: ptr.global, table: ptr.constant, n: i32) {
  %0 = param 0 : ptr.global
  %1 = param 1 : ptr.constant
  %2 = param 2 : i32
  %3 = const 0x0 : i32
  %5 = mul %2, %2 : i32
  %6 = load.4 %1 : i32
  %8 = udiv %6, %5 : i32
  %11 = const 0x1 : i32
  %14 = loop %3 : i32 {
  ^(%4: i32):
    %7 = load.4 %0 : i32
    %9 = add %4, %8 : i32
    %10 = add %9, %7 : i32
    store.4 %0, %10
    %12 = add %4, %11 : i32
    %13 = cmp.slt %12, %2 : i1
    loop_end %13, %12
  }
}",
    );
}

#[test]
fn licm_moves_constant_offsets_only_with_their_users() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let table = b.param("table", ParamKind::PtrConstant);
    let z = b.i32(0);
    b.loop_(&[z], |b, a| {
        let eight = b.i64(8);
        let pt = b.ptradd(table, eight); // its load leaves the loop: it leaves too
        let t = b.load(Ty::I32, 4, pt);
        let four = b.i64(4);
        let po = b.ptradd(out, four); // its store stays: it stays
        let x = b.add(a[0], t);
        b.store(4, po, x);
        let one = b.i32(1);
        let i = b.add(a[0], one);
        let ten = b.i32(10);
        let c = b.cmp(CmpPred::Slt, i, ten);
        (c, vec![i])
    });
    let text = after(b.finish(), &[Pass::Licm]);
    let lp = text.find("loop").unwrap();
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s}: {text}"));
    assert!(at("ptradd %1") < lp && at("load.4") < lp, "{text}");
    assert!(at("ptradd %0") > lp, "{text}");
}

#[test]
fn licm_leaves_loads_a_barrier_may_change() {
    let mut b = B::new("k");
    let l = b.local_object("t", 16, 4);
    let tile = b.op(OpKind::LocalAddr(l), vec![], LOCAL);
    let out = b.param("out", ParamKind::PtrGlobal);
    let z = b.i32(0);
    b.loop_(&[z], |b, a| {
        let v = b.load(Ty::I32, 4, tile);
        b.barrier();
        b.store(4, out, v);
        let one = b.i32(1);
        let i = b.add(a[0], one);
        let four = b.i32(4);
        let c = b.cmp(CmpPred::Slt, i, four);
        (c, vec![i])
    });
    let text = after(b.finish(), &[Pass::Licm]);
    let lp = text.find("loop").unwrap();
    assert!(text.find("load.4").unwrap() > lp, "{text}");
}

#[test]
fn if_conversion_makes_selects() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let zero = b.i32(0);
    let c = b.cmp(CmpPred::Slt, n, zero);
    let r = b.if_(
        c,
        &[Ty::I32, Ty::I32],
        |b| {
            let neg = b.op(OpKind::Unary(warpkit_cc::ir::UnOp::Neg), vec![n], Ty::I32);
            vec![neg, n]
        },
        |_| vec![n, n],
    );
    let s = b.add(r[0], r[1]);
    b.store(4, out, s);
    // An arm with a division or a store is not converted.
    let d = b.if_(
        c,
        &[Ty::I32],
        |b| vec![b.bin(BinOp::UDiv, n, n)],
        |_| vec![n],
    )[0];
    b.store(4, out, d);
    let text = after(b.finish(), &[Pass::IfConvert]);
    assert_text(
        &text,
        "
kernel @k(out: ptr.global, n: i32) {
  %0 = param 0 : ptr.global
  %1 = param 1 : i32
  %2 = const 0x0 : i32
  %3 = cmp.slt %1, %2 : i1
  %4 = neg %1 : i32
  %10 = select %3, %4, %1 : i32
  %7 = add %10, %1 : i32
  store.4 %0, %7
  %9 = if %3 : i32 {
    %8 = udiv %1, %1 : i32
    yield %8
  } else {
    yield %1
  }
  store.4 %0, %9
}",
    );
}

#[test]
fn if_conversion_of_logical_and_folds_to_and() {
    // C's `a && b` lowered as an if: `if a { yield b } else { yield false }`.
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let zero = b.i32(0);
    let a = b.cmp(CmpPred::Sgt, n, zero);
    let r = b.if_(
        a,
        &[Ty::I1],
        |b| {
            let ten = b.i32(10);
            vec![b.cmp(CmpPred::Slt, n, ten)]
        },
        |b| vec![b.i1(false)],
    )[0];
    let z = b.cast(CastOp::ZExt, r, Ty::I32);
    b.store(4, out, z);
    let text = after(b.finish(), &[Pass::IfConvert, Pass::Fold, Pass::Dce]);
    assert!(text.contains("= and %3, %5 : i1"), "{text}");
    assert!(!text.contains("if") && !text.contains("select"), "{text}");
}

#[test]
fn unroll_constant_trip_loops() {
    // for (k = 0; k < 4; k++) acc += in[k]
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let four = b.i32(4);
    let zero = b.i32(0);
    let acc = b.for_(0, four, 1, &[zero], |b, k, c| {
        let p = b.index(out, k, 4);
        let x = b.load(Ty::I32, 4, p);
        vec![b.add(c[0], x)]
    })[0];
    b.store(4, out, acc);
    let text = after(b.finish(), pipeline(OptLevel::O2));
    assert!(!text.contains("loop") && !text.contains("if"), "{text}");
    assert_eq!(text.matches("load.4").count(), 4, "{text}");
    // Offsets folded into constants: no multiplication left.
    assert!(!text.contains("mul"), "{text}");
}

#[test]
fn unroll_respects_limits() {
    for (trips, unrolled) in [(32, true), (33, false)] {
        let mut b = B::new("k");
        let out = b.param("out", ParamKind::PtrGlobal);
        let z = b.i32(0);
        b.loop_(&[z], |b, a| {
            b.store(4, out, a[0]);
            let one = b.i32(1);
            let i = b.add(a[0], one);
            let n = b.i32(trips);
            let c = b.cmp(CmpPred::Ne, i, n);
            (c, vec![i])
        });
        let text = after(b.finish(), &[Pass::Unroll]);
        assert_eq!(!text.contains("loop"), unrolled, "{trips}: {text}");
        if unrolled {
            assert_eq!(text.matches("store.4").count(), 32);
        }
    }
    // A downward loop with an unsigned test: 10, 7, 4, 1 then wraps: 4 iterations.
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let ten = b.i32(10);
    b.loop_(&[ten], |b, a| {
        b.store(4, out, a[0]);
        let three = b.i32(3);
        let i = b.bin(BinOp::Sub, a[0], three);
        let lim = b.i32(10);
        let c = b.cmp(CmpPred::Ult, i, lim);
        (c, vec![i])
    });
    let f = b.finish();
    let m = Module {
        kernels: vec![f.clone()],
        constants: vec![],
    };
    let text = after(f.clone(), &[Pass::Unroll]);
    assert_eq!(text.matches("store.4").count(), 4, "{text}");
    let launch = Launch::new([1; 3], [1; 3], vec![Arg::Buffer(vec![0; 4])]);
    let mut g = f;
    run_pass(&mut g, Pass::Unroll);
    assert_eq!(outputs(&m, &launch), outputs(&with_kernel(&m, g), &launch));
}

#[test]
fn sroa_promotes_private_arrays_with_constant_indexes() {
    // float a[4]; for (k < 4) a[k] = in[k] * 2; out = a[0] + a[3]
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let o = b.private_object("a", 16, 4);
    let arr = b.op(OpKind::PrivateAddr(o), vec![], PRIVATE);
    let four = b.i32(4);
    b.for_(0, four, 1, &[], |b, k, _| {
        let p = b.index(out, k, 4);
        let x = b.load(Ty::F32, 4, p);
        let two = b.f32(2.0);
        let y = b.bin(BinOp::FMul, x, two);
        let q = b.index(arr, k, 4);
        b.store(4, q, y);
        vec![]
    });
    let a0 = b.load(Ty::F32, 4, arr);
    let twelve = b.i32(12);
    let p3 = b.ptradd(arr, twelve);
    let a3 = b.load(Ty::F32, 4, p3);
    let s = b.bin(BinOp::FAdd, a0, a3);
    b.store(4, out, s);
    let f = b.finish();
    let m = Module {
        kernels: vec![f.clone()],
        constants: vec![],
    };
    let mut g = f.clone();
    warpkit_cc::opt::optimize_function(&mut g, OptLevel::O2);
    let text = g.to_string();
    assert!(g.privates.is_empty(), "{text}");
    assert!(
        !text.contains("private_addr") && !text.contains("loop"),
        "{text}"
    );
    // Only the loads of in[0] and in[3] remain.
    assert_eq!(text.matches("load.4").count(), 2, "{text}");
    let input = f32_bytes(&[1.5, -2.0, 7.0, 0.25]);
    let launch = Launch::new([1; 3], [1; 3], vec![Arg::Buffer(input)]);
    let got = outputs(&with_kernel(&m, g), &launch);
    assert_eq!(got, outputs(&m, &launch));
    assert_eq!(bytes_f32(got[0].as_ref().unwrap())[0], 3.5);
}

#[test]
fn sroa_threads_values_through_ifs_and_loops() {
    // int x; x = 1; if (c) x = 2; for (...) x += i; out = x  — with x in memory.
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let o = b.private_object("x", 4, 4);
    let x = b.op(OpKind::PrivateAddr(o), vec![], PRIVATE);
    let one = b.i32(1);
    b.store(4, x, one);
    let zero = b.i32(0);
    let c = b.cmp(CmpPred::Sgt, n, zero);
    b.if_(
        c,
        &[],
        |b| {
            let two = b.i32(2);
            b.store(4, x, two);
            vec![]
        },
        |_| vec![],
    );
    b.for_(0, n, 1, &[], |b, i, _| {
        let v = b.load(Ty::I32, 4, x);
        let s = b.add(v, i);
        b.store(4, x, s);
        vec![]
    });
    let v = b.load(Ty::I32, 4, x);
    b.store(4, out, v);
    let f = b.finish();
    let m = Module {
        kernels: vec![f.clone()],
        constants: vec![],
    };
    let mut g = f.clone();
    run_pass(&mut g, Pass::Sroa);
    let text = g.to_string();
    assert!(g.privates.is_empty(), "{text}");
    assert!(
        !text.contains("load") && text.matches("store").count() == 1,
        "{text}"
    );
    for n in [0u64, 1, 5] {
        let launch = Launch::new(
            [1; 3],
            [1; 3],
            vec![Arg::Buffer(vec![0; 4]), Arg::Scalar(n)],
        );
        let got = outputs(&with_kernel(&m, g.clone()), &launch);
        assert_eq!(got, outputs(&m, &launch));
        let want = if n > 0 {
            2 + (0..n as u32).sum::<u32>()
        } else {
            1
        };
        assert_eq!(bytes_u32(got[0].as_ref().unwrap())[0], want);
    }
}

#[test]
fn sroa_keeps_dynamic_and_escaping_objects() {
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let dynamic = b.private_object("dyn", 16, 4);
    let overlap = b.private_object("overlap", 8, 4);
    let fine = b.private_object("fine", 8, 4);
    let pd = b.op(OpKind::PrivateAddr(dynamic), vec![], PRIVATE);
    let po = b.op(OpKind::PrivateAddr(overlap), vec![], PRIVATE);
    let pf = b.op(OpKind::PrivateAddr(fine), vec![], PRIVATE);
    let three = b.i32(3);
    let i = b.bin(BinOp::And, n, three);
    let q = b.index(pd, i, 4);
    b.store(4, q, n);
    let two = b.i32(2);
    let po2 = b.ptradd(po, two);
    b.store(4, po, n);
    let h = b.load(Ty::I32, 2, po2); // overlaps the 4-byte place at 0
    b.store(4, out, h);
    let four = b.i32(4);
    let pf4 = b.ptradd(pf, four);
    b.store(4, pf4, n);
    let v = b.load(Ty::I32, 4, pf4);
    b.store(4, out, v);
    let d = b.load(Ty::I32, 4, pd);
    b.store(4, out, d);
    let mut f = b.finish();
    run_pass(&mut f, Pass::Sroa);
    verify(&f).unwrap();
    let names: Vec<&str> = f.privates.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["dyn", "overlap"]);
    let text = f.to_string();
    assert!(
        text.contains("private_addr 0") && text.contains("private_addr 1"),
        "{text}"
    );
}

#[test]
fn sroa_narrow_places_reextend() {
    // char c = (char)n via a 1-byte private place: loads re-extend as they say.
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let o = b.private_object("c", 1, 1);
    let p = b.op(OpKind::PrivateAddr(o), vec![], PRIVATE);
    b.store(1, p, n);
    let s = b.load_signed(1, p);
    let u = b.load(Ty::I32, 1, p);
    let t = b.add(s, u);
    b.store(4, out, t);
    let f = b.finish();
    let m = Module {
        kernels: vec![f.clone()],
        constants: vec![],
    };
    let mut g = f;
    run_pass(&mut g, Pass::Sroa);
    assert!(g.privates.is_empty());
    for n in [0x1ffu64, 0x7f, 0x80] {
        let launch = Launch::new(
            [1; 3],
            [1; 3],
            vec![Arg::Buffer(vec![0; 4]), Arg::Scalar(n)],
        );
        assert_eq!(
            outputs(&with_kernel(&m, g.clone()), &launch),
            outputs(&m, &launch)
        );
    }
}

#[test]
fn passes_leave_the_ir_valid_on_random_kernels_without_running() {
    // Larger kernels than the differential test runs, checked for validity only.
    for seed in 5000..5100 {
        let (m, _) = random_ir::kernel(seed);
        let mut mm = m.clone();
        optimize(&mut mm, OptLevel::O2);
        verify(&mm.kernels[0]).unwrap();
    }
}

/// The tiled matrix multiply's inner loop as a front end lowers it (`size_t` index
/// arithmetic on `__local` arrays): O2 unrolls it, narrows the addresses to 32 bits and
/// leaves every load at a constant offset from one of two row/column bases.
#[test]
fn o2_on_a_tiled_inner_loop() {
    // __local float As[16][16], Bs[16][16];
    // for (int k = 0; k < 16; k++) sum += As[ty][k] * Bs[k][tx];
    let mut b = B::new("sgemm");
    let out = b.param("c", ParamKind::PtrGlobal);
    let a = b.local_object("As", 1024, 4);
    let bo = b.local_object("Bs", 1024, 4);
    let tx = b.wi(warpkit_cc::ir::WorkItem::LocalId(0));
    let ty = b.wi(warpkit_cc::ir::WorkItem::LocalId(1));
    // Fill the tiles: As[ty][tx] = tx + 16*ty, Bs[ty][tx] = tx - ty.
    let sixteen = b.i32(16);
    let flat = b.mul(ty, sixteen);
    let flat = b.add(flat, tx);
    let fa = b.cast(CastOp::SIToF, flat, Ty::F32);
    let d = b.bin(BinOp::Sub, tx, ty);
    let fb = b.cast(CastOp::SIToF, d, Ty::F32);
    for (obj, v) in [(a, fa), (bo, fb)] {
        let base = b.op(OpKind::LocalAddr(obj), vec![], LOCAL);
        let p = b.index(base, flat, 4);
        b.store(4, p, v);
    }
    b.barrier();
    let z = b.f32(0.0);
    let sum = b.for_(0, sixteen, 1, &[z], |b, k, c| {
        let element = |b: &mut B, obj: u32, row: warpkit_cc::ir::ValueId, col| {
            let base = b.op(OpKind::LocalAddr(obj), vec![], LOCAL);
            let row = b.cast(CastOp::SExt, row, Ty::I64);
            let col = b.cast(CastOp::SExt, col, Ty::I64);
            let c64 = b.i64(64);
            let c4 = b.i64(4);
            let r = b.mul(row, c64);
            let c = b.mul(col, c4);
            let off = b.add(r, c);
            let off = b.cast(CastOp::Trunc, off, Ty::I32);
            let p = b.ptradd(base, off);
            b.load(Ty::F32, 4, p)
        };
        let x = element(b, a, ty, k);
        let y = element(b, bo, k, tx);
        let m = b.bin(BinOp::FMul, x, y);
        vec![b.bin(BinOp::FAdd, c[0], m)]
    })[0];
    let p = b.index(out, flat, 4);
    b.store(4, p, sum);
    let f = b.finish();
    let m = Module {
        kernels: vec![f.clone()],
        constants: vec![],
    };
    let mut g = f;
    warpkit_cc::opt::optimize_function(&mut g, OptLevel::O2);
    let text = g.to_string();
    assert!(
        !text.contains("loop") && !text.contains("sext") && !text.contains("trunc"),
        "{text}"
    );
    assert_eq!(text.matches("load.4").count(), 32, "{text}");
    // Each load's address is a base (As + ty*64, Bs + tx*4) plus a constant.
    let mut bases = std::collections::HashSet::new();
    for op in g.walk() {
        if let OpKind::Load(_) = g.op(op).kind {
            let p = g.op(op).operands[0];
            let d = g.op(g.def_op(p).unwrap());
            let base = match (&d.kind, g.const_bits(d.operands[1])) {
                (OpKind::PtrAdd, Some(_)) => d.operands[0],
                _ => p,
            };
            bases.insert(base);
        }
    }
    assert_eq!(bases.len(), 2, "{text}");
    let launch = Launch::new([1; 3], [16, 16, 1], vec![Arg::Buffer(vec![0; 1024])]);
    let got = outputs(&with_kernel(&m, g), &launch);
    assert_eq!(got, outputs(&m, &launch));
    let c = bytes_f32(got[0].as_ref().unwrap());
    for (ty, tx) in [(0, 0), (3, 5), (15, 15)] {
        let want = (0..16).fold(0f32, |s, k| s + (k + 16 * ty) as f32 * (tx - k) as f32);
        assert_eq!(c[(ty * 16 + tx) as usize], want);
    }
}

#[test]
fn fold_narrows_size_t_loop_counters() {
    // for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) out[lid + s] = s;
    // (guarded do-while form), with `s` a 64-bit carried value that always fits 32 bits.
    let mut b = B::new("k");
    let l = b.local_object("tile", 1024, 4);
    let tile = b.op(OpKind::LocalAddr(l), vec![], LOCAL);
    let lid = b.wi(warpkit_cc::ir::WorkItem::LocalId(0));
    let size = b.wi(warpkit_cc::ir::WorkItem::LocalSize(0));
    let size = b.cast(CastOp::ZExt, size, Ty::I64);
    let one = b.i64(1);
    let half = b.bin(BinOp::LShr, size, one);
    let zero = b.i64(0);
    let go = b.cmp(CmpPred::Ugt, half, zero);
    let r = b.if_(
        go,
        &[Ty::I64],
        |b| {
            b.loop_(&[half], |b, a| {
                let s = a[0];
                let w = b.cast(CastOp::ZExt, lid, Ty::I64);
                let i = b.add(w, s);
                let four = b.i64(4);
                let off = b.mul(i, four);
                let off = b.cast(CastOp::Trunc, off, Ty::I32);
                let p = b.ptradd(tile, off);
                let v = b.cast(CastOp::Trunc, s, Ty::I32);
                b.store(4, p, v);
                let one = b.i64(1);
                let next = b.bin(BinOp::LShr, s, one);
                let zero = b.i64(0);
                let c = b.cmp(CmpPred::Ugt, next, zero);
                (c, vec![next])
            })
        },
        |_| vec![half],
    )[0];
    let r = b.cast(CastOp::Trunc, r, Ty::I32);
    b.store(4, tile, r);
    let f = b.finish();
    let m = Module {
        kernels: vec![f.clone()],
        constants: vec![],
    };
    let mut g = f;
    warpkit_cc::opt::optimize_function(&mut g, OptLevel::O2);
    let text = g.to_string();
    assert!(!text.contains("i64"), "{text}");
    let launch = Launch::new([1; 3], [64, 1, 1], vec![]);
    assert_eq!(
        run(&with_kernel(&m, g), 0, &launch).unwrap().buffers,
        run(&m, 0, &launch).unwrap().buffers
    );
}

#[test]
fn unroll_loops_with_breaks_under_guards() {
    // int a[4]; for (k < 4) a[k] = in[k];
    // s = 0; for (k = 0; k < 4; k++) { if (a[k] < 0) break; s += a[k]; } out = s;
    let mut b = B::new("k");
    let out = b.param("out", ParamKind::PtrGlobal);
    let o = b.private_object("a", 16, 4);
    let arr = b.op(OpKind::PrivateAddr(o), vec![], PRIVATE);
    let four = b.i32(4);
    b.for_(0, four, 1, &[], |b, k, _| {
        let p = b.index(out, k, 4);
        let x = b.load(Ty::I32, 4, p);
        let q = b.index(arr, k, 4);
        b.store(4, q, x);
        vec![]
    });
    let z = b.i32(0);
    let r = b.loop_(&[z, z], |b, a| {
        let (k, s) = (a[0], a[1]);
        let q = b.index(arr, k, 4);
        let v = b.load(Ty::I32, 4, q);
        let zero = b.i32(0);
        let neg = b.cmp(CmpPred::Slt, v, zero);
        let sum = b.add(s, v);
        let s2 = b.select(neg, s, sum);
        let one = b.i32(1);
        let k2 = b.add(k, one);
        let four = b.i32(4);
        let more = b.cmp(CmpPred::Slt, k2, four);
        let f = b.i1(false);
        let cont = b.select(neg, f, more);
        (cont, vec![k2, s2])
    });
    b.store(4, out, r[1]);
    let f = b.finish();
    let m = Module {
        kernels: vec![f.clone()],
        constants: vec![],
    };
    let mut g = f;
    warpkit_cc::opt::optimize_function(&mut g, OptLevel::O2);
    let text = g.to_string();
    assert!(!text.contains("loop") && g.privates.is_empty(), "{text}");
    for input in [[1, 2, 3, 4], [5, -1, 7, 8], [-3, 1, 1, 1], [1, 2, 3, -4]] {
        let launch = Launch::new(
            [1; 3],
            [1; 3],
            vec![Arg::Buffer(u32_bytes(&input.map(|x: i32| x as u32)))],
        );
        let got = outputs(&with_kernel(&m, g.clone()), &launch);
        assert_eq!(got, outputs(&m, &launch));
        let want: i32 = input.iter().take_while(|&&x| x >= 0).sum();
        assert_eq!(bytes_u32(got[0].as_ref().unwrap())[0] as i32, want);
    }
}
