//! Compiled OpenCL C run on the functional model: the end-to-end harness the tests of
//! generated code share.

use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig};

/// Compile `src`, assemble, launch with `args`; the buffers by name.
pub fn run_cl(src: &str, cfg: LaunchConfig, args: Vec<(&str, ArgValue)>) -> Vec<(String, Vec<u8>)> {
    run_cl_with(src, &warpkit_cc::Options::default(), cfg, args)
}

/// [`run_cl`] with compiler options.
pub fn run_cl_with(
    src: &str,
    opts: &warpkit_cc::Options,
    cfg: LaunchConfig,
    args: Vec<(&str, ArgValue)>,
) -> Vec<(String, Vec<u8>)> {
    let compiled =
        warpkit_cc::compile_source("k.cl", src, opts).unwrap_or_else(|f| panic!("{}", f.render()));
    let text = compiled.assembly;
    let scratch = text
        .lines()
        .find_map(|l| l.split("scratch=").nth(1))
        .map_or(0, |rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        });
    let cfg = LaunchConfig {
        scratch_bytes: scratch,
        ..cfg
    };
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(".kernel") && !l.trim_start().starts_with(".param"))
        .map(|l| format!("{l}\n"))
        .collect();
    let program = warpkit_asm::assemble(&stripped, "k.s")
        .unwrap_or_else(|e| panic!("{}\n{text}", e.render(&stripped)));
    let prog = warpkit_sim::Program::with_data(program.text, program.data);
    let args = args
        .into_iter()
        .map(|(n, v)| Arg {
            name: n.into(),
            value: v,
        })
        .collect();
    let r = launch(&prog, &cfg, args).unwrap();
    assert!(r.ok(), "traps: {:?}\n{text}", r.traps);
    assert!(r.hazards.is_empty(), "hazards: {:?}\n{text}", r.hazards);
    eprintln!("{text}");
    r.buffers
        .iter()
        .map(|b| (b.name.clone(), b.bytes.to_vec()))
        .collect()
}

/// The final bytes of buffer `name` of a [`run_cl`] result.
pub fn buffer<'a>(out: &'a [(String, Vec<u8>)], name: &str) -> &'a [u8] {
    &out.iter().find(|(n, _)| n == name).expect("buffer").1
}
