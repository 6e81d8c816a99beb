//! The back end on hand-built IR: compiled kernels run on the functional model and give the
//! expected results, with no hazard.

use super::model::{buffer, run_assembled, Assembled};
use warpkit_cc::ir::*;
use warpkit_cc::source::{SourceMap, Span};
use warpkit_sim::launch::{ArgValue, LaunchConfig};

const S: Span = Span::DUMMY;

struct B {
    f: Function,
}

impl B {
    fn new(name: &str, params: &[(&str, ParamKind, Ty)]) -> B {
        let mut f = Function::new(name, S);
        for (n, k, t) in params {
            f.params.push(Param {
                name: n.to_string(),
                kind: *k,
                ty: *t,
                c_type: String::new(),
                span: S,
            });
        }
        B { f }
    }
    fn v(&mut self, r: RegionId, kind: OpKind, ops: Vec<ValueId>, ty: Ty) -> ValueId {
        self.f.push_value(r, kind, ops, ty, S)
    }
    fn c(&mut self, r: RegionId, ty: Ty, bits: u64) -> ValueId {
        self.f.push_const(r, ty, bits, S)
    }
    fn op(&mut self, r: RegionId, kind: OpKind, ops: Vec<ValueId>) {
        self.f.push_op(r, kind, ops, &[], vec![], S);
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Compile IR text, assemble and launch; returns the buffers by name.
fn run_ir(text: &str, cfg: LaunchConfig, args: Vec<(&str, ArgValue)>) -> Vec<(String, Vec<u8>)> {
    let f = warpkit_cc::ir::parse::parse_function(text).unwrap_or_else(|e| panic!("{e}"));
    run(f, cfg, args)
}

fn one_group(threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        ..LaunchConfig::default()
    }
}

/// Compile, assemble and launch; returns the buffers by name.
fn run(f: Function, cfg: LaunchConfig, args: Vec<(&str, ArgValue)>) -> Vec<(String, Vec<u8>)> {
    let module = Module {
        kernels: vec![f],
        constants: vec![],
    };
    let sources = SourceMap::new();
    let text = warpkit_cc::backend::generate(&module, &sources)
        .unwrap_or_else(|d| panic!("{}", d.render(&sources)));
    let asm = Assembled::new(text).unwrap_or_else(|e| panic!("{e}"));
    run_assembled(&asm, cfg, args)
}

/// `out[i] = a[i] + b[i]` for `i < n`.
#[test]
fn vadd() {
    let g = Ty::Ptr(Space::Global);
    let mut b = B::new(
        "vadd",
        &[
            ("a", ParamKind::PtrGlobal, g),
            ("b", ParamKind::PtrGlobal, g),
            ("out", ParamKind::PtrGlobal, g),
            ("n", ParamKind::I32, Ty::I32),
        ],
    );
    let top = b.f.body;
    let pa = b.v(top, OpKind::Param(0), vec![], g);
    let pb = b.v(top, OpKind::Param(1), vec![], g);
    let po = b.v(top, OpKind::Param(2), vec![], g);
    let n = b.v(top, OpKind::Param(3), vec![], Ty::I32);
    let lid = b.v(top, OpKind::WorkItem(WorkItem::LocalId(0)), vec![], Ty::I32);
    let grp = b.v(top, OpKind::WorkItem(WorkItem::GroupId(0)), vec![], Ty::I32);
    let ls = b.v(
        top,
        OpKind::WorkItem(WorkItem::LocalSize(0)),
        vec![],
        Ty::I32,
    );
    let t = b.v(top, OpKind::Binary(BinOp::Mul), vec![grp, ls], Ty::I32);
    let i = b.v(top, OpKind::Binary(BinOp::Add), vec![t, lid], Ty::I32);
    let c = b.v(top, OpKind::Cmp(CmpPred::Slt), vec![i, n], Ty::I1);
    let then = b.f.new_region(&[]);
    let els = b.f.new_region(&[]);
    let i64v = b.v(then, OpKind::Cast(CastOp::SExt), vec![i], Ty::I64);
    let four = b.c(then, Ty::I64, 4);
    let off = b.v(then, OpKind::Binary(BinOp::Mul), vec![i64v, four], Ty::I64);
    let m = MemTy {
        size: 4,
        signed: false,
    };
    let a1 = b.v(then, OpKind::PtrAdd, vec![pa, off], g);
    let x = b.v(then, OpKind::Load(m), vec![a1], Ty::F32);
    let b1 = b.v(then, OpKind::PtrAdd, vec![pb, off], g);
    let y = b.v(then, OpKind::Load(m), vec![b1], Ty::F32);
    let s = b.v(then, OpKind::Binary(BinOp::FAdd), vec![x, y], Ty::F32);
    let o1 = b.v(then, OpKind::PtrAdd, vec![po, off], g);
    b.op(then, OpKind::Store(m), vec![o1, s]);
    b.op(then, OpKind::Yield, vec![]);
    b.op(els, OpKind::Yield, vec![]);
    b.f.push_op(top, OpKind::If, vec![c], &[], vec![then, els], S);

    let count = 1000u32;
    let av: Vec<f32> = (0..count).map(|k| k as f32 * 0.5).collect();
    let bv: Vec<f32> = (0..count).map(|k| 3.0 - k as f32).collect();
    let cfg = LaunchConfig {
        grid: [4, 1, 1],
        block: [256, 1, 1],
        ..LaunchConfig::default()
    };
    let out = run(
        b.f,
        cfg,
        vec![
            (
                "a",
                ArgValue::Buffer(bytes(&av.iter().map(|f| f.to_bits()).collect::<Vec<_>>())),
            ),
            (
                "b",
                ArgValue::Buffer(bytes(&bv.iter().map(|f| f.to_bits()).collect::<Vec<_>>())),
            ),
            ("out", ArgValue::Buffer(vec![0; 4 * count as usize])),
            ("n", ArgValue::Int(u64::from(count))),
        ],
    );
    let got = words(buffer(&out, "out"));
    for k in 0..count as usize {
        assert_eq!(f32::from_bits(got[k]), av[k] + bv[k], "element {k}");
    }
}

/// A divergent if/else whose arms define a value used after the join.
#[test]
fn divergent_if_else_result() {
    let out = run_ir(
        "kernel @k(out: ptr.global) {
          %0 = param 0 : ptr.global
          %1 = localid(0) : i32
          %2 = const 8 : i32
          %3 = cmp.ult %1, %2 : i1
          %4 = if %3 : i32 {
            %5 = const 2 : i32
            %6 = mul %1, %5 : i32
            yield %6
          } else {
            %7 = const 100 : i32
            %8 = add %1, %7 : i32
            yield %8
          }
          %9 = zext %1 : i64
          %10 = const 2 : i64
          %11 = shl %9, %10 : i64
          %12 = ptradd %0, %11 : ptr.global
          store.4 %12, %4
        }",
        one_group(40),
        vec![("out", ArgValue::Buffer(vec![0; 160]))],
    );
    let got = words(buffer(&out, "out"));
    for (l, &g) in got.iter().enumerate() {
        let l = l as u32;
        assert_eq!(g, if l < 8 { l * 2 } else { l + 100 }, "lane {l}");
    }
}

