//! Whole-program differential test of the floating-point group: random straight-line
//! programs (f32/f64/f16 arithmetic with every source modifier, `sat`, every `rm` including
//! `dyn` under `mode` writes, `fflags`/`mode` reads and writes, compares into uniform masks,
//! every exactly specified conversion, SFU `fdiv`/`fsqrt`/`frcp` with `waitcnt sfu=0`, EXEC
//! changes, trap enables) run by `warpkit run --dump-state` and compared, register for
//! register and flag for flag, with [`Model`]: an interpreter of the generated step list
//! (never of the encoding) that computes every value with `rustc_apfloat` (LLVM's APFloat,
//! independent of warpkit-float) and implements the documented rules of docs/provisional.md
//! ("Floating point": flushing, `sat`, modifiers, canonical NaNs, traps) on its own.
//!
//! `WARPKIT_FP_PROGRAMS=N` runs N programs (default 12) and `WARPKIT_FP_SEED=S` starts from
//! another seed. A failing program is reduced to its first diverging step and printed.

use rustc_apfloat::ieee::{self, IeeeFloat, Semantics};
use rustc_apfloat::{Float, FloatConvert, Round as AR, Status, StatusAnd};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

const NX: u32 = 1;
const UF: u32 = 2;
const OF: u32 = 4;
const DZ: u32 = 8;
const NV: u32 = 16;
const LANES: usize = 32;

// ---- formats ---------------------------------------------------------------------------

/// The same precision with a 20-bit exponent: rounding there is rounding with an unbounded
/// exponent range, which IEEE's overflow and after-rounding tininess tests are defined on.
/// (apfloat's own OVERFLOW/UNDERFLOW differ from IEEE in directed modes.)
macro_rules! wide {
    ($name:ident, $frac:literal) => {
        struct $name;
        impl Semantics for $name {
            const BITS: usize = 1 + 20 + $frac;
            const EXP_BITS: usize = 20;
        }
    };
}
wide!(WideHalf, 10);
wide!(WideBf, 7);
wide!(WideSingle, 23);
wide!(WideDouble, 52);

/// A value type of the ISA: its apfloat format and its wide twin.
trait Fmt {
    type S: Semantics;
    type WS: Semantics;
    const TY: Ty;
}
struct H16;
struct B16;
struct S32;
struct D64;
impl Fmt for H16 {
    type S = ieee::HalfS;
    type WS = WideHalf;
    const TY: Ty = Ty::F16;
}
impl Fmt for B16 {
    type S = ieee::BFloatS;
    type WS = WideBf;
    const TY: Ty = Ty::Bf16;
}
impl Fmt for S32 {
    type S = ieee::SingleS;
    type WS = WideSingle;
    const TY: Ty = Ty::F32;
}
impl Fmt for D64 {
    type S = ieee::DoubleS;
    type WS = WideDouble;
    const TY: Ty = Ty::F64;
}
type N<F> = IeeeFloat<<F as Fmt>::S>;
type W<F> = IeeeFloat<<F as Fmt>::WS>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    F16,
    Bf16,
    F32,
    F64,
}

impl Ty {
    fn exp_frac(self) -> (u32, u32) {
        match self {
            Ty::F16 => (5, 10),
            Ty::Bf16 => (8, 7),
            Ty::F32 => (8, 23),
            Ty::F64 => (11, 52),
        }
    }
    fn sign(self) -> u64 {
        let (e, f) = self.exp_frac();
        1 << (e + f)
    }
    fn inf(self) -> u64 {
        let (e, f) = self.exp_frac();
        ((1 << e) - 1) << f
    }
    fn canonical_nan(self) -> u64 {
        let (_, f) = self.exp_frac();
        self.inf() | (1 << (f - 1))
    }
    fn one(self) -> u64 {
        let (e, f) = self.exp_frac();
        ((1 << (e - 1)) - 1) << f
    }
    fn is_nan(self, x: u64) -> bool {
        x & !self.sign() > self.inf()
    }
    fn is_subnormal(self, x: u64) -> bool {
        x & self.inf() == 0 && x & !self.sign() != 0
    }
    /// Whether `mode` flushes this type's subnormals (docs/provisional.md: `mode[3]` f32,
    /// `mode[4]` f16, never f64 or bf16).
    fn flushed_by(self, mode: u32) -> bool {
        match self {
            Ty::F32 => mode & 8 != 0,
            Ty::F16 => mode & 16 != 0,
            _ => false,
        }
    }
}

fn ar(rm: u32) -> AR {
    match rm {
        0 => AR::NearestTiesToEven,
        1 => AR::TowardZero,
        2 => AR::TowardNegative,
        3 => AR::TowardPositive,
        4 => AR::NearestTiesToAway,
        _ => unreachable!("rounding mode {rm}"),
    }
}

fn n<F: Fmt>(b: u64) -> N<F> {
    N::<F>::from_bits(u128::from(b))
}

fn exact<A: Float + FloatConvert<B>, B: Float>(x: A) -> B {
    let mut lost = false;
    let r = x.convert_r(AR::NearestTiesToEven, &mut lost);
    assert!(!lost || x.is_nan(), "widening must be exact");
    r.value
}

fn w<F: Fmt>(b: u64) -> W<F> {
    exact(n::<F>(b))
}

/// Bits and flags from apfloat's narrow result and the same operation rounded with an
/// unbounded exponent: OF when that exceeds the largest finite number, UF when it is below
/// the smallest normal and the delivered result is inexact (tininess after rounding).
fn finish<F: Fmt>(narrow: StatusAnd<N<F>>, wide: Option<W<F>>, nv: bool) -> (u64, u32) {
    let v = narrow.value;
    let bits = if v.is_nan() {
        F::TY.canonical_nan()
    } else {
        v.to_bits() as u64
    };
    let st = narrow.status;
    let mut flags = 0;
    if nv || st.contains(Status::INVALID_OP) {
        flags |= NV;
    }
    if st.contains(Status::DIV_BY_ZERO) {
        flags |= DZ;
    }
    if st.contains(Status::INEXACT) {
        flags |= NX;
    }
    if let Some(wv) = wide.filter(|x| x.is_finite_non_zero()) {
        let max: W<F> = exact(N::<F>::largest());
        let min_normal: W<F> = exact(N::<F>::smallest_normalized());
        if wv.abs() > max {
            flags |= OF | NX;
        }
        if flags & NX != 0 && wv.abs() < min_normal {
            flags |= UF;
        }
    }
    (bits, flags)
}

