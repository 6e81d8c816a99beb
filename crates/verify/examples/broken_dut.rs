//! A DUT with a planted bug: warpkit's model, except that it executes every instruction of
//! one variant as another (`broken_dut FROM TO VECTOR.json`, e.g. `broken_dut xor or`).
//! `warpkit conformance run DIR --dut "broken_dut xor or"` must fail exactly the vectors of
//! `xor`. Exit 2 on bad input.

use std::process::ExitCode;
use warpkit_isa::Op;
use warpkit_sim::Engine;
use warpkit_verify::conformance::plant::replace_op;
use warpkit_verify::vector::{run, Vector};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [from, to, path] = args.as_slice() else {
        eprintln!("usage: broken_dut FROM TO VECTOR.json");
        return ExitCode::from(2);
    };
    let (Some(from), Some(to)) = (Op::from_mnemonic(from), Op::from_mnemonic(to)) else {
        eprintln!("unknown mnemonic");
        return ExitCode::from(2);
    };
    let mut v = match Vector::load(std::path::Path::new(path)) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let Some(code) = replace_op(&v.program.code, from, to) else {
        eprintln!("the two variants differ in their operands");
        return ExitCode::from(2);
    };
    v.program.code = code;
    match run(&v, Engine::Interp) {
        Ok(state) => {
            println!("{}", serde_json::to_string(&state).expect("serialises"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
