//! Constrained-random programs from the ISA database (`warpkit gen`, docs/gen.md).
//!
//! A program is assembly text: a header comment with the seed and options, the provisional
//! launch directives (`.launch`, `.launch_arg`, docs/assembly.md) so `warpkit run FILE.s`
//! alone runs it, a prologue that finds each warp's memory, a body of instructions drawn
//! from the database's tables by weight with directed streams ([`StreamKind`]) inserted at
//! a rate per 1000 instructions, and an epilogue that stores the signature — every
//! register, EXEC and the writable CSRs of every warp — into the buffer argument `sig`
//! ([`crate::signature`]).
//!
//! Without `traps` a program never traps, never hazards (every read or write of a register
//! with a pending write-back waits for it first, [`pending`]) and always ends (loops are
//! bounded by construction). Warps of a workgroup run the same code on their own memory;
//! they meet only at top-level barriers, and share only words updated by commutative
//! atomics read after a barrier, so the result does not depend on the order warps run in.

mod pending;
mod random;
mod rng;
mod streams;
mod weights;

pub use pending::{Pending, Regs};
pub use rng::Rng;
pub use weights::{Weights, WeightsError, DEFAULT_GROUP_WEIGHT, MAX_WEIGHT};

use std::collections::BTreeMap;
use std::fmt::Write as _;
use warpkit_host::launch_file::LaunchDirectives;
use warpkit_isa::{Flags, Instr, Latency, Op, OperandClass, Role};

/// The kinds of directed instruction streams (riscv-dv's "streams") a program mixes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StreamKind {
    /// EXEC patterns: full, empty, one lane, random; saveexec if/else; uniform and
    /// divergent loops, nested.
    Exec,
    /// Uniform and vector operands mixed: `.vu`, `.vi`, `.vl` forms, broadcasts, compares
    /// to masks, `movrel` with a bounded index.
    Operands,
    /// 64-bit register pairs: chains of pair instructions over the same pairs.
    Pairs,
    /// Memory: global (uniform base and 64-bit per-lane address) and shared loads, stores
    /// and atomics, aligned and unaligned-but-legal, always in bounds.
    Memory,
    /// Barriers across warps: a neighbour warp's stores read after a barrier, and
    /// workgroup-wide commutative atomics read after one.
    Barrier,
    /// Several loads in flight, other work, and partial `waitcnt`s before each result is
    /// read.
    Waitcnt,
    /// CSR reads and legal writes (`fflags`, `mode`, the trap CSRs, `exec`).
    Csr,
    /// Floating point on special values: NaN, infinities, denormals, ±0, extremes.
    Float,
    /// Uniform branches: forward conditional branches over code, on uniform values.
    Branch,
}

impl StreamKind {
    /// Every kind, in the order of the documentation.
    pub const ALL: [StreamKind; 9] = [
        StreamKind::Exec,
        StreamKind::Operands,
        StreamKind::Pairs,
        StreamKind::Memory,
        StreamKind::Barrier,
        StreamKind::Waitcnt,
        StreamKind::Csr,
        StreamKind::Float,
        StreamKind::Branch,
    ];

    /// The kind's name in weights files and `--streams`.
    pub fn name(self) -> &'static str {
        match self {
            StreamKind::Exec => "exec",
            StreamKind::Operands => "operands",
            StreamKind::Pairs => "pairs",
            StreamKind::Memory => "memory",
            StreamKind::Barrier => "barrier",
            StreamKind::Waitcnt => "waitcnt",
            StreamKind::Csr => "csr",
            StreamKind::Float => "float",
            StreamKind::Branch => "branch",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<StreamKind> {
        StreamKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Insertions per 1000 instructions when the weights do not say.
    pub fn default_rate(self) -> u32 {
        match self {
            StreamKind::Exec => 30,
            StreamKind::Operands => 20,
            StreamKind::Pairs => 15,
            StreamKind::Memory => 40,
            StreamKind::Barrier => 10,
            StreamKind::Waitcnt => 20,
            StreamKind::Csr => 12,
            StreamKind::Float => 20,
            StreamKind::Branch => 15,
        }
    }
}

/// How to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenOptions {
    /// Instructions in the body, about (streams finish what they started); the prologue
    /// and the signature come on top.
    pub length: usize,
    /// Group and instruction weights and stream rates.
    pub weights: Weights,
    /// Only these stream kinds (all when `None`).
    pub streams: Option<Vec<StreamKind>>,
    /// End the body with a trapping operation (docs/gen.md, "Traps").
    pub traps: bool,
}

impl Default for GenOptions {
    fn default() -> GenOptions {
        GenOptions {
            length: DEFAULT_LENGTH,
            weights: Weights::default(),
            streams: None,
            traps: false,
        }
    }
}

/// The default body length.
pub const DEFAULT_LENGTH: usize = 200;
/// The longest body `generate` accepts (programs stay well inside the assembler's limits).
pub const MAX_LENGTH: usize = 1_000_000;

impl GenOptions {
    /// The rate of `kind` per 1000 instructions under these options.
    pub fn rate(&self, kind: StreamKind) -> u32 {
        match &self.streams {
            Some(only) if !only.contains(&kind) => 0,
            _ => self.weights.stream(kind),
        }
    }

