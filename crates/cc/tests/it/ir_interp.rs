//! The IR interpreter against results computed in Rust: loops, ifs, the three memory
//! spaces, barriers, atomics, work-item functions, argument passing and every error.

use crate::build::*;
use warpkit_cc::ir::interp::{run, Arg, InterpError, Launch};
use warpkit_cc::ir::{
    AtomicOp, BinOp, CastOp, CmpPred, ConstObject, MathOp, Module, OpKind, ParamKind, Ty, WorkItem,
};

fn launch(
    m: &Module,
    grid: [u32; 3],
    block: [u32; 3],
    args: Vec<Arg>,
) -> Result<Vec<Option<Vec<u8>>>, InterpError> {
    run(m, 0, &Launch::new(grid, block, args)).map(|o| o.buffers)
}

#[test]
fn vadd() {
    let mut b = B::new("vadd");
    let a = b.param("a", ParamKind::PtrConstant);
    let bb = b.param("b", ParamKind::PtrGlobal);
    let c = b.param("c", ParamKind::PtrGlobal);
    let n = b.param("n", ParamKind::I32);
    let i = b.gid();
    let inb = b.cmp(CmpPred::Slt, i, n);
    b.if_(
        inb,
        &[],
        |b| {
            let pa = b.index(a, i, 4);
            let pb = b.index(bb, i, 4);
            let x = b.load(Ty::F32, 4, pa);
            let y = b.load(Ty::F32, 4, pb);
            let s = b.bin(BinOp::FAdd, x, y);
            let pc = b.index(c, i, 4);
            b.store(4, pc, s);
            vec![]
        },
        |_| vec![],
    );
    let m = b.module();
    let n = 100;
    let xa: Vec<f32> = (0..n).map(|k| k as f32 * 0.5).collect();
    let xb: Vec<f32> = (0..n).map(|k| 1.0 / (k as f32 + 1.0)).collect();
    let out = launch(
        &m,
        [4, 1, 1],
        [32, 1, 1],
        vec![
            Arg::Buffer(f32_bytes(&xa)),
            Arg::Buffer(f32_bytes(&xb)),
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Scalar(n as u64),
        ],
    )
    .unwrap();
    let got = bytes_f32(out[2].as_ref().unwrap());
    for k in 0..n {
        assert_eq!(got[k].to_bits(), (xa[k] + xb[k]).to_bits());
    }
    assert_eq!(out[3], None);
}

/// Per work-item: sum of `i*i` for `i < gid`, through a guarded loop; then the parity
/// picks between two results with an if.
#[test]
fn loops_and_ifs() {
    let mut b = B::new("sums");
    let out = b.param("out", ParamKind::PtrGlobal);
    let g = b.gid();
    let zero = b.i32(0);
    let s = b.for_(0, g, 1, &[zero], |b, i, c| {
        let sq = b.mul(i, i);
        vec![b.add(c[0], sq)]
    })[0];
    let one = b.i32(1);
    let bit = b.bin(BinOp::And, g, one);
    let odd = b.cmp(CmpPred::Ne, bit, zero);
    let r = b.if_(
        odd,
        &[Ty::I32],
        |b| vec![b.op(OpKind::Unary(warpkit_cc::ir::UnOp::Neg), vec![s], Ty::I32)],
        |_| vec![s],
    )[0];
    let p = b.index(out, g, 4);
    b.store(4, p, r);
    let m = b.module();
    let out = launch(
        &m,
        [2, 1, 1],
        [24, 1, 1],
        vec![Arg::Buffer(vec![0; 4 * 48])],
    )
    .unwrap();
    let got = bytes_u32(out[0].as_ref().unwrap());
    for g in 0..48u32 {
        let s: u32 = (0..g).map(|i| i * i).sum();
        let want = if g % 2 == 1 { s.wrapping_neg() } else { s };
        assert_eq!(got[g as usize], want, "gid {g}");
    }
}

/// Loop-carried values are exchanged simultaneously (`(a, b) = (b, a + b)`).
#[test]
fn carried_values_swap() {
    let mut b = B::new("fib");
    let out = b.param("out", ParamKind::PtrGlobal);
    let z = b.i32(0);
    let one = b.i32(1);
    let n = b.i32(10);
    let r = b.loop_(&[z, one, z], |b, a| {
        let s = b.add(a[0], a[1]);
        let one = b.i32(1);
        let k = b.add(a[2], one);
        let c = b.cmp(CmpPred::Slt, k, n);
        (c, vec![a[1], s, k])
    });
    let p = b.index(out, z, 4);
    b.store(4, p, r[0]);
    let m = b.module();
    let out = launch(&m, [1; 3], [1; 3], vec![Arg::Buffer(vec![0; 4])]).unwrap();
    assert_eq!(bytes_u32(out[0].as_ref().unwrap()), vec![55]);
}

