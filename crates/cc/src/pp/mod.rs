//! The C99 preprocessor (§5.1.1.2 phases 1 to 4, §6.10) with OpenCL C 1.2's predefined
//! macros, producing the [`Token`]s the parser reads.
//!
//! [`preprocess`] reads, in order: the predefined macros (a built-in file `<built-in>`),
//! the prelude ([`PRELUDE`], `<prelude>`: limits, math constants, typedefs and the OpenCL C
//! math library), the `-D`/`-U` options (`<command line>`: after the prelude, so that they
//! cannot change the library's code), then the main file. All three
//! compiler-made files are in the [`SourceMap`] with `builtin: true`. The tokens of the
//! prelude come first in the result, then the main file's, then one [`TokenKind::Eof`].
//!
//! What the tokens look like:
//! - identifiers and keywords are [`TokenKind::Ident`] (the preprocessor does not know
//!   keywords);
//! - a pp-number is [`TokenKind::Float`] when it has a `.`, or an exponent (`e`/`E` in a
//!   decimal number, `p`/`P` in a hexadecimal one), and [`TokenKind::Int`] otherwise; its
//!   text is the number as written, suffixes included, and is not checked here (`1.2.3`,
//!   `0x1e+5`, `08` and `1f` reach the parser, which reports them);
//! - character constants and string literals keep their quotes and escapes as written;
//!   prefixed ones (`L"..."`, `u8"..."`, `u'x'`) are reported as unsupported and handed on
//!   without the prefix;
//! - punctuators are [`TokenKind::Punct`] with their canonical text (the digraph `<:` is
//!   `[` with text `"["`, its span covering `<:`);
//! - a token's `span` is where it is spelled: in the user's line, or in the `#define` for a
//!   token of a macro body. Tokens that come out of a macro body, `#` or `##` carry the
//!   [`ExpnId`] of that expansion; a pasted or stringized token is spelled at the
//!   invocation (its span is the call site). Tokens of a macro argument keep their own span
//!   and expansion (a token written in the file inside `MAX(a, b)` has `expansion: None`).
//!
//! Choices where C99 leaves room (documented in `docs/opencl.md`): `__DATE__` is
//! `"Jan  1 1970"` and `__TIME__` `"00:00:00"` so that output is reproducible; `__LINE__`
//! in a macro body is the line of the outermost invocation; an incompatible macro
//! redefinition is a warning (as in clang and gcc: real kernels redefine `M_PI`); directives
//! inside macro arguments are processed; `#include` looks in the including file's directory
//! and then the `-I` directories (`<...>`: only the `-I` directories); `-D` options are
//! applied before `-U` options; gcc's `, ## __VA_ARGS__` drops the comma when the variable
//! arguments are empty; `# 33 "file"` line markers are read as `#line`; pragmas are
//! consumed here and never reach the parser.

mod directive;
mod expand;
mod expr;
mod include;
mod lex;
mod macros;
mod options;
mod prelude;
mod prune;
mod token;

pub use options::Options;
pub use prelude::PRELUDE;
pub use prune::prune_prelude;

use crate::diag::{Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap, Span};
use crate::token::{Token, TokenKind};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;
use token::{PpKind, PpToken};

/// `#include` may nest this deep (beyond it the error is fatal: a file that includes itself
/// without a guard stops here).
pub const MAX_INCLUDE_DEPTH: usize = 200;

/// At most this many `#include` directives are carried out in one compilation (files that
/// include themselves twice without a guard would otherwise take 2^200 steps).
pub const MAX_INCLUDES: u64 = 100_000;

/// Macro expansion may produce at most this many tokens in all (a fatal error beyond:
/// macros that double their input blow up exponentially).
pub const MAX_EXPANDED_TOKENS: u64 = 10_000_000;

/// Tokens made by `#` and `##` may hold at most this many bytes in all.
pub const MAX_SYNTHESIZED_BYTES: u64 = 64 << 20;

/// Macro invocations may nest this deep inside other invocations' arguments (each level is
/// a recursion of the expander).
pub const MAX_ARGUMENT_NESTING: u32 = 200;

/// An included file may be at most this large.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The limits in force (the constants above; unit tests lower them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    include_depth: usize,
    includes: u64,
    expanded_tokens: u64,
    synthesized_bytes: u64,
    argument_nesting: u32,
}

