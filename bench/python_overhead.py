#!/usr/bin/env python3
"""Overhead of the Python package: the whole `warpkit.launch` call of vadd (numpy arrays in,
numpy arrays out) against the simulation time of the same launch, measured in the same run,
alternating, REPEAT times (default 7) each; medians and minimums.

    python bench/python_overhead.py [path/to/release/warpkit]

Two baselines, both the time `Prepared::run` of warpkit-host spends simulating (the figure
`warpkit run` prints): the CLI's, printed by a `warpkit run` of the same launch (in ms, so
only for the large size), and the same figure for the Python launch itself
(`run.stats.wall`), which shows the model runs as fast inside Python as in the CLI.
THREADS (default 1) host threads for both. docs/performance.md, "Embedding", has results.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no idle BLAS threads competing

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
REPEAT = int(os.environ.get("REPEAT", "7"))
THREADS = int(os.environ.get("THREADS", "1"))
VADD = ROOT / "examples" / "vadd.s"
PROG = warpkit.load(VADD)


def measure(n, tmp, with_cli):
    grid = (n + 255) // 256
    rng = np.random.default_rng(n)
    a = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    pa, pb = pathlib.Path(tmp, "a.bin"), pathlib.Path(tmp, "b.bin")
    a.tofile(pa)
    b.tofile(pb)
    cmd = [CLI, "run", str(VADD), "--grid", str(grid), "--block", "256", "--threads", str(THREADS),
           "--arg", f"a=@{pa}", "--arg", f"b=@{pb}", "--arg", f"out=buf:{4 * n}",
           "--arg", f"n={n}"]
    cli_sim, py_total, py_sim = [], [], []
    for _ in range(REPEAT):
        if with_cli:
            out = subprocess.run(cmd, capture_output=True, text=True, check=True)
            cli_sim.append(float(re.search(r", ([0-9.]+) s, ", out.stderr).group(1)))
        start = time.perf_counter()
        run = warpkit.launch(PROG, grid=grid, block=256, threads=THREADS, keep_warps=False,
                             args={"a": a, "b": b, "out": warpkit.Buffer(4 * n, np.uint32), "n": n})
        py_total.append(time.perf_counter() - start)
        py_sim.append(run.stats.wall)
        assert (run.buffers["out"] == a + b).all()
        del run  # freed outside the timed call
    return cli_sim, py_total, py_sim


def ms(x):
    return f"{x * 1e3:9.3f} ms"


with tempfile.TemporaryDirectory() as tmp:
    for n, with_cli in ((1 << 22, True), (1 << 20, True), (1 << 16, False), (1 << 12, False)):
        cli_sim, py_total, py_sim = measure(n, tmp, with_cli)
        print(f"vadd n=2^{n.bit_length() - 1}, {(n + 255) // 256} workgroups of 256, "
              f"threads={THREADS}, {REPEAT} runs: median / min")
        for name, xs in (("warpkit run, simulation time", cli_sim),
                         ("warpkit.launch, model time", py_sim),
                         ("warpkit.launch, whole call", py_total)):
            if xs:
                print(f"  {name:30} {ms(statistics.median(xs))} / {ms(min(xs))}")
        total, sim = statistics.median(py_total), statistics.median(py_sim)
        line = f"  whole call / model time:      {total / sim:9.3f}x  (min/min {min(py_total) / min(py_sim):.3f}x)"
        if cli_sim:
            cli = statistics.median(cli_sim)
            line += (f"\n  whole call / CLI's time:       {total / cli:9.3f}x  "
                     f"(min/min {min(py_total) / min(cli_sim):.3f}x)")
        print(line)
