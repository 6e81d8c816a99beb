//! The reference interpreter: runs a [`Program`]'s kernel on the host with C99/OpenCL C
//! semantics, straight from the typed representation, and traps on undefined behaviour.
//!
//! Workgroups run one after another; inside a workgroup every work-item (numbered flat,
//! x fastest) runs until it reaches a barrier or returns, and when all have, those at the
//! barrier continue — so `__local` data written before a barrier is seen after it. A
//! work-item that returned no longer takes part in barriers.

pub mod builtins;
mod eval;
mod exec;
pub mod machine;
pub mod memory;
pub mod trap;
pub mod value;

use crate::args::ArgValue;
use crate::ast::{FnId, Program, Space, Type};
use crate::ctype::layout;
use crate::interp::exec::Flow;
use crate::interp::machine::{Frame, Geometry, Lane, Machine};
use crate::interp::memory::{encode, Storage};
use crate::interp::trap::{Trap, Ub};
use crate::interp::value::{convert, ObjRef, Ptr, ShiftRule, Value};

/// How to run.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// OpenCL's shift rule, or C's (counts outside `0..N` trap).
    pub shift_rule: ShiftRule,
    /// Evaluation steps per work-item before the run is declared endless.
    pub step_limit: u64,
    /// Record every helper call of this work-item (global linear id) for [`run_traced`].
    pub trace_lane: Option<u32>,
    /// Run workgroups, and the work-items of a workgroup between barriers, last first. A
    /// program free of races and of order-dependent atomics gives the same buffers either
    /// way.
    pub reverse_order: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            shift_rule: ShiftRule::OpenCl,
            step_limit: 2_000_000,
            trace_lane: None,
            reverse_order: false,
        }
    }
}

/// [`run`], also returning the calls of helper functions made by `opts.trace_lane`, one
/// line each: `name(arguments) = result` (the values as the interpreter shows them).
pub fn run_traced(
    p: &Program,
    kernel: FnId,
    grid: [u32; 3],
    block: [u32; 3],
    args: &[ArgValue],
    opts: &Options,
) -> (Result<Finals, Trap>, Vec<String>) {
    let mut trace = Vec::new();
    let r = run_inner(p, kernel, grid, block, args, opts, &mut trace);
    (r, trace)
}

/// The final bytes of every buffer argument, by parameter position (`None` for the other
/// parameters).
pub type Finals = Vec<Option<Vec<u8>>>;

/// `get_work_dim()` of a launch: 3 if the grid or block has a z extent above 1, else 2 if
/// a y extent is above 1, else 1.
pub fn work_dim(grid: [u32; 3], block: [u32; 3]) -> u32 {
    if grid[2] > 1 || block[2] > 1 {
        3
    } else if grid[1] > 1 || block[1] > 1 {
        2
    } else {
        1
    }
}

fn setup_trap(msg: String) -> Trap {
    Trap {
        ub: Ub::Unsupported(msg),
        global_id: [0; 3],
        group_id: [0; 3],
        function: String::new(),
    }
}

/// Runs `kernel` over the launch and returns the final bytes of every buffer argument (by
/// parameter position; `None` for other parameters), or the first undefined behaviour.
pub fn run(
    p: &Program,
    kernel: FnId,
    grid: [u32; 3],
    block: [u32; 3],
    args: &[ArgValue],
    opts: &Options,
) -> Result<Finals, Trap> {
    run_inner(p, kernel, grid, block, args, opts, &mut Vec::new())
}

