// atax (PolyBench linear-algebra/kernels/atax, on u32 with wrapping arithmetic):
// y = A^T (A x) for an M x N matrix A, in two launches of this kernel: pass 0 computes
// tmp = A x (work-item i walks row i: its lanes load words N apart), pass 1 computes
// y = A^T tmp (work-item j walks column j: its lanes load consecutive words).
// Launch: 1-D, any block; the grid covers M (pass 0) or N (pass 1) work-items.
__kernel void atax(__global const uint *A, __global const uint *in, __global uint *out, uint M,
                   uint N, uint pass)
{
    uint k = get_global_id(0);
    uint sum = 0;
    if (pass == 0) {
        if (k >= M)
            return;
        for (uint j = 0; j < N; j++)
            sum += A[k * N + j] * in[j];
    } else {
        if (k >= N)
            return;
        for (uint i = 0; i < M; i++)
            sum += A[i * N + k] * in[i];
    }
    out[k] = sum;
}
