//! Every static and run-time E-code, and every provisional ([P]) choice of the model, with a
//! program that shows it.

use warpkit_linx::{check, run, Mode, RunConfig, RunResult, BODY_BASE};

/// A program around `body` with `n` iterations in `mode`, G = 4, a0 = 0x1000.
fn prog(mode: &str, n: u32, body: &str) -> String {
    format!(
        ".lanenum 4\n.gpr a0, 0x1000\nBSTART.{mode}\nB.DIM zero, {n}, ->LB0\nB.TEXT .body\nBSTOP\n.body:\n{body}\n"
    )
}

fn static_codes(src: &str) -> Vec<&'static str> {
    match check("t.s", src) {
        Ok(p) => p.warnings.codes(),
        Err(d) => d.codes(),
    }
}

fn assert_static(body: &str, code: &str) {
    let src = prog("SIMT", 4, body);
    let codes = static_codes(&src);
    assert!(
        codes.contains(&code),
        "expected {code} for\n{body}\ngot {codes:?}"
    );
    if code.starts_with("E-") {
        assert!(check("t.s", &src).is_err());
    }
}

fn exec(src: &str) -> RunResult {
    let p = check("t.s", src).unwrap_or_else(|d| panic!("{}", d.render(src)));
    run(&p, RunConfig::default())
}

fn run_code(mode: &str, n: u32, body: &str) -> &'static str {
    let r = exec(&prog(mode, n, body));
    r.error.map(|e| e.code).unwrap_or("ok")
}

fn mem_u64(r: &RunResult, addr: u64) -> u64 {
    let mut v = 0u64;
    for i in 0..8 {
        let a = addr + i;
        let b = r
            .memory
            .iter()
            .find(|(s, b)| a >= *s && a < s + b.len() as u64)
            .map_or(0, |(s, b)| b[(a - s) as usize]);
        v |= (b as u64) << (8 * i);
    }
    v
}

// ---- static codes ------------------------------------------------------------------------

#[test]
fn syntax_and_header_codes() {
    assert_static("  add t#1.uw, ->t.w\n  lbstop", "E-OPERAND");
    assert_static("  frob t#1.uw, t#1.uw, ->t.w\n  lbstop", "E-MNEM");
    assert_static("  ADD t#1.uw, t#1.uw, ->t.w\n  lbstop", "E-MNEM");
    assert_static("  add q#1.uw, t#1.uw, ->t.w\n  lbstop", "E-REG");
    assert_static("  add t#1.zz, t#1.uw, ->t.w\n  lbstop", "E-SYNTAX");
    assert_static("  j nowhere\n  lbstop", "E-LABEL");
    assert_static("x:\nx:\n  lbstop", "E-LABEL");
    assert_static("  addi lc0.ud, 0x1000000, ->t.d\n  lbstop", "E-IMM");
    assert_static("  slli lc0.uw, 32, ->t.w\n  lbstop", "E-IMM");
    assert_static("  ld [a0.ud, lc0.ud<<4], ->t.d\n  lbstop", "E-IMM");
    assert_static("  jr a0.ud, 12\n  lbstop", "E-IMM");
    assert!(static_codes("BSTART.SIMT\nB.TEXT .b\n").contains(&"E-HEADER"));
    assert!(
        static_codes(".lanenum 65\nBSTART.SIMT\nB.TEXT .b\nBSTOP\n.b:\nlbstop\n")
            .contains(&"E-DIRECTIVE")
    );
    assert!(
        static_codes(".frob 1\nBSTART.SIMT\nB.TEXT .b\nBSTOP\n.b:\nlbstop\n")
            .contains(&"E-DIRECTIVE")
    );
    assert!(static_codes("BSTART.FAST\nB.TEXT .b\nBSTOP\n.b:\nlbstop\n").contains(&"E-HEADER"));
    assert!(static_codes("BSTART.SIMT\nB.TEXT .nope\nBSTOP\n.b:\nlbstop\n").contains(&"E-LABEL"));
    assert!(
        static_codes("BSTART.SIMT\nB.FOO\nB.TEXT .b\nBSTOP\n.b:\nlbstop\n").contains(&"E-MNEM")
    );
    assert!(static_codes("lbstop\n").contains(&"E-HEADER"));
    assert!(static_codes("BSTART.SIMT\nB.TEXT .b\nBSTOP\n.b:\n/* open\n").contains(&"E-SYNTAX"));
}

