//! The C API called as C calls it: stepping equals the traced run, co-simulation reports
//! exactly what differs, every error is a status and a message, state access.

use std::ffi::CStr;
use std::mem::MaybeUninit;
use warpkit_capi::*;

const VADD: &str = include_str!("../../../../examples/vadd.s");

fn code() -> Vec<u8> {
    warpkit_asm::assemble(VADD, "vadd.s").unwrap().text
}

fn last_error() -> String {
    // SAFETY: wk_last_error returns a NUL-terminated string.
    unsafe { CStr::from_ptr(wk_last_error()) }
        .to_string_lossy()
        .into_owned()
}

struct Vadd {
    a: Vec<u8>,
    b: Vec<u8>,
    args: Vec<wk_arg>,
}

impl Vadd {
    fn new(n: u32) -> Box<Vadd> {
        let a: Vec<u8> = (0..n).flat_map(|i| i.to_le_bytes()).collect();
        let b: Vec<u8> = (0..n).flat_map(|i| (2 * i).to_le_bytes()).collect();
        let mut v = Box::new(Vadd {
            a,
            b,
            args: Vec::new(),
        });
        let arg = |name: &'static CStr, kind, value, data: *const u8, len| wk_arg {
            name: name.as_ptr(),
            kind,
            value,
            data,
            len,
        };
        v.args = vec![
            arg(c"a", WK_ARG_BUFFER, 0, v.a.as_ptr(), v.a.len() as u64),
            arg(c"b", WK_ARG_BUFFER, 0, v.b.as_ptr(), v.b.len() as u64),
            arg(c"out", WK_ARG_ZEROED, 0, std::ptr::null(), 4 * u64::from(n)),
            arg(c"n", WK_ARG_INT, u64::from(n), std::ptr::null(), 0),
        ];
        v
    }

    fn desc(&self, n: u32) -> wk_launch_desc {
        wk_launch_desc {
            grid: [n.div_ceil(64), 0, 0],
            block: [64, 0, 0],
            shared_bytes: 0,
            scratch_bytes: 0,
            max_steps: 0,
            args: self.args.as_ptr(),
            n_args: self.args.len(),
        }
    }

    fn sim(&self, n: u32) -> *mut wk_sim {
        let code = code();
        let desc = self.desc(n);
        // SAFETY: valid code and description.
        let sim = unsafe { wk_sim_new(code.as_ptr(), code.len(), &desc) };
        assert!(!sim.is_null(), "{}", last_error());
        sim
    }
}

fn commit() -> Box<wk_commit> {
    // SAFETY: wk_commit is plain integers; all zeros is a valid value.
    Box::new(unsafe { MaybeUninit::zeroed().assume_init() })
}

fn mismatch() -> wk_mismatch {
    // SAFETY: plain integers and chars.
    unsafe { MaybeUninit::zeroed().assume_init() }
}

