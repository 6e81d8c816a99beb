//! The IR's invariants, checked: [`verify`] accepts a [`Function`] only when every rule of
//! the module documentation of [`crate::ir`] and every per-kind rule below holds, and
//! otherwise names the first operation that breaks one and the rule it breaks.
//!
//! Structure:
//! - every operation reachable from the body sits in exactly one region, and its `parent` is
//!   that region; every region is owned by exactly one operation (the body by none) and its
//!   `parent` names that operation; only `If` (two regions) and `Loop` (one) own regions;
//! - a value's definition ([`ValueDef`]) names the operation result or region argument that
//!   lists it;
//! - an `If` arm has no arguments and ends with exactly one `Yield` whose operand types are
//!   the `If`'s result types; a loop body ends with exactly one `LoopEnd` whose operands are
//!   `[I1, next...]`, the `next` types being the body's argument types, which are the types
//!   of the `Loop`'s operands and results; `Yield` and `LoopEnd` appear nowhere else;
//! - SSA visibility: an operand is a value defined earlier in the same region or in an
//!   enclosing one (a region's arguments are visible only inside it, a value defined in a
//!   nested region only inside that region: it leaves it as an `If`/`Loop` result).
//!
//! The per-kind rules (operand and result counts and types) are listed at `check_kind`
//! below; [`cast_ok`], [`load_ok`] and [`store_ok`] give the type rules of casts and memory
//! accesses.

use super::{
    AtomicOp, BinOp, CastOp, CmpPred, Function, MathOp, Module, OpId, OpKind, ParamKind, RegionId,
    Space, Ty, UnOp, ValueDef, ValueId, WorkItem,
};
use std::fmt;

/// The first broken rule found: the kernel, the operation (when the rule is about one) and
/// the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct VerifyError {
    /// The kernel's name.
    pub kernel: String,
    /// The operation breaking the rule, if the rule is about one.
    pub op: Option<OpId>,
    /// The operation's IR text (see [`Function::op_text`]); empty without an operation or
    /// when the operation is too malformed to print.
    pub op_text: String,
    /// The rule, stated for this case.
    pub rule: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel @{}: ", self.kernel)?;
        match self.op {
            Some(op) if self.op_text.is_empty() => write!(f, "op {}: ", op.0)?,
            Some(op) => write!(f, "op {} `{}`: ", op.0, self.op_text)?,
            None => {}
        }
        f.write_str(&self.rule)
    }
}

/// Check one kernel. `ConstantAddr` indices are not checked here (the kernel does not know
/// the module's constants); [`verify_module`] checks them.
pub fn verify(func: &Function) -> Result<(), VerifyError> {
    Verifier::new(func, None).run()
}

/// Check every kernel of a module, including that `ConstantAddr` indices name one of the
/// module's constants.
pub fn verify_module(module: &Module) -> Result<(), VerifyError> {
    for func in &module.kernels {
        Verifier::new(func, Some(module.constants.len())).run()?;
    }
    Ok(())
}

/// What a region is for, which decides how it must end.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Body,
    IfArm,
    LoopBody,
}

struct Verifier<'a> {
    func: &'a Function,
    constants: Option<usize>,
    op_seen: Vec<bool>,
    region_seen: Vec<bool>,
    /// Values visible at the current point of the walk.
    visible: Vec<bool>,
}

type Check = Result<(), VerifyError>;