#[test]
fn typing_codes() {
    // Rule 1: float suffix on an integer op, bare width on an ALU input.
    assert_static("  add t#1.fs, t#2.fs, ->t.w\n  lbstop", "E-CLASS");
    assert_static("  add lc0.w, lc0.w, ->t.w\n  lbstop", "E-CLASS");
    // Rule 2.
    assert_static("  add lc0.uw, lc0.ud, ->t.d\n  lbstop", "E-WMIX");
    assert_static("  add lc0.sw, lc0.uw, ->t.w\n  lbstop", "E-SMIX");
    // Rule 3 [P]: narrower output is an error.
    assert_static("  add lc0.ud, lc0.ud, ->t.w\n  lbstop", "E-ONARROW");
    // Rule 4.
    assert_static("  ld [a0.uw, lc0.ud], ->t.d\n  lbstop", "E-BASEW");
    assert_static("  lw [a0.ud, lc0.ud], ->t.d\n  lbstop", "E-LDW");
    assert_static("  sw lc0.ud, [a0.ud, lc0.ud]\n  lbstop", "E-STW");
    assert_static("  sw.add [a0.ud], lc0.ud\n  lbstop", "E-STW");
    // t#0 / t#9.
    assert_static("  add t#0.ud, lc0.ud, ->t.d\n  lbstop", "E-QIDX");
    assert_static("  add t#9.ud, lc0.ud, ->t.d\n  lbstop", "E-QIDX");
    // fp8 [P].
    assert_static("  add t#1.fb, t#1.fb, ->t.b\n  lbstop", "E-UNSUP");
    assert_static("  icvt t#1.flb, ->t.sw\n  lbstop", "E-UNSUP");
    // Outside the model (SPEC §4): paired destinations, SSR accesses, bit manipulation.
    assert_static("  add lc0.ud, lc0.ud, ->tx2.d\n  lbstop", "E-UNSUP");
    assert_static("  ssrget 0x20, ->t.d\n  lbstop", "E-UNSUP");
    assert_static("  clz lc0.ud, 0, 64, ->t.d\n  lbstop", "E-UNSUP");
    // Rule 7: untyped operands warn.
    assert_static("  add lc0, lc0, ->t\n  lbstop", "W-UNTYPED");
}

#[test]
fn global_register_codes() {
    assert_static("  add lc0.ud, lc0.ud, ->x1.d\n  lbstop", "E-GDST");
    assert_static("  rdadd lc0.ud, ->t.d\n  lbstop", "E-RDDST");
    assert_static("  rdadd lc0.ud, ->x1.w\n  lbstop", "E-RDDST");
    assert_static("  rdadd lc0.ud, ->zero.d\n  lbstop", "E-RDDST");
    assert_static(
        "  rdadd lc0.ud, ->x1.d\n  rdmax lc0.ud, ->x1.d\n  lbstop",
        "E-GTWICE",
    );
    assert_static(
        "  rdadd lc0.ud, ->x1.d\n  add x1.ud, lc0.ud, ->t.d\n  lbstop",
        "E-RDREAD",
    );
    // A memory operand's register offset is a read too.
    assert_static(
        "  rdadd lc0.ud, ->x1.d\n  ld [a0.ud, x1.ud], ->t.d\n  lbstop",
        "E-RDREAD",
    );
}

#[test]
fn branch_codes() {
    assert_static("  b.eq lc0.ud, lc0.ud, l\nl:\n  lbstop", "E-NORC");
    assert_static("  b.eq lc0.ud, lc0.ud, l, l\nl:\n  lbstop", "W-RCLABEL");
}

#[test]
fn all_static_errors_are_reported_at_once_with_location() {
    let src = prog(
        "SIMT",
        4,
        "  add lc0.uw, lc0.ud, ->t.d\n  frob\n  ld [a0.uw], ->t.d\n  lbstop",
    );
    let d = check("t.s", &src).unwrap_err();
    assert_eq!(d.codes(), ["E-WMIX", "E-MNEM", "E-BASEW"]);
    let text = d.render(&src);
    assert!(
        text.contains("t.s:8:15: error[E-WMIX]: input widths differ"),
        "{text}"
    );
    assert!(text.contains("^^^^^^"), "{text}");
}

#[test]
fn block_rules_run_beside_instruction_errors() {
    // Errors of single instructions (a width mix, a store width, a branch without its
    // reconvergence label) do not hide the rules spanning the block.
    let src = prog(
        "SIMT",
        4,
        "  add lc0.uw, lc0.ud, ->t.d
  sw lc0.ud, [a0.ud, lc0.ud<<2]
  b.eq lc0.ud, lb0.ud, l
l:
  rdadd lc0.ud, ->x1.d
  rdmax lc0.ud, ->x1.d
  lbstop",
    );
    let d = check("t.s", &src).unwrap_err();
    assert_eq!(d.codes(), ["E-WMIX", "E-STW", "E-NORC", "E-GTWICE"]);
    let text = d.render(&src);
    assert!(
        text.contains("t.s:13:3: error[E-GTWICE]: x1 is already written by the reduce on line 12"),
        "{text}"
    );
}

