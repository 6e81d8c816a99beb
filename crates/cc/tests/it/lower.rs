//! Lowering of OpenCL C to IR: printed IR of small kernels, and kernels run on the IR
//! interpreter against values computed here.

use warpkit_cc::diag::Diagnostics;
use warpkit_cc::ir::interp::{run, Arg, Launch, LaunchOutput};
use warpkit_cc::ir::{self, Module};
use warpkit_cc::lower::{self, Options};
use warpkit_cc::source::SourceMap;
use warpkit_cc::{parse, pp};

/// Preprocess, parse and lower `src`: the module and the rendered diagnostics.
fn compile_with(src: &str, opts: &Options) -> (Module, String, bool) {
    let mut sources = SourceMap::new();
    let main = sources.add_file("k.cl", src, false);
    let mut diags = Diagnostics::new();
    let tokens = pp::preprocess(&mut sources, main, &pp::Options::default(), &mut diags);
    let tu = parse::parse(&tokens, &mut diags);
    let module = lower::lower(&tu, &sources, opts, &mut diags);
    (module, diags.render(&sources), diags.has_errors())
}

/// A module that must compile without errors and verify.
fn compile(src: &str) -> Module {
    compile_opts(src, &Options::default())
}

fn compile_opts(src: &str, opts: &Options) -> Module {
    let (m, text, errors) = compile_with(src, opts);
    assert!(!errors, "unexpected errors:\n{text}");
    if let Err(e) = ir::verify::verify_module(&m) {
        panic!(
            "IR does not verify: {e}\n{}",
            m.kernels.iter().map(|k| k.to_string()).collect::<String>()
        );
    }
    m
}

/// The rendered diagnostics of a program that must fail.
fn errors(src: &str) -> String {
    let (_, text, errors) = compile_with(src, &Options::default());
    assert!(errors, "expected errors, got:\n{text}");
    text
}

fn ir_text(src: &str) -> String {
    compile(src).kernels.iter().map(|k| k.to_string()).collect()
}

/// Run kernel `name` as lowered, and again after the optimizer: both must agree.
fn launch(m: &Module, name: &str, grid: [u32; 3], block: [u32; 3], args: Vec<Arg>) -> LaunchOutput {
    let k = m
        .kernels
        .iter()
        .position(|k| k.name == name)
        .expect("kernel");
    let launch = Launch::new(grid, block, args);
    let out = run(m, k, &launch).unwrap_or_else(|e| panic!("{e}\n{}", m.kernels[k]));
    let mut optimized = m.clone();
    warpkit_cc::opt::optimize(&mut optimized, warpkit_cc::opt::OptLevel::O2);
    let opt_out = run(&optimized, k, &launch)
        .unwrap_or_else(|e| panic!("optimized: {e}\n{}", optimized.kernels[k]));
    assert_eq!(
        out.buffers, opt_out.buffers,
        "the optimized kernel computes something else"
    );
    out
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn buf_i32(v: &[i32]) -> Arg {
    Arg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn zeros(n: usize) -> Arg {
    Arg::Buffer(vec![0; n])
}

/// Run kernel `k` of `src` on `threads` work-items (one workgroup) with an output buffer of
/// `n` longs as its first argument, then `args`; the output.
fn run_longs(src: &str, threads: u32, n: usize, args: Vec<Arg>) -> Vec<i64> {
    let m = compile(src);
    let mut all = vec![zeros(n * 8)];
    all.extend(args);
    let out = launch(&m, "k", [1, 1, 1], [threads, 1, 1], all);
    i64s(out.buffer(0).unwrap())
}

#[test]
fn vadd_is_one_if_without_flags() {
    let m = compile(
        "__kernel void vadd(__global const float *a, __global const float *b, __global float *out, int n) {
            int i = get_global_id(0);
            if (i < n) { out[i] = a[i] + b[i]; }
        }",
    );
    let f = &m.kernels[0];
    let ops: Vec<_> = f.walk().into_iter().map(|o| f.op(o)).collect();
    assert_eq!(ops.iter().filter(|o| o.kind == ir::OpKind::If).count(), 1);
    assert!(ops.iter().all(|o| o.kind != ir::OpKind::Loop));
    assert!(ops
        .iter()
        .all(|o| o.kind != ir::OpKind::If || o.results.is_empty()));
    let kinds: Vec<_> = f
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.kind, p.c_type.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("a", ir::ParamKind::PtrGlobal, "__global const float *"),
            ("b", ir::ParamKind::PtrGlobal, "__global const float *"),
            ("out", ir::ParamKind::PtrGlobal, "__global float *"),
            ("n", ir::ParamKind::I32, "int"),
        ]
    );
    let a: Vec<f32> = (0..40).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..40).map(|i| 100.0 - i as f32).collect();
    let fb = |v: &[f32]| Arg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect());
    let out = launch(
        &m,
        "vadd",
        [3, 1, 1],
        [16, 1, 1],
        vec![fb(&a), fb(&b), zeros(40 * 4), Arg::Scalar(37)],
    );
    let got: Vec<f32> = out
        .buffer(2)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for i in 0..40 {
        let want = if i < 37 { a[i] + b[i] } else { 0.0 };
        assert_eq!(got[i], want, "element {i}");
    }
}

/// C99's arithmetic conversions, run with values whose results differ between the rules.
#[test]
fn arithmetic_conversions() {
    let src = "
    __kernel void k(__global long *o, int a, uint b, char c, uchar d, short e, ushort f,
                    long g, ulong h, float x, double y) {
        o[0] = a + b;
        o[1] = a * g;
        o[2] = b + g;
        o[3] = h + a;
        o[4] = c + d;
        o[5] = (char)(c + 200);
        char cc = c; cc += 200; o[6] = cc;
        uchar dd = d; dd += 10; o[7] = dd;
        o[8] = e * f;
        short ee = e; ee *= 3; o[9] = ee;
        o[10] = b >> 3;
        o[11] = a >> 3;
        o[12] = a << 33;
        o[13] = g << 65;
        o[14] = (int)x;
        o[15] = (long)y;
        o[16] = as_uint(x);
        o[17] = as_long(y);
        o[18] = as_int((float)a);
        o[19] = as_int((float)b);
        o[20] = as_long((double)h);
        o[21] = as_int((float)y);
        o[22] = as_long((double)x);
        o[23] = a / -3;
        o[24] = a % -3;
        o[25] = b / 7u;
        o[26] = b % 7;
        o[27] = a < b;
        o[28] = g < b;
        o[29] = -b;
        o[30] = ~c;
        o[31] = !a + !0;
        o[32] = (bool)x + (bool)(x - x) + (bool)0.5;
        o[33] = c == -100;
        o[34] = -0x80000000 > 0;
        o[35] = -2147483648 > 0;
        o[36] = 'a' + sizeof(long) * 100 + sizeof(short);
        o[37] = as_int(x * 2);
        o[38] = as_long(0.5 * x);
        o[39] = as_int(1.5f + a);
        o[40] = (ushort)e;
        o[41] = (short)f;
        o[42] = (uchar)c;
        o[43] = (int)(char)d;
        o[44] = (ulong)c;
        o[45] = (long)b;
        o[46] = (uint)g;
        o[47] = d >> 1 << 30;
        o[48] = 07 + 0x10 + 010u;
        o[49] = 4000000000 > 0;
        int m = a; m <<= 40; o[50] = m;
        long q = g; q %= 1000; o[51] = q;
        uint r = b; r -= 4000000000u; o[52] = r;
        o[53] = (long)(x * 1e20f);
        o[54] = c * d * e;
        o[55] = f * f;
        o[56] = a ? c : h;
        o[57] = a > 0 ? -1 : b;
    }";
    let (a, b, c, d, e, f) = (-7i32, 3_000_000_000u32, -100i8, 250u8, -30000i16, 60000u16);
    let (g, h, x, y) = (
        -5_000_000_000i64,
        0xF000_0000_0000_0001u64,
        -2.75f32,
        1e10f64 + 0.5,
    );
    let args = vec![
        Arg::Scalar(a as i64 as u64),
        Arg::Scalar(u64::from(b)),
        Arg::Scalar(c as i64 as u64),
        Arg::Scalar(u64::from(d)),
        Arg::Scalar(e as i64 as u64),
        Arg::Scalar(u64::from(f)),
        Arg::Scalar(g as u64),
        Arg::Scalar(h),
        Arg::Scalar(u64::from(x.to_bits())),
        Arg::Scalar(y.to_bits()),
    ];
    let o = run_longs(src, 1, 58, args);
    let want: Vec<i64> = vec![
        (a as u32).wrapping_add(b) as i64,
        a as i64 * g,
        b as i64 + g,
        h.wrapping_add(a as i64 as u64) as i64,
        c as i64 + d as i64,
        (c as i32 + 200) as i8 as i64,
        (c as i32 + 200) as i8 as i64,
        (d as i32 + 10) as u8 as i64,
        e as i64 * f as i64,
        (e as i32 * 3) as i16 as i64,
        (b >> 3) as i64,
        (a >> 3) as i64,
        (a << 1) as i64,
        g << 1,
        x as i32 as i64,
        y as i64,
        x.to_bits() as i64,
        y.to_bits() as i64,
        (a as f32).to_bits() as i32 as i64,
        (b as f32).to_bits() as i32 as i64,
        (h as f64).to_bits() as i64,
        (y as f32).to_bits() as i32 as i64,
        (x as f64).to_bits() as i64,
        (a / -3) as i64,
        (a % -3) as i64,
        (b / 7) as i64,
        (b % 7) as i64,
        ((a as u32) < b) as i64,
        (g < b as i64) as i64,
        b.wrapping_neg() as i64,
        !(c as i32) as i64,
        (a == 0) as i64 + 1,
        2,
        1,
        1,
        0,
        97 + 800 + 2,
        (x * 2.0).to_bits() as i32 as i64,
        (0.5 * x as f64).to_bits() as i64,
        (1.5f32 + a as f32).to_bits() as i32 as i64,
        e as u16 as i64,
        f as i16 as i64,
        c as u8 as i64,
        d as i8 as i64,
        c as i64,
        b as i64,
        g as u32 as i64,
        (((d as i32) >> 1) << 30) as i64,
        7 + 16 + 8,
        1,
        (a << 8) as i64,
        g % 1000,
        b.wrapping_sub(4_000_000_000) as i64,
        (x * 1e20f32) as i64,
        c as i64 * d as i64 * e as i64,
        (f as i32).wrapping_mul(f as i32) as i64,
        (if a != 0 { c as i64 as u64 } else { h }) as i64,
        (if a > 0 { -1i64 as u32 } else { b }) as i64,
    ];
    assert_eq!(o.len(), want.len());
    for (i, (g, w)) in o.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "o[{i}]: got {g:#x}, want {w:#x}");
    }
}

