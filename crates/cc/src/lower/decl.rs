//! Declarations: specifiers and declarators to types, struct/union/enum definitions,
//! typedefs, the program scope (functions, `__constant` variables) and local variables.

use super::types::{Elem, Field, FloatKind, FnType, IntKind, QualType, Quals, Record, Type};
use super::{FuncInfo, GlobalVar, Lowerer, Storage, Sym, Tag};
use crate::ast::{self, AddrSpaceQual, Derived, Expr, ExprKind, TypeSpec};
use crate::ir::Space;
use crate::source::Span;
use std::rc::Rc;

/// The largest `__constant` object the compiler builds (its bytes are held in memory).
const MAX_CONSTANT_BYTES: u64 = 256 << 20;

pub(crate) fn space_of(q: AddrSpaceQual) -> Space {
    match q {
        AddrSpaceQual::Global => Space::Global,
        AddrSpaceQual::Local => Space::Local,
        AddrSpaceQual::Constant => Space::Constant,
        AddrSpaceQual::Private => Space::Private,
    }
}

pub(crate) fn quals_of(q: &ast::Qualifiers) -> Quals {
    Quals {
        is_const: q.is_const,
        is_volatile: q.is_volatile,
        space: q.addr_space.map(space_of),
    }
}

/// How a type specifier is spelled, for messages about vector types.
pub(crate) fn spec_spelling(spec: &TypeSpec) -> String {
    match spec {
        TypeSpec::Void => "void".into(),
        TypeSpec::Bool => "bool".into(),
        TypeSpec::Char => "char".into(),
        TypeSpec::SChar => "signed char".into(),
        TypeSpec::UChar => "uchar".into(),
        TypeSpec::Short => "short".into(),
        TypeSpec::UShort => "ushort".into(),
        TypeSpec::Int => "int".into(),
        TypeSpec::UInt => "uint".into(),
        TypeSpec::Long => "long".into(),
        TypeSpec::ULong => "ulong".into(),
        TypeSpec::Half => "half".into(),
        TypeSpec::Float => "float".into(),
        TypeSpec::Double => "double".into(),
        TypeSpec::Vector(e, n) => format!("{}{n}", spec_spelling(e)),
        TypeSpec::Record(r) => {
            let kw = if r.is_union { "union" } else { "struct" };
            match &r.tag {
                Some((t, _)) => format!("{kw} {t}"),
                None => kw.into(),
            }
        }
        TypeSpec::Enum(e) => match &e.tag {
            Some((t, _)) => format!("enum {t}"),
            None => "enum".into(),
        },
        TypeSpec::TypedefName(n) | TypeSpec::Unsupported(n) => n.clone(),
    }
}

fn attr_is(a: &ast::Attribute, name: &str) -> bool {
    a.name == name || a.name.strip_prefix("__").and_then(|n| n.strip_suffix("__")) == Some(name)
}

impl<'a> Lowerer<'a> {
    /// The first name in `e` (through operators) that nothing declares, for the diagnostic
    /// of an array size that is not a constant because a macro was never defined.
    fn first_undeclared(&self, e: &Expr) -> Option<(Span, String)> {
        match &e.kind {
            ExprKind::Ident(name) => self.lookup(name).is_none().then(|| (e.span, name.clone())),
            ExprKind::Unary(_, a) => self.first_undeclared(a),
            ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => self
                .first_undeclared(a)
                .or_else(|| self.first_undeclared(b)),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => self
                .first_undeclared(cond)
                .or_else(|| self.first_undeclared(then))
                .or_else(|| self.first_undeclared(otherwise)),
            _ => None,
        }
    }