fn message(m: &wk_mismatch) -> String {
    // SAFETY: `report` NUL-terminates the message.
    unsafe { CStr::from_ptr(m.message.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn stepping_gives_the_traced_commits() {
    let v = Vadd::new(100);
    let sim = v.sim(100);
    let kernel = warpkit_asm::assemble(VADD, "vadd.s").unwrap();
    let mut l = warpkit_host::Launch::new(warpkit_host::Limits::default());
    l.grid([2, 1, 1]).unwrap().block([64, 1, 1]).unwrap();
    l.arg("a", warpkit_host::ArgValue::Buffer(v.a.clone()))
        .unwrap();
    l.arg("b", warpkit_host::ArgValue::Buffer(v.b.clone()))
        .unwrap();
    l.zeroed_buffer("out", 400).unwrap();
    l.arg("n", warpkit_host::ArgValue::Int(100)).unwrap();
    let mut traced = warpkit_sim::VecTracer::default();
    l.prepare(&kernel)
        .unwrap()
        .run_with_tracer(&mut traced)
        .unwrap();
    let mut c = commit();
    for t in &traced.commits {
        // SAFETY: live simulator, writable commit.
        assert_eq!(unsafe { wk_sim_step(sim, &mut *c) }, WK_OK);
        assert_eq!(
            (c.pc, c.warp, c.step, c.exec),
            (t.pc, t.warp, t.step, t.exec)
        );
        assert_eq!((c.encoding, c.length as usize), (t.encoding, t.len));
        let own = t.writes.len();
        let retired: usize = t.retired.iter().map(|(_, w)| w.len()).sum();
        assert_eq!(c.n_writes as usize, own + retired);
        assert_eq!(c.n_mem as usize, t.mem.len());
        assert_eq!(c.flags & WK_COMMIT_END != 0, t.ended);
    }
    // SAFETY: as above.
    assert_eq!(unsafe { wk_sim_step(sim, &mut *c) }, WK_FINISHED);
    let mut out = [0u8; 400];
    let mut addr = 0;
    // SAFETY: as above; 400 writable bytes.
    unsafe {
        assert_eq!(
            wk_sim_buffer_address(sim, c"out".as_ptr(), &mut addr),
            WK_OK
        );
        assert_eq!(wk_sim_read_memory(sim, addr, out.as_mut_ptr(), 400), WK_OK);
        wk_sim_free(sim);
    }
    let got: Vec<u32> = out
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    assert_eq!(got, (0..100).map(|i| 3 * i).collect::<Vec<u32>>());
}

/// Steps `design` and checks its commit against `golden` after `corrupt` changed it.
fn check_with(corrupt: impl Fn(&mut wk_commit) -> bool) -> (wk_status, wk_mismatch) {
    let v = Vadd::new(64);
    let (golden, design) = (v.sim(64), v.sim(64));
    let mut c = commit();
    let mut m = mismatch();
    let mut status = WK_OK;
    // SAFETY: live simulators, writable structures.
    unsafe {
        while wk_sim_step(design, &mut *c) == WK_OK {
            let done = corrupt(&mut c);
            status = wk_sim_cosim_check(golden, &*c, &mut m);
            if status != WK_OK || done {
                break;
            }
        }
        wk_sim_free(golden);
        wk_sim_free(design);
    }
    (status, m)
}

#[test]
fn cosim_check_says_precisely_what_differs() {
    let (s, _) = check_with(|_| false);
    assert_eq!(s, WK_OK);

    let (s, m) = check_with(|c| {
        if c.pc == 0x48 {
            c.writes[0].values[7] = 1234;
        }
        false
    });
    assert_eq!(s, WK_MISMATCH);
    assert_eq!(
        (m.field, m.reg, m.lane, m.expected, m.got, m.pc),
        (WK_FIELD_VREG, 8, 7, 21, 1234, 0x48)
    );
    assert!(
        message(&m).ends_with("v8 lane 7: expected 0x15, got 0x4d2"),
        "{}",
        message(&m)
    );

    let (_, m) = check_with(|c| {
        c.exec ^= (c.pc == 0x20) as u32;
        false
    });
    assert_eq!(
        (m.field, m.expected, m.got),
        (WK_FIELD_EXEC, 0xffff_ffff, 0xffff_fffe)
    );

    let (_, m) = check_with(|c| {
        c.pc += 4 * (c.step == 3) as u32;
        false
    });
    assert_eq!((m.field, m.expected, m.got), (WK_FIELD_PC, 0x10, 0x14));

    let (_, m) = check_with(|c| {
        c.encoding ^= (c.pc == 0x30) as u64;
        false
    });
    assert_eq!(m.field, WK_FIELD_ENCODING);

    // The loads' write-backs retire at `waitcnt vm=0` (0x44), issued at 0x34 and 0x3c.
    let (_, m) = check_with(|c| {
        if c.pc == 0x44 {
            c.n_writes -= 1;
        }
        false
    });
    assert_eq!(
        (m.field, m.reg, m.issue_pc),
        (WK_FIELD_MISSING_WRITE, 7, 0x3c)
    );
    assert!(message(&m).contains("v7 (write-back of the instruction at pc 0x3c)"));

    let (_, m) = check_with(|c| {
        if c.pc == 0x30 {
            let mut extra = c.writes[0];
            extra.reg = 100;
            c.writes[c.n_writes as usize] = extra;
            c.n_writes += 1;
        }
        false
    });
    assert_eq!((m.field, m.reg), (WK_FIELD_EXTRA_WRITE, 100));

    let (_, m) = check_with(|c| {
        if c.pc == 0x30 {
            c.writes[0].lane_mask &= !(1 << 3);
        }
        false
    });
    assert_eq!((m.field, m.reg, m.lane), (WK_FIELD_VREG_LANES, 5, 3));

    let (_, m) = check_with(|c| {
        if c.pc == 0x1c {
            c.writes[0].values[0] += 1;
        }
        false
    });
    assert_eq!((m.field, m.reg), (WK_FIELD_UREG, 23));

    let (_, m) = check_with(|c| {
        c.warp ^= (c.step == 2) as u32;
        false
    });
    assert_eq!(m.field, WK_FIELD_WARP);

    let (_, m) = check_with(|c| {
        if c.step == 2 {
            c.flags |= WK_COMMIT_TRAP;
            c.trap_cause = 3;
        }
        false
    });
    assert_eq!(m.field, WK_FIELD_TRAP);
    assert!(message(&m).ends_with("trap: expected none, the design reported cause 3"));
}

#[test]
fn a_design_running_past_the_model_is_a_mismatch() {
    let v = Vadd::new(32);
    let (golden, design) = (v.sim(32), v.sim(32));
    let mut c = commit();
    let mut m = mismatch();
    // SAFETY: live simulators, writable structures.
    unsafe {
        assert_eq!(wk_sim_run(golden, 0, std::ptr::null_mut()), WK_FINISHED);
        assert_eq!(wk_sim_step(design, &mut *c), WK_OK);
        assert_eq!(wk_sim_cosim_check(golden, &*c, &mut m), WK_MISMATCH);
        assert_eq!(m.field, WK_FIELD_FINISHED);
        wk_sim_free(golden);
        wk_sim_free(design);
    }
}

#[test]
fn errors_are_a_status_and_a_message() {
    let mut c = commit();
    // SAFETY: the calls below pass null or bad values on purpose; nothing is dereferenced
    // that is not valid.
    unsafe {
        assert_eq!(wk_sim_step(std::ptr::null_mut(), &mut *c), WK_ERR_ARGUMENT);
        assert_eq!(last_error(), "sim is null");
        assert!(wk_sim_new(std::ptr::null(), 4, std::ptr::null()).is_null());
        assert_eq!(last_error(), "code is null");
        let code = code();
        let mut desc = Vadd::new(32).desc(32);
        desc.block = [2048, 1, 1];
        assert!(wk_sim_new(code.as_ptr(), code.len(), &desc).is_null());
        assert!(last_error().contains("2048 threads"), "{}", last_error());
        let bad = wk_arg {
            name: c"x".as_ptr(),
            kind: 9,
            value: 0,
            data: std::ptr::null(),
            len: 0,
        };
        desc = wk_launch_desc {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
            scratch_bytes: 0,
            max_steps: 0,
            args: &bad,
            n_args: 1,
        };
        assert!(wk_sim_new(code.as_ptr(), code.len(), &desc).is_null());
        assert_eq!(last_error(), "args[0].kind: 9 is not a kind");

        // A default launch: one workgroup of 32 threads; registers and memory.
        let endpgm = 0x0000_0070u32.to_le_bytes();
        let sim = wk_sim_new(endpgm.as_ptr(), 4, std::ptr::null());
        assert!(!sim.is_null(), "{}", last_error());
        let mut row = [0u32; 32];
        assert_eq!(wk_sim_read_vreg(sim, 0, 3, row.as_mut_ptr()), WK_OK);
        assert_eq!(row[31], 31);
        assert_eq!(wk_sim_read_vreg(sim, 1, 3, row.as_mut_ptr()), WK_ERR_STATE);
        assert_eq!(last_error(), "warp 1: the running workgroup has 1 warps");
        assert_eq!(
            wk_sim_read_vreg(sim, 0, 128, row.as_mut_ptr()),
            WK_ERR_STATE
        );
        let values = [7u32; 32];
        assert_eq!(wk_sim_write_vreg(sim, 0, 9, values.as_ptr(), 0b100), WK_OK);
        assert_eq!(wk_sim_read_vreg(sim, 0, 9, row.as_mut_ptr()), WK_OK);
        assert_eq!(&row[..3], &[0, 0, 7]);
        let mut u = 0;
        assert_eq!(wk_sim_write_ureg(sim, 0, 63, 5), WK_OK);
        assert_eq!(wk_sim_read_ureg(sim, 0, 63, &mut u), WK_OK);
        assert_eq!(u, 5);
        assert_eq!(wk_sim_write_ureg(sim, 0, 64, 5), WK_ERR_STATE);
        let mut byte = [0u8; 4];
        let base = warpkit_sim::launch::CODE_BASE;
        assert_eq!(wk_sim_read_memory(sim, base, byte.as_mut_ptr(), 4), WK_OK);
        assert_eq!(byte, endpgm);
        assert_eq!(
            wk_sim_read_memory(sim, base + 2, byte.as_mut_ptr(), 4),
            WK_ERR_STATE
        );
        assert!(last_error().contains("not all mapped"), "{}", last_error());
        let (mut pc, mut exec) = (1, 0);
        assert_eq!(wk_sim_warp_state(sim, 0, &mut pc, &mut exec), WK_OK);
        assert_eq!((pc, exec), (0, u32::MAX));
        assert_eq!(wk_sim_step(sim, &mut *c), WK_OK);
        assert_eq!(c.flags, WK_COMMIT_END);
        let mut w = MaybeUninit::<wk_reg_write>::zeroed().assume_init();
        assert_eq!(wk_sim_commit_write(sim, 0, &mut w), WK_ERR_ARGUMENT);
        assert_eq!(wk_sim_step(sim, &mut *c), WK_FINISHED);
        assert_eq!(wk_sim_read_vreg(sim, 0, 3, row.as_mut_ptr()), WK_ERR_STATE);
        wk_sim_free(sim);
        wk_sim_free(std::ptr::null_mut());
    }
}

#[test]
fn a_design_commit_no_design_can_make_is_refused_without_stepping_the_model() {
    let v = Vadd::new(32);
    let (golden, design) = (v.sim(32), v.sim(32));
    let mut c = commit();
    let mut m = mismatch();
    // SAFETY: live simulators, writable structures.
    unsafe {
        // The first commit with a register write (`waitcnt sm=0` retiring the uloads).
        loop {
            assert_eq!(wk_sim_step(design, &mut *c), WK_OK);
            if c.n_writes > 0 {
                break;
            }
            assert_eq!(wk_sim_cosim_check(golden, &*c, &mut m), WK_OK);
        }
        let good = c.n_writes;
        c.n_writes = WK_MAX_WRITES as u32 + 1;
        assert_eq!(wk_sim_cosim_check(golden, &*c, &mut m), WK_ERR_ARGUMENT);
        assert_eq!(
            last_error(),
            "dut.n_writes is 65, more than WK_MAX_WRITES (64)"
        );
        c.n_writes = good;
        let write = c.writes[0];
        c.writes[0].kind = 9;
        assert_eq!(wk_sim_cosim_check(golden, &*c, &mut m), WK_ERR_ARGUMENT);
        assert_eq!(last_error(), "dut.writes[0].kind: 9 is not a kind");
        c.writes[0].kind = WK_WRITE_EXEC;
        c.writes[0].reg = 3;
        assert_eq!(wk_sim_cosim_check(golden, &*c, &mut m), WK_ERR_ARGUMENT);
        assert_eq!(
            last_error(),
            "dut.writes[0]: a write of EXEC has reg 0, not 3"
        );
        // None of the refused commits moved the model on: the instruction still compares
        // equal.
        c.writes[0] = write;
        assert_eq!(
            wk_sim_cosim_check(golden, &*c, &mut m),
            WK_OK,
            "{}",
            message(&m)
        );
        wk_sim_free(golden);
        wk_sim_free(design);
    }
}

/// Memory of every kind, both spaces and three sizes, under a partial EXEC (20 threads):
/// `buf[lane]` starts at `10 * lane`; an atomic adds 7, a 2-byte store at byte 2 writes 7
/// to the upper half, lane l stores l to shared memory at 4l.
const MEMORY: &str = "
    uload.b64   u[16:17], u[0:1], 0
    waitcnt     sm=0
    sll.vi      v4, v3, 2
    movi        v5, 7
    gatomic.add v5, v4, u[16:17], 0
    gstore.b16  v5, v4, u[16:17], 2
    dsstore.b32 v3, v4, 0
    waitcnt     vst=0
    waitcnt     ls=0
    endpgm
";

const MEMORY_LANES: u32 = 20;

struct Memory {
    code: Vec<u8>,
    buf: Vec<u8>,
    args: Vec<wk_arg>,
}

impl Memory {
    fn new() -> Box<Memory> {
        let mut m = Box::new(Memory {
            code: warpkit_asm::assemble(MEMORY, "memory.s").unwrap().text,
            buf: (0..32u32).flat_map(|l| (10 * l).to_le_bytes()).collect(),
            args: Vec::new(),
        });
        m.args = vec![wk_arg {
            name: c"buf".as_ptr(),
            kind: WK_ARG_BUFFER,
            value: 0,
            data: m.buf.as_ptr(),
            len: m.buf.len() as u64,
        }];
        m
    }

    fn sim(&self) -> *mut wk_sim {
        let desc = wk_launch_desc {
            grid: [1, 0, 0],
            block: [MEMORY_LANES, 0, 0],
            shared_bytes: 0,
            scratch_bytes: 0,
            max_steps: 0,
            args: self.args.as_ptr(),
            n_args: self.args.len(),
        };
        // SAFETY: valid code and description.
        let sim = unsafe { wk_sim_new(self.code.as_ptr(), self.code.len(), &desc) };
        assert!(!sim.is_null(), "{}", last_error());
        sim
    }
}

fn buffer(sim: *mut wk_sim) -> u64 {
    let mut addr = 0;
    // SAFETY: live simulator.
    assert_eq!(
        unsafe { wk_sim_buffer_address(sim, c"buf".as_ptr(), &mut addr) },
        WK_OK
    );
    addr
}

#[test]
fn stepping_gives_each_memory_access_in_full() {
    let m = Memory::new();
    let sim = m.sim();
    let buf = buffer(sim);
    let active = (1u32 << MEMORY_LANES) - 1;
    let mut c = commit();
    let mut seen = Vec::new();
    // SAFETY: live simulator, writable commit.
    while unsafe { wk_sim_step(sim, &mut *c) } == WK_OK {
        assert!(c.n_mem <= 1);
        if c.n_mem == 0 {
            assert!(c.mem.iter().all(|a| a.lane_mask == 0 && a.size == 0));
            continue;
        }
        let a = &c.mem[0];
        assert_eq!(c.mem[1].lane_mask, 0);
        seen.push((a.kind, a.space, a.size));
        for (lane, l) in a.lanes.iter().enumerate() {
            if (a.lane_mask >> lane) & 1 == 0 {
                assert_eq!((l.addr, l.mask, l.old, l.data), (0, 0, 0, [0; 8]));
            }
        }
        let lane = |k: usize| {
            let l = &a.lanes[k];
            (l.addr, l.mask, l.data, l.old)
        };
        let k = 13u32;
        let addr = buf + 4 * u64::from(k);
        let words = |w: &[u32]| {
            let mut d = [0; 8];
            d[..w.len()].copy_from_slice(w);
            d
        };
        match (a.kind, a.space) {
            (WK_MEM_LOAD, WK_SPACE_GLOBAL) => {
                // The argument block's first slot: buf's address, as two words.
                assert_eq!((a.size, a.lane_mask, a.old_mask), (8, 1, 0));
                assert_eq!(
                    (a.lanes[0].mask, &a.lanes[0].data[..2]),
                    (0xff, &[buf as u32, (buf >> 32) as u32][..])
                );
            }
            (WK_MEM_ATOMIC, WK_SPACE_GLOBAL) => {
                assert_eq!((a.size, a.lane_mask, a.old_mask), (4, active, active));
                assert_eq!(lane(13), (addr, 0xf, words(&[10 * k + 7]), 10 * k));
            }
            (WK_MEM_STORE, WK_SPACE_GLOBAL) => {
                assert_eq!((a.size, a.lane_mask, a.old_mask), (2, active, 0));
                assert_eq!(lane(13), (addr, 0b1100, words(&[7 << 16]), 0));
            }
            (WK_MEM_STORE, WK_SPACE_SHARED) => {
                assert_eq!((a.size, a.lane_mask, a.old_mask), (4, active, 0));
                assert_eq!(lane(13), (4 * u64::from(k), 0xf, words(&[k]), 0));
            }
            other => panic!("unexpected access {other:?}"),
        }
    }
    assert_eq!(
        seen,
        [
            (WK_MEM_LOAD, WK_SPACE_GLOBAL, 8),
            (WK_MEM_ATOMIC, WK_SPACE_GLOBAL, 4),
            (WK_MEM_STORE, WK_SPACE_GLOBAL, 2),
            (WK_MEM_STORE, WK_SPACE_SHARED, 4)
        ]
    );
    // SAFETY: live simulator.
    unsafe { wk_sim_free(sim) };
}

/// Steps a design through MEMORY and checks each of its commits against the golden model
/// after `corrupt` changed it; stops at the first status other than `WK_OK`, with the
/// last error.
fn check_memory_with(corrupt: impl Fn(&mut wk_commit)) -> (wk_status, wk_mismatch, String) {
    let mem = Memory::new();
    let (golden, design) = (mem.sim(), mem.sim());
    let mut c = commit();
    let mut m = mismatch();
    let mut status = WK_OK;
    // SAFETY: live simulators, writable structures.
    unsafe {
        while wk_sim_step(design, &mut *c) == WK_OK {
            corrupt(&mut c);
            status = wk_sim_cosim_check(golden, &*c, &mut m);
            if status != WK_OK {
                break;
            }
        }
        wk_sim_free(golden);
        wk_sim_free(design);
    }
    (status, m, last_error())
}

/// The access of a commit if it is of `kind` in `space`.
fn access(c: &mut wk_commit, kind: u32, space: u32) -> Option<&mut wk_mem_access> {
    let a = &mut c.mem[0];
    (c.n_mem == 1 && a.kind == kind && a.space == space).then_some(a)
}

#[test]
fn cosim_check_compares_memory_accesses_lane_by_lane() {
    let (s, _, _) = check_memory_with(|_| {});
    assert_eq!(s, WK_OK);
    // Bytes the mask does not enable are not data.
    let (s, _, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_STORE, WK_SPACE_GLOBAL) {
            a.lanes[3].data[0] |= 0xffff;
            a.lanes[3].data[7] = 1;
        }
    });
    assert_eq!(s, WK_OK);

    let (s, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_ATOMIC, WK_SPACE_GLOBAL) {
            a.lanes[4].addr += 4;
        }
    });
    assert_eq!(s, WK_MISMATCH);
    assert_eq!((m.field, m.reg, m.lane), (WK_FIELD_MEM_ADDR, 0, 4));
    assert_eq!(m.got, m.expected + 4);
    assert!(
        message(&m).contains("(gatomic.add v5, v4, u[16:17], 0)"),
        "{}",
        message(&m)
    );
    assert!(
        message(&m).ends_with(&format!(
            "atomic.global lane 4: address: expected {:#x}, got {:#x}",
            m.expected, m.got
        )),
        "{}",
        message(&m)
    );

    let (_, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_STORE, WK_SPACE_GLOBAL) {
            a.lanes[3].data[0] ^= 1 << 16;
        }
    });
    assert_eq!(
        (m.field, m.lane, m.expected, m.got),
        (WK_FIELD_MEM_DATA, 3, 0x7_0000, 0x6_0000)
    );
    assert!(
        message(&m).ends_with("store.global lane 3 word 0: data: expected 0x70000, got 0x60000"),
        "{}",
        message(&m)
    );

    let (_, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_STORE, WK_SPACE_GLOBAL) {
            a.lanes[0].mask = 0xf;
        }
    });
    assert_eq!(
        (m.field, m.lane, m.expected, m.got),
        (WK_FIELD_MEM_MASK, 0, 0xc, 0xf)
    );
    assert!(
        message(&m).ends_with("store.global lane 0: byte mask: expected 0xc, got 0xf"),
        "{}",
        message(&m)
    );

    let (_, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_ATOMIC, WK_SPACE_GLOBAL) {
            a.old_mask &= !(1 << 2);
        }
    });
    assert_eq!(
        (m.field, m.lane, m.expected, m.got),
        (WK_FIELD_MEM_OLD, 2, 1 << 32 | 20, 0)
    );
    assert_eq!(
        message(&m),
        "mismatch at pc 0x14 (gatomic.add v5, v4, u[16:17], 0) in workgroup (0,0,0) warp 0 \
         step 5: atomic.global lane 2: old: expected 0x14, got none"
    );
    let (_, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_ATOMIC, WK_SPACE_GLOBAL) {
            a.lanes[2].old = 21;
        }
    });
    assert_eq!(
        (m.field, m.expected, m.got),
        (WK_FIELD_MEM_OLD, 1 << 32 | 20, 1 << 32 | 21)
    );

    let (_, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_STORE, WK_SPACE_SHARED) {
            a.lane_mask &= !(1 << 5);
        }
    });
    assert_eq!(
        (m.field, m.lane, m.expected, m.got),
        (WK_FIELD_MEM_LANES, 5, 0xf_ffff, 0xf_ffdf)
    );
    assert!(
        message(&m).ends_with("store.shared: lanes: expected 0x000fffff, got 0x000fffdf"),
        "{}",
        message(&m)
    );

    let (_, m, _) = check_memory_with(|c| {
        if access(c, WK_MEM_STORE, WK_SPACE_SHARED).is_some() {
            c.n_mem = 0;
        }
    });
    assert_eq!((m.field, m.expected, m.got), (WK_FIELD_MEM_COUNT, 1, 0));
    assert!(message(&m).ends_with("memory accesses: expected 1, got 0"));
    let (_, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_STORE, WK_SPACE_SHARED) {
            a.kind = WK_MEM_LOAD;
        }
    });
    assert_eq!(
        (m.field, m.expected, m.got),
        (WK_FIELD_MEM_KIND, WK_MEM_STORE.into(), WK_MEM_LOAD.into())
    );
    assert!(message(&m).ends_with("store.shared: kind: expected store, got load"));
    let (_, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_STORE, WK_SPACE_SHARED) {
            a.space = WK_SPACE_GLOBAL;
        }
    });
    assert_eq!(
        (m.field, m.expected, m.got),
        (
            WK_FIELD_MEM_SPACE,
            WK_SPACE_SHARED.into(),
            WK_SPACE_GLOBAL.into()
        )
    );
    let (_, m, _) = check_memory_with(|c| {
        if let Some(a) = access(c, WK_MEM_STORE, WK_SPACE_GLOBAL) {
            a.size = 4;
        }
    });
    assert_eq!((m.field, m.expected, m.got), (WK_FIELD_MEM_SIZE, 2, 4));
    // A register difference is reported before a memory one.
    let (_, m, _) = check_memory_with(|c| {
        if c.n_writes > 0 {
            c.writes[0].values[0] ^= 1;
            c.n_mem = 1;
        }
    });
    assert_eq!(m.field, WK_FIELD_UREG);
}

