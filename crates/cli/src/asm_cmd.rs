//! `warpkit asm`: assemble a source file to a raw image, an ELF code object or hex text.

use crate::output::{check_output_path, write_output};
use crate::{Failure, Outcome};
use std::io::Read;
use std::path::{Path, PathBuf};
use warpkit_asm::{assemble_bytes, write_elf, MAX_SOURCE_BYTES};

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
    /// Assembly source file.
    pub file: PathBuf,
    /// Output file (`-` for stdout); default: FILE with extension .bin, .o or .hex.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "bin")]
    pub format: Format,
    /// Also write a listing (line, section:address, encoding, source) to this file.
    #[arg(short = 'l', long = "listing")]
    pub listing: Option<PathBuf>,
}

/// Read at most `limit + 1` bytes, so an enormous file is detected without loading it.
pub fn read_bounded(path: &Path, limit: usize) -> Result<Vec<u8>, Failure> {
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::BadInput(format!("cannot read {}: {e}", path.display())))?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::BadInput(format!("cannot read {}: {e}", path.display())))?;
    Ok(bytes)
}

pub fn run(args: Args) -> Outcome {
    let name = args.file.display().to_string();
    let path = args.output.clone().unwrap_or_else(|| {
        args.file.with_extension(match args.format {
            Format::Bin => "bin",
            Format::Elf => "o",
            Format::Hex => "hex",
        })
    });
    // Checked before assembling, so that one output is never written while the other fails.
    check_output_path("-o", &path)?;
    if path == args.file {
        return Err(Failure::BadInput(format!(
            "{name}: the output would overwrite the source; name another with -o"
        )));
    }
    if let Some(listing) = &args.listing {
        check_output_path("-l", listing)?;
        if listing == &path || listing == &args.file {
            return Err(Failure::BadInput(format!(
                "-l {}: the listing would overwrite the source or the output",
                listing.display()
            )));
        }
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
    let out = match args.format {
        Format::Bin => program.to_flat_binary(),
        Format::Elf => write_elf(&program),
        Format::Hex => program.to_hex().into_bytes(),
    };
    write_output(&path, &out)?;
    if let Some(listing) = args.listing {
        // Assembly succeeded, so the bytes are valid UTF-8.
        let source = String::from_utf8_lossy(&bytes);
        write_output(&listing, program.render_listing(&source).as_bytes())?;
    }
    Ok(())
}
