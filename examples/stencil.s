// stencil: a 3x3 integer blur with clamp-to-edge borders over a W x H image of u32
// pixels (row-major): out[y][x] = sum of weights [1 2 1; 2 4 2; 1 2 1] times the
// neighbours, coordinates clamped into the image (wrapping u32 arithmetic).
//
// Arguments:
//   0 in   buffer of W*H u32
//   1 out  buffer of W*H u32
//   2 W    image width
//   3 H    image height
// Launch: 2-D, block (24,6,1): 144 threads, so each workgroup's fifth warp is partial
// (16 lanes); grid (ceil(W/24), ceil(H/6), 1). Threads past the right or bottom edge are
// masked off with a compare and saveexec.

    uload.b256 u[16:23], u[0:1], 0      // in, out, W (u20), H (u22)
    waitcnt    sm=0
    umul       u24, u2, u8
    add.vu     v4, v0, u24              // x
    umul       u25, u3, u9
    add.vu     v5, v1, u25              // y
    cmp.lt.u32.vu u26, v4, u20
    cmp.lt.u32.vu u27, v5, u22
    uand       u26, u26, u27            // inside the image
    saveexec.and u28, u26
    bexecz     .Ldone
    uaddi      u30, u20, -1
    uaddi      u31, u22, -1
    add.vi     v6, v4, -1
    max.vi     v6, v6, 0                // x-1 clamped (signed: -1 becomes 0)
    add.vi     v7, v4, 1
    minu.vu    v7, v7, u30              // x+1 clamped
    add.vi     v8, v5, -1
    max.vi     v8, v8, 0
    add.vi     v9, v5, 1
    minu.vu    v9, v9, u31
    sll.vi     v6, v6, 2                // column byte offsets
    sll.vi     v10, v4, 2
    sll.vi     v7, v7, 2
    uslli      u32, u20, 2              // row pitch in bytes
    mul.vu     v8, v8, u32              // row byte offsets
    mul.vu     v11, v5, u32
    mul.vu     v9, v9, u32
    add        v12, v8, v6              // the nine neighbour addresses
    add        v13, v8, v10
    add        v14, v8, v7
    add        v15, v11, v6
    add        v16, v11, v10            // centre, also the output address
    add        v17, v11, v7
    add        v18, v9, v6
    add        v19, v9, v10
    add        v20, v9, v7
    gload.b32  v21, v12, u[16:17], 0
    gload.b32  v22, v13, u[16:17], 0
    gload.b32  v23, v14, u[16:17], 0
    gload.b32  v24, v15, u[16:17], 0
    gload.b32  v25, v16, u[16:17], 0
    gload.b32  v26, v17, u[16:17], 0
    gload.b32  v27, v18, u[16:17], 0
    gload.b32  v28, v19, u[16:17], 0
    gload.b32  v29, v20, u[16:17], 0
    waitcnt    vm=0
    add        v30, v21, v23            // corners, weight 1
    add        v30, v30, v27
    add        v30, v30, v29
    add        v31, v22, v24            // edges, weight 2
    add        v31, v31, v26
    add        v31, v31, v28
    sll.vi     v31, v31, 1
    sll.vi     v32, v25, 2              // centre, weight 4
    add        v30, v30, v31
    add        v30, v30, v32
    gstore.b32 v30, v16, u[18:19], 0
.Ldone:
    exec.set   u28
    endpgm
