//! SIGINT and SIGTERM while a kernel runs. The handlers only set flags (`signal-hook`): the
//! launch sees the cancellation flag within a few thousand instructions and returns, the
//! CLI then removes its temporary files on the ordinary path and exits 130 (SIGINT) or
//! 143 (SIGTERM), as a process killed by the signal would. A second signal of the same
//! kind ends the process at once.

use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use warpkit_sim::CancelFlag;

/// Exit status after SIGINT.
pub const EXIT_SIGINT: u8 = 130;
/// Exit status after SIGTERM.
pub const EXIT_SIGTERM: u8 = 143;

/// The flags the handlers set.
pub struct Interrupts {
    /// Set by either signal; handed to the launch.
    pub cancel: CancelFlag,
    term: Arc<AtomicBool>,
}

impl Interrupts {
    /// Install the handlers. Without them (an error from the OS) the run still works; a
    /// signal then ends the process the default way.
    pub fn install() -> Interrupts {
        let any = Arc::new(AtomicBool::new(false));
        let term = Arc::new(AtomicBool::new(false));
        for (signal, status) in [(SIGINT, EXIT_SIGINT), (SIGTERM, EXIT_SIGTERM)] {
            // Registered first, so it sees the flag as the previous signal left it.
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                i32::from(status),
                Arc::clone(&any),
            );
            let _ = signal_hook::flag::register(signal, Arc::clone(&any));
        }
        let _ = signal_hook::flag::register(SIGTERM, Arc::clone(&term));
        Interrupts {
            cancel: CancelFlag::from_arc(any),
            term,
        }
    }

    /// The exit status for an interrupted run.
    pub fn exit_status(&self) -> u8 {
        if self.term.load(Ordering::Relaxed) {
            EXIT_SIGTERM
        } else {
            EXIT_SIGINT
        }
    }
}
