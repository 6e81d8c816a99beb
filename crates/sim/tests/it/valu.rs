//! Hand-computed results for the vector integer families, with edge values.

use crate::common::*;

const MIN: u32 = 0x8000_0000;
const ONES: u32 = u32::MAX;

/// Run `setup` then one binary operation `op vD, v1, v2` with v1 = a, v2 = b in every lane.
fn bin(op: &str, a: u32, b: u32) -> u32 {
    let w = run(&format!(
        "mov.vl v1, {a}\nmov.vl v2, {b}\n{op} v3, v1, v2\nendpgm"
    ));
    ended(&w);
    assert!(w.v[3].iter().all(|&x| x == w.v[3][0]));
    w.v[3][0]
}

fn binu(op: &str, a: u32, b: u32) -> u32 {
    let w = run(&format!(
        "mov.vl v1, {a}\numov.l u2, {b}\n{op} v3, v1, u2\nendpgm"
    ));
    ended(&w);
    w.v[3][5]
}

fn bini(op: &str, a: u32, imm: i32) -> u32 {
    let w = run(&format!("mov.vl v1, {a}\n{op} v3, v1, {imm}\nendpgm"));
    ended(&w);
    w.v[3][7]
}

fn un(op: &str, a: u32) -> u32 {
    let w = run(&format!("mov.vl v1, {a}\n{op} v3, v1\nendpgm"));
    ended(&w);
    w.v[3][31]
}

fn tri(op: &str, a: u32, b: u32, c: u32) -> u32 {
    let w = run(&format!(
        "mov.vl v1, {a}\nmov.vl v2, {b}\nmov.vl v4, {c}\n{op} v3, v1, v2, v4\nendpgm"
    ));
    ended(&w);
    w.v[3][0]
}

#[test]
fn add_sub_wrap() {
    assert_eq!(bin("add", ONES, 1), 0);
    assert_eq!(bin("add", 0x7fff_ffff, 1), MIN);
    assert_eq!(bin("sub", 0, 1), ONES);
    assert_eq!(bin("sub", MIN, 1), 0x7fff_ffff);
    assert_eq!(binu("add.vu", 5, ONES), 4);
    assert_eq!(binu("sub.vu", 5, 6), ONES);
    assert_eq!(bini("add.vi", 5, -6), ONES);
    assert_eq!(bini("add.vi", 0, 127), 127);
    assert_eq!(bini("add.vi", 0, -128), (-128i32) as u32);
    assert_eq!(binu("subr.vu", 5, 3), (-2i32) as u32);
    assert_eq!(bini("subr.vi", 5, -1), (-6i32) as u32);
}

#[test]
fn shifts_use_low_five_bits() {
    assert_eq!(bin("sll", 1, 31), MIN);
    assert_eq!(bin("sll", 1, 32), 1);
    assert_eq!(bin("sll", 3, 33), 6);
    assert_eq!(bin("srl", MIN, 31), 1);
    assert_eq!(bin("srl", MIN, 32), MIN);
    assert_eq!(bin("sra", MIN, 31), ONES);
    assert_eq!(bin("sra", MIN, 32), MIN);
    assert_eq!(bin("sra", 0x4000_0000, 30), 1);
    assert_eq!(binu("sll.vu", 1, 0xffff_ffe1), 2);
    assert_eq!(binu("srl.vu", ONES, 28), 0xf);
    assert_eq!(binu("sra.vu", MIN, 4), 0xf800_0000);
    // sext(-1)[4:0] = 31
    assert_eq!(bini("sll.vi", 1, -1), MIN);
    assert_eq!(bini("srl.vi", MIN, -1), 1);
    assert_eq!(bini("sra.vi", MIN, -1), ONES);
    assert_eq!(bini("sra.vi", MIN, 32 - 64), MIN);
    // reversed forms shift the uniform by the vector
    assert_eq!(binu("sllr.vu", 31, 1), MIN);
    assert_eq!(binu("srlr.vu", 32, MIN), MIN);
    assert_eq!(binu("srar.vu", 31, MIN), ONES);
    assert_eq!(bin("rol", MIN | 1, 1), 3);
    assert_eq!(bin("rol", 0x1234_5678, 32), 0x1234_5678);
    assert_eq!(bin("ror", 3, 1), MIN | 1);
    assert_eq!(bin("ror", 0x1234_5678, 36), 0x8123_4567);
}

