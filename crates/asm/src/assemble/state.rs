//! The state the assembler's passes share: symbols, statements, the assembler itself, what
//! `.loc` and `.kernel`/`.param` record for the end of the file, and what an operand's
//! expression sees of it. The statement pass, the directives and the operand parser all
//! read or update it, so it sits below each of them.

use super::line_err::LineErr;
use crate::error::{closest, AsmError, AsmWarning, MAX_ERRORS};
use crate::expr::{Lookup, Resolve, Val};
use crate::{KernelInfo, ListingLine, ParamInfo, Section, SymbolKind};
use std::collections::HashMap;
use warpkit_isa::Op;

#[derive(Clone, Copy)]
pub(super) enum SymDef {
    Label(Section, u64),
    /// `.equ` value; `None` while a forward reference is unresolved.
    Equ(Option<Val>),
    /// Its definition failed and was reported: uses stay silent.
    Poisoned,
}

pub(super) struct Sym<'s> {
    pub(super) name: &'s str,
    pub(super) def: SymDef,
    pub(super) line: u32,
    pub(super) global: bool,
    /// Defined by `.set`: a later `.set` makes a new version (see [`Asm::lookup`]).
    pub(super) redefinable: bool,
}

#[derive(Clone, Copy)]
pub(super) enum StmtKind {
    Instr(Op),
    Data {
        width: u8,
        name: &'static str,
    },
    /// `n` bytes of the given value (alignment padding, `.space`).
    Fill(u64, u8),
    Equ(usize),
    /// `.ascii` (`false`) or `.asciz`/`.string` (`true`).
    Ascii(bool),
}

#[derive(Clone, Copy)]
pub(super) struct Stmt {
    pub(super) kind: StmtKind,
    pub(super) line_no: u32,
    /// Byte range of the line's code (comment stripped) in the source.
    pub(super) line_start: usize,
    pub(super) line_end: usize,
    /// End of the whole line (comment included, line ending excluded).
    pub(super) raw_end: usize,
    /// Operand text, relative to the line.
    pub(super) ops_start: u32,
    pub(super) ops_end: u32,
    pub(super) section: Section,
    pub(super) addr: u64,
}

