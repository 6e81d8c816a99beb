//! The commit log: a [`Hooks`] implementation. A [`Commit`] is built from what the
//! interpreter recorded while the instruction executed (the warp's write marks, its
//! retire and memory logs), not re-derived from the instruction's operands. The JSON Lines
//! schema is documented in `docs/trace.md`.

use crate::control::Interrupt;
use crate::hooks::{Control, Hooks};
use crate::program::Program;
use crate::state::access::MemAccess;
use crate::state::regs::LANES;
use crate::state::trap::Trap;
use crate::state::warp::{Warp, WarpStatus};
use std::fmt::Write as _;
use std::io::{self, Write};
use warpkit_isa::csr_by_number;

/// The version of the JSON Lines trace schema (`docs/trace.md`).
pub const TRACE_SCHEMA_VERSION: u32 = 2;

/// A register or CSR an instruction wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// A vector register: `(lane, new value)` for each lane written.
    V {
        /// Register number (0..128).
        reg: u32,
        /// `(lane, new value)` for each lane written, lanes ascending.
        lanes: Vec<(u32, u32)>,
    },
    /// A uniform register.
    U {
        /// Register number (0..64).
        reg: u32,
        /// The value written.
        value: u32,
    },
    /// EXEC, with its new value.
    Exec(u32),
    /// A CSR other than EXEC.
    Csr {
        /// The CSR number (seed 001 §3.3).
        number: u32,
        /// Its name in the CSR table (`?` for a number the table lacks).
        name: &'static str,
        /// Its value after the write.
        value: u32,
    },
}

/// What one executed instruction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// The warp's workgroup (x, y, z).
    pub workgroup: [u32; 3],
    /// The warp's index within its workgroup.
    pub warp: u32,
    /// The warp's step number, from 1.
    pub step: u64,
    /// Byte offset of the instruction from CODE_BASE.
    pub pc: u32,
    /// The instruction's bytes as one little-endian value (`len` of them).
    pub encoding: u64,
    /// Bytes in `encoding`: 4 or 8 (fewer at the end of the code, 0 outside it).
    pub len: usize,
    /// Canonical disassembly, or `.word 0x...` for bytes that do not decode.
    pub asm: String,
    /// EXEC as the instruction saw it, before it executed.
    pub exec: u32,
    /// The registers, EXEC and CSRs it wrote itself; after a trap only the trap CSRs a
    /// handler's entry wrote.
    pub writes: Vec<Written>,
    /// A trap the instruction raised, and whether a handler took it.
    pub trap: Option<(Trap, bool)>,
    /// Whether it ended the warp (`endpgm`).
    pub ended: bool,
    /// Asynchronous write-backs this instruction retired (`waitcnt`, `endpgm`, a counter at
    /// its limit): the PC of the issuing instruction and what it wrote.
    pub retired: Vec<(u32, Vec<Written>)>,
    /// The memory accesses the instruction performed.
    pub mem: Vec<MemAccess>,
}