#[test]
fn compares_set_signed_unsigned() {
    assert_eq!(bin("slt", MIN, 0), 1);
    assert_eq!(bin("slt", 0, MIN), 0);
    assert_eq!(bin("sltu", MIN, 0), 0);
    assert_eq!(bin("sltu", 0, MIN), 1);
    assert_eq!(bin("slt", ONES, 0), 1);
    assert_eq!(bini("slt.vi", ONES, 0), 1);
    assert_eq!(bini("sltu.vi", 5, -1), 1, "sext(-1) is 0xffffffff unsigned");
    assert_eq!(binu("slt.vu", 0x7fff_ffff, MIN), 0);
    assert_eq!(binu("sltu.vu", 0x7fff_ffff, MIN), 1);
}

#[test]
fn logic() {
    assert_eq!(bin("xor", 0xff00_ff00, ONES), 0x00ff_00ff);
    assert_eq!(bin("or", 0xf0, 0x0f), 0xff);
    assert_eq!(bin("and", 0xf0f0, 0xff00), 0xf000);
    assert_eq!(bin("andn", 0xffff, 0x0ff0), 0xf00f);
    assert_eq!(bin("orn", 0, 0xffff_0000), 0xffff);
    assert_eq!(bin("xnor", 0, 0), ONES);
    assert_eq!(bini("xor.vi", 0, -1), ONES);
    assert_eq!(bini("and.vi", ONES, -128), 0xffff_ff80);
    assert_eq!(bini("or.vi", 0, 5), 5);
    assert_eq!(binu("xor.vu", 1, 3), 2);
    assert_eq!(binu("or.vu", 1, 2), 3);
    assert_eq!(binu("and.vu", 6, 3), 2);
    assert_eq!(binu("andn.vu", 7, 2), 5);
    assert_eq!(binu("orn.vu", 0, ONES), 0);
}

#[test]
fn min_max() {
    assert_eq!(bin("min", MIN, 0x7fff_ffff), MIN);
    assert_eq!(bin("max", MIN, 0x7fff_ffff), 0x7fff_ffff);
    assert_eq!(bin("minu", MIN, 0x7fff_ffff), 0x7fff_ffff);
    assert_eq!(bin("maxu", MIN, 0x7fff_ffff), MIN);
    assert_eq!(bin("min", ONES, 0), ONES);
    assert_eq!(bini("min.vi", 0, -1), ONES);
    assert_eq!(bini("max.vi", MIN, -128), (-128i32) as u32);
    assert_eq!(bini("minu.vi", 5, -1), 5);
    assert_eq!(bini("maxu.vi", 5, -1), ONES);
    assert_eq!(binu("min.vu", 3, ONES), ONES);
    assert_eq!(binu("max.vu", 3, ONES), 3);
    assert_eq!(binu("minu.vu", 3, ONES), 3);
    assert_eq!(binu("maxu.vu", 3, ONES), ONES);
}

#[test]
fn multiplies() {
    assert_eq!(bin("mul", 0x10000, 0x10000), 0);
    assert_eq!(bin("mul", ONES, ONES), 1);
    assert_eq!(bini("mul.vi", 3, -2), (-6i32) as u32);
    assert_eq!(binu("mul.vu", 7, 6), 42);
    assert_eq!(bin("mulh", MIN, MIN), 0x4000_0000);
    assert_eq!(bin("mulh", ONES, ONES), 0);
    assert_eq!(bin("mulh", ONES, 1), ONES);
    assert_eq!(bin("mulhu", ONES, ONES), 0xffff_fffe);
    assert_eq!(
        bin("mulhsu", ONES, ONES),
        ONES,
        "-1 * 0xffffffff = -0xffffffff"
    );
    assert_eq!(bin("mulhsu", MIN, 2), ONES);
    assert_eq!(binu("mulh.vu", MIN, 2), ONES);
    assert_eq!(binu("mulhu.vu", MIN, 2), 1);
}

#[test]
fn mac_reads_its_destination() {
    let w = run("mov.vl v3, 10\nmov.vl v1, 3\nmov.vl v2, 4\nmac v3, v1, v2\nendpgm");
    assert_eq!(w.v[3][0], 22);
    let w = run("mov.vl v3, 10\nmov.vl v1, 3\numov.l u2, 0xffffffff\nmac.vu v3, v1, u2\nendpgm");
    assert_eq!(w.v[3][0], 7);
    // The same register as every operand: d = d + d * d.
    let w = run("mov.vl v3, 3\nmac v3, v3, v3\nendpgm");
    assert_eq!(w.v[3][0], 12);
}

