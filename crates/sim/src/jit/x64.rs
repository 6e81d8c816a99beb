//! The x86-64 (AVX2) code generator of the translation tier.
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
//! | `ymm8` / `ymm9` / `ymm10` / `ymm11` | 31 / 0x8000_0000 / all ones / 1 in every lane |
//! | `ymm12..ymm15` | the EXEC lane mask, one quarter each (masked variant) |
//!
//! `eax`, `ecx`, `ymm0..ymm7` are scratch. Two variants of every block are emitted: *full*
//! assumes EXEC is all ones and stores rows whole; *masked* merges each result quarter into
//! the old row with `vpblendvb`. An EXEC writer ends its block: it updates `ctx.exec`, the
//! lane masks, `rbx` and the table register, and continues in the variant the new EXEC
//! calls for.

use super::kind::{classify, Branch, ExecWrite, Kind, SBin, SUn, VBin, VCmp, VSrc, VUn, S64};
use crate::program::{Inst, Program};
use dynasmrt::{dynasm, x64::Assembler, AssemblyOffset, DynamicLabel, DynasmApi, DynasmLabelApi};

/// Instructions in one block at most: keeps the budget check of a block's prologue from
/// forcing a long run back to the interpreter near the step limit.
const MAX_BLOCK: usize = 64;
/// Programs with more 4-byte slots than this are not translated (translation is eager).
pub(super) const MAX_TRANSLATED_SLOTS: usize = 1 << 16;

/// What translated code reads and writes of the warp; its layout is known to the code.
#[repr(C)]
pub(super) struct Ctx {
    pub mask: *const u32,
    pub consts: *const Consts,
    pub v: *mut u32,
    pub u: *mut u32,
    /// The table of the variant entered.
    pub table: *const usize,
    pub budget: u64,
    /// Lane-operations of the vector instructions executed (out).
    pub lane_ops: u64,
    /// EXEC (in and out: translated EXEC writers update it).
    pub exec: u32,
    pub _pad: u32,
    /// The tables of the full and the masked variant, for a switch after an EXEC write.
    pub tables: [*const usize; 2],
}

const CTX_MASK: i32 = 0;
const CTX_CONSTS: i32 = 8;
const CTX_V: i32 = 16;
const CTX_U: i32 = 24;
const CTX_TABLE: i32 = 32;
const CTX_BUDGET: i32 = 40;
const CTX_LANE_OPS: i32 = 48;
const CTX_EXEC: i32 = 56;
const CTX_TABLE_FULL: i32 = 64;
const CTX_TABLE_MASKED: i32 = 72;

/// Constant rows the code loads.
#[repr(C, align(32))]
pub(super) struct Consts {
    lanes: [u32; 32],
    bits: [u32; 32],
    c31: [u32; 8],
    sign: [u32; 8],
    one: [u32; 8],
    c63: [u32; 8],
}

const K_LANES: i32 = 0;
const K_BITS: i32 = 128;
const K_C31: i32 = 256;
const K_SIGN: i32 = 288;
const K_ONE: i32 = 320;
const K_C63: i32 = 352;

impl Consts {
    pub(super) fn new() -> Consts {
        Consts {
            lanes: std::array::from_fn(|l| l as u32),
            bits: std::array::from_fn(|l| 1 << l),
            c31: [31; 8],
            sign: [0x8000_0000; 8],
            one: [1; 8],
            c63: [63; 8],
        }
    }
}

/// `enter(ctx, block address) -> next pc`.
pub(super) type EnterFn = unsafe extern "sysv64" fn(*mut Ctx, usize) -> u32;

/// The machine code of a program and, per variant, the address of the block at each slot
/// (the exit stub where there is none).
pub(super) struct Code {
    pub buf: dynasmrt::ExecutableBuffer,
    pub enter: AssemblyOffset,
    pub exit: AssemblyOffset,
    /// Per variant (0 full, 1 masked): the offset of the block starting at each slot.
    pub blocks: [Vec<Option<AssemblyOffset>>; 2],
    pub instructions: usize,
    pub blocks_count: usize,
}

