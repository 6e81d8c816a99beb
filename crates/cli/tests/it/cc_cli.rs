//! OpenCL C on the command line: `warpkit cc` (assembly, ELF objects with the `.cl` lines,
//! `-D`/`-I`/`-O`, `--kernel`, `--emit-ir`, build options, diagnostics, refusals) and the
//! `.cl` kernel in `run` (typed arguments, `--out`, traps, profiles, checkpoints,
//! `--strict-hazards`) and `debug` (breakpoints on `.cl` lines).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

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

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
}

/// Each workgroup writes its global ids times 10 plus `bias`, in reverse order, through local
/// memory; `scale` multiplies by a float.
const FLIP: &str = "\
// flip and scale
kernel void flip(global int *out, int bias, local int *tmp)
{
    int l = get_local_id(0);
    tmp[l] = get_global_id(0) * 10 + bias;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[get_local_size(0) - 1 - l];
}

kernel void scale(global float *out, global const float *in, float k, uchar add)
{
    size_t i = get_global_id(0);
    out[i] = in[i] * k + add;
}
";

fn flip_dir(test: &str) -> std::path::PathBuf {
    let d = dir(test);
    std::fs::write(d.join("k.cl"), FLIP).unwrap();
    d
}

fn words(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// What `flip` writes with `bias` on a grid of `groups` workgroups of `block` work-items.
fn flipped(groups: i32, block: i32, bias: i32) -> Vec<i32> {
    (0..groups * block)
        .map(|g| {
            let (group, l) = (g / block, g % block);
            (group * block + block - 1 - l) * 10 + bias
        })
        .collect()
}

#[test]
fn assembly_to_stdout_and_to_a_file() {
    let d = flip_dir("cc-asm");
    let o = warpkit_in(&d, &["cc", "k.cl"]);
    ok(&o);
    let text = stdout(&o);
    assert!(text.starts_with("    .file 1 \"k.cl\"\n"), "{text}");
    for line in [
        "    .kernel flip, shared=0, scratch=0\n",
        "    .param flip, out, ptr.global, \"__global int *\"\n",
        "    .param flip, bias, i32, \"int\"\n",
        "    .param flip, tmp, ptr.local, \"__local int *\"\n",
        "    .param scale, k, f32, \"float\"\n",
        "    .param scale, add, u8, \"uchar\"\n",
        "    .loc 1 6 5\n",
        "    barrier\n",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }
    ok(&warpkit_in(&d, &["cc", "k.cl", "-o", "k.s"]));
    assert_eq!(std::fs::read_to_string(d.join("k.s")).unwrap(), text);
    // The text assembles to what `cc -o k.o` writes.
    ok(&warpkit_in(&d, &["asm", "k.s", "-o", "from-s.o"]));
    ok(&warpkit_in(&d, &["cc", "k.cl", "-o", "k.o"]));
    let dis = |f: &str| stdout(&warpkit_in(&d, &["dis", "--plain", f]));
    assert_eq!(dis("from-s.o"), dis("k.o"));
}

#[test]
fn an_object_has_the_kernels_and_the_cl_lines() {
    let d = flip_dir("cc-obj");
    let o = warpkit_in(&d, &["cc", "k.cl", "-o", "k.o"]);
    ok(&o);
    assert_eq!(stdout(&o), "");
    assert!(std::fs::read(d.join("k.o"))
        .unwrap()
        .starts_with(b"\x7fELF"));
    let o = warpkit_in(&d, &["dis", "-l", "k.o"]);
    ok(&o);
    let listing = stdout(&o);
    assert!(
        listing.contains("k.cl:6:5\n    barrier(CLK_LOCAL_MEM_FENCE);\n"),
        "{listing}"
    );
    assert!(listing.contains("k.cl:13:"), "{listing}");
    // Another tool reads the line table: readelf names the .cl file and its lines.
    if let Ok(o) = Command::new("readelf")
        .current_dir(&d)
        .args(["--debug-dump=decodedline", "k.o"])
        .output()
    {
        let table = stdout(&o);
        let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("k.cl ")).collect();
        assert!(!rows.is_empty(), "{table}");
        // The end of the sequence is a row with `-` for its line.
        let lines: Vec<u32> = rows
            .iter()
            .filter_map(|r| r.split_whitespace().nth(1)?.parse().ok())
            .collect();
        for line in [5, 6, 7, 12, 13] {
            assert!(lines.contains(&line), "line {line} in {table}");
        }
    }
    // The object runs as the source does.
    let o = warpkit_in(
        &d,
        &[
            "run",
            "k.o",
            "--kernel",
            "flip",
            "--grid",
            "2",
            "--block",
            "64",
            "--arg",
            "out=buf:512",
            "--arg",
            "bias=7",
            "--arg",
            "tmp=local:256",
            "--out",
            "out=o.bin",
        ],
    );
    ok(&o);
    assert_eq!(
        words(&std::fs::read(d.join("o.bin")).unwrap()),
        flipped(2, 64, 7)
    );
}

