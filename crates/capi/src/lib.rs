//! The warpkit C co-simulation API (`include/warpkit.h`, docs/cosim.md): a testbench steps
//! the golden model one retired instruction at a time ([`wk_sim_step`]), or hands it each
//! instruction its design under test retired and gets back precisely what differs
//! ([`wk_sim_cosim_check`]), in the manner of Dromajo's `dromajo_cosim_step`; or it times a
//! whole launch on a machine model and gets the timing report as JSON ([`wk_launch_timed`]).
//!
//! A client of `warpkit_host::Stepper` (the launch session of the model under its hooks,
//! shared with the Python `Simulator`): a commit here is the record `warpkit run --trace`
//! writes. Every entry point catches panics; every failure is a status code and a message
//! ([`wk_last_error`]).

#![allow(non_camel_case_types)]

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use warpkit_host::{ArgValue, Launch, Limits, StateError, Stepper};
use warpkit_sim::cosim::{self, Field, Mismatch, Reg};
use warpkit_sim::hooks::{LaneAccess, MemAccess, MemKind, MemSpace};
use warpkit_sim::{Commit, Trap, Written};

/// The layout of the structures in this header. The caller allocates them and the library
/// fills or reads them whole, so a program built with one header must not run with a
/// library built from another: it compares [`wk_abi_version`] with this first. 1: the
/// first layout; 2: `wk_commit` ends with `mem`; 3: `wk_launch_desc` has `scratch_bytes`.
pub const WK_ABI_VERSION: u32 = 3;

/// A status code: 0 or positive for an outcome, negative for an error (the message is then
/// in [`wk_last_error`]).
pub type wk_status = i32;

/// Done.
pub const WK_OK: wk_status = 0;
/// The launch has finished: there is no next instruction.
pub const WK_FINISHED: wk_status = 1;
/// [`wk_sim_cosim_check`]: the design's commit differs from the model's (see the
/// `wk_mismatch`).
pub const WK_MISMATCH: wk_status = 2;
/// [`wk_launch_timed`]: the kernel trapped, deadlocked or reached its step limit; the
/// report covers what ran, and [`wk_last_error`] says what stopped it.
pub const WK_RUN_FAILED: wk_status = 3;
/// A null pointer or a bad value in an argument.
pub const WK_ERR_ARGUMENT: wk_status = -1;
/// The code or the launch description was refused (nothing ran).
pub const WK_ERR_LAUNCH: wk_status = -2;
/// A register or memory access was refused (no such warp, register or address).
pub const WK_ERR_STATE: wk_status = -3;
/// An internal error of the model (a bug): the simulator must not be used again.
pub const WK_ERR_INTERNAL: wk_status = -4;

/// Register writes a [`wk_commit`] holds; a commit with more (a `waitcnt` retiring many
/// loads) gives the rest through [`wk_sim_commit_write`].
pub const WK_MAX_WRITES: usize = 64;

/// Memory accesses a [`wk_commit`] holds. An instruction makes at most one today; the
/// room for a second keeps the layout when one makes two.
pub const WK_MAX_MEM: usize = 2;
/// Data words of one lane's access: the largest is a 32-byte uniform load (a vector
/// access is at most 16 bytes per lane).
pub const WK_MAX_MEM_WORDS: usize = 8;

/// `wk_mem_access.kind`: a load.
pub const WK_MEM_LOAD: u32 = 0;
/// A store.
pub const WK_MEM_STORE: u32 = 1;
/// A read-modify-write: `data` is the word written, `old` the word read.
pub const WK_MEM_ATOMIC: u32 = 2;

/// `wk_mem_access.space`: global memory (64-bit addresses).
pub const WK_SPACE_GLOBAL: u32 = 0;
/// The workgroup's shared memory (addresses are byte offsets into it).
pub const WK_SPACE_SHARED: u32 = 1;

/// `wk_reg_write.kind`: a vector register (`values[lane]` for each lane in `lane_mask`).
pub const WK_WRITE_VREG: u32 = 0;
/// A uniform register (`values[0]`).
pub const WK_WRITE_UREG: u32 = 1;
/// EXEC (`values[0]`; `reg` is 0).
pub const WK_WRITE_EXEC: u32 = 2;
/// A CSR other than EXEC (`reg` is its number, `values[0]` the value).
pub const WK_WRITE_CSR: u32 = 3;

/// `wk_reg_write.issue_pc` of an instruction's own (synchronous) writes.
pub const WK_SYNC: u32 = u32::MAX;

/// `wk_commit.flags`: the instruction trapped (`trap_cause`, `trap_info` say how).
pub const WK_COMMIT_TRAP: u32 = 1;
/// The trap was taken by a handler (the warp goes on at `trapbase`).
pub const WK_COMMIT_TRAP_HANDLED: u32 = 2;
/// The `endpgm` that ended the warp.
pub const WK_COMMIT_END: u32 = 4;

/// `wk_arg.kind`: an integer (`value`) in an 8-byte slot.
pub const WK_ARG_INT: u32 = 0;
/// A buffer holding `len` bytes copied from `data`; the slot holds its address.
pub const WK_ARG_BUFFER: u32 = 1;
/// A zero-filled buffer of `len` bytes.
pub const WK_ARG_ZEROED: u32 = 2;

