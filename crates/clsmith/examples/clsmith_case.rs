//! Prints the test case of a seed: `cargo run -p warpkit-clsmith --example clsmith_case --
//! SEED [--host-c] [--dir DIR]`. With `--dir`, writes the source and input buffers there and
//! prints the `warpkit run` command line that reproduces the case; the reference interpreter's
//! buffers go there too, as NAME.expected.bin.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut seed = None;
    let mut dir = None;
    let mut config = warpkit_clsmith::Config::default();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--host-c" => config = warpkit_clsmith::Config::host_c(),
            "--dir" => dir = args.next(),
            s => match s.parse::<u64>() {
                Ok(v) => seed = Some(v),
                Err(_) => {
                    eprintln!("usage: clsmith_case SEED [--host-c] [--dir DIR]");
                    return ExitCode::from(2);
                }
            },
        }
    }
    let Some(seed) = seed else {
        eprintln!("usage: clsmith_case SEED [--host-c] [--dir DIR]");
        return ExitCode::from(2);
    };
    let case = match warpkit_clsmith::generate(seed, &config) {
        Ok(c) => c,
        Err(e) => {
            if let warpkit_clsmith::Error::Trap { program, .. } = &e {
                println!("{program}");
            }
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", case.source);
    println!(
        "// kernel {} grid {:?} block {:?}",
        case.kernel, case.grid, case.block
    );
    for a in &case.args {
        match &a.value {
            warpkit_clsmith::ArgValue::Buffer(b) => {
                println!("// arg {}: {} bytes", a.name, b.len())
            }
            v => println!("// arg {}: {v:?}", a.name),
        }
    }
    if let Some(dir) = dir {
        let dir = std::path::Path::new(&dir);
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
        match case.cli_args(dir) {
            Ok(run) => {
                let words: Vec<String> = run
                    .args
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect();
                println!("warpkit {}", words.join(" "));
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
        // The reference interpreter's buffers, for comparing a run by hand.
        for (name, bytes) in &case.expected {
            let path = dir.join(format!("{name}.expected.bin"));
            if let Err(e) = std::fs::write(&path, bytes) {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