/// Collatz step counts: a loop whose trip count differs in every lane, inside an `if`.
#[test]
fn divergent_loop_with_results() {
    let out = run_ir(
        "kernel @collatz(out: ptr.global) {
          %0 = param 0 : ptr.global
          %1 = localid(0) : i32
          %c1 = const 1 : i32
          %n0 = add %1, %c1 : i32
          %z = const 0 : i32
          %g = cmp.ugt %n0, %c1 : i1
          %r = if %g : i32 {
            %n, %s = loop %n0, %z : i32, i32 {
            ^(%a: i32, %b: i32):
              %odd = and %a, %c1 : i32
              %isodd = cmp.ne %odd, %z : i1
              %three = const 3 : i32
              %t1 = mul %a, %three : i32
              %t2 = add %t1, %c1 : i32
              %h = lshr %a, %c1 : i32
              %next = select %isodd, %t2, %h : i32
              %s2 = add %b, %c1 : i32
              %cont = cmp.ugt %next, %c1 : i1
              loop_end %cont, %next, %s2
            }
            yield %s
          } else {
            yield %z
          }
          %9 = zext %1 : i64
          %10 = const 2 : i64
          %11 = shl %9, %10 : i64
          %12 = ptradd %0, %11 : ptr.global
          store.4 %12, %r
        }",
        one_group(64),
        vec![("out", ArgValue::Buffer(vec![0; 256]))],
    );
    let got = words(buffer(&out, "out"));
    for (l, &g) in got.iter().enumerate() {
        let mut n = l as u32 + 1;
        let mut steps = 0;
        while n > 1 {
            n = if n % 2 == 1 { 3 * n + 1 } else { n / 2 };
            steps += 1;
        }
        assert_eq!(g, steps, "lane {l}");
    }
}

