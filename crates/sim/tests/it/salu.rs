//! Hand-computed results for the uniform (SALU) families and the literal forms.

use crate::common::*;

const MIN: u32 = 0x8000_0000;
const ONES: u32 = u32::MAX;

fn ur(op: &str, a: u32, b: u32) -> u32 {
    let w = run(&format!(
        "umov.l u1, {a}\numov.l u2, {b}\n{op} u3, u1, u2\nendpgm"
    ));
    ended(&w);
    w.u[3]
}

fn ui(op: &str, a: u32, imm: i32) -> u32 {
    let w = run(&format!("umov.l u1, {a}\n{op} u3, u1, {imm}\nendpgm"));
    ended(&w);
    w.u[3]
}

fn ul(op: &str, a: u32, k: u32) -> u32 {
    let w = run(&format!("umov.l u1, {a}\n{op} u3, u1, {k}\nendpgm"));
    ended(&w);
    w.u[3]
}

fn u1(op: &str, a: u32) -> u32 {
    let w = run(&format!("umov.l u1, {a}\n{op} u3, u1\nendpgm"));
    ended(&w);
    w.u[3]
}

#[test]
fn arithmetic_and_logic() {
    assert_eq!(ur("uadd", ONES, 1), 0);
    assert_eq!(ur("usub", 0, 1), ONES);
    assert_eq!(ur("uxor", 0xf0f0, 0xffff), 0x0f0f);
    assert_eq!(ur("uor", 1, 2), 3);
    assert_eq!(ur("uand", 3, 6), 2);
    assert_eq!(ur("uandn", 7, 2), 5);
    assert_eq!(ur("uorn", 0, 0xffff_fff0), 0xf);
    assert_eq!(ur("uxnor", 0, ONES), 0);
    assert_eq!(ur("umin", MIN, 1), MIN);
    assert_eq!(ur("umax", MIN, 1), 1);
    assert_eq!(ur("uminu", MIN, 1), 1);
    assert_eq!(ur("umaxu", MIN, 1), MIN);
    assert_eq!(ur("umul", ONES, ONES), 1);
    assert_eq!(ur("umulh", MIN, MIN), 0x4000_0000);
    assert_eq!(ur("umulhu", ONES, ONES), 0xffff_fffe);
    assert_eq!(ur("umulhsu", ONES, ONES), ONES);
    assert_eq!(ur("uczero.eqz", 5, 0), 0);
    assert_eq!(ur("uczero.eqz", 5, 9), 5);
    assert_eq!(ur("uczero.nez", 5, 9), 0);
    assert_eq!(ur("uczero.nez", 5, 0), 5);
}

#[test]
fn shifts_and_rotates() {
    assert_eq!(ur("usll", 1, 31), MIN);
    assert_eq!(ur("usll", 1, 32), 1);
    assert_eq!(ur("usrl", MIN, 31), 1);
    assert_eq!(ur("usrl", MIN, 32), MIN);
    assert_eq!(ur("usra", MIN, 31), ONES);
    assert_eq!(ur("usra", MIN, 32), MIN);
    assert_eq!(ur("urol", MIN, 1), 1);
    assert_eq!(ur("uror", 1, 33), MIN);
    assert_eq!(ui("uslli", 1, 31), MIN);
    assert_eq!(ui("uslli", 1, -1), MIN, "imm[4:0] of -1 is 31");
    assert_eq!(ui("usrli", MIN, 31), 1);
    assert_eq!(ui("usrai", MIN, 31), ONES);
    assert_eq!(ui("usrai", MIN, 32), MIN);
}

#[test]
fn set_compares() {
    assert_eq!(ur("uslt", MIN, 0), 1);
    assert_eq!(ur("usltu", MIN, 0), 0);
    assert_eq!(ur("useq", 5, 5), 1);
    assert_eq!(ur("usne", 5, 5), 0);
    assert_eq!(ur("usge", 0, MIN), 1);
    assert_eq!(ur("usge", MIN, MIN), 1);
    assert_eq!(ur("usgeu", 0, MIN), 0);
    assert_eq!(ui("uslti", ONES, 0), 1);
    assert_eq!(ui("uslti", 0, -1), 0);
    assert_eq!(ui("usltiu", 5, -1), 1);
    assert_eq!(ui("usltiu", ONES, -1), 0);
    assert_eq!(ui("useqi", ONES, -1), 1);
    assert_eq!(ui("usnei", ONES, -1), 0);
    assert_eq!(ul("useq.l", MIN, MIN), 1);
    assert_eq!(ul("uslt.l", MIN, 0), 1);
    assert_eq!(ul("usltu.l", MIN, 0), 0);
}

#[test]
fn immediates() {
    assert_eq!(ui("uaddi", 0, -512), (-512i32) as u32);
    assert_eq!(ui("uaddi", ONES, 511), 510);
    assert_eq!(ui("uandi", ONES, -256), 0xffff_ff00);
    assert_eq!(ui("uori", 0, -1), ONES);
    assert_eq!(ui("uxori", 0xff, -1), 0xffff_ff00);
    assert_eq!(ui("umuli", 7, -3), (-21i32) as u32);
    assert_eq!(ul("uadd.l", 1, ONES), 0);
    assert_eq!(ul("uand.l", ONES, 0xf0f0_f0f0), 0xf0f0_f0f0);
    assert_eq!(ul("uor.l", 1, MIN), MIN | 1);
    assert_eq!(ul("uxor.l", ONES, MIN), 0x7fff_ffff);
    assert_eq!(ul("umul.l", 0x10000, 0x10000), 0);
    let w = run("umovi u1, -65536\numovi u2, 65535\numov.l u3, 0xdeadbeef\nendpgm");
    assert_eq!(
        (w.u[1], w.u[2], w.u[3]),
        ((-65536i32) as u32, 65535, 0xdead_beef)
    );
}

