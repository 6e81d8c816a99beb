// scan: inclusive prefix sum out[i] = in[0] + ... + in[i] (u32, wrapping) for i < n.
//
// Arguments:
//   0 in   buffer of n u32
//   1 out  buffer of n u32
//   2 n    element count
// Launch: one workgroup, block (B,1,1) with B a multiple of 32 up to 1024 (1024 in the
// suite), grid (1,1,1); shared memory: at least 4480 bytes.
//
// The workgroup walks the array in chunks of B elements, carrying the running total in a
// register (every warp keeps its own copy). Per chunk: each warp scans its 32 values in
// its own shared slice (Hillis-Steele; one instruction reads every lane's neighbour before
// any lane writes, so a warp needs no barrier); lane 31 publishes the warp total; after a
// barrier warp 0 scans the warp totals and publishes their exclusive prefixes and the
// chunk total; after a second barrier every thread adds its warp's prefix and the carry.
// Warp 0 rewrites the totals area only after the next chunk's first barrier, by which time
// every warp has read this chunk's values, so two barriers per chunk suffice.

    .equ WTOT, 4096                     // 32 warp totals (inclusive scan, in place)
    .equ WEXC, 4224                     // 32 exclusive warp prefixes
    .equ WSCAN, 4352                    // warp 0's scan slice for the warp totals

    uload.b128 u[16:19], u[0:1], 0      // in, out
    uload.b32  u20, u[0:1], 16          // n
    waitcnt    sm=0
    laneid     v4
    sll.vi     v5, v3, 2                // this thread's slot
    sll.vi     v6, v4, 2                // lane * 4
    uslli      u21, u29, 2
    mov.vu     v7, u21                  // warp id * 4, for the per-warp areas
    movi       v8, 0                    // carry: sum of every earlier chunk
    umovi      u22, 0                   // chunk base index
    usltu      u24, u22, u20
    bz         u24, .Lend
.Lchunk:
    add.vu     v9, v3, u22              // i
    sll.vi     v10, v9, 2
    movi       v11, 0                   // x = 0 past the end, so lane 31 still totals
    cmp.lt.u32.vu u24, v9, u20
    saveexec.and u25, u24
    gload.b32  v11, v10, u[16:17], 0
    waitcnt    vm=0
    exec.set   u25

    // Warp-level inclusive scan: lanes at or above d add the value d slots below.
    dsstore.b32 v11, v5, 0
    cmp.ge.u32.vi u24, v4, 1
    saveexec.and u25, u24
    dsload.b32 v12, v5, -4
    waitcnt    ls=0
    add        v11, v11, v12
    dsstore.b32 v11, v5, 0
    exec.set   u25
    cmp.ge.u32.vi u24, v4, 2
    saveexec.and u25, u24
    dsload.b32 v12, v5, -8
    waitcnt    ls=0
    add        v11, v11, v12
    dsstore.b32 v11, v5, 0
    exec.set   u25
    cmp.ge.u32.vi u24, v4, 4
    saveexec.and u25, u24
    dsload.b32 v12, v5, -16
    waitcnt    ls=0
    add        v11, v11, v12
    dsstore.b32 v11, v5, 0
    exec.set   u25
    cmp.ge.u32.vi u24, v4, 8
    saveexec.and u25, u24
    dsload.b32 v12, v5, -32
    waitcnt    ls=0
    add        v11, v11, v12
    dsstore.b32 v11, v5, 0
    exec.set   u25
    cmp.ge.u32.vi u24, v4, 16
    saveexec.and u25, u24
    dsload.b32 v12, v5, -64
    waitcnt    ls=0
    add        v11, v11, v12
    exec.set   u25

    cmp.eq.i32.vi u24, v4, 31           // lane 31 holds the warp total
    saveexec.and u25, u24
    dsstore.b32 v11, v7, WTOT
    exec.set   u25
    waitcnt    ls=0
    barrier

    bnz        u29, .Lapply
    // Warp 0: scan the warp totals (lanes past the warp count contribute 0).
    movi       v13, 0
    cmp.lt.u32.vu u24, v4, u11
    saveexec.and u25, u24
    dsload.b32 v13, v6, WTOT
    waitcnt    ls=0
    exec.set   u25
    mov        v14, v13                 // keep the lane's own total for the exclusive form
    dsstore.b32 v13, v6, WSCAN
    cmp.ge.u32.vi u24, v4, 1
    saveexec.and u25, u24
    dsload.b32 v12, v6, WSCAN-4
    waitcnt    ls=0
    add        v13, v13, v12
    dsstore.b32 v13, v6, WSCAN
    exec.set   u25
    cmp.ge.u32.vi u24, v4, 2
    saveexec.and u25, u24
    dsload.b32 v12, v6, WSCAN-8
    waitcnt    ls=0
    add        v13, v13, v12
    dsstore.b32 v13, v6, WSCAN
    exec.set   u25
    cmp.ge.u32.vi u24, v4, 4
    saveexec.and u25, u24
    dsload.b32 v12, v6, WSCAN-16
    waitcnt    ls=0
    add        v13, v13, v12
    dsstore.b32 v13, v6, WSCAN
    exec.set   u25
    cmp.ge.u32.vi u24, v4, 8
    saveexec.and u25, u24
    dsload.b32 v12, v6, WSCAN-32
    waitcnt    ls=0
    add        v13, v13, v12
    dsstore.b32 v13, v6, WSCAN
    exec.set   u25
    cmp.ge.u32.vi u24, v4, 16
    saveexec.and u25, u24
    dsload.b32 v12, v6, WSCAN-64
    waitcnt    ls=0
    add        v13, v13, v12
    dsstore.b32 v13, v6, WSCAN         // lane 31's slot now holds the chunk total
    exec.set   u25
    sub        v14, v13, v14
    dsstore.b32 v14, v6, WEXC
    waitcnt    ls=0

.Lapply:
    barrier
    dsload.b32 v15, v7, WEXC            // this warp's exclusive prefix (same for all lanes)
    movi       v16, 0
    dsload.b32 v17, v16, WSCAN+124      // chunk total, for the carry
    waitcnt    ls=0
    add        v11, v11, v15
    add        v11, v11, v8
    add        v8, v8, v17
    cmp.lt.u32.vu u24, v9, u20
    saveexec.and u25, u24
    gstore.b32 v11, v10, u[18:19], 0
    exec.set   u25
    uadd       u22, u22, u8
    usltu      u24, u22, u20
    bnz        u24, .Lchunk
.Lend:
    endpgm
