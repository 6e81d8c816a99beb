//! Random OpenCL C kernels and their reference results.

pub mod args;
pub mod ast;
pub mod config;
pub mod ctype;
pub mod ctype_of;
pub mod interp;
pub mod print;
pub mod rng;
