//! `warpkit spec`: the ISA database, as JSON (`--json`) or as a one-screen summary.

use crate::failure::{Failure, Outcome};
use serde_json::Value;
use warpkit_host::spec::{database_json, instruction_json};
use warpkit_isa::*;

#[derive(clap::Args)]
pub struct Args {
    /// Show only these instructions (format, fields, encoding diagram, operands, semantics,
    /// flags, provisional or not); with --json, their JSON records.
    #[arg(value_name = "MNEMONIC")]
    mnemonics: Vec<String>,
    /// Print the whole database (or the named instructions) as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Outcome {
    let mut defs = Vec::new();
    for m in &args.mnemonics {
        let op = Op::from_mnemonic(m).ok_or_else(|| {
            let close: Vec<&str> = INSTRUCTIONS
                .iter()
                .map(|d| d.mnemonic)
                .filter(|n| n.starts_with(m.split('.').next().unwrap_or(m)))
                .take(8)
                .collect();
            Failure::BadInput(if close.is_empty() {
                format!("no instruction `{m}`")
            } else {
                format!("no instruction `{m}`; similar: {}", close.join(", "))
            })
        })?;
        defs.push(op.def());
    }
    if args.json {
        let value = if defs.is_empty() {
            database_json()
        } else {
            Value::Array(defs.iter().map(|d| instruction_json(d)).collect())
        };
        let text = serde_json::to_string_pretty(&value).expect("JSON of static tables");
        outln!("{text}");
    } else if defs.is_empty() {
        out!("{}", summary());
    } else {
        for d in defs {
            out!("{}", instruction_text(d));
        }
    }
    Ok(())
}

/// One instruction for people: what `warpkit spec MNEMONIC` prints.
fn instruction_text(d: &InstrDef) -> String {
    let sg = &SUBGROUPS[d.subgroup as usize];
    let mut s = format!(
        "{}{}\n  family {}, format {} ({}-bit), group {} / {} {}\n",
        d.mnemonic,
        if d.provisional {
            "  (provisional: defined by warpkit, see docs/provisional.md)"
        } else {
            ""
        },
        d.family,
        d.format.name,
        d.width,
        d.group,
        sg.id,
        sg.title
    );
    let syntax: Vec<&str> = d.operands.iter().map(|o| o.name).collect();
    s += &format!("  syntax: {} {}\n", d.mnemonic, syntax.join(", "));
    // The encoding diagram: each field of the format, high bits first, with its fixed
    // value or the operand it holds.
    s += "  encoding:";
    for f in d.format.fields {
        let what = match d.fixed(f.name) {
            Some(v) => format!("{v:#x}"),
            None => d
                .operands
                .iter()
                .find(|o| o.field.msb == f.msb && o.field.lsb == f.lsb)
                .map_or_else(|| "0".to_string(), |o| o.name.to_string()),
        };
        s += &format!(" |{}[{}:{}]={what}", f.name, f.msb, f.lsb);
    }
    s += "|\n";
    s += &format!(
        "  mask {:#x}, match {:#x}, must-be-zero {:#x}\n",
        d.mask, d.match_bits, d.zero
    );
    s += "  operands:\n";
    for o in d.operands {
        let role = match o.role {
            Role::Value => "value",
            Role::Read => "read",
            Role::Write => "write",
            Role::ReadWrite => "read-write",
        };
        s += &format!(
            "    {:<6} {:<8} bits [{}:{}], {role}\n",
            o.name, o.kind.ty.name, o.field.msb, o.field.lsb
        );
    }
    s += &format!("  latency: {}\n", d.latency_text);
    s += &format!("  semantics: {}\n", d.semantics);
    let flags = if d.flag_names.is_empty() {
        "none".to_string()
    } else {
        d.flag_names.join(" ")
    };
    s += &format!("  flags: {flags}\n");
    s
}

fn summary() -> String {
    let specified = INSTRUCTIONS.iter().filter(|d| !d.provisional).count();
    let mut s = format!(
        "warpkit ISA v0.1 database: {} formats, {} operand types, {} CSRs, {} counters, {} instructions ({} specified, {} provisional)\n",
        FORMATS.len(),
        OPERAND_TYPES.len(),
        CSRS.len(),
        COUNTERS.len(),
        INSTRUCTIONS.len(),
        specified,
        INSTRUCTIONS.len() - specified
    );
    for g in &GROUPS {
        let n: usize = SUBGROUPS
            .iter()
            .filter(|sg| GROUPS[sg.group as usize].group == g.group)
            .map(|sg| usize::from(sg.len))
            .sum();
        s += &format!(
            "  group {:>3}{}: {} ({n} instructions, {})\n",
            g.group,
            if g.provisional { " (provisional)" } else { "" },
            g.title,
            g.source
        );
    }
    s += "Use --json for the whole database.\n";
    s
}
