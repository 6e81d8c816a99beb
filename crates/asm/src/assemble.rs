//! Two passes over the source. Pass 1 finds statements, sizes them (an instruction's size
//! follows from its mnemonic alone) and defines labels; pass 2 evaluates operands against
//! the complete symbol table and encodes. Nothing is allocated per line except what the
//! result keeps (bytes, listing rows).

use crate::error::{closest, AsmError, AsmErrors, ErrorKind, MAX_ERRORS};
use crate::expr::{eval, ExprError, Lookup, Resolve, Val};
use crate::lex::{
    ident_end, is_ident_start, parse_f32_literal, parse_reg, skip_ws, strip_comment, RegTok,
};
use crate::{ListingLine, Program, Section, Symbol};
use std::collections::HashMap;
use warpkit_isa::{Instr, KindDef, Op, OperandClass, INSTRUCTIONS, MAX_OPERANDS};

/// Longest accepted source line, in bytes.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Largest accepted source, in bytes (256 MiB).
pub const MAX_SOURCE_BYTES: usize = 256 * 1024 * 1024;
/// Largest `.space` / `.align` a single directive may emit.
const MAX_FILL: u64 = 1 << 24;
const MAX_ALIGN: u64 = 1 << 16;
/// Largest section: a guard against sources that multiply bytes through directives.
const MAX_SECTION: u64 = 1 << 28;

const DIRECTIVES: &[&str] = &[
    ".text", ".data", ".section", ".byte", ".half", ".hword", ".short", ".word", ".long", ".int",
    ".dword", ".quad", ".align", ".balign", ".p2align", ".space", ".skip", ".zero", ".global",
    ".globl", ".equ", ".set",
];

/// Assemble `source`; `file_name` is used in diagnostics only.
pub fn assemble(source: &str, file_name: &str) -> Result<Program, AsmErrors> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(too_large(source.as_bytes(), file_name));
    }
    Asm::new(source, file_name).run()
}

/// Assemble raw file contents: checks the size limit and UTF-8 (reporting the line, column
/// and byte offset of the first bad byte) before [`assemble`].
pub fn assemble_bytes(bytes: &[u8], file_name: &str) -> Result<Program, AsmErrors> {
    if bytes.len() > MAX_SOURCE_BYTES {
        return Err(too_large(bytes, file_name));
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => assemble(s, file_name),
        Err(e) => {
            let offset = e.valid_up_to();
            let (line, column) = position(bytes, offset);
            Err(AsmErrors {
                file: file_name.into(),
                errors: vec![AsmError {
                    file: file_name.into(),
                    line,
                    column,
                    span: offset..offset + 1,
                    kind: ErrorKind::InvalidUtf8 { offset },
                }],
                dropped: 0,
            })
        }
    }
}

/// 1-based line and character column of byte `offset` (bytes before it are valid UTF-8).
fn position(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}

fn too_large(bytes: &[u8], file: &str) -> AsmErrors {
    let mut errors = vec![AsmError {
        file: file.into(),
        line: 1,
        column: 1,
        span: 0..0,
        kind: ErrorKind::SourceTooLarge {
            len: bytes.len(),
            limit: MAX_SOURCE_BYTES,
        },
    }];
    // Name the first over-long line too: that is usually what made the file huge.
    let mut start = 0;
    for (line, chunk) in (1..).zip(bytes.split(|&b| b == b'\n')) {
        if chunk.len() > MAX_LINE_BYTES {
            errors.push(AsmError {
                file: file.into(),
                line,
                column: 1,
                span: start..start,
                kind: ErrorKind::LineTooLong {
                    len: chunk.len(),
                    limit: MAX_LINE_BYTES,
                },
            });
            break;
        }
        start += chunk.len() + 1;
    }
    AsmErrors {
        file: file.into(),
        errors,
        dropped: 0,
    }
}

#[derive(Clone, Copy)]
enum SymDef {
    Label(Section, u64),
    /// `.equ` value; `None` while a forward reference is unresolved.
    Equ(Option<Val>),
    /// Its definition failed and was reported: uses stay silent.
    Poisoned,
}

struct Sym<'s> {
    name: &'s str,
    def: SymDef,
    line: u32,
    global: bool,
}

#[derive(Clone, Copy)]
enum StmtKind {
    Instr(Op),
    Data { width: u8, name: &'static str },
    Fill(u64),
    Equ(usize),
}

#[derive(Clone, Copy)]
struct Stmt {
    kind: StmtKind,
    line_no: u32,
    /// Byte range of the line's code (comment stripped) in the source.
    line_start: usize,
    line_end: usize,
    /// End of the whole line (comment included, line ending excluded).
    raw_end: usize,
    /// Operand text, relative to the line.
    ops_start: u32,
    ops_end: u32,
    section: Section,
    addr: u64,
}

struct Asm<'s> {
    src: &'s str,
    file: &'s str,
    errors: Vec<AsmError>,
    dropped: usize,
    syms: Vec<Sym<'s>>,
    map: HashMap<&'s str, usize, crate::lex::FastHash>,
    /// Forward `.equ`s, resolved after pass 1.
    stmts: Vec<Stmt>,
    /// Statements that referred to symbols not yet defined: encoded again after pass 1.
    fixups: Vec<Stmt>,
    out: [Vec<u8>; 2],
    listing: Vec<ListingLine>,
    scratch: Vec<(u32, usize, LineErr)>,
    globals: Vec<(&'s str, u32, usize, usize, usize)>,
    section: Section,
    pos: [u64; 2],
    any_statement: bool,
}

struct Here<'a, 's> {
    asm: &'a Asm<'s>,
    here: Val,
}

impl Resolve for Here<'_, '_> {
    fn symbol(&self, name: &str) -> Lookup {
        match self.asm.map.get(name).map(|&i| self.asm.syms[i].def) {
            Some(SymDef::Label(sec, off)) => Lookup::Found(Val {
                v: i128::from(off),
                sec: Some(sec),
            }),
            Some(SymDef::Equ(Some(v))) => Lookup::Found(v),
            Some(SymDef::Equ(None) | SymDef::Poisoned) => Lookup::Pending,
            None => Lookup::Undefined,
        }
    }

