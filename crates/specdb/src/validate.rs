//! The rules a database must satisfy; each broken rule gives one message naming the entry.

use crate::{op_ident, Database, Instruction, FLAGS};
use std::collections::{BTreeMap, HashMap};

const CLASSES: &[&str] = &["vreg", "ureg", "simm", "uimm", "imm", "enum"];
const ACCESS: &[&str] = &["write-or-read", "read-write"];

/// Check every rule; an empty list means the database is sound.
pub fn validate(db: &Database) -> Vec<String> {
    let mut errors = Vec::new();
    check_formats(db, &mut errors);
    check_operand_types(db, &mut errors);
    check_csrs_and_counters(db, &mut errors);
    check_instructions(db, &mut errors);
    check_decode_index(db, &mut errors);
    check_overlaps(db, &mut errors);
    errors
}

fn check_formats(db: &Database, errors: &mut Vec<String>) {
    let mut seen = BTreeMap::new();
    for f in &db.formats {
        let at = format!("spec/formats.yaml: format {}", f.name);
        if seen.insert(f.name.clone(), ()).is_some() {
            errors.push(format!("{at}: defined twice"));
        }
        if f.width != 32 && f.width != 64 {
            errors.push(format!("{at}: width {} is not 32 or 64", f.width));
            continue;
        }
        // Fields must tile [width-1:0], most significant first, without gaps or overlaps.
        let mut next_msb = f.width as i64 - 1;
        let mut names = BTreeMap::new();
        for (name, msb, lsb) in &f.fields {
            if names.insert(name.clone(), ()).is_some() {
                errors.push(format!("{at}: field `{name}` appears twice"));
            }
            if msb < lsb {
                errors.push(format!("{at}: field {name}[{msb}:{lsb}] has msb < lsb"));
                continue;
            }
            if *msb as i64 > next_msb {
                errors.push(format!(
                    "{at}: field {name}[{msb}:{lsb}] overlaps the field before it"
                ));
            } else if (*msb as i64) < next_msb {
                errors.push(format!(
                    "{at}: gap at bits [{next_msb}:{}] before field {name}[{msb}:{lsb}]",
                    msb + 1
                ));
            }
            next_msb = *lsb as i64 - 1;
        }
        if next_msb != -1 {
            errors.push(format!(
                "{at}: bits [{next_msb}:0] are not covered by a field"
            ));
        }
        match f.field("opcode") {
            Some((6, 0)) => {}
            _ => errors.push(format!("{at}: has no opcode[6:0] field")),
        }
    }
}

fn check_operand_types(db: &Database, errors: &mut Vec<String>) {
    for t in &db.types {
        let at = format!("spec/operands.yaml: type {}", t.name);
        if !CLASSES.contains(&t.class.as_str()) {
            errors.push(format!("{at}: unknown class `{}`", t.class));
        }
        if t.bits == 0 || t.bits > 32 {
            errors.push(format!("{at}: {} bits is not in 1..32", t.bits));
        }
        if t.scale == 0 || !t.scale.is_power_of_two() {
            errors.push(format!("{at}: scale {} is not a power of two", t.scale));
        }
        let limit = if t.bits >= 32 {
            u64::MAX
        } else {
            1u64 << t.bits
        };
        for (name, value) in &t.values {
            if u64::from(*value) >= limit {
                errors.push(format!(
                    "{at}: value {name}={value:#x} does not fit {} bits",
                    t.bits
                ));
            }
        }
        if t.class == "enum" && t.values.is_empty() {
            errors.push(format!("{at}: an enum type needs values"));
        }
        if let Some((lo, hi)) = t.reserved {
            if lo > hi || u64::from(hi) >= limit {
                errors.push(format!(
                    "{at}: reserved range {lo}..{hi} is empty or beyond the field"
                ));
            }
            if t.values.iter().any(|(_, v)| (lo..=hi).contains(v)) {
                errors.push(format!("{at}: a named value lies in the reserved range"));
            }
        }
    }
    for k in &db.kinds {
        let at = format!("spec/operands.yaml: kind `{}`", k.kind);
        let Some(t) = db.types.iter().find(|t| t.name == k.ty) else {
            errors.push(format!("{at}: unknown type `{}`", k.ty));
            continue;
        };
        if let Some(a) = &k.access {
            if !ACCESS.contains(&a.as_str()) {
                errors.push(format!("{at}: unknown access `{a}`"));
            }
        }
        let is_reg = t.class == "vreg" || t.class == "ureg";
        if is_reg != k.access.is_some() {
            errors.push(format!(
                "{at}: register kinds need an access, immediate kinds have none"
            ));
        }
        if (k.optional || k.keyed) && k.default.is_none() {
            errors.push(format!("{at}: an optional or keyed kind needs a default"));
        }
        if let Some(m) = &k.srcmod {
            if m != "neg" && m != "abs" {
                errors.push(format!("{at}: srcmod `{m}` is not neg or abs"));
            }
            if t.class != "uimm" || t.bits != 3 {
                errors.push(format!(
                    "{at}: a srcmod kind needs a 3-bit uimm type (mod3)"
                ));
            }
        }
        if k.switch && (t.class != "uimm" || t.bits != 1 || k.srcmod.is_some()) {
            errors.push(format!("{at}: a switch kind needs a 1-bit uimm type"));
        }
    }
}

