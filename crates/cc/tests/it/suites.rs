//! Kernels written the way the public OpenCL suites (Rodinia, PolyBench/GPU, SHOC, vendor
//! samples) write theirs — warp-synchronous tagging in `__local` memory, pyramid stencils
//! with `__local` pointer arguments, structs of records with `long` and `bool` members,
//! private byte arrays read as words, double-precision random walks, rows shared by groups
//! of lanes — and kernels large enough to need far branches. Each runs on the functional
//! model, launched as the kernel's metadata says (its `__local` pointer arguments placed after
//! its static shared memory), and is checked against a host reference.

use super::model::{buffer, run_assembled, Assembled};
use super::opencl::{f32s, u32s, words};
use warpkit_sim::launch::{ArgValue, LaunchConfig};

/// A kernel argument.
enum A {
    Buf(Vec<u8>),
    Int(i64),
    F32(f32),
    F64(f64),
    /// A `__local` pointer to this many bytes.
    Local(u32),
}

/// Compile `src` with `-D` `defines`, launch `grid` x `block` with `args`; the buffers by name.
fn run(
    src: &str,
    defines: &[(&str, &str)],
    grid: [u32; 3],
    block: [u32; 3],
    args: Vec<(&str, A)>,
) -> Vec<(String, Vec<u8>)> {
    let opts = warpkit_cc::Options {
        defines: defines
            .iter()
            .map(|(n, v)| (n.to_string(), Some(v.to_string())))
            .collect(),
        ..warpkit_cc::Options::default()
    };
    let asm = Assembled::compile(src, &opts).unwrap_or_else(|e| panic!("{e}"));
    let mut locals = asm.locals(None);
    let args = args
        .into_iter()
        .map(|(name, a)| {
            let value = match a {
                A::Buf(b) => ArgValue::Buffer(b),
                A::Int(i) => ArgValue::Int(i as u64),
                A::F32(f) => ArgValue::Int(u64::from(f.to_bits())),
                A::F64(f) => ArgValue::Int(f.to_bits()),
                A::Local(bytes) => ArgValue::Int(locals.place(bytes)),
            };
            (name, value)
        })
        .collect();
    let cfg = LaunchConfig {
        grid,
        block,
        shared_bytes: locals.shared_bytes(),
        ..LaunchConfig::default()
    };
    run_assembled(&asm, cfg, args)
}

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn ints(bytes: &[u8]) -> Vec<i32> {
    words(bytes).into_iter().map(|w| w as i32).collect()
}

fn doubles(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A small deterministic generator for inputs.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        f64::from(self.next()) / f64::from(1u32 << 31)
    }
}

/// 16384 dependent statements (two 8-byte instructions each) inside a uniform loop: the
/// loop's guard branches forward over more than 256 KiB and its back edge as far backward,
/// beyond the 17-bit reach of `bz`/`bnz`, so both become an inverted branch over a `jmp`.
/// Before that, the assembler refused the compiler's output.
#[test]
fn branches_beyond_256_kib() {
    let src = r#"
#define STEP(k) acc = (acc ^ (0x9e3779b9u + (k))) * 0x85ebca6bu;
#define STEP4(k) STEP(k) STEP(k + 1) STEP(k + 2) STEP(k + 3)
#define STEP16(k) STEP4(k) STEP4(k + 4) STEP4(k + 8) STEP4(k + 12)
#define STEP256(k) STEP16(k) STEP16(k + 16) STEP16(k + 32) STEP16(k + 48) STEP16(k + 64) \
    STEP16(k + 80) STEP16(k + 96) STEP16(k + 112) STEP16(k + 128) STEP16(k + 144) STEP16(k + 160) \
    STEP16(k + 176) STEP16(k + 192) STEP16(k + 208) STEP16(k + 224) STEP16(k + 240)
#define STEP4096(k) STEP256(k) STEP256(k + 256) STEP256(k + 512) STEP256(k + 768) \
    STEP256(k + 1024) STEP256(k + 1280) STEP256(k + 1536) STEP256(k + 1792) STEP256(k + 2048) \
    STEP256(k + 2304) STEP256(k + 2560) STEP256(k + 2816) STEP256(k + 3072) STEP256(k + 3328) \
    STEP256(k + 3584) STEP256(k + 3840)

__kernel void mix_rounds(__global uint *out, uint rounds)
{
    uint acc = get_global_id(0);
    for (uint r = 0; r < rounds; r++) {
        STEP4096(0) STEP4096(4096) STEP4096(8192) STEP4096(12288)
    }
    out[get_global_id(0)] = acc;
}
"#;
    let text = warpkit_cc::compile_source("k.cl", src, &warpkit_cc::Options::default())
        .unwrap_or_else(|f| panic!("{}", f.render()))
        .assembly;
    assert!(
        text.len() > 1 << 20,
        "the kernel is large: {} bytes",
        text.len()
    );
    for rounds in [0u32, 2] {
        let out = run(
            src,
            &[],
            [2, 1, 1],
            [64, 1, 1],
            vec![
                ("out", A::Buf(vec![0; 512])),
                ("rounds", A::Int(rounds.into())),
            ],
        );
        let got = words(buffer(&out, "out"));
        for (g, &w) in got.iter().enumerate() {
            let mut acc = g as u32;
            for _ in 0..rounds {
                for k in 0..16384u32 {
                    acc = (acc ^ 0x9e37_79b9u32.wrapping_add(k)).wrapping_mul(0x85eb_ca6b);
                }
            }
            assert_eq!(w, acc, "rounds {rounds}, work-item {g}");
        }
    }
}

