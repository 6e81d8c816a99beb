//! The generator's state: the program under construction, what the kernel's buffers and
//! `__local` objects are for, and the context of the function being written (scopes,
//! loops, whether control flow is uniform, what each variable may be used for).

use crate::ast::{
    Expr, FnId, Function, MacroId, Program, Scalar, Space, StructId, Type, VarDecl, VarId,
};
use crate::config::Config;
use crate::gen::range::Range;
use crate::rng::Rng;

/// A memory root: the unit of the generator's side-effect bookkeeping (C's sequencing
/// rules are kept at this granularity: no root is written twice, or written and read,
/// between two sequence points).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// A private variable (or a helper's pointer parameter's pointee).
    Var(VarId),
    /// A kernel buffer (index into [`Gen::bufs`]).
    Buf(u32),
    /// A `__local` object (index into [`Gen::locals`]).
    Local(u32),
}

/// Roots read and written by an expression.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effects {
    /// Roots read.
    pub reads: Vec<Root>,
    /// Roots written.
    pub writes: Vec<Root>,
}

impl Effects {
    /// Adds another expression's effects.
    pub fn join(&mut self, o: &Effects) {
        for r in &o.reads {
            if !self.reads.contains(r) {
                self.reads.push(*r);
            }
        }
        for w in &o.writes {
            if !self.writes.contains(w) {
                self.writes.push(*w);
            }
        }
    }

    /// A read of `r`.
    pub fn read(r: Root) -> Effects {
        Effects {
            reads: vec![r],
            writes: Vec::new(),
        }
    }
}

/// What an operand generated next may not do, because an unsequenced sibling already
/// does something with the same roots.
#[derive(Clone, Debug, Default)]
pub struct Cons {
    /// Roots it must not write.
    pub no_write: Vec<Root>,
    /// Roots it must not read.
    pub no_read: Vec<Root>,
    /// No side effects at all (operands evaluated twice, uniform conditions, lvalue
    /// addresses).
    pub pure: bool,
    /// Only values uniform across the workgroup (conditions around barriers).
    pub uniform: bool,
}

impl Cons {
    /// The constraints of an operand unsequenced with `sibling`.
    pub fn beside(&self, sibling: &Effects) -> Cons {
        let mut c = self.clone();
        for r in sibling.reads.iter().chain(&sibling.writes) {
            if !c.no_write.contains(r) {
                c.no_write.push(*r);
            }
        }
        for w in &sibling.writes {
            if !c.no_read.contains(w) {
                c.no_read.push(*w);
            }
        }
        c
    }

    /// May read `r`.
    pub fn can_read(&self, r: Root) -> bool {
        !self.no_read.contains(&r)
    }

    /// May write `r`.
    pub fn can_write(&self, r: Root) -> bool {
        !self.pure && !self.no_write.contains(&r) && !self.no_read.contains(&r)
    }
}

/// A generated expression with what the generator knows of it.
#[derive(Clone, Debug)]
pub struct GExpr {
    /// The expression.
    pub e: Expr,
    /// Its type (arrays already decayed to pointers).
    pub ty: Type,
    /// Its value range.
    pub range: Range,
    /// Roots it reads and writes.
    pub eff: Effects,
    /// Same value in every work-item of a workgroup.
    pub uniform: bool,
}

impl GExpr {
    /// The arithmetic type, if any.
    pub fn scalar(&self, p: &Program) -> Option<Scalar> {
        p.scalar(&self.ty)
    }

    /// Has no side effects.
    pub fn pure(&self) -> bool {
        self.eff.writes.is_empty()
    }
}

/// What a pointer variable or parameter may be used for.
#[derive(Clone, Debug)]
pub struct PtrInfo {
    /// What it points into.
    pub root: Option<Root>,
    /// Elements valid from the pointer on: `p[0..extent]` (a power of two).
    pub extent: u32,
    /// Writes through it are allowed.
    pub writable: bool,
    /// The element type.
    pub elem: Type,
    /// An expression for the start of the array it points into, for the checksum
    /// (`p - base`); `None` for helper parameters.
    pub base: Option<Expr>,
}

/// What the generator knows of a variable.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// Never assigned (loop counters in their loop, work-item ids, kernel parameters).
    pub readonly: bool,
    /// Same value in every work-item of a workgroup, always.
    pub uniform: bool,
    /// Known value range (read-only integers).
    pub range: Option<(i128, i128)>,
    /// For pointers: what they point into.
    pub ptr: Option<PtrInfo>,
    /// Folded into the kernel's checksum.
    pub fold: bool,
}

