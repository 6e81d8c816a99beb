//! Measuring coverage from a commit trace in JSON Lines (docs/trace.md), streamed.

use super::measure::{RegWrite, Step, Tracker};
use serde::Deserialize;
use std::io::{BufRead, Read};

/// A trace that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// Reading failed.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not a trace record.
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

#[derive(Deserialize)]
struct VWrite {
    reg: u32,
    lanes: Vec<(u32, u32)>,
}

#[derive(Deserialize)]
struct UWrite {
    reg: u32,
    value: u32,
}

#[derive(Deserialize)]
struct CsrWrite {
    number: u32,
    value: u32,
}

#[derive(Deserialize)]
struct TrapRecord {
    cause: u32,
    info: u32,
    handled: bool,
}

#[derive(Deserialize)]
struct Retired {
    pc: u32,
    v: Vec<VWrite>,
    u: Vec<UWrite>,
}

#[derive(Deserialize)]
struct Record {
    workgroup: [u32; 3],
    warp: u32,
    pc: u32,
    encoding: String,
    asm: String,
    exec: u32,
    v: Vec<VWrite>,
    u: Vec<UWrite>,
    csr: Vec<CsrWrite>,
    trap: Option<TrapRecord>,
    retired: Vec<Retired>,
    end: bool,
}

fn writes(v: Vec<VWrite>, u: Vec<UWrite>) -> Vec<RegWrite> {
    v.into_iter()
        .map(|w| RegWrite::V(w.reg, w.lanes))
        .chain(u.into_iter().map(|w| RegWrite::U(w.reg, w.value)))
        .collect()
}

/// The step of one trace record (a JSON object), or why it is not one; `None` for the
/// header and blank lines.
fn parse_line(line: &str) -> Result<Option<Step>, (usize, String)> {
    let text = line.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| (e.column(), e.to_string()))?;
    if value.get("schema").is_some() || value.get("truncated").is_some() {
        return Ok(None);
    }
    let r: Record = serde_json::from_value(value).map_err(|e| (1, e.to_string()))?;
    let hex = r.encoding.trim_start_matches("0x");
    let encoding = u64::from_str_radix(hex, 16)
        .map_err(|_| (1, format!("encoding `{}` is not a hex number", r.encoding)))?;
    // 8 hex digits: a 32-bit word; 16: a 64-bit instruction; none outside the code.
    let len = match hex.len() {
        _ if r.asm == "<outside the code>" => 0,
        0 => 0,
        n if n <= 8 => 4,
        _ => 8,
    };
    Ok(Some(Step {
        workgroup: r.workgroup,
        warp: r.warp,
        pc: r.pc,
        encoding,
        len,
        exec: r.exec,
        writes: writes(r.v, r.u),
        csrs: r.csr.iter().map(|c| (c.number, c.value)).collect(),
        trap: r.trap.map(|t| (t.cause, t.info, t.handled)),
        end: r.end,
        retired: r
            .retired
            .into_iter()
            .map(|x| (x.pc, writes(x.v, x.u)))
            .collect(),
    }))
}

/// The longest trace line read (as `warpkit trace diff` allows): a record of 32 lanes of
/// every register written is far shorter.
pub const MAX_LINE_BYTES: u64 = 16 << 20;

/// Count the records of the trace `input` (named `file` in errors) into `tracker`; the
/// trace is one launch. Returns the records counted.
pub fn measure_trace(
    tracker: &mut Tracker<'_>,
    mut input: impl BufRead,
    file: &str,
) -> Result<u64, TraceError> {
    let mut records = 0;
    let mut line = String::new();
    let mut n = 0usize;
    loop {
        line.clear();
        n += 1;
        let read = (&mut input)
            .take(MAX_LINE_BYTES + 1)
            .read_line(&mut line)
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::InvalidData => TraceError::Invalid {
                    file: file.to_string(),
                    line: n,
                    column: 1,
                    message: "the line is not UTF-8 text".into(),
                },
                _ => TraceError::Io {
                    file: file.to_string(),
                    source,
                },
            })?;
        if read == 0 {
            break;
        }
        if read as u64 > MAX_LINE_BYTES {
            return Err(TraceError::Invalid {
                file: file.to_string(),
                line: n,
                column: 1,
                message: format!("a line longer than {MAX_LINE_BYTES} bytes"),
            });
        }
        match parse_line(&line) {
            Ok(Some(step)) => {
                tracker.step(&step);
                records += 1;
            }
            Ok(None) => {}
            Err((column, message)) => {
                return Err(TraceError::Invalid {
                    file: file.to_string(),
                    line: n,
                    column,
                    message,
                })
            }
        }
    }
    tracker.end_launch();
    Ok(records)
}
