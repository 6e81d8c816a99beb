//! The LinxISA SIMT block programs of `examples/linx/`, each with a host reference computed
//! from the program's own `.mem` inputs, run on `warpkit-linx` and reported in the same
//! [`Report`] (and so the same ✓/✗ table) as the GPU kernels.

use crate::{Check, Report};
use std::time::Instant;
use warpkit_linx::{Program, RunConfig, RunResult};

/// What a program must leave behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// `values` as consecutive little-endian elements of `bytes` bytes from `addr`.
    Memory {
        /// Byte address of the first element.
        addr: u64,
        /// Bytes per element: 1, 2, 4 or 8.
        bytes: u32,
        /// The element values, zero-extended to 64 bits.
        values: Vec<u64>,
    },
    /// Global register `reg` (R0..R23).
    Gpr {
        /// Register number, 0..=23 (`warpkit_linx::GPR_NAMES`).
        reg: u8,
        /// Its final 64-bit value.
        value: u64,
    },
}

/// One program of `examples/linx/`.
#[derive(Debug, Clone, Copy)]
pub struct LinxExample {
    /// `linx/` and the file stem: the name `warpkit examples NAME` takes.
    pub name: &'static str,
    /// What it computes, in a few words.
    pub summary: &'static str,
    /// The program text (`.s`), as `warpkit linx check` reads it.
    pub source: &'static str,
    /// The reference, from the program's initial state.
    reference: fn(&Program) -> Vec<Expect>,
}

/// Why a program could not run at all.
#[derive(Debug, thiserror::Error)]
#[error("examples/{name}.s does not pass `warpkit linx check`:\n{rendered}")]
pub struct LinxExampleError {
    /// The program's name (`linx/...`).
    pub name: &'static str,
    /// Every static diagnostic with source excerpts, as `warpkit linx check` prints them.
    pub rendered: String,
}

/// `n` elements of `bytes` bytes from `addr` in the program's `.mem` data (0 where unset).
pub fn initial(prog: &Program, addr: u64, bytes: u32, n: usize) -> Vec<u64> {
    let byte = |a: u64| -> u8 {
        prog.memory
            .iter()
            .rev()
            .find(|(s, b)| a >= *s && a - s < b.len() as u64)
            .map_or(0, |(s, b)| b[(a - s) as usize])
    };
    (0..n as u64)
        .map(|i| {
            (0..bytes as u64).fold(0u64, |v, k| {
                v | (byte(addr + i * bytes as u64 + k) as u64) << (8 * k)
            })
        })
        .collect()
}

/// The same, from a run's final memory.
fn final_value(r: &RunResult, addr: u64, bytes: u32) -> Option<u64> {
    let mut v = 0u64;
    for k in 0..bytes as u64 {
        let a = addr + k;
        let (s, b) = r
            .memory
            .iter()
            .find(|(s, b)| a >= *s && a - s < b.len() as u64)?;
        v |= (b[(a - s) as usize] as u64) << (8 * k);
    }
    Some(v)
}

fn sext32(v: u64) -> i64 {
    v as u32 as i32 as i64
}

fn vect_prefix(p: &Program) -> Vec<Expect> {
    let x = initial(p, 0x2000, 8, 32);
    let mut c = vec![0u64; 32];
    for i in 0..32 {
        c[i] = if i >= 4 { c[i - 4] } else { 0 }.wrapping_add(x[i]);
    }
    vec![Expect::Memory {
        addr: 0x1020,
        bytes: 8,
        values: c,
    }]
}

fn simt_histogram(p: &Program) -> Vec<Expect> {
    let x = initial(p, 0x1000, 4, 64);
    let mut bins = vec![0u64; 16];
    for v in &x {
        bins[(v & 15) as usize] += 1;
    }
    vec![
        Expect::Memory {
            addr: 0x2000,
            bytes: 4,
            values: bins,
        },
        Expect::Memory {
            addr: 0x3000,
            bytes: 4,
            values: vec![*x.iter().max().unwrap_or(&0)],
        },
        Expect::Gpr {
            reg: 21,
            value: x.iter().sum(),
        },
    ]
}

