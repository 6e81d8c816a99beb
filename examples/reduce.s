// reduce: out[wg] = sum of in[i] (u32, wrapping) over the elements this workgroup visits.
// Launched twice to get one value: pass 1 with grid G over the n inputs writes G partial
// sums; pass 2 runs the same kernel with grid 1 over those G partials (n = G) and writes
// the total to out[0].
//
// Arguments:
//   0 in   buffer of n u32
//   1 out  buffer of gridDim.x u32
//   2 n    element count
// Launch: 1-D, block (B,1,1) with B a multiple of 32 up to 1024 (256 in the suite), any
// grid; shared memory: at least 4224 bytes.
//
// Shape: a grid-stride loop accumulates per thread; each warp folds its 32 partial sums
// through its own slice of shared memory (lanes of one warp need no barrier: one warp's
// instructions reach memory in program order); the first active lane of each warp (found
// with mbcnt over EXEC) publishes the warp's sum; after a barrier warp 0 folds the warp
// sums the same way and stores the workgroup's result.

    .equ WSUM, 4096                     // warp sums live after the largest slot area

    uload.b128 u[16:19], u[0:1], 0      // in, out
    uload.b32  u20, u[0:1], 16          // n
    waitcnt    sm=0
    umul       u21, u2, u8
    add.vu     v4, v3, u21              // i
    umul       u22, u5, u8              // grid stride in elements
    uslli      u23, u22, 2              // ... in bytes
    sll.vi     v5, v4, 2
    movi       v6, 0                    // the thread's running sum
    cmp.lt.u32.vu u24, v4, u20
    saveexec.and u25, u24               // u25: the launch mask, restored after the loop
    bexecz     .Lfold
.Lloop:
    gload.b32  v7, v5, u[16:17], 0
    waitcnt    vm=0
    add        v6, v6, v7
    add.vu     v4, v4, u22
    add.vu     v5, v5, u23
    cmp.ge.u32.vu u24, v4, u20
    saveexec.andn2 u26, u24
    bexecnz    .Lloop
.Lfold:
    exec.set   u25

    // Fold the warp's 32 sums: lanes below s add the slot s above them.
    sll.vi     v8, v3, 2                // this thread's slot
    laneid     v9
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 16
    saveexec.and u26, u24
    dsload.b32 v7, v8, 64
    waitcnt    ls=0
    add        v6, v6, v7
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 8
    exec.set   u24
    dsload.b32 v7, v8, 32
    waitcnt    ls=0
    add        v6, v6, v7
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 4
    exec.set   u24
    dsload.b32 v7, v8, 16
    waitcnt    ls=0
    add        v6, v6, v7
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 2
    exec.set   u24
    dsload.b32 v7, v8, 8
    waitcnt    ls=0
    add        v6, v6, v7
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 1
    exec.set   u24
    dsload.b32 v7, v8, 4
    waitcnt    ls=0
    add        v6, v6, v7               // lane 0 holds the warp's sum
    exec.set   u26

    // The leader is the first active lane: its mbcnt rank over EXEC is 0.
    exec.get   u27
    movi       v10, 0
    mbcnt      v11, v10, u27
    cmp.eq.i32.vi u24, v11, 0
    saveexec.and u26, u24
    uslli      u28, u29, 2
    mov.vu     v12, u28                 // this warp's WSUM slot
    dsstore.b32 v6, v12, WSUM
    exec.set   u26
    waitcnt    ls=0                     // publish the warp sum before the barrier
    barrier
    bnz        u29, .Lend               // only warp 0 folds the warp sums

    movi       v6, 0
    cmp.lt.u32.vu u24, v9, u11          // lanes that have a warp sum to read
    saveexec.and u26, u24
    sll.vi     v13, v9, 2
    dsload.b32 v6, v13, WSUM
    waitcnt    ls=0
    exec.set   u26
    dsstore.b32 v6, v8, 0               // warp 0 reuses its own slots for the second fold
    cmp.lt.u32.vi u24, v9, 16
    saveexec.and u26, u24
    dsload.b32 v7, v8, 64
    waitcnt    ls=0
    add        v6, v6, v7
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 8
    exec.set   u24
    dsload.b32 v7, v8, 32
    waitcnt    ls=0
    add        v6, v6, v7
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 4
    exec.set   u24
    dsload.b32 v7, v8, 16
    waitcnt    ls=0
    add        v6, v6, v7
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 2
    exec.set   u24
    dsload.b32 v7, v8, 8
    waitcnt    ls=0
    add        v6, v6, v7
    dsstore.b32 v6, v8, 0
    cmp.lt.u32.vi u24, v9, 1
    exec.set   u24                      // lane 0 only from here
    dsload.b32 v7, v8, 4
    waitcnt    ls=0
    add        v6, v6, v7
    uslli      u28, u12, 2
    mov.vu     v14, u28                 // out[wg]
    gstore.b32 v6, v14, u[18:19], 0
    exec.set   u26
.Lend:
    endpgm
