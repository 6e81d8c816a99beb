// matmul_dp4a: C = A * B for signed 8-bit matrices with 32-bit results, the int8 GEMM of
// quantised inference. A is M x K bytes row-major; B is given transposed (Bt, N x K bytes
// row-major) so both operands of a dot product are contiguous packed bytes; C is M x N i32.
//
// Arguments:
//   0 A   buffer of M*K i8
//   1 Bt  buffer of N*K i8
//   2 C   buffer of M*N i32
//   3 M
//   4 N
//   5 K   a multiple of 16
// Launch: 2-D, block (16,16,1), grid (N/16, M/16, 1); M and N multiples of 16.
//
// Each thread owns C[row][col] and walks K 16 bytes at a time: one 128-bit load from each
// operand, then four dp4a.i32, each multiplying 4 byte pairs and accumulating.

    uload.b256 u[16:23], u[0:1], 0      // A, Bt, C, M
    uload.b128 u[24:27], u[0:1], 32     // N (u24), K (u26)
    waitcnt    sm=0
    umul       u28, u3, u9
    add.vu     v4, v1, u28              // row
    umul       u30, u2, u8
    add.vu     v5, v0, u30              // col
    mul.vu     v6, v4, u26              // byte offset of A[row][0]
    mul.vu     v7, v5, u26              // byte offset of Bt[col][0]
    movi       v8, 0                    // the accumulator
    usrli      u31, u26, 4              // 16-byte steps
    bz         u31, .Lstore
.Lstep:
    gload.b128 v[12:15], v6, u[16:17], 0
    gload.b128 v[16:19], v7, u[18:19], 0
    waitcnt    vm=0
    dp4a.i32   v8, v12, v16, v8
    dp4a.i32   v8, v13, v17, v8
    dp4a.i32   v8, v14, v18, v8
    dp4a.i32   v8, v15, v19, v8
    add.vi     v6, v6, 16
    add.vi     v7, v7, 16
    uaddi      u31, u31, -1
    bnz        u31, .Lstep
.Lstore:
    mul.vu     v9, v4, u24
    add        v9, v9, v5
    sll.vi     v9, v9, 2
    gstore.b32 v8, v9, u[20:21], 0
    endpgm
