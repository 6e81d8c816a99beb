//! The commit record says everything an instruction changed: applying it to the state
//! before the instruction gives the state after. Checked for every database variant
//! (integer, float, memory, system) from random states, and, through the JSON trace, for
//! random programs whose traced run is replayed from the initial state and compared with
//! the final state of plain runs on both engines.

use crate::common::{jits, On};
use proptest::prelude::*;
use std::collections::BTreeMap;
use warpkit_isa::{Flags, Instr, Latency, Op, OperandClass, ALL_OPS, CSRS};
use warpkit_sim::launch::{self, Arg, ArgValue, LaunchConfig, BUFFER_BASE};
use warpkit_sim::memory::{GlobalMemory, SharedMemory};
use warpkit_sim::*;

/// The architectural state an observer can see: registers, EXEC, CSRs and memory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    v: Vec<Row>,
    u: Vec<u32>,
    exec: u32,
    csr: BTreeMap<u32, u32>,
    /// Global memory by byte address, and shared memory by offset.
    global: BTreeMap<u64, u8>,
    shared: BTreeMap<u64, u8>,
}

impl State {
    fn of(w: &Warp) -> State {
        State {
            v: w.v.to_vec(),
            u: w.u.to_vec(),
            exec: w.exec(),
            csr: CSRS
                .iter()
                .filter_map(|c| {
                    let n = u32::from(c.number);
                    w.csr.get(n).map(|x| (n, x))
                })
                .collect(),
            global: BTreeMap::new(),
            shared: BTreeMap::new(),
        }
    }

    fn with_memory(mut self, global: &[u8], base: u64, shared: &SharedMemory) -> State {
        self.global = (base..).zip(global.iter().copied()).collect();
        self.shared = (0..shared.len() / 4)
            .flat_map(|i| {
                let w = shared.word(i).unwrap_or(0);
                (0..4).map(move |k| (4 * i + k, (w >> (8 * k)) as u8))
            })
            .collect();
        self
    }

    fn write(&mut self, w: &Written) {
        match w {
            Written::V { reg, lanes } => {
                for &(l, x) in lanes {
                    self.v[*reg as usize][l as usize] = x;
                }
            }
            Written::U { reg, value } => self.u[*reg as usize] = *value,
            Written::Exec(e) => self.exec = *e,
            Written::Csr { number, value, .. } => {
                self.csr.insert(*number, *value);
            }
        }
    }

    fn store(&mut self, space: hooks::MemSpace, addr: u64, data: &[u32], mask: u32) {
        let mem = match space {
            hooks::MemSpace::Global => &mut self.global,
            hooks::MemSpace::Shared => &mut self.shared,
        };
        for i in 0..32u64 {
            if (mask >> i) & 1 != 0 {
                let word = data.get(i as usize / 4).copied().unwrap_or(0);
                mem.insert(addr + i, (word >> (8 * (i % 4))) as u8);
            }
        }
    }

    /// Apply one commit: retired write-backs (they happen first: a counter at its limit
    /// retires before the instruction issues), then the instruction's own writes and its
    /// stores.
    fn apply(&mut self, c: &Commit) {
        for (_, writes) in &c.retired {
            for w in writes {
                self.write(w);
            }
        }
        for w in &c.writes {
            self.write(w);
        }
        for m in &c.mem {
            if m.kind != hooks::MemKind::Load {
                for l in &m.lanes {
                    self.store(m.space, l.addr, &l.data, l.mask);
                }
            }
        }
    }
}

/// Collects the commit of every instruction.
#[derive(Default)]
struct Commits(Vec<Commit>);

impl Hooks for Commits {
    const ENABLED: bool = true;
    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        self.0.push(Commit::capture(warp, prog, pc, exec_before));
        Control::Continue
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next() % n.max(1)
    }

    /// A register value: any word, an edge of the integer ranges, or a float edge.
    fn value(&mut self) -> u32 {
        const EDGES: [u32; 16] = [
            0,
            1,
            31,
            32,
            0x7fff_ffff,
            0x8000_0000,
            u32::MAX,
            0x3f80_0000,
            0xbf80_0000,
            0x7f80_0000,
            0x7fc0_0000,
            0x0000_0001,
            0x0080_0000,
            0x3c00_3c00,
            0x7bff_0001,
            0x4000_0000,
        ];
        match self.below(4) {
            0 => EDGES[self.below(16) as usize],
            1 => self.below(64),
            _ => self.next(),
        }
    }
}

