//! EXEC, compares, the §3.2 idioms, branches and jumps.

use crate::common::*;

#[test]
fn compares_hold_only_exec_lanes() {
    let src = "laneid v0\nmov.vl v1, 0x80000000\ncmp.lt.i32.vi u1, v0, 4\ncmp.lt.i32 u2, v1, v0\ncmp.lt.u32 u3, v1, v0\ncmp.ge.u32 u4, v1, v0\ncmp.eq.i32 u5, v0, v0\ncmp.ne.i32 u6, v0, v0\ncmp.ge.i32 u7, v1, v0\nendpgm";
    let w = run(src);
    assert_eq!(w.u[1], 0xf);
    assert_eq!(w.u[2], u32::MAX, "INT_MIN < every lane id, signed");
    assert_eq!(w.u[3], 0, "0x80000000 > every lane id, unsigned");
    assert_eq!(w.u[4], u32::MAX);
    assert_eq!(w.u[5], u32::MAX);
    assert_eq!(w.u[6], 0);
    assert_eq!(w.u[7], 0);
    let w = run_exec(src, 0x0000_ff0f);
    assert_eq!(w.u[1], 0xf);
    assert_eq!(w.u[2], 0x0000_ff0f);
    assert_eq!(w.u[5], 0x0000_ff0f);
}

#[test]
fn compare_variants() {
    let w = run("laneid v0\numovi u1, 3\ncmp.eq.i32.vu u2, v0, u1\ncmp.ne.i32.vu u3, v0, u1\ncmp.lt.i32.vu u4, v0, u1\ncmp.ge.i32.vu u5, v0, u1\numovi u1, -1\ncmp.lt.u32.vu u6, v0, u1\ncmp.ge.u32.vu u7, v0, u1\ncmp.lt.i32.vu u8, v0, u1\nendpgm");
    assert_eq!(w.u[2], 1 << 3);
    assert_eq!(w.u[3], !(1u32 << 3));
    assert_eq!(w.u[4], 0b111);
    assert_eq!(w.u[5], !0b111u32);
    assert_eq!(w.u[6], u32::MAX);
    assert_eq!(w.u[7], 0);
    assert_eq!(w.u[8], 0);
    let w = run("laneid v0\ncmp.eq.i32.vi u1, v0, 31\ncmp.ne.i32.vi u2, v0, 0\ncmp.ge.i32.vi u3, v0, 30\ncmp.lt.u32.vi u4, v0, -1\ncmp.ge.u32.vi u5, v0, -1\ncmp.gt.i32.vi u6, v0, 29\ncmp.gt.u32.vi u7, v0, -128\ncmp.gt.i32.vi u8, v0, -128\nendpgm");
    assert_eq!(w.u[1], 1 << 31);
    assert_eq!(w.u[2], !1u32);
    assert_eq!(w.u[3], 0xc000_0000);
    assert_eq!(w.u[4], u32::MAX);
    assert_eq!(w.u[5], 0);
    assert_eq!(w.u[6], 0xc000_0000);
    assert_eq!(w.u[7], 0);
    assert_eq!(w.u[8], u32::MAX);
}

#[test]
fn compares_64() {
    // v[2:3] = lane - 16 as i64 (sign in the high word); v[4:5] = 0
    let w = run("laneid v0\nadd.vi v2, v0, -16\nsra.vi v3, v2, 31\ncmp.lt.i64 u1, v[2:3], v[4:5]\ncmp.lt.u64 u2, v[2:3], v[4:5]\ncmp.ge.u64 u3, v[2:3], v[4:5]\ncmp.ge.i64 u4, v[2:3], v[4:5]\ncmp.eq.i64 u5, v[2:3], v[4:5]\ncmp.ne.i64 u6, v[2:3], v[4:5]\nendpgm");
    assert_eq!(w.u[1], 0xffff);
    assert_eq!(w.u[2], 0);
    assert_eq!(w.u[3], u32::MAX);
    assert_eq!(w.u[4], 0xffff_0000);
    assert_eq!(w.u[5], 1 << 16);
    assert_eq!(w.u[6], !(1u32 << 16));
}

#[test]
fn if_else_idiom() {
    // §3.2: saveexec.and saves, saveexec.andn1 gives the else mask, exec.set restores.
    let w = run_exec(
        "laneid v0
        cmp.lt.u32.vi u1, v0, 8
        saveexec.and u2, u1
        mov.vl v1, 1
        saveexec.andn1 u3, u2
        mov.vl v1, 2
        exec.set u2
        add.vi v1, v1, 10
        endpgm",
        0x00ff_00ff,
    );
    ended(&w);
    for l in 0..32 {
        let expect = if (0x00ff_00ffu32 >> l) & 1 == 0 {
            0
        } else if l < 8 {
            11
        } else {
            12
        };
        assert_eq!(w.v[1][l], expect, "lane {l}");
    }
    assert_eq!(w.exec(), 0x00ff_00ff);
    assert_eq!(w.u[2], 0x00ff_00ff);
    assert_eq!(w.u[3], 0x0000_00ff);
}