#[test]
fn czero_and_saturation() {
    assert_eq!(bin("czero.eqz", 5, 0), 0);
    assert_eq!(bin("czero.eqz", 5, 1), 5);
    assert_eq!(bin("czero.nez", 5, 0), 5);
    assert_eq!(bin("czero.nez", 5, MIN), 0);
    assert_eq!(bin("addsat.i32", 0x7fff_ffff, 1), 0x7fff_ffff);
    assert_eq!(bin("addsat.i32", MIN, ONES), MIN);
    assert_eq!(bin("addsat.i32", 5, ONES), 4);
    assert_eq!(bin("addsat.u32", ONES, 1), ONES);
    assert_eq!(bin("addsat.u32", 5, 6), 11);
    assert_eq!(bin("subsat.i32", MIN, 1), MIN);
    assert_eq!(bin("subsat.i32", 0x7fff_ffff, ONES), 0x7fff_ffff);
    assert_eq!(bin("subsat.u32", 0, 1), 0);
    assert_eq!(bin("subsat.u32", 7, 5), 2);
}

#[test]
fn bitfield_mask() {
    // width s1[5:0], offset s2[4:0]
    assert_eq!(bin("bfm", 4, 4), 0xf0);
    assert_eq!(bin("bfm", 0, 7), 0);
    assert_eq!(bin("bfm", 32, 0), ONES);
    assert_eq!(bin("bfm", 40, 4), 0xffff_fff0, "width >= 32 is all ones");
    assert_eq!(bin("bfm", 8, 28), 0xf000_0000, "bits past 31 are lost");
    assert_eq!(
        bin("bfm", 64 + 3, 32 + 1),
        0xe,
        "only s1[5:0] and s2[4:0] count"
    );
}

#[test]
fn sixty_four_bit_pairs() {
    let w = run("mov.vl v2, 0xffffffff\nmov.vl v3, 0\nmov.vl v4, 1\nmov.vl v5, 0\nadd64 v[6:7], v[2:3], v[4:5]\nsub64 v[8:9], v[4:5], v[2:3]\nendpgm");
    assert_eq!((w.v[6][0], w.v[7][0]), (0, 1));
    // 1 - 0xffffffff = 0xffffffff_00000002
    assert_eq!((w.v[8][0], w.v[9][0]), (2, ONES));
    let w = run("mov.vl v1, 0xffffffff\nmov.vl v2, 0xffffffff\nmulwu v[4:5], v1, v2\nmulw v[6:7], v1, v2\nendpgm");
    assert_eq!((w.v[4][3], w.v[5][3]), (1, 0xffff_fffe));
    assert_eq!((w.v[6][3], w.v[7][3]), (1, 0));
    let w = run("mov.vl v2, 0x80000000\nmov.vl v3, 0x80000000\nmov.vl v4, 63\nsll64 v[6:7], v[2:3], v4\nsrl64 v[8:9], v[2:3], v4\nsra64 v[10:11], v[2:3], v4\nmov.vl v4, 64\nsra64 v[12:13], v[2:3], v4\nmov.vl v4, 32\nsrl64 v[14:15], v[2:3], v4\nendpgm");
    assert_eq!((w.v[6][0], w.v[7][0]), (0, 0));
    assert_eq!((w.v[8][0], w.v[9][0]), (1, 0));
    assert_eq!((w.v[10][0], w.v[11][0]), (ONES, ONES));
    assert_eq!(
        (w.v[12][0], w.v[13][0]),
        (MIN, MIN),
        "shift by s2[5:0]: 64 -> 0"
    );
    assert_eq!((w.v[14][0], w.v[15][0]), (MIN, 0));
    let w = run("mov.vl v2, 5\nmov.vl v3, 1\nmov.vl v4, 0xfffffffa\naddsx64 v[6:7], v[2:3], v4\naddzx64 v[8:9], v[2:3], v4\numov.l u2, 0xfffffffb\naddzx64.vu v[10:11], v[2:3], u2\naddsx64.vl v[12:13], v[2:3], 0xfffffffa\nendpgm");
    assert_eq!((w.v[6][0], w.v[7][0]), (ONES, 0));
    assert_eq!((w.v[8][0], w.v[9][0]), (0xffff_ffff, 1));
    assert_eq!((w.v[10][0], w.v[11][0]), (0, 2));
    assert_eq!((w.v[12][0], w.v[13][0]), (ONES, 0));
    let w = run("umov.l u4, 0x12345678\numov.l u5, 0x9abcdef0\nmov64.vu v[2:3], u[4:5]\nmov64 v[6:7], v[2:3]\nendpgm");
    assert_eq!((w.v[6][9], w.v[7][9]), (0x1234_5678, 0x9abc_def0));
}

