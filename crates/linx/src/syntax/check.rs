//! The static rules of the typing and instruction sections (SPEC §3, §4): each body
//! instruction resolved against the table and its operand types, then the rules that span
//! the whole block.

use super::lex::{Class, DestName, Suffix, Tok};
use super::parse::{parse, Labels, Parsed, RawInsn};
use super::program::{mask, Dest, Insn, Offset, Program, Read, Src};
use crate::diag::{Diagnostics, Sink};
use crate::tables::{self, Form, ImmKind, InsnDef, Op};
use crate::{Mode, BODY_BASE, DEFAULT_CSTK_DEPTH};
use std::collections::HashMap;
use std::ops::Range;
use warpkit_float::Round;

/// Parse `source` and run every static check.
pub fn check(file: &str, source: &str) -> Result<Program, Diagnostics> {
    let mut sink = Sink::new(file, source);
    let Some(parsed) = parse(&mut sink, source) else {
        return Err(sink.finish());
    };
    let Parsed {
        mode,
        lanes,
        cstk_depth,
        frm,
        gpr,
        memory,
        dims,
        entry,
        labels,
        raws,
    } = parsed;

    let resolved: Vec<Resolved> = raws
        .iter()
        .enumerate()
        .map(|(i, raw)| resolve(&mut sink, raw, BODY_BASE + 8 * i as u64, &labels))
        .collect();
    block_rules(&mut sink, &raws, &resolved);
    let body: Vec<Insn> = resolved
        .into_iter()
        .filter(|r| r.ok)
        .filter_map(|r| r.insn)
        .collect();

    let lanes_v = lanes.unwrap_or(4);
    let cstk = cstk_depth.unwrap_or(DEFAULT_CSTK_DEPTH);
    let diags = sink.finish();
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(Program {
        file: file.to_string(),
        mode: mode.unwrap_or(Mode::Simt),
        lanes: lanes_v,
        cstk_depth: cstk,
        frm: frm.unwrap_or(Round::Rne),
        gpr,
        memory,
        dims,
        entry,
        body,
        warnings: diags,
    })
}