/// A counter that is uniform inside a divergent loop but whose final value differs per lane
/// (temporal divergence).
#[test]
fn uniform_counter_of_divergent_loop() {
    let out = run_ir(
        "kernel @k(out: ptr.global) {
          %0 = param 0 : ptr.global
          %1 = localid(0) : i32
          %c1 = const 1 : i32
          %z = const 0 : i32
          %k = loop %z : i32 {
          ^(%a: i32):
            %n = add %a, %c1 : i32
            %cont = cmp.ult %n, %1 : i1
            loop_end %cont, %n
          }
          %9 = zext %1 : i64
          %10 = const 2 : i64
          %11 = shl %9, %10 : i64
          %12 = ptradd %0, %11 : ptr.global
          store.4 %12, %k
        }",
        one_group(50),
        vec![("out", ArgValue::Buffer(vec![0; 200]))],
    );
    let got = words(buffer(&out, "out"));
    for (l, &g) in got.iter().enumerate() {
        assert_eq!(g, (l as u32).max(1), "lane {l}");
    }
}

/// A uniform loop (trip count from an argument) accumulating a per-lane value, inside a
/// divergent `if`.
#[test]
fn uniform_loop_in_divergent_if() {
    let out = run_ir(
        "kernel @k(out: ptr.global, n: i32) {
          %0 = param 0 : ptr.global
          %n = param 1 : i32
          %1 = localid(0) : i32
          %c1 = const 1 : i32
          %z = const 0 : i32
          %five = const 5 : i32
          %g = cmp.ult %1, %five : i1
          %r = if %g : i32 {
            %h = cmp.sgt %n, %z : i1
            %s = if %h : i32 {
              %k, %acc = loop %z, %z : i32, i32 {
              ^(%a: i32, %b: i32):
                %t = mul %a, %1 : i32
                %b2 = add %b, %t : i32
                %a2 = add %a, %c1 : i32
                %cont = cmp.slt %a2, %n : i1
                loop_end %cont, %a2, %b2
              }
              yield %acc
            } else {
              yield %z
            }
            yield %s
          } else {
            %m = const 7 : i32
            yield %m
          }
          %9 = zext %1 : i64
          %10 = const 2 : i64
          %11 = shl %9, %10 : i64
          %12 = ptradd %0, %11 : ptr.global
          store.4 %12, %r
        }",
        one_group(32),
        vec![
            ("out", ArgValue::Buffer(vec![0; 128])),
            ("n", ArgValue::Int(10)),
        ],
    );
    let got = words(buffer(&out, "out"));
    for (l, &g) in got.iter().enumerate() {
        let l = l as u32;
        let want = if l < 5 {
            (0..10).map(|k| k * l).sum()
        } else {
            7
        };
        assert_eq!(g, want, "lane {l}");
    }
}

