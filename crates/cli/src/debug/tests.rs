//! The debugger's commands, driven as a script would drive them.

use super::repl::run_script;
use super::Debugger;
use crate::run_report::Shown;
use warpkit_host::{Launch, Limits, Stepper};

/// Doubles `in` into `out`, one warp.
const DOUBLE: &str = "\
# doubles a buffer
    uload.b128 u[16:19], u[0:1], 0
    waitcnt sm=0
    sll.vi v5, v3, 2
    gload.b32 v6, v5, u[16:17], 0
    waitcnt vm=0
loop:
    add v6, v6, v6
    gstore.b32 v6, v5, u[18:19], 0
    endpgm
";

/// Two warps: warp 0 stores to shared memory and waits at a barrier; warp 1 calls a
/// helper, then traps, so warp 0 is deadlocked.
const DEADLOCK: &str = "\
    bnz u29, other
    sll.vi v5, v3, 2
    dsstore.b32 v3, v5, 0
wait:
    barrier
    endpgm
other:
    jal u30, helper
    umov.l u1, 0xffffffff
    csrw mode, u1
    endpgm
helper:
    uaddi u2, u2, 1
    uaddi u2, u2, 1
    jr u30, 0
";

const LOOP: &str = "top:\n    uaddi u1, u1, 1\n    jmp top\n";

fn launch_with(setup: impl FnOnce(&mut Launch)) -> Launch {
    let mut l = Launch::new(Limits::default());
    setup(&mut l);
    l
}

fn shown(max_steps: u64) -> Shown {
    Shown {
        max_reports: 10,
        max_hazards: 20,
        max_steps,
        max_total_steps: None,
        quiet: false,
    }
}

/// The transcript of `script` run over `src` under `launch`, and whether a command
/// failed.
fn transcript(src: &str, mut launch: Launch, script: &str) -> (String, bool) {
    let object = warpkit_asm::assemble(src, "k.s").unwrap();
    let max_steps = launch.config().max_steps;
    launch.max_steps(max_steps).unwrap();
    let prepared = launch.prepare(&object).unwrap();
    let stepper = Stepper::new(prepared).unwrap();
    let mut d = Debugger::new(
        stepper,
        &object,
        Some(("k.s".into(), src.into())),
        shown(max_steps),
    );
    let mut text = String::new();
    let ended = run_script(&mut d, script.as_bytes(), &mut |s| text.push_str(s)).unwrap();
    (text, ended.errors)
}

fn double_launch() -> Launch {
    launch_with(|l| {
        let input: Vec<u8> = (0..32u32).flat_map(|i| i.to_le_bytes()).collect();
        l.arg("in", warpkit_host::ArgValue::Buffer(input)).unwrap();
        l.arg_text("out=buf:128").unwrap();
    })
}

fn has(text: &str, piece: &str) {
    assert!(text.contains(piece), "expected `{piece}` in:\n{text}");
}

