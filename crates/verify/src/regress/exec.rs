//! Running one case: every step is a `warpkit` subcommand (or the DUT's command) run as a
//! child process in the case's own scratch directory, with the plan's time limit.

use super::expand::{Case, Item};
use super::plan::{Against, Engine, Plan, Source};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A case's verdict and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    Fail(String),
    Error(String),
}

/// What running a case produced.
pub(crate) struct Ran {
    pub verdict: Verdict,
    /// The program the case ran, kept for coverage (directed file or generated program).
    pub program: Option<PathBuf>,
}

/// A finished child process.
struct Exit {
    code: Option<i32>,
    stderr: String,
}

/// At most this much of a tool's stderr goes into a message.
const STDERR_IN_MESSAGE: usize = 2000;

/// Run `case` of `plan` with the `warpkit` binary at `warpkit`, in the scratch directory
/// `dir` (created here, left for the caller to remove). Paths under `dir` are written as
/// `<work>` in messages, so a message does not depend on where the case ran.
pub(crate) fn run_case(plan: &Plan, case: &Case, warpkit: &Path, dir: &Path) -> Ran {
    if let Err(e) = std::fs::create_dir_all(dir) {
        return Ran {
            verdict: Verdict::Error(format!("cannot create a scratch directory: {e}")),
            program: None,
        };
    }
    let dir = &match std::path::absolute(dir) {
        Ok(d) => d,
        Err(e) => {
            return Ran {
                verdict: Verdict::Error(format!("{}: {e}", dir.display())),
                program: None,
            }
        }
    };
    let ctx = Ctx {
        plan,
        case,
        warpkit,
        dir,
        start: Instant::now(),
    };
    let (verdict, program) = ctx.run();
    let work = dir.display().to_string();
    let clean = |m: String| m.replace(&work, "<work>");
    let verdict = match verdict {
        Verdict::Pass => Verdict::Pass,
        Verdict::Fail(m) => Verdict::Fail(clean(m)),
        Verdict::Error(m) => Verdict::Error(clean(m)),
    };
    Ran { verdict, program }
}

struct Ctx<'a> {
    plan: &'a Plan,
    case: &'a Case,
    warpkit: &'a Path,
    dir: &'a Path,
    /// When the case began: the plan's timeout bounds the whole case, all its steps.
    start: Instant,
}

/// What a program run must end with: this exit code, or (generated programs with
/// `--traps`) whatever both sides agree on.
#[derive(Clone, Copy)]
enum Expect {
    Code(i32),
    Agree,
}

