//! The preprocessor: the C99 standard's examples, every directive, the predefined macros,
//! located diagnostics with macro notes, and robustness against hostile input.

use std::path::PathBuf;
use warpkit_cc::diag::{Diagnostics, Severity};
use warpkit_cc::pp::{preprocess, Options};
use warpkit_cc::source::SourceMap;
use warpkit_cc::token::{Token, TokenKind};

struct Out {
    sources: SourceMap,
    tokens: Vec<Token>,
    diags: Diagnostics,
}

impl Out {
    /// The tokens of the user's program (not the prelude's own), spelled and joined by
    /// spaces.
    fn text(&self) -> String {
        self.user_tokens()
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn user_tokens(&self) -> Vec<&Token> {
        self.tokens
            .iter()
            .filter(|t| t.kind != TokenKind::Eof)
            .filter(|t| !self.sources.file(self.outermost(t)).builtin)
            .collect()
    }

    /// The file a token comes from as the user sees it: where its outermost macro
    /// invocation is, or where it is spelled.
    fn outermost(&self, t: &Token) -> warpkit_cc::source::FileId {
        let mut at = t.span;
        let mut e = t.expansion;
        while let Some(id) = e {
            let x = self.sources.expansion(id);
            at = x.call_site;
            e = x.parent;
        }
        at.file
    }

    /// `severity: message` of every diagnostic.
    fn messages(&self) -> Vec<String> {
        self.diags
            .list
            .iter()
            .map(|d| {
                let s = match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Note => "note",
                };
                format!("{s}: {}", d.message)
            })
            .collect()
    }

    fn errors(&self) -> Vec<String> {
        self.messages()
            .into_iter()
            .filter(|m| m.starts_with("error"))
            .collect()
    }

    fn render(&self) -> String {
        self.diags.render(&self.sources)
    }

    /// `file:line:col` of each diagnostic.
    fn locations(&self) -> Vec<String> {
        self.diags
            .list
            .iter()
            .map(|d| {
                d.span
                    .and_then(|s| self.sources.loc(s))
                    .map_or("-".to_string(), |l| l.to_string())
            })
            .collect()
    }
}

fn run_with(src: &str, opts: &Options) -> Out {
    run_named("k.cl", src, opts)
}

fn run_named(name: &str, src: &str, opts: &Options) -> Out {
    let mut sources = SourceMap::new();
    let main = sources.add_file(name, src, false);
    let mut diags = Diagnostics::new();
    let tokens = preprocess(&mut sources, main, opts, &mut diags);
    assert_eq!(tokens.last().map(|t| &t.kind), Some(&TokenKind::Eof));
    assert_eq!(
        tokens.iter().filter(|t| t.kind == TokenKind::Eof).count(),
        1,
        "one Eof"
    );
    Out {
        sources,
        tokens,
        diags,
    }
}

fn run(src: &str) -> Out {
    run_with(src, &Options::default())
}

/// `src` preprocessed without diagnostics, as text.
fn clean(src: &str) -> String {
    let out = run(src);
    assert!(out.diags.is_empty(), "{}", out.render());
    out.text()
}

/// Preprocessing `src` gives the tokens of `expected` (spacing ignored).
#[track_caller]
fn same(src: &str, expected: &str) {
    assert_eq!(clean(src), clean(expected));
}

// ---------------------------------------------------------------------------------------
// C99 §6.10.3.5's examples and §6.10.3.4's.

#[test]
fn c99_example_3_redefinition_and_rescanning() {
    same(
        r#"#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
"#,
        r#"f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
int i[] = { 1, 23, 4, 5, };
char c[2][6] = { "hello", "" };
"#,
    );
}

#[test]
fn c99_example_4_stringizing_and_pasting() {
    let dir = TempDir::new("example4");
    dir.write("vers2.h", "included_from_vers2\n");
    let main = dir.write(
        "k.cl",
        r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: @\n), s);
#include xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
xstr(INCFILE(2).h)
"#,
    );
    let out = run_file(&main, &Options::default());
    assert!(out.diags.is_empty(), "{}", out.render());
    assert_eq!(
        out.text(),
        clean(
            r#"printf("x" "1" "= %d, x" "2" "= %s", x1, x2);
fputs("strncmp(\"abc\\0d\", \"abc\", '\\4') == 0" ": @\n", s);
included_from_vers2
"hello";
"hello" ", world"
"vers2.h"
"#
        )
    );
}

#[test]
fn c99_example_5_placemarkers() {
    same(
        "#define t(x,y,z) x ## y ## z\n\
         int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),\n\
         t(10,,), t(,11,), t(,,12), t(,,) };\n",
        "int j[] = { 123, 45, 67, 89, 10, 11, 12, };",
    );
}

#[test]
fn c99_example_6_redefinitions() {
    let valid = run("#define OBJ_LIKE (1-1)\n\
         #define OBJ_LIKE /* white space */ (1-1) /* other */\n\
         #define FTN_LIKE(a) ( a )\n\
         #define FTN_LIKE( a )( /* note the white space */ \\\n\
         a /* other stuff on this line\n\
         */ )\n");
    assert!(valid.diags.is_empty(), "{}", valid.render());
    let invalid = run("#define OBJ_LIKE (1-1)\n\
         #define FTN_LIKE(a) ( a )\n\
         #define OBJ_LIKE (0) // different token sequence\n\
         #define OBJ_LIKE (1 - 1) // different white space\n\
         #define FTN_LIKE(b) ( a ) // different parameter usage\n\
         #define FTN_LIKE(b) ( b ) // different parameter spelling\n");
    assert_eq!(
        invalid.messages(),
        [
            "warning: 'OBJ_LIKE' macro redefined",
            "warning: 'OBJ_LIKE' macro redefined",
            "warning: 'FTN_LIKE' macro redefined",
            "warning: 'FTN_LIKE' macro redefined",
        ]
    );
    assert_eq!(
        invalid.render().lines().take(6).collect::<Vec<_>>(),
        [
            "k.cl:3:9: warning: 'OBJ_LIKE' macro redefined",
            "    3 | #define OBJ_LIKE (0) // different token sequence",
            "      |         ^~~~~~~~",
            "k.cl:1:9: note: previous definition is here",
            "    1 | #define OBJ_LIKE (1-1)",
            "      |         ^~~~~~~~",
        ]
    );
    // The last definition is the one in force.
    let out = run("#define A 1\n#define A 2\nA");
    assert_eq!(out.text(), "2");
}

