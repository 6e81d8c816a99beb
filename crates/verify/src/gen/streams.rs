//! The directed streams ([`StreamKind`]) and the trapping tail of `--traps` programs.

use super::random::SPECIAL32;
use super::Regs;
use super::{
    build, eligible, random, Gen, StreamKind, TrapKind, GLOBAL_REGION, MAX_NEST, SHARED_REGION,
    U_BUF, U_COMMON, U_GOFF, U_NEST, U_NGOFF, U_NSOFF, U_SOFF, U_T, V_A64, V_ADDR, V_BASE, V_LOOP,
    V_ONE, V_POOL,
};
use warpkit_isa::{
    Addressing, Flags, Instr, MemoryAccess, Op, OperandClass, Role, ALL_OPS, SUBGROUPS,
};

/// CSRs whose values differ between implementations or runs: never read.
const UNSTABLE_CSRS: [&str; 4] = ["clock", "clockh", "time", "timeh"];

/// fp64 special values (high word, low word).
const SPECIAL64: [(u32, u32); 10] = [
    (0x7ff8_0000, 0),           // quiet NaN
    (0xfff8_0000, 0),           // negative quiet NaN
    (0x7ff0_0000, 1),           // signalling NaN
    (0x7ff0_0000, 0),           // +inf
    (0xfff0_0000, 0),           // -inf
    (0, 1),                     // smallest denormal
    (0x800f_ffff, 0xffff_ffff), // largest negative denormal
    (0x8000_0000, 0),           // -0
    (0x7fef_ffff, 0xffff_ffff), // largest finite
    (0x3ff0_0000, 0),           // 1.0
];

/// fp16 special values.
const SPECIAL16: [u32; 10] = [
    0x7e00, 0xfe00, 0x7d00, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x8000, 0x7bff, 0x3c00,
];

/// Which memory a memory access goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Space {
    Global,
    Global64,
    Shared,
}

