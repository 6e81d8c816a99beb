//! Random IR kernels without undefined behaviour, for differential tests of the passes:
//! random expression DAGs over `i1 i32 i64 f32 f64`, nested `If`s with results, counted
//! loops (constant and data-dependent trip counts, several shapes) with carried values,
//! loads and stores to a read-only input buffer, to each work-item's own slice of an
//! output buffer, to private objects (at constant offsets and at dynamic ones) and to
//! shared memory, atomics and barriers (at the top level only, so never divergent).
//! Divisors are made nonzero and positive, indexes are masked into bounds.

use crate::build::*;
use warpkit_cc::ir::interp::{Arg, Launch};
use warpkit_cc::ir::{
    AtomicOp, BinOp, CastOp, CmpPred, MathOp, Module, OpKind, ParamKind, Ty, UnOp, ValueId,
};
use warpkit_cc::source::Span;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Bytes of each work-item's slice of the output buffer.
pub const SLICE: u32 = 64;
/// Work-items per workgroup and workgroups.
pub const BLOCK: u32 = 4;
pub const GRID: u32 = 2;
/// Words of the input buffer.
const INPUT_WORDS: u32 = 64;

const TYS: [Ty; 5] = [Ty::I32, Ty::I32, Ty::I64, Ty::F32, Ty::I1];

struct Gen {
    r: Rng,
    b: B,
    scopes: Vec<Vec<ValueId>>,
    depth: u32,
    /// Whether every work-item runs the current point (no enclosing `If`, only loops with
    /// constant trip counts): barriers may go here.
    uniform: bool,
    budget: i32,
    out_slice: ValueId,
    inp: ValueId,
    /// Object promoted by SROA: 16 bytes, constant offsets only.
    small: ValueId,
    /// Object that stays in memory: 32 bytes, dynamic indexes too.
    array: ValueId,
    /// 8-byte object holding an i64 or f64.
    wide: ValueId,
    shared: ValueId,
    /// Induction variables of the enclosing loops.
    inductions: Vec<ValueId>,
}

/// A random kernel `k(out: global, inp: constant, n: i32)` and a launch for it.
pub fn kernel(seed: u64) -> (Module, Launch) {
    let mut b = B::new("random");
    let out = b.param("out", ParamKind::PtrGlobal);
    let inp = b.param("inp", ParamKind::PtrConstant);
    let n = b.param("n", ParamKind::I32);
    let gid = b.gid();
    let slice_bytes = b.i32(SLICE as i32);
    let offset = b.mul(gid, slice_bytes);
    let offset = b.cast(CastOp::ZExt, offset, Ty::I64);
    let out_slice = b.ptradd(out, offset);
    let small_obj = b.private_object("small", 16, 4);
    let array_obj = b.private_object("array", 32, 4);
    let wide_obj = b.private_object("wide", 8, 8);
    let shared_obj = b.local_object("shared", 64, 4);
    let small = b.op(OpKind::PrivateAddr(small_obj), vec![], PRIVATE);
    let array = b.op(OpKind::PrivateAddr(array_obj), vec![], PRIVATE);
    let wide = b.op(OpKind::PrivateAddr(wide_obj), vec![], PRIVATE);
    let shared = b.op(OpKind::LocalAddr(shared_obj), vec![], LOCAL);
    let lid = b.wi(warpkit_cc::ir::WorkItem::LocalId(0));
    let mut g = Gen {
        r: Rng::new(seed),
        b,
        scopes: vec![vec![n, gid, lid]],
        depth: 0,
        budget: 30 + (seed % 7) as i32 * 25,
        uniform: true,
        out_slice,
        inp,
        small,
        array,
        wide,
        shared,
        inductions: Vec::new(),
    };
    g.statements(14);
    // Make many values observable.
    for k in 0..8 {
        let vals: Vec<ValueId> = g.scopes[0].clone();
        let v = vals[vals.len() - 1 - (k * 7 % vals.len())];
        g.store_out(v, Some(k as u64 * 4));
    }
    let m = g.b.module();
    let inp: Vec<u8> = (0..INPUT_WORDS)
        .flat_map(|k| {
            let x = k.wrapping_mul(0x9e37_79b9) ^ (seed as u32);
            let v = if k % 5 == 0 {
                f32::to_bits(k as f32 * 0.37 - 3.0)
            } else {
                x
            };
            v.to_le_bytes()
        })
        .collect();
    let launch = Launch {
        grid: [GRID, 1, 1],
        block: [BLOCK, 1, 1],
        args: vec![
            Arg::Buffer(vec![0; (SLICE * GRID * BLOCK) as usize]),
            Arg::Buffer(inp),
            Arg::Scalar(5 + seed % 7),
        ],
        step_limit: 5_000_000,
    };
    (m, launch)
}