// ---- operations ------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ar {
    Add,
    Sub,
    Mul,
    Fma,
    Min,
    Max,
    Div,
    Sqrt,
}

fn arith<F: Fmt>(op: Ar, x: [u64; 3], rm: u32) -> (u64, u32) {
    let (a, b, c) = (n::<F>(x[0]), n::<F>(x[1]), n::<F>(x[2]));
    let (wa, wb, wc) = (w::<F>(x[0]), w::<F>(x[1]), w::<F>(x[2]));
    let r = ar(rm);
    let arity = match op {
        Ar::Sqrt => 1,
        Ar::Fma => 3,
        _ => 2,
    };
    let snan = [a, b, c][..arity].iter().any(|v| v.is_signaling());
    match op {
        Ar::Add => finish::<F>(a.add_r(b, r), Some(wa.add_r(wb, r).value), snan),
        Ar::Sub => finish::<F>(a.sub_r(b, r), Some(wa.sub_r(wb, r).value), snan),
        Ar::Mul => finish::<F>(a.mul_r(b, r), Some(wa.mul_r(wb, r).value), snan),
        Ar::Div => finish::<F>(a.div_r(b, r), Some(wa.div_r(wb, r).value), snan),
        Ar::Fma => {
            // RISC-V: inf × 0 is invalid even when the addend is a quiet NaN.
            let inf_zero = (a.is_infinite() && b.is_zero()) || (a.is_zero() && b.is_infinite());
            finish::<F>(
                a.mul_add_r(b, c, r),
                Some(wa.mul_add_r(wb, wc, r).value),
                snan || inf_zero,
            )
        }
        Ar::Min | Ar::Max => min_max::<F>(op == Ar::Max, x[0], x[1]),
        Ar::Sqrt => sqrt::<F>(x[0], rm),
    }
}

/// minimumNumber / maximumNumber with −0 < +0.
fn min_max<F: Fmt>(max: bool, xa: u64, xb: u64) -> (u64, u32) {
    let (a, b) = (n::<F>(xa), n::<F>(xb));
    let flags = if a.is_signaling() || b.is_signaling() {
        NV
    } else {
        0
    };
    let bits = match (a.is_nan(), b.is_nan()) {
        (true, true) => F::TY.canonical_nan(),
        (true, false) => xb,
        (false, true) => xa,
        _ => {
            let a_first = if a.is_zero() && b.is_zero() {
                a.is_negative() != max
            } else {
                (a < b) != max
            };
            if a_first || a == b && !(a.is_zero() && b.is_zero()) {
                xa
            } else {
                xb
            }
        }
    };
    (bits, flags)
}

/// Correctly rounded square root: the candidate from the host's binary64 square root is
/// moved until it brackets the exact root, checked by exact squares in binary128 (apfloat
/// has no square root).
fn sqrt<F: Fmt>(x: u64, rm: u32) -> (u64, u32) {
    let a = n::<F>(x);
    if a.is_nan() {
        return (F::TY.canonical_nan(), if a.is_signaling() { NV } else { 0 });
    }
    if a.is_zero() {
        return (x, 0);
    }
    if a.is_negative() {
        return (F::TY.canonical_nan(), NV);
    }
    if a.is_infinite() {
        return (x, 0);
    }
    let q = |v: N<F>| -> ieee::Quad { exact(v) };
    let xq = q(a);
    let sq = |v: N<F>| {
        let r = q(v).mul_r(q(v), AR::NearestTiesToEven);
        assert!(!r.status.contains(Status::INEXACT));
        r.value
    };
    let host: ieee::Double = exact(a);
    let guess = f64::from_bits(host.to_bits() as u64).sqrt();
    let mut lost = false;
    let mut lo: N<F> = ieee::Double::from_bits(u128::from(guess.to_bits()))
        .convert_r(AR::TowardZero, &mut lost)
        .value;
    while sq(lo) > xq {
        lo = lo.next_down().value;
    }
    while sq(lo.next_up().value) <= xq {
        lo = lo.next_up().value;
    }
    if sq(lo) == xq {
        return (lo.to_bits() as u64, 0);
    }
    let hi = lo.next_up().value;
    let half = ieee::Quad::from_bits(0x3ffe_u128 << 112);
    let mid = q(lo)
        .add_r(q(hi), AR::NearestTiesToEven)
        .value
        .mul_r(half, AR::NearestTiesToEven)
        .value; // exact: one more bit than the format
    let mid_sq = mid.mul_r(mid, AR::NearestTiesToEven);
    assert!(!mid_sq.status.contains(Status::INEXACT));
    let up = match rm {
        1 | 2 => false,
        3 => true,
        _ => match xq.partial_cmp(&mid_sq.value).unwrap() {
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => rm == 4 || lo.to_bits() & 1 == 1,
        },
    };
    let r = if up { hi } else { lo };
    (r.to_bits() as u64, NX)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cond {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    O,
    U,
}
const CONDS: [Cond; 8] = [
    Cond::Eq,
    Cond::Ne,
    Cond::Lt,
    Cond::Le,
    Cond::Gt,
    Cond::Ge,
    Cond::O,
    Cond::U,
];

impl Cond {
    fn name(self) -> &'static str {
        match self {
            Cond::Eq => "eq",
            Cond::Ne => "ne",
            Cond::Lt => "lt",
            Cond::Le => "le",
            Cond::Gt => "gt",
            Cond::Ge => "ge",
            Cond::O => "o",
            Cond::U => "u",
        }
    }
}

