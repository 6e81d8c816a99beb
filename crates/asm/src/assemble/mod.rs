//! The assembler. Pass 1 reads each line once: it defines labels, sizes every statement (an
//! instruction's size follows from its mnemonic alone) and encodes it right away. A statement
//! that refers to a symbol not defined yet gets placeholder bytes and is encoded again, in
//! place, once the whole file has been read (`fixups`). Nothing is allocated per line except
//! what the result keeps.

mod directives;
mod expand;
mod kernel_directives;
mod line_err;
mod locs;
mod operands;
mod state;

pub use expand::{MAX_EXPANDED_BYTES, MAX_EXPANDED_LINES, MAX_EXPANSION_DEPTH, MAX_INCLUDE_DEPTH};

use crate::error::{closest, AsmError, AsmErrors, ErrorKind, MAX_ERRORS};
use crate::expr::{eval, ExprError, Val};
use crate::lex::{
    ident_end, is_ident_start, parse_f32_literal, skip_ws, split_operands, strip_comment,
    trim_range,
};
use crate::limits::{MAX_LINE_BYTES, MAX_SOURCE_BYTES};
use crate::{LineRow, LineTable, ListingLine, Program, Section, Symbol, SymbolKind};
use line_err::{lerr, LineErr};
use operands::source_modifiers;
use operands::{key_of, operand, syntax_of};
use state::{Asm, Here, Stmt, StmtKind, Sym, SymDef};
use warpkit_isa::{Flags, Instr, Modifier, Op, INSTRUCTIONS, MAX_OPERANDS};

/// Largest section: a guard against sources that multiply bytes through directives.
const MAX_SECTION: u64 = 1 << 28;

/// Assemble `source`; `file_name` is used in diagnostics only.
pub fn assemble(source: &str, file_name: &str) -> Result<Program, AsmErrors> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(too_large(source.as_bytes(), file_name));
    }
    if expand::needs_expansion(source) {
        return assemble_expanded(source, file_name);
    }
    let mut asm = Asm::new(source, file_name);
    let mut program = asm.run()?;
    program.lines = line_table(
        &program,
        vec![file_name.to_string()],
        &mut |line| Some((0, line as u32)),
        &asm.locs,
    );
    Ok(program)
}

/// The line table of `program` from its listing: a row after a `.loc` gets that location;
/// otherwise `site` gives, for the row's line (of the assembled text), the index in `files`
/// and the line it is attributed to. The files `.file` named join `files`.
fn line_table(
    program: &Program,
    mut files: Vec<String>,
    site: &mut dyn FnMut(usize) -> Option<(u32, u32)>,
    locs: &state::Locs,
) -> LineTable {
    let loc_files: Vec<u32> = locs
        .files
        .iter()
        .map(|(_, name)| match files.iter().position(|f| f == name) {
            Some(i) => i as u32,
            None => {
                files.push(name.clone());
                (files.len() - 1) as u32
            }
        })
        .collect();
    let mut marks = locs.marks.iter().peekable();
    let mut current = None;
    let rows = program
        .listing
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            while let Some(m) = marks.next_if(|m| m.from <= i) {
                current = Some(*m);
            }
            if l.section != Section::Text || l.len == 0 {
                return None;
            }
            if let Some(m) = current {
                return Some(LineRow {
                    address: l.address,
                    file: loc_files[m.file],
                    line: m.line,
                    column: m.column,
                });
            }
            let (file, line) = site(l.line)?;
            Some(LineRow {
                address: l.address,
                file,
                line,
                column: 0,
            })
        })
        .collect();
    LineTable::new(files, rows, program.text.len() as u64)
}