#[test]
fn an_error_hides_no_other_and_causes_none() {
    let codes = |body: &str| static_codes(&prog("SIMT", 4, body));
    // A reduce whose source is wrong still writes its register; an instruction with a
    // typing error still reads what it names.
    assert_eq!(
        codes("  rdadd lc0.w, ->x1.d\n  rdmax lc0.ud, ->x1.d\n  lbstop"),
        ["E-CLASS", "E-GTWICE"]
    );
    assert_eq!(
        codes("  rdadd lc0.ud, ->x1.d\n  add x1.uw, lc0.ud, ->t.d\n  lbstop"),
        ["E-RDREAD", "E-WMIX"]
    );
    // The operands of one instruction are checked independently of each other.
    assert_eq!(
        codes("  sw lc0.ud, [a0.ud, t#1.fs]\n  lbstop"),
        ["E-STW", "E-CLASS"]
    );
    assert_eq!(
        codes("  b.eq lc0.uw, lc0.ud, l\nl:\n  lbstop"),
        ["E-NORC", "E-WMIX"]
    );
    // No follow-ons: a reduce into zero writes nothing, so reading zero is fine and a
    // second one is not E-GTWICE; an unknown mnemonic at a reconvergence label may be a
    // misspelt pc.pop.
    assert_eq!(
        codes("  rdadd lc0.ud, ->zero.d\n  add zero.ud, lc0.ud, ->t.d\n  rdmax lc0.ud, ->zero.d\n  lbstop"),
        ["E-RDDST", "E-RDDST"]
    );
    assert_eq!(
        codes("  b.eq lc0.ud, lc0.ud, l, l\nl:\n  pc.popp\n  lbstop"),
        ["E-MNEM"]
    );
}

// ---- run-time codes ----------------------------------------------------------------------

#[test]
fn queue_codes() {
    assert_eq!(
        run_code("SIMT", 4, "  add t#1.ud, lc0.ud, ->t.d\n  lbstop"),
        "E-QUNDEF"
    );
    assert_eq!(
        run_code(
            "SIMT",
            4,
            "  addi lc0.uw, 1, ->t.w\n  add t#1.ud, lc0.ud, ->t.d\n  lbstop"
        ),
        "E-WSTALE"
    );
}

#[test]
fn control_codes() {
    // Uniform-target checks.
    assert_eq!(run_code("SIMT", 4, "  jr lc0.ud, 0\n  lbstop"), "E-DIVTGT");
    assert_eq!(
        run_code("SIMT", 4, "  jr zero.ud, 0\n  lbstop"),
        "E-PCRANGE"
    );
    assert_eq!(
        run_code("SIMT", 4, "  addi lc0.ud, 0, ->t.d\n"),
        "E-PCRANGE"
    );
    // Without pc.pop at the reconvergence label a uniform branch is fine [P]...
    assert_eq!(
        run_code(
            "SIMT",
            4,
            "  b.ltu lc0.ud, lb0.ud, t, t\n  j t\nt:\n  lbstop"
        ),
        "ok"
    );
    // ...and a diverging one stops.
    assert_eq!(
        run_code(
            "SIMT",
            4,
            "  cmp.ltui lc0.ud, 2, ->t.d\n  b.ne t#1.ud, zero.ud, t, t\nt:\n  lbstop"
        ),
        "E-RCLABEL"
    );
    // Unclosed divergence at lbstop [P].
    assert_eq!(
        run_code(
            "SIMT",
            4,
            "  cmp.ltui lc0.ud, 2, ->t.d\n  b.ne t#1.ud, zero.ud, t, p\nt:\n  lbstop\np:\n  pc.pop\n  lbstop"
        ),
        "E-CSTKLIVE"
    );
    // Endless loop.
    let p = check("t.s", &prog("SIMT", 4, "l:\n  j l\n  lbstop")).unwrap();
    let r = run(
        &p,
        RunConfig {
            max_steps: 1000,
            ..RunConfig::default()
        },
    );
    assert_eq!(r.error.unwrap().code, "E-TIMEOUT");
}

#[test]
fn controlstack_overflow() {
    // A divergent loop pushes 2 entries per diverging iteration and pops 1.
    let body = "  addi zero.ud, 0, ->u.d
l:
  cmp.ltu u#1.ud, lc0.ud, ->t.d
  addi u#1.ud, 1, ->u.d
  b.ne t#1.ud, zero.ud, l, done
done:
  pc.pop
  lbstop";
    let mut src = prog("SIMT", 4, body);
    assert_eq!(exec(&src).error, None);
    src = src.replace(".lanenum 4", ".lanenum 4\n.cstk_depth 3");
    assert_eq!(exec(&src).error.unwrap().code, "E-CSTKOVF");
}

#[test]
fn store_reduce_address_must_be_uniform() {
    assert_eq!(
        run_code("SIMT", 4, "  sd.add.rd [a0.ud], lc0.ud\n  lbstop"),
        "ok"
    );
    assert_eq!(
        run_code(
            "SIMT",
            4,
            "  slli lc0.ud, 3, ->t.d\n  add a0.ud, t#1.ud, ->t.d\n  sd.add.rd [t#1.ud], lc0.ud\n  lbstop"
        ),
        "E-RDADDR"
    );
}