fn compare<F: Fmt>(cond: Cond, xa: u64, xb: u64) -> (bool, u32) {
    use std::cmp::Ordering::*;
    let (a, b) = (n::<F>(xa), n::<F>(xb));
    let unordered = a.is_nan() || b.is_nan();
    let snan = a.is_signaling() || b.is_signaling();
    let ord = a.partial_cmp(&b);
    let signaling = matches!(cond, Cond::Lt | Cond::Le | Cond::Gt | Cond::Ge);
    let flags = if snan || (signaling && unordered) {
        NV
    } else {
        0
    };
    let r = match cond {
        Cond::Eq => ord == Some(Equal),
        Cond::Ne => ord != Some(Equal),
        Cond::Lt => ord == Some(Less),
        Cond::Le => matches!(ord, Some(Less | Equal)),
        Cond::Gt => ord == Some(Greater),
        Cond::Ge => matches!(ord, Some(Greater | Equal)),
        Cond::O => !unordered,
        Cond::U => unordered,
    };
    (r, flags)
}

fn float_to_float<A: Fmt, B: Fmt>(x: u64, rm: u32) -> (u64, u32)
where
    N<A>: FloatConvert<N<B>> + FloatConvert<W<B>>,
{
    let a = n::<A>(x);
    if a.is_nan() {
        return (B::TY.canonical_nan(), if a.is_signaling() { NV } else { 0 });
    }
    let mut lost = false;
    let narrow: StatusAnd<N<B>> = a.convert_r(ar(rm), &mut lost);
    let wide: W<B> = a.convert_r(ar(rm), &mut lost).value;
    finish::<B>(narrow, Some(wide), false)
}

fn int_to_float<B: Fmt>(v: i64, rm: u32) -> (u64, u32) {
    let r = N::<B>::from_i128_r(i128::from(v), ar(rm));
    finish::<B>(r, None, false)
}

/// RISC-V `fcvt.w`/`fcvt.wu`: round in `rm`, saturate out-of-range values and NaN (NaN →
/// the largest value) with NV and without NX.
fn float_to_int<A: Fmt>(x: u64, signed: bool, rm: u32) -> (u64, u32) {
    let (lo, hi): (i128, i128) = if signed {
        (i128::from(i32::MIN), i128::from(i32::MAX))
    } else {
        (0, i128::from(u32::MAX))
    };
    let a = n::<A>(x);
    let wrap = |v: i128| (v as i64 as u64) & 0xffff_ffff;
    if a.is_nan() {
        return (wrap(hi), NV);
    }
    if a.is_infinite() {
        return (wrap(if a.is_negative() { lo } else { hi }), NV);
    }
    let rounded = a.round_to_integral(ar(rm));
    let mut is_exact = false;
    let as_int = rounded.value.to_i128_r(128, AR::TowardZero, &mut is_exact);
    let v = as_int.value;
    if as_int.status.contains(Status::INVALID_OP) || v < lo || v > hi {
        return (wrap(if a.is_negative() { lo } else { hi }), NV);
    }
    let nx = if rounded.value.partial_cmp(&a) == Some(std::cmp::Ordering::Equal) {
        0
    } else {
        NX
    };
    (wrap(v), nx)
}

// ---- programs ----------------------------------------------------------------------------

/// Where a floating-point operand lives.
#[derive(Clone, Copy, Debug)]
enum Reg {
    /// One 32-bit register.
    R32(u8),
    /// An even pair.
    R64(u8),
    /// A half: register, high?
    Half(u8, bool),
}

impl Reg {
    fn text(self) -> String {
        match self {
            Reg::R32(r) => format!("v{r}"),
            Reg::R64(r) => format!("v[{r}:{}]", r + 1),
            Reg::Half(r, h) => format!("v{r}.{}", if h { 'h' } else { 'l' }),
        }
    }
}

/// What an instruction computes, per lane, from its modified sources.
#[derive(Clone, Copy, Debug)]
enum Calc {
    Arith(Ty, Ar),
    /// `frcp.f32`: 1/x correctly rounded in rne (docs/provisional.md, SFU).
    Rcp,
    FloatToFloat(Ty, Ty),
    IntToFloat {
        signed: bool,
        to: Ty,
    },
    FloatToInt {
        from: Ty,
        signed: bool,
    },
}

#[derive(Clone, Debug)]
enum Step {
    /// A vector floating-point instruction (SFU ones with `waitcnt sfu=0`; `exec_between`
    /// changes EXEC between issue and the wait).
    Vector {
        mnemonic: &'static str,
        calc: Calc,
        dst: Reg,
        /// The type the destination holds (`None`: an integer).
        dst_ty: Option<Ty>,
        srcs: Vec<(Reg, Option<Ty>)>,
        neg: u32,
        abs: u32,
        sat: bool,
        /// `None` for instructions without `rm`; `Some(7)` is `dyn`, written by omission.
        rm: Option<u32>,
        /// Write `rm=dyn` out instead of omitting it.
        explicit_dyn: bool,
        sfu: bool,
        exec_between: Option<u32>,
    },
    Compare {
        ty: Ty,
        cond: Cond,
        dst: u8,
        a: Reg,
        b: Reg,
    },
    /// `umov.l u1, value` then `csrw`/`csrs`/`csrc` of `mode` or `fflags`.
    CsrWrite {
        csr: &'static str,
        how: &'static str,
        value: u32,
    },
    CsrRead {
        csr: &'static str,
        dst: u8,
    },
    /// `umov.l u1, mask` then `exec.set u1` or a `saveexec.*` into `dst`.
    Exec {
        how: &'static str,
        mask: u32,
        dst: u8,
    },
    ExecGet(u8),
}

