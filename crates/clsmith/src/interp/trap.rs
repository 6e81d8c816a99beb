//! Undefined behaviour the interpreter observed, and where.

/// A rule of the language (or of the test contract) a program broke while running.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Ub {
    /// A signed `+ - *`, unary minus, `++`/`--` or atomic add/sub whose exact result does
    /// not fit its type.
    #[error("signed overflow: {0}")]
    SignedOverflow(String),
    /// `/` or `%` by zero.
    #[error("division by zero: {0}")]
    DivByZero(String),
    /// `MIN / -1` or `MIN % -1`.
    #[error("quotient overflow: {0}")]
    QuotientOverflow(String),
    /// A shift count outside `0..width` where C's rule, not OpenCL's, was asked for.
    #[error("shift count out of range for C: {0}")]
    ShiftCount(String),
    /// A floating value converted to an integer type that cannot hold its truncation (or
    /// a NaN).
    #[error("floating value out of range of the integer type: {0}")]
    FloatToInt(String),
    /// An access or pointer arithmetic outside the object (or array) a pointer points into.
    #[error("out of bounds: {0}")]
    OutOfBounds(String),
    /// A read of memory never written.
    #[error("read of an uninitialized value: {0}")]
    Uninit(String),
    /// Pointers into different objects compared or subtracted, or a dangling pointer used.
    #[error("invalid pointer use: {0}")]
    BadPointer(String),
    /// A built-in called outside its defined domain (`clamp` with `lo > hi`, `mul24` on
    /// operands or products beyond 24/32 bits).
    #[error("built-in outside its domain: {0}")]
    BuiltinDomain(String),
    /// Two work-items touched the same `__local` byte between two barriers, or the same
    /// `__global` byte during the launch, at least one of them writing without an atomic.
    #[error("data race: {0}")]
    Race(String),
    /// Atomics of different families (whose results depend on their order) on one word,
    /// or an atomic's returned value used on a word other work-items also update.
    #[error("order-dependent atomics: {0}")]
    AtomicOrder(String),
    /// Work-items of a workgroup waiting at different barriers, or a barrier outside the
    /// kernel's own body.
    #[error("barrier divergence: {0}")]
    Barrier(String),
    /// A write to `__constant` memory or a `const` object.
    #[error("write to read-only memory: {0}")]
    ReadOnly(String),
    /// The work-item ran longer than the step limit (a loop that does not end).
    #[error("step limit exceeded ({0} steps)")]
    StepLimit(u64),
    /// Something the interpreter does not model (a generator bug).
    #[error("unsupported: {0}")]
    Unsupported(String),
}

/// Undefined behaviour with the work-item that hit it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("work-item {global_id:?} (group {group_id:?}) in `{function}`: {ub}")]
pub struct Trap {
    /// What happened.
    pub ub: Ub,
    /// `get_global_id(0..3)` of the work-item.
    pub global_id: [u32; 3],
    /// `get_group_id(0..3)`.
    pub group_id: [u32; 3],
    /// The function it was executing.
    pub function: String,
}
