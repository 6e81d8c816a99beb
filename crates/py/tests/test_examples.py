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


def f32_bits(x):
    return int(np.float32(x).view(np.uint32))


def floats(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def test_sgemm():
    m, n, k = 32, 16, 48
    a, b = floats((m, k)), floats((k, n))
    run = warpkit.launch(
        kernel("sgemm"),
        grid=(n // 16, m // 16),
        block=(16, 16),
        shared=2048,
        args={"A": a, "B": b, "C": np.zeros((m, n), np.float32), "M": m, "N": n, "K": k},
    )
    c = run.buffers["C"].view(np.float32).reshape(m, n)
    # A chain of k fused multiply-adds in f32: within a few ulps of the exact product.
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=0, atol=1e-5)


def test_hgemm():
    m, n, k = 16, 32, 32
    a, b = floats((m, k)).astype(np.float16), floats((k, n)).astype(np.float16)
    run = warpkit.launch(
        kernel("hgemm"),
        grid=(n // 16, m // 16),
        block=(16, 16),
        shared=2048,
        args={"A": a, "B": b, "C": np.zeros((m, n), np.float32), "M": m, "N": n, "K": k},
    )
    c = run.buffers["C"].view(np.float32).reshape(m, n)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, exact, rtol=0, atol=1e-5)


def test_softmax():
    rows, cols = 70, 9
    x = floats((rows, cols), -4.0, 4.0)
    run = warpkit.launch(
        kernel("softmax"),
        grid=blocks(rows, 64),
        block=64,
        args={
            "X": x,
            "E": np.zeros((rows, cols), np.float32),
            "Y": np.zeros((rows, cols), np.float32),
            "rows": rows,
            "cols": cols,
        },
    )
    y = run.buffers["Y"].view(np.float32).reshape(rows, cols)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=0)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-5)


def test_layernorm():
    rows, cols, eps = 65, 12, 1e-5
    x = floats((rows, cols), -3.0, 3.0)
    gamma, beta = floats(cols, 0.5, 1.5), floats(cols)
    run = warpkit.launch(
        kernel("layernorm"),
        grid=blocks(rows, 64),
        block=64,
        args={
            "X": x,
            "gamma": gamma,
            "beta": beta,
            "Y": np.zeros((rows, cols), np.float32),
            "R": np.zeros(rows, np.float32),
            "rows": rows,
            "cols": cols,
            "inv_cols": f32_bits(1.0 / cols),
            "eps": f32_bits(eps),
        },
    )
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x64 - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    r = run.buffers["R"].view(np.float32)
    np.testing.assert_allclose(r, rstd[:, 0], rtol=1e-5)
    y = run.buffers["Y"].view(np.float32).reshape(rows, cols)
    np.testing.assert_allclose(y, (x64 - mean) * rstd * gamma + beta, rtol=0, atol=1e-5)


def test_mandelbrot():
    # step = 1/16 and integer pixel indices make ffma(f32(px), step, x0) exact, so the f32
    # operations below are the kernel's own, in its order: the counts match exactly.
    width, height, max_iter = 48, 32, 60
    x0, y0, step = np.float32(-2.0), np.float32(1.0), np.float32(1.0 / 16)
    run = warpkit.launch(
        kernel("mandelbrot"),
        grid=(width // 16, height // 16),
        block=(16, 16),
        args={
            "out": np.zeros((height, width), np.uint32),
            "width": width,
            "height": height,
            "x0": f32_bits(x0),
            "y0": f32_bits(y0),
            "step": f32_bits(step),
            "max_iter": max_iter,
        },
    )
    cr = (np.arange(width, dtype=np.float32) * step + x0)[None, :].repeat(height, 0)
    ci = (y0 - np.arange(height, dtype=np.float32) * step)[:, None].repeat(width, 1)
    x = np.zeros((height, width), np.float32)
    y = np.zeros((height, width), np.float32)
    count = np.zeros((height, width), np.uint32)
    live = np.ones((height, width), bool)
    for _ in range(max_iter):
        x2, y2 = x * x, y * y
        live &= ~(x2 + y2 > np.float32(4.0))
        y = np.where(live, (x * y) * np.float32(2.0) + ci, y)
        x = np.where(live, (x2 - y2) + cr, x)
        count += live
    np.testing.assert_array_equal(run.buffers["out"].reshape(height, width), count)
    assert 0 < count.min() and count.max() == max_iter
