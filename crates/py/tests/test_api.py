"""The Python interface of docs/python.md: assembly, decoding, launches and their errors,
each compared with what the `warpkit` CLI prints for the same input."""

import ast
import inspect
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

import warpkit

ROOT = pathlib.Path(__file__).resolve().parents[3]


def cli(*args, cwd=None):
    """Run the `warpkit` CLI of this workspace (WARPKIT_CLI, else target/debug)."""
    exe = os.environ.get("WARPKIT_CLI") or str(ROOT / "target" / "debug" / "warpkit")
    if not pathlib.Path(exe).exists():
        pytest.fail(f"no warpkit CLI at {exe}: build it or set WARPKIT_CLI")
    return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd)


def test_assemble_bytes_symbols_and_disassembly(tmp_path):
    src = "start:\n  laneid v1\n  umovi u2, 5\nloop:\n  endpgm\n"
    prog = warpkit.assemble(src)
    assert prog.symbols == {"start": 0, "loop": 8}
    assert len(prog.bytes) == 12 == len(prog)
    (tmp_path / "k.s").write_text(src)
    out = cli("asm", str(tmp_path / "k.s"), "-o", str(tmp_path / "k.bin"))
    assert out.returncode == 0, out.stderr
    assert prog.bytes == (tmp_path / "k.bin").read_bytes()
    assert warpkit.assemble(prog.disassemble(plain=True)).bytes == prog.bytes
    out = cli("asm", str(tmp_path / "k.s"), "--format", "elf", "-o", str(tmp_path / "k.o"))
    assert out.returncode == 0, out.stderr
    header = "Disassembly of section .text:\n\n"
    listing = cli("dis", str(tmp_path / "k.o")).stdout.split(header, 1)[1]
    assert prog.disassemble() == listing  # with the labels
    plain = cli("dis", "--plain", str(tmp_path / "k.bin")).stdout
    assert warpkit.disassemble(prog.bytes, plain=True) == prog.disassemble(plain=True) == plain
    raw = cli("dis", str(tmp_path / "k.bin")).stdout.split(header, 1)[1]
    assert warpkit.disassemble(prog.bytes) == raw


def test_assembly_error_is_the_cli_diagnostic(tmp_path):
    src = "nop\nadd v1, v2\nbogus v0\n"
    with pytest.raises(warpkit.AssemblyError) as info:
        warpkit.assemble(src, filename="bad.s")
    e = info.value
    assert isinstance(e, warpkit.Error)
    assert [(d.file, d.line) for d in e.diagnostics] == [("bad.s", 2), ("bad.s", 3)]
    assert (e.file, e.line, e.col) == ("bad.s", 2, e.diagnostics[0].col)
    assert e.text == e.diagnostics[0].text and e.text
    assert str(e.diagnostics[0]).startswith("bad.s:2:")
    (tmp_path / "bad.s").write_text(src)
    out = cli("asm", "bad.s", cwd=tmp_path)
    assert out.returncode == 2
    assert str(e) == out.stderr.rstrip("\n")


def test_load_detects_source_elf_and_raw(tmp_path):
    prog = warpkit.assemble("x:\n  nop\n  endpgm\n")
    (tmp_path / "k.s").write_text("x:\n  nop\n  endpgm\n")
    (tmp_path / "k.bin").write_bytes(prog.bytes)
    out = cli("asm", str(tmp_path / "k.s"), "--format", "elf", "-o", str(tmp_path / "k.o"))
    assert out.returncode == 0, out.stderr
    for name in ["k.s", "k.bin", "k.o"]:
        assert warpkit.load(tmp_path / name).bytes == prog.bytes, name
    assert warpkit.load(tmp_path / "k.o").symbols == {"x": 0}
    with pytest.raises(ValueError):
        warpkit.load(tmp_path / "missing.s")