#[test]
fn limits() {
    let src = ".gpr a0, 0x10000000\nBSTART.SIMT\nB.DIM a0, 0, ->LB0\nB.DIM a0, 0, ->LB1\nB.TEXT .b\nBSTOP\n.b:\n lbstop\n";
    assert_eq!(exec(src).error.unwrap().code, "E-LIMIT");
    // Memory: 64 MiB of distinct pages.
    let body = "  slli lc0.ud, 12, ->t.d\n  sb lc0.ub, [a0.ud, t#1.ud]\n  lbstop";
    let src = prog("SIMT", 20000, body);
    assert_eq!(exec(&src).error.unwrap().code, "E-MEMLIMIT");
    // `.mem` bytes on more distinct pages than the memory limit holds: exit 1 before any
    // group runs, the error with no group.
    let pages = warpkit_linx::MAX_MEMORY_BYTES / 4096 + 1;
    let mut src = String::new();
    for p in 0..pages {
        src += &format!(".mem {:#x}, b, 1\n", p * 4096);
    }
    src += "BSTART.SIMT\nB.TEXT .b\nBSTOP\n.b:\n lbstop\n";
    let e = exec(&src).error.unwrap();
    assert_eq!((e.code, e.group), ("E-MEMLIMIT", None));
}

#[test]
fn program_size_limits() {
    // Source text: checked before anything is parsed.
    let big = " ".repeat(warpkit_linx::MAX_SOURCE_BYTES + 1);
    assert_eq!(static_codes(&big), vec!["E-LIMIT"]);
    // Body instructions: one over the limit.
    let mut src = String::from("BSTART.SIMT\nB.TEXT .b\nBSTOP\n.b:\n");
    src += &"pc.pop\n".repeat(warpkit_linx::MAX_BODY_INSNS);
    src += "lbstop\n";
    assert!(static_codes(&src).contains(&"E-LIMIT"));
    // The ControlStack depth directive: 1..65536.
    let depth = |d: u32| {
        static_codes(&format!(
            ".cstk_depth {d}\nBSTART.SIMT\nB.TEXT .b\nBSTOP\n.b:\nlbstop\n"
        ))
    };
    assert!(depth(warpkit_linx::MAX_CSTK_DEPTH).is_empty());
    assert!(depth(warpkit_linx::MAX_CSTK_DEPTH + 1).contains(&"E-DIRECTIVE"));
    assert!(depth(0).contains(&"E-DIRECTIVE"));
}

#[test]
fn whole_run_lane_step_limit() {
    // 64 groups of 4 lanes, 2 steps each: 512 lane-steps.
    let p = check(
        "t.s",
        &prog("SIMT", 256, "  addi lc0.ud, 1, ->t.d\n  lbstop"),
    )
    .unwrap();
    let with = |n| {
        run(
            &p,
            RunConfig {
                max_lane_steps: n,
                ..RunConfig::default()
            },
        )
    };
    assert_eq!(with(512).error, None);
    let r = with(511);
    let e = r.error.unwrap();
    assert_eq!(e.code, "E-TIMEOUT");
    assert_eq!(
        r.lane_steps, 512,
        "the step over the budget is counted, not run"
    );
    assert_eq!(
        RunConfig::default().max_lane_steps,
        warpkit_linx::DEFAULT_MAX_LANE_STEPS
    );
}

#[test]
fn runtime_diagnostics_are_capped_and_counted() {
    // 8-byte stores at a 4-byte stride: every inner byte is written by two iterations.
    let r = exec(&prog(
        "SIMT",
        64,
        "  sd lc0.ud, [a0.ud, lc0.ud<<2]\n  lbstop",
    ));
    assert_eq!(r.error, None);
    assert_eq!(r.diagnostics.len(), warpkit_linx::MAX_RUNTIME_DIAGNOSTICS);
    assert!(r.diagnostics.iter().all(|d| d.code == "W-RACE"));
    assert_eq!(r.diagnostics.len() + r.dropped_diagnostics, 63 * 4);
}

// ---- semantics and [P] choices -----------------------------------------------------------

#[test]
fn illustrative_example_of_the_design() {
    let body = "  addi lc0.ud, 100, ->t.d\n  sd t#1.ud, [a0.ud, lc0.ud<<3]\n  rdmin t#1.ud, ->x1.d\n  lbstop";
    for mode in ["LOOP", "VECT", "SIMT"] {
        let r = exec(&prog(mode, 6, body).replace("0x1000", "0x8000"));
        assert_eq!(r.error, None);
        assert_eq!(r.gpr[21], 100);
        for i in 0..6 {
            assert_eq!(mem_u64(&r, 0x8000 + 8 * i), 100 + i);
        }
        assert!(r.diagnostics.is_empty());
    }
}

