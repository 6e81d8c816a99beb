//! `warpkit asm`: assemble a source file to a raw image, an ELF code object or hex text.

use crate::failure::{Failure, Outcome};
use crate::output::{check_distinct, check_output_path, write_output};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use warpkit_asm::{assemble_bytes, write_elf, MAX_SOURCE_BYTES};
use warpkit_host::number::human_bytes;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Raw little-endian bytes: .text, then (if any) .data at the next 16-byte boundary.
    Bin,
    /// ELF64 relocatable code object with .text, .data and .symtab.
    Elf,
    /// Hex text: one line per instruction word, then one per 32-bit data word.
    Hex,
}

#[derive(clap::Args)]
pub struct Args {
    /// Assembly source file (`-` = standard input).
    pub file: PathBuf,
    /// Output file (`-` for stdout); default: the source's name with extension .bin, .o or
    /// .hex, in the current directory (`a.bin` etc. for standard input).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format; default: from the output's extension (.o/.elf: elf, .hex: hex),
    /// else bin.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Also print each instruction of .text with its bytes, llvm-mc style:
    /// `add v1, v2, v3    // encoding: [0x..,0x..,0x..,0x..]` (to stdout).
    #[arg(long)]
    pub show_encoding: bool,
    /// Also write a listing (line, section:address, encoding, source) to this file.
    #[arg(short = 'l', long = "listing")]
    pub listing: Option<PathBuf>,
}

/// Whether `path` means standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How a file's name reads in messages.
pub fn shown(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// Read at most `limit + 1` bytes of `path` (`-` = standard input), so an enormous file is
/// detected without loading it; a regular file over the limit is refused by its size.
pub fn read_bounded(path: &Path, limit: usize) -> Result<Vec<u8>, Failure> {
    let cannot = |e: std::io::Error| Failure::BadInput(format!("cannot read {}: {e}", shown(path)));
    let too_big = |len: u64| {
        Failure::BadInput(format!(
            "{}: the file is {len} bytes ({}); inputs are limited to {limit} bytes ({})",
            shown(path),
            human_bytes(len),
            human_bytes(limit as u64)
        ))
    };
    let mut bytes = Vec::new();
    if is_stdin(path) {
        std::io::stdin()
            .lock()
            .take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        if bytes.len() > limit {
            return Err(Failure::BadInput(format!(
                "<stdin>: more than {limit} bytes ({}), the limit for inputs",
                human_bytes(limit as u64)
            )));
        }
        return Ok(bytes);
    }
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if meta.is_dir() {
        return Err(Failure::BadInput(format!(
            "{}: is a directory",
            shown(path)
        )));
    }
    if meta.is_file() && meta.len() > limit as u64 {
        return Err(too_big(meta.len()));
    }
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() > limit {
        return Err(Failure::BadInput(format!(
            "{}: more than {limit} bytes ({}), the limit for inputs",
            shown(path),
            human_bytes(limit as u64)
        )));
    }
    Ok(bytes)
}

/// Each instruction of `text` in canonical syntax with its bytes in memory order; a word
/// that does not decode is shown as `.word`.
fn show_encoding(text: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let mut off = 0;
    while off < text.len() {
        let rest = &text[off..];
        let (asm, len) = match warpkit_isa::decode(rest) {
            Ok((i, len)) => (i.to_string(), len),
            Err(_) => {
                let n = rest.len().min(4);
                let mut w = [0u8; 4];
                w[..n].copy_from_slice(&rest[..n]);
                (format!(".word {:#010x}", u32::from_le_bytes(w)), n)
            }
        };
        let bytes: Vec<String> = rest[..len].iter().map(|b| format!("{b:#04x}")).collect();
        let _ = writeln!(s, "{asm:<40} // encoding: [{}]", bytes.join(","));
        off += len;
    }
    s
}

/// Whether `path` names a terminal (`/dev/tty`, `/dev/stdout` on a terminal); `-` does not
/// count: it is the explicit request.
fn is_terminal_path(path: &Path) -> bool {
    path.as_os_str() != "-"
        && crate::output::is_device(path)
        && std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .is_ok_and(|f| f.is_terminal())
}

/// The format `-o PATH` asks for by its extension, as GNU as and llvm-mc users expect.
fn format_of(path: &Path) -> Format {
    match path.extension().and_then(|e| e.to_str()) {
        Some("o" | "elf") => Format::Elf,
        Some("hex") => Format::Hex,
        _ => Format::Bin,
    }
}

pub fn run(args: Args) -> Outcome {
    let name = shown(&args.file);
    let format = args
        .format
        .unwrap_or_else(|| args.output.as_deref().map_or(Format::Bin, format_of));
    let path = args.output.clone().unwrap_or_else(|| {
        // In the current directory, as `as` and `cc` do, never next to an input such as
        // /dev/stdin.
        let stem = if is_stdin(&args.file) {
            PathBuf::from("a")
        } else {
            PathBuf::from(args.file.file_name().unwrap_or_else(|| "a".as_ref()))
        };
        stem.with_extension(match format {
            Format::Bin => "bin",
            Format::Elf => "o",
            Format::Hex => "hex",
        })
    });
    // Checked before assembling, so that one output is never written while the other fails.
    check_output_path("-o", &path)?;
    let mut outputs = vec![("-o", path.as_path())];
    if let Some(listing) = &args.listing {
        check_output_path("-l", listing)?;
        outputs.push(("-l", listing.as_path()));
    }
    check_distinct(&outputs, &[("source", args.file.as_path())])?;
    if format != Format::Hex && is_terminal_path(&path) {
        return Err(Failure::BadInput(format!(
            "-o {}: refusing to write binary output to a terminal; name a file, or give \
             -o - to insist",
            path.display()
        )));
    }
    let bytes = read_bounded(&args.file, MAX_SOURCE_BYTES)?;
    let program = match assemble_bytes(&bytes, &name) {
        Ok(p) => {
            for w in &p.warnings {
                report_raw!("{w}\n");
            }
            p
        }
        Err(errors) => {
            let source = String::from_utf8_lossy(&bytes);
            report_raw!("{}", errors.render(&source));
            return Err(Failure::Exit(2));
        }
    };
    if format != Format::Elf && !program.kernels.is_empty() {
        report!(
            "warning: {name}: the {} format carries no kernel metadata (.kernel/.param); \
             use --format elf to keep it",
            if format == Format::Bin { "bin" } else { "hex" }
        );
    }
    let out = match format {
        Format::Bin => program.to_flat_binary(),
        Format::Elf => write_elf(&program),
        Format::Hex => program.to_hex().into_bytes(),
    };
    write_output(&path, &out)?;
    if args.show_encoding {
        out!("{}", show_encoding(&program.text));
    }
    if let Some(listing) = args.listing {
        // Assembly succeeded, so the bytes are valid UTF-8.
        let source = String::from_utf8_lossy(&bytes);
        write_output(&listing, program.render_listing(&source).as_bytes())?;
    }
    Ok(())
}
