//! The pre-decoded program: every 4-byte-aligned offset of the code decoded once, with its
//! operands resolved to register indices, sign-extended scaled immediates and branch
//! targets, so the interpreter never looks at encoding tables.

use crate::state::queue::NUM_COUNTERS;
use crate::tier::{Engine, VectorIsa};
use std::any::Any;
use std::sync::{Arc, OnceLock};
use warpkit_isa::{decode, Flags, Instr, Op, OperandClass};

/// Where the pre-decoded `imm` of a floating-point instruction keeps its modifier fields
/// (filled by [`resolve`], read by `crate::exec::fp`).
pub(crate) mod packed {
    pub const NEG: u32 = 0;
    pub const ABS: u32 = 3;
    pub const SAT: u32 = 6;
    pub const RM: u32 = 7;
}

/// What the interpreter dispatches on: a database variant, or a word that must raise
/// IllegalInsn if it is ever executed (undecodable, or carrying a reserved operand value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// A word that raises IllegalInsn if executed: it does not decode, or it carries a
    /// reserved operand value.
    Illegal,
    /// A decoded instruction, by its database variant.
    Op(Op),
}

/// One pre-decoded instruction. Register fields are indices already checked against the
/// register files (an instruction whose register group would run past a file is `Illegal`),
/// so the interpreter indexes without further tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// What the instruction is: its variant, or `Illegal`.
    pub code: Code,
    /// Encoded length in bytes: 4 or 8.
    pub len: u8,
    /// The `rd` field: a register number in the file the variant names; 0 if it has none.
    pub rd: u8,
    /// The `rs1` field: a register number in the file the variant names; 0 if it has none.
    pub rs1: u8,
    /// The `rs2` field: a register number in the file the variant names; 0 if it has none.
    pub rs2: u8,
    /// The `rs3` field: a register number in the file the variant names; 0 if it has none.
    pub rs3: u8,
    /// A vector instruction (not `ei`): its active lanes count as lane-operations.
    pub vector: bool,
    /// The immediate, sign-extended and scaled; for a PC-relative branch or `jal`, the
    /// absolute target; for CSR instructions, the CSR number; for `waitcnt` in a
    /// [`Program`], the index of its thresholds; for `Illegal`, the low 32 bits of the word
    /// (IllegalInsn's trapinfo).
    pub imm: u32,
}

/// A program ready to run: its text and the pre-decoded form of every 4-byte slot.
#[derive(Debug, Clone)]
pub struct Program {
    text: Vec<u8>,
    slots: Vec<Inst>,
    /// Registers each slot reads and writes, for hazard checks (slow path only).
    uses: Vec<RegUse>,
    /// Vector registers some instruction may write (all of them with `movrel.d`).
    vwritten: u128,
    /// The thresholds of each `waitcnt`, which holds its index here in `imm`.
    waits: Vec<[u32; NUM_COUNTERS]>,
    /// The program's `.data`, mapped read-write after the code by a launch.
    data: Vec<u8>,
    /// The engine chosen for this program; `None` follows [`Engine::host_default`].
    engine: Option<Engine>,
    /// The vector instructions translated runs use; `None` follows
    /// [`VectorIsa::host_best`].
    vector_isa: Option<VectorIsa>,
    /// Code an engine made from this program, made on first use and kept with it so that
    /// every launch reuses it (`None` inside: the host or the program cannot be
    /// translated). Its type is the engine's own (`engine::jit::Translation`); the program,
    /// below the engines, holds it as `Any`.
    translation: OnceLock<Option<Arc<dyn Any + Send + Sync>>>,
}

/// `waitcnt`'s fields as thresholds: each is the count allowed to stay outstanding; all
/// ones does not wait; `sm` 1 and 2 are reserved and act as 0 (errata v0.1.1).
fn wait_thresholds(ins: &Instr) -> [u32; NUM_COUNTERS] {
    let mut thresholds = [u32::MAX; NUM_COUNTERS];
    for (k, o) in ins.def().operands.iter().enumerate() {
        let Some((c, def)) = warpkit_isa::counter_by_name(o.name) else {
            continue;
        };
        let field = ins.raw(k);
        let t = if field >= def.no_wait() {
            u32::MAX
        } else if def.name == "sm" {
            0
        } else {
            field
        };
        if let Some(slot) = thresholds.get_mut(c) {
            *slot = t;
        }
    }
    thresholds
}

/// The registers an instruction names, as bit sets (`movrel` counts its named fields).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegUse {
    /// Vector registers read: bit r for `v<r>`.
    pub vread: u128,
    /// Vector registers written: bit r for `v<r>`.
    pub vwrite: u128,
    /// Uniform registers read: bit r for `u<r>`.
    pub uread: u64,
    /// Uniform registers written: bit r for `u<r>`.
    pub uwrite: u64,
}

