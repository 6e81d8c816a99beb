//! Functions: kernels become IR functions (parameters, `reqd_work_group_size`); every call of
//! a function with a body is inlined with its parameters bound by value; recursion is found
//! on the call graph beforehand and reported with its cycle.

use super::convert::Conv;
use super::types::{FnType, IntKind, QualType, Type};
use super::{Frame, Lowerer, RetSlot, Scope, Storage, Sym, RV};
use crate::ast::{self, BlockItem, Derived, Expr, ExprKind, ForInit, Initializer, Stmt, StmtKind};
use crate::ir::{self, OpKind, ParamKind, Space, Ty, ValueId};
use crate::source::Span;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Call `f` on every expression of statement `s`, outermost first.
pub(crate) fn walk_stmt(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match &s.kind {
        StmtKind::Compound(items) => {
            for i in items {
                match i {
                    BlockItem::Decl(d) => walk_decl(d, f),
                    BlockItem::Stmt(s) => walk_stmt(s, f),
                }
            }
        }
        StmtKind::Expr(e) => {
            if let Some(e) = e {
                walk_expr(e, f);
            }
        }
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            walk_expr(cond, f);
            walk_stmt(then, f);
            if let Some(o) = otherwise {
                walk_stmt(o, f);
            }
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            walk_expr(cond, f);
            walk_stmt(body, f);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            match init {
                ForInit::Decl(d) => walk_decl(d, f),
                ForInit::Expr(e) => walk_expr(e, f),
                ForInit::None => {}
            }
            for e in [cond, step].into_iter().flatten() {
                walk_expr(e, f);
            }
            walk_stmt(body, f);
        }
        StmtKind::Switch { expr, body } => {
            walk_expr(expr, f);
            walk_stmt(body, f);
        }
        StmtKind::Case { value, high, body } => {
            walk_expr(value, f);
            if let Some(h) = high {
                walk_expr(h, f);
            }
            walk_stmt(body, f);
        }
        StmtKind::Default(body) | StmtKind::Labeled { body, .. } => walk_stmt(body, f),
        StmtKind::Return(Some(e)) => walk_expr(e, f),
        StmtKind::Return(None) | StmtKind::Goto(_) | StmtKind::Break | StmtKind::Continue => {}
    }
}

fn walk_decl(d: &ast::Declaration, f: &mut dyn FnMut(&Expr)) {
    for id in &d.declarators {
        if let Some(init) = &id.init {
            walk_init(init, f);
        }
    }
}

fn walk_init(init: &Initializer, f: &mut dyn FnMut(&Expr)) {
    match init {
        Initializer::Expr(e) => walk_expr(e, f),
        Initializer::List { items, .. } => {
            for (_, i) in items {
                walk_init(i, f);
            }
        }
    }
}

pub(crate) fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, x) | ExprKind::SizeofExpr(x) | ExprKind::Cast(_, x) => walk_expr(x, f),
        ExprKind::Binary(_, l, r) | ExprKind::Comma(l, r) | ExprKind::Index(l, r) => {
            walk_expr(l, f);
            walk_expr(r, f);
        }
        ExprKind::Assign { lhs, rhs, .. } => {
            walk_expr(lhs, f);
            walk_expr(rhs, f);
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            walk_expr(cond, f);
            walk_expr(then, f);
            walk_expr(otherwise, f);
        }
        ExprKind::Call { callee, args } => {
            walk_expr(callee, f);
            for a in args {
                walk_expr(a, f);
            }
        }
        ExprKind::Member { base, .. } => walk_expr(base, f),
        ExprKind::CompoundLiteral(_, init) => walk_init(init, f),
        _ => {}
    }
}

/// The parameter declarations of a function definition.
fn def_params(def: &ast::FunctionDef) -> &[ast::ParamDecl] {
    match def.declarator.derived.first() {
        Some(Derived::Function { params, .. }) => params,
        _ => &[],
    }
}