def test_decode():
    prog = warpkit.assemble("add v1, v2, v3\numov.l u1, 0x12345678\n")
    i = warpkit.decode(prog.bytes[:4])
    assert i.mnemonic == "add" and i.operands == ["v1", "v2", "v3"]
    assert str(i) == "add v1, v2, v3" == i.mnemonic + " " + ", ".join(i.operands)
    assert i.length == 4 and warpkit.decode(i.word) == i
    assert set(i.fields) >= {"opcode"} and isinstance(i.format, str)
    wide = warpkit.decode(prog.bytes[4:])
    assert wide.length == 8 and "0x12345678" in str(wide)
    assert warpkit.decode(wide.word) == wide
    with pytest.raises(warpkit.DecodeError):
        warpkit.decode(b"\xff\xff\xff\xff")
    with pytest.raises(TypeError):
        warpkit.decode(1.5)


def test_warps_registers_are_numpy():
    run = warpkit.launch("laneid v1\numovi u2, 5\nendpgm\n", block=64)
    assert run.stats.warps == 2 and len(run.warps) == 2
    w = run.warps[1]
    assert w.v.shape == (128, 32) and w.v.dtype == np.uint32
    np.testing.assert_array_equal(w.v[1], np.arange(32))
    np.testing.assert_array_equal(w.v[3], np.arange(32, 64))  # ABI: flat thread id
    assert w.u[2] == 5 and w.u.shape == (64,)
    assert w.status == "ended" and w.trap is None and w.warp == 1
    assert w.csr["warpid"] == 1
    assert warpkit.launch("endpgm\n", keep_warps=False).warps == []


def test_buffers_round_trip_dtypes():
    src = """
        uload.b128 u[16:19], u[0:1], 0
        waitcnt sm=0
        sll.vi v5, v3, 2
        gload.b32 v6, v5, u[16:17], 0
        waitcnt vm=0
        add v6, v6, v6
        gstore.b32 v6, v5, u[18:19], 0
        endpgm
    """
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    run = warpkit.launch(src, args={"in": x, "out": warpkit.Buffer(128)})
    out = run.buffers["out"]
    assert out.dtype == np.uint8 and out.shape == (128,)
    np.testing.assert_array_equal(out.view(np.uint32), 2 * x.reshape(-1).view(np.uint32))
    assert run.buffers["in"].shape == (4, 8) and run.buffers["in"].dtype == np.float32
    np.testing.assert_array_equal(run.buffers["in"], x)


def test_buffers_of_any_layout_and_length_are_copied_once_and_come_back_owned():
    # out[i] = 2 * in[i] for 32 words; then in[i] = 1 (the kernel writes its input too).
    src = """
        uload.b128 u[16:19], u[0:1], 0
        waitcnt sm=0
        sll.vi v5, v3, 2
        gload.b32 v6, v5, u[16:17], 0
        waitcnt vm=0
        add v7, v6, v6
        gstore.b32 v7, v5, u[18:19], 0
        movi v8, 1
        gstore.b32 v8, v5, u[16:17], 0
        endpgm
    """
    words = np.arange(64, dtype=np.uint32) * 5
    inputs = {
        "strided": words[::2],
        "fortran": np.asfortranarray(words[:32].reshape(4, 8)),
        "odd bytes": np.frombuffer(words[:33].tobytes()[:130], dtype=np.uint8),
    }
    for what, x in inputs.items():
        before = x.copy()
        run = warpkit.launch(src, args={"in": x, "out": warpkit.Buffer(130)})
        back, out = run.buffers["in"], run.buffers["out"]
        assert (back.shape, back.dtype) == (x.shape, x.dtype), what
        np.testing.assert_array_equal(x, before, err_msg=f"{what}: the argument was written")
        c_order = np.ascontiguousarray(before).reshape(-1).view(np.uint8)
        np.testing.assert_array_equal(out[:128].view(np.uint32), 2 * c_order[:128].view(np.uint32))
        assert out.shape == (130,) and (out[128:] == 0).all(), what
        np.testing.assert_array_equal(back.reshape(-1).view(np.uint8)[:128].view(np.uint32), 1)
        np.testing.assert_array_equal(back.reshape(-1).view(np.uint8)[128:], c_order[128:])
        assert not np.shares_memory(back, x) and out.flags.writeable, what
        out[:] = 7  # the arrays are the caller's now
    run = warpkit.launch("endpgm\n", args={"empty": np.zeros((0, 3), np.float64),
                                           "none": warpkit.Buffer(0, np.float32)})
    assert run.buffers["empty"].shape == (0, 3) and run.buffers["none"].shape == (0,)
    assert run.buffers["none"].dtype == np.float32