fn row(r: u8, q: usize) -> i32 {
    i32::from(r) * 128 + (q as i32) * 32
}

fn ureg(r: u8) -> i32 {
    i32::from(r) * 4
}

struct Emitter<'a> {
    ops: Assembler,
    prog: &'a Program,
    slots: usize,
    exit: DynamicLabel,
    labels: [Vec<Option<DynamicLabel>>; 2],
}

/// Translate every block of `prog`. `None` if the code buffer cannot be mapped.
pub(super) fn translate(prog: &Program) -> Option<Code> {
    let slots = (prog.text().len() / 4).min(MAX_TRANSLATED_SLOTS);
    let kinds: Vec<Option<Kind>> = (0..slots)
        .map(|k| prog.fetch((k * 4) as u32).and_then(classify))
        .collect();
    let leaders = leaders(prog, &kinds);
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
            *offset = Some(e.ops.offset());
            dynasm!(e.ops ; .arch x64 ; =>label);
            instructions += e.block(k, &kinds, &leaders, variant == 1);
            blocks_count += 1;
        }
    }
    let buf = e.ops.finalize().ok()?;
    Some(Code {
        buf,
        enter,
        exit: exit_at,
        blocks: offsets,
        instructions,
        blocks_count,
    })
}

/// Slots where a block starts: 0, every direct branch target, and every slot after an
/// instruction that ends a block or is interpreted, found by walking the code from 0.
fn leaders(prog: &Program, kinds: &[Option<Kind>]) -> Vec<bool> {
    let n = kinds.len();
    let mut leader = vec![false; n];
    if n > 0 {
        leader[0] = true;
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
                    }
                }
                if next < n {
                    leader[next] = true;
                }
            }
            Some(kind) if !kind.ends_block() => {}
            _ => {
                if next < n {
                    leader[next] = true;
                }
            }
        }
        k = next;
    }
    leader
}

