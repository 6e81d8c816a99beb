//! Semantic analysis of OpenCL C 1.2 and its lowering to structured SSA ([`crate::ir`]).
//!
//! One walk over the syntax tree types every expression (C99's promotions and conversions,
//! OpenCL's address spaces and built-ins) and emits IR at once:
//!
//! - Scalar locals whose address is never taken are SSA values: the walk keeps each
//!   variable's current value, an `if` yields the variables either arm assigned, a loop
//!   carries the variables its body assigns (found by carrying every variable and pruning
//!   the unchanged ones afterwards).
//! - Vectors are scalarized: a vector value is one SSA value per element (its lanes), a
//!   vector variable one SSA variable per element, a vector in memory its elements one
//!   after the other (`vector.rs`).
//! - Arrays, structs, unions and address-taken scalars are private memory objects.
//! - `break`, `continue` and `return` set `i1` flag variables; the rest of every enclosing
//!   block up to the construct the flag belongs to is guarded by `if !flags`, and a loop
//!   continues only while no flag is set and its condition holds.
//! - Every call of a function with a body is inlined; the built-ins map to IR operations or
//!   to the OpenCL C library functions of the prelude (`__cl_NAME_f32`).

mod arith;
mod builtins;
mod consteval;
mod convert;
mod decl;
mod expr;
mod floatlit;
mod func;
mod init;
mod place;
mod stmt;
mod types;
mod vector;
mod vector_builtins;

use crate::ast;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{self, BinOp, CastOp, CmpPred, OpKind, RegionId, Space, Ty, UnOp, ValueId};
use crate::source::{ExpnId, SourceMap, Span};
use place::{Place, VarId, LV};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use types::{FnType, QualType, Records, Type};

/// What to compile and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Compile only the kernels of these names (`None`: every kernel of the unit).
    pub kernels: Option<Vec<String>>,
    /// Contract `a*b + c` (and `a*b - c`, `c - a*b`) into one fused multiply-add
    /// (`-cl-mad-enable`, `-ffp-contract=fast`).
    pub contract_fp: bool,
    /// `-cl-fast-relaxed-math` (implies `contract_fp`).
    pub fast_relaxed_math: bool,
    /// `-cl-denorms-are-zero`.
    pub denorms_are_zero: bool,
}

/// Type-check translation unit `tu` and lower its kernels to IR. Errors go to `diags`; the
/// module is meaningful only when there are none.
pub fn lower(
    tu: &ast::TranslationUnit,
    sources: &SourceMap,
    opts: &Options,
    diags: &mut Diagnostics,
) -> ir::Module {
    // The walk recurses over statements, expressions and inlined calls: it runs on a thread
    // whose stack holds the deepest trees the parser accepts, whatever the caller's stack.
    let mut result = None;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("warpkit-cc-lower".into())
            .stack_size(LOWER_STACK)
            .spawn_scoped(scope, || lower_here(tu, sources, opts, diags));
        if let Ok(worker) = worker {
            result = Some(
                worker
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
        }
    });
    result.unwrap_or_else(|| lower_here(tu, sources, opts, diags))
}

/// The lowering thread's stack size (address space; only what is used is touched).
const LOWER_STACK: usize = 256 << 20;

fn lower_here(
    tu: &ast::TranslationUnit,
    sources: &SourceMap,
    opts: &Options,
    diags: &mut Diagnostics,
) -> ir::Module {
    let mut lw = Lowerer::new(sources, opts, diags);
    lw.program(tu);
    lw.module
}

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Storage {
    /// An SSA value tracked by the walk.
    Ssa,
    /// A vector whose elements are the SSA variables that follow this one (one per
    /// element: `VarId(v + 1)`, `VarId(v + 2)`, ...); the variable itself holds nothing.
    Lanes,
    /// Private memory object `i` of the kernel.
    Private(u32),
    /// `__local` memory object `i` of the kernel.
    Local(u32),
}

/// A variable: a local, a parameter, or one of the walk's own flags.
#[derive(Debug, Clone)]
pub(crate) struct Var {
    pub name: String,
    pub ty: QualType,
    pub storage: Storage,
    /// The inlined-function frame it belongs to (others' SSA variables cannot change).
    pub frame: u32,
    /// Still in scope.
    pub live: bool,
    /// A control flag (`break`/`continue`/`return`/`matched`): unset means false.
    pub flag: bool,
}