    /// The options as `warpkit gen` arguments (the header comment shows them).
    pub fn describe(&self) -> String {
        let mut s = format!("--length {}", self.length);
        if let Some(only) = &self.streams {
            let names: Vec<&str> = only.iter().map(|k| k.name()).collect();
            let _ = write!(s, " --streams {}", names.join(","));
        }
        if self.traps {
            s.push_str(" --traps");
        }
        s
    }
}

/// What a trapping program (`traps`) ends its body with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TrapKind {
    /// A word that does not decode (cause 1).
    IllegalWord,
    /// A decodable instruction with a reserved operand value (cause 1).
    ReservedOperand,
    /// A misaligned global load (cause 4).
    Misaligned,
    /// A load past the end of a buffer (cause 5).
    OutOfBounds,
    /// A read of an unknown CSR (cause 9).
    UnknownCsr,
    /// A write to a read-only CSR (cause 9).
    ReadOnlyCsr,
    /// A `mode` write with reserved bits (cause 8).
    ModeReserved,
}

impl TrapKind {
    const ALL: [TrapKind; 7] = [
        TrapKind::IllegalWord,
        TrapKind::ReservedOperand,
        TrapKind::Misaligned,
        TrapKind::OutOfBounds,
        TrapKind::UnknownCsr,
        TrapKind::ReadOnlyCsr,
        TrapKind::ModeReserved,
    ];

    /// The trap cause it raises (docs/abi.md, "Trap causes").
    pub fn cause(self) -> u32 {
        match self {
            TrapKind::IllegalWord | TrapKind::ReservedOperand => 1,
            TrapKind::Misaligned => 4,
            TrapKind::OutOfBounds => 5,
            TrapKind::UnknownCsr | TrapKind::ReadOnlyCsr => 9,
            TrapKind::ModeReserved => 8,
        }
    }
}

/// One generated program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedProgram {
    /// The seed it was generated from.
    pub seed: u64,
    /// The assembly text, launch directives included.
    pub text: String,
    /// Its launch (also written in `text` as directives).
    pub launch: LaunchDirectives,
    /// Workgroups in the grid.
    pub workgroups: u32,
    /// Warps per workgroup.
    pub warps: u32,
    /// Bytes of the `sig` buffer: [`SIG_WARP_BYTES`] per warp of the grid.
    pub sig_bytes: u64,
    /// Stream insertions by kind.
    pub streams: BTreeMap<StreamKind, u32>,
    /// Instructions in the body, streams included.
    pub body_instructions: usize,
    /// With `traps`: what ends the body, and whether a trap handler (`trapbase`) stores
    /// the signature afterwards.
    pub trap: Option<(TrapKind, bool)>,
}

/// Bytes of the signature header of a warp: EXEC at the end of the body, then `fflags`,
/// `mode`, `trapcause`, `trappc`, `trapinfo`, `trapbase`, and 0.
pub const SIG_HEADER_BYTES: u64 = 32;
/// Offset of `u0`..`u63` (4 bytes each) in a warp's signature.
pub const SIG_U_OFFSET: u64 = SIG_HEADER_BYTES;
/// Offset of `v0`..`v127` (32 lanes of 4 bytes each, lane 0 first) in a warp's signature.
pub const SIG_V_OFFSET: u64 = SIG_U_OFFSET + 64 * 4;
/// Bytes of one warp's signature; warp `w` of workgroup `g` has the `g * warps + w`-th.
pub const SIG_WARP_BYTES: u64 = SIG_V_OFFSET + 128 * 128;
/// The CSRs the header stores after EXEC, in order.
pub const SIG_CSRS: [&str; 6] = [
    "fflags",
    "mode",
    "trapcause",
    "trappc",
    "trapinfo",
    "trapbase",
];

