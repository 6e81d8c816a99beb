// jacobi2d (PolyBench stencils/jacobi-2d, on u32): one sweep of the five-point Jacobi
// stencil over an N x N grid, out[i][j] = (in[i][j] + in[i][j-1] + in[i][j+1] + in[i-1][j]
// + in[i+1][j]) / 5 inside, the border copied; launched once per sweep, each sweep reading
// the one before. Launch: 2-D, any block; the grid covers N x N.
__kernel void jacobi2d(__global const uint *in, __global uint *out, uint N)
{
    uint j = get_global_id(0);
    uint i = get_global_id(1);
    if (i >= N || j >= N)
        return;
    uint c = in[i * N + j];
    if (i == 0 || j == 0 || i == N - 1 || j == N - 1) {
        out[i * N + j] = c;
        return;
    }
    uint s = c + in[i * N + j - 1] + in[i * N + j + 1] + in[(i - 1) * N + j] + in[(i + 1) * N + j];
    out[i * N + j] = s / 5;
}