def test_trap_raises_with_the_cli_report(tmp_path):
    src = "nop\numov.l u1, 0xffffffff\ncsrw mode, u1\nendpgm\n"
    with pytest.raises(warpkit.Trap) as info:
        warpkit.launch(src)
    e = info.value
    assert isinstance(e, warpkit.RunError)
    assert (e.cause, e.cause_name, e.pc, e.info) == (8, "illegal mode value", 12, 0xFFFFFFFF)
    assert e.asm == "csrw mode, u1" and e.workgroup == (0, 0, 0) and e.warp == 0
    assert not e.run.ok and e.run.trap.pc == 12 and e.run.warps[0].status == "trapped"
    assert str(e) == e.messages[0] == e.run.trap.message
    assert e.messages[0].endswith(" (<string>:3)")  # the source line, as the CLI names it
    (tmp_path / "t.s").write_text(src)
    with pytest.raises(warpkit.Trap) as info:
        warpkit.launch(warpkit.load(tmp_path / "t.s"))
    out = cli("run", str(tmp_path / "t.s"), "--grid", "1")
    assert out.returncode == 1
    assert f"error: {info.value.messages[0]}" in out.stderr.splitlines()
    run = warpkit.launch(src, check=False)
    assert not run.ok and run.trap.cause == 8 and len(run.traps) == 1


def test_memory_fault_names_address_and_lane():
    src = "umovi u4, 0\numovi u5, 0\ngload.b32 v1, v3, u[4:5], 0\nwaitcnt vm=0\nendpgm\n"
    with pytest.raises(warpkit.Trap) as info:
        warpkit.launch(src)
    assert info.value.address is not None and info.value.lane == 0


def test_step_limit_and_deadlock():
    with pytest.raises(warpkit.LimitExceeded) as info:
        warpkit.launch("top:\n  jmp top\n", max_steps=50)
    assert "after 50 instructions" in str(info.value)
    # Warp 1 traps before the barrier that warp 0 waits at.
    src = "bnz u29, .Lx\nbarrier\nendpgm\n.Lx:\n.word 0xffffffff\n"
    with pytest.raises(warpkit.Trap) as info:
        warpkit.launch(src, block=64)
    assert any(m.startswith("deadlock in workgroup (0,0,0)") for m in info.value.messages)
    run = info.value.run
    assert [w.status for w in run.warps] == ["running", "trapped"]
    # With every sibling stopped by the step limit instead, the deadlock is what is raised.
    spin = "bnz u29, .Lx\nbarrier\nendpgm\n.Lx:\njmp .Lx\n"
    with pytest.raises(warpkit.Deadlock) as info:
        warpkit.launch(spin, block=64, max_steps=100)
    assert "deadlock in workgroup (0,0,0)" in str(info.value)


def test_deadlock_is_told_from_the_reports_not_their_wording():
    # Warp 1 spins to its step limit; warp 0 waits at a barrier it will never pass.
    spin = "bnz u29, .Lx\nbarrier\nendpgm\n.Lx:\njmp .Lx\n"
    with pytest.raises(warpkit.Deadlock) as info:
        warpkit.launch(spin, block=64, max_steps=100)
    run = info.value.run
    assert not run.ok and run.trap is None and run.traps == []
    assert [w.status for w in run.warps] == ["running", "step_limit"]
    sim = warpkit.Simulator(spin, block=64, max_steps=100)
    with pytest.raises(warpkit.Deadlock):
        sim.finish()
    assert not warpkit.launch(spin, block=64, max_steps=100, check=False).ok
    # A step limit alone is no deadlock.
    with pytest.raises(warpkit.LimitExceeded):
        warpkit.launch("top:\n  jmp top\n", block=64, max_steps=100)


def keyword_default(function, name):
    """The literal default of keyword-only `name` in a stub's `function`."""
    args = function.args
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if arg.arg == name:
            return ast.literal_eval(default)
    raise AssertionError(f"{function.name} has no keyword {name}")


