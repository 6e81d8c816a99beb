//! warpkit's verification kit: what an RTL verification team uses a golden model through
//! (docs/verification.md).

pub mod shrink;