impl Gen {
    fn visible(&self, ty: Ty) -> Vec<ValueId> {
        self.scopes
            .iter()
            .flatten()
            .copied()
            .filter(|&v| self.b.ty(v) == ty)
            .collect()
    }

    fn define(&mut self, v: ValueId) -> ValueId {
        self.scopes.last_mut().unwrap().push(v);
        v
    }

    fn konst(&mut self, ty: Ty) -> ValueId {
        let bits = match ty {
            Ty::I1 => self.r.below(2),
            Ty::I32 | Ty::I64 => {
                let choices: [i64; 12] = [0, 1, 2, 3, 4, 7, 8, 16, 31, 32, -1, i32::MIN as i64];
                if self.r.chance(70) {
                    self.r.pick(&choices) as u64
                } else {
                    self.r.next()
                }
            }
            Ty::F32 => {
                let choices = [
                    0.0f32,
                    -0.0,
                    1.0,
                    0.5,
                    -2.5,
                    1e30,
                    f32::INFINITY,
                    f32::NAN,
                    3.0e9,
                ];
                u64::from(self.r.pick(&choices).to_bits())
            }
            _ => self.r.pick(&[0.0f64, 1.0, -0.75, 1e300]).to_bits(),
        };
        let bits = bits & warpkit_cc::ir::eval::mask(ty);
        self.b.konst(ty, bits)
    }

    /// An existing value of type `ty`, or a new constant, or a new expression.
    fn value(&mut self, ty: Ty) -> ValueId {
        let vis = self.visible(ty);
        if !vis.is_empty() && self.r.chance(65) {
            // Prefer recent values: deeper DAGs.
            let k = self.r.below(vis.len().min(6) as u64) as usize;
            return vis[vis.len() - 1 - k];
        }
        if self.r.chance(40) || self.budget <= 0 || self.depth > 4 {
            return self.konst(ty);
        }
        self.expr(ty)
    }

    fn expr(&mut self, ty: Ty) -> ValueId {
        self.budget -= 1;
        let v = match ty {
            Ty::I1 => self.expr_i1(),
            Ty::I32 => self.expr_int(Ty::I32),
            Ty::I64 => self.expr_int(Ty::I64),
            Ty::F32 => self.expr_f32(),
            _ => self.expr_f64(),
        };
        self.define(v)
    }

    fn expr_i1(&mut self) -> ValueId {
        match self.r.below(6) {
            0..=2 => {
                let t = self.r.pick(&[Ty::I32, Ty::I32, Ty::I64, Ty::F32]);
                let preds: &[CmpPred] = if t == Ty::F32 {
                    &[
                        CmpPred::FOeq,
                        CmpPred::FOlt,
                        CmpPred::FOle,
                        CmpPred::FOgt,
                        CmpPred::FOge,
                        CmpPred::FUne,
                        CmpPred::FOrd,
                        CmpPred::FUno,
                    ]
                } else {
                    &[
                        CmpPred::Eq,
                        CmpPred::Ne,
                        CmpPred::Slt,
                        CmpPred::Sle,
                        CmpPred::Sgt,
                        CmpPred::Sge,
                        CmpPred::Ult,
                        CmpPred::Ule,
                        CmpPred::Ugt,
                        CmpPred::Uge,
                    ]
                };
                let p = self.r.pick(preds);
                let a = self.value(t);
                let c = self.value(t);
                self.b.cmp(p, a, c)
            }
            3 => {
                let op = self.r.pick(&[BinOp::And, BinOp::Or, BinOp::Xor]);
                let a = self.value(Ty::I1);
                let c = self.value(Ty::I1);
                self.b.bin(op, a, c)
            }
            4 => {
                let a = self.value(Ty::I1);
                self.b.op(OpKind::Unary(UnOp::Not), vec![a], Ty::I1)
            }
            _ => {
                let a = self.value(Ty::I32);
                self.b.cast(CastOp::Trunc, a, Ty::I1)
            }
        }
    }