/// Bytes of a warp's own region of the `buf` argument.
pub const GLOBAL_REGION: u32 = 4096;
/// Bytes of a workgroup's shared words in `buf`, after every warp's region.
pub const GLOBAL_COMMON: u32 = 64;
/// Bytes of a warp's own region of shared memory.
pub const SHARED_REGION: u32 = 1024;
/// Bytes of a workgroup's shared words in shared memory, after the warps' regions.
pub const SHARED_COMMON: u32 = 64;

// Registers. The body draws from the pools; the rest belong to the program's machinery.
/// Vector registers `v0..V_POOL` are drawn at random.
pub(crate) const V_POOL: u32 = 112;
/// Uniform registers `u0..U_POOL` are drawn at random.
pub(crate) const U_POOL: u32 = 36;
/// Per nesting level of EXEC constructs, four uniform registers from here.
pub(crate) const U_NEST: u32 = 36;
pub(crate) const MAX_NEST: u32 = 3;
/// The neighbour warp's region offset in shared memory.
pub(crate) const U_NSOFF: u32 = 48;
/// `u[52:53]`: this warp's signature; `u[54:55]`: `buf`.
pub(crate) const U_SIG: u32 = 52;
pub(crate) const U_BUF: u32 = 54;
/// This warp's own region offset in `buf` and in shared memory, the workgroup's common
/// words in `buf`, and the neighbour warp's region offset in `buf`.
pub(crate) const U_GOFF: u32 = 56;
pub(crate) const U_SOFF: u32 = 57;
pub(crate) const U_COMMON: u32 = 58;
pub(crate) const U_NGOFF: u32 = 59;
/// Scratch uniform registers of the streams: `u60..u63` (`u[60:61]` a pair).
pub(crate) const U_T: u32 = 60;
/// Vector scratch registers of the streams: address offsets, the 64-bit address pair,
/// constant 1, the broadcast base pair, the divergent loops' counters.
pub(crate) const V_ADDR: u32 = 112;
pub(crate) const V_A64: u32 = 114;
pub(crate) const V_ONE: u32 = 116;
pub(crate) const V_BASE: u32 = 118;
pub(crate) const V_LOOP: u32 = 120;

/// Generate the program for `seed`.
pub fn generate(options: &GenOptions, seed: u64) -> GeneratedProgram {
    let mut g = Gen::new(options, seed);
    g.program()
}

/// Whether the body may draw `op` at random: everything but what only the streams may
/// place (branches and jumps, EXEC writes, memory, CSR and system instructions but `nop`,
/// relative register indexing).
pub fn eligible(op: Op) -> bool {
    let def = op.def();
    if def.mnemonic == "nop" {
        return true;
    }
    let sub = warpkit_isa::SUBGROUPS[usize::from(def.subgroup)].id;
    def.memory.is_none()
        && !def.flags.contains(Flags::BR)
        && !def.flags.contains(Flags::WE)
        && !def.flags.contains(Flags::IX)
        && !def.flags.contains(Flags::CAL)
        && !def.flags.contains(Flags::IR)
        && !def.flags.contains(Flags::EB)
        && !matches!(sub, "sys" | "wait" | "csr")
}

/// The registers an instruction reads and writes, from its operands' roles.
pub(crate) fn reg_use(ins: &Instr) -> (Regs, Regs) {
    let mut reads = Regs::default();
    let mut writes = Regs::default();
    for (k, o) in ins.def().operands.iter().enumerate() {
        let raw = ins.raw(k);
        let ty = o.kind.ty;
        let n = u32::from(o.kind.regs.max(1));
        let set = match ty.class {
            OperandClass::VReg => {
                let first = if ty.half { raw >> 1 } else { raw };
                let mut v = 0u128;
                for r in first..(first + n).min(128) {
                    v |= 1 << r;
                }
                Regs { v, u: 0 }
            }
            OperandClass::UReg => {
                let mut u = 0u64;
                for r in raw..(raw + n).min(64) {
                    u |= 1 << r;
                }
                Regs { v: 0, u }
            }
            _ => continue,
        };
        if matches!(o.role, Role::Read | Role::ReadWrite) {
            reads = reads.union(set);
        }
        if matches!(o.role, Role::Write | Role::ReadWrite) {
            writes = writes.union(set);
        }
    }
    (reads, writes)
}

