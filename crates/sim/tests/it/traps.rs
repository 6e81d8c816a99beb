//! Every trap rule: IllegalInsn for undecodable words and reserved operand values, the CSR
//! rules of §3.3, mode validation, trap handlers, fetch faults, step limits.

use crate::common::*;
use warpkit_isa::{Instr, Op};
use warpkit_sim::trap::*;
use warpkit_sim::*;

fn word(op: Op, raw: &[u32]) -> Vec<u8> {
    Instr::from_raw(op, raw).unwrap().to_bytes()
}

fn endpgm() -> Vec<u8> {
    word(Op::Endpgm, &[])
}

#[test]
fn undecodable_word_traps_only_when_executed() {
    // Skipped over: no trap.
    let mut b = asm("jmp 8");
    b.extend_from_slice(&0xffff_ffffu32.to_le_bytes());
    b.extend(endpgm());
    let w = run_bytes(b, u32::MAX);
    ended(&w);
    // Executed: cause 1, info = the word.
    let mut b = asm("nop");
    b.extend_from_slice(&0x0000_007eu32.to_le_bytes());
    let w = run_bytes(b, u32::MAX);
    assert_eq!(
        trap(&w),
        Trap {
            cause: 1,
            pc: 4,
            info: 0x7e
        }
    );
    // Reserved-must-be-zero bits set: endpgm with imm bits.
    let w = run_bytes((0x0000_1070u32).to_le_bytes().to_vec(), u32::MAX);
    assert_eq!(
        trap(&w),
        Trap {
            cause: 1,
            pc: 0,
            info: 0x1070
        }
    );
    // w0[1:0] = 11: reserved length.
    let w = run_bytes(0x0000_0003u32.to_le_bytes().to_vec(), u32::MAX);
    assert_eq!(
        trap(&w),
        Trap {
            cause: 1,
            pc: 0,
            info: 3
        }
    );
    // A 64-bit instruction cut short by the end of the code.
    let w = run_bytes(asm("umov.l u1, 5")[..4].to_vec(), u32::MAX);
    assert_eq!(trap(&w).cause, 1);
}

#[test]
fn odd_pairs_trap_with_the_low_word() {
    let cases: Vec<(Op, Vec<u32>)> = vec![
        (Op::Add64, vec![3, 2, 4]),
        (Op::Add64, vec![2, 5, 4]),
        (Op::Add64, vec![2, 4, 127]),
        (Op::Mulwu, vec![1, 2, 3]),
        (Op::Uadd64, vec![2, 2, 63]),
        (Op::Umov64, vec![1, 2]),
        (Op::Mov64Vu, vec![2, 3]),
        (Op::CmpEqI64, vec![1, 3, 4]),
        (Op::Upca, vec![5, 0]),
        (Op::Mad64U32, vec![2, 1, 1, 7]),
        (Op::Addsx64Vl, vec![9, 2, 0x1234_5678]),
        (Op::Uadd64L, vec![2, 61, 0]),
    ];
    for (op, raw) in cases {
        let ins = Instr::from_raw(op, &raw).unwrap();
        let mut b = asm("nop");
        b.extend(ins.to_bytes());
        b.extend(endpgm());
        let w = run_bytes(b, u32::MAX);
        assert_eq!(
            trap(&w),
            Trap {
                cause: 1,
                pc: 4,
                info: ins.encode() as u32
            },
            "{ins}"
        );
        assert_eq!(w.retired, 1, "nothing after the nop retired");
    }
}

#[test]
fn trap_handler_is_entered() {
    // Handler at 0x20 (a code offset) reads the trap CSRs and ends.
    let src = "umovi u1, 32
        csrw trapbase, u1
        csrw clock, u1
        umovi u9, 1
        endpgm
        nop
        nop
        nop
        csrr u2, trapcause
        csrr u3, trappc
        csrr u4, trapinfo
        endpgm";
    let w = run(src);
    ended(&w);
    assert_eq!((w.u[2], w.u[3], w.u[4]), (9, 8, 0x20));
    assert_eq!(w.u[9], 0, "the trapping instruction's successor never ran");
    assert_eq!(w.csr.trapcause(), 9);
}

