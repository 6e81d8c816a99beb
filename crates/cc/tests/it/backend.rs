//! The back end on hand-built IR: compiled kernels run on the functional model and give the
//! expected results, with no hazard.

use warpkit_cc::ir::*;
use warpkit_cc::source::{SourceMap, Span};
use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig};

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
    bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
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
    LaunchConfig { grid: [1, 1, 1], block: [threads, 1, 1], ..LaunchConfig::default() }
}

/// Compile, assemble and launch; returns the buffers by name.
fn run(f: Function, cfg: LaunchConfig, args: Vec<(&str, ArgValue)>) -> Vec<(String, Vec<u8>)> {
    let module = Module {
        kernels: vec![f],
        constants: vec![],
    };
    let sources = SourceMap::new();
    let text = warpkit_cc::backend::generate(&module, &sources).unwrap_or_else(|d| panic!("{}", d.render(&sources)));
    let text: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(".kernel") && !l.trim_start().starts_with(".param"))
        .map(|l| format!("{l}\n"))
        .collect();
    let program = warpkit_asm::assemble(&text, "k.s").unwrap_or_else(|e| panic!("{}\n{text}", e.render(&text)));
    let prog = warpkit_sim::Program::new(program.text);
    let args = args.into_iter().map(|(n, v)| Arg { name: n.into(), value: v }).collect();
    let r = launch(&prog, &cfg, args).unwrap();
    assert!(r.ok(), "traps: {:?}\n{text}", r.traps);
    assert!(r.hazards.is_empty(), "hazards: {:?}\n{text}", r.hazards);
    eprintln!("{text}");
    r.buffers.iter().map(|b| (b.name.clone(), b.bytes.to_vec())).collect()
}

fn buffer<'a>(out: &'a [(String, Vec<u8>)], name: &str) -> &'a [u8] {
    &out.iter().find(|(n, _)| n == name).expect("buffer").1
}

/// `out[i] = a[i] + b[i]` for `i < n`.
#[test]
fn vadd() {
    let g = Ty::Ptr(Space::Global);
    let mut b = B::new("vadd", &[("a", ParamKind::PtrGlobal, g), ("b", ParamKind::PtrGlobal, g), ("out", ParamKind::PtrGlobal, g), ("n", ParamKind::I32, Ty::I32)]);
    let top = b.f.body;
    let pa = b.v(top, OpKind::Param(0), vec![], g);
    let pb = b.v(top, OpKind::Param(1), vec![], g);
    let po = b.v(top, OpKind::Param(2), vec![], g);
    let n = b.v(top, OpKind::Param(3), vec![], Ty::I32);
    let lid = b.v(top, OpKind::WorkItem(WorkItem::LocalId(0)), vec![], Ty::I32);
    let grp = b.v(top, OpKind::WorkItem(WorkItem::GroupId(0)), vec![], Ty::I32);
    let ls = b.v(top, OpKind::WorkItem(WorkItem::LocalSize(0)), vec![], Ty::I32);
    let t = b.v(top, OpKind::Binary(BinOp::Mul), vec![grp, ls], Ty::I32);
    let i = b.v(top, OpKind::Binary(BinOp::Add), vec![t, lid], Ty::I32);
    let c = b.v(top, OpKind::Cmp(CmpPred::Slt), vec![i, n], Ty::I1);
    let then = b.f.new_region(&[]);
    let els = b.f.new_region(&[]);
    let i64v = b.v(then, OpKind::Cast(CastOp::SExt), vec![i], Ty::I64);
    let four = b.c(then, Ty::I64, 4);
    let off = b.v(then, OpKind::Binary(BinOp::Mul), vec![i64v, four], Ty::I64);
    let m = MemTy { size: 4, signed: false };
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
    let cfg = LaunchConfig { grid: [4, 1, 1], block: [256, 1, 1], ..LaunchConfig::default() };
    let out = run(
        b.f,
        cfg,
        vec![
            ("a", ArgValue::Buffer(bytes(&av.iter().map(|f| f.to_bits()).collect::<Vec<_>>()))),
            ("b", ArgValue::Buffer(bytes(&bv.iter().map(|f| f.to_bits()).collect::<Vec<_>>()))),
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
        vec![("out", ArgValue::Buffer(vec![0; 128])), ("n", ArgValue::Int(10))],
    );
    let got = words(buffer(&out, "out"));
    for (l, &g) in got.iter().enumerate() {
        let l = l as u32;
        let want = if l < 5 { (0..10).map(|k| k * l).sum() } else { 7 };
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
        vec![("out", ArgValue::Buffer(vec![0; 192])), ("ctr", ArgValue::Buffer(vec![0; 4]))],
    );
    let mut got = words(buffer(&out, "out"));
    got.sort();
    assert_eq!(got, (0..48).collect::<Vec<u32>>());
    assert_eq!(words(buffer(&out, "ctr")), vec![96]);
}
