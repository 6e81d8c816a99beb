//! Random OpenCL C kernels and their reference results: a small Csmith for the
//! differential test of warpkit's OpenCL C compiler.
//!
//! [`generate`] turns a seed and a [`Config`] into a [`TestCase`]: the source of one or
//! more kernels, the launch shape, the arguments, and the final bytes of every `__global`
//! buffer as the reference interpreter ([`interp`]) computes them. A compiler under test
//! runs the same kernel (for the warpkit CLI: [`TestCase::cli_args`]) and must produce the
//! same bytes ([`TestCase::check`], [`TestCase::check_files`]). Generation is deterministic:
//! a seed and a configuration always give the byte-identical case, on every host.
//!
//! ```
//! let case = warpkit_clsmith::generate(42, &warpkit_clsmith::Config::default()).unwrap();
//! assert!(case.source.contains(&format!("void {}(", case.kernel)));
//! assert_eq!(case.expected[0].0, "out");
//! ```
//!
//! # What is generated
//!
//! Programs of the OpenCL C 1.2 subset the compiler supports (`docs/clsmith.md` lists every
//! construct and built-in), weighted towards what breaks SIMT compilers: branch and loop
//! conditions that depend on `get_local_id`/`get_global_id`, on loaded data and on values
//! computed per work-item; loops with per-work-item trip counts; `break`, `continue` and
//! `return` taken by some work-items only; variables assigned in some branches and read
//! after the join, live across divergent regions and loops; helper functions with early
//! returns called in divergent code; short-circuit operators and `?:` with side effects;
//! private arrays indexed per work-item; structs copied and passed by value; pointer
//! arithmetic and comparisons; every integer width mixed with implicit conversions;
//! `float` and `double` arithmetic compared bit for bit; `__local` arrays written by each
//! work-item and read at others' indices after a barrier; atomics whose final values do
//! not depend on their order.
//!
//! Every kernel ends by folding all its live variables into a per-work-item checksum
//! written to `out[global linear id]` (and floating values, NaN replaced by a fixed value,
//! to `fout`/`dout`), at its end and before every early `return`.
//!
//! # Semantics
//!
//! The generator never writes undefined behaviour: operators appear in their plain form
//! only when the value ranges of their operands (tracked for every expression) make them
//! defined, and are otherwise rewritten (operands masked or narrowed, arithmetic done in
//! the unsigned type, divisors made non-zero, floating values clamped before conversion
//! to an integer); no object is written twice, or written and read, between sequence
//! points; indices are masked into their arrays; each work-item owns its `__global`
//! output slots and shares words only through atomics of one commuting kind; `__local`
//! slots are written in phases between barriers; barriers appear only where every
//! work-item of the workgroup arrives together. The interpreter checks all of it: it
//! traps ([`interp::trap::Ub`]) on signed overflow, division by zero, out-of-bounds
//! access, uninitialized reads, races, order-dependent atomics, barrier divergence and
//! endless loops.
//!
//! The interpreter implements C99/OpenCL C 1.2 for everything generated (promotions,
//! usual arithmetic conversions, literal types, OpenCL's shift rule, the built-ins'
//! definitions, IEEE round-to-nearest arithmetic without contraction) plus the
//! provisional choices of `docs/clsmith.md`: `size_t` is 64-bit, conversions to signed
//! integer types wrap, a work-item that returned no longer takes part in barriers.
//!
//! # Reproducing a seed
//!
//! ```text
//! cargo run -p warpkit-clsmith --example clsmith_case -- SEED            # print the case
//! cargo run -p warpkit-clsmith --example clsmith_case -- SEED --dir D    # and the warpkit run line
//! ```
//!
//! [`interp::run_traced`] records every helper call of one work-item (`ck_mix` included,
//! the checksum step), which shows the first value on which two implementations part.

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