/// Kinds of kernel buffers.
#[derive(Clone, Debug, PartialEq)]
pub enum BufKind {
    /// `out[global linear id]`: each work-item's checksum (`ulong`).
    Out,
    /// Each work-item's `float` or `double` variables, NaN replaced by a fixed value.
    FloatOut,
    /// Read-only data, indexed anywhere (`__global const` or `__constant`).
    In,
    /// Each work-item owns `k_slots` elements from `global id * k_slots`.
    Own,
    /// Words updated by atomics from every work-item; each word has one family of
    /// operations (see [`crate::ast::AtomicOp::family`]).
    Atomic(Vec<u8>),
}

/// A kernel buffer parameter.
#[derive(Clone, Debug)]
pub struct BufInfo {
    /// The parameter.
    pub var: VarId,
    /// Element type.
    pub elem: Scalar,
    /// What it is for.
    pub kind: BufKind,
    /// Elements.
    pub len: u32,
    /// `__global` or `__constant`.
    pub space: Space,
}

/// A `__local` object of the kernel.
#[derive(Clone, Debug)]
pub struct LocalInfo {
    /// The declared array or the `__local` pointer parameter.
    pub var: VarId,
    /// Element type.
    pub elem: Scalar,
    /// Elements (a power of two, at least `k_slots` per work-item of a workgroup).
    pub len: u32,
    /// Holds atomic words (families as for buffers) instead of per-work-item slots.
    pub atomic: Option<Vec<u8>>,
}

/// How `__local` memory may be touched at the current point of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalMode {
    /// No `__local` access (helpers; the kernel before its initialization).
    None,
    /// Between barriers after a write phase: every work-item reads anywhere, nobody writes.
    Shared,
    /// Inside a write phase: each work-item writes and reads its own slots; atomics on the
    /// atomic words.
    Owned,
}

/// A loop being generated.
#[derive(Clone, Copy, Debug)]
pub struct LoopCtx {
    /// `break`/`continue` may be taken by some work-items only (false in loops with
    /// barriers inside, which every work-item must leave together).
    pub divergent_exit: bool,
}

/// A statement that `break` leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breakable {
    /// A loop (index into [`FnCtx::loops`]).
    Loop(usize),
    /// A `switch`.
    Switch,
}

/// The function being generated.
#[derive(Clone, Debug)]
pub struct FnCtx {
    /// The function so far.
    pub func: Function,
    /// Per variable of `func.vars`.
    pub info: Vec<VarInfo>,
    /// Visible variables.
    pub scope: Vec<VarId>,
    /// The kernel (not a helper).
    pub kernel: bool,
    /// Enclosing loops.
    pub loops: Vec<LoopCtx>,
    /// Enclosing breakable statements, innermost last.
    pub breakables: Vec<Breakable>,
    /// Every work-item of the workgroup that has not returned reaches this point together
    /// (barriers are allowed).
    pub uniform_flow: bool,
    /// `__local` access rule here.
    pub local_mode: LocalMode,
    /// Statement nesting depth.
    pub depth: u32,
    /// Statements left to generate.
    pub budget: i64,
    /// Product of the trip bounds of the enclosing loops.
    pub loop_mult: u32,
    /// The largest `loop_mult` reached, callees' costs included: how many times the
    /// function's busiest statement may run per call.
    pub max_mult: u32,
    /// The global linear id variable (kernel).
    pub gid: Option<VarId>,
    /// The flat local id variable (kernel).
    pub lid: Option<VarId>,
    /// Helpers: per parameter, (read through it, written through it).
    pub param_use: Vec<(bool, bool)>,
    /// Inside a `__local` write phase: how many loops enclose the phase (a `break` or
    /// `continue` must not leave the phase, skipping its closing barrier).
    pub phase_loops: Option<usize>,
    /// Kernel: the most float and double slots a checksum site used.
    pub float_slots: (u32, u32),
}

impl FnCtx {
    /// A context for a new function.
    pub fn new(name: String, kernel: bool, ret: Type) -> FnCtx {
        FnCtx {
            func: Function {
                name,
                kernel,
                short_kernel_keyword: false,
                ret,
                params: Vec::new(),
                vars: Vec::new(),
                body: Default::default(),
            },
            info: Vec::new(),
            scope: Vec::new(),
            kernel,
            loops: Vec::new(),
            breakables: Vec::new(),
            uniform_flow: true,
            local_mode: LocalMode::None,
            depth: 0,
            budget: 0,
            loop_mult: 1,
            max_mult: 1,
            gid: None,
            lid: None,
            param_use: Vec::new(),
            phase_loops: None,
            float_slots: (0, 0),
        }
    }