    /// The type named by declaration specifiers, with their qualifiers (defining any struct,
    /// union or enum they contain).
    pub(crate) fn base_type(&mut self, specs: &ast::DeclSpecs) -> QualType {
        let q = quals_of(&specs.qualifiers);
        let ty = match &specs.ty {
            TypeSpec::Void => Type::Void,
            TypeSpec::Bool => Type::Bool,
            TypeSpec::Char => Type::Int(IntKind::Char),
            TypeSpec::SChar => Type::Int(IntKind::SChar),
            TypeSpec::UChar => Type::Int(IntKind::UChar),
            TypeSpec::Short => Type::Int(IntKind::Short),
            TypeSpec::UShort => Type::Int(IntKind::UShort),
            TypeSpec::Int => Type::INT,
            TypeSpec::UInt => Type::UINT,
            TypeSpec::Long => Type::LONG,
            TypeSpec::ULong => Type::ULONG,
            TypeSpec::Half => Type::Float(FloatKind::Half),
            TypeSpec::Float => Type::FLOAT,
            TypeSpec::Double => Type::DOUBLE,
            TypeSpec::Vector(elem, n) => {
                let e = match &**elem {
                    TypeSpec::Char => Elem::Int(IntKind::Char),
                    TypeSpec::UChar => Elem::Int(IntKind::UChar),
                    TypeSpec::Short => Elem::Int(IntKind::Short),
                    TypeSpec::UShort => Elem::Int(IntKind::UShort),
                    TypeSpec::Int => Elem::Int(IntKind::Int),
                    TypeSpec::UInt => Elem::Int(IntKind::UInt),
                    TypeSpec::Long => Elem::Int(IntKind::Long),
                    TypeSpec::ULong => Elem::Int(IntKind::ULong),
                    TypeSpec::Half => Elem::Float(FloatKind::Half),
                    TypeSpec::Float => Elem::Float(FloatKind::Float),
                    TypeSpec::Double => Elem::Float(FloatKind::Double),
                    _ => {
                        self.unsupported(
                            specs.span,
                            format_args!("vector type '{}'", spec_spelling(&specs.ty)),
                        );
                        return QualType::new(Type::Error, q);
                    }
                };
                Type::Vector(e, *n)
            }
            TypeSpec::Record(r) => self.record_spec(r),
            TypeSpec::Enum(e) => {
                self.enum_spec(e);
                Type::INT
            }
            TypeSpec::TypedefName(name) => match self.lookup(name) {
                Some(Sym::Typedef(t)) => {
                    return QualType::new(
                        t.ty,
                        Quals {
                            is_const: t.q.is_const || q.is_const,
                            is_volatile: t.q.is_volatile || q.is_volatile,
                            space: q.space.or(t.q.space),
                        },
                    );
                }
                _ => {
                    self.error(specs.span, format!("unknown type name '{name}'"));
                    Type::Error
                }
            },
            TypeSpec::Unsupported(name) => {
                let kind = if name.starts_with("image") {
                    "image type"
                } else if name == "sampler_t" {
                    "sampler type"
                } else if name == "event_t" {
                    "event type"
                } else {
                    "type"
                };
                self.unsupported(specs.span, format_args!("{kind} '{name}'"));
                Type::Error
            }
        };
        QualType::new(ty, q)
    }