impl Emitter<'_> {
    /// `enter(ctx: rdi, block: rsi)`: load the conventions' registers, jump to the block.
    fn prologue(&mut self) -> AssemblyOffset {
        let at = self.ops.offset();
        dynasm!(self.ops
            ; .arch x64
            ; push rbx
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
            ; vmovdqu ymm11, [r11 + K_ONE]
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
            ; pop rbx
            ; vzeroupper
            ; ret
        );
    }

    /// Continue at `pc`: the block there (same variant), or the interpreter.
    fn goto(&mut self, pc: u32, masked: bool) {
        let exit = self.exit;
        match self.block_label(pc, masked) {
            Some(label) => dynasm!(self.ops ; .arch x64 ; jmp =>label),
            None => dynasm!(self.ops ; .arch x64 ; mov eax, pc as i32 ; jmp =>exit),
        }
    }

    fn block_label(&self, pc: u32, masked: bool) -> Option<DynamicLabel> {
        if pc & 3 != 0 {
            return None;
        }
        *self.labels[usize::from(masked)].get((pc >> 2) as usize)?
    }

    /// Emit the block starting at slot `k`; returns its instruction count.
    fn block(&mut self, k: usize, kinds: &[Option<Kind>], leaders: &[bool], masked: bool) -> usize {
        let mut body: Vec<(u32, Inst, Kind)> = Vec::new();
        let mut s = k;
        while s < self.slots && body.len() < MAX_BLOCK {
            if s != k && leaders[s] {
                break;
            }
            let (Some(kind), Some(&inst)) = (kinds[s], self.prog.fetch((s * 4) as u32)) else {
                break;
            };
            body.push(((s * 4) as u32, inst, kind));
            s += usize::from(inst.len) / 4;
            if kind.ends_block() {
                break;
            }
        }
        let n = body.len() as i32;
        let vector = body.iter().filter(|(_, i, _)| i.vector).count() as i32;
        let start = (k * 4) as u32;
        let exit = self.exit;
        dynasm!(self.ops
            ; .arch x64
            ; cmp r8, n
            ; jae >run
            ; mov eax, start as i32
            ; jmp =>exit
            ; run:
            ; sub r8, n
        );
        if vector > 0 {
            if masked {
                dynasm!(self.ops ; .arch x64 ; imul rcx, rbx, vector ; add r10, rcx);
            } else {
                let lanes = vector * 32;
                dynasm!(self.ops ; .arch x64 ; add r10, lanes);
            }
        }
        for &(pc, inst, kind) in &body {
            self.inst(pc, &inst, kind, masked);
        }
        let (last_pc, last, last_kind) = body[body.len() - 1];
        if !last_kind.ends_block() {
            self.goto(last_pc.wrapping_add(u32::from(last.len)), masked);
        }
        body.len()
    }

    /// Store `ymm0` as quarter `q` of row `d`.
    fn store(&mut self, d: u8, q: usize, masked: bool) {
        let at = row(d, q);
        if masked {
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm1, [rsi + at]
                ; vpblendvb ymm0, ymm1, ymm0, Ry(12 + q as u8)
            );
        }
        dynasm!(self.ops ; .arch x64 ; vmovdqu [rsi + at], ymm0);
    }

    /// Broadcast the second operand (`u[rs2]` or the immediate) into `ymm7`.
    fn splat_src(&mut self, src: VSrc, inst: &Inst) {
        match src {
            VSrc::Row => {}
            VSrc::Ureg => {
                let at = ureg(inst.rs2);
                dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm7, [rdx + at]);
            }
            VSrc::Imm => self.splat_imm(inst.imm),
        }
    }

    fn splat_imm(&mut self, imm: u32) {
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, imm as i32
            ; vmovd xmm7, eax
            ; vpbroadcastd ymm7, xmm7
        );
    }

    /// `ymm0 = op(ymm[x], ymm[y])`; may use `ymm4..ymm6`.
    fn vbin(&mut self, op: VBin, x: u8, y: u8) {
        match op {
            VBin::Add => dynasm!(self.ops ; .arch x64 ; vpaddd ymm0, Ry(x), Ry(y)),
            VBin::Sub => dynasm!(self.ops ; .arch x64 ; vpsubd ymm0, Ry(x), Ry(y)),
            VBin::And => dynasm!(self.ops ; .arch x64 ; vpand ymm0, Ry(x), Ry(y)),
            VBin::Or => dynasm!(self.ops ; .arch x64 ; vpor ymm0, Ry(x), Ry(y)),
            VBin::Xor => dynasm!(self.ops ; .arch x64 ; vpxor ymm0, Ry(x), Ry(y)),
            VBin::Andn => dynasm!(self.ops ; .arch x64 ; vpandn ymm0, Ry(y), Ry(x)),
            VBin::Orn => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, Ry(y), ymm10
                ; vpor ymm0, Ry(x), ymm4
            ),
            VBin::Xnor => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm0, Ry(x), Ry(y)
                ; vpxor ymm0, ymm0, ymm10
            ),
            VBin::Mul => dynasm!(self.ops ; .arch x64 ; vpmulld ymm0, Ry(x), Ry(y)),
            VBin::Sll => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsllvd ymm0, Ry(x), ymm4
            ),
            VBin::Srl => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsrlvd ymm0, Ry(x), ymm4
            ),
            VBin::Sra => dynasm!(self.ops
                ; .arch x64
                ; vpand ymm4, Ry(y), ymm8
                ; vpsravd ymm0, Ry(x), ymm4
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
                    ; vpsrlvd ymm0, Ry(x), Ry(r)
                    ; vpor ymm0, ymm0, ymm6
                );
            }
            VBin::Min => dynasm!(self.ops ; .arch x64 ; vpminsd ymm0, Ry(x), Ry(y)),
            VBin::Max => dynasm!(self.ops ; .arch x64 ; vpmaxsd ymm0, Ry(x), Ry(y)),
            VBin::Minu => dynasm!(self.ops ; .arch x64 ; vpminud ymm0, Ry(x), Ry(y)),
            VBin::Maxu => dynasm!(self.ops ; .arch x64 ; vpmaxud ymm0, Ry(x), Ry(y)),
            VBin::Slt => dynasm!(self.ops
                ; .arch x64
                ; vpcmpgtd ymm0, Ry(y), Ry(x)
                ; vpand ymm0, ymm0, ymm11
            ),
            VBin::Sltu => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, Ry(x), ymm9
                ; vpxor ymm5, Ry(y), ymm9
                ; vpcmpgtd ymm0, ymm5, ymm4
                ; vpand ymm0, ymm0, ymm11
            ),
            VBin::CzeroEqz => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqd ymm4, ymm4, Ry(y)
                ; vpandn ymm0, ymm4, Ry(x)
            ),
            VBin::CzeroNez => dynasm!(self.ops
                ; .arch x64
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqd ymm4, ymm4, Ry(y)
                ; vpand ymm0, ymm4, Ry(x)
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
                // vpshufd ymm4, ymm4, 0xf5; vpblendd ymm0, ymm4, ymm5, 0xaa, the blend
                // spelled out: the assembler swaps the blend's two sources.
                dynasm!(self.ops
                    ; .arch x64
                    ; vpshufd ymm4, ymm4, 0xf5u8 as i8
                    ; .bytes [0xc4u8, 0xe3, 0x5d, 0x02, 0xc5, 0xaa]
                );
            }
            VBin::Bfm => {
                self.field_ones(x);
                dynasm!(self.ops
                    ; .arch x64
                    ; vpand ymm5, Ry(y), ymm8
                    ; vpsllvd ymm0, ymm4, ymm5
                );
            }
        }
    }

    /// `ymm0 = op(ymm[x], imm)` for a shift ([`VBin::is_shift`]) by an immediate, whose
    /// count (`imm & 31`) is known here: a shift by an immediate instead of by a broadcast
    /// count.
    fn shift_by_imm(&mut self, op: VBin, x: u8, imm: u32) {
        let n = (imm & 31) as i8;
        match op {
            VBin::Sll => dynasm!(self.ops ; .arch x64 ; vpslld ymm0, Ry(x), n),
            VBin::Srl => dynasm!(self.ops ; .arch x64 ; vpsrld ymm0, Ry(x), n),
            VBin::Sra => dynasm!(self.ops ; .arch x64 ; vpsrad ymm0, Ry(x), n),
            _ => unreachable!("shift_by_imm is only given shifts"),
        }
    }

    /// `ymm0` = all ones in the lanes where `cond(ymm[x], ymm[y])` holds, for the conditions
    /// that are computed directly (the others are their complements).
    fn vcond(&mut self, c: VCmp, x: u8, y: u8) {
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
    fn field_ones(&mut self, width: u8) {
        dynasm!(self.ops
            ; .arch x64
            ; vmovdqu ymm4, [r11 + K_C63]
            ; vpand ymm4, Ry(width), ymm4
            ; vpsllvd ymm4, ymm10, ymm4
            ; vpxor ymm4, ymm4, ymm10
        );
    }

    /// A three-source lane operation: per quarter, `v[rs1..rs3]` into `ymm1..ymm3`, `op`
    /// leaves the result in `ymm0`, which goes to `v[rd]`.
    fn ternary(&mut self, inst: &Inst, masked: bool, op: impl Fn(&mut Self)) {
        for q in 0..4 {
            self.load(1, inst.rs1, q);
            self.load(2, inst.rs2, q);
            self.load(3, inst.rs3, q);
            op(self);
            self.store(inst.rd, q, masked);
        }
    }

    fn load(&mut self, ymm: u8, r: u8, q: usize) {
        let at = row(r, q);
        dynasm!(self.ops ; .arch x64 ; vmovdqu Ry(ymm), [rsi + at]);
    }

    fn inst(&mut self, pc: u32, inst: &Inst, kind: Kind, masked: bool) {
        let (d, a, b, c) = (inst.rd, inst.rs1, inst.rs2, inst.rs3);
        match kind {
            Kind::Nop => {}
            Kind::VBin(op, VSrc::Imm) if op.is_shift() => {
                for q in 0..4 {
                    self.load(0, a, q);
                    self.shift_by_imm(op, 0, inst.imm);
                    self.store(d, q, masked);
                }
            }
            Kind::VBin(op, src) | Kind::VBinRev(op, src) => {
                let rev = matches!(kind, Kind::VBinRev(..));
                self.splat_src(src, inst);
                for q in 0..4 {
                    self.load(0, a, q);
                    let y = if src == VSrc::Row {
                        self.load(1, b, q);
                        1
                    } else {
                        7
                    };
                    if rev {
                        self.vbin(op, y, 0);
                    } else {
                        self.vbin(op, 0, y);
                    }
                    self.store(d, q, masked);
                }
            }
            Kind::VUn(op) => {
                for q in 0..4 {
                    self.load(0, a, q);
                    match op {
                        VUn::Mov => {}
                        VUn::Not => dynasm!(self.ops ; .arch x64 ; vpxor ymm0, ymm0, ymm10),
                        VUn::Neg => dynasm!(self.ops
                            ; .arch x64
                            ; vpxor ymm4, ymm4, ymm4
                            ; vpsubd ymm0, ymm4, ymm0
                        ),
                        VUn::Abs => dynasm!(self.ops ; .arch x64 ; vpabsd ymm0, ymm0),
                        VUn::SextB => dynasm!(self.ops
                            ; .arch x64
                            ; vpslld ymm0, ymm0, 24
                            ; vpsrad ymm0, ymm0, 24
                        ),
                        VUn::SextH => dynasm!(self.ops
                            ; .arch x64
                            ; vpslld ymm0, ymm0, 16
                            ; vpsrad ymm0, ymm0, 16
                        ),
                        VUn::ZextB => dynasm!(self.ops
                            ; .arch x64
                            ; vpslld ymm0, ymm0, 24
                            ; vpsrld ymm0, ymm0, 24
                        ),
                        VUn::ZextH => dynasm!(self.ops
                            ; .arch x64
                            ; vpslld ymm0, ymm0, 16
                            ; vpsrld ymm0, ymm0, 16
                        ),
                    }
                    self.store(d, q, masked);
                }
            }
            Kind::VSplat { imm } => {
                if imm {
                    self.splat_imm(inst.imm);
                } else {
                    let at = ureg(a);
                    dynasm!(self.ops ; .arch x64 ; vpbroadcastd ymm7, [rdx + at]);
                }
                for q in 0..4 {
                    dynasm!(self.ops ; .arch x64 ; vmovdqa ymm0, ymm7);
                    self.store(d, q, masked);
                }
            }
            Kind::Laneid => {
                for q in 0..4 {
                    let at = K_LANES + (q as i32) * 32;
                    dynasm!(self.ops ; .arch x64 ; vmovdqu ymm0, [r11 + at]);
                    self.store(d, q, masked);
                }
            }
            Kind::Mac | Kind::MacVu | Kind::Mad => {
                if kind == Kind::MacVu {
                    self.splat_src(VSrc::Ureg, inst);
                }
                for q in 0..4 {
                    self.load(0, a, q);
                    match kind {
                        Kind::Mac => {
                            self.load(1, b, q);
                            self.load(2, d, q);
                            dynasm!(self.ops ; .arch x64 ; vpmulld ymm0, ymm0, ymm1);
                        }
                        Kind::MacVu => {
                            self.load(2, d, q);
                            dynasm!(self.ops ; .arch x64 ; vpmulld ymm0, ymm0, ymm7);
                        }
                        _ => {
                            self.load(1, b, q);
                            self.load(2, c, q);
                            dynasm!(self.ops ; .arch x64 ; vpmulld ymm0, ymm0, ymm1);
                        }
                    }
                    dynasm!(self.ops ; .arch x64 ; vpaddd ymm0, ymm0, ymm2);
                    self.store(d, q, masked);
                }
            }
            // Where v[rs3] == 0 take v[rs2], else v[rs1].
            Kind::Sel => self.ternary(inst, masked, |e| {
                dynasm!(e.ops
                    ; .arch x64
                    ; vpxor ymm4, ymm4, ymm4
                    ; vpcmpeqd ymm4, ymm4, ymm3
                    ; vpblendvb ymm0, ymm1, ymm2, ymm4
                )
            }),
            Kind::Bfi => self.ternary(inst, masked, |e| {
                dynasm!(e.ops
                    ; .arch x64
                    ; vpand ymm4, ymm1, ymm2
                    ; vpandn ymm5, ymm1, ymm3
                    ; vpor ymm0, ymm4, ymm5
                )
            }),
            Kind::Cndmask => {
                self.splat_src(VSrc::Ureg, inst);
                for q in 0..4 {
                    let at = K_BITS + (q as i32) * 32;
                    self.load(1, a, q);
                    self.load(2, d, q);
                    // Lane l picks v[rs1] where bit l of the mask is set.
                    dynasm!(self.ops
                        ; .arch x64
                        ; vmovdqu ymm5, [r11 + at]
                        ; vpand ymm4, ymm7, ymm5
                        ; vpcmpeqd ymm4, ymm4, ymm5
                        ; vpblendvb ymm0, ymm2, ymm1, ymm4
                    );
                    self.store(d, q, masked);
                }
            }
            Kind::BfeU => self.ternary(inst, masked, |e| {
                e.field_ones(3);
                dynasm!(e.ops
                    ; .arch x64
                    ; vpand ymm5, ymm2, ymm8
                    ; vpsrlvd ymm0, ymm1, ymm5
                    ; vpand ymm0, ymm0, ymm4
                )
            }),
            Kind::Pair64 { add } => {
                for q in 0..4 {
                    self.load(0, a, q);
                    self.load(1, b, q);
                    self.load(2, a + 1, q);
                    self.load(3, b + 1, q);
                    if add {
                        // carry = a_lo >u lo
                        dynasm!(self.ops
                            ; .arch x64
                            ; vpaddd ymm4, ymm0, ymm1
                            ; vpxor ymm5, ymm0, ymm9
                            ; vpxor ymm6, ymm4, ymm9
                            ; vpcmpgtd ymm5, ymm5, ymm6
                            ; vpaddd ymm2, ymm2, ymm3
                            ; vpsubd ymm2, ymm2, ymm5
                        );
                    } else {
                        // borrow = b_lo >u a_lo
                        dynasm!(self.ops
                            ; .arch x64
                            ; vpsubd ymm4, ymm0, ymm1
                            ; vpxor ymm5, ymm1, ymm9
                            ; vpxor ymm6, ymm0, ymm9
                            ; vpcmpgtd ymm5, ymm5, ymm6
                            ; vpsubd ymm2, ymm2, ymm3
                            ; vpaddd ymm2, ymm2, ymm5
                        );
                    }
                    dynasm!(self.ops ; .arch x64 ; vmovdqa ymm0, ymm4);
                    self.store(d, q, masked);
                    dynasm!(self.ops ; .arch x64 ; vmovdqa ymm0, ymm2);
                    self.store(d + 1, q, masked);
                }
            }
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
                    }
                    super::kind::SrcU::Imm => {
                        let imm = inst.imm as i32;
                        dynasm!(self.ops ; .arch x64 ; mov ecx, imm);
                    }
                }
                self.sbin(op);
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
        }
    }

    /// An EXEC writer at `pc`, the last instruction of its block: the new EXEC to `ctx`,
    /// the lane masks and lane count, then on to the next block in the variant it needs.
    fn exec_write(&mut self, pc: u32, inst: &Inst, w: ExecWrite) {
        let next = pc.wrapping_add(u32::from(inst.len));
        let (ua, ud) = (ureg(inst.rs1), ureg(inst.rd));
        // The source is read before the old EXEC is saved: rd may equal rs1.
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, [rdi + CTX_EXEC]
            ; mov ecx, [rdx + ua]
        );
        if w != ExecWrite::Set {
            dynasm!(self.ops ; .arch x64 ; mov [rdx + ud], eax);
        }
        match w {
            ExecWrite::Set | ExecWrite::Mov => {}
            ExecWrite::And => dynasm!(self.ops ; .arch x64 ; and ecx, eax),
            ExecWrite::Or => dynasm!(self.ops ; .arch x64 ; or ecx, eax),
            ExecWrite::Xor => dynasm!(self.ops ; .arch x64 ; xor ecx, eax),
            ExecWrite::Andn1 => dynasm!(self.ops ; .arch x64 ; not eax ; and ecx, eax),
            ExecWrite::Andn2 => dynasm!(self.ops ; .arch x64 ; not ecx ; and ecx, eax),
        }
        dynasm!(self.ops
            ; .arch x64
            ; mov [rdi + CTX_EXEC], ecx
            ; popcnt ebx, ecx
            ; vmovd xmm7, ecx
            ; vpbroadcastd ymm7, xmm7
        );
        for q in 0..4u8 {
            let at = K_BITS + i32::from(q) * 32;
            dynasm!(self.ops
                ; .arch x64
                ; vmovdqu ymm5, [r11 + at]
                ; vpand ymm4, ymm7, ymm5
                ; vpcmpeqd Ry(12 + q), ymm4, ymm5
            );
        }
        dynasm!(self.ops
            ; .arch x64
            ; cmp ecx, -1
            ; jne >masked
            ; mov r9, [rdi + CTX_TABLE_FULL]
        );
        self.goto(next, false);
        dynasm!(self.ops
            ; .arch x64
            ; masked:
            ; mov r9, [rdi + CTX_TABLE_MASKED]
        );
        self.goto(next, true);
    }

    /// `eax = eax op ecx`.
    fn sbin(&mut self, op: SBin) {
        match op {
            SBin::Add => dynasm!(self.ops ; .arch x64 ; add eax, ecx),
            SBin::Sub => dynasm!(self.ops ; .arch x64 ; sub eax, ecx),
            SBin::And => dynasm!(self.ops ; .arch x64 ; and eax, ecx),
            SBin::Or => dynasm!(self.ops ; .arch x64 ; or eax, ecx),
            SBin::Xor => dynasm!(self.ops ; .arch x64 ; xor eax, ecx),
            SBin::Andn => dynasm!(self.ops ; .arch x64 ; not ecx ; and eax, ecx),
            SBin::Orn => dynasm!(self.ops ; .arch x64 ; not ecx ; or eax, ecx),
            SBin::Xnor => dynasm!(self.ops ; .arch x64 ; xor eax, ecx ; not eax),
            SBin::Mul => dynasm!(self.ops ; .arch x64 ; imul eax, ecx),
            SBin::Mulh => dynasm!(self.ops
                ; .arch x64
                ; movsxd rax, eax
                ; movsxd rcx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            // 32-bit moves zero the upper halves, so both operands are already unsigned.
            SBin::Mulhu => dynasm!(self.ops
                ; .arch x64
                ; mov eax, eax
                ; mov ecx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            SBin::Mulhsu => dynasm!(self.ops
                ; .arch x64
                ; movsxd rax, eax
                ; mov ecx, ecx
                ; imul rax, rcx
                ; shr rax, 32
            ),
            // x86 masks 32-bit shift and rotate counts to 5 bits, as the ISA does.
            SBin::Sll => dynasm!(self.ops ; .arch x64 ; shl eax, cl),
            SBin::Srl => dynasm!(self.ops ; .arch x64 ; shr eax, cl),
            SBin::Sra => dynasm!(self.ops ; .arch x64 ; sar eax, cl),
            SBin::Rol => dynasm!(self.ops ; .arch x64 ; rol eax, cl),
            SBin::Ror => dynasm!(self.ops ; .arch x64 ; ror eax, cl),
            SBin::Slt => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setl al ; movzx eax, al),
            SBin::Sltu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setb al ; movzx eax, al),
            SBin::Seq => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; sete al ; movzx eax, al),
            SBin::Sne => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setne al ; movzx eax, al),
            SBin::Sge => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setge al ; movzx eax, al),
            SBin::Sgeu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; setae al ; movzx eax, al),
            SBin::Min => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovg eax, ecx),
            SBin::Max => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovl eax, ecx),
            SBin::Minu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmova eax, ecx),
            SBin::Maxu => dynasm!(self.ops ; .arch x64 ; cmp eax, ecx ; cmovb eax, ecx),
            SBin::CzeroEqz => dynasm!(self.ops ; .arch x64 ; test ecx, ecx ; cmovz eax, ecx),
            SBin::CzeroNez => dynasm!(self.ops
                ; .arch x64
                ; test ecx, ecx
                ; mov ecx, 0
                ; cmovnz eax, ecx
            ),
        }
    }

    /// A control transfer at `pc`, the last instruction of its block.
    fn branch(&mut self, pc: u32, inst: &Inst, br: Branch, masked: bool) {
        let next = pc.wrapping_add(u32::from(inst.len));
        let target = inst.imm;
        let (ua, ud) = (ureg(inst.rs1), ureg(inst.rd));
        match br {
            Branch::Jmp => self.goto(target, masked),
            Branch::Jal => {
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], next as i32);
                self.goto(target, masked);
            }
            Branch::Bexecz | Branch::Bexecnz if !masked => {
                // Full EXEC is never zero.
                self.goto(if br == Branch::Bexecnz { target } else { next }, masked);
            }
            Branch::Bz
            | Branch::Bnz
            | Branch::Bexecz
            | Branch::Bexecnz
            | Branch::Bnone
            | Branch::Bany => {
                match br {
                    Branch::Bz | Branch::Bnz => {
                        dynasm!(self.ops ; .arch x64 ; cmp DWORD [rdx + ua], 0)
                    }
                    Branch::Bexecz | Branch::Bexecnz => {
                        dynasm!(self.ops ; .arch x64 ; cmp DWORD [rdi + CTX_EXEC], 0)
                    }
                    _ => dynasm!(self.ops
                        ; .arch x64
                        ; mov eax, [rdx + ua]
                        ; test eax, [rdi + CTX_EXEC]
                    ),
                }
                let taken_if_zero = matches!(br, Branch::Bz | Branch::Bexecz | Branch::Bnone);
                if taken_if_zero {
                    dynasm!(self.ops ; .arch x64 ; jnz >fall);
                } else {
                    dynasm!(self.ops ; .arch x64 ; jz >fall);
                }
                self.goto(target, masked);
                dynasm!(self.ops ; .arch x64 ; fall:);
                self.goto(next, masked);
            }
            Branch::Jr | Branch::Jalr => {
                let imm = inst.imm as i32;
                let slots = self.slots as i32;
                let exit = self.exit;
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, [rdx + ua]
                    ; add eax, imm
                    ; and eax, -4
                );
                if br == Branch::Jalr {
                    dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + ud], next as i32);
                }
                // Through the slot table: the block there, or the exit with the PC in eax.
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, eax
                    ; shr ecx, 2
                    ; cmp ecx, slots
                    ; jae =>exit
                    ; jmp QWORD [r9 + rcx * 8]
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    /// The offsets the generated code uses are the structures' own.
    #[test]
    fn offsets_match_the_structures() {
        assert_eq!(offset_of!(Ctx, mask) as i32, CTX_MASK);
        assert_eq!(offset_of!(Ctx, consts) as i32, CTX_CONSTS);
        assert_eq!(offset_of!(Ctx, v) as i32, CTX_V);
        assert_eq!(offset_of!(Ctx, u) as i32, CTX_U);
        assert_eq!(offset_of!(Ctx, table) as i32, CTX_TABLE);
        assert_eq!(offset_of!(Ctx, budget) as i32, CTX_BUDGET);
        assert_eq!(offset_of!(Ctx, lane_ops) as i32, CTX_LANE_OPS);
        assert_eq!(offset_of!(Ctx, exec) as i32, CTX_EXEC);
        assert_eq!(offset_of!(Ctx, tables) as i32, CTX_TABLE_FULL);
        assert_eq!(offset_of!(Ctx, tables) as i32 + 8, CTX_TABLE_MASKED);
        assert_eq!(offset_of!(Consts, lanes) as i32, K_LANES);
        assert_eq!(offset_of!(Consts, bits) as i32, K_BITS);
        assert_eq!(offset_of!(Consts, c31) as i32, K_C31);
        assert_eq!(offset_of!(Consts, sign) as i32, K_SIGN);
        assert_eq!(offset_of!(Consts, one) as i32, K_ONE);
        assert_eq!(offset_of!(Consts, c63) as i32, K_C63);
    }
}
