"""Every example kernel through the Python package, checked against numpy references."""

import pathlib
import zlib

import numpy as np
import pytest

import warpkit

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"
rng = np.random.default_rng(14)


def words(n, lo=0, hi=2**32):
    return rng.integers(lo, hi, size=n, dtype=np.uint64).astype(np.uint32)


def kernel(name):
    return warpkit.load(EXAMPLES / f"{name}.s")


def blocks(n, b):
    return (n + b - 1) // b


def test_vadd():
    n = 1000
    a, b = words(n), words(n)
    run = warpkit.launch(
        kernel("vadd"),
        grid=blocks(n, 256),
        block=256,
        args={"a": a, "b": b, "out": np.zeros(n, np.uint32), "n": n},
    )
    out = run.buffers["out"]
    assert out.dtype == np.uint32 and out.shape == (n,)
    np.testing.assert_array_equal(out, a + b)
    assert run.ok and run.stats.workgroups == 4 and run.stats.instructions > 0


def test_saxpy():
    n = 3001
    x, y = words(n), words(n)
    a = int(words(1)[0]) | 1
    run = warpkit.launch(
        kernel("saxpy"), grid=4, block=256, args={"x": x, "y": y, "a": a, "n": n}
    )
    np.testing.assert_array_equal(run.buffers["y"], np.uint32(a) * x + y)


def test_reduce_two_stages():
    n, groups, shared = 5000, 3, 4096 + 128
    data = words(n)
    first = warpkit.launch(
        kernel("reduce"),
        grid=groups,
        block=256,
        shared=shared,
        args={"in": data, "partial": np.zeros(groups, np.uint32), "n": n},
    )
    partial = first.buffers["partial"]
    second = warpkit.launch(
        kernel("reduce"),
        grid=1,
        block=256,
        shared=shared,
        args={"in": partial, "total": warpkit.Buffer(4, np.uint32), "n": groups},
    )
    assert second.buffers["total"][0] == data.sum(dtype=np.uint32)


def test_scan():
    n = 2600
    data = words(n)
    run = warpkit.launch(
        kernel("scan"),
        grid=1,
        block=1024,
        shared=4480,
        args={"in": data, "out": np.zeros(n, np.uint32), "n": n},
    )
    np.testing.assert_array_equal(run.buffers["out"], np.cumsum(data, dtype=np.uint32))


def test_histogram_from_bytes():
    nwords = 4099
    data = (words(4 * nwords) & words(4 * nwords)).astype(np.uint8)
    run = warpkit.launch(
        kernel("histogram"),
        grid=3,
        block=256,
        shared=1024,
        args={"data": data.tobytes(), "hist": np.zeros(256, np.uint32), "nwords": nwords},
    )
    np.testing.assert_array_equal(run.buffers["hist"], np.bincount(data, minlength=256))


def test_bitonic():
    groups, run_len = 3, 512
    keys = words(groups * run_len)
    keys[1::2] %= 16
    run = warpkit.launch(
        kernel("bitonic"),
        grid=groups,
        block=256,
        shared=4 * run_len,
        args={"keys": keys, "out": np.zeros_like(keys)},
    )
    expected = np.sort(keys.reshape(groups, run_len), axis=1).reshape(-1)
    np.testing.assert_array_equal(run.buffers["out"], expected)


def test_collatz():
    n = 700
    starts = words(n, 1, 100_000)
    starts[0] = 1
    run = warpkit.launch(
        kernel("collatz"),
        grid=blocks(n, 256),
        block=256,
        args={"starts": starts, "steps": np.zeros(n, np.uint32), "n": n},
    )
    expected = []
    for s in starts.tolist():
        steps = 0
        while s != 1:
            s = 3 * s + 1 if s % 2 else s // 2
            steps += 1
        expected.append(steps)
    np.testing.assert_array_equal(run.buffers["steps"], np.array(expected, np.uint32))


def test_crc32():
    records, payload_words, hdr = 300, 5, 3
    stride = 4 * (payload_words + 1)
    data = rng.integers(0, 256, size=records * stride, dtype=np.uint8)
    run = warpkit.launch(
        kernel("crc32"),
        grid=blocks(records, 256),
        block=256,
        args={
            "recs": data,
            "crcs": np.zeros(records, np.uint32),
            "R": records,
            "W": payload_words,
            "hdr": hdr,
        },
    )
    recs = data.reshape(records, stride)
    expected = np.array(
        [zlib.crc32(r[hdr : hdr + 4 * payload_words].tobytes()) for r in recs], np.uint32
    ).byteswap()
    np.testing.assert_array_equal(run.buffers["crcs"], expected)


def test_matmul_2d_arrays_keep_their_shape():
    m, n, k = 32, 48, 64
    a = words(m * k).reshape(m, k)
    b = words(k * n).reshape(k, n)
    run = warpkit.launch(
        kernel("matmul"),
        grid=(n // 16, m // 16),
        block=(16, 16),
        shared=2048,
        args={"A": a, "B": b, "C": np.zeros((m, n), np.uint32), "M": m, "N": n, "K": k},
    )
    c = run.buffers["C"]
    assert c.shape == (m, n)
    # uint64 arithmetic wraps modulo 2^64, a multiple of 2^32: the low words are exact.
    expected = (a.astype(np.uint64) @ b.astype(np.uint64)) & 0xFFFFFFFF
    np.testing.assert_array_equal(c, expected.astype(np.uint32))


def test_matmul_dp4a():
    m, n, k = 32, 32, 64
    a = rng.integers(-128, 128, size=(m, k), dtype=np.int8)
    bt = rng.integers(-128, 128, size=(n, k), dtype=np.int8)
    run = warpkit.launch(
        kernel("matmul_dp4a"),
        grid=(n // 16, m // 16),
        block=(16, 16),
        args={"A": a, "Bt": bt, "C": np.zeros((m, n), np.int32), "M": m, "N": n, "K": k},
    )
    expected = a.astype(np.int32) @ bt.astype(np.int32).T
    np.testing.assert_array_equal(run.buffers["C"], expected)


def test_stencil():
    w, h = 50, 29
    img = words(w * h, 0, 256).reshape(h, w)
    run = warpkit.launch(
        kernel("stencil"),
        grid=(blocks(w, 24), blocks(h, 6)),
        block=(24, 6),
        args={"in": img, "out": np.zeros_like(img), "W": w, "H": h},
    )
    padded = np.pad(img, 1, mode="edge").astype(np.uint64)
    kern = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.uint64)
    expected = np.zeros((h, w), np.uint64)
    for dy in range(3):
        for dx in range(3):
            expected += kern[dy, dx] * padded[dy : dy + h, dx : dx + w]
    np.testing.assert_array_equal(run.buffers["out"], expected.astype(np.uint32))


def test_every_example_is_covered():
    tested = {
        name[len("test_") :]
        for name in globals()
        if name.startswith("test_") and name != "test_every_example_is_covered"
    }
    kernels = {p.stem for p in EXAMPLES.glob("*.s")}
    missing = {
        k for k in kernels if not any(t == k or t.startswith(k + "_") for t in tested)
    }
    assert not missing, f"example kernels without a Python test: {sorted(missing)}"
