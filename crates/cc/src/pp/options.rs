//! What the command line says about preprocessing.

use std::path::PathBuf;

/// What the command line says about preprocessing.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `-D NAME[=VALUE]`, in order: `NAME` may be `F(x)` for a function-like macro; no value
    /// defines the macro as `1`.
    pub defines: Vec<(String, Option<String>)>,
    /// `-U NAME`, applied after every `-D`.
    pub undefines: Vec<String>,
    /// `-I DIR`, searched in order.
    pub include_dirs: Vec<PathBuf>,
    /// `-cl-fast-relaxed-math`: defines `__FAST_RELAXED_MATH__`.
    pub fast_relaxed_math: bool,
}