    fn here(&self) -> Val {
        self.here
    }

    fn similar(&self, name: &str) -> Option<String> {
        closest(name, self.asm.syms.iter().map(|s| s.name)).map(String::from)
    }
}

fn sec_index(s: Section) -> usize {
    match s {
        Section::Text => 0,
        Section::Data => 1,
    }
}

/// PC-relative offsets (section 2.4: "relative to this instruction's address") are the
/// operand types whose database description says so; a label there means "offset to it".
fn pc_relative(kind: &KindDef) -> bool {
    kind.ty.description.contains("PC-relative")
}

/// A located failure inside one line.
struct LineErr {
    start: usize,
    end: usize,
    kind: Box<ErrorKind>,
    /// Already reported elsewhere (a poisoned symbol): stay silent.
    silent: bool,
    /// Refers to a symbol that may be defined further down: retry after pass 1.
    forward: bool,
}

impl From<ExprError> for LineErr {
    fn from(e: ExprError) -> LineErr {
        LineErr {
            start: e.start,
            end: e.end,
            forward: e.pending || matches!(*e.kind, ErrorKind::UndefinedSymbol { .. }),
            kind: e.kind,
            silent: e.pending,
        }
    }
}

fn lerr(start: usize, end: usize, kind: ErrorKind) -> LineErr {
    LineErr {
        start,
        end,
        kind: Box::new(kind),
        silent: false,
        forward: false,
    }
}

/// Trim blanks from `line[s..e]`, returning the narrowed range.
fn trim_range(b: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && matches!(b[s], b' ' | b'\t' | b'\r') {
        s += 1;
    }
    while e > s && matches!(b[e - 1], b' ' | b'\t' | b'\r') {
        e -= 1;
    }
    (s, e)
}

/// Split `line[s..e]` at commas into at most `out.len()` trimmed ranges; returns how many
/// operands there are in total (possibly more than fit).
fn split_operands(b: &[u8], s: usize, e: usize, out: &mut [(usize, usize)]) -> usize {
    if s >= e {
        return 0;
    }
    let mut n = 0;
    let mut start = s;
    for i in s..=e {
        if i == e || b[i] == b',' {
            if n < out.len() {
                out[n] = trim_range(b, start, i);
            }
            n += 1;
            start = i + 1;
        }
    }
    n
}

fn quote(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    format!("`{s}`")
}

impl<'s> Asm<'s> {
    fn new(src: &'s str, file: &'s str) -> Asm<'s> {
        Asm {
            src,
            file,
            errors: Vec::new(),
            dropped: 0,
            syms: Vec::new(),
            map: HashMap::default(),
            stmts: Vec::new(),
            fixups: Vec::new(),
            out: [Vec::with_capacity(src.len() / 5), Vec::new()],
            listing: Vec::with_capacity(src.len() / 24),
            scratch: Vec::new(),
            globals: Vec::new(),
            section: Section::Text,
            pos: [0, 0],
            any_statement: false,
        }
    }

    fn push_err(&mut self, line_no: u32, line_start: usize, line: &str, e: LineErr) {
        if e.silent {
            return;
        }
        if self.errors.len() >= MAX_ERRORS {
            self.dropped += 1;
            return;
        }
        let start = e.start.min(line.len());
        let column = line.get(..start).map_or(start, |p| p.chars().count()) + 1;
        self.errors.push(AsmError {
            file: self.file.into(),
            line: line_no as usize,
            column,
            span: line_start + start..line_start + e.end.max(start),
            kind: *e.kind,
        });
    }

    fn run(mut self) -> Result<Program, AsmErrors> {
        self.pass1();
        self.resolve_equs();
        self.fixups();
        self.check_globals();
        let [text, data] = std::mem::take(&mut self.out);
        let program = Program {
            text,
            data,
            symbols: self.symbols(),
            listing: std::mem::take(&mut self.listing),
        };
        if self.errors.is_empty() && self.dropped == 0 && !self.any_statement {
            self.errors.push(AsmError {
                file: self.file.into(),
                line: 1,
                column: 1,
                span: 0..0,
                kind: ErrorKind::Empty,
            });
        }
        if self.errors.is_empty() && self.dropped == 0 {
            return Ok(program);
        }
        self.errors.sort_by_key(|e| (e.line, e.column));
        Err(AsmErrors {
            file: self.file.into(),
            errors: self.errors,
            dropped: self.dropped,
        })
    }

    // ---------------------------------------------------------------- pass 1

    fn pass1(&mut self) {
        let src = self.src;
        let mut newlines = memchr::memchr_iter(b'\n', src.as_bytes());
        let mut this_start = 0usize;
        let mut line_no = 0u32;
        loop {
            let end = newlines.next().unwrap_or(src.len());
            // `\n` is ASCII, so both ends are character boundaries.
            let raw_line = &src[this_start..end];
            line_no += 1;
            let next_start = end + 1;
            self.line0(line_no, this_start, raw_line);
            if end >= src.len() {
                break;
            }
            this_start = next_start;
        }
    }