    fn expr_int(&mut self, ty: Ty) -> ValueId {
        match self.r.below(16) {
            0..=5 => {
                let op = self.r.pick(&[
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::And,
                    BinOp::Or,
                    BinOp::Xor,
                    BinOp::Shl,
                    BinOp::LShr,
                    BinOp::AShr,
                    BinOp::Rotl,
                    BinOp::SMin,
                    BinOp::SMax,
                    BinOp::UMin,
                    BinOp::UMax,
                    BinOp::MulHiS,
                    BinOp::MulHiU,
                ]);
                let a = self.value(ty);
                let c = self.value(ty);
                self.b.bin(op, a, c)
            }
            6 => {
                let op = self
                    .r
                    .pick(&[BinOp::UDiv, BinOp::URem, BinOp::SDiv, BinOp::SRem]);
                let a = self.value(ty);
                let d = self.value(ty);
                let d = if matches!(op, BinOp::SDiv | BinOp::SRem) {
                    let m = self.b.konst(ty, 0xff);
                    self.b.bin(BinOp::And, d, m)
                } else {
                    d
                };
                let one = self.b.konst(ty, 1);
                let d = self.b.bin(BinOp::Or, d, one);
                self.b.bin(op, a, d)
            }
            7 => {
                let op = self.r.pick(&[
                    UnOp::Neg,
                    UnOp::Not,
                    UnOp::Clz,
                    UnOp::Ctz,
                    UnOp::Popcount,
                    UnOp::Brev,
                    UnOp::Abs,
                ]);
                let a = self.value(ty);
                self.b.op(OpKind::Unary(op), vec![a], ty)
            }
            8 => {
                let c = self.value(Ty::I1);
                let a = self.value(ty);
                let d = self.value(ty);
                self.b.select(c, a, d)
            }
            9 => {
                let f = self.value(Ty::F32);
                let op = self.r.pick(&[CastOp::FToSI, CastOp::FToUI]);
                self.b.cast(op, f, ty)
            }
            10 => {
                let c = self.value(Ty::I1);
                let op = self.r.pick(&[CastOp::ZExt, CastOp::SExt]);
                self.b.cast(op, c, ty)
            }
            11 => self.load_any(ty),
            12 if ty == Ty::I32 => {
                let a = self.value(Ty::I64);
                self.b.cast(CastOp::Trunc, a, Ty::I32)
            }
            12 => {
                let a = self.value(Ty::I32);
                let op = self.r.pick(&[CastOp::ZExt, CastOp::SExt]);
                self.b.cast(op, a, Ty::I64)
            }
            13 if ty == Ty::I32 => {
                let a = self.value(Ty::I32);
                let op =
                    self.r
                        .pick(&[CastOp::SExt8, CastOp::SExt16, CastOp::ZExt8, CastOp::ZExt16]);
                self.b.cast(op, a, Ty::I32)
            }
            14 if ty == Ty::I32 => {
                // C's size_t index arithmetic, truncated (what narrowing rewrites).
                let a = self.value(Ty::I32);
                let w = self.b.cast(CastOp::ZExt, a, Ty::I64);
                let c = self.value(Ty::I64);
                let op = self
                    .r
                    .pick(&[BinOp::Add, BinOp::Mul, BinOp::Shl, BinOp::Xor]);
                let s = self.b.bin(op, w, c);
                self.b.cast(CastOp::Trunc, s, Ty::I32)
            }
            _ => {
                let a = self.value(ty);
                let k = self.r.pick(&[1u64, 2, 4, 8, 16, 3, 0]);
                let k = self.b.konst(ty, k);
                let op =
                    self.r
                        .pick(&[BinOp::Mul, BinOp::UDiv, BinOp::URem, BinOp::Add, BinOp::Sub]);
                let k = if matches!(op, BinOp::UDiv | BinOp::URem) {
                    let one = self.b.konst(ty, 1);
                    self.b.bin(BinOp::Or, k, one)
                } else {
                    k
                };
                self.b.bin(op, a, k)
            }
        }
    }

