//! `warpkit dis`: disassemble a raw image, hex text, an ELF code object or assembly source;
//! `-l` shows the source lines above the instructions as `objdump -dl` does.

use crate::asm_cmd::read_bounded;
use crate::failure::{Failure, Outcome};
use std::io::Write;
use warpkit_asm::{
    disassemble_program_to, disassemble_program_with_lines_to, load_object, DisOptions, Program,
    SourceTexts, MAX_SOURCE_BYTES,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Raw little-endian instruction bytes.
    Bin,
    /// ELF code object written by `warpkit asm --format elf`.
    Elf,
    /// Hex text written by `warpkit asm --format hex`.
    Hex,
}

#[derive(clap::Args)]
pub struct Args {
    /// Raw binary, hex text, ELF code object (`-` = standard input), or assembly source
    /// (`.s`, `.S`, `.asm`), assembled first.
    #[arg(required_unless_present = "hex")]
    pub file: Option<std::path::PathBuf>,
    /// Disassemble these bytes instead of a file, llvm-mc style: `--hex '0x85 0x00 0x00
    /// 0x00'` (bytes in memory order, `0x` optional, separated by spaces or commas);
    /// `--hex -` reads them from standard input.
    #[arg(long, value_name = "BYTES", conflicts_with = "file")]
    pub hex: Option<String>,
    /// Input format; default: ELF if the file starts with the ELF magic, raw otherwise.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Print only instructions, in text `warpkit asm` reassembles to the same bytes.
    #[arg(long)]
    pub plain: bool,
    /// Show source lines (as `objdump -dl`): `FILE:LINE[:COLUMN]` above each instruction
    /// whose location changes, then that line's text when the file can be read. Lines
    /// come from the ELF file's `.debug_line` or, for source, from the assembler.
    #[arg(short = 'l', long = "line-numbers", conflicts_with = "plain")]
    pub lines: bool,
}

/// The bytes of `--hex TEXT`: one byte per token.
fn hex_bytes(text: &str) -> Result<Vec<u8>, Failure> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(|t| {
            let digits = t
                .strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .unwrap_or(t);
            if digits.is_empty() || digits.len() > 2 {
                return Err(Failure::BadInput(format!(
                    "--hex: `{t}` is not one byte (two hex digits at most, e.g. 0x85)"
                )));
            }
            u8::from_str_radix(digits, 16)
                .map_err(|_| Failure::BadInput(format!("--hex: `{t}` is not a hex byte")))
        })
        .collect()
}

pub fn run(args: Args) -> Outcome {
    let (name, bytes) = match (&args.hex, &args.file) {
        (Some(text), _) => {
            let text = if text == "-" {
                let raw = read_bounded(std::path::Path::new("-"), MAX_SOURCE_BYTES)?;
                String::from_utf8_lossy(&raw).into_owned()
            } else {
                text.clone()
            };
            ("<hex>".to_string(), hex_bytes(&text)?)
        }
        (None, Some(file)) => (
            crate::asm_cmd::shown(file),
            read_bounded(file, MAX_SOURCE_BYTES)?,
        ),
        (None, None) => return Err(Failure::BadInput("dis: give a FILE or --hex BYTES".into())),
    };
    if bytes.len() > MAX_SOURCE_BYTES {
        return Err(Failure::BadInput(format!(
            "{name}: input is larger than the {MAX_SOURCE_BYTES}-byte limit"
        )));
    }
    if bytes.is_empty() {
        return Err(Failure::BadInput(format!(
            "{name}: empty input: nothing to disassemble"
        )));
    }
    let is_elf = bytes.starts_with(b"\x7fELF");
    let is_source = args.format.is_none()
        && args.hex.is_none()
        && args.file.as_deref().is_some_and(|f| {
            warpkit_host::kernel::KernelKind::detect(f, &bytes)
                == warpkit_host::kernel::KernelKind::Source
        });
    if is_source {
        let program = warpkit_host::kernel::load_kernel_bytes(
            &bytes,
            &name,
            warpkit_host::kernel::KernelKind::Source,
        )
        .map_err(|e| {
            report_raw!("{}", e.render());
            Failure::Exit(2)
        })?;
        let text = String::from_utf8_lossy(&bytes);
        return write_disassembly(&name, &program, &args, &[(&name, &text)]);
    }
    let hex = warpkit_host::kernel::parse_hex(&bytes);
    let by_extension = args
        .file
        .as_deref()
        .and_then(|f| f.extension())
        .and_then(|e| e.to_str());
    let format = args.format.unwrap_or(if is_elf {
        Format::Elf
    } else if hex.is_some() || by_extension == Some("hex") {
        Format::Hex
    } else {
        Format::Bin
    });
    // Text that is not hex is most likely source or prose, not code.
    if format == Format::Bin
        && args.format.is_none()
        && std::str::from_utf8(&bytes).is_ok_and(|t| !t.contains('\0') && t.contains('\n'))
    {
        return Err(Failure::BadInput(format!(
            "{name}: this is text, not code (assembly source? assemble it with `warpkit asm`); \
             give --format bin to disassemble its bytes anyway"
        )));
    }
    let program = match format {
        Format::Hex => hex.ok_or_else(|| {
            Failure::BadInput(format!(
                "{name}: not hex text as `warpkit asm --format hex` writes it"
            ))
        })?,
        Format::Bin => Program {
            text: bytes,
            ..Program::default()
        },
        Format::Elf => {
            if !is_elf {
                return Err(Failure::BadInput(format!(
                    "{name}: not an ELF file (no ELF magic at offset 0)"
                )));
            }
            load_object(&bytes).map_err(|e| Failure::BadInput(format!("{name}: {e}")))?
        }
    };
    if let Some(why) = program.lines.damaged() {
        report!("warning: {name}: its source lines are ignored: {why}");
    }
    write_disassembly(&name, &program, &args, &[])
}

/// Print `program` (read from `name`) as `args` ask; `known` gives source texts already in
/// memory (name, text) for `-l`.
fn write_disassembly(
    name: &str,
    program: &Program,
    args: &Args,
    known: &[(&str, &str)],
) -> Outcome {
    let options = DisOptions { plain: args.plain };
    let texts = args.lines.then(|| SourceTexts::load(&program.lines, known));
    // Streamed: a large input never becomes one huge string.
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = (|| {
        if !args.plain {
            writeln!(out, "{name}:\n\nDisassembly of section .text:\n")?;
        }
        if args.lines {
            disassemble_program_with_lines_to(program, &options, texts.as_ref(), &mut out)?;
        } else {
            disassemble_program_to(program, &options, &mut out)?;
        }
        out.flush()
    })();
    result.map_err(|e| crate::stdout::write_failure(&e))
}
