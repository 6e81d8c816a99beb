//! An executor of one kernel's IR for a whole launch, on the host: the reference the front
//! end's and every pass's tests compare against. It is written to be exact and simple, not
//! fast.
//!
//! # Semantics
//!
//! - Each work-item runs the kernel's scalar semantics; every value operation is
//!   [`super::eval`]'s (wrapping integers, shift amounts modulo the width, IEEE round to
//!   nearest even with the machine's canonical NaNs, saturating float → integer
//!   conversions; the approximate `Math` operations are within 1 ulp of the machine's,
//!   so tests must not compare them bit for bit). Integer division by zero and signed
//!   `MIN / -1` are errors ([`InterpError::Fault`]), not values.
//! - `Undef` reads as 0. Shared memory is zero-filled at the start of each workgroup and
//!   private memory at the start of each work-item, so reading memory never stored reads 0
//!   too (C leaves both unspecified).
//! - Launch: `grid` workgroups of `block` work-items, numbered x fastest (flat local id
//!   `x + y*bx + z*bx*by`; workgroups likewise), at most 1024 work-items per workgroup,
//!   exactly `reqd_block` when the kernel requires one.
//!   `WorkItem` ops: `LocalId(d)`, `GroupId(d)`, `LocalSize(d)` (= `block[d]`) and
//!   `NumGroups(d)` (= `grid[d]`); `WorkDim` is 1 + the highest dimension whose grid or
//!   block size is above 1 (1 when all are 1). Workgroups run one after another, in flat
//!   order.
//! - Memory, by the pointer operand's address space:
//!   - `global`/`constant`: argument `k`'s buffer starts at address `(k + 1) << 32`,
//!     module constant `i` at `(0x1000 + i) << 32`; an address is the buffer's base plus
//!     the byte offset. Buffers of `__constant` parameters are read-only in the IR
//!     (stores through constant pointers do not verify).
//!   - `local`: one zero-filled shared memory per workgroup, addressed from 0: the kernel's
//!     `locals` in order, each at the next multiple of its alignment, then the `__local`
//!     pointer arguments' areas in parameter order, each at the next multiple of 16; a
//!     `__local` pointer parameter's value is its area's offset.
//!   - `private`: one zero-filled frame per work-item holding the kernel's `privates`,
//!     laid out as the locals are.
//!
//!   At most 16 MiB of shared memory (the machine's limit) and 256 MiB of private memory
//!   per workgroup are allowed.
//!
//!   An access must lie within one buffer, object area or memory (beyond its end, or at an
//!   address mapping nothing, is an error) and be aligned as the machine requires:
//!   1-byte accesses anywhere, 2-byte ones to 2 bytes, 4- and 8-byte ones to 4 bytes
//!   (`docs/abi.md`).
//! - Atomics are applied at once (each work-item's read-modify-write is indivisible, in
//!   execution order); the result is the old value.
//! - Barriers: the work-items of a workgroup run one by one, in flat order, each until it
//!   reaches a barrier or finishes; when all have stopped they are released together.
//!   If some reached a barrier and others finished, or they wait at different barrier
//!   operations, the launch fails with [`InterpError::DivergentBarrier`] (OpenCL requires
//!   every work-item to reach the same barrier). Each work-item is a resumable state
//!   machine over the region tree (an explicit stack of region positions); there are no
//!   host threads.
//! - Every executed operation counts one step; the launch fails with
//!   [`InterpError::StepLimit`] when the total reaches [`Launch::step_limit`].

use super::eval::{self, Undefined};
use super::verify::{verify_module, VerifyError};
use super::{
    AtomicOp, ConstObject, Function, MemObject, Module, OpId, OpKind, ParamKind, RegionId, Space,
    Ty, ValueId, WorkItem,
};

/// One kernel argument, in parameter order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// The bytes of the buffer a `__global` or `__constant` pointer parameter points to.
    Buffer(Vec<u8>),
    /// The size in bytes of the shared-memory area of a `__local` pointer parameter.
    Local(u32),
    /// A scalar parameter's 8-byte argument slot (integers sign- or zero-extended, `float`
    /// in the low 4 bytes, `half` in the low 2, `double` all 8); only the bits of the
    /// parameter's IR type are read.
    Scalar(u64),
}