impl Limits {
    const DEFAULT: Limits = Limits {
        include_depth: MAX_INCLUDE_DEPTH,
        includes: MAX_INCLUDES,
        expanded_tokens: MAX_EXPANDED_TOKENS,
        synthesized_bytes: MAX_SYNTHESIZED_BYTES,
        argument_nesting: MAX_ARGUMENT_NESTING,
    };
}

/// The names of the compiler-made files.
const BUILTIN_NAME: &str = "<built-in>";
const COMMAND_LINE_NAME: &str = "<command line>";
const PRELUDE_NAME: &str = "<prelude>";

/// Preprocess `main` (and what it includes, whose files are added to `sources`), after the
/// predefined macros, `opts` and the prelude. Errors go to `diags`; the tokens returned are
/// whatever could be made of the input, ending with one [`TokenKind::Eof`].
pub fn preprocess(
    sources: &mut SourceMap,
    main: FileId,
    opts: &Options,
    diags: &mut Diagnostics,
) -> Vec<Token> {
    preprocess_with(sources, main, opts, Limits::DEFAULT, diags)
}

fn preprocess_with(
    sources: &mut SourceMap,
    main: FileId,
    opts: &Options,
    limits: Limits,
    diags: &mut Diagnostics,
) -> Vec<Token> {
    let builtin = sources.add_file(BUILTIN_NAME, prelude::predefines(opts), true);
    let command_line = sources.add_file(COMMAND_LINE_NAME, prelude::command_line(opts), true);
    let prelude = sources.add_file(PRELUDE_NAME, PRELUDE, true);
    let mut pp = Preprocessor::new(sources, diags, opts, limits);
    pp.register_main(main);
    // The file stack is read from its top: main is at the bottom.
    let dir = pp.dir_of(main);
    pp.push_file(main, dir);
    pp.push_file(command_line, None);
    pp.frames.last_mut().expect("a frame").predefines = true;
    pp.push_file(prelude, None);
    pp.push_file(builtin, None);
    pp.frames.last_mut().expect("a frame").predefines = true;
    pp.define_builtins();
    pp.run()
}

/// One open `#if` group.
#[derive(Debug)]
struct Cond {
    /// The `#if`, `#ifdef` or `#ifndef` (for "unterminated" errors).
    span: Span,
    /// A group of this conditional has been (or is being) taken.
    taken: bool,
    /// `#else` has been seen.
    else_seen: bool,
}

/// A file being read.
#[derive(Debug)]
struct Frame {
    file: FileId,
    lexer: lex::Lexer,
    conds: Vec<Cond>,
    /// Where `#include "..."` looks first (none for the compiler's own files).
    dir: Option<PathBuf>,
    /// Set by `#line`: the real line from which presumed lines count, and the presumed line
    /// number there.
    line_base: Option<(u32, u32)>,
    /// Set by `#line N "name"`.
    presumed_name: Option<Rc<str>>,
    /// Macros defined here count as predefined (no "expanded from" location).
    predefines: bool,
    /// The end of the file was handed out; the next read pops the frame.
    ended: bool,
}

/// A list of tokens being rescanned: a macro's replacement (during which the macro is
/// disabled), an argument being expanded, a directive's line, or a token pushed back.
#[derive(Debug)]
struct Context {
    tokens: Vec<PpToken>,
    pos: usize,
    macro_name: Option<Rc<str>>,
}

/// How far down the context stack a read may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Floor {
    /// Into the files: the top level of the token stream.
    File,
    /// Not below context `k`: the expansion of a token list of its own.
    Isolated(usize),
}

pub(crate) struct Preprocessor<'a> {
    sources: &'a mut SourceMap,
    diags: &'a mut Diagnostics,
    opts: &'a Options,
    limits: Limits,
    macros: HashMap<Rc<str>, Rc<macros::Macro>>,
    frames: Vec<Frame>,
    contexts: Vec<Context>,
    /// How many contexts of each macro are on the stack (it is disabled while any is).
    active: HashMap<Rc<str>, u32>,
    /// The text of every file the lexers read, shared between inclusions.
    texts: HashMap<FileId, Rc<str>>,
    /// Files by canonical path.
    file_ids: HashMap<PathBuf, FileId>,
    pragma_once: HashSet<FileId>,
    /// `defined` is an operator (while a `#if` line is expanded).
    in_if: bool,
    /// The recursion depth of argument expansion.
    nesting: u32,
    expanded_tokens: u64,
    synthesized_bytes: u64,
    includes: u64,
    /// A limit was hit: everything stops.
    fatal: bool,
    main: FileId,
}

