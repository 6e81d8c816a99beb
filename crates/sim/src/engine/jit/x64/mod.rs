//! The x86-64 code generator of the translation tier: AVX2, with runs of lane-local
//! instructions in AVX-512 where the host has it (`avx512.rs`).
//!
//! Register conventions inside translated code (System V; nothing callee-saved is used, and
//! translated code calls nothing, so there is no frame):
//!
//! | register | holds |
//! |---|---|
//! | `rdi` | the [`Ctx`] |
//! | `rsi` | the vector register file (row `r`, lanes `8q..8q+8` at `r*128 + q*32`) |
//! | `rdx` | the uniform register file (`u[r]` at `r*4`) |
//! | `r8` | the step budget left |
//! | `r9` | the slot table of the running variant |
//! | `r10` | lane-operations executed |
//! | `rbx` | EXEC's lane count (saved and restored: callee-saved) |
//! | `r11` | the [`Consts`] |
//! | `r12` | the [`Direct`] state: pending rows, region hints, counts (saved and restored) |
//! | `ymm8` / `ymm9` / `ymm10` | 31 / 0x8000_0000 / all ones in every lane |
//! | `ymm12..ymm15` | the EXEC lane mask, one quarter each (masked variant; set aside in [`Direct`] during an AVX2 run) |
//! | `ymm1..ymm3`, `ymm11..ymm15` | rows kept across a run of lane-local instructions (full variant; [`Run`]) |
//! | `zmm16..zmm31`, `k1..k4` | the same with AVX-512 (`avx512.rs`, both variants): rows kept, opmasks (`k3`/`k4`: EXEC) |
//!
//! `rax`, `rcx`, `ymm0..ymm7` are scratch (in a run, `ymm1..ymm3` hold cached rows). Two variants of every block are emitted: *full*
//! assumes EXEC is all ones and stores rows whole; *masked* merges each result quarter into
//! the old row with `vpblendvb`. An EXEC writer ends its block: it updates `ctx.exec`, the
//! lane masks, `rbx` and the table register, and continues in the variant the new EXEC
//! calls for.

use super::kind::{classify, fp_needs, Branch, Kind, SUn, VCmp, VSrc, S64};
use super::pending::{uniform_counter, Pending, PendingLoad};
use crate::program::{Inst, Program};
use crate::state::regs::{NUM_UREGS, NUM_VREGS};
use dynasmrt::{dynasm, x64::Assembler, AssemblyOffset, DynamicLabel, DynasmApi, DynasmLabelApi};

mod avx512;
mod control;
mod emitter;
mod fp;
mod lanes;
mod layout;
mod memory;

pub(in crate::engine::jit) use layout::{Consts, Ctx};

use emitter::*;
use layout::*;

/// Programs with more 4-byte slots than this are not translated (translation is eager).
pub(super) const MAX_TRANSLATED_SLOTS: usize = 1 << 16;
/// Blocks entered with loads pending, at most, per program.
const MAX_CARRIED: usize = 1024;

/// `enter(ctx, block address) -> next pc`.
pub(super) type EnterFn = unsafe extern "sysv64" fn(*mut Ctx, usize) -> u32;

/// The machine code of a program and, per variant, the address of the block at each slot
/// (the exit stub where there is none).
pub(super) struct Code {
    pub buf: dynasmrt::ExecutableBuffer,
    pub enter: AssemblyOffset,
    pub exit: AssemblyOffset,
    /// Per variant (0 full, 1 masked): the offset of the block starting at each slot,
    /// where the interpreter (and `jr`/`jalr`) may enter one.
    pub blocks: [Vec<Option<AssemblyOffset>>; 2],
    pub instructions: usize,
    pub blocks_count: usize,
    /// Per slot, for counting the interpreter's fallbacks: [`MEMORY`] if it holds a memory
    /// instruction, with [`TRANSLATED`] if the variants translate it.
    pub slot_class: Vec<u8>,
    /// Exit records: the loads pending at an exit ([`Direct`]'s `record` indexes this;
    /// record 0 is empty).
    pub records: Vec<Vec<PendingLoad>>,
    /// Whether any translated instruction accesses shared memory: entries then lend the
    /// code the workgroup's shared memory, allocated.
    pub shared: bool,
    /// Whether any translated instruction is an f32 one: entries then say what `mode`
    /// allows ([`Ctx::fp`]) and take the flags the code raised (`fp.rs`).
    pub float: bool,
}