/// The base of the one global buffer the every-variant test maps.
const BASE: u64 = 0x1_0000_0000;
const MEMORY_BYTES: usize = 1 << 14;

/// Raw operand fields for `op`: registers aligned as their type asks (an unaligned pair
/// or a reserved value now and then, which must trap and change nothing), enums from
/// their values, small aligned memory offsets.
fn fields(op: Op, rng: &mut Rng) -> Vec<u32> {
    let def = op.def();
    let memory = is_memory(op);
    def.operands
        .iter()
        .map(|o| {
            let ty = o.kind.ty;
            let width = o.field.width();
            let mask = if width >= 32 {
                u32::MAX
            } else {
                (1 << width) - 1
            };
            let x = match ty.class {
                OperandClass::VReg | OperandClass::UReg => {
                    let count = if ty.class == OperandClass::VReg {
                        128
                    } else {
                        64
                    };
                    let span = u32::from(o.kind.regs.max(1));
                    let align = u32::from(ty.align.max(1));
                    let mut r = rng.below((count - span + 1) / align) * align;
                    if rng.below(40) == 0 {
                        r |= 1; // unaligned, where alignment matters: IllegalInsn
                    }
                    if ty.half {
                        (r << 1) | rng.below(2)
                    } else {
                        r
                    }
                }
                _ if o.name == "imm" && memory => 16 * rng.below(8),
                OperandClass::Enum if !ty.values.is_empty() && rng.below(30) != 0 => {
                    ty.values[rng.below(ty.values.len() as u32) as usize].1
                }
                _ => match ty.reserved {
                    Some((lo, hi)) if rng.below(30) != 0 => {
                        let v = rng.next() & mask;
                        if (lo..=hi).contains(&v) {
                            v % lo.max(1)
                        } else {
                            v
                        }
                    }
                    _ => rng.next(),
                },
            };
            x & mask
        })
        .collect()
}

/// Point the address operands of a memory instruction at the buffer (global, 64-bit and
/// uniform forms) or inside shared memory, 16 bytes a lane, so most accesses succeed.
fn aim(w: &mut Warp, ins: &Instr) {
    let def = ins.def();
    let reg = |name: &str| {
        def.operands
            .iter()
            .position(|o| o.name == name)
            .map(|k| (&def.operands[k], ins.raw(k) as usize))
    };
    if !is_memory(ins.op()) {
        return;
    }
    let offsets = |w: &mut Warp, r: usize| {
        if r < NUM_VREGS {
            for l in 0..LANES {
                w.v[r][l] = 16 * l as u32;
            }
        }
    };
    match (reg("rs1"), reg("rs2")) {
        // Global: U64[rs2] + zext(v[rs1]) + imm.
        (Some((_, a)), Some((b, rb))) if b.kind.ty.class == OperandClass::UReg => {
            offsets(w, a);
            if rb + 1 < NUM_UREGS {
                w.u[rb] = BASE as u32;
                w.u[rb + 1] = (BASE >> 32) as u32;
            }
        }
        // 64-bit addresses per lane (v pair) or a uniform base (u pair).
        (Some((a, ra)), None) if a.kind.regs == 2 => {
            if a.kind.ty.class == OperandClass::VReg && ra + 1 < NUM_VREGS {
                for l in 0..LANES {
                    let addr = BASE + 16 * l as u64;
                    w.v[ra][l] = addr as u32;
                    w.v[ra + 1][l] = (addr >> 32) as u32;
                }
            } else if ra + 1 < NUM_UREGS {
                w.u[ra] = BASE as u32;
                w.u[ra + 1] = (BASE >> 32) as u32;
            }
        }
        // Shared: zext(v[rs1]) + imm.
        (Some((_, a)), None) => offsets(w, a),
        _ => {}
    }
}