/// The current value of an SSA variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VarVal {
    /// No value: uninitialised (reads give `undef`), or false for a flag.
    Unset,
    /// A flag known to be set.
    True,
    /// This value.
    Val(ValueId),
}

/// What a name means.
#[derive(Debug, Clone)]
pub(crate) enum Sym {
    Var(VarId),
    Typedef(QualType),
    EnumConst(i64),
    Func(usize),
    /// A `__constant` variable of the program (or a kernel's outermost scope).
    Global(usize),
}

/// One lexical scope.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    pub names: HashMap<String, (Sym, Span)>,
    pub tags: HashMap<String, Tag>,
    pub vars: Vec<VarId>,
}

/// What a struct/union/enum tag names.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tag {
    Record(types::RecordId, bool),
    Enum,
}

/// A function of the unit: declared, maybe defined.
#[derive(Debug)]
pub(crate) struct FuncInfo<'a> {
    pub name: String,
    pub ty: Rc<FnType>,
    pub def: Option<&'a ast::FunctionDef>,
    pub is_kernel: bool,
    pub span: Span,
    /// Defined in the compiler's prelude: its code carries the call site's lines.
    pub builtin: bool,
    pub addr_taken: Option<Rc<HashSet<String>>>,
}

/// A program-scope (or kernel-scope) `__constant` variable.
#[derive(Debug, Clone)]
pub(crate) struct GlobalVar {
    pub name: String,
    pub ty: QualType,
    pub bytes: Vec<u8>,
    pub align: u32,
    /// Its index in [`ir::Module::constants`], once used.
    pub index: Option<u32>,
}

/// The targets of `break` and `continue`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Breakable {
    pub brk: VarId,
    /// `Some` for loops (`continue` target), `None` for `switch`.
    pub cnt: Option<VarId>,
}

/// Where a function's return value goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RetSlot {
    Var(VarId),
    Mem(u32),
}

/// One function being lowered (the kernel, or a helper inlined into it).
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub id: u32,
    pub name: String,
    pub ret: VarId,
    pub retval: Option<RetSlot>,
    pub ret_ty: Type,
    pub breakables: Vec<Breakable>,
    pub addr_taken: Rc<HashSet<String>>,
    pub is_kernel: bool,
    /// Index of the frame's outermost scope in [`Lowerer::scopes`].
    pub scope_base: usize,
    /// [`Lowerer::vars`]' length when the frame began: its variables come after.
    pub var_base: usize,
}

/// A typed rvalue: a scalar's value, an aggregate's address, a vector's elements, or
/// nothing (`void`, errors).
#[derive(Debug, Clone)]
pub(crate) struct RV {
    pub ty: Type,
    pub v: Option<ValueId>,
    /// A vector's elements (`v` is `None`); empty for every other type.
    pub lanes: Vec<ValueId>,
}

impl RV {
    pub(crate) fn error() -> RV {
        RV {
            ty: Type::Error,
            v: None,
            lanes: Vec::new(),
        }
    }

    pub(crate) fn void() -> RV {
        RV {
            ty: Type::Void,
            v: None,
            lanes: Vec::new(),
        }
    }

    pub(crate) fn val(ty: Type, v: ValueId) -> RV {
        RV {
            ty,
            v: Some(v),
            lanes: Vec::new(),
        }
    }

    /// A vector value of type `ty` (a `Type::Vector` with as many elements as `lanes`).
    pub(crate) fn vector(ty: Type, lanes: Vec<ValueId>) -> RV {
        RV { ty, v: None, lanes }
    }
}

/// One arm of an `If` under construction.
pub(crate) struct Arm {
    region: RegionId,
    state: Vec<VarVal>,
    pub extra: Vec<ValueId>,
}

