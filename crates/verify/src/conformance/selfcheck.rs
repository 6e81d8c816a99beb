//! Self-checking programs (docs/conformance.md, "Self-checking programs"): a vector turned
//! into a program that needs no model. Each warp sets up its pre-state with instructions
//! (rows of per-lane values are loaded from tables after the code), runs its copy of the
//! instruction under test, checks every register, EXEC, the CSRs that can change, its trap
//! (through a handler at `trapbase`) and its memory area against the expected post-state,
//! and stores a pass word, or a fail word and traps.

use super::cases::{AREA, GLOBAL_BASE, GLOBAL_PATTERN, SHARED_PATTERN};
use crate::vector::{Space, Status, Vector, WarpState};
use std::collections::HashMap;
use warpkit_isa::{csr_by_name, Instr, Op};
use warpkit_sim::launch::BUFFER_BASE;
use warpkit_sim::{Engine, LANES};

/// The word a warp that passed stores at `result + 4 * warpid` ("PASS").
pub const PASS: u32 = 0x5041_5353;
/// The high half of the word a warp that failed stores; the low half is the check.
pub const FAIL: u32 = 0xfa11_0000;
/// The result buffer's address: the first buffer of an ABI launch.
pub const RESULT_BASE: u64 = BUFFER_BASE;
/// Bytes of the result buffer (one word per warp, at most 32 warps... of which 8 used).
pub const RESULT_BYTES: u64 = 64;

/// Vector registers from here on and uniform registers from [`U_SCRATCH`] on are the
/// program's own; the suite's vectors never use them, and they are not checked.
pub const V_SCRATCH: u32 = 120;
/// See [`V_SCRATCH`].
pub const U_SCRATCH: u32 = 56;

// Scratch register roles.
const U_BASE: u32 = 56; // u56:u57 a memory base
const U_T: u32 = 58; // a comparison's result
const U_X: u32 = 59; // an expected value
const U_ID: u32 = 60; // the check being made
const U_E: u32 = 61; // an EXEC value
const U_CODE: u32 = 62; // u62:u63 the code's address, for the tables
const V_LANE4: u32 = 120; // 4 * lane
const V_A: u32 = 121;
const V_B: u32 = 122;
const V_C: u32 = 123;

/// Kinds of check, the bits 8..11 of a fail word's check number.
const CHECK_EXEC: u32 = 0x000;
const CHECK_U: u32 = 0x100;
const CHECK_V: u32 = 0x200;
const CHECK_CSR: u32 = 0x300;
const CHECK_GLOBAL: u32 = 0x400;
const CHECK_SHARED: u32 = 0x500;
const CHECK_TRAP: u32 = 0x600;
const CHECK_NO_TRAP: u32 = 0x700;

/// A built program.
#[derive(Debug, Clone)]
pub struct SelfCheck {
    /// The raw code image (code, then its tables).
    pub code: Vec<u8>,
    /// The same as an ELF object (`.text` only).
    pub elf: Vec<u8>,
    /// Threads of its one workgroup.
    pub block: u32,
    /// Warps that only store the pass word: their case cannot be replayed at another
    /// address (a PC-dependent result, a step limit, an `endpgm` under test).
    pub skipped: Vec<u32>,
}

/// Whether `x` is a sign-extended `bits`-bit value.
fn fits(x: u32, bits: u32) -> bool {
    let v = x as i32;
    let half = 1i32 << (bits - 1);
    (-half..half).contains(&v)
}

fn op(name: &str) -> Op {
    Op::from_mnemonic(name).unwrap_or_else(|| panic!("the database lacks `{name}`"))
}

/// How a fixed-up operand gets its value from a label.
enum Fix {
    /// The offset from the instruction to the label, in words (a branch).
    Branch,
    /// The label's offset from the code's start plus a constant (an address like a PC).
    Absolute(u32),
}

/// A code buffer with labels and fixed-up operands.
#[derive(Default)]
struct Code {
    bytes: Vec<u8>,
    labels: HashMap<String, u32>,
    fixups: Vec<(usize, Op, Vec<u32>, usize, String, Fix)>,
    /// Rows of per-lane values, appended after the code.
    tables: Vec<[u32; LANES]>,
    table_fixups: Vec<(usize, Op, Vec<u32>, usize, usize)>,
}

impl Code {
    fn pc(&self) -> u32 {
        self.bytes.len() as u32
    }

    fn emit(&mut self, name: &str, raw: &[u32]) -> Result<(), String> {
        let i = Instr::from_raw(op(name), raw).map_err(|e| format!("{name} {raw:?}: {e}"))?;
        self.bytes.extend(i.to_bytes());
        Ok(())
    }

