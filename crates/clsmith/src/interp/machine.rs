//! The interpreter's state: memory objects of the launch, the running work-item's call
//! frames, and how places (lvalues) are read and written.

use crate::ast::{FnId, Program, Space, Type, VarId};
use crate::ctype::layout;
use crate::interp::memory::{read_scalar, write_bytes, write_scalar, Storage, Who};
use crate::interp::trap::Ub;
use crate::interp::value::{Agg, ObjRef, Ptr, ShiftRule, Value};

/// The storage of one variable of a call frame.
#[derive(Clone, Debug)]
pub enum Slot {
    /// An arithmetic or pointer variable (`None` until written).
    Scalar(Option<Value>),
    /// An array or struct variable.
    Bytes(Storage),
}

/// One call of a function.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Unique over the work-item's run, so a pointer to a finished call's variable is
    /// recognised as dangling.
    pub serial: u64,
    /// The function.
    pub func: FnId,
    /// Its variables.
    pub slots: Vec<Slot>,
}

/// A work-item.
#[derive(Clone, Debug, Default)]
pub struct Lane {
    /// `get_global_id`.
    pub global_id: [u32; 3],
    /// `get_local_id`.
    pub local_id: [u32; 3],
    /// The global linear id (owner of shadow records).
    pub linear: u32,
    /// Call frames, the kernel's first.
    pub frames: Vec<Frame>,
    /// Where to continue after the barrier it waits at (statement path in the kernel).
    pub resume: Option<Vec<u32>>,
    /// Returned from the kernel.
    pub done: bool,
    /// Evaluation steps so far.
    pub steps: u64,
}

/// Shape of the launch.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Work-items per workgroup per dimension.
    pub block: [u32; 3],
    /// The current workgroup.
    pub group: [u32; 3],
    /// `get_work_dim()`.
    pub work_dim: u32,
}

/// An lvalue: a typed location.
#[derive(Clone, Debug)]
pub struct Place {
    /// The object.
    pub obj: ObjRef,
    /// Byte offset.
    pub offset: i64,
    /// Bounds of the array (or object) the access was derived from.
    pub lo: i64,
    /// One past the last valid byte.
    pub hi: i64,
    /// The type stored there.
    pub ty: Type,
    /// Its address space.
    pub space: Space,
}

/// The whole interpreter state.
pub struct Machine<'p> {
    /// The program.
    pub p: &'p Program,
    /// The kernel being run.
    pub kernel: FnId,
    /// Shift counts by OpenCL's or by C's rule.
    pub shift_rule: ShiftRule,
    /// Steps per work-item before [`Ub::StepLimit`].
    pub step_limit: u64,
    /// Kernel buffer arguments by parameter position.
    pub buffers: Vec<Option<Storage>>,
    /// Program-scope `__constant` arrays.
    pub tables: Vec<Storage>,
    /// `__local` objects of the current workgroup.
    pub locals: Vec<Storage>,
    /// The `__local` object of each kernel variable that has one.
    pub local_of_var: Vec<Option<u32>>,
    /// Sizes of the `__local` objects.
    pub local_sizes: Vec<u32>,
    /// Current `__local` epoch (advances at every barrier release; starts at 1).
    pub epoch: u32,
    /// The launch shape and current workgroup.
    pub geo: Geometry,
    /// The running work-item.
    pub lane: Lane,
    /// Next frame serial.
    pub next_serial: u64,
    /// The work-item whose helper calls are recorded.
    pub trace_lane: Option<u32>,
    /// The recorded calls.
    pub trace: Vec<String>,
    /// Size in bytes of every variable of every function.
    pub var_sizes: Vec<Vec<u32>>,
}

/// The epoch of every `__global` access: global memory is never synchronized between
/// work-items, so one epoch spans the launch.
pub const GLOBAL_EPOCH: u32 = 1;

