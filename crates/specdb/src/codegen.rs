//! Writes the static tables of `warpkit-isa` as Rust source.

use crate::{op_ident, Database, FLAGS};
use std::collections::BTreeMap;
use std::fmt::Write;

fn s(text: &str) -> String {
    format!("{text:?}")
}

/// Write `text` as `///` lines at `indent`, one per line of `text` (an empty line gives a
/// bare `///`). The text is made safe for a line comment by [`comment_safe`].
pub(crate) fn doc(o: &mut String, indent: &str, text: &str) {
    for line in text.split('\n') {
        if line.is_empty() {
            let _ = writeln!(o, "{indent}///");
        } else {
            let _ = writeln!(o, "{indent}/// {}", comment_safe(line));
        }
    }
}

/// `line` with what a `///` comment cannot hold written as escapes: control characters
/// (rustc rejects a bare carriage return in a doc comment; a tab becomes a space, for
/// `clippy::tabs_in_doc_comments`) and the Unicode direction controls, which rustc rejects
/// in comments.
fn comment_safe(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        let bidi = matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if c == '\t' {
            out.push(' ');
        } else if c.is_control() || bidi {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Runs of white space (line breaks included) as one space, ends trimmed: database text
/// becomes one line of a doc comment.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` as a Markdown code span on one line: fenced with one backtick more than the
/// longest run of backticks inside, padded with a space where the text itself starts or
/// ends with one.
pub(crate) fn code(text: &str) -> String {
    let text = one_line(text);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` as Markdown prose on one line: the characters that would start markup (code,
/// emphasis, links, HTML, entities, strikethrough) are backslash-escaped, `_` only where it
/// could open or close emphasis (not inside a word such as `scratch_lo`).
pub(crate) fn prose(text: &str) -> String {
    let chars: Vec<char> = one_line(text).chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let escape = match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '~' | '&' => true,
            '_' => {
                let word = |j: Option<usize>| {
                    j.and_then(|j| chars.get(j))
                        .is_some_and(|c| c.is_alphanumeric())
                };
                !(word(i.checked_sub(1)) && word(Some(i + 1)))
            }
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn class(c: &str) -> &'static str {
    match c {
        "vreg" => "OperandClass::VReg",
        "ureg" => "OperandClass::UReg",
        "simm" => "OperandClass::SImm",
        "uimm" => "OperandClass::UImm",
        "imm" => "OperandClass::Imm",
        _ => "OperandClass::Enum",
    }
}

/// The Rust source of the tables; `include!`d by `warpkit-isa`.
pub fn generate(db: &Database) -> String {
    let mut o = String::new();
    o.push_str("// @generated from spec/*.yaml by warpkit-specdb; do not edit.\n\n");

    // Op
    o.push_str(
        "/// One instruction variant of the database, in database order: `op as usize` indexes\n",
    );
    o.push_str("/// [`INSTRUCTIONS`] and [`DECODE_HOT`] (see [`Op::def`]).\n");
    o.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n#[repr(u16)]\npub enum Op {\n");
    for ins in &db.instructions {
        doc(&mut o, "    ", &op_doc(db, ins));
        let _ = writeln!(o, "    {},", op_ident(&ins.mnemonic));
    }
    o.push_str("}\n\n");
    o.push_str(
        "/// The number of instruction variants in the database: the length of [`ALL_OPS`],\n",
    );
    o.push_str("/// [`INSTRUCTIONS`] and [`DECODE_HOT`].\n");
    let _ = writeln!(o, "pub const OP_COUNT: usize = {};", db.instructions.len());
    o.push_str("/// Every `Op`, in database order.\npub static ALL_OPS: [Op; OP_COUNT] = [");
    for ins in &db.instructions {
        let _ = write!(o, "Op::{}, ", op_ident(&ins.mnemonic));
    }
    o.push_str("];\n\n");

    // Flags
    o.push_str(
        "/// Flag names and meanings, in bit order: entry `i` is bit `i` of [`Flags`], named as\n/// the database's `flags` lists spell it.\npub static FLAG_NAMES: &[(&str, &str)] = &[\n",
    );
    for (n, d, _) in FLAGS {
        let _ = writeln!(o, "    ({}, {}),", s(n), s(d));
    }
    o.push_str("];\n\nimpl Flags {\n");
    for (i, (n, d, _)) in FLAGS.iter().enumerate() {
        doc(
            &mut o,
            "    ",
            &format!("{} (bit {i}): {}.", code(n), prose(d)),
        );
        let _ = writeln!(
            o,
            "    pub const {}: Flags = Flags(1 << {i});",
            n.to_uppercase()
        );
    }
    o.push_str("}\n\n");

    // Formats
    let mut text = String::from(
        "The instruction formats of section 2.2 (`spec/formats.yaml`), in file order: width,\n\
         fields (most significant first) and purpose. [`InstrDef::format`] points here.\n",
    );
    for f in &db.formats {
        let fields: Vec<String> = f
            .fields
            .iter()
            .map(|(n, msb, lsb)| format!("{n}[{msb}:{lsb}]"))
            .collect();
        let _ = write!(
            text,
            "\n- {} ({}-bit, {}): {}",
            code(&f.name),
            f.width,
            code(&fields.join(" ")),
            prose(&f.purpose)
        );
    }
    doc(&mut o, "", &text);
    let _ = writeln!(
        o,
        "pub static FORMATS: [FormatDef; {}] = [",
        db.formats.len()
    );
    for f in &db.formats {
        let _ = write!(
            o,
            "    FormatDef {{ name: {}, width: {}, purpose: {}, fields: &[",
            s(&f.name),
            f.width,
            s(&f.purpose)
        );
        for (n, msb, lsb) in &f.fields {
            let _ = write!(o, "FieldDef {{ name: {}, msb: {msb}, lsb: {lsb} }}, ", s(n));
        }
        o.push_str("] },\n");
    }
    o.push_str("];\n\n");

    // Operand types
    let mut text = String::from(
        "The operand types of section 2.4 (`spec/operands.yaml`, `types`), in file order: class\n\
         and field width; [`KindDef::ty`] points here.\n",
    );
    for t in &db.types {
        let mut notes = format!("{}, {}-bit", t.class, t.bits);
        if t.scale != 1 {
            let _ = write!(notes, ", scale {}", t.scale);
        }
        if let Some((lo, hi)) = t.reserved {
            let _ = write!(notes, ", {lo}..={hi} reserved");
        }
        let _ = write!(
            text,
            "\n- {} ({notes}): {}",
            code(&t.name),
            prose(&t.description)
        );
        if !t.values.is_empty() {
            let values: Vec<String> = t
                .values
                .iter()
                .map(|(n, v)| format!("{} = {v:#x}", code(n)))
                .collect();
            let _ = write!(text, "; values {}", values.join(", "));
        }
    }
    doc(&mut o, "", &text);
    let _ = writeln!(
        o,
        "pub static OPERAND_TYPES: [OperandTypeDef; {}] = [",
        db.types.len()
    );
    for t in &db.types {
        let values: String = t
            .values
            .iter()
            .map(|(n, v)| format!("({}, {v}), ", s(n)))
            .collect();
        let reserved = match t.reserved {
            Some((lo, hi)) => format!("Some(({lo}, {hi}))"),
            None => "None".into(),
        };
        let _ = writeln!(
            o,
            "    OperandTypeDef {{ name: {}, class: {}, bits: {}, scale: {}, regs: {}, align: {}, half: {}, pc_relative: {}, description: {}, values: &[{values}], reserved: {reserved} }},",
            s(&t.name),
            class(&t.class),
            t.bits,
            t.scale,
            t.regs,
            t.align,
            t.half,
            t.pc_relative,
            s(&t.description)
        );
    }
    o.push_str("];\n\n");

    // Kinds
    let type_index = |name: &str| db.types.iter().position(|t| t.name == name).unwrap();
    let mut text = String::from(
        "The syntax kinds (`spec/operands.yaml`, `kinds`), in file order: the spellings after\n\
         the colon of a syntax operand (`rd:vp^2`), each naming an operand type;\n\
         [`OperandDef::kind`] points here.\n",
    );
    for k in &db.kinds {
        let ti = type_index(&k.ty);
        let mut notes = vec![format!("type {}", code(&k.ty))];
        let regs = k.regs.unwrap_or(db.types[ti].regs);
        if regs > 1 {
            notes.push(format!("{regs} registers"));
        }
        if k.access.as_deref() == Some("read-write") {
            notes.push("read and written".into());
        }
        if k.optional {
            notes.push(format!("optional, default {}", k.default.unwrap_or(0)));
        }
        if k.keyed {
            notes.push(format!("keyed, default {}", k.default.unwrap_or(0)));
        }
        if let Some(m) = &k.srcmod {
            notes.push(format!("source modifier {}", code(m)));
        }
        if k.switch {
            notes.push("switch".into());
        }
        if k.provisional {
            notes.push("provisional".into());
        }
        let _ = write!(text, "\n- {}: {}", code(&k.kind), notes.join(", "));
    }
    doc(&mut o, "", &text);
    let _ = writeln!(o, "pub static KINDS: [KindDef; {}] = [", db.kinds.len());
    for k in &db.kinds {
        let ti = type_index(&k.ty);
        let regs = k.regs.unwrap_or(db.types[ti].regs);
        let access = match k.access.as_deref() {
            None => "Access::None",
            Some("read-write") => "Access::ReadWrite",
            Some(_) => "Access::WriteOrRead",
        };
        let default = match k.default {
            Some(d) => format!("Some({d})"),
            None => "None".into(),
        };
        let modifier = match (k.srcmod.as_deref(), k.switch) {
            (Some("neg"), _) => "Modifier::Neg",
            (Some(_), _) => "Modifier::Abs",
            (None, true) => "Modifier::Switch",
            (None, false) => "Modifier::None",
        };
        let _ = writeln!(
            o,
            "    KindDef {{ kind: {}, ty: &OPERAND_TYPES[{ti}], regs: {regs}, access: {access}, optional: {}, keyed: {}, default: {default}, modifier: {modifier}, provisional: {} }},",
            s(&k.kind),
            k.optional,
            k.keyed,
            k.provisional
        );
    }
    o.push_str("];\n\n");

    // CSRs
    let mut text = String::from(
        "The CSRs of section 3.3 (`spec/csrs.yaml`), in file order; look one up with\n\
         [`csr_by_number`] or [`csr_by_name`].\n",
    );
    for c in &db.csrs {
        let access = if c.access == "rw" {
            "read-write"
        } else {
            "read-only"
        };
        let start = match &c.reset_note {
            Some(n) => prose(n),
            None => format!("{:#x}", c.reset),
        };
        let _ = write!(
            text,
            "\n- `{:#05x}` {}, {access}: {} (at warp start: {start})",
            c.number,
            code(&c.name),
            prose(&c.meaning)
        );
    }
    doc(&mut o, "", &text);
    let _ = writeln!(o, "pub static CSRS: [CsrDef; {}] = [", db.csrs.len());
    for c in &db.csrs {
        let note = match &c.reset_note {
            Some(n) => format!("Some({})", s(n)),
            None => "None".into(),
        };
        let _ = writeln!(
            o,
            "    CsrDef {{ number: {:#x}, name: {}, writable: {}, meaning: {}, reset: {}, reset_note: {note} }},",
            c.number,
            s(&c.name),
            c.access == "rw",
            s(&c.meaning),
            c.reset
        );
    }
    o.push_str("];\n\n");

    // Counters
    let mut text = String::from(
        "The `waitcnt` counters of section 2.6 (`spec/counters.yaml`), indexed by\n\
         [`Latency::Async`]; look one up with [`counter_by_name`].\n",
    );
    for (i, c) in db.counters.iter().enumerate() {
        let _ = write!(
            text,
            "\n- {i}: {}, {}-bit field, at most {} in flight, {}: {}",
            code(&c.name),
            c.bits,
            c.max_outstanding,
            c.order,
            prose(&c.covers)
        );
    }
    doc(&mut o, "", &text);
    let _ = writeln!(
        o,
        "pub static COUNTERS: [CounterDef; {}] = [",
        db.counters.len()
    );
    for c in &db.counters {
        let _ = writeln!(
            o,
            "    CounterDef {{ name: {}, bits: {}, max_outstanding: {}, in_order: {}, covers: {} }},",
            s(&c.name),
            c.bits,
            c.max_outstanding,
            c.order == "in-order",
            s(&c.covers)
        );
    }
    o.push_str("];\n\n");

    // Groups and subgroups
    let mut text = String::from(
        "The instruction files, `spec/instructions/` then `spec/provisional/`, indexed by\n\
         [`SubgroupDef::group`].\n",
    );
    for (i, g) in db.groups.iter().enumerate() {
        let _ = write!(
            text,
            "\n- {i}: group {}, {}{}: {}",
            g.group,
            code(&g.source),
            if g.provisional { ", provisional" } else { "" },
            prose(&g.title)
        );
    }
    doc(&mut o, "", &text);
    let _ = writeln!(o, "pub static GROUPS: [GroupDef; {}] = [", db.groups.len());
    for g in &db.groups {
        let _ = writeln!(
            o,
            "    GroupDef {{ group: {}, title: {}, unit: {}, provisional: {}, source: {} }},",
            g.group,
            s(&g.title),
            s(&g.unit),
            g.provisional,
            s(&g.source)
        );
    }
    o.push_str("];\n\n");
    let mut text = String::from(
        "The subgroups of every instruction file, in database order, each a run of\n\
         [`INSTRUCTIONS`]; [`InstrDef::subgroup`] indexes them.\n",
    );
    for (i, sg) in db.subgroups.iter().enumerate() {
        let _ = write!(
            text,
            "\n- {i}: {} (file {}, `INSTRUCTIONS[{}..{}]`): {}",
            code(&sg.id),
            sg.group,
            sg.first,
            sg.first + sg.len,
            prose(&sg.title)
        );
    }
    doc(&mut o, "", &text);
    let _ = writeln!(
        o,
        "pub static SUBGROUPS: [SubgroupDef; {}] = [",
        db.subgroups.len()
    );
    for sg in &db.subgroups {
        let _ = writeln!(
            o,
            "    SubgroupDef {{ group: {}, id: {}, title: {}, first: {}, len: {} }},",
            sg.group,
            s(&sg.id),
            s(&sg.title),
            sg.first,
            sg.len
        );
    }
    o.push_str("];\n\n");

    // Instructions
    o.push_str(
        "/// Every instruction variant's entry in the database, indexed by `Op as usize` (see\n",
    );
    o.push_str(
        "/// [`Op::def`]): its encoding (format, fixed fields, section 2.3's decode bits),\n",
    );
    o.push_str("/// operands, latency, flags and semantics.\n");
    let _ = writeln!(o, "pub static INSTRUCTIONS: [InstrDef; OP_COUNT] = [");
    for ins in &db.instructions {
        let fixed: String = ins
            .fixed
            .iter()
            .map(|(n, v)| format!("({}, {v:#x}), ", s(n)))
            .collect();
        let mut operands = String::new();
        for op in &ins.operands {
            let k = &db.kinds[op.kind];
            let role = match k.access.as_deref() {
                None => "Role::Value",
                Some("read-write") => "Role::ReadWrite",
                Some(_) if op.name == "rd" && !ins.flags.iter().any(|f| f == "sd") => "Role::Write",
                Some(_) => "Role::Read",
            };
            let _ = write!(
                operands,
                "OperandDef {{ name: {}, kind: &KINDS[{}], field: FieldDef {{ name: {}, msb: {}, lsb: {} }}, role: {role} }}, ",
                s(&op.name),
                op.kind,
                s(&op.name),
                op.msb,
                op.lsb
            );
        }
        let latency = match ins.latency.split_once(':') {
            Some(("async", c)) => format!(
                "Latency::Async({})",
                db.counters.iter().position(|k| k.name == c).unwrap()
            ),
            Some((_, n)) => format!("Latency::Fixed({n})"),
            None => unreachable!("validated"),
        };
        let flags: Vec<String> = ins
            .flags
            .iter()
            .map(|f| format!("Flags::{}.0", f.to_uppercase()))
            .collect();
        let flag_names: String = ins.flags.iter().map(|f| format!("{}, ", s(f))).collect();
        let flags = if flags.is_empty() {
            "Flags(0)".to_string()
        } else {
            format!("Flags({})", flags.join(" | "))
        };
        let memory = match &ins.memory {
            None => "None".to_string(),
            Some(m) => memory_def(m),
        };
        let _ = writeln!(
            o,
            "    InstrDef {{ op: Op::{}, mnemonic: {}, family: {}, operation: {}, memory: {memory}, group: {}, subgroup: {}, format: &FORMATS[{}], width: {}, fixed: &[{fixed}], operands: &[{operands}], latency: {latency}, latency_text: {}, semantics: {}, flags: {flags}, flag_names: &[{flag_names}], provisional: {}, mask: {:#x}, match_bits: {:#x}, zero: {:#x} }},",
            op_ident(&ins.mnemonic),
            s(&ins.mnemonic),
            s(&ins.family),
            s(&ins.op),
            ins.group,
            ins.subgroup,
            ins.format,
            ins.width,
            s(&ins.latency),
            s(&ins.semantics),
            ins.provisional,
            ins.mask,
            ins.match_bits,
            ins.zero
        );
    }
    o.push_str("];\n\n");

    for_each_op(db, &mut o);

    // Decode index: the 7-bit opcode selects a multiplicative hash of the word's function
    // fields (the fixed fields other than the opcode), found here so that the variants
    // sharing an opcode land in distinct slots of a small table. The slot names at most
    // one candidate; decode then applies section 2.3's test to it, which also rejects any
    // word whose function fields hash to a slot they do not own.
    let mut by_opcode: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, ins) in db.instructions.iter().enumerate() {
        let op = ins.fixed.iter().find(|(n, _)| n == "opcode").unwrap().1;
        by_opcode.entry(op).or_default().push(i);
    }
    let mut keys = String::new();
    // Slot 0 is shared by every unused opcode and never holds a variant.
    let mut index: Vec<u16> = vec![u16::MAX];
    for opcode in 0..128u64 {
        let Some(list) = by_opcode.get(&opcode) else {
            keys.push_str("    DecodeKey { key_mask: 0, multiplier: 0, shift: 63, base: 0 },\n");
            continue;
        };
        let key_mask = db.instructions[list[0]].mask & !0x7f;
        let keys_of: Vec<u64> = list
            .iter()
            .map(|&i| db.instructions[i].match_bits & key_mask)
            .collect();
        let (multiplier, bits) = perfect_hash(&keys_of);
        let base = index.len();
        index.extend(std::iter::repeat_n(u16::MAX, 1 << bits));
        for (&i, &k) in list.iter().zip(&keys_of) {
            index[base + (k.wrapping_mul(multiplier) >> (64 - bits)) as usize] = i as u16;
        }
        let _ = writeln!(
            keys,
            "    DecodeKey {{ key_mask: {key_mask:#x}, multiplier: {multiplier:#x}, shift: {}, base: {base} }},",
            64 - bits
        );
    }
    o.push_str(
        "/// The decode index of each 7-bit opcode, indexed by `w0 & 0x7f` (see [`DecodeKey`]).\n",
    );
    o.push_str("/// An opcode no variant uses has `key_mask` 0 and `base` 0: the empty slot.\n");
    let _ = writeln!(
        o,
        "pub static DECODE_KEYS: [DecodeKey; 128] = [\n{keys}];\n"
    );
    o.push_str(
        "/// The slots of the decode hash, reached through [`DECODE_KEYS`]: each holds the index\n",
    );
    o.push_str(
        "/// into [`INSTRUCTIONS`] and [`DECODE_HOT`] of the one variant that may sit there, or\n",
    );
    o.push_str(
        "/// `u16::MAX` for none. Slot 0, shared by every unused opcode, is always empty.\n",
    );
    let idx: Vec<String> = index.iter().map(|v| v.to_string()).collect();
    let _ = writeln!(
        o,
        "pub static DECODE_INDEX: [u16; {}] = [{}];\n",
        index.len(),
        idx.join(", ")
    );
    o.push_str("/// What decoding reads of each variant, indexed by `Op as usize` like [`INSTRUCTIONS`]:\n");
    o.push_str("/// section 2.3's test (`word & check == match_bits`) and where each syntax operand sits.\n");
    o.push_str("pub static DECODE_HOT: [DecodeHot; OP_COUNT] = [\n");
    for ins in &db.instructions {
        let mut fields: Vec<String> = ins
            .operands
            .iter()
            .map(|op| format!("({}, {:#x})", op.lsb, (1u64 << (op.msb - op.lsb + 1)) - 1))
            .collect();
        while fields.len() < 8 {
            fields.push("(0, 0)".into());
        }
        let _ = writeln!(
            o,
            "    DecodeHot {{ op: Op::{}, check: {:#x}, match_bits: {:#x}, fields: [{}] }},",
            op_ident(&ins.mnemonic),
            ins.mask | ins.zero,
            ins.match_bits,
            fields.join(", ")
        );
    }
    o.push_str("];\n");
    o
}