    fn label(&mut self, name: String) {
        self.labels.insert(name, self.pc());
    }

    /// `name` with operand `slot` (inserted into `raw`) taken from `label` as `fix` says.
    fn fixed(&mut self, name: &str, mut raw: Vec<u32>, slot: usize, label: String, fix: Fix) {
        raw.insert(slot, 0);
        let at = self.bytes.len();
        let o = op(name);
        let i = Instr::from_raw(o, &raw).expect("a zero operand encodes");
        self.bytes.extend(i.to_bytes());
        self.fixups.push((at, o, raw, slot, label, fix));
    }

    /// A branch to `label`; operand `slot` of `raw` is the offset.
    fn branch(&mut self, name: &str, raw: Vec<u32>, slot: usize, label: String) {
        self.fixed(name, raw, slot, label, Fix::Branch);
    }

    /// `rd = row` from a table: `gload.b32 rd, v120, u[62:63], offset`.
    fn load_row(&mut self, rd: u32, row: [u32; LANES]) {
        let index = self.tables.len();
        self.tables.push(row);
        let o = op("gload.b32");
        let raw = vec![rd, V_LANE4, U_CODE, 0, 0];
        let at = self.bytes.len();
        self.bytes
            .extend(Instr::from_raw(o, &raw).expect("encodes").to_bytes());
        self.table_fixups.push((at, o, raw, 3, index));
    }

    /// `u[r] = x`, in 4 bytes when `x` fits `umovi`'s 17-bit immediate.
    fn set_u(&mut self, r: u32, x: u32) -> Result<(), String> {
        if fits(x, 17) {
            self.emit("umovi", &[r, x & 0x1_ffff])
        } else {
            self.emit("umov.l", &[r, x])
        }
    }

    /// `v[r] = x` in every active lane.
    fn set_v(&mut self, r: u32, x: u32) -> Result<(), String> {
        if fits(x, 18) {
            self.emit("movi", &[r, x & 0x3_ffff])
        } else {
            self.emit("mov.vl", &[r, x])
        }
    }

    fn finish(mut self) -> Result<Vec<u8>, String> {
        let patch = |bytes: &mut Vec<u8>, at: usize, o: Op, raw: &[u32]| -> Result<(), String> {
            let i = Instr::from_raw(o, raw).map_err(|e| e.to_string())?;
            let b = i.to_bytes();
            bytes[at..at + b.len()].copy_from_slice(&b);
            Ok(())
        };
        for (at, o, mut raw, slot, label, fix) in std::mem::take(&mut self.fixups) {
            let target = *self
                .labels
                .get(&label)
                .ok_or_else(|| format!("no label {label}"))?;
            raw[slot] = match fix {
                Fix::Branch => {
                    let off = (i64::from(target) - at as i64) / 4;
                    let width = o.def().operands[slot].field.width();
                    (off as u32) & ((1u64 << width) - 1) as u32
                }
                Fix::Absolute(delta) => target.wrapping_add(delta),
            };
            patch(&mut self.bytes, at, o, &raw)?;
        }
        let tables = self.bytes.len().next_multiple_of(16);
        for (at, o, mut raw, slot, index) in std::mem::take(&mut self.table_fixups) {
            let off = (tables + 128 * index) as u32;
            raw[slot] = off & 0xff_ffff;
            patch(&mut self.bytes, at, o, &raw)?;
        }
        self.bytes.resize(tables, 0);
        for row in &self.tables {
            for x in row {
                self.bytes.extend(x.to_le_bytes());
            }
        }
        Ok(self.bytes)
    }
}

/// Build the self-checking program of `v` and make sure it passes on the model; a warp
/// whose case depends on where its code lies is skipped (it stores the pass word only).
pub fn build(v: &Vector) -> Result<SelfCheck, String> {
    let mut skipped: Vec<u32> = v
        .post
        .warps
        .iter()
        .zip(&v.pre.warps)
        .filter(|(post, pre)| {
            !matches!(post.status, Some(Status::Ended) | Some(Status::Trapped))
                || (post.status == Some(Status::Ended) && post.pc == pre.pc)
        })
        .map(|(post, _)| post.warp)
        .collect();
    loop {
        let code = generate(v, &skipped)?;
        let failed = failing_warps(&code, v.launch.block[0])?;
        if failed.is_empty() {
            let mut p = warpkit_asm::Program {
                text: code.clone(),
                ..warpkit_asm::Program::default()
            };
            p.data.clear();
            return Ok(SelfCheck {
                elf: warpkit_asm::write_elf(&p),
                code,
                block: v.launch.block[0],
                skipped,
            });
        }
        let before = skipped.len();
        skipped.extend(failed.iter().copied());
        skipped.sort_unstable();
        skipped.dedup();
        if skipped.len() == before {
            return Err(format!("warps {failed:?} fail even when skipped"));
        }
    }
}

