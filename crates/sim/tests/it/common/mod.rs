//! A minimal text-to-bytes helper for tests, independent of warpkit-asm: one instruction a
//! line, `label:` lines, `.word 0x...`, registers `v5`, `u3`, groups `v[4:5]`, integers,
//! enum names and labels (as offsets relative to the instruction).
#![allow(dead_code)]

use std::collections::HashMap;
use warpkit_isa::{Instr, Op, Operand, OperandClass, UReg, VReg};
use warpkit_sim::*;

fn parse_int(t: &str) -> Option<i64> {
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = if let Some(h) = t.strip_prefix("0x") {
        i64::from_str_radix(&h.replace('_', ""), 16).ok()?
    } else {
        t.replace('_', "").parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn reg(t: &str, prefix: char) -> Option<u8> {
    let rest = t.strip_prefix(prefix)?;
    if let Some(g) = rest.strip_prefix('[') {
        let first = g.split(':').next()?;
        return first.parse().ok();
    }
    rest.parse().ok()
}

/// Assemble `src`; panics with the offending line on error (tests only).
pub fn asm(src: &str) -> Vec<u8> {
    let lines: Vec<&str> = src
        .lines()
        .map(|l| l.split("//").next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    // Pass 1: label addresses.
    let mut labels = HashMap::new();
    let mut pc = 0i64;
    for l in &lines {
        if let Some(name) = l.strip_suffix(':') {
            labels.insert(name.to_string(), pc);
            continue;
        }
        let mn = l.split_whitespace().next().unwrap();
        pc += if mn == ".word" {
            4
        } else {
            Op::from_mnemonic(mn)
                .unwrap_or_else(|| panic!("unknown mnemonic in `{l}`"))
                .def()
                .len() as i64
        };
    }
    let mut out = Vec::new();
    for l in &lines {
        if l.ends_with(':') {
            continue;
        }
        let pc = out.len() as i64;
        let (mn, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        if mn == ".word" {
            let w = parse_int(rest.trim()).unwrap() as u32;
            out.extend_from_slice(&w.to_le_bytes());
            continue;
        }
        let op = Op::from_mnemonic(mn).unwrap();
        let def = op.def();
        let toks: Vec<&str> = if rest.trim().is_empty() {
            vec![]
        } else {
            rest.split(',').map(str::trim).collect()
        };
        let mut ops = Vec::new();
        for (o, t) in def.operands.iter().zip(&toks) {
            let k = o.kind;
            let v = match k.ty.class {
                OperandClass::VReg => {
                    let r = reg(t, 'v').unwrap_or_else(|| panic!("bad vreg in `{l}`"));
                    if k.regs > 1 {
                        Operand::VGroup {
                            first: VReg(r),
                            count: k.regs,
                        }
                    } else {
                        Operand::V(VReg(r))
                    }
                }
                OperandClass::UReg => {
                    let r = reg(t, 'u').unwrap_or_else(|| panic!("bad ureg in `{l}`"));
                    if k.regs > 1 {
                        Operand::UGroup {
                            first: UReg(r),
                            count: k.regs,
                        }
                    } else {
                        Operand::U(UReg(r))
                    }
                }
                OperandClass::Enum => Operand::Enum(
                    parse_int(t)
                        .map(|v| v as u32)
                        .or_else(|| k.ty.value_of(t))
                        .unwrap_or_else(|| panic!("bad enum in `{l}`")),
                ),
                _ => Operand::Imm(
                    parse_int(t)
                        .or_else(|| labels.get(*t).map(|a| a - pc))
                        .unwrap_or_else(|| panic!("bad immediate in `{l}`")),
                ),
            };
            ops.push(v);
        }
        let ins = Instr::new(op, &ops).unwrap_or_else(|e| panic!("`{l}`: {e}"));
        ins.write_bytes(&mut out);
    }
    out
}

/// Run `src` on one warp with EXEC all ones; return the warp.
pub fn run(src: &str) -> Warp {
    run_bytes(asm(src), u32::MAX)
}

pub fn run_exec(src: &str, exec: u32) -> Warp {
    run_bytes(asm(src), exec)
}

pub fn run_bytes(bytes: Vec<u8>, exec: u32) -> Warp {
    let prog = Program::new(bytes);
    let mut wg = Workgroup::new([0, 0, 0], &[exec]);
    let mut core = Core::default();
    wg.run(&prog, &mut core, &mut NoMemory, &mut NoHooks, 1_000_000);
    wg.warps.pop().unwrap()
}

/// The trap that stopped the warp.
pub fn trap(w: &Warp) -> Trap {
    match w.status {
        WarpStatus::Trapped(t) => t,
        s => panic!("expected a trap, warp is {s:?}"),
    }
}

pub fn ended(w: &Warp) {
    assert_eq!(w.status, WarpStatus::Ended, "warp did not end: {w:?}");
}

/// What runs a program in the differential tests: the interpreter, or the translation tier
/// with a vector ISA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    Interp,
    Jit(VectorIsa),
}

impl On {
    /// `program`, set to run on this.
    pub fn program(self, program: &Program) -> Program {
        let mut p = program.clone();
        match self {
            On::Interp => p.set_engine(Engine::Interp),
            On::Jit(isa) => {
                p.set_engine(Engine::Jit);
                p.set_vector_isa(isa);
            }
        }
        p
    }
}

/// The translation tier with every vector ISA this host runs.
pub fn jits() -> Vec<On> {
    VectorIsa::ALL
        .into_iter()
        .filter(|isa| isa.supported())
        .map(On::Jit)
        .collect()
}
