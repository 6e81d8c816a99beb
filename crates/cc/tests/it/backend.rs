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