/// The classic shared-memory tree reduction: load to `__local`, halve with barriers in a
/// loop, work-item 0 writes the group's sum.
fn reduce_kernel(local_param: bool) -> Module {
    let mut b = B::new("reduce");
    let input = b.param("in", ParamKind::PtrGlobal);
    let out = b.param("out", ParamKind::PtrGlobal);
    let tile = if local_param {
        b.param("tile", ParamKind::PtrLocal)
    } else {
        let t = b.local_object("tile", 4 * 64, 4);
        b.op(OpKind::LocalAddr(t), vec![], LOCAL)
    };
    let lid = b.wi(WorkItem::LocalId(0));
    let g = b.gid();
    let pin = b.index(input, g, 4);
    let x = b.load(Ty::I32, 4, pin);
    let pl = b.index(tile, lid, 4);
    b.store(4, pl, x);
    b.barrier();
    let size = b.wi(WorkItem::LocalSize(0));
    let one = b.i32(1);
    let half = b.bin(BinOp::LShr, size, one);
    b.loop_(&[half], |b, a| {
        let s = a[0];
        let active = b.cmp(CmpPred::Ult, lid, s);
        b.if_(
            active,
            &[],
            |b| {
                let other = b.add(lid, s);
                let po = b.index(tile, other, 4);
                let y = b.load(Ty::I32, 4, po);
                let mine = b.load(Ty::I32, 4, pl);
                let sum = b.add(mine, y);
                b.store(4, pl, sum);
                vec![]
            },
            |_| vec![],
        );
        b.barrier();
        let one = b.i32(1);
        let next = b.bin(BinOp::LShr, s, one);
        let zero = b.i32(0);
        let c = b.cmp(CmpPred::Ne, next, zero);
        (c, vec![next])
    });
    let zero = b.i32(0);
    let first = b.cmp(CmpPred::Eq, lid, zero);
    b.if_(
        first,
        &[],
        |b| {
            let grp = b.wi(WorkItem::GroupId(0));
            let po = b.index(out, grp, 4);
            let t0 = b.load(Ty::I32, 4, tile);
            b.store(4, po, t0);
            vec![]
        },
        |_| vec![],
    );
    b.module()
}

