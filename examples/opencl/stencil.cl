// stencil: a 3x3 integer blur with clamp-to-edge borders over a W x H image of u32 pixels
// (row-major), weights [1 2 1; 2 4 2; 1 2 1], wrapping u32 arithmetic: examples/stencil.s
// in OpenCL C, PolyBench's convolution-2d in shape. Launch: 2-D, any block; the grid
// covers the image, work-items past its right or bottom edge do nothing.
__kernel void stencil(__global const uint *in, __global uint *out, uint W, uint H)
{
    uint x = get_global_id(0);
    uint y = get_global_id(1);
    if (x >= W || y >= H)
        return;
    uint xl = x > 0 ? x - 1 : 0, xr = min(x + 1, W - 1);
    uint yu = y > 0 ? y - 1 : 0, yd = min(y + 1, H - 1);
    __global const uint *up = in + yu * W, *mid = in + y * W, *down = in + yd * W;
    uint s = up[xl] + 2 * up[x] + up[xr];
    s += 2 * mid[xl] + 4 * mid[x] + 2 * mid[xr];
    s += down[xl] + 2 * down[x] + down[xr];
    out[y * W + x] = s;
}
