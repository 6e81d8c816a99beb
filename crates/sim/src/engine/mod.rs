//! The engines that run a warp through a pre-decoded program: the interpreter (the
//! reference) and the translation tier, which it enters where it can.

mod interp;
pub mod jit;