fn run_inner(
    p: &Program,
    kernel: FnId,
    grid: [u32; 3],
    block: [u32; 3],
    args: &[ArgValue],
    opts: &Options,
    trace: &mut Vec<String>,
) -> Result<Finals, Trap> {
    let f = &p.functions[kernel as usize];
    if f.params.len() != args.len() {
        return Err(setup_trap(format!(
            "{} arguments for {} parameters",
            args.len(),
            f.params.len()
        )));
    }
    let mut m = Machine {
        p,
        kernel,
        shift_rule: opts.shift_rule,
        step_limit: opts.step_limit,
        buffers: Vec::new(),
        tables: Vec::new(),
        locals: Vec::new(),
        local_of_var: vec![None; f.vars.len()],
        local_sizes: Vec::new(),
        epoch: 1,
        geo: Geometry {
            grid,
            block,
            group: [0; 3],
            work_dim: work_dim(grid, block),
        },
        lane: Lane::default(),
        next_serial: 0,
        trace_lane: opts.trace_lane,
        trace: Vec::new(),
        var_sizes: p
            .functions
            .iter()
            .map(|f| f.vars.iter().map(|d| layout(p, &d.ty).0).collect())
            .collect(),
    };
    for t in &p.constants {
        let mut bytes = Vec::new();
        for v in &t.values {
            let v = m
                .eval(v)
                .and_then(|v| convert(&v, t.elem))
                .map_err(|ub| setup_trap(ub.to_string()))?;
            bytes.extend(encode(&v));
        }
        m.tables.push(Storage::from_bytes(bytes, false, true));
    }
    for (v, d) in f.vars.iter().enumerate() {
        if d.space == Space::Local {
            m.local_of_var[v] = Some(m.local_sizes.len() as u32);
            m.local_sizes.push(layout(p, &d.ty).0);
        }
    }
    // Parameter values: buffers become pointers to their storage.
    let mut params = Vec::with_capacity(args.len());
    for (i, (&pv, a)) in f.params.iter().zip(args).enumerate() {
        let d = &f.vars[pv as usize];
        let ty = p.resolve(&d.ty).clone();
        let value = match (a, &ty) {
            (
                ArgValue::Buffer(bytes),
                Type::Ptr {
                    space: sp @ (Space::Global | Space::Constant),
                    pointee,
                    ..
                },
            ) => {
                m.buffers.resize(i + 1, None);
                m.buffers[i] = Some(Storage::from_bytes(
                    bytes.clone(),
                    true,
                    *sp == Space::Constant,
                ));
                let elem_size = layout(p, pointee).0;
                Value::Ptr(Box::new(Ptr {
                    space: *sp,
                    obj: ObjRef::Buffer(i as u32),
                    offset: 0,
                    lo: 0,
                    hi: bytes.len() as i64,
                    elem: (**pointee).clone(),
                    elem_size,
                }))
            }
            (
                ArgValue::Local(size),
                Type::Ptr {
                    space: Space::Local,
                    pointee,
                    ..
                },
            ) => {
                let idx = m.local_sizes.len() as u32;
                m.local_sizes.push(*size);
                Value::Ptr(Box::new(Ptr {
                    space: Space::Local,
                    obj: ObjRef::Local(idx),
                    offset: 0,
                    lo: 0,
                    hi: *size as i64,
                    elem: (**pointee).clone(),
                    elem_size: layout(p, pointee).0,
                }))
            }
            (
                ArgValue::Int {
                    bits,
                    signed,
                    value,
                },
                Type::Scalar(s),
            ) if s.is_integer() && s.bits() == *bits as u32 && s.is_signed() == *signed => {
                let (lo, hi) = s.range();
                if *value < lo || *value > hi {
                    return Err(setup_trap(format!(
                        "argument `{}` = {value} out of range",
                        d.name
                    )));
                }
                Value::Int(*s, *value)
            }
            (ArgValue::F32(x), Type::Scalar(crate::ast::Scalar::Float)) => Value::F32(*x),
            (ArgValue::F64(x), Type::Scalar(crate::ast::Scalar::Double)) => Value::F64(*x),
            (a, t) => {
                return Err(setup_trap(format!(
                    "argument `{}`: {a:?} does not fit {t:?}",
                    d.name
                )))
            }
        };
        params.push(value);
    }
    m.buffers.resize(args.len(), None);

    let per_group = (block[0] * block[1] * block[2]) as usize;
    let global_x = grid[0] * block[0];
    let global_y = grid[1] * block[1];
    let mut groups = Vec::new();
    for gz in 0..grid[2] {
        for gy in 0..grid[1] {
            for gx in 0..grid[0] {
                groups.push([gx, gy, gz]);
            }
        }
    }
    if opts.reverse_order {
        groups.reverse();
    }
    for [gx, gy, gz] in groups {
        m.geo.group = [gx, gy, gz];
        m.locals = m
            .local_sizes
            .iter()
            .map(|&s| Storage::uninit(s as usize, true))
            .collect();
        let mut lanes = Vec::with_capacity(per_group);
        for lz in 0..block[2] {
            for ly in 0..block[1] {
                for lx in 0..block[0] {
                    let gid = [gx * block[0] + lx, gy * block[1] + ly, gz * block[2] + lz];
                    let serial = m.next_serial;
                    m.next_serial += 1;
                    let slots = f.vars.iter().map(|d| m.new_slot(&d.ty)).collect();
                    lanes.push(Lane {
                        global_id: gid,
                        local_id: [lx, ly, lz],
                        linear: gid[0] + global_x * (gid[1] + global_y * gid[2]),
                        frames: vec![Frame {
                            serial,
                            func: kernel,
                            slots,
                        }],
                        resume: None,
                        done: false,
                        steps: 0,
                    });
                }
            }
        }
        if opts.reverse_order {
            lanes.reverse();
        }
        if let Err(t) = run_group(&mut m, &mut lanes, &params) {
            *trace = std::mem::take(&mut m.trace);
            return Err(t);
        }
    }
    *trace = std::mem::take(&mut m.trace);
    Ok(m.buffers.into_iter().map(|b| b.map(|s| s.data)).collect())
}

