// bitonic: sorts each workgroup's run of 2*B u32 keys ascending (B = threads per
// workgroup): out[g*2B .. (g+1)*2B) = sorted(keys[g*2B .. (g+1)*2B)).
//
// Arguments:
//   0 keys  buffer of G*2*B u32
//   1 out   buffer of G*2*B u32
// Launch: 1-D, block (B,1,1) with 2*B a power of two (B = 256 in the suite: runs of 512
// keys), grid (G,1,1); shared memory: at least 8*B bytes.
//
// The run is staged in shared memory; every (k, j) step of the bitonic network has each
// thread compare-exchange one pair (i, i+j), where i is the thread id with a zero bit
// inserted at position log2(j). The direction comes from bit k of i; min/max and sel
// place the pair without any branch, so no lane diverges. A barrier separates steps.

    uload.b128 u[16:19], u[0:1], 0      // keys, out
    waitcnt    sm=0
    uslli      u20, u8, 1               // run length 2*B
    umul       u21, u12, u20
    uslli      u21, u21, 2              // byte offset of this workgroup's run
    sll.vi     v4, v3, 2                // slot t
    uslli      u22, u8, 2               // slot t + B is 4*B bytes further
    mov.vu     v5, u22
    add        v5, v5, v4
    add.vu     v6, v4, u21
    add.vu     v7, v5, u21
    gload.b32  v8, v6, u[16:17], 0
    gload.b32  v9, v7, u[16:17], 0
    waitcnt    vm=0
    dsstore.b32 v8, v4, 0
    dsstore.b32 v9, v5, 0
    waitcnt    ls=0
    barrier

    umovi      u23, 2                   // k: size of the bitonic sequences being merged
.Lk:
    usrli      u24, u23, 1              // j: compare distance
.Lj:
    uaddi      u25, u24, -1             // low bits of t kept in place
    and.vu     v10, v3, u25
    andn.vu    v11, v3, u25
    sll.vi     v11, v11, 1
    or         v12, v11, v10            // i: t with a 0 inserted at bit log2(j)
    sll.vi     v13, v12, 2              // address of key i
    uslli      u26, u24, 2
    add.vu     v14, v13, u26            // address of key i + j
    dsload.b32 v15, v13, 0
    dsload.b32 v16, v14, 0
    and.vu     v17, v12, u23            // non-zero: this pair sorts descending
    waitcnt    ls=0
    minu       v18, v15, v16
    maxu       v19, v15, v16
    sel        v20, v19, v18, v17       // key i: max when descending, else min
    sel        v21, v18, v19, v17
    dsstore.b32 v20, v13, 0
    dsstore.b32 v21, v14, 0
    waitcnt    ls=0                     // the next step reads pairs other warps wrote
    barrier
    usrli      u24, u24, 1
    bnz        u24, .Lj
    uslli      u23, u23, 1
    usltu      u27, u20, u23            // done once k exceeds the run length
    bz         u27, .Lk

    dsload.b32 v8, v4, 0
    dsload.b32 v9, v5, 0
    waitcnt    ls=0
    gstore.b32 v8, v6, u[18:19], 0
    gstore.b32 v9, v7, u[18:19], 0
    endpgm
