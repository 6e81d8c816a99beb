//! Programs built from the grammar, driven by arbitrary bytes: the fuzz targets and the
//! robustness test feed them to [`check`](crate::check) and [`run`](crate::run). Most are
//! well-formed (every mnemonic of the table, typed operands, labels, both branch kinds);
//! some bytes pick deliberately wrong suffixes, widths and operand counts, so the static
//! checks and the run-time errors are exercised as much as the happy paths.

use crate::tables::{Form, Op, INSNS};
use std::fmt::Write;

struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn pick<'s, T>(&mut self, items: &'s [T]) -> &'s T {
        &items[self.byte() as usize % items.len()]
    }
}

const INT_TYPES: &[&str] = &["ud", "uw", "uh", "ub", "sd", "sw", "sh", "sb"];
const ODD_TYPES: &[&str] = &["fs", "fd", "fh", "bf", "fb", "d", "w", "", "zz"];
const OUT_WIDTHS: &[&str] = &["d", "w", "h", "b"];
const FLOAT_TYPES: &[&str] = &["fd", "fs", "fh", "bf"];
const QUEUES: &[&str] = &["t", "u", "m", "n"];
const GPRS: &[&str] = &["zero", "a0", "a1", "a2", "x1", "x2", "s0", "sp"];

fn reg(b: &mut Bytes, ty: &str) -> String {
    let src = match b.byte() % 8 {
        0..=3 => format!("{}#{}", b.pick(QUEUES), 1 + b.byte() % 9),
        4 => b.pick(GPRS).to_string(),
        5 => format!("lc{}", b.byte() % 3),
        6 => format!("lb{}", b.byte() % 3),
        _ => "a0".to_string(),
    };
    if ty.is_empty() {
        src
    } else {
        format!("{src}.{ty}")
    }
}

fn ty(b: &mut Bytes, want: &str) -> String {
    if b.byte().is_multiple_of(16) {
        b.pick(ODD_TYPES).to_string()
    } else {
        want.to_string()
    }
}