/// A parameter's C type as written (`__global const float *`), for kernel metadata.
fn c_type(p: &ast::ParamDecl) -> String {
    let q = &p.specs.qualifiers;
    let mut s = String::new();
    if let Some(space) = q.addr_space {
        s.push_str(match space {
            ast::AddrSpaceQual::Global => "__global ",
            ast::AddrSpaceQual::Local => "__local ",
            ast::AddrSpaceQual::Constant => "__constant ",
            ast::AddrSpaceQual::Private => "__private ",
        });
    }
    if q.is_const {
        s.push_str("const ");
    }
    if q.is_volatile {
        s.push_str("volatile ");
    }
    let base = match &p.specs.ty {
        ast::TypeSpec::Void => "void".to_string(),
        ast::TypeSpec::Bool => "bool".into(),
        ast::TypeSpec::Char => "char".into(),
        ast::TypeSpec::SChar => "signed char".into(),
        ast::TypeSpec::UChar => "uchar".into(),
        ast::TypeSpec::Short => "short".into(),
        ast::TypeSpec::UShort => "ushort".into(),
        ast::TypeSpec::Int => "int".into(),
        ast::TypeSpec::UInt => "uint".into(),
        ast::TypeSpec::Long => "long".into(),
        ast::TypeSpec::ULong => "ulong".into(),
        ast::TypeSpec::Half => "half".into(),
        ast::TypeSpec::Float => "float".into(),
        ast::TypeSpec::Double => "double".into(),
        ast::TypeSpec::TypedefName(n) | ast::TypeSpec::Unsupported(n) => n.clone(),
        ast::TypeSpec::Record(r) => format!(
            "{} {}",
            if r.is_union { "union" } else { "struct" },
            r.tag.as_ref().map_or("", |t| t.0.as_str())
        ),
        ast::TypeSpec::Enum(e) => format!("enum {}", e.tag.as_ref().map_or("", |t| t.0.as_str())),
        spec @ ast::TypeSpec::Vector(..) => super::decl::spec_spelling(spec),
    };
    s.push_str(&base);
    for d in p.declarator.derived.iter().rev() {
        match d {
            Derived::Pointer(q) => {
                s.push_str(" *");
                if q.is_const {
                    s.push_str(" const");
                }
            }
            Derived::Array(_) => s.push_str(" *"),
            Derived::Function { .. } => {}
        }
    }
    s.replace("* *", "**")
}

impl<'a> Lowerer<'a> {
    /// The names whose address a function takes (`&x`): such scalars live in memory.
    fn addr_taken(&mut self, i: usize) -> Rc<HashSet<String>> {
        if let Some(s) = &self.funcs[i].addr_taken {
            return s.clone();
        }
        let mut set = HashSet::new();
        if let Some(def) = self.funcs[i].def {
            walk_stmt(&def.body, &mut |e| {
                if let ExprKind::Unary(ast::UnaryOp::AddrOf, x) = &e.kind {
                    let mut x = &**x;
                    // `&x.f` and `&x[i]` need no scalar in memory; only `&x` does.
                    while let ExprKind::Comma(_, r) = &x.kind {
                        x = r;
                    }
                    if let ExprKind::Ident(n) = &x.kind {
                        set.insert(n.clone());
                    }
                }
            });
        }
        let set = Rc::new(set);
        self.funcs[i].addr_taken = Some(set.clone());
        set
    }