#[test]
fn handler_can_return_past_the_faulting_instruction() {
    let src = "umovi u1, 24
        csrw trapbase, u1
        .word 0xffffffff
        umovi u9, 7
        endpgm
        nop
        csrr u2, trappc
        uaddi u2, u2, 4
        jr u2, 0";
    let w = run(src);
    ended(&w);
    assert_eq!(w.u[9], 7);
    assert_eq!(w.csr.trapinfo(), 0xffff_ffff);
}

#[test]
fn csr_reads() {
    let w = run("csrr u1, exec\ncsrr u2, warpid\ncsrr u3, 0x3ff\nendpgm");
    assert_eq!(w.u[1], u32::MAX);
    assert_eq!(
        trap(&w),
        Trap {
            cause: 9,
            pc: 8,
            info: 0x3ff
        }
    );
    let w = run("csrr u1, 4\nendpgm");
    assert_eq!(
        trap(&w),
        Trap {
            cause: 9,
            pc: 0,
            info: 4
        }
    );
}

#[test]
fn writes_to_read_only_and_unknown_csrs_trap() {
    for csr in [
        0x10u32, 0x11, 0x12, 0x13, 0x20, 0x21, 0x22, 0x23, 0x30, 0x31, 0x32, 0x33, 0x34, 0x5, 0x3ff,
    ] {
        for op in ["csrw", "csrs", "csrc"] {
            // u1 = 0: csrs/csrc would not change anything; still illegal.
            let w = run(&format!("{op} {csr}, u1\nendpgm"));
            assert_eq!(
                trap(&w),
                Trap {
                    cause: 9,
                    pc: 0,
                    info: csr
                },
                "{op} {csr:#x}"
            );
        }
    }
}

#[test]
fn fflags_keeps_five_bits() {
    let w = run("umov.l u1, 0xffffffff\ncsrw fflags, u1\ncsrr u2, fflags\numovi u3, 5\ncsrc fflags, u3\ncsrr u4, fflags\numov.l u5, 0x120\ncsrs fflags, u5\ncsrr u6, fflags\nendpgm");
    assert_eq!((w.u[2], w.u[4], w.u[6]), (0x1f, 0x1a, 0x1a));
}

#[test]
fn mode_values() {
    // Legal: every rounding mode 0..4, FTZ bits and trap enables.
    let w = run("umov.l u1, 0x3fc\ncsrw mode, u1\ncsrr u2, mode\numovi u3, 4\ncsrs mode, u3\ncsrr u4, mode\nendpgm");
    ended(&w);
    assert_eq!((w.u[2], w.u[4]), (0x3fc, 0x3fc));
    // All ones: rejected, mode unchanged.
    let w = run("umovi u1, 3\ncsrw mode, u1\numov.l u1, 0xffffffff\ncsrw mode, u1\nendpgm");
    assert_eq!(
        trap(&w),
        Trap {
            cause: 8,
            pc: 16,
            info: u32::MAX
        }
    );
    assert_eq!(w.csr.mode(), 3);
    for (v, legal) in [
        (5u32, false),
        (6, false),
        (7, false),
        (4, true),
        (1 << 10, false),
        (1 << 31, false),
        (0x3e0, true),
    ] {
        let w = run(&format!("umov.l u1, {v}\ncsrw mode, u1\nendpgm"));
        if legal {
            ended(&w);
            assert_eq!(w.csr.mode(), v);
        } else {
            assert_eq!(
                trap(&w),
                Trap {
                    cause: 8,
                    pc: 8,
                    info: v
                },
                "{v:#x}"
            );
            assert_eq!(w.csr.mode(), 0);
        }
    }
    // csrs/csrc: the combined value is checked.
    let w = run("umovi u1, 4\ncsrw mode, u1\numovi u2, 1\ncsrs mode, u2\nendpgm");
    assert_eq!(
        trap(&w),
        Trap {
            cause: 8,
            pc: 12,
            info: 5
        }
    );
    assert_eq!(w.csr.mode(), 4);
    let w = run("umovi u1, 7\ncsrc mode, u1\nendpgm");
    ended(&w);
}

