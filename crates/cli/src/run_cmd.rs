//! `warpkit run`: assemble or load a kernel, run it on the functional model, report how each
//! warp stopped, and optionally dump the final state and a commit trace.

use crate::output::{read_input, write_output};
use crate::{Failure, Outcome};
use std::io::Write;
use std::path::{Path, PathBuf};
use warpkit_sim::trap::cause_name;
use warpkit_sim::{
    dump_state_json, Core, NoMemory, NoTrace, Program, RunSummary, TraceFormat, Warp, WarpStatus,
    Workgroup, WriteTracer, DEFAULT_MAX_STEPS,
};

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceFormatArg {
    /// JSON Lines, one object per executed instruction (docs/trace.md).
    Json,
    /// Compact human-readable lines, like Spike's --log-commits.
    Text,
}

#[derive(clap::Args)]
pub struct Args {
    /// The kernel: assembly source (.s), an ELF code object, or a raw binary (its bytes are
    /// the code, PC 0 = the first byte).
    pub file: PathBuf,
    /// After the run, write the state of every warp as JSON to PATH (`-` = stdout).
    #[arg(long, value_name = "PATH")]
    pub dump_state: Option<PathBuf>,
    /// Write the commit log to PATH (`-` = stdout).
    #[arg(long, value_name = "PATH")]
    pub trace: Option<PathBuf>,
    /// Form of the commit log.
    #[arg(long, value_enum, default_value = "json")]
    pub trace_format: TraceFormatArg,
    /// Stop a warp, with exit code 1, once it has executed this many instructions.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
}

fn is_source(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("s" | "S" | "asm")
    )
}

/// The code of the kernel at `path`.
fn load(path: &Path) -> Result<Vec<u8>, Failure> {
    let bytes = read_input(path)?;
    let name = path.display().to_string();
    if is_source(path) {
        return match warpkit_asm::assemble_bytes(&bytes, &name) {
            Ok(p) => Ok(p.text),
            Err(errors) => {
                let source = String::from_utf8_lossy(&bytes);
                eprint!("{}", errors.render(&source));
                Err(Failure::Exit(2))
            }
        };
    }
    let is_elf =
        bytes.starts_with(b"\x7fELF") || path.extension().and_then(|e| e.to_str()) == Some("elf");
    if is_elf {
        return warpkit_asm::load_object(&bytes)
            .map(|p| p.text)
            .map_err(|e| Failure::BadInput(format!("{name}: {e}")));
    }
    Ok(bytes)
}

fn open_trace(path: &Path) -> Result<Box<dyn Write>, Failure> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::BufWriter::new(std::io::stdout())));
    }
    let file = std::fs::File::create(path)
        .map_err(|e| Failure::BadInput(format!("cannot write {}: {e}", path.display())))?;
    Ok(Box::new(std::io::BufWriter::with_capacity(1 << 20, file)))
}

fn warp_name(w: &Warp) -> String {
    let [x, y, z] = w.id.workgroup;
    format!("workgroup ({x},{y},{z}) warp {}", w.id.warp)
}