/// A launch: its shape, arguments and step budget.
#[derive(Debug, Clone)]
pub struct Launch {
    /// Workgroups in x, y, z.
    pub grid: [u32; 3],
    /// Work-items per workgroup in x, y, z.
    pub block: [u32; 3],
    /// One argument per kernel parameter.
    pub args: Vec<Arg>,
    /// The most operations the whole launch may execute.
    pub step_limit: u64,
}

impl Launch {
    /// The default [`Launch::step_limit`].
    pub const DEFAULT_STEP_LIMIT: u64 = 100_000_000;

    /// A launch with the default step limit.
    pub fn new(grid: [u32; 3], block: [u32; 3], args: Vec<Arg>) -> Launch {
        Launch {
            grid,
            block,
            args,
            step_limit: Launch::DEFAULT_STEP_LIMIT,
        }
    }
}

/// What a launch leaves behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchOutput {
    /// Per parameter: the final bytes of its buffer (`None` for non-buffer arguments).
    pub buffers: Vec<Option<Vec<u8>>>,
    /// Operations executed.
    pub steps: u64,
}

impl LaunchOutput {
    /// The final bytes of parameter `param`'s buffer.
    pub fn buffer(&self, param: usize) -> Option<&[u8]> {
        self.buffers.get(param)?.as_deref()
    }
}

/// Why a launch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    /// The module does not verify.
    #[error("invalid IR: {0}")]
    Invalid(#[from] VerifyError),
    /// There is no kernel with this index.
    #[error("the module has no kernel {0}")]
    NoKernel(usize),
    /// The launch does not fit the kernel (argument count or kinds, sizes).
    #[error("bad launch: {0}")]
    BadLaunch(String),
    /// An operation of one work-item failed: a memory access out of bounds or misaligned,
    /// an undefined division.
    #[error("work-item {local:?} of workgroup {group:?}: op {op} `{text}`: {what}", op = .op.0)]
    Fault {
        /// The workgroup's id.
        group: [u32; 3],
        /// The work-item's local id.
        local: [u32; 3],
        /// The operation.
        op: OpId,
        /// The operation's IR text.
        text: String,
        /// What went wrong.
        what: String,
    },
    /// Work-items of one workgroup did not all reach the same barrier.
    #[error("workgroup {group:?}: divergent barrier: {what}")]
    DivergentBarrier {
        /// The workgroup's id.
        group: [u32; 3],
        /// Which work-items went where.
        what: String,
    },
    /// The launch executed [`Launch::step_limit`] operations.
    #[error("the launch reached its step limit of {0} operations")]
    StepLimit(u64),
}

/// Base address of argument `k`'s buffer is `(k + 1) << 32`; of module constant `i`,
/// `(CONSTANT_SEGMENT + i) << 32`.
const CONSTANT_SEGMENT: u64 = 0x1000;

/// Most work-items in one workgroup (as on the machine).
const MAX_BLOCK: u64 = 1024;

/// Most shared memory of one workgroup (as on the machine, `docs/abi.md`).
const MAX_SHARED: u64 = 16 << 20;

/// Most private memory of all work-items of one workgroup together.
const MAX_PRIVATE: u64 = 256 << 20;

/// Run kernel `kernel` of `module` for `launch`.
pub fn run(module: &Module, kernel: usize, launch: &Launch) -> Result<LaunchOutput, InterpError> {
    verify_module(module)?;
    let func = module
        .kernels
        .get(kernel)
        .ok_or(InterpError::NoKernel(kernel))?;
    let mut machine = Machine::new(module, func, launch)?;
    machine.run_all()?;
    Ok(LaunchOutput {
        buffers: machine.buffers,
        steps: machine.steps,
    })
}

fn align_up(v: u64, align: u64) -> u64 {
    v.div_ceil(align) * align
}

/// Offsets of memory objects laid out in order, each aligned; and the total size.
fn layout(objects: &[MemObject]) -> (Vec<u64>, u64) {
    let mut offsets = Vec::with_capacity(objects.len());
    let mut end = 0u64;
    for o in objects {
        let at = align_up(end, u64::from(o.align.max(1)));
        offsets.push(at);
        end = at + u64::from(o.size);
    }
    (offsets, end)
}

/// Where a work-item stands in the region tree: the region and the position of the next
/// operation (for the frame of an `If`/`Loop` being executed, the position of that op).
#[derive(Debug, Clone, Copy)]
struct Frame {
    region: RegionId,
    pos: usize,
}

struct Item {
    local: [u32; 3],
    vals: Vec<u64>,
    frames: Vec<Frame>,
    private: Vec<u8>,
}