/// A random valid `mode`: rounding mode, flushing and, now and then, trap enables.
fn mode(rng: &mut Rng) -> u32 {
    let rm = rng.below(5);
    let ftz = rng.below(4) << 3;
    let traps = if rng.below(6) == 0 {
        rng.below(32) << 5
    } else {
        0
    };
    rm | ftz | traps
}

/// One trial of `op`: a random state, the instruction, then `endpgm` (which retires what
/// the instruction left pending). Returns whether the instruction trapped.
fn trial(op: Op, rng: &mut Rng) -> bool {
    let raw = fields(op, rng);
    let Ok(ins) = Instr::from_raw(op, &raw) else {
        panic!("{} does not build from {raw:?}", op.mnemonic());
    };
    let mut text = ins.to_bytes();
    let end_pc = text.len() as u32;
    text.extend(Instr::from_raw(Op::Endpgm, &[]).unwrap().to_bytes());
    let prog = Program::new(text);

    let exec = match rng.below(4) {
        0 => u32::MAX,
        1 => 1 << rng.below(32),
        _ => rng.next(),
    };
    let mut w = Warp::new(WarpId::default(), exec);
    for r in 0..NUM_VREGS {
        for l in 0..LANES {
            w.v[r][l] = rng.value();
        }
    }
    for r in 0..NUM_UREGS {
        w.u[r] = rng.value();
    }
    aim(&mut w, &ins);
    w.csr.set(csr::num::MODE, mode(rng));
    w.csr.set(csr::num::FFLAGS, rng.below(32));
    // A handler, when there is one, is the `endpgm`.
    w.csr.set(
        csr::num::TRAPBASE,
        if rng.below(2) == 0 { 0 } else { end_pc },
    );

    let mut bytes = vec![0u8; MEMORY_BYTES];
    for b in bytes.iter_mut() {
        *b = rng.next() as u8;
    }
    let mut global = GlobalMemory::default();
    assert!(global.map(BASE, &bytes));
    let mut shared = SharedMemory::new(MEMORY_BYTES as u32);
    let mut state = State::of(&w).with_memory(&bytes, BASE, &shared);
    let mut env = MemEnv::new(&global, &mut shared);
    let mut core = Core::default();
    let mut commits = Commits::default();
    for step in 0..2 {
        if w.status != WarpStatus::Running {
            break;
        }
        w.step(&prog, &mut core, &mut env, &mut commits, 10);
        let c = commits.0.last().expect("a commit").clone();
        state.apply(&c);
        let global_now = global.bytes_at(BASE).unwrap_or_default();
        let after = State::of(&w).with_memory(&global_now, BASE, env.shared);
        if state != after {
            let what = describe_difference(&state, &after);
            panic!(
                "step {step} of `{ins}` (EXEC {exec:#x}): the commit {c:?} does not account for \
                 the state change: {what}"
            );
        }
    }
    commits.0.first().is_some_and(|c| c.trap.is_some())
}

fn describe_difference(expected: &State, actual: &State) -> String {
    let mut out = Vec::new();
    for (r, (a, b)) in expected.v.iter().zip(&actual.v).enumerate() {
        for l in 0..LANES {
            if a[l] != b[l] {
                out.push(format!(
                    "v{r}[{l}]: replayed {:#x}, actual {:#x}",
                    a[l], b[l]
                ));
            }
        }
    }
    for (r, (a, b)) in expected.u.iter().zip(&actual.u).enumerate() {
        if a != b {
            out.push(format!("u{r}: replayed {a:#x}, actual {b:#x}"));
        }
    }
    if expected.exec != actual.exec {
        out.push(format!(
            "exec: replayed {:#x}, actual {:#x}",
            expected.exec, actual.exec
        ));
    }
    for (n, a) in &expected.csr {
        let b = actual.csr.get(n).copied().unwrap_or_default();
        if *a != b {
            out.push(format!("csr {n:#x}: replayed {a:#x}, actual {b:#x}"));
        }
    }
    for (name, x, y) in [
        ("global", &expected.global, &actual.global),
        ("shared", &expected.shared, &actual.shared),
    ] {
        for (addr, a) in x {
            if y.get(addr) != Some(a) {
                out.push(format!(
                    "{name} byte {addr:#x}: replayed {a:#x}, actual {:?}",
                    y.get(addr)
                ));
            }
        }
    }
    out.truncate(8);
    out.join("; ")
}