/// `wk_mismatch.field`: which part of the commit differs.
pub const WK_FIELD_PC: u32 = 1;
/// The instruction's encoding.
pub const WK_FIELD_ENCODING: u32 = 2;
/// EXEC when the instruction executed.
pub const WK_FIELD_EXEC: u32 = 3;
/// The warp (workgroup and index) that retired the instruction.
pub const WK_FIELD_WARP: u32 = 4;
/// A lane of a vector register write (`reg`, `lane`).
pub const WK_FIELD_VREG: u32 = 5;
/// The lanes written of a vector register (`expected`/`got` are lane masks).
pub const WK_FIELD_VREG_LANES: u32 = 6;
/// A uniform register write (`reg`).
pub const WK_FIELD_UREG: u32 = 7;
/// The write of EXEC.
pub const WK_FIELD_EXEC_WRITE: u32 = 8;
/// A CSR write (`reg` is its number).
pub const WK_FIELD_CSR: u32 = 9;
/// A register the model wrote and the design did not (`expected` the model's value;
/// for a vector register, of the lowest lane).
pub const WK_FIELD_MISSING_WRITE: u32 = 10;
/// A register the design wrote and the model did not (`got` the design's value).
pub const WK_FIELD_EXTRA_WRITE: u32 = 11;
/// The design retired an instruction after the model's launch finished.
pub const WK_FIELD_FINISHED: u32 = 12;
/// Whether the instruction trapped, or how.
pub const WK_FIELD_TRAP: u32 = 13;
/// How many memory accesses the instruction made (`n_mem`).
pub const WK_FIELD_MEM_COUNT: u32 = 14;
/// A memory access's kind (`expected`/`got` are `WK_MEM_*`).
pub const WK_FIELD_MEM_KIND: u32 = 15;
/// A memory access's space (`expected`/`got` are `WK_SPACE_*`).
pub const WK_FIELD_MEM_SPACE: u32 = 16;
/// A memory access's bytes per lane.
pub const WK_FIELD_MEM_SIZE: u32 = 17;
/// The lanes of a memory access (`expected`/`got` are lane masks, `lane` the first lane
/// in one and not the other).
pub const WK_FIELD_MEM_LANES: u32 = 18;
/// A lane's address (`lane`).
pub const WK_FIELD_MEM_ADDR: u32 = 19;
/// A lane's byte enables.
pub const WK_FIELD_MEM_MASK: u32 = 20;
/// A data word of a lane, its enabled bytes only (the message names the word).
pub const WK_FIELD_MEM_DATA: u32 = 21;
/// A lane's `old` word of an atomic (`expected`/`got`: `1 << 32 | old` when reported,
/// 0 when not).
pub const WK_FIELD_MEM_OLD: u32 = 22;

/// One kernel argument; slot k of the argument block is `args[k]`.
#[repr(C)]
pub struct wk_arg {
    /// NUL-terminated; names a buffer in messages and `wk_sim_buffer_address`.
    pub name: *const c_char,
    /// `WK_ARG_INT`, `WK_ARG_BUFFER` or `WK_ARG_ZEROED`.
    pub kind: u32,
    /// `WK_ARG_INT`: the slot's value.
    pub value: u64,
    /// `WK_ARG_BUFFER`: the bytes (may be null when `len` is 0).
    pub data: *const u8,
    /// `WK_ARG_BUFFER`, `WK_ARG_ZEROED`: the buffer's size in bytes.
    pub len: u64,
}

/// How to launch the kernel (docs/abi.md). A zeroed description is one workgroup of 32
/// threads with the defaults.
#[repr(C)]
pub struct wk_launch_desc {
    /// Workgroups in x, y, z; 0 counts as 1.
    pub grid: [u32; 3],
    /// Threads per workgroup in x, y, z; 0 counts as 1 (all three 0: 32 threads).
    pub block: [u32; 3],
    /// Bytes of shared memory per workgroup; 0: 65536.
    pub shared_bytes: u32,
    /// Bytes of scratch memory per lane (docs/abi.md, "Scratch memory"): a multiple of 4, at
    /// most 1048576; 0: none.
    pub scratch_bytes: u32,
    /// Per-warp step limit; 0: 100 000 000.
    pub max_steps: u64,
    /// `n_args` arguments (may be null when `n_args` is 0).
    pub args: *const wk_arg,
    /// The number of entries in `args`: the kernel's argument slots, in order.
    pub n_args: usize,
}

/// One register write of a retired instruction.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wk_reg_write {
    /// `WK_WRITE_VREG`, `WK_WRITE_UREG`, `WK_WRITE_EXEC` or `WK_WRITE_CSR`.
    pub kind: u32,
    /// The register (or CSR) number.
    pub reg: u32,
    /// `WK_WRITE_VREG`: the lanes written (EXEC-active); otherwise 0.
    pub lane_mask: u32,
    /// `WK_SYNC` for the instruction's own write; for an asynchronous write-back it
    /// retired (at `waitcnt`, `endpgm`, a counter at its limit), the PC of the instruction
    /// that issued it.
    pub issue_pc: u32,
    /// `WK_WRITE_VREG`: the value of each lane in `lane_mask` (others 0); otherwise
    /// `values[0]`.
    pub values: [u32; 32],
}

/// One lane's memory access, on a bus of 32-bit little-endian words.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct wk_lane_access {
    /// The access's address rounded down to a multiple of 4: a global address, or a byte
    /// offset into the workgroup's shared memory.
    pub addr: u64,
    /// Byte enables: bit i set when byte `addr + i` was accessed (`0xf` for a word,
    /// `0b1100` for 2 bytes at `addr + 2`).
    pub mask: u32,
    /// An atomic's word before the operation, when the lane is in `old_mask`.
    pub old: u32,
    /// The words from `addr` on, `ceil(size / 4)` of them: a store's bytes written, a
    /// load's bytes read (before extension), an atomic's word after the operation. A
    /// 1- or 2-byte access has its bytes at their byte positions. Bytes `mask` does not
    /// enable, and words past the access, are 0 from the model and not compared.
    pub data: [u32; WK_MAX_MEM_WORDS],
}

/// One memory instruction's access: its kind, space and size, and each active lane's
/// address, byte enables and data, indexed by lane as `wk_reg_write.values` is.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct wk_mem_access {
    /// `WK_MEM_LOAD`, `WK_MEM_STORE` or `WK_MEM_ATOMIC`.
    pub kind: u32,
    /// `WK_SPACE_GLOBAL` or `WK_SPACE_SHARED`.
    pub space: u32,
    /// Bytes per lane: 1, 2, 4, 8 or 16 (vector), 4 to 32 (a uniform load).
    pub size: u32,
    /// The lanes that accessed memory (the EXEC-active ones; a uniform load: lane 0).
    pub lane_mask: u32,
    /// The lanes whose `old` is reported: an atomic's `lane_mask`, else 0.
    pub old_mask: u32,
    /// `lanes[lane]` for each lane in `lane_mask` (others 0).
    pub lanes: [wk_lane_access; 32],
}