    fn record_spec(&mut self, r: &ast::RecordSpec) -> Type {
        let kw = if r.is_union { "union" } else { "struct" };
        let Some(fields) = &r.fields else {
            let (name, span) = match &r.tag {
                Some(t) => t.clone(),
                None => return Type::Error,
            };
            return match self.lookup_tag(&name) {
                Some(Tag::Record(id, is_union)) => {
                    if is_union != r.is_union {
                        self.error(span, format!("use of '{name}' with tag type that does not match previous declaration"));
                    }
                    Type::Record(id)
                }
                Some(Tag::Enum) => {
                    self.error(span, format!("use of '{name}' with tag type that does not match previous declaration"));
                    Type::Error
                }
                None => {
                    let id = self.records.add(Record {
                        tag: Some(name.clone()),
                        is_union: r.is_union,
                        fields: Vec::new(),
                        size: 0,
                        align: 1,
                        complete: false,
                        span,
                    });
                    let scope = self.scopes.last_mut().expect("scope");
                    scope.tags.insert(name, Tag::Record(id, r.is_union));
                    Type::Record(id)
                }
            };
        };
        // A definition: complete a forward declaration of this scope, or make a new record.
        let existing = r
            .tag
            .as_ref()
            .and_then(|(name, _)| self.scopes.last().and_then(|s| s.tags.get(name)).copied());
        let id = match existing {
            Some(Tag::Record(id, _)) if !self.records.get(id).complete => id,
            Some(tag) => {
                let (name, span) = r.tag.clone().expect("tagged");
                let prev = match tag {
                    Tag::Record(id, _) => Some(self.records.get(id).span),
                    Tag::Enum => None,
                };
                self.report(
                    crate::diag::Diagnostic::error(span, format!("redefinition of '{kw} {name}'"))
                        .with_note("previous definition is here", prev),
                );
                return Type::Error;
            }
            None => {
                let id = self.records.add(Record {
                    tag: r.tag.as_ref().map(|t| t.0.clone()),
                    is_union: r.is_union,
                    fields: Vec::new(),
                    size: 0,
                    align: 1,
                    complete: false,
                    span: r.span,
                });
                if let Some((name, _)) = &r.tag {
                    let scope = self.scopes.last_mut().expect("scope");
                    scope.tags.insert(name.clone(), Tag::Record(id, r.is_union));
                }
                id
            }
        };
        let mut members: Vec<Field> = Vec::new();
        let mut names: Vec<(String, Span)> = Vec::new();
        let count = fields.len();
        for (fi, fd) in fields.iter().enumerate() {
            let base = self.base_type(&fd.specs);
            if fd.declarators.is_empty() {
                if let (Type::Record(inner), TypeSpec::Record(spec)) = (&base.ty, &fd.specs.ty) {
                    if spec.tag.is_none() {
                        members.push(Field {
                            name: None,
                            ty: base.clone(),
                            offset: 0,
                        });
                        continue;
                    }
                    let _ = inner;
                }
                self.warning(fd.span, "declaration does not declare anything");
                continue;
            }
            for (di, (d, width)) in fd.declarators.iter().enumerate() {
                let ty = self.apply_declarator(base.clone(), d);
                let (name, span) = d.name.clone().unwrap_or((String::new(), d.span));
                if width.is_some() {
                    // Kept as a plain member so that uses of it say nothing more.
                    self.unsupported(span, format_args!("bit-field '{name}'"));
                }
                let last = fi + 1 == count && di + 1 == fd.declarators.len();
                let flexible = matches!(ty.ty, Type::Array(_, None)) && last && !r.is_union;
                if !flexible && !ty.ty.is_error() && self.records.size(&ty.ty).is_none() {
                    self.error(
                        span,
                        format!("field has incomplete type '{}'", self.show(&ty)),
                    );
                    continue;
                }
                if let Some((_, prev)) = names.iter().find(|(n, _)| *n == name) {
                    let prev = *prev;
                    self.report(
                        crate::diag::Diagnostic::error(span, format!("duplicate member '{name}'"))
                            .with_note("previous declaration is here", Some(prev)),
                    );
                    continue;
                }
                names.push((name.clone(), span));
                let ty = if flexible {
                    match ty.ty {
                        Type::Array(e, None) => QualType::new(Type::Array(e, Some(0)), ty.q),
                        t => QualType::new(t, ty.q),
                    }
                } else {
                    ty
                };
                members.push(Field {
                    name: Some(name),
                    ty,
                    offset: 0,
                });
            }
        }
        let mut packed = false;
        let mut min_align = 1;
        for a in &r.attributes {
            if attr_is(a, "packed") {
                packed = true;
            } else if attr_is(a, "aligned") {
                min_align = match a.args.first() {
                    Some(e) => match self.ice(e) {
                        Some(v) if v > 0 && (v as u64).is_power_of_two() => v as u64,
                        _ => {
                            self.error(e.span, "requested alignment is not a power of 2");
                            1
                        }
                    },
                    None => 16,
                };
            }
        }
        let (size, align) = self
            .records
            .layout(&mut members, r.is_union, packed, min_align);
        let rec = &mut self.records.list[id.0 as usize];
        rec.fields = members;
        rec.size = size;
        rec.align = align;
        rec.complete = true;
        Type::Record(id)
    }