/// Why a work-item stopped running.
enum Stop {
    Barrier(OpId),
    Finished,
}

struct Machine<'a> {
    func: &'a Function,
    constants: &'a [ConstObject],
    launch: &'a Launch,
    buffers: Vec<Option<Vec<u8>>>,
    params: Vec<u64>,
    local_offsets: Vec<u64>,
    shared_size: u64,
    private_offsets: Vec<u64>,
    private_size: u64,
    work_dim: u64,
    steps: u64,
    /// Scratch for loop-carried values (read all before writing any).
    carried: Vec<u64>,
}

/// A memory error: what went wrong.
type MemResult<T> = Result<T, String>;

impl<'a> Machine<'a> {
    fn new(
        module: &'a Module,
        func: &'a Function,
        launch: &'a Launch,
    ) -> Result<Self, InterpError> {
        let bad = |m: String| Err(InterpError::BadLaunch(m));
        if launch.grid.contains(&0) || launch.block.contains(&0) {
            return bad(format!(
                "grid {:?} and block {:?} must have no zero dimension",
                launch.grid, launch.block
            ));
        }
        let threads: u64 = launch.block.iter().map(|&b| u64::from(b)).product();
        if threads > MAX_BLOCK {
            return bad(format!(
                "a workgroup of {threads} work-items exceeds {MAX_BLOCK}"
            ));
        }
        if let Some(reqd) = func.reqd_block {
            if reqd != launch.block {
                return bad(format!(
                    "kernel @{} requires a block of {reqd:?}, not {:?}",
                    func.name, launch.block
                ));
            }
        }
        if launch.args.len() != func.params.len() {
            return bad(format!(
                "kernel @{} has {} parameters but {} arguments were given",
                func.name,
                func.params.len(),
                launch.args.len()
            ));
        }
        let (local_offsets, mut shared_size) = layout(&func.locals);
        let mut buffers = Vec::new();
        let mut params = Vec::new();
        for (k, (p, a)) in func.params.iter().zip(&launch.args).enumerate() {
            let value = match (p.kind, a) {
                (ParamKind::PtrGlobal | ParamKind::PtrConstant, Arg::Buffer(bytes)) => {
                    if bytes.len() as u64 > u64::from(u32::MAX) {
                        return bad(format!("argument {k} ({}) is larger than 4 GiB", p.name));
                    }
                    buffers.push(Some(bytes.clone()));
                    (k as u64 + 1) << 32
                }
                (ParamKind::PtrLocal, Arg::Local(size)) => {
                    buffers.push(None);
                    let at = align_up(shared_size, 16);
                    shared_size = at + u64::from(*size);
                    at
                }
                (kind, Arg::Scalar(slot))
                    if !matches!(
                        kind,
                        ParamKind::PtrGlobal | ParamKind::PtrConstant | ParamKind::PtrLocal
                    ) =>
                {
                    buffers.push(None);
                    slot & eval::mask(p.ty)
                }
                _ => {
                    return bad(format!(
                        "argument {k} ({}, {}) cannot be passed as {a:?}",
                        p.name,
                        p.kind.directive_name()
                    ))
                }
            };
            params.push(value);
        }
        if shared_size > MAX_SHARED {
            return bad(format!(
                "{shared_size} bytes of shared memory exceed the machine's {MAX_SHARED}"
            ));
        }
        let (private_offsets, private_size) = layout(&func.privates);
        if private_size * threads > MAX_PRIVATE {
            return bad(format!(
                "{private_size} bytes of private memory per work-item ({} per workgroup) \
                 exceed the interpreter's {MAX_PRIVATE}",
                private_size * threads
            ));
        }
        let work_dim = (0..3)
            .rev()
            .find(|&d| launch.grid[d] > 1 || launch.block[d] > 1)
            .map_or(1, |d| d as u64 + 1);
        Ok(Machine {
            func,
            constants: &module.constants,
            launch,
            buffers,
            params,
            local_offsets,
            shared_size,
            private_offsets,
            private_size,
            work_dim,
            steps: 0,
            carried: Vec::new(),
        })
    }