#[test]
fn a_memory_record_no_design_can_make_is_refused() {
    let store = |c: &mut wk_commit| c.n_mem == 1 && c.mem[0].kind == WK_MEM_STORE;
    let (s, _, e) = check_memory_with(|c| {
        if store(c) {
            c.n_mem = 3;
        }
    });
    assert_eq!(
        (s, e.as_str()),
        (WK_ERR_ARGUMENT, "dut.n_mem is 3, more than WK_MAX_MEM (2)")
    );
    let (s, _, e) = check_memory_with(|c| {
        if store(c) {
            c.mem[0].kind = 7;
        }
    });
    assert_eq!(
        (s, e.as_str()),
        (WK_ERR_ARGUMENT, "dut.mem[0].kind: 7 is not a kind")
    );
    let (s, _, e) = check_memory_with(|c| {
        if store(c) {
            c.mem[0].space = 5;
        }
    });
    assert_eq!(
        (s, e.as_str()),
        (WK_ERR_ARGUMENT, "dut.mem[0].space: 5 is not a space")
    );
    // What the counts and masks leave out is not read: a second record, a lane outside
    // the lane mask, the `old` of a lane outside the old mask.
    let (s, _, _) = check_memory_with(|c| {
        c.mem[1].kind = 99;
        c.mem[0].lanes[31].addr = u64::MAX;
        c.mem[0].lanes[31].data = [u32::MAX; 8];
        if store(c) {
            c.mem[0].lanes[0].old = u32::MAX;
        }
    });
    assert_eq!(s, WK_OK);
}