    fn expr_f32(&mut self) -> ValueId {
        match self.r.below(10) {
            0..=2 => {
                let op = self.r.pick(&[
                    BinOp::FAdd,
                    BinOp::FSub,
                    BinOp::FMul,
                    BinOp::FDiv,
                    BinOp::FMin,
                    BinOp::FMax,
                ]);
                let a = self.value(Ty::F32);
                let c = self.value(Ty::F32);
                self.b.bin(op, a, c)
            }
            3 => {
                let a = self.value(Ty::F32);
                let c = self.value(Ty::F32);
                let d = self.value(Ty::F32);
                self.b.op(OpKind::Fma, vec![a, c, d], Ty::F32)
            }
            4 => {
                let a = self.value(Ty::I32);
                let op = self.r.pick(&[CastOp::SIToF, CastOp::UIToF]);
                self.b.cast(op, a, Ty::F32)
            }
            5 => {
                let a = self.value(Ty::F32);
                let ops = [
                    OpKind::Unary(UnOp::FNeg),
                    OpKind::Unary(UnOp::FAbs),
                    OpKind::Math(MathOp::Sqrt),
                    OpKind::Math(MathOp::Rcp),
                    OpKind::Math(MathOp::Exp2),
                ];
                let op = ops[self.r.below(ops.len() as u64) as usize].clone();
                self.b.op(op, vec![a], Ty::F32)
            }
            6 => {
                let c = self.value(Ty::I1);
                let a = self.value(Ty::F32);
                let d = self.value(Ty::F32);
                self.b.select(c, a, d)
            }
            7 => self.load_any(Ty::F32),
            8 => {
                // Half precision, through conversions.
                let a = self.value(Ty::F32);
                let c = self.value(Ty::F32);
                let ha = self.b.cast(CastOp::FTrunc, a, Ty::F16);
                let hc = self.b.cast(CastOp::FTrunc, c, Ty::F16);
                let op = self
                    .r
                    .pick(&[BinOp::FAdd, BinOp::FMul, BinOp::FDiv, BinOp::FMin]);
                let h = self.b.bin(op, ha, hc);
                let h = if self.r.chance(30) {
                    self.b.op(OpKind::Fma, vec![h, ha, hc], Ty::F16)
                } else {
                    h
                };
                self.b.cast(CastOp::FExt, h, Ty::F32)
            }
            _ => {
                let a = self.value(Ty::F64);
                self.b.cast(CastOp::FTrunc, a, Ty::F32)
            }
        }
    }

    fn expr_f64(&mut self) -> ValueId {
        match self.r.below(3) {
            0 => {
                let a = self.value(Ty::F32);
                self.b.cast(CastOp::FExt, a, Ty::F64)
            }
            1 => {
                let op = self.r.pick(&[BinOp::FAdd, BinOp::FMul, BinOp::FDiv]);
                let a = self.value(Ty::F64);
                let c = self.value(Ty::F64);
                self.b.bin(op, a, c)
            }
            _ => self.load_wide(Ty::F64),
        }
    }

    /// A masked index `(v & (count-1)) * scale` as a 32-bit value.
    fn masked(&mut self, count: u32, scale: u32) -> ValueId {
        let v = self.value(Ty::I32);
        let m = self.b.i32(count as i32 - 1);
        let i = self.b.bin(BinOp::And, v, m);
        let s = self.b.i32(scale as i32);
        self.b.mul(i, s)
    }

    fn global_at(&mut self, base: ValueId, off32: ValueId) -> ValueId {
        let off = self.b.cast(CastOp::ZExt, off32, Ty::I64);
        self.b.ptradd(base, off)
    }