/// One retired instruction: the model's ([`wk_sim_step`]) or the design's
/// ([`wk_sim_cosim_check`]).
#[repr(C)]
pub struct wk_commit {
    /// The coordinates (x, y, z) in the grid of the workgroup of the warp that retired it.
    pub workgroup: [u32; 3],
    /// The warp's index in its workgroup.
    pub warp: u32,
    /// The warp's instruction count, from 1 (not compared).
    pub step: u64,
    /// Byte offset of the instruction from the code's start.
    pub pc: u32,
    /// 4 or 8 bytes.
    pub length: u32,
    /// The instruction's bytes as one little-endian number.
    pub encoding: u64,
    /// EXEC when the instruction executed.
    pub exec: u32,
    /// `WK_COMMIT_*` bits.
    pub flags: u32,
    /// With `WK_COMMIT_TRAP`: the trap's cause, the value the `trapcause` CSR gets
    /// (docs/isa-reference.md); else 0.
    pub trap_cause: u32,
    /// With `WK_COMMIT_TRAP`: the trap's `trapinfo` (what it holds depends on the cause);
    /// else 0.
    pub trap_info: u32,
    /// Register writes in all (the first `WK_MAX_WRITES` are in `writes`).
    pub n_writes: u32,
    /// Memory accesses in all (the first `WK_MAX_MEM` are in `mem`): 1 for a load, store
    /// or atomic, 0 for any other instruction (cache control too) and for one that trapped.
    pub n_mem: u32,
    /// The first `min(n_writes, WK_MAX_WRITES)` register writes: the instruction's own,
    /// then the write-backs it retired.
    pub writes: [wk_reg_write; WK_MAX_WRITES],
    /// The memory accesses, as the JSON trace's `mem` records them (docs/trace.md).
    pub mem: [wk_mem_access; WK_MAX_MEM],
}

/// What [`wk_sim_cosim_check`] found different.
#[repr(C)]
pub struct wk_mismatch {
    /// `WK_FIELD_*`.
    pub field: u32,
    /// The register (or CSR number) concerned; for a memory field, the index of the access
    /// in `mem`; else 0.
    pub reg: u32,
    /// The lane concerned, else 0.
    pub lane: u32,
    /// `issue_pc` of the write concerned (`WK_SYNC` for the instruction's own).
    pub issue_pc: u32,
    /// The model's value.
    pub expected: u64,
    /// The design's value.
    pub got: u64,
    /// The model's commit: PC, warp and the warp's step.
    pub pc: u32,
    /// The workgroup coordinates of the model's commit (0 when the model had finished).
    pub workgroup: [u32; 3],
    /// The index in its workgroup of the warp of the model's commit.
    pub warp: u32,
    /// The warp's instruction count at the model's commit, from 1.
    pub step: u64,
    /// The same as one line of text, NUL-terminated (truncated to fit).
    pub message: [c_char; 256],
}

/// A launch of the model being stepped (opaque).
pub struct wk_sim {
    stepper: Stepper,
    /// The last commit's register writes, all of them.
    last_writes: Vec<wk_reg_write>,
    /// Set after a panic: the state may be inconsistent.
    poisoned: bool,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// An error: its status and message.
struct Fail(wk_status, String);

impl From<StateError> for Fail {
    fn from(e: StateError) -> Fail {
        Fail(WK_ERR_STATE, e.to_string())
    }
}

fn arg_error(what: &str) -> Fail {
    Fail(WK_ERR_ARGUMENT, what.to_string())
}

/// Run `f`, turning an error or a panic into a status and the thread's last error.
fn guard(f: impl FnOnce() -> Result<wk_status, Fail>) -> wk_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(status)) => status,
        Ok(Err(Fail(status, message))) => {
            set_error(&message);
            status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_error(&format!("internal error in the model (a bug): {what}"));
            WK_ERR_INTERNAL
        }
    }
}

/// The simulator behind `sim`, unless null or poisoned.
///
/// # Safety
/// `sim` is null or a pointer from `wk_sim_new` not yet freed.
unsafe fn sim_mut<'a>(sim: *mut wk_sim) -> Result<&'a mut wk_sim, Fail> {
    // SAFETY: the caller passes null or a live simulator.
    let s = unsafe { sim.as_mut() }.ok_or_else(|| arg_error("sim is null"))?;
    if s.poisoned {
        return Err(Fail(
            WK_ERR_INTERNAL,
            "the simulator stopped at an internal error and cannot be used".into(),
        ));
    }
    Ok(s)
}

/// # Safety
/// `ptr` is null or points to `len` readable bytes.
unsafe fn bytes<'a>(ptr: *const u8, len: u64, what: &str) -> Result<&'a [u8], Fail> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(arg_error(&format!("{what} is null")));
    }
    let len = usize::try_from(len).map_err(|_| arg_error(&format!("{what}: too long")))?;
    // SAFETY: the caller guarantees `len` readable bytes at `ptr`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The launch `desc` describes (null: the defaults).