/// Translate every block of `prog`, with AVX-512 runs if `avx512` (the host must have
/// AVX-512F and AVX-512BW). `None` if the code buffer cannot be mapped.
/// [`Code::slot_class`]: the slot holds a memory instruction.
pub(crate) const MEMORY: u8 = 1;
/// [`Code::slot_class`]: both variants translate the slot's instruction.
pub(crate) const TRANSLATED: u8 = 2;

pub(super) fn translate(prog: &Program, avx512: bool) -> Option<Code> {
    let slots = (prog.text().len() / 4).min(MAX_TRANSLATED_SLOTS);
    // Both variants translate the same instructions, so they share kinds and leaders.
    let kinds: Vec<Option<Kind>> = (0..slots)
        .map(|k| {
            let inst = prog.fetch((k * 4) as u32)?;
            classify(inst)
                .filter(|kind| !kind.asynchronous() || registers_fit(inst, *kind))
                // Floating point runs on the host FPU with AVX-512 only.
                .filter(|kind| avx512 || !kind.float())
        })
        .collect();
    let float = kinds.iter().any(|k| k.is_some_and(Kind::float));
    let shared = kinds.iter().any(|k| {
        matches!(
            k,
            Some(
                Kind::LoadRow { shared: true }
                    | Kind::StoreRow { shared: true }
                    | Kind::Atomic { shared: true, .. }
            )
        )
    });
    let (leaders, through) = leaders(prog, &kinds);
    let mut ops = Assembler::new().ok()?;
    let exit = ops.new_dynamic_label();
    let mut labels: [Vec<Option<DynamicLabel>>; 2] = [vec![None; slots], vec![None; slots]];
    for variant in &mut labels {
        for (k, label) in variant.iter_mut().enumerate() {
            if leaders[k] && kinds[k].is_some() {
                *label = Some(ops.new_dynamic_label());
            }
        }
    }
    let mut e = Emitter {
        ops,
        prog,
        slots,
        exit,
        labels,
        run: None,
        pending: Pending::default(),
        records: vec![Vec::new()],
        refunds: Vec::new(),
        at: 0,
        stubs: Vec::new(),
        accesses: [0, 0],
        hint_of: Default::default(),
        masked: false,
        kinds,
        leaders,
        through,
        word_run: None,
        carried: Default::default(),
        worklist: Vec::new(),
        avx512,
        evex: Evex::new(),
        nan_fixes: Vec::new(),
        nv_raises: Vec::new(),
        float,
        held: None,
        retired_rows: Vec::new(),
        warm: false,
        warm_entries: [vec![None; slots], vec![None; slots]],
    };
    let enter = e.prologue();
    let exit_at = e.ops.offset();
    e.epilogue();
    let mut offsets: [Vec<Option<AssemblyOffset>>; 2] = [vec![None; slots], vec![None; slots]];
    let mut instructions = 0;
    let mut blocks_count = 0;
    for (variant, offsets) in offsets.iter_mut().enumerate() {
        for (k, offset) in offsets.iter_mut().enumerate() {
            let Some(label) = e.labels[variant][k] else {
                continue;
            };
            // A block that starts with a wait is reached by chaining only: entered from
            // the interpreter, it would often run one wait before an interpreted
            // instruction (`waitcnt` then `barrier`), and the interpreter runs it about as
            // fast as entering costs. Blocks starting with a load or a store are entered:
            // they follow every `barrier`.
            let wait_first = e.kinds[k] == Some(Kind::Waitcnt);
            if !wait_first {
                *offset = Some(e.ops.offset());
            }
            dynasm!(e.ops ; .arch x64 ; =>label);
            let pending = Pending::default();
            instructions += e.block(k, variant == 1, pending);
            blocks_count += 1;
        }
    }
    // The blocks entered with loads pending, as the blocks above (and these) jump to them.
    while let Some((k, masked, loads, label)) = e.worklist.pop() {
        dynasm!(e.ops ; .arch x64 ; =>label);
        instructions += e.block(k, masked, Pending { loads });
        blocks_count += 1;
    }
    if e.evex.failed() {
        return None;
    }
    let buf = e.ops.finalize().ok()?;
    Some(Code {
        buf,
        enter,
        exit: exit_at,
        blocks: offsets,
        instructions,
        blocks_count,
        records: e.records,
        shared,
        float,
        slot_class: (0..slots)
            .map(|k| {
                let memory = prog.fetch((k * 4) as u32).is_some_and(|inst| {
                    matches!(inst.code, crate::program::Code::Op(op) if op.def().memory.is_some())
                });
                let bit = |set: bool, bit: u8| if set { bit } else { 0 };
                bit(memory, MEMORY) | bit(e.kinds[k].is_some(), TRANSLATED)
            })
            .collect(),
    })
}