#[test]
fn reduction_with_barriers() {
    let data: Vec<u32> = (0..256u32)
        .map(|k| k.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    for local_param in [false, true] {
        let m = reduce_kernel(local_param);
        let mut args = vec![Arg::Buffer(u32_bytes(&data)), Arg::Buffer(vec![0; 16])];
        if local_param {
            args.push(Arg::Local(256));
        }
        let out = launch(&m, [4, 1, 1], [64, 1, 1], args).unwrap();
        let got = bytes_u32(out[1].as_ref().unwrap());
        for g in 0..4 {
            let want = data[g * 64..(g + 1) * 64]
                .iter()
                .fold(0u32, |a, &x| a.wrapping_add(x));
            assert_eq!(got[g], want, "group {g}");
        }
    }
}

#[test]
fn atomics() {
    let mut b = B::new("atomics");
    let out = b.param("out", ParamKind::PtrGlobal);
    let l = b.local_object("counter", 4, 4);
    let lp = b.op(OpKind::LocalAddr(l), vec![], LOCAL);
    let g = b.gid();
    let one = b.i32(1);
    // Every work-item: out[0] += gid, out[1] = max(out[1], gid ^ 5), local counter += 1;
    // the old value of the local counter is the work-item's arrival order.
    b.op(OpKind::Atomic(AtomicOp::Add), vec![out, g], Ty::I32);
    let four = b.i64(4);
    let p1 = b.ptradd(out, four);
    let five = b.i32(5);
    let x = b.bin(BinOp::Xor, g, five);
    b.op(OpKind::Atomic(AtomicOp::UMax), vec![p1, x], Ty::I32);
    let order = b.op(OpKind::Atomic(AtomicOp::Add), vec![lp, one], Ty::I32);
    // out[2 + gid] = order; cmpxchg on out[1] of a wrong expectation changes nothing.
    let two = b.i32(2);
    let slot = b.add(g, two);
    let ps = b.index(out, slot, 4);
    b.store(4, ps, order);
    let bogus = b.i32(-1);
    b.op(
        OpKind::Atomic(AtomicOp::CmpXchg),
        vec![p1, bogus, bogus],
        Ty::I32,
    );
    let m = b.module();
    let out = launch(&m, [2, 1, 1], [8, 1, 1], vec![Arg::Buffer(vec![0; 4 * 18])]).unwrap();
    let got = bytes_u32(out[0].as_ref().unwrap());
    assert_eq!(got[0], (0..16).sum::<u32>());
    assert_eq!(got[1], (0..16u32).map(|g| g ^ 5).max().unwrap());
    // Work-items run in flat order without a barrier: the order is the local id.
    for g in 0..16 {
        assert_eq!(got[2 + g], g as u32 % 8);
    }
}

#[test]
fn private_arrays() {
    // int a[8]; for i: a[i] = i*3; out[gid] = a[gid & 7] + a[(gid + 1) & 7]
    let mut b = B::new("priv");
    let out = b.param("out", ParamKind::PtrGlobal);
    let arr = b.private_object("a", 32, 4);
    let pa = b.op(OpKind::PrivateAddr(arr), vec![], PRIVATE);
    let eight = b.i32(8);
    b.for_(0, eight, 1, &[], |b, i, _| {
        let three = b.i32(3);
        let v = b.mul(i, three);
        let p = b.index(pa, i, 4);
        b.store(4, p, v);
        vec![]
    });
    let g = b.gid();
    let seven = b.i32(7);
    let i0 = b.bin(BinOp::And, g, seven);
    let one = b.i32(1);
    let g1 = b.add(g, one);
    let i1 = b.bin(BinOp::And, g1, seven);
    let p0 = b.index(pa, i0, 4);
    let p1 = b.index(pa, i1, 4);
    let x = b.load(Ty::I32, 4, p0);
    let y = b.load(Ty::I32, 4, p1);
    let s = b.add(x, y);
    let po = b.index(out, g, 4);
    b.store(4, po, s);
    let m = b.module();
    let out = launch(&m, [1; 3], [16, 1, 1], vec![Arg::Buffer(vec![0; 64])]).unwrap();
    let got = bytes_u32(out[0].as_ref().unwrap());
    for g in 0..16u32 {
        assert_eq!(got[g as usize], (g & 7) * 3 + ((g + 1) & 7) * 3);
    }
}

#[test]
fn work_item_functions_in_three_dimensions() {
    let mut b = B::new("ids");
    let out = b.param("out", ParamKind::PtrGlobal);
    let mut ids = Vec::new();
    for d in 0..3 {
        ids.push(b.wi(WorkItem::LocalId(d)));
        ids.push(b.wi(WorkItem::GroupId(d)));
        ids.push(b.wi(WorkItem::LocalSize(d)));
        ids.push(b.wi(WorkItem::NumGroups(d)));
    }
    ids.push(b.wi(WorkItem::WorkDim));
    // flat global index = ((gz*ny + gy)*nx + gx) * items + (lz*by + ly)*bx + lx
    let [lx, gx, bx, nx, ly, gy, by, ny, lz, gz, _bz, _nz, _] = ids[..] else {
        unreachable!()
    };
    let t = b.mul(gz, ny);
    let t = b.add(t, gy);
    let t = b.mul(t, nx);
    let wg = b.add(t, gx);
    let items = b.i32(2 * 3 * 2);
    let base = b.mul(wg, items);
    let t = b.mul(lz, by);
    let t = b.add(t, ly);
    let t = b.mul(t, bx);
    let flat = b.add(t, lx);
    let idx = b.add(base, flat);
    let thirteen = b.i32(13);
    let row = b.mul(idx, thirteen);
    for (k, &v) in ids.iter().enumerate() {
        let kk = b.i32(k as i32);
        let at = b.add(row, kk);
        let p = b.index(out, at, 4);
        b.store(4, p, v);
    }
    let m = b.module();
    let (grid, block) = ([3u32, 2, 2], [2u32, 3, 2]);
    let n = 12 * 12;
    let out = launch(&m, grid, block, vec![Arg::Buffer(vec![0; 4 * 13 * n])]).unwrap();
    let got = bytes_u32(out[0].as_ref().unwrap());
    let mut seen = 0;
    for gz in 0..2 {
        for gy in 0..2 {
            for gx in 0..3 {
                for lz in 0..2 {
                    for ly in 0..3 {
                        for lx in 0..2 {
                            let wg = (gz * 2 + gy) * 3 + gx;
                            let idx = wg * 12 + (lz * 3 + ly) * 2 + lx;
                            let row = &got[idx as usize * 13..][..13];
                            let want = [lx, gx, 2, 3, ly, gy, 3, 2, lz, gz, 2, 2, 3];
                            assert_eq!(row, want);
                            seen += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(seen, n);

    // work_dim follows the highest dimension used.
    let mut b = B::new("dim");
    let out = b.param("out", ParamKind::PtrGlobal);
    let d = b.wi(WorkItem::WorkDim);
    b.store(4, out, d);
    let m = b.module();
    for (grid, block, want) in [
        ([1, 1, 1], [1, 1, 1], 1),
        ([5, 1, 1], [1, 1, 1], 1),
        ([1, 1, 1], [1, 4, 1], 2),
        ([1, 1, 2], [1, 1, 1], 3),
    ] {
        let o = launch(&m, grid, block, vec![Arg::Buffer(vec![0; 4])]).unwrap();
        assert_eq!(bytes_u32(o[0].as_ref().unwrap()), vec![want]);
    }
}

#[test]
fn scalar_arguments() {
    let mut b = B::new("scalars");
    let out = b.param("out", ParamKind::PtrGlobal);
    let c = b.param("c", ParamKind::I8);
    let h = b.param("h", ParamKind::F16);
    let f = b.param("f", ParamKind::F32);
    let d = b.param("d", ParamKind::F64);
    let l = b.param("l", ParamKind::U64);
    b.store(4, out, c);
    let hf = b.cast(CastOp::FExt, h, Ty::F32);
    let ff = b.bin(BinOp::FMul, hf, f);
    let eight = b.i64(8);
    let p = b.ptradd(out, eight);
    b.store(4, p, ff);
    let sixteen = b.i64(16);
    let p = b.ptradd(out, sixteen);
    let dd = b.bin(BinOp::FAdd, d, d);
    b.store(8, p, dd);
    let p = b.ptradd(out, eight);
    let p = b.ptradd(p, sixteen);
    b.store(8, p, l);
    let m = b.module();
    let o = launch(
        &m,
        [1; 3],
        [1; 3],
        vec![
            Arg::Buffer(vec![0; 32]),
            Arg::Scalar(-3i64 as u64),
            Arg::Scalar(0x3e00), // 1.5 in binary16
            Arg::Scalar(2.5f32.to_bits() as u64 | 0xdead_0000_0000_0000),
            Arg::Scalar(0.125f64.to_bits()),
            Arg::Scalar(u64::MAX - 1),
        ],
    )
    .unwrap();
    let b = o[0].as_ref().unwrap();
    assert_eq!(i32::from_le_bytes(b[0..4].try_into().unwrap()), -3);
    assert_eq!(f32::from_le_bytes(b[8..12].try_into().unwrap()), 3.75);
    assert_eq!(f64::from_le_bytes(b[16..24].try_into().unwrap()), 0.25);
    assert_eq!(
        u64::from_le_bytes(b[24..32].try_into().unwrap()),
        u64::MAX - 1
    );
}

#[test]
fn narrow_loads_and_stores() {
    let mut b = B::new("bytes");
    let inp = b.param("in", ParamKind::PtrGlobal);
    let out = b.param("out", ParamKind::PtrGlobal);
    let s8 = b.load_signed(1, inp);
    let u8v = b.load(Ty::I32, 1, inp);
    let two = b.i64(2);
    let p2 = b.ptradd(inp, two);
    let s16 = b.load_signed(2, p2);
    let u16v = b.load(Ty::I32, 2, p2);
    for (k, v) in [s8, u8v, s16, u16v].into_iter().enumerate() {
        let off = b.i64(4 * k as i64);
        let p = b.ptradd(out, off);
        b.store(4, p, v);
    }
    // A 1-byte store of an i32 keeps the other bytes.
    let off = b.i64(17);
    let p = b.ptradd(out, off);
    let v = b.i32(0x1234_56ab);
    b.store(1, p, v);
    let m = b.module();
    let o = launch(
        &m,
        [1; 3],
        [1; 3],
        vec![
            Arg::Buffer(vec![0xf0, 0, 0x34, 0x92]),
            Arg::Buffer(vec![0x11; 20]),
        ],
    )
    .unwrap();
    let got = o[1].as_ref().unwrap();
    assert_eq!(
        bytes_u32(&got[..16]),
        vec![0xffff_fff0, 0xf0, 0xffff_9234, 0x9234]
    );
    assert_eq!(&got[16..20], &[0x11, 0xab, 0x11, 0x11]);
}

#[test]
fn module_constants_are_readable() {
    let mut b = B::new("consts");
    let out = b.param("out", ParamKind::PtrGlobal);
    let c = b.op(OpKind::ConstantAddr(1), vec![], CONSTANT);
    let g = b.gid();
    let pc = b.index(c, g, 4);
    let x = b.load(Ty::I32, 4, pc);
    let po = b.index(out, g, 4);
    b.store(4, po, x);
    let mut m = b.module();
    m.constants = vec![
        ConstObject {
            name: "unused".into(),
            bytes: vec![9; 4],
            align: 4,
        },
        ConstObject {
            name: "table".into(),
            bytes: u32_bytes(&[10, 20, 30, 40]),
            align: 4,
        },
    ];
    let o = launch(&m, [1; 3], [4, 1, 1], vec![Arg::Buffer(vec![0; 16])]).unwrap();
    assert_eq!(bytes_u32(o[0].as_ref().unwrap()), vec![10, 20, 30, 40]);
    // One work-item too many reads past the table.
    let e = launch(&m, [1; 3], [5, 1, 1], vec![Arg::Buffer(vec![0; 20])]).unwrap_err();
    assert!(e.to_string().contains("outside every buffer"), "{e}");
}

/// The value one kernel computes, stored and read back.
fn one_value(ty: Ty, build: impl FnOnce(&mut B) -> warpkit_cc::ir::ValueId) -> u64 {
    let mut b = B::new("v");
    let out = b.param("out", ParamKind::PtrGlobal);
    let mut v = build(&mut b);
    if ty == Ty::I1 {
        v = b.cast(CastOp::ZExt, v, Ty::I32);
    }
    let size = (b.ty(v).bits() / 8) as u8;
    b.store(size, out, v);
    let m = b.module();
    let o = launch(&m, [1; 3], [1; 3], vec![Arg::Buffer(vec![0; 8])]).unwrap();
    let bytes = o[0].as_ref().unwrap();
    u64::from_le_bytes(bytes[..8].try_into().unwrap())
}

#[test]
fn float_semantics() {
    // fmin/fmax: minimumNumber with -0 < +0, NaN ignored.
    let r = one_value(Ty::F32, |b| {
        let z = b.f32(0.0);
        let nz = b.f32(-0.0);
        b.bin(BinOp::FMin, z, nz)
    });
    assert_eq!(r as u32, 0x8000_0000);
    let r = one_value(Ty::F32, |b| {
        let n = b.konst(Ty::F32, 0x7fc0_0001);
        let x = b.f32(3.0);
        b.bin(BinOp::FMax, n, x)
    });
    assert_eq!(f32::from_bits(r as u32), 3.0);
    // NaN results are canonical.
    let r = one_value(Ty::F32, |b| {
        let n = b.konst(Ty::F32, 0xffc0_1234);
        let x = b.f32(1.0);
        b.bin(BinOp::FAdd, n, x)
    });
    assert_eq!(r as u32, 0x7fc0_0000);
    let r = one_value(Ty::F64, |b| {
        let z = b.f64(0.0);
        b.bin(BinOp::FDiv, z, z)
    });
    assert_eq!(r, 0x7ff8_0000_0000_0000);
    // fneg keeps the payload.
    let r = one_value(Ty::F32, |b| {
        let n = b.konst(Ty::F32, 0x7fc0_1234);
        b.op(OpKind::Unary(warpkit_cc::ir::UnOp::FNeg), vec![n], Ty::F32)
    });
    assert_eq!(r as u32, 0xffc0_1234);
    // fma rounds once.
    let (x, y, z) = (1.0f32 + f32::EPSILON, 1.0f32 - f32::EPSILON, -1.0f32);
    let r = one_value(Ty::F32, |b| {
        let (a, bb, c) = (b.f32(x), b.f32(y), b.f32(z));
        b.op(OpKind::Fma, vec![a, bb, c], Ty::F32)
    });
    assert_eq!(f32::from_bits(r as u32), x.mul_add(y, z));
    assert_ne!(x.mul_add(y, z), x * y + z);
    // Float → int saturates as the machine: NaN → max, too large → max, too small → min.
    for (v, signed, want) in [
        (f32::NAN, true, i32::MAX as u32 as u64),
        (3e9, true, i32::MAX as u32 as u64),
        (-3e9, true, i32::MIN as u32 as u64),
        (-7.9, true, -7i32 as u32 as u64),
        (f32::NAN, false, u32::MAX as u64),
        (-1.5, false, 0),
        (5e9, false, u32::MAX as u64),
        (4e9, false, 4_000_000_000),
    ] {
        let r = one_value(Ty::I32, |b| {
            let x = b.f32(v);
            let op = if signed { CastOp::FToSI } else { CastOp::FToUI };
            b.cast(op, x, Ty::I32)
        });
        assert_eq!(r, want, "{v} signed {signed}");
    }
    let r = one_value(Ty::I64, |b| {
        let x = b.f64(-1e300);
        b.cast(CastOp::FToSI, x, Ty::I64)
    });
    assert_eq!(r, i64::MIN as u64);
    // Integer → float rounds to nearest even, once.
    let r = one_value(Ty::F32, |b| {
        let x = b.i64((1 << 24) + 3);
        b.cast(CastOp::SIToF, x, Ty::F32)
    });
    assert_eq!(f32::from_bits(r as u32), ((1 << 24) + 4) as f32);
    let r = one_value(Ty::F16, |b| {
        let x = b.f32(1.0 + 1.0 / 2048.0 + 1.0 / 65536.0);
        b.cast(CastOp::FTrunc, x, Ty::F16)
    });
    assert_eq!(r, 0x3c01); // just above the tie: rounds up
    let r = one_value(Ty::F32, |b| {
        let x = b.f32(2.0);
        b.op(OpKind::Math(MathOp::Sqrt), vec![x], Ty::F32)
    });
    assert_eq!(f32::from_bits(r as u32), 2f32.sqrt());
    // Approximate math: within 1 ulp, special cases exact.
    let r = one_value(Ty::F32, |b| {
        let x = b.f32(0.25);
        b.op(OpKind::Math(MathOp::SinPi), vec![x], Ty::F32)
    });
    let want = std::f32::consts::FRAC_1_SQRT_2;
    assert!((r as i64 - want.to_bits() as i64).abs() <= 1);
    let r = one_value(Ty::F32, |b| {
        let x = b.f32(-0.0);
        b.op(OpKind::Math(MathOp::Rsqrt), vec![x], Ty::F32)
    });
    assert_eq!(f32::from_bits(r as u32), f32::NEG_INFINITY);
    let r = one_value(Ty::F32, |b| {
        let x = b.f32(10.0);
        b.op(OpKind::Math(MathOp::Exp2), vec![x], Ty::F32)
    });
    assert_eq!(f32::from_bits(r as u32), 1024.0);
}

#[test]
fn integer_semantics() {
    let cases: Vec<(BinOp, Ty, u64, u64, u64)> = vec![
        (BinOp::Shl, Ty::I32, 1, 33, 2),
        (BinOp::LShr, Ty::I64, 1 << 63, 65, 1 << 62),
        (BinOp::AShr, Ty::I32, 0x8000_0000, 31, 0xffff_ffff),
        (BinOp::Rotl, Ty::I32, 0x8000_0001, 1, 3),
        (
            BinOp::SDiv,
            Ty::I32,
            -7i32 as u32 as u64,
            2,
            -3i32 as u32 as u64,
        ),
        (
            BinOp::SRem,
            Ty::I32,
            -7i32 as u32 as u64,
            2,
            -1i32 as u32 as u64,
        ),
        (BinOp::MulHiS, Ty::I32, -2i32 as u32 as u64, 3, 0xffff_ffff),
        (BinOp::MulHiU, Ty::I64, u64::MAX, 2, 1),
        (BinOp::Add, Ty::I32, 0xffff_ffff, 1, 0),
        (BinOp::SMin, Ty::I32, 0xffff_ffff, 1, 0xffff_ffff),
        (BinOp::UMin, Ty::I32, 0xffff_ffff, 1, 1),
    ];
    for (op, ty, a, bv, want) in cases {
        let r = one_value(ty, |b| {
            let x = b.konst(ty, a);
            let y = b.konst(ty, bv);
            b.bin(op, x, y)
        });
        assert_eq!(r, want, "{op:?} {ty} {a:#x} {bv:#x}");
    }
    let r = one_value(Ty::I32, |b| {
        let x = b.i32(0);
        b.op(OpKind::Unary(warpkit_cc::ir::UnOp::Clz), vec![x], Ty::I32)
    });
    assert_eq!(r, 32);
    let r = one_value(Ty::I32, |b| {
        let x = b.i32(i32::MIN);
        b.op(OpKind::Unary(warpkit_cc::ir::UnOp::Abs), vec![x], Ty::I32)
    });
    assert_eq!(r, 0x8000_0000);
    let r = one_value(Ty::I1, |b| {
        let x = b.f32(f32::NAN);
        b.cmp(CmpPred::FUne, x, x)
    });
    assert_eq!(r, 1);
    let r = one_value(Ty::I32, |b| {
        let x = b.i32(0x1ff);
        b.cast(CastOp::SExt8, x, Ty::I32)
    });
    assert_eq!(r, 0xffff_ffff);
    let r = one_value(Ty::I64, |b| {
        let t = b.i1(true);
        b.cast(CastOp::SExt, t, Ty::I64)
    });
    assert_eq!(r, u64::MAX);
    // Undef reads as 0.
    let r = one_value(Ty::I32, |b| b.op(OpKind::Undef, vec![], Ty::I32));
    assert_eq!(r, 0);
}

fn fault_of(m: &Module, block: u32, args: Vec<Arg>) -> String {
    launch(m, [1; 3], [block, 1, 1], args)
        .unwrap_err()
        .to_string()
}

#[test]
fn memory_errors() {
    // Out of bounds on a global buffer.
    let mut b = B::new("oob");
    let out = b.param("out", ParamKind::PtrGlobal);
    let g = b.gid();
    let p = b.index(out, g, 4);
    b.store(4, p, g);
    let m = b.module();
    let e = fault_of(&m, 5, vec![Arg::Buffer(vec![0; 16])]);
    assert!(
        e.starts_with("work-item [4, 0, 0] of workgroup [0, 0, 0]: op"),
        "{e}"
    );
    assert!(e.contains("store.4"), "{e}");
    assert!(
        e.contains("4-byte global access at 0x100000010 is outside every buffer"),
        "{e}"
    );

    // Misaligned.
    let mut b = B::new("mis");
    let out = b.param("out", ParamKind::PtrGlobal);
    let two = b.i64(2);
    let p = b.ptradd(out, two);
    b.load(Ty::I32, 4, p);
    let m = b.module();
    let e = fault_of(&m, 1, vec![Arg::Buffer(vec![0; 16])]);
    assert!(
        e.contains("misaligned 4-byte global access at 0x100000002"),
        "{e}"
    );
    // 8-byte accesses need only 4-byte alignment (as on the machine).
    let mut b = B::new("al8");
    let out = b.param("out", ParamKind::PtrGlobal);
    let four = b.i64(4);
    let p = b.ptradd(out, four);
    let x = b.load(Ty::I64, 8, p);
    b.store(8, out, x);
    let m = b.module();
    launch(&m, [1; 3], [1; 3], vec![Arg::Buffer(vec![0; 16])]).unwrap();

    // Local memory beyond its size; private likewise.
    let mut b = B::new("local");
    let l = b.local_object("t", 8, 4);
    let lp = b.op(OpKind::LocalAddr(l), vec![], LOCAL);
    let eight = b.i32(8);
    let p = b.ptradd(lp, eight);
    b.load(Ty::I32, 4, p);
    let m = b.module();
    let e = fault_of(&m, 1, vec![]);
    assert!(e.contains("beyond the 8 bytes of local memory"), "{e}");

    let mut b = B::new("null");
    let z = b.i64(0);
    let p = b.cast(CastOp::Bitcast, z, GLOBAL);
    b.load(Ty::I32, 4, p);
    let m = b.module();
    let e = fault_of(&m, 1, vec![]);
    assert!(e.contains("outside every buffer"), "{e}");
}

#[test]
fn undefined_division_is_an_error() {
    for (op, a, d, msg) in [
        (BinOp::UDiv, 1, 0, "integer division by zero"),
        (BinOp::SRem, 1, 0, "integer division by zero"),
        (BinOp::SDiv, i32::MIN, -1, "signed division overflow"),
    ] {
        let mut b = B::new("div");
        let out = b.param("out", ParamKind::PtrGlobal);
        let x = b.i32(a);
        let y = b.i32(d);
        let q = b.bin(op, x, y);
        b.store(4, out, q);
        let m = b.module();
        let e = fault_of(&m, 1, vec![Arg::Buffer(vec![0; 4])]);
        assert!(e.contains(msg), "{e}");
    }
}

#[test]
fn divergent_barriers_are_errors() {
    // Only even work-items reach the barrier.
    let mut b = B::new("div");
    let l = b.wi(WorkItem::LocalId(0));
    let one = b.i32(1);
    let bit = b.bin(BinOp::And, l, one);
    let zero = b.i32(0);
    let even = b.cmp(CmpPred::Eq, bit, zero);
    b.if_(
        even,
        &[],
        |b| {
            b.barrier();
            vec![]
        },
        |_| vec![],
    );
    let m = b.module();
    let e = fault_of(&m, 4, vec![]);
    assert!(
        e.contains("divergent barrier: work-item [0, 0, 0] waits at op")
            && e.contains("but work-item [1, 0, 0] finished"),
        "{e}"
    );
    // With one work-item (or all even) it is fine.
    launch(&m, [1; 3], [1, 1, 1], vec![]).unwrap();

    // Different barriers in the two arms.
    let mut b = B::new("div2");
    let l = b.wi(WorkItem::LocalId(0));
    let zero = b.i32(0);
    let first = b.cmp(CmpPred::Eq, l, zero);
    b.if_(
        first,
        &[],
        |b| {
            b.barrier();
            vec![]
        },
        |b| {
            b.barrier();
            vec![]
        },
    );
    let m = b.module();
    let e = fault_of(&m, 2, vec![]);
    assert!(e.contains("but work-item [1, 0, 0] at op"), "{e}");
}

#[test]
fn step_limit_stops_endless_loops() {
    let mut b = B::new("spin");
    let z = b.i32(0);
    b.loop_(&[z], |b, a| {
        let t = b.i1(true);
        (t, vec![a[0]])
    });
    let m = b.module();
    let mut l = Launch::new([1; 3], [1; 3], vec![]);
    l.step_limit = 10_000;
    let e = run(&m, 0, &l).unwrap_err();
    assert_eq!(e, InterpError::StepLimit(10_000));
}

#[test]
fn bad_launches_are_errors() {
    let mut b = B::new("k");
    b.param("out", ParamKind::PtrGlobal);
    b.param("n", ParamKind::I32);
    let m = b.module();
    let e = launch(&m, [1; 3], [1; 3], vec![Arg::Buffer(vec![])]).unwrap_err();
    assert!(
        e.to_string().contains("has 2 parameters but 1 arguments"),
        "{e}"
    );
    let e = launch(&m, [1; 3], [1; 3], vec![Arg::Scalar(0), Arg::Scalar(0)]).unwrap_err();
    assert!(
        e.to_string()
            .contains("argument 0 (out, ptr.global) cannot be passed"),
        "{e}"
    );
    let e = launch(
        &m,
        [1; 3],
        [2048, 1, 1],
        vec![Arg::Buffer(vec![]), Arg::Scalar(0)],
    )
    .unwrap_err();
    assert!(e.to_string().contains("exceeds 1024"), "{e}");
    let e = launch(
        &m,
        [0, 1, 1],
        [1; 3],
        vec![Arg::Buffer(vec![]), Arg::Scalar(0)],
    )
    .unwrap_err();
    assert!(e.to_string().contains("no zero dimension"), "{e}");
    let mut r = m.clone();
    r.kernels[0].reqd_block = Some([8, 1, 1]);
    let e = launch(
        &r,
        [1; 3],
        [4, 1, 1],
        vec![Arg::Buffer(vec![]), Arg::Scalar(0)],
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("requires a block of [8, 1, 1], not [4, 1, 1]"),
        "{e}"
    );
    let mut b = B::new("big");
    b.param("tile", ParamKind::PtrLocal);
    let big = b.module();
    let e = launch(&big, [1; 3], [1; 3], vec![Arg::Local(32 << 20)]).unwrap_err();
    assert!(
        e.to_string()
            .contains("bytes of shared memory exceed the machine's 16777216"),
        "{e}"
    );
    assert_eq!(
        run(&m, 3, &Launch::new([1; 3], [1; 3], vec![])).unwrap_err(),
        InterpError::NoKernel(3)
    );
    // Invalid IR is reported, not executed.
    let mut m = m;
    m.kernels[0].params[1].ty = Ty::I64;
    let e = launch(
        &m,
        [1; 3],
        [1; 3],
        vec![Arg::Buffer(vec![]), Arg::Scalar(0)],
    )
    .unwrap_err();
    assert!(matches!(e, InterpError::Invalid(_)), "{e}");
}