#[test]
fn break_step_print_examine_watch() {
    let (t, errors) = transcript(
        DOUBLE,
        double_launch(),
        "break loop\ninfo breakpoints\ncontinue\np v6[3]\np v6\np u[16:17]\nx/8xw in\n\
         x/2dw u[16:17]+4\nx/4xb in+4\nx/2xh in\nwatch out+8\nstep\ncontinue\nx/4dw out\n\
         step\ncontinue\n",
    );
    assert!(!errors, "{t}");
    has(&t, "(warpkit) break loop\nbreakpoint 1 at 0x1c (k.s:8)\n");
    has(&t, "1   breakpoint 0x1c loop\n");
    has(
        &t,
        "breakpoint 1, warp 0.0\nk.s:8: add v6, v6, v6\n=>*0x001c:  add v6, v6, v6\n",
    );
    has(&t, "v6[3] = 0x00000003 (3)\n");
    has(&t, "  [24] 0x00000018 0x00000019");
    has(
        &t,
        "u[16:17] = 0x00000000 0x00000001 (64-bit 0x100000000)\n",
    );
    has(
        &t,
        "0x100000000: 0x00000000 0x00000001 0x00000002 0x00000003\n\
         0x100000010: 0x00000004 0x00000005 0x00000006 0x00000007\n",
    );
    has(&t, "0x100000004: 1 2\n");
    has(&t, "0x100000004: 0x01 0x00 0x00 0x00\n");
    has(&t, "0x100000000: 0x0000 0x0000\n");
    has(&t, "watchpoint 2: out+8\n");
    // step: the add; continue: stops after the store wrote out+8.
    has(&t, "=> 0x0020:  gstore.b32 v6, v5, u[18:19], 0\n");
    has(
        &t,
        "watchpoint 2: out+8 written by warp 0.0 at pc 0x20 `gstore.b32 v6, v5, u[18:19], 0`; \
         now 0x00000004 (k.s:9)\n",
    );
    has(&t, "0x100020000: 0 2 4 6\n");
    has(&t, "warp 0.0 has stopped: ended\n");
    has(
        &t,
        "the launch finished: 1 workgroups, 1 warps, 8 instructions, 128 lane-operations, 0 hazards\n",
    );
}

#[test]
fn trap_deadlock_next_finish_and_shared_memory() {
    let (t, errors) = transcript(
        DEADLOCK,
        launch_with(|l| {
            l.block([64, 1, 1]).unwrap();
        }),
        "info warps\nbreak wait\nrun\nx/4xw shared:0\nx/2dw shared:0x40\ninfo warps\n\
         warp 0.1\nstep\nnext\np u2\nfinish\ninfo warps\np mode\np pc\nregs\nwarp 0.1\n\
         step\nbreak helper\ndisas helper 3\ncontinue\nstep\n",
    );
    assert!(errors, "stepping a trapped warp is an error");
    has(
        &t,
        "* 0.0    running                                pc 0x0000  0 steps\n",
    );
    has(&t, "breakpoint 1, warp 0.0\n");
    has(
        &t,
        "shared:0x0: 0x00000000 0x00000001 0x00000002 0x00000003\n",
    );
    has(&t, "shared:0x40: 16 17\n");
    // `next` runs the whole call; u2 was incremented twice.
    has(&t, "(warpkit) next\nk.s:9: umov.l u1, 0xffffffff\n");
    has(&t, "u2 = 0x00000002 (2)\n");
    // `finish` outside any call runs to the trap.
    has(
        &t,
        "error: workgroup (0,0,0) warp 1 trapped: cause 8 (illegal mode value) at pc 0x24: \
         `csrw mode, u1`, trapinfo 0xffffffff (k.s:10)\n",
    );
    has(
        &t,
        "error: deadlock in workgroup (0,0,0): warp 0 waits at the barrier at pc 0x10; the \
         barrier can never be released because a sibling was stopped: warp 1 trapped at pc \
         0x24 (cause 8, illegal mode value) (warp 0 at k.s:5, warp 1 at k.s:10)\n",
    );
    has(&t, "  0.0    deadlocked at a barrier");
    has(
        &t,
        "* 0.1    trapped (cause 8, illegal mode value)  pc 0x0024  7 steps",
    );
    has(
        &t,
        "error: warp 0.1 has stopped (trapped (cause 8, illegal mode value))",
    );
    has(&t, "k.s:13: uaddi u2, u2, 1\n  *0x002c:  uaddi u2, u2, 1\n");
    has(&t, "pc = 0x24 (k.s:10)\n");
    has(&t, "warp 0.1 (workgroup (0,0,0) warp 1): trapped");
    has(&t, "(with errors reported above)");
    has(&t, "(warpkit) step\nerror: the launch has finished\n");
}

