//! A launch written in the program's own source (PROVISIONAL, docs/assembly.md "Launch
//! directives"): `.launch grid=..., block=..., shared=..., scratch=...` and
//! `.launch_arg NAME=VALUE` lines, so `warpkit run FILE.s` alone runs a program that
//! needs a particular grid and buffers (generated programs, docs/gen.md). The assembler
//! accepts and skips these lines; this module reads them from the source text.

use crate::launch::{Launch, SetupError};

/// The launch a source file declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchDirectives {
    /// `grid=X[xYxZ]`.
    pub grid: Option<[u32; 3]>,
    /// `block=X[xYxZ]`.
    pub block: Option<[u32; 3]>,
    /// `shared=BYTES`.
    pub shared: Option<u32>,
    /// `scratch=BYTES`.
    pub scratch: Option<u32>,
    /// `.launch_arg` values in the `--arg` syntax (`NAME=INT`, `NAME=buf:BYTES`), in order.
    pub args: Vec<String>,
}

impl LaunchDirectives {
    /// Apply the directives to `launch`: the ABI launch (never bare) with this shape and
    /// these arguments.
    pub fn apply(&self, launch: &mut Launch) -> Result<(), SetupError> {
        launch.bare(false);
        if let Some(b) = self.block {
            launch.block(b)?;
        }
        if let Some(g) = self.grid {
            launch.grid(g)?;
        }
        if let Some(s) = self.shared {
            launch.shared(s)?;
        }
        if let Some(s) = self.scratch {
            launch.scratch(s)?;
        }
        for a in &self.args {
            launch.arg_text(a)?;
        }
        Ok(())
    }

    /// The directives as source lines, the way [`parse_launch_directives`] reads them.
    pub fn to_source(&self) -> String {
        let mut keys = Vec::new();
        let dims = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
        if let Some(g) = self.grid {
            keys.push(format!("grid={}", dims(g)));
        }
        if let Some(b) = self.block {
            keys.push(format!("block={}", dims(b)));
        }
        if let Some(s) = self.shared {
            keys.push(format!("shared={s}"));
        }
        if let Some(s) = self.scratch {
            keys.push(format!("scratch={s}"));
        }
        let mut out = String::new();
        if !keys.is_empty() {
            out.push_str(&format!("    .launch {}\n", keys.join(", ")));
        }
        for a in &self.args {
            out.push_str(&format!("    .launch_arg {a}\n"));
        }
        out
    }
}

/// A malformed launch directive, located in the source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct LaunchDirectiveError {
    /// The source's name.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters) of the offending text.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// The launch directives of assembly `source` (named `file` in errors), or `None` when it