/// A program text from `data`.
pub fn program_from_bytes(data: &[u8]) -> String {
    let mut b = Bytes { data, at: 0 };
    let mut o = String::new();
    let mode = *b.pick(&["LOOP", "VECT", "SIMT"]);
    let _ = writeln!(o, ".lanenum {}", 1 + b.byte() % 8);
    let _ = writeln!(o, ".gpr a0, {:#x}", 0x1000 + (b.byte() as u64) * 8);
    let _ = writeln!(o, ".gpr a1, {}", b.byte() % 16);
    if b.byte().is_multiple_of(4) {
        let _ = writeln!(o, ".cstk_depth {}", 1 + b.byte() % 8);
    }
    if b.byte().is_multiple_of(4) {
        let _ = writeln!(o, ".frm {}", b.pick(&["rne", "rtz", "rdn", "rup"]));
    }
    let _ = writeln!(o, ".mem 0x1000, d, {}, {}, -1", b.byte(), b.byte());
    let _ = writeln!(
        o,
        ".mem 0x1018, fs, {}.5, -{}e-3, inf, nan",
        b.byte(),
        b.byte()
    );
    let _ = writeln!(o, "BSTART.{mode}");
    let _ = writeln!(o, "B.DIM zero, {}, ->LB0", 1 + b.byte() % 12);
    if b.byte().is_multiple_of(3) {
        let _ = writeln!(o, "B.DIM a1, 1, ->LB1");
    }
    o.push_str("B.TEXT .body\nBSTOP\n.body:\n");
    let count = 1 + (b.byte() % 24) as usize;
    for i in 0..count {
        let _ = writeln!(o, "L{i}:");
        let def = b.pick(INSNS);
        let w = *b.pick(INT_TYPES);
        let label = |b: &mut Bytes| format!("L{}", b.byte() as usize % (count + 1));
        let out = |b: &mut Bytes| format!("->{}.{}", b.pick(QUEUES), b.pick(OUT_WIDTHS));
        let m = def.mnemonic;
        let line = match def.form {
            Form::Alu | Form::Cmp => {
                let (t1, t2) = (ty(&mut b, w), ty(&mut b, w));
                format!(
                    "{m} {}, {}, {}",
                    reg(&mut b, &t1),
                    reg(&mut b, &t2),
                    out(&mut b)
                )
            }
            Form::AluImm | Form::CmpImm => {
                let t1 = ty(&mut b, w);
                let imm = b.byte() as i32 - 64;
                format!("{m} {}, {imm}, {}", reg(&mut b, &t1), out(&mut b))
            }
            Form::Csel => {
                let r: Vec<String> = (0..3)
                    .map(|_| {
                        let t = ty(&mut b, w);
                        reg(&mut b, &t)
                    })
                    .collect();
                format!("{m} {}, {}, {}, {}", r[0], r[1], r[2], out(&mut b))
            }
            Form::Cvt => {
                let (from, to) = match def.op {
                    Op::Fcvt => (*b.pick(FLOAT_TYPES), *b.pick(FLOAT_TYPES)),
                    Op::Fcvti => (*b.pick(FLOAT_TYPES), *b.pick(INT_TYPES)),
                    Op::Icvtf => (w, *b.pick(FLOAT_TYPES)),
                    _ => (w, *b.pick(INT_TYPES)),
                };
                let (t1, to) = (ty(&mut b, from), ty(&mut b, to));
                format!("{m} {}, ->{}.{to}", reg(&mut b, &t1), b.pick(QUEUES))
            }
            Form::Falu1 => {
                let f = *b.pick(FLOAT_TYPES);
                let (t1, to) = (ty(&mut b, f), ty(&mut b, float_width(f)));
                format!("{m} {}, ->{}.{to}", reg(&mut b, &t1), b.pick(QUEUES))
            }
            Form::Falu | Form::Fcmp => {
                let f = *b.pick(FLOAT_TYPES);
                let (t1, t2) = (ty(&mut b, f), ty(&mut b, f));
                let to = if def.form == Form::Falu {
                    ty(&mut b, float_width(f))
                } else {
                    b.pick(OUT_WIDTHS).to_string()
                };
                format!(
                    "{m} {}, {}, ->{}.{to}",
                    reg(&mut b, &t1),
                    reg(&mut b, &t2),
                    b.pick(QUEUES)
                )
            }
            Form::Load => format!(
                "{m} [a0.ud, {}<<{}], ->{}.{}",
                reg(&mut b, w),
                b.byte() % 4,
                b.pick(QUEUES),
                ty(&mut b, access(def.access))
            ),
            Form::Store => {
                let t = ty(&mut b, access(def.access));
                format!("{m} {}, [a0.ud, {}]", reg(&mut b, &t), b.byte() % 64)
            }
            Form::AmoLoad | Form::AmoStore => {
                let suffix = match (def.form, b.byte() % 4) {
                    (Form::AmoLoad, 0) => ".ne",
                    (Form::AmoStore, 0) => ".rd",
                    _ => "",
                };
                let t = ty(&mut b, access(def.access));
                let value = reg(&mut b, &t);
                let addr = if b.byte().is_multiple_of(4) {
                    reg(&mut b, "ud")
                } else {
                    "a0.ud".into()
                };
                if def.form == Form::AmoLoad {
                    format!("{m}{suffix} [{addr}], {value}, ->t.{}", access(def.access))
                } else {
                    format!("{m}{suffix} [{addr}], {value}")
                }
            }
            Form::Reduce | Form::Freduce => {
                let t = if def.form == Form::Freduce {
                    let f = *b.pick(FLOAT_TYPES);
                    ty(&mut b, f)
                } else {
                    ty(&mut b, w)
                };
                format!(
                    "{m} {}, ->{}.d",
                    reg(&mut b, &t),
                    b.pick(&["x1", "x2", "x3", "s5"])
                )
            }
            Form::J => format!("{m} {}", label(&mut b)),
            Form::Jr => format!("{m} {}, {}", reg(&mut b, "ud"), (b.byte() as i32 - 128) * 8),
            Form::Addtpc => format!("{m} %hi({}), ->t.d", label(&mut b)),
            Form::Branch => format!(
                "{m} {}, {}, {}, {}",
                reg(&mut b, w),
                reg(&mut b, w),
                label(&mut b),
                label(&mut b)
            ),
            Form::Bcond => format!(
                "{m} {}, {}, {}",
                reg(&mut b, "ud"),
                reg(&mut b, "ud"),
                reg(&mut b, "ud")
            ),
            Form::PcPop | Form::Lbstop => m.to_string(),
        };
        let _ = writeln!(o, "    {line}");
    }
    let _ = writeln!(o, "L{count}:\n    pc.pop\n    lbstop");
    o
}

fn float_width(f: &str) -> &'static str {
    match f {
        "fd" => "d",
        "fs" => "w",
        _ => "h",
    }
}

fn access(bits: u32) -> &'static str {
    match bits {
        8 => "b",
        16 => "h",
        32 => "w",
        _ => "d",
    }
}