#[test]
fn unary() {
    assert_eq!(un("not", 0), ONES);
    assert_eq!(un("clz", 0), 32);
    assert_eq!(un("clz", 1), 31);
    assert_eq!(un("clz", MIN), 0);
    assert_eq!(un("ctz", 0), 32);
    assert_eq!(un("ctz", MIN), 31);
    assert_eq!(un("cpop", ONES), 32);
    assert_eq!(un("brev", 1), MIN);
    assert_eq!(un("rev8", 0x1122_3344), 0x4433_2211);
    assert_eq!(un("sext.b", 0x80), 0xffff_ff80);
    assert_eq!(un("sext.b", 0x17f), 0x7f);
    assert_eq!(un("sext.h", 0x8000), 0xffff_8000);
    assert_eq!(un("zext.b", ONES), 0xff);
    assert_eq!(un("zext.h", ONES), 0xffff);
    assert_eq!(un("neg", MIN), MIN);
    assert_eq!(un("neg", 1), ONES);
    assert_eq!(un("abs", MIN), MIN, "INT_MIN wraps to itself");
    assert_eq!(un("abs", ONES), 1);
    assert_eq!(un("mov", 42), 42);
    let w = run("movi v1, -131072\nmovi v2, 131071\nlaneid v3\numov.l u1, 0xdeadbeef\nmov.vu v4, u1\nendpgm");
    assert_eq!(w.v[1][0], (-131072i32) as u32);
    assert_eq!(w.v[2][0], 131071);
    assert_eq!(w.v[3].to_vec(), (0..32).collect::<Vec<u32>>());
    assert_eq!(w.v[4][17], 0xdead_beef);
}

#[test]
fn x_format() {
    assert_eq!(tri("sel", 1, 2, 0), 2);
    assert_eq!(tri("sel", 1, 2, MIN), 1);
    // bfe.u32: (s1 >> s2[4:0]) & mask(s3[5:0])
    assert_eq!(tri("bfe.u32", 0xabcd_1234, 8, 8), 0x12);
    assert_eq!(tri("bfe.u32", 0xabcd_1234, 8, 0), 0);
    assert_eq!(tri("bfe.u32", 0xabcd_1234, 8, 32), 0x00ab_cd12);
    assert_eq!(tri("bfe.u32", 0xabcd_1234, 40, 63), 0x00ab_cd12);
    assert_eq!(tri("bfe.i32", 0x0000_8000, 8, 8), 0xffff_ff80);
    assert_eq!(tri("bfe.i32", 0x0000_7f00, 8, 8), 0x7f);
    assert_eq!(tri("bfe.i32", MIN, 31, 1), ONES);
    assert_eq!(tri("bfe.i32", MIN, 31, 2), 1, "bits above 31 read 0");
    assert_eq!(tri("bfe.i32", MIN, 0, 32), MIN);
    assert_eq!(tri("bfe.i32", MIN, 4, 40), 0x0800_0000);
    assert_eq!(tri("bfe.i32", ONES, 0, 0), 0);
    assert_eq!(
        tri("bfi", 0x0000_ff00, 0x1234_5678, 0xaaaa_aaaa),
        0xaaaa_56aa
    );
    assert_eq!(
        tri("perm.b32", 0x1122_3344, 0x5566_7788, 0x0004_0703),
        0x8844_1155
    );
    assert_eq!(
        tri("perm.b32", 0x1122_3344, 0x5566_7788, 0x0c0d_0e08),
        0x00ff_0000
    );
    assert_eq!(tri("mad.u32", ONES, 2, 3), 1);
    assert_eq!(tri("alignbit", 0x1122_3344, 0x5566_7788, 8), 0x4455_6677);
    assert_eq!(tri("alignbit", 0x1122_3344, 0x5566_7788, 0), 0x5566_7788);
    assert_eq!(
        tri("alignbit", 0x1122_3344, 0x5566_7788, 32 + 4),
        0x4556_6778
    );
    assert_eq!(tri("med3.i32", MIN, 5, ONES), ONES);
    assert_eq!(tri("med3.u32", MIN, 5, ONES), MIN);
    assert_eq!(tri("med3.i32", 3, 3, 1), 3);
    assert_eq!(
        tri("dp4a.i32", 0x80ff_0102, 0x80ff_0304, 10),
        10 + 16384 + 1 + 3 + 8
    );
    assert_eq!(tri("dp4a.u32", 0xff00_0000, 0xff00_0000, 1), 1 + 255 * 255);
    assert_eq!(
        tri("dp4a.i32", 0x8080_8080, 0x8080_8080, 0x7fff_ffff),
        0x7fff_ffffu32.wrapping_add(65536)
    );
}