#[test]
fn c99_example_7_variadic_macros() {
    same(
        r#"#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test):\
 printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
"#,
        r#"fprintf(stderr, "Flag" );
fprintf(stderr, "X = %d\n", x );
puts( "The first, second, and third items." );
((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));
"#,
    );
}

#[test]
fn c99_rescanning_example_and_painted_names() {
    // §6.10.3.4p4: the case the standard leaves open, resolved as gcc and clang do.
    same("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)", "2*9*g");
    // A macro's own name in its replacement is not replaced, even later.
    same("#define foo foo + 1\nfoo", "foo + 1");
    same("#define a b\n#define b a\na b", "a b");
    same("#define f(x) x f\nf(1)(2)", "1 f(2)");
    same("#define f(x) g(x)\n#define g(x) f(x)\nf(1)", "f(1)");
    // A name read while its macro is disabled stays painted, even when the arguments it is
    // part of end after that macro's replacement.
    same("#define f(x) x\n#define g f(g\ng )", "g");
    same("#define k(x) [x]\n#define j k(j\nj ) j )", "[j] [j]");
    // Painted tokens stay painted when passed on as arguments.
    same("#define q(x) x\n#define rec rec q(rec)\nrec", "rec rec");
}

// ---------------------------------------------------------------------------------------
// Function-like macros, `#`, `##`.

#[test]
fn function_like_invocations() {
    // Not followed by `(`: not an invocation.
    same(
        "#define f(x) [x]\nint f; f + 1; (f)(2)",
        "int f; f + 1; (f)(2)",
    );
    // Arguments across lines, nested parentheses and commas, empty arguments.
    same(
        "#define f(x, y) <x|y>\nf(\n a,\n (b, c)\n) f(,) f((,),)",
        "<a|(b, c)> <|> <(,)|>",
    );
    same("#define f(x) [x]\n#define E\nf() f(E) f( )", "[] [] []");
    same("#define z() Z\nz() z( )", "Z Z");
    // Arguments are expanded before substitution, except next to # and ##.
    same(
        "#define ONE 1\n#define f(x) x #x x##2\nf(ONE)",
        "1 \"ONE\" ONE2",
    );
    // The name comes from one macro, the arguments from the text after it.
    same("#define f(x) (x)\n#define g f\ng(1)", "(1)");
}