impl Ctx<'_> {
    fn suite(&self) -> &super::plan::Suite {
        &self.plan.suites[self.case.suite]
    }

    fn config(&self) -> &super::plan::Config {
        &self.plan.configs[self.case.config]
    }

    fn run(&self) -> (Verdict, Option<PathBuf>) {
        match &self.case.item {
            Item::Directed(i) => {
                let Source::Directed(tests) = &self.suite().source else {
                    unreachable!("a directed item belongs to a directed suite")
                };
                let test = &tests[*i];
                let expect = Expect::Code(test.exit);
                let v = match &self.suite().against {
                    Against::Expected => self.directed(test),
                    Against::Engines => self.engines(&test.file, expect),
                    Against::Dut(cmd) => self.dut(cmd, &test.file, expect),
                };
                (v, Some(test.file.clone()))
            }
            Item::Gen(seed) => {
                let program = match self.generate(*seed) {
                    Ok(p) => p,
                    Err(v) => return (v, None),
                };
                let expect = if self.config().gen.traps {
                    Expect::Agree
                } else {
                    Expect::Code(0)
                };
                let v = match &self.suite().against {
                    Against::Dut(cmd) => self.dut(cmd, &program, expect),
                    Against::Engines | Against::Expected => self.engines(&program, expect),
                };
                (v, Some(program))
            }
            Item::Vector(path) => (self.vector(path), None),
        }
    }

    /// Every command runs in the plan's directory, so a `dut:` command's relative paths
    /// mean what they do for the plan's other paths.
    fn exec(&self, label: &str, cmd: &mut Command) -> Result<Exit, Verdict> {
        if let Some(base) = self.plan.path.parent() {
            cmd.current_dir(base);
        }
        let left = self.plan.timeout.saturating_sub(self.start.elapsed());
        exec(
            cmd,
            self.dir,
            label,
            left,
            self.plan.timeout,
            label == "dut",
        )
    }

    /// `warpkit run PROGRAM` with this configuration, the engine given or the
    /// configuration's, `--out NAME=DIR/NAME.bin` for `outputs` and the state dumped to
    /// `DIR/state.json`.
    fn warpkit_run(
        &self,
        label: &str,
        program: &Path,
        engine: Option<Engine>,
        outputs: &[String],
    ) -> Result<(Exit, PathBuf), Verdict> {
        let out = self.dir.join(label);
        std::fs::create_dir_all(&out)
            .map_err(|e| Verdict::Error(format!("cannot create {}: {e}", out.display())))?;
        let mut cmd = Command::new(self.warpkit);
        cmd.args(["--quiet", "run"]).arg(program);
        if let Some(e) = engine.or(self.config().engine) {
            cmd.args(["--engine", e.name()]);
        }
        cmd.args(self.config().run_args());
        for o in outputs {
            cmd.arg("--out")
                .arg(format!("{o}={}", out.join(o).display()));
        }
        cmd.arg("--dump-state").arg(out.join("state.json"));
        let exit = self.exec(label, &mut cmd)?;
        if exit.code == Some(2) {
            return Err(Verdict::Error(format!(
                "warpkit run {}: bad input (exit 2): {}",
                program.display(),
                excerpt(&exit.stderr)
            )));
        }
        Ok((exit, out))
    }

    fn directed(&self, test: &super::plan::DirectedTest) -> Verdict {
        let names: Vec<String> = test.outputs.keys().cloned().collect();
        let (exit, out) = match self.warpkit_run("run", &test.file, None, &names) {
            Ok(r) => r,
            Err(v) => return v,
        };
        if exit.code != Some(test.exit) {
            return Verdict::Fail(format!(
                "warpkit run exited {}, expected {}: {}",
                code(exit.code),
                test.exit,
                excerpt(&exit.stderr)
            ));
        }
        if let Some(want) = &test.stderr {
            if !exit.stderr.contains(want.as_str()) {
                return Verdict::Fail(format!(
                    "stderr does not contain `{want}`: {}",
                    excerpt(&exit.stderr)
                ));
            }
        }
        for (name, golden) in &test.outputs {
            let expected = match std::fs::read(golden) {
                Ok(b) => b,
                Err(e) => return Verdict::Error(format!("{}: {e}", golden.display())),
            };
            match std::fs::read(out.join(name)) {
                Ok(got) if got == expected => {}
                Ok(got) => {
                    return Verdict::Fail(format!(
                        "buffer `{name}` differs from {}: {}",
                        golden.display(),
                        first_byte_difference(&expected, &got)
                    ))
                }
                Err(_) => return Verdict::Fail(format!("buffer `{name}` was not written")),
            }
        }
        Verdict::Pass
    }

    fn engines(&self, program: &Path, expect: Expect) -> Verdict {
        let outputs = &self.suite().outputs;
        let mut runs = Vec::new();
        for engine in [Engine::Jit, Engine::Interp] {
            match self.warpkit_run(engine.name(), program, Some(engine), outputs) {
                Ok(r) => runs.push((engine, r)),
                Err(v) => return v,
            }
        }
        for (engine, (exit, _)) in &runs {
            if let Expect::Code(c) = expect {
                if exit.code != Some(c) {
                    return Verdict::Fail(format!(
                        "{}: warpkit run exited {}, expected {c}: {}",
                        engine.name(),
                        code(exit.code),
                        excerpt(&exit.stderr)
                    ));
                }
            }
        }
        let (a, b) = (&runs[0].1, &runs[1].1);
        if a.0.code != b.0.code {
            return Verdict::Fail(format!(
                "the engines disagree: jit exited {}, interp {}",
                code(a.0.code),
                code(b.0.code)
            ));
        }
        let read = |d: &Path| std::fs::read_to_string(d.join("state.json")).ok();
        match (read(&a.1), read(&b.1)) {
            (Some(x), Some(y)) if x != y => {
                return Verdict::Fail(format!(
                    "the engines' state dumps differ: {}",
                    first_line_difference(&x, &y, "jit", "interp")
                ))
            }
            (Some(_), Some(_)) => {}
            _ => return Verdict::Error("warpkit run wrote no state dump".into()),
        }
        if a.0.code == Some(0) {
            for name in outputs {
                let x = std::fs::read(a.1.join(name));
                let y = std::fs::read(b.1.join(name));
                match (x, y) {
                    (Ok(x), Ok(y)) if x == y => {}
                    (Ok(x), Ok(y)) => {
                        return Verdict::Fail(format!(
                            "the engines' buffer `{name}` differs: {}",
                            first_byte_difference(&x, &y)
                        ))
                    }
                    _ => return Verdict::Error(format!("buffer `{name}` was not written")),
                }
            }
        }
        Verdict::Pass
    }

    /// A program DUT: `CMD PROGRAM OUTDIR [RUN OPTIONS...]` through `sh -c` must exit 0 and
    /// write `OUTDIR/NAME.bin` per compared buffer, equal to warpkit's.
    fn dut(&self, command: &str, program: &Path, expect: Expect) -> Verdict {
        let outputs = &self.suite().outputs;
        let (exit, out) = match self.warpkit_run("reference", program, None, outputs) {
            Ok(r) => r,
            Err(v) => return v,
        };
        if exit.code != Some(0) {
            let expected = matches!(expect, Expect::Code(c) if Some(c) == exit.code);
            let m = format!(
                "the reference run (warpkit run) exited {}, and a DUT is compared on clean runs only: {}",
                code(exit.code),
                excerpt(&exit.stderr)
            );
            return if expected {
                Verdict::Error(m)
            } else {
                Verdict::Fail(m)
            };
        }
        let dut_out = self.dir.join("dut");
        if let Err(e) = std::fs::create_dir_all(&dut_out) {
            return Verdict::Error(format!("cannot create {}: {e}", dut_out.display()));
        }
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("{command} \"$@\""))
            .arg("sh")
            .arg(program)
            .arg(&dut_out)
            .args(self.config().run_args());
        let d = match self.exec("dut", &mut cmd) {
            Ok(d) => d,
            Err(v) => return v,
        };
        if d.code != Some(0) {
            return Verdict::Fail(format!(
                "the DUT exited {}: {}",
                code(d.code),
                excerpt(&d.stderr)
            ));
        }
        for name in outputs {
            let want = std::fs::read(out.join(name)).unwrap_or_default();
            match std::fs::read(dut_out.join(format!("{name}.bin"))) {
                Ok(got) if got == want => {}
                Ok(got) => {
                    return Verdict::Fail(format!(
                        "the DUT's buffer `{name}` differs from warpkit's: {}",
                        first_byte_difference(&want, &got)
                    ))
                }
                Err(_) => {
                    return Verdict::Fail(format!("the DUT wrote no OUTDIR/{name}.bin"));
                }
            }
        }
        Verdict::Pass
    }

    /// `warpkit gen --seed S --count 1 -o DIR/gen [options]`: the program `DIR/gen/gen-S.s`.
    /// The directory is made first: `-o` naming a path that does not exist writes the one
    /// program to that file.
    fn generate(&self, seed: u64) -> Result<PathBuf, Verdict> {
        let out = self.dir.join("gen");
        std::fs::create_dir_all(&out)
            .map_err(|e| Verdict::Error(format!("cannot create {}: {e}", out.display())))?;
        let mut cmd = Command::new(self.warpkit);
        cmd.args([
            "--quiet",
            "gen",
            "--seed",
            &seed.to_string(),
            "--count",
            "1",
            "-o",
        ])
        .arg(&out)
        .args(self.config().gen.to_args());
        let exit = self.exec("gen", &mut cmd)?;
        if exit.code != Some(0) {
            return Err(Verdict::Error(format!(
                "warpkit gen --seed {seed} exited {}: {}",
                code(exit.code),
                excerpt(&exit.stderr)
            )));
        }
        let program = out.join(format!("gen-{seed}.s"));
        if !program.is_file() {
            return Err(Verdict::Error(format!(
                "warpkit gen --seed {seed} wrote no gen-{seed}.s"
            )));
        }
        Ok(program)
    }

    /// `warpkit conformance run VECTOR.json`: the one vector.
    fn vector(&self, path: &Path) -> Verdict {
        let jsonl = self.dir.join("conformance.jsonl");
        let mut cmd = Command::new(self.warpkit);
        cmd.args(["--quiet", "conformance", "run"])
            .arg(path)
            .arg("--jsonl")
            .arg(&jsonl);
        match (&self.suite().against, self.config().engine) {
            (Against::Dut(c), _) => {
                cmd.arg("--dut").arg(c);
            }
            (_, Some(e)) => {
                let own = format!(
                    "{} conformance dut --engine {}",
                    shell_quote(&self.warpkit.display().to_string()),
                    e.name()
                );
                cmd.arg("--dut").arg(own);
            }
            (_, None) => {}
        }
        let exit = match self.exec("conformance", &mut cmd) {
            Ok(e) => e,
            Err(v) => return v,
        };
        match exit.code {
            Some(0) => Verdict::Pass,
            Some(1) => {
                let lines = std::fs::read_to_string(&jsonl).unwrap_or_default();
                let mut mismatches = Vec::new();
                for line in lines.lines() {
                    if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                        if let Some(m) = v.get("mismatches").and_then(|m| m.as_array()) {
                            mismatches.extend(m.iter().map(|x| match x.as_str() {
                                Some(s) => s.to_string(),
                                None => x.to_string(),
                            }));
                        }
                    }
                }
                let shown: Vec<_> = mismatches.iter().take(20).cloned().collect();
                let more = mismatches.len().saturating_sub(shown.len());
                let mut m = format!("the vector does not match: {}", shown.join("; "));
                if more > 0 {
                    m.push_str(&format!("; and {more} more"));
                }
                if mismatches.is_empty() {
                    m = format!("the vector does not match: {}", excerpt(&exit.stderr));
                }
                Verdict::Fail(m)
            }
            c => Verdict::Error(format!(
                "warpkit conformance run exited {}: {}",
                code(c),
                excerpt(&exit.stderr)
            )),
        }
    }
}