#[test]
fn finish_returns_from_a_call() {
    let (t, errors) = transcript(
        DEADLOCK,
        launch_with(|l| {
            l.block([64, 1, 1]).unwrap();
        }),
        "break helper\nwarp 0.1\ncontinue\nfinish\np u2\np pc\n",
    );
    assert!(!errors, "{t}");
    has(&t, "breakpoint 1, warp 0.1\n");
    has(
        &t,
        "(warpkit) finish\nk.s:9: umov.l u1, 0xffffffff\n=> 0x001c:",
    );
    has(&t, "u2 = 0x00000002 (2)\n");
}

#[test]
fn conditional_breakpoint_step_limit_and_set() {
    let (t, errors) = transcript(
        LOOP,
        launch_with(|l| {
            l.max_steps(1000).unwrap();
        }),
        "break top if u1 == 5\ncontinue\np u1\nset u1 = 100\nset v7[2] = -1\np v7[2]\n\
         set v8 = 9\np v8[31]\nset exec = 0xf\np exec\nset u[10:11] = 0x100000002\np u[10:11]\n\
         delete 1\ncontinue\np u1\ninfo warps\nstep 5\n",
    );
    assert!(errors);
    has(&t, "breakpoint 1 at 0x0 (k.s:2) if u1 == 5\n");
    has(&t, "(warpkit) p u1\nu1 = 0x00000005 (5)\n");
    has(&t, "v7[2] = 0xffffffff (4294967295)\n");
    has(&t, "v8[31] = 0x00000009 (9)\n");
    has(&t, "exec = 0x0000000f (4 lanes active)\n");
    has(
        &t,
        "u[10:11] = 0x00000002 0x00000001 (64-bit 0x100000002)\n",
    );
    has(
        &t,
        "error: workgroup (0,0,0) warp 0 stopped at pc 0x0 after 1000 instructions: the step \
         limit (--max-steps 1000) was reached; raise it with --max-steps N if the program is \
         not stuck in a loop (k.s:2)\n",
    );
    // Set to 100 after 10 steps, then 495 more increments in the 990 steps left: the
    // state is inspectable at the limit.
    has(&t, "u1 = 0x00000253 (595)\n");
    has(&t, "stopped at the step limit");
    has(
        &t,
        "error: warp 0.0 has stopped (stopped at the step limit)",
    );
}

#[test]
fn steps_lines_and_addresses() {
    let (t, errors) = transcript(
        DOUBLE,
        double_launch(),
        "break 4\nbreak k.s:7\nbreak 0x10\ncontinue\nstep 2\ninfo pending\ndisas\nstep\n\
         info pending\n",
    );
    assert!(!errors, "{t}");
    has(&t, "breakpoint 1 at 0xc (k.s:4)\n");
    // Line 7 is a label: the next line with code.
    has(&t, "breakpoint 2 at 0x1c (k.s:8)\n");
    has(&t, "breakpoint 3 at 0x10 (k.s:5)\n");
    has(&t, "breakpoint 1, warp 0.0\n");
    // step 2 from 0xc passes the breakpoint at 0x10: it stops there first.
    has(&t, "(warpkit) step 2\nbreakpoint 3, warp 0.0\n");
    has(
        &t,
        "(warpkit) info pending\nvm: 0 in flight\nvst: 0 in flight\ntex: 0 in flight\nls: 0 in flight\nsm: 0 in flight\n",
    );
    has(&t, "=>*0x0010:  gload.b32 v6, v5, u[16:17], 0\n");
    has(
        &t,
        "vm: 1 in flight\n  pc 0x0010 `gload.b32 v6, v5, u[16:17], 0` -> v6 (lanes 0xffffffff)\n",
    );
}

#[test]
fn hazards_and_waiting_on_a_counter() {
    let src = "uload.b64 u[16:17], u[0:1], 0\numov u20, u16\nwaitcnt sm=0\nendpgm\n";
    let (t, errors) = transcript(
        src,
        launch_with(|l| {
            l.arg_text("x=buf:8").unwrap();
        }),
        "info hazards\nstep 2\ninfo warps\ninfo hazards\n",
    );
    assert!(!errors, "{t}");
    has(&t, "no hazards in workgroup 0 so far\n");
    has(&t, "waiting on a counter (waitcnt)");
    has(
        &t,
        "warp 0.0: 1 hazards (1 kept)\n  workgroup (0,0,0) warp 0: RAW: reads u16 at pc 0x8",
    );
}