    fn line0(&mut self, line_no: u32, mut this_start: usize, mut raw_line: &'s str) {
        // A UTF-8 byte order mark is not part of the first statement.
        if this_start == 0 {
            if let Some(rest) = raw_line.strip_prefix('\u{feff}') {
                raw_line = rest;
                this_start = 3;
            }
        }
        {
            if raw_line.len() > MAX_LINE_BYTES {
                self.push_err(
                    line_no,
                    this_start,
                    "",
                    lerr(
                        0,
                        0,
                        ErrorKind::LineTooLong {
                            len: raw_line.len(),
                            limit: MAX_LINE_BYTES,
                        },
                    ),
                );
                return;
            }
            let code = strip_comment(raw_line);
            self.line1(line_no, this_start, code, raw_line.len());
        }
    }

    fn line1(&mut self, line_no: u32, line_start: usize, code: &'s str, raw_len: usize) {
        let b = code.as_bytes();
        let mut pos = skip_ws(b, 0);
        // Labels: `name:`, possibly several, before the statement.
        let mut word_end = None;
        while pos < b.len() && is_ident_start(b[pos]) {
            let e = ident_end(b, pos);
            let after = skip_ws(b, e);
            if b.get(after) != Some(&b':') {
                word_end = Some(e);
                break;
            }
            self.any_statement = true;
            let name = &code[pos..e];
            let sec = self.section;
            let off = self.pos[sec_index(sec)];
            self.define(
                line_no,
                line_start,
                code,
                pos,
                e,
                name,
                SymDef::Label(sec, off),
            );
            pos = skip_ws(b, after + 1);
        }
        let (_, end) = trim_range(b, pos, b.len());
        if pos >= end {
            return;
        }
        self.any_statement = true;
        if !is_ident_start(b[pos]) {
            let ch = code[pos..].chars().next().unwrap_or(' ');
            self.push_err(
                line_no,
                line_start,
                code,
                lerr(
                    pos,
                    pos + ch.len_utf8(),
                    ErrorKind::Syntax(format!(
                        "expected a mnemonic, a directive or a label, found `{ch}`"
                    )),
                ),
            );
            return;
        }
        let word_end = word_end.unwrap_or_else(|| ident_end(b, pos));
        let word = &code[pos..word_end];
        let ops_start = skip_ws(b, word_end).min(end);
        let mut stmt = Stmt {
            kind: StmtKind::Fill(0),
            line_no,
            line_start,
            line_end: line_start + end,
            raw_end: line_start + raw_len,
            ops_start: ops_start as u32,
            ops_end: end as u32,
            section: self.section,
            addr: self.pos[sec_index(self.section)],
        };
        if word.starts_with('.') {
            self.directive1(&mut stmt, code, pos, word_end);
            return;
        }
        match crate::lex::lookup_mnemonic(word) {
            Some(op) => {
                stmt.kind = StmtKind::Instr(op);
                self.advance(op.def().len() as u64, &stmt, code);
                self.emit(stmt, code);
            }
            None => {
                let suggestion = closest(word, INSTRUCTIONS.iter().map(|d| d.mnemonic));
                self.push_err(
                    line_no,
                    line_start,
                    code,
                    lerr(
                        pos,
                        word_end,
                        ErrorKind::UnknownMnemonic {
                            found: word.into(),
                            suggestion,
                        },
                    ),
                );
            }
        }
    }