#[test]
fn defines_includes_and_optimisation_levels() {
    let d = dir("cc-defines");
    std::fs::create_dir(d.join("inc")).unwrap();
    std::fs::write(d.join("inc/base.h"), "#define BASE 1000\n").unwrap();
    std::fs::write(
        d.join("k.cl"),
        "#include \"base.h\"\n#ifndef N\n#error N is not defined\n#endif\n\
         kernel void k(global int *out)\n{\n    int s = 0;\n\
         for (int j = 0; j < N; j++)\n        s += j * (int)get_local_id(0);\n\
         out[get_global_id(0)] = BASE + s;\n}\n",
    )
    .unwrap();
    let o = warpkit_in(&d, &["cc", "k.cl", "-I", "inc"]);
    expect(&o, 2, &["k.cl:3:2: error: N is not defined"]);
    let o = warpkit_in(&d, &["cc", "k.cl", "-D", "N=3"]);
    expect(&o, 2, &["k.cl:1:10: error: 'base.h' file not found"]);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "k.cl",
            "--block",
            "32",
            "--arg",
            "out=buf:128",
            "--out",
            "out=o.bin",
        ];
        args.extend(extra);
        let o = warpkit_in(&d, &args);
        ok(&o);
        words(&std::fs::read(d.join("o.bin")).unwrap())
    };
    let expected = |n: i32| -> Vec<i32> { (0..32).map(|l| 1000 + l * n * (n - 1) / 2).collect() };
    for opt in ["-O0", "-O1", "-O2"] {
        assert_eq!(run(&["-DN=4", "-Iinc", opt]), expected(4), "{opt}");
        assert_eq!(run(&["-D", "N=5", "-I", "inc", opt]), expected(5), "{opt}");
    }
    // `-U` after `-D`, and build options given as one string.
    let o = warpkit_in(&d, &["cc", "k.cl", "-Iinc", "-DN=2", "-UN"]);
    expect(&o, 2, &["N is not defined"]);
    assert_eq!(
        run(&["--cl-options", "-DN=6 -I inc -cl-mad-enable -O0"]),
        expected(6)
    );
    // -O0 keeps the loop's code; -O2 unrolls or folds it differently.
    let asm = |opt: &str| stdout(&warpkit_in(&d, &["cc", "k.cl", "-DN=4", "-Iinc", opt]));
    assert_ne!(asm("-O0"), asm("-O2"));
}