/// has none. Only lines whose first word is `.launch` or `.launch_arg` are read; a
/// directive inside a macro or an included file is not seen (provisional).
pub fn parse_launch_directives(
    source: &str,
    file: &str,
) -> Result<Option<LaunchDirectives>, LaunchDirectiveError> {
    let mut out = LaunchDirectives::default();
    let mut any = false;
    for (i, raw) in source.lines().enumerate() {
        let line = strip_comment(raw);
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let (word, rest) = match trimmed.find(char::is_whitespace) {
            Some(k) => (&trimmed[..k], &trimmed[k..]),
            None => (trimmed, ""),
        };
        let err = |offset: usize, message: String| LaunchDirectiveError {
            file: file.to_string(),
            line: i + 1,
            column: raw[..offset.min(raw.len())].chars().count() + 1,
            message,
        };
        let rest_at = indent + word.len();
        match word.to_ascii_lowercase().as_str() {
            ".launch" => {
                any = true;
                if rest.trim().is_empty() {
                    return Err(err(
                        indent,
                        "`.launch` needs KEY=VALUE operands (grid, block, shared, scratch)".into(),
                    ));
                }
                let mut at = rest_at;
                for part in rest.split(',') {
                    let lead = part.len() - part.trim_start().len();
                    let item = part.trim();
                    let col = at + lead;
                    at += part.len() + 1;
                    let Some((key, value)) = item.split_once('=') else {
                        return Err(err(col, format!("expected KEY=VALUE, found `{item}`")));
                    };
                    let (key, value) = (key.trim(), value.trim());
                    let twice = || err(col, format!("`{key}` is given twice"));
                    match key {
                        "grid" | "block" => {
                            let d = dims(value).ok_or_else(|| {
                                err(
                                    col,
                                    format!(
                                        "`{key}={value}`: expected X[xYxZ], each from 1 to {}",
                                        u32::MAX
                                    ),
                                )
                            })?;
                            let slot = if key == "grid" {
                                &mut out.grid
                            } else {
                                &mut out.block
                            };
                            if slot.replace(d).is_some() {
                                return Err(twice());
                            }
                        }
                        "shared" | "scratch" => {
                            let n = crate::number::parse_u64(value)
                                .ok()
                                .and_then(|n| u32::try_from(n).ok())
                                .ok_or_else(|| {
                                    err(col, format!("`{key}={value}`: expected a byte count"))
                                })?;
                            let slot = if key == "shared" {
                                &mut out.shared
                            } else {
                                &mut out.scratch
                            };
                            if slot.replace(n).is_some() {
                                return Err(twice());
                            }
                        }
                        _ => {
                            return Err(err(
                                col,
                                format!(
                                    "unknown `.launch` key `{key}` (expected grid, block, \
                                     shared or scratch)"
                                ),
                            ))
                        }
                    }
                }
            }
            ".launch_arg" => {
                any = true;
                let value = rest.trim();
                let col = rest_at + (rest.len() - rest.trim_start().len());
                match value.split_once('=') {
                    Some((name, v)) if !name.trim().is_empty() && !v.trim().is_empty() => {
                        if v.trim_start().starts_with('@') {
                            return Err(err(
                                col,
                                "`.launch_arg` takes NAME=INT or NAME=buf:BYTES, not a file".into(),
                            ));
                        }
                        out.args.push(value.to_string());
                    }
                    _ => {
                        return Err(err(
                            col,
                            format!("`.launch_arg` needs NAME=VALUE, found `{value}`"),
                        ))
                    }
                }
            }
            _ => {}
        }
    }
    Ok(any.then_some(out))
}

/// The line without its comment (`//`, `;`, or `#` not followed by an immediate).
fn strip_comment(line: &str) -> &str {
    let mut end = line.len();
    if let Some(k) = line.find("//") {
        end = end.min(k);
    }
    if let Some(k) = line.find(';') {
        end = end.min(k);
    }
    if let Some(k) = line.find('#') {
        end = end.min(k);
    }
    &line[..end]
}

fn dims(text: &str) -> Option<[u32; 3]> {
    let parts: Vec<&str> = text.split('x').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut out = [1u32; 3];
    for (o, p) in out.iter_mut().zip(&parts) {
        *o = p.trim().parse().ok().filter(|&d| d > 0)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_directives() {
        let src = "// x\n    .launch grid=2x1x1, block=64, shared=4096  // c\n.launch_arg sig=buf:256\nnop\n";
        let d = parse_launch_directives(src, "k.s").unwrap().unwrap();
        assert_eq!(d.grid, Some([2, 1, 1]));
        assert_eq!(d.block, Some([64, 1, 1]));
        assert_eq!(d.shared, Some(4096));
        assert_eq!(d.args, vec!["sig=buf:256".to_string()]);
        let again = parse_launch_directives(&d.to_source(), "k.s")
            .unwrap()
            .unwrap();
        assert_eq!(again, d);
        assert_eq!(parse_launch_directives("nop\n", "k.s").unwrap(), None);
    }

    #[test]
    fn errors_are_located() {
        let e = parse_launch_directives("nop\n  .launch grid=1, warp=3\n", "k.s").unwrap_err();
        assert_eq!((e.line, e.column), (2, 19), "{e}");
        assert!(e.message.contains("warp"));
        let e = parse_launch_directives(".launch grid=0\n", "k.s").unwrap_err();
        assert_eq!((e.line, e.column), (1, 9));
        let e = parse_launch_directives(".launch grid=1, grid=2\n", "k.s").unwrap_err();
        assert!(e.message.contains("twice"));
        let e = parse_launch_directives(".launch_arg x=@f\n", "k.s").unwrap_err();
        assert_eq!(e.column, 13);
    }
}
