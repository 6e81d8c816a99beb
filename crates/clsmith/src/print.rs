//! OpenCL C source text of a [`Program`]. Expressions get only the parentheses C's
//! precedence needs, so the compiler's parser is tested too; the text parses back to
//! exactly the tree it was printed from.

use std::fmt::Write;

use crate::ast::{
    Arm, Block, Expr, FloatLit, Function, IncDec, Init, IntLit, Label, Program, Radix, Space, Stmt,
    Suffix, Type, UnOp,
};

/// The program's OpenCL C source text.
pub fn program(p: &Program) -> String {
    let mut out = String::new();
    for pragma in &p.pragmas {
        let _ = writeln!(out, "#pragma {pragma}");
    }
    if !p.pragmas.is_empty() {
        out.push('\n');
    }
    for m in &p.macros {
        let params = m.params.as_deref().unwrap_or(&[]);
        let printer = Printer {
            p,
            f: None,
            macro_params: params,
            in_macro_arg: Default::default(),
        };
        let body = printer.expr(&m.body, 15);
        match &m.params {
            None => {
                let _ = writeln!(out, "#define {} {}", m.name, body);
            }
            Some(ps) => {
                let _ = writeln!(out, "#define {}({}) {}", m.name, ps.join(", "), body);
            }
        }
    }
    if !p.macros.is_empty() {
        out.push('\n');
    }
    let printer = Printer {
        p,
        f: None,
        macro_params: &[],
        in_macro_arg: Default::default(),
    };
    for a in p.aliases.iter().filter(|a| !a.builtin) {
        let _ = writeln!(
            out,
            "typedef {};",
            printer.declarator(&a.target, &a.name, false)
        );
    }
    for s in &p.structs {
        let _ = writeln!(out, "typedef struct {}_s {{", s.name);
        for f in &s.fields {
            let _ = writeln!(out, "    {};", printer.declarator(&f.ty, &f.name, false));
        }
        let _ = writeln!(out, "}} {};", s.name);
    }
    if p.aliases.iter().any(|a| !a.builtin) || !p.structs.is_empty() {
        out.push('\n');
    }
    for c in &p.constants {
        let values: Vec<String> = c.values.iter().map(|v| printer.expr(v, 2)).collect();
        let _ = writeln!(
            out,
            "__constant {} {}[{}] = {{{}}};",
            c.elem.name(),
            c.name,
            c.values.len(),
            values.join(", ")
        );
    }
    if !p.constants.is_empty() {
        out.push('\n');
    }
    for f in &p.functions {
        function(p, f, &mut out);
        out.push('\n');
    }
    out
}

fn function(p: &Program, f: &Function, out: &mut String) {
    let printer = Printer {
        p,
        f: Some(f),
        macro_params: &[],
        in_macro_arg: Default::default(),
    };
    let params: Vec<String> = f
        .params
        .iter()
        .map(|&v| {
            let d = &f.vars[v as usize];
            printer.var_decl(d)
        })
        .collect();
    let kw = match (f.kernel, f.short_kernel_keyword) {
        (false, _) => "",
        (true, false) => "__kernel ",
        (true, true) => "kernel ",
    };
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let _ = writeln!(
        out,
        "{kw}{} {}({params})",
        printer.type_name(&f.ret),
        f.name
    );
    printer.block(&f.body, 0, out);
    out.push('\n');
}

/// An integer literal's spelling.
pub fn int_lit(l: &IntLit) -> String {
    let digits = match l.radix {
        Radix::Dec => format!("{}", l.value),
        Radix::Hex if l.upper => format!("0x{:X}", l.value),
        Radix::Hex => format!("0x{:x}", l.value),
        Radix::Oct if l.value == 0 => "0".to_string(),
        Radix::Oct => format!("0{:o}", l.value),
    };
    let suffix = match (l.suffix, l.upper) {
        (Suffix::None, _) => "",
        (Suffix::U, false) => "u",
        (Suffix::U, true) => "U",
        (Suffix::L, _) => "L",
        (Suffix::UL, false) => "ul",
        (Suffix::UL, true) => "UL",
    };
    format!("{digits}{suffix}")
}