impl Gen<'_> {
    /// Insert one stream of `kind`.
    pub(crate) fn stream(&mut self, kind: StreamKind) {
        if kind == StreamKind::Barrier && self.depth > 0 {
            // Barriers only where every warp of the workgroup passes.
            return;
        }
        *self.streams.entry(kind).or_default() += 1;
        let _ =
            std::fmt::Write::write_fmt(&mut self.out, format_args!("// stream: {}\n", kind.name()));
        match kind {
            StreamKind::Exec => self.exec_stream(),
            StreamKind::Operands => self.operands_stream(),
            StreamKind::Pairs => self.pairs_stream(),
            StreamKind::Memory => {
                for _ in 0..self.rng.range(1, 4) {
                    let space = *self
                        .rng
                        .pick(&[Space::Global, Space::Global64, Space::Shared]);
                    self.memory_access(space, None);
                }
                if self.rng.chance(300) {
                    self.uniform_load();
                }
                if self.rng.chance(100) {
                    // Cache maintenance: no register result, but it occupies its counter,
                    // which the tracker accounts for like any asynchronous operation.
                    let op = *self.rng.pick(&["cache.wb", "cache.inv"]);
                    self.ins(op, &[]);
                }
            }
            StreamKind::Barrier => {
                let _ = self.barrier_stream();
            }
            StreamKind::Waitcnt => self.waitcnt_stream(),
            StreamKind::Csr => self.csr_stream(),
            StreamKind::Float => self.float_stream(),
            StreamKind::Branch => self.branch_stream(),
        }
    }

    /// `n` instructions inside a construct: random ones and, while nesting allows, nested
    /// streams (never barriers).
    fn body(&mut self, n: u32) {
        self.depth += 1;
        for _ in 0..n {
            if self.depth < MAX_NEST && self.rng.chance(150) {
                let kind = *self.rng.pick(&[
                    StreamKind::Exec,
                    StreamKind::Memory,
                    StreamKind::Operands,
                    StreamKind::Pairs,
                    StreamKind::Float,
                    StreamKind::Waitcnt,
                    StreamKind::Csr,
                    StreamKind::Branch,
                ]);
                if self.opts.rate(kind) > 0 {
                    self.stream(kind);
                    continue;
                }
            }
            self.random_instruction_pub();
        }
        self.depth -= 1;
    }

    /// One instruction drawn from the tables, or a `nop`.
    pub(crate) fn random_instruction_pub(&mut self) {
        let before = self.count;
        self.random_from_table();
        if self.count == before {
            self.ins("nop", &[]);
        }
    }

    /// The uniform registers of the current nesting level.
    fn nest(&self) -> [i64; 4] {
        let b = i64::from(U_NEST + 4 * self.depth.min(MAX_NEST - 1));
        [b, b + 1, b + 2, b + 3]
    }

    fn exec_stream(&mut self) {
        let [s0, s1, s2, s3] = self.nest();
        match self.rng.below(4) {
            0 => {
                // A fixed pattern: full, empty, one lane, random.
                let pattern = match self.rng.below(4) {
                    0 => -1,
                    1 => 0,
                    2 => 1i64 << self.rng.below(32),
                    _ => i64::from(self.rng.next_u32()),
                };
                self.ins("exec.get", &[s0]);
                self.ins("umov.l", &[s1, pattern]);
                if self.rng.chance(100) {
                    // Whole-quad mode: EXEC grows to whole groups of four lanes.
                    self.ins("exec.wqm", &[s2]);
                } else if self.rng.chance(500) {
                    self.ins("exec.set", &[s1]);
                } else {
                    let op = *self.rng.pick(&[
                        "saveexec.and",
                        "saveexec.or",
                        "saveexec.xor",
                        "saveexec.andn1",
                        "saveexec.andn2",
                        "saveexec.mov",
                    ]);
                    self.ins(op, &[s2, s1]);
                }
                let n = self.rng.range(2, 6);
                self.body(n);
                self.ins("exec.set", &[s0]);
            }
            1 => {
                // if / else on a vector compare.
                let cmp = *self
                    .rng
                    .pick(&["cmp.lt.u32", "cmp.eq.i32", "cmp.ge.i32", "cmp.ne.i32"]);
                let (a, b) = (self.pick_v(1, 1), self.pick_v(1, 1));
                self.ins(cmp, &[s1, a, b]);
                self.ins("saveexec.and", &[s0, s1]);
                let (l_else, l_end) = (self.label(), self.label());
                self.branch(&format!("bexecz {l_else}"));
                let n = self.rng.range(1, 5);
                self.body(n);
                self.place(&l_else);
                self.ins("saveexec.andn1", &[s2, s0]);
                self.branch(&format!("bexecz {l_end}"));
                let n = self.rng.range(1, 5);
                self.body(n);
                self.place(&l_end);
                self.ins("exec.set", &[s0]);
            }
            2 => {
                // A uniform loop: 1 to 3 trips.
                let trips = i64::from(self.rng.range(1, 3));
                self.ins("umovi", &[s3, trips]);
                let top = self.label();
                self.place(&top);
                let n = self.rng.range(1, 5);
                self.body(n);
                self.ins("uaddi", &[s3, s3, -1]);
                self.branch(&format!("bnz u{s3}, {top}"));
            }
            _ => {
                // A divergent loop: lane l runs (x & 7) trips for a pool register x.
                let level = i64::from(self.depth.min(MAX_NEST - 1));
                let (vi, vn) = (
                    i64::from(V_LOOP) + 2 * level,
                    i64::from(V_LOOP) + 2 * level + 1,
                );
                let x = self.pick_v(1, 1);
                self.ins("exec.get", &[s0]);
                self.ins("movi", &[vi, 0]);
                self.ins("and.vi", &[vn, x, 7]);
                let (top, done) = (self.label(), self.label());
                self.place(&top);
                self.ins("cmp.ge.u32", &[s1, vi, vn]);
                self.ins("saveexec.andn2", &[s2, s1]);
                self.branch(&format!("bexecz {done}"));
                let n = self.rng.range(1, 4);
                self.body(n);
                self.ins("add.vi", &[vi, vi, 1]);
                self.branch(&format!("jmp {top}"));
                self.place(&done);
                self.ins("exec.set", &[s0]);
            }
        }
    }

    fn operands_stream(&mut self) {
        let mixed: Vec<Op> = ALL_OPS
            .iter()
            .copied()
            .filter(|&op| {
                let d = op.def();
                eligible(op)
                    && d.operands
                        .iter()
                        .any(|o| o.kind.ty.class == OperandClass::VReg)
                    && d.operands.iter().any(|o| {
                        o.kind.ty.class == OperandClass::UReg
                            || o.kind.ty.class == OperandClass::Imm
                    })
            })
            .collect();
        for _ in 0..self.rng.range(2, 5) {
            if self.rng.chance(150) {
                self.movrel();
                continue;
            }
            let op = *self.rng.pick(&mixed);
            if let Some(ins) = random::instruction(self, op) {
                self.emit(ins);
            }
        }
    }

    /// `movrel.s`/`movrel.d` with an index that keeps the register inside the pool.
    fn movrel(&mut self) {
        let t = i64::from(U_T);
        let (d, s) = (self.pick_v(1, 1), self.pick_v(1, 1));
        let dest = self.rng.chance(500);
        let base = if dest { d } else { s };
        let k = self.rng.below((i64::from(V_POOL) - base) as u64) as i64;
        // The register reached is known only at run time: nothing may be in flight.
        self.drain();
        self.ins("umovi", &[t, k]);
        self.ins(if dest { "movrel.d" } else { "movrel.s" }, &[d, s, t]);
    }

    fn pairs_stream(&mut self) {
        let pairs: Vec<Op> = ALL_OPS
            .iter()
            .copied()
            .filter(|&op| eligible(op) && op.def().flags.contains(Flags::P64))
            .collect();
        for _ in 0..self.rng.range(2, 6) {
            let op = *self.rng.pick(&pairs);
            if let Some(ins) = random::instruction(self, op) {
                self.emit(ins);
            }
        }
    }

    /// The memory instructions of `space` doing `access`.
    fn memory_ops(space: Space, access: MemoryAccess) -> Vec<Op> {
        let want = match space {
            Space::Global => Addressing::Global,
            Space::Global64 => Addressing::A64,
            Space::Shared => Addressing::Shared,
        };
        ALL_OPS
            .iter()
            .copied()
            .filter(|&op| {
                op.def()
                    .memory
                    .is_some_and(|m| m.address == want && m.access == access)
            })
            .collect()
    }

    /// Compute an in-bounds offset of this warp's region (or `region`, a uniform register
    /// holding another offset) into `V_ADDR`, aligned to `align`, and the immediate to add.
    fn offset(&mut self, space: Space, align: u32, region: Option<u32>) -> i64 {
        // Offsets below half the region, immediates below a quarter: an access of up to
        // 16 bytes always ends inside the region.
        let size = if space == Space::Shared {
            SHARED_REGION
        } else {
            GLOBAL_REGION
        };
        let mask = i64::from((size / 2 - 1) & !(align - 1));
        // A source with no write-back pending, when one comes easily: waiting for it here
        // would retire the loads the waitcnt stream keeps in flight.
        let mut src = self.pick_v(1, 1);
        for _ in 0..6 {
            if !self.pending.touches(Regs { v: 1 << src, u: 0 }) {
                break;
            }
            src = self.pick_v(1, 1);
        }
        self.ins("and.vl", &[i64::from(V_ADDR), src, mask]);
        let base = region.unwrap_or(if space == Space::Shared {
            U_SOFF
        } else {
            U_GOFF
        });
        self.ins(
            "add.vu",
            &[i64::from(V_ADDR), i64::from(V_ADDR), i64::from(base)],
        );
        if space == Space::Global64 {
            self.ins(
                "mad64.u32",
                &[
                    i64::from(V_A64),
                    i64::from(V_ADDR),
                    i64::from(V_ONE),
                    i64::from(V_BASE),
                ],
            );
        }
        i64::from(self.rng.below(u64::from(size / 4 / align) + 1) as u32 * align)
    }

    /// One access to this warp's own memory of `space`; `access` or a random one.
    fn memory_access(&mut self, space: Space, access: Option<MemoryAccess>) -> Option<i64> {
        let access = access.unwrap_or_else(|| {
            *self.rng.pick(&[
                MemoryAccess::Load,
                MemoryAccess::Store,
                MemoryAccess::Atomic,
            ])
        });
        let mut space = space;
        let mut ops = Gen::memory_ops(space, access);
        if ops.is_empty() {
            // No such access in this addressing (atomics have no 64-bit address form).
            space = Space::Global;
            ops = Gen::memory_ops(space, access);
        }
        let op = *self.rng.pick(&ops);
        let m = op.def().memory?;
        let size = u32::from(m.size);
        // Naturally aligned up to 4 bytes is the rule; wider accesses are legal at 4.
        let align = if size > 4 && self.rng.chance(500) {
            4
        } else {
            size.clamp(1, 4)
        };
        let imm = self.offset(space, align, None);
        self.memory_instruction(op, space, imm)
    }

    /// `op` at `V_ADDR` (or `V_A64`) plus `imm`, its data or destination from the pool;
    /// the destination (first register) when it writes one.
    fn memory_instruction(&mut self, op: Op, space: Space, imm: i64) -> Option<i64> {
        let def = op.def();
        let mut values = Vec::new();
        let mut dest = None;
        for o in def.operands {
            let ty = o.kind.ty;
            let v = match (o.name, ty.class) {
                ("rd", _) => {
                    let r = self.pick_v(u32::from(o.kind.regs.max(1)), u32::from(ty.align.max(1)));
                    if matches!(o.role, Role::Write | Role::ReadWrite) {
                        dest = Some(r);
                    }
                    r
                }
                ("rs1", _) if space == Space::Global64 => i64::from(V_A64),
                ("rs1", _) => i64::from(V_ADDR),
                ("rs2", _) => i64::from(U_BUF),
                ("imm", _) => imm,
                (_, OperandClass::Enum) => i64::from(self.rng.below(4) as u32),
                _ => 0,
            };
            values.push(v);
        }
        let mnemonic = def.mnemonic;
        self.ins(mnemonic, &values);
        dest
    }

    /// A uniform load (`uload.bN`) from this warp's own global region: the base pair is
    /// `buf` plus the region's offset, in this level's nesting registers.
    fn uniform_load(&mut self) {
        let ops: Vec<Op> = ALL_OPS
            .iter()
            .copied()
            .filter(|&op| {
                op.def().memory.is_some_and(|m| {
                    m.address == Addressing::Uniform && m.access == MemoryAccess::Load
                })
            })
            .collect();
        let Some(&op) = (!ops.is_empty()).then(|| self.rng.pick(&ops)) else {
            return;
        };
        let [s0, ..] = self.nest();
        // The region may hold what this warp's in-flight stores write: settle them first.
        self.drain();
        self.ins("uaddzx64", &[s0, i64::from(U_BUF), i64::from(U_GOFF)]);
        let def = op.def();
        let size = def.memory.map_or(4, |m| u32::from(m.size));
        let align = size.clamp(1, 4);
        let imm = i64::from(
            self.rng
                .below(u64::from((GLOBAL_REGION - size) / align) + 1) as u32
                * align,
        );
        let mut values = Vec::new();
        for o in def.operands {
            values.push(match (o.name, o.kind.ty.class) {
                ("rd", _) => self.pick_u(
                    u32::from(o.kind.regs.max(1)),
                    u32::from(o.kind.ty.align.max(1)),
                ),
                ("rs1", _) => s0,
                ("imm", _) => imm,
                (_, OperandClass::Enum) => i64::from(self.rng.below(4) as u32),
                _ => 0,
            });
        }
        self.ins(def.mnemonic, &values);
    }

    fn barrier_stream(&mut self) -> Option<()> {
        let t = i64::from(U_T);
        match self.rng.below(3) {
            0 | 1 => {
                // Store to this warp's region, barrier, read the neighbour's, barrier.
                let shared = self.rng.below(2) == 1;
                let space = if shared { Space::Shared } else { Space::Global };
                for _ in 0..self.rng.range(1, 3) {
                    self.memory_access(space, Some(MemoryAccess::Store));
                }
                self.drain();
                self.line("barrier");
                self.count += 1;
                let region = if shared { U_NSOFF } else { U_NGOFF };
                for _ in 0..self.rng.range(1, 3) {
                    let op = *self.rng.pick(&Gen::memory_ops(space, MemoryAccess::Load));
                    let size = u32::from(op.def().memory.map_or(4, |m| m.size));
                    let imm = self.offset(space, size.min(4), Some(region));
                    self.memory_instruction(op, space, imm);
                }
                self.drain();
                self.line("barrier");
                self.count += 1;
            }
            _ => {
                // Commutative atomics of every warp on the workgroup's common words, read
                // after a barrier.
                let shared = self.rng.below(2) == 1;
                let ops = [
                    "add", "sub", "and", "or", "xor", "smin", "umin", "smax", "umax",
                ];
                let name = *self.rng.pick(&ops);
                let (prefix, space) = if shared {
                    ("dsatomic", Space::Shared)
                } else {
                    ("gatomic", Space::Global)
                };
                let common_shared = i64::from(self.warps * SHARED_REGION);
                let src = self.pick_v(1, 1);
                self.ins("and.vl", &[i64::from(V_ADDR), src, 0x3c]);
                if shared {
                    self.ins(
                        "add.vl",
                        &[i64::from(V_ADDR), i64::from(V_ADDR), common_shared],
                    );
                } else {
                    self.ins(
                        "add.vu",
                        &[i64::from(V_ADDR), i64::from(V_ADDR), i64::from(U_COMMON)],
                    );
                }
                let op = Op::from_mnemonic(&format!("{prefix}.{name}"))?;
                self.memory_instruction(op, space, 0);
                self.drain();
                self.line("barrier");
                self.count += 1;
                let load = if shared { "dsload.b32" } else { "gload.b32" };
                let op = Op::from_mnemonic(load)?;
                self.memory_instruction(op, space, 0);
                self.drain();
                self.line("barrier");
                self.count += 1;
                let _ = t;
            }
        }
        Some(())
    }

    fn waitcnt_stream(&mut self) {
        // Several loads in flight, work on other registers, then each result read in turn:
        // the waits retire only as many operations as each read needs.
        let shared = self.rng.below(3) == 0;
        let space = if shared { Space::Shared } else { Space::Global };
        let op = Op::from_mnemonic(if shared { "dsload.b32" } else { "gload.b32" });
        let Some(op) = op else { return };
        let mut loaded: Vec<i64> = Vec::new();
        for _ in 0..self.rng.range(2, 5) {
            let imm = self.offset(space, 4, None);
            let mut tries = 0;
            let d = loop {
                let d = self.pick_v(1, 1);
                tries += 1;
                if !loaded.contains(&d) || tries > 20 {
                    break d;
                }
            };
            self.ins(
                op.mnemonic(),
                &if shared {
                    vec![d, i64::from(V_ADDR), imm]
                } else {
                    vec![d, i64::from(V_ADDR), i64::from(U_BUF), imm, 0]
                },
            );
            loaded.push(d);
        }
        if self.opts.traps && self.rng.chance(500) {
            // Deliberately read a pending result before its wait: a RAW hazard.
            let x = self.pick_v(1, 1);
            self.line(&format!("add v{x}, v{}, v{x}", loaded[0]));
            self.count += 1;
        }
        for _ in 0..self.rng.range(1, 3) {
            self.random_instruction_pub();
        }
        if self.rng.chance(300) {
            loaded.reverse();
        }
        for r in loaded {
            let x = self.pick_v(1, 1);
            let mnemonic = *self.rng.pick(&["add", "xor", "sub", "max"]);
            self.ins(mnemonic, &[x, r, x]);
        }
    }

    fn csr_stream(&mut self) {
        // Float results written back later may set flags: nothing in flight around CSRs.
        self.drain();
        let t = i64::from(U_T);
        for _ in 0..self.rng.range(1, 4) {
            match self.rng.below(5) {
                0 | 1 => {
                    let readable: Vec<u16> = warpkit_isa::CSRS
                        .iter()
                        .filter(|c| !UNSTABLE_CSRS.contains(&c.name))
                        .map(|c| c.number)
                        .collect();
                    let n = *self.rng.pick(&readable);
                    let d = self.pick_u(1, 1);
                    self.ins("csrr", &[d, i64::from(n)]);
                }
                2 => {
                    let value = i64::from(self.rng.next_u32());
                    let csr = *self
                        .rng
                        .pick(&["fflags", "trapcause", "trappc", "trapinfo"]);
                    let op = *self.rng.pick(&["csrw", "csrs", "csrc"]);
                    self.ins("umov.l", &[t, value]);
                    self.ins(op, &[csr_number(csr), t]);
                }
                3 => {
                    // Only legal modes: a rounding mode 0..4 and the flush bits; no trap
                    // enables.
                    let (op, value) = match self.rng.below(3) {
                        0 => (
                            "csrw",
                            self.rng.below(5) as i64 | (self.rng.below(4) as i64) << 3,
                        ),
                        1 => ("csrs", (self.rng.below(4) as i64) << 3),
                        _ => ("csrc", self.rng.below(32) as i64),
                    };
                    self.ins("umovi", &[t, value]);
                    self.ins(op, &[csr_number("mode"), t]);
                }
                _ => {
                    // EXEC through its CSR.
                    let [s0, s1, _, _] = self.nest();
                    self.ins("csrr", &[s0, csr_number("exec")]);
                    let pattern = i64::from(self.rng.next_u32());
                    self.ins("umov.l", &[s1, pattern]);
                    self.ins("csrw", &[csr_number("exec"), s1]);
                    let n = self.rng.range(1, 4);
                    self.body(n);
                    self.drain();
                    self.ins("csrw", &[csr_number("exec"), s0]);
                }
            }
        }
    }

    fn float_stream(&mut self) {
        let groups = ["f32", "f64", "cvt", "sfu", "f16", "cvt16", "fcmp"];
        let ops: Vec<Op> = SUBGROUPS
            .iter()
            .filter(|g| groups.contains(&g.id))
            .flat_map(|g| {
                ALL_OPS[usize::from(g.first)..usize::from(g.first) + usize::from(g.len)]
                    .iter()
                    .copied()
            })
            .filter(|&op| eligible(op))
            .collect();
        if ops.is_empty() {
            return;
        }
        // Special values into a window of registers the operations then draw from.
        let base = (self.rng.below(u64::from(V_POOL - 12)) as u32) & !1;
        self.hot_v = base;
        for k in 0..6 {
            let r = i64::from(base + 2 * k);
            match self.rng.below(3) {
                0 => {
                    let v = SPECIAL32[12 + self.rng.below(12) as usize];
                    self.ins("mov.vl", &[r, i64::from(v)]);
                    let w = *self.rng.pick(&SPECIAL32);
                    self.ins("mov.vl", &[r + 1, i64::from(w)]);
                }
                1 => {
                    let (hi, lo) = *self.rng.pick(&SPECIAL64);
                    self.ins("mov.vl", &[r, i64::from(lo)]);
                    self.ins("mov.vl", &[r + 1, i64::from(hi)]);
                }
                _ => {
                    let (a, b) = (*self.rng.pick(&SPECIAL16), *self.rng.pick(&SPECIAL16));
                    self.ins("mov.vl", &[r, i64::from(a << 16 | b)]);
                    let c = *self.rng.pick(&SPECIAL16);
                    self.ins("mov.vl", &[r + 1, i64::from(c)]);
                }
            }
        }
        for _ in 0..self.rng.range(2, 6) {
            let op = *self.rng.pick(&ops);
            if let Some(ins) = random::instruction(self, op) {
                self.emit(ins);
            }
        }
    }

    fn branch_stream(&mut self) {
        if self.rng.chance(250) {
            self.call();
            return;
        }
        let skip = self.label();
        let u = self.pick_u(1, 1);
        let text = match self.rng.below(6) {
            0 => format!("bz u{u}, {skip}"),
            1 => format!("bnz u{u}, {skip}"),
            2 => format!("bnone u{u}, {skip}"),
            3 => format!("bany u{u}, {skip}"),
            4 => format!("bexecz {skip}"),
            _ => format!("bexecnz {skip}"),
        };
        self.branch(&text);
        let n = self.rng.range(1, 4);
        self.body(n);
        self.place(&skip);
    }

    /// A call and return: `jal` links into this level's nesting register and jumps over the
    /// `jmp` to the callee; the callee returns with `jr` (or `jalr`, linking again) to the
    /// `jmp`, which leaves past the callee.
    fn call(&mut self) {
        let [s0, s1, ..] = self.nest();
        let (callee, after) = (self.label(), self.label());
        self.branch(&format!("jal u{s0}, {callee}"));
        self.branch(&format!("jmp {after}"));
        self.place(&callee);
        let n = self.rng.range(1, 4);
        self.body(n);
        if self.rng.chance(500) {
            self.branch(&format!("jr u{s0}, 0"));
        } else {
            self.branch(&format!("jalr u{s1}, u{s0}, 0"));
        }
        self.place(&after);
    }

    /// The end of a `--traps` body: a trapping operation, after installing a trap handler
    /// (the signature code) half of the time.
    pub(crate) fn trap_tail(&mut self) -> (TrapKind, bool) {
        self.out.push_str("// trap (docs/gen.md, \"Traps\")\n");
        let t = i64::from(U_T);
        let handler = self.rng.chance(500);
        if handler {
            self.drain();
            self.line(&format!("upc u{t}, gen_signature"));
            self.ins("csrw", &[csr_number("trapbase"), t]);
        }
        let kind = *self.rng.pick(&TrapKind::ALL);
        let d = self.pick_v(1, 1);
        match kind {
            TrapKind::IllegalWord => {
                // Reserved length bits (w0[1:0] = 11) never decode.
                let w = self.rng.next_u32() | 3;
                self.line(&format!(".word {w:#010x}"));
            }
            TrapKind::ReservedOperand => {
                let ins = build("gload.b32", &[d, i64::from(V_ADDR), i64::from(U_BUF), 0, 5]);
                self.words(&ins);
            }
            TrapKind::Misaligned => {
                self.ins("mov.vu", &[i64::from(V_ADDR), i64::from(U_GOFF)]);
                self.ins("gload.b32", &[d, i64::from(V_ADDR), i64::from(U_BUF), 1, 0]);
            }
            TrapKind::OutOfBounds => {
                let end = i64::from(self.warps * self.workgroups * GLOBAL_REGION)
                    + i64::from(self.workgroups * 64);
                self.ins("movi", &[i64::from(V_ADDR), 0]);
                self.ins(
                    "gload.b32",
                    &[d, i64::from(V_ADDR), i64::from(U_BUF), end + 4096, 0],
                );
            }
            TrapKind::UnknownCsr => {
                let ins = build("csrr", &[t, 0x3ff]);
                self.words(&ins);
            }
            TrapKind::ReadOnlyCsr => {
                self.ins("csrw", &[csr_number("warpid"), t]);
            }
            TrapKind::ModeReserved => {
                self.ins("umov.l", &[t + 1, 0x400]);
                self.ins("csrw", &[csr_number("mode"), t + 1]);
            }
        }
        (kind, handler)
    }

    /// `ins` as data words (the assembler refuses what it encodes).
    fn words(&mut self, ins: &Instr) {
        let bytes = ins.to_bytes();
        let words: Vec<String> = bytes
            .chunks(4)
            .map(|c| format!("{:#010x}", u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect();
        self.line(&format!(".word {}  // {ins}", words.join(", ")));
    }
}

fn csr_number(name: &str) -> i64 {
    i64::from(warpkit_isa::csr_by_name(name).map_or(0, |c| c.number))
}
