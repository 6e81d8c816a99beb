//! Trap causes and the record of a trap that stopped a warp.

/// IllegalInsn (seed 000 §2.3): a word that does not decode, or a reserved operand value
/// (errata v0.1.2). `trapinfo` = the low 32 bits of the instruction.
pub const CAUSE_ILLEGAL_INSN: u32 = 1;
/// Provisional: the PC names no instruction of the program (outside the code, or not 4-byte
/// aligned, e.g. after a `csrw trapbase` with an unaligned value). `trapinfo` = that PC.
pub const CAUSE_FETCH_FAULT: u32 = 2;
/// Provisional: a valid instruction this configuration of the model cannot execute (memory
/// and cache operations when no memory is attached). `trapinfo` = the low 32 bits of the
/// instruction.
pub const CAUSE_UNSUPPORTED: u32 = 3;
/// Provisional (docs/abi.md): a misaligned memory access. `trapinfo` = the low 32 bits of
/// the first faulting lane's address.
pub const CAUSE_MISALIGNED: u32 = 4;
/// Provisional (docs/abi.md): an access to unmapped memory or beyond shared memory.
/// `trapinfo` = the low 32 bits of the first faulting lane's address.
pub const CAUSE_ACCESS_FAULT: u32 = 5;
/// Provisional (docs/provisional.md, "Floating point"): a floating-point instruction raised
/// a flag whose trap is enabled in `mode[9:5]`; it wrote nothing. `trapinfo` = every flag it
/// raised over its active lanes (fflags layout, bits [4:0]).
pub const CAUSE_FP_EXCEPTION: u32 = 6;
/// Illegal MODE value (seed 001 §3.3): reserved bits or a reserved rounding mode.
/// `trapinfo` = the rejected value.
pub const CAUSE_ILLEGAL_MODE: u32 = 8;
/// Illegal CSR access (seed 001 §3.3): unknown CSR, or a write to a read-only one.
/// `trapinfo` = the CSR number.
pub const CAUSE_ILLEGAL_CSR: u32 = 9;

/// A trap: its cause, the PC of the instruction that raised it and `trapinfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Trap {
    /// The cause, one of the `CAUSE_*` constants (`trapcause`).
    pub cause: u32,
    /// PC of the instruction that raised it, relative to CODE_BASE (`trappc`).
    pub pc: u32,
    /// More about the trap, as its cause defines (`trapinfo`).
    pub info: u32,
}

/// A human name for a trap cause, for reports.
pub fn cause_name(cause: u32) -> &'static str {
    match cause {
        CAUSE_ILLEGAL_INSN => "illegal instruction",
        CAUSE_FETCH_FAULT => "instruction fetch fault (provisional)",
        CAUSE_UNSUPPORTED => "unsupported operation (provisional)",
        CAUSE_MISALIGNED => "misaligned memory access (provisional)",
        CAUSE_ACCESS_FAULT => "memory access fault (provisional)",
        CAUSE_FP_EXCEPTION => "floating-point exception (provisional)",
        CAUSE_ILLEGAL_MODE => "illegal mode value",
        CAUSE_ILLEGAL_CSR => "illegal CSR access",
        _ => "unknown cause",
    }
}

/// A failed environment operation: the trap the warp must take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// The trap cause, one of the `CAUSE_*` constants.
    pub cause: u32,
    /// The trap's `trapinfo`, as the cause defines it.
    pub info: u32,
}