    fn advance(&mut self, len: u64, stmt: &Stmt, code: &str) {
        let i = sec_index(stmt.section);
        let before = self.pos[i];
        self.pos[i] = before.saturating_add(len);
        if before <= MAX_SECTION && self.pos[i] > MAX_SECTION {
            self.push_err(
                stmt.line_no,
                stmt.line_start,
                code,
                lerr(
                    0,
                    code.len(),
                    ErrorKind::SectionTooLarge {
                        section: stmt.section,
                        limit: MAX_SECTION,
                    },
                ),
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn define(
        &mut self,
        line_no: u32,
        line_start: usize,
        code: &str,
        s: usize,
        e: usize,
        name: &'s str,
        def: SymDef,
    ) -> Option<usize> {
        if let Some(&i) = self.map.get(name) {
            let first_line = self.syms[i].line as usize;
            self.push_err(
                line_no,
                line_start,
                code,
                lerr(
                    s,
                    e,
                    ErrorKind::DuplicateSymbol {
                        name: name.into(),
                        first_line,
                    },
                ),
            );
            return None;
        }
        let i = self.syms.len();
        self.syms.push(Sym {
            name,
            def,
            line: line_no,
            global: false,
        });
        self.map.insert(name, i);
        Some(i)
    }

    /// Evaluate an expression that must be known during pass 1.
    fn const_expr(&self, code: &str, s: usize, e: usize, stmt: &Stmt) -> Result<Val, ExprError> {
        let r = Here {
            asm: self,
            here: Val {
                v: i128::from(stmt.addr),
                sec: Some(stmt.section),
            },
        };
        eval(code, s, e, &r)
    }

    fn directive1(&mut self, stmt: &mut Stmt, code: &'s str, ws: usize, we: usize) {
        let word = &code[ws..we];
        let lower = word.to_ascii_lowercase();
        let b = code.as_bytes();
        let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
        let no_operands = |asm: &mut Self| {
            if os < oe {
                asm.push_err(
                    stmt.line_no,
                    stmt.line_start,
                    code,
                    lerr(
                        os,
                        oe,
                        ErrorKind::Syntax(format!("`{lower}` takes no operands")),
                    ),
                );
            }
        };
        match lower.as_str() {
            ".text" => {
                no_operands(self);
                self.section = Section::Text;
            }
            ".data" => {
                no_operands(self);
                self.section = Section::Data;
            }
            ".section" => {
                let name = code[os..oe].split(',').next().unwrap_or("").trim();
                match name.trim_start_matches('.') {
                    "text" => self.section = Section::Text,
                    "data" => self.section = Section::Data,
                    _ => self.push_err(
                        stmt.line_no,
                        stmt.line_start,
                        code,
                        lerr(
                            os,
                            oe.max(os + 1),
                            ErrorKind::UnknownSection { found: name.into() },
                        ),
                    ),
                }
            }
            ".byte" | ".half" | ".hword" | ".short" | ".word" | ".long" | ".int" | ".dword"
            | ".quad" => {
                let (width, name) = match lower.as_str() {
                    ".byte" => (1, ".byte"),
                    ".half" | ".hword" | ".short" => (2, ".half"),
                    ".word" | ".long" | ".int" => (4, ".word"),
                    _ => (8, ".dword"),
                };
                let n = split_operands(b, os, oe, &mut []);
                if n == 0 {
                    self.push_err(
                        stmt.line_no,
                        stmt.line_start,
                        code,
                        lerr(
                            ws,
                            we,
                            ErrorKind::Syntax(format!("`{name}` needs at least one value")),
                        ),
                    );
                    return;
                }
                stmt.kind = StmtKind::Data { width, name };
                self.advance(n as u64 * u64::from(width), stmt, code);
                self.emit(*stmt, code);
            }
            ".align" | ".balign" | ".p2align" | ".space" | ".skip" | ".zero" => {
                let is_align = lower.contains("align");
                let what = if is_align {
                    "the alignment"
                } else {
                    "the size"
                };
                let v = match self.const_expr(code, os, oe, stmt) {
                    Ok(v) => v.v,
                    Err(e) if matches!(*e.kind, ErrorKind::UndefinedSymbol { .. }) => {
                        let kind = ErrorKind::NotConstant { what };
                        self.push_err(
                            stmt.line_no,
                            stmt.line_start,
                            code,
                            lerr(e.start, e.end, kind),
                        );
                        return;
                    }
                    Err(e) => {
                        self.push_err(stmt.line_no, stmt.line_start, code, e.into());
                        return;
                    }
                };
                let len = if is_align {
                    let align = if lower == ".p2align" {
                        if (0..=16).contains(&v) {
                            1i128 << v
                        } else {
                            -1
                        }
                    } else {
                        v
                    };
                    if align < 1 || align > i128::from(MAX_ALIGN) || align.count_ones() != 1 {
                        self.push_err(
                            stmt.line_no,
                            stmt.line_start,
                            code,
                            lerr(
                                os,
                                oe,
                                ErrorKind::BadAlign {
                                    value: v,
                                    max: MAX_ALIGN,
                                },
                            ),
                        );
                        return;
                    }
                    let a = align as u64;
                    stmt.addr.next_multiple_of(a) - stmt.addr
                } else {
                    if !(0..=i128::from(MAX_FILL)).contains(&v) {
                        self.push_err(
                            stmt.line_no,
                            stmt.line_start,
                            code,
                            lerr(
                                os,
                                oe,
                                ErrorKind::BadSize {
                                    directive: if lower == ".space" { ".space" } else { ".skip" },
                                    value: v,
                                    max: MAX_FILL,
                                },
                            ),
                        );
                        return;
                    }
                    v as u64
                };
                stmt.kind = StmtKind::Fill(len);
                self.advance(len, stmt, code);
                self.emit(*stmt, code);
            }
            ".global" | ".globl" => {
                let mut ranges = [(0usize, 0usize); 64];
                let n = split_operands(b, os, oe, &mut ranges);
                if n == 0 {
                    self.push_err(
                        stmt.line_no,
                        stmt.line_start,
                        code,
                        lerr(
                            ws,
                            we,
                            ErrorKind::Syntax("`.global` needs a symbol name".into()),
                        ),
                    );
                }
                let mut extra = n.saturating_sub(ranges.len());
                for &(s, e) in ranges.iter().take(n) {
                    if !self.symbol_name(stmt, code, s, e) {
                        continue;
                    }
                    self.globals
                        .push((&code[s..e], stmt.line_no, stmt.line_start, s, e));
                }
                // Very long `.global` lists: handle the rest one by one.
                let mut rest = code[os..oe].split(',').skip(ranges.len());
                while extra > 0 {
                    extra -= 1;
                    if let Some(part) = rest.next() {
                        let t = part.trim();
                        let s = t.as_ptr() as usize - code.as_ptr() as usize;
                        if self.symbol_name(stmt, code, s, s + t.len()) {
                            self.globals.push((
                                &code[s..s + t.len()],
                                stmt.line_no,
                                stmt.line_start,
                                s,
                                s + t.len(),
                            ));
                        }
                    }
                }
            }
            ".equ" | ".set" => {
                let comma = code[os..oe].find(',').map(|i| os + i);
                let Some(comma) = comma else {
                    self.push_err(
                        stmt.line_no,
                        stmt.line_start,
                        code,
                        lerr(
                            ws,
                            oe.max(we),
                            ErrorKind::Syntax(format!("`{lower}` needs `name, value`")),
                        ),
                    );
                    return;
                };
                let (s, e) = trim_range(b, os, comma);
                if !self.symbol_name(stmt, code, s, e) {
                    return;
                }
                let name = &code[s..e];
                let value = match self.const_expr(code, comma + 1, oe, stmt) {
                    Ok(v) => SymDef::Equ(Some(v)),
                    Err(err) if matches!(*err.kind, ErrorKind::UndefinedSymbol { .. }) => {
                        SymDef::Equ(None)
                    }
                    Err(err) => {
                        self.push_err(stmt.line_no, stmt.line_start, code, err.into());
                        SymDef::Poisoned
                    }
                };
                if let Some(i) = self.define(stmt.line_no, stmt.line_start, code, s, e, name, value)
                {
                    if matches!(value, SymDef::Equ(None)) {
                        stmt.kind = StmtKind::Equ(i);
                        stmt.ops_start = (comma + 1) as u32;
                        self.stmts.push(*stmt);
                    }
                }
            }
            _ => {
                let suggestion = closest(word, DIRECTIVES.iter().copied());
                self.push_err(
                    stmt.line_no,
                    stmt.line_start,
                    code,
                    lerr(
                        ws,
                        we,
                        ErrorKind::UnknownDirective {
                            found: word.into(),
                            suggestion,
                        },
                    ),
                );
            }
        }
    }

    /// Check that `code[s..e]` is a symbol name; report it otherwise.
    fn symbol_name(&mut self, stmt: &Stmt, code: &str, s: usize, e: usize) -> bool {
        let b = code.as_bytes();
        if s < e && is_ident_start(b[s]) && ident_end(b, s) == e && &code[s..e] != "." {
            return true;
        }
        let found = if s < e {
            quote(&code[s..e])
        } else {
            "nothing".into()
        };
        self.push_err(
            stmt.line_no,
            stmt.line_start,
            code,
            lerr(
                s,
                e.max(s + 1),
                ErrorKind::Syntax(format!("expected a symbol name, found {found}")),
            ),
        );
        false
    }

    /// Forward `.equ`s: evaluate until nothing changes; what is left refers to itself.
    fn resolve_equs(&mut self) {
        let pending: Vec<Stmt> = self
            .stmts
            .iter()
            .filter(|s| matches!(s.kind, StmtKind::Equ(_)))
            .copied()
            .collect();
        if pending.is_empty() {
            return;
        }
        let mut left = pending;
        loop {
            let before = left.len();
            let mut still = Vec::new();
            for stmt in left {
                let StmtKind::Equ(i) = stmt.kind else {
                    continue;
                };
                let code = &self.src[stmt.line_start..stmt.line_end];
                match self.const_expr(code, stmt.ops_start as usize, stmt.ops_end as usize, &stmt) {
                    Ok(v) => self.syms[i].def = SymDef::Equ(Some(v)),
                    Err(e) if e.pending => still.push(stmt),
                    Err(e) => {
                        self.syms[i].def = SymDef::Poisoned;
                        self.push_err(stmt.line_no, stmt.line_start, code, e.into());
                    }
                }
            }
            if still.is_empty() {
                return;
            }
            if still.len() == before {
                for stmt in &still {
                    let StmtKind::Equ(i) = stmt.kind else {
                        continue;
                    };
                    let code = &self.src[stmt.line_start..stmt.line_end];
                    let name = self.syms[i].name;
                    let s = name.as_ptr() as usize - code.as_ptr() as usize;
                    self.push_err(
                        stmt.line_no,
                        stmt.line_start,
                        code,
                        lerr(
                            s,
                            s + name.len(),
                            ErrorKind::CircularSymbol { name: name.into() },
                        ),
                    );
                }
                for stmt in &still {
                    if let StmtKind::Equ(i) = stmt.kind {
                        self.syms[i].def = SymDef::Poisoned;
                    }
                }
                return;
            }
            left = still;
        }
    }

    fn check_globals(&mut self) {
        let globals = std::mem::take(&mut self.globals);
        for (name, line_no, line_start, s, e) in globals {
            match self.map.get(name) {
                Some(&i) if matches!(self.syms[i].def, SymDef::Label(..)) => {
                    self.syms[i].global = true;
                }
                _ => {
                    let line_end = self.src[line_start..]
                        .find('\n')
                        .map_or(self.src.len(), |i| line_start + i);
                    let code = &self.src[line_start..line_end];
                    self.push_err(
                        line_no,
                        line_start,
                        code,
                        lerr(s, e, ErrorKind::UndefinedGlobal { name: name.into() }),
                    );
                }
            }
        }
    }

    // ---------------------------------------------------------------- pass 2

    /// Encode a statement during pass 1. If it refers to a symbol not defined yet, its bytes
    /// are placeholders and it is queued for [`Asm::fixups`].
    fn emit(&mut self, stmt: Stmt, code: &str) {
        let i = sec_index(stmt.section);
        let len = self.pos[i] - stmt.addr;
        if self.pos[i] > MAX_SECTION {
            return;
        }
        let mut out = std::mem::take(&mut self.out[i]);
        let mut errs = std::mem::take(&mut self.scratch);
        let at = out.len();
        match stmt.kind {
            StmtKind::Instr(op) => self.instr(op, &stmt, code, &mut out, &mut errs),
            StmtKind::Data { width, name } => {
                self.data(width, name, &stmt, code, &mut out, &mut errs)
            }
            StmtKind::Fill(n) => out.resize(at + n as usize, 0),
            StmtKind::Equ(_) => {}
        }
        if errs.iter().any(|(_, _, e)| e.forward) {
            errs.clear();
            self.fixups.push(stmt);
        }
        for (line_no, line_start, e) in errs.drain(..) {
            self.push_err(line_no, line_start, code, e);
        }
        if len > 0 {
            self.listing.push(ListingLine {
                section: stmt.section,
                address: stmt.addr,
                len,
                line: stmt.line_no as usize,
                source: stmt.line_start..stmt.raw_end,
            });
        }
        self.out[i] = out;
        self.scratch = errs;
    }

    /// Pass 2: encode again the statements that referred to later symbols, in place.
    fn fixups(&mut self) {
        let fixups = std::mem::take(&mut self.fixups);
        let mut tmp = Vec::new();
        let mut errs = Vec::new();
        for stmt in &fixups {
            let code = &self.src[stmt.line_start..stmt.line_end];
            tmp.clear();
            match stmt.kind {
                StmtKind::Instr(op) => self.instr(op, stmt, code, &mut tmp, &mut errs),
                StmtKind::Data { width, name } => {
                    self.data(width, name, stmt, code, &mut tmp, &mut errs)
                }
                StmtKind::Fill(_) | StmtKind::Equ(_) => {}
            }
            for (line_no, line_start, e) in errs.drain(..) {
                self.push_err(line_no, line_start, code, e);
            }
            let out = &mut self.out[sec_index(stmt.section)];
            let at = stmt.addr as usize;
            if let Some(dst) = out.get_mut(at..at + tmp.len()) {
                dst.copy_from_slice(&tmp);
            }
        }
    }

    fn instr(
        &self,
        op: Op,
        stmt: &Stmt,
        code: &str,
        out: &mut Vec<u8>,
        errs: &mut Vec<(u32, usize, LineErr)>,
    ) {
        let def = op.def();
        let b = code.as_bytes();
        let mut ranges = [(0usize, 0usize); MAX_OPERANDS + 2];
        let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
        let n = split_operands(b, os, oe, &mut ranges);
        let mut raw = [0u32; MAX_OPERANDS];
        let mut given = [false; MAX_OPERANDS];
        let mut positional = 0usize;
        let mut ok = true;
        let here = Val {
            v: i128::from(stmt.addr),
            sec: Some(stmt.section),
        };
        let fail = |errs: &mut Vec<(u32, usize, LineErr)>, e: LineErr| {
            errs.push((stmt.line_no, stmt.line_start, e));
        };
        let has_keyed = def.operands.iter().any(|o| o.kind.keyed);
        let npos = def.operands.iter().filter(|o| !o.kind.keyed).count();
        let required = def
            .operands
            .iter()
            .filter(|o| !o.kind.keyed && !o.kind.optional)
            .count();
        // Positional operands go to the non-keyed operands in order; `key=value` to the
        // keyed operand of that name.
        let mut slots = def
            .operands
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.kind.keyed);
        for &(s, e) in ranges.iter().take(n.min(ranges.len())) {
            if s == e {
                ok = false;
                fail(
                    errs,
                    lerr(
                        s.saturating_sub(1),
                        s.max(1),
                        ErrorKind::Syntax("expected an operand before `,`".into()),
                    ),
                );
                continue;
            }
            let (mut vs, key) = if has_keyed {
                key_of(b, s, e)
            } else {
                (s, None)
            };
            let index = if let Some((ks, ke)) = key {
                let key = &code[ks..ke];
                match def
                    .operands
                    .iter()
                    .position(|o| o.kind.keyed && o.name.eq_ignore_ascii_case(key))
                {
                    Some(i) if given[i] => {
                        ok = false;
                        fail(
                            errs,
                            lerr(ks, ke, ErrorKind::DuplicateKey { key: key.into() }),
                        );
                        continue;
                    }
                    Some(i) => i,
                    None => {
                        ok = false;
                        let keys: Vec<_> = def
                            .operands
                            .iter()
                            .filter(|o| o.kind.keyed)
                            .map(|o| o.name)
                            .collect();
                        fail(
                            errs,
                            lerr(
                                ks,
                                ke,
                                ErrorKind::UnknownKey {
                                    mnemonic: def.mnemonic,
                                    key: key.into(),
                                    keys: if keys.is_empty() {
                                        "none".into()
                                    } else {
                                        keys.join(", ")
                                    },
                                },
                            ),
                        );
                        continue;
                    }
                }
            } else {
                positional += 1;
                match slots.next() {
                    Some((i, _)) => i,
                    None => continue,
                }
            };
            given[index] = true;
            vs = skip_ws(b, vs).min(e);
            if vs >= e {
                ok = false;
                fail(
                    errs,
                    lerr(
                        s,
                        e,
                        ErrorKind::Syntax(format!(
                            "expected a value after `{}=`",
                            def.operands[index].name
                        )),
                    ),
                );
                continue;
            }
            match operand(
                def.operands[index].kind,
                code,
                vs,
                e,
                &Here { asm: self, here },
            ) {
                Ok(v) => raw[index] = v,
                Err(err) => {
                    ok = false;
                    fail(errs, err);
                }
            }
        }
        let extra_ops = n > ranges.len();
        if positional < required || positional > npos || extra_ops {
            ok = false;
            let expected = if required == npos {
                required.to_string()
            } else {
                format!("{required} to {npos}")
            };
            let syntax = syntax_of(def);
            let (s, e) = if positional > npos || extra_ops {
                // Point at the first operand too many.
                let first_extra = ranges
                    .iter()
                    .take(n.min(ranges.len()))
                    .filter(|&&(s, e)| key_of(b, s, e).1.is_none())
                    .nth(npos)
                    .map_or(os, |r| r.0);
                (first_extra, oe)
            } else {
                (oe, oe + 1)
            };
            fail(
                errs,
                lerr(
                    s,
                    e,
                    ErrorKind::OperandCount {
                        mnemonic: def.mnemonic,
                        expected,
                        found: positional + n.saturating_sub(ranges.len()),
                        syntax,
                    },
                ),
            );
        }
        if ok {
            for (i, o) in def.operands.iter().enumerate() {
                if !given[i] {
                    raw[i] = o.kind.default.unwrap_or(0);
                }
            }
            match Instr::from_raw(op, &raw[..def.operands.len()]) {
                Ok(ins) => {
                    // Fixed-size appends: a variable-length one would call memcpy.
                    let w = ins.encode();
                    if def.len() == 8 {
                        out.extend_from_slice(&w.to_le_bytes());
                    } else {
                        out.extend_from_slice(&(w as u32).to_le_bytes());
                    }
                    return;
                }
                Err(e) => fail(errs, lerr(os, oe, ErrorKind::Syntax(e.to_string()))),
            }
        }
        out.resize(out.len() + def.len(), 0);
    }

    fn data(
        &self,
        width: u8,
        name: &'static str,
        stmt: &Stmt,
        code: &str,
        out: &mut Vec<u8>,
        errs: &mut Vec<(u32, usize, LineErr)>,
    ) {
        let b = code.as_bytes();
        let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
        let bits = u32::from(width) * 8;
        let lo = -(1i128 << (bits - 1));
        let hi = (1i128 << bits) - 1;
        let mut start = os;
        let mut addr = stmt.addr;
        for i in os..=oe {
            if i != oe && b[i] != b',' {
                continue;
            }
            let (s, e) = trim_range(b, start, i);
            start = i + 1;
            let here = Val {
                v: i128::from(addr),
                sec: Some(stmt.section),
            };
            addr += u64::from(width);
            let value = if let Some(f) = parse_f32_literal(&code[s..e]).filter(|_| width >= 4) {
                if width == 4 && !f.is_finite() {
                    Err(lerr(
                        s,
                        e,
                        ErrorKind::FloatOverflow {
                            text: code[s..e].into(),
                        },
                    ))
                } else if width == 4 {
                    Ok(i128::from(f.to_bits()))
                } else {
                    Ok(i128::from(
                        code[s..e].parse::<f64>().map_or(0, f64::to_bits),
                    ))
                }
            } else if s == e {
                Err(lerr(
                    s.saturating_sub(1),
                    s.max(1),
                    ErrorKind::Syntax("expected a value before `,`".into()),
                ))
            } else {
                eval(code, s, e, &Here { asm: self, here })
                    .map(|v| v.v)
                    .map_err(LineErr::from)
            };
            let v = match value {
                Ok(v) if v < lo || v > hi => {
                    errs.push((
                        stmt.line_no,
                        stmt.line_start,
                        lerr(
                            s,
                            e,
                            ErrorKind::DataOutOfRange {
                                directive: name,
                                value: v,
                                bits,
                                lo,
                                hi,
                            },
                        ),
                    ));
                    0
                }
                Ok(v) => v,
                Err(err) => {
                    errs.push((stmt.line_no, stmt.line_start, err));
                    0
                }
            };
            out.extend_from_slice(&(v as u64).to_le_bytes()[..usize::from(width)]);
        }
    }

    fn symbols(&self) -> Vec<Symbol> {
        self.syms
            .iter()
            .filter_map(|s| match s.def {
                SymDef::Label(section, offset) => Some(Symbol {
                    name: s.name.into(),
                    section,
                    offset,
                    global: s.global,
                }),
                _ => None,
            })
            .collect()
    }
}

/// `key=value`: the key's range and where the value starts; otherwise the operand start.
fn key_of(b: &[u8], s: usize, e: usize) -> (usize, Option<(usize, usize)>) {
    if s < e && is_ident_start(b[s]) {
        let ke = ident_end(b, s).min(e);
        let eq = skip_ws(b, ke);
        if eq < e && b[eq] == b'=' {
            return (eq + 1, Some((s, ke)));
        }
    }
    (s, None)
}

/// The operand syntax of an instruction, for count errors: `rd:v, rs1:v, imm:s8`.
fn syntax_of(def: &warpkit_isa::InstrDef) -> String {
    let mut parts = Vec::new();
    for o in def.operands {
        let k = o.kind;
        parts.push(if k.keyed {
            format!("[{}=<{}>]", o.name, k.kind)
        } else if k.optional {
            format!("[{}:{}]", o.name, k.kind)
        } else {
            format!("{}:{}", o.name, k.kind)
        });
    }
    if parts.is_empty() {
        "no operands".into()
    } else {
        parts.join(", ")
    }
}

fn register_expectation(kind: &KindDef) -> String {
    let ty = kind.ty;
    let (p, what) = if ty.class == OperandClass::VReg {
        ('v', "vector")
    } else {
        ('u', "uniform")
    };
    let regs = u32::from(kind.regs);
    let align = u32::from(ty.align.max(1));
    if ty.half {
        format!("a 16-bit {what} register half like {p}5.l or {p}5.h")
    } else if regs == 1 {
        format!("a {what} register like {p}5")
    } else if regs == 2 && align == 2 {
        format!("an even register pair like {p}[4:5]")
    } else {
        let first = 4u32.next_multiple_of(align);
        let aligned = if align > 1 {
            format!("{align}-aligned ")
        } else {
            String::new()
        };
        format!(
            "a {aligned}group of {regs} {what} registers like {p}[{first}:{}]",
            first + regs - 1
        )
    }
}

/// The raw field value of one operand written as `line[s..e]` (trimmed).
fn operand(
    kind: &'static KindDef,
    line: &str,
    s: usize,
    e: usize,
    r: &Here,
) -> Result<u32, LineErr> {
    let ty = kind.ty;
    let here = r.here;
    let text = &line[s..e];
    match ty.class {
        OperandClass::VReg | OperandClass::UReg => register(kind, text, s, e),
        OperandClass::Enum => {
            let (s, text) = strip_hash(line, s, e);
            let b = line.as_bytes();
            if let Some(v) = ty.value_of(text) {
                return Ok(v);
            }
            if s < e && is_ident_start(b[s]) && ident_end(b, s) == e {
                let names: Vec<_> = ty.values.iter().map(|(n, _)| *n).collect();
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::UnknownEnum {
                        kind: kind.kind,
                        found: text.into(),
                        names: names.join(", "),
                    },
                ));
            }
            let v = eval(line, s, e, r)?.v;
            let max = (1i128 << ty.bits) - 1;
            if !(0..=max).contains(&v) {
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::OutOfRange {
                        kind: kind.kind,
                        what: "value",
                        value: v,
                        lo: 0,
                        hi: max,
                    },
                ));
            }
            reserved(kind, v as u32, s, e)
        }
        OperandClass::Imm => {
            let (s, text) = strip_hash(line, s, e);
            if let Some(reg) = parse_reg(text) {
                return Err(not_a_register(kind, reg, s, e));
            }
            let v = match parse_f32_literal(text) {
                Some(f) if !f.is_finite() => {
                    return Err(lerr(s, e, ErrorKind::FloatOverflow { text: text.into() }))
                }
                Some(f) => i128::from(f.to_bits()),
                None => match fast_int(text) {
                    Some(v) => v,
                    None => eval(line, s, e, r)?.v,
                },
            };
            let (lo, hi) = (i128::from(i32::MIN), i128::from(u32::MAX));
            if v < lo || v > hi {
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::OutOfRange {
                        kind: kind.kind,
                        what: "literal",
                        value: v,
                        lo,
                        hi,
                    },
                ));
            }
            Ok((v & 0xffff_ffff) as u32)
        }
        OperandClass::SImm | OperandClass::UImm => {
            let (s, text) = strip_hash(line, s, e);
            if let Some(reg) = parse_reg(text) {
                return Err(not_a_register(kind, reg, s, e));
            }
            let val = match fast_int(text) {
                Some(v) => Val::abs(v),
                None => eval(line, s, e, r)?,
            };
            let rel = pc_relative(kind);
            let v = match val.sec {
                Some(sec) if rel => {
                    if Some(sec) != here.sec {
                        return Err(lerr(
                            s,
                            e,
                            ErrorKind::CrossSection {
                                what: kind.kind,
                                name: text.into(),
                                section: sec,
                            },
                        ));
                    }
                    val.v - here.v
                }
                _ => val.v,
            };
            let what = if rel || ty.scale > 1 {
                "offset"
            } else {
                "immediate"
            };
            let scale = i128::from(ty.scale.max(1));
            let (lo, hi) = ty.value_range();
            let (lo, hi) = (i128::from(lo), i128::from(hi));
            if v < lo || v > hi {
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::OutOfRange {
                        kind: kind.kind,
                        what,
                        value: v,
                        lo,
                        hi,
                    },
                ));
            }
            if v % scale != 0 {
                return Err(lerr(
                    s,
                    e,
                    ErrorKind::Misaligned {
                        kind: kind.kind,
                        what,
                        value: v,
                        scale: u32::from(ty.scale),
                    },
                ));
            }
            let mask = (1i128 << ty.bits) - 1;
            reserved(kind, ((v / scale) & mask) as u32, s, e)
        }
    }
}