impl Step {
    fn text(&self, out: &mut String) {
        match self {
            Step::Vector {
                mnemonic,
                dst,
                srcs,
                neg,
                abs,
                sat,
                rm,
                explicit_dyn,
                sfu,
                exec_between,
                ..
            } => {
                let _ = write!(out, "{mnemonic} {}", dst.text());
                for (k, (r, _)) in srcs.iter().enumerate() {
                    let t = r.text();
                    let t = if abs & (1 << k) != 0 {
                        format!("|{t}|")
                    } else {
                        t
                    };
                    let t = if neg & (1 << k) != 0 {
                        format!("-{t}")
                    } else {
                        t
                    };
                    let _ = write!(out, ", {t}");
                }
                let mut mods = Vec::new();
                if *sat {
                    mods.push("sat".to_string());
                }
                match rm {
                    Some(7) if !explicit_dyn => {}
                    Some(m) => mods.push(format!(
                        "rm={}",
                        ["rne", "rtz", "rdn", "rup", "rmm", "", "", "dyn"][*m as usize]
                    )),
                    None => {}
                }
                if neg.count_ones() % 2 == 1 {
                    mods.reverse(); // any order is accepted
                }
                for m in mods {
                    let _ = write!(out, " {m}");
                }
                out.push('\n');
                if *sfu {
                    if let Some(e) = exec_between {
                        let _ = writeln!(out, "umov.l u1, {e:#x}\nexec.set u1");
                    }
                    out.push_str("waitcnt sfu=0\n");
                }
            }
            Step::Compare {
                ty,
                cond,
                dst,
                a,
                b,
            } => {
                let t = match ty {
                    Ty::F16 => "f16",
                    Ty::F32 => "f32",
                    _ => "f64",
                };
                let _ = writeln!(
                    out,
                    "fcmp.{}.{t} u{dst}, {}, {}",
                    cond.name(),
                    a.text(),
                    b.text()
                );
            }
            Step::CsrWrite { csr, how, value } => {
                let _ = writeln!(out, "umov.l u1, {value:#x}\n{how} {csr}, u1");
            }
            Step::CsrRead { csr, dst } => {
                let _ = writeln!(out, "csrr u{dst}, {csr}");
            }
            Step::Exec { how, mask, dst } => {
                let _ = writeln!(out, "umov.l u1, {mask:#x}");
                if *how == "exec.set" {
                    let _ = writeln!(out, "exec.set u1");
                } else {
                    let _ = writeln!(out, "{how} u{dst}, u1");
                }
            }
            Step::ExecGet(d) => {
                let _ = writeln!(out, "exec.get u{d}");
            }
        }
    }
}

// ---- the reference model ------------------------------------------------------------------

#[derive(Clone, PartialEq, Eq, Debug)]
struct State {
    v: Vec<[u32; LANES]>,
    u: [u32; 64],
    exec: u32,
    mode: u32,
    fflags: u32,
    /// (cause, info) of the trap that stopped the program.
    trap: Option<(u32, u32)>,
}

struct Model {
    s: State,
}

impl Model {
    fn read(&self, r: Reg, lane: usize) -> u64 {
        match r {
            Reg::R32(x) => u64::from(self.s.v[usize::from(x)][lane]),
            Reg::R64(x) => {
                let x = usize::from(x);
                u64::from(self.s.v[x][lane]) | u64::from(self.s.v[x + 1][lane]) << 32
            }
            Reg::Half(x, h) => {
                u64::from(self.s.v[usize::from(x)][lane] >> (16 * u32::from(h)) & 0xffff)
            }
        }
    }

    fn write(&mut self, r: Reg, lane: usize, val: u64) {
        match r {
            Reg::R32(x) => self.s.v[usize::from(x)][lane] = val as u32,
            Reg::R64(x) => {
                let x = usize::from(x);
                self.s.v[x][lane] = val as u32;
                self.s.v[x + 1][lane] = (val >> 32) as u32;
            }
            Reg::Half(x, h) => {
                let sh = 16 * u32::from(h);
                let cell = &mut self.s.v[usize::from(x)][lane];
                *cell = (*cell & !(0xffff << sh)) | ((val as u32 & 0xffff) << sh);
            }
        }
    }

