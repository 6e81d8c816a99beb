//! A test case: the source, the launch, the arguments and the expected final buffers, and
//! how to hand it to `warpkit run`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::args::{Arg, ArgValue};
use crate::ast::{Space, Type};
use crate::config::Config;
use crate::interp::trap::Trap;

/// Why no test case came out.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration is unusable.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The interpreter observed undefined behaviour in the generated program: a bug of
    /// the generator (or of the interpreter), reproducible with the seed.
    #[error("seed {seed}: the generated program has undefined behaviour: {trap}")]
    Trap {
        /// The seed.
        seed: u64,
        /// What the interpreter observed.
        trap: Box<Trap>,
        /// The program.
        program: String,
    },
}

/// One differential test: run `kernel` of `source` over `grid` × `block` with `args`; every
/// `__global` buffer must end with the bytes in `expected`.
#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    /// The seed it was generated from.
    pub seed: u64,
    /// OpenCL C source with one or more kernels.
    pub source: String,
    /// The kernel to run.
    pub kernel: String,
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Work-items per workgroup per dimension (the local size).
    pub block: [u32; 3],
    /// Arguments in the kernel's parameter order.
    pub args: Vec<Arg>,
    /// Final bytes of every `__global` buffer parameter, by parameter name, in parameter
    /// order.
    pub expected: Vec<(String, Vec<u8>)>,
}

/// The generated program of a seed, its launch and arguments, before it is run (what
/// [`generate`] builds a [`TestCase`] from).
pub use crate::gen::program::Generated;

/// The program, launch and arguments of `seed` (deterministic).
pub fn generate_program(seed: u64, config: &Config) -> Result<Generated, Error> {
    config.validate().map_err(Error::Config)?;
    Ok(crate::gen::generate(seed, config))
}

/// The test case of `seed`: the same seed and configuration always give a byte-identical
/// case. The expected buffers come from the reference interpreter.
pub fn generate(seed: u64, config: &Config) -> Result<TestCase, Error> {
    let g = generate_program(seed, config)?;
    let source = crate::print::program(&g.program);
    let values: Vec<ArgValue> = g.args.iter().map(|a| a.value.clone()).collect();
    let finals = crate::interp::run(
        &g.program,
        g.kernel,
        g.grid,
        g.block,
        &values,
        &Default::default(),
    )
    .map_err(|trap| Error::Trap {
        seed,
        trap: Box::new(trap),
        program: source.clone(),
    })?;
    let f = &g.program.functions[g.kernel as usize];
    let mut expected = Vec::new();
    for (i, &pv) in f.params.iter().enumerate() {
        let d = &f.vars[pv as usize];
        if let Type::Ptr {
            space: Space::Global,
            ..
        } = g.program.resolve(&d.ty)
        {
            let bytes = finals[i]
                .clone()
                .expect("global pointer parameters get buffers");
            expected.push((d.name.clone(), bytes));
        }
    }
    Ok(TestCase {
        seed,
        source,
        kernel: f.name.clone(),
        grid: g.grid,
        block: g.block,
        args: g.args,
        expected,
    })
}

/// The command line of a test case and where its outputs go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliRun {
    /// Arguments after the program name: `run FILE.cl --kernel K --grid X,Y,Z --block
    /// X,Y,Z --arg NAME=VALUE ... --out NAME=FILE ...`.
    pub args: Vec<OsString>,
    /// Each `__global` buffer's output file, in the order of [`TestCase::expected`].
    pub outputs: Vec<(String, PathBuf)>,
}

/// A difference between a run's buffers and the expected ones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// A buffer is missing or has another length.
    #[error("buffer `{name}`: {what}")]
    Shape {
        /// The buffer.
        name: String,
        /// What is wrong.
        what: String,
    },
    /// Bytes differ.
    #[error("buffer `{name}` byte {offset}: expected {expected:02x?}, got {actual:02x?}{hint}")]
    Bytes {
        /// The buffer.
        name: String,
        /// First differing byte.
        offset: usize,
        /// The expected 8 bytes from the aligned word around it.
        expected: Vec<u8>,
        /// The actual ones.
        actual: Vec<u8>,
        /// Which work-item wrote it, for the checksum buffer.
        hint: String,
    },
}