/// Nested loops with `break`, `continue` and `return` where every work-item goes the same
/// way and where they diverge, compared with the same code in Rust.
#[test]
fn loops_with_early_exits() {
    let src = "
    __kernel void k(__global long *out, __global const int *in, int n) {
        int id = get_global_id(0);
        int acc = 0;
        for (int i = 0; i < n; i++) {
            if (in[i] == id) continue;
            for (int j = 0; j < i; j++) {
                if (j == 3) break;
                if ((i + j + id) % 7 == 0) { acc += 100; break; }
                if (j == id) continue;
                acc += j;
            }
            if (acc > 300 + id * 40) { out[id] = -acc; return; }
            acc += i * id;
        }
        int w = 0;
        while (w < 50) {
            w += id + 1;
            if (w % 5 == 0) break;
        }
        int d = 0;
        do {
            d++;
            if (d == id) continue;
            if (d > 6) break;
            d++;
        } while (d < 9);
        out[id] = acc * 10000 + w * 100 + d;
    }";
    let input: Vec<i32> = vec![3, 0, 5, 1, 7, 2, 9, 4, 6, 8, 11, 10];
    let n = input.len() as i32;
    let model = |id: i32| -> i64 {
        let mut acc = 0i32;
        for i in 0..n {
            if input[i as usize] == id {
                continue;
            }
            for j in 0..i {
                if j == 3 {
                    break;
                }
                if (i + j + id) % 7 == 0 {
                    acc += 100;
                    break;
                }
                if j == id {
                    continue;
                }
                acc += j;
            }
            if acc > 300 + id * 40 {
                return -(acc as i64);
            }
            acc += i * id;
        }
        let mut w = 0;
        while w < 50 {
            w += id + 1;
            if w % 5 == 0 {
                break;
            }
        }
        let mut d = 0;
        loop {
            d += 1;
            if d == id {
                if d < 9 {
                    continue;
                }
                break;
            }
            if d > 6 {
                break;
            }
            d += 1;
            if d >= 9 {
                break;
            }
        }
        acc as i64 * 10000 + w as i64 * 100 + d as i64
    };
    let out = run_longs(src, 16, 16, vec![buf_i32(&input), Arg::Scalar(n as u64)]);
    for id in 0..16 {
        assert_eq!(out[id as usize], model(id), "work-item {id}");
    }
}

/// `return` from inside nested loops of an inlined helper, in uniform and divergent places.
#[test]
fn inlined_early_returns() {
    let src = "
    int find(__global const int *v, int n, int key) {
        for (int i = 0; i < n; i++) {
            for (int j = i; j < n; j++) {
                if (v[i] + v[j] == key) return i * 100 + j;
            }
            if (v[i] < 0) return -1;
        }
        return -2;
    }
    int classify(int x) {
        if (x < 0) return -1;
        if (x == 0) return 0;
        for (int i = 1; i < 10; i++)
            if (i * i == x) return i;
        return 99;
    }
    __kernel void k(__global long *out, __global const int *v, int n) {
        int id = get_global_id(0);
        out[id] = find(v, n, id + 3) * 1000 + classify(id - 3);
    }";
    let v: Vec<i32> = vec![1, 4, 2, 8, -5, 3, 7];
    let find = |key: i32| -> i64 {
        let n = v.len();
        for i in 0..n {
            for j in i..n {
                if v[i] + v[j] == key {
                    return (i * 100 + j) as i64;
                }
            }
            if v[i] < 0 {
                return -1;
            }
        }
        -2
    };
    let classify = |x: i32| -> i64 {
        if x < 0 {
            return -1;
        }
        if x == 0 {
            return 0;
        }
        for i in 1..10 {
            if i * i == x {
                return i as i64;
            }
        }
        99
    };
    let out = run_longs(src, 20, 20, vec![buf_i32(&v), Arg::Scalar(v.len() as u64)]);
    for id in 0..20i32 {
        assert_eq!(
            out[id as usize],
            find(id + 3) * 1000 + classify(id - 3),
            "work-item {id}"
        );
    }
}

/// `switch` with fallthrough, grouped labels, a `default` in the middle, `break` under a
/// condition and `continue` of an enclosing loop.
#[test]
fn switch_fallthrough() {
    let src = "
    __kernel void k(__global long *out) {
        int x = get_global_id(0);
        long r = 0;
        switch (x) {
        case 0: r += 1;
        case 1: r += 10; break;
        case 2: case 3: r += 100;
        default: r += 1000; if (x > 5) break; r += 10000;
        case 9: r += 7;
        }
        int loops = 0;
        for (int i = 0; i < 4; i++) {
            switch ((x + i) & 3) {
            case 0: continue;
            case 1: loops += 1;
            case 2: loops += 10; break;
            default: loops += 100;
            }
            loops += 1000;
        }
        switch (x) { }
        switch (x) { default: r += 5; }
        out[x] = r * 100000 + loops;
    }";
    let model = |x: i64| -> i64 {
        let mut r = 0i64;
        match x {
            0 => r += 1 + 10,
            1 => r += 10,
            2 | 3 => r += 100 + 1000 + 10000 + 7,
            9 => r += 7,
            _ => {
                r += 1000;
                if x <= 5 {
                    r += 10000 + 7;
                }
            }
        }
        let mut loops = 0i64;
        for i in 0..4 {
            match (x + i) & 3 {
                0 => continue,
                1 => loops += 11,
                2 => loops += 10,
                _ => loops += 100,
            }
            loops += 1000;
        }
        r += 5;
        r * 100000 + loops
    };
    let out = run_longs(src, 12, 12, vec![]);
    for x in 0..12 {
        assert_eq!(out[x as usize], model(x), "work-item {x}");
    }
}

/// `&&`, `||` and `?:` evaluate their operands only when C says so.
#[test]
fn short_circuit_side_effects() {
    let src = "
    int bump(int *k, int by) { *k += by; return by; }
    __kernel void k(__global long *out) {
        int id = get_global_id(0);
        int k = 0;
        int t = (id & 1) && (k++ > 0);
        int u = (id & 2) || (k += 10);
        int v = (id & 4) ? bump(&k, 100) : bump(&k, 1000);
        if ((id > 3 && bump(&k, 10000)) || bump(&k, 100000)) k += 1;
        int w = id > 8 || id < 2 && bump(&k, 1000000);
        out[id] = ((long)k * 10 + t) * 1000 + u * 100 + v % 7 + w * 10;
    }";
    let model = |id: i64| -> i64 {
        let mut k = 0i64;
        let t = (id & 1 != 0) && {
            let old = k;
            k += 1;
            old > 0
        };
        let u = (id & 2 != 0) || {
            k += 10;
            k != 0
        };
        let v = if id & 4 != 0 {
            k += 100;
            100
        } else {
            k += 1000;
            1000
        };
        if (id > 3 && {
            k += 10000;
            true
        }) || {
            k += 100000;
            true
        } {
            k += 1;
        }
        let w = id > 8
            || (id < 2 && {
                k += 1_000_000;
                true
            });
        ((k * 10 + t as i64) * 1000) + u as i64 * 100 + v % 7 + w as i64 * 10
    };
    let out = run_longs(src, 12, 12, vec![]);
    for id in 0..12 {
        assert_eq!(out[id as usize], model(id), "work-item {id}");
    }
}

