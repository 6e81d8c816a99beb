// matmul: C = A * B for u32 matrices (wrapping), A M x K, B K x N, row-major, with 16x16
// tiles in local memory: examples/matmul.s in OpenCL C. M, N and K are multiples of TILE;
// block (TILE, TILE), grid (N/TILE, M/TILE).
#define TILE 16

__kernel void matmul(__global const uint *A, __global const uint *B, __global uint *C,
                     uint M, uint N, uint K)
{
    __local uint As[TILE][TILE];
    __local uint Bs[TILE][TILE];
    uint tx = get_local_id(0), ty = get_local_id(1);
    uint row = get_group_id(1) * TILE + ty;
    uint col = get_group_id(0) * TILE + tx;
    uint acc = 0;
    for (uint t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
