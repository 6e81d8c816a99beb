//! Lane operations: runs of lane-local instructions and each lane-local instruction, in
//! quarters of a row (AVX2) or halves (AVX-512, `avx512.rs`).

use super::emitter::*;
use super::layout::*;
use crate::engine::jit::kind::*;
use crate::exec::fp::Arith;
use crate::program::Inst;
use dynasmrt::{dynasm, DynasmApi};

impl Emitter<'_> {
    /// A run of lane-local instructions ([`Run`]): with AVX2, in a full-EXEC block, by
    /// pairs of quarters; with AVX-512, in either variant, by the two halves of each row
    /// side by side (`avx512.rs`).
    /// `stored`: the row the instruction after the run stores, if it is a full-EXEC store
    /// that may take it from the run's registers ([`Emitter::held`]).
    pub(super) fn emit_run(&mut self, run: &[(u32, Inst, Kind)], masked: bool, stored: Option<u8>) {
        if self.avx512 {
            // With AVX-512 a row is two 512-bit halves, emitted side by side. The run sets
            // its constants (and, in the masked variant, EXEC's halves in `k3`/`k4`) unless
            // the code is in 512-bit state already, and leaves the code in that state
            // (`avx512.rs`).
            if !self.warm {
                self.constants_512(masked);
                self.warm = true;
            }
            let cached = std::mem::take(&mut self.retired_rows);
            self.run = Some(Run::new(run, true, stored, &cached));
            for (at, (_, inst, kind)) in run.iter().enumerate() {
                self.lane_setup_512(inst, *kind);
                for side in 0..2 {
                    if let Some(r) = &mut self.run {
                        r.start(at, side);
                    }
                    self.lane_part(inst, *kind, 2 * side, masked);
                }
            }
            // The stored row, if the cache holds both its halves at the end (in
            // `zmm16..31`, which `vzeroupper` leaves alone; a cached row is its current
            // value).
            self.held = self.run.take().and_then(|r| {
                let row = stored?;
                let half = |side: usize| {
                    let slot = r.rows[side][..r.slots]
                        .iter()
                        .position(|&h| h == Some(row))?;
                    Some(r.regs[side][slot])
                };
                Some((row, [half(0)?, half(1)?]))
            });
            return;
        }
        // In the masked variant the lane masks are set aside while the run keeps rows in
        // their registers (`ymm12..ymm15`); each result merges with its row's old value
        // under the mask in memory ([`Emitter::merge_exec`]).
        if masked {
            for q in 0..4u8 {
                let at = D_LANE_MASKS + 32 * i32::from(q);
                dynasm!(self.ops ; .arch x64 ; vmovdqu [r12 + at], Ry(12 + q));
            }
        }
        self.run = Some(Run::new(run, false, None, &[]));
        for pair in [0, 2] {
            for (at, (_, inst, kind)) in run.iter().enumerate() {
                // The broadcast operand serves both quarters.
                self.lane_setup(inst, *kind);
                for side in 0..2 {
                    if let Some(r) = &mut self.run {
                        r.start(at, side);
                    }
                    self.lane_part(inst, *kind, pair + side, masked);
                }
            }
        }
        self.run = None;
        if masked {
            for q in 0..4u8 {
                let at = D_LANE_MASKS + 32 * i32::from(q);
                dynasm!(self.ops ; .arch x64 ; vmovdqu Ry(12 + q), [r12 + at]);
            }
        }
    }

    /// In a run of the masked variant with AVX2: `ymm[dst]` = `ymm[new]` in the lanes of
    /// quarter `q` EXEC has, row `d`'s old value elsewhere (from the cache, or read into
    /// `ymm5`). `dst` and `new` are a cache register, `ymm0`, `ymm4`, `ymm6` or `ymm7`,
    /// the old value's register not among them; uses `ymm0` or `ymm4`, whichever `dst`
    /// and `new` are not.
    pub(super) fn merge_exec(&mut self, dst: u8, new: u8, d: u8, q: usize) {
        let old = match self
            .run
            .as_ref()
            .and_then(|run| run.slot_of(d).map(|s| run.reg(s)))
        {
            Some(reg) => reg,
            None => {
                let at = row(d, q);
                dynasm!(self.ops ; .arch x64 ; vmovdqu ymm5, [rsi + at]);
                5
            }
        };
        if old == new {
            // A copy of the row onto itself.
            if dst != new {
                dynasm!(self.ops ; .arch x64 ; vmovdqa Ry(dst), Ry(new));
            }
            return;
        }
        debug_assert!(old != dst, "the old value's register is kept apart");
        let temp = if dst != 0 && new != 0 { 0 } else { 4 };
        debug_assert!(temp != dst && temp != new, "a free scratch register");
        let mask = D_LANE_MASKS + 32 * q as i32;
        dynasm!(self.ops
            ; .arch x64
            ; vpxor Ry(temp), Ry(old), Ry(new)
            ; vpand Ry(temp), Ry(temp), [r12 + mask]
            ; vpxor Ry(dst), Ry(old), Ry(temp)
        );
    }

    /// Leave 512-bit state ([`Emitter::warm`]) if in it.
    pub(super) fn cool(&mut self) {
        if self.warm {
            self.cooling();
            self.warm = false;
        }
    }

    /// The code that leaves 512-bit state, on one path out of code in it (the emitter
    /// stays in the state for the others); nothing outside it. `vzeroupper` clears bits
    /// 128.. of every register up to 15: the AVX2 constants (and the lane masks of the
    /// masked variant) are set again.
    pub(super) fn cooling(&mut self) {
        if !self.warm {
            return;
        }
        dynasm!(self.ops
            ; .arch x64
            ; vzeroupper
            ; vmovdqu ymm8, [r11 + K_C31]
            ; vmovdqu ymm9, [r11 + K_SIGN]
            ; vpcmpeqd ymm10, ymm10, ymm10
        );
        if self.masked {
            self.lane_masks();
        }
    }

    /// Broadcast the second operand (`u[rs2]` or the immediate) into `ymm7`.
    pub(super) fn splat_src(&mut self, src: VSrc, inst: &Inst) {
        match src {
            VSrc::Row => {}
            VSrc::Ureg => {
                let at = ureg(inst.rs2);
                dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm7, [rdx + at]);
            }
            VSrc::Imm => self.splat_imm(inst.imm),
        }
    }

    pub(super) fn splat_imm(&mut self, imm: u32) {
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, imm as i32
            ; vmovd xmm7, eax
            ; vpbroadcastd ymm7, xmm7
        );
    }

    /// `ymm[dst] = op(ymm[x], ymm[y])`; may use `ymm4..ymm6`. `dst` is written only after
    /// every read of `x` and `y` (the two may be `ymm0` outside a run, which `dst` is then).
    pub(super) fn vbin(&mut self, op: VBin, dst: u8, x: u8, y: u8) {
        match op {
            VBin::Add => dynasm!(self.ops ; .arch x64 ; vpaddd Ry(dst), Ry(x), Ry(y)),
            VBin::Sub => dynasm!(self.ops ; .arch x64 ; vpsubd Ry(dst), Ry(x), Ry(y)),
            VBin::And => dynasm!(self.ops ; .arch x64 ; vpand Ry(dst), Ry(x), Ry(y)),
            VBin::Or => dynasm!(self.ops ; .arch x64 ; vpor Ry(dst), Ry(x), Ry(y)),
            VBin::Xor => dynasm!(self.ops ; .arch x64 ; vpxor Ry(dst), Ry(x), Ry(y)),
            VBin::Andn => dynasm!(self.ops ; .arch x64 ; vpandn Ry(dst), Ry(y), Ry(x)),
            VBin::Orn => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, Ry(y), ymm10
                ; vpor Ry(dst), Ry(x), ymm4
            ),
            VBin::Xnor => dynasm!(self.ops
                ; .arch x64
                ; vpxor Ry(dst), Ry(x), Ry(y)
                ; vpxor Ry(dst), Ry(dst), ymm10
            ),
            VBin::Mul => dynasm!(self.ops ; .arch x64 ; vpmulld Ry(dst), Ry(x), Ry(y)),
            VBin::Sll => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsllvd Ry(dst), Ry(x), ymm4
            ),
            VBin::Srl => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsrlvd Ry(dst), Ry(x), ymm4
            ),
            VBin::Sra => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsravd Ry(dst), Ry(x), ymm4
            ),
            VBin::Rol | VBin::Ror => {
                // The left and right counts s & 31 and (-s) & 31; a count of 0 shifts one
                // way by 0 and the other by 0 too, giving x | x = x.
                let (l, r) = if op == VBin::Rol { (4, 5) } else { (5, 4) };
                dynasm!(self.ops
                    ; .arch x64
                    ; vpand ymm4, Ry(y), ymm8
                    ; vpxor ymm5, ymm5, ymm5
                    ; vpsubd ymm5, ymm5, ymm4
                    ; vpand ymm5, ymm5, ymm8
                    ; vpsllvd ymm6, Ry(x), Ry(l)
                    ; vpsrlvd Ry(dst), Ry(x), Ry(r)
                    ; vpor Ry(dst), Ry(dst), ymm6
                );
            }
            VBin::Min => dynasm!(self.ops ; .arch x64 ; vpminsd Ry(dst), Ry(x), Ry(y)),
            VBin::Max => dynasm!(self.ops ; .arch x64 ; vpmaxsd Ry(dst), Ry(x), Ry(y)),
            VBin::Minu => dynasm!(self.ops ; .arch x64 ; vpminud Ry(dst), Ry(x), Ry(y)),
            VBin::Maxu => dynasm!(self.ops ; .arch x64 ; vpmaxud Ry(dst), Ry(x), Ry(y)),
            VBin::Slt => dynasm!(self.ops
                ; .arch x64
                ; vpcmpgtd Ry(dst), Ry(y), Ry(x)
                ; vpsrld Ry(dst), Ry(dst), 31
            ),
            VBin::Sltu => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, Ry(x), ymm9
                ; vpxor ymm5, Ry(y), ymm9
                ; vpcmpgtd Ry(dst), ymm5, ymm4
                ; vpsrld Ry(dst), Ry(dst), 31
            ),
            VBin::CzeroEqz => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqd ymm4, ymm4, Ry(y)
                ; vpandn Ry(dst), ymm4, Ry(x)
            ),
            VBin::CzeroNez => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqd ymm4, ymm4, Ry(y)
                ; vpand Ry(dst), ymm4, Ry(x)
            ),
            VBin::Mulh | VBin::Mulhu => {
                // Products of the even lanes, then of the odd lanes moved to even positions
                // (`vpshufd` 0xf5 copies each odd dword over its even neighbour; the
                // multiplies read the low dword of each qword); the even products' high
                // dwords are moved down the same way, and the odd products' high dwords are
                // already in odd positions, so a dword blend joins them.
                dynasm!(self.ops
                    ; .arch x64
                    ; vpshufd ymm5, Ry(x), 0xf5u8 as i8
                    ; vpshufd ymm6, Ry(y), 0xf5u8 as i8
                );
                if op == VBin::Mulh {
                    dynasm!(self.ops
                        ; .arch x64
                        ; vpmuldq ymm4, Ry(x), Ry(y)
                        ; vpmuldq ymm5, ymm5, ymm6
                    );
                } else {
                    dynasm!(self.ops
                        ; .arch x64
                        ; vpmuludq ymm4, Ry(x), Ry(y)
                        ; vpmuludq ymm5, ymm5, ymm6
                    );
                }
                // vpshufd ymm4, ymm4, 0xf5; vpblendd ymm[dst], ymm4, ymm5, 0xaa, the blend
                // spelled out (VEX.256.66.0F3A.W0 02 /r ib; VEX.R is the inverted bit 3 of
                // the destination): the assembler swaps the blend's two sources.
                let r_bit = if dst < 8 { 0x80 } else { 0 };
                let modrm = 0xc0 | ((dst & 7) << 3) | 5;
                dynasm!(self.ops
                    ; .arch x64
                    ; vpshufd ymm4, ymm4, 0xf5u8 as i8
                    ; .bytes [0xc4u8, 0x63 | r_bit, 0x5d, 0x02, modrm, 0xaa]
                );
            }
            VBin::Bfm => {
                self.field_ones(x);
                dynasm!(self.ops
                    ; .arch x64
                    ; vpand ymm5, Ry(y), ymm8
                    ; vpsllvd Ry(dst), ymm4, ymm5
                );
            }
        }
    }

    /// `ymm[dst] = op(ymm[x], imm)` for a shift ([`VBin::is_shift`]) by an immediate, whose
    /// count (`imm & 31`) is known here: a shift by an immediate instead of by a broadcast
    /// count.
    pub(super) fn shift_by_imm(&mut self, op: VBin, dst: u8, x: u8, imm: u32) {
        let n = (imm & 31) as i8;
        match op {
            VBin::Sll => dynasm!(self.ops ; .arch x64 ; vpslld Ry(dst), Ry(x), n),
            VBin::Srl => dynasm!(self.ops ; .arch x64 ; vpsrld Ry(dst), Ry(x), n),
            VBin::Sra => dynasm!(self.ops ; .arch x64 ; vpsrad Ry(dst), Ry(x), n),
            _ => unreachable!("shift_by_imm is only given shifts"),
        }
    }

    /// `ymm0` = all ones in the lanes where `cond(ymm[x], ymm[y])` holds, for the conditions
    /// that are computed directly (the others are their complements).
    pub(super) fn vcond(&mut self, c: VCmp, x: u8, y: u8) {
        match c {
            VCmp::Eq | VCmp::Ne => dynasm!(self.ops ; .arch x64 ; vpcmpeqd ymm0, Ry(x), Ry(y)),
            VCmp::LtS | VCmp::GeS => dynasm!(self.ops ; .arch x64 ; vpcmpgtd ymm0, Ry(y), Ry(x)),
            VCmp::GtS => dynasm!(self.ops ; .arch x64 ; vpcmpgtd ymm0, Ry(x), Ry(y)),
            VCmp::LtU | VCmp::GeU | VCmp::GtU => {
                dynasm!(self.ops
                    ; .arch x64
                    ; vpxor ymm4, Ry(x), ymm9
                    ; vpxor ymm5, Ry(y), ymm9
                );
                if c == VCmp::GtU {
                    dynasm!(self.ops ; .arch x64 ; vpcmpgtd ymm0, ymm4, ymm5);
                } else {
                    dynasm!(self.ops ; .arch x64 ; vpcmpgtd ymm0, ymm5, ymm4);
                }
            }
        }
    }

    /// `ymm4 = ones(ymm[width] & 63)`, the field mask of `bfm`/`bfe.u32`: all ones shifted
    /// left by the width and inverted (a count of 32 or more shifts everything out).
    pub(super) fn field_ones(&mut self, width: u8) {
        dynasm!(self.ops
            ; .arch x64
            ; vmovdqu ymm4, [r11 + K_C63]
            ; vpand ymm4, Ry(width), ymm4
            ; vpsllvd ymm4, ymm10, ymm4
            ; vpxor ymm4, ymm4, ymm10
        );
    }

    /// The per-instruction part of a lane-local instruction: its broadcast operand into
    /// `ymm7`.
    pub(super) fn lane_setup(&mut self, inst: &Inst, kind: Kind) {
        match kind {
            Kind::VBin(op, VSrc::Imm) if op.is_shift() => {}
            Kind::VBin(_, src) | Kind::VBinRev(_, src) => self.splat_src(src, inst),
            Kind::MacVu | Kind::Cndmask => self.splat_src(VSrc::Ureg, inst),
            Kind::VSplat { imm: true } => self.splat_imm(inst.imm),
            Kind::VSplat { imm: false } => {
                let at = ureg(inst.rs1);
                dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm7, [rdx + at]);
            }
            _ => {}
        }
    }

    /// The part of a lane-local instruction ([`Kind::lane_local`]) starting at quarter `q`:
    /// lanes `8q..8q+8`, or in a 512-bit run the half `8q..8q+16` (`avx512.rs`). Its
    /// operands' parts in, its result's part out, nothing else read or written but the
    /// uniform registers, which no lane-local instruction writes. Sources come from
    /// [`Emitter::src`] (the run's row cache or a scratch register); results go out through
    /// [`Emitter::store`]; the operation itself is emitted by the AVX2 methods below or
    /// their 512-bit counterparts.
    pub(super) fn lane_part(&mut self, inst: &Inst, kind: Kind, q: usize, masked: bool) {
        let (d, a, b, c) = (inst.rd, inst.rs1, inst.rs2, inst.rs3);
        let wide = self.wide_run();
        match kind {
            Kind::Nop => {}
            Kind::VBin(op, VSrc::Imm) if op.is_shift() => {
                let x = self.src(a, q, 0);
                let dst = self.dest(d);
                if wide {
                    self.shift_by_imm_512(op, dst, x, inst.imm);
                } else {
                    self.shift_by_imm(op, dst, x, inst.imm);
                }
                self.result(dst, d, q, masked);
            }
            Kind::VBin(op, src) | Kind::VBinRev(op, src) => {
                let x = self.src(a, q, 0);
                let y = if src == VSrc::Row {
                    self.src(b, q, 1)
                } else {
                    7
                };
                let dst = self.dest(d);
                let (x, y) = if matches!(kind, Kind::VBinRev(..)) {
                    (y, x)
                } else {
                    (x, y)
                };
                if wide {
                    self.vbin_512(op, dst, x, y);
                } else {
                    self.vbin(op, dst, x, y);
                }
                self.result(dst, d, q, masked);
            }
            Kind::VUn(VUn::Mov) => {
                let x = self.src(a, q, 0);
                self.copy_result(x, d, q, masked);
            }
            Kind::VUn(op) => {
                let x = self.src(a, q, 0);
                let dst = self.dest(d);
                if wide {
                    self.vun_512(op, dst, x);
                } else {
                    self.vun(op, dst, x);
                }
                self.result(dst, d, q, masked);
            }
            Kind::VSplat { .. } => self.copy_result(7, d, q, masked),
            Kind::Laneid => {
                let dst = self.dest(d);
                let at = K_LANES + row(0, q);
                if wide {
                    self.load_const_512(dst, at);
                } else {
                    dynasm!(self.ops ; .arch x64 ; vmovdqu Ry(dst), [r11 + at]);
                }
                self.result(dst, d, q, masked);
            }
            Kind::Mac | Kind::MacVu | Kind::Mad => {
                let x = self.src(a, q, 0);
                let y = if kind == Kind::MacVu {
                    7
                } else {
                    self.src(b, q, 1)
                };
                // The addend is often a multiplicand (`mad v6, v6, v7, v7`): outside a run
                // each operand would be loaded into its own scratch register, so it takes
                // the one already loaded (a run's cache finds it anyway). The product is
                // formed before the addend is read.
                let addend = if kind == Kind::Mad { c } else { d };
                let z = if addend == a {
                    x
                } else if addend == b && kind != Kind::MacVu {
                    y
                } else {
                    self.src(addend, q, 2)
                };
                let dst = self.dest(d);
                if wide {
                    self.mul_add_512(dst, x, y, z);
                } else {
                    dynasm!(self.ops
                        ; .arch x64
                        ; vpmulld ymm4, Ry(x), Ry(y)
                        ; vpaddd Ry(dst), ymm4, Ry(z)
                    );
                }
                self.result(dst, d, q, masked);
            }
            Kind::Sel | Kind::Bfi | Kind::BfeU => {
                let x = self.src(a, q, 1);
                let y = self.src(b, q, 2);
                let z = self.src(c, q, 3);
                let dst = self.dest(d);
                if wide {
                    self.ternary_512(kind, dst, x, y, z);
                } else {
                    self.ternary(kind, dst, x, y, z);
                }
                self.result(dst, d, q, masked);
            }
            Kind::Cndmask => {
                let x = self.src(a, q, 1);
                let old = self.src(d, q, 2);
                let dst = self.dest(d);
                // Lane l picks v[rs1] where bit l of the mask is set.
                if wide {
                    self.cndmask_512(dst, old, x, q);
                } else {
                    let at = K_BITS + (q as i32) * 32;
                    dynasm!(self.ops
                        ; .arch x64
                        ; vmovdqu ymm5, [r11 + at]
                        ; vpand ymm4, ymm7, ymm5
                        ; vpcmpeqd ymm4, ymm4, ymm5
                        ; vpblendvb Ry(dst), Ry(old), Ry(x), ymm4
                    );
                }
                self.result(dst, d, q, masked);
            }
            Kind::Pair64 { add } => {
                let (lo_a, lo_b) = (self.src(a, q, 0), self.src(b, q, 1));
                let (hi_a, hi_b) = (self.src(a + 1, q, 2), self.src(b + 1, q, 3));
                // The low words into `4`, the high words into `6`.
                if wide {
                    self.pair64_512(add, [lo_a, lo_b, hi_a, hi_b]);
                } else {
                    self.pair64(add, [lo_a, lo_b, hi_a, hi_b]);
                }
                self.result(4, d, q, masked);
                self.result(6, d + 1, q, masked);
            }
            Kind::Fp(op) => {
                debug_assert!(wide, "f32 instructions are translated in 512-bit runs only");
                let x = self.src(a, q, 0);
                let y = self.src(b, q, 1);
                let z = if op == Arith::Fma {
                    self.src(c, q, 2)
                } else {
                    y
                };
                let dst = self.dest(d);
                self.fp_512(op, inst, dst, [x, y, z], q);
                self.result(dst, d, q, masked);
            }
            _ => unreachable!("lane_part is only given lane-local kinds"),
        }
    }

    /// `ymm[dst] = op(ymm[x])` (a move is a copy: [`Emitter::copy_result`]).
    pub(super) fn vun(&mut self, op: VUn, dst: u8, x: u8) {
        match op {
            VUn::Mov => dynasm!(self.ops ; .arch x64 ; vmovdqa Ry(dst), Ry(x)),
            VUn::Not => dynasm!(self.ops ; .arch x64 ; vpxor Ry(dst), Ry(x), ymm10),
            VUn::Neg => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpsubd Ry(dst), ymm4, Ry(x)
            ),
            VUn::Abs => dynasm!(self.ops ; .arch x64 ; vpabsd Ry(dst), Ry(x)),
            VUn::SextB | VUn::SextH | VUn::ZextB | VUn::ZextH => {
                let n = op.field_shift();
                dynasm!(self.ops ; .arch x64 ; vpslld Ry(dst), Ry(x), n);
                if matches!(op, VUn::SextB | VUn::SextH) {
                    dynasm!(self.ops ; .arch x64 ; vpsrad Ry(dst), Ry(dst), n);
                } else {
                    dynasm!(self.ops ; .arch x64 ; vpsrld Ry(dst), Ry(dst), n);
                }
            }
        }
    }

    /// `ymm[dst]` from `ymm[x]`, `ymm[y]`, `ymm[z]` (`v[rs1]`, `v[rs2]`, `v[rs3]`) for
    /// `sel`, `bfi` and `bfe.u32`.
    pub(super) fn ternary(&mut self, kind: Kind, dst: u8, x: u8, y: u8, z: u8) {
        match kind {
            // Where v[rs3] == 0 take v[rs2], else v[rs1].
            Kind::Sel => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqd ymm4, ymm4, Ry(z)
                ; vpblendvb Ry(dst), Ry(x), Ry(y), ymm4
            ),
            Kind::Bfi => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(x), Ry(y)
                ; vpandn ymm5, Ry(x), Ry(z)
                ; vpor Ry(dst), ymm4, ymm5
            ),
            _ => {
                self.field_ones(z);
                dynasm!(self.ops
                    ; .arch x64
                    ; vpand ymm5, Ry(y), ymm8
                    ; vpsrlvd Ry(dst), Ry(x), ymm5
                    ; vpand Ry(dst), Ry(dst), ymm4
                );
            }
        }
    }

    /// The 64-bit add or subtract of the pairs `[lo_a, lo_b, hi_a, hi_b]` (registers) into
    /// `ymm4` (low words) and `ymm6` (high words).
    pub(super) fn pair64(&mut self, add: bool, [lo_a, lo_b, hi_a, hi_b]: [u8; 4]) {
        if add {
            // carry = a_lo >u lo
            dynasm!(self.ops
                ; .arch x64
                ; vpaddd ymm4, Ry(lo_a), Ry(lo_b)
                ; vpxor ymm5, Ry(lo_a), ymm9
                ; vpxor ymm6, ymm4, ymm9
                ; vpcmpgtd ymm5, ymm5, ymm6
                ; vpaddd ymm6, Ry(hi_a), Ry(hi_b)
                ; vpsubd ymm6, ymm6, ymm5
            );
        } else {
            // borrow = b_lo >u a_lo
            dynasm!(self.ops
                ; .arch x64
                ; vpsubd ymm4, Ry(lo_a), Ry(lo_b)
                ; vpxor ymm5, Ry(lo_b), ymm9
                ; vpxor ymm6, Ry(lo_a), ymm9
                ; vpcmpgtd ymm5, ymm5, ymm6
                ; vpsubd ymm6, Ry(hi_a), Ry(hi_b)
                ; vpaddd ymm6, ymm6, ymm5
            );
        }
    }
}
