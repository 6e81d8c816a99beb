//! OpenCL C 1.2's built-in functions on vectors (§6.12).
//!
//! - The integer, common and math functions apply their scalar lowering lane by lane
//!   (`sqrt`, `clamp`, `mad24`, the prelude's `__cl_NAME_f32` inlined once per lane); a
//!   scalar argument is converted to the vector's element type and replicated (except
//!   where the function's scalar parameter has a type of its own: `ldexp`'s exponent, ...);
//!   a pointer to a vector gives each lane a pointer to its element (`fract`, `modf`).
//! - Relational functions give -1/0 per lane in the signed integer vector of the element's
//!   size; `select` and `any`/`all` test most significant bits.
//! - The geometric functions, `vloadN`/`vstoreN` and their `half` forms, `shuffle`,
//!   `shuffle2`, `vec_step`, `convert_TYPEN` (the scalar conversion per lane) and `as_TYPEN`
//!   (bits reinterpreted by shifts and masks, or through memory for `half` elements).

use super::builtins::{int_kind_named, parse_convert};
use super::types::{storage_lanes, Elem, FloatKind, QualType, Type};
use super::vector::vector_type_named;
use super::{Lowerer, RV};
use crate::ast::{Expr, ExprKind};
use crate::ir::{BinOp, CastOp, CmpPred, MathOp, OpKind, Space, Ty, UnOp, ValueId};
use crate::source::Span;

/// Relational functions: -1/0 per lane on vectors.
const RELATIONAL: &[&str] = &[
    "isequal",
    "isnotequal",
    "isgreater",
    "isgreaterequal",
    "isless",
    "islessequal",
    "islessgreater",
    "isordered",
    "isunordered",
    "isnan",
    "isinf",
    "isfinite",
    "isnormal",
    "signbit",
];

/// Functions whose scalar arguments keep their own type when replicated over the lanes (an
/// exponent, a count), instead of taking the vector's element type.
const OWN_SCALAR_TYPE: &[&str] = &[
    "ldexp", "pown", "rootn", "nan", "upsample", "frexp", "modf", "fract", "sincos", "remquo",
    "lgamma_r",
];

/// Built-ins with no vector form: calls with vector arguments take the scalar path (and
/// its diagnostics).
fn scalar_only(name: &str) -> bool {
    name.starts_with("get_")
        || name.starts_with("atomic_")
        || name.starts_with("atom_")
        || name.starts_with("__builtin_wk_")
        || matches!(
            name,
            "barrier" | "work_group_barrier" | "mem_fence" | "read_mem_fence" | "write_mem_fence"
        )
}

impl<'a> Lowerer<'a> {
    /// `vec_step(x)` / `vec_step(type)`: the number of elements (4 for 3-element vectors,
    /// 1 for scalars), an `int`; its operand is not evaluated.
    pub(crate) fn vec_step(&mut self, args: &[Expr], e: &Expr) -> RV {
        if args.len() != 1 {
            return self.no_match("vec_step", e);
        }
        let ty = match &args[0].kind {
            ExprKind::TypeArg(tn) => self.type_name(tn).ty,
            _ => self.type_of(&args[0]),
        };
        let n = match &ty {
            Type::Vector(_, n) => storage_lanes(*n),
            t if t.is_arith() => 1,
            Type::Error => return RV::error(),
            t => {
                let t = self.show_ty(t);
                self.error_in(
                    e.span,
                    e.expansion,
                    format!("invalid argument type '{t}' to vec_step"),
                );
                return RV::error();
            }
        };
        let c = self.konst(Ty::I32, n, e.span);
        RV::val(Type::INT, c)
    }

