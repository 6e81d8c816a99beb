//! Kernel metadata from the command line: `asm` and `dis` keep and show it, `run` launches a
//! kernel by it (`--kernel`, or a program's only kernel) with `--arg NAME=VALUE` checked
//! against the parameters (names, count, order, integer ranges, float literals, `local:`
//! shared memory used by `ds*` instructions, a float used by `fadd.f32`), and `debug` and
//! checkpoints take `--kernel` as `run` does.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;

fn warpkit_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("warpkit runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `scale`: `out[lane] = bits(x + x) + n`, the sum going through the `ptr.local` memory
/// `tmp`; `out[32 + lane]` = the workgroup's shared memory size (u13), `out[64 + lane]` =
/// `tmp`'s offset. `fill`: `out[lane] = v`.
const TWO: &str = "\
    .kernel scale, shared=20, block=32
    .param scale, out, ptr.global, \"float *\"
    .param scale, x, f32, \"float\"
    .param scale, tmp, ptr.local, \"local float *\"
    .param scale, n, i8, \"char\"
scale:
    uload.b64 u[16:17], u[0:1], 0
    uload.b32 u18, u[0:1], 8
    uload.b32 u19, u[0:1], 16
    uload.b32 u20, u[0:1], 24
    waitcnt sm=0
    sll.vi v5, v3, 2
    mov.vu v6, u18
    fadd.f32 v8, v6, v6
    add.vu v9, v5, u19
    dsstore.b32 v8, v9, 0
    waitcnt ls=0
    dsload.b32 v10, v9, 0
    waitcnt ls=0
    mov.vu v11, u20
    add v10, v10, v11
    gstore.b32 v10, v5, u[16:17], 0
    mov.vu v12, u13
    gstore.b32 v12, v5, u[16:17], 128
    mov.vu v12, u19
    gstore.b32 v12, v5, u[16:17], 256
    endpgm
fill:
    uload.b64 u[16:17], u[0:1], 0
    uload.b32 u18, u[0:1], 8
    waitcnt sm=0
    sll.vi v5, v3, 2
    mov.vu v6, u18
    gstore.b32 v6, v5, u[16:17], 0
    endpgm
    .kernel fill
    .param fill, out, ptr.global, \"int *\"
    .param fill, v, u32
";

fn words(path: &Path) -> Vec<u32> {
    std::fs::read(path)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn setup(name: &str) -> std::path::PathBuf {
    let d = dir(name);
    std::fs::write(d.join("k.s"), TWO).unwrap();
    let o = warpkit_in(&d, &["asm", "k.s", "-o", "k.o"]);
    assert!(o.status.success(), "{}", stderr(&o));
    d
}

const SCALE: [&str; 10] = [
    "--kernel",
    "scale",
    "--arg",
    "out=buf:384",
    "--arg",
    "x=1.5",
    "--arg",
    "tmp=local:128",
    "--arg",
    "n=-3",
];

fn run(d: &Path, input: &str, extra: &[&str]) -> Output {
    let mut args = vec!["run", input];
    args.extend_from_slice(extra);
    warpkit_in(d, &args)
}

#[test]
fn a_kernel_runs_by_its_metadata() {
    let d = setup("meta-run");
    for input in ["k.s", "k.o"] {
        let mut args = SCALE.to_vec();
        args.extend(["--out", "out=out.bin"]);
        let o = run(&d, input, &args);
        assert!(o.status.success(), "{input}: {}", stderr(&o));
        let out = words(&d.join("out.bin"));
        // 1.5 + 1.5 through local memory, plus -3 (sign-extended from i8).
        assert_eq!(out[0], 3.0f32.to_bits().wrapping_sub(3), "{input}");
        assert_eq!(out[31], out[0]);
        // Shared memory: 20 static bytes, then 128 local ones at offset 32.
        assert_eq!((out[32], out[64]), (160, 32), "{input}");
        // The other kernel, from its own label.
        let o = run(
            &d,
            input,
            &[
                "--kernel",
                "fill",
                "--arg",
                "out=buf:128",
                "--arg",
                "v=0xffffffff",
                "--out",
                "out=fill.bin",
            ],
        );
        assert!(o.status.success(), "{input}: {}", stderr(&o));
        assert_eq!(words(&d.join("fill.bin")), vec![u32::MAX; 32]);
    }
    // --shared at least what the kernel needs; --block the required one.
    let mut args = SCALE.to_vec();
    args.extend(["--shared", "4096", "--block", "32", "--out", "out=out.bin"]);
    let o = run(&d, "k.s", &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(words(&d.join("out.bin"))[32], 4096);
}

#[test]
fn a_program_with_one_kernel_launches_it_without_kernel() {
    let d = dir("meta-one");
    let one = ".kernel fill\n.param fill, out, ptr.global\n.param fill, v, i16\n\
               nop\nfill:\n    uload.b64 u[16:17], u[0:1], 0\n    uload.b32 u18, u[0:1], 8\n\
               waitcnt sm=0\n    sll.vi v5, v3, 2\n    mov.vu v6, u18\n\
               gstore.b32 v6, v5, u[16:17], 0\n    endpgm\n";
    std::fs::write(d.join("one.s"), one).unwrap();
    // Not bare, and started at the kernel's label (not PC 0).
    let o = run(
        &d,
        "one.s",
        &[
            "--arg",
            "out=buf:128",
            "--arg",
            "v=-2",
            "--out",
            "out=o.bin",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(words(&d.join("o.bin")), vec![u32::MAX - 1; 32]);
    // A kernel without parameters launched without options is still no bare run: a
    // fault near address 0 gets no note about one.
    std::fs::write(
        d.join("zero.s"),
        ".kernel k\nk:\n    uload.b32 u1, u[30:31], 0\n    waitcnt sm=0\n    endpgm\n",
    )
    .unwrap();
    let o = run(&d, "zero.s", &[]);
    expect(&o, 1, &["cause 5"]);
    assert!(!stderr(&o).contains("bare run"), "{}", stderr(&o));
    // Without arguments: the first parameter is missing.
    expect(
        &run(&d, "one.s", &[]),
        2,
        &["error: kernel `fill` takes 2 arguments (out, v), 0 given: `out` (ptr.global) is missing\n"],
    );
}

#[test]
fn argument_errors_name_the_parameter_and_its_type() {
    let d = setup("meta-errors");
    let with = |replace: &[(usize, &str)], extra: &[&str]| {
        let mut args: Vec<&str> = SCALE.to_vec();
        for &(i, v) in replace {
            args[i] = v;
        }
        args.extend_from_slice(extra);
        run(&d, "k.s", &args)
    };
    // A wrong name.
    expect(
        &with(&[(5, "y=1.5")], &[]),
        2,
        &[
            "error: --arg y=1.5: kernel `scale` expects `x` (float) here, its parameter 2 of 4 \
           (out, x, tmp, n), not `y`; `y` is not one of its parameters\n",
        ],
    );
    // The wrong order.
    expect(
        &with(&[(3, "x=1.5"), (5, "out=buf:384")], &[]),
        2,
        &[
            "error: --arg x=1.5: kernel `scale` expects `out` (float *) here, its parameter 1 of \
           4 (out, x, tmp, n), not `x`; `x` is parameter 2: give the arguments in the order \
           of the parameters\n",
        ],
    );
    // Too few, too many.
    let o = run(&d, "k.s", &SCALE[..8]);
    expect(
        &o,
        2,
        &["error: kernel `scale` takes 4 arguments (out, x, tmp, n), 3 given: `n` (char) is missing\n"],
    );
    expect(
        &with(&[], &["--arg", "m=1"]),
        2,
        &["error: --arg m=1: kernel `scale` takes 4 arguments (out, x, tmp, n); this one is too many\n"],
    );
    // Out of range for i8, not an integer, not a float.
    expect(
        &with(&[(9, "n=128")], &[]),
        2,
        &["error: --arg n=128: parameter `n` (char) of kernel `scale` is i8: 128 is not in -128..127\n"],
    );
    expect(
        &with(&[(9, "n=-129")], &[]),
        2,
        &["-129 is not in -128..127\n"],
    );
    expect(
        &with(&[(9, "n=1.0")], &[]),
        2,
        &["is i8: expected an integer"],
    );
    expect(
        &with(&[(5, "x=1,5")], &[]),
        2,
        &[
            "error: --arg x=1,5: parameter `x` (float) of kernel `scale` is f32: `1,5` is not a \
           float literal (1.5, -2e-3, 0x1.8p1, inf, nan)\n",
        ],
    );
    expect(
        &with(&[(5, "x=1e39")], &[]),
        2,
        &["is f32: `1e39` is out of range for f32: it would round to infinity"],
    );
    expect(
        &with(&[(5, "x=0x3fc00000")], &[]),
        2,
        &["a hexadecimal float needs a binary exponent (0x1.8p1)"],
    );
    expect(
        &with(&[(3, "out=7")], &[]),
        2,
        &["is ptr.global: give @FILE or buf:BYTES, not `7`"],
    );
    expect(
        &with(&[(7, "tmp=128")], &[]),
        2,
        &["is ptr.local: give local:BYTES (bytes of workgroup shared memory), not `128`"],
    );
    // Shared memory and block.
    expect(
        &with(&[], &["--shared", "100"]),
        2,
        &[
            "error: --shared 100: 100 bytes of shared memory per workgroup are fewer than kernel \
           `scale` needs: 160 (20 static, the rest for its local arguments)\n",
        ],
    );
    expect(
        &with(&[], &["--block", "64"]),
        2,
        &[
            "error: --block 64x1x1: kernel `scale` requires a workgroup of 32x1x1 threads \
           (block=32x1x1), but the launch asks for 64x1x1\n",
        ],
    );
    // Choosing the kernel.
    expect(
        &run(&d, "k.s", &["--arg", "out=buf:4"]),
        2,
        &["error: the program declares 2 kernels (scale, fill): say which one to launch with --kernel NAME\n"],
    );
    expect(
        &run(&d, "k.o", &["--kernel", "sclae"]),
        2,
        &["error: --kernel sclae: there is no kernel `sclae`; the program's kernels are scale, fill\n"],
    );
    std::fs::write(d.join("plain.s"), "endpgm\n").unwrap();
    expect(
        &run(&d, "plain.s", &["--kernel", "k"]),
        2,
        &["error: --kernel k: there is no kernel `k`: the program has no kernel metadata"],
    );
    let o = run(&d, "k.s", &["--kernel", "fill", "--entry", "scale"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // --entry naming a kernel selects it; naming another label launches without metadata.
    let o = run(
        &d,
        "k.s",
        &["--entry", "fill", "--arg", "out=buf:128", "--arg", "v=7"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    expect(
        &run(
            &d,
            "k.s",
            &["--entry", "fill", "--arg", "out=buf:128", "--arg", "v=-7"],
        ),
        2,
        &["-7 is not in 0..4294967295"],
    );
}

#[test]
fn asm_and_dis_keep_and_show_the_metadata() {
    let d = setup("meta-asm");
    let o = warpkit_in(&d, &["asm", "k.s", "-o", "k.bin"]);
    expect(
        &o,
        0,
        &["warning: k.s: the bin format carries no kernel metadata (.kernel/.param); use --format elf to keep it\n"],
    );
    let o = warpkit_in(&d, &["dis", "k.o"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "\nKernel metadata (section .warpkit.kernels):\n.kernel scale, shared=20, block=32x1x1\n\
             .param scale, out, ptr.global, \"float *\"\n"
        ),
        "{out}"
    );
    let o = warpkit_in(&d, &["dis", "--plain", "k.o"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(d.join("again.s"), stdout(&o)).unwrap();
    let o = warpkit_in(&d, &["asm", "again.s", "-o", "again.o"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The reassembled object launches by its metadata as the original does.
    let mut args = SCALE.to_vec();
    args.extend(["--out", "out=again.bin"]);
    let o = run(&d, "again.o", &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        words(&d.join("again.bin"))[0],
        3.0f32.to_bits().wrapping_sub(3)
    );
}

#[test]
fn debug_profile_and_checkpoints_take_kernel() {
    let d = setup("meta-debug");
    std::fs::write(d.join("cmds"), "p pc\ncontinue\n").unwrap();
    let mut args = vec!["debug", "k.o", "--batch", "cmds"];
    args.extend_from_slice(&SCALE);
    let o = warpkit_in(&d, &args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    // Paused before the kernel's first instruction, at its label.
    assert!(stdout(&o).contains("pc = 0x0 (k.s:7)"), "{}", stdout(&o));
    let mut args = vec!["debug", "k.o", "--batch", "cmds", "--kernel", "fill"];
    args.extend(["--arg", "out=buf:128", "--arg", "v=1"]);
    let o = warpkit_in(&d, &args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("pc = 0x7c (k.s:29)"), "{}", stdout(&o));
    let mut args = vec!["debug", "k.o", "--batch", "cmds", "--kernel", "fill"];
    args.extend(["--arg", "v=1"]);
    expect(&warpkit_in(&d, &args), 2, &["expects `out` (int *) here"]);

    let mut args = SCALE.to_vec();
    args.extend(["--profile", "p.json"]);
    let o = run(&d, "k.o", &args);
    assert!(o.status.success(), "{}", stderr(&o));

    let mut args = SCALE.to_vec();
    args.extend(["--stop-after-steps", "5", "--save-checkpoint", "c.wkc"]);
    let o = run(&d, "k.o", &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = warpkit_in(&d, &["run", "--resume", "c.wkc", "--out", "out=r.bin"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(words(&d.join("r.bin"))[32], 160);
    let o = warpkit_in(&d, &["run", "--resume", "c.wkc", "--kernel", "fill"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
