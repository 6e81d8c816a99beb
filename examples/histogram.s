// histogram: hist[b] += number of bytes equal to b in data[0 .. 4*nwords), 256 bins of u32.
//
// Arguments:
//   0 data    buffer of 4*nwords bytes
//   1 hist    buffer of 256 u32, accumulated into (zero it for a plain histogram)
//   2 nwords  number of 32-bit words in data
// Launch: 1-D, block (256,1,1) (one bin per thread for clearing and flushing), any grid;
// shared memory: at least 1024 bytes.
//
// Each workgroup counts into a private shared-memory histogram with shared atomics (cheap,
// no global traffic per byte), then adds its non-zero bins to the global histogram with one
// global atomic per bin. Each thread consumes a whole word (4 bytes) per trip of a
// grid-stride loop.

    uload.b128 u[16:19], u[0:1], 0      // data, hist
    uload.b32  u20, u[0:1], 16          // nwords
    waitcnt    sm=0
    sll.vi     v4, v3, 2                // this thread's bin slot (thread b owns bin b)
    movi       v5, 0
    dsstore.b32 v5, v4, 0               // clear the private histogram
    movi       v6, 1                    // the increment for every byte
    umul       u21, u2, u8
    add.vu     v7, v3, u21              // word index
    umul       u22, u5, u8              // grid stride in words
    uslli      u23, u22, 2              // ... in bytes
    sll.vi     v8, v7, 2
    waitcnt    ls=0                     // the clear must land before any warp counts
    barrier
    cmp.lt.u32.vu u24, v7, u20
    saveexec.and u25, u24
    bexecz     .Lflush
.Lloop:
    gload.b32  v9, v8, u[16:17], 0
    waitcnt    vm=0
    zext.b     v10, v9                  // byte 0
    sll.vi     v10, v10, 2
    dsatomic.add v6, v10, 0
    srl.vi     v11, v9, 8               // byte 1
    zext.b     v11, v11
    sll.vi     v11, v11, 2
    dsatomic.add v6, v11, 0
    srl.vi     v12, v9, 16              // byte 2
    zext.b     v12, v12
    sll.vi     v12, v12, 2
    dsatomic.add v6, v12, 0
    srl.vi     v13, v9, 24              // byte 3: the shift leaves nothing to mask
    sll.vi     v13, v13, 2
    dsatomic.add v6, v13, 0
    add.vu     v7, v7, u22
    add.vu     v8, v8, u23
    cmp.ge.u32.vu u24, v7, u20
    saveexec.andn2 u26, u24
    bexecnz    .Lloop
.Lflush:
    exec.set   u25
    waitcnt    ls=0                     // every shared atomic done before the flush reads
    barrier
    dsload.b32 v14, v4, 0
    waitcnt    ls=0
    cmp.ne.i32.vi u24, v14, 0           // skip empty bins: no global traffic for them
    saveexec.and u25, u24
    gatomic.add v14, v4, u[18:19], 0
    exec.set   u25
    endpgm