/// The doc comment of an instruction's `Op` variant: its syntax and semantics, then its
/// format, latency, flags and where the database defines it.
fn op_doc(db: &Database, ins: &crate::Instruction) -> String {
    let syntax = if ins.syntax.trim().is_empty() {
        ins.mnemonic.clone()
    } else {
        format!("{} {}", ins.mnemonic, ins.syntax.trim())
    };
    let sg = &db.subgroups[ins.subgroup];
    let mut facts = format!(
        "Format {}, latency {}",
        code(&db.formats[ins.format].name),
        code(&ins.latency)
    );
    if !ins.flags.is_empty() {
        let flags: Vec<String> = ins.flags.iter().map(|f| code(f.as_str())).collect();
        let _ = write!(facts, ", flags {}", flags.join(" "));
    }
    let _ = write!(facts, "; {}, subgroup {}", code(&ins.source), code(&sg.id));
    if ins.provisional {
        facts.push_str(" (provisional)");
    }
    if ins.semantics.trim().is_empty() {
        format!("{}\n\n{facts}.", code(&syntax))
    } else {
        format!("{}: {}\n\n{facts}.", code(&syntax), code(&ins.semantics))
    }
}

/// A multiplier and a table size (in bits, at least 1) under which
/// `(key * multiplier) >> (64 - bits)` is distinct for every key: the smallest table found
/// by a deterministic search.
fn perfect_hash(keys: &[u64]) -> (u64, u32) {
    if keys.len() == 1 {
        return (0, 1);
    }
    let min_bits = usize::BITS - (keys.len() - 1).leading_zeros();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for bits in min_bits..=12 {
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let m = state | 1;
            let mut seen = std::collections::HashSet::new();
            if keys
                .iter()
                .all(|k| seen.insert(k.wrapping_mul(m) >> (64 - bits)))
            {
                return (m, bits);
            }
        }
    }
    panic!("no perfect hash for {} decode keys", keys.len());
}