pub(crate) struct Lowerer<'a> {
    pub sources: &'a SourceMap,
    pub opts: &'a Options,
    diags: &'a mut Diagnostics,
    /// Diagnostics are dropped while this is nonzero (code lowered twice, or only typed).
    pub mute: u32,
    pub records: Records,
    pub scopes: Vec<Scope>,
    pub funcs: Vec<FuncInfo<'a>>,
    pub globals: Vec<GlobalVar>,
    pub module: ir::Module,
    strings: HashMap<Vec<u8>, usize>,
    /// Lowering a function only for its diagnostics: module side effects are skipped.
    pub checking: bool,
    // The function being lowered.
    pub f: ir::Function,
    pub region: RegionId,
    pub vars: Vec<Var>,
    pub cur: Vec<VarVal>,
    pub frames: Vec<Frame>,
    next_frame: u32,
    pub inline_stack: Vec<usize>,
    /// Flag values known to be false in the region being built (inside a guard).
    pub known_false: Vec<ValueId>,
    /// Spans of the prelude's code are replaced by the user's call site.
    pub span_override: Option<Span>,
    /// Functions on a recursion cycle (reported once; calls to them are not inlined).
    pub recursive: HashSet<usize>,
    /// Switch-body declarations declared ahead of their segment.
    pub predeclared: HashMap<*const ast::InitDeclarator, Option<VarId>>,
    /// Declaring switch-body variables ahead: their initializers run later.
    pub predeclaring: bool,
    /// Nonzero while expressions are lowered only for their type: calls are not inlined.
    pub typing: u32,
    /// Types of expressions already typed ([`Lowerer::cached_type_of`]).
    pub type_cache: HashMap<*const ast::Expr, Type>,
}

impl<'a> Lowerer<'a> {
    fn new(sources: &'a SourceMap, opts: &'a Options, diags: &'a mut Diagnostics) -> Self {
        let f = ir::Function::new("", Span::DUMMY);
        let body = f.body;
        Lowerer {
            sources,
            opts,
            diags,
            mute: 0,
            records: Records::default(),
            scopes: vec![Scope::default()],
            funcs: Vec::new(),
            globals: Vec::new(),
            module: ir::Module::default(),
            strings: HashMap::new(),
            checking: false,
            f,
            region: body,
            vars: Vec::new(),
            cur: Vec::new(),
            frames: Vec::new(),
            next_frame: 0,
            inline_stack: Vec::new(),
            known_false: Vec::new(),
            span_override: None,
            recursive: HashSet::new(),
            predeclared: HashMap::new(),
            predeclaring: false,
            typing: 0,
            type_cache: HashMap::new(),
        }
    }

    // ---- diagnostics ----

    pub(crate) fn report(&mut self, d: Diagnostic) {
        if self.mute == 0 {
            self.diags.push(d);
        }
    }