#[test]
fn stringizing_spacing_and_escapes() {
    let out = clean(
        r#"#define s(x) #x
s(  a   +   b  ) s(a+b) s("a\n" 'b' '\'') s() s(a
b) s(/* c */ x /* c */ y) s(<: %:) s(L"w")"#,
    );
    let expected = [
        r#""a + b""#,
        r#""a+b""#,
        r#""\"a\\n\" 'b' '\\''""#,
        r#""""#,
        r#""a b""#,
        r#""x y""#,
        r#""<: %:""#,
        r#""L\"w\"""#,
    ];
    assert_eq!(out, expected.join(" "));
    // A stray backslash would leave the literal open.
    let out = run("#define s(x) #x\ns(\\) s(a\\)");
    assert_eq!(
        out.errors(),
        [
            "error: '#' formed \"\\\", an invalid string literal",
            "error: '#' formed \"a\\\", an invalid string literal",
        ]
    );
    assert_eq!(out.text(), "\"\" \"\"");
    // Variadic arguments keep their commas and spacing.
    same("#define s(...) #__VA_ARGS__\ns( a ,b,  c )", r#""a ,b, c""#);
    // Spacing survives an expansion passed on to `#`.
    same(
        "#define s(x) #x\n#define xs(x) s(x)\n#define P a  +b\nxs(P) xs( [ x ] )",
        r#""a +b" "[ x ]""#,
    );
}

#[test]
fn pasting() {
    same(
        "#define cat(a, b) a ## b\ncat(x, y) cat(1, 2) cat(+, =) cat(<, <=) cat(., 5f) cat(0x, 1p3) cat(u, 8)",
        "xy 12 += <<= .5f 0x1p3 u8",
    );
    // Object-like macros paste too; chains go left to right.
    same("#define ab AB\n#define P a ## b\nP", "AB");
    same("#define c3(a,b,c) a##b##c\nc3(x,,z) c3(,,) c3(1,,)", "xz 1");
    // `#` then `##`.
    same("#define sp(a, b) #a ## b\nsp(x,)", r#""x""#);
    let out = run("#define cat(a, b) a ## b\ncat(x, y) cat(1, 2)");
    let toks = out.user_tokens();
    assert_eq!(toks[0].kind, TokenKind::Ident);
    assert_eq!(toks[1].kind, TokenKind::Int);
}

#[test]
fn pasting_errors() {
    let out = run("#define cat(a, b) a ## b\ncat(+, -) cat(/, /) cat(x, \"y\")\nint ok;");
    assert_eq!(
        out.errors(),
        [
            "error: pasting formed '+-', an invalid preprocessing token",
            "error: pasting formed '//', an invalid preprocessing token",
            "error: pasting formed 'x\"y\"', an invalid preprocessing token",
        ]
    );
    // The operands are kept.
    assert_eq!(out.text(), "+ - / / x \"y\" int ok ;");
    let out =
        run("#define A ## b\n#define B(x) x ##\n#define C(x) #y\n#define D(x) #\nA B(1) C(2)");
    assert_eq!(
        out.errors(),
        [
            "error: '##' cannot appear at either end of a macro expansion",
            "error: '##' cannot appear at either end of a macro expansion",
            "error: '#' is not followed by a macro parameter",
            "error: '#' is not followed by a macro parameter",
        ]
    );
}

#[test]
fn variadic_macros() {
    same(
        "#define v(a, ...) a:__VA_ARGS__\nv(1) v(1,) v(1, 2, 3) v((1,2),(3,4))",
        "1: 1: 1:2, 3 (1,2):(3,4)",
    );
    // gcc's comma elision.
    same(
        "#define e(f, ...) f(x , ## __VA_ARGS__)\ne(g) e(g, y) e(g,)",
        "g(x) g(x, y) g(x)",
    );
    let out = run(
        "#define f(a, b) a\n#define g() x\n#define v(a, b, ...) a\nf(1) f(1,2,3) g(1) v(1)\nok",
    );
    assert_eq!(
        out.errors(),
        [
            "error: too few arguments provided to function-like macro invocation",
            "error: too many arguments provided to function-like macro invocation",
            "error: too many arguments provided to function-like macro invocation",
            "error: too few arguments provided to function-like macro invocation",
        ]
    );
    assert_eq!(out.text(), "ok", "failed invocations are dropped");
    assert!(out
        .render()
        .contains("k.cl:1:9: note: macro 'f' defined here"));
}

#[test]
fn malformed_definitions() {
    let out = run("#define\n#define 3 x\n#define defined\n#define f(a,a) a\n\
         #define g(a b) a\n#define h(a,) a\n#define i(a\n#define j(...) __VA_ARGS__\n\
         #define k __VA_ARGS__\n#define l(x...) x\n#define m(1) 1\n#undef\n#undef defined\n\
         #define n+1\nn");
    assert_eq!(
        out.messages(),
        [
            "error: macro name missing",
            "error: macro name must be an identifier",
            "error: 'defined' cannot be used as a macro name (in #define)",
            "error: duplicate macro parameter name 'a'",
            "error: expected comma in macro parameter list",
            "error: invalid token in macro parameter list",
            "error: missing ')' in macro parameter list",
            "error: __VA_ARGS__ can only appear in the expansion of a C99 variadic macro",
            "error: unsupported: named variadic macro parameters (use '...' and __VA_ARGS__)",
            "error: invalid token in macro parameter list",
            "error: macro name missing",
            "error: 'defined' cannot be used as a macro name (in #undef)",
            "warning: ISO C99 requires whitespace after the macro name",
        ]
    );
    assert_eq!(out.text(), "+ 1");
}

#[test]
fn directives_inside_macro_arguments() {
    // Undefined in C; carried out, as gcc and clang do.
    same(
        "#define f(x, y) [x|y]\nf(1,\n#ifdef NOPE\n2\n#else\n3\n#endif\n)",
        "[1|3]",
    );
    same(
        "#define f(x) [x]\n#define V 1\nf(V\n#undef V\n#define V 2\nV)",
        "[2 2]",
    );
    // `__LINE__` in an argument is the line it is written on.
    same("#define f(x, y) x y\nf(__LINE__,\n__LINE__)", "2 3");
}

#[test]
fn unterminated_invocation() {
    let out = run("#define f(x) x\nf(1, \n2\n");
    assert_eq!(
        out.errors(),
        ["error: unterminated function-like macro invocation"]
    );
    assert_eq!(out.locations()[0], "k.cl:2:1");
    // Invocations do not run past the end of an included file.
    let dir = TempDir::new("unterminated");
    dir.write("a.h", "#define f(x) x\nf(1\n");
    let main = dir.write("k.cl", "#include \"a.h\"\n)\nlast");
    let out = run_file(&main, &Options::default());
    assert_eq!(
        out.errors(),
        ["error: unterminated function-like macro invocation"]
    );
    assert_eq!(out.text(), ") last");
}

// ---------------------------------------------------------------------------------------
// Conditional inclusion.

/// Whether `#if expr` takes its group.
fn holds(expr: &str) -> bool {
    let out = run(&format!("#if {expr}\nyes\n#else\nno\n#endif\n"));
    assert!(out.errors().is_empty(), "{expr}: {}", out.render());
    match out.text().as_str() {
        "yes" => true,
        "no" => false,
        other => panic!("{expr}: {other}"),
    }
}

#[test]
fn if_expressions_with_every_operator() {
    let cases = [
        ("1", true),
        ("0", false),
        ("1 + 2 == 3", true),
        ("5 - 7 == -2", true),
        ("6 * 7 == 42", true),
        ("7 / 2 == 3", true),
        ("-7 / 2 == -3", true),
        ("7 % 3 == 1", true),
        ("-7 % 3 == -1", true),
        ("1 << 4 == 16", true),
        ("-16 >> 2 == -4", true),
        ("3 < 4 && 4 > 3 && 3 <= 3 && 3 >= 3", true),
        ("3 != 3", false),
        ("(6 & 3) == 2 && (6 | 3) == 7 && (6 ^ 3) == 5", true),
        ("~0 == -1", true),
        ("!0 && !!5", true),
        ("+3 == 3", true),
        ("0 || 0", false),
        ("0 || 2", true),
        ("1 && 0", false),
        ("1 ? 2 : 0", true),
        ("0 ? 2 : 0", false),
        ("(1, 0)", false),
        ("1 ? 0 ? 5 : 6 : 7", true),
        ("2 + 3 * 4 == 14 && (2 + 3) * 4 == 20", true),
        ("1 - 1 - 1 == -1", true),
        ("1 << 2 + 1 == 8", true),
        // The usual arithmetic conversions: -1 becomes the largest uintmax_t.
        ("-1 > 0u", true),
        ("-1 > 0", false),
        ("0xffffffffffffffff == -1", true),
        ("0xffffffffffffffff > 0", true),
        ("18446744073709551615u / 2 == 9223372036854775807", true),
        ("-1 / 2u > 0", true),
        ("(0 ? 1u : -1) > 0", true),
        ("9223372036854775807 + 0 > 0", true),
        ("0x7fffffffffffffffLL > 0", true),
        ("010 == 8 && 0x10 == 16 && 10ul == 10", true),
        // Character constants: char is signed.
        ("'a' == 97", true),
        (
            "'\\n' == 10 && '\\0' == 0 && '\\x41' == 'A' && '\\101' == 65",
            true,
        ),
        ("'\\xff' < 0", true),
        ("'\\377' == -1", true),
        // Unknown identifiers are 0, keywords too.
        ("undefined_name == 0", true),
        ("int", false),
        // Short-circuiting hides errors of unevaluated operands.
        ("0 && 1 / 0", false),
        ("1 || 1 % 0", true),
        ("1 ? 1 : 1 / 0", true),
        ("0 ? 1 / 0 : 0", false),
        // Shift counts out of range are undefined in C; as in gcc a negative count shifts
        // the other way and a large one shifts everything out (with a warning).
        ("1 >> -1 == 2 && 8 << -2 == 2", true),
        (
            "(1 << 64) == 0 && (-8 >> 70) == -1 && (8u >> 64) == 0",
            true,
        ),
        ("(-1 << 63) < 0 && (1u << 63) > 0", true),
    ];
    for (expr, expected) in cases {
        assert_eq!(holds(expr), expected, "#if {expr}");
    }
}

#[test]
fn defined_operator_and_macros_in_if() {
    let src = "#define A 2\n#define B A + 1\n#define F(x) x * 2\n#define D defined(A)\n";
    let with = |expr: &str| {
        let out = run(&format!("{src}#if {expr}\nyes\n#else\nno\n#endif\n"));
        assert!(out.errors().is_empty(), "{expr}: {}", out.render());
        out.text() == "yes"
    };
    assert!(with("defined A && defined(B) && defined ( F )"));
    assert!(!with("defined C || defined(C)"));
    assert!(with("B == 3 && F(B) == 4"), "F(B) is A + 1 * 2");
    assert!(with("D"), "defined produced by a macro");
    assert!(with("defined __LINE__ && defined __FILE__"));
    assert!(with("__LINE__ == 5"));
    let out = run("#if defined\n#endif\n#if defined(\n#endif\n#if defined(X\n#endif\n");
    assert_eq!(
        out.errors(),
        [
            "error: macro name missing after 'defined'",
            "error: macro name missing after 'defined'",
            "error: missing ')' after 'defined'",
        ]
    );
}

#[test]
fn if_expression_errors_are_located() {
    let out = run(
        "#if 1 / 0\n#endif\n#if\n#endif\n#if 1 +\n#endif\n#if (1\n#endif\n#if 1 2\n#endif\n\
         #if 1.0\n#endif\n#if \"s\"\n#endif\n#if f(1)\n#endif\n#if 1 ? 2\n#endif\n\
         #if 99999999999999999999\n#endif\n#if 08\n#endif\n#if 1 = 1\n#endif\n#if ''\n#endif\n\
         #if 0\n#elif\n#endif\n#if 5 % 0\n#endif\n#if 1x\n#endif\nlast",
    );
    assert_eq!(
        out.errors(),
        [
            "error: division by zero in preprocessor expression",
            "error: #if with no expression",
            "error: expected value in expression",
            "error: expected ')' in preprocessor expression",
            "error: token is not a valid binary operator in a preprocessor subexpression",
            "error: floating point literal in preprocessor expression",
            "error: invalid token at start of a preprocessor expression",
            "error: function-like macro 'f' is not defined",
            "error: expected ':' in preprocessor expression",
            "error: integer literal is too large to be represented in any integer type",
            "error: invalid digit '8' in octal constant",
            "error: token is not a valid binary operator in a preprocessor subexpression",
            "error: empty character constant",
            "error: #elif with no expression",
            "error: division by zero in preprocessor expression",
            "error: invalid suffix 'x' on integer constant",
        ]
    );
    assert_eq!(out.locations()[0], "k.cl:1:7");
    assert_eq!(out.locations()[2], "k.cl:5:8");
    assert_eq!(out.text(), "last", "a failed #if is false");
    // Warnings only.
    let out = run("#if 'ab' == 0x6162 && (9223372036854775807 + 1 < 0)\nyes\n#endif");
    assert_eq!(
        out.messages(),
        [
            "warning: multi-character character constant",
            "warning: integer overflow in preprocessor expression",
        ]
    );
    assert_eq!(out.text(), "yes");
}

#[test]
fn conditional_groups() {
    same(
        "#define X 2\n\
         #if X == 1\none\n#elif X == 2\ntwo\n#elif X == 2\nagain\n#else\nother\n#endif\n\
         #ifdef X\nx\n#else\nnox\n#endif\n\
         #ifndef X\nnx\n#elif 1\nelif_after_ifndef\n#endif\n\
         #if 0\n#if 1\nnested\n#else\nnested_else\n#endif\n#elif 0\n#else\nouter_else\n#endif\n\
         #if 1\n#if 0\n#else\ninner\n#endif\n#endif\n",
        "two x elif_after_ifndef outer_else inner",
    );
}

#[test]
fn skipped_groups_are_only_scanned_for_conditionals() {
    let out = run("#if 0\n\
         don't ' \" @ \\ `\n\
         #error not reached\n\
         #bogus directive\n\
         #if garbage (((\n\
         #else junk\n\
         #elif 1 / 0\n\
         #endif\n\
         #elif 0\n\
         #define NOT_DEFINED 1\n\
         #endif\n\
         #ifdef NOT_DEFINED\nbad\n#endif\nok\n");
    assert!(out.diags.is_empty(), "{}", out.render());
    assert_eq!(out.text(), "ok");
}

#[test]
fn conditional_structure_errors() {
    let out = run("#endif\n#else\n#elif 1\n#if 1\n#else\n#else\n#endif\n\
         #if 0\n#else\n#elif 1\n#endif\n#ifdef\n#endif\n#ifdef 3\n#endif\n#ifdef A B\n#endif\n\
         #if 1\n#if 0\n");
    assert_eq!(
        out.messages(),
        [
            "error: #endif without #if",
            "error: #else without #if",
            "error: #elif without #if",
            "error: #else after #else",
            "error: #elif after #else",
            "error: macro name missing",
            "error: macro name must be an identifier",
            "warning: extra tokens at end of #ifdef directive",
            "error: unterminated conditional directive",
            "error: unterminated conditional directive",
        ]
    );
    assert_eq!(out.locations()[8], "k.cl:18:2");
    assert_eq!(out.locations()[9], "k.cl:19:2");
    let out = run("#if 1\n#endif junk\n#ifdef X\n#else junk\n#endif");
    assert_eq!(
        out.messages(),
        [
            "warning: extra tokens at end of #endif directive",
            "warning: extra tokens at end of #else directive",
        ]
    );
}

// ---------------------------------------------------------------------------------------
// #include.

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "warpkit-cc-pp-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_file(path: &std::path::Path, opts: &Options) -> Out {
    let text = std::fs::read_to_string(path).unwrap();
    run_named(&path.display().to_string(), &text, opts)
}

#[test]
fn include_search_order() {
    let dir = TempDir::new("order");
    dir.write("src/local.h", "local_src\n");
    dir.write("src/sub/rel.h", "#include \"sibling.h\"\n");
    dir.write("src/sub/sibling.h", "sibling_of_rel\n");
    dir.write("inc1/local.h", "local_inc1\n");
    dir.write("inc1/both.h", "both_inc1\n");
    dir.write("inc2/both.h", "both_inc2\n");
    dir.write("inc2/only2.h", "only_inc2\n");
    let main = dir.write(
        "src/k.cl",
        "#include \"local.h\"\n#include <local.h>\n#include <both.h>\n#include \"only2.h\"\n\
         #include \"sub/rel.h\"\n#define H <both.h>\n#include H\n#define Q \"local.h\"\n#include Q\n",
    );
    let opts = Options {
        include_dirs: vec![dir.path("inc1"), dir.path("inc2")],
        ..Options::default()
    };
    let out = run_file(&main, &opts);
    assert!(out.diags.is_empty(), "{}", out.render());
    assert_eq!(
        out.text(),
        "local_src local_inc1 both_inc1 only_inc2 sibling_of_rel both_inc1 local_src"
    );
    // File names in diagnostics are the include path joined to the directory.
    let main = dir.write("src/e.cl", "#include \"sub/bad.h\"\n");
    dir.write("src/sub/bad.h", "\n  @\n");
    let out = run_file(&main, &opts);
    let expected = format!("{}:2:3", dir.path("src/sub/bad.h").display());
    assert_eq!(out.locations(), [expected]);
}

#[test]
fn include_errors() {
    let dir = TempDir::new("errors");
    std::fs::create_dir_all(dir.path("adir")).unwrap();
    std::fs::write(dir.path("latin1.h"), b"caf\xe9\n").unwrap();
    let main = dir.write(
        "k.cl",
        "#include \"missing.h\"\n#include <k.cl>\n#include\n#include nothing\n#include \"adir\"\n\
         #include \"latin1.h\"\n#include \"\"\n#include <a.h\nafter\n",
    );
    let out = run_file(&main, &Options::default());
    assert_eq!(
        out.errors(),
        [
            "error: 'missing.h' file not found",
            "error: 'k.cl' file not found",
            "error: expected \"FILENAME\" or <FILENAME>",
            "error: expected \"FILENAME\" or <FILENAME>",
            "error: 'adir' file not found",
            format!(
                "error: '{}' is not UTF-8 text (invalid byte at offset 3)",
                dir.path("latin1.h").display()
            )
            .as_str(),
            "error: empty filename",
            "error: expected \"FILENAME\" or <FILENAME>",
        ]
    );
    let locs = out.locations();
    assert!(locs[0].ends_with("k.cl:1:10"), "{locs:?}");
    assert_eq!(out.text(), "after");
}

#[test]
fn include_guards_and_pragma_once() {
    let dir = TempDir::new("guards");
    dir.write(
        "g.h",
        "#ifndef G_H\n#define G_H\nguarded\n#include \"g.h\"\n#endif\n",
    );
    dir.write("o.h", "#pragma once\nonce\n#include \"o.h\"\n");
    dir.write("twice.h", "twice\n");
    let main = dir.write(
        "k.cl",
        "#include \"g.h\"\n#include \"g.h\"\n#include \"o.h\"\n#include \"./o.h\"\n\
         #include \"twice.h\"\n#include \"twice.h\"\n",
    );
    let out = run_file(&main, &Options::default());
    assert!(out.diags.is_empty(), "{}", out.render());
    assert_eq!(out.text(), "guarded once twice twice");
}

#[test]
fn self_inclusion_stops_at_the_depth_limit() {
    let dir = TempDir::new("cycle");
    let main = dir.write("k.cl", "x\n#include \"k.cl\"\n#include \"k.cl\"\n");
    let out = run_file(&main, &Options::default());
    assert_eq!(
        out.errors(),
        ["error: #include nested too deeply (more than 200 levels)"]
    );
    assert_eq!(out.user_tokens().len(), 201);
    // Two files including each other.
    dir.write("a.h", "#include \"b.h\"\n");
    dir.write("b.h", "#include \"a.h\"\n");
    let main = dir.write("m.cl", "#include \"a.h\"\nend\n");
    let out = run_file(&main, &Options::default());
    assert_eq!(out.errors().len(), 1);
    assert!(out
        .render()
        .contains("b.h:1:10: error: #include nested too deeply"));
}

#[test]
fn conditionals_belong_to_their_file() {
    let dir = TempDir::new("conds");
    dir.write("open.h", "#if 1\nin_header\n");
    dir.write("close.h", "#endif\n");
    let main = dir.write(
        "k.cl",
        "#include \"open.h\"\nmain\n#if 1\n#include \"close.h\"\n#endif\n",
    );
    let out = run_file(&main, &Options::default());
    assert_eq!(
        out.errors(),
        [
            "error: unterminated conditional directive",
            "error: #endif without #if",
        ]
    );
    assert_eq!(out.text(), "in_header main");
}

// ---------------------------------------------------------------------------------------
// #line, __LINE__, __FILE__, #error, #warning, #pragma.

#[test]
fn line_directive_and_line_macro() {
    same(
        "__LINE__\n#line 100\n__LINE__\n__LINE__ __FILE__\n#line 7 \"other.cl\"\n__FILE__ __LINE__\n\
         #define L __LINE__\n#define F(x) x __LINE__\nL F(\n1\n)\n# 50 \"marker.cl\" 2\n__LINE__ __FILE__",
        "1 100 101 \"k.cl\" \"other.cl\" 7 10 1 10 50 \"marker.cl\"",
    );
    // Diagnostics keep real positions.
    let out = run("#line 100 \"x.cl\"\n@");
    assert_eq!(out.locations(), ["k.cl:2:1"]);
    // A macro in #line.
    same("#define N 40\n#line N\n__LINE__", "40");
    let out = run("#line\n#line x\n#line 0x10\n#line 4294967296\n#line 5 name\n#line 5 \"a\" b\n");
    assert_eq!(
        out.messages(),
        [
            "error: #line directive requires a positive integer argument",
            "error: #line directive requires a simple digit sequence",
            "error: #line directive requires a simple digit sequence",
            "error: line number out of range in #line directive",
            "error: invalid filename for #line directive",
            "warning: extra tokens at end of #line directive",
        ]
    );
    // __FILE__ escapes its name.
    let out = run_named("dir\\\"q.cl", "__FILE__", &Options::default());
    assert_eq!(out.text(), r#""dir\\\"q.cl""#);
}

#[test]
fn error_and_warning_directives() {
    let out = run("#error   this is   bad, isn't it? /* c */\n#warning careful\n#error\nok");
    assert_eq!(
        out.messages(),
        [
            "error: this is   bad, isn't it?",
            "warning: careful",
            "error: #error",
        ]
    );
    assert_eq!(out.text(), "ok");
    assert!(out
        .render()
        .starts_with("k.cl:1:2: error: this is   bad, isn't it?\n"));
}

#[test]
fn pragmas() {
    let out = run("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         #pragma OPENCL EXTENSION all : disable\n\
         #pragma OPENCL FP_CONTRACT ON\n\
         #pragma OPENCL FP_CONTRACT DEFAULT\n\
         #pragma unroll 4\n#pragma\n#pragma STDC FP_CONTRACT OFF\n\
         _Pragma(\"OPENCL EXTENSION cl_khr_byte_addressable_store : enable\") x\n\
         #define P _Pragma(\"unroll\") y\nP\n");
    assert!(out.diags.is_empty(), "{}", out.render());
    assert_eq!(out.text(), "x y");
    let out = run("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
         #pragma OPENCL EXTENSION cl_khr_fp64 enable\n\
         #pragma OPENCL EXTENSION cl_khr_fp64 : on\n\
         #pragma OPENCL FP_CONTRACT maybe\n\
         _Pragma(1) _Pragma(\"once\" z\n");
    assert_eq!(
        out.messages(),
        [
            "warning: unsupported OpenCL extension 'cl_khr_fp16' - ignoring",
            "warning: expected ':' in '#pragma OPENCL EXTENSION' - ignoring",
            "warning: expected 'enable' or 'disable' - ignoring",
            "warning: expected 'ON' or 'OFF' or 'DEFAULT' in pragma",
            "error: _Pragma takes a parenthesized string literal",
            "error: _Pragma takes a parenthesized string literal",
        ]
    );
}

#[test]
fn unknown_directives_and_null_directive() {
    let out = run("#\n# /* nothing */\n#include_next <x>\n#assert x\n#\"s\"\nok\n");
    assert_eq!(
        out.errors(),
        [
            "error: invalid preprocessing directive",
            "error: invalid preprocessing directive",
            "error: invalid preprocessing directive",
        ]
    );
    assert_eq!(out.locations(), ["k.cl:3:2", "k.cl:4:2", "k.cl:5:2"]);
    assert_eq!(out.text(), "ok");
    // A `#` that is not first on its line, or comes from a macro, is a token.
    assert_eq!(clean("#define H #\nH define X\na # b"), "# define X a # b");
}

// ---------------------------------------------------------------------------------------
// Predefined macros, -D/-U, the prelude.

#[test]
fn predefined_macros() {
    same(
        "__OPENCL_VERSION__ __OPENCL_C_VERSION__ CL_VERSION_1_0 CL_VERSION_1_1 CL_VERSION_1_2 \
         __ENDIAN_LITTLE__ __STDC__ __STDC_VERSION__ __warpkit__ FP_FAST_FMAF FP_FAST_FMA \
         __DATE__ __TIME__ cl_khr_fp64 cl_khr_global_int32_base_atomics \
         cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics \
         cl_khr_local_int32_extended_atomics cl_khr_byte_addressable_store \
         __FAST_RELAXED_MATH__ __IMAGE_SUPPORT__ __EMBEDDED_PROFILE__",
        "120 120 100 110 120 1 1 199901L 1 1 1 \"Jan  1 1970\" \"00:00:00\" 1 1 1 1 1 1 \
         __FAST_RELAXED_MATH__ __IMAGE_SUPPORT__ __EMBEDDED_PROFILE__",
    );
    let opts = Options {
        fast_relaxed_math: true,
        ..Options::default()
    };
    assert_eq!(run_with("__FAST_RELAXED_MATH__", &opts).text(), "1");
}

#[test]
fn prelude_macros_and_typedefs() {
    same(
        "CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE true false CHAR_BIT CHAR_MAX CHAR_MIN \
         SCHAR_MAX SCHAR_MIN UCHAR_MAX SHRT_MAX SHRT_MIN USHRT_MAX INT_MAX INT_MIN UINT_MAX \
         LONG_MAX LONG_MIN ULONG_MAX",
        "1 2 1 0 8 127 (-127 - 1) 127 (-127 - 1) 255 32767 (-32767 - 1) 65535 2147483647 \
         (-2147483647 - 1) 0xffffffff 0x7fffffffffffffffL (-0x7fffffffffffffffL - 1) \
         0xffffffffffffffffUL",
    );
    same(
        "FLT_DIG FLT_MANT_DIG FLT_MAX_10_EXP FLT_MAX_EXP FLT_MIN_10_EXP FLT_MIN_EXP FLT_RADIX \
         FLT_MAX FLT_MIN FLT_EPSILON DBL_DIG DBL_MANT_DIG DBL_MAX_10_EXP DBL_MAX_EXP \
         DBL_MIN_10_EXP DBL_MIN_EXP DBL_MAX DBL_MIN DBL_EPSILON MAXFLOAT FP_ILOGB0 FP_ILOGBNAN",
        "6 24 +38 +128 -37 -125 2 0x1.fffffep127f 0x1.0p-126f 0x1.0p-23f 15 53 +308 +1024 \
         -307 -1021 0x1.fffffffffffffp1023 0x1.0p-1022 0x1.0p-52 0x1.fffffep127f \
         (-2147483647 - 1) 2147483647",
    );
    same(
        "HUGE_VALF HUGE_VAL INFINITY NAN",
        "(1.0f / 0.0f) (1.0 / 0.0) (1.0f / 0.0f) (0.0f / 0.0f)",
    );
    // The limits are usable in #if.
    assert!(holds(
        "INT_MAX == 2147483647 && INT_MIN == -INT_MAX - 1 && UINT_MAX == 4294967295 \
         && CHAR_MIN == -128 && ULONG_MAX == -1 && LONG_MIN < 0 && LONG_MAX > UINT_MAX"
    ));
    // The typedefs come first, from the prelude.
    let out = run("x");
    let prelude: Vec<&str> = out.tokens[..out.tokens.len() - 2]
        .iter()
        .map(|t| t.text.as_str())
        .collect();
    // (then the math library's functions)
    assert!(
        prelude.join(" ").starts_with(
            "typedef ulong size_t ; typedef long ptrdiff_t ; typedef long intptr_t ; \
             typedef ulong uintptr_t ;"
        ),
        "{}",
        prelude[..20].join(" ")
    );
    assert!(out.tokens[..out.tokens.len() - 2]
        .iter()
        .all(|t| out.sources.file(t.span.file).builtin));
}

/// Each float constant of the prelude is the correctly rounded value of the constant:
/// checked against Rust's own constants (double) and their rounding to float, which for
/// these values equals direct rounding (no tie within the double's precision).
#[test]
fn prelude_math_constants_are_exact() {
    use std::f64::consts as c;
    let constants = [
        ("M_E", c::E),
        ("M_LOG2E", c::LOG2_E),
        ("M_LOG10E", c::LOG10_E),
        ("M_LN2", c::LN_2),
        ("M_LN10", c::LN_10),
        ("M_PI", c::PI),
        ("M_PI_2", c::FRAC_PI_2),
        ("M_PI_4", c::FRAC_PI_4),
        ("M_1_PI", c::FRAC_1_PI),
        ("M_2_PI", c::FRAC_2_PI),
        ("M_2_SQRTPI", c::FRAC_2_SQRT_PI),
        ("M_SQRT2", c::SQRT_2),
        ("M_SQRT1_2", c::FRAC_1_SQRT_2),
    ];
    for (name, value) in constants {
        let out = run(&format!("{name} {name}_F"));
        let toks = out.user_tokens();
        assert_eq!(toks.len(), 2, "{name}");
        assert_eq!(toks[0].kind, TokenKind::Float);
        assert_eq!(hex_float(&toks[0].text), value, "{name}");
        let f = toks[1].text.strip_suffix('f').unwrap();
        assert_eq!(hex_float(f), f64::from(value as f32), "{name}_F");
    }
    assert_eq!(hex_float("0x1.fffffep127"), f64::from(f32::MAX));
    assert_eq!(hex_float("0x1.fffffffffffffp1023"), f64::MAX);
}

/// The value of a hexadecimal floating constant without suffix (exact for these).
fn hex_float(text: &str) -> f64 {
    let body = text.strip_prefix("0x").unwrap();
    let (mantissa, exp) = body.split_once('p').unwrap();
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let m = u64::from_str_radix(&digits, 16).unwrap() as f64;
    let e: i32 = exp.parse().unwrap();
    m * 2f64.powi(e - 4 * frac.len() as i32)
}

#[test]
fn command_line_defines() {
    let opts = Options {
        defines: vec![
            ("X".into(), None),
            ("Y".into(), Some("2 + 3".into())),
            ("F(a)".into(), Some("a * a".into())),
            ("G".into(), Some("line\nbreak".into())),
            // A final backslash does not splice the next definition.
            ("B".into(), Some("\\".into())),
            ("W".into(), Some("w".into())),
            ("__OPENCL_VERSION__".into(), Some("200".into())),
            ("Z".into(), Some("1".into())),
        ],
        undefines: vec!["Z".into(), "NEVER".into()],
        ..Options::default()
    };
    let out = run_with("X Y F(4) G Z W __OPENCL_VERSION__", &opts);
    assert_eq!(out.text(), "1 2 + 3 4 * 4 line break Z w 200");
    assert_eq!(
        out.render().lines().next().unwrap(),
        "<command line>:7:9: warning: '__OPENCL_VERSION__' macro redefined"
    );
    assert!(out
        .render()
        .contains("<built-in>:1:9: note: previous definition is here"));
    // A macro defined on the command line is noted without a location.
    let opts = Options {
        defines: vec![("BAD".into(), Some("@".into()))],
        ..Options::default()
    };
    let out = run_with("int x = BAD;", &opts);
    assert_eq!(out.errors(), ["error: stray '@' in program"]);
    assert_eq!(
        out.render(),
        "k.cl:1:9: error: stray '@' in program\n    1 | int x = BAD;\n      |         ^~~\n\
         warpkit-cc: note: expanded from macro 'BAD'\n1 error generated.\n"
    );
    let opts = Options {
        defines: vec![("3".into(), None)],
        ..Options::default()
    };
    assert_eq!(
        run_with("", &opts).render().lines().next().unwrap(),
        "<command line>:1:9: error: macro name must be an identifier"
    );
}

// ---------------------------------------------------------------------------------------
// Tokens, spans and expansions.

#[test]
fn token_kinds_and_spellings() {
    let out = run("int x<:3:> = <% 1, 2.5f, 0x1p3, 3e2, 010, 'c', \"s\\n\" %>; %: %:%:");
    let kinds: Vec<_> = out.user_tokens().iter().map(|t| t.kind.clone()).collect();
    use warpkit_cc::token::Punct::*;
    assert_eq!(
        kinds,
        [
            TokenKind::Ident,
            TokenKind::Ident,
            TokenKind::Punct(LBracket),
            TokenKind::Int,
            TokenKind::Punct(RBracket),
            TokenKind::Punct(Assign),
            TokenKind::Punct(LBrace),
            TokenKind::Int,
            TokenKind::Punct(Comma),
            TokenKind::Float,
            TokenKind::Punct(Comma),
            TokenKind::Float,
            TokenKind::Punct(Comma),
            TokenKind::Float,
            TokenKind::Punct(Comma),
            TokenKind::Int,
            TokenKind::Punct(Comma),
            TokenKind::Char,
            TokenKind::Punct(Comma),
            TokenKind::Str,
            TokenKind::Punct(RBrace),
            TokenKind::Punct(Semi),
            TokenKind::Punct(Hash),
            TokenKind::Punct(HashHash),
        ]
    );
    assert_eq!(
        out.text(),
        "int x [ 3 ] = { 1 , 2.5f , 0x1p3 , 3e2 , 010 , 'c' , \"s\\n\" } ; # ##"
    );
    // Digraphs keep their span.
    let bracket = out.user_tokens()[2];
    assert_eq!(out.sources.snippet(bracket.span), "<:");
    // Splices inside tokens: the text without them, the span over all.
    let out = run("in\\\nt a = 1\\\n2;");
    let toks = out.user_tokens();
    assert_eq!(out.text(), "int a = 12 ;");
    assert_eq!(out.sources.snippet(toks[0].span), "in\\\nt");
}

#[test]
fn prefixed_literals_are_unsupported() {
    let out = run("L\"wide\" u8\"utf\" u'c' U\"x\" L'w'");
    assert_eq!(
        out.errors(),
        [
            "error: unsupported: 'L' prefixed character constants and string literals",
            "error: unsupported: 'u8' prefixed character constants and string literals",
            "error: unsupported: 'u' prefixed character constants and string literals",
            "error: unsupported: 'U' prefixed character constants and string literals",
            "error: unsupported: 'L' prefixed character constants and string literals",
        ]
    );
    assert_eq!(out.text(), "\"wide\" \"utf\" 'c' \"x\" 'w'");
}

#[test]
fn expansion_records() {
    let out = run("#define ONE 1\n#define ADD(a, b) a + b + ONE\nx = ADD(y,\n  2);");
    let toks = out.user_tokens();
    assert_eq!(out.text(), "x = y + 2 + 1 ;");
    // `x`, `=`, `;` are the user's; `y` and `2` too (argument tokens keep their origin).
    for i in [0, 1, 2, 4, 7] {
        assert_eq!(toks[i].expansion, None, "{}", toks[i].text);
    }
    let plus = toks[3];
    let add = out.sources.expansion(plus.expansion.unwrap());
    assert_eq!(add.name, "ADD");
    assert_eq!(out.sources.snippet(add.call_site), "ADD(y,\n  2)");
    assert_eq!(add.parent, None);
    assert_eq!(out.sources.snippet(add.definition.unwrap()), "ADD");
    assert_eq!(out.sources.loc(plus.span).unwrap().to_string(), "k.cl:2:21");
    let one = toks[6];
    let e = out.sources.expansion(one.expansion.unwrap());
    assert_eq!(e.name, "ONE");
    assert_eq!(e.parent, plus.expansion);
    assert_eq!(out.sources.snippet(e.call_site), "ONE");
    assert_eq!(out.sources.snippet(one.span), "1");
    // Pasted and stringized tokens are spelled at the invocation.
    let out = run("#define C(a) a ## 1 #a\nC(x)");
    let toks = out.user_tokens();
    assert_eq!(out.text(), "x1 \"x\"");
    for t in toks {
        assert_eq!(out.sources.snippet(t.span), "C(x)");
        assert!(t.expansion.is_some());
    }
}

#[test]
fn diagnostics_inside_macros_have_expansion_notes() {
    let out = run("#define AT @\n#define WRAP(x) (x + AT)\nint y = WRAP(1);\n");
    assert_eq!(
        out.render(),
        "k.cl:3:9: error: stray '@' in program\n\
         \x20   3 | int y = WRAP(1);\n\
         \x20     |         ^~~~~~~\n\
         k.cl:2:22: note: expanded from macro 'WRAP'\n\
         \x20   2 | #define WRAP(x) (x + AT)\n\
         \x20     |                      ^~\n\
         k.cl:1:12: note: expanded from macro 'AT'\n\
         \x20   1 | #define AT @\n\
         \x20     |            ^\n\
         1 error generated.\n"
    );
    let out = run("#define CAT(a, b) a ## b\nCAT(-, >>)\n");
    assert_eq!(
        out.render(),
        "k.cl:2:1: error: pasting formed '->>', an invalid preprocessing token\n\
         \x20   2 | CAT(-, >>)\n\
         \x20     | ^~~~~~~~~~\n\
         k.cl:1:21: note: expanded from macro 'CAT'\n\
         \x20   1 | #define CAT(a, b) a ## b\n\
         \x20     |                     ^~\n\
         1 error generated.\n"
    );
}

#[test]
fn every_error_of_a_file_is_reported() {
    let out = run("int a = 1;\n\
         #error first\n\
         char *s = \"open;\n\
         @\n\
         #if 1 +\n#endif\n\
         #define F(x) x\n\
         F(1, 2)\n\
         #bogus\n\
         int b = 2; $\n\
         /* never closed\n");
    assert_eq!(
        out.errors(),
        [
            "error: first",
            "error: missing terminating \" character",
            "error: stray '@' in program",
            "error: expected value in expression",
            "error: too many arguments provided to function-like macro invocation",
            "error: invalid preprocessing directive",
            "error: stray '$' in program",
            "error: unterminated /* comment",
        ]
    );
    assert_eq!(
        out.locations(),
        [
            "k.cl:2:2",
            "k.cl:3:11",
            "k.cl:4:1",
            "k.cl:5:8",
            "k.cl:8:1",
            "k.cl:9:2",
            "k.cl:10:12",
            "k.cl:11:1",
        ]
    );
    assert_eq!(
        out.text(),
        "int a = 1 ; char * s = int b = 2 ;",
        "the good parts survive"
    );
}

#[test]
fn stray_and_control_characters() {
    let out = run("a \0 b \u{1} c \u{e9} d `");
    assert_eq!(
        out.errors(),
        [
            "error: null character in source",
            "error: stray '\\x01' in program",
            "error: stray '\u{e9}' in program",
            "error: stray '`' in program",
        ]
    );
    assert_eq!(
        out.locations(),
        ["k.cl:1:3", "k.cl:1:7", "k.cl:1:11", "k.cl:1:15"]
    );
    assert_eq!(out.text(), "a b c d");
}

// ---------------------------------------------------------------------------------------
// Robustness.

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let src = format!(
        "#define f(x) x\n{}1{}\n",
        "f(".repeat(1000),
        ")".repeat(1000)
    );
    let out = run(&src);
    assert_eq!(
        out.errors(),
        ["error: macro invocations nested more than 200 deep"]
    );
    // Within the limit it works.
    let src = format!("#define f(x) x\n{}1{}\n", "f(".repeat(150), ")".repeat(150));
    assert_eq!(clean(&src), "1");
    let src = format!(
        "#if {}1{}\nyes\n#endif\n",
        "(".repeat(1000),
        ")".repeat(1000)
    );
    assert_eq!(
        run(&src).errors(),
        ["error: preprocessor expression nested too deeply"]
    );
    let src = format!("#if {}1\n#endif\n", "-".repeat(1000));
    assert_eq!(run(&src).errors().len(), 1);
    // Many nested conditionals are no recursion.
    let src = format!("{}x\n{}", "#if 1\n".repeat(20000), "#endif\n".repeat(20000));
    assert_eq!(clean(&src), "x");
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let alphabet: &[u8] = b"#\\\n\n \t\"'/*()<>,.:;%?!=&|^~+-_09aAzZexpfLuU\r\0@$`{}[]";
    for _ in 0..3000 {
        let len = rng.below(120);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                if rng.below(4) == 0 {
                    rng.next() as u8
                } else {
                    alphabet[rng.below(alphabet.len())]
                }
            })
            .collect();
        let src = String::from_utf8_lossy(&bytes);
        let out = run(&src);
        let _ = out.render();
    }
}