/// Shared memory and a barrier: every thread writes its id, then reads its neighbour's.
#[test]
fn shared_memory_and_barrier() {
    let out = run_ir(
        "kernel @k(out: ptr.global) {
          local 0 tile: 1024 bytes, align 4
          %0 = param 0 : ptr.global
          %1 = localid(0) : i32
          %t = local_addr 0 : ptr.local
          %c4 = const 4 : i32
          %off = mul %1, %c4 : i32
          %p = ptradd %t, %off : ptr.local
          %c3 = const 3 : i32
          %v = mul %1, %c3 : i32
          store.4 %p, %v
          barrier local
          %c1 = const 1 : i32
          %j = add %1, %c1 : i32
          %c63 = const 63 : i32
          %jm = and %j, %c63 : i32
          %o2 = mul %jm, %c4 : i32
          %q = ptradd %t, %o2 : ptr.local
          %w = load.4 %q : i32
          %9 = zext %1 : i64
          %10 = const 2 : i64
          %11 = shl %9, %10 : i64
          %12 = ptradd %0, %11 : ptr.global
          store.4 %12, %w
        }",
        one_group(64),
        vec![("out", ArgValue::Buffer(vec![0; 256]))],
    );
    let got = words(buffer(&out, "out"));
    for (l, &g) in got.iter().enumerate() {
        assert_eq!(g, ((l as u32 + 1) & 63) * 3, "lane {l}");
    }
}

/// Global and local atomics, with and without returned values.
#[test]
fn atomics() {
    let out = run_ir(
        "kernel @k(out: ptr.global, ctr: ptr.global) {
          local 0 cnt: 4 bytes, align 4
          %0 = param 0 : ptr.global
          %c = param 1 : ptr.global
          %1 = localid(0) : i32
          %z = const 0 : i32
          %isz = cmp.eq %1, %z : i1
          if %isz {
            %l = local_addr 0 : ptr.local
            store.4 %l, %z
            yield
          } else {
            yield
          }
          barrier local
          %la = local_addr 0 : ptr.local
          %c1 = const 1 : i32
          %old = atomic.add %la, %c1 : i32
          %two = const 2 : i32
          %ig = atomic.add %c, %two : i32
          %9 = zext %1 : i64
          %10 = const 2 : i64
          %11 = shl %9, %10 : i64
          %12 = ptradd %0, %11 : ptr.global
          store.4 %12, %old
        }",
        one_group(48),
        vec![
            ("out", ArgValue::Buffer(vec![0; 192])),
            ("ctr", ArgValue::Buffer(vec![0; 4])),
        ],
    );
    let mut got = words(buffer(&out, "out"));
    got.sort();
    assert_eq!(got, (0..48).collect::<Vec<u32>>());
    assert_eq!(words(buffer(&out, "ctr")), vec![96]);
}

fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// Integer division and remainder by variables and constants, signed and unsigned, 32 and
/// 64 bits, against Rust's, on random and edge operands.
#[test]
fn division() {
    let ops32 = ["udiv", "urem", "sdiv", "srem"];
    let consts: [i32; 7] = [3, 7, 10, 16, -5, 641, -1024];
    let mut text = String::from("kernel @k(a: ptr.global, b: ptr.global, out: ptr.global) {\n");
    text.push_str("  %pa = param 0 : ptr.global\n  %pb = param 1 : ptr.global\n  %po = param 2 : ptr.global\n");
    text.push_str("  %l = localid(0) : i32\n  %l64 = zext %l : i64\n  %k8 = const 8 : i64\n  %o8 = mul %l64, %k8 : i64\n");
    text.push_str("  %qa = ptradd %pa, %o8 : ptr.global\n  %qb = ptradd %pb, %o8 : ptr.global\n");
    text.push_str("  %x = load.8 %qa : i64\n  %y = load.8 %qb : i64\n  %x32 = trunc %x : i32\n  %y32 = trunc %y : i32\n");
    let mut outs = Vec::new();
    for op in ops32 {
        text.push_str(&format!(
            "  %r{n} = {op} %x32, %y32 : i32\n",
            n = outs.len()
        ));
        outs.push(format!("%r{}", outs.len()));
        for c in consts {
            text.push_str(&format!(
                "  %c{n} = const {v} : i32\n  %r{n} = {op} %x32, %c{n} : i32\n",
                n = outs.len(),
                v = c as u32
            ));
            outs.push(format!("%r{}", outs.len()));
        }
    }
    let ops64 = ["udiv", "urem", "sdiv", "srem"];
    for op in ops64 {
        text.push_str(&format!("  %w{n} = {op} %x, %y : i64\n  %r{n} = trunc %w{n} : i32\n  %h{n}s = const 32 : i64\n  %h{n} = lshr %w{n}, %h{n}s : i64\n  %r{m} = trunc %h{n} : i32\n", n = outs.len(), m = outs.len() + 1));
        outs.push(format!("%r{}", outs.len()));
        outs.push(format!("%r{}", outs.len()));
    }
    let per = outs.len() as u64;
    text.push_str(&format!(
        "  %kper = const {} : i64\n  %base = mul %l64, %kper : i64\n",
        per * 4
    ));
    for (i, r) in outs.iter().enumerate() {
        text.push_str(&format!("  %off{i}c = const {} : i64\n  %off{i} = add %base, %off{i}c : i64\n  %p{i} = ptradd %po, %off{i} : ptr.global\n  store.4 %p{i}, {r}\n", 4 * i));
    }
    text.push_str("}\n");
    let lanes = 64usize;
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let edges = [
        (0u64, 1u64),
        (u64::MAX, 1),
        (7, u64::MAX),
        (0x8000_0000, 0xffff_ffff),
        (100, 7),
        (u64::MAX, u64::MAX),
        (0x8000_0000_0000_0000, 3),
    ];
    for l in 0..lanes {
        let (x, mut y) = if l < edges.len() {
            edges[l]
        } else {
            (
                xorshift(&mut seed),
                xorshift(&mut seed) >> (xorshift(&mut seed) % 64),
            )
        };
        if y == 0 || y as u32 == 0 {
            y |= 1;
        }
        xs.push(x);
        ys.push(y);
    }
    let b = |v: &[u64]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let out = run_ir(
        &text,
        one_group(lanes as u32),
        vec![
            ("a", ArgValue::Buffer(b(&xs))),
            ("b", ArgValue::Buffer(b(&ys))),
            ("out", ArgValue::Buffer(vec![0; lanes * per as usize * 4])),
        ],
    );
    let got = words(buffer(&out, "out"));
    for l in 0..lanes {
        let (x, y) = (xs[l], ys[l]);
        let (x32, y32) = (x as u32, y as u32);
        let mut want = Vec::new();
        let f32s = |op: &str, a: u32, d: u32| -> u32 {
            match op {
                "udiv" => a / d,
                "urem" => a % d,
                "sdiv" => (a as i32).wrapping_div(d as i32) as u32,
                _ => (a as i32).wrapping_rem(d as i32) as u32,
            }
        };
        for op in ops32 {
            want.push(f32s(op, x32, y32));
            for c in consts {
                want.push(f32s(op, x32, c as u32));
            }
        }
        for op in ops64 {
            let w = match op {
                "udiv" => x / y,
                "urem" => x % y,
                "sdiv" => (x as i64).wrapping_div(y as i64) as u64,
                _ => (x as i64).wrapping_rem(y as i64) as u64,
            };
            want.push(w as u32);
            want.push((w >> 32) as u32);
        }
        let row = &got[l * per as usize..(l + 1) * per as usize];
        assert_eq!(row, want.as_slice(), "lane {l}: x={x:#x} y={y:#x}");
    }
}