    fn enum_spec(&mut self, e: &ast::EnumSpec) {
        if let Some((name, span)) = &e.tag {
            match self.lookup_tag(name) {
                Some(Tag::Enum) => {}
                Some(Tag::Record(..)) => {
                    self.error(*span, format!("use of '{name}' with tag type that does not match previous declaration"));
                }
                None => {
                    let scope = self.scopes.last_mut().expect("scope");
                    scope.tags.insert(name.clone(), Tag::Enum);
                }
            }
        }
        let Some(variants) = &e.variants else {
            return;
        };
        let mut next: i128 = 0;
        for v in variants {
            let value = match &v.value {
                Some(expr) => self.ice(expr).unwrap_or(next),
                None => next,
            };
            if !IntKind::Int.fits(value) && !IntKind::UInt.fits(value) {
                self.error(v.span, format!("enumerator value for '{}' is not representable in the largest integer type", v.name));
            }
            self.declare(&v.name, Sym::EnumConst(value as i64), v.span);
            next = value + 1;
        }
    }

    /// Apply a declarator's derivations (from the outside in) to `base`.
    pub(crate) fn apply_declarator(&mut self, base: QualType, d: &ast::Declarator) -> QualType {
        let mut ty = base;
        for der in d.derived.iter().rev() {
            ty = match der {
                Derived::Pointer(q) => {
                    let mut pointee = ty;
                    if matches!(pointee.ty, Type::Function(_)) {
                        self.unsupported(d.span, "function pointer");
                        return QualType::plain(Type::Error);
                    }
                    if pointee.q.space.is_none() {
                        pointee.q.space = None;
                    }
                    QualType::new(Type::pointer_to(pointee), quals_of(q))
                }
                Derived::Array(size) => {
                    if matches!(ty.ty, Type::Function(_)) {
                        self.error(d.span, "array of functions is not allowed");
                        return QualType::plain(Type::Error);
                    }
                    if !ty.ty.is_error() && self.records.size(&ty.ty).is_none() {
                        self.error(
                            d.span,
                            format!("array has incomplete element type '{}'", self.show(&ty)),
                        );
                        return QualType::plain(Type::Error);
                    }
                    let n = match size {
                        None => None,
                        Some(e) => match self.eval_int(e) {
                            Some(v) if v < 0 => {
                                let name = d.name.as_ref().map_or("", |n| n.0.as_str());
                                self.error(
                                    e.span,
                                    format!("'{name}' declared as an array with a negative size"),
                                );
                                return QualType::plain(Type::Error);
                            }
                            Some(v) => Some(v as u64),
                            None => {
                                if self.is_constant_expr(e) {
                                    self.error(e.span, "size of array has non-integer type");
                                } else if let Some((span, name)) = self.first_undeclared(e) {
                                    // A size the build options were to define (`-DN=...`).
                                    self.error(
                                        span,
                                        format!("use of undeclared identifier '{name}'"),
                                    );
                                } else {
                                    self.unsupported(e.span, "variable-length array");
                                }
                                return QualType::plain(Type::Error);
                            }
                        },
                    };
                    let q = ty.q;
                    QualType::new(Type::Array(Box::new(ty), n), q)
                }
                Derived::Function { params, variadic } => {
                    if matches!(ty.ty, Type::Array(..) | Type::Function(_)) {
                        self.error(d.span, "function cannot return array or function type");
                    }
                    let params = params.iter().map(|p| self.param_type(p)).collect();
                    QualType::plain(Type::Function(Rc::new(FnType {
                        ret: ty.ty,
                        params,
                        variadic: *variadic,
                    })))
                }
            };
        }
        ty
    }

