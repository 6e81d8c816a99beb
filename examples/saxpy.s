// saxpy (integer): y[i] = a*x[i] + y[i] (u32, wrapping) for i < n, in place.
//
// Arguments:
//   0 x    buffer of n u32
//   1 y    buffer of n u32, read and overwritten
//   2 a    the scalar multiplier (low 32 bits used)
//   3 n    element count
// Launch: 1-D, block (256,1,1), any grid: a grid-stride loop covers n with however many
// threads the grid has.
//
// The loop is the §3.2 divergent-loop shape: lanes leave as their index passes n
// (saveexec.andn2 removes them from EXEC), bexecnz repeats while any lane is left, and the
// mask saved before the loop is restored after it.

    uload.b128 u[16:19], u[0:1], 0      // x, y
    uload.b64  u[20:21], u[0:1], 16     // a in u20; the high word is unused
    uload.b32  u22, u[0:1], 24          // n
    waitcnt    sm=0
    umul       u23, u2, u8
    add.vu     v4, v3, u23              // i: first element of this thread
    umul       u27, u5, u8              // grid stride in elements
    uslli      u24, u27, 2              // ... and in bytes
    sll.vi     v5, v4, 2                // byte offset of x[i] and y[i]
    cmp.lt.u32.vu u26, v4, u22
    saveexec.and u25, u26               // u25: the mask to restore after the loop
    bexecz     .Lexit
.Lloop:
    gload.b32  v6, v5, u[16:17], 0      // x[i]
    gload.b32  v7, v5, u[18:19], 0      // y[i]
    waitcnt    vm=0
    mac.vu     v7, v6, u20              // y += x * a
    gstore.b32 v7, v5, u[18:19], 0
    add.vu     v4, v4, u27
    add.vu     v5, v5, u24
    cmp.ge.u32.vu u26, v4, u22          // lanes whose next index is past the end
    saveexec.andn2 u28, u26             // EXEC &= ~leaving
    bexecnz    .Lloop
.Lexit:
    exec.set   u25
    endpgm