    /// A built-in call involving vectors (or a vector-only built-in); `None` for calls the
    /// scalar lowering handles.
    pub(crate) fn vector_builtin(
        &mut self,
        name: &str,
        rvs: &[RV],
        args: &[Expr],
        e: &Expr,
    ) -> Option<RV> {
        let any_vector = rvs.iter().any(|r| r.ty.is_vector());
        if let Some(rest) = name.strip_prefix("as_") {
            if any_vector || vector_type_named(rest).is_some() {
                return Some(self.vector_as(name, rest, rvs, e));
            }
            return None;
        }
        if let Some(rest) = name.strip_prefix("convert_") {
            let (tname, sat, rounding) = parse_convert(rest)?;
            if let Some((elem, n)) = vector_type_named(tname) {
                return Some(self.vector_convert(name, elem, n, sat, rounding, rvs, args, e));
            }
            return any_vector.then(|| self.no_match(name, e));
        }
        if name.starts_with("vload") || name.starts_with("vstore") {
            return Some(self.vload_vstore(name, rvs, e));
        }
        match name {
            "dot" | "cross" | "length" | "distance" | "normalize" | "fast_length"
            | "fast_distance" | "fast_normalize" => return Some(self.geometric(name, rvs, e)),
            "any" | "all" => return Some(self.any_all(name, rvs, e)),
            "shuffle" | "shuffle2" => return Some(self.shuffle(name, rvs, e)),
            _ => {}
        }
        if !any_vector || scalar_only(name) {
            return None;
        }
        if name == "select" {
            return Some(self.vector_select(rvs, e));
        }
        let r = self.lanewise(name, rvs, args, e);
        if !RELATIONAL.contains(&name) {
            return Some(r);
        }
        // The scalar forms give 0/1; the vector forms -1/0 of the argument's element size.
        let (Some((_, n)), Some(arg_elem)) = (
            r.ty.vector(),
            rvs.iter().find_map(|a| a.ty.vector().map(|(el, _)| el)),
        ) else {
            return Some(r);
        };
        let res = arg_elem.signed_int();
        let lanes = r
            .lanes
            .iter()
            .map(|&x| {
                let c = self.truth_of(x, &Type::INT, e.span);
                self.mask_lane(c, res, e.span)
            })
            .collect();
        Some(RV::vector(Type::Vector(res, n), lanes))
    }

    /// A scalar built-in applied to every lane.
    fn lanewise(&mut self, name: &str, rvs: &[RV], args: &[Expr], e: &Expr) -> RV {
        let span = e.span;
        let mut n = None;
        let mut primary = None;
        for r in rvs {
            let width = match (&r.ty, r.ty.vector()) {
                (_, Some((el, m))) => {
                    primary.get_or_insert(el);
                    Some(m)
                }
                (Type::Pointer(p), None) => p.ty.vector().map(|(_, m)| m),
                _ => None,
            };
            if let Some(m) = width {
                if n.is_some_and(|n| n != m) {
                    return self.no_match(name, e);
                }
                n = Some(m);
            }
        }
        let (Some(n), Some(primary)) = (n, primary) else {
            return self.no_match(name, e);
        };
        let own = OWN_SCALAR_TYPE.contains(&name);
        let prepared: Vec<RV> = rvs
            .iter()
            .map(|r| match r.v {
                Some(v) if r.ty.is_arith() && !own => {
                    let x = self.conv(v, &r.ty, &primary.ty(), span);
                    RV::val(primary.ty(), x)
                }
                _ => r.clone(),
            })
            .collect();
        let mut lanes = Vec::with_capacity(n.into());
        let mut res_elem: Option<Elem> = None;
        for k in 0..usize::from(n) {
            let lane_rvs: Vec<RV> = prepared
                .iter()
                .map(|r| match (&r.ty, r.ty.vector()) {
                    (_, Some((el, _))) => RV::val(el.ty(), r.lanes[k]),
                    (Type::Pointer(p), None) if p.ty.is_vector() => {
                        let (el, _) = p.ty.vector().expect("a vector");
                        let ptr = r.v.expect("a pointer");
                        let q = self.ptr_offset(ptr, k as u64 * el.size(), span);
                        RV::val(Type::pointer_to(QualType::new(el.ty(), p.q)), q)
                    }
                    _ => r.clone(),
                })
                .collect();
            let r = self.math_builtin(name, &lane_rvs, args, e);
            let (Some(v), Some(el)) = (r.v, Elem::of(&r.ty)) else {
                if r.ty.is_error() {
                    return r;
                }
                return self.no_match(name, e);
            };
            if res_elem.is_some_and(|x| x != el) {
                return self.no_match(name, e);
            }
            res_elem = Some(el);
            lanes.push(v);
        }
        let res = res_elem.expect("at least two lanes");
        RV::vector(Type::Vector(res, n), lanes)
    }

