//! Memory in translated code: `gload.b32`/`gstore.b32` and `dsload.b32`/`dsstore.b32` as
//! word runs, gathers and scatters (under any EXEC), the uniform loads, and `waitcnt`.

use super::emitter::*;
use super::layout::*;
use crate::engine::jit::pending::*;
use crate::engine::jit::pending::{Issued, PendingLoad};
use crate::memory::direct::{HINTS, MISS_BYTES_SHIFT, MISS_WRITE, RING};
use crate::program::Inst;
use crate::state::queue::NUM_COUNTERS;
use crate::state::LANES;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};
use iced_x86::Register;
use warpkit_isa::AtomicOp;

/// With AVX-512, the registers a row moves through outside a run unless told others
/// (`zmm16`/`zmm17`: the AVX2 code never uses them).
const MOVE_HALVES: [u8; 2] = [16, 17];

/// Where an access's bytes must lie, and where it leaves when they do not.
#[derive(Debug, Clone, Copy)]
pub(super) struct Access {
    /// The exit before the instruction.
    side: DynamicLabel,
    /// Global memory: the exit that records a miss of the access's region hint first, and
    /// the hint's offset in the direct state. `None`: the workgroup's shared memory,
    /// `0..D_SHARED_LEN` at host address `D_SHARED_HOST`.
    hint: Option<(DynamicLabel, i32)>,
}

