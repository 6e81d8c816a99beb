//! `.file N "name"` and `.loc N LINE [COLUMN] [options]`, with GNU as semantics for DWARF
//! line information: from a `.loc` on, the code emitted gets the named file's line and
//! column as its source location instead of the assembly line (docs/assembly.md, "Source
//! lines").

use super::directives::string_literal;
use super::line_err::{lerr, LineErr};
use super::operands::quote;
use super::state::{Asm, LocMark, Stmt};
use crate::error::ErrorKind;
use crate::lex::skip_ws;

/// `.loc` options that take no value.
const FLAGS: &[&str] = &["basic_block", "prologue_end", "epilogue_begin"];
/// `.loc` options followed by one value.
const VALUED: &[&str] = &["is_stmt", "isa", "discriminator", "view"];

/// The blank-separated words of `code[s..e]`, as byte ranges; a string literal is one word.
fn words(code: &str, s: usize, e: usize) -> Vec<(usize, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(b, s);
    while i < e {
        let start = i;
        if b[i] == b'"' {
            i += 1;
            while i < e && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(e);
        } else {
            while i < e && !matches!(b[i], b' ' | b'\t') {
                i += 1;
            }
        }
        out.push((start, i));
        i = skip_ws(b, i).min(e);
    }
    out
}

fn syntax(s: usize, e: usize, message: String) -> LineErr {
    lerr(s, e.max(s + 1), ErrorKind::Syntax(message))
}

impl<'s> Asm<'s> {
    /// `.file "name"` (the source's name: ignored), `.file N "path"`, `.file N "dir" "path"`
    /// (DWARF 5 form; an `md5 VALUE` after it is ignored).
    pub(super) fn file_directive(&mut self, stmt: &Stmt, code: &str, ws: usize, we: usize) {
        if let Err(e) = self.file_directive_checked(stmt, code, ws, we) {
            self.push_err(stmt.line_no, stmt.line_start, code, e);
        }
    }