#[test]
fn kernel_selection_and_the_ir() {
    let d = flip_dir("cc-kernel");
    let o = warpkit_in(&d, &["cc", "k.cl", "--kernel", "scale"]);
    ok(&o);
    let text = stdout(&o);
    assert!(
        text.contains(".kernel scale,") && !text.contains(".kernel flip,"),
        "{text}"
    );
    let o = warpkit_in(&d, &["cc", "k.cl", "--kernel", "scale", "--kernel", "flip"]);
    ok(&o);
    assert!(stdout(&o).contains(".kernel flip,") && stdout(&o).contains(".kernel scale,"));
    let o = warpkit_in(&d, &["cc", "k.cl", "--kernel", "nope"]);
    expect(&o, 2, &["nope"]);
    assert_eq!(stdout(&o), "");

    let o = warpkit_in(&d, &["cc", "k.cl", "--emit-ir"]);
    ok(&o);
    let ir = stdout(&o);
    assert!(
        ir.starts_with("kernel @flip(out: ptr.global, bias: i32, tmp: ptr.local) {\n"),
        "{ir}"
    );
    assert!(ir.contains("}\n\nkernel @scale("), "{ir}");
    assert!(ir.ends_with("}\n"), "{ir}");
    assert!(!ir.contains("uload"), "{ir}");
    let o = warpkit_in(&d, &["cc", "k.cl", "--emit-ir", "--kernel", "scale"]);
    ok(&o);
    assert!(stdout(&o).starts_with("kernel @scale("), "{}", stdout(&o));
}

#[test]
fn build_options_contract_a_multiply_add() {
    let d = dir("cc-options");
    std::fs::write(
        d.join("f.cl"),
        "kernel void f(global float *o, float a, float b, float c) { o[0] = a * b + c; }\n",
    )
    .unwrap();
    let asm = |extra: &[&str]| {
        let mut args = vec!["cc", "f.cl"];
        args.extend(extra);
        let o = warpkit_in(&d, &args);
        ok(&o);
        stdout(&o)
    };
    let plain = asm(&[]);
    assert!(
        !plain.contains("ffma") && plain.contains("fmul.f32"),
        "{plain}"
    );
    for opts in [
        &["-cl-mad-enable"][..],
        &["-cl-fast-relaxed-math"],
        &["-ffp-contract=fast"],
        &["--cl-options", "-cl-mad-enable"],
        &["--cl-options", "-cl-mad-enable -O1"],
        &["--cl-options=-cl-std=CL1.2 -cl-mad-enable"],
    ] {
        assert!(asm(opts).contains("ffma.f32"), "{opts:?}");
    }
    assert!(!asm(&["-cl-mad-enable", "-ffp-contract=off"]).contains("ffma"));
    // (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 exactly; the product alone rounds to 1 + 2^-11.
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "f.cl",
            "--block",
            "1",
            "--arg",
            "o=buf:4",
            "--arg",
            "a=0x1.001p0",
            "--arg",
            "b=0x1.001p0",
            "--arg",
            "c=-0x1.002p0",
            "--out",
            "o=o.bin",
        ];
        args.extend(extra);
        ok(&warpkit_in(&d, &args));
        f32::from_le_bytes(
            std::fs::read(d.join("o.bin")).unwrap()[..4]
                .try_into()
                .unwrap(),
        )
    };
    assert_eq!(run(&[]), 0.0);
    assert_eq!(run(&["-cl-mad-enable"]), 2f32.powi(-24));
    let o = warpkit_in(&d, &["cc", "f.cl", "-cl-bogus"]);
    expect(&o, 2, &["unknown compiler option `-cl-bogus`"]);
}

