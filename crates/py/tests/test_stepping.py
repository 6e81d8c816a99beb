"""warpkit.Simulator (docs/python.md, "Stepping"): commits equal to the CLI's trace records,
breakpoints, register and memory access, finishing, interrupting."""

import json
import pathlib

import numpy as np
import pytest

import warpkit
from test_api import cli

ROOT = pathlib.Path(__file__).resolve().parents[3]
VADD = ROOT / "examples" / "vadd.s"


def vadd_args(n):
    a = np.arange(n, dtype=np.uint32) * 3
    b = np.arange(n, dtype=np.uint32) + 7
    return {"a": a, "b": b, "out": warpkit.Buffer(4 * n, np.uint32), "n": n}


def as_record(c):
    """A Commit as the JSON record of `warpkit run --trace`, from its attributes."""

    def vs(v):
        return [{"reg": w.reg, "lanes": [[l, x] for l, x in zip(w.lanes, w.values)]} for w in v]

    def us(u):
        return [{"reg": r, "value": x} for r, x in sorted(u.items())]

    def lane(a):
        d = {"lane": a.lane, "addr": a.addr, "data": list(a.data), "mask": a.mask}
        if a.old is not None:
            d["old"] = a.old
        return d

    width = 18 if c.length == 8 else 10
    return {
        "workgroup": list(c.workgroup),
        "warp": c.warp,
        "step": c.step,
        "pc": c.pc,
        "encoding": f"{c.encoding:#0{width}x}",
        "asm": c.asm,
        "exec": c.exec,
        "v": vs(c.v),
        "u": us(c.u),
        "exec_write": c.exec_write,
        "csr": list(c.csr),
        "trap": c.trap,
        "mem": [
            {"kind": m.kind, "space": m.space, "size": m.size, "lanes": [lane(a) for a in m.lanes]}
            for m in c.mem
        ],
        "retired": [{"pc": r.pc, "v": vs(r.v), "u": us(r.u)} for r in c.retired],
        "end": c.ended,
    }


def test_stepping_equals_the_cli_trace(tmp_path):
    n = 100
    args = vadd_args(n)
    args["a"].tofile(tmp_path / "a.bin")
    args["b"].tofile(tmp_path / "b.bin")
    trace = tmp_path / "t.jsonl"
    out = cli(
        "run", str(VADD), "--grid", "2", "--block", "64",
        "--arg", f"a=@{tmp_path / 'a.bin'}", "--arg", f"b=@{tmp_path / 'b.bin'}",
        "--arg", f"out=buf:{4 * n}", "--arg", f"n={n}", "--trace", str(trace),
    )
    assert out.returncode == 0, out.stderr
    lines = trace.read_text().splitlines()
    assert json.loads(lines[0])["schema"] == "warpkit-trace"
    records = [json.loads(line) for line in lines[1:]]

    sim = warpkit.Simulator(warpkit.load(VADD), grid=2, block=64, args=args)
    commits = []
    k = 1
    while sim.status == "paused":
        commits += sim.step(k)  # batches of 1, 2, 3, 1, 2, 3, ...
        k = k % 3 + 1
    assert len(commits) == len(records) == sim.executed
    for c, r, line in zip(commits, records, lines[1:]):
        assert as_record(c) == r
        assert c.to_json() == line
    # Loads and stores are there with their lanes.
    stores = [c for c in commits if c.mem and c.mem[0].kind == "store"]
    assert len(stores) == 4 and stores[0].mem[0].space == "global"
    run = sim.finish()
    np.testing.assert_array_equal(run.buffers["out"], args["a"] + args["b"])
    assert run.ok and run.stats.instructions == len(commits)
    assert sim.status == "closed"