/// A floating literal's spelling: the exact decimal expansion or a hex float, with an `f`
/// suffix for `float`.
pub fn float_lit(l: &FloatLit) -> String {
    let text = if l.hex {
        hex_float(l.value)
    } else {
        exact_decimal(l.value)
    };
    if l.single {
        format!("{text}f")
    } else {
        text
    }
}

/// A finite `f64` as a C99 hex float (`0x1.8p+1`), exact for every finite value (a
/// `float` converts to `f64` exactly).
pub fn hex_float(v: f64) -> String {
    assert!(v.is_finite(), "hex_float of a non-finite value");
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let bits = v.abs().to_bits();
    if bits == 0 {
        return format!("{sign}0x0p+0");
    }
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        // Subnormal: normalise so the leading digit is 1.
        let shift = frac.leading_zeros() as i64 - 11;
        frac = (frac << shift) & ((1u64 << 52) - 1);
        exp = 1 - shift;
    }
    let e = exp - 1023;
    let mut hex = format!("{frac:013x}");
    while hex.ends_with('0') {
        hex.pop();
    }
    let dot = if hex.is_empty() {
        String::new()
    } else {
        format!(".{hex}")
    };
    format!("{sign}0x1{dot}p{e:+}")
}

/// The exact decimal expansion of a dyadic `f64` whose binary exponent is at least -30
/// (every such value has a finite expansion the printer writes in full, so reading it
/// involves no rounding).
pub fn exact_decimal(v: f64) -> String {
    assert!(v.is_finite());
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let a = v.abs();
    if a == a.trunc() && a < 1e30 {
        return format!("{sign}{a:.1}");
    }
    // a = k / 2^m with m <= 30: the expansion is k * 5^m / 10^m.
    let mut m = 0u32;
    let mut x = a;
    while x != x.trunc() {
        x *= 2.0;
        m += 1;
        assert!(
            m <= 30,
            "exact_decimal needs a binary exponent of at least -30, got {v}"
        );
    }
    let k = x as u128;
    let scaled = k * 5u128.pow(m);
    let pow10 = 10u128.pow(m);
    let int = scaled / pow10;
    let frac = scaled % pow10;
    format!("{sign}{int}.{frac:0width$}", width = m as usize)
}

struct Printer<'a> {
    p: &'a Program,
    f: Option<&'a Function>,
    macro_params: &'a [String],
    /// Nesting of macro arguments being printed: there only parentheses protect a comma
    /// (brackets and `?:` do not), so every comma operator gets them.
    in_macro_arg: std::cell::Cell<u32>,
}

fn indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

fn space_kw(space: Space, short: bool) -> &'static str {
    match (space, short) {
        (Space::Private, false) => "__private",
        (Space::Private, true) => "private",
        (Space::Global, false) => "__global",
        (Space::Global, true) => "global",
        (Space::Local, false) => "__local",
        (Space::Local, true) => "local",
        (Space::Constant, false) => "__constant",
        (Space::Constant, true) => "constant",
    }
}

