#!/usr/bin/env python3
"""Overhead of the Python package: `warpkit.launch` of vadd (n = 2^22, the example's full
size) against the simulation time `warpkit run` reports for the same launch, measured in
the same run, alternating, median of REPEAT (default 5) each.

    python bench/python_launch.py [path/to/release/warpkit]

Prints the CLI's simulation time, the Python call's whole time (numpy arguments in, numpy
buffers out) and the model time it reports, and their ratios (docs/python.md).
"""

import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import warpkit

ROOT = pathlib.Path(__file__).resolve().parents[1]
CLI = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "release" / "warpkit")
REPEAT = int(os.environ.get("REPEAT", "5"))
N = 1 << 22
GRID = (N + 255) // 256

rng = np.random.default_rng(1)
a = rng.integers(0, 2**32, size=N, dtype=np.uint64).astype(np.uint32)
b = rng.integers(0, 2**32, size=N, dtype=np.uint64).astype(np.uint32)
prog = warpkit.load(ROOT / "examples" / "vadd.s")

with tempfile.TemporaryDirectory() as tmp:
    pa, pb = pathlib.Path(tmp, "a.bin"), pathlib.Path(tmp, "b.bin")
    a.tofile(pa)
    b.tofile(pb)
    cmd = [CLI, "run", str(ROOT / "examples" / "vadd.s"), "--grid", str(GRID), "--block", "256",
           "--arg", f"a=@{pa}", "--arg", f"b=@{pb}", "--arg", f"out=buf:{4 * N}", "--arg", f"n={N}"]
    cli_sim, py_total, py_sim = [], [], []
    for _ in range(REPEAT):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        cli_sim.append(float(re.search(r", ([0-9.]+) s, ", out.stderr).group(1)))
        start = time.perf_counter()
        run = warpkit.launch(prog, grid=GRID, block=256, keep_warps=False,
                             args={"a": a, "b": b, "out": np.zeros(N, np.uint32), "n": N})
        py_total.append(time.perf_counter() - start)
        py_sim.append(run.stats.wall)
        assert (run.buffers["out"] == a + b).all()

cli, total, sim = (statistics.median(x) for x in (cli_sim, py_total, py_sim))
print(f"vadd n=2^22, {GRID} workgroups, median of {REPEAT}")
print(f"  warpkit run, simulation time:        {cli * 1e3:8.1f} ms")
print(f"  warpkit.launch, whole call:          {total * 1e3:8.1f} ms  ({total / cli:.3f}x the CLI)")
print(f"  warpkit.launch, simulation time:     {sim * 1e3:8.1f} ms  ({sim / cli:.3f}x the CLI)")