/// Structs and unions: layout, member access through `.` and `->`, copies by assignment,
/// by value into and out of functions, initializers with designators and brace elision.
#[test]
fn structs_and_unions() {
    let src = "
    struct P { char c; long d; int a; float b; };
    struct Q { int n; struct P p[2]; short tail[3]; };
    union U { float f; uint u; char bytes[4]; };
    typedef struct { int x, y; } Pt;
    struct P make(int v) { struct P p; p.a = v; p.b = v * 0.5f; p.c = v; p.d = (long)v << 40; return p; }
    long sum(struct P p) { p.a += 1000; return p.a + (long)p.b + p.c + p.d; }
    __kernel void k(__global long *out, __global struct P *ps) {
        int id = get_global_id(0);
        struct P p = make(id);
        struct P q = p;
        q.a += 1;
        ps[id] = q;
        struct Q big = { 7, { { 1, 2, 3, 4.5f }, { .a = 9 } }, { 1, 2 } };
        struct Q big2;
        big2 = big;
        big2.p[1].d = -1;
        union U u;
        u.f = 1.0f;
        Pt pts[] = { 1, 2, 3, 4, [3] = { .y = 8 } };
        Pt *pp = &pts[1];
        pp->x += 10;
        out[id * 8 + 0] = sum(p) + p.a;
        out[id * 8 + 1] = sizeof(struct P) * 1000 + sizeof(struct Q) * 10 + _Alignof(struct Q);
        out[id * 8 + 2] = big.p[0].c + big.p[0].d * 10 + big.p[0].a * 100 + (long)(big.p[0].b * 1000) + big.p[1].a * 100000;
        out[id * 8 + 3] = big2.p[1].d + big2.tail[1] * 10 + big2.tail[2] * 100 + big.p[1].d * 1000 + big2.n * 10000;
        out[id * 8 + 4] = u.u;
        out[id * 8 + 5] = u.bytes[3];
        out[id * 8 + 6] = sizeof(pts) * 1000 + pts[1].x * 100 + pts[3].y * 10 + pts[2].x;
        out[id * 8 + 7] = (pp - pts) + (&pts[3] - pp) * 10;
    }";
    let m = compile(src);
    let out = launch(
        &m,
        "k",
        [1, 1, 1],
        [4, 1, 1],
        vec![zeros(4 * 8 * 8), zeros(4 * 24)],
    );
    let o = i64s(out.buffer(0).unwrap());
    let ps = out.buffer(1).unwrap();
    for id in 0..4i64 {
        let p_b = (id as f32 * 0.5) as i64;
        let sum = (id + 1000) + p_b + id + (id << 40);
        let row = &o[id as usize * 8..][..8];
        assert_eq!(row[0], sum + id, "sum {id}");
        assert_eq!(row[1], 24 * 1000 + (4 + 4 + 48 + 6 + 2) * 10 + 8);
        assert_eq!(row[2], 1 + 20 + 300 + 4500 + 900000);
        assert_eq!(row[3], -1 + 20 + 70000);
        assert_eq!(row[4], 1.0f32.to_bits() as i64);
        assert_eq!(row[5], 0x3f);
        assert_eq!(row[6], 32 * 1000 + 13 * 100 + 80);
        assert_eq!(row[7], 1 + 2 * 10);
        let rec = &ps[id as usize * 24..][..24];
        assert_eq!(rec[0] as i64, id);
        assert_eq!(i64::from_le_bytes(rec[8..16].try_into().unwrap()), id << 40);
        assert_eq!(
            i32::from_le_bytes(rec[16..20].try_into().unwrap()) as i64,
            id + 1
        );
        assert_eq!(
            f32::from_le_bytes(rec[20..24].try_into().unwrap()),
            id as f32 * 0.5
        );
    }
}

/// Pointer arithmetic in every address space: scaling, negative and unsigned indices,
/// differences, comparisons, increments, `__local` arrays shared across a barrier.
#[test]
fn pointer_arithmetic() {
    let src = "
    __constant int table[5] = { 10, 20, 30, 40, 50 };
    __constant char msg[] = \"hey\";
    __kernel void k(__global long *out, __global short *g) {
        __local int shared[64];
        int id = get_local_id(0);
        shared[id] = id * 3;
        barrier(CLK_LOCAL_MEM_FENCE);
        int arr[8];
        for (int i = 0; i < 8; i++) arr[i] = i * i;
        int *p = arr + 2;
        int *e = &arr[7];
        long acc = p[1] + *(p + 3) * 10 + (e - p) * 100 + (p < e) * 1000;
        p++;
        acc += *p++ * 10000;
        acc += *--e * 100000;
        __global short *q = g + 10;
        uint u = 3;
        acc += q[-2] + q[u] * 10 + (q - g) * 100;
        __local int *s = shared + 63 - id;
        acc += (long)*s * 1000000;
        __constant int *t = table;
        acc += t[id % 5] * 100000000L + msg[id % 4] * 10000000000L;
        out[id] = acc;
    }";
    let m = compile(src);
    let g: Vec<i16> = (0..32).map(|i| (i * 7 - 50) as i16).collect();
    let gb = Arg::Buffer(g.iter().flat_map(|x| x.to_le_bytes()).collect());
    let out = launch(&m, "k", [1, 1, 1], [64, 1, 1], vec![zeros(64 * 8), gb]);
    let o = i64s(out.buffer(0).unwrap());
    let msg = b"hey\0";
    for id in 0..64i64 {
        let arr: Vec<i64> = (0..8).map(|i| i * i).collect();
        let mut acc = arr[3] + arr[5] * 10 + 5 * 100 + 1000;
        acc += arr[3] * 10000;
        acc += arr[6] * 100000;
        acc += g[8] as i64 + g[13] as i64 * 10 + 10 * 100;
        acc += (63 - id) * 3 * 1000000;
        acc += [10, 20, 30, 40, 50][(id % 5) as usize] * 100000000
            + msg[(id % 4) as usize] as i64 * 10000000000;
        assert_eq!(o[id as usize], acc, "work-item {id}");
    }
}