impl Printer<'_> {
    fn short_spaces(&self) -> bool {
        self.f.is_some_and(|f| f.short_kernel_keyword)
    }

    fn type_name(&self, ty: &Type) -> String {
        self.declarator(ty, "", false)
    }

    /// `ty name` with array suffixes and pointer stars in C's declarator syntax.
    fn declarator(&self, ty: &Type, name: &str, _outer: bool) -> String {
        match ty {
            Type::Void => join("void", name),
            Type::Scalar(s) => join(s.name(), name),
            Type::Alias(a) => join(&self.p.aliases[*a as usize].name, name),
            Type::Struct(s) => join(&self.p.structs[*s as usize].name, name),
            Type::Array(elem, n) => self.declarator(elem, &format!("{name}[{n}]"), true),
            Type::Ptr {
                space,
                konst,
                pointee,
            } => {
                let mut prefix = String::new();
                if *space != Space::Private || self.short_spaces() {
                    // Private pointees are spelled out in functions using the short
                    // keywords, so `private` appears too.
                    prefix.push_str(space_kw(*space, self.short_spaces()));
                    prefix.push(' ');
                }
                if *konst {
                    prefix.push_str("const ");
                }
                let inner = self.declarator(pointee, "", true);
                format!("{prefix}{inner} *{name}")
            }
        }
    }

    fn var_decl(&self, d: &crate::ast::VarDecl) -> String {
        let mut s = String::new();
        if d.space != Space::Private || d.explicit_space {
            s.push_str(space_kw(d.space, self.short_spaces()));
            s.push(' ');
        }
        if d.konst {
            s.push_str("const ");
        }
        s.push_str(&self.declarator(&d.ty, &d.name, false));
        s
    }

    fn var_name(&self, v: u32) -> &str {
        &self.f.expect("variables inside functions").vars[v as usize].name
    }

    fn block(&self, b: &Block, depth: usize, out: &mut String) {
        indent(depth, out);
        out.push_str("{\n");
        for s in &b.stmts {
            self.stmt(s, depth + 1, out);
        }
        indent(depth, out);
        out.push('}');
    }

    fn init(&self, i: &Init) -> String {
        match i {
            Init::Expr(e) => self.expr(e, 2),
            Init::List(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.init(i)).collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }

    fn decl_text(&self, v: u32, init: &Option<Init>) -> String {
        let d = &self.f.expect("declarations inside functions").vars[v as usize];
        let mut s = self.var_decl(d);
        if let Some(i) = init {
            s.push_str(" = ");
            s.push_str(&self.init(i));
        }
        s
    }

    fn stmt(&self, s: &Stmt, depth: usize, out: &mut String) {
        match s {
            Stmt::Decl(v, init) => {
                indent(depth, out);
                let _ = writeln!(out, "{};", self.decl_text(*v, init));
            }
            Stmt::Expr(e) => {
                indent(depth, out);
                let _ = writeln!(out, "{};", self.expr(e, 1));
            }
            Stmt::Block(b) => {
                self.block(b, depth, out);
                out.push('\n');
            }
            Stmt::If(c, t, e) => {
                indent(depth, out);
                let _ = writeln!(out, "if ({})", self.expr(c, 1));
                self.block(t, depth, out);
                out.push('\n');
                if let Some(e) = e {
                    indent(depth, out);
                    out.push_str("else\n");
                    self.block(e, depth, out);
                    out.push('\n');
                }
            }
            Stmt::For(init, cond, step, body) => {
                indent(depth, out);
                let init = match init.as_deref() {
                    None => String::new(),
                    Some(Stmt::Decl(v, i)) => self.decl_text(*v, i),
                    Some(Stmt::Expr(e)) => self.expr(e, 1),
                    Some(other) => {
                        unreachable!("for-init is a declaration or an expression: {other:?}")
                    }
                };
                let cond = cond.as_ref().map(|c| self.expr(c, 1)).unwrap_or_default();
                let step = step.as_ref().map(|c| self.expr(c, 1)).unwrap_or_default();
                let _ = writeln!(out, "for ({init}; {cond}; {step})");
                self.block(body, depth, out);
                out.push('\n');
            }
            Stmt::While(c, body) => {
                indent(depth, out);
                let _ = writeln!(out, "while ({})", self.expr(c, 1));
                self.block(body, depth, out);
                out.push('\n');
            }
            Stmt::DoWhile(body, c) => {
                indent(depth, out);
                out.push_str("do\n");
                self.block(body, depth, out);
                let _ = writeln!(out, " while ({});", self.expr(c, 1));
            }
            Stmt::Switch(e, arms) => {
                indent(depth, out);
                let _ = writeln!(out, "switch ({})", self.expr(e, 1));
                indent(depth, out);
                out.push_str("{\n");
                for Arm { labels, body } in arms {
                    for l in labels {
                        indent(depth, out);
                        match l {
                            Label::Case(v) => {
                                let _ = writeln!(out, "case {v}:");
                            }
                            Label::Default => out.push_str("default:\n"),
                        }
                    }
                    self.block(
                        &Block {
                            stmts: body.clone(),
                        },
                        depth + 1,
                        out,
                    );
                    out.push('\n');
                }
                indent(depth, out);
                out.push_str("}\n");
            }
            Stmt::Break => {
                indent(depth, out);
                out.push_str("break;\n");
            }
            Stmt::Continue => {
                indent(depth, out);
                out.push_str("continue;\n");
            }
            Stmt::Return(e) => {
                indent(depth, out);
                match e {
                    None => out.push_str("return;\n"),
                    Some(e) => {
                        let _ = writeln!(out, "return {};", self.expr(e, 1));
                    }
                }
            }
            Stmt::Barrier(flags) => {
                indent(depth, out);
                let text = match flags {
                    1 => "CLK_LOCAL_MEM_FENCE",
                    2 => "CLK_GLOBAL_MEM_FENCE",
                    _ => "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE",
                };
                let _ = writeln!(out, "barrier({text});");
            }
            Stmt::PpIf {
                cond, then, els, ..
            } => {
                let _ = writeln!(out, "#if {cond}");
                for s in &then.stmts {
                    self.stmt(s, depth, out);
                }
                out.push_str("#else\n");
                for s in &els.stmts {
                    self.stmt(s, depth, out);
                }
                out.push_str("#endif\n");
            }
        }
    }

    /// `e` as text, parenthesized when its precedence is below `min`.
    fn expr(&self, e: &Expr, min: u8) -> String {
        let (prec, text) = self.expr_prec(e);
        if prec < min || (prec == 1 && self.in_macro_arg.get() > 0) {
            format!("({text})")
        } else {
            text
        }
    }

    fn expr_prec(&self, e: &Expr) -> (u8, String) {
        match e {
            Expr::Int(l) => (15, int_lit(l)),
            Expr::Float(l) => (15, float_lit(l)),
            Expr::Var(v) => (15, self.var_name(*v).to_string()),
            Expr::Const(c) => (15, self.p.constants[*c as usize].name.clone()),
            Expr::MacroParam(i) => (15, format!("({})", self.macro_params[*i as usize])),
            Expr::Macro(m, args) => {
                let m = &self.p.macros[*m as usize];
                if m.params.is_none() {
                    (15, m.name.clone())
                } else {
                    self.in_macro_arg.set(self.in_macro_arg.get() + 1);
                    let args: Vec<String> = args.iter().map(|a| self.expr(a, 2)).collect();
                    self.in_macro_arg.set(self.in_macro_arg.get() - 1);
                    (15, format!("{}({})", m.name, args.join(", ")))
                }
            }
            Expr::Unary(op, x) => {
                let sym = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                    UnOp::Deref => "*",
                    UnOp::AddrOf => "&",
                };
                let inner = self.expr(x, 14);
                // `- -x` and `- --x` must not fuse into `--`.
                let sep = if inner.starts_with(sym) { " " } else { "" };
                (14, format!("{sym}{sep}{inner}"))
            }
            Expr::IncDec(op, x) => match op {
                IncDec::PreInc | IncDec::PreDec => {
                    let sym = if *op == IncDec::PreInc { "++" } else { "--" };
                    (14, format!("{sym}{}", self.expr(x, 14)))
                }
                IncDec::PostInc => (15, format!("{}++", self.expr(x, 15))),
                IncDec::PostDec => (15, format!("{}--", self.expr(x, 15))),
            },
            Expr::Binary(op, a, b) => {
                let prec = binary_prec(*op);
                (
                    prec,
                    format!(
                        "{} {} {}",
                        self.expr(a, prec),
                        op.text(),
                        self.expr(b, prec + 1)
                    ),
                )
            }
            Expr::Assign(op, a, b) => {
                let sym = match op {
                    None => "=".to_string(),
                    Some(op) => format!("{}=", op.text()),
                };
                (2, format!("{} {sym} {}", self.expr(a, 14), self.expr(b, 2)))
            }
            Expr::Cond(c, a, b) => (
                3,
                format!(
                    "{} ? {} : {}",
                    self.expr(c, 4),
                    self.expr(a, 1),
                    self.expr(b, 3)
                ),
            ),
            Expr::Comma(a, b) => (1, format!("{}, {}", self.expr(a, 1), self.expr(b, 2))),
            Expr::Cast(t, x) => (14, format!("({}){}", self.type_name(t), self.expr(x, 14))),
            Expr::Index(a, i) => (15, format!("{}[{}]", self.expr(a, 15), self.expr(i, 1))),
            Expr::Member(s, f) => (
                15,
                format!("{}.{}", self.expr(s, 15), self.field_name(s, *f, false)),
            ),
            Expr::Arrow(s, f) => (
                15,
                format!("{}->{}", self.expr(s, 15), self.field_name(s, *f, true)),
            ),
            Expr::Call(f, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a, 2)).collect();
                (
                    15,
                    format!(
                        "{}({})",
                        self.p.functions[*f as usize].name,
                        args.join(", ")
                    ),
                )
            }
            Expr::SizeOf(t) => (14, format!("sizeof({})", self.type_name(t))),
            Expr::Builtin(b, args) => {
                // Built-ins may be macros in an implementation: protect commas as in macro
                // arguments.
                self.in_macro_arg.set(self.in_macro_arg.get() + 1);
                let args: Vec<String> = args.iter().map(|a| self.expr(a, 2)).collect();
                self.in_macro_arg.set(self.in_macro_arg.get() - 1);
                (15, format!("{}({})", b.name(), args.join(", ")))
            }
        }
    }

    /// The member's name: the struct type is found from the base expression's static
    /// type, which for the bases the generator writes is a variable, an element of an
    /// array variable, a dereferenced pointer variable or a call.
    fn field_name(&self, base: &Expr, field: u32, arrow: bool) -> String {
        let ty = self.struct_of(base, arrow);
        self.p.structs[ty as usize].fields[field as usize]
            .name
            .clone()
    }

    fn struct_of(&self, base: &Expr, arrow: bool) -> u32 {
        let ty = crate::ctype_of::static_type(self.p, self.f, base);
        let ty = match (arrow, self.p.resolve(&ty)) {
            (true, Type::Ptr { pointee, .. }) => (**pointee).clone(),
            (false, t) => t.clone(),
            (true, t) => unreachable!("-> on {t:?}"),
        };
        match self.p.resolve(&ty) {
            Type::Struct(s) => *s,
            t => unreachable!("member of a non-struct {t:?}"),
        }
    }
}