pub(super) struct Asm<'s> {
    pub(super) src: &'s str,
    pub(super) file: &'s str,
    pub(super) errors: Vec<AsmError>,
    pub(super) dropped: usize,
    pub(super) syms: Vec<Sym<'s>>,
    pub(super) map: HashMap<&'s str, usize, crate::lex::FastHash>,
    /// Forward `.equ`s, resolved after pass 1.
    pub(super) stmts: Vec<Stmt>,
    /// Statements that referred to symbols not yet defined: encoded again after pass 1.
    pub(super) fixups: Vec<Stmt>,
    pub(super) out: [Vec<u8>; 2],
    pub(super) listing: Vec<ListingLine>,
    pub(super) scratch: Vec<(u32, usize, LineErr)>,
    pub(super) globals: Vec<(&'s str, u32, usize, usize, usize)>,
    pub(super) section: Section,
    /// The section before the last switch, for `.previous`.
    pub(super) previous: (Section, bool),
    pub(super) pos: [u64; 2],
    /// The size of `.text` once pass 1 has laid it out: where `.data` will be placed
    /// relative to the code is known only then ([`warpkit_isa::data_offset`]).
    pub(super) text_len: Option<u64>,
    pub(super) any_statement: bool,
    pub(super) warnings: Vec<AsmWarning>,
    /// The current section is one the model never loads (`.note.GNU-stack`, `.comment`,
    /// debug sections): its statements are checked for syntax only and emit nothing.
    pub(super) discard: bool,
    /// Non-loaded sections already warned about.
    pub(super) warned_sections: Vec<String>,
    /// Ignored directives already warned about.
    pub(super) warned_directives: Vec<String>,
    /// Every version of each symbol that `.set` defined more than once, in line order.
    pub(super) versions: HashMap<&'s str, Vec<(u32, usize)>, crate::lex::FastHash>,
    /// Numeric local labels (`1:`): for each number, every definition in line order.
    pub(super) numeric: HashMap<u32, Vec<(u32, Section, u64)>, crate::lex::FastHash>,
    /// `.type` requests, applied once every label is known: name, kind, where.
    pub(super) types: Vec<(&'s str, SymbolKind, Stmt, usize, usize)>,
    /// `.size` requests: name, the statement (its address is `.`), the expression's range.
    pub(super) sizes: Vec<(&'s str, Stmt, usize, usize)>,
    /// Type and size of labels, by symbol index, from `.type` and `.size`.
    pub(super) kinds: HashMap<usize, (SymbolKind, u64), crate::lex::FastHash>,
    /// `.file N` names and `.loc` locations.
    pub(super) locs: Locs,
    /// `.kernel` and `.param` directives, checked once the file is read.
    pub(super) kernel_decls: KernelDecls,
}

/// A source location set by `.loc`: listing rows from `from` on (until the next mark) are
/// attributed to it.
#[derive(Debug, Clone, Copy)]
pub(super) struct LocMark {
    /// Index of the first listing row the location applies to.
    pub(super) from: usize,
    /// Index into [`Locs::files`].
    pub(super) file: usize,
    pub(super) line: u32,
    pub(super) column: u32,
}

/// What `.file` and `.loc` declared in one assembly.
#[derive(Debug, Clone, Default)]
pub(super) struct Locs {
    /// `(file number, path)` of each `.file N`, in declaration order.
    pub(super) files: Vec<(u32, String)>,
    /// Every `.loc`, in source order.
    pub(super) marks: Vec<LocMark>,
}

/// A `.kernel` as read: the metadata and where its name is.
pub(super) struct KernelDecl {
    pub(super) info: KernelInfo,
    pub(super) stmt: Stmt,
    pub(super) name: (usize, usize),
}

/// A `.param` as read, before it joins its kernel.
pub(super) struct ParamDecl {
    pub(super) kernel: String,
    pub(super) kernel_at: (usize, usize),
    pub(super) param: ParamInfo,
    pub(super) name_at: (usize, usize),
    pub(super) stmt: Stmt,
}

/// Kernel metadata read so far.
#[derive(Default)]
pub(super) struct KernelDecls {
    pub(super) kernels: Vec<KernelDecl>,
    pub(super) params: Vec<ParamDecl>,
}

pub(super) struct Here<'a, 's> {
    pub(super) asm: &'a Asm<'s>,
    pub(super) here: Val,
    /// The operand belongs to a branch: its PC-relative target must be code, not `.data`.
    pub(super) branch: bool,
    /// The line being assembled: which version of a redefined symbol, and which numeric
    /// local label, a use means.
    pub(super) line: u32,
}

impl Here<'_, '_> {
    /// The offset of `.data` from `.text`'s first byte, once `.text`'s size is known.
    pub(super) fn data_offset(&self) -> Option<u64> {
        self.asm.text_len.map(warpkit_isa::data_offset)
    }
}

impl Resolve for Here<'_, '_> {
    fn symbol(&self, name: &str) -> Lookup {
        match self
            .asm
            .lookup(name, self.line)
            .map(|i| self.asm.syms[i].def)
        {
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

    fn local_label(&self, number: u32, forward: bool) -> Lookup {
        let Some(defs) = self.asm.numeric.get(&number) else {
            return Lookup::Undefined;
        };
        // A label on this very line counts as behind (`1: jmp 1b` jumps to itself).
        let k = defs.partition_point(|d| d.0 <= self.line);
        let def = if forward {
            defs.get(k)
        } else {
            k.checked_sub(1).and_then(|k| defs.get(k))
        };
        match def {
            Some(&(_, sec, off)) => Lookup::Found(Val {
                v: i128::from(off),
                sec: Some(sec),
            }),
            None => Lookup::Undefined,
        }
    }

    fn similar(&self, name: &str) -> Option<String> {
        // Suggestions cost time proportional to the symbol count: skip them once the
        // diagnostics are capped, or when a generated file has a huge symbol table.
        if self.asm.saturated() || self.asm.syms.len() > 10_000 {
            return None;
        }
        closest(name, self.asm.syms.iter().map(|s| s.name)).map(String::from)
    }
}

impl<'s> Asm<'s> {
    pub(super) fn new(src: &'s str, file: &'s str) -> Asm<'s> {
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
            previous: (Section::Text, false),
            pos: [0, 0],
            text_len: None,
            any_statement: false,
            warnings: Vec::new(),
            discard: false,
            warned_sections: Vec::new(),
            warned_directives: Vec::new(),
            versions: HashMap::default(),
            numeric: HashMap::default(),
            types: Vec::new(),
            sizes: Vec::new(),
            kinds: HashMap::default(),
            locs: Locs::default(),
            kernel_decls: KernelDecls::default(),
        }
    }

    /// The symbol `name` means on line `line`: for a symbol `.set` more than once, the
    /// version set last above that line, or the first one for a use above all of them.
    pub(super) fn lookup(&self, name: &str, line: u32) -> Option<usize> {
        let &latest = self.map.get(name)?;
        if self.syms[latest].line < line {
            return Some(latest);
        }
        let Some(versions) = self.versions.get(name) else {
            return Some(latest);
        };
        let k = versions.partition_point(|v| v.0 < line);
        Some(versions[k.saturating_sub(1)].1)
    }

    pub(super) fn warn(&mut self, stmt: &Stmt, code: &str, at: usize, message: String) {
        if self.warnings.len() >= MAX_ERRORS {
            return;
        }
        let column = code.get(..at).map_or(at, |p| p.chars().count()) + 1;
        self.warnings.push(AsmWarning {
            file: self.file.into(),
            line: stmt.line_no as usize,
            column,
            message,
            notes: Vec::new(),
        });
    }

    /// No more diagnostics will be kept, so nothing costly should be computed for them.
    pub(super) fn saturated(&self) -> bool {
        self.errors.len() >= MAX_ERRORS
    }

    pub(super) fn push_err(&mut self, line_no: u32, line_start: usize, line: &str, e: LineErr) {
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
            quote: None,
            notes: Vec::new(),
        });
    }
}