    /// A parameter's type, adjusted as C adjusts it (arrays to pointers).
    pub(crate) fn param_type(&mut self, p: &ast::ParamDecl) -> QualType {
        let base = self.base_type(&p.specs);
        let ty = self.apply_declarator(base, &p.declarator);
        match ty.ty {
            Type::Array(elem, _) => QualType::plain(Type::pointer_to(*elem)),
            Type::Function(_) => {
                self.unsupported(p.span, "function pointer");
                QualType::plain(Type::Error)
            }
            t => QualType::new(t, ty.q),
        }
    }

    pub(crate) fn type_name(&mut self, tn: &ast::TypeName) -> QualType {
        let base = self.base_type(&tn.specs);
        self.apply_declarator(base, &tn.declarator)
    }

    // ---- program scope ----

    /// Lower the whole unit: declare everything, then lower each function in order.
    pub(crate) fn program(&mut self, tu: &'a ast::TranslationUnit) {
        for (name, ty) in [
            ("size_t", Type::ULONG),
            ("ptrdiff_t", Type::LONG),
            ("intptr_t", Type::LONG),
            ("uintptr_t", Type::ULONG),
        ] {
            self.scopes[0].names.insert(
                name.into(),
                (Sym::Typedef(QualType::plain(ty)), Span::DUMMY),
            );
        }
        // Every function is declared before any body is lowered, so that the call graph is
        // known; bodies are lowered in source order.
        let mut order = Vec::new();
        for item in &tu.items {
            match item {
                ast::ExternalDecl::Function(def) => {
                    if let Some(i) = self.function_def(def) {
                        order.push((i, def.as_ref()));
                    }
                }
                ast::ExternalDecl::Declaration(d) => self.program_decl(d),
            }
        }
        self.check_recursion();
        let kernel_names: Vec<String> = self
            .funcs
            .iter()
            .filter(|f| f.is_kernel && f.def.is_some())
            .map(|f| f.name.clone())
            .collect();
        if let Some(wanted) = &self.opts.kernels {
            for w in wanted {
                if !kernel_names.contains(w) {
                    let list = if kernel_names.is_empty() {
                        "the program has none".to_string()
                    } else {
                        format!("kernels: {}", kernel_names.join(", "))
                    };
                    self.report(crate::diag::Diagnostic {
                        severity: crate::diag::Severity::Error,
                        message: format!("no kernel named '{w}' ({list})"),
                        span: None,
                        expansion: None,
                        notes: Vec::new(),
                    });
                }
            }
        }
        for (i, _) in order {
            let info = &self.funcs[i];
            let selected = info.is_kernel
                && self
                    .opts
                    .kernels
                    .as_ref()
                    .is_none_or(|k| k.contains(&info.name));
            if selected {
                let kernel = self.lower_function(i, false);
                self.module.kernels.push(kernel);
            } else if !info.builtin {
                self.lower_function(i, true);
            }
        }
    }

    /// Declare a function definition; returns its index unless it is a redefinition.
    fn function_def(&mut self, def: &'a ast::FunctionDef) -> Option<usize> {
        let d = &def.declarator;
        let Some((name, span)) = d.name.clone() else {
            self.error(def.span, "expected a function name");
            return None;
        };
        if !matches!(d.derived.first(), Some(Derived::Function { .. })) {
            self.error(span, "expected a function definition");
            return None;
        }
        let base = self.base_type(&def.specs);
        let ty = self.apply_declarator(base, d);
        let Type::Function(fty) = ty.ty else {
            return None;
        };
        let builtin = !span.is_dummy()
            && (span.file.0 as usize) < self.sources.files().len()
            && self.sources.file(span.file).builtin;
        let is_kernel = def.specs.is_kernel;
        if is_kernel && !fty.ret.is_void() && !fty.ret.is_error() {
            self.error(def.specs.span, "kernel must have void return type");
        }
        let idx = self.register_function(&name, fty, span, is_kernel, builtin);
        if let Some(idx) = idx {
            if let Some(prev) = self.funcs[idx].def {
                let prev_span = prev.declarator.name.as_ref().map_or(prev.span, |n| n.1);
                self.report(
                    crate::diag::Diagnostic::error(span, format!("redefinition of '{name}'"))
                        .with_note("previous definition is here", Some(prev_span)),
                );
                return None;
            }
            self.funcs[idx].def = Some(def);
            self.funcs[idx].is_kernel |= is_kernel;
            self.funcs[idx].span = span;
        }
        idx
    }

