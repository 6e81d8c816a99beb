// a[i] = a[i]*b[i] + b[i] over two arrays of 32-bit elements, REPS times: the same work as
// bench/rvv_madd.S.in, which loads both arrays on every repetition, so this kernel does too.
// One thread per element; arguments: a (buffer), b (buffer), reps. bench/peers.sh runs it
// on bench/madd_data.py's inputs and compares a with the result that script computes.
    uload.b64  u[16:17], u[0:1], 0      // a
    uload.b64  u[18:19], u[0:1], 8      // b
    uload.b32  u20, u[0:1], 16          // reps
    waitcnt    sm=0
    umul       u21, u12, u8             // first thread of this workgroup
    add.vu     v4, v3, u21              // global element index i
    sll.vi     v5, v4, 2                // byte offset
rep:
    gload.b32  v6, v5, u[16:17], 0      // a[i]
    gload.b32  v7, v5, u[18:19], 0      // b[i], reloaded every repetition
    waitcnt    vm=0
    mad.u32    v6, v6, v7, v7
    gstore.b32 v6, v5, u[16:17], 0
    uaddi      u20, u20, -1
    bnz        u20, rep
    endpgm