impl Commit {
    /// The commit of the instruction at `pc` that `warp` just executed, from what the
    /// interpreter recorded (call it from [`Hooks::after`]).
    pub fn capture(warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Commit {
        let (encoding, len) = prog.encoding(pc);
        let mut c = Commit {
            workgroup: warp.id.workgroup,
            warp: warp.id.warp,
            step: warp.steps,
            pc,
            encoding,
            len,
            asm: prog.disassemble(pc),
            exec: exec_before,
            writes: Vec::new(),
            trap: None,
            ended: warp.status == WarpStatus::Ended,
            retired: Vec::new(),
            mem: warp.mem_accesses().to_vec(),
        };
        for op in warp.retired_ops() {
            c.retired.push((op.pc, writeback_writes(&op.writeback)));
        }
        if let Some(t) = warp.last_trap() {
            // A trapping instruction changes nothing but the trap CSRs (traps are precise).
            let handled = !matches!(warp.status, WarpStatus::Trapped(_));
            c.trap = Some((t, handled));
            c.mem.clear();
            // Only the handler's entry writes (the trap CSRs); a stop writes nothing.
            c.push_csrs(warp);
            return c;
        }
        // A vector write covers the lanes active when it happened; no instruction that
        // writes a vector register also changes EXEC, so that is the current EXEC.
        let exec = warp.exec();
        let mut rows = warp.written_vregs();
        while rows != 0 {
            let r = rows.trailing_zeros();
            rows &= rows - 1;
            let row = &warp.v[r as usize];
            let lanes: Vec<(u32, u32)> = (0..LANES as u32)
                .filter(|l| (exec >> l) & 1 != 0)
                .map(|l| (l, row[l as usize]))
                .collect();
            if !lanes.is_empty() {
                c.writes.push(Written::V { reg: r, lanes });
            }
        }
        let mut uregs = warp.written_uregs();
        while uregs != 0 {
            let r = uregs.trailing_zeros();
            uregs &= uregs - 1;
            c.writes.push(Written::U {
                reg: r,
                value: warp.u[r as usize],
            });
        }
        if warp.wrote_exec() {
            c.writes.push(Written::Exec(exec));
        }
        c.push_csrs(warp);
        c
    }

    /// The CSRs other than EXEC the instruction wrote, by number.
    fn push_csrs(&mut self, warp: &Warp) {
        let mut numbers = warp.written_csrs();
        while numbers != 0 {
            let number = numbers.trailing_zeros();
            numbers &= numbers - 1;
            if let Some(value) = warp.csr.get(number) {
                let name = csr_by_number(number).map_or("?", |d| d.name);
                self.writes.push(Written::Csr {
                    number,
                    name,
                    value,
                });
            }
        }
    }

    fn encoding_hex(&self) -> String {
        if self.len == 8 {
            format!("{:#018x}", self.encoding)
        } else {
            format!("{:#010x}", self.encoding as u32)
        }
    }

    /// One JSON object, no newline (schema in `docs/trace.md`).
    pub fn to_json(&self) -> String {
        let mut s = String::with_capacity(256);
        let [x, y, z] = self.workgroup;
        let _ = write!(
            s,
            "{{\"workgroup\":[{x},{y},{z}],\"warp\":{},\"step\":{},\"pc\":{},\"encoding\":\"{}\",\"asm\":{},\"exec\":{}",
            self.warp,
            self.step,
            self.pc,
            self.encoding_hex(),
            serde_json::Value::String(self.asm.clone()),
            self.exec
        );
        let (vs, us) = writes_json(&self.writes);
        let csrs: Vec<String> = self
            .writes
            .iter()
            .filter_map(|w| match w {
                Written::Csr {
                    number,
                    name,
                    value,
                } => Some(format!(
                    "{{\"name\":\"{name}\",\"number\":{number},\"value\":{value}}}"
                )),
                _ => None,
            })
            .collect();
        let _ = write!(s, ",\"v\":[{vs}],\"u\":[{us}]");
        match self.writes.iter().find_map(|w| match w {
            Written::Exec(e) => Some(*e),
            _ => None,
        }) {
            Some(e) => {
                let _ = write!(s, ",\"exec_write\":{e}");
            }
            None => s.push_str(",\"exec_write\":null"),
        }
        let _ = write!(s, ",\"csr\":[{}]", csrs.join(","));
        match self.trap {
            Some((t, handled)) => {
                let _ = write!(
                    s,
                    ",\"trap\":{{\"cause\":{},\"pc\":{},\"info\":{},\"handled\":{handled}}}",
                    t.cause, t.pc, t.info
                );
            }
            None => s.push_str(",\"trap\":null"),
        }
        s.push_str(",\"mem\":[");
        for (i, m) in self.mem.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            mem_json(&mut s, m);
        }
        s.push(']');
        let retired: Vec<String> = self
            .retired
            .iter()
            .map(|(pc, w)| {
                let (vs, us) = writes_json(w);
                format!("{{\"pc\":{pc},\"v\":[{vs}],\"u\":[{us}]}}")
            })
            .collect();
        let _ = write!(
            s,
            ",\"retired\":[{}],\"end\":{}}}",
            retired.join(","),
            self.ended
        );
        s
    }

    /// One compact line in the manner of Spike's `--log-commits`, no newline.
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(128);
        let [x, y, z] = self.workgroup;
        let _ = write!(
            s,
            "wg({x},{y},{z}) w{} {:#010x} ({}) {:<28} exec={:#010x}",
            self.warp,
            self.pc,
            self.encoding_hex(),
            self.asm,
            self.exec
        );
        writes_text(&mut s, &self.writes);
        for m in &self.mem {
            mem_text(&mut s, m);
        }
        for (pc, w) in &self.retired {
            let _ = write!(s, " [retire {pc:#x}:");
            writes_text(&mut s, w);
            s.push(']');
        }
        if let Some((t, handled)) = self.trap {
            let _ = write!(
                s,
                " trap cause={} pc={:#x} info={:#x} {}",
                t.cause,
                t.pc,
                t.info,
                if handled { "-> handler" } else { "(stop)" }
            );
        }
        if self.ended {
            s.push_str(" end");
        }
        s
    }
}

