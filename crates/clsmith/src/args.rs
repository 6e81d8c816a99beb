//! Kernel arguments of a test case.

/// One kernel argument, named like its parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// The parameter's name.
    pub name: String,
    /// Its value.
    pub value: ArgValue,
}

/// The value of a kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// A `__global` or `__constant` pointer: the buffer's initial bytes.
    Buffer(Vec<u8>),
    /// A `__local` pointer: the size in bytes of the memory each workgroup gets.
    Local(u32),
    /// An integer parameter of `bits` (8, 16, 32 or 64) bits.
    Int {
        /// Width.
        bits: u8,
        /// Signed type.
        signed: bool,
        /// The value (within the type's range).
        value: i128,
    },
    /// A `float` parameter.
    F32(f32),
    /// A `double` parameter.
    F64(f64),
}