/// Built-in functions at their edge values, against Rust's definitions.
#[test]
fn integer_builtins_at_edges() {
    let src = "
    __kernel void k(__global long *o, int a, int b, uint c, uint d, long e, long f, ulong g, char h, uchar i, short j) {
        o[0] = mul_hi(a, b);
        o[1] = mul_hi(c, d);
        o[2] = mul_hi(e, f);
        o[3] = mul_hi(g, g);
        o[4] = rotate(a, b);
        o[5] = rotate(h, (char)3);
        o[6] = clz(0);
        o[7] = clz(h) + clz(i) * 100 + clz(j) * 10000 + clz((long)0) * 1000000;
        o[8] = abs(INT_MIN);
        o[9] = abs(h);
        o[10] = add_sat(a, b);
        o[11] = add_sat(INT_MAX, 1) + add_sat(INT_MIN, -1);
        o[12] = add_sat(c, d);
        o[13] = add_sat(e, f);
        o[14] = add_sat(h, h);
        o[15] = sub_sat(c, d);
        o[16] = sub_sat(LONG_MIN, 1L);
        o[17] = hadd(a, b);
        o[18] = rhadd(a, b);
        o[19] = hadd(c, d);
        o[20] = rhadd(INT_MAX, INT_MAX);
        o[21] = clamp(a, -5, 5) + clamp(c, 1u, 100u) * 100;
        o[22] = mad24(a, b, 7);
        o[23] = mul24(c, d);
        o[24] = popcount(h) + popcount(-1) * 100 + popcount(e) * 10000;
        o[25] = abs_diff(a, b);
        o[26] = abs_diff(h, (char)100);
        o[27] = mad_hi(a, b, 5);
        o[28] = mad_sat(a, b, 1);
        o[29] = mad_sat(e, f, -1L);
        o[30] = mad_sat(g, g, 5UL);
        o[31] = upsample(h, i);
        o[32] = upsample(a, c);
        o[33] = max(a, b) + min(c, d) * 3;
        o[34] = rotate(e, (long)-3);
        o[35] = sub_sat(h, (char)100);
        o[36] = convert_char_sat(a) + convert_uchar_sat(b) * 1000;
        o[37] = convert_int_sat(e) + (long)convert_uint_sat(f) * 3;
        o[38] = convert_int_sat(1e20f) + (long)convert_int_sat(-1e20f) * 3 + convert_int_sat(NAN);
        o[39] = convert_ushort_sat(-3.5f) + convert_short_sat(40000.0) * 100000L;
    }";
    let (a, b, c, d) = (
        -123456789i32,
        987654321i32,
        3_000_000_001u32,
        4_000_000_003u32,
    );
    let (e, f, g, h, i, j) = (
        -0x123456789abcdefi64,
        0x7edcba987654321i64,
        0xfedcba9876543210u64,
        -37i8,
        200u8,
        300i16,
    );
    let args = vec![
        Arg::Scalar(a as i64 as u64),
        Arg::Scalar(b as i64 as u64),
        Arg::Scalar(u64::from(c)),
        Arg::Scalar(u64::from(d)),
        Arg::Scalar(e as u64),
        Arg::Scalar(f as u64),
        Arg::Scalar(g),
        Arg::Scalar(h as i64 as u64),
        Arg::Scalar(u64::from(i)),
        Arg::Scalar(j as i64 as u64),
    ];
    let o = run_longs(src, 1, 40, args);
    let sat = |v: i128, lo: i128, hi: i128| v.clamp(lo, hi) as i64;
    let rot8 = |x: u8, n: u32| x.rotate_left(n % 8) as i8 as i64;
    let want: Vec<i64> = vec![
        ((a as i64 * b as i64) >> 32),
        ((c as u64 * d as u64) >> 32) as i64,
        ((e as i128 * f as i128) >> 64) as i64,
        ((g as u128 * g as u128) >> 64) as u64 as i64,
        (a as u32).rotate_left(b as u32 % 32) as i32 as i64,
        rot8(h as u8, 3),
        32,
        ((h as u8).leading_zeros()
            + i.leading_zeros() * 100
            + (j as u16).leading_zeros() * 10000
            + 64 * 1000000) as i64,
        i32::MIN as u32 as i64,
        (h as i64).abs(),
        sat(a as i128 + b as i128, i32::MIN as i128, i32::MAX as i128),
        i32::MAX as i64 + i32::MIN as i64,
        sat(c as i128 + d as i128, 0, u32::MAX as i128),
        sat(e as i128 + f as i128, i64::MIN as i128, i64::MAX as i128),
        sat(h as i128 * 2, -128, 127),
        sat(c as i128 - d as i128, 0, u32::MAX as i128),
        i64::MIN,
        ((a as i64 + b as i64) >> 1),
        ((a as i64 + b as i64 + 1) >> 1),
        ((c as u64 + d as u64) >> 1) as i64,
        i32::MAX as i64,
        (a.clamp(-5, 5) + c.clamp(1, 100) as i32 * 100) as i64,
        (((a << 8) >> 8).wrapping_mul((b << 8) >> 8).wrapping_add(7)) as i64,
        ((c & 0xffffff).wrapping_mul(d & 0xffffff)) as i64,
        ((h as u8).count_ones() + 32 * 100 + e.count_ones() * 10000) as i64,
        (a as i64 - b as i64).unsigned_abs() as u32 as i64,
        (h as i64 - 100).unsigned_abs() as i64,
        (((a as i64 * b as i64) >> 32) as i32).wrapping_add(5) as i64,
        sat(
            a as i128 * b as i128 + 1,
            i32::MIN as i128,
            i32::MAX as i128,
        ),
        sat(
            e as i128 * f as i128 - 1,
            i64::MIN as i128,
            i64::MAX as i128,
        ),
        (g as u128)
            .checked_mul(g as u128)
            .map_or(-1, |p| (p + 5).min(u64::MAX as u128) as u64 as i64),
        ((h as i16) << 8 | i as i16) as i64,
        ((a as i64) << 32 | c as i64),
        (a.max(b) as u32).wrapping_add(c.min(d).wrapping_mul(3)) as i64,
        (e as u64).rotate_right(3) as i64,
        sat(h as i128 - 100, -128, 127),
        sat(a as i128, -128, 127) + sat(b as i128, 0, 255) * 1000,
        sat(e as i128, i32::MIN as i128, i32::MAX as i128)
            + sat(f as i128, 0, u32::MAX as i128) * 3,
        i32::MAX as i64 + i32::MIN as i64 * 3,
        32767 * 100000,
    ];
    assert_eq!(o.len(), want.len());
    for (k, (g, w)) in o.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "o[{k}]: got {g:#x}, want {w:#x}");
    }
}

/// The `file:line:col: severity: message` lines of a program's diagnostics.
fn messages(src: &str) -> Vec<String> {
    let (_, text, _) = compile_with(src, &Options::default());
    text.lines()
        .filter(|l| l.starts_with("k.cl:") || l.starts_with("warpkit-cc:"))
        .map(str::to_string)
        .collect()
}

/// An array size naming a macro the build options were to define is an undeclared name, not
/// a variable-length array (Rodinia's kernels take `BLOCK_SIZE` from `-D`).
#[test]
fn array_size_with_an_undefined_name() {
    let text = errors(
        "__kernel void k(__global int *p) { __local int t[2 * (BLOCK_SIZE + 1)]; p[0] = t[0]; }",
    );
    assert!(
        text.contains("k.cl:1:55: error: use of undeclared identifier 'BLOCK_SIZE'"),
        "{text}"
    );
    assert!(!text.contains("variable-length"), "{text}");
}

#[test]
fn unsupported_constructs_are_named() {
    let cases = [
        ("__kernel void k(float4 v) { }", "k.cl:1:24: error: unsupported: vector kernel parameter 'v'"),
        (
            "__kernel void k(__global int *p) { goto end; end: p[0] = 1; }",
            "k.cl:1:36: error: unsupported: 'goto' statement",
        ),
        ("__kernel void k(__global int *p) { printf(\"%d\", 1); }", "k.cl:1:36: error: unsupported: printf"),
        (
            "__kernel void k(__global int *p, int n) { int a[n]; p[0] = a[0]; }",
            "k.cl:1:49: error: unsupported: variable-length array",
        ),
        (
            "int f(int x) { return x ? g(x - 1) : 0; } int g(int x) { return f(x); }
             __kernel void k(__global int *p) { p[0] = f(3); }",
            "k.cl:1:65: error: recursion is not allowed in OpenCL C: f -> g -> f",
        ),
        (
            "int f(int x) { return x; } __kernel void k(__global int *p) { int (*fp)(int) = f; p[0] = fp(1); }",
            "k.cl:1:67: error: unsupported: function pointer",
        ),
        (
            "struct S { int a : 3; }; __kernel void k(__global int *p) { struct S s; p[0] = s.a; }",
            "k.cl:1:16: error: unsupported: bit-field 'a'",
        ),
        (
            "__kernel void k(__read_only image2d_t img, __global int *p) { }",
            "k.cl:1:17: error: unsupported: image type 'image2d_t'",
        ),
        (
            "__kernel void k(__global half *p) { vstore_half_rtz(1.0f, 0, p); }",
            "k.cl:1:37: error: unsupported: rounding mode of 'vstore_half_rtz'",
        ),
        (
            "__kernel void k(__global long *p) { atom_add(p, 1L); }",
            "k.cl:1:37: error: unsupported: 64-bit atomic 'atom_add'",
        ),
    ];
    for (src, want) in cases {
        let got = messages(src);
        assert_eq!(got, [want.to_string()], "for {src}");
    }
}