    /// `select(a, b, c)` on vectors: per lane, `c`'s most significant bit picks `b`.
    fn vector_select(&mut self, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        if rvs.len() != 3 {
            return self.no_match("select", e);
        }
        let Some((celem, n)) = rvs[2].ty.vector() else {
            return self.no_match("select", e);
        };
        let ty = match (rvs[0].ty.vector(), rvs[1].ty.vector()) {
            (Some(_), Some(_)) if !super::types::same_type(&rvs[0].ty, &rvs[1].ty) => {
                return self.no_match("select", e)
            }
            (Some(_), _) => rvs[0].ty.clone(),
            (None, Some(_)) => rvs[1].ty.clone(),
            (None, None) => return self.no_match("select", e),
        };
        let (elem, m) = ty.vector().expect("a vector type");
        if celem.is_float() || m != n || celem.size() != elem.size() {
            return self.no_match("select", e);
        }
        let a = self.operand_lanes(rvs[0].clone(), &ty, span);
        let b = self.operand_lanes(rvs[1].clone(), &ty, span);
        let lanes = (0..usize::from(n))
            .map(|k| {
                let m = self.lane_msb(celem, rvs[2].lanes[k], span);
                self.select(m, b[k], a[k], span)
            })
            .collect();
        RV::vector(ty, lanes)
    }

    /// `any(x)` / `all(x)`: whether the most significant bit of any / every element of an
    /// integer scalar or vector is set (an `int`, 1 or 0).
    fn any_all(&mut self, name: &str, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let [x] = rvs else {
            return self.no_match(name, e);
        };
        let (elem, lanes) = match (x.ty.vector(), x.v) {
            (Some((el, _)), _) => (el, x.lanes.clone()),
            (None, Some(v)) if x.ty.is_integer() && !matches!(x.ty, Type::Bool) => {
                (Elem::of(&x.ty).expect("an integer"), vec![v])
            }
            _ => return self.no_match(name, e),
        };
        if elem.is_float() {
            return self.no_match(name, e);
        }
        let op = if name == "any" { BinOp::Or } else { BinOp::And };
        let mut acc = None;
        for v in lanes {
            let m = self.lane_msb(elem, v, span);
            acc = Some(match acc {
                None => m,
                Some(a) => self.bin(op, a, m, span),
            });
        }
        let r = self.cast(CastOp::ZExt, acc.expect("a lane"), Ty::I32, span);
        RV::val(Type::INT, r)
    }

    /// `shuffle(x, mask)` and `shuffle2(x, y, mask)`: element `mask[k]` (its low bits) of
    /// `x` (or of `x` and `y` concatenated).
    fn shuffle(&mut self, name: &str, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let two = name == "shuffle2";
        if rvs.len() != if two { 3 } else { 2 } {
            return self.no_match(name, e);
        }
        let mask = rvs.last().expect("a mask");
        let Some((xelem, n)) = rvs[0].ty.vector() else {
            return self.no_match(name, e);
        };
        let Some((melem, m)) = mask.ty.vector() else {
            return self.no_match(name, e);
        };
        if two && !super::types::same_type(&rvs[0].ty, &rvs[1].ty) {
            return self.no_match(name, e);
        }
        if melem.is_float() || melem.is_signed() || !matches!(n, 2 | 4 | 8 | 16) {
            return self.no_match(name, e);
        }
        let mut source = rvs[0].lanes.clone();
        if two {
            source.extend(&rvs[1].lanes);
        }
        let count = source.len() as u64;
        let lanes = mask
            .lanes
            .iter()
            .map(|&sel| {
                // Only the low log2(count) bits select (§6.12.12).
                let w = self.vty(sel);
                let low = self.konst(w, count - 1, span);
                let idx = self.bin(BinOp::And, sel, low, span);
                if let Some(c) = self.const_of(idx) {
                    return source[c as usize];
                }
                let mut r = source[0];
                for (j, &x) in source.iter().enumerate().skip(1) {
                    let jc = self.konst(w, j as u64, span);
                    let is = self.cmp(CmpPred::Eq, idx, jc, span);
                    r = self.select(is, x, r, span);
                }
                r
            })
            .collect();
        RV::vector(Type::Vector(xelem, m), lanes)
    }