#[test]
fn output_extension_follows_input_signedness() {
    let body = "  subi lc0.sw, 5, ->t.w\n  add t#1.sw, t#1.sw, ->t.d\n  sd t#1.ud, [a0.ud, lc0.ud<<3]\n  subi lc0.uw, 5, ->t.w\n  add t#1.uw, t#1.uw, ->t.d\n  sd t#1.ud, [a0.ud, 64]\n  lbstop";
    let r = exec(&prog("SIMT", 1, body));
    assert_eq!(mem_u64(&r, 0x1000), (-10i64) as u64);
    assert_eq!(mem_u64(&r, 0x1040), 0xffff_fff6);
}

#[test]
fn division_corner_cases() {
    // x/0 = 0, x%0 = x, MIN/-1 = MIN, MIN%-1 = 0 at 32 bits.
    let body = "  addi zero.uw, 7, ->t.w
  div t#1.sw, zero.sw, ->t.w
  sw t#1.w, [a0.ud, 0]
  rem t#2.sw, zero.sw, ->t.w
  sw t#1.w, [a0.ud, 4]
  addi zero.uw, 1, ->t.w
  slli t#1.uw, 31, ->t.w
  subi zero.uw, 1, ->t.w
  div t#2.sw, t#1.sw, ->t.w
  sw t#1.w, [a0.ud, 8]
  rem t#3.sw, t#2.sw, ->t.w
  sw t#1.w, [a0.ud, 12]
  div t#4.uw, t#3.uw, ->t.w
  sw t#1.w, [a0.ud, 16]
  lbstop";
    let r = exec(&prog("SIMT", 1, body));
    let w = |a: u64| mem_u64(&r, a) as u32;
    assert_eq!(w(0x1000), 0);
    assert_eq!(w(0x1004), 7);
    assert_eq!(w(0x1008), 0x8000_0000);
    assert_eq!(w(0x100c), 0);
    assert_eq!(w(0x1010), 0); // 0x80000000 / 0xffffffff unsigned
}

#[test]
fn register_shift_amount_is_taken_mod_w() {
    let body = "  addi zero.uw, 33, ->t.w\n  addi zero.uw, 1, ->t.w\n  sll t#1.uw, t#2.uw, ->t.w\n  sw t#1.w, [a0.ud, 0]\n  lbstop";
    let r = exec(&prog("SIMT", 1, body));
    assert_eq!(mem_u64(&r, 0x1000) as u32, 2);
}

#[test]
fn queue_depth_is_eight_and_the_oldest_entry_drops() {
    let mut body = String::new();
    for i in 0..9 {
        body += &format!("  addi zero.ud, {i}, ->t.d\n");
    }
    body += "  sd t#8.ud, [a0.ud, 0]\n  lbstop";
    let r = exec(&prog("SIMT", 1, &body));
    assert_eq!(r.error, None);
    assert_eq!(mem_u64(&r, 0x1000), 1);
}

#[test]
fn only_active_lanes_push() {
    // After reconvergence m#1 is each lane's own path value [P].
    let body = "  cmp.ltui lc0.ud, 2, ->t.d
  b.ne t#1.ud, zero.ud, tk, join
  addi lc0.ud, 10, ->m.d
  j join
tk:
  addi lc0.ud, 20, ->m.d
join:
  pc.pop
  sd m#1.ud, [a0.ud, lc0.ud<<3]
  lbstop";
    let r = exec(&prog("SIMT", 4, body));
    assert_eq!(r.error, None);
    assert_eq!(
        (0..4)
            .map(|i| mem_u64(&r, 0x1000 + 8 * i))
            .collect::<Vec<_>>(),
        [20, 21, 12, 13]
    );
    assert_eq!(r.cstk_max_depth, 2);
}

#[test]
fn pc_pop_after_a_uniform_branch_is_a_no_op() {
    let body = "  b.eq zero.ud, zero.ud, tk, join\n  addi zero.ud, 1, ->t.d\ntk:\n  addi zero.ud, 2, ->t.d\njoin:\n  pc.pop\n  sd t#1.ud, [a0.ud, lc0.ud<<3]\n  lbstop";
    let r = exec(&prog("SIMT", 4, body));
    assert_eq!(r.error, None);
    assert_eq!(mem_u64(&r, 0x1000), 2);
    assert_eq!(r.cstk_max_depth, 0);
}

#[test]
fn b_cond_far_branch_with_addtpc() {
    let body = "  addtpc %hi(rc), ->t.d
  addi t#1.ud, %lo(rc), ->t.d
  addtpc %hi(br), ->t.d
  addi t#1.ud, %lo(br), ->t.d
  andi lc0.ud, 1, ->t.d
  b.cond t#1.ud, t#2.ud, t#4.ud
  addi zero.ud, 5, ->n.d
  j rc
br:
  addi zero.ud, 9, ->n.d
rc:
  pc.pop
  sd n#1.ud, [a0.ud, lc0.ud<<3]
  lbstop";
    let r = exec(&prog("VECT", 4, body));
    assert_eq!(r.error, None);
    assert_eq!(
        (0..4)
            .map(|i| mem_u64(&r, 0x1000 + 8 * i))
            .collect::<Vec<_>>(),
        [5, 9, 5, 9]
    );
    assert_eq!(r.cstk_max_depth, 2);
}

