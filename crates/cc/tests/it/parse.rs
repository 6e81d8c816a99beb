//! The parser: tree shapes (through a compact dump), literal values, spans, clang-worded
//! errors with their positions, recovery, and robustness on arbitrary token sequences.
//!
//! The tokens come from a small tokenizer below (the preprocessor's lexer is not used, so
//! that these tests need the parser alone).

use warpkit_cc::ast::*;
use warpkit_cc::diag::{Diagnostics, Severity};
use warpkit_cc::parse::parse;
use warpkit_cc::source::{ExpnId, FileId, SourceMap, Span};
use warpkit_cc::token::{Punct, Token, TokenKind};

// ---- tokenizer ------------------------------------------------------------------------------

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Tokens of `src` as the preprocessor would hand them over (no directives, no macros).
fn lex(file: FileId, src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let push = |toks: &mut Vec<Token>, kind, lo: usize, hi: usize| {
        toks.push(Token {
            kind,
            text: src[lo..hi].to_string(),
            span: Span::new(file, lo as u32, hi as u32),
            expansion: None,
        })
    };
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let lo = i;
            i += 1;
            while i < b.len() {
                let sign = matches!(b[i], b'+' | b'-') && matches!(b[i - 1] | 0x20, b'e' | b'p');
                if !(sign || is_ident_char(b[i]) || b[i] == b'.') {
                    break;
                }
                i += 1;
            }
            let text = &src[lo..i];
            let hex = text.len() > 1 && (text.as_bytes()[1] | 0x20) == b'x';
            let float = text.contains('.')
                || (!hex && text.contains(['e', 'E']))
                || (hex && text.contains(['p', 'P']));
            push(
                &mut toks,
                if float {
                    TokenKind::Float
                } else {
                    TokenKind::Int
                },
                lo,
                i,
            );
        } else if c == b'\''
            || c == b'"'
            || (matches!(c, b'L' | b'u' | b'U') && matches!(b.get(i + 1), Some(b'\'' | b'"')))
        {
            let lo = i;
            if c != b'\'' && c != b'"' {
                i += 1;
            }
            let quote = b[i];
            i += 1;
            while i < b.len() && b[i] != quote && b[i] != b'\n' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            let kind = if quote == b'\'' {
                TokenKind::Char
            } else {
                TokenKind::Str
            };
            push(&mut toks, kind, lo, i);
        } else if is_ident_char(c) {
            let lo = i;
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            push(&mut toks, TokenKind::Ident, lo, i);
        } else if let Some(p) = Punct::ALL.iter().find(|p| src[i..].starts_with(p.text())) {
            push(&mut toks, TokenKind::Punct(*p), i, i + p.text().len());
            i += p.text().len();
        } else {
            i += src[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    toks.push(Token {
        kind: TokenKind::Eof,
        text: String::new(),
        span: Span::new(file, b.len() as u32, b.len() as u32),
        expansion: None,
    });
    toks
}

struct Parsed {
    tu: TranslationUnit,
    diags: Diagnostics,
    sources: SourceMap,
}

impl Parsed {
    fn rendered(&self) -> String {
        self.diags.render(&self.sources)
    }

    fn snippet(&self, span: Span) -> &str {
        self.sources.snippet(span)
    }
}

fn parse_src(src: &str) -> Parsed {
    let mut sources = SourceMap::new();
    let file = sources.add_file("k.cl", src, false);
    let toks = lex(file, src);
    let mut diags = Diagnostics::new();
    let tu = parse(&toks, &mut diags);
    Parsed { tu, diags, sources }
}

/// Parses `src`, which must be free of diagnostics.
fn parse_ok(src: &str) -> TranslationUnit {
    let p = parse_src(src);
    assert!(p.diags.is_empty(), "{src}\n{}", p.rendered());
    p.tu
}

/// The rendered diagnostics of `src`.
fn errors(src: &str) -> String {
    parse_src(src).rendered()
}

// ---- dump -----------------------------------------------------------------------------------

fn type_spec(t: &TypeSpec) -> String {
    match t {
        TypeSpec::Void => "void".into(),
        TypeSpec::Bool => "bool".into(),
        TypeSpec::Char => "char".into(),
        TypeSpec::SChar => "schar".into(),
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
        TypeSpec::Vector(e, n) => format!("{}{n}", type_spec(e)),
        TypeSpec::Record(r) => {
            let mut s = if r.is_union { "union" } else { "struct" }.to_string();
            if let Some((tag, _)) = &r.tag {
                s += &format!(" {tag}");
            }
            s += &attrs(&r.attributes);
            if let Some(fields) = &r.fields {
                let fs: Vec<String> = fields
                    .iter()
                    .map(|f| {
                        let ds: Vec<String> = f
                            .declarators
                            .iter()
                            .map(|(d, w)| {
                                let mut s = declarator(&f.specs, d);
                                if let Some(w) = w {
                                    s += &format!(" : {}", expr(w));
                                }
                                s
                            })
                            .collect();
                        if ds.is_empty() {
                            format!("<{}>", specs(&f.specs))
                        } else {
                            ds.join(", ")
                        }
                    })
                    .collect();
                s += &format!(" {{{}}}", fs.join("; "));
            }
            s
        }
        TypeSpec::Enum(e) => {
            let mut s = "enum".to_string();
            if let Some((tag, _)) = &e.tag {
                s += &format!(" {tag}");
            }
            if let Some(vs) = &e.variants {
                let vs: Vec<String> = vs
                    .iter()
                    .map(|v| match &v.value {
                        Some(x) => format!("{}={}", v.name, expr(x)),
                        None => v.name.clone(),
                    })
                    .collect();
                s += &format!(" {{{}}}", vs.join(", "));
            }
            s
        }
        TypeSpec::TypedefName(n) => n.clone(),
        TypeSpec::Unsupported(s) => format!("unsupported({s})"),
    }
}

fn quals(q: &Qualifiers) -> String {
    let mut s = String::new();
    if q.is_const {
        s += "const ";
    }
    if q.is_volatile {
        s += "volatile ";
    }
    if q.is_restrict {
        s += "restrict ";
    }
    if let Some(a) = q.addr_space {
        s += match a {
            AddrSpaceQual::Global => "global ",
            AddrSpaceQual::Local => "local ",
            AddrSpaceQual::Constant => "constant ",
            AddrSpaceQual::Private => "private ",
        };
    }
    s
}

fn attrs(list: &[Attribute]) -> String {
    list.iter()
        .map(|a| {
            if a.args.is_empty() {
                format!(" @{}", a.name)
            } else {
                let args: Vec<String> = a.args.iter().map(expr).collect();
                format!(" @{}({})", a.name, args.join(", "))
            }
        })
        .collect()
}

/// The qualified base type of `s` (no storage class or function specifiers).
fn specs(s: &DeclSpecs) -> String {
    format!(
        "{}{}{}",
        quals(&s.qualifiers),
        type_spec(&s.ty),
        attrs(&s.attributes)
    )
}

fn derived(d: &[Derived], base: &str) -> String {
    match d.split_first() {
        None => base.to_string(),
        Some((Derived::Pointer(q), rest)) => format!("{}ptr({})", quals(q), derived(rest, base)),
        Some((Derived::Array(n), rest)) => format!(
            "[{}]{}",
            n.as_ref().map_or(String::new(), |n| expr(n)),
            derived(rest, base)
        ),
        Some((Derived::Function { params, variadic }, rest)) => {
            let mut ps: Vec<String> = params
                .iter()
                .map(|p| declarator(&p.specs, &p.declarator))
                .collect();
            if *variadic {
                ps.push("...".into());
            }
            format!("fn({}) -> {}", ps.join(", "), derived(rest, base))
        }
    }
}

/// `name: type` (or the type alone for an abstract declarator).
fn declarator(s: &DeclSpecs, d: &Declarator) -> String {
    let ty = derived(&d.derived, &specs(s));
    let ty = ty + &attrs(&d.attributes);
    match &d.name {
        Some((n, _)) => format!("{n}: {ty}"),
        None => ty,
    }
}

fn type_name(t: &TypeName) -> String {
    declarator(&t.specs, &t.declarator)
}

fn init(i: &Initializer) -> String {
    match i {
        Initializer::Expr(e) => expr(e),
        Initializer::List { items, .. } => {
            let items: Vec<String> = items
                .iter()
                .map(|(ds, i)| {
                    let mut s = String::new();
                    for d in ds {
                        match d {
                            Designator::Field(f, _) => s += &format!(".{f}"),
                            Designator::Index(e) => s += &format!("[{}]", expr(e)),
                        }
                    }
                    if !ds.is_empty() {
                        s += "=";
                    }
                    s + &init(i)
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

fn binop(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Rem => "%",
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Shl => "<<",
        BinaryOp::Shr => ">>",
        BinaryOp::Lt => "<",
        BinaryOp::Gt => ">",
        BinaryOp::Le => "<=",
        BinaryOp::Ge => ">=",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitXor => "^",
        BinaryOp::BitOr => "|",
        BinaryOp::LogAnd => "&&",
        BinaryOp::LogOr => "||",
    }
}

fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Ident(n) => n.clone(),
        ExprKind::IntLit { value, suffix, .. } => format!(
            "{value}{}{}",
            if suffix.unsigned { "u" } else { "" },
            "l".repeat(suffix.long as usize)
        ),
        ExprKind::FloatLit { text, suffix } => format!(
            "{text}{}",
            match suffix {
                FloatSuffix::None => "",
                FloatSuffix::F => "f",
                FloatSuffix::H => "h",
                FloatSuffix::L => "l",
            }
        ),
        ExprKind::CharLit(v) => format!("c{v}"),
        ExprKind::StrLit(b) => format!("{:?}", String::from_utf8_lossy(b)),
        ExprKind::Unary(op, x) => {
            let op = match op {
                UnaryOp::Plus => "+",
                UnaryOp::Minus => "-",
                UnaryOp::Not => "!",
                UnaryOp::BitNot => "~",
                UnaryOp::Deref => "*",
                UnaryOp::AddrOf => "&",
                UnaryOp::PreInc => "++",
                UnaryOp::PreDec => "--",
                UnaryOp::PostInc => "post++",
                UnaryOp::PostDec => "post--",
            };
            format!("({op} {})", expr(x))
        }
        ExprKind::Binary(op, a, b) => format!("({} {} {})", binop(*op), expr(a), expr(b)),
        ExprKind::Assign { op, lhs, rhs } => {
            format!("({}= {} {})", op.map_or("", binop), expr(lhs), expr(rhs))
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => format!("(? {} {} {})", expr(cond), expr(then), expr(otherwise)),
        ExprKind::Comma(a, b) => format!("(, {} {})", expr(a), expr(b)),
        ExprKind::Call { callee, args } => {
            let mut s = format!("(call {}", expr(callee));
            for a in args {
                s += " ";
                s += &expr(a);
            }
            s + ")"
        }
        ExprKind::Index(a, i) => format!("([] {} {})", expr(a), expr(i)),
        ExprKind::Member { base, field, arrow } => {
            format!(
                "({} {} {field})",
                if *arrow { "->" } else { "." },
                expr(base)
            )
        }
        ExprKind::Cast(t, x) => format!("(cast {} {})", type_name(t), expr(x)),
        ExprKind::CompoundLiteral(t, i) => format!("(lit {} {})", type_name(t), init(i)),
        ExprKind::SizeofExpr(x) => format!("(sizeof {})", expr(x)),
        ExprKind::SizeofType(t) => format!("(sizeof-type {})", type_name(t)),
        ExprKind::AlignofType(t) => format!("(alignof {})", type_name(t)),
        ExprKind::TypeArg(t) => format!("(type {})", type_name(t)),
    }
}

fn storage(s: &DeclSpecs) -> String {
    let mut out = String::new();
    if let Some(st) = s.storage {
        out += match st {
            Storage::Typedef => "typedef ",
            Storage::Static => "static ",
            Storage::Extern => "extern ",
            Storage::Auto => "auto ",
            Storage::Register => "register ",
        };
    }
    if s.is_kernel {
        out += "kernel ";
    }
    if s.is_inline {
        out += "inline ";
    }
    out
}

fn declaration(d: &Declaration) -> String {
    if d.declarators.is_empty() {
        return format!("decl {}<{}>", storage(&d.specs), specs(&d.specs));
    }
    let ds: Vec<String> = d
        .declarators
        .iter()
        .map(|i| {
            let mut s = declarator(&d.specs, &i.declarator);
            if let Some(x) = &i.init {
                s += &format!(" = {}", init(x));
            }
            s
        })
        .collect();
    format!("decl {}{}", storage(&d.specs), ds.join(", "))
}

fn stmt(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Compound(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|i| match i {
                    BlockItem::Decl(d) => declaration(d),
                    BlockItem::Stmt(s) => stmt(s),
                })
                .collect();
            format!("{{{}}}", items.join("; "))
        }
        StmtKind::Expr(None) => ";".into(),
        StmtKind::Expr(Some(e)) => expr(e),
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => match otherwise {
            Some(o) => format!("(if {} {} {})", expr(cond), stmt(then), stmt(o)),
            None => format!("(if {} {})", expr(cond), stmt(then)),
        },
        StmtKind::While { cond, body } => format!("(while {} {})", expr(cond), stmt(body)),
        StmtKind::DoWhile { body, cond } => format!("(do {} {})", stmt(body), expr(cond)),
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            let i = match init {
                ForInit::Decl(d) => declaration(d),
                ForInit::Expr(e) => expr(e),
                ForInit::None => String::new(),
            };
            let c = cond.as_ref().map_or(String::new(), expr);
            let st = step.as_ref().map_or(String::new(), expr);
            format!("(for {i}; {c}; {st} {})", stmt(body))
        }
        StmtKind::Switch { expr: e, body } => format!("(switch {} {})", expr(e), stmt(body)),
        StmtKind::Case { value, high, body } => match high {
            Some(h) => format!("(case {}...{} {})", expr(value), expr(h), stmt(body)),
            None => format!("(case {} {})", expr(value), stmt(body)),
        },
        StmtKind::Default(b) => format!("(default {})", stmt(b)),
        StmtKind::Labeled { label, body } => format!("(label {label} {})", stmt(body)),
        StmtKind::Goto(l) => format!("(goto {l})"),
        StmtKind::Break => "break".into(),
        StmtKind::Continue => "continue".into(),
        StmtKind::Return(None) => "(return)".into(),
        StmtKind::Return(Some(e)) => format!("(return {})", expr(e)),
    }
}

fn item(i: &ExternalDecl) -> String {
    match i {
        ExternalDecl::Declaration(d) => declaration(d),
        ExternalDecl::Function(f) => format!(
            "{}fn {} {}",
            storage(&f.specs),
            declarator(&f.specs, &f.declarator),
            stmt(&f.body)
        ),
    }
}

/// One line per top-level item.
fn dump(src: &str) -> String {
    let tu = parse_ok(src);
    tu.items.iter().map(item).collect::<Vec<_>>().join("\n")
}

/// The dump of the expression `e`, parsed as the initializer of a declaration after `prelude`.
fn ex(prelude: &str, e: &str) -> String {
    let tu = parse_ok(&format!("{prelude}\nvoid f(void) {{ {e}; }}"));
    let ExternalDecl::Function(f) = tu.items.last().unwrap() else {
        panic!()
    };
    let StmtKind::Compound(items) = &f.body.kind else {
        panic!()
    };
    match items.last().unwrap() {
        BlockItem::Stmt(s) => stmt(s),
        BlockItem::Decl(d) => declaration(d),
    }
}

/// The dump of the statements in the body of `void f(void) { body }`.
fn body(prelude: &str, body: &str) -> String {
    let tu = parse_ok(&format!("{prelude}\nvoid f(void) {{ {body} }}"));
    let ExternalDecl::Function(f) = tu.items.last().unwrap() else {
        panic!()
    };
    stmt(&f.body)
}

// ---- expressions ----------------------------------------------------------------------------

#[test]
fn precedence_and_associativity() {
    let e = |s| ex("", s);
    assert_eq!(e("a + b * c"), "(+ a (* b c))");
    assert_eq!(e("a * b + c"), "(+ (* a b) c)");
    assert_eq!(e("a - b - c"), "(- (- a b) c)");
    assert_eq!(e("a / b % c * d"), "(* (% (/ a b) c) d)");
    assert_eq!(e("a = b = c"), "(= a (= b c))");
    assert_eq!(e("a += b -= c"), "(+= a (-= b c))");
    assert_eq!(
        e("a <<= 1, b >>= 2, c %= 3"),
        "(, (, (<<= a 1) (>>= b 2)) (%= c 3))"
    );
    assert_eq!(e("x &= 1 | 2 ^ 3"), "(&= x (| 1 (^ 2 3)))");
    assert_eq!(e("a ? b : c ? d : e"), "(? a b (? c d e))");
    assert_eq!(e("a ? b, c : d"), "(? a (, b c) d)");
    assert_eq!(e("a || b ? c : d"), "(? (|| a b) c d)");
    assert_eq!(e("x = a ? b : c"), "(= x (? a b c))");
    assert_eq!(
        e("a || b && c | d ^ e & f == g < h << i + j * k"),
        "(|| a (&& b (| c (^ d (& e (== f (< g (<< h (+ i (* j k))))))))))"
    );
    assert_eq!(e("a != b >= c > d <= e"), "(!= a (<= (> (>= b c) d) e))");
    assert_eq!(e("a >> b << c"), "(<< (>> a b) c)");
    assert_eq!(e("-a * b"), "(* (- a) b)");
    assert_eq!(e("!a && ~b"), "(&& (! a) (~ b))");
    assert_eq!(e("*p++"), "(* (post++ p))");
    assert_eq!(e("++*p"), "(++ (* p))");
    assert_eq!(e("- -x"), "(- (- x))");
    assert_eq!(e("&a[i]"), "(& ([] a i))");
    assert_eq!(e("+a--"), "(+ (post-- a))");
    assert_eq!(e("a.b->c[1](2, 3)"), "(call ([] (-> (. a b) c) 1) 2 3)");
    assert_eq!(e("f()()"), "(call (call f))");
    assert_eq!(e("a[i][j]"), "([] ([] a i) j)");
    assert_eq!(e("v.xyzw.s01"), "(. (. v xyzw) s01)");
    assert_eq!(e("(a + b) * c"), "(* (+ a b) c)");
    assert_eq!(e("a - (b - c)"), "(- a (- b c))");
    assert_eq!(e("sizeof a + 1"), "(+ (sizeof a) 1)");
    assert_eq!(e("sizeof(int) * 2"), "(* (sizeof-type int) 2)");
    assert_eq!(e("sizeof(a) * 2"), "(* (sizeof a) 2)");
    assert_eq!(e("sizeof *p"), "(sizeof (* p))");
    assert_eq!(e("sizeof(int *[3])"), "(sizeof-type [3]ptr(int))");
    assert_eq!(e("_Alignof(float4)"), "(alignof float4)");
    assert_eq!(e("__alignof__(double)"), "(alignof double)");
    assert_eq!(e("vec_step(float4)"), "(call vec_step (type float4))");
    assert_eq!(e("vec_step(v)"), "(call vec_step v)");
    assert_eq!(e("vec_step(v) + 1"), "(+ (call vec_step v) 1)");
    assert_eq!(e("true && false"), "(&& true false)");
    assert_eq!(e("__extension__ a"), "a");
}

#[test]
fn casts_parentheses_and_literals_of_types() {
    let e = |s| {
        ex(
            "typedef float real; typedef float4 vec; typedef vec vec2; struct S { int a, b; };",
            s,
        )
    };
    assert_eq!(e("(real)x"), "(cast real x)");
    assert_eq!(e("(real)x * y"), "(* (cast real x) y)");
    assert_eq!(e("(real)-x"), "(cast real (- x))");
    assert_eq!(e("(int)(float)x"), "(cast int (cast float x))");
    assert_eq!(e("(x)(y)"), "(call x y)");
    assert_eq!(e("(x) + 1"), "(+ x 1)");
    assert_eq!(e("(real) + 1"), "(cast real (+ 1))");
    assert_eq!(
        e("(uint)get_global_id(0)"),
        "(cast uint (call get_global_id 0))"
    );
    assert_eq!(e("(__global float *)p"), "(cast ptr(global float) p)");
    assert_eq!(e("(const __local int *)p"), "(cast ptr(const local int) p)");
    assert_eq!(e("(float *)&x"), "(cast ptr(float) (& x))");
    assert_eq!(e("(int (*)[4])p"), "(cast ptr([4]int) p)");
    assert_eq!(e("(void (*)(int))f"), "(cast ptr(fn(int) -> void) f)");
    assert_eq!(e("(unsigned long)n"), "(cast ulong n)");
    assert_eq!(e("(struct S *)p"), "(cast ptr(struct S) p)");
    assert_eq!(
        e("(float4)(1.0f, 2.0f, 3.0f, 4.0f)"),
        "(lit float4 {1.0f, 2.0f, 3.0f, 4.0f})"
    );
    assert_eq!(e("(float4)(0.0f)"), "(lit float4 {0.0f})");
    assert_eq!(e("(int2)(a, b).x"), "(. (lit int2 {a, b}) x)");
    assert_eq!(
        e("(float4)(a.xy, b.zw) * 2"),
        "(* (lit float4 {(. a xy), (. b zw)}) 2)"
    );
    assert_eq!(e("(vec)(1, 2, 3, 4)"), "(lit vec {1, 2, 3, 4})");
    assert_eq!(e("(vec2)(x)"), "(lit vec2 {x})");
    assert_eq!(e("(int)(a, b)"), "(cast int (, a b))");
    assert_eq!(e("(real)(a)"), "(cast real a)");
    assert_eq!(e("(struct S){1, 2}"), "(lit struct S {1, 2})");
    assert_eq!(e("(struct S){.b = 2}.b"), "(. (lit struct S {.b=2}) b)");
    assert_eq!(e("(int[]){1, 2, 3}[1]"), "([] (lit []int {1, 2, 3}) 1)");
    assert_eq!(e("sizeof (int[]){1, 2}"), "(sizeof (lit []int {1, 2}))");
}

#[test]
fn typedef_names_and_their_scopes() {
    // `T * x;` declares x where T names a type, and multiplies where a variable shadows it.
    let src = "typedef int T;
void f(void) {
  T * x;
  { int T = 2; T * x; { T * y; } }
  T * z;
}
void g(int T) { T * x; }
void h(void) { T T; }
";
    let tu = parse_ok(src);
    let got: Vec<String> = tu.items.iter().map(item).collect();
    assert_eq!(got[0], "decl typedef T: int");
    assert_eq!(
        got[1],
        "fn f: fn() -> void {decl x: ptr(T); {decl T: int = 2; (* T x); {(* T y)}}; decl z: ptr(T)}"
    );
    assert_eq!(got[2], "fn g: fn(T: int) -> void {(* T x)}");
    assert_eq!(got[3], "fn h: fn() -> void {decl T: T}");
    // Parameters are scoped to their prototype.
    assert_eq!(
        dump("typedef int T; void p(int T); T * q;"),
        "decl typedef T: int\ndecl p: fn(T: int) -> void\ndecl q: ptr(T)"
    );
    // A name declared by a block-scope typedef is a type only inside the block.
    assert_eq!(
        body("", "{ typedef float U; U * a; } U * b;"),
        "{{decl typedef U: float; decl a: ptr(U)}; (* U b)}"
    );
    // Enumerators shadow typedef names too.
    assert_eq!(
        body("typedef int E;", "enum { E }; E * x;"),
        "{decl <enum {E}>; (* E x)}"
    );
    // A typedef name used as a label.
    assert_eq!(body("typedef int L;", "L: ;"), "{(label L ;)}");
    // In a `for` header.
    assert_eq!(
        body("typedef int I;", "for (I i = 0; i < 4; i++) ; I * j;"),
        "{(for decl i: I = 0; (< i 4); (post++ i) ;); decl j: ptr(I)}"
    );
}

// ---- declarations ---------------------------------------------------------------------------

#[test]
fn declarator_shapes() {
    assert_eq!(
        dump("int *(*fp)(int);"),
        "decl fp: ptr(fn(int) -> ptr(int))"
    );
    assert_eq!(dump("int (*p)[4];"), "decl p: ptr([4]int)");
    assert_eq!(dump("int *a[3];"), "decl a: [3]ptr(int)");
    assert_eq!(dump("int a[2][3];"), "decl a: [2][3]int");
    assert_eq!(dump("char **argv;"), "decl argv: ptr(ptr(char))");
    assert_eq!(dump("int ((x));"), "decl x: int");
    assert_eq!(
        dump("int (*(*f)(int))[5];"),
        "decl f: ptr(fn(int) -> ptr([5]int))"
    );
    assert_eq!(
        dump("void (*signal(int sig, void (*func)(int)))(int);"),
        "decl signal: fn(sig: int, func: ptr(fn(int) -> void)) -> ptr(fn(int) -> void)"
    );
    assert_eq!(
        dump("void k(__global float * restrict p);"),
        "decl k: fn(p: restrict ptr(global float)) -> void"
    );
    assert_eq!(dump("float __global *q;"), "decl q: ptr(global float)");
    assert_eq!(dump("const int *const r;"), "decl r: const ptr(const int)");
    assert_eq!(dump("int * __local * lp;"), "decl lp: ptr(local ptr(int))");
    assert_eq!(
        dump("int *volatile __restrict v;"),
        "decl v: volatile restrict ptr(int)"
    );
    assert_eq!(
        dump("int a, *b, c[2], (*d)(void);"),
        "decl a: int, b: ptr(int), c: [2]int, d: ptr(fn() -> int)"
    );
    // Parameters: abstract, grouped, unnamed function pointers, (void), (), variadic.
    assert_eq!(dump("void f(void);"), "decl f: fn() -> void");
    assert_eq!(dump("void f();"), "decl f: fn() -> void");
    assert_eq!(
        dump("void f(int, float *, ...);"),
        "decl f: fn(int, ptr(float), ...) -> void"
    );
    assert_eq!(dump("void f(int (x));"), "decl f: fn(x: int) -> void");
    assert_eq!(
        dump("typedef int T; void f(int (T));"),
        "decl typedef T: int\ndecl f: fn(fn(T) -> int) -> void"
    );
    assert_eq!(
        dump("void f(int (*)(float));"),
        "decl f: fn(ptr(fn(float) -> int)) -> void"
    );
    assert_eq!(
        dump("void f(int a[], int b[4]);"),
        "decl f: fn(a: []int, b: [4]int) -> void"
    );
    assert_eq!(dump("void f(void *);"), "decl f: fn(ptr(void)) -> void");
    assert_eq!(
        dump("void f(register int r);"),
        "decl f: fn(r: int) -> void"
    );
    assert_eq!(dump("int x[N + 1];"), "decl x: [(+ N 1)]int");
}

#[test]
fn declaration_specifiers() {
    let d = |s: &str| dump(&format!("{s} x;"));
    assert_eq!(d("unsigned long int"), "decl x: ulong");
    assert_eq!(d("long unsigned"), "decl x: ulong");
    assert_eq!(d("int long"), "decl x: long");
    assert_eq!(d("const int"), "decl x: const int");
    assert_eq!(d("int const"), "decl x: const int");
    assert_eq!(d("signed"), "decl x: int");
    assert_eq!(d("unsigned"), "decl x: uint");
    assert_eq!(d("short int"), "decl x: short");
    assert_eq!(d("unsigned short"), "decl x: ushort");
    assert_eq!(d("int short unsigned"), "decl x: ushort");
    assert_eq!(d("char"), "decl x: char");
    assert_eq!(d("signed char"), "decl x: schar");
    assert_eq!(d("char unsigned"), "decl x: uchar");
    assert_eq!(d("long long"), "decl x: unsupported(long long)");
    assert_eq!(
        d("unsigned long long int"),
        "decl x: unsupported(unsigned long long)"
    );
    assert_eq!(d("long double"), "decl x: unsupported(long double)");
    assert_eq!(d("_Complex float"), "decl x: unsupported(_Complex)");
    assert_eq!(d("uchar"), "decl x: uchar");
    assert_eq!(d("ushort"), "decl x: ushort");
    assert_eq!(d("uint"), "decl x: uint");
    assert_eq!(d("ulong"), "decl x: ulong");
    assert_eq!(d("half"), "decl x: half");
    assert_eq!(d("bool"), "decl x: bool");
    assert_eq!(d("_Bool"), "decl x: bool");
    assert_eq!(d("double"), "decl x: double");
    assert_eq!(d("float4"), "decl x: float4");
    assert_eq!(d("int2"), "decl x: int2");
    assert_eq!(d("uchar16"), "decl x: uchar16");
    assert_eq!(d("double3"), "decl x: double3");
    assert_eq!(d("half8"), "decl x: half8");
    assert_eq!(d("ulong16"), "decl x: ulong16");
    assert_eq!(d("const float8"), "decl x: const float8");
    assert_eq!(d("image2d_t"), "decl x: unsupported(image2d_t)");
    assert_eq!(d("read_only image2d_t"), "decl x: unsupported(image2d_t)");
    assert_eq!(
        d("__write_only image3d_t"),
        "decl x: unsupported(image3d_t)"
    );
    assert_eq!(d("sampler_t"), "decl x: unsupported(sampler_t)");
    assert_eq!(d("event_t"), "decl x: unsupported(event_t)");
    assert_eq!(d("__constant float"), "decl x: constant float");
    assert_eq!(d("constant float"), "decl x: constant float");
    assert_eq!(
        d("static const __constant int"),
        "decl static x: const constant int"
    );
    assert_eq!(d("extern int"), "decl extern x: int");
    assert_eq!(d("volatile __local int"), "decl x: volatile local int");
    assert_eq!(d("private int"), "decl x: private int");
    assert_eq!(d("__private int"), "decl x: private int");
    assert_eq!(d("global int"), "decl x: global int");
    assert_eq!(d("int global"), "decl x: global int");
    // Names that are not OpenCL vector types are just names.
    assert_eq!(
        dump("typedef int float5; float5 x;"),
        "decl typedef float5: int\ndecl x: float5"
    );
    let tu = parse_ok("__kernel void a(void) {} kernel void b(void) {} inline int c(void) { return 0; } static __inline int d(void) { return 1; }");
    let flags: Vec<(bool, bool, Option<Storage>)> = tu
        .items
        .iter()
        .map(|i| match i {
            ExternalDecl::Function(f) => (f.specs.is_kernel, f.specs.is_inline, f.specs.storage),
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        flags,
        [
            (true, false, None),
            (true, false, None),
            (false, true, None),
            (false, true, Some(Storage::Static))
        ]
    );
}

#[test]
fn records_and_enums() {
    assert_eq!(
        dump("struct P { float x, y; int *next; } p;"),
        "decl p: struct P {x: float, y: float; next: ptr(int)}"
    );
    assert_eq!(dump("struct P;"), "decl <struct P>");
    assert_eq!(dump("struct P *q;"), "decl q: ptr(struct P)");
    assert_eq!(
        dump("typedef struct { float4 pos; uint id; } Particle;"),
        "decl typedef Particle: struct {pos: float4; id: uint}"
    );
    assert_eq!(
        dump("union U { int i; float f; };"),
        "decl <union U {i: int; f: float}>"
    );
    assert_eq!(
        dump("struct B { unsigned a : 3, : 2; int b : 1; };"),
        "decl <struct B {a: uint : 3, uint : 2; b: int : 1}>"
    );
    assert_eq!(
        dump("struct O { struct { int a; }; union { int b; float c; }; struct I { int d; } in; };"),
        "decl <struct O {<struct {a: int}>; <union {b: int; c: float}>; in: struct I {d: int}}>"
    );
    assert_eq!(
        dump("struct __attribute__((packed)) S { char c; int i; };"),
        "decl <struct S @packed {c: char; i: int}>"
    );
    assert_eq!(
        dump("struct S { float4 v __attribute__((aligned(16))); } __attribute__((aligned(32)));"),
        "decl <struct S @aligned(32) {v: float4 @aligned(16)}>"
    );
    assert_eq!(
        dump("enum Color { RED, GREEN = 5, BLUE, };"),
        "decl <enum Color {RED, GREEN=5, BLUE}>"
    );
    assert_eq!(dump("enum Color c;"), "decl c: enum Color");
    assert_eq!(
        dump("typedef enum { A = 1 << 2, B = A | 1 } Flags;"),
        "decl typedef Flags: enum {A=(<< 1 2), B=(| A 1)}"
    );
    assert_eq!(
        dump("struct S { int a; }; struct S s;"),
        "decl <struct S {a: int}>\ndecl s: struct S"
    );
    // A struct tag may be spelled like a typedef name.
    assert_eq!(
        dump("typedef struct node node; struct node { node *next; };"),
        "decl typedef node: struct node\ndecl <struct node {next: ptr(node)}>"
    );
}

#[test]
fn attributes() {
    assert_eq!(
        dump("__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void mm(void) {}"),
        "kernel fn mm: fn() -> void @reqd_work_group_size(16, 16, 1) {}"
    );
    assert_eq!(
        dump("__attribute__((work_group_size_hint(64,1,1))) kernel void k(void) {}"),
        "kernel fn k: fn() -> void @work_group_size_hint(64, 1, 1) {}"
    );
    assert_eq!(
        dump("kernel void __attribute__((vec_type_hint(float4))) k(void) {}"),
        "kernel fn k: fn() -> void @vec_type_hint((type float4)) {}"
    );
    assert_eq!(
        dump("void f(int) __attribute__((overloadable)); float g(float) __attribute__((always_inline, noinline));"),
        "decl f: fn(int) -> void @overloadable\ndecl g: fn(float) -> float @always_inline @noinline"
    );
    assert_eq!(
        dump("__local float tile[16] __attribute__((aligned(16)));"),
        "decl tile: [16]local float @aligned(16)"
    );
    assert_eq!(
        dump("int x __attribute__((unused)) = 1, * __attribute__((aligned)) y;"),
        "decl x: int @unused = 1, y: ptr(int) @aligned"
    );
    assert_eq!(
        dump("int __attribute__((__aligned__(8), section(\"s\"), format(printf, 1, 2))) z;"),
        "decl z: int @__aligned__(8) @section(\"s\") @format(printf, 1, 2)"
    );
    assert_eq!(dump("int __attribute__(()) w;"), "decl w: int");
    // Where the tree keeps attributes.
    let tu = parse_ok(
        "__kernel __attribute__((reqd_work_group_size(8,8,1))) void k(__global float *p) {}",
    );
    let ExternalDecl::Function(f) = &tu.items[0] else {
        panic!()
    };
    assert_eq!(f.specs.attributes.len(), 1);
    assert_eq!(f.specs.attributes[0].name, "reqd_work_group_size");
    assert_eq!(f.specs.attributes[0].args.len(), 3);
    // Statement attributes are parsed and ignored with a warning.
    let p = parse_src("void f(void) { __attribute__((opencl_unroll_hint(4))) for (;;) break; }");
    assert_eq!(
        p.rendered(),
        "k.cl:1:31: warning: 'opencl_unroll_hint' attribute ignored\n    1 | void f(void) { __attribute__((opencl_unroll_hint(4))) for (;;) break; }\n      |                               ^~~~~~~~~~~~~~~~~~~~~\n1 warning generated.\n"
    );
}

#[test]
fn initializers() {
    assert_eq!(dump("int a[3] = {1, 2, 3};"), "decl a: [3]int = {1, 2, 3}");
    assert_eq!(dump("int a[] = {1, 2, 3,};"), "decl a: []int = {1, 2, 3}");
    assert_eq!(
        dump("int a[2][2] = {{1, 2}, {3}};"),
        "decl a: [2][2]int = {{1, 2}, {3}}"
    );
    assert_eq!(
        dump("struct P { int x, y; } p = {.y = 2, .x = 1};"),
        "decl p: struct P {x: int, y: int} = {.y=2, .x=1}"
    );
    assert_eq!(
        dump("int a[8] = {[2] = 1, [5] = 2, 3};"),
        "decl a: [8]int = {[2]=1, [5]=2, 3}"
    );
    assert_eq!(
        dump("struct Q { int a[2]; } q = {.a[1] = 4};"),
        "decl q: struct Q {a: [2]int} = {.a[1]=4}"
    );
    assert_eq!(dump("int z = {};"), "decl z: int = {}");
    assert_eq!(
        dump("int a = 1, b = a + 1;"),
        "decl a: int = 1, b: int = (+ a 1)"
    );
    assert_eq!(
        dump("__constant float4 c = (float4)(1.0f, 2.0f, 3.0f, 4.0f);"),
        "decl c: constant float4 = (lit float4 {1.0f, 2.0f, 3.0f, 4.0f})"
    );
    assert_eq!(dump("char s[] = \"ab\" \"c\";"), "decl s: []char = \"abc\"");
}

#[test]
fn function_definitions() {
    assert_eq!(
        dump("int add(int a, int b) { return a + b; }"),
        "fn add: fn(a: int, b: int) -> int {(return (+ a b))}"
    );
    assert_eq!(
        dump("static inline float *pick(__global float *p, int i) { return p + i; }"),
        "static inline fn pick: fn(p: ptr(global float), i: int) -> ptr(float) {(return (+ p i))}"
    );
    let tu = parse_ok("__kernel void k(__global float *out) { out[0] = 1.0f; }\nint y;");
    assert_eq!(tu.items.len(), 2);
    let ExternalDecl::Function(f) = &tu.items[0] else {
        panic!()
    };
    assert!(matches!(f.declarator.derived[0], Derived::Function { .. }));
    assert!(matches!(f.body.kind, StmtKind::Compound(_)));
}

// ---- statements -----------------------------------------------------------------------------

#[test]
fn every_statement_kind() {
    assert_eq!(
        body(
            "",
            "int i = 0; if (i) i = 1; else if (i > 2) { i = 2; } else ;"
        ),
        "{decl i: int = 0; (if i (= i 1) (if (> i 2) {(= i 2)} ;))}"
    );
    assert_eq!(body("", "if (a) if (b) x; else y;"), "{(if a (if b x y))}");
    assert_eq!(
        body("", "while (n--) s += n;"),
        "{(while (post-- n) (+= s n))}"
    );
    assert_eq!(
        body("", "do { n++; } while (n < 10);"),
        "{(do {(post++ n)} (< n 10))}"
    );
    assert_eq!(
        body(
            "",
            "for (int i = 0, j = 1; i < n; i++, j *= 2) { continue; }"
        ),
        "{(for decl i: int = 0, j: int = 1; (< i n); (, (post++ i) (*= j 2)) {continue})}"
    );
    assert_eq!(
        body("", "for (i = 0; ; ) break;"),
        "{(for (= i 0); ;  break)}"
    );
    assert_eq!(body("", "for (;;) {}"), "{(for ; ;  {})}");
    assert_eq!(
        body(
            "",
            "switch (x) { case 0: case 1: y = 1; break; case 2 ... 4: y = 2; default: y = 3; }"
        ),
        "{(switch x {(case 0 (case 1 (= y 1))); break; (case 2...4 (= y 2)); (default (= y 3))})}"
    );
    assert_eq!(
        body("", "goto done; done: return;"),
        "{(goto done); (label done (return))}"
    );
    assert_eq!(body("", "return x * 2;"), "{(return (* x 2))}");
    assert_eq!(body("", ";;"), "{;; ;}");
    assert_eq!(body("", "{ { } }"), "{{{}}}");
    assert_eq!(body("", "f(x), g(y);"), "{(, (call f x) (call g y))}");
    // A label directly before a declaration labels an empty statement (C23), and a label may
    // end a block.
    assert_eq!(
        body("", "switch (x) { case 1: int y = 2; f(y); default: }"),
        "{(switch x {(case 1 ;); decl y: int = 2; (call f y); (default ;)})}"
    );
    assert_eq!(
        body("", "l: m: int z;"),
        "{(label l (label m ;)); decl z: int}"
    );
    assert_eq!(
        body("", "barrier(CLK_LOCAL_MEM_FENCE);"),
        "{(call barrier CLK_LOCAL_MEM_FENCE)}"
    );
    // Attributes before a declaration in a block belong to it.
    assert_eq!(
        body(
            "",
            "__attribute__((aligned(16))) float v[4]; __local int t __attribute__((unused));"
        ),
        "{decl v: [4]float @aligned(16); decl t: local int @unused}"
    );
    // A K&R definition's parameter declarations are dropped (after the error).
    let p = parse_src("int f(a, b) int a; float b; { return a; }");
    assert_eq!(p.diags.list.len(), 1);
    assert_eq!(item(&p.tu.items[0]), "fn f: fn() -> int {(return a)}");
}

// ---- literals -------------------------------------------------------------------------------

fn lit(src: &str) -> ExprKind {
    let tu = parse_ok(&format!("void f(void) {{ {src}; }}"));
    let ExternalDecl::Function(f) = &tu.items[0] else {
        panic!()
    };
    let StmtKind::Compound(items) = &f.body.kind else {
        panic!()
    };
    let BlockItem::Stmt(Stmt {
        kind: StmtKind::Expr(Some(e)),
        ..
    }) = &items[0]
    else {
        panic!()
    };
    e.kind.clone()
}

#[test]
fn literal_values() {
    let int = |s| match lit(s) {
        ExprKind::IntLit {
            value,
            suffix,
            decimal,
        } => (value, suffix.unsigned, suffix.long, decimal),
        other => panic!("{other:?}"),
    };
    assert_eq!(int("42"), (42, false, 0, true));
    assert_eq!(int("0x1fu"), (31, true, 0, false));
    assert_eq!(int("10UL"), (10, true, 1, true));
    assert_eq!(int("0777"), (511, false, 0, false));
    assert_eq!(int("0b101"), (5, false, 0, false));
    assert_eq!(int("5LL"), (5, false, 2, true));
    assert_eq!(
        int("18446744073709551615u"),
        (u64::MAX as u128, true, 0, true)
    );
    assert_eq!(int("2147483648"), (2147483648, false, 0, true));
    let float = |s| match lit(s) {
        ExprKind::FloatLit { text, suffix } => (text, suffix),
        other => panic!("{other:?}"),
    };
    assert_eq!(float("1.5f"), ("1.5".to_string(), FloatSuffix::F));
    assert_eq!(float("2e-3"), ("2e-3".to_string(), FloatSuffix::None));
    assert_eq!(float("0x1.8p3f"), ("0x1.8p3".to_string(), FloatSuffix::F));
    assert_eq!(float("1.0h"), ("1.0".to_string(), FloatSuffix::H));
    assert_eq!(float("3.f"), ("3.".to_string(), FloatSuffix::F));
    let ch = |s| match lit(s) {
        ExprKind::CharLit(v) => v,
        other => panic!("{other:?}"),
    };
    assert_eq!(ch("'a'"), 97);
    assert_eq!(ch(r"'\n'"), 10);
    assert_eq!(ch(r"'\x41'"), 65);
    assert_eq!(ch(r"'\101'"), 65);
    assert_eq!(ch(r"'\xff'"), -1);
    assert_eq!(ch(r"'\0'"), 0);
    assert_eq!(ch(r"'\\'"), 92);
    let s = |s| match lit(s) {
        ExprKind::StrLit(b) => b,
        other => panic!("{other:?}"),
    };
    assert_eq!(s(r#""a\tb\n""#), b"a\tb\n");
    assert_eq!(s(r#""ab" "cd" "\x41""#), b"abcdA");
    assert_eq!(s(r#""\0""#), b"\0");
    assert_eq!(s(r#""""#), b"");
}

#[test]
fn literal_errors() {
    assert_eq!(
        errors("int x = 18446744073709551616;"),
        "k.cl:1:9: error: integer literal is too large\n    1 | int x = 18446744073709551616;\n      |         ^~~~~~~~~~~~~~~~~~~~\n1 error generated.\n"
    );
    let first = |src: &str| {
        let p = parse_src(src);
        let d = &p.diags.list[0];
        let loc = p.sources.loc(d.span.unwrap()).unwrap();
        format!("{}:{} {}", loc.line, loc.col, d.message)
    };
    assert_eq!(
        first("int x = 09;"),
        "1:9 invalid digit '9' in octal constant"
    );
    assert_eq!(
        first("int x = 12abc;"),
        "1:9 invalid suffix 'abc' on integer constant"
    );
    assert_eq!(
        first("float x = 1.5q;"),
        "1:11 invalid suffix 'q' on floating constant"
    );
    assert_eq!(first("float x = 1e;"), "1:11 exponent has no digits");
    assert_eq!(
        first("float x = 0x1.8;"),
        "1:11 hexadecimal floating constant requires an exponent"
    );
    assert_eq!(first("char c = '';"), "1:10 empty character constant");
    assert_eq!(
        first(r"char c = '\x123';"),
        "1:10 hex escape sequence out of range"
    );
    assert_eq!(
        first("char c = L'a';"),
        "1:10 unsupported: wide character literals"
    );
    assert_eq!(
        first(r#"int f(void) { return printf(L"x"); }"#),
        "1:29 unsupported: prefixed (wide or UTF) string literals"
    );
    let p = parse_src("int c = 'ab';");
    assert_eq!(p.diags.list[0].severity, Severity::Warning);
    assert_eq!(
        p.diags.list[0].message,
        "multi-character character constant"
    );
    // One error per bad literal; the rest of the file parses.
    let p = parse_src("int a = 08; int b = 0x; int c = 3;");
    assert_eq!(p.diags.error_count(), 2);
    assert_eq!(p.tu.items.len(), 3);
}

// ---- spans ----------------------------------------------------------------------------------

#[test]
fn spans_cover_the_text() {
    let src = "typedef float real;\n__kernel void k(__global real *out, int n) {\n  int i = (int)get_global_id(0) + 1;\n  if (i < n) { out[i] = (real)(i * 2); }\n}\n";
    let p = parse_src(src);
    assert!(p.diags.is_empty(), "{}", p.rendered());
    let ExternalDecl::Declaration(td) = &p.tu.items[0] else {
        panic!()
    };
    assert_eq!(p.snippet(td.span), "typedef float real;");
    assert_eq!(p.snippet(td.specs.span), "typedef float");
    let ExternalDecl::Function(f) = &p.tu.items[1] else {
        panic!()
    };
    assert_eq!(p.snippet(f.span), &src[20..src.len() - 1]);
    assert_eq!(p.snippet(f.specs.span), "__kernel void");
    assert_eq!(p.snippet(f.declarator.span), "k(__global real *out, int n)");
    let Derived::Function { params, .. } = &f.declarator.derived[0] else {
        panic!()
    };
    assert_eq!(p.snippet(params[0].span), "__global real *out");
    assert_eq!(p.snippet(params[0].declarator.span), "*out");
    assert_eq!(
        p.snippet(params[0].declarator.name.as_ref().unwrap().1),
        "out"
    );
    let StmtKind::Compound(items) = &f.body.kind else {
        panic!()
    };
    assert_eq!(p.snippet(f.body.span), &src[63..src.len() - 1]);
    let BlockItem::Decl(d) = &items[0] else {
        panic!()
    };
    assert_eq!(p.snippet(d.span), "int i = (int)get_global_id(0) + 1;");
    let Some(Initializer::Expr(e)) = &d.declarators[0].init else {
        panic!()
    };
    assert_eq!(p.snippet(e.span), "(int)get_global_id(0) + 1");
    let ExprKind::Binary(_, cast, one) = &e.kind else {
        panic!()
    };
    assert_eq!(p.snippet(cast.span), "(int)get_global_id(0)");
    assert_eq!(p.snippet(one.span), "1");
    let ExprKind::Cast(ty, call) = &cast.kind else {
        panic!()
    };
    assert_eq!(p.snippet(ty.span), "int");
    assert_eq!(p.snippet(call.span), "get_global_id(0)");
    let BlockItem::Stmt(s) = &items[1] else {
        panic!()
    };
    assert_eq!(p.snippet(s.span), "if (i < n) { out[i] = (real)(i * 2); }");
    let StmtKind::If { cond, then, .. } = &s.kind else {
        panic!()
    };
    assert_eq!(p.snippet(cond.span), "i < n");
    let StmtKind::Compound(inner) = &then.kind else {
        panic!()
    };
    let BlockItem::Stmt(Stmt {
        kind: StmtKind::Expr(Some(a)),
        span,
    }) = &inner[0]
    else {
        panic!()
    };
    assert_eq!(p.snippet(*span), "out[i] = (real)(i * 2);");
    assert_eq!(p.snippet(a.span), "out[i] = (real)(i * 2)");
    let ExprKind::Assign { rhs, .. } = &a.kind else {
        panic!()
    };
    // The parentheses of `(i * 2)` belong to the cast, not to the product.
    assert_eq!(p.snippet(rhs.span), "(real)(i * 2)");
    let ExprKind::Cast(_, product) = &rhs.kind else {
        panic!()
    };
    assert_eq!(p.snippet(product.span), "i * 2");
}

#[test]
fn expressions_carry_their_first_tokens_expansion() {
    // `x + ONE;` where ONE came out of a macro expansion: the expansion of the literal is
    // kept, and an error in the expansion names it.
    let src = "void f(void) { x + ONE; ONE ONE; }";
    let mut sources = SourceMap::new();
    let file = sources.add_file("k.cl", src, false);
    let mut toks = lex(file, src);
    let expn = ExpnId(7);
    for t in toks.iter_mut().filter(|t| t.text == "ONE") {
        t.kind = TokenKind::Int;
        t.text = "1".into();
        t.expansion = Some(expn);
    }
    let mut diags = Diagnostics::new();
    let tu = parse(&toks, &mut diags);
    let ExternalDecl::Function(f) = &tu.items[0] else {
        panic!()
    };
    let StmtKind::Compound(items) = &f.body.kind else {
        panic!()
    };
    let BlockItem::Stmt(Stmt {
        kind: StmtKind::Expr(Some(e)),
        ..
    }) = &items[0]
    else {
        panic!()
    };
    let ExprKind::Binary(_, x, one) = &e.kind else {
        panic!()
    };
    assert_eq!(x.expansion, None);
    assert_eq!(one.expansion, Some(expn));
    // The sum starts outside the macro; its span is its first token's alone, as the last
    // token's span is in the macro's definition.
    assert_eq!(e.expansion, None);
    assert_eq!(diags.list.len(), 1);
    assert_eq!(diags.list[0].message, "expected ';' after expression");
    assert_eq!(diags.list[0].expansion, Some(expn));
}

// ---- errors ---------------------------------------------------------------------------------

#[test]
fn clang_worded_errors_at_the_right_place() {
    assert_eq!(
        errors("void f(void) {\n  int x = 1\n  x = 2;\n}\n"),
        "k.cl:2:12: error: expected ';' at end of declaration\n    2 |   int x = 1\n      |            ^\n1 error generated.\n"
    );
    assert_eq!(
        errors("void f(void) {\n  x = 1\n  y = 2;\n}\n"),
        "k.cl:2:8: error: expected ';' after expression\n    2 |   x = 1\n      |        ^\n1 error generated.\n"
    );
    assert_eq!(
        errors("void f(void) { x = (a + b; }"),
        "k.cl:1:26: error: expected ')'\n    1 | void f(void) { x = (a + b; }\n      |                          ^\nk.cl:1:20: note: to match this '('\n    1 | void f(void) { x = (a + b; }\n      |                    ^\n1 error generated.\n"
    );
    assert_eq!(
        errors("void f(void) { x = ; }"),
        "k.cl:1:20: error: expected expression\n    1 | void f(void) { x = ; }\n      |                    ^\n1 error generated.\n"
    );
    assert_eq!(
        errors("__kernel void k(__global flaot *p) {}"),
        "k.cl:1:26: error: unknown type name 'flaot'\n    1 | __kernel void k(__global flaot *p) {}\n      |                          ^~~~~\n1 error generated.\n"
    );
    assert_eq!(
        errors("void f(void) {\n  flaot x = 1.0f;\n}\n"),
        "k.cl:2:3: error: unknown type name 'flaot'\n    2 |   flaot x = 1.0f;\n      |   ^~~~~\n1 error generated.\n"
    );
    assert_eq!(
        errors("void f(void) { return 1 }"),
        "k.cl:1:24: error: expected ';' after return statement\n    1 | void f(void) { return 1 }\n      |                        ^\n1 error generated.\n"
    );
    assert_eq!(
        errors("void f(void) {\n  g(1);\n"),
        "k.cl:3:1: error: expected '}'\n    3 | \n      | ^\nk.cl:1:14: note: to match this '{'\n    1 | void f(void) {\n      |              ^\n1 error generated.\n"
    );
    let msgs = |src: &str| -> Vec<String> {
        let p = parse_src(src);
        p.diags
            .list
            .iter()
            .map(|d| {
                let loc = p.sources.loc(d.span.unwrap()).unwrap();
                format!("{}:{} {}", loc.line, loc.col, d.message)
            })
            .collect()
    };
    assert_eq!(
        msgs("int x"),
        ["1:6 expected ';' after top level declarator"]
    );
    assert_eq!(msgs("int 3;"), ["1:5 expected identifier or '('"]);
    assert_eq!(msgs("}"), ["1:1 extraneous closing brace ('}')"]);
    assert_eq!(
        msgs("x = 3;"),
        ["1:1 type specifier missing, defaults to 'int'"]
    );
    assert_eq!(
        msgs("int float x;"),
        ["1:5 cannot combine with previous 'int' declaration specifier"]
    );
    assert_eq!(
        msgs("unsigned float x;"),
        ["1:10 cannot combine with previous 'unsigned' declaration specifier"]
    );
    assert_eq!(
        msgs("long long long x;"),
        ["1:11 'long long long' is invalid"]
    );
    assert_eq!(
        msgs("static extern int x;"),
        ["1:8 cannot combine with previous 'static' declaration specifier"]
    );
    assert_eq!(
        msgs("float4 int x;"),
        ["1:8 cannot combine with previous 'float4' declaration specifier"]
    );
    assert_eq!(
        msgs("__global __local int x;"),
        ["1:10 multiple address spaces specified for type"]
    );
    assert_eq!(
        msgs("read_only int x;"),
        ["1:1 access qualifier can only be used for pipe and image type"]
    );
    assert_eq!(
        msgs("void f(void) { if x) y; }"),
        ["1:19 expected '(' after 'if'"]
    );
    assert_eq!(msgs("void f(void) { while (x y; }"), ["1:25 expected ')'"]);
    assert_eq!(
        msgs("void f(void) { do x++; (x); }"),
        ["1:24 expected 'while' in do/while loop"]
    );
    assert_eq!(
        msgs("void f(void) { do x++; while (x) }"),
        ["1:33 expected ';' after do/while statement"]
    );
    assert_eq!(
        msgs("void f(void) { for (i = 0 i < 3; i++) ; }"),
        ["1:26 expected ';' in 'for' statement specifier"]
    );
    assert_eq!(
        msgs("void f(void) { switch (x) { case 1 break; } }"),
        ["1:35 expected ':' after 'case'"]
    );
    assert_eq!(
        msgs("void f(void) { switch (x) { case 1; break; } }"),
        ["1:35 expected ':' after 'case'"]
    );
    assert_eq!(
        msgs("void f(void) { switch (x) { default break; } }"),
        ["1:36 expected ':' after 'default'"]
    );
    assert_eq!(
        msgs("void f(void) { break }"),
        ["1:21 expected ';' after break statement"]
    );
    assert_eq!(
        msgs("void f(void) { continue }"),
        ["1:24 expected ';' after continue statement"]
    );
    assert_eq!(
        msgs("void f(void) { goto 3; }"),
        ["1:21 expected identifier"]
    );
    assert_eq!(
        msgs("void f(void) { goto *p; }"),
        ["1:21 unsupported: computed goto"]
    );
    assert_eq!(msgs("void f(void) { a->3; }"), ["1:19 expected identifier"]);
    assert_eq!(msgs("void f(void) { a.if; }"), ["1:18 expected identifier"]);
    assert_eq!(msgs("void f(void) { x = a ? b; }"), ["1:25 expected ':'"]);
    assert_eq!(
        msgs("void f(void) { x = a ?: b; }"),
        ["1:22 unsupported: conditional operator with omitted middle operand"]
    );
    assert_eq!(
        msgs("void f(void) { x = ({ 1; }); }"),
        ["1:20 unsupported: statement expressions"]
    );
    assert_eq!(msgs("void f(void) { x = a[1; }"), ["1:23 expected ']'"]);
    assert_eq!(
        msgs("void f(void) { x = sizeof(int; }"),
        ["1:30 expected ')'"]
    );
    assert_eq!(
        msgs("void f(void) { x = __alignof__ y; }"),
        ["1:20 unsupported: '__alignof__' of an expression"]
    );
    assert_eq!(
        msgs("void f(void) { if (x) int y = 1; }"),
        ["1:23 expected expression"]
    );
    assert_eq!(
        msgs("void f(void) { x = int; }"),
        ["1:20 expected expression"]
    );
    assert_eq!(
        msgs("void f(void) { else x; }"),
        ["1:16 expected expression"]
    );
    assert_eq!(
        msgs("int f(a, b) int a; int b; { return a + b; }"),
        ["1:7 unsupported: K&R-style (identifier list) parameters"]
    );
    assert_eq!(
        msgs("void f(int a, 3);"),
        ["1:15 expected parameter declarator"]
    );
    assert_eq!(
        msgs("void f(static int a);"),
        ["1:8 invalid storage class specifier in function declarator"]
    );
    assert_eq!(
        msgs("int a[*];"),
        ["1:7 unsupported: variable length arrays"]
    );
    assert_eq!(
        msgs("void f(int a[static 4]);"),
        ["1:14 unsupported: qualifiers or 'static' in array parameters"]
    );
    assert_eq!(
        msgs("struct { int a; }\n__kernel void k(void) {}"),
        ["1:18 expected ';' after struct"]
    );
    assert_eq!(
        msgs("struct S { int a }; int y;"),
        ["1:17 expected ';' at end of declaration list"]
    );
    assert_eq!(
        parse_src("struct S { int a }; int y;").diags.list[0].severity,
        Severity::Warning
    );
    assert_eq!(
        msgs("struct S { int a int b; };"),
        ["1:17 expected ';' at end of declaration list"]
    );
    assert_eq!(msgs("struct S { x; };"), ["1:12 unknown type name 'x'"]);
    assert_eq!(
        msgs("struct S { 3; };"),
        ["1:12 type name requires a specifier or qualifier"]
    );
    assert_eq!(
        msgs("struct;"),
        ["1:7 declaration of anonymous struct must be a definition"]
    );
    assert_eq!(msgs("int x = {1, 2;"), ["1:14 expected '}'"]);
    assert_eq!(
        msgs("int a[2] = {[0] 1};"),
        ["1:17 expected '=' or another designator"]
    );
    assert_eq!(
        msgs("int a[2] = {[0 ... 1] = 1};"),
        ["1:16 unsupported: array range designators"]
    );
    assert_eq!(
        msgs("int f(void) int x;"),
        ["1:12 expected ';' after top level declarator"]
    );
    assert_eq!(
        msgs("void f(void) { void g(void) {} }"),
        ["1:29 function definition is not allowed here"]
    );
    assert_eq!(
        msgs("int __attribute__(x) y;"),
        ["1:19 expected '(' after '__attribute__'"]
    );
    assert_eq!(
        msgs("int __attribute__((3)) y;"),
        ["1:20 expected identifier"]
    );
    assert_eq!(msgs("typeof(x) y;"), ["1:1 unsupported: typeof"]);
    assert_eq!(msgs("int x asm(\"r\");"), ["1:7 unsupported: asm labels"]);
    assert_eq!(
        msgs("const x = 1;"),
        ["1:1 type specifier missing, defaults to 'int'"]
    );
    assert_eq!(
        msgs("int const const x;"),
        ["1:11 duplicate 'const' declaration specifier"]
    );
}

#[test]
fn recovery_reports_every_error() {
    let src = "__kernel void k(__global float *out, int n) {
  int i = get_global_id(0)
  float x = out[i];
  if (i < n {
    out[i] = x * ;
  }
  flaot y = 2.0f;
  for (int j = 0; j < n; j++) {
    out[j] += y
  }
  while (x = = 1) x--;
}
int ok(void) { return 1; }
struct S { int a; float b };
__kernel void k2(void) { int z = (1 + 2; return; }
";
    let p = parse_src(src);
    let got: Vec<String> = p
        .diags
        .list
        .iter()
        .map(|d| {
            let loc = p.sources.loc(d.span.unwrap()).unwrap();
            format!("{}:{} {}", loc.line, loc.col, d.message)
        })
        .collect();
    assert_eq!(
        got,
        [
            "2:27 expected ';' at end of declaration",
            "4:13 expected ')'",
            "5:18 expected expression",
            "7:3 unknown type name 'flaot'",
            "9:16 expected ';' after expression",
            "11:14 expected expression",
            "14:26 expected ';' at end of declaration list",
            "15:40 expected ')'",
        ]
    );
    // Everything around the errors is still there.
    let names: Vec<String> =
        p.tu.items
            .iter()
            .map(|i| match i {
                ExternalDecl::Function(f) => f.declarator.name.as_ref().unwrap().0.clone(),
                ExternalDecl::Declaration(d) => format!("<{}>", specs(&d.specs)),
            })
            .collect();
    assert_eq!(names, ["k", "ok", "<struct S {a: int; b: float}>", "k2"]);
    let ExternalDecl::Function(k) = &p.tu.items[0] else {
        panic!()
    };
    let StmtKind::Compound(items) = &k.body.kind else {
        panic!()
    };
    // `int i` and `float x` (a type keyword after a missing `;` begins the next
    // declaration), `if`, `flaot y`, `for`, `while`.
    assert_eq!(items.len(), 6, "{}", stmt(&k.body));
    assert!(stmt(&k.body).starts_with(
        "{decl i: int = (call get_global_id 0); decl x: float = ([] out i); (if (< i n) {;});"
    ));
    assert!(stmt(&k.body).contains("decl y: int = 2.0f"));
    assert!(stmt(&k.body).contains("(for decl j: int = 0"));

    // Without the missing `;` assumed, the statement after it is skipped, as clang does.
    let p = parse_src("void f(void) { int i = 0\n i = 2; x = ; }");
    let got: Vec<&str> = p.diags.list.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        got,
        ["expected ';' at end of declaration", "expected expression"]
    );
    // A broken attribute is skipped, and its declaration kept.
    let p = parse_src("typedef struct __attribute__((aligned(4)) { int a; } A; A a;");
    let got: Vec<&str> = p.diags.list.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(got, ["expected ')'"]);
    assert_eq!(p.tu.items.len(), 2);
    // Broken top-level declarations do not swallow the next function.
    let p = parse_src("int x y\n__kernel void k(void) { int q = ; }\nint z;");
    let got: Vec<&str> = p.diags.list.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        got,
        [
            "expected ';' after top level declarator",
            "expected expression"
        ]
    );
    assert_eq!(p.tu.items.len(), 3);
}

// ---- robustness -----------------------------------------------------------------------------

/// Sources nesting each recursive construct `n` levels deep.
fn nested_sources(n: usize) -> Vec<(&'static str, String)> {
    let ops = "a || b && c | d ^ e & f == g < h << i + j * ";
    vec![
        (
            "parentheses",
            format!("int x = {}1{};", "(".repeat(n), ")".repeat(n)),
        ),
        (
            "operators",
            format!("int x = {}1{};", format!("{ops}(").repeat(n), ")".repeat(n)),
        ),
        (
            "blocks",
            format!("void f(void) {{ {}{} }}", "{".repeat(n), "}".repeat(n)),
        ),
        (
            "ifs",
            format!("void f(void) {{ {} x; }}", "if (a) ".repeat(n)),
        ),
        (
            "declarators",
            format!("int {}x{};", "(".repeat(n), ")".repeat(n)),
        ),
        ("casts", format!("int x = {}1;", "(int)".repeat(n))),
        ("unary", format!("int x = {}1;", "- ".repeat(n))),
        (
            "initializers",
            format!("int x = {}1{};", "{".repeat(n), "}".repeat(n)),
        ),
        (
            "conditionals",
            format!("int x = {}1;", "a ? b : ".repeat(n)),
        ),
        ("assignments", format!("int x = {}1;", "a = ".repeat(n))),
        (
            "calls",
            format!("int x = {}1{};", "f(".repeat(n), ")".repeat(n)),
        ),
        (
            "subscripts",
            format!("int x = a{}1{};", "[a".repeat(n), "]".repeat(n)),
        ),
        (
            "parameters",
            format!("void f({}int{});", "void (*)(".repeat(n), ")".repeat(n)),
        ),
        (
            "structs",
            format!("{}int x;{}", "struct { ".repeat(n), " } y;".repeat(n)),
        ),
    ]
}

#[test]
fn nesting_limits_are_errors() {
    // Nesting just below the limit parses (on any caller's stack: this test thread's is
    // small), nesting beyond it is one error and no stack overflow.
    for (what, src) in nested_sources(120) {
        let p = parse_src(&src);
        // Ten operators per level make a tree ten times as tall as the nesting.
        if what == "operators" {
            assert_eq!(
                p.diags.list[0].message,
                "expression is too complex (more than 1024 nested operations)"
            );
            continue;
        }
        assert!(p.diags.is_empty(), "{what}: {}", p.rendered());
    }
    assert!(parse_src(&nested_sources(100)[1].1).diags.is_empty());
    // The parser runs on a stack of its own: a caller with a small stack can parse (and
    // drop) what nests up to the limit.
    let small = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            for (what, src) in nested_sources(120) {
                let p = parse_src(&src);
                if what != "operators" {
                    assert!(p.diags.is_empty(), "{what}: {}", p.rendered());
                }
            }
        })
        .unwrap();
    small.join().unwrap();
    for (what, src) in nested_sources(100_000) {
        let p = parse_src(&src);
        assert_eq!(p.diags.list.len(), 1, "{what}");
        assert_eq!(
            p.diags.list[0].message, "nesting level exceeded maximum of 256",
            "{what}"
        );
    }
    // Long left-associative chains are flat loops in the parser, but the tree they build is
    // as tall as they are long.
    assert!(parse_src(&format!("int x = a{};", " + a".repeat(900)))
        .diags
        .is_empty());
    for chain in [" + a", "[0]", ".x", "++", "(1)", " * a", " && a"] {
        let p = parse_src(&format!("int x = a{};", chain.repeat(100_000)));
        assert_eq!(p.diags.list.len(), 1, "{chain}");
        assert_eq!(
            p.diags.list[0].message,
            "expression is too complex (more than 1024 nested operations)"
        );
    }
    let p = parse_src(&format!("void f(void) {{ a{}; }}", ", a".repeat(100_000)));
    assert_eq!(p.diags.list.len(), 1);
    // A chain whose first operand is itself a tall chain is as tall as both together.
    let half = format!("a{}", " + a".repeat(600));
    assert!(parse_src(&format!("int x = {half};")).diags.is_empty());
    let p = parse_src(&format!("int x = ({half}){};", "[0]".repeat(600)));
    assert_eq!(p.diags.list.len(), 1);
    let p = parse_src(&format!("int x = ({half}) * 2{};", " - a".repeat(600)));
    assert_eq!(p.diags.list.len(), 1);
    let p = parse_src(&format!(
        "int x = (int[{half}]){{0}}{};",
        " - a".repeat(600)
    ));
    assert_eq!(p.diags.list.len(), 1);
    // The error ends the statement only: the next one is parsed.
    let p = parse_src(&format!(
        "void f(void) {{ x = a{}; y = ; }}",
        " + a".repeat(2000)
    ));
    let got: Vec<&str> = p.diags.list.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        got,
        [
            "expression is too complex (more than 1024 nested operations)",
            "expected expression"
        ]
    );
    // Long flat lists are fine.
    let list = vec!["1"; 100_000].join(", ");
    assert!(parse_src(&format!("int x[] = {{{list}}};"))
        .diags
        .is_empty());
    let stmts = "x = x + 1; ".repeat(100_000);
    assert!(parse_src(&format!("void f(void) {{ {stmts} }}"))
        .diags
        .is_empty());
}

/// A deterministic generator (xorshift) so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

#[test]
fn token_soup_never_panics_or_hangs() {
    let words = [
        "int",
        "float4",
        "typedef",
        "T",
        "x",
        "y",
        "struct",
        "union",
        "enum",
        "S",
        "__global",
        "const",
        "*",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ";",
        ",",
        "=",
        "+",
        "-",
        "?",
        ":",
        "...",
        "if",
        "else",
        "for",
        "while",
        "do",
        "switch",
        "case",
        "default",
        "return",
        "break",
        "goto",
        "sizeof",
        "vec_step",
        "__attribute__",
        "__kernel",
        "void",
        "1",
        "0x1fu",
        "1.5f",
        "'a'",
        "\"s\"",
        "1e",
        "08",
        "''",
        "->",
        ".",
        "++",
        "&&",
        "<<=",
        "unsigned",
        "long",
        "static",
        "restrict",
        "read_only",
        "image2d_t",
        "_Alignof",
        "__extension__",
        "asm",
    ];
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for round in 0..3000 {
        let n = (rng.next() % 60) as usize;
        let mut src = String::new();
        // Half the rounds start from a valid prefix so that deeper states are reached.
        if round % 2 == 0 {
            src += "typedef int T; __kernel void k(__global float *p) { ";
        }
        for _ in 0..n {
            src += rng.pick(&words);
            src += " ";
        }
        let p = parse_src(&src);
        // Every error is located inside the text.
        for d in &p.diags.list {
            let s = d.span.unwrap();
            assert!(s.lo <= s.hi && s.hi as usize <= src.len(), "{src}");
        }
    }
    // Empty input and input without an end token.
    assert!(parse_src("").tu.items.is_empty());
    let mut diags = Diagnostics::new();
    assert!(parse(&[], &mut diags).items.is_empty());
    let toks = lex(FileId(0), "int x");
    let tu = parse(&toks[..toks.len() - 1], &mut diags);
    assert_eq!(tu.items.len(), 1);
}

// ---- real kernels ---------------------------------------------------------------------------

/// A tiled matrix multiply in the style of the vendor SDK samples.
const SGEMM: &str = r#"
typedef ulong size_t;
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void matmul(__global const float * restrict A,
            __global const float * restrict B,
            __global float *C, const int N)
{
    __local float As[16][16];
    __local float Bs[16][16];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int row = get_group_id(1) * 16 + ty;
    const int col = get_group_id(0) * 16 + tx;
    float acc = 0.0f;
    for (int t = 0; t < N / 16; ++t) {
        As[ty][tx] = A[row * N + t * 16 + tx];
        Bs[ty][tx] = B[(t * 16 + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; ++k)
            acc = mad(As[ty][k], Bs[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < N && col < N)
        C[row * N + col] = acc;
}
"#;

/// A reduction in shared memory, as in the SDK's reduction sample.
const REDUCE: &str = r#"
typedef ulong size_t;
__kernel void reduce(__global const float *in, __global float *out,
                     __local float *scratch, unsigned int n)
{
    unsigned int tid = get_local_id(0);
    size_t i = get_group_id(0) * (get_local_size(0) * 2) + get_local_id(0);
    float sum = (i < n) ? in[i] : 0;
    if (i + get_local_size(0) < n)
        sum += in[i + get_local_size(0)];
    scratch[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (unsigned int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (tid < s)
            scratch[tid] = sum = sum + scratch[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = scratch[0];
}
"#;

/// Structs, vector types, a helper function and a switch, in the style of Rodinia/SHOC.
const PARTICLES: &str = r#"
typedef ulong size_t;
typedef struct {
    float4 pos;
    float4 vel;
    int    kind;
} Particle;

typedef struct __attribute__((packed)) { uchar r, g, b, a; } Pixel;

enum { GAS = 0, DUST = 1, ICE };

__constant float damping[3] = { 0.99f, 0.95f, 0.9f };

inline float4 step_pos(float4 p, float4 v, float dt) {
    return p + v * (float4)(dt, dt, dt, 0.0f);
}

__kernel void advance(__global Particle *ps, __global Pixel *img, const float dt, const uint n)
{
    const size_t gid = get_global_id(0);
    if (gid >= n) return;
    Particle p = ps[gid];
    p.pos = step_pos(p.pos, p.vel, dt);
    switch (p.kind) {
    case GAS:  p.vel *= damping[GAS]; break;
    case DUST: p.vel.xyz = -p.vel.xyz; /* bounce */ break;
    default:   p.vel = (float4)(0.0f); break;
    }
    ps[gid] = p;
    __global Pixel *px = &img[gid];
    px->r = (uchar)clamp(p.pos.x * 255.0f, 0.0f, 255.0f);
    px->a = 0xffu;
    int2 cell = convert_int2(p.pos.xy) >> 4;
    ulong key = ((ulong)cell.y << 32) | (uint)cell.x;
    (void)key;
}
"#;

/// A stencil with a 2D local tile and halo, in the style of PolyBench/GPU and Rodinia hotspot.
const STENCIL: &str = r#"
typedef ulong size_t;
__kernel void jacobi(__global const float *restrict a, __global float *restrict b, int n)
{
    int i = get_global_id(1), j = get_global_id(0);
    __local float tile[18][18];
    int li = get_local_id(1) + 1, lj = get_local_id(0) + 1;
    tile[li][lj] = (i < n && j < n) ? a[i * n + j] : 0.0f;
    if (get_local_id(0) == 0 && j > 0) tile[li][0] = a[i * n + j - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
        b[i * n + j] = 0.2f * (tile[li][lj] + tile[li - 1][lj] + tile[li + 1][lj]
                               + tile[li][lj - 1] + tile[li][lj + 1]);
    }
    do { i -= 1; } while (i > 0);
    int k;
    for (k = 0; k < 4; k++) { if (k == 2) continue; b[k] += 1.0f; }
}
"#;

#[test]
fn real_kernels_parse() {
    for src in [SGEMM, REDUCE, PARTICLES, STENCIL] {
        parse_ok(src);
    }
    let tu = parse_ok(SGEMM);
    let ExternalDecl::Function(f) = &tu.items[1] else {
        panic!()
    };
    assert!(f.specs.is_kernel);
    assert_eq!(
        declarator(&f.specs, &f.declarator),
        "matmul: fn(A: restrict ptr(const global float), B: restrict ptr(const global float), C: ptr(global float), N: const int) -> void @reqd_work_group_size(16, 16, 1)"
    );
    let b = stmt(&f.body);
    assert!(b.starts_with("{decl As: [16][16]local float; decl Bs: [16][16]local float; decl tx: const int = (call get_local_id 0), ty: const int = (call get_local_id 1);"), "{b}");
    assert!(b.contains("(for decl k: int = 0; (< k 16); (++ k) (= acc (call mad ([] ([] As ty) k) ([] ([] Bs k) tx) acc)))"), "{b}");
    assert!(b.contains("(call barrier CLK_LOCAL_MEM_FENCE)"));

    let tu = parse_ok(PARTICLES);
    let got: Vec<String> = tu.items[1..].iter().map(item).collect();
    assert_eq!(
        got[0],
        "decl typedef Particle: struct {pos: float4; vel: float4; kind: int}"
    );
    assert_eq!(
        got[1],
        "decl typedef Pixel: struct @packed {r: uchar, g: uchar, b: uchar, a: uchar}"
    );
    assert_eq!(got[2], "decl <enum {GAS=0, DUST=1, ICE}>");
    assert_eq!(
        got[3],
        "decl damping: [3]constant float = {0.99f, 0.95f, 0.9f}"
    );
    assert_eq!(
        got[4],
        "inline fn step_pos: fn(p: float4, v: float4, dt: float) -> float4 {(return (+ p (* v (lit float4 {dt, dt, dt, 0.0f}))))}"
    );
    assert!(got[5].contains("(switch (. p kind) {(case GAS (*= (. p vel) ([] damping GAS))); break; (case DUST (= (. (. p vel) xyz) (- (. (. p vel) xyz)))); break; (default (= (. p vel) (lit float4 {0.0f}))); break})"), "{}", got[5]);
    assert!(got[5].contains("(= (-> px r) (cast uchar (call clamp"));
    assert!(got[5]
        .contains("decl key: ulong = (| (<< (cast ulong (. cell y)) 32) (cast uint (. cell x)))"));
    assert!(got[5].contains("(cast void key)"));
}