fn check_csrs_and_counters(db: &Database, errors: &mut Vec<String>) {
    let csr_type = db.types.iter().find(|t| t.name == "csr");
    for c in &db.csrs {
        let at = format!("spec/csrs.yaml: CSR {}", c.name);
        if c.access != "r" && c.access != "rw" {
            errors.push(format!("{at}: access `{}` is not r or rw", c.access));
        }
        if let Some(t) = csr_type {
            if !t.values.iter().any(|(n, v)| n == &c.name && *v == c.number) {
                errors.push(format!(
                    "{at}: number {:#x} disagrees with the csr enum of spec/operands.yaml",
                    c.number
                ));
            }
        }
    }
    if let Some(t) = csr_type {
        for (n, _) in &t.values {
            if !db.csrs.iter().any(|c| &c.name == n) {
                errors.push(format!(
                    "spec/operands.yaml: csr enum value `{n}` has no entry in spec/csrs.yaml"
                ));
            }
        }
    }
    for c in &db.counters {
        let at = format!("spec/counters.yaml: counter {}", c.name);
        if c.order != "in-order" && c.order != "out-of-order" {
            errors.push(format!(
                "{at}: order `{}` is not in-order or out-of-order",
                c.order
            ));
        }
        match db
            .types
            .iter()
            .find(|t| t.name == format!("cnt_{}", c.name))
        {
            Some(t) if t.bits == c.bits => {}
            _ => errors.push(format!(
                "{at}: needs an operand type cnt_{} of {} bits",
                c.name, c.bits
            )),
        }
        if c.max_outstanding == 0 {
            errors.push(format!(
                "{at}: in-flight limit {} is out of range",
                c.max_outstanding
            ));
        }
    }
}

fn check_instructions(db: &Database, errors: &mut Vec<String>) {
    let mut mnemonics: HashMap<String, &str> = HashMap::new();
    let mut idents: HashMap<String, &str> = HashMap::new();
    for ins in &db.instructions {
        let at = format!("{}: instruction `{}`", ins.source, ins.mnemonic);
        if let Some(prev) = mnemonics.insert(ins.mnemonic.clone(), &ins.source) {
            errors.push(format!("{at}: mnemonic already defined in {prev}"));
        }
        if let Some(prev) = idents.insert(op_ident(&ins.mnemonic), &ins.mnemonic) {
            if prev != ins.mnemonic {
                errors.push(format!("{at}: its Rust name collides with `{prev}`"));
            }
        }
        let fmt = &db.formats[ins.format];
        // Section 2.1: the low bits of w0 give the width.
        match ins.fixed.iter().find(|(n, _)| n == "opcode") {
            None => errors.push(format!("{at}: has no fixed opcode")),
            Some(&(_, op)) => {
                let ok = match fmt.width {
                    32 => op & 0x1 == 0,
                    64 => op & 0x3 == 0x1,
                    _ => false,
                };
                if !ok {
                    errors.push(format!(
                        "{at}: opcode {op:#x} has low bits {:02b}, which do not give a {}-bit instruction (32-bit: w0[0]=0, 64-bit: w0[1:0]=01, 11 reserved)",
                        op & 3,
                        fmt.width
                    ));
                }
            }
        }
        for op in &ins.operands {
            let t = db.type_of_kind(op.kind);
            let width = op.msb - op.lsb + 1;
            if width != t.bits {
                errors.push(format!(
                    "{at}: operand `{}` of kind `{}` ({}, {} bits) sits in the {width}-bit field {}[{}:{}]",
                    op.name, db.kinds[op.kind].kind, t.name, t.bits, op.name, op.msb, op.lsb
                ));
            }
        }
        for f in &ins.flags {
            if !FLAGS.iter().any(|(n, _, _)| n == f) {
                errors.push(format!("{at}: unknown flag `{f}`"));
            }
            if FLAGS.iter().any(|(n, _, prov)| n == f && *prov) && !ins.provisional {
                errors.push(format!(
                    "{at}: provisional flag `{f}` on a non-provisional instruction"
                ));
            }
        }
        match ins.latency.split_once(':') {
            Some(("fixed", n)) if n.parse::<u8>().is_ok() => {}
            Some(("async", c)) if db.counters.iter().any(|k| k.name == c) => {}
            _ => errors.push(format!(
                "{at}: latency `{}` is not fixed:N or async:<counter>",
                ins.latency
            )),
        }
        check_execution_facts(db, ins, &at, errors);
        if !ins.provisional {
            for op in &ins.operands {
                if db.kinds[op.kind].provisional {
                    errors.push(format!(
                        "{at}: operand `{}` uses the provisional kind `{}`",
                        op.name, db.kinds[op.kind].kind
                    ));
                }
            }
        }
        // Optional operands may only trail.
        let mut seen_optional = false;
        for op in &ins.operands {
            let k = &db.kinds[op.kind];
            if k.optional {
                seen_optional = true;
            } else if seen_optional && !k.keyed {
                errors.push(format!(
                    "{at}: operand `{}` follows an optional operand",
                    op.name
                ));
            }
        }
    }
    for sg in &db.subgroups {
        if sg.count != sg.len {
            errors.push(format!(
                "{}: subgroup `{}` says {} instructions but lists {}",
                db.groups[sg.group].source, sg.id, sg.count, sg.len
            ));
        }
    }
}

