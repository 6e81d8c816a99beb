//! Directives: sections, data and strings, alignment and space, `.global`, `.equ`/`.set`,
//! symbol types and sizes, and the GNU directives compilers emit that mean nothing here.

use super::line_err::{lerr, LineErr};
use super::operands::quote;
use super::state::{Asm, Stmt, StmtKind, SymDef};
use crate::error::{closest, ErrorKind};
use crate::lex::{ident_end, is_ident_start, skip_ws, split_operands, trim_range};
use crate::{Section, SymbolKind};

const DIRECTIVES: &[&str] = &[
    ".text",
    ".data",
    ".bss",
    ".section",
    ".previous",
    ".byte",
    ".half",
    ".hword",
    ".short",
    ".word",
    ".long",
    ".int",
    ".dword",
    ".quad",
    ".ascii",
    ".asciz",
    ".string",
    ".align",
    ".balign",
    ".p2align",
    ".space",
    ".skip",
    ".zero",
    ".global",
    ".globl",
    ".local",
    ".equ",
    ".equiv",
    ".set",
    ".type",
    ".size",
    ".file",
    ".loc",
    ".kernel",
    ".param",
    ".launch",
    ".launch_arg",
    ".ident",
    ".include",
    ".macro",
    ".endm",
    ".rept",
    ".endr",
];

/// Directives compilers emit that mean nothing for this target (call-frame information,
/// view numbering of line rows, symbol visibility, linker hints): accepted, ignored, and reported
/// with a warning. Every `.cfi_*` directive is one of them too.
const IGNORED: &[&str] = &[
    ".loc_mark_labels",
    ".addrsig",
    ".addrsig_sym",
    ".hidden",
    ".protected",
    ".internal",
    ".weak",
    ".attribute",
    ".option",
];

/// Where a `.section` goes: a section of the program, or nowhere (a section the model
/// never loads).
enum Target {
    Load(Section),
    Discard { quiet: bool },
}

/// The mapping of docs/assembly.md: code sections to `.text`; writable and read-only data
/// (`.rodata`, `.bss`, small-data) to `.data`, which the model maps; marker, comment and
/// debug sections nowhere. Other names are placed by their flags (`x` code, `a` data).
fn section_target(name: &str, flags: Option<&str>) -> Option<Target> {
    let family = |base: &str| name == base || name.starts_with(&format!("{base}."));
    if family(".text") {
        return Some(Target::Load(Section::Text));
    }
    if [".data", ".rodata", ".bss", ".sdata", ".sbss", ".srodata"]
        .iter()
        .any(|b| family(b))
    {
        return Some(Target::Load(Section::Data));
    }
    if name == ".note.GNU-stack" {
        return Some(Target::Discard { quiet: true });
    }
    match flags {
        Some(f) if f.contains('x') => Some(Target::Load(Section::Text)),
        Some(f) if f.contains('a') => Some(Target::Load(Section::Data)),
        Some(_) => Some(Target::Discard { quiet: false }),
        None if family(".comment")
            || name.starts_with(".note")
            || name.starts_with(".debug_")
            || name.starts_with(".llvm") =>
        {
            Some(Target::Discard { quiet: false })
        }
        None => None,
    }
}

/// Append the bytes of the comma-separated string literals in `code[s..e]` (C escapes:
/// `\n \t \r \0 \\ \" \'`, octal `\ooo`, hex `\xhh`), each followed by a NUL when
/// `zero`.
pub(super) fn strings(
    code: &str,
    s: usize,
    e: usize,
    zero: bool,
    out: &mut Vec<u8>,
) -> Result<(), LineErr> {
    let b = code.as_bytes();
    let mut i = skip_ws(b, s).min(e);
    if i >= e {
        return Err(lerr(
            s.saturating_sub(1),
            s.max(1),
            ErrorKind::Syntax("expected a string in double quotes".into()),
        ));
    }
    loop {
        if b[i] != b'"' {
            let found = quote(&code[i..e]);
            return Err(lerr(
                i,
                e,
                ErrorKind::Syntax(format!("expected a string in double quotes, found {found}")),
            ));
        }
        i = string_literal(code, i, e, out)?;
        if zero {
            out.push(0);
        }
        i = skip_ws(b, i).min(e);
        if i >= e {
            return Ok(());
        }
        if b[i] != b',' {
            let found = quote(&code[i..e]);
            return Err(lerr(
                i,
                e,
                ErrorKind::Syntax(format!(
                    "expected `,` or the end of the line, found {found}"
                )),
            ));
        }
        i = skip_ws(b, i + 1).min(e);
        if i >= e {
            return Err(lerr(
                e.saturating_sub(1),
                e,
                ErrorKind::Syntax("expected a string after `,`".into()),
            ));
        }
    }
}