    /// Apply one step; false once the program has trapped.
    fn step(&mut self, step: &Step) -> bool {
        match step {
            Step::Vector {
                calc,
                dst,
                dst_ty,
                srcs,
                neg,
                abs,
                sat,
                rm,
                sfu,
                exec_between,
                ..
            } => {
                let mode = self.s.mode;
                let rm = match rm {
                    Some(7) => mode & 7,
                    Some(m) => *m,
                    None => 0,
                };
                let mut results = [None; LANES];
                let mut flags = 0;
                for (lane, slot) in results.iter_mut().enumerate() {
                    if self.s.exec & (1 << lane) == 0 {
                        continue;
                    }
                    let mut x = [0u64; 3];
                    for (k, &(r, ty)) in srcs.iter().enumerate() {
                        let mut v = self.read(r, lane);
                        if let Some(ty) = ty {
                            if ty.flushed_by(mode) && ty.is_subnormal(v) {
                                v &= ty.sign();
                            }
                            if abs & (1 << k) != 0 {
                                v &= !ty.sign();
                            }
                            if neg & (1 << k) != 0 {
                                v ^= ty.sign();
                            }
                        }
                        x[k] = v;
                    }
                    let (mut r, mut f) = calculate(*calc, x, rm);
                    if let Some(ty) = dst_ty {
                        if ty.flushed_by(mode) && ty.is_subnormal(r) {
                            r &= ty.sign();
                            f |= UF | NX;
                        }
                        if *sat {
                            r = if ty.is_nan(r) || r & ty.sign() != 0 {
                                0
                            } else if r > ty.one() {
                                ty.one()
                            } else {
                                r
                            };
                        }
                    }
                    *slot = Some(r);
                    flags |= f;
                }
                if flags & (mode >> 5) & 31 != 0 {
                    self.s.trap = Some((6, flags));
                    return false;
                }
                self.s.fflags |= flags;
                for (lane, r) in results.iter().enumerate() {
                    if let Some(r) = r {
                        self.write(*dst, lane, *r);
                    }
                }
                if *sfu {
                    if let Some(e) = exec_between {
                        self.s.u[1] = *e;
                        self.s.exec = *e;
                    }
                }
            }
            Step::Compare {
                ty,
                cond,
                dst,
                a,
                b,
            } => {
                let mode = self.s.mode;
                let mut mask = 0;
                let mut flags = 0;
                for lane in 0..LANES {
                    if self.s.exec & (1 << lane) == 0 {
                        continue;
                    }
                    let rd = |r| {
                        let v = self.read(r, lane);
                        if ty.flushed_by(mode) && ty.is_subnormal(v) {
                            v & ty.sign()
                        } else {
                            v
                        }
                    };
                    let (xa, xb) = (rd(*a), rd(*b));
                    let (t, f) = match ty {
                        Ty::F16 => compare::<H16>(*cond, xa, xb),
                        Ty::F32 => compare::<S32>(*cond, xa, xb),
                        _ => compare::<D64>(*cond, xa, xb),
                    };
                    mask |= u32::from(t) << lane;
                    flags |= f;
                }
                if flags & (mode >> 5) & 31 != 0 {
                    self.s.trap = Some((6, flags));
                    return false;
                }
                self.s.fflags |= flags;
                self.s.u[usize::from(*dst)] = mask;
            }
            Step::CsrWrite { csr, how, value } => {
                self.s.u[1] = *value;
                let old = if *csr == "mode" {
                    self.s.mode
                } else {
                    self.s.fflags
                };
                let new = match *how {
                    "csrw" => *value,
                    "csrs" => old | value,
                    _ => old & !value,
                };
                if *csr == "mode" {
                    self.s.mode = new;
                } else {
                    self.s.fflags = new & 31;
                }
            }
            Step::CsrRead { csr, dst } => {
                self.s.u[usize::from(*dst)] = if *csr == "mode" {
                    self.s.mode
                } else {
                    self.s.fflags
                };
            }
            Step::Exec { how, mask, dst } => {
                self.s.u[1] = *mask;
                let old = self.s.exec;
                self.s.exec = match *how {
                    "exec.set" => *mask,
                    "saveexec.and" => old & mask,
                    "saveexec.or" => old | mask,
                    "saveexec.xor" => old ^ mask,
                    _ => old & !mask, // saveexec.andn2
                };
                if *how != "exec.set" {
                    self.s.u[usize::from(*dst)] = old;
                }
            }
            Step::ExecGet(d) => self.s.u[usize::from(*d)] = self.s.exec,
        }
        true
    }
}

fn calculate(calc: Calc, x: [u64; 3], rm: u32) -> (u64, u32) {
    match calc {
        Calc::Arith(Ty::F16, op) => arith::<H16>(op, x, rm),
        Calc::Arith(Ty::F32, op) => arith::<S32>(op, x, rm),
        Calc::Arith(_, op) => arith::<D64>(op, x, rm),
        Calc::Rcp => arith::<S32>(Ar::Div, [0x3f80_0000, x[0], 0], 0),
        Calc::FloatToFloat(from, to) => match (from, to) {
            (Ty::F32, Ty::F64) => float_to_float::<S32, D64>(x[0], rm),
            (Ty::F64, Ty::F32) => float_to_float::<D64, S32>(x[0], rm),
            (Ty::F32, Ty::F16) => float_to_float::<S32, H16>(x[0], rm),
            (Ty::F16, Ty::F32) => float_to_float::<H16, S32>(x[0], rm),
            (Ty::F32, Ty::Bf16) => float_to_float::<S32, B16>(x[0], rm),
            (Ty::Bf16, Ty::F32) => float_to_float::<B16, S32>(x[0], rm),
            other => unreachable!("{other:?}"),
        },
        Calc::IntToFloat { signed, to } => {
            let v = if signed {
                i64::from(x[0] as u32 as i32)
            } else {
                i64::from(x[0] as u32)
            };
            match to {
                Ty::F32 => int_to_float::<S32>(v, rm),
                _ => int_to_float::<D64>(v, rm),
            }
        }
        Calc::FloatToInt { from, signed } => match from {
            Ty::F32 => float_to_int::<S32>(x[0], signed, rm),
            _ => float_to_int::<D64>(x[0], signed, rm),
        },
    }
}

// ---- random programs ------------------------------------------------------------------

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// The register pools: f32 values, f64 pairs, f16 (and bf16) halves, 32-bit integers.
const F32_REGS: std::ops::Range<u8> = 0..16;
const F64_PAIRS: std::ops::Range<u8> = 16..28; // v16..v27: six pairs
const HALF_REGS: std::ops::Range<u8> = 28..34;
const INT_REGS: std::ops::Range<u8> = 34..38;

/// A lane value of type `ty`: special classes, values near ties, the subnormal and overflow
/// boundaries, moderate values that interact, and random bits.
fn value(rng: &mut Rng, ty: Ty) -> u64 {
    let (e, f) = ty.exp_frac();
    let sign = if rng.chance(1, 2) { ty.sign() } else { 0 };
    let frac_mask = (1u64 << f) - 1;
    let emax = (1u64 << e) - 1;
    let bias = (1u64 << (e - 1)) - 1;
    // Fractions with many trailing zeros make exact sums, ties and exact products likely.
    let frac = |rng: &mut Rng| {
        let k = rng.below(u64::from(f) + 1);
        rng.next() & frac_mask & !((1u64 << k) - 1)
    };
    let magnitude = match rng.below(10) {
        0 => rng.pick(&[
            0,
            1,
            frac_mask,
            1 << f,
            ty.one(),
            ty.one() + 1,
            ty.one() - 1,
            ty.one() | (1 << (f - 1)),
            ty.inf() - 1,
            ty.inf(),
        ]),
        1 => {
            // NaNs: canonical, quiet with a payload, signaling with a payload.
            let payload = (rng.next() & (frac_mask >> 1)).max(1);
            rng.pick(&[
                ty.canonical_nan(),
                ty.canonical_nan() | payload,
                ty.inf() | payload,
            ])
        }
        2 => rng.next() & frac_mask,                     // subnormal
        3 => (rng.below(3) + 1) << f | frac(rng),        // just above the subnormals
        4 => (emax - 1 - rng.below(2)) << f | frac(rng), // near overflow
        5 => rng.next() & (ty.inf() | frac_mask),        // any bits
        _ => (bias - 3 + rng.below(7)) << f | frac(rng), // 1/8 .. 8
    };
    sign | magnitude
}