#[test]
fn csrw_exec_sets_exec() {
    let w = run("umovi u1, 0xf0\ncsrw exec, u1\nmov.vl v1, 1\numovi u2, 0x10\ncsrc exec, u2\ncsrr u3, exec\numovi u4, 1\ncsrs exec, u4\nexec.get u5\nendpgm");
    assert_eq!(w.v[1][3], 0);
    assert_eq!(w.v[1][4], 1);
    assert_eq!((w.u[3], w.u[5]), (0xe0, 0xe1));
}

#[test]
fn writable_trap_csrs_and_trapctl() {
    let w = run("umovi u1, 77\ncsrw trapctl, u1\ncsrw trapcause, u1\ncsrw trappc, u1\ncsrw trapinfo, u1\ncsrr u2, trapctl\ncsrr u3, trapinfo\nendpgm");
    ended(&w);
    assert_eq!((w.u[2], w.u[3], w.csr.trappc()), (77, 77, 77));
}

#[test]
fn fetch_outside_the_code() {
    let w = run("jmp 64");
    assert_eq!(
        trap(&w),
        Trap {
            cause: CAUSE_FETCH_FAULT,
            pc: 64,
            info: 64
        }
    );
    // Falling off the end.
    let w = run("nop");
    assert_eq!(
        trap(&w),
        Trap {
            cause: CAUSE_FETCH_FAULT,
            pc: 4,
            info: 4
        }
    );
    // A misaligned handler address.
    let w = run("umovi u1, 6\ncsrw trapbase, u1\n.word 0xffffffff");
    assert_eq!(trap(&w).cause, CAUSE_FETCH_FAULT);
    assert_eq!(trap(&w).pc, 6);
}

#[test]
fn memory_without_memory_is_unsupported() {
    let ins = Instr::from_raw(Op::GloadB32, &[1, 2, 4, 0, 0]).unwrap();
    let w = run_bytes(ins.to_bytes(), u32::MAX);
    assert_eq!(
        trap(&w),
        Trap {
            cause: CAUSE_UNSUPPORTED,
            pc: 0,
            info: ins.encode() as u32
        }
    );
}

#[test]
fn step_limit_stops_a_runaway_loop() {
    let prog = Program::new(asm("top:\njmp top"));
    let mut wg = Workgroup::new([0, 0, 0], &[u32::MAX]);
    let s = wg.run(
        &prog,
        &mut Core::default(),
        &mut NoMemory,
        &mut NoHooks,
        1000,
    );
    assert_eq!(s.step_limited, 1);
    assert!(!s.all_ended());
    assert_eq!(wg.warps[0].status, WarpStatus::StepLimit);
    assert_eq!(wg.warps[0].steps, 1000);
    // A handler that traps forever is stopped the same way.
    let w = run("umovi u1, 8\ncsrw trapbase, u1\n.word 0xffffffff");
    assert_eq!(w.status, WarpStatus::StepLimit);
}

#[test]
fn random_words_never_panic() {
    // A deterministic xorshift stream of words, run as programs.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        let mut bytes = Vec::new();
        for _ in 0..64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            bytes.extend_from_slice(&(x as u32).to_le_bytes());
        }
        let prog = Program::new(bytes);
        let mut wg = Workgroup::new([0, 0, 0], &[x as u32]);
        let mut t = VecTracer::default();
        wg.run(&prog, &mut Core::default(), &mut NoMemory, &mut t, 5000);
        let _ = dump_state_json(&wg.warps, &Core::default());
        for c in &t.commits {
            let _ = c.to_json();
            let _ = c.to_text();
        }
    }
}
