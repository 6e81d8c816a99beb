//! The ISA database as JSON: what `warpkit spec --json` prints and `warpkit.spec()` returns.

use serde_json::{json, Map, Value};
use warpkit_isa::*;

fn field_json(f: &FieldDef) -> Value {
    json!({"name": f.name, "msb": f.msb, "lsb": f.lsb})
}

/// The whole database: formats, operand types, syntax kinds, CSRs, counters, flags, groups
/// and instructions with every field of the seed tables.
pub fn database_json() -> Value {
    let formats: Vec<Value> = FORMATS
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "width": f.width,
                "purpose": f.purpose,
                "fields": f.fields.iter().map(field_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let types: Vec<Value> = OPERAND_TYPES
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "class": t.class.name(),
                "bits": t.bits,
                "scale": t.scale,
                "regs": t.regs,
                "align": t.align,
                "half": t.half,
                "pc_relative": t.pc_relative,
                "description": t.description,
                "values": t.values.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
                "reserved": t.reserved.map(|(lo, hi)| json!([lo, hi])),
            })
        })
        .collect();
    let kinds: Vec<Value> = KINDS
        .iter()
        .map(|k| {
            json!({
                "kind": k.kind,
                "type": k.ty.name,
                "regs": k.regs,
                "access": match k.access {
                    Access::None => Value::Null,
                    Access::WriteOrRead => json!("write-or-read"),
                    Access::ReadWrite => json!("read-write"),
                },
                "optional": k.optional,
                "keyed": k.keyed,
                "default": k.default,
                "modifier": match k.modifier {
                    Modifier::None => Value::Null,
                    Modifier::Neg => json!("neg"),
                    Modifier::Abs => json!("abs"),
                    Modifier::Switch => json!("switch"),
                },
                "provisional": k.provisional,
            })
        })
        .collect();
    let csrs: Vec<Value> = CSRS
        .iter()
        .map(|c| {
            json!({
                "number": c.number,
                "name": c.name,
                "access": if c.writable { "rw" } else { "r" },
                "meaning": c.meaning,
                "reset": c.reset,
                "reset_note": c.reset_note,
            })
        })
        .collect();
    let counters: Vec<Value> = COUNTERS
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "bits": c.bits,
                "max_outstanding": c.max_outstanding,
                "order": if c.in_order { "in-order" } else { "out-of-order" },
                "covers": c.covers,
            })
        })
        .collect();
    let flags: Vec<Value> = FLAG_NAMES
        .iter()
        .map(|(n, d)| json!({"name": n, "meaning": d}))
        .collect();
    let groups: Vec<Value> = GROUPS
        .iter()
        .map(|g| {
            json!({
                "group": g.group,
                "title": g.title,
                "unit": g.unit,
                "provisional": g.provisional,
                "source": g.source,
                "subgroups": SUBGROUPS.iter()
                    .filter(|sg| GROUPS[sg.group as usize].group == g.group)
                    .map(|sg| json!({"id": sg.id, "title": sg.title, "count": sg.len}))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let instructions: Vec<Value> = INSTRUCTIONS.iter().map(instruction_json).collect();
    json!({
        "isa": "warpkit GPU ISA v0.1",
        "formats": formats,
        "operand_types": types,
        "kinds": kinds,
        "csrs": csrs,
        "counters": counters,
        "flags": flags,
        "groups": groups,
        "instructions": instructions,
    })
}

/// One instruction's record, as it appears in `database_json()["instructions"]`.
pub fn instruction_json(d: &InstrDef) -> Value {
    let mut fixed = Map::new();
    for (n, v) in d.fixed {
        fixed.insert((*n).to_string(), json!(v));
    }
    let operands: Vec<Value> = d
        .operands
        .iter()
        .map(|o| {
            json!({
                "name": o.name,
                "kind": o.kind.kind,
                "type": o.kind.ty.name,
                "field": {"msb": o.field.msb, "lsb": o.field.lsb},
                "role": match o.role {
                    Role::Value => "value",
                    Role::Read => "read",
                    Role::Write => "write",
                    Role::ReadWrite => "read-write",
                },
            })
        })
        .collect();
    let sg = &SUBGROUPS[d.subgroup as usize];
    let lower = |x: &dyn std::fmt::Debug| format!("{x:?}").to_lowercase();
    let memory = d.memory.map(|m| {
        json!({
            "access": lower(&m.access),
            "address": lower(&m.address),
            "size": m.size,
            "signed": m.signed,
            "part": lower(&m.part),
            "atomic": m.atomic.map(|a| lower(&a)),
            "returns": m.returns,
        })
    });
    json!({
        "mnemonic": d.mnemonic,
        "family": d.family,
        "op": d.operation,
        "memory": memory,
        "format": d.format.name,
        "width": d.width,
        "fixed": fixed,
        "operands": operands,
        "latency": d.latency_text,
        "semantics": d.semantics,
        "flags": d.flag_names.to_vec(),
        "group": d.group,
        "subgroup": sg.id,
        "subgroup_title": sg.title,
        "provisional": d.provisional,
        "mask": format!("{:#x}", d.mask),
        "match": format!("{:#x}", d.match_bits),
        "zero": format!("{:#x}", d.zero),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_every_entry_with_the_issue_shape() {
        let v = database_json();
        assert_eq!(v["formats"].as_array().unwrap().len(), 28);
        let ins = v["instructions"].as_array().unwrap();
        let g1: Vec<_> = ins.iter().filter(|i| i["group"] == 1).collect();
        assert_eq!(g1.len(), 241);
        let add = &g1[0];
        assert_eq!(add["mnemonic"], "add");
        assert_eq!(add["format"], "R");
        assert_eq!(add["width"], 32);
        assert_eq!(add["fixed"], json!({"opcode": 2, "f4": 0}));
        assert_eq!(add["operands"][0]["name"], "rd");
        assert_eq!(add["operands"][0]["kind"], "v");
        assert_eq!(add["latency"], "fixed:4");
        assert_eq!(add["semantics"], "d = s1 + s2");
        assert_eq!(add["flags"], json!([]));
        assert_eq!(add["provisional"], false);
        let cmp = g1.iter().find(|i| i["mnemonic"] == "cmp.eq.i64").unwrap();
        assert_eq!(cmp["flags"], json!(["re", "ur", "p64"]));
        assert_eq!(cmp["operands"][1]["kind"], "vp^2");
        // Flags keep the seed's spelling order ("ei eb br cd re"), not bit order.
        let bexecz = g1.iter().find(|i| i["mnemonic"] == "bexecz").unwrap();
        assert_eq!(bexecz["flags"], json!(["ei", "eb", "br", "cd", "re"]));
        let jmp = g1.iter().find(|i| i["mnemonic"] == "jmp").unwrap();
        assert_eq!(jmp["operands"][0]["kind"], "o22");
        assert_eq!(jmp["operands"][0]["type"], "br22");
        assert_eq!(v["csrs"].as_array().unwrap().len(), 21);
        let vm = &v["counters"][0];
        assert_eq!(
            (vm["name"].clone(), vm["max_outstanding"].clone()),
            (json!("vm"), json!(62))
        );
        assert!(ins
            .iter()
            .filter(|i| i["group"] != 1)
            .all(|i| i["provisional"] == true));
    }
}
