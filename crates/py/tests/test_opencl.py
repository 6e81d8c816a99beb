"""OpenCL C from Python: `warpkit.compile` (source text or a path, defines, include
directories, build options), `warpkit.load("k.cl")`, launching the result as any program
with metadata (local memory and barriers, float arguments, several kernels in one file,
private arrays in scratch memory), and compile errors as `CompileError` with the
diagnostics `warpkit cc` prints."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

import warpkit

ROOT = pathlib.Path(__file__).resolve().parents[3]


def cli(*args, cwd=None):
    exe = os.environ.get("WARPKIT_CLI") or str(ROOT / "target" / "debug" / "warpkit")
    if not pathlib.Path(exe).exists():
        pytest.fail(f"no warpkit CLI at {exe}: build it or set WARPKIT_CLI")
    return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd)


# Each workgroup reverses its part of `in`, scaled by k, through local memory.
REVERSE = """\
kernel void reverse(global float *out, global const float *in, float k,
                    local float *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)] * k;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[n - 1 - l];
}
"""

# Two kernels, a static __local array, a double and a long argument.
TWO = """\
#ifndef STEP
#error STEP is not defined
#endif
kernel void sums(global int *out, local int *scratch)
{
    __local int total[1];
    int l = get_local_id(0);
    if (l == 0)
        total[0] = 0;
    scratch[l] = l * STEP;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&total[0], scratch[l]);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = total[0];
}

