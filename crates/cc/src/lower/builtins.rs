//! OpenCL C 1.2 built-in functions: work-item functions, synchronization, the integer and
//! common functions, relational functions, `as_TYPE`, `convert_TYPE[_sat][_ROUNDING]`,
//! 32-bit atomics and the `__builtin_wk_*` intrinsics map to IR operations; the rest of the
//! math library is OpenCL C in the prelude (`__cl_NAME_f32`/`__cl_NAME_f64`), inlined.
//! Calls with vector arguments, and the vector-only built-ins, go to `vector_builtins.rs`
//! first, which applies the scalar forms here lane by lane.

use super::arith::usual_arith;
use super::types::{FloatKind, IntKind, Type};
use super::{Lowerer, Sym, RV};
use crate::ast::Expr;
use crate::ir::{
    AtomicOp, BinOp, CastOp, CmpPred, MathOp, OpKind, Space, Ty, UnOp, ValueId, WorkItem,
};
use crate::source::Span;

/// Built-ins that exist for vectors only (or take a type).
pub(crate) const VECTOR_ONLY: &[&str] = &[
    "vec_step",
    "shuffle",
    "shuffle2",
    "dot",
    "cross",
    "length",
    "distance",
    "normalize",
    "fast_length",
    "fast_distance",
    "fast_normalize",
    "any",
    "all",
];

/// Math functions of OpenCL C 1.2 §6.12.2 that the prelude provides as
/// `__cl_NAME_f32`/`__cl_NAME_f64`.
const MATH_LIBRARY: &[&str] = &[
    "acos",
    "acosh",
    "acospi",
    "asin",
    "asinh",
    "asinpi",
    "atan",
    "atan2",
    "atanh",
    "atanpi",
    "atan2pi",
    "cbrt",
    "ceil",
    "cos",
    "cosh",
    "cospi",
    "erfc",
    "erf",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "fdim",
    "floor",
    "fmod",
    "fract",
    "frexp",
    "hypot",
    "ilogb",
    "ldexp",
    "lgamma",
    "lgamma_r",
    "log",
    "log2",
    "log10",
    "log1p",
    "logb",
    "maxmag",
    "minmag",
    "modf",
    "nan",
    "nextafter",
    "pow",
    "pown",
    "powr",
    "remainder",
    "remquo",
    "rint",
    "rootn",
    "round",
    "sin",
    "sincos",
    "sinh",
    "sinpi",
    "tan",
    "tanh",
    "tanpi",
    "tgamma",
    "trunc",
];

/// Built-ins the compiler knows and does not implement, with the construct they belong to.
fn unsupported_kind(name: &str) -> Option<&'static str> {
    Some(match name {
        "printf" => "printf",
        _ if name.starts_with("read_image")
            || name.starts_with("write_image")
            || name.starts_with("get_image_") =>
        {
            "image built-in"
        }
        "async_work_group_copy" | "async_work_group_strided_copy" | "wait_group_events" => {
            "asynchronous copy built-in"
        }
        _ => return None,
    })
}

const DIRECT: &[&str] = &[
    "get_global_id",
    "get_local_id",
    "get_group_id",
    "get_local_size",
    "get_num_groups",
    "get_global_size",
    "get_global_offset",
    "get_work_dim",
    "barrier",
    "work_group_barrier",
    "mem_fence",
    "read_mem_fence",
    "write_mem_fence",
    "abs",
    "abs_diff",
    "add_sat",
    "sub_sat",
    "hadd",
    "rhadd",
    "clamp",
    "clz",
    "ctz",
    "popcount",
    "mad_hi",
    "mad_sat",
    "max",
    "min",
    "mul_hi",
    "rotate",
    "upsample",
    "mad24",
    "mul24",
    "fabs",
    "fmin",
    "fmax",
    "fma",
    "mad",
    "sqrt",
    "rsqrt",
    "mix",
    "step",
    "smoothstep",
    "sign",
    "degrees",
    "radians",
    "copysign",
    "isnan",
    "isinf",
    "isfinite",
    "isnormal",
    "signbit",
    "isequal",
    "isnotequal",
    "isgreater",
    "isgreaterequal",
    "isless",
    "islessequal",
    "islessgreater",
    "isordered",
    "isunordered",
    "select",
    "bitselect",
    "prefetch",
];

/// The scalar type a built-in's name spells (`convert_uint`, `as_float`).
pub(crate) fn int_kind_named(name: &str) -> Option<Type> {
    Some(match name {
        "char" => Type::Int(IntKind::Char),
        "uchar" => Type::Int(IntKind::UChar),
        "short" => Type::Int(IntKind::Short),
        "ushort" => Type::Int(IntKind::UShort),
        "int" => Type::INT,
        "uint" => Type::UINT,
        "long" => Type::LONG,
        "ulong" => Type::ULONG,
        "float" => Type::FLOAT,
        "double" => Type::DOUBLE,
        "half" => Type::Float(FloatKind::Half),
        _ => return None,
    })
}

/// The parts of a `convert_` name after the prefix: the type's name, `_sat`, the rounding
/// mode; `None` when the suffixes are malformed.
pub(crate) fn parse_convert(rest: &str) -> Option<(&str, bool, Option<&str>)> {
    let mut parts = rest.split('_');
    let tname = parts.next().unwrap_or("");
    let mut sat = false;
    let mut rounding: Option<&str> = None;
    for p in parts {
        match p {
            "sat" if rounding.is_none() && !sat => sat = true,
            "rte" | "rtz" | "rtp" | "rtn" if rounding.is_none() => rounding = Some(p),
            _ => return None,
        }
    }
    Some((tname, sat, rounding))
}

/// Whether `name` is a built-in function this module handles (or reports).
fn is_builtin(name: &str) -> bool {
    DIRECT.contains(&name)
        || VECTOR_ONLY.contains(&name)
        || name.starts_with("vload")
        || name.starts_with("vstore")
        || MATH_LIBRARY.contains(&name)
        || unsupported_kind(name).is_some()
        || name.starts_with("native_")
        || name.starts_with("half_")
        || name.starts_with("as_")
        || name.starts_with("convert_")
        || name.starts_with("atomic_")
        || name.starts_with("atom_")
        || name.starts_with("__builtin_wk_")
}

impl<'a> Lowerer<'a> {
    /// A call of built-in `name`, or `None` when `name` is not one.
    pub(crate) fn builtin_call(&mut self, name: &str, args: &[Expr], e: &Expr) -> Option<RV> {
        if !is_builtin(name) {
            return None;
        }
        let span = e.span;
        if let Some(kind) = unsupported_kind(name) {
            for a in args {
                self.expr(a);
            }
            if kind == name {
                self.unsupported(span, kind);
            } else {
                self.unsupported(span, format_args!("{kind} '{name}'"));
            }
            return Some(RV::error());
        }
        if name == "vec_step" {
            return Some(self.vec_step(args, e));
        }
        let rvs: Vec<RV> = args.iter().map(|a| self.expr(a)).collect();
        if rvs.iter().any(|r| r.ty.is_error()) {
            return Some(RV::error());
        }
        if name == "prefetch" {
            // A hint about the cache: no effect on what the program computes.
            return Some(RV::void());
        }
        if let Some(r) = self.vector_builtin(name, &rvs, args, e) {
            return Some(r);
        }
        let r = if let Some(r) = self.work_item(name, &rvs, span) {
            r
        } else if let Some(rest) = name.strip_prefix("as_") {
            self.as_type(name, rest, &rvs, e)
        } else if let Some(rest) = name.strip_prefix("convert_") {
            self.convert_builtin(name, rest, &rvs, args, e)
        } else if name.starts_with("atomic_") || name.starts_with("atom_") {
            self.atomic(name, &rvs, e)
        } else if let Some(rest) = name.strip_prefix("__builtin_wk_") {
            self.intrinsic(name, rest, &rvs, e)
        } else {
            self.math_builtin(name, &rvs, args, e)
        };
        Some(r)
    }