    /// Declare function `name` in the current scope (sharing the entry of an earlier
    /// declaration of the unit).
    pub(crate) fn register_function(
        &mut self,
        name: &str,
        ty: Rc<FnType>,
        span: Span,
        is_kernel: bool,
        builtin: bool,
    ) -> Option<usize> {
        let existing = self.funcs.iter().position(|f| f.name == name);
        let idx = match existing {
            Some(i) => {
                if !super::types::same_type(
                    &Type::Function(self.funcs[i].ty.clone()),
                    &Type::Function(ty.clone()),
                ) {
                    let prev = self.funcs[i].span;
                    self.report(
                        crate::diag::Diagnostic::error(
                            span,
                            format!("conflicting types for '{name}'"),
                        )
                        .with_note("previous declaration is here", Some(prev)),
                    );
                    return None;
                }
                i
            }
            None => {
                self.funcs.push(FuncInfo {
                    name: name.to_string(),
                    ty,
                    def: None,
                    is_kernel,
                    span,
                    builtin,
                    addr_taken: None,
                });
                self.funcs.len() - 1
            }
        };
        self.declare(name, Sym::Func(idx), span);
        Some(idx)
    }

    /// A declaration at program scope.
    fn program_decl(&mut self, d: &ast::Declaration) {
        let base = self.base_type(&d.specs);
        for id in &d.declarators {
            let ty = self.apply_declarator(base.clone(), &id.declarator);
            let Some((name, span)) = id.declarator.name.clone() else {
                continue;
            };
            if d.specs.storage == Some(ast::Storage::Typedef) {
                self.declare(&name, Sym::Typedef(ty), span);
                continue;
            }
            if let Type::Function(fty) = &ty.ty {
                let builtin = self.is_builtin_file(span);
                self.register_function(&name, fty.clone(), span, d.specs.is_kernel, builtin);
                continue;
            }
            if ty.ty.is_error() {
                continue;
            }
            if ty.q.space != Some(Space::Constant) {
                self.error(
                    span,
                    "program scope variable must reside in constant address space",
                );
                continue;
            }
            self.constant_var(&name, ty, id.init.as_ref(), span);
        }
    }

    pub(crate) fn is_builtin_file(&self, span: Span) -> bool {
        !span.is_dummy()
            && (span.file.0 as usize) < self.sources.files().len()
            && self.sources.file(span.file).builtin
    }

    /// A `__constant` variable: its bytes from the initializer; declared as a global.
    pub(crate) fn constant_var(
        &mut self,
        name: &str,
        mut ty: QualType,
        init: Option<&ast::Initializer>,
        span: Span,
    ) {
        let Some(init) = init else {
            self.error(
                span,
                "variable in constant address space must be initialized",
            );
            return;
        };
        if let Type::Array(elem, None) = &ty.ty {
            let n = self.init_array_len(&elem.ty, init);
            ty.ty = Type::Array(elem.clone(), Some(n));
        }
        let Some(size) = self.records.size(&ty.ty) else {
            self.error(
                span,
                format!("variable has incomplete type '{}'", self.show(&ty)),
            );
            return;
        };
        if size > MAX_CONSTANT_BYTES {
            self.error(
                span,
                format!("'__constant' variable '{name}' is too large ({size} bytes; at most {MAX_CONSTANT_BYTES})"),
            );
            return;
        }
        let mut bytes = vec![0u8; size as usize];
        self.const_init(&ty.ty, init, &mut bytes, 0);
        let align = self.records.align(&ty.ty) as u32;
        ty.q.is_const = true;
        self.globals.push(GlobalVar {
            name: name.to_string(),
            ty,
            bytes,
            align,
            index: None,
        });
        let g = self.globals.len() - 1;
        self.declare(name, Sym::Global(g), span);
    }