/// `Some(MemoryDef { .. })` for a memory instruction's facts (validated).
fn memory_def(m: &crate::model::Memory) -> String {
    let cap = |t: &str| {
        let mut c = t.chars();
        c.next()
            .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
            .unwrap_or_default()
    };
    let address = m
        .address
        .as_deref()
        .map_or("None".to_string(), |a| match a {
            "a64" => "A64".to_string(),
            other => cap(other),
        });
    let part = m.part.as_deref().map_or("Whole".to_string(), |p| match p {
        "low16" => "Low16".to_string(),
        _ => "High16".to_string(),
    });
    let atomic = m.atomic.as_deref().map_or("None".to_string(), |a| {
        format!("Some(AtomicOp::{})", cap(a))
    });
    format!(
        "Some(MemoryDef {{ access: MemoryAccess::{}, address: Addressing::{address}, size: {}, signed: {}, part: MemoryPart::{part}, atomic: {atomic}, returns: {} }})",
        cap(&m.access),
        m.size.unwrap_or(0),
        m.signed,
        m.returns
    )
}

/// The form token of an operand kind in `for_each_op!`: one identifier per kind.
fn form_token(kind: &str) -> String {
    match kind {
        "v*" => "vx".into(),
        "vp^2" => "vp".into(),
        "vp^2*" => "vpx".into(),
        "v^4" => "v4".into(),
        "up^2" => "up".into(),
        "ud^4" => "ud4".into(),
        "ud^8" => "ud8".into(),
        other => other.replace(['^', '*'], "_"),
    }
}