fn run_group(m: &mut Machine, lanes: &mut [Lane], params: &[Value]) -> Result<(), Trap> {
    let f = &m.p.functions[m.kernel as usize];
    let trap = |m: &Machine, ub: Ub| Trap {
        ub,
        global_id: m.lane.global_id,
        group_id: m.geo.group,
        function: m
            .lane
            .frames
            .last()
            .map(|fr| m.p.functions[fr.func as usize].name.clone())
            .unwrap_or_default(),
    };
    for lane in lanes.iter_mut() {
        std::mem::swap(&mut m.lane, lane);
        for (&pv, v) in f.params.iter().zip(params) {
            let pl = m.var_place(pv);
            if let Err(ub) = m.store(&pl, v.clone()) {
                return Err(trap(m, ub));
            }
        }
        std::mem::swap(&mut m.lane, lane);
    }
    loop {
        for lane in lanes.iter_mut().filter(|l| !l.done) {
            std::mem::swap(&mut m.lane, lane);
            let resume = m.lane.resume.take();
            let r = m.exec_block(&f.body, resume.as_deref());
            let r = match r {
                Ok(Flow::Suspend(mut rev)) => {
                    rev.reverse();
                    m.lane.resume = Some(rev);
                    Ok(())
                }
                Ok(Flow::Next | Flow::Return(_)) => {
                    m.lane.done = true;
                    Ok(())
                }
                Ok(Flow::Break | Flow::Continue) => {
                    Err(Ub::Unsupported("break or continue outside a loop".into()))
                }
                Err(ub) => Err(ub),
            };
            if let Err(ub) = r {
                let t = trap(m, ub);
                std::mem::swap(&mut m.lane, lane);
                return Err(t);
            }
            std::mem::swap(&mut m.lane, lane);
        }
        let mut waiting = lanes.iter().filter(|l| !l.done);
        let Some(first) = waiting.next() else {
            return Ok(());
        };
        if let Some(other) = waiting.find(|l| l.resume != first.resume) {
            return Err(Trap {
                ub: Ub::Barrier(format!(
                    "work-items {:?} and {:?} wait at different barriers ({:?} and {:?})",
                    first.local_id, other.local_id, first.resume, other.resume
                )),
                global_id: other.global_id,
                group_id: m.geo.group,
                function: f.name.clone(),
            });
        }
        m.epoch += 1;
    }
}
