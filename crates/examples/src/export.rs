//! An example's case as plain files, so that another implementation (a native OpenCL run of
//! the same `.cl` source, an RTL test bench) can run exactly the launches the model ran and
//! compare its outputs with the model's: `warpkit examples NAME --save-cases DIR`, read by
//! `bench/opencl_host.c`.
//!
//! The manifest, `case.txt`, is line-oriented text, one record per line, fields separated by
//! single spaces (names are identifiers, files are names in the same directory):
//!
//! ```text
//! warpkit-case 1
//! example opencl/reduce
//! source examples/opencl/reduce.cl
//! kernel reduce
//! stage 0 grid 513 1 1 block 256 1 1 args 3
//! arg in bytes stage0-in.bin
//! arg partial zeroed 2052
//! arg n int 8388608
//! stage 1 grid 1 1 1 block 256 1 1 args 3
//! arg in output 0 partial 2052
//! arg total zeroed 4
//! arg n int 513
//! check 0 partial words 513 ulps 0 file check0-partial.bin
//! check 1 total words 1 ulps 0 file check1-total.bin
//! ```
//!
//! `arg` records follow their `stage` record, in slot order. `int` values are the slot's
//! 64 bits in decimal (a 32-bit parameter takes the low half; a `float` its bits).
//! `output S NAME LEN` is the first LEN bytes of buffer NAME as stage S left it. Each
//! `check` names a buffer the example checks, how many words of it, the tolerance of its
//! reference in f32 units in the last place (0: exact), and the file holding the whole
//! buffer as the model left it.

use crate::{Case, Example, Expected, Outputs, StageArg};
use warpkit_sim::launch::LaunchResult;

/// One file of an exported case: its name in the case's directory and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseFile {
    /// A plain file name (no directory part).
    pub name: String,
    /// The bytes to write.
    pub bytes: Vec<u8>,
}

/// The manifest's name in an exported case's directory.
pub const MANIFEST: &str = "case.txt";

impl Example {
    /// `case`, which ran as `results` (one per stage, from [`Example::launch_stages`]), as
    /// the files of its directory: the manifest ([`MANIFEST`]), each input buffer, and the
    /// model's contents of each buffer the example checks (its fixed references and, for
    /// the kernels that derive more from their own outputs, those).
    pub fn case_files(&self, case: &Case, results: &[LaunchResult]) -> Vec<CaseFile> {
        let mut files = Vec::new();
        let mut manifest = String::from("warpkit-case 1\n");
        manifest.push_str(&format!("example {}\n", self.name));
        manifest.push_str(&format!("source {}\n", self.path()));
        manifest.push_str(&format!("kernel {}\n", self.kernel()));
        for (index, stage) in case.stages.iter().enumerate() {
            let [gx, gy, gz] = stage.grid;
            let [bx, by, bz] = stage.block;
            manifest.push_str(&format!(
                "stage {index} grid {gx} {gy} {gz} block {bx} {by} {bz} args {}\n",
                stage.args.len()
            ));
            for (name, value) in &stage.args {
                let record = match value {
                    StageArg::Int(v) => format!("int {v}"),
                    StageArg::Bytes(bytes) => {
                        let file = format!("stage{index}-{name}.bin");
                        files.push(CaseFile {
                            name: file.clone(),
                            bytes: bytes.clone(),
                        });
                        format!("bytes {file}")
                    }
                    StageArg::Zeroed(n) => format!("zeroed {n}"),
                    StageArg::Output { stage, buffer, len } => {
                        let len = len.unwrap_or_else(|| {
                            results
                                .get(*stage)
                                .and_then(|r| r.buffer(buffer))
                                .map_or(0, |b| b.len())
                        });
                        format!("output {stage} {buffer} {len}")
                    }
                };
                manifest.push_str(&format!("arg {name} {record}\n"));
            }
        }
        let outputs = Outputs { results };
        let mut checks: Vec<Expected> = case.expected.clone();
        if let Some(derive) = self.derive {
            checks.extend(derive(case, &outputs));
        }
        let mut written: Vec<(usize, String)> = Vec::new();
        for check in &checks {
            let file = format!("check{}-{}.bin", check.stage, check.buffer);
            if !written.contains(&(check.stage, check.buffer.clone())) {
                written.push((check.stage, check.buffer.clone()));
                let bytes = results
                    .get(check.stage)
                    .and_then(|r| r.buffer(&check.buffer))
                    .map(|b| b.to_vec())
                    .unwrap_or_default();
                files.push(CaseFile {
                    name: file.clone(),
                    bytes,
                });
            }
            manifest.push_str(&format!(
                "check {} {} words {} ulps {} file {file}\n",
                check.stage,
                check.buffer,
                check.words.len(),
                check.ulps
            ));
        }
        files.insert(
            0,
            CaseFile {
                name: MANIFEST.to_string(),
                bytes: manifest.into_bytes(),
            },
        );
        files
    }
}

#[cfg(test)]
mod tests {
    use crate::{find, Size};

    fn manifest(name: &str) -> (String, Vec<super::CaseFile>) {
        let example = find(name).expect("an example");
        let case = example.case(Size::Small);
        let code = example.code().expect("compiles");
        let results = example
            .launch_stages(&case, code, 1, false)
            .expect("launches");
        let files = example.case_files(&case, &results);
        assert_eq!(files[0].name, super::MANIFEST);
        let text = String::from_utf8(files[0].bytes.clone()).expect("text");
        (text, files)
    }

    #[test]
    fn a_two_stage_case_names_the_first_stage_output_the_second_takes() {
        let (text, files) = manifest("opencl/reduce");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "warpkit-case 1");
        assert!(
            lines.contains(&"source examples/opencl/reduce.cl"),
            "{text}"
        );
        assert!(lines.contains(&"kernel reduce"), "{text}");
        let stages: Vec<&&str> = lines.iter().filter(|l| l.starts_with("stage ")).collect();
        assert_eq!(stages.len(), 2, "{text}");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("arg in output 0 partial ")),
            "{text}"
        );
        // Every file the manifest names is among the files, and every input's bytes are
        // the case's.
        for line in &lines {
            let words: Vec<&str> = line.split(' ').collect();
            let named = match words.as_slice() {
                ["arg", _, "bytes", file] => Some(*file),
                [.., "file", file] => Some(*file),
                _ => None,
            };
            if let Some(file) = named {
                assert!(files.iter().any(|f| f.name == file), "{file} missing");
            }
        }
    }

    #[test]
    fn checks_hold_the_model_output_and_derived_checks_are_listed() {
        let (text, files) = manifest("opencl/softmax");
        let checks: Vec<&str> = text.lines().filter(|l| l.starts_with("check ")).collect();
        assert!(!checks.is_empty(), "{text}");
        // softmax derives its reference from the exponentials the kernel computed: the
        // derived checks follow the fixed ones.
        let example = find("opencl/softmax").expect("softmax");
        assert!(
            checks.len() > example.case(Size::Small).expected.len(),
            "{text}"
        );
        let check = files
            .iter()
            .find(|f| f.name.starts_with("check"))
            .expect("a check file");
        assert!(!check.bytes.is_empty());
    }
}