/// `.include`, `.macro`, `.rept`: expand, assemble the expanded text, and put every
/// diagnostic and listing row back on the text the user wrote.
fn assemble_expanded(source: &str, file_name: &str) -> Result<Program, AsmErrors> {
    let mut x = expand::Expansion::run(source, file_name);
    let text = std::mem::take(&mut x.text);
    let mut asm = Asm::new(&text, file_name);
    let result = asm.run();
    let line_of = |x: &expand::Expansion, line: usize| {
        let i = line.saturating_sub(1).min(x.lines.len().saturating_sub(1));
        x.lines.get(i).copied()
    };
    let mut keyed: Vec<((usize, u8, usize), AsmError)> =
        x.errors.drain(..).map(|(i, e)| ((i, 0, 0), e)).collect();
    let (program, dropped) = match result {
        Ok(p) => (Some(p), 0),
        Err(errors) => {
            let expansion_failed = !keyed.is_empty();
            for e in errors.errors {
                if expansion_failed && e.kind == ErrorKind::Empty {
                    continue;
                }
                let Some((origin, start)) = line_of(&x, e.line) else {
                    keyed.push(((0, 1, e.column), e));
                    continue;
                };
                let range = e.span.start.saturating_sub(start)..e.span.end.saturating_sub(start);
                let key = (e.line - 1, 1, e.column);
                let mut kind = e.kind;
                // "already defined on line N": N is a line of the expanded text too.
                if let ErrorKind::DuplicateSymbol { first_line, .. } = &mut kind {
                    if let Some((first, _)) = line_of(&x, *first_line) {
                        *first_line = first.line as usize;
                    }
                }
                keyed.push((key, x.locate(origin, range, kind)));
            }
            (None, errors.dropped)
        }
    };
    if keyed.is_empty() {
        let Some(mut program) = program else {
            unreachable_no_errors()
        };
        for w in &mut program.warnings {
            if let Some((origin, start)) = line_of(&x, w.line) {
                let line_text = text[start..].split('\n').next().unwrap_or("");
                let at = line_text
                    .char_indices()
                    .nth(w.column - 1)
                    .map_or(line_text.len(), |(i, _)| i);
                let e = x.locate(origin, at..at, ErrorKind::Empty);
                w.file = e.file;
                w.line = e.line;
                w.column = e.column;
                w.notes = e.notes;
            }
        }
        let files = x.files.iter().map(|f| f.name.clone()).collect();
        program.lines = line_table(
            &program,
            files,
            &mut |line| line_of(&x, line).map(|(origin, _)| x.line_site(origin)),
            &asm.locs,
        );
        for l in &mut program.listing {
            if let Some((origin, _)) = line_of(&x, l.line) {
                let (line, range) = x.listing_site(origin);
                l.line = line;
                l.source = range;
            }
        }
        return Ok(program);
    }
    keyed.sort_by_key(|(k, _)| *k);
    let mut errors: Vec<AsmError> = keyed.into_iter().map(|(_, e)| e).collect();
    let over = errors.len().saturating_sub(MAX_ERRORS);
    errors.truncate(MAX_ERRORS);
    Err(AsmErrors {
        file: file_name.into(),
        errors,
        dropped: dropped + over,
    })
}