#[test]
fn opencl_rules_are_errors() {
    let cases: &[(&str, &[&str])] = &[
        (
            "__kernel void k(int *p, bool b, __global int **pp) { }",
            &[
                "k.cl:1:22: error: kernel parameter cannot be declared as a pointer to the __private address space",
                "k.cl:1:30: error: 'bool' cannot be used as the type of a kernel parameter",
                "k.cl:1:48: error: kernel parameter cannot be declared as a pointer to a pointer",
            ],
        ),
        ("__kernel int k(__global int *p) { return 1; }", &["k.cl:1:1: error: kernel must have void return type"]),
        ("int x; __kernel void k(__global int *p) { }", &["k.cl:1:5: error: program scope variable must reside in constant address space"]),
        (
            "__constant int x; __kernel void k(__global int *p) { }",
            &["k.cl:1:16: error: variable in constant address space must be initialized"],
        ),
        (
            "__kernel void k(__global int *p) { __local int l = 3; }",
            &["k.cl:1:52: error: '__local' variable cannot have an initializer"],
        ),
        (
            "void h() { __local int l; } __kernel void k(__global int *p) { h(); }",
            &["k.cl:1:24: error: non-kernel function variable cannot be declared in local address space"],
        ),
        (
            "__kernel void k(__global int *p) { break; continue; }",
            &[
                "k.cl:1:36: error: 'break' statement not in loop or switch statement",
                "k.cl:1:43: error: 'continue' statement not in loop statement",
            ],
        ),
        (
            "__kernel void k(__global const int *p) { p[0] = 1; const int c = 2; c = 3; }",
            &[
                "k.cl:1:42: error: read-only variable is not assignable",
                "k.cl:1:69: error: cannot assign to variable 'c' with const-qualified type 'const int'",
            ],
        ),
        (
            "__kernel void k(__global int *p, __local int *l) { p = l; }",
            &["k.cl:1:56: error: assigning '__local int *' to '__global int *' changes address space of pointer"],
        ),
        (
            "int f(int a, int b); int g(int a) { return a; }
             __kernel void k(__global int *p) { p[0] = f(1, 2); p[1] = g(); }",
            &[
                "k.cl:2:56: error: function 'f' is declared but never defined (every call is inlined)",
                "k.cl:1:5: note: 'f' declared here",
                "k.cl:2:72: error: too few arguments to function call, expected 1, have 0",
                "k.cl:1:26: note: 'g' declared here",
            ],
        ),
        (
            "__kernel void k(__global int *p) { char c = 300; p[0] = c; }",
            &["k.cl:1:45: warning: implicit conversion from 'int' to 'char' changes value from 300 to 44"],
        ),
        (
            "__kernel void k(__global int *p) { switch (p[0]) { case 1: case 1: break; } }",
            &["k.cl:1:65: error: duplicate case value '1'", "k.cl:1:57: note: previous case defined here"],
        ),
        (
            "void f(void) { } __kernel void k(__global int *p) { int x = f(); return 1; }",
            &[
                "k.cl:1:61: error: initializing 'int' with an expression of incompatible type 'void'",
                "k.cl:1:73: error: void function 'k' should not return a value",
            ],
        ),
        (
            "__kernel void a(__global int *p) { } __kernel void b(__global int *p) { }",
            &[],
        ),
    ];
    for (src, want) in cases {
        let got = messages(src);
        assert_eq!(got, *want, "for {src}");
    }
    let (m, text, _) = compile_with(
        "__kernel void a(__global int *p) { } __kernel void b(__global int *p) { }",
        &Options {
            kernels: Some(vec!["b".into(), "c".into()]),
            ..Options::default()
        },
    );
    assert_eq!(m.kernels.len(), 1);
    assert_eq!(m.kernels[0].name, "b");
    assert!(
        text.contains("warpkit-cc: error: no kernel named 'c' (kernels: a, b)"),
        "{text}"
    );
}

/// Every error of a file is reported, each once, and lowering goes on after each.
#[test]
fn errors_are_all_reported_once() {
    let src = "
    struct S { int a; };
    int helper(int x) { return x + undeclared_in_helper; }
    __kernel void k(__global int *p, __global float *f) {
        int x = y + 1;
        struct S s;
        s.b = 2;
        p[0] = helper(1) + helper(2);
        float g = p;
        x = *x;
        p[1] = s;
        for (int i = 0; i < 4; i++) { p[i] = nope(i); }
        f[0] = 1.0f % 2.0f;
        3 = x;
        p[2] = x;
    }";
    let got = messages(src);
    assert_eq!(
        got,
        [
            "k.cl:3:36: error: use of undeclared identifier 'undeclared_in_helper'",
            "k.cl:5:17: error: use of undeclared identifier 'y'",
            "k.cl:7:9: error: no member named 'b' in 'struct S'",
            "k.cl:9:19: error: initializing 'float' with an expression of incompatible type '__global int *'",
            "k.cl:10:13: error: indirection requires pointer operand ('int' invalid)",
            "k.cl:11:16: error: assigning to 'int' from incompatible type 'struct S'",
            "k.cl:12:46: error: implicit declaration of function 'nope' is invalid in OpenCL",
            "k.cl:13:16: error: invalid operands to binary expression ('float' and 'float')",
            "k.cl:14:9: error: expression is not assignable",
        ]
    );
    assert!(errors(src).ends_with("\n9 errors generated.\n"));
}

fn count_ops(m: &Module, pred: impl Fn(&ir::OpKind) -> bool) -> usize {
    m.kernels
        .iter()
        .map(|f| {
            f.walk()
                .into_iter()
                .filter(|&o| pred(&f.op(o).kind))
                .count()
        })
        .sum()
}

/// `a*b + c` and its kin become one `Fma` only with contraction on, and only when the
/// product and the sum have one type.
#[test]
fn contraction() {
    let src = "
    __kernel void k(__global float *o, __global double *od, float a, float b, float c, double d) {
        o[0] = a * b + c;
        o[1] = c + a * b;
        o[2] = a * b - c;
        o[3] = -c - a * b;
        float t = a * b;
        o[4] = t + c;
        od[0] = a * b + d;
        float x = c;
        x += a * b;
        o[5] = x;
        o[6] = mad(a, b, c);
    }";
    let plain = compile(src);
    let contracted = compile_opts(
        src,
        &Options {
            contract_fp: true,
            ..Options::default()
        },
    );
    assert_eq!(count_ops(&plain, |k| *k == ir::OpKind::Fma), 1);
    assert_eq!(count_ops(&contracted, |k| *k == ir::OpKind::Fma), 6);
    let a = 1.0f32 + f32::powi(2.0, -12);
    let c = -(1.0f32 + f32::powi(2.0, -11));
    let args = |m: &Module| {
        launch(
            m,
            "k",
            [1, 1, 1],
            [1, 1, 1],
            vec![
                zeros(7 * 4),
                zeros(8),
                Arg::Scalar(u64::from(a.to_bits())),
                Arg::Scalar(u64::from(a.to_bits())),
                Arg::Scalar(u64::from(c.to_bits())),
                Arg::Scalar(0.25f64.to_bits()),
            ],
        )
    };
    let f32s = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let p = f32s(args(&plain).buffer(0).unwrap());
    let q = f32s(args(&contracted).buffer(0).unwrap());
    let fused = a.mul_add(a, c);
    assert_ne!(fused, a * a + c);
    assert_eq!(
        p,
        [
            a * a + c,
            c + a * a,
            a * a - c,
            -c - a * a,
            a * a + c,
            c + a * a,
            fused
        ]
    );
    assert_eq!(
        q,
        [
            fused,
            fused,
            a.mul_add(a, -c),
            (-a).mul_add(a, -c),
            a * a + c,
            fused,
            fused
        ]
    );
}

/// The library functions of the prelude are inlined for their built-in; double needs the
/// `_f64` version; hardware operations map to IR ops directly.
#[test]
fn math_library_and_hardware_math() {
    let src = "
    __kernel void k(__global float *o, float x) {
        o[0] = exp(x);
        o[1] = sqrt(x);
        o[2] = native_sin(x);
        o[3] = fmax(x, 0.5f) + fmin(x, -1.0f) + fabs(-x);
        o[4] = clamp(x, 0.0f, 1.0f) + mix(1.0f, 3.0f, 0.25f) + step(0.5f, x) + sign(-x) + copysign(2.0f, -x);
        o[5] = degrees(x) ;
        o[6] = isnan(x) + isinf(1.0f / 0.0f) * 10 + signbit(-x) * 100 + isfinite(x) * 1000 + isnormal(1e-40f) * 10000;
        o[7] = smoothstep(0.0f, 4.0f, x);
    }";
    let m = compile(src);
    // exp is the prelude's library, on the SFU's fexp2; native_sin is the SFU's fsin.
    assert_eq!(
        count_ops(&m, |k| *k == ir::OpKind::Math(ir::MathOp::Exp2)),
        1
    );
    assert_eq!(
        count_ops(&m, |k| *k == ir::OpKind::Math(ir::MathOp::Sqrt)),
        1
    );
    assert_eq!(
        count_ops(&m, |k| *k == ir::OpKind::Math(ir::MathOp::SinPi)),
        1
    );
    let x = 2.0f32;
    let out = launch(
        &m,
        "k",
        [1, 1, 1],
        [1, 1, 1],
        vec![zeros(32), Arg::Scalar(u64::from(x.to_bits()))],
    );
    let o: Vec<f32> = out
        .buffer(0)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!((o[0] - x.exp()).abs() < 1e-5 * x.exp(), "exp: {}", o[0]);
    assert_eq!(o[1], x.sqrt());
    assert!((o[2] - x.sin()).abs() < 1e-5, "native_sin: {}", o[2]);
    assert_eq!(o[3], 2.0 - 1.0 + 2.0);
    assert_eq!(o[4], 1.0 + 1.5 + 1.0 - 1.0 - 2.0);
    assert_eq!(o[5], x * (180.0 / std::f64::consts::PI) as f32);
    assert_eq!(o[6], (10 + 100 + 1000) as f32);
    let t = 0.5f32;
    assert_eq!(o[7], t * t * (3.0 - 2.0 * t));
    // A user definition of a library function's name is a redefinition.
    let got = messages(
        "float __cl_exp_f32(float x) { return x; }
         __kernel void k(__global double *o) { o[0] = exp(o[1]); }",
    );
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].contains("redefinition of '__cl_exp_f32'"), "{got:?}");
    // A user function with a built-in's name shadows the built-in.
    let m = compile(
        "int min(int a, int b) { return 42; }
         __kernel void k(__global int *o) { o[0] = min(1, 2); }",
    );
    let out = launch(&m, "k", [1, 1, 1], [1, 1, 1], vec![zeros(4)]);
    assert_eq!(i32s(out.buffer(0).unwrap()), [42]);
}

