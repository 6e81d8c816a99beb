//! The output macros every module prints with. They live here, below everything that
//! uses them, and are declared first in main.rs so their textual scope covers the crate.

/// `println!` that never panics and never loses a write error: the first one is kept and
/// decides the exit status (`stdout.rs`).
macro_rules! outln {
    ($($t:tt)*) => {{
        $crate::stdout::write_fmt(format_args!("{}\n", format_args!($($t)*)));
    }};
}

/// `print!` with the same rule as [`outln`].
macro_rules! out {
    ($($t:tt)*) => {{
        $crate::stdout::write_fmt(format_args!($($t)*));
    }};
}

/// `eprintln!` that never panics: with stderr closed (`2>&-`) a message is lost, not the
/// exit code.
macro_rules! report {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{}", $crate::color::paint(format!($($arg)*)));
    }};
}

/// `eprint!` that never panics.
macro_rules! report_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}
