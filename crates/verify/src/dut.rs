//! A design under test as a shell command (docs/conformance.md, "The DUT protocol"): the
//! command gets a vector file's path as its last argument and prints the post-state it
//! computes, a JSON object of the vector's `post` shape, on standard output.

use crate::vector::{State, Vector};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a DUT may take for one vector unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// A DUT command.
#[derive(Debug, Clone)]
pub struct Dut {
    cmd: String,
    timeout: Duration,
}

/// A DUT run that produced no usable state.
#[derive(Debug, thiserror::Error)]
pub enum DutError {
    /// The command could not be started, or the vector not written for it.
    #[error("cannot run the DUT `{cmd}`: {source}")]
    Spawn {
        /// The command.
        cmd: String,
        /// Why.
        source: std::io::Error,
    },
    /// It exited with a non-zero status (or was killed by a signal: `code` is `None`).
    #[error("the DUT exited with {}{}", code.map_or("a signal".to_string(), |c| format!("status {c}")), stderr_tail(stderr))]
    Exit {
        /// The exit status.
        code: Option<i32>,
        /// The end of what it wrote to standard error.
        stderr: String,
    },
    /// Its standard output is not a post-state.
    #[error("the DUT's output is not a state: line {line} column {column}: {message}")]
    BadOutput {
        /// 1-based line of its output.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// It ran longer than the timeout and was killed.
    #[error("the DUT did not finish within {0:?}")]
    Timeout(Duration),
}

fn stderr_tail(s: &str) -> String {
    let t = s.trim();
    if t.is_empty() {
        String::new()
    } else {
        let start = t.len().saturating_sub(2000);
        let start = (start..=t.len())
            .find(|&i| t.is_char_boundary(i))
            .unwrap_or(0);
        format!(": {}", &t[start..])
    }
}

impl Dut {
    /// The DUT run as `sh -c 'CMD "$0"' VECTOR.json`.
    pub fn new(cmd: &str) -> Dut {
        Dut {
            cmd: cmd.to_string(),
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Kill a run that takes longer than `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Dut {
        self.timeout = timeout;
        self
    }

    /// The command.
    pub fn command(&self) -> &str {
        &self.cmd
    }

    /// Run the DUT on `vector`, written to a temporary file for it.
    pub fn run(&self, vector: &Vector) -> Result<State, DutError> {
        let dir = std::env::temp_dir();
        let path = dir.join(format!(
            "warpkit-dut-{}-{}.json",
            std::process::id(),
            unique()
        ));
        std::fs::write(&path, vector.to_json()).map_err(|source| DutError::Spawn {
            cmd: self.cmd.clone(),
            source,
        })?;
        let r = self.run_file(&path);
        let _ = std::fs::remove_file(&path);
        r
    }

    /// Run the DUT on the vector file at `path`.
    pub fn run_file(&self, path: &Path) -> Result<State, DutError> {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("{} \"$0\"", self.cmd))
            .arg(path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group, so that a timeout ends the shell and whatever it started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|source| DutError::Spawn {
            cmd: self.cmd.clone(),
            source,
        })?;
        // Drained on threads so a DUT that writes much cannot block on a full pipe.
        let mut out = child.stdout.take().expect("piped");
        let mut err = child.stderr.take().expect("piped");
        let out_t = std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = out.read_to_end(&mut b);
            b
        });
        let err_t = std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = err.read_to_end(&mut b);
            b
        });
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if start.elapsed() > self.timeout => {
                    kill_group(child.id());
                    let _ = child.kill();
                    let _ = child.wait();
                    // The readers finish when the last process holding the pipes is gone;
                    // they are not waited for.
                    return Err(DutError::Timeout(self.timeout));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(source) => {
                    return Err(DutError::Spawn {
                        cmd: self.cmd.clone(),
                        source,
                    })
                }
            }
        };
        let stdout = out_t.join().unwrap_or_default();
        let stderr = String::from_utf8_lossy(&err_t.join().unwrap_or_default()).into_owned();
        if !status.success() {
            return Err(DutError::Exit {
                code: status.code(),
                stderr,
            });
        }
        serde_json::from_slice(&stdout).map_err(|e| DutError::BadOutput {
            line: e.line(),
            column: e.column(),
            message: crate::vector::json_message(&e),
        })
    }
}

/// Kill the process group `pgid` (the DUT's shell and its children).
fn kill_group(pgid: u32) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = pgid;
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
