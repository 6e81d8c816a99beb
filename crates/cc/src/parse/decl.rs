//! Declarations: specifiers, declarators, struct/union/enum, attributes, initializers,
//! type names and function definitions.

use super::keyword::{self, TypeWord};
use super::{Binding, Fail, PResult, Parser};
use crate::ast::{
    Attribute, DeclSpecs, Declaration, Declarator, Derived, Designator, EnumSpec, Enumerator, Expr,
    ExprKind, ExternalDecl, FieldDecl, FunctionDef, InitDeclarator, Initializer, ParamDecl,
    Qualifiers, RecordSpec, Stmt, StmtKind, Storage, TypeName, TypeSpec,
};
use crate::token::{Punct, TokenKind};

/// Where a declaration is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    /// File scope: declarations and function definitions.
    File,
    /// A block.
    Block,
    /// The first clause of a `for`.
    ForInit,
    /// A function parameter.
    Param,
    /// A struct or union member.
    Field,
    /// A type name (casts, `sizeof`, compound literals, attribute arguments).
    TypeName,
}

/// What a declarator may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// It has a name.
    Named,
    /// It has none (a type name).
    Abstract,
    /// Either (a parameter).
    Either,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Void,
    Bool,
    Char,
    Int,
    Float,
    Double,
    Half,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
    Short,
    Long,
    LongLong,
}

/// The type specifiers seen so far, each with the token that spelled it (for messages).
#[derive(Default)]
struct TypeWords {
    base: Option<(Base, usize)>,
    sign: Option<(bool, usize)>,
    width: Option<(Width, usize)>,
    complex: Option<usize>,
    named: Option<(TypeSpec, usize)>,
}

impl TypeWords {
    fn any(&self) -> bool {
        self.base.is_some()
            || self.sign.is_some()
            || self.width.is_some()
            || self.complex.is_some()
            || self.named.is_some()
    }

