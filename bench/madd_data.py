"""Inputs and expected results of the a[i] = a[i]*b[i] + b[i] loop that bench/peers.sh
times (bench/madd.s, bench/rvv_madd.S.in).

Usage: madd_data.py DIR ELEMS REPS... writes DIR/a.bin and DIR/b.bin (ELEMS little-endian
u32 each) and, for every REPS, DIR/want_REPS.bin: a after REPS repetitions. The elements
are distinct and b's are odd, so a's starting value never drops out of a*b + b. The
expected values are computed without running the loop: x -> b*x + b is an affine map, and
its REPS-th power is found by repeated squaring.
"""
import struct
import sys

M = 0xFFFFFFFF


def power(b, reps):
    """(m, c) such that applying x -> b*x + b reps times is x -> m*x + c (mod 2^32)."""
    m, c = 1, 0  # the identity
    pm, pc = b, b  # the map to the power 2^j
    while reps:
        if reps & 1:
            m, c = pm * m & M, (pm * c + pc) & M
        pm, pc = pm * pm & M, (pm * pc + pc) & M
        reps >>= 1
    return m, c


def main():
    out, n, reps = sys.argv[1], int(sys.argv[2]), sorted({int(r) for r in sys.argv[3:]})
    a = [(i * 2654435761 + 7) & M for i in range(n)]
    b = [((i * 40503 + 12345) & M) | 1 for i in range(n)]

    def write(name, xs):
        with open(f"{out}/{name}", "wb") as f:
            f.write(struct.pack(f"<{n}I", *xs))

    write("a.bin", a)
    write("b.bin", b)
    for r in reps:
        want = []
        for x, y in zip(a, b):
            m, c = power(y, r)
            want.append((m * x + c) & M)
        write(f"want_{r}.bin", want)


if __name__ == "__main__":
    main()