///
/// # Safety
/// `desc` is null or valid, its `args` array and every pointer in it as documented.
unsafe fn launch_of(desc: *const wk_launch_desc) -> Result<Launch, Fail> {
    let bad = |e: warpkit_host::SetupError| Fail(WK_ERR_LAUNCH, e.to_string());
    let mut l = Launch::new(Limits::default());
    // SAFETY: the caller passes null or a valid description.
    let Some(d) = (unsafe { desc.as_ref() }) else {
        return Ok(l);
    };
    let dim = |d: [u32; 3]| d.map(|x| x.max(1));
    l.grid(dim(d.grid)).map_err(bad)?;
    if d.block != [0, 0, 0] {
        l.block(dim(d.block)).map_err(bad)?;
    }
    if d.shared_bytes != 0 {
        l.shared(d.shared_bytes).map_err(bad)?;
    }
    l.scratch(d.scratch_bytes).map_err(bad)?;
    if d.max_steps != 0 {
        l.max_steps(d.max_steps).map_err(bad)?;
    }
    let args: &[wk_arg] = if d.n_args == 0 {
        &[]
    } else if d.args.is_null() {
        return Err(arg_error("launch_desc.args is null"));
    } else {
        // SAFETY: the caller guarantees `n_args` arguments at `args`.
        unsafe { std::slice::from_raw_parts(d.args, d.n_args) }
    };
    for (k, a) in args.iter().enumerate() {
        if a.name.is_null() {
            return Err(arg_error(&format!("args[{k}].name is null")));
        }
        // SAFETY: the caller guarantees a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(a.name) }
            .to_str()
            .map_err(|_| arg_error(&format!("args[{k}].name is not UTF-8")))?;
        match a.kind {
            WK_ARG_INT => l.arg(name, ArgValue::Int(a.value)).map(|_| ()),
            WK_ARG_BUFFER => {
                // SAFETY: as documented for `wk_arg`.
                let data = unsafe { bytes(a.data, a.len, &format!("args[{k}].data")) }?;
                l.arg(name, ArgValue::Buffer(data.to_vec())).map(|_| ())
            }
            WK_ARG_ZEROED => l.zeroed_buffer(name, a.len).map(|_| ()),
            other => return Err(arg_error(&format!("args[{k}].kind: {other} is not a kind"))),
        }
        .map_err(bad)?;
    }
    Ok(l)
}

/// The kernel in `code_len` bytes at `code`: an ELF file or raw code.
///
/// # Safety
/// `code` points to `code_len` readable bytes (or is null with `code_len` 0).
unsafe fn kernel_of(code: *const u8, code_len: usize) -> Result<warpkit_asm::Program, Fail> {
    // SAFETY: the caller's guarantees, passed on.
    let code = unsafe { bytes(code, code_len as u64, "code") }?;
    if code.is_empty() {
        return Err(arg_error("code is empty"));
    }
    let kind = if code.starts_with(b"\x7fELF") {
        warpkit_host::KernelKind::Elf
    } else {
        warpkit_host::KernelKind::Raw
    };
    warpkit_host::load_kernel_bytes(code, "code", kind)
        .map_err(|e| Fail(WK_ERR_LAUNCH, e.to_string()))
}

/// A simulator for `code` (`code_len` bytes: raw code as `warpkit asm -o k.bin` writes it,
/// PC 0 its first byte, or an ELF code object) launched as `launch_desc` says (null: one
/// workgroup of 32 threads). Nothing runs yet. Returns null on error (`wk_last_error`
/// says why).
///
/// # Safety
/// `code` points to `code_len` readable bytes; `launch_desc` is null or valid.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_new(
    code: *const u8,
    code_len: usize,
    launch_desc: *const wk_launch_desc,
) -> *mut wk_sim {
    let mut sim = std::ptr::null_mut();
    guard(|| {
        // SAFETY: the caller's guarantees, passed on.
        let kernel = unsafe { kernel_of(code, code_len) }?;
        // SAFETY: the caller's guarantees, passed on.
        let l = unsafe { launch_of(launch_desc) }?;
        let prepared = l
            .prepare(&kernel)
            .map_err(|e| Fail(WK_ERR_LAUNCH, e.to_string()))?;
        let stepper = Stepper::new(prepared).map_err(|e| Fail(WK_ERR_LAUNCH, e.to_string()))?;
        sim = Box::into_raw(Box::new(wk_sim {
            stepper,
            last_writes: Vec::new(),
            poisoned: false,
        }));
        Ok(WK_OK)
    });
    sim
}

/// Free a simulator (null is ignored).
///
/// # Safety
/// `sim` is null or from `wk_sim_new`, and not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_free(sim: *mut wk_sim) {
    guard(|| {
        if !sim.is_null() {
            // SAFETY: from `Box::into_raw` in `wk_sim_new`, freed once.
            drop(unsafe { Box::from_raw(sim) });
        }
        Ok(WK_OK)
    });
}

/// The `WK_ABI_VERSION` the library was built with.
#[no_mangle]
pub extern "C" fn wk_abi_version() -> u32 {
    WK_ABI_VERSION
}

/// The message of the last error on this thread (empty if none), valid until the next
/// call into this API on this thread.
#[no_mangle]
pub extern "C" fn wk_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

fn flatten(writes: &[Written], issue_pc: u32, out: &mut Vec<wk_reg_write>) {
    for w in writes {
        let mut r = wk_reg_write {
            kind: 0,
            reg: 0,
            lane_mask: 0,
            issue_pc,
            values: [0; 32],
        };
        match w {
            Written::V { reg, lanes } => {
                r.kind = WK_WRITE_VREG;
                r.reg = *reg;
                for &(l, x) in lanes {
                    r.lane_mask |= 1 << l;
                    r.values[l as usize] = x;
                }
            }
            Written::U { reg, value } => {
                r.kind = WK_WRITE_UREG;
                r.reg = *reg;
                r.values[0] = *value;
            }
            Written::Exec(e) => {
                r.kind = WK_WRITE_EXEC;
                r.values[0] = *e;
            }
            Written::Csr { number, value, .. } => {
                r.kind = WK_WRITE_CSR;
                r.reg = *number;
                r.values[0] = *value;
            }
        }
        out.push(r);
    }
}

/// Every register write of `c`: its own, then the write-backs it retired.
fn writes_of(c: &Commit) -> Vec<wk_reg_write> {
    let mut out = Vec::new();
    flatten(&c.writes, WK_SYNC, &mut out);
    for (pc, w) in &c.retired {
        flatten(w, *pc, &mut out);
    }
    out
}