#[test]
fn selecting_a_warp_of_a_later_workgroup() {
    let (t, errors) = transcript(
        "umovi u1, 1\numovi u2, 2\nendpgm\n",
        launch_with(|l| {
            l.grid([3, 1, 1]).unwrap();
        }),
        "warp 2.0\np u1\nstep\np u1\ninfo warps\nwarp 0.0\nwarp 3.0\nwarp 2.1\n",
    );
    assert!(errors);
    has(&t, "selected warp 2.0\n");
    has(&t, "error: workgroup 2 is not running (workgroup 0 is)");
    has(&t, "(warpkit) step\nk.s:2: umovi u2, 2\n=> 0x0004:");
    has(&t, "(warpkit) p u1\nu1 = 0x00000001 (1)\n");
    has(&t, "workgroup 2 (2,0,0):\n");
    has(&t, "error: workgroup 0 has already finished\n");
    has(
        &t,
        "error: no warp 3.0: the grid has 3 workgroups of 1 warps\n",
    );
    has(&t, "error: no warp 2.1");
}

#[test]
fn bad_commands_are_errors_not_panics() {
    let bad = [
        "bogus",
        "break",
        "break nowhere",
        "break 0x2",
        "break 0x100000",
        "break 999",
        "break loop if v5",
        "break loop if v5[40] == 1",
        "delete 77",
        "delete x",
        "step 0",
        "step -1",
        "step lots",
        "next now",
        "warp",
        "warp 1",
        "warp a.b",
        "info",
        "info registers",
        "p",
        "p v",
        "p v5[",
        "p u[3:1]",
        "p w3",
        "x/0xw in",
        "x/4q in",
        "x/4xw",
        "x/4xw nowhere",
        "x/4xw 0x5",
        "x/4xw 0",
        "x/2xw shared:0x10000",
        "x/1xw 0xffffffffffffffff+8",
        "watch",
        "watch v5[99]",
        "watch u[1:2]",
        "watch elsewhere",
        "disas nowhere",
        "disas 0 0",
        "set",
        "set v5[3]",
        "set v5[3] = x",
        "set v5[3] = 0x1ffffffff",
        "set pc = 0",
        "regs now",
    ];
    let script: String = bad.iter().map(|c| format!("{c}\n")).collect();
    let (t, errors) = transcript(DOUBLE, double_launch(), &script);
    assert!(errors);
    let replies: Vec<&str> = t.split("(warpkit) ").skip(1).collect();
    assert_eq!(replies.len(), bad.len());
    for (cmd, reply) in bad.iter().zip(&replies) {
        assert!(
            reply.contains("\nerror: "),
            "`{cmd}` should fail with a message, got: {reply}"
        );
    }
}

#[test]
fn help_completion_and_quit() {
    let object = warpkit_asm::assemble(DOUBLE, "k.s").unwrap();
    let prepared = double_launch().prepare(&object).unwrap();
    let mut d = Debugger::new(Stepper::new(prepared).unwrap(), &object, None, shown(100));
    let words = d.completions();
    for w in ["loop", "v127", "u63", "exec", "mode", "in", "out"] {
        assert!(words.iter().any(|x| x == w), "{w}");
    }
    let help = d.execute("help");
    for (c, _) in super::COMMANDS {
        assert!(help.text.contains(&format!("  {c}")), "{c}");
    }
    assert!(!d.execute("# a comment").error);
    assert!(d.execute("quit").quit);
    // Without source text, lines are still known from the line table.
    assert!(d.execute("disas loop 1").text.contains("k.s:8:"));
    assert!(d.execute("continue").text.contains("the launch finished"));
    // The buffers outlive the launch.
    let x = d.execute("x/2dw out+4");
    assert_eq!(x.text, "0x100020004: 2 4\n");
    assert!(d.execute("x/1xw 0x10").error);
    assert!(d.execute("x/1xw shared:0").error);
}

