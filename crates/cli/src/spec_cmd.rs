//! `warpkit spec`: the ISA database, as JSON (`--json`) or as a one-screen summary.

use crate::Outcome;
use warpkit_host::spec::database_json;
use warpkit_isa::*;

#[derive(clap::Args)]
pub struct Args {
    /// Print the whole database as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Outcome {
    if args.json {
        let text = serde_json::to_string_pretty(&database_json()).expect("JSON of static tables");
        outln!("{text}");
    } else {
        out!("{}", summary());
    }
    Ok(())
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