/// Append the bytes of the string literal whose opening `"` is at `code[open]` (C escapes,
/// as [`strings`] describes), and return the offset just past its closing `"`.
pub(super) fn string_literal(
    code: &str,
    open: usize,
    e: usize,
    out: &mut Vec<u8>,
) -> Result<usize, LineErr> {
    let b = code.as_bytes();
    let mut i = open + 1;
    loop {
        if i >= e {
            return Err(lerr(
                open,
                e,
                ErrorKind::Syntax("string has no closing `\"`".into()),
            ));
        }
        match b[i] {
            b'"' => return Ok(i + 1),
            b'\\' => {
                let esc = i;
                i += 1;
                let Some(&c) = b.get(i).filter(|_| i < e) else {
                    return Err(lerr(
                        open,
                        e,
                        ErrorKind::Syntax("string has no closing `\"`".into()),
                    ));
                };
                i += 1;
                let byte = match c {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'a' => 7,
                    b'b' => 8,
                    b'f' => 12,
                    b'v' => 11,
                    b'e' => 27,
                    b'\\' | b'"' | b'\'' => c,
                    b'0'..=b'7' => {
                        let mut v = u32::from(c - b'0');
                        let mut k = 1;
                        while k < 3 && i < e && (b'0'..=b'7').contains(&b[i]) {
                            v = v * 8 + u32::from(b[i] - b'0');
                            i += 1;
                            k += 1;
                        }
                        if v > 0xff {
                            return Err(lerr(
                                esc,
                                i,
                                ErrorKind::Syntax(format!(
                                    "octal escape `{}` is more than one byte (\\377 at most)",
                                    &code[esc..i]
                                )),
                            ));
                        }
                        v as u8
                    }
                    b'x' | b'X' => {
                        let start = i;
                        while i < e && i - start < 2 && b[i].is_ascii_hexdigit() {
                            i += 1;
                        }
                        match u8::from_str_radix(&code[start..i], 16) {
                            Ok(v) => v,
                            Err(_) => {
                                return Err(lerr(
                                    esc,
                                    i,
                                    ErrorKind::Syntax(
                                        "`\\x` needs one or two hexadecimal digits".into(),
                                    ),
                                ))
                            }
                        }
                    }
                    _ => {
                        let end =
                            esc + 1 + code[esc + 1..].chars().next().map_or(1, char::len_utf8);
                        return Err(lerr(
                            esc,
                            end,
                            ErrorKind::Syntax(format!(
                                "unknown escape `{}` in a string",
                                &code[esc..end]
                            )),
                        ));
                    }
                };
                out.push(byte);
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

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
        let data_like = matches!(
            lower.as_str(),
            ".byte"
                | ".half"
                | ".hword"
                | ".short"
                | ".word"
                | ".long"
                | ".int"
                | ".dword"
                | ".quad"
                | ".ascii"
                | ".asciz"
                | ".string"
                | ".align"
                | ".balign"
                | ".p2align"
                | ".space"
                | ".skip"
                | ".zero"
        );
        if data_like && self.discard {
            // Contents of a section the model never loads.
            return;
        }
        match lower.as_str() {
            ".text" | ".data" | ".bss" => {
                no_operands(self);
                self.switch_section(if lower == ".text" {
                    Section::Text
                } else {
                    Section::Data
                });
            }
            ".previous" => {
                no_operands(self);
                let (sec, discard) = self.previous;
                self.previous = (self.section, self.discard);
                self.section = sec;
                self.discard = discard;
                stmt.section = sec;
            }
            ".section" => {
                let mut parts = code[os..oe].splitn(3, ',');
                let name = parts.next().unwrap_or("").trim();
                let name = name
                    .strip_prefix('"')
                    .and_then(|n| n.strip_suffix('"'))
                    .unwrap_or(name);
                let flags = parts.next().map(|f| f.trim().trim_matches('"'));
                // `.section data`: the dot may be left out of the standard names.
                let dotted = format!(".{name}");
                let known = matches!(name, "text" | "data" | "rodata" | "bss");
                match section_target(if known { &dotted } else { name }, flags) {
                    Some(Target::Load(sec)) => self.switch_section(sec),
                    Some(Target::Discard { quiet }) => {
                        self.previous = (self.section, self.discard);
                        self.discard = true;
                        if !quiet && !self.warned_sections.iter().any(|w| w == name) {
                            self.warned_sections.push(name.into());
                            self.warn(
                                stmt,
                                code,
                                os,
                                format!(
                                    "section `{name}` is not loaded by the model: its \
                                     contents are ignored"
                                ),
                            );
                        }
                    }
                    None => self.push_err(
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
            ".ascii" | ".asciz" | ".string" => {
                let zero = lower != ".ascii";
                let mut bytes = Vec::new();
                match strings(code, os, oe, zero, &mut bytes) {
                    Ok(()) => {
                        stmt.kind = StmtKind::Ascii(zero);
                        self.advance(bytes.len() as u64, stmt, code);
                        self.emit(*stmt, code);
                    }
                    Err(e) => self.push_err(stmt.line_no, stmt.line_start, code, e),
                }
            }
            ".file" => self.file_directive(stmt, code, ws, we),
            ".kernel" => self.kernel_directive(stmt, code, ws, we),
            ".param" => self.param_directive(stmt, code, ws, we),
            ".loc" => self.loc_directive(stmt, code, ws, we),
            ".launch" | ".launch_arg" => {
                // A launch written in the source (provisional): read by the host
                // library from the text (warpkit_host::launch_file); no bytes here.
            }
            ".ident" | ".local" => {
                // `.ident` names the compiler: nothing to do. Every label is local unless
                // `.global`, so `.local` changes nothing.
            }
            ".type" => self.type_directive(stmt, code),
            ".size" => {
                let Some(comma) = code[os..oe].find(',').map(|i| os + i) else {
                    self.push_err(
                        stmt.line_no,
                        stmt.line_start,
                        code,
                        lerr(
                            ws,
                            oe.max(we),
                            ErrorKind::Syntax("`.size` needs `name, size`".into()),
                        ),
                    );
                    return;
                };
                let (s, e) = trim_range(b, os, comma);
                if self.symbol_name(stmt, code, s, e) {
                    let (xs, xe) = trim_range(b, comma + 1, oe);
                    self.sizes.push((&code[s..e], *stmt, xs, xe));
                }
            }
            d if d.starts_with(".cfi_") || IGNORED.contains(&d) => {
                // Once per directive: a compiler emits hundreds of `.loc`s.
                if !self.warned_directives.contains(&lower) {
                    let message = format!(
                        "`{word}` has no meaning for this target and is ignored (here and \
                         wherever it appears again)"
                    );
                    self.warn(stmt, code, ws, message);
                    self.warned_directives.push(lower.clone());
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
                let mut args = [(0usize, 0usize); 3];
                let n = split_operands(b, os, oe, &mut args);
                let most = if is_align { 3 } else { 2 };
                if n > most {
                    self.push_err(
                        stmt.line_no,
                        stmt.line_start,
                        code,
                        lerr(
                            os,
                            oe,
                            ErrorKind::Syntax(format!(
                                "`{lower}` takes at most {most} operands ({})",
                                if is_align {
                                    "alignment, fill byte, most bytes to skip"
                                } else {
                                    "size, fill byte"
                                }
                            )),
                        ),
                    );
                    return;
                }
                let (xs, xe) = if n == 0 { (os, oe) } else { args[0] };
                let mut fill = 0u8;
                let mut max_skip = None;
                for (k, &(s, e)) in args.iter().enumerate().take(n).skip(1) {
                    if s == e {
                        continue; // `.p2align 4,,15`: the default fill
                    }
                    let what = if k == 1 {
                        "the fill byte"
                    } else {
                        "the most bytes to skip"
                    };
                    match self.const_expr(code, s, e, stmt) {
                        Ok(v) if k == 1 && (-128..=255).contains(&v.v) => fill = v.v as u8,
                        Ok(v) if k == 2 && v.v >= 0 => max_skip = Some(v.v),
                        Ok(v) => {
                            let (lo, hi) = if k == 1 { (-128, 255) } else { (0, i128::MAX) };
                            self.push_err(
                                stmt.line_no,
                                stmt.line_start,
                                code,
                                lerr(
                                    s,
                                    e,
                                    ErrorKind::DataOutOfRange {
                                        directive: if k == 1 { "fill byte" } else { "max skip" },
                                        value: v.v,
                                        bits: if k == 1 { 8 } else { 127 },
                                        lo,
                                        hi,
                                    },
                                ),
                            );
                            return;
                        }
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
                    }
                }
                let v = match self.const_expr(code, xs, xe, stmt) {
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
                    let max_log = MAX_ALIGN.trailing_zeros();
                    let align = if lower == ".p2align" {
                        if (0..=i128::from(max_log)).contains(&v) {
                            1i128 << v
                        } else {
                            self.push_err(
                                stmt.line_no,
                                stmt.line_start,
                                code,
                                lerr(
                                    xs,
                                    xe,
                                    ErrorKind::BadP2Align {
                                        value: v,
                                        max: max_log,
                                        max_align: MAX_ALIGN,
                                    },
                                ),
                            );
                            return;
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
                                xs,
                                xe,
                                ErrorKind::BadAlign {
                                    directive: if lower == ".balign" {
                                        ".balign"
                                    } else {
                                        ".align"
                                    },
                                    value: v,
                                    max: MAX_ALIGN,
                                },
                            ),
                        );
                        return;
                    }
                    let a = align as u64;
                    let pad = stmt.addr.next_multiple_of(a) - stmt.addr;
                    match max_skip {
                        Some(m) if i128::from(pad) > m => 0,
                        _ => pad,
                    }
                } else {
                    if !(0..=i128::from(MAX_FILL)).contains(&v) {
                        self.push_err(
                            stmt.line_no,
                            stmt.line_start,
                            code,
                            lerr(
                                xs,
                                xe,
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
                stmt.kind = StmtKind::Fill(len, fill);
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
            ".equ" | ".equiv" | ".set" => {
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
                let redefinable = lower == ".set";
                if let Some(i) = self.define(
                    stmt.line_no,
                    stmt.line_start,
                    code,
                    s,
                    e,
                    name,
                    value,
                    redefinable,
                ) {
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

    fn switch_section(&mut self, sec: Section) {
        self.previous = (self.section, self.discard);
        self.section = sec;
        self.discard = false;
    }

    /// `.type name, @function` (also `%function`, `"function"`, `STT_FUNC`; `object`,
    /// `notype`): recorded, applied to the label once the file is read.
    fn type_directive(&mut self, stmt: &Stmt, code: &'s str) {
        let b = code.as_bytes();
        let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
        let Some(comma) = code[os..oe].find(',').map(|i| os + i) else {
            self.push_err(
                stmt.line_no,
                stmt.line_start,
                code,
                lerr(
                    os,
                    oe.max(os + 1),
                    ErrorKind::Syntax("`.type` needs `name, @function` or `name, @object`".into()),
                ),
            );
            return;
        };
        let (s, e) = trim_range(b, os, comma);
        if !self.symbol_name(stmt, code, s, e) {
            return;
        }
        let (ts, te) = trim_range(b, comma + 1, oe);
        let ty = code[ts..te]
            .trim_start_matches(['@', '%'])
            .trim_matches('"')
            .to_ascii_lowercase();
        let kind = match ty.as_str() {
            "function" | "stt_func" => SymbolKind::Function,
            "object" | "stt_object" => SymbolKind::Object,
            "notype" | "stt_notype" => SymbolKind::NoType,
            _ => {
                let found = quote(&code[ts..te]);
                self.push_err(
                    stmt.line_no,
                    stmt.line_start,
                    code,
                    lerr(
                        ts,
                        te.max(ts + 1),
                        ErrorKind::Syntax(format!(
                            "unsupported symbol type {found}; expected @function, @object or \
                             @notype"
                        )),
                    ),
                );
                return;
            }
        };
        self.types.push((&code[s..e], kind, *stmt, s, e));
    }

    /// Check that `code[s..e]` is a symbol name; report it otherwise.
    pub(super) fn symbol_name(&mut self, stmt: &Stmt, code: &str, s: usize, e: usize) -> bool {
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
