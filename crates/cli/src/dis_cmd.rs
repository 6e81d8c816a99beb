//! `warpkit dis`: disassemble a raw image or an ELF code object.

use crate::asm_cmd::read_bounded;
use crate::{Failure, Outcome};
use std::fmt::Write;
use warpkit_asm::{disassemble, load_object, DisOptions, MAX_SOURCE_BYTES};

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
    let (text, data) = match format {
        Format::Bin => (bytes, Vec::new()),
        Format::Elf => {
            if !is_elf {
                return Err(Failure::BadInput(format!(
                    "{name}: not an ELF file (no ELF magic at offset 0)"
                )));
            }
            let p = load_object(&bytes).map_err(|e| Failure::BadInput(format!("{name}: {e}")))?;
            (p.text, p.data)
        }
    };
    let options = DisOptions { plain: args.plain };
    let mut out = String::new();
    if !args.plain {
        let _ = writeln!(out, "{name}:\n\nDisassembly of section .text:\n");
    }
    out.push_str(&disassemble(&text, 0, &options));
    if !data.is_empty() {
        // `.byte` rows keep the data exact when the plain text is reassembled.
        out.push_str(if args.plain {
            ".data\n"
        } else {
            "\nContents of section .data:\n"
        });
        for (i, chunk) in data.chunks(16).enumerate() {
            if !args.plain {
                let _ = write!(out, "{:8x}:  ", i * 16);
            }
            out.push_str(".byte ");
            for (j, b) in chunk.iter().enumerate() {
                let _ = write!(out, "{}{b:#04x}", if j > 0 { ", " } else { "" });
            }
            out.push('\n');
        }
    }
    crate::output::write_output(std::path::Path::new("-"), out.as_bytes())
}