#[test]
fn every_variant_commits_exactly_what_it_changes() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut ran_without_trap = 0;
    for &op in ALL_OPS.iter() {
        let mut clean = 0;
        for _ in 0..16 {
            if !trial(op, &mut rng) {
                clean += 1;
            }
        }
        if clean > 0 {
            ran_without_trap += 1;
        }
    }
    // The trials are worth something only if every variant ran at least once without
    // trapping (a guard against aiming the memory instructions or drawing the operands
    // wrongly: a variant that always traps would be checked on its trap path only).
    assert_eq!(
        ran_without_trap,
        ALL_OPS.len(),
        "some variants trapped in every trial"
    );
}

// ---- trace replay ---------------------------------------------------------------------

/// The states a JSON trace leads to from `start`: each record's register, EXEC and CSR
/// writes and retired write-backs, in order, on its warp; the stores of every warp on the
/// memory of the first.
fn replay(trace: &str, start: &[State]) -> Vec<State> {
    let mut states = start.to_vec();
    let mut memory = states[0].clone();
    let num = |v: &serde_json::Value| v.as_u64().expect("a number");
    for line in trace.lines() {
        let rec: serde_json::Value = serde_json::from_str(line).expect("a JSON record");
        if rec.get("schema").is_some() {
            continue;
        }
        let s = &mut states[num(&rec["warp"]) as usize];
        let vs = |v: &serde_json::Value, s: &mut State| {
            for w in v.as_array().unwrap() {
                let r = num(&w["reg"]) as usize;
                for lane in w["lanes"].as_array().unwrap() {
                    s.v[r][num(&lane[0]) as usize] = num(&lane[1]) as u32;
                }
            }
        };
        let us = |v: &serde_json::Value, s: &mut State| {
            for w in v.as_array().unwrap() {
                s.u[num(&w["reg"]) as usize] = num(&w["value"]) as u32;
            }
        };
        for r in rec["retired"].as_array().unwrap() {
            vs(&r["v"], s);
            us(&r["u"], s);
        }
        vs(&rec["v"], s);
        us(&rec["u"], s);
        if let Some(e) = rec["exec_write"].as_u64() {
            s.exec = e as u32;
        }
        for c in rec["csr"].as_array().unwrap() {
            s.csr
                .insert(num(&c["number"]) as u32, num(&c["value"]) as u32);
        }
        for m in rec["mem"].as_array().unwrap() {
            if m["kind"] == "load" {
                continue;
            }
            let space = if m["space"] == "shared" {
                hooks::MemSpace::Shared
            } else {
                hooks::MemSpace::Global
            };
            for l in m["lanes"].as_array().unwrap() {
                let data: Vec<u32> = l["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| num(d) as u32)
                    .collect();
                memory.store(space, num(&l["addr"]), &data, num(&l["mask"]) as u32);
            }
        }
    }
    states[0].global = memory.global;
    states
}

/// A random program that first gives registers values (literal moves), then runs random
/// instructions over a few registers, memory instructions aimed at the launch's buffer
/// (`u4:u5` its base, `v6` 16 bytes a lane), and ends.
fn random_program(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut text = Vec::new();
    let put = |text: &mut Vec<u8>, op: Op, raw: &[u32]| {
        text.extend(Instr::from_raw(op, raw).unwrap().to_bytes());
    };
    for r in 0..8 {
        put(&mut text, Op::MovVl, &[r, rng.value()]);
        put(&mut text, Op::UmovL, &[r, rng.value()]);
    }
    put(&mut text, Op::UmovL, &[4, BUFFER_BASE as u32]);
    put(&mut text, Op::UmovL, &[5, (BUFFER_BASE >> 32) as u32]);
    put(&mut text, Op::Laneid, &[6]);
    put(&mut text, Op::SllVi, &[6, 6, 4]);
    for _ in 0..len {
        let op = ALL_OPS[rng.below(ALL_OPS.len() as u32) as usize];
        let def = op.def();
        // Control flow that leaves the program only ends it early: keep the generator's
        // branches short and forward.
        let mut raw = fields(op, &mut rng);
        for (k, o) in def.operands.iter().enumerate() {
            match o.kind.ty.class {
                OperandClass::VReg | OperandClass::UReg if o.name == "rs1" && is_memory(op) => {
                    raw[k] = if o.kind.ty.class == OperandClass::VReg {
                        6
                    } else {
                        4
                    }
                }
                OperandClass::UReg if o.name == "rs2" && is_memory(op) => raw[k] = 4,
                OperandClass::VReg | OperandClass::UReg => {
                    let align = u32::from(o.kind.ty.align.max(1));
                    let r = (raw[k] % 8) / align * align;
                    raw[k] = if o.kind.ty.half {
                        r << 1 | (raw[k] & 1)
                    } else {
                        r
                    };
                }
                OperandClass::SImm if def.flags.contains(Flags::BR) => raw[k] = 1 + raw[k] % 3,
                _ => {}
            }
        }
        if let Ok(i) = Instr::from_raw(op, &raw) {
            text.extend(i.to_bytes());
        }
    }
    put(&mut text, Op::Endpgm, &[]);
    text
}

fn is_memory(op: Op) -> bool {
    let def = op.def();
    matches!(def.latency, Latency::Async(_)) && (def.format.name == "M" || def.format.name == "UM")
}

fn bare_config() -> LaunchConfig {
    LaunchConfig {
        block: [64, 1, 1],
        bare: true,
        keep_warps: true,
        max_steps: 2000,
        threads: 1,
        shared_bytes: 4096,
        ..LaunchConfig::default()
    }
}

fn args() -> Vec<Arg> {
    vec![Arg {
        name: "buf".into(),
        value: ArgValue::Buffer((0..4096u32).map(|i| (i * 7) as u8).collect()),
    }]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn replaying_the_trace_gives_the_final_state(seed in any::<u64>(), len in 1usize..60) {
        let text = random_program(seed, len);
        let mut program = Program::new(text);
        program.set_engine(Engine::Interp);
        let (traced, out) = launch::launch_traced(
            &program, &bare_config(), args(), Vec::new(), TraceFormat::Json,
        ).expect("a launch");
        let trace = String::from_utf8(out.expect("a trace")).expect("UTF-8");
        let mut fresh: Vec<State> = (0..2)
            .map(|_| State::of(&Warp::new(WarpId::default(), u32::MAX)))
            .collect();
        let ArgValue::Buffer(initial) = &args()[0].value else { unreachable!() };
        fresh[0].global = (BUFFER_BASE..).zip(initial.iter().copied()).collect();
        let replayed = replay(&trace, &fresh);
        let replayed_buffer: Vec<u8> = replayed[0].global.values().copied().collect();
        let traced_buffer = traced.buffer("buf");
        prop_assert_eq!(traced_buffer.as_deref(), Some(replayed_buffer.as_slice()));
        for on in [On::Interp].into_iter().chain(jits()) {
            let p = on.program(&program);
            let run = launch::launch(&p, &bare_config(), args()).expect("a launch");
            let mut finals: Vec<State> = run.warps.iter().map(State::of).collect();
            finals[0].global = replayed[0].global.clone();
            for (k, (a, b)) in replayed.iter().zip(&finals).enumerate() {
                prop_assert!(a == b, "warp {k} on {on:?}: {}", describe_difference(a, b));
            }
            prop_assert_eq!(&run.buffers, &traced.buffers);
        }
    }
}