/// Whether 512-bit state may last through an instruction of `kind` (emitted alone): a
/// uniform operation or a direct branch, which use no vector register (`avx512.rs`).
fn keeps_warm(kind: Kind) -> bool {
    match kind {
        Kind::SBin(..) | Kind::SUn(_) | Kind::S64(_) | Kind::SImm | Kind::Upc => true,
        Kind::Branch(b) => !matches!(b, Branch::Jr | Branch::Jalr),
        _ => false,
    }
}

/// The uniform registers a `uload.bN` writes: N / 32.
pub(super) fn uniform_count(inst: &Inst) -> u8 {
    match inst.code {
        crate::program::Code::Op(op) => op.def().memory.map_or(0, |m| m.size / 4),
        crate::program::Code::Illegal => 0,
    }
}

/// The counter of a translated asynchronous instruction.
pub(super) fn counter(inst: &Inst) -> usize {
    match inst.code {
        crate::program::Code::Op(op) => super::pending::counter_of(op),
        crate::program::Code::Illegal => unreachable!("an illegal slot is not translated"),
    }
}

/// Whether the registers of a word run, a uniform load or `waitcnt` are inside the register
/// files (the uniform pair `rs2`, `rs2 + 1` of a global access included): the code indexes
/// them unchecked.
fn registers_fit(inst: &Inst, kind: Kind) -> bool {
    match kind {
        Kind::LoadRow { shared } | Kind::StoreRow { shared } | Kind::Atomic { shared, .. } => {
            usize::from(inst.rd) < NUM_VREGS
                && usize::from(inst.rs1) < NUM_VREGS
                && (shared || usize::from(inst.rs2) + 1 < NUM_UREGS)
        }
        Kind::ULoad => {
            usize::from(inst.rd) + usize::from(uniform_count(inst)) <= NUM_UREGS
                && usize::from(inst.rs1) + 1 < NUM_UREGS
        }
        _ => true,
    }
}

/// Slots where a block starts: 0, every direct branch target, and every slot after an
/// instruction that ends a block, is interpreted, waits or stores, found by walking the
/// code from 0. Also, per slot, whether it starts a block only because it follows a wait
/// or a global store or atomic: the block before it may run on through it (the block of
/// its own is there for the interpreter to enter).
fn leaders(prog: &Program, kinds: &[Option<Kind>]) -> (Vec<bool>, Vec<bool>) {
    let n = kinds.len();
    let mut leader = vec![false; n];
    // Leaders for another reason than following a wait or a store.
    let mut hard = vec![false; n];
    if n > 0 {
        leader[0] = true;
        hard[0] = true;
    }
    let mut k = 0;
    while k < n {
        let Some(inst) = prog.fetch((k * 4) as u32) else {
            break;
        };
        let next = k + usize::from(inst.len).max(4) / 4;
        match kinds[k] {
            Some(Kind::Branch(b)) => {
                if !matches!(b, Branch::Jr | Branch::Jalr) {
                    let t = inst.imm;
                    if t & 3 == 0 && ((t >> 2) as usize) < n {
                        leader[(t >> 2) as usize] = true;
                        hard[(t >> 2) as usize] = true;
                    }
                }
                if next < n {
                    leader[next] = true;
                    hard[next] = true;
                }
            }
            // After a `waitcnt` or a global store the interpreter may be the one running
            // (it ran the loads, or the store missed its region hint): a block starts
            // there, so it does not interpret on to the next branch. Where none of the
            // block's loads is pending (the common case) the two blocks chain; else the
            // first exits. A shared store leaves its block only where it faults (or no
            // lane is active), and stays pending in it, to be waited for in it.
            Some(
                Kind::Waitcnt
                | Kind::StoreRow { shared: false }
                | Kind::Atomic { shared: false, .. },
            ) => {
                if next < n {
                    leader[next] = true;
                }
            }
            Some(kind) if !kind.ends_block() => {}
            _ => {
                if next < n {
                    leader[next] = true;
                    hard[next] = true;
                }
            }
        }
        k = next;
    }
    let through = leader.iter().zip(&hard).map(|(&l, &h)| l && !h).collect();
    (leader, through)
}

