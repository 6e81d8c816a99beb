// vadd: out[i] = a[i] + b[i] (u32, wrapping) for i < n: examples/vadd.s in OpenCL C.
// Launch: 1-D, any block and grid covering n.
__kernel void vadd(__global const uint *a, __global const uint *b, __global uint *out, uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        out[i] = a[i] + b[i];
}
