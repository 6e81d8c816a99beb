// vadd: out[i] = a[i] + b[i] (u32, wrapping) for i < n.
//
// Arguments (8-byte slots, docs/abi.md):
//   0 a    buffer of n u32
//   1 b    buffer of n u32
//   2 out  buffer of n u32
//   3 n    element count
// Launch: 1-D, block (256,1,1), grid (ceil(n/256),1,1); one element per thread.
// The last workgroup may hold threads past n: they are masked off, not trapped.

    uload.b128 u[16:19], u[0:1], 0      // a, b: one 16-byte load for two slots
    uload.b64  u[20:21], u[0:1], 16     // out
    uload.b32  u22, u[0:1], 24          // n (low word of slot 3)
    waitcnt    sm=0
    umul       u23, u2, u8              // first global thread id of this workgroup
    add.vu     v4, v3, u23              // i
    cmp.lt.u32.vu u24, v4, u22          // lanes with i < n
    saveexec.and u25, u24
    bexecz     .Ldone                   // whole warp past the end: skip the memory traffic
    sll.vi     v5, v4, 2                // byte offset 4*i
    gload.b32  v6, v5, u[16:17], 0
    gload.b32  v7, v5, u[18:19], 0
    waitcnt    vm=0                     // both loads must land before the add reads them
    add        v8, v6, v7
    gstore.b32 v8, v5, u[20:21], 0
.Ldone:
    exec.set   u25
    endpgm