#[test]
fn loop_idiom() {
    // Each lane counts up to its lane id; the loop continues while any lane has work.
    let w = run("laneid v0
        movi v1, 0
        exec.get u10
    top:
        cmp.ge.u32 u1, v1, v0
        saveexec.andn2 u2, u1
        bexecz done
        add.vi v1, v1, 1
        jmp top
    done:
        exec.set u10
        endpgm");
    ended(&w);
    assert_eq!(w.v[1].to_vec(), (0..32).collect::<Vec<u32>>());
    assert_eq!(w.exec(), u32::MAX);
}

#[test]
fn loop_idiom_bexecnz() {
    // Per-lane trip counts; bexecnz jumps back while lanes remain.
    let w = run("laneid v0
        movi v1, 0
        exec.get u10
    body:
        add.vi v1, v1, 2
        add.vi v0, v0, -1
        cmp.lt.i32.vi u1, v0, 0
        saveexec.andn2 u2, u1
        bexecnz body
        exec.set u10
        endpgm");
    ended(&w);
    for l in 0..32u32 {
        assert_eq!(w.v[1][l as usize], 2 * (l + 1));
    }
}

#[test]
fn saveexec_variants_read_source_first() {
    let cases = [
        ("saveexec.and", 0xff00_ff00 & 0x0ff0_0ff0u32),
        ("saveexec.or", 0xff00_ff00 | 0x0ff0_0ff0),
        ("saveexec.xor", 0xff00_ff00 ^ 0x0ff0_0ff0),
        ("saveexec.andn1", 0x0ff0_0ff0 & !0xff00_ff00u32),
        ("saveexec.andn2", 0xff00_ff00 & !0x0ff0_0ff0u32),
        ("saveexec.mov", 0x0ff0_0ff0),
    ];
    for (op, exec) in cases {
        let w = run_exec(
            &format!("umov.l u1, 0x0ff00ff0\n{op} u2, u1\nendpgm"),
            0xff00_ff00,
        );
        assert_eq!((w.u[2], w.exec()), (0xff00_ff00, exec), "{op}");
        // rd = rs1: the condition is read before the old EXEC is written.
        let w = run_exec(
            &format!("umov.l u1, 0x0ff00ff0\n{op} u1, u1\nendpgm"),
            0xff00_ff00,
        );
        assert_eq!((w.u[1], w.exec()), (0xff00_ff00, exec), "{op} u1, u1");
    }
    let w = run_exec(
        "exec.wqm u1\nexec.get u2\numov.l u3, 0\nexec.set u3\nexec.get u4\nendpgm",
        0x0100_0010,
    );
    assert_eq!((w.u[1], w.u[2], w.u[4]), (0x0100_0010, 0x0f00_00f0, 0));
}

#[test]
fn exec_zero_writes_nothing() {
    let w = run_exec("mov.vl v1, 5\nlaneid v2\ncmp.eq.i32 u1, v2, v2\nendpgm", 0);
    ended(&w);
    assert_eq!(w.v[1], [0; 32]);
    assert_eq!(w.u[1], 0);
}

#[test]
fn conditional_branches() {
    let body = |br: &str, setup: &str| {
        let w = run_exec(
            &format!("{setup}\n{br}skip\numovi u20, 1\nskip:\nendpgm"),
            0x0000_00f0,
        );
        ended(&w);
        w.u[20] == 0
    };
    assert!(body("bz u1, ", "umovi u1, 0"));
    assert!(!body("bz u1, ", "umovi u1, 1"));
    assert!(body("bnz u1, ", "umovi u1, 1"));
    assert!(!body("bnz u1, ", "umovi u1, 0"));
    assert!(
        body("bnone u1, ", "umovi u1, 15"),
        "no EXEC lane in the mask"
    );
    assert!(!body("bnone u1, ", "umovi u1, 16"));
    assert!(body("bany u1, ", "umovi u1, 16"));
    assert!(!body("bany u1, ", "umovi u1, 15"));
    assert!(!body("bexecz ", "nop"));
    assert!(body("bexecnz ", "nop"));
    assert!(body("jmp ", "nop"));
    assert!(body("bexecz ", "umovi u2, 0\nexec.set u2"));
}

#[test]
fn branch_offsets_are_relative_to_the_branch() {
    // A 64-bit instruction before the branch: the target is counted from the branch itself.
    let w = run("umov.l u1, 0\nbz u1, 12\numovi u2, 1\numovi u3, 1\numovi u4, 1\nendpgm");
    ended(&w);
    assert_eq!((w.u[2], w.u[3], w.u[4]), (0, 0, 1));
    // Backwards: jmp -4 onto a bz that leaves.
    let w = run("umovi u1, 3\ntop:\nuaddi u1, u1, -1\nbz u1, 8\njmp top\nendpgm");
    ended(&w);
    assert_eq!(w.u[1], 0);
}

#[test]
fn calls_and_returns() {
    let w = run("jal u30, func
        umovi u2, 2
        jal u30, func
        endpgm
    func:
        uaddi u1, u1, 10
        jr u30, 0");
    ended(&w);
    assert_eq!(w.u[1], 20);
    assert_eq!(w.u[2], 2);
    assert_eq!(w.u[30], 12, "link = address after the second jal");
    // jalr reads its source before writing the link, and masks the target's low bits.
    let w = run("umovi u5, 19\njalr u5, u5, -4\numovi u6, 1\nendpgm\nendpgm\numovi u7, 1\nendpgm");
    ended(&w);
    // target = (19 - 4) & ~3 = 12 -> endpgm at 12
    assert_eq!((w.u[5], w.u[6], w.u[7]), (8, 0, 0));
    assert_eq!(w.pc, 12);
    let w = run("umovi u5, 21\njalr u6, u5, 0\nendpgm\nendpgm\nendpgm\numovi u7, 7\nendpgm");
    assert_eq!((w.u[6], w.u[7]), (8, 7));
}

#[test]
fn endpgm_pc_and_clock() {
    let w = run("nop\nnop\ncsrr u1, clock\ncsrr u2, time\ncsrr u3, clockh\nendpgm");
    ended(&w);
    assert_eq!(w.pc, 20, "the PC of the endpgm");
    assert_eq!((w.u[1], w.u[2], w.u[3]), (2, 3, 0));
    assert_eq!(w.retired, 6);
}