    // ---- geometric functions ----

    /// `dot(p, q)`: `p.x*q.x + p.y*q.y + ...` added left to right, each product and sum
    /// rounded (with contraction: `fma(p.y, q.y, p.x*q.x)` and so on).
    fn dot_lanes(&mut self, p: &[ValueId], q: &[ValueId], k: FloatKind, span: Span) -> ValueId {
        let mut acc = self.bin(BinOp::FMul, p[0], q[0], span);
        for i in 1..p.len() {
            acc = if self.contracting() {
                self.emit(OpKind::Fma, vec![p[i], q[i], acc], k.ty(), span)
            } else {
                let m = self.bin(BinOp::FMul, p[i], q[i], span);
                self.bin(BinOp::FAdd, acc, m, span)
            };
        }
        acc
    }

    /// The length of `p`: `sqrt(dot(p, p))` (`fabs` for a scalar).
    fn length_lanes(&mut self, p: &[ValueId], k: FloatKind, span: Span) -> ValueId {
        if p.len() == 1 {
            return self.un(UnOp::FAbs, p[0], span);
        }
        let d = self.dot_lanes(p, p, k, span);
        self.math_op(MathOp::Sqrt, k, d, span)
    }

    /// `dot cross length distance normalize fast_length fast_distance fast_normalize` on
    /// `float`/`double` scalars and 2-, 3-, 4-element vectors.
    fn geometric(&mut self, name: &str, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let arity = match name {
            "dot" | "cross" | "distance" | "fast_distance" => 2,
            _ => 1,
        };
        if rvs.len() != arity {
            return self.no_match(name, e);
        }
        let ty = if rvs.iter().all(|r| r.ty.is_float()) {
            rvs[1..].iter().fold(rvs[0].ty.clone(), |a, r| {
                super::arith::usual_arith(&a, &r.ty)
            })
        } else if rvs
            .iter()
            .all(|r| super::types::same_type(&r.ty, &rvs[0].ty))
        {
            rvs[0].ty.clone()
        } else {
            return self.no_match(name, e);
        };
        let (k, n) = match &ty {
            Type::Float(k) => (*k, 1),
            Type::Vector(Elem::Float(k), n) if *n <= 4 => (*k, *n),
            _ => return self.no_match(name, e),
        };
        let fast = name.starts_with("fast_");
        if k == FloatKind::Half || (fast && k == FloatKind::Double) {
            return self.no_match(name, e);
        }
        if name == "cross" && !matches!(n, 3 | 4) {
            return self.no_match(name, e);
        }
        let lanes: Vec<Vec<ValueId>> = rvs
            .iter()
            .map(|r| match r.v {
                Some(v) => vec![self.conv(v, &r.ty, &ty, span)],
                None => r.lanes.clone(),
            })
            .collect();
        let scalar = |v: ValueId| RV::val(Type::Float(k), v);
        match name {
            "dot" => scalar(self.dot_lanes(&lanes[0], &lanes[1], k, span)),
            "length" | "fast_length" => scalar(self.length_lanes(&lanes[0], k, span)),
            "distance" | "fast_distance" => {
                let d: Vec<ValueId> = (0..lanes[0].len())
                    .map(|i| self.bin(BinOp::FSub, lanes[0][i], lanes[1][i], span))
                    .collect();
                scalar(self.length_lanes(&d, k, span))
            }
            "cross" => {
                let (a, b) = (&lanes[0], &lanes[1]);
                let mut term = |i: usize, j: usize| {
                    let x = self.bin(BinOp::FMul, a[i], b[j], span);
                    let y = self.bin(BinOp::FMul, a[j], b[i], span);
                    self.bin(BinOp::FSub, x, y, span)
                };
                let mut out = vec![term(1, 2), term(2, 0), term(0, 1)];
                if n == 4 {
                    out.push(self.fconst(k, 0.0, span));
                }
                RV::vector(ty, out)
            }
            _ => {
                // normalize: p / length(p); fast_normalize: p * rsqrt(dot(p, p)). A zero
                // vector is returned as it is.
                let p = &lanes[0];
                let d = self.dot_lanes(p, p, k, span);
                let zero = self.fconst(k, 0.0, span);
                let is_zero = self.cmp(CmpPred::FOeq, d, zero, span);
                let out: Vec<ValueId> = if fast {
                    let r = self.math_op(MathOp::Rsqrt, k, d, span);
                    p.iter()
                        .map(|&x| {
                            let y = self.bin(BinOp::FMul, x, r, span);
                            self.select(is_zero, x, y, span)
                        })
                        .collect()
                } else {
                    let len = self.length_lanes(p, k, span);
                    p.iter()
                        .map(|&x| {
                            let y = self.bin(BinOp::FDiv, x, len, span);
                            self.select(is_zero, x, y, span)
                        })
                        .collect()
                };
                if n == 1 {
                    scalar(out[0])
                } else {
                    RV::vector(ty, out)
                }
            }
        }
    }

