// sgemm: C = A * B for f32 matrices, A M x K, B K x N, C M x N, row-major.
//
// Arguments:
//   0 A  buffer of M*K f32
//   1 B  buffer of K*N f32
//   2 C  buffer of M*N f32
//   3 M  rows of A and C
//   4 N  columns of B and C
//   5 K  columns of A, rows of B
// Launch: 2-D, block (16,16,1), grid (N/16, M/16, 1); M, N and K multiples of 16; shared
// memory: at least 2048 bytes.
//
// matmul's shared-memory tiling with f32 data: per 16-wide step of K the workgroup stages
// a 16x16 tile of A and one of B, then each thread accumulates 16 products with ffma.f32
// (one rounding each, in the rounding mode of `mode`: rne at reset). Every C[i][j] is
// therefore fma(A[i][K-1], B[K-1][j], ... fma(A[i][0], B[0][j], +0.0)), in order of k:
// the host reference performs exactly these operations.

    uload.b256 u[16:23], u[0:1], 0      // A, B, C, M
    uload.b128 u[24:27], u[0:1], 32     // N (u24), K (u26)
    waitcnt    sm=0
    umul       u28, u3, u9
    add.vu     v4, v1, u28              // row
    umul       u30, u2, u8
    add.vu     v5, v0, u30              // col
    mul.vu     v6, v4, u26
    add        v6, v6, v0
    sll.vi     v6, v6, 2                // byte offset of A[row][tx] in the first tile
    mul.vu     v7, v1, u24
    add        v7, v7, v5
    sll.vi     v7, v7, 2                // byte offset of B[ty][col] in the first tile
    uslli      u31, u24, 6              // B advances 16 rows of N f32 per tile
    sll.vi     v8, v3, 2                // this thread's slot in the As and Bs tiles
    sll.vi     v9, v1, 6                // As row ty
    sll.vi     v10, v0, 2               // Bs column tx
    movi       v11, 0                   // the accumulator, +0.0
    usrli      u32, u26, 4              // number of K tiles
    bz         u32, .Lstore
.Ltile:
    gload.b32  v12, v6, u[16:17], 0
    gload.b32  v13, v7, u[18:19], 0
    waitcnt    vm=0
    dsstore.b32 v12, v8, 0
    dsstore.b32 v13, v8, 1024
    waitcnt    ls=0                     // the tile must be in shared memory for every warp
    barrier
    dsload.b32 v14, v9, 0               // As[ty][0]
    dsload.b32 v15, v10, 1024           // Bs[0][tx]
    dsload.b32 v16, v9, 4
    dsload.b32 v17, v10, 1088
    dsload.b32 v18, v9, 8
    dsload.b32 v19, v10, 1152
    dsload.b32 v20, v9, 12
    dsload.b32 v21, v10, 1216
    waitcnt    ls=0
    ffma.f32   v11, v14, v15, v11
    ffma.f32   v11, v16, v17, v11
    ffma.f32   v11, v18, v19, v11
    ffma.f32   v11, v20, v21, v11
    dsload.b32 v14, v9, 16              // As[ty][4]
    dsload.b32 v15, v10, 1280           // Bs[4][tx]
    dsload.b32 v16, v9, 20
    dsload.b32 v17, v10, 1344
    dsload.b32 v18, v9, 24
    dsload.b32 v19, v10, 1408
    dsload.b32 v20, v9, 28
    dsload.b32 v21, v10, 1472
    waitcnt    ls=0
    ffma.f32   v11, v14, v15, v11
    ffma.f32   v11, v16, v17, v11
    ffma.f32   v11, v18, v19, v11
    ffma.f32   v11, v20, v21, v11
    dsload.b32 v14, v9, 32              // As[ty][8]
    dsload.b32 v15, v10, 1536           // Bs[8][tx]
    dsload.b32 v16, v9, 36
    dsload.b32 v17, v10, 1600
    dsload.b32 v18, v9, 40
    dsload.b32 v19, v10, 1664
    dsload.b32 v20, v9, 44
    dsload.b32 v21, v10, 1728
    waitcnt    ls=0
    ffma.f32   v11, v14, v15, v11
    ffma.f32   v11, v16, v17, v11
    ffma.f32   v11, v18, v19, v11
    ffma.f32   v11, v20, v21, v11
    dsload.b32 v14, v9, 48              // As[ty][12]
    dsload.b32 v15, v10, 1792           // Bs[12][tx]
    dsload.b32 v16, v9, 52
    dsload.b32 v17, v10, 1856
    dsload.b32 v18, v9, 56
    dsload.b32 v19, v10, 1920
    dsload.b32 v20, v9, 60
    dsload.b32 v21, v10, 1984
    waitcnt    ls=0
    ffma.f32   v11, v14, v15, v11
    ffma.f32   v11, v16, v17, v11
    ffma.f32   v11, v18, v19, v11
    ffma.f32   v11, v20, v21, v11
    barrier                             // nobody overwrites the tiles while others read them
    add.vi     v6, v6, 64
    add.vu     v7, v7, u31
    uaddi      u32, u32, -1
    bnz        u32, .Ltile
.Lstore:
    mul.vu     v30, v4, u24
    add        v30, v30, v5
    sll.vi     v30, v30, 2
    gstore.b32 v11, v30, u[20:21], 0
    endpgm