fn reg_use(ins: &Instr) -> RegUse {
    use crate::state::regs::{range_mask128, range_mask64};
    use warpkit_isa::Role;
    let mut u = RegUse::default();
    for (k, o) in ins.def().operands.iter().enumerate() {
        let raw = ins.raw(k);
        let ty = o.kind.ty;
        let (v, s) = match ty.class {
            OperandClass::VReg if ty.half => (range_mask128((raw >> 1) as u8, 1), 0),
            OperandClass::VReg => (range_mask128(raw as u8, o.kind.regs.max(1)), 0),
            OperandClass::UReg => (0, range_mask64(raw as u8, o.kind.regs.max(1))),
            _ => continue,
        };
        if matches!(o.role, Role::Read | Role::ReadWrite) {
            u.vread |= v;
            u.uread |= s;
        }
        if matches!(o.role, Role::Write | Role::ReadWrite) {
            u.vwrite |= v;
            u.uwrite |= s;
        }
    }
    u
}

impl Program {
    /// Pre-decode `text` (code offset 0 = its first byte). Never fails: words that do not
    /// decode become `Illegal` slots that trap only if executed.
    pub fn new(text: Vec<u8>) -> Program {
        // A 32-bit PC reaches 2^30 slots at most; `fetch` relies on there being no more.
        let words = text.len().div_ceil(4).min(1 << 30);
        let mut slots = Vec::with_capacity(words);
        let mut uses = Vec::with_capacity(words);
        for k in 0..words {
            slots.push(predecode(&text, k * 4));
            uses.push(
                decode(&text[k * 4..])
                    .map(|(i, _)| reg_use(&i))
                    .unwrap_or_default(),
            );
        }
        let mut waits = Vec::new();
        for (k, slot) in slots.iter_mut().enumerate() {
            if slot.code == Code::Op(Op::Waitcnt) {
                if let Ok((ins, _)) = decode(&text[k * 4..]) {
                    slot.imm = waits.len() as u32;
                    waits.push(wait_thresholds(&ins));
                }
            }
        }
        let mut vwritten = uses.iter().fold(0, |m, u| m | u.vwrite);
        if slots.iter().any(|i| i.code == Code::Op(Op::MovrelD)) {
            vwritten = u128::MAX;
        }
        Program {
            text,
            slots,
            uses,
            vwritten,
            waits,
            data: Vec::new(),
            engine: None,
            vector_isa: None,
            translation: OnceLock::new(),
        }
    }

    /// As [`Program::new`], with a `.data` section that a launch maps, read-write, at
    /// `CODE_BASE` + [`warpkit_isa::data_offset`] of the code's size (docs/abi.md).
    pub fn with_data(text: Vec<u8>, data: Vec<u8>) -> Program {
        Program {
            data,
            ..Program::new(text)
        }
    }

    /// The engine this program's warps run on.
    pub fn engine(&self) -> Engine {
        self.engine.unwrap_or_else(Engine::host_default)
    }

    /// Run this program's warps on `engine` (results are the same on every engine).
    pub fn set_engine(&mut self, engine: Engine) {
        self.engine = Some(engine);
    }

    /// The vector instructions the translation tier uses for this program: the one set with
    /// [`Program::set_vector_isa`] where the host runs it, else the widest the host runs.
    pub fn vector_isa(&self) -> VectorIsa {
        match self.vector_isa {
            Some(isa) if isa.supported() => isa,
            _ => VectorIsa::host_best(),
        }
    }

    /// Translate this program's runs of lane-local instructions with `isa` (results are
    /// the same with every one; a host without it uses the widest it has). Translated code
    /// made before is dropped.
    pub fn set_vector_isa(&mut self, isa: VectorIsa) {
        self.vector_isa = Some(isa);
        self.translation = OnceLock::new();
    }

    /// The code `make` translates this program into, made by the first call and kept;
    /// `None` if it could not be made (or was made with another type).
    pub(crate) fn engine_code<T: Any + Send + Sync>(
        &self,
        make: impl FnOnce(&Program) -> Option<T>,
    ) -> Option<&T> {
        self.translation
            .get_or_init(|| make(self).map(|t| Arc::new(t) as Arc<dyn Any + Send + Sync>))
            .as_deref()
            .and_then(|code| code.downcast_ref::<T>())
    }

    /// The `.data` section (empty for a program without one).
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// Where `.data` starts, as an offset from `CODE_BASE`.
    pub fn data_offset(&self) -> u64 {
        warpkit_isa::data_offset(self.text.len() as u64)
    }

    /// The thresholds of the `waitcnt` whose pre-decoded `imm` is `index`.
    #[inline]
    pub(crate) fn waits(&self, index: u32) -> Option<&[u32; NUM_COUNTERS]> {
        self.waits.get(index as usize)
    }

    /// The thresholds of the `waitcnt` at `pc` (each the count its counter may keep
    /// outstanding, `u32::MAX` for no wait), as the execution applies them; `None` if the
    /// instruction at `pc` is not a `waitcnt`.
    pub fn waitcnt_thresholds(&self, pc: u32) -> Option<&[u32; NUM_COUNTERS]> {
        let inst = self.fetch(pc)?;
        match inst.code {
            Code::Op(Op::Waitcnt) => self.waits(inst.imm),
            _ => None,
        }
    }