/// The generator's state while it writes one program.
pub(crate) struct Gen<'o> {
    pub(crate) opts: &'o GenOptions,
    pub(crate) rng: Rng,
    pub(crate) seed: u64,
    pub(crate) out: String,
    pub(crate) pending: Pending,
    pub(crate) labels: u32,
    pub(crate) count: usize,
    /// Nesting depth of EXEC constructs and loops (0: top level, where barriers may go).
    pub(crate) depth: u32,
    pub(crate) warps: u32,
    pub(crate) workgroups: u32,
    pub(crate) streams: BTreeMap<StreamKind, u32>,
    /// Per group: its weight and its eligible instructions with their weights.
    table: Vec<(u32, Vec<Op>, Vec<u32>)>,
    /// Registers recently written, preferred as sources so instructions feed each other.
    pub(crate) hot_v: u32,
    pub(crate) hot_u: u32,
}

impl<'o> Gen<'o> {
    fn new(opts: &'o GenOptions, seed: u64) -> Gen<'o> {
        let mut table = Vec::new();
        for g in &warpkit_isa::SUBGROUPS {
            let ops: Vec<Op> = warpkit_isa::ALL_OPS
                [usize::from(g.first)..usize::from(g.first) + usize::from(g.len)]
                .iter()
                .copied()
                .filter(|&op| eligible(op))
                .collect();
            if ops.is_empty() {
                continue;
            }
            let weights: Vec<u32> = ops.iter().map(|&op| opts.weights.instruction(op)).collect();
            table.push((opts.weights.group(g.id), ops, weights));
        }
        Gen {
            opts,
            rng: Rng::new(seed),
            seed,
            out: String::new(),
            pending: Pending::new(),
            labels: 0,
            count: 0,
            depth: 0,
            warps: 1,
            workgroups: 1,
            streams: BTreeMap::new(),
            table,
            hot_v: 0,
            hot_u: 0,
        }
    }

    /// One line of output.
    pub(crate) fn line(&mut self, text: &str) {
        self.out.push_str("    ");
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A new assembler-local label name.
    pub(crate) fn label(&mut self) -> String {
        self.labels += 1;
        format!(".Lg{}", self.labels)
    }

    /// Define `name` here; nothing may be in flight across a join of control flow.
    pub(crate) fn place(&mut self, name: &str) {
        self.drain();
        let _ = writeln!(self.out, "{name}:");
    }

    /// Retire everything in flight.
    pub(crate) fn drain(&mut self) {
        let busy = self.pending.busy();
        if busy.is_empty() {
            return;
        }
        let waits: Vec<(usize, u32)> = busy.into_iter().map(|c| (c, 0)).collect();
        self.line(&pending::waitcnt_text(&waits));
        self.pending.clear();
    }

    /// Wait for exactly what `touched` needs.
    fn wait_for(&mut self, touched: Regs) {
        if !self.pending.touches(touched) {
            return;
        }
        let waits = self.pending.waits_for(touched);
        self.line(&pending::waitcnt_text(&waits));
        for (c, t) in waits {
            self.pending.wait(c, t);
        }
    }

    /// Emit `ins`, first waiting for the pending writes of the registers it uses.
    pub(crate) fn emit(&mut self, ins: Instr) {
        let (reads, writes) = reg_use(&ins);
        self.wait_for(reads.union(writes));
        self.line(&ins.to_string());
        self.count += 1;
        if let Latency::Async(c) = ins.def().latency {
            self.pending.issue(usize::from(c), writes);
        }
    }

    /// Emit `mnemonic` with operands given as values: register numbers (for halves
    /// `2*reg + half`), immediates at their assembly value (scaled, signed), enum values.
    pub(crate) fn ins(&mut self, mnemonic: &str, values: &[i64]) {
        let ins = build(mnemonic, values);
        self.emit(ins);
    }

    /// A control-flow instruction (written as text, since it names a label): nothing may
    /// be in flight across it.
    pub(crate) fn branch(&mut self, text: &str) {
        self.drain();
        self.line(text);
        self.count += 1;
    }

    fn program(&mut self) -> GeneratedProgram {
        self.warps = self.rng.range(1, 4);
        self.workgroups = self.rng.range(1, 2);
        let gw = self.warps * self.workgroups;
        let sig_bytes = SIG_WARP_BYTES * u64::from(gw);
        let buf_bytes = u64::from(gw * GLOBAL_REGION + self.workgroups * GLOBAL_COMMON);
        let shared = self.warps * SHARED_REGION + SHARED_COMMON;
        let launch = LaunchDirectives {
            grid: Some([self.workgroups, 1, 1]),
            block: Some([32 * self.warps, 1, 1]),
            shared: Some(shared),
            scratch: None,
            args: vec![
                format!("sig=buf:{sig_bytes}"),
                format!("buf=buf:{buf_bytes}"),
            ],
        };
        let _ = writeln!(
            self.out,
            "// warpkit gen --seed {} {}\n// weights: {}\n// {} workgroup(s) of {} warp(s); signature: buffer `sig`, {} bytes per warp (docs/gen.md)",
            self.seed,
            self.opts.describe(),
            if self.opts.weights == Weights::default() {
                "default".to_string()
            } else {
                self.opts.weights.summary()
            },
            self.workgroups,
            self.warps,
            SIG_WARP_BYTES
        );
        self.out.push_str(&launch.to_source());
        self.out.push_str("    .text\n");
        self.prologue();
        self.count = 0;
        let rates: Vec<u32> = StreamKind::ALL.iter().map(|&k| self.opts.rate(k)).collect();
        while self.count < self.opts.length {
            let r = self.rng.below(1000) as u32;
            let mut acc = 0;
            let mut chosen = None;
            for (i, &rate) in rates.iter().enumerate() {
                acc += rate;
                if r < acc {
                    chosen = Some(StreamKind::ALL[i]);
                    break;
                }
            }
            match chosen {
                Some(kind) => self.stream(kind),
                None => self.random_instruction_pub(),
            }
        }
        let body_instructions = self.count;
        let trap = self.opts.traps.then(|| self.trap_tail());
        self.signature();
        GeneratedProgram {
            seed: self.seed,
            text: std::mem::take(&mut self.out),
            launch,
            workgroups: self.workgroups,
            warps: self.warps,
            sig_bytes,
            streams: std::mem::take(&mut self.streams),
            body_instructions,
            trap,
        }
    }

    /// Each warp finds its memory, and the pools get varied values.
    fn prologue(&mut self) {
        let w = i64::from(self.warps);
        self.out.push_str("// prologue: this warp's memory\n");
        self.ins("uload.b64", &[i64::from(U_SIG), 0, 0, 0]);
        self.ins("uload.b64", &[i64::from(U_BUF), 0, 8, 0]);
        let t = i64::from(U_T);
        // gw = wg * warps + w: this warp's index in the grid.
        self.ins("umuli", &[t, 12, w]);
        self.ins("uadd", &[t, t, 29]);
        self.ins("umul.l", &[t + 1, t, SIG_WARP_BYTES as i64]);
        self.ins("uaddzx64", &[i64::from(U_SIG), i64::from(U_SIG), t + 1]);
        self.ins("uslli", &[i64::from(U_GOFF), t, 12]);
        self.ins("uslli", &[i64::from(U_SOFF), 29, 10]);
        // The workgroup's common words follow every warp's region.
        let total = i64::from(self.warps * self.workgroups * GLOBAL_REGION);
        self.ins("uslli", &[t + 1, 12, 6]);
        self.ins("uadd.l", &[i64::from(U_COMMON), t + 1, total]);
        // The neighbour: warp (w + 1) % warps of the same workgroup.
        self.ins("uaddi", &[t + 1, 29, 1]);
        self.ins("usltu.l", &[t + 2, t + 1, w]);
        self.ins("umul", &[t + 1, t + 1, t + 2]);
        self.ins("uslli", &[i64::from(U_NSOFF), t + 1, 10]);
        self.ins("umuli", &[t + 2, 12, w]);
        self.ins("uadd", &[t + 1, t + 1, t + 2]);
        self.ins("uslli", &[i64::from(U_NGOFF), t + 1, 12]);
        self.ins("movi", &[i64::from(V_ONE), 1]);
        self.ins("mov64.vu", &[i64::from(V_BASE), i64::from(U_BUF)]);
        self.out.push_str("// prologue: varied values\n");
        for _ in 0..12 {
            let r = self.pick_v(1, 1);
            let k = self.special32();
            match self.rng.below(4) {
                0 => self.ins("mov.vl", &[r, k]),
                1 => self.ins("mul.vl", &[r, 3, k]),
                2 => self.ins("xor.vl", &[r, 3, k]),
                _ => self.ins("add.vl", &[r, 3, k]),
            }
        }
        for _ in 0..8 {
            let r = self.pick_u(1, 1);
            let k = self.special32();
            self.ins("umov.l", &[r, k]);
        }
        self.out.push_str("// body\n");
    }

    /// The epilogue: every register and the header CSRs into this warp's signature.
    pub(crate) fn signature(&mut self) {
        self.out
            .push_str("// signature (docs/gen.md, \"Signature\")\n");
        let _ = writeln!(self.out, "gen_signature:");
        // Also the trap handler's entry: whatever was in flight at the trap retires here.
        self.line("waitcnt vm=0, vst=0, tex=0, ls=0, sm=0, sfu=0");
        self.pending.clear();
        let t = i64::from(U_T);
        let (tmp, lane4) = (127i64, 126i64);
        self.ins("exec.get", &[t]);
        self.ins("umovi", &[t + 1, -1]);
        self.ins("exec.set", &[t + 1]);
        self.ins("laneid", &[lane4]);
        self.ins("sll.vi", &[lane4, lane4, 2]);
        self.ins("umovi", &[t + 1, 1]);
        self.ins("exec.set", &[t + 1]);
        // Lane 0 alone: one word per value.
        let sig = i64::from(U_SIG);
        self.ins("mov.vu", &[tmp, t]);
        self.ins("gstore.b32", &[tmp, lane4, sig, 0, 0]);
        for (k, csr) in SIG_CSRS.iter().enumerate() {
            let n = i64::from(warpkit_isa::csr_by_name(csr).map_or(0, |c| c.number));
            self.ins("csrr", &[t + 2, n]);
            self.ins("mov.vu", &[tmp, t + 2]);
            self.ins("gstore.b32", &[tmp, lane4, sig, 4 * (k as i64 + 1), 0]);
        }
        for u in 0..64 {
            self.ins("mov.vu", &[tmp, u]);
            self.ins(
                "gstore.b32",
                &[tmp, lane4, sig, SIG_U_OFFSET as i64 + 4 * u, 0],
            );
        }
        self.ins("umovi", &[t + 1, -1]);
        self.ins("exec.set", &[t + 1]);
        for v in 0..128 {
            self.ins(
                "gstore.b32",
                &[v, lane4, sig, SIG_V_OFFSET as i64 + 128 * v, 0],
            );
        }
        self.line("endpgm");
    }
}

/// The instruction `mnemonic` with operand values as [`Gen::ins`] takes them.
pub(crate) fn build(mnemonic: &str, values: &[i64]) -> Instr {
    let op = Op::from_mnemonic(mnemonic).unwrap_or_else(|| panic!("no instruction {mnemonic}"));
    let def = op.def();
    let mut raw = Vec::with_capacity(def.operands.len());
    let mut it = values.iter();
    for o in def.operands {
        let ty = o.kind.ty;
        let value = if o.kind.keyed || o.kind.optional || o.kind.is_modifier() {
            // Defaults unless given.
            match it.next() {
                Some(&v) => v,
                None => i64::from(o.kind.default.unwrap_or(0)),
            }
        } else {
            *it.next()
                .unwrap_or_else(|| panic!("{mnemonic}: too few operands"))
        };
        let width = o.field.width();
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
        let v = match ty.class {
            OperandClass::SImm | OperandClass::UImm => (value / i64::from(ty.scale)) as u32,
            _ => value as u32,
        };
        raw.push(v & mask);
    }
    Instr::from_raw(op, &raw).unwrap_or_else(|e| panic!("{mnemonic}: {e}"))
}