fn int_value(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => rng.pick(&[
            0,
            1,
            u32::MAX,
            0x7fff_ffff,
            0x8000_0000,
            0x0100_0001,
            0xfeff_ffff,
        ]),
        1 => (rng.below(2001) as i32 - 1000) as u32,
        2 => (1u32 << rng.below(32))
            .wrapping_add(rng.below(3) as u32)
            .wrapping_sub(1),
        _ => rng.next() as u32,
    }
}

struct Pools;
impl Pools {
    fn f32(rng: &mut Rng) -> Reg {
        Reg::R32(F32_REGS.start + rng.below(u64::from(F32_REGS.end - F32_REGS.start)) as u8)
    }
    fn f64(rng: &mut Rng) -> Reg {
        let pairs = u64::from(F64_PAIRS.end - F64_PAIRS.start) / 2;
        Reg::R64(F64_PAIRS.start + 2 * rng.below(pairs) as u8)
    }
    fn half(rng: &mut Rng) -> Reg {
        Reg::Half(
            HALF_REGS.start + rng.below(u64::from(HALF_REGS.end - HALF_REGS.start)) as u8,
            rng.chance(1, 2),
        )
    }
    fn int(rng: &mut Rng) -> Reg {
        Reg::R32(INT_REGS.start + rng.below(u64::from(INT_REGS.end - INT_REGS.start)) as u8)
    }
    fn of(rng: &mut Rng, ty: Ty) -> Reg {
        match ty {
            Ty::F16 | Ty::Bf16 => Self::half(rng),
            Ty::F32 => Self::f32(rng),
            Ty::F64 => Self::f64(rng),
        }
    }
}

fn mask(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => u32::MAX,
        1 => 0,
        2 => 1 << rng.below(32),
        _ => rng.next() as u32,
    }
}

/// A uniform destination that is not the scratch register u1.
fn udst(rng: &mut Rng) -> u8 {
    2 + rng.below(30) as u8
}

/// A vector instruction's shape: mnemonic, computation, destination type (`None`: an
/// integer), source types, SFU?, `rm` (`None`: none), `sat` allowed?, `neg`/`abs` allowed?
type Shape = (
    &'static str,
    Calc,
    Option<Ty>,
    Vec<Option<Ty>>,
    bool,
    Option<u32>,
    bool,
    bool,
);