impl Emitter<'_> {
    /// The exits and bounds of the access at `pc`: a region hint (a load's, or a store's)
    /// for global memory, the workgroup's shared memory if `shared`.
    fn access(&mut self, pc: u32, store: bool, shared: bool) -> Access {
        if shared {
            let (side, _) = self.side_exit(pc, None);
            return Access { side, hint: None };
        }
        let (side, miss, hint) = self.access_hint(pc, store, 0);
        Access {
            side,
            hint: Some((miss, hint)),
        }
    }

    /// A word run's address, checked as `mem_exec`'s word run checks it: lane `l` of
    /// `v[rs1]` is `v0 + 4l` (no wrap), `lo` (global: `U64[rs2] + v0 + sext(imm)`; shared:
    /// `v0 + sext(imm)`) is aligned, `lo + 128` does not wrap, and the access's bounds
    /// hold `lo..lo + 128`. Leaves the host address of `lo` in `rcx`; anything else leaves
    /// the block before the instruction (a hint miss records itself, for the region to be
    /// looked up), except lanes that are not a word run (or a run that wraps its 32-bit
    /// offsets), which jump to `not_run`.
    fn word_run_address(&mut self, inst: &Inst, acc: Access, not_run: DynamicLabel) {
        let (a, b) = (inst.rs1, inst.rs2);
        let v0 = row(a, 0);
        dynasm!(self.ops ; .arch x64 ; mov eax, [rsi + v0]);
        if self.word_run == Some(a) {
            // Checked before in the block, and not written since: the same answer.
            dynasm!(self.ops
                ; .arch x64
                ; cmp DWORD [r12 + D_NOT_RUN], 0
                ; jne =>not_run
            );
        } else {
            self.word_run_check(a, not_run);
        }
        let imm = inst.imm as i32;
        dynasm!(self.ops
            ; .arch x64
            ; cmp eax, 0xffff_ff83u32 as i32
            ; ja =>not_run
        );
        if acc.hint.is_some() {
            let ub = ureg(b);
            dynasm!(self.ops
                ; .arch x64
                ; mov rcx, [rdx + ub]
                ; add rcx, rax
            );
        } else {
            // v0, zero-extended.
            dynasm!(self.ops ; .arch x64 ; mov ecx, eax);
        }
        if imm != 0 {
            dynasm!(self.ops ; .arch x64 ; add rcx, imm);
        }
        self.host_address(128, acc);
    }

    /// With `eax` lane 0 of `v[a]`: to `not_run` unless lane `l` of `v[a]` is `v0 + 4l`
    /// (mod 2^32) for every lane. `Direct::not_run` is cleared where it is, and the
    /// `not_run` path sets it ([`Emitter::not_a_run`]), for later accesses of the block
    /// through `v[a]`.
    fn word_run_check(&mut self, a: u8, not_run: DynamicLabel) {
        dynasm!(self.ops
            ; .arch x64
            ; vmovd xmm0, eax
            ; vpbroadcastd ymm0, xmm0
        );
        for q in 0..4 {
            let (step, at) = (K_STEP4 + 32 * q as i32, row(a, q));
            dynasm!(self.ops
                ; .arch x64
                ; vpaddd ymm1, ymm0, [r11 + step]
                ; vpxor ymm1, ymm1, [rsi + at]
            );
            if q == 0 {
                dynasm!(self.ops ; .arch x64 ; vmovdqa ymm2, ymm1);
            } else {
                dynasm!(self.ops ; .arch x64 ; vpor ymm2, ymm2, ymm1);
            }
        }
        dynasm!(self.ops
            ; .arch x64
            // vptest ymm2, ymm2, spelled out (VEX.256.66.0F38 17 /r): ZF if every lane
            // matched.
            ; .bytes [0xc4u8, 0xe2, 0x7d, 0x17, 0xd2]
            ; jnz =>not_run
            ; mov DWORD [r12 + D_NOT_RUN], 0
        );
        self.word_run = Some(a);
    }

    /// The start of a word-run access's path for lanes that are not a word run: the answer
    /// for later accesses through the same row ([`Emitter::word_run_check`]).
    fn not_a_run(&mut self, not_run: DynamicLabel) {
        dynasm!(self.ops
            ; .arch x64
            ; =>not_run
            ; mov DWORD [r12 + D_NOT_RUN], 1
        );
    }

    /// A new region hint for the access at `pc` (from the loads' half, or the stores'), its
    /// exit and the exit that records a miss of it first (with `bytes`, the access's size,
    /// for the lookup; 0 for a row's 128). Returns the two labels and the hint's offset.
    fn access_hint(
        &mut self,
        pc: u32,
        store: bool,
        bytes: u32,
    ) -> (DynamicLabel, DynamicLabel, i32) {
        // One hint per instruction, shared by its copies in the two variants and in
        // blocks entered with loads pending: they access the same memory.
        let half = HINTS / 2;
        let index = match self.hint_of.get(&pc) {
            Some(&index) => index,
            None => {
                let side = usize::from(store);
                let index = half * side + self.accesses[side] % half;
                self.accesses[side] += 1;
                self.hint_of.insert(pc, index);
                index
            }
        };
        let write = if store { MISS_WRITE } else { 0 };
        let miss_value = (index as u32 + 1) | write | bytes << MISS_BYTES_SHIFT;
        let (side, miss) = self.side_exit(pc, Some(miss_value));
        (
            side,
            miss.expect("a miss label"),
            D_HINTS + index as i32 * HINT_SIZE,
        )
    }

    /// With `rcx` the access's lowest address: to the side exit unless it is aligned to 4
    /// bytes and `rcx + bytes` does not wrap, to the miss exit unless the hint holds
    /// `rcx..rcx + bytes` (shared memory: to the side exit unless `rcx + bytes` is at most
    /// its size); then `rcx` becomes its host address. A row (128 bytes) through a hint
    /// is checked with one compare against the hint's `row_limit`; a row that wraps is in
    /// no region, so it leaves through the miss exit, whose lookup fails, and the
    /// interpreter raises the fault as after the side exit.
    fn host_address(&mut self, bytes: i32, acc: Access) {
        let side = acc.side;
        dynasm!(self.ops
            ; .arch x64
            ; test cl, 3
            ; jnz =>side
        );
        if let (128, Some((miss, hint))) = (bytes, acc.hint) {
            // `rcx` stays the guest address for the miss exit to record.
            dynasm!(self.ops
                ; .arch x64
                ; mov rax, rcx
                ; sub rax, [r12 + hint]
                ; cmp rax, [r12 + hint + 24]
                ; jae =>miss
                ; add rax, [r12 + hint + 16]
                ; mov rcx, rax
            );
            return;
        }
        dynasm!(self.ops
            ; .arch x64
            ; mov rax, rcx
            ; add rax, bytes
            ; jc =>side
        );
        match acc.hint {
            Some((miss, hint)) => dynasm!(self.ops
                ; .arch x64
                ; cmp rcx, [r12 + hint]
                ; jb =>miss
                ; cmp rax, [r12 + hint + 8]
                ; ja =>miss
                ; sub rcx, [r12 + hint]
                ; add rcx, [r12 + hint + 16]
            ),
            None => dynasm!(self.ops
                ; .arch x64
                ; cmp rax, [r12 + D_SHARED_LEN]
                ; ja =>side
                ; add rcx, [r12 + D_SHARED_HOST]
            ),
        }
    }

    /// The span of a `gload.b32`/`gstore.b32` (`dsload.b32`/`dsstore.b32`) that is not a
    /// full word run, checked as the interpreter's fast path checks it: with `b` the
    /// uniform part of the address (global: `U64[rs2] + sext(imm)`; shared: `sext(imm)`),
    /// every active lane's offset `v[rs1]` plus `b` aligned (`(b | OR of the offsets) & 3
    /// == 0`), `b + max + 4` not wrapping, and `b + min .. b + max + 4` inside the access's
    /// bounds (`min`, `max`: the active offsets' unsigned extremes); anything else, and no
    /// active lane, leaves before the instruction (a hint miss records `b + min`). The
    /// spread `max - min` must fit a gather's signed 32-bit index. Leaves the host address
    /// of `b + min` in `rcx`, `min` in every lane of `ymm4` and the offsets' quarters in
    /// `ymm0..ymm3` (inactive lanes' too).
    fn scattered_span(&mut self, inst: &Inst, acc: Access, masked: bool) {
        let (a, b) = (inst.rs1, inst.rs2);
        let imm = i64::from(inst.imm as i32);
        let side = acc.side;
        dynasm!(self.ops
            ; .arch x64
            ; vmovdqu ymm0, [rsi + row(a, 0)]
            ; vmovdqu ymm1, [rsi + row(a, 1)]
            ; vmovdqu ymm2, [rsi + row(a, 2)]
            ; vmovdqu ymm3, [rsi + row(a, 3)]
        );
        if masked {
            // No active lane: the interpreter's general path. Then, over the active lanes
            // only: inactive offsets as all ones for the minimum (ymm4..ymm7), as zero for
            // the maximum and the OR (ymm0..ymm3, reloaded below).
            dynasm!(self.ops
                ; .arch x64
                ; cmp DWORD [rdi + CTX_EXEC], 0
                ; je =>side
                ; vpandn ymm4, ymm12, ymm10
                ; vpor ymm4, ymm4, ymm0
                ; vpandn ymm5, ymm13, ymm10
                ; vpor ymm5, ymm5, ymm1
                ; vpandn ymm6, ymm14, ymm10
                ; vpor ymm6, ymm6, ymm2
                ; vpandn ymm7, ymm15, ymm10
                ; vpor ymm7, ymm7, ymm3
                ; vpminud ymm4, ymm4, ymm5
                ; vpminud ymm6, ymm6, ymm7
                ; vpminud ymm4, ymm4, ymm6
                ; vpand ymm0, ymm0, ymm12
                ; vpand ymm1, ymm1, ymm13
                ; vpand ymm2, ymm2, ymm14
                ; vpand ymm3, ymm3, ymm15
            );
        } else {
            dynasm!(self.ops
                ; .arch x64
                ; vpminud ymm4, ymm0, ymm1
                ; vpminud ymm5, ymm2, ymm3
                ; vpminud ymm4, ymm4, ymm5
            );
        }
        // The offsets' unsigned maximum (ymm5) and bitwise OR (ymm6).
        dynasm!(self.ops
            ; .arch x64
            ; vpmaxud ymm5, ymm0, ymm1
            ; vpmaxud ymm6, ymm2, ymm3
            ; vpmaxud ymm5, ymm5, ymm6
            ; vpor ymm6, ymm0, ymm1
            ; vpor ymm7, ymm2, ymm3
            ; vpor ymm6, ymm6, ymm7
        );
        if masked {
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm0, [rsi + row(a, 0)]
                ; vmovdqu ymm1, [rsi + row(a, 1)]
                ; vmovdqu ymm2, [rsi + row(a, 2)]
                ; vmovdqu ymm3, [rsi + row(a, 3)]
            );
        }
        for (reg, op) in [(4u8, 0u8), (5, 1), (6, 2)] {
            // Fold the upper 128 bits, then the upper 64 and 32 of what is left.
            dynasm!(self.ops ; .arch x64 ; vextracti128 xmm7, Ry(reg), 1);
            for step in 0..3 {
                if step > 0 {
                    let order = if step == 1 { 0x4eu8 } else { 0xb1 } as i8;
                    dynasm!(self.ops ; .arch x64 ; vpshufd xmm7, Rx(reg), order);
                }
                match op {
                    0 => dynasm!(self.ops ; .arch x64 ; vpminud Rx(reg), Rx(reg), xmm7),
                    1 => dynasm!(self.ops ; .arch x64 ; vpmaxud Rx(reg), Rx(reg), xmm7),
                    _ => dynasm!(self.ops ; .arch x64 ; vpor Rx(reg), Rx(reg), xmm7),
                }
            }
        }
        // b, wrapping as the interpreter's address does.
        match acc.hint {
            Some(_) => {
                let ub = ureg(b);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov rcx, [rdx + ub]
                    ; mov rax, QWORD imm
                    ; add rcx, rax
                );
            }
            None => dynasm!(self.ops ; .arch x64 ; mov rcx, QWORD imm),
        }
        dynasm!(self.ops
            ; .arch x64
            ; vmovd eax, xmm6
            ; or eax, ecx
            ; test al, 3
            ; jnz =>side
            // The spread fits a signed 32-bit index.
            ; vpsubd xmm7, xmm5, xmm4
            ; vmovd eax, xmm7
            ; test eax, eax
            ; js =>side
            // end = b + max + 4, not wrapping.
            ; vmovd eax, xmm5
            ; add rax, 4
            ; add rax, rcx
            ; jc =>side
        );
        match acc.hint {
            Some((miss, hint)) => dynasm!(self.ops
                ; .arch x64
                ; cmp rax, [r12 + hint + 8]
                ; vmovd eax, xmm4
                ; lea rcx, [rcx + rax]
                ; ja =>miss
                ; cmp rcx, [r12 + hint]
                ; jb =>miss
                ; sub rcx, [r12 + hint]
                ; add rcx, [r12 + hint + 16]
            ),
            // b + min >= 0: b + max + 4 did not wrap.
            None => dynasm!(self.ops
                ; .arch x64
                ; cmp rax, [r12 + D_SHARED_LEN]
                ; ja =>side
                ; vmovd eax, xmm4
                ; lea rcx, [rcx + rax]
                ; add rcx, [r12 + D_SHARED_HOST]
            ),
        }
        dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm4, xmm4);
    }

    /// A `gload.b32` (`dsload.b32`) that is not a full word run: the active lanes gathered
    /// into the pending row at `data`, the others zero, as the interpreter leaves them
    /// (`scattered_span` says when). `retired`: the block's load the issue retires, after
    /// the checks (before the row, which may be its own, is written).
    fn gather_row(
        &mut self,
        inst: &Inst,
        acc: Access,
        data: i32,
        masked: bool,
        retired: Option<PendingLoad>,
    ) {
        self.scattered_span(inst, acc, masked);
        if let Some(r) = retired {
            self.retire(r);
        }
        for q in 0..4u8 {
            let at = data + 32 * i32::from(q);
            if masked {
                dynasm!(self.ops ; .arch x64 ; vmovdqa ymm5, Ry(12 + q));
            } else {
                dynasm!(self.ops ; .arch x64 ; vpcmpeqd ymm5, ymm5, ymm5);
            }
            dynasm!(self.ops
                ; .arch x64
                ; vpsubd Ry(q), Ry(q), ymm4
                ; vpxor ymm6, ymm6, ymm6
                ; vpgatherdd ymm6, [rcx + Ry(q) * 1], ymm5
                ; vmovdqu [r12 + at], ymm6
            );
        }
    }

    /// Write the retired pending load `load` to its registers: a vector load's row (the
    /// lanes of EXEC at its issue, from a partial-EXEC block), a uniform load's words; a
    /// store writes nothing. Uses `ymm5..ymm7` (`zmm16`/`zmm17` with AVX-512) and `rax`
    /// only.
    pub(super) fn retire(&mut self, load: PendingLoad) {
        self.retire_via(load, MOVE_HALVES);
    }

    /// [`Emitter::retire`], a full-EXEC load moving its row through `zmm[halves[0]]` and
    /// `zmm[halves[1]]` with AVX-512 (where it then stays).
    fn retire_via(&mut self, load: PendingLoad, halves: [u8; 2]) {
        let data = D_ROWS + i32::from(load.row) * 128;
        if load.store {
            return;
        }
        if load.uniform == 0 && self.word_run == Some(load.rd) {
            self.word_run = None;
        }
        if load.uniform > 0 {
            for k in 0..load.uniform {
                let (from, to) = (data + 4 * i32::from(k), ureg(load.rd + k));
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, [r12 + from]
                    ; mov [rdx + to], eax
                );
            }
            return;
        }
        if !load.masked {
            // A full-EXEC load's words are read now, from where its row's source says
            // ([`Emitter::load_row`]).
            let src = D_ROW_SRC + 8 * i32::from(load.row);
            dynasm!(self.ops ; .arch x64 ; mov rax, [r12 + src]);
            self.move_row_via(Register::RAX, 0, Register::RSI, row(load.rd, 0), halves);
            return;
        }
        // The lanes of EXEC at its issue.
        let exec = D_ROW_EXEC + 4 * i32::from(load.row);
        dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm5, [r12 + exec]);
        for q in 0..4u8 {
            let (at, from) = (row(load.rd, usize::from(q)), data + 32 * i32::from(q));
            let bits = K_BITS + 32 * i32::from(q);
            dynasm!(self.ops
                ; .arch x64
                ; vpand ymm6, ymm5, [r11 + bits]
                ; vpcmpeqd ymm6, ymm6, [r11 + bits]
                ; vmovdqu ymm7, [rsi + at]
                ; vpblendvb ymm7, ymm7, [r12 + from], ymm6
                ; vmovdqu [rsi + at], ymm7
            );
        }
    }

    /// Move a 128-byte row from `[from + from_at]` to `[to + to_at]`: with AVX-512 in two
    /// halves through [`MOVE_HALVES`], else in quarters through `ymm6`.
    fn move_row(&mut self, from: Register, from_at: i32, to: Register, to_at: i32) {
        self.move_row_via(from, from_at, to, to_at, MOVE_HALVES);
    }

    /// [`Emitter::move_row`], with AVX-512 through `zmm[halves[0]]` and `zmm[halves[1]]`
    /// ([`Emitter::move_row_512`]).
    fn move_row_via(
        &mut self,
        from: Register,
        from_at: i32,
        to: Register,
        to_at: i32,
        halves: [u8; 2],
    ) {
        if self.avx512 {
            self.move_row_512(from, from_at, to, to_at, halves);
            return;
        }
        let gpr = |r: Register| match r {
            Register::RAX => 0,
            Register::RCX => 1,
            Register::RSI => 6,
            Register::R12 => 12,
            _ => unreachable!("{r:?} is not a row base"),
        };
        let (from, to) = (gpr(from), gpr(to));
        for q in 0..4 {
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm6, [Rq(from) + from_at + 32 * q]
                ; vmovdqu [Rq(to) + to_at + 32 * q], ymm6
            );
        }
    }

    /// Whether [`Emitter::read_deferred`] has loads to read.
    fn reads_deferred(&self) -> bool {
        self.pending.loads.iter().any(|l| l.deferred())
    }

    /// Before the block writes memory: read the words of its pending full-EXEC loads into
    /// their rows, which become their source. (Such a load's words are read only when it
    /// retires ([`Emitter::load_row`]), which is exact while nothing writes memory in
    /// between: translated code runs one warp, and where it leaves, `absorb` reads the
    /// words of the loads still pending.)
    fn read_deferred(&mut self) {
        let deferred: Vec<PendingLoad> = self
            .pending
            .loads
            .iter()
            .filter(|l| l.deferred())
            .copied()
            .collect();
        for load in deferred {
            let (src, data) = (
                D_ROW_SRC + 8 * i32::from(load.row),
                D_ROWS + 128 * i32::from(load.row),
            );
            dynasm!(self.ops ; .arch x64 ; mov rax, [r12 + src]);
            self.move_row(Register::RAX, 0, Register::R12, data);
            dynasm!(self.ops
                ; .arch x64
                ; lea rax, [r12 + data]
                ; mov [r12 + src], rax
            );
        }
    }

    /// Queue `op` in the block's pending operations (admitted: a row is free), after the
    /// exits before the instruction took their records. Returns it and the block's own
    /// operation the limit retires, if any; [`Emitter::issued`] emits its run-time part
    /// once the access is done.
    fn issue(&mut self, op: PendingLoad) -> Issued {
        self.pending.issue(op).expect("admitted with a free row")
    }

    /// The run-time part of an issue: its issue number, and the counter's in-flight limit
    /// on operations from before the block.
    fn issued(&mut self, issued: Issued) {
        if issued.op.masked && issued.op.writes_rows() {
            let exec = D_ROW_EXEC + 4 * i32::from(issued.op.row);
            dynasm!(self.ops
                ; .arch x64
                ; mov eax, [rdi + CTX_EXEC]
                ; mov [r12 + exec], eax
            );
        }
        let c = usize::from(issued.op.counter);
        // The block's operations on the counter before this one, after any retirement.
        let k = self.pending.count(c) as i32 - 1;
        self.count_issue(issued.op.row, c, k);
    }

    /// `gload.b32` (`dsload.b32`): a word run's 32 words into a pending row, counted on its
    /// counter (whose in-flight limit retires an operation from before the block if any is
    /// at the limit, else the block's oldest of the counter). A partial EXEC, or lanes that
    /// are not a word run, gather (`gather_row`).
    pub(super) fn load_row(&mut self, pc: u32, inst: &Inst, shared: bool, masked: bool) {
        let acc = self.access(pc, false, shared);
        let c = super::counter(inst);
        let issued = self.issue(PendingLoad::load(pc, inst.rd, 0, c, masked));
        let data = D_ROWS + i32::from(issued.op.row) * 128;
        if masked {
            self.gather_row(inst, acc, data, true, issued.retired);
            self.issued(issued);
            return;
        }
        let gather = self.ops.new_dynamic_label();
        self.word_run_address(inst, acc, gather);
        if let Some(r) = issued.retired {
            self.retire(r);
        }
        // A word run's words are read when the load retires, straight into its register
        // (one store-to-load step less on a chain through memory): its row's source is
        // their host address. A gather's words are read now, into the row.
        let src = D_ROW_SRC + 8 * i32::from(issued.op.row);
        dynasm!(self.ops ; .arch x64 ; mov [r12 + src], rcx);
        let loaded = self.ops.new_dynamic_label();
        dynasm!(self.ops ; .arch x64 ; jmp =>loaded);
        self.not_a_run(gather);
        self.gather_row(inst, acc, data, false, issued.retired);
        dynasm!(self.ops
            ; .arch x64
            ; lea rax, [r12 + data]
            ; mov [r12 + src], rax
            ; =>loaded
        );
        self.issued(issued);
    }

    /// `uload.bN`: the N/8 bytes at `U64[rs1] + sext(imm)` into a pending row, counted on
    /// the uniform load counter, on the terms of the interpreter's read: the address
    /// aligned to 4 bytes, `addr + N/8` not wrapping, and the bytes inside the region the
    /// access's hint holds; anything else leaves before the instruction (a hint miss
    /// records the address and the size, for the region to be looked up).
    pub(super) fn uload_row(&mut self, pc: u32, inst: &Inst, masked: bool) {
        let count = super::uniform_count(inst);
        let bytes = 4 * u32::from(count);
        let (side, miss, hint) = self.access_hint(pc, false, bytes);
        let acc = Access {
            side,
            hint: Some((miss, hint)),
        };
        let imm = i64::from(inst.imm as i32);
        let ua = ureg(inst.rs1);
        dynasm!(self.ops
            ; .arch x64
            ; mov rcx, [rdx + ua]
            ; mov rax, QWORD imm
            ; add rcx, rax
        );
        self.host_address(bytes as i32, acc);
        let c = uniform_counter();
        let issued = self.issue(PendingLoad::load(pc, inst.rd, count, c, masked));
        if let Some(r) = issued.retired {
            self.retire(r);
        }
        let data = D_ROWS + i32::from(issued.op.row) * 128;
        match bytes {
            4 => dynasm!(self.ops ; .arch x64 ; mov eax, [rcx] ; mov [r12 + data], eax),
            8 => dynasm!(self.ops ; .arch x64 ; mov rax, [rcx] ; mov [r12 + data], rax),
            16 => dynasm!(self.ops ; .arch x64 ; vmovdqu xmm0, [rcx] ; vmovdqu [r12 + data], xmm0),
            _ => dynasm!(self.ops ; .arch x64 ; vmovdqu ymm0, [rcx] ; vmovdqu [r12 + data], ymm0),
        }
        self.issued(issued);
    }

    /// The issue number of the operation in `row`, and the in-flight limit of counter `c`
    /// (which held `k` of the block's operations before it): at the limit, an operation
    /// from before the block retires (`Pending::issue` retires the block's own when they
    /// alone are at the limit).
    fn count_issue(&mut self, row: u8, c: usize, k: i32) {
        let seq = D_ROW_SEQ + 4 * i32::from(row);
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [r12 + D_SEQ]
            ; mov [r12 + seq], eax
            ; inc eax
            ; mov [r12 + D_SEQ], eax
        );
        self.limit_retires(c, limit(c) as i32 - k);
    }

    /// Where the operations of counter `c` from before the block (from before the entry,
    /// then its ring's) number `room` or more: retire the oldest, as the in-flight limit
    /// does before an issue.
    fn limit_retires(&mut self, c: usize, room: i32) {
        let pre = D_PRE + 4 * c as i32;
        let Some(r) = ring_of(c) else {
            dynasm!(self.ops
                ; .arch x64
                ; cmp DWORD [r12 + pre], room
                ; jb >below
                ; dec DWORD [r12 + pre]
                ; below:
            );
            return;
        };
        let ring = D_RINGS + RING_SIZE * r as i32;
        let wrap = RING as i32 - 1;
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [r12 + pre]
            ; add eax, [r12 + ring + RING_LEN]
            ; cmp eax, room
            ; jb >below
            ; cmp DWORD [r12 + pre], 0
            ; je >oldest
            ; dec DWORD [r12 + pre]
            ; jmp >below
            ; oldest:
            ; mov eax, [r12 + ring + RING_HEAD]
            ; inc eax
            ; and eax, wrap
            ; mov [r12 + ring + RING_HEAD], eax
            ; dec DWORD [r12 + ring + RING_LEN]
            ; below:
        );
    }

    /// Append the operation issued at `pc` to ring `r`, with the issue number in `eax`.
    fn ring_push(&mut self, r: usize, pc: u32) {
        let ring = D_RINGS + RING_SIZE * r as i32;
        let wrap = RING as i32 - 1;
        dynasm!(self.ops
            ; .arch x64
            ; mov ecx, [r12 + ring + RING_HEAD]
            ; add ecx, [r12 + ring + RING_LEN]
            ; and ecx, wrap
            ; mov DWORD [r12 + rcx * 8 + ring], pc as i32
            ; mov [r12 + rcx * 8 + ring + 4], eax
            ; inc DWORD [r12 + ring + RING_LEN]
        );
    }

    /// Before the block leaves with only stores pending (a branch, an EXEC write or its
    /// end): they move to their counter's ring, oldest first, so the blocks it chains to
    /// find them there (its static pending operations are then none).
    pub(super) fn stores_to_rings(&mut self) {
        debug_assert!(self.pending.only_stores());
        for store in std::mem::take(&mut self.pending.loads) {
            let r = ring_of(usize::from(store.counter)).expect("a store's counter has a ring");
            let seq = D_ROW_SEQ + 4 * i32::from(store.row);
            dynasm!(self.ops ; .arch x64 ; mov eax, [r12 + seq]);
            self.ring_push(r, store.pc);
        }
    }

    /// `gstore.b32` (`dsstore.b32`): a full word run's row to memory; a partial EXEC, or
    /// lanes that are not a word run, scattered (`scatter_row`). A global store goes to the
    /// ring (an operation at the store counter's limit retires first: one from before,
    /// else the oldest store); a shared store, whose counter the shared loads share, to the
    /// block's pending operations.
    pub(super) fn store_row(&mut self, pc: u32, inst: &Inst, shared: bool, masked: bool) {
        // The row's halves in the registers of the run just before, unless reading pending
        // loads' words moves rows through them first.
        let held = self
            .held
            .take()
            .filter(|&(r, _)| r == inst.rd && !self.reads_deferred());
        self.read_deferred();
        let acc = self.access(pc, true, shared);
        if masked {
            self.scatter_row(inst, acc, true);
        } else {
            let scatter = self.ops.new_dynamic_label();
            self.word_run_address(inst, acc, scatter);
            match held {
                Some((_, halves)) => self.store_halves_512(halves, Register::RCX, 0),
                None => self.move_row(Register::RSI, row(inst.rd, 0), Register::RCX, 0),
            }
            let stored = self.ops.new_dynamic_label();
            dynasm!(self.ops ; .arch x64 ; jmp =>stored);
            self.not_a_run(scatter);
            self.scatter_row(inst, acc, false);
            dynasm!(self.ops ; .arch x64 ; =>stored);
        }
        self.store_issued(pc, inst, shared, masked);
    }

    /// A store's (or an atomic's) issue, its memory written: a global one to the ring (an
    /// operation at the store counter's limit retires first: one from before, else the
    /// oldest store), a shared one, whose counter the shared loads share, to the block's
    /// pending operations.
    fn store_issued(&mut self, pc: u32, inst: &Inst, shared: bool, masked: bool) {
        let c = super::counter(inst);
        if shared {
            let issued = self.issue(PendingLoad::store(pc, c, masked));
            if let Some(r) = issued.retired {
                self.retire(r);
            }
            self.issued(issued);
            return;
        }
        debug_assert_eq!(ring_of(c), Some(0));
        debug_assert_eq!(
            self.pending.count(c),
            0,
            "loads never use the store counter"
        );
        self.limit_retires(c, limit(c) as i32);
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [r12 + D_SEQ]
            ; inc DWORD [r12 + D_SEQ]
        );
        self.ring_push(0, pc);
    }

    /// A 32-bit atomic without a returned value: each active lane's read-modify-write in
    /// lane order, on the terms of a scatter (`scattered_span`); on global memory, which
    /// other workgroups' threads share, a locked host instruction (`xchg` is one).
    pub(super) fn atomic(
        &mut self,
        pc: u32,
        inst: &Inst,
        shared: bool,
        op: AtomicOp,
        masked: bool,
    ) {
        self.read_deferred();
        let acc = self.access(pc, true, shared);
        // r11 (the constants, reloaded after) holds each lane's operand.
        self.scatter_lanes(inst, acc, masked, |e, value| {
            dynasm!(e.ops ; .arch x64 ; mov r11d, [rsi + value]);
            match (op, shared) {
                (AtomicOp::Add, false) => dynasm!(e.ops ; .arch x64 ; lock add [rcx + rax], r11d),
                (AtomicOp::Sub, false) => dynasm!(e.ops ; .arch x64 ; lock sub [rcx + rax], r11d),
                (AtomicOp::And, false) => dynasm!(e.ops ; .arch x64 ; lock and [rcx + rax], r11d),
                (AtomicOp::Or, false) => dynasm!(e.ops ; .arch x64 ; lock or [rcx + rax], r11d),
                (AtomicOp::Xor, false) => dynasm!(e.ops ; .arch x64 ; lock xor [rcx + rax], r11d),
                (AtomicOp::Add, true) => dynasm!(e.ops ; .arch x64 ; add [rcx + rax], r11d),
                (AtomicOp::Sub, true) => dynasm!(e.ops ; .arch x64 ; sub [rcx + rax], r11d),
                (AtomicOp::And, true) => dynasm!(e.ops ; .arch x64 ; and [rcx + rax], r11d),
                (AtomicOp::Or, true) => dynasm!(e.ops ; .arch x64 ; or [rcx + rax], r11d),
                (AtomicOp::Xor, true) => dynasm!(e.ops ; .arch x64 ; xor [rcx + rax], r11d),
                (AtomicOp::Swap, _) => dynasm!(e.ops ; .arch x64 ; xchg [rcx + rax], r11d),
                _ => unreachable!("{op:?} is not translated (kind::atomic)"),
            }
        });
        dynasm!(self.ops ; .arch x64 ; mov r11, [rdi + CTX_CONSTS]);
        self.store_issued(pc, inst, shared, masked);
    }

    /// A `gstore.b32` (`dsstore.b32`) that is not a full word run: each active lane's word
    /// stored in lane order, so that of lanes storing to one word the highest wins, as in
    /// the interpreter (`scattered_span` says when; the hint of a store only ever holds a
    /// writable region).
    fn scatter_row(&mut self, inst: &Inst, acc: Access, masked: bool) {
        self.scatter_lanes(inst, acc, masked, |e, value| {
            dynasm!(e.ops
                ; .arch x64
                ; vmovd xmm0, [rsi + value]
                ; vmovd [rcx + rax], xmm0
            );
        });
    }

    /// The span of a scatter (`scattered_span`), then `each(value)` for each active lane
    /// in lane order, with `rcx` the host address of `b`, `eax` the lane's offset from it,
    /// and the lane's word of `v[rd]` at `rsi + value`. `each` may use `r11`.
    fn scatter_lanes(
        &mut self,
        inst: &Inst,
        acc: Access,
        masked: bool,
        mut each: impl FnMut(&mut Self, i32),
    ) {
        self.scattered_span(inst, acc, masked);
        // rcx: the host address of b = (b + min) - min.
        dynasm!(self.ops
            ; .arch x64
            ; vmovd eax, xmm4
            ; sub rcx, rax
        );
        for l in 0..LANES {
            let (q, i) = (l / 8, 4 * (l % 8) as i32);
            let (offset, value) = (row(inst.rs1, q) + i, row(inst.rd, q) + i);
            if masked {
                let (byte, bit) = (CTX_EXEC + (l / 8) as i32, (1u8 << (l % 8)) as i8);
                dynasm!(self.ops
                    ; .arch x64
                    ; test BYTE [rdi + byte], bit
                    ; jz >inactive
                );
            }
            dynasm!(self.ops ; .arch x64 ; mov eax, [rsi + offset]);
            each(self, value);
            if masked {
                dynasm!(self.ops ; .arch x64 ; inactive:);
            }
        }
    }

    /// `waitcnt`: the block's loads it retires go to their registers; the operations from
    /// before and the ring's stores count down (they write nothing).
    pub(super) fn waitcnt(&mut self, inst: &Inst) {
        let Some(&t) = self.prog.waits(inst.imm) else {
            return;
        };
        let before: [u32; NUM_COUNTERS] = std::array::from_fn(|c| self.pending.count(c));
        let retired = self.pending.wait(&t);
        // With AVX-512 in the full variant, each row retired stays in its own pair of
        // registers, the i-th slot of each half's row cache, for a run right after the
        // wait to start with (`Emitter::retired_rows`).
        let keep = self.avx512 && !self.masked;
        let (mut kept, mut slot) = (Vec::new(), 0);
        for load in retired {
            if keep && load.deferred() && slot < MAX_SLOTS {
                let halves = [CACHE_REGS_512[0][slot], CACHE_REGS_512[1][slot]];
                slot += 1;
                self.retire_via(load, halves);
                kept.push((load.rd, halves));
            } else {
                self.retire(load);
                // A full-EXEC row moves through the default pair, registers of the first
                // slots.
                if load.deferred() {
                    kept.retain(|&(_, h)| !h.iter().any(|r| MOVE_HALVES.contains(r)));
                }
            }
        }
        self.retired_rows = kept;
        for (c, &t) in t.iter().enumerate() {
            if t >= limit(c) {
                continue; // a count never exceeds its limit
            }
            // What may stay of the operations from before (and the ring's).
            let keep = t.saturating_sub(before[c]) as i32;
            let pre = D_PRE + 4 * c as i32;
            let Some(r) = ring_of(c) else {
                dynasm!(self.ops
                    ; .arch x64
                    ; cmp DWORD [r12 + pre], keep
                    ; jbe >kept
                    ; mov DWORD [r12 + pre], keep
                    ; kept:
                );
                continue;
            };
            let ring = D_RINGS + RING_SIZE * r as i32;
            let wrap = RING as i32 - 1;
            // Retire `pre + len - keep` (if positive): from before first, then the ring.
            dynasm!(self.ops
                ; .arch x64
                ; mov eax, [r12 + pre]
                ; mov ecx, [r12 + ring + RING_LEN]
                ; add ecx, eax
                ; sub ecx, keep
                ; jbe >kept
                ; cmp eax, ecx
                ; jbe >all
                ; sub eax, ecx
                ; mov [r12 + pre], eax
                ; jmp >kept
                ; all:
                ; sub ecx, eax
                ; mov DWORD [r12 + pre], 0
                ; add [r12 + ring + RING_HEAD], ecx
                ; and DWORD [r12 + ring + RING_HEAD], wrap
                ; sub [r12 + ring + RING_LEN], ecx
                ; kept:
            );
        }
    }
}