    /// A 32-bit-pointer offset the way C computes it: in 64 bits, truncated.
    fn narrow_offset(&mut self, off32: ValueId) -> ValueId {
        if self.r.chance(50) {
            return off32;
        }
        let w = self.b.cast(CastOp::ZExt, off32, Ty::I64);
        let z = self.b.i64(0);
        let s = self.b.add(w, z);
        self.b.cast(CastOp::Trunc, s, Ty::I32)
    }

    fn load_any(&mut self, ty: Ty) -> ValueId {
        let size = if ty == Ty::I64 { 8 } else { 4 };
        match self.r.below(6) {
            0 => {
                let off = self.masked(INPUT_WORDS * 4 / size, size);
                let p = self.global_at(self.inp, off);
                if ty == Ty::I32 && self.r.chance(40) {
                    let s = self.r.pick(&[1u8, 2]);
                    let off = self.b.i64(if s == 1 { 3 } else { 2 });
                    let p = self.b.ptradd(p, off);
                    return if self.r.chance(50) {
                        self.b.load_signed(s, p)
                    } else {
                        self.b.load(Ty::I32, s, p)
                    };
                }
                self.b.load(ty, size as u8, p)
            }
            1 => {
                let off = self.masked(SLICE / size, size);
                let p = self.global_at(self.out_slice, off);
                self.b.load(ty, size as u8, p)
            }
            2 if ty == Ty::I64 => self.load_wide(Ty::I64),
            2 => {
                let k = self.r.below(4) as i32 * 4;
                let k = self.b.i32(k);
                let p = self.b.ptradd(self.small, k);
                self.b.load(ty, 4, p)
            }
            3 if ty != Ty::I64 => {
                let off = self.masked(8, 4);
                let off = self.narrow_offset(off);
                let p = self.b.ptradd(self.array, off);
                self.b.load(ty, 4, p)
            }
            4 if ty != Ty::I64 => {
                let off = self.masked(16, 4);
                let p = self.b.ptradd(self.shared, off);
                self.b.load(ty, 4, p)
            }
            _ => self.konst(ty),
        }
    }

    fn load_wide(&mut self, ty: Ty) -> ValueId {
        self.b.load(ty, 8, self.wide)
    }

    fn store_out(&mut self, v: ValueId, fixed: Option<u64>) {
        let ty = self.b.ty(v);
        let (v, size) = match ty {
            Ty::I1 => (self.b.cast(CastOp::ZExt, v, Ty::I32), 4),
            Ty::I64 | Ty::F64 => (v, 8),
            _ => (v, 4),
        };
        let off = match fixed {
            Some(k) => self.b.i32((k as u32 & !(size - 1)) as i32),
            None => self.masked(SLICE / size, size),
        };
        let p = self.global_at(self.out_slice, off);
        self.b.store(size as u8, p, v);
    }

