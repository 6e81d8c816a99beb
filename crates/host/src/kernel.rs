//! Kernels from files or bytes: OpenCL C source (compiled by `warpkit-cc`), assembly source,
//! an ELF code object, or raw code.

use std::io::Read;
use std::path::Path;
use warpkit_asm::{AsmErrors, Program, MAX_SOURCE_BYTES};

/// What a kernel file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    /// OpenCL C source, compiled and assembled on load.
    OpenCl,
    /// Assembly source, assembled on load.
    Source,
    /// An ELF code object (`warpkit asm --format elf`).
    Elf,
    /// Raw code: its bytes are `.text`, PC 0 is the first byte.
    Raw,
    /// Hex text as `warpkit asm --format hex` writes it.
    Hex,
}

impl KernelKind {
    /// The kind of the file at `path` holding `bytes`: OpenCL C by the extension `.cl`,
    /// assembly source by extension (`.s`, `.S`, `.asm`), ELF by its magic number or the
    /// extension `.elf`, hex by the extension `.hex` or text that [`parse_hex`] reads, raw
    /// otherwise.
    pub fn detect(path: &Path, bytes: &[u8]) -> KernelKind {
        let ext = path.extension().and_then(|e| e.to_str());
        if ext == Some("cl") {
            KernelKind::OpenCl
        } else if matches!(ext, Some("s" | "S" | "asm")) {
            KernelKind::Source
        } else if bytes.starts_with(b"\x7fELF") || ext == Some("elf") {
            KernelKind::Elf
        } else if ext == Some("hex") || parse_hex(bytes).is_some() {
            KernelKind::Hex
        } else {
            KernelKind::Raw
        }
    }
}

/// One error or warning of the OpenCL C compiler, where it is printed (a message from a
/// macro expansion: at the outermost invocation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileDiagnostic {
    /// A warning (compilation went on), else an error.
    pub warning: bool,
    /// The file's name as the compiler was given it.
    pub file: String,
    /// 1-based line; 0 for a message about the whole compilation.
    pub line: usize,
    /// 1-based column in characters; 0 without a line.
    pub column: usize,
    /// The message, without location or severity.
    pub message: String,
}

impl CompileDiagnostic {
    fn of(
        d: &warpkit_cc::diag::Diagnostic,
        sources: &warpkit_cc::source::SourceMap,
        name: &str,
    ) -> Self {
        let loc = d.location(sources);
        CompileDiagnostic {
            warning: d.severity == warpkit_cc::diag::Severity::Warning,
            file: loc
                .as_ref()
                .map_or_else(|| name.to_string(), |l| l.file.clone()),
            line: loc.as_ref().map_or(0, |l| l.line as usize),
            column: loc.as_ref().map_or(0, |l| l.col as usize),
            message: d.message.clone(),
        }
    }

    /// The diagnostics of `list` that are errors or warnings.
    fn all(
        list: &warpkit_cc::diag::Diagnostics,
        sources: &warpkit_cc::source::SourceMap,
        name: &str,
    ) -> Vec<Self> {
        list.list
            .iter()
            .filter(|d| d.severity != warpkit_cc::diag::Severity::Note)
            .map(|d| CompileDiagnostic::of(d, sources, name))
            .collect()
    }
}

