"""Kernel metadata (.kernel/.param) from Python: `load(path, kernel=NAME)`, `launch` with
the arguments checked by name against the parameters (numpy arrays for pointers,
`warpkit.local(n)` for local memory, range-checked ints, floats rounded into the
parameter's format), the same refusals as `warpkit run`, `Simulator`, and source locations
from `.file`/`.loc`."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

import warpkit

ROOT = pathlib.Path(__file__).resolve().parents[3]

# scale: out[lane] = bits(x + x) + n through the local memory tmp; out[32 + lane] = the
# shared memory size (u13); out[64 + lane] = tmp's offset. fill: out[lane] = v.
TWO = """\
    .kernel scale, shared=20, block=32
    .param scale, out, ptr.global, "float *"
    .param scale, x, f32, "float"
    .param scale, tmp, ptr.local, "local float *"
    .param scale, n, i8, "char"
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
    .param fill, out, ptr.global, "int *"
    .param fill, v, u32
"""


def cli(*args, cwd=None):
    exe = os.environ.get("WARPKIT_CLI") or str(ROOT / "target" / "debug" / "warpkit")
    if not pathlib.Path(exe).exists():
        pytest.fail(f"no warpkit CLI at {exe}: build it or set WARPKIT_CLI")
    return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "k.s"
    path.write_text(TWO)
    return path


def expected_scale(x, n):
    """bits(x + x) + n, modulo 2^32."""
    return (int(np.float32(x + x).view(np.uint32)) + n) & 0xFFFFFFFF


def test_load_chooses_a_kernel_and_launch_checks_arguments_by_name(source):
    prog = warpkit.load(source, kernel="scale")
    assert prog.kernel == "scale"
    assert [k["name"] for k in prog.kernels] == ["scale", "fill"]
    scale = prog.kernels[0]
    assert (scale["shared_bytes"], scale["scratch_bytes"], scale["block"]) == (20, 0, (32, 1, 1))
    assert scale["params"][2] == {"name": "tmp", "kind": "ptr.local", "c_type": "local float *"}
    # Any dict order; the slots follow the parameters.
    out = np.zeros(96, dtype=np.uint32)
    run = warpkit.launch(prog, args={"n": -3, "tmp": warpkit.local(128), "x": 1.5, "out": out})
    got = run.buffers["out"]
    assert got.dtype == np.uint32 and got.shape == (96,)
    assert (got[:32] == expected_scale(1.5, -3)).all()
    # shared= (the default 65536) is at least what the kernel needs; tmp follows the
    # static 20 bytes at the next 16-byte boundary.
    assert got[32] == 65536 and got[64] == 32
    # The other kernel of the same file, and floats of every kind of number.
    fill = warpkit.load(source, kernel="fill")
    run = warpkit.launch(fill, args={"out": warpkit.Buffer(128, np.uint32), "v": 4294967295})
    assert (run.buffers["out"] == 0xFFFFFFFF).all()
    run = warpkit.launch(prog, args={"out": warpkit.Buffer(384, np.uint32), "x": np.float32(0.25),
                                     "tmp": warpkit.Local(16), "n": np.int8(5)})
    assert (run.buffers["out"][:32] == expected_scale(0.25, 5)).all()
    run = warpkit.launch(prog, args={"out": warpkit.Buffer(384, np.uint32), "x": 2,
                                     "tmp": warpkit.local(16), "n": 0})
    assert (run.buffers["out"][:32] == expected_scale(2.0, 0)).all()


def test_the_same_refusals_as_the_cli(source):
    prog = warpkit.load(source, kernel="scale")
    good = {"out": warpkit.Buffer(384), "x": 1.5, "tmp": warpkit.local(128), "n": 1}

    def refused(error=warpkit.LaunchError, **changes):
        args = {k: v for k, v in {**good, **changes}.items() if v is not None}
        with pytest.raises(error) as e:
            warpkit.launch(prog, args=args)
        return str(e.value)

    assert refused(n=None) == (
        "kernel `scale` takes 4 arguments (out, x, tmp, n), 3 given: `n` (char) is missing")
    assert refused(m=1) == (
        "argument `m`: kernel `scale` has no parameter `m`; its parameters are out, x, tmp, n")
    assert refused(n=128) == (
        "argument `n`: parameter `n` (char) of kernel `scale` is i8: 128 is not in -128..127")
    assert "it takes an integer, not a float" in refused(n=1.0)
    assert "it takes a buffer, not an integer" in refused(out=5)
    assert "it takes local memory (a byte count), not a buffer" in refused(tmp=warpkit.Buffer(4))
    assert refused(x=1e39).endswith("is f32: 1e39 is out of range for f32 (it would round "
                                     "to infinity)")
    assert "argument `x`: expected an int, a float" in refused(TypeError, x="1.5")
    with pytest.raises(warpkit.LaunchError, match="fewer than kernel `scale` needs: 160"):
        warpkit.launch(prog, args=good, shared=100)
    with pytest.raises(warpkit.LaunchError, match="requires a workgroup of 32x1x1"):
        warpkit.launch(prog, args=good, block=64)
    with pytest.raises(warpkit.LaunchError, match=r"declares 2 kernels \(scale, fill\)"):
        warpkit.launch(warpkit.load(source), args=good)
    with pytest.raises(ValueError, match="there is no kernel `nope`"):
        warpkit.load(source, kernel="nope")
    with pytest.raises(warpkit.LaunchError, match="entry `fill` cannot be given too"):
        warpkit.launch(prog, args=good, entry="fill")


def test_entry_selects_a_kernel_and_source_text_works_too(source):
    run = warpkit.launch(TWO, entry="fill", args={"out": warpkit.Buffer(128, np.uint32), "v": 9})
    assert (run.buffers["out"] == 9).all()
    with pytest.raises(warpkit.LaunchError, match="-1 is not in 0..4294967295"):
        warpkit.launch(TWO, entry="fill", args={"out": warpkit.Buffer(128), "v": -1})
    # A program without metadata keeps the dict-order slots of before.
    plain = "uload.b32 u18, u[0:1], 8\nwaitcnt sm=0\nendpgm\n"
    assert warpkit.launch(plain, args={"b": warpkit.Buffer(4), "a": 7}).ok


def test_the_simulator_launches_by_metadata(source):
    prog = warpkit.load(source, kernel="fill")
    sim = warpkit.Simulator(prog, args={"v": 3, "out": warpkit.Buffer(128, np.uint32)})
    assert sim.pc(0) == prog.symbols["fill"]
    run = sim.finish()
    assert (run.buffers["out"] == 3).all()
    with pytest.raises(warpkit.LaunchError, match="missing"):
        warpkit.Simulator(prog, args={"v": 3})


def test_an_elf_object_keeps_the_metadata(source, tmp_path):
    o = cli("asm", str(source), "-o", str(tmp_path / "k.o"))
    assert o.returncode == 0, o.stderr
    prog = warpkit.load(tmp_path / "k.o", kernel="scale")
    assert prog.kernels == warpkit.load(source).kernels
    run = warpkit.launch(prog, args={"out": warpkit.Buffer(384, np.uint32), "x": -0.5,
                                     "tmp": warpkit.local(0), "n": 127})
    assert (run.buffers["out"][:32] == expected_scale(-0.5, 127)).all()
    assert ".kernel scale, shared=20, block=32x1x1" in prog.disassemble(plain=True)


def test_trap_messages_name_loc_lines_and_columns(tmp_path):
    src = '.file 1 "k.cl"\nnop\n.loc 1 4 14\numov.l u1, 0xffffffff\ncsrw mode, u1\nendpgm\n'
    with pytest.raises(warpkit.Trap) as e:
        warpkit.launch(src)
    assert str(e.value).endswith("trapinfo 0xffffffff (k.cl:4:14)")