    // ---- vloadN, vstoreN and the half forms ----

    /// `vloadN`, `vstoreN`, `vload_half[N]`, `vloada_halfN`, `vstore_half[N][_rte]`,
    /// `vstorea_halfN[_rte]`.
    fn vload_vstore(&mut self, name: &str, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let (store, rest) = match name.strip_prefix("vstore") {
            Some(r) => (true, r),
            None => (false, name.strip_prefix("vload").unwrap_or_default()),
        };
        let (rest, half, aligned) = if let Some(r) = rest.strip_prefix("a_half") {
            (r, true, true)
        } else if let Some(r) = rest.strip_prefix("_half") {
            (r, true, false)
        } else {
            (rest, false, false)
        };
        let (width, mode) = match rest.split_once('_') {
            Some((w, m)) => (w, Some(m)),
            None => (rest, None),
        };
        let n: u8 = match width {
            "" if half => 1,
            "2" => 2,
            "3" => 3,
            "4" => 4,
            "8" => 8,
            "16" => 16,
            _ => return self.no_match(name, e),
        };
        if aligned && n == 1 {
            return self.no_match(name, e);
        }
        match mode {
            None => {}
            Some("rte") if store && half => {}
            Some("rtz" | "rtp" | "rtn") if store && half => {
                self.unsupported(span, format_args!("rounding mode of '{name}'"));
                return RV::error();
            }
            Some(_) => return self.no_match(name, e),
        }
        let (data, offset, ptr) = match (store, rvs) {
            (false, [o, p]) => (None, o, p),
            (true, [d, o, p]) => (Some(d), o, p),
            _ => return self.no_match(name, e),
        };
        let (Type::Pointer(pointee), Some(_)) = (&ptr.ty, ptr.v) else {
            return self.no_match(name, e);
        };
        let Some(elem) = Elem::of(&pointee.ty) else {
            return self.no_match(name, e);
        };
        if !offset.ty.is_integer() || (half && elem != Elem::Float(FloatKind::Half)) {
            return self.no_match(name, e);
        }
        if store && (pointee.q.is_const || pointee.q.space() == Space::Constant) {
            let t = self.show_ty(&ptr.ty);
            self.error_in(
                span,
                e.expansion,
                format!("'{name}' cannot store through a pointer to constant data ('{t}')"),
            );
            return RV::error();
        }
        // The address of element `offset * N` (`vloada_half3` steps by 4).
        let step = if aligned {
            storage_lanes(n)
        } else {
            u64::from(n)
        };
        let off = self.rv_to(offset.clone(), &Type::ULONG, span);
        let scale = self.konst(Ty::I64, step, span);
        let idx = self.bin(BinOp::Mul, off, scale, span);
        let Some(base) = self.ptr_add(ptr.clone(), RV::val(Type::ULONG, idx), false, span) else {
            return RV::error();
        };
        let value_elem = if half {
            Elem::Float(FloatKind::Float)
        } else {
            elem
        };
        let Some(data) = data else {
            let mut lanes = self.load_vector(base, elem, n, span);
            if half {
                lanes = lanes
                    .iter()
                    .map(|&h| self.cast(CastOp::FExt, h, Ty::F32, span))
                    .collect();
            }
            return if n == 1 {
                RV::val(value_elem.ty(), lanes[0])
            } else {
                RV::vector(Type::Vector(value_elem, n), lanes)
            };
        };
        let lanes = match (data.ty.vector(), data.v) {
            (Some((de, m)), _) if m == n && de == value_elem => data.lanes.clone(),
            (None, Some(v)) if n == 1 && data.ty == Type::FLOAT && half => vec![v],
            (None, Some(_)) if n == 1 && data.ty == Type::DOUBLE && half => {
                self.unsupported(span, format_args!("built-in '{name}' for 'double'"));
                return RV::error();
            }
            (Some((Elem::Float(FloatKind::Double), m)), _) if m == n && half => {
                self.unsupported(span, format_args!("built-in '{name}' for 'double'"));
                return RV::error();
            }
            _ => return self.no_match(name, e),
        };
        let lanes: Vec<ValueId> = if half {
            lanes
                .iter()
                .map(|&f| self.cast(CastOp::FTrunc, f, Ty::F16, span))
                .collect()
        } else {
            lanes
        };
        self.store_vector(base, elem, &lanes, span);
        RV::void()
    }