impl Emitter<'_> {
    /// `enter(ctx: rdi, block: rsi)`: load the conventions' registers, jump to the block.
    fn prologue(&mut self) -> AssemblyOffset {
        let at = self.ops.offset();
        dynasm!(self.ops
            ; .arch x64
            ; push rbx
            ; push r12
        );
        if self.float {
            self.mxcsr_enter();
        }
        dynasm!(self.ops
            ; .arch x64
            ; mov r12, [rdi + CTX_DIRECT]
            ; mov ebx, [rdi + CTX_EXEC]
            ; popcnt ebx, ebx
            ; mov rax, rsi
            ; mov rcx, [rdi + CTX_MASK]
            ; vmovdqu ymm12, [rcx]
            ; vmovdqu ymm13, [rcx + 32]
            ; vmovdqu ymm14, [rcx + 64]
            ; vmovdqu ymm15, [rcx + 96]
            ; mov r11, [rdi + CTX_CONSTS]
            ; vmovdqu ymm8, [r11 + K_C31]
            ; vmovdqu ymm9, [r11 + K_SIGN]
            ; vpcmpeqd ymm10, ymm10, ymm10
            ; mov rsi, [rdi + CTX_V]
            ; mov rdx, [rdi + CTX_U]
            ; mov r9, [rdi + CTX_TABLE]
            ; mov r8, [rdi + CTX_BUDGET]
            ; xor r10, r10
            ; jmp rax
        );
        at
    }

    /// The exit: `eax` holds the next PC.
    fn epilogue(&mut self) {
        let exit = self.exit;
        dynasm!(self.ops
            ; .arch x64
            ; =>exit
            ; mov [rdi + CTX_BUDGET], r8
            ; mov [rdi + CTX_LANE_OPS], r10
        );
        if self.float {
            self.mxcsr_exit();
        }
        dynasm!(self.ops
            ; .arch x64
            ; pop r12
            ; pop rbx
            ; vzeroupper
            ; ret
        );
    }

    /// Continue at `pc`: the block there (same variant), or the interpreter. With loads
    /// pending, a block entered with them ([`Emitter::carried_label`]), or the interpreter
    /// with them recorded.
    fn goto(&mut self, pc: u32, masked: bool) {
        if let Some(label) = self.direct_target(pc, masked) {
            dynasm!(self.ops ; .arch x64 ; jmp =>label);
            return;
        }
        let exit = self.exit;
        if !self.pending.loads.is_empty() {
            match self.carried_label(pc, masked) {
                Some(label) => {
                    self.cooling();
                    dynasm!(self.ops ; .arch x64 ; jmp =>label);
                }
                None => {
                    let record = self.record();
                    dynasm!(self.ops
                        ; .arch x64
                        ; mov DWORD [r12 + D_RECORD], record as i32
                        ; mov eax, pc as i32
                        ; jmp =>exit
                    );
                }
            }
            return;
        }
        match self.block_label(pc, masked) {
            // A block without a warm entry, from code in 512-bit state: it is entered
            // having left the state.
            Some(label) => {
                self.cooling();
                dynasm!(self.ops ; .arch x64 ; jmp =>label);
            }
            // (The exit leaves the state too.)
            None => dynasm!(self.ops ; .arch x64 ; mov eax, pc as i32 ; jmp =>exit),
        }
    }

    /// The entry of the block at `pc` for code in 512-bit state, if the block starts with
    /// a run and is emitted already (a backward jump: the loops).
    fn warm_entry(&self, pc: u32, masked: bool) -> Option<DynamicLabel> {
        if pc & 3 != 0 {
            return None;
        }
        *self.warm_entries[usize::from(masked)].get((pc >> 2) as usize)?
    }

    /// The label of the block at `pc` if a jump there needs nothing on the way: nothing
    /// pending, and the block entered in the state the code is in (its warm entry from
    /// code in 512-bit state). [`Emitter::goto`] jumps there, and a conditional branch
    /// jumps there itself.
    fn direct_target(&self, pc: u32, masked: bool) -> Option<DynamicLabel> {
        if !self.pending.loads.is_empty() {
            return None;
        }
        let label = self.block_label(pc, masked)?;
        if self.warm {
            self.warm_entry(pc, masked)
        } else {
            Some(label)
        }
    }

    /// The block at `pc` entered with the loads pending now (emitted later, once per start,
    /// variant and pending set), if its first instruction is translated and may join it
    /// (not a hazard on them), and not too many such blocks were made (they multiply
    /// along the paths a load stays pending on).
    fn carried_label(&mut self, pc: u32, masked: bool) -> Option<DynamicLabel> {
        let k = (pc & 3 == 0).then_some((pc >> 2) as usize)?;
        let kind = (*self.kinds.get(k)?)?;
        let inst = *self.prog.fetch(pc)?;
        let key = (k, masked, self.pending.loads.clone());
        if let Some(&label) = self.carried.get(&key) {
            return Some(label);
        }
        if self.carried.len() >= MAX_CARRIED
            || !self.admit(pc, &inst, kind, &mut self.pending.clone(), masked)
        {
            return None;
        }
        let label = self.ops.new_dynamic_label();
        self.worklist.push((k, masked, key.2.clone(), label));
        self.carried.insert(key, label);
        Some(label)
    }

    fn block_label(&self, pc: u32, masked: bool) -> Option<DynamicLabel> {
        if pc & 3 != 0 {
            return None;
        }
        *self.labels[usize::from(masked)].get((pc >> 2) as usize)?
    }

    /// Emit the block starting at slot `k`, entered with the operations `incoming` pending
    /// (none, but for blocks a load stays pending into); returns its instruction count.
    fn block(&mut self, k: usize, masked: bool, incoming: Pending) -> usize {
        self.masked = masked;
        self.warm = false;
        let mut body: Vec<(u32, Inst, Kind)> = Vec::new();
        // The loads pending as the block grows: an instruction that would be reported as
        // a hazard is left to the interpreter.
        let mut pending = incoming.clone();
        let mut s = k;
        while s < self.slots && body.len() < MAX_BLOCK {
            // On through a wait or a store where no load of the block is pending (the
            // block there starts the same, entered with nothing pending).
            if s != k && self.leaders[s] && !(self.through[s] && pending.loads.is_empty()) {
                break;
            }
            let (Some(kind), Some(&inst)) = (self.kinds[s], self.prog.fetch((s * 4) as u32)) else {
                break;
            };
            let pc = (s * 4) as u32;
            if !self.admit(pc, &inst, kind, &mut pending, masked) {
                break;
            }
            body.push((pc, inst, kind));
            s += usize::from(inst.len) / 4;
            if kind.ends_block() {
                break;
            }
        }
        let n = body.len() as i32;
        let vector = body.iter().filter(|(_, i, _)| i.vector).count() as i32;
        let start = (k * 4) as u32;
        let exit = self.exit;
        let carried = !incoming.loads.is_empty();
        // An exit at the head gives back the loads the block was entered with.
        self.pending = incoming;
        let record = self.record();
        if body.is_empty() {
            dynasm!(self.ops
                ; .arch x64
                ; mov DWORD [r12 + D_RECORD], record as i32
                ; mov eax, start as i32
                ; jmp =>exit
            );
            return 0;
        }
        // A block that starts with a 512-bit run sets the run's constants before its step
        // check; code in 512-bit state jumps in after them (a loop whose body is one run
        // stays in the state).
        if self.avx512 && self.run_length(&body, masked) > 0 {
            self.constants_512(masked);
            self.warm = true;
            if !carried {
                let entry = self.ops.new_dynamic_label();
                dynasm!(self.ops ; .arch x64 ; =>entry);
                self.warm_entries[usize::from(masked)][k] = Some(entry);
            }
        }
        // What `mode` must allow for the block's f32 instructions.
        let fp = body
            .iter()
            .filter_map(|(_, inst, kind)| fp_needs(inst, *kind))
            .fold(0u8, |all, needs| all | needs);
        // The step check takes the steps; where too few are left (or `mode` does not allow
        // the block's f32 instructions) the path after the block gives them back and
        // leaves, so the common path takes no branch.
        let refuse = self.ops.new_dynamic_label();
        dynasm!(self.ops ; .arch x64 ; sub r8, n ; jb =>refuse);
        if fp != 0 {
            dynasm!(self.ops
                ; .arch x64
                ; mov ecx, [rdi + CTX_FP]
                ; and ecx, i32::from(fp)
                ; cmp ecx, i32::from(fp)
                ; jne =>refuse
            );
        }
        if vector > 0 {
            if masked {
                dynasm!(self.ops ; .arch x64 ; imul rcx, rbx, vector ; add r10, rcx);
            } else {
                let lanes = vector * 32;
                dynasm!(self.ops ; .arch x64 ; add r10, lanes);
            }
        }
        // What an exit before each instruction gives back: its steps and vector
        // instructions (each of EXEC's lanes).
        self.refunds.clear();
        self.masked = masked;
        let mut after = (0, 0);
        for (_, inst, _) in body.iter().rev() {
            after = (after.0 + 1, after.1 + i32::from(inst.vector));
            self.refunds.push(after);
        }
        self.refunds.reverse();
        self.word_run = None;
        let mut k = 0;
        while k < body.len() {
            let len = self.run_length(&body[k..], masked);
            if len > 0 {
                self.forget_word_run(&body[k..k + len]);
                // A full-EXEC store right after the run may take its row from the run's
                // registers.
                let stored = match body.get(k + len) {
                    Some((_, inst, Kind::StoreRow { .. })) if self.avx512 && !masked => {
                        Some(inst.rd)
                    }
                    _ => None,
                };
                self.emit_run(&body[k..k + len], masked, stored);
                k += len;
            } else {
                let (pc, inst, kind) = body[k];
                self.forget_word_run(&body[k..=k]);
                self.at = k;
                let to_rings = kind.ends_block()
                    && !self.pending.loads.is_empty()
                    && self.pending.only_stores();
                if to_rings || !keeps_warm(kind) {
                    self.cool();
                }
                if to_rings {
                    self.stores_to_rings();
                }
                self.retired_rows.clear();
                self.inst(pc, &inst, kind, masked);
                self.held = None;
                k += 1;
            }
        }
        self.held = None;
        self.retired_rows.clear();
        let (last_pc, last, last_kind) = body[body.len() - 1];
        if !last_kind.ends_block() {
            let next = last_pc.wrapping_add(u32::from(last.len));
            if !self.pending.loads.is_empty() && self.pending.only_stores() {
                self.cool();
                self.stores_to_rings();
            }
            // With loads pending, on into a block entered with them, or the interpreter
            // takes over, watching for hazards.
            self.goto(next, masked);
        }
        self.emit_stubs();
        dynasm!(self.ops
            ; .arch x64
            ; =>refuse
            ; add r8, n
            ; mov DWORD [r12 + D_RECORD], record as i32
            ; mov eax, start as i32
            ; jmp =>exit
        );
        body.len()
    }

    /// How many of the instructions at the start of `body` the emitter takes as one run of
    /// lane-local instructions (0: the first is emitted alone). AVX2 runs are two
    /// instructions at least; with AVX-512, a lone lane-local instruction
    /// of the full variant is a run too (its row is then written in the 512-bit halves the
    /// memory instructions move, so a chain through memory forwards each read from one
    /// store, `move_row_512`), and an f32 instruction is translated only in a run, if one
    /// of its own.
    fn run_length(&self, body: &[(u32, Inst, Kind)], masked: bool) -> usize {
        let len = body
            .iter()
            .take_while(|(_, _, kind)| kind.lane_local())
            .count();
        let float = body[..len]
            .iter()
            .any(|(_, _, kind)| matches!(kind, Kind::Fp(_)));
        let lone_512 = self.avx512 && !masked;
        let run = len >= MIN_RUN || ((float || lone_512) && len > 0);
        if run {
            len
        } else {
            0
        }
    }

    /// Forget the block's word-run check if an instruction of `emitted` (one, or a run)
    /// may write its address row. Memory instructions write rows only as loads retire
    /// ([`Emitter::retire`] forgets it then).
    fn forget_word_run(&mut self, emitted: &[(u32, Inst, Kind)]) {
        let Some(a) = self.word_run else {
            return;
        };
        let writes = emitted.iter().any(|(_, inst, kind)| match kind {
            Kind::LoadRow { .. }
            | Kind::StoreRow { .. }
            | Kind::Atomic { .. }
            | Kind::ULoad
            | Kind::Waitcnt => false,
            kind if kind.lane_local() => {
                let (rows, n) = emitter::rows_written(inst, *kind);
                rows[..n].contains(&a)
            }
            _ => true,
        });
        if writes {
            self.word_run = None;
        }
    }

    /// Whether the instruction at `pc` may join the block, given the loads pending
    /// before it (updated for it).
    fn admit(&self, pc: u32, inst: &Inst, kind: Kind, pending: &mut Pending, masked: bool) -> bool {
        if !pending.loads.is_empty() {
            let uses = self.prog.uses(pc).copied().unwrap_or_default();
            // Loads pending past a jump through the slot table stay with the interpreter
            // (the table's blocks are entered with none).
            let table_jump = matches!(kind, Kind::Branch(Branch::Jr | Branch::Jalr));
            if pending.hazard(&uses) || (table_jump && !pending.only_stores()) {
                return false;
            }
        }
        match kind {
            Kind::LoadRow { .. } => pending
                .issue(PendingLoad::load(pc, inst.rd, 0, counter(inst), masked))
                .is_some(),
            Kind::StoreRow { shared: true } | Kind::Atomic { shared: true, .. } => pending
                .issue(PendingLoad::store(pc, counter(inst), masked))
                .is_some(),
            Kind::ULoad => pending
                .issue(PendingLoad::load(
                    pc,
                    inst.rd,
                    uniform_count(inst),
                    uniform_counter(),
                    masked,
                ))
                .is_some(),
            Kind::Waitcnt => {
                if let Some(t) = self.prog.waits(inst.imm) {
                    pending.wait(t);
                }
                true
            }
            _ => true,
        }
    }

    /// The exit record of the loads pending now.
    fn record(&mut self) -> u32 {
        if self.pending.loads.is_empty() {
            return 0;
        }
        self.records.push(self.pending.loads.clone());
        (self.records.len() - 1) as u32
    }

    /// A new exit before the instruction being emitted; its label.
    fn side_exit(&mut self, pc: u32, miss: Option<u32>) -> (DynamicLabel, Option<DynamicLabel>) {
        let label = self.ops.new_dynamic_label();
        let miss = miss.map(|m| (self.ops.new_dynamic_label(), m));
        let record = self.record();
        self.stubs.push(Stub {
            label,
            miss,
            pc,
            at: self.at,
            record,
        });
        (label, miss.map(|(l, _)| l))
    }

    /// The block's exits from its middle: give back the steps and lane-operations not
    /// executed, leave the record (and a missed hint with the address in `rcx`), and
    /// return the instruction's PC.
    fn emit_stubs(&mut self) {
        self.emit_nan_fixes();
        let exit = self.exit;
        for stub in std::mem::take(&mut self.stubs) {
            let (steps, vector) = self.refunds[stub.at];
            if let Some((miss, value)) = stub.miss {
                dynasm!(self.ops
                    ; .arch x64
                    ; =>miss
                    ; mov DWORD [r12 + D_MISS], value as i32
                    ; mov [r12 + D_MISS_LO], rcx
                );
            }
            dynasm!(self.ops ; .arch x64 ; =>stub.label ; add r8, steps);
            if self.masked {
                dynasm!(self.ops ; .arch x64 ; imul rcx, rbx, vector ; sub r10, rcx);
            } else {
                let lanes = 32 * vector;
                dynasm!(self.ops ; .arch x64 ; sub r10, lanes);
            }
            dynasm!(self.ops
                ; .arch x64
                ; mov DWORD [r12 + D_RECORD], stub.record as i32
                ; mov eax, stub.pc as i32
                ; jmp =>exit
            );
        }
    }

    fn inst(&mut self, pc: u32, inst: &Inst, kind: Kind, masked: bool) {
        let (d, a, b) = (inst.rd, inst.rs1, inst.rs2);
        if kind.lane_local() {
            self.lane_setup(inst, kind);
            for q in 0..4 {
                self.lane_part(inst, kind, q, masked);
            }
            return;
        }
        match kind {
            Kind::VCmp(cond, src) => {
                self.splat_src(src, inst);
                dynasm!(self.ops ; .arch x64 ; xor ecx, ecx);
                for q in 0..4 {
                    self.load(0, a, q);
                    let y = if src == VSrc::Row {
                        self.load(1, b, q);
                        1
                    } else {
                        7
                    };
                    self.vcond(cond, 0, y);
                    // vmovmskps eax, ymm0, spelled out: the assembler's encoding of the
                    // 256-bit form is not the instruction's.
                    dynasm!(self.ops ; .arch x64 ; .bytes [0xc5u8, 0xfc, 0x50, 0xc0]);
                    if q > 0 {
                        let shift = (8 * q) as i8;
                        dynasm!(self.ops ; .arch x64 ; shl eax, shift);
                    }
                    dynasm!(self.ops ; .arch x64 ; or ecx, eax);
                }
                if matches!(cond, VCmp::Ne | VCmp::GeS | VCmp::GeU) {
                    dynasm!(self.ops ; .arch x64 ; not ecx);
                }
                let at = ureg(d);
                dynasm!(self.ops
                    ; .arch x64
                    ; and ecx, [rdi + CTX_EXEC]
                    ; mov [rdx + at], ecx
                );
            }
            Kind::SBin(op, src) => {
                let (ua, ud) = (ureg(a), ureg(d));
                dynasm!(self.ops ; .arch x64 ; mov eax, [rdx + ua]);
                match src {
                    super::kind::SrcU::Reg => {
                        let ub = ureg(b);
                        dynasm!(self.ops ; .arch x64 ; mov ecx, [rdx + ub]);
                        self.sbin(op);
                    }
                    super::kind::SrcU::Imm => self.sbin_imm(op, inst.imm as i32),
                }
                dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], eax);
            }
            Kind::SUn(op) => {
                let (ua, ud) = (ureg(a), ureg(d));
                match op {
                    SUn::Mov => dynasm!(self.ops ; .arch x64 ; mov eax, [rdx + ua]),
                    SUn::Not => dynasm!(self.ops ; .arch x64 ; mov eax, [rdx + ua] ; not eax),
                    SUn::SextB => dynasm!(self.ops ; .arch x64 ; movsx eax, BYTE [rdx + ua]),
                    SUn::SextH => dynasm!(self.ops ; .arch x64 ; movsx eax, WORD [rdx + ua]),
                    SUn::ExecGet => dynasm!(self.ops ; .arch x64 ; mov eax, [rdi + CTX_EXEC]),
                }
                dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], eax);
            }
            Kind::S64(op) => {
                let (ua, ub, ud) = (ureg(a), ureg(b), ureg(d));
                dynasm!(self.ops ; .arch x64 ; mov rax, [rdx + ua]);
                match op {
                    S64::Add => dynasm!(self.ops ; .arch x64 ; add rax, [rdx + ub]),
                    S64::Sub => dynasm!(self.ops ; .arch x64 ; sub rax, [rdx + ub]),
                    S64::AddSx => dynasm!(self.ops
                        ; .arch x64
                        ; movsxd rcx, DWORD [rdx + ub]
                        ; add rax, rcx
                    ),
                    S64::AddZx => dynasm!(self.ops
                        ; .arch x64
                        ; mov ecx, [rdx + ub]
                        ; add rax, rcx
                    ),
                    S64::AddImm => {
                        let imm = i64::from(inst.imm as i32);
                        dynasm!(self.ops ; .arch x64 ; mov rcx, QWORD imm ; add rax, rcx);
                    }
                    S64::Mov => {}
                }
                dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], rax);
            }
            Kind::SImm => {
                let (ud, imm) = (ureg(d), inst.imm as i32);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], imm);
            }
            Kind::Upc => {
                let (ud, v) = (ureg(d), pc.wrapping_add(inst.imm) as i32);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], v);
            }
            Kind::Branch(br) => self.branch(pc, inst, br, masked),
            Kind::ExecWrite(w) => self.exec_write(pc, inst, w),
            Kind::LoadRow { shared } => self.load_row(pc, inst, shared, masked),
            Kind::ULoad => self.uload_row(pc, inst, masked),
            Kind::StoreRow { shared } => self.store_row(pc, inst, shared, masked),
            Kind::Atomic { shared, op } => self.atomic(pc, inst, shared, op, masked),
            Kind::Waitcnt => self.waitcnt(inst),
            Kind::FCmp(cond) => self.fcmp_512(inst, cond, masked),
            _ => unreachable!("lane-local kinds are emitted above"),
        }
    }
}
