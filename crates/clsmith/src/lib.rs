//! Random OpenCL C kernels and their reference results (a small Csmith).

pub mod args;
pub mod ast;
mod case;
pub mod config;
pub mod ctype;
pub mod ctype_of;
pub mod gen;
pub mod interp;
pub mod print;
pub mod rng;

pub use args::{Arg, ArgValue};
pub use case::{generate, generate_program, CliRun, Error, Generated, Mismatch, TestCase};
pub use config::Config;
