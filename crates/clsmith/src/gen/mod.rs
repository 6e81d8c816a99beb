//! The random program generator.
//!
//! Programs are built as typed trees ([`crate::ast`]) with, for every expression, its C
//! type, a conservative range of its values and the memory it reads and writes. Those
//! decide what may be written where: an operator appears in its plain form only when its
//! operands' ranges make it defined, otherwise its operands are masked, narrowed or
//! converted to an unsigned type; no object is written twice or written and read between
//! two sequence points; indices are masked or reduced into their arrays; barriers appear
//! only where the whole workgroup arrives together.

pub mod build;
pub mod expr;
pub mod program;
pub mod range;
pub mod state;
pub mod stmt;

use crate::config::Config;
use crate::gen::program::Generated;
use crate::gen::state::{FnCtx, Gen, Shape};
use crate::rng::Rng;

/// Generates the program, launch and arguments of `seed`.
pub fn generate(seed: u64, cfg: &Config) -> Generated {
    let g = Gen {
        rng: Rng::new(seed),
        cfg,
        p: Default::default(),
        shape: Shape {
            grid: [1; 3],
            block: [1; 3],
        },
        k_slots: 1,
        in_len: 16,
        k_macro: None,
        helpers: Vec::new(),
        bufs: Vec::new(),
        locals: Vec::new(),
        macros: Vec::new(),
        names: 0,
        atom_used: [false; 4],
        param_values: Vec::new(),
        f: FnCtx::new(String::new(), false, crate::ast::Type::Void),
    };
    g.build()
}