/// Run `cmd` with stdin empty and stdout/stderr in `dir/label.out` and `dir/label.err`,
/// killing it once `left` (what remains of the case's `timeout`) has passed. A DUT (`own_group`) gets a process group of its own, so a timeout kills what its shell
/// started too; warpkit's own steps stay in ours, so an interrupt from the terminal reaches
/// them.
fn exec(
    cmd: &mut Command,
    dir: &Path,
    label: &str,
    left: Duration,
    timeout: Duration,
    own_group: bool,
) -> Result<Exit, Verdict> {
    let out_path = dir.join(format!("{label}.out"));
    let err_path = dir.join(format!("{label}.err"));
    let files =
        std::fs::File::create(&out_path).and_then(|o| Ok((o, std::fs::File::create(&err_path)?)));
    let (out, err) =
        files.map_err(|e| Verdict::Error(format!("cannot create {}: {e}", dir.display())))?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    #[cfg(unix)]
    if own_group {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .spawn()
        .map_err(|e| Verdict::Error(format!("cannot run {program}: {e}")))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() >= left => {
                if own_group {
                    kill_group(&child);
                }
                let _ = child.kill();
                let _ = child.wait();
                return Err(Verdict::Fail(format!(
                    "{label}: no result after the plan's timeout of {} s (killed)",
                    timeout.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(Verdict::Error(format!("waiting for {program}: {e}"))),
        }
    };
    let stderr =
        String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned();
    Ok(Exit {
        code: status.code(),
        stderr,
    })
}

fn kill_group(child: &std::process::Child) {
    #[cfg(unix)]
    {
        // The child leads its own process group: a DUT's `sh -c` and whatever it started
        // go with it.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = child;
}

fn code(c: Option<i32>) -> String {
    c.map(|c| c.to_string())
        .unwrap_or_else(|| "by a signal".to_string())
}

/// The tail of a tool's stderr, trimmed, for a message.
fn excerpt(stderr: &str) -> String {
    let t = stderr.trim();
    if t.is_empty() {
        return "(no output on stderr)".to_string();
    }
    if t.len() <= STDERR_IN_MESSAGE {
        return t.to_string();
    }
    let mut start = t.len() - STDERR_IN_MESSAGE;
    while !t.is_char_boundary(start) {
        start += 1;
    }
    format!("...{}", &t[start..])
}

fn first_line_difference(a: &str, b: &str, an: &str, bn: &str) -> String {
    let cut = |s: &str| -> String { s.chars().take(200).collect() };
    let (mut la, mut lb) = (a.lines(), b.lines());
    let mut n = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (x, y) => {
                return format!(
                    "line {n}: {an} `{}`, {bn} `{}`",
                    cut(x.unwrap_or("(end)")),
                    cut(y.unwrap_or("(end)"))
                )
            }
        }
    }
}

fn first_byte_difference(want: &[u8], got: &[u8]) -> String {
    match want.iter().zip(got).position(|(a, b)| a != b) {
        Some(i) => format!(
            "first difference at byte {i}: expected 0x{:02x}, got 0x{:02x}",
            want[i], got[i]
        ),
        None => format!("{} bytes expected, {} bytes written", want.len(), got.len()),
    }
}

/// `s` quoted for a POSIX shell (single quotes), unless it needs none.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-@:=+,%".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}
