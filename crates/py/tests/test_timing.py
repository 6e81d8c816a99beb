"""`launch(..., timing=...)`: the functional results are those of a plain launch, the
report is `warpkit run --timing-json`'s (the same JSON for the same launch and machine),
independent of threads and engine, and a bad machine is refused with its location."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import warpkit

ROOT = pathlib.Path(__file__).resolve().parents[3]
VADD = ROOT / "examples/vadd.s"
N = 1000
STALLS = ["issued", "dependency", "waitcnt_vm", "waitcnt_vst", "waitcnt_tex", "waitcnt_ls",
          "waitcnt_sm", "waitcnt_sfu", "barrier", "unit_busy", "memory_structural",
          "not_selected", "ended", "no_warp"]


def vadd(**kw):
    a = np.arange(N, dtype=np.uint32)
    args = {"a": a, "b": 7 * a, "out": np.zeros_like(a), "n": N}
    return warpkit.launch(warpkit.load(VADD), grid=4, block=256, args=args, **kw)


def test_results_are_a_plain_launchs_and_the_report_adds_up():
    plain = vadd()
    timed = vadd(timing=True)
    assert plain.timing is None
    np.testing.assert_array_equal(timed.buffers["out"], plain.buffers["out"])
    assert timed.stats.instructions == plain.stats.instructions
    t = timed.timing
    for key in ["machine", "machine_hash", "cycles", "ipc", "stalls", "kernels", "units"]:
        assert key in t
    assert sorted(t["stalls"]) == sorted(STALLS)
    m = t["machine"]
    assert m["name"] == "default"
    assert sum(t["stalls"].values()) == t["cycles"] * m["compute_units"] * m["cu"]["warp_slots"]


def test_the_same_report_for_any_threads_and_engine():
    reports = [vadd(timing=True, threads=t, engine=e).timing
               for t, e in [(1, "interpreter"), (2, "jit"), (2, "interpreter")]]
    assert reports[0] == reports[1] == reports[2]


def test_a_machine_as_a_file_as_text_and_as_the_cli_sees_it(tmp_path):
    text = "name = \"tiny\"\ncompute_units = 2\n[cu]\nwarp_slots = 8\n"
    path = tmp_path / "tiny.toml"
    path.write_text(text)
    by_text = vadd(timing=text).timing
    by_path = vadd(timing=path).timing
    by_str = vadd(timing=str(path)).timing
    assert by_text == by_path == by_str
    assert by_text["machine"]["compute_units"] == 2
    assert by_text["machine_hash"] != vadd(timing=True).timing["machine_hash"]
    cli = os.environ.get("WARPKIT_CLI")
    if cli:
        out = subprocess.run(
            [cli, "run", str(VADD), "--grid", "4", "--block", "256",
             "--arg", "a=buf:4000", "--arg", "b=buf:4000", "--arg", "out=buf:4000",
             "--arg", f"n={N}", "--machine", str(path), "--timing-json", "-"],
            check=True, capture_output=True, text=True)
        report = json.loads(out.stdout)
        # Zero-filled inputs take the same paths through vadd as these do.
        assert report["cycles"] == by_text["cycles"]
        assert report["machine_hash"] == by_text["machine_hash"]


def test_bad_machines_are_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("name = \"x\"\n[cu]\nwarp_slotz = 3\n")
    with pytest.raises(ValueError, match=r"bad\.toml:3:1: .*warp_slotz"):
        vadd(timing=path)
    with pytest.raises(ValueError, match=r"<machine>:1:"):
        vadd(timing="compute_units = \"many\"\n")
    with pytest.raises(ValueError, match=r"l1\.line_bytes"):
        vadd(timing="[l1]\nline_bytes = 96\n")
    with pytest.raises(TypeError):
        vadd(timing=3)
    with pytest.raises(OSError):
        vadd(timing=tmp_path / "missing.toml")
    # A workgroup of 256 threads (8 warps) cannot fit on a compute unit of 4 warp slots.
    with pytest.raises(warpkit.LaunchError, match="warp slots"):
        vadd(timing="[cu]\nwarp_slots = 4\nschedulers = 4\n")