impl<'a> Verifier<'a> {
    fn new(func: &'a Function, constants: Option<usize>) -> Verifier<'a> {
        Verifier {
            func,
            constants,
            op_seen: vec![false; func.ops.len()],
            region_seen: vec![false; func.regions.len()],
            visible: vec![false; func.values.len()],
        }
    }

    fn error(&self, op: Option<OpId>, rule: impl Into<String>) -> VerifyError {
        let printable = op.is_some_and(|op| self.op_in_range(op) && self.op_indices_ok(op));
        VerifyError {
            kernel: self.func.name.clone(),
            op,
            op_text: if printable {
                self.func.op_text(op.unwrap())
            } else {
                String::new()
            },
            rule: rule.into(),
        }
    }

    fn op_in_range(&self, op: OpId) -> bool {
        (op.0 as usize) < self.func.ops.len()
    }

    fn op_indices_ok(&self, op: OpId) -> bool {
        let o = self.func.op(op);
        let nv = self.func.values.len();
        let nr = self.func.regions.len();
        o.operands
            .iter()
            .chain(&o.results)
            .all(|v| (v.0 as usize) < nv)
            && o.regions.iter().all(|r| (r.0 as usize) < nr)
    }

    fn run(mut self) -> Check {
        let f = self.func;
        for (i, p) in f.params.iter().enumerate() {
            if !param_type_ok(p.kind, p.ty) {
                return Err(self.error(
                    None,
                    format!(
                        "parameter {i} ({}) of kind {} cannot have IR type {}",
                        p.name,
                        p.kind.directive_name(),
                        p.ty
                    ),
                ));
            }
        }
        for (what, objs) in [("local", &f.locals), ("private", &f.privates)] {
            for (i, o) in objs.iter().enumerate() {
                if !o.align.is_power_of_two() {
                    return Err(self.error(
                        None,
                        format!(
                            "{what} object {i} ({}) has alignment {}, not a power of two",
                            o.name, o.align
                        ),
                    ));
                }
            }
        }
        if f.body.0 as usize >= f.regions.len() {
            return Err(self.error(None, format!("body region {} does not exist", f.body.0)));
        }
        self.region(f.body, None, Role::Body)
    }

    fn region(&mut self, id: RegionId, owner: Option<OpId>, role: Role) -> Check {
        let f = self.func;
        if id.0 as usize >= f.regions.len() {
            return Err(self.error(owner, format!("region {} does not exist", id.0)));
        }
        if std::mem::replace(&mut self.region_seen[id.0 as usize], true) {
            return Err(self.error(owner, format!("region {} is owned twice", id.0)));
        }
        let region = f.region(id);
        if region.parent != owner {
            let said = match region.parent {
                Some(p) => format!("op {}", p.0),
                None => "no operation".to_string(),
            };
            return Err(self.error(
                owner,
                format!("region {}'s parent is {said}, not its owner", id.0),
            ));
        }
        if role == Role::IfArm && !region.args.is_empty() {
            return Err(self.error(owner, format!("if arm region {} has arguments", id.0)));
        }
        if role == Role::Body && !region.args.is_empty() {
            return Err(self.error(None, "the body region has arguments"));
        }
        let mut defined: Vec<ValueId> = Vec::new();
        for (i, &a) in region.args.iter().enumerate() {
            if a.0 as usize >= f.values.len() {
                return Err(self.error(
                    owner,
                    format!(
                        "argument {i} of region {} is %{}, which does not exist",
                        id.0, a.0
                    ),
                ));
            }
            if f.def(a) != ValueDef::Arg(id, i as u32) {
                return Err(self.error(
                    owner,
                    format!(
                        "%{} is argument {i} of region {} but its definition says {:?}",
                        a.0,
                        id.0,
                        f.def(a)
                    ),
                ));
            }
            self.define(a, owner)?;
            defined.push(a);
        }
        let n = region.ops.len();
        for (pos, &op) in region.ops.iter().enumerate() {
            self.op(op, id, role, pos + 1 == n, owner)?;
            defined.extend(f.op(op).results.iter().copied());
        }
        match role {
            Role::IfArm
                if !region
                    .ops
                    .last()
                    .is_some_and(|&l| f.op(l).kind == OpKind::Yield) =>
            {
                return Err(self.error(
                    owner,
                    format!("if arm region {} does not end with yield", id.0),
                ));
            }
            Role::LoopBody
                if !region
                    .ops
                    .last()
                    .is_some_and(|&l| f.op(l).kind == OpKind::LoopEnd) =>
            {
                return Err(self.error(
                    owner,
                    format!("loop body region {} does not end with loop_end", id.0),
                ));
            }
            _ => {}
        }
        for v in defined {
            self.visible[v.0 as usize] = false;
        }
        Ok(())
    }

    fn define(&mut self, v: ValueId, op: Option<OpId>) -> Check {
        if std::mem::replace(&mut self.visible[v.0 as usize], true) {
            return Err(self.error(op, format!("%{} is defined twice", v.0)));
        }
        Ok(())
    }

    fn op(
        &mut self,
        id: OpId,
        region: RegionId,
        role: Role,
        last: bool,
        owner: Option<OpId>,
    ) -> Check {
        let f = self.func;
        if !self.op_in_range(id) {
            return Err(self.error(
                owner,
                format!(
                    "region {} lists op {}, which does not exist",
                    region.0, id.0
                ),
            ));
        }
        if std::mem::replace(&mut self.op_seen[id.0 as usize], true) {
            return Err(self.error(Some(id), "the operation appears in more than one place"));
        }
        if !self.op_indices_ok(id) {
            return Err(self.error(
                Some(id),
                "an operand, result or region index does not exist",
            ));
        }
        let op = f.op(id);
        if op.parent != region {
            return Err(self.error(
                Some(id),
                format!(
                    "its parent is region {} but it sits in region {}",
                    op.parent.0, region.0
                ),
            ));
        }
        for (i, &r) in op.results.iter().enumerate() {
            if f.def(r) != ValueDef::Op(id, i as u32) {
                return Err(self.error(
                    Some(id),
                    format!(
                        "result {i} is %{} but its definition says {:?}",
                        r.0,
                        f.def(r)
                    ),
                ));
            }
        }
        for &v in &op.operands {
            if !self.visible[v.0 as usize] {
                return Err(self.error(
                    Some(id),
                    format!(
                        "operand %{} is not visible here (SSA: a value is visible after its \
                         definition in its region and in the regions nested there)",
                        v.0
                    ),
                ));
            }
        }
        match op.kind {
            OpKind::Yield if !(role == Role::IfArm && last) => {
                return Err(self.error(
                    Some(id),
                    "yield may appear only as the last operation of an if arm",
                ));
            }
            OpKind::LoopEnd if !(role == Role::LoopBody && last) => {
                return Err(self.error(
                    Some(id),
                    "loop_end may appear only as the last operation of a loop body",
                ));
            }
            _ => {}
        }
        if let Err(rule) = check_kind(f, id, self.constants, owner) {
            return Err(self.error(Some(id), rule));
        }
        match op.kind {
            OpKind::If => {
                self.region(op.regions[0], Some(id), Role::IfArm)?;
                self.region(op.regions[1], Some(id), Role::IfArm)?;
            }
            OpKind::Loop => self.region(op.regions[0], Some(id), Role::LoopBody)?,
            _ => {}
        }
        for &r in &op.results {
            self.define(r, Some(id))?;
        }
        Ok(())
    }
}

/// Whether a parameter passed as `kind` may have IR type `ty`.
fn param_type_ok(kind: ParamKind, ty: Ty) -> bool {
    match kind {
        ParamKind::PtrGlobal => ty == Ty::Ptr(Space::Global),
        ParamKind::PtrConstant => ty == Ty::Ptr(Space::Constant),
        ParamKind::PtrLocal => ty == Ty::Ptr(Space::Local),
        ParamKind::I8
        | ParamKind::U8
        | ParamKind::I16
        | ParamKind::U16
        | ParamKind::I32
        | ParamKind::U32 => ty == Ty::I32,
        ParamKind::I64 | ParamKind::U64 => ty == Ty::I64,
        ParamKind::F16 => ty == Ty::F16,
        ParamKind::F32 => ty == Ty::F32,
        ParamKind::F64 => ty == Ty::F64,
    }
}

/// Whether `Cast(op)` may convert a `from` into a `to`.
///
/// - `ZExt`, `SExt`: integer to a strictly wider integer (`I1`→`I32`/`I64`, `I32`→`I64`);
/// - `Trunc`: integer to a strictly narrower one (`I64`→`I32`/`I1`, `I32`→`I1`);
/// - `SExt8`, `SExt16`, `ZExt8`, `ZExt16`: `I32`→`I32`;
/// - `FToSI`, `FToUI`: float to `I32`/`I64`; `SIToF`, `UIToF`: `I32`/`I64` to float;
/// - `FExt`: float to a strictly wider float; `FTrunc`: to a strictly narrower one;
/// - `Bitcast`: between distinct types of one width among `I32`, `I64`, `F32`, `F64` and
///   pointers (a pointer only to or from an integer: never between address spaces).
pub fn cast_ok(op: CastOp, from: Ty, to: Ty) -> bool {
    let int1 = |t: Ty| matches!(t, Ty::I1 | Ty::I32 | Ty::I64);
    match op {
        CastOp::ZExt | CastOp::SExt => int1(from) && to.is_int() && from.bits() < to.bits(),
        CastOp::Trunc => from.is_int() && int1(to) && to.bits() < from.bits(),
        CastOp::SExt8 | CastOp::SExt16 | CastOp::ZExt8 | CastOp::ZExt16 => {
            from == Ty::I32 && to == Ty::I32
        }
        CastOp::FToSI | CastOp::FToUI => from.is_float() && to.is_int(),
        CastOp::SIToF | CastOp::UIToF => from.is_int() && to.is_float(),
        CastOp::FExt => from.is_float() && to.is_float() && from.bits() < to.bits(),
        CastOp::FTrunc => from.is_float() && to.is_float() && from.bits() > to.bits(),
        CastOp::Bitcast => {
            let class = |t: Ty| {
                if t.is_ptr() {
                    2
                } else if t.is_int() {
                    0
                } else {
                    1
                }
            };
            from != to
                && from.bits() == to.bits()
                && from.bits() >= 32
                && !(from.is_ptr() && to.is_ptr())
                && !(from.is_ptr() && class(to) == 1)
                && !(to.is_ptr() && class(from) == 1)
        }
    }
}

/// The result types a `Load` of `size` bytes may produce, and when `signed` is allowed:
/// 1 byte → `I32`; 2 → `I32` or `F16`; 4 → `I32`, `F32` or a 32-bit pointer; 8 → `I64`,
/// `F64` or a 64-bit pointer; `signed` only for 1- and 2-byte `I32` loads.
pub fn load_ok(size: u8, signed: bool, ty: Ty) -> bool {
    let fits = match size {
        1 => ty == Ty::I32,
        2 => ty == Ty::I32 || ty == Ty::F16,
        4 | 8 => ty.bits() == u32::from(size) * 8 && ty != Ty::F16,
        _ => false,
    };
    fits && (!signed || (size < 4 && ty == Ty::I32))
}

/// The value types a `Store` of `size` bytes may write: the low 1, 2 or 4 bytes of an
/// `I32`/`I64` (or all 8 of an `I64`), 2 bytes of an `F16`, 4 of an `F32` or 32-bit
/// pointer, 8 of an `F64` or 64-bit pointer; `signed` is always false.
pub fn store_ok(size: u8, signed: bool, ty: Ty) -> bool {
    let fits = match ty {
        Ty::I32 => matches!(size, 1 | 2 | 4),
        Ty::I64 => matches!(size, 1 | 2 | 4 | 8),
        Ty::F16 => size == 2,
        Ty::I1 => false,
        _ => u32::from(size) * 8 == ty.bits(),
    };
    fits && !signed
}

fn arity(f: &Function, id: OpId, operands: usize, results: usize) -> Result<(), String> {
    let op = f.op(id);
    if op.operands.len() != operands || op.results.len() != results {
        return Err(format!(
            "takes {operands} operand(s) and defines {results} result(s), not {} and {}",
            op.operands.len(),
            op.results.len()
        ));
    }
    Ok(())
}

/// The rules of each kind. `owner` is the operation owning the region `id` sits in.
///
/// - `Const(bits)`: no operands, one non-pointer result whose width holds `bits` (`I1`:
///   0 or 1; 16- and 32-bit types: the bits above are zero).
/// - `Undef`: no operands, one result of any type.
/// - `Param(i)`: `i` names a parameter; the result has its IR type.
/// - `LocalAddr(i)`/`PrivateAddr(i)`/`ConstantAddr(i)`: `i` names a local/private/module
///   constant object; the result is a pointer into that space.
/// - `WorkItem(w)`: one `I32` result; the dimension is 0, 1 or 2.
/// - `Unary`: one operand of the result's type; `Neg Clz Ctz Popcount Brev Abs` on
///   `I32`/`I64`, `Not` on `I1`/`I32`/`I64`, `FNeg FAbs` on floats.
/// - `Binary`: two operands of the result's type; the integer operations on `I32`/`I64`
///   (`And Or Xor` also on `I1`), the float ones on floats.
/// - `Fma`: three operands of the result's float type.
/// - `Cmp`: two operands of one type, an `I1` result; `Eq Ne` on integers (`I1` too) and
///   pointers, `Ult Ule Ugt Uge` on `I32`/`I64` and pointers, `Slt Sle Sgt Sge` on
///   `I32`/`I64`, the `F*` predicates on floats.
/// - `Select`: `[I1, a, b]` with `a`, `b` and the result of one type.
/// - `Cast`: one operand; the pair of types as [`cast_ok`] says.
/// - `Math`: one operand of the result's type; `Sqrt` and `Rcp` on `F32`/`F64`, the others
///   on `F32`.
/// - `PtrAdd`: `[ptr, offset]`, the result of the pointer's type, the offset the integer of
///   the pointer's width.
/// - `Load`: `[ptr]` → value as [`load_ok`] says. `Store`: `[ptr, value]`, no result, not
///   through a `constant` pointer, the value as [`store_ok`] says.
/// - `Atomic`: through a `global` or `local` pointer; `CmpXchg` `[ptr, I32, I32] → I32`,
///   `Xchg` `[ptr, v] → v` with `v` an `I32` or `F32`, the others `[ptr, I32] → I32`.
/// - `Barrier`, `Fence`: no operands, no results.
/// - `If`: `[I1]`, two regions (then, else); `Loop`: one region, the operand, region
///   argument and result types equal, in order.
/// - `Yield`: the types of the owning `If`'s results. `LoopEnd`: `[I1, next...]`, the
///   `next` types those of the body's arguments.
/// - Only `If` and `Loop` own regions.
fn check_kind(
    f: &Function,
    id: OpId,
    constants: Option<usize>,
    owner: Option<OpId>,
) -> Result<(), String> {
    let op = f.op(id);
    let ty = |i: usize| f.ty(op.operands[i]);
    let rty = |i: usize| f.ty(op.results[i]);
    let structured = matches!(op.kind, OpKind::If | OpKind::Loop);
    if !structured && !op.regions.is_empty() {
        return Err("only if and loop own regions".into());
    }
    match op.kind {
        OpKind::Const(bits) => {
            arity(f, id, 0, 1)?;
            let t = rty(0);
            if t.is_ptr() {
                return Err("a constant cannot be a pointer".into());
            }
            let width = t.bits();
            if width < 64 && bits >> width != 0 {
                return Err(format!("bits {bits:#x} do not fit in {t}"));
            }
        }
        OpKind::Undef => arity(f, id, 0, 1)?,
        OpKind::Param(i) => {
            arity(f, id, 0, 1)?;
            let Some(p) = f.params.get(i as usize) else {
                return Err(format!("parameter {i} does not exist"));
            };
            if p.ty != rty(0) {
                return Err(format!(
                    "the result type must be parameter {i}'s type {}",
                    p.ty
                ));
            }
        }
        OpKind::LocalAddr(i) | OpKind::PrivateAddr(i) | OpKind::ConstantAddr(i) => {
            arity(f, id, 0, 1)?;
            let (space, count, what) = match op.kind {
                OpKind::LocalAddr(_) => (Space::Local, Some(f.locals.len()), "local"),
                OpKind::PrivateAddr(_) => (Space::Private, Some(f.privates.len()), "private"),
                _ => (Space::Constant, constants, "module constant"),
            };
            if count.is_some_and(|n| i as usize >= n) {
                return Err(format!("{what} object {i} does not exist"));
            }
            if rty(0) != Ty::Ptr(space) {
                return Err(format!("the result must be a ptr.{}", space.name()));
            }
        }
        OpKind::WorkItem(w) => {
            arity(f, id, 0, 1)?;
            if rty(0) != Ty::I32 {
                return Err("work-item functions are i32".into());
            }
            if let WorkItem::LocalId(d)
            | WorkItem::GroupId(d)
            | WorkItem::LocalSize(d)
            | WorkItem::NumGroups(d) = w
            {
                if d > 2 {
                    return Err(format!("dimension {d} is not 0, 1 or 2"));
                }
            }
        }
        OpKind::Unary(u) => {
            arity(f, id, 1, 1)?;
            let t = rty(0);
            if ty(0) != t {
                return Err("the operand must have the result's type".into());
            }
            let ok = match u {
                UnOp::Not => t == Ty::I1 || t.is_int(),
                UnOp::FNeg | UnOp::FAbs => t.is_float(),
                _ => t.is_int(),
            };
            if !ok {
                return Err(format!("{u:?} is not defined on {t}"));
            }
        }
        OpKind::Binary(b) => {
            arity(f, id, 2, 1)?;
            let t = rty(0);
            if ty(0) != t || ty(1) != t {
                return Err(format!(
                    "both operands must have the result's type {t} (they are {} and {})",
                    ty(0),
                    ty(1)
                ));
            }
            let ok = if b.is_float() {
                t.is_float()
            } else {
                t.is_int() || (t == Ty::I1 && matches!(b, BinOp::And | BinOp::Or | BinOp::Xor))
            };
            if !ok {
                return Err(format!("{b:?} is not defined on {t}"));
            }
        }
        OpKind::Fma => {
            arity(f, id, 3, 1)?;
            let t = rty(0);
            if !t.is_float() || (0..3).any(|i| ty(i) != t) {
                return Err("fma takes three floats of the result's type".into());
            }
        }
        OpKind::Cmp(p) => {
            arity(f, id, 2, 1)?;
            if rty(0) != Ty::I1 {
                return Err("a comparison's result is i1".into());
            }
            let t = ty(0);
            if ty(1) != t {
                return Err(format!(
                    "the operands have different types ({t} and {})",
                    ty(1)
                ));
            }
            use CmpPred::*;
            let ok = match p {
                Eq | Ne => t == Ty::I1 || t.is_int() || t.is_ptr(),
                Ult | Ule | Ugt | Uge => t.is_int() || t.is_ptr(),
                Slt | Sle | Sgt | Sge => t.is_int(),
                FOeq | FOlt | FOle | FOgt | FOge | FUne | FOrd | FUno => t.is_float(),
            };
            if !ok {
                return Err(format!("predicate {p:?} is not defined on {t}"));
            }
        }
        OpKind::Select => {
            arity(f, id, 3, 1)?;
            if ty(0) != Ty::I1 {
                return Err("the condition must be i1".into());
            }
            if ty(1) != rty(0) || ty(2) != rty(0) {
                return Err("both choices must have the result's type".into());
            }
        }
        OpKind::Cast(c) => {
            arity(f, id, 1, 1)?;
            if !cast_ok(c, ty(0), rty(0)) {
                return Err(format!("{c:?} cannot convert {} to {}", ty(0), rty(0)));
            }
        }
        OpKind::Math(m) => {
            arity(f, id, 1, 1)?;
            let t = rty(0);
            if ty(0) != t {
                return Err("the operand must have the result's type".into());
            }
            let ok = match m {
                MathOp::Sqrt | MathOp::Rcp => matches!(t, Ty::F32 | Ty::F64),
                _ => t == Ty::F32,
            };
            if !ok {
                return Err(format!("{m:?} is not defined on {t}"));
            }
        }
        OpKind::PtrAdd => {
            arity(f, id, 2, 1)?;
            let p = ty(0);
            if !p.is_ptr() || rty(0) != p {
                return Err("ptradd takes a pointer and gives a pointer of its type".into());
            }
            if ty(1) != p.int_of_width() {
                return Err(format!(
                    "the offset must be {} (the {p} width), not {}",
                    p.int_of_width(),
                    ty(1)
                ));
            }
        }
        OpKind::Load(m) => {
            arity(f, id, 1, 1)?;
            if !ty(0).is_ptr() {
                return Err("a load's operand must be a pointer".into());
            }
            if !load_ok(m.size, m.signed, rty(0)) {
                return Err(format!(
                    "a {}{}-byte load cannot produce {}",
                    if m.signed { "signed " } else { "" },
                    m.size,
                    rty(0)
                ));
            }
        }
        OpKind::Store(m) => {
            arity(f, id, 2, 0)?;
            match ty(0) {
                Ty::Ptr(Space::Constant) => {
                    return Err("a store cannot write through a constant pointer".into())
                }
                Ty::Ptr(_) => {}
                _ => return Err("a store's first operand must be a pointer".into()),
            }
            if !store_ok(m.size, m.signed, ty(1)) {
                return Err(format!(
                    "a {}{}-byte store cannot write a {}",
                    if m.signed { "signed " } else { "" },
                    m.size,
                    ty(1)
                ));
            }
        }
        OpKind::Atomic(a) => {
            let n = if a == AtomicOp::CmpXchg { 3 } else { 2 };
            arity(f, id, n, 1)?;
            if !matches!(ty(0), Ty::Ptr(Space::Global | Space::Local)) {
                return Err("atomics work through global or local pointers".into());
            }
            let t = rty(0);
            let ok = if a == AtomicOp::Xchg {
                matches!(t, Ty::I32 | Ty::F32)
            } else {
                t == Ty::I32
            };
            if !ok || (1..n).any(|i| ty(i) != t) {
                return Err(format!(
                    "atomic {a:?} works on 32-bit values: operands and result of one type \
                     ({})",
                    if a == AtomicOp::Xchg {
                        "i32 or f32"
                    } else {
                        "i32"
                    }
                ));
            }
        }
        OpKind::Barrier { .. } | OpKind::Fence { .. } => arity(f, id, 0, 0)?,
        OpKind::If => {
            if op.operands.len() != 1 || ty(0) != Ty::I1 {
                return Err("if takes one i1 operand".into());
            }
            if op.regions.len() != 2 {
                return Err("if owns two regions (then, else)".into());
            }
        }
        OpKind::Loop => {
            if op.regions.len() != 1 {
                return Err("loop owns one region".into());
            }
            let args = &f.region(op.regions[0]).args;
            if args.iter().any(|a| a.0 as usize >= f.values.len()) {
                return Err("a body argument does not exist".into());
            }
            let inits: Vec<Ty> = op.operands.iter().map(|&v| f.ty(v)).collect();
            let arg_tys: Vec<Ty> = args.iter().map(|&v| f.ty(v)).collect();
            let res: Vec<Ty> = op.results.iter().map(|&v| f.ty(v)).collect();
            if inits != arg_tys || res != arg_tys {
                return Err(format!(
                    "operand types [{}], body argument types [{}] and result types [{}] \
                     must be equal",
                    list(&inits),
                    list(&arg_tys),
                    list(&res)
                ));
            }
        }
        OpKind::Yield => {
            let owner = owner.expect("a yield sits in an if arm");
            let want: Vec<Ty> = f.op(owner).results.iter().map(|&v| f.ty(v)).collect();
            let got: Vec<Ty> = op.operands.iter().map(|&v| f.ty(v)).collect();
            if want != got {
                return Err(format!(
                    "yields [{}] but the if's results are [{}]",
                    list(&got),
                    list(&want)
                ));
            }
        }
        OpKind::LoopEnd => {
            let owner = owner.expect("a loop_end sits in a loop body");
            let args = &f.region(f.op(owner).regions[0]).args;
            let want: Vec<Ty> = args.iter().map(|&v| f.ty(v)).collect();
            let got: Vec<Ty> = op.operands.iter().map(|&v| f.ty(v)).collect();
            if got.first() != Some(&Ty::I1) || got[1..] != want[..] {
                return Err(format!(
                    "loop_end takes [i1, {}] (the continue flag, then the next values of \
                     the body's arguments), not [{}]",
                    list(&want),
                    list(&got)
                ));
            }
        }
    }
    Ok(())
}

fn list(tys: &[Ty]) -> String {
    tys.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