def test_scratch_through_the_simulator(tmp_path):
    from test_api import SCRATCH_BASE, SPILL

    (tmp_path / "k.s").write_text(SPILL)
    trace = tmp_path / "t.jsonl"
    out = cli("run", str(tmp_path / "k.s"), "--grid", "2", "--block", "32", "--scratch", "16",
              "--arg", "out=buf:256", "--trace", str(trace))
    assert out.returncode == 0, out.stderr
    lines = trace.read_text().splitlines()[1:]
    sim = warpkit.Simulator(SPILL, grid=2, block=32, scratch=16,
                            args={"out": warpkit.Buffer(256, np.uint32)})
    # Workgroup 0's region starts zeroed and takes writes between steps.
    base = SCRATCH_BASE
    assert bytes(sim.read_memory(base, 16)) == bytes(16)
    commits = sim.step(9)  # up to the spill
    spill = commits[-1]
    assert spill.asm == "gstore.b32 v6, v4, u[20:21], 256"
    assert [(a.addr, a.data[0]) for a in spill.mem[0].lanes[:2]] == [(base + 256, 0), (base + 260, 3)]
    assert sim.read_memory(base + 256, 8).view(np.uint32).tolist() == [0, 3]
    sim.write_memory(base + 260, np.array([1000], dtype=np.uint32))
    with pytest.raises(IndexError):
        sim.read_memory(base + 16 * 32, 4)
    with pytest.raises(IndexError):
        sim.read_memory(SCRATCH_BASE + (1 << 30), 4)  # workgroup 1's: not running yet
    while sim.status == "paused":
        commits += sim.step(50)
    run = sim.finish()
    out = run.buffers["out"]
    assert out[1] == 1000 and out[33] == 99
    # Without the write, the records are the CLI's.
    sim = warpkit.Simulator(SPILL, grid=2, block=32, scratch=16,
                            args={"out": warpkit.Buffer(256, np.uint32)})
    commits = sim.step(1000)
    assert [c.to_json() for c in commits] == lines


def test_registers_and_memory_between_steps():
    n = 32
    args = vadd_args(n)
    sim = warpkit.Simulator(VADD.read_text(), grid=1, block=32, args=args)
    assert sim.workgroup == (0, 0, 0) and sim.warp_count == 1
    v3 = sim.read_vreg(0, 3)  # thread ids (docs/abi.md)
    assert v3.dtype == np.uint32 and list(v3) == list(range(32))
    addr = sim.buffers["b"]
    np.testing.assert_array_equal(sim.read_memory(addr, 8), args["b"][:2].view(np.uint8))
    sim.write_memory(addr + 4, np.array([1000], dtype=np.uint32))  # b[1] = 1000
    while True:
        [c] = sim.step()
        if c.asm.startswith("add v8"):
            break
    assert c.v[0].reg == 8 and c.v[0].mask == 0xFFFFFFFF and c.v[0].values[1] == args["a"][1] + 1000
    # Change lane 5 of the sum before the store reads it.
    sim.write_vreg(0, 8, 77, lane=5)
    assert sim.read_vreg(((0, 0, 0), 0), 8)[5] == 77
    sim.write_vreg(0, 10, np.arange(32, dtype=np.uint32) * 2)
    assert list(sim.read_vreg(0, 10)) == list(range(0, 64, 2))
    sim.write_ureg(0, 40, 12345)
    assert sim.read_ureg(0, 40) == 12345
    [store] = sim.step()
    assert store.mem[0].kind == "store" and store.mem[0].lanes[5].data == [77]
    run = sim.finish()
    expect = args["a"] + args["b"]
    expect[1] = args["a"][1] + 1000
    expect[5] = 77
    np.testing.assert_array_equal(run.buffers["out"], expect)
    assert run.warps[0].u[40] == 12345