    // ---- local declarations ----

    /// A declaration inside a function body.
    pub(crate) fn local_decl(&mut self, d: &ast::Declaration) {
        let predeclared = d
            .declarators
            .first()
            .is_some_and(|id| self.predeclared.contains_key(&(id as *const _)));
        if predeclared {
            for id in &d.declarators {
                let v = self.predeclared.get(&(id as *const _)).copied().flatten();
                if let (Some(v), Some(init)) = (v, &id.init) {
                    self.init_var(v, init, d.span);
                }
            }
            return;
        }
        let base = self.base_type(&d.specs);
        for id in &d.declarators {
            self.local_declarator(d, &base, id);
        }
    }

    /// Declare one local declarator without running its initializer (the part of a
    /// declaration in a `switch` body that is visible in every later case). Returns the
    /// variable if it is one.
    pub(crate) fn local_declarator(
        &mut self,
        d: &ast::Declaration,
        base: &QualType,
        id: &ast::InitDeclarator,
    ) -> Option<super::VarId> {
        let mut ty = self.apply_declarator(base.clone(), &id.declarator);
        let (name, span) = id.declarator.name.clone()?;
        match d.specs.storage {
            Some(ast::Storage::Typedef) => {
                self.declare(&name, Sym::Typedef(ty), span);
                return None;
            }
            Some(ast::Storage::Static) if !matches!(ty.ty, Type::Function(_)) => {
                self.error(
                    d.specs.span,
                    "variables in function scope cannot be declared static",
                );
                return None;
            }
            Some(ast::Storage::Extern) if !matches!(ty.ty, Type::Function(_)) => {
                self.error(d.specs.span, "extern variables are not allowed in OpenCL");
                return None;
            }
            _ => {}
        }
        if let Type::Function(fty) = &ty.ty {
            let builtin = self.is_builtin_file(span);
            self.register_function(&name, fty.clone(), span, d.specs.is_kernel, builtin);
            return None;
        }
        if ty.ty.is_void() {
            self.error(span, "variable has incomplete type 'void'");
            return None;
        }
        let init = id.init.as_ref();
        if let (Type::Array(elem, None), Some(init)) = (&ty.ty, init) {
            let n = self.init_array_len(&elem.ty, init);
            ty.ty = Type::Array(elem.clone(), Some(n));
        }
        let error_var = |s: &mut Self| {
            let v = s.new_var(&name, QualType::plain(Type::Error), Storage::Ssa, false);
            s.declare(&name, Sym::Var(v), span);
            None
        };
        if ty.ty.is_error() {
            return error_var(self);
        }
        let Some(size) = self.records.size(&ty.ty) else {
            self.error(
                span,
                format!("variable has incomplete type '{}'", self.show(&ty)),
            );
            return error_var(self);
        };
        let mut align = self.records.align(&ty.ty);
        for a in d.specs.attributes.iter().chain(&id.declarator.attributes) {
            if attr_is(a, "aligned") {
                match a.args.first().map(|e| (e.span, self.ice(e))) {
                    Some((_, Some(v))) if v > 0 && (v as u64).is_power_of_two() => {
                        align = align.max(v as u64);
                    }
                    Some((s, _)) => self.error(s, "requested alignment is not a power of 2"),
                    None => align = align.max(16),
                }
            }
        }
        if size > u64::from(u32::MAX) {
            self.error(
                span,
                format!("variable '{name}' is too large ({size} bytes)"),
            );
            return error_var(self);
        }
        match ty.q.space() {
            Space::Global => {
                self.error(
                    span,
                    "function scope variable cannot be declared in global address space",
                );
                error_var(self)
            }
            Space::Constant => {
                self.constant_var(&name, ty, init, span);
                None
            }
            Space::Local => {
                if !self.frame().is_kernel {
                    self.error(
                        span,
                        "non-kernel function variable cannot be declared in local address space",
                    );
                }
                if let Some(init) = init {
                    let s = match init {
                        ast::Initializer::Expr(e) => e.span,
                        ast::Initializer::List { span, .. } => *span,
                    };
                    self.error(s, "'__local' variable cannot have an initializer");
                }
                self.f.locals.push(crate::ir::MemObject {
                    name: name.clone(),
                    size: size.min(u64::from(u32::MAX)) as u32,
                    align: align as u32,
                    span,
                });
                let i = self.f.locals.len() as u32 - 1;
                let v = self.new_var(&name, ty, Storage::Local(i), false);
                self.declare(&name, Sym::Var(v), span);
                Some(v)
            }
            Space::Private => {
                let in_memory = ty.ty.is_aggregate() || self.frame().addr_taken.contains(&name);
                let v = if in_memory {
                    let storage = Storage::Private(self.new_private(&name, size, align, span));
                    self.new_var(&name, ty, storage, false)
                } else {
                    self.new_ssa_var(&name, ty)
                };
                self.declare(&name, Sym::Var(v), span);
                if let Some(init) = init {
                    if !self.predeclaring {
                        self.init_var(v, init, d.span);
                    }
                }
                Some(v)
            }
        }
    }