kernel void axpy(global double *y, global const double *x, double a, long n)
{
    long i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""


def reversed_groups(x, block):
    return x.reshape(-1, block)[:, ::-1].ravel()


def test_source_text_with_local_memory_barriers_and_a_float_argument():
    prog = warpkit.compile(REVERSE, filename="reverse.cl")
    assert [k["name"] for k in prog.kernels] == ["reverse"]
    params = prog.kernels[0]["params"]
    assert [(p["name"], p["kind"]) for p in params] == [
        ("out", "ptr.global"), ("in", "ptr.global"), ("k", "f32"), ("tmp", "ptr.local")]
    x = np.arange(256, dtype=np.float32)
    for block in [64, 128]:
        run = warpkit.launch(prog, grid=256 // block, block=block,
                             args={"tmp": warpkit.local(4 * block), "k": 0.5, "in": x,
                                   "out": np.zeros_like(x)})
        assert (run.buffers["out"] == reversed_groups(x, block) * 0.5).all()
    # Too little local memory for the block: the kernel reads past it, a trap that names
    # the C line and column.
    with pytest.raises(warpkit.Trap) as e:
        warpkit.launch(prog, grid=1, block=64,
                       args={"tmp": warpkit.local(4), "k": 1.0, "in": x, "out": x},
                       shared=16)
    assert "(reverse.cl:" in str(e.value)


def test_a_path_and_load_compile_the_same_program(tmp_path):
    path = tmp_path / "reverse.cl"
    path.write_text(REVERSE)
    for prog in [warpkit.compile(path), warpkit.compile(str(path)), warpkit.load(path)]:
        assert prog.bytes == warpkit.compile(REVERSE, filename=str(path)).bytes
        x = np.arange(64, dtype=np.float32)
        run = warpkit.launch(prog, grid=1, block=64,
                             args={"out": warpkit.Buffer(256, np.float32), "in": x,
                                   "k": 2, "tmp": warpkit.local(256)})
        assert (run.buffers["out"] == x[::-1] * 2).all()
    # The source lines name the file as given.
    with pytest.raises(warpkit.Trap) as e:
        warpkit.launch(warpkit.compile(path), grid=1, block=64,
                       args={"out": x, "in": x, "k": 1.0, "tmp": warpkit.local(4)}, shared=16)
    assert f"({path}:5:" in str(e.value), str(e.value)


def test_several_kernels_in_one_file_and_defines(tmp_path):
    path = tmp_path / "two.cl"
    path.write_text(TWO)
    prog = warpkit.compile(path, defines={"STEP": 3})
    assert [k["name"] for k in prog.kernels] == ["sums", "axpy"]
    with pytest.raises(warpkit.LaunchError, match="2 kernels"):
        warpkit.launch(prog, args={})
    run = warpkit.launch(prog, grid=2, block=64, entry="sums",
                         args={"out": warpkit.Buffer(512, np.int32),
                               "scratch": warpkit.local(256)})
    assert (run.buffers["out"] == 3 * sum(range(64))).all()
    # Every spelling of the same define; the build options string too.
    for spelling in [dict(defines=["STEP=5"]), dict(defines=[("STEP", 5)]),
                     dict(defines={"STEP": "5"}), dict(options="-DSTEP=5"),
                     dict(options="-D STEP=5 -cl-mad-enable -O1")]:
        prog = warpkit.compile(path, kernel="sums", **spelling)
        assert prog.kernel == "sums"
        run = warpkit.launch(prog, grid=1, block=32,
                             args={"out": warpkit.Buffer(128, np.int32),
                                   "scratch": warpkit.local(128)})
        assert (run.buffers["out"] == 5 * sum(range(32))).all(), spelling
    # A define without a value is 1; undefines remove it again.
    prog = warpkit.load(path, kernel="sums", defines=["STEP"])
    run = warpkit.launch(prog, block=32, args={"out": warpkit.Buffer(128, np.int32),
                                                "scratch": warpkit.local(128)})
    assert (run.buffers["out"] == sum(range(32))).all()
    with pytest.raises(warpkit.CompileError, match="STEP is not defined"):
        warpkit.compile(path, defines={"STEP": None}, undefines=["STEP"])

    n = 100
    x = np.linspace(-1, 1, n)
    y = np.arange(n, dtype=np.float64)
    prog = warpkit.compile(path, defines={"STEP": 1}, kernel="axpy")
    run = warpkit.launch(prog, grid=2, block=64, args={"y": y, "x": x, "a": 0.25, "n": n})
    assert (run.buffers["y"] == 0.25 * x + y).all()


def test_include_dirs_and_the_files_directory(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "val.h").write_text("#define VAL 41\n")
    (tmp_path / "near.h").write_text("#define NEAR 1\n")
    src = ('#include "val.h"\n#include "near.h"\n'
           "kernel void k(global int *out) { out[get_global_id(0)] = VAL + NEAR; }\n")
    (tmp_path / "k.cl").write_text(src)
    with pytest.raises(warpkit.CompileError, match="val.h"):
        warpkit.compile(tmp_path / "k.cl")
    for prog in [warpkit.compile(tmp_path / "k.cl", include_dirs=[tmp_path / "inc"]),
                 warpkit.compile(tmp_path / "k.cl", options=f"-I {tmp_path / 'inc'}"),
                 warpkit.compile(src, filename=str(tmp_path / "k.cl"),
                                 include_dirs=[str(tmp_path / "inc")])]:
        run = warpkit.launch(prog, args={"out": warpkit.Buffer(128, np.int32)})
        assert (run.buffers["out"] == 42).all()


def test_build_options_reach_the_compiler():
    src = "kernel void f(global float *o, float a, float b, float c) { o[0] = a * b + c; }\n"
    plain = warpkit.compile(src).disassemble(plain=True)
    fused = warpkit.compile(src, options="-cl-mad-enable").disassemble(plain=True)
    assert "ffma" not in plain and "fmul" in plain
    assert "ffma" in fused
    # (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 exactly; the product alone rounds to 1 + 2^-11.
    a = b = np.float32(1 + 2 ** -12)
    c = np.float32(-(1 + 2 ** -11))
    out = {}
    for name, opts in [("plain", None), ("fused", "-cl-mad-enable")]:
        run = warpkit.launch(warpkit.compile(src, options=opts), grid=1, block=32,
                             args={"o": np.zeros(1, np.float32), "a": a, "b": b, "c": c})
        out[name] = run.buffers["o"][0]
    assert out["plain"] == 0 == np.float32(a * b) + c   # two roundings
    assert out["fused"] == 2.0 ** -24                   # one
    with pytest.raises(ValueError, match="unknown compiler option `-cl-nonsense`"):
        warpkit.compile(src, options="-cl-nonsense")
    with pytest.raises(ValueError, match="without an argument"):
        warpkit.compile(src, options="-D")


BAD = """\
kernel void f(global int *out)
{
    out[0] = undeclared;
    out[1] = other(3);
}
"""


def test_compile_errors_carry_every_diagnostic_as_warpkit_cc_prints_them(tmp_path):
    path = tmp_path / "bad.cl"
    path.write_text(BAD)
    with pytest.raises(warpkit.CompileError) as e:
        warpkit.compile(path)
    err = e.value
    assert isinstance(err, warpkit.Error)
    o = cli("cc", str(path))
    assert o.returncode == 2
    assert str(err) == o.stderr.rstrip("\n")
    errors = [d for d in err.diagnostics if d.severity == "error"]
    assert len(errors) == 2 and "2 errors generated." in str(err)
    assert [(d.file, d.line) for d in errors] == [(str(path), 3), (str(path), 4)]
    assert (err.file, err.line, err.col, err.text) == (
        errors[0].file, errors[0].line, errors[0].col, errors[0].text)
    assert "undeclared" in err.text
    assert str(errors[0]).startswith(f"{path}:3:{errors[0].col}: error: ")
    # The source line and a caret under the offending text.
    assert "    out[0] = undeclared;\n" in str(err) and "^" in str(err)
    # load raises the same.
    with pytest.raises(warpkit.CompileError) as again:
        warpkit.load(path)
    assert str(again.value) == str(err)


def test_unsupported_constructs_warnings_and_werror():
    with pytest.raises(warpkit.CompileError, match="unsupported: ") as e:
        warpkit.compile("kernel void f(global int *o) { o[0] = ({ 1; }); }\n")
    assert e.value.diagnostics[0].severity == "error"
    redefined = "#define A 1\n#define A 2\nkernel void f(global int *o) { o[0] = A; }\n"
    prog = warpkit.compile(redefined, filename="w.cl")
    [w] = prog.warnings
    assert (w.severity, w.file, w.line) == ("warning", "w.cl", 2)
    assert str(w).startswith("w.cl:2:") and ": warning: " in str(w)
    assert warpkit.compile(redefined, options="-w").warnings == []
    with pytest.raises(warpkit.CompileError) as e:
        warpkit.compile(redefined, filename="w.cl", options="-Werror")
    assert e.value.line == 2


def test_source_or_path_and_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="taken as a path"):
        warpkit.compile("no_such_file.cl")
    with pytest.raises(ValueError, match="filename="):
        (tmp_path / "k.cl").write_text("kernel void k() {}\n")
        warpkit.compile(tmp_path / "k.cl", filename="x.cl")
    with pytest.raises(TypeError):
        warpkit.compile(42)
    with pytest.raises(TypeError, match="defines"):
        warpkit.compile("kernel void k() {}", defines="N=1")
    with pytest.raises(TypeError, match="defines"):
        warpkit.compile("kernel void k() {}", defines=[("N", 1, 2)])
    with pytest.raises(TypeError, match="defines"):
        warpkit.compile("kernel void k() {}", defines={"N": [1]})
    # Build options are for OpenCL C only.
    (tmp_path / "k.s").write_text("endpgm\n")
    with pytest.raises(ValueError, match="OpenCL C"):
        warpkit.load(tmp_path / "k.s", options="-O0")
    (tmp_path / "u.cl").write_bytes(b"kernel void k() {}\n// \xff\n")
    with pytest.raises(warpkit.CompileError, match="not UTF-8") as e:
        warpkit.compile(tmp_path / "u.cl")
    assert e.value.diagnostics[0].line == 0
    with pytest.raises(ValueError, match="kernel=\"nope\""):
        warpkit.compile("kernel void k() {}", kernel="nope")