/// One memory record of the JSON trace (`docs/trace.md`).
fn mem_json(s: &mut String, m: &MemAccess) {
    let _ = write!(
        s,
        "{{\"kind\":\"{}\",\"space\":\"{}\",\"size\":{},\"lanes\":[",
        m.kind.name(),
        m.space.name(),
        m.size
    );
    for (i, l) in m.lanes.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{{\"lane\":{},\"addr\":{},\"data\":[", l.lane, l.addr);
        for (k, d) in l.data.iter().enumerate() {
            if k > 0 {
                s.push(',');
            }
            let _ = write!(s, "{d}");
        }
        let _ = write!(s, "],\"mask\":{}", l.mask);
        if let Some(old) = l.old {
            let _ = write!(s, ",\"old\":{old}");
        }
        s.push('}');
    }
    s.push_str("]}");
}

/// One memory record of the text trace: ` kind.space{lane@addr:data/mask ...}`.
fn mem_text(s: &mut String, m: &MemAccess) {
    let _ = write!(s, " {}.{}{{", m.kind.name(), m.space.name());
    for (i, l) in m.lanes.iter().enumerate() {
        let sep = if i == 0 { "" } else { " " };
        let _ = write!(s, "{sep}{}@{:#x}:", l.lane, l.addr);
        for (k, d) in l.data.iter().enumerate() {
            let sep = if k == 0 { "" } else { "_" };
            let _ = write!(s, "{sep}{d:#x}");
        }
        let _ = write!(s, "/{:#x}", l.mask);
        if let Some(old) = l.old {
            let _ = write!(s, " old={old:#x}");
        }
    }
    s.push('}');
}

fn writeback_writes(wb: &crate::Writeback) -> Vec<Written> {
    let mut out = Vec::new();
    match wb {
        crate::Writeback::None => {}
        crate::Writeback::V {
            first,
            count,
            mask,
            data,
        } => {
            for (k, lanes) in data.iter().enumerate().take(usize::from(*count)) {
                let lanes: Vec<(u32, u32)> = (0..LANES as u32)
                    .filter(|l| (mask >> l) & 1 != 0)
                    .map(|l| (l, lanes[l as usize]))
                    .collect();
                if !lanes.is_empty() {
                    out.push(Written::V {
                        reg: u32::from(*first) + k as u32,
                        lanes,
                    });
                }
            }
        }
        crate::Writeback::U { first, count, data } => {
            for (k, &value) in data.iter().enumerate().take(usize::from(*count)) {
                out.push(Written::U {
                    reg: u32::from(*first) + k as u32,
                    value,
                });
            }
        }
    }
    out
}

/// `x` in decimal, as `{x}` would print it, without the formatting machinery: a traced
/// vector write prints 32 lanes, and `format!` per lane dominated tracing.
fn push_u32(s: &mut Vec<u8>, x: u32) {
    let mut buf = [0u8; 10];
    let mut at = buf.len();
    let mut x = x;
    loop {
        at -= 1;
        buf[at] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    s.extend_from_slice(&buf[at..]);
}

/// The `v` and `u` arrays of a JSON trace record (ASCII, built as bytes).
fn writes_json(writes: &[Written]) -> (String, String) {
    // A full vector write is about 32 * 16 bytes.
    let vrows = writes
        .iter()
        .filter(|w| matches!(w, Written::V { .. }))
        .count();
    let mut vs: Vec<u8> = Vec::with_capacity(vrows * 32 * 16);
    let mut us: Vec<u8> = Vec::new();
    for w in writes {
        match w {
            Written::V { reg, lanes } => {
                if !vs.is_empty() {
                    vs.push(b',');
                }
                vs.extend_from_slice(b"{\"reg\":");
                push_u32(&mut vs, *reg);
                vs.extend_from_slice(b",\"lanes\":[");
                for (i, (l, v)) in lanes.iter().enumerate() {
                    if i > 0 {
                        vs.push(b',');
                    }
                    vs.push(b'[');
                    push_u32(&mut vs, *l);
                    vs.push(b',');
                    push_u32(&mut vs, *v);
                    vs.push(b']');
                }
                vs.extend_from_slice(b"]}");
            }
            Written::U { reg, value } => {
                if !us.is_empty() {
                    us.push(b',');
                }
                us.extend_from_slice(b"{\"reg\":");
                push_u32(&mut us, *reg);
                us.extend_from_slice(b",\"value\":");
                push_u32(&mut us, *value);
                us.push(b'}');
            }
            _ => {}
        }
    }
    // Only ASCII was pushed, so neither conversion can fail.
    (
        String::from_utf8(vs).unwrap_or_default(),
        String::from_utf8(us).unwrap_or_default(),
    )
}

fn writes_text(s: &mut String, writes: &[Written]) {
    for w in writes {
        match w {
            Written::V { reg, lanes } => {
                let first = lanes[0].1;
                if lanes.len() == LANES && lanes.iter().all(|&(_, v)| v == first) {
                    let _ = write!(s, " v{reg}={first:#x}");
                } else {
                    let _ = write!(s, " v{reg}={{");
                    for (i, (l, v)) in lanes.iter().enumerate() {
                        let sep = if i == 0 { "" } else { " " };
                        let _ = write!(s, "{sep}{l}:{v:#x}");
                    }
                    s.push('}');
                }
            }
            Written::U { reg, value } => {
                let _ = write!(s, " u{reg}={value:#x}");
            }
            Written::Exec(e) => {
                let _ = write!(s, " exec<-{e:#010x}");
            }
            Written::Csr { name, value, .. } => {
                let _ = write!(s, " {name}={value:#x}");
            }
        }
    }
}

/// The trace's output form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    /// JSON Lines: a header object, then one object per executed instruction.
    Json,
    /// Compact human-readable lines.
    Text,
}