fn fill(out: &mut wk_commit, c: &Commit, writes: &[wk_reg_write]) {
    out.workgroup = c.workgroup;
    out.warp = c.warp;
    out.step = c.step;
    out.pc = c.pc;
    out.length = c.len as u32;
    out.encoding = c.encoding;
    out.exec = c.exec;
    out.flags = 0;
    out.trap_cause = 0;
    out.trap_info = 0;
    if let Some((t, handled)) = c.trap {
        out.flags |= WK_COMMIT_TRAP;
        if handled {
            out.flags |= WK_COMMIT_TRAP_HANDLED;
        }
        out.trap_cause = t.cause;
        out.trap_info = t.info;
    }
    if c.ended {
        out.flags |= WK_COMMIT_END;
    }
    out.n_writes = writes.len() as u32;
    out.n_mem = c.mem.len() as u32;
    for (o, w) in out.writes.iter_mut().zip(writes) {
        *o = *w;
    }
    // Every slot, so that nothing of an earlier commit is left in the caller's structure.
    for (k, o) in out.mem.iter_mut().enumerate() {
        *o = c.mem.get(k).map(mem_record).unwrap_or_default();
    }
}

fn mem_record(m: &MemAccess) -> wk_mem_access {
    let mut r = wk_mem_access {
        kind: match m.kind {
            MemKind::Load => WK_MEM_LOAD,
            MemKind::Store => WK_MEM_STORE,
            MemKind::Atomic => WK_MEM_ATOMIC,
        },
        space: match m.space {
            MemSpace::Global => WK_SPACE_GLOBAL,
            MemSpace::Shared => WK_SPACE_SHARED,
        },
        size: m.size,
        ..Default::default()
    };
    for l in &m.lanes {
        let Some(slot) = r.lanes.get_mut(l.lane as usize) else {
            continue;
        };
        r.lane_mask |= 1 << l.lane;
        slot.addr = l.addr;
        slot.mask = l.mask;
        for (o, &d) in slot.data.iter_mut().zip(&l.data) {
            *o = d;
        }
        if let Some(old) = l.old {
            r.old_mask |= 1 << l.lane;
            slot.old = old;
        }
    }
    r
}

impl wk_sim {
    /// The model's next commit, its writes kept for `wk_sim_commit_write`.
    fn next(&mut self) -> Option<Commit> {
        let c = self.stepper.next_commit()?;
        self.last_writes = writes_of(&c);
        Some(c)
    }
}

/// Execute the model's next instruction and describe it in `*out`. Returns `WK_OK`, or
/// `WK_FINISHED` (nothing executed, `*out` untouched) once every warp has stopped.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `out` points to a writable `wk_commit`.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_step(sim: *mut wk_sim, out: *mut wk_commit) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        // SAFETY: the caller's guarantees.
        let out = unsafe { out.as_mut() }.ok_or_else(|| arg_error("out is null"))?;
        let poison = PoisonOnPanic(s);
        let Some(c) = poison.0.next() else {
            std::mem::forget(poison);
            return Ok(WK_FINISHED);
        };
        fill(out, &c, &poison.0.last_writes);
        std::mem::forget(poison);
        Ok(WK_OK)
    })
}

/// Marks the simulator poisoned if dropped during a panic.
struct PoisonOnPanic<'a>(&'a mut wk_sim);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        self.0.poisoned = true;
    }
}

/// Register write `index` of the last commit (`wk_sim_step` or `wk_sim_cosim_check`), for
/// commits with more than `WK_MAX_WRITES`.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `out` points to a writable `wk_reg_write`.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_commit_write(
    sim: *mut wk_sim,
    index: u32,
    out: *mut wk_reg_write,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        // SAFETY: the caller's guarantees.
        let out = unsafe { out.as_mut() }.ok_or_else(|| arg_error("out is null"))?;
        let w = s.last_writes.get(index as usize).ok_or_else(|| {
            arg_error(&format!(
                "write {index}: the last commit has {}",
                s.last_writes.len()
            ))
        })?;
        *out = *w;
        Ok(WK_OK)
    })
}

/// The `WK_FIELD_*` code of a field.
fn field_code(f: Field) -> u32 {
    match f {
        Field::Pc => WK_FIELD_PC,
        Field::Encoding => WK_FIELD_ENCODING,
        Field::Exec => WK_FIELD_EXEC,
        Field::Warp => WK_FIELD_WARP,
        Field::VReg => WK_FIELD_VREG,
        Field::VRegLanes => WK_FIELD_VREG_LANES,
        Field::UReg => WK_FIELD_UREG,
        Field::ExecWrite => WK_FIELD_EXEC_WRITE,
        Field::Csr => WK_FIELD_CSR,
        Field::MissingWrite => WK_FIELD_MISSING_WRITE,
        Field::ExtraWrite => WK_FIELD_EXTRA_WRITE,
        Field::Finished => WK_FIELD_FINISHED,
        Field::Trap => WK_FIELD_TRAP,
        Field::MemCount => WK_FIELD_MEM_COUNT,
        Field::MemKind => WK_FIELD_MEM_KIND,
        Field::MemSpace => WK_FIELD_MEM_SPACE,
        Field::MemSize => WK_FIELD_MEM_SIZE,
        Field::MemLanes => WK_FIELD_MEM_LANES,
        Field::MemAddr => WK_FIELD_MEM_ADDR,
        Field::MemMask => WK_FIELD_MEM_MASK,
        Field::MemData => WK_FIELD_MEM_DATA,
        Field::MemOld => WK_FIELD_MEM_OLD,
    }
}

// WK_FIELD_MEM_KIND and WK_FIELD_MEM_SPACE pass the comparator's codes on as they are.
const _: () = {
    assert!(cosim::mem_kind_code(MemKind::Load) == WK_MEM_LOAD as u64);
    assert!(cosim::mem_kind_code(MemKind::Store) == WK_MEM_STORE as u64);
    assert!(cosim::mem_kind_code(MemKind::Atomic) == WK_MEM_ATOMIC as u64);
    assert!(cosim::mem_space_code(MemSpace::Global) == WK_SPACE_GLOBAL as u64);
    assert!(cosim::mem_space_code(MemSpace::Shared) == WK_SPACE_SHARED as u64);
};