    /// Find every recursion cycle of the call graph and report it.
    pub(crate) fn check_recursion(&mut self) {
        let by_name: HashMap<String, usize> = self
            .funcs
            .iter()
            .enumerate()
            .filter(|(_, f)| f.def.is_some())
            .map(|(i, f)| (f.name.clone(), i))
            .collect();
        let mut calls: Vec<Vec<(usize, Span)>> = vec![Vec::new(); self.funcs.len()];
        for (i, f) in self.funcs.iter().enumerate() {
            let Some(def) = f.def else {
                continue;
            };
            walk_stmt(&def.body, &mut |e| {
                if let ExprKind::Call { callee, .. } = &e.kind {
                    if let ExprKind::Ident(n) = &callee.kind {
                        if let Some(&j) = by_name.get(n) {
                            calls[i].push((j, e.span));
                        }
                    }
                }
            });
        }
        // Depth-first search; a call to a function on the stack closes a cycle.
        let n = self.funcs.len();
        let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
        let mut cycles: Vec<(Vec<usize>, Span)> = Vec::new();
        for root in 0..n {
            if state[root] != 0 || self.funcs[root].def.is_none() {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            state[root] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if *next < calls[node].len() {
                    let (callee, span) = calls[node][*next];
                    *next += 1;
                    match state[callee] {
                        0 => {
                            state[callee] = 1;
                            stack.push((callee, 0));
                        }
                        1 => {
                            let start = stack
                                .iter()
                                .position(|&(f, _)| f == callee)
                                .expect("on stack");
                            let cycle: Vec<usize> =
                                stack[start..].iter().map(|&(f, _)| f).collect();
                            cycles.push((cycle, span));
                        }
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
        for (cycle, span) in cycles {
            if cycle.iter().all(|f| self.recursive.contains(f)) {
                continue;
            }
            let mut names: Vec<&str> = cycle.iter().map(|&f| self.funcs[f].name.as_str()).collect();
            names.push(names[0]);
            let msg = format!(
                "recursion is not allowed in OpenCL C: {}",
                names.join(" -> ")
            );
            self.error(span, msg);
            self.recursive.extend(cycle);
        }
    }

    /// Start lowering a function body: a new frame with its scope, `return` flag and slot.
    fn push_frame(
        &mut self,
        name: &str,
        ret_ty: Type,
        is_kernel: bool,
        addr_taken: Rc<HashSet<String>>,
        span: Span,
    ) {
        let id = self.next_frame;
        self.next_frame += 1;
        self.scopes.push(Scope::default());
        self.frames.push(Frame {
            id,
            name: name.to_string(),
            ret: super::VarId(u32::MAX),
            retval: None,
            ret_ty: ret_ty.clone(),
            breakables: Vec::new(),
            addr_taken,
            is_kernel,
            scope_base: self.scopes.len() - 1,
            var_base: self.vars.len(),
        });
        let ret = self.new_flag("return");
        let retval = match &ret_ty {
            Type::Void | Type::Error => None,
            Type::Record(_) => {
                let size = self.records.size(&ret_ty).unwrap_or(0);
                let align = self.records.align(&ret_ty);
                Some(RetSlot::Mem(self.new_private(
                    &format!("{name} result"),
                    size,
                    align,
                    span,
                )))
            }
            t => Some(RetSlot::Var(self.new_ssa_var(
                &format!("{name} result"),
                QualType::plain(t.clone()),
            ))),
        };
        let frame = self.frame_mut();
        frame.ret = ret;
        frame.retval = retval;
    }

    fn pop_frame(&mut self) {
        let frame = self.frames.pop().expect("a frame");
        while self.scopes.len() > frame.scope_base {
            self.pop_scope();
        }
        // Nothing refers to a finished function's variables: dropping them keeps the
        // state every `If` and loop merges as small as the live code's.
        self.vars.truncate(frame.var_base);
        self.cur.truncate(frame.var_base);
    }

    /// Bind parameter `name` of type `ty` to `value` (an aggregate's address is copied;
    /// `v: None` and no lanes: no value).
    fn bind_param(&mut self, name: &str, ty: &QualType, value: &RV, span: Span) {
        let mut ty = ty.clone();
        let in_memory = ty.ty.is_aggregate() || self.frame().addr_taken.contains(name);
        if ty.ty.is_vector() && !in_memory {
            let v = self.new_ssa_var(name, ty);
            self.declare(name, Sym::Var(v), span);
            for (l, &x) in self.var_lanes(v).into_iter().zip(&value.lanes) {
                self.write_var(l, x);
            }
            return;
        }
        if let (Some((elem, _)), true) = (ty.ty.vector(), in_memory) {
            let size = self.records.size(&ty.ty).unwrap_or(0);
            let align = self.records.align(&ty.ty);
            let i = self.new_private(name, size, align, span);
            ty.q.space = Some(Space::Private);
            let v = self.new_var(name, ty, Storage::Private(i), false);
            self.declare(name, Sym::Var(v), span);
            if !value.lanes.is_empty() {
                let dst = self.emit(
                    OpKind::PrivateAddr(i),
                    vec![],
                    Ty::Ptr(Space::Private),
                    span,
                );
                self.store_vector(dst, elem, &value.lanes, span);
            }
            return;
        }
        let value = value.v;
        if in_memory {
            let size = self.records.size(&ty.ty).unwrap_or(0);
            let align = self.records.align(&ty.ty);
            let i = self.new_private(name, size, align, span);
            ty.q.space = Some(Space::Private);
            let v = self.new_var(name, ty.clone(), Storage::Private(i), false);
            self.declare(name, Sym::Var(v), span);
            if let Some(value) = value {
                let dst = self.emit(
                    OpKind::PrivateAddr(i),
                    vec![],
                    Ty::Ptr(Space::Private),
                    span,
                );
                if ty.ty.is_aggregate() {
                    self.copy_mem(dst, value, size, align, span);
                } else {
                    self.store(dst, value, &ty.ty, span);
                }
            }
        } else {
            let v = self.new_var(name, ty, Storage::Ssa, false);
            self.declare(name, Sym::Var(v), span);
            if let Some(value) = value {
                self.write_var(v, value);
            }
        }
    }

    /// Lower a function definition on its own: a kernel for the module, or (`checking`) any
    /// function only for its diagnostics.
    pub(crate) fn lower_function(&mut self, i: usize, checking: bool) -> ir::Function {
        let info = &self.funcs[i];
        let def = info.def.expect("a definition");
        let name = info.name.clone();
        let fty = info.ty.clone();
        let is_kernel = info.is_kernel;
        let span = info.span;
        self.f = ir::Function::new(name.clone(), span);
        self.region = self.f.body;
        self.vars.clear();
        self.cur.clear();
        self.frames.clear();
        self.known_false.clear();
        self.predeclared.clear();
        self.span_override = None;
        self.checking = checking;
        self.inline_stack = vec![i];
        let addr_taken = self.addr_taken(i);
        self.push_frame(&name, fty.ret.clone(), is_kernel, addr_taken, span);
        if is_kernel {
            self.f.reqd_block = self.reqd_block(def);
        }
        for (k, p) in def_params(def).iter().enumerate() {
            let Some(ty) = fty.params.get(k).cloned() else {
                continue;
            };
            let (pname, pspan) = p
                .declarator
                .name
                .clone()
                .unwrap_or_else(|| (String::new(), p.span));
            let value = if is_kernel {
                match self.kernel_param(k, &pname, &ty, p, pspan) {
                    Some(v) => RV::val(ty.ty.clone(), v),
                    None => RV::error(),
                }
            } else {
                self.undef_rv(&ty.ty, pspan)
            };
            if !pname.is_empty() {
                self.bind_param(&pname, &ty, &value, pspan);
            }
        }
        if fty.variadic && !self.is_builtin_file(span) {
            self.unsupported(span, "variadic function");
        }
        self.function_body(def);
        self.pop_frame();
        self.checking = false;
        self.inline_stack.clear();
        std::mem::replace(&mut self.f, ir::Function::new("", Span::DUMMY))
    }

    fn function_body(&mut self, def: &ast::FunctionDef) {
        match &def.body.kind {
            StmtKind::Compound(items) => {
                let items: Vec<super::stmt::Item> = items
                    .iter()
                    .map(|i| match i {
                        BlockItem::Decl(d) => super::stmt::Item::Decl(d),
                        BlockItem::Stmt(s) => super::stmt::Item::Stmt(s),
                    })
                    .collect();
                self.items(&items);
            }
            _ => self.stmt(&def.body),
        }
    }

    /// A kernel parameter: its IR description and its value.
    fn kernel_param(
        &mut self,
        k: usize,
        name: &str,
        ty: &QualType,
        p: &ast::ParamDecl,
        span: Span,
    ) -> Option<ValueId> {
        let kind = match &ty.ty {
            Type::Pointer(pointee) => {
                if pointee.ty.is_pointer() {
                    self.error(
                        span,
                        "kernel parameter cannot be declared as a pointer to a pointer",
                    );
                    return None;
                }
                match pointee.q.space() {
                    Space::Global => ParamKind::PtrGlobal,
                    Space::Constant => ParamKind::PtrConstant,
                    Space::Local => ParamKind::PtrLocal,
                    Space::Private => {
                        self.error(
                            span,
                            "kernel parameter cannot be declared as a pointer to the __private address space",
                        );
                        return None;
                    }
                }
            }
            Type::Bool => {
                self.error(
                    span,
                    "'bool' cannot be used as the type of a kernel parameter",
                );
                return None;
            }
            Type::Int(kind) => match kind {
                IntKind::Char | IntKind::SChar => ParamKind::I8,
                IntKind::UChar => ParamKind::U8,
                IntKind::Short => ParamKind::I16,
                IntKind::UShort => ParamKind::U16,
                IntKind::Int => ParamKind::I32,
                IntKind::UInt => ParamKind::U32,
                IntKind::Long => ParamKind::I64,
                IntKind::ULong => ParamKind::U64,
            },
            Type::Float(super::types::FloatKind::Half) => ParamKind::F16,
            Type::Float(super::types::FloatKind::Float) => ParamKind::F32,
            Type::Float(super::types::FloatKind::Double) => ParamKind::F64,
            // Provisional: a struct passed by value arrives as a constant buffer holding its
            // bytes (laid out as in the kernel); the parameter is a private copy of them
            // (`bind_param` copies an aggregate from the address it is given).
            Type::Record(_) => ParamKind::PtrConstant,
            Type::Vector(..) => {
                self.unsupported(span, format_args!("vector kernel parameter '{name}'"));
                return None;
            }
            Type::Error => return None,
            t => {
                let t = self.show_ty(t);
                self.error(span, format!("invalid kernel parameter type '{t}'"));
                return None;
            }
        };
        if ty.q.space.is_some_and(|s| s != Space::Private) {
            self.error(span, "parameter may not be qualified with an address space");
        }
        let ir_ty = match ty.ty {
            Type::Record(_) => Ty::Ptr(Space::Constant),
            _ => ty.ty.ir().expect("scalar parameter"),
        };
        self.f.params.push(ir::Param {
            name: name.to_string(),
            kind,
            ty: ir_ty,
            c_type: c_type(p),
            span,
        });
        let index = self.f.params.len() as u32 - 1;
        let _ = k;
        Some(self.emit(OpKind::Param(index), vec![], ir_ty, span))
    }

    fn reqd_block(&mut self, def: &ast::FunctionDef) -> Option<[u32; 3]> {
        let attrs: Vec<&ast::Attribute> = def
            .specs
            .attributes
            .iter()
            .chain(&def.declarator.attributes)
            .filter(|a| a.name.trim_matches('_') == "reqd_work_group_size")
            .collect();
        let a = attrs.last()?;
        if a.args.len() != 3 {
            self.error(
                a.span,
                "'reqd_work_group_size' attribute requires exactly 3 arguments",
            );
            return None;
        }
        let mut out = [1u32; 3];
        for (k, e) in a.args.iter().enumerate() {
            let v = self.ice(e)?;
            if v <= 0 || v > i128::from(u32::MAX) {
                self.error(
                    e.span,
                    "'reqd_work_group_size' attribute must be greater than 0",
                );
                return None;
            }
            out[k] = v as u32;
        }
        Some(out)
    }

    // ---- calls ----

    pub(crate) fn call(&mut self, callee: &Expr, args: &[Expr], e: &Expr) -> RV {
        let ExprKind::Ident(name) = &callee.kind else {
            let rv = self.expr(callee);
            if !rv.ty.is_error() {
                self.unsupported(callee.span, "call through a function pointer");
            }
            for a in args {
                self.expr(a);
            }
            return RV::error();
        };
        match self.lookup(name) {
            Some(Sym::Func(i)) if self.funcs[i].def.is_some() => self.inline_call(i, args, e),
            Some(Sym::Func(i)) => {
                if let Some(rv) = self.builtin_call(name, args, e) {
                    return rv;
                }
                for a in args {
                    self.expr(a);
                }
                let decl = self.funcs[i].span;
                self.report(
                    crate::diag::Diagnostic::error(
                        callee.span,
                        format!("function '{name}' is declared but never defined (every call is inlined)"),
                    )
                    .in_expansion(callee.expansion)
                    .with_note(format!("'{name}' declared here"), Some(decl)),
                );
                RV::error()
            }
            None => {
                if let Some(rv) = self.builtin_call(name, args, e) {
                    return rv;
                }
                for a in args {
                    self.expr(a);
                }
                self.error_in(
                    callee.span,
                    callee.expansion,
                    format!("implicit declaration of function '{name}' is invalid in OpenCL"),
                );
                RV::error()
            }
            Some(Sym::Var(v)) => {
                let t = self.show(&self.var(v).ty.clone());
                for a in args {
                    self.expr(a);
                }
                if self.var(v).ty.ty.is_error() {
                    return RV::error();
                }
                self.error_in(
                    callee.span,
                    callee.expansion,
                    format!("called object type '{t}' is not a function or function pointer"),
                );
                RV::error()
            }
            Some(_) => {
                for a in args {
                    self.expr(a);
                }
                self.error_in(
                    callee.span,
                    callee.expansion,
                    format!("'{name}' is not a function"),
                );
                RV::error()
            }
        }
    }

    /// Evaluate the arguments of a call to function `i` and inline it.
    pub(crate) fn inline_call(&mut self, i: usize, args: &[Expr], e: &Expr) -> RV {
        let fty = self.funcs[i].ty.clone();
        let name = self.funcs[i].name.clone();
        let n = fty.params.len();
        if args.len() < n || (args.len() > n && !fty.variadic) {
            let which = if args.len() < n { "few" } else { "many" };
            let decl = self.funcs[i].span;
            self.report(
                crate::diag::Diagnostic::error(
                    e.span,
                    format!(
                        "too {which} arguments to function call, expected {n}, have {}",
                        args.len()
                    ),
                )
                .in_expansion(e.expansion)
                .with_note(format!("'{name}' declared here"), Some(decl)),
            );
            for a in args {
                self.expr(a);
            }
            return self.undef_rv(&fty.ret, e.span);
        }
        let mut values = Vec::with_capacity(n);
        for (k, a) in args.iter().enumerate() {
            let rv = self.expr(a);
            let Some(pty) = fty.params.get(k) else {
                continue;
            };
            let v = if pty.ty.is_aggregate() {
                if !rv.ty.is_error() && !super::types::same_type(&rv.ty, &pty.ty) {
                    let (t, f) = (self.show_ty(&pty.ty), self.show_ty(&rv.ty));
                    self.error_in(
                        a.span,
                        a.expansion,
                        format!("passing '{f}' to parameter of incompatible type '{t}'"),
                    );
                }
                rv
            } else {
                self.implicit_rv(rv, &pty.ty, a, Conv::Pass)
            };
            values.push(v);
        }
        if self.recursive.contains(&i) || self.inline_stack.contains(&i) || self.typing > 0 {
            return self.undef_rv(&fty.ret, e.span);
        }
        self.inline_body(i, &fty, values, e.span)
    }

    /// A placeholder value of type `ty` after an error.
    pub(crate) fn undef_rv(&mut self, ty: &Type, span: Span) -> RV {
        match ty.ir() {
            Some(t) => {
                let u = self.undef(t, span);
                RV::val(ty.clone(), u)
            }
            None if ty.is_void() => RV::void(),
            None if ty.is_record() => {
                let u = self.undef(Ty::Ptr(Space::Private), span);
                RV::val(ty.clone(), u)
            }
            None if ty.is_vector() => self.undef_vector(ty, span),
            None => RV::error(),
        }
    }

    /// Lower function `i`'s body here with its parameters bound to `args`.
    pub(crate) fn inline_body(
        &mut self,
        i: usize,
        fty: &Rc<FnType>,
        args: Vec<RV>,
        call: Span,
    ) -> RV {
        let def = self.funcs[i].def.expect("a definition");
        let builtin = self.funcs[i].builtin;
        let is_kernel = self.funcs[i].is_kernel;
        let name = self.funcs[i].name.clone();
        let saved_override = self.span_override;
        if builtin && self.span_override.is_none() {
            self.span_override = Some(call);
        }
        // A user function's diagnostics come from lowering it on its own.
        let mute = !builtin;
        if mute {
            self.mute += 1;
        }
        self.inline_stack.push(i);
        let addr_taken = self.addr_taken(i);
        self.push_frame(&name, fty.ret.clone(), is_kernel, addr_taken, def.span);
        for (k, p) in def_params(def).iter().enumerate() {
            let (Some(ty), Some(pname)) = (fty.params.get(k), &p.declarator.name) else {
                continue;
            };
            let ty = ty.clone();
            let value = args.get(k).cloned().unwrap_or_else(RV::error);
            self.bind_param(&pname.0, &ty, &value, pname.1);
        }
        self.function_body(def);
        let result = match self.frame().retval {
            Some(RetSlot::Var(v)) if fty.ret.is_vector() => {
                let lanes = self
                    .var_lanes(v)
                    .into_iter()
                    .map(|l| self.read_var(l, call))
                    .collect();
                RV::vector(fty.ret.clone(), lanes)
            }
            Some(RetSlot::Var(v)) => {
                let x = self.read_var(v, call);
                RV::val(fty.ret.clone(), x)
            }
            Some(RetSlot::Mem(m)) => {
                let p = self.emit(
                    OpKind::PrivateAddr(m),
                    vec![],
                    Ty::Ptr(Space::Private),
                    call,
                );
                RV::val(fty.ret.clone(), p)
            }
            None if fty.ret.is_void() => RV::void(),
            None => RV::error(),
        };
        self.pop_frame();
        self.inline_stack.pop();
        if mute {
            self.mute -= 1;
        }
        self.span_override = saved_override;
        result
    }
}
