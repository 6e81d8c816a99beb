//! The vector of one instruction variant, derived from its database entry alone: eight
//! warps, each starting at its own copy of the instruction (so immediates, enum values and
//! reserved encodings differ per warp), with corner-case operand values per lane and per
//! warp, the EXEC patterns full, empty, single lane and partial, and memory aimed at a
//! global and a shared region (docs/conformance.md, "Corner cases").

use crate::vector::{Launch, ProgramBytes, Region, Space, State, Vector, WarpState};
use warpkit_isa::{Flags, Instr, Op, OperandClass, ALL_OPS};
use warpkit_sim::launch::{BUFFER_BASE, CODE_BASE};
use warpkit_sim::{Engine, LANES};

/// Warps (cases) in every variant's vector.
pub const WARPS: usize = 8;
/// Where the global region is: the second buffer of a launch whose first is the 64-byte
/// result buffer of the self-checking programs (docs/abi.md, "Memory map").
pub const GLOBAL_BASE: u64 = BUFFER_BASE + 0x2_0000;
/// Bytes of global and of shared memory each warp's accesses are aimed at.
pub const AREA: u64 = 1024;
/// Bytes of the global and of the shared region.
pub const REGION_BYTES: u64 = AREA * WARPS as u64 + 1024;
/// Shared memory per workgroup in every vector.
pub const SHARED_BYTES: u32 = 16384;
/// Instructions a warp may attempt.
pub const MAX_STEPS: u64 = 64;
/// The register a branch vector's fall-through (1) and taken (2) paths write.
pub const BRANCH_MARK: u32 = 55;
/// The words of the global and the shared region before a run: `GLOBAL_PATTERN + offset`
/// and `SHARED_PATTERN + offset` for the word at byte offset `offset` of the region.
pub const GLOBAL_PATTERN: u32 = 0xa500_0000;
/// See [`GLOBAL_PATTERN`].
pub const SHARED_PATTERN: u32 = 0x5a00_0000;

/// EXEC of each warp, and what it is called.
const EXECS: [(u32, &str); WARPS] = [
    (u32::MAX, "full"),
    (u32::MAX, "full"),
    (u32::MAX, "full"),
    (u32::MAX, "full"),
    (0, "empty"),
    (1 << 5, "single lane 5"),
    (0x5a5a_c3c3, "partial"),
    (u32::MAX, "full, equal sources"),
];

/// Register values: zero, one, all-ones, the sign boundary, max/min, shift edges and
/// float edges (±1.0, infinity, NaN, the smallest normal, an f16 pair).
const CORNERS: [u32; 16] = [
    0,
    1,
    u32::MAX,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    31,
    32,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0x7fc0_0000,
    0x0080_0000,
    0x3c00_3c00,
    2,
];

/// The suite group of a variant: `group1` (seed 002's group 1), `system`, `float` or
/// `memory` (the provisional groups; the system group's cache-control instructions, which
/// name memory, count as `system`).
pub fn group_of(op: Op) -> &'static str {
    let d = op.def();
    match d.group {
        1 => "group1",
        100 => "system",
        _ if d.memory.is_some() => "memory",
        _ => "float",
    }
}

/// Every variant of the database, in table order.
pub fn variants() -> impl Iterator<Item = Op> {
    ALL_OPS.iter().copied()
}

/// A deterministic generator (xorshift), seeded per variant, warp and operand.
struct Rng(u64);