    pub(crate) fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.report(Diagnostic::error(span, msg));
    }

    pub(crate) fn error_in(
        &mut self,
        span: Span,
        expansion: Option<ExpnId>,
        msg: impl Into<String>,
    ) {
        self.report(Diagnostic::error(span, msg).in_expansion(expansion));
    }

    pub(crate) fn warning(&mut self, span: Span, msg: impl Into<String>) {
        self.report(Diagnostic::warning(span, msg));
    }

    pub(crate) fn unsupported(&mut self, span: Span, what: impl std::fmt::Display) {
        self.report(Diagnostic::unsupported(span, what));
    }

    pub(crate) fn show(&self, q: &QualType) -> String {
        self.records.show(q)
    }

    pub(crate) fn show_ty(&self, t: &Type) -> String {
        self.records.show_ty(t)
    }

    // ---- IR emission ----

    /// The span ops get: the call site's inside prelude code.
    pub(crate) fn sp(&self, span: Span) -> Span {
        self.span_override.unwrap_or(span)
    }

    pub(crate) fn emit(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        ty: Ty,
        span: Span,
    ) -> ValueId {
        let span = self.sp(span);
        self.f.push_value(self.region, kind, operands, ty, span)
    }

    pub(crate) fn emit0(&mut self, kind: OpKind, operands: Vec<ValueId>, span: Span) {
        let span = self.sp(span);
        self.f
            .push_op(self.region, kind, operands, &[], Vec::new(), span);
    }

    pub(crate) fn vty(&self, v: ValueId) -> Ty {
        self.f.ty(v)
    }

    pub(crate) fn konst(&mut self, ty: Ty, bits: u64, span: Span) -> ValueId {
        let bits = match ty {
            Ty::I1 => bits & 1,
            Ty::I32 | Ty::F32 => bits & 0xffff_ffff,
            Ty::F16 => bits & 0xffff,
            _ => bits,
        };
        if let Ty::Ptr(space) = ty {
            let int = self.konst(Ty::int_of_width(Ty::Ptr(space)), bits, span);
            return self.emit(OpKind::Cast(CastOp::Bitcast), vec![int], ty, span);
        }
        self.emit(OpKind::Const(bits), Vec::new(), ty, span)
    }

    pub(crate) fn undef(&mut self, ty: Ty, span: Span) -> ValueId {
        self.emit(OpKind::Undef, Vec::new(), ty, span)
    }

    pub(crate) fn const_of(&self, v: ValueId) -> Option<u64> {
        self.f.const_bits(v)
    }

    pub(crate) fn bin(&mut self, op: BinOp, a: ValueId, b: ValueId, span: Span) -> ValueId {
        let ty = self.vty(a);
        self.emit(OpKind::Binary(op), vec![a, b], ty, span)
    }

    pub(crate) fn un(&mut self, op: UnOp, a: ValueId, span: Span) -> ValueId {
        let ty = self.vty(a);
        self.emit(OpKind::Unary(op), vec![a], ty, span)
    }

    pub(crate) fn cmp(&mut self, pred: CmpPred, a: ValueId, b: ValueId, span: Span) -> ValueId {
        self.emit(OpKind::Cmp(pred), vec![a, b], Ty::I1, span)
    }

    pub(crate) fn select(&mut self, c: ValueId, a: ValueId, b: ValueId, span: Span) -> ValueId {
        let ty = self.vty(a);
        self.emit(OpKind::Select, vec![c, a, b], ty, span)
    }

    pub(crate) fn not(&mut self, c: ValueId, span: Span) -> ValueId {
        if let Some(b) = self.const_of(c) {
            return self.konst(Ty::I1, b ^ 1, span);
        }
        self.un(UnOp::Not, c, span)
    }

    /// A conversion op; constants are folded where the result is exact and certain.
    pub(crate) fn cast(&mut self, op: CastOp, v: ValueId, to: Ty, span: Span) -> ValueId {
        let from = self.vty(v);
        if from == to
            && !matches!(
                op,
                CastOp::SExt8 | CastOp::SExt16 | CastOp::ZExt8 | CastOp::ZExt16
            )
        {
            return v;
        }
        if let Some(bits) = self.const_of(v) {
            if let Some(r) = arith::fold_cast(op, bits, from, to) {
                return self.konst(to, r, span);
            }
        }
        self.emit(OpKind::Cast(op), vec![v], to, span)
    }

    /// Append the ops `f` emits to region `region` (at its end) and come back.
    pub(crate) fn in_region<R>(&mut self, region: RegionId, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = std::mem::replace(&mut self.region, region);
        let r = f(self);
        self.region = saved;
        r
    }

    /// Run `f` for its diagnostics and types only: its ops go to a detached region and the
    /// variables keep their values.
    pub(crate) fn dead<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved_cur = self.cur.clone();
        let (privates, locals) = (self.f.privates.len(), self.f.locals.len());
        let region = self.f.new_region(&[]);
        let r = self.in_region(region, f);
        self.cur[..saved_cur.len()].copy_from_slice(&saved_cur);
        self.reset_from(saved_cur.len());
        // Objects of dead code would only take memory (its declarations are out of scope
        // when it ends; a switch's leading declarations are made outside it).
        self.f.privates.truncate(privates);
        self.f.locals.truncate(locals);
        r
    }

    /// Forget the values of variables `n..`: they were created in a region that ended.
    pub(crate) fn reset_from(&mut self, n: usize) {
        for v in self.cur.iter_mut().skip(n) {
            *v = VarVal::Unset;
        }
    }

    // ---- variables ----

    pub(crate) fn frame(&self) -> &Frame {
        self.frames.last().expect("a function is being lowered")
    }

    pub(crate) fn frame_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a function is being lowered")
    }

    pub(crate) fn new_var(
        &mut self,
        name: &str,
        ty: QualType,
        storage: Storage,
        flag: bool,
    ) -> VarId {
        let id = VarId(self.vars.len() as u32);
        let frame = self.frames.last().map_or(0, |f| f.id);
        self.vars.push(Var {
            name: name.to_string(),
            ty,
            storage,
            frame,
            live: true,
            flag,
        });
        self.cur.push(VarVal::Unset);
        id
    }

    pub(crate) fn new_flag(&mut self, name: &str) -> VarId {
        self.new_var(name, QualType::plain(Type::Bool), Storage::Ssa, true)
    }

    pub(crate) fn kill_var(&mut self, v: VarId) {
        for lane in self.var_lanes(v) {
            self.kill_var(lane);
        }
        self.vars[v.0 as usize].live = false;
        self.cur[v.0 as usize] = VarVal::Unset;
    }

    pub(crate) fn var(&self, v: VarId) -> &Var {
        &self.vars[v.0 as usize]
    }

    /// The IR type of an SSA variable.
    pub(crate) fn var_ir_ty(&self, v: VarId) -> Ty {
        self.var(v).ty.ty.ir().unwrap_or(Ty::I32)
    }

    /// The value of an SSA variable, materialized in the current region.
    pub(crate) fn read_var(&mut self, v: VarId, span: Span) -> ValueId {
        let val = self.cur[v.0 as usize];
        self.materialize(v, val, span)
    }

    pub(crate) fn materialize(&mut self, v: VarId, val: VarVal, span: Span) -> ValueId {
        match val {
            VarVal::Val(x) => x,
            VarVal::True => self.konst(Ty::I1, 1, span),
            VarVal::Unset => {
                if self.var(v).flag {
                    self.konst(Ty::I1, 0, span)
                } else {
                    let ty = self.var_ir_ty(v);
                    self.undef(ty, span)
                }
            }
        }
    }

    pub(crate) fn write_var(&mut self, v: VarId, x: ValueId) {
        self.cur[v.0 as usize] = VarVal::Val(x);
    }

    /// Whether flag `v` may be set here.
    pub(crate) fn flag_may_be_set(&self, v: VarId) -> bool {
        match self.cur[v.0 as usize] {
            VarVal::Unset => false,
            VarVal::True => true,
            VarVal::Val(x) => !self.known_false.contains(&x) && self.const_of(x) != Some(0),
        }
    }

    /// The flags that end the current block early, in the current frame and construct:
    /// the innermost `break` and `continue` targets and `return`.
    pub(crate) fn active_flags(&self) -> Vec<VarId> {
        let Some(frame) = self.frames.last() else {
            return Vec::new();
        };
        let mut flags = Vec::new();
        if let Some(b) = frame.breakables.last() {
            flags.push(b.brk);
        }
        if let Some(c) = frame.breakables.iter().rev().find_map(|b| b.cnt) {
            flags.push(c);
        }
        flags.push(frame.ret);
        flags
    }

    /// Lower `rest` guarded by "no flag of `flags` is set" when one may be; as dead code
    /// when one surely is. Returns whether `rest` was lowered.
    pub(crate) fn guard(
        &mut self,
        flags: &[VarId],
        span: Span,
        rest: impl FnOnce(&mut Self),
    ) -> bool {
        let set: Vec<VarId> = flags
            .iter()
            .copied()
            .filter(|&f| self.flag_may_be_set(f))
            .collect();
        if set.is_empty() {
            return false;
        }
        if set.iter().any(|&f| self.cur[f.0 as usize] == VarVal::True) {
            self.dead(rest);
            return true;
        }
        let values: Vec<ValueId> = set.iter().map(|&f| self.read_var(f, span)).collect();
        let any = self.or_all(&values, span);
        let go = self.not(any, span);
        self.build_if(
            go,
            span,
            |s| {
                let mark = s.known_false.len();
                s.known_false.extend(&values);
                rest(s);
                s.known_false.truncate(mark);
                Vec::new()
            },
            |_| Vec::new(),
            &[],
        );
        true
    }

    pub(crate) fn or_all(&mut self, values: &[ValueId], span: Span) -> ValueId {
        let mut acc = values[0];
        for &v in &values[1..] {
            acc = self.bin(BinOp::Or, acc, v, span);
        }
        acc
    }

    // ---- structured control flow ----

    /// Lower one arm of an `If` starting from variable state `snap`.
    pub(crate) fn arm(
        &mut self,
        snap: &[VarVal],
        f: impl FnOnce(&mut Self) -> Vec<ValueId>,
    ) -> Arm {
        self.cur[..snap.len()].copy_from_slice(snap);
        self.reset_from(snap.len());
        let region = self.f.new_region(&[]);
        let extra = self.in_region(region, f);
        Arm {
            region,
            state: self.cur.clone(),
            extra,
        }
    }

    /// `if cond { then } else { otherwise }`, each arm yielding `extra` values of types
    /// `extra_tys` after the variables either arm assigned; returns the extra results.
    pub(crate) fn build_if(
        &mut self,
        cond: ValueId,
        span: Span,
        then: impl FnOnce(&mut Self) -> Vec<ValueId>,
        otherwise: impl FnOnce(&mut Self) -> Vec<ValueId>,
        extra_tys: &[Ty],
    ) -> Vec<ValueId> {
        let snap = self.cur.clone();
        let t = self.arm(&snap, then);
        let e = self.arm(&snap, otherwise);
        self.finish_if(cond, span, snap, t, e, extra_tys)
    }

    /// Assemble an `If` from two arms lowered from state `snap`.
    pub(crate) fn finish_if(
        &mut self,
        cond: ValueId,
        span: Span,
        snap: Vec<VarVal>,
        t: Arm,
        e: Arm,
        extra_tys: &[Ty],
    ) -> Vec<ValueId> {
        let n = snap.len();
        self.cur[..n].copy_from_slice(&snap);
        self.reset_from(n);
        let mut merged = Vec::new();
        let mut after_not = Vec::new();
        for (i, &before) in snap.iter().enumerate() {
            if !self.vars[i].live {
                continue;
            }
            let (a, b) = (t.state[i], e.state[i]);
            if a == before && b == before {
                continue;
            }
            if a == b {
                self.cur[i] = a;
                continue;
            }
            if self.vars[i].flag {
                match (a, b) {
                    (VarVal::True, VarVal::Unset) => {
                        self.cur[i] = VarVal::Val(cond);
                        continue;
                    }
                    (VarVal::Unset, VarVal::True) => {
                        after_not.push(i);
                        continue;
                    }
                    _ => {}
                }
            }
            merged.push(i);
        }
        let no_results = merged.is_empty() && extra_tys.is_empty();
        if no_results
            && self.f.region(t.region).ops.is_empty()
            && self.f.region(e.region).ops.is_empty()
        {
            // Nothing happens in either arm: no `If` at all.
            if !after_not.is_empty() {
                let nc = self.not(cond, span);
                for i in after_not {
                    self.cur[i] = VarVal::Val(nc);
                }
            }
            return Vec::new();
        }
        let yields = |s: &mut Self, arm: &Arm| {
            let vals: Vec<ValueId> = merged
                .iter()
                .map(|&i| {
                    let val = arm.state[i];
                    s.in_region(arm.region, |s| s.materialize(VarId(i as u32), val, span))
                })
                .chain(arm.extra.iter().copied())
                .collect();
            s.in_region(arm.region, |s| s.emit0(OpKind::Yield, vals, span));
        };
        yields(self, &t);
        yields(self, &e);
        let mut tys: Vec<Ty> = merged
            .iter()
            .map(|&i| self.var_ir_ty(VarId(i as u32)))
            .collect();
        tys.extend_from_slice(extra_tys);
        let span = self.sp(span);
        let op = self.f.push_op(
            self.region,
            OpKind::If,
            vec![cond],
            &tys,
            vec![t.region, e.region],
            span,
        );
        let results = self.f.op(op).results.clone();
        for (k, &i) in merged.iter().enumerate() {
            self.cur[i] = VarVal::Val(results[k]);
        }
        if !after_not.is_empty() {
            let nc = self.not(cond, span);
            for i in after_not {
                self.cur[i] = VarVal::Val(nc);
            }
        }
        results[merged.len()..].to_vec()
    }

    /// A loop carrying every SSA variable of the current frame that `body` changes (and the
    /// `return` flag). `body` lowers one iteration and returns the continue condition.
    pub(crate) fn build_loop(&mut self, span: Span, body: impl FnOnce(&mut Self) -> ValueId) {
        let frame_id = self.frame().id;
        let ret = self.frame().ret;
        let n0 = self.vars.len();
        let candidates: Vec<usize> = (0..self.vars.len())
            .filter(|&i| {
                let v = &self.vars[i];
                v.live && !v.flag && v.frame == frame_id && v.storage == Storage::Ssa
            })
            .collect();
        let tys: Vec<Ty> = candidates
            .iter()
            .map(|&i| self.var_ir_ty(VarId(i as u32)))
            .collect();
        let region = self.f.new_region(&tys);
        let args = self.f.region(region).args.clone();
        let init: Vec<VarVal> = candidates.iter().map(|&i| self.cur[i]).collect();
        for (k, &i) in candidates.iter().enumerate() {
            self.cur[i] = VarVal::Val(args[k]);
        }
        let ret_outer = self.cur[ret.0 as usize];
        self.cur[ret.0 as usize] = VarVal::Unset;

        let cont = self.in_region(region, body);

        // Which variables changed.
        let mut kept = Vec::new(); // (var, init, next value)
        let mut pruned: HashMap<ValueId, (usize, VarVal)> = HashMap::new();
        for (k, &i) in candidates.iter().enumerate() {
            let next = self.cur[i];
            if next == VarVal::Val(args[k]) {
                pruned.insert(args[k], (i, init[k]));
            } else {
                kept.push((i, Some(args[k]), init[k], next));
            }
        }
        let ret_next = self.cur[ret.0 as usize];
        if ret_next != VarVal::Unset {
            kept.push((ret.0 as usize, None, VarVal::Unset, ret_next));
        }
        // Ends the body.
        let nexts: Vec<ValueId> = kept
            .iter()
            .map(|&(i, _, _, next)| {
                self.in_region(region, |s| s.materialize(VarId(i as u32), next, span))
            })
            .collect();
        let mut ops = vec![cont];
        ops.extend(&nexts);
        self.in_region(region, |s| s.emit0(OpKind::LoopEnd, ops, span));

        // Unchanged variables read their value from before the loop.
        let mut replace: HashMap<ValueId, ValueId> = HashMap::new();
        let used = self.used_values(region);
        for (arg, (i, val)) in &pruned {
            if used.contains(arg) {
                let x = self.materialize(VarId(*i as u32), *val, span);
                replace.insert(*arg, x);
            }
        }
        if !replace.is_empty() {
            self.replace_uses(region, &replace);
        }
        // The region keeps the arguments of the carried variables only; the `return` flag
        // gets a fresh one (each iteration starts with it clear).
        let mut new_args = Vec::new();
        for &(i, arg, _, _) in &kept {
            let arg = match arg {
                Some(a) => a,
                None => {
                    let ty = self.var_ir_ty(VarId(i as u32));
                    self.f.values.push(ir::ValueInfo {
                        ty,
                        def: ir::ValueDef::Arg(region, 0),
                    });
                    ValueId(self.f.values.len() as u32 - 1)
                }
            };
            self.f.values[arg.0 as usize].def = ir::ValueDef::Arg(region, new_args.len() as u32);
            new_args.push(arg);
        }
        self.f.region_mut(region).args = new_args;
        let inits: Vec<ValueId> = kept
            .iter()
            .map(|&(i, _, init, _)| self.materialize(VarId(i as u32), init, span))
            .collect();
        let tys: Vec<Ty> = kept
            .iter()
            .map(|&(i, _, _, _)| self.var_ir_ty(VarId(i as u32)))
            .collect();
        let sspan = self.sp(span);
        let op = self
            .f
            .push_op(self.region, OpKind::Loop, inits, &tys, vec![region], sspan);
        let results = self.f.op(op).results.clone();
        self.reset_from(n0);
        for (i, val) in pruned.into_values() {
            self.cur[i] = val;
        }
        self.cur[ret.0 as usize] = ret_outer;
        for (k, &(i, _, _, _)) in kept.iter().enumerate() {
            self.cur[i] = VarVal::Val(results[k]);
        }
    }

    /// Every value used as an operand in `region` and the regions nested in it.
    fn used_values(&self, region: RegionId) -> HashSet<ValueId> {
        let mut out = HashSet::new();
        let mut stack = vec![region];
        while let Some(r) = stack.pop() {
            for &op in &self.f.region(r).ops {
                let op = self.f.op(op);
                out.extend(op.operands.iter().copied());
                stack.extend(op.regions.iter().copied());
            }
        }
        out
    }

    fn replace_uses(&mut self, region: RegionId, map: &HashMap<ValueId, ValueId>) {
        let mut stack = vec![region];
        while let Some(r) = stack.pop() {
            let ops = self.f.region(r).ops.clone();
            for op in ops {
                let o = self.f.op_mut(op);
                for v in &mut o.operands {
                    if let Some(&n) = map.get(v) {
                        *v = n;
                    }
                }
                stack.extend(o.regions.iter().copied());
            }
        }
    }

    // ---- scopes ----

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(Scope::default());
    }

    pub(crate) fn pop_scope(&mut self) {
        if let Some(scope) = self.scopes.pop() {
            for v in scope.vars {
                self.kill_var(v);
            }
        }
    }

    pub(crate) fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.push_scope();
        let r = f(self);
        self.pop_scope();
        r
    }

    /// The scopes visible from here: the current frame's and the program's.
    fn visible_scopes(&self) -> impl Iterator<Item = &Scope> {
        let base = self.frames.last().map_or(1, |f| f.scope_base).max(1);
        self.scopes[base..]
            .iter()
            .rev()
            .chain(std::iter::once(&self.scopes[0]))
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<Sym> {
        self.visible_scopes()
            .find_map(|s| s.names.get(name))
            .map(|(sym, _)| sym.clone())
    }

    pub(crate) fn lookup_tag(&self, name: &str) -> Option<Tag> {
        self.visible_scopes()
            .find_map(|s| s.tags.get(name))
            .copied()
    }

    /// Declare `name` in the innermost scope, reporting a redefinition there.
    pub(crate) fn declare(&mut self, name: &str, sym: Sym, span: Span) {
        let scope = self.scopes.last_mut().expect("program scope");
        if let Some((old, old_span)) = scope.names.get(name) {
            let compatible = match (old, &sym) {
                (Sym::Typedef(a), Sym::Typedef(b)) => types::same_type(&a.ty, &b.ty),
                (Sym::Func(a), Sym::Func(b)) => a == b,
                _ => false,
            };
            if !compatible {
                let old_span = *old_span;
                let msg = match (old, &sym) {
                    (Sym::Typedef(_), Sym::Typedef(_)) => {
                        format!("typedef redefinition with different types for '{name}'")
                    }
                    (Sym::Var(_), Sym::Var(_)) => format!("redefinition of '{name}'"),
                    _ => format!("redefinition of '{name}' as different kind of symbol"),
                };
                self.report(
                    Diagnostic::error(span, msg)
                        .with_note("previous definition is here", Some(old_span)),
                );
                return;
            }
        }
        let scope = self.scopes.last_mut().expect("program scope");
        if let Sym::Var(v) = sym {
            scope.vars.push(v);
        }
        scope.names.insert(name.to_string(), (sym, span));
    }

    // ---- memory ----

    /// The address of a memory-resident variable.
    pub(crate) fn var_addr(&mut self, v: VarId, span: Span) -> Option<ValueId> {
        Some(match self.var(v).storage {
            Storage::Ssa | Storage::Lanes => return None,
            Storage::Private(i) => self.emit(
                OpKind::PrivateAddr(i),
                vec![],
                Ty::Ptr(Space::Private),
                span,
            ),
            Storage::Local(i) => {
                self.emit(OpKind::LocalAddr(i), vec![], Ty::Ptr(Space::Local), span)
            }
        })
    }

    pub(crate) fn global_addr(&mut self, g: usize, span: Span) -> ValueId {
        let index = if self.checking {
            u32::MAX
        } else if let Some(i) = self.globals[g].index {
            i
        } else {
            let gv = &self.globals[g];
            self.module.constants.push(ir::ConstObject {
                name: gv.name.clone(),
                bytes: gv.bytes.clone(),
                align: gv.align,
            });
            let i = self.module.constants.len() as u32 - 1;
            self.globals[g].index = Some(i);
            i
        };
        self.emit(
            OpKind::ConstantAddr(index),
            vec![],
            Ty::Ptr(Space::Constant),
            span,
        )
    }

    /// A string literal as a `__constant` object (shared by equal literals).
    pub(crate) fn string_global(&mut self, bytes: &[u8]) -> usize {
        if let Some(&g) = self.strings.get(bytes) {
            return g;
        }
        let mut data = bytes.to_vec();
        data.push(0);
        let n = data.len() as u64;
        self.globals.push(GlobalVar {
            name: format!(".str.{}", self.strings.len()),
            ty: QualType::new(
                Type::Array(
                    Box::new(QualType::new(
                        Type::Int(types::IntKind::Char),
                        types::Quals::in_space(Space::Constant),
                    )),
                    Some(n),
                ),
                types::Quals::in_space(Space::Constant),
            ),
            bytes: data,
            align: 1,
            index: None,
        });
        let g = self.globals.len() - 1;
        self.strings.insert(bytes.to_vec(), g);
        g
    }

    /// A new private memory object.
    pub(crate) fn new_private(&mut self, name: &str, size: u64, align: u64, span: Span) -> u32 {
        self.f.privates.push(ir::MemObject {
            name: name.to_string(),
            size: size.min(u64::from(u32::MAX)) as u32,
            align: align.max(1) as u32,
            span,
        });
        self.f.privates.len() as u32 - 1
    }
}
