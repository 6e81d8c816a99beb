//! Memory in translated code: `gload.b32`/`gstore.b32` as word runs, gathers and scatters,
//! and `waitcnt`.

use super::emitter::*;
use super::layout::*;
use crate::engine::jit::pending::*;
use crate::memory::direct::{HINTS, MISS_BYTES_SHIFT, MISS_WRITE, RING};
use crate::program::Inst;
use crate::state::queue::NUM_COUNTERS;
use crate::state::LANES;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};

impl Emitter<'_> {
    /// A word run's address, checked as `mem_exec`'s word run checks it: lane `l` of
    /// `v[rs1]` is `v0 + 4l` (no wrap), `lo = U64[rs2] + v0 + sext(imm)` is aligned,
    /// `lo + 128` does not wrap, and the instruction's region hint holds `lo..lo + 128`.
    /// Leaves the host address of `lo` in `rcx`; anything else leaves the block before the
    /// instruction (a hint miss records itself, for the region to be looked up).
    ///
    /// With `not_run`, a load whose lanes are not a word run (or whose run wraps its 32-bit
    /// offsets) jumps there instead of leaving, with the access's `side` exit, `miss` exit
    /// and hint offset returned for its gather.
    pub(super) fn word_run_address(
        &mut self,
        pc: u32,
        inst: &Inst,
        store: bool,
        not_run: Option<DynamicLabel>,
    ) -> (DynamicLabel, DynamicLabel, i32) {
        let (side, miss, hint) = self.access_hint(pc, store, 0);
        let (a, b) = (inst.rs1, inst.rs2);
        let v0 = row(a, 0);
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [rsi + v0]
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
        let imm = i64::from(inst.imm as i32);
        let ub = ureg(b);
        let not_run = not_run.unwrap_or(side);
        dynasm!(self.ops
            ; .arch x64
            // vptest ymm2, ymm2, spelled out (VEX.256.66.0F38 17 /r): ZF if every lane
            // matched.
            ; .bytes [0xc4u8, 0xe2, 0x7d, 0x17, 0xd2]
            ; jnz =>not_run
            ; cmp eax, 0xffff_ff83u32 as i32
            ; ja =>not_run
            ; mov rcx, [rdx + ub]
            ; add rcx, rax
            ; mov rax, QWORD imm
            ; add rcx, rax
        );
        self.host_address(128, side, miss, hint);
        (side, miss, hint)
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
        let half = HINTS / 2;
        let index = half * usize::from(store) + self.accesses[usize::from(store)] % half;
        self.accesses[usize::from(store)] += 1;
        let write = if store { MISS_WRITE } else { 0 };
        let miss_value = (index as u32 + 1) | write | bytes << MISS_BYTES_SHIFT;
        let (side, miss) = self.side_exit(pc, Some(miss_value));
        (
            side,
            miss.expect("a miss label"),
            D_HINTS + index as i32 * HINT_SIZE,
        )
    }

    /// With `rcx` the access's lowest address: to `side` unless it is aligned to 4 bytes
    /// and `rcx + bytes` does not wrap, to `miss` unless the hint holds `rcx..rcx + bytes`;
    /// then `rcx` becomes its host address.
    fn host_address(&mut self, bytes: i32, side: DynamicLabel, miss: DynamicLabel, hint: i32) {
        dynasm!(self.ops
            ; .arch x64
            ; test cl, 3
            ; jnz =>side
            ; mov rax, rcx
            ; add rax, bytes
            ; jc =>side
            ; cmp rcx, [r12 + hint]
            ; jb =>miss
            ; cmp rax, [r12 + hint + 8]
            ; ja =>miss
            ; sub rcx, [r12 + hint]
            ; add rcx, [r12 + hint + 16]
        );
    }

    /// The span of a full-EXEC `gload.b32`/`gstore.b32` whose lanes are not a word run,
    /// checked as the interpreter's fast path checks it: with `b = U64[rs2] + sext(imm)`,
    /// every lane's offset `v[rs1]` plus `b` aligned (`(b | OR of the offsets) & 3 == 0`),
    /// `b + max + 4` not wrapping, and `b + min .. b + max + 4` inside the region the
    /// access's hint holds (`min`, `max`: the offsets' unsigned extremes); anything else
    /// leaves before the instruction (a hint miss records `b + min`). The spread
    /// `max - min` must fit a gather's signed 32-bit index. Leaves the host address of
    /// `b + min` in `rcx`, `min` in every lane of `ymm4` and the offsets' quarters in
    /// `ymm0..ymm3`.
    fn scattered_span(&mut self, inst: &Inst, side: DynamicLabel, miss: DynamicLabel, hint: i32) {
        let (a, b) = (inst.rs1, inst.rs2);
        let imm = i64::from(inst.imm as i32);
        let ub = ureg(b);
        // The offsets' unsigned minimum (ymm4), maximum (ymm5) and bitwise OR (ymm6),
        // reduced to lane 0.
        dynasm!(self.ops
            ; .arch x64
            ; vmovdqu ymm0, [rsi + row(a, 0)]
            ; vmovdqu ymm1, [rsi + row(a, 1)]
            ; vmovdqu ymm2, [rsi + row(a, 2)]
            ; vmovdqu ymm3, [rsi + row(a, 3)]
            ; vpminud ymm4, ymm0, ymm1
            ; vpminud ymm5, ymm2, ymm3
            ; vpminud ymm4, ymm4, ymm5
            ; vpmaxud ymm5, ymm0, ymm1
            ; vpmaxud ymm6, ymm2, ymm3
            ; vpmaxud ymm5, ymm5, ymm6
            ; vpor ymm6, ymm0, ymm1
            ; vpor ymm7, ymm2, ymm3
            ; vpor ymm6, ymm6, ymm7
        );
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
        dynasm!(self.ops
            ; .arch x64
            // b, wrapping as the interpreter's address does.
            ; mov rcx, [rdx + ub]
            ; mov rax, QWORD imm
            ; add rcx, rax
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
            ; cmp rax, [r12 + hint + 8]
            ; vmovd eax, xmm4
            ; lea rcx, [rcx + rax]
            ; ja =>miss
            ; cmp rcx, [r12 + hint]
            ; jb =>miss
            ; sub rcx, [r12 + hint]
            ; add rcx, [r12 + hint + 16]
            ; vpbroadcastd ymm4, xmm4
        );
    }

    /// A full-EXEC `gload.b32` whose lanes are not a word run, gathered into the pending row
    /// at `data` (`scattered_span` says when).
    fn gather_row(
        &mut self,
        inst: &Inst,
        side: DynamicLabel,
        miss: DynamicLabel,
        hint: i32,
        data: i32,
    ) {
        self.scattered_span(inst, side, miss, hint);
        for q in 0..4u8 {
            let at = data + 32 * i32::from(q);
            dynasm!(self.ops
                ; .arch x64
                ; vpsubd Ry(q), Ry(q), ymm4
                ; vpcmpeqd ymm5, ymm5, ymm5
                ; vpxor ymm6, ymm6, ymm6
                ; vpgatherdd ymm6, [rcx + Ry(q) * 1], ymm5
                ; vmovdqu [r12 + at], ymm6
            );
        }
    }

    /// `gload.b32` as a word run: the 32 words into a pending row, counted on the load
    /// counter (whose in-flight limit retires an operation from before the block, if any
    /// is at the limit: `Pending::issue` keeps the block's own below it).
    /// Lanes that are not a word run are gathered (`gather_row`).
    pub(super) fn load_row(&mut self, pc: u32, inst: &Inst) {
        let gather = self.ops.new_dynamic_label();
        let (side, miss, hint) = self.word_run_address(pc, inst, false, Some(gather));
        let c = load_counter();
        let k = self.pending.count(c) as i32;
        let load = self
            .pending
            .issue(pc, inst.rd, 0, c)
            .expect("admitted with a free row");
        let data = D_ROWS + i32::from(load.row) * 128;
        for q in 0..4 {
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm0, [rcx + 32 * q]
                ; vmovdqu [r12 + data + 32 * q], ymm0
            );
        }
        let loaded = self.ops.new_dynamic_label();
        dynasm!(self.ops ; .arch x64 ; jmp =>loaded ; =>gather);
        self.gather_row(inst, side, miss, hint, data);
        dynasm!(self.ops ; .arch x64 ; =>loaded);
        self.count_issue(load.row, c, k);
    }

    /// `uload.bN`: the N/8 bytes at `U64[rs1] + sext(imm)` into a pending row, counted on
    /// the uniform load counter, on the terms of the interpreter's read: the address
    /// aligned to 4 bytes, `addr + N/8` not wrapping, and the bytes inside the region the
    /// access's hint holds; anything else leaves before the instruction (a hint miss
    /// records the address and the size, for the region to be looked up).
    pub(super) fn uload_row(&mut self, pc: u32, inst: &Inst) {
        let count = super::uniform_count(inst);
        let bytes = 4 * u32::from(count);
        let (side, miss, hint) = self.access_hint(pc, false, bytes);
        let imm = i64::from(inst.imm as i32);
        let ua = ureg(inst.rs1);
        dynasm!(self.ops
            ; .arch x64
            ; mov rcx, [rdx + ua]
            ; mov rax, QWORD imm
            ; add rcx, rax
        );
        self.host_address(bytes as i32, side, miss, hint);
        let c = uniform_counter();
        let k = self.pending.count(c) as i32;
        let load = self
            .pending
            .issue(pc, inst.rd, count, c)
            .expect("admitted with a free row");
        let data = D_ROWS + i32::from(load.row) * 128;
        match bytes {
            4 => dynasm!(self.ops ; .arch x64 ; mov eax, [rcx] ; mov [r12 + data], eax),
            8 => dynasm!(self.ops ; .arch x64 ; mov rax, [rcx] ; mov [r12 + data], rax),
            16 => dynasm!(self.ops ; .arch x64 ; vmovdqu xmm0, [rcx] ; vmovdqu [r12 + data], xmm0),
            _ => dynasm!(self.ops ; .arch x64 ; vmovdqu ymm0, [rcx] ; vmovdqu [r12 + data], ymm0),
        }
        self.count_issue(load.row, c, k);
    }

    /// The issue number of the load in `row`, and the in-flight limit of counter `c`
    /// (which held `k` of the block's loads before it): at the limit, an operation from
    /// before the block retires (`Pending::issue` keeps the block's own below it).
    fn count_issue(&mut self, row: u8, c: usize, k: i32) {
        let seq = D_ROW_SEQ + 4 * i32::from(row);
        let pre = D_PRE + 4 * c as i32;
        let room = limit(c) as i32 - k;
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [r12 + D_SEQ]
            ; mov [r12 + seq], eax
            ; inc eax
            ; mov [r12 + D_SEQ], eax
            ; cmp DWORD [r12 + pre], room
            ; jb >below
            ; dec DWORD [r12 + pre]
            ; below:
        );
    }

    /// `gstore.b32` as a word run: the row to memory, the store to the ring (an operation
    /// at the store counter's limit retires first: one from before, else the oldest
    /// store).
    /// Lanes that are not a word run are scattered (`scatter_row`).
    pub(super) fn store_row(&mut self, pc: u32, inst: &Inst) {
        let scatter = self.ops.new_dynamic_label();
        let (side, miss, hint) = self.word_run_address(pc, inst, true, Some(scatter));
        for q in 0..4 {
            let at = row(inst.rd, q);
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm0, [rsi + at]
                ; vmovdqu [rcx + 32 * q as i32], ymm0
            );
        }
        let stored = self.ops.new_dynamic_label();
        dynasm!(self.ops ; .arch x64 ; jmp =>stored ; =>scatter);
        self.scatter_row(inst, side, miss, hint);
        dynasm!(self.ops ; .arch x64 ; =>stored);
        let c = store_counter();
        debug_assert_eq!(
            self.pending.count(c),
            0,
            "loads never use the store counter"
        );
        let pre = D_PRE + 4 * c as i32;
        let lim = limit(c) as i32;
        let wrap = RING as i32 - 1;
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [r12 + pre]
            ; add eax, [r12 + D_RING_LEN]
            ; cmp eax, lim
            ; jb >push
            ; cmp DWORD [r12 + pre], 0
            ; je >oldest
            ; dec DWORD [r12 + pre]
            ; jmp >push
            ; oldest:
            ; mov eax, [r12 + D_RING_HEAD]
            ; inc eax
            ; and eax, wrap
            ; mov [r12 + D_RING_HEAD], eax
            ; dec DWORD [r12 + D_RING_LEN]
            ; push:
            ; mov eax, [r12 + D_RING_HEAD]
            ; add eax, [r12 + D_RING_LEN]
            ; and eax, wrap
            ; mov DWORD [r12 + rax * 8 + D_RING], pc as i32
            ; mov ecx, [r12 + D_SEQ]
            ; mov [r12 + rax * 8 + D_RING + 4], ecx
            ; inc ecx
            ; mov [r12 + D_SEQ], ecx
            ; inc DWORD [r12 + D_RING_LEN]
        );
    }

    /// A full-EXEC `gstore.b32` whose lanes are not a word run, each lane's word stored in
    /// lane order, so that of lanes storing to one word the highest wins, as in the
    /// interpreter (`scattered_span` says when; the hint of a store only ever holds a
    /// writable region).
    fn scatter_row(&mut self, inst: &Inst, side: DynamicLabel, miss: DynamicLabel, hint: i32) {
        self.scattered_span(inst, side, miss, hint);
        // rcx: the host address of b = (b + min) - min.
        dynasm!(self.ops
            ; .arch x64
            ; vmovd eax, xmm4
            ; sub rcx, rax
        );
        for l in 0..LANES {
            let (q, i) = (l / 8, 4 * (l % 8) as i32);
            let (offset, value) = (row(inst.rs1, q) + i, row(inst.rd, q) + i);
            dynasm!(self.ops
                ; .arch x64
                ; mov eax, [rsi + offset]
                ; vmovd xmm0, [rsi + value]
                ; vmovd [rcx + rax], xmm0
            );
        }
    }

    /// `waitcnt`: the block's loads it retires go to their registers; the operations from
    /// before and the ring's stores count down (they write nothing).
    pub(super) fn waitcnt(&mut self, inst: &Inst) {
        let Some(&t) = self.prog.waits(inst.imm) else {
            return;
        };
        let before: [u32; NUM_COUNTERS] = std::array::from_fn(|c| self.pending.count(c));
        for load in self.pending.wait(&t) {
            let data = D_ROWS + i32::from(load.row) * 128;
            if load.uniform > 0 {
                for k in 0..load.uniform {
                    let (from, to) = (data + 4 * i32::from(k), ureg(load.rd + k));
                    dynasm!(self.ops
                        ; .arch x64
                        ; mov eax, [r12 + from]
                        ; mov [rdx + to], eax
                    );
                }
                continue;
            }
            for q in 0..4 {
                let at = row(load.rd, q);
                dynasm!(self.ops
                    ; .arch x64
                    ; vmovdqu ymm0, [r12 + data + 32 * q as i32]
                    ; vmovdqu [rsi + at], ymm0
                );
            }
        }
        let stores = store_counter();
        let wrap = RING as i32 - 1;
        for (c, &t) in t.iter().enumerate() {
            if t >= limit(c) {
                continue; // a count never exceeds its limit
            }
            // What may stay of the operations from before (and the stores).
            let keep = t.saturating_sub(before[c]) as i32;
            let pre = D_PRE + 4 * c as i32;
            if c != stores {
                dynasm!(self.ops
                    ; .arch x64
                    ; cmp DWORD [r12 + pre], keep
                    ; jbe >kept
                    ; mov DWORD [r12 + pre], keep
                    ; kept:
                );
                continue;
            }
            // Retire `pre + len - keep` (if positive): from before first, then the ring.
            dynasm!(self.ops
                ; .arch x64
                ; mov eax, [r12 + pre]
                ; mov ecx, [r12 + D_RING_LEN]
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
                ; add [r12 + D_RING_HEAD], ecx
                ; and DWORD [r12 + D_RING_HEAD], wrap
                ; sub [r12 + D_RING_LEN], ecx
                ; kept:
            );
        }
    }
}