/// Work-item functions with constant and variable dimensions, in three dimensions.
#[test]
fn work_item_functions() {
    let src = "
    __kernel void k(__global long *o, uint dim) __attribute__((reqd_work_group_size(4, 2, 1))) {
        size_t flat = get_global_id(0) + get_global_id(1) * get_global_size(0)
                    + get_global_id(2) * get_global_size(0) * get_global_size(1);
        o[flat * 4 + 0] = get_global_id(dim) * 1000 + get_local_id(dim) * 100 + get_group_id(dim) * 10 + get_local_size(dim);
        o[flat * 4 + 1] = get_num_groups(dim) * 100 + get_global_size(dim) * 10 + get_work_dim();
        o[flat * 4 + 2] = get_global_id(7) + get_local_size(3) * 10 + get_global_offset(0) * 100;
        o[flat * 4 + 3] = get_group_id(2);
    }";
    let m = compile(src);
    assert_eq!(m.kernels[0].reqd_block, Some([4, 2, 1]));
    let grid = [2u32, 3, 2];
    let block = [4u32, 2, 1];
    for dim in 0..4u32 {
        let total = (0..3)
            .map(|d| (grid[d] * block[d]) as usize)
            .product::<usize>();
        let out = launch(
            &m,
            "k",
            grid,
            block,
            vec![zeros(total * 32), Arg::Scalar(u64::from(dim))],
        );
        let o = i64s(out.buffer(0).unwrap());
        for gz in 0..grid[2] {
            for gy in 0..grid[1] {
                for gx in 0..grid[0] {
                    for ly in 0..block[1] {
                        for lx in 0..block[0] {
                            let g = [gx, gy, gz];
                            let l = [lx, ly, 0];
                            let gid: Vec<u64> =
                                (0..3).map(|d| u64::from(g[d] * block[d] + l[d])).collect();
                            let gsize: Vec<u64> =
                                (0..3).map(|d| u64::from(grid[d] * block[d])).collect();
                            let flat = gid[0] + gid[1] * gsize[0] + gid[2] * gsize[0] * gsize[1];
                            let row = &o[flat as usize * 4..][..4];
                            let d = dim as usize;
                            let want0 = if d < 3 {
                                gid[d] * 1000
                                    + u64::from(l[d]) * 100
                                    + u64::from(g[d]) * 10
                                    + u64::from(block[d])
                            } else {
                                1
                            };
                            let want1 = if d < 3 {
                                u64::from(grid[d]) * 100 + gsize[d] * 10 + 3
                            } else {
                                100 + 10 + 3
                            };
                            assert_eq!(row[0] as u64, want0, "dim {dim} item {gid:?}");
                            assert_eq!(row[1] as u64, want1, "dim {dim} item {gid:?}");
                            assert_eq!(row[2], 10);
                            assert_eq!(row[3] as u32, gz);
                        }
                    }
                }
            }
        }
    }
}

/// Atomics on `__global` and `__local` memory, signed and unsigned, and `atomic_xchg` on
/// floats.
#[test]
fn atomics() {
    let src = "
    __kernel void k(__global int *g, __global uint *u, __global float *f) {
        __local int l[2];
        int id = get_local_id(0);
        if (id == 0) { l[0] = 0; l[1] = 100; }
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_add(&g[0], id);
        atom_inc(&g[1]);
        atomic_min(&g[2], id - 10);
        atomic_max(&u[0], (uint)id - 10u);
        atomic_or(&u[1], 1u << id);
        atomic_sub(&l[0], 2);
        int old = atomic_cmpxchg(&l[1], 100, id);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (id == 0) { g[3] = l[0]; g[4] = l[1]; }
        if (old == 100) g[5] = id + 1000;
        atomic_xchg(&f[0], 2.5f);
    }";
    let m = compile(src);
    let out = launch(
        &m,
        "k",
        [1, 1, 1],
        [32, 1, 1],
        vec![zeros(24), zeros(8), zeros(4)],
    );
    let g = i32s(out.buffer(0).unwrap());
    let u: Vec<u32> = out
        .buffer(1)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(g[0], (0..32).sum::<i32>());
    assert_eq!(g[1], 32);
    assert_eq!(g[2], -10);
    assert_eq!(u[0], (0u32..32).map(|i| i.wrapping_sub(10)).max().unwrap());
    assert_eq!(u[1], u32::MAX);
    assert_eq!(g[3], -64);
    assert_eq!(g[4], 0); // work-item 0 ran first and swapped its id in
    assert_eq!(g[5], 1000);
    assert_eq!(
        f32::from_le_bytes(out.buffer(2).unwrap().try_into().unwrap()),
        2.5
    );
}

/// Ops carry the line of the statement or expression they implement; inlined helpers keep
/// their own lines; code of the compiler's prelude (a `builtin` file) carries the call's.
#[test]
fn line_tables() {
    let lib = "float __wk_test_exp(float x) {\n    float y = x * 1.44269504f;\n    return __builtin_wk_exp2_f32(y);\n}\n";
    let user = "float twice(float x) {\n    return x + x;\n}\n__kernel void k(__global float *o) {\n    float a = o[0];\n    float b = twice(a);\n    o[1] = __wk_test_exp(b);\n}\n";
    let mut sources = SourceMap::new();
    let lib_id = sources.add_file("lib.cl", lib, true);
    let user_id = sources.add_file("k.cl", user, false);
    let mut diags = Diagnostics::new();
    let mut tokens = pp::preprocess(&mut sources, lib_id, &pp::Options::default(), &mut diags);
    tokens.pop();
    // The second run's own copy of the prelude is left out.
    let second = pp::preprocess(&mut sources, user_id, &pp::Options::default(), &mut diags);
    tokens.extend(second.into_iter().filter(|t| {
        let mut span = t.span;
        let mut e = t.expansion;
        while let Some(id) = e {
            span = sources.expansion(id).call_site;
            e = sources.expansion(id).parent;
        }
        t.kind == warpkit_cc::token::TokenKind::Eof || !sources.file(span.file).builtin
    }));
    let tu = parse::parse(&tokens, &mut diags);
    let m = lower::lower(&tu, &sources, &Options::default(), &mut diags);
    assert!(!diags.has_errors(), "{}", diags.render(&sources));
    let f = &m.kernels[0];
    let line_of = |op: &ir::Op| {
        assert_eq!(
            op.span.file, user_id,
            "op {:?} is not in the user's file",
            op.kind
        );
        sources.loc(op.span).unwrap().line
    };
    let mut lines = std::collections::BTreeMap::new();
    for o in f.walk() {
        let op = f.op(o);
        let line = line_of(op);
        lines
            .entry(format!("{:?}", op.kind))
            .or_insert_with(Vec::new)
            .push(line);
    }
    assert_eq!(lines["Load(MemTy { size: 4, signed: false })"], [5]);
    assert_eq!(
        lines["Binary(FAdd)"],
        [2],
        "the helper's add is on its own line"
    );
    assert_eq!(
        lines["Binary(FMul)"],
        [7],
        "prelude code is on the call's line"
    );
    assert_eq!(lines["Math(Exp2)"], [7]);
    assert_eq!(lines["Store(MemTy { size: 4, signed: false })"], [7]);
}

/// `half` values are loaded, stored, converted and computed with.
#[test]
fn half_values() {
    let src = "
    __kernel void k(__global half *h, __global float *f) {
        half a = h[0];
        half b = a * 2.0h + (half)1.5f;
        h[1] = b;
        f[0] = a;
        f[1] = b;
        f[2] = as_ushort(b);
        h[2] = 65504.0f * 2;
    }";
    let m = compile(src);
    let h0: u16 = 0x3c00 + 0x0200; // 1.5
    let out = launch(
        &m,
        "k",
        [1, 1, 1],
        [1, 1, 1],
        vec![
            Arg::Buffer([h0.to_le_bytes(), [0; 2], [0; 2]].concat()),
            zeros(12),
        ],
    );
    let h = out.buffer(0).unwrap();
    let f: Vec<f32> = out
        .buffer(1)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(u16::from_le_bytes([h[2], h[3]]), 0x4480); // 4.5
    assert_eq!(f, [1.5, 4.5, 0x4480 as f32]);
    assert_eq!(u16::from_le_bytes([h[4], h[5]]), 0x7c00); // overflow to infinity
}

