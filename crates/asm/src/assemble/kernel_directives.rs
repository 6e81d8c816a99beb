//! `.kernel NAME[, shared=BYTES][, scratch=BYTES][, block=XxYxZ]` and
//! `.param KERNEL, NAME, KIND[, "C type"]`: kernel metadata (provisional; docs/assembly.md,
//! "Kernel metadata"). Both may stand anywhere in the file, before or after the label and
//! each other; they are checked against each other and the labels once the file is read.

use super::directives::string_literal;
use super::line_err::{lerr, LineErr};
use super::operands::quote;
use super::state::{Asm, KernelDecl, ParamDecl, Stmt, SymDef};
use crate::error::{closest, ErrorKind};
use crate::lex::{skip_ws, split_operands, trim_range};
use crate::{KernelInfo, ParamInfo, ParamKind, Section};

const KERNEL_USAGE: &str = "`.kernel NAME[, shared=BYTES][, scratch=BYTES][, block=XxYxZ]`";
const PARAM_USAGE: &str = "`.param KERNEL, NAME, KIND[, \"C type\"]`";

fn syntax(s: usize, e: usize, message: String) -> LineErr {
    lerr(s, e.max(s + 1), ErrorKind::Syntax(message))
}

/// `X[xY[xZ]]`, each a decimal number from 1 to 2^32 - 1; missing dimensions are 1.
fn block_dims(text: &str) -> Option<[u32; 3]> {
    let parts: Vec<&str> = text.split(['x', 'X']).collect();
    if parts.len() > 3 {
        return None;
    }
    let mut dims = [1u32; 3];
    for (d, p) in dims.iter_mut().zip(&parts) {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *d = p.parse().ok().filter(|&v| v > 0)?;
    }
    Some(dims)
}

impl<'s> Asm<'s> {
    /// `.kernel`: read and keep; its label is checked at the end of the file.
    pub(super) fn kernel_directive(&mut self, stmt: &Stmt, code: &str, ws: usize, we: usize) {
        if let Err(e) = self.kernel_directive_checked(stmt, code, ws, we) {
            self.push_err(stmt.line_no, stmt.line_start, code, e);
        }
    }