impl Rng {
    fn new(parts: &[u64]) -> Rng {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for p in parts {
            s = (s ^ p).wrapping_mul(0x1000_0000_01b3).rotate_left(17) | 1;
        }
        Rng(s)
    }

    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

fn is_memory(op: Op) -> bool {
    op.def().memory.is_some()
}

/// The register an operand names: vector operands from v8 in steps of 16, uniform ones
/// from u16 in steps of 8 (aligned for every group size; clear of the ABI's registers and
/// of the self-checking programs' scratch registers v120.., u56..).
fn operand_register(class: OperandClass, index: usize) -> u32 {
    match class {
        OperandClass::VReg => 8 + 16 * index as u32,
        _ => 16 + 8 * index as u32,
    }
}

/// The immediate field value of warp `k` for a field of `width` bits: zero, one,
/// all-ones, the largest positive, the sign boundary, random, two, random.
fn immediate(k: usize, width: u32, rng: &mut Rng) -> u32 {
    let mask = if width >= 32 {
        u32::MAX
    } else {
        (1 << width) - 1
    };
    let top = 1u32.checked_shl(width.saturating_sub(1)).unwrap_or(0);
    let v = match k {
        0 => 0,
        1 => 1,
        2 => u32::MAX,
        3 => top.wrapping_sub(1),
        4 => top,
        6 => 2,
        _ => rng.next(),
    };
    v & mask
}

/// The description of warp `k`'s case of `op`.
fn case_text(op: Op, k: usize) -> String {
    let values = match k {
        1 => "corner values rotated",
        2 => "random values",
        3 => "corner values, second rotation",
        7 => "all sources equal",
        _ => "corner values",
    };
    let mut text = format!("warp {k}: EXEC {}, {values}", EXECS[k].1);
    if is_memory(op) {
        text.push_str(match k {
            2 => "; addresses past the mapping (access fault)",
            3 => "; lane 3 one byte off (misaligned unless a byte access)",
            _ => "; in-bounds addresses, 16 bytes a lane",
        });
    }
    if group_of(op) == "float" {
        text.push_str(&format!("; rounding mode {}", k % 5));
        match k {
            5 => text.push_str(", subnormals flushed"),
            6 => text.push_str(", every exception trapping"),
            _ => {}
        }
    }
    if op.def().flags.contains(Flags::BR) {
        text.push_str("; u55 = 1 not taken, 2 taken");
    }
    text
}

/// A vector operand's value in lane `l` of warp `k` (operand `i`, register `r` of its
/// group). Warp 7 gives every source the same values.
fn lane_value(op: Op, k: usize, i: usize, r: usize, l: usize) -> u32 {
    let i = if k == 7 { 0 } else { i };
    let mut rng = Rng::new(&[op as u64, k as u64, i as u64, r as u64, l as u64]);
    match k {
        2 => rng.next(),
        _ if l < 16 => CORNERS[(l + 5 * i + 3 * k + r) % 16],
        _ => rng.next(),
    }
}

/// A uniform operand's value in warp `k`.
fn uniform_value(op: Op, k: usize, i: usize, r: usize) -> u32 {
    let i = if k == 7 { 0 } else { i };
    if k == 2 {
        return Rng::new(&[op as u64, 77, i as u64, r as u64]).next();
    }
    CORNERS[(k * 3 + 7 * i + r) % 16]
}

/// The vector of `op`.
pub fn vector_for(op: Op) -> Result<Vector, String> {
    let def = op.def();
    let memory = is_memory(op);
    let branch = def.flags.contains(Flags::BR);
    let endpgm = Instr::from_raw(Op::Endpgm, &[]).map_err(|e| e.to_string())?;
    let mark = |v: u32| Instr::from_raw(Op::UmovL, &[BRANCH_MARK, v]);
    let mut code = Vec::new();
    let mut warps = Vec::new();
    for (k, &(exec, _)) in EXECS.iter().enumerate() {
        let mut w = WarpState::zero([0, 0, 0], k as u32, exec);
        w.csr.insert("warpid".into(), k as u32);
        w.csr.insert("code_lo".into(), CODE_BASE as u32);
        w.csr.insert("code_hi".into(), (CODE_BASE >> 32) as u32);
        if group_of(op) == "float" {
            // Rounding modes 0..4 in turn; warp 5 flushes subnormals, warp 6 traps on
            // every floating-point exception (cause 6).
            let extra = match k {
                5 => 3 << 3,
                6 => 0x1f << 5,
                _ => 0,
            };
            w.csr.insert("mode".into(), (k as u32 % 5) | extra);
        }
        let pc = code.len() as u32;
        w.pc = pc;
        let mut rng = Rng::new(&[op as u64, k as u64, 0xabc]);
        let mut raw = Vec::new();
        let (mut vi, mut ui) = (0, 0);
        // The offset from the instruction to its taken path: past the fall-through path.
        let taken = def.len() as u32
            + mark(1).map_err(|e| e.to_string())?.len() as u32
            + endpgm.len() as u32;
        for o in def.operands {
            let ty = o.kind.ty;
            let width = o.field.width();
            let x = match ty.class {
                OperandClass::VReg | OperandClass::UReg => {
                    let index = if ty.class == OperandClass::VReg {
                        vi += 1;
                        vi - 1
                    } else {
                        ui += 1;
                        ui - 1
                    };
                    let r = operand_register(ty.class, index);
                    if ty.half {
                        (r << 1) | (k as u32 & 1)
                    } else {
                        r
                    }
                }
                OperandClass::Enum if !ty.values.is_empty() => ty.values[k % ty.values.len()].1,
                _ if ty.pc_relative => taken / u32::from(ty.scale.max(1)),
                _ if memory && o.name == "imm" => [0, 16, 4, 0, 32, 8, 0, 64][k],
                _ => immediate(k, width, &mut rng),
            };
            raw.push(x);
        }
        let ins = match Instr::from_raw(op, &raw) {
            Ok(i) => i,
            Err(e) => return Err(format!("{} does not encode {raw:?}: {e}", def.mnemonic)),
        };
        code.extend(ins.to_bytes());
        if branch {
            code.extend(mark(1).map_err(|e| e.to_string())?.to_bytes());
            code.extend(endpgm.to_bytes());
            code.extend(mark(2).map_err(|e| e.to_string())?.to_bytes());
        }
        code.extend(endpgm.to_bytes());
        set_operands(op, &ins, k, &mut w);
        warps.push(w);
    }
    let mut pre = State {
        warps,
        memory: Vec::new(),
    };
    if memory {
        pre.memory = vec![
            Region {
                space: Space::Global,
                address: GLOBAL_BASE,
                bytes: pattern(GLOBAL_PATTERN),
            },
            Region {
                space: Space::Shared,
                address: 0,
                bytes: pattern(SHARED_PATTERN),
            },
        ];
    }
    let mut v = Vector {
        schema: crate::vector::SCHEMA.into(),
        version: crate::vector::VERSION,
        name: def.mnemonic.to_string(),
        variant: Some(def.mnemonic.to_string()),
        group: Some(group_of(op).to_string()),
        cases: (0..WARPS).map(|k| case_text(op, k)).collect(),
        program: ProgramBytes {
            code,
            data: Vec::new(),
        },
        launch: Launch {
            grid: [1, 1, 1],
            block: [32 * WARPS as u32, 1, 1],
            shared: SHARED_BYTES,
            scratch: 0,
            max_steps: MAX_STEPS,
        },
        pre,
        post: State::default(),
    };
    v.post = crate::vector::run(&v, Engine::Interp).map_err(|e| e.to_string())?;
    Ok(v)
}

/// A region's bytes: word at offset `o` is `base + o`.
pub fn pattern(base: u32) -> Vec<u8> {
    (0..REGION_BYTES as u32 / 4)
        .flat_map(|i| base.wrapping_add(4 * i).to_le_bytes())
        .collect()
}

/// Give warp `k`'s operand registers their values; aim memory operands at the warp's
/// area (16 bytes a lane), except warp 2 (global: a base past the mapping; shared: offsets
/// past its end: an access fault) and warp 3 (lane 3 one byte off: misaligned where the
/// access is wider than a byte).
fn set_operands(op: Op, ins: &Instr, k: usize, w: &mut WarpState) {
    let def = op.def();
    let (mut vi, mut ui) = (0, 0);
    for (n, o) in def.operands.iter().enumerate() {
        let ty = o.kind.ty;
        let span = usize::from(o.kind.regs.max(1));
        let first = match ty.class {
            OperandClass::VReg => {
                vi += 1;
                let r = ins.raw(n) as usize;
                if ty.half {
                    r >> 1
                } else {
                    r
                }
            }
            OperandClass::UReg => {
                ui += 1;
                ins.raw(n) as usize
            }
            _ => continue,
        };
        for r in 0..span {
            let reg = first + r;
            match ty.class {
                OperandClass::VReg if reg < w.v.len() => {
                    for l in 0..LANES {
                        w.v[reg][l] = lane_value(op, k, vi - 1, r, l);
                    }
                }
                OperandClass::UReg if reg < w.u.len() => {
                    w.u[reg] = uniform_value(op, k, ui - 1, r);
                }
                _ => {}
            }
        }
    }
    if is_memory(op) {
        aim(op, ins, k, w);
    }
}

fn aim(op: Op, ins: &Instr, k: usize, w: &mut WarpState) {
    let def = op.def();
    let reg = |name: &str| {
        def.operands
            .iter()
            .position(|o| o.name == name)
            .map(|n| (&def.operands[n], ins.raw(n) as usize))
    };
    let area = AREA * k as u64;
    let global = if k == 2 {
        GLOBAL_BASE + 0x10_0000
    } else {
        GLOBAL_BASE
    };
    let lane_offset = |l: usize, shared: bool| -> u64 {
        let base = if shared && k == 2 {
            u64::from(SHARED_BYTES)
        } else {
            0
        };
        base + area + 16 * l as u64 + u64::from(k == 3 && l == 3)
    };
    match (reg("rs1"), reg("rs2")) {
        // Global: U64[rs2] + zext(v[rs1]) + imm.
        (Some((_, a)), Some((b, rb))) if b.kind.ty.class == OperandClass::UReg => {
            for l in 0..LANES {
                w.v[a][l] = lane_offset(l, false) as u32;
            }
            w.u[rb] = global as u32;
            w.u[rb + 1] = (global >> 32) as u32;
        }
        // 64-bit addresses per lane (a vector pair) or a uniform base (a uniform pair).
        (Some((a, ra)), None) if a.kind.regs == 2 => {
            if a.kind.ty.class == OperandClass::VReg {
                for l in 0..LANES {
                    let addr = global + lane_offset(l, false);
                    w.v[ra][l] = addr as u32;
                    w.v[ra + 1][l] = (addr >> 32) as u32;
                }
            } else {
                let addr = global + area + u64::from(k == 3) * 2;
                w.u[ra] = addr as u32;
                w.u[ra + 1] = (addr >> 32) as u32;
            }
        }
        // Shared: zext(v[rs1]) + imm.
        (Some((_, a)), None) => {
            for l in 0..LANES {
                w.v[a][l] = lane_offset(l, true) as u32;
            }
        }
        _ => {}
    }
}