/// A plain decimal or `0x` literal, optionally negative: the common case, parsed without
/// the expression machinery. Anything else (or anything odd) returns `None`.
#[inline]
fn fast_int(text: &str) -> Option<i128> {
    let b = text.as_bytes();
    let (neg, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i128 = 0;
    if let Some(hex) = digits.strip_prefix(b"0x") {
        if hex.is_empty() || hex.len() > 15 {
            return None;
        }
        for &c in hex {
            let d = (c as char).to_digit(16)?;
            v = v * 16 + i128::from(d);
        }
    } else {
        for &c in digits {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + i128::from(c - b'0');
        }
    }
    Some(if neg { -v } else { v })
}

fn strip_hash(line: &str, s: usize, e: usize) -> (usize, &str) {
    if line.as_bytes().get(s) == Some(&b'#') {
        (s + 1, &line[s + 1..e])
    } else {
        (s, &line[s..e])
    }
}

fn not_a_register(kind: &KindDef, reg: RegTok, s: usize, e: usize) -> LineErr {
    let expected = match kind.ty.class {
        OperandClass::Imm => "a 32-bit integer or fp32 literal",
        _ if pc_relative(kind) => "a label or a byte offset",
        _ => "an immediate",
    };
    lerr(
        s,
        e,
        ErrorKind::WrongOperand {
            kind: kind.kind,
            expected: expected.into(),
            found: format!("register {}", reg.describe()),
        },
    )
}

fn reserved(kind: &KindDef, raw: u32, s: usize, e: usize) -> Result<u32, LineErr> {
    match kind.ty.reserved {
        Some((lo, hi)) if (lo..=hi).contains(&raw) => Err(lerr(
            s,
            e,
            ErrorKind::ReservedValue {
                kind: kind.kind,
                ty: kind.ty.name,
                value: raw,
                lo,
                hi,
            },
        )),
        _ => Ok(raw),
    }
}

fn register(kind: &KindDef, text: &str, s: usize, e: usize) -> Result<u32, LineErr> {
    let ty = kind.ty;
    let vector = ty.class == OperandClass::VReg;
    let (prefix, file_name) = if vector {
        ('v', "vector")
    } else {
        ('u', "uniform")
    };
    let file = if ty.half {
        1u32 << (ty.bits - 1)
    } else {
        1u32 << ty.bits
    };
    let wrong = |found: String| {
        lerr(
            s,
            e,
            ErrorKind::WrongOperand {
                kind: kind.kind,
                expected: register_expectation(kind),
                found,
            },
        )
    };
    let missing = |n: u32| {
        lerr(
            s,
            e,
            ErrorKind::NoSuchRegister {
                found: format!("{prefix}{n}"),
                file: file_name,
                prefix,
                last: file - 1,
            },
        )
    };
    let Some(tok) = parse_reg(text) else {
        return Err(wrong(quote(text)));
    };
    let regs = u32::from(kind.regs);
    let align = u32::from(ty.align.max(1));
    match (tok, vector) {
        (RegTok::VHalf(n, h), true) if ty.half => {
            if n >= file {
                return Err(missing(n));
            }
            Ok((n << 1) | u32::from(h))
        }
        (RegTok::V(n), true) | (RegTok::U(n), false) if regs == 1 && !ty.half => {
            if n >= file {
                return Err(missing(n));
            }
            Ok(n)
        }
        (RegTok::VGroup(a, b), true) | (RegTok::UGroup(a, b), false) if regs > 1 => {
            if b < a || b - a + 1 != regs || a % align != 0 {
                return Err(wrong(tok.describe()));
            }
            if b >= file {
                return Err(missing(b));
            }
            Ok(a)
        }
        _ => Err(wrong(tok.describe())),
    }
}