/// Each lane spills `lane + 5` to its scratch slot 1 and reloads it (docs/abi.md, "Scratch
/// memory"), in 2 workgroups of 32 threads with 8 bytes of scratch per lane.
const SPILL: &str = "csrr u20, scratch_lo\ncsrr u21, scratch_hi\nlaneid v4\nsll.vi v4, v4, 2\n\
    laneid v5\nadd.vi v5, v5, 5\ngstore.b32 v5, v4, u[20:21], 128\n\
    gload.b32 v6, v4, u[20:21], 128\nwaitcnt vm=0\nendpgm\n";

fn spill_sim(scratch_bytes: u32) -> *mut wk_sim {
    let code = warpkit_asm::assemble(SPILL, "spill.s").unwrap().text;
    let desc = wk_launch_desc {
        grid: [2, 0, 0],
        block: [32, 0, 0],
        shared_bytes: 0,
        scratch_bytes,
        max_steps: 0,
        args: std::ptr::null(),
        n_args: 0,
    };
    // SAFETY: valid code and description.
    unsafe { wk_sim_new(code.as_ptr(), code.len(), &desc) }
}

#[test]
fn scratch_stores_are_stepped_compared_and_read() {
    const BASE: u64 = 0x4000_0000_0000_0000;
    let (golden, design) = (spill_sim(8), spill_sim(8));
    assert!(!golden.is_null() && !design.is_null(), "{}", last_error());
    let (mut c, mut m) = (commit(), mismatch());
    let mut spills = 0;
    // SAFETY: live simulators, writable structures, 8 writable bytes.
    unsafe {
        while wk_sim_step(design, &mut *c) == WK_OK {
            if c.n_mem == 1 && c.mem[0].kind == WK_MEM_STORE {
                let wg = u64::from(c.workgroup[0]);
                let a = &c.mem[0];
                assert_eq!(a.space, WK_SPACE_GLOBAL);
                let lane3 = a.lanes[3];
                assert_eq!(
                    (lane3.addr, lane3.data[0]),
                    (BASE + (wg << 30) + 128 + 12, 8)
                );
                let mut word = [0u8; 8];
                assert_eq!(
                    wk_sim_read_memory(design, lane3.addr, word.as_mut_ptr(), 8),
                    WK_OK
                );
                assert_eq!(word, [8, 0, 0, 0, 9, 0, 0, 0]);
                // Past the region (32 lanes of 8 bytes).
                assert_eq!(
                    wk_sim_read_memory(design, BASE + (wg << 30) + 256, word.as_mut_ptr(), 4),
                    WK_ERR_STATE
                );
                spills += 1;
                if wg == 1 {
                    // A design that stored lane 3's value wrong.
                    c.mem[0].lanes[3].data[0] ^= 1;
                    assert_eq!(wk_sim_cosim_check(golden, &*c, &mut m), WK_MISMATCH);
                    assert_eq!((m.field, m.lane), (WK_FIELD_MEM_DATA, 3));
                    break;
                }
            }
            assert_eq!(
                wk_sim_cosim_check(golden, &*c, &mut m),
                WK_OK,
                "{}",
                message(&m)
            );
        }
        wk_sim_free(golden);
        wk_sim_free(design);
    }
    assert_eq!(spills, 2);
    assert!(spill_sim(6).is_null());
    assert!(last_error().contains("multiple of 4"), "{}", last_error());
}

#[test]
fn the_library_has_the_layout_of_the_header() {
    assert_eq!(wk_abi_version(), WK_ABI_VERSION);
    // Layout 3's sizes (docs/cosim.md): a change here is a change of WK_ABI_VERSION.
    assert_eq!(std::mem::size_of::<wk_lane_access>(), 48);
    assert_eq!(std::mem::size_of::<wk_mem_access>(), 1560);
    assert_eq!(std::mem::size_of::<wk_launch_desc>(), 56);
    assert_eq!(std::mem::offset_of!(wk_launch_desc, scratch_bytes), 28);
}
