//! `#include` (C99 §6.10.2): finding and loading the file, `#pragma once`, and the limits
//! that stop files including themselves.

use super::{PpKind, PpToken, Preprocessor, MAX_FILE_BYTES};
use crate::diag::Diagnostic;
use crate::source::{FileId, Span};
use crate::token::Punct;
use std::io::Read;
use std::path::{Path, PathBuf};

impl Preprocessor<'_> {
    /// Note the main file's path, so that including it finds the file already loaded, and
    /// open it.
    pub(super) fn register_main(&mut self, main: FileId) {
        self.main = main;
        let name = Path::new(&self.sources.file(main).name);
        if let Ok(canonical) = std::fs::canonicalize(name) {
            self.file_ids.insert(canonical, main);
        }
    }

    /// The directory `#include "..."` in `file` looks in first.
    pub(super) fn dir_of(&self, file: FileId) -> Option<PathBuf> {
        let source = self.sources.file(file);
        if source.builtin {
            return None;
        }
        Path::new(&source.name).parent().map(Path::to_path_buf)
    }

    /// After `#include`.
    pub(super) fn include(&mut self, directive: &PpToken) {
        let header = {
            let frame = self.frames.last_mut().expect("a file is open");
            frame.lexer.header_name(self.diags)
        };
        let (name, angled, span) = match header {
            Some(h) => {
                self.extra_tokens("include");
                h
            }
            None => {
                let toks = self.read_line(true);
                let Some(first) = toks.first().map(|t| t.span) else {
                    self.diags.push(Diagnostic::error(
                        directive.span,
                        "expected \"FILENAME\" or <FILENAME>",
                    ));
                    return;
                };
                let toks = self.expand_isolated(toks);
                match header_from_tokens(&toks) {
                    Some((name, angled, rest)) => {
                        if let Some(extra) = toks.get(rest) {
                            self.diags.push(Diagnostic::warning(
                                extra.span,
                                "extra tokens at end of #include directive",
                            ));
                        }
                        (name, angled, first)
                    }
                    None => {
                        self.diags.push(Diagnostic::error(
                            first,
                            "expected \"FILENAME\" or <FILENAME>",
                        ));
                        return;
                    }
                }
            }
        };
        if name.is_empty() {
            self.diags.push(Diagnostic::error(span, "empty filename"));
            return;
        }
        let depth = self.limits.include_depth;
        if self.frames.len() > depth {
            self.fail(
                span,
                None,
                format!("#include nested too deeply (more than {depth} levels)"),
            );
            return;
        }
        self.includes += 1;
        let includes = self.limits.includes;
        if self.includes > includes {
            self.fail(
                span,
                None,
                format!("more than {includes} #include directives carried out"),
            );
            return;
        }
        let Some((file, dir)) = self.find_include(&name, angled, span) else {
            return;
        };
        if self.pragma_once.contains(&file) {
            return;
        }
        self.push_file(file, dir);
    }

    /// The file `name` names, loaded, and its directory; `None` after an error.
    fn find_include(
        &mut self,
        name: &str,
        angled: bool,
        span: Span,
    ) -> Option<(FileId, Option<PathBuf>)> {
        let path = Path::new(name);
        let mut candidates = Vec::new();
        if path.is_absolute() {
            candidates.push(path.to_path_buf());
        } else {
            if !angled {
                if let Some(dir) = self.frames.last().and_then(|f| f.dir.as_ref()) {
                    candidates.push(dir.join(path));
                }
            }
            candidates.extend(self.opts.include_dirs.iter().map(|d| d.join(path)));
        }
        for candidate in candidates {
            // Only regular files: a FIFO or a device could block or never end.
            let Ok(meta) = std::fs::metadata(&candidate) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let dir = candidate.parent().map(Path::to_path_buf);
            let canonical = std::fs::canonicalize(&candidate).unwrap_or(candidate.clone());
            if let Some(&file) = self.file_ids.get(&canonical) {
                return Some((file, dir));
            }
            let shown = candidate.display().to_string();
            let text = match read_limited(&candidate) {
                Ok(bytes) => bytes,
                Err(message) => {
                    self.diags.push(Diagnostic::error(
                        span,
                        format!("cannot read '{shown}': {message}"),
                    ));
                    return None;
                }
            };
            let text = match String::from_utf8(text) {
                Ok(text) => text,
                Err(e) => {
                    self.diags.push(Diagnostic::error(
                        span,
                        format!(
                            "'{shown}' is not UTF-8 text (invalid byte at offset {})",
                            e.utf8_error().valid_up_to()
                        ),
                    ));
                    return None;
                }
            };
            let file = self.sources.add_file(shown, text, false);
            self.file_ids.insert(canonical, file);
            return Some((file, dir));
        }
        self.diags
            .push(Diagnostic::error(span, format!("'{name}' file not found")));
        None
    }
}

fn read_limited(path: &Path) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("larger than {MAX_FILE_BYTES} bytes"));
    }
    Ok(bytes)
}

/// A header name from macro-expanded tokens (§6.10.2p4): a string literal, or the
/// spellings from `<` to `>`; and the index of the first token after it.
fn header_from_tokens(toks: &[PpToken]) -> Option<(String, bool, usize)> {
    let first = toks.first()?;
    if first.kind == PpKind::Str && first.text.starts_with('"') {
        let name = first.text[1..first.text.len() - 1].to_string();
        return Some((name, false, 1));
    }
    if !first.is(Punct::Lt) {
        return None;
    }
    let close = toks.iter().position(|t| t.is(Punct::Gt))?;
    let mut name = String::new();
    for (i, t) in toks[1..close].iter().enumerate() {
        if i > 0 && t.space {
            name.push(' ');
        }
        name.push_str(&t.text);
    }
    Some((name, true, close + 1))
}