/// A histogram in `__local` memory without atomics, per warp: each lane stamps its lane
/// number into the top bits of the count it writes and reads the word back (through a
/// `volatile` pointer) until its own write survived. Lanes of a warp that hit the same bin in
/// the same step collide on purpose (few bins).
#[test]
fn warp_tagged_local_histogram() {
    let src = r#"
#define BINS 64
#define LANE_BITS 5
#define COUNT_MASK 0x07FFFFFFU

static void bump(volatile __local uint *warp_hist, uint bin, uint stamp)
{
    uint seen;
    do {
        seen = warp_hist[bin] & COUNT_MASK;
        seen = stamp | (seen + 1);
        warp_hist[bin] = seen;
    } while (warp_hist[bin] != seen);
}

__kernel void tagged_histogram(__global uint *bins, __global const uint *values, uint count)
{
    __local uint per_warp[3 * BINS];
    const uint lane = get_local_id(0);
    volatile __local uint *mine = per_warp + (lane >> LANE_BITS) * BINS;
    const uint stamp = lane << (32 - LANE_BITS);
    for (uint i = lane; i < 3 * BINS; i += get_local_size(0))
        per_warp[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint at = get_global_id(0); at < count; at += get_global_size(0))
        bump(mine, values[at] % BINS, stamp);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lane; b < BINS; b += get_local_size(0)) {
        uint total = 0;
        for (uint w = 0; w < 3 * BINS; w += BINS)
            total += per_warp[w + b] & COUNT_MASK;
        atomic_add(&bins[b], total);
    }
}
"#;
    let mut rng = Lcg(7);
    let n = 5000usize;
    // Mostly a handful of bins, so that lanes collide.
    let values: Vec<u32> = (0..n)
        .map(|_| {
            if rng.below(4) == 0 {
                rng.next()
            } else {
                rng.below(3)
            }
        })
        .collect();
    let out = run(
        src,
        &[],
        [4, 1, 1],
        [96, 1, 1],
        vec![
            ("bins", A::Buf(vec![0; 64 * 4])),
            ("values", A::Buf(u32s(&values))),
            ("count", A::Int(n as i64)),
        ],
    );
    let mut want = [0u32; 64];
    for v in &values {
        want[(v % 64) as usize] += 1;
    }
    assert_eq!(words(buffer(&out, "bins")), want);
}

