//! Run control: ending a launch early from outside it. A [`CancelFlag`] set by another
//! thread (a signal handler, a debugger, a binding's caller) or a tracer whose sink failed
//! or filled up stops every warp at its next check; the launch then reports
//! [`Interrupt`] instead of pretending the run finished. Warps stopped this way stay
//! `Running` with their state intact, so a caller may inspect or resume them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Instructions a warp executes between two looks at the cancellation flag. The look is
/// folded into the step-limit comparison the loop makes anyway (the loop compares against
/// the nearer of the step limit and the next check), so the check costs nothing per
/// instruction; 4096 instructions take microseconds, so a cancel is seen at once.
pub const CANCEL_CHECK_INTERVAL: u64 = 4096;

/// A shared flag that asks a running launch to stop. Clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A new flag, not set.
    pub fn new() -> CancelFlag {
        CancelFlag::default()
    }

    /// Wrap an existing flag, e.g. one a signal handler sets (`signal_hook::flag`).
    pub fn from_arc(flag: Arc<AtomicBool>) -> CancelFlag {
        CancelFlag(flag)
    }

    /// Ask every launch holding this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelFlag::cancel`] was called on this flag or a clone of it.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The underlying flag.
    pub fn as_atomic(&self) -> &AtomicBool {
        &self.0
    }
}

/// Two flags are equal when they are the same flag (so `LaunchConfig` stays comparable).
impl PartialEq for CancelFlag {
    fn eq(&self, other: &CancelFlag) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CancelFlag {}

/// A flag nobody sets: what the run loops check when no [`CancelFlag`] was given.
pub(crate) static NEVER: AtomicBool = AtomicBool::new(false);

/// Why a launch stopped before every warp had finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// The [`CancelFlag`] was set.
    Cancelled,
    /// The trace reached its byte cap ([`crate::WriteTracer::with_max_bytes`]); the trace
    /// ends with a record saying so.
    TraceLimit {
        /// The cap, in bytes.
        max_bytes: u64,
    },
    /// Writing the trace failed; the error is returned with the trace writer.
    TraceWriteFailed,
}

impl std::fmt::Display for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Interrupt::Cancelled => write!(f, "the run was cancelled"),
            Interrupt::TraceLimit { max_bytes } => {
                write!(f, "the trace reached its limit of {max_bytes} bytes")
            }
            Interrupt::TraceWriteFailed => write!(f, "the trace could not be written"),
        }
    }
}
