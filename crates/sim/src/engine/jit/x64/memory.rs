//! Memory in translated code: the word runs of `gload.b32`/`gstore.b32` and `waitcnt`.

use super::emitter::*;
use super::layout::*;
use crate::engine::jit::pending::*;
use crate::memory::direct::{HINTS, MISS_WRITE, RING};
use crate::program::Inst;
use crate::state::queue::NUM_COUNTERS;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};

impl Emitter<'_> {
    /// A word run's address, checked as `mem_exec`'s word run checks it: lane `l` of
    /// `v[rs1]` is `v0 + 4l` (no wrap), `lo = U64[rs2] + v0 + sext(imm)` is aligned,
    /// `lo + 128` does not wrap, and the instruction's region hint holds `lo..lo + 128`.
    /// Leaves the host address of `lo` in `rcx`; anything else leaves the block before the
    /// instruction (a hint miss records itself, for the region to be looked up).
    pub(super) fn word_run_address(&mut self, pc: u32, inst: &Inst, store: bool) {
        let half = HINTS / 2;
        let index = half * usize::from(store) + self.accesses[usize::from(store)] % half;
        self.accesses[usize::from(store)] += 1;
        let miss_value = (index as u32 + 1) | if store { MISS_WRITE } else { 0 };
        let (side, miss) = self.side_exit(pc, Some(miss_value));
        let miss = miss.expect("a miss label");
        let hint = D_HINTS + index as i32 * HINT_SIZE;
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
        dynasm!(self.ops
            ; .arch x64
            // vptest ymm2, ymm2, spelled out (VEX.256.66.0F38 17 /r): ZF if every lane
            // matched.
            ; .bytes [0xc4u8, 0xe2, 0x7d, 0x17, 0xd2]
            ; jnz =>side
            ; cmp eax, 0xffff_ff83u32 as i32
            ; ja =>side
            ; mov rcx, [rdx + ub]
            ; add rcx, rax
            ; mov rax, QWORD imm
            ; add rcx, rax
            ; test cl, 3
            ; jnz =>side
            ; mov rax, rcx
            ; add rax, 128
            ; jc =>side
            ; cmp rcx, [r12 + hint]
            ; jb =>miss
            ; cmp rax, [r12 + hint + 8]
            ; ja =>miss
            ; sub rcx, [r12 + hint]
            ; add rcx, [r12 + hint + 16]
        );
    }

    /// `gload.b32` as a word run: the 32 words into a pending row, counted on the load
    /// counter (whose in-flight limit retires an operation from before the block, if any
    /// is at the limit: `Pending::issue` keeps the block's own below it).
    pub(super) fn load_row(&mut self, pc: u32, inst: &Inst) {
        self.word_run_address(pc, inst, false);
        let c = load_counter();
        let k = self.pending.count(c) as i32;
        let load = self
            .pending
            .issue(pc, inst.rd, c)
            .expect("admitted with a free row");
        let data = D_ROWS + i32::from(load.row) * 128;
        for q in 0..4 {
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm0, [rcx + 32 * q]
                ; vmovdqu [r12 + data + 32 * q], ymm0
            );
        }
        let seq = D_ROW_SEQ + 4 * i32::from(load.row);
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
    pub(super) fn store_row(&mut self, pc: u32, inst: &Inst) {
        self.word_run_address(pc, inst, true);
        for q in 0..4 {
            let at = row(inst.rd, q);
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm0, [rsi + at]
                ; vmovdqu [rcx + 32 * q as i32], ymm0
            );
        }
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

    /// `waitcnt`: the block's loads it retires go to their registers; the operations from
    /// before and the ring's stores count down (they write nothing).
    pub(super) fn waitcnt(&mut self, inst: &Inst) {
        let Some(&t) = self.prog.waits(inst.imm) else {
            return;
        };
        let before: [u32; NUM_COUNTERS] = std::array::from_fn(|c| self.pending.count(c));
        for load in self.pending.wait(&t) {
            let data = D_ROWS + i32::from(load.row) * 128;
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