def test_private_arrays_get_the_kernels_scratch_memory():
    src = """\
kernel void k(global int *out, int i)
{
    int a[16];
    for (int j = 0; j < 16; j++)
        a[j] = j * (int)get_local_id(0);
    out[get_global_id(0)] = a[i & 15];
}
"""
    prog = warpkit.compile(src)
    need = prog.kernels[0]["scratch_bytes"]
    assert need >= 64
    run = warpkit.launch(prog, grid=2, block=64, args={"out": warpkit.Buffer(512, np.int32),
                                                       "i": 5})
    assert (run.buffers["out"] == 5 * np.tile(np.arange(64), 2)).all()
    assert run.warps[0].csr["scratch_size"] == need
    with pytest.raises(warpkit.LaunchError, match="scratch"):
        warpkit.launch(prog, args={"out": warpkit.Buffer(128), "i": 1}, scratch=4)
    sim = warpkit.Simulator(prog, args={"out": warpkit.Buffer(128, np.int32), "i": 2})
    assert (sim.finish().buffers["out"] == 2 * np.arange(32)).all()


def test_the_simulator_steps_through_a_compiled_kernel():
    prog = warpkit.compile(REVERSE, filename="reverse.cl")
    x = np.arange(64, dtype=np.float32)
    sim = warpkit.Simulator(prog, grid=1, block=64,
                            args={"out": np.zeros_like(x), "in": x, "k": 3.0,
                                  "tmp": warpkit.local(256)})
    # Warp 0 runs to the barrier, then warp 1: both have written `tmp`.
    barriers = []
    while len(barriers) < 2:
        barriers += [c.warp for c in sim.step() if c.asm == "barrier"]
    assert barriers == [0, 1]
    assert (sim.read_shared(0, 256).view(np.float32) == 3 * x).all()
    run = sim.finish()
    assert (run.buffers["out"] == 3 * x[::-1]).all()


def test_the_stub_states_the_native_signatures():
    import ast
    import inspect

    stub = ast.parse((ROOT / "crates/py/python/warpkit/__init__.pyi").read_text())
    top = {n.name: n for n in stub.body if isinstance(n, ast.FunctionDef)}
    for name in ["compile", "load"]:
        native = inspect.signature(getattr(warpkit, name)).parameters
        stubbed = top[name].args
        assert list(native) == [a.arg for a in stubbed.args + stubbed.kwonlyargs], name
        assert all(p.default is None for p in list(native.values())[1:]), name
    assert "compile" in warpkit.__all__ and "CompileError" in warpkit.__all__
    assert issubclass(warpkit.CompileError, warpkit.Error)