    fn file_directive_checked(
        &mut self,
        stmt: &Stmt,
        code: &str,
        ws: usize,
        we: usize,
    ) -> Result<(), LineErr> {
        let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
        let w = words(code, os, oe);
        let usage = "`.file` takes `\"name\"`, `N \"path\"` or `N \"directory\" \"path\"`";
        let Some(&(fs, fe)) = w.first() else {
            return Err(syntax(ws, we, format!("{usage}; found nothing")));
        };
        if code.as_bytes()[fs] == b'"' {
            // The name of the source (`.file "k.c"`): nothing to record.
            string_literal(code, fs, fe, &mut Vec::new())?;
            if let Some(&(xs, _)) = w.get(1) {
                return Err(syntax(
                    xs,
                    oe,
                    format!("{usage}; found {}", quote(&code[xs..oe])),
                ));
            }
            return Ok(());
        }
        let number = self.loc_number(stmt, code, fs, fe, "the file number")?;
        let mut names = Vec::new();
        let mut k = 1;
        while let Some(&(s, e)) = w.get(k).filter(|&&(s, _)| code.as_bytes()[s] == b'"') {
            if names.len() == 2 {
                return Err(syntax(s, e, format!("{usage}; found a third string")));
            }
            let mut bytes = Vec::new();
            string_literal(code, s, e, &mut bytes)?;
            names.push((String::from_utf8_lossy(&bytes).into_owned(), s, e));
            k += 1;
        }
        match w.get(k) {
            Some(&(s, e)) if code[s..e].eq_ignore_ascii_case("md5") => {
                let Some(&(vs, ve)) = w.get(k + 1) else {
                    return Err(syntax(s, e, "`md5` needs a value".into()));
                };
                if let Some(&(xs, _)) = w.get(k + 2) {
                    return Err(syntax(
                        xs,
                        oe,
                        format!("unexpected {}", quote(&code[xs..oe])),
                    ));
                }
                // A 128-bit checksum: more than expressions hold, and nothing uses it.
                let v = &code[vs..ve];
                let digits = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X"));
                let ok = match digits {
                    Some(h) => !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()),
                    None => v.bytes().all(|c| c.is_ascii_digit()),
                };
                if !ok {
                    return Err(syntax(
                        vs,
                        ve,
                        format!("`md5` needs a number, found {}", quote(v)),
                    ));
                }
            }
            Some(&(s, _)) => {
                return Err(syntax(
                    s,
                    oe,
                    format!("{usage}; found {}", quote(&code[s..oe])),
                ));
            }
            None => {}
        }
        let (path, ps, pe) = match names.as_slice() {
            [] => {
                return Err(syntax(
                    fe,
                    oe.max(fe + 1),
                    format!("{usage}; the file name is missing"),
                ))
            }
            [(name, s, e)] => (name.clone(), *s, *e),
            [(dir, s, _), (name, _, e)] => {
                let path = if dir.is_empty() || name.starts_with('/') {
                    name.clone()
                } else {
                    format!("{}/{name}", dir.trim_end_matches('/'))
                };
                (path, *s, *e)
            }
            _ => unreachable!("at most two strings are kept"),
        };
        if path.is_empty() || path.contains('\0') {
            return Err(syntax(
                ps,
                pe,
                "`.file` needs a file name (not empty, no NUL)".into(),
            ));
        }
        match self.locs.files.iter().find(|(n, _)| *n == number) {
            Some((_, known)) if *known == path => Ok(()),
            Some((_, known)) => Err(syntax(
                ps,
                pe,
                format!(
                    "file number {number} is already `{known}`; a `.file` number names one file"
                ),
            )),
            None => {
                self.locs.files.push((number, path));
                Ok(())
            }
        }
    }

    /// `.loc FILE LINE [COLUMN] [basic_block | prologue_end | epilogue_begin | is_stmt V |
    /// isa V | discriminator V | view V]...`: the options are checked and ignored.
    pub(super) fn loc_directive(&mut self, stmt: &Stmt, code: &str, ws: usize, we: usize) {
        if let Err(e) = self.loc_directive_checked(stmt, code, ws, we) {
            self.push_err(stmt.line_no, stmt.line_start, code, e);
        }
    }

    fn loc_directive_checked(
        &mut self,
        stmt: &Stmt,
        code: &str,
        ws: usize,
        we: usize,
    ) -> Result<(), LineErr> {
        let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
        let w = words(code, os, oe);
        let Some(&(fs, fe)) = w.first() else {
            return Err(syntax(
                ws,
                we,
                "`.loc` needs a file number and a line: `.loc FILE LINE [COLUMN] [options]`".into(),
            ));
        };
        let number = self.loc_number(stmt, code, fs, fe, "the file number")?;
        let Some(file) = self.locs.files.iter().position(|(n, _)| *n == number) else {
            return Err(syntax(
                fs,
                fe,
                format!(
                    "file number {number} is not declared: a `.file {number} \"name\"` above \
                     must name it"
                ),
            ));
        };
        let Some(&(ls, le)) = w.get(1) else {
            return Err(syntax(
                fe,
                oe.max(fe + 1),
                "`.loc` needs a line number after the file number".into(),
            ));
        };
        let line = self.loc_number(stmt, code, ls, le, "the line")?;
        let mut k = 2;
        let mut column = 0;
        if let Some(&(cs, ce)) = w.get(2).filter(|&&(s, _)| {
            let c = code.as_bytes()[s];
            c.is_ascii_digit() || c == b'(' || c == b'-' || c == b'+'
        }) {
            column = self.loc_number(stmt, code, cs, ce, "the column")?;
            k = 3;
        }
        while let Some(&(s, e)) = w.get(k) {
            let option = code[s..e].to_ascii_lowercase();
            if FLAGS.contains(&option.as_str()) {
                k += 1;
                continue;
            }
            if !VALUED.contains(&option.as_str()) {
                return Err(syntax(
                    s,
                    e,
                    format!(
                        "unknown `.loc` option {}; expected a column, {}, or {} followed by a \
                         value",
                        quote(&code[s..e]),
                        FLAGS.join(", "),
                        VALUED.join(", ")
                    ),
                ));
            }
            let Some(&(vs, ve)) = w.get(k + 1) else {
                return Err(syntax(s, e, format!("`{option}` needs a value")));
            };
            match option.as_str() {
                "is_stmt" => {
                    let v = self.loc_number(stmt, code, vs, ve, "`is_stmt`")?;
                    if v > 1 {
                        return Err(syntax(vs, ve, format!("`is_stmt` is 0 or 1, found {v}")));
                    }
                }
                // A view names a symbol or a number: it only orders rows at one address.
                "view" => {}
                _ => {
                    self.loc_number(stmt, code, vs, ve, &format!("`{option}`"))?;
                }
            }
            k += 2;
        }
        let from = self.listing.len();
        self.locs.marks.push(LocMark {
            from,
            file,
            line,
            column,
        });
        Ok(())
    }

    /// A number of a `.file`/`.loc` directive: a constant from 0 to 2^32 - 1.
    fn loc_number(
        &self,
        stmt: &Stmt,
        code: &str,
        s: usize,
        e: usize,
        what: &str,
    ) -> Result<u32, LineErr> {
        match self.const_expr(code, s, e, stmt) {
            Ok(v) if v.sec.is_none() => u32::try_from(v.v).map_err(|_| {
                syntax(
                    s,
                    e,
                    format!("{what} must be from 0 to 4294967295, found {}", v.v),
                )
            }),
            Ok(_) => Err(syntax(
                s,
                e,
                format!("{what} must be a number, not an address"),
            )),
            Err(err) => Err(err.into()),
        }
    }
}