    fn run_all(&mut self) -> Result<(), InterpError> {
        let [gx, gy, gz] = self.launch.grid;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    self.run_group([x, y, z])?;
                }
            }
        }
        Ok(())
    }

    fn run_group(&mut self, group: [u32; 3]) -> Result<(), InterpError> {
        let [bx, by, bz] = self.launch.block;
        let mut shared = vec![0u8; self.shared_size as usize];
        let mut items = Vec::with_capacity((bx * by * bz) as usize);
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    items.push(Item {
                        local: [x, y, z],
                        vals: vec![0; self.func.values.len()],
                        frames: vec![Frame {
                            region: self.func.body,
                            pos: 0,
                        }],
                        private: vec![0; self.private_size as usize],
                    });
                }
            }
        }
        let mut running: Vec<usize> = (0..items.len()).collect();
        while !running.is_empty() {
            let mut waiting = Vec::new();
            let mut finished = Vec::new();
            for &i in &running {
                match self.run_item(group, &mut items[i], &mut shared)? {
                    Stop::Barrier(op) => waiting.push((i, op)),
                    Stop::Finished => finished.push(i),
                }
            }
            if !waiting.is_empty() {
                let local = |i: usize| items[i].local;
                if let Some(&f) = finished.first() {
                    return Err(InterpError::DivergentBarrier {
                        group,
                        what: format!(
                            "work-item {:?} waits at op {} but work-item {:?} finished",
                            local(waiting[0].0),
                            waiting[0].1 .0,
                            local(f)
                        ),
                    });
                }
                if let Some(&(j, op)) = waiting.iter().find(|w| w.1 != waiting[0].1) {
                    return Err(InterpError::DivergentBarrier {
                        group,
                        what: format!(
                            "work-item {:?} waits at op {} but work-item {:?} at op {}",
                            local(waiting[0].0),
                            waiting[0].1 .0,
                            local(j),
                            op.0
                        ),
                    });
                }
            }
            running = waiting.into_iter().map(|w| w.0).collect();
        }
        Ok(())
    }

    /// Run one work-item until it reaches a barrier (and steps past it) or finishes.
    fn run_item(
        &mut self,
        group: [u32; 3],
        item: &mut Item,
        shared: &mut [u8],
    ) -> Result<Stop, InterpError> {
        let func = self.func;
        loop {
            let Some(frame) = item.frames.last().copied() else {
                return Ok(Stop::Finished);
            };
            let region = func.region(frame.region);
            let Some(&id) = region.ops.get(frame.pos) else {
                // Only the body ends without a terminator.
                item.frames.pop();
                continue;
            };
            if self.steps >= self.launch.step_limit {
                return Err(InterpError::StepLimit(self.launch.step_limit));
            }
            self.steps += 1;
            let op = func.op(id);
            let fault = |what: String| InterpError::Fault {
                group,
                local: item.local,
                op: id,
                text: func.op_text(id),
                what,
            };
            let v = |vals: &[u64], i: usize| vals[op.operands[i].0 as usize];
            let ty = |i: usize| func.ty(op.operands[i]);
            let mut result = None;
            match &op.kind {
                OpKind::Const(bits) => result = Some(*bits),
                OpKind::Undef => result = Some(0),
                OpKind::Param(i) => result = Some(self.params[*i as usize]),
                OpKind::LocalAddr(i) => result = Some(self.local_offsets[*i as usize]),
                OpKind::PrivateAddr(i) => result = Some(self.private_offsets[*i as usize]),
                OpKind::ConstantAddr(i) => result = Some((CONSTANT_SEGMENT + u64::from(*i)) << 32),
                OpKind::WorkItem(w) => {
                    let l = self.launch;
                    result = Some(match *w {
                        WorkItem::LocalId(d) => u64::from(item.local[d as usize]),
                        WorkItem::GroupId(d) => u64::from(group[d as usize]),
                        WorkItem::LocalSize(d) => u64::from(l.block[d as usize]),
                        WorkItem::NumGroups(d) => u64::from(l.grid[d as usize]),
                        WorkItem::WorkDim => self.work_dim,
                    })
                }
                OpKind::Unary(u) => result = Some(eval::unary(*u, ty(0), v(&item.vals, 0))),
                OpKind::Binary(b) => {
                    let r = eval::binary(*b, ty(0), v(&item.vals, 0), v(&item.vals, 1))
                        .map_err(|e: Undefined| fault(e.describe().to_string()))?;
                    result = Some(r);
                }
                OpKind::Fma => {
                    let [a, b, c] = [0, 1, 2].map(|i| v(&item.vals, i));
                    result = Some(eval::fma(ty(0), a, b, c));
                }
                OpKind::Cmp(p) => {
                    result = Some(u64::from(eval::cmp(
                        *p,
                        ty(0),
                        v(&item.vals, 0),
                        v(&item.vals, 1),
                    )))
                }
                OpKind::Select => {
                    let i = if v(&item.vals, 0) != 0 { 1 } else { 2 };
                    result = Some(v(&item.vals, i));
                }
                OpKind::Cast(c) => {
                    let to = func.ty(op.results[0]);
                    result = Some(eval::cast(*c, ty(0), to, v(&item.vals, 0)));
                }
                OpKind::Math(m) => result = Some(eval::math(*m, ty(0), v(&item.vals, 0))),
                OpKind::PtrAdd => {
                    let p = ty(0);
                    let r = v(&item.vals, 0).wrapping_add(v(&item.vals, 1)) & eval::mask(p);
                    result = Some(r);
                }
                OpKind::Load(m) => {
                    let space = space_of(ty(0));
                    let addr = v(&item.vals, 0);
                    let raw = self
                        .read(space, addr, m.size, shared, &mut item.private)
                        .map_err(fault)?;
                    let rt = func.ty(op.results[0]);
                    let bits = u32::from(m.size) * 8;
                    let r = if m.signed {
                        eval::sext(raw, bits) as u64 & eval::mask(rt)
                    } else {
                        raw
                    };
                    result = Some(r);
                }
                OpKind::Store(m) => {
                    let space = space_of(ty(0));
                    let (addr, value) = (v(&item.vals, 0), v(&item.vals, 1));
                    self.write(space, addr, m.size, value, shared, &mut item.private)
                        .map_err(fault)?;
                }
                OpKind::Atomic(a) => {
                    let space = space_of(ty(0));
                    let addr = v(&item.vals, 0);
                    let old = self
                        .read(space, addr, 4, shared, &mut item.private)
                        .map_err(fault)?;
                    let x = v(&item.vals, 1);
                    let new = match a {
                        AtomicOp::Add => old.wrapping_add(x),
                        AtomicOp::Sub => old.wrapping_sub(x),
                        AtomicOp::SMin => (old as i32).min(x as i32) as u32 as u64,
                        AtomicOp::SMax => (old as i32).max(x as i32) as u32 as u64,
                        AtomicOp::UMin => old.min(x),
                        AtomicOp::UMax => old.max(x),
                        AtomicOp::And => old & x,
                        AtomicOp::Or => old | x,
                        AtomicOp::Xor => old ^ x,
                        AtomicOp::Xchg => x,
                        AtomicOp::CmpXchg => {
                            if old == x {
                                v(&item.vals, 2)
                            } else {
                                old
                            }
                        }
                    };
                    self.write(space, addr, 4, new & 0xffff_ffff, shared, &mut item.private)
                        .map_err(fault)?;
                    result = Some(old);
                }
                OpKind::Barrier { .. } => {
                    item.frames.last_mut().expect("a frame runs").pos += 1;
                    return Ok(Stop::Barrier(id));
                }
                OpKind::Fence { .. } => {}
                OpKind::If => {
                    let arm = if v(&item.vals, 0) != 0 { 0 } else { 1 };
                    item.frames.push(Frame {
                        region: op.regions[arm],
                        pos: 0,
                    });
                    continue;
                }
                OpKind::Loop => {
                    let body = func.region(op.regions[0]);
                    for (&arg, &init) in body.args.iter().zip(&op.operands) {
                        item.vals[arg.0 as usize] = item.vals[init.0 as usize];
                    }
                    item.frames.push(Frame {
                        region: op.regions[0],
                        pos: 0,
                    });
                    continue;
                }
                OpKind::Yield => {
                    let owner = func.op(region.parent.expect("an if arm has an owner"));
                    copy(
                        &mut item.vals,
                        &op.operands,
                        &owner.results,
                        &mut self.carried,
                    );
                    item.frames.pop();
                    item.frames.last_mut().expect("an if sits in a frame").pos += 1;
                    continue;
                }
                OpKind::LoopEnd => {
                    if v(&item.vals, 0) != 0 {
                        copy(
                            &mut item.vals,
                            &op.operands[1..],
                            &region.args,
                            &mut self.carried,
                        );
                        item.frames.last_mut().expect("a frame runs").pos = 0;
                    } else {
                        let owner = func.op(region.parent.expect("a loop body has an owner"));
                        copy(
                            &mut item.vals,
                            &op.operands[1..],
                            &owner.results,
                            &mut self.carried,
                        );
                        item.frames.pop();
                        item.frames.last_mut().expect("a loop sits in a frame").pos += 1;
                    }
                    continue;
                }
            }
            if let Some(r) = result {
                item.vals[op.results[0].0 as usize] = r;
            }
            item.frames.last_mut().expect("a frame runs").pos += 1;
        }
    }

    /// The bytes `[addr, addr + size)` of `space`, checked.
    fn locate<'m>(
        &'m mut self,
        space: Space,
        addr: u64,
        size: u8,
        shared: &'m mut [u8],
        private: &'m mut [u8],
    ) -> MemResult<Place<'m>> {
        let size64 = u64::from(size);
        let align = size64.min(4);
        if !addr.is_multiple_of(align) {
            return Err(format!(
                "misaligned {size}-byte {} access at {addr:#x}",
                space.name()
            ));
        }
        let oob = || {
            format!(
                "{size}-byte {} access at {addr:#x} is outside every buffer",
                space.name()
            )
        };
        let within =
            |len: usize, off: u64| off.checked_add(size64).is_some_and(|e| e <= len as u64);
        match space {
            Space::Global | Space::Constant => {
                let segment = addr >> 32;
                let off = addr & 0xffff_ffff;
                if segment >= CONSTANT_SEGMENT {
                    let c = self
                        .constants
                        .get((segment - CONSTANT_SEGMENT) as usize)
                        .ok_or_else(oob)?;
                    if !within(c.bytes.len(), off) {
                        return Err(oob());
                    }
                    return Ok(Place::ReadOnly(
                        &c.bytes[off as usize..(off + size64) as usize],
                    ));
                }
                let buf = segment
                    .checked_sub(1)
                    .and_then(|k| self.buffers.get_mut(k as usize))
                    .and_then(|b| b.as_mut())
                    .ok_or_else(oob)?;
                if !within(buf.len(), off) {
                    return Err(oob());
                }
                Ok(Place::Mut(&mut buf[off as usize..(off + size64) as usize]))
            }
            Space::Local | Space::Private => {
                let mem = if space == Space::Local {
                    shared
                } else {
                    private
                };
                if !within(mem.len(), addr) {
                    return Err(format!(
                        "{size}-byte {} access at {addr:#x} is beyond the {} bytes of {} memory",
                        space.name(),
                        mem.len(),
                        space.name()
                    ));
                }
                Ok(Place::Mut(
                    &mut mem[addr as usize..(addr + size64) as usize],
                ))
            }
        }
    }

    fn read(
        &mut self,
        space: Space,
        addr: u64,
        size: u8,
        shared: &mut [u8],
        private: &mut [u8],
    ) -> MemResult<u64> {
        let place = self.locate(space, addr, size, shared, private)?;
        let bytes: &[u8] = match &place {
            Place::ReadOnly(b) => b,
            Place::Mut(b) => b,
        };
        let mut raw = [0u8; 8];
        raw[..bytes.len()].copy_from_slice(bytes);
        Ok(u64::from_le_bytes(raw))
    }

    fn write(
        &mut self,
        space: Space,
        addr: u64,
        size: u8,
        value: u64,
        shared: &mut [u8],
        private: &mut [u8],
    ) -> MemResult<()> {
        match self.locate(space, addr, size, shared, private)? {
            Place::Mut(b) => {
                b.copy_from_slice(&value.to_le_bytes()[..size as usize]);
                Ok(())
            }
            Place::ReadOnly(_) => Err(format!(
                "{size}-byte store at {addr:#x} writes a read-only constant object"
            )),
        }
    }
}

enum Place<'m> {
    ReadOnly(&'m [u8]),
    Mut(&'m mut [u8]),
}

fn space_of(ty: Ty) -> Space {
    match ty {
        Ty::Ptr(s) => s,
        _ => unreachable!("verified: memory operations take pointers"),
    }
}

/// `to[i] = from[i]` for all `i`, reading every source before writing any destination (a
/// loop's next values may be its own arguments, swapped).
fn copy(vals: &mut [u64], from: &[ValueId], to: &[ValueId], scratch: &mut Vec<u64>) {
    scratch.clear();
    scratch.extend(from.iter().map(|v| vals[v.0 as usize]));
    for (t, &x) in to.iter().zip(scratch.iter()) {
        vals[t.0 as usize] = x;
    }
}