/// `for_each_op!`, the one list of operations that the model derives its tables from (in
/// the manner of Pulley's): every variant with its operation and its form, the kinds of
/// its `rd`, `rs1`, `rs2`, `rs3` and immediate (`imm` or `csr`) operands, `_` where it has
/// none. `for_each_op!(m)` expands to `m! { Variant op [rd rs1 rs2 rs3 imm]; ... }`.
fn for_each_op(db: &Database, o: &mut String) {
    o.push_str(
        "/// Every variant with its operation (`op` in the database) and its form: the kinds of\n",
    );
    o.push_str(
        "/// its `rd`, `rs1`, `rs2`, `rs3` and immediate operands (`_` where it has none).\n",
    );
    o.push_str(
        "/// `for_each_op!(m)` expands to `m! { Variant op [rd rs1 rs2 rs3 imm]; ... }`: a\n",
    );
    o.push_str(
        "/// table derived from it names every variant, so a variant without one is a compile\n",
    );
    o.push_str("/// error where it is used.\n");
    o.push_str("#[macro_export]\n#[rustfmt::skip]\nmacro_rules! for_each_op {\n    ($m:ident) => {\n        $m! {\n");
    for ins in &db.instructions {
        let slot = |names: &[&str]| {
            ins.operands
                .iter()
                .find(|op| names.contains(&op.name.as_str()))
                .map_or("_".to_string(), |op| form_token(&db.kinds[op.kind].kind))
        };
        let _ = writeln!(
            o,
            "            {} {} [{} {} {} {} {}];",
            op_ident(&ins.mnemonic),
            ins.op,
            slot(&["rd"]),
            slot(&["rs1"]),
            slot(&["rs2"]),
            slot(&["rs3"]),
            slot(&["imm", "csr"]),
        );
    }
    o.push_str("        }\n    };\n}\n\n");
}