    fn statement(&mut self) {
        self.budget -= 1;
        let uniform = self.uniform;
        match self.r.below(if uniform { 18 } else { 17 }) {
            0..=3 => {
                let ty = self.r.pick(&TYS);
                self.expr(ty);
            }
            4 | 5 => {
                let ty = self.r.pick(&TYS);
                let v = self.value(ty);
                self.store_out(v, None);
            }
            6 => {
                // The promotable object: constant offsets, i32 or f32 per place.
                let k = self.r.below(4) as i32 * 4;
                let ty = if k == 12 { Ty::F32 } else { Ty::I32 };
                let v = self.value(ty);
                let kk = match self.inductions.last() {
                    // Indexed by a loop's induction variable: constant once unrolled.
                    Some(&i) if ty == Ty::I32 && self.r.chance(50) => {
                        let three = self.b.i32(3);
                        let j = self.b.bin(BinOp::And, i, three);
                        let four = self.b.i32(4);
                        self.b.mul(j, four)
                    }
                    _ => self.b.i32(k),
                };
                let p = self.b.ptradd(self.small, kk);
                self.b.store(4, p, v);
            }
            7 => {
                let off = self.masked(8, 4);
                let off = self.narrow_offset(off);
                let p = self.b.ptradd(self.array, off);
                let v = self.value(Ty::I32);
                if self.r.chance(30) {
                    let s = self.r.pick(&[1u8, 2]);
                    self.b.store(s, p, v);
                } else {
                    self.b.store(4, p, v);
                }
            }
            8 => {
                let v = self.value(Ty::I64);
                self.b.store(8, self.wide, v);
            }
            9 => {
                let off = self.masked(16, 4);
                let p = self.b.ptradd(self.shared, off);
                let v = self.value(Ty::I32);
                if self.r.chance(50) {
                    self.b.store(4, p, v);
                } else {
                    let op = self.r.pick(&[
                        AtomicOp::Add,
                        AtomicOp::Xor,
                        AtomicOp::UMax,
                        AtomicOp::SMin,
                        AtomicOp::Xchg,
                    ]);
                    let old = self.b.op(OpKind::Atomic(op), vec![p, v], Ty::I32);
                    self.define(old);
                }
            }
            10 | 11 if self.depth < 3 => self.if_statement(),
            12 | 13 if self.depth < 3 => self.loop_statement(),
            14 => {
                let off = self.masked(SLICE / 4, 4);
                let p = self.global_at(self.out_slice, off);
                let v = self.value(Ty::I32);
                let c = self.value(Ty::I32);
                let old = self
                    .b
                    .op(OpKind::Atomic(AtomicOp::CmpXchg), vec![p, c, v], Ty::I32);
                self.define(old);
            }
            15 => self.repeat(),
            16 => {
                let ty = self.r.pick(&TYS);
                let v = self.expr(ty);
                let _ = v;
                self.repeat();
            }
            17 => self.b.barrier(),
            _ => {
                let ty = self.r.pick(&TYS);
                self.expr(ty);
            }
        }
    }

    /// A copy of a visible value's defining operation (a pure one or a load), for CSE.
    fn repeat(&mut self) {
        let vals: Vec<ValueId> = self.scopes.iter().flatten().copied().collect();
        if vals.is_empty() {
            return;
        }
        let v = vals[self.r.below(vals.len() as u64) as usize];
        let Some(op) = self.b.f.def_op(v) else {
            return;
        };
        let o = self.b.f.op(op).clone();
        let copyable = matches!(
            o.kind,
            OpKind::Unary(_)
                | OpKind::Binary(_)
                | OpKind::Cmp(_)
                | OpKind::Select
                | OpKind::Cast(_)
                | OpKind::Fma
                | OpKind::Math(_)
                | OpKind::PtrAdd
                | OpKind::Load(_)
        );
        if copyable {
            let ty = self.b.ty(v);
            let c = self.b.op(o.kind, o.operands, ty);
            self.define(c);
        }
    }

