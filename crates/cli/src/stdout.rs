//! Standard output with every write error accounted for. `outln!`/`out!` go through
//! [`write_fmt`]: the first error is kept, later writes are skipped, and `main` turns it
//! into the exit status with [`failure`] — a closed pipe (`warpkit spec --json | head`)
//! ends quietly with status 141 (128 + SIGPIPE, what the shell reports for coreutils and
//! objdump there); any other error (`> /dev/full`) is reported and exits 1.

use crate::failure::Failure;
use std::io::{self, Write};
use std::sync::Mutex;

/// Exit status when stdout's reader has gone: 128 + SIGPIPE.
pub const EXIT_CLOSED_PIPE: u8 = 141;

static FIRST_ERROR: Mutex<Option<io::Error>> = Mutex::new(None);

fn first_error() -> std::sync::MutexGuard<'static, Option<io::Error>> {
    FIRST_ERROR.lock().unwrap_or_else(|p| p.into_inner())
}

/// Write to stdout unless an earlier write failed; keep the first error.
pub fn write_fmt(args: std::fmt::Arguments<'_>) {
    let mut err = first_error();
    if err.is_some() {
        return;
    }
    if let Err(e) = io::stdout().lock().write_fmt(args) {
        *err = Some(e);
    }
}

/// The failure for an error writing stdout (or an output given as `-`).
pub fn write_failure(e: &io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::Exit(EXIT_CLOSED_PIPE)
    } else {
        Failure::Runtime(format!("cannot write to stdout: {e}"))
    }
}

/// Flush stdout; the failure of the first write that went wrong, if any.
pub fn failure() -> Option<Failure> {
    let mut err = first_error();
    if err.is_none() {
        if let Err(e) = io::stdout().lock().flush() {
            *err = Some(e);
        }
    }
    err.as_ref().map(write_failure)
}