/// A design's memory record as the model's.
fn dut_access(k: usize, a: &wk_mem_access) -> Result<MemAccess, Fail> {
    let kind = match a.kind {
        WK_MEM_LOAD => MemKind::Load,
        WK_MEM_STORE => MemKind::Store,
        WK_MEM_ATOMIC => MemKind::Atomic,
        other => {
            return Err(arg_error(&format!(
                "dut.mem[{k}].kind: {other} is not a kind"
            )))
        }
    };
    let space = match a.space {
        WK_SPACE_GLOBAL => MemSpace::Global,
        WK_SPACE_SHARED => MemSpace::Shared,
        other => {
            return Err(arg_error(&format!(
                "dut.mem[{k}].space: {other} is not a space"
            )))
        }
    };
    // As many words as the design's size says: when that is the model's, the words are
    // the model's; when not, the size is reported before any data.
    let words = (a.size as usize).div_ceil(4).min(WK_MAX_MEM_WORDS);
    let lanes = (0..32u32)
        .filter(|l| (a.lane_mask >> l) & 1 != 0)
        .map(|l| {
            let x = &a.lanes[l as usize];
            LaneAccess {
                lane: l,
                addr: x.addr,
                data: x.data[..words].to_vec(),
                mask: x.mask,
                old: ((a.old_mask >> l) & 1 != 0).then_some(x.old),
            }
        })
        .collect();
    Ok(MemAccess {
        kind,
        space,
        size: a.size,
        lanes,
    })
}

/// The design's commit as the model's record, so that one comparator (`warpkit_sim::cosim`)
/// serves every front end. Checked before the model steps: a refused commit costs the
/// model no instruction.
fn dut_commit(dut: &wk_commit) -> Result<Commit, Fail> {
    let n = dut.n_writes as usize;
    if n > WK_MAX_WRITES {
        return Err(arg_error(&format!(
            "dut.n_writes is {n}, more than WK_MAX_WRITES ({WK_MAX_WRITES})"
        )));
    }
    let n_mem = dut.n_mem as usize;
    if n_mem > WK_MAX_MEM {
        return Err(arg_error(&format!(
            "dut.n_mem is {n_mem}, more than WK_MAX_MEM ({WK_MAX_MEM})"
        )));
    }
    let mut c = Commit {
        workgroup: dut.workgroup,
        warp: dut.warp,
        step: dut.step,
        pc: dut.pc,
        encoding: dut.encoding,
        len: dut.length as usize,
        asm: String::new(),
        exec: dut.exec,
        writes: Vec::new(),
        trap: (dut.flags & WK_COMMIT_TRAP != 0).then(|| {
            let t = Trap {
                cause: dut.trap_cause,
                pc: dut.pc,
                info: dut.trap_info,
            };
            (t, dut.flags & WK_COMMIT_TRAP_HANDLED != 0)
        }),
        ended: dut.flags & WK_COMMIT_END != 0,
        retired: Vec::new(),
        mem: dut.mem[..n_mem]
            .iter()
            .enumerate()
            .map(|(k, a)| dut_access(k, a))
            .collect::<Result<_, _>>()?,
    };
    for (k, w) in dut.writes[..n].iter().enumerate() {
        let written = match w.kind {
            WK_WRITE_VREG => Written::V {
                reg: w.reg,
                lanes: (0..32u32)
                    .filter(|l| (w.lane_mask >> l) & 1 != 0)
                    .map(|l| (l, w.values[l as usize]))
                    .collect(),
            },
            WK_WRITE_UREG => Written::U {
                reg: w.reg,
                value: w.values[0],
            },
            WK_WRITE_EXEC if w.reg == 0 => Written::Exec(w.values[0]),
            WK_WRITE_EXEC => {
                return Err(arg_error(&format!(
                    "dut.writes[{k}]: a write of EXEC has reg 0, not {}",
                    w.reg
                )))
            }
            WK_WRITE_CSR => Written::Csr {
                number: w.reg,
                name: warpkit_isa::csr_by_number(w.reg).map_or("?", |d| d.name),
                value: w.values[0],
            },
            other => {
                return Err(arg_error(&format!(
                    "dut.writes[{k}].kind: {other} is not a kind"
                )))
            }
        };
        if w.issue_pc == WK_SYNC {
            c.writes.push(written);
        } else if let Some((_, group)) = c.retired.iter_mut().find(|(pc, _)| *pc == w.issue_pc) {
            group.push(written);
        } else {
            c.retired.push((w.issue_pc, vec![written]));
        }
    }
    Ok(c)
}

fn report(out: &mut wk_mismatch, model: Option<&Commit>, m: &Mismatch) {
    out.field = field_code(m.field);
    out.reg = m.reg.map_or(m.access.unwrap_or(0) as u32, Reg::number);
    out.lane = m.lane;
    out.issue_pc = m.issue_pc.unwrap_or(WK_SYNC);
    out.expected = m.expected;
    out.got = m.got;
    let text = match model {
        Some(c) => {
            out.pc = c.pc;
            out.workgroup = c.workgroup;
            out.warp = c.warp;
            out.step = c.step;
            m.at(c)
        }
        None => {
            out.pc = 0;
            out.workgroup = [0; 3];
            out.warp = 0;
            out.step = 0;
            m.to_string()
        }
    };
    let bytes = text.as_bytes();
    let n = bytes.len().min(out.message.len() - 1);
    for (o, &b) in out.message.iter_mut().zip(&bytes[..n]) {
        *o = b as c_char;
    }
    out.message[n] = 0;
}