pub fn run(args: Args) -> Outcome {
    if args.max_steps == 0 {
        return Err(Failure::BadInput("--max-steps must be at least 1".into()));
    }
    let text = load(&args.file)?;
    let prog = Program::new(text);
    let mut wg = Workgroup::new([0, 0, 0], &[u32::MAX]);
    let mut core = Core::default();
    let summary: RunSummary = match &args.trace {
        None => wg.run(
            &prog,
            &mut core,
            &mut NoMemory,
            &mut NoTrace,
            args.max_steps,
        ),
        Some(path) => {
            let format = match args.trace_format {
                TraceFormatArg::Json => TraceFormat::Json,
                TraceFormatArg::Text => TraceFormat::Text,
            };
            let mut tracer = WriteTracer::new(open_trace(path)?, format);
            let s = wg.run(&prog, &mut core, &mut NoMemory, &mut tracer, args.max_steps);
            tracer.finish().map_err(|e| {
                Failure::BadInput(format!("cannot write trace {}: {e}", path.display()))
            })?;
            s
        }
    };
    if let Some(path) = &args.dump_state {
        write_output(path, dump_state_json(&wg.warps, &core).as_bytes())?;
    }
    if summary.all_ended() {
        return Ok(());
    }
    for w in &wg.warps {
        match w.status {
            WarpStatus::Trapped(t) => eprintln!(
                "error: {} trapped: cause {} ({}) at pc {:#x}: `{}`, trapinfo {:#x}",
                warp_name(w),
                t.cause,
                cause_name(t.cause),
                t.pc,
                prog.disassemble(t.pc),
                t.info
            ),
            WarpStatus::StepLimit => eprintln!(
                "error: {} stopped at pc {:#x} after {} instructions: the step limit \
                 (--max-steps {}) was reached; raise it with --max-steps N if the program \
                 is not stuck in a loop",
                warp_name(w),
                w.pc,
                w.steps,
                args.max_steps
            ),
            _ => {}
        }
    }
    Err(Failure::Exit(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("warpkit-run-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    fn args(file: PathBuf) -> Args {
        Args {
            file,
            dump_state: None,
            trace: None,
            trace_format: TraceFormatArg::Json,
            max_steps: DEFAULT_MAX_STEPS,
        }
    }

    fn exit_code(o: Outcome) -> u8 {
        match o {
            Ok(()) => 0,
            Err(Failure::Exit(c)) => c,
            Err(Failure::Runtime(_)) => 1,
            Err(Failure::BadInput(_)) => 2,
        }
    }

    #[test]
    fn runs_source_and_dumps_state() {
        let src = tmp("ok.s");
        std::fs::write(&src, "laneid v1\numovi u2, 5\nendpgm\n").unwrap();
        let dump = tmp("ok.json");
        let trace = tmp("ok.jsonl");
        let mut a = args(src);
        a.dump_state = Some(dump.clone());
        a.trace = Some(trace.clone());
        assert_eq!(exit_code(run(a)), 0);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
        let w = &v["warps"][0];
        assert_eq!(w["pc"], 8);
        assert_eq!(w["u"][2], 5);
        assert_eq!(w["v"][1][31], 31);
        assert_eq!(w["trap"], serde_json::Value::Null);
        let t = std::fs::read_to_string(&trace).unwrap();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].contains("\"version\":1"));
    }

    #[test]
    fn trap_exits_1_and_is_dumped() {
        let src = tmp("trap.s");
        std::fs::write(&src, "nop\numov.l u1, 0xffffffff\ncsrw mode, u1\nendpgm\n").unwrap();
        let dump = tmp("trap.json");
        let mut a = args(src);
        a.dump_state = Some(dump.clone());
        assert_eq!(exit_code(run(a)), 1);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&dump).unwrap()).unwrap();
        assert_eq!(
            v["warps"][0]["trap"],
            serde_json::json!({"cause": 8, "pc": 12, "info": 4294967295u32})
        );
    }

    #[test]
    fn step_limit_exits_1() {
        let src = tmp("loop.s");
        std::fs::write(&src, "top:\n  jmp top\n").unwrap();
        let mut a = args(src);
        a.max_steps = 50;
        assert_eq!(exit_code(run(a)), 1);
    }

    #[test]
    fn bad_input_exits_2() {
        let src = tmp("bad.s");
        std::fs::write(&src, "add v1, v2\n").unwrap();
        assert_eq!(exit_code(run(args(src))), 2);
        assert_eq!(exit_code(run(args(tmp("missing.s")))), 2);
        let elf = tmp("bad.elf");
        std::fs::write(&elf, b"\x7fELF garbage").unwrap();
        assert_eq!(exit_code(run(args(elf))), 2);
    }

    #[test]
    fn raw_binary_is_code() {
        let bin = tmp("prog.bin");
        // nop; endpgm
        let mut bytes = Vec::new();
        for op in [warpkit_isa::Op::Nop, warpkit_isa::Op::Endpgm] {
            bytes.extend(warpkit_isa::Instr::from_raw(op, &[]).unwrap().to_bytes());
        }
        std::fs::write(&bin, bytes).unwrap();
        assert_eq!(exit_code(run(args(bin.clone()))), 0);
        std::fs::write(&bin, [0xff, 0xff, 0xff, 0xff]).unwrap();
        assert_eq!(exit_code(run(args(bin))), 1);
    }
}