#[cold]
fn unreachable_no_errors() -> ! {
    unreachable!("assembly failed without a diagnostic")
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
                    quote: None,
                    notes: Vec::new(),
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
        quote: None,
        notes: Vec::new(),
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
                quote: None,
                notes: Vec::new(),
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

fn sec_index(s: Section) -> usize {
    match s {
        Section::Text => 0,
        Section::Data => 1,
    }
}

impl<'s> Asm<'s> {
    /// Assemble the source; `self` keeps what the caller reads after ([`Asm::locs`]).
    fn run(&mut self) -> Result<Program, AsmErrors> {
        self.pass1();
        self.text_len = Some(self.pos[sec_index(Section::Text)]);
        self.resolve_equs();
        self.fixups();
        self.check_globals();
        self.apply_types_and_sizes();
        let kernels = self.finish_kernels();
        let [text, data] = std::mem::take(&mut self.out);
        let program = Program {
            text,
            data,
            symbols: self.symbols(),
            lines: LineTable::default(),
            listing: std::mem::take(&mut self.listing),
            warnings: std::mem::take(&mut self.warnings),
            kernels,
        };
        if self.errors.is_empty() && self.dropped == 0 && !self.any_statement {
            self.errors.push(AsmError {
                file: self.file.into(),
                line: 1,
                column: 1,
                span: 0..0,
                kind: ErrorKind::Empty,
                quote: None,
                notes: Vec::new(),
            });
        }
        if self.errors.is_empty() && self.dropped == 0 {
            return Ok(program);
        }
        self.errors.sort_by_key(|e| (e.line, e.column));
        Err(AsmErrors {
            file: self.file.into(),
            errors: std::mem::take(&mut self.errors),
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
        // Labels: `name:` or numeric `1:`, possibly several, before the statement.
        let mut word_end = None;
        while pos < b.len() && (is_ident_start(b[pos]) || b[pos].is_ascii_digit()) {
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
            if self.discard {
                // Labels of sections the model never loads are not symbols.
            } else if b[pos].is_ascii_digit() {
                match name.parse::<u32>() {
                    Ok(n) if name.len() <= 9 && name.bytes().all(|c| c.is_ascii_digit()) => {
                        self.numeric.entry(n).or_default().push((line_no, sec, off));
                    }
                    _ => self.push_err(
                        line_no,
                        line_start,
                        code,
                        lerr(
                            pos,
                            e,
                            ErrorKind::Syntax(format!(
                                "`{name}` is not a label: a label is a name, or a number \
                                 of at most 9 digits for a local label"
                            )),
                        ),
                    ),
                }
            } else {
                self.define(
                    line_no,
                    line_start,
                    code,
                    pos,
                    e,
                    name,
                    SymDef::Label(sec, off),
                    false,
                );
            }
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
            kind: StmtKind::Fill(0, 0),
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
            Some(_) if self.discard => {}
            Some(op) => {
                stmt.kind = StmtKind::Instr(op);
                self.advance(op.def().len() as u64, &stmt, code);
                self.emit(stmt, code);
            }
            None => {
                let suggestion = if self.saturated() {
                    None
                } else {
                    closest(word, INSTRUCTIONS.iter().map(|d| d.mnemonic))
                };
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
        redefinable: bool,
    ) -> Option<usize> {
        if let Some(&i) = self.map.get(name) {
            if redefinable && self.syms[i].redefinable {
                let new = self.syms.len();
                self.syms.push(Sym {
                    name,
                    def,
                    line: line_no,
                    global: false,
                    redefinable,
                });
                let first = (self.syms[i].line, i);
                self.versions
                    .entry(name)
                    .or_insert_with(|| vec![first])
                    .push((line_no, new));
                self.map.insert(name, new);
                return Some(new);
            }
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
            redefinable,
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
            branch: false,
            line: stmt.line_no,
        };
        eval(code, s, e, &r)
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

    /// `.type` and `.size`, once every label is known (they usually precede the label, or
    /// follow the end label their expression names).
    fn apply_types_and_sizes(&mut self) {
        let label_of = |asm: &Self, name: &str| {
            asm.map
                .get(name)
                .copied()
                .filter(|&i| matches!(asm.syms[i].def, SymDef::Label(..)))
        };
        for (name, kind, stmt, s, e) in std::mem::take(&mut self.types) {
            let code = &self.src[stmt.line_start..stmt.line_end];
            match label_of(self, name) {
                Some(i) => self.kinds.entry(i).or_default().0 = kind,
                None => self.push_err(
                    stmt.line_no,
                    stmt.line_start,
                    code,
                    lerr(
                        s,
                        e,
                        ErrorKind::Syntax(format!(
                            "`.type {name}` names no label: it must be a label defined in this file"
                        )),
                    ),
                ),
            }
        }
        for (name, stmt, s, e) in std::mem::take(&mut self.sizes) {
            let code = &self.src[stmt.line_start..stmt.line_end];
            let Some(i) = label_of(self, name) else {
                let at = name.as_ptr() as usize - code.as_ptr() as usize;
                self.push_err(
                    stmt.line_no,
                    stmt.line_start,
                    code,
                    lerr(
                        at,
                        at + name.len(),
                        ErrorKind::Syntax(format!(
                            "`.size {name}` names no label: it must be a label defined in this file"
                        )),
                    ),
                );
                continue;
            };
            let size = match self.const_expr(code, s, e, &stmt) {
                Ok(v) if v.sec.is_none() && (0..=i128::from(u64::MAX)).contains(&v.v) => v.v,
                Ok(v) => {
                    let msg = if v.sec.is_some() {
                        "`.size` needs a size in bytes (like `. - name`), not an address".into()
                    } else {
                        format!("`.size` value {} is not in 0..2^64", v.v)
                    };
                    self.push_err(
                        stmt.line_no,
                        stmt.line_start,
                        code,
                        lerr(s, e.max(s + 1), ErrorKind::Syntax(msg)),
                    );
                    continue;
                }
                Err(err) => {
                    self.push_err(stmt.line_no, stmt.line_start, code, err.into());
                    continue;
                }
            };
            self.kinds.entry(i).or_default().1 = size as u64;
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
            StmtKind::Fill(n, fill) => out.resize(at + n as usize, fill),
            StmtKind::Equ(_) => {}
            StmtKind::Ascii(zero) => {
                let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
                // Checked in pass 1; a failure here cannot happen, but never emit short.
                if directives::strings(code, os, oe, zero, &mut out).is_err() {
                    out.resize(at + len as usize, 0);
                }
            }
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
                StmtKind::Fill(..) | StmtKind::Equ(_) | StmtKind::Ascii(_) => {}
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
        let mut split = false;
        let here = Val {
            v: i128::from(stmt.addr),
            sec: Some(stmt.section),
        };
        let fail = |errs: &mut Vec<(u32, usize, LineErr)>, e: LineErr| {
            errs.push((stmt.line_no, stmt.line_start, e));
        };
        let has_keyed = def.operands.iter().any(|o| o.kind.keyed);
        let has_mods = def.operands.iter().any(|o| o.kind.is_modifier());
        let plain = |o: &warpkit_isa::OperandDef| !o.kind.keyed && !o.kind.is_modifier();
        let npos = def.operands.iter().filter(|o| plain(o)).count();
        let required = def
            .operands
            .iter()
            .filter(|o| plain(o) && !o.kind.optional)
            .count();
        // Source modifiers collected from the operands: (neg, abs) bits per source.
        let mut srcmods = (0u32, 0u32);
        if has_mods && n >= 1 && n <= ranges.len() {
            // Result modifiers: the words after the last operand, separated by spaces.
            let (ls, le) = ranges[n - 1];
            if let Some(p) = code[ls..le].find([' ', '\t']).map(|i| ls + i) {
                ranges[n - 1] = trim_range(b, ls, p);
                for err in self.result_modifiers(
                    def,
                    code,
                    (p, le),
                    (here, stmt.line_no),
                    (&mut raw, &mut given),
                ) {
                    ok = false;
                    fail(errs, err);
                }
            }
        }
        // Positional operands go to the non-keyed operands in order; `key=value` to the
        // keyed operand of that name.
        let mut slots = def.operands.iter().enumerate().filter(|(_, o)| plain(o));
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
            let mut e = e;
            if has_mods && key.is_none() {
                match source_modifiers(b, vs, e, def.operands[index].name) {
                    Ok((inner_s, inner_e, neg, abs)) => {
                        let takes = |m: Modifier| def.operands.iter().any(|o| o.kind.modifier == m);
                        if (neg != 0 && !takes(Modifier::Neg))
                            || (abs != 0 && !takes(Modifier::Abs))
                        {
                            ok = false;
                            fail(
                                errs,
                                lerr(
                                    vs,
                                    e,
                                    ErrorKind::Syntax(format!(
                                        "`{}` takes no source modifier {}",
                                        def.mnemonic,
                                        if neg != 0 && !takes(Modifier::Neg) {
                                            "`-x`"
                                        } else {
                                            "`|x|`"
                                        }
                                    )),
                                ),
                            );
                            continue;
                        }
                        (vs, e) = (inner_s, inner_e);
                        srcmods.0 |= neg;
                        srcmods.1 |= abs;
                    }
                    Err(err) => {
                        ok = false;
                        fail(errs, err);
                        continue;
                    }
                }
            }
            match operand(
                def.operands[index].kind,
                code,
                vs,
                e,
                &Here {
                    asm: self,
                    here,
                    branch: def.flags.contains(Flags::BR),
                    line: stmt.line_no,
                },
            ) {
                Ok(v) => raw[index] = v,
                Err(err) => {
                    ok = false;
                    split |= err.split;
                    fail(errs, err);
                }
            }
        }
        let extra_ops = n > ranges.len();
        // A missing `,` already explains a wrong count.
        if !split && (positional < required || positional > npos || extra_ops) {
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
                match o.kind.modifier {
                    Modifier::Neg => raw[i] |= srcmods.0,
                    Modifier::Abs => raw[i] |= srcmods.1,
                    _ => {}
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

    /// The result modifiers of an instruction with modifier fields: the words of
    /// `code[range]`, each a switch (`sat`) or `key=value` (`rm=rtz`, also `neg=N`/`abs=N`
    /// for bits no source carries). Fills `raw`/`given`; returns the errors.
    fn result_modifiers(
        &self,
        def: &'static warpkit_isa::InstrDef,
        code: &str,
        range: (usize, usize),
        (here, line): (Val, u32),
        (raw, given): (&mut [u32; MAX_OPERANDS], &mut [bool; MAX_OPERANDS]),
    ) -> Vec<LineErr> {
        let b = code.as_bytes();
        let mut errors = Vec::new();
        let mut i = range.0;
        while i < range.1 {
            i = skip_ws(b, i).min(range.1);
            if i >= range.1 {
                break;
            }
            let mut e = i;
            while e < range.1 && !matches!(b[e], b' ' | b'\t') {
                e += 1;
            }
            let word = &code[i..e];
            let (key, value) = match word.find('=') {
                Some(k) => (&word[..k], Some((i + k + 1, e))),
                None => (word, None),
            };
            let found = def.operands.iter().position(|o| {
                o.name.eq_ignore_ascii_case(key)
                    && match value {
                        None => o.kind.modifier == Modifier::Switch,
                        Some(_) => {
                            o.kind.keyed || matches!(o.kind.modifier, Modifier::Neg | Modifier::Abs)
                        }
                    }
            });
            match found {
                None => {
                    let names: Vec<String> = def
                        .operands
                        .iter()
                        .filter_map(|o| match o.kind.modifier {
                            Modifier::Switch => Some(o.name.to_string()),
                            _ if o.kind.keyed => Some(format!("{}=<{}>", o.name, o.kind.kind)),
                            _ => None,
                        })
                        .collect();
                    errors.push(lerr(
                        i,
                        e,
                        crate::error::ErrorKind::Syntax(format!(
                            "unknown result modifier `{word}`; `{}` takes {}",
                            def.mnemonic,
                            names.join(", ")
                        )),
                    ));
                }
                Some(k) if given[k] => errors.push(lerr(
                    i,
                    i + key.len(),
                    crate::error::ErrorKind::DuplicateKey { key: key.into() },
                )),
                Some(k) => {
                    given[k] = true;
                    match value {
                        None => raw[k] = 1,
                        Some((vs, ve)) if vs >= ve => errors.push(lerr(
                            i,
                            e,
                            crate::error::ErrorKind::Syntax(format!(
                                "expected a value after `{key}=`"
                            )),
                        )),
                        Some((vs, ve)) => {
                            match operand(
                                def.operands[k].kind,
                                code,
                                vs,
                                ve,
                                &Here {
                                    asm: self,
                                    here,
                                    branch: def.flags.contains(Flags::BR),
                                    line,
                                },
                            ) {
                                Ok(v) => raw[k] = v,
                                Err(err) => errors.push(err),
                            }
                        }
                    }
                }
            }
            i = e;
        }
        errors
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
                let (bits, finite) = if width == 4 {
                    (f.to_bits().into(), f.is_finite())
                } else {
                    let d = code[s..e].parse::<f64>().unwrap_or(f64::INFINITY);
                    (d.to_bits().into(), d.is_finite())
                };
                if finite {
                    Ok(bits)
                } else {
                    Err(lerr(
                        s,
                        e,
                        ErrorKind::FloatOverflow {
                            text: code[s..e].into(),
                            bits: u32::from(width) * 8,
                        },
                    ))
                }
            } else if s == e {
                Err(lerr(
                    s.saturating_sub(1),
                    s.max(1),
                    ErrorKind::Syntax("expected a value before `,`".into()),
                ))
            } else {
                eval(
                    code,
                    s,
                    e,
                    &Here {
                        asm: self,
                        here,
                        branch: false,
                        line: stmt.line_no,
                    },
                )
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

    /// Every label but the assembler-local ones (`.L…`; numeric labels are kept apart).
    fn symbols(&self) -> Vec<Symbol> {
        self.syms
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s.def {
                SymDef::Label(section, offset) if !s.name.starts_with(".L") => Some(Symbol {
                    name: s.name.into(),
                    section,
                    offset,
                    global: s.global,
                    kind: self.kinds.get(&i).map_or(SymbolKind::NoType, |k| k.0),
                    size: self.kinds.get(&i).map_or(0, |k| k.1),
                }),
                _ => None,
            })
            .collect()
    }
}