/// Conversions between integers and floats of every width, 64-bit arithmetic, float
/// arithmetic, against Rust's (which rounds to nearest even and truncates toward zero).
#[test]
fn conversions_and_wide_arithmetic() {
    // (name, IR lines computing %r from %x: i64 and %f: f64, result type, host function)
    type Host = fn(u64, f64) -> u64;
    let cases: Vec<(&str, &str, &str, Host)> = vec![
        ("sitof64", "%r = sitof %x : f64", "f64", |x, _| (x as i64 as f64).to_bits()),
        ("uitof64", "%r = uitof %x : f64", "f64", |x, _| (x as f64).to_bits()),
        ("sitof32", "%r = sitof %x : f32", "f32", |x, _| u64::from((x as i64 as f32).to_bits())),
        ("uitof32", "%r = uitof %x : f32", "f32", |x, _| u64::from((x as f32).to_bits())),
        ("ftosi64", "%r = ftosi %f : i64", "i64", |_, f| (f.trunc() as i64) as u64),
        ("ftoui32", "%_ff = fabs %f : f64\n  %_big = const 0x41efffffffe00000 : f64\n  %_fm = fmin %_ff, %_big : f64\n  %r = ftoui %_fm : i32", "i32", |_, f| u64::from(f.abs().min(f64::from_bits(0x41efffffffe00000)) as u32)),
        ("i32tof", "%_t = trunc %x : i32\n  %r = sitof %_t : f32", "f32", |x, _| u64::from((x as u32 as i32 as f32).to_bits())),
        ("u32tod", "%_t = trunc %x : i32\n  %r = uitof %_t : f64", "f64", |x, _| (f64::from(x as u32)).to_bits()),
        ("mul64", "%r = mul %x, %x : i64", "i64", |x, _| x.wrapping_mul(x)),
        ("shl64", "%_s = const 37 : i64\n  %r = shl %x, %_s : i64", "i64", |x, _| x << 37),
        ("sra64", "%_s = const 40 : i64\n  %r = ashr %x, %_s : i64", "i64", |x, _| ((x as i64) >> 40) as u64),
        ("mulhi64", "%r = mulhiu %x, %x : i64", "i64", |x, _| ((u128::from(x) * u128::from(x)) >> 64) as u64),
        ("smulhi64", "%_y = const 0xfffffffffffffff9 : i64\n  %r = mulhis %x, %_y : i64", "i64", |x, _| ((i128::from(x as i64) * -7) >> 64) as u64),
        ("fdiv64", "%_d = const 0x4008000000000000 : f64\n  %r = fdiv %f, %_d : f64", "f64", |_, f| (f / 3.0).to_bits()),
        ("fsqrt32", "%_g = ftrunc %f : f32\n  %_a = fabs %_g : f32\n  %r = math.sqrt %_a : f32", "f32", |_, f| u64::from((f as f32).abs().sqrt().to_bits())),
        ("min64", "%_y = const 12345 : i64\n  %r = smin %x, %_y : i64", "i64", |x, _| (x as i64).min(12345) as u64),
    ];
    let mut text = String::from("kernel @k(a: ptr.global, fl: ptr.global, out: ptr.global) {\n  %pa = param 0 : ptr.global\n  %pf = param 1 : ptr.global\n  %po = param 2 : ptr.global\n  %l = localid(0) : i32\n  %l64 = zext %l : i64\n  %k8 = const 8 : i64\n  %o8 = mul %l64, %k8 : i64\n  %qa = ptradd %pa, %o8 : ptr.global\n  %qf = ptradd %pf, %o8 : ptr.global\n  %x = load.8 %qa : i64\n  %f = load.8 %qf : f64\n");
    let per = cases.len() as u64;
    text.push_str(&format!(
        "  %kper = const {} : i64\n  %base = mul %l64, %kper : i64\n",
        per * 8
    ));
    for (i, (_, body, ty, _)) in cases.iter().enumerate() {
        let body = body
            .replace("%r ", &format!("%r{i} "))
            .replace("%_", &format!("%_{i}_"));
        text.push_str(&format!("  {body}\n"));
        let value = match *ty {
            "i64" | "f64" => format!("%r{i}"),
            "f32" => {
                text.push_str(&format!(
                    "  %b{i} = bitcast %r{i} : i32\n  %z{i} = zext %b{i} : i64\n"
                ));
                format!("%z{i}")
            }
            _ => {
                text.push_str(&format!("  %z{i} = zext %r{i} : i64\n"));
                format!("%z{i}")
            }
        };
        text.push_str(&format!("  %oc{i} = const {} : i64\n  %off{i} = add %base, %oc{i} : i64\n  %p{i} = ptradd %po, %off{i} : ptr.global\n  store.8 %p{i}, {value}\n", 8 * i));
    }
    text.push_str("}\n");
    let lanes = 64usize;
    let mut seed = 0x2545F4914F6CDD1Du64;
    let mut xs = vec![
        0u64,
        1,
        u64::MAX,
        0x8000_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
        (1 << 53) + 1,
        (1 << 24) + 1,
        0x0020_0000_0000_0001,
    ];
    let mut fs = vec![
        0.0f64,
        -0.0,
        1.5,
        -2.5,
        4294967295.9,
        1e18,
        -1e18,
        123456.789,
    ];
    while xs.len() < lanes {
        let r = xorshift(&mut seed);
        xs.push(r >> (r % 64));
        let m = (xorshift(&mut seed) % 2_000_000) as f64 - 1_000_000.0;
        fs.push(m * (xorshift(&mut seed) % 1_000_000) as f64 / 7.0);
    }
    let b = |v: Vec<u64>| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let out = run_ir(
        &text,
        one_group(lanes as u32),
        vec![
            ("a", ArgValue::Buffer(b(xs.clone()))),
            (
                "fl",
                ArgValue::Buffer(b(fs.iter().map(|f| f.to_bits()).collect())),
            ),
            ("out", ArgValue::Buffer(vec![0; lanes * per as usize * 8])),
        ],
    );
    let got: Vec<u64> = buffer(&out, "out")
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for l in 0..lanes {
        for (i, (name, _, _, host)) in cases.iter().enumerate() {
            let want = host(xs[l], fs[l]);
            assert_eq!(
                got[l * per as usize + i],
                want,
                "{name} lane {l}: x={:#x} f={}",
                xs[l],
                fs[l]
            );
        }
    }
}