/// Scalars whose address is taken live in private memory; the rest stay SSA values.
#[test]
fn address_taken_scalars_and_initializers() {
    let src = "
    void set(int *p, int v) { *p = v; }
    typedef enum { RED, GREEN = 5, BLUE } color;
    __kernel void k(__global long *o) {
        int x = 5;
        int y = 6;
        set(&x, 7);
        int big[100] = { 1, 2, [50] = 3 };
        char s[] = \"hi\";
        char t[8] = \"abc\";
        float fs[3] = { 1.5f };
        long sum = 0;
        for (int i = 0; i < 100; i++) sum += big[i] * (i + 1);
        color c = BLUE;
        int shadow = 1;
        { int shadow = 2; sum += shadow * 1000000; }
        int n = 0;
        n += sizeof(n++);
        o[0] = x * 10 + y;
        o[1] = sum + shadow;
        o[2] = sizeof(s) * 100 + s[0] + s[2] * 1000 + t[2] * 10000 + t[5];
        o[3] = (long)(fs[0] * 10 + fs[1] + fs[2]);
        o[4] = c * 10 + GREEN + n * 100;
    }";
    let m = compile(src);
    assert_eq!(
        m.kernels[0]
            .privates
            .iter()
            .map(|p| (p.name.as_str(), p.size))
            .collect::<Vec<_>>()[..4],
        [("x", 4), ("big", 400), ("s", 3), ("t", 8)]
    );
    let out = launch(&m, "k", [1, 1, 1], [1, 1, 1], vec![zeros(40)]);
    let o = i64s(out.buffer(0).unwrap());
    assert_eq!(
        o,
        [
            76,
            1 + 2 * 2 + 3 * 51 + 2_000_000 + 1,
            3 * 100 + 104 + 99 * 10000,
            15,
            65 + 400
        ]
    );
}

/// The shapes the back end and the passes build on, as printed IR: a rotated `for` loop
/// (guard `If`, `Loop` carrying exactly the variables it changes) and `while (1)` with a
/// `break` (the loop continues while the flag is clear).
#[test]
fn printed_loops() {
    assert_eq!(
        ir_text("__kernel void k(__global int *o, int n) { int s = 0; for (int i = 0; i < n; i++) s += i; o[0] = s; }"),
        "kernel @k(o: ptr.global, n: i32) {
  %0 = param 0 : ptr.global
  %1 = param 1 : i32
  %2 = const 0x0 : i32
  %3 = const 0x0 : i32
  %4 = cmp.slt %3, %1 : i1
  %15, %16 = if %4 : i32, i32 {
    %13, %14 = loop %2, %3 : i32, i32 {
    ^(%7: i32, %8: i32):
      %9 = add %7, %8 : i32
      %10 = const 0x1 : i32
      %11 = add %8, %10 : i32
      %12 = cmp.slt %11, %1 : i1
      loop_end %12, %9, %11
    }
    yield %13, %14
  } else {
    yield %2, %3
  }
  %22 = const 0x0 : i32
  %23 = const 0x0 : i64
  %24 = const 0x4 : i64
  %25 = mul %23, %24 : i64
  %26 = ptradd %0, %25 : ptr.global
  store.4 %26, %15
}
"
    );
    assert_eq!(
        ir_text("__kernel void k(__global int *o, int n) { int i = 0; while (1) { if (o[i] == n) break; i++; } o[0] = i; }"),
        "kernel @k(o: ptr.global, n: i32) {
  %0 = param 0 : ptr.global
  %1 = param 1 : i32
  %2 = const 0x0 : i32
  %17 = loop %2 : i32 {
  ^(%5: i32):
    %6 = sext %5 : i64
    %7 = const 0x4 : i64
    %8 = mul %6, %7 : i64
    %9 = ptradd %0, %8 : ptr.global
    %10 = load.4 %9 : i32
    %11 = cmp.eq %10, %1 : i1
    %12 = not %11 : i1
    %15 = if %12 : i32 {
      %13 = const 0x1 : i32
      %14 = add %5, %13 : i32
      yield %14
    } else {
      yield %5
    }
    %16 = not %11 : i1
    loop_end %16, %15
  }
  %23 = const 0x0 : i32
  %24 = const 0x0 : i64
  %25 = const 0x4 : i64
  %26 = mul %24, %25 : i64
  %27 = ptradd %0, %26 : ptr.global
  store.4 %27, %17
}
"
    );
}

/// No flag, guard or `not` without an early exit; one guard for the whole rest of a block.
#[test]
fn guards_are_minimal() {
    let m = compile(
        "__kernel void k(__global int *o, int n) {
            int s = 0;
            for (int i = 0; i < n; i++) {
                if (o[i] > 3) { for (int j = 0; j < i; j++) s += j; } else s -= i;
                int t = 0;
                do { t++; } while (t < i);
                s += t > 2 && s < 100 ? t : -t;
            }
            o[0] = s;
        }",
    );
    assert_eq!(count_ops(&m, |k| *k == ir::OpKind::Unary(ir::UnOp::Not)), 0);
    let f = &m.kernels[0];
    let flag_results = f
        .walk()
        .into_iter()
        .filter(|&o| {
            f.op(o).kind == ir::OpKind::If && f.op(o).results.iter().any(|&v| f.ty(v) == ir::Ty::I1)
        })
        .count();
    // Only the `&&` yields a truth value.
    assert_eq!(flag_results, 1);
    let m = compile(
        "__kernel void k(__global int *o, int n) {
            if (n < 0) return;
            o[0] = 1;
            o[1] = 2;
            for (int i = 0; i < n; i++) o[i] += 3;
            o[2] = 4;
        }",
    );
    let f = &m.kernels[0];
    let top: Vec<_> = f
        .region(f.body)
        .ops
        .iter()
        .map(|&o| f.op(o).kind.clone())
        .collect();
    assert_eq!(
        top.iter().filter(|k| **k == ir::OpKind::If).count(),
        1,
        "the return needs no If of its own, the rest one guard"
    );
}

/// Kernels broken at random (tokens deleted, duplicated, swapped, inserted): lowering never
/// panics, and whatever compiles without errors verifies.
#[test]
fn mutated_kernels_never_break_lowering() {
    let seeds = [
        "struct P { int a; float b; }; typedef struct P P;
         int f(int x, __global int *p) { for (int i = 0; i < x; i++) { if (p[i] < 0) return i; } return -1; }
         __kernel void k(__global int *o, __global float *q, int n) {
             int id = get_global_id(0); P s = { 1, 2.0f }; int a[4] = { 1, 2 };
             switch (id & 3) { case 0: s.a += f(n, o); case 1: break; default: a[id & 3] = 5; }
             while (n > 0) { n--; if (n == 3) continue; if (o[n] == id) break; q[n] = s.b * a[n & 3]; }
             do { id += 2; } while (id < 10 && o[id] != 0);
             o[id] = id > 3 ? s.a : a[1];
         }",
        "__constant float t[3] = { 1.0f, 2.5f, -3.0f };
         __kernel void k(__global float *o, __local float *l, uint n) {
             size_t i = get_local_id(0); l[i] = t[i % 3] * 2.0f; barrier(CLK_LOCAL_MEM_FENCE);
             float acc = 0.0f; for (uint j = 0; j < n; ++j) acc = fma(acc, l[j], 1.0f);
             o[i] = clamp(acc, 0.0f, 10.0f) + (float)(n << 2) + sqrt((float)i);
             atomic_add((__global int *)o, 1);
         }",
    ];
    let pool = [
        "{", "}", "(", ")", ";", ",", "*", "&", "[", "]", "=", "int", "struct", "return", "break",
        "continue", "case 1:", "goto", "0", "x", "__local", "sizeof", ".", "->", "?", ":", "++",
        "\"s\"", "'c'", "1.5f", "0x1p3", "float4", "while", "for", "if", "else", "switch",
        "default:", "do", "typedef", "enum", "union", "-", "<<", "!", "~", "n", "id", "o", "(int)",
        "(P)", "{ 1, }", "[2]", "__kernel", "void",
    ];
    let tokenize = |s: &str| -> Vec<String> {
        let mut out = Vec::new();
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
            } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
                out.push(s[start..i].to_string());
            } else {
                out.push((c as char).to_string());
                i += 1;
            }
        }
        out
    };
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for round in 0..1500 {
        let mut toks = tokenize(seeds[round % seeds.len()]);
        for _ in 0..1 + next(3) {
            let i = next(toks.len());
            match next(4) {
                0 => {
                    toks.remove(i);
                }
                1 => {
                    let t = toks[i].clone();
                    toks.insert(i, t);
                }
                2 => {
                    let j = next(toks.len());
                    toks.swap(i, j);
                }
                _ => toks.insert(i, pool[next(pool.len())].to_string()),
            }
        }
        let src = toks.join(" ");
        let (m, _, errors) = compile_with(&src, &Options::default());
        if !errors {
            if let Err(e) = ir::verify::verify_module(&m) {
                panic!("round {round}: IR of an accepted program does not verify: {e}\n{src}");
            }
        }
    }
}

