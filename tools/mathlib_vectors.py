#!/usr/bin/env python3
"""Reference values for the double functions of the OpenCL C math library test
(crates/cc/tests/it/mathlib_f64.txt), computed with mpmath at 320 bits.

Each line: `name x [y|n] hi lo`, hexadecimal binary64 (integers in decimal), where hi + lo
is the exact result to about 2^-106 relative (hi the rounded result, lo the rest). Inputs
whose result is zero, infinite or NaN are left out: the test checks those special cases
against the host's functions. Run: python3 tools/mathlib_vectors.py > crates/cc/tests/it/mathlib_f64.txt
"""
import math
import random

import mpmath as mp

mp.mp.prec = 320
rng = random.Random(20261204)
N = 160


def logu(lo, hi):
    """A random magnitude, uniform in the exponent between lo and hi (positive)."""
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def signed(v):
    return v if rng.random() < 0.5 else -v


def near(v, k=3):
    out = [v]
    a = v
    b = v
    for _ in range(k):
        a = math.nextafter(a, math.inf)
        b = math.nextafter(b, -math.inf)
        out += [a, b]
    return out


def ranged(lo, hi, n=N):
    return [rng.uniform(lo, hi) for _ in range(n)]


def logs(lo, hi, n=N, sign=False):
    return [signed(logu(lo, hi)) if sign else logu(lo, hi) for _ in range(n)]


SUB = [5e-324, 1e-310, 2.2250738585072014e-308 / 3]
TINY = [1e-300, 1e-200, 1e-100, 1e-30, 1e-17, 2**-30, 2**-27]


def unit_domain():
    return ranged(-1, 1) + near(1.0) + near(-1.0) + near(0.5) + near(-0.5) + TINY + [-t for t in TINY] + SUB