impl Machine<'_> {
    /// The frame of the running function.
    pub fn frame(&self) -> &Frame {
        self.lane.frames.last().expect("a running function")
    }

    /// The declared type of variable `v` of the running function.
    pub fn var_type(&self, v: VarId) -> &Type {
        &self.p.functions[self.frame().func as usize].vars[v as usize].ty
    }

    /// A fresh slot for a variable of type `ty`.
    pub fn new_slot(&self, ty: &Type) -> Slot {
        match self.p.resolve(ty) {
            Type::Array(..) | Type::Struct(_) => {
                Slot::Bytes(Storage::uninit(layout(self.p, ty).0 as usize, false))
            }
            _ => Slot::Scalar(None),
        }
    }

    /// The place of variable `v` of the running function.
    pub fn var_place(&self, v: VarId) -> Place {
        let func = self.frame().func as usize;
        let d = &self.p.functions[func].vars[v as usize];
        let size = self.var_sizes[func][v as usize] as i64;
        let obj = match (d.space, self.lane.frames.len()) {
            (Space::Local, 1) => ObjRef::Local(
                self.local_of_var[v as usize].expect("__local variable of the kernel"),
            ),
            _ => ObjRef::Private {
                frame: self.frame().serial,
                var: v,
            },
        };
        let space = match obj {
            ObjRef::Local(_) => Space::Local,
            _ => Space::Private,
        };
        Place {
            obj,
            offset: 0,
            lo: 0,
            hi: size,
            ty: d.ty.clone(),
            space,
        }
    }

    fn who(&self, obj: ObjRef) -> Option<Who> {
        match obj {
            ObjRef::Buffer(_) => Some(Who {
                lane: self.lane.linear,
                epoch: GLOBAL_EPOCH,
            }),
            ObjRef::Local(_) => Some(Who {
                lane: self.lane.linear,
                epoch: self.epoch,
            }),
            _ => None,
        }
    }

    /// The storage of an object that keeps bytes; `None` for a scalar variable's slot.
    pub fn storage(&mut self, obj: ObjRef) -> Result<Option<&mut Storage>, Ub> {
        Ok(match obj {
            ObjRef::Buffer(i) => Some(self.buffers[i as usize].as_mut().expect("buffer argument")),
            ObjRef::Local(i) => Some(&mut self.locals[i as usize]),
            ObjRef::Table(i) => Some(&mut self.tables[i as usize]),
            ObjRef::Private { frame, var } => match self.slot(frame, var)? {
                Slot::Bytes(st) => Some(st),
                Slot::Scalar(_) => None,
            },
        })
    }

    /// The slot of a private variable of a live frame.
    pub fn slot(&mut self, frame: u64, var: VarId) -> Result<&mut Slot, Ub> {
        let f = self
            .lane
            .frames
            .iter_mut()
            .rev()
            .find(|f| f.serial == frame)
            .ok_or_else(|| {
                Ub::BadPointer("a pointer to a variable of a call that has returned".into())
            })?;
        Ok(&mut f.slots[var as usize])
    }

    fn check_bounds(pl: &Place, size: u32, what: &str) -> Result<(), Ub> {
        if pl.offset < pl.lo || pl.offset + size as i64 > pl.hi {
            return Err(Ub::OutOfBounds(format!(
                "{what}: {size} bytes at offset {} outside [{}, {})",
                pl.offset, pl.lo, pl.hi
            )));
        }
        Ok(())
    }

    /// The value at a place; an array yields a pointer to its first element.
    pub fn load(&mut self, pl: &Place) -> Result<Value, Ub> {
        let p = self.p;
        let ty = p.resolve(&pl.ty);
        match ty {
            Type::Array(elem, n) => {
                let (elem, n) = (elem.as_ref(), *n);
                let size = layout(self.p, elem).0;
                Ok(Value::Ptr(Box::new(Ptr {
                    space: pl.space,
                    obj: pl.obj,
                    offset: pl.offset,
                    lo: pl.offset,
                    hi: pl.offset + (size * n) as i64,
                    elem: elem.clone(),
                    elem_size: size,
                })))
            }
            Type::Struct(id) => {
                let id = *id;
                let size = layout(self.p, ty).0;
                Self::check_bounds(pl, size, "struct read")?;
                let st = self.storage(pl.obj)?.expect("structs live in byte storage");
                let o = pl.offset as usize;
                // A struct copy carries uninitialized bytes along (padding) without
                // reading them.
                Ok(Value::Agg(Box::new(Agg {
                    id,
                    data: st.data[o..o + size as usize].to_vec(),
                    init: st.init[o..o + size as usize].to_vec(),
                })))
            }
            Type::Scalar(s) => {
                let s = *s;
                Self::check_bounds(pl, s.size(), "read")?;
                let who = self.who(pl.obj);
                match self.storage(pl.obj)? {
                    Some(st) => read_scalar(st, pl.offset, s, who, "read"),
                    None => self.read_slot(pl),
                }
            }
            Type::Ptr { .. } => {
                Self::check_bounds(pl, 8, "pointer read")?;
                self.read_slot(pl)
            }
            Type::Void | Type::Alias(_) => Err(Ub::Unsupported(format!("load of {ty:?}"))),
        }
    }

    fn read_slot(&mut self, pl: &Place) -> Result<Value, Ub> {
        let ObjRef::Private { frame, var } = pl.obj else {
            return Err(Ub::Unsupported(
                "pointer stored outside a private variable".into(),
            ));
        };
        match self.slot(frame, var)? {
            Slot::Scalar(Some(v)) => Ok(v.clone()),
            Slot::Scalar(None) => Err(Ub::Uninit(format!(
                "variable `{}`",
                self.p.functions[self.frame().func as usize].vars[var as usize].name
            ))),
            Slot::Bytes(_) => unreachable!("scalar place in a byte slot"),
        }
    }

    /// Stores `v` (already of the place's type) at a place.
    pub fn store(&mut self, pl: &Place, v: Value) -> Result<(), Ub> {
        let ty = self.p.resolve(&pl.ty).clone();
        let size = layout(self.p, &ty).0;
        Self::check_bounds(pl, size, "write")?;
        let who = self.who(pl.obj);
        match (ty, v) {
            (Type::Struct(_), Value::Agg(a)) => {
                let st = self.storage(pl.obj)?.expect("structs live in byte storage");
                write_bytes(st, pl.offset, &a.data, Some(&a.init), who, "struct write")
            }
            (Type::Scalar(_), v) => match self.storage(pl.obj)? {
                Some(st) => write_scalar(st, pl.offset, &v, who, "write"),
                None => self.write_slot(pl, v),
            },
            (Type::Ptr { .. }, v @ Value::Ptr(_)) => self.write_slot(pl, v),
            (t, v) => Err(Ub::Unsupported(format!("store of {} into {t:?}", v.show()))),
        }
    }

    fn write_slot(&mut self, pl: &Place, v: Value) -> Result<(), Ub> {
        let ObjRef::Private { frame, var } = pl.obj else {
            return Err(Ub::Unsupported(
                "pointer stored outside a private variable".into(),
            ));
        };
        match self.slot(frame, var)? {
            Slot::Scalar(s) => {
                *s = Some(v);
                Ok(())
            }
            Slot::Bytes(_) => unreachable!("scalar place in a byte slot"),
        }
    }

    /// Counts one evaluation step of the running work-item.
    pub fn step(&mut self) -> Result<(), Ub> {
        self.lane.steps += 1;
        if self.lane.steps > self.step_limit {
            return Err(Ub::StepLimit(self.step_limit));
        }
        Ok(())
    }
}