/// The rules that span the block: one reduce per global register, no reads of a reduced
/// register, `pc.pop` at every reconvergence label. They run over every instruction as far
/// as it resolved, `resolved[i]` being `raws[i]`: an instruction that broke a rule of its
/// own still shows its reads and its reduce destination, so its error hides no other.
fn block_rules(sink: &mut Sink, raws: &[RawInsn], resolved: &[Resolved]) {
    let insns = || {
        resolved
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, r.insn.as_ref()?)))
    };
    let mut reduce_dst: HashMap<u8, usize> = HashMap::new();
    for (i, insn) in insns() {
        // A reduce into zero is E-RDDST already and writes nothing, so it leaves no
        // register for E-GTWICE or E-RDREAD to follow up on.
        let Dest::Gpr(r @ 1..) = insn.dest else {
            continue;
        };
        if let Some(&first) = reduce_dst.get(&r) {
            sink.err(
                "E-GTWICE",
                raws[i].mspan.clone(),
                format!(
                    "{} is already written by the reduce on line {}: each global register is written at most once per block [003]",
                    crate::GPR_NAMES[r as usize], raws[first].line
                ),
            );
        } else {
            reduce_dst.insert(r, i);
        }
    }
    for (i, insn) in insns() {
        // A memory operand's register offset is read like any source.
        let offset = match &insn.offset {
            Offset::Reg(read) => Some(read),
            _ => None,
        };
        for read in insn.srcs.iter().chain(offset) {
            if let Src::Gpr(r) = read.src {
                if let Some(&at) = reduce_dst.get(&r) {
                    sink.err(
                        "E-RDREAD",
                        raws[i].mspan.clone(),
                        format!(
                            "reads {}, which the reduce on line {} writes at block end",
                            crate::GPR_NAMES[r as usize],
                            raws[at].line
                        ),
                    );
                }
            }
        }
        // The reconvergence label is known only once the branch resolved completely.
        if insn.def.form == Form::Branch && resolved[i].complete {
            let at = ((insn.rc - BODY_BASE) / 8) as usize;
            let warn = match resolved.get(at) {
                // An unknown mnemonic there (already an error) may be a misspelt pc.pop.
                Some(Resolved { insn: None, .. }) => false,
                Some(Resolved { insn: Some(t), .. }) => t.def.op != Op::PcPop,
                None => true,
            };
            if warn {
                sink.warn(
                    "W-RCLABEL",
                    raws[i].mspan.clone(),
                    "the reconvergence label does not hold pc.pop: a diverging run stops with E-RCLABEL",
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Instruction resolution and typing rules

/// Strip the atomic modifiers (`.ne .rd .aq .rl .f`) to find the table's mnemonic.
fn split_modifiers(m: &str) -> Option<(&'static InsnDef, bool, bool)> {
    if let Some(d) = tables::find(m) {
        return Some((d, false, false));
    }
    let mut base = m;
    let mut ne = false;
    let mut rd = false;
    loop {
        let (head, tail) = base.rsplit_once('.')?;
        match tail {
            "ne" if !ne => ne = true,
            "rd" if !rd => rd = true,
            "aq" | "rl" | "f" => {}
            _ => return None,
        }
        base = head;
        if let Some(d) = tables::find(base) {
            let ok = match d.form {
                Form::AmoLoad => !rd,
                Form::AmoStore => !ne,
                _ => false,
            };
            return ok.then_some((d, ne, rd));
        }
    }
}

fn bits_name(bits: u32) -> &'static str {
    match bits {
        8 => "b",
        16 => "h",
        32 => "w",
        _ => "d",
    }
}

struct Resolver<'c, 'a> {
    sink: &'c mut Sink<'a>,
    def: &'static InsnDef,
    ok: bool,
}

impl Resolver<'_, '_> {
    fn err(&mut self, code: &'static str, span: Range<usize>, msg: impl Into<String>) {
        self.ok = false;
        self.sink.err(code, span, msg);
    }

    /// A register input. `allow_bare`: `.w/.d` accepted as unsigned (memory operands [P]).
    /// `want`: the class the form needs (`Some(true)` float, `Some(false)` integer).
    fn read(&mut self, tok: &Tok, want: Option<bool>, allow_bare: bool) -> Option<Read> {
        let Tok::Reg { src, suffix, span } = tok else {
            self.err(
                "E-OPERAND",
                tok.span(),
                format!(
                    "`{}` needs a register operand here, found {}",
                    self.def.mnemonic,
                    tok.what()
                ),
            );
            return None;
        };
        let Some(s) = suffix else {
            self.sink.warn(
                "W-UNTYPED",
                span.clone(),
                "untyped register operand: read as .ud [P]",
            );
            if want == Some(true) {
                self.err(
                    "E-CLASS",
                    span.clone(),
                    "float operands need .fd, .fs, .fh or .bf [004 rule 1]",
                );
                return None;
            }
            return Some(Read {
                src: *src,
                bits: 64,
                signed: false,
                float: None,
            });
        };
        match s.class {
            Class::Fp8 => {
                self.err(
                    "E-UNSUP",
                    span.clone(),
                    "fp8 (.fb) and fp8.1 (.flb) formats are not defined by the sources [P]",
                );
                None
            }
            Class::Float(k) => {
                if want == Some(false) {
                    self.err(
                        "E-CLASS",
                        span.clone(),
                        format!(
                            "`{}` takes integer operands: use .u*/.s* suffixes [004 rule 1]",
                            self.def.mnemonic
                        ),
                    );
                    return None;
                }
                Some(Read {
                    src: *src,
                    bits: s.bits,
                    signed: true,
                    float: Some(k),
                })
            }
            Class::Bare if !allow_bare => {
                self.err(
                    "E-CLASS",
                    span.clone(),
                    format!(
                        "input operands carry a type: .u{0} or .s{0} (or a float type), not .{0} [004 rule 1]",
                        bits_name(s.bits)
                    ),
                );
                None
            }
            Class::Unsigned | Class::Signed | Class::Bare => {
                if want == Some(true) {
                    self.err(
                        "E-CLASS",
                        span.clone(),
                        format!(
                            "`{}` takes float operands: use .fd, .fs, .fh or .bf [004 rule 1]",
                            self.def.mnemonic
                        ),
                    );
                    return None;
                }
                Some(Read {
                    src: *src,
                    bits: s.bits,
                    signed: s.class == Class::Signed,
                    float: None,
                })
            }
        }
    }

    /// Rule 2: the register inputs of a non-memory integer instruction share one width
    /// (E-WMIX) and one letter (E-SMIX).
    fn same_type(&mut self, reads: &[(Read, Range<usize>, Option<Suffix>)]) -> (u32, bool) {
        let Some((first, _, fsuf)) = reads.first() else {
            return (64, false);
        };
        for (r, span, suf) in &reads[1..] {
            if r.bits != first.bits {
                self.err(
                    "E-WMIX",
                    span.clone(),
                    format!(
                        "input widths differ ({} and {} bits): unpredictable [004 rule 1]",
                        first.bits, r.bits
                    ),
                );
                return (first.bits, first.signed);
            }
            let letter = |s: &Option<Suffix>| s.map(|s| s.class);
            if r.float.is_none() && letter(suf) != letter(fsuf) && r.signed != first.signed {
                self.err(
                    "E-SMIX",
                    span.clone(),
                    "inputs mix .s* and .u* suffixes: if sw is used, all use sw [004 rule 1]",
                );
                return (first.bits, first.signed);
            }
        }
        (first.bits, first.signed)
    }

    /// The queue destination `->q.W`; `None` when there is none or it is not a queue.
    fn queue_dest(
        &mut self,
        tok: Option<&Tok>,
        span: Range<usize>,
    ) -> Option<(u8, Option<Suffix>, Range<usize>)> {
        match tok {
            Some(Tok::Dest {
                dest: DestName::Queue(q),
                suffix,
                span,
            }) => {
                if suffix.is_none() {
                    self.sink.warn(
                        "W-UNTYPED",
                        span.clone(),
                        "untyped destination: written as .d [P]",
                    );
                }
                Some((*q, *suffix, span.clone()))
            }
            Some(Tok::Dest {
                dest: DestName::Gpr(r),
                span,
                ..
            }) => {
                self.err(
                    "E-GDST",
                    span.clone(),
                    format!(
                        "`{}` cannot write global register {}: inside a block only reduces write globals [004]",
                        self.def.mnemonic,
                        crate::GPR_NAMES[*r as usize]
                    ),
                );
                None
            }
            Some(t) => {
                self.err(
                    "E-OPERAND",
                    t.span(),
                    format!(
                        "`{}` needs a destination `->t|u|m|n.W` last",
                        self.def.mnemonic
                    ),
                );
                None
            }
            None => {
                self.err(
                    "E-OPERAND",
                    span,
                    format!(
                        "`{}` needs a destination `->t|u|m|n.W` last",
                        self.def.mnemonic
                    ),
                );
                None
            }
        }
    }

    fn imm(&mut self, tok: &Tok, kind: ImmKind, w: u32, pc: u64, labels: &Labels) -> Option<u64> {
        let (v, span) = match tok {
            Tok::Int(v, s) => (*v, s.clone()),
            Tok::Lo(l, s) => (label(self, l, s, labels)? as i128 & 0xfff, s.clone()),
            Tok::Hi(l, s) => {
                let t = label(self, l, s, labels)?;
                (((t >> 12) as i128) - ((pc >> 12) as i128), s.clone())
            }
            t => {
                self.err(
                    "E-OPERAND",
                    t.span(),
                    format!(
                        "`{}` needs an immediate here, found {}",
                        self.def.mnemonic,
                        t.what()
                    ),
                );
                return None;
            }
        };
        let (lo, hi) = match kind {
            ImmKind::Uimm => (0, (1 << 24) - 1),
            ImmKind::Simm | ImmKind::None => (-(1 << 23), (1 << 23) - 1),
            ImmKind::Shamt => (0, w as i128 - 1),
        };
        if v < lo || v > hi {
            let what = match kind {
                ImmKind::Uimm => "uimm",
                ImmKind::Shamt => "shift amount",
                _ => "simm",
            };
            self.err("E-IMM", span, format!("{what} {v} is not in {lo}..{hi}"));
            return None;
        }
        Some(v as u64 & mask(w))
    }
}

fn label(r: &mut Resolver, name: &str, span: &Range<usize>, labels: &Labels) -> Option<u64> {
    match labels.get(name) {
        Some((a, _)) => Some(*a),
        None => {
            r.err("E-LABEL", span.clone(), format!("undefined label `{name}`"));
            None
        }
    }
}

/// Micro-instructions the sources name that this model leaves out (E-UNSUP, SPEC §4): the
/// SSR accesses and the bit-manipulation class [pub bitmanip.md].
const OUT_OF_SCOPE: &[(&str, &str)] = &[
    ("ssrget", "an SSR access"),
    ("ssrset", "an SSR access"),
    ("ssrswap", "an SSR access"),
    ("bxu", "bit manipulation"),
    ("bxs", "bit manipulation"),
    ("bic", "bit manipulation"),
    ("bis", "bit manipulation"),
    ("ctz", "bit manipulation"),
    ("clz", "bit manipulation"),
    ("bcnt", "bit manipulation"),
    ("rev", "bit manipulation"),
];

/// One body instruction after resolution.
struct Resolved {
    /// The instruction as far as its operands resolved; `None` when the mnemonic is unknown
    /// or outside the model.
    insn: Option<Insn>,
    /// Every operand resolved, so every field of `insn` holds.
    complete: bool,
    /// Complete, and no rule of the instruction failed: `insn` goes into the program.
    ok: bool,
}

fn resolve(sink: &mut Sink, raw: &RawInsn, pc: u64, labels: &Labels) -> Resolved {
    let unknown = Resolved {
        insn: None,
        complete: false,
        ok: false,
    };
    if let Some((_, what)) = OUT_OF_SCOPE.iter().find(|(m, _)| *m == raw.mnemonic) {
        sink.err(
            "E-UNSUP",
            raw.mspan.clone(),
            format!("`{}` ({what}) is outside this model", raw.mnemonic),
        );
        return unknown;
    }
    let Some((def, ne, rd)) = split_modifiers(&raw.mnemonic) else {
        let near = tables::INSNS
            .iter()
            .map(|d| d.mnemonic)
            .find(|m| m.eq_ignore_ascii_case(&raw.mnemonic));
        sink.err(
            "E-MNEM",
            raw.mspan.clone(),
            match near {
                Some(m) => format!("unknown mnemonic `{}`; did you mean `{m}`? (body mnemonics are lower case [003])", raw.mnemonic),
                None => format!("unknown mnemonic `{}`", raw.mnemonic),
            },
        );
        return unknown;
    };
    let mut insn = Insn {
        def,
        srcs: Vec::new(),
        imm: 0,
        offset: Offset::None,
        shift: 0,
        dest: Dest::None,
        w: 64,
        signed: false,
        out_bits: 64,
        out_signed: false,
        out_float: None,
        target: 0,
        rc: 0,
        non_atomic: ne,
        store_reduce: rd,
        line: raw.line,
        text: raw.text.clone(),
    };
    // An operand whose text did not parse (already reported) is missing from the list, so
    // no operand's role is known: the instruction stays as named, with no operands.
    if raw.broken {
        return Resolved {
            insn: Some(insn),
            complete: false,
            ok: false,
        };
    }
    let mut r = Resolver {
        sink,
        def,
        ok: true,
    };
    let complete = operands(&mut r, raw, pc, labels, &mut insn).is_some();
    Resolved {
        insn: Some(insn),
        complete,
        ok: complete && r.ok,
    }
}

/// Resolve the operands of `raw` into `insn`. Each operand is resolved even when another
/// one failed, so that every error of the instruction is reported at once; a rule that
/// combines operands (the input widths, the output width against them) runs only when
/// those operands resolved. `None` when some operand did not resolve, leaving `insn`
/// partly filled in.
fn operands(
    r: &mut Resolver,
    raw: &RawInsn,
    pc: u64,
    labels: &Labels,
    insn: &mut Insn,
) -> Option<()> {
    let def = r.def;
    let ops = &raw.operands;
    let count = |r: &mut Resolver, n: usize, syntax: &str| -> bool {
        if ops.len() != n {
            r.err(
                "E-OPERAND",
                raw.mspan.clone(),
                format!(
                    "`{}` takes {n} operand{} ({syntax}), {} given",
                    def.mnemonic,
                    if n == 1 { "" } else { "s" },
                    ops.len()
                ),
            );
            return false;
        }
        true
    };
    let syntax = tables_syntax(def.form);
    let reg_suffix = |t: &Tok| match t {
        Tok::Reg { suffix, .. } => *suffix,
        _ => None,
    };
    match def.form {
        Form::Alu | Form::Cmp | Form::Csel | Form::AluImm | Form::CmpImm => {
            let nregs = match def.form {
                Form::Alu | Form::Cmp => 2,
                Form::Csel => 3,
                _ => 1,
            };
            let has_imm = matches!(def.form, Form::AluImm | Form::CmpImm);
            if !count(r, nregs + usize::from(has_imm) + 1, syntax) {
                return None;
            }
            let mut reads = Vec::new();
            for t in &ops[..nregs] {
                if let Some(rd) = r.read(t, Some(false), false) {
                    reads.push((rd, t.span(), reg_suffix(t)));
                }
            }
            insn.srcs = reads.iter().map(|x| x.0).collect();
            let typed = (reads.len() == nregs).then(|| r.same_type(&reads));
            if let Some((w, signed)) = typed {
                insn.w = w;
                insn.signed = signed;
            }
            let imm = if has_imm {
                // Only a shift amount's range depends on the input width.
                let w = typed
                    .map(|t| t.0)
                    .or((def.imm != ImmKind::Shamt).then_some(64));
                match w {
                    Some(w) => r.imm(&ops[nregs], def.imm, w, pc, labels).map(|v| {
                        insn.imm = v;
                    }),
                    None => None,
                }
            } else {
                Some(())
            };
            let dest = r.queue_dest(ops.last(), raw.mspan.clone());
            if let Some((q, suf, dspan)) = &dest {
                let out = suf.map_or(64, |s| s.bits);
                if let Some((w, _)) = typed {
                    if !matches!(def.form, Form::Cmp | Form::CmpImm) && out < w {
                        r.err(
                            "E-ONARROW",
                            dspan.clone(),
                            format!(
                                "output width {out} is narrower than the input width {w} [P; 004 rule 1]"
                            ),
                        );
                    }
                }
                insn.dest = Dest::Queue { q: *q, bits: out };
                insn.out_bits = out;
            }
            typed?;
            imm?;
            dest?;
        }
        Form::Cvt => {
            if !count(r, 2, syntax) {
                return None;
            }
            let from_float = matches!(def.op, Op::Fcvt | Op::Fcvti);
            let to_float = matches!(def.op, Op::Fcvt | Op::Icvtf);
            let a = r.read(&ops[0], Some(from_float), false);
            if let Some(a) = a {
                insn.srcs = vec![a];
                insn.w = a.bits;
                insn.signed = a.signed;
            }
            let dest = r.queue_dest(ops.last(), raw.mspan.clone());
            if let Some((q, suf, dspan)) = &dest {
                let s = suf.unwrap_or(Suffix {
                    class: Class::Unsigned,
                    bits: 64,
                });
                match (s.class, to_float) {
                    (Class::Fp8, _) => {
                        r.err(
                            "E-UNSUP",
                            dspan.clone(),
                            "fp8 (.fb) and fp8.1 (.flb) formats are not defined by the sources [P]",
                        );
                    }
                    (Class::Float(k), true) => insn.out_float = Some(k),
                    (Class::Unsigned | Class::Signed | Class::Bare, false) => {
                        insn.out_signed = s.class == Class::Signed;
                    }
                    (_, true) => r.err(
                        "E-CLASS",
                        dspan.clone(),
                        format!(
                            "`{}` converts to a float type: .fd, .fs, .fh or .bf [004]",
                            def.mnemonic
                        ),
                    ),
                    (_, false) => r.err(
                        "E-CLASS",
                        dspan.clone(),
                        format!(
                            "`{}` converts to an integer type: .u*/.s* [004]",
                            def.mnemonic
                        ),
                    ),
                }
                insn.dest = Dest::Queue {
                    q: *q,
                    bits: s.bits,
                };
                insn.out_bits = s.bits;
            }
            a?;
            dest?;
        }
        Form::Falu | Form::Falu1 | Form::Fcmp => {
            let nregs = if def.form == Form::Falu1 { 1 } else { 2 };
            if !count(r, nregs + 1, syntax) {
                return None;
            }
            let mut reads = Vec::new();
            for t in &ops[..nregs] {
                if let Some(rd) = r.read(t, Some(true), false) {
                    reads.push((rd, t.span()));
                }
            }
            insn.srcs = reads.iter().map(|x| x.0).collect();
            let typed = reads.len() == nregs;
            if typed {
                let k = reads[0].0.float;
                for (rd, span) in &reads[1..] {
                    if rd.float != k {
                        r.err(
                            "E-WMIX",
                            span.clone(),
                            "float inputs of different formats: unpredictable [004 rule 1]",
                        );
                    }
                }
                insn.w = reads[0].0.bits;
            }
            let dest = r.queue_dest(ops.last(), raw.mspan.clone());
            if let Some((q, suf, dspan)) = &dest {
                let out = suf.map_or(64, |s| s.bits);
                if typed && def.form != Form::Fcmp && out != insn.w {
                    r.err(
                        "E-FWIDTH",
                        dspan.clone(),
                        format!(
                            "a float result is written at its format's width ({} bits), not {out} [004: input and output widths correspond]",
                            insn.w
                        ),
                    );
                }
                insn.dest = Dest::Queue { q: *q, bits: out };
                insn.out_bits = out;
            }
            typed.then_some(())?;
            dest?;
        }
        Form::Load | Form::Store | Form::AmoLoad | Form::AmoStore => {
            let (n, mem_index) = match def.form {
                Form::Load => (2, 0),
                Form::Store => (2, 1),
                Form::AmoLoad => (3, 0),
                _ => (2, 0),
            };
            if !count(r, n, syntax) {
                return None;
            }
            let Tok::Mem {
                base,
                offset,
                shift,
                span: mspan,
            } = &ops[mem_index]
            else {
                r.err(
                    "E-OPERAND",
                    ops[mem_index].span(),
                    format!("`{}` needs a memory operand `[...]` here", def.mnemonic),
                );
                return None;
            };
            let b = r.read(base, None, true);
            if let Some(b) = b {
                if b.bits != 64 || b.float.is_some() {
                    r.err(
                        "E-BASEW",
                        base.span(),
                        "the address base is 64-bit: .ud, .sd or .d [004 rule 2]",
                    );
                }
                insn.srcs.push(b);
            }
            insn.shift = *shift;
            let amo = matches!(def.form, Form::AmoLoad | Form::AmoStore);
            let o = match offset.as_deref() {
                None => Some(()),
                Some(_) if amo => {
                    r.err(
                        "E-OPERAND",
                        mspan.clone(),
                        "atomics take a plain address `[A.T]` [003 adj.11]",
                    );
                    Some(())
                }
                Some(Tok::Int(v, s)) => {
                    if *v < i64::MIN as i128 {
                        r.err("E-IMM", s.clone(), "offset does not fit in 64 bits");
                    }
                    insn.offset = Offset::Imm(*v as u64);
                    Some(())
                }
                Some(t) => r.read(t, Some(false), true).map(|o| {
                    insn.offset = Offset::Reg(o);
                }),
            };
            let access = def.access;
            let d = if matches!(def.form, Form::Store | Form::AmoLoad | Form::AmoStore) {
                let dt = if def.form == Form::Store {
                    &ops[0]
                } else {
                    &ops[1]
                };
                let d = r.read(dt, if amo { Some(false) } else { None }, true);
                if let Some(d) = d {
                    if d.bits != access {
                        r.err(
                            "E-STW",
                            dt.span(),
                            format!(
                                "the data is {} bits but `{}` stores {access} [004 rule 2]",
                                d.bits, def.mnemonic
                            ),
                        );
                    }
                    insn.srcs.push(d);
                }
                d.map(|_| ())
            } else {
                Some(())
            };
            insn.w = access;
            let dest = if matches!(def.form, Form::Load | Form::AmoLoad) {
                let dest = r.queue_dest(ops.last(), raw.mspan.clone());
                if let Some((q, suf, dspan)) = &dest {
                    let out = suf.map_or(64, |s| s.bits);
                    if out != access {
                        r.err(
                            "E-LDW",
                            dspan.clone(),
                            format!(
                                "the destination is {out} bits but `{}` loads {access} [004 rule 2]",
                                def.mnemonic
                            ),
                        );
                    }
                    insn.dest = Dest::Queue { q: *q, bits: out };
                    insn.out_bits = out;
                }
                dest.map(|_| ())
            } else {
                Some(())
            };
            b?;
            o?;
            d?;
            dest?;
        }
        Form::Reduce | Form::Freduce => {
            if !count(r, 2, syntax) {
                return None;
            }
            let s = r.read(&ops[0], Some(def.form == Form::Freduce), false);
            if let Some(s) = s {
                insn.srcs = vec![s];
                insn.w = s.bits;
                insn.signed = s.signed;
            }
            match &ops[1] {
                Tok::Dest {
                    dest: DestName::Gpr(g),
                    suffix,
                    span,
                } => {
                    if *g == 0 {
                        r.err(
                            "E-RDDST",
                            span.clone(),
                            "zero (R0) cannot be a reduce destination",
                        );
                    }
                    match suffix {
                        None => r.sink.warn(
                            "W-UNTYPED",
                            span.clone(),
                            "untyped destination: written as .d [P]",
                        ),
                        Some(Suffix {
                            class: Class::Bare,
                            bits: 64,
                        }) => {}
                        Some(_) => r.err(
                            "E-RDDST",
                            span.clone(),
                            "a reduce writes its global register at .d [004]",
                        ),
                    }
                    insn.dest = Dest::Gpr(*g);
                }
                t => r.err(
                    "E-RDDST",
                    t.span(),
                    "a reduce's destination is a global register at .d (`->x1.d`) [003 adj.7]",
                ),
            }
            s?;
        }
        Form::J => {
            if !count(r, 1, syntax) {
                return None;
            }
            insn.target = jump_label(r, &ops[0], labels)?;
        }
        Form::Jr => {
            if !count(r, 2, syntax) {
                return None;
            }
            let s = r.read(&ops[0], Some(false), true);
            if let Some(s) = s {
                insn.srcs = vec![s];
                insn.w = s.bits;
                insn.signed = s.signed;
            }
            let Tok::Int(v, span) = &ops[1] else {
                r.err("E-OPERAND", ops[1].span(), "`jr` takes a byte offset");
                return None;
            };
            if *v % 8 != 0 || !(-(1 << 17)..1 << 17).contains(v) {
                r.err(
                    "E-IMM",
                    span.clone(),
                    format!("jr offset {v} is not a multiple of 8 in -131072..131064 (simm15<<3) [003 adj.10]"),
                );
            }
            insn.imm = *v as u64;
            s?;
        }
        Form::Addtpc => {
            if !count(r, 2, syntax) {
                return None;
            }
            let imm = r.imm(&ops[0], ImmKind::Simm, 64, pc, labels);
            if let Some(v) = imm {
                insn.imm = v;
            }
            let dest = r.queue_dest(ops.last(), raw.mspan.clone());
            if let Some((q, suf, dspan)) = &dest {
                let out = suf.map_or(64, |s| s.bits);
                if out != 64 {
                    r.err(
                        "E-ONARROW",
                        dspan.clone(),
                        "addtpc writes a 64-bit address: ->q.d [P]",
                    );
                }
                insn.dest = Dest::Queue { q: *q, bits: 64 };
            }
            imm?;
            dest?;
        }
        Form::Branch => {
            // Without its reconvergence label the branch's other operands are still
            // checked; the instruction stays incomplete.
            let has_rc = ops.len() == 4;
            if ops.len() == 3 {
                r.err(
                    "E-NORC",
                    raw.mspan.clone(),
                    format!(
                        "`{}` needs a reconvergence label after the target [004 rule 5]",
                        def.mnemonic
                    ),
                );
            } else if !count(r, 4, syntax) {
                return None;
            }
            let mut reads = Vec::new();
            for t in &ops[..2] {
                if let Some(rd) = r.read(t, Some(false), false) {
                    reads.push((rd, t.span(), reg_suffix(t)));
                }
            }
            insn.srcs = reads.iter().map(|x| x.0).collect();
            let typed = (reads.len() == 2).then(|| r.same_type(&reads));
            if let Some((w, signed)) = typed {
                insn.w = w;
                insn.signed = signed;
            }
            let target = jump_label(r, &ops[2], labels);
            if let Some(t) = target {
                insn.target = t;
            }
            let rc = if has_rc {
                jump_label(r, &ops[3], labels)
            } else {
                None
            };
            if let Some(rc) = rc {
                insn.rc = rc;
            }
            typed?;
            target?;
            rc?;
        }
        Form::Bcond => {
            if !count(r, 3, syntax) {
                return None;
            }
            let mut all = true;
            for t in ops {
                match r.read(t, Some(false), true) {
                    Some(rd) => insn.srcs.push(rd),
                    None => all = false,
                }
            }
            all.then_some(())?;
        }
        Form::PcPop | Form::Lbstop => {
            if !count(r, 0, syntax) {
                return None;
            }
        }
    }
    Some(())
}

fn jump_label(r: &mut Resolver, tok: &Tok, labels: &Labels) -> Option<u64> {
    match tok {
        Tok::Label(name, span) => label(r, name, span, labels),
        t => {
            r.err(
                "E-OPERAND",
                t.span(),
                format!(
                    "`{}` needs a label here, found {}",
                    r.def.mnemonic,
                    t.what()
                ),
            );
            None
        }
    }
}

fn tables_syntax(form: Form) -> &'static str {
    match form {
        Form::Alu | Form::Cmp => "A.T, B.T, ->q.W",
        Form::AluImm | Form::CmpImm => "A.T, IMM, ->q.W",
        Form::Csel => "P.T, L.T, R.T, ->q.W",
        Form::Cvt => "A.T, ->q.T",
        Form::Falu | Form::Fcmp => "A.F, B.F, ->q.W",
        Form::Falu1 => "A.F, ->q.W",
        Form::Load => "[B.T, O.T<<k], ->q.W",
        Form::Store => "D.T, [B.T, O.T<<k]",
        Form::AmoLoad => "[A.T], V.T, ->q.W",
        Form::AmoStore => "[A.T], V.T",
        Form::Reduce => "S.T, ->Rg.d",
        Form::Freduce => "S.F, ->Rg.d",
        Form::J => "LABEL",
        Form::Jr => "S.T, IMM",
        Form::Addtpc => "IMM, ->q.d",
        Form::Branch => "L.T, R.T, TARGET, RECONVERGENCE",
        Form::Bcond => "P.T, L.T, R.T",
        Form::PcPop | Form::Lbstop => "no operands",
    }
}
