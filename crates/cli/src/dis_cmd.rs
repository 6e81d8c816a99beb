//! `warpkit dis`: disassemble a raw image or an ELF code object.

use crate::asm_cmd::read_bounded;
use crate::{Failure, Outcome};
use std::io::Write;
use warpkit_asm::{disassemble_program_to, load_object, DisOptions, Program, MAX_SOURCE_BYTES};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Raw little-endian instruction bytes.
    Bin,
    /// ELF code object written by `warpkit asm --format elf`.
    Elf,
}

#[derive(clap::Args)]
pub struct Args {
    /// Raw binary or ELF code object.
    pub file: std::path::PathBuf,
    /// Input format; default: ELF if the file starts with the ELF magic, raw otherwise.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Print only instructions, in text `warpkit asm` reassembles to the same bytes.
    #[arg(long)]
    pub plain: bool,
}

pub fn run(args: Args) -> Outcome {
    let name = args.file.display().to_string();
    let bytes = read_bounded(&args.file, MAX_SOURCE_BYTES)?;
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
    let format = args
        .format
        .unwrap_or(if is_elf { Format::Elf } else { Format::Bin });
    let program = match format {
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
    let options = DisOptions { plain: args.plain };
    // Streamed: a large input never becomes one huge string.
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = (|| {
        if !args.plain {
            writeln!(out, "{name}:\n\nDisassembly of section .text:\n")?;
        }
        disassemble_program_to(&program, &options, &mut out)?;
        out.flush()
    })();
    result.map_err(|e| crate::stdout::write_failure(&e))
}