/// Sparse rows summed by groups of `lanes_per_row` lanes: partial sums in a `volatile
/// __local` array, the tree reduction's barriers inside `if (row < rows)` (every work-item of
/// a group takes the same side only when the rows divide evenly; the last group has idle
/// lanes), `restrict` pointers.
#[test]
fn rows_shared_by_lane_groups() {
    let src = r#"
__kernel void row_dot(__global const float * restrict vals, __global const int * restrict col_of,
                      __global const int * restrict row_start, __global const float * restrict x,
                      const int rows, const int lanes_per_row, __global float * restrict y)
{
    __local volatile float part[128];
    const int me = get_local_id(0);
    const int sub = me % lanes_per_row;
    const int row = get_group_id(0) * (get_local_size(0) / lanes_per_row) + me / lanes_per_row;
    part[me] = 0.0f;
    if (row < rows) {
        float s = 0.0f;
        for (int k = row_start[row] + sub; k < row_start[row + 1]; k += lanes_per_row)
            s += vals[k] * x[col_of[k]];
        part[me] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int stride = lanes_per_row / 2; stride > 0; stride /= 2) {
            if (sub < stride)
                part[me] += part[me + stride];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (sub == 0)
            y[row] = part[me];
    }
}
"#;
    let mut rng = Lcg(11);
    let rows = 96usize;
    let mut vals = Vec::new();
    let mut cols = Vec::new();
    let mut start = vec![0i32];
    for _ in 0..rows {
        for _ in 0..rng.below(20) {
            vals.push(rng.unit() as f32 - 0.5);
            cols.push(rng.below(rows as u32) as i32);
        }
        start.push(vals.len() as i32);
    }
    let x: Vec<f32> = (0..rows).map(|_| rng.unit() as f32).collect();
    for lanes in [4usize, 8, 32] {
        let per_group = 128 / lanes;
        let out = run(
            src,
            &[],
            [rows.div_ceil(per_group) as u32, 1, 1],
            [128, 1, 1],
            vec![
                ("vals", A::Buf(f32s(&vals))),
                ("col_of", A::Buf(i32s(&cols))),
                ("row_start", A::Buf(i32s(&start))),
                ("x", A::Buf(f32s(&x))),
                ("rows", A::Int(rows as i64)),
                ("lanes_per_row", A::Int(lanes as i64)),
                ("y", A::Buf(vec![0; rows * 4])),
            ],
        );
        let got = words(buffer(&out, "y"));
        for r in 0..rows {
            // The kernel's order: per lane, then the tree.
            let mut part: Vec<f32> = (0..lanes)
                .map(|sub| {
                    let mut s = 0.0f32;
                    let mut k = start[r] as usize + sub;
                    while k < start[r + 1] as usize {
                        s += vals[k] * x[cols[k] as usize];
                        k += lanes;
                    }
                    s
                })
                .collect();
            let mut half = lanes / 2;
            while half > 0 {
                for s in 0..half {
                    part[s] += part[s + half];
                }
                half /= 2;
            }
            assert_eq!(f32::from_bits(got[r]), part[0], "lanes {lanes}, row {r}");
        }
    }
}