    pub(crate) fn no_match(&mut self, name: &str, e: &Expr) -> RV {
        self.error_in(
            e.span,
            e.expansion,
            format!("no matching function for call to '{name}'"),
        );
        RV::error()
    }

    // ---- work-item functions and synchronization ----

    fn work_item(&mut self, name: &str, rvs: &[RV], span: Span) -> Option<RV> {
        // (per-dimension value, default for dimensions past 2, zero-extend to size_t)
        let f: fn(&mut Self, u8, Span) -> ValueId = match name {
            "get_global_id" => |s, d, sp| {
                let g = s.emit(OpKind::WorkItem(WorkItem::GroupId(d)), vec![], Ty::I32, sp);
                let l = s.emit(
                    OpKind::WorkItem(WorkItem::LocalSize(d)),
                    vec![],
                    Ty::I32,
                    sp,
                );
                let i = s.emit(OpKind::WorkItem(WorkItem::LocalId(d)), vec![], Ty::I32, sp);
                let m = s.bin(BinOp::Mul, g, l, sp);
                s.bin(BinOp::Add, m, i, sp)
            },
            "get_global_size" => |s, d, sp| {
                let n = s.emit(
                    OpKind::WorkItem(WorkItem::NumGroups(d)),
                    vec![],
                    Ty::I32,
                    sp,
                );
                let l = s.emit(
                    OpKind::WorkItem(WorkItem::LocalSize(d)),
                    vec![],
                    Ty::I32,
                    sp,
                );
                s.bin(BinOp::Mul, n, l, sp)
            },
            "get_local_id" => {
                |s, d, sp| s.emit(OpKind::WorkItem(WorkItem::LocalId(d)), vec![], Ty::I32, sp)
            }
            "get_group_id" => {
                |s, d, sp| s.emit(OpKind::WorkItem(WorkItem::GroupId(d)), vec![], Ty::I32, sp)
            }
            "get_local_size" => |s, d, sp| {
                s.emit(
                    OpKind::WorkItem(WorkItem::LocalSize(d)),
                    vec![],
                    Ty::I32,
                    sp,
                )
            },
            "get_num_groups" => |s, d, sp| {
                s.emit(
                    OpKind::WorkItem(WorkItem::NumGroups(d)),
                    vec![],
                    Ty::I32,
                    sp,
                )
            },
            "get_global_offset" => |s, _, sp| s.konst(Ty::I32, 0, sp),
            "get_work_dim" => {
                if !rvs.is_empty() {
                    self.error(span, "no matching function for call to 'get_work_dim'");
                    return Some(RV::error());
                }
                let v = self.emit(OpKind::WorkItem(WorkItem::WorkDim), vec![], Ty::I32, span);
                return Some(RV::val(Type::UINT, v));
            }
            "barrier" | "work_group_barrier" | "mem_fence" | "read_mem_fence"
            | "write_mem_fence" => {
                if rvs.len() != 1 || !rvs[0].ty.is_integer() {
                    self.error(span, format!("no matching function for call to '{name}'"));
                    return Some(RV::error());
                }
                let flags = self.rv_to(rvs[0].clone(), &Type::UINT, span);
                let (local, global) = match self.const_of(flags) {
                    Some(c) => (c & 1 != 0, c & 2 != 0),
                    None => (true, true),
                };
                let kind = if name.ends_with("barrier") {
                    OpKind::Barrier { local, global }
                } else {
                    OpKind::Fence { local, global }
                };
                self.emit0(kind, vec![], span);
                return Some(RV::void());
            }
            _ => return None,
        };
        let sizes = matches!(
            name,
            "get_global_size" | "get_local_size" | "get_num_groups"
        );
        if rvs.len() != 1 || !rvs[0].ty.is_integer() {
            self.error(span, format!("no matching function for call to '{name}'"));
            return Some(RV::error());
        }
        let d = self.rv_to(rvs[0].clone(), &Type::UINT, span);
        let past = u64::from(sizes);
        let v = match self.const_of(d) {
            Some(k) if k < 3 => f(self, k as u8, span),
            Some(_) => self.konst(Ty::I32, past, span),
            None => {
                // OpenCL: dimensions past get_work_dim() - 1 give 0 (ids) or 1 (sizes).
                let mut acc = self.konst(Ty::I32, past, span);
                for k in (0..3u8).rev() {
                    let val = f(self, k, span);
                    let kc = self.konst(Ty::I32, u64::from(k), span);
                    let is = self.cmp(CmpPred::Eq, d, kc, span);
                    acc = self.select(is, val, acc, span);
                }
                acc
            }
        };
        let v = self.cast(CastOp::ZExt, v, Ty::I64, span);
        Some(RV::val(Type::ULONG, v))
    }

    // ---- integer, common and relational functions ----

    /// The type a generic built-in works in: the arguments' type when they agree, else
    /// their usual arithmetic conversion.
    fn gentype(&self, rvs: &[RV]) -> Type {
        let first = rvs[0].ty.clone();
        if rvs.iter().all(|r| super::types::same_type(&r.ty, &first)) {
            return match first {
                Type::Bool => Type::INT,
                t => t,
            };
        }
        rvs[1..]
            .iter()
            .fold(first, |acc, r| usual_arith(&acc, &r.ty))
    }

    pub(crate) fn math_builtin(&mut self, name: &str, rvs: &[RV], args: &[Expr], e: &Expr) -> RV {
        let span = e.span;
        let arity = match name {
            "abs" | "clz" | "ctz" | "popcount" | "fabs" | "sqrt" | "rsqrt" | "sign" | "degrees"
            | "radians" | "isnan" | "isinf" | "isfinite" | "isnormal" | "signbit" => Some(1),
            "abs_diff" | "add_sat" | "sub_sat" | "hadd" | "rhadd" | "max" | "min" | "mul_hi"
            | "rotate" | "upsample" | "mul24" | "fmin" | "fmax" | "step" | "copysign"
            | "isequal" | "isnotequal" | "isgreater" | "isgreaterequal" | "isless"
            | "islessequal" | "islessgreater" | "isordered" | "isunordered" => Some(2),
            "clamp" | "mad_hi" | "mad_sat" | "mad24" | "fma" | "mad" | "mix" | "smoothstep"
            | "select" | "bitselect" => Some(3),
            _ => None,
        };
        if let Some(n) = arity {
            if rvs.len() != n || !rvs.iter().all(|r| r.ty.is_arith()) {
                return self.no_match(name, e);
            }
        }
        // half_sin/cos/tan must be within 8192 ulp for |x| <= 2^16: that takes the
        // library's range reduction; the SFU's sin(pi x) of a rounded x / pi cannot.
        if let Some(op @ ("sin" | "cos" | "tan")) = name.strip_prefix("half_") {
            return self.library_call(op, rvs, args, e);
        }
        if let Some(op) = name
            .strip_prefix("native_")
            .or_else(|| name.strip_prefix("half_"))
        {
            if let Some(r) = self.native(name, op, rvs, e) {
                return r;
            }
        }
        if arity.is_none() {
            return self.library_call(name, rvs, args, e);
        }
        if name == "select" {
            // select(a, b, c) = c ? b : a for scalars.
            let ty = self.gentype(&rvs[..2]);
            if !rvs[2].ty.is_integer() {
                return self.no_match(name, e);
            }
            let c = self.truth(rvs[2].clone(), span);
            let a = self.rv_to(rvs[0].clone(), &ty, span);
            let b = self.rv_to(rvs[1].clone(), &ty, span);
            let v = self.select(c, b, a, span);
            return RV::val(ty, v);
        }
        if name == "upsample" {
            return self.upsample(rvs, e);
        }
        let ints_only = matches!(
            name,
            "rotate" | "clz" | "ctz" | "popcount" | "mul24" | "mad24"
        );
        if ints_only && !rvs.iter().all(|r| r.ty.is_integer()) {
            return self.no_match(name, e);
        }
        let ty = self.gentype(rvs);
        let vals: Vec<ValueId> = rvs
            .iter()
            .map(|r| self.rv_to(r.clone(), &ty, span))
            .collect();
        match &ty {
            Type::Int(k) => self.int_builtin(name, *k, &vals, e),
            Type::Float(k) => self.float_builtin(name, *k, &vals, e),
            _ => self.no_match(name, e),
        }
    }