#[test]
fn compile_errors_are_reported_as_clang_reports_them() {
    let d = dir("cc-errors");
    std::fs::write(
        d.join("k.cl"),
        "kernel void f(global int *out)\n{\n    out[0] = undeclared;\n    out[1] = other(3);\n}\n",
    )
    .unwrap();
    let o = warpkit_in(&d, &["cc", "k.cl", "-o", "k.s"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "k.cl:3:14: error: use of undeclared identifier 'undeclared'\n    \
         3 |     out[0] = undeclared;\n      |              ^~~~~~~~~~\n\
         k.cl:4:14: error: implicit declaration of function 'other' is invalid in OpenCL\n    \
         4 |     out[1] = other(3);\n      |              ^~~~~\n\
         2 errors generated.\n"
    );
    assert!(
        !d.join("k.s").exists(),
        "no output for a failed compilation"
    );
    // Every syntax error too, with notes.
    std::fs::write(
        d.join("p.cl"),
        "kernel void f(global int *out)\n{\n    out[0] = 1 +;\n    out[1] = (2;\n}\n",
    )
    .unwrap();
    let o = warpkit_in(&d, &["cc", "p.cl"]);
    expect(
        &o,
        2,
        &[
            "p.cl:3:17: error: expected expression\n",
            "p.cl:4:16: error: expected ')'\n",
            "p.cl:4:14: note: to match this '('\n",
            "2 errors generated.\n",
        ],
    );
    // An unsupported construct says so.
    std::fs::write(
        d.join("u.cl"),
        "kernel void f(global int *o) { l: o[0] = 1; goto l; }\n",
    )
    .unwrap();
    let o = warpkit_in(&d, &["cc", "u.cl"]);
    expect(
        &o,
        2,
        &[
            "u.cl:1:45: error: unsupported: 'goto' statement\n",
            "^~~~~~~\n",
        ],
    );
    // run and debug report the same diagnostics, before any argument is looked at.
    for cmd in ["run", "debug"] {
        let o = warpkit_in(&d, &[cmd, "k.cl", "--arg", "nonsense"]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(
            stderr(&o).starts_with("k.cl:3:14: error: use of undeclared"),
            "{cmd}"
        );
    }
    // Warnings go to stderr and the output is written; -Werror makes them errors.
    std::fs::write(
        d.join("w.cl"),
        "#define A 1\n#define A 2\nkernel void f(global int *o) { o[0] = A; }\n",
    )
    .unwrap();
    let o = warpkit_in(&d, &["cc", "w.cl", "-o", "w.s"]);
    expect(
        &o,
        0,
        &[
            "w.cl:2:9: warning: 'A' macro redefined",
            "1 warning generated.",
        ],
    );
    assert!(d.join("w.s").exists());
    let o = warpkit_in(&d, &["cc", "w.cl", "-Werror"]);
    expect(&o, 2, &["w.cl:2:9: error: 'A' macro redefined"]);
    let o = warpkit_in(&d, &["cc", "w.cl", "-w"]);
    expect(&o, 0, &[]);
    assert_eq!(stderr(&o), "");
}

#[test]
fn refusals() {
    let d = flip_dir("cc-refusals");
    let before = std::fs::read(d.join("k.cl")).unwrap();
    let o = warpkit_in(&d, &["cc", "k.cl", "-o", "k.cl"]);
    expect(&o, 2, &["refusing to overwrite"]);
    assert_eq!(std::fs::read(d.join("k.cl")).unwrap(), before);
    let o = warpkit_in(&d, &["cc", "k.cl", "-o", "./k.cl"]);
    expect(&o, 2, &["refusing to overwrite"]);
    assert_eq!(std::fs::read(d.join("k.cl")).unwrap(), before);

    std::fs::write(d.join("u.cl"), b"kernel void f() {}\n// \xff\n").unwrap();
    let o = warpkit_in(&d, &["cc", "u.cl"]);
    expect(&o, 2, &["u.cl: not UTF-8 text (byte offset 22)"]);
    let o = warpkit_in(&d, &["run", "u.cl"]);
    expect(&o, 2, &["u.cl", "not UTF-8 text (byte offset 22)"]);
    let o = warpkit_in(&d, &["cc", "missing.cl"]);
    expect(&o, 2, &["missing.cl"]);
    // A checkpoint holds the compiled program: compiler options do not apply to --resume.
    let o = warpkit_in(&d, &["run", "--resume", "c.ckpt", "-DX"]);
    expect(&o, 2, &["--resume"]);
}

const RUN_FLIP: [&str; 10] = [
    "--grid",
    "2",
    "--block",
    "64",
    "--arg",
    "out=buf:512",
    "--arg",
    "bias=7",
    "--arg",
    "tmp=local:256",
];

#[test]
fn run_with_typed_arguments_and_out() {
    let d = flip_dir("cc-run");
    let mut args = vec!["run", "k.cl", "--kernel", "flip"];
    args.extend(RUN_FLIP);
    args.extend(["--out", "out=o.bin"]);
    let o = warpkit_in(&d, &args);
    ok(&o);
    assert_eq!(
        words(&std::fs::read(d.join("o.bin")).unwrap()),
        flipped(2, 64, 7)
    );
    // Two kernels: --kernel is needed.
    let o = warpkit_in(&d, &["run", "k.cl", "--arg", "out=buf:512"]);
    expect(
        &o,
        2,
        &["declares 2 kernels (flip, scale)", "--kernel NAME"],
    );
    // Floats and a uchar by the parameters' kinds; out of range is refused.
    let input: Vec<u8> = (0..64).flat_map(|i| (i as f32).to_le_bytes()).collect();
    std::fs::write(d.join("in.bin"), input).unwrap();
    let scale = |k: &str, add: &str| {
        warpkit_in(
            &d,
            &[
                "run",
                "k.cl",
                "--kernel",
                "scale",
                "--grid",
                "2",
                "--block",
                "32",
                "--arg",
                "out=buf:256",
                "--arg",
                "in=@in.bin",
                "--arg",
                k,
                "--arg",
                add,
                "--out",
                "out=o.bin",
            ],
        )
    };
    ok(&scale("k=-1.5", "add=200"));
    let out: Vec<f32> = std::fs::read(d.join("o.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        out,
        (0..64).map(|i| i as f32 * -1.5 + 200.0).collect::<Vec<_>>()
    );
    expect(
        &scale("k=1", "add=256"),
        2,
        &["`add` (uchar)", "256 is not in 0..255"],
    );
    expect(
        &scale("k=one", "add=1"),
        2,
        &["`k` (float)", "not a float literal"],
    );
    expect(&scale("add=1", "k=1"), 2, &["expects `k` (float) here"]);
}

/// A struct passed by value takes `@FILE` (or `buf:BYTES`) with its bytes, as laid out in
/// the kernel (provisional, docs/opencl.md); a `__local` pointer also takes `buf:BYTES`.
#[test]
fn struct_and_local_arguments_from_the_command_line() {
    let d = dir("cc-struct-arg");
    std::fs::write(
        d.join("k.cl"),
        "typedef struct { float scale; int offset; } par_t;\n\
         kernel void apply(par_t par, global int *out, local int *tmp)\n\
         {\n\
             int l = get_local_id(0);\n\
             tmp[l] = (int)(par.scale * l) + par.offset;\n\
             barrier(CLK_LOCAL_MEM_FENCE);\n\
             out[get_global_id(0)] = tmp[get_local_size(0) - 1 - l];\n\
         }\n",
    )
    .unwrap();
    let par: Vec<u8> = [2.0f32.to_le_bytes(), (-5i32).to_le_bytes()].concat();
    std::fs::write(d.join("par.bin"), par).unwrap();
    let o = warpkit_in(
        &d,
        &[
            "run",
            "k.cl",
            "--grid",
            "2",
            "--block",
            "32",
            "--arg",
            "par=@par.bin",
            "--arg",
            "out=buf:256",
            "--arg",
            "tmp=buf:128",
            "--out",
            "out=o.bin",
        ],
    );
    ok(&o);
    let want: Vec<i32> = (0..64).map(|g| (31 - g % 32) * 2 - 5).collect();
    assert_eq!(words(&std::fs::read(d.join("o.bin")).unwrap()), want);
    // A struct is not an integer.
    let o = warpkit_in(
        &d,
        &[
            "run",
            "k.cl",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "par=3",
            "--arg",
            "out=buf:128",
            "--arg",
            "tmp=local:128",
        ],
    );
    expect(&o, 2, &["`par` (par_t)", "give @FILE or buf:BYTES"]);
}

#[test]
fn a_required_work_group_size_is_the_launchs_block() {
    let d = dir("cc-reqd");
    std::fs::write(
        d.join("r.cl"),
        "__attribute__((reqd_work_group_size(64, 1, 1)))\n\
         kernel void r(global int *o) { o[get_global_id(0)] = get_local_size(0); }\n",
    )
    .unwrap();
    let o = warpkit_in(&d, &["cc", "r.cl"]);
    ok(&o);
    assert!(stdout(&o).contains("    .kernel r, shared=0, scratch=0, block=64x1x1\n"));
    ok(&warpkit_in(
        &d,
        &["run", "r.cl", "--arg", "o=buf:256", "--out", "o=o.bin"],
    ));
    assert_eq!(
        words(&std::fs::read(d.join("o.bin")).unwrap()),
        vec![64; 64]
    );
    let o = warpkit_in(&d, &["run", "r.cl", "--block", "32", "--arg", "o=buf:256"]);
    expect(&o, 2, &["requires a workgroup of 64x1x1 threads"]);
}

#[test]
fn a_trap_names_the_cl_line_and_column() {
    let d = dir("cc-trap");
    std::fs::write(
        d.join("oob.cl"),
        "kernel void oob(global int *out, int n)\n{\n    int i = get_global_id(0);\n    out[i + n] = i;\n}\n",
    )
    .unwrap();
    let run = |n: &str| {
        warpkit_in(
            &d,
            &[
                "run",
                "oob.cl",
                "--block",
                "32",
                "--arg",
                "out=buf:128",
                "--arg",
                n,
            ],
        )
    };
    ok(&run("n=0"));
    let o = run("n=4096");
    expect(
        &o,
        1,
        &[
            "trapped: cause 5 (memory access fault (provisional))",
            "(oob.cl:4:5)\n",
        ],
    );
}

#[test]
fn profiles_name_the_cl_lines() {
    let d = flip_dir("cc-profile");
    for file in ["p.json", "p.html"] {
        let mut args = vec!["run", "k.cl", "--kernel", "flip", "--profile", file];
        args.extend(RUN_FLIP);
        ok(&warpkit_in(&d, &args));
    }
    let json = std::fs::read_to_string(d.join("p.json")).unwrap();
    // The barrier is `k.cl` line 6, column 5, executed by the 4 warps.
    let barrier = json
        .split("{\"pc\"")
        .find(|i| i.contains("\"asm\": \"barrier\""))
        .unwrap_or_else(|| panic!("{json}"));
    for piece in [
        "\"file\": \"k.cl\"",
        "\"line\": 6",
        "\"column\": 5",
        "\"executed\": 4",
    ] {
        assert!(barrier.contains(piece), "{piece} in {barrier}");
    }
    let html = std::fs::read_to_string(d.join("p.html")).unwrap();
    assert!(html.contains("k.cl"), "the page names the source");
    assert!(
        html.contains("barrier(CLK_LOCAL_MEM_FENCE);"),
        "and shows its lines"
    );
}

#[test]
fn a_checkpointed_run_resumes_to_the_same_output() {
    let d = flip_dir("cc-checkpoint");
    let mut args = vec!["run", "k.cl", "--kernel", "flip"];
    args.extend(RUN_FLIP);
    let mut whole = args.clone();
    whole.extend(["--out", "out=whole.bin"]);
    ok(&warpkit_in(&d, &whole));
    for steps in ["1", "30", "60"] {
        let mut stop = args.clone();
        stop.extend(["--stop-after-steps", steps, "--save-checkpoint", "c.ckpt"]);
        let o = warpkit_in(&d, &stop);
        expect(&o, 0, &["checkpoint: saved c.ckpt"]);
        let o = warpkit_in(
            &d,
            &["run", "--resume", "c.ckpt", "--out", "out=resumed.bin"],
        );
        ok(&o);
        assert_eq!(
            std::fs::read(d.join("resumed.bin")).unwrap(),
            std::fs::read(d.join("whole.bin")).unwrap(),
            "stopped after {steps} steps"
        );
    }
    // A trap found after resuming names the .cl line as the whole run does.
    std::fs::write(
        d.join("oob.cl"),
        "kernel void oob(global int *out)\n{\n    out[get_global_id(0) + 1000] = 1;\n}\n",
    )
    .unwrap();
    let o = warpkit_in(
        &d,
        &[
            "run",
            "oob.cl",
            "--block",
            "32",
            "--arg",
            "out=buf:128",
            "--stop-after-steps",
            "1",
            "--save-checkpoint",
            "t.ckpt",
        ],
    );
    ok(&o);
    let o = warpkit_in(&d, &["run", "--resume", "t.ckpt"]);
    expect(&o, 1, &["(oob.cl:3:5)"]);
}

/// `warpkit debug ARGS` in `cwd` with `commands` on standard input.
fn debug(cwd: &Path, args: &[&str], commands: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .current_dir(cwd)
        .arg("debug")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpkit runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(commands.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_debugger_breaks_at_a_cl_line() {
    let d = flip_dir("cc-debug");
    let mut args = vec!["k.cl", "--kernel", "flip"];
    args.extend(RUN_FLIP);
    let o = debug(
        &d,
        &args,
        "break k.cl:7\ncontinue\np pc\nx/4dw shared:0\ncontinue\ninfo warps\ndelete\ncontinue\n",
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(
        out.contains("(warpkit) break k.cl:7\nbreakpoint 1 at 0x"),
        "{out}"
    );
    assert!(out.contains(" (k.cl:7:"), "{out}");
    assert!(
        out.contains("(warpkit) continue\nbreakpoint 1, warp 0.0\nk.cl:7:"),
        "{out}"
    );
    assert!(out.contains("(warpkit) p pc\npc = 0x"), "{out}");
    // Both warps of workgroup 0 wrote `tmp` before the barrier released them.
    assert!(out.contains("shared:0x0: 7 17 27 37\n"), "{out}");
    assert!(out.contains("breakpoint 1, warp 0.1\n"), "{out}");
    assert!(
        out.contains("the launch finished: 2 workgroups, 4 warps"),
        "{out}"
    );
    // A line without code breaks at the next line with code; the comment line has none.
    let o = debug(&d, &args, "break k.cl:1\n");
    assert!(stdout(&o).contains("(k.cl:2:"), "{}", stdout(&o));
}

#[test]
fn compiled_code_never_meets_a_hazard() {
    let d = dir("cc-hazards");
    // Divergent branches, loops with uniform and divergent trip counts, local memory and
    // barriers, 64-bit and double arithmetic, a private array (scratch), loads in flight
    // across control flow.
    std::fs::write(
        d.join("h.cl"),
        "kernel void h(global int *out, global const int *in, local int *tmp, int n,
               global double *d)
{
    int l = get_local_id(0), g = get_global_id(0);
    int a[8];
    for (int j = 0; j < 8; j++)
        a[j] = in[(g + j) % 64] * j;
    int s = 0;
    for (int j = 0; j < l % 7; j++)
        s += a[(j + l) & 7];
    if (l & 1)
        s = s * 3 + in[l & 63];
    else if (l & 2)
        s -= n;
    tmp[l] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < n; k++) {
        s += tmp[(l + k) % get_local_size(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    long w = (long)s * 1000003;
    d[g] = (double)w / 7.0 + sqrt((double)l);
    out[g] = s + (int)(w >> 20);
}
",
    )
    .unwrap();
    let input: Vec<u8> = (0..64i32)
        .flat_map(|i| (i * 7 - 100).to_le_bytes())
        .collect();
    std::fs::write(d.join("in.bin"), input).unwrap();
    for opt in ["-O0", "-O2"] {
        let o = warpkit_in(
            &d,
            &[
                "run",
                "h.cl",
                opt,
                "--grid",
                "2",
                "--block",
                "96",
                "--arg",
                "out=buf:768",
                "--arg",
                "in=@in.bin",
                "--arg",
                "tmp=local:384",
                "--arg",
                "n=5",
                "--arg",
                "d=buf:1536",
                "--strict-hazards",
            ],
        );
        expect(&o, 0, &[" 0 hazards\n"]);
    }
}