/// Execute the model's next instruction and compare it with `*dut`, the instruction the
/// design under test retired: warp, PC, encoding, EXEC, trap, every register write (its
/// own and the write-backs it retired, matched by kind, register and `issue_pc`; for
/// vector registers the lanes written and each lane's value), and the memory accesses
/// (kind, space, size, lanes, and per lane the address, byte enables, data on the enabled
/// bytes and `old`). Returns `WK_OK` when they agree, `WK_MISMATCH` with the first
/// difference in `*out` (`out` may be null), or an error: `WK_ERR_ARGUMENT`, the model not
/// stepped, for a commit no design can make (more than `WK_MAX_WRITES` writes or
/// `WK_MAX_MEM` accesses, a write of no `WK_WRITE_*` kind, a write of EXEC whose `reg` is
/// not 0, an access of no `WK_MEM_*` kind or `WK_SPACE_*` space). After `WK_FINISHED` from
/// the model, a design's commit is a mismatch (`WK_FIELD_FINISHED`).
///
/// # Safety
/// `sim` is from `wk_sim_new`; `dut` points to a valid `wk_commit`; `out` is null or
/// points to a writable `wk_mismatch`.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_cosim_check(
    sim: *mut wk_sim,
    dut: *const wk_commit,
    out: *mut wk_mismatch,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        // SAFETY: the caller's guarantees.
        let dut = unsafe { dut.as_ref() }.ok_or_else(|| arg_error("dut is null"))?;
        // SAFETY: the caller's guarantees.
        let out = unsafe { out.as_mut() };
        let dut = dut_commit(dut)?;
        let poison = PoisonOnPanic(s);
        let model = poison.0.next();
        let found = match &model {
            None => Some(Mismatch::finished(dut.pc)),
            Some(c) => cosim::compare(c, &dut),
        };
        std::mem::forget(poison);
        match found {
            None => Ok(WK_OK),
            Some(d) => {
                if let Some(out) = out {
                    report(out, model.as_ref(), &d);
                }
                Ok(WK_MISMATCH)
            }
        }
    })
}

/// Run the model until every warp has stopped, or `max_instructions` more have run (0: no
/// limit); `*executed` (may be null) gets how many ran. Returns `WK_FINISHED` when the
/// launch has finished, else `WK_OK`.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `executed` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_run(
    sim: *mut wk_sim,
    max_instructions: u64,
    executed: *mut u64,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        let poison = PoisonOnPanic(s);
        let limit = (max_instructions != 0).then_some(max_instructions);
        let (why, ran) = poison.0.stepper.run_until(&[], None, limit);
        poison.0.last_writes.clear();
        std::mem::forget(poison);
        // SAFETY: the caller's guarantees.
        if let Some(e) = unsafe { executed.as_mut() } {
            *e = ran;
        }
        Ok(match why {
            warpkit_host::StopReason::Finished => WK_FINISHED,
            _ => WK_OK,
        })
    })
}

/// Vector register `reg` of warp `warp` (its index in the running workgroup) into
/// `out[32]`.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `out` points to 32 writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_read_vreg(
    sim: *mut wk_sim,
    warp: u32,
    reg: u32,
    out: *mut u32,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        if out.is_null() {
            return Err(arg_error("out is null"));
        }
        let row = s.stepper.vreg(warp, reg)?;
        // SAFETY: the caller guarantees 32 writable words.
        unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), out, 32) };
        Ok(WK_OK)
    })
}

/// Set the lanes in `lane_mask` of vector register `reg` of warp `warp` to
/// `values[lane]`.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `values` points to 32 readable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_write_vreg(
    sim: *mut wk_sim,
    warp: u32,
    reg: u32,
    values: *const u32,
    lane_mask: u32,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        if values.is_null() {
            return Err(arg_error("values is null"));
        }
        // SAFETY: the caller guarantees 32 readable words.
        let values = unsafe { std::slice::from_raw_parts(values, 32) };
        s.stepper.vreg(warp, reg)?;
        for lane in (0..32u32).filter(|l| (lane_mask >> l) & 1 != 0) {
            s.stepper
                .set_vreg_lane(warp, reg, lane, values[lane as usize])?;
        }
        Ok(WK_OK)
    })
}

/// Uniform register `reg` of warp `warp` into `*out`.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_read_ureg(
    sim: *mut wk_sim,
    warp: u32,
    reg: u32,
    out: *mut u32,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        // SAFETY: the caller's guarantees.
        let out = unsafe { out.as_mut() }.ok_or_else(|| arg_error("out is null"))?;
        *out = s.stepper.ureg(warp, reg)?;
        Ok(WK_OK)
    })
}

/// Set uniform register `reg` of warp `warp`.
///
/// # Safety
/// `sim` is from `wk_sim_new`.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_write_ureg(
    sim: *mut wk_sim,
    warp: u32,
    reg: u32,
    value: u32,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        s.stepper.set_ureg(warp, reg, value)?;
        Ok(WK_OK)
    })
}

/// The PC and EXEC of warp `warp` of the running workgroup (either pointer may be null).
///
/// # Safety
/// `sim` is from `wk_sim_new`; `pc` and `exec` are null or writable.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_warp_state(
    sim: *mut wk_sim,
    warp: u32,
    pc: *mut u32,
    exec: *mut u32,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        let w = s.stepper.warp(warp)?;
        // SAFETY: the caller's guarantees.
        unsafe {
            if let Some(p) = pc.as_mut() {
                *p = w.pc;
            }
            if let Some(e) = exec.as_mut() {
                *e = w.exec();
            }
        }
        Ok(WK_OK)
    })
}

/// Read `len` bytes of global memory at `addr` (the running workgroup's scratch memory
/// included) into `out`; `WK_ERR_STATE` (nothing read) unless every byte is mapped.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `out` points to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_read_memory(
    sim: *mut wk_sim,
    addr: u64,
    out: *mut u8,
    len: usize,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        if out.is_null() && len > 0 {
            return Err(arg_error("out is null"));
        }
        let bytes = s.stepper.read_memory(addr, len as u64)?;
        // SAFETY: the caller guarantees `len` writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
        Ok(WK_OK)
    })
}