fn divergent_loop(p: &Program) -> Vec<Expect> {
    let steps = initial(p, 0x1000, 8, 16)
        .into_iter()
        .map(|mut n| {
            let mut s = 0;
            while n != 1 {
                n = if n % 2 == 1 { 3 * n + 1 } else { n / 2 };
                s += 1;
            }
            s
        })
        .collect();
    vec![Expect::Memory {
        addr: 0x2000,
        bytes: 8,
        values: steps,
    }]
}

fn grid2d(p: &Program) -> Vec<Expect> {
    let a = initial(p, 0x1000, 4, 30);
    let mut out = vec![0u64; 30];
    for c1 in 0..5 {
        for c0 in 0..6 {
            out[c0 * 5 + c1] = a[c1 * 6 + c0];
        }
    }
    vec![Expect::Memory {
        addr: 0x2000,
        bytes: 4,
        values: out,
    }]
}

fn dot_int(p: &Program) -> Vec<Expect> {
    let x = initial(p, 0x1000, 4, 40);
    let y = initial(p, 0x2000, 4, 40);
    let dot = x
        .iter()
        .zip(&y)
        .fold(0i64, |s, (a, b)| s.wrapping_add(sext32(*a) * sext32(*b))) as u64;
    vec![
        Expect::Gpr {
            reg: 21,
            value: dot,
        },
        Expect::Memory {
            addr: 0x3000,
            bytes: 8,
            values: vec![dot],
        },
    ]
}

/// The host side of `dot_float.s`, with warpkit-float's operations in the program's order:
/// products per iteration, sums folded in iteration order.
fn dot_float(p: &Program) -> Vec<Expect> {
    use warpkit_float::{add, convert, max, mul, Round, F32, F64};
    let rne = Round::Rne;
    let x = initial(p, 0x1000, 4, 40);
    let y = initial(p, 0x2000, 4, 40);
    let mut products = Vec::new();
    let mut wide = Vec::new();
    for (&a, &b) in x.iter().zip(&y) {
        let (a, b) = (a as u32, b as u32);
        products.push(mul::<F32>(a, b, rne).0);
        let (a, b) = (convert::<F32, F64>(a, rne).0, convert::<F32, F64>(b, rne).0);
        wide.push(mul::<F64>(a, b, rne).0);
    }
    let sum32 = products[1..]
        .iter()
        .fold(products[0], |s, &v| add::<F32>(s, v, rne).0);
    let max32 = products[1..]
        .iter()
        .fold(products[0], |s, &v| max::<F32>(s, v).0);
    let sum64 = wide[1..]
        .iter()
        .fold(wide[0], |s, &v| add::<F64>(s, v, rne).0);
    vec![
        Expect::Gpr {
            reg: 21,
            value: sum32 as u64,
        },
        Expect::Gpr {
            reg: 22,
            value: sum64,
        },
        Expect::Gpr {
            reg: 23,
            value: max32 as u64,
        },
        Expect::Memory {
            addr: 0x3000,
            bytes: 8,
            values: wide,
        },
    ]
}

fn far_branch(_: &Program) -> Vec<Expect> {
    vec![Expect::Memory {
        addr: 0x1000,
        bytes: 8,
        values: (0..12u64)
            .map(|i| if i % 2 == 1 { i + 1000 } else { i * i })
            .collect(),
    }]
}

macro_rules! example {
    ($name:literal, $summary:literal, $f:ident) => {
        LinxExample {
            name: concat!("linx/", $name),
            summary: $summary,
            source: include_str!(concat!("../../../examples/linx/", $name, ".s")),
            reference: $f,
        }
    };
}

/// Every LinxISA program, in the order the suite runs them.
pub static ALL: &[LinxExample] = &[
    example!(
        "vect_prefix",
        "VECT mode: c[i] = c[i-4] + x[i] across serial groups",
        vect_prefix
    ),
    example!(
        "simt_histogram",
        "SIMT mode: histogram with atomic adds, atomic max, rdadd",
        simt_histogram
    ),
    example!(
        "divergent_loop",
        "SIMT mode: per-lane Collatz loop, divergence on the ControlStack",
        divergent_loop
    ),
    example!("grid2d", "2-D LB0 x LB1 space: a 5x6 transpose", grid2d),
    example!(
        "dot_int",
        "integer dot product: rdadd and store-reduce sd.add.rd",
        dot_int
    ),
    example!(
        "dot_float",
        "f32/f64 dot product: fmul, fcvt, rdfadd in iteration order",
        dot_float
    ),
    example!(
        "far_branch",
        "b.cond far branch with addtpc %hi/%lo targets",
        far_branch
    ),
];