    /// Run the initializer of local variable `v`.
    pub(crate) fn init_var(&mut self, v: super::VarId, init: &ast::Initializer, span: Span) {
        let ty = self.var(v).ty.clone();
        match self.var(v).storage {
            Storage::Lanes => {
                let lanes = self.vector_literal(&ty.ty, init, span);
                for (l, x) in self.var_lanes(v).into_iter().zip(lanes) {
                    self.write_var(l, x);
                }
            }
            Storage::Ssa => {
                let e = match init {
                    ast::Initializer::Expr(e) => e,
                    ast::Initializer::List { items, span } => match items.first() {
                        Some((d, ast::Initializer::Expr(e))) if d.is_empty() => {
                            if items.len() > 1 {
                                self.warning(
                                    items[1].1.span(),
                                    "excess elements in scalar initializer",
                                );
                            }
                            e
                        }
                        _ => {
                            self.error(*span, "scalar initializer must be a single expression");
                            return;
                        }
                    },
                };
                if ty.ty.is_error() {
                    self.expr(e);
                    return;
                }
                let rv = self.expr(e);
                let mut val = self.assign_convert(rv, &ty.ty, e, "initializing");
                // A `const` scalar with a constant value is that constant (usable in
                // constant expressions, as GNU C folds it).
                if ty.q.is_const && ty.ty.is_arith() {
                    if let Some((c, cty)) = self.eval(e) {
                        if let Some(c) = self.cv_convert(c, &cty, &ty.ty) {
                            let ir = ty.ty.ir().expect("scalar");
                            val = self.konst(ir, c.0, e.span);
                        }
                    }
                }
                self.write_var(v, val);
            }
            Storage::Private(_) => {
                let Some(base) = self.var_addr(v, span) else {
                    return;
                };
                self.runtime_init(&ty.ty, init, base, span);
            }
            Storage::Local(_) => {}
        }
    }
}

impl ast::Initializer {
    pub(crate) fn span(&self) -> Span {
        match self {
            ast::Initializer::Expr(e) => e.span,
            ast::Initializer::List { span, .. } => *span,
        }
    }
}