/// A tracer writing the commit log to `out`, record by record (nothing is held back, so a
/// reader following the file sees each record as the writer's buffer passes it on).
///
/// It stops the run instead of silently losing records: after a write error
/// ([`Interrupt::TraceWriteFailed`], the error comes back from [`WriteTracer::finish`]),
/// and, with [`WriteTracer::with_max_bytes`], before the first record that would take the
/// log past its cap ([`Interrupt::TraceLimit`]). A capped log ends on a record boundary
/// with one last record saying it was cut (`docs/trace.md`), and is never longer than the
/// cap unless the cap is smaller than the header and that record.
pub struct WriteTracer<W: Write> {
    out: W,
    format: TraceFormat,
    error: Option<io::Error>,
    /// Bytes written so far.
    written: u64,
    /// The cap, and the record that closes a log cut by it.
    cap: Option<(u64, String)>,
    stopped: Option<Interrupt>,
}

impl<W: Write> WriteTracer<W> {
    /// A tracer writing to `out` in `format`, without a cap; a JSON log starts with its
    /// schema header.
    pub fn new(out: W, format: TraceFormat) -> WriteTracer<W> {
        let mut t = WriteTracer {
            out,
            format,
            error: None,
            written: 0,
            cap: None,
            stopped: None,
        };
        if format == TraceFormat::Json {
            let header =
                format!("{{\"schema\":\"warpkit-trace\",\"version\":{TRACE_SCHEMA_VERSION}}}");
            t.write_line(&header);
        }
        t
    }

    /// Stop the run before the log would grow past `max_bytes` bytes (the header counts).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> WriteTracer<W> {
        let closing = match self.format {
            TraceFormat::Json => {
                format!("{{\"truncated\":true,\"reason\":\"max_bytes\",\"max_bytes\":{max_bytes}}}")
            }
            TraceFormat::Text => {
                format!("# trace truncated: it reached its limit of {max_bytes} bytes")
            }
        };
        self.cap = Some((max_bytes, closing));
        self
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// Write `line` and a newline, recording the first error.
    fn write_line(&mut self, line: &str) {
        if self.error.is_some() {
            return;
        }
        let r = self
            .out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"));
        match r {
            Ok(()) => self.written += line.len() as u64 + 1,
            Err(e) => {
                self.error = Some(e);
                self.stopped = Some(Interrupt::TraceWriteFailed);
            }
        }
    }

    /// Flush and return the first I/O error, if any.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Hooks for WriteTracer<W> {
    const ENABLED: bool = true;
    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        if self.stopped.is_some() {
            return Control::Continue;
        }
        let c = Commit::capture(warp, prog, pc, exec_before);
        let line = match self.format {
            TraceFormat::Json => c.to_json(),
            TraceFormat::Text => c.to_text(),
        };
        if let Some((max_bytes, closing)) = &self.cap {
            let needed = self.written + line.len() as u64 + 1 + closing.len() as u64 + 1;
            if needed > *max_bytes {
                let (max_bytes, closing) = (*max_bytes, closing.clone());
                self.write_line(&closing);
                if self.stopped.is_none() {
                    self.stopped = Some(Interrupt::TraceLimit { max_bytes });
                }
                return Control::Continue;
            }
        }
        self.write_line(&line);
        Control::Continue
    }

    #[inline(always)]
    fn interrupt(&self) -> Option<Interrupt> {
        self.stopped
    }
}

/// A tracer that keeps every commit in memory (tests, tools).
#[derive(Debug, Default)]
pub struct VecTracer {
    /// Every commit, in the order the instructions executed.
    pub commits: Vec<Commit>,
}

impl Hooks for VecTracer {
    const ENABLED: bool = true;
    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        self.commits
            .push(Commit::capture(warp, prog, pc, exec_before));
        Control::Continue
    }
}
