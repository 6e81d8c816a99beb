//! How a verb fails. Every command returns an [`Outcome`] and main.rs turns it into an
//! exit code, so the type sits below both.

/// How a verb failed; the variant decides the exit code.
#[derive(Debug)]
pub enum Failure {
    /// Exit 2: the input was bad; the message says where and why.
    BadInput(String),
    /// Exit 1: the program trapped or a limit was hit.
    Runtime(String),
    /// Exit with this code, everything already reported.
    Exit(u8),
}

pub type Outcome = Result<(), Failure>;
