//! Directives: sections, data, alignment and space, `.global`, `.equ`/`.set`.

use super::operands::{lerr, quote};
use super::{split_operands, trim_range, Asm, Stmt, StmtKind, SymDef};
use crate::error::{closest, ErrorKind};
use crate::lex::{ident_end, is_ident_start};
use crate::Section;

const DIRECTIVES: &[&str] = &[
    ".text", ".data", ".section", ".byte", ".half", ".hword", ".short", ".word", ".long", ".int",
    ".dword", ".quad", ".align", ".balign", ".p2align", ".space", ".skip", ".zero", ".global",
    ".globl", ".equ", ".set",
];

/// Largest `.space` / `.align` a single directive may emit.
const MAX_FILL: u64 = 1 << 24;
const MAX_ALIGN: u64 = 1 << 16;
impl<'s> Asm<'s> {
    pub(super) fn directive1(&mut self, stmt: &mut Stmt, code: &'s str, ws: usize, we: usize) {
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
}