impl<'a> Preprocessor<'a> {
    fn new(
        sources: &'a mut SourceMap,
        diags: &'a mut Diagnostics,
        opts: &'a Options,
        limits: Limits,
    ) -> Preprocessor<'a> {
        Preprocessor {
            sources,
            diags,
            opts,
            limits,
            macros: HashMap::new(),
            frames: Vec::new(),
            contexts: Vec::new(),
            active: HashMap::new(),
            texts: HashMap::new(),
            file_ids: HashMap::new(),
            pragma_once: HashSet::new(),
            in_if: false,
            nesting: 0,
            expanded_tokens: 0,
            synthesized_bytes: 0,
            includes: 0,
            fatal: false,
            main: FileId(0),
        }
    }

    /// Start reading `file` on top of the file stack.
    fn push_file(&mut self, file: FileId, dir: Option<PathBuf>) {
        let text = self
            .texts
            .entry(file)
            .or_insert_with(|| Rc::from(self.sources.file(file).text.as_str()))
            .clone();
        self.frames.push(Frame {
            file,
            lexer: lex::Lexer::new(text, file),
            conds: Vec::new(),
            dir,
            line_base: None,
            presumed_name: None,
            predefines: false,
            ended: false,
        });
    }

    /// Everything, converted for the parser.
    fn run(mut self) -> Vec<Token> {
        let mut out = Vec::new();
        while let Some(tok) = self.next_expanded(Floor::File) {
            match tok.kind {
                PpKind::Eof => {
                    out.push(Token {
                        kind: TokenKind::Eof,
                        text: String::new(),
                        span: tok.span,
                        expansion: None,
                    });
                    break;
                }
                PpKind::FileEnd | PpKind::Placemarker | PpKind::Invalid => {}
                _ => {
                    if let Some(t) = self.finish(tok) {
                        out.push(t);
                    }
                }
            }
        }
        out
    }

    /// The end of everything, at the end of the main file.
    fn eof_token(&self) -> PpToken {
        let end = self.sources.file(self.main).text.len() as u32;
        PpToken::synthesized(PpKind::Eof, "", Span::new(self.main, end, end))
    }

    /// A preprocessing token as the parser's token (C99 phase 7's conversion), or `None`
    /// (with an error) for a stray character.
    fn finish(&mut self, tok: PpToken) -> Option<Token> {
        let kind = match tok.kind {
            PpKind::Ident => TokenKind::Ident,
            PpKind::Number => number_kind(&tok.text),
            PpKind::Char | PpKind::Str => {
                let quote = tok.text.find(['"', '\'']).unwrap_or(0);
                if quote > 0 {
                    self.diags.push(
                        Diagnostic::unsupported(
                            tok.span,
                            format!(
                                "'{}' prefixed character constants and string literals",
                                &tok.text[..quote]
                            ),
                        )
                        .in_expansion(tok.expansion),
                    );
                    return Some(Token {
                        kind: if tok.kind == PpKind::Str {
                            TokenKind::Str
                        } else {
                            TokenKind::Char
                        },
                        text: tok.text[quote..].to_string(),
                        span: tok.span,
                        expansion: tok.expansion,
                    });
                }
                if tok.kind == PpKind::Str {
                    TokenKind::Str
                } else {
                    TokenKind::Char
                }
            }
            PpKind::Punct(p) => {
                return Some(Token {
                    kind: TokenKind::Punct(p),
                    text: p.text().to_string(),
                    span: tok.span,
                    expansion: tok.expansion,
                })
            }
            PpKind::Stray => {
                let message = match tok.text.chars().next() {
                    Some('\0') => "null character in source".to_string(),
                    Some(c) if c.is_ascii_control() => {
                        format!("stray '\\x{:02x}' in program", c as u32)
                    }
                    Some(c) => format!("stray '{c}' in program"),
                    None => "stray character in program".to_string(),
                };
                self.diags
                    .push(Diagnostic::error(tok.span, message).in_expansion(tok.expansion));
                return None;
            }
            PpKind::Invalid | PpKind::Placemarker | PpKind::FileEnd | PpKind::Eof => return None,
        };
        Some(Token {
            kind,
            text: tok.text.to_string(),
            span: tok.span,
            expansion: tok.expansion,
        })
    }
}