/// The warps of the program that do not store the pass word on the model.
pub fn failing_warps(code: &[u8], block: u32) -> Result<Vec<u32>, String> {
    let words = run_result(code, block, Engine::Interp)?;
    Ok((0..block / 32)
        .filter(|&w| words.get(w as usize) != Some(&PASS))
        .collect())
}

/// Run a self-checking program on the model with the launch it documents (one workgroup
/// of `block` threads, a 64-byte result buffer then the memory buffer) and return the
/// result buffer's words.
pub fn run_result(code: &[u8], block: u32, engine: Engine) -> Result<Vec<u32>, String> {
    use warpkit_sim::launch::{launch, Arg, ArgValue, LaunchConfig};
    let mut p = warpkit_sim::Program::new(code.to_vec());
    p.set_engine(engine);
    let cfg = LaunchConfig {
        block: [block, 1, 1],
        shared_bytes: super::cases::SHARED_BYTES,
        threads: 1,
        max_steps: 1_000_000,
        ..LaunchConfig::default()
    };
    let args = vec![
        Arg {
            name: "result".into(),
            value: ArgValue::Buffer(vec![0; RESULT_BYTES as usize]),
        },
        Arg {
            name: "mem".into(),
            value: ArgValue::Buffer(vec![0; super::cases::REGION_BYTES as usize]),
        },
    ];
    let r = launch(&p, &cfg, args).map_err(|e| e.to_string())?;
    let bytes = r.buffer("result").ok_or("no result buffer")?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The hex text form (`warpkit asm --format hex`): one little-endian 32-bit word a line.
pub fn hex_text(code: &[u8]) -> String {
    let mut s = String::from("// .text\n");
    for c in code.chunks(4) {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        s.push_str(&format!("{:08x}\n", u32::from_le_bytes(w)));
    }
    s
}

fn generate(v: &Vector, skipped: &[u32]) -> Result<Vec<u8>, String> {
    let mut c = Code::default();
    let warps = v.pre.warps.len() as u32;
    c.emit("csrr", &[U_T, csr("warpid")?])?;
    for k in 0..warps {
        c.emit("uxor.l", &[U_X, U_T, k])?;
        c.branch("bz", vec![U_X], 1, format!("warp{k}"));
    }
    c.emit("endpgm", &[])?;
    fail_routine(&mut c)?;
    let memory = !v.pre.memory.is_empty();
    for k in 0..warps {
        c.label(format!("warp{k}"));
        if skipped.contains(&k) {
            c.branch("jmp", vec![], 0, "pass".into());
            continue;
        }
        warp(&mut c, v, k as usize, memory)?;
    }
    pass_routine(&mut c)?;
    c.finish()
}

fn csr(name: &str) -> Result<u32, String> {
    csr_by_name(name)
        .map(|d| u32::from(d.number))
        .ok_or_else(|| format!("no CSR {name}"))
}

fn full_exec(c: &mut Code) -> Result<(), String> {
    c.set_u(U_E, u32::MAX)?;
    c.emit("exec.set", &[U_E])
}

fn wait_all(c: &mut Code) -> Result<(), String> {
    c.emit("waitcnt", &[0, 0, 0, 0, 0, 0])
}

/// Store `value_reg`'s word at `result + 4 * warpid` with one lane.
fn store_result(c: &mut Code, value_reg: u32) -> Result<(), String> {
    c.set_u(U_E, 1)?;
    c.emit("exec.set", &[U_E])?;
    c.emit("mov.vu", &[V_A, value_reg])?;
    c.emit("csrr", &[U_T, csr("warpid")?])?;
    c.emit("mov.vu", &[V_B, U_T])?;
    c.emit("sll.vi", &[V_B, V_B, 2])?;
    c.set_u(U_BASE, RESULT_BASE as u32)?;
    c.set_u(U_BASE + 1, (RESULT_BASE >> 32) as u32)?;
    c.emit("gstore.b32", &[V_A, V_B, U_BASE, 0, 0])?;
    wait_all(c)
}

fn pass_routine(c: &mut Code) -> Result<(), String> {
    c.label("pass".into());
    c.set_u(U_X, PASS)?;
    store_result(c, U_X)?;
    c.emit("endpgm", &[])
}

/// `fail`: store FAIL | check, clear `trapbase`, and write the same word to `mode`: its
/// reserved bits make that trap with cause 8 and `trapinfo` the word.
fn fail_routine(c: &mut Code) -> Result<(), String> {
    c.label("fail".into());
    c.emit("uor.l", &[U_X, U_ID, FAIL])?;
    store_result(c, U_X)?;
    c.emit("umovi", &[U_T, 0])?;
    c.emit("csrw", &[csr("trapbase")?, U_T])?;
    c.emit("csrw", &[csr("mode")?, U_X])?;
    c.emit("endpgm", &[])
}

/// `bnz reg, fail` after setting the check number.
fn fail_if(c: &mut Code, reg: u32) {
    c.branch("bnz", vec![reg], 1, "fail".into());
}

fn check_id(c: &mut Code, id: u32) -> Result<(), String> {
    c.emit("umovi", &[U_ID, id])
}

fn uniform_row(row: &[u32]) -> Option<u32> {
    row.iter().all(|&x| x == row[0]).then_some(row[0])
}

fn warp(c: &mut Code, v: &Vector, k: usize, memory: bool) -> Result<(), String> {
    let pre = &v.pre.warps[k];
    let post = &v.post.warps[k];
    full_exec(c)?;
    c.emit("csrr", &[U_CODE, csr("code_lo")?])?;
    c.emit("csrr", &[U_CODE + 1, csr("code_hi")?])?;
    c.emit("laneid", &[V_LANE4])?;
    c.emit("sll.vi", &[V_LANE4, V_LANE4, 2])?;
    let area = AREA as u32 * k as u32;
    if memory {
        c.set_u(U_BASE, GLOBAL_BASE as u32)?;
        c.set_u(U_BASE + 1, (GLOBAL_BASE >> 32) as u32)?;
        for chunk in 0..AREA as u32 / 128 {
            c.emit("add.vl", &[V_A, V_LANE4, area + 128 * chunk])?;
            c.emit("add.vl", &[V_B, V_A, GLOBAL_PATTERN])?;
            c.emit("gstore.b32", &[V_B, V_A, U_BASE, 0, 0])?;
            c.emit("add.vl", &[V_C, V_A, SHARED_PATTERN])?;
            c.emit("dsstore.b32", &[V_C, V_A, 0])?;
        }
        wait_all(c)?;
    }
    // The pre-state.
    for r in 0..U_SCRATCH {
        c.set_u(r, pre.u[r as usize])?;
    }
    for r in 0..V_SCRATCH {
        let row: [u32; LANES] = pre.v[r as usize]
            .as_slice()
            .try_into()
            .map_err(|_| "a row")?;
        match uniform_row(&row) {
            Some(x) => c.set_v(r, x)?,
            None => c.load_row(r, row),
        }
    }
    wait_all(c)?;
    let trapped = post.status == Some(Status::Trapped);
    for name in ["mode", "fflags", "trapbase"] {
        let x = pre.csr.get(name).copied().unwrap_or(0);
        if name == "trapbase" && trapped {
            // An offset from CODE_BASE, like the PC.
            c.fixed("umov.l", vec![U_T], 1, format!("trap{k}"), Fix::Absolute(0));
        } else {
            c.set_u(U_T, x)?;
        }
        c.emit("csrw", &[csr(name)?, U_T])?;
    }
    c.set_u(U_E, pre.exec)?;
    c.emit("exec.set", &[U_E])?;
    // The instruction under test, as the vector lays it out; its `endpgm`s go on to the
    // checks instead.
    c.label(format!("test{k}"));
    let start = pre.pc as usize;
    let end = v
        .pre
        .warps
        .iter()
        .map(|w| w.pc as usize)
        .filter(|&p| p > start)
        .min()
        .unwrap_or(v.program.code.len());
    let block = v
        .program
        .code
        .get(start..end)
        .ok_or("a block outside the code")?;
    let endpgm = Instr::from_raw(op("endpgm"), &[]).map_err(|e| e.to_string())?;
    let mut at = 0;
    let mut first = true;
    while at < block.len() {
        let (ins, len) = warpkit_isa::decode(&block[at..]).map_err(|e| e.to_string())?;
        if !first && ins == endpgm {
            let after = if trapped { "notrap" } else { "check" };
            c.branch("jmp", vec![], 0, format!("{after}{k}"));
            if Instr::from_raw(op("jmp"), &[0])
                .map_err(|e| e.to_string())?
                .len()
                != len
            {
                return Err("jmp and endpgm differ in length".into());
            }
        } else {
            c.bytes.extend(&block[at..at + len]);
        }
        first = false;
        at += len;
    }
    if trapped {
        // Not trapping when the vector does is a failure of its own.
        c.label(format!("notrap{k}"));
        check_id(c, CHECK_NO_TRAP)?;
        c.branch("jmp", vec![], 0, "fail".into());
        c.label(format!("trap{k}"));
        let t = post.trap.ok_or("a trapped warp without its trap")?;
        for (name, x, id) in [
            ("trapcause", t.cause, 0),
            ("trapinfo", t.info, 1),
            ("trappc", t.pc, 2),
        ] {
            check_id(c, CHECK_TRAP | id)?;
            c.emit("csrr", &[U_T, csr(name)?])?;
            if name == "trappc" {
                // The vector's PC, moved to where this program has the instruction.
                let delta = t.pc.wrapping_sub(pre.pc);
                c.fixed(
                    "uxor.l",
                    vec![U_T, U_T],
                    2,
                    format!("test{k}"),
                    Fix::Absolute(delta),
                );
            } else {
                c.emit("uxor.l", &[U_T, U_T, x])?;
            }
            fail_if(c, U_T);
        }
    }
    c.label(format!("check{k}"));
    wait_all(c)?;
    check_state(c, v, k, post, trapped, memory)?;
    c.branch("jmp", vec![], 0, "pass".into());
    Ok(())
}

fn check_state(
    c: &mut Code,
    v: &Vector,
    k: usize,
    post: &WarpState,
    trapped: bool,
    memory: bool,
) -> Result<(), String> {
    check_id(c, CHECK_EXEC)?;
    c.emit("exec.get", &[U_T])?;
    c.emit("uxor.l", &[U_T, U_T, post.exec])?;
    fail_if(c, U_T);
    full_exec(c)?;
    for (name, id) in [("mode", 1), ("fflags", 2), ("trapbase", 0x40)] {
        if name == "trapbase" && trapped {
            continue;
        }
        check_id(c, CHECK_CSR | id)?;
        c.emit("csrr", &[U_T, csr(name)?])?;
        c.emit(
            "uxor.l",
            &[U_T, U_T, post.csr.get(name).copied().unwrap_or(0)],
        )?;
        fail_if(c, U_T);
    }
    for r in 0..U_SCRATCH {
        check_id(c, CHECK_U | r)?;
        let x = post.u[r as usize];
        if x == 0 {
            fail_if(c, r);
        } else {
            c.emit("uxor.l", &[U_T, r, x])?;
            fail_if(c, U_T);
        }
    }
    for r in 0..V_SCRATCH {
        check_id(c, CHECK_V | r)?;
        let row: [u32; LANES] = post.v[r as usize]
            .as_slice()
            .try_into()
            .map_err(|_| "a row")?;
        match uniform_row(&row) {
            Some(x) if fits(x, 8) => c.emit("cmp.ne.i32.vi", &[U_T, r, x & 0xff])?,
            Some(x) => {
                c.set_u(U_X, x)?;
                c.emit("cmp.ne.i32.vu", &[U_T, r, U_X])?;
            }
            None => {
                c.load_row(V_A, row);
                wait_all(c)?;
                c.emit("cmp.ne.i32", &[U_T, r, V_A])?;
            }
        }
        fail_if(c, U_T);
    }
    if memory {
        let area = AREA as u32 * k as u32;
        c.set_u(U_BASE, GLOBAL_BASE as u32)?;
        c.set_u(U_BASE + 1, (GLOBAL_BASE >> 32) as u32)?;
        for chunk in 0..AREA as u32 / 128 {
            let offset = area + 128 * chunk;
            c.emit("add.vl", &[V_A, V_LANE4, offset])?;
            c.emit("gload.b32", &[V_B, V_A, U_BASE, 0, 0])?;
            c.emit("dsload.b32", &[V_C, V_A, 0])?;
            wait_all(c)?;
            for (space, reg, id) in [
                (Space::Global, V_B, CHECK_GLOBAL),
                (Space::Shared, V_C, CHECK_SHARED),
            ] {
                let region = v
                    .post
                    .memory
                    .iter()
                    .find(|r| r.space == space)
                    .ok_or("a memory vector without its regions")?;
                let mut row = [0u32; LANES];
                for (l, x) in row.iter_mut().enumerate() {
                    let o = offset as usize + 4 * l;
                    let b = region.bytes.get(o..o + 4).ok_or("a region too short")?;
                    *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                check_id(c, id | chunk)?;
                c.load_row(V_A, row);
                wait_all(c)?;
                c.emit("cmp.ne.i32", &[U_T, reg, V_A])?;
                fail_if(c, U_T);
            }
        }
    }
    Ok(())
}