#[test]
fn reduces_at_every_width_and_signedness() {
    // lc0 = 0..3 minus 2 at 16 bits: -2, -1, 0, 1.
    let body = "  subi lc0.uh, 2, ->t.h
  rdadd t#1.sh, ->x0.d
  rdadd t#1.uh, ->x1.d
  rdmax t#1.uh, ->x2.d
  rdmin t#1.sh, ->x3.d
  rdxor t#1.ub, ->a1.d
  rdor lc0.ub, ->a2.d
  rdand t#2.uh, ->a3.d
  lbstop";
    let body = body.replace("rdxor t#1.ub", "icvt t#1.uh, ->t.ub\n  rdxor t#1.ub");
    let r = exec(&prog("SIMT", 4, &body).replace(".gpr a0, 0x1000\n", ""));
    assert_eq!(r.error, None);
    assert_eq!(r.gpr[20], (-2i64) as u64);
    assert_eq!(r.gpr[21], 0xfffe);
    assert_eq!(r.gpr[22], 0xffff);
    assert_eq!(r.gpr[23], (-2i64) as u64);
    assert_eq!(r.gpr[3], 0xfe ^ 0xff ^ 0x01);
    assert_eq!(r.gpr[4], 3);
    assert_eq!(r.gpr[5], 0);
}

#[test]
fn a_reduce_without_contributions_leaves_the_register() {
    let body = "  cmp.ltui lc0.ud, 9, ->t.d\n  b.ne t#1.ud, zero.ud, j, j\n  rdadd lc0.ud, ->x1.d\nj:\n  pc.pop\n  lbstop";
    let src = prog("SIMT", 4, body).replace(".gpr a0, 0x1000", ".gpr x1, 77");
    let r = exec(&src);
    assert_eq!(r.error, None);
    assert_eq!(r.gpr[21], 77);
}

#[test]
fn atomics_and_non_atomic_loads() {
    // Every lane adds 1 to one counter: atomic returns 0,1,2,3 in lane order.
    let body = "  addi zero.uw, 1, ->t.w\n  lw.add [a0.ud], t#1.w, ->t.w\n  sw t#1.w, [a0.ud, lc0.ud<<2 ]\n  lbstop"
        .replace("[a0.ud, lc0.ud<<2 ]", "[a0.ud, 16]");
    let r = exec(&prog("SIMT", 4, &body));
    assert_eq!(r.error, None);
    // the last lane's old value (3) is stored last at 0x1010.
    assert_eq!(mem_u64(&r, 0x1010) as u32, 3);
    assert_eq!(mem_u64(&r, 0x1000) as u32, 4);
    // .ne: every lane reads 0 first; all write 1.
    let ne = body.replace("lw.add", "lw.add.ne");
    let r = exec(&prog("SIMT", 4, &ne));
    assert_eq!(mem_u64(&r, 0x1000) as u32, 1);
    assert_eq!(mem_u64(&r, 0x1010) as u32, 0);
    assert!(r.diagnostics.iter().any(|d| d.code == "W-RACE"));
    // signed and unsigned max at w.
    let body =
        "  subi lc0.uw, 2, ->t.w\n  sw.smax [a0.ud], t#1.w\n  sw.umax [a0.ud, ], t#1.w\n  lbstop"
            .replace(
                "  sw.umax [a0.ud, ], t#1.w\n",
                "  ld.umax [a1.ud], lc0.ud, ->t.d\n",
            );
    let r = exec(&prog("SIMT", 4, &body).replace(
        ".gpr a0, 0x1000",
        ".gpr a0, 0x1000\n.gpr a1, 0x2000\n.mem 0x1000, w, -100",
    ));
    assert_eq!(r.error, None);
    assert_eq!(mem_u64(&r, 0x1000) as u32, 1);
    assert_eq!(mem_u64(&r, 0x2000), 3);
    // store-reduce: one update per group.
    let body = "  sd.add.rd [a0.ud], lc0.ud\n  lbstop";
    let r = exec(&prog("SIMT", 10, body));
    assert_eq!(mem_u64(&r, 0x1000), 45);
}

#[test]
fn typed_offsets_extend_by_their_suffix() {
    let body = "  subi zero.ub, 8, ->t.b\n  addi zero.ud, 42, ->t.d\n  sd t#1.ud, [a0.ud, t#2.sb]\n  sd t#1.ud, [a0.ud, t#2.ub]\n  lbstop";
    let r = exec(&prog("SIMT", 1, body));
    assert_eq!(r.error, None);
    assert_eq!(mem_u64(&r, 0x1000 - 8), 42);
    assert_eq!(mem_u64(&r, 0x1000 + 248), 42);
}

