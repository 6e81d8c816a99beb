// softmax: for every row r < rows of a rows x cols f32 matrix (row-major),
//   Y[r][j] = 2^((X[r][j] - max_r) * log2(e)) / (the sum of those over j),
// the exponentials also written to E.
//
// Arguments:
//   0 X     buffer of rows*cols f32
//   1 E     buffer of rows*cols f32: the fexp2 results
//   2 Y     buffer of rows*cols f32: the softmax
//   3 rows
//   4 cols  at least 1
// Launch: 1-D, block (64,1,1), grid (ceil(rows/64),1,1); one row per thread.
//
// Per row, three passes in element order (the host reference does the same operations in
// the same order):
//   m   = fmax over the row, starting from X[r][0]  (subtracting it keeps 2^t <= 1);
//   e_j = fexp2(fmul(fsub(x_j, m), log2e)), E[r][j] = e_j, s = fadd(s, e_j) from +0.0;
//   Y[r][j] = fmul(e_j, frcp(s)).
// fexp2 is within 1 ulp (docs/provisional.md) and frcp is correctly rounded: the check
// holds E to 1 ulp of the exact 2^t and derives the reference for Y, bit for bit, from
// the E the kernel produced. SFU results are read after `waitcnt sfu=0`.

    uload.b256 u[16:23], u[0:1], 0      // X, E, Y, rows
    uload.b32  u24, u[0:1], 32          // cols
    waitcnt    sm=0
    umul       u25, u2, u8
    add.vu     v4, v3, u25              // row
    cmp.lt.u32.vu u26, v4, u22
    saveexec.and u27, u26               // u27: the launch mask
    bexecz     .Ldone
    mul.vu     v5, v4, u24
    sll.vi     v5, v5, 2                // byte offset of element 0 of the row
// pass 1: the row maximum
    gload.b32  v6, v5, u[16:17], 0      // m = x_0
    add.vi     v7, v5, 4
    uaddi      u28, u24, -1             // elements left
    waitcnt    vm=0
    bz         u28, .Lexp
.Lmax:
    gload.b32  v8, v7, u[16:17], 0
    waitcnt    vm=0
    fmax.f32   v6, v6, v8
    add.vi     v7, v7, 4
    uaddi      u28, u28, -1
    bnz        u28, .Lmax
// pass 2: the exponentials and their sum
.Lexp:
    mov.vl     v9, 0x3fb8aa3b           // log2(e) rounded to f32
    movi       v10, 0                   // s = +0.0
    mov        v7, v5
    umov       u28, u24
.Lsum:
    gload.b32  v8, v7, u[16:17], 0
    waitcnt    vm=0
    fsub.f32   v8, v8, v6
    fmul.f32   v8, v8, v9
    fexp2.f32  v11, v8
    waitcnt    sfu=0
    gstore.b32 v11, v7, u[18:19], 0
    fadd.f32   v10, v10, v11
    add.vi     v7, v7, 4
    uaddi      u28, u28, -1
    bnz        u28, .Lsum
// pass 3: scale by 1/s
    frcp.f32   v12, v10
    mov        v7, v5
    umov       u28, u24
    waitcnt    vm=0                     // E is written before it is read back
    waitcnt    sfu=0
.Lscale:
    gload.b32  v8, v7, u[18:19], 0      // e_j
    waitcnt    vm=0
    fmul.f32   v8, v8, v12
    gstore.b32 v8, v7, u[20:21], 0
    add.vi     v7, v7, 4
    uaddi      u28, u28, -1
    bnz        u28, .Lscale
.Ldone:
    exec.set   u27
    endpgm