fn random_step(rng: &mut Rng, trap_enables: bool) -> Step {
    let roll = rng.below(100);
    if roll < 4 {
        // A `mode` write: rounding mode, flush bits, and (rarely) trap enables.
        let mut value = rng.below(5) as u32 | (rng.below(4) as u32) << 3;
        if trap_enables && rng.chance(1, 3) {
            value |= 1 << (5 + rng.below(5));
        }
        let how = rng.pick(&["csrw", "csrw", "csrs", "csrc"]);
        if how != "csrw" {
            // Keep the combined value legal: set or clear only flush and rounding bits
            // that cannot form a reserved rounding mode.
            value &= 0b11000;
        }
        return Step::CsrWrite {
            csr: "mode",
            how,
            value,
        };
    }
    if roll < 7 {
        return Step::CsrWrite {
            csr: "fflags",
            how: rng.pick(&["csrw", "csrs", "csrc"]),
            value: rng.next() as u32,
        };
    }
    if roll < 11 {
        return Step::CsrRead {
            csr: rng.pick(&["mode", "fflags"]),
            dst: udst(rng),
        };
    }
    if roll < 15 {
        return Step::Exec {
            how: rng.pick(&[
                "exec.set",
                "exec.set",
                "saveexec.and",
                "saveexec.or",
                "saveexec.xor",
                "saveexec.andn2",
            ]),
            mask: mask(rng),
            dst: udst(rng),
        };
    }
    if roll < 16 {
        return Step::ExecGet(udst(rng));
    }
    if roll < 26 {
        let ty = rng.pick(&[Ty::F16, Ty::F32, Ty::F64]);
        return Step::Compare {
            ty,
            cond: rng.pick(&CONDS),
            dst: udst(rng),
            a: Pools::of(rng, ty),
            b: Pools::of(rng, ty),
        };
    }
    // A vector instruction.
    let rm = Some(rng.pick(&[0, 1, 2, 3, 4, 7, 7, 7]));
    let explicit_dyn = rng.chance(1, 4);
    let (mnemonic, calc, dst_ty, src_tys, sfu, rm, sat_ok, mods_ok): Shape = if roll < 70 {
        let ty = rng.pick(&[Ty::F16, Ty::F32, Ty::F32, Ty::F64]);
        let op = rng.pick(&[
            Ar::Add,
            Ar::Sub,
            Ar::Mul,
            Ar::Fma,
            Ar::Fma,
            Ar::Min,
            Ar::Max,
        ]);
        let base = match op {
            Ar::Add => "fadd",
            Ar::Sub => "fsub",
            Ar::Mul => "fmul",
            Ar::Fma => "ffma",
            Ar::Min => "fmin",
            _ => "fmax",
        };
        let suffix = match ty {
            Ty::F16 => "f16",
            Ty::F32 => "f32",
            _ => "f64",
        };
        let mnemonic: &'static str = Box::leak(format!("{base}.{suffix}").into_boxed_str());
        let arity = if op == Ar::Fma { 3 } else { 2 };
        let rm = if matches!(op, Ar::Min | Ar::Max) {
            None
        } else {
            rm
        };
        (
            mnemonic,
            Calc::Arith(ty, op),
            Some(ty),
            vec![Some(ty); arity],
            false,
            rm,
            true,
            true,
        )
    } else if roll < 85 {
        let k = rng.below(12);
        let f = |t| Some(t);
        match k {
            0 => (
                "cvt.f32.i32",
                Calc::IntToFloat {
                    signed: true,
                    to: Ty::F32,
                },
                f(Ty::F32),
                vec![None],
                false,
                rm,
                true,
                false,
            ),
            1 => (
                "cvt.f32.u32",
                Calc::IntToFloat {
                    signed: false,
                    to: Ty::F32,
                },
                f(Ty::F32),
                vec![None],
                false,
                rm,
                true,
                false,
            ),
            2 => (
                "cvt.i32.f32",
                Calc::FloatToInt {
                    from: Ty::F32,
                    signed: true,
                },
                None,
                vec![f(Ty::F32)],
                false,
                rm,
                false,
                true,
            ),
            3 => (
                "cvt.u32.f32",
                Calc::FloatToInt {
                    from: Ty::F32,
                    signed: false,
                },
                None,
                vec![f(Ty::F32)],
                false,
                rm,
                false,
                true,
            ),
            4 => (
                "cvt.f64.f32",
                Calc::FloatToFloat(Ty::F32, Ty::F64),
                f(Ty::F64),
                vec![f(Ty::F32)],
                false,
                rm,
                true,
                true,
            ),
            5 => (
                "cvt.f32.f64",
                Calc::FloatToFloat(Ty::F64, Ty::F32),
                f(Ty::F32),
                vec![f(Ty::F64)],
                false,
                rm,
                true,
                true,
            ),
            6 => (
                "cvt.f64.i32",
                Calc::IntToFloat {
                    signed: true,
                    to: Ty::F64,
                },
                f(Ty::F64),
                vec![None],
                false,
                rm,
                true,
                false,
            ),
            7 => (
                "cvt.i32.f64",
                Calc::FloatToInt {
                    from: Ty::F64,
                    signed: true,
                },
                None,
                vec![f(Ty::F64)],
                false,
                rm,
                false,
                true,
            ),
            8 => (
                "cvt.f16.f32",
                Calc::FloatToFloat(Ty::F32, Ty::F16),
                f(Ty::F16),
                vec![f(Ty::F32)],
                false,
                rm,
                true,
                true,
            ),
            9 => (
                "cvt.f32.f16",
                Calc::FloatToFloat(Ty::F16, Ty::F32),
                f(Ty::F32),
                vec![f(Ty::F16)],
                false,
                rm,
                true,
                true,
            ),
            10 => (
                "cvt.bf16.f32",
                Calc::FloatToFloat(Ty::F32, Ty::Bf16),
                f(Ty::Bf16),
                vec![f(Ty::F32)],
                false,
                rm,
                true,
                true,
            ),
            _ => (
                "cvt.f32.bf16",
                Calc::FloatToFloat(Ty::Bf16, Ty::F32),
                f(Ty::F32),
                vec![f(Ty::Bf16)],
                false,
                rm,
                true,
                true,
            ),
        }
    } else {
        let f = |t| Some(t);
        match rng.below(5) {
            0 => (
                "fdiv.f32",
                Calc::Arith(Ty::F32, Ar::Div),
                f(Ty::F32),
                vec![f(Ty::F32); 2],
                true,
                rm,
                true,
                true,
            ),
            1 => (
                "fsqrt.f32",
                Calc::Arith(Ty::F32, Ar::Sqrt),
                f(Ty::F32),
                vec![f(Ty::F32)],
                true,
                rm,
                true,
                true,
            ),
            2 => (
                "fdiv.f64",
                Calc::Arith(Ty::F64, Ar::Div),
                f(Ty::F64),
                vec![f(Ty::F64); 2],
                true,
                rm,
                true,
                true,
            ),
            3 => (
                "fsqrt.f64",
                Calc::Arith(Ty::F64, Ar::Sqrt),
                f(Ty::F64),
                vec![f(Ty::F64)],
                true,
                rm,
                true,
                true,
            ),
            _ => (
                "frcp.f32",
                Calc::Rcp,
                f(Ty::F32),
                vec![f(Ty::F32)],
                true,
                None,
                true,
                true,
            ),
        }
    };
    let srcs: Vec<(Reg, Option<Ty>)> = src_tys
        .iter()
        .map(|&t| {
            let r = match t {
                Some(t) => Pools::of(rng, t),
                None => Pools::int(rng),
            };
            (r, t)
        })
        .collect();
    let dst = match dst_ty {
        Some(t) => Pools::of(rng, t),
        None => Pools::int(rng),
    };
    let all = (1u32 << srcs.len()) - 1;
    let (neg, abs) = if mods_ok {
        (rng.next() as u32 & all, rng.next() as u32 & all)
    } else {
        (0, 0)
    };
    Step::Vector {
        mnemonic,
        calc,
        dst,
        dst_ty,
        srcs,
        neg,
        abs,
        sat: sat_ok && rng.chance(1, 4),
        rm,
        explicit_dyn,
        sfu,
        exec_between: (sfu && rng.chance(1, 4)).then(|| mask(rng)),
    }
}

struct Program {
    init: State,
    steps: Vec<Step>,
}

// Lane-major on purpose: every register of one lane, then the next, from one stream.
#[allow(clippy::needless_range_loop)]
fn random_program(seed: u64, len: usize) -> Program {
    let mut rng = Rng(seed);
    let mut v = vec![[0u32; LANES]; 128];
    for lane in 0..LANES {
        for r in F32_REGS {
            v[usize::from(r)][lane] = value(&mut rng, Ty::F32) as u32;
        }
        for r in F64_PAIRS.step_by(2) {
            let x = value(&mut rng, Ty::F64);
            v[usize::from(r)][lane] = x as u32;
            v[usize::from(r) + 1][lane] = (x >> 32) as u32;
        }
        for r in HALF_REGS {
            let pick = |rng: &mut Rng| {
                let ty = if rng.chance(1, 5) { Ty::Bf16 } else { Ty::F16 };
                value(rng, ty) as u32
            };
            v[usize::from(r)][lane] = pick(&mut rng) | pick(&mut rng) << 16;
        }
        for r in INT_REGS {
            v[usize::from(r)][lane] = int_value(&mut rng);
        }
    }
    let trap_enables = rng.chance(1, 4);
    let mut steps = Vec::new();
    // Start in a random mode so that `dyn` is exercised from the first instruction.
    steps.push(Step::CsrWrite {
        csr: "mode",
        how: "csrw",
        value: rng.below(5) as u32 | (rng.below(4) as u32) << 3,
    });
    for _ in 0..len {
        steps.push(random_step(&mut rng, trap_enables));
    }
    Program {
        init: State {
            v,
            u: [0; 64],
            exec: u32::MAX,
            mode: 0,
            fflags: 0,
            trap: None,
        },
        steps,
    }
}