#[test]
fn ctrl_c_interrupts_a_continue() {
    let object = warpkit_asm::assemble(LOOP, "k.s").unwrap();
    let cancel = warpkit_sim::CancelFlag::new();
    let mut l = launch_with(|l| {
        l.max_steps(u64::MAX).unwrap();
    });
    l.cancel(cancel.clone());
    let prepared = l.prepare(&object).unwrap();
    let mut d = Debugger::new(
        Stepper::new(prepared).unwrap(),
        &object,
        None,
        shown(u64::MAX),
    );
    let done = std::sync::atomic::AtomicBool::new(false);
    let reply = std::thread::scope(|s| {
        s.spawn(|| {
            // As a signal handler would, until the debugger is back at its prompt.
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(20));
                cancel.cancel();
            }
        });
        let r = d.execute("continue");
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    });
    has(&reply.text, "interrupted\n");
    // Still paused and inspectable, and a step runs again.
    let before = d.execute("p u1").text;
    assert!(!d.execute("step").error);
    assert_ne!(d.execute("p u1").text, before);
}

/// Two warps of an endless loop.
#[test]
fn the_step_limit_is_reported_when_a_warp_reaches_it() {
    let (t, _) = transcript(
        LOOP,
        launch_with(|l| {
            l.block([64, 1, 1]).unwrap();
            l.max_steps(100).unwrap();
        }),
        "continue\np u1\nwarp 0.1\np u1\ncontinue\ninfo warps\n",
    );
    // Warp 0 is reported at its limit, before warp 1 has run at all.
    has(
        &t,
        "(warpkit) continue\nerror: workgroup (0,0,0) warp 0 stopped at pc 0x0 after 100 \
         instructions: the step limit (--max-steps 100) was reached",
    );
    has(
        &t,
        "(warpkit) p u1\nu1 = 0x00000032 (50)\n(warpkit) warp 0.1\n",
    );
    has(&t, "(warpkit) p u1\nu1 = 0x00000000 (0)\n(warpkit) continue\nerror: workgroup (0,0,0) warp 1 stopped");
    assert_eq!(t.matches("warp 0 stopped at pc").count(), 1, "{t}");
    assert_eq!(t.matches("warp 1 stopped at pc").count(), 1, "{t}");
}

/// A recursive function whose inner call returns to the same place at every depth:
/// `u40` is the depth of frames, `u41` counts returns through `back` (registers the
/// launch leaves at 0).
const RECURSE: &str = "\
    umovi u42, 2
    jal u31, rec
    umovi u2, 7
    endpgm
rec:
    uaddi u40, u40, 1
    bz u42, ret
    uaddi u42, u42, -1
inner:
    jal u30, rec
back:
    uaddi u41, u41, 1
ret:
    uaddi u40, u40, -1
    bz u40, top
    jr u30, 0
top:
    jr u31, 0
";

#[test]
fn next_steps_over_a_recursive_call() {
    let (t, errors) = transcript(
        RECURSE,
        launch_with(|_| {}),
        "break inner\ncontinue\np u40\ndelete 1\nnext\np u40\np u41\n",
    );
    assert!(!errors, "{t}");
    has(&t, "(warpkit) p u40\nu40 = 0x00000001 (1)\n");
    // Back after the call at depth 1: the deeper frame's return to `back` did not stop it.
    has(&t, "(warpkit) next\nk.s:12: uaddi u41, u41, 1\n");
    has(
        &t,
        "(warpkit) p u40\nu40 = 0x00000001 (1)\n(warpkit) p u41\nu41 = 0x00000001 (1)\n",
    );
}
