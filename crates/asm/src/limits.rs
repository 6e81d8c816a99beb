//! Bounds on the size of source text. The assembler, the expansion of `.include`s and the
//! reading of source files for line tables all enforce them, so they live below all three.

/// Longest accepted source line, in bytes.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Largest accepted source, in bytes (256 MiB).
pub const MAX_SOURCE_BYTES: usize = 256 * 1024 * 1024;