#[test]
fn icvt_truncates_or_extends_by_source_signedness() {
    let body = "  subi zero.uh, 1, ->t.h\n  icvt t#1.sh, ->t.sd\n  sd t#1.ud, [a0.ud, 0]\n  icvt t#2.uh, ->t.ud\n  sd t#1.ud, [a0.ud, 8]\n  icvt t#3.uh, ->t.ub\n  sb t#1.b, [a0.ud, 16]\n  lbstop";
    let r = exec(&prog("SIMT", 1, body));
    assert_eq!(r.error, None);
    assert_eq!(mem_u64(&r, 0x1000), u64::MAX);
    assert_eq!(mem_u64(&r, 0x1008), 0xffff);
    assert_eq!(mem_u64(&r, 0x1010) & 0xff, 0xff);
}

#[test]
fn modes_order_memory_differently() {
    // Each iteration reads the previous element and writes its own: a prefix dependency
    // only LOOP (and VECT within a group of 1 lane) serialises.
    let body = "  ld [a0.ud, lc0.ud<<3], ->t.d\n  addi t#1.ud, 1, ->t.d\n  sd t#1.ud, [a0.ud, lc0.ud<<3 ]\n  lbstop"
        .replace("[a0.ud, lc0.ud<<3 ]", "[a1.ud, lc0.ud<<3]");
    let src = prog("LOOP", 8, &body).replace(".gpr a0, 0x1000", ".gpr a0, 0x1000\n.gpr a1, 0x1008");
    let p = check("t.s", &src).unwrap();
    let loop_r = run(&p, RunConfig::default());
    assert_eq!(mem_u64(&loop_r, 0x1040), 8);
    let vect = run(
        &p,
        RunConfig {
            mode: Some(Mode::Vect),
            ..RunConfig::default()
        },
    );
    // Lanes of a group load before any of them stores; groups of 4 run serially, so the
    // second group sees the first group's last store only: c[5] = c[4] + 1 = 2, c[8] = 1.
    assert_eq!(mem_u64(&vect, 0x1028), 2);
    assert_eq!(mem_u64(&vect, 0x1040), 1);
    assert!(vect.diagnostics.iter().any(|d| d.code == "W-RACE"));
    assert!(loop_r.diagnostics.is_empty());
    let one = run(
        &p,
        RunConfig {
            mode: Some(Mode::Vect),
            lanes: Some(1),
            ..RunConfig::default()
        },
    );
    assert_eq!(mem_u64(&one, 0x1040), 8);
}

#[test]
fn simt_groups_interleave_round_robin() {
    // Group 1 reads a flag group 0 stores at its second step: round-robin means group 1's
    // first load (step 1) runs before group 0's store (step 2) of the same round.
    let body = "  ld [a0.ud, 0], ->t.d\n  sd lc0.ud, [a0.ud, 0]\n  sd t#1.ud, [a0.ud, lc0.ud<<3 ]\n  lbstop"
        .replace("[a0.ud, lc0.ud<<3 ]", "[a1.ud, lc0.ud<<3]");
    let src = prog("SIMT", 2, &body)
        .replace(".lanenum 4", ".lanenum 1")
        .replace(".gpr a0, 0x1000", ".gpr a0, 0x1000\n.gpr a1, 0x2000");
    let r = exec(&src);
    assert_eq!(mem_u64(&r, 0x2008), 0);
    let r = run(
        &check("t.s", &src).unwrap(),
        RunConfig {
            mode: Some(Mode::Vect),
            ..RunConfig::default()
        },
    );
    assert_eq!(mem_u64(&r, 0x2008), 0);
    let r = run(
        &check("t.s", &src).unwrap(),
        RunConfig {
            mode: Some(Mode::Loop),
            ..RunConfig::default()
        },
    );
    assert_eq!(mem_u64(&r, 0x2008), 0);
}

#[test]
fn two_dimensional_geometry() {
    let src = ".lanenum 4\n.gpr a0, 0x1000\nBSTART.SIMT\nB.DIM zero, 3, ->LB0\nB.DIM zero, 2, ->LB1\nB.TEXT .b\nBSTOP\n.b:\n  muli\n";
    assert!(check("t.s", src).is_err());
    let src = ".lanenum 4\n.gpr a0, 0x1000\nBSTART.SIMT\nB.DIM zero, 3, ->LB0\nB.DIM zero, 2, ->LB1\nB.TEXT .b\nBSTOP\n.b:\n  slli lc1.ud, 4, ->t.d\n  add t#1.ud, lc0.ud, ->t.d\n  mul lb0.ud, lc1.ud, ->t.d\n  add t#1.ud, lc0.ud, ->t.d\n  sd t#3.ud, [a0.ud, t#1.ud<<3]\n  lbstop\n";
    let r = exec(src);
    assert_eq!(r.error, None);
    for n in 0..6u64 {
        let (c0, c1) = (n % 3, n / 3);
        assert_eq!(mem_u64(&r, 0x1000 + 8 * n), c1 * 16 + c0);
    }
    assert_eq!(r.groups, 2);
}