def test_the_shared_default_is_the_librarys_in_the_binding_stub_and_docs():
    lib = warpkit.DEFAULT_SHARED_BYTES
    # u13 holds the workgroup's shared-memory size (docs/abi.md, "Initial registers").
    assert warpkit.launch("endpgm\n").warps[0].u[13] == lib
    assert warpkit.Simulator("endpgm\n").finish().warps[0].u[13] == lib
    stub = ast.parse((ROOT / "crates/py/python/warpkit/__init__.pyi").read_text())
    top = {n.name: n for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    init = next(n for n in top["Simulator"].body
                if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    constant = next(n for n in stub.body if isinstance(n, ast.AnnAssign)
                    and n.target.id == "DEFAULT_SHARED_BYTES")
    assert ast.literal_eval(constant.value) == lib
    assert keyword_default(top["launch"], "shared") == lib
    assert keyword_default(init, "shared") == lib
    # The native signatures (help(), inspect) state it too, and otherwise match the stub.
    for native, stubbed in [(warpkit.launch, top["launch"]), (warpkit.Simulator, init)]:
        params = inspect.signature(native).parameters
        assert params["shared"].default == lib
        names = [a.arg for a in stubbed.args.args + stubbed.args.kwonlyargs if a.arg != "self"]
        assert list(params) == names
    documented = re.findall(r"\bshared=(\w+)", (ROOT / "docs/python.md").read_text())
    assert documented and all(int(d) == lib for d in documented)


SCRATCH_BASE = 0x4000_0000_0000_0000

# Each lane spills 3 * id to its scratch slot 2 (base + 256 + 4 * lane), reloads it and
# stores it to out[id] (id: the thread's index in the grid).
SPILL = """
    uload.b64  u[16:17], u[0:1], 0
    csrr       u20, scratch_lo
    csrr       u21, scratch_hi
    laneid     v4
    sll.vi     v4, v4, 2
    umul       u22, u12, u8
    add.vu     v5, v3, u22
    mul.vi     v6, v5, 3
    gstore.b32 v6, v4, u[20:21], 256
    movi       v6, 0
    gload.b32  v6, v4, u[20:21], 256
    waitcnt    vm=0, sm=0
    sll.vi     v9, v5, 2
    gstore.b32 v6, v9, u[16:17], 0
    endpgm
"""


def test_scratch_memory_per_lane():
    n = 3 * 64
    expect = np.arange(n, dtype=np.uint32) * 3
    runs = [warpkit.launch(SPILL, grid=3, block=64, scratch=16, engine=e, threads=t,
                           args={"out": warpkit.Buffer(4 * n, np.uint32)})
            for e, t in [("interpreter", 1), ("jit", 2)]]
    for run in runs:
        np.testing.assert_array_equal(run.buffers["out"], expect)
    # Warp 1 of workgroup 2: its region, 16 bytes per lane.
    csr = runs[0].warps[2 * 2 + 1].csr
    base = SCRATCH_BASE + 2 * (1 << 30) + (1 << 25)
    assert (csr["scratch_lo"], csr["scratch_hi"], csr["scratch_size"]) == (
        base & 0xFFFF_FFFF, base >> 32, 16)
    assert [w.csr for w in runs[0].warps] == [w.csr for w in runs[1].warps]
    # Without scratch the CSRs read 0 and the spill faults (cause 5) at address 256.
    with pytest.raises(warpkit.Trap) as e:
        warpkit.launch(SPILL, args={"out": warpkit.Buffer(128)})
    assert (e.value.cause, e.value.info) == (5, 256)
    # Slot 2 is past the region of 8 bytes per lane (256 bytes): an access fault at its
    # first lane.
    with pytest.raises(warpkit.Trap) as e:
        warpkit.launch(SPILL, scratch=8, args={"out": warpkit.Buffer(128)})
    assert (e.value.cause, e.value.info) == (5, 256)
    for bad in [6, (1 << 20) + 4, 1 << 32]:
        with pytest.raises((warpkit.LaunchError, OverflowError)):
            warpkit.launch(SPILL, scratch=bad, args={"out": warpkit.Buffer(128)})
    with pytest.raises(warpkit.LaunchError, match="scratch memory of 2 workgroup"):
        warpkit.launch(SPILL, grid=4, block=1024, scratch=1 << 16, threads=2,
                       max_memory=100 << 20, args={"out": warpkit.Buffer(1 << 14)})


def test_hazards_and_strict_hazards():
    src = "uload.b64 u[16:17], u[0:1], 0\numov u20, u16\nendpgm\n"
    run = warpkit.launch(src, args={"x": warpkit.Buffer(8)})
    assert run.ok and run.stats.hazards == 1
    h = run.hazards[0]
    assert h.kind == "RAW" and h.register == "u16" and h.pc == 8 and "RAW" in str(h)
    with pytest.raises(warpkit.LimitExceeded):
        warpkit.launch(src, args={"x": warpkit.Buffer(8)}, strict_hazards=True)


def test_bad_launches_raise_launch_error():
    for kwargs in [
        {"block": (64, 32)},
        {"grid": 0},
        {"shared": 1 << 30},
        {"max_steps": 0},
        {"args": {"x": warpkit.Buffer(1 << 40)}},
        {"entry": "nowhere"},
        {"grid": 5, "max_workgroups": 4},
    ]:
        with pytest.raises((warpkit.LaunchError, ValueError)):
            warpkit.launch("endpgm\n", **kwargs)
    with pytest.raises(TypeError):
        warpkit.launch("endpgm\n", args={"x": 1.5})
    with pytest.raises(ValueError):
        warpkit.launch("endpgm\n", engine="fast")


def test_both_engines_compute_the_same():
    src = """
        umov.l u1, 100
        laneid v1
    top:
        mul v2, v1, v1
        add v5, v5, v2
        uaddi u1, u1, -1
        bnz u1, top
        endpgm
    """
    runs = [warpkit.launch(src, engine=e) for e in ("interpreter", "jit", None)]
    first = runs[0]
    for run in runs[1:]:
        assert (run.warps[0].v == first.warps[0].v).all()
        assert (run.warps[0].u == first.warps[0].u).all()
        assert run.warps[0].csr == first.warps[0].csr
        assert run.stats.instructions == first.stats.instructions
        assert run.stats.lane_ops == first.stats.lane_ops
    assert list(first.warps[0].v[5][:3]) == [0, 100, 400]


def test_arguments_fill_slots_in_dict_order():
    # u[16:19] = slots 0 and 1 (8 bytes each) of the argument block.
    src = "uload.b128 u[16:19], u[0:1], 0\nwaitcnt sm=0\nendpgm\n"
    run = warpkit.launch(src, args={"first": 7, "second": -1})
    u = run.warps[0].u
    assert list(u[16:20]) == [7, 0, 0xFFFFFFFF, 0xFFFFFFFF]


def test_entry_symbol():
    run = warpkit.launch("umovi u1, 1\nendpgm\nstart:\numovi u2, 2\nendpgm\n", entry="start")
    assert (run.warps[0].u[1], run.warps[0].u[2]) == (0, 2)


def test_ctrl_c_stops_a_long_run_cleanly():
    import signal
    import threading
    import time

    timer = threading.Timer(0.3, lambda: signal.raise_signal(signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            warpkit.launch("top:\n  jmp top\n", max_steps=10**15)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 10
    # The module is still usable afterwards.
    assert warpkit.launch("endpgm\n").ok


def test_other_threads_run_while_simulating():
    import signal
    import threading

    ticks = []

    def tick():
        # Needs the GIL five times while the launch runs, then stops it.
        for _ in range(5):
            ticks.append(1)
            threading.Event().wait(0.01)
        signal.raise_signal(signal.SIGINT)

    t = threading.Thread(target=tick)
    t.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            warpkit.launch("top:\n  jmp top\n", max_steps=10**15)
    finally:
        t.join()
    assert len(ticks) == 5


def test_spec_is_the_cli_json():
    import json

    db = warpkit.spec()
    assert db == json.loads(cli("spec", "--json").stdout)
    add = next(i for i in db["instructions"] if i["mnemonic"] == "add")
    assert add["format"] == warpkit.decode(warpkit.assemble("add v1, v2, v3").bytes).format