/// Why a kernel could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {error}")]
    Read {
        /// The path as given.
        path: String,
        /// The operating system's error.
        #[source]
        error: std::io::Error,
    },
    /// The kernel is larger than [`MAX_SOURCE_BYTES`].
    /// `size` is the file's when it is a regular file; a stream is known only to be over.
    #[error("{name}: {}", too_large(*size))]
    TooLarge {
        /// The file's path as given.
        name: String,
        /// The file's size in bytes, if it is a regular file.
        size: Option<u64>,
    },
    /// The source did not assemble; [`LoadError::render`] gives the diagnostics with source
    /// excerpts, as the assembler prints them.
    #[error("{errors}")]
    Assembly {
        /// Every diagnostic of the source.
        errors: AsmErrors,
        /// The source text (invalid UTF-8 replaced), for the excerpts.
        text: String,
    },
    /// The OpenCL C source did not compile; `rendered` holds every diagnostic as clang
    /// prints them.
    #[error("{rendered}")]
    Compile {
        /// The diagnostics with source excerpts and the count line.
        rendered: String,
        /// The errors, and the warnings found before them, in the order found (notes are
        /// only in `rendered`).
        diagnostics: Vec<CompileDiagnostic>,
    },
    /// The compiler's output did not assemble: a compiler bug, reported with the text.
    #[error(
        "internal compiler error: the generated assembly of {name} does not assemble:\n{rendered}"
    )]
    CompilerOutput {
        /// The kernel's name in messages.
        name: String,
        /// The assembler's diagnostics.
        rendered: String,
    },
    /// [`KernelKind::Hex`] was asked for, but the bytes are not hex text [`parse_hex`] reads.
    #[error(
        "{name}: not hex text as `warpkit asm --format hex` writes it (one 8- or 16-digit \
         hex word per line, `// .text` and `// .data` headings)"
    )]
    Hex {
        /// The kernel's name in messages.
        name: String,
    },
    /// The bytes are not a valid ELF code object.
    #[error("{name}: {error}")]
    Object {
        /// The kernel's name in messages.
        name: String,
        /// What the object reader refused.
        #[source]
        error: warpkit_asm::LoadError,
    },
}

impl LoadError {
    /// The message as a user should see it: for assembly errors every diagnostic with its
    /// source line and caret, then the count; otherwise the one-line description.
    pub fn render(&self) -> String {
        match self {
            LoadError::Assembly { errors, text } => errors.render(text),
            LoadError::Compile { rendered, .. } => rendered.clone(),
            other => format!("{other}\n"),
        }
    }
}

fn too_large(size: Option<u64>) -> String {
    let limit = format!(
        "kernels are limited to {MAX_SOURCE_BYTES} bytes ({})",
        crate::number::human_bytes(MAX_SOURCE_BYTES as u64)
    );
    match size {
        Some(n) => format!(
            "the file is {n} bytes ({}); {limit}",
            crate::number::human_bytes(n)
        ),
        None => format!("more than {MAX_SOURCE_BYTES} bytes; {limit}"),
    }
}

/// The kernel in the file at `path` (kind detected by [`KernelKind::detect`]); files larger
/// than [`MAX_SOURCE_BYTES`] are refused without being read in full. OpenCL C is compiled
/// with the default options ([`load_kernel_with`] takes others).
pub fn load_kernel(path: &Path) -> Result<Program, LoadError> {
    load_kernel_with(path, &warpkit_cc::Options::default())
}

/// [`load_kernel`] compiling OpenCL C with `cl` (defines, include directories, optimisation
/// level, build options).
pub fn load_kernel_with(path: &Path, cl: &warpkit_cc::Options) -> Result<Program, LoadError> {
    let bytes = read_kernel_file(path)?;
    let name = path.display().to_string();
    load_kernel_bytes_with(&bytes, &name, KernelKind::detect(path, &bytes), cl)
}

/// The bytes of the file at `path`; files larger than [`MAX_SOURCE_BYTES`] are refused
/// without being read in full.
pub fn read_kernel_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    let name = path.display().to_string();
    let cannot = |error| LoadError::Read {
        path: name.clone(),
        error,
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    if size.is_some_and(|n| n > MAX_SOURCE_BYTES as u64) {
        return Err(LoadError::TooLarge { name, size });
    }
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() > MAX_SOURCE_BYTES {
        return Err(LoadError::TooLarge { name, size: None });
    }
    Ok(bytes)
}

/// The kernel held by `bytes` of the given kind; `name` names it in messages (the file
/// name of assembly diagnostics).
pub fn load_kernel_bytes(bytes: &[u8], name: &str, kind: KernelKind) -> Result<Program, LoadError> {
    load_kernel_bytes_with(bytes, name, kind, &warpkit_cc::Options::default())
}