#[test]
fn unwritten_memory_reads_zero_and_dump_lists_written_runs() {
    let body = "  lb [a0.ud, 64], ->t.b\n  sb t#1.b, [a0.ud, lc0.ud]\n  lbstop";
    let src =
        prog("SIMT", 2, body).replace(".gpr a0, 0x1000", ".gpr a0, 0x1000\n.mem 0x1003, b, 5");
    let r = exec(&src);
    assert_eq!(r.error, None);
    assert_eq!(r.memory, vec![(0x1000, vec![0, 0]), (0x1003, vec![5])]);
}

#[test]
fn entry_point_is_the_b_text_label() {
    let src = ".gpr a0, 0x1000\nBSTART.SIMT\nB.TEXT .go\nBSTOP\n.skip:\n  j .skip\n.go:\n  sd lb0.ud, [a0.ud, 0]\n  lbstop\n";
    let r = exec(src);
    assert_eq!(r.error, None);
    assert_eq!(mem_u64(&r, 0x1000), 1);
    let p = check("t.s", src).unwrap();
    assert_eq!(p.entry, BODY_BASE + 8);
}

#[test]
fn comments_of_every_kind() {
    let src = prog("SIMT", 1, "  addi zero.ud, 3, ->t.d # hash\n  /* block\n comment */ sd t#1.ud, [a0.ud, 0] // line\n  lbstop");
    let r = exec(&src);
    assert_eq!(mem_u64(&r, 0x1000), 3);
}

#[test]
fn errors_keep_the_state_and_report_where() {
    let body = "  sd lc0.ud, [a0.ud, lc0.ud<<3]\n  add t#1.ud, lc0.ud, ->t.d\n  lbstop";
    let r = exec(&prog("VECT", 8, body));
    let e = r.error.clone().unwrap();
    assert_eq!(
        (e.code, e.group, e.lane, e.pc),
        ("E-QUNDEF", Some(0), Some(0), Some(BODY_BASE + 8))
    );
    // group 0 stored before the error.
    assert_eq!(mem_u64(&r, 0x1018), 3);
}

#[test]
fn operand_choices() {
    // Untyped operands read as .ud and write .d (W-UNTYPED) [P].
    let src = prog(
        "SIMT",
        1,
        "  addi zero, 5, ->t\n  sd t#1.ud, [a0.ud]\n  lbstop",
    );
    assert!(static_codes(&src).contains(&"W-UNTYPED"));
    assert_eq!(mem_u64(&exec(&src), 0x1000), 5);
    // lc/lb read at any width take the low bits, no width check [P].
    let r = exec(&prog(
        "VECT",
        300,
        "  add lc0.ub, lb0.ub, ->t.b\n  sb t#1.b, [a0.ud, lc0.ud]\n  lbstop",
    ));
    assert_eq!(r.error, None);
    // 300 = 0x12c: (0x2c + 0x2c) and (0x12b + 0x2c) & 0xff at iterations 0 and 299.
    assert_eq!(mem_u64(&r, 0x1000) & 0xff, 0x2c);
    assert_eq!(mem_u64(&r, 0x1000 + 299) & 0xff, (0x12b + 0x2c) & 0xff);
    // Unaligned accesses are allowed; lbu is lb (W equals the access size) [P].
    let body = "  sd a0.ud, [a0.ud, 3]\n  ld [a0.ud, 3], ->t.d\n  lbu [a0.ud, 4], ->u.b\n  lb [a0.ud, 4], ->u.b\n  sd t#1.ud, [a0.ud, 16]\n  sb u#1.b, [a0.ud, 24]\n  sb u#2.b, [a0.ud, 25]\n  lbstop";
    let r = exec(&prog("SIMT", 1, body));
    assert_eq!(r.error, None);
    assert_eq!(mem_u64(&r, 0x1010), 0x1000);
    assert_eq!(mem_u64(&r, 0x1018) & 0xffff, 0x1010);
    // .aq .rl .f are accepted and change nothing; a bare .w/.d memory operand is unsigned.
    for suffix in ["", ".aq", ".rl", ".f"] {
        let body = format!("  sw.add{suffix} [a0.ud], lc0.w\n  lbstop");
        let r = exec(&prog("SIMT", 4, &body));
        assert_eq!(r.error, None, "{suffix}");
        assert_eq!(mem_u64(&r, 0x1000), 6, "{suffix}");
    }
    // Body addresses: instruction i at 0x10000 + 8i [P].
    let r = exec(&prog(
        "SIMT",
        1,
        "  addtpc 0, ->t.d\nhere:\n  addtpc %hi(here), ->t.d\n  addi t#1.ud, %lo(here), ->t.d\n  sd t#1.ud, [a0.ud]\n  lbstop",
    ));
    assert_eq!(mem_u64(&r, 0x1000), BODY_BASE + 8);
}