/// More live vector values than registers: the allocator spills to scratch memory, and the
/// spill code runs correctly under partial EXEC (a partial last warp, a divergent region).
#[test]
fn spilling() {
    let n = 90usize;
    let mut text = String::from("kernel @k(a: ptr.global, out: ptr.global) {\n  %pa = param 0 : ptr.global\n  %po = param 1 : ptr.global\n  %l = localid(0) : i32\n  %l64 = zext %l : i64\n");
    text.push_str(&format!(
        "  %kn = const {} : i64\n  %base = mul %l64, %kn : i64\n",
        4 * n
    ));
    for i in 0..n {
        text.push_str(&format!("  %c{i} = const {} : i64\n  %o{i} = add %base, %c{i} : i64\n  %p{i} = ptradd %pa, %o{i} : ptr.global\n  %x{i} = load.4 %p{i} : i32\n", 4 * i));
    }
    // A divergent region in the middle, with everything live across it.
    text.push_str("  %k3 = const 3 : i32\n  %odd = and %l, %k3 : i32\n  %z = const 0 : i32\n  %g = cmp.ne %odd, %z : i1\n  %y = if %g : i32 {\n");
    text.push_str("    %m = mul %x0, %x1 : i32\n    yield %m\n  } else {\n    yield %x2\n  }\n");
    text.push_str("  %s0 = add %y, %z : i32\n");
    for i in 0..n {
        let k = n - 1 - i;
        text.push_str(&format!("  %w{i} = const {} : i32\n  %t{i} = mul %x{k}, %w{i} : i32\n  %s{} = add %s{i}, %t{i} : i32\n", i + 1, i + 1));
    }
    text.push_str(&format!("  %ko = const 2 : i64\n  %oo = shl %l64, %ko : i64\n  %q = ptradd %po, %oo : ptr.global\n  store.4 %q, %s{n}\n}}\n"));
    let lanes = 40u32;
    let input: Vec<u32> = (0..lanes as usize * n)
        .map(|k| (k as u32).wrapping_mul(2654435761))
        .collect();
    let out = run_ir(
        &text,
        one_group(lanes),
        vec![
            ("a", ArgValue::Buffer(bytes(&input))),
            ("out", ArgValue::Buffer(vec![0; 4 * lanes as usize])),
        ],
    );
    let got = words(buffer(&out, "out"));
    for l in 0..lanes as usize {
        let x = |i: usize| input[l * n + i];
        let mut s = if l & 3 != 0 {
            x(0).wrapping_mul(x(1))
        } else {
            x(2)
        };
        for i in 0..n {
            s = s.wrapping_add(x(n - 1 - i).wrapping_mul(i as u32 + 1));
        }
        assert_eq!(got[l], s, "lane {l}");
    }
}