def test_run_until_a_pc_stops_before_it_and_resumes_past_it():
    src = (
        "  umovi u3, 3\n"
        "top:\n"
        "  add.vi v1, v1, 1\n"
        "  uaddi u3, u3, -1\n"
        "  bnz u3, top\n"
        "  endpgm\n"
    )
    prog = warpkit.assemble(src)
    sim = warpkit.Simulator(prog, grid=2, block=32)
    top = prog.symbols["top"]
    assert sim.run_until(pc="top") == "breakpoint"
    assert sim.pc(0) == top and sim.executed == 1
    assert sim.run_until(pc=top) == "breakpoint"  # the next iteration
    assert sim.executed == 4
    assert list(sim.read_vreg(0, 1)) == [1] * 32
    assert sim.run_until(steps=2) == "steps" and sim.executed == 6
    # Only the second workgroup's warp.
    assert sim.run_until(pc=top, warp=((1, 0, 0), 0)) == "breakpoint"
    assert sim.workgroup == (1, 0, 0)
    assert sim.run_until() == "finished" and sim.status == "finished"
    assert sim.step() == []
    run = sim.finish()
    assert run.ok and [list(w.v[1][:2]) for w in run.warps] == [[3, 3], [3, 3]]


def test_finish_without_running_and_traps():
    sim = warpkit.Simulator("umovi u1, 1\nendpgm\n")
    run = sim.finish(run=False, check=False)
    assert not run.ok and run.messages
    sim = warpkit.Simulator("  gload.b32 v1, v0, u[40:41], 0\n  endpgm\n", max_steps=10)
    [c] = sim.step()
    assert c.trap is not None and c.trap["handled"] is False and c.v == []
    assert sim.status == "finished"
    with pytest.raises(warpkit.Trap) as info:
        sim.finish()
    assert info.value.pc == 0
    with pytest.raises(warpkit.Error):
        sim.step()


def test_bad_access_raises():
    sim = warpkit.Simulator("endpgm\n", block=64)
    with pytest.raises(ValueError):
        sim.read_vreg(2, 0)  # two warps
    with pytest.raises(ValueError):
        sim.read_vreg(0, 128)
    with pytest.raises(ValueError):
        sim.read_vreg(((1, 0, 0), 0), 0)  # not the running workgroup
    with pytest.raises(IndexError):
        sim.read_memory(0, 4)
    with pytest.raises(IndexError):
        sim.write_memory(warpkit.code_base() - 2, b"abcd")
    with pytest.raises(IndexError):
        sim.read_shared(65536 - 2, 4)
    sim.write_shared(8, b"\x01\x02")
    assert bytes(sim.read_shared(8, 2)) == b"\x01\x02"
    with pytest.raises(ValueError):
        sim.run_until(pc="nowhere")
    with pytest.raises(warpkit.LaunchError):
        warpkit.Simulator("endpgm\n", block=2048)


def test_ctrl_c_interrupts_run_until_and_the_simulator_stays_usable():
    import signal
    import threading
    import time

    sim = warpkit.Simulator("top:\n  jmp top\n", max_steps=10**15)
    timer = threading.Timer(0.3, lambda: signal.raise_signal(signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.run_until()
    finally:
        timer.cancel()
    assert time.monotonic() - start < 10
    assert sim.status == "paused" and sim.executed > 0
    before = sim.executed
    [c] = sim.step()
    assert c.asm.startswith("jmp") and sim.executed == before + 1


def test_the_example_of_the_docs():
    n = 100
    a = np.arange(n, dtype=np.uint32)
    b = a * 3
    sim = warpkit.Simulator(warpkit.load(VADD), grid=2, block=64,
                            args={"a": a, "b": b, "out": warpkit.Buffer(4 * n, np.uint32), "n": n})
    assert len(sim.step(5)) == 5
    assert sim.run_until(pc=0x4C) == "breakpoint"
    sim.write_vreg(0, 8, 77, lane=5)
    [store] = sim.step()
    assert store.asm.startswith("gstore") and store.mem[0].lanes[5].data == [77]
    run = sim.finish()
    expect = a + b
    expect[5] = 77
    np.testing.assert_array_equal(run.buffers["out"], expect)