/// Write `len` bytes from `data` to global memory at `addr` (the running workgroup's
/// scratch memory included); `WK_ERR_STATE` (nothing written) unless every byte is mapped.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `data` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_write_memory(
    sim: *mut wk_sim,
    addr: u64,
    data: *const u8,
    len: usize,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        // SAFETY: the caller's guarantees.
        let data = unsafe { bytes(data, len as u64, "data") }?;
        s.stepper.write_memory(addr, data)?;
        Ok(WK_OK)
    })
}

/// The global address of buffer argument `name` into `*addr`.
///
/// # Safety
/// `sim` is from `wk_sim_new`; `name` is NUL-terminated; `addr` is writable.
#[no_mangle]
pub unsafe extern "C" fn wk_sim_buffer_address(
    sim: *mut wk_sim,
    name: *const c_char,
    addr: *mut u64,
) -> wk_status {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let s = unsafe { sim_mut(sim) }?;
        if name.is_null() {
            return Err(arg_error("name is null"));
        }
        // SAFETY: the caller guarantees a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        // SAFETY: the caller's guarantees.
        let addr = unsafe { addr.as_mut() }.ok_or_else(|| arg_error("addr is null"))?;
        *addr = s
            .stepper
            .buffers()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, a)| a)
            .ok_or_else(|| Fail(WK_ERR_STATE, format!("no buffer argument `{name}`")))?;
        Ok(WK_OK)
    })
}

/// Launch `code` (as for [`wk_sim_new`]) as `launch_desc` says, on every host core to its
/// end, timed on the machine `machine_toml` (docs/timing.md): NUL-terminated TOML text of
/// a machine file, naming only what differs from `machines/default.toml`; null or empty
/// for the default machine. `*json_out` gets the timing report as JSON, the document of
/// `warpkit run --timing-json` (machine, machine_hash, cycles, ipc, stalls, kernels,
/// units, ...): a NUL-terminated string that the caller frees with [`wk_string_free`];
/// `*json_len` (may be null) gets its length without the NUL. Returns `WK_OK` when every
/// warp ended, `WK_RUN_FAILED` (with the report) when the kernel trapped, deadlocked or
/// reached its step limit, or an error with `*json_out` null: `WK_ERR_LAUNCH` for a launch
/// refused, a machine that does not parse or validate (the message starts with
/// `machine:LINE:COLUMN:` or names the field) or a workgroup that cannot fit on one of its
/// compute units.
///
/// # Safety
/// `code` points to `code_len` readable bytes; `launch_desc` is null or valid;
/// `machine_toml` is null or NUL-terminated; `json_out` is writable; `json_len` is null or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn wk_launch_timed(
    code: *const u8,
    code_len: usize,
    launch_desc: *const wk_launch_desc,
    machine_toml: *const c_char,
    json_out: *mut *mut c_char,
    json_len: *mut usize,
) -> wk_status {
    guard(|| {
        if json_out.is_null() {
            return Err(arg_error("json_out is null"));
        }
        // SAFETY: the caller passes a writable pointer (checked not null above).
        unsafe { *json_out = std::ptr::null_mut() };
        let machine = if machine_toml.is_null() {
            warpkit_timing::Machine::default()
        } else {
            // SAFETY: the caller guarantees a NUL-terminated string.
            let text = unsafe { CStr::from_ptr(machine_toml) }
                .to_str()
                .map_err(|_| arg_error("machine_toml is not UTF-8"))?;
            warpkit_timing::Machine::from_toml(text).map_err(|e| {
                Fail(
                    WK_ERR_LAUNCH,
                    match e {
                        warpkit_timing::MachineError::Parse {
                            line,
                            column,
                            message,
                        } => format!("machine:{line}:{column}: {}", message.trim_end()),
                        e => format!("machine: {e}"),
                    },
                )
            })?
        };
        // SAFETY: the caller's guarantees, passed on.
        let kernel = unsafe { kernel_of(code, code_len) }?;
        // SAFETY: the caller's guarantees, passed on.
        let l = unsafe { launch_of(launch_desc) }?;
        let name = l
            .kernel_info()
            .map_or_else(|| "kernel".to_string(), |k| k.name.clone());
        let (program, config, args) = l
            .prepare(&kernel)
            .map_err(|e| Fail(WK_ERR_LAUNCH, e.to_string()))?
            .into_parts();
        let opts = warpkit_timing::TimingOptions {
            machine,
            kernel: name,
            timeline: false,
            threads: 0,
        };
        let (result, report) = warpkit_timing::launch_timed(&program, &config, args, &opts)
            .map_err(|e| Fail(WK_ERR_LAUNCH, e.to_string()))?;
        let json = CString::new(report.to_json())
            .map_err(|_| Fail(WK_ERR_INTERNAL, "the report holds a NUL".into()))?;
        // SAFETY: the caller's guarantees.
        if let Some(len) = unsafe { json_len.as_mut() } {
            *len = json.as_bytes().len();
        }
        // SAFETY: checked writable above; the string is freed by `wk_string_free`.
        unsafe { *json_out = json.into_raw() };
        if result.ok() {
            return Ok(WK_OK);
        }
        let why = result
            .traps
            .first()
            .map(warpkit_host::report::trap_message)
            .or_else(|| {
                result
                    .deadlocks
                    .first()
                    .map(warpkit_host::report::deadlock_message)
            })
            .or_else(|| {
                result
                    .step_limits
                    .first()
                    .map(|s| warpkit_host::report::step_limit_message(s, config.max_steps))
            })
            .or_else(|| result.interrupted.map(|i| i.to_string()))
            .unwrap_or_else(|| "the kernel did not finish".into());
        set_error(&why);
        Ok(WK_RUN_FAILED)
    })
}

/// Free a string this library returned ([`wk_launch_timed`]'s report); null is ignored.
///
/// # Safety
/// `s` is null or a string from this library not yet freed, and not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn wk_string_free(s: *mut c_char) {
    guard(|| {
        if !s.is_null() {
            // SAFETY: from `CString::into_raw` in this library, freed once.
            drop(unsafe { CString::from_raw(s) });
        }
        Ok(WK_OK)
    });
}