/// Tree nodes as structs in global memory (an array member sized by `-D ORDER=...`, a `bool`
/// member, `long` indexes), walked by a workgroup of `ORDER` work-items that meet at barriers;
/// and records with a `long` between two floats (24 bytes each).
#[test]
fn struct_records_walked_by_a_group() {
    let src = r#"
typedef struct {
    int id;
    int child[ORDER + 1];
    int key[ORDER + 1];
    bool leaf;
    int used;
} node_t;

typedef struct {
    float weight;
    long owner;
    float cost;
} site_t;

__kernel void descend(long depth, __global const node_t *nodes, long node_count,
                      __global const int *wanted, __global long *landed,
                      __global const site_t *sites, __global float *scaled)
{
    __local long at;
    const int t = get_local_id(0);
    const int q = get_group_id(0);
    if (t == 0)
        at = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long level = 0; level < depth; level++) {
        __global const node_t *n = &nodes[at];
        long next = -1;
        if (n->key[t] <= wanted[q] && wanted[q] < n->key[t + 1] && n->child[t] < node_count)
            next = n->child[t];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (next >= 0)
            at = next;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) {
        landed[q] = nodes[at].leaf ? at : -at;
        scaled[q] = sites[q].weight * sites[q].cost + (float)sites[q].owner;
    }
}
"#;
    const ORDER: usize = 8;
    let mut rng = Lcg(3);
    let count = 20usize;
    // id, child[9], key[9], leaf (+3 padding), used: 84 bytes.
    let node_size = 4 + 4 * (ORDER + 1) * 2 + 4 + 4;
    let mut nodes = vec![0u8; count * node_size];
    let mut keys = vec![[0i32; ORDER + 1]; count];
    let mut children = vec![[0i32; ORDER + 1]; count];
    let mut leaf = vec![false; count];
    for i in 0..count {
        let mut k: Vec<i32> = Vec::new();
        while k.len() < ORDER + 1 {
            let v = rng.below(500) as i32;
            if !k.contains(&v) {
                k.push(v);
            }
        }
        k.sort();
        keys[i].copy_from_slice(&k);
        for child in children[i].iter_mut() {
            *child = rng.below(count as u32 + 3) as i32;
        }
        leaf[i] = rng.below(2) == 1;
        let b = &mut nodes[i * node_size..(i + 1) * node_size];
        b[0..4].copy_from_slice(&(i as i32).to_le_bytes());
        for c in 0..=ORDER {
            b[4 + 4 * c..8 + 4 * c].copy_from_slice(&children[i][c].to_le_bytes());
            b[40 + 4 * c..44 + 4 * c].copy_from_slice(&keys[i][c].to_le_bytes());
        }
        b[76] = u8::from(leaf[i]);
        b[80..84].copy_from_slice(&(ORDER as i32).to_le_bytes());
    }
    let queries = 24usize;
    let wanted: Vec<i32> = (0..queries).map(|_| rng.below(520) as i32).collect();
    let mut sites = vec![0u8; queries * 24];
    let mut site_vals = Vec::new();
    for q in 0..queries {
        let (w, o, c) = (
            rng.unit() as f32,
            i64::from(rng.next()) - (1 << 31),
            rng.unit() as f32,
        );
        sites[q * 24..q * 24 + 4].copy_from_slice(&w.to_le_bytes());
        sites[q * 24 + 8..q * 24 + 16].copy_from_slice(&o.to_le_bytes());
        sites[q * 24 + 16..q * 24 + 20].copy_from_slice(&c.to_le_bytes());
        site_vals.push((w, o, c));
    }
    let depth = 3i64;
    let out = run(
        src,
        &[("ORDER", "8")],
        [queries as u32, 1, 1],
        [ORDER as u32, 1, 1],
        vec![
            ("depth", A::Int(depth)),
            ("nodes", A::Buf(nodes)),
            ("node_count", A::Int(count as i64)),
            ("wanted", A::Buf(i32s(&wanted))),
            ("landed", A::Buf(vec![0; queries * 8])),
            ("sites", A::Buf(sites)),
            ("scaled", A::Buf(vec![0; queries * 4])),
        ],
    );
    let landed: Vec<i64> = buffer(&out, "landed")
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let scaled = words(buffer(&out, "scaled"));
    for q in 0..queries {
        let mut at = 0usize;
        for _ in 0..depth {
            let k = &keys[at];
            if let Some(t) = (0..ORDER).find(|&t| {
                k[t] <= wanted[q] && wanted[q] < k[t + 1] && (children[at][t] as usize) < count
            }) {
                at = children[at][t] as usize;
            }
        }
        let want = if leaf[at] { at as i64 } else { -(at as i64) };
        assert_eq!(landed[q], want, "query {q}");
        let (w, o, c) = site_vals[q];
        assert_eq!(f32::from_bits(scaled[q]), w * c + o as f32, "site {q}");
    }
}