/// The deepest trees the parser accepts lower without exhausting the stack.
#[test]
fn deep_nesting() {
    let sum = vec!["o[0]"; 1000].join(" + ");
    let mut body = String::new();
    for i in 0..60 {
        body.push_str(&format!(
            "if (o[{i}] > {i}) {{ for (int i{i} = 0; i{i} < 2; i{i}++) {{ "
        ));
    }
    body.push_str("o[1] += 1; if (o[2]) return;");
    for _ in 0..60 {
        body.push_str(" } }");
    }
    let src = format!("__kernel void k(__global int *o) {{ o[3] = {sum}; {body} }}");
    let m = compile(&src);
    assert_eq!(count_ops(&m, |k| *k == ir::OpKind::Loop), 60);
}

/// Kernels calling kernels, struct `?:`, conversions and reinterpretations, alignment.
#[test]
fn kernels_calling_kernels_and_more() {
    let src = "
    typedef struct { int a; short b; } T;
    static inline T pick(int c, T x, T y) { return c ? x : y; }
    __kernel void fill(__global long *o, int v) { o[get_global_id(0)] = v; }
    __kernel void k(__global long *o) {
        __local int buf[4] __attribute__((aligned(64)));
        int id = get_global_id(0);
        fill(o, 7);
        T x = { 1, 2 }, y = { 3, 4 };
        T z = pick(id & 1, x, y);
        o[id] += z.a * 10 + z.b * 100;
        o[id] += convert_int(-2.5f) * 1000 + (long)convert_float(16777217) * 10000;
        o[id] += as_char((uchar)200) * 100000000L;
        char bytes[4] = { 1, 2, 3, 4 };
        o[id] += *(int *)bytes * 1000000000L;
        (void)buf;
    }";
    let m = compile(src);
    assert_eq!(m.kernels.len(), 2);
    let k = m.kernels.iter().find(|k| k.name == "k").unwrap();
    assert_eq!(k.locals[0].align, 64);
    let out = launch(&m, "k", [1, 1, 1], [2, 1, 1], vec![zeros(16)]);
    let o = i64s(out.buffer(0).unwrap());
    let rest = -2 * 1000 + 16777216 * 10000 - 56 * 100000000 + 0x04030201 * 1000000000;
    assert_eq!(o, [7 + 3 * 10 + 400 + rest, 7 + 10 + 200 + rest]);
}

/// `const` scalars and `__constant` scalars with constant values size arrays and label cases.
#[test]
fn constant_variables_in_constant_expressions() {
    let m = compile(
        "__constant int TILE = 4;
         __kernel void k(__global int *o) {
             const int N = 2 * TILE;
             __local float tile[N][TILE];
             float priv[N];
             switch (o[0]) { case N: o[1] = sizeof(tile) + sizeof(priv); break; case TILE: o[1] = 1; }
         }",
    );
    assert_eq!(m.kernels[0].locals[0].size, 8 * 4 * 4);
    let out = launch(&m, "k", [1, 1, 1], [1, 1, 1], vec![buf_i32(&[8, 0])]);
    assert_eq!(i32s(out.buffer(0).unwrap()), [8, 128 + 32]);
}

/// Kernels in the style of the public suites (PolyBench/GPU, Rodinia, SHOC, SDK samples)
/// compile without a diagnostic and run.
#[test]
fn suite_style_kernels() {
    let src = r#"
    #pragma OPENCL EXTENSION cl_khr_fp64 : enable
    #define DATA_TYPE float
    #define BLOCK_SIZE 4
    typedef struct { float x, y; } float2_t;

    __kernel void mm2_kernel1(__global DATA_TYPE *tmp, __global DATA_TYPE *A, __global DATA_TYPE *B,
                              int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta) {
        int j = get_global_id(0);
        int i = get_global_id(1);
        if ((i < ni) && (j < nj)) {
            tmp[i * nj + j] = 0;
            int k;
            for (k = 0; k < nk; k++) {
                tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
            }
        }
    }

    __kernel void reduce(__global const float *g_idata, __global float *g_odata,
                         __local volatile float *sdata, const unsigned int n) {
        const unsigned int tid = get_local_id(0);
        unsigned int i = get_group_id(0) * (get_local_size(0) * 2) + tid;
        const unsigned int gridSize = get_local_size(0) * 2 * get_num_groups(0);
        sdata[tid] = 0.0f;
        while (i < n) {
            sdata[tid] += g_idata[i];
            if (i + get_local_size(0) < n) sdata[tid] += g_idata[i + get_local_size(0)];
            i += gridSize;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (unsigned int s = get_local_size(0) / 2; s > 0; s >>= 1) {
            if (tid < s) sdata[tid] += sdata[tid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (tid == 0) g_odata[get_group_id(0)] = sdata[0];
    }

    __kernel void histogram(__global const uchar *data, __global uint *bins, int n) {
        __local uint local_bins[16];
        int lid = get_local_id(0);
        if (lid < 16) local_bins[lid] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = get_global_id(0); i < n; i += get_global_size(0))
            atomic_inc(&local_bins[data[i] & 15]);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < 16) atomic_add(&bins[lid], local_bins[lid]);
    }

    __kernel void stencil(__global const float *in, __global float *out, const int width, const int height) {
        const int x = get_global_id(0), y = get_global_id(1);
        if (x <= 0 || y <= 0 || x >= width - 1 || y >= height - 1) return;
        float c = in[y * width + x];
        float s = in[(y - 1) * width + x] + in[(y + 1) * width + x]
                + in[y * width + x - 1] + in[y * width + x + 1];
        out[y * width + x] = 0.5f * c + 0.125f * s;
    }

    __kernel void matmul_tiled(__global const float *A, __global const float *B, __global float *C, int N) {
        __local float As[BLOCK_SIZE][BLOCK_SIZE];
        __local float Bs[BLOCK_SIZE][BLOCK_SIZE];
        int bx = get_group_id(0), by = get_group_id(1);
        int tx = get_local_id(0), ty = get_local_id(1);
        float acc = 0.0f;
        for (int t = 0; t < N / BLOCK_SIZE; ++t) {
            As[ty][tx] = A[(by * BLOCK_SIZE + ty) * N + t * BLOCK_SIZE + tx];
            Bs[ty][tx] = B[(t * BLOCK_SIZE + ty) * N + bx * BLOCK_SIZE + tx];
            barrier(CLK_LOCAL_MEM_FENCE);
            #pragma unroll
            for (int k = 0; k < BLOCK_SIZE; ++k) acc += As[ty][k] * Bs[k][tx];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        C[(by * BLOCK_SIZE + ty) * N + bx * BLOCK_SIZE + tx] = acc;
    }

    float2_t cmul(float2_t a, float2_t b) { float2_t r = { a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x }; return r; }
    __kernel void complex_square(__global float2_t *z) {
        size_t i = get_global_id(0);
        z[i] = cmul(z[i], z[i]);
    }
    "#;
    let (m, text, errors) = compile_with(src, &Options::default());
    assert!(!errors && !text.contains("warning"), "{text}");
    ir::verify::verify_module(&m).unwrap();
    assert_eq!(m.kernels.len(), 6);
    // The tiled matrix product on 8x8 matrices, 2x2 workgroups of 4x4.
    let n = 8usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 * 0.5).collect();
    let fb = |v: &[f32]| Arg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect());
    let out = launch(
        &m,
        "matmul_tiled",
        [2, 2, 1],
        [4, 4, 1],
        vec![fb(&a), fb(&b), zeros(n * n * 4), Arg::Scalar(n as u64)],
    );
    let c: Vec<f32> = out
        .buffer(2)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for i in 0..n {
        for j in 0..n {
            let want: f32 = (0..n).fold(0.0, |acc, k| acc + a[i * n + k] * b[k * n + j]);
            assert_eq!(c[i * n + j], want, "C[{i}][{j}]");
        }
    }
    // The reduction over 100 values in 2 groups of 8.
    let data: Vec<f32> = (0..100).map(|i| i as f32).collect();
    let out = launch(
        &m,
        "reduce",
        [2, 1, 1],
        [8, 1, 1],
        vec![fb(&data), zeros(8), Arg::Local(32), Arg::Scalar(100)],
    );
    let sums: Vec<f32> = out
        .buffer(1)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(sums[0] + sums[1], 4950.0);
    // The histogram.
    let bytes: Vec<u8> = (0..200u32).map(|i| (i * 37 % 256) as u8).collect();
    let out = launch(
        &m,
        "histogram",
        [2, 1, 1],
        [32, 1, 1],
        vec![Arg::Buffer(bytes.clone()), zeros(64), Arg::Scalar(200)],
    );
    let bins = i32s(out.buffer(1).unwrap());
    for (b, &count) in bins.iter().enumerate() {
        assert_eq!(
            count as usize,
            bytes.iter().filter(|&&x| (x & 15) as usize == b).count()
        );
    }
}