    /// The vector registers an instruction of this program may write (every register if it
    /// has `movrel.d`, whose target is computed).
    pub fn vregs_written(&self) -> u128 {
        self.vwritten
    }

    /// The registers the instruction at `pc` reads and writes.
    pub fn uses(&self, pc: u32) -> Option<&RegUse> {
        if pc & 3 != 0 {
            return None;
        }
        self.uses.get((pc >> 2) as usize)
    }

    /// The code bytes the program was built from; PC 0 is the first.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// The pre-decoded instruction at byte offset `pc`, if `pc` is 4-byte aligned and inside
    /// the code.
    #[inline(always)]
    pub fn fetch(&self, pc: u32) -> Option<&Inst> {
        // One bounds check for both tests: a misaligned PC rotates its low bits to the top,
        // an index of 2^30 or more, and `slots` never has that many (see `new`).
        self.slots.get(pc.rotate_right(2) as usize)
    }

    /// The decoded instruction at `pc` (for disassembly and slow paths), or `None` where the
    /// bytes do not decode.
    pub fn instr(&self, pc: u32) -> Option<Instr> {
        let bytes = self.text.get(pc as usize..)?;
        decode(bytes).ok().map(|(i, _)| i)
    }

    /// The raw encoding at `pc`: its bytes as one little-endian value and their count.
    pub fn encoding(&self, pc: u32) -> (u64, usize) {
        let Some(bytes) = self.text.get(pc as usize..) else {
            return (0, 0);
        };
        let len = match self.fetch(pc) {
            Some(i) if i.code != Code::Illegal => usize::from(i.len),
            _ => 4,
        }
        .min(bytes.len());
        let mut b = [0u8; 8];
        b[..len].copy_from_slice(&bytes[..len]);
        (u64::from_le_bytes(b), len)
    }

    /// Canonical assembly of the instruction at `pc`, or `.word 0x...` for bytes that do not
    /// decode.
    pub fn disassemble(&self, pc: u32) -> String {
        match self.instr(pc) {
            Some(i) => i.to_string(),
            None => {
                let (w, len) = self.encoding(pc);
                if len == 0 {
                    "<outside the code>".to_string()
                } else {
                    format!(".word {:#010x}", w as u32)
                }
            }
        }
    }
}

fn low_word(text: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    let avail = text.len().saturating_sub(at).min(4);
    b[..avail].copy_from_slice(&text[at..at + avail]);
    u32::from_le_bytes(b)
}

fn illegal(word: u32) -> Inst {
    Inst {
        code: Code::Illegal,
        len: 4,
        rd: 0,
        rs1: 0,
        rs2: 0,
        rs3: 0,
        vector: false,
        imm: word,
    }
}

fn predecode(text: &[u8], pc: usize) -> Inst {
    let w0 = low_word(text, pc);
    let Ok((ins, len)) = decode(&text[pc..]) else {
        return illegal(w0);
    };
    if ins.reserved_operand().is_some() {
        return illegal(w0);
    }
    resolve(&ins, len as u8, pc as u32)
}

/// Resolve the operands of a decoded instruction at `pc`.
pub fn resolve(ins: &Instr, len: u8, pc: u32) -> Inst {
    let def = ins.def();
    let mut out = Inst {
        code: Code::Op(ins.op()),
        len,
        rd: 0,
        rs1: 0,
        rs2: 0,
        rs3: 0,
        vector: !def.flags.contains(Flags::EI),
        imm: 0,
    };
    let is_branch = def.flags.contains(Flags::BR);
    for (k, o) in def.operands.iter().enumerate() {
        let raw = ins.raw(k);
        let ty = o.kind.ty;
        let value = match ty.class {
            OperandClass::SImm => {
                let bits = u32::from(ty.bits);
                let v = ((raw << (32 - bits)) as i32) >> (32 - bits);
                v.wrapping_mul(i32::from(ty.scale)) as u32
            }
            OperandClass::UImm => raw.wrapping_mul(u32::from(ty.scale)),
            _ => raw,
        };
        match o.name {
            "rd" => out.rd = value as u8,
            "rs1" => out.rs1 = value as u8,
            "rs2" => out.rs2 = value as u8,
            "rs3" => out.rs3 = value as u8,
            "imm" if is_branch => out.imm = pc.wrapping_add(value),
            "imm" | "csr" => out.imm = value,
            // Floating-point modifier fields, packed for crate::fp.
            "neg" => out.imm |= (value & 7) << packed::NEG,
            "abs" => out.imm |= (value & 7) << packed::ABS,
            "sat" => out.imm |= (value & 1) << packed::SAT,
            "rm" => out.imm |= (value & 7) << packed::RM,
            _ => {}
        }
    }
    out
}