/// A private array indexed by a per-lane value lives in scratch memory.
#[test]
fn private_array() {
    let out = run_ir(
        "kernel @k(out: ptr.global) {
          private 0 arr: 64 bytes, align 4
          %po = param 0 : ptr.global
          %l = localid(0) : i32
          %arr = private_addr 0 : ptr.private
          %z = const 0 : i32
          %c1 = const 1 : i32
          %c4 = const 4 : i32
          %c16 = const 16 : i32
          %i = loop %z : i32 {
          ^(%a: i32):
            %o = mul %a, %c4 : i32
            %p = ptradd %arr, %o : ptr.private
            %v = mul %a, %l : i32
            store.4 %p, %v
            %a2 = add %a, %c1 : i32
            %cont = cmp.ult %a2, %c16 : i1
            loop_end %cont, %a2
          }
          %c15 = const 15 : i32
          %j = and %l, %c15 : i32
          %oj = mul %j, %c4 : i32
          %pj = ptradd %arr, %oj : ptr.private
          %r = load.4 %pj : i32
          %l64 = zext %l : i64
          %k2 = const 2 : i64
          %oo = shl %l64, %k2 : i64
          %q = ptradd %po, %oo : ptr.global
          store.4 %q, %r
        }",
        one_group(48),
        vec![("out", ArgValue::Buffer(vec![0; 4 * 48]))],
    );
    let got = words(buffer(&out, "out"));
    for (l, &g) in got.iter().enumerate() {
        let l = l as u32;
        assert_eq!(g, (l & 15) * l, "lane {l}");
    }
}

/// More live uniform values than uniform registers: they spill through scratch memory.
#[test]
fn uniform_spilling() {
    let n = 45usize;
    let mut text = String::from("kernel @k(out: ptr.global");
    for i in 0..n {
        text.push_str(&format!(", p{i}: i32"));
    }
    text.push_str(") {\n  %po = param 0 : ptr.global\n  %l = localid(0) : i32\n");
    for i in 0..n {
        text.push_str(&format!("  %x{i} = param {} : i32\n", i + 1));
    }
    text.push_str("  %k1 = const 1 : i32\n  %odd = and %l, %k1 : i32\n  %z = const 0 : i32\n  %g = cmp.ne %odd, %z : i1\n  %y = if %g : i32 {\n    %m = mul %x0, %x1 : i32\n    yield %m\n  } else {\n    yield %x2\n  }\n");
    text.push_str("  %s0 = add %y, %z : i32\n");
    for i in 0..n {
        let k = n - 1 - i;
        text.push_str(&format!("  %w{i} = const {} : i32\n  %t{i} = mul %x{k}, %w{i} : i32\n  %s{} = add %s{i}, %t{i} : i32\n", i + 1, i + 1));
    }
    text.push_str(&format!("  %l64 = zext %l : i64\n  %ko = const 2 : i64\n  %oo = shl %l64, %ko : i64\n  %q = ptradd %po, %oo : ptr.global\n  store.4 %q, %s{n}\n}}\n"));
    let lanes = 40u32;
    let values: Vec<u32> = (0..n as u32)
        .map(|k| k.wrapping_mul(2654435761) ^ 0x5a5a)
        .collect();
    let mut args = vec![("out", ArgValue::Buffer(vec![0; 4 * lanes as usize]))];
    for &v in &values {
        args.push(("p", ArgValue::Int(u64::from(v))));
    }
    let out = run_ir(&text, one_group(lanes), args);
    let got = words(buffer(&out, "out"));
    for (l, &g) in got.iter().enumerate() {
        let mut s = if l & 1 != 0 {
            values[0].wrapping_mul(values[1])
        } else {
            values[2]
        };
        for i in 0..n {
            s = s.wrapping_add(values[n - 1 - i].wrapping_mul(i as u32 + 1));
        }
        assert_eq!(g, s, "lane {l}");
    }
}