#[test]
fn token_soup_never_panics() {
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let pieces = [
        "#define ",
        "#undef ",
        "#if ",
        "#ifdef ",
        "#ifndef ",
        "#elif ",
        "#else",
        "#endif",
        "#include ",
        "#line ",
        "#pragma ",
        "#error ",
        "#",
        "\n",
        "\n",
        "\n",
        " ",
        "f",
        "g",
        "x",
        "(",
        ")",
        ",",
        "...",
        "__VA_ARGS__",
        "##",
        "#",
        "defined",
        "1",
        "0",
        "0x",
        "'a'",
        "\"s\"",
        "+",
        "-",
        "/",
        "%",
        "?",
        ":",
        "<",
        ">",
        "__LINE__",
        "__FILE__",
        "_Pragma",
        "\\\n",
        "/*",
        "*/",
        "//",
        "@",
        "f(",
        "g(x)",
        "<a.h>",
        "\"k.cl\"",
        "once",
        "L",
        "u8",
        "'",
        "\"",
    ];
    for _ in 0..3000 {
        let n = rng.below(60);
        let src: String = (0..n).map(|_| pieces[rng.below(pieces.len())]).collect();
        let out = run(&src);
        let _ = out.render();
        for d in &out.diags.list {
            assert!(d.span.is_some(), "{src:?}: unlocated {}", d.message);
        }
    }
}