/// [`load_kernel_bytes`] compiling OpenCL C with `cl`.
pub fn load_kernel_bytes_with(
    bytes: &[u8],
    name: &str,
    kind: KernelKind,
    cl: &warpkit_cc::Options,
) -> Result<Program, LoadError> {
    match kind {
        KernelKind::OpenCl => compile_opencl(bytes, name, cl),
        KernelKind::Source => {
            warpkit_asm::assemble_bytes(bytes, name).map_err(|errors| LoadError::Assembly {
                errors,
                text: String::from_utf8_lossy(bytes).into_owned(),
            })
        }
        KernelKind::Elf => warpkit_asm::load_object(bytes).map_err(|error| LoadError::Object {
            name: name.to_string(),
            error,
        }),
        KernelKind::Raw => Ok(Program {
            text: bytes.to_vec(),
            ..Program::default()
        }),
        KernelKind::Hex => parse_hex(bytes).ok_or_else(|| LoadError::Hex {
            name: name.to_string(),
        }),
    }
}

/// Compile OpenCL C and assemble the result: the program with its kernels' metadata and
/// the source's lines; the compiler's warnings become the program's warnings.
pub fn compile_opencl(
    bytes: &[u8],
    name: &str,
    cl: &warpkit_cc::Options,
) -> Result<Program, LoadError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let message = format!(
            "the source is not UTF-8 text (byte offset {})",
            e.valid_up_to()
        );
        LoadError::Compile {
            rendered: format!("{name}: error: {message}\n"),
            diagnostics: vec![CompileDiagnostic {
                warning: false,
                file: name.to_string(),
                line: 0,
                column: 0,
                message,
            }],
        }
    })?;
    let compiled = warpkit_cc::compile_source(name, text, cl).map_err(|f| LoadError::Compile {
        rendered: f.render(),
        diagnostics: CompileDiagnostic::all(&f.diagnostics, &f.sources, name),
    })?;
    let asm_name = format!("{name}.s");
    let mut program = warpkit_asm::assemble(&compiled.assembly, &asm_name).map_err(|errors| {
        LoadError::CompilerOutput {
            name: name.to_string(),
            rendered: errors.render(&compiled.assembly),
        }
    })?;
    program.warnings = CompileDiagnostic::all(&compiled.warnings, &compiled.sources, name)
        .into_iter()
        .filter(|d| d.warning)
        .map(|d| warpkit_asm::AsmWarning {
            file: d.file,
            line: d.line,
            column: d.column,
            message: d.message,
            notes: Vec::new(),
        })
        .collect();
    Ok(program)
}