/// The program called `name` (`linx/...`).
pub fn find(name: &str) -> Option<&'static LinxExample> {
    ALL.iter().find(|e| e.name == name)
}

impl LinxExample {
    /// The program parsed and statically checked (`warpkit_linx::check`).
    pub fn program(&self) -> Result<Program, LinxExampleError> {
        let file = format!("examples/{}.s", self.name);
        warpkit_linx::check(&file, self.source).map_err(|d| LinxExampleError {
            name: self.name,
            rendered: d.render(self.source),
        })
    }

    /// What `prog` (this example's checked program) must leave in memory and registers,
    /// computed on the host from its initial state.
    pub fn reference(&self, prog: &Program) -> Vec<Expect> {
        (self.reference)(prog)
    }

    /// Run the program in the mode it names and check it against the reference.
    pub fn run(&self) -> Result<Report, LinxExampleError> {
        let prog = self.program()?;
        let expected = self.reference(&prog);
        let start = Instant::now();
        let r = warpkit_linx::run(&prog, RunConfig::default());
        let wall = start.elapsed();
        Ok(Report {
            name: self.name,
            problem: format!("{}, G={}", r.mode.name().to_uppercase(), r.lanes),
            launches: 1,
            workgroups: r.groups,
            warps: r.groups,
            instructions: r.group_steps,
            lane_ops: r.lane_steps,
            wall,
            check: check(&r, &expected),
            completed: r.error.is_none(),
            traps: r.error.iter().map(|e| e.to_string()).collect(),
            hazard_count: r.diagnostics.len() as u64 + r.dropped_diagnostics as u64,
            hazards: r
                .diagnostics
                .iter()
                .map(|d| format!("{}: {}", d.code, d.message))
                .collect(),
            memory_fallbacks: Default::default(),
            image: None,
        })
    }
}

/// The first difference between a run and the reference.
pub fn check(r: &RunResult, expected: &[Expect]) -> Check {
    for e in expected {
        match e {
            Expect::Memory {
                addr,
                bytes,
                values,
            } => {
                for (i, want) in values.iter().enumerate() {
                    let a = addr + i as u64 * *bytes as u64;
                    let buffer = format!("memory@{addr:#x}");
                    let Some(got) = final_value(r, a, *bytes) else {
                        return Check::Short {
                            buffer,
                            expected_words: values.len(),
                            got_words: i,
                        };
                    };
                    if got != *want {
                        return Check::Mismatch {
                            buffer: format!("{buffer} ({bytes}-byte elements, low 32 bits)"),
                            index: i,
                            expected: *want as u32,
                            got: got as u32,
                        };
                    }
                }
            }
            Expect::Gpr { reg, value } => {
                let got = r.gpr[*reg as usize];
                if got != *value {
                    return Check::Mismatch {
                        buffer: format!("{} (low 32 bits)", warpkit_linx::GPR_NAMES[*reg as usize]),
                        index: 0,
                        expected: *value as u32,
                        got: got as u32,
                    };
                }
            }
        }
    }
    Check::Pass
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_matches_its_reference_in_its_own_mode() {
        for e in ALL {
            let r = e.run().unwrap_or_else(|err| panic!("{err}"));
            assert!(
                r.passed(),
                "{}: {} {:?} {:?}",
                e.name,
                r.check,
                r.traps,
                r.hazards
            );
        }
    }

    #[test]
    fn a_wrong_result_is_caught() {
        let e = find("linx/far_branch").unwrap();
        let prog = e.program().unwrap();
        let r = warpkit_linx::run(&prog, RunConfig::default());
        let mut expected = e.reference(&prog);
        if let Expect::Memory { values, .. } = &mut expected[0] {
            values[3] += 1;
        }
        assert!(!check(&r, &expected).passed());
    }

    #[test]
    fn every_file_in_examples_linx_is_listed() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/linx");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "s") {
                let stem = path.file_stem().unwrap().to_string_lossy();
                assert!(find(&format!("linx/{stem}")).is_some(), "{stem} not in ALL");
            }
        }
    }
}