def trig_domain(reduce):
    xs = logs(1e-8, 100, N // 2, True) + logs(100, 1e308, N // 2, True)
    for k in list(range(1, 40)) + [10**6 + 1, 2**25 + 3, 2**40 + 5]:
        xs += near(float(mp.pi / 2 * k), 1)
    xs += [6381956970095103 * 2.0**797, 5.319372648326541e255, 1e22, 2.0**1023, 1.7976931348623157e308]
    xs += TINY + SUB
    return xs


def pi_domain():
    xs = ranged(-4, 4, N // 2) + logs(1e-300, 1e15, N // 2, True)
    for k in range(-6, 7):
        xs += near(k / 2, 2) + near(k / 4, 1)
    return xs + [2.0**52 + 1, 2.0**52 + 0.5, -(2.0**51 + 0.25), 2.0**60 + 4096]


def pos_domain():
    return logs(5e-324, 1.7e308, N) + near(1.0, 4) + [2.0**k for k in range(-1074, 1024, 97)] + SUB


def pairs(fx, fy, n=N):
    return [(fx(), fy()) for _ in range(n)]


def rnd_signed_mag(lo, hi):
    return lambda: signed(logu(lo, hi))


F = {}
F["acos"] = (mp.acos, unit_domain())
F["asin"] = (mp.asin, unit_domain())
F["acospi"] = (lambda x: mp.acos(x) / mp.pi, unit_domain())
F["asinpi"] = (lambda x: mp.asin(x) / mp.pi, unit_domain())
F["atan"] = (mp.atan, logs(1e-300, 1e300, N, True) + near(1.0) + near(0.41421356237309503) + near(2.414213562373095) + TINY)
F["atanpi"] = (lambda x: mp.atan(x) / mp.pi, logs(1e-300, 1e300, N, True) + near(1.0) + TINY + SUB)
F["acosh"] = (mp.acosh, [1 + logu(1e-17, 1) for _ in range(N // 2)] + logs(1, 1e308, N // 2) + near(2.0) + [2.0**28 + 1])
F["asinh"] = (mp.asinh, logs(1e-300, 1e308, N, True) + near(2.0) + near(-2.0) + TINY)
F["atanh"] = (mp.atanh, ranged(-1, 1) + near(0.5) + [math.nextafter(1.0, 0), -math.nextafter(1.0, 0)] + TINY)
F["cbrt"] = (lambda x: mp.sign(x) * mp.cbrt(abs(x)), logs(5e-324, 1.7e308, N, True) + [8.0, 27.0, -64.0, 1e-300, 3.0])
F["sin"] = (mp.sin, trig_domain(True))
F["cos"] = (mp.cos, trig_domain(True))
F["tan"] = (mp.tan, trig_domain(True))
F["sinpi"] = (mp.sinpi, pi_domain())
F["cospi"] = (mp.cospi, pi_domain())
F["tanpi"] = (lambda x: mp.sinpi(x) / mp.cospi(x), [x for x in pi_domain() if (2 * x) % 2 != 1])
F["sinh"] = (mp.sinh, ranged(-710.4, 710.4, N // 2) + logs(1e-300, 5, N // 2, True) + [709.5, 710.4])
F["cosh"] = (mp.cosh, ranged(-710.4, 710.4, N // 2) + logs(1e-300, 5, N // 2, True) + [709.5, 710.4])
F["tanh"] = (mp.tanh, ranged(-25, 25, N // 2) + logs(1e-300, 5, N // 2, True))
F["exp"] = (mp.exp, ranged(-745, 709.78, N) + logs(1e-300, 1, 20, True) + [709.78, -745.1, -708.5, -730.0])
F["exp2"] = (lambda x: mp.power(2, x), ranged(-1074, 1023.9, N) + logs(1e-300, 1, 20, True) + [-1073.5, -1030.3, 1023.99])
F["exp10"] = (lambda x: mp.power(10, x), ranged(-323, 308.2, N) + logs(1e-300, 1, 20, True) + [2.0, 3.0, -3.0, 308.25, -320.5])
F["expm1"] = (mp.expm1, ranged(-40, 709.7, N // 2) + logs(1e-300, 2, N // 2, True) + near(0.5) + near(1.1) + near(-1.1))
F["log"] = (mp.log, pos_domain())
F["log2"] = (lambda x: mp.log(x, 2), pos_domain())
F["log10"] = (mp.log10, pos_domain())
F["log1p"] = (mp.log1p, [-1 + logu(1e-17, 1) for _ in range(N // 3)] + logs(1e-300, 1e308, N // 2, True) + near(-0.29289321881345254) + near(0.41421356237309503) + TINY)
F["erf"] = (mp.erf, ranged(-7, 7, N // 2) + logs(1e-300, 6, N // 2, True) + near(0.84375) + near(1.25) + near(2.5) + near(5.0))
F["erfc"] = (mp.erfc, ranged(-7, 27.2, N) + logs(1e-300, 1, 20, True) + near(0.84375) + near(1.25) + near(2.5) + near(5.0) + [26.5, 27.0])
F["tgamma"] = (mp.gamma, [x for x in ranged(-184, 171.6, N) if x != int(x)] + logs(1e-300, 12, N // 2) + near(1.0) + near(2.0) + near(12.0) + [-0.5, -1.5, -170.5, -171.5, -177.25, 171.5, 1e-310, -1e-200])
F["lgamma"] = (lambda x: mp.log(abs(mp.gamma(x))), logs(1e-300, 1e300, N // 2) + ranged(-50, 50, N // 2) + near(1.0) + near(2.0) + near(0.5) + near(2.5) + near(12.0) + [-2.5, -0.5, 1e-310])
F["rsqrt"] = (lambda x: 1 / mp.sqrt(x), pos_domain())

B = {}
B["atan2"] = (mp.atan2, pairs(rnd_signed_mag(1e-300, 1e300), rnd_signed_mag(1e-300, 1e300)) + pairs(rnd_signed_mag(0.1, 10), rnd_signed_mag(0.1, 10)))
B["atan2pi"] = (lambda y, x: mp.atan2(y, x) / mp.pi, B["atan2"][1])
B["hypot"] = (mp.hypot, pairs(rnd_signed_mag(1e-320, 1e307), rnd_signed_mag(1e-320, 1e307)) + pairs(rnd_signed_mag(0.5, 2), rnd_signed_mag(0.5, 2)))
pw = []
for _ in range(N):
    x = logu(1e-300, 1e300)
    y = rng.uniform(-1, 1) * 700 / max(abs(math.log(x)), 1e-3)
    pw.append((x, y))
for _ in range(N // 2):
    x = rng.uniform(0.5, 2)
    pw.append((x, rng.uniform(-50, 50)))
for _ in range(N // 4):
    x = -logu(1e-3, 1e3)
    pw.append((x, float(rng.randint(-60, 60))))
pw += [(2.0, 0.5), (10.0, 3.0), (0.5, 1074.0), (3.0, -1.5), (1.0000000001, 1e12)]
B["pow"] = (lambda x, y: mp.power(x, y) if x > 0 else (-1) ** int(y) * mp.power(-x, y), pw)
B["powr"] = (mp.power, [p for p in pw if p[0] > 0])

I = {}
pn = [(rng.uniform(-2, 2), rng.randint(-40, 40)) for _ in range(N)] + [(logu(1e-10, 1e10), rng.randint(-30, 30)) for _ in range(N // 2)]
pn += [(-3.0, 3), (2.0, -1074), (1.5, 1000), (-0.9, 7)]
I["pown"] = (lambda x, n: mp.power(x, n), [p for p in pn if p[0] != 0])
rn = [(logu(1e-300, 1e300), rng.choice([v for v in range(-12, 13) if v != 0])) for _ in range(N)]
rn += [(-logu(1e-10, 1e10), rng.choice([-7, -5, -3, -1, 1, 3, 5, 7])) for _ in range(N // 2)]
rn += [(27.0, 3), (-8.0, 3), (1e300, 1000), (2.0, 2**30 + 1)]
I["rootn"] = (lambda x, n: (mp.sign(x) * mp.power(abs(x), mp.mpf(1) / n)), rn)


def out(v):
    if isinstance(v, mp.mpc):
        return None
    v = mp.mpf(v)
    if not mp.isfinite(v) or v == 0:
        return None
    hi = float(v)
    if math.isinf(hi) or hi == 0:
        return None
    lo = float(v - mp.mpf(hi))
    return f"{hi.hex()} {lo.hex()}"


for name, (f, xs) in F.items():
    for x in xs:
        r = out(f(mp.mpf(x)))
        if r:
            print(f"{name} {float(x).hex()} {r}")
for name, (f, ps) in B.items():
    for x, y in ps:
        r = out(f(mp.mpf(x), mp.mpf(y)))
        if r:
            print(f"{name} {float(x).hex()} {float(y).hex()} {r}")
for name, (f, ps) in I.items():
    for x, n in ps:
        r = out(f(mp.mpf(x), n))
        if r:
            print(f"{name} {float(x).hex()} {n} {r}")