/// The program in hex text as `warpkit asm --format hex` writes it: `// .text`, then one
/// instruction word per line (8 hex digits, or 16 for a 64-bit instruction, its value as a
/// little-endian number), then optionally `// .data` and one 32-bit word per line. Other
/// `//` comments and blank lines are ignored. `None` if the text is not of that form or
/// holds no word.
pub fn parse_hex(bytes: &[u8]) -> Option<Program> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut p = Program::default();
    let mut in_data = false;
    let mut words = 0usize;
    for line in text.lines() {
        let (code, comment) = match line.find("//") {
            Some(i) => (&line[..i], Some(line[i + 2..].trim())),
            None => (line, None),
        };
        match comment {
            Some(".data") => in_data = true,
            Some(".text") => in_data = false,
            _ => {}
        }
        for token in code.split_whitespace() {
            let digits = token.strip_prefix("0x").unwrap_or(token);
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let out = if in_data { &mut p.data } else { &mut p.text };
            match digits.len() {
                8 => out.extend(u32::from_str_radix(digits, 16).ok()?.to_le_bytes()),
                16 if !in_data => out.extend(u64::from_str_radix(digits, 16).ok()?.to_le_bytes()),
                _ => return None,
            }
            words += 1;
        }
    }
    (words > 0).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let p = Path::new;
        assert_eq!(KernelKind::detect(p("k.s"), b"\x7fELF"), KernelKind::Source);
        assert_eq!(KernelKind::detect(p("k.o"), b"\x7fELF.."), KernelKind::Elf);
        assert_eq!(KernelKind::detect(p("k.elf"), b""), KernelKind::Elf);
        assert_eq!(KernelKind::detect(p("k.bin"), b"\0\0"), KernelKind::Raw);
        assert_eq!(
            KernelKind::detect(p("k"), b"// .text\n00000070\n"),
            KernelKind::Hex
        );
    }

    #[test]
    fn hex_round_trip() {
        let p = warpkit_asm::assemble("mov.vl v1, 0x6f\nendpgm\n.data\n.word 7\n", "k.s").unwrap();
        let back = parse_hex(p.to_hex().as_bytes()).unwrap();
        assert_eq!(back.text, p.text);
        assert_eq!(back.data, p.data);
        assert!(parse_hex(b"hello world\n").is_none());
    }

    #[test]
    fn source_errors_render_as_the_assembler_prints_them() {
        let e = load_kernel_bytes(b"add v1, v2\n", "k.s", KernelKind::Source).unwrap_err();
        let LoadError::Assembly { errors, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(e.render(), errors.render("add v1, v2\n"));
        assert!(e.render().starts_with("k.s:1:"), "{}", e.render());
    }

    #[test]
    fn compile_errors_list_their_diagnostics_where_they_are_printed() {
        let src = "#define BAD(x) (x + undeclared)\n#define A 1\n#define A 2\n\
                   kernel void f(global int *o)\n{\n    o[0] = BAD(1);\n    o[1] = 1 +;\n}\n";
        let cl = warpkit_cc::Options::default();
        let e = compile_opencl(src.as_bytes(), "k.cl", &cl).unwrap_err();
        let LoadError::Compile {
            rendered,
            diagnostics,
        } = &e
        else {
            panic!("{e:?}")
        };
        // Syntax errors stop before the semantic pass: the warning, then the error.
        assert_eq!(
            diagnostics
                .iter()
                .map(|d| (d.warning, d.file.as_str(), d.line, d.column))
                .collect::<Vec<_>>(),
            [(true, "k.cl", 3, 9), (false, "k.cl", 7, 15)]
        );
        assert_eq!(e.render(), *rendered);
        assert!(
            rendered.ends_with("1 warning and 1 error generated.\n"),
            "{rendered}"
        );
        // An error inside a macro is located at the invocation, as it is printed.
        let fixed = src.replace("1 +;", "1;");
        let e = compile_opencl(fixed.as_bytes(), "k.cl", &cl).unwrap_err();
        let LoadError::Compile { diagnostics, .. } = &e else {
            panic!("{e:?}")
        };
        let error = diagnostics.iter().find(|d| !d.warning).unwrap();
        assert_eq!((error.line, error.column), (6, 12), "{}", e.render());
        assert!(e
            .render()
            .contains("k.cl:6:12: error: use of undeclared identifier"));
        // Warnings of a program that compiles become the program's.
        let ok = fixed.replace("undeclared", "0");
        let p = compile_opencl(ok.as_bytes(), "k.cl", &cl).unwrap();
        let w: Vec<_> = p.warnings.iter().map(|w| (w.line, w.column)).collect();
        assert_eq!(w, [(3, 9)]);
        // Not UTF-8: one diagnostic without a line.
        let e = compile_opencl(b"kernel void f() {}\n\xff\n", "u.cl", &cl).unwrap_err();
        let LoadError::Compile { diagnostics, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(diagnostics.len(), 1);
        assert_eq!((diagnostics[0].line, diagnostics[0].warning), (0, false));
        assert!(diagnostics[0].message.contains("byte offset 19"));
    }

    #[test]
    fn elf_round_trip_and_bad_elf() {
        let p = warpkit_asm::assemble("x:\nnop\nendpgm\n", "k.s").unwrap();
        let elf = warpkit_asm::write_elf(&p);
        let back = load_kernel_bytes(&elf, "k.o", KernelKind::Elf).unwrap();
        assert_eq!(back.text, p.text);
        let e = load_kernel_bytes(b"\x7fELF junk", "k.o", KernelKind::Elf).unwrap_err();
        assert!(e.to_string().starts_with("k.o: "), "{e}");
    }
}