/// A pyramid of `steps` dependent stencil steps per launch in `__local` memory passed as
/// arguments, the halo recomputed by neighbouring groups, a `bool` flag carried out of a loop
/// left by `break` on its last step: minimum-cost paths down a grid of costs.
#[test]
fn pyramid_steps_in_local_arguments() {
    let src = r#"
__kernel void cheapest_path(int steps, __global const int *cost, __global const int *from,
                            __global int *to, int cols, int first_row, int border,
                            __local int *prev, __local int *next)
{
    const int size = get_local_size(0);
    const int tx = get_local_id(0);
    const int x0 = (size - 2 * steps) * get_group_id(0) - border;
    const int x = x0 + tx;
    const int lo = x0 < 0 ? -x0 : 0;
    const int hi = x0 + size - 1 > cols - 1 ? cols - 1 - x0 : size - 1;
    const int west = max(tx - 1, lo);
    const int east = min(tx + 1, hi);
    const bool valid = tx >= lo && tx <= hi;
    if (x >= 0 && x < cols)
        prev[tx] = from[x];
    barrier(CLK_LOCAL_MEM_FENCE);
    bool wrote = false;
    for (int i = 0; i < steps; i++) {
        wrote = false;
        if (tx >= i + 1 && tx <= size - i - 2 && valid) {
            wrote = true;
            next[tx] = min(min(prev[west], prev[tx]), prev[east]) + cost[(first_row + i) * cols + x];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i == steps - 1)
            break;
        if (wrote)
            prev[tx] = next[tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (wrote)
        to[x] = next[tx];
}
"#;
    let mut rng = Lcg(5);
    let (rows, cols, pyramid, block) = (13usize, 300usize, 3usize, 64usize);
    let grid: Vec<Vec<i32>> = (0..rows)
        .map(|_| (0..cols).map(|_| rng.below(10) as i32).collect())
        .collect();
    let mut want = grid[0].clone();
    for row in &grid[1..] {
        want = (0..cols)
            .map(|c| {
                let l = want[c.saturating_sub(1)];
                let r = want[(c + 1).min(cols - 1)];
                l.min(want[c]).min(r) + row[c]
            })
            .collect();
    }
    let costs: Vec<i32> = grid[1..].iter().flatten().copied().collect();
    let mut cur = grid[0].clone();
    let groups = cols.div_ceil(block - 2 * pyramid) as u32;
    let mut t = 0;
    while t < rows - 1 {
        let steps = pyramid.min(rows - 1 - t);
        let out = run(
            src,
            &[],
            [groups, 1, 1],
            [block as u32, 1, 1],
            vec![
                ("steps", A::Int(steps as i64)),
                ("cost", A::Buf(i32s(&costs))),
                ("from", A::Buf(i32s(&cur))),
                ("to", A::Buf(i32s(&cur))),
                ("cols", A::Int(cols as i64)),
                ("first_row", A::Int(t as i64)),
                ("border", A::Int(pyramid as i64)),
                ("prev", A::Local(block as u32 * 4)),
                ("next", A::Local(block as u32 * 4)),
            ],
        );
        cur = ints(buffer(&out, "to"));
        t += pyramid;
    }
    assert_eq!(cur, want);
}

/// Double-precision particles moved by a linear congruential generator kept in `int`s (its
/// product wraps, its remainder keeps the sign), Box–Muller through `log` and `cos`, and the
/// truncation of the position to an index.
#[test]
fn double_particles_with_int_generator() {
    let src = r#"
double uniform01(__global int *seed, int i)
{
    const int m = INT_MAX;
    int s = as_int(1103515245u * as_uint(seed[i]) + 12345u);
    seed[i] = s % m;
    return fabs(seed[i] / (double)m);
}

double normal01(__global int *seed, int i)
{
    double u = uniform01(seed, i);
    double v = uniform01(seed, i);
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

__kernel void drift(__global double *px, __global int *seed, __global int *cell, int n, int width)
{
    int i = get_global_id(0);
    if (i < n) {
        px[i] = px[i] + 1.0 + 5.0 * normal01(seed, i);
        int c = (int)px[i];
        cell[i] = abs(c * width + 3) % 1000;
    }
}
"#;
    let n = 150usize;
    let mut rng = Lcg(9);
    let px: Vec<f64> = (0..n).map(|_| rng.unit() * 100.0 - 50.0).collect();
    let seeds: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let out = run(
        src,
        &[],
        [n.div_ceil(64) as u32, 1, 1],
        [64, 1, 1],
        vec![
            (
                "px",
                A::Buf(px.iter().flat_map(|v| v.to_le_bytes()).collect()),
            ),
            ("seed", A::Buf(i32s(&seeds))),
            ("cell", A::Buf(vec![0; n * 4])),
            ("n", A::Int(n as i64)),
            ("width", A::Int(37)),
        ],
    );
    let got_x = doubles(buffer(&out, "px"));
    let got_seed = ints(buffer(&out, "seed"));
    let got_cell = ints(buffer(&out, "cell"));
    for i in 0..n {
        let mut s = seeds[i];
        let mut uniform = || {
            let t = 1103515245u32.wrapping_mul(s as u32).wrapping_add(12345) as i32;
            s = t % i32::MAX;
            (f64::from(s) / f64::from(i32::MAX)).abs()
        };
        let u = uniform();
        let v = uniform();
        let x =
            px[i] + 1.0 + 5.0 * ((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos());
        assert_eq!(got_seed[i], s, "seed {i}");
        let err = (got_x[i] - x).abs() / x.abs().max(1.0);
        assert!(err < 1e-13, "x {i}: {} vs {x}", got_x[i]);
        let c = got_x[i] as i32;
        assert_eq!(got_cell[i], (c * 37 + 3).abs() % 1000, "cell {i}");
    }
}

/// A private `uchar[8]` filled digit by digit, its first byte incremented through the array,
/// then read as two `uint` words through a cast pointer.
#[test]
fn private_bytes_read_as_words() {
    let src = r#"
static void digits(uint index, int base, unsigned char out[8])
{
    for (int i = 0; i < 8; i++) {
        out[i] = index % base;
        index /= base;
    }
}

__kernel void key_words(int base, int tries, __global uint *mixed)
{
    uint id = get_global_id(0);
    unsigned char key[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    digits(id * 7u, base, key);
    uint acc = 0;
    for (int j = 0; j < tries; ++j) {
        uint *w = (uint *)key;
        acc = rotate(acc, 5u) ^ w[0] ^ (w[1] * 3u);
        ++key[0];
    }
    mixed[id] = acc;
}
"#;
    let (base, tries, n) = (10i32, 12i32, 256usize);
    let out = run(
        src,
        &[],
        [4, 1, 1],
        [64, 1, 1],
        vec![
            ("base", A::Int(base.into())),
            ("tries", A::Int(tries.into())),
            ("mixed", A::Buf(vec![0; n * 4])),
        ],
    );
    let got = words(buffer(&out, "mixed"));
    for (id, &g) in got.iter().enumerate() {
        let mut key = [0u8; 8];
        let mut index = id as u32 * 7;
        for k in &mut key {
            *k = (index % base as u32) as u8;
            index /= base as u32;
        }
        let mut acc = 0u32;
        for _ in 0..tries {
            let w0 = u32::from_le_bytes(key[0..4].try_into().unwrap());
            let w1 = u32::from_le_bytes(key[4..8].try_into().unwrap());
            acc = acc.rotate_left(5) ^ w0 ^ w1.wrapping_mul(3);
            key[0] = key[0].wrapping_add(1);
        }
        assert_eq!(g, acc, "work-item {id}");
    }
}

/// A 2-D stencil over a grid that the workgroups do not divide (partial groups on both
/// axes), with `float` and `double` scalar arguments and a double-precision product rounded
/// back to float, as PolyBench writes `0.5*(...)` with a double constant.
#[test]
fn stencil_2d_partial_groups_and_scalars() {
    let src = r#"
typedef float DATA_TYPE;

__kernel void relax_field(__global DATA_TYPE *e, __global const DATA_TYPE *h, DATA_TYPE gain,
                          double damping, int nx, int ny)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if ((i < nx) && (j < ny) && (j > 0)) {
        e[i * ny + j] = e[i * ny + j] - damping * (h[i * ny + j] - h[i * ny + (j - 1)]) + gain;
    }
}
"#;
    let (nx, ny) = (21usize, 45usize);
    let mut rng = Lcg(13);
    let e: Vec<f32> = (0..nx * ny).map(|_| rng.unit() as f32).collect();
    let h: Vec<f32> = (0..nx * ny).map(|_| rng.unit() as f32).collect();
    let (gain, damping) = (0.125f32, 0.7f64);
    let out = run(
        src,
        &[],
        [ny.div_ceil(32) as u32, nx.div_ceil(8) as u32, 1],
        [32, 8, 1],
        vec![
            ("e", A::Buf(f32s(&e))),
            ("h", A::Buf(f32s(&h))),
            ("gain", A::F32(gain)),
            ("damping", A::F64(damping)),
            ("nx", A::Int(nx as i64)),
            ("ny", A::Int(ny as i64)),
        ],
    );
    let got = words(buffer(&out, "e"));
    for i in 0..nx {
        for j in 0..ny {
            let k = i * ny + j;
            let want = if j > 0 {
                let d = f64::from(e[k]) - damping * f64::from(h[k] - h[k - 1]) + f64::from(gain);
                d as f32
            } else {
                e[k]
            };
            assert_eq!(f32::from_bits(got[k]), want, "e[{i}][{j}]");
        }
    }
}