    fn int_builtin(&mut self, name: &str, k: IntKind, v: &[ValueId], e: &Expr) -> RV {
        let span = e.span;
        let ty = Type::Int(k);
        let w = ty.ir().expect("int");
        let bits = k.bits();
        let signed = k.signed();
        let (min, max) = if signed {
            (
                (-(1i128 << (bits - 1))) as u64,
                ((1u128 << (bits - 1)) - 1) as u64,
            )
        } else {
            (
                0,
                if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                },
            )
        };
        let c = |s: &mut Self, x: u64| s.konst(w, x, span);
        let (smin, smax) = if signed {
            (BinOp::SMin, BinOp::SMax)
        } else {
            (BinOp::UMin, BinOp::UMax)
        };
        let clamp_to_type = |s: &mut Self, x: ValueId| -> ValueId {
            // `x` holds a value of a wider range in the same register width.
            let lo = s.konst(s.vty(x), min, span);
            let hi = s.konst(s.vty(x), max, span);
            let a = s.bin(BinOp::SMin, x, hi, span);
            s.bin(BinOp::SMax, a, lo, span)
        };
        let r = match name {
            "abs" => {
                let r = if signed {
                    self.un(UnOp::Abs, v[0], span)
                } else {
                    v[0]
                };
                return RV::val(Type::Int(k.to_unsigned()), r);
            }
            "abs_diff" => {
                let lt = self.cmp(
                    if signed { CmpPred::Slt } else { CmpPred::Ult },
                    v[0],
                    v[1],
                    span,
                );
                let d1 = self.bin(BinOp::Sub, v[1], v[0], span);
                let d2 = self.bin(BinOp::Sub, v[0], v[1], span);
                let r = self.select(lt, d1, d2, span);
                let r = if bits == 32 || bits == 64 {
                    r
                } else {
                    let u = k.to_unsigned();
                    self.conv(r, &Type::INT, &Type::Int(u), span)
                };
                return RV::val(Type::Int(k.to_unsigned()), r);
            }
            "add_sat" | "sub_sat" => {
                let add = name == "add_sat";
                let op = if add { BinOp::Add } else { BinOp::Sub };
                if bits < 32 {
                    let s = self.bin(op, v[0], v[1], span);
                    clamp_to_type(self, s)
                } else if bits == 32 {
                    let ext = if signed { CastOp::SExt } else { CastOp::ZExt };
                    let a = self.cast(ext, v[0], Ty::I64, span);
                    let b = self.cast(ext, v[1], Ty::I64, span);
                    let s = self.bin(op, a, b, span);
                    let s = clamp_to_type(self, s);
                    self.cast(CastOp::Trunc, s, Ty::I32, span)
                } else if signed {
                    let r = self.bin(op, v[0], v[1], span);
                    let x1 = self.bin(BinOp::Xor, v[0], r, span);
                    let x2 = if add {
                        self.bin(BinOp::Xor, v[1], r, span)
                    } else {
                        self.bin(BinOp::Xor, v[0], v[1], span)
                    };
                    let both = self.bin(BinOp::And, x1, x2, span);
                    let zero = c(self, 0);
                    let ovf = self.cmp(CmpPred::Slt, both, zero, span);
                    let sh = c(self, 63);
                    let sign = self.bin(BinOp::AShr, v[0], sh, span);
                    let mx = c(self, max);
                    let sat = self.bin(BinOp::Xor, sign, mx, span);
                    self.select(ovf, sat, r, span)
                } else {
                    let r = self.bin(op, v[0], v[1], span);
                    let (ovf, sat) = if add {
                        (self.cmp(CmpPred::Ult, r, v[0], span), c(self, max))
                    } else {
                        (self.cmp(CmpPred::Ult, v[0], v[1], span), c(self, 0))
                    };
                    self.select(ovf, sat, r, span)
                }
            }
            "hadd" | "rhadd" => {
                let one = c(self, 1);
                let sh = if signed { BinOp::AShr } else { BinOp::LShr };
                let a = self.bin(sh, v[0], one, span);
                let b = self.bin(sh, v[1], one, span);
                let low = if name == "hadd" {
                    self.bin(BinOp::And, v[0], v[1], span)
                } else {
                    self.bin(BinOp::Or, v[0], v[1], span)
                };
                let low = self.bin(BinOp::And, low, one, span);
                let s = self.bin(BinOp::Add, a, b, span);
                self.bin(BinOp::Add, s, low, span)
            }
            "clamp" => {
                let a = self.bin(smax, v[0], v[1], span);
                self.bin(smin, a, v[2], span)
            }
            "max" => self.bin(smax, v[0], v[1], span),
            "min" => self.bin(smin, v[0], v[1], span),
            "clz" | "ctz" | "popcount" => {
                let x = match (bits, name) {
                    (8 | 16, "ctz") => {
                        let guard = c(self, 1 << bits);
                        self.bin(BinOp::Or, v[0], guard, span)
                    }
                    (8, _) => self.cast(CastOp::ZExt8, v[0], Ty::I32, span),
                    (16, _) => self.cast(CastOp::ZExt16, v[0], Ty::I32, span),
                    _ => v[0],
                };
                let op = match name {
                    "clz" => UnOp::Clz,
                    "ctz" => UnOp::Ctz,
                    _ => UnOp::Popcount,
                };
                let r = self.un(op, x, span);
                if name == "clz" && bits < 32 {
                    let d = c(self, u64::from(32 - bits));
                    self.bin(BinOp::Sub, r, d, span)
                } else {
                    r
                }
            }
            "mul_hi" | "mad_hi" => {
                let hi = if bits >= 32 {
                    self.bin(
                        if signed { BinOp::MulHiS } else { BinOp::MulHiU },
                        v[0],
                        v[1],
                        span,
                    )
                } else {
                    let p = self.bin(BinOp::Mul, v[0], v[1], span);
                    let sh = c(self, u64::from(bits));
                    self.bin(if signed { BinOp::AShr } else { BinOp::LShr }, p, sh, span)
                };
                if name == "mul_hi" {
                    hi
                } else {
                    let s = self.bin(BinOp::Add, hi, v[2], span);
                    self.conv(
                        s,
                        &Type::Int(if bits < 32 { IntKind::Int } else { k }),
                        &ty,
                        span,
                    )
                }
            }
            "mad_sat" => self.mad_sat(k, v, span),
            "rotate" => {
                if bits >= 32 {
                    self.bin(BinOp::Rotl, v[0], v[1], span)
                } else {
                    let x = self.cast(
                        if bits == 8 {
                            CastOp::ZExt8
                        } else {
                            CastOp::ZExt16
                        },
                        v[0],
                        Ty::I32,
                        span,
                    );
                    let mask = c(self, u64::from(bits - 1));
                    let n = self.bin(BinOp::And, v[1], mask, span);
                    let l = self.bin(BinOp::Shl, x, n, span);
                    let width = c(self, u64::from(bits));
                    let m = self.bin(BinOp::Sub, width, n, span);
                    let r = self.bin(BinOp::LShr, x, m, span);
                    let o = self.bin(BinOp::Or, l, r, span);
                    self.conv(o, &Type::INT, &ty, span)
                }
            }
            "mul24" | "mad24" => {
                if bits != 32 {
                    return self.no_match(name, e);
                }
                let (a, b) = if signed {
                    let eight = c(self, 8);
                    let a = self.bin(BinOp::Shl, v[0], eight, span);
                    let a = self.bin(BinOp::AShr, a, eight, span);
                    let b = self.bin(BinOp::Shl, v[1], eight, span);
                    let b = self.bin(BinOp::AShr, b, eight, span);
                    (a, b)
                } else {
                    let m = c(self, 0xff_ffff);
                    (
                        self.bin(BinOp::And, v[0], m, span),
                        self.bin(BinOp::And, v[1], m, span),
                    )
                };
                let p = self.bin(BinOp::Mul, a, b, span);
                if name == "mad24" {
                    self.bin(BinOp::Add, p, v[2], span)
                } else {
                    p
                }
            }
            "bitselect" => {
                let nc = self.un(UnOp::Not, v[2], span);
                let a = self.bin(BinOp::And, v[0], nc, span);
                let b = self.bin(BinOp::And, v[1], v[2], span);
                self.bin(BinOp::Or, a, b, span)
            }
            _ => {
                // A float function given integers: compute in float (clang would find the
                // call ambiguous; the float version is what such code means).
                let vals: Vec<ValueId> = v
                    .iter()
                    .map(|&x| self.conv(x, &ty, &Type::FLOAT, span))
                    .collect();
                return self.float_builtin(name, FloatKind::Float, &vals, e);
            }
        };
        RV::val(ty, r)
    }

    fn mad_sat(&mut self, k: IntKind, v: &[ValueId], span: Span) -> ValueId {
        let bits = k.bits();
        let signed = k.signed();
        let ty = Type::Int(k);
        let (min, max) = if signed {
            (
                (-(1i128 << (bits - 1))) as u64,
                ((1u128 << (bits - 1)) - 1) as u64,
            )
        } else {
            (
                0,
                if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                },
            )
        };
        let clamp = |s: &mut Self, x: ValueId, min_signed: bool| {
            let t = s.vty(x);
            let lo = s.konst(t, min, span);
            let hi = s.konst(t, max, span);
            if min_signed {
                let a = s.bin(BinOp::SMin, x, hi, span);
                s.bin(BinOp::SMax, a, lo, span)
            } else {
                s.bin(BinOp::UMin, x, hi, span)
            }
        };
        if bits < 32 {
            let p = self.bin(BinOp::Mul, v[0], v[1], span);
            let s = self.bin(BinOp::Add, p, v[2], span);
            return clamp(self, s, true);
        }
        if bits == 32 {
            let ext = if signed { CastOp::SExt } else { CastOp::ZExt };
            let a = self.cast(ext, v[0], Ty::I64, span);
            let b = self.cast(ext, v[1], Ty::I64, span);
            let cc = self.cast(ext, v[2], Ty::I64, span);
            let p = self.bin(BinOp::Mul, a, b, span);
            let s = self.bin(BinOp::Add, p, cc, span);
            let s = clamp(self, s, signed);
            return self.cast(CastOp::Trunc, s, Ty::I32, span);
        }
        // 64 bits: a 128-bit product (hi, lo) plus c, saturated.
        let _ = ty;
        let hi = self.bin(
            if signed { BinOp::MulHiS } else { BinOp::MulHiU },
            v[0],
            v[1],
            span,
        );
        let lo = self.bin(BinOp::Mul, v[0], v[1], span);
        let lo2 = self.bin(BinOp::Add, lo, v[2], span);
        let carry = self.cmp(CmpPred::Ult, lo2, lo, span);
        let carry = self.cast(CastOp::ZExt, carry, Ty::I64, span);
        let hi2 = if signed {
            let sh = self.konst(Ty::I64, 63, span);
            let csign = self.bin(BinOp::AShr, v[2], sh, span);
            let h = self.bin(BinOp::Add, hi, csign, span);
            self.bin(BinOp::Add, h, carry, span)
        } else {
            self.bin(BinOp::Add, hi, carry, span)
        };
        if signed {
            let sh = self.konst(Ty::I64, 63, span);
            let lsign = self.bin(BinOp::AShr, lo2, sh, span);
            let fits = self.cmp(CmpPred::Eq, hi2, lsign, span);
            let zero = self.konst(Ty::I64, 0, span);
            let neg = self.cmp(CmpPred::Slt, hi2, zero, span);
            let mn = self.konst(Ty::I64, min, span);
            let mx = self.konst(Ty::I64, max, span);
            let sat = self.select(neg, mn, mx, span);
            self.select(fits, lo2, sat, span)
        } else {
            let zero = self.konst(Ty::I64, 0, span);
            let fits = self.cmp(CmpPred::Eq, hi2, zero, span);
            let mx = self.konst(Ty::I64, max, span);
            self.select(fits, lo2, mx, span)
        }
    }

    fn upsample(&mut self, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let (Type::Int(hk), Type::Int(lk)) = (&rvs[0].ty, &rvs[1].ty) else {
            return self.no_match("upsample", e);
        };
        if hk.bits() != lk.bits() || lk.signed() || hk.bits() == 64 {
            return self.no_match("upsample", e);
        }
        let (hk, lk) = (*hk, *lk);
        let bits = hk.bits();
        let result = match (bits, hk.signed()) {
            (8, true) => IntKind::Short,
            (8, false) => IntKind::UShort,
            (16, true) => IntKind::Int,
            (16, false) => IntKind::UInt,
            (_, true) => IntKind::Long,
            (_, false) => IntKind::ULong,
        };
        let hi = rvs[0].v.expect("value");
        let lo = rvs[1].v.expect("value");
        let _ = lk;
        let r = if bits == 32 {
            let h = self.cast(
                if hk.signed() {
                    CastOp::SExt
                } else {
                    CastOp::ZExt
                },
                hi,
                Ty::I64,
                span,
            );
            let l = self.cast(CastOp::ZExt, lo, Ty::I64, span);
            let sh = self.konst(Ty::I64, 32, span);
            let h = self.bin(BinOp::Shl, h, sh, span);
            self.bin(BinOp::Or, h, l, span)
        } else {
            let sh = self.konst(Ty::I32, u64::from(bits), span);
            let h = self.bin(BinOp::Shl, hi, sh, span);
            self.bin(BinOp::Or, h, lo, span)
        };
        RV::val(Type::Int(result), r)
    }

    pub(crate) fn fconst(&mut self, k: FloatKind, v: f64, span: Span) -> ValueId {
        let bits = super::arith::float_to_float(FloatKind::Double, k, v.to_bits());
        self.konst(k.ty(), bits, span)
    }

    fn float_builtin(&mut self, name: &str, k: FloatKind, v: &[ValueId], e: &Expr) -> RV {
        let span = e.span;
        let ty = Type::Float(k);
        let int_result = |s: &mut Self, c: ValueId| {
            let r = s.cast(CastOp::ZExt, c, Ty::I32, span);
            RV::val(Type::INT, r)
        };
        let r = match name {
            "fabs" => self.un(UnOp::FAbs, v[0], span),
            "fmin" | "min" => self.bin(BinOp::FMin, v[0], v[1], span),
            "fmax" | "max" => self.bin(BinOp::FMax, v[0], v[1], span),
            "clamp" => {
                let a = self.bin(BinOp::FMax, v[0], v[1], span);
                self.bin(BinOp::FMin, a, v[2], span)
            }
            "fma" | "mad" => self.emit(OpKind::Fma, vec![v[0], v[1], v[2]], k.ty(), span),
            "sqrt" => self.math_op(MathOp::Sqrt, k, v[0], span),
            "rsqrt" => {
                if k == FloatKind::Double {
                    let s = self.emit(OpKind::Math(MathOp::Sqrt), vec![v[0]], Ty::F64, span);
                    let one = self.fconst(k, 1.0, span);
                    self.bin(BinOp::FDiv, one, s, span)
                } else {
                    self.math_op(MathOp::Rsqrt, k, v[0], span)
                }
            }
            "mix" => {
                let d = self.bin(BinOp::FSub, v[1], v[0], span);
                let m = self.bin(BinOp::FMul, d, v[2], span);
                self.bin(BinOp::FAdd, v[0], m, span)
            }
            "step" => {
                let lt = self.cmp(CmpPred::FOlt, v[1], v[0], span);
                let zero = self.fconst(k, 0.0, span);
                let one = self.fconst(k, 1.0, span);
                self.select(lt, zero, one, span)
            }
            "smoothstep" => {
                let num = self.bin(BinOp::FSub, v[2], v[0], span);
                let den = self.bin(BinOp::FSub, v[1], v[0], span);
                let q = self.bin(BinOp::FDiv, num, den, span);
                let zero = self.fconst(k, 0.0, span);
                let one = self.fconst(k, 1.0, span);
                let t = self.bin(BinOp::FMax, q, zero, span);
                let t = self.bin(BinOp::FMin, t, one, span);
                let two = self.fconst(k, 2.0, span);
                let three = self.fconst(k, 3.0, span);
                let tt = self.bin(BinOp::FMul, two, t, span);
                let s = self.bin(BinOp::FSub, three, tt, span);
                let t2 = self.bin(BinOp::FMul, t, t, span);
                self.bin(BinOp::FMul, t2, s, span)
            }
            "sign" => {
                let zero = self.fconst(k, 0.0, span);
                let one = self.fconst(k, 1.0, span);
                let mone = self.fconst(k, -1.0, span);
                let gt = self.cmp(CmpPred::FOgt, v[0], zero, span);
                let lt = self.cmp(CmpPred::FOlt, v[0], zero, span);
                let ord = self.cmp(CmpPred::FOrd, v[0], v[0], span);
                let z = self.select(ord, v[0], zero, span);
                let a = self.select(lt, mone, z, span);
                self.select(gt, one, a, span)
            }
            "degrees" | "radians" => {
                let f = if name == "degrees" {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let c = self.fconst(k, f, span);
                self.bin(BinOp::FMul, v[0], c, span)
            }
            "copysign" => {
                let it = if k == FloatKind::Double {
                    Ty::I64
                } else {
                    Ty::I32
                };
                if k == FloatKind::Half {
                    return self.half_via_float(name, v, e);
                }
                let a = self.cast(CastOp::Bitcast, v[0], it, span);
                let b = self.cast(CastOp::Bitcast, v[1], it, span);
                let sign = if it == Ty::I64 {
                    1u64 << 63
                } else {
                    1u64 << 31
                };
                let sm = self.konst(it, sign, span);
                let mm = self.konst(it, !sign, span);
                let a = self.bin(BinOp::And, a, mm, span);
                let b = self.bin(BinOp::And, b, sm, span);
                let r = self.bin(BinOp::Or, a, b, span);
                self.cast(CastOp::Bitcast, r, k.ty(), span)
            }
            "isnan" => {
                let c = self.cmp(CmpPred::FUno, v[0], v[0], span);
                return int_result(self, c);
            }
            "isinf" | "isfinite" | "isnormal" => {
                let a = self.un(UnOp::FAbs, v[0], span);
                let inf = self.fconst(k, f64::INFINITY, span);
                let c = match name {
                    "isinf" => self.cmp(CmpPred::FOeq, a, inf, span),
                    "isfinite" => self.cmp(CmpPred::FOlt, a, inf, span),
                    _ => {
                        let min_normal = match k {
                            FloatKind::Half => 6.103515625e-5,
                            FloatKind::Float => f64::from(f32::MIN_POSITIVE),
                            FloatKind::Double => f64::MIN_POSITIVE,
                        };
                        let mn = self.fconst(k, min_normal, span);
                        let lo = self.cmp(CmpPred::FOge, a, mn, span);
                        let hi = self.cmp(CmpPred::FOlt, a, inf, span);
                        self.bin(BinOp::And, lo, hi, span)
                    }
                };
                return int_result(self, c);
            }
            "signbit" => {
                if k == FloatKind::Half {
                    let x = self.cast(CastOp::FExt, v[0], Ty::F32, span);
                    return self.float_builtin(name, FloatKind::Float, &[x], e);
                }
                let it = if k == FloatKind::Double {
                    Ty::I64
                } else {
                    Ty::I32
                };
                let b = self.cast(CastOp::Bitcast, v[0], it, span);
                let zero = self.konst(it, 0, span);
                let c = self.cmp(CmpPred::Slt, b, zero, span);
                return int_result(self, c);
            }
            "isequal" | "isnotequal" | "isgreater" | "isgreaterequal" | "isless"
            | "islessequal" | "isordered" | "isunordered" => {
                let p = match name {
                    "isequal" => CmpPred::FOeq,
                    "isnotequal" => CmpPred::FUne,
                    "isgreater" => CmpPred::FOgt,
                    "isgreaterequal" => CmpPred::FOge,
                    "isless" => CmpPred::FOlt,
                    "islessequal" => CmpPred::FOle,
                    "isordered" => CmpPred::FOrd,
                    _ => CmpPred::FUno,
                };
                let c = self.cmp(p, v[0], v[1], span);
                return int_result(self, c);
            }
            "islessgreater" => {
                let a = self.cmp(CmpPred::FOlt, v[0], v[1], span);
                let b = self.cmp(CmpPred::FOgt, v[0], v[1], span);
                let c = self.bin(BinOp::Or, a, b, span);
                return int_result(self, c);
            }
            "bitselect" => {
                if k == FloatKind::Half {
                    return self.no_match(name, e);
                }
                let it = if k == FloatKind::Double {
                    Ty::I64
                } else {
                    Ty::I32
                };
                let a = self.cast(CastOp::Bitcast, v[0], it, span);
                let b = self.cast(CastOp::Bitcast, v[1], it, span);
                let c = self.cast(CastOp::Bitcast, v[2], it, span);
                let nc = self.un(UnOp::Not, c, span);
                let a = self.bin(BinOp::And, a, nc, span);
                let b = self.bin(BinOp::And, b, c, span);
                let r = self.bin(BinOp::Or, a, b, span);
                self.cast(CastOp::Bitcast, r, k.ty(), span)
            }
            _ => return self.no_match(name, e),
        };
        RV::val(ty, r)
    }

    /// A half function computed in float and rounded back.
    fn half_via_float(&mut self, name: &str, v: &[ValueId], e: &Expr) -> RV {
        let span = e.span;
        let wide: Vec<ValueId> = v
            .iter()
            .map(|&x| self.cast(CastOp::FExt, x, Ty::F32, span))
            .collect();
        let r = self.float_builtin(name, FloatKind::Float, &wide, e);
        match (r.ty.clone(), r.v) {
            (Type::Float(FloatKind::Float), Some(x)) => {
                let h = self.cast(CastOp::FTrunc, x, Ty::F16, span);
                RV::val(Type::Float(FloatKind::Half), h)
            }
            _ => r,
        }
    }

    /// A hardware math operation in `k` (half is computed in float: one more rounding of a
    /// float result to half is exact for these operations' accuracy).
    pub(crate) fn math_op(&mut self, op: MathOp, k: FloatKind, x: ValueId, span: Span) -> ValueId {
        match k {
            FloatKind::Float => self.emit(OpKind::Math(op), vec![x], Ty::F32, span),
            FloatKind::Double if op == MathOp::Sqrt => {
                self.emit(OpKind::Math(op), vec![x], Ty::F64, span)
            }
            FloatKind::Double => {
                let f = self.cast(CastOp::FTrunc, x, Ty::F32, span);
                let r = self.emit(OpKind::Math(op), vec![f], Ty::F32, span);
                self.cast(CastOp::FExt, r, Ty::F64, span)
            }
            FloatKind::Half => {
                let f = self.cast(CastOp::FExt, x, Ty::F32, span);
                let r = self.emit(OpKind::Math(op), vec![f], Ty::F32, span);
                self.cast(CastOp::FTrunc, r, Ty::F16, span)
            }
        }
    }

    /// `native_*` and `half_*`: the hardware operations (float only).
    fn native(&mut self, name: &str, op: &str, rvs: &[RV], e: &Expr) -> Option<RV> {
        let span = e.span;
        let arity = match op {
            "divide" | "powr" => 2,
            "sqrt" | "rsqrt" | "recip" | "exp2" | "log2" | "sin" | "cos" | "tan" | "exp"
            | "exp10" | "log" | "log10" => 1,
            _ => return None,
        };
        if rvs.len() != arity || !rvs.iter().all(|r| r.ty.is_arith()) {
            return Some(self.no_match(name, e));
        }
        if rvs
            .iter()
            .any(|r| matches!(r.ty, Type::Float(FloatKind::Double)))
        {
            return Some(self.no_match(name, e));
        }
        let v: Vec<ValueId> = rvs
            .iter()
            .map(|r| self.rv_to(r.clone(), &Type::FLOAT, span))
            .collect();
        let k = FloatKind::Float;
        let math =
            |s: &mut Self, m: MathOp, x: ValueId| s.emit(OpKind::Math(m), vec![x], Ty::F32, span);
        let r = match op {
            "sqrt" => math(self, MathOp::Sqrt, v[0]),
            "rsqrt" => math(self, MathOp::Rsqrt, v[0]),
            "recip" => math(self, MathOp::Rcp, v[0]),
            // x * (1/y) loses the quotient when 1/y is subnormal; the division is exact.
            "divide" if name.starts_with("half_") => self.bin(BinOp::FDiv, v[0], v[1], span),
            "divide" => {
                let r = math(self, MathOp::Rcp, v[1]);
                self.bin(BinOp::FMul, v[0], r, span)
            }
            "exp2" => math(self, MathOp::Exp2, v[0]),
            "log2" => math(self, MathOp::Log2, v[0]),
            "exp" | "exp10" => {
                let f = if op == "exp" {
                    std::f64::consts::LOG2_E
                } else {
                    std::f64::consts::LOG2_10
                };
                let c = self.fconst(k, f, span);
                let x = self.bin(BinOp::FMul, v[0], c, span);
                math(self, MathOp::Exp2, x)
            }
            "log" | "log10" => {
                let f = if op == "log" {
                    std::f64::consts::LN_2
                } else {
                    std::f64::consts::LOG10_2
                };
                let l = math(self, MathOp::Log2, v[0]);
                let c = self.fconst(k, f, span);
                self.bin(BinOp::FMul, l, c, span)
            }
            "powr" => {
                let l = math(self, MathOp::Log2, v[0]);
                let x = self.bin(BinOp::FMul, v[1], l, span);
                math(self, MathOp::Exp2, x)
            }
            "sin" | "cos" | "tan" => {
                let c = self.fconst(k, std::f64::consts::FRAC_1_PI, span);
                let x = self.bin(BinOp::FMul, v[0], c, span);
                match op {
                    "sin" => math(self, MathOp::SinPi, x),
                    "cos" => math(self, MathOp::CosPi, x),
                    _ => {
                        let s = math(self, MathOp::SinPi, x);
                        let c = math(self, MathOp::CosPi, x);
                        self.bin(BinOp::FDiv, s, c, span)
                    }
                }
            }
            _ => return None,
        };
        Some(RV::val(Type::FLOAT, r))
    }

    /// A math function of the prelude library: `__cl_NAME_f32` or `__cl_NAME_f64` by the
    /// first floating argument.
    fn library_call(&mut self, name: &str, rvs: &[RV], args: &[Expr], e: &Expr) -> RV {
        let double = if name == "nan" {
            // nan(uint) is a float, nan(ulong) a double.
            rvs.first()
                .is_some_and(|r| matches!(r.ty, Type::Int(k) if k.bits() == 64))
        } else {
            rvs.iter()
                .find(|r| r.ty.is_float())
                .is_some_and(|r| r.ty == Type::DOUBLE)
        };
        let suffix = if double { "f64" } else { "f32" };
        let target = format!("__cl_{name}_{suffix}");
        match self.lookup(&target) {
            Some(Sym::Func(i)) if self.funcs[i].def.is_some() => {
                self.library_inline(i, rvs, args, e)
            }
            _ => {
                if MATH_LIBRARY.contains(&name) {
                    if double {
                        self.unsupported(e.span, format_args!("built-in '{name}' for 'double'"));
                    } else {
                        self.unsupported(e.span, format_args!("built-in '{name}'"));
                    }
                } else {
                    self.error_in(
                        e.span,
                        e.expansion,
                        format!("implicit declaration of function '{name}' is invalid in OpenCL"),
                    );
                }
                RV::error()
            }
        }
    }

    // ---- as_TYPE and convert_TYPE ----

    fn as_type(&mut self, name: &str, to_name: &str, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let Some(to) = int_kind_named(to_name) else {
            return self.no_match(name, e);
        };
        if rvs.len() != 1 || !rvs[0].ty.is_arith() || rvs[0].ty == Type::Bool {
            return self.no_match(name, e);
        }
        let from = rvs[0].ty.clone();
        let v = rvs[0].v.expect("value");
        let (fs, ts) = (
            self.records.size(&from).unwrap_or(0),
            self.records.size(&to).unwrap_or(0),
        );
        if fs != ts {
            let (f, t) = (self.show_ty(&from), self.show_ty(&to));
            self.error_in(
                span,
                e.expansion,
                format!("invalid reinterpretation: sizes of '{t}' and '{f}' must match"),
            );
            return RV::error();
        }
        let r = match (&from, &to) {
            (Type::Int(a), Type::Int(b)) => {
                // Same width: reinterpret the low bits with the target's sign.
                if a.bits() < 32 {
                    let op = match (b.bits(), b.signed()) {
                        (8, true) => CastOp::SExt8,
                        (8, false) => CastOp::ZExt8,
                        (16, true) => CastOp::SExt16,
                        _ => CastOp::ZExt16,
                    };
                    self.cast(op, v, Ty::I32, span)
                } else {
                    v
                }
            }
            (Type::Float(FloatKind::Half), _) | (_, Type::Float(FloatKind::Half)) => {
                // No 16-bit register type: reinterpret through private memory.
                let i = self.new_private("as_type", 2, 2, span);
                let p = self.emit(
                    OpKind::PrivateAddr(i),
                    vec![],
                    Ty::Ptr(Space::Private),
                    span,
                );
                self.store(p, v, &from, span);
                self.load(p, &to, span)
            }
            _ => {
                let t = to.ir().expect("scalar");
                self.emit(OpKind::Cast(CastOp::Bitcast), vec![v], t, span)
            }
        };
        RV::val(to, r)
    }

    fn convert_builtin(
        &mut self,
        name: &str,
        rest: &str,
        rvs: &[RV],
        args: &[Expr],
        e: &Expr,
    ) -> RV {
        let Some((tname, sat, rounding)) = parse_convert(rest) else {
            return self.no_match(name, e);
        };
        let Some(to) = int_kind_named(tname) else {
            return self.no_match(name, e);
        };
        self.convert_one(name, &to, sat, rounding, rvs, args, e)
    }

    /// `convert_TYPE[_sat][_ROUNDING]` of one scalar (`rvs`: the one argument).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn convert_one(
        &mut self,
        name: &str,
        to: &Type,
        sat: bool,
        rounding: Option<&str>,
        rvs: &[RV],
        args: &[Expr],
        e: &Expr,
    ) -> RV {
        let span = e.span;
        let to = to.clone();
        if rvs.len() != 1 || !rvs[0].ty.is_arith() || (sat && to.is_float()) {
            return self.no_match(name, e);
        }
        let from = match &rvs[0].ty {
            Type::Bool => Type::INT,
            t => t.clone(),
        };
        let v = self.rv_to(rvs[0].clone(), &from, span);
        // Rounding modes: only those that are the default or cannot matter are direct.
        if let Some(mode) = rounding {
            let exact = match (&from, &to) {
                (Type::Int(_), Type::Int(_)) => true,
                (Type::Float(_), Type::Int(_)) => mode == "rtz",
                (Type::Int(a), Type::Float(f)) => {
                    let mant = match f {
                        FloatKind::Half => 11,
                        FloatKind::Float => 24,
                        FloatKind::Double => 53,
                    };
                    mode == "rte" || a.bits() - u32::from(a.signed()) <= mant
                }
                (Type::Float(a), Type::Float(b)) => mode == "rte" || b >= a,
                _ => false,
            };
            if !exact {
                // Float to integer in another mode: round with the prelude's rint/ceil/floor.
                let helper = match mode {
                    "rte" => "rint",
                    "rtp" => "ceil",
                    _ => "floor",
                };
                if let (Type::Float(fk), Type::Int(_)) = (&from, &to) {
                    let suffix = if *fk == FloatKind::Double {
                        "f64"
                    } else {
                        "f32"
                    };
                    let target = format!("__cl_{helper}_{suffix}");
                    if let Some(Sym::Func(i)) = self.lookup(&target) {
                        if self.funcs[i].def.is_some() {
                            let rounded = self.inline_values(i, rvs.to_vec(), args, e);
                            return self.convert_value(rounded, &to, sat, span);
                        }
                    }
                }
                self.unsupported(span, format_args!("rounding mode of '{name}'"));
                return RV::error();
            }
        }
        self.convert_value(RV::val(from, v), &to, sat, span)
    }

    /// `convert_TYPE[_sat]` in the default rounding.
    fn convert_value(&mut self, rv: RV, to: &Type, sat: bool, span: Span) -> RV {
        let Some(v) = rv.v else {
            return RV::error();
        };
        let from = rv.ty;
        if !sat {
            let r = self.conv(v, &from, to, span);
            return RV::val(to.clone(), r);
        }
        let Type::Int(tk) = to else {
            return RV::error();
        };
        let tk = *tk;
        let (tmin, tmax): (i128, i128) = if tk.signed() {
            (-(1i128 << (tk.bits() - 1)), (1i128 << (tk.bits() - 1)) - 1)
        } else {
            (0, (1i128 << tk.bits()) - 1)
        };
        let r = match &from {
            Type::Int(fk) => {
                let fk = *fk;
                let w = self.vty(v);
                let (fmin, fmax): (i128, i128) = if fk.signed() {
                    (-(1i128 << (fk.bits() - 1)), (1i128 << (fk.bits() - 1)) - 1)
                } else {
                    (0, (1i128 << fk.bits()) - 1)
                };
                let mut x = v;
                if fmin < tmin {
                    // Only signed sources go below the target's minimum.
                    let lo = self.konst(w, tmin as u64, span);
                    x = self.bin(BinOp::SMax, x, lo, span);
                }
                if fmax > tmax {
                    let hi = self.konst(w, tmax as u64, span);
                    let op = if fk.signed() && fmin < 0 && tmin >= 0 {
                        // After the clamp at 0 the value is non-negative: either order works.
                        BinOp::SMin
                    } else if fk.signed() {
                        BinOp::SMin
                    } else {
                        BinOp::UMin
                    };
                    x = self.bin(op, x, hi, span);
                }
                self.conv(x, &from, to, span)
            }
            Type::Float(fk) => {
                let fk = *fk;
                let wide = if tk.bits() == 64 { Ty::I64 } else { Ty::I32 };
                let x = if tk.bits() < 32 {
                    let lo = self.fconst(fk, tmin as f64, span);
                    let hi = self.fconst(fk, tmax as f64, span);
                    let a = self.bin(BinOp::FMax, v, lo, span);
                    self.bin(BinOp::FMin, a, hi, span)
                } else {
                    v
                };
                // The IR's conversions saturate out-of-range values; NaN gives 0.
                let op = if tk.signed() {
                    CastOp::FToSI
                } else {
                    CastOp::FToUI
                };
                let i = self.cast(op, x, wide, span);
                let nan = self.cmp(CmpPred::FUno, v, v, span);
                let zero = self.konst(wide, 0, span);
                self.select(nan, zero, i, span)
            }
            _ => return RV::error(),
        };
        RV::val(to.clone(), r)
    }

    // ---- atomics ----

    fn atomic(&mut self, name: &str, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let op = name
            .strip_prefix("atomic_")
            .or_else(|| name.strip_prefix("atom_"))
            .unwrap_or("");
        let (kind, arity) = match op {
            "add" => (AtomicOp::Add, 2),
            "sub" => (AtomicOp::Sub, 2),
            "xchg" => (AtomicOp::Xchg, 2),
            "inc" => (AtomicOp::Add, 1),
            "dec" => (AtomicOp::Sub, 1),
            "cmpxchg" => (AtomicOp::CmpXchg, 3),
            "min" => (AtomicOp::SMin, 2),
            "max" => (AtomicOp::SMax, 2),
            "and" => (AtomicOp::And, 2),
            "or" => (AtomicOp::Or, 2),
            "xor" => (AtomicOp::Xor, 2),
            _ => {
                self.error_in(
                    span,
                    e.expansion,
                    format!("implicit declaration of function '{name}' is invalid in OpenCL"),
                );
                return RV::error();
            }
        };
        if rvs.len() != arity {
            return self.no_match(name, e);
        }
        let Type::Pointer(p) = &rvs[0].ty else {
            return self.no_match(name, e);
        };
        let pointee = p.ty.clone();
        let space = p.q.space();
        let is_float = pointee == Type::FLOAT;
        let ok = match &pointee {
            Type::Int(IntKind::Int | IntKind::UInt) => true,
            Type::Float(FloatKind::Float) => kind == AtomicOp::Xchg,
            Type::Int(IntKind::Long | IntKind::ULong) => {
                self.unsupported(span, format_args!("64-bit atomic '{name}'"));
                return RV::error();
            }
            _ => false,
        };
        if !ok {
            return self.no_match(name, e);
        }
        if !matches!(space, Space::Global | Space::Local) {
            let t = self.show_ty(&rvs[0].ty);
            self.error_in(
                span,
                e.expansion,
                format!(
                    "'{name}' requires a pointer to __global or __local memory ('{t}' invalid)"
                ),
            );
            return RV::error();
        }
        let kind = match (kind, pointee.is_signed()) {
            (AtomicOp::SMin, false) => AtomicOp::UMin,
            (AtomicOp::SMax, false) => AtomicOp::UMax,
            (k, _) => k,
        };
        let ptr = rvs[0].v.expect("pointer");
        let mut operands = vec![ptr];
        if arity == 1 {
            operands.push(self.konst(Ty::I32, 1, span));
        }
        for r in &rvs[1..] {
            let v = if is_float {
                let f = self.rv_to(r.clone(), &Type::FLOAT, span);
                self.cast(CastOp::Bitcast, f, Ty::I32, span)
            } else {
                self.rv_to(r.clone(), &pointee, span)
            };
            operands.push(v);
        }
        let old = self.emit(OpKind::Atomic(kind), operands, Ty::I32, span);
        if is_float {
            let f = self.cast(CastOp::Bitcast, old, Ty::F32, span);
            return RV::val(Type::FLOAT, f);
        }
        RV::val(pointee, old)
    }

    // ---- intrinsics of the prelude ----

    fn intrinsic(&mut self, name: &str, rest: &str, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let (op, k, arity): (Option<MathOp>, FloatKind, usize) = match rest {
            "sqrt_f32" => (Some(MathOp::Sqrt), FloatKind::Float, 1),
            "rsqrt_f32" => (Some(MathOp::Rsqrt), FloatKind::Float, 1),
            "rcp_f32" => (Some(MathOp::Rcp), FloatKind::Float, 1),
            "exp2_f32" => (Some(MathOp::Exp2), FloatKind::Float, 1),
            "log2_f32" => (Some(MathOp::Log2), FloatKind::Float, 1),
            "sinpi_f32" => (Some(MathOp::SinPi), FloatKind::Float, 1),
            "cospi_f32" => (Some(MathOp::CosPi), FloatKind::Float, 1),
            "sqrt_f64" => (Some(MathOp::Sqrt), FloatKind::Double, 1),
            "fma_f32" => (None, FloatKind::Float, 3),
            "fma_f64" => (None, FloatKind::Double, 3),
            _ => {
                self.error_in(span, e.expansion, format!("unknown intrinsic '{name}'"));
                return RV::error();
            }
        };
        if rvs.len() != arity || !rvs.iter().all(|r| r.ty.is_arith()) {
            return self.no_match(name, e);
        }
        let ty = Type::Float(k);
        let v: Vec<ValueId> = rvs
            .iter()
            .map(|r| self.rv_to(r.clone(), &ty, span))
            .collect();
        let r = match op {
            Some(m) => self.emit(OpKind::Math(m), v, k.ty(), span),
            None => self.emit(OpKind::Fma, v, k.ty(), span),
        };
        RV::val(ty, r)
    }

    /// Inline library function `i`. Its pointer parameters (`frexp`'s exponent, `sincos`'s
    /// cosine, ...) are private; a `__global` or `__local` pointer argument is given a
    /// private temporary whose value is stored through the argument afterwards.
    fn library_inline(&mut self, i: usize, rvs: &[RV], args: &[Expr], e: &Expr) -> RV {
        let span = e.span;
        let mut pass = rvs.to_vec();
        let mut copies = Vec::new();
        for rv in &mut pass {
            let Type::Pointer(p) = &rv.ty else {
                continue;
            };
            // (A __constant pointer is left to the argument conversion, which rejects it.)
            if !matches!(p.q.space(), Space::Global | Space::Local) || p.ty.mem().is_none() {
                continue;
            }
            let pointee = p.ty.clone();
            let size = self.records.size(&pointee).unwrap_or(8);
            let align = self.records.align(&pointee);
            let m = self.new_private("library result", size, align, span);
            let tmp = self.emit(
                OpKind::PrivateAddr(m),
                vec![],
                Ty::Ptr(Space::Private),
                span,
            );
            let mut q = p.q;
            q.space = Some(Space::Private);
            let orig = rv.v.expect("pointer");
            copies.push((orig, tmp, pointee.clone()));
            *rv = RV::val(
                Type::Pointer(Box::new(super::types::QualType::new(pointee, q))),
                tmp,
            );
        }
        let r = self.inline_values(i, pass, args, e);
        for (orig, tmp, ty) in copies {
            let v = self.load(tmp, &ty, span);
            self.store(orig, v, &ty, span);
        }
        r
    }

    /// Inline function `i` with already evaluated arguments `rvs` (of expressions `args`).
    pub(crate) fn inline_values(&mut self, i: usize, rvs: Vec<RV>, args: &[Expr], e: &Expr) -> RV {
        let fty = self.funcs[i].ty.clone();
        if rvs.len() != fty.params.len() {
            return self.no_match(&self.funcs[i].name.clone(), e);
        }
        let mut values = Vec::new();
        for ((rv, a), p) in rvs.into_iter().zip(args).zip(&fty.params) {
            if p.ty.is_aggregate() {
                values.push(rv);
            } else {
                values.push(self.implicit_rv(rv, &p.ty, a, super::convert::Conv::Pass));
            }
        }
        if self.recursive.contains(&i) || self.inline_stack.contains(&i) || self.typing > 0 {
            return self.undef_rv(&fty.ret, e.span);
        }
        self.inline_body(i, &fty, values, e.span)
    }
}
