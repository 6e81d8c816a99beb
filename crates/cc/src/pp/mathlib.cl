// The OpenCL C 1.2 math library (§6.12.2), written in OpenCL C and compiled with the
// program: the lowering turns a call of built-in NAME into an inlined call of
// __cl_NAME_f32 or __cl_NAME_f64 (by the first floating argument). Helpers are __wk_*.
// Accuracy and algorithms: docs/opencl.md, "Built-in functions and their accuracy".
// Polynomial coefficients and tables come from tools/mathlib_poly.py.
//
// Float functions whose exact result is a float (floor, fmod, ...) are computed exactly;
// the others are mostly computed in double and rounded once, which keeps them within a
// hair of half an ulp. Helpers never look at the caller's rounding mode: the ISA rounds
// to nearest even.

// ---- bits ----

// The unbiased exponent of finite nonzero x (subnormals included).
int __wk_ilogb_f64(double x) {
    int e = (int)((as_ulong(x) >> 52) & 0x7ff);
    if (e == 0)
        return (int)((as_ulong(x * 0x1p54) >> 52) & 0x7ff) - 1077;
    return e - 1023;
}

// x * 2^n with one rounding (the steps keep the intermediate product exact).
double __wk_scalbn_f64(double x, int n) {
    if (n > 1023) {
        x *= 0x1p1023;
        n -= 1023;
        if (n > 1023) {
            x *= 0x1p1023;
            n = min(n - 1023, 1023);
        }
    } else if (n < -1022) {
        x *= 0x1p-969;
        n += 969;
        if (n < -1022) {
            x *= 0x1p-969;
            n = max(n + 969, -1022);
        }
    }
    return x * as_double((ulong)(n + 1023) << 52);
}

// ---- rounding to integers (exact) ----

float __cl_trunc_f32(float x) {
    uint u = as_uint(x);
    int e = (int)((u >> 23) & 0xff) - 127;
    if (e >= 23)
        return x;
    if (e < 0)
        return as_float(u & 0x80000000u);
    return as_float(u & ~(0x007fffffu >> e));
}

double __cl_trunc_f64(double x) {
    ulong u = as_ulong(x);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    if (e >= 52)
        return x;
    if (e < 0)
        return as_double(u & 0x8000000000000000ul);
    return as_double(u & ~(0x000ffffffffffffful >> e));
}

float __cl_floor_f32(float x) {
    float t = __cl_trunc_f32(x);
    return x < t ? t - 1.0f : t;
}

double __cl_floor_f64(double x) {
    double t = __cl_trunc_f64(x);
    return x < t ? t - 1.0 : t;
}

float __cl_ceil_f32(float x) {
    float t = __cl_trunc_f32(x);
    return x > t ? t + 1.0f : t;
}

double __cl_ceil_f64(double x) {
    double t = __cl_trunc_f64(x);
    return x > t ? t + 1.0 : t;
}

// Halfway cases away from zero; the sign of x survives a zero result.
float __cl_round_f32(float x) {
    float t = __cl_trunc_f32(x);
    return fabs(x - t) >= 0.5f ? t + copysign(1.0f, x) : t;
}

double __cl_round_f64(double x) {
    double t = __cl_trunc_f64(x);
    return fabs(x - t) >= 0.5 ? t + copysign(1.0, x) : t;
}

// Below 2^23 (2^52), adding and removing 2^23 rounds to an integer, ties to even.
float __cl_rint_f32(float x) {
    float a = fabs(x);
    return a < 0x1p23f ? copysign((a + 0x1p23f) - 0x1p23f, x) : x;
}

double __cl_rint_f64(double x) {
    double a = fabs(x);
    return a < 0x1p52 ? copysign((a + 0x1p52) - 0x1p52, x) : x;
}

// ---- remainders (exact) ----

// |x| mod |y| for finite x and nonzero y with |x| >= |y|: each step subtracts an integer
// multiple q < 2^52 of |y| * 2^k; fma computes the difference exactly because it is a
// multiple of ulp(|y| * 2^k) smaller than |y| * 2^k. `quo` gets the low 7 bits of the
// integral quotient.
double __wk_rem_f64(double ax, double ay, int *quo) {
    double r = ax;
    int ey = __wk_ilogb_f64(ay);
    int q7 = 0;
    while (r >= ay) {
        int k = max(__wk_ilogb_f64(r) - ey - 50, 0);
        double ys = __wk_scalbn_f64(ay, k);
        double q = __cl_trunc_f64(r / ys);
        r = fma(-q, ys, r);
        if (r < 0.0) {
            r += ys;
            q -= 1.0;
        }
        if (k < 7) {
            double low = q - 128.0 * __cl_floor_f64(q * 0x1p-7);
            q7 += (int)low << k;
        }
    }
    *quo = q7 & 127;
    return r;
}

double __cl_fmod_f64(double x, double y) {
    double ax = fabs(x), ay = fabs(y);
    if (isnan(x) || isnan(y) || isinf(x) || ay == 0.0)
        return NAN;
    if (ax < ay)
        return x;
    int q;
    return copysign(__wk_rem_f64(ax, ay, &q), x);
}

float __cl_fmod_f32(float x, float y) {
    return (float)__cl_fmod_f64(x, y);
}
