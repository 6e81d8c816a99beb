#!/usr/bin/env python3
"""Derive the polynomial coefficients and tables of the OpenCL C math library
(crates/cc/src/pp/mathlib.cl) with mpmath at 200 bits.

Each polynomial is the Chebyshev interpolant (mpmath.chebyfit) of the smallest degree
whose maximum error on its interval is below the stated target; a Chebyshev interpolant
is within a small factor of the minimax polynomial of the same degree. The coefficients
are rounded to binary64 and printed as OpenCL C functions evaluating the polynomial by
Horner's rule with fma. Run: python3 tools/mathlib_poly.py > /tmp/poly.cl
"""
import mpmath as mp

mp.mp.prec = 200
ONE = mp.mpf(1)


def hexd(v):
    return float(v).hex().replace("0x1.0000000000000p", "0x1p") if v != 0 else "0.0"


def fit(name, doc, f, a, b, target, maxdeg=40):
    for n in range(2, maxdeg):
        poly, err = mp.chebyfit(f, [mp.mpf(a), mp.mpf(b)], n, error=True)
        if err < target:
            break
    else:
        raise SystemExit(f"{name}: no degree below {maxdeg} reaches the target")
    body = hexd(poly[0])
    for c in poly[1:]:
        body = f"fma({body}, x, {hexd(c)})"
    print(f"// {doc}: degree {n - 1} on [{a}, {b}], error {mp.nstr(err, 3)}.")
    print(f"double {name}(double x) {{ return {body}; }}")


def sq(z):
    return mp.sqrt(z)


fit("__wk_p_expm1", "(e^x - 1 - x) / x^2", lambda r: (mp.expm1(r) - r) / r**2 if r else ONE / 2,
    -0.56, 0.56, mp.mpf(2) ** -58)
fit("__wk_p_log", "(2 atanh(s) / s - 2) / z, z = s^2",
    lambda z: (2 * mp.atanh(sq(z)) / sq(z) - 2) / z if z else mp.mpf(2) / 3, 0, 0.0295, mp.mpf(2) ** -56)
fit("__wk_p_sin", "(sin(r) - r) / r^3 in z = r^2",
    lambda z: (mp.sin(sq(z)) - sq(z)) / sq(z) ** 3 if z else -ONE / 6, 0, (mp.pi / 4) ** 2, mp.mpf(2) ** -58)
fit("__wk_p_cos", "(cos(r) - 1 + z/2) / z^2 in z = r^2",
    lambda z: (mp.cos(sq(z)) - 1 + z / 2) / z**2 if z else ONE / 24, 0, (mp.pi / 4) ** 2, mp.mpf(2) ** -58)
fit("__wk_p_atan", "(atan(t) - t) / t^3 in z = t^2",
    lambda z: (mp.atan(sq(z)) - sq(z)) / sq(z) ** 3 if z else -ONE / 3, 0, (mp.sqrt(2) - 1) ** 2, mp.mpf(2) ** -56)
fit("__wk_p_asin", "(asin(x) - x) / x^3 in z = x^2",
    lambda z: (mp.asin(sq(z)) - sq(z)) / sq(z) ** 3 if z else ONE / 6, 0, 0.25, mp.mpf(2) ** -56)
fit("__wk_p_erf", "erf(x) / x - 1 in z = x^2",
    lambda z: mp.erf(sq(z)) / sq(z) - 1 if z else 2 / mp.sqrt(mp.pi) - 1, 0, 0.84375**2, mp.mpf(2) ** -57)
fit("__wk_p_erfc_mid", "erfc(1 + s)", lambda s: mp.erfc(1 + s), -0.15625, 0.25, mp.mpf(2) ** -59)
fit("__wk_p_cbrt", "cbrt(x), a first approximation", mp.cbrt, 1, 8, mp.mpf(2) ** -7)


def g(x):
    return x * mp.exp(x * x) * mp.erfc(x)


fit("__wk_p_erfc1", "x e^(x^2) erfc(x) in s = x - 1.875", lambda s: g(s + 1.875), -0.625, 0.625, mp.mpf(2) ** -56)
fit("__wk_p_erfc2", "x e^(x^2) erfc(x) in s = x - 3.75", lambda s: g(s + 3.75), -1.25, 1.25, mp.mpf(2) ** -56)
fit("__wk_p_erfc3", "x e^(x^2) erfc(x) in t = 1/x", lambda t: g(1 / t), 1 / mp.mpf(28), 0.2, mp.mpf(2) ** -56)
fit("__wk_p_gamma", "gamma(2.5 + s)", lambda s: mp.gamma(2.5 + s), -0.5, 0.5, mp.mpf(2) ** -56)
fit("__wk_p_lgamma2", "lgamma(2 + t) / t", lambda t: mp.loggamma(2 + t) / t if t else 1 - mp.euler,
    -0.5, 0.5, mp.mpf(2) ** -56)

# 2/pi cut into 53-bit pieces on a fixed grid: piece i holds the bits of weights
# 2^(-53 i - 1) .. 2^(-53 i - 53), printed scaled by 2^(53 i) (so every piece is a normal
# binary64 value below 1). The Payne-Hanek reduction multiplies an argument exactly by a few
# consecutive pieces.
mp.mp.prec = 2000
two_over_pi = 2 / mp.pi
pieces = []
for i in range(24):
    scaled = mp.floor(two_over_pi * mp.mpf(2) ** (53 * (i + 1)))
    chunk = scaled - mp.floor(two_over_pi * mp.mpf(2) ** (53 * i)) * mp.mpf(2) ** 53
    pieces.append(chunk / mp.mpf(2) ** 53)
print("// 2/pi in 53-bit pieces: piece i (scaled by 2^(53 i)) holds bits 53 i + 1 .. 53 i + 53.")
print("__constant double __wk_2_over_pi[24] = {")
for k in range(0, 24, 3):
    print("    " + ", ".join(hexd(t) for t in pieces[k:k + 3]) + ",")
print("};")
