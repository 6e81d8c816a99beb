//! The OpenCL C parser on arbitrary token sequences: each input byte selects one token (a
//! punctuator, keyword, name, or a literal that is well-formed or not), so the parser is
//! reached without the preprocessor. It must never panic, hang or overflow its stack, and
//! every diagnostic must point into the (synthetic) source: token `i` spans bytes `2i..2i+1`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_cc::diag::Diagnostics;
use warpkit_cc::parse::parse;
use warpkit_cc::source::{ExpnId, FileId, Span};
use warpkit_cc::token::{Punct, Token, TokenKind};

const WORDS: &[&str] = &[
    // Declarations.
    "typedef",
    "static",
    "extern",
    "register",
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__global",
    "global",
    "__local",
    "__constant",
    "__private",
    "read_only",
    "__write_only",
    "__kernel",
    "kernel",
    "inline",
    "__attribute__",
    "__extension__",
    "struct",
    "union",
    "enum",
    "void",
    "bool",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "half",
    "signed",
    "unsigned",
    "_Complex",
    "uchar",
    "uint",
    "ulong",
    "float4",
    "int2",
    "uchar16",
    "double3",
    "image2d_t",
    "sampler_t",
    "typeof",
    "asm",
    // Statements and operators spelled as words.
    "if",
    "else",
    "while",
    "do",
    "for",
    "switch",
    "case",
    "default",
    "goto",
    "break",
    "continue",
    "return",
    "sizeof",
    "_Alignof",
    "__alignof__",
    "vec_step",
    // Names, some of them typedef'd by the inputs that say `typedef int T`.
    "T",
    "U",
    "S",
    "x",
    "y",
    "i",
    "n",
    "f",
    "p",
    "true",
    "barrier",
    "get_global_id",
    "reqd_work_group_size",
    "aligned",
    "packed",
    "vec_type_hint",
];

const INTS: &[&str] = &[
    "0",
    "1",
    "16",
    "0x1fu",
    "10UL",
    "077",
    "0b101",
    "7ll",
    "08",
    "0x",
    "12abc",
    "1lL",
    "18446744073709551616",
];
const FLOATS: &[&str] = &[
    "1.5f", "2e-3", "0x1.8p3f", "1.0h", ".5", "1e", "0x1.8", "1.5q", "1.2.3",
];
const CHARS: &[&str] = &[
    "'a'", "'\\n'", "'\\xff'", "'\\101'", "''", "'ab'", "'\\x100'", "'\\'", "L'a'",
];
const STRS: &[&str] = &[
    "\"s\"",
    "\"a\\tb\"",
    "\"\\x41\"",
    "\"\\u00e9\"",
    "\"\\x\"",
    "u8\"x\"",
    "\"",
];

fn token(byte: u8) -> (TokenKind, &'static str) {
    let mut i = byte as usize
        % (Punct::ALL.len() + WORDS.len() + INTS.len() + FLOATS.len() + CHARS.len() + STRS.len());
    if i < Punct::ALL.len() {
        return (TokenKind::Punct(Punct::ALL[i]), Punct::ALL[i].text());
    }
    i -= Punct::ALL.len();
    for (kind, list) in [
        (TokenKind::Ident, WORDS),
        (TokenKind::Int, INTS),
        (TokenKind::Float, FLOATS),
        (TokenKind::Char, CHARS),
        (TokenKind::Str, STRS),
    ] {
        if i < list.len() {
            return (kind, list[i]);
        }
        i -= list.len();
    }
    unreachable!("the modulus covers every table")
}

fuzz_target!(|bytes: &[u8]| {
    let file = FileId(0);
    let mut tokens: Vec<Token> = bytes
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let (kind, text) = token(b);
            let lo = 2 * i as u32;
            Token {
                kind,
                text: text.to_string(),
                span: Span::new(file, lo, lo + 1),
                // Some tokens come out of a macro expansion.
                expansion: (b >= 0xf0).then_some(ExpnId(0)),
            }
        })
        .collect();
    let end = 2 * bytes.len() as u32;
    tokens.push(Token {
        kind: TokenKind::Eof,
        text: String::new(),
        span: Span::new(file, end, end),
        expansion: None,
    });
    let mut diags = Diagnostics::new();
    let _ = parse(&tokens, &mut diags);
    for d in &diags.list {
        let span = d.span.expect("parser diagnostics have a location");
        assert!(span.lo <= span.hi && span.hi <= end, "{d:?}");
    }
});