    fn statements(&mut self, n: u32) {
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.statement();
        }
    }

    fn arm(&mut self, tys: &[Ty]) -> Vec<ValueId> {
        self.scopes.push(Vec::new());
        let n = self.r.below(4) as u32;
        self.statements(n);
        let vals = tys.iter().map(|&t| self.value(t)).collect();
        self.scopes.pop();
        vals
    }

    fn if_statement(&mut self) {
        let c = self.value(Ty::I1);
        let n = self.r.below(3) as usize;
        let tys: Vec<Ty> = (0..n).map(|_| self.r.pick(&TYS)).collect();
        self.depth += 1;
        let was_uniform = std::mem::replace(&mut self.uniform, false);
        let mut arms = Vec::new();
        for _ in 0..2 {
            let arm = self.b.f.new_region(&[]);
            self.b.open(arm);
            let vals = self.arm(&tys);
            self.b.op0(OpKind::Yield, vals);
            self.b.close();
            arms.push(arm);
        }
        self.uniform = was_uniform;
        self.depth -= 1;
        let r = self.b.cur();
        let op = self
            .b
            .f
            .push_op(r, OpKind::If, vec![c], &tys, arms, Span::DUMMY);
        for v in self.b.f.op(op).results.clone() {
            self.define(v);
        }
    }

    fn loop_statement(&mut self) {
        // Induction: start, step, bound and predicate chosen so the loop ends.
        let start = self.r.below(3) as i32;
        let shape = self.r.below(4);
        let trips = 1 + self.r.below(5) as i32;
        let nc = self.r.below(3) as usize;
        let mut carried_tys: Vec<Ty> = (0..nc).map(|_| self.r.pick(&TYS)).collect();
        let mut inits: Vec<ValueId> = carried_tys.iter().map(|&t| self.value(t)).collect();
        // Sometimes a `size_t` value that always fits in 32 bits (zero-extended, then
        // shifted, masked or divided), carried last.
        let narrow_slot = self.r.chance(30);
        if narrow_slot {
            let v = self.value(Ty::I32);
            let w = self.b.cast(CastOp::ZExt, v, Ty::I64);
            carried_tys.push(Ty::I64);
            inits.push(w);
        }
        let dynamic = self.r.chance(30);
        let bound = if dynamic {
            let v = self.value(Ty::I32);
            let m = self.b.i32(3);
            let v = self.b.bin(BinOp::And, v, m);
            let k = self.b.i32(start + 2);
            self.b.add(v, k)
        } else {
            self.b.i32(start + trips)
        };
        let s = self.b.i32(start);
        let mut all = vec![s];
        all.extend(&inits);
        let tys: Vec<Ty> = all.iter().map(|&v| self.b.ty(v)).collect();
        self.depth += 1;
        let was_uniform = self.uniform;
        self.uniform &= !dynamic;
        let body = self.b.f.new_region(&tys);
        let args = self.b.f.region(body).args.clone();
        self.b.open(body);
        self.scopes.push(args.clone());
        self.inductions.push(args[0]);
        let n = 1 + self.r.below(4) as u32;
        self.statements(n);
        self.inductions.pop();
        let mut next: Vec<ValueId> = carried_tys.iter().map(|&t| self.value(t)).collect();
        if narrow_slot {
            let a = *args.last().unwrap();
            let n = next.last_mut().unwrap();
            *n = match self.r.below(4) {
                0 => {
                    let k = self.b.i64(self.r.below(3) as i64);
                    self.b.bin(BinOp::LShr, a, k)
                }
                1 => {
                    let m = self.value(Ty::I64);
                    self.b.bin(BinOp::And, a, m)
                }
                2 => {
                    let k = self.b.i64(3);
                    self.b.bin(BinOp::UDiv, a, k)
                }
                _ => {
                    let c = self.value(Ty::I1);
                    let v = self.value(Ty::I32);
                    let w = self.b.cast(CastOp::ZExt, v, Ty::I64);
                    self.b.select(c, a, w)
                }
            };
        }
        let i = args[0];
        let (step, pred, uses_next) = match shape {
            0 => (1, CmpPred::Slt, true),
            1 if !dynamic => (1, CmpPred::Ne, true),
            2 => (1, CmpPred::Sle, false),
            _ => (2, CmpPred::Slt, true),
        };
        let st = self.b.i32(step);
        let i2 = self.b.add(i, st);
        let cont = if uses_next {
            self.b.cmp(pred, i2, bound)
        } else {
            // i <= bound - 2 (i the current value): the same trip count as i + 1 < bound.
            let two = self.b.i32(2);
            let lim = self.b.bin(BinOp::Sub, bound, two);
            self.b.cmp(pred, i, lim)
        };
        // Sometimes an early exit as a front end lowers `break`: a flag and-ed in. A loop
        // with a barrier must not exit early (the flag may differ between work-items).
        let cont = if !self.uniform && self.r.chance(25) {
            let flag = self.value(Ty::I1);
            if self.r.chance(50) {
                self.b.bin(BinOp::And, cont, flag)
            } else {
                let f = self.b.i1(false);
                self.b.select(flag, f, cont)
            }
        } else {
            cont
        };
        self.scopes.pop();
        let mut operands = vec![cont, i2];
        operands.extend(next);
        self.b.op0(OpKind::LoopEnd, operands);
        self.b.close();
        self.uniform = was_uniform;
        self.depth -= 1;
        let r = self.b.cur();
        let op = self
            .b
            .f
            .push_op(r, OpKind::Loop, all, &tys, vec![body], Span::DUMMY);
        for v in self.b.f.op(op).results.clone().into_iter().skip(1) {
            self.define(v);
        }
    }
}