    // ---- conversions ----

    /// `convert_TYPEN[_sat][_ROUNDING]`: the scalar conversion of every lane of a vector of
    /// N elements.
    #[allow(clippy::too_many_arguments)]
    fn vector_convert(
        &mut self,
        name: &str,
        elem: Elem,
        n: u8,
        sat: bool,
        rounding: Option<&str>,
        rvs: &[RV],
        args: &[Expr],
        e: &Expr,
    ) -> RV {
        let [x] = rvs else {
            return self.no_match(name, e);
        };
        let Some((from, m)) = x.ty.vector() else {
            return self.no_match(name, e);
        };
        if m != n {
            return self.no_match(name, e);
        }
        let to = elem.ty();
        let mut lanes = Vec::with_capacity(n.into());
        for &v in &x.lanes {
            let r = self.convert_one(name, &to, sat, rounding, &[RV::val(from.ty(), v)], args, e);
            let Some(v) = r.v else {
                return RV::error();
            };
            lanes.push(v);
        }
        RV::vector(Type::Vector(elem, n), lanes)
    }

    /// `as_TYPE[N]` with a vector operand or result: the operand's bytes read as the
    /// result type (sizes must match; a 3-element vector counts as 4).
    fn vector_as(&mut self, name: &str, to_name: &str, rvs: &[RV], e: &Expr) -> RV {
        let span = e.span;
        let to = match vector_type_named(to_name) {
            Some((el, n)) => Type::Vector(el, n),
            None => match int_kind_named(to_name) {
                Some(t) => t,
                None => return self.no_match(name, e),
            },
        };
        let [x] = rvs else {
            return self.no_match(name, e);
        };
        let from = x.ty.clone();
        let shape = |t: &Type| match t.vector() {
            Some((el, n)) => Some((el, n)),
            None => Elem::of(t).map(|el| (el, 1)),
        };
        let (Some((fe, fnum)), Some((te, tnum))) = (shape(&from), shape(&to)) else {
            return self.no_match(name, e);
        };
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
        let src: Vec<ValueId> = match x.v {
            Some(v) => vec![v],
            None => x.lanes.clone(),
        };
        let half = Elem::Float(FloatKind::Half);
        let lanes: Vec<ValueId> = if fe == half || te == half {
            // No 16-bit register type: through a private object.
            let i = self.new_private("as_type", fs, fs, span);
            let p = self.emit(
                OpKind::PrivateAddr(i),
                vec![],
                Ty::Ptr(Space::Private),
                span,
            );
            self.store_vector(p, fe, &src, span);
            self.load_vector(p, te, tnum, span)
        } else {
            let mut bits: Vec<ValueId> = src.iter().map(|&v| self.lane_bits(fe, v, span)).collect();
            while (bits.len() as u64) < storage_lanes(fnum) {
                let u = self.undef(if fe.size() == 8 { Ty::I64 } else { Ty::I32 }, span);
                bits.push(u);
            }
            let (sb, tb) = (fe.bits(), te.bits());
            (0..usize::from(tnum))
                .map(|j| {
                    let x = if sb == tb {
                        bits[j]
                    } else if sb < tb {
                        let r = (tb / sb) as usize;
                        let wide = if tb == 64 { Ty::I64 } else { Ty::I32 };
                        let mut acc: Option<ValueId> = None;
                        for i in 0..r {
                            let mut part = bits[j * r + i];
                            if self.vty(part) != wide {
                                part = self.cast(CastOp::ZExt, part, wide, span);
                            }
                            if i > 0 {
                                let sh = self.konst(wide, u64::from(sb) * i as u64, span);
                                part = self.bin(BinOp::Shl, part, sh, span);
                            }
                            acc = Some(match acc {
                                None => part,
                                Some(a) => self.bin(BinOp::Or, a, part, span),
                            });
                        }
                        acc.expect("a part")
                    } else {
                        let r = (sb / tb) as usize;
                        let word = bits[j / r];
                        let w = self.vty(word);
                        let shift = u64::from(tb) * (j % r) as u64;
                        let mut part = word;
                        if shift > 0 {
                            let sh = self.konst(w, shift, span);
                            part = self.bin(BinOp::LShr, part, sh, span);
                        }
                        if w == Ty::I64 && tb <= 32 {
                            part = self.cast(CastOp::Trunc, part, Ty::I32, span);
                        }
                        part
                    };
                    self.bits_lane(te, x, span)
                })
                .collect()
        };
        if to.is_vector() {
            RV::vector(to, lanes)
        } else {
            RV::val(to, lanes[0])
        }
    }

    /// A lane's bits as an unsigned integer of its width (`i32` for up to 32 bits).
    fn lane_bits(&mut self, elem: Elem, v: ValueId, span: Span) -> ValueId {
        match elem {
            Elem::Float(_) => {
                let it = if elem.size() == 8 { Ty::I64 } else { Ty::I32 };
                self.cast(CastOp::Bitcast, v, it, span)
            }
            Elem::Int(k) if k.bits() == 8 => self.cast(CastOp::ZExt8, v, Ty::I32, span),
            Elem::Int(k) if k.bits() == 16 => self.cast(CastOp::ZExt16, v, Ty::I32, span),
            Elem::Int(_) => v,
        }
    }

    /// Bits (the low `elem` bits of an integer) as a lane of type `elem`.
    fn bits_lane(&mut self, elem: Elem, x: ValueId, span: Span) -> ValueId {
        match elem {
            Elem::Float(k) => self.cast(CastOp::Bitcast, x, k.ty(), span),
            Elem::Int(k) if k.bits() < 32 => self.narrow(x, k, span),
            Elem::Int(_) => x,
        }
    }
}