impl Program {
    /// The assembly: per-lane register initialisation under one-lane EXEC masks, then the
    /// steps, then `endpgm`.
    fn text(&self, steps: usize) -> String {
        let mut s = String::new();
        let used: Vec<usize> = (0..128)
            .filter(|&r| self.init.v[r].iter().any(|&x| x != 0))
            .collect();
        for lane in 0..LANES {
            let _ = writeln!(s, "umov.l u1, {:#x}\nexec.set u1", 1u32 << lane);
            for &r in &used {
                let _ = writeln!(s, "mov.vl v{r}, {:#x}", self.init.v[r][lane]);
            }
        }
        s.push_str("umov.l u1, 0xffffffff\nexec.set u1\n");
        for st in &self.steps[..steps] {
            st.text(&mut s);
        }
        s.push_str("endpgm\n");
        s
    }

    fn expected(&self, steps: usize) -> State {
        let mut m = Model {
            s: self.init.clone(),
        };
        // The initialisation leaves EXEC all ones and u1 = all ones.
        m.s.u[1] = u32::MAX;
        for st in &self.steps[..steps] {
            if !m.step(st) {
                break;
            }
        }
        m.s
    }
}

// ---- running `warpkit run --dump-state` ------------------------------------------------------

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpkit-float-programs-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_cli(text: &str, name: &str) -> State {
    let d = scratch();
    let src = d.join(format!("{name}.s"));
    let dump = d.join(format!("{name}.json"));
    std::fs::write(&src, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .arg("run")
        .arg(&src)
        .arg("--dump-state")
        .arg(&dump)
        .output()
        .expect("warpkit runs");
    let code = out.status.code();
    assert!(
        code == Some(0) || code == Some(1),
        "warpkit run failed ({code:?}): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&dump).unwrap()).expect("dump is JSON");
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&dump);
    let w = &json["warps"][0];
    let num = |v: &serde_json::Value| v.as_u64().expect("number") as u32;
    let mut v = vec![[0u32; LANES]; 128];
    for (r, row) in w["v"].as_array().unwrap().iter().enumerate() {
        for (lane, x) in row.as_array().unwrap().iter().enumerate() {
            v[r][lane] = num(x);
        }
    }
    let mut u = [0u32; 64];
    for (r, x) in w["u"].as_array().unwrap().iter().enumerate() {
        u[r] = num(x);
    }
    let trap = match &w["trap"] {
        serde_json::Value::Null => None,
        t => Some((num(&t["cause"]), num(&t["info"]))),
    };
    let status = w["status"].as_str().unwrap();
    assert_eq!(
        status,
        if trap.is_some() { "trapped" } else { "ended" },
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    State {
        v,
        u,
        exec: num(&w["exec"]),
        mode: num(&w["csr"]["mode"]),
        fflags: num(&w["csr"]["fflags"]),
        trap,
    }
}

/// The first difference between two states, described.
fn difference(got: &State, want: &State) -> Option<String> {
    for r in 0..128 {
        for lane in 0..LANES {
            if got.v[r][lane] != want.v[r][lane] {
                return Some(format!(
                    "v{r} lane {lane}: warpkit {:#010x}, model {:#010x}",
                    got.v[r][lane], want.v[r][lane]
                ));
            }
        }
    }
    for r in 0..64 {
        if got.u[r] != want.u[r] {
            return Some(format!(
                "u{r}: warpkit {:#x}, model {:#x}",
                got.u[r], want.u[r]
            ));
        }
    }
    let scalars = [
        ("exec", got.exec, want.exec),
        ("mode", got.mode, want.mode),
        ("fflags", got.fflags, want.fflags),
    ];
    for (name, g, m) in scalars {
        if g != m {
            return Some(format!("{name}: warpkit {g:#x}, model {m:#x}"));
        }
    }
    (got.trap != want.trap).then(|| format!("trap: warpkit {:?}, model {:?}", got.trap, want.trap))
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn check_program(seed: u64, len: usize) {
    let p = random_program(seed, len);
    let got = run_cli(&p.text(len), &format!("p{seed}"));
    let want = p.expected(len);
    let Some(diff) = difference(&got, &want) else {
        return;
    };
    // Reduce: the shortest prefix that already differs names the diverging instruction.
    let mut first = len;
    for k in 1..=len {
        let got = run_cli(&p.text(k), &format!("p{seed}-{k}"));
        if difference(&got, &p.expected(k)).is_some() {
            first = k;
            break;
        }
    }
    let mut step = String::new();
    p.steps[first - 1].text(&mut step);
    let mut prefix = String::new();
    for st in &p.steps[..first] {
        st.text(&mut prefix);
    }
    let got = run_cli(&p.text(first), "reduced");
    panic!(
        "program seed {seed}: {diff}\nfirst diverging step {first}: {step}after {prefix}\n\
         at that step: {}",
        difference(&got, &p.expected(first)).unwrap_or_default()
    );
}

#[test]
fn random_float_programs_equal_the_independent_model() {
    let count = env_or("WARPKIT_FP_PROGRAMS", 12);
    let base = env_or("WARPKIT_FP_SEED", 0x5eed_f10a);
    for i in 0..count {
        check_program(base.wrapping_add(i), 60);
    }
}