    /// Declares a variable (not yet in scope) and returns its id.
    pub fn add_var(&mut self, name: String, ty: Type, space: Space, info: VarInfo) -> VarId {
        let id = self.func.vars.len() as VarId;
        self.func.vars.push(VarDecl {
            name,
            ty,
            space,
            explicit_space: false,
            konst: false,
        });
        self.info.push(info);
        id
    }

    /// The declared type of a variable.
    pub fn ty(&self, v: VarId) -> &Type {
        &self.func.vars[v as usize].ty
    }
}

/// A helper function's interface.
#[derive(Clone, Debug)]
pub struct HelperSig {
    /// The function.
    pub id: FnId,
    /// Parameter kinds.
    pub params: Vec<ParamKind>,
    /// Per parameter: (read through it, written through it).
    pub uses: Vec<(bool, bool)>,
    /// Iterations of its busiest statement per call (loops and callees).
    pub cost: u32,
}

/// Kinds of helper parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// An arithmetic value.
    Scalar(Scalar),
    /// A struct by value.
    Struct(StructId),
    /// `T *p` to `extent` private elements of the caller.
    Private(Scalar, u32),
    /// `__global T *p` to the calling work-item's own slots of a buffer.
    GlobalOwn(Scalar),
    /// `__global const T *p` to a read-only buffer.
    GlobalIn(Scalar),
}

/// A macro the expression generator may use.
#[derive(Clone, Debug)]
pub struct MacroInfo {
    /// The macro.
    pub id: MacroId,
    /// For an object-like macro: its value and type.
    pub value: Option<(i128, Scalar)>,
    /// For a function-like macro: how often each parameter occurs in the body.
    pub occurrences: Vec<u32>,
}

/// Launch shape.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Workgroup size per dimension.
    pub block: [u32; 3],
}

impl Shape {
    /// Work-items per workgroup.
    pub fn group_size(&self) -> u32 {
        self.block.iter().product()
    }

    /// Work-items of the launch.
    pub fn total(&self) -> u32 {
        self.group_size() * self.grid.iter().product::<u32>()
    }
}

/// The whole generator state.
pub struct Gen<'c> {
    /// Random choices.
    pub rng: Rng,
    /// What to generate.
    pub cfg: &'c Config,
    /// The program so far (functions are added when finished).
    pub p: Program,
    /// The launch.
    pub shape: Shape,
    /// Slots each work-item owns in `Own` buffers and `__local` arrays (power of two).
    pub k_slots: u32,
    /// Elements of each `In` buffer (power of two).
    pub in_len: u32,
    /// The macro spelling `k_slots`, if any.
    pub k_macro: Option<MacroId>,
    /// Helpers defined so far.
    pub helpers: Vec<HelperSig>,
    /// Kernel buffers.
    pub bufs: Vec<BufInfo>,
    /// Kernel `__local` objects.
    pub locals: Vec<LocalInfo>,
    /// Macros for expressions.
    pub macros: Vec<MacroInfo>,
    /// Names handed out so far (for fresh names).
    pub names: u32,
    /// `atom_*` spellings were used on `__global` / `__local` words, with extended
    /// operations (min, max, and, or, xor).
    pub atom_used: [bool; 4],
    /// The values chosen for the kernel's integer parameters.
    pub param_values: Vec<(VarId, i128)>,
    /// The function being generated.
    pub f: FnCtx,
}

/// The most iterations any statement may run per work-item: the product of nested loop
/// trips and of the costs of the helpers called inside them.
pub fn trip_cap(max_loop_trips: u32) -> u32 {
    max_loop_trips * max_loop_trips * 2
}

impl Gen<'_> {
    /// Enters a region that runs `n` times as often as the current one (a loop body);
    /// returns the previous multiplier.
    pub fn enter_loop(&mut self, n: u32) -> u32 {
        let prev = self.f.loop_mult;
        self.f.loop_mult = prev.saturating_mul(n.max(1));
        self.f.max_mult = self.f.max_mult.max(self.f.loop_mult);
        prev
    }

    /// A fresh identifier with a prefix.
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    /// The arithmetic type of `ty`.
    pub fn scalar(&self, ty: &Type) -> Option<Scalar> {
        self.p.scalar(ty)
    }
}