#[test]
fn bitfields() {
    assert_eq!(ur("ubfm", 4, 8), 0xf00);
    assert_eq!(ur("ubfm", 0, 8), 0);
    assert_eq!(ur("ubfm", 32, 0), ONES);
    assert_eq!(ur("ubfm", 63, 31), MIN);
    // ubfe: u2[4:0] offset, u2[21:16] width
    assert_eq!(ur("ubfe.u32", 0xabcd_1234, (8 << 16) | 4), 0x23);
    assert_eq!(ur("ubfe.u32", 0xabcd_1234, 4), 0, "width 0");
    assert_eq!(ur("ubfe.u32", 0xabcd_1234, (32 << 16) | 16), 0xabcd);
    assert_eq!(ur("ubfe.i32", 0xabcd_1234, (8 << 16) | 24), 0xffff_ffab);
    assert_eq!(ur("ubfe.i32", 0xabcd_1234, (4 << 16) | 4), 3);
    assert_eq!(
        ur("ubfe.i32", MIN, (2 << 16) | 31),
        1,
        "bits above 31 read 0"
    );
    assert_eq!(ur("ubfe.i32", MIN, (1 << 16) | 31), ONES);
    assert_eq!(ur("ubfe.i32", MIN, 32 << 16), MIN);
    assert_eq!(
        ur("ubfe.i32", ONES, (63 << 16) | 0xffe0),
        ONES,
        "only u2[4:0], u2[21:16] count"
    );
}

#[test]
fn unary() {
    assert_eq!(u1("umov", 7), 7);
    assert_eq!(u1("unot", 0), ONES);
    assert_eq!(u1("uclz", 0), 32);
    assert_eq!(u1("uclz", ONES), 0);
    assert_eq!(u1("uctz", 0), 32);
    assert_eq!(u1("uctz", MIN), 31);
    assert_eq!(u1("ucpop", 0xf0f0), 8);
    assert_eq!(u1("ubrev", 3), 0xc000_0000);
    assert_eq!(u1("usext.b", 0xff), ONES);
    assert_eq!(u1("usext.b", 0x7f), 0x7f);
    assert_eq!(u1("usext.h", 0x1_8000), 0xffff_8000);
    assert_eq!(u1("uwqm", 0), 0);
    assert_eq!(u1("uwqm", 0x8000_0001), 0xf000_000f);
    assert_eq!(u1("uwqm", 0x0102_4010), 0x0f0f_f0f0);
}

#[test]
fn sixty_four_bit() {
    let w = run("umov.l u2, 0xffffffff\numov.l u3, 0\numovi u4, 1\numovi u5, 0\nuadd64 u[6:7], u[2:3], u[4:5]\nusub64 u[8:9], u[4:5], u[2:3]\numov.l u10, 0xfffffffe\nuaddsx64 u[12:13], u[4:5], u10\nuaddzx64 u[14:15], u[4:5], u10\nuadd64i u[16:17], u[4:5], -2\nuadd64.l u[18:19], u[2:3], 0x80000000\numov64 u[20:21], u[6:7]\nendpgm");
    assert_eq!((w.u[6], w.u[7]), (0, 1));
    assert_eq!((w.u[8], w.u[9]), (2, ONES));
    assert_eq!((w.u[12], w.u[13]), (ONES, ONES));
    assert_eq!((w.u[14], w.u[15]), (ONES, 0));
    assert_eq!((w.u[16], w.u[17]), (ONES, ONES));
    assert_eq!((w.u[18], w.u[19]), (0x7fff_ffff, 0));
    assert_eq!((w.u[20], w.u[21]), (0, 1));
}

#[test]
fn pc_relative() {
    // upc at PC 8: U[d] = 8 + imm
    let w = run("nop\nnop\nupc u1, 16\nupc u2, -8\nendpgm");
    assert_eq!(w.u[1], 24);
    assert_eq!(w.u[2], 12 - 8);
    // upca with CODE_BASE = 0 here: the 64-bit code offset, negative wrapping to the top.
    let w = run("upca u[2:3], -4\nendpgm");
    assert_eq!((w.u[2], w.u[3]), (ONES - 3, ONES));
}

#[test]
fn upca_adds_code_base() {
    let prog = warpkit_sim::Program::new(asm("nop\nupca u[2:3], 16\nendpgm"));
    let mut w = warpkit_sim::Warp::new(Default::default(), ONES);
    w.csr.set(warpkit_sim::csr::num::CODE_LO, 0xffff_fff0);
    w.csr.set(warpkit_sim::csr::num::CODE_HI, 0x10);
    let mut core = warpkit_sim::Core::default();
    w.run(
        &prog,
        &mut core,
        &mut warpkit_sim::NoMemory,
        &mut warpkit_sim::NoHooks,
        100,
    );
    assert_eq!((w.u[2], w.u[3]), (4, 0x11));
}