#[test]
fn x_format_pairs() {
    let w = run("mov.vl v1, 0xffffffff\nmov.vl v2, 0xffffffff\nmov.vl v4, 1\nmov.vl v5, 0\nmad64.u32 v[6:7], v1, v2, v[4:5]\nmad64.i32 v[8:9], v1, v2, v[4:5]\nendpgm");
    assert_eq!((w.v[6][0], w.v[7][0]), (2, 0xffff_fffe));
    assert_eq!((w.v[8][0], w.v[9][0]), (2, 0));
    let w = run("mov.vl v2, 1\nmov.vl v3, 2\nmov.vl v4, 3\nmov.vl v5, 4\nlaneid v1\nand.vi v1, v1, 1\nsel64 v[6:7], v[2:3], v[4:5], v1\nendpgm");
    assert_eq!((w.v[6][0], w.v[7][0]), (3, 4));
    assert_eq!((w.v[6][1], w.v[7][1]), (1, 2));
}

#[test]
fn literals() {
    let w = run("mov.vl v1, 0x80000000\nadd.vl v2, v1, 0x80000001\nsubr.vl v3, v1, 0\nand.vl v4, v1, 0xc0000000\nor.vl v5, v1, 1\nxor.vl v6, v1, 0xffffffff\nmul.vl v7, v1, 3\nendpgm");
    assert_eq!(w.v[2][0], 1);
    assert_eq!(w.v[3][0], MIN);
    assert_eq!(w.v[4][0], MIN);
    assert_eq!(w.v[5][0], MIN | 1);
    assert_eq!(w.v[6][0], 0x7fff_ffff);
    assert_eq!(w.v[7][0], MIN);
}

#[test]
fn exec_gates_vector_writes() {
    let w = run_exec("mov.vl v1, 7\nendpgm", 0x0000_00f0);
    assert_eq!(w.v[1][3], 0);
    assert_eq!(w.v[1][4], 7);
    assert_eq!(w.v[1][8], 0);
    // 64-bit results too, both halves.
    let w = run_exec(
        "mov.vl v2, 1\nmov.vl v3, 1\nadd64 v[4:5], v[2:3], v[2:3]\nendpgm",
        1,
    );
    assert_eq!((w.v[4][0], w.v[5][0], w.v[4][1], w.v[5][1]), (2, 2, 0, 0));
}

#[test]
fn mbcnt_counts_lower_lanes() {
    let w = run("umov.l u1, 0xffffffff\nmov.vl v1, 100\nmbcnt v2, v1, u1\numov.l u2, 0xaaaaaaaa\nmbcnt v3, v1, u2\nendpgm");
    for l in 0..32u32 {
        assert_eq!(w.v[2][l as usize], 100 + l);
        assert_eq!(w.v[3][l as usize], 100 + l / 2);
    }
}

#[test]
fn cndmask_keeps_unselected_lanes() {
    let w = run("mov.vl v3, 9\nmov.vl v1, 5\numov.l u1, 0x0000000f\ncndmask v3, v1, u1\nendpgm");
    assert_eq!(w.v[3][0], 5);
    assert_eq!(w.v[3][3], 5);
    assert_eq!(w.v[3][4], 9);
    // EXEC still gates: lanes outside EXEC keep their value even when selected.
    let w = run_exec(
        "mov.vl v1, 5\numov.l u1, 0xffffffff\ncndmask v3, v1, u1\nendpgm",
        2,
    );
    assert_eq!((w.v[3][0], w.v[3][1]), (0, 5));
}

#[test]
fn movrel_indexes_register_numbers() {
    let w = run("mov.vl v10, 77\numovi u1, 7\nmovrel.s v2, v3, u1\nendpgm");
    assert_eq!(w.v[2][0], 77);
    let w = run("mov.vl v1, 55\numovi u1, 20\nmovrel.d v100, v1, u1\nendpgm");
    assert_eq!(w.v[120][0], 55);
    // Beyond v127: reads 0, writes dropped, no trap.
    let w = run("mov.vl v2, 9\numovi u1, 28\nmovrel.s v2, v100, u1\nendpgm");
    ended(&w);
    assert_eq!(w.v[2][0], 0);
    let w = run(
        "mov.vl v1, 9\numov.l u1, 0xffffffff\nmovrel.d v127, v1, u1\nmovrel.s v3, v127, u1\nendpgm",
    );
    ended(&w);
    assert!(w.v.iter().skip(2).all(|r| r.iter().all(|&x| x == 0)));
}