/// Decode indexes by opcode, then by a hash of the other fixed fields: every instruction
/// sharing an opcode must have the same fixed fields.
fn check_decode_index(db: &Database, errors: &mut Vec<String>) {
    let mut by_opcode: BTreeMap<u64, Vec<&crate::Instruction>> = BTreeMap::new();
    for ins in &db.instructions {
        if let Some(&(_, op)) = ins.fixed.iter().find(|(n, _)| n == "opcode") {
            by_opcode.entry(op).or_default().push(ins);
        }
    }
    for (op, list) in by_opcode {
        let first = list[0];
        for ins in &list[1..] {
            if ins.mask != first.mask || ins.width != first.width {
                errors.push(format!(
                    "{}: instruction `{}`: opcode {op:#x} is shared with `{}`, but their fixed fields differ",
                    ins.source, ins.mnemonic, first.mnemonic
                ));
            }
        }
    }
}

/// Section 2.3: no two same-width encodings may match one word.
fn check_overlaps(db: &Database, errors: &mut Vec<String>) {
    let n = db.instructions.len();
    for i in 0..n {
        let a = &db.instructions[i];
        let ma = a.mask | a.zero;
        for b in &db.instructions[i + 1..] {
            if a.width != b.width {
                continue;
            }
            let mb = b.mask | b.zero;
            // A word matches both iff the two patterns agree on every bit both constrain.
            if (a.match_bits ^ b.match_bits) & ma & mb == 0 {
                errors.push(format!(
                    "{}: instruction `{}` overlaps `{}` ({}): one word can match both",
                    b.source, b.mnemonic, a.mnemonic, a.source
                ));
            }
        }
    }
}

/// The `op` and `memory` keys: what the model's semantics are derived from, so a mistake
/// here is a wrong operation, not a cosmetic one.
fn check_execution_facts(db: &Database, ins: &Instruction, at: &str, errors: &mut Vec<String>) {
    let ident = !ins.op.is_empty()
        && ins
            .op
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase())
        && ins
            .op
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ident {
        errors.push(format!(
            "{at}: op `{}` is not a lowercase identifier",
            ins.op
        ));
    }
    let format = db.formats[ins.format].name.as_str();
    let asynchronous = ins.latency.starts_with("async:");
    let Some(m) = &ins.memory else {
        if matches!(format, "M" | "UM") {
            errors.push(format!("{at}: a memory instruction needs `memory`"));
        }
        return;
    };
    if !ins.provisional || !asynchronous {
        errors.push(format!(
            "{at}: `memory` on an instruction that is not a provisional asynchronous one"
        ));
    }
    let address_ok = |a: &str| matches!(a, "global" | "a64" | "shared" | "uniform");
    let size_ok = |s: u32| matches!(s, 1 | 2 | 4 | 8 | 16 | 32);
    let fields = (
        m.address.as_deref(),
        m.size,
        m.part.as_deref(),
        m.atomic.as_deref(),
    );
    let ok = match (m.access.as_str(), fields) {
        ("invalidate" | "writeback", (None, None, None, None)) => !m.signed && !m.returns,
        ("load", (Some(a), Some(s), part, None)) => {
            address_ok(a)
                && size_ok(s)
                && !m.returns
                && match part {
                    None => true,
                    Some("low16" | "high16") => s == 2 && !m.signed,
                    Some(_) => false,
                }
        }
        ("store", (Some(a), Some(s), None, None)) => {
            address_ok(a) && a != "uniform" && size_ok(s) && !m.signed && !m.returns
        }
        ("atomic", (Some("global" | "shared"), Some(4), None, Some(op))) => {
            !m.signed
                && matches!(
                    op,
                    "add"
                        | "sub"
                        | "smin"
                        | "umin"
                        | "smax"
                        | "umax"
                        | "and"
                        | "or"
                        | "xor"
                        | "swap"
                        | "cmpswap"
                )
        }
        _ => false,
    };
    if !ok {
        errors.push(format!("{at}: `memory` {m:?} is not a valid access"));
    }
}
