//! `--color auto|always|never`: the `error:`, `warning:` and `note:` prefixes of
//! diagnostics in colour on a terminal. `auto` (the default) colours only when stderr is a
//! terminal and `NO_COLOR` is unset or empty (no-color.org).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    Auto,
    Always,
    Never,
}

static ON: AtomicBool = AtomicBool::new(false);

/// Decide once, at start-up.
pub fn init(when: When) {
    let on = match when {
        When::Always => true,
        When::Never => false,
        When::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stderr().is_terminal()
        }
    };
    ON.store(on, Ordering::Relaxed);
}

/// `line` with its leading `error:`, `warning:` or `note:` coloured when colour is on.
pub fn paint(line: String) -> String {
    if !ON.load(Ordering::Relaxed) {
        return line;
    }
    for (prefix, style) in [("error:", "1;31"), ("warning:", "1;33"), ("note:", "1;36")] {
        if let Some(rest) = line.strip_prefix(prefix) {
            return format!("\x1b[{style}m{prefix}\x1b[0m{rest}");
        }
    }
    line
}