    /// The token of some specifier already seen, for `cannot combine` messages.
    fn first(&self) -> Option<usize> {
        [
            self.named.as_ref().map(|n| n.1),
            self.base.map(|b| b.1),
            self.width.map(|w| w.1),
            self.sign.map(|s| s.1),
            self.complex,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Adds a keyword at token `at`: `Err(previous)` names the token it cannot combine with.
    fn add(&mut self, word: TypeWord, at: usize) -> Result<(), usize> {
        if let Some((_, n)) = self.named {
            return Err(n);
        }
        let base = self.base.map(|b| b.0);
        match word {
            TypeWord::Signed | TypeWord::Unsigned => {
                let unsigned = word == TypeWord::Unsigned;
                if let Some((u, s)) = self.sign {
                    if u != unsigned {
                        return Err(s);
                    }
                }
                if let Some((b, i)) = self.base {
                    if !matches!(b, Base::Char | Base::Int) {
                        return Err(i);
                    }
                }
                self.sign = Some((unsigned, at));
            }
            TypeWord::Short | TypeWord::Long => {
                let width = match (word, self.width) {
                    (TypeWord::Long, None) => Width::Long,
                    (TypeWord::Long, Some((Width::Long, _))) => Width::LongLong,
                    (_, Some((_, w))) => return Err(w),
                    (_, None) => Width::Short,
                };
                let ok = match width {
                    Width::Long => matches!(base, None | Some(Base::Int | Base::Double)),
                    _ => matches!(base, None | Some(Base::Int)),
                };
                if !ok {
                    return Err(self.base.map_or(at, |b| b.1));
                }
                self.width = Some((width, at));
            }
            TypeWord::Complex | TypeWord::Imaginary => self.complex = Some(at),
            _ => {
                let b = match word {
                    TypeWord::Void => Base::Void,
                    TypeWord::Bool => Base::Bool,
                    TypeWord::Char => Base::Char,
                    TypeWord::Int => Base::Int,
                    TypeWord::Float => Base::Float,
                    TypeWord::Double => Base::Double,
                    _ => Base::Half,
                };
                if let Some((_, i)) = self.base {
                    return Err(i);
                }
                if let Some((w, i)) = self.width {
                    let ok = match w {
                        Width::Long => matches!(b, Base::Int | Base::Double),
                        _ => b == Base::Int,
                    };
                    if !ok {
                        return Err(i);
                    }
                }
                if let Some((_, i)) = self.sign {
                    if !matches!(b, Base::Char | Base::Int) {
                        return Err(i);
                    }
                }
                self.base = Some((b, at));
            }
        }
        Ok(())
    }

    /// The resolved type, `None` when no type specifier was given.
    fn resolve(self, toks: &[crate::token::Token]) -> Option<TypeSpec> {
        if let Some((t, _)) = self.named {
            return Some(t);
        }
        if let Some(i) = self.complex {
            return Some(TypeSpec::Unsupported(toks[i].text.clone()));
        }
        let unsigned = self.sign.is_some_and(|s| s.0);
        let signed = self.sign.is_some_and(|s| !s.0);
        let width = self.width.map(|w| w.0);
        Some(match self.base.map(|b| b.0) {
            Some(Base::Void) => TypeSpec::Void,
            Some(Base::Bool) => TypeSpec::Bool,
            Some(Base::Half) => TypeSpec::Half,
            Some(Base::Float) => TypeSpec::Float,
            Some(Base::Double) if width.is_some() => TypeSpec::Unsupported("long double".into()),
            Some(Base::Double) => TypeSpec::Double,
            Some(Base::Char) if unsigned => TypeSpec::UChar,
            Some(Base::Char) if signed => TypeSpec::SChar,
            Some(Base::Char) => TypeSpec::Char,
            None if !self.any() => return None,
            None | Some(Base::Int) => match (width, unsigned) {
                (Some(Width::Short), false) => TypeSpec::Short,
                (Some(Width::Short), true) => TypeSpec::UShort,
                (Some(Width::Long), false) => TypeSpec::Long,
                (Some(Width::Long), true) => TypeSpec::ULong,
                (Some(Width::LongLong), false) => TypeSpec::Unsupported("long long".into()),
                (Some(Width::LongLong), true) => TypeSpec::Unsupported("unsigned long long".into()),
                (None, false) => TypeSpec::Int,
                (None, true) => TypeSpec::UInt,
            },
        })
    }
}

fn is_vector_spec(ty: &TypeSpec, p: &Parser) -> bool {
    match ty {
        TypeSpec::Vector(..) => true,
        TypeSpec::TypedefName(n) => p.lookup(n) == Some(Binding::Typedef { vector: true }),
        _ => false,
    }
}

fn is_image(ty: &TypeSpec) -> bool {
    match ty {
        TypeSpec::Unsupported(s) => s.starts_with("image"),
        TypeSpec::TypedefName(_) => true,
        _ => false,
    }
}

impl Parser<'_, '_> {
    /// A declaration or function definition at file scope.
    pub(super) fn external_decl(&mut self) -> Option<ExternalDecl> {
        self.decl_or_function(Ctx::File)
    }

    // ---- lookahead ------------------------------------------------------------------------

    /// The index after the `__attribute__((...))` groups starting at token `i` (or of the
    /// `;`, `{` or `}` that shows a group's parentheses unbalanced).
    pub(super) fn after_attributes(&self, mut i: usize) -> usize {
        let n = self.toks.len() - 1;
        while i < n
            && self.toks[i].kind == TokenKind::Ident
            && keyword::is_attribute(&self.toks[i].text)
        {
            i += 1;
            if !self.toks[i].is(Punct::LParen) {
                return i;
            }
            let mut depth = 0usize;
            while i < n {
                let t = &self.toks[i];
                // No attribute holds these: the parentheses are unbalanced.
                if t.is(Punct::Semi) || t.is(Punct::LBrace) || t.is(Punct::RBrace) {
                    return i;
                }
                i += 1;
                if t.is(Punct::LParen) {
                    depth += 1;
                } else if t.is(Punct::RParen) {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
        }
        i
    }

    /// Whether token `i` begins a declaration in a block (or a `for` clause).
    pub(super) fn starts_decl_at(&self, i: usize) -> bool {
        let t = &self.toks[i.min(self.toks.len() - 1)];
        if t.kind != TokenKind::Ident {
            return false;
        }
        let name = t.text.as_str();
        if keyword::is_attribute(name) {
            let j = self.after_attributes(i);
            return j > i && self.starts_decl_at(j);
        }
        if name == "__extension__" {
            return self.starts_decl_at(i + 1);
        }
        if keyword::begins_declaration(name) {
            return true;
        }
        let next = &self.toks[(i + 1).min(self.toks.len() - 1)];
        if self.is_typedef(name) {
            return !next.is(Punct::Colon);
        }
        // `flaot x;`: an unknown name followed by a name is a declaration with a misspelled
        // type, reported as such.
        !keyword::is_reserved(name)
            && self.lookup(name).is_none()
            && next.kind == TokenKind::Ident
            && (!keyword::is_reserved(&next.text) || keyword::is_qualifier(&next.text))
    }

    pub(super) fn starts_decl(&self) -> bool {
        self.starts_decl_at(self.pos)
    }

    /// Whether the current token is a keyword that begins a declaration.
    fn at_declaration_keyword(&self) -> bool {
        self.ident()
            .is_some_and(|s| keyword::begins_declaration(s) && s != "__extension__")
    }

    /// Whether token `i` begins a type name.
    pub(super) fn starts_type_name_at(&self, i: usize) -> bool {
        let t = &self.toks[i.min(self.toks.len() - 1)];
        t.kind == TokenKind::Ident
            && (keyword::begins_type_name(&t.text) || self.is_typedef(&t.text))
    }

    // ---- declarations -----------------------------------------------------------------------

    /// A declaration, or at file scope also a function definition. Recovers from errors:
    /// `None` when nothing usable was parsed.
    pub(super) fn decl_or_function(&mut self, ctx: Ctx) -> Option<ExternalDecl> {
        let start = self.pos;
        let specs = match self.decl_specs(ctx) {
            Ok(s) => s,
            Err(Fail) => {
                self.recover_decl(ctx);
                return None;
            }
        };
        let mut declarators = Vec::new();
        let finish = |p: &mut Self, declarators| Declaration {
            specs: specs.clone(),
            declarators,
            span: p.span_from(start),
        };
        if std::mem::take(&mut self.implicit_semi) {
            return Some(ExternalDecl::Declaration(finish(self, declarators)));
        }
        if !self.at(Punct::Semi) {
            loop {
                let knr_before = self.knr_lists;
                let declarator = match self.declarator(Mode::Named) {
                    Ok(d) => d,
                    Err(Fail) => {
                        self.recover_decl(ctx);
                        return Some(ExternalDecl::Declaration(finish(self, declarators)));
                    }
                };
                let is_function =
                    matches!(declarator.derived.first(), Some(Derived::Function { .. }));
                if declarators.is_empty()
                    && is_function
                    && (self.at(Punct::LBrace)
                        || (self.knr_lists > knr_before && self.starts_decl()))
                {
                    return self.function_def(start, specs, declarator, ctx);
                }
                self.declare_declarator(&specs, &declarator);
                let init = if self.eat(Punct::Assign) {
                    match self.initializer() {
                        Ok(i) => Some(i),
                        Err(Fail) => {
                            declarators.push(InitDeclarator {
                                declarator,
                                init: None,
                            });
                            self.recover_decl(ctx);
                            return Some(ExternalDecl::Declaration(finish(self, declarators)));
                        }
                    }
                } else {
                    None
                };
                declarators.push(InitDeclarator { declarator, init });
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        let message = match ctx {
            Ctx::File => "expected ';' after top level declarator",
            _ => "expected ';' at end of declaration",
        };
        if self.expect_semi(message).is_err() && !self.at_declaration_keyword() {
            // A declaration keyword after the missing `;` begins the next declaration.
            self.recover_decl(ctx);
        }
        Some(ExternalDecl::Declaration(finish(self, declarators)))
    }

    fn recover_decl(&mut self, ctx: Ctx) {
        match ctx {
            Ctx::File => self.skip_external(),
            Ctx::ForInit => {
                self.skip(&[Punct::Semi, Punct::RParen]);
                self.eat(Punct::Semi);
            }
            _ => self.skip_statement(),
        }
    }

    /// A declaration in a block or `for` clause (a function definition there is an error).
    pub(super) fn local_declaration(&mut self, ctx: Ctx) -> Option<Declaration> {
        match self.decl_or_function(ctx)? {
            ExternalDecl::Declaration(d) => Some(d),
            ExternalDecl::Function(_) => None,
        }
    }

    fn declare_declarator(&mut self, specs: &DeclSpecs, d: &Declarator) {
        let Some((name, _)) = &d.name else { return };
        let binding = if specs.storage == Some(Storage::Typedef) {
            Binding::Typedef {
                vector: d.derived.is_empty() && is_vector_spec(&specs.ty, self),
            }
        } else {
            Binding::Ordinary
        };
        self.declare(name, binding);
    }

    fn function_def(
        &mut self,
        start: usize,
        specs: DeclSpecs,
        declarator: Declarator,
        ctx: Ctx,
    ) -> Option<ExternalDecl> {
        // The declarations of a K&R parameter list (already reported as unsupported).
        while !self.at(Punct::LBrace) && self.starts_decl() {
            let before = self.pos;
            self.local_declaration(Ctx::Block);
            if self.pos == before {
                break;
            }
        }
        if !self.at(Punct::LBrace) {
            self.error("expected function body after function declarator");
            self.recover_decl(ctx);
            return None;
        }
        if ctx != Ctx::File {
            self.error("function definition is not allowed here");
        }
        self.declare_declarator(&specs, &declarator);
        self.push_scope();
        if let Some(Derived::Function { params, .. }) = declarator.derived.first() {
            for p in params {
                if let Some((name, _)) = &p.declarator.name {
                    self.declare(name, Binding::Ordinary);
                }
            }
        }
        let body = self.compound_statement();
        self.pop_scope();
        Some(ExternalDecl::Function(Box::new(FunctionDef {
            specs,
            declarator,
            body,
            span: self.span_from(start),
        })))
    }

    // ---- specifiers -------------------------------------------------------------------------

    /// Declaration specifiers. Type specifiers are combined as C does; an unknown name where
    /// a type is expected is reported and read as `int`.
    pub(super) fn decl_specs(&mut self, ctx: Ctx) -> PResult<DeclSpecs> {
        let start = self.pos;
        let mut words = TypeWords::default();
        let mut storage: Option<(Storage, usize)> = None;
        let mut is_kernel = false;
        let mut is_inline = false;
        let mut qualifiers = Qualifiers::default();
        let mut attributes = Vec::new();
        let mut access: Option<usize> = None;
        let mut reported = false;
        while let Some(name) = self.ident() {
            let at = self.pos;
            if keyword::is_attribute(name) {
                self.attributes(&mut attributes)?;
                continue;
            }
            if self.qualifier(&mut qualifiers, &mut access) {
                continue;
            }
            if let Some(s) = keyword::storage(name) {
                if let Some((_, prev)) = storage {
                    let message = format!(
                        "cannot combine with previous '{}' declaration specifier",
                        self.toks[prev].text
                    );
                    self.error(message);
                } else if ctx == Ctx::TypeName || ctx == Ctx::Field {
                    self.error("type name does not allow storage class to be specified");
                } else if ctx == Ctx::Param && s != Storage::Register {
                    self.error("invalid storage class specifier in function declarator");
                } else {
                    storage = Some((s, at));
                }
                self.bump();
                continue;
            }
            if keyword::is_kernel(name) || keyword::is_inline(name) {
                if matches!(ctx, Ctx::TypeName | Ctx::Field | Ctx::Param) {
                    self.error("type name does not allow function specifier to be specified");
                } else if keyword::is_kernel(name) {
                    is_kernel = true;
                } else {
                    is_inline = true;
                }
                self.bump();
                continue;
            }
            if name == "__extension__" {
                self.bump();
                continue;
            }
            if let Some(word) = keyword::type_word(name) {
                if let Err(prev) = words.add(word, at) {
                    let message = if word == TypeWord::Long
                        && words.width.is_some_and(|w| w.0 == Width::LongLong)
                    {
                        "'long long long' is invalid".to_string()
                    } else {
                        format!(
                            "cannot combine with previous '{}' declaration specifier",
                            self.toks[prev].text
                        )
                    };
                    self.error(message);
                }
                self.bump();
                continue;
            }
            let named = if let Some(t) = keyword::builtin_type(name) {
                self.bump();
                t
            } else if name == "struct" || name == "union" {
                let r = self.record_spec()?;
                let defined = r.fields.is_some();
                let t = TypeSpec::Record(r);
                if defined && ctx != Ctx::Param && ctx != Ctx::TypeName {
                    self.check_semi_after_definition(at);
                }
                t
            } else if name == "enum" {
                let e = self.enum_spec()?;
                let defined = e.variants.is_some();
                if defined && ctx != Ctx::Param && ctx != Ctx::TypeName {
                    self.check_semi_after_definition(at);
                }
                TypeSpec::Enum(e)
            } else if keyword::is_typeof(name) {
                self.bump();
                if self.at(Punct::LParen) {
                    self.bump();
                    self.skip(&[Punct::RParen]);
                    self.eat(Punct::RParen);
                }
                self.unsupported_at(at, "typeof");
                reported = true;
                TypeSpec::Int
            } else if !words.any() && self.is_typedef(name) {
                self.bump();
                TypeSpec::TypedefName(name.to_string())
            } else if !words.any() && !keyword::is_reserved(name) && self.unknown_type_here(ctx) {
                self.error(format!("unknown type name '{name}'"));
                reported = true;
                self.bump();
                TypeSpec::Int
            } else {
                break;
            };
            if let Err(prev) = words.add_named(named, at) {
                let message = format!(
                    "cannot combine with previous '{}' declaration specifier",
                    self.toks[prev].text
                );
                self.error_at(at, message);
            }
            if self.implicit_semi {
                break;
            }
        }
        let any = self.pos > start;
        let ty = match words.resolve(self.toks) {
            Some(t) => t,
            None => {
                if !any && ctx == Ctx::File && !self.at_name() {
                    return Err(self.error("expected identifier or '('"));
                }
                if !any && ctx == Ctx::Field {
                    return Err(self.error("type name requires a specifier or qualifier"));
                }
                if !any && ctx == Ctx::Param {
                    return Err(self.error("expected parameter declarator"));
                }
                if !reported {
                    self.error_at(start, "type specifier missing, defaults to 'int'");
                }
                TypeSpec::Int
            }
        };
        if let Some(a) = access {
            if !is_image(&ty) {
                self.error_at(
                    a,
                    "access qualifier can only be used for pipe and image type",
                );
            }
        }
        Ok(DeclSpecs {
            storage: storage.map(|s| s.0),
            is_kernel,
            is_inline,
            qualifiers,
            ty,
            attributes,
            span: self.span_from(start),
        })
    }

    /// Whether an unknown name at the current token, where a type could begin, is a
    /// misspelled type (rather than the declarator of a declaration without type).
    fn unknown_type_here(&self, ctx: Ctx) -> bool {
        let next = self.peek(1);
        match ctx {
            Ctx::Param | Ctx::Field => true,
            Ctx::TypeName => false,
            _ => {
                (next.kind == TokenKind::Ident
                    && (!keyword::is_reserved(&next.text) || keyword::is_qualifier(&next.text)))
                    || (ctx == Ctx::File && next.is(Punct::Star))
            }
        }
    }

    /// After `struct s { ... }`, a type or storage keyword means the `;` was forgotten.
    fn check_semi_after_definition(&mut self, keyword_at: usize) {
        let Some(next) = self.ident() else { return };
        let begins_new = keyword::type_word(next).is_some()
            || keyword::is_builtin_type(next)
            || keyword::storage(next).is_some()
            || keyword::is_kernel(next)
            || keyword::is_inline(next)
            || matches!(next, "struct" | "union" | "enum");
        if begins_new {
            let what = self.toks[keyword_at].text.clone();
            self.error_after_prev(format!("expected ';' after {what}"));
            self.implicit_semi = true;
        }
    }

    /// Consumes one qualifier keyword into `q` (`access` records an access qualifier's
    /// token); false when the current token is none.
    fn qualifier(&mut self, q: &mut Qualifiers, access: &mut Option<usize>) -> bool {
        let Some(name) = self.ident() else {
            return false;
        };
        if keyword::is_const(name) {
            if q.is_const {
                self.warning_at(self.pos, "duplicate 'const' declaration specifier");
            }
            q.is_const = true;
        } else if keyword::is_volatile(name) {
            if q.is_volatile {
                self.warning_at(self.pos, "duplicate 'volatile' declaration specifier");
            }
            q.is_volatile = true;
        } else if keyword::is_restrict(name) {
            if q.is_restrict {
                self.warning_at(self.pos, "duplicate 'restrict' declaration specifier");
            }
            q.is_restrict = true;
        } else if let Some(space) = keyword::addr_space(name) {
            if q.addr_space.is_some_and(|s| s != space) {
                self.error("multiple address spaces specified for type");
            }
            q.addr_space = Some(space);
        } else if keyword::is_access_qual(name) {
            if access.is_some() {
                self.error("multiple access qualifiers");
            }
            *access = Some(self.pos);
        } else {
            return false;
        }
        self.bump();
        true
    }

    // ---- struct, union, enum ----------------------------------------------------------------

    fn record_spec(&mut self) -> PResult<RecordSpec> {
        let start = self.bump();
        let is_union = self.toks[start].text == "union";
        let mut attributes = Vec::new();
        self.attributes(&mut attributes)?;
        let tag = if self.at_name() {
            let i = self.bump();
            Some((self.toks[i].text.clone(), self.toks[i].span))
        } else {
            None
        };
        let fields = if self.at(Punct::LBrace) {
            Some(self.nested(|p| p.fields())?)
        } else if tag.is_none() {
            return Err(self.error(format!(
                "declaration of anonymous {} must be a definition",
                self.toks[start].text
            )));
        } else {
            None
        };
        if fields.is_some() {
            self.attributes(&mut attributes)?;
        }
        Ok(RecordSpec {
            is_union,
            tag,
            fields,
            attributes,
            span: self.span_from(start),
        })
    }

    /// `{ member declarations }`
    fn fields(&mut self) -> PResult<Vec<FieldDecl>> {
        let open = self.bump();
        let mut fields = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            let before = self.pos;
            if self.eat(Punct::Semi) {
                continue;
            }
            match self.field_decl() {
                Ok(f) => fields.push(f),
                Err(Fail) => self.skip_statement(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.expect_closing(Punct::RBrace, open)?;
        Ok(fields)
    }

    fn field_decl(&mut self) -> PResult<FieldDecl> {
        let start = self.pos;
        let specs = self.decl_specs(Ctx::Field)?;
        let mut declarators = Vec::new();
        if !self.at(Punct::Semi) && !self.implicit_semi {
            loop {
                let mut d = if self.at(Punct::Colon) {
                    Declarator {
                        name: None,
                        derived: Vec::new(),
                        attributes: Vec::new(),
                        span: self.empty_span(),
                    }
                } else {
                    self.declarator(Mode::Named)?
                };
                let width = if self.eat(Punct::Colon) {
                    Some(self.conditional_expr()?)
                } else {
                    None
                };
                self.attributes(&mut d.attributes)?;
                declarators.push((d, width));
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        if !std::mem::take(&mut self.implicit_semi) && !self.eat(Punct::Semi) {
            // Before the closing brace compilers accept the omission with a warning.
            const MISSING: &str = "expected ';' at end of declaration list";
            if !self.at(Punct::RBrace) {
                return Err(self.error_after_prev(MISSING));
            }
            self.warning_after_prev(MISSING);
        }
        Ok(FieldDecl {
            specs,
            declarators,
            span: self.span_from(start),
        })
    }

    fn enum_spec(&mut self) -> PResult<EnumSpec> {
        let start = self.bump();
        self.ignored_attributes()?;
        let tag = if self.at_name() {
            let i = self.bump();
            Some((self.toks[i].text.clone(), self.toks[i].span))
        } else {
            None
        };
        let variants = if self.at(Punct::LBrace) {
            Some(self.nested(|p| p.enumerators())?)
        } else if tag.is_none() {
            return Err(self.error("declaration of anonymous enum must be a definition"));
        } else {
            None
        };
        if variants.is_some() {
            self.ignored_attributes()?;
        }
        Ok(EnumSpec {
            tag,
            variants,
            span: self.span_from(start),
        })
    }

    fn enumerators(&mut self) -> PResult<Vec<Enumerator>> {
        let open = self.bump();
        let mut list = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            if !self.at_name() {
                self.error("expected identifier");
                self.skip(&[Punct::Comma]);
                if self.eat(Punct::Comma) {
                    continue;
                }
                break;
            }
            let i = self.bump();
            let name = self.toks[i].text.clone();
            self.ignored_attributes()?;
            let value = if self.eat(Punct::Assign) {
                match self.conditional_expr() {
                    Ok(e) => Some(e),
                    Err(Fail) => {
                        self.skip(&[Punct::Comma]);
                        None
                    }
                }
            } else {
                None
            };
            self.declare(&name, Binding::Ordinary);
            list.push(Enumerator {
                name,
                value,
                span: self.toks[i].span,
            });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect_closing(Punct::RBrace, open)?;
        Ok(list)
    }

    // ---- attributes -------------------------------------------------------------------------

    /// Any `__attribute__((...))` groups at the current token, appended to `out`. A broken
    /// group is reported and skipped.
    pub(super) fn attributes(&mut self, out: &mut Vec<Attribute>) -> PResult<()> {
        while self.ident().is_some_and(keyword::is_attribute) {
            let kw = self.pos;
            if self.attribute_group(out).is_err() {
                if self.fatal {
                    return Err(Fail);
                }
                self.pos = self.pos.max(self.after_attributes(kw));
            }
        }
        Ok(())
    }

    fn attribute_group(&mut self, out: &mut Vec<Attribute>) -> PResult<()> {
        let kw = self.bump();
        let outer = self.pos;
        let message = format!("expected '(' after '{}'", self.toks[kw].text);
        self.expect(Punct::LParen, &message)?;
        let inner = self.pos;
        self.expect(Punct::LParen, &message)?;
        loop {
            if self.eat(Punct::Comma) {
                continue;
            }
            if self.at(Punct::RParen) {
                break;
            }
            if self.tok().kind != TokenKind::Ident {
                return Err(self.error("expected identifier"));
            }
            let start = self.bump();
            let name = self.toks[start].text.clone();
            let mut args = Vec::new();
            if self.at(Punct::LParen) {
                let open = self.bump();
                if !self.at(Punct::RParen) {
                    loop {
                        args.push(self.attribute_arg()?);
                        if !self.eat(Punct::Comma) {
                            break;
                        }
                    }
                }
                self.expect_closing(Punct::RParen, open)?;
            }
            out.push(Attribute {
                name,
                args,
                span: self.span_from(start),
            });
            if !self.at(Punct::Comma) {
                break;
            }
        }
        self.expect_closing(Punct::RParen, inner)?;
        self.expect_closing(Punct::RParen, outer)
    }

    fn attribute_arg(&mut self) -> PResult<Expr> {
        if self.starts_type_name_at(self.pos) {
            let start = self.pos;
            let (t, height) = self.with_peak_height(|p| p.type_name())?;
            self.set_height(height + 2)?;
            Ok(self.expr_at(ExprKind::TypeArg(Box::new(t)), start))
        } else {
            self.assign_expr()
        }
    }

    /// Attributes where the tree has no place for them: parsed, then ignored with a
    /// warning.
    pub(super) fn ignored_attributes(&mut self) -> PResult<()> {
        let mut list = Vec::new();
        self.attributes(&mut list)?;
        for a in list {
            let d =
                crate::diag::Diagnostic::warning(a.span, format!("'{}' attribute ignored", a.name));
            self.report(d);
        }
        Ok(())
    }

    // ---- declarators ------------------------------------------------------------------------

    /// A declarator; `derived` runs from the name outward.
    fn declarator(&mut self, mode: Mode) -> PResult<Declarator> {
        self.nested(|p| p.declarator_inner(mode))
    }

    fn declarator_inner(&mut self, mode: Mode) -> PResult<Declarator> {
        let start = self.pos;
        let mut attributes = Vec::new();
        let mut pointers = Vec::new();
        while self.eat(Punct::Star) {
            let mut q = Qualifiers::default();
            let mut access = None;
            loop {
                if self.qualifier(&mut q, &mut access) {
                    continue;
                }
                if self.ident().is_some_and(keyword::is_attribute) {
                    self.attributes(&mut attributes)?;
                    continue;
                }
                break;
            }
            if let Some(a) = access {
                self.error_at(
                    a,
                    "access qualifier can only be used for pipe and image type",
                );
            }
            pointers.push(q);
        }
        let mut name = None;
        let mut derived = Vec::new();
        if mode != Mode::Abstract && self.at_name() {
            let i = self.bump();
            name = Some((self.toks[i].text.clone(), self.toks[i].span));
        } else if self.at(Punct::LParen) && self.paren_groups(mode) {
            let open = self.bump();
            let inner = self.declarator(mode)?;
            self.expect_closing(Punct::RParen, open)?;
            name = inner.name;
            derived = inner.derived;
            attributes.extend(inner.attributes);
        } else if mode == Mode::Named {
            return Err(self.error("expected identifier or '('"));
        }
        loop {
            if self.at(Punct::LBracket) {
                derived.push(self.array_suffix()?);
            } else if self.at(Punct::LParen) {
                derived.push(self.params()?);
            } else {
                break;
            }
        }
        derived.extend(pointers.into_iter().rev().map(Derived::Pointer));
        if self
            .ident()
            .is_some_and(|s| matches!(s, "asm" | "__asm" | "__asm__"))
        {
            return Err(self.unsupported_at(self.pos, "asm labels"));
        }
        self.attributes(&mut attributes)?;
        Ok(Declarator {
            name,
            derived,
            attributes,
            span: self.span_from(start),
        })
    }

    /// Whether a `(` at the start of a direct declarator groups a declarator (`(*p)`) rather
    /// than beginning a parameter list (`int (int)` in a type name).
    fn paren_groups(&self, mode: Mode) -> bool {
        if mode == Mode::Named {
            return true;
        }
        let n = self.peek(1);
        n.is(Punct::Star)
            || n.is(Punct::LParen)
            || n.is(Punct::LBracket)
            || (n.kind == TokenKind::Ident && keyword::is_attribute(&n.text))
            || (mode == Mode::Either
                && n.kind == TokenKind::Ident
                && !keyword::is_reserved(&n.text)
                && !self.is_typedef(&n.text))
    }

    fn array_suffix(&mut self) -> PResult<Derived> {
        let open = self.bump();
        if self.eat(Punct::RBracket) {
            return Ok(Derived::Array(None));
        }
        if self.at(Punct::Star) && self.peek(1).is(Punct::RBracket) {
            return Err(self.unsupported_at(self.pos, "variable length arrays"));
        }
        let mut q = Qualifiers::default();
        let mut access = None;
        let at = self.pos;
        while self.at_kw("static") || self.qualifier(&mut q, &mut access) {
            if self.at_kw("static") {
                self.bump();
            }
        }
        if self.pos > at {
            return Err(self.unsupported_at(at, "qualifiers or 'static' in array parameters"));
        }
        let size = self.assign_expr()?;
        self.expect_closing(Punct::RBracket, open)?;
        Ok(Derived::Array(Some(Box::new(size))))
    }

    /// `( parameters )`, in a scope of its own.
    fn params(&mut self) -> PResult<Derived> {
        self.nested(|p| {
            p.push_scope();
            let r = p.params_inner();
            p.pop_scope();
            r
        })
    }

    fn params_inner(&mut self) -> PResult<Derived> {
        let open = self.bump();
        let mut params = Vec::new();
        let mut variadic = false;
        if self.eat(Punct::RParen) {
            return Ok(Derived::Function { params, variadic });
        }
        let t = self.tok();
        if t.kind == TokenKind::Ident
            && !keyword::is_reserved(&t.text)
            && !self.is_typedef(&t.text)
            && (self.peek(1).is(Punct::Comma) || self.peek(1).is(Punct::RParen))
        {
            self.unsupported_at(self.pos, "K&R-style (identifier list) parameters");
            self.knr_lists += 1;
            self.skip(&[Punct::RParen]);
            self.expect_closing(Punct::RParen, open)?;
            return Ok(Derived::Function { params, variadic });
        }
        loop {
            if self.eat(Punct::Ellipsis) {
                variadic = true;
                break;
            }
            match self.param() {
                Ok(p) => params.push(p),
                Err(Fail) => self.skip(&[Punct::Comma, Punct::RParen, Punct::LBrace, Punct::Semi]),
            }
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        if self.expect_closing(Punct::RParen, open).is_err() {
            self.skip(&[Punct::RParen, Punct::LBrace, Punct::Semi]);
            self.eat(Punct::RParen);
        }
        if let [only] = params.as_slice() {
            let plain = only.declarator.name.is_none()
                && only.declarator.derived.is_empty()
                && only.specs.storage.is_none()
                && only.specs.qualifiers == Qualifiers::default()
                && matches!(only.specs.ty, TypeSpec::Void);
            if plain {
                params.clear();
            }
        }
        Ok(Derived::Function { params, variadic })
    }

    fn param(&mut self) -> PResult<ParamDecl> {
        let start = self.pos;
        if !self.starts_decl() && !self.at_name() {
            return Err(self.error("expected parameter declarator"));
        }
        let specs = self.decl_specs(Ctx::Param)?;
        let declarator = self.declarator(Mode::Either)?;
        if let Some((name, _)) = &declarator.name {
            self.declare(name, Binding::Ordinary);
        }
        Ok(ParamDecl {
            specs,
            declarator,
            span: self.span_from(start),
        })
    }

    /// A type name: specifiers and an abstract declarator.
    pub(super) fn type_name(&mut self) -> PResult<TypeName> {
        let start = self.pos;
        let specs = self.decl_specs(Ctx::TypeName)?;
        let declarator = self.declarator(Mode::Abstract)?;
        Ok(TypeName {
            specs,
            declarator,
            span: self.span_from(start),
        })
    }

    /// Whether a type name denotes an OpenCL vector type, so `(T)(a, b)` is a vector literal.
    pub(super) fn is_vector_type(&self, t: &TypeName) -> bool {
        t.declarator.derived.is_empty() && is_vector_spec(&t.specs.ty, self)
    }

    // ---- initializers -----------------------------------------------------------------------

    pub(super) fn initializer(&mut self) -> PResult<Initializer> {
        if self.at(Punct::LBrace) {
            self.init_list()
        } else {
            Ok(Initializer::Expr(self.assign_expr()?))
        }
    }

    /// `{ [designators =] initializer, ... }`
    pub(super) fn init_list(&mut self) -> PResult<Initializer> {
        self.nested(|p| {
            let open = p.bump();
            let mut items = Vec::new();
            while !p.at(Punct::RBrace) && !p.at_eof() {
                match p.init_item() {
                    Ok(item) => items.push(item),
                    Err(Fail) => p.skip(&[Punct::Comma, Punct::RBrace, Punct::Semi]),
                }
                if !p.eat(Punct::Comma) {
                    break;
                }
            }
            p.expect_closing(Punct::RBrace, open)?;
            Ok(Initializer::List {
                items,
                span: p.span_from(open),
            })
        })
    }

    fn init_item(&mut self) -> PResult<(Vec<Designator>, Initializer)> {
        let mut designators = Vec::new();
        loop {
            if self.eat(Punct::Dot) {
                if !self.at_name() {
                    return Err(self.error("expected a field designator, such as '.field = 4'"));
                }
                let i = self.bump();
                designators.push(Designator::Field(
                    self.toks[i].text.clone(),
                    self.toks[i].span,
                ));
            } else if self.at(Punct::LBracket) {
                let open = self.bump();
                let index = self.conditional_expr()?;
                if self.at(Punct::Ellipsis) {
                    return Err(self.unsupported_at(self.pos, "array range designators"));
                }
                self.expect_closing(Punct::RBracket, open)?;
                designators.push(Designator::Index(index));
            } else {
                break;
            }
        }
        if !designators.is_empty() && !self.eat(Punct::Assign) {
            return Err(self.error("expected '=' or another designator"));
        }
        Ok((designators, self.initializer()?))
    }

    /// `{ ... }` as a function body: a compound statement that recovers on its own.
    fn compound_statement(&mut self) -> Stmt {
        let start = self.pos;
        match self.nested(|p| Ok(p.compound())) {
            Ok(s) => s,
            Err(Fail) => Stmt {
                kind: StmtKind::Compound(Vec::new()),
                span: self.span_from(start),
            },
        }
    }
}

impl TypeWords {
    /// Adds a one-token type (`uint`, `float4`, a struct, a typedef name).
    fn add_named(&mut self, t: TypeSpec, at: usize) -> Result<(), usize> {
        if let Some(prev) = self.first() {
            return Err(prev);
        }
        self.named = Some((t, at));
        Ok(())
    }
}
