// sgemm: C = A * B for f32 matrices, row-major, 16x16 local-memory tiles; every C[i][j] is
// fma(A[i][K-1], B[K-1][j], ... fma(A[i][0], B[0][j], +0.0)) in order of k, exactly as
// examples/sgemm.s computes it. M, N, K multiples of TILE; block (TILE, TILE).
#define TILE 16

__kernel void sgemm(__global const float *A, __global const float *B, __global float *C,
                    uint M, uint N, uint K)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    uint tx = get_local_id(0), ty = get_local_id(1);
    uint row = get_group_id(1) * TILE + ty;
    uint col = get_group_id(0) * TILE + tx;
    float acc = 0.0f;
    for (uint t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc = fma(As[ty][k], Bs[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