/// Whether a pp-number is a floating constant: it has a `.`, or an exponent (`e`/`E` in a
/// decimal number, `p`/`P` in a hexadecimal one).
fn number_kind(text: &str) -> TokenKind {
    let hex = text.starts_with("0x") || text.starts_with("0X");
    let float = if hex {
        text.contains(['.', 'p', 'P'])
    } else {
        text.contains(['.', 'e', 'E'])
    };
    if float {
        TokenKind::Float
    } else {
        TokenKind::Int
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens and the errors of `src` under `limits`.
    fn run_limited(src: &str, limits: Limits) -> (Vec<Token>, Vec<String>) {
        let mut sources = SourceMap::new();
        let main = sources.add_file("k.cl", src, false);
        let mut diags = Diagnostics::new();
        let opts = Options::default();
        let toks = preprocess_with(&mut sources, main, &opts, limits, &mut diags);
        assert_eq!(toks.last().map(|t| &t.kind), Some(&TokenKind::Eof));
        // The first line of each rendered error (located at the user's line).
        let errors = diags.list.iter().map(|d| {
            let one = Diagnostics {
                list: vec![d.clone()],
            };
            one.render(&sources)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        });
        (toks, errors.collect())
    }

    #[test]
    fn exponential_expansion_is_capped() {
        // 2^40 tokens if nothing stopped it.
        let mut src = String::from("#define m0 x x\n");
        for i in 1..=40 {
            src.push_str(&format!("#define m{i} m{} m{}\n", i - 1, i - 1));
        }
        src.push_str("before m40 after\n");
        let limits = Limits {
            expanded_tokens: 100_000,
            ..Limits::DEFAULT
        };
        let (toks, errors) = run_limited(&src, limits);
        assert_eq!(
            errors,
            ["k.cl:42:8: error: macro expansion produced more than 100000 tokens"]
        );
        assert!(toks.len() < 100_000);
        assert!(
            toks.iter().all(|t| t.text != "after"),
            "preprocessing stops"
        );
    }

    #[test]
    fn pasting_growth_is_capped() {
        // Each level doubles one token's text.
        let mut src = String::from("#define P(a, b) a ## b\n#define D(a) P(a, a)\n");
        src.push_str(&"D(".repeat(60));
        src.push('x');
        src.push_str(&")".repeat(60));
        let limits = Limits {
            synthesized_bytes: 1 << 16,
            ..Limits::DEFAULT
        };
        let (_, errors) = run_limited(&src, limits);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].ends_with("'#' and '##' produced more than 65536 bytes of tokens"),
            "{errors:?}"
        );
        // Stringizing grows too.
        let mut src = String::from("#define S(a) #a\n#define D(a) S(a a)\n");
        src.push_str(&"D(".repeat(60));
        src.push('x');
        src.push_str(&")".repeat(60));
        let (_, errors) = run_limited(&src, limits);
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn include_count_is_capped() {
        let dir = std::env::temp_dir().join(format!("warpkit-cc-pp-count-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let main = dir.join("k.cl");
        std::fs::write(&main, "#include \"k.cl\"\n#include \"k.cl\"\n").unwrap();
        let mut sources = SourceMap::new();
        let id = sources.add_file(
            main.display().to_string(),
            std::fs::read_to_string(&main).unwrap(),
            false,
        );
        let mut diags = Diagnostics::new();
        let limits = Limits {
            includes: 50,
            ..Limits::DEFAULT
        };
        preprocess_with(&mut sources, id, &Options::default(), limits, &mut diags);
        std::fs::remove_dir_all(&dir).unwrap();
        let messages: Vec<_> = diags.list.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["more than 50 #include directives carried out"]);
    }

    #[test]
    fn numbers_are_classified() {
        for int in ["0", "42", "0x1fu", "10UL", "0x1e", "0x1e+5", "1f", "08"] {
            assert_eq!(number_kind(int), TokenKind::Int, "{int}");
        }
        for float in [
            "1.5f", "2e-3", "0x1p4", "1.0h", ".5", "1.", "1e5", "1.2.3", "0x1.8",
        ] {
            assert_eq!(number_kind(float), TokenKind::Float, "{float}");
        }
    }
}