fn join(ty: &str, name: &str) -> String {
    if name.is_empty() {
        ty.to_string()
    } else if name.starts_with('[') {
        format!("{ty}{name}")
    } else {
        format!("{ty} {name}")
    }
}

fn binary_prec(op: crate::ast::BinOp) -> u8 {
    use crate::ast::BinOp::*;
    match op {
        Mul | Div | Rem => 13,
        Add | Sub => 12,
        Shl | Shr => 11,
        Lt | Gt | Le | Ge => 10,
        Eq | Ne => 9,
        And => 8,
        Xor => 7,
        Or => 6,
        LogAnd => 5,
        LogOr => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_floats_are_exact() {
        assert_eq!(hex_float(3.0), "0x1.8p+1");
        assert_eq!(hex_float(1.0), "0x1p+0");
        assert_eq!(hex_float(-0.0), "-0x0p+0");
        assert_eq!(hex_float(0.1f32 as f64), "0x1.99999ap-4");
        assert_eq!(hex_float(f64::from_bits(1)), "0x1p-1074");
        assert_eq!(hex_float(f32::from_bits(1) as f64), "0x1p-149");
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(exact_decimal(1.5), "1.5");
        assert_eq!(exact_decimal(-3.0), "-3.0");
        assert_eq!(exact_decimal(0.0009765625), "0.0009765625");
        assert_eq!(exact_decimal(1024.125), "1024.125");
    }
}