    fn kernel_directive_checked(
        &mut self,
        stmt: &Stmt,
        code: &str,
        ws: usize,
        we: usize,
    ) -> Result<(), LineErr> {
        let b = code.as_bytes();
        let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
        let mut ops = [(0usize, 0usize); 5];
        let n = split_operands(b, os, oe, &mut ops);
        if n == 0 {
            return Err(syntax(
                ws,
                we,
                format!("{KERNEL_USAGE} needs a kernel name"),
            ));
        }
        if n > 4 {
            return Err(syntax(
                ops[4].0,
                oe,
                format!("{KERNEL_USAGE} takes at most 4 operands"),
            ));
        }
        let (ns, ne) = ops[0];
        if !self.symbol_name(stmt, code, ns, ne) {
            return Ok(());
        }
        let name = &code[ns..ne];
        if self
            .kernel_decls
            .kernels
            .iter()
            .any(|k| k.info.name == name)
        {
            return Err(syntax(
                ns,
                ne,
                format!("kernel `{name}` is declared twice: a kernel may be declared once"),
            ));
        }
        let mut info = KernelInfo::new(name);
        let mut given: Vec<String> = Vec::new();
        for &(s, e) in &ops[1..n] {
            if s == e {
                return Err(syntax(
                    s.saturating_sub(1),
                    s,
                    "expected `shared=`, `scratch=` or `block=` after `,`".into(),
                ));
            }
            let Some(eq) = code[s..e].find('=').map(|i| s + i) else {
                return Err(syntax(
                    s,
                    e,
                    format!(
                        "expected `shared=BYTES`, `scratch=BYTES` or `block=XxYxZ`, found {}",
                        quote(&code[s..e])
                    ),
                ));
            };
            let (ks, ke) = trim_range(b, s, eq);
            let key = code[ks..ke].to_ascii_lowercase();
            let (vs, ve) = trim_range(b, eq + 1, e);
            if given.contains(&key) {
                return Err(lerr(ks, ke, ErrorKind::DuplicateKey { key }));
            }
            if vs >= ve {
                return Err(syntax(s, e, format!("expected a value after `{key}=`")));
            }
            match key.as_str() {
                "shared" | "scratch" => {
                    let what = if key == "shared" {
                        "the shared memory size"
                    } else {
                        "the scratch memory size"
                    };
                    let v = match self.const_expr(code, vs, ve, stmt) {
                        Ok(v) if v.sec.is_none() => v.v,
                        Ok(_) => {
                            return Err(syntax(
                                vs,
                                ve,
                                format!("`{key}=` needs a byte count, not an address"),
                            ))
                        }
                        Err(e) if matches!(*e.kind, ErrorKind::UndefinedSymbol { .. }) => {
                            return Err(lerr(e.start, e.end, ErrorKind::NotConstant { what }))
                        }
                        Err(e) => return Err(e.into()),
                    };
                    let bytes = u32::try_from(v).map_err(|_| {
                        syntax(
                            vs,
                            ve,
                            format!("`{key}=` needs a byte count from 0 to 4294967295, found {v}"),
                        )
                    })?;
                    if key == "shared" {
                        info.shared_bytes = bytes;
                    } else {
                        info.scratch_bytes = bytes;
                    }
                }
                "block" => {
                    info.block = Some(block_dims(&code[vs..ve]).ok_or_else(|| {
                        syntax(
                            vs,
                            ve,
                            format!(
                                "`block=` needs X[xY[xZ]], each a decimal number from 1 to \
                                 4294967295 (like 16x16x1), found {}",
                                quote(&code[vs..ve])
                            ),
                        )
                    })?);
                }
                _ => {
                    return Err(syntax(
                        ks,
                        ke,
                        format!(
                            "unknown `.kernel` key {}; expected shared, scratch or block",
                            quote(&code[ks..ke])
                        ),
                    ))
                }
            }
            given.push(key);
        }
        self.kernel_decls.kernels.push(KernelDecl {
            info,
            stmt: *stmt,
            name: (ns, ne),
        });
        Ok(())
    }

    /// `.param`: read and keep; its kernel is looked up at the end of the file.
    pub(super) fn param_directive(&mut self, stmt: &Stmt, code: &str, ws: usize, we: usize) {
        if let Err(e) = self.param_directive_checked(stmt, code, ws, we) {
            self.push_err(stmt.line_no, stmt.line_start, code, e);
        }
    }

    fn param_directive_checked(
        &mut self,
        stmt: &Stmt,
        code: &str,
        ws: usize,
        we: usize,
    ) -> Result<(), LineErr> {
        let b = code.as_bytes();
        let (os, oe) = (stmt.ops_start as usize, stmt.ops_end as usize);
        // The C type is a string and may hold commas: only the first three split.
        let mut fields: Vec<(usize, usize)> = Vec::new();
        let mut start = os;
        while fields.len() < 3 {
            match code[start..oe].find(',') {
                Some(i) => {
                    fields.push(trim_range(b, start, start + i));
                    start = start + i + 1;
                }
                None => {
                    fields.push(trim_range(b, start, oe));
                    start = oe;
                    break;
                }
            }
        }
        let rest = (start < oe || code[os..oe].matches(',').count() >= 3)
            .then(|| trim_range(b, start, oe));
        if fields.len() < 3 || fields.iter().any(|&(s, e)| s >= e) {
            let at = fields
                .iter()
                .find(|&&(s, e)| s >= e)
                .map_or((ws, we.max(oe)), |&(s, _)| (s.saturating_sub(1), s));
            return Err(syntax(
                at.0,
                at.1,
                format!("{PARAM_USAGE}: the kernel, the parameter's name and its kind"),
            ));
        }
        let [(ks, ke), (ns, ne), (ts, te)] = [fields[0], fields[1], fields[2]];
        if !self.symbol_name(stmt, code, ks, ke) || !self.symbol_name(stmt, code, ns, ne) {
            return Ok(());
        }
        let kind_text = &code[ts..te];
        let Some(kind) = ParamKind::from_name(&kind_text.to_ascii_lowercase()) else {
            let names: Vec<&str> = ParamKind::ALL.iter().map(|k| k.name()).collect();
            let hint = closest(kind_text, names.iter().copied())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(syntax(
                ts,
                te,
                format!(
                    "unknown parameter kind {}{hint}; the kinds are {}",
                    quote(kind_text),
                    ParamKind::names()
                ),
            ));
        };
        let mut c_type = Vec::new();
        if let Some((ss, se)) = rest {
            if ss >= se || b[ss] != b'"' {
                return Err(syntax(
                    ss.min(oe.saturating_sub(1)),
                    se.max(ss),
                    format!(
                        "the C type is a string in double quotes, found {}",
                        if ss >= se {
                            "nothing".into()
                        } else {
                            quote(&code[ss..se])
                        }
                    ),
                ));
            }
            let end = string_literal(code, ss, se, &mut c_type)?;
            let after = skip_ws(b, end).min(se);
            if after < se {
                return Err(syntax(
                    after,
                    se,
                    format!("unexpected {} after the C type", quote(&code[after..se])),
                ));
            }
        }
        self.kernel_decls.params.push(ParamDecl {
            kernel: code[ks..ke].to_string(),
            kernel_at: (ks, ke),
            param: ParamInfo {
                name: code[ns..ne].to_string(),
                kind,
                c_type: String::from_utf8_lossy(&c_type).into_owned(),
            },
            name_at: (ns, ne),
            stmt: *stmt,
        });
        Ok(())
    }