/// The spelling of a floating argument: a C99 hex float, exact.
fn float_arg(v: f64) -> String {
    crate::print::hex_float(v)
}

impl TestCase {
    /// Writes the source and the input buffers into `dir` (which must exist) and returns
    /// the `warpkit run` arguments that reproduce the case, with `--out` files in `dir`:
    /// buffers as `@FILE` (or `buf:N` when zero-filled), `__local` pointers as `local:N`,
    /// integers in decimal, floats as hex float literals.
    pub fn cli_args(&self, dir: &Path) -> std::io::Result<CliRun> {
        let source = dir.join(format!("clsmith-{}.cl", self.seed));
        std::fs::write(&source, &self.source)?;
        let dims = |d: [u32; 3]| format!("{},{},{}", d[0], d[1], d[2]);
        let mut args: Vec<OsString> = vec![
            "run".into(),
            source.into_os_string(),
            "--kernel".into(),
            self.kernel.clone().into(),
            "--grid".into(),
            dims(self.grid).into(),
            "--block".into(),
            dims(self.block).into(),
        ];
        for a in &self.args {
            let value: OsString = match &a.value {
                ArgValue::Buffer(bytes) if bytes.iter().all(|&b| b == 0) => {
                    format!("{}=buf:{}", a.name, bytes.len()).into()
                }
                ArgValue::Buffer(bytes) => {
                    let path = dir.join(format!("{}.in.bin", a.name));
                    std::fs::write(&path, bytes)?;
                    let mut s = OsString::from(format!("{}=@", a.name));
                    s.push(path.as_os_str());
                    s
                }
                ArgValue::Local(n) => format!("{}=local:{n}", a.name).into(),
                ArgValue::Int { value, .. } => format!("{}={value}", a.name).into(),
                ArgValue::F32(x) => format!("{}={}", a.name, float_arg(*x as f64)).into(),
                ArgValue::F64(x) => format!("{}={}", a.name, float_arg(*x)).into(),
            };
            args.push("--arg".into());
            args.push(value);
        }
        let mut outputs = Vec::new();
        for (name, _) in &self.expected {
            let path = dir.join(format!("{name}.out.bin"));
            let mut s = OsString::from(format!("{name}="));
            s.push(path.as_os_str());
            args.push("--out".into());
            args.push(s);
            outputs.push((name.clone(), path));
        }
        Ok(CliRun { args, outputs })
    }

    /// Compares final buffers (by name) with the expected ones; the first difference.
    pub fn check(&self, actual: &[(String, Vec<u8>)]) -> Result<(), Mismatch> {
        for (name, want) in &self.expected {
            let Some((_, got)) = actual.iter().find(|(n, _)| n == name) else {
                return Err(Mismatch::Shape {
                    name: name.clone(),
                    what: "missing".into(),
                });
            };
            if got.len() != want.len() {
                return Err(Mismatch::Shape {
                    name: name.clone(),
                    what: format!("{} bytes, expected {}", got.len(), want.len()),
                });
            }
            if let Some(offset) = (0..want.len()).find(|&i| want[i] != got[i]) {
                let word = offset / 8 * 8;
                let end = (word + 8).min(want.len());
                let hint = if name == "out" {
                    format!(" (checksum of work-item {} in linear order)", offset / 8)
                } else {
                    String::new()
                };
                return Err(Mismatch::Bytes {
                    name: name.clone(),
                    offset,
                    expected: want[word..end].to_vec(),
                    actual: got[word..end].to_vec(),
                    hint,
                });
            }
        }
        Ok(())
    }

    /// Reads a run's `--out` files and compares them with the expected buffers.
    pub fn check_files(&self, run: &CliRun) -> Result<(), Mismatch> {
        let mut actual = Vec::new();
        for (name, path) in &run.outputs {
            match std::fs::read(path) {
                Ok(bytes) => actual.push((name.clone(), bytes)),
                Err(e) => {
                    return Err(Mismatch::Shape {
                        name: name.clone(),
                        what: format!("cannot read {}: {e}", path.display()),
                    })
                }
            }
        }
        self.check(&actual)
    }
}
