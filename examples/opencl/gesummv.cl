// gesummv (PolyBench linear-algebra/blas/gesummv, on u32 with wrapping arithmetic):
// y = alpha * A x + beta * B x for N x N matrices A and B, one work-item per row, as
// PolyBench/GPU launches it: each work-item walks its own row, so the lanes of a warp load
// words N apart (a gather) at every step. Launch: 1-D, any block and grid covering N.
__kernel void gesummv(__global const uint *A, __global const uint *B, __global const uint *x,
                      __global uint *y, uint alpha, uint beta, uint N)
{
    uint i = get_global_id(0);
    if (i >= N)
        return;
    uint ax = 0, bx = 0;
    for (uint j = 0; j < N; j++) {
        ax += A[i * N + j] * x[j];
        bx += B[i * N + j] * x[j];
    }
    y[i] = alpha * ax + beta * bx;
}