    /// The kernels, once every label is known: each `.kernel` must name a `.text` label
    /// (not an assembler-local one), each `.param` a declared kernel, and a kernel's
    /// parameter names must differ.
    pub(super) fn finish_kernels(&mut self) -> Vec<KernelInfo> {
        let decls = std::mem::take(&mut self.kernel_decls);
        let mut kernels = Vec::with_capacity(decls.kernels.len());
        for k in decls.kernels {
            let name = k.info.name.as_str();
            let why = match self.map.get(name).map(|&i| self.syms[i].def) {
                _ if name.starts_with(".L") => Some(format!(
                    "`{name}` is an assembler-local label (it is not a symbol): a kernel entry \
                     needs a label the object file keeps"
                )),
                Some(SymDef::Label(Section::Text, _)) => None,
                Some(SymDef::Label(Section::Data, _)) => Some(format!(
                    "`{name}` is a .data label: a kernel entry is a .text label"
                )),
                _ => Some(format!(
                    "`.kernel {name}` names no label: it must be a .text label defined in this \
                     file"
                )),
            };
            if let Some(why) = why {
                self.error_at(&k.stmt, k.name, why);
            }
            kernels.push(k.info);
        }
        for p in decls.params {
            let Some(kernel) = kernels.iter_mut().find(|k| k.name == p.kernel) else {
                let why = format!(
                    "no kernel `{}` is declared: a `.kernel {}` in this file must declare it",
                    p.kernel, p.kernel
                );
                self.error_at(&p.stmt, p.kernel_at, why);
                continue;
            };
            if kernel.params.iter().any(|q| q.name == p.param.name) {
                let why = format!(
                    "kernel `{}` already has a parameter `{}`",
                    p.kernel, p.param.name
                );
                self.error_at(&p.stmt, p.name_at, why);
                continue;
            }
            kernel.params.push(p.param);
        }
        kernels
    }

    /// Report `message` at `at` in the line of `stmt`.
    fn error_at(&mut self, stmt: &Stmt, at: (usize, usize), message: String) {
        let code = &self.src[stmt.line_start..stmt.line_end];
        self.push_err(
            stmt.line_no,
            stmt.line_start,
            code,
            syntax(at.0, at.1, message),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::block_dims;

    #[test]
    fn blocks() {
        assert_eq!(block_dims("16x16x1"), Some([16, 16, 1]));
        assert_eq!(block_dims("64"), Some([64, 1, 1]));
        assert_eq!(block_dims("8X4"), Some([8, 4, 1]));
        for bad in ["", "0", "1x", "x1", "1x2x3x4", "0x10", "-1", "99999999999"] {
            assert_eq!(block_dims(bad), None, "{bad}");
        }
    }
}
