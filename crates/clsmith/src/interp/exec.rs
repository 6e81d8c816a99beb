//! Execution of statements and calls. A barrier suspends the work-item: the statement
//! path to it travels up as [`Flow::Suspend`] and the run resumes by walking the same path
//! down, so the kernel's variables (kept in frames, not on the Rust stack) carry over.

use crate::ast::{Block, Builtin, Expr, FnId, Init, Label, Space, Stmt, Type};
use crate::ctype::{layout, promote};
use crate::interp::machine::{Frame, Machine, Place};
use crate::interp::trap::Ub;
use crate::interp::value::{convert, wrap, Value};

/// How a statement ended.
#[derive(Debug)]
pub enum Flow {
    /// Fell through to the next statement.
    Next,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `return` with its value (`Void` for `return;`).
    Return(Value),
    /// Reached a barrier: the statement path to it, innermost step first.
    Suspend(Vec<u32>),
}

/// What an iteration of a loop body asks for.
enum Iter {
    /// The next iteration (after `continue` or the body's end).
    Again,
    /// Leave the loop (`break`).
    Stop,
    /// Leave the loop's statement with this flow (return, suspension).
    Exit(Flow),
}

impl Machine<'_> {
    /// Runs a block, from the start or resuming at `resume` (a path whose first element
    /// indexes this block's statements).
    pub fn exec_block(&mut self, b: &Block, resume: Option<&[u32]>) -> Result<Flow, Ub> {
        let (start, mut inner) = match resume {
            None => (0, None),
            Some([i]) => (*i as usize + 1, None),
            Some(path) => (path[0] as usize, Some(&path[1..])),
        };
        for (i, s) in b.stmts.iter().enumerate().skip(start) {
            match self.exec_stmt(s, inner.take())? {
                Flow::Next => {}
                Flow::Suspend(mut rev) => {
                    rev.push(i as u32);
                    return Ok(Flow::Suspend(rev));
                }
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn exec_stmt(&mut self, s: &Stmt, resume: Option<&[u32]>) -> Result<Flow, Ub> {
        self.step()?;
        match s {
            Stmt::Decl(v, init) => {
                let f = &self.p.functions[self.frame().func as usize];
                let d = &f.vars[*v as usize];
                if d.space == Space::Local {
                    return Ok(Flow::Next);
                }
                let slot = self.new_slot(&d.ty);
                let serial = self.frame().serial;
                *self.slot(serial, *v)? = slot;
                if let Some(init) = init {
                    let pl = self.var_place(*v);
                    self.initialize(&pl, init)?;
                }
                Ok(Flow::Next)
            }
            Stmt::Expr(e) => {
                match e {
                    Expr::Builtin(b @ Builtin::Atomic { .. }, args) => {
                        self.builtin(*b, args, false)?;
                    }
                    _ => {
                        self.eval(e)?;
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::Block(b) => self.exec_block(b, resume),
            Stmt::PpIf {
                taken, then, els, ..
            } => self.exec_block(if *taken { then } else { els }, resume),
            Stmt::If(c, then, els) => {
                let (branch, inner) = match resume {
                    Some(path) => (path[0], Some(&path[1..])),
                    None => (if self.eval(c)?.truthy() { 0 } else { 1 }, None),
                };
                let flow = match (branch, els) {
                    (0, _) => self.exec_block(then, inner)?,
                    (_, Some(e)) => self.exec_block(e, inner)?,
                    (_, None) => Flow::Next,
                };
                Ok(match flow {
                    Flow::Suspend(mut rev) => {
                        rev.push(branch);
                        Flow::Suspend(rev)
                    }
                    f => f,
                })
            }
            Stmt::For(init, cond, step, body) => {
                let mut inner = resume.map(|p| &p[1..]);
                if inner.is_none() {
                    if let Some(init) = init {
                        self.exec_stmt(init, None)?;
                    }
                }
                loop {
                    if inner.is_none() {
                        if let Some(c) = cond {
                            if !self.eval(c)?.truthy() {
                                break;
                            }
                        }
                    }
                    match self.loop_body(body, inner.take())? {
                        Iter::Exit(f) => return Ok(f),
                        Iter::Stop => break,
                        Iter::Again => {}
                    }
                    if let Some(st) = step {
                        self.eval(st)?;
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::While(c, body) => {
                let mut inner = resume.map(|p| &p[1..]);
                loop {
                    if inner.is_none() && !self.eval(c)?.truthy() {
                        break;
                    }
                    match self.loop_body(body, inner.take())? {
                        Iter::Exit(f) => return Ok(f),
                        Iter::Stop => break,
                        Iter::Again => {}
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::DoWhile(body, c) => {
                let mut inner = resume.map(|p| &p[1..]);
                loop {
                    match self.loop_body(body, inner.take())? {
                        Iter::Exit(f) => return Ok(f),
                        Iter::Stop => break,
                        Iter::Again => {}
                    }
                    if !self.eval(c)?.truthy() {
                        break;
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::Switch(e, arms) => {
                if resume.is_some() {
                    return Err(Ub::Unsupported("barrier inside a switch".into()));
                }
                let v = self.eval(e)?;
                let t = promote(v.scalar().expect("integer switch"));
                let v = convert(&v, t)?.int();
                let matches = |l: &Label| matches!(l, Label::Case(c) if wrap(t, *c as i128) == v);
                let start = arms
                    .iter()
                    .position(|a| a.labels.iter().any(matches))
                    .or_else(|| arms.iter().position(|a| a.labels.contains(&Label::Default)));
                if let Some(start) = start {
                    for arm in &arms[start..] {
                        for s in &arm.body {
                            match self.exec_stmt(s, None)? {
                                Flow::Next => {}
                                Flow::Break => return Ok(Flow::Next),
                                Flow::Suspend(_) => {
                                    return Err(Ub::Unsupported("barrier inside a switch".into()))
                                }
                                other => return Ok(other),
                            }
                        }
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::Break => Ok(Flow::Break),
            Stmt::Continue => Ok(Flow::Continue),
            Stmt::Return(e) => {
                let v = match e {
                    None => Value::Void,
                    Some(e) => {
                        let v = self.eval(e)?;
                        let ret = self.p.functions[self.frame().func as usize].ret.clone();
                        self.coerce(&ret, v)?
                    }
                };
                Ok(Flow::Return(v))
            }
            Stmt::Barrier(_) => {
                if self.lane.frames.len() != 1 {
                    return Err(Ub::Barrier("barrier inside a helper function".into()));
                }
                Ok(Flow::Suspend(Vec::new()))
            }
        }
    }

    /// Runs one iteration's body.
    fn loop_body(&mut self, body: &Block, resume: Option<&[u32]>) -> Result<Iter, Ub> {
        Ok(match self.exec_block(body, resume)? {
            Flow::Next | Flow::Continue => Iter::Again,
            Flow::Break => Iter::Stop,
            Flow::Suspend(mut rev) => {
                rev.push(0);
                Iter::Exit(Flow::Suspend(rev))
            }
            f @ Flow::Return(_) => Iter::Exit(f),
        })
    }

    /// `v` converted for storage in an object of type `ty`.
    pub fn coerce(&self, ty: &Type, v: Value) -> Result<Value, Ub> {
        match self.p.resolve(ty) {
            Type::Scalar(s) => convert(&v, *s),
            _ => Ok(v),
        }
    }

    fn initialize(&mut self, pl: &Place, init: &Init) -> Result<(), Ub> {
        match init {
            Init::Expr(e) => {
                let v = self.eval(e)?;
                let v = self.coerce(&pl.ty, v)?;
                self.store(pl, v)
            }
            Init::List(items) => {
                let ty = self.p.resolve(&pl.ty).clone();
                let parts: Vec<(i64, Type)> = match &ty {
                    Type::Array(elem, n) => {
                        let size = layout(self.p, elem).0 as i64;
                        (0..*n as i64)
                            .map(|i| (i * size, (**elem).clone()))
                            .collect()
                    }
                    Type::Struct(id) => self.p.structs[*id as usize]
                        .fields
                        .iter()
                        .enumerate()
                        .map(|(i, f)| {
                            (
                                crate::ctype::field_offset(self.p, *id, i as u32) as i64,
                                f.ty.clone(),
                            )
                        })
                        .collect(),
                    t => return Err(Ub::Unsupported(format!("initializer list for {t:?}"))),
                };
                if parts.len() != items.len() {
                    return Err(Ub::Unsupported(
                        "initializer list of the wrong length".into(),
                    ));
                }
                for ((off, ty), item) in parts.into_iter().zip(items) {
                    let size = layout(self.p, &ty).0 as i64;
                    let sub = Place {
                        obj: pl.obj,
                        offset: pl.offset + off,
                        lo: pl.offset + off,
                        hi: pl.offset + off + size,
                        ty,
                        space: pl.space,
                    };
                    self.initialize(&sub, item)?;
                }
                Ok(())
            }
        }
    }

    /// Calls helper `g` with evaluated arguments.
    pub fn call(&mut self, g: FnId, args: Vec<Value>) -> Result<Value, Ub> {
        let f = &self.p.functions[g as usize];
        if self.lane.frames.len() >= 32 {
            return Err(Ub::Unsupported("call depth beyond 32 (recursion?)".into()));
        }
        let shown = if self.trace_lane == Some(self.lane.linear) {
            Some(args.iter().map(Value::show).collect::<Vec<_>>())
        } else {
            None
        };
        let slots = f.vars.iter().map(|d| self.new_slot(&d.ty)).collect();
        let serial = self.next_serial;
        self.next_serial += 1;
        self.lane.frames.push(Frame {
            serial,
            func: g,
            slots,
        });
        for (&pv, v) in f.params.iter().zip(args) {
            let pl = self.var_place(pv);
            let v = self.coerce(&pl.ty, v)?;
            self.store(&pl, v)?;
        }
        let flow = self.exec_block(&f.body, None)?;
        self.lane.frames.pop();
        if let (Some(shown), Flow::Return(v)) = (shown, &flow) {
            self.trace
                .push(format!("{}({}) = {}", f.name, shown.join(", "), v.show()));
        }
        match flow {
            Flow::Return(v) => Ok(v),
            Flow::Next if f.ret == Type::Void => Ok(Value::Void),
            Flow::Next => Err(Ub::Unsupported(format!(
                "`{}` ends without returning a value",
                f.name
            ))),
            Flow::Suspend(_) => Err(Ub::Barrier("barrier inside a helper function".into())),
            Flow::Break | Flow::Continue => {
                Err(Ub::Unsupported("break or continue outside a loop".into()))
            }
        }
    }
}
